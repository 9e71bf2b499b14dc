/* FVE single-voxel reconstruction (kray/fve.h): the checks shared by fve.c and fve_grid.c, and
 * the backend seam of kr_fve_voxels. Not installed. */
#ifndef KRAY_FVE_INTERNAL_H
#define KRAY_FVE_INTERNAL_H

#include "core/backend.h"

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

/* The backend seam (core/backend.h): host arrays in kri_fve_cpu (fve_cpu.c), device arrays in
 * kri_fve_cuda (fve_cuda.cu; fve_nocuda.c without CUDA).
 * voxels: k host [3, M] trajectory (cycles per FOV), w host [M] weights or NULL, vox host
 * [nvox][3] (x, y, slice), n the image size, slice[nvox] host; data c64 [M, S, E, T, C] and out
 * c64 [E, T, C, nvox] in the backend's memory. The phases w_m exp(2 pi i c) / n^2 with
 * c = (kx x + ky y) / n reduced mod 1 first are computed in double by both backends, the sums
 * accumulate in double. *nonfinite = 1 when an output is not finite, else 0. */
typedef struct kri_fve_backend {
    kri_backend_hdr hdr;
    kr_status (*voxels)(const kr_ctx *ctx, const double *k, const double *w, const double *vox,
                        int64_t n, const int64_t *slice, int64_t nvox, int64_t M, int64_t S,
                        int64_t E, int64_t T, int64_t C, const void *data, void *out,
                        int *nonfinite);
} kri_fve_backend;
extern const kri_fve_backend kri_fve_cpu, kri_fve_cuda;

#ifdef __cplusplus
}
#endif
#endif
