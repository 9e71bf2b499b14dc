/* The 2-D projector: per-view parameters of a plan, argument checks and backend dispatch. */
#include "project2d_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Per-view parameters in double (see project2d_internal.h). */
static void kri_ct2_view_params(const kr_ct_geom *g, int64_t i, kri_ct2v_f64 *o)
{
    const kr_ct_view *v = &g->views[i];
    const kr_ct_grid *gr = &g->grid;
    const double vx = gr->voxel_mm[0], vy = gr->voxel_mm[1];
    const double x0 = gr->offset_mm[0] - 0.5 * (double)(gr->n[0] - 1) * vx;
    const double y0 = gr->offset_mm[1] - 0.5 * (double)(gr->n[1] - 1) * vy;
    memset(o, 0, sizeof *o);
    switch (g->type) {
    case KR_CT_PARALLEL2D: {
        double rl = hypot(v->ray[0], v->ray[1]);
        o->px = (v->det[0] - x0) / vx;
        o->py = (v->det[1] - y0) / vy;
        o->ax = v->ray[0] / rl;
        o->ay = v->ray[1] / rl;
        o->bx = v->u[0];
        o->by = v->u[1];
        o->ux = v->u[0] / vx;
        o->uy = v->u[1] / vy;
        o->inv = 1.0 / (o->ax * o->by - o->ay * o->bx);
        break;
    }
    case KR_CT_FAN2D_FLAT:
        o->px = (v->src[0] - x0) / vx;
        o->py = (v->src[1] - y0) / vy;
        o->ax = v->det[0] - v->src[0];
        o->ay = v->det[1] - v->src[1];
        o->bx = v->u[0];
        o->by = v->u[1];
        break;
    default: { /* equiangular */
        double rx = v->det[0] - v->src[0], ry = v->det[1] - v->src[1], R = hypot(rx, ry);
        double nx = rx / R, ny = ry / R;
        double un = v->u[0] * nx + v->u[1] * ny;
        double tx = v->u[0] - un * nx, ty = v->u[1] - un * ny, tl = hypot(tx, ty);
        o->px = (v->src[0] - x0) / vx;
        o->py = (v->src[1] - y0) / vy;
        o->ax = nx;
        o->ay = ny;
        o->bx = tx / tl;
        o->by = ty / tl;
        o->ux = hypot(v->u[0], v->u[1]) / R;
        o->inv = 1.0 / o->ux;
    }
    }
    /* Joseph classes of the view's rays, with a tolerance (a hint for the gather's pruning) */
    o->cls = 0;
    const double c = 0.5 * (double)(g->det_count - 1), tol = 1 - 1e-5;
    for (int64_t k = 0; k < g->det_count && o->cls != 3; k++) {
        double s = (double)k - c, dx, dy;
        if (g->type == KR_CT_PARALLEL2D) {
            dx = o->ax;
            dy = o->ay;
        } else if (g->type == KR_CT_FAN2D_FLAT) {
            dx = o->ax + s * o->bx;
            dy = o->ay + s * o->by;
        } else {
            double gam = s * o->ux;
            dx = cos(gam) * o->ax + sin(gam) * o->bx;
            dy = cos(gam) * o->ay + sin(gam) * o->by;
        }
        double DX = fabs(dx / vx), DY = fabs(dy / vy);
        if (DX >= DY * tol) o->cls |= 2;
        if (DY >= DX * tol) o->cls |= 1;
    }
}

void kri_ct2_plan_destroy(kri_ct2_plan *q)
{
    if (!q) return;
    kri_free(q->views);
    kri_free(q);
}

kr_status kri_ct2_plan_create(kr_ct_projector_plan *p)
{
    kri_ct2_plan *q = kri_calloc(1, sizeof *q);
    if (!q) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a projector plan");
    p->p2 = q;
    const kr_ctx *ctx = p->ctx;
    const kr_ct_projector_opts opts = p->opts;
    const kr_ct_geom *G = p->geom;
    const int nv = (int)G->nviews;
    int kind = G->type == KR_CT_PARALLEL2D    ? KRI_CT2_PARALLEL
               : G->type == KR_CT_FAN2D_FLAT ? KRI_CT2_FLAT
                                              : KRI_CT2_EQUI;
    kri_ct2p_f64 *p64 = &q->p64;
    p64->nx = (int)G->grid.n[0];
    p64->ny = (int)G->grid.n[1];
    p64->ndet = (int)G->det_count;
    p64->nviews = nv;
    p64->kind = kind;
    p64->vx = G->grid.voxel_mm[0];
    p64->vy = G->grid.voxel_mm[1];
    p64->cdet = 0.5 * (double)(G->det_count - 1);
    /* The gather's candidate ranges are widened by this many detector pixels: rounding of the
     * footprint (f32: positions of ~1e3 pixels carry ~1e-4 of error) plus, for equiangular
     * detectors, the 2e-8 rad of the fast arctangent. */
    double atan_px = 0;
    if (kind == KRI_CT2_EQUI)
        for (int v = 0; v < nv; v++) {
            const kr_ct_view *w = &G->views[v];
            double R = hypot(w->det[0] - w->src[0], w->det[1] - w->src[1]);
            atan_px = fmax(atan_px, 3e-8 * R / hypot(w->u[0], w->u[1]));
        }
    p64->margin = 1e-4 + atan_px;
    q->p32 = (kri_ct2p_f32){p64->nx,          p64->ny,          p64->ndet,
                            p64->nviews,      kind,             (float)p64->vx,
                            (float)p64->vy,   (float)p64->cdet, (float)(0.05 + atan_px)};

    size_t esz = opts.dtype == KR_F64 ? sizeof(kri_ct2v_f64) : sizeof(kri_ct2v_f32);
    KRI_TRY(kri_alloc(&q->views, (size_t)nv * esz, "projector view parameters"));
    for (int v = 0; v < nv; v++) {
        kri_ct2v_f64 d;
        kri_ct2_view_params(G, v, &d);
        if (opts.dtype == KR_F64) {
            ((kri_ct2v_f64 *)q->views)[v] = d;
        } else {
            ((kri_ct2v_f32 *)q->views)[v] =
                (kri_ct2v_f32){(float)d.px, (float)d.py, (float)d.ax, (float)d.ay, (float)d.bx,
                               (float)d.by, (float)d.ux, (float)d.uy, (float)d.inv, d.cls};
        }
    }
    if (p->be->create) KRI_TRY(p->be->create(p, &p->dev));
    kr_log(ctx, KR_LOG_DEBUG, "CT projector: %s %s, %s, %lldx%lld image, %lld det x %d views",
           kr_ct_method_name(opts.method), kr_dtype_name(opts.dtype), kr_ct_type_name(G->type),
           (long long)G->grid.n[0], (long long)G->grid.n[1], (long long)G->det_count, nv);
    return KR_OK;
}

/* Dims of `a` as (d0, d1, batch); all further dims must be 1. */
static kr_status kri_ct2_shape(const kr_array *a, const char *what, int64_t e0, int64_t e1,
                               const char *names, int64_t *nb)
{
    char have[128];
    if (a->ndim < 1 || a->ndim > KR_MAX_DIMS)
        return kri_fail(KR_ERR_DIM, "%s has %d dimensions", what, a->ndim);
    int64_t d[3] = {1, 1, 1};
    for (int i = 0; i < a->ndim; i++) {
        if (i < 3)
            d[i] = a->dims[i];
        else if (a->dims[i] != 1)
            return kri_fail(KR_ERR_DIM, "%s is %s; at most 3 dimensions (%s x batch) allowed",
                            what, kr_dims_string(a->ndim, a->dims, have, sizeof have), names);
    }
    if (d[0] != e0 || d[1] != e1 || d[2] < 1)
        return kri_fail(KR_ERR_DIM, "%s is %s, the geometry expects %lldx%lld (%s)", what,
                        kr_dims_string(a->ndim, a->dims, have, sizeof have), (long long)e0,
                        (long long)e1, names);
    *nb = d[2];
    return KR_OK;
}

static kr_status kri_ct2_check(const kr_ct_projector_plan *p, const char *fn, const kr_array *img,
                               const kr_array *sino, int64_t *nb)
{
    KRI_TRY(kri_ct_operand(p, fn, "image", img));
    KRI_TRY(kri_ct_operand(p, fn, "sinogram", sino));
    int64_t nbi = 0, nbs = 0;
    KRI_TRY(kri_ct2_shape(img, "image", p->geom->grid.n[0], p->geom->grid.n[1], "x x y", &nbi));
    KRI_TRY(kri_ct2_shape(sino, "sinogram", p->geom->det_count, p->geom->nviews, "det x view",
                          &nbs));
    if (nbi != nbs)
        return kri_fail(KR_ERR_DIM, "image batch has %lld slices, sinogram batch %lld",
                        (long long)nbi, (long long)nbs);
    if (img->data == sino->data)
        return kri_fail(KR_ERR_INVALID_ARG, "image and sinogram share the same memory");
    *nb = nbi;
    return KR_OK;
}

kr_status kri_ct2_forward(const kr_ct_projector_plan *p, const kr_array *image, kr_array *sino)
{
    int64_t nb;
    KRI_TRY(kri_ct2_check(p, "kr_ct_projector_forward", image, sino, &nb));
    return p->be->forward(p, p->dev, image->data, sino->data, nb);
}

kr_status kri_ct2_adjoint(const kr_ct_projector_plan *p, const kr_array *sino, kr_array *image)
{
    int64_t nb;
    KRI_TRY(kri_ct2_check(p, "kr_ct_projector_adjoint", image, sino, &nb));
    return p->be->adjoint(p, p->dev, sino->data, image->data, nb);
}
