"""FFTs (kray/fft.h): FFTW on the host, cuFFT on CUDA devices, complex to complex.

Sign: forward uses exp(-2 pi i k n / N) (numpy's fft), inverse exp(+...) with NO 1/N unless
unitary (then 1/sqrt(N) per axis both ways, numpy's norm="ortho"). centered puts the origin
at index N // 2 on input and output (fftshift(fft(ifftshift(x))), BART's fftc). axes: Python
axes (None = all). Arrays: complex64 or complex128 (real float32/float64 inputs are converted
to the matching complex type), NumPy/torch on the host or CuPy/torch on a CUDA device;
`out` may be the input (in place).
"""
from ctypes import POINTER, byref, c_int, c_int64, c_uint, c_void_p

import numpy as np

from ._lib import fn, lib, parr, InvalidArgumentError
from . import _array as A
from ._plan import Plan, context, ctx_for

FORWARD, BACKWARD = -1, 1
CENTERED, UNITARY = 1, 2

fn("kr_fft_plan_create", [POINTER(c_void_p), c_void_p, c_int, c_int, POINTER(c_int64), c_uint,
                          c_int, c_uint, c_int])
fn("kr_fft_execute", [c_void_p, parr, parr])
fn("kr_fft_plan_destroy", [c_void_p], None)
fn("kr_fft", [c_void_p, parr, parr, c_uint, c_int, c_uint])
fn("kr_fftshift", [c_void_p, parr, parr, c_uint])
fn("kr_ifftshift", [c_void_p, parr, parr, c_uint])
fn("kr_fft_cache_clear", [], None)


def axis_mask(axes, ndim):
    """kray's axis bit mask (bit d = kray axis d, fastest first) of Python axes (None: 0 =
    all)."""
    if axes is None:
        return 0
    if isinstance(axes, (int, np.integer)):
        axes = (axes,)
    m = 0
    for a in axes:
        a = int(a)
        if not -ndim <= a < ndim:
            raise InvalidArgumentError("kray: axis %d is out of range for an array of %d "
                                       "dimensions" % (a, ndim))
        m |= 1 << (ndim - 1 - (a % ndim))
    if m == 0:
        raise InvalidArgumentError("kray: no axes to transform")
    return m


def _complex_arg(x, what="the array"):
    dt = str(x.dtype if hasattr(x, "dtype") else np.asarray(x).dtype)
    cast = A.KR_C128 if ("float64" in dt or "complex128" in dt) else A.KR_C64
    return A.arg(x, what, dtypes=(A.KR_C64, A.KR_C128), cast=cast)


def _flags(centered, unitary):
    return (CENTERED if centered else 0) | (UNITARY if unitary else 0)


def fft(x, axes=None, inverse=False, centered=False, unitary=False, out=None):
    """The DFT of x over `axes` (Python axes; None = all). Returns a new array like x (or fills
    `out`, which may be x)."""
    xa = _complex_arg(x)
    oa = A.output(out, xa, xa.shape, xa.dtype)
    ctx = context(xa, oa)
    lib.kr_fft(ctx.ptr, xa.ref(), oa.ref(), axis_mask(axes, len(xa.shape)),
               BACKWARD if inverse else FORWARD, _flags(centered, unitary))
    return A.result(out, oa)


def ifft(x, axes=None, centered=False, unitary=False, out=None):
    """The inverse-sign DFT (unscaled unless unitary)."""
    return fft(x, axes, True, centered, unitary, out)


def _shift(f, x, axes, out):
    xa = A.arg(x, "the array")
    oa = A.output(out, xa, xa.shape, xa.dtype)
    ctx = context(xa, oa)
    f(ctx.ptr, xa.ref(), oa.ref(), axis_mask(axes, len(xa.shape)))
    return A.result(out, oa)


def fftshift(x, axes=None, out=None):
    """Move index 0 to N // 2 along `axes` (numpy.fft.fftshift), any dtype."""
    return _shift(lib.kr_fftshift, x, axes, out)


def ifftshift(x, axes=None, out=None):
    """The inverse of :func:`fftshift`."""
    return _shift(lib.kr_ifftshift, x, axes, out)


def cache_clear():
    """Drop the cached FFTW and cuFFT plans not in use."""
    lib.kr_fft_cache_clear()


class FFTPlan(Plan):
    """A reusable transform (kr_fft_plan) for arrays of `shape` (Python order) and dtype
    complex64/complex128 over `axes`; device None (host) or a CUDA ordinal. One execute at a
    time per plan."""
    _destroy = lib.kr_fft_plan_destroy

    def __init__(self, shape, dtype=np.complex64, axes=None, inverse=False, centered=False,
                 unitary=False, device=None):
        code = A.dtype_code(dtype, (A.KR_C64, A.KR_C128), "the dtype of an FFT plan")
        shape = tuple(int(s) for s in shape)
        self.shape, self._code, self.dtype = shape, code, np.dtype(dtype)
        ctx = ctx_for(device)
        p = c_void_p()
        lib.kr_fft_plan_create(byref(p), ctx.ptr, code, len(shape), A.kdims(shape),
                               axis_mask(axes, len(shape)), BACKWARD if inverse else FORWARD,
                               _flags(centered, unitary),
                               A.KR_DEVICE if ctx.is_cuda else A.KR_HOST)
        self._init(p, ctx)

    def execute(self, x, out=None):
        """The transform of x (the plan's shape and dtype), a new array like x or `out`."""
        return self._run(lib.kr_fft_execute, x, "the array", lambda s: s, out, self._code)

    __call__ = execute
