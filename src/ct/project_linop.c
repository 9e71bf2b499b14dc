/* The CT projector as a kr_linop (forward = projection, adjoint = matched backprojection). */
#include "project_internal.h"

static kr_status kri_ct_linop_fwd(void *data, const kr_array *in, kr_array *out)
{
    return kr_ct_projector_forward((const kr_ct_projector_plan *)data, in, out);
}

static kr_status kri_ct_linop_adj(void *data, const kr_array *in, kr_array *out)
{
    return kr_ct_projector_adjoint((const kr_ct_projector_plan *)data, in, out);
}

static void kri_ct_linop_free(void *data) { kr_ct_projector_plan_destroy((kr_ct_projector_plan *)data); }

kr_status kr_ct_linop_create(kr_linop **op, const kr_ctx *ctx, const kr_ct_geom *g,
                             const kr_ct_projector_opts *o)
{
    KRI_ARG_NOT_NULL(op);
    *op = NULL;
    kr_ct_projector_plan *p;
    KRI_TRY(kr_ct_projector_plan_create(&p, ctx, g, o));
    kr_linop_def d = {0};
    if (kr_ct_type_ndim(kr_ct_geom_type(p->geom)) == 3)
        d.name = p->opts.method == KR_CT_SIDDON ? "ct3d-siddon" : "ct3d-joseph";
    else
        d.name = p->opts.method == KR_CT_SIDDON ? "ct2d-siddon" : "ct2d-joseph";
    d.dtype = p->opts.dtype;
    d.loc = p->loc;
    d.in_ndim = kr_ct_geom_image_dims(p->geom, d.in_dims);
    d.out_ndim = kr_ct_geom_sino_dims(p->geom, d.out_dims);
    d.forward = kri_ct_linop_fwd;
    d.adjoint = kri_ct_linop_adj;
    d.destroy = kri_ct_linop_free;
    d.data = p;
    kr_status st = kr_linop_create(op, ctx, &d);
    if (st != KR_OK) kr_ct_projector_plan_destroy(p);
    return st;
}
