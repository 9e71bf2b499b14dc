"""Image-quality metrics (kray/metrics.h), computed in float64 whatever the input types.

x is the image under test, ref the reference: the same shape (Python order), any element
types (complex values are compared by magnitude), both on the host or both on one CUDA device
(measured there). `range` is the data range L of PSNR and SSIM (0: max(ref) - min(ref)).
  mse    = mean (x - ref)^2;  psnr = 10 log10(L^2 / mse) dB (inf when identical);
  nrmse  = ||x - ref|| / ||ref||;  maxerr = max |x - ref|;
  ssim   = Wang et al. 2004, Gaussian window sigma 1.5 (scikit-image's structural_similarity
           with gaussian_weights=True, use_sample_covariance=False), on the last two axes
           (planes of at least 11 x 11), averaged over the leading axes.
"""
from ctypes import POINTER, Structure, byref, c_double, c_void_p

from ._lib import fields, fn, lib, parr, struct
from . import _array as A
from ._plan import context


@struct("kr_metrics")
class Metrics(Structure):
    _fields_ = [("mse", c_double), ("psnr", c_double), ("ssim", c_double), ("nrmse", c_double),
                ("maxerr", c_double), ("range", c_double)]


pd = POINTER(c_double)
fn("kr_mse", [c_void_p, parr, parr, pd])
fn("kr_psnr", [c_void_p, parr, parr, c_double, pd])
fn("kr_nrmse", [c_void_p, parr, parr, pd])
fn("kr_maxerr", [c_void_p, parr, parr, pd])
fn("kr_ssim", [c_void_p, parr, parr, c_double, pd])
fn("kr_metrics_compute", [c_void_p, parr, parr, c_double, POINTER(Metrics)])


def _pair(x, ref):
    xa = A.arg(x, "the image")
    ra = A.arg(ref, "the reference")
    return xa, ra, context(xa, ra)


def _one(f, x, ref, *extra):
    xa, ra, ctx = _pair(x, ref)
    r = c_double()
    f(ctx.ptr, xa.ref(), ra.ref(), *extra, byref(r))
    return r.value


def mse(x, ref):
    """Mean squared error."""
    return _one(lib.kr_mse, x, ref)


def psnr(x, ref, range=0.0):
    """Peak signal-to-noise ratio in dB with data range `range` (0: from ref)."""
    return _one(lib.kr_psnr, x, ref, float(range))


def nrmse(x, ref):
    """||x - ref|| / ||ref||."""
    return _one(lib.kr_nrmse, x, ref)


def maxerr(x, ref):
    """max |x - ref|."""
    return _one(lib.kr_maxerr, x, ref)


def ssim(x, ref, range=0.0):
    """Structural similarity (mean over the (y, x) planes of a volume)."""
    return _one(lib.kr_ssim, x, ref, float(range))


def compute(x, ref, range=0.0):
    """All metrics at once: dict mse, psnr, ssim (NaN for planes under 11 x 11), nrmse,
    maxerr, range (the L used)."""
    xa, ra, ctx = _pair(x, ref)
    m = Metrics()
    lib.kr_metrics_compute(ctx.ptr, xa.ref(), ra.ref(), float(range), byref(m))
    return fields(m)
