import ctypes
from ctypes import Structure, c_void_p
from typing import Any, Optional

def struct(cname): ...
def fields(s): ...

class KrArray(Structure):
    dtype: int
    ndim: int
    dims: ctypes.Array[Any]
    strides: ctypes.Array[Any]
    data: Any
    loc: int
    device: int
    owns: int

lib: Any

class KrayError(Exception):
    status: str

class InvalidArgumentError(KrayError, ValueError):
    status: str

class DimensionError(KrayError, ValueError):
    status: str

class DTypeError(KrayError, TypeError):
    status: str

class LocationError(KrayError, ValueError):
    status: str

class GeometryError(KrayError, ValueError):
    status: str

class KrayIOError(KrayError, OSError):
    status: str

class FormatError(KrayError, ValueError):
    status: str

class HostMemoryError(KrayError, MemoryError):
    status: str

class DeviceMemoryError(KrayError, MemoryError):
    status: str

class CudaError(KrayError, RuntimeError):
    status: str

class FFTError(KrayError, RuntimeError):
    status: str

class NoDeviceError(KrayError, RuntimeError):
    status: str

class NotSupportedError(KrayError, NotImplementedError):
    status: str

class NotConvergedError(KrayError, ArithmeticError):
    status: str

class InternalError(KrayError, RuntimeError):
    status: str

def check(status, _func: Optional[Any] = ..., _args: Optional[Any] = ...): ...
def fn(name, argtypes, restype: str = ...): ...
vp = c_void_p
pvp: Any
parr: Any
pparr: Any
pi64: Any
pdbl: Any
