/* Private contract of the off-resonance room (offres.c, offres_cpu.c, offres_cuda.cu): the
 * direct-sum operator and the elementwise steps of the time-segmented operator behind the
 * backend seam. Not installed.
 *
 * Layouts: complex arrays interleaved (re, im) of the element type t (KR_C64 / KR_C128); `L`
 * consecutive blocks of P values (block l at offset l * P). Real inputs of the direct sum are
 * double: k [3, M] (cycles per FOV), f [N] (Hz), tm [M] (s); voxel i has centred coordinates
 * (i % nx - nx/2, (i / nx) % ny - ny/2, i / (nx ny) - nz/2). */
#ifndef KRAY_OFFRES_INTERNAL_H
#define KRAY_OFFRES_INTERNAL_H

#include "core/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The backend seam (core/backend.h): host arrays in kri_offres_cpu (offres_cpu.c), device arrays
 * in kri_offres_cuda (offres_cuda.cu; offres_nocuda.c without CUDA); the device verbs queue on
 * the ctx's stream, launches checked.
 * expand: X[l P + p] = w'[l P + p] x[p] with w' = conj(w) when cj, else w (products in double).
 * combine: x[p] = sum_{l = 0..L-1, in order} w'[l P + p] X[l P + p] (double accumulation).
 * exact: adj = 0: d[m] = sum_i x[i] exp(-2 pi i (k_m . c_i / n + f_i tm_m)) (in order of i);
 *   adj = 1: x[i] = sum_m d[m] exp(+2 pi i (...)) (in order of m). Phases reduced modulo 1
 *   (kri_offres_phase, offres_kern.h). B >= 1 vectors at once: in and out hold B consecutive
 *   blocks (N values per image, M per sample vector); each phase is computed once for the
 *   KRI_OFFRES_BCHUNK vectors of a chunk. */
#define KRI_OFFRES_BCHUNK 8
typedef struct kri_offres_backend {
    kri_backend_hdr hdr;
    kr_status (*expand)(const kr_ctx *ctx, kr_dtype t, int64_t P, int L, const void *x,
                        const void *w, int cj, void *X);
    kr_status (*combine)(const kr_ctx *ctx, kr_dtype t, int64_t P, int L, const void *X,
                         const void *w, int cj, void *x);
    kr_status (*exact)(const kr_ctx *ctx, kr_dtype t, const int64_t n[3], int64_t M,
                       const double *k, const double *f, const double *tm, int adj,
                       int64_t B, const void *in, void *out);
} kri_offres_backend;
extern const kri_offres_backend kri_offres_cpu, kri_offres_cuda;

#ifdef __cplusplus
}
#endif
#endif
