/* The first non-finite value of a real (or complex, as its reals) array at either location:
 * the NaN / Inf census that the MRI plans run on their inputs. */
#include "internal.h"
#include "mri/mri_internal.h"

#include <math.h>

kr_status kri_first_nonfinite(const kr_ctx *ctx, kr_loc loc, kr_dtype real_dtype, const void *p,
                              int64_t n, int64_t *first)
{
    *first = -1;
    if (loc == KR_HOST) {
        if (real_dtype == KR_F32) {
            const float *v = (const float *)p;
            for (int64_t i = 0; i < n; i++)
                if (!isfinite(v[i])) return *first = i, KR_OK;
        } else {
            const double *v = (const double *)p;
            for (int64_t i = 0; i < n; i++)
                if (!isfinite(v[i])) return *first = i, KR_OK;
        }
        return KR_OK;
    }
#ifdef KRAY_HAVE_CUDA
    return kri_cuda_first_nonfinite(ctx, real_dtype, p, n, first);
#else
    (void)ctx;
    return kri_fail(KR_ERR_NO_DEVICE, "device arrays need a CUDA build of kray");
#endif
}
