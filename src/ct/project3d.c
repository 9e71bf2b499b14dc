/* The cone-beam projector: per-view parameters of a plan, argument checks and backend
 * dispatch. */
#include "project3d_internal.h"

/* Per-view parameters in double (see project3d_internal.h). */
void kri_ct3_view_params(const kr_ct_geom *g, int64_t i, kri_ct3v_f64 *o)
{
    const kr_ct_view *v = &g->views[i];
    const kr_ct_grid *gr = &g->grid;
    for (int d = 0; d < 3; d++) {
        double x0 = gr->offset_mm[d] - 0.5 * (double)(gr->n[d] - 1) * gr->voxel_mm[d];
        o->s[d] = (v->src[d] - x0) / gr->voxel_mm[d];
        o->w[d] = (v->det[d] - v->src[d]) / gr->voxel_mm[d];
        o->u[d] = v->u[d] / gr->voxel_mm[d];
        o->v[d] = v->v[d] / gr->voxel_mm[d];
    }
}

void kri_ct3_plan_destroy(kri_ct3_plan *q)
{
    if (!q) return;
    kri_free(q->views);
    kri_free(q);
}

kr_status kri_ct3_plan_create(kr_ct_projector_plan *p)
{
    const kr_ct_geom *G = p->geom;
    int k = p->opts.ray_factor == 0 ? 1 : p->opts.ray_factor;
    kri_ct3_plan *q = kri_calloc(1, sizeof *q);
    if (!q) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a cone-beam projector plan");
    p->p3 = q;
    kri_ct3p_f64 *P = &q->p64;
    for (int d = 0; d < 3; d++) {
        P->n[d] = (int)G->grid.n[d];
        P->vox[d] = G->grid.voxel_mm[d];
    }
    P->nu = (int)G->det_count;
    P->nv = (int)G->det_rows;
    P->nviews = (int)G->nviews;
    P->k = k;
    P->cu = 0.5 * (double)(G->det_count - 1);
    P->cv = 0.5 * (double)(G->det_rows - 1);
    P->inv_k2 = 1.0 / ((double)k * (double)k);
    kri_ct3p_f32 *F = &q->p32;
    for (int d = 0; d < 3; d++) {
        F->n[d] = P->n[d];
        F->vox[d] = (float)P->vox[d];
    }
    F->nu = P->nu, F->nv = P->nv, F->nviews = P->nviews, F->k = k;
    F->cu = (float)P->cu, F->cv = (float)P->cv, F->inv_k2 = (float)P->inv_k2;

    const int nv = P->nviews;
    const int f64 = p->opts.dtype == KR_F64;
    size_t esz = f64 ? sizeof(kri_ct3v_f64) : sizeof(kri_ct3v_f32);
    KRI_TRY(kri_alloc(&q->views, (size_t)nv * esz, "cone-beam projector view parameters"));
    for (int v = 0; v < nv; v++) {
        kri_ct3v_f64 d;
        kri_ct3_view_params(G, v, &d);
        if (f64) {
            ((kri_ct3v_f64 *)q->views)[v] = d;
        } else {
            kri_ct3v_f32 *o = &((kri_ct3v_f32 *)q->views)[v];
            for (int c = 0; c < 3; c++) {
                o->s[c] = (float)d.s[c];
                o->w[c] = (float)d.w[c];
                o->u[c] = (float)d.u[c];
                o->v[c] = (float)d.v[c];
            }
        }
    }
    /* several devices: the parts hold the backend states (kri_ct3m_create, from project.c) */
    if (kr_ctx_ndevices(p->ctx) == 1 && p->be->create)
        KRI_TRY(p->be->create(p, &p->dev));
    kr_ct_geom_check_fov(G, p->ctx, NULL); /* a warning at most */
    kr_log(p->ctx, KR_LOG_DEBUG,
           "CT projector: %s %s, %s, %dx%dx%d volume, %dx%d detector x %d views, %d^2 rays per "
           "pixel",
           kr_ct_method_name(p->opts.method), kr_dtype_name(p->opts.dtype),
           kr_ct_type_name(G->type), P->n[0], P->n[1], P->n[2], P->nu, P->nv, nv, k);
    return KR_OK;
}

static kr_status kri_ct3_check(const kr_ct_projector_plan *p, const char *fn, const kr_array *vol,
                               const kr_array *proj)
{
    KRI_TRY(kri_ct_operand(p, fn, "volume", vol));
    KRI_TRY(kri_ct_operand(p, fn, "projections", proj));
    const kr_ct_grid *g = &p->geom->grid;
    int ok = vol->ndim >= 1 && vol->ndim <= KR_MAX_DIMS;
    for (int i = 0; ok && i < vol->ndim; i++)
        if (vol->dims[i] != (i < 3 ? g->n[i] : 1)) ok = 0;
    for (int i = vol->ndim; ok && i < 3; i++)
        if (g->n[i] != 1) ok = 0;
    if (!ok) {
        char have[128];
        return kri_fail(KR_ERR_DIM, "volume is %s, the geometry expects %lldx%lldx%lld (x y z)",
                        kr_dims_string(vol->ndim, vol->dims, have, sizeof have),
                        (long long)g->n[0], (long long)g->n[1], (long long)g->n[2]);
    }
    KRI_TRY(kri_ct_proj_shape(p->geom, proj, "projections"));
    /* disjoint memory */
    const char *a0 = vol->data, *b0 = proj->data;
    size_t an = kr_array_bytes(vol), bn = kr_array_bytes(proj);
    if (a0 < b0 + bn && b0 < a0 + an)
        return kri_fail(KR_ERR_INVALID_ARG, "volume and projections overlap in memory");
    return KR_OK;
}

kr_status kri_ct3_forward(const kr_ct_projector_plan *p, const kr_array *vol, kr_array *proj)
{
    KRI_TRY(kri_ct3_check(p, "kr_ct_projector_forward", vol, proj));
    if (p->multi) return kri_ct3m_run(p->multi, 0, vol, proj);
    return p->be->forward(p, p->dev, vol->data, proj->data, 1);
}

kr_status kri_ct3_adjoint(const kr_ct_projector_plan *p, const kr_array *proj, kr_array *vol)
{
    KRI_TRY(kri_ct3_check(p, "kr_ct_projector_adjoint", vol, proj));
    if (p->multi) return kri_ct3m_run(p->multi, 1, proj, vol);
    return p->be->adjoint(p, p->dev, proj->data, vol->data, 1);
}
