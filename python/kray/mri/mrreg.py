"""Regularised multi-coil MRI reconstruction (kray/mrreg.h): BART pics' problem
``1/2 |E x / c - y / s|^2 + sum_j lambda_j R_j(x)`` with l1-wavelet, total-variation and
locally-low-rank terms, solved by FISTA, ADMM or PDHG, so that a lambda of ``bart pics -R``
carries over (docs/reg.md). The image comes back in the units of :mod:`kray.mri.cgsense`.

Shapes are Python order: image (ny, nx) or (nz, ny, nx), with frames (T, ny, nx); coil maps
(C, ny, nx) (or (C, nz, ny, nx)). Non-Cartesian: trajectory (..., 3) in cycles per FOV (host)
and k-space (C, ...) with the same samples, or with T frames (frames=T) a trajectory
(T, ..., 3) and k-space (T, C, ...); density weights with one value per sample. Cartesian (no
trajectory, 2-D): k-space (C, ny, nx) or (T, C, ny, nx), zero where not sampled, or a real
`mask` (ny, nx) or (T, ny, nx). The reconstruction runs where the k-space lives.
"""
from ctypes import POINTER, Structure, byref, pointer, c_char_p, c_double, c_int, c_int64, \
    c_uint, c_uint64, c_void_p

import numpy as np

from .._lib import fn, lib, parr, struct, DimensionError, InvalidArgumentError
from .._plan import choice, context
from .. import _array as A
from ..reg import WAVELETS
from ._common import C64, REAL, pyshape
from .traj import as_traj

METHODS = {"auto": 0, "fista": 1, "admm": 2, "pdhg": 3}
NORMALS = {"nufft": 0, "toeplitz": 1}


@struct("kr_mrreg_term")
class MrregTerm(Structure):
    _fields_ = [("kind", c_int), ("lambda_", c_double), ("axes", c_uint), ("block", c_int64)]


@struct("kr_mrreg_opts")
class MrregOpts(Structure):
    _fields_ = [("method", c_int), ("max_iter", c_int), ("tol", c_double), ("scale", c_double),
                ("wavelet", c_int), ("levels", c_int), ("randshift", c_int), ("seed", c_uint64),
                ("rho", c_double), ("cg_iter", c_int), ("warm_start", c_int),
                ("objective", POINTER(c_double)), ("show_progress", c_int)]


@struct("kr_mrreg_data")
class MrregData(Structure):
    _fields_ = [("ndim", c_int), ("dims", c_int64 * 3), ("frames", c_int64), ("maps", parr),
                ("kspace", parr), ("traj", parr), ("dcf", parr), ("mask", parr),
                ("eps", c_double), ("toeplitz", c_int)]


@struct("kr_mrreg_info")
class MrregInfo(Structure):
    _fields_ = [("method", c_int), ("iterations", c_int), ("objective", c_double),
                ("scale", c_double), ("norm", c_double), ("lipschitz", c_double),
                ("converged", c_int)]


fn("kr_mrreg_term_parse", [c_char_p, POINTER(MrregTerm)])
fn("kr_mrreg_opts_default", [POINTER(MrregOpts)], None)
fn("kr_mrreg", [c_void_p, POINTER(MrregData), POINTER(MrregTerm), c_int,
                POINTER(MrregOpts), parr, POINTER(MrregInfo)])


def term(spec):
    """The term of a spec string: "l1-wavelet:LAMBDA", "tv:LAMBDA[:AXES]" (letters of x, y, z,
    t) or "llr:LAMBDA[:BLOCK]" (the syntax of ``kray mrreg --reg``)."""
    if not isinstance(spec, str):
        raise InvalidArgumentError("kray: a regulariser is a string such as 'tv:0.01', not %r"
                                   % (spec,))
    t = MrregTerm()
    lib.kr_mrreg_term_parse(spec.encode(), byref(t))
    return t


class MrregResult:
    """x (the image, kray's units), method ("fista", "admm" or "pdhg"), iterations,
    objective (of the scaled problem), scale (s), norm (c), lipschitz (FISTA) and history (the
    objective per iteration)."""

    def __init__(self, x, info, hist):
        names = {v: k for k, v in METHODS.items()}
        self.x = x
        self.method = names[info.method]
        self.iterations = info.iterations
        self.objective = info.objective
        self.scale = info.scale
        self.norm = info.norm
        self.lipschitz = info.lipschitz
        self.converged = bool(info.converged)
        self.history = np.array(hist[:info.iterations + 1])

    def __repr__(self):
        return ("MrregResult(method=%r, iterations=%d, scale=%.6g, objective=%.6g)" %
                (self.method, self.iterations, self.scale, self.objective))


def _real_host(x, what):
    if x is None:
        return None
    a = A.arg(x, what)
    if a.device >= 0 or a.dtype not in REAL:
        raise InvalidArgumentError("kray: %s must be a real host array" % what)
    return a


def mrreg(kspace, maps, reg, traj=None, dcf=None, mask=None, frames=None, method="auto",
          max_iter=30, tol=0.0, scale=0.0, wavelet="db2", levels=0, randshift=True, seed=1,
          rho=0.5, cg_iter=10, eps=1e-4, normal="toeplitz", x0=None, progress=False):
    """Reconstruct multi-coil data with the terms `reg` (a spec string or a list of them, see
    :func:`term`). method: auto (BART's choice: fista for one l1-wavelet or llr term, else admm),
    fista, admm or pdhg; scale: the data scale s (BART's ``-w``; 0 = BART's estimate); wavelet:
    haar, db2 (BART's dau2) or db4; levels: 0 = BART's rule; randshift: random wavelet shifts
    per iteration; rho, cg_iter: ADMM's penalty and CG steps (BART's -u, -C); eps, normal: the
    NUFFT's accuracy and normal operator (toeplitz or nufft). frames: T (None: the leading
    axis of a 4-D Cartesian k-space, else 1; non-Cartesian frames must be given: the leading
    axes of the trajectory and the k-space). x0: initial image (not modified). Returns a
    :class:`MrregResult`."""
    specs = [reg] if isinstance(reg, str) else list(reg)
    if not 1 <= len(specs) <= 4:
        raise InvalidArgumentError("kray: give 1 to 4 regularisers, not %d" % len(specs))
    terms = (MrregTerm * len(specs))(*[term(s) for s in specs])
    k = A.arg(kspace, "the k-space", dtypes=(C64,))
    m = A.arg(maps, "the coil maps", dtypes=(C64,))
    if len(m.shape) not in (3, 4):
        raise DimensionError("kray: the coil maps must be (coils, ny, nx) or (coils, nz, ny, "
                             "nx), not %s" % (m.shape,))
    shape = tuple(m.shape[1:])
    cart = traj is None
    t = None if cart else as_traj(traj)
    if frames is None:
        frames = k.shape[0] if cart and len(k.shape) == 4 else 1
    frames = int(frames)
    if cart and len(shape) != 2:
        raise DimensionError("kray: Cartesian data are 2-D: maps (coils, ny, nx)")
    d = MrregData()
    d.ndim = len(shape)
    d.dims = (c_int64 * 3)(*(list(reversed(shape)) + [1] * (3 - len(shape))))
    d.frames = frames
    d.maps = pointer(m.c)
    d.kspace = pointer(k.c)
    w = _real_host(dcf, "the density weights")
    mk = _real_host(mask, "the mask")
    if t is not None:
        d.traj = pointer(t.c)
    if w is not None:
        d.dcf = pointer(w.c)
    if mk is not None:
        d.mask = pointer(mk.c)
    d.eps = float(eps)
    d.toeplitz = choice(normal, NORMALS, "normal")
    xshape = ((frames,) if frames > 1 else ()) + shape
    xa = A.out(k, xshape, C64, "x") if x0 is None else \
        A.arg(A.copy_of(A.arg(x0, "x0", dtypes=(C64,)).obj), "x0")
    if tuple(xa.shape) != xshape:
        raise DimensionError("kray: x0 has shape %s; the image is %s" % (xa.shape, xshape))
    ctx = context(k, xa)
    o = MrregOpts()
    lib.kr_mrreg_opts_default(byref(o))
    o.method = choice(method, METHODS, "method")
    o.max_iter, o.tol, o.scale = int(max_iter), float(tol), float(scale)
    if wavelet not in WAVELETS:
        raise InvalidArgumentError("kray: the wavelet must be one of %s, not %r" %
                                   (", ".join(WAVELETS), wavelet))
    o.wavelet = WAVELETS.index(wavelet)
    o.levels, o.randshift, o.seed = int(levels), int(bool(randshift)), int(seed)
    o.rho, o.cg_iter = float(rho), int(cg_iter)
    o.warm_start = 1 if x0 is not None else 0
    hist = (c_double * (max(int(max_iter), 0) + 1))()
    o.objective = hist
    o.show_progress = 1 if progress else 0
    info = MrregInfo()
    lib.kr_mrreg(ctx.ptr, byref(d), terms, len(specs), byref(o), xa.ref(), byref(info))
    return MrregResult(xa.obj, info, hist)
