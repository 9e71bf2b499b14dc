/* CG-SENSE on the host: the per-sample weighting of multi-coil k-space (cgsense_internal.h). */
#include "core/internal.h"
#include "mri/cgsense/cgsense_internal.h"

static kr_status kri_cpu_weight(const kr_ctx *ctx, int64_t n, int64_t reps, const float *w,
                                float *x)
{
    const int64_t total = n * reps;
#pragma omp parallel for num_threads(kri_threads(ctx)) schedule(static)
    for (int64_t i = 0; i < total; i++) {
        const float f = w[i % n];
        x[2 * i] *= f;
        x[2 * i + 1] *= f;
    }
    return KR_OK;
}

const kri_cgsense_backend kri_cgsense_cpu = {{"cpu", true}, kri_cpu_weight};
