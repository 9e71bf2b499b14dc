/* CT projector plans (kray/ct.h): options, the checks every plan makes, and the hand-over to
 * the 2-D projector (project2d.c) or the cone-beam one (project3d.c). */
#include "project_internal.h"

#include <string.h>

void kr_ct_projector_opts_default(kr_ct_projector_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->method = KR_CT_JOSEPH;
    o->dtype = KR_F32;
}

void kr_ct_projector_plan_destroy(kr_ct_projector_plan *p)
{
    if (!p) return;
    if (p->be && p->be->destroy) p->be->destroy(p->dev);
    kri_ct3m_destroy(p->multi);
    kri_ct2_plan_destroy(p->p2);
    kri_ct3_plan_destroy(p->p3);
    kr_ct_geom_destroy(p->geom);
    kri_free(p);
}

kr_status kr_ct_projector_plan_create(kr_ct_projector_plan **out, const kr_ctx *ctx, const kr_ct_geom *g,
                                 const kr_ct_projector_opts *o)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(g);
    kr_ct_projector_opts opts;
    if (o)
        opts = *o;
    else
        kr_ct_projector_opts_default(&opts);
    if (opts.method != KR_CT_JOSEPH && opts.method != KR_CT_SIDDON)
        return kri_fail(KR_ERR_INVALID_ARG, "projector method %d is not joseph (0) or siddon (1)",
                        (int)opts.method);
    if (opts.dtype != KR_F32 && opts.dtype != KR_F64)
        return kri_fail(KR_ERR_DTYPE, "projector precision must be f32 or f64, got %s",
                        kr_dtype_name(opts.dtype));
    const int ndim = kr_ct_type_ndim(g->type);
    if (opts.ray_factor < 0 || opts.ray_factor > KRI_CT3_MAXK)
        return kri_fail(KR_ERR_INVALID_ARG, "projector ray factor %d must be 0..%d",
                        opts.ray_factor, KRI_CT3_MAXK);
    if (ndim == 2 && opts.ray_factor > 1)
        return kri_fail(KR_ERR_NOT_SUPPORTED,
                        "the 2-D projectors trace one ray per detector pixel (ray factor %d "
                        "given; sub-rays are implemented for cone beams)",
                        opts.ray_factor);
    if (ndim != 2 && ndim != 3)
        return kri_fail(KR_ERR_NOT_SUPPORTED, "the CT projector cannot handle geometry type %s",
                        kr_ct_type_name(g->type));
    const kri_ct_backend *be;
    KRI_TRY(kri_backend_pick(&be, kri_ctx_loc(ctx), ndim == 3 ? &kri_ct3_cpu : &kri_ct2_cpu,
                             ndim == 3 ? &kri_ct3_cuda : &kri_ct2_cuda, "CT projector"));
    kr_ct_projector_plan *p = kri_calloc(1, sizeof *p);
    if (!p) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a projector plan");
    p->ctx = ctx;
    p->loc = kri_ctx_loc(ctx);
    p->opts = opts;
    p->be = be;
    kr_status st = kr_ct_geom_clone(&p->geom, g);
    if (st == KR_OK) st = ndim == 3 ? kri_ct3_plan_create(p) : kri_ct2_plan_create(p);
    if (st == KR_OK && ndim == 3 && kr_ctx_ndevices(ctx) > 1) {
        static const kri_ct3_single single = {kr_ct_projector_plan_create,
                                              kr_ct_projector_plan_destroy};
        st = kri_ct3m_create(&p->multi, p, &single);
    }
    if (st != KR_OK) {
        kr_ct_projector_plan_destroy(p);
        return st;
    }
    *out = p;
    return KR_OK;
}

const kr_ct_geom *kr_ct_projector_geom(const kr_ct_projector_plan *p) { return p ? p->geom : NULL; }

kr_status kr_ct_projector_forward(const kr_ct_projector_plan *p, const kr_array *image,
                                  kr_array *sino)
{
    KRI_ARG_NOT_NULL(p);
    return p->p3 ? kri_ct3_forward(p, image, sino) : kri_ct2_forward(p, image, sino);
}

kr_status kr_ct_projector_adjoint(const kr_ct_projector_plan *p, const kr_array *sino,
                                  kr_array *image)
{
    KRI_ARG_NOT_NULL(p);
    return p->p3 ? kri_ct3_adjoint(p, sino, image) : kri_ct2_adjoint(p, sino, image);
}
