/* SIRT's elementwise steps on the host (OpenMP, f32 and f64). */
#include "iterative_internal.h"

#include <math.h>

static kr_status kri_cpu_sirt_fill(const kr_ctx *ctx, kr_dtype t, int64_t n, void *x, double v)
{
    const int nt = kri_threads(ctx);
    if (t == KR_F64) {
        double *a = x;
#pragma omp parallel for schedule(static) num_threads(nt)
        for (int64_t i = 0; i < n; i++) a[i] = v;
    } else {
        float *a = x;
        const float f = (float)v;
#pragma omp parallel for schedule(static) num_threads(nt)
        for (int64_t i = 0; i < n; i++) a[i] = f;
    }
    return KR_OK;
}

/* x = x > 0 ? 1 / x : 0; *nbad = number of negative or non-finite entries */
static kr_status kri_cpu_sirt_recip(const kr_ctx *ctx, kr_dtype t, int64_t n, void *x,
                                    int64_t *nbad)
{
    const int nt = kri_threads(ctx);
    int64_t bad = 0;
    if (t == KR_F64) {
        double *a = x;
#pragma omp parallel for schedule(static) num_threads(nt) reduction(+ : bad)
        for (int64_t i = 0; i < n; i++) {
            if (!isfinite(a[i]) || a[i] < 0) bad++;
            a[i] = a[i] > 0 && isfinite(a[i]) ? 1.0 / a[i] : 0.0;
        }
    } else {
        float *a = x;
#pragma omp parallel for schedule(static) num_threads(nt) reduction(+ : bad)
        for (int64_t i = 0; i < n; i++) {
            if (!isfinite(a[i]) || a[i] < 0) bad++;
            a[i] = a[i] > 0 && isfinite(a[i]) ? 1.0f / a[i] : 0.0f;
        }
    }
    *nbad = bad;
    return KR_OK;
}

static kr_status kri_cpu_sirt_mul(const kr_ctx *ctx, kr_dtype t, int64_t n, void *x,
                                  const void *w)
{
    const int nt = kri_threads(ctx);
    if (t == KR_F64) {
        double *a = x;
        const double *b = w;
#pragma omp parallel for schedule(static) num_threads(nt)
        for (int64_t i = 0; i < n; i++) a[i] *= b[i];
    } else {
        float *a = x;
        const float *b = w;
#pragma omp parallel for schedule(static) num_threads(nt)
        for (int64_t i = 0; i < n; i++) a[i] *= b[i];
    }
    return KR_OK;
}

static kr_status kri_cpu_sirt_clamp0(const kr_ctx *ctx, kr_dtype t, int64_t n, void *x)
{
    const int nt = kri_threads(ctx);
    if (t == KR_F64) {
        double *a = x;
#pragma omp parallel for schedule(static) num_threads(nt)
        for (int64_t i = 0; i < n; i++)
            if (a[i] < 0) a[i] = 0;
    } else {
        float *a = x;
#pragma omp parallel for schedule(static) num_threads(nt)
        for (int64_t i = 0; i < n; i++)
            if (a[i] < 0) a[i] = 0;
    }
    return KR_OK;
}

const kri_sirt_backend kri_sirt_cpu = {{"cpu", true}, kri_cpu_sirt_fill, kri_cpu_sirt_recip,
                                       kri_cpu_sirt_mul, kri_cpu_sirt_clamp0};
