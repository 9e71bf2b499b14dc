/* FVE single-voxel reconstruction (kray/fve.h): CUDA twin. */
#ifndef KRAY_FVE_INTERNAL_H
#define KRAY_FVE_INTERNAL_H
#include "kray/core.h"
#ifdef __cplusplus
extern "C" {
#endif
/* ph: host [nvox][M] complex double phases (weights and 1/n^2 included); slice[nvox];
 * data device c64 [M, S, E, T, C]; out device c64 [E, T, C, nvox]. */
kr_status kri_cuda_fve_voxels(const kr_ctx *ctx, const double *ph, const int64_t *slice,
                              int64_t nvox, int64_t M, int64_t S, int64_t E, int64_t T, int64_t C,
                              const void *data, void *out);
#ifdef __cplusplus
}
#endif
#endif
