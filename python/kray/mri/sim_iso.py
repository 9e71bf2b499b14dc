"""Isochromat objects for the Bloch simulator (kr_iso of kray/sim.h)."""
import ctypes
from ctypes import POINTER, byref, c_float, c_int64

import numpy as np

from .._lib import InvalidArgumentError, fn, lib, parr
from .. import _array as A
from .._handle import Handle
from .._plan import choice
from ._common import REAL
from ._seqtypes import Iso, IsoOpts

SPREAD = {"uniform": 0, "lorentz": 1}
GRIDS = {"ct": 0, "fft": 1}
FIELDS = ("x_mm", "y_mm", "z_mm", "df_hz", "t1_ms", "t2_ms", "m0", "mx", "my", "mz", "voxel")

fn("kr_iso_create", [POINTER(POINTER(Iso)), c_int64])
fn("kr_iso_destroy", [POINTER(Iso)], None)
fn("kr_iso_equilibrium", [POINTER(Iso)])
fn("kr_iso_opts_default", [POINTER(IsoOpts)], None)
fn("kr_iso_from_maps", [POINTER(POINTER(Iso)), parr, parr, parr, parr, POINTER(IsoOpts)])
fn("kr_iso_from_tissue", [POINTER(POINTER(Iso)), parr, parr, POINTER(IsoOpts)])


def iso_opts(voxel_mm=(1.0, 1.0, 1.0), grid="fft", sub=(1, 1, 1), nfreq=1, spread_hz=0.0,
             spread="uniform", decimate=1, z_mm=0.0, sine_amp_hz=0.0, sine_cycles=1.0,
             sine_axis=1):
    """kr_iso_opts: voxel size (x, y, z) of the maps, grid ("fft": origin at pixel N//2,
    "ct"), sub-positions per voxel (x, y, z), nfreq frequency offsets spread over spread_hz
    ("uniform" width or "lorentz" half width), decimate (1, 2, 4), slab centre z_mm, and the
    sinusoidal off-resonance pattern (amplitude Hz, cycles across the FOV, axis 0 = x,
    1 = y)."""
    o = IsoOpts()
    lib.kr_iso_opts_default(byref(o))
    for i in range(3):
        o.voxel_mm[i] = voxel_mm[i]
        o.sub[i] = sub[i]
    o.grid = choice(grid, GRIDS, "grid")
    o.nfreq, o.spread_hz = nfreq, spread_hz
    o.spread = choice(spread, SPREAD, "spread")
    o.decimate, o.z_mm = decimate, z_mm
    o.sine_amp_hz, o.sine_cycles, o.sine_axis = sine_amp_hz, sine_cycles, sine_axis
    return o


class Isochromats(Handle):
    """A set of n isochromats (kr_iso, host memory owned by kray). The fields x_mm, y_mm,
    z_mm, df_hz, t1_ms, t2_ms, m0, mx, my, mz (float32 (n,)) and voxel (int64 (n,)) are NumPy
    views of kray's arrays: assign into them (``iso.t1_ms[:] = 800``) to set the object.
    ``Isochromats(n)`` makes n zeroed ones (voxel -1); see :meth:`from_maps`,
    :meth:`from_tissue`."""
    _destroy = lib.kr_iso_destroy

    def __init__(self, n=None, _ptr=None):
        if _ptr is None:
            if n is None or int(n) < 1:
                raise InvalidArgumentError("kray: Isochromats needs n >= 1")
            _ptr = POINTER(Iso)()
            lib.kr_iso_create(byref(_ptr), int(n))
        self._ptr = _ptr
        self.n = _ptr.contents.n
        c = _ptr.contents
        for f in FIELDS:
            ct = c_int64 if f == "voxel" else c_float
            buf = (ct * self.n).from_address(ctypes.addressof(getattr(c, f).contents))
            buf._owner = self  # a view keeps kray's memory alive
            object.__setattr__(self, "_" + f, np.frombuffer(buf, dtype=ct))

    def __getattr__(self, name):
        if name in FIELDS:
            if not self.__dict__.get("_ptr"):
                raise InvalidArgumentError("kray: the Isochromats is closed")
            return self.__dict__["_" + name]
        raise AttributeError(name)

    def __setattr__(self, name, value):
        if name in FIELDS:
            getattr(self, name)[...] = value
        else:
            object.__setattr__(self, name, value)

    def __len__(self):
        return self.n

    def equilibrium(self):
        """mx = my = 0, mz = m0."""
        lib.kr_iso_equilibrium(self.ptr)
        return self

    @classmethod
    def from_maps(cls, t1_ms, t2_ms, pd, df_hz=None, **opts):
        """Isochromats from host maps (real, Python shape (ny, nx) or (nz, ny, nx)): T1, T2
        (ms), proton density, optional off-resonance (Hz); opts as :func:`iso_opts`."""
        o = iso_opts(**opts)
        m = [None if x is None else A.arg(x, w, dtypes=REAL) for x, w in
             ((t1_ms, "T1"), (t2_ms, "T2"), (pd, "PD"), (df_hz, "the off-resonance map"))]
        p = POINTER(Iso)()
        lib.kr_iso_from_maps(byref(p), *[a.ref() if a else None for a in m], byref(o))
        return cls(_ptr=p)

    @classmethod
    def from_tissue(cls, tissue, df_hz=None, **opts):
        """Isochromats from a tissue array (3, ny, nx) of planes T1 (ms), T2 (ms), PD (as
        `kray phantom --kind mr`), optional off-resonance (ny, nx) in Hz."""
        t = A.arg(tissue, "the tissue maps", dtypes=REAL)
        d = None if df_hz is None else A.arg(df_hz, "the off-resonance map", dtypes=REAL)
        o = iso_opts(**opts)
        p = POINTER(Iso)()
        lib.kr_iso_from_tissue(byref(p), t.ref(), d.ref() if d else None, byref(o))
        return cls(_ptr=p)
