import ctypes
from ctypes import Structure
from .._typing import Array, Device, DTypeLike, ShapeLike
from .._ctx import Context
from typing import Any, List, Optional, Sequence, Tuple, Union
import numpy as np

GRIDS: Any
NORMS: Any
MU0: Any

class Coil(Structure):
    centre_mm: ctypes.Array[Any]
    normal: ctypes.Array[Any]
    radius_mm: float
    ring: int
    angle_deg: float
    def __init__(self, centre_mm: Any = ..., normal: Any = ..., radius_mm: float = ...,
            ring: int = ..., angle_deg: float = ...) -> None: ...

class MapOpts(Structure):
    nx: int
    ny: int
    nz: int
    voxel_mm: ctypes.Array[Any]
    grid: int
    z_mm: float
    wire_mm: float
    tol: float
    norm: int

def elliptic_ke(m: float, tol: float = ...) -> Tuple[float, float]: ...
def layout_mrxcat(ncoils: Union[Coil, Sequence[Coil]], coils_per_ring: int = ...,
        rbody_mm: float = ...) -> Tuple[List[Coil], List[int]]: ...

def field(coil: Coil, p_mm: Array, wire_mm: float = ...) -> np.ndarray[Any, Any]: ...
def maps(coils: Union[Coil, Sequence[Coil]], shape: ShapeLike = ..., voxel_mm: Any = ...,
        grid: str = ..., z_mm: float = ..., wire_mm: float = ..., tol: float = ..., norm: str = ...,
        dtype: DTypeLike = ..., device: Device = ..., ctx: Optional[Context] = ...) -> Array: ...

def sens_points(coils: Union[Coil, Sequence[Coil]], xyz_mm: Array, z_mm: float = ...,
        wire_mm: float = ..., tol: float = ..., norm: str = ...,
        ctx: Optional[Context] = ...) -> np.ndarray[Any, Any]: ...

def kspace(image: Array, maps: Array, ctx: Optional[Context] = ...) -> Array: ...
def images(kspace: Array, ctx: Optional[Context] = ...) -> Array: ...
def rss(images: Array, ctx: Optional[Context] = ...) -> Array: ...
def combine(images: Array, maps: Array, psi: Optional[Array] = ...,
        ctx: Optional[Context] = ...) -> Array: ...

def apply(data: Array, m: Array, axis: int = ..., ctx: Optional[Context] = ...) -> Array: ...
