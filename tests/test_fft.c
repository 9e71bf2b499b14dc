/* Host FFT (FFTW): direct-DFT references in double (1-D/2-D/3-D, odd and prime sizes, axis
 * subsets), round trip, unitary norm, centred transforms vs fftshift(fft(ifftshift(x))) by index
 * arithmetic and closed forms, c64 vs c128, thread-count and alignment invariance (bit for bit),
 * plan reuse, the plan cache (repeated kr_fft calls plan once), cache clearing, dumb inputs
 * with exact statuses. */
#include "fft_internal.h"
#include "kt.h"

#include <complex.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Tolerances on max|y - ref| / max|ref| (measured values are printed by each test). */
#define TOL_C128 1e-14
#define TOL_C64 1e-6

static double g_worst128, g_worst64;

static kr_array *mk(kr_dtype t, int ndim, const int64_t *dims, uint64_t seed)
{
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, t, ndim, dims, KR_HOST, NULL));
    if (!a) return NULL;
    int64_t n = kr_array_numel(a);
    for (int64_t i = 0; i < 2 * n; i++) {
        double v = kri_rand_sym(seed, (uint64_t)i);
        if (t == KR_C64)
            ((float *)a->data)[i] = (float)v;
        else
            ((double *)a->data)[i] = v;
    }
    return a;
}

static double complex get(const kr_array *a, int64_t i)
{
    if (a->dtype == KR_C64) {
        const float *f = a->data;
        return f[2 * i] + I * f[2 * i + 1];
    }
    const double *d = a->data;
    return d[2 * i] + I * d[2 * i + 1];
}

/* Reference: for each selected axis (ascending), each line: optional ifftshift by index
 * arithmetic u[j] = x[(j + n/2) % n], direct DFT v[k] = sum_j u[j] exp(sign 2 pi i jk/n) with
 * the phase reduced exactly, optional fftshift out[(k + n/2) % n] = v[k]. */
static void ref_fft(const kr_array *x, double complex *y, unsigned axes, int sign, int centered,
                    int unitary)
{
    int64_t numel = kr_array_numel(x), inner = 1, nmax = 1;
    for (int64_t i = 0; i < numel; i++) y[i] = get(x, i);
    for (int d = 0; d < x->ndim; d++) nmax = x->dims[d] > nmax ? x->dims[d] : nmax;
    double complex *u = malloc((size_t)nmax * sizeof *u), *v = malloc((size_t)nmax * sizeof *v);
    long double complex *tw = malloc((size_t)nmax * sizeof *tw);
    double scale = 1.0;
    for (int d = 0; d < x->ndim; d++) {
        int64_t n = x->dims[d], outer = numel / (inner * n), h = centered ? n / 2 : 0;
        if ((axes == 0 || (axes & (1u << d))) && n > 1) {
            scale *= (double)n;
            for (int64_t m = 0; m < n; m++) {
                long double ph = 2.0L * 3.14159265358979323846264338327950288L * (long double)m /
                                 (long double)n;
                tw[m] = cosl(ph) + sign * I * sinl(ph);
            }
            for (int64_t o = 0; o < outer; o++)
                for (int64_t i = 0; i < inner; i++) {
                    double complex *line = y + o * n * inner + i;
                    for (int64_t j = 0; j < n; j++) u[j] = line[((j + h) % n) * inner];
                    for (int64_t k = 0; k < n; k++) {
                        long double complex acc = 0;
                        for (int64_t j = 0; j < n; j++) acc += u[j] * tw[(j * k) % n];
                        v[k] = (double complex)acc;
                    }
                    for (int64_t k = 0; k < n; k++) line[((k + h) % n) * inner] = v[k];
                }
        }
        inner *= n;
    }
    if (unitary)
        for (int64_t i = 0; i < numel; i++) y[i] /= sqrt(scale);
    free(u);
    free(v);
    free(tw);
}

static double rel_err(const kr_array *y, const double complex *ref)
{
    double e = 0, m = 0;
    for (int64_t i = 0; i < kr_array_numel(y); i++) {
        double d = cabs(get(y, i) - ref[i]), r = cabs(ref[i]);
        e = d > e ? d : e;
        m = r > m ? r : m;
    }
    return m > 0 ? e / m : e;
}

/* Transform `x` (not in place) and compare with the reference; returns the relative error. */
static double check_case(kr_dtype t, int ndim, const int64_t *dims, unsigned axes, kr_fft_dir dir,
                         unsigned flags, uint64_t seed)
{
    kr_array *x = mk(t, ndim, dims, seed), *y = NULL;
    KT_OK(kr_array_create_like(&y, x, KR_HOST, NULL));
    double complex *ref = malloc((size_t)kr_array_numel(x) * sizeof *ref);
    ref_fft(x, ref, axes, (int)dir, (flags & KR_FFT_CENTERED) != 0,
            (flags & KR_FFT_UNITARY) != 0);
    KT_OK(kr_fft(NULL, x, y, axes, dir, flags));
    double e = rel_err(y, ref);
    /* the same in place */
    KT_OK(kr_fft(NULL, x, x, axes, dir, flags));
    KT_CHECK(memcmp(x->data, y->data, kr_array_bytes(x)) == 0);
    double tol = t == KR_C64 ? TOL_C64 : TOL_C128;
    char buf[64];
    KT_CHECK_MSG(e <= tol, "%s %s axes 0x%x dir %d flags %u: rel. error %.3g > %.3g",
                 kr_dtype_name(t), kr_dims_string(ndim, dims, buf, sizeof buf), axes, (int)dir,
                 flags, e, tol);
    double *w = t == KR_C64 ? &g_worst64 : &g_worst128;
    *w = e > *w ? e : *w;
    free(ref);
    kr_array_destroy(x);
    kr_array_destroy(y);
    return e;
}

static void test_1d_direct(void)
{
    const int64_t sizes[] = {1, 2, 3, 7, 12, 15, 64, 97, 1000};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int t = 0; t < 2; t++) {
            kr_dtype dt = t ? KR_C128 : KR_C64;
            check_case(dt, 1, &sizes[s], 0, KR_FFT_FORWARD, 0, 10 + s);
            check_case(dt, 1, &sizes[s], 0, KR_FFT_BACKWARD, 0, 20 + s);
        }
    /* A batch of many short contiguous lines (several units). */
    int64_t d2[2] = {7, 3000};
    check_case(KR_C128, 2, d2, 1, KR_FFT_FORWARD, 0, 5);
    check_case(KR_C64, 2, d2, 1, KR_FFT_FORWARD, 0, 6);
}

static void test_nd_direct(void)
{
    int64_t a[2] = {12, 15}, b[2] = {7, 64}, c[3] = {7, 12, 15}, d[4] = {5, 1, 6, 3};
    for (int t = 0; t < 2; t++) {
        kr_dtype dt = t ? KR_C128 : KR_C64;
        check_case(dt, 2, a, 0, KR_FFT_FORWARD, 0, 1);
        check_case(dt, 2, b, 0, KR_FFT_BACKWARD, 0, 2);
        check_case(dt, 3, c, 0, KR_FFT_FORWARD, 0, 3);
        check_case(dt, 4, d, 0, KR_FFT_FORWARD, 0, 4);
    }
}

static void test_axes_subset(void)
{
    int64_t c[3] = {7, 12, 15}, w[3] = {64, 9, 600};
    for (int t = 0; t < 2; t++) {
        kr_dtype dt = t ? KR_C128 : KR_C64;
        check_case(dt, 3, c, 1u << 1, KR_FFT_FORWARD, 0, 31); /* middle axis only */
        check_case(dt, 3, c, 1u << 0, KR_FFT_BACKWARD, 0, 32);
        check_case(dt, 3, c, 1u << 2, KR_FFT_FORWARD, 0, 33);
        check_case(dt, 3, c, 5u, KR_FFT_FORWARD, KR_FFT_CENTERED, 34);
        check_case(dt, 3, w, 1u << 1, KR_FFT_FORWARD, KR_FFT_CENTERED | KR_FFT_UNITARY, 35);
    }
    /* Selecting only axes of length 1 is the identity (copy). */
    int64_t e[3] = {4, 1, 3};
    kr_array *x = mk(KR_C64, 3, e, 9), *y = NULL;
    KT_OK(kr_array_create_like(&y, x, KR_HOST, NULL));
    KT_OK(kr_fft(NULL, x, y, 1u << 1, KR_FFT_FORWARD, KR_FFT_UNITARY | KR_FFT_CENTERED));
    KT_CHECK(memcmp(x->data, y->data, kr_array_bytes(x)) == 0);
    kr_array_destroy(x);
    kr_array_destroy(y);
}

static double norm2(const kr_array *a)
{
    double s = 0;
    for (int64_t i = 0; i < kr_array_numel(a); i++) s += pow(cabs(get(a, i)), 2);
    return sqrt(s);
}

static void test_roundtrip_unitary(void)
{
    int64_t d[3] = {15, 8, 7};
    for (int t = 0; t < 2; t++) {
        kr_dtype dt = t ? KR_C128 : KR_C64;
        double tol = t ? TOL_C128 : TOL_C64;
        kr_array *x = mk(dt, 3, d, 41), *y = NULL, *z = NULL;
        KT_OK(kr_array_create_like(&y, x, KR_HOST, NULL));
        KT_OK(kr_array_create_like(&z, x, KR_HOST, NULL));
        /* forward then backward = N x identity */
        KT_OK(kr_fft(NULL, x, y, 0, KR_FFT_FORWARD, 0));
        KT_OK(kr_fft(NULL, y, z, 0, KR_FFT_BACKWARD, 0));
        double e = 0, m = 0;
        for (int64_t i = 0; i < kr_array_numel(x); i++) {
            e = fmax(e, cabs(get(z, i) / 840.0 - get(x, i)));
            m = fmax(m, cabs(get(x, i)));
        }
        KT_LE(e / m, tol);
        /* unitary preserves the 2-norm; unitary forward then backward is the identity */
        KT_OK(kr_fft(NULL, x, y, 0, KR_FFT_FORWARD, KR_FFT_UNITARY | KR_FFT_CENTERED));
        KT_NEAR(norm2(y) / norm2(x), 1.0, 10 * tol);
        KT_OK(kr_fft(NULL, y, z, 0, KR_FFT_BACKWARD, KR_FFT_UNITARY | KR_FFT_CENTERED));
        e = 0;
        for (int64_t i = 0; i < kr_array_numel(x); i++) e = fmax(e, cabs(get(z, i) - get(x, i)));
        KT_LE(e / m, tol);
        /* unitary = plain / sqrt(prod N) against the reference */
        check_case(dt, 3, d, 0, KR_FFT_BACKWARD, KR_FFT_UNITARY, 42);
        kr_array_destroy(x);
        kr_array_destroy(y);
        kr_array_destroy(z);
    }
}

static void test_centered(void)
{
    const int64_t sizes[] = {2, 5, 6, 7, 12, 15};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int t = 0; t < 2; t++) {
            kr_dtype dt = t ? KR_C128 : KR_C64;
            check_case(dt, 1, &sizes[s], 0, KR_FFT_FORWARD, KR_FFT_CENTERED, 50 + s);
            check_case(dt, 1, &sizes[s], 0, KR_FFT_BACKWARD, KR_FFT_CENTERED, 60 + s);
        }
    int64_t a[2] = {7, 12}, b[3] = {5, 6, 9};
    check_case(KR_C128, 2, a, 0, KR_FFT_FORWARD, KR_FFT_CENTERED, 71);
    check_case(KR_C64, 3, b, 0, KR_FFT_BACKWARD, KR_FFT_CENTERED | KR_FFT_UNITARY, 72);

    /* Closed forms: a unit impulse at the centre (N/2) transforms to all ones; a constant to
     * N at the centre, zero elsewhere; for even and odd N. */
    for (int64_t n = 4; n <= 9; n++) {
        kr_array *x = NULL, *y = NULL;
        KT_OK(kr_array_create(&x, KR_C128, 1, &n, KR_HOST, NULL));
        KT_OK(kr_array_create_like(&y, x, KR_HOST, NULL));
        double *xd = x->data;
        xd[2 * (n / 2)] = 1.0;
        KT_OK(kr_fft(NULL, x, y, 0, KR_FFT_FORWARD, KR_FFT_CENTERED));
        for (int64_t k = 0; k < n; k++) KT_NEAR(cabs(get(y, k) - 1.0), 0, 1e-15);
        for (int64_t k = 0; k < n; k++) xd[2 * k] = 1.0, xd[2 * k + 1] = 0.0;
        KT_OK(kr_fft(NULL, x, y, 0, KR_FFT_BACKWARD, KR_FFT_CENTERED));
        for (int64_t k = 0; k < n; k++)
            KT_NEAR(cabs(get(y, k) - (k == n / 2 ? (double)n : 0.0)), 0, 1e-14);
        kr_array_destroy(x);
        kr_array_destroy(y);
    }
}

static void test_c64_vs_c128(void)
{
    int64_t d[3] = {30, 21, 8};
    kr_array *x = mk(KR_C128, 3, d, 81), *xf = NULL, *y = NULL, *yf = NULL;
    KT_OK(kr_array_astype(&xf, x, KR_C64));
    KT_OK(kr_array_convert(x, xf)); /* both hold the same float-representable values */
    KT_OK(kr_array_create_like(&y, x, KR_HOST, NULL));
    KT_OK(kr_array_create_like(&yf, xf, KR_HOST, NULL));
    KT_OK(kr_fft(NULL, x, y, 0, KR_FFT_FORWARD, KR_FFT_CENTERED | KR_FFT_UNITARY));
    KT_OK(kr_fft(NULL, xf, yf, 0, KR_FFT_FORWARD, KR_FFT_CENTERED | KR_FFT_UNITARY));
    double e = 0, m = 0;
    for (int64_t i = 0; i < kr_array_numel(x); i++) {
        e = fmax(e, cabs(get(y, i) - get(yf, i)));
        m = fmax(m, cabs(get(y, i)));
    }
    printf("        c64 vs c128 (30x21x8 centred unitary): rel. max diff %.3g\n", e / m);
    KT_LE(e / m, TOL_C64);
    KT_GE(e / m, 1e-12); /* the c64 path really ran in single precision */
    kr_array_destroy(x);
    kr_array_destroy(xf);
    kr_array_destroy(y);
    kr_array_destroy(yf);
}

/* Bit-identical output for 1, 2, 3 threads, the serial backend, and a misaligned input. */
static void test_threads_bits(void)
{
    int64_t shapes[3][3] = {{36, 20, 9}, {100, 64, 1}, {5, 7, 300}};
    unsigned axes[3] = {0, 2u, 6u};
    for (int t = 0; t < 2; t++)
        for (int s = 0; s < 3; s++) {
            kr_dtype dt = t ? KR_C128 : KR_C64;
            kr_array *x = mk(dt, 3, shapes[s], 91 + s), *ref = NULL, *y = NULL;
            KT_OK(kr_array_create_like(&ref, x, KR_HOST, NULL));
            KT_OK(kr_array_create_like(&y, x, KR_HOST, NULL));
            kr_ctx *c = NULL;
            KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU_SERIAL));
            KT_OK(kr_fft(c, x, ref, axes[s], KR_FFT_FORWARD, KR_FFT_CENTERED | KR_FFT_UNITARY));
            kr_ctx_destroy(c);
            KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
            for (int nt = 1; nt <= 3; nt++) {
                KT_OK(kr_ctx_set_threads(c, nt));
                memset(y->data, 0, kr_array_bytes(y));
                KT_OK(kr_fft(c, x, y, axes[s], KR_FFT_FORWARD, KR_FFT_CENTERED | KR_FFT_UNITARY));
                KT_CHECK_MSG(memcmp(y->data, ref->data, kr_array_bytes(y)) == 0,
                             "%s shape %d differs with %d threads", kr_dtype_name(dt), s, nt);
            }
            /* input at an address 8 bytes off the usual alignment */
            size_t bytes = kr_array_bytes(x);
            unsigned char *raw = malloc(bytes + 64);
            kr_array w;
            KT_OK(kr_array_wrap(&w, dt, 3, shapes[s], raw + 8, KR_HOST));
            memcpy(raw + 8, x->data, bytes);
            KT_OK(kr_fft(c, &w, &w, axes[s], KR_FFT_FORWARD, KR_FFT_CENTERED | KR_FFT_UNITARY));
            KT_CHECK(memcmp(raw + 8, ref->data, bytes) == 0);
            free(raw);
            kr_ctx_destroy(c);
            kr_array_destroy(x);
            kr_array_destroy(ref);
            kr_array_destroy(y);
        }
}

/* kr_fft from several threads at once (shared plan cache, planner lock), with cache clears. */
static void test_concurrent(void)
{
    int64_t shapes[4][2] = {{12, 15}, {64, 7}, {9, 9}, {100, 3}};
    kr_array *x[4], *ref[4];
    for (int s = 0; s < 4; s++) {
        x[s] = mk(KR_C64, 2, shapes[s], 200 + s);
        KT_OK(kr_array_create_like(&ref[s], x[s], KR_HOST, NULL));
        KT_OK(kr_fft(NULL, x[s], ref[s], 0, KR_FFT_FORWARD, KR_FFT_CENTERED));
    }
    int bad = 0;
#pragma omp parallel num_threads(4) reduction(+ : bad)
    {
        kr_ctx *c = NULL;
        if (kr_ctx_create(&c, KR_BACKEND_CPU_SERIAL) != KR_OK) bad++;
        for (int r = 0; r < 40 && c; r++) {
            int s = (r + omp_get_thread_num()) % 4;
            kr_array *y = NULL;
            if (kr_array_create_like(&y, x[s], KR_HOST, NULL) != KR_OK) {
                bad++;
                break;
            }
            if (kr_fft(c, x[s], y, 0, KR_FFT_FORWARD, KR_FFT_CENTERED) != KR_OK ||
                memcmp(y->data, ref[s]->data, kr_array_bytes(y)) != 0)
                bad++;
            if (r % 10 == 9) kr_fft_cache_clear();
            kr_array_destroy(y);
        }
        kr_ctx_destroy(c);
    }
    KT_CHECK(bad == 0);
    for (int s = 0; s < 4; s++) {
        kr_array_destroy(x[s]);
        kr_array_destroy(ref[s]);
    }
}

/* More distinct shapes than the cache holds (64): idle plans are evicted, a live one is not. */
static void test_cache_eviction(void)
{
    int64_t d = 48;
    kr_fft_plan *live = NULL;
    KT_OK(kr_fft_plan_create(&live, NULL, KR_C128, 1, &d, 0, KR_FFT_FORWARD, 0, KR_HOST));
    for (int64_t n = 2; n <= 110; n++) check_case(KR_C128, 1, &n, 0, KR_FFT_BACKWARD, 0, 300 + n);
    kr_array *x = mk(KR_C128, 1, &d, 5), *y = NULL;
    KT_OK(kr_array_create_like(&y, x, KR_HOST, NULL));
    double complex ref[48];
    ref_fft(x, ref, 0, -1, 0, 0);
    KT_OK(kr_fft_execute(live, x, y));
    KT_LE(rel_err(y, ref), TOL_C128);
    kr_fft_plan_destroy(live);
    kr_array_destroy(x);
    kr_array_destroy(y);
}

/* Repeated kr_fft calls on one shape plan once (the FFTW plans come from the cache); after
 * kr_fft_cache_clear the next call plans again, and gives the same bits. */
static void test_plan_cache(void)
{
    int64_t d[2] = {21, 10};
    kr_array *x = mk(KR_C64, 2, d, 41), *y = NULL, *y0 = NULL;
    KT_OK(kr_array_create_like(&y, x, KR_HOST, NULL));
    KT_OK(kr_array_create_like(&y0, x, KR_HOST, NULL));
    kr_fft_cache_clear();
    const int64_t n0 = kri_fft_plans_made(KR_HOST);
    KT_OK(kr_fft(NULL, x, y0, 0, KR_FFT_FORWARD, KR_FFT_CENTERED));
    const int64_t n1 = kri_fft_plans_made(KR_HOST);
    KT_CHECK(n1 == n0 + 2); /* one plan per axis */
    for (int r = 0; r < 5; r++) {
        KT_OK(kr_fft(NULL, x, y, 0, KR_FFT_FORWARD, KR_FFT_CENTERED));
        KT_CHECK(memcmp(y->data, y0->data, kr_array_bytes(y)) == 0);
    }
    KT_CHECK(kri_fft_plans_made(KR_HOST) == n1);
    kr_fft_cache_clear();
    KT_OK(kr_fft(NULL, x, y, 0, KR_FFT_FORWARD, KR_FFT_CENTERED));
    KT_CHECK(kri_fft_plans_made(KR_HOST) == n1 + 2);
    KT_CHECK(memcmp(y->data, y0->data, kr_array_bytes(y)) == 0);
    kr_array_destroy(x);
    kr_array_destroy(y);
    kr_array_destroy(y0);
}

static void test_plan_reuse(void)
{
    int64_t d[2] = {15, 12};
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
    kr_fft_plan *p = NULL;
    KT_OK(kr_fft_plan_create(&p, c, KR_C128, 2, d, 0, KR_FFT_BACKWARD, KR_FFT_CENTERED, KR_HOST));
    for (int r = 0; r < 3; r++) {
        kr_array *x = mk(KR_C128, 2, d, 100 + r), *x0 = NULL, *y = NULL;
        KT_OK(kr_array_clone(&x0, x, KR_HOST, NULL));
        KT_OK(kr_array_create_like(&y, x, KR_HOST, NULL));
        double complex ref[180];
        ref_fft(x, ref, 0, +1, 1, 0);
        KT_OK(kr_fft_execute(p, x, y));
        KT_CHECK(memcmp(x->data, x0->data, kr_array_bytes(x)) == 0); /* input untouched */
        KT_LE(rel_err(y, ref), TOL_C128);
        KT_OK(kr_fft_execute(p, x, x)); /* in place */
        KT_CHECK(memcmp(x->data, y->data, kr_array_bytes(x)) == 0);
        kr_array_destroy(x);
        kr_array_destroy(x0);
        kr_array_destroy(y);
    }
    /* The cache can be cleared while the plan lives; the plan keeps working. */
    kr_fft_cache_clear();
    kr_array *x = mk(KR_C128, 2, d, 7), *y = NULL;
    KT_OK(kr_array_create_like(&y, x, KR_HOST, NULL));
    double complex ref[180];
    ref_fft(x, ref, 0, +1, 1, 0);
    KT_OK(kr_fft_execute(p, x, y));
    KT_LE(rel_err(y, ref), TOL_C128);
    kr_fft_plan_destroy(p);
    kr_fft_cache_clear();
    KT_OK(kr_fft(c, x, y, 0, KR_FFT_BACKWARD, KR_FFT_CENTERED)); /* replans after cleanup */
    KT_LE(rel_err(y, ref), TOL_C128);
    kr_array_destroy(x);
    kr_array_destroy(y);
    kr_ctx_destroy(c);
}

static void test_dumb_inputs(void)
{
    int64_t d[2] = {4, 4}, d5[2] = {4, 5}, zero[2] = {4, 0};
    kr_fft_plan *p = NULL;
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
    KT_STATUS(kr_fft_plan_create(NULL, c, KR_C64, 2, d, 0, KR_FFT_FORWARD, 0, KR_HOST),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fft_plan_create(&p, c, KR_C64, 2, NULL, 0, KR_FFT_FORWARD, 0, KR_HOST),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fft_plan_create(&p, c, KR_F32, 2, d, 0, KR_FFT_FORWARD, 0, KR_HOST), KR_ERR_DTYPE);
    KT_STATUS(kr_fft_plan_create(&p, c, KR_C64, 0, d, 0, KR_FFT_FORWARD, 0, KR_HOST), KR_ERR_DIM);
    KT_STATUS(kr_fft_plan_create(&p, c, KR_C64, 2, zero, 0, KR_FFT_FORWARD, 0, KR_HOST),
              KR_ERR_DIM);
    KT_STATUS(kr_fft_plan_create(&p, c, KR_C64, 2, d, 1u << 2, KR_FFT_FORWARD, 0, KR_HOST),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fft_plan_create(&p, c, KR_C64, 2, d, 0, (kr_fft_dir)0, 0, KR_HOST),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fft_plan_create(&p, c, KR_C64, 2, d, 0, KR_FFT_FORWARD, 4u, KR_HOST),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fft_plan_create(&p, c, KR_C64, 2, d, 0, KR_FFT_FORWARD, 0, (kr_loc)7),
              KR_ERR_INVALID_ARG);
    KT_CHECK(p == NULL);
    int ndev = 0;
    if (kr_cuda_device_count(&ndev) != KR_OK) /* no GPU: device plans cannot exist */
        KT_STATUS(kr_fft_plan_create(&p, c, KR_C64, 2, d, 0, KR_FFT_FORWARD, 0, KR_DEVICE),
                  KR_ERR_NO_DEVICE);
    else
        KT_STATUS(kr_fft_plan_create(&p, c, KR_C64, 2, d, 0, KR_FFT_FORWARD, 0, KR_DEVICE),
                  KR_ERR_LOCATION);
    kr_fft_plan_destroy(NULL);

    kr_array *a = NULL, *b = NULL, *f = NULL, *g = NULL, *a5 = NULL, *a128 = NULL;
    KT_OK(kr_array_create(&a, KR_C64, 2, d, KR_HOST, NULL));
    KT_OK(kr_array_create(&b, KR_C64, 2, d, KR_HOST, NULL));
    KT_OK(kr_array_create(&f, KR_F32, 2, d, KR_HOST, NULL));
    KT_OK(kr_array_create(&g, KR_F32, 2, d, KR_HOST, NULL));
    KT_OK(kr_array_create(&a5, KR_C64, 2, d5, KR_HOST, NULL));
    KT_OK(kr_array_create(&a128, KR_C128, 2, d, KR_HOST, NULL));
    KT_STATUS(kr_fft(c, NULL, b, 0, KR_FFT_FORWARD, 0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fft(c, a, NULL, 0, KR_FFT_FORWARD, 0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fft(c, f, g, 0, KR_FFT_FORWARD, 0), KR_ERR_DTYPE);
    KT_STATUS(kr_fft(c, a, a128, 0, KR_FFT_FORWARD, 0), KR_ERR_DTYPE);
    KT_STATUS(kr_fft(c, a, a5, 0, KR_FFT_FORWARD, 0), KR_ERR_DIM);
    KT_STATUS(kr_fft(c, a, b, 1u << 2, KR_FFT_FORWARD, 0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fft(c, a, b, 1u << 31, KR_FFT_FORWARD, 0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fft(c, a, b, 0, (kr_fft_dir)2, 0), KR_ERR_INVALID_ARG);

    /* Device arrays with a CPU context (the pointer is never touched). */
    kr_array dv, dv2;
    KT_OK(kr_array_wrap(&dv, KR_C64, 2, d, (void *)(uintptr_t)0x1000, KR_DEVICE));
    KT_OK(kr_array_wrap(&dv2, KR_C64, 2, d, (void *)(uintptr_t)0x2000, KR_DEVICE));
    KT_STATUS(kr_fft(c, &dv, &dv2, 0, KR_FFT_FORWARD, 0), KR_ERR_LOCATION);
    KT_STATUS(kr_fft(c, &dv, &dv, 0, KR_FFT_FORWARD, 0), KR_ERR_LOCATION);
    KT_STATUS(kr_fft(NULL, &dv, &dv, 0, KR_FFT_FORWARD, 0), KR_ERR_LOCATION);
    KT_STATUS(kr_fft(c, a, &dv, 0, KR_FFT_FORWARD, 0), KR_ERR_LOCATION);
    KT_STATUS(kr_fftshift(c, &dv, &dv, 0), KR_ERR_LOCATION);

    /* Non-contiguous and overlapping arrays. */
    kr_array nc = *a;
    nc.strides[1] = 5;
    KT_STATUS(kr_fft(c, &nc, b, 0, KR_FFT_FORWARD, 0), KR_ERR_NOT_SUPPORTED);
    int64_t d3[1] = {3};
    kr_array o1, o2;
    KT_OK(kr_array_wrap(&o1, KR_C64, 1, d3, a->data, KR_HOST));
    KT_OK(kr_array_wrap(&o2, KR_C64, 1, d3, (char *)a->data + 8, KR_HOST));
    KT_STATUS(kr_fft(c, &o1, &o2, 0, KR_FFT_FORWARD, 0), KR_ERR_INVALID_ARG);
    kr_array nod = *a;
    nod.data = NULL;
    KT_STATUS(kr_fft(c, &nod, b, 0, KR_FFT_FORWARD, 0), KR_ERR_INVALID_ARG);

    /* Execute with arrays that do not match the plan. */
    KT_OK(kr_fft_plan_create(&p, c, KR_C64, 2, d, 0, KR_FFT_FORWARD, 0, KR_HOST));
    KT_STATUS(kr_fft_execute(NULL, a, b), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fft_execute(p, NULL, b), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fft_execute(p, a, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fft_execute(p, a128, a128), KR_ERR_DTYPE);
    KT_STATUS(kr_fft_execute(p, f, f), KR_ERR_DTYPE);
    KT_STATUS(kr_fft_execute(p, a5, a5), KR_ERR_DIM);
    KT_STATUS(kr_fft_execute(p, a, a5), KR_ERR_DIM);
    KT_STATUS(kr_fft_execute(p, &dv, &dv), KR_ERR_LOCATION);
    KT_OK(kr_fft_execute(p, a, b));
    kr_fft_plan_destroy(p);

    /* A host plan needs a CPU context (or NULL): a serial ctx works too. */
    kr_ctx *s = NULL;
    KT_OK(kr_ctx_create(&s, KR_BACKEND_CPU_SERIAL));
    KT_OK(kr_fft(s, a, b, 0, KR_FFT_FORWARD, 0));
    kr_ctx_destroy(s);

    kr_array_destroy(a);
    kr_array_destroy(b);
    kr_array_destroy(f);
    kr_array_destroy(g);
    kr_array_destroy(a5);
    kr_array_destroy(a128);
    kr_ctx_destroy(c);
}

static void test_summary(void)
{
    printf("        worst rel. error vs direct DFT: c128 %.3g (tol %.0e), c64 %.3g (tol %.0e)\n",
           g_worst128, TOL_C128, g_worst64, TOL_C64);
    KT_CHECK(g_worst128 > 0 && g_worst64 > 0);
}

int main(void)
{
    KT_RUN(test_1d_direct);
    KT_RUN(test_nd_direct);
    KT_RUN(test_axes_subset);
    KT_RUN(test_roundtrip_unitary);
    KT_RUN(test_centered);
    KT_RUN(test_c64_vs_c128);
    KT_RUN(test_threads_bits);
    KT_RUN(test_concurrent);
    KT_RUN(test_cache_eviction);
    KT_RUN(test_plan_reuse);
    KT_RUN(test_plan_cache);
    KT_RUN(test_dumb_inputs);
    KT_RUN(test_summary);
    kr_fft_cache_clear();
    return kt_finish();
}
