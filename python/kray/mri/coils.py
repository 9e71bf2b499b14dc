"""Receive-coil arrays and multi-coil data (kray/coils.h).

Coils are circular loops (centre, unit normal, radius in mm; scanner frame, z along B0) with
their Biot-Savart field in closed form; the receive sensitivity is S = Bx - i By at unit
current. Multi-coil images, maps and Cartesian k-space are complex (C, ny, nx) (or
(C, nz, ny, nx) for maps); F is the centred unitary FFT over the last two axes (k-space index j
holds k = j - N//2 cycles per FOV).
"""
from ctypes import POINTER, Structure, byref, c_double, c_int, c_int64, c_void_p

import numpy as np

from .._lib import InvalidArgumentError, fn, lib, parr, pdbl, pparr, struct
from .. import _array as A
from .._plan import choice, context, like, place
from ._common import C64, C128, F32, coil_data, host_f64

GRIDS = {"ct": 0, "fft": 1}
NORMS = {"none": 0, "rss-centre": 1}
MU0 = 4e-7 * np.pi


@struct("kr_coil")
class Coil(Structure):
    """One loop: centre_mm (3), normal (3, unit), radius_mm, ring, angle_deg."""
    _fields_ = [("centre_mm", c_double * 3), ("normal", c_double * 3), ("radius_mm", c_double),
                ("ring", c_int), ("angle_deg", c_double)]

    def __init__(self, centre_mm=(0, 0, 0), normal=(0, 0, 1), radius_mm=1.0, ring=0,
                 angle_deg=0.0):
        super().__init__()
        for i in range(3):
            self.centre_mm[i] = centre_mm[i]
            self.normal[i] = normal[i]
        self.radius_mm, self.ring, self.angle_deg = radius_mm, ring, angle_deg

    def __repr__(self):
        return "Coil(centre_mm=%s, normal=%s, radius_mm=%g, ring=%d, angle_deg=%g)" % (
            tuple(self.centre_mm), tuple(self.normal), self.radius_mm, self.ring,
            self.angle_deg)


@struct("kr_coil_map_opts")
class MapOpts(Structure):
    _fields_ = [("nx", c_int64), ("ny", c_int64), ("nz", c_int64), ("voxel_mm", c_double * 3),
                ("grid", c_int), ("z_mm", c_double), ("wire_mm", c_double), ("tol", c_double),
                ("norm", c_int)]


fn("kr_elliptic_ke", [c_double, c_double, pdbl, pdbl])
fn("kr_coil_layout_mrxcat", [c_int, c_int, c_double, POINTER(Coil), POINTER(c_int),
                             POINTER(c_int)])
fn("kr_coil_field", [POINTER(Coil), pdbl, c_double, pdbl])
fn("kr_coil_map_opts_default", [POINTER(MapOpts)], None)
fn("kr_coil_maps", [c_void_p, POINTER(Coil), c_int, POINTER(MapOpts), parr])
fn("kr_coil_sens_points", [c_void_p, POINTER(Coil), c_int, pdbl, c_int64, POINTER(MapOpts),
                           pparr])
fn("kr_coil_kspace", [c_void_p, parr, parr, parr])
fn("kr_coil_images", [c_void_p, parr, parr])
fn("kr_coil_rss", [c_void_p, parr, parr])
fn("kr_coil_combine", [c_void_p, parr, parr, parr, parr])
fn("kr_coil_apply", [c_void_p, parr, c_int, parr])


def elliptic_ke(m, tol=0.0):
    """Complete elliptic integrals (K(m), E(m)) of parameter m in [0, 1)."""
    K, E = c_double(), c_double()
    lib.kr_elliptic_ke(m, tol, byref(K), byref(E))
    return K.value, E.value


def layout_mrxcat(ncoils, coils_per_ring=8, rbody_mm=200.0):
    """The MRXCAT loop layout around a cylinder of radius rbody_mm: (list of Coil, ring
    sizes)."""
    if ncoils < 1:
        raise InvalidArgumentError("kray: ncoils must be >= 1, not %d" % ncoils)
    arr = (Coil * ncoils)()
    nr = c_int()
    rc = (c_int * ncoils)()
    lib.kr_coil_layout_mrxcat(ncoils, coils_per_ring, rbody_mm, arr, byref(nr), rc)
    return list(arr), list(rc[:nr.value])


def _coils(coils):
    if isinstance(coils, Coil):
        coils = [coils]
    coils = list(coils)
    if not coils or not all(isinstance(c, Coil) for c in coils):
        raise InvalidArgumentError("kray: coils must be a non-empty list of kray.mri.coils.Coil")
    return (Coil * len(coils))(*coils), len(coils)


def field(coil, p_mm, wire_mm=1.0):
    """B (tesla per ampere, (3,)) of one loop at point p_mm (x, y, z)."""
    if not isinstance(coil, Coil):
        raise InvalidArgumentError("kray: coil must be a kray.mri.coils.Coil")
    p = host_f64(p_mm, "the point").reshape(-1)
    if p.size != 3:
        raise A.DimensionError("kray: the point must have 3 coordinates")
    b = np.zeros(3)
    lib.kr_coil_field(byref(coil), p.ctypes.data_as(pdbl), wire_mm, b.ctypes.data_as(pdbl))
    return b


def _map_opts(shape, voxel_mm, grid, z_mm, wire_mm, tol, norm):
    o = MapOpts()
    lib.kr_coil_map_opts_default(byref(o))
    if shape is not None:
        s = tuple(reversed(tuple(shape))) + (1,)
        o.nx, o.ny, o.nz = s[0], s[1], s[2] if len(shape) == 3 else 1
    if voxel_mm is not None:
        for i in range(3):
            o.voxel_mm[i] = voxel_mm[i]
    o.grid = choice(grid, GRIDS, "grid")
    o.z_mm, o.wire_mm, o.tol = z_mm, wire_mm, tol
    o.norm = choice(norm, NORMS, "norm")
    return o


def maps(coils, shape=(64, 64), voxel_mm=(1.0, 1.0, 5.0), grid="fft", z_mm=0.0, wire_mm=1.0,
         tol=1e-12, norm="none", dtype=np.complex64, device=None, ctx=None):
    """Sensitivity maps (C, *shape) of `coils` on a grid of Python shape (ny, nx) or
    (nz, ny, nx) with voxel_mm (x, y, z) centred at z_mm; norm "none" (microtesla per ampere)
    or "rss-centre" (RSS = 1 at (0, 0, z_mm)). On `device` (int: CUDA; a CuPy array) or the
    host."""
    arr, n = _coils(coils)
    shape = tuple(shape)
    o = _map_opts(shape, voxel_mm, grid, z_mm, wire_mm, tol, norm)
    ctx, kind, dev = place(device, ctx, ())
    code = A.dtype_code(dtype, (C64, C128), "the dtype of coil maps")
    out = A.out(like(kind, dev), (n,) + ((1,) if len(shape) == 2 else ()) + shape, code)
    lib.kr_coil_maps(ctx.ptr, arr, n, byref(o), out.ref())
    return out.obj.reshape((n,) + shape)


def sens_points(coils, xyz_mm, z_mm=0.0, wire_mm=1.0, tol=1e-12, norm="none", ctx=None):
    """Sensitivities (complex64 (C, npts), host) at the points xyz_mm ((npts, 3), mm)."""
    arr, n = _coils(coils)
    p = host_f64(xyz_mm, "the points", 3)
    o = _map_opts(None, None, "fft", z_mm, wire_mm, tol, norm)
    out = POINTER(A.KrArray)()
    lib.kr_coil_sens_points(ctx.ptr if ctx is not None else None, arr, n,
                            p.ctypes.data_as(pdbl), p.shape[0], byref(o), byref(out))
    return A.adopt(out)


def kspace(image, maps, ctx=None):
    """Coil k-space F(S_c image) (C, ny, nx) of an image (ny, nx) (float32 or complex64) and
    maps (C, ny, nx)."""
    x = A.arg(image, "the image", dtypes=(F32, C64))
    m = coil_data(maps, "the coil maps")
    o = A.out(m, m.shape, C64)
    c = context(x, m, o, ctx=ctx)
    lib.kr_coil_kspace(c.ptr, x.ref(), m.ref(), o.ref())
    return o.obj


def images(kspace, ctx=None):
    """Coil images F^H kspace over the last two axes ((..., ny, nx) complex64)."""
    k = coil_data(kspace, "the k-space")
    o = A.out(k, k.shape, C64)
    c = context(k, o, ctx=ctx)
    lib.kr_coil_images(c.ptr, k.ref(), o.ref())
    return o.obj


def rss(images, ctx=None):
    """Root sum of squares over coils: float32 (ny, nx) of (C, ny, nx) (host)."""
    a = coil_data(images, "the coil images")
    o = A.out(a, a.shape[-2:], F32)
    lib.kr_coil_rss(ctx.ptr if ctx is not None else None, a.ref(), o.ref())
    return o.obj


def combine(images, maps, psi=None, ctx=None):
    """Optimal (Roemer) combination S^H Psi^-1 I / (S^H Psi^-1 S): complex64 (ny, nx) of coil
    images and maps (C, ny, nx) (host); psi (C, C) or None."""
    a = coil_data(images, "the coil images")
    m = coil_data(maps, "the coil maps")
    ps = None if psi is None else A.matrix_arg(psi, "psi", (C64, C128))
    o = A.out(a, a.shape[-2:], C64)
    lib.kr_coil_combine(ctx.ptr if ctx is not None else None, a.ref(), m.ref(),
                        ps.ref() if ps else None, o.ref())
    return o.obj


def apply(data, m, axis=0, ctx=None):
    """A copy of complex64 host `data` with the coil matrix m ((C, C) complex, element [r, c]
    weighting input coil c into output coil r) applied along Python axis `axis`."""
    x = A.copy_of(data)
    a = A.arg(x, "the data", dtypes=(C64,))
    nd = len(a.shape)
    if not -nd <= axis < nd:
        raise A.DimensionError("kray: axis %d is outside the data's %d axes" % (axis, nd))
    ma = A.matrix_arg(m, "the coil matrix", (C64, C128))
    lib.kr_coil_apply(ctx.ptr if ctx is not None else None, a.ref(), nd - 1 - (axis % nd),
                      ma.ref())
    return a.obj

