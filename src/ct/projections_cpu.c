/* Projection arrays on the host: the count of non-finite values behind
 * kr_ct_check_projections. */
#include "projections_internal.h"

#include <math.h>

static kr_status kri_cpu_count_nonfinite(const kr_ctx *ctx, kr_dtype t, int64_t n, const void *x,
                                         int64_t *nnan, int64_t *ninf, int64_t *first)
{
    *nnan = 0, *ninf = 0, *first = -1;
    for (int64_t i = 0; i < n; i++) {
        double v = t == KR_F64 ? ((const double *)x)[i] : (double)((const float *)x)[i];
        if (isfinite(v)) continue;
        if (*first < 0) *first = i;
        if (isnan(v))
            ++*nnan;
        else
            ++*ninf;
    }
    return KR_OK;
}

const kri_ctproj_backend kri_ctproj_cpu = {{"cpu", true}, kri_cpu_count_nonfinite};
