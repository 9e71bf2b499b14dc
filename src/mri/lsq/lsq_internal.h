/* Private contract of the least-squares room (lsq_toeplitz.c, lsq.c, toeplitz_cpu.c,
 * toeplitz_cuda.cu): the elementwise steps of the Toeplitz embedding and the weighting of
 * k-space data behind the backend seam, and the checks the plans share. Not installed.
 *
 * Layouts: complex arrays interleaved (re, im) of the element type t (KR_C64 / KR_C128); an image
 * has N = nx ny nz voxels, a padded image G = gx gy gz (g_d = 2 n_d, or 1 when n_d = 1), both x
 * fastest; `nb` consecutive images. Image voxel (i, j, l) sits at padded index (i, j, l). */
#ifndef KRAY_LSQ_INTERNAL_H
#define KRAY_LSQ_INTERNAL_H

#include "core/backend.h"
#include "kray/lsq.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The backend seam (core/backend.h): host arrays in kri_toep_cpu (toeplitz_cpu.c), device arrays
 * in kri_toep_cuda (toeplitz_cuda.cu; toeplitz_nocuda.c without CUDA); the device verbs queue on
 * the ctx's stream, launches checked.
 * pad: buf[b] = zero-pad(in[b] (.* maps[b] when maps != NULL)) for b < nb; every element of buf
 *   is written.
 * mulq: buf[b][j] *= qhat[j] (qhat: G complex values).
 * crop: maps == NULL: out[b] = crop(buf[b]) for b < nb. maps != NULL: out[x] = (accumulate ?
 *   out[x] : 0) + sum_{b < nb, in order} conj(maps[b][x]) crop(buf[b])[x] (out is one image).
 * wmul: out[m + M b] = w[m] d[m + M b] (w real, the element type's real precision; out may be
 *   d). */
typedef struct kri_toep_backend {
    kri_backend_hdr hdr;
    kr_status (*pad)(const kr_ctx *ctx, kr_dtype t, const int64_t n[3], const int64_t g[3],
                     int64_t nb, const void *in, const void *maps, void *buf);
    kr_status (*mulq)(const kr_ctx *ctx, kr_dtype t, int64_t G, int64_t nb, void *buf,
                      const void *qhat);
    kr_status (*crop)(const kr_ctx *ctx, kr_dtype t, const int64_t n[3], const int64_t g[3],
                      int64_t nb, const void *buf, const void *maps, void *out, int accumulate);
    kr_status (*wmul)(const kr_ctx *ctx, kr_dtype t, int64_t M, int64_t nb, const void *d,
                      const void *w, void *out);
} kri_toep_backend;
extern const kri_toep_backend kri_toep_cpu, kri_toep_cuda;

/* *o = *opts (or the defaults) with batch 0 read as 1; a batch outside [1, 2^20] is
 * KR_ERR_INVALID_ARG naming fn. */
kr_status kri_lsq_opts_resolve(const char *fn, const kr_lsq_opts *opts, kr_lsq_opts *o);
/* Validate image dims, dtype, a host trajectory (finite, |k_d| <= n_d / 2) and host weights
 * (f32/f64, M values, finite, >= 0); *tv becomes a flat [3, M] view of traj, *wv a flat [M]
 * view of the weights (untouched when weights == NULL). `fn` names the caller. */
kr_status kri_lsq_check_inputs(const char *fn, const kr_ctx *ctx, const int64_t n[3],
                               const kr_array *traj, const kr_array *weights, kr_dtype t,
                               kr_array *tv, kr_array *wv);

#ifdef __cplusplus
}
#endif
#endif
