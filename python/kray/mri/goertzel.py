"""Goertzel evaluation of the centred 2-D DFT of Cartesian k-space (kray/goertzel.h).

out(x, y) = sum_{i,j} K[j, i] exp(+2 pi i ((i - nx/2) x / nx + (j - ny/2) y / ny)): the
unnormalised centred inverse DFT (the unweighted adjoint DrFT) at pixel positions (x, y) in
kray's centred coordinates (index - n/2; fractional allowed, within the pixel-centre span). k-space
complex (batch..., ny, nx); the recurrence runs in double precision.
"""
from ctypes import c_int64, c_void_p

from .._lib import fn, lib, parr, pdbl
from .. import _array as A
from .._plan import context
from ._common import CPLX, host_f64

fn("kr_goertzel2d", [c_void_p, parr, c_int64, pdbl, parr])
fn("kr_goertzel2d_image", [c_void_p, parr, parr])


def points(kspace, xy, ctx=None):
    """The DFT at the points xy (array (npts, 2) of (x, y), host) of k-space (batch..., ny,
    nx); returns (batch..., npts), same dtype and place as kspace."""
    k = A.arg(kspace, "the k-space", dtypes=CPLX)
    if len(k.shape) < 2:
        raise A.DimensionError("kray: the k-space must be (batch..., ny, nx), not %s" %
                               (k.shape,))
    p = host_f64(xy, "the points", 2)
    b = tuple(k.shape[:-2])
    o = A.out(k, b + (p.shape[0],), k.dtype)
    c = context(k, o, ctx=ctx)
    lib.kr_goertzel2d(c.ptr, k.ref(), p.shape[0], p.ctypes.data_as(pdbl), o.ref())
    return o.obj


def image(kspace, ctx=None):
    """The full image (batch..., ny, nx) of k-space (batch..., ny, nx): the centred inverse DFT
    without normalisation (image index = x + n/2)."""
    k = A.arg(kspace, "the k-space", dtypes=CPLX)
    if len(k.shape) < 2:
        raise A.DimensionError("kray: the k-space must be (batch..., ny, nx), not %s" %
                               (k.shape,))
    o = A.out(k, k.shape, k.dtype)
    c = context(k, o, ctx=ctx)
    lib.kr_goertzel2d_image(c.ptr, k.ref(), o.ref())
    return o.obj
