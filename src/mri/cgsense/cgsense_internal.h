/* Private interface of CG-SENSE (src/mri/cgsense/). Not installed. */
#ifndef KRAY_CGSENSE_INTERNAL_H
#define KRAY_CGSENSE_INTERNAL_H

#include "core/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The backend seam (core/backend.h): host arrays in kri_cgsense_cpu (cgsense_cpu.c), device
 * arrays in kri_cgsense_cuda (cgsense_cuda.cu; cgsense_nocuda.c without CUDA). The coil
 * products of the encoding operator are the coil-array operations of
 * mri/cartesian/coilop_internal.h. */
typedef struct kri_cgsense_backend {
    kri_backend_hdr hdr;
    /* y[m + M c] *= w[m] for m < M, c < nc (complex float y, real float w); CUDA: queued on the
     * ctx's stream. */
    kr_status (*weight)(const kr_ctx *ctx, int64_t M, int64_t nc, const float *w, float *y);
} kri_cgsense_backend;
extern const kri_cgsense_backend kri_cgsense_cpu, kri_cgsense_cuda;

#ifdef __cplusplus
}
#endif
#endif
