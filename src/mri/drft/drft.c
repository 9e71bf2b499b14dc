/* DrFT plan: trajectory preprocessing (k / n in double and 32-bit fixed point, basis and weight
 * factors), argument validation with exact statuses, and dispatch through the backend table
 * (drft_internal.h) picked by the location of the arrays. */
#include "mri/drft/drft_bench.h"
#include "mri/drft/drft_internal.h"
#include "mri/mri_internal.h"

#include <math.h>
#include <string.h>

struct kr_drft_plan {
    const kr_ctx *ctx;
    kr_drft_opts opts;
    int64_t n[3];
    int64_t m;
    int sdim;                     /* number of sample dims */
    int64_t sdims[KR_MAX_DIMS];   /* trajectory dims after the leading 3 */
    double *k64;                  /* 3 m */
    uint32_t *kf;                 /* 4 m */
    double *phi64, *adj64;        /* m: forward factor phi and adjoint factor W phi */
    double *w64;                  /* m: the weights (NULL = none) */
    double *basis64;              /* m: phi of the voxel basis */
    int symmetric;                /* linop form: both factors sqrt(W) phi */
    float *phi32, *adj32;
    const kri_drft_backend *be;   /* the backend that made dev (NULL: none yet) */
    kri_drft_dev *dev;            /* its copy of the sample data, made on first use */
    int dev_stale;                /* the factors changed since */
};

void kr_drft_opts_default(kr_drft_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->basis = KR_DRFT_BASIS_DIRAC;
    o->check_k = 1;
    o->check_data = 1;
    o->fast_sincos = 1;
    o->voxels_per_thread = 0;
}

void kr_drft_plan_destroy(kr_drft_plan *p)
{
    if (!p) return;
    if (p->be) p->be->release(p->dev);
    kri_free(p->k64);
    kri_free(p->kf);
    kri_free(p->phi64);
    kri_free(p->adj64);
    kri_free(p->w64);
    kri_free(p->basis64);
    kri_free(p->phi32);
    kri_free(p->adj32);
    kri_free(p);
}

static double kri_sinc(double u)
{
    if (fabs(u) < 1e-8) return 1.0 - (KRI_PI * u) * (KRI_PI * u) / 6.0;
    return sin(KRI_PI * u) / (KRI_PI * u);
}

/* A real array (f32 or f64, checked) on the host (copied from the device when needed) as
 * doubles. */
static kr_status kri_host_real(const kr_array *a, const kr_ctx *ctx, const char *what, double **out,
                               int64_t *count)
{
    kr_array *h = NULL;
    const kr_array *src = a;
    if (a->loc == KR_DEVICE) {
        KRI_TRY(kr_array_clone(&h, a, KR_HOST, ctx));
        src = h;
    }
    int64_t n = kr_array_numel(src);
    kr_status s = kri_alloc((void **)out, (size_t)n * sizeof(double), what);
    if (s == KR_OK)
        for (int64_t i = 0; i < n; i++) (*out)[i] = kr_array_get_f64(src, i);
    kr_array_destroy(h);
    *count = n;
    return s;
}

/* Per-sample factors from the basis and the weights: forward phi, adjoint W phi; in the
 * symmetric (linop) form both sqrt(W) phi. */
static void kri_drft_factors(kr_drft_plan *p)
{
    for (int64_t i = 0; i < p->m; i++) {
        double phi = p->basis64[i], w = p->w64 ? p->w64[i] : 1.0;
        double f = p->symmetric ? sqrt(w) * phi : phi, a = p->symmetric ? sqrt(w) * phi : w * phi;
        p->phi64[i] = f, p->phi32[i] = (float)f;
        p->adj64[i] = a, p->adj32[i] = (float)a;
    }
    p->dev_stale = 1;
}

kr_status kri_drft_plan_symmetric(kr_drft_plan *p)
{
    KRI_ARG_NOT_NULL(p);
    p->symmetric = 1;
    kri_drft_factors(p);
    return KR_OK;
}

kr_status kr_drft_set_weights(kr_drft_plan *p, const kr_array *w)
{
    KRI_ARG_NOT_NULL(p);
    double *wd = NULL;
    if (w) {
        int64_t n = 0;
        KRI_TRY(kri_check_operand("kr_drft_set_weights", "weights", w, KRI_ANY_DTYPE, KRI_ANY_LOC));
        if (w->dtype != KR_F32 && w->dtype != KR_F64)
            return kri_fail(KR_ERR_DTYPE, "kr_drft_set_weights: weights must be f32 or f64, got %s",
                            kr_dtype_name(w->dtype));
        int wr = kr_array_rank(w);
        int same = wr <= p->sdim;
        for (int i = 0; same && i < p->sdim; i++) same = (i < w->ndim ? w->dims[i] : 1) == p->sdims[i];
        if (!same) {
            char a[160], b[160];
            return kri_fail(KR_ERR_DIM, "weights have dims %s but the trajectory has %s samples",
                            kr_dims_string(w->ndim, w->dims, a, sizeof a),
                            kr_dims_string(p->sdim, p->sdims, b, sizeof b));
        }
        KRI_TRY(kri_host_real(w, p->ctx, "weights", &wd, &n));
        int any = 0;
        for (int64_t i = 0; i < n; i++) {
            if (!(wd[i] >= 0.0) || !isfinite(wd[i])) {
                double v = wd[i];
                kri_free(wd);
                return kri_fail(KR_ERR_INVALID_ARG, "weight %lld is %g; weights must be finite "
                                "and >= 0", (long long)i, v);
            }
            any |= wd[i] > 0.0;
        }
        if (!any) {
            kri_free(wd);
            return kri_fail(KR_ERR_INVALID_ARG, "all %lld weights are zero", (long long)n);
        }
    }
    kri_free(p->w64);
    p->w64 = wd;
    kri_drft_factors(p);
    return KR_OK;
}

kr_status kr_drft_plan_create(kr_drft_plan **plan, const kr_ctx *ctx, const int64_t n[3],
                              const kr_array *traj, const kr_array *weights,
                              const kr_drft_opts *opts)
{
    KRI_ARG_NOT_NULL(plan);
    *plan = NULL;
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(n);
    KRI_ARG_NOT_NULL(traj);
    for (int d = 0; d < 3; d++)
        if (n[d] < 1 || n[d] > ((int64_t)1 << 24))
            return kri_fail(KR_ERR_DIM, "kr_drft_plan_create: image size n[%d] = %lld outside "
                            "1..2^24", d, (long long)n[d]);
    if (n[0] * n[1] * n[2] > ((int64_t)1 << 34))
        return kri_fail(KR_ERR_DIM, "kr_drft_plan_create: image of %lldx%lldx%lld voxels is too "
                        "large", (long long)n[0], (long long)n[1], (long long)n[2]);
    kr_drft_opts o;
    if (opts) o = *opts;
    else kr_drft_opts_default(&o);
    if ((unsigned)o.basis > KR_DRFT_BASIS_BOX)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_drft_plan_create: unknown basis %d", (int)o.basis);
    if (o.voxels_per_thread != 0 && o.voxels_per_thread != 1 && o.voxels_per_thread != 2 &&
        o.voxels_per_thread != 4 && o.voxels_per_thread != 8)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_drft_plan_create: voxels_per_thread %d is not 0, "
                        "1, 2, 4 or 8", o.voxels_per_thread);
    int64_t m = 0;
    KRI_TRY(kri_traj_shape(traj, __func__, KRI_ANY_LOC, &m));
    /* host copy of the trajectory */
    kr_array *th = NULL;
    const kr_array *t = traj;
    if (traj->loc == KR_DEVICE) {
        KRI_TRY(kr_array_clone(&th, traj, KR_HOST, ctx));
        t = th;
    }
    kr_status s = kr_traj_check(t, o.check_k ? n : NULL);
    kr_drft_plan *p = NULL;
    if (s == KR_OK) {
        p = kri_calloc(1, sizeof *p);
        if (!p) s = kri_fail(KR_ERR_OOM_HOST, "out of host memory for a DrFT plan");
    }
    if (s == KR_OK) {
        p->ctx = ctx;
        p->opts = o;
        p->m = m;
        for (int d = 0; d < 3; d++) p->n[d] = n[d];
        p->sdim = t->ndim > 1 ? t->ndim - 1 : 1;
        for (int i = 0; i < p->sdim; i++) p->sdims[i] = t->ndim > 1 ? t->dims[i + 1] : 1;
        while (p->sdim > 1 && p->sdims[p->sdim - 1] == 1) p->sdim--;
        s = kri_alloc((void **)&p->k64, (size_t)m * 3 * sizeof(double), "DrFT trajectory");
        if (s == KR_OK) s = kri_alloc((void **)&p->kf, (size_t)m * 4 * sizeof(uint32_t), "DrFT trajectory");
        if (s == KR_OK) s = kri_alloc((void **)&p->phi64, (size_t)m * sizeof(double), "DrFT basis");
        if (s == KR_OK) s = kri_alloc((void **)&p->basis64, (size_t)m * sizeof(double), "DrFT basis");
        if (s == KR_OK) s = kri_alloc((void **)&p->adj64, (size_t)m * sizeof(double), "DrFT weights");
        if (s == KR_OK) s = kri_alloc((void **)&p->phi32, (size_t)m * sizeof(float), "DrFT basis");
        if (s == KR_OK) s = kri_alloc((void **)&p->adj32, (size_t)m * sizeof(float), "DrFT weights");
    }
    if (s == KR_OK) {
        for (int64_t i = 0; i < m; i++) {
            double k[3], phi = 1.0;
            kri_traj_get(t, i, k);
            for (int d = 0; d < 3; d++) {
                double f = k[d] / (double)n[d];
                p->k64[3 * i + d] = f;
                double fr = f - floor(f + 0.5); /* [-1/2, 1/2) */
                p->kf[4 * i + d] = (uint32_t)(int64_t)llround(fr * 4294967296.0);
                if (o.basis == KR_DRFT_BASIS_BOX && n[d] > 1) phi *= kri_sinc(f);
            }
            p->kf[4 * i + 3] = 0;
            p->basis64[i] = phi;
        }
        s = kr_drft_set_weights(p, weights);
    }
    kr_array_destroy(th);
    if (s != KR_OK) {
        kr_drft_plan_destroy(p);
        return s;
    }
    *plan = p;
    return KR_OK;
}

int64_t kr_drft_samples(const kr_drft_plan *p) { return p ? p->m : 0; }

int kr_drft_sample_dims(const kr_drft_plan *p, int64_t *dims)
{
    if (!p) return 0;
    if (dims)
        for (int i = 0; i < p->sdim; i++) dims[i] = p->sdims[i];
    return p->sdim;
}

/* ---- argument checks ---------------------------------------------------------------------------- */
/* The one operand check, then: complex (c64 or c128; `dtype` when not KRI_ANY_DTYPE) and on
 * the context's device. */
static kr_status kri_drft_check_array(const kr_drft_plan *p, const kr_array *a, kr_dtype dtype,
                                      const char *fn, const char *what)
{
    KRI_TRY(kri_check_operand(fn, what, a, dtype, kri_ctx_loc(p->ctx)));
    if (a->dtype != KR_C64 && a->dtype != KR_C128)
        return kri_fail(KR_ERR_DTYPE, "%s: %s must be c64 or c128, got %s", fn, what,
                        kr_dtype_name(a->dtype));
    if (a->loc == KR_DEVICE && a->device != kr_ctx_device(p->ctx))
        return kri_fail(KR_ERR_LOCATION, "%s: %s is on CUDA device %d but the context uses %d", fn,
                        what, a->device, kr_ctx_device(p->ctx));
    return KR_OK;
}

/* Image dims [g0, g1, g2, batch...]: returns the batch count. */
static kr_status kri_drft_image_batch(const kr_array *img, const int64_t g[3], const char *fn,
                                      const char *what, int64_t *batch)
{
    for (int d = 0; d < 3; d++) {
        int64_t have = d < img->ndim ? img->dims[d] : 1;
        if (have != g[d]) {
            char a[160];
            return kri_fail(KR_ERR_DIM, "%s: %s has dims %s; expected %lldx%lldx%lld followed by "
                            "batch dims", fn, what, kr_dims_string(img->ndim, img->dims, a, sizeof a),
                            (long long)g[0], (long long)g[1], (long long)g[2]);
        }
    }
    int64_t b = 1;
    for (int d = 3; d < img->ndim; d++) b *= img->dims[d];
    *batch = b;
    return KR_OK;
}

static kr_status kri_drft_ksp_batch(const kr_drft_plan *p, const kr_array *ksp, const char *fn,
                                    int64_t *batch)
{
    for (int d = 0; d < p->sdim; d++) {
        int64_t have = d < ksp->ndim ? ksp->dims[d] : 1;
        if (have != p->sdims[d]) {
            char a[160], b[160];
            return kri_fail(KR_ERR_DIM, "%s: k-space data has dims %s but the trajectory has %s "
                            "samples (%lld in all)", fn,
                            kr_dims_string(ksp->ndim, ksp->dims, a, sizeof a),
                            kr_dims_string(p->sdim, p->sdims, b, sizeof b), (long long)p->m);
        }
    }
    int64_t b = 1;
    for (int d = p->sdim; d < ksp->ndim; d++) b *= ksp->dims[d];
    *batch = b;
    return KR_OK;
}

static kr_status kri_drft_finite(const kr_drft_plan *p, const kr_array *a, const char *fn,
                                 const char *what)
{
    if (!p->opts.check_data) return KR_OK;
    int64_t n = 2 * kr_array_numel(a), bad = -1;
    kr_dtype rt = kr_dtype_real(a->dtype);
    KRI_TRY(kri_first_nonfinite(p->ctx, a->loc, rt, a->data, n, &bad));
    if (bad >= 0)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: %s value %lld is not finite (NaN or Inf)", fn,
                        what, (long long)(bad / 2));
    return KR_OK;
}

static kri_drft_data kri_drft_view(const kr_drft_plan *p)
{
    kri_drft_data d;
    d.m = p->m;
    d.k64 = p->k64;
    d.kf = p->kf;
    d.adj64 = p->adj64;
    d.fwd64 = p->phi64;
    d.adj32 = p->adj32;
    d.fwd32 = p->phi32;
    return d;
}

/* The backend for arrays at loc, with its copy of the sample data up to date. */
static kr_status kri_drft_ready(kr_drft_plan *p, kr_loc loc, const kri_drft_backend **be)
{
    KRI_TRY(kri_backend_pick(be, loc, &kri_drft_cpu, &kri_drft_cuda, "DrFT"));
    if (p->be == *be && !p->dev_stale) return KR_OK;
    if (p->be) p->be->release(p->dev);
    p->be = NULL;
    p->dev = NULL;
    kri_drft_data d = kri_drft_view(p);
    KRI_TRY((*be)->prepare(p->ctx, &d, &p->dev));
    p->be = *be;
    p->dev_stale = 0;
    return KR_OK;
}

/* Adjoint-type evaluation (data or Q) on grid g. */
static kr_status kri_drft_run_adjoint(kr_drft_plan *p, const kri_drft_grid *g, int mode,
                                      const kr_array *in, kr_array *out, int64_t batch)
{
    const kri_drft_backend *be;
    KRI_TRY(kri_drft_ready(p, out->loc, &be));
    kri_drft_data d = kri_drft_view(p);
    return be->adjoint(p->ctx, p->dev, &d, g, mode, out->dtype, in ? in->data : NULL, batch,
                       out->data, &p->opts);
}

/* The operands of a transform: the input (ksp for the adjoint, img for the forward) complex, the
 * output of its type, equal batches of k-space and image (*batch), a finite input. */
static kr_status kri_drft_check_pair(const kr_drft_plan *p, const char *fn, int adjoint,
                                     const kr_array *ksp, const kr_array *img, int64_t *batch)
{
    const kr_array *in = adjoint ? ksp : img, *out = adjoint ? img : ksp;
    KRI_TRY(kri_drft_check_array(p, in, KRI_ANY_DTYPE, fn, adjoint ? "ksp" : "img"));
    KRI_TRY(kri_drft_check_array(p, out, in->dtype, fn, adjoint ? "img" : "ksp"));
    int64_t bk = 0, bi = 0;
    KRI_TRY(kri_drft_ksp_batch(p, ksp, fn, &bk));
    KRI_TRY(kri_drft_image_batch(img, p->n, fn, "img", &bi));
    if (bk != bi)
        return kri_fail(KR_ERR_DIM, "%s: k-space holds %lld batch items but the image %lld", fn,
                        (long long)bk, (long long)bi);
    KRI_TRY(kri_drft_finite(p, in, fn, adjoint ? "k-space" : "image"));
    *batch = bk;
    return KR_OK;
}

/* The image grid: g = n, origin at n/2. */
static kri_drft_grid kri_drft_image_grid(const kr_drft_plan *p)
{
    kri_drft_grid g;
    for (int d = 0; d < 3; d++) g.n[d] = g.g[d] = p->n[d], g.o[d] = p->n[d] / 2;
    return g;
}

kr_status kr_drft_adjoint(kr_drft_plan *p, const kr_array *ksp, kr_array *img)
{
    KRI_ARG_NOT_NULL(p);
    int64_t batch = 0;
    KRI_TRY(kri_drft_check_pair(p, __func__, 1, ksp, img, &batch));
    kri_drft_grid g = kri_drft_image_grid(p);
    return kri_drft_run_adjoint(p, &g, KRI_DRFT_DATA, ksp, img, batch);
}

kr_status kr_drft_q(kr_drft_plan *p, kr_array *q)
{
    KRI_ARG_NOT_NULL(p);
    KRI_TRY(kri_drft_check_array(p, q, KRI_ANY_DTYPE, __func__, "q"));
    kri_drft_grid g;
    int two = 1, one = 1;
    for (int d = 0; d < 3; d++) {
        int64_t have = d < q->ndim ? q->dims[d] : 1;
        g.n[d] = p->n[d];
        one &= have == p->n[d];
        two &= have == (p->n[d] > 1 ? 2 * p->n[d] : 1);
    }
    if (kr_array_rank(q) > 3 || (!one && !two)) {
        char a[160];
        return kri_fail(KR_ERR_DIM, "kr_drft_q: q has dims %s; expected %lldx%lldx%lld or twice "
                        "that on the axes longer than 1", kr_dims_string(q->ndim, q->dims, a, sizeof a),
                        (long long)p->n[0], (long long)p->n[1], (long long)p->n[2]);
    }
    for (int d = 0; d < 3; d++) {
        g.g[d] = one ? p->n[d] : (p->n[d] > 1 ? 2 * p->n[d] : 1);
        g.o[d] = g.g[d] / 2;
    }
    return kri_drft_run_adjoint(p, &g, KRI_DRFT_Q, NULL, q, 1);
}

kr_status kr_drft_forward(kr_drft_plan *p, const kr_array *img, kr_array *ksp)
{
    KRI_ARG_NOT_NULL(p);
    int64_t batch = 0;
    KRI_TRY(kri_drft_check_pair(p, __func__, 0, ksp, img, &batch));
    kri_drft_grid g = kri_drft_image_grid(p);
    const kri_drft_backend *be;
    KRI_TRY(kri_drft_ready(p, ksp->loc, &be));
    kri_drft_data d = kri_drft_view(p);
    return be->forward(p->ctx, p->dev, &d, &g, ksp->dtype, img->data, batch, ksp->data, &p->opts);
}

/* ---- benchmark hook (drft_bench.h) --------------------------------------------------------------- */
kr_status kri_drft_bench(kr_drft_plan *p, int forward, kr_dtype dtype, int64_t batch, int reps,
                        int64_t check, double *seconds, double *rel_err)
{
    KRI_ARG_NOT_NULL(p);
    KRI_ARG_NOT_NULL(seconds);
    if (dtype != KR_C64 && dtype != KR_C128)
        return kri_fail(KR_ERR_DTYPE, "kri_drft_bench: dtype must be c64 or c128");
    if (batch < 1 || reps < 1 || check < 0)
        return kri_fail(KR_ERR_INVALID_ARG, "kri_drft_bench: batch %lld and reps %d must be >= 1, "
                        "check %lld >= 0", (long long)batch, reps, (long long)check);
    const int64_t nvox = p->n[0] * p->n[1] * p->n[2];
    int64_t idims[4] = {p->n[0], p->n[1], p->n[2], batch}, kdims[KR_MAX_DIMS];
    for (int i = 0; i < p->sdim; i++) kdims[i] = p->sdims[i];
    kdims[p->sdim] = batch;
    if (p->sdim + 1 > KR_MAX_DIMS)
        return kri_fail(KR_ERR_DIM, "kri_drft_bench: too many sample dims");
    kr_loc loc = kri_ctx_loc(p->ctx);
    kr_array *hin = NULL, *din = NULL, *dout = NULL, *hout = NULL;
    kr_status s = forward ? kr_array_create(&hin, dtype, 4, idims, KR_HOST, NULL)
                          : kr_array_create(&hin, dtype, p->sdim + 1, kdims, KR_HOST, NULL);
    if (s == KR_OK) {
        int64_t n = 2 * kr_array_numel(hin);
        for (int64_t i = 0; i < n; i++) {
            double v = kri_rand_sym(12345, (uint64_t)i);
            if (dtype == KR_C64) ((float *)hin->data)[i] = (float)v;
            else ((double *)hin->data)[i] = v;
        }
        s = forward ? kr_array_create(&dout, dtype, p->sdim + 1, kdims, loc, p->ctx)
                    : kr_array_create(&dout, dtype, 4, idims, loc, p->ctx);
    }
    if (s == KR_OK) s = kr_array_clone(&din, hin, loc, p->ctx);
    if (s == KR_OK) s = forward ? kr_drft_forward(p, din, dout) : kr_drft_adjoint(p, din, dout);
    double t0 = kr_time_now();
    for (int r = 0; s == KR_OK && r < reps; r++)
        s = forward ? kr_drft_forward(p, din, dout) : kr_drft_adjoint(p, din, dout);
    if (s == KR_OK && loc == KR_DEVICE) s = kri_device_synchronize(p->ctx);
    *seconds = (kr_time_now() - t0) / reps;
    if (rel_err) *rel_err = 0.0;
    if (s == KR_OK && check > 0 && rel_err) s = kr_array_clone(&hout, dout, KR_HOST, p->ctx);
    if (s == KR_OK && check > 0 && rel_err) {
        kri_drft_data d = kri_drft_view(p);
        kri_drft_grid g = kri_drft_image_grid(p);
        int64_t nin = 2 * kr_array_numel(hin) / batch, nout = forward ? p->m : nvox;
        double *x = NULL;
        s = kri_alloc((void **)&x, (size_t)nin * sizeof(double), "benchmark reference");
        double emax = 0.0, rmax = 0.0;
        for (int64_t i = 0; s == KR_OK && i < nin; i++)
            x[i] = dtype == KR_C64 ? (double)((float *)hin->data)[i] : ((double *)hin->data)[i];
        for (int64_t c = 0; s == KR_OK && c < check; c++) {
            int64_t o = (int64_t)((double)c * (double)nout / (double)check);
            double ref[2], got[2];
            if (forward) {
                kri_cpu_drft_forward_point(&d, &g, x, o, ref);
            } else {
                int64_t ix = o % g.g[0], iy = (o / g.g[0]) % g.g[1], iz = o / (g.g[0] * g.g[1]);
                kri_cpu_drft_adjoint_point(&d, &g, KRI_DRFT_DATA, x, ix, iy, iz, ref);
            }
            if (dtype == KR_C64)
                got[0] = ((float *)hout->data)[2 * o], got[1] = ((float *)hout->data)[2 * o + 1];
            else
                got[0] = ((double *)hout->data)[2 * o], got[1] = ((double *)hout->data)[2 * o + 1];
            emax = fmax(emax, hypot(got[0] - ref[0], got[1] - ref[1]));
            rmax = fmax(rmax, hypot(ref[0], ref[1]));
        }
        kri_free(x);
        *rel_err = rmax > 0.0 ? emax / rmax : emax;
    }
    kr_array_destroy(hin);
    kr_array_destroy(din);
    kr_array_destroy(dout);
    kr_array_destroy(hout);
    return s;
}
