/* The NaN / Inf census of the MRI plans (kri_first_nonfinite, mri_internal.h) behind the backend
 * seam (core/backend.h): host arrays in kri_nonfinite_cpu (nonfinite_cpu.c), device arrays in
 * kri_nonfinite_cuda (nonfinite_cuda.cu; nonfinite_nocuda.c without CUDA). Not installed. */
#ifndef KRAY_NONFINITE_INTERNAL_H
#define KRAY_NONFINITE_INTERNAL_H

#include "core/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* `first` sets *first to the index of the first non-finite value among the n reals (f32 or f64,
 * real_dtype) at p, or -1. */
typedef struct kri_nonfinite_backend {
    kri_backend_hdr hdr;
    kr_status (*first)(const kr_ctx *ctx, kr_dtype real_dtype, const void *p, int64_t n,
                       int64_t *first);
} kri_nonfinite_backend;
extern const kri_nonfinite_backend kri_nonfinite_cpu, kri_nonfinite_cuda;

#ifdef __cplusplus
}
#endif
#endif
