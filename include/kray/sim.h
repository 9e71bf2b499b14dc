/* kray MRI simulation: pulse sequences (kr_seq), isochromat objects (kr_iso) and the Bloch
 * simulator (kr_sim_plan), on CPU and CUDA.
 *
 * UNITS. Time in seconds (double) inside sequences, te_ms/tr_ms in the builders; positions and
 * fields of view in mm; gradients in mT/m, slew rates in T/m/s; RF amplitude B1 in microtesla;
 * off-resonance in Hz; T1, T2 in ms. Protons: gamma-bar = KR_GAMMA_BAR_HZ_PER_T (CODATA 2018).
 *
 * FRAME AND SIGNS (the physics of dM/dt = gamma M x B, gamma > 0, in the frame rotating at the
 * Larmor frequency of the nominal field):
 *   - an isochromat at position r (mm) with off-resonance df (Hz) precesses about +z at
 *     f(t) = gamma-bar G(t).r + df; its transverse magnetisation Mxy = Mx + i My evolves as
 *     Mxy(t) = Mxy(0) exp(-i 2 pi integral f dt) (clockwise seen from +z);
 *   - an RF sample of complex amplitude B1 = |B1| exp(i phi) is the field (|B1| cos phi,
 *     |B1| sin phi) in the rotating frame; with the z field above it forms the effective field
 *     Beff and M turns clockwise about Beff by 2 pi gamma-bar |Beff| dt. A pulse of phase 0
 *     tips +z towards +y: a 90 degree pulse of phase phi leaves Mxy = i M0 exp(i phi);
 *   - k(t) = gamma-bar integral G dt (cycles per metre) counted from the start of the
 *     sequence; a sample is sum over isochromats of S Mxy exp(-i phase_adc), so an ideal
 *     acquisition is the forward Fourier transform with the NEGATIVE exponent,
 *     s(k) = sum M exp(-i 2 pi k.r), the convention of kr_phantom_kspace and of BART/numpy
 *     (image = centred inverse DFT of the k-space, divided by the number of samples).
 *
 * SEQUENCES. A kr_seq is a list of blocks in time order (as in Pulseq). Each block has a start
 * time, a duration and optional events: one RF pulse (piecewise-constant complex samples on a
 * raster), one gradient waveform per axis (piecewise linear through corner points: trapezoids
 * are four corners), one ADC event (n samples, sample k at delay + (k + 1/2) dwell, the
 * Pulseq convention), and an "ideal spoil" flag (Mxy := 0 at the block's end, a simulation
 * device for textbook steady states). Blocks may leave gaps (free precession, no gradient)
 * but never overlap. kr_seq_add_block copies the waveforms and checks everything it can:
 * timing (events inside the block, blocks in order), gradient amplitude and slew against the
 * sequence's limits, RF amplitude, and gradient continuity across block boundaries (a
 * gradient may be non-zero at a block boundary only when the neighbouring block starts
 * exactly there with the same value). Every such error is KR_ERR_INVALID_ARG with a sentence
 * naming the block, the event and the values.
 *
 * SIMULATION METHOD (kr_sim_*). The sequence is compiled into piecewise-constant steps whose
 * boundaries are the RF raster edges, the ADC sample times, block edges and gaps; consecutive
 * equal steps are merged into runs (a flat-top readout becomes one run of n samples).
 *   - Steps without RF: rotation about z by the exact phase 2 pi (gamma-bar r . integral G dt
 *     + df dt) (exact for any gradient shape, the integral of each linear piece is exact),
 *     then exact relaxation Mxy *= E2, Mz = Mz E1 + M0 (1 - E1), E = exp(-dt/T). The two
 *     commute, so these steps have no splitting error.
 *   - RF steps: the gradient is taken as its mean over the step; the rotation about the
 *     effective field is exact (Rodrigues' formula written with sin(theta/2) so that it stays
 *     accurate as the field goes to zero); relaxation is applied by symmetric (Strang)
 *     splitting, relax(dt/2) rotate relax(dt/2), whose local error is O(dt^3) (about
 *     theta^2 dt |1/T2 - 1/T1| / 8 per step for a rotation theta), so RF rasters of a few
 *     microseconds make it negligible; kr_sim_opts.rf_max_dt_s subdivides coarser rasters.
 *   - ADC: after the step that ends at a sample time, the transverse magnetisation is summed
 *     over isochromats, weighted by each receive coil's complex sensitivity, and multiplied
 *     by exp(-i (phase_rad + 2 pi freq_hz (t_k - delay))).
 *   - Runs of n equal ADC steps multiply Mxy by the same factor n times and then restore the
 *     end state from the closed form (one exp and one sin/cos per isochromat per run), so the
 *     rounding of the repeated products does not accumulate from run to run.
 *   Arithmetic is float32 (state, per-step coefficients); rotation phases are reduced to
 *   [-1/2, 1/2] cycles before sin/cos, so the phase error of a step is about 6e-8 times the
 *   number of cycles that step accrues. The CUDA backend uses hardware sin/cos/exp
 *   approximations by default (kr_sim_opts.fast_math; |error| < 1e-6 on the reduced range).
 *   Sums over isochromats: each fixed chunk of isochromats is summed in float in a fixed
 *   order, and chunks are combined in 64-bit fixed point (integer addition is associative),
 *   so results are bit-identical for any number of threads (CPU) and run to run (CUDA); the
 *   CPU and CUDA chunkings differ, so the two backends agree to float rounding only.
 */
#ifndef KRAY_SIM_H
#define KRAY_SIM_H

#include "kray/core.h"
#include "kray/phantom.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Proton gyromagnetic ratio / 2 pi, Hz per tesla (CODATA 2018: 42.577 478 518 MHz/T). */
#define KR_GAMMA_BAR_HZ_PER_T 42.577478518e6

/* ---- sequences ---------------------------------------------------------------------------- */
typedef struct kr_seq kr_seq;

typedef struct kr_seq_limits {
    double gmax_mT_m;  /* largest |gradient| per axis, mT/m (default 40) */
    double smax_T_m_s; /* largest |slew rate| per axis, T/m/s (default 200) */
    double b1max_uT;   /* largest |B1|, microtesla; 0 = not checked (default 0) */
} kr_seq_limits;

typedef struct kr_seq_rf {
    int64_t n;          /* raster samples; 0 = no RF in this block */
    double delay_s;     /* start of sample 0, from the block start (>= 0) */
    double dt_s;        /* raster: sample j is constant on [delay + j dt, delay + (j + 1) dt) */
    const float *b1_uT; /* 2 n floats, complex (re, im) B1 in microtesla; NULL: every sample is
                           amp_uT (a hard pulse) */
    double amp_uT;      /* used when b1_uT is NULL */
    double phase_rad;   /* added to every sample's phase */
    double freq_hz;     /* sample j gets the extra phase 2 pi freq_hz (centre of j - delay) */
} kr_seq_rf;

typedef struct kr_seq_grad {
    int n;                /* corner points; 0 = no gradient on this axis */
    const double *t_s;    /* n strictly increasing times from the block start, in [0, dur] */
    const double *g_mT_m; /* n amplitudes; linear between corners, 0 outside [t_0, t_n-1] */
} kr_seq_grad;

typedef struct kr_seq_adc {
    int64_t n;        /* samples; 0 = no ADC in this block */
    double delay_s;   /* from the block start */
    double dwell_s;   /* sample k is taken at delay + (k + 1/2) dwell */
    double phase_rad; /* receiver phase: sample k is multiplied by exp(-i (phase_rad + */
    double freq_hz;   /*   2 pi freq_hz (k + 1/2) dwell)) */
    int32_t line, partition, echo, slice; /* labels for reconstruction (builders: line = ky) */
    int32_t reverse; /* non-zero: the readout runs towards -kx, sample m belongs to column
                        n - 1 - m (EPI odd echoes; kr_seq_sort_kspace flips it back) */
} kr_seq_adc;

typedef struct kr_seq_block {
    double start_s;    /* < 0: right after the previous block (0 for the first) */
    double duration_s; /* > 0 */
    kr_seq_rf rf;
    kr_seq_grad grad[3]; /* x, y, z */
    kr_seq_adc adc;
    int spoil; /* non-zero: ideal spoiling, Mxy := 0 at the block's end */
} kr_seq_block;

typedef struct kr_seq_info {
    int64_t nblocks;
    int64_t nadc;      /* ADC events */
    int64_t nsamples;  /* ADC samples in all */
    double duration_s; /* end of the last block */
} kr_seq_info;

void kr_seq_limits_default(kr_seq_limits *lim);
/* An empty block: every field 0, start_s = -1 (append). */
void kr_seq_block_init(kr_seq_block *b);
/* A trapezoid as corner points written into t[4], g[4] (caller storage) and pointed to by
 * *grad: from delay, ramp up over rise, flat top, ramp down over fall. A zero rise or fall
 * is a jump (allowed only at a block edge where the neighbour continues the value). */
void kr_seq_trap(kr_seq_grad *grad, double t[4], double g[4], double delay_s, double amp_mT_m,
                 double rise_s, double flat_s, double fall_s);

/* lim NULL = kr_seq_limits_default. */
kr_status kr_seq_create(kr_seq **seq, const kr_seq_limits *lim);
void kr_seq_destroy(kr_seq *seq); /* accepts NULL */
/* Validate and append (copies the waveforms). On failure the sequence is unchanged. */
kr_status kr_seq_add_block(kr_seq *seq, const kr_seq_block *block);
/* Checks that need the whole sequence: at least one block, no gradient left non-zero at the
 * end of the last block. kr_sim_plan_create calls it. */
kr_status kr_seq_check(const kr_seq *seq);
kr_status kr_seq_get_info(const kr_seq *seq, kr_seq_info *info);
/* Block i (0-based): *block receives pointers into the sequence's own storage, valid until
 * the sequence is modified or destroyed; start_s is the resolved start time. */
kr_status kr_seq_get_block(const kr_seq *seq, int64_t i, kr_seq_block *block);
/* ADC event i in time order: its block, the index of its first sample in the simulator's
 * output and its copy (labels included). Any pointer may be NULL. */
kr_status kr_seq_get_adc(const kr_seq *seq, int64_t i, int64_t *block, int64_t *first_sample,
                         kr_seq_adc *adc);

/* ---- Cartesian sequence builders ---------------------------------------------------------- */
typedef enum kr_spoil {
    KR_SPOIL_NONE = 0,    /* unspoiled: phase encoding rewound, no spoiler */
    KR_SPOIL_IDEAL,       /* Mxy := 0 at the end of each TR (textbook Ernst steady state) */
    KR_SPOIL_GRADIENT,    /* spoiler on x (spoil_cycles per voxel) + phase rewinder */
    KR_SPOIL_RF_GRADIENT, /* as GRADIENT plus RF spoiling (quadratic phase, rf_spoil_deg) */
    KR_SPOIL_COUNT
} kr_spoil;

/* 2-D Cartesian imaging with non-selective hard pulses: readout along x (nx samples, FOV
 * fov_x_mm), phase encoding along y (ny lines, FOV fov_y_mm). ADC event j (j = 0 .. ny-1)
 * has label line = j and samples k-space line ky = (j - ny/2) / fov_y; sample m of a line is
 * kx = (m - nx/2) / fov_x (integer division), so the simulator's output read as [nx, ny] is
 * the centred k-space of an image on KR_GRID_FFT with pixel (fov_x/nx, fov_y/ny). TE is
 * measured from the centre of the excitation pulse to the sample m = nx/2; TR from one
 * excitation to the next. ndummy TRs without ADC come first (preparatory pulses). */
typedef struct kr_seq_cart_opts {
    int64_t nx, ny;            /* readout samples, phase-encode lines (>= 1; default 64) */
    double fov_x_mm, fov_y_mm; /* default 256 */
    double te_ms, tr_ms;       /* default 10, 100 (GRE) */
    double flip_deg;           /* excitation flip angle (default 90) */
    double refocus_deg;        /* spin echo: refocusing flip angle (default 180) */
    double bw_hz_px;           /* readout bandwidth per pixel: dwell = 1 / (bw nx) (400) */
    double rf_dur_s;           /* hard-pulse duration (default 200e-6) */
    double raster_s;           /* timing raster for gradients and delays (default 10e-6) */
    kr_spoil spoil;            /* GRE only (default KR_SPOIL_RF_GRADIENT) */
    double spoil_cycles;       /* spoiler dephasing across one voxel along x (default 4) */
    double rf_spoil_deg;       /* RF spoiling phase increment (default 117) */
    int ndummy;                /* preparatory TRs without ADC (default 0) */
    kr_seq_limits limits;      /* default kr_seq_limits_default */
} kr_seq_cart_opts;

void kr_seq_cart_opts_default(kr_seq_cart_opts *o);
/* Gradient echo (FLASH-like): excitation, phase encode + readout prephaser, readout,
 * spoiling, delay to TR. INVALID_ARG when TE or TR is shorter than the minimum the timing
 * allows (the sentence gives the minimum), or any parameter is out of range. */
kr_status kr_seq_gre(kr_seq **seq, const kr_seq_cart_opts *o);
/* Spin echo: 90 (phase 0) - TE/2 - refocusing pulse (phase 90 degrees) - readout centred at
 * TE; phase encode and prephaser after the refocusing pulse; ideal spoiling at the end of
 * each TR (so TR >> T2 is not needed for a clean steady state). */
kr_status kr_seq_se(kr_seq **seq, const kr_seq_cart_opts *o);

/* ---- single-echo spin-echo EPI (Mayo Sarmiento (2018)'s sequence) ---------------------------------- */
typedef enum kr_epi_order {
    KR_EPI_INTERLEAVED = 0, /* shot s acquires lines s, s + shots, s + 2 shots, ... */
    KR_EPI_SEQUENTIAL,      /* shot s acquires lines s ETL ... (s + 1) ETL - 1 (segments) */
    KR_EPI_ORDER_COUNT
} kr_epi_order;

/* Spin-echo EPI with hard pulses: per shot, 90 (phase 0) - refocusing pulse (phase 90
 * degrees) - prephaser (x: to -kx_max, y: to the shot's first line) - ETL = ny / shots
 * readout trapezoids of alternating polarity (ADC on the flat top only, no ramp sampling),
 * each followed by a triangular y blip to the shot's next line (lines in increasing ky) -
 * ideal spoiling and a delay to TR. ndummy preparatory shots (the whole shot, ADC off)
 * come first. k-space grid as the Cartesian builders: line j is ky = (j - ny/2) / fov_y,
 * column m is kx = (m - nx/2) / fov_x; echo e of a shot reads towards +kx when e is even
 * and towards -kx when e is odd (adc.reverse = 1: sample m is column nx - 1 - m), so
 * kr_seq_sort_kspace gives the Cartesian k-space. TE runs from the centre of the 90 degree
 * pulse to the sample of kx = 0 of line ny/2, which is also the spin echo (the refocusing
 * pulse sits at TE/2): every shot has the same timing, so its echo index c = position of
 * line ny/2 in its shot is acquired at TE in every shot. Echo spacing = readout trapezoid
 * (rise + flat + fall, flat = nx dwell rounded up to the raster) or rise + flat + blip when
 * the blip is longer than the fall. shots must divide ny. */
typedef struct kr_seq_epi_opts {
    int64_t nx, ny;            /* readout samples, lines (default 64) */
    double fov_x_mm, fov_y_mm; /* default 256 */
    double te_ms, tr_ms;       /* default 120, 3000 (Mayo Sarmiento (2018)'s) */
    double flip_deg;           /* default 90 */
    double refocus_deg;        /* default 180 */
    double bw_hz_px;           /* readout bandwidth per pixel: dwell = 1 / (bw nx) (1500) */
    double rf_dur_s;           /* hard-pulse duration (default 200e-6) */
    double raster_s;           /* gradient and delay raster (default 10e-6) */
    int shots;                 /* Mayo Sarmiento (2018)'s "height/ETL" (default 1: single shot) */
    kr_epi_order order;        /* default KR_EPI_INTERLEAVED */
    int ndummy;                /* preparatory shots without ADC (default 1, as Mayo Sarmiento (2018)) */
    kr_seq_limits limits;
} kr_seq_epi_opts;

void kr_seq_epi_opts_default(kr_seq_epi_opts *o);
/* INVALID_ARG with the minimum when TE or TR is too short, when shots does not divide ny,
 * or when the readout gradient exceeds gmax (the sentence says to lower the bandwidth). */
kr_status kr_seq_se_epi(kr_seq **seq, const kr_seq_epi_opts *o);
/* Time of the kx = 0 sample (m = n/2, or n - 1 - n/2 when reversed) of the first ADC event
 * labelled `line`, in seconds from the centre of the excitation of its shot (the RF pulse
 * before the last one preceding it: spin-echo sequences). For tests and T2-weighting
 * references. INVALID_ARG when no event has that line or no two RF pulses precede it. */
kr_status kr_seq_se_line_time(const kr_seq *seq, int32_t line, double *t_s);

/* Cartesian k-space from simulated samples: `samples` is the simulator's output (c64 host,
 * nsamples x ncoils values, sample fastest, any dims with that count); *kspace is created
 * c64 [nx, ny, 1, ncoils] on the host, ADC event e (n == nx samples, label line in
 * [0, ny)) filling row `line`, reversed when adc.reverse is set. Rows never acquired stay 0.
 * INVALID_ARG when an event has n != nx, a line outside [0, ny) or a line acquired twice;
 * DIM when the sample count does not match the sequence. */
kr_status kr_seq_sort_kspace(const kr_seq *seq, const kr_array *samples, int64_t nx, int64_t ny,
                             kr_array **kspace);

/* ---- Pulseq ------------------------------------------------------------------------------- */
/* Pulseq 1.4 files (https://pulseq.github.io, "Open file format for MR sequences").
 * READING: [VERSION] (major 1, minor 2 to 4; 1.5 files are read when they use no 1.5-only
 * fields), [DEFINITIONS] (GradientRasterTime, RadiofrequencyRasterTime, AdcRasterTime,
 * BlockDurationRaster; defaults 10 us, 1 us, 100 ns, 10 us; other keys ignored), [BLOCKS]
 * (1.4: duration in block rasters; 1.2/1.3: a delay id into [DELAYS], the block lasting the
 * longest of its events and delay), [RF] (amplitude Hz -> B1 = amp / gamma-bar; magnitude
 * and phase shapes, phase in units of 2 pi; no time shape: piecewise-constant samples on the
 * RF raster; a time shape must be uniformly spaced), [GRADIENTS] (time shape: corner points
 * at the given raster edges, exactly kray's model; no time shape: samples at raster centres
 * joined linearly and held from the first/last centre to the edges), [TRAP], [ADC] (dwell
 * ns, delay us), [SHAPES] (run-length compressed derivative, or plain when num_samples
 * values are listed). [EXTENSIONS] and [SIGNATURE] are skipped (kr_log INFO says so);
 * LABELs are not interpreted, so ADC events are labelled line = 0, 1, 2 ... in time order.
 * Gradients in Hz/m become mT/m (/ gamma-bar), axes x, y, z = gx, gy, gz. Blocks are
 * validated as kr_seq_add_block does (limits: lim, NULL = defaults); any error names the
 * file and line. Input limits: a regular file; event ids whole numbers in 1..1e8; shapes of at
 * most 2^31 samples, all together at most 2^24 plus 4096 per byte of the file, counted before
 * anything is allocated. */
kr_status kr_seq_read_pulseq(kr_seq **seq, const char *path, const kr_seq_limits *lim);

typedef struct kr_pulseq_write_opts {
    double grad_raster_s, rf_raster_s, adc_raster_s, block_raster_s; /* 10e-6, 1e-6, 1e-7,
                                                                         10e-6 */
    const char *name; /* [DEFINITIONS] Name (NULL: none) */
    double fov_mm[3]; /* [DEFINITIONS] FOV in metres when > 0 (default 0) */
} kr_pulseq_write_opts;

void kr_pulseq_write_opts_default(kr_pulseq_write_opts *o);
/* Write a Pulseq 1.4.0 file. Gaps between blocks become empty delay blocks. RF samples of
 * duration dt are expanded to dt / rf_raster raster samples (compressed shapes keep that
 * small); trapezoids of four corners on the gradient raster become [TRAP] events, other
 * gradients [GRADIENTS] with a time shape; ADC dwell is written in whole ns and delay in
 * whole us as the format requires (rounding is the only loss). Ideal spoiling has no Pulseq
 * event and is dropped (kr_log INFO). NOT_SUPPORTED when a time is not on its raster
 * (RF dt, gradient corners, block durations: relative tolerance 1e-6). No [SIGNATURE]. */
kr_status kr_seq_write_pulseq(const kr_seq *seq, const char *path, const kr_pulseq_write_opts *o);

/* ---- isochromats -------------------------------------------------------------------------- */
/* Host arrays of length n (one allocation). mx, my, mz is the magnetisation a simulation
 * starts from. T1, T2 > 0 wherever m0 > 0 (isochromats with m0 == 0 are allowed and inert). */
typedef struct kr_iso {
    int64_t n;
    float *x_mm, *y_mm, *z_mm;
    float *df_hz; /* off-resonance */
    float *t1_ms, *t2_ms;
    float *m0;           /* equilibrium magnetisation (proton density share) */
    float *mx, *my, *mz; /* initial magnetisation */
    int64_t *voxel;      /* linear index of the source voxel (kr_iso_from_maps), else -1 */
} kr_iso;

/* n >= 1 isochromats, all fields 0, voxel -1. */
kr_status kr_iso_create(kr_iso **iso, int64_t n);
void kr_iso_destroy(kr_iso *iso); /* accepts NULL */
/* mx = my = 0, mz = m0. */
kr_status kr_iso_equilibrium(kr_iso *iso);

typedef enum kr_iso_spread {
    KR_SPREAD_UNIFORM = 0, /* nfreq offsets evenly spaced over [-w/2, w/2], w = spread_hz */
    KR_SPREAD_LORENTZ,     /* nfreq quantiles of a Cauchy law, half width spread_hz: the voxel
                              signal decays about as exp(-2 pi spread_hz t) (T2') */
    KR_SPREAD_COUNT
} kr_iso_spread;

/* Maps -> isochromats. Voxel (i, j, k) sits at ((i - c_x) dx, (j - c_y) dy, z_mm + (k - c_z)
 * dz), c = floor(N/2) on KR_GRID_FFT (default) or (N - 1)/2 on KR_GRID_CT, N the map size
 * after decimation. Each voxel with PD > 0 gives sub[0] sub[1] sub[2] nfreq isochromats: at
 * the centres of a sub x sub x sub grid inside the voxel, each with nfreq frequency offsets;
 * m0 = PD / (isochromats per voxel). df = map value (if any) + the sine pattern + the offset. */
typedef struct kr_iso_opts {
    double voxel_mm[3]; /* voxel size of the input maps (default 1, 1, 1; z: slice thickness) */
    kr_phantom_grid grid;
    int sub[3];       /* isochromats per voxel along x, y, z (default 1, 1, 1) */
    int nfreq;        /* frequency offsets per sub-position (default 1) */
    double spread_hz; /* intra-voxel frequency spread (default 0) */
    kr_iso_spread spread;
    int decimate; /* 1, 2 or 4: keep every d-th voxel along x and y, voxel size x d */
    double z_mm;  /* centre of the slab along z (default 0) */
    /* Sinusoidal off-resonance pattern (Mayo Sarmiento (2018)'s GUI): df += amp sin(2 pi cycles u),
     * u = (position along axis) / FOV along that axis, FOV = N voxel. amp 0 = off. */
    double sine_amp_hz, sine_cycles;
    int sine_axis; /* 0 = x, 1 = y (default 1, the phase-encode axis) */
} kr_iso_opts;

void kr_iso_opts_default(kr_iso_opts *o);
/* t1_ms, t2_ms, pd, df_hz (may be NULL): real f32 or f64 host arrays of one shape
 * [nx, ny] or [nx, ny, nz]. Statuses: INVALID_ARG (NULL, bad option, T1 or T2 <= 0 or
 * non-finite where PD > 0, PD < 0 or non-finite, no voxel with PD > 0), DIM (maps of
 * different shapes), DTYPE (not f32/f64), LOCATION (device arrays). */
kr_status kr_iso_from_maps(kr_iso **iso, const kr_array *t1_ms, const kr_array *t2_ms,
                           const kr_array *pd, const kr_array *df_hz, const kr_iso_opts *opts);
/* The same from the [nx, ny, 3] array of kr_phantom_mr_2d_grid (planes T1, T2, PD). */
kr_status kr_iso_from_tissue(kr_iso **iso, const kr_array *tissue, const kr_array *df_hz,
                             const kr_iso_opts *opts);

/* ---- Bloch simulator ---------------------------------------------------------------------- */
typedef struct kr_sim_plan kr_sim_plan;

typedef struct kr_sim_opts {
    int fast_math;      /* CUDA: hardware sin/cos/exp approximations (default 1) */
    double rf_max_dt_s; /* split RF raster samples longer than this (0 = never; default 0) */
    int iso_per_thread; /* CUDA, one receive coil: 1, 2 or 4 isochromats per thread; 0 = by
                           the object size alone (4 from 2^21 isochromats, 2 from 2^19, else
                           1), never by the device, so results match across GPUs. The float
                           summation order depends on it (results differ at rounding level). */
} kr_sim_opts;

typedef struct kr_sim_info {
    int64_t nsteps;     /* compiled steps (a run of equal steps counts once) */
    int64_t nintervals; /* piecewise-constant intervals simulated (runs counted in full) */
    int64_t nsamples;   /* ADC samples per coil */
    int64_t niso;       /* isochromats of the current object (0 before kr_sim_set_object) */
    int ncoils;         /* receive coils of the current object */
    double iso_steps;   /* niso * nintervals: the work measure of throughput figures */
} kr_sim_info;

void kr_sim_opts_default(kr_sim_opts *o);
/* Compile the sequence for the ctx's backend (the plan keeps its own copy: the sequence may
 * be destroyed afterwards). opts NULL = defaults. */
kr_status kr_sim_plan_create(kr_sim_plan **plan, const kr_ctx *ctx, const kr_seq *seq,
                             const kr_sim_opts *opts);
void kr_sim_plan_destroy(kr_sim_plan *plan); /* accepts NULL */
/* Set the object (copied; uploaded to the device for CUDA). sens: NULL (one coil of
 * sensitivity 1) or a host c64 array of n * ncoils values laid out [n, ncoils] (isochromat
 * fastest), any dims with that element count and dims[0] == n. Statuses: INVALID_ARG (NULL,
 * T1/T2 <= 0 or non-finite values where m0 > 0, m0 < 0), DIM (sens size), DTYPE, LOCATION. */
kr_status kr_sim_set_object(kr_sim_plan *plan, const kr_iso *iso, const kr_array *sens);
/* Simulate from the object's initial magnetisation. kspace: c64, contiguous, nsamples *
 * ncoils elements laid out [nsamples, ncoils] (sample fastest, e.g. [nx, ny, 1, ncoils] for
 * the Cartesian builders), on the host for CPU plans and on the device for CUDA plans; NULL
 * when the sequence has no ADC samples. Each call starts again from the initial state. */
kr_status kr_sim_execute(kr_sim_plan *plan, kr_array *kspace);
/* Final magnetisation of the last execute into iso->mx, my, mz (iso->n must match). */
kr_status kr_sim_get_state(const kr_sim_plan *plan, kr_iso *iso);
kr_status kr_sim_get_info(const kr_sim_plan *plan, kr_sim_info *info);

/* One call: plan, object, execute. *kspace is created c64 [nsamples, ncoils] at the ctx's
 * location (device for a CUDA ctx). */
kr_status kr_sim(const kr_ctx *ctx, const kr_seq *seq, const kr_iso *iso, const kr_array *sens,
                     kr_array **kspace);

#ifdef __cplusplus
}
#endif
#endif
