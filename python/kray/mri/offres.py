"""Off-resonance (B0 field map) operators for non-Cartesian MRI (kray/offres.h).

(A rho)_m = sum_x rho(x) exp(-2 pi i (k_m . x / n + f(x) t_m)) with the field map f in Hz
(Python shape = the image shape) and sample times t_m in seconds (M values): exact direct sums,
or time-segmented with least-squares interpolators (Sutton, Noll, Fessler 2003) on a batched
NUFFT. f = 0 is the plain F of kray.mri.lsq.
"""
from ctypes import POINTER, Structure, byref, c_double, c_int, c_int64, c_void_p

import numpy as np

from .._lib import fields, fn, lib, parr, pdbl, struct
from .. import _array as A
from ..linop import Linop
from .._plan import place
from ._common import CPLX, REAL, host_f64, n3, pyshape
from .traj import as_traj


@struct("kr_offres_opts")
class OffresOpts(Structure):
    _fields_ = [("dtype", c_int), ("exact", c_int), ("segments", c_int), ("tol", c_double),
                ("bins", c_int), ("eps", c_double), ("batch", c_int64)]


@struct("kr_offres_info")
class OffresInfo(Structure):
    _fields_ = [("segments", c_int), ("interp_err", c_double), ("t_min", c_double),
                ("t_max", c_double), ("f_min", c_double), ("f_max", c_double)]


fn("kr_offres_opts_default", [POINTER(OffresOpts)], None)
fn("kr_offres_linop_create", [POINTER(c_void_p), c_void_p, POINTER(c_int64), parr, parr, parr,
                              POINTER(OffresOpts), POINTER(OffresInfo)])
fn("kr_offres_interp", [c_int, pdbl, c_int, pdbl, pdbl, c_int64, pdbl, pdbl])


def operator(shape, traj, fieldmap, times, dtype=np.complex64, exact=False, segments=0,
             tol=0.0, bins=0, eps=0.0, device=None, ctx=None, info=False, batch=0):
    """The off-resonance operator A as a :class:`~kray.linop.Linop`: domain `shape`, codomain
    (M,). traj host (..., 3); fieldmap host real, Python shape `shape` (Hz); times host real,
    M values (s). exact=True: direct sums; else `segments` (0 = the smallest L with
    interpolation error <= tol), `bins` histogram bins, NUFFT accuracy `eps`. batch > 1: B
    images at once, domain (B, *shape), codomain (B, M). Runs on `device` (int: CUDA) or the
    CPU. info=True also returns a dict (segments, interp_err, t_min, t_max, f_min, f_max)."""
    shape = pyshape(shape, "the image shape")
    t = as_traj(traj)
    f = A.arg(fieldmap, "the field map", dtypes=REAL)
    tm = A.arg(times, "the sample times", dtypes=REAL)
    ctx, _, _ = place(device, ctx, ())
    o = OffresOpts()
    lib.kr_offres_opts_default(byref(o))
    o.dtype = A.dtype_code(dtype, CPLX, "dtype")
    o.exact, o.segments, o.tol, o.bins, o.eps = int(bool(exact)), segments, tol, bins, eps
    o.batch = int(batch)
    inf = OffresInfo()
    p = c_void_p()
    lib.kr_offres_linop_create(byref(p), ctx.ptr, n3(shape), t.ref(), f.ref(), tm.ref(),
                               byref(o), byref(inf))
    op = Linop(p, ctx)
    if info:
        return op, fields(inf)
    return op


def interp(tau, f, h, t):
    """The least-squares interpolators b[l, i] (complex128 (L, nt)) for segment times `tau`
    (L,), histogram bin centres `f` (Hz) with counts `h`, at times `t` (s)."""
    tau = host_f64(tau, "tau").reshape(-1)
    f = host_f64(f, "f").reshape(-1)
    h = host_f64(h, "h").reshape(-1)
    t = host_f64(t, "t").reshape(-1)
    if f.size != h.size:
        raise A.DimensionError("kray: f has %d bins, h %d" % (f.size, h.size))
    b = np.zeros((tau.size, t.size), np.complex128)
    P = lambda a: a.ctypes.data_as(pdbl)  # noqa: E731
    lib.kr_offres_interp(tau.size, P(tau), f.size, P(f), P(h), t.size, P(t),
                         b.ctypes.data_as(pdbl))
    return b
