/* kray linear operators, vector operations and solvers.
 *
 * A kr_linop maps a domain array (in_dims) to a codomain array (out_dims), both of one element
 * type (f32, f64, c64, c128) at one location (host or device). Every projector, NUFFT, DrFT,
 * SENSE and coil operator in kray is one, and passes kr_linop_adjoint_test. Solvers see only
 * kr_linop and the kr_vec_* operations, so the same CG/CGLS runs on CPU and GPU: build the
 * operator and the vectors in device memory with a CUDA ctx and the solver runs on the GPU.
 *
 * Context: an operator captures the ctx given at creation (combinators: the ctx of their first
 * operand) and uses it for its own vector operations and scratch arrays. The ctx must outlive
 * the operator. Host operators need a CPU ctx, device operators a CUDA ctx (KR_ERR_LOCATION).
 *
 * Ownership: operators are reference counted. kr_linop_create returns one reference;
 * combinators keep a reference to their operands, so the caller may destroy its own handles at
 * any time; the last kr_linop_destroy calls def->destroy(data) and frees the operator.
 *
 * Threads: applying one operator from two threads at once is safe for kray's own operators
 * (identity, matrix, combinators and the default normal: a busy scratch buffer is replaced by a
 * temporary one), but only if every user callback involved is safe too. When in doubt, do not
 * apply one operator (or operators that share operands) concurrently.
 *
 * Shapes: arrays passed to an operator must have its dtype (else KR_ERR_DTYPE), its location
 * and device (else KR_ERR_LOCATION), its dims (trailing 1s ignored; else KR_ERR_DIM), be
 * contiguous (else KR_ERR_NOT_SUPPORTED), and input and output must not overlap
 * (KR_ERR_INVALID_ARG).
 */
#ifndef KRAY_LINOP_H
#define KRAY_LINOP_H

#include "kray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kr_linop kr_linop;

/* User callbacks: `data` is kr_linop_def.data; the arrays have been checked (operator's
 * dtype, location, dims, contiguous, in and out do not overlap); `out` must be fully
 * overwritten (not accumulated into). Report failures with a kr_status; kray prefixes the
 * detail with "operator '<name>' forward: " (or adjoint/normal). */
typedef kr_status (*kr_linop_apply_fn)(void *data, const kr_array *in, kr_array *out);
typedef void (*kr_linop_free_fn)(void *data);

typedef struct kr_linop_def {
    const char *name;           /* shown in errors and logs, copied (63 characters kept) */
    kr_dtype dtype;             /* f32, f64, c64 or c128 */
    kr_loc loc;
    int in_ndim;
    int64_t in_dims[KR_MAX_DIMS];
    int out_ndim;
    int64_t out_dims[KR_MAX_DIMS];
    kr_linop_apply_fn forward;  /* required */
    kr_linop_apply_fn adjoint;  /* required */
    kr_linop_apply_fn normal;   /* optional A^H A; default adjoint(forward(x)) through a
                                   codomain-sized scratch array allocated on first use and
                                   kept with the operator */
    kr_linop_free_fn destroy;   /* optional, called once with data by the last destroy */
    void *data;
} kr_linop_def;

/* Create an operator (ctx and def must not be NULL). On failure nothing is kept: the caller
 * still owns def->data (destroy is not called). */
kr_status kr_linop_create(kr_linop **op, const kr_ctx *ctx, const kr_linop_def *def);
/* Take one more reference (release it with kr_linop_destroy). */
kr_status kr_linop_retain(kr_linop *op);
void kr_linop_destroy(kr_linop *op); /* releases one reference; accepts NULL */

/* Shapes and attributes (NULL op: KR_DTYPE_INVALID, KR_HOST, 0, ""). */
kr_dtype kr_linop_dtype(const kr_linop *op);
kr_loc kr_linop_loc(const kr_linop *op);
int kr_linop_in_dims(const kr_linop *op, int64_t *dims);  /* returns ndim; dims may be NULL */
int kr_linop_out_dims(const kr_linop *op, int64_t *dims);
const char *kr_linop_name(const kr_linop *op);

/* Apply: y = A x, x = A^H y, z = A^H A x (checks as described at the top). */
kr_status kr_linop_forward(const kr_linop *op, const kr_array *x, kr_array *y);
kr_status kr_linop_adjoint(const kr_linop *op, const kr_array *y, kr_array *x);
kr_status kr_linop_normal(const kr_linop *op, const kr_array *x, kr_array *z);

/* Combinators. Operands must share dtype (KR_ERR_DTYPE) and location/device
 * (KR_ERR_LOCATION); shapes must agree exactly, trailing 1s ignored (KR_ERR_DIM).
 *   chain(first, second): x -> second(first(x)); adjoint first^H(second^H y); when second has
 *                         its own normal, the chain's normal is first^H second^N first.
 *   stack(A, B):          x -> [A x ; B x]: codomain 1-D with numel(A out) + numel(B out)
 *                         elements, A's part first (each part in its own operator's layout);
 *                         adjoint A^H y_A + B^H y_B; normal A^N x + B^N x.
 *   sum(A, B):            x -> A x + B x (same in and out dims); adjoint A^H y + B^H y.
 *   scale(A, re, im):     x -> (re + i im) A x; adjoint (re - i im) A^H y; normal
 *                         |re + i im|^2 A^N x. The factor must be finite and im must be 0 for
 *                         real dtypes (KR_ERR_INVALID_ARG).
 * Each returns a new reference in *out.                                                     */
kr_status kr_linop_chain(kr_linop **out, kr_linop *first, kr_linop *second);
kr_status kr_linop_stack(kr_linop **out, kr_linop *a, kr_linop *b);
kr_status kr_linop_sum(kr_linop **out, kr_linop *a, kr_linop *b);
kr_status kr_linop_scale(kr_linop **out, kr_linop *a, double re, double im);
/* Normal operator N = A^H A as an operator of its own (square on A's domain, self-adjoint:
 * forward and adjoint both call kr_linop_normal(A), so A's own normal, e.g. a Toeplitz
 * embedding, is used). For CG on the normal equations: kr_cg(ctx, N, A^H y, x, ...). */
kr_status kr_linop_normal_op(kr_linop **out, kr_linop *a);
/* Identity on arrays of `dims` (forward, adjoint and normal copy). */
kr_status kr_linop_identity(kr_linop **out, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                            const int64_t *dims, kr_loc loc);
/* Dense m x n matrix operator (row-major M[i*n + j], dtype elements, complex interleaved) for
 * tests and small problems: in dims [n], out dims [m]. The matrix is copied (to the device
 * when loc is KR_DEVICE). Products are accumulated in double in index order (host and device
 * compute the same arithmetic). */
kr_status kr_linop_matrix(kr_linop **out, const kr_ctx *ctx, kr_dtype dtype, int64_t m,
                          int64_t n, const void *matrix, kr_loc loc);

/* Dot-product adjoint test with random x, y (kr_vec_random with `seed` and a second stream
 * derived from it) in the operator's memory: returns
 *   |<A x, y> - <x, A^H y>| / max(|A x| |y|, |x| |A^H y|)
 * in *rel_err (computed in float64; 0 when both products vanish). A correct adjoint gives a
 * value near the rounding of the dtype (about 1e-7 for f32/c64, 1e-15 for f64/c128). */
kr_status kr_linop_adjoint_test(const kr_linop *op, uint64_t seed, double *rel_err);

/* ---- vector operations ---------------------------------------------------------------------
 * Host arrays need a CPU ctx and run with OpenMP; device arrays need a CUDA ctx and run on its
 * stream. All operands: dtype f32, f64, c64 or c128 (KR_ERR_DTYPE), the same dtype
 * (KR_ERR_DTYPE), the same element count (KR_ERR_DIM; shapes may differ), the same location
 * (KR_ERR_LOCATION), contiguous. Two operands may be the same array but must not partly
 * overlap. Scalars are (re, im) and must be finite; for real dtypes im must be 0
 * (KR_ERR_INVALID_ARG). Elementwise operations round the scalar to the element precision and
 * compute in that precision with separately rounded products and sums (no fused multiply-add),
 * so host and device compute the same arithmetic.
 * Reductions accumulate in float64 over fixed chunks of 4096 elements: on the host each chunk
 * is summed in order and the chunk sums are added in order, so the result is bit-identical for
 * any thread count; the device result is deterministic too but may differ from the host in the
 * last bits (different summation tree). */
kr_status kr_vec_zero(const kr_ctx *ctx, kr_array *x);
kr_status kr_vec_copy(const kr_ctx *ctx, kr_array *dst, const kr_array *src);
kr_status kr_vec_scale(const kr_ctx *ctx, kr_array *x, double re, double im); /* x *= a */
kr_status kr_vec_axpy(const kr_ctx *ctx, kr_array *y, double re, double im,
                      const kr_array *x);                                   /* y += a x */
kr_status kr_vec_xpay(const kr_ctx *ctx, kr_array *y, double re, double im,
                      const kr_array *x);                                   /* y = x + a y */
/* <x, y> = sum conj(x) y; im may be NULL (it is 0 for real dtypes). */
kr_status kr_vec_dot(const kr_ctx *ctx, const kr_array *x, const kr_array *y, double *re,
                     double *im);
kr_status kr_vec_norm2(const kr_ctx *ctx, const kr_array *x, double *norm); /* sqrt(sum |x|^2) */
/* Fill with uniform random values in [-1, 1) from a counter-based generator: scalar k of the
 * array (complex: k = 2 i for the real part of element i, 2 i + 1 for its imaginary part) is
 * u * 2^-52 - 1 with u the top 53 bits of splitmix64(seed + (k + 1) * 0x9E3779B97F4A7C15),
 * rounded to the element precision. Same values on host and device, for any thread count. */
kr_status kr_vec_random(const kr_ctx *ctx, kr_array *x, uint64_t seed);

/* ---- solvers ------------------------------------------------------------------------------ */
typedef struct kr_solve_opts {
    int max_iter;          /* >= 1; default 50 */
    double tol;            /* >= 0; stop when the relative residual (see kr_solve_info) <= tol
                              (default 1e-6) */
    double lambda;         /* Tikhonov weight (>= 0, default 0): CG solves (A + lambda I) x = b,
                              CGLS minimises ||A x - y||^2 + lambda ||x||^2 */
    int warm_start;        /* non-zero: x holds the initial guess; else x is zeroed first */
    double *history;       /* optional, room for max_iter + 1 doubles: entry k (k = 0 ..
                              info->iterations) is the relative residual after k iterations;
                              later entries are left untouched */
    int show_progress;     /* progress through the ctx (callback, or a bar on a terminal) */
    const kr_array *precond; /* optional diagonal preconditioner P ~= (A + lambda I)^-1 (CG) or
                              (A^H A + lambda I)^-1 (CGLS): real, f32 for f32/c64 operators and
                              f64 for f64/c128, one value per element of the domain, finite and
                              >= 0, at the operator's location (not copied: keep it alive during
                              the call). CG becomes preconditioned CG (z = P g, gamma = <g, z>,
                              p = z + beta p), CGLS the same on the normal equations. NULL (the
                              default): unpreconditioned. Convergence is still measured on the
                              unpreconditioned residual, so tol and the history mean the same
                              with and without P, and at convergence the solution is the same. */
} kr_solve_opts;

typedef struct kr_solve_info {
    int iterations;        /* iterations performed */
    double rel_residual;   /* final relative residual:
                                CG:   ||b - (A + lambda I) x|| / ||b||
                                CGLS: ||A^H (y - A x) - lambda x|| / ||A^H y||
                              (recursively updated residuals, as usual for CG); measured
                              against the right-hand side, not the initial guess, so a good
                              warm start needs fewer iterations */
    int converged;         /* 1 when rel_residual <= tol */
} kr_solve_info;

void kr_solve_opts_default(kr_solve_opts *o);

/* CG for (A + lambda I) x = b with A Hermitian positive (semi-)definite (uses
 * kr_linop_forward of A, which must be square: in dims == out dims, else KR_ERR_DIM). opts NULL
 * means defaults; info may be NULL. b and x are A's dtype and location; the ctx must match the
 * location. b == 0 gives x = 0 (converged, 0 iterations).
 * Returns KR_OK also when max_iter is reached without meeting tol, or when <p, A p> <= 0 stops
 * the iteration (A not positive definite): check info->converged; x holds the last iterate.
 * Returns KR_ERR_NOT_CONVERGED when the iteration produced inf or nan (x is then undefined).
 * Bad options (max_iter <= 0, tol < 0, lambda < 0 or not finite): KR_ERR_INVALID_ARG.
 * Bad preconditioner (dtype, element count, location, a negative or non-finite value):
 * KR_ERR_DTYPE / KR_ERR_DIM / KR_ERR_LOCATION / KR_ERR_INVALID_ARG (a device preconditioner
 * is copied to the host once per call for that check).
 * Work space: 3 domain-sized arrays at A's location (4 with a preconditioner), allocated per
 * call. */
kr_status kr_cg(const kr_ctx *ctx, const kr_linop *A, const kr_array *b, kr_array *x,
                const kr_solve_opts *opts, kr_solve_info *info);
/* CGLS for min ||A x - y||^2 + lambda ||x||^2 with any A (forward and adjoint); y is a
 * codomain array, x a domain array. A^H y == 0 gives x = 0. Status conventions as kr_cg.
 * Work space: 2 codomain-sized and 2 domain-sized arrays, allocated per call. */
kr_status kr_cgls(const kr_ctx *ctx, const kr_linop *A, const kr_array *y, kr_array *x,
                  const kr_solve_opts *opts, kr_solve_info *info);

#ifdef __cplusplus
}
#endif
#endif
