from ctypes import Structure
from .._typing import Array, DTypeLike, PathLike, ShapeLike
from .._ctx import Context
from typing import Any, Dict, Optional, Tuple
import numpy as np

UNITS: Any

class RadialOpts(Structure):
    samples: int
    oversampling: float
    spokes: int
    order: int
    tiny: int
    full_circle: int
    dc: int
    partitions: int
    dtype: int

class SpiralOpts(Structure):
    fov_mm: float
    res_mm: float
    interleaves: int
    gmax_mT_m: float
    smax_T_m_s: float
    dwell_us: float
    vd_factor: float
    vd_start: float
    partitions: int
    dtype: int

class SpiralInfo(Structure):
    samples: int
    matrix: int
    kmax: float
    readout_ms: float
    gmax_used_mT_m: float
    smax_used_T_m_s: float
    slew_limited_ms: float

class DcfOpts(Structure):
    method: int
    boundary: int
    radius: float
    dup_tol: float
    iterations: int
    kernel_radius: float
    beta: float

class DcfInfo(Structure):
    duplicates: int
    clipped: int
    total: float
    support: float
    iterations: int
    flatness: float

def as_traj(t: Array, what: str = ...) -> Any: ...
def convert(traj: Array, src: str, dst: str, n: Optional[ShapeLike] = ...) -> Array: ...
def check(traj: Array, n: Optional[ShapeLike] = ...) -> None: ...
def extent(traj: Array) -> Tuple[Tuple[float, float, float], float]: ...
def cartesian(shape: ShapeLike, dtype: DTypeLike = ...) -> np.ndarray[Any, Any]: ...
def radial(samples: int = ..., spokes: int = ..., oversampling: float = ..., golden: bool = ...,
        tiny: int = ..., full_circle: bool = ..., dc: bool = ..., partitions: int = ...,
        dtype: DTypeLike = ...) -> np.ndarray[Any, Any]: ...

def koosh(samples: int = ..., spokes: int = ..., oversampling: float = ..., golden: bool = ...,
        dc: bool = ..., dtype: DTypeLike = ...) -> np.ndarray[Any, Any]: ...

def spiral(fov_mm: float = ..., res_mm: float = ..., interleaves: int = ..., gmax_mT_m: float = ...,
        smax_T_m_s: float = ..., dwell_us: float = ..., vd_factor: float = ...,
        vd_start: float = ..., partitions: int = ...,
        dtype: DTypeLike = ...) -> Tuple[np.ndarray[Any, Any], Dict[str, Any]]: ...

def read(path: PathLike, dtype: DTypeLike = ...) -> Array: ...
def write(path: PathLike, traj: Array) -> None: ...
def dcf(traj: Array, method: str = ..., boundary: str = ..., radius: float = ...,
        dup_tol: float = ..., iterations: int = ..., kernel_radius: float = ..., beta: float = ...,
        info: bool = ..., ctx: Optional[Context] = ...) -> Any: ...
