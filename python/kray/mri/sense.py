"""Cartesian parallel imaging: undersampling masks, SENSE (Pruessmann 1999) with g-factor maps,
the SENSE encoding operator, and ESPIRiT coil maps (kray/cartesian.h, kray/sense.h).

Multi-coil k-space, coil images and maps are complex64 (C, ny, nx) (readout x fastest, phase
encoding along y); images (ny, nx). The FFT is the centred unitary one (kray.mri.coils): line j
of ny holds ky = j - ny//2. Line masks are uint8 arrays of ny flags (non-zero = acquired; bit 0
the imaging lattice, bit 1 the calibration block).
"""
from ctypes import (POINTER, Structure, byref, c_double, c_int, c_int64, c_uint, c_uint8,
                    c_void_p, pointer)

from math import prod

import numpy as np

from .._lib import InvalidArgumentError, fields, fn, lib, parr, pparr, struct
from .. import _array as A
from ..linop import Linop
from .._plan import Plan, context, place
from ._common import C64, F32, coil_data, host_out, lines_u8

IMAGING, CALIBRATION = 1, 2
pu8 = POINTER(c_uint8)


@struct("kr_sense_opts")
class SenseOpts(Structure):
    _fields_ = [("accel", c_int), ("offset", c_int), ("lines", pu8), ("lambda_", c_double),
                ("psi", parr)]


@struct("kr_sense_info")
class SenseInfo(Structure):
    _fields_ = [("method", c_int), ("accel", c_int), ("fold", c_int), ("systems", c_int64),
                ("lines", c_int64), ("singular", c_int64)]


@struct("kr_espirit_opts")
class EspiritOpts(Structure):
    _fields_ = [("kernel", c_int), ("calib", c_int), ("threshold", c_double),
                ("crop", c_double), ("rotate_phase", c_int)]


fn("kr_cartesian_lines", [pu8, c_int64, c_int, c_int, c_int64])
fn("kr_cartesian_undersample", [c_void_p, parr, pu8])
fn("kr_cartesian_count", [pu8, c_int64, c_uint], c_int64)
fn("kr_sense_opts_default", [POINTER(SenseOpts)], None)
fn("kr_sense_plan_create", [POINTER(c_void_p), c_void_p, parr, POINTER(SenseOpts)])
fn("kr_sense_plan_destroy", [c_void_p], None)
fn("kr_sense_plan_info", [c_void_p, POINTER(SenseInfo)])
fn("kr_sense_execute", [c_void_p, parr, parr, parr])
fn("kr_sense_unfold", [c_void_p, parr, parr, parr])
fn("kr_sense_gfactor", [c_void_p, parr])
fn("kr_sense_linop_create", [POINTER(c_void_p), c_void_p, parr, pu8, c_int])
fn("kr_espirit_opts_default", [POINTER(EspiritOpts)], None)
fn("kr_espirit", [c_void_p, parr, POINTER(EspiritOpts), pparr, pparr])


def _u8p(x):
    return None if x is None else x.ctypes.data_as(pu8)


def lines(ny, accel=1, offset=0, nacs=0):
    """Phase-encode line flags (uint8 (ny,)): bit 0 for lines j with (j - offset) % accel == 0,
    bit 1 for the nacs central (calibration) lines."""
    if int(ny) < 1:
        raise InvalidArgumentError("kray: ny must be >= 1, not %d" % ny)
    out = np.zeros(int(ny), np.uint8)
    lib.kr_cartesian_lines(_u8p(out), ny, accel, offset, nacs)
    return out


def count(flags, which=IMAGING | CALIBRATION):
    """Number of lines with flags & which."""
    f = lines_u8(flags)
    return lib.kr_cartesian_count(_u8p(f), f.size, which)


def undersample(kspace, flags, inplace=False, ctx=None):
    """k-space (..., ny, nx) with every line j where flags[j] == 0 set to zero: a new array,
    or kspace itself with inplace=True (host or device)."""
    x = kspace if inplace else A.copy_of(kspace)
    a = A.arg(x, "the k-space", dtypes=(C64,))
    if a.obj is not x and inplace:
        raise A.DTypeError("kray: undersample(inplace=True) needs contiguous complex64 k-space")
    if len(a.shape) < 2:
        raise A.DimensionError("kray: the k-space must be (..., ny, nx)")
    f = lines_u8(flags, a.shape[-2])
    c = context(a, ctx=ctx)
    lib.kr_cartesian_undersample(c.ptr, a.ref(), _u8p(f))
    return kspace if inplace else a.obj


class SensePlan(Plan):
    """SENSE plan for coil maps (complex64 (C, ny, nx), host or a CUDA device; copied): the
    lattice of every `accel`-th line from `offset`, or `lines` (ny flags; any set), Tikhonov
    `lam`, noise covariance `psi` ((C, C) complex, host; the plan pre-whitens). Runs where
    the maps live (or `device`)."""
    _destroy = lib.kr_sense_plan_destroy

    def __init__(self, maps, accel=1, offset=0, lines=None, lam=0.0, psi=None, device=None,
                 ctx=None):
        m = coil_data(maps, "the coil maps")
        self.shape = tuple(m.shape[-2:])
        self.ncoils = prod(m.shape[:-2])
        ctx, kind, dev = place(device, ctx, (m,))
        o = SenseOpts()
        lib.kr_sense_opts_default(byref(o))
        o.accel, o.offset, o.lambda_ = accel, offset, lam
        f = lines_u8(lines, self.shape[0])
        if f is not None:
            o.lines = _u8p(f)
        ps = None
        if psi is not None:
            ps = A.matrix_arg(psi, "psi", (A.KR_C64, A.KR_C128))
            o.psi = pointer(ps.c)
        p = c_void_p()
        lib.kr_sense_plan_create(byref(p), ctx.ptr, m.ref(), byref(o))
        self._init(p, ctx, kind, dev)

    @property
    def info(self):
        """dict: method ("lattice" or "general"), accel, fold, systems, lines, singular."""
        i = SenseInfo()
        lib.kr_sense_plan_info(self.ptr, byref(i))
        d = fields(i)
        d["method"] = {1: "lattice", 2: "general"}.get(i.method, i.method)
        return d

    def _run(self, f, data, gfactor, what):
        a = coil_data(data, what)
        img = A.out(a, self.shape, C64)
        g = A.out(a, self.shape, F32) if gfactor else None
        self._args(a, img, g)
        f(self.ptr, a.ref(), img.ref(), g.ref() if g else None)
        return (img.obj, g.obj) if gfactor else img.obj

    def __call__(self, kspace, gfactor=False):
        """The image (ny, nx) from k-space (C, ny, nx) (lines outside the plan's set are
        ignored); with gfactor=True also the g-factor map (float32 (ny, nx))."""
        return self._run(lib.kr_sense_execute, kspace, gfactor, "the k-space")

    execute = __call__

    def unfold(self, aliased, gfactor=False):
        """The same from zero-filled coil images F^H (M y) (C, ny, nx)."""
        return self._run(lib.kr_sense_unfold, aliased, gfactor, "the aliased images")

    def gfactor(self):
        """The g-factor map alone (float32 (ny, nx))."""
        g = A.out(self._like(), self.shape, F32)
        self._args(g)
        lib.kr_sense_gfactor(self.ptr, g.ref())
        return g.obj


def operator(maps, lines=None, device=None, ctx=None):
    """The SENSE encoding operator E = M F S as a :class:`~kray.linop.Linop`: domain (ny, nx),
    codomain (C, ny, nx) (zero on lines not acquired); maps (C, ny, nx) complex64, lines ny
    flags (None = all). Lives where `device` says (None: where the maps live)."""
    m = coil_data(maps, "the coil maps")
    f = lines_u8(lines, m.shape[-2])
    ctx, _, dev = place(device, ctx, (m,))
    p = c_void_p()
    lib.kr_sense_linop_create(byref(p), ctx.ptr, m.ref(), _u8p(f),
                              A.KR_DEVICE if dev >= 0 else A.KR_HOST)
    return Linop(p, ctx)


def espirit(kspace, kernel=6, calib=24, threshold=0.001 ** 0.5, crop=0.8, rotate_phase=True,
            eigenvalues=False, ctx=None):
    """ESPIRiT coil maps (complex64 (C, ny, nx) or (C, nz, ny, nx), host) from 2-D or 3-D
    k-space of the same shape with a fully sampled centre (Uecker et al. 2014; BART ecalib's
    defaults; a 3-D kernel and calibration region for 3-D data). eigenvalues=True also returns
    the largest eigenvalue per voxel (float32 (ny, nx) or (nz, ny, nx)). With a CUDA ctx the
    per-voxel eigenvectors are computed on the device; the result is on the host."""
    a = coil_data(kspace, "the k-space")
    o = EspiritOpts()
    lib.kr_espirit_opts_default(byref(o))
    o.kernel, o.calib, o.threshold, o.crop = kernel, calib, threshold, crop
    o.rotate_phase = int(bool(rotate_phase))
    m = POINTER(A.KrArray)()
    e = POINTER(A.KrArray)()
    lib.kr_espirit(ctx.ptr if ctx is not None else None, a.ref(), byref(o), byref(m),
                   byref(e) if eigenvalues else None)
    maps = host_out(m, a)
    return (maps, host_out(e, a)) if eigenvalues else maps
