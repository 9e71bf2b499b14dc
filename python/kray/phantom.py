"""Analytic phantoms (kray/phantom.h): Shepp-Logan images and volumes, exact sinograms and line
integrals, analytic k-space, smooth coil maps and the MR tissue (T1, T2, PD) phantom.

Frame: normalised units, the image covers [-1, 1] per axis, x right, y down, z into the plane
(docs/conventions.md). Arrays are Python order: an image (ny, nx) with row index j growing
with +y, so row 0 is the top and `imshow` shows the phantom upright; a volume (nz, ny, nx). Pixel grids: "ct" (centres at
(2i + 1 - N) / N) or "fft" (origin at pixel N // 2, as MRI and BART). Kinds: "modified" (Toft
in 2-D, Yu-Ye-Wang in 3-D; the default, as the CLI's) and "original" (Shepp & Logan 1974).
Ellipse sets are (n, 6) arrays of (rho, a, b, x0, y0, phi_deg) rows; ellipsoids (n, 8) of
(rho, a, b, c, x0, y0, z0, phi_deg). Results are NumPy arrays (computed on the CPU; move
them with cupy.asarray / torch.from_numpy).
"""
from ctypes import POINTER, Structure, byref, c_double, c_int, c_int64

import numpy as np

from ._lib import fn, lib, struct, InvalidArgumentError
from . import _array as A
from ._plan import choice, float_code

pparr = POINTER(POINTER(A.KrArray))
pd = POINTER(c_double)


@struct("kr_ellipse")
class Ellipse(Structure):
    _fields_ = [("rho", c_double), ("a", c_double), ("b", c_double), ("x0", c_double),
                ("y0", c_double), ("phi_deg", c_double)]


@struct("kr_ellipsoid")
class Ellipsoid(Structure):
    _fields_ = [("rho", c_double), ("a", c_double), ("b", c_double), ("c", c_double),
                ("x0", c_double), ("y0", c_double), ("z0", c_double), ("phi_deg", c_double)]


pell, pellz = POINTER(Ellipse), POINTER(Ellipsoid)
fn("kr_phantom_ellipses", [c_int, POINTER(c_int)], pell)
fn("kr_phantom_ellipsoids", [c_int, POINTER(c_int)], pellz)
fn("kr_phantom_2d_grid", [pparr, pell, c_int, c_int, c_int64, c_int64, c_int, c_int])
fn("kr_phantom_3d_grid", [pparr, pellz, c_int, c_int, c_int64, c_int64, c_int64, c_int, c_int])
fn("kr_phantom_2d", [pparr, c_int, c_int64, c_int64, c_int, c_int])
fn("kr_phantom_3d", [pparr, c_int, c_int64, c_int64, c_int64, c_int, c_int])
fn("kr_phantom_2d_ellipses", [pparr, pell, c_int, c_int64, c_int64, c_int, c_int])
fn("kr_phantom_eval_2d", [pell, c_int, pd, c_int64, pd])
fn("kr_phantom_eval_3d", [pellz, c_int, pd, c_int64, pd])
fn("kr_phantom_sinogram", [pparr, c_int, pd, c_int64, pd, c_int64])
fn("kr_phantom_sinogram_ellipses", [pparr, pell, c_int, pd, c_int64, pd, c_int64])
fn("kr_phantom_line_integrals_3d", [c_int, pd, pd, c_int64, c_double, pd])
fn("kr_phantom_line_integrals_ellipsoids", [pellz, c_int, pd, pd, c_int64, c_double, pd])
fn("kr_phantom_kspace", [pparr, c_int, pd, c_int64, c_int64])
fn("kr_phantom_kspace_ellipses", [pparr, pell, c_int, pd, c_int64, c_int64])
fn("kr_phantom_coil_maps", [pparr, c_int64, c_int])
fn("kr_phantom_kspace_coils", [pparr, c_int, pd, c_int64, c_int64, c_int])
fn("kr_phantom_kspace_coils_ellipses", [pparr, pell, c_int, pd, c_int64, c_int64, c_int])
fn("kr_phantom_mr_2d_grid", [pparr, c_int, c_int64, c_int64, c_int, c_double])
fn("kr_phantom_mr_2d", [pparr, c_int64, c_int64, c_int])

KINDS = {"original": 0, "shepp-logan": 0, "modified": 1}
GRIDS = {"ct": 0, "fft": 1}
MAX_SUPERSAMPLE = 64


def _kind(kind):
    return choice(kind, KINDS, "the phantom kind")


def _gridc(grid):
    return choice(grid, GRIDS, "the pixel grid")


def _shape(shape, nd):
    s = tuple(int(v) for v in np.atleast_1d(shape))
    if len(s) == 1:
        s = s * nd
    if len(s) != nd:
        raise InvalidArgumentError("kray: a %d-D phantom's shape has %d sizes, not %r" %
                                   (nd, nd, shape))
    return s


def _created(f, *args):
    p = POINTER(A.KrArray)()
    f(byref(p), *args)
    return A.adopt(p)


def _points(x, width, what):
    a = np.ascontiguousarray(x, dtype=np.float64)
    if a.ndim == 0 or a.shape[-1] != width:
        raise InvalidArgumentError("kray: %s must have shape (..., %d), not %s" %
                                   (what, width, a.shape))
    return a, a.size // width


def ellipses(kind="modified"):
    """The built-in 2-D set as an (n, 6) float64 array of (rho, a, b, x0, y0, phi_deg)."""
    n = c_int()
    p = lib.kr_phantom_ellipses(_kind(kind), byref(n))
    return np.array([[getattr(p[i], f) for f, _ in Ellipse._fields_] for i in range(n.value)])


def ellipsoids(kind="modified"):
    """The built-in 3-D set as an (n, 8) array of (rho, a, b, c, x0, y0, z0, phi_deg)."""
    n = c_int()
    p = lib.kr_phantom_ellipsoids(_kind(kind), byref(n))
    return np.array([[getattr(p[i], f) for f, _ in Ellipsoid._fields_]
                     for i in range(n.value)])


def _set(e, cls):
    w = len(cls._fields_)
    if isinstance(e, str):
        e = ellipses(e) if cls is Ellipse else ellipsoids(e)
    a = np.asarray(e, dtype=np.float64)
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2 or a.shape[1] != w or a.shape[0] < 1:
        raise InvalidArgumentError("kray: %s are an (n, %d) array of rows (%s), not shape %s" %
                                   ("ellipses" if cls is Ellipse else "ellipsoids", w,
                                    ", ".join(f for f, _ in cls._fields_), a.shape))
    return (cls * a.shape[0]).from_buffer_copy(np.ascontiguousarray(a)), a.shape[0]


def shepp_logan(shape=256, kind="modified", supersample=1, dtype=np.float32, grid="ct",
                ellipses=None):
    """The Shepp-Logan phantom rasterised: shape (ny, nx) (or N) for 2-D, (nz, ny, nx) for
    3-D (a 3-tuple), each pixel the mean of supersample^d sub-samples. `ellipses` (an (n, 6)
    or, in 3-D, (n, 8) array) replaces the built-in set."""
    s = shape if np.ndim(shape) else (shape, shape)
    nd = len(tuple(np.atleast_1d(s)))
    code = float_code(dtype, "the dtype of a phantom")
    ss = int(supersample)
    if nd == 2:
        ny, nx = _shape(s, 2)
        if ellipses is None:
            if grid == "ct":
                return _created(lib.kr_phantom_2d, _kind(kind), nx, ny, ss, code)
            ellipses = kind
        e, n = _set(ellipses, Ellipse)
        if grid == "ct":
            return _created(lib.kr_phantom_2d_ellipses, e, n, nx, ny, ss, code)
        return _created(lib.kr_phantom_2d_grid, e, n, _gridc(grid), nx, ny, ss, code)
    nz, ny, nx = _shape(s, 3)
    if ellipses is None:
        if grid == "ct":
            return _created(lib.kr_phantom_3d, _kind(kind), nx, ny, nz, ss, code)
        ellipses = kind
    e, n = _set(ellipses, Ellipsoid)
    return _created(lib.kr_phantom_3d_grid, e, n, _gridc(grid), nx, ny, nz, ss, code)


def evaluate(points, ellipses="modified"):
    """Point values (no averaging): points (..., 2) (x, y) for ellipses (an (n, 6) array or a
    kind name) or (..., 3) (x, y, z) for ellipsoids ((n, 8)); returns float64 (...)."""
    a = np.asarray(points)
    if a.ndim == 0 or a.shape[-1] not in (2, 3):
        raise InvalidArgumentError("kray: points have shape (..., 2) or (..., 3), not %s" %
                                   (a.shape,))
    three = a.shape[-1] == 3
    if isinstance(ellipses, str) and three:
        ellipses = ellipsoids(ellipses)
    e, n = _set(ellipses, Ellipsoid if three else Ellipse)
    p, npts = _points(a, 3 if three else 2, "points")
    out = np.zeros(a.shape[:-1])
    f = lib.kr_phantom_eval_3d if three else lib.kr_phantom_eval_2d
    f(e, n, p.ctypes.data_as(pd), npts, out.ctypes.data_as(pd))
    return out


def sinogram(theta_rad, s, kind="modified", ellipses=None):
    """Exact parallel-beam sinogram (len(theta), len(s)) float64 of the 2-D phantom: line
    integrals along x cos(theta) + y sin(theta) = s (normalised units, theta in RADIANS).
    For an N x N image of pixel size h mm, pass s = u_mm / (N h / 2) and multiply by
    N h / 2 to get mm x density."""
    th = np.ascontiguousarray(np.atleast_1d(theta_rad), dtype=np.float64)
    sd = np.ascontiguousarray(np.atleast_1d(s), dtype=np.float64)
    if ellipses is None:
        return _created(lib.kr_phantom_sinogram, _kind(kind), th.ctypes.data_as(pd), th.size,
                        sd.ctypes.data_as(pd), sd.size)
    e, n = _set(ellipses, Ellipse)
    return _created(lib.kr_phantom_sinogram_ellipses, e, n, th.ctypes.data_as(pd), th.size,
                    sd.ctypes.data_as(pd), sd.size)


def line_integrals(src, dst, kind="modified", scale=1.0, ellipsoids=None):
    """Exact line integrals of the 3-D phantom along segments src -> dst ((..., 3) arrays of
    (x, y, z), normalised units), times `scale` (e.g. mm per unit); float64 (...)."""
    a, n = _points(src, 3, "src")
    b, m = _points(dst, 3, "dst")
    if a.shape != b.shape:
        raise A.DimensionError("kray: src and dst have shapes %s and %s" % (a.shape, b.shape))
    out = np.zeros(a.shape[:-1])
    if ellipsoids is None:
        lib.kr_phantom_line_integrals_3d(_kind(kind), a.ctypes.data_as(pd), b.ctypes.data_as(pd),
                                         n, float(scale), out.ctypes.data_as(pd))
    else:
        e, ne = _set(ellipsoids, Ellipsoid)
        lib.kr_phantom_line_integrals_ellipsoids(e, ne, a.ctypes.data_as(pd),
                                                 b.ctypes.data_as(pd), n, float(scale),
                                                 out.ctypes.data_as(pd))
    return out


def kspace(k, n, kind="modified", ellipses=None, coils=0):
    """Analytic k-space of the 2-D phantom imaged as an n x n image on the "fft" grid, at k
    ((..., 2) pairs (kx, ky) in cycles per FOV, any real values); complex128 (...) or, with
    coils > 0, (coils, ...) for the phantom times each of the smooth coil maps. The scaling
    makes the centred inverse DFT / n^2 on the integer grid approximate the image."""
    kk, ns = _points(k, 2, "k")
    lead = kk.shape[:-1]
    if coils:
        if ellipses is None:
            r = _created(lib.kr_phantom_kspace_coils, _kind(kind), kk.ctypes.data_as(pd), ns,
                         int(n), int(coils))
        else:
            e, ne = _set(ellipses, Ellipse)
            r = _created(lib.kr_phantom_kspace_coils_ellipses, e, ne, kk.ctypes.data_as(pd), ns,
                         int(n), int(coils))
        return r.reshape((int(coils),) + lead)
    if ellipses is None:
        r = _created(lib.kr_phantom_kspace, _kind(kind), kk.ctypes.data_as(pd), ns, int(n))
    else:
        e, ne = _set(ellipses, Ellipse)
        r = _created(lib.kr_phantom_kspace_ellipses, e, ne, kk.ctypes.data_as(pd), ns, int(n))
    return r.reshape(lead)


def cartesian_k(n):
    """The integer Cartesian k-space grid of an n x n image, (n, n, 2) float64 of (kx, ky)
    with kx along the last axis, from -n/2: the centred layout of :func:`kspace`."""
    k = np.arange(n) - n // 2
    ky, kx = np.meshgrid(k, k, indexing="ij")
    return np.stack([kx, ky], axis=-1).astype(np.float64)


def coil_maps(n, ncoils=8):
    """The smooth analytic coil sensitivities on the n x n "fft" grid: complex128 (ncoils, n,
    n)."""
    return _created(lib.kr_phantom_coil_maps, int(n), int(ncoils)).reshape(int(ncoils), int(n),
                                                                           int(n))


def mr(shape=256, supersample=1, b0_tesla=1.5, grid="ct"):
    """The MR tissue phantom (Gach et al. 2008): float32 (3, ny, nx) with planes T1 (ms), T2
    (ms) and PD at field strength b0_tesla."""
    ny, nx = _shape(shape, 2)
    if grid == "ct" and b0_tesla == 1.5:
        return _created(lib.kr_phantom_mr_2d, nx, ny, int(supersample))
    return _created(lib.kr_phantom_mr_2d_grid, _gridc(grid), nx, ny, int(supersample),
                    float(b0_tesla))
