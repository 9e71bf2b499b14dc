/* Projection arrays (projections.c): the backends of the check of their values. */
#ifndef KRAY_CT_PROJECTIONS_INTERNAL_H
#define KRAY_CT_PROJECTIONS_INTERNAL_H

#include "core/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The backend seam (core/backend.h): kri_ctproj_cpu (projections_cpu.c) for host arrays,
 * kri_ctproj_cuda (projections_cuda.cu; projections_nocuda.c without CUDA) for device arrays.
 * count_nonfinite: the NaN and infinite values among the n elements (f32 or f64) at x, and the
 * index of the first non-finite one (-1 when none). */
typedef struct kri_ctproj_backend {
    kri_backend_hdr hdr;
    kr_status (*count_nonfinite)(const kr_ctx *ctx, kr_dtype t, int64_t n, const void *x,
                                 int64_t *nnan, int64_t *ninf, int64_t *first);
} kri_ctproj_backend;
extern const kri_ctproj_backend kri_ctproj_cpu, kri_ctproj_cuda;

#ifdef __cplusplus
}
#endif
#endif
