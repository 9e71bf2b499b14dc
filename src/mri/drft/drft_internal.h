/* Private contract of the DrFT room: drft.c (plan, validation, dispatch), drft_linop.c (the
 * kr_linop form), drft_cpu.c (the CPU table), drft_cuda.cu (the CUDA table; drft_nocuda.c
 * without CUDA). Not installed. */
#ifndef KRAY_DRFT_INTERNAL_H
#define KRAY_DRFT_INTERNAL_H

#include "core/backend.h"
#include "kray/drft.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* ---- the backend seam (core/backend.h) -------------------------------------------------------
 * Host arrays in kri_drft_cpu (drft_cpu.c), device arrays in kri_drft_cuda (drft_cuda.cu;
 * drft_nocuda.c without CUDA). `prepare` makes the backend's copy of the plan's sample data
 * (*dev; NULL for the CPU, which reads the host arrays of d), `release` frees it (accepts NULL).
 * Complex arrays interleaved (re, im) of `dtype` (KR_C128: float64 kernels, KR_C64: float32);
 * `batch` consecutive problems. adjoint: in = M * batch samples (NULL in Q mode), out = G * batch
 * voxels (G = prod g). forward: in = N * batch voxels (g must equal n), out = M * batch samples.
 * The CUDA forward keeps a scratch buffer in dev (a plan is not safe for concurrent use). */
typedef struct kri_drft_dev kri_drft_dev;
typedef struct kri_drft_backend {
    kri_backend_hdr hdr;
    kr_status (*prepare)(const kr_ctx *ctx, const kri_drft_data *d, kri_drft_dev **dev);
    void (*release)(kri_drft_dev *dev);
    kr_status (*adjoint)(const kr_ctx *ctx, kri_drft_dev *dev, const kri_drft_data *d,
                         const kri_drft_grid *g, int mode, kr_dtype dtype, const void *in,
                         int64_t batch, void *out, const kr_drft_opts *o);
    kr_status (*forward)(const kr_ctx *ctx, kri_drft_dev *dev, const kri_drft_data *d,
                         const kri_drft_grid *g, kr_dtype dtype, const void *in, int64_t batch,
                         void *out, const kr_drft_opts *o);
} kri_drft_backend;
extern const kri_drft_backend kri_drft_cpu, kri_drft_cuda;

/* ---- float64 references (drft_cpu.c) --------------------------------------------------------
 * One output: the adjoint value at voxel (ix, iy, iz) of the grid from M samples `in` (complex,
 * or NULL in Q mode), or the forward value at sample `m` of image `in`. */
void kri_cpu_drft_adjoint_point(const kri_drft_data *d, const kri_drft_grid *g, int mode,
                                const double *in, int64_t ix, int64_t iy, int64_t iz, double out[2]);
void kri_cpu_drft_forward_point(const kri_drft_data *d, const kri_drft_grid *g, const double *in,
                                int64_t m, double out[2]);
/* sin and cos of 2 pi P / 2^32 (P a wrapping 32-bit phase) by the float polynomial of the CPU
 * float path; exposed for the accuracy test. */
void kri_sincos_fixed(uint32_t p, float *s, float *c);

#ifdef __cplusplus
}
#endif
#endif
