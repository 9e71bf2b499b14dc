"""CG-SENSE: iterative parallel imaging of non-Cartesian multi-coil data (kray/cgsense.h).

Image x: complex64 (ny, nx) or (nz, ny, nx); coil maps S: complex64 (C, *shape); trajectory
(..., 3) in cycles per FOV (host); k-space y: complex64 (C, *traj.shape[:-1]) (or (C, M)).
The encoding operator is (E x)_c = F (S_c x) with kray's unscaled NUFFT F; with density
weights D (M values >= 0, e.g. from kray.mri.traj.dcf) kray solves
(E^H D E + lambda I) x = E^H D y by conjugate gradients (Pruessmann et al. 2001). For data
y = E x the solution is x itself; lambda is in the units of E^H D E.
"""
from ctypes import POINTER, Structure, byref, pointer, c_double, c_int, c_int64, c_void_p

from math import prod

from .._lib import fields, fn, lib, parr, pparr, struct
from .. import _array as A
from ..linop import Linop, SolveInfo, SolveOpts, cg_opts, precond_arg, run_solver
from .._plan import Plan, choice, place
from ._common import C64, REAL, host_out, pyshape
from .drft import image_batch, ksp_batch
from .offres import OffresInfo
from .traj import as_traj

NORMAL = {"nufft": 0, "toeplitz": 1}
PRECOND = {"none": 0, "intensity": 1, "jacobi": 2}


@struct("kr_cgsense_opts")
class CgsenseOpts(Structure):
    _fields_ = [("dcf", parr), ("normal", c_int), ("eps", c_double), ("sigma", c_double),
                ("fieldmap", parr), ("times", parr), ("exact", c_int), ("segments", c_int),
                ("segment_tol", c_double), ("precond", c_int)]


@struct("kr_cgsense_maps_opts")
class MapsOpts(Structure):
    _fields_ = [("calib_radius", c_double), ("threshold", c_double), ("espirit", c_int)]


fn("kr_cgsense_opts_default", [POINTER(CgsenseOpts)], None)
fn("kr_cgsense_plan_create", [POINTER(c_void_p), c_void_p, c_int, POINTER(c_int64), parr, parr,
                              POINTER(CgsenseOpts)])
fn("kr_cgsense_plan_destroy", [c_void_p], None)
fn("kr_cgsense_plan_sizes", [c_void_p, POINTER(c_int64), POINTER(c_int64)])
fn("kr_cgsense_set_fhf", [c_void_p, c_void_p])
fn("kr_cgsense_linop_create", [POINTER(c_void_p), c_void_p])
fn("kr_cgsense_normal_linop_create", [POINTER(c_void_p), c_void_p])
fn("kr_cgsense_rhs", [c_void_p, parr, parr])
fn("kr_cgsense_adjoint_image", [c_void_p, parr, parr])
fn("kr_cgsense_solve", [c_void_p, parr, parr, POINTER(SolveOpts), POINTER(SolveInfo)])
fn("kr_cgsense_maps_opts_default", [POINTER(MapsOpts)], None)
fn("kr_cgsense_estimate_maps", [c_void_p, c_int, POINTER(c_int64), parr, parr, parr,
                                POINTER(MapsOpts), pparr])
fn("kr_cgsense_plan_offres", [c_void_p, POINTER(OffresInfo)])
fn("kr_cgsense_precond_diag", [c_void_p, c_int, c_double, parr])
fn("kr_cgsense_calib_kspace", [c_void_p, c_int, POINTER(c_int64), parr, parr, parr, c_double,
                               c_int, c_int64, pparr])


class CgsensePlan(Plan):
    """CG-SENSE plan for image `shape`, trajectory `traj` (host) and coil maps `maps`
    (complex64 (C, *shape), host or the plan's device; copied). dcf: optional density weights
    (M values); normal "nufft" (NUFFT forward, D, adjoint) or "toeplitz" (kernel Q on the 2x
    grid); eps, sigma: NUFFT accuracy and oversampling. fieldmap (host real, `shape`, Hz) and
    times (host real, M values, s): off-resonance in the encoding, time-segmented (`segments`,
    0 = automatic within `segment_tol`) or exact (exact=True); with "nufft" only. precond:
    "none", "intensity" (Pruessmann's intensity correction) or "jacobi", used by
    :meth:`solve`. Runs where the maps live (or `device`). Do not use one plan from two
    threads at once."""
    _destroy = lib.kr_cgsense_plan_destroy

    def __init__(self, shape, traj, maps, dcf=None, normal="nufft", eps=1e-4, sigma=0.0,
                 device=None, ctx=None, fieldmap=None, times=None, exact=False, segments=0,
                 segment_tol=0.0, precond="none"):
        self.shape = pyshape(shape, "the image shape")
        if len(self.shape) not in (2, 3):
            raise A.DimensionError("kray: the image shape must be (ny, nx) or (nz, ny, nx)")
        t = as_traj(traj)
        m = A.arg(maps, "the coil maps", dtypes=(C64,))
        cb = image_batch(m, self.shape, "the coil maps")
        if len(cb) != 1:
            raise A.DimensionError("kray: the coil maps must be (coils, %s), not %s" %
                                   (", ".join(map(str, self.shape)), m.shape))
        A.redim(m, list(reversed(self.shape)) + [cb[0]], "the coil maps")
        d = None if dcf is None else A.arg(dcf, "the density weights", dtypes=REAL)
        f = None if fieldmap is None else A.arg(fieldmap, "the field map", dtypes=REAL)
        tm = None if times is None else A.arg(times, "the sample times", dtypes=REAL)
        ctx, kind, dev = place(device, ctx, (m,))
        o = CgsenseOpts()
        lib.kr_cgsense_opts_default(byref(o))
        if d is not None:
            o.dcf = pointer(d.c)
        o.normal = choice(normal, NORMAL, "normal")
        o.eps, o.sigma = eps, sigma
        if f is not None:
            o.fieldmap = pointer(f.c)
        if tm is not None:
            o.times = pointer(tm.c)
        o.exact, o.segments, o.segment_tol = int(bool(exact)), int(segments), float(segment_tol)
        o.precond = choice(precond, PRECOND, "precond")
        p = c_void_p()
        lib.kr_cgsense_plan_create(byref(p), ctx.ptr, len(self.shape), A.kdims(self.shape),
                                   t.ref(), m.ref(), byref(o))
        self._init(p, ctx, kind, dev)
        self.sample_shape = tuple(t.shape[:-1])
        self._fhf = None

    @property
    def coils(self):
        c = c_int64()
        lib.kr_cgsense_plan_sizes(self.ptr, byref(c), None)
        return c.value

    @property
    def samples(self):
        m = c_int64()
        lib.kr_cgsense_plan_sizes(self.ptr, None, byref(m))
        return m.value

    @property
    def offres(self):
        """The off-resonance model (dict: segments (0 for the exact model), interp_err, t_min,
        t_max, f_min, f_max; all 0 without a field map)."""
        inf = OffresInfo()
        lib.kr_cgsense_plan_offres(self.ptr, byref(inf))
        return fields(inf)

    def precond_diag(self, kind="jacobi", lam=0.0):
        """The diagonal preconditioner `kind` ("none", "intensity", "jacobi") for Tikhonov
        weight lam: float32 `shape` where the plan lives."""
        d = A.out(self._like(), self.shape, A.KR_F32, "the preconditioner")
        A.redim(d, list(reversed(self.shape)), "the preconditioner")
        self._args(d)
        lib.kr_cgsense_precond_diag(self.ptr, choice(kind, PRECOND, "kind"), float(lam),
                                    d.ref())
        return d.obj

    def set_fhf(self, op):
        """Attach T ~= F^H D F (a :class:`~kray.linop.Linop`, for normal="toeplitz"; e.g.
        ``kray.mri.lsq.ToeplitzPlan(...).linop()``); None detaches."""
        lib.kr_cgsense_set_fhf(self.ptr, op.ptr if op is not None else None)
        self._fhf = op

    def linop(self):
        """The weighted encoding operator D^(1/2) E: domain `shape`, codomain (C, M)."""
        p = c_void_p()
        lib.kr_cgsense_linop_create(byref(p), self.ptr)
        return Linop(p, self.ctx, keep=(self,))

    def normal_linop(self):
        """E^H D E (Hermitian, on `shape`) by the plan's normal method."""
        p = c_void_p()
        lib.kr_cgsense_normal_linop_create(byref(p), self.ptr)
        return Linop(p, self.ctx, keep=(self,))

    def _ksp(self, kspace):
        y = A.arg(kspace, "the k-space", dtypes=(C64,))
        b = ksp_batch(y, self.sample_shape, "the k-space")
        if prod(b) != self.coils:
            raise A.DimensionError("kray: the k-space has %d coils, the maps %d" %
                                   (prod(b), self.coils))
        A.redim(y, [self.samples, self.coils], "the k-space")
        return y

    def _img(self, y, x=None, what="x"):
        o = A.out(y, self.shape, C64) if x is None else A.arg(x, what, dtypes=(C64,))
        A.redim(o, list(reversed(self.shape)), what)
        return o

    def _image_of(self, f, kspace):
        y = self._ksp(kspace)
        o = self._img(y)
        self._args(y, o)
        f(self.ptr, y.ref(), o.ref())
        return o.obj

    def rhs(self, kspace):
        """b = E^H D y (image `shape`)."""
        return self._image_of(lib.kr_cgsense_rhs, kspace)

    def adjoint_image(self, kspace):
        """The gridding reconstruction (E^H D y) / (prod(N) sum_c |S_c|^2)."""
        return self._image_of(lib.kr_cgsense_adjoint_image, kspace)

    def solve(self, kspace, lam=0.0, max_iter=30, tol=1e-4, x0=None, progress=False,
              precond=None):
        """CG-SENSE: (E^H D E + lam I) x = E^H D y. Returns a
        :class:`~kray.linop.SolveResult` (x, iterations, rel_residual, converged, history);
        x0 (not modified) warm-starts. precond: a diagonal preconditioner array (float32
        `shape`, e.g. :meth:`precond_diag`), else the plan's choice."""
        y = self._ksp(kspace)
        o = self._img(y, None if x0 is None else A.copy_of(x0), "x0")
        pa = precond_arg(precond, C64)
        self._args(*((y, o) if pa is None else (y, o, pa)))
        so = cg_opts(lam)
        if pa is not None:
            so.precond = pointer(pa.c)
        return run_solver(lib.kr_cgsense_solve, (self.ptr,), y, o, so, max_iter, tol,
                          x0 is not None, progress)


def _samples(shape, traj, kspace, dcf):
    """The image shape, trajectory, k-space (as (M, C)), its coil shape and the weights of the
    map estimates (host arrays)."""
    shape = pyshape(shape, "the image shape")
    t = as_traj(traj)
    y = A.arg(kspace, "the k-space", dtypes=(C64,))
    b = ksp_batch(y, tuple(t.shape[:-1]), "the k-space")
    A.redim(y, [prod(t.shape[:-1]), prod(b)], "the k-space")
    d = None if dcf is None else A.arg(dcf, "the density weights", dtypes=REAL)
    return shape, t, y, b, d


def estimate_maps(shape, traj, kspace, dcf=None, calib_radius=12.0, threshold=0.0,
                  espirit=False, ctx=None):
    """Coil maps (complex64 (C, *shape), host) from the data's own k-space centre:
    low-resolution coil images (window radius `calib_radius` cycles per FOV) over their
    root sum of squares, zero below threshold * max; espirit=True (2-D or 3-D, dcf optional):
    ESPIRiT on the calibration region |k| < calib_radius of :func:`calib_kspace` (with dcf:
    gridding on the image grid; without: the least-squares fit), on the ctx's backend."""
    shape, t, y, b, d = _samples(shape, traj, kspace, dcf)
    o = MapsOpts()
    lib.kr_cgsense_maps_opts_default(byref(o))
    o.calib_radius, o.threshold, o.espirit = calib_radius, threshold, int(bool(espirit))
    p = POINTER(A.KrArray)()
    lib.kr_cgsense_estimate_maps(ctx.ptr if ctx is not None else None, len(shape),
                                 A.kdims(shape), t.ref(), y.ref(), d.ref() if d else None,
                                 byref(o), byref(p))
    m = host_out(p, y)
    return m.reshape((prod(b),) + shape)


def calib_kspace(shape, traj, kspace, dcf=None, calib_radius=12.0, iters=30, grid=0,
                 device=None, ctx=None):
    """Cartesian calibration k-space (complex64 (C, *shape), host; zero outside
    |k| < calib_radius per axis) fitted to the samples near the k-space centre by least squares
    on a grid of `grid` points per axis (0 = 2 ceil(calib_radius) + 8; `iters` CG iterations,
    1 = density-compensated gridding), ready for :func:`kray.mri.sense.espirit`. Trajectory,
    k-space and weights on the host; the fit runs on `device` (int: CUDA) or the CPU."""
    shape, t, y, b, d = _samples(shape, traj, kspace, dcf)
    ctx, _, _ = place(device, ctx, ())
    p = POINTER(A.KrArray)()
    lib.kr_cgsense_calib_kspace(ctx.ptr, len(shape), A.kdims(shape), t.ref(), y.ref(),
                                d.ref() if d else None, float(calib_radius), int(iters),
                                int(grid), byref(p))
    k = host_out(p, y)
    return k.reshape((prod(b),) + shape)
