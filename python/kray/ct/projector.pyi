from .._plan import Plan
from ..linop import Linop
from ctypes import Structure
from .._typing import Array, Device, DTypeLike, GeometryLike
from ..linop import SolveResult
from .geometry import Geometry
from typing import Any, Optional, Tuple
import numpy as np

METHODS: Any

class ProjectorOpts(Structure):
    method: int
    dtype: int
    ray_factor: int

class SirtOpts(Structure):
    max_iter: int
    tol: float
    relax: float
    nonneg: int
    warm_start: int
    history: Any
    show_progress: int

def method_code(name: str) -> int: ...
def method_name(code: int) -> str: ...
def projector_opts(method: str = ..., dtype: DTypeLike = ...,
        ray_factor: int = ...) -> ProjectorOpts: ...

class Projector(Plan):
    dtype: np.dtype[Any]
    method: Any
    image_shape: Tuple[int, ...]
    sino_shape: Tuple[int, ...]
    def __init__(self, geom: GeometryLike, method: str = ..., dtype: DTypeLike = ...,
            ray_factor: int = ..., device: Device = ...) -> None: ...
    @property
    def geometry(self) -> Geometry: ...
    def forward(self, image: Array, out: Optional[Array] = ...) -> Array: ...
    def __call__(self, image: Array, out: Optional[Array] = ...) -> Array: ...
    def adjoint(self, sino: Array, out: Optional[Array] = ...) -> Array: ...
    def backproject(self, sino: Array, out: Optional[Array] = ...) -> Array: ...

def operator(geom: GeometryLike, method: str = ..., dtype: DTypeLike = ..., ray_factor: int = ...,
        device: Device = ...) -> Linop: ...

def voxel_bp_operator(geom: GeometryLike, device: Device = ..., gpu_mem: int = ...) -> Linop: ...
def phantom_projections(geom: GeometryLike, kind: str = ..., ray_factor: int = ...,
        dtype: DTypeLike = ...) -> np.ndarray[Any, Any]: ...

class Sirt(Plan):
    op: Any
    bp: Any
    def __init__(self, A_op: Linop, backprojector: Optional[Linop] = ...) -> None: ...
    def run(self, y: Array, x0: Optional[Array] = ..., max_iter: int = ..., tol: float = ...,
            relax: float = ..., nonneg: bool = ..., progress: bool = ...) -> SolveResult: ...

def sirt(y: Array, geom: GeometryLike, max_iter: int = ..., tol: float = ..., relax: float = ...,
        nonneg: bool = ..., x0: Optional[Array] = ..., method: str = ..., ray_factor: int = ...,
        backprojector: str = ..., gpu_mem: int = ..., progress: bool = ...) -> SolveResult: ...

def cgls(y: Array, geom: GeometryLike, max_iter: int = ..., tol: float = ..., lam: float = ...,
        x0: Optional[Array] = ..., method: str = ..., ray_factor: int = ...,
        progress: bool = ...) -> SolveResult: ...
