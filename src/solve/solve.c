/* Krylov solvers (CG, CGLS) written against kr_linop and kr_vec_* only, so the same code runs
 * on host arrays (OpenMP) and device arrays (CUDA kernels); only the scalars live on the host.
 * Both are one skeleton (kri_krylov_run): the methods differ only in their start, in the
 * curvature along the search direction, and in how the gradient follows the residual. */
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

/* The diagonal preconditioner: real of the operator's precision, one value per domain element,
 * at the operator's location, finite and >= 0 (a device array is read back once for that). */
static kr_status kri_precond_check(const char *fn, const kr_linop *A, const kr_array *P)
{
    const kr_dtype want = kri_real_dtype(kr_linop_dtype(A));
    KRI_TRY(kri_check_operand(fn, "the preconditioner", P, want, kr_linop_loc(A)));
    int64_t dims[KR_MAX_DIMS], n = 1;
    const int nd = kr_linop_in_dims(A, dims);
    for (int i = 0; i < nd; i++) n *= dims[i];
    if (kr_array_numel(P) != n)
        return kri_fail(KR_ERR_DIM, "%s: the preconditioner has %lld values, the domain of '%s' "
                        "%lld", fn, (long long)kr_array_numel(P), kr_linop_name(A), (long long)n);
    kr_array *h = NULL;
    if (P->loc != KR_HOST) KRI_TRY(kr_array_clone(&h, P, KR_HOST, kri_linop_ctx(A)));
    const kr_array *v = h ? h : P;
    kr_status s = KR_OK;
    for (int64_t i = 0; i < n && s == KR_OK; i++) {
        const double d = want == KR_F32 ? (double)((const float *)v->data)[i]
                                        : ((const double *)v->data)[i];
        if (!(d >= 0) || !isfinite(d))
            s = kri_fail(KR_ERR_INVALID_ARG, "%s: preconditioner value %lld is %g; it must be "
                         "finite and >= 0", fn, (long long)i, d);
    }
    kr_array_destroy(h);
    return s;
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
    KRI_TRY(kri_opts_check(fn, o));
    return o->precond ? kri_precond_check(fn, A, o->precond) : KR_OK;
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

/* A working vector shaped like the operator's domain (domain != 0) or codomain. */
static kr_status kri_work(kr_array **v, const kr_ctx *ctx, const kr_linop *A, int domain)
{
    int64_t dims[KR_MAX_DIMS];
    int nd = domain ? kr_linop_in_dims(A, dims) : kr_linop_out_dims(A, dims);
    kr_status s = kr_array_create(v, kr_linop_dtype(A), nd, dims, kr_linop_loc(A), ctx);
    return s == KR_OK ? s : kri_fail_prefix(s, "solver work vectors");
}

/* The bookkeeping that closes iteration k of CG and CGLS: g_new, the new squared norm of the
 * residual (CG) or of the gradient (CGLS), against the reference norm ref. Returns 1 when the
 * loop must stop: converged (*rel <= tol), or a non-finite norm (*s says so). */
static int kri_iter_close(const kr_ctx *ctx, const char *fn, const kr_linop *A,
                          const char *what, const kr_solve_opts *o, kr_progress *prog, int k,
                          double g_new, double ref, double *rel, kr_status *s)
{
    if (!isfinite(g_new)) {
        *s = kri_nonfinite(fn, A, what, k);
        return 1;
    }
    *rel = sqrt(g_new) / ref;
    if (o->history) o->history[k] = *rel;
    /* one line per iteration as it happens (kr_log flushes): `kray ... -v` */
    kr_log(ctx, KR_LOG_INFO, "%s: iteration %d: relative residual %.6e", fn, k, *rel);
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
/* ---- the skeleton ---------------------------------------------------------------------------
 * Vectors: x the iterate; r the residual and q = (operator) p, in the space of the right-hand
 * side; p the search direction; g the vector whose squared norm gamma decides convergence
 * against the reference norm ref (CG: g = r, ref = ||b||; CGLS: g = s = A^H r - lambda x,
 * ref = ||A^H y||). One iteration:
 *   delta = curvature(p) (q is formed there); alpha = gamma / delta;
 *   x += alpha p; r -= alpha q; follow(g); gamma' = ||g||^2; p = g + (gamma' / gamma) p.
 * With a diagonal preconditioner P (opts.precond): z = P g, gamma = <g, z> and p = z + beta p
 * (preconditioned CG, or CGLS on the normal equations); ||g|| still decides convergence. */
typedef struct kri_krylov kri_krylov;
typedef struct kri_krylov_method {
    const char *fn, *task;        /* "kr_cg", progress label "cg" */
    const char *rhs_name;         /* "b" or "y" */
    const char *g_name, *g0_name; /* "the residual", "the initial residual" */
    const char *delta_name;       /* "<p, A p>" */
    int r_domain;                 /* r and q live in the domain (CG) or the codomain (CGLS) */
    int has_s;                    /* g is a separate vector s (CGLS) or r itself (CG) */
    /* Optional check of the operator (CG: square); NULL for none. */
    kr_status (*check)(const kri_krylov *m);
    /* r (and g) from b or y and x (zeroed unless warm_start); *ref the reference norm. When
     * *ref is 0 the solution is x = 0 and nothing more is done. */
    kr_status (*start)(kri_krylov *m, double *ref);
    /* q from p, and the curvature delta along p. */
    kr_status (*curvature)(kri_krylov *m, double *delta);
    /* g after r changed (NULL when g is r). */
    kr_status (*follow)(kri_krylov *m);
    /* The log line when delta <= 0 ends the run at iteration it. */
    void (*stop)(const kri_krylov *m, double delta, int it);
} kri_krylov_method;

struct kri_krylov {
    const kri_krylov_method *how;
    const char *fn;
    const kr_ctx *ctx;
    const kr_linop *A;
    const kr_array *rhs;
    kr_array *x;
    const kr_solve_opts *o;
    kr_array *r, *q, *s, *p, *g;
    kr_array *z; /* z = P g with a preconditioner P, else NULL (the direction follows g) */
};

/* gamma for the direction update: <g, P g> (z = P g formed) with a preconditioner, else
 * ||g||^2 (gsq, already known). */
static kr_status kri_krylov_gamma(kri_krylov *m, double gsq, double *gamma)
{
    if (!m->z) {
        *gamma = gsq;
        return KR_OK;
    }
    KRI_TRY(kri_vec_dmul(m->ctx, m->z, m->o->precond, m->g));
    return kr_vec_dot(m->ctx, m->g, m->z, gamma, NULL);
}

static kr_status kri_krylov_iterate(kri_krylov *m, kr_solve_info *info)
{
    const kri_krylov_method *how = m->how;
    const kr_ctx *ctx = m->ctx;
    const kr_solve_opts *o = m->o;
    double ref;
    KRI_TRY(how->start(m, &ref));
    if (ref == 0.0) { /* the solution is x = 0 */
        KRI_TRY(kr_vec_zero(ctx, m->x));
        if (o->history) o->history[0] = 0.0;
        kri_info_set(info, 0, 0.0, 1);
        return KR_OK;
    }
    double gsq, gamma;
    KRI_TRY(kri_vec_sumsq(ctx, m->g, &gsq));
    if (!isfinite(gsq)) return kri_nonfinite(m->fn, m->A, how->g0_name, 0);
    double rel = sqrt(gsq) / ref;
    if (o->history) o->history[0] = rel;
    KRI_TRY(kri_krylov_gamma(m, gsq, &gamma));
    KRI_TRY(kr_vec_copy(ctx, m->p, m->z ? m->z : m->g));
    kr_log(ctx, KR_LOG_INFO, "%s: iteration 0: relative residual %.6e", m->fn, rel);
    kr_progress *prog = o->show_progress ? kr_progress_begin(ctx, how->task, o->max_iter) : NULL;
    kr_status s = KR_OK;
    int k = 0;
    while (k < o->max_iter && !(rel <= o->tol)) {
        double delta = 0.0;
        s = how->curvature(m, &delta);
        if (s != KR_OK) break;
        if (!isfinite(delta)) {
            s = kri_nonfinite(m->fn, m->A, how->delta_name, k + 1);
            break;
        }
        if (delta <= 0.0) {
            how->stop(m, delta, k + 1);
            break;
        }
        const double alpha = gamma / delta;
        s = kr_vec_axpy(ctx, m->x, alpha, 0.0, m->p);
        if (s == KR_OK) s = kr_vec_axpy(ctx, m->r, -alpha, 0.0, m->q);
        if (s == KR_OK && how->follow) s = how->follow(m);
        double gsq_new = 0.0, gamma_new = 0.0;
        if (s == KR_OK) s = kri_vec_sumsq(ctx, m->g, &gsq_new);
        if (s != KR_OK) break;
        if (kri_iter_close(ctx, m->fn, m->A, how->g_name, o, prog, ++k, gsq_new, ref, &rel,
                           &s))
            break;
        s = kri_krylov_gamma(m, gsq_new, &gamma_new);
        if (s == KR_OK && !isfinite(gamma_new)) s = kri_nonfinite(m->fn, m->A, "<g, P g>", k);
        if (s != KR_OK) break;
        /* p = g + beta p (preconditioned: p = P g + beta p) */
        s = kr_vec_xpay(ctx, m->p, gamma_new / gamma, 0.0, m->z ? m->z : m->g);
        if (s != KR_OK) break;
        gamma = gamma_new;
    }
    return kri_run_close(ctx, m->fn, prog, info, k, rel, o->tol, s);
}

/* Options, checks, working vectors, the iteration, clean-up. */
static kr_status kri_krylov_run(const kri_krylov_method *how, const kr_ctx *ctx,
                                const kr_linop *A, const kr_array *rhs, kr_array *x,
                                const kr_solve_opts *opts, kr_solve_info *info)
{
    kri_krylov work, *m = &work;
    memset(m, 0, sizeof *m);
    m->how = how;
    m->fn = how->fn;
    kr_solve_opts o;
    if (opts)
        o = *opts;
    else
        kr_solve_opts_default(&o);
    kri_info_set(info, 0, NAN, 0);
    KRI_TRY(kri_solve_check(m->fn, ctx, A, rhs, how->rhs_name, x, &o));
    m->ctx = ctx;
    m->A = A;
    m->rhs = rhs;
    m->x = x;
    m->o = &o;
    if (how->check) KRI_TRY(how->check(m));
    kr_status s = kri_work(&m->r, ctx, A, how->r_domain);
    if (s == KR_OK) s = kri_work(&m->q, ctx, A, how->r_domain);
    if (s == KR_OK && how->has_s) s = kri_work(&m->s, ctx, A, 1);
    if (s == KR_OK) s = kri_work(&m->p, ctx, A, 1);
    if (s == KR_OK && o.precond) s = kri_work(&m->z, ctx, A, 1);
    m->g = how->has_s ? m->s : m->r;
    if (s == KR_OK) s = kri_krylov_iterate(m, info);
    kr_array_destroy(m->z);
    kr_array_destroy(m->r);
    kr_array_destroy(m->q);
    kr_array_destroy(m->s);
    kr_array_destroy(m->p);
    return s;
}

/* ---- CG: (A + lambda I) x = b ------------------------------------------------------------- */
static kr_status kri_cg_check(const kri_krylov *m)
{
    int64_t din[KR_MAX_DIMS], dout[KR_MAX_DIMS];
    int nin = kr_linop_in_dims(m->A, din), nout = kr_linop_out_dims(m->A, dout);
    for (int i = 0; i < KR_MAX_DIMS; i++)
        if ((i < nin ? din[i] : 1) != (i < nout ? dout[i] : 1)) {
            char s1[160], s2[160];
            return kri_fail(KR_ERR_DIM,
                            "kr_cg: operator '%s' maps %s to %s; CG needs a square operator (use "
                            "kr_cgls, or the normal operator)",
                            kr_linop_name(m->A), kr_dims_string(nin, din, s1, sizeof s1),
                            kr_dims_string(nout, dout, s2, sizeof s2));
        }
    return KR_OK;
}

static kr_status kri_cg_start(kri_krylov *m, double *ref)
{
    const kr_ctx *ctx = m->ctx;
    KRI_TRY(kr_vec_norm2(ctx, m->rhs, ref));
    if (!isfinite(*ref)) return kri_fail(KR_ERR_INVALID_ARG, "%s: b contains inf or nan", m->fn);
    if (*ref == 0.0) return KR_OK; /* the solution of (A + lambda I) x = 0 is x = 0 */
    KRI_TRY(kr_vec_copy(ctx, m->r, m->rhs));
    if (!m->o->warm_start) return kr_vec_zero(ctx, m->x);
    /* r = b - (A + lambda I) x */
    KRI_TRY(kr_linop_forward(m->A, m->x, m->q));
    if (m->o->lambda > 0) KRI_TRY(kr_vec_axpy(ctx, m->q, m->o->lambda, 0.0, m->x));
    return kr_vec_axpy(ctx, m->r, -1.0, 0.0, m->q);
}

/* q = (A + lambda I) p, delta = <p, q>. */
static kr_status kri_cg_curvature(kri_krylov *m, double *delta)
{
    double dummy;
    kr_status s = kr_linop_forward(m->A, m->p, m->q);
    if (s == KR_OK && m->o->lambda > 0) s = kr_vec_axpy(m->ctx, m->q, m->o->lambda, 0.0, m->p);
    if (s == KR_OK) s = kr_vec_dot(m->ctx, m->p, m->q, delta, &dummy);
    return s;
}

/* A is not positive definite along p: stop with what we have. */
static void kri_cg_stop(const kri_krylov *m, double delta, int it)
{
    kr_log(m->ctx, KR_LOG_INFO, "kr_cg: <p, A p> = %g <= 0 at iteration %d (operator '%s' is not "
           "positive definite); stopping", delta, it, kr_linop_name(m->A));
}

/* ---- CGLS: min ||A x - y||^2 + lambda ||x||^2 ---------------------------------------------- */
/* s = A^H r - lambda x. */
static kr_status kri_cgls_follow(kri_krylov *m)
{
    KRI_TRY(kr_linop_adjoint(m->A, m->r, m->s));
    if (m->o->lambda > 0) KRI_TRY(kr_vec_axpy(m->ctx, m->s, -m->o->lambda, 0.0, m->x));
    return KR_OK;
}

static kr_status kri_cgls_start(kri_krylov *m, double *ref)
{
    const kr_ctx *ctx = m->ctx;
    double yn; /* ||A^H y|| is the reference for the relative residual */
    KRI_TRY(kr_vec_norm2(ctx, m->rhs, &yn));
    if (!isfinite(yn)) return kri_fail(KR_ERR_INVALID_ARG, "%s: y contains inf or nan", m->fn);
    KRI_TRY(kr_vec_copy(ctx, m->r, m->rhs));
    if (m->o->warm_start) {
        KRI_TRY(kr_linop_adjoint(m->A, m->rhs, m->s));
        KRI_TRY(kr_vec_norm2(ctx, m->s, ref));
        KRI_TRY(kr_linop_forward(m->A, m->x, m->q));
        KRI_TRY(kr_vec_axpy(ctx, m->r, -1.0, 0.0, m->q)); /* r = y - A x */
        KRI_TRY(kri_cgls_follow(m));
    } else {
        KRI_TRY(kr_vec_zero(ctx, m->x));
        KRI_TRY(kr_linop_adjoint(m->A, m->r, m->s));
        KRI_TRY(kr_vec_norm2(ctx, m->s, ref));
    }
    if (!isfinite(*ref)) return kri_nonfinite(m->fn, m->A, "A^H y", 0);
    return KR_OK; /* *ref == 0: A^H y = 0, the minimum-norm minimiser is x = 0 */
}

/* q = A p, delta = ||q||^2 + lambda ||p||^2. */
static kr_status kri_cgls_curvature(kri_krylov *m, double *delta)
{
    double qq = 0.0, pp = 0.0;
    kr_status s = kr_linop_forward(m->A, m->p, m->q);
    if (s == KR_OK) s = kri_vec_sumsq(m->ctx, m->q, &qq);
    if (s == KR_OK && m->o->lambda > 0) s = kri_vec_sumsq(m->ctx, m->p, &pp);
    *delta = qq + m->o->lambda * pp;
    return s;
}

/* p in the null space of A (lambda = 0): nothing more to gain. */
static void kri_cgls_stop(const kri_krylov *m, double delta, int it)
{
    (void)delta;
    kr_log(m->ctx, KR_LOG_INFO, "kr_cgls: ||A p|| = 0 at iteration %d; stopping", it);
}

/* ---- the two methods ------------------------------------------------------------------------ */
static const kri_krylov_method kri_cg = {
    "kr_cg", "cg", "b", "the residual", "the initial residual", "<p, A p>", 1, 0,
    kri_cg_check, kri_cg_start, kri_cg_curvature, NULL, kri_cg_stop};
static const kri_krylov_method kri_cgls = {
    "kr_cgls", "cgls", "y", "the gradient", "the initial gradient", "||A p||^2", 0, 1,
    NULL, kri_cgls_start, kri_cgls_curvature, kri_cgls_follow, kri_cgls_stop};

kr_status kr_cg(const kr_ctx *ctx, const kr_linop *A, const kr_array *b, kr_array *x,
                const kr_solve_opts *opts, kr_solve_info *info)
{
    return kri_krylov_run(&kri_cg, ctx, A, b, x, opts, info);
}

kr_status kr_cgls(const kr_ctx *ctx, const kr_linop *A, const kr_array *y, kr_array *x,
                  const kr_solve_opts *opts, kr_solve_info *info)
{
    return kri_krylov_run(&kri_cgls, ctx, A, y, x, opts, info);
}
