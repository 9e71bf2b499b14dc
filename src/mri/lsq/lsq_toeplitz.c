/* The Toeplitz engine: T = F^H W F applied as zero-pad to the 2x grid, FFT, product with FFT(Q),
 * inverse FFT, crop (kray/lsq.h). Q comes from kr_drft_q or from an adjoint NUFFT of the
 * weights with the points 2k on the 2n grid; both give Q with the origin at index n. The stored
 * kernel is qhat = FFT(ifftshift(Q)) / G (G = padded voxel count), so that the unnormalised
 * backward FFT completes the circular convolution, which equals the linear one on the first n
 * voxels of each axis because |x - y| < n there. */
#include "mri/lsq/lsq_internal.h"
#include "mri/mri_internal.h"

#include "kray/drft.h"
#include "kray/fft.h"
#include "kray/linop.h"
#include "kray/lsq.h"
#include "kray/nufft.h"

#include <math.h>
#include <string.h>

struct kr_toeplitz_plan {
    const kr_ctx *ctx;
    const kri_toep_backend *be; /* the elementwise steps at loc */
    kr_dtype t;
    kr_loc loc;
    int64_t n[3], g[3], N, G, batch;
    kr_array *qhat;   /* [g0, g1, g2] */
    kr_array *buf;    /* [g0, g1, g2, batch] */
    kr_array *xin;    /* [n0, n1, n2]: copy of the input for apply_maps with in == out */
    kr_fft_plan *fwd, *bwd;   /* batch padded images */
    kr_fft_plan *fwd1, *bwd1; /* one padded image (batch > 1 only) */
};

void kr_lsq_opts_default(kr_lsq_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->dtype = KR_C64;
    o->batch = 1;
    o->normal = KR_LSQ_NORMAL_TOEPLITZ;
    o->qmethod = KR_LSQ_Q_NUFFT;
    o->eps = 0;
}

/* ---- shared validation ------------------------------------------------------------------- */
/* Check n, dtype, traj (host [3, ...] f32/f64, finite, |k_d| <= n_d/2, kz = 0 in 2-D) and the
 * weights (host real, M values, finite, >= 0). Returns a flat [3, M] view of traj in *tv and a
 * flat [M] view of the weights in *wv (when weights != NULL). */
kr_status kri_lsq_opts_resolve(const char *fn, const kr_lsq_opts *opts, kr_lsq_opts *o)
{
    if (opts)
        *o = *opts;
    else
        kr_lsq_opts_default(o);
    if (o->batch == 0) o->batch = 1;
    if (o->batch < 0 || o->batch > (1 << 20))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: batch %lld must be in [1, 2^20]", fn,
                        (long long)o->batch);
    return KR_OK;
}

kr_status kri_lsq_check_inputs(const char *fn, const kr_ctx *ctx, const int64_t n[3],
                               const kr_array *traj, const kr_array *weights, kr_dtype t,
                               kr_array *tv, kr_array *wv)
{
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(n);
    if (t != KR_C64 && t != KR_C128)
        return kri_fail(KR_ERR_DTYPE, "%s: dtype must be c64 or c128, got %s", fn,
                        kr_dtype_name(t));
    if (n[0] < 2 || n[1] < 2 || n[2] < 1 || n[0] > (1 << 20) || n[1] > (1 << 20) ||
        n[2] > (1 << 20))
        return kri_fail(KR_ERR_DIM,
                        "%s: image dims %lldx%lldx%lld not allowed (nx, ny >= 2, nz >= 1)", fn,
                        (long long)n[0], (long long)n[1], (long long)n[2]);
    int64_t m = 0;
    KRI_TRY(kri_traj_shape(traj, fn, KR_HOST, &m));
    int64_t td[2] = {3, m};
    KRI_TRY(kr_array_wrap(tv, traj->dtype, 2, td, traj->data, KR_HOST));
    for (int64_t i = 0; i < m; i++) {
        double k[3];
        kri_traj_get(traj, i, k);
        for (int a = 0; a < 3; a++) {
            if (!isfinite(k[a]))
                return kri_fail(KR_ERR_INVALID_ARG,
                                "%s: trajectory sample %lld has a non-finite coordinate "
                                "(k%c = %g)",
                                fn, (long long)i, "xyz"[a], k[a]);
            double h = n[a] > 1 ? 0.5 * (double)n[a] : 0.0;
            if (fabs(k[a]) > h)
                return kri_fail(KR_ERR_GEOMETRY,
                                "%s: trajectory sample %lld has k%c = %g outside [-%g, %g] for "
                                "an image of %lld along that axis",
                                fn, (long long)i, "xyz"[a], k[a], h, h, (long long)n[a]);
        }
    }
    if (weights) {
        KRI_TRY(kri_check_operand(fn, "weights", weights, KRI_ANY_DTYPE, KR_HOST));
        if (weights->dtype != KR_F32 && weights->dtype != KR_F64)
            return kri_fail(KR_ERR_DTYPE, "%s: weights must be f32 or f64, got %s", fn,
                            kr_dtype_name(weights->dtype));
        if (kr_array_numel(weights) != m)
            return kri_fail(KR_ERR_DIM, "%s: %lld weights for %lld trajectory samples", fn,
                            (long long)kr_array_numel(weights), (long long)m);
        for (int64_t i = 0; i < m; i++) {
            double w = kr_array_get_f64(weights, i);
            if (!(w >= 0.0) || !isfinite(w))
                return kri_fail(KR_ERR_INVALID_ARG,
                                "%s: weight %lld is %g; weights must be finite and >= 0", fn,
                                (long long)i, w);
        }
        KRI_TRY(kr_array_wrap(wv, weights->dtype, 1, &m, weights->data, KR_HOST));
    }
    return KR_OK;
}

/* Q on the 2x grid (origin at n) into q ([g0, g1, g2], dtype t, at the ctx's location). */
static kr_status kri_toep_q_nufft(const kr_ctx *ctx, const int64_t n[3], const int64_t g[3],
                                  const kr_array *tv, const kr_array *wv, kr_dtype t, double eps,
                                  kr_array *q)
{
    int64_t m = tv->dims[1];
    int ndim = n[2] > 1 ? 3 : 2;
    kr_loc loc = q->loc;
    kr_array *t2 = NULL, *yh = NULL, *y = NULL;
    kr_nufft_plan *p = NULL;
    int64_t td[2] = {3, m};
    kr_status s = kr_array_create(&t2, KR_F64, 2, td, KR_HOST, NULL);
    if (s == KR_OK) s = kr_array_create(&yh, t, 1, &m, KR_HOST, NULL);
    if (s == KR_OK) {
        double *k2 = (double *)t2->data;
        for (int64_t i = 0; i < m; i++) {
            double k[3];
            kri_traj_get(tv, i, k);
            for (int a = 0; a < 3; a++) k2[3 * i + a] = g[a] > 1 ? 2.0 * k[a] : 0.0;
            double w = wv ? kr_array_get_f64(wv, i) : 1.0;
            if (t == KR_C64)
                ((float *)yh->data)[2 * i] = (float)w;
            else
                ((double *)yh->data)[2 * i] = w;
        }
    }
    if (s == KR_OK && loc == KR_DEVICE) s = kr_array_clone(&y, yh, KR_DEVICE, ctx);
    if (s == KR_OK) {
        kr_nufft_opts o;
        kr_nufft_opts_default(&o);
        o.dtype = t;
        o.eps = eps;
        s = kr_nufft_plan_create(&p, ctx, ndim, g, &o);
    }
    if (s == KR_OK) s = kr_nufft_set_points(p, t2);
    if (s == KR_OK) s = kr_nufft_adjoint(p, y ? y : yh, q);
    kr_nufft_plan_destroy(p);
    kr_array_destroy(t2);
    kr_array_destroy(yh);
    kr_array_destroy(y);
    return s;
}

static kr_status kri_toep_q_drft(const kr_ctx *ctx, const int64_t n[3], const kr_array *tv,
                                 const kr_array *wv, kr_array *q)
{
    kr_drft_plan *p = NULL;
    kr_drft_opts o;
    kr_drft_opts_default(&o);
    o.check_k = 0; /* the range was checked (closed interval; Q is periodic in k) */
    kr_status s = kr_drft_plan_create(&p, ctx, n, tv, wv->data ? wv : NULL, &o);
    if (s == KR_OK) s = kr_drft_q(p, q);
    kr_drft_plan_destroy(p);
    return s;
}

void kr_toeplitz_plan_destroy(kr_toeplitz_plan *t)
{
    if (!t) return;
    kr_array_destroy(t->qhat);
    kr_array_destroy(t->buf);
    kr_array_destroy(t->xin);
    kr_fft_plan_destroy(t->fwd);
    kr_fft_plan_destroy(t->bwd);
    kr_fft_plan_destroy(t->fwd1);
    kr_fft_plan_destroy(t->bwd1);
    kri_free(t);
}

kr_status kr_toeplitz_plan_create(kr_toeplitz_plan **out, const kr_ctx *ctx, const int64_t n[3],
                             const kr_array *traj, const kr_array *weights,
                             const kr_lsq_opts *opts)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    kr_lsq_opts o;
    KRI_TRY(kri_lsq_opts_resolve("kr_toeplitz_plan_create", opts, &o));
    if (o.qmethod != KR_LSQ_Q_NUFFT && o.qmethod != KR_LSQ_Q_DRFT)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_toeplitz_plan_create: unknown Q method %d",
                        (int)o.qmethod);
    kr_array tv, wv;
    memset(&wv, 0, sizeof wv);
    KRI_TRY(kri_lsq_check_inputs("kr_toeplitz_plan_create", ctx, n, traj, weights, o.dtype, &tv, &wv));
    double eps = o.eps > 0 ? o.eps : (o.dtype == KR_C64 ? 1e-4 : 1e-9);
    kr_toeplitz_plan *t = NULL;
    KRI_TRY(kri_alloc((void **)&t, sizeof *t, "Toeplitz plan"));
    memset(t, 0, sizeof *t);
    t->ctx = ctx;
    t->t = o.dtype;
    t->loc = kri_ctx_loc(ctx);
    t->batch = o.batch;
    for (int a = 0; a < 3; a++) t->n[a] = n[a], t->g[a] = n[a] > 1 ? 2 * n[a] : 1;
    t->N = n[0] * n[1] * n[2];
    t->G = t->g[0] * t->g[1] * t->g[2];
    int64_t bd[4] = {t->g[0], t->g[1], t->g[2], t->batch};
    kr_status s = kri_backend_pick(&t->be, t->loc, &kri_toep_cpu, &kri_toep_cuda, "Toeplitz");
    if (s == KR_OK) s = kr_array_create(&t->qhat, t->t, 3, t->g, t->loc, ctx);
    if (s == KR_OK)
        s = o.qmethod == KR_LSQ_Q_DRFT
                ? kri_toep_q_drft(ctx, n, &tv, &wv, t->qhat)
                : kri_toep_q_nufft(ctx, n, t->g, &tv, weights ? &wv : NULL, t->t, eps, t->qhat);
    if (s == KR_OK) s = kr_ifftshift(ctx, t->qhat, t->qhat, 0);
    if (s == KR_OK) s = kr_fft(ctx, t->qhat, t->qhat, 0, KR_FFT_FORWARD, 0);
    if (s == KR_OK) s = kr_vec_scale(ctx, t->qhat, 1.0 / (double)t->G, 0.0);
    if (s == KR_OK) s = kr_array_create(&t->buf, t->t, 4, bd, t->loc, ctx);
    if (s == KR_OK) s = kr_array_create(&t->xin, t->t, 3, t->n, t->loc, ctx);
    if (s == KR_OK)
        s = kr_fft_plan_create(&t->fwd, ctx, t->t, 4, bd, 7u, KR_FFT_FORWARD, 0, t->loc);
    if (s == KR_OK)
        s = kr_fft_plan_create(&t->bwd, ctx, t->t, 4, bd, 7u, KR_FFT_BACKWARD, 0, t->loc);
    if (s == KR_OK && t->batch > 1)
        s = kr_fft_plan_create(&t->fwd1, ctx, t->t, 3, t->g, 7u, KR_FFT_FORWARD, 0, t->loc);
    if (s == KR_OK && t->batch > 1)
        s = kr_fft_plan_create(&t->bwd1, ctx, t->t, 3, t->g, 7u, KR_FFT_BACKWARD, 0, t->loc);
    if (s != KR_OK) {
        kr_toeplitz_plan_destroy(t);
        return s;
    }
    *out = t;
    return KR_OK;
}

/* Check an image array [n0, n1, n2, B...] against the plan; *nb gets B. */
static kr_status kri_toep_check_img(const kr_toeplitz_plan *t, const kr_array *a, const char *fn,
                                    const char *what, int64_t *nb)
{
    KRI_TRY(kri_check_operand(fn, what, a, t->t, t->loc));
    for (int i = 0; i < 3; i++) {
        int64_t d = i < a->ndim ? a->dims[i] : 1;
        if (d != t->n[i]) {
            char b[160];
            return kri_fail(KR_ERR_DIM, "%s: %s has dims %s, the plan's image is %lldx%lldx%lld",
                            fn, what, kr_dims_string(a->ndim, a->dims, b, sizeof b),
                            (long long)t->n[0], (long long)t->n[1], (long long)t->n[2]);
        }
    }
    *nb = kr_array_numel(a) / t->N;
    return KR_OK;
}

static kr_status kri_toep_fft(kr_toeplitz_plan *t, int64_t nb, int fwd)
{
    kr_array v;
    int64_t d[4] = {t->g[0], t->g[1], t->g[2], nb};
    KRI_TRY(kr_array_wrap(&v, t->t, nb > 1 ? 4 : 3, d, t->buf->data, t->loc));
    v.device = t->buf->device;
    kr_fft_plan *p = nb == t->batch ? (fwd ? t->fwd : t->bwd) : (fwd ? t->fwd1 : t->bwd1);
    return kr_fft_execute(p, &v, &v);
}

/* One chunk of nb images: in (nb images, or one image when maps) -> out. */
static kr_status kri_toep_chunk(kr_toeplitz_plan *t, int64_t nb, const void *in, const void *maps,
                                void *out, int acc)
{
    KRI_TRY(t->be->pad(t->ctx, t->t, t->n, t->g, nb, in, maps, t->buf->data));
    KRI_TRY(kri_toep_fft(t, nb, 1));
    KRI_TRY(t->be->mulq(t->ctx, t->t, t->G, nb, t->buf->data, t->qhat->data));
    KRI_TRY(kri_toep_fft(t, nb, 0));
    return t->be->crop(t->ctx, t->t, t->n, t->g, nb, t->buf->data, maps, out, acc);
}

kr_status kr_toeplitz_execute(kr_toeplitz_plan *t, const kr_array *in, kr_array *out)
{
    KRI_ARG_NOT_NULL(t);
    int64_t bi = 0, bo = 0;
    KRI_TRY(kri_toep_check_img(t, in, "kr_toeplitz_execute", "input", &bi));
    KRI_TRY(kri_toep_check_img(t, out, "kr_toeplitz_execute", "output", &bo));
    if (bi != bo)
        return kri_fail(KR_ERR_DIM, "kr_toeplitz_execute: input has %lld images, output %lld",
                        (long long)bi, (long long)bo);
    size_t es = kr_dtype_size(t->t), img = (size_t)t->N * es;
    for (int64_t b = 0; b < bi;) {
        int64_t nb = bi - b >= t->batch ? t->batch : 1;
        KRI_TRY(kri_toep_chunk(t, nb, (const char *)in->data + (size_t)b * img, NULL,
                               (char *)out->data + (size_t)b * img, 0));
        b += nb;
    }
    return KR_OK;
}

kr_status kr_toeplitz_execute_maps(kr_toeplitz_plan *t, const kr_array *maps, const kr_array *in,
                                 kr_array *out)
{
    KRI_ARG_NOT_NULL(t);
    int64_t nc = 0, bi = 0, bo = 0;
    KRI_TRY(kri_toep_check_img(t, maps, "kr_toeplitz_execute_maps", "maps", &nc));
    KRI_TRY(kri_toep_check_img(t, in, "kr_toeplitz_execute_maps", "input", &bi));
    KRI_TRY(kri_toep_check_img(t, out, "kr_toeplitz_execute_maps", "output", &bo));
    if (bi != 1 || bo != 1)
        return kri_fail(KR_ERR_DIM,
                        "kr_toeplitz_execute_maps: input and output must be one image each (got "
                        "%lld and %lld)",
                        (long long)bi, (long long)bo);
    size_t img = (size_t)t->N * kr_dtype_size(t->t);
    const void *src = in->data;
    if (in->data == out->data && nc > t->batch) {
        KRI_TRY(kr_array_copy(t->xin, in, t->ctx));
        src = t->xin->data;
    }
    for (int64_t c = 0; c < nc;) {
        int64_t nb = nc - c >= t->batch ? t->batch : 1;
        KRI_TRY(kri_toep_chunk(t, nb, src, (const char *)maps->data + (size_t)c * img,
                               out->data, c > 0));
        c += nb;
    }
    return KR_OK;
}

kr_status kr_toeplitz_q(const kr_toeplitz_plan *t, kr_array *q)
{
    KRI_ARG_NOT_NULL(t);
    KRI_TRY(kri_check_operand_dims("kr_toeplitz_q", "q", q, t->t, t->loc, 3, t->g));
    KRI_TRY(kr_array_copy(q, t->qhat, t->ctx));
    KRI_TRY(kr_fft(t->ctx, q, q, 0, KR_FFT_BACKWARD, 0));
    return kr_fftshift(t->ctx, q, q, 0);
}

/* ---- linop ------------------------------------------------------------------------------- */
static kr_status kri_toep_op_apply(void *d, const kr_array *in, kr_array *out)
{
    return kr_toeplitz_execute((kr_toeplitz_plan *)d, in, out);
}

static void kri_toep_op_free(void *d) { kr_toeplitz_plan_destroy((kr_toeplitz_plan *)d); }

kr_status kr_toeplitz_linop_create(kr_linop **op, kr_toeplitz_plan *t, int64_t batch)
{
    KRI_ARG_NOT_NULL(op);
    *op = NULL;
    KRI_ARG_NOT_NULL(t);
    if (batch < 1)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_toeplitz_linop_create: batch %lld must be >= 1",
                        (long long)batch);
    kr_linop_def d;
    memset(&d, 0, sizeof d);
    d.name = "toeplitz";
    d.dtype = t->t;
    d.loc = t->loc;
    d.in_ndim = d.out_ndim = batch > 1 ? 4 : 3;
    for (int i = 0; i < 3; i++) d.in_dims[i] = d.out_dims[i] = t->n[i];
    d.in_dims[3] = d.out_dims[3] = batch;
    d.forward = d.adjoint = kri_toep_op_apply;
    d.destroy = kri_toep_op_free;
    d.data = t;
    return kr_linop_create(op, t->ctx, &d);
}
