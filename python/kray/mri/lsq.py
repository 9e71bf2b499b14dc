"""Least squares for non-Cartesian MRI: the normal operator F^H W F three ways and the Toeplitz
engine (kray/lsq.h).

F rho_m = sum_x rho(x) exp(-2 pi i k_m . x / n) (the DrFT / NUFFT convention), W optional real
weights >= 0 (density compensation). (F^H W F + lambda I) rho = F^H W d are the normal
equations of min ||sqrt(W)(F rho - d)||^2 + lambda ||rho||^2. F^H W F is a convolution with
Q(z) = sum_m W_m exp(+2 pi i k_m . z / n) on the 2x grid, applied by FFTs (Toeplitz).
Images: complex (batch..., *shape), shape (ny, nx) or (nz, ny, nx); trajectories host
(..., 3) float arrays; weights host real arrays of M values.
"""
from ctypes import POINTER, Structure, byref, c_double, c_int, c_int64, c_void_p

from math import prod

import numpy as np

from .._lib import fn, lib, parr, struct
from .. import _array as A
from ..linop import Linop
from .._plan import Plan, choice, place
from ._common import CPLX, REAL, n3, pyshape
from .drft import image_batch
from .traj import as_traj

NORMAL = {"toeplitz": 0, "drft": 1, "nufft": 2}
QMETHOD = {"nufft": 0, "drft": 1}


@struct("kr_lsq_opts")
class LsqOpts(Structure):
    _fields_ = [("dtype", c_int), ("batch", c_int64), ("normal", c_int), ("qmethod", c_int),
                ("eps", c_double)]


fn("kr_lsq_opts_default", [POINTER(LsqOpts)], None)
fn("kr_toeplitz_plan_create", [POINTER(c_void_p), c_void_p, POINTER(c_int64), parr, parr,
                               POINTER(LsqOpts)])
fn("kr_toeplitz_plan_destroy", [c_void_p], None)
fn("kr_toeplitz_execute", [c_void_p, parr, parr])
fn("kr_toeplitz_execute_maps", [c_void_p, parr, parr, parr])
fn("kr_toeplitz_q", [c_void_p, parr])
fn("kr_toeplitz_linop_create", [POINTER(c_void_p), c_void_p, c_int64])
fn("kr_lsq_plan_create", [POINTER(c_void_p), c_void_p, POINTER(c_int64), parr, parr,
                          POINTER(LsqOpts)])
fn("kr_lsq_plan_destroy", [c_void_p], None)
fn("kr_lsq_samples", [c_void_p], c_int64)
fn("kr_lsq_rhs", [c_void_p, parr, parr])
fn("kr_lsq_normal", [c_void_p, parr, parr])
fn("kr_lsq_normal_linop_create", [POINTER(c_void_p), c_void_p])
fn("kr_lsq_linop_create", [POINTER(c_void_p), c_void_p])


def _opts(dtype, batch, normal, qmethod, eps):
    o = LsqOpts()
    lib.kr_lsq_opts_default(byref(o))
    o.dtype = A.dtype_code(dtype, CPLX, "dtype")
    o.batch = batch
    o.normal = choice(normal, NORMAL, "normal")
    o.qmethod = choice(qmethod, QMETHOD, "qmethod")
    o.eps = eps
    return o


def _w(weights):
    return None if weights is None else A.arg(weights, "the weights", dtypes=REAL)


class _ImagePlan(Plan):
    def _create(self, f, shape, traj, weights, dtype, batch, normal, qmethod, eps, device, ctx):
        """Make the C plan with f(&p, ctx, n, traj, weights, &opts); returns traj's Arg."""
        self.shape = pyshape(shape, "the image shape")
        t = as_traj(traj)
        w = _w(weights)
        ctx, kind, dev = place(device, ctx, ())
        o = _opts(dtype, batch, normal, qmethod, eps)
        self._code = o.dtype
        self.batch = max(1, batch)
        p = c_void_p()
        f(byref(p), ctx.ptr, n3(self.shape), t.ref(), w.ref() if w else None, byref(o))
        self._init(p, ctx, kind, dev)
        return t

    def _image_op(self, f, x, out=None):
        """out = f(x) for images x (batch..., *shape)."""
        a, b = self._img_in(x, "the image")
        o = A.output(out, a, a.shape, self._code)
        self._args(a, o)
        A.redim(a, self._kimg(b), "the image")
        A.redim(o, self._kimg(b), "out")
        f(self.ptr, a.ref(), o.ref())
        return A.result(out, o)

    def _kimg(self, b):
        return list(n3(self.shape)) + [prod(b) if b else 1]

    def _img_in(self, x, what):
        a = A.arg(x, what, dtypes=(self._code,))
        b = image_batch(a, self.shape, what)
        return a, b


class ToeplitzPlan(_ImagePlan):
    """The Toeplitz normal operator T = F^H W F for image `shape` and the host trajectory
    `traj` with optional `weights`: Q computed once (qmethod "nufft" at accuracy eps, or
    "drft" exactly), its FFT and FFT plans for `batch` images at a time. Runs on `device`
    (int: CUDA) or the CPU."""
    _destroy = lib.kr_toeplitz_plan_destroy

    def __init__(self, shape, traj, weights=None, dtype=np.complex64, batch=1,
                 qmethod="nufft", eps=0.0, device=None, ctx=None):
        self._create(lib.kr_toeplitz_plan_create, shape, traj, weights, dtype, batch,
                     "toeplitz", qmethod, eps, device, ctx)

    def __call__(self, x, out=None):
        """T x for images x (batch..., *shape) (any batch)."""
        return self._image_op(lib.kr_toeplitz_execute, x, out)

    execute = __call__

    def execute_maps(self, maps, x, out=None):
        """The SENSE normal operator sum_c conj(S_c) T (S_c x): maps (C, *shape), x (*shape)."""
        m = A.arg(maps, "the maps", dtypes=(self._code,))
        cb = image_batch(m, self.shape, "the maps")
        a, b = self._img_in(x, "the image")
        if b:
            raise A.DimensionError("kray: execute_maps takes one image of shape %s, not %s" %
                                   (self.shape, a.shape))
        o = A.output(out, a, a.shape, self._code)
        self._args(m, a, o)
        A.redim(m, self._kimg(cb), "the maps")
        lib.kr_toeplitz_execute_maps(self.ptr, m.ref(), a.ref(), o.ref())
        return A.result(out, o)

    def q(self):
        """The kernel Q on the 2x grid (origin at index n), Python shape of that grid."""
        shape = tuple(2 * s if s > 1 else s for s in self.shape)
        o = A.out(self._like(), shape, self._code)
        self._args(o)
        lib.kr_toeplitz_q(self.ptr, o.ref())
        return o.obj

    def linop(self, batch=None):
        """T as a self-adjoint :class:`~kray.linop.Linop` on (batch, *shape). The operator
        owns the plan: this plan object is closed by the call."""
        p = c_void_p()
        lib.kr_toeplitz_linop_create(byref(p), self.ptr, batch or self.batch)
        self._ptr = None  # the operator owns it now
        return Linop(p, self.ctx)


class LsqPlan(_ImagePlan):
    """Least-squares plan for image `shape`, host trajectory `traj` and optional `weights`:
    normal "toeplitz" (default), "drft" (exact) or "nufft"; qmethod "nufft" or "drft"; eps
    (0 = 1e-4 for complex64, 1e-9 for complex128); batch images per application."""
    _destroy = lib.kr_lsq_plan_destroy

    def __init__(self, shape, traj, weights=None, dtype=np.complex64, batch=1,
                 normal="toeplitz", qmethod="nufft", eps=0.0, device=None, ctx=None):
        t = self._create(lib.kr_lsq_plan_create, shape, traj, weights, dtype, batch, normal,
                         qmethod, eps, device, ctx)
        self.sample_shape = tuple(t.shape[:-1])

    @property
    def samples(self):
        return lib.kr_lsq_samples(self.ptr)

    def rhs(self, kspace):
        """F^H W d for k-space d of (batch, M) or (batch, *sample_shape) values."""
        y = A.arg(kspace, "the k-space", dtypes=(self._code,))
        m = self.samples
        n = prod(y.shape) if y.shape else 1
        bsz = n // m if m else 0
        if bsz * m != n or bsz != self.batch:
            raise A.DimensionError("kray: the k-space has %d values, the plan expects %d "
                                   "(batch %d x %d samples)" % (n, self.batch * m,
                                                               self.batch, m))
        b = (self.batch,) if self.batch > 1 else ()
        o = A.out(y, b + self.shape, self._code)
        self._args(y, o)
        A.redim(y, [m, self.batch], "the k-space")
        A.redim(o, self._kimg(b), "out")
        lib.kr_lsq_rhs(self.ptr, y.ref(), o.ref())
        return o.obj

    def normal(self, x):
        """F^H W F x by the plan's method, x (batch..., *shape)."""
        return self._image_op(lib.kr_lsq_normal, x)

    def normal_linop(self):
        """N = F^H W F as a self-adjoint :class:`~kray.linop.Linop` (keeps the plan alive)."""
        p = c_void_p()
        lib.kr_lsq_normal_linop_create(byref(p), self.ptr)
        return Linop(p, self.ctx, keep=(self,))

    def linop(self):
        """A = diag(sqrt(W)) F as a :class:`~kray.linop.Linop`; its normal is the plan's
        method (keeps the plan alive)."""
        p = c_void_p()
        lib.kr_lsq_linop_create(byref(p), self.ptr)
        return Linop(p, self.ctx, keep=(self,))
