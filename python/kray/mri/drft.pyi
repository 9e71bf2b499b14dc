from .._plan import Plan
from ..linop import Linop
from ctypes import Structure
from .._typing import Array, Device, DTypeLike, ShapeLike
from .._ctx import Context
from typing import Optional, Tuple

class DrftOpts(Structure):
    basis: int
    check_k: int
    check_data: int
    fast_sincos: int
    voxels_per_thread: int

def image_batch(x: Array, shape: ShapeLike, what: str) -> Tuple[int, ...]: ...
def ksp_batch(y: Array, sshape: Tuple[int, ...], what: str) -> Tuple[int, ...]: ...

class DrftPlan(Plan):
    shape: Tuple[int, ...]
    sample_shape: Tuple[int, ...]
    def __init__(self, shape: ShapeLike, traj: Array, weights: Optional[Array] = ...,
            basis: str = ..., check_k: bool = ..., check_data: bool = ..., fast_sincos: bool = ...,
            voxels_per_thread: int = ..., device: Device = ...,
            ctx: Optional[Context] = ...) -> None: ...
    @property
    def samples(self) -> int: ...
    def set_weights(self, weights: Array) -> None: ...
    def forward(self, image: Array, out: Optional[Array] = ...) -> Array: ...
    def adjoint(self, kspace: Array, out: Optional[Array] = ...) -> Array: ...
    def q(self, twice: bool = ..., dtype: DTypeLike = ...) -> Array: ...

def operator(shape: ShapeLike, traj: Array, weights: Optional[Array] = ..., dtype: DTypeLike = ...,
        batch: int = ..., basis: str = ..., check_k: bool = ..., check_data: bool = ...,
        fast_sincos: bool = ..., device: Device = ..., ctx: Optional[Context] = ...) -> Linop: ...
