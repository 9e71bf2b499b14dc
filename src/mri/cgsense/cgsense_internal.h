/* Private interface of CG-SENSE (src/mri/cgsense*.c, cgsense_cuda.cu). Not installed. */
#ifndef KRAY_CGSENSE_INTERNAL_H
#define KRAY_CGSENSE_INTERNAL_H

#include "kray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* y[m + M c] *= w[m] for m < M, c < nc (complex float y, real float w), on `stream`; checks
 * the launch, does not synchronise. */
kr_status kri_cuda_cgsense_weight(int64_t M, int64_t nc, const float *w, float *y, void *stream);

#ifdef __cplusplus
}
#endif
#endif
