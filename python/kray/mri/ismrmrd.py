"""ISMRMRD raw data files (kray/ismrmrd.h): 2-D Cartesian k-space, line flags, noise scans and
the noise covariance; images and NDArrays. Needs a libkray built with libismrmrd: otherwise every
function raises :class:`kray.NotSupportedError` (:func:`available` says which).
"""
from ctypes import (POINTER, Structure, byref, c_char, c_char_p, c_double, c_int, c_int64,
                    c_uint8)
import os

from math import prod

import numpy as np

from .._lib import fn, lib, parr, pparr, struct
from .. import _array as A
from ._common import C64, lines_u8


@struct("kr_ismrmrd_read_opts")
class ReadOpts(Structure):
    _fields_ = [("dataset", c_char_p), ("repetition", c_int), ("slice", c_int),
                ("remove_oversampling", c_int)]


@struct("kr_ismrmrd_data")
class Data(Structure):
    _fields_ = [("kspace", parr), ("calib", parr), ("lines", POINTER(c_uint8)),
                ("noise", parr), ("psi", parr), ("nx", c_int64), ("ny", c_int64),
                ("nc", c_int64), ("enc_matrix", c_int64 * 3), ("recon_matrix", c_int64 * 3),
                ("enc_fov_mm", c_double * 3), ("recon_fov_mm", c_double * 3),
                ("e1_min", c_int64), ("e1_max", c_int64), ("e1_center", c_int64),
                ("accel", c_int), ("repetitions", c_int), ("acquisitions", c_int64),
                ("dwell_us", c_double), ("calibration_mode", c_char * 32)]


@struct("kr_ismrmrd_write_opts")
class WriteOpts(Structure):
    _fields_ = [("dataset", c_char_p), ("fov_mm", c_double * 3), ("accel", c_int),
                ("dwell_us", c_double), ("h1_hz", c_double)]


fn("kr_ismrmrd_read_opts_default", [POINTER(ReadOpts)], None)
fn("kr_have_ismrmrd", [], c_int)
fn("kr_ismrmrd_read", [c_char_p, POINTER(ReadOpts), POINTER(Data)])
fn("kr_ismrmrd_data_destroy", [POINTER(Data)], None)
fn("kr_ismrmrd_write_opts_default", [POINTER(WriteOpts)], None)
fn("kr_ismrmrd_write", [c_char_p, POINTER(WriteOpts), parr, POINTER(c_uint8), parr])
fn("kr_ismrmrd_read_image", [c_char_p, c_char_p, c_char_p, c_int, pparr])
fn("kr_ismrmrd_read_array", [c_char_p, c_char_p, c_char_p, c_int, pparr])


def available():
    """True when this libkray was built with libismrmrd."""
    return bool(lib.kr_have_ismrmrd())


def _s(x):
    return None if x is None else x.encode()


def _copy(p):
    """A NumPy copy of a kray host array owned by a kr_ismrmrd_data (None for NULL)."""
    if not p:
        return None
    c = p.contents
    shape = A.c_shape(c)
    n = prod(shape)
    dt = A.np_dtype(c.dtype)
    buf = (c_uint8 * (n * dt.itemsize)).from_address(c.data)
    return np.frombuffer(buf, dtype=dt).reshape(shape).copy()


def read(path, dataset=None, repetition=0, slice=0, remove_oversampling=True):
    """Read 2-D Cartesian data. Returns a dict: kspace (complex64 (C, ny, nx), zero where not
    sampled), calib (mean of every line over all repetitions, or None), lines (uint8 (ny,)
    KR_LINE flags), noise ((C, nsamples) or None), psi ((C, C) complex128 noise covariance per
    imaging sample, or None), the sizes and header fields (nx, ny, nc, enc_matrix,
    recon_matrix, enc_fov_mm, recon_fov_mm (x, y, z), e1_min, e1_max, e1_center, accel,
    repetitions, acquisitions, dwell_us, calibration_mode)."""
    o = ReadOpts()
    lib.kr_ismrmrd_read_opts_default(byref(o))
    ds = _s(dataset)
    o.dataset = ds
    o.repetition, o.slice = repetition, slice
    o.remove_oversampling = int(bool(remove_oversampling))
    d = Data()
    try:
        lib.kr_ismrmrd_read(os.fsencode(path), byref(o), byref(d))
        r = {"kspace": _copy(d.kspace), "calib": _copy(d.calib), "noise": _copy(d.noise)}
        psi = _copy(d.psi)
        r["psi"] = None if psi is None else np.ascontiguousarray(psi.T)
        r["lines"] = np.ctypeslib.as_array(d.lines, (d.ny,)).copy() if d.lines else None
        for f in ("nx", "ny", "nc", "e1_min", "e1_max", "e1_center", "accel", "repetitions",
                  "acquisitions", "dwell_us"):
            r[f] = getattr(d, f)
        for f in ("enc_matrix", "recon_matrix", "enc_fov_mm", "recon_fov_mm"):
            r[f] = tuple(getattr(d, f))
        r["calibration_mode"] = d.calibration_mode.decode("utf-8", "replace")
        return r
    finally:
        lib.kr_ismrmrd_data_destroy(byref(d))


def write(path, kspace, lines=None, noise=None, dataset=None, fov_mm=(256.0, 256.0, 5.0),
          accel=1, dwell_us=5.0, h1_hz=63.87e6):
    """Write simulated Cartesian data: kspace complex64 (C, ny, nx) (host), one acquisition per
    line with lines[j] != 0 (None = all; KR_LINE flags), noise (C, nsamples) complex64 noise
    scans or None. The file is replaced."""
    k = A.arg(kspace, "the k-space", dtypes=(C64,))
    if len(k.shape) != 3:
        raise A.DimensionError("kray: the k-space must be (coils, ny, nx), not %s" % (k.shape,))
    f = lines_u8(lines, k.shape[1])
    nz = None if noise is None else A.arg(noise, "the noise", dtypes=(C64,))
    o = WriteOpts()
    lib.kr_ismrmrd_write_opts_default(byref(o))
    ds = _s(dataset)
    o.dataset = ds
    for i in range(3):
        o.fov_mm[i] = fov_mm[i]
    o.accel, o.dwell_us, o.h1_hz = accel, dwell_us, h1_hz
    lib.kr_ismrmrd_write(os.fsencode(path), byref(o), k.ref(),
                         None if f is None else f.ctypes.data_as(POINTER(c_uint8)),
                         nz.ref() if nz else None)


def read_image(path, var, index=0, dataset=None):
    """Image `index` of variable `var` as a host array (channels, z, y, x) (leading 1s dropped),
    float32 or complex64."""
    p = POINTER(A.KrArray)()
    lib.kr_ismrmrd_read_image(os.fsencode(path), _s(dataset), var.encode(), index, byref(p))
    return A.adopt(p)


def read_array(path, var, index=0, dataset=None):
    """NDArray `index` of variable `var` as a host array (ISMRMRD's dims reversed)."""
    p = POINTER(A.KrArray)()
    lib.kr_ismrmrd_read_array(os.fsencode(path), _s(dataset), var.encode(), index, byref(p))
    return A.adopt(p)
