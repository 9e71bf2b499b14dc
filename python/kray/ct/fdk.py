"""Cone-beam FDK reconstruction (kray/fdk.h).

Projections (nviews, rows, cols) of line integrals, float32; volume (nz, ny, nx) in 1/mm.
CPU plans take host arrays; CUDA plans (device=N) take host or device arrays (host ones are
streamed through the GPU in batches within gpu_mem bytes).
"""
from ctypes import POINTER, Structure, byref, c_char_p, c_double, c_int, c_int64, c_void_p

import numpy as np

from .._lib import fields, fn, lib, parr, struct
from .. import _array as A
from .geometry import View, _grid, _views, as_geometry
from .fbp import filter_code, window_code, _short
from .._plan import Plan, bind, ctx_for, float_code
from .._staging import pin


@struct("kr_fdk_opts")
class FdkOpts(Structure):
    _fields_ = [("filter", c_int), ("window", c_int), ("cutoff", c_double),
                ("short_scan", c_int), ("dtype", c_int), ("gpu_mem", c_int64),
                ("batch_views", c_int64), ("slab_z", c_int64)]


@struct("kr_fdk_info")
class FdkInfo(Structure):
    _fields_ = [("short_scan", c_int), ("arc_deg", c_double), ("fan_deg", c_double),
                ("fov_warning", c_int), ("fast_path", c_int), ("slabs", c_int64),
                ("slab_z", c_int64), ("batch_views", c_int64), ("device_bytes", c_int64),
                ("kernel", c_char_p), ("t_filter_s", c_double), ("t_backproject_s", c_double)]


fn("kr_fdk_opts_default", [POINTER(FdkOpts)], None)
fn("kr_fdk_plan_create", [POINTER(c_void_p), c_void_p, c_void_p, POINTER(FdkOpts)])
fn("kr_fdk_plan_create_views", [POINTER(c_void_p), c_void_p, c_int64, c_int64, POINTER(View),
                                c_int64, c_void_p, POINTER(FdkOpts)])
fn("kr_fdk_plan_destroy", [c_void_p], None)
fn("kr_fdk_execute", [c_void_p, parr, parr])
fn("kr_fdk_backproject", [c_void_p, parr, parr])
fn("kr_fdk_plan_info", [c_void_p, POINTER(FdkInfo)])
fn("kr_fdk", [c_void_p, c_void_p, POINTER(FdkOpts), parr, parr])
fn("kr_fdk_views", [c_void_p, c_int64, c_int64, POINTER(View), c_int64, c_void_p,
                    POINTER(FdkOpts), parr, parr])


def fdk_opts(filter="fft", window="ramlak", cutoff=1.0, short_scan="auto", gpu_mem=0,
             batch_views=0, slab_z=0):
    o = FdkOpts()
    lib.kr_fdk_opts_default(byref(o))
    o.filter = filter_code(filter)
    o.window = window_code(window)
    o.cutoff = float(cutoff)
    o.short_scan = _short(short_scan)
    o.dtype = float_code(np.float32)
    o.gpu_mem, o.batch_views, o.slab_z = int(gpu_mem), int(batch_views), int(slab_z)
    return o


class FdkPlan(Plan):
    """An FDK plan (kr_fdk_plan) for a cone geometry (types cone, cone-vec), or for views
    given as arrays with :meth:`from_views`. filter "fft" (window, cutoff), "direct" or
    "seed"; short_scan "auto", "on" (Parker) or "off"; device None (CPU) or a CUDA ordinal;
    gpu_mem (bytes, 0 = auto), batch_views and slab_z (0 = auto) bound the CUDA working set.
    One execute at a time per plan. CUDA plans take host or device arrays (host
    projections are streamed through the plan's page-locked buffers; a host volume passed as
    `out` again is page-locked, see kray._staging)."""
    _destroy = lib.kr_fdk_plan_destroy
    _host_ok = True

    def __init__(self, geom=None, filter="fft", window="ramlak", cutoff=1.0, short_scan="auto",
                 device=None, gpu_mem=0, batch_views=0, slab_z=0, _from_views=None):
        o = fdk_opts(filter, window, cutoff, short_scan, gpu_mem, batch_views, slab_z)
        ctx = ctx_for(device)
        p = c_void_p()
        if _from_views is None:
            g = as_geometry(geom)
            self.image_shape, self.sino_shape = g.image_shape, g.sino_shape
            lib.kr_fdk_plan_create(byref(p), ctx.ptr, g.ptr, byref(o))
        else:
            nu, nv, vs, n, grid = _from_views
            self.sino_shape = (n, nv, nu)
            self.image_shape = _grid_shape(grid)
            lib.kr_fdk_plan_create_views(byref(p), ctx.ptr, nu, nv, vs, n, byref(grid),
                                         byref(o))
        self._init(p, ctx)

    @classmethod
    def from_views(cls, det_shape, src, det, u, v, volume_shape, voxel_mm=1.0,
                   offset_mm=(0.0, 0.0, 0.0), **opts):
        """A plan for views given as (nviews, 3) arrays: source src, detector centre det and
        pixel vectors u, v (mm); detector det_shape (rows, cols); the volume grid."""
        rows, cols = (int(x) for x in det_shape)
        vs, n = _views("cone-vec", 3, {"src": src, "det": det, "u": u, "v": v})
        grid = _grid(volume_shape, voxel_mm, offset_mm, 3)
        return cls(None, _from_views=(cols, rows, vs, n, grid), **opts)

    def _fdk(self, f, proj, out):
        pa = A.arg(proj, "the projections", dtypes=(A.KR_F32,))
        oa = A.output(out, pa, self.image_shape, A.KR_F32)
        self._args(pa, oa)
        if self.on_device:
            pin(oa)   # a host volume reused as `out` is copied into page-locked memory
        f(self.ptr, pa.ref(), oa.ref())
        return A.result(out, oa)

    def execute(self, proj, out=None):
        """The volume (nz, ny, nx) in 1/mm from projections (nviews, rows, cols), float32,
        same kind as proj (or `out`, filled)."""
        return self._fdk(lib.kr_fdk_execute, proj, out)

    __call__ = execute

    def backproject(self, proj, out=None):
        """FDK's distance-weighted voxel-driven backprojection of projections that are
        already weighted and filtered (no view weights, no scaling); not an adjoint."""
        return self._fdk(lib.kr_fdk_backproject, proj, out)

    @property
    def info(self):
        """dict: short_scan, arc_deg, fan_deg, fov_warning, fast_path, slabs, slab_z,
        batch_views, device_bytes, kernel, t_filter_s, t_backproject_s."""
        i = FdkInfo()
        lib.kr_fdk_plan_info(self.ptr, byref(i))
        d = fields(i)
        d["short_scan"], d["fast_path"] = bool(i.short_scan), bool(i.fast_path)
        d["kernel"] = (i.kernel or b"").decode()
        return d


def _grid_shape(grid):
    return tuple(grid.n[2 - i] for i in range(3))


def _one_call(f, proj, shape, device, out, args):
    """FDK without a plan: f(ctx, *args(proj Arg), proj, vol) on `device`, else where proj
    lives."""
    pa = A.arg(proj, "the projections", dtypes=(A.KR_F32,))
    oa = A.output(out, pa, shape, A.KR_F32)
    ctx = ctx_for(device if device is not None else A.device_of(pa))
    bind(ctx, ctx.device if ctx.is_cuda else -1, (pa, oa), "FDK", host_ok=True)
    f(ctx.ptr, *args(pa), pa.ref(), oa.ref())
    return A.result(out, oa)


def fdk(proj, geom, filter="fft", window="ramlak", cutoff=1.0, short_scan="auto", device=None,
        gpu_mem=0, batch_views=0, slab_z=0, out=None):
    """FDK reconstruction of projections (nviews, rows, cols), float32, for a cone geometry;
    returns the volume (nz, ny, nx) in 1/mm, same kind as proj. Runs where proj lives, or on
    CUDA device `device` (host projections are then streamed through the GPU)."""
    g = as_geometry(geom)
    o = fdk_opts(filter, window, cutoff, short_scan, gpu_mem, batch_views, slab_z)
    return _one_call(lib.kr_fdk, proj, g.image_shape, device, out,
                     lambda pa: (g.ptr, byref(o)))


def fdk_views(proj, src, det, u, v, volume_shape, voxel_mm=1.0, offset_mm=(0.0, 0.0, 0.0),
              filter="fft", window="ramlak", cutoff=1.0, short_scan="auto", device=None,
              gpu_mem=0, batch_views=0, slab_z=0, out=None):
    """FDK for per-view vectors src, det, u, v ((nviews, 3) arrays, mm); the detector size is
    that of proj (nviews, rows, cols). Returns the volume (nz, ny, nx)."""
    vs, n = _views("cone-vec", 3, {"src": src, "det": det, "u": u, "v": v})
    grid = _grid(volume_shape, voxel_mm, offset_mm, 3)
    o = fdk_opts(filter, window, cutoff, short_scan, gpu_mem, batch_views, slab_z)

    def args(pa):
        if len(pa.shape) != 3:
            raise A.DimensionError("kray: FDK projections have shape (nviews, rows, cols), "
                                   "not %s" % (pa.shape,))
        return pa.shape[2], pa.shape[1], vs, n, byref(grid), byref(o)
    return _one_call(lib.kr_fdk_views, proj, _grid_shape(grid), device, out, args)
