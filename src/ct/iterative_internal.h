/* SIRT (iterative.c): the backends of its elementwise steps. */
#ifndef KRAY_CT_ITERATIVE_INTERNAL_H
#define KRAY_CT_ITERATIVE_INTERNAL_H

#include "core/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The backend seam (core/backend.h): kri_sirt_cpu (iterative_cpu.c) for host arrays,
 * kri_sirt_cuda (iterative_cuda.cu; iterative_nocuda.c without CUDA) for device arrays. Each
 * verb works on the n elements (f32 or f64) at x, under ctx (threads, or stream and device):
 *   fill    x = v
 *   recip   x = x > 0 ? 1 / x : 0, and *nbad = the number of negative or non-finite entries
 *   mul     x *= w (elementwise)
 *   clamp0  x = max(x, 0) */
typedef struct kri_sirt_backend {
    kri_backend_hdr hdr;
    kr_status (*fill)(const kr_ctx *ctx, kr_dtype t, int64_t n, void *x, double v);
    kr_status (*recip)(const kr_ctx *ctx, kr_dtype t, int64_t n, void *x, int64_t *nbad);
    kr_status (*mul)(const kr_ctx *ctx, kr_dtype t, int64_t n, void *x, const void *w);
    kr_status (*clamp0)(const kr_ctx *ctx, kr_dtype t, int64_t n, void *x);
} kri_sirt_backend;
extern const kri_sirt_backend kri_sirt_cpu, kri_sirt_cuda;

#ifdef __cplusplus
}
#endif
#endif
