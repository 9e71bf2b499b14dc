import ctypes
from ctypes import Structure
from .._typing import Array, PathLike
from typing import Any, Optional
import numpy as np

class ReadOpts(Structure):
    dataset: Optional[bytes]
    repetition: int
    slice: int
    remove_oversampling: int

class Data(Structure):
    kspace: Any
    calib: Any
    lines: Any
    noise: Any
    psi: Any
    nx: int
    ny: int
    nc: int
    enc_matrix: ctypes.Array[Any]
    recon_matrix: ctypes.Array[Any]
    enc_fov_mm: ctypes.Array[Any]
    recon_fov_mm: ctypes.Array[Any]
    e1_min: int
    e1_max: int
    e1_center: int
    accel: int
    repetitions: int
    acquisitions: int
    dwell_us: float
    calibration_mode: bytes

class WriteOpts(Structure):
    dataset: Optional[bytes]
    fov_mm: ctypes.Array[Any]
    accel: int
    dwell_us: float
    h1_hz: float

def available() -> bool: ...
def read(path: PathLike, dataset: Optional[str] = ..., repetition: int = ..., slice: int = ...,
        remove_oversampling: bool = ...) -> Array: ...

def write(path: PathLike, kspace: Array, lines: Optional[Array] = ..., noise: Optional[Array] = ...,
        dataset: Optional[str] = ..., fov_mm: Any = ..., accel: int = ..., dwell_us: float = ...,
        h1_hz: float = ...) -> None: ...

def read_image(path: PathLike, var: str, index: int = ...,
        dataset: Optional[str] = ...) -> np.ndarray[Any, Any]: ...

def read_array(path: PathLike, var: str, index: int = ...,
        dataset: Optional[str] = ...) -> np.ndarray[Any, Any]: ...
