"""Loading libkray and calling it: the shared library, its status codes and the exceptions.

The binding uses ctypes: kray's public API is plain C (opaque plans, arrays described by one
struct), so no compiled extension is needed, the same package works for every Python version,
and ctypes releases the GIL for the duration of every call into libkray.
"""
import ctypes
import os
import sys
from ctypes import (POINTER, Structure, c_char_p, c_double, c_int, c_int64, c_size_t,
                    c_uint64, c_void_p)

KR_MAX_DIMS = 16


STRUCTS = {}


def struct(cname):
    """Class decorator: register a ctypes Structure as the mirror of C struct `cname`, so the
    test suite can compare every field's offset and the size with the C compiler's. Python
    field names are the C names (a trailing underscore is dropped: ``lambda_`` is ``lambda``)."""
    def reg(cls):
        STRUCTS[cname] = cls
        return cls
    return reg


def fields(s):
    """The fields of ctypes Structure s as a dict (C names; nested structures as they are)."""
    return {f[0]: getattr(s, f[0]) for f in type(s)._fields_}


@struct("kr_array")
class KrArray(Structure):
    """kr_array: dims fastest-first, strides in elements."""
    _fields_ = [("dtype", c_int), ("ndim", c_int), ("dims", c_int64 * KR_MAX_DIMS),
                ("strides", c_int64 * KR_MAX_DIMS), ("data", c_void_p), ("loc", c_int),
                ("device", c_int), ("owns", c_int)]


def _candidates():
    env = os.environ.get("KRAY_LIBRARY")
    if env:
        yield env
        return
    here = os.path.dirname(os.path.abspath(__file__))
    names = {"darwin": ["libkray.dylib"], "win32": ["kray.dll"]}.get(sys.platform, ["libkray.so"])
    for n in names:
        yield os.path.join(here, n)
    # A source checkout: python/kray next to the CMake build folders.
    root = os.path.dirname(os.path.dirname(here))
    for b in ("build", "build-test"):
        for n in names:
            yield os.path.join(root, b, n)


def _load():
    tried = []
    for path in _candidates():
        if os.path.exists(path):
            return ctypes.CDLL(path), path
        tried.append(path)
    raise ImportError("kray: libkray was not found (looked at " + ", ".join(tried) +
                      "); install the package with `pip install ./python` or set KRAY_LIBRARY "
                      "to the path of libkray.so")


lib, library_path = _load()

# ---- status and exceptions ---------------------------------------------------------------------


class KrayError(Exception):
    """Base class of kray's errors; `status` is the kr_status name, str() kray's sentence."""
    status = "KR_ERR"


class InvalidArgumentError(KrayError, ValueError):
    status = "KR_ERR_INVALID_ARG"


class DimensionError(KrayError, ValueError):
    status = "KR_ERR_DIM"


class DTypeError(KrayError, TypeError):
    status = "KR_ERR_DTYPE"


class LocationError(KrayError, ValueError):
    status = "KR_ERR_LOCATION"


class GeometryError(KrayError, ValueError):
    status = "KR_ERR_GEOMETRY"


class KrayIOError(KrayError, OSError):
    status = "KR_ERR_IO"


class FormatError(KrayError, ValueError):
    status = "KR_ERR_FORMAT"


class HostMemoryError(KrayError, MemoryError):
    status = "KR_ERR_OOM_HOST"


class DeviceMemoryError(KrayError, MemoryError):
    status = "KR_ERR_OOM_DEVICE"


class CudaError(KrayError, RuntimeError):
    status = "KR_ERR_CUDA"


class FFTError(KrayError, RuntimeError):
    status = "KR_ERR_FFT"


class NoDeviceError(KrayError, RuntimeError):
    status = "KR_ERR_NO_DEVICE"


class NotSupportedError(KrayError, NotImplementedError):
    status = "KR_ERR_NOT_SUPPORTED"


class NotConvergedError(KrayError, ArithmeticError):
    status = "KR_ERR_NOT_CONVERGED"


class InternalError(KrayError, RuntimeError):
    status = "KR_ERR_INTERNAL"


# Index = kr_status value (include/kray/core.h order); test_errors.py checks it against
# kr_status_string for every code.
ERRORS = [None, InvalidArgumentError, DimensionError, DTypeError, LocationError, GeometryError,
          KrayIOError, FormatError, HostMemoryError, DeviceMemoryError, CudaError, FFTError,
          NoDeviceError, NotSupportedError, NotConvergedError, InternalError]

lib.kr_last_error.restype = c_char_p
lib.kr_last_error.argtypes = []
lib.kr_status_string.restype = c_char_p
lib.kr_status_string.argtypes = [c_int]
lib.kr_clear_error.restype = None
lib.kr_clear_error.argtypes = []


def error_for(status):
    """The exception for a non-zero kr_status (the sentence is kray's last error)."""
    msg = lib.kr_last_error()
    msg = msg.decode("utf-8", "replace") if msg else ""
    if not msg:
        s = lib.kr_status_string(status)
        msg = s.decode() if s else "kray status %d" % status
    cls = ERRORS[status] if 0 < status < len(ERRORS) else KrayError
    return cls(msg)


def check(status, _func=None, _args=None):
    """ctypes errcheck: raise the exception of a non-zero kr_status."""
    if status != 0:
        raise error_for(status)
    return status


def fn(name, argtypes, restype="status"):
    """Declare libkray function `name`. By default it returns a kr_status, which raises the
    matching exception when non-zero; any other restype is returned as is."""
    f = getattr(lib, name)
    f.argtypes = argtypes
    if restype == "status":
        f.restype = c_int
        f.errcheck = check
    else:
        f.restype = restype
    return f


vp = c_void_p
pvp = POINTER(c_void_p)
parr = POINTER(KrArray)
pparr = POINTER(POINTER(KrArray))
pi64 = POINTER(c_int64)
pdbl = POINTER(c_double)
__all__ = ["lib", "fn", "check", "KrArray", "KrayError", "vp", "pvp", "parr", "pparr", "pi64",
           "pdbl", "c_int", "c_int64", "c_double", "c_char_p", "c_size_t", "c_uint64",
           "POINTER", "Structure", "struct", "fields"]

fn("kr_version", [], c_char_p)
fn("kr_build_features", [], c_char_p)
