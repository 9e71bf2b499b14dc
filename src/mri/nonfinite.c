/* The first non-finite value of a real (or complex, as its reals) array at either location:
 * the NaN / Inf census that the MRI plans run on their inputs. */
#include "internal.h"
#include "mri/mri_internal.h"
#include "mri/nonfinite_internal.h"

kr_status kri_first_nonfinite(const kr_ctx *ctx, kr_loc loc, kr_dtype real_dtype, const void *p,
                              int64_t n, int64_t *first)
{
    *first = -1;
    const kri_nonfinite_backend *be;
    KRI_TRY(kri_backend_pick(&be, loc, &kri_nonfinite_cpu, &kri_nonfinite_cuda,
                             "the NaN / Inf check"));
    return be->first(ctx, real_dtype, p, n, first);
}
