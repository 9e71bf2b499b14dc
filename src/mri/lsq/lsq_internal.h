/* Private contract of the least-squares room (lsq_toeplitz.c, lsq.c, toeplitz_cuda.cu): the
 * elementwise steps of the Toeplitz embedding and the weighting of k-space data, as CPU twins
 * and CUDA launchers. Not installed.
 *
 * Layouts: complex arrays interleaved (re, im) of the element type t (KR_C64 / KR_C128); an image
 * has N = nx ny nz voxels, a padded image G = gx gy gz (g_d = 2 n_d, or 1 when n_d = 1), both x
 * fastest; `nb` consecutive images. Image voxel (i, j, l) sits at padded index (i, j, l). */
#ifndef KRAY_LSQ_INTERNAL_H
#define KRAY_LSQ_INTERNAL_H

#include "kray/core.h"
#include "kray/lsq.h"

#ifdef __cplusplus
extern "C" {
#endif

/* buf[b] = zero-pad(in[b] (.* maps[b] when maps != NULL)) for b < nb; every element of buf is
 * written. */
void kri_cpu_toep_pad(int nthreads, kr_dtype t, const int64_t n[3], const int64_t g[3],
                      int64_t nb, const void *in, const void *maps, void *buf);
/* buf[b][j] *= qhat[j] (qhat: G complex values). */
void kri_cpu_toep_mulq(int nthreads, kr_dtype t, int64_t G, int64_t nb, void *buf,
                       const void *qhat);
/* maps == NULL: out[b] = crop(buf[b]) for b < nb.
 * maps != NULL: out[x] = (accumulate ? out[x] : 0) + sum_{b < nb, in order} conj(maps[b][x])
 * crop(buf[b])[x] (out is one image). */
void kri_cpu_toep_crop(int nthreads, kr_dtype t, const int64_t n[3], const int64_t g[3],
                       int64_t nb, const void *buf, const void *maps, void *out,
                       int accumulate);
/* out[m + M b] = w[m] d[m + M b] (w real, the element type's real precision; out may be d). */
void kri_cpu_lsq_wmul(int nthreads, kr_dtype t, int64_t M, int64_t nb, const void *d,
                      const void *w, void *out);

/* Validate image dims, dtype, a host trajectory (finite, |k_d| <= n_d / 2) and host weights
 * (f32/f64, M values, finite, >= 0); *tv becomes a flat [3, M] view of traj, *wv a flat [M]
 * view of the weights (untouched when weights == NULL). `fn` names the caller. */
/* *o = *opts (or the defaults) with batch 0 read as 1; a batch outside [1, 2^20] is
 * KR_ERR_INVALID_ARG naming fn. */
kr_status kri_lsq_opts_resolve(const char *fn, const kr_lsq_opts *opts, kr_lsq_opts *o);
kr_status kri_lsq_check_inputs(const char *fn, const kr_ctx *ctx, const int64_t n[3],
                               const kr_array *traj, const kr_array *weights, kr_dtype t,
                               kr_array *tv, kr_array *wv);

#ifdef KRAY_HAVE_CUDA
/* Device twins (pointers on the ctx's device, queued on its stream, launches checked). */
kr_status kri_cuda_toep_pad(const kr_ctx *ctx, kr_dtype t, const int64_t n[3],
                            const int64_t g[3], int64_t nb, const void *in, const void *maps,
                            void *buf);
kr_status kri_cuda_toep_mulq(const kr_ctx *ctx, kr_dtype t, int64_t G, int64_t nb, void *buf,
                             const void *qhat);
kr_status kri_cuda_toep_crop(const kr_ctx *ctx, kr_dtype t, const int64_t n[3],
                             const int64_t g[3], int64_t nb, const void *buf, const void *maps,
                             void *out, int accumulate);
kr_status kri_cuda_lsq_wmul(const kr_ctx *ctx, kr_dtype t, int64_t M, int64_t nb,
                            const void *d, const void *w, void *out);
#endif

#ifdef __cplusplus
}
#endif
#endif
