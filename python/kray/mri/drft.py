"""The direct (non-uniform) Fourier transform, kray's exact reference (kray/drft.h).

Image shape n = (ny, nx) or (nz, ny, nx) (Python order), pixel coordinates x = index - N/2, k in
cycles per FOV (trajectory of Python shape (..., samples, 3)):

* forward  d_m  = phi_m sum_x rho(x) exp(-2 pi i k_m . x / n)
* adjoint  s(x) = sum_m W_m phi_m d_m exp(+2 pi i k_m . x / n)
* q        Q(x) = sum_m W_m phi_m^2 exp(+2 pi i k_m . x / n)

W: optional density weights, phi: 1 (basis "dirac") or prod sinc(k/n) ("box"). No scaling.
complex64 runs float32 arithmetic with an exactly reduced fixed-point phase, complex128 is the
float64 reference. Images are complex (batch..., *n); k-space (batch..., *traj.shape[:-1]).
"""
from ctypes import POINTER, Structure, byref, c_int, c_int64, c_void_p

from math import prod

import numpy as np

from .._lib import fn, lib, parr, struct
from .. import _array as A
from ..linop import Linop
from .._plan import Plan, choice, place
from ._common import CPLX, REAL, n3, pyshape
from .traj import as_traj

_BASIS = {"dirac": 0, "box": 1}


@struct("kr_drft_opts")
class DrftOpts(Structure):
    _fields_ = [("basis", c_int), ("check_k", c_int), ("check_data", c_int),
                ("fast_sincos", c_int), ("voxels_per_thread", c_int)]


fn("kr_drft_opts_default", [POINTER(DrftOpts)], None)
fn("kr_drft_plan_create", [POINTER(c_void_p), c_void_p, POINTER(c_int64), parr, parr,
                           POINTER(DrftOpts)])
fn("kr_drft_plan_destroy", [c_void_p], None)
fn("kr_drft_set_weights", [c_void_p, parr])
fn("kr_drft_samples", [c_void_p], c_int64)
fn("kr_drft_sample_dims", [c_void_p, POINTER(c_int64)], c_int)
fn("kr_drft_forward", [c_void_p, parr, parr])
fn("kr_drft_adjoint", [c_void_p, parr, parr])
fn("kr_drft_q", [c_void_p, parr])
fn("kr_drft_linop_create", [POINTER(c_void_p), c_void_p, POINTER(c_int64), parr, parr,
                            POINTER(DrftOpts), c_int, c_int64])


def _opts(basis, check_k, check_data, fast_sincos, voxels_per_thread):
    o = DrftOpts()
    lib.kr_drft_opts_default(byref(o))
    o.basis = choice(basis, _BASIS, "basis")
    o.check_k, o.check_data = int(bool(check_k)), int(bool(check_data))
    o.fast_sincos, o.voxels_per_thread = int(bool(fast_sincos)), voxels_per_thread
    return o


def _weights(w):
    return None if w is None else A.arg(w, "the weights", dtypes=REAL)


def image_batch(x, shape, what):
    """Batch shape of image Arg x of Python shape (batch..., *shape)."""
    k = len(shape)
    if tuple(x.shape[len(x.shape) - k:]) != tuple(shape) or len(x.shape) < k:
        raise A.DimensionError("kray: %s has shape %s, expected (batch..., %s)" %
                               (what, x.shape, ", ".join(map(str, shape))))
    return tuple(x.shape[:len(x.shape) - k])


def ksp_batch(y, sshape, what):
    """Batch shape of k-space Arg y of Python shape (batch..., *sshape)."""
    k = len(sshape)
    if len(y.shape) >= k and tuple(y.shape[len(y.shape) - k:]) == tuple(sshape):
        return tuple(y.shape[:len(y.shape) - k])
    m = prod(sshape)
    if len(y.shape) >= 1 and y.shape[-1] == m:
        return tuple(y.shape[:-1])
    raise A.DimensionError("kray: %s has shape %s, expected (batch..., %s)" %
                           (what, y.shape, ", ".join(map(str, sshape))))


class DrftPlan(Plan):
    """A DrFT plan for image shape `shape` ((ny, nx) or (nz, ny, nx)) and trajectory `traj`
    (Python shape (..., 3), cycles per FOV; copied), optional real `weights` of shape
    traj.shape[:-1]. It runs where `device` says (None: where traj lives; int: that CUDA
    device) -- host plans take NumPy / torch-CPU arrays, device plans CuPy / torch-CUDA."""
    _destroy = lib.kr_drft_plan_destroy

    def __init__(self, shape, traj, weights=None, basis="dirac", check_k=True, check_data=True,
                 fast_sincos=True, voxels_per_thread=0, device=None, ctx=None):
        self.shape = pyshape(shape, "the image shape")
        t = as_traj(traj)
        w = _weights(weights)
        ctx, kind, dev = place(device, ctx, (t, w))
        o = _opts(basis, check_k, check_data, fast_sincos, voxels_per_thread)
        p = c_void_p()
        lib.kr_drft_plan_create(byref(p), ctx.ptr, n3(self.shape), t.ref(),
                                w.ref() if w else None, byref(o))
        self._init(p, ctx, kind, dev)
        self.sample_shape = A.shape_of(lib.kr_drft_sample_dims, p)  # traj.shape[:-1]
        self._n = tuple(n3(self.shape))
        self._m = lib.kr_drft_samples(p)

    @property
    def samples(self):
        """M, the number of k-space samples."""
        return lib.kr_drft_samples(self.ptr)

    def set_weights(self, weights):
        """Replace the density weights (None: no weights)."""
        w = _weights(weights)
        lib.kr_drft_set_weights(self.ptr, w.ref() if w else None)

    def _kimg(self, batch):
        k = list(self._n)
        return k + [prod(batch)] if batch else k

    def _kksp(self, batch):
        k = list(reversed(self.sample_shape)) or [1]
        return k + [prod(batch)] if batch else k

    def forward(self, image, out=None):
        """k-space (batch..., *sample_shape) of complex image (batch..., *shape)."""
        x = A.arg(image, "the image", dtypes=CPLX)
        b = image_batch(x, self.shape, "the image")
        oshape = b + self.sample_shape
        o = A.output(out, x, oshape, x.dtype)
        self._args(x, o)
        if b:  # batch dims after the (padded) image dims; else the shapes already agree
            A.redim(x, self._kimg(b), "the image")
            A.redim(o, self._kksp(b), "out")
        lib.kr_drft_forward(self.ptr, x.ref(), o.ref())
        return A.result(out, o)

    def adjoint(self, kspace, out=None):
        """Image (batch..., *shape) of complex k-space (batch..., *sample_shape)."""
        y = A.arg(kspace, "the k-space", dtypes=CPLX)
        b = ksp_batch(y, self.sample_shape, "the k-space")
        o = A.output(out, y, b + self.shape, y.dtype)
        self._args(y, o)
        if b or len(y.shape) != len(self.sample_shape):
            A.redim(y, self._kksp(b), "the k-space")
        if b:
            A.redim(o, self._kimg(b), "out")
        lib.kr_drft_adjoint(self.ptr, y.ref(), o.ref())
        return A.result(out, o)

    def q(self, twice=False, dtype=np.complex64):
        """The Toeplitz kernel Q on the image grid (origin at index n/2) or, twice=True, on
        the 2x grid (origin at index n; axes of size 1 stay 1); Python shape of the grid."""
        code = A.dtype_code(dtype, CPLX, "dtype")
        shape = tuple(2 * s if (twice and s > 1) else s for s in self.shape)
        o = A.out(self._like(), shape, code)
        self._args(o)
        lib.kr_drft_q(self.ptr, o.ref())
        return o.obj


def operator(shape, traj, weights=None, dtype=np.complex64, batch=1, basis="dirac",
             check_k=True, check_data=True, fast_sincos=True, device=None, ctx=None):
    """The DrFT as a :class:`~kray.linop.Linop` on complex arrays of `dtype`: domain
    (batch, *shape) (or `shape` when batch is 1), codomain (batch, M). With weights W it is
    A = diag(sqrt(W) phi) F so that A and A^H stay an adjoint pair."""
    shape = pyshape(shape, "the image shape")
    t = as_traj(traj)
    w = _weights(weights)
    ctx, _, _ = place(device, ctx, (t, w))
    o = _opts(basis, check_k, check_data, fast_sincos, 0)
    p = c_void_p()
    lib.kr_drft_linop_create(byref(p), ctx.ptr, n3(shape), t.ref(), w.ref() if w else None,
                             byref(o), A.dtype_code(dtype, CPLX, "dtype"), batch)
    return Linop(p, ctx)
