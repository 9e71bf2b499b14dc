/* Private interface of the solve module: the backend tables of the vector operations and the
 * dense matrix operator, scratch buffers, operator checks. Not installed. The C++/CUDA side
 * (vec_cuda.cu, linop_cuda.cu) sees only the tables. */
#ifndef KRAY_SOLVE_INTERNAL_H
#define KRAY_SOLVE_INTERNAL_H

#include "core/backend.h"
#include "kray/linop.h"

/* Elements per reduction chunk, host and device. Host dot/norm sums each chunk sequentially in
 * double and adds the chunk partials in chunk order, so the result does not depend on the
 * thread count. The device uses one block of KRI_VEC_THREADS threads per chunk. */
#define KRI_VEC_CHUNK 4096
#define KRI_VEC_THREADS 256

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the backend seam (core/backend.h) ------------------------------------------------------
 * kr_vec_* (vec.c) validate and call the table of the arrays' location: kri_vec_cpu (vec_cpu.c,
 * OpenMP) or kri_vec_cuda (vec_cuda.cu; vec_nocuda.c without CUDA). n is the element count
 * (complex elements are interleaved (re, im) pairs); t is one of f32, f64, c64, c128; device
 * pointers are on the ctx's device, and device work runs on the ctx's stream, every launch
 * checked (KR_ERR_CUDA with a sentence). Elementwise verbs do not synchronise; zero and the
 * reductions synchronise the stream and return the value on the host. Verbs:
 *   zero:  x = 0 (bytes bytes).
 *   elem:  op 0 (scale): y = a y; op 1 (axpy): y += a x; op 2 (xpay): y = x + a y, a = re + i im
 *          rounded to the element precision first.
 *   dot:   sum conj(x) y in double (host: fixed chunks in chunk order; device: per-chunk block
 *          tree, then one block over the partials).
 *   sumsq: sum |x|^2 in double, the same scheme.
 *   random: value k of the interleaved scalars is (T)kri_rand_sym(seed, k).
 *   dmul:  z = d .* x with d real of t's precision (complex x: both parts times d[i]); z may be
 *          x. */
typedef struct kri_vec_backend {
    kri_backend_hdr hdr;
    kr_status (*zero)(const kr_ctx *ctx, void *x, size_t bytes);
    kr_status (*elem)(const kr_ctx *ctx, kr_dtype t, int op, int64_t n, void *y, double re,
                      double im, const void *x);
    kr_status (*dot)(const kr_ctx *ctx, kr_dtype t, int64_t n, const void *x, const void *y,
                     double *re, double *im);
    kr_status (*sumsq)(const kr_ctx *ctx, kr_dtype t, int64_t n, const void *x, double *sumsq);
    kr_status (*random)(const kr_ctx *ctx, kr_dtype t, int64_t n, void *x, uint64_t seed);
    kr_status (*dmul)(const kr_ctx *ctx, kr_dtype t, int64_t n, void *z, const void *d,
                      const void *x);
} kri_vec_backend;
extern const kri_vec_backend kri_vec_cpu, kri_vec_cuda;

/* The dense row-major m x n matrix M of kr_linop_matrix (linop_comb.c): kri_matrix_cpu
 * (linop_cpu.c) or kri_matrix_cuda (linop_cuda.cu; linop_nocuda.c without CUDA).
 *   create:  *M = a copy of the host matrix (bytes bytes), in host memory or on the ctx's device.
 *   apply:   adjoint == 0: out[i] = sum_j M[i n + j] in[j] (i < m); adjoint != 0:
 *            out[j] = sum_i conj(M[i n + j]) in[i] (j < n); accumulated in double in index
 *            order, so host and device give the same values.
 *   destroy: frees *M (accepts NULL). */
typedef struct kri_matrix_backend {
    kri_backend_hdr hdr;
    kr_status (*create)(void **M, const kr_ctx *ctx, size_t bytes, const void *host);
    kr_status (*apply)(const kr_ctx *ctx, kr_dtype t, int64_t m, int64_t n, const void *M,
                       const void *in, void *out, int adjoint);
    void (*destroy)(void *M);
} kri_matrix_backend;
extern const kri_matrix_backend kri_matrix_cpu, kri_matrix_cuda;

#ifdef __cplusplus
}
#endif

#ifndef __cplusplus
#include <stdatomic.h>

/* sum |x|^2 in double (deterministic); x checked like the kr_vec_* operands. */
kr_status kri_vec_sumsq(const kr_ctx *ctx, const kr_array *x, double *sumsq);
/* z = d .* x: x and z of one dtype and element count, d real of their precision (f32 for
 * f32/c64, f64 for f64/c128) with as many elements, all at one location (checked). */
kr_status kri_vec_dmul(const kr_ctx *ctx, kr_array *z, const kr_array *d, const kr_array *x);
/* The real dtype of t's precision (f32 for f32/c64, f64 for f64/c128). */
kr_dtype kri_real_dtype(kr_dtype t);

/* ---- scratch buffers -----------------------------------------------------------------------
 * One cached array per slot, created on first use and kept until kri_scratch_free. A caller
 * that finds the slot busy (the same operator applied from another thread at the same time)
 * gets a temporary array instead, freed by kri_scratch_put; so sharing is safe, only slower.
 * Contents are unspecified on get: callers must overwrite. */
typedef struct kri_scratch {
    kr_array *buf;
    atomic_flag busy;
} kri_scratch;

void kri_scratch_init(kri_scratch *s);
kr_status kri_scratch_get(kri_scratch *s, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                          const int64_t *dims, kr_loc loc, kr_array **out);
void kri_scratch_put(kri_scratch *s, kr_array *a);
void kri_scratch_free(kri_scratch *s);

/* ---- operator internals (linop.c) ---------------------------------------------------------- */
/* The ctx the operator captured at creation. */
const kr_ctx *kri_linop_ctx(const kr_linop *op);
/* Non-zero when the operator has its own normal callback (not adjoint(forward(x))). */
int kri_linop_has_normal(const kr_linop *op);
/* Check that `a` fits the operator's domain (in != 0) or codomain (in == 0): the operand check
 * (kri_check_operand: not NULL, data, the operator's dtype and location, contiguous), then the
 * operator's device (KR_ERR_LOCATION) and dims (KR_ERR_DIM, trailing 1s ignored). `fn` and
 * `what` name the caller and the argument in the sentence. */
kr_status kri_linop_check_array(const kr_linop *op, const kr_array *a, int in, const char *fn,
                                const char *what);
/* Like kr_linop_create, but errors of the callbacks are passed up without the operator's name
 * as prefix (for kray's own combinators, whose operands already name themselves). */
kr_status kri_linop_create_internal(kr_linop **op, const kr_ctx *ctx, const kr_linop_def *def);
/* True when two shapes are equal, trailing 1s ignored (linop.c). */
int kri_dims_equal(int na, const int64_t *da, int nb, const int64_t *db);
/* KR_ERR_DTYPE or KR_ERR_LOCATION ("fn: ..." naming both) unless a and b share dtype, location
 * and device (linop_comb.c; what every combination of two operators checks first). */
kr_status kri_operands_agree(const char *fn, const kr_linop *a, const kr_linop *b);
/* True when the byte ranges of the two arrays overlap (vec.c). */
int kri_arrays_overlap(const kr_array *a, const kr_array *b);
#endif

#endif
