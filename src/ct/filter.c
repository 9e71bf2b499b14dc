/* Ramp filters, the front: names, kernels and responses (computed in double), validation, the
 * plan's tables and the dispatch to its backend (filter_internal.h). See kray/fbp.h for the
 * definitions. */
#include "ct/filter_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- names ------------------------------------------------------------------------------- */
static const char *const kri_method_names[KR_FILTER_METHOD_COUNT] = {"fft", "direct", "seed"};
static const char *const kri_window_names[KR_WINDOW_COUNT] = {"ramlak", "shepp-logan", "cosine",
                                                              "hamming", "hann"};

const char *kr_filter_method_name(kr_filter_method m)
{
    return (unsigned)m < KR_FILTER_METHOD_COUNT ? kri_method_names[m] : "invalid";
}

kr_status kr_filter_method_from_name(const char *s, kr_filter_method *m)
{
    KRI_ARG_NOT_NULL(s);
    KRI_ARG_NOT_NULL(m);
    for (int i = 0; i < KR_FILTER_METHOD_COUNT; i++)
        if (strcmp(s, kri_method_names[i]) == 0) {
            *m = (kr_filter_method)i;
            return KR_OK;
        }
    return kri_fail(KR_ERR_INVALID_ARG, "unknown filter method '%s' (expected fft, direct or seed)",
                    s);
}

const char *kr_filter_window_name(kr_filter_window w)
{
    return (unsigned)w < KR_WINDOW_COUNT ? kri_window_names[w] : "invalid";
}

kr_status kr_filter_window_from_name(const char *s, kr_filter_window *w)
{
    KRI_ARG_NOT_NULL(s);
    KRI_ARG_NOT_NULL(w);
    if (strcmp(s, "ramp") == 0 || strcmp(s, "ram-lak") == 0) {
        *w = KR_WINDOW_RAMLAK;
        return KR_OK;
    }
    for (int i = 0; i < KR_WINDOW_COUNT; i++)
        if (strcmp(s, kri_window_names[i]) == 0) {
            *w = (kr_filter_window)i;
            return KR_OK;
        }
    return kri_fail(KR_ERR_INVALID_ARG,
                    "unknown filter window '%s' (expected ramlak, shepp-logan, cosine, hamming "
                    "or hann)",
                    s);
}

void kr_filter_opts_default(kr_filter_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->method = KR_FILTER_FFT;
    o->window = KR_WINDOW_RAMLAK;
    o->cutoff = 1.0;
    o->tau_mm = 1.0;
    o->scale = 1.0;
    o->dtype = KR_F32;
}

/* ---- kernels and responses ----------------------------------------------------------------- */
/* Band-limited Ram-Lak kernel with tau = 1: 1/4, 0 (even), -1/(n^2 pi^2) (odd). */
static double kri_ramlak1(int64_t n)
{
    if (n < 0) n = -n;
    if (n == 0) return 0.25;
    if (n % 2 == 0) return 0.0;
    return -1.0 / ((double)n * (double)n * M_PI * M_PI);
}

static double kri_seed1(int64_t n) { return -1.0 / (4.0 * (double)n * (double)n - 1.0); }

/* (n a / sin(n a))^2, 1 at n = 0. */
static double kri_equi_mod(int64_t n, double a)
{
    if (n == 0 || a <= 0) return 1.0;
    double t = (double)n * a;
    double r = t / sin(t);
    return r * r;
}

static double kri_window(kr_filter_window w, double nu, double c)
{
    if (nu > c) return 0.0;
    double x = nu / c;
    switch (w) {
    case KR_WINDOW_RAMLAK: return 1.0;
    case KR_WINDOW_SHEPP_LOGAN: {
        double t = 0.5 * M_PI * x;
        return t == 0 ? 1.0 : sin(t) / t;
    }
    case KR_WINDOW_COSINE: return cos(0.5 * M_PI * x);
    case KR_WINDOW_HAMMING: return 0.54 + 0.46 * cos(M_PI * x);
    case KR_WINDOW_HANN: return 0.5 + 0.5 * cos(M_PI * x);
    default: return 0.0;
    }
}

static kr_status kri_validate_opts(const kr_filter_opts *o, int64_t ndet, int64_t nrows)
{
    if (ndet < 1 || nrows < 1)
        return kri_fail(KR_ERR_DIM, "filter: rows of %lld samples x %lld rows; both must be >= 1",
                        (long long)ndet, (long long)nrows);
    int64_t tot;
    if (!kri_mul_ok(ndet, nrows, &tot) || tot > KR_MAX_ELEMENTS || ndet > (1 << 28))
        return kri_fail(KR_ERR_DIM, "filter: %lld x %lld samples is too large", (long long)ndet,
                        (long long)nrows);
    if ((unsigned)o->method >= KR_FILTER_METHOD_COUNT)
        return kri_fail(KR_ERR_INVALID_ARG, "filter: invalid method %d", (int)o->method);
    if ((unsigned)o->window >= KR_WINDOW_COUNT)
        return kri_fail(KR_ERR_INVALID_ARG, "filter: invalid window %d", (int)o->window);
    if (!(o->cutoff > 0.0 && o->cutoff <= 1.0))
        return kri_fail(KR_ERR_INVALID_ARG,
                        "filter: cutoff %g is outside (0, 1] (fraction of Nyquist)", o->cutoff);
    if (!(o->tau_mm > 0.0) || !isfinite(o->tau_mm))
        return kri_fail(KR_ERR_INVALID_ARG, "filter: detector spacing tau_mm = %g must be > 0",
                        o->tau_mm);
    if (!isfinite(o->scale))
        return kri_fail(KR_ERR_INVALID_ARG, "filter: scale %g is not finite", o->scale);
    if (o->dtype != KR_F32 && o->dtype != KR_F64)
        return kri_fail(KR_ERR_DTYPE, "filter: dtype %s not supported (f32 or f64)",
                        kr_dtype_name(o->dtype));
    if (o->method != KR_FILTER_FFT && (o->window != KR_WINDOW_RAMLAK || o->cutoff != 1.0))
        return kri_fail(KR_ERR_INVALID_ARG,
                        "filter: window %s with cutoff %g needs the fft method (the %s method "
                        "convolves with a fixed spatial kernel)",
                        kr_filter_window_name(o->window), o->cutoff,
                        kr_filter_method_name(o->method));
    if (o->fuse < -1 || o->fuse > 1)
        return kri_fail(KR_ERR_INVALID_ARG, "filter: fuse is %d (expected -1, 0 or 1)", o->fuse);
    if (!(o->equiangular_rad >= 0.0) || !isfinite(o->equiangular_rad))
        return kri_fail(KR_ERR_INVALID_ARG, "filter: equiangular_rad %g must be >= 0",
                        o->equiangular_rad);
    if (o->equiangular_rad > 0 && (double)(ndet - 1) * o->equiangular_rad >= 0.5 * M_PI)
        return kri_fail(KR_ERR_GEOMETRY,
                        "filter: equiangular detector of %lld pixels at %g rad spans %g degrees; "
                        "the fan must be narrower than 90 degrees",
                        (long long)ndet, o->equiangular_rad,
                        (double)(ndet - 1) * o->equiangular_rad * 180.0 / M_PI);
    if (o->method == KR_FILTER_SEED && o->equiangular_rad > 0)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "filter: the seed kernel is for parallel or flat detectors, not "
                        "equiangular ones");
    if (o->pad_len != 0 && o->method == KR_FILTER_FFT &&
        (o->pad_len < 2 * ndet || o->pad_len > ((int64_t)1 << 30)))
        return kri_fail(KR_ERR_INVALID_ARG,
                        "filter: pad_len %lld must be >= 2 * ndet = %lld (and <= 2^30)",
                        (long long)o->pad_len, (long long)(2 * ndet));
    if (o->pre_weight && o->pre_rows < 1)
        return kri_fail(KR_ERR_INVALID_ARG, "filter: pre_rows %lld must be >= 1 with a pre_weight",
                        (long long)o->pre_rows);
    if (o->row_scale && o->row_scale_count < 1)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "filter: row_scale_count %lld must be >= 1 with a row_scale",
                        (long long)o->row_scale_count);
    if (o->pre_row_div < 0 || o->row_scale_div < 0)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "filter: pre_row_div %lld / row_scale_div %lld must "
                        "be >= 0",
                        (long long)o->pre_row_div, (long long)o->row_scale_div);
    return KR_OK;
}

/* Effective kernel scale * tau * h(n) of the direct methods at lag n. */
static double kri_direct_kernel(const kr_filter_opts *o, int64_t n)
{
    if (o->method == KR_FILTER_SEED) {
        double f = o->seed_raw ? o->scale : o->scale * 2.0 / (M_PI * M_PI * o->tau_mm);
        return f * kri_seed1(n);
    }
    return o->scale / o->tau_mm * kri_ramlak1(n) * kri_equi_mod(n, o->equiangular_rad);
}

/* In-place DFT of a complex double vector of length L on the host. */
static kr_status kri_host_dft(double *c, int64_t L, kr_fft_dir dir)
{
    kr_array a;
    int64_t dims[1] = {L};
    KRI_TRY(kr_array_wrap(&a, KR_C128, 1, dims, c, KR_HOST));
    return kr_fft(NULL, &a, &a, 1u, dir, 0);
}

/* Response of an FFT plan at the L bins (incl. 1/L) and its kernel lags 0..ndet-1. */
static kr_status kri_build_response(kr_filter_plan *p)
{
    const kr_filter_opts *o = &p->o;
    int64_t L = p->L, N = p->ndet;
    double *c;
    KRI_TRY(kri_alloc((void **)&c, (size_t)L * 2 * sizeof(double), "filter response"));
    /* DFT of the band-limited kernel over all L lags (lag L/2 once for even L). */
    for (int64_t n = 0; n < L; n++) {
        int64_t lag = n <= L / 2 ? n : n - L;
        c[2 * n] = o->scale / o->tau_mm * kri_ramlak1(lag);
        c[2 * n + 1] = 0.0;
    }
    kr_status s = kri_host_dft(c, L, KR_FFT_FORWARD);
    if (s != KR_OK) goto done;
    for (int64_t k = 0; k < L; k++) {
        int64_t kk = k <= L - k ? k : L - k;
        double nu = 2.0 * (double)kk / (double)L;
        c[2 * k] *= kri_window(o->window, nu, o->cutoff);
        c[2 * k + 1] = 0.0;
    }
    /* Back to lags: the kernel the convolution uses (only lags |n| < ndet reach the output). */
    s = kri_host_dft(c, L, KR_FFT_BACKWARD);
    if (s != KR_OK) goto done;
    for (int64_t n = 0; n < L; n++) {
        int64_t lag = n <= L / 2 ? n : n - L;
        int64_t al = lag < 0 ? -lag : lag;
        double v = c[2 * n] / (double)L;
        if (al >= N)
            v = 0.0; /* never reaches the output; zero keeps the response clean */
        else
            v *= kri_equi_mod(al, o->equiangular_rad);
        c[2 * n] = v;
        c[2 * n + 1] = 0.0;
    }
    for (int64_t n = 0; n < N; n++) p->kern[n] = c[2 * n];
    s = kri_host_dft(c, L, KR_FFT_FORWARD);
    if (s != KR_OK) goto done;
    for (int64_t k = 0; k < L; k++) p->resp[k] = c[2 * k] / (double)L;
done:
    kri_free(c);
    return s;
}

/* ---- plan ---------------------------------------------------------------------------------- */
void kr_filter_plan_destroy(kr_filter_plan *p)
{
    if (!p) return;
    if (p->be) p->be->destroy(p->st);
    kri_free(p->kern);
    kri_free(p->resp);
    kri_free(p->pre);
    kri_free(p->rs);
    kri_free(p);
}

kr_status kr_filter_plan_create(kr_filter_plan **plan, const kr_ctx *ctx, int64_t ndet,
                                int64_t nrows, const kr_filter_opts *o)
{
    KRI_ARG_NOT_NULL(plan);
    *plan = NULL;
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(o);
    KRI_TRY(kri_validate_opts(o, ndet, nrows));
    for (int64_t i = 0; o->pre_weight && i < ndet * o->pre_rows; i++)
        if (!isfinite(o->pre_weight[i]))
            return kri_fail(KR_ERR_INVALID_ARG, "filter: pre_weight[%lld] is not finite",
                            (long long)i);
    for (int64_t i = 0; o->row_scale && i < o->row_scale_count; i++)
        if (!isfinite(o->row_scale[i]))
            return kri_fail(KR_ERR_INVALID_ARG, "filter: row_scale[%lld] is not finite",
                            (long long)i);
    const kri_filter_backend *be;
    KRI_TRY(kri_backend_pick(&be, kri_ctx_loc(ctx), &kri_filter_cpu, &kri_filter_cuda, "filter"));

    kr_filter_plan *p = kri_calloc(1, sizeof *p);
    if (!p) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a filter plan");
    p->ctx = ctx;
    p->loc = kri_ctx_loc(ctx);
    p->o = *o;
    p->ndet = ndet;
    p->nrows = nrows;
    p->npairs = (nrows + 1) / 2;
    p->pre_rows = o->pre_weight ? o->pre_rows : 0;
    p->rs_count = o->row_scale ? o->row_scale_count : 0;
    p->pre_div = o->pre_row_div > 0 ? o->pre_row_div : 1;
    p->rs_div = o->row_scale_div > 0 ? o->row_scale_div : 1;
    kr_status s = KR_OK;
#define KRI_CHECK(expr)                                                                            \
    do {                                                                                           \
        s = (expr);                                                                                \
        if (s != KR_OK) goto fail;                                                                 \
    } while (0)
    if (p->pre_rows) {
        KRI_CHECK(kri_alloc((void **)&p->pre, (size_t)(ndet * p->pre_rows) * sizeof(double),
                            "filter pre-weights"));
        memcpy(p->pre, o->pre_weight, (size_t)(ndet * p->pre_rows) * sizeof(double));
    }
    if (p->rs_count) {
        KRI_CHECK(
            kri_alloc((void **)&p->rs, (size_t)p->rs_count * sizeof(double), "filter row scales"));
        memcpy(p->rs, o->row_scale, (size_t)p->rs_count * sizeof(double));
    }
    p->o.pre_weight = p->pre;
    p->o.row_scale = p->rs;
    KRI_CHECK(kri_alloc((void **)&p->kern, (size_t)ndet * sizeof(double), "filter kernel"));
    if (o->method == KR_FILTER_FFT) {
        p->L = o->pad_len ? o->pad_len : kri_fft_good_size(2 * ndet);
        p->o.pad_len = p->L;
        KRI_CHECK(kri_alloc((void **)&p->resp, (size_t)p->L * sizeof(double), "filter response"));
        KRI_CHECK(kri_build_response(p));
    } else {
        for (int64_t n = 0; n < ndet; n++) p->kern[n] = kri_direct_kernel(&p->o, n);
    }
    KRI_CHECK(be->create(p, &p->st));
    p->be = be;
#undef KRI_CHECK
    *plan = p;
    return KR_OK;
fail:
    kr_filter_plan_destroy(p);
    return s;
}

int64_t kr_filter_pad_len(const kr_filter_plan *p) { return p ? p->L : 0; }

kr_status kr_filter_kernel(const kr_filter_plan *p, double *h, int64_t count)
{
    KRI_ARG_NOT_NULL(p);
    KRI_ARG_NOT_NULL(h);
    if (count < 0 || count > p->ndet)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_filter_kernel: count %lld is outside [0, %lld]",
                        (long long)count, (long long)p->ndet);
    memcpy(h, p->kern, (size_t)count * sizeof(double));
    return KR_OK;
}

kr_status kr_filter_response(const kr_filter_plan *p, double *resp, int64_t count)
{
    KRI_ARG_NOT_NULL(p);
    KRI_ARG_NOT_NULL(resp);
    if (p->L == 0)
        return kri_fail(KR_ERR_NOT_SUPPORTED,
                        "kr_filter_response: the %s method has no FFT "
                        "response",
                        kr_filter_method_name(p->o.method));
    if (count < 0 || count > p->L)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_filter_response: count %lld is outside [0, %lld]",
                        (long long)count, (long long)p->L);
    for (int64_t k = 0; k < count; k++) resp[k] = p->resp[k] * (double)p->L;
    return KR_OK;
}

/* ---- dispatch ------------------------------------------------------------------------------ */
void *kri_filter_packed_work(kr_filter_plan *p, int *pad_zero)
{
    *pad_zero = 0;
    return p->be->packed_work ? p->be->packed_work(p, p->st, pad_zero) : NULL;
}

kr_status kri_filter_run_packed(kr_filter_plan *p, void *out, int64_t out_stride,
                                kri_filter_out mode)
{
    if (!p->be->run_packed)
        return kri_fail(KR_ERR_INTERNAL, "filter: a %s plan has no packed input",
                        p->be->hdr.name);
    return p->be->run_packed(p, p->st, out, out_stride, mode);
}

kr_status kri_filter_run(kr_filter_plan *p, const void *in, int64_t in_stride, void *out,
                         int64_t out_stride, kri_filter_out mode)
{
    if (mode == KRI_FILTER_PLANAR && p->loc != KR_HOST)
        return kri_fail(KR_ERR_INTERNAL, "filter: the planar layout is for host plans only");
    return p->be->run(p, p->st, in, in_stride, out, out_stride, mode);
}

/* The one operand check of a filter input or output: the plan's dtype and location, contiguous,
 * dims[0] == ndet and ndet * nrows values in all. */
static kr_status kri_check_rows(const kr_filter_plan *p, const kr_array *a, const char *what)
{
    char d[96];
    KRI_TRY(kri_check_operand("kr_filter_execute", what, a, p->o.dtype, p->loc));
    if (a->dims[0] != p->ndet || kr_array_numel(a) != p->ndet * p->nrows)
        return kri_fail(KR_ERR_DIM,
                        "kr_filter_execute: %s has dims %s, the plan filters %lld rows of %lld",
                        what, kr_dims_string(a->ndim, a->dims, d, sizeof d), (long long)p->nrows,
                        (long long)p->ndet);
    return KR_OK;
}

kr_status kr_filter_execute(kr_filter_plan *p, const kr_array *in, kr_array *out)
{
    KRI_ARG_NOT_NULL(p);
    KRI_TRY(kri_check_rows(p, in, "the input"));
    KRI_TRY(kri_check_rows(p, out, "the output"));
    return kri_filter_run(p, in->data, p->ndet, out->data, p->ndet, KRI_FILTER_PLAIN);
}
