import ctypes
from ctypes import Structure
from ._typing import Array, DTypeLike, PathLike
from typing import Any, Optional

class Meta(Structure):
    spacing: ctypes.Array[Any]
    origin: ctypes.Array[Any]
    description: bytes

class IoOpts(Structure):
    raw_dtype: int
    raw_ndim: int
    raw_dims: ctypes.Array[Any]
    raw_big_endian: int
    raw_offset: int
    bits: int
    window_set: int
    window_lo: float
    window_hi: float
    slice: int
    complex_part: int
    nrrd_gzip: int
    write_dtype: int
    meta: Any

def read(path: PathLike, meta: bool = ..., raw_dtype: Optional[Any] = ...,
        raw_shape: Optional[Any] = ..., raw_big_endian: bool = ...,
        raw_offset: int = ...) -> Array: ...

def write(path: PathLike, a: Array, dtype: DTypeLike = ..., bits: int = ...,
        window: Optional[Any] = ..., slice: int = ..., part: str = ..., gzip: bool = ...,
        spacing: Optional[Any] = ..., origin: Optional[Any] = ...,
        description: Optional[Any] = ...) -> None: ...
