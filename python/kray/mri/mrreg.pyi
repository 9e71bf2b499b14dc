from ctypes import Structure
from .._typing import Array
from typing import Any, Optional, Sequence, Union

METHODS: Any
NORMALS: Any

class MrregTerm(Structure):
    kind: int
    lambda_: float
    axes: int
    block: int

class MrregOpts(Structure):
    method: int
    max_iter: int
    tol: float
    scale: float
    wavelet: int
    levels: int
    randshift: int
    seed: int
    rho: float
    cg_iter: int
    warm_start: int
    objective: Any
    show_progress: int

class MrregData(Structure):
    ndim: int
    dims: Any
    frames: int
    maps: Any
    kspace: Any
    traj: Any
    dcf: Any
    mask: Any
    eps: float
    toeplitz: int

class MrregInfo(Structure):
    method: int
    iterations: int
    objective: float
    scale: float
    norm: float
    lipschitz: float
    converged: int

def term(spec: str) -> MrregTerm: ...

class MrregResult:
    x: Any
    method: str
    iterations: int
    objective: float
    scale: float
    norm: float
    lipschitz: float
    converged: bool
    history: Any
    def __init__(self, x, info, hist) -> None: ...

def mrreg(kspace: Array, maps: Array, reg: Union[str, Sequence[str]], traj: Optional[Array] = ...,
          dcf: Optional[Array] = ..., mask: Optional[Array] = ..., frames: Optional[int] = ...,
          method: str = ..., max_iter: int = ..., tol: float = ..., scale: float = ...,
          wavelet: str = ..., levels: int = ..., randshift: bool = ..., seed: int = ...,
          rho: float = ..., cg_iter: int = ..., eps: float = ..., normal: str = ...,
          x0: Optional[Array] = ..., progress: bool = ...) -> MrregResult: ...
