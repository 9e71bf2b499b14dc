"""MRI simulation: pulse sequences, isochromats and the Bloch simulator (kray/sim.h).

Units: seconds in sequences (te_ms/tr_ms in the builders), mm, mT/m, T/m/s, microtesla,
Hz, T1/T2 in ms. A 90 degree pulse of phase 0 leaves Mxy = i M0; an ideal acquisition is
s(k) = sum M exp(-i 2 pi k.r). Simulated k-space comes back as complex64 (coils, nsamples);
:meth:`Sequence.sort_kspace` turns the samples of a Cartesian sequence into (coils, ny, nx).
"""
from ctypes import POINTER, byref, c_char_p, c_double, c_float, c_int32, c_int64, c_void_p
import os

from math import prod

import numpy as np

from .._lib import InvalidArgumentError, fields, fn, lib, parr, pparr
from .. import _array as A
from .._handle import Handle
from .._plan import Plan, choice, place
from ._common import C64
from ._seqtypes import (Adc, Block, CartOpts, EpiOpts, Grad, Iso, Limits,
                        PulseqWriteOpts, SeqInfo, SimInfo, SimOpts)

GAMMA_BAR_HZ_PER_T = 42.577478518e6
SPOIL = {"none": 0, "ideal": 1, "gradient": 2, "rf": 3}
EPI_ORDER = {"interleaved": 0, "sequential": 1}

fn("kr_seq_limits_default", [POINTER(Limits)], None)
fn("kr_seq_block_init", [POINTER(Block)], None)
fn("kr_seq_trap", [POINTER(Grad), POINTER(c_double), POINTER(c_double), c_double, c_double,
                   c_double, c_double, c_double], None)
fn("kr_seq_create", [POINTER(c_void_p), POINTER(Limits)])
fn("kr_seq_destroy", [c_void_p], None)
fn("kr_seq_add_block", [c_void_p, POINTER(Block)])
fn("kr_seq_check", [c_void_p])
fn("kr_seq_get_info", [c_void_p, POINTER(SeqInfo)])
fn("kr_seq_get_block", [c_void_p, c_int64, POINTER(Block)])
fn("kr_seq_get_adc", [c_void_p, c_int64, POINTER(c_int64), POINTER(c_int64), POINTER(Adc)])
fn("kr_seq_cart_opts_default", [POINTER(CartOpts)], None)
fn("kr_seq_gre", [POINTER(c_void_p), POINTER(CartOpts)])
fn("kr_seq_se", [POINTER(c_void_p), POINTER(CartOpts)])
fn("kr_seq_epi_opts_default", [POINTER(EpiOpts)], None)
fn("kr_seq_se_epi", [POINTER(c_void_p), POINTER(EpiOpts)])
fn("kr_seq_se_line_time", [c_void_p, c_int32, POINTER(c_double)])
fn("kr_seq_sort_kspace", [c_void_p, parr, c_int64, c_int64, pparr])
fn("kr_seq_read_pulseq", [POINTER(c_void_p), c_char_p, POINTER(Limits)])
fn("kr_pulseq_write_opts_default", [POINTER(PulseqWriteOpts)], None)
fn("kr_seq_write_pulseq", [c_void_p, c_char_p, POINTER(PulseqWriteOpts)])
fn("kr_sim_opts_default", [POINTER(SimOpts)], None)
fn("kr_sim_plan_create", [POINTER(c_void_p), c_void_p, c_void_p, POINTER(SimOpts)])
fn("kr_sim_plan_destroy", [c_void_p], None)
fn("kr_sim_set_object", [c_void_p, POINTER(Iso), parr])
fn("kr_sim_execute", [c_void_p, parr])
fn("kr_sim_get_state", [c_void_p, POINTER(Iso)])
fn("kr_sim_get_info", [c_void_p, POINTER(SimInfo)])
fn("kr_sim", [c_void_p, c_void_p, POINTER(Iso), parr, pparr])


def _limits(limits):
    lim = Limits()
    lib.kr_seq_limits_default(byref(lim))
    for k, v in (limits or {}).items():
        if k not in ("gmax_mT_m", "smax_T_m_s", "b1max_uT"):
            raise InvalidArgumentError("kray: unknown sequence limit %r" % k)
        setattr(lim, k, v)
    return lim


def _set(o, fields, what):
    names = {f[0] for f in type(o)._fields_}
    for k, v in fields.items():
        if k not in names:
            raise InvalidArgumentError("kray: %s has no option %r (options: %s)" %
                                       (what, k, ", ".join(sorted(names))))
        setattr(o, k, v)


def trap(delay_s, amp_mT_m, rise_s, flat_s, fall_s):
    """A trapezoid's corner points (t_s (4,), g_mT_m (4,)) for :meth:`Sequence.add_block`."""
    t, g = (c_double * 4)(), (c_double * 4)()
    gr = Grad()
    lib.kr_seq_trap(byref(gr), t, g, delay_s, amp_mT_m, rise_s, flat_s, fall_s)
    return np.array(t[:]), np.array(g[:])


class Sequence(Handle):
    """A pulse sequence (kr_seq): blocks in time order. Build with the constructors
    :meth:`gre`, :meth:`se`, :meth:`se_epi`, :meth:`read_pulseq`, or ``Sequence(limits)``
    and :meth:`add_block`. limits: dict of gmax_mT_m (40), smax_T_m_s (200), b1max_uT (0 =
    unchecked)."""
    _destroy = lib.kr_seq_destroy

    def __init__(self, limits=None, _ptr=None):
        if _ptr is None:
            _ptr = c_void_p()
            lib.kr_seq_create(byref(_ptr), byref(_limits(limits)))
        self._ptr = _ptr

    @classmethod
    def _build(cls, f, opts_type, default, what, limits, opts, **choices):
        """A sequence from builder f(&seq, &o): o of `opts_type` set by `default`, `opts`
        (field values) and `choices` (field: (value, table)), limits a dict or None."""
        o = opts_type()
        default(byref(o))
        _set(o, opts, what)
        for k, (v, table) in choices.items():
            setattr(o, k, choice(v, table, k))
        if limits:
            o.limits = _limits(limits)
        p = c_void_p()
        f(byref(p), byref(o))
        return cls(_ptr=p)

    @classmethod
    def gre(cls, spoil="rf", limits=None, **opts):
        """Cartesian gradient echo with hard pulses. Options (kr_seq_cart_opts): nx, ny,
        fov_x_mm, fov_y_mm, te_ms, tr_ms, flip_deg, bw_hz_px, rf_dur_s, raster_s, spoil
        ("none", "ideal", "gradient", "rf"), spoil_cycles, rf_spoil_deg, ndummy."""
        return cls._build(lib.kr_seq_gre, CartOpts, lib.kr_seq_cart_opts_default, "gre", limits,
                          opts, spoil=(spoil, SPOIL))

    @classmethod
    def se(cls, limits=None, **opts):
        """Cartesian spin echo (options as :meth:`gre`, plus refocus_deg)."""
        return cls._build(lib.kr_seq_se, CartOpts, lib.kr_seq_cart_opts_default, "se", limits,
                          opts)

    @classmethod
    def se_epi(cls, order="interleaved", limits=None, **opts):
        """Single-echo spin-echo EPI. Options (kr_seq_epi_opts): nx, ny, fov_x_mm, fov_y_mm,
        te_ms, tr_ms, flip_deg, refocus_deg, bw_hz_px, rf_dur_s, raster_s, shots, order
        ("interleaved", "sequential"), ndummy."""
        return cls._build(lib.kr_seq_se_epi, EpiOpts, lib.kr_seq_epi_opts_default, "se_epi",
                          limits, opts, order=(order, EPI_ORDER))

    @classmethod
    def read_pulseq(cls, path, limits=None):
        """Read a Pulseq 1.2-1.4 .seq file."""
        p = c_void_p()
        lib.kr_seq_read_pulseq(byref(p), os.fsencode(path), byref(_limits(limits)))
        return cls(_ptr=p)

    def write_pulseq(self, path, name=None, fov_mm=(0.0, 0.0, 0.0), grad_raster_s=10e-6,
                     rf_raster_s=1e-6, adc_raster_s=1e-7, block_raster_s=10e-6):
        """Write a Pulseq 1.4.0 file."""
        o = PulseqWriteOpts()
        lib.kr_pulseq_write_opts_default(byref(o))
        o.grad_raster_s, o.rf_raster_s = grad_raster_s, rf_raster_s
        o.adc_raster_s, o.block_raster_s = adc_raster_s, block_raster_s
        nm = None if name is None else name.encode()
        o.name = nm
        for i in range(3):
            o.fov_mm[i] = fov_mm[i]
        lib.kr_seq_write_pulseq(self.ptr, os.fsencode(path), byref(o))

    def add_block(self, duration_s, start_s=-1.0, rf=None, grad=(None, None, None), adc=None,
                  spoil=False):
        """Append a block (validated; on failure the sequence is unchanged).

        rf: dict(n, delay_s, dt_s, b1_uT (complex (n,) samples, microtesla; omit for a hard
        pulse of amp_uT), amp_uT, phase_rad, freq_hz); grad: three entries (x, y, z), each None
        or (t_s, g_mT_m) corner points; adc: dict(n, delay_s, dwell_s, phase_rad, freq_hz,
        line, partition, echo, slice, reverse); spoil: ideal spoiling at the block's end."""
        b = Block()
        lib.kr_seq_block_init(byref(b))
        b.start_s, b.duration_s, b.spoil = start_s, duration_s, int(bool(spoil))
        keep = []
        if rf is not None:
            rf = dict(rf)
            b1 = rf.pop("b1_uT", None)
            _set(b.rf, rf, "rf")
            if b1 is not None:
                c = np.ascontiguousarray(np.asarray(b1, dtype=np.complex64)).reshape(-1)
                if "n" not in rf:
                    b.rf.n = c.size
                if c.size != b.rf.n:
                    raise A.DimensionError("kray: rf b1_uT has %d samples, n is %d" %
                                           (c.size, b.rf.n))
                keep.append(c)
                b.rf.b1_uT = c.ctypes.data_as(POINTER(c_float))
        if grad is None or len(grad) != 3:
            raise InvalidArgumentError("kray: grad must have three entries (x, y, z)")
        for i, gr in enumerate(grad):
            if gr is None:
                continue
            t = np.ascontiguousarray(gr[0], dtype=np.float64).reshape(-1)
            g = np.ascontiguousarray(gr[1], dtype=np.float64).reshape(-1)
            if t.size != g.size:
                raise A.DimensionError("kray: gradient %d has %d times and %d amplitudes" %
                                       (i, t.size, g.size))
            keep += [t, g]
            b.grad[i].n = t.size
            b.grad[i].t_s = t.ctypes.data_as(POINTER(c_double))
            b.grad[i].g_mT_m = g.ctypes.data_as(POINTER(c_double))
        if adc is not None:
            _set(b.adc, dict(adc), "adc")
        lib.kr_seq_add_block(self.ptr, byref(b))
        return self

    def check(self):
        """Raise unless the sequence is complete (kr_seq_check)."""
        lib.kr_seq_check(self.ptr)

    @property
    def info(self):
        """dict: nblocks, nadc, nsamples, duration_s."""
        i = SeqInfo()
        lib.kr_seq_get_info(self.ptr, byref(i))
        return fields(i)

    def block(self, i):
        """Block i as a dict (start_s resolved; rf with b1_uT (complex64) when sampled; grad as
        three (t_s, g_mT_m) or None; adc; spoil)."""
        b = Block()
        lib.kr_seq_get_block(self.ptr, i, byref(b))
        rf = None
        if b.rf.n:
            rf = {k: getattr(b.rf, k) for k in ("n", "delay_s", "dt_s", "amp_uT",
                                                 "phase_rad", "freq_hz")}
            if b.rf.b1_uT:
                a = np.ctypeslib.as_array(b.rf.b1_uT, (2 * b.rf.n,)).copy()
                rf["b1_uT"] = a.view(np.complex64)
        grads = []
        for g in b.grad:
            grads.append(None if not g.n else
                         (np.ctypeslib.as_array(g.t_s, (g.n,)).copy(),
                          np.ctypeslib.as_array(g.g_mT_m, (g.n,)).copy()))
        return {"start_s": b.start_s, "duration_s": b.duration_s, "rf": rf, "grad": grads,
                "adc": fields(b.adc) if b.adc.n else None, "spoil": bool(b.spoil)}

    def adc(self, i):
        """ADC event i in time order: (block index, first output sample, adc dict)."""
        blk, first, a = c_int64(), c_int64(), Adc()
        lib.kr_seq_get_adc(self.ptr, i, byref(blk), byref(first), byref(a))
        return blk.value, first.value, fields(a)

    def se_line_time(self, line):
        """Time (s) of the kx = 0 sample of `line` from the centre of its excitation."""
        t = c_double()
        lib.kr_seq_se_line_time(self.ptr, line, byref(t))
        return t.value

    def sort_kspace(self, samples, nx, ny):
        """Cartesian k-space complex64 (coils, ny, nx) from the simulator's output (coils,
        nsamples) (host); ADC event lines fill rows, reversed readouts flipped."""
        s = A.arg(samples, "the samples", dtypes=(C64,))
        p = POINTER(A.KrArray)()
        lib.kr_seq_sort_kspace(self.ptr, s.ref(), nx, ny, byref(p))
        k = A.adopt(p)
        return k.reshape((k.shape[0], ny, nx))


from .sim_iso import Isochromats, iso_opts  # noqa: E402, F401 (part of kray.mri.sim)


class SimPlan(Plan):
    """A Bloch simulation plan: the sequence compiled for the CPU or (device = int) a CUDA
    device. fast_math (CUDA hardware sin/cos/exp), rf_max_dt_s (subdivide RF samples),
    iso_per_thread (CUDA, 0 = auto). :meth:`set_object`, then :meth:`__call__`."""
    _destroy = lib.kr_sim_plan_destroy

    def __init__(self, seq, device=None, fast_math=True, rf_max_dt_s=0.0, iso_per_thread=0,
                 ctx=None):
        ctx, kind, dev = place(device, ctx, ())
        o = SimOpts()
        lib.kr_sim_opts_default(byref(o))
        o.fast_math, o.rf_max_dt_s, o.iso_per_thread = int(bool(fast_math)), rf_max_dt_s, \
            iso_per_thread
        p = c_void_p()
        lib.kr_sim_plan_create(byref(p), ctx.ptr, seq.ptr, byref(o))
        self._init(p, ctx, kind, dev)

    def set_object(self, iso, sens=None):
        """Set the object (copied): Isochromats and optional receive sensitivities sens
        (complex64 host (coils, n); None = one coil of sensitivity 1)."""
        s = None
        if sens is not None:
            s = A.arg(sens, "the sensitivities", dtypes=(C64,))
            if s.device >= 0:
                raise A.LocationError("kray: sensitivities must be a host array")
            nc = prod(s.shape) // iso.n if iso.n else 0
            A.redim(s, [iso.n, nc], "the sensitivities")
        lib.kr_sim_set_object(self.ptr, iso.ptr, s.ref() if s else None)
        return self

    @property
    def info(self):
        """dict: nsteps, nintervals, nsamples, niso, ncoils, iso_steps."""
        i = SimInfo()
        lib.kr_sim_get_info(self.ptr, byref(i))
        return fields(i)

    def __call__(self, out=None):
        """Simulate from the object's initial state: complex64 (coils, nsamples) (host, or a
        CuPy/torch array on the plan's device)."""
        i = self.info
        o = A.output(out, self._like(), (i["ncoils"], i["nsamples"]), C64)
        self._args(o)
        lib.kr_sim_execute(self.ptr, o.ref() if i["nsamples"] else None)
        return A.result(out, o)

    execute = __call__

    def get_state(self, iso):
        """Copy the final magnetisation of the last run into iso.mx, my, mz."""
        lib.kr_sim_get_state(self.ptr, iso.ptr)
        return iso


def simulate(seq, iso, sens=None, device=None, **opts):
    """One simulation: complex64 (coils, nsamples) of Sequence seq on Isochromats iso with
    optional sensitivities (coils, n). Host: kr_sim; device: a SimPlan on that device."""
    if device is None:
        s = None
        if sens is not None:
            s = A.arg(sens, "the sensitivities", dtypes=(C64,))
            nc = prod(s.shape) // iso.n if iso.n else 0
            A.redim(s, [iso.n, nc], "the sensitivities")
        p = POINTER(A.KrArray)()
        from .._ctx import cpu_context
        lib.kr_sim(cpu_context().ptr, seq.ptr, iso.ptr, s.ref() if s else None, byref(p))
        k = A.adopt(p)
        return k.reshape(k.shape[0] if k.ndim > 1 else 1, -1)
    with SimPlan(seq, device=device, **opts) as p:
        p.set_object(iso, sens)
        return p()
