/* The cone-beam projector: per-view parameters of a plan, argument checks and backend
 * dispatch. */
#include "project3d_internal.h"

#include <math.h>
#include <string.h>

/* Per-view parameters in double (see project3d_internal.h). */
static void kri_ct3_view_params(const kr_ct_geom *g, int64_t i, kri_ct3v_f64 *o)
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
    kri_device_free(q->d_views);
    kri_device_free(q->d_pad[0]);
    kri_device_free(q->d_pad[1]);
    for (int i = 0; i < 3; i++) kri_device_free(q->d_quad[i]);
    kri_device_free(q->d_gtab);
    kri_device_free(q->d_gcol);
    kri_device_free(q->d_gint);
    if (q->lock_init) pthread_mutex_destroy(&q->lock);
    kri_free(q);
}

/* Does view d let the CUDA Joseph adjoint gather (project3d_gather.cu)? Its detector rows run
 * along z (v = (0, 0, v_z), v_z != 0) and its columns across it (u_z = 0), so that a ray's x and
 * y direction components depend on its column only; and it has no z-major ray (its largest
 * |w_z| below its smallest max(|w_x|, |w_y|), with a margin against rounding). The plan gathers
 * when every view does and the ray factor is 1. */
static int kri_ct3_view_gathers(const kri_ct3v_f64 *d, const kri_ct3p_f64 *P)
{
    if (d->v[0] != 0 || d->v[1] != 0 || d->v[2] == 0 || d->u[2] != 0) return 0;
    const double wz = fmax(fabs(d->w[2] - P->cv * d->v[2]),
                           fabs(d->w[2] + ((double)P->nv - 1 - P->cv) * d->v[2]));
    double wxy = INFINITY;
    for (int iu = 0; iu < P->nu; iu++) {
        const double a = (double)iu - P->cu;
        wxy = fmin(wxy, fmax(fabs(d->w[0] + a * d->u[0]), fabs(d->w[1] + a * d->u[1])));
    }
    return wz < 0.999 * wxy;
}

kr_status kri_ct3_plan_create(kr_ct_projector *p)
{
    const kr_ct_geom *G = p->geom;
    int k = p->opts.ray_factor == 0 ? 1 : p->opts.ray_factor;
    kri_ct3_plan *q = kri_calloc(1, sizeof *q);
    if (!q) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a cone-beam projector plan");
    p->p3 = q;
    if (pthread_mutex_init(&q->lock, NULL) != 0)
        return kri_fail(KR_ERR_INTERNAL, "cone-beam projector: cannot create a mutex");
    q->lock_init = 1;
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
    int gathers = p->loc == KR_DEVICE && p->opts.method == KR_CT_JOSEPH && k == 1;
    for (int v = 0; v < nv; v++) {
        kri_ct3v_f64 d;
        kri_ct3_view_params(G, v, &d);
        if (gathers) gathers = kri_ct3_view_gathers(&d, P);
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
    if (p->loc == KR_DEVICE) {
        const int dev = kr_ctx_device(p->ctx);
        size_t bytes = (size_t)nv * esz;
        KRI_TRY(kri_device_alloc(&q->d_views, bytes, dev, "cone-beam projector view parameters"));
        KRI_TRY(kri_memcpy(q->d_views, KR_DEVICE, q->views, KR_HOST, bytes, p->ctx));
        if (p->opts.method == KR_CT_JOSEPH) {
            q->pad_elems = (size_t)(P->n[0] + 2) * (size_t)(P->n[1] + 2) * (size_t)(P->n[2] + 2);
            size_t pb = q->pad_elems * (f64 ? sizeof(double) : sizeof(float));
            for (int i = 0; i < 2; i++)
                KRI_TRY(kri_device_alloc(&q->d_pad[i], pb, dev,
                                         "the cone-beam projector's padded volume copies"));
            /* f32: the quad layout of the forward, optional (four times the padded size each,
             * 6.5 GB in all at 512^3) */
            for (int i = 0; !f64 && i < 3; i++)
                if (kri_device_alloc(&q->d_quad[i], 4 * pb, dev, "quad layout") != KR_OK) {
                    for (int e = 0; e < 3; e++) kri_device_free(q->d_quad[e]);
                    memset(q->d_quad, 0, sizeof q->d_quad);
                    kr_log(p->ctx, KR_LOG_DEBUG, "CT projector: no room for the quad layout; "
                           "the forward reads the plain padded volumes");
                    break;
                }
            if (gathers) {
                /* the gather adjoint's tables for batches of up to 32 views (or 512 MB) */
                const size_t e4 = 4 * (f64 ? sizeof(double) : sizeof(float));
                const size_t per = (size_t)P->nu * (size_t)P->nv * e4;
                int nb = nv < 32 ? nv : 32;
                while (nb > 1 && (size_t)nb * per > ((size_t)512 << 20)) nb--;
                q->gather_nvb = nb;
                q->gather =
                    kri_device_alloc(&q->d_gtab, (size_t)nb * per, dev, "gather tables") == KR_OK &&
                    kri_device_alloc(&q->d_gcol, (size_t)nb * (size_t)P->nu * e4, dev,
                                     "gather tables") == KR_OK &&
                    kri_device_alloc(&q->d_gint, (size_t)nb * sizeof(int), dev,
                                     "gather tables") == KR_OK;
                if (!q->gather)
                    kr_log(p->ctx, KR_LOG_DEBUG, "CT projector: no room for the gather adjoint's "
                           "tables; the adjoint scatters with atomics");
            }
        }
    }
    kr_ct_geom_check_fov(G, p->ctx, NULL); /* a warning at most */
    kr_log(p->ctx, KR_LOG_DEBUG,
           "CT projector: %s %s, %s, %dx%dx%d volume, %dx%d detector x %d views, %d^2 rays per "
           "pixel%s",
           kr_ct_method_name(p->opts.method), kr_dtype_name(p->opts.dtype),
           kr_ct_type_name(G->type), P->n[0], P->n[1], P->n[2], P->nu, P->nv, nv, k,
           q->gather ? ", adjoint by gather" : "");
    return KR_OK;
}

static kr_status kri_ct3_check(const kr_ct_projector *p, const kr_array *vol,
                               const kr_array *proj)
{
    KRI_ARG_NOT_NULL(p);
    KRI_ARG_NOT_NULL(vol);
    KRI_ARG_NOT_NULL(proj);
    const kr_array *arr[2] = {vol, proj};
    const char *names[2] = {"volume", "projections"};
    for (int i = 0; i < 2; i++) {
        if (arr[i]->dtype != p->opts.dtype)
            return kri_fail(KR_ERR_DTYPE, "%s are %s but the projector was planned for %s",
                            names[i], kr_dtype_name(arr[i]->dtype), kr_dtype_name(p->opts.dtype));
        if (!arr[i]->data) return kri_fail(KR_ERR_INVALID_ARG, "%s have no data", names[i]);
        if (!kr_array_is_contiguous(arr[i]))
            return kri_fail(KR_ERR_NOT_SUPPORTED, "%s are not contiguous", names[i]);
        KRI_TRY(kri_check_loc(p->ctx, arr[i]->loc, names[i]));
        if (arr[i]->loc == KR_DEVICE && arr[i]->device != kr_ctx_device(p->ctx))
            return kri_fail(KR_ERR_LOCATION, "%s are on device %d, the context uses device %d",
                            names[i], arr[i]->device, kr_ctx_device(p->ctx));
    }
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

kr_status kri_ct3_forward(const kr_ct_projector *p, const kr_array *vol, kr_array *proj)
{
    KRI_TRY(kri_ct3_check(p, vol, proj));
    if (p->loc == KR_DEVICE) {
#ifdef KRAY_HAVE_CUDA
        pthread_mutex_lock(&p->p3->lock);
        kr_status s = kri_cuda_ct3d_forward(p, vol->data, proj->data);
        pthread_mutex_unlock(&p->p3->lock);
        return s;
#else
        return kri_fail(KR_ERR_NO_DEVICE, "CT projector: this kray was built without CUDA");
#endif
    }
    kri_cpu_ct3d_forward(p, vol->data, proj->data, kri_threads(p->ctx));
    return KR_OK;
}

kr_status kri_ct3_adjoint(const kr_ct_projector *p, const kr_array *proj, kr_array *vol)
{
    KRI_TRY(kri_ct3_check(p, vol, proj));
    if (p->loc == KR_DEVICE) {
#ifdef KRAY_HAVE_CUDA
        pthread_mutex_lock(&p->p3->lock);
        kr_status s = kri_cuda_ct3d_adjoint(p, proj->data, vol->data);
        pthread_mutex_unlock(&p->p3->lock);
        return s;
#else
        return kri_fail(KR_ERR_NO_DEVICE, "CT projector: this kray was built without CUDA");
#endif
    }
    return kri_cpu_ct3d_adjoint(p, proj->data, vol->data, kri_threads(p->ctx));
}
