"""ctypes mirrors of the sequence and simulator structs of kray/sim.h."""
from ctypes import POINTER, Structure, c_char_p, c_double, c_float, c_int, c_int32, c_int64

from .._lib import struct


@struct("kr_seq_limits")
class Limits(Structure):
    _fields_ = [("gmax_mT_m", c_double), ("smax_T_m_s", c_double), ("b1max_uT", c_double)]


@struct("kr_seq_rf")
class Rf(Structure):
    _fields_ = [("n", c_int64), ("delay_s", c_double), ("dt_s", c_double),
                ("b1_uT", POINTER(c_float)), ("amp_uT", c_double), ("phase_rad", c_double),
                ("freq_hz", c_double)]


@struct("kr_seq_grad")
class Grad(Structure):
    _fields_ = [("n", c_int), ("t_s", POINTER(c_double)), ("g_mT_m", POINTER(c_double))]


@struct("kr_seq_adc")
class Adc(Structure):
    _fields_ = [("n", c_int64), ("delay_s", c_double), ("dwell_s", c_double),
                ("phase_rad", c_double), ("freq_hz", c_double), ("line", c_int32),
                ("partition", c_int32), ("echo", c_int32), ("slice", c_int32),
                ("reverse", c_int32)]


@struct("kr_seq_block")
class Block(Structure):
    _fields_ = [("start_s", c_double), ("duration_s", c_double), ("rf", Rf),
                ("grad", Grad * 3), ("adc", Adc), ("spoil", c_int)]


@struct("kr_seq_info")
class SeqInfo(Structure):
    _fields_ = [("nblocks", c_int64), ("nadc", c_int64), ("nsamples", c_int64),
                ("duration_s", c_double)]


@struct("kr_seq_cart_opts")
class CartOpts(Structure):
    _fields_ = [("nx", c_int64), ("ny", c_int64), ("fov_x_mm", c_double),
                ("fov_y_mm", c_double), ("te_ms", c_double), ("tr_ms", c_double),
                ("flip_deg", c_double), ("refocus_deg", c_double), ("bw_hz_px", c_double),
                ("rf_dur_s", c_double), ("raster_s", c_double), ("spoil", c_int),
                ("spoil_cycles", c_double), ("rf_spoil_deg", c_double), ("ndummy", c_int),
                ("limits", Limits)]


@struct("kr_seq_epi_opts")
class EpiOpts(Structure):
    _fields_ = [("nx", c_int64), ("ny", c_int64), ("fov_x_mm", c_double),
                ("fov_y_mm", c_double), ("te_ms", c_double), ("tr_ms", c_double),
                ("flip_deg", c_double), ("refocus_deg", c_double), ("bw_hz_px", c_double),
                ("rf_dur_s", c_double), ("raster_s", c_double), ("shots", c_int),
                ("order", c_int), ("ndummy", c_int), ("limits", Limits)]


@struct("kr_pulseq_write_opts")
class PulseqWriteOpts(Structure):
    _fields_ = [("grad_raster_s", c_double), ("rf_raster_s", c_double),
                ("adc_raster_s", c_double), ("block_raster_s", c_double), ("name", c_char_p),
                ("fov_mm", c_double * 3)]


@struct("kr_iso")
class Iso(Structure):
    _fields_ = [("n", c_int64), ("x_mm", POINTER(c_float)), ("y_mm", POINTER(c_float)),
                ("z_mm", POINTER(c_float)), ("df_hz", POINTER(c_float)),
                ("t1_ms", POINTER(c_float)), ("t2_ms", POINTER(c_float)),
                ("m0", POINTER(c_float)), ("mx", POINTER(c_float)), ("my", POINTER(c_float)),
                ("mz", POINTER(c_float)), ("voxel", POINTER(c_int64))]


@struct("kr_iso_opts")
class IsoOpts(Structure):
    _fields_ = [("voxel_mm", c_double * 3), ("grid", c_int), ("sub", c_int * 3),
                ("nfreq", c_int), ("spread_hz", c_double), ("spread", c_int),
                ("decimate", c_int), ("z_mm", c_double), ("sine_amp_hz", c_double),
                ("sine_cycles", c_double), ("sine_axis", c_int)]


@struct("kr_sim_opts")
class SimOpts(Structure):
    _fields_ = [("fast_math", c_int), ("rf_max_dt_s", c_double), ("iso_per_thread", c_int)]


@struct("kr_sim_info")
class SimInfo(Structure):
    _fields_ = [("nsteps", c_int64), ("nintervals", c_int64), ("nsamples", c_int64),
                ("niso", c_int64), ("ncoils", c_int), ("iso_steps", c_double)]
