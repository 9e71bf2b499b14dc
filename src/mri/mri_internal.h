/* Private contract of the non-Cartesian MRI room: trajectories (traj.c, traj_io.c), density
 * compensation (dcf.c, voronoi.c) and the direct Fourier transform (drft.c validation and
 * dispatch, drft_cpu.c CPU twins, drft_cuda.cu kernels). Not installed. */
#ifndef KRAY_MRI_INTERNAL_H
#define KRAY_MRI_INTERNAL_H

#include "internal.h"
#include "kray/drft.h"
#include "kray/traj.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KRI_PI 3.14159265358979323846
#define KRI_GAMMA_HZ_T 42.57747892e6 /* proton gyromagnetic ratio / 2 pi */

/* ---- trajectories ---------------------------------------------------------------------------- */
/* Validate the shape and dtype of a host trajectory ([3, ...], f32/f64, contiguous); *m gets the
 * sample count. `fn` names the caller in messages. */
kr_status kri_traj_shape(const kr_array *traj, const char *fn, int64_t *m);
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

/* ---- DrFT ----------------------------------------------------------------------------------------- */
/* The grid a DrFT evaluates on: g voxels per axis with the origin at index o (= g/2); frequency
 * normalisation by the image dims n (g = n for images, 2n for the Toeplitz Q). */
typedef struct kri_drft_grid {
    int64_t n[3];
    int64_t g[3];
    int64_t o[3];
} kri_drft_grid;

/* Host-side problem description shared by the CPU twins and the CUDA launchers.
 * k64: k / n (cycles per pixel) as doubles, 3 per sample; kf: the same in 32-bit fixed point,
 * kf = round(frac(k / n) * 2^32) as wrapping uint32 (4 per sample, the 4th 0); frac takes k / n
 * to [-1/2, 1/2), which leaves exp(2 pi i k x / n) unchanged for integer x;
 * adj = W phi and fwd = phi per sample (NULL = all ones), in both precisions. */
typedef struct kri_drft_data {
    int64_t m;
    const double *k64;
    const uint32_t *kf;
    const double *adj64, *fwd64;
    const float *adj32, *fwd32;
} kri_drft_data;

/* Modes of the adjoint-type kernels: data (F^H W d) or the Toeplitz kernel Q (c_m = W phi^2). */
enum { KRI_DRFT_DATA = 0, KRI_DRFT_Q = 1 };

/* Switch a plan to the symmetric factors of the linop form (both directions sqrt(W) phi). */
kr_status kri_drft_plan_symmetric(kr_drft_plan *p);
const kr_ctx *kri_drft_plan_ctx(const kr_drft_plan *p);

/* CPU twins (drft_cpu.c). Complex arrays interleaved (re, im); `batch` consecutive problems.
 * Adjoint: in = M * batch samples (NULL in Q mode), out = G * batch voxels (G = prod g).
 * Forward: in = N * batch voxels (g must equal n), out = M * batch samples. */
kr_status kri_cpu_drft_adjoint_f64(const kri_drft_data *d, const kri_drft_grid *g, int mode,
                                   const double *in, int64_t batch, double *out, int nthreads);
kr_status kri_cpu_drft_adjoint_f32(const kri_drft_data *d, const kri_drft_grid *g, int mode,
                                   const float *in, int64_t batch, float *out, int nthreads);
kr_status kri_cpu_drft_forward_f64(const kri_drft_data *d, const kri_drft_grid *g, const double *in,
                                   int64_t batch, double *out, int nthreads);
kr_status kri_cpu_drft_forward_f32(const kri_drft_data *d, const kri_drft_grid *g, const float *in,
                                   int64_t batch, float *out, int nthreads);
/* Float64 reference for one output: adjoint value at voxel (ix, iy, iz) of the grid from
 * M samples `in` (complex, or NULL in Q mode), or forward value at sample `m` of image `in`. */
void kri_cpu_drft_adjoint_point(const kri_drft_data *d, const kri_drft_grid *g, int mode,
                                const double *in, int64_t ix, int64_t iy, int64_t iz, double out[2]);
void kri_cpu_drft_forward_point(const kri_drft_data *d, const kri_drft_grid *g, const double *in,
                                int64_t m, double out[2]);
/* sin and cos of 2 pi P / 2^32 (P a wrapping 32-bit phase) by the float polynomial of the CPU
 * float path; exposed for the accuracy test. */
void kri_sincos_fixed(uint32_t p, float *s, float *c);

/* CUDA side (drft_cuda.cu). The device copy of kri_drft_data, made on first use. */
typedef struct kri_drft_dev kri_drft_dev;
kr_status kri_cuda_drft_upload(const kr_ctx *ctx, const kri_drft_data *d, kri_drft_dev **dev);
void kri_cuda_drft_free(kri_drft_dev *dev); /* accepts NULL */
/* dtype KR_C64 (float kernels) or KR_C128 (double kernels); pointers are device pointers. The
 * forward launcher keeps a scratch buffer in dev (a plan is not safe for concurrent use). */
kr_status kri_cuda_drft_adjoint(const kr_ctx *ctx, const kri_drft_dev *dev, const kri_drft_grid *g,
                                int mode, kr_dtype dtype, const void *in, int64_t batch, void *out,
                                int fast_sincos, int vpt);
kr_status kri_cuda_drft_forward(const kr_ctx *ctx, kri_drft_dev *dev, const kri_drft_grid *g,
                                kr_dtype dtype, const void *in, int64_t batch, void *out,
                                int fast_sincos, int vpt);
/* Index of the first non-finite real value among the n reals (f32 or f64) at p, host or device
 * (nonfinite.c), or -1. */
kr_status kri_first_nonfinite(const kr_ctx *ctx, kr_loc loc, kr_dtype real_dtype, const void *p,
                              int64_t n, int64_t *first);
/* The device half of kri_first_nonfinite (drft_cuda.cu). */
kr_status kri_cuda_first_nonfinite(const kr_ctx *ctx, kr_dtype real_dtype, const void *p, int64_t n,
                                   int64_t *first);

#ifdef __cplusplus
}
#endif
#endif
