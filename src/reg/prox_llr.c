/* Locally low rank (kr_prox_llr_create, kray/reg.h): block-wise singular value soft threshold.
 * The front sets up the block geometry and hands the blocks to the backend of the arrays'
 * location (prox_llr_internal.h): the host's OpenMP Jacobi SVDs, or the CUDA kernel that runs
 * one block per thread block on the device (no host round trip). */
#include "internal.h"
#include "prox_internal.h"
#include "prox_llr_internal.h"

#include <string.h>

kr_status kri_llr_apply(kr_prox *p, const kr_array *v, kr_array *x, double tau, double *value)
{
    kri_llr_desc d;
    memset(&d, 0, sizeof d);
    kri_shape sh;
    kri_shape_init(&sh, p->ndim, p->dims);
    d.ndim = p->ndim;
    d.axis = p->axis;
    d.block = p->block;
    d.n = p->dims[p->axis];
    d.nblocks = 1;
    d.mmax = 1;
    for (int a = 0; a < p->ndim; a++) {
        d.dims[a] = p->dims[a];
        d.stride[a] = sh.stride[a];
        d.shift[a] = p->shift[a];
        const int64_t len = a == p->axis ? 1 : p->dims[a];
        const int64_t bl = len < p->block ? len : p->block;
        d.nb[a] = (len + bl - 1) / bl;
        d.nblocks *= d.nb[a];
        d.mmax *= bl;
    }
    const kri_llr_backend *be;
    KRI_TRY(kri_backend_pick(&be, v->loc, &kri_llr_cpu, &kri_llr_cuda, "locally-low-rank prox"));
    return be->svt(p->ctx, p->dtype, &d, v->data, x ? x->data : NULL, tau, value, &p->work);
}
