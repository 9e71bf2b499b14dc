/* Private interface of the reg module (regularisation): the backend table of the transforms
 * and proximal kernels, the descriptors they take, and the prox object. Not installed. The
 * CUDA side (reg_cuda.cu) sees only the table and the descriptors. */
#ifndef KRAY_REG_INTERNAL_H
#define KRAY_REG_INTERNAL_H

#include "core/backend.h"
#include "kray/linop.h"
#include "kray/reg.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Array shape with element strides (contiguous, fastest first). */
typedef struct kri_shape {
    int ndim;
    int64_t dims[KR_MAX_DIMS];
    int64_t stride[KR_MAX_DIMS];
    int64_t n; /* elements */
} kri_shape;

/* Finite differences over the chosen axes (kray/reg.h): codomain = naxes blocks of n. */
typedef struct kri_fdiff_desc {
    kri_shape s;
    int naxes;
    int axis[KR_MAX_DIMS];
    int periodic;
} kri_fdiff_desc;

/* One level of the periodic DWT along `axis`, inside the region [0, region[a]) of every axis;
 * elements outside the region are copied. L = region[axis] (even). */
#define KRI_WAVELET_MAXTAPS 8
typedef struct kri_dwt_desc {
    kri_shape s;
    int64_t region[KR_MAX_DIMS];
    int axis;
    int taps;
    double h[KRI_WAVELET_MAXTAPS]; /* low-pass; high-pass g[j] = (-1)^j h[taps - 1 - j] */
} kri_dwt_desc;

/* Group kernels on x viewed as k groups of n elements (group member c of element i is
 * x[c n + i]; complex values count both parts):
 *   SHRINK: x_i *= max(0, 1 - a / ||x_i||)      (soft threshold; k = 1 is the l1 prox)
 *   CLIP:   x_i *= min(1, a / ||x_i||)          (projection onto the ball of radius a)
 *   NORMAL: x_i *= 1 / sqrt(||x_i||^2 + a^2)    (normalised TV gradient)
 *   BOX:    real part clamped to [a, b], imaginary part 0 (k ignored: every element)
 * Reductions (double): GNORM: sum_i ||x_i||; VIOL: sum_i max(0, a - re, re - b) + |im|. */
enum { KRI_G_SHRINK = 0, KRI_G_CLIP, KRI_G_NORMAL, KRI_G_BOX };
enum { KRI_R_GNORM = 0, KRI_R_VIOL };

/* Verbs (t: f32, f64, c64, c128; pointers at the table's location; device work on the ctx's
 * stream; `reduce` synchronises and returns the value on the host):
 *   fdiff:  adjoint 0: z = D x; adjoint 1: x = D^T z.
 *   dwt:    inverse 0: one analysis step in -> out; inverse 1: the synthesis step.
 *   roll:   out[p] = in[(p - shift) mod dims] per axis (circular shift by +shift).
 *   group:  in place, see above.
 *   reduce: see above.
 *   mul:    y[i] *= w[i] (elementwise, complex product for complex types). */
typedef struct kri_reg_backend {
    kri_backend_hdr hdr;
    kr_status (*fdiff)(const kr_ctx *ctx, kr_dtype t, const kri_fdiff_desc *d, const void *in,
                       void *out, int adjoint);
    kr_status (*dwt)(const kr_ctx *ctx, kr_dtype t, const kri_dwt_desc *d, const void *in,
                     void *out, int inverse);
    kr_status (*roll)(const kr_ctx *ctx, kr_dtype t, const kri_shape *s, const int64_t *shift,
                      const void *in, void *out);
    kr_status (*group)(const kr_ctx *ctx, kr_dtype t, int kind, int64_t n, int k, void *x,
                       double a, double b);
    kr_status (*reduce)(const kr_ctx *ctx, kr_dtype t, int kind, int64_t n, int k,
                        const void *x, double a, double b, double *out);
    kr_status (*mul)(const kr_ctx *ctx, kr_dtype t, int64_t n, void *y, const void *w);
} kri_reg_backend;
extern const kri_reg_backend kri_reg_cpu, kri_reg_cuda;

#ifdef __cplusplus
}
#endif

#ifndef __cplusplus
/* Fill a shape from dims (contiguous strides). */
void kri_shape_init(kri_shape *s, int ndim, const int64_t *dims);
/* ctx, dtype (f32/f64/c64/c128) and dims checks shared by the creates (fdiff.c). */
kr_status kri_reg_check_shape(const char *fn, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                              const int64_t *dims);
/* The table for a location. */
kr_status kri_reg_pick(const kri_reg_backend **be, kr_loc loc, const char *what);

/* A wavelet transform (shared by the linop and the l1-wavelet prox). */
typedef struct kri_wavelet {
    const kr_ctx *ctx;
    kr_dtype dtype;
    kr_loc loc;
    kri_shape s;
    unsigned axes;
    int levels;
    int taps;
    double h[KRI_WAVELET_MAXTAPS];
    int64_t shift[KR_MAX_DIMS];
    int shifted;
    kr_array *tmp; /* ping-pong buffer */
} kri_wavelet;

kr_status kri_wavelet_init(kri_wavelet *w, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                           const int64_t *dims, const kr_wavelet_opts *o, const char *fn);
void kri_wavelet_free(kri_wavelet *w);
/* inverse 0: out = W S in; inverse 1: out = S^-1 W^H in (shift from w->shift when shifted). */
kr_status kri_wavelet_apply(kri_wavelet *w, const void *in, void *out, int inverse);

/* Group kernels and reductions on an array (through the table of its location). */
kr_status kri_reg_group(const kr_ctx *ctx, kr_array *x, int kind, int k, double a, double b);
kr_status kri_reg_reduce(const kr_ctx *ctx, const kr_array *x, int kind, int k, double a,
                         double b, double *out);

/* y *= w elementwise (same dtype, element count and location; reg_cpu/cuda). */
kr_status kri_reg_mul(const kr_ctx *ctx, kr_array *y, const kr_array *w);

#endif

#endif
