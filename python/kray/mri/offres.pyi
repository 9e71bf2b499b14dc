from ..linop import Linop
from ctypes import Structure
from .._typing import Array, Device, DTypeLike, ShapeLike
from .._ctx import Context
from typing import Any, Optional
import numpy as np

class OffresOpts(Structure):
    dtype: int
    exact: int
    segments: int
    tol: float
    bins: int
    eps: float
    batch: int

class OffresInfo(Structure):
    segments: int
    interp_err: float
    t_min: float
    t_max: float
    f_min: float
    f_max: float

def operator(shape: ShapeLike, traj: Array, fieldmap: Array, times: Array, dtype: DTypeLike = ...,
        exact: bool = ..., segments: int = ..., tol: float = ..., bins: int = ..., eps: float = ...,
        device: Device = ..., ctx: Optional[Context] = ..., info: bool = ...,
        batch: int = ...) -> Linop: ...

def interp(tau: Array, f: Array, h: Array, t: Array) -> np.ndarray[Any, Any]: ...
