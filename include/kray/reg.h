/* kray regularised reconstruction: sparsifying transforms (finite differences, orthogonal
 * wavelets), proximal maps, and the algorithms that combine them with a kr_linop forward model
 * (FISTA, ADMM, Chambolle-Pock PDHG), plus the CT algorithms OS-SART and ASD-POCS.
 *
 * Arrays follow kray/linop.h: dims fastest first, one dtype (f32, f64, c64, c128), contiguous,
 * at the location of the ctx's backend (host for CPU contexts, device for CUDA). Every function
 * runs on the CPU (OpenMP, bit-identical for any thread count) and on CUDA, except where a
 * comment says the device path goes through the host.
 *
 * The problem the solvers minimise (docs/reg.md gives the scaling of every lambda against
 * BART's and TIGRE's conventions):
 *     F(x) = 1/2 ||A x - y||^2 + sum_j g_j(K_j x)
 * with A a kr_linop, y its codomain data, K_j a kr_linop (NULL = identity) and g_j a proximal
 * map (kr_prox) that holds its own weight lambda_j. */
#ifndef KRAY_REG_H
#define KRAY_REG_H

#include "kray/ct.h"
#include "kray/linop.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- finite differences ---------------------------------------------------------------------
 * D maps x (dims [n0, n1, ...], ndim axes) to the stack of its forward differences along the
 * axes set in `axes` (bit a for axis a; a < ndim): codomain dims [n0, n1, ..., nd-1, k] with k
 * the number of chosen axes, the differences in increasing axis order. Along axis a:
 *   KR_FDIFF_NEUMANN:  (D_a x)[i] = x[i + 1] - x[i] for i < n_a - 1, and 0 at i = n_a - 1
 *                      (the discrete gradient of Chambolle's TV; the constant is its kernel);
 *   KR_FDIFF_PERIODIC: (D_a x)[i] = x[(i + 1) mod n_a] - x[i] (BART's circular difference).
 * The adjoint is the exact transpose (minus a divergence); ||D||^2 <= 4 k. Time, echo or
 * contrast axes are axes like any other: pick them in `axes`. */
typedef enum kr_fdiff_boundary { KR_FDIFF_NEUMANN = 0, KR_FDIFF_PERIODIC } kr_fdiff_boundary;

kr_status kr_fdiff_linop_create(kr_linop **op, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                                const int64_t *dims, unsigned axes, kr_fdiff_boundary bc);

/* ---- orthogonal wavelets --------------------------------------------------------------------
 * Separable multilevel discrete wavelet transform with orthonormal Daubechies filters (Haar =
 * db1, db2, db4) and the PERIODIC boundary rule: every level filters each chosen axis as a
 * circular signal of its current length L (even) and keeps L / 2 approximation then L / 2
 * detail coefficients (analysis a[k] = sum_j h[j] x[(2k + j) mod L], d[k] the same with the
 * high pass g[j] = (-1)^j h[taps - 1 - j]; Haar: a = (x0 + x1) / sqrt 2, d = (x0 - x1) / sqrt 2),
 * in place (Mallat layout: after `levels` levels the coarsest
 * approximation is the block [0, n_a / 2^levels) of every chosen axis). The transform is
 * orthogonal, so W^H = W^-1 (the adjoint and the inverse are one computation, equal to
 * rounding). Each chosen axis must be divisible by 2^levels (KR_ERR_DIM otherwise).
 * Domain and codomain have the same dims. `shift` (NULL = none) circularly shifts the input by
 * shift[a] along each axis a before the transform (W_s = W S): still orthogonal. */
typedef enum kr_wavelet_kind { KR_WAVELET_HAAR = 0, KR_WAVELET_DB2, KR_WAVELET_DB4 } kr_wavelet_kind;

kr_status kr_wavelet_kind_from_name(const char *s, kr_wavelet_kind *k); /* haar, db2, db4 */

typedef struct kr_wavelet_opts {
    kr_wavelet_kind kind;       /* default KR_WAVELET_DB4 */
    unsigned axes;              /* bit a: transform axis a; 0 = the first two axes (2-D) */
    int levels;                 /* >= 1; 0 = as many as the axes allow, at most 4, and the
                                   coarsest band at least as long as the filter */
    const int64_t *shift;       /* NULL or one circular shift per axis of the array */
} kr_wavelet_opts;

void kr_wavelet_opts_default(kr_wavelet_opts *o);
kr_status kr_wavelet_linop_create(kr_linop **op, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                                  const int64_t *dims, const kr_wavelet_opts *o);

/* ---- proximal maps --------------------------------------------------------------------------
 * A kr_prox is a convex function g of arrays of one dtype and shape with its proximal map
 *     prox_{t g}(v) = argmin_x  g(x) + ||x - v||^2 / (2 t)     (t > 0)
 * and its value g(x) (indicators are 0 inside their set; a point outside gives +inf).
 * Functions (all weights lambda >= 0, finite):
 *   l1:        lambda sum_i |x_i| (complex modulus): the complex soft threshold
 *              x_i = max(0, 1 - t lambda / |v_i|) v_i.
 *   l21:       lambda sum_i ||z_i||_2, with dims [..., k] and z_i the k values of the last axis
 *              at position i (isotropic TV on the output of kr_fdiff_linop_create): the group
 *              threshold z_i = max(0, 1 - t lambda / ||v_i||) v_i.
 *   l2ball:    the indicator of {x : ||x - c||_2 <= radius} (c an array of the prox's shape,
 *              copied; NULL = 0): projection onto the ball.
 *   box:       the indicator of {lo <= x <= hi} (lo = 0, hi = INFINITY: non-negativity). For
 *              complex dtypes the real part is clamped and the imaginary part set to 0.
 *   llr:       locally low rank: lambda sum_b ||X_b||_* over blocks b of block^s values of the
 *              axes other than `axis` (the image axes; blocks at the far edges are smaller),
 *              X_b the matrix (block pixels) x (dims[axis]); the prox soft-thresholds the
 *              singular values of each block by t lambda. Blocks are shifted by `shift` per
 *              axis (circularly; NULL = none). One-sided Jacobi SVD in double per block, on
 *              the host (OpenMP over blocks) or the device (one thread block per block; no
 *              host round trip; docs/reg.md).
 *   l1-wavelet: lambda ||W S x||_1 with W an orthogonal wavelet (kr_wavelet_opts): the prox is
 *              S^-1 W^H soft(W S v) exactly. With random shifts on (seed != 0), every call of
 *              the prox draws a new circular shift S per transformed axis (0 .. 2^levels - 1,
 *              from a counter-based stream of `seed`), as BART does to avoid block artefacts;
 *              the value g(x) is then taken without shift.
 *   tv:        lambda TV(x) + the indicator of [lo, hi] (lo = -INFINITY, hi = INFINITY: no
 *              constraint), TV(x) = sum_i ||(D x)_i||_2 with D = kr_fdiff_linop_create(axes,
 *              KR_FDIFF_NEUMANN): the prox has no closed form and is computed by `inner`
 *              iterations (0 = 20) of Beck and Teboulle's fast gradient projection on the
 *              dual, warm-started from the previous call's dual (so successive calls of an
 *              outer solver converge).
 * Each create copies what it is given; the ctx must outlive the prox. */
typedef struct kr_prox kr_prox;

kr_status kr_prox_l1_create(kr_prox **p, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                            const int64_t *dims, double lambda);
kr_status kr_prox_l21_create(kr_prox **p, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                             const int64_t *dims, double lambda);
kr_status kr_prox_l2ball_create(kr_prox **p, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                                const int64_t *dims, double radius, const kr_array *center);
kr_status kr_prox_box_create(kr_prox **p, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                             const int64_t *dims, double lo, double hi);
kr_status kr_prox_llr_create(kr_prox **p, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                             const int64_t *dims, double lambda, int axis, int64_t block,
                             const int64_t *shift);
kr_status kr_prox_l1_wavelet_create(kr_prox **p, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                                    const int64_t *dims, double lambda,
                                    const kr_wavelet_opts *w, uint64_t seed);
kr_status kr_prox_tv_create(kr_prox **p, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                            const int64_t *dims, double lambda, unsigned axes, double lo,
                            double hi, int inner);
void kr_prox_destroy(kr_prox *p); /* accepts NULL */

/* x = prox_{t g}(v); x may be v (in place). */
kr_status kr_prox_apply(kr_prox *p, double t, const kr_array *v, kr_array *x);
/* *value = g(x) (+inf outside an indicator's set, with a tolerance of 1e-6 relative). */
kr_status kr_prox_value(kr_prox *p, const kr_array *x, double *value);

/* ---- algorithms -----------------------------------------------------------------------------
 * Terms g_j(K_j x): K NULL means the identity. */
typedef struct kr_reg_term {
    kr_linop *K;
    kr_prox *g;
} kr_reg_term;

typedef struct kr_reg_opts {
    int max_iter;        /* >= 1; default 100 */
    double tol;          /* >= 0; stop when the relative change ||x_k - x_k-1|| / ||x_k|| (FISTA,
                            PDHG) or both relative ADMM residuals are <= tol; default 1e-6 */
    int warm_start;      /* non-zero: x holds the initial guess (else zero) */
    double *objective;   /* optional, max_iter + 1 doubles: F(x_k) for k = 0 .. iterations */
    double *residual;    /* optional, max_iter + 1 doubles: entry 0 is 1, entry k the relative
                            change (FISTA, PDHG) or the relative primal residual (ADMM) */
    int show_progress;
    double step;         /* FISTA step 1/L (> 0); 0 = 1 / (1.01 L) with L = ||A^H A|| from a
                            power iteration */
    int power_iter;      /* power iterations for L and for PDHG's ||K||; 0 = 30 */
    int monotone;        /* FISTA: Beck and Teboulle's monotone variant (MFISTA) */
    int normal_form;     /* FISTA: the gradient A^H A z - A^H y from A's own normal (one normal
                            per iteration instead of a forward and an adjoint; faster when the
                            normal is cheap, e.g. a Toeplitz embedding); objective from
                            <x, A^H A x> */
    double rho;          /* ADMM penalty (> 0); 0 = 1 */
    int cg_iter;         /* ADMM inner CG iterations (warm-started); 0 = 10 */
    double sigma, tau;   /* PDHG steps; 0 = automatic: tau = 0.99 / ||K|| (K = [A; K_1; ...],
                            ||K||^2 <= sum of the blocks' squared norms) and one dual step per
                            block, sigma_j = 0.99 / (tau n ||K_j||^2) for n blocks (diagonal
                            preconditioning over blocks); sigma > 0: every block uses it */
    uint64_t seed;       /* power iteration start vector */
} kr_reg_opts;

typedef struct kr_reg_info {
    int iterations;
    double objective;    /* F(x) of the returned x */
    double rel_change;   /* last relative change (FISTA, PDHG) */
    double primal_res;   /* ADMM: sqrt(sum_j ||K_j x - z_j||^2) / max(||K x||, ||z||) */
    double dual_res;     /* ADMM: rho ||sum_j K_j^H (z_j - z_j,prev)|| / ||sum_j K_j^H u_j|| */
    double lipschitz;    /* FISTA: the L used (1 / step); PDHG: ||K||^2 estimate */
    int converged;
} kr_reg_info;

void kr_reg_opts_default(kr_reg_opts *o);

/* FISTA (Beck and Teboulle 2009) for 1/2 ||A x - y||^2 + g(x) with one proximable g (NULL: none,
 * then FISTA is accelerated gradient descent). x is A's domain array. */
kr_status kr_fista(const kr_ctx *ctx, const kr_linop *A, const kr_array *y, kr_prox *g,
                   kr_array *x, const kr_reg_opts *o, kr_reg_info *info);
/* ADMM (scaled form, penalty rho) with z_j = K_j x: x from CG on
 * (A^H A + rho sum K_j^H K_j) x = A^H y + rho sum K_j^H (z_j - u_j), z_j = prox_{g_j / rho}. */
kr_status kr_admm(const kr_ctx *ctx, const kr_linop *A, const kr_array *y,
                  const kr_reg_term *terms, int nterms, kr_array *x, const kr_reg_opts *o,
                  kr_reg_info *info);
/* Chambolle-Pock primal-dual (2011, theta = 1): dual variables for the data term and for every
 * term with K != NULL; at most one term with K == NULL, taken as the primal prox (a
 * constraint such as non-negativity). tau sum_j sigma_j ||K_j||^2 < 1 with the defaults.
 * Warm starts (all three algorithms) take x from the caller; dual and split variables start
 * from zero (ADMM: z_j = K_j x, u_j = 0). */
kr_status kr_pdhg(const kr_ctx *ctx, const kr_linop *A, const kr_array *y,
                  const kr_reg_term *terms, int nterms, kr_array *x, const kr_reg_opts *o,
                  kr_reg_info *info);

/* Largest eigenvalue of A^H A by `iters` power iterations from kr_vec_random(seed). */
kr_status kr_linop_norm2_estimate(const kr_ctx *ctx, const kr_linop *A, int iters,
                                  uint64_t seed, double *lmax);

/* ---- CT -------------------------------------------------------------------------------------
 * OS-SART (ordered subsets: view v belongs to subset v mod subsets, subsets visited in the
 * order 0, 1, ...): for each subset s, x <- x + relax C_s A_s^T R_s (y_s - A_s x) with
 * R_s = 1 / (A_s 1), C_s = 1 / (A_s^T 1) (zero weights where the sums are 0), then the box
 * [lo, hi] when nonneg is set (lo 0). One iteration is one pass over all subsets; subsets 1
 * gives SIRT. ASD-POCS (Sidky and Pan 2008, TIGRE's adaptive steepest descent): each iteration
 * is one OS-SART pass with the constraint, then `tv_iter` steps of normalised TV steepest
 * descent whose length is alpha times the data step (alpha adapted as TIGRE: reduced by
 * alpha_red when the TV step outgrows r_max times the data step). Geometry: the 2-D types and
 * cone beam; the projector options as kr_ct_linop_create. */
typedef struct kr_ct_reg_opts {
    int max_iter;        /* passes over the data, default 20 */
    int subsets;         /* >= 1, <= views; default 10 */
    double relax;        /* (0, 2); default 1 */
    int nonneg;          /* clamp to >= 0 after each subset update */
    int tv_iter;         /* ASD-POCS TV steps per iteration, default 20 */
    double alpha;        /* ASD-POCS TV step / data step, default 0.002 (TIGRE's) */
    double alpha_red;    /* default 0.95 */
    double r_max;        /* default 0.95 */
    double *residual;    /* optional, max_iter + 1: ||A x - y|| / ||y|| after k passes */
    int warm_start;
    int show_progress;
} kr_ct_reg_opts;

void kr_ct_reg_opts_default(kr_ct_reg_opts *o);
kr_status kr_os_sart(const kr_ctx *ctx, const kr_ct_geom *g, const kr_ct_projector_opts *po,
                     const kr_array *y, kr_array *x, const kr_ct_reg_opts *o, kr_solve_info *info);
kr_status kr_asd_pocs(const kr_ctx *ctx, const kr_ct_geom *g, const kr_ct_projector_opts *po,
                      const kr_array *y, kr_array *x, const kr_ct_reg_opts *o,
                      kr_solve_info *info);

#ifdef __cplusplus
}
#endif
#endif
