/* Krylov solvers (CG, CGLS) written against kr_linop and kr_vec_* only, so the same code runs
 * on host arrays (OpenMP) and device arrays (CUDA kernels); only the scalars live on the host. */
#include "internal.h"
#include "solve_internal.h"

#include <math.h>
#include <string.h>

void kr_solve_opts_default(kr_solve_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->max_iter = 50;
    o->tol = 1e-6;
}

static kr_status kri_opts_check(const char *fn, const kr_solve_opts *o)
{
    if (o->max_iter <= 0)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: max_iter is %d, must be >= 1", fn, o->max_iter);
    if (!(o->tol >= 0.0) || isinf(o->tol))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: tol is %g, must be finite and >= 0", fn, o->tol);
    if (!(o->lambda >= 0.0) || isinf(o->lambda))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: lambda is %g, must be finite and >= 0", fn,
                        o->lambda);
    return KR_OK;
}

/* Common argument checks; rhs is b (CG) or y (CGLS), a codomain array; x a domain array. */
static kr_status kri_solve_check(const char *fn, const kr_ctx *ctx, const kr_linop *A,
                                 const kr_array *rhs, const char *rhs_name, const kr_array *x,
                                 const kr_solve_opts *o)
{
    if (!ctx) return kri_fail(KR_ERR_INVALID_ARG, "%s: argument 'ctx' is NULL", fn);
    if (!A) return kri_fail(KR_ERR_INVALID_ARG, "%s: argument 'A' is NULL", fn);
    KRI_TRY(kri_linop_check_array(A, rhs, 0, fn, rhs_name));
    KRI_TRY(kri_linop_check_array(A, x, 1, fn, "x"));
    if (kri_arrays_overlap(rhs, x))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: x and %s overlap (use separate arrays)", fn,
                        rhs_name);
    kr_status s = kri_check_loc(ctx, kr_linop_loc(A), "the operator");
    if (s != KR_OK) return kri_fail_prefix(s, "%s", fn);
    if (kr_linop_loc(A) == KR_DEVICE && x->device != kr_ctx_device(ctx))
        return kri_fail(KR_ERR_LOCATION, "%s: x is on CUDA device %d, the context uses device %d",
                        fn, x->device, kr_ctx_device(ctx));
    return kri_opts_check(fn, o);
}

static void kri_info_set(kr_solve_info *info, int it, double rel, int conv)
{
    if (!info) return;
    info->iterations = it;
    info->rel_residual = rel;
    info->converged = conv;
}

static kr_status kri_nonfinite(const char *fn, const kr_linop *A, const char *what, int it)
{
    return kri_fail(KR_ERR_NOT_CONVERGED,
                    "%s: %s became non-finite at iteration %d (operator '%s' produced inf or nan, "
                    "or the problem is badly scaled)",
                    fn, what, it, kr_linop_name(A));
}

/* Working vectors, all shaped like `like` (the domain; CG is square). */
static kr_status kri_work(kr_array **v, int count, const kr_ctx *ctx, const kr_linop *A,
                          int domain)
{
    int64_t dims[KR_MAX_DIMS];
    int nd = domain ? kr_linop_in_dims(A, dims) : kr_linop_out_dims(A, dims);
    for (int i = 0; i < count; i++) {
        kr_status s = kr_array_create(&v[i], kr_linop_dtype(A), nd, dims, kr_linop_loc(A), ctx);
        if (s != KR_OK) return kri_fail_prefix(s, "solver work vectors");
    }
    return KR_OK;
}

/* The bookkeeping that closes iteration k of CG and CGLS: g_new, the new squared norm of the
 * residual (CG) or of the gradient (CGLS), against the reference norm ref. Returns 1 when the
 * loop must stop: converged (*rel <= tol), or a non-finite norm (*s says so). */
static int kri_iter_close(const char *fn, const kr_linop *A, const char *what,
                          const kr_solve_opts *o, kr_progress *prog, int k, double g_new,
                          double ref, double *rel, kr_status *s)
{
    if (!isfinite(g_new)) {
        *s = kri_nonfinite(fn, A, what, k);
        return 1;
    }
    *rel = sqrt(g_new) / ref;
    if (o->history) o->history[k] = *rel;
    kr_progress_add(prog, 1);
    return *rel <= o->tol;
}

/* The end of a CG or CGLS run: progress bar, info and the debug line. */
static kr_status kri_run_close(const kr_ctx *ctx, const char *fn, kr_progress *prog,
                               kr_solve_info *info, int k, double rel, double tol, kr_status s)
{
    kr_progress_end(prog);
    kri_info_set(info, k, rel, rel <= tol);
    if (s == KR_OK)
        kr_log(ctx, KR_LOG_DEBUG, "%s: %d iterations, relative residual %.3g (%s)", fn, k, rel,
               rel <= tol ? "converged" : "not converged");
    return s;
}
/* ---- CG ------------------------------------------------------------------------------------- */
static kr_status kri_cg_run(const kr_ctx *ctx, const kr_linop *A, const kr_array *b, kr_array *x,
                            const kr_solve_opts *o, kr_solve_info *info, kr_array *r, kr_array *p,
                            kr_array *q)
{
    static const char fn[] = "kr_cg";
    const double lam = o->lambda;
    double bn;
    KRI_TRY(kr_vec_norm2(ctx, b, &bn));
    if (!isfinite(bn)) return kri_fail(KR_ERR_INVALID_ARG, "%s: b contains inf or nan", fn);
    if (bn == 0.0) { /* the solution of (A + lambda I) x = 0 is x = 0 */
        KRI_TRY(kr_vec_zero(ctx, x));
        if (o->history) o->history[0] = 0.0;
        kri_info_set(info, 0, 0.0, 1);
        return KR_OK;
    }
    KRI_TRY(kr_vec_copy(ctx, r, b));
    if (o->warm_start) { /* r = b - (A + lambda I) x */
        KRI_TRY(kr_linop_forward(A, x, q));
        if (lam > 0) KRI_TRY(kr_vec_axpy(ctx, q, lam, 0.0, x));
        KRI_TRY(kr_vec_axpy(ctx, r, -1.0, 0.0, q));
    } else {
        KRI_TRY(kr_vec_zero(ctx, x));
    }
    double rr, dummy;
    KRI_TRY(kri_vec_sumsq(ctx, r, &rr));
    if (!isfinite(rr)) return kri_nonfinite(fn, A, "the initial residual", 0);
    double rel = sqrt(rr) / bn;
    if (o->history) o->history[0] = rel;
    KRI_TRY(kr_vec_copy(ctx, p, r));
    kr_progress *prog = o->show_progress ? kr_progress_begin(ctx, "cg", o->max_iter) : NULL;
    kr_status s = KR_OK;
    int k = 0;
    while (k < o->max_iter && !(rel <= o->tol)) {
        double pq;
        s = kr_linop_forward(A, p, q);
        if (s == KR_OK && lam > 0) s = kr_vec_axpy(ctx, q, lam, 0.0, p);
        if (s == KR_OK) s = kr_vec_dot(ctx, p, q, &pq, &dummy);
        if (s != KR_OK) break;
        if (!isfinite(pq)) {
            s = kri_nonfinite(fn, A, "<p, A p>", k + 1);
            break;
        }
        if (pq <= 0.0) { /* A is not positive definite along p: stop with what we have */
            kr_log(ctx, KR_LOG_INFO, "kr_cg: <p, A p> = %g <= 0 at iteration %d (operator '%s' "
                   "is not positive definite); stopping", pq, k + 1, kr_linop_name(A));
            break;
        }
        const double alpha = rr / pq;
        s = kr_vec_axpy(ctx, x, alpha, 0.0, p);
        if (s == KR_OK) s = kr_vec_axpy(ctx, r, -alpha, 0.0, q);
        double rr_new = 0.0;
        if (s == KR_OK) s = kri_vec_sumsq(ctx, r, &rr_new);
        if (s != KR_OK) break;
        if (kri_iter_close(fn, A, "the residual", o, prog, ++k, rr_new, bn, &rel, &s)) break;
        s = kr_vec_xpay(ctx, p, rr_new / rr, 0.0, r); /* p = r + beta p */
        if (s != KR_OK) break;
        rr = rr_new;
    }
    return kri_run_close(ctx, fn, prog, info, k, rel, o->tol, s);
}

kr_status kr_cg(const kr_ctx *ctx, const kr_linop *A, const kr_array *b, kr_array *x,
                const kr_solve_opts *opts, kr_solve_info *info)
{
    kr_solve_opts o;
    if (opts)
        o = *opts;
    else
        kr_solve_opts_default(&o);
    kri_info_set(info, 0, NAN, 0);
    KRI_TRY(kri_solve_check("kr_cg", ctx, A, b, "b", x, &o));
    int64_t din[KR_MAX_DIMS], dout[KR_MAX_DIMS];
    int nin = kr_linop_in_dims(A, din), nout = kr_linop_out_dims(A, dout);
    int square = 1;
    for (int i = 0; i < KR_MAX_DIMS; i++)
        if ((i < nin ? din[i] : 1) != (i < nout ? dout[i] : 1)) square = 0;
    if (!square) {
        char s1[160], s2[160];
        return kri_fail(KR_ERR_DIM,
                        "kr_cg: operator '%s' maps %s to %s; CG needs a square operator (use "
                        "kr_cgls, or the normal operator)",
                        kr_linop_name(A), kr_dims_string(nin, din, s1, sizeof s1),
                        kr_dims_string(nout, dout, s2, sizeof s2));
    }
    kr_array *w[3] = {NULL, NULL, NULL};
    kr_status s = kri_work(w, 3, ctx, A, 1);
    if (s == KR_OK) s = kri_cg_run(ctx, A, b, x, &o, info, w[0], w[1], w[2]);
    for (int i = 0; i < 3; i++) kr_array_destroy(w[i]);
    return s;
}

/* ---- CGLS ----------------------------------------------------------------------------------- */
/* r, q: codomain; s, p: domain. */
static kr_status kri_cgls_run(const kr_ctx *ctx, const kr_linop *A, const kr_array *y, kr_array *x,
                              const kr_solve_opts *o, kr_solve_info *info, kr_array *r,
                              kr_array *q, kr_array *sv, kr_array *p)
{
    static const char fn[] = "kr_cgls";
    const double lam = o->lambda;
    double yn;
    KRI_TRY(kr_vec_norm2(ctx, y, &yn));
    if (!isfinite(yn)) return kri_fail(KR_ERR_INVALID_ARG, "%s: y contains inf or nan", fn);
    double s0; /* ||A^H y||: the reference for the relative residual */
    KRI_TRY(kr_vec_copy(ctx, r, y));
    if (o->warm_start) {
        KRI_TRY(kr_linop_adjoint(A, y, sv));
        KRI_TRY(kr_vec_norm2(ctx, sv, &s0));
        KRI_TRY(kr_linop_forward(A, x, q));
        KRI_TRY(kr_vec_axpy(ctx, r, -1.0, 0.0, q)); /* r = y - A x */
        KRI_TRY(kr_linop_adjoint(A, r, sv));
        if (lam > 0) KRI_TRY(kr_vec_axpy(ctx, sv, -lam, 0.0, x)); /* s = A^H r - lambda x */
    } else {
        KRI_TRY(kr_vec_zero(ctx, x));
        KRI_TRY(kr_linop_adjoint(A, r, sv));
        KRI_TRY(kr_vec_norm2(ctx, sv, &s0));
    }
    if (!isfinite(s0)) return kri_nonfinite(fn, A, "A^H y", 0);
    if (s0 == 0.0) { /* A^H y = 0: the minimum-norm minimiser is x = 0 */
        KRI_TRY(kr_vec_zero(ctx, x));
        if (o->history) o->history[0] = 0.0;
        kri_info_set(info, 0, 0.0, 1);
        return KR_OK;
    }
    double gamma;
    KRI_TRY(kri_vec_sumsq(ctx, sv, &gamma));
    if (!isfinite(gamma)) return kri_nonfinite(fn, A, "the initial gradient", 0);
    double rel = sqrt(gamma) / s0;
    if (o->history) o->history[0] = rel;
    KRI_TRY(kr_vec_copy(ctx, p, sv));
    kr_progress *prog = o->show_progress ? kr_progress_begin(ctx, "cgls", o->max_iter) : NULL;
    kr_status s = KR_OK;
    int k = 0;
    while (k < o->max_iter && !(rel <= o->tol)) {
        double qq = 0.0, pp = 0.0;
        s = kr_linop_forward(A, p, q);
        if (s == KR_OK) s = kri_vec_sumsq(ctx, q, &qq);
        if (s == KR_OK && lam > 0) s = kri_vec_sumsq(ctx, p, &pp);
        if (s != KR_OK) break;
        const double delta = qq + lam * pp;
        if (!isfinite(delta)) {
            s = kri_nonfinite(fn, A, "||A p||^2", k + 1);
            break;
        }
        if (delta <= 0.0) { /* p in the null space of A (lambda = 0): nothing more to gain */
            kr_log(ctx, KR_LOG_INFO, "kr_cgls: ||A p|| = 0 at iteration %d; stopping", k + 1);
            break;
        }
        const double alpha = gamma / delta;
        s = kr_vec_axpy(ctx, x, alpha, 0.0, p);
        if (s == KR_OK) s = kr_vec_axpy(ctx, r, -alpha, 0.0, q);
        if (s == KR_OK) s = kr_linop_adjoint(A, r, sv);
        if (s == KR_OK && lam > 0) s = kr_vec_axpy(ctx, sv, -lam, 0.0, x);
        double gamma_new = 0.0;
        if (s == KR_OK) s = kri_vec_sumsq(ctx, sv, &gamma_new);
        if (s != KR_OK) break;
        if (kri_iter_close(fn, A, "the gradient", o, prog, ++k, gamma_new, s0, &rel, &s)) break;
        s = kr_vec_xpay(ctx, p, gamma_new / gamma, 0.0, sv); /* p = s + beta p */
        if (s != KR_OK) break;
        gamma = gamma_new;
    }
    return kri_run_close(ctx, fn, prog, info, k, rel, o->tol, s);
}

kr_status kr_cgls(const kr_ctx *ctx, const kr_linop *A, const kr_array *y, kr_array *x,
                  const kr_solve_opts *opts, kr_solve_info *info)
{
    kr_solve_opts o;
    if (opts)
        o = *opts;
    else
        kr_solve_opts_default(&o);
    kri_info_set(info, 0, NAN, 0);
    KRI_TRY(kri_solve_check("kr_cgls", ctx, A, y, "y", x, &o));
    kr_array *wo[2] = {NULL, NULL}, *wi[2] = {NULL, NULL};
    kr_status s = kri_work(wo, 2, ctx, A, 0);
    if (s == KR_OK) s = kri_work(wi, 2, ctx, A, 1);
    if (s == KR_OK) s = kri_cgls_run(ctx, A, y, x, &o, info, wo[0], wo[1], wi[0], wi[1]);
    for (int i = 0; i < 2; i++) {
        kr_array_destroy(wo[i]);
        kr_array_destroy(wi[i]);
    }
    return s;
}
