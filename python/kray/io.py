"""Files: every format kray reads and writes (see docs/formats.md).

``read(path)`` returns a NumPy array in Python order (slowest first: a kray volume of dims
(x, y, z) is shape (z, y, x)), without a copy of kray's buffer. ``write(path, a)`` writes any
NumPy/CuPy/PyTorch array (device arrays are copied to the host first). The format follows the
extension (.npy, .cfl/.hdr, .nii, .nii.gz, .mha, .mhd, .nrrd, .png, .pgm, .raw, .dcm).
"""
from ctypes import POINTER, Structure, byref, c_char, c_char_p, c_double, c_int, c_int64
import os

import numpy as np

from ._lib import KR_MAX_DIMS, fn, lib, parr, pparr, struct
from . import _array as A


@struct("kr_meta")
class Meta(Structure):
    _fields_ = [("spacing", c_double * 3), ("origin", c_double * 3),
                ("description", c_char * 128)]


@struct("kr_io_opts")
class IoOpts(Structure):
    _fields_ = [("raw_dtype", c_int), ("raw_ndim", c_int), ("raw_dims", c_int64 * KR_MAX_DIMS),
                ("raw_big_endian", c_int), ("raw_offset", c_int64), ("bits", c_int),
                ("window_set", c_int), ("window_lo", c_double), ("window_hi", c_double),
                ("slice", c_int), ("complex_part", c_int), ("nrrd_gzip", c_int),
                ("write_dtype", c_int), ("meta", POINTER(Meta)), ("axes", c_int)]


fn("kr_io_opts_default", [POINTER(IoOpts)], None)
fn("kr_read", [c_char_p, pparr, POINTER(Meta), POINTER(IoOpts)])
fn("kr_write", [c_char_p, parr, POINTER(IoOpts)])
fn("kr_format_from_path", [c_char_p], c_int)

_PARTS = {"magnitude": 0, "real": 1, "imag": 2, "phase": 3}


def _path(p):
    return os.fsencode(p)


_AXES = {"stored": 0, "image": 1}


def _axes(axes):
    if axes not in _AXES:
        raise ValueError("kray: axes is 'stored' or 'image', not %r" % (axes,))
    return _AXES[axes]


def read(path, meta=False, raw_dtype=None, raw_shape=None, raw_big_endian=False, raw_offset=0,
         axes="stored"):
    """Read a file into a new NumPy array (Python order).

    axes="image" reads a BART .cfl image (rows, columns as `bart toimg` draws them) as an
    upright (ny, nx, ...) image, swapping BART's first two axes; "stored" (default) keeps the
    file's order (k-space, sinograms, tables). Other formats ignore it (docs/conventions.md).

    meta=True also returns a dict with ``spacing`` and ``origin`` (mm, x/y/z order as stored)
    and ``description``. Raw files (.raw) need ``raw_dtype`` (NumPy dtype) and ``raw_shape``
    (Python order)."""
    o = IoOpts()
    lib.kr_io_opts_default(byref(o))
    if raw_dtype is not None:
        o.raw_dtype = A.kr_dtype(raw_dtype) or 0
    if raw_shape is not None:
        shape = tuple(raw_shape)
        o.raw_ndim = len(shape)
        for i, d in enumerate(reversed(shape)):
            o.raw_dims[i] = d
    o.raw_big_endian = 1 if raw_big_endian else 0
    o.raw_offset = raw_offset
    o.axes = _axes(axes)
    m = Meta()
    p = POINTER(A.KrArray)()
    lib.kr_read(_path(path), byref(p), byref(m), byref(o))
    a = A.adopt(p)
    if not meta:
        return a
    return a, {"spacing": tuple(m.spacing), "origin": tuple(m.origin),
               "description": m.description.decode("utf-8", "replace")}


def write(path, a, dtype=None, bits=8, window=None, slice=-1, part="magnitude", gzip=True,
          spacing=None, origin=None, description=None, axes="stored"):
    """Write array `a` (any kind; device arrays are copied to the host) to `path`.

    dtype: element type to store (NumPy dtype; None keeps a's). PNG/PGM: ``bits`` 8 or 16,
    ``window`` (lo, hi) or None for min..max, ``slice``: for a volume of shape (z, y, x), the
    index along z (-1 = central), ``part`` of complex data (magnitude, real, imag,
    phase). NRRD: ``gzip``. NIfTI/MHA/NRRD: ``spacing``/``origin`` in mm (x, y, z).
    axes="image": an image written to .cfl gets BART's (row, column) order, so `bart toimg`
    shows it upright ("stored", default: the array's own order)."""
    x = A.arg(A.to_host(a), "the array to write")
    o = IoOpts()
    lib.kr_io_opts_default(byref(o))
    if dtype is not None:
        code = A.kr_dtype(dtype)
        if code is None:
            raise A.DTypeError("kray: cannot store element type %s" % np.dtype(dtype))
        o.write_dtype = code
    o.bits = bits
    if window is not None:
        o.window_set = 1
        o.window_lo, o.window_hi = float(window[0]), float(window[1])
    o.slice = slice
    if part not in _PARTS:
        raise ValueError("kray: part must be one of %s, not %r" % (", ".join(_PARTS), part))
    o.complex_part = _PARTS[part]
    o.nrrd_gzip = 1 if gzip else 0
    o.axes = _axes(axes)
    if spacing is not None or origin is not None or description is not None:
        m = Meta()
        for i, v in enumerate(spacing or ()):
            m.spacing[i] = v
        for i, v in enumerate(origin or ()):
            m.origin[i] = v
        if description:
            m.description = description.encode()[:127]
        o.meta = POINTER(Meta)(m)
    lib.kr_write(_path(path), x.ref(), byref(o))
