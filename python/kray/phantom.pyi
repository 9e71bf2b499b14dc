from ctypes import Structure
from ._typing import Array, DTypeLike, ShapeLike
from typing import Any, Optional
import numpy as np

pparr: Any
pd: Any

class Ellipse(Structure):
    rho: float
    a: float
    b: float
    x0: float
    y0: float
    phi_deg: float

class Ellipsoid(Structure):
    rho: float
    a: float
    b: float
    c: float
    x0: float
    y0: float
    z0: float
    phi_deg: float

pell: Any
pellz: Any
KINDS: Any
GRIDS: Any
MAX_SUPERSAMPLE: int

def ellipses(kind: str = ...) -> np.ndarray[Any, Any]: ...
def ellipsoids(kind: str = ...) -> np.ndarray[Any, Any]: ...
def shepp_logan(shape: int = ..., kind: str = ..., supersample: int = ..., dtype: DTypeLike = ...,
        grid: str = ..., ellipses: Optional[Any] = ...) -> np.ndarray[Any, Any]: ...

def evaluate(points: Array, ellipses: str = ...) -> np.ndarray[Any, Any]: ...
def sinogram(theta_rad: Array, s: Array, kind: str = ...,
        ellipses: Optional[Any] = ...) -> np.ndarray[Any, Any]: ...

def line_integrals(src: Array, dst: Array, kind: str = ..., scale: float = ...,
        ellipsoids: Optional[Any] = ...) -> np.ndarray[Any, Any]: ...

def kspace(k: Array, n: ShapeLike, kind: str = ..., ellipses: Optional[Any] = ...,
        coils: int = ...) -> np.ndarray[Any, Any]: ...

def cartesian_k(n: ShapeLike) -> np.ndarray[Any, Any]: ...
def coil_maps(n: ShapeLike, ncoils: int = ...) -> np.ndarray[Any, Any]: ...
def mr(shape: int = ..., supersample: int = ..., b0_tesla: float = ...,
        grid: str = ...) -> np.ndarray[Any, Any]: ...
