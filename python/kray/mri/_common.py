"""Shared code of the MRI modules: dtypes, image shapes, host tables and line flags.
Placement and plans are kray._plan's, array descriptions kray._array's."""
from ctypes import c_int64

import numpy as np

from .._lib import DimensionError, InvalidArgumentError
from .. import _array as A

F32, F64, C64, C128 = A.KR_F32, A.KR_F64, A.KR_C64, A.KR_C128
REAL = (F32, F64)
CPLX = (C64, C128)


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


def host_f64(x, what, cols=None):
    """A C-contiguous float64 host copy of x (NumPy/torch/CuPy), optionally (n, cols)."""
    x = np.ascontiguousarray(np.asarray(A.to_host(x), dtype=np.float64))
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
    x = np.ascontiguousarray(np.asarray(A.to_host(lines))).reshape(-1)
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


def coil_data(x, what, dtypes=(C64,)):
    """Arg of multi-coil data (coils, ny, nx) (at least two axes)."""
    a = A.arg(x, what, dtypes=dtypes)
    if len(a.shape) < 2:
        raise A.DimensionError("kray: %s must be (coils, ny, nx), not %s" % (what, a.shape))
    return a
