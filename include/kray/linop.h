/* kray linear operators, vector operations and solvers.
 *
 * A kr_linop maps a domain array (in_dims) to a codomain array (out_dims), both of one element
 * type (f32, f64, c64, c128) at one location (host or device). Every projector, NUFFT, DrFT,
 * SENSE and coil operator in kray is one, and passes kr_linop_adjoint_test. Solvers see only
 * kr_linop and the kr_vec_* operations, so the same CG/CGLS runs on CPU and GPU.
 *
 * Ownership: combinators (chain, stack, sum, scale) keep a reference to their operands, so the
 * caller may destroy its own handles at any time; the last kr_linop_destroy frees the data.
 */
#ifndef KRAY_LINOP_H
#define KRAY_LINOP_H

#include "kray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kr_linop kr_linop;

/* User callbacks: `data` is kr_linop_def.data; arrays have the operator's dtype/location and
 * contiguous layout; `out` must be fully overwritten (not accumulated into). */
typedef kr_status (*kr_linop_apply_fn)(void *data, const kr_array *in, kr_array *out);
typedef void (*kr_linop_free_fn)(void *data);

typedef struct kr_linop_def {
    const char *name;           /* shown in errors and logs, copied */
    kr_dtype dtype;
    kr_loc loc;
    int in_ndim;
    int64_t in_dims[KR_MAX_DIMS];
    int out_ndim;
    int64_t out_dims[KR_MAX_DIMS];
    kr_linop_apply_fn forward;  /* required */
    kr_linop_apply_fn adjoint;  /* required */
    kr_linop_apply_fn normal;   /* optional A^H A; default adjoint(forward(x)) */
    kr_linop_free_fn destroy;   /* optional, called once with data */
    void *data;
} kr_linop_def;

kr_status kr_linop_create(kr_linop **op, const kr_ctx *ctx, const kr_linop_def *def);
void kr_linop_destroy(kr_linop *op); /* releases one reference; accepts NULL */

/* Shapes and attributes. */
kr_dtype kr_linop_dtype(const kr_linop *op);
kr_loc kr_linop_loc(const kr_linop *op);
int kr_linop_in_dims(const kr_linop *op, int64_t *dims);  /* returns ndim; dims may be NULL */
int kr_linop_out_dims(const kr_linop *op, int64_t *dims);
const char *kr_linop_name(const kr_linop *op);

/* Apply; shapes and location are checked (KR_ERR_DIM / KR_ERR_DTYPE / KR_ERR_LOCATION). */
kr_status kr_linop_forward(const kr_linop *op, const kr_array *x, kr_array *y);
kr_status kr_linop_adjoint(const kr_linop *op, const kr_array *y, kr_array *x);
kr_status kr_linop_normal(const kr_linop *op, const kr_array *x, kr_array *z);

/* Combinators (all operands must share dtype and location):
 *   chain(first, second): x -> second(first(x))
 *   stack(A, B):          x -> [A x ; B x]   (codomain flattened to 1-D, A's part first)
 *   sum(A, B):            x -> A x + B x
 *   scale(A, re, im):     x -> (re + i im) A x   (im must be 0 for real dtypes)          */
kr_status kr_linop_chain(kr_linop **out, kr_linop *first, kr_linop *second);
kr_status kr_linop_stack(kr_linop **out, kr_linop *a, kr_linop *b);
kr_status kr_linop_sum(kr_linop **out, kr_linop *a, kr_linop *b);
kr_status kr_linop_scale(kr_linop **out, kr_linop *a, double re, double im);
kr_status kr_linop_identity(kr_linop **out, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                            const int64_t *dims, kr_loc loc);
/* Dense m x n matrix operator (row-major M[i*n + j], dtype elements) for tests and small
 * problems; the matrix is copied (to the device when loc is KR_DEVICE). */
kr_status kr_linop_matrix(kr_linop **out, const kr_ctx *ctx, kr_dtype dtype, int64_t m,
                          int64_t n, const void *matrix, kr_loc loc);

/* Dot-product adjoint test with random x, y (fixed seed): returns
 * |<A x, y> - <x, A^H y>| / (|A x| |y|) in *rel_err (computed in float64). */
kr_status kr_linop_adjoint_test(const kr_linop *op, uint64_t seed, double *rel_err);

/* ---- vector operations (host: OpenMP with fixed reduction order; device: CUDA) ------------
 * All operands: same dtype, same element count, same location. Complex scalars are (re, im);
 * for real dtypes the imaginary part must be 0. */
kr_status kr_vec_zero(const kr_ctx *ctx, kr_array *x);
kr_status kr_vec_copy(const kr_ctx *ctx, kr_array *dst, const kr_array *src);
kr_status kr_vec_scale(const kr_ctx *ctx, kr_array *x, double re, double im); /* x *= a */
kr_status kr_vec_axpy(const kr_ctx *ctx, kr_array *y, double re, double im,
                      const kr_array *x);                                   /* y += a x */
kr_status kr_vec_xpay(const kr_ctx *ctx, kr_array *y, double re, double im,
                      const kr_array *x);                                   /* y = x + a y */
/* <x, y> = sum conj(x) y, accumulated in float64 (deterministic for any thread count). */
kr_status kr_vec_dot(const kr_ctx *ctx, const kr_array *x, const kr_array *y, double *re,
                     double *im);
kr_status kr_vec_norm2(const kr_ctx *ctx, const kr_array *x, double *norm);
/* Fill with uniform random values in [-1, 1) from a counter-based generator (same values on
 * host and device for the same seed). */
kr_status kr_vec_random(const kr_ctx *ctx, kr_array *x, uint64_t seed);

/* ---- solvers ------------------------------------------------------------------------------ */
typedef struct kr_solve_opts {
    int max_iter;          /* default 50 */
    double tol;            /* stop when ||r|| / ||r0|| <= tol (default 1e-6) */
    double lambda;         /* Tikhonov weight (>= 0): CG solves (A + lambda I) x = b,
                              CGLS minimises ||A x - y||^2 + lambda ||x||^2 */
    int warm_start;        /* non-zero: x holds the initial guess; else starts from 0 */
    double *history;       /* optional, max_iter + 1 doubles: relative residual per iteration */
    int show_progress;     /* progress bar through the ctx */
} kr_solve_opts;

typedef struct kr_solve_info {
    int iterations;
    double rel_residual;   /* final ||r|| / ||r0|| (CG) or ||A^H r|| / ||A^H r0|| (CGLS) */
    int converged;         /* 1 when tol was reached */
} kr_solve_info;

void kr_solve_opts_default(kr_solve_opts *o);

/* CG for Hermitian positive (semi-)definite A (uses kr_linop_forward of A, which must be square:
 * in dims == out dims). Returns KR_OK also when max_iter is reached without meeting tol (check
 * info->converged); x holds the best iterate. */
kr_status kr_cg(const kr_ctx *ctx, const kr_linop *A, const kr_array *b, kr_array *x,
                const kr_solve_opts *opts, kr_solve_info *info);
/* CGLS for min ||A x - y||^2 + lambda ||x||^2 with any A (forward and adjoint). */
kr_status kr_cgls(const kr_ctx *ctx, const kr_linop *A, const kr_array *y, kr_array *x,
                  const kr_solve_opts *opts, kr_solve_info *info);

#ifdef __cplusplus
}
#endif
#endif
