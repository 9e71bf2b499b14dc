/* The NaN / Inf census on the host: chunks of 2^17 values searched in parallel (OpenMP), the
 * smallest index found wins, so the answer does not depend on the thread count. */
#include "internal.h"
#include "mri/nonfinite_internal.h"

#include <math.h>

static kr_status kri_cpu_first_nonfinite(const kr_ctx *ctx, kr_dtype real_dtype, const void *p,
                                         int64_t n, int64_t *first)
{
    int64_t best = INT64_MAX;
    const int64_t chunk = (int64_t)1 << 17;
    const int64_t nchunk = (n + chunk - 1) / chunk;
    const int nt = kri_threads(ctx);
    (void)nt;
#pragma omp parallel for schedule(static) num_threads(nt) reduction(min : best) if (nchunk > 1)
    for (int64_t c = 0; c < nchunk; c++) {
        int64_t lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n, f = -1;
        if (real_dtype == KR_F32) {
            const float *v = (const float *)p;
            for (int64_t i = lo; i < hi && f < 0; i++)
                if (!isfinite(v[i])) f = i;
        } else {
            const double *v = (const double *)p;
            for (int64_t i = lo; i < hi && f < 0; i++)
                if (!isfinite(v[i])) f = i;
        }
        if (f >= 0 && f < best) best = f;
    }
    *first = best == INT64_MAX ? -1 : best;
    return KR_OK;
}

const kri_nonfinite_backend kri_nonfinite_cpu = {{"cpu", true}, kri_cpu_first_nonfinite};
