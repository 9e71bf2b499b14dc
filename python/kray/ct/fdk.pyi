from .._plan import Plan
from ctypes import Structure
from .._typing import Array, Device, GeometryLike, ShapeLike
from typing import Any, Dict, Optional, Tuple

class FdkOpts(Structure):
    filter: int
    window: int
    cutoff: float
    short_scan: int
    dtype: int
    gpu_mem: int
    batch_views: int
    slab_z: int

class FdkInfo(Structure):
    short_scan: int
    arc_deg: float
    fan_deg: float
    fov_warning: int
    fast_path: int
    slabs: int
    slab_z: int
    batch_views: int
    device_bytes: int
    kernel: Optional[bytes]
    t_filter_s: float
    t_backproject_s: float

def fdk_opts(filter: str = ..., window: str = ..., cutoff: float = ..., short_scan: str = ...,
        gpu_mem: int = ..., batch_views: int = ..., slab_z: int = ...) -> FdkOpts: ...

class FdkPlan(Plan):
    sino_shape: Tuple[int, ...]
    image_shape: Tuple[int, ...]
    def __init__(self, geom: Optional[GeometryLike] = ..., filter: str = ..., window: str = ...,
            cutoff: float = ..., short_scan: str = ..., device: Device = ..., gpu_mem: int = ...,
            batch_views: int = ..., slab_z: int = ...,
            _from_views: Optional[Any] = ...) -> None: ...
    @classmethod
    def from_views(cls, det_shape: ShapeLike, src: Array, det: Array, u: Array, v: Array,
            volume_shape: ShapeLike, voxel_mm: float = ..., offset_mm: Any = ...,
            **opts: Any) -> FdkPlan: ...
    def execute(self, proj: Array, out: Optional[Array] = ...) -> Array: ...
    def __call__(self, proj: Array, out: Optional[Array] = ...) -> Array: ...
    def backproject(self, proj: Array, out: Optional[Array] = ...) -> Array: ...
    @property
    def info(self) -> Dict[str, Any]: ...

def fdk(proj: Array, geom: GeometryLike, filter: str = ..., window: str = ..., cutoff: float = ...,
        short_scan: str = ..., device: Device = ..., gpu_mem: int = ..., batch_views: int = ...,
        slab_z: int = ..., out: Optional[Array] = ...) -> Array: ...

def fdk_views(proj: Array, src: Array, det: Array, u: Array, v: Array, volume_shape: ShapeLike,
        voxel_mm: float = ..., offset_mm: Any = ..., filter: str = ..., window: str = ...,
        cutoff: float = ..., short_scan: str = ..., device: Device = ..., gpu_mem: int = ...,
        batch_views: int = ..., slab_z: int = ..., out: Optional[Array] = ...) -> Array: ...
