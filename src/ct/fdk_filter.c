/* FDK's ramp filter: the one place FDK calls a row filter. Interim implementation until the
 * kray filter module (kray/fbp.h) is in the tree, then these functions become thin wrappers of
 * kr_filter_plan. Rows are filtered with unit sample spacing (FDK puts 1/tau in its
 * pre-weights):
 *   fft:    zero-padded to L (the smallest 2^a 3^b 5^c >= 2 nu) and multiplied by the DFT of the
 *           band-limited Ram-Lak kernel h(0) = 1/4, h(odd n) = -1/(pi n)^2 (summed over all L
 *           lags), times a window W(nu) of the frequency as a fraction of Nyquist, zero above
 *           the cutoff; with the Ram-Lak window this equals the direct convolution;
 *   direct: linear convolution with the band-limited Ram-Lak kernel, O(nu^2) per row.
 * CPU transforms go through FFTW (kray/fft.h) on the plan's row count at once, CUDA ones
 * through cuFFT; one complex transform per row. */
#include "fdk_internal.h"
#include "kray/fft.h"

#include <math.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

struct kri_fdk_filt {
    const kr_ctx *ctx;
    int cuda;
    int method;        /* 0 fft, 1 direct */
    int64_t nu, nrows, L;
    double *resp;      /* [L] real response including the 1/L of the inverse transform */
    float *kern;       /* direct: [nu] lags */
    float *work;       /* host: complex [L, nrows] (fft) or real [nu, nrows] (direct) */
    void *d_resp, *d_kern, *d_work;
    kr_fft_plan *fwd, *bwd;
};

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

static double kri_ramlak1(int64_t n)
{
    if (n < 0) n = -n;
    if (n == 0) return 0.25;
    if (n % 2 == 0) return 0.0;
    return -1.0 / ((double)n * (double)n * M_PI * M_PI);
}

/* window at frequency x = |f| / Nyquist in [0, 1] with cutoff c */
static double kri_window(int w, double x, double c)
{
    if (x > c) return 0.0;
    double t = x / c;
    switch (w) {
    case 1: return t == 0 ? 1.0 : sin(0.5 * M_PI * t) / (0.5 * M_PI * t); /* shepp-logan */
    case 2: return cos(0.5 * M_PI * t);                                    /* cosine */
    case 3: return 0.54 + 0.46 * cos(M_PI * t);                            /* hamming */
    case 4: return 0.5 + 0.5 * cos(M_PI * t);                              /* hann */
    default: return 1.0;                                                   /* ramlak */
    }
}

void kri_fdk_filt_destroy(kri_fdk_filt *f)
{
    if (!f) return;
    kr_fft_plan_destroy(f->fwd);
    kr_fft_plan_destroy(f->bwd);
    kri_free(f->resp);
    kri_free(f->kern);
    kri_free(f->work);
    kri_device_free(f->d_resp);
    kri_device_free(f->d_kern);
    kri_device_free(f->d_work);
    kri_free(f);
}

int64_t kri_fdk_filt_device_bytes(int64_t nu, int64_t nrows, const kr_fdk_opts *o)
{
    if (o->filter == 1) return nu * nrows * (int64_t)sizeof(float) + nu * 4 + 4096;
    int64_t L = kri_good_size(2 * nu);
    /* the complex work array and as much again for cuFFT's own workspace */
    return 2 * L * nrows * 8 + L * 4 + ((int64_t)64 << 10);
}

static kr_status kri_upload_f(const kr_ctx *ctx, void **d, const float *h, int64_t n,
                              const char *what)
{
    KRI_TRY(kri_device_alloc(d, (size_t)n * sizeof(float), kr_ctx_device(ctx), what));
    return kri_memcpy(*d, KR_DEVICE, h, KR_HOST, (size_t)n * sizeof(float), ctx);
}

kr_status kri_fdk_filt_create(kri_fdk_filt **out, const kr_ctx *ctx, int64_t nu, int64_t nrows,
                              const kr_fdk_opts *o)
{
    *out = NULL;
    if (o->filter == 2)
        return kri_fail(KR_ERR_NOT_SUPPORTED,
                        "fdk: the seed kernel needs the filter module (kray/fbp.h), which this "
                        "build does not have yet");
    if (o->filter == 1 && (o->window != 0 || o->cutoff != 1.0))
        return kri_fail(KR_ERR_INVALID_ARG,
                        "fdk: filter windows and cutoffs need the fft filter (the direct filter "
                        "convolves with the fixed Ram-Lak kernel)");
    kri_fdk_filt *f = kri_calloc(1, sizeof *f);
    if (!f) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for an FDK filter");
    f->ctx = ctx;
    f->cuda = kr_ctx_backend(ctx) == KR_BACKEND_CUDA;
    f->method = o->filter;
    f->nu = nu;
    f->nrows = nrows;
    kr_status s = KR_OK;
#define KRI_CHECK(expr)                                                                        \
    do {                                                                                       \
        s = (expr);                                                                            \
        if (s != KR_OK) goto fail;                                                             \
    } while (0)
    const kr_loc loc = f->cuda ? KR_DEVICE : KR_HOST;
    if (f->method == 0) {
        const int64_t L = f->L = kri_good_size(2 * nu);
        KRI_CHECK(kri_alloc((void **)&f->resp, (size_t)L * sizeof(double), "FDK filter response"));
        for (int64_t k = 0; k < L; k++) {
            /* DFT of the real even kernel over all L lags (lag L/2 once for even L) */
            double acc = kri_ramlak1(0);
            for (int64_t n = 1; n <= L / 2; n++) {
                double h = kri_ramlak1(n);
                if (h == 0) continue;
                double c = cos(2 * M_PI * (double)((k * n) % L) / (double)L);
                acc += (2 * n == L ? 1.0 : 2.0) * h * c;
            }
            int64_t kk = k <= L - k ? k : L - k;
            f->resp[k] = acc * kri_window(o->window, 2.0 * (double)kk / (double)L, o->cutoff) /
                         (double)L;
        }
        int64_t dims[2] = {L, nrows};
        if (!f->cuda)
            KRI_CHECK(kri_alloc((void **)&f->work, (size_t)(L * nrows) * 8, "FDK filter work"));
        KRI_CHECK(kr_fft_plan_create(&f->fwd, ctx, KR_C64, 2, dims, 1u, KR_FFT_FORWARD, 0, loc));
        KRI_CHECK(kr_fft_plan_create(&f->bwd, ctx, KR_C64, 2, dims, 1u, KR_FFT_BACKWARD, 0, loc));
        if (f->cuda) {
            float *rf;
            KRI_CHECK(kri_alloc((void **)&rf, (size_t)L * sizeof(float), "FDK filter response"));
            for (int64_t k = 0; k < L; k++) rf[k] = (float)f->resp[k];
            s = kri_upload_f(ctx, &f->d_resp, rf, L, "FDK filter response");
            kri_free(rf);
            if (s != KR_OK) goto fail;
            KRI_CHECK(kri_device_alloc(&f->d_work, (size_t)(L * nrows) * 8, kr_ctx_device(ctx),
                                       "FDK filter work"));
        }
    } else {
        KRI_CHECK(kri_alloc((void **)&f->kern, (size_t)nu * sizeof(float), "FDK filter kernel"));
        for (int64_t n = 0; n < nu; n++) f->kern[n] = (float)kri_ramlak1(n);
        if (f->cuda) {
            KRI_CHECK(kri_upload_f(ctx, &f->d_kern, f->kern, nu, "FDK filter kernel"));
            KRI_CHECK(kri_device_alloc(&f->d_work, (size_t)(nu * nrows) * sizeof(float),
                                       kr_ctx_device(ctx), "FDK filter work"));
        } else {
            KRI_CHECK(kri_alloc((void **)&f->work, (size_t)(nu * nrows) * sizeof(float),
                                "FDK filter work"));
        }
    }
#undef KRI_CHECK
    *out = f;
    return KR_OK;
fail:
    kri_fdk_filt_destroy(f);
    return s;
}

static kr_status kri_fdk_filt_fft(kri_fdk_filt *f, void *work)
{
    kr_array a;
    int64_t dims[2] = {f->L, f->nrows};
    KRI_TRY(kr_array_wrap(&a, KR_C64, 2, dims, work, f->cuda ? KR_DEVICE : KR_HOST));
    a.device = kr_ctx_device(f->ctx);
    KRI_TRY(kr_fft_execute(f->fwd, &a, &a));
    if (f->cuda) {
#ifdef KRAY_HAVE_CUDA
        KRI_TRY(kri_cuda_fdk_filter_mul(kr_ctx_stream(f->ctx), work, f->d_resp, f->L, f->nrows));
#endif
    } else {
        float *w = work;
        const int64_t L = f->L;
        int nt = kri_threads(f->ctx);
#pragma omp parallel for num_threads(nt) schedule(static)
        for (int64_t r = 0; r < f->nrows; r++)
            for (int64_t k = 0; k < L; k++) {
                float h = (float)f->resp[k];
                w[2 * (k + L * r)] *= h;
                w[2 * (k + L * r) + 1] *= h;
            }
    }
    return kr_fft_execute(f->bwd, &a, &a);
}

kr_status kri_fdk_filt_run(kri_fdk_filt *f, const float *in, int64_t is, float *out, int64_t os)
{
    const int64_t N = f->nu, R = f->nrows;
    if (f->cuda) {
#ifdef KRAY_HAVE_CUDA
        void *st = kr_ctx_stream(f->ctx);
        KRI_TRY(kri_cuda_set_device(f->ctx));
        if (f->method == 0) {
            KRI_TRY(kri_cuda_fdk_filter_pack(st, in, is, f->d_work, N, f->L, R, 1));
            KRI_TRY(kri_fdk_filt_fft(f, f->d_work));
            return kri_cuda_fdk_filter_unpack(st, f->d_work, f->L, out, os, N, R);
        }
        KRI_TRY(kri_cuda_fdk_filter_pack(st, in, is, f->d_work, N, N, R, 0));
        return kri_cuda_fdk_filter_direct(st, f->d_work, N, out, os, f->d_kern, N, R);
#else
        (void)in, (void)is, (void)out, (void)os, (void)N, (void)R;
        return kri_fail(KR_ERR_NO_DEVICE, "fdk: kray was built without CUDA");
#endif
    }
    const int nt = kri_threads(f->ctx);
    float *w = f->work;
    if (f->method == 0) {
        const int64_t L = f->L;
#pragma omp parallel for num_threads(nt) schedule(static)
        for (int64_t r = 0; r < R; r++) {
            float *c = w + 2 * L * r;
            for (int64_t m = 0; m < N; m++) {
                c[2 * m] = in[r * is + m];
                c[2 * m + 1] = 0.0f;
            }
            memset(c + 2 * N, 0, (size_t)(2 * (L - N)) * sizeof(float));
        }
        KRI_TRY(kri_fdk_filt_fft(f, w));
#pragma omp parallel for num_threads(nt) schedule(static)
        for (int64_t r = 0; r < R; r++)
            for (int64_t m = 0; m < N; m++) out[r * os + m] = w[2 * (m + L * r)];
        return KR_OK;
    }
    const float *h = f->kern;
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t r = 0; r < R; r++) memcpy(w + r * N, in + r * is, (size_t)N * sizeof(float));
#pragma omp parallel for num_threads(nt) schedule(static)
    for (int64_t r = 0; r < R; r++) {
        const float *x = w + r * N;
        float *y = out + r * os;
        for (int64_t k = 0; k < N; k++) {
            float acc = 0;
            for (int64_t m = 0; m < k; m++) acc += h[k - m] * x[m];
            for (int64_t m = k; m < N; m++) acc += h[m - k] * x[m];
            y[k] = acc;
        }
    }
    return KR_OK;
}
