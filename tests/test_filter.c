/* Ramp filters: kernels against their formulas, every method against a brute-force linear
 * convolution written here, window responses against their definitions, thread-count
 * determinism, f32 vs f64, pre-weights, and dumb inputs with their exact statuses. */
#include "ct/filter_internal.h"
#include "internal.h"
#include "kray/fbp.h"
#include "kt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static kr_ctx *ctx_cpu(kr_backend b, int threads)
{
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, b));
    if (c && threads) KT_OK(kr_ctx_set_threads(c, threads));
    return c;
}

static kr_array *rows(kr_dtype t, int64_t n, int64_t r, uint64_t seed)
{
    int64_t dims[2] = {n, r};
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, t, 2, dims, KR_HOST, NULL));
    for (int64_t i = 0; a && i < n * r; i++) {
        int64_t m = i % n;
        /* smooth bump plus noise, zero-free so every sample matters */
        double v = exp(-pow(((double)m - 0.45 * (double)n) / (0.2 * (double)n), 2)) +
                   0.3 * kri_rand_sym(seed, (uint64_t)i);
        if (t == KR_F32)
            ((float *)a->data)[i] = (float)v;
        else
            ((double *)a->data)[i] = v;
    }
    return a;
}

/* Formulas, written independently of src/ct/filter.c. */
static double ramlak(int64_t n, double tau)
{
    n = n < 0 ? -n : n;
    if (n == 0) return 1.0 / (4 * tau * tau);
    if (n % 2 == 0) return 0;
    return -1.0 / ((double)(n * n) * M_PI * M_PI * tau * tau);
}
static double seed(int64_t n) { return -1.0 / (4.0 * (double)(n * n) - 1.0); }

/* Brute-force out[k] = sum_m kern(|k - m|) x[m] in long double. */
static void brute(const kr_array *x, int64_t n, int64_t r, double (*kern)(int64_t, void *),
                  void *kp, double *out)
{
    for (int64_t row = 0; row < r; row++)
        for (int64_t k = 0; k < n; k++) {
            long double acc = 0;
            for (int64_t m = 0; m < n; m++)
                acc += (long double)kern(k - m, kp) * kr_array_get_f64(x, row * n + m);
            out[row * n + k] = (double)acc;
        }
}

typedef struct kpar {
    double tau, scale, alpha;
    int seed, raw;
} kpar;

static double kern_of(int64_t n, void *vp)
{
    const kpar *p = vp;
    if (p->seed)
        return p->raw ? p->scale * seed(n) : p->scale * 2.0 / (M_PI * M_PI * p->tau) * seed(n);
    double m = 1;
    if (p->alpha > 0 && n != 0) {
        double t = (double)n * p->alpha;
        m = (t / sin(t)) * (t / sin(t));
    }
    return p->scale * p->tau * ramlak(n, p->tau) * m;
}

/* max |a - b| / max |b| */
static double relerr(const kr_array *a, const double *b, int64_t n)
{
    double e = 0, m = 0;
    for (int64_t i = 0; i < n; i++) {
        e = fmax(e, fabs(kr_array_get_f64(a, i) - b[i]));
        m = fmax(m, fabs(b[i]));
    }
    return e / m;
}

static double run_vs_brute(kr_backend be, kr_filter_method meth, kr_dtype t, int64_t n, int64_t r,
                           double tau, double scale, double alpha, int raw)
{
    kr_ctx *c = ctx_cpu(be, 0);
    kr_filter_opts o;
    kr_filter_opts_default(&o);
    o.method = meth;
    o.dtype = t;
    o.tau_mm = tau;
    o.scale = scale;
    o.equiangular_rad = alpha;
    o.seed_raw = raw;
    kr_filter_plan *p = NULL;
    KT_OK(kr_filter_plan_create(&p, c, n, r, &o));
    kr_array *x = rows(t, n, r, 7), *y = NULL;
    KT_OK(kr_array_create_like(&y, x, KR_HOST, NULL));
    KT_OK(kr_filter_execute(p, x, y));
    double *ref = malloc(sizeof(double) * (size_t)(n * r));
    kpar kp = {tau, scale, alpha, meth == KR_FILTER_SEED, raw};
    brute(x, n, r, kern_of, &kp, ref);
    double e = relerr(y, ref, n * r);
    free(ref);
    kr_array_destroy(x);
    kr_array_destroy(y);
    kr_filter_plan_destroy(p);
    kr_ctx_destroy(c);
    return e;
}

static void test_kernels_match_formulas(void)
{
    kr_ctx *c = ctx_cpu(KR_BACKEND_CPU, 0);
    const double tau = 0.7;
    kr_filter_opts o;
    kr_filter_opts_default(&o);
    o.tau_mm = tau;
    double h[40];
    for (int m = 0; m < 3; m++) {
        o.method = (kr_filter_method)m;
        for (int raw = 0; raw < 2; raw++) {
            o.seed_raw = raw;
            kr_filter_plan *p = NULL;
            KT_OK(kr_filter_plan_create(&p, c, 40, 3, &o));
            KT_OK(kr_filter_kernel(p, h, 40));
            for (int n = 0; n < 40; n++) {
                double want =
                    m == KR_FILTER_SEED
                        ? (raw ? seed(n)
                               : -2.0 / (M_PI * M_PI * tau * tau * (4.0 * n * n - 1)) * tau)
                        : tau * ramlak(n, tau);
                KT_NEAR(h[n], want, 1e-14 * fabs(want) + 1e-15);
            }
            kr_filter_plan_destroy(p);
        }
    }
    /* the seed kernel is (2 / (pi^2 tau^2)) h_seed = the Shepp-Logan kernel; check h(0), h(1) */
    KT_NEAR(-2.0 / (M_PI * M_PI * tau * tau * (4.0 * 0 - 1)), 2.0 / (M_PI * M_PI * tau * tau),
            1e-15);
    kr_ctx_destroy(c);
}

static void test_direct_and_fft_vs_brute(void)
{
    /* band-limited kernel: direct and FFT equal the brute-force linear convolution */
    KT_LE(run_vs_brute(KR_BACKEND_CPU, KR_FILTER_DIRECT, KR_F64, 97, 5, 0.8, 1.3, 0, 0), 1e-13);
    KT_LE(run_vs_brute(KR_BACKEND_CPU, KR_FILTER_FFT, KR_F64, 97, 5, 0.8, 1.3, 0, 0), 1e-13);
    KT_LE(run_vs_brute(KR_BACKEND_CPU, KR_FILTER_FFT, KR_F64, 128, 4, 1.0, 1.0, 0, 0), 1e-13);
    KT_LE(run_vs_brute(KR_BACKEND_CPU, KR_FILTER_FFT, KR_F64, 1, 3, 1.0, 1.0, 0, 0), 1e-15);
    KT_LE(run_vs_brute(KR_BACKEND_CPU, KR_FILTER_SEED, KR_F64, 64, 3, 0.5, 1.0, 0, 0), 1e-13);
    KT_LE(run_vs_brute(KR_BACKEND_CPU, KR_FILTER_SEED, KR_F64, 64, 3, 0.5, 1.0, 0, 1), 1e-13);
    /* equiangular modulation, both methods */
    KT_LE(run_vs_brute(KR_BACKEND_CPU, KR_FILTER_DIRECT, KR_F64, 81, 3, 1.0, 1.0, 0.01, 0), 1e-13);
    KT_LE(run_vs_brute(KR_BACKEND_CPU, KR_FILTER_FFT, KR_F64, 81, 3, 1.0, 1.0, 0.01, 0), 1e-13);
    /* float: to float rounding */
    KT_LE(run_vs_brute(KR_BACKEND_CPU, KR_FILTER_FFT, KR_F32, 97, 5, 0.8, 1.3, 0, 0), 2e-6);
    KT_LE(run_vs_brute(KR_BACKEND_CPU, KR_FILTER_DIRECT, KR_F32, 97, 5, 0.8, 1.3, 0, 0), 2e-6);
    KT_LE(run_vs_brute(KR_BACKEND_CPU_SERIAL, KR_FILTER_SEED, KR_F32, 50, 2, 1, 1, 0, 1), 2e-6);
}

/* Window W(nu) at nu = |frequency| / Nyquist with cutoff c, from the definitions in kray/fbp.h. */
static double window_of(int win, double nu, double c)
{
    double x = nu / c;
    if (nu > c) return 0;
    if (win == KR_WINDOW_SHEPP_LOGAN) return x == 0 ? 1 : sin(M_PI * x / 2) / (M_PI * x / 2);
    if (win == KR_WINDOW_COSINE) return cos(M_PI * x / 2);
    if (win == KR_WINDOW_HAMMING) return 0.54 + 0.46 * cos(M_PI * x);
    if (win == KR_WINDOW_HANN) return 0.5 + 0.5 * cos(M_PI * x);
    return 1;
}

/* The response is the DFT of the band-limited kernel: ~|f| at mid frequencies, a small positive
 * DC (the kernel's sum, no DC bias), and each window multiplies it by its definition. The
 * responses are deterministic, so they are compared with closed forms: with L = 2 ndet the
 * ramp is R[k] = sum over the L lags of tau h(lag) e^{-2 pi i k lag / L}, and the windowed
 * kernel loses only its lag L / 2 (lags |n| >= ndet never reach the output), so its response is
 * W(nu_k) R[k] - (-1)^k c with c = (1 / L) sum_j (-1)^j W(nu_j) R[j], that lag's value. */
static void test_windows(void)
{
    kr_ctx *c = ctx_cpu(KR_BACKEND_CPU, 0);
    const int64_t n = 256;
    const double tau = 0.5;
    kr_filter_opts o;
    kr_filter_opts_default(&o);
    o.tau_mm = tau;
    kr_filter_plan *p = NULL;
    KT_OK(kr_filter_plan_create(&p, c, n, 2, &o));
    int64_t L = kr_filter_pad_len(p);
    KT_CHECK(L == 2 * n);
    double *ramp = malloc(sizeof(double) * (size_t)L), *w = malloc(sizeof(double) * (size_t)L);
    double *R = malloc(sizeof(double) * (size_t)L);
    KT_OK(kr_filter_response(p, ramp, L));
    /* the closed form, in long double */
    for (int64_t k = 0; k < L; k++) {
        long double acc = 0;
        for (int64_t m = 0; m < L; m++) {
            int64_t lag = m <= L / 2 ? m : m - L;
            acc += (long double)(tau * ramlak(lag, tau)) *
                   cosl(2.0L * (long double)M_PI * (long double)((k * m) % L) / (long double)L);
        }
        R[k] = (double)acc;
    }
    double rmax = 0, eramp = 0;
    for (int64_t k = 0; k < L; k++) {
        rmax = fmax(rmax, fabs(R[k]));
        eramp = fmax(eramp, fabs(ramp[k] - R[k]));
    }
    printf("  ramp: max |response - closed form| %.2e (max %.3g)\n", eramp, rmax);
    KT_LE(eramp, 1e-12 * rmax);
    /* DC: sum of tau * h over the lags |n| < ndet (ramlak(n) * tau) */
    double dc = 0;
    for (int64_t k = -(n - 1); k <= n - 1; k++) dc += tau * ramlak(k, tau);
    KT_NEAR(ramp[0], dc, 1e-12);
    KT_CHECK(ramp[0] > 0);
    for (int64_t k = L / 8; k <= 3 * L / 8; k++) {
        double f = (double)k / ((double)L * tau); /* cycles per mm */
        KT_NEAR(ramp[k], f, 0.01 * f);
        KT_NEAR(ramp[L - k], ramp[k], 1e-12);
    }
    kr_filter_plan_destroy(p);
    const double cuts[2] = {1.0, 0.6};
    for (int win = 1; win < KR_WINDOW_COUNT; win++)
        for (int ci = 0; ci < 2; ci++) {
            o.window = (kr_filter_window)win;
            o.cutoff = cuts[ci];
            KT_OK(kr_filter_plan_create(&p, c, n, 2, &o));
            KT_OK(kr_filter_response(p, w, L));
            long double lag = 0; /* the windowed kernel at lag L / 2, which the plan drops */
            for (int64_t k = 0; k < L; k++) {
                int64_t kk = k <= L - k ? k : L - k;
                lag += (k % 2 ? -1.0L : 1.0L) * window_of(win, 2.0 * (double)kk / (double)L,
                                                          cuts[ci]) * R[k];
            }
            lag /= (long double)L;
            double emax = 0, hi_w = 0, hi_r = 0, whi = 0;
            for (int64_t k = 0; k < L; k++) {
                int64_t kk = k <= L - k ? k : L - k;
                double nu = 2.0 * (double)kk / (double)L, W = window_of(win, nu, cuts[ci]);
                double want = W * R[k] - (k % 2 ? -1.0 : 1.0) * (double)lag;
                emax = fmax(emax, fabs(w[k] - want));
                if (k <= L / 2 && nu > 0.8)
                    hi_w += fabs(w[k]), hi_r += fabs(ramp[k]), whi = fmax(whi, W);
            }
            printf("  %s cutoff %.1f: max |response - closed form| %.2e\n",
                   kr_filter_window_name((kr_filter_window)win), cuts[ci], emax);
            KT_LE(emax, 1e-12 * rmax);
            /* high frequencies reduced: every window is below 0.77 of the ramp above 0.8 Nyquist */
            KT_LE(whi, 0.77);
            KT_LE(hi_w, (whi + 0.02) * hi_r);
            kr_filter_plan_destroy(p);
        }
    free(ramp);
    free(w);
    free(R);
    kr_ctx_destroy(c);
}

/* A Nyquist-rate cosine row through each window: output amplitude below Ram-Lak's. */
static void test_windows_damp_high_frequencies(void)
{
    kr_ctx *c = ctx_cpu(KR_BACKEND_CPU, 0);
    const int64_t n = 128;
    int64_t dims[2] = {n, 1};
    kr_array *x = NULL, *y = NULL;
    KT_OK(kr_array_create(&x, KR_F64, 2, dims, KR_HOST, NULL));
    KT_OK(kr_array_create(&y, KR_F64, 2, dims, KR_HOST, NULL));
    for (int64_t m = 0; m < n; m++) ((double *)x->data)[m] = cos(0.9 * M_PI * (double)m);
    double amp[KR_WINDOW_COUNT];
    for (int win = 0; win < KR_WINDOW_COUNT; win++) {
        kr_filter_opts o;
        kr_filter_opts_default(&o);
        o.dtype = KR_F64;
        o.window = (kr_filter_window)win;
        kr_filter_plan *p = NULL;
        KT_OK(kr_filter_plan_create(&p, c, n, 1, &o));
        KT_OK(kr_filter_execute(p, x, y));
        double a = 0;
        for (int64_t m = n / 4; m < 3 * n / 4; m++) a = fmax(a, fabs(((double *)y->data)[m]));
        amp[win] = a;
        kr_filter_plan_destroy(p);
    }
    /* ramp at nu = 0.9: ~0.45; hann: 0.5+0.5cos(0.9 pi) = 0.024 of it */
    KT_NEAR(amp[KR_WINDOW_RAMLAK], 0.45, 0.03);
    for (int win = 1; win < KR_WINDOW_COUNT; win++) KT_LE(amp[win], 0.7 * amp[KR_WINDOW_RAMLAK]);
    KT_LE(amp[KR_WINDOW_HANN], 0.1 * amp[KR_WINDOW_RAMLAK]);
    kr_array_destroy(x);
    kr_array_destroy(y);
    kr_ctx_destroy(c);
}

static void run_plain(kr_ctx *c, kr_filter_method m, kr_dtype t, const kr_filter_opts *base,
                      kr_array *x, kr_array *y)
{
    kr_filter_opts o = *base;
    o.method = m;
    o.dtype = t;
    kr_filter_plan *p = NULL;
    KT_OK(kr_filter_plan_create(&p, c, x->dims[0], x->dims[1], &o));
    KT_OK(kr_filter_execute(p, x, y));
    kr_filter_plan_destroy(p);
}

static void test_serial_equals_threaded_and_inplace(void)
{
    kr_ctx *cs = ctx_cpu(KR_BACKEND_CPU_SERIAL, 0), *ct = ctx_cpu(KR_BACKEND_CPU, 3);
    kr_filter_opts o;
    kr_filter_opts_default(&o);
    double pre[2 * 77];
    for (int i = 0; i < 2 * 77; i++) pre[i] = 1.0 + 0.01 * i;
    double rs[3] = {0.5, 2.0, -1.0};
    o.pre_weight = pre;
    o.pre_rows = 2;
    o.row_scale = rs;
    o.row_scale_count = 3;
    for (int t = 0; t < 2; t++)
        for (int m = 0; m < 3; m++) {
            kr_dtype dt = t ? KR_F64 : KR_F32;
            kr_array *x = rows(dt, 77, 11, 3), *a = NULL, *b = NULL;
            KT_OK(kr_array_create_like(&a, x, KR_HOST, NULL));
            KT_OK(kr_array_create_like(&b, x, KR_HOST, NULL));
            run_plain(cs, (kr_filter_method)m, dt, &o, x, a);
            run_plain(ct, (kr_filter_method)m, dt, &o, x, b);
            KT_CHECK(memcmp(a->data, b->data, kr_array_bytes(a)) == 0);
            run_plain(ct, (kr_filter_method)m, dt, &o, x, x); /* in place */
            KT_CHECK(memcmp(a->data, x->data, kr_array_bytes(a)) == 0);
            kr_array_destroy(x);
            kr_array_destroy(a);
            kr_array_destroy(b);
        }
    kr_ctx_destroy(cs);
    kr_ctx_destroy(ct);
}

/* Pre-weights and row scales (with row divisors, as for cone-beam [u, v, view] rows) equal
 * weighting the input by hand. */
static void test_preweights(void)
{
    kr_ctx *c = ctx_cpu(KR_BACKEND_CPU, 0);
    const int64_t n = 60, r = 7;
    double pre[3 * 60], rs[2] = {0.25, -3.0};
    for (int i = 0; i < 3 * 60; i++) pre[i] = cos(0.01 * i);
    kr_array *x = rows(KR_F64, n, r, 5), *xw = rows(KR_F64, n, r, 5), *a = NULL, *b = NULL;
    for (int64_t row = 0; row < r; row++)
        for (int64_t m = 0; m < n; m++)
            ((double *)xw->data)[row * n + m] *= pre[m + n * ((row / 2) % 3)] * rs[(row / 3) % 2];
    KT_OK(kr_array_create_like(&a, x, KR_HOST, NULL));
    KT_OK(kr_array_create_like(&b, x, KR_HOST, NULL));
    for (int m = 0; m < 2; m++) {
        kr_filter_opts o;
        kr_filter_opts_default(&o);
        o.dtype = KR_F64;
        o.method = (kr_filter_method)m;
        run_plain(c, o.method, KR_F64, &o, xw, a);
        o.pre_weight = pre;
        o.pre_rows = 3;
        o.pre_row_div = 2;
        o.row_scale = rs;
        o.row_scale_count = 2;
        o.row_scale_div = 3;
        run_plain(c, o.method, KR_F64, &o, x, b);
        double e = 0;
        for (int64_t i = 0; i < n * r; i++)
            e = fmax(e, fabs(((double *)a->data)[i] - ((double *)b->data)[i]));
        KT_LE(e, 1e-14);
    }
    kr_array_destroy(x);
    kr_array_destroy(xw);
    kr_array_destroy(a);
    kr_array_destroy(b);
    kr_ctx_destroy(c);
}

/* f32 against f64 on the same rows: relative difference at float rounding. */
static void test_f32_vs_f64(void)
{
    kr_ctx *c = ctx_cpu(KR_BACKEND_CPU, 0);
    kr_array *x = rows(KR_F64, 512, 8, 11), *xf = NULL, *y = NULL, *yf = NULL;
    KT_OK(kr_array_astype(&xf, x, KR_F32));
    KT_OK(kr_array_create_like(&y, x, KR_HOST, NULL));
    KT_OK(kr_array_create_like(&yf, xf, KR_HOST, NULL));
    kr_filter_opts o;
    kr_filter_opts_default(&o);
    run_plain(c, KR_FILTER_FFT, KR_F64, &o, x, y);
    run_plain(c, KR_FILTER_FFT, KR_F32, &o, xf, yf);
    double e = 0, m = 0;
    for (int64_t i = 0; i < 512 * 8; i++) {
        e = fmax(e, fabs(kr_array_get_f64(yf, i) - kr_array_get_f64(y, i)));
        m = fmax(m, fabs(kr_array_get_f64(y, i)));
    }
    printf("  filter f32 vs f64 (512 x 8, fft): max rel. difference %.3g\n", e / m);
    KT_LE(e / m, 1e-6);
    kr_array_destroy(x);
    kr_array_destroy(xf);
    kr_array_destroy(y);
    kr_array_destroy(yf);
    kr_ctx_destroy(c);
}

/* PAIRS layout (what the backprojectors read): the filtered row at positions -1 .. N (the
 * linear convolution one sample past each end), zero at -2 and N + 1, and the differences. */
static void test_pairs_layout(void)
{
    kr_ctx *c = ctx_cpu(KR_BACKEND_CPU, 0);
    const int64_t n = 37, r = 3, w = KRI_PAD_ROW(n);
    for (int m = 0; m < 2; m++) {
        kr_filter_opts o;
        kr_filter_opts_default(&o);
        o.dtype = KR_F64;
        o.method = (kr_filter_method)m;
        o.tau_mm = 0.6;
        kr_filter_plan *p = NULL;
        KT_OK(kr_filter_plan_create(&p, c, n, r, &o));
        kr_array *x = rows(KR_F64, n, r, 21);
        double *out = malloc(sizeof(double) * (size_t)(2 * w * r));
        KT_OK(kri_filter_run(p, x->data, n, out, 2 * w, KRI_FILTER_PAIRS));
        double e = 0;
        for (int64_t row = 0; row < r; row++)
            for (int64_t j = 0; j < w; j++) {
                int64_t pos = j - KRI_PAD;
                long double ref = 0, next = 0;
                for (int64_t mm = 0; mm < n; mm++) {
                    double xv = kr_array_get_f64(x, row * n + mm);
                    if (pos >= -1 && pos <= n && llabs(pos - mm) < n)
                        ref += (long double)(0.6 * ramlak(pos - mm, 0.6)) * xv;
                    if (pos + 1 >= -1 && pos + 1 <= n && llabs(pos + 1 - mm) < n)
                        next += (long double)(0.6 * ramlak(pos + 1 - mm, 0.6)) * xv;
                }
                e = fmax(e, fabs(out[2 * (row * w + j)] - (double)ref));
                e = fmax(e, fabs(out[2 * (row * w + j) + 1] - (double)(next - ref)));
            }
        KT_LE(e, 1e-14);
        KT_CHECK(out[0] == 0 && out[2 * (w - 1)] == 0); /* positions -2 and N + 1 */
        KT_CHECK(out[2] != 0 && out[2 * (w - 2)] != 0); /* positions -1 and N */
        free(out);
        kr_array_destroy(x);
        kr_filter_plan_destroy(p);
    }
    kr_ctx_destroy(c);
}

/* PLANAR layout (the CPU backprojection of f32): the numbers of PAIRS, bit for bit, values then
 * differences, for both methods, both precisions, an odd row count and pre-weights. */
static void test_planar_layout(void)
{
    kr_ctx *c = ctx_cpu(KR_BACKEND_CPU, 0);
    const int64_t n = 41, r = 5, w = KRI_PAD_ROW(n);
    double pre[41 * 5], rs[5];
    for (int64_t i = 0; i < n * r; i++) pre[i] = 1.0 + 0.3 * kri_rand_sym(31, (uint64_t)i);
    for (int64_t i = 0; i < r; i++) rs[i] = 0.5 + 0.1 * (double)i;
    for (int d = 0; d < 2; d++)
        for (int m = 0; m < 2; m++) {
            kr_filter_opts o;
            kr_filter_opts_default(&o);
            o.dtype = d ? KR_F64 : KR_F32;
            o.method = (kr_filter_method)m;
            o.pre_weight = pre;
            o.pre_rows = r;
            o.row_scale = rs;
            o.row_scale_count = r;
            kr_filter_plan *p = NULL;
            KT_OK(kr_filter_plan_create(&p, c, n, r, &o));
            kr_array *x = rows(o.dtype, n, r, 22);
            const size_t es = kr_dtype_size(o.dtype), bytes = es * (size_t)(2 * w * r);
            char *pa = malloc(bytes), *pl = malloc(bytes);
            KT_OK(kri_filter_run(p, x->data, n, pa, 2 * w, KRI_FILTER_PAIRS));
            KT_OK(kri_filter_run(p, x->data, n, pl, 2 * w, KRI_FILTER_PLANAR));
            int same = 1, nonzero = 0;
            for (int64_t row = 0; row < r; row++)
                for (int64_t j = 0; j < w; j++)
                    for (int h = 0; h < 2; h++) {
                        const char *a = pa + es * (size_t)(2 * w * row + 2 * j + h);
                        const char *b = pl + es * (size_t)(2 * w * row + h * w + j);
                        same &= memcmp(a, b, es) == 0;
                        nonzero |= d ? *(const double *)a != 0 : *(const float *)a != 0;
                    }
            KT_CHECK(same);
            KT_CHECK(nonzero);
            free(pa);
            free(pl);
            kr_array_destroy(x);
            kr_filter_plan_destroy(p);
        }
    kr_ctx_destroy(c);
}

static void test_names(void)
{
    kr_filter_method m;
    kr_filter_window w;
    for (int i = 0; i < KR_FILTER_METHOD_COUNT; i++) {
        KT_OK(kr_filter_method_from_name(kr_filter_method_name((kr_filter_method)i), &m));
        KT_CHECK((int)m == i);
    }
    for (int i = 0; i < KR_WINDOW_COUNT; i++) {
        KT_OK(kr_filter_window_from_name(kr_filter_window_name((kr_filter_window)i), &w));
        KT_CHECK((int)w == i);
    }
    KT_OK(kr_filter_window_from_name("ramp", &w));
    KT_CHECK(w == KR_WINDOW_RAMLAK);
    KT_STATUS(kr_filter_window_from_name("hanning", &w), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_filter_method_from_name("FFT", &m), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_filter_method_from_name(NULL, &m), KR_ERR_INVALID_ARG);
    KT_CHECK(strcmp(kr_filter_window_name((kr_filter_window)99), "invalid") == 0);
}

static void test_dumb_inputs(void)
{
    kr_ctx *c = ctx_cpu(KR_BACKEND_CPU, 0);
    kr_filter_opts o, b;
    kr_filter_opts_default(&o);
    kr_filter_plan *p = NULL;
    KT_STATUS(kr_filter_plan_create(NULL, c, 8, 2, &o), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_filter_plan_create(&p, NULL, 8, 2, &o), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_filter_plan_create(&p, c, 0, 2, &o), KR_ERR_DIM);
    KT_STATUS(kr_filter_plan_create(&p, c, 8, -1, &o), KR_ERR_DIM);
    KT_CHECK(p == NULL);
    b = o, b.cutoff = 0;
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, &b), KR_ERR_INVALID_ARG);
    b = o, b.cutoff = 1.5;
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, &b), KR_ERR_INVALID_ARG);
    b = o, b.cutoff = NAN;
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, &b), KR_ERR_INVALID_ARG);
    b = o, b.tau_mm = 0;
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, &b), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "tau_mm") != NULL);
    b = o, b.tau_mm = -1;
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, &b), KR_ERR_INVALID_ARG);
    b = o, b.tau_mm = INFINITY;
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, &b), KR_ERR_INVALID_ARG);
    b = o, b.scale = NAN;
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, &b), KR_ERR_INVALID_ARG);
    b = o, b.fuse = 2;
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, &b), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "fuse") != NULL);
    b = o, b.dtype = KR_C64;
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, &b), KR_ERR_DTYPE);
    b = o, b.method = (kr_filter_method)7;
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, &b), KR_ERR_INVALID_ARG);
    b = o, b.window = (kr_filter_window)-1;
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, &b), KR_ERR_INVALID_ARG);
    b = o, b.method = KR_FILTER_DIRECT, b.window = KR_WINDOW_HANN;
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, &b), KR_ERR_INVALID_ARG);
    b = o, b.method = KR_FILTER_SEED, b.cutoff = 0.5;
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, &b), KR_ERR_INVALID_ARG);
    b = o, b.pad_len = 15;
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, &b), KR_ERR_INVALID_ARG);
    b = o, b.pad_len = 17; /* any length >= 2 * 8 */
    KT_OK(kr_filter_plan_create(&p, c, 8, 2, &b));
    KT_CHECK(kr_filter_pad_len(p) == 17);
    kr_filter_plan_destroy(p);
    p = NULL;
    b = o, b.equiangular_rad = -0.1;
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, &b), KR_ERR_INVALID_ARG);
    b = o, b.equiangular_rad = 0.3; /* 7 * 0.3 rad = 120 degrees */
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, &b), KR_ERR_GEOMETRY);
    double bad[8] = {1, 1, 1, NAN, 1, 1, 1, 1};
    b = o, b.pre_weight = bad, b.pre_rows = 1;
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, &b), KR_ERR_INVALID_ARG);
    b = o, b.pre_weight = bad, b.pre_rows = 0;
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, &b), KR_ERR_INVALID_ARG);
    b = o, b.row_scale = bad, b.row_scale_count = 4;
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, &b), KR_ERR_INVALID_ARG);
    b = o, b.pre_row_div = -1;
    KT_STATUS(kr_filter_plan_create(&p, c, 8, 2, &b), KR_ERR_INVALID_ARG);
    KT_CHECK(p == NULL);

    KT_OK(kr_filter_plan_create(&p, c, 8, 2, &o));
    kr_array *x = rows(KR_F32, 8, 2, 1), *xd = rows(KR_F64, 8, 2, 1), *x3 = rows(KR_F32, 8, 3, 1);
    kr_array *x9 = rows(KR_F32, 9, 2, 1);
    KT_STATUS(kr_filter_execute(NULL, x, x), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_filter_execute(p, NULL, x), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_filter_execute(p, x, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_filter_execute(p, xd, x), KR_ERR_DTYPE);
    KT_STATUS(kr_filter_execute(p, x, xd), KR_ERR_DTYPE);
    KT_STATUS(kr_filter_execute(p, x3, x), KR_ERR_DIM);
    KT_STATUS(kr_filter_execute(p, x9, x), KR_ERR_DIM);
    kr_array dev;
    int64_t dims[2] = {8, 2};
    KT_OK(kr_array_wrap(&dev, KR_F32, 2, dims, x->data, KR_DEVICE));
    KT_STATUS(kr_filter_execute(p, &dev, x), KR_ERR_LOCATION);
    double h[9];
    KT_STATUS(kr_filter_kernel(p, h, 9), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_filter_kernel(NULL, h, 2), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_filter_response(p, NULL, 2), KR_ERR_INVALID_ARG);
    kr_filter_plan_destroy(p);
    b = o, b.method = KR_FILTER_DIRECT;
    KT_OK(kr_filter_plan_create(&p, c, 8, 2, &b));
    KT_STATUS(kr_filter_response(p, h, 2), KR_ERR_NOT_SUPPORTED);
    KT_CHECK(kr_filter_pad_len(p) == 0);
    kr_filter_plan_destroy(p);
    kr_filter_plan_destroy(NULL);
    /* a CUDA context without a device */
    kr_ctx *cu = NULL;
    kr_status s = kr_ctx_create(&cu, KR_BACKEND_CUDA);
    if (s == KR_OK) {
        p = NULL;
        KT_OK(kr_filter_plan_create(&p, cu, 8, 2, &o));
        KT_STATUS(kr_filter_execute(p, x, x), KR_ERR_LOCATION);
        kr_filter_plan_destroy(p);
        kr_ctx_destroy(cu);
    } else {
        KT_CHECK(s == KR_ERR_NO_DEVICE);
    }
    kr_array_destroy(x);
    kr_array_destroy(xd);
    kr_array_destroy(x3);
    kr_array_destroy(x9);
    kr_ctx_destroy(c);
}

int main(void)
{
    KT_RUN(test_kernels_match_formulas);
    KT_RUN(test_direct_and_fft_vs_brute);
    KT_RUN(test_windows);
    KT_RUN(test_windows_damp_high_frequencies);
    KT_RUN(test_serial_equals_threaded_and_inplace);
    KT_RUN(test_preweights);
    KT_RUN(test_f32_vs_f64);
    KT_RUN(test_pairs_layout);
    KT_RUN(test_planar_layout);
    KT_RUN(test_names);
    KT_RUN(test_dumb_inputs);
    return kt_finish();
}
