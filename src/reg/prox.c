/* Proximal maps (kray/reg.h): creation, checks, and the prox and value of l1, l21, l2 ball,
 * box, l1-wavelet and TV (the LLR blocks are in prox_llr.c). Everything runs through kr_vec_*,
 * the reg backend table and kr_linop, so one code serves host and device arrays. */
#include "internal.h"
#include "prox_internal.h"
#include "solve/solve_internal.h"

#include <math.h>
#include <string.h>

static kr_status kri_prox_new(kr_prox **out, const char *fn, int kind, const kr_ctx *ctx,
                              kr_dtype dtype, int ndim, const int64_t *dims, double lambda)
{
    *out = NULL;
    KRI_TRY(kri_reg_check_shape(fn, ctx, dtype, ndim, dims));
    if (!(lambda >= 0.0) || isinf(lambda))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: lambda is %g, must be finite and >= 0", fn,
                        lambda);
    const kri_reg_backend *be;
    KRI_TRY(kri_reg_pick(&be, kri_ctx_loc(ctx), fn));
    kr_prox *p = kri_calloc(1, sizeof *p);
    if (!p) return kri_fail(KR_ERR_OOM_HOST, "%s: prox state", fn);
    p->kind = kind;
    p->ctx = ctx;
    p->dtype = dtype;
    p->loc = kri_ctx_loc(ctx);
    p->ndim = ndim;
    memcpy(p->dims, dims, (size_t)ndim * sizeof *dims);
    p->lambda = lambda;
    *out = p;
    return KR_OK;
}

static kr_status kri_prox_arr(kr_prox *p, kr_array **a)
{
    return kr_array_create(a, p->dtype, p->ndim, p->dims, p->loc, p->ctx);
}

void kr_prox_destroy(kr_prox *p)
{
    if (!p) return;
    kr_array_destroy(p->center);
    kr_array_destroy(p->work);
    kri_wavelet_free(&p->w);
    kr_linop_destroy(p->D);
    kr_array_destroy(p->p);
    kr_array_destroy(p->pold);
    kr_array_destroy(p->r);
    kr_array_destroy(p->g);
    kr_array_destroy(p->b);
    kri_free(p);
}

kr_status kr_prox_l1_create(kr_prox **p, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                            const int64_t *dims, double lambda)
{
    KRI_ARG_NOT_NULL(p);
    return kri_prox_new(p, "kr_prox_l1_create", KRI_P_L1, ctx, dtype, ndim, dims, lambda);
}

kr_status kr_prox_l21_create(kr_prox **p, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                             const int64_t *dims, double lambda)
{
    KRI_ARG_NOT_NULL(p);
    KRI_TRY(kri_prox_new(p, "kr_prox_l21_create", KRI_P_L21, ctx, dtype, ndim, dims, lambda));
    (*p)->naxes = (int)dims[ndim - 1];
    return KR_OK;
}

kr_status kr_prox_l2ball_create(kr_prox **p, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                                const int64_t *dims, double radius, const kr_array *center)
{
    const char *fn = "kr_prox_l2ball_create";
    KRI_ARG_NOT_NULL(p);
    if (!(radius >= 0.0) || isinf(radius))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: radius is %g, must be finite and >= 0", fn,
                        radius);
    KRI_TRY(kri_prox_new(p, fn, KRI_P_L2BALL, ctx, dtype, ndim, dims, 0.0));
    kr_prox *q = *p;
    q->radius = radius;
    kr_status s = KR_OK;
    if (center) {
        s = kri_check_operand_dims(fn, "center", center, dtype, q->loc, ndim, dims);
        if (s == KR_OK) s = kri_prox_arr(q, &q->center);
        if (s == KR_OK) s = kr_vec_copy(ctx, q->center, center);
    }
    if (s == KR_OK) s = kri_prox_arr(q, &q->work);
    if (s != KR_OK) {
        kr_prox_destroy(q);
        *p = NULL;
    }
    return s;
}

kr_status kr_prox_box_create(kr_prox **p, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                             const int64_t *dims, double lo, double hi)
{
    const char *fn = "kr_prox_box_create";
    KRI_ARG_NOT_NULL(p);
    if (isnan(lo) || isnan(hi) || lo > hi)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: bounds [%g, %g] are not an interval", fn, lo, hi);
    KRI_TRY(kri_prox_new(p, fn, KRI_P_BOX, ctx, dtype, ndim, dims, 0.0));
    (*p)->lo = lo;
    (*p)->hi = hi;
    return KR_OK;
}

kr_status kr_prox_llr_create(kr_prox **p, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                             const int64_t *dims, double lambda, int axis, int64_t block,
                             const int64_t *shift)
{
    const char *fn = "kr_prox_llr_create";
    KRI_ARG_NOT_NULL(p);
    if (axis < 0 || axis >= ndim)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: axis %d is not one of the %d dimensions", fn,
                        axis, ndim);
    if (block < 1 || block > 64)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: block is %lld, must be 1..64", fn,
                        (long long)block);
    KRI_TRY(kri_prox_new(p, fn, KRI_P_LLR, ctx, dtype, ndim, dims, lambda));
    (*p)->axis = axis;
    (*p)->block = block;
    for (int a = 0; a < ndim && shift; a++) {
        int64_t v = shift[a] % dims[a];
        (*p)->shift[a] = v < 0 ? v + dims[a] : v;
    }
    return KR_OK;
}

kr_status kr_prox_l1_wavelet_create(kr_prox **p, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                                    const int64_t *dims, double lambda,
                                    const kr_wavelet_opts *w, uint64_t seed)
{
    const char *fn = "kr_prox_l1_wavelet_create";
    KRI_ARG_NOT_NULL(p);
    KRI_TRY(kri_prox_new(p, fn, KRI_P_WAVELET, ctx, dtype, ndim, dims, lambda));
    kr_prox *q = *p;
    q->seed = seed;
    kr_wavelet_opts o;
    if (w)
        o = *w;
    else
        kr_wavelet_opts_default(&o);
    o.shift = NULL;
    kr_status s = kri_wavelet_init(&q->w, ctx, dtype, ndim, dims, &o, fn);
    if (s == KR_OK) s = kri_prox_arr(q, &q->work);
    if (s != KR_OK) {
        kr_prox_destroy(q);
        *p = NULL;
    }
    return s;
}

kr_status kr_prox_tv_create(kr_prox **p, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                            const int64_t *dims, double lambda, unsigned axes, double lo,
                            double hi, int inner)
{
    const char *fn = "kr_prox_tv_create";
    KRI_ARG_NOT_NULL(p);
    if (isnan(lo) || isnan(hi) || lo > hi)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: bounds [%g, %g] are not an interval", fn, lo, hi);
    if (inner < 0)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: inner is %d, must be >= 0", fn, inner);
    KRI_TRY(kri_prox_new(p, fn, KRI_P_TV, ctx, dtype, ndim, dims, lambda));
    kr_prox *q = *p;
    q->lo = lo;
    q->hi = hi;
    q->inner = inner ? inner : 20;
    kr_status s = kr_fdiff_linop_create(&q->D, ctx, dtype, ndim, dims, axes, KR_FDIFF_NEUMANN);
    int64_t cd[KR_MAX_DIMS];
    int cn = 0;
    if (s == KR_OK) {
        cn = kr_linop_out_dims(q->D, cd);
        q->naxes = (int)cd[cn - 1];
    }
    kr_array **cods[] = {&q->p, &q->pold, &q->r, &q->g};
    for (int i = 0; i < 4 && s == KR_OK; i++)
        s = kr_array_create(cods[i], dtype, cn, cd, q->loc, ctx);
    if (s == KR_OK) s = kri_prox_arr(q, &q->b);
    if (s != KR_OK) {
        kr_prox_destroy(q);
        *p = NULL;
    }
    return s;
}

/* ---- application ---------------------------------------------------------------------------- */
static int kri_is_box(const kr_prox *p) { return p->lo > -INFINITY || p->hi < INFINITY; }

/* TV prox by fast gradient projection on the dual (kray/reg.h). */
static kr_status kri_tv_prox(kr_prox *p, double t, const kr_array *v, kr_array *x)
{
    const kr_ctx *c = p->ctx;
    const double mu = t * p->lambda;
    KRI_TRY(kr_vec_copy(c, p->b, v));
    if (mu == 0.0) {
        KRI_TRY(kr_vec_copy(c, x, p->b));
        return kri_is_box(p) ? kri_reg_group(c, x, KRI_G_BOX, 1, p->lo, p->hi) : KR_OK;
    }
    const double step = 1.0 / (4.0 * p->naxes * mu);
    double tk = 1.0;
    KRI_TRY(kr_vec_copy(c, p->r, p->p));
    for (int k = 0; k < p->inner; k++) {
        KRI_TRY(kr_linop_adjoint(p->D, p->r, x));
        KRI_TRY(kr_vec_xpay(c, x, -mu, 0.0, p->b));
        if (kri_is_box(p)) KRI_TRY(kri_reg_group(c, x, KRI_G_BOX, 1, p->lo, p->hi));
        KRI_TRY(kr_linop_forward(p->D, x, p->g));
        KRI_TRY(kr_vec_axpy(c, p->r, step, 0.0, p->g));
        KRI_TRY(kr_vec_copy(c, p->pold, p->p));
        KRI_TRY(kr_vec_copy(c, p->p, p->r));
        KRI_TRY(kri_reg_group(c, p->p, KRI_G_CLIP, p->naxes, 1.0, 0.0));
        const double tn = 0.5 * (1.0 + sqrt(1.0 + 4.0 * tk * tk));
        KRI_TRY(kr_vec_xpay(c, p->pold, -1.0, 0.0, p->p)); /* pold = p - pold */
        KRI_TRY(kr_vec_copy(c, p->r, p->p));
        KRI_TRY(kr_vec_axpy(c, p->r, (tk - 1.0) / tn, 0.0, p->pold));
        tk = tn;
    }
    KRI_TRY(kr_linop_adjoint(p->D, p->p, x));
    KRI_TRY(kr_vec_xpay(c, x, -mu, 0.0, p->b));
    return kri_is_box(p) ? kri_reg_group(c, x, KRI_G_BOX, 1, p->lo, p->hi) : KR_OK;
}

static kr_status kri_prox_check(kr_prox *p, const char *fn, const kr_array *a, const char *what)
{
    KRI_TRY(kri_check_operand_dims(fn, what, a, p->dtype, p->loc, p->ndim, p->dims));
    if (a->loc == KR_DEVICE && a->device != kr_ctx_device(p->ctx))
        return kri_fail(KR_ERR_LOCATION, "%s: %s is on CUDA device %d, the prox uses device %d",
                        fn, what, a->device, kr_ctx_device(p->ctx));
    return KR_OK;
}

kr_status kr_prox_apply(kr_prox *p, double t, const kr_array *v, kr_array *x)
{
    const char *fn = "kr_prox_apply";
    KRI_ARG_NOT_NULL(p);
    KRI_TRY(kri_prox_check(p, fn, v, "v"));
    KRI_TRY(kri_prox_check(p, fn, x, "x"));
    if (v->data != x->data && kri_arrays_overlap(v, x))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: v and x partly overlap", fn);
    if (!(t > 0.0) || isinf(t))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: t is %g, must be finite and > 0", fn, t);
    const kr_ctx *c = p->ctx;
    switch (p->kind) {
    case KRI_P_L1:
    case KRI_P_L21:
        KRI_TRY(kr_vec_copy(c, x, v));
        return kri_reg_group(c, x, KRI_G_SHRINK, p->kind == KRI_P_L1 ? 1 : p->naxes,
                             t * p->lambda, 0.0);
    case KRI_P_BOX:
        KRI_TRY(kr_vec_copy(c, x, v));
        return kri_reg_group(c, x, KRI_G_BOX, 1, p->lo, p->hi);
    case KRI_P_L2BALL: {
        double nr;
        KRI_TRY(kr_vec_copy(c, p->work, v));
        if (p->center) KRI_TRY(kr_vec_axpy(c, p->work, -1.0, 0.0, p->center));
        KRI_TRY(kr_vec_norm2(c, p->work, &nr));
        if (nr > p->radius) KRI_TRY(kr_vec_scale(c, p->work, p->radius / nr, 0.0));
        if (p->center) KRI_TRY(kr_vec_axpy(c, p->work, 1.0, 0.0, p->center));
        return kr_vec_copy(c, x, p->work);
    }
    case KRI_P_WAVELET: {
        p->w.shifted = 0;
        if (p->seed) {
            const uint64_t call = p->calls++;
            for (int a = 0; a < p->ndim; a++) {
                p->w.shift[a] = 0;
                if (!(p->w.axes & (1u << a))) continue;
                const uint64_t span = (uint64_t)1 << p->w.levels;
                p->w.shift[a] = (int64_t)(kri_rand_u64(p->seed, call * KR_MAX_DIMS + a) % span);
                if (p->w.shift[a]) p->w.shifted = 1;
            }
        }
        KRI_TRY(kri_wavelet_apply(&p->w, v->data, p->work->data, 0));
        KRI_TRY(kri_reg_group(c, p->work, KRI_G_SHRINK, 1, t * p->lambda, 0.0));
        return kri_wavelet_apply(&p->w, p->work->data, x->data, 1);
    }
    case KRI_P_TV: return kri_tv_prox(p, t, v, x);
    case KRI_P_LLR: return kri_llr_apply(p, v, x, t * p->lambda, NULL);
    }
    return kri_fail(KR_ERR_INTERNAL, "%s: unknown prox kind %d", fn, p->kind);
}

kr_status kr_prox_value(kr_prox *p, const kr_array *x, double *value)
{
    const char *fn = "kr_prox_value";
    KRI_ARG_NOT_NULL(p);
    KRI_ARG_NOT_NULL(value);
    KRI_TRY(kri_prox_check(p, fn, x, "x"));
    const kr_ctx *c = p->ctx;
    double s = 0.0;
    switch (p->kind) {
    case KRI_P_L1:
    case KRI_P_L21:
        KRI_TRY(kri_reg_reduce(c, x, KRI_R_GNORM, p->kind == KRI_P_L1 ? 1 : p->naxes, 0, 0, &s));
        *value = p->lambda * s;
        return KR_OK;
    case KRI_P_BOX: {
        double nr;
        KRI_TRY(kri_reg_reduce(c, x, KRI_R_VIOL, 1, p->lo, p->hi, &s));
        KRI_TRY(kr_vec_norm2(c, x, &nr));
        *value = s > 1e-6 * (nr > 1.0 ? nr : 1.0) ? INFINITY : 0.0;
        return KR_OK;
    }
    case KRI_P_L2BALL: {
        double nr;
        KRI_TRY(kr_vec_copy(c, p->work, x));
        if (p->center) KRI_TRY(kr_vec_axpy(c, p->work, -1.0, 0.0, p->center));
        KRI_TRY(kr_vec_norm2(c, p->work, &nr));
        *value = nr > p->radius * (1.0 + 1e-6) + 1e-300 ? INFINITY : 0.0;
        return KR_OK;
    }
    case KRI_P_WAVELET:
        p->w.shifted = 0;
        KRI_TRY(kri_wavelet_apply(&p->w, x->data, p->work->data, 0));
        KRI_TRY(kri_reg_reduce(c, p->work, KRI_R_GNORM, 1, 0, 0, &s));
        *value = p->lambda * s;
        return KR_OK;
    case KRI_P_TV: {
        double viol = 0.0, nr = 0.0;
        KRI_TRY(kr_linop_forward(p->D, x, p->g));
        KRI_TRY(kri_reg_reduce(c, p->g, KRI_R_GNORM, p->naxes, 0, 0, &s));
        *value = p->lambda * s;
        if (kri_is_box(p)) {
            KRI_TRY(kri_reg_reduce(c, x, KRI_R_VIOL, 1, p->lo, p->hi, &viol));
            KRI_TRY(kr_vec_norm2(c, x, &nr));
            if (viol > 1e-6 * (nr > 1.0 ? nr : 1.0)) *value = INFINITY;
        }
        return KR_OK;
    }
    case KRI_P_LLR:
        KRI_TRY(kri_llr_apply(p, x, NULL, 0.0, &s));
        *value = p->lambda * s;
        return KR_OK;
    }
    return kri_fail(KR_ERR_INTERNAL, "%s: unknown prox kind %d", fn, p->kind);
}
