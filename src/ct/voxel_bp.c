/* The voxel-driven backprojector as an operator (kray/ct.h, kr_ct_voxel_bp_linop_create): FDK's
 * backprojection kernels (fdk.c, fdk_cpu.c, fdk_cuda*.cu) on projections pre-weighted by the
 * density of rays through a voxel, an approximation of the cone projectors' transpose that SIRT
 * may use in place of it (kr_sirt_plan_create_pair). */
#include "fdk_internal.h"
#include "kray/linop.h"

#include <pthread.h>

typedef struct kri_vbp {
    kr_fdk_plan *plan;
    pthread_mutex_t lock; /* an FDK plan's buffers serve one call at a time */
} kri_vbp;

static kr_status kri_vbp_fwd(void *data, const kr_array *in, kr_array *out)
{
    kri_vbp *b = data;
    pthread_mutex_lock(&b->lock);
    kr_status s = kri_fdk_backproject_density(b->plan, in, out);
    pthread_mutex_unlock(&b->lock);
    return s;
}

static kr_status kri_vbp_adj(void *data, const kr_array *in, kr_array *out)
{
    (void)data;
    (void)in;
    (void)out;
    return kri_fail(KR_ERR_NOT_SUPPORTED,
                    "the voxel-driven backprojector has no adjoint in kray (it approximates "
                    "the projector's transpose; use the projector itself, kr_ct_linop_create)");
}

static void kri_vbp_free(void *data)
{
    kri_vbp *b = data;
    kr_fdk_plan_destroy(b->plan);
    pthread_mutex_destroy(&b->lock);
    kri_free(b);
}

kr_status kr_ct_voxel_bp_linop_create(kr_linop **op, const kr_ctx *ctx, const kr_ct_geom *g,
                                int64_t gpu_mem)
{
    KRI_ARG_NOT_NULL(op);
    *op = NULL;
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(g);
    if (!kr_ct_type_is_cone(kr_ct_geom_type(g)))
        return kri_fail(KR_ERR_GEOMETRY,
                        "the voxel-driven backprojector needs a cone-beam geometry (cone or "
                        "cone-vec); this one is %s",
                        kr_ct_type_name(kr_ct_geom_type(g)));
    if (gpu_mem < 0)
        return kri_fail(KR_ERR_INVALID_ARG, "voxel-driven backprojector: gpu_mem is %lld (must "
                        "be >= 0)", (long long)gpu_mem);
    kri_vbp *b = kri_calloc(1, sizeof *b);
    if (!b) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a backprojector");
    if (pthread_mutex_init(&b->lock, NULL) != 0) {
        kri_free(b);
        return kri_fail(KR_ERR_INTERNAL, "voxel-driven backprojector: cannot create a lock");
    }
    kr_fdk_opts o;
    kr_fdk_opts_default(&o);
    o.gpu_mem = gpu_mem;
    kr_status st = kri_fdk_plan_make(&b->plan, ctx, kr_ct_geom_det_count(g),
                                     kr_ct_geom_det_rows(g), kr_ct_geom_views(g),
                                     kr_ct_geom_nviews(g), kr_ct_geom_grid(g), &o, NULL, 1);
    if (st != KR_OK) {
        kri_vbp_free(b);
        return st;
    }
    kr_linop_def d = {0};
    d.name = "ct3d-voxel-bp";
    d.dtype = KR_F32;
    d.loc = b->plan->loc;
    d.in_ndim = kr_ct_geom_sino_dims(g, d.in_dims);
    d.out_ndim = kr_ct_geom_image_dims(g, d.out_dims);
    d.forward = kri_vbp_fwd;
    d.adjoint = kri_vbp_adj;
    d.destroy = kri_vbp_free;
    d.data = b;
    st = kr_linop_create(op, ctx, &d);
    if (st != KR_OK) kri_vbp_free(b);
    return st;
}
