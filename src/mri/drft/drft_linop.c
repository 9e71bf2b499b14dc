/* The DrFT as a kr_linop: forward A = diag(sqrt(W) phi) F0, adjoint A^H = F0^H diag(sqrt(W) phi),
 * where F0 is the plain transform of drft.h. Splitting the weights symmetrically keeps A and A^H
 * an adjoint pair (kr_linop_adjoint_test), so CG / CGLS on A solve the weighted least-squares
 * problem min ||sqrt(W) (phi F0 x - d)||^2 when the data are pre-multiplied by sqrt(W). The
 * normal operator is A^H A = F0^H diag(W phi^2) F0, whose Toeplitz kernel is kr_drft_q. */
#include "mri/drft/drft_internal.h"

#include "kray/linop.h"

static kr_status kri_drft_linop_fwd(void *data, const kr_array *in, kr_array *out)
{
    return kr_drft_forward((kr_drft_plan *)data, in, out);
}

static kr_status kri_drft_linop_adj(void *data, const kr_array *in, kr_array *out)
{
    return kr_drft_adjoint((kr_drft_plan *)data, in, out);
}

static void kri_drft_linop_free(void *data) { kr_drft_plan_destroy((kr_drft_plan *)data); }

kr_status kr_drft_linop_create(kr_linop **op, const kr_ctx *ctx, const int64_t n[3],
                               const kr_array *traj, const kr_array *weights,
                               const kr_drft_opts *opts, kr_dtype dtype, int64_t batch)
{
    KRI_ARG_NOT_NULL(op);
    *op = NULL;
    if (dtype != KR_C64 && dtype != KR_C128)
        return kri_fail(KR_ERR_DTYPE, "kr_drft_linop_create: dtype must be c64 or c128, got %s",
                        kr_dtype_name(dtype));
    if (batch < 1)
        return kri_fail(KR_ERR_DIM, "kr_drft_linop_create: batch %lld must be >= 1",
                        (long long)batch);
    kr_drft_plan *p = NULL;
    KRI_TRY(kr_drft_plan_create(&p, ctx, n, traj, weights, opts));
    kr_status s = kri_drft_plan_symmetric(p);
    kr_linop_def d = {0};
    d.name = "drft";
    d.dtype = dtype;
    d.loc = kri_ctx_loc(ctx);
    d.in_ndim = batch > 1 ? 4 : 3;
    for (int i = 0; i < 3; i++) d.in_dims[i] = n[i];
    d.in_dims[3] = batch;
    int sd = kr_drft_sample_dims(p, d.out_dims);
    d.out_ndim = sd;
    if (batch > 1) {
        if (sd >= KR_MAX_DIMS)
            s = kri_fail(KR_ERR_DIM, "kr_drft_linop_create: too many sample dims for a batch");
        else
            d.out_dims[d.out_ndim++] = batch;
    }
    d.forward = kri_drft_linop_fwd;
    d.adjoint = kri_drft_linop_adj;
    d.destroy = kri_drft_linop_free;
    d.data = p;
    if (s == KR_OK) s = kr_linop_create(op, ctx, &d);
    if (s != KR_OK) kr_drft_plan_destroy(p);
    return s;
}
