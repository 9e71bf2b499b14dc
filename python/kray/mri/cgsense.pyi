from .._plan import Plan
from ..linop import Linop
from ctypes import Structure
from .._typing import Array, Device, ShapeLike
from .._ctx import Context
from ..linop import SolveResult
from typing import Any, Dict, Optional, Tuple

NORMAL: Any
PRECOND: Any

class CgsenseOpts(Structure):
    dcf: Any
    normal: int
    eps: float
    sigma: float
    fieldmap: Any
    times: Any
    exact: int
    segments: int
    segment_tol: float
    precond: int

class MapsOpts(Structure):
    calib_radius: float
    threshold: float
    espirit: int

class CgsensePlan(Plan):
    shape: Tuple[int, ...]
    sample_shape: Tuple[int, ...]
    def __init__(self, shape: ShapeLike, traj: Array, maps: Array, dcf: Optional[Array] = ...,
            normal: str = ..., eps: float = ..., sigma: float = ..., device: Device = ...,
            ctx: Optional[Context] = ..., fieldmap: Optional[Array] = ...,
            times: Optional[Array] = ..., exact: bool = ..., segments: int = ...,
            segment_tol: float = ..., precond: str = ...) -> None: ...
    @property
    def coils(self) -> int: ...
    @property
    def samples(self) -> int: ...
    @property
    def offres(self) -> Dict[str, Any]: ...
    def precond_diag(self, kind: str = ..., lam: float = ...) -> Array: ...
    def set_fhf(self, op: Optional[Linop]) -> None: ...
    def linop(self) -> Linop: ...
    def normal_linop(self) -> Linop: ...
    def rhs(self, kspace: Array) -> Array: ...
    def adjoint_image(self, kspace: Array) -> Array: ...
    def solve(self, kspace: Array, lam: float = ..., max_iter: int = ..., tol: float = ...,
            x0: Optional[Array] = ..., progress: bool = ...,
            precond: Optional[Array] = ...) -> SolveResult: ...

def estimate_maps(shape: ShapeLike, traj: Array, kspace: Array, dcf: Optional[Array] = ...,
        calib_radius: float = ..., threshold: float = ..., espirit: bool = ...,
        ctx: Optional[Context] = ...) -> Array: ...

def calib_kspace(shape: ShapeLike, traj: Array, kspace: Array, dcf: Optional[Array] = ...,
        calib_radius: float = ..., iters: int = ..., grid: int = ..., device: Device = ...,
        ctx: Optional[Context] = ...) -> Array: ...
