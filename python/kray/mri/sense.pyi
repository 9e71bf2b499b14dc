from .._plan import Plan
from ..linop import Linop
from ctypes import Structure
from .._typing import Array, Device
from .._ctx import Context
from typing import Any, Dict, Optional, Tuple
import numpy as np

IMAGING: Any
CALIBRATION: Any
pu8: Any

class SenseOpts(Structure):
    accel: int
    offset: int
    lines: Any
    lambda_: float
    psi: Any

class SenseInfo(Structure):
    method: int
    accel: int
    fold: int
    systems: int
    lines: int
    singular: int

class EspiritOpts(Structure):
    kernel: int
    calib: int
    threshold: float
    crop: float
    rotate_phase: int

def lines(ny: int, accel: int = ..., offset: int = ...,
        nacs: int = ...) -> np.ndarray[Any, Any]: ...

def count(flags: Array, which: int = ...) -> int: ...
def undersample(kspace: Array, flags: Array, inplace: bool = ...,
        ctx: Optional[Context] = ...) -> Array: ...

class SensePlan(Plan):
    shape: Tuple[int, ...]
    ncoils: Any
    def __init__(self, maps: Array, accel: int = ..., offset: int = ...,
            lines: Optional[Array] = ..., lam: float = ..., psi: Optional[Array] = ...,
            device: Device = ..., ctx: Optional[Context] = ...) -> None: ...
    @property
    def info(self) -> Dict[str, Any]: ...
    def __call__(self, kspace: Array, gfactor: bool = ...) -> Array: ...
    def execute(self, kspace: Array, gfactor: bool = ...) -> Array: ...
    def unfold(self, aliased: Array, gfactor: bool = ...) -> Array: ...
    def gfactor(self) -> Array: ...

def operator(maps: Array, lines: Optional[Array] = ..., device: Device = ...,
        ctx: Optional[Context] = ...) -> Linop: ...

def espirit(kspace: Array, kernel: int = ..., calib: int = ..., threshold: float = ...,
        crop: float = ..., rotate_phase: bool = ..., eigenvalues: bool = ...,
        ctx: Optional[Context] = ...) -> Any: ...
