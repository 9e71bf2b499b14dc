/* Coil-array operations of multi-coil MRI (private): image times coil maps, the conjugate
 * coil sum, and line masks, for kr_coil_kspace, kr_cartesian_undersample, the SENSE operator
 * and CG-SENSE. The backend seam (core/backend.h): host arrays in kri_coilop_cpu
 * (coilop_cpu.c), device arrays in kri_coilop_cuda (coilop_cuda.cu; coilop_nocuda.c without
 * CUDA). Complex values are interleaved float pairs; CUDA verbs queue work on the ctx's stream
 * and do not synchronise unless said. */
#ifndef KRAY_COILOP_INTERNAL_H
#define KRAY_COILOP_INTERNAL_H

#include "core/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kri_coilop_backend {
    kri_backend_hdr hdr;
    /* coil[p + nxy c] = maps[p + nxy c] img[p] for p < nxy, c < nc; img c64 (cplx != 0) or
     * f32 (cplx == 0). */
    kr_status (*expand)(const kr_ctx *ctx, int64_t nxy, int64_t nc, const float *maps,
                        const float *img, int cplx, float *coil);
    /* img[p] = sum_c conj(maps[p + nxy c]) coil[p + nxy c], in double, coils in order. */
    kr_status (*reduce)(const kr_ctx *ctx, int64_t nxy, int64_t nc, const float *maps,
                        const float *coil, float *img);
    /* data[x + nx (y + ny r)] = 0 for r < rest where lines[y] == 0; lines (ny flags) in the
     * backend's memory. */
    kr_status (*mask)(const kr_ctx *ctx, int64_t nx, int64_t ny, int64_t rest, float *data,
                      const uint8_t *lines);
    /* The same with host flags, finished when it returns. */
    kr_status (*undersample)(const kr_ctx *ctx, int64_t nx, int64_t ny, int64_t rest, float *data,
                             const uint8_t *lines);
} kri_coilop_backend;
extern const kri_coilop_backend kri_coilop_cpu, kri_coilop_cuda;

#ifdef __cplusplus
}
#endif
#endif
