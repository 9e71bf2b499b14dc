/* Chambolle-Pock primal-dual hybrid gradient (kray/reg.h) with theta = 1: dual variables for the
 * data term (prox of the conjugate of 1/2 ||. - y||^2 in closed form) and for every term with an
 * operator (Moreau: prox_{s g*}(q) = q - s prox_{g/s}(q/s)); a term without operator is the
 * primal prox. A x and K_j x are kept up to date by linearity (one forward and one adjoint of
 * each operator per iteration). */
#include "solve_common.h"
#include "solve/solve_internal.h"

#include <math.h>
#include <string.h>

typedef struct kri_pd_dual {
    const kr_reg_term *t;
    double sigma;
    kr_array *q, *Kx, *Kxo, *w;
} kri_pd_dual;

typedef struct kri_pd_ws {
    kr_array *xo, *grad, *tmp, *q0, *Ax, *Axo, *w0;
    double sigma0;
    kri_pd_dual *d;
    int nd;
    kr_prox *G;
} kri_pd_ws;

/* Squared norms of A (L[0]) and of every K_j (L[j + 1]) by power iterations. */
static kr_status kri_pd_norms(const kr_ctx *c, const kr_linop *A, const kri_pd_ws *w,
                              const kr_reg_opts *o, double *L)
{
    const int it = o->power_iter ? o->power_iter : 30;
    KRI_TRY(kr_linop_norm2_estimate(c, A, it, o->seed, &L[0]));
    for (int j = 0; j < w->nd; j++)
        KRI_TRY(kr_linop_norm2_estimate(c, w->d[j].t->K, it, o->seed + 1 + j, &L[j + 1]));
    return KR_OK;
}

/* F(x) from the current A x (w->Ax) and K_j x. */
static kr_status kri_pd_obj(const kr_ctx *c, const kr_array *y, const kr_array *x, kri_pd_ws *w,
                            double *F)
{
    KRI_TRY(kr_vec_copy(c, w->w0, w->Ax));
    KRI_TRY(kr_vec_axpy(c, w->w0, -1.0, 0.0, y));
    KRI_TRY(kri_half_sq(c, w->w0, F));
    for (int j = 0; j < w->nd; j++) {
        double v;
        KRI_TRY(kr_prox_value(w->d[j].t->g, w->d[j].Kx, &v));
        *F += v;
    }
    if (w->G) {
        double v;
        KRI_TRY(kr_prox_value(w->G, x, &v));
        *F += v;
    }
    return KR_OK;
}

/* bar = 2 cur - old into out. */
static kr_status kri_bar(const kr_ctx *c, kr_array *out, const kr_array *cur, const kr_array *old)
{
    KRI_TRY(kr_vec_copy(c, out, old));
    KRI_TRY(kr_vec_xpay(c, out, -1.0, 0.0, cur));
    return kr_vec_axpy(c, out, 1.0, 0.0, cur);
}

static kr_status kri_pdhg_run(const kr_ctx *c, const kr_linop *A, const kr_array *y,
                              kr_array *x, const kr_reg_opts *o, kr_reg_info *info,
                              kri_pd_ws *w)
{
    const char *fn = "kr_pdhg";
    /* steps: tau = 0.99 / ||K||, and per dual block sigma_j = 0.99 / (tau n L_j) (n blocks,
     * L_j = ||K_j||^2), so tau sum_j sigma_j L_j < 1 (block-diagonal preconditioning: a
     * difference operator next to a projector gets a dual step of its own scale) */
    double tau = o->tau, Ls[64], Lsum = 0.0;
    if (w->nd + 1 > 64) return kri_fail(KR_ERR_INVALID_ARG, "%s: more than 63 terms", fn);
    KRI_TRY(kri_pd_norms(c, A, w, o, Ls));
    for (int j = 0; j <= w->nd; j++) {
        if (!(Ls[j] > 0))
            return kri_fail(KR_ERR_INVALID_ARG, "%s: operator %s is zero", fn,
                            j ? kr_linop_name(w->d[j - 1].t->K) : kr_linop_name(A));
        Lsum += Ls[j];
    }
    info->lipschitz = Lsum;
    if (tau == 0.0) tau = o->sigma > 0 ? 0.99 / (o->sigma * Lsum) : 0.99 / sqrt(Lsum);
    const double nb = w->nd + 1;
    w->sigma0 = o->sigma > 0 ? o->sigma : 0.99 / (tau * nb * Ls[0]);
    for (int j = 0; j < w->nd; j++)
        w->d[j].sigma = o->sigma > 0 ? o->sigma : 0.99 / (tau * nb * Ls[j + 1]);
    if (!o->warm_start) KRI_TRY(kr_vec_zero(c, x));
    if (w->G) KRI_TRY(kr_prox_apply(w->G, tau, x, x));
    KRI_TRY(kr_linop_forward(A, x, w->Ax));
    KRI_TRY(kr_vec_zero(c, w->q0));
    for (int j = 0; j < w->nd; j++) {
        KRI_TRY(kr_linop_forward(w->d[j].t->K, x, w->d[j].Kx));
        KRI_TRY(kr_vec_zero(c, w->d[j].q));
    }
    double F;
    KRI_TRY(kri_pd_obj(c, y, x, w, &F));
    if (o->objective) o->objective[0] = F;
    if (o->residual) o->residual[0] = 1.0;
    /* the first x bar is x: old = current */
    KRI_TRY(kr_vec_copy(c, w->Axo, w->Ax));
    for (int j = 0; j < w->nd; j++) KRI_TRY(kr_vec_copy(c, w->d[j].Kxo, w->d[j].Kx));
    kr_progress *prog = o->show_progress ? kr_progress_begin(c, "PDHG", o->max_iter) : NULL;
    int k;
    for (k = 0; k < o->max_iter; k++) {
        /* q0 = (q0 + sigma (A xbar - y)) / (1 + sigma) */
        KRI_TRY(kri_bar(c, w->w0, w->Ax, w->Axo));
        KRI_TRY(kr_vec_axpy(c, w->w0, -1.0, 0.0, y));
        KRI_TRY(kr_vec_axpy(c, w->q0, w->sigma0, 0.0, w->w0));
        KRI_TRY(kr_vec_scale(c, w->q0, 1.0 / (1.0 + w->sigma0), 0.0));
        KRI_TRY(kr_linop_adjoint(A, w->q0, w->grad));
        for (int j = 0; j < w->nd; j++) {
            kri_pd_dual *d = &w->d[j];
            /* v = q + sigma K xbar; q = v - sigma prox_{g / sigma}(v / sigma) */
            KRI_TRY(kri_bar(c, d->w, d->Kx, d->Kxo));
            const double sigma = d->sigma;
            KRI_TRY(kr_vec_xpay(c, d->w, sigma, 0.0, d->q)); /* w = v */
            KRI_TRY(kr_vec_copy(c, d->q, d->w));
            KRI_TRY(kr_vec_scale(c, d->w, 1.0 / sigma, 0.0));
            KRI_TRY(kr_prox_apply(d->t->g, 1.0 / sigma, d->w, d->w));
            KRI_TRY(kr_vec_axpy(c, d->q, -sigma, 0.0, d->w));
            KRI_TRY(kr_linop_adjoint(d->t->K, d->q, w->tmp));
            KRI_TRY(kr_vec_axpy(c, w->grad, 1.0, 0.0, w->tmp));
        }
        /* x = prox_{tau G}(x - tau grad) */
        KRI_TRY(kr_vec_copy(c, w->xo, x));
        KRI_TRY(kr_vec_axpy(c, x, -tau, 0.0, w->grad));
        if (w->G) KRI_TRY(kr_prox_apply(w->G, tau, x, x));
        KRI_TRY(kr_vec_copy(c, w->Axo, w->Ax));
        KRI_TRY(kr_linop_forward(A, x, w->Ax));
        for (int j = 0; j < w->nd; j++) {
            KRI_TRY(kr_vec_copy(c, w->d[j].Kxo, w->d[j].Kx));
            KRI_TRY(kr_linop_forward(w->d[j].t->K, x, w->d[j].Kx));
        }
        double change;
        KRI_TRY(kri_rel_change(c, x, w->xo, w->tmp, &change));
        KRI_TRY(kri_pd_obj(c, y, x, w, &F));
        if (isnan(F) || !isfinite(change)) return kri_reg_nonfinite(fn, k + 1);
        if (kri_reg_record(o, info, prog, k, F, change)) {
            k++;
            break;
        }
    }
    kr_progress_end(prog);
    info->iterations = k;
    info->objective = F;
    return KR_OK;
}

kr_status kr_pdhg(const kr_ctx *ctx, const kr_linop *A, const kr_array *y,
                  const kr_reg_term *terms, int nterms, kr_array *x, const kr_reg_opts *opts,
                  kr_reg_info *info)
{
    const char *fn = "kr_pdhg";
    kr_reg_opts o;
    if (opts)
        o = *opts;
    else
        kr_reg_opts_default(&o);
    KRI_TRY(kri_reg_check(fn, ctx, A, y, x, terms, nterms, &o));
    kri_pd_ws w;
    memset(&w, 0, sizeof w);
    for (int j = 0; j < nterms; j++) {
        if (terms[j].K) continue;
        if (w.G)
            return kri_fail(KR_ERR_INVALID_ARG, "%s: terms %d and later both have no operator; "
                            "at most one term may act on x directly", fn, j);
        w.G = terms[j].g;
    }
    kr_reg_info inf;
    memset(&inf, 0, sizeof inf);
    w.d = kri_calloc((size_t)(nterms > 0 ? nterms : 1), sizeof *w.d);
    if (!w.d) return kri_fail(KR_ERR_OOM_HOST, "%s: term state", fn);
    kr_status s = KR_OK;
    for (int j = 0; j < nterms && s == KR_OK; j++) {
        if (!terms[j].K) continue;
        kri_pd_dual *d = &w.d[w.nd++];
        d->t = &terms[j];
        kr_array **a[] = {&d->q, &d->Kx, &d->Kxo, &d->w};
        for (int i = 0; i < 4 && s == KR_OK; i++) s = kri_reg_work(a[i], ctx, terms[j].K, 0);
    }
    kr_array **dom[] = {&w.xo, &w.grad, &w.tmp};
    kr_array **cod[] = {&w.q0, &w.Ax, &w.Axo, &w.w0};
    for (int i = 0; i < 3 && s == KR_OK; i++) s = kri_reg_work(dom[i], ctx, A, 1);
    for (int i = 0; i < 4 && s == KR_OK; i++) s = kri_reg_work(cod[i], ctx, A, 0);
    if (s == KR_OK) s = kri_pdhg_run(ctx, A, y, x, &o, &inf, &w);
    for (int i = 0; i < 3; i++) kr_array_destroy(*dom[i]);
    for (int i = 0; i < 4; i++) kr_array_destroy(*cod[i]);
    for (int j = 0; j < w.nd; j++) {
        kr_array_destroy(w.d[j].q);
        kr_array_destroy(w.d[j].Kx);
        kr_array_destroy(w.d[j].Kxo);
        kr_array_destroy(w.d[j].w);
    }
    kri_free(w.d);
    if (info) *info = inf;
    return s;
}
