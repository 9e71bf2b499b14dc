/* Private contract of the simulation module: sequence storage (seq.c), the compiled step list
 * (seq_compile.c) and the Bloch backends (bloch_cpu.c, bloch_cuda.cu); the coil field is in
 * coils_internal.h. Not installed. */
#ifndef KRAY_SIM_INTERNAL_H
#define KRAY_SIM_INTERNAL_H

#include "core/backend.h"
#include "kray/sim.h"

#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Times closer than this are the same instant (seconds). */
#define KRI_SEQ_TIME_TOL 1e-9

/* ---- sequence storage --------------------------------------------------------------------- */
typedef struct kri_seq_block {
    double start, dur;
    int64_t rf_n;
    double rf_delay, rf_dt, rf_phase, rf_freq;
    float *rf_b1; /* 2 rf_n floats (hard pulses are materialised) */
    int gn[3];
    double *gt[3], *gg[3];
    kr_seq_adc adc;
    int64_t adc_first; /* index of the first sample in the output */
    int spoil;
} kri_seq_block;

struct kr_seq {
    kr_seq_limits lim;
    int64_t n, cap;
    kri_seq_block *b;
    int64_t nadc, nsamples;
    int64_t *adc_blk; /* block of ADC event i (nadc entries, capacity adc_cap) */
    int64_t adc_cap;
};

/* Sequence builders (seq_build.c, seq_epi.c): t rounded up to the raster r (with 1e-9 of
 * slack), and the shortest symmetric trapezoid on the raster with |area| (mT/m s) within the
 * gradient and slew limits (fall = rise; a triangle when flat is 0). */
typedef struct kri_trap {
    double rise, flat;
} kri_trap;
double kri_ceil_r(double t, double r);
kri_trap kri_trap_min(double area, const kr_seq_limits *lim, double r);
/* The options both builders share: matrix, field of view (mm), TE/TR (ms), flip and
 * refocusing angles, bandwidth (Hz/px), RF duration and raster (s); one sentence on failure. */
kr_status kri_seq_check_common(int64_t nx, int64_t ny, double fov_x, double fov_y, double te,
                               double tr, double flip, double refocus, double bw, double rf_dur,
                               double raster);

/* Gradient of block b on axis a at time t (from the block start): linear between corners,
 * 0 outside. And its integral over [t0, t1] (mT/m * s), exact for the piecewise-linear
 * waveform. */
double kri_seq_grad_at(const kri_seq_block *b, int a, double t);
double kri_seq_grad_area(const kri_seq_block *b, int a, double t0, double t1);

/* ---- compiled steps ----------------------------------------------------------------------- */
/* One piecewise-constant interval, repeated nrep times. Per isochromat at r (mm), df (Hz):
 *   z phase of one repetition, cycles:   c = kx x + ky y + kz z + df dt
 *   RF (bx, by != 0): rotation about (bx, by, c) by 2 pi |(bx, by, c)| (clockwise)
 * adc >= 0: sample adc + q is taken at the end of repetition q. */
typedef struct kri_sim_step {
    float dt;         /* seconds */
    float kx, ky, kz; /* gamma-bar * integral G dt over one repetition, cycles per mm */
    float bx, by;     /* gamma-bar * B1 * dt, cycles */
    int32_t nrep;     /* >= 1 */
    int32_t adc;      /* first sample index or -1 */
} kri_sim_step;

/* Special step: nrep == 0 marks an ideal spoil (Mxy := 0); other fields 0, adc -1. */
#define KRI_STEP_IS_SPOIL(s) ((s).nrep == 0)

typedef struct kri_sim_prog {
    kri_sim_step *steps;
    int64_t nsteps;
    int64_t nintervals; /* sum of nrep */
    int64_t nsamples;
    float *rx; /* 2 nsamples floats: receiver factor exp(-i phase_k) (cos, -sin) */
} kri_sim_prog;

kr_status kri_sim_compile(const kr_seq *seq, double rf_max_dt, kri_sim_prog *prog);
void kri_sim_prog_free(kri_sim_prog *prog);

/* ---- isochromat data as the kernels see it ------------------------------------------------ */
/* Structure of arrays, n entries each (padded with inert zeros on the device). r1, r2 in 1/s;
 * sens: ncoils complex (re, im) per isochromat, coil-major: sens[2 (c n + i)]. */
typedef struct kri_sim_obj {
    int64_t n;
    int ncoils;
    const float *x, *y, *z, *df, *r1, *r2, *m0;
    const float *mx0, *my0, *mz0; /* initial state */
    float *mx, *my, *mz;          /* final state (written) */
    const float *sens;            /* NULL = one coil of sensitivity 1 */
} kri_sim_obj;

/* Fixed point: a float partial v contributes llrint(v * scale) to a 64-bit integer sum. */
static inline int64_t kri_fix(double v, double scale)
{
    double q = v * scale;
    const double lim = 9.2e18;
    if (!(q < lim)) q = (q != q) ? 0.0 : lim; /* NaN -> 0, saturate */
    if (q < -lim) q = -lim;
    return (int64_t)(q < 0 ? q - 0.5 : q + 0.5);
}

/* ---- the backend seam (core/backend.h) ----------------------------------------------------
 * A simulation plan (bloch.c) holds one backend instance: kri_sim_cpu (bloch_cpu.c, OpenMP) for
 * a CPU context, kri_sim_cuda (bloch_cuda.cu; bloch_nocuda.c without CUDA) for a CUDA context,
 * with the state its create verb made. Sums of ADC samples are 64-bit fixed point (kri_fix), so
 * the k-space does not depend on the thread count or the order of the isochromats' work.
 *   create:     the state for a compiled program (kept by the plan; it outlives the state).
 *   set_object: the object as host arrays (obj->mx, my, mz: where the CPU keeps the final
 *               state; the GPU keeps its own). On failure the previous object may be gone.
 *   execute:    run; kspace: 2 * nsamples * ncoils floats at the plan's location, [sample,
 *               coil] sample fastest, times the receiver factor (kri_sim_finish's arithmetic);
 *               NULL when nsamples is 0. With acc != NULL, the fixed-point sums themselves go
 *               to acc instead (host, 2 nsamples ncoils int64, the same order) and kspace is
 *               not written: a divided plan (bloch_multi.c) adds its parts' sums.
 *   get_state:  the final state of the n isochromats into host arrays.
 *   destroy:    accepts NULL. */
typedef struct kri_sim_backend {
    kri_backend_hdr hdr;
    kr_status (*create)(void **state, const kr_ctx *ctx, const kri_sim_prog *prog,
                        const kr_sim_opts *opts);
    kr_status (*set_object)(void *state, const kri_sim_obj *obj);
    kr_status (*execute)(void *state, double scale, float *kspace, int64_t *acc);
    kr_status (*get_state)(const void *state, float *mx, float *my, float *mz);
    void (*destroy)(void *state);
} kri_sim_backend;
extern const kri_sim_backend kri_sim_cpu, kri_sim_cuda;

/* Isochromats per CUDA thread for an object of n (kr_sim_opts.iso_per_thread 0 = this). */
static inline int kri_sim_iso_per_thread(int64_t n)
{
    return n >= ((int64_t)1 << 21) ? 4 : n >= ((int64_t)1 << 19) ? 2 : 1;
}
/* The backends sum the ADC samples in float over fixed groups of isochromats before the
 * fixed-point conversion (CPU: chunks of 256; CUDA: blocks of 128 threads x iso_per_thread), so
 * a divided plan cuts the object at multiples of this many. */
#define KRI_SIM_GROUP 512

/* k-space from fixed-point sums (host): out[j] = (acc_j / scale) * rx[k], k = j mod nsamples, in
 * double with separately rounded products and sums, then rounded to float (the CUDA backend's
 * k_bloch_finish computes the same). */
void kri_sim_finish(const kri_sim_prog *prog, const int64_t *acc, int64_t ncoils, double scale,
                    float *out);

/* ---- a plan divided over the devices of its context (bloch_multi.c) ------------------------
 * The isochromats in contiguous ranges, one per part, each part a plan of its own on the same
 * program; the parts' fixed-point sums (at the whole object's scale) are added as integers, so
 * the k-space equals the undivided plan's bit for bit. */
typedef struct kri_simm kri_simm;
kr_status kri_simm_create(kri_simm **m, const kr_ctx *ctx, const kri_sim_prog *prog,
                          const kr_sim_opts *opts);
void kri_simm_destroy(kri_simm *m);
/* The object (obj: the parent's host copy; sens as given to kr_sim_set_object or NULL). */
kr_status kri_simm_set_object(kri_simm *m, const kri_sim_obj *obj);
/* Run every part; kspace at loc (NULL when there are no samples). */
kr_status kri_simm_execute(kri_simm *m, const kri_sim_prog *prog, double scale, kr_loc loc,
                           const kr_ctx *ctx, float *kspace);
kr_status kri_simm_get_state(const kri_simm *m, float *mx, float *my, float *mz);

#ifdef __cplusplus
}
#endif
#endif
