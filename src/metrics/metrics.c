/* Image-quality metrics: argument validation, the closed-form definitions on top of one
 * statistics pass, SSIM normalisation; the passes themselves are the backend table's of the
 * arrays' location (metrics_internal.h). */
#include "metrics_internal.h"

#include <math.h>
#include <stdio.h>

/* The operand check, after what it cannot see: a valid element type, shape and location. */
static kr_status kri_metrics_check_one(const kr_array *a, const char *fn, const char *name)
{
    if (a) {
        if (kr_dtype_size(a->dtype) == 0)
            return kri_fail(KR_ERR_DTYPE, "%s: %s has an invalid element type (%d)", fn, name,
                            (int)a->dtype);
        kr_status s = kr_dims_check(a->ndim, a->dims, name);
        if (s != KR_OK) return kri_fail_prefix(s, "%s", fn);
        if (a->loc != KR_HOST && a->loc != KR_DEVICE)
            return kri_fail(KR_ERR_INVALID_ARG, "%s: %s has an invalid location %d", fn, name,
                            (int)a->loc);
    }
    return kri_check_operand(fn, name, a, KRI_ANY_DTYPE, KRI_ANY_LOC);
}

static int kri_metrics_same_dims(const kr_array *a, const kr_array *b)
{
    int n = a->ndim > b->ndim ? a->ndim : b->ndim;
    for (int i = 0; i < n; i++) {
        int64_t da = i < a->ndim ? a->dims[i] : 1, db = i < b->ndim ? b->dims[i] : 1;
        if (da != db) return 0;
    }
    return 1;
}

/* Both arrays valid, of one shape (dtypes may differ), on one side; device arrays need a CUDA
 * context on their device. Host arrays are measured on the CPU whatever the backend. */
static kr_status kri_metrics_check(const kr_ctx *ctx, const kr_array *x, const kr_array *ref,
                                   const char *fn)
{
    KRI_TRY(kri_metrics_check_one(x, fn, "x"));
    KRI_TRY(kri_metrics_check_one(ref, fn, "ref"));
    if (x->loc != ref->loc)
        return kri_fail(KR_ERR_LOCATION, "%s: x is in %s memory but ref is in %s memory", fn,
                        x->loc == KR_HOST ? "host" : "device",
                        ref->loc == KR_HOST ? "host" : "device");
    if (!kri_metrics_same_dims(x, ref)) {
        char a[160], b[160];
        return kri_fail(KR_ERR_DIM, "%s: x is %s but ref is %s", fn,
                        kr_dims_string(x->ndim, x->dims, a, sizeof a),
                        kr_dims_string(ref->ndim, ref->dims, b, sizeof b));
    }
    if (x->loc == KR_DEVICE) {
        kr_status s = kri_check_loc(ctx, KR_DEVICE, "x");
        if (s != KR_OK) return kri_fail_prefix(s, "%s", fn);
        if (x->device != ref->device)
            return kri_fail(KR_ERR_LOCATION, "%s: x is on CUDA device %d but ref on device %d", fn,
                            x->device, ref->device);
        if (x->device != kr_ctx_device(ctx))
            return kri_fail(KR_ERR_LOCATION, "%s: the arrays are on CUDA device %d but the context "
                            "uses device %d", fn, x->device, kr_ctx_device(ctx));
    }
    return KR_OK;
}

static kr_status kri_metrics_check_range(double range, const char *fn)
{
    if (!(range >= 0.0) || isinf(range))
        return kri_fail(KR_ERR_INVALID_ARG,
                        "%s: data range must be finite and >= 0 (0 = max(ref) - min(ref)), got %g",
                        fn, range);
    return KR_OK;
}

/* The table for the arrays' location: host arrays are measured on the CPU whatever the backend. */
static kr_status kri_metrics_pick(const kri_metrics_backend **be, const kr_array *x)
{
    return kri_backend_pick(be, x->loc, &kri_metrics_cpu, &kri_metrics_cuda,
                            "metrics on device arrays");
}

static kr_status kri_metrics_stats_run(const kr_ctx *ctx, const kr_array *x, const kr_array *ref,
                                       kri_metrics_stats *st)
{
    const kri_metrics_backend *be;
    KRI_TRY(kri_metrics_pick(&be, x));
    return be->stats(ctx, x, ref, st);
}

/* The data range L: `range` when > 0, else max(ref) - min(ref), which must be > 0. */
static kr_status kri_metrics_resolve_range(double range, const kri_metrics_stats *st,
                                           const char *fn, double *L)
{
    if (range > 0.0) {
        *L = range;
        return KR_OK;
    }
    double r = st->rmax - st->rmin;
    if (!(r > 0.0) || isinf(r))
        return kri_fail(KR_ERR_INVALID_ARG,
                        "%s: the data range from the reference is %g (min %g, max %g); pass an "
                        "explicit range > 0",
                        fn, r, st->rmin, st->rmax);
    *L = r;
    return KR_OK;
}

static double kri_metrics_mse(const kri_metrics_stats *st, int64_t n) { return st->sse / (double)n; }

static double kri_metrics_psnr(double mse, double L)
{
    if (mse == 0.0) return INFINITY;
    return 10.0 * log10((L * L) / mse);
}

static double kri_metrics_nrmse(const kri_metrics_stats *st, int64_t n)
{
    double mse = st->sse / (double)n, den = sqrt(st->sref2 / (double)n);
    if (den == 0.0) return mse == 0.0 ? 0.0 : (isnan(mse) ? NAN : INFINITY);
    return sqrt(mse) / den;
}

static double kri_metrics_maxerr(const kri_metrics_stats *st)
{
    return isnan(st->sse) ? NAN : st->maxerr;
}

/* SSIM slice geometry: [nx, ny] planes, every further dimension counts slices. */
static void kri_ssim_shape(const kr_array *x, int64_t *nx, int64_t *ny, int64_t *ns)
{
    *nx = x->dims[0];
    *ny = x->ndim > 1 ? x->dims[1] : 1;
    *ns = 1;
    for (int i = 2; i < x->ndim; i++) *ns *= x->dims[i];
}

static int kri_ssim_fits(const kr_array *x)
{
    int64_t nx, ny, ns;
    kri_ssim_shape(x, &nx, &ny, &ns);
    return nx >= KRI_SSIM_WIN && ny >= KRI_SSIM_WIN;
}

static kr_status kri_ssim_run(const kr_ctx *ctx, const kr_array *x, const kr_array *ref, double L,
                              double *out)
{
    int64_t nx, ny, ns;
    kri_ssim_shape(x, &nx, &ny, &ns);
    double c1 = (KRI_SSIM_K1 * L) * (KRI_SSIM_K1 * L), c2 = (KRI_SSIM_K2 * L) * (KRI_SSIM_K2 * L);
    double sum = 0.0;
    const kri_metrics_backend *be;
    KRI_TRY(kri_metrics_pick(&be, x));
    KRI_TRY(be->ssim_sum(ctx, x, ref, nx, ny, ns, c1, c2, &sum));
    double count = (double)(nx - 2 * KRI_SSIM_RADIUS) * (double)(ny - 2 * KRI_SSIM_RADIUS) *
                   (double)ns;
    *out = sum / count;
    return KR_OK;
}

/* ---- public API ---------------------------------------------------------------------------- */
typedef enum { KRI_METRIC_MSE, KRI_METRIC_PSNR, KRI_METRIC_NRMSE, KRI_METRIC_MAXERR } kri_metric;

/* One metric of the statistics pass; *out is NaN unless it succeeds. */
static kr_status kri_metric_one(const kr_ctx *ctx, const kr_array *x, const kr_array *ref,
                                double range, kri_metric which, const char *fn, double *out)
{
    if (!out) return kri_fail(KR_ERR_INVALID_ARG, "%s: argument 'out' is NULL", fn);
    *out = NAN;
    KRI_TRY(kri_metrics_check(ctx, x, ref, fn));
    if (which == KRI_METRIC_PSNR) KRI_TRY(kri_metrics_check_range(range, fn));
    kri_metrics_stats st;
    KRI_TRY(kri_metrics_stats_run(ctx, x, ref, &st));
    const int64_t n = kr_array_numel(x);
    double L = 0.0;
    switch (which) {
    case KRI_METRIC_MSE: *out = kri_metrics_mse(&st, n); break;
    case KRI_METRIC_PSNR:
        KRI_TRY(kri_metrics_resolve_range(range, &st, fn, &L));
        *out = kri_metrics_psnr(kri_metrics_mse(&st, n), L);
        break;
    case KRI_METRIC_NRMSE: *out = kri_metrics_nrmse(&st, n); break;
    case KRI_METRIC_MAXERR: *out = kri_metrics_maxerr(&st); break;
    }
    return KR_OK;
}

kr_status kr_mse(const kr_ctx *ctx, const kr_array *x, const kr_array *ref, double *out)
{
    return kri_metric_one(ctx, x, ref, 0.0, KRI_METRIC_MSE, "kr_mse", out);
}

kr_status kr_psnr(const kr_ctx *ctx, const kr_array *x, const kr_array *ref, double range,
                  double *out)
{
    return kri_metric_one(ctx, x, ref, range, KRI_METRIC_PSNR, "kr_psnr", out);
}

kr_status kr_nrmse(const kr_ctx *ctx, const kr_array *x, const kr_array *ref, double *out)
{
    return kri_metric_one(ctx, x, ref, 0.0, KRI_METRIC_NRMSE, "kr_nrmse", out);
}

kr_status kr_maxerr(const kr_ctx *ctx, const kr_array *x, const kr_array *ref, double *out)
{
    return kri_metric_one(ctx, x, ref, 0.0, KRI_METRIC_MAXERR, "kr_maxerr", out);
}

kr_status kr_ssim(const kr_ctx *ctx, const kr_array *x, const kr_array *ref, double range,
                  double *out)
{
    KRI_ARG_NOT_NULL(out);
    *out = NAN;
    KRI_TRY(kri_metrics_check(ctx, x, ref, __func__));
    KRI_TRY(kri_metrics_check_range(range, __func__));
    if (!kri_ssim_fits(x)) {
        char d[160];
        return kri_fail(KR_ERR_DIM,
                        "kr_ssim: images are %s but SSIM needs at least %dx%d pixels in dims 0 "
                        "and 1 (its Gaussian window has %d taps)",
                        kr_dims_string(x->ndim, x->dims, d, sizeof d), KRI_SSIM_WIN, KRI_SSIM_WIN,
                        KRI_SSIM_WIN);
    }
    double L = range;
    if (range == 0.0) {
        kri_metrics_stats st;
        KRI_TRY(kri_metrics_stats_run(ctx, x, ref, &st));
        KRI_TRY(kri_metrics_resolve_range(range, &st, __func__, &L));
    }
    return kri_ssim_run(ctx, x, ref, L, out);
}

kr_status kr_metrics_compute(const kr_ctx *ctx, const kr_array *x, const kr_array *ref,
                             double range, kr_metrics *out)
{
    KRI_ARG_NOT_NULL(out);
    out->mse = out->psnr = out->ssim = out->nrmse = out->maxerr = out->range = NAN;
    KRI_TRY(kri_metrics_check(ctx, x, ref, __func__));
    KRI_TRY(kri_metrics_check_range(range, __func__));
    kri_metrics_stats st;
    KRI_TRY(kri_metrics_stats_run(ctx, x, ref, &st));
    double L = 0.0;
    KRI_TRY(kri_metrics_resolve_range(range, &st, __func__, &L));
    int64_t n = kr_array_numel(x);
    double mse = kri_metrics_mse(&st, n), ssim = NAN;
    if (kri_ssim_fits(x)) KRI_TRY(kri_ssim_run(ctx, x, ref, L, &ssim));
    out->mse = mse;
    out->psnr = kri_metrics_psnr(mse, L);
    out->nrmse = kri_metrics_nrmse(&st, n);
    out->maxerr = kri_metrics_maxerr(&st);
    out->ssim = ssim;
    out->range = L;
    return KR_OK;
}
