/* Goertzel: full images against kr_fft (BACKWARD | CENTERED, unnormalised) for odd and even
 * sizes, fractional points against a direct double sum written here from goertzel.h, the error
 * growth with size, thread-count independence, and dumb inputs with their exact statuses. */
#include "kray/goertzel.h"
#include "core/internal.h"
#include "kt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static kr_ctx *ctx_of(kr_backend b, int threads)
{
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, b));
    if (c && threads > 0) KT_OK(kr_ctx_set_threads(c, threads));
    return c;
}


/* max |a - b| / max |b| over all elements */
static double rel_max(const kr_array *a, const kr_array *b)
{
    double e = 0, m = 0;
    for (int64_t i = 0; i < kr_array_numel(b); i++) {
        double dr = kt_cget(a, i, 0) - kt_cget(b, i, 0), di = kt_cget(a, i, 1) - kt_cget(b, i, 1);
        e = fmax(e, hypot(dr, di));
        m = fmax(m, hypot(kt_cget(b, i, 0), kt_cget(b, i, 1)));
    }
    return e / m;
}

/* Direct sum of goertzel.h's formula in long double for member b. */
static void direct(const kr_array *k, int64_t b, double x, double y, double *re, double *im)
{
    const int64_t nx = k->dims[0], ny = k->dims[1];
    long double sr = 0, si = 0;
    for (int64_t j = 0; j < ny; j++)
        for (int64_t i = 0; i < nx; i++) {
            long double ph = 2.0L * (long double)PI *
                             ((long double)(i - nx / 2) * x / nx + (long double)(j - ny / 2) * y / ny);
            long double c = cosl(ph), s = sinl(ph);
            int64_t o = i + nx * (j + ny * b);
            double ar = kt_cget(k, o, 0), ai = kt_cget(k, o, 1);
            sr += ar * c - ai * s;
            si += ar * s + ai * c;
        }
    *re = (double)sr, *im = (double)si;
}

static void full_vs_fft(int64_t nx, int64_t ny, kr_dtype dt, double tol)
{
    kr_ctx *c = ctx_of(KR_BACKEND_CPU, 2);
    int64_t d[3] = {nx, ny, 3};
    kr_array *k = kt_rand_complex(dt, 3, d, (uint64_t)(nx * 131 + ny)), *img = NULL, *ref = NULL;
    KT_OK(kr_array_create(&img, dt, 3, d, KR_HOST, NULL));
    KT_OK(kr_array_create(&ref, dt, 3, d, KR_HOST, NULL));
    KT_OK(kr_goertzel2d_image(c, k, img));
    KT_OK(kr_fft(c, k, ref, 3u, KR_FFT_BACKWARD, KR_FFT_CENTERED));
    double e = rel_max(img, ref);
    printf("  full %lldx%lld x3 %s: max err / max |fft| = %.3g\n", (long long)nx, (long long)ny,
           kr_dtype_name(dt), e);
    KT_LE(e, tol);
    /* the same points through kr_goertzel2d */
    int64_t np = nx * ny;
    double *xy = malloc((size_t)np * 2 * sizeof(double));
    for (int64_t j = 0; j < ny; j++)
        for (int64_t i = 0; i < nx; i++)
            xy[2 * (i + nx * j)] = (double)(i - nx / 2), xy[2 * (i + nx * j) + 1] = (double)(j - ny / 2);
    kr_array *pts = NULL;
    int64_t pd[2] = {np, 3};
    KT_OK(kr_array_create(&pts, dt, 2, pd, KR_HOST, NULL));
    KT_OK(kr_goertzel2d(c, k, np, xy, pts));
    KT_CHECK(memcmp(pts->data, img->data, kr_array_bytes(img)) == 0);
    free(xy);
    kr_array_destroy(pts), kr_array_destroy(k), kr_array_destroy(img), kr_array_destroy(ref);
    kr_ctx_destroy(c);
}

static void test_full_vs_fft(void)
{
    full_vs_fft(8, 6, KR_C128, 1e-13);
    full_vs_fft(7, 5, KR_C128, 1e-13);
    full_vs_fft(33, 40, KR_C128, 1e-13);
    full_vs_fft(115, 115, KR_C128, 1e-12);
    full_vs_fft(8, 6, KR_C64, 2e-6);
    full_vs_fft(115, 115, KR_C64, 2e-6);
    full_vs_fft(1, 9, KR_C128, 1e-13);
}

/* Fractional points (and the two ends of the range) against the direct sum; error vs size. */
static void test_points_direct(void)
{
    kr_ctx *c = ctx_of(KR_BACKEND_CPU, 2);
    const int64_t sizes[4][2] = {{9, 12}, {64, 64}, {256, 255}, {1024, 1024}};
    for (int si = 0; si < 4; si++) {
        int64_t nx = sizes[si][0], ny = sizes[si][1], d[3] = {nx, ny, 2};
        kr_array *k = kt_rand_complex(KR_C128, 3, d, 7 + (uint64_t)si), *o = NULL;
        const int np = 6;
        double xy[12] = {0.25, -0.5, (double)(-nx / 2), (double)(ny - 1 - ny / 2), 1.0 / 3.0,
                         2.75, (double)(nx - 1 - nx / 2), (double)(-ny / 2), 0.0, 0.0,
                         -(double)(nx / 2) + 0.125, 0.9};
        int64_t od[2] = {np, 2};
        KT_OK(kr_array_create(&o, KR_C128, 2, od, KR_HOST, NULL));
        KT_OK(kr_goertzel2d(c, k, np, xy, o));
        double e = 0, m = 0;
        for (int b = 0; b < 2; b++)
            for (int p = 0; p < np; p++) {
                double r, i;
                direct(k, b, xy[2 * p], xy[2 * p + 1], &r, &i);
                e = fmax(e, hypot(kt_cget(o, p + np * b, 0) - r, kt_cget(o, p + np * b, 1) - i));
                m = fmax(m, hypot(r, i));
            }
        printf("  points %lldx%lld c128: max err / max |direct| = %.3g\n", (long long)nx,
               (long long)ny, e / m);
        KT_LE(e / m, 3e-17 * (double)(nx * ny) + 1e-14); /* grows as n^2 eps */
        kr_array_destroy(k), kr_array_destroy(o);
    }
    kr_ctx_destroy(c);
}

static void test_threads_bits(void)
{
    kr_ctx *c1 = ctx_of(KR_BACKEND_CPU_SERIAL, 0), *c2 = ctx_of(KR_BACKEND_CPU, 2);
    int64_t d[3] = {31, 18, 4};
    kr_array *k = kt_rand_complex(KR_C64, 3, d, 99), *a = NULL, *b = NULL;
    KT_OK(kr_array_create(&a, KR_C64, 3, d, KR_HOST, NULL));
    KT_OK(kr_array_create(&b, KR_C64, 3, d, KR_HOST, NULL));
    KT_OK(kr_goertzel2d_image(c1, k, a));
    KT_OK(kr_goertzel2d_image(c2, k, b));
    KT_CHECK(memcmp(a->data, b->data, kr_array_bytes(a)) == 0);
    kr_array_destroy(k), kr_array_destroy(a), kr_array_destroy(b);
    kr_ctx_destroy(c1), kr_ctx_destroy(c2);
}

static void test_dumb(void)
{
    kr_ctx *c = ctx_of(KR_BACKEND_CPU, 1);
    int64_t d[2] = {8, 8}, od[1] = {2};
    kr_array *k = kt_rand_complex(KR_C64, 2, d, 1), *o = NULL, *o128 = NULL, *kr = NULL, *img = NULL;
    KT_OK(kr_array_create(&o, KR_C64, 1, od, KR_HOST, NULL));
    KT_OK(kr_array_create(&o128, KR_C128, 1, od, KR_HOST, NULL));
    KT_OK(kr_array_create(&kr, KR_F32, 2, d, KR_HOST, NULL));
    double xy[4] = {0, 0, 1.5, -2};
    KT_OK(kr_goertzel2d(c, k, 2, xy, o));
    KT_STATUS(kr_goertzel2d(c, NULL, 2, xy, o), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_goertzel2d(c, k, 2, NULL, o), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_goertzel2d(c, k, 2, xy, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_goertzel2d(c, k, 0, xy, o), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_goertzel2d(c, k, -3, xy, o), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_goertzel2d(c, k, 1, xy, o), KR_ERR_DIM);
    KT_STATUS(kr_goertzel2d(c, k, 2, xy, o128), KR_ERR_DTYPE);
    KT_STATUS(kr_goertzel2d(c, kr, 2, xy, o), KR_ERR_DTYPE);
    double out1[4] = {0, 0, 4.0, 0}; /* x = 4 > 8 - 1 - 4 = 3 */
    KT_STATUS(kr_goertzel2d(c, k, 2, out1, o), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "outside") != NULL);
    double out2[4] = {0, -4.01, 0, 0};
    KT_STATUS(kr_goertzel2d(c, k, 2, out2, o), KR_ERR_INVALID_ARG);
    double nanp[4] = {NAN, 0, 0, 0};
    KT_STATUS(kr_goertzel2d(c, k, 2, nanp, o), KR_ERR_INVALID_ARG);
    ((float *)k->data)[5] = NAN;
    KT_STATUS(kr_goertzel2d(c, k, 2, xy, o), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "not finite") != NULL);
    ((float *)k->data)[5] = 0;
    int64_t bd[2] = {8, 7};
    KT_OK(kr_array_create(&img, KR_C64, 2, bd, KR_HOST, NULL));
    KT_STATUS(kr_goertzel2d_image(c, k, img), KR_ERR_DIM);
    KT_STATUS(kr_goertzel2d_image(c, NULL, img), KR_ERR_INVALID_ARG);
    /* a device descriptor with a CPU context */
    kr_array dev;
    float dummy[4];
    KT_OK(kr_array_wrap(&dev, KR_C64, 1, od, dummy, KR_HOST));
    dev.loc = KR_DEVICE;
    kr_array kdev = *k;
    kdev.loc = KR_DEVICE;
    kr_status s = kr_goertzel2d(c, &kdev, 2, xy, &dev);
    KT_CHECK(s == KR_ERR_LOCATION || s == KR_ERR_NO_DEVICE);
    KT_STATUS(kr_goertzel2d(c, k, 2, xy, &dev), KR_ERR_LOCATION);
    kr_array_destroy(k), kr_array_destroy(o), kr_array_destroy(o128), kr_array_destroy(kr);
    kr_array_destroy(img);
    kr_ctx_destroy(c);
}

int main(void)
{
    KT_RUN(test_full_vs_fft);
    KT_RUN(test_points_direct);
    KT_RUN(test_threads_bits);
    KT_RUN(test_dumb);
    return kt_finish();
}
