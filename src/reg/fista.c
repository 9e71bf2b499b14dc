/* FISTA (Beck and Teboulle 2009), its monotone variant, the power iteration, and the checks
 * shared by the reg algorithms. Written against kr_linop, kr_prox and kr_vec_* only: the same
 * code runs on host and device arrays. FISTA keeps A x, A u and A z up to date by linearity,
 * so an iteration costs one forward and one adjoint of A; in normal form it keeps A^H A x, ...
 * instead, one application of A's normal per iteration. */
#include "solve_common.h"
#include "solve/solve_internal.h"

#include <math.h>
#include <string.h>

void kr_reg_opts_default(kr_reg_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->max_iter = 100;
    o->tol = 1e-6;
}

kr_status kri_reg_check(const char *fn, const kr_ctx *ctx, const kr_linop *A, const kr_array *y,
                        const kr_array *x, const kr_reg_term *terms, int nterms,
                        const kr_reg_opts *o)
{
    if (!ctx) return kri_fail(KR_ERR_INVALID_ARG, "%s: argument 'ctx' is NULL", fn);
    if (!A) return kri_fail(KR_ERR_INVALID_ARG, "%s: argument 'A' is NULL", fn);
    KRI_TRY(kri_linop_check_array(A, y, 0, fn, "y"));
    KRI_TRY(kri_linop_check_array(A, x, 1, fn, "x"));
    if (kri_arrays_overlap(y, x))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: x and y overlap (use separate arrays)", fn);
    kr_status s = kri_check_loc(ctx, kr_linop_loc(A), "the operator");
    if (s != KR_OK) return kri_fail_prefix(s, "%s", fn);
    if (nterms < 0 || (nterms > 0 && !terms))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: %d terms given with terms %s", fn, nterms,
                        terms ? "set" : "NULL");
    for (int j = 0; j < nterms; j++) {
        if (!terms[j].g)
            return kri_fail(KR_ERR_INVALID_ARG, "%s: term %d has no prox", fn, j);
        if (terms[j].K) {
            KRI_TRY(kri_operands_agree(fn, A, terms[j].K));
            int64_t da[KR_MAX_DIMS], dk[KR_MAX_DIMS];
            int na = kr_linop_in_dims(A, da), nk = kr_linop_in_dims(terms[j].K, dk);
            if (!kri_dims_equal(na, da, nk, dk))
                return kri_fail(KR_ERR_DIM, "%s: the domain of term %d's operator '%s' is not "
                                "the domain of '%s'", fn, j, kr_linop_name(terms[j].K),
                                kr_linop_name(A));
        }
    }
    if (o->max_iter <= 0)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: max_iter is %d, must be >= 1", fn, o->max_iter);
    if (!(o->tol >= 0.0) || isinf(o->tol))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: tol is %g, must be finite and >= 0", fn, o->tol);
    if (!(o->step >= 0.0) || isinf(o->step) || !(o->rho >= 0.0) || isinf(o->rho) ||
        !(o->sigma >= 0.0) || isinf(o->sigma) || !(o->tau >= 0.0) || isinf(o->tau))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: step, rho, sigma and tau must be finite and "
                        ">= 0 (0 = automatic)", fn);
    if (o->power_iter < 0 || o->cg_iter < 0)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: power_iter and cg_iter must be >= 0", fn);
    return KR_OK;
}

kr_status kri_reg_work(kr_array **v, const kr_ctx *ctx, const kr_linop *A, int dom)
{
    int64_t dims[KR_MAX_DIMS];
    int nd = dom ? kr_linop_in_dims(A, dims) : kr_linop_out_dims(A, dims);
    kr_status s = kr_array_create(v, kr_linop_dtype(A), nd, dims, kr_linop_loc(A), ctx);
    return s == KR_OK ? s : kri_fail_prefix(s, "solver work vectors");
}

kr_status kri_half_sq(const kr_ctx *ctx, const kr_array *r, double *out)
{
    double n;
    KRI_TRY(kr_vec_norm2(ctx, r, &n));
    *out = 0.5 * n * n;
    return KR_OK;
}

kr_status kri_reg_nonfinite(const char *fn, int k)
{
    return kri_fail(KR_ERR_NOT_CONVERGED, "%s: the iterate became non-finite at iteration %d "
                    "(the step is too long or the problem badly scaled)", fn, k);
}

int kri_reg_record(const kr_reg_opts *o, kr_reg_info *info, kr_progress *prog, int k, double F,
                   double change)
{
    if (o->objective) o->objective[k + 1] = F;
    if (o->residual) o->residual[k + 1] = change;
    info->rel_change = change;
    kr_progress_add(prog, 1);
    if (change > o->tol) return 0;
    info->converged = 1;
    return 1;
}

kr_status kri_rel_change(const kr_ctx *ctx, const kr_array *a, const kr_array *b, kr_array *tmp,
                         double *out)
{
    double na, nd;
    KRI_TRY(kr_vec_copy(ctx, tmp, a));
    KRI_TRY(kr_vec_axpy(ctx, tmp, -1.0, 0.0, b));
    KRI_TRY(kr_vec_norm2(ctx, tmp, &nd));
    KRI_TRY(kr_vec_norm2(ctx, a, &na));
    *out = na > 0 ? nd / na : (nd > 0 ? INFINITY : 0.0);
    return KR_OK;
}

kr_status kr_linop_norm2_estimate(const kr_ctx *ctx, const kr_linop *A, int iters,
                                  uint64_t seed, double *lmax)
{
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(A);
    KRI_ARG_NOT_NULL(lmax);
    if (iters < 1)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_linop_norm2_estimate: iters is %d, must be >= 1",
                        iters);
    kr_array *v = NULL, *w = NULL;
    kr_status s = kri_reg_work(&v, ctx, A, 1);
    if (s == KR_OK) s = kri_reg_work(&w, ctx, A, 1);
    if (s == KR_OK) s = kr_vec_random(ctx, v, seed ? seed : 0x5eed);
    double nv = 0, lam = 0;
    if (s == KR_OK) s = kr_vec_norm2(ctx, v, &nv);
    if (s == KR_OK && nv > 0) s = kr_vec_scale(ctx, v, 1.0 / nv, 0.0);
    for (int i = 0; i < iters && s == KR_OK; i++) {
        s = kr_linop_normal(A, v, w);
        if (s == KR_OK) s = kr_vec_norm2(ctx, w, &lam);
        if (s != KR_OK || !(lam > 0) || !isfinite(lam)) break;
        s = kr_vec_scale(ctx, w, 1.0 / lam, 0.0);
        kr_array *t = v;
        v = w;
        w = t;
    }
    kr_array_destroy(v);
    kr_array_destroy(w);
    if (s == KR_OK && !isfinite(lam))
        s = kri_fail(KR_ERR_NOT_CONVERGED, "kr_linop_norm2_estimate: operator '%s' produced a "
                     "non-finite value", kr_linop_name(A));
    if (s == KR_OK) *lmax = lam;
    return s;
}

typedef struct kri_fista_ws {
    kr_array *xp, *z, *u, *grad, *Ax, *Axp, *Au, *Az, *r, *b;
    int nf;     /* normal form: A. holds A^H A . (domain arrays), b = A^H y */
    double yy;  /* normal form: ||y||^2 */
} kri_fista_ws;

/* out = A in, or (normal form) A^H A in. */
static kr_status kri_fista_op(const kr_linop *A, const kri_fista_ws *w, const kr_array *in,
                              kr_array *out)
{
    return w->nf ? kr_linop_normal(A, in, out) : kr_linop_forward(A, in, out);
}

/* F = 1/2 ||A x - y||^2 + g(x): from r = A x - y, or (normal form) from Ax = A^H A x as
 * 1/2 <x, A^H A x> - Re <x, A^H y> + 1/2 ||y||^2. */
static kr_status kri_fista_obj(const kr_ctx *ctx, kr_prox *g, const kri_fista_ws *w,
                               const kr_array *x, const kr_array *Ax, double *F)
{
    double d, v = 0.0;
    if (w->nf) {
        double xn, xb;
        KRI_TRY(kr_vec_dot(ctx, x, Ax, &xn, NULL));
        KRI_TRY(kr_vec_dot(ctx, x, w->b, &xb, NULL));
        d = fmax(0.0, 0.5 * xn - xb + 0.5 * w->yy);
    } else {
        KRI_TRY(kri_half_sq(ctx, w->r, &d));
    }
    if (g) KRI_TRY(kr_prox_value(g, x, &v));
    *F = d + v;
    return KR_OK;
}

/* z = x + c1 (u - x) + c2 (x - xp), computed as z = u - x; z *= c1; z += c2 x - c2 xp; z += x. */
static kr_status kri_extrap(const kr_ctx *c, kr_array *z, const kr_array *x, const kr_array *u,
                            const kr_array *xp, double c1, double c2)
{
    KRI_TRY(kr_vec_copy(c, z, u));
    KRI_TRY(kr_vec_axpy(c, z, -1.0, 0.0, x));
    KRI_TRY(kr_vec_scale(c, z, c1, 0.0));
    if (c2 != 0.0) {
        KRI_TRY(kr_vec_axpy(c, z, c2, 0.0, x));
        KRI_TRY(kr_vec_axpy(c, z, -c2, 0.0, xp));
    }
    return kr_vec_axpy(c, z, 1.0, 0.0, x);
}

static kr_status kri_fista_run(const kr_ctx *c, const kr_linop *A, const kr_array *y, kr_prox *g,
                               kr_array *x, const kr_reg_opts *o, kr_reg_info *info,
                               kri_fista_ws *w)
{
    const char *fn = "kr_fista";
    double step = o->step, L = 0.0;
    if (step == 0.0) {
        KRI_TRY(kr_linop_norm2_estimate(c, A, o->power_iter ? o->power_iter : 30, o->seed, &L));
        if (!(L > 0))
            return kri_fail(KR_ERR_INVALID_ARG, "%s: operator '%s' is zero (no step from the "
                            "power iteration)", fn, kr_linop_name(A));
        step = 1.0 / (1.01 * L);
    }
    info->lipschitz = 1.0 / step;
    if (!o->warm_start) KRI_TRY(kr_vec_zero(c, x));
    if (w->nf) {
        double yn;
        KRI_TRY(kr_linop_adjoint(A, y, w->b));
        KRI_TRY(kr_vec_norm2(c, y, &yn));
        w->yy = yn * yn;
    }
    KRI_TRY(kri_fista_op(A, w, x, w->Ax));
    if (!w->nf) {
        KRI_TRY(kr_vec_copy(c, w->r, w->Ax));
        KRI_TRY(kr_vec_axpy(c, w->r, -1.0, 0.0, y));
    }
    double Fx;
    KRI_TRY(kri_fista_obj(c, g, w, x, w->Ax, &Fx));
    if (o->objective) o->objective[0] = Fx;
    if (o->residual) o->residual[0] = 1.0;
    KRI_TRY(kr_vec_copy(c, w->z, x));
    KRI_TRY(kr_vec_copy(c, w->Az, w->Ax));
    double t = 1.0;
    const int want = o->objective != NULL || o->monotone;
    kr_progress *prog = o->show_progress ? kr_progress_begin(c, "FISTA", o->max_iter) : NULL;
    kr_status s = KR_OK;
    int k;
    for (k = 0; k < o->max_iter; k++) {
        /* u = prox_{step g}(z - step A^H (A z - y)) */
        if (w->nf) {
            if ((s = kr_vec_copy(c, w->grad, w->Az)) != KR_OK) break;
            if ((s = kr_vec_axpy(c, w->grad, -1.0, 0.0, w->b)) != KR_OK) break;
        } else {
            if ((s = kr_vec_copy(c, w->r, w->Az)) != KR_OK) break;
            if ((s = kr_vec_axpy(c, w->r, -1.0, 0.0, y)) != KR_OK) break;
            if ((s = kr_linop_adjoint(A, w->r, w->grad)) != KR_OK) break;
        }
        if ((s = kr_vec_copy(c, w->u, w->z)) != KR_OK) break;
        if ((s = kr_vec_axpy(c, w->u, -step, 0.0, w->grad)) != KR_OK) break;
        if (g && (s = kr_prox_apply(g, step, w->u, w->u)) != KR_OK) break;
        if ((s = kri_fista_op(A, w, w->u, w->Au)) != KR_OK) break;
        if (!w->nf) {
            if ((s = kr_vec_copy(c, w->r, w->Au)) != KR_OK) break;
            if ((s = kr_vec_axpy(c, w->r, -1.0, 0.0, y)) != KR_OK) break;
        }
        /* the objective only when asked for (a history, or the monotone test): it costs a
         * prox value (a wavelet transform, for l1-wavelet) per iteration */
        double Fu = 0.0;
        if (want && (s = kri_fista_obj(c, g, w, w->u, w->Au, &Fu)) != KR_OK) break;
        double change;
        if ((s = kri_rel_change(c, w->u, x, w->grad, &change)) != KR_OK) break;
        if (isnan(Fu) || isnan(change)) {
            s = kri_reg_nonfinite(fn, k + 1);
            break;
        }
        const int accept = !o->monotone || Fu <= Fx;
        if ((s = kr_vec_copy(c, w->xp, x)) != KR_OK) break;
        if ((s = kr_vec_copy(c, w->Axp, w->Ax)) != KR_OK) break;
        if (accept) {
            if ((s = kr_vec_copy(c, x, w->u)) != KR_OK) break;
            if ((s = kr_vec_copy(c, w->Ax, w->Au)) != KR_OK) break;
            Fx = Fu;
        }
        const double tn = 0.5 * (1.0 + sqrt(1.0 + 4.0 * t * t));
        const double c1 = accept ? 0.0 : t / tn, c2 = (t - 1.0) / tn;
        /* accepted: z = x + c2 (x - xp) (u = x); rejected: x = xp, z = x + t/tn (u - x) */
        if ((s = kri_extrap(c, w->z, x, w->u, w->xp, accept ? 0.0 : c1, accept ? c2 : 0.0)) !=
            KR_OK)
            break;
        if ((s = kri_extrap(c, w->Az, w->Ax, w->Au, w->Axp, accept ? 0.0 : c1,
                            accept ? c2 : 0.0)) != KR_OK)
            break;
        t = tn;
        if (kri_reg_record(o, info, prog, k, Fx, change)) {
            k++;
            break;
        }
    }
    kr_progress_end(prog);
    info->iterations = k;
    if (s == KR_OK && !want && k > 0) s = kri_fista_obj(c, g, w, x, w->Ax, &Fx);
    info->objective = Fx;
    return s;
}

kr_status kr_fista(const kr_ctx *ctx, const kr_linop *A, const kr_array *y, kr_prox *g,
                   kr_array *x, const kr_reg_opts *opts, kr_reg_info *info)
{
    kr_reg_opts o;
    if (opts)
        o = *opts;
    else
        kr_reg_opts_default(&o);
    KRI_TRY(kri_reg_check("kr_fista", ctx, A, y, x, NULL, 0, &o));
    kr_reg_info inf;
    memset(&inf, 0, sizeof inf);
    kri_fista_ws w;
    memset(&w, 0, sizeof w);
    w.nf = o.normal_form != 0;
    /* the kept products A x, ... live in the domain in normal form (and r is not needed) */
    kr_array **dom[] = {&w.xp, &w.z, &w.u, &w.grad, &w.b};
    kr_array **cod[] = {&w.Ax, &w.Axp, &w.Au, &w.Az, &w.r};
    kr_status s = KR_OK;
    for (int i = 0; i < (w.nf ? 5 : 4) && s == KR_OK; i++) s = kri_reg_work(dom[i], ctx, A, 1);
    for (int i = 0; i < (w.nf ? 4 : 5) && s == KR_OK; i++)
        s = kri_reg_work(cod[i], ctx, A, w.nf);
    if (s == KR_OK) s = kri_fista_run(ctx, A, y, g, x, &o, &inf, &w);
    for (int i = 0; i < 5; i++) kr_array_destroy(*dom[i]);
    for (int i = 0; i < 5; i++) kr_array_destroy(*cod[i]);
    if (info) *info = inf;
    return s;
}
