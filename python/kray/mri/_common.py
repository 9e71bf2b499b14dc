"""Shared code of the MRI modules: kray dims on a described array, plan objects, options."""
from ctypes import c_int64

from math import prod

import numpy as np

from .._lib import KR_MAX_DIMS, DimensionError, InvalidArgumentError, LocationError
from .. import _array as A
from .._ctx import cpu_context, cuda_context

F32, F64, C64, C128 = A.KR_F32, A.KR_F64, A.KR_C64, A.KR_C128
REAL = (F32, F64)
CPLX = (C64, C128)


def redim(a, kdims, what="array"):
    """Describe Arg `a` (contiguous) with kray dims `kdims` (fastest first) instead of its own;
    the element count must agree. No data moves."""
    kdims = [int(d) for d in kdims] or [1]
    n = prod(kdims)
    have = prod(a.shape) if len(a.shape) else 1
    if n != have:
        raise DimensionError("kray: %s has %d elements, expected %d" % (what, have, n))
    if len(kdims) > KR_MAX_DIMS:
        raise DimensionError("kray: %s has too many dimensions" % what)
    c = a.c
    c.ndim = len(kdims)
    s = 1
    for i, d in enumerate(kdims):
        c.dims[i] = d
        c.strides[i] = s
        s *= d
    return a


def device_kind():
    """The array kind for device outputs made without a device input: CuPy when it is
    imported (or importable), else PyTorch."""
    import sys
    if "cupy" in sys.modules:
        return "cupy"
    if "torch" in sys.modules:
        return "torch"
    try:
        import cupy  # noqa: F401
        return "cupy"
    except ImportError:
        return "torch"


def like(kind, device):
    """An Arg-like placeholder for A.out: arrays of `kind` on `device` (-1 = host)."""
    a = A.Arg()
    a.kind = kind
    a.device = device
    return a


def dtype_code(dt, allowed, what):
    """kray code of NumPy dtype `dt`, which must be one of `allowed` codes."""
    try:
        code = A.kr_dtype(np.dtype(dt))
    except TypeError:
        code = None
    if code not in allowed:
        names = ", ".join(str(A.np_dtype(c)) for c in allowed)
        raise A.DTypeError("kray: %s must be one of %s, not %r" % (what, names, dt))
    return code


def real_of(code):
    return {C64: F32, C128: F64}.get(code, code)


def cplx_of(code):
    return {F32: C64, F64: C128}.get(code, code)


def choice(value, table, what):
    """Index of `value` (a string) in `table` (a dict name -> int)."""
    if isinstance(value, int) and not isinstance(value, bool) and value in table.values():
        return value
    if value not in table:
        raise InvalidArgumentError("kray: %s must be one of %s, not %r" %
                                   (what, ", ".join(table), value))
    return table[value]


def place(device=None, ctx=None, args=()):
    """(ctx, kind, device) for a plan: an explicit ctx, else `device` (int: CUDA device), else
    where the array operands `args` (Args or None) live."""
    if ctx is not None:
        dev = ctx.device if ctx.is_cuda else -1
        kind = next((a.kind for a in args if a is not None and a.device >= 0), None)
        return ctx, (kind or device_kind() if dev >= 0 else "numpy"), dev
    if device is not None and device >= 0:
        kind = next((a.kind for a in args if a is not None and a.device >= 0), None) or \
            device_kind()
        c = cuda_context(device)
        c.set_stream(A.current_stream(kind, device))
        return c, kind, device
    dev = [a for a in args if a is not None and a.device >= 0]
    if dev:
        c = A.context(*dev)
        return c, dev[0].kind, dev[0].device
    return cpu_context(), "numpy", -1


def pyshape(shape, what="shape"):
    """A Python-order image shape (tuple of positive ints)."""
    if np.isscalar(shape):
        shape = (shape, shape)
    try:
        shape = tuple(int(s) for s in shape)
    except (TypeError, ValueError):
        raise InvalidArgumentError("kray: %s must be a tuple of sizes, not %r" % (what, shape))
    if not shape or any(s < 1 for s in shape):
        raise InvalidArgumentError("kray: %s must be positive sizes, not %r" % (what, shape))
    return shape


def n3(shape):
    """kray n[3] (nx, ny, nz) of a Python image shape (ny, nx) or (nz, ny, nx)."""
    shape = pyshape(shape, "the image shape")
    if len(shape) not in (2, 3):
        raise DimensionError("kray: the image shape must be (ny, nx) or (nz, ny, nx), not %r" %
                             (shape,))
    k = list(reversed(shape)) + [1] * (3 - len(shape))
    return (c_int64 * 3)(*k)


def dims_arr(shape):
    """kray dims array (fastest first) of a Python shape."""
    return (c_int64 * len(shape))(*reversed(shape))


class Plan:
    """Base of kray's plan objects: owns a C pointer freed by `_destroy`; keeps the context and
    the objects the plan borrows. Use ``with`` or :meth:`close`."""
    _destroy = None

    def _init(self, ptr, ctx, kind, device, keep=()):
        self._ptr = ptr
        self.ctx = ctx
        self._kind = kind
        self.device = device
        self._keep = list(keep)

    @property
    def ptr(self):
        p = getattr(self, "_ptr", None)
        if not p:
            raise InvalidArgumentError("kray: the %s is closed" % type(self).__name__)
        return p

    def close(self):
        p = getattr(self, "_ptr", None)
        if p:
            type(self)._destroy(p)
            self._ptr = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def on_device(self):
        return self.device >= 0

    def _args(self, *args):
        """Check that operand Args live where the plan does; set the caller's stream."""
        for a in args:
            if a is None:
                continue
            if a.device != self.device:
                raise LocationError("kray: the %s lives in %s, an operand in %s" %
                                    (type(self).__name__, _where(self.device),
                                     _where(a.device)))
        if self.device >= 0:
            k = next((a.kind for a in args if a is not None), self._kind)
            self.ctx.set_stream(A.current_stream(k, self.device))

    def _like(self, args=()):
        for a in args:
            if a is not None:
                return a
        return like(self._kind, self.device)


def _where(dev):
    return "host memory" if dev < 0 else "CUDA device %d" % dev


def host_f64(x, what, cols=None):
    """A C-contiguous float64 host copy of x (NumPy/torch/CuPy), optionally (n, cols)."""
    k = A.kind_of(x)
    if k == "torch":
        x = x.detach().cpu().numpy()
    elif k == "cupy":
        x = x.get() if hasattr(x, "get") else np.asarray(x)
    x = np.ascontiguousarray(np.asarray(x, dtype=np.float64))
    if cols is not None:
        if x.ndim == 1 and x.size == cols:
            x = x.reshape(1, cols)
        if x.ndim != 2 or x.shape[1] != cols:
            raise DimensionError("kray: %s must have shape (n, %d), not %s" %
                                 (what, cols, x.shape))
        if x.shape[0] < 1:
            raise InvalidArgumentError("kray: %s is empty" % what)
    return x


def lines_u8(lines, ny=None, what="lines"):
    """A C-contiguous uint8 host array of line flags (length ny when given), or None."""
    if lines is None:
        return None
    k = A.kind_of(lines)
    if k == "torch":
        lines = lines.detach().cpu().numpy()
    elif k == "cupy":
        lines = lines.get()
    x = np.ascontiguousarray(np.asarray(lines)).reshape(-1)
    if x.dtype == np.bool_:
        x = x.astype(np.uint8)
    elif x.dtype != np.uint8:
        x = (x != 0).astype(np.uint8)
    if ny is not None and x.size != ny:
        raise DimensionError("kray: %s has %d flags, the k-space %d lines" % (what, x.size, ny))
    return x


def host_out(ptr, like_arg):
    """A kray-allocated host array (POINTER(KrArray)) as the kind of `like_arg`."""
    a = A.adopt(ptr)
    if like_arg is None or like_arg.kind == "numpy":
        return a
    return A.to_kind(a, like_arg)


def matrix_arg(m, what, dtypes):
    """Arg of a host (n, n) matrix m[r, c] in kray's column-major layout (element (r, c) at
    r + n c), i.e. m transposed into C order."""
    k = A.kind_of(m)
    if k == "torch":
        m = m.detach().cpu().numpy()
    elif k == "cupy":
        m = m.get()
    m = np.asarray(m)
    if m.ndim != 2 or m.shape[0] != m.shape[1]:
        raise DimensionError("kray: %s must be a square (n, n) matrix, not %s" % (what, m.shape))
    return A.arg(np.ascontiguousarray(m.T), what, dtypes=dtypes)
