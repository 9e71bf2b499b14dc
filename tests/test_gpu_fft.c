/* Device FFT (cuFFT) vs host FFT (FFTW) on the same data: 1-D/2-D/3-D/4-D, odd and prime
 * sizes, centred and unitary, middle-axis and multi-axis batches, in place and out of place,
 * plan reuse, the cuFFT plan cache behind kr_fft; device shifts vs host shifts (exact); location
 * errors.
 * Bound asserted: max|device - host| / max|host| <= 2e-6 for c64 and 1e-14 for c128. */
#include "fft_internal.h"
#include "kt.h"

#include <complex.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define TOL_C64 2e-6
#define TOL_C128 1e-14

static kr_ctx *gctx;
static double worst64, worst128;

static kr_array *mk(kr_dtype t, int ndim, const int64_t *dims, uint64_t seed)
{
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, t, ndim, dims, KR_HOST, NULL));
    for (int64_t i = 0; i < 2 * kr_array_numel(a); i++) {
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
    if (a->dtype == KR_C64) return ((float *)a->data)[2 * i] + I * ((float *)a->data)[2 * i + 1];
    return ((double *)a->data)[2 * i] + I * ((double *)a->data)[2 * i + 1];
}

static double rel_diff(const kr_array *a, const kr_array *b)
{
    double e = 0, m = 0;
    for (int64_t i = 0; i < kr_array_numel(a); i++) {
        e = fmax(e, cabs(get(a, i) - get(b, i)));
        m = fmax(m, cabs(get(b, i)));
    }
    return m > 0 ? e / m : e;
}

static void run_case(kr_dtype t, int ndim, const int64_t *dims, unsigned axes, kr_fft_dir dir,
                     unsigned flags, uint64_t seed)
{
    kr_array *x = mk(t, ndim, dims, seed), *yh = NULL, *dx = NULL, *dy = NULL, *back = NULL,
             *back2 = NULL;
    KT_OK(kr_array_create_like(&yh, x, KR_HOST, NULL));
    KT_OK(kr_array_create_like(&back, x, KR_HOST, NULL));
    KT_OK(kr_array_create_like(&back2, x, KR_HOST, NULL));
    KT_OK(kr_fft(NULL, x, yh, axes, dir, flags));
    KT_OK(kr_array_clone(&dx, x, KR_DEVICE, gctx));
    KT_OK(kr_array_create_like(&dy, x, KR_DEVICE, gctx));
    KT_OK(kr_fft(gctx, dx, dy, axes, dir, flags));
    KT_OK(kr_array_copy(back, dy, gctx));
    double e = rel_diff(back, yh), tol = t == KR_C64 ? TOL_C64 : TOL_C128;
    char buf[64];
    KT_CHECK_MSG(e <= tol, "%s %s axes 0x%x dir %d flags %u: device vs host %.3g > %.3g",
                 kr_dtype_name(t), kr_dims_string(ndim, dims, buf, sizeof buf), axes, (int)dir,
                 flags, e, tol);
    double *w = t == KR_C64 ? &worst64 : &worst128;
    *w = fmax(*w, e);
    /* input untouched, and in place gives the same bits */
    KT_OK(kr_array_copy(back2, dx, gctx));
    KT_CHECK(memcmp(back2->data, x->data, kr_array_bytes(x)) == 0);
    KT_OK(kr_fft(gctx, dx, dx, axes, dir, flags));
    KT_OK(kr_array_copy(back2, dx, gctx));
    KT_CHECK(memcmp(back2->data, back->data, kr_array_bytes(x)) == 0);
    kr_array_destroy(x);
    kr_array_destroy(yh);
    kr_array_destroy(dx);
    kr_array_destroy(dy);
    kr_array_destroy(back);
    kr_array_destroy(back2);
}

static void test_gpu_vs_host(void)
{
    int64_t n64 = 64, n15 = 15, n97 = 97, a[2] = {12, 15}, b[2] = {7, 12}, c[3] = {7, 12, 15},
            d[3] = {64, 9, 6}, e[4] = {5, 6, 7, 4}, f[4] = {3, 8, 5, 6}, g[2] = {256, 256},
            h[3] = {4, 1, 3};
    for (int k = 0; k < 2; k++) {
        kr_dtype t = k ? KR_C128 : KR_C64;
        run_case(t, 1, &n64, 0, KR_FFT_FORWARD, 0, 1);
        run_case(t, 1, &n15, 0, KR_FFT_BACKWARD, 0, 2);
        run_case(t, 1, &n97, 0, KR_FFT_FORWARD, KR_FFT_CENTERED, 3);
        run_case(t, 1, &n15, 0, KR_FFT_BACKWARD, KR_FFT_CENTERED | KR_FFT_UNITARY, 4);
        run_case(t, 2, a, 0, KR_FFT_FORWARD, KR_FFT_CENTERED, 5);
        run_case(t, 2, b, 0, KR_FFT_BACKWARD, KR_FFT_CENTERED | KR_FFT_UNITARY, 6);
        run_case(t, 3, c, 2u, KR_FFT_FORWARD, 0, 7);               /* middle axis, batch outer */
        run_case(t, 3, d, 2u, KR_FFT_BACKWARD, KR_FFT_CENTERED, 8); /* middle axis, batch inner */
        run_case(t, 3, c, 5u, KR_FFT_FORWARD, KR_FFT_CENTERED | KR_FFT_UNITARY, 9);
        run_case(t, 4, e, 0, KR_FFT_FORWARD, KR_FFT_CENTERED, 10); /* rank 3 + rank 1 */
        run_case(t, 4, f, 6u, KR_FFT_BACKWARD, KR_FFT_CENTERED | KR_FFT_UNITARY, 11);
        run_case(t, 2, g, 0, KR_FFT_FORWARD, KR_FFT_CENTERED | KR_FFT_UNITARY, 12);
        run_case(t, 3, h, 2u, KR_FFT_FORWARD, KR_FFT_UNITARY, 13); /* only a length-1 axis */
    }
    printf("        worst device vs host: c64 %.3g (tol %.0e), c128 %.3g (tol %.0e)\n", worst64,
           TOL_C64, worst128, TOL_C128);
    KT_CHECK(worst64 > 0 && worst128 > 0);
}

static void test_gpu_plan_reuse(void)
{
    int64_t d[3] = {9, 10, 3};
    kr_fft_plan *p = NULL;
    KT_OK(kr_fft_plan_create(&p, gctx, KR_C64, 3, d, 3u, KR_FFT_FORWARD,
                             KR_FFT_CENTERED | KR_FFT_UNITARY, KR_DEVICE));
    for (int r = 0; r < 3; r++) {
        kr_array *x = mk(KR_C64, 3, d, 50 + r), *yh = NULL, *dx = NULL, *dy = NULL, *back = NULL;
        KT_OK(kr_array_create_like(&yh, x, KR_HOST, NULL));
        KT_OK(kr_array_create_like(&back, x, KR_HOST, NULL));
        KT_OK(kr_fft(NULL, x, yh, 3u, KR_FFT_FORWARD, KR_FFT_CENTERED | KR_FFT_UNITARY));
        KT_OK(kr_array_clone(&dx, x, KR_DEVICE, gctx));
        KT_OK(kr_array_create_like(&dy, x, KR_DEVICE, gctx));
        KT_OK(kr_fft_execute(p, dx, dy));
        KT_OK(kr_array_copy(back, dy, gctx));
        KT_LE(rel_diff(back, yh), TOL_C64);
        /* wrong location / dtype with this plan */
        KT_STATUS(kr_fft_execute(p, x, yh), KR_ERR_LOCATION);
        kr_array_destroy(x);
        kr_array_destroy(yh);
        kr_array_destroy(dx);
        kr_array_destroy(dy);
        kr_array_destroy(back);
    }
    kr_fft_plan_destroy(p);
}

/* Repeated kr_fft calls on one device shape make one cuFFT plan (the cache) and give the same
 * bits each time, also from two threads at once; kr_fft_cache_clear drops the plans, and the
 * next call makes a new one. */
static void test_gpu_plan_cache(void)
{
    int64_t d[2] = {30, 17};
    const unsigned fl = KR_FFT_CENTERED | KR_FFT_UNITARY;
    kr_array *x = mk(KR_C64, 2, d, 61), *y0 = NULL, *back = NULL, *dx = NULL, *dy = NULL;
    KT_OK(kr_array_create_like(&y0, x, KR_HOST, NULL));
    KT_OK(kr_array_create_like(&back, x, KR_HOST, NULL));
    KT_OK(kr_array_clone(&dx, x, KR_DEVICE, gctx));
    KT_OK(kr_array_create_like(&dy, x, KR_DEVICE, gctx));
    kr_fft_cache_clear();
    const int64_t n0 = kri_fft_plans_made(KR_DEVICE);
    KT_OK(kr_fft(gctx, dx, dy, 0, KR_FFT_BACKWARD, fl));
    KT_OK(kr_array_copy(y0, dy, gctx));
    const int64_t n1 = kri_fft_plans_made(KR_DEVICE);
    KT_CHECK(n1 == n0 + 1);
    for (int r = 0; r < 10; r++) KT_OK(kr_fft(gctx, dx, dy, 0, KR_FFT_BACKWARD, fl));
    KT_OK(kr_array_copy(back, dy, gctx));
    KT_CHECK(memcmp(back->data, y0->data, kr_array_bytes(x)) == 0);
    KT_CHECK(kri_fft_plans_made(KR_DEVICE) == n1);
    /* another shape or direction is another plan */
    KT_OK(kr_fft(gctx, dx, dy, 0, KR_FFT_FORWARD, fl));
    KT_CHECK(kri_fft_plans_made(KR_DEVICE) == n1 + 1);
    /* two threads at once, each with its own context: one plan each at most, the same bits */
    int bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
    {
        kr_ctx *c = NULL;
        kr_array *h = NULL, *o = NULL;
        if (kr_ctx_create(&c, KR_BACKEND_CUDA) != KR_OK ||
            kr_array_create_like(&h, x, KR_HOST, NULL) != KR_OK ||
            kr_array_create_like(&o, x, KR_DEVICE, c) != KR_OK)
            bad++;
        for (int r = 0; r < 20 && !bad; r++)
            if (kr_fft(c, dx, o, 0, KR_FFT_BACKWARD, fl) != KR_OK ||
                kr_array_copy(h, o, c) != KR_OK ||
                memcmp(h->data, y0->data, kr_array_bytes(x)) != 0)
                bad++;
        kr_array_destroy(h);
        kr_array_destroy(o);
        kr_ctx_destroy(c);
    }
    KT_CHECK(bad == 0);
    KT_CHECK(kri_fft_plans_made(KR_DEVICE) <= n1 + 2);
    const int64_t n2 = kri_fft_plans_made(KR_DEVICE);
    kr_fft_cache_clear();
    KT_OK(kr_fft(gctx, dx, dy, 0, KR_FFT_BACKWARD, fl));
    KT_CHECK(kri_fft_plans_made(KR_DEVICE) == n2 + 1);
    KT_OK(kr_array_copy(back, dy, gctx));
    KT_CHECK(memcmp(back->data, y0->data, kr_array_bytes(x)) == 0);
    kr_fft_cache_clear();
    kr_array_destroy(x);
    kr_array_destroy(y0);
    kr_array_destroy(back);
    kr_array_destroy(dx);
    kr_array_destroy(dy);
}

static void test_gpu_shift(void)
{
    const kr_dtype types[] = {KR_U8, KR_I16, KR_F32, KR_C64, KR_C128};
    int64_t d[3] = {5, 6, 7};
    const unsigned masks[] = {0, 1u, 6u};
    for (size_t t = 0; t < sizeof types / sizeof *types; t++)
        for (size_t m = 0; m < 3; m++)
            for (int inv = 0; inv < 2; inv++) {
                kr_status (*fn)(const kr_ctx *, const kr_array *, kr_array *, unsigned) =
                    inv ? kr_ifftshift : kr_fftshift;
                kr_array *x = NULL, *yh = NULL, *dx = NULL, *dy = NULL, *back = NULL;
                KT_OK(kr_array_create(&x, types[t], 3, d, KR_HOST, NULL));
                unsigned char *xb = x->data;
                for (size_t i = 0; i < kr_array_bytes(x); i++)
                    xb[i] = (unsigned char)kri_rand_u64(9, i);
                KT_OK(kr_array_create_like(&yh, x, KR_HOST, NULL));
                KT_OK(kr_array_create_like(&back, x, KR_HOST, NULL));
                KT_OK(fn(NULL, x, yh, masks[m]));
                KT_OK(kr_array_clone(&dx, x, KR_DEVICE, gctx));
                KT_OK(kr_array_create_like(&dy, x, KR_DEVICE, gctx));
                KT_OK(fn(gctx, dx, dy, masks[m]));
                KT_OK(kr_array_copy(back, dy, gctx));
                KT_CHECK(memcmp(back->data, yh->data, kr_array_bytes(x)) == 0);
                KT_OK(fn(gctx, dx, dx, masks[m])); /* in place */
                KT_OK(kr_array_copy(back, dx, gctx));
                KT_CHECK(memcmp(back->data, yh->data, kr_array_bytes(x)) == 0);
                kr_array_destroy(x);
                kr_array_destroy(yh);
                kr_array_destroy(dx);
                kr_array_destroy(dy);
                kr_array_destroy(back);
            }
}

static void test_gpu_locations(void)
{
    int64_t d[2] = {8, 8};
    kr_array *h = NULL, *dv = NULL;
    KT_OK(kr_array_create(&h, KR_C64, 2, d, KR_HOST, NULL));
    KT_OK(kr_array_create(&dv, KR_C64, 2, d, KR_DEVICE, gctx));
    KT_STATUS(kr_fft(gctx, h, h, 0, KR_FFT_FORWARD, 0), KR_ERR_LOCATION);
    KT_STATUS(kr_fft(gctx, h, dv, 0, KR_FFT_FORWARD, 0), KR_ERR_LOCATION);
    kr_ctx *cpu = NULL;
    KT_OK(kr_ctx_create(&cpu, KR_BACKEND_CPU));
    KT_STATUS(kr_fft(cpu, dv, dv, 0, KR_FFT_FORWARD, 0), KR_ERR_LOCATION);
    kr_fft_plan *p = NULL;
    KT_STATUS(kr_fft_plan_create(&p, cpu, KR_C64, 2, d, 0, KR_FFT_FORWARD, 0, KR_DEVICE),
              KR_ERR_LOCATION);
    KT_STATUS(kr_fft_plan_create(&p, gctx, KR_C64, 2, d, 0, KR_FFT_FORWARD, 0, KR_HOST),
              KR_ERR_LOCATION);
    kr_ctx_destroy(cpu);
    kr_array_destroy(h);
    kr_array_destroy(dv);
}

int main(void)
{
    kt_require_gpu();
    KT_OK(kr_ctx_create(&gctx, KR_BACKEND_CUDA));
    KT_RUN(test_gpu_vs_host);
    KT_RUN(test_gpu_plan_reuse);
    KT_RUN(test_gpu_plan_cache);
    KT_RUN(test_gpu_shift);
    KT_RUN(test_gpu_locations);
    kr_ctx_destroy(gctx);
    return kt_finish();
}
