"""CT projectors (kray/ct.h): matched forward and back projectors in 2-D and 3-D, as plans and
as :class:`kray.linop.Linop` operators, the voxel-driven backprojection operator, exact
phantom projections, SIRT plans and CGLS.

Shapes (Python order): 2-D images (ny, nx) or a batch (nb, ny, nx) and sinograms (nviews, det)
or (nb, nviews, det); volumes (nz, ny, nx) and projections (nviews, rows, cols). Values: the
image in 1/mm gives dimensionless line integrals (mm x image value).
"""
from ctypes import POINTER, Structure, byref, c_char_p, c_double, c_int, c_int64, c_void_p

import numpy as np

from .._lib import fn, lib, parr, struct, InvalidArgumentError
from .._ctx import cpu_context
from .._plan import Plan, choice, ctx_for, float_code
from .. import _array as A
from ..linop import Linop, SolveInfo, run_solver, start
from ..phantom import KINDS
from .geometry import as_geometry, name_code

METHODS = ("joseph", "siddon")


@struct("kr_ct_projector_opts")
class ProjectorOpts(Structure):
    _fields_ = [("method", c_int), ("dtype", c_int), ("ray_factor", c_int)]


@struct("kr_sirt_opts")
class SirtOpts(Structure):
    _fields_ = [("max_iter", c_int), ("tol", c_double), ("relax", c_double), ("nonneg", c_int),
                ("warm_start", c_int), ("history", POINTER(c_double)), ("show_progress", c_int)]


fn("kr_ct_method_name", [c_int], c_char_p)
fn("kr_ct_method_from_name", [c_char_p, POINTER(c_int)])
fn("kr_ct_projector_opts_default", [POINTER(ProjectorOpts)], None)
fn("kr_ct_projector_plan_create", [POINTER(c_void_p), c_void_p, c_void_p,
                                   POINTER(ProjectorOpts)])
fn("kr_ct_projector_plan_destroy", [c_void_p], None)
fn("kr_ct_projector_forward", [c_void_p, parr, parr])
fn("kr_ct_projector_adjoint", [c_void_p, parr, parr])
fn("kr_ct_projector_geom", [c_void_p], c_void_p)
fn("kr_ct_linop_create", [POINTER(c_void_p), c_void_p, c_void_p, POINTER(ProjectorOpts)])
fn("kr_ct_voxel_bp_linop_create", [POINTER(c_void_p), c_void_p, c_void_p, c_int64])
fn("kr_ct_phantom_projections", [POINTER(POINTER(A.KrArray)), c_void_p, c_void_p, c_int, c_int,
                                 c_int])
fn("kr_sirt_opts_default", [POINTER(SirtOpts)], None)
fn("kr_sirt_plan_create", [POINTER(c_void_p), c_void_p, c_void_p])
fn("kr_sirt_plan_create_pair", [POINTER(c_void_p), c_void_p, c_void_p, c_void_p])
fn("kr_sirt_plan_destroy", [c_void_p], None)
fn("kr_sirt_execute", [c_void_p, parr, parr, POINTER(SirtOpts), POINTER(SolveInfo)])


def method_code(name):
    return name_code(lib.kr_ct_method_from_name, name, "the method", METHODS)


def method_name(code):
    return lib.kr_ct_method_name(code).decode()


def projector_opts(method="joseph", dtype=np.float32, ray_factor=1):
    o = ProjectorOpts()
    lib.kr_ct_projector_opts_default(byref(o))
    o.method = method_code(method)
    o.dtype = float_code(dtype)
    o.ray_factor = int(ray_factor)
    return o


class Projector(Plan):
    """A projector plan (kr_ct_projector_plan) for a geometry: :meth:`forward` (line
    integrals) and :meth:`adjoint` (its exact transpose, the matched backprojector).

    method: "joseph" or "siddon"; dtype: float32 or float64 (arrays must have it); ray_factor:
    k x k sub-rays per detector pixel (cone beam). device: None for the CPU, a CUDA ordinal
    (arrays must then live on that device)."""
    _destroy = lib.kr_ct_projector_plan_destroy

    def __init__(self, geom, method="joseph", dtype=np.float32, ray_factor=1, device=None):
        g = as_geometry(geom)
        ctx = ctx_for(device)
        o = projector_opts(method, dtype, ray_factor)
        self._code = o.dtype
        self.dtype = A.np_dtype(o.dtype)
        self.method = method
        self.image_shape = g.image_shape
        self.sino_shape = g.sino_shape
        p = c_void_p()
        lib.kr_ct_projector_plan_create(byref(p), ctx.ptr, g.ptr, byref(o))
        self._init(p, ctx)

    @property
    def geometry(self):
        """A copy of the plan's geometry."""
        from .geometry import Geometry
        p = c_void_p()
        lib.kr_ct_geom_clone(byref(p), lib.kr_ct_projector_geom(self.ptr))
        return Geometry(p)

    def _project(self, f, x, in_shape, out_shape, out, what):
        def shape(xs):
            batch = xs[:-len(in_shape)] if len(xs) > len(in_shape) else ()
            if len(in_shape) == 3 and batch:
                raise A.DimensionError("kray: cone-beam projectors take one volume at a time")
            return tuple(batch) + tuple(out_shape)
        return self._run(f, x, what, shape, out, self._code)

    def forward(self, image, out=None):
        """Line integrals of `image` ((ny, nx), (nb, ny, nx) or (nz, ny, nx)); returns the
        sinogram (nviews, det) / (nb, nviews, det) or projections (nviews, rows, cols)."""
        return self._project(lib.kr_ct_projector_forward, image, self.image_shape, self.sino_shape,
                         out, "the image")

    __call__ = forward

    def adjoint(self, sino, out=None):
        """The matched backprojection A^T sino (the exact transpose of :meth:`forward`)."""
        return self._project(lib.kr_ct_projector_adjoint, sino, self.sino_shape, self.image_shape,
                         out, "the sinogram")

    backproject = adjoint


def operator(geom, method="joseph", dtype=np.float32, ray_factor=1, device=None):
    """The projector as a :class:`kray.linop.Linop` (shape_in = image shape, shape_out =
    sinogram / projection shape; adjoint = the matched backprojector), usable by
    :func:`kray.cgls`, :class:`Sirt` and :mod:`kray.torch`."""
    g = as_geometry(geom)
    ctx = ctx_for(device)
    o = projector_opts(method, dtype, ray_factor)
    p = c_void_p()
    lib.kr_ct_linop_create(byref(p), ctx.ptr, g.ptr, byref(o))
    return Linop(p, ctx)


def voxel_bp_operator(geom, device=None, gpu_mem=0):
    """The voxel-driven backprojector B of a cone geometry as a Linop (forward only: domain
    the projections (nviews, rows, cols), codomain the volume (nz, ny, nx), float32): FDK's
    kernel weighted by the density of rays, an approximation of the projectors' transpose
    (for :class:`Sirt`'s `backprojector`). Its adjoint raises NotSupportedError. gpu_mem:
    CUDA working-memory budget in bytes (0 = auto)."""
    g = as_geometry(geom)
    ctx = ctx_for(device)
    p = c_void_p()
    lib.kr_ct_voxel_bp_linop_create(byref(p), ctx.ptr, g.ptr, int(gpu_mem))
    return Linop(p, ctx)


def phantom_projections(geom, kind="modified", ray_factor=1, dtype=np.float32):
    """Exact projections (nviews, rows, cols) of the 3-D Shepp-Logan phantom stretched over
    the cone geometry's volume box (mean over ray_factor^2 sub-rays, mm x density); NumPy."""
    g = as_geometry(geom)
    p = POINTER(A.KrArray)()
    lib.kr_ct_phantom_projections(byref(p), cpu_context().ptr, g.ptr,
                                  choice(kind, KINDS, "the phantom kind"), int(ray_factor),
                                  float_code(dtype))
    return A.adopt(p)


class Sirt(Plan):
    """A SIRT plan on operator A (a projector :func:`operator`, f32 or f64, CPU or CUDA):
    x <- x + relax C B R (y - A x), R = 1 / (A 1), C = 1 / (B 1), with B = A^T or the given
    `backprojector` operator (e.g. :func:`voxel_bp_operator`). The weights are computed once
    here; :meth:`run` iterates."""
    _destroy = lib.kr_sirt_plan_destroy

    def __init__(self, A_op, backprojector=None):
        if not isinstance(A_op, Linop) or (backprojector is not None and
                                           not isinstance(backprojector, Linop)):
            raise InvalidArgumentError("kray: Sirt needs kray Linop operators")
        self.op = A_op
        self.bp = backprojector
        p = c_void_p()
        if backprojector is None:
            lib.kr_sirt_plan_create(byref(p), A_op.ctx.ptr, A_op.ptr)
        else:
            lib.kr_sirt_plan_create_pair(byref(p), A_op.ctx.ptr, A_op.ptr, backprojector.ptr)
        self._init(p, A_op.ctx, None, A_op.device)

    def run(self, y, x0=None, max_iter=50, tol=0.0, relax=1.0, nonneg=False, progress=False):
        """Reconstruct from data y (A's output shape and dtype); x0 (not modified) warm-starts.
        Returns a :class:`kray.linop.SolveResult` (x, iterations, rel_residual = ||y - A x||
        / ||y||, converged, history)."""
        p = self.ptr
        op = self.op
        ya = A.arg(y, "the data", dtypes=(op._code,))
        xa = start(ya, x0, op.shape_in, op._code)
        self._args(ya, xa)
        o = SirtOpts()
        lib.kr_sirt_opts_default(byref(o))
        o.relax = float(relax)
        o.nonneg = 1 if nonneg else 0
        return run_solver(lib.kr_sirt_execute, (p,), ya, xa, o, max_iter, tol, x0 is not None,
                          progress)


def _data_operator(y, geom, method, ray_factor):
    """(Arg of data y, the projector operator of `geom` in y's precision where y lives, that
    place as a device argument)."""
    ya = A.arg(y, "the data", dtypes=(A.KR_F32, A.KR_F64))
    dev = A.device_of(ya)
    return ya, operator(geom, method, A.np_dtype(ya.dtype), ray_factor, dev), dev


def sirt(y, geom, max_iter=50, tol=0.0, relax=1.0, nonneg=False, x0=None, method="joseph",
         ray_factor=1, backprojector="matched", gpu_mem=0, progress=False):
    """SIRT of data y (sinogram or projections, any kind; float32 or float64) on the matched
    projector pair of `geom` (or with backprojector="voxel" the voxel-driven B, float32 cone
    beam). Runs where y lives. Returns a :class:`kray.linop.SolveResult`."""
    ya, op, dev = _data_operator(y, geom, method, ray_factor)
    if backprojector not in ("matched", "voxel"):
        raise InvalidArgumentError("kray: backprojector is 'matched' or 'voxel', not %r" %
                                   (backprojector,))
    bp = voxel_bp_operator(geom, dev, gpu_mem) if backprojector == "voxel" else None
    with Sirt(op, bp) as s:
        return s.run(ya.obj, x0, max_iter, tol, relax, nonneg, progress)


def cgls(y, geom, max_iter=20, tol=0.0, lam=0.0, x0=None, method="joseph", ray_factor=1,
         progress=False):
    """CGLS for min ||A x - y||^2 + lam ||x||^2 on the matched projector of `geom`
    (:func:`kray.linop.cgls` on :func:`operator`), where y lives, in y's precision."""
    from ..linop import cgls as _cgls
    ya, op, _ = _data_operator(y, geom, method, ray_factor)
    return _cgls(op, ya.obj, x0=x0, max_iter=max_iter, tol=tol, lam=lam, progress=progress)
