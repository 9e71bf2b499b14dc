"""Arrays across the boundary: NumPy, CuPy and PyTorch in, the same kind out.

kray stores dimensions fastest-first (x, y, z, coil, ...); NumPy, CuPy and PyTorch use C order,
slowest-first. The binding reverses the shape, so the same memory is a kray array of dims
(x, y, z) and a NumPy array of shape (z, y, x): Python users see [z, y, x] / [coil, y, x]. No
data moves: contiguous inputs are passed by pointer (host or device), and outputs are allocated
by the caller's own library (numpy.empty, cupy.empty, torch.empty on the input's device).
Non-contiguous inputs are copied once to C order first.
"""
import platform
import sys
from ctypes import byref, c_int64, c_void_p
from math import prod

import numpy as np

from ._lib import KR_MAX_DIMS, DTypeError, DimensionError, KrArray, LocationError, fn, lib, parr
from ._handle import Handle

KR_F32, KR_F64, KR_C64, KR_C128, KR_U8, KR_U16, KR_I16 = 1, 2, 3, 4, 5, 6, 7
KR_HOST, KR_DEVICE = 0, 1
_NP2KR = {np.dtype(np.float32): KR_F32, np.dtype(np.float64): KR_F64,
          np.dtype(np.complex64): KR_C64, np.dtype(np.complex128): KR_C128,
          np.dtype(np.uint8): KR_U8, np.dtype(np.uint16): KR_U16, np.dtype(np.int16): KR_I16}
_KR2NP = {v: k for k, v in _NP2KR.items()}
NAMES = {KR_F32: "f32", KR_F64: "f64", KR_C64: "c64", KR_C128: "c128", KR_U8: "u8",
         KR_U16: "u16", KR_I16: "i16"}

fn("kr_array_destroy", [parr], None)


def kr_dtype(dt):
    """kray dtype code of a NumPy dtype (None when kray has no such type)."""
    return _NP2KR.get(np.dtype(dt))


def np_dtype(code):
    return _KR2NP[code]


def _torch():
    return sys.modules.get("torch")


def _cupy():
    return sys.modules.get("cupy")


class Arg:
    """One array operand: `c` is its kr_array and `r` a reference to it for ctypes, `kind`
    where it lives ("numpy", "cupy", "torch"), `device` its CUDA device (-1 on the host);
    `obj` keeps the memory alive. `c` may be shared with other operands that describe the same
    memory the same way: it is never modified (:func:`redim` swaps in another one)."""
    __slots__ = ("obj", "c", "r", "kind", "device", "shape", "dtype")

    def ref(self):
        return self.r


# ---- descriptors -------------------------------------------------------------------------------
# A kr_array descriptor is a pure function of (data pointer, kray dims, dtype, location, device)
# for contiguous memory, so the ctypes structures (and their byref) are built once per distinct
# tuple and shared: a repeated operand costs a dictionary look-up instead of a new structure.
# Nothing of the array object is kept, so a stale entry describes memory nobody passes any more
# and is harmless; the table is emptied when it grows past _DESC_MAX entries.
_DESC = {}
_DESC_MAX = 1024


def desc(ptr, dims, code, loc, device):
    """(KrArray, byref) of contiguous memory at `ptr` with kray dims `dims` (a tuple, fastest
    first), kray dtype `code`, at `loc` (KR_HOST / KR_DEVICE) on CUDA `device`; shared and
    read-only."""
    key = (ptr, dims, code, loc, device)
    d = _DESC.get(key)
    if d is None:
        n = len(dims)
        if n > KR_MAX_DIMS:
            raise DimensionError("kray: arrays have at most %d dimensions, not %d" %
                                 (KR_MAX_DIMS, n))
        c = KrArray()
        c.dtype = code
        c.ndim = n
        c.dims[:n] = dims
        st = [1] * n
        for i in range(1, n):
            st[i] = st[i - 1] * dims[i - 1]
        c.strides[:n] = st
        c.data = ptr or None
        c.loc = loc
        c.device = device
        d = (c, byref(c))
        if len(_DESC) >= _DESC_MAX:
            _DESC.clear()
        _DESC[key] = d
    return d


def _make(kind, obj, device, shape, code, ptr):
    """The Arg of contiguous memory at `ptr` of Python `shape` and kray dtype `code`."""
    a = Arg()
    a.kind = kind
    a.obj = obj
    a.device = device
    a.shape = shape
    a.dtype = code
    loc, dev = (KR_HOST, 0) if device < 0 else (KR_DEVICE, device)
    dims = shape[::-1] or (1,)
    d = _DESC.get((ptr, dims, code, loc, dev))
    a.c, a.r = d if d is not None else desc(ptr, dims, code, loc, dev)
    return a


def _ptr_offset():
    """Offset of the data pointer in a NumPy array object (PyArrayObject.data follows the
    object header), checked on a probe array; 0 where it cannot be read that way (then the
    pointer comes from __array_interface__, which builds a dictionary per call)."""
    if platform.python_implementation() != "CPython":
        return 0
    off = object.__basicsize__
    probe = np.arange(4.0)[1:]
    try:
        if c_void_p.from_address(id(probe) + off).value == probe.__array_interface__["data"][0]:
            return off
    except (ValueError, OverflowError):
        pass
    return 0


_PTR_OFF = _ptr_offset()


def np_ptr(x):
    """The data pointer of NumPy array x (0 when it has none)."""
    if _PTR_OFF:
        return c_void_p.from_address(id(x) + _PTR_OFF).value or 0
    return x.__array_interface__["data"][0] or 0


_T2KR = {}


def _torch_codes(t):
    if not _T2KR:
        for name, code in (("float32", KR_F32), ("float64", KR_F64), ("complex64", KR_C64),
                           ("complex128", KR_C128), ("uint8", KR_U8), ("uint16", KR_U16),
                           ("int16", KR_I16)):
            if hasattr(t, name):
                _T2KR[getattr(t, name)] = code
    return _T2KR


def kind_of(x):
    """'numpy', 'torch' or 'cupy' (anything with __cuda_array_interface__ counts as 'cupy'
    for placement, but outputs are then CuPy arrays)."""
    t = _torch()
    if t is not None and isinstance(x, t.Tensor):
        return "torch"
    if hasattr(x, "__cuda_array_interface__"):
        return "cupy"
    return "numpy"


def arg(x, what="array", dtypes=None, cast=None):
    """Describe `x` for kray. dtypes: allowed kray dtype codes (None = any); when x's dtype is
    not allowed and `cast` is a kray code, x is converted (a copy) to it, else DTypeError.
    C-contiguous NumPy and CuPy arrays and PyTorch tensors of an allowed dtype take a fast path
    (no copy, a cached descriptor); anything else is converted first."""
    tx = type(x)
    if tx is np.ndarray:
        if x.flags.c_contiguous:
            code = _NP2KR.get(x.dtype)
            if code is not None and (dtypes is None or code in dtypes):
                return _make("numpy", x, -1, x.shape, code, np_ptr(x))
    else:
        t = _torch()
        if t is not None and isinstance(x, t.Tensor):
            return _torch_arg(t, x, what, dtypes, cast)
        cp = _cupy()
        if cp is not None and tx is cp.ndarray and x.flags.c_contiguous:
            code = _NP2KR.get(x.dtype)
            if code is not None and (dtypes is None or code in dtypes):
                mem = x.data
                return _make("cupy", x, mem.device_id, x.shape, code, mem.ptr)
        if hasattr(x, "__cuda_array_interface__"):
            return _cai_arg(x, what, dtypes, cast)
    return _host_arg(np.asarray(x), what, dtypes, cast)


def _torch_arg(t, x, what, dtypes, cast):
    if x.requires_grad:
        x = x.detach()
    if x.is_conj() or x.is_neg():   # lazy conjugate / negative views: materialise them
        x = x.resolve_conj().resolve_neg()
    if x.is_cuda:
        dev = x.get_device()
    elif x.is_cpu:
        dev = -1
    else:
        raise LocationError("kray: %s is a PyTorch tensor on %s; kray takes CPU and CUDA "
                            "tensors" % (what, x.device))
    code = _torch_codes(t).get(x.dtype)
    if code is None or (dtypes is not None and code not in dtypes):
        if cast is None:
            raise _dtype_error(what, str(x.dtype).replace("torch.", ""), dtypes)
        x = x.to(getattr(t, np_dtype(cast).name))
        code = cast
    if not x.is_contiguous():
        x = x.contiguous()
    return _make("torch", x, dev, tuple(x.shape), code, x.data_ptr())


def _host_arg(x, what, dtypes, cast):
    """Arg of NumPy array x, converted to an allowed dtype and to C order when needed."""
    code = kr_dtype(x.dtype)
    if code is None or (dtypes is not None and code not in dtypes):
        if cast is None:
            raise _dtype_error(what, x.dtype, dtypes)
        x = x.astype(np_dtype(cast))
        code = cast
    if not x.flags.c_contiguous:
        x = np.ascontiguousarray(x)
    return _make("numpy", x, -1, x.shape, code, np_ptr(x))


def _cai_arg(x, what, dtypes, cast):
    """Arg of an object with __cuda_array_interface__ (converted through CuPy if needed)."""
    cai = x.__cuda_array_interface__
    np_dt = np.dtype(cai["typestr"])
    code = kr_dtype(np_dt)
    cp = _cupy()
    contiguous = cai.get("strides") is None or _c_contiguous(cai["shape"], cai["strides"],
                                                               np_dt.itemsize)
    bad = code is None or (dtypes is not None and code not in dtypes)
    if bad or not contiguous:
        if cp is None:
            raise _dtype_error(what, np_dt, dtypes)
        if bad:
            if cast is None:
                raise _dtype_error(what, np_dt, dtypes)
            code = cast
        x = cp.ascontiguousarray(cp.asarray(x), dtype=np_dtype(code))
        cai = x.__cuda_array_interface__
    return _make("cupy", x, _cai_device(x, cai), tuple(cai["shape"]), code, cai["data"][0])


def _c_contiguous(shape, strides, itemsize):
    s = itemsize
    for d, st in zip(reversed(shape), reversed(strides)):
        if d != 1 and st != s:
            return False
        s *= d
    return True


def _cai_device(x, cai):
    dev = getattr(x, "device", None)
    idx = getattr(dev, "id", None)
    if idx is not None:
        return int(idx)
    cp = _cupy()
    if cp is not None and cai["data"][0]:
        return int(cp.cuda.runtime.pointerGetAttributes(cai["data"][0]).device)
    return 0


def _dtype_error(what, dt, dtypes):
    if dtypes is None:
        return DTypeError("kray: %s has element type %s, which kray does not store (float32, "
                          "float64, complex64, complex128, uint8, uint16, int16)" % (what, dt))
    names = ", ".join(str(np_dtype(c)) for c in dtypes)
    return DTypeError("kray: %s has element type %s; expected %s" % (what, dt, names))


def out(like, shape, code, what="output", zero=True):
    """A new zero-filled array (uninitialised on the host with zero=False, for outputs kray
    overwrites) of `shape` (Python order) and kray dtype `code`, of the same kind and device as
    operand `like` (an Arg)."""
    dt = np_dtype(code)
    if like.kind == "numpy" or like.device < 0:
        o = np.zeros(shape, dtype=dt) if zero else np.empty(shape, dtype=dt)
        if like.kind == "torch":
            o = _torch().from_numpy(o)
    elif like.kind == "torch":
        t = _torch()
        o = t.zeros(shape, dtype=getattr(t, dt.name), device="cuda:%d" % like.device)
    else:
        cp = _cupy()
        with cp.cuda.Device(like.device):
            o = cp.zeros(shape, dtype=dt)
    return arg(o, what)


def output(given, like, shape, code):
    """The output Arg of a call: a new array of `shape` like operand `like` (see :func:`out`)
    when the caller's `given` out is None, else that array (which must have dtype `code`)."""
    return out(like, shape, code) if given is None else arg(given, "out", dtypes=(code,))


def result(out, a):
    """What a call returns: the caller's `out` when given, else the object of output Arg a."""
    return out if out is not None else a.obj


def dtype_code(dt, allowed, what="dtype"):
    """kray code of NumPy dtype `dt`, which must be one of the `allowed` codes."""
    try:
        code = kr_dtype(np.dtype(dt)) if dt is not None else None
    except TypeError:
        code = None
    if code not in allowed:
        names = [str(np_dtype(c)) for c in allowed]
        names = " or ".join(names) if len(names) < 3 else \
            ", ".join(names[:-1]) + " or " + names[-1]
        raise DTypeError("kray: %s must be %s, not %s" % (what, names, dt))
    return code


def kdims(shape):
    """kray dims array (c_int64, fastest first) of a Python shape."""
    return (c_int64 * max(len(shape), 1))(*reversed(tuple(int(s) for s in shape)))


def shape_of(getter, ptr):
    """The Python shape of the kray dims that C getter `getter(ptr, dims)` writes (it returns
    their count)."""
    d = (c_int64 * KR_MAX_DIMS)()
    n = getter(ptr, d)
    return tuple(d[n - 1 - i] for i in range(n))


def c_shape(c):
    """The Python shape of a KrArray."""
    return tuple(c.dims[c.ndim - 1 - i] for i in range(c.ndim))


def redim(a, dims, what="array"):
    """Describe Arg `a` (contiguous) with kray dims `dims` (fastest first; a tuple of ints is
    taken as it is) instead of its own; the element count must agree. No data moves."""
    if type(dims) is not tuple:
        dims = tuple(int(d) for d in dims) or (1,)
    n = prod(dims)
    if n != prod(a.shape):
        raise DimensionError("kray: %s has %d elements, expected %d" % (what, prod(a.shape), n))
    c = a.c
    a.c, a.r = desc(c.data or 0, dims, a.dtype, c.loc, c.device)
    return a


def to_host(x):
    """x (NumPy, PyTorch or CuPy) as a NumPy array on the host (a copy for device arrays)."""
    k = kind_of(x)
    if k == "torch":
        return x.detach().cpu().numpy()
    if k == "cupy":
        return x.get() if hasattr(x, "get") else np.asarray(x)
    return x


def matrix_arg(m, what, dtypes, cast=None):
    """Arg of a host (n, n) matrix m[r, c] (any kind) in kray's column-major layout (element
    (r, c) at r + n c), i.e. m transposed into C order."""
    m = np.asarray(to_host(m))
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise DimensionError("kray: %s must be a square (n, n) matrix, not %s" % (what, m.shape))
    return arg(np.ascontiguousarray(m.T), what, dtypes=dtypes, cast=cast)


class _Owned(Handle):
    """Host memory allocated by kray, handed to NumPy without a copy; freed with the array."""
    _destroy = lib.kr_array_destroy

    def __init__(self, ptr):
        self._ptr = ptr
        c = ptr.contents
        shape = c_shape(c)
        dt = np_dtype(c.dtype)
        self.__array_interface__ = {"shape": shape, "typestr": dt.str,
                                    "data": (c.data or 0, False), "version": 3}


def adopt(ptr, squeeze_to=None):
    """NumPy view of a kray-allocated host kr_array (POINTER(KrArray)); kray's memory is freed
    when the last view goes away."""
    if not ptr:
        return None
    if ptr.contents.loc != KR_HOST:
        lib.kr_array_destroy(ptr)
        raise LocationError("kray: internal: a device array was returned where a host array "
                            "was expected")
    return np.asarray(_Owned(ptr))


def to_kind(x, like):
    """Convert NumPy array `x` to the kind of operand `like` (same device)."""
    if like.kind == "numpy":
        return x
    if like.kind == "torch":
        t = _torch()
        o = t.from_numpy(np.ascontiguousarray(x))
        return o if like.device < 0 else o.to("cuda:%d" % like.device)
    cp = _cupy()
    with cp.cuda.Device(like.device):
        return cp.asarray(x)


def copy_of(x):
    """A copy of array x of any kind."""
    return x.clone() if kind_of(x) == "torch" else x.copy()


def device_of(a):
    """The device argument of a plan that runs where Arg a lives (None: the host)."""
    return None if a.device < 0 else a.device
