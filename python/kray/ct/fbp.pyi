from .._plan import Plan
from ctypes import Structure
from .._typing import Array, Device, DTypeLike, GeometryLike
from typing import Any, Dict, Optional, Tuple
import numpy as np

FILTERS: Any
WINDOWS: Any

class FilterOpts(Structure):
    method: int
    window: int
    cutoff: float
    tau_mm: float
    scale: float
    seed_raw: int
    equiangular_rad: float
    dtype: int
    pad_len: int
    pre_weight: Any
    pre_rows: int
    pre_row_div: int
    row_scale: Any
    row_scale_count: int
    row_scale_div: int
    fuse: int

class FbpOpts(Structure):
    filter: int
    window: int
    cutoff: float
    seed_raw: int
    clamp_negative: int
    short_scan: int
    dtype: int

class FbpInfo(Structure):
    short_scan: int
    arc_deg: float
    fan_deg: float
    pad_len: int
    view_groups: int
    kernel: Optional[bytes]

def filter_code(name: str) -> int: ...
def window_code(name: str) -> int: ...
def filter_name(code: int) -> str: ...
def window_name(code: int) -> str: ...

class FilterPlan(Plan):
    dtype: np.dtype[Any]
    def __init__(self, ndet: int, nrows: int = ..., method: str = ..., window: str = ...,
            cutoff: float = ..., tau_mm: float = ..., scale: float = ..., seed_raw: bool = ...,
            equiangular_rad: float = ..., dtype: DTypeLike = ..., pad_len: int = ...,
            pre_weight: Optional[Array] = ..., pre_row_div: int = ...,
            row_scale: Optional[Array] = ..., row_scale_div: int = ..., fuse: int = ...,
            device: Device = ...) -> None: ...
    def execute(self, x: Array, out: Optional[Array] = ...) -> Array: ...
    def __call__(self, x: Array, out: Optional[Array] = ...) -> Array: ...
    @property
    def pad_len(self) -> int: ...
    def kernel(self, count: Optional[int] = ...) -> Array: ...
    def response(self) -> Array: ...

def fbp_opts(filter: str = ..., window: str = ..., cutoff: float = ..., seed_raw: bool = ...,
        clamp: bool = ..., short_scan: str = ..., dtype: DTypeLike = ...) -> FbpOpts: ...

class FbpPlan(Plan):
    dtype: np.dtype[Any]
    image_shape: Tuple[int, ...]
    sino_shape: Tuple[int, ...]
    def __init__(self, geom: GeometryLike, filter: str = ..., window: str = ...,
            cutoff: float = ..., seed_raw: bool = ..., clamp: bool = ..., short_scan: str = ...,
            dtype: DTypeLike = ..., device: Device = ...) -> None: ...
    def execute(self, sino: Array, out: Optional[Array] = ...) -> Array: ...
    def __call__(self, sino: Array, out: Optional[Array] = ...) -> Array: ...
    def filter(self, sino: Array) -> None: ...
    def backproject(self, like: Optional[Array] = ..., out: Optional[Array] = ...) -> Array: ...
    @property
    def info(self) -> Dict[str, Any]: ...
    def close(self) -> None: ...

def fbp(sino: Array, geom: GeometryLike, filter: str = ..., window: str = ..., cutoff: float = ...,
        seed_raw: bool = ..., clamp: bool = ..., short_scan: str = ...,
        out: Optional[Array] = ...) -> Array: ...
