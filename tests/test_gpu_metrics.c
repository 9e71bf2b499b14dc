/* Metrics on device arrays: CPU-vs-GPU parity for every dtype and several sizes (including
 * sizes that make every kernel loop over more work than one grid covers), run-to-run bit
 * identity on the GPU, and location errors. Exits 77 without a usable CUDA device. */
#include "internal.h"
#include "kt.h"

#include <math.h>
#include <string.h>

static kr_ctx *g_cpu, *g_gpu;

static kr_array *make(kr_dtype t, int ndim, const int64_t *dims, uint64_t seed, double noise,
                      double scale, double offset)
{
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, t, ndim, dims, KR_HOST, NULL));
    if (!a) return NULL;
    int64_t n = kr_array_numel(a), nx = dims[0], ny = ndim > 1 ? dims[1] : 1;
    for (int64_t i = 0; i < n; i++) {
        int64_t x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
        double v = sin(0.17 * (double)x + 0.5 * (double)z) * cos(0.09 * (double)y) +
                   (x > nx / 2 ? 0.4 : 0.0) + noise * kri_rand_sym(seed, (uint64_t)i);
        v = offset + scale * v;
        double ph = 3.0 * kri_rand_sym(seed + 7, (uint64_t)i);
        switch (t) {
        case KR_F32: ((float *)a->data)[i] = (float)v; break;
        case KR_F64: ((double *)a->data)[i] = v; break;
        case KR_C64:
            ((float *)a->data)[2 * i] = (float)(v * cos(ph));
            ((float *)a->data)[2 * i + 1] = (float)(v * sin(ph));
            break;
        case KR_C128:
            ((double *)a->data)[2 * i] = v * cos(ph);
            ((double *)a->data)[2 * i + 1] = v * sin(ph);
            break;
        case KR_U8: ((uint8_t *)a->data)[i] = (uint8_t)fmin(255, fmax(0, nearbyint(v))); break;
        case KR_U16: ((uint16_t *)a->data)[i] = (uint16_t)fmin(65535, fmax(0, nearbyint(v))); break;
        case KR_I16: ((int16_t *)a->data)[i] = (int16_t)fmin(32767, fmax(-32768, nearbyint(v))); break;
        default: break;
        }
    }
    return a;
}

static void compare(const char *what, const kr_array *x, const kr_array *r, double range)
{
    kr_array *dx = NULL, *dr = NULL;
    KT_OK(kr_array_clone(&dx, x, KR_DEVICE, g_gpu));
    KT_OK(kr_array_clone(&dr, r, KR_DEVICE, g_gpu));
    if (!dx || !dr) {
        kr_array_destroy(dx);
        kr_array_destroy(dr);
        return;
    }
    kr_metrics c, g, g2, h;
    KT_OK(kr_metrics_compute(g_cpu, x, r, range, &c));
    KT_OK(kr_metrics_compute(g_gpu, dx, dr, range, &g));
    KT_OK(kr_metrics_compute(g_gpu, dx, dr, range, &g2));
    KT_CHECK_MSG(memcmp(&g, &g2, sizeof g) == 0, "%s: two GPU runs differ", what);
    /* host arrays under a CUDA context are measured on the CPU, deterministically */
    KT_OK(kr_metrics_compute(g_gpu, x, r, range, &h));
    KT_CHECK_MSG(memcmp(&c, &h, sizeof c) == 0, "%s: host arrays under a CUDA ctx differ", what);
    printf("  %-26s mse %.6e/%.6e ssim %.15f/%.15f |dssim| %.1e\n", what, c.mse, g.mse, c.ssim,
           g.ssim, fabs(c.ssim - g.ssim));
    KT_NEAR(g.mse, c.mse, 1e-12 * c.mse);
    KT_NEAR(g.nrmse, c.nrmse, 1e-12 * c.nrmse);
    KT_NEAR(g.maxerr, c.maxerr, 1e-14 * c.maxerr);
    KT_NEAR(g.psnr, c.psnr, 1e-10);
    KT_NEAR(g.range, c.range, 1e-14 * c.range); /* exact but for hypot rounding (complex) */
    if (isnan(c.ssim))
        KT_CHECK(isnan(g.ssim));
    else
        KT_NEAR(g.ssim, c.ssim, 1e-12);
    /* the individual functions agree with kr_metrics_compute on the device too */
    double v;
    KT_OK(kr_mse(g_gpu, dx, dr, &v));
    KT_CHECK(v == g.mse);
    KT_OK(kr_maxerr(g_gpu, dx, dr, &v));
    KT_CHECK(v == g.maxerr);
    KT_OK(kr_nrmse(g_gpu, dx, dr, &v));
    KT_CHECK(v == g.nrmse);
    KT_OK(kr_psnr(g_gpu, dx, dr, range, &v));
    KT_CHECK(v == g.psnr);
    if (!isnan(g.ssim)) {
        KT_OK(kr_ssim(g_gpu, dx, dr, range, &v));
        KT_CHECK(v == g.ssim);
    }
    kr_array_destroy(dx);
    kr_array_destroy(dr);
}

static void test_parity_dtypes(void)
{
    int64_t d[2] = {67, 45};
    const kr_dtype ts[7] = {KR_F32, KR_F64, KR_C64, KR_C128, KR_U8, KR_U16, KR_I16};
    for (int k = 0; k < 7; k++) {
        double scale = 1, offset = 0;
        if (ts[k] == KR_U8) scale = 80, offset = 100;
        if (ts[k] == KR_U16) scale = 5000, offset = 20000;
        if (ts[k] == KR_I16) scale = 900, offset = -100;
        kr_array *r = make(ts[k], 2, d, 10 + (uint64_t)k, 0.02, scale, offset);
        kr_array *x = make(ts[k], 2, d, 20 + (uint64_t)k, 0.3, scale, offset);
        compare(kr_dtype_name(ts[k]), x, r, k % 2 ? 0.0 : 3.0 * scale);
        kr_array_destroy(r);
        kr_array_destroy(x);
    }
    /* mixed element types */
    kr_array *r = make(KR_F64, 2, d, 1, 0.02, 1, 0), *x = make(KR_C64, 2, d, 2, 0.3, 1, 0);
    compare("c64 vs f64", x, r, 0.0);
    kr_array_destroy(x);
    x = make(KR_F32, 2, d, 3, 0.3, 1, 0);
    compare("f32 vs f64", x, r, 2.0);
    kr_array_destroy(x);
    kr_array_destroy(r);
}

static void test_parity_sizes(void)
{
    /* minimum SSIM size, odd sizes, partial tiles, 3-D stacks, > 4096 SSIM tiles (the kernel's
     * grid limit), > 1024 * 1024 elements (the statistics kernel's grid limit), 1-D signals. */
    int64_t shapes[7][3] = {{11, 11, 1},  {12, 40, 1},  {517, 389, 1}, {70, 64, 5},
                            {2000, 1030, 1}, {1500000, 1, 1}, {33, 9, 1}};
    for (int s = 0; s < 7; s++) {
        int nd = shapes[s][2] > 1 ? 3 : (shapes[s][1] > 1 ? 2 : 1);
        kr_array *r = make(KR_F32, nd, shapes[s], 40 + (uint64_t)s, 0.05, 1, 0);
        kr_array *x = make(KR_F32, nd, shapes[s], 50 + (uint64_t)s, 0.4, 1, 0);
        char name[64];
        kr_dims_string(nd, shapes[s], name, sizeof name);
        compare(name, x, r, 0.0);
        kr_array_destroy(r);
        kr_array_destroy(x);
    }
}

static void test_identical_and_nan(void)
{
    int64_t d[2] = {40, 40};
    kr_array *r = make(KR_F64, 2, d, 5, 0.1, 1, 0), *dr = NULL;
    KT_OK(kr_array_clone(&dr, r, KR_DEVICE, g_gpu));
    kr_metrics m;
    KT_OK(kr_metrics_compute(g_gpu, dr, dr, 1.0, &m));
    KT_CHECK(m.mse == 0.0 && m.maxerr == 0.0 && m.nrmse == 0.0 && isinf(m.psnr) && m.ssim == 1.0);
    ((double *)r->data)[77] = NAN;
    kr_array *dx = NULL;
    KT_OK(kr_array_clone(&dx, r, KR_DEVICE, g_gpu));
    KT_OK(kr_metrics_compute(g_gpu, dx, dr, 1.0, &m));
    KT_CHECK(isnan(m.mse) && isnan(m.maxerr) && isnan(m.psnr));
    kr_array_destroy(dx);
    kr_array_destroy(dr);
    kr_array_destroy(r);
}

static void test_locations(void)
{
    int64_t d[2] = {20, 20};
    kr_array *r = make(KR_F64, 2, d, 5, 0.1, 1, 0), *dr = NULL;
    KT_OK(kr_array_clone(&dr, r, KR_DEVICE, g_gpu));
    double v;
    KT_STATUS(kr_mse(g_gpu, r, dr, &v), KR_ERR_LOCATION);
    KT_STATUS(kr_ssim(g_gpu, dr, r, 1.0, &v), KR_ERR_LOCATION);
    KT_STATUS(kr_metrics_compute(g_cpu, dr, dr, 1.0, NULL), KR_ERR_INVALID_ARG);
    kr_metrics m;
    KT_STATUS(kr_metrics_compute(g_cpu, dr, dr, 1.0, &m), KR_ERR_LOCATION); /* CPU ctx */
    KT_STATUS(kr_metrics_compute(NULL, dr, dr, 1.0, &m), KR_ERR_LOCATION);
    kr_array other = *dr;
    other.device = 1;
    KT_STATUS(kr_mse(g_gpu, &other, dr, &v), KR_ERR_LOCATION);
    KT_STATUS(kr_mse(g_gpu, &other, &other, &v), KR_ERR_LOCATION);
    kr_array_destroy(dr);
    kr_array_destroy(r);
}

int main(void)
{
    kt_require_gpu();
    if (kr_ctx_create(&g_gpu, KR_BACKEND_CUDA) != KR_OK ||
        kr_ctx_create(&g_cpu, KR_BACKEND_CPU) != KR_OK) {
        printf("context creation failed: %s\n", kr_last_error());
        return 1;
    }
    KT_RUN(test_parity_dtypes);
    KT_RUN(test_parity_sizes);
    KT_RUN(test_identical_and_nan);
    KT_RUN(test_locations);
    kr_ctx_destroy(g_gpu);
    kr_ctx_destroy(g_cpu);
    return kt_finish();
}
