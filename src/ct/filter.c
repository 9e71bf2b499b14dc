/* Ramp filters: plan (kernel, response, tables, buffers), validation, dispatch and the CPU twins.
 * See kray/fbp.h for the definitions. */
#include "fbp_internal.h"

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
/* Smallest 2^a 3^b 5^c >= n. */
static int64_t kri_good_size(int64_t n)
{
    for (int64_t m = n > 1 ? n : 1;; m++) {
        int64_t r = m;
        while (r % 2 == 0) r /= 2;
        while (r % 3 == 0) r /= 3;
        while (r % 5 == 0) r /= 5;
        if (r == 1) return m;
    }
}

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
    kr_fft_plan_destroy(p->fwd);
    kr_fft_plan_destroy(p->bwd);
    kr_ctx_destroy(p->serial);
    kri_free(p->kern);
    kri_free(p->resp);
    kri_free(p->pre);
    kri_free(p->rs);
    kri_free(p->work);
    kri_free(p->kern_t);
    kri_device_free(p->d_kern);
    kri_device_free(p->d_resp);
    kri_device_free(p->d_pre);
    kri_device_free(p->d_rs);
    kri_device_free(p->d_work);
    kri_device_free(p->d_plain);
    kri_device_free(p->d_in);
#ifdef KRAY_HAVE_CUDA
    kri_filter_cufft_destroy(p->cb);
#endif
    kri_free(p);
}

#ifdef KRAY_HAVE_CUDA
/* Copy a double table to the device in the plan's dtype. */
static kr_status kri_upload(kr_filter_plan *p, void **dst, const double *src, int64_t n,
                            const char *what)
{
    size_t es = kr_dtype_size(p->o.dtype);
    KRI_TRY(kri_device_alloc(dst, (size_t)n * es, kr_ctx_device(p->ctx), what));
    void *tmp;
    KRI_TRY(kri_alloc(&tmp, (size_t)n * es, what));
    if (p->o.dtype == KR_F32)
        for (int64_t i = 0; i < n; i++) ((float *)tmp)[i] = (float)src[i];
    else
        memcpy(tmp, src, (size_t)n * es);
    kr_status s = kri_memcpy(*dst, KR_DEVICE, tmp, KR_HOST, (size_t)n * es, p->ctx);
    kri_free(tmp);
    return s;
}
#endif

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

    kr_filter_plan *p = kri_calloc(1, sizeof *p);
    if (!p) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a filter plan");
    p->ctx = ctx;
    p->backend = kr_ctx_backend(ctx);
    p->loc = p->backend == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
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
        p->L = o->pad_len ? o->pad_len : kri_good_size(2 * ndet);
        p->o.pad_len = p->L;
        KRI_CHECK(kri_alloc((void **)&p->resp, (size_t)p->L * sizeof(double), "filter response"));
        KRI_CHECK(kri_build_response(p));
    } else {
        for (int64_t n = 0; n < ndet; n++) p->kern[n] = kri_direct_kernel(&p->o, n);
    }

    size_t es = kr_dtype_size(o->dtype);
    kr_dtype ct = kr_dtype_complex(o->dtype);
    int64_t wdims[2] = {p->L, p->npairs};
    if (p->loc == KR_HOST) {
        if (o->method == KR_FILTER_FFT) {
            /* Below ~2^21 complex samples the whole FFT filter takes about a millisecond on
             * one core; OpenMP regions would cost more than they save (results do not depend
             * on the thread count either way). */
            const kr_ctx *fctx = ctx;
            if (p->L * p->npairs < ((int64_t)1 << 21)) {
                KRI_CHECK(kr_ctx_create(&p->serial, KR_BACKEND_CPU_SERIAL));
                fctx = p->serial;
            }
            KRI_CHECK(kri_alloc(&p->work, (size_t)(p->L * p->npairs) * 2 * es, "filter work"));
            KRI_CHECK(
                kr_fft_plan_create(&p->fwd, fctx, ct, 2, wdims, 1u, KR_FFT_FORWARD, 0, KR_HOST));
            KRI_CHECK(
                kr_fft_plan_create(&p->bwd, fctx, ct, 2, wdims, 1u, KR_FFT_BACKWARD, 0, KR_HOST));
        } else {
            KRI_CHECK(kri_alloc(&p->work, (size_t)((2 * ndet + 2) * nrows) * es, "filter work"));
            KRI_CHECK(kri_alloc(&p->kern_t, (size_t)ndet * es, "filter kernel"));
            for (int64_t n = 0; n < ndet; n++) {
                if (o->dtype == KR_F32)
                    ((float *)p->kern_t)[n] = (float)p->kern[n];
                else
                    ((double *)p->kern_t)[n] = p->kern[n];
            }
        }
    } else {
#ifdef KRAY_HAVE_CUDA
        KRI_CHECK(kri_cuda_set_device(ctx));
        if (p->pre_rows)
            KRI_CHECK(kri_upload(p, &p->d_pre, p->pre, ndet * p->pre_rows, "filter pre-weights"));
        if (p->rs_count)
            KRI_CHECK(kri_upload(p, &p->d_rs, p->rs, p->rs_count, "filter row scales"));
        if (o->method == KR_FILTER_FFT) {
            KRI_CHECK(kri_upload(p, &p->d_resp, p->resp, p->L, "filter response"));
            KRI_CHECK(kri_device_alloc(&p->d_work, (size_t)(p->L * p->npairs) * 2 * es,
                                       kr_ctx_device(ctx), "filter work"));
            size_t ws = 0;
            KRI_CHECK(kri_filter_cufft_create(&p->cb, ctx, o->dtype == KR_F64, o->fuse, p->L,
                                              p->npairs, ndet, nrows, p->d_resp, &ws));
            /* out of place forward from an input whose zero padding is written once: packing
             * then writes ndet of L columns (the memory cuFFT's workspace would take) */
            if (p->cb && ws == 0) {
                const size_t wb = (size_t)(p->L * p->npairs) * 2 * es;
                KRI_CHECK(kri_device_alloc(&p->d_in, wb, kr_ctx_device(ctx), "filter input"));
                KRI_CHECK(kri_device_memset0(p->d_in, wb, ctx));
            }
            /* the plain transforms: both without the callbacks; with them the inverse one for
             * PAIRS output (all planning here, none in a run) */
            if (!p->cb)
                KRI_CHECK(kr_fft_plan_create(&p->fwd, ctx, ct, 2, wdims, 1u, KR_FFT_FORWARD, 0,
                                             KR_DEVICE));
            KRI_CHECK(
                kr_fft_plan_create(&p->bwd, ctx, ct, 2, wdims, 1u, KR_FFT_BACKWARD, 0, KR_DEVICE));
        } else {
            KRI_CHECK(kri_upload(p, &p->d_kern, p->kern, ndet, "filter kernel"));
            KRI_CHECK(kri_device_alloc(&p->d_plain, (size_t)((ndet + 2) * nrows) * es,
                                       kr_ctx_device(ctx), "filter work"));
        }
#else
        KRI_CHECK(kri_fail(KR_ERR_NO_DEVICE, "filter: kray was built without CUDA"));
#endif
    }
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

/* ---- CPU twins ----------------------------------------------------------------------------- */
static double kri_row_weight(const kr_filter_plan *p, int64_t r, int64_t m)
{
    double w = 1.0;
    if (p->pre) w = p->pre[m + p->ndet * ((r / p->pre_div) % p->pre_rows)];
    if (p->rs) w *= p->rs[(r / p->rs_div) % p->rs_count];
    return w;
}

/* Row r of the filtered output to the requested layout. q holds the filtered values at
 * positions 0 .. N (index * qs) and at position -1 (index ileft * qs). */
#define KRI_DEFINE_STORE(T)                                                                        \
    static inline T kri_at_##T(const T *q, int64_t qs, int64_t N, int64_t ileft, int64_t pos)      \
    {                                                                                              \
        if (pos >= 0 && pos <= N) return q[pos * qs];                                              \
        return pos == -1 ? q[ileft * qs] : (T)0;                                                   \
    }                                                                                              \
    static void kri_store_##T(const T *q, int64_t qs, int64_t N, int64_t ileft, T *out,            \
                              kri_filter_out mode)                                                 \
    {                                                                                              \
        if (mode == KRI_FILTER_PLAIN) {                                                            \
            for (int64_t m = 0; m < N; m++) out[m] = q[m * qs];                                    \
            return;                                                                                \
        }                                                                                          \
        for (int64_t j = 0; j < KRI_PAD_ROW(N); j++) {                                             \
            T va = kri_at_##T(q, qs, N, ileft, j - KRI_PAD);                                       \
            T vb = kri_at_##T(q, qs, N, ileft, j - KRI_PAD + 1);                                   \
            out[2 * j] = va;                                                                       \
            out[2 * j + 1] = vb - va;                                                              \
        }                                                                                          \
    }
KRI_DEFINE_STORE(float)
KRI_DEFINE_STORE(double)

#define KRI_DEFINE_CPU_FFT(T)                                                                      \
    static kr_status kri_cpu_filter_fft_##T(kr_filter_plan *p, const T *in, int64_t is, T *out,    \
                                            int64_t os, kri_filter_out mode, int nt)               \
    {                                                                                              \
        const int64_t N = p->ndet, L = p->L, R = p->nrows, P = p->npairs;                          \
        T *w = (T *)p->work;                                                                       \
        _Pragma("omp parallel for num_threads(nt) schedule(static)") for (int64_t pr = 0; pr < P;  \
                                                                          pr++)                    \
        {                                                                                          \
            T *c = w + 2 * L * pr;                                                                 \
            int64_t r0 = 2 * pr, r1 = 2 * pr + 1;                                                  \
            for (int64_t m = 0; m < N; m++) {                                                      \
                c[2 * m] = (T)((double)in[r0 * is + m] * kri_row_weight(p, r0, m));                \
                c[2 * m + 1] =                                                                     \
                    r1 < R ? (T)((double)in[r1 * is + m] * kri_row_weight(p, r1, m)) : (T)0;       \
            }                                                                                      \
            for (int64_t m = 2 * N; m < 2 * L; m++) c[m] = (T)0;                                   \
        }                                                                                          \
        kr_array wa;                                                                               \
        int64_t dims[2] = {L, P};                                                                  \
        KRI_TRY(kr_array_wrap(&wa, kr_dtype_complex(p->o.dtype), 2, dims, w, KR_HOST));            \
        KRI_TRY(kr_fft_execute(p->fwd, &wa, &wa));                                                 \
        _Pragma("omp parallel for num_threads(nt) schedule(static)") for (int64_t pr = 0; pr < P;  \
                                                                          pr++)                    \
        {                                                                                          \
            T *c = w + 2 * L * pr;                                                                 \
            for (int64_t k = 0; k < L; k++) {                                                      \
                T h = (T)p->resp[k];                                                               \
                c[2 * k] *= h;                                                                     \
                c[2 * k + 1] *= h;                                                                 \
            }                                                                                      \
        }                                                                                          \
        KRI_TRY(kr_fft_execute(p->bwd, &wa, &wa));                                                 \
        _Pragma("omp parallel for num_threads(nt) schedule(static)") for (int64_t r = 0; r < R;    \
                                                                          r++)                     \
        {                                                                                          \
            const T *c = w + 2 * L * (r / 2) + (r % 2);                                            \
            kri_store_##T(c, 2, N, L - 1, out + r * os, mode);                                     \
        }                                                                                          \
        return KR_OK;                                                                              \
    }
KRI_DEFINE_CPU_FFT(float)
KRI_DEFINE_CPU_FFT(double)

/* y[k] = sum_m kern[|k - m|] x[m] (lags < ndet) for k = 0 .. N-1, and in PAIRS mode also for
 * k = N (stored at index N) and k = -1 (index N + 1). */
#define KRI_DEFINE_CPU_DIRECT(T)                                                                   \
    static kr_status kri_cpu_filter_direct_##T(kr_filter_plan *p, const T *in, int64_t is, T *out, \
                                               int64_t os, kri_filter_out mode, int nt)            \
    {                                                                                              \
        const int64_t N = p->ndet, R = p->nrows;                                                   \
        T *x = (T *)p->work; /* pre-weighted copy, [N, R] */                                       \
        T *y = x + N * R;    /* convolved rows, [N + 2, R] */                                      \
        const T *h = (const T *)p->kern_t;                                                         \
        _Pragma("omp parallel for num_threads(nt) schedule(static)") for (int64_t r = 0; r < R;    \
                                                                          r++) for (int64_t m = 0; \
                                                                                    m < N; m++)    \
            x[r * N + m] = (T)((double)in[r * is + m] * kri_row_weight(p, r, m));                  \
        _Pragma("omp parallel for num_threads(nt) schedule(static)") for (int64_t r = 0; r < R;    \
                                                                          r++)                     \
        {                                                                                          \
            const T *xr = x + r * N;                                                               \
            T *yr = y + r * (N + 2);                                                               \
            for (int64_t k = 0; k < N; k++) {                                                      \
                T acc = 0;                                                                         \
                for (int64_t m = 0; m < k; m++) acc += h[k - m] * xr[m];                           \
                for (int64_t m = k; m < N; m++) acc += h[m - k] * xr[m];                           \
                yr[k] = acc;                                                                       \
            }                                                                                      \
            if (mode == KRI_FILTER_PAIRS) {                                                        \
                T ar = 0, al = 0;                                                                  \
                for (int64_t m = 1; m < N; m++) ar += h[N - m] * xr[m];     /* position N */       \
                for (int64_t m = 0; m + 1 < N; m++) al += h[m + 1] * xr[m]; /* position -1 */      \
                yr[N] = ar;                                                                        \
                yr[N + 1] = al;                                                                    \
            }                                                                                      \
            kri_store_##T(yr, 1, N, N + 1, out + r * os, mode);                                    \
        }                                                                                          \
        return KR_OK;                                                                              \
    }
KRI_DEFINE_CPU_DIRECT(float)
KRI_DEFINE_CPU_DIRECT(double)

/* ---- dispatch ------------------------------------------------------------------------------ */
void *kri_filter_packed_work(kr_filter_plan *p, int *pad_zero)
{
    *pad_zero = p->d_in != NULL;
    if (p->loc != KR_DEVICE || p->o.method != KR_FILTER_FFT) return NULL;
    return p->d_in ? p->d_in : p->d_work;
}

kr_status kri_filter_run_packed(kr_filter_plan *p, void *out, int64_t out_stride,
                                kri_filter_out mode)
{
#ifdef KRAY_HAVE_CUDA
    void *st = kr_ctx_stream(p->ctx);
    const int f64 = p->o.dtype == KR_F64;
    kr_array wa;
    int64_t dims[2] = {p->L, p->npairs};
    KRI_TRY(kri_cuda_set_device(p->ctx));
    KRI_TRY(kr_array_wrap(&wa, kr_dtype_complex(p->o.dtype), 2, dims, p->d_work, KR_DEVICE));
    wa.device = kr_ctx_device(p->ctx);
    if (p->cb) {
        KRI_TRY(kri_filter_cufft_forward(p->cb, st, p->d_in ? p->d_in : p->d_work, p->d_work));
        if (mode == KRI_FILTER_PLAIN)
            return kri_filter_cufft_inverse_plain(p->cb, st, p->d_work, out, out_stride);
    } else {
        KRI_TRY(kr_fft_execute(p->fwd, &wa, &wa));
        KRI_TRY(kri_cuda_filter_mul(st, f64, p->d_work, p->d_resp, p->L, p->npairs));
    }
    KRI_TRY(kr_fft_execute(p->bwd, &wa, &wa));
    return kri_cuda_filter_unpack(st, f64, p->d_work, p->L, out, out_stride, (int)mode, p->ndet,
                                  p->nrows);
#else
    (void)out;
    (void)out_stride;
    (void)mode;
    return kri_fail(KR_ERR_NO_DEVICE, "filter: kray was built without CUDA");
#endif
}

kr_status kri_filter_run(kr_filter_plan *p, const void *in, int64_t in_stride, void *out,
                         int64_t out_stride, kri_filter_out mode)
{
    int f64 = p->o.dtype == KR_F64;
    if (p->loc == KR_HOST) {
        int nt = p->serial ? 1 : kri_threads(p->ctx);
        if (p->o.method == KR_FILTER_FFT)
            return f64 ? kri_cpu_filter_fft_double(p, in, in_stride, out, out_stride, mode, nt)
                       : kri_cpu_filter_fft_float(p, in, in_stride, out, out_stride, mode, nt);
        return f64 ? kri_cpu_filter_direct_double(p, in, in_stride, out, out_stride, mode, nt)
                   : kri_cpu_filter_direct_float(p, in, in_stride, out, out_stride, mode, nt);
    }
#ifdef KRAY_HAVE_CUDA
    void *st = kr_ctx_stream(p->ctx);
    KRI_TRY(kri_cuda_set_device(p->ctx));
    kri_rowweights rw = {p->d_pre, p->d_rs, p->pre_rows, p->pre_div, p->rs_count, p->rs_div};
    if (p->o.method == KR_FILTER_FFT) {
        KRI_TRY(kri_cuda_filter_pack(st, f64, in, in_stride, rw, p->d_in ? p->d_in : p->d_work,
                                     p->ndet, p->nrows, p->L));
        return kri_filter_run_packed(p, out, out_stride, mode);
    }
    if (mode == KRI_FILTER_PLAIN)
        return kri_cuda_filter_direct(st, f64, in, in_stride, rw, p->d_kern, out, out_stride, 0,
                                      p->ndet, p->nrows);
    /* positions -1 .. N into rows of N + 2 (index = position + 1) */
    KRI_TRY(kri_cuda_filter_direct(st, f64, in, in_stride, rw, p->d_kern, p->d_plain, p->ndet + 2,
                                   1, p->ndet, p->nrows));
    return kri_cuda_filter_pairs(st, f64, p->d_plain, out, out_stride, p->ndet, p->nrows);
#else
    (void)f64;
    return kri_fail(KR_ERR_NO_DEVICE, "filter: kray was built without CUDA");
#endif
}

/* A contiguous array of the plan's dtype, location and element count, dims[0] == ndet. */
static kr_status kri_check_rows(const kr_filter_plan *p, const kr_array *a, const char *what)
{
    char d[96];
    if (a->dtype != p->o.dtype)
        return kri_fail(KR_ERR_DTYPE, "filter: %s is %s, the plan is %s", what,
                        kr_dtype_name(a->dtype), kr_dtype_name(p->o.dtype));
    KRI_TRY(kri_check_loc(p->ctx, a->loc, what));
    if (!kr_array_is_contiguous(a))
        return kri_fail(KR_ERR_INVALID_ARG, "filter: %s is not contiguous", what);
    if (a->dims[0] != p->ndet || kr_array_numel(a) != p->ndet * p->nrows)
        return kri_fail(KR_ERR_DIM, "filter: %s has dims %s, the plan filters %lld rows of %lld",
                        what, kr_dims_string(a->ndim, a->dims, d, sizeof d), (long long)p->nrows,
                        (long long)p->ndet);
    if (!a->data) return kri_fail(KR_ERR_INVALID_ARG, "filter: %s has no data", what);
    return KR_OK;
}

kr_status kr_filter_execute(kr_filter_plan *p, const kr_array *in, kr_array *out)
{
    KRI_ARG_NOT_NULL(p);
    KRI_ARG_NOT_NULL(in);
    KRI_ARG_NOT_NULL(out);
    KRI_TRY(kri_check_rows(p, in, "filter input"));
    KRI_TRY(kri_check_rows(p, out, "filter output"));
    return kri_filter_run(p, in->data, p->ndet, out->data, p->ndet, KRI_FILTER_PLAIN);
}
