"""Non-uniform FFT plans, 2-D and 3-D, CPU and CUDA (kray/nufft.h).

Same conventions as the DrFT (kray.mri.drft): image shape (ny, nx) or (nz, ny, nx) (Python
order), pixel x = index - N/2, k in cycles per FOV, no scaling and no density compensation:

* forward (type 2)  y_m  = sum_x f(x) exp(-2 pi i k_m . x / N)
* adjoint (type 1)  f(x) = sum_m y_m exp(+2 pi i k_m . x / N)

accurate to the relative l2 error `eps` against the direct sums. Set the points once
(:meth:`NufftPlan.set_points`, trajectory of Python shape (..., 3) or (..., 2) for 2-D), then
execute many times; `batch` transforms (coils, frames) share the points: images
(batch, *shape), k-space (batch, *traj.shape[:-1]).
"""
from ctypes import POINTER, Structure, byref, c_double, c_int, c_int64, c_void_p

from math import prod

import numpy as np

from .._lib import InvalidArgumentError, fn, lib, parr, struct
from .. import _array as A
from ..linop import Linop
from .._plan import Plan, place
from ._common import CPLX, pyshape
from .drft import image_batch, ksp_batch
from .traj import as_traj


@struct("kr_nufft_opts")
class NufftOpts(Structure):
    _fields_ = [("dtype", c_int), ("eps", c_double), ("sigma", c_double), ("batch", c_int64),
                ("width", c_int), ("check_finite", c_int), ("gpu_max_subprob", c_int),
                ("gpu_max_batch", c_int), ("gpu_bin", c_int * 3)]


@struct("kr_nufft_info")
class NufftInfo(Structure):
    _fields_ = [("ndim", c_int), ("dims", c_int64 * 3), ("grid", c_int64 * 3),
                ("batch", c_int64), ("npoints", c_int64), ("dtype", c_int), ("backend", c_int),
                ("eps", c_double), ("sigma", c_double), ("width", c_int), ("beta", c_double),
                ("degree", c_int)]


fn("kr_nufft_opts_default", [POINTER(NufftOpts)], None)
fn("kr_nufft_plan_create", [POINTER(c_void_p), c_void_p, c_int, POINTER(c_int64),
                            POINTER(NufftOpts)])
fn("kr_nufft_set_points", [c_void_p, parr])
fn("kr_nufft_forward", [c_void_p, parr, parr])
fn("kr_nufft_adjoint", [c_void_p, parr, parr])
fn("kr_nufft_plan_destroy", [c_void_p], None)
fn("kr_nufft_plan_info", [c_void_p, POINTER(NufftInfo)])
fn("kr_nufft_linop_create", [POINTER(c_void_p), c_void_p])

_BACKENDS = {0: "auto", 1: "cpu-serial", 2: "cpu", 3: "cuda"}


class NufftPlan(Plan):
    """A NUFFT plan for images of Python shape `shape` ((ny, nx) or (nz, ny, nx), each >= 2).

    dtype complex64 (eps in [1e-6, 0.1]) or complex128 (eps down to 1e-14); sigma: grid
    oversampling in [1.25, 3] (0 = 2); batch: transforms per call sharing the points; width:
    kernel width (0 = from eps); check_finite: reject NaN/Inf inputs; gpu_*: CUDA tuning.
    `points` (optional) calls :meth:`set_points`. Runs on `device` (int: CUDA device; None:
    where `points` lives, else the CPU). Do not use one plan from two threads at once."""
    _destroy = lib.kr_nufft_plan_destroy

    def __init__(self, shape, points=None, dtype=np.complex64, eps=1e-4, sigma=0.0, batch=1,
                 width=0, check_finite=True, gpu_max_subprob=0, gpu_max_batch=0,
                 gpu_bin=(0, 0, 0), device=None, ctx=None):
        self.shape = pyshape(shape, "the image shape")
        if len(self.shape) not in (2, 3):
            raise A.DimensionError("kray: a NUFFT image shape is (ny, nx) or (nz, ny, nx), "
                                   "not %r" % (self.shape,))
        t = as_traj(points, "the points") if points is not None else None
        ctx, kind, dev = place(device, ctx, (t,))
        o = NufftOpts()
        lib.kr_nufft_opts_default(byref(o))
        o.dtype = A.dtype_code(dtype, CPLX, "dtype")
        o.eps, o.sigma, o.batch, o.width = eps, sigma, batch, width
        o.check_finite = int(bool(check_finite))
        o.gpu_max_subprob, o.gpu_max_batch = gpu_max_subprob, gpu_max_batch
        for i in range(3):
            o.gpu_bin[i] = gpu_bin[i]
        self._code = o.dtype
        self._codes = (o.dtype,)
        self.dtype = A.np_dtype(o.dtype)
        self.batch = max(1, batch)
        p = c_void_p()
        lib.kr_nufft_plan_create(byref(p), ctx.ptr, len(self.shape), A.kdims(self.shape),
                                 byref(o))
        self._init(p, ctx, kind, dev)
        self.sample_shape = None
        if t is not None:
            self._set(t)

    def _set(self, t):
        lib.kr_nufft_set_points(self.ptr, t.ref())
        self.sample_shape = tuple(t.shape[:-1])
        # kray dims of one call's k-space and image: (samples..., batch), (x, y(, z), batch);
        # the Python shapes of the usual operands (batch axis only when batch > 1)
        self._kksp = tuple(reversed(self.sample_shape)) + (self.batch,)
        self._kimg = tuple(reversed(self.shape)) + (self.batch,)
        b = (self.batch,) if self.batch > 1 else ()
        self._b, self._pimg, self._pksp = b, b + self.shape, b + self.sample_shape

    def set_points(self, points):
        """Set (or replace) the non-uniform points: Python shape (..., 3) (or (..., 2) for a
        2-D plan), float32/float64, host or the plan's device; copied. k in [-N/2, N/2]."""
        self._set(as_traj(points, "the points"))
        return self

    @property
    def info(self):
        """dict of kr_nufft_info: ndim, shape and grid (Python order), batch, npoints, dtype,
        backend, eps, sigma (effective), width, beta, degree."""
        i = NufftInfo()
        lib.kr_nufft_plan_info(self.ptr, byref(i))
        nd = i.ndim
        return {"ndim": nd, "shape": tuple(i.dims[nd - 1 - d] for d in range(nd)),
                "grid": tuple(i.grid[nd - 1 - d] for d in range(nd)), "batch": i.batch,
                "npoints": i.npoints, "dtype": A.np_dtype(i.dtype),
                "backend": _BACKENDS.get(i.backend, i.backend), "eps": i.eps,
                "sigma": i.sigma, "width": i.width, "beta": i.beta, "degree": i.degree}

    def _need_points(self):
        if self.sample_shape is None:
            raise InvalidArgumentError("kray: the NUFFT plan has no points; call set_points "
                                       "first")

    def _bshape(self, b):
        if prod(b) != self.batch:
            raise A.DimensionError("kray: the batch shape %s has %d members, the plan %d" %
                                   (b, prod(b), self.batch))
        return b

    def _out(self, like, shape, out):
        """The output Arg (new, of `shape`, like Arg `like`; or the caller's `out`), with the
        operands checked against the plan's place."""
        o = A.out(like, shape, self._code) if out is None else A.arg(out, "out", self._codes)
        if self.device >= 0 or like.device >= 0 or o.device >= 0:   # else all on the host
            self._args(like, o)
        return o

    def forward(self, image, out=None):
        """k-space (batch..., *points.shape[:-1]) of image (batch..., *shape)."""
        if self.sample_shape is None:
            self._need_points()
        x = A.arg(image, "the image", self._codes)
        b = self._b if x.shape == self._pimg else \
            self._bshape(image_batch(x, self.shape, "the image"))
        o = self._out(x, b + self.sample_shape, out)
        if self.batch > 1 or out is not None:
            A.redim(o, self._kksp, "out")
        lib.kr_nufft_forward(self._ptr or self.ptr, x.r, o.r)
        return o.obj if out is None else out

    def adjoint(self, kspace, out=None):
        """Image (batch..., *shape) of k-space (batch..., *points.shape[:-1])."""
        if self.sample_shape is None:
            self._need_points()
        y = A.arg(kspace, "the k-space", self._codes)
        b = self._b if y.shape == self._pksp else \
            self._bshape(ksp_batch(y, self.sample_shape, "the k-space"))
        o = self._out(y, b + self.shape, out)
        A.redim(y, self._kksp, "the k-space")
        A.redim(o, self._kimg, "out")
        lib.kr_nufft_adjoint(self._ptr or self.ptr, y.r, o.r)
        return o.obj if out is None else out

    def linop(self):
        """The plan as a :class:`~kray.linop.Linop` (domain (batch, *shape), codomain
        (batch, M)); it keeps the plan alive. Do not change the number of points while it
        is in use."""
        self._need_points()
        p = c_void_p()
        lib.kr_nufft_linop_create(byref(p), self.ptr)
        return Linop(p, self.ctx, keep=(self,))


def nufft(image, points, ndim=2, eps=1e-4, **kw):
    """One forward NUFFT (type 2): k-space of `image` (batch..., *shape) at `points`; the last
    `ndim` (2 or 3) axes of the image are the image."""
    x = A.arg(image, "the image", dtypes=CPLX)
    nd = ndim
    shape = tuple(x.shape[-nd:])
    b = prod(x.shape[:-nd])
    with NufftPlan(shape, points, dtype=A.np_dtype(x.dtype), eps=eps, batch=b, **kw) as p:
        return p.forward(image)


def nufft_adjoint(kspace, points, shape, eps=1e-4, **kw):
    """One adjoint NUFFT (type 1): image (batch..., *shape) of `kspace` at `points`."""
    y = A.arg(kspace, "the k-space", dtypes=CPLX)
    t = as_traj(points, "the points")
    b = prod(ksp_batch(y, tuple(t.shape[:-1]), "the k-space"))
    with NufftPlan(shape, points, dtype=A.np_dtype(y.dtype), eps=eps, batch=b, **kw) as p:
        return p.adjoint(kspace)
