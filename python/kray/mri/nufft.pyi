import ctypes
from .._plan import Plan
from ..linop import Linop
from ctypes import Structure
from .._typing import Array, Device, DTypeLike, ShapeLike
from .._ctx import Context
from typing import Any, Dict, Optional, Tuple
import numpy as np

class NufftOpts(Structure):
    dtype: int
    eps: float
    sigma: float
    batch: int
    width: int
    check_finite: int
    gpu_max_subprob: int
    gpu_max_batch: int
    gpu_bin: ctypes.Array[Any]

class NufftInfo(Structure):
    ndim: int
    dims: ctypes.Array[Any]
    grid: ctypes.Array[Any]
    batch: int
    npoints: int
    dtype: int
    backend: int
    eps: float
    sigma: float
    width: int
    beta: float
    degree: int

class NufftPlan(Plan):
    shape: Tuple[int, ...]
    dtype: np.dtype[Any]
    batch: Any
    sample_shape: Tuple[int, ...]
    def __init__(self, shape: ShapeLike, points: Optional[Array] = ..., dtype: DTypeLike = ...,
            eps: float = ..., sigma: float = ..., batch: int = ..., width: int = ...,
            check_finite: bool = ..., gpu_max_subprob: int = ..., gpu_max_batch: int = ...,
            gpu_bin: Any = ..., device: Device = ..., ctx: Optional[Context] = ...) -> None: ...
    def set_points(self, points: Array) -> NufftPlan: ...
    @property
    def info(self) -> Dict[str, Any]: ...
    def forward(self, image: Array, out: Optional[Array] = ...) -> Array: ...
    def adjoint(self, kspace: Array, out: Optional[Array] = ...) -> Array: ...
    def linop(self) -> Linop: ...

def nufft(image: Array, points: Array, ndim: int = ..., eps: float = ..., **kw: Any) -> Array: ...
def nufft_adjoint(kspace: Array, points: Array, shape: ShapeLike, eps: float = ...,
        **kw: Any) -> Array: ...
