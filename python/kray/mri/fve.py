"""Fourier velocity encoding (kray/fve.h): a flow phantom with exact simulated spiral data,
single-voxel reconstruction and velocity spectra.

Data: complex64 (coils, frames, encodes, slices, interleaves, samples); trajectory (interleaves,
samples, 3) in cycles per FOV; weights (interleaves, samples). Encode e has the first moment
kv_e = (e - E//2) / vfov; bin b of a spectrum is the velocity (b - E//2) vfov / E (cm/s).
Voxels are (x, y, slice) triples, x and y in kray's centred pixel coordinates (index - n/2).
"""
from ctypes import POINTER, Structure, byref, c_char_p, c_double, c_int, c_int64, c_void_p
import os

import numpy as np

from .._lib import InvalidArgumentError, fields, fn, lib, parr, pdbl, pparr, struct
from .. import _array as A
from .._plan import context
from ._common import C64, REAL, host_f64

MAX_VESSELS = 8


@struct("kr_fve_params")
class Params(Structure):
    """n (image matrix), fov_mm, vfov_cm_s (velocity field of view), encodes."""
    _fields_ = [("n", c_int64), ("fov_mm", c_double), ("vfov_cm_s", c_double),
                ("encodes", c_int64)]

    def as_dict(self):
        return fields(self)


@struct("kr_fve_vessel")
class Vessel(Structure):
    """One vessel: centre (x0, y0) in [-1, 1]^2, dx_slice, radius, vpeak_cm_s, diastole,
    phase, rho (see kray/fve.h)."""
    _fields_ = [("x0", c_double), ("y0", c_double), ("dx_slice", c_double),
                ("radius", c_double), ("vpeak_cm_s", c_double), ("diastole", c_double),
                ("phase", c_double), ("rho", c_double)]


@struct("kr_fve_sim_opts")
class SimOpts(Structure):
    """Simulation options: enc (Params), slices, frames, coils, interleaves, rings, nvessels,
    vessel[8], tissue_scale. Make with :func:`sim_opts`."""
    _fields_ = [("enc", Params), ("slices", c_int64), ("frames", c_int64), ("coils", c_int),
                ("interleaves", c_int64), ("rings", c_int), ("nvessels", c_int),
                ("vessel", Vessel * MAX_VESSELS), ("tissue_scale", c_double)]


fn("kr_fve_velocity_axis", [POINTER(Params), pdbl])
fn("kr_fve_params_write", [c_char_p, POINTER(Params), POINTER(SimOpts)])
fn("kr_fve_params_read", [c_char_p, POINTER(Params)])
fn("kr_fve_sim_opts_default", [POINTER(SimOpts)], None)
fn("kr_fve_sim_opts_small", [POINTER(SimOpts)], None)
fn("kr_fve_simulate", [c_void_p, POINTER(SimOpts), pparr, pparr, pparr])
fn("kr_fve_true_velocity", [POINTER(SimOpts), c_double, c_double, c_int64, c_int64,
                            POINTER(c_int)], c_double)
fn("kr_fve_vmax", [POINTER(Vessel), c_int64, c_int64], c_double)
fn("kr_fve_voxels", [c_void_p, parr, parr, parr, c_int64, c_int64, pdbl, parr])
fn("kr_fve_voxels_gridded", [c_void_p, parr, parr, parr, c_int64, c_int64, pdbl, c_double,
                             parr])
fn("kr_fve_spectra", [c_void_p, parr, parr])


def params(n=115, fov_mm=160.0, vfov_cm_s=200.0, encodes=32):
    """Encoding parameters."""
    p = Params()
    p.n, p.fov_mm, p.vfov_cm_s, p.encodes = n, fov_mm, vfov_cm_s, encodes
    return p


def velocity_axis(p):
    """Velocities (cm/s, (E,)) of the spectrum bins of Params p."""
    v = np.zeros(max(int(p.encodes), 0))
    lib.kr_fve_velocity_axis(byref(p), v.ctypes.data_as(pdbl))
    return v


def params_write(path, p, sim=None):
    """Write the JSON sidecar of Params p (with the phantom's description when sim is a
    SimOpts)."""
    lib.kr_fve_params_write(os.fsencode(path), byref(p), byref(sim) if sim is not None else None)


def params_read(path):
    """Read a JSON sidecar into Params."""
    p = Params()
    lib.kr_fve_params_read(os.fsencode(path), byref(p))
    return p


def sim_opts(small=False, **fields):
    """SimOpts with kray's defaults (small=True: the small test set), fields overridden by
    keyword (e.g. frames=4; vessels: a list of Vessel)."""
    o = SimOpts()
    (lib.kr_fve_sim_opts_small if small else lib.kr_fve_sim_opts_default)(byref(o))
    vessels = fields.pop("vessels", None)
    for k, v in fields.items():
        if k in ("n", "fov_mm", "vfov_cm_s", "encodes"):
            setattr(o.enc, k, v)
        elif k in dict(SimOpts._fields_):
            setattr(o, k, v)
        else:
            raise InvalidArgumentError("kray: SimOpts has no field %r" % k)
    if vessels is not None:
        if len(vessels) > MAX_VESSELS:
            raise InvalidArgumentError("kray: at most %d vessels" % MAX_VESSELS)
        o.nvessels = len(vessels)
        for i, v in enumerate(vessels):
            o.vessel[i] = v
    return o


def simulate(opts=None, weights=True, ctx=None):
    """Simulate the phantom: (traj (interleaves, samples, 3) float64, data complex64 (coils,
    frames, encodes, slices, interleaves, samples), weights float64 (interleaves, samples) or
    None)."""
    o = opts if opts is not None else sim_opts()
    t, d, w = POINTER(A.KrArray)(), POINTER(A.KrArray)(), POINTER(A.KrArray)()
    lib.kr_fve_simulate(ctx.ptr if ctx is not None else None, byref(o), byref(t), byref(d),
                        byref(w) if weights else None)
    return A.adopt(t), A.adopt(d), (A.adopt(w) if weights else None)


def true_velocity(opts, x, y, slice, frame):
    """(velocity cm/s, inside) of the phantom at normalised (x, y) in slice, frame."""
    inside = c_int()
    v = lib.kr_fve_true_velocity(byref(opts), x, y, slice, frame, byref(inside))
    return v, bool(inside.value)


def vmax(vessel, frame, frames):
    """vmax(t) of a Vessel at `frame` of `frames` (cm/s)."""
    return lib.kr_fve_vmax(byref(vessel), frame, frames)


def voxels(traj, weights, data, n, vox, gridded=False, eps=1e-6, ctx=None):
    """Single-voxel reconstruction: complex64 (nvox, coils, frames, encodes) for voxels
    `vox` ((nvox, 3) of (x, y, slice)) of an n x n image. Direct sums (data and output on the
    host or a device; the trajectory and weights are read on the host, device copies are
    fetched first), or gridded=True: gridding + Goertzel at relative accuracy eps (host)."""
    t = A.arg(A.to_host(traj), "the trajectory", dtypes=REAL)
    w = None if weights is None else A.arg(A.to_host(weights), "the weights", dtypes=REAL)
    d = A.arg(data, "the data", dtypes=(C64,))
    v = host_f64(vox, "the voxels", 3)
    if len(d.shape) != 6:
        raise A.DimensionError("kray: the data must be (coils, frames, encodes, slices, "
                               "interleaves, samples), not %s" % (d.shape,))
    C, T, E = d.shape[0], d.shape[1], d.shape[2]
    o = A.out(d, (v.shape[0], C, T, E), C64)
    c = context(d, o, ctx=ctx)
    if gridded:
        lib.kr_fve_voxels_gridded(c.ptr, t.ref(), w.ref() if w else None, d.ref(), n,
                                  v.shape[0], v.ctypes.data_as(pdbl), eps, o.ref())
    else:
        lib.kr_fve_voxels(c.ptr, t.ref(), w.ref() if w else None, d.ref(), n, v.shape[0],
                          v.ctypes.data_as(pdbl), o.ref())
    return o.obj


def spectra(vox_img, ctx=None):
    """Coil-combined velocity spectra: complex64 (nvox, frames, E) of voxels() output
    (nvox, coils, frames, E) (host)."""
    a = A.arg(vox_img, "the voxel images", dtypes=(C64,))
    if len(a.shape) != 4:
        raise A.DimensionError("kray: the voxel images must be (nvox, coils, frames, "
                               "encodes), not %s" % (a.shape,))
    o = A.out(a, (a.shape[0], a.shape[2], a.shape[3]), C64)
    lib.kr_fve_spectra(ctx.ptr if ctx is not None else None, a.ref(), o.ref())
    return o.obj
