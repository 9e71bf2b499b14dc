/* Coil-array operations on the host (coilop_internal.h): OpenMP over elements, pixels or
 * lines; every value is computed by one thread in a fixed order. */
#include "core/internal.h"
#include "mri/cartesian/coilop_internal.h"

#include <string.h>

static kr_status kri_cpu_expand(const kr_ctx *ctx, int64_t nxy, int64_t nc, const float *s,
                                const float *im, int cplx, float *k)
{
    int64_t n = nxy * nc;
#pragma omp parallel for num_threads(kri_threads(ctx)) schedule(static)
    for (int64_t i = 0; i < n; i++) {
        int64_t p = i % nxy;
        float ar = cplx ? im[2 * p] : im[p], ai = cplx ? im[2 * p + 1] : 0.0f;
        float sr = s[2 * i], si = s[2 * i + 1];
        k[2 * i] = sr * ar - si * ai;
        k[2 * i + 1] = sr * ai + si * ar;
    }
    return KR_OK;
}

static kr_status kri_coil_reduce_cpu(const kr_ctx *ctx, int64_t nxy, int64_t nc, const float *s,
                                     const float *a, float *x)
{
#pragma omp parallel for num_threads(kri_threads(ctx)) schedule(static)
    for (int64_t p = 0; p < nxy; p++) {
        double re = 0, im = 0;
        for (int64_t c = 0; c < nc; c++) {
            int64_t q = 2 * (p + nxy * c);
            re += (double)s[q] * a[q] + (double)s[q + 1] * a[q + 1];
            im += (double)s[q] * a[q + 1] - (double)s[q + 1] * a[q];
        }
        x[2 * p] = (float)re;
        x[2 * p + 1] = (float)im;
    }
    return KR_OK;
}

static kr_status kri_cpu_mask(const kr_ctx *ctx, int64_t nx, int64_t ny, int64_t rest, float *k,
                              const uint8_t *lines)
{
#pragma omp parallel for num_threads(kri_threads(ctx)) schedule(static)
    for (int64_t r = 0; r < rest; r++)
        for (int64_t j = 0; j < ny; j++)
            if (!lines[j]) memset(k + 2 * nx * (j + ny * r), 0, sizeof(float) * 2 * (size_t)nx);
    return KR_OK;
}

const kri_coilop_backend kri_coilop_cpu = {{"cpu", true}, kri_cpu_expand, kri_coil_reduce_cpu,
                                           kri_cpu_mask, kri_cpu_mask};
