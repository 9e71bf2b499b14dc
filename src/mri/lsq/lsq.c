/* Least-squares plan (kray/lsq.h): F^H W d and F^H W F by DrFT, Toeplitz or NUFFT, and the
 * operators for the solvers. */
#include "mri/lsq/lsq_bench.h"
#include "mri/lsq/lsq_internal.h"
#include "mri/mri_internal.h"

#include "kray/drft.h"
#include "kray/linop.h"
#include "kray/lsq.h"
#include "kray/nufft.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

struct kr_lsq_plan {
    const kr_ctx *ctx;
    const kri_toep_backend *be; /* the k-space weighting at loc */
    kr_dtype t;
    kr_loc loc;
    kr_lsq_normal_method method;
    kr_lsq_opts opts;
    int64_t n[3], N, M, batch;
    kr_array *traj;      /* host f64 [3, M] copy */
    kr_array *wh;        /* host f64 [M] copy of the weights, NULL = none */
    kr_array *w, *sw;    /* W and sqrt(W) in the element's real precision at loc (NULL = none) */
    kr_array *ks;        /* k-space scratch [M, batch] at loc */
    kr_nufft_plan *nufft;
    kr_drft_plan *drft;  /* DrFT method: plain plan with weights W (adjoint = F^H W) */
    kr_toeplitz_plan *toep;
};

void kr_lsq_plan_destroy(kr_lsq_plan *p)
{
    if (!p) return;
    kr_array_destroy(p->traj);
    kr_array_destroy(p->wh);
    kr_array_destroy(p->w);
    kr_array_destroy(p->sw);
    kr_array_destroy(p->ks);
    kr_nufft_plan_destroy(p->nufft);
    kr_drft_plan_destroy(p->drft);
    kr_toeplitz_plan_destroy(p->toep);
    kri_free(p);
}

int64_t kr_lsq_samples(const kr_lsq_plan *p) { return p ? p->M : 0; }

/* Real array of f(w_m) at loc in the element's real precision. */
static kr_status kri_lsq_weights_at(kr_lsq_plan *p, int sq, kr_array **out)
{
    kr_array *h = NULL;
    kr_dtype rt = p->t == KR_C64 ? KR_F32 : KR_F64;
    KRI_TRY(kr_array_create(&h, rt, 1, &p->M, KR_HOST, NULL));
    const double *w = (const double *)p->wh->data;
    for (int64_t i = 0; i < p->M; i++) {
        double v = sq ? sqrt(w[i]) : w[i];
        if (rt == KR_F32)
            ((float *)h->data)[i] = (float)v;
        else
            ((double *)h->data)[i] = v;
    }
    if (p->loc == KR_HOST) {
        *out = h;
        return KR_OK;
    }
    kr_status s = kr_array_clone(out, h, KR_DEVICE, p->ctx);
    kr_array_destroy(h);
    return s;
}

kr_status kr_lsq_plan_create(kr_lsq_plan **out, const kr_ctx *ctx, const int64_t n[3], const kr_array *traj,
                        const kr_array *weights, const kr_lsq_opts *opts)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    kr_lsq_opts o;
    KRI_TRY(kri_lsq_opts_resolve("kr_lsq_plan_create", opts, &o));
    if (o.normal != KR_LSQ_NORMAL_TOEPLITZ && o.normal != KR_LSQ_NORMAL_DRFT &&
        o.normal != KR_LSQ_NORMAL_NUFFT)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_lsq_plan_create: unknown normal method %d",
                        (int)o.normal);
    if (!(o.eps >= 0) || o.eps > 0.1)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_lsq_plan_create: eps %g must be in [0, 0.1]", o.eps);
    kr_array tv, wv;
    memset(&wv, 0, sizeof wv);
    KRI_TRY(kri_lsq_check_inputs("kr_lsq_plan_create", ctx, n, traj, weights, o.dtype, &tv, &wv));
    kr_lsq_plan *p = NULL;
    KRI_TRY(kri_alloc((void **)&p, sizeof *p, "least-squares plan"));
    memset(p, 0, sizeof *p);
    p->ctx = ctx;
    p->t = o.dtype;
    p->loc = kri_ctx_loc(ctx);
    p->method = o.normal;
    p->opts = o;
    p->batch = o.batch;
    for (int a = 0; a < 3; a++) p->n[a] = n[a];
    p->N = n[0] * n[1] * n[2];
    p->M = tv.dims[1];
    int64_t td[2] = {3, p->M}, kd[2] = {p->M, p->batch};
    kr_status s = kri_backend_pick(&p->be, p->loc, &kri_toep_cpu, &kri_toep_cuda,
                                   "least squares");
    if (s == KR_OK) s = kr_array_create(&p->traj, KR_F64, 2, td, KR_HOST, NULL);
    if (s == KR_OK) s = kr_array_convert(p->traj, &tv);
    if (s == KR_OK && weights) {
        s = kr_array_create(&p->wh, KR_F64, 1, &p->M, KR_HOST, NULL);
        if (s == KR_OK) s = kr_array_convert(p->wh, &wv);
        if (s == KR_OK) s = kri_lsq_weights_at(p, 0, &p->w);
        if (s == KR_OK) s = kri_lsq_weights_at(p, 1, &p->sw);
    }
    if (s == KR_OK) s = kr_array_create(&p->ks, p->t, 2, kd, p->loc, ctx);
    if (s == KR_OK && p->method == KR_LSQ_NORMAL_DRFT) {
        kr_drft_opts d;
        kr_drft_opts_default(&d);
        d.check_k = 0; /* checked above on the closed interval; the DrFT is periodic in k */
        s = kr_drft_plan_create(&p->drft, ctx, n, p->traj, p->wh, &d);
    } else if (s == KR_OK) {
        kr_nufft_opts no;
        kr_nufft_opts_default(&no);
        no.dtype = p->t;
        no.eps = o.eps > 0 ? o.eps : (p->t == KR_C64 ? 1e-4 : 1e-9);
        no.batch = p->batch;
        s = kr_nufft_plan_create(&p->nufft, ctx, n[2] > 1 ? 3 : 2, n, &no);
        if (s == KR_OK) s = kr_nufft_set_points(p->nufft, p->traj);
    }
    if (s == KR_OK && p->method == KR_LSQ_NORMAL_TOEPLITZ)
        s = kr_toeplitz_plan_create(&p->toep, ctx, n, p->traj, p->wh, &o);
    if (s != KR_OK) {
        kr_lsq_plan_destroy(p);
        return s;
    }
    *out = p;
    return KR_OK;
}

/* Flat views: images [n0, n1, n2, B], k-space [M, B] (B = plan batch). */
static kr_status kri_lsq_view(const kr_lsq_plan *p, const kr_array *a, int img, const char *fn,
                              const char *what, kr_array *v)
{
    KRI_TRY(kri_check_operand(fn, what, a, p->t, p->loc));
    int64_t want = (img ? p->N : p->M) * p->batch;
    if (kr_array_numel(a) != want)
        return kri_fail(KR_ERR_DIM, "%s: %s has %lld elements, expected %lld", fn, what,
                        (long long)kr_array_numel(a), (long long)want);
    int64_t id[4] = {p->n[0], p->n[1], p->n[2], p->batch}, kd[2] = {p->M, p->batch};
    KRI_TRY(img ? kr_array_wrap(v, p->t, 4, id, a->data, a->loc)
                : kr_array_wrap(v, p->t, 2, kd, a->data, a->loc));
    v->device = a->device;
    return KR_OK;
}

/* The plan and flat views of an operation's operands, `in` then `out` (img: an image, else
 * k-space). */
static kr_status kri_lsq_views(const kr_lsq_plan *p, const char *fn, const char *in_what,
                               const kr_array *in, int in_img, const char *out_what,
                               const kr_array *out, int out_img, kr_array v[2])
{
    if (!p) return kri_fail(KR_ERR_INVALID_ARG, "%s: the plan is NULL", fn);
    KRI_TRY(kri_lsq_view(p, in, in_img, fn, in_what, &v[0]));
    return kri_lsq_view(p, out, out_img, fn, out_what, &v[1]);
}

static kr_status kri_lsq_wmul(kr_lsq_plan *p, const kr_array *w, const kr_array *d, kr_array *out)
{
    return p->be->wmul(p->ctx, p->t, p->M, p->batch, d->data, w->data, out->data);
}

kr_status kr_lsq_rhs(kr_lsq_plan *p, const kr_array *d, kr_array *rhs)
{
    kr_array v[2];
    KRI_TRY(kri_lsq_views(p, "kr_lsq_rhs", "data", d, 0, "right-hand side", rhs, 1, v));
    if (p->drft) return kr_drft_adjoint(p->drft, &v[0], &v[1]);
    if (!p->w) return kr_nufft_adjoint(p->nufft, &v[0], &v[1]);
    KRI_TRY(kri_lsq_wmul(p, p->w, &v[0], p->ks));
    return kr_nufft_adjoint(p->nufft, p->ks, &v[1]);
}

kr_status kr_lsq_normal(kr_lsq_plan *p, const kr_array *in, kr_array *out)
{
    kr_array v[2];
    KRI_TRY(kri_lsq_views(p, "kr_lsq_normal_method", "input", in, 1, "output", out, 1, v));
    if (p->toep) return kr_toeplitz_execute(p->toep, &v[0], &v[1]);
    if (in->data == out->data)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_lsq_normal_method: input and output are the same "
                                            "array");
    if (p->drft) {
        KRI_TRY(kr_drft_forward(p->drft, &v[0], p->ks));
        return kr_drft_adjoint(p->drft, p->ks, &v[1]);
    }
    KRI_TRY(kr_nufft_forward(p->nufft, &v[0], p->ks));
    if (p->w) KRI_TRY(kri_lsq_wmul(p, p->w, p->ks, p->ks));
    return kr_nufft_adjoint(p->nufft, p->ks, &v[1]);
}

/* ---- operators --------------------------------------------------------------------------- */
static kr_status kri_lsq_op_normal(void *d, const kr_array *in, kr_array *out)
{
    return kr_lsq_normal((kr_lsq_plan *)d, in, out);
}

static kr_status kri_lsq_op_fwd(void *d, const kr_array *in, kr_array *out)
{
    kr_lsq_plan *p = (kr_lsq_plan *)d;
    kr_array v[2];
    KRI_TRY(kri_lsq_views(p, "forward", "input", in, 1, "output", out, 0, v));
    KRI_TRY(kr_nufft_forward(p->nufft, &v[0], &v[1]));
    return p->sw ? kri_lsq_wmul(p, p->sw, &v[1], &v[1]) : KR_OK;
}

static kr_status kri_lsq_op_adj(void *d, const kr_array *in, kr_array *out)
{
    kr_lsq_plan *p = (kr_lsq_plan *)d;
    kr_array v[2];
    KRI_TRY(kri_lsq_views(p, "adjoint", "input", in, 0, "output", out, 1, v));
    if (!p->sw) return kr_nufft_adjoint(p->nufft, &v[0], &v[1]);
    KRI_TRY(kri_lsq_wmul(p, p->sw, &v[0], p->ks));
    return kr_nufft_adjoint(p->nufft, p->ks, &v[1]);
}

static void kri_lsq_def(const kr_lsq_plan *p, kr_linop_def *d, int square)
{
    memset(d, 0, sizeof *d);
    d->dtype = p->t;
    d->loc = p->loc;
    d->in_ndim = p->batch > 1 ? 4 : 3;
    for (int i = 0; i < 3; i++) d->in_dims[i] = p->n[i];
    d->in_dims[3] = p->batch;
    if (square) {
        d->out_ndim = d->in_ndim;
        memcpy(d->out_dims, d->in_dims, sizeof d->out_dims);
    } else {
        d->out_ndim = p->batch > 1 ? 2 : 1;
        d->out_dims[0] = p->M;
        d->out_dims[1] = p->batch;
    }
}

static const char *kri_lsq_method_name(kr_lsq_normal_method m)
{
    return m == KR_LSQ_NORMAL_DRFT ? "drft" : (m == KR_LSQ_NORMAL_NUFFT ? "nufft" : "toeplitz");
}

kr_status kr_lsq_normal_linop_create(kr_linop **op, kr_lsq_plan *p)
{
    KRI_ARG_NOT_NULL(op);
    *op = NULL;
    KRI_ARG_NOT_NULL(p);
    kr_linop_def d;
    kri_lsq_def(p, &d, 1);
    char name[64];
    snprintf(name, sizeof name, "lsq-normal-%s", kri_lsq_method_name(p->method));
    d.name = name;
    d.forward = d.adjoint = kri_lsq_op_normal;
    d.data = p;
    return kr_linop_create(op, p->ctx, &d);
}

kr_status kr_lsq_linop_create(kr_linop **op, kr_lsq_plan *p)
{
    KRI_ARG_NOT_NULL(op);
    *op = NULL;
    KRI_ARG_NOT_NULL(p);
    if (p->method == KR_LSQ_NORMAL_DRFT) {
        /* the DrFT's own symmetric-weight operator; its default normal is the exact F^H W F */
        kr_drft_opts d;
        kr_drft_opts_default(&d);
        d.check_k = 0;
        return kr_drft_linop_create(op, p->ctx, p->n, p->traj, p->wh, &d, p->t, p->batch);
    }
    kr_linop_def d;
    kri_lsq_def(p, &d, 0);
    char name[64];
    snprintf(name, sizeof name, "lsq-%s", kri_lsq_method_name(p->method));
    d.name = name;
    d.forward = kri_lsq_op_fwd;
    d.adjoint = kri_lsq_op_adj;
    d.normal = kri_lsq_op_normal;
    d.data = p;
    return kr_linop_create(op, p->ctx, &d);
}

/* ---- benchmark hook (lsq_bench.h) ---------------------------------------------------------- */
kr_status kri_lsq_bench(kr_lsq_plan *p, int what, int reps, double *seconds)
{
    KRI_ARG_NOT_NULL(p);
    KRI_ARG_NOT_NULL(seconds);
    if (reps < 1) return kri_fail(KR_ERR_INVALID_ARG, "kri_lsq_bench: reps %d must be >= 1", reps);
    int64_t id[4] = {p->n[0], p->n[1], p->n[2], p->batch}, kd[2] = {p->M, p->batch};
    kr_array *x = NULL, *y = NULL;
    kr_status s = kr_array_create(&y, p->t, 4, id, p->loc, p->ctx);
    if (s == KR_OK)
        s = what ? kr_array_create(&x, p->t, 4, id, p->loc, p->ctx)
                 : kr_array_create(&x, p->t, 2, kd, p->loc, p->ctx);
    if (s == KR_OK) s = kr_vec_random(p->ctx, x, 12345);
    double t0 = 0;
    for (int r = -1; s == KR_OK && r < reps; r++) {
        if (r == 0) {
            if (p->loc == KR_DEVICE) s = kri_device_synchronize(p->ctx);
            t0 = kr_time_now();
        }
        if (s == KR_OK) s = what ? kr_lsq_normal(p, x, y) : kr_lsq_rhs(p, x, y);
    }
    if (s == KR_OK && p->loc == KR_DEVICE) s = kri_device_synchronize(p->ctx);
    *seconds = s == KR_OK ? (kr_time_now() - t0) / reps : NAN;
    kr_array_destroy(x);
    kr_array_destroy(y);
    return s;
}
