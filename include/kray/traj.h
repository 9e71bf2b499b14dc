/* kray non-Cartesian MRI: k-space trajectories and density compensation.
 *
 * Conventions (shared with kray/drft.h and BART):
 *   - A trajectory is a real array (KR_F32 or KR_F64) with dims [3, d1, d2, ...]: (kx, ky, kz)
 *     of each sample, samples fastest, then shots (spokes, interleaves), then partitions. The
 *     sample count M is d1 * d2 * ...; weights and k-space data use the dims [d1, d2, ...].
 *   - k is in cycles per field of view (BART's unit): an N-point image axis is fully sampled
 *     by integer k in [-N/2, N/2) and the image has pixel coordinates x - N/2 (origin at index
 *     N/2). kr_traj_convert turns [-0.5, 0.5) (cycles per pixel) or radians ([-pi, pi)) into
 *     cycles per FOV and back. 2-D trajectories have kz = 0.
 *   - Radial spokes follow `bart traj -r` exactly: spoke s has direction (cos t_s, sin t_s, 0),
 *     i.e. the angle t_s is measured from +kx towards +ky (BART's (sin t_s, cos t_s) in its
 *     (k0, k1), which are kray's (ky, kx): see .cfl below), t_s = pi s / S (uniform), 2 pi s / S
 *     (full circle, BART -D) or s pi / phi with the golden ratio phi (BART -G, 111.25 deg steps;
 *     tiny golden angles pi / (phi + n - 1) with n >= 2, BART -s n). Sample i of X sits at
 *     (i + 1/2 - X/2) / o (symmetric, k = 0 not sampled, BART's default) or at (i - X/2) / o
 *     (BART -c: k = 0 sampled on every spoke, so the centre is repeated once per spoke), with
 *     X = samples * o for a readout oversampling o (BART -o). Objects that fill the FOV need
 *     o = 2: radial aliasing rings sit at a distance of 1 / (radial sample spacing).
 *   - BART trajectory files (.cfl/.hdr written by `bart traj`) are complex float with the
 *     coordinates in the real parts and zero imaginary parts; kr_traj_read/kr_traj_write read and
 *     write them (and .npy / .raw real arrays). BART's k0 and k1 go with its image axes 0 (rows)
 *     and 1 (columns), i.e. kray's y and x (KR_IO_AXES_IMAGE in kray/io.h): .cfl files swap the
 *     first two coordinates on reading and writing, other formats store (kx, ky, kz) as is.
 *   - Density-compensation weights are cell areas (2-D) or volumes (3-D) in (cycles per FOV)^d:
 *     a fully sampled Cartesian grid has weight 1 everywhere, so the weighted adjoint DrFT of
 *     any trajectory approximates the unnormalised inverse DFT of the Cartesian grid (N^d times
 *     the object). Weights have the trajectory's real dtype and dims [d1, d2, ...].
 * Every function returns kr_status with the detail in kr_last_error().
 */
#ifndef KRAY_TRAJ_H
#define KRAY_TRAJ_H

#include "kray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- units --------------------------------------------------------------------------------- */
typedef enum kr_kunits {
    KR_K_CYCLES_PER_FOV = 0, /* kray / BART: [-N/2, N/2) */
    KR_K_CYCLES_PER_PIXEL,   /* [-0.5, 0.5): k / N (the DrFT papers' "normalised" k) */
    KR_K_RADIANS             /* [-pi, pi): 2 pi k / N (radians per pixel, e.g. Fessler's NUFFT) */
} kr_kunits;

/* Convert a host trajectory in place. n[3] is the image matrix (nx, ny, nz); axes with n = 1 are
 * left unchanged (only needed for the per-pixel units). */
kr_status kr_traj_convert(kr_array *traj, kr_kunits from, kr_kunits to, const int64_t n[3]);

/* Check a host trajectory: dims [3, ...], real dtype, every coordinate finite, and (when n is not
 * NULL) every k inside [-n_d/2, n_d/2) on each axis (axes with n_d = 1 require |k| < 1/2).
 * Fails with KR_ERR_DIM (shape), KR_ERR_DTYPE, KR_ERR_GEOMETRY (NaN, Inf or out-of-range k,
 * naming the sample). */
kr_status kr_traj_check(const kr_array *traj, const int64_t n[3]);
/* Largest |k| per axis and largest radius sqrt(kx^2 + ky^2 + kz^2) over all samples. */
kr_status kr_traj_extent(const kr_array *traj, double kmax_axis[3], double *kmax_radius);

/* ---- generators ---------------------------------------------------------------------------- */
/* Cartesian grid [3, nx, ny, nz] (trailing 1s dropped): sample (i, j, l) at
 * (i - nx/2, j - ny/2, l - nz/2) (integer division), i.e. every integer k in [-N/2, N/2). */
kr_status kr_traj_cartesian(kr_array **out, int64_t nx, int64_t ny, int64_t nz, kr_dtype dtype);

typedef enum kr_radial_order {
    KR_RADIAL_UNIFORM = 0, /* 2-D: t_s = pi s / S; 3-D: Fibonacci lattice on the half sphere */
    KR_RADIAL_GOLDEN       /* 2-D: golden-angle steps (BART -G / -s); 3-D: 2-D golden means */
} kr_radial_order;

typedef struct kr_radial_opts {
    int64_t samples;       /* readout samples per spoke at Nyquist spacing (BART -x); default 64 */
    double oversampling;   /* readout oversampling o >= 1 (BART -o): X = round(samples o)
                              samples per spoke, spacing 1/o; default 1 (0 = 1) */
    int64_t spokes;        /* spokes per partition, S (BART -y); default 32 */
    kr_radial_order order; /* default uniform */
    int tiny;              /* golden: 0 or 1 = golden angle pi/phi, n >= 2 = pi/(phi + n - 1) */
    int full_circle;       /* uniform 2-D: t_s = 2 pi s / S (BART -D) */
    int dc;                /* sample k = 0: positions i - X/2 (BART -c); default symmetric */
    int64_t partitions;    /* 2-D only: > 1 makes a stack of stars, kz = p - P/2 (default 1) */
    kr_dtype dtype;        /* KR_F32 (default) or KR_F64 */
} kr_radial_opts;

void kr_radial_opts_default(kr_radial_opts *o);
/* 2-D radial (or stack of stars): dims [3, X, S] or [3, X, S, P]. */
kr_status kr_traj_radial(kr_array **out, const kr_radial_opts *o);
/* 3-D radial "koosh ball": S full spokes through the centre whose directions d_s cover the
 * half sphere (z >= 0): uniform = Fibonacci lattice z_s = (s + 1/2)/S, azimuth s * 2 pi/phi^2;
 * golden = 2-D golden means (Chan et al. 2009), z_s = frac(s g1), azimuth 2 pi frac(s g2).
 * Sample i at (i + 1/2 - X/2) d_s (or i - X/2 with dc). dims [3, X, S]. partitions must be 1. */
kr_status kr_traj_koosh(kr_array **out, const kr_radial_opts *o);

/* Variable-density interleaved Archimedean spiral, gradient-limited design.
 *
 * Method (after Glover 1999 and Kim/Hargreaves 2003): k(t) = r(theta) e^{i theta} with
 *   dr/dtheta = interleaves / (2 pi FOV(r)),
 * so adjacent turns of all interleaves are 1/FOV(r) apart (Nyquist for the local FOV). The
 * variable density is a linear FOV ramp: FOV(r) = fov for r <= vd_start kmax, falling linearly
 * to fov / vd_factor at kmax (vd_factor = 1: uniform density). The angle theta(t) is found by
 * forward integration in time steps of dwell/16: at each step the largest angular acceleration
 * allowed by the slew-rate limit |d^2k/dt^2| <= gamma smax is solved from a quadratic, and the
 * angular speed is capped by the amplitude limit |dk/dt| <= gamma gmax (gamma = 42.577 MHz/T)
 * and by the sampling limit |dk/dt| dwell <= 1 / FOV(r) (consecutive samples along the track no
 * farther apart than the local Nyquist distance, i.e. g <= 1 / (gamma FOV(r) dwell)).
 * The readout starts at k = 0 with zero gradient and ends when |k| reaches kmax = 1/(2 res);
 * samples are taken every dwell. Interleave j is interleave 0 rotated by 2 pi j / interleaves.
 * k is returned in cycles per FOV (k[1/m] * fov[m]). dims [3, samples, interleaves] or
 * [3, samples, interleaves, partitions] (stack of spirals, kz = p - P/2). */
typedef struct kr_spiral_opts {
    double fov_mm;        /* field of view at the centre; default 160 */
    double res_mm;        /* resolution; kmax = 1/(2 res); default 1.4 */
    int64_t interleaves;  /* default 8 */
    double gmax_mT_m;     /* gradient amplitude limit; default 40 */
    double smax_T_m_s;    /* slew-rate limit; default 150 */
    double dwell_us;      /* sampling interval; default 4 */
    double vd_factor;     /* >= 1: centre / edge sampling-density ratio; default 2 */
    double vd_start;      /* in [0, 1): fraction of kmax sampled at full density; default 0 */
    int64_t partitions;   /* > 1: stack of spirals; default 1 */
    kr_dtype dtype;       /* KR_F32 (default) or KR_F64 */
} kr_spiral_opts;

typedef struct kr_spiral_info {
    int64_t samples;         /* per interleave */
    int64_t matrix;          /* smallest N with every |k| < N/2: floor(2 kmax) + 1 */
    double kmax;             /* cycles per FOV (fov_mm / (2 res_mm)) */
    double readout_ms;       /* (samples - 1) * dwell */
    double gmax_used_mT_m;   /* largest |g| of the design (<= gmax) */
    double smax_used_T_m_s;  /* largest |dg/dt| of the design (<= smax) */
    double slew_limited_ms;  /* time at which the amplitude limit took over (readout_ms if never) */
} kr_spiral_info;

void kr_spiral_opts_default(kr_spiral_opts *o);
/* info may be NULL. */
kr_status kr_traj_spiral(kr_array **out, const kr_spiral_opts *o, kr_spiral_info *info);

/* ---- files --------------------------------------------------------------------------------- */
/* Read a trajectory: .cfl (BART, coordinates in the real parts; non-zero imaginary parts are a
 * KR_ERR_FORMAT error), or a real .npy / .raw array with dims [3, ...]. dtype: KR_F32 or KR_F64. */
kr_status kr_traj_read(const char *path, kr_array **out, kr_dtype dtype);
/* Write a host trajectory: .cfl as complex float with zero imaginary parts (readable by BART's
 * `traj`-consuming tools), other extensions as real arrays. */
kr_status kr_traj_write(const char *path, const kr_array *traj);

/* ---- density compensation ------------------------------------------------------------------ */
typedef enum kr_dcf_method {
    KR_DCF_VORONOI = 0, /* 2-D Voronoi cell areas, cells clipped to the boundary below */
    KR_DCF_PIPE_MENON,  /* iterative w <- w / (w * C) at the samples (Pipe & Menon 1999), 2-D/3-D */
    KR_DCF_RADIAL,      /* analytic: |k| dk pi / S (2-D, stacks), |k|^2 dk 2 pi / S (koosh) */
    KR_DCF_SPIRAL       /* analytic Jacobian |k . dk/di| 2 pi / interleaves (Hoge 1997) */
} kr_dcf_method;

typedef enum kr_dcf_boundary {
    KR_DCF_DISK = 0, /* cells clipped to the disk |k| <= R (R = auto: max |k| + 1/2, half the
                        Nyquist spacing; give R = max |k| + spacing/2 for oversampled readouts) */
    KR_DCF_SQUARE    /* cells clipped to the box [kmin - 1/2, kmax + 1/2] per axis (or +-R) */
} kr_dcf_boundary;

typedef struct kr_dcf_opts {
    kr_dcf_method method;
    /* Voronoi */
    kr_dcf_boundary boundary; /* default disk */
    double radius;            /* disk radius / square half-width in cycles per FOV; 0 = auto */
    double dup_tol;           /* points closer than this (cycles per FOV) share one cell; 1e-4 */
    /* Pipe-Menon: kernel c(d) = I0(beta sqrt(1 - (d/R)^2)) / I0(beta) for d < R */
    int iterations;           /* default 20 */
    double kernel_radius;     /* R in cycles per FOV; default 2 */
    double beta;              /* Kaiser-Bessel shape; 0 = auto (Beatty's for 2x oversampling) */
} kr_dcf_opts;

typedef struct kr_dcf_info {
    int64_t duplicates;   /* Voronoi: samples sharing their cell with other samples */
    int64_t clipped;      /* Voronoi: cells cut by the boundary */
    double total;         /* sum of the weights */
    double support;       /* Voronoi: area of the clip region */
    int iterations;       /* Pipe-Menon: iterations run */
    double flatness;      /* Pipe-Menon: max |(C w)_j / mean - 1| over samples after the last step */
} kr_dcf_info;

void kr_dcf_opts_default(kr_dcf_opts *o);
/* Weights for a host trajectory (any ctx backend; CPU threads from ctx, ctx may be NULL).
 * *w is created with the trajectory's real dtype and dims [d1, d2, ...]. info may be NULL.
 * Radial needs dims [3, X, S(, P)] with straight spokes; spiral needs [3, samples, interleaves
 * (, P)] with interleaves that are rotations of each other about kz. */
kr_status kr_dcf(kr_array **w, const kr_ctx *ctx, const kr_array *traj, const kr_dcf_opts *opts,
                 kr_dcf_info *info);

#ifdef __cplusplus
}
#endif
#endif
