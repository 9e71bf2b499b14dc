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
/* k: host [3, M] trajectory (cycles per FOV), w: host [M] weights or NULL, vox: host [nvox][3]
 * (x, y, slice), n the image size; slice[nvox]; data device c64 [M, S, E, T, C]; out device c64
 * [E, T, C, nvox]. The phases w_m exp(2 pi i k_m.x / n) / n^2 are computed on the device (double,
 * the cycles reduced mod 1 first, as the host). *nonfinite = 1 when an output is not finite. */
kr_status kri_cuda_fve_voxels(const kr_ctx *ctx, const double *k, const double *w,
                              const double *vox, int64_t n, const int64_t *slice, int64_t nvox,
                              int64_t M, int64_t S, int64_t E, int64_t T, int64_t C,
                              const void *data, void *out, int *nonfinite);
#ifdef __cplusplus
}
#endif
#endif
