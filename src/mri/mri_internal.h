/* Private contract of the non-Cartesian MRI rooms: trajectories (traj/traj.c, traj/traj_io.c),
 * density compensation (traj/dcf.c, traj/voronoi.c) and the NaN / Inf census of the plans'
 * inputs (nonfinite.c). Not installed. */
#ifndef KRAY_MRI_INTERNAL_H
#define KRAY_MRI_INTERNAL_H

#include "internal.h"
#include "kray/traj.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KRI_PI 3.14159265358979323846
#define KRI_2PI 6.28318530717958647692
#define KRI_GAMMA_HZ_T 42.57747892e6 /* proton gyromagnetic ratio / 2 pi */

/* Modified Bessel function of the first kind, order 0 (power series; nufft/nufft_kernel.c):
 * the Kaiser-Bessel kernels of the NUFFT and of Pipe-Menon density compensation. */
double kri_bessel_i0(double x);

/* ---- trajectories ---------------------------------------------------------------------------- */
/* The operand check of a trajectory: [3, ...], f32/f64, contiguous, at `loc` (KRI_ANY_LOC: host
 * or device); *m (may be NULL) gets the sample count. `fn` names the caller in messages. */
kr_status kri_traj_shape(const kr_array *traj, const char *fn, kr_loc loc, int64_t *m);
/* Coordinates of sample i as doubles (contiguous f32/f64 [3, ...] host array). */
static inline void kri_traj_get(const kr_array *t, int64_t i, double k[3])
{
    if (t->dtype == KR_F32) {
        const float *p = (const float *)t->data + 3 * i;
        k[0] = p[0], k[1] = p[1], k[2] = p[2];
    } else {
        const double *p = (const double *)t->data + 3 * i;
        k[0] = p[0], k[1] = p[1], k[2] = p[2];
    }
}
/* All coordinates as a new double array [3 * M] (kri_free). */
kr_status kri_traj_to_f64(const kr_array *traj, double **k, int64_t *m);

/* ---- Voronoi (voronoi.c) ----------------------------------------------------------------------- */
typedef struct kri_voronoi_cfg {
    int disk;          /* 1: clip to |k| <= radius; 0: clip to the box [lo, hi] */
    double radius;
    double lo[2], hi[2];
    double dup_tol;
} kri_voronoi_cfg;

/* Cell areas of the 2-D points (x[i], y[i]) clipped to the region; points within dup_tol of each
 * other share their cell equally. Each area is computed by one thread in a fixed order. */
kr_status kri_voronoi_areas(const double *x, const double *y, int64_t m, const kri_voronoi_cfg *cfg,
                            int nthreads, double *area, int64_t *duplicates, int64_t *clipped,
                            double *support);

/* Index of the first non-finite real value among the n reals (f32 or f64) at p, host or device
 * (nonfinite.c), or -1. */
kr_status kri_first_nonfinite(const kr_ctx *ctx, kr_loc loc, kr_dtype real_dtype, const void *p,
                              int64_t n, int64_t *first);

#ifdef __cplusplus
}
#endif
#endif
