/* Private contract of the simulation module: sequence storage (seq.c), the compiled step list
 * (seq_compile.c), the Bloch kernels (bloch_cpu.c, bloch_cuda.cu) and the coil field
 * (coils.c, coils_cuda.cu). Not installed. */
#ifndef KRAY_SIM_INTERNAL_H
#define KRAY_SIM_INTERNAL_H

#include "internal.h"
#include "kray/coils.h"
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

/* CPU twin: acc receives 2 * nsamples * ncoils int64 (re, im), [sample, coil] sample fastest;
 * ws is scratch of kri_cpu_bloch_threads(obj, nthreads) * 2 * nsamples * ncoils int64.
 * Bit-identical for any nthreads >= 1. */
kr_status kri_cpu_bloch(const kri_sim_prog *prog, const kri_sim_obj *obj, double scale,
                        int nthreads, int64_t *acc, int64_t *ws);
/* Threads kri_cpu_bloch will use (<= the number of chunks). */
int kri_cpu_bloch_threads(const kri_sim_obj *obj, int nthreads);

#ifdef KRAY_HAVE_CUDA
/* Device program and object (bloch_cuda.cu). */
typedef struct kri_cuda_sim kri_cuda_sim;
kr_status kri_cuda_sim_create(kri_cuda_sim **s, const kr_ctx *ctx, const kri_sim_prog *prog,
                              int fast_math, int iso_per_thread);
/* Upload the object (host arrays, obj->mx etc. unused). */
kr_status kri_cuda_sim_set_object(kri_cuda_sim *s, const kri_sim_obj *obj);
/* Run; kspace_dev: 2 * nsamples * ncoils floats on the device. */
kr_status kri_cuda_sim_execute(kri_cuda_sim *s, double scale, float *kspace_dev);
/* Copy the final state of the n real isochromats to host arrays. */
kr_status kri_cuda_sim_get_state(const kri_cuda_sim *s, float *mx, float *my, float *mz);
void kri_cuda_sim_destroy(kri_cuda_sim *s);
#endif

/* ---- coil field --------------------------------------------------------------------------- */
#if defined(__CUDACC__)
#define KRI_HD __host__ __device__
#else
#define KRI_HD
#endif

/* Complete elliptic integrals K(m), E(m), 0 <= m < 1, by the arithmetic-geometric mean
 * (Abramowitz & Stegun 17.6): a0 = 1, b0 = sqrt(1 - m), c0 = sqrt(m); K = pi / (2 a_N),
 * E = K (1 - sum_n 2^(n-1) c_n^2); stops when |c_n| <= tol a_n (at most 64 steps). */
static inline KRI_HD void kri_ellipke(double m, double tol, double *K, double *E)
{
    double a = 1.0, b = sqrt(1.0 - m), sum = 0.5 * m, p2 = 0.5;
    for (int it = 0; it < 64; it++) {
        double c = 0.5 * (a - b);
        double an = 0.5 * (a + b);
        b = sqrt(a * b);
        a = an;
        p2 *= 2.0;
        sum += p2 * c * c;
        if (fabs(c) <= tol * a) break;
    }
    *K = 1.5707963267948966 / a;
    *E = *K * (1.0 - sum);
}

typedef struct kri_coil_dev {
    double c[3], n[3]; /* centre (mm), unit normal */
    double a;          /* radius, mm */
} kri_coil_dev;

/* Field of one loop (tesla per ampere) at p (mm); points nearer than wire (mm) to the
 * conductor are moved onto the wire's surface. Returns 0, or 1 when the field is infinite
 * (on the conductor with wire == 0). */
static inline KRI_HD int kri_loop_field(const kri_coil_dev *d, double px, double py, double pz,
                                        double wire, double tol, double B[3])
{
    const double mu0_2pi = 2e-7; /* mu0 / (2 pi), T m / A */
    double dx = px - d->c[0], dy = py - d->c[1], dz = pz - d->c[2];
    double z = dx * d->n[0] + dy * d->n[1] + dz * d->n[2];
    double rx = dx - z * d->n[0], ry = dy - z * d->n[1], rz = dz - z * d->n[2];
    double rho = sqrt(rx * rx + ry * ry + rz * rz), rho0 = rho;
    const double a = d->a;
    double dist = sqrt((rho - a) * (rho - a) + z * z);
    if (dist < wire) {
        if (dist > 0) {
            rho = a + wire * (rho - a) / dist;
            z = wire * z / dist;
        } else {
            rho = a + wire;
        }
    } else if (dist == 0) {
        return 1;
    }
    double q = (a + rho) * (a + rho) + z * z, den = (a - rho) * (a - rho) + z * z;
    double m = 4.0 * a * rho / q, K, E;
    if (m >= 1.0) return 1;
    kri_ellipke(m, tol, &K, &E);
    double sq = sqrt(q);
    /* lengths in mm: 1/mm = 1e3 / m */
    double bz = 1e3 * mu0_2pi / sq * (K + (a * a - rho * rho - z * z) / den * E);
    double br;
    if (rho < 1e-6 * a) {
        double s = a * a + z * z;
        br = 1e3 * 3.0 * 3.14159265358979323846e-7 * a * a * z * rho / (s * s * sqrt(s));
    } else {
        br = 1e3 * mu0_2pi * z / (rho * sq) * (-K + (a * a + rho * rho + z * z) / den * E);
    }
    B[0] = bz * d->n[0];
    B[1] = bz * d->n[1];
    B[2] = bz * d->n[2];
    if (rho0 > 0) {
        B[0] += br * rx / rho0;
        B[1] += br * ry / rho0;
        B[2] += br * rz / rho0;
    }
    return 0;
}

/* Validate a public coil and convert it (normal normalised). */
kr_status kri_coil_prepare(const kr_coil *coil, int index, kri_coil_dev *d);

#ifdef KRAY_HAVE_CUDA
/* Maps on a regular grid into a device array (c64 if !is_double, else c128),
 * [nx, ny, nz, ncoils]: voxel (i, j, k) at origin + (i, j, k) * step (mm); value
 * (Bx - i By) * gain. */
kr_status kri_cuda_coil_maps(const kr_ctx *ctx, const kri_coil_dev *coils, int ncoils,
                             const double origin[3], const double step[3], const int64_t n[3],
                             double wire_mm, double tol, double gain, int is_double, void *out_dev);
#endif

#ifdef __cplusplus
}
#endif
#endif
