import ctypes
from ctypes import Structure
from ._typing import Array, DTypeLike, PathLike
from typing import Any, Optional, Sequence, Tuple

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
    axes: int

def read(path: PathLike, meta: bool = ..., raw_dtype: Optional[DTypeLike] = ...,
         raw_shape: Optional[Sequence[int]] = ..., raw_big_endian: bool = ...,
         raw_offset: int = ..., axes: str = ...) -> Any: ...

def write(path: PathLike, a: Array, dtype: Optional[DTypeLike] = ..., bits: int = ...,
          window: Optional[Tuple[float, float]] = ..., slice: int = ..., part: str = ...,
          gzip: bool = ..., spacing: Optional[Sequence[float]] = ...,
          origin: Optional[Sequence[float]] = ..., description: Optional[str] = ...,
          axes: str = ...) -> None: ...
