/* ADMM (scaled form) for 1/2 ||A x - y||^2 + sum_j g_j(K_j x) (kray/reg.h): the x-update is CG
 * on (A^H A + rho sum K_j^H K_j) built from the operator combinators (A's own normal, e.g. a
 * Toeplitz embedding, is used), warm-started from the previous x. */
#include "solve_common.h"
#include "solve/solve_internal.h"

#include <math.h>
#include <string.h>

typedef struct kri_admm_term {
    kr_array *z, *u, *Kx, *zold, *tmp;
} kri_admm_term;

typedef struct kri_admm_ws {
    kr_linop *N;
    kr_array *AHy, *b, *d, *s, *r;
    kri_admm_term *t;
    int nt;
} kri_admm_ws;

/* N = A^H A + rho sum_j K_j^H K_j (identity for K = NULL). */
static kr_status kri_admm_normal(kr_linop **N, const kr_ctx *ctx, const kr_linop *A,
                                 const kr_reg_term *terms, int nterms, double rho)
{
    kr_linop *acc = NULL;
    KRI_TRY(kr_linop_normal_op(&acc, (kr_linop *)A));
    kr_status s = KR_OK;
    for (int j = 0; j < nterms && s == KR_OK; j++) {
        kr_linop *Nj = NULL, *Sj = NULL, *sum = NULL;
        if (terms[j].K) {
            s = kr_linop_normal_op(&Nj, terms[j].K);
        } else {
            int64_t d[KR_MAX_DIMS];
            int nd = kr_linop_in_dims(A, d);
            s = kr_linop_identity(&Nj, ctx, kr_linop_dtype(A), nd, d, kr_linop_loc(A));
        }
        if (s == KR_OK) s = kr_linop_scale(&Sj, Nj, rho, 0.0);
        if (s == KR_OK) s = kr_linop_sum(&sum, acc, Sj);
        kr_linop_destroy(Nj);
        kr_linop_destroy(Sj);
        if (s == KR_OK) {
            kr_linop_destroy(acc);
            acc = sum;
        }
    }
    if (s != KR_OK) {
        kr_linop_destroy(acc);
        return s;
    }
    *N = acc;
    return KR_OK;
}

/* K_j x (or a copy of x). */
static kr_status kri_apply_K(const kr_ctx *c, const kr_reg_term *t, const kr_array *x,
                             kr_array *out)
{
    return t->K ? kr_linop_forward(t->K, x, out) : kr_vec_copy(c, out, x);
}

static kr_status kri_apply_KH(const kr_ctx *c, const kr_reg_term *t, const kr_array *v,
                              kr_array *out)
{
    return t->K ? kr_linop_adjoint(t->K, v, out) : kr_vec_copy(c, out, v);
}

static kr_status kri_term_work(kr_array **a, const kr_ctx *c, const kr_linop *A,
                               const kr_reg_term *t)
{
    return kri_reg_work(a, c, t->K ? t->K : A, t->K ? 0 : 1);
}

static kr_status kri_admm_run(const kr_ctx *c, const kr_linop *A, const kr_array *y,
                              const kr_reg_term *terms, int nt, kr_array *x,
                              const kr_reg_opts *o, kr_reg_info *info, kri_admm_ws *w)
{
    const char *fn = "kr_admm";
    const double rho = o->rho > 0 ? o->rho : 1.0;
    KRI_TRY(kri_admm_normal(&w->N, c, A, terms, nt, rho));
    KRI_TRY(kr_linop_adjoint(A, y, w->AHy));
    if (!o->warm_start) KRI_TRY(kr_vec_zero(c, x));
    for (int j = 0; j < nt; j++) {
        KRI_TRY(kri_apply_K(c, &terms[j], x, w->t[j].z));
        KRI_TRY(kr_vec_zero(c, w->t[j].u));
    }
    kr_solve_opts cg;
    kr_solve_opts_default(&cg);
    cg.max_iter = o->cg_iter ? o->cg_iter : 10;
    cg.tol = 0.0;
    cg.warm_start = 1;
    /* objective: 1/2 ||A x - y||^2 + sum g_j(z_j) */
    double F = 0.0;
#define KRI_ADMM_OBJ()                                                                         \
    do {                                                                                       \
        KRI_TRY(kr_linop_forward(A, x, w->r));                                                 \
        KRI_TRY(kr_vec_axpy(c, w->r, -1.0, 0.0, y));                                           \
        KRI_TRY(kri_half_sq(c, w->r, &F));                                                     \
        for (int j = 0; j < nt; j++) {                                                         \
            double gv;                                                                         \
            KRI_TRY(kr_prox_value(terms[j].g, w->t[j].z, &gv));                                \
            F += gv;                                                                           \
        }                                                                                      \
    } while (0)
    KRI_ADMM_OBJ();
    if (o->objective) o->objective[0] = F;
    if (o->residual) o->residual[0] = 1.0;
    kr_progress *prog = o->show_progress ? kr_progress_begin(c, "ADMM", o->max_iter) : NULL;
    int k;
    for (k = 0; k < o->max_iter; k++) {
        /* b = A^H y + rho sum K_j^H (z_j - u_j); CG on N x = b */
        KRI_TRY(kr_vec_copy(c, w->b, w->AHy));
        for (int j = 0; j < nt; j++) {
            KRI_TRY(kr_vec_copy(c, w->t[j].tmp, w->t[j].z));
            KRI_TRY(kr_vec_axpy(c, w->t[j].tmp, -1.0, 0.0, w->t[j].u));
            KRI_TRY(kri_apply_KH(c, &terms[j], w->t[j].tmp, w->d));
            KRI_TRY(kr_vec_axpy(c, w->b, rho, 0.0, w->d));
        }
        kr_solve_info ci;
        KRI_TRY(kr_cg(c, w->N, w->b, x, &cg, &ci));
        double pr2 = 0, kx2 = 0, z2 = 0;
        KRI_TRY(kr_vec_zero(c, w->s));
        KRI_TRY(kr_vec_zero(c, w->d));
        for (int j = 0; j < nt; j++) {
            kri_admm_term *t = &w->t[j];
            double v;
            KRI_TRY(kri_apply_K(c, &terms[j], x, t->Kx));
            KRI_TRY(kr_vec_copy(c, t->zold, t->z));
            KRI_TRY(kr_vec_copy(c, t->tmp, t->Kx));
            KRI_TRY(kr_vec_axpy(c, t->tmp, 1.0, 0.0, t->u));
            KRI_TRY(kr_prox_apply(terms[j].g, 1.0 / rho, t->tmp, t->z));
            /* u += K x - z; primal residual K x - z (in tmp) */
            KRI_TRY(kr_vec_copy(c, t->tmp, t->Kx));
            KRI_TRY(kr_vec_axpy(c, t->tmp, -1.0, 0.0, t->z));
            KRI_TRY(kr_vec_axpy(c, t->u, 1.0, 0.0, t->tmp));
            KRI_TRY(kr_vec_norm2(c, t->tmp, &v));
            pr2 += v * v;
            KRI_TRY(kr_vec_norm2(c, t->Kx, &v));
            kx2 += v * v;
            KRI_TRY(kr_vec_norm2(c, t->z, &v));
            z2 += v * v;
            /* dual: sum K^H (z - zold) into s, sum K^H u into d */
            KRI_TRY(kr_vec_xpay(c, t->zold, -1.0, 0.0, t->z));
            KRI_TRY(kri_apply_KH(c, &terms[j], t->zold, w->b));
            KRI_TRY(kr_vec_axpy(c, w->s, 1.0, 0.0, w->b));
            KRI_TRY(kri_apply_KH(c, &terms[j], t->u, w->b));
            KRI_TRY(kr_vec_axpy(c, w->d, 1.0, 0.0, w->b));
        }
        double sn, dn;
        KRI_TRY(kr_vec_norm2(c, w->s, &sn));
        KRI_TRY(kr_vec_norm2(c, w->d, &dn));
        const double den = sqrt(kx2 > z2 ? kx2 : z2);
        info->primal_res = den > 0 ? sqrt(pr2) / den : sqrt(pr2);
        info->dual_res = dn > 0 ? sn / dn : sn;
        if (!isfinite(info->primal_res) || !isfinite(info->dual_res))
            return kri_reg_nonfinite(fn, k + 1);
        KRI_ADMM_OBJ();
        if (o->objective) o->objective[k + 1] = F;
        if (o->residual) o->residual[k + 1] = info->primal_res;
        kr_progress_add(prog, 1);
        if (info->primal_res <= o->tol && info->dual_res <= o->tol) {
            info->converged = 1;
            k++;
            break;
        }
    }
#undef KRI_ADMM_OBJ
    kr_progress_end(prog);
    info->iterations = k;
    info->objective = F;
    return KR_OK;
}

kr_status kr_admm(const kr_ctx *ctx, const kr_linop *A, const kr_array *y,
                  const kr_reg_term *terms, int nterms, kr_array *x, const kr_reg_opts *opts,
                  kr_reg_info *info)
{
    kr_reg_opts o;
    if (opts)
        o = *opts;
    else
        kr_reg_opts_default(&o);
    KRI_TRY(kri_reg_check("kr_admm", ctx, A, y, x, terms, nterms, &o));
    kr_reg_info inf;
    memset(&inf, 0, sizeof inf);
    kri_admm_ws w;
    memset(&w, 0, sizeof w);
    kr_status s = KR_OK;
    w.t = kri_calloc((size_t)(nterms > 0 ? nterms : 1), sizeof *w.t);
    if (!w.t) return kri_fail(KR_ERR_OOM_HOST, "kr_admm: term state");
    w.nt = nterms;
    kr_array **dom[] = {&w.AHy, &w.b, &w.d, &w.s};
    for (int i = 0; i < 4 && s == KR_OK; i++) s = kri_reg_work(dom[i], ctx, A, 1);
    if (s == KR_OK) s = kri_reg_work(&w.r, ctx, A, 0);
    for (int j = 0; j < nterms && s == KR_OK; j++) {
        kr_array **a[] = {&w.t[j].z, &w.t[j].u, &w.t[j].Kx, &w.t[j].zold, &w.t[j].tmp};
        for (int i = 0; i < 5 && s == KR_OK; i++) s = kri_term_work(a[i], ctx, A, &terms[j]);
    }
    if (s == KR_OK) s = kri_admm_run(ctx, A, y, terms, nterms, x, &o, &inf, &w);
    for (int i = 0; i < 4; i++) kr_array_destroy(*dom[i]);
    kr_array_destroy(w.r);
    for (int j = 0; j < nterms; j++) {
        kr_array_destroy(w.t[j].z);
        kr_array_destroy(w.t[j].u);
        kr_array_destroy(w.t[j].Kx);
        kr_array_destroy(w.t[j].zold);
        kr_array_destroy(w.t[j].tmp);
    }
    kri_free(w.t);
    kr_linop_destroy(w.N);
    if (info) *info = inf;
    return s;
}
