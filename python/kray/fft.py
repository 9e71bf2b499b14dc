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

from ._lib import KR_MAX_DIMS, fn, lib, parr, InvalidArgumentError
from . import _array as A
from ._plan import ctx_for, use_stream

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
    oa = A.out(xa, xa.shape, xa.dtype) if out is None else \
        A.arg(out, "out", dtypes=(xa.dtype,))
    ctx = A.context(xa, oa)
    lib.kr_fft(ctx.ptr, xa.ref(), oa.ref(), axis_mask(axes, len(xa.shape)),
               BACKWARD if inverse else FORWARD, _flags(centered, unitary))
    return out if out is not None else oa.obj


def ifft(x, axes=None, centered=False, unitary=False, out=None):
    """The inverse-sign DFT (unscaled unless unitary)."""
    return fft(x, axes, True, centered, unitary, out)


def _shift(f, x, axes, out):
    xa = A.arg(x, "the array")
    oa = A.out(xa, xa.shape, xa.dtype) if out is None else A.arg(out, "out", dtypes=(xa.dtype,))
    ctx = A.context(xa, oa)
    f(ctx.ptr, xa.ref(), oa.ref(), axis_mask(axes, len(xa.shape)))
    return out if out is not None else oa.obj


def fftshift(x, axes=None, out=None):
    """Move index 0 to N // 2 along `axes` (numpy.fft.fftshift), any dtype."""
    return _shift(lib.kr_fftshift, x, axes, out)


def ifftshift(x, axes=None, out=None):
    """The inverse of :func:`fftshift`."""
    return _shift(lib.kr_ifftshift, x, axes, out)


def cache_clear():
    """Drop the cached FFTW and cuFFT plans not in use."""
    lib.kr_fft_cache_clear()


class FFTPlan:
    """A reusable transform (kr_fft_plan) for arrays of `shape` (Python order) and dtype
    complex64/complex128 over `axes`; device None (host) or a CUDA ordinal. One execute at a
    time per plan."""

    def __init__(self, shape, dtype=np.complex64, axes=None, inverse=False, centered=False,
                 unitary=False, device=None):
        code = A.kr_dtype(np.dtype(dtype))
        if code not in (A.KR_C64, A.KR_C128):
            raise A.DTypeError("kray: FFT plans are complex64 or complex128, not %s" %
                               np.dtype(dtype))
        shape = tuple(int(s) for s in shape)
        self.shape, self._code, self.dtype = shape, code, np.dtype(dtype)
        self.ctx = ctx_for(device)
        d = (c_int64 * KR_MAX_DIMS)(*reversed(shape))
        self._ptr = c_void_p()
        lib.kr_fft_plan_create(byref(self._ptr), self.ctx.ptr, code, len(shape), d,
                               axis_mask(axes, len(shape)), BACKWARD if inverse else FORWARD,
                               _flags(centered, unitary),
                               A.KR_DEVICE if self.ctx.is_cuda else A.KR_HOST)

    def execute(self, x, out=None):
        if not self._ptr:
            raise ValueError("kray: the FFT plan is closed")
        xa = A.arg(x, "the array", dtypes=(self._code,))
        oa = A.out(xa, xa.shape, self._code) if out is None else \
            A.arg(out, "out", dtypes=(self._code,))
        A.context(xa, oa, ctx=self.ctx)
        use_stream(self.ctx, xa, oa)
        lib.kr_fft_execute(self._ptr, xa.ref(), oa.ref())
        return out if out is not None else oa.obj

    __call__ = execute

    def close(self):
        if getattr(self, "_ptr", None):
            lib.kr_fft_plan_destroy(self._ptr)
            self._ptr = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
