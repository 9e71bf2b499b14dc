"""k-space trajectories and density compensation (kray/traj.h).

A trajectory is a real array (float32 or float64) of Python shape (..., shots, samples, 3): the
(kx, ky, kz) of each sample in the last axis, samples next, then shots (spokes, interleaves),
then partitions -- kray's dims [3, samples, shots, partitions] reversed. k is in cycles per
field of view (BART's unit): an N-pixel axis is sampled by k in [-N/2, N/2). 2-D trajectories
have kz = 0. Density weights and k-space data have the trajectory's shape without the last
axis. Image sizes (``n``) are Python order: (ny, nx) or (nz, ny, nx).
"""
from ctypes import POINTER, Structure, byref, c_char_p, c_double, c_int, c_int64
import os

import numpy as np

from .._lib import fields, fn, lib, parr, pparr, struct, vp
from .. import _array as A
from .._plan import choice
from ._common import REAL, host_out, n3

UNITS = {"fov": 0, "pixel": 1, "radians": 2}
_ORDER = {"uniform": 0, "golden": 1}
_DCF = {"voronoi": 0, "pipe": 1, "radial": 2, "spiral": 3}
_BOUNDARY = {"disk": 0, "square": 1}


@struct("kr_radial_opts")
class RadialOpts(Structure):
    _fields_ = [("samples", c_int64), ("oversampling", c_double), ("spokes", c_int64),
                ("order", c_int), ("tiny", c_int), ("full_circle", c_int), ("dc", c_int),
                ("partitions", c_int64), ("dtype", c_int)]


@struct("kr_spiral_opts")
class SpiralOpts(Structure):
    _fields_ = [("fov_mm", c_double), ("res_mm", c_double), ("interleaves", c_int64),
                ("gmax_mT_m", c_double), ("smax_T_m_s", c_double), ("dwell_us", c_double),
                ("vd_factor", c_double), ("vd_start", c_double), ("partitions", c_int64),
                ("dtype", c_int)]


@struct("kr_spiral_info")
class SpiralInfo(Structure):
    _fields_ = [("samples", c_int64), ("matrix", c_int64), ("kmax", c_double),
                ("readout_ms", c_double), ("gmax_used_mT_m", c_double),
                ("smax_used_T_m_s", c_double), ("slew_limited_ms", c_double)]


@struct("kr_dcf_opts")
class DcfOpts(Structure):
    _fields_ = [("method", c_int), ("boundary", c_int), ("radius", c_double),
                ("dup_tol", c_double), ("iterations", c_int), ("kernel_radius", c_double),
                ("beta", c_double)]


@struct("kr_dcf_info")
class DcfInfo(Structure):
    _fields_ = [("duplicates", c_int64), ("clipped", c_int64), ("total", c_double),
                ("support", c_double), ("iterations", c_int), ("flatness", c_double)]


fn("kr_traj_convert", [parr, c_int, c_int, POINTER(c_int64)])
fn("kr_traj_check", [parr, POINTER(c_int64)])
fn("kr_traj_extent", [parr, POINTER(c_double), POINTER(c_double)])
fn("kr_traj_cartesian", [pparr, c_int64, c_int64, c_int64, c_int])
fn("kr_radial_opts_default", [POINTER(RadialOpts)], None)
fn("kr_traj_radial", [pparr, POINTER(RadialOpts)])
fn("kr_traj_koosh", [pparr, POINTER(RadialOpts)])
fn("kr_spiral_opts_default", [POINTER(SpiralOpts)], None)
fn("kr_traj_spiral", [pparr, POINTER(SpiralOpts), POINTER(SpiralInfo)])
fn("kr_traj_read", [c_char_p, pparr, c_int])
fn("kr_traj_write", [c_char_p, parr])
fn("kr_dcf_opts_default", [POINTER(DcfOpts)], None)
fn("kr_dcf", [pparr, vp, parr, POINTER(DcfOpts), POINTER(DcfInfo)])


def _traj(t, what="the trajectory"):
    return A.arg(t, what, dtypes=REAL)


def _nptr(n):
    return None if n is None else n3(n)


def as_traj(t, what="the trajectory"):
    """Arg of a trajectory of Python shape (..., 3) or (..., 2) (checked)."""
    a = _traj(t, what)
    if len(a.shape) < 1 or a.shape[-1] not in (2, 3):
        raise A.DimensionError("kray: %s must have shape (..., 3) (kx, ky, kz per sample), "
                               "not %s" % (what, a.shape))
    return a


def convert(traj, src, dst, n=None):
    """The trajectory `traj` converted from units `src` to `dst` ("fov": cycles per FOV,
    "pixel": cycles per pixel [-0.5, 0.5), "radians": [-pi, pi)); n: the image shape (ny, nx) or
    (nz, ny, nx), needed for the per-pixel units. Host arrays; returns a new array."""
    a = as_traj(A.copy_of(traj) if A.kind_of(traj) != "numpy" else np.array(traj))
    lib.kr_traj_convert(a.ref(), choice(src, UNITS, "src"), choice(dst, UNITS, "dst"),
                        _nptr(n) if n is not None else n3((1, 1)))
    return a.obj


def check(traj, n=None):
    """Raise (DimensionError, DTypeError, GeometryError naming the sample) unless `traj` is a
    valid host trajectory with every k inside [-N/2, N/2) of image shape n (when given)."""
    a = _traj(traj)
    lib.kr_traj_check(a.ref(), _nptr(n))


def extent(traj):
    """(kmax per axis (kx, ky, kz), largest radius) of a host trajectory, cycles per FOV."""
    a = _traj(traj)
    ax = (c_double * 3)()
    r = c_double()
    lib.kr_traj_extent(a.ref(), ax, byref(r))
    return tuple(ax), r.value


def cartesian(shape, dtype=np.float32):
    """The Cartesian grid of image shape (ny, nx) or (nz, ny, nx): every integer k in
    [-N/2, N/2); Python shape (ny, nx, 3) or (nz, ny, nx, 3)."""
    k = list(n3(shape))
    p = POINTER(A.KrArray)()
    lib.kr_traj_cartesian(byref(p), k[0], k[1], k[2], A.dtype_code(dtype, REAL, "dtype"))
    return A.adopt(p)


def _radial(f, samples, spokes, oversampling, golden, tiny, full_circle, dc, partitions,
            dtype):
    o = RadialOpts()
    lib.kr_radial_opts_default(byref(o))
    o.samples, o.spokes, o.oversampling = samples, spokes, oversampling
    o.order = 1 if golden else 0
    o.tiny, o.full_circle, o.dc = tiny, 1 if full_circle else 0, 1 if dc else 0
    o.partitions = partitions
    o.dtype = A.dtype_code(dtype, REAL, "dtype")
    p = POINTER(A.KrArray)()
    f(byref(p), byref(o))
    return A.adopt(p)


def radial(samples=64, spokes=32, oversampling=1.0, golden=False, tiny=0, full_circle=False,
           dc=False, partitions=1, dtype=np.float32):
    """2-D radial trajectory as `bart traj -r` (samples: BART -x, spokes -y, oversampling -o,
    golden -G, tiny -s, full_circle -D, dc -c); Python shape (spokes, X, 3) or (partitions,
    spokes, X, 3) for a stack of stars, X = round(samples * oversampling)."""
    return _radial(lib.kr_traj_radial, samples, spokes, oversampling, golden, tiny,
                   full_circle, dc, partitions, dtype)


def koosh(samples=64, spokes=32, oversampling=1.0, golden=False, dc=False, dtype=np.float32):
    """3-D radial "koosh ball": spokes through the centre covering the half sphere (Fibonacci
    lattice, or 2-D golden means with golden=True); Python shape (spokes, X, 3)."""
    return _radial(lib.kr_traj_koosh, samples, spokes, oversampling, golden, 0, False, dc, 1,
                   dtype)


def spiral(fov_mm=160.0, res_mm=1.4, interleaves=8, gmax_mT_m=40.0, smax_T_m_s=150.0,
           dwell_us=4.0, vd_factor=2.0, vd_start=0.0, partitions=1, dtype=np.float32):
    """Variable-density interleaved Archimedean spiral (gradient-limited design). Returns
    (traj, info): traj of Python shape (interleaves, samples, 3) (or (partitions, ...)) in
    cycles per FOV; info a dict (samples, matrix, kmax, readout_ms, gmax_used_mT_m,
    smax_used_T_m_s, slew_limited_ms)."""
    o = SpiralOpts()
    lib.kr_spiral_opts_default(byref(o))
    o.fov_mm, o.res_mm, o.interleaves = fov_mm, res_mm, interleaves
    o.gmax_mT_m, o.smax_T_m_s, o.dwell_us = gmax_mT_m, smax_T_m_s, dwell_us
    o.vd_factor, o.vd_start, o.partitions = vd_factor, vd_start, partitions
    o.dtype = A.dtype_code(dtype, REAL, "dtype")
    info = SpiralInfo()
    p = POINTER(A.KrArray)()
    lib.kr_traj_spiral(byref(p), byref(o), byref(info))
    return A.adopt(p), fields(info)


def read(path, dtype=np.float32):
    """Read a trajectory file (.cfl from `bart traj`, or a real .npy/.raw) as Python shape
    (..., 3)."""
    p = POINTER(A.KrArray)()
    lib.kr_traj_read(os.fsencode(path), byref(p), A.dtype_code(dtype, REAL, "dtype"))
    return A.adopt(p)


def write(path, traj):
    """Write a host trajectory (.cfl as BART's complex float with zero imaginary parts; other
    extensions as real arrays)."""
    lib.kr_traj_write(os.fsencode(path), _traj(traj).ref())


def dcf(traj, method="voronoi", boundary="disk", radius=0.0, dup_tol=1e-4, iterations=20,
        kernel_radius=2.0, beta=0.0, info=False, ctx=None):
    """Density-compensation weights (cell areas/volumes in (cycles per FOV)^d; a full Cartesian
    grid weighs 1) of a host trajectory: method "voronoi" (2-D, cells clipped to `boundary`
    "disk" or "square" of `radius`, 0 = auto), "pipe" (Pipe-Menon, `iterations`,
    `kernel_radius`, `beta`), "radial" or "spiral" (analytic). Returns weights of the
    trajectory's shape without its last axis (and a dict of kr_dcf_info with info=True)."""
    a = _traj(traj)
    o = DcfOpts()
    lib.kr_dcf_opts_default(byref(o))
    o.method = choice(method, _DCF, "method")
    o.boundary = choice(boundary, _BOUNDARY, "boundary")
    o.radius, o.dup_tol, o.iterations = radius, dup_tol, iterations
    o.kernel_radius, o.beta = kernel_radius, beta
    inf = DcfInfo()
    p = POINTER(A.KrArray)()
    lib.kr_dcf(byref(p), ctx.ptr if ctx is not None else None, a.ref(), byref(o), byref(inf))
    w = host_out(p, a)
    if info:
        return w, fields(inf)
    return w
