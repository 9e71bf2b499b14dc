import ctypes
from ctypes import Structure
from typing import Any, Optional

class Limits(Structure):
    gmax_mT_m: float
    smax_T_m_s: float
    b1max_uT: float

class Rf(Structure):
    n: int
    delay_s: float
    dt_s: float
    b1_uT: Any
    amp_uT: float
    phase_rad: float
    freq_hz: float

class Grad(Structure):
    n: int
    t_s: Any
    g_mT_m: Any

class Adc(Structure):
    n: int
    delay_s: float
    dwell_s: float
    phase_rad: float
    freq_hz: float
    line: int
    partition: int
    echo: int
    slice: int
    reverse: int

class Block(Structure):
    start_s: float
    duration_s: float
    rf: Rf
    grad: ctypes.Array[Any]
    adc: Adc
    spoil: int

class SeqInfo(Structure):
    nblocks: int
    nadc: int
    nsamples: int
    duration_s: float

class CartOpts(Structure):
    nx: int
    ny: int
    fov_x_mm: float
    fov_y_mm: float
    te_ms: float
    tr_ms: float
    flip_deg: float
    refocus_deg: float
    bw_hz_px: float
    rf_dur_s: float
    raster_s: float
    spoil: int
    spoil_cycles: float
    rf_spoil_deg: float
    ndummy: int
    limits: Limits

class EpiOpts(Structure):
    nx: int
    ny: int
    fov_x_mm: float
    fov_y_mm: float
    te_ms: float
    tr_ms: float
    flip_deg: float
    refocus_deg: float
    bw_hz_px: float
    rf_dur_s: float
    raster_s: float
    shots: int
    order: int
    ndummy: int
    limits: Limits

class PulseqWriteOpts(Structure):
    grad_raster_s: float
    rf_raster_s: float
    adc_raster_s: float
    block_raster_s: float
    name: Optional[bytes]
    fov_mm: ctypes.Array[Any]

class Iso(Structure):
    n: int
    x_mm: Any
    y_mm: Any
    z_mm: Any
    df_hz: Any
    t1_ms: Any
    t2_ms: Any
    m0: Any
    mx: Any
    my: Any
    mz: Any
    voxel: Any

class IsoOpts(Structure):
    voxel_mm: ctypes.Array[Any]
    grid: int
    sub: ctypes.Array[Any]
    nfreq: int
    spread_hz: float
    spread: int
    decimate: int
    z_mm: float
    sine_amp_hz: float
    sine_cycles: float
    sine_axis: int

class SimOpts(Structure):
    fast_math: int
    rf_max_dt_s: float
    iso_per_thread: int

class SimInfo(Structure):
    nsteps: int
    nintervals: int
    nsamples: int
    niso: int
    ncoils: int
    iso_steps: float
