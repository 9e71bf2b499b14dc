/* Metrics: closed forms, a brute-force SSIM reference, dtypes, thread-count determinism and
 * dumb inputs with their exact statuses. (scikit-image agreement: test_metrics_skimage.c.) */
#include "internal.h"
#include "kt.h"

#include <math.h>
#include <string.h>

static kr_array *mk(kr_dtype t, int ndim, int64_t d0, int64_t d1, int64_t d2)
{
    int64_t dims[3] = {d0, d1, d2};
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, t, ndim, dims, KR_HOST, NULL));
    return a;
}

/* Smooth structure plus seeded noise of amplitude `noise`, value per linear index. */
static double pattern(int64_t i, int64_t nx, int64_t ny, double noise, uint64_t seed)
{
    int64_t x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
    double cx = 0.4 * (double)nx, cy = 0.6 * (double)ny, s = 0.2 * (double)(nx + ny);
    double v = sin(0.21 * (double)x + 0.3 * (double)z) * cos(0.13 * (double)y) +
               exp(-((x - cx) * (x - cx) + (y - cy) * (y - cy)) / (s * s));
    return v + noise * kri_rand_sym(seed, (uint64_t)i);
}

static void fill(kr_array *a, double noise, uint64_t seed, double scale, double offset)
{
    int64_t n = kr_array_numel(a), nx = a->dims[0], ny = a->ndim > 1 ? a->dims[1] : 1;
    for (int64_t i = 0; i < n; i++) {
        double v = offset + scale * pattern(i, nx, ny, noise, seed);
        switch (a->dtype) {
        case KR_F32: ((float *)a->data)[i] = (float)v; break;
        case KR_F64: ((double *)a->data)[i] = v; break;
        case KR_U8: ((uint8_t *)a->data)[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v); break;
        case KR_U16: ((uint16_t *)a->data)[i] = (uint16_t)(v < 0 ? 0 : v); break;
        case KR_I16: ((int16_t *)a->data)[i] = (int16_t)v; break;
        default: break;
        }
    }
}

static double get(const kr_array *a, int64_t i)
{
    if (a->dtype == KR_C64) {
        const float *p = (const float *)a->data + 2 * i;
        return hypot(p[0], p[1]);
    }
    if (a->dtype == KR_C128) {
        const double *p = (const double *)a->data + 2 * i;
        return hypot(p[0], p[1]);
    }
    return kr_array_get_f64(a, i);
}

/* Brute force: full 11x11 Gaussian window (outer product of the 1-D taps, computed here from
 * the definition), population statistics at every valid pixel, mean over valid pixels of
 * every [nx, ny] slice. */
static double ssim_brute(const kr_array *x, const kr_array *r, double L)
{
    const int R = 5;
    double g[11], gs = 0;
    for (int k = -R; k <= R; k++) gs += g[k + R] = exp(-(double)(k * k) / (2 * 1.5 * 1.5));
    int64_t nx = x->dims[0], ny = x->dims[1], ns = x->ndim > 2 ? x->dims[2] : 1;
    double c1 = (0.01 * L) * (0.01 * L), c2 = (0.03 * L) * (0.03 * L), tot = 0;
    for (int64_t s = 0; s < ns; s++)
        for (int64_t i = R; i < ny - R; i++)
            for (int64_t j = R; j < nx - R; j++) {
                double mx = 0, mr = 0, mxx = 0, mrr = 0, mxr = 0;
                for (int a = -R; a <= R; a++)
                    for (int b = -R; b <= R; b++) {
                        double wgt = g[a + R] * g[b + R] / (gs * gs);
                        int64_t idx = s * nx * ny + (i + a) * nx + (j + b);
                        double u = get(x, idx), v = get(r, idx);
                        mx += wgt * u, mr += wgt * v, mxx += wgt * u * u, mrr += wgt * v * v;
                        mxr += wgt * u * v;
                    }
                double vx = mxx - mx * mx, vr = mrr - mr * mr, cv = mxr - mx * mr;
                tot += (2 * mx * mr + c1) * (2 * cv + c2) / ((mx * mx + mr * mr + c1) * (vx + vr + c2));
            }
    return tot / ((double)(nx - 2 * R) * (double)(ny - 2 * R) * (double)ns);
}

static void test_closed_forms(void)
{
    /* Values on a 1/1024 grid so that ref + c is exact and every difference is exactly c. */
    kr_array *r = mk(KR_F64, 2, 40, 30, 1), *x = mk(KR_F64, 2, 40, 30, 1);
    double *pr = r->data, *px = x->data, sum2 = 0;
    const double c = -0.375;
    for (int64_t i = 0; i < 1200; i++) {
        pr[i] = nearbyint(1024.0 * pattern(i, 40, 30, 0.2, 7)) / 1024.0;
        px[i] = pr[i] + c;
        sum2 += pr[i] * pr[i];
    }
    double v;
    KT_OK(kr_mse(NULL, x, r, &v));
    KT_CHECK(v == c * c);
    KT_OK(kr_maxerr(NULL, x, r, &v));
    KT_CHECK(v == -c);
    KT_OK(kr_psnr(NULL, x, r, 2.0, &v));
    KT_NEAR(v, 10.0 * log10(4.0 / (c * c)), 1e-12);
    KT_OK(kr_nrmse(NULL, x, r, &v));
    KT_NEAR(v, fabs(c) / sqrt(sum2 / 1200.0), 1e-15);
    /* range 0 = max(ref) - min(ref) */
    double lo = pr[0], hi = pr[0];
    for (int i = 1; i < 1200; i++) lo = fmin(lo, pr[i]), hi = fmax(hi, pr[i]);
    KT_OK(kr_psnr(NULL, x, r, 0.0, &v));
    KT_NEAR(v, 10.0 * log10((hi - lo) * (hi - lo) / (c * c)), 1e-12);
    kr_metrics m;
    KT_OK(kr_metrics_compute(NULL, x, r, 0.0, &m));
    KT_CHECK(m.range == hi - lo && m.mse == c * c && m.maxerr == -c);

    /* Identical: MSE 0, PSNR +inf, NRMSE 0, SSIM exactly 1. */
    KT_OK(kr_metrics_compute(NULL, r, r, 1.0, &m));
    KT_CHECK(m.mse == 0.0 && m.maxerr == 0.0 && m.nrmse == 0.0);
    KT_CHECK(isinf(m.psnr) && m.psnr > 0);
    KT_CHECK(m.ssim == 1.0);
    KT_CHECK(m.range == 1.0);
    kr_array_destroy(r);
    kr_array_destroy(x);

    /* Constant images a and b: SSIM = (2ab + C1) / (a^2 + b^2 + C1) (variances vanish). */
    r = mk(KR_F64, 2, 16, 13, 1);
    x = mk(KR_F64, 2, 16, 13, 1);
    const double a = 0.7, b = 0.4, L = 1.5, c1 = (0.01 * L) * (0.01 * L);
    for (int i = 0; i < 16 * 13; i++) ((double *)x->data)[i] = a, ((double *)r->data)[i] = b;
    KT_OK(kr_ssim(NULL, x, r, L, &v));
    KT_NEAR(v, (2 * a * b + c1) / (a * a + b * b + c1), 1e-12);
    /* a constant reference has no data range of its own */
    KT_STATUS(kr_ssim(NULL, x, r, 0.0, &v), KR_ERR_INVALID_ARG);
    KT_CHECK(isnan(v));
    KT_STATUS(kr_psnr(NULL, x, r, 0.0, &v), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_metrics_compute(NULL, x, r, 0.0, &m), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "explicit range") != NULL);
    KT_OK(kr_mse(NULL, x, r, &v)); /* MSE needs no range */
    KT_NEAR(v, (a - b) * (a - b), 1e-15);

    /* NRMSE of an all-zero reference: +inf, or 0 when x is zero too. */
    memset(r->data, 0, kr_array_bytes(r));
    KT_OK(kr_nrmse(NULL, x, r, &v));
    KT_CHECK(isinf(v) && v > 0);
    KT_OK(kr_nrmse(NULL, r, r, &v));
    KT_CHECK(v == 0.0);
    kr_array_destroy(r);
    kr_array_destroy(x);
}

static void test_ssim_bruteforce(void)
{
    int64_t shapes[4][3] = {{23, 17, 1}, {11, 11, 1}, {15, 13, 3}, {12, 30, 1}};
    for (int s = 0; s < 4; s++) {
        int nd = shapes[s][2] > 1 ? 3 : 2;
        kr_array *r = mk(KR_F64, nd, shapes[s][0], shapes[s][1], shapes[s][2]);
        kr_array *x = mk(KR_F64, nd, shapes[s][0], shapes[s][1], shapes[s][2]);
        fill(r, 0.05, 11, 1.0, 0.0);
        fill(x, 0.3, 12, 0.9, 0.1);
        for (int k = 0; k < 2; k++) {
            double L = k ? 3.0 : 0.0, v, ref_range = 0;
            if (!k) {
                double lo = INFINITY, hi = -INFINITY;
                for (int64_t i = 0; i < kr_array_numel(r); i++)
                    lo = fmin(lo, get(r, i)), hi = fmax(hi, get(r, i));
                ref_range = hi - lo;
            }
            KT_OK(kr_ssim(NULL, x, r, L, &v));
            KT_NEAR(v, ssim_brute(x, r, k ? L : ref_range), 1e-12);
            KT_CHECK(v < 0.99 && v > -1.0);
        }
        kr_array_destroy(r);
        kr_array_destroy(x);
    }
}

static void test_ssim_properties(void)
{
    kr_array *r = mk(KR_F64, 2, 31, 27, 1), *x = mk(KR_F64, 2, 31, 27, 1);
    kr_array *r4 = mk(KR_F64, 2, 31, 27, 1), *x4 = mk(KR_F64, 2, 31, 27, 1);
    fill(r, 0.1, 3, 1.0, 0.0);
    fill(x, 0.2, 4, 1.0, 0.0);
    for (int i = 0; i < 31 * 27; i++) {
        ((double *)r4->data)[i] = 4.0 * ((double *)r->data)[i];
        ((double *)x4->data)[i] = 4.0 * ((double *)x->data)[i];
    }
    double a, b, c;
    /* Scaling images and range by a power of two is exact, so SSIM is bit-identical. */
    KT_OK(kr_ssim(NULL, x, r, 2.5, &a));
    KT_OK(kr_ssim(NULL, x4, r4, 10.0, &b));
    KT_CHECK(a == b);
    /* SSIM is symmetric in its images for a fixed range. */
    KT_OK(kr_ssim(NULL, r, x, 2.5, &c));
    KT_NEAR(a, c, 1e-14);
    /* A larger range raises C1, C2 and pulls SSIM towards 1. */
    KT_OK(kr_ssim(NULL, x, r, 25.0, &c));
    KT_CHECK(c > a);
    kr_array_destroy(r);
    kr_array_destroy(x);
    kr_array_destroy(r4);
    kr_array_destroy(x4);
}

static void test_dtypes(void)
{
    double v;
    /* u8 with a constant offset of 3 (no saturation): MSE 9, PSNR 10 log10(255^2 / 9). */
    kr_array *r = mk(KR_U8, 2, 20, 15, 1), *x = mk(KR_U8, 2, 20, 15, 1);
    for (int i = 0; i < 300; i++) {
        ((uint8_t *)r->data)[i] = (uint8_t)(10 + (i * 37) % 200);
        ((uint8_t *)x->data)[i] = (uint8_t)(13 + (i * 37) % 200);
    }
    KT_OK(kr_mse(NULL, x, r, &v));
    KT_CHECK(v == 9.0);
    KT_OK(kr_psnr(NULL, x, r, 255.0, &v));
    KT_NEAR(v, 10.0 * log10(255.0 * 255.0 / 9.0), 1e-12);
    kr_array_destroy(r);
    kr_array_destroy(x);

    /* i16 keeps its sign: x = -ref gives |diff| = 2 |ref|. */
    r = mk(KR_I16, 1, 50, 1, 1);
    x = mk(KR_I16, 1, 50, 1, 1);
    double s = 0, mx = 0;
    for (int i = 0; i < 50; i++) {
        int16_t q = (int16_t)(i * 613 % 2001 - 1000);
        ((int16_t *)r->data)[i] = q;
        ((int16_t *)x->data)[i] = (int16_t)-q;
        s += 4.0 * q * q;
        mx = fmax(mx, 2.0 * fabs((double)q));
    }
    KT_OK(kr_mse(NULL, x, r, &v));
    KT_NEAR(v, s / 50, 1e-9);
    KT_OK(kr_maxerr(NULL, x, r, &v));
    KT_CHECK(v == mx);
    kr_array_destroy(r);
    kr_array_destroy(x);

    /* Complex by magnitude: (3,4) and (5,0) and (0,-5) all have magnitude 5. */
    r = mk(KR_C64, 1, 3, 1, 1);
    x = mk(KR_C128, 1, 3, 1, 1);
    kr_array *f = mk(KR_F32, 1, 3, 1, 1);
    float *pr = r->data, *pf = f->data;
    double *px = x->data;
    pr[0] = 3, pr[1] = 4, pr[2] = 0, pr[3] = -5, pr[4] = 6, pr[5] = 8;
    px[0] = 5, px[1] = 0, px[2] = -3, px[3] = 4, px[4] = 0, px[5] = -10;
    pf[0] = 5, pf[1] = -5, pf[2] = 7; /* real types keep their sign */
    KT_OK(kr_mse(NULL, x, r, &v));
    KT_CHECK(v == 0.0);
    KT_OK(kr_mse(NULL, f, r, &v)); /* f32 vs c64: (5-5)^2 + (-5-5)^2 + (7-10)^2 */
    KT_NEAR(v, (0.0 + 100.0 + 9.0) / 3.0, 1e-14);
    KT_OK(kr_maxerr(NULL, r, f, &v));
    KT_CHECK(v == 10.0);
    kr_array_destroy(r);
    kr_array_destroy(x);
    kr_array_destroy(f);

    /* Mixed f32 / u16 on one image agrees with the brute-force SSIM. */
    r = mk(KR_U16, 2, 25, 21, 1);
    x = mk(KR_F32, 2, 25, 21, 1);
    fill(r, 0.05, 5, 1000.0, 2000.0);
    fill(x, 0.2, 6, 1000.0, 2000.0);
    KT_OK(kr_ssim(NULL, x, r, 4000.0, &v));
    KT_NEAR(v, ssim_brute(x, r, 4000.0), 1e-12);
    kr_array_destroy(r);
    kr_array_destroy(x);

    /* NaN propagates into MSE, PSNR, NRMSE and the maximum error. */
    r = mk(KR_F64, 1, 10, 1, 1);
    x = mk(KR_F64, 1, 10, 1, 1);
    for (int i = 0; i < 10; i++) ((double *)r->data)[i] = i;
    ((double *)x->data)[4] = NAN;
    kr_metrics m;
    KT_OK(kr_metrics_compute(NULL, x, r, 0.0, &m));
    KT_CHECK(isnan(m.mse) && isnan(m.psnr) && isnan(m.nrmse) && isnan(m.maxerr));
    KT_CHECK(m.range == 9.0);
    KT_CHECK(isnan(m.ssim)); /* 10x1 is too small for SSIM */
    kr_array_destroy(r);
    kr_array_destroy(x);
}

static void test_compute_matches_parts(void)
{
    kr_array *r = mk(KR_F32, 3, 33, 24, 2), *x = mk(KR_F32, 3, 33, 24, 2);
    fill(r, 0.02, 21, 1.0, 0.0);
    fill(x, 0.2, 22, 1.0, 0.0);
    kr_metrics m;
    double v;
    KT_OK(kr_metrics_compute(NULL, x, r, 3.0, &m));
    KT_OK(kr_mse(NULL, x, r, &v));
    KT_CHECK(v == m.mse);
    KT_OK(kr_psnr(NULL, x, r, 3.0, &v));
    KT_CHECK(v == m.psnr);
    KT_OK(kr_nrmse(NULL, x, r, &v));
    KT_CHECK(v == m.nrmse);
    KT_OK(kr_maxerr(NULL, x, r, &v));
    KT_CHECK(v == m.maxerr);
    KT_OK(kr_ssim(NULL, x, r, 3.0, &v));
    KT_CHECK(v == m.ssim);
    KT_CHECK(m.range == 3.0);
    KT_NEAR(m.ssim, ssim_brute(x, r, 3.0), 1e-12);
    /* 3-D SSIM is the mean of the per-slice SSIM */
    int64_t d2[2] = {33, 24};
    kr_array xs, rs;
    double s0, s1;
    KT_OK(kr_array_wrap(&xs, KR_F32, 2, d2, x->data, KR_HOST));
    KT_OK(kr_array_wrap(&rs, KR_F32, 2, d2, r->data, KR_HOST));
    KT_OK(kr_ssim(NULL, &xs, &rs, 3.0, &s0));
    xs.data = (float *)x->data + 33 * 24;
    rs.data = (float *)r->data + 33 * 24;
    KT_OK(kr_ssim(NULL, &xs, &rs, 3.0, &s1));
    KT_NEAR(m.ssim, 0.5 * (s0 + s1), 1e-15);
    KT_CHECK(fabs(s0 - s1) > 1e-3); /* the slices differ, so the mean is a real test */
    kr_array_destroy(r);
    kr_array_destroy(x);

    /* Too small for SSIM: kr_ssim says KR_ERR_DIM, kr_metrics_compute gives NaN for SSIM. */
    r = mk(KR_F64, 2, 11, 10, 1);
    x = mk(KR_F64, 2, 11, 10, 1);
    fill(r, 0.1, 1, 1, 0);
    fill(x, 0.1, 2, 1, 0);
    KT_STATUS(kr_ssim(NULL, x, r, 1.0, &v), KR_ERR_DIM);
    KT_CHECK(strstr(kr_last_error(), "11x10") != NULL);
    KT_OK(kr_metrics_compute(NULL, x, r, 1.0, &m));
    KT_CHECK(isnan(m.ssim) && m.mse > 0 && isfinite(m.psnr));
    kr_array_destroy(r);
    kr_array_destroy(x);
}

static void test_threads_deterministic(void)
{
    /* Sizes with several statistics chunks and many SSIM rows and slices. */
    int64_t shapes[3][3] = {{300, 257, 1}, {41, 37, 5}, {70001, 1, 1}};
    for (int s = 0; s < 3; s++) {
        int nd = shapes[s][2] > 1 ? 3 : (shapes[s][1] > 1 ? 2 : 1);
        kr_array *r = mk(KR_F64, nd, shapes[s][0], shapes[s][1], shapes[s][2]);
        kr_array *x = mk(KR_F32, nd, shapes[s][0], shapes[s][1], shapes[s][2]);
        fill(r, 0.3, 31, 1.0, 0.0);
        fill(x, 0.5, 32, 1.0, 0.0);
        kr_metrics m[4];
        kr_ctx *ctx;
        KT_OK(kr_ctx_create(&ctx, KR_BACKEND_CPU_SERIAL));
        KT_OK(kr_metrics_compute(ctx, x, r, 0.0, &m[0]));
        kr_ctx_destroy(ctx);
        KT_OK(kr_ctx_create(&ctx, KR_BACKEND_CPU));
        for (int t = 1; t <= 3; t++) {
            KT_OK(kr_ctx_set_threads(ctx, t));
            KT_OK(kr_metrics_compute(ctx, x, r, 0.0, &m[t]));
            KT_CHECK(memcmp(&m[t], &m[0], sizeof m[0]) == 0);
        }
        kr_ctx_destroy(ctx);
        KT_CHECK(m[0].mse > 0.01 && (s == 2 ? isnan(m[0].ssim) : m[0].ssim < 0.9));
        kr_array_destroy(r);
        kr_array_destroy(x);
    }
}

static void test_dumb_inputs(void)
{
    kr_array *r = mk(KR_F64, 2, 40, 30, 1), *x = mk(KR_F64, 2, 40, 30, 1);
    kr_array *y = mk(KR_F64, 2, 40, 31, 1);
    fill(r, 0.1, 1, 1, 0);
    fill(x, 0.1, 2, 1, 0);
    double v = 0;
    kr_metrics m;
    KT_STATUS(kr_mse(NULL, x, r, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_psnr(NULL, x, r, 1, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_nrmse(NULL, x, r, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_maxerr(NULL, x, r, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ssim(NULL, x, r, 1, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_metrics_compute(NULL, x, r, 1, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_mse(NULL, NULL, r, &v), KR_ERR_INVALID_ARG);
    KT_CHECK(isnan(v) && strstr(kr_last_error(), "kr_mse: x is NULL") != NULL);
    KT_STATUS(kr_ssim(NULL, x, NULL, 1, &v), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_metrics_compute(NULL, NULL, NULL, 1, &m), KR_ERR_INVALID_ARG);
    KT_CHECK(isnan(m.mse) && isnan(m.ssim));

    /* shapes: both in the sentence */
    KT_STATUS(kr_mse(NULL, x, y, &v), KR_ERR_DIM);
    KT_CHECK(strstr(kr_last_error(), "40x30") && strstr(kr_last_error(), "40x31"));
    KT_STATUS(kr_ssim(NULL, y, x, 1, &v), KR_ERR_DIM);
    KT_STATUS(kr_metrics_compute(NULL, x, y, 1, &m), KR_ERR_DIM);
    /* trailing unit dims do not matter */
    int64_t d3[3] = {40, 30, 1};
    kr_array w;
    KT_OK(kr_array_wrap(&w, KR_F64, 3, d3, x->data, KR_HOST));
    KT_OK(kr_mse(NULL, &w, r, &v));
    /* same element count, other shape */
    int64_t d2[2] = {30, 40};
    KT_OK(kr_array_wrap(&w, KR_F64, 2, d2, x->data, KR_HOST));
    KT_STATUS(kr_nrmse(NULL, &w, r, &v), KR_ERR_DIM);

    /* descriptors broken field by field */
    kr_array bad = *x;
    bad.dtype = KR_DTYPE_INVALID;
    KT_STATUS(kr_mse(NULL, &bad, r, &v), KR_ERR_DTYPE);
    bad.dtype = (kr_dtype)99;
    KT_STATUS(kr_ssim(NULL, r, &bad, 1, &v), KR_ERR_DTYPE);
    bad = *x;
    bad.ndim = 0;
    KT_STATUS(kr_mse(NULL, &bad, r, &v), KR_ERR_DIM);
    bad.ndim = KR_MAX_DIMS + 1;
    KT_STATUS(kr_mse(NULL, &bad, r, &v), KR_ERR_DIM);
    bad = *x;
    bad.dims[1] = -30;
    KT_STATUS(kr_maxerr(NULL, &bad, r, &v), KR_ERR_DIM);
    bad.dims[1] = 0;
    KT_STATUS(kr_maxerr(NULL, &bad, r, &v), KR_ERR_DIM);
    bad = *x;
    bad.data = NULL;
    KT_STATUS(kr_psnr(NULL, &bad, r, 1, &v), KR_ERR_INVALID_ARG);
    bad = *x;
    bad.loc = (kr_loc)7;
    KT_STATUS(kr_psnr(NULL, &bad, r, 1, &v), KR_ERR_INVALID_ARG);
    bad = *x;
    bad.strides[1] = 41; /* padded rows */
    KT_STATUS(kr_mse(NULL, &bad, r, &v), KR_ERR_NOT_SUPPORTED);

    /* locations: mixed is an error; device arrays need a CUDA context (never dereferenced) */
    bad = *x;
    bad.loc = KR_DEVICE;
    KT_STATUS(kr_mse(NULL, &bad, r, &v), KR_ERR_LOCATION);
    KT_CHECK(strstr(kr_last_error(), "device") != NULL);
    KT_STATUS(kr_metrics_compute(NULL, r, &bad, 1, &m), KR_ERR_LOCATION);
    kr_array bad2 = *r;
    bad2.loc = KR_DEVICE;
    kr_ctx *ctx;
    KT_OK(kr_ctx_create(&ctx, KR_BACKEND_CPU));
    KT_STATUS(kr_ssim(ctx, &bad, &bad2, 1, &v), KR_ERR_LOCATION);
    KT_STATUS(kr_mse(NULL, &bad, &bad2, &v), KR_ERR_LOCATION);
    kr_ctx_destroy(ctx);

    /* ranges */
    KT_STATUS(kr_psnr(NULL, x, r, -1.0, &v), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_psnr(NULL, x, r, NAN, &v), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ssim(NULL, x, r, INFINITY, &v), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_metrics_compute(NULL, x, r, -INFINITY, &m), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "range") != NULL);

    /* 1-D signals and thin images are too small for SSIM */
    int64_t d1[1] = {1200};
    kr_array a1, b1;
    KT_OK(kr_array_wrap(&a1, KR_F64, 1, d1, x->data, KR_HOST));
    KT_OK(kr_array_wrap(&b1, KR_F64, 1, d1, r->data, KR_HOST));
    KT_STATUS(kr_ssim(NULL, &a1, &b1, 1, &v), KR_ERR_DIM);
    KT_OK(kr_mse(NULL, &a1, &b1, &v));
    int64_t dt[2] = {10, 120};
    KT_OK(kr_array_wrap(&a1, KR_F64, 2, dt, x->data, KR_HOST));
    KT_OK(kr_array_wrap(&b1, KR_F64, 2, dt, r->data, KR_HOST));
    KT_STATUS(kr_ssim(NULL, &a1, &b1, 1, &v), KR_ERR_DIM);
    kr_array_destroy(r);
    kr_array_destroy(x);
    kr_array_destroy(y);
}

int main(void)
{
    KT_RUN(test_closed_forms);
    KT_RUN(test_ssim_bruteforce);
    KT_RUN(test_ssim_properties);
    KT_RUN(test_dtypes);
    KT_RUN(test_compute_matches_parts);
    KT_RUN(test_threads_deterministic);
    KT_RUN(test_dumb_inputs);
    return kt_finish();
}
