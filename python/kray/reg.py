"""Regularised reconstruction (kray/reg.h): finite differences and orthogonal wavelets as
:class:`kray.linop.Linop` operators, proximal maps (:class:`Prox`), FISTA, ADMM and
Chambolle-Pock PDHG for ``1/2 ||A x - y||^2 + sum_j g_j(K_j x)``, and the CT algorithms
OS-SART and ASD-POCS. docs/reg.md gives the scaling of every lambda.

Shapes are Python order (slowest first). Axes are Python axes (negative counts from the end).
Operators and proximal maps live where `device` says (None: the CPU) and take arrays of their
dtype there; solvers run where the operator A lives.
"""
import math
from ctypes import POINTER, Structure, byref, c_char_p, c_double, c_int, c_int64, c_uint, \
    c_uint64, c_void_p

import numpy as np

from ._lib import fn, lib, parr, struct, InvalidArgumentError, DimensionError
from ._plan import Plan, choice, context, ctx_for
from . import _array as A
from .linop import Linop, SolveInfo, SolveResult, start

BOUNDARIES = {"neumann": 0, "periodic": 1}
WAVELETS = ("haar", "db2", "db4")


@struct("kr_wavelet_opts")
class WaveletOpts(Structure):
    _fields_ = [("kind", c_int), ("axes", c_uint), ("levels", c_int),
                ("shift", POINTER(c_int64))]


@struct("kr_reg_term")
class RegTerm(Structure):
    _fields_ = [("K", c_void_p), ("g", c_void_p)]


@struct("kr_reg_opts")
class RegOpts(Structure):
    _fields_ = [("max_iter", c_int), ("tol", c_double), ("warm_start", c_int),
                ("objective", POINTER(c_double)), ("residual", POINTER(c_double)),
                ("show_progress", c_int), ("step", c_double), ("power_iter", c_int),
                ("monotone", c_int), ("normal_form", c_int), ("rho", c_double),
                ("cg_iter", c_int),
                ("sigma", c_double), ("tau", c_double), ("seed", c_uint64)]


@struct("kr_reg_info")
class RegInfo(Structure):
    _fields_ = [("iterations", c_int), ("objective", c_double), ("rel_change", c_double),
                ("primal_res", c_double), ("dual_res", c_double), ("lipschitz", c_double),
                ("converged", c_int)]


@struct("kr_ct_reg_opts")
class CtRegOpts(Structure):
    _fields_ = [("max_iter", c_int), ("subsets", c_int), ("relax", c_double),
                ("nonneg", c_int), ("tv_iter", c_int), ("alpha", c_double),
                ("alpha_red", c_double), ("r_max", c_double), ("residual", POINTER(c_double)),
                ("warm_start", c_int), ("show_progress", c_int)]


_pi64 = POINTER(c_int64)
fn("kr_fdiff_linop_create", [POINTER(c_void_p), c_void_p, c_int, c_int, _pi64, c_uint, c_int])
fn("kr_wavelet_kind_from_name", [c_char_p, POINTER(c_int)])
fn("kr_wavelet_opts_default", [POINTER(WaveletOpts)], None)
fn("kr_wavelet_linop_create", [POINTER(c_void_p), c_void_p, c_int, c_int, _pi64,
                               POINTER(WaveletOpts)])
_head = [POINTER(c_void_p), c_void_p, c_int, c_int, _pi64]
fn("kr_prox_l1_create", _head + [c_double])
fn("kr_prox_l21_create", _head + [c_double])
fn("kr_prox_l2ball_create", _head + [c_double, parr])
fn("kr_prox_box_create", _head + [c_double, c_double])
fn("kr_prox_llr_create", _head + [c_double, c_int, c_int64, _pi64])
fn("kr_prox_l1_wavelet_create", _head + [c_double, POINTER(WaveletOpts), c_uint64])
fn("kr_prox_tv_create", _head + [c_double, c_uint, c_double, c_double, c_int])
fn("kr_prox_destroy", [c_void_p], None)
fn("kr_prox_apply", [c_void_p, c_double, parr, parr])
fn("kr_prox_value", [c_void_p, parr, POINTER(c_double)])
fn("kr_reg_opts_default", [POINTER(RegOpts)], None)
_solver = [c_void_p, c_void_p, parr, POINTER(RegTerm), c_int, parr, POINTER(RegOpts),
           POINTER(RegInfo)]
fn("kr_fista", [c_void_p, c_void_p, parr, c_void_p, parr, POINTER(RegOpts), POINTER(RegInfo)])
fn("kr_admm", _solver)
fn("kr_pdhg", _solver)
fn("kr_linop_norm2_estimate", [c_void_p, c_void_p, c_int, c_uint64, POINTER(c_double)])
fn("kr_ct_reg_opts_default", [POINTER(CtRegOpts)], None)
_ct = [c_void_p, c_void_p, c_void_p, parr, parr, POINTER(CtRegOpts), POINTER(SolveInfo)]
fn("kr_os_sart", _ct)
fn("kr_asd_pocs", _ct)


# ---- helpers -------------------------------------------------------------------------------

def _shape(shape):
    s = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(n) for n in shape)
    if not s or any(n < 1 for n in s):
        raise DimensionError("kray: shape must be one or more positive sizes, not %r" %
                             (shape,))
    return s


def _code(dtype):
    return A.dtype_code(dtype, (A.KR_F32, A.KR_F64, A.KR_C64, A.KR_C128))


def _axis(p, nd, what="axis"):
    """kray axis (fastest first) of Python axis p of an nd-axis array."""
    if not isinstance(p, (int, np.integer)) or isinstance(p, bool) or not -nd <= p < nd:
        raise InvalidArgumentError("kray: %s %r is not an axis of a %d-axis array" %
                                   (what, p, nd))
    return nd - 1 - (int(p) % nd)


def _mask(axes, nd, default):
    """Bit mask of kray axes for Python `axes` (None: `default`)."""
    if axes is None:
        return default
    if isinstance(axes, (int, np.integer)):
        axes = (axes,)
    m = 0
    for p in axes:
        m |= 1 << _axis(p, nd, "axes entry")
    if not m:
        raise InvalidArgumentError("kray: axes must name at least one axis")
    return m


def _shift(shift, nd):
    """kray-order c_int64 array of a Python-order per-axis shift (None: NULL)."""
    if shift is None:
        return None
    s = [int(v) for v in shift]
    if len(s) != nd:
        raise DimensionError("kray: shift needs one value per axis (%d), not %d" % (nd, len(s)))
    return (c_int64 * nd)(*reversed(s))


def _real(v, what, lo=0.0):
    v = float(v)
    if not math.isfinite(v) or v < lo:
        raise InvalidArgumentError("kray: %s must be finite and >= %g, not %r" % (what, lo, v))
    return v


def wavelet_kind(name):
    """kr_wavelet_kind of "haar", "db2" or "db4"."""
    from .ct.geometry import name_code
    return name_code(lib.kr_wavelet_kind_from_name, name, "the wavelet", WAVELETS)


def wavelet_opts(kind="db4", axes=None, levels=0, shift=None, nd=2):
    """kr_wavelet_opts for an nd-axis array (Python axes; None: the last two). The returned
    struct borrows its shift array (kept on the struct as `_shift`)."""
    o = WaveletOpts()
    lib.kr_wavelet_opts_default(byref(o))
    o.kind = wavelet_kind(kind)
    o.axes = _mask(axes, nd, 0)
    o.levels = int(levels)
    o._shift = _shift(shift, nd)
    o.shift = o._shift
    return o


# ---- operators -----------------------------------------------------------------------------

def fdiff(shape, axes=None, boundary="neumann", dtype=np.float32, device=None):
    """The forward-difference operator D on arrays of `shape` (Python order) as a Linop:
    output shape (k,) + shape, k = len(axes), the differences of the chosen Python `axes`
    (None: all) stacked from the LAST chosen axis to the first (an image (ny, nx): out[0] =
    d/dx, out[1] = d/dy). boundary "neumann": x[i+1] - x[i] and 0 at the far edge (Chambolle's
    TV gradient); "periodic": circular. The adjoint is the exact transpose; ||D||^2 <= 4 k.
    dtype: float32, float64, complex64 or complex128."""
    s = _shape(shape)
    nd = len(s)
    ctx = ctx_for(device)
    p = c_void_p()
    lib.kr_fdiff_linop_create(byref(p), ctx.ptr, _code(dtype), nd, A.kdims(s),
                              _mask(axes, nd, (1 << nd) - 1),
                              choice(boundary, BOUNDARIES, "the boundary"))
    return Linop(p, ctx)


def wavelet(shape, kind="db4", axes=None, levels=0, shift=None, dtype=np.float32, device=None):
    """The orthogonal multilevel wavelet transform W (Daubechies "haar", "db2", "db4", periodic
    boundary, Mallat layout, in place) on arrays of `shape` as a Linop (same shape in and out;
    adjoint = inverse). axes: Python axes transformed (None: the last two); each must be
    divisible by 2**levels. levels: 0 = as many as the axes allow (at most 4). shift: a
    circular shift per Python axis applied before the transform (None: none)."""
    s = _shape(shape)
    nd = len(s)
    ctx = ctx_for(device)
    o = wavelet_opts(kind, axes, levels, shift, nd)
    p = c_void_p()
    lib.kr_wavelet_linop_create(byref(p), ctx.ptr, _code(dtype), nd, A.kdims(s), byref(o))
    return Linop(p, ctx)


def norm2_estimate(op, iters=30, seed=1):
    """The largest eigenvalue of A^H A (||A||^2) by `iters` power iterations from a random
    start drawn from `seed`."""
    _need_linop(op, "op")
    r = c_double()
    op._args()
    lib.kr_linop_norm2_estimate(op.ctx.ptr, op.ptr, int(iters), int(seed), byref(r))
    return r.value


# ---- proximal maps -------------------------------------------------------------------------

class Prox(Plan):
    """A convex function g of arrays of one `shape` (Python order) and `dtype`, with its
    proximal map prox_{t g}(v) = argmin_x g(x) + ||x - v||^2 / (2 t) (:meth:`apply`) and its
    value g(x) (:meth:`value`; +inf outside an indicator's set). Made by :func:`l1`,
    :func:`l21`, :func:`l2ball`, :func:`box`, :func:`llr`, :func:`l1_wavelet`, :func:`tv`."""
    _destroy = lib.kr_prox_destroy

    def __init__(self, create, shape, dtype, device, *extra, keep=()):
        s = _shape(shape)
        self.shape = s
        self._code = _code(dtype)
        self.dtype = A.np_dtype(self._code)
        ctx = ctx_for(device)
        p = c_void_p()
        create(byref(p), ctx.ptr, self._code, len(s), A.kdims(s), *extra)
        self._init(p, ctx, keep=keep)
        self.name = create.__name__[len("kr_prox_"):-len("_create")]

    def __repr__(self):
        return "kray.reg.Prox(%r, %s, %s)" % (self.name, self.shape, self.dtype)

    def apply(self, v, t=1.0, out=None):
        """x = prox_{t g}(v) (t > 0; v of the prox's shape and dtype; `out` may be v)."""
        t = float(t)
        if not t > 0 or not math.isfinite(t):
            raise InvalidArgumentError("kray: the prox step t must be finite and > 0, not %r" %
                                       t)
        va = self._operand(v, "the prox input")
        oa = A.output(out, va, self.shape, self._code)
        self._args(va, oa)
        lib.kr_prox_apply(self.ptr, t, va.ref(), oa.ref())
        return A.result(out, oa)

    __call__ = apply

    def value(self, x):
        """g(x) as a float (+inf outside an indicator's set, tolerance 1e-6 relative)."""
        xa = self._operand(x, "the prox argument")
        self._args(xa)
        r = c_double()
        lib.kr_prox_value(self.ptr, xa.ref(), byref(r))
        return r.value

    def _operand(self, x, what):
        a = A.arg(x, what, dtypes=(self._code,))
        if tuple(a.shape) != self.shape:
            raise DimensionError("kray: %s has shape %s; the prox takes %s" %
                                 (what, tuple(a.shape), self.shape))
        return a


def l1(shape, lam, dtype=np.float32, device=None):
    """lam * sum |x_i| (complex modulus): the complex soft threshold."""
    return Prox(lib.kr_prox_l1_create, shape, dtype, device, _real(lam, "lam"))


def l21(shape, lam, dtype=np.float32, device=None):
    """lam * sum_i ||z_i||_2 over the FIRST Python axis (shape (k, ...): the k values at each
    position, e.g. the output of :func:`fdiff` -- isotropic TV): the group threshold."""
    return Prox(lib.kr_prox_l21_create, shape, dtype, device, _real(lam, "lam"))


def l2ball(shape, radius, center=None, dtype=np.float32, device=None):
    """The indicator of {x : ||x - center||_2 <= radius} (center: an array of `shape` and
    `dtype` where the prox lives, copied; None = 0): projection onto the ball."""
    ca = None
    if center is not None:
        ca = A.arg(center, "the center", dtypes=(_code(dtype),))
        if tuple(ca.shape) != _shape(shape):
            raise DimensionError("kray: the center has shape %s, not %s" %
                                 (tuple(ca.shape), _shape(shape)))
    return Prox(lib.kr_prox_l2ball_create, shape, dtype, device, _real(radius, "radius"),
                ca.ref() if ca is not None else None)


def box(shape, lo=0.0, hi=math.inf, dtype=np.float32, device=None):
    """The indicator of {lo <= x <= hi} (defaults: non-negativity); complex dtypes clamp the
    real part and zero the imaginary part."""
    return Prox(lib.kr_prox_box_create, shape, dtype, device, float(lo), float(hi))


def llr(shape, lam, axis=0, block=8, shift=None, dtype=np.complex64, device=None):
    """Locally low rank: lam * sum_b ||X_b||_* over blocks of block^s pixels of the axes other
    than Python `axis` (the frames axis, e.g. time: shape (nt, ny, nx) with axis 0), X_b the
    (block pixels) x (frames) matrix; the prox soft-thresholds singular values. shift: a
    circular block shift per Python axis (None: none). On a device the block SVDs run there
    (one thread block per image block)."""
    s = _shape(shape)
    return Prox(lib.kr_prox_llr_create, s, dtype, device, _real(lam, "lam"),
                _axis(axis, len(s)), int(block), _shift(shift, len(s)))


def l1_wavelet(shape, lam, kind="db4", axes=None, levels=0, seed=0, dtype=np.float32,
               device=None):
    """lam * ||W x||_1 with W the orthogonal wavelet of :func:`wavelet`; the prox is W^H
    soft(W v). seed != 0: a new random circular shift per call of the prox (as BART)."""
    s = _shape(shape)
    o = wavelet_opts(kind, axes, levels, None, len(s))
    return Prox(lib.kr_prox_l1_wavelet_create, s, dtype, device, _real(lam, "lam"), byref(o),
                int(seed))


def tv(shape, lam, axes=None, lo=-math.inf, hi=math.inf, inner=0, dtype=np.float32,
       device=None):
    """lam * TV(x) + the indicator of [lo, hi]: isotropic TV with Neumann differences along
    Python `axes` (None: all); the prox by `inner` (0 = 20) dual fast-gradient-projection
    iterations, warm-started from the previous call."""
    s = _shape(shape)
    return Prox(lib.kr_prox_tv_create, s, dtype, device, _real(lam, "lam"),
                _mask(axes, len(s), (1 << len(s)) - 1), float(lo), float(hi), int(inner))


# ---- solvers -------------------------------------------------------------------------------

class RegResult(SolveResult):
    """x: the solution; iterations; objective F(x); rel_change (FISTA, PDHG); primal_res,
    dual_res (ADMM); lipschitz (FISTA: the L used; PDHG: ||K||^2); converged; history: F(x_k)
    for k = 0 .. iterations; residuals: the relative change (FISTA, PDHG) or primal residual
    (ADMM) per iteration, entry 0 is 1."""

    def __init__(self, x, info, obj, res):
        self.x = x
        self.iterations = info.iterations
        self.objective = info.objective
        self.rel_change = info.rel_change
        self.rel_residual = info.rel_change
        self.primal_res = info.primal_res
        self.dual_res = info.dual_res
        self.lipschitz = info.lipschitz
        self.converged = bool(info.converged)
        self.history = np.array(obj[:info.iterations + 1])
        self.residuals = np.array(res[:info.iterations + 1])

    def __repr__(self):
        return ("RegResult(iterations=%d, objective=%.6g, converged=%s)" %
                (self.iterations, self.objective, self.converged))


def _need_linop(op, what):
    if not isinstance(op, Linop):
        raise InvalidArgumentError("kray: %s must be a kray Linop, not %s" %
                                   (what, type(op).__name__))


def _pair(t):
    return isinstance(t, tuple) and len(t) == 2 and isinstance(t[1], Prox) and \
        (t[0] is None or isinstance(t[0], Linop))


def _terms(op, terms):
    """kr_reg_term array of `terms`: Prox objects (K = identity) or (K, g) pairs (K a Linop
    or None), all living where op does."""
    if isinstance(terms, Prox) or _pair(terms):
        terms = [terms]
    if not isinstance(terms, (list, tuple)):
        raise InvalidArgumentError("kray: terms is a list of Prox objects or (K, Prox) pairs, "
                                   "not %s" % type(terms).__name__)
    out = []
    for t in terms:
        if not isinstance(t, Prox) and not _pair(t):
            raise InvalidArgumentError("kray: a term is a Prox or a (K, Prox) pair")
        k, g = (None, t) if isinstance(t, Prox) else tuple(t)
        if k is not None:
            _need_linop(k, "a term's K")
            if k.device != op.device:
                raise InvalidArgumentError("kray: a term's K lives elsewhere than A")
        if g.device != op.device:
            raise InvalidArgumentError("kray: a term's prox lives elsewhere than A")
        out.append((k, g))
    arr = (RegTerm * max(len(out), 1))()
    for i, (k, g) in enumerate(out):
        arr[i].K = k.ptr if k is not None else None
        arr[i].g = g.ptr
    return arr, len(out)


def _run(f, op, y, x0, mid, max_iter, tol, progress, opts):
    _need_linop(op, "A")
    ya = A.arg(y, "the data", dtypes=(op._code,))
    if tuple(ya.shape) != tuple(op.shape_out):
        raise DimensionError("kray: the data has shape %s; A's output is %s" %
                             (tuple(ya.shape), op.shape_out))
    xa = start(ya, x0, op.shape_in, op._code)
    op._args(ya, xa)
    o = RegOpts()
    lib.kr_reg_opts_default(byref(o))
    n = int(max_iter)
    obj = (c_double * (max(n, 0) + 1))()
    res = (c_double * (max(n, 0) + 1))()
    o.max_iter, o.tol = n, float(tol)
    o.warm_start = 1 if x0 is not None else 0
    o.objective, o.residual = obj, res
    o.show_progress = 1 if progress else 0
    for k, v in opts.items():
        if v is not None:
            setattr(o, k, v)
    info = RegInfo()
    f(op.ctx.ptr, op.ptr, ya.ref(), *mid, xa.ref(), byref(o), byref(info))
    return RegResult(xa.obj, info, obj, res)


def fista(op, y, g=None, x0=None, max_iter=100, tol=1e-6, step=0.0, monotone=False,
          power_iter=0, seed=None, normal_form=False, progress=False):
    """FISTA for min 1/2 ||A x - y||^2 + g(x) (g a :class:`Prox` of A's input shape, or None).
    step: 1/L (0: 1 / (1.01 ||A^H A||) by `power_iter` (0 = 30) power iterations); monotone:
    MFISTA; normal_form: the gradient from A's own normal (one per iteration; fast with a
    Toeplitz normal). x0 (not modified) warm-starts. Returns a :class:`RegResult`."""
    if g is not None and not isinstance(g, Prox):
        raise InvalidArgumentError("kray: g must be a kray.reg.Prox or None")
    _need_linop(op, "A")
    if g is not None and g.device != op.device:
        raise InvalidArgumentError("kray: the prox lives elsewhere than A")
    return _run(lib.kr_fista, op, y, x0, (g.ptr if g is not None else None,), max_iter, tol,
                progress, dict(step=float(step), monotone=int(bool(monotone)),
                               power_iter=int(power_iter), seed=seed,
                               normal_form=int(bool(normal_form))))


def admm(op, y, terms, x0=None, max_iter=100, tol=1e-6, rho=1.0, cg_iter=10, progress=False):
    """ADMM (scaled form, penalty rho) for min 1/2 ||A x - y||^2 + sum_j g_j(K_j x); terms: a
    list of :class:`Prox` (K = identity) or (K, Prox) pairs; x by `cg_iter` warm-started CG
    steps. Returns a :class:`RegResult` (primal_res, dual_res)."""
    _need_linop(op, "A")
    arr, n = _terms(op, terms)
    return _run(lib.kr_admm, op, y, x0, (arr, n), max_iter, tol, progress,
                dict(rho=float(rho), cg_iter=int(cg_iter)))


def pdhg(op, y, terms, x0=None, max_iter=100, tol=1e-6, sigma=0.0, tau=0.0, power_iter=0,
         seed=None, progress=False):
    """Chambolle-Pock primal-dual (theta = 1) for min 1/2 ||A x - y||^2 + sum_j g_j(K_j x);
    terms as :func:`admm`, at most one without K (the primal prox, e.g. :func:`box`).
    sigma, tau: 0 = automatic from power iterations. Returns a :class:`RegResult`."""
    _need_linop(op, "A")
    arr, n = _terms(op, terms)
    return _run(lib.kr_pdhg, op, y, x0, (arr, n), max_iter, tol, progress,
                dict(sigma=float(sigma), tau=float(tau), power_iter=int(power_iter), seed=seed))


# ---- CT ------------------------------------------------------------------------------------

def _ct(f, y, geom, x0, method, ray_factor, progress, **kw):
    from .ct.geometry import as_geometry
    from .ct.projector import projector_opts
    g = as_geometry(geom)
    ya = A.arg(y, "the data", dtypes=(A.KR_F32, A.KR_F64))
    po = projector_opts(method, A.np_dtype(ya.dtype), ray_factor)
    xa = start(ya, x0, g.image_shape, ya.dtype)
    ctx = context(ya, xa)
    o = CtRegOpts()
    lib.kr_ct_reg_opts_default(byref(o))
    for k, v in kw.items():
        setattr(o, k, v)
    n = o.max_iter
    res = (c_double * (max(n, 0) + 1))()
    o.residual = res
    o.warm_start = 1 if x0 is not None else 0
    o.show_progress = 1 if progress else 0
    info = SolveInfo()
    f(ctx.ptr, g.ptr, byref(po), ya.ref(), xa.ref(), byref(o), byref(info))
    r = SolveResult.__new__(SolveResult)
    r.x = xa.obj
    r.iterations = info.iterations
    r.rel_residual = info.rel_residual
    r.converged = bool(info.converged)
    r.history = np.array(res[:info.iterations + 1])
    return r


def os_sart(y, geom, max_iter=20, subsets=10, relax=1.0, nonneg=False, x0=None,
            method="joseph", ray_factor=1, progress=False):
    """OS-SART of data y (sinogram (nviews, det) or projections (nviews, rows, cols); float32 or
    float64, any kind) on the matched projector of `geom`: view v in subset v mod `subsets`;
    subsets=1 is SIRT. Runs where y lives, in y's precision. Returns a
    :class:`kray.linop.SolveResult` (history: ||A x - y|| / ||y|| after each pass)."""
    return _ct(lib.kr_os_sart, y, geom, x0, method, ray_factor, progress,
               max_iter=int(max_iter), subsets=int(subsets), relax=float(relax),
               nonneg=int(bool(nonneg)))


def asd_pocs(y, geom, max_iter=20, subsets=10, relax=1.0, nonneg=True, tv_iter=20,
             alpha=0.002, alpha_red=0.95, r_max=0.95, x0=None, method="joseph", ray_factor=1,
             progress=False):
    """ASD-POCS (Sidky and Pan; TIGRE's adaptive steepest descent): per iteration one OS-SART
    pass, then `tv_iter` normalised TV descent steps of alpha times the data step (alpha
    reduced by alpha_red when the TV step outgrows r_max times the data step). Arguments and
    result as :func:`os_sart`."""
    return _ct(lib.kr_asd_pocs, y, geom, x0, method, ray_factor, progress,
               max_iter=int(max_iter), subsets=int(subsets), relax=float(relax),
               nonneg=int(bool(nonneg)), tv_iter=int(tv_iter), alpha=float(alpha),
               alpha_red=float(alpha_red), r_max=float(r_max))
