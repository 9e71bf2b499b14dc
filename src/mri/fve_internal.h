/* FVE single-voxel reconstruction (kray/fve.h): CUDA twin. */
#ifndef KRAY_FVE_INTERNAL_H
#define KRAY_FVE_INTERNAL_H
#include "kray/core.h"
#ifdef __cplusplus
extern "C" {
#endif
/* Argument checks shared by kr_fve_voxels and kr_fve_voxels_gridded (messages start with fn):
 * *M = trajectory samples, dd = data dims [samples, interleaves, slices, encodes, frames,
 * coils] padded with 1s. */
kr_status kri_fve_check_args(const char *fn, const kr_ctx *ctx, const kr_array *traj,
                             const kr_array *data, int64_t n, int64_t nvox, const double *vox,
                             const kr_array *out, int64_t *M, int64_t dd[6]);
/* A host f32/f64 array of m values (weights) as doubles in *out (kri_free). */
kr_status kri_fve_host_real(const char *fn, const kr_array *a, const char *what, int64_t m,
                            double **out);
/* ph: host [nvox][M] complex double phases (weights and 1/n^2 included); slice[nvox];
 * data device c64 [M, S, E, T, C]; out device c64 [E, T, C, nvox]; *nonfinite = 1 when an
 * output is not finite (else 0). */
kr_status kri_cuda_fve_voxels(const kr_ctx *ctx, const double *ph, const int64_t *slice,
                              int64_t nvox, int64_t M, int64_t S, int64_t E, int64_t T, int64_t C,
                              const void *data, void *out,
                              int *nonfinite);
#ifdef __cplusplus
}
#endif
#endif
