/* FDK's front: options, geometry (per-view matrices, weights, Parker), validation and the
 * dispatch to the plan's backend (fdk_internal.h). See kray/fdk.h for the definitions. */
#include "ct_internal.h"
#include "fdk_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static kr_status kri_fdk_check_tune(const kri_fdk_tune *t)
{
    if ((unsigned)t->kernel >= KRI_FDK_KERNEL_COUNT)
        return kri_fail(KR_ERR_INVALID_ARG, "fdk: kernel %d is not a kri_fdk_kernel",
                        (int)t->kernel);
    if (t->fuse < -1 || t->fuse > 1)
        return kri_fail(KR_ERR_INVALID_ARG, "fdk: fuse is %d (expected -1, 0 or 1)", t->fuse);
    if (t->host_batch < -1)
        return kri_fail(KR_ERR_INVALID_ARG, "fdk: host_batch is %d (expected -1, 0 or a count)",
                        t->host_batch);
    return KR_OK;
}

void kr_fdk_opts_default(kr_fdk_opts *o)
{
    if (!o) return;
    kr_filter_opts f; /* the filter module's defaults: FFT, Ram-Lak window, cutoff 1 */
    kr_filter_opts_default(&f);
    memset(o, 0, sizeof *o);
    o->filter = f.method;
    o->window = f.window;
    o->cutoff = f.cutoff;
    o->short_scan = -1;
    o->dtype = KR_F32;
}

/* ---- small vector helpers ------------------------------------------------------------------ */
static double kri_dot(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void kri_cross(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}
static double kri_norm(const double *a) { return sqrt(kri_dot(a, a)); }
static int kri_fdk_finite3(const double *a)
{
    return isfinite(a[0]) && isfinite(a[1]) && isfinite(a[2]);
}

/* Double-precision matrices of one view (rows u, v, w over (i, j, k, 1)). */
typedef struct kri_vgeom {
    double P[3][4];
    double n[3], dsd, dso, ulen, area; /* area: |u x v| */
} kri_vgeom;

/* axis: require the rotation axis between source and detector (FDK's weights need it). */
static kr_status kri_fdk_view_geom(const kr_ct_view *V, const kr_ct_grid *g, int64_t nu,
                                   int64_t nv, int64_t m, int axis, kri_vgeom *out)
{
    if (!kri_fdk_finite3(V->src) || !kri_fdk_finite3(V->det) || !kri_fdk_finite3(V->u) ||
        !kri_fdk_finite3(V->v))
        return kri_fail(KR_ERR_GEOMETRY, "view %lld: a view vector has a non-finite component",
                        (long long)m);
    double w[3] = {V->det[0] - V->src[0], V->det[1] - V->src[1], V->det[2] - V->src[2]};
    double ul = kri_norm(V->u), vl = kri_norm(V->v), wl = kri_norm(w);
    if (!(ul > 0) || !(vl > 0))
        return kri_fail(KR_ERR_GEOMETRY, "view %lld: the detector pixel vector %s is zero",
                        (long long)m, ul > 0 ? "v" : "u");
    if (!(wl > 0))
        return kri_fail(KR_ERR_GEOMETRY,
                        "view %lld: the detector centre coincides with the source (degenerate "
                        "source-detector distance)",
                        (long long)m);
    double vxw[3], wxu[3], uxv[3];
    kri_cross(V->v, w, vxw);
    kri_cross(w, V->u, wxu);
    kri_cross(V->u, V->v, uxv);
    double uvl = kri_norm(uxv);
    if (!(uvl > 1e-9 * ul * vl))
        return kri_fail(KR_ERR_GEOMETRY, "view %lld: the detector pixel vectors u and v are "
                        "parallel", (long long)m);
    double det = kri_dot(V->u, vxw); /* u . (v x w) */
    if (!(fabs(det) > 1e-9 * ul * vl * wl))
        return kri_fail(KR_ERR_GEOMETRY,
                        "view %lld: the detector is seen edge-on from the source (det - src lies "
                        "in the detector plane)",
                        (long long)m);
    double sg = det > 0 ? 1.0 : -1.0;
    for (int d = 0; d < 3; d++) out->n[d] = sg * uxv[d] / uvl;
    out->dsd = kri_dot(out->n, w); /* > 0 */
    double a[3] = {-V->src[0], -V->src[1], 0.0};
    out->dso = kri_dot(out->n, a);
    out->ulen = ul;
    out->area = uvl;
    if (axis && !(out->dso > 0))
        return kri_fail(KR_ERR_GEOMETRY,
                        "view %lld: the rotation axis (z through the origin) is not between the "
                        "source and the detector (source-axis distance along the detector "
                        "normal %.6g mm)",
                        (long long)m, out->dso);
    /* corner voxel centre and steps */
    double c[3], s[3];
    for (int d = 0; d < 3; d++) {
        c[d] = g->offset_mm[d] - 0.5 * (double)(g->n[d] - 1) * g->voxel_mm[d] - V->src[d];
        s[d] = g->voxel_mm[d];
    }
    const double *rows[3] = {vxw, wxu, uxv};
    double R[3][4];
    for (int r = 0; r < 3; r++) {
        for (int d = 0; d < 3; d++) R[r][d] = rows[r][d] / det * s[d];
        R[r][3] = kri_dot(rows[r], c) / det;
    }
    for (int d = 0; d < 4; d++) {
        out->P[2][d] = R[2][d];
        out->P[0][d] = R[0][d] + 0.5 * (double)(nu - 1) * R[2][d];
        out->P[1][d] = R[1][d] + 0.5 * (double)(nv - 1) * R[2][d];
    }
    /* the whole volume (voxel boxes) in front of the source: lambda > 0 at its 8 corners */
    for (int cn = 0; cn < 8; cn++) {
        double idx[3];
        for (int d = 0; d < 3; d++)
            idx[d] = (cn >> d & 1) ? (double)g->n[d] - 0.5 : -0.5;
        double lam = R[2][0] * idx[0] + R[2][1] * idx[1] + R[2][2] * idx[2] + R[2][3];
        if (!(lam > 1e-6))
            return kri_fail(KR_ERR_GEOMETRY,
                            "view %lld: the volume reaches the source or behind it (corner "
                            "%d of the volume box; move the source further out or shrink the "
                            "volume)",
                            (long long)m, cn);
    }
    return KR_OK;
}

/* ---- view weights ------------------------------------------------------------------------- */
/* The pre-weighting parameters of view m with this scale (kri_fdk_wv). */
static void kri_fdk_wv_fill(kr_fdk_plan *p, const kri_vgeom *vg, int64_t m, double scale)
{
    const kr_ct_view *V = &p->views[m];
    kri_fdk_wv *c = &p->wv[m];
    memset(c, 0, sizeof *c);
    for (int d = 0; d < 3; d++) {
        c->r0[d] = (float)(V->det[d] - V->src[d] - 0.5 * (double)(p->nu - 1) * V->u[d] -
                           0.5 * (double)(p->nv - 1) * V->v[d]);
        c->u[d] = (float)V->u[d];
        c->v[d] = (float)V->v[d];
        c->n[d] = (float)vg[m].n[d];
    }
    c->scale = (float)scale;
}

/* Full-scan weights: half the cyclic angular gaps, over 2 (each ray is seen twice). */
static kr_status kri_full_weights(const double *beta, int64_t n, double *w)
{
    double *s;
    KRI_TRY(kri_alloc((void **)&s, (size_t)n * 2 * sizeof(double), "FDK view weights"));
    for (int64_t m = 0; m < n; m++) {
        double b = fmod(beta[m], 2 * M_PI);
        if (b < 0) b += 2 * M_PI;
        s[2 * m] = b;
        s[2 * m + 1] = (double)m;
    }
    qsort(s, (size_t)n, 2 * sizeof(double), kri_cmp_double);
    for (int64_t r = 0; r < n; r++) {
        double prev = r > 0 ? s[2 * r] - s[2 * (r - 1)] : s[0] + 2 * M_PI - s[2 * (n - 1)];
        double next = r + 1 < n ? s[2 * (r + 1)] - s[2 * r] : s[0] + 2 * M_PI - s[2 * r];
        if (n == 1) prev = next = 2 * M_PI;
        w[(int64_t)s[2 * r + 1]] = 0.25 * (prev + next);
    }
    kri_free(s);
    return KR_OK;
}

/* Fan angle of detector column a in view m, positive towards the source's motion. */
static double kri_gamma(const kr_ct_view *V, int64_t nu, double a, double sense)
{
    double px = V->det[0] + (a - 0.5 * (double)(nu - 1)) * V->u[0] - V->src[0];
    double py = V->det[1] + (a - 0.5 * (double)(nu - 1)) * V->u[1] - V->src[1];
    double sl = hypot(V->src[0], V->src[1]);
    double cx = -V->src[0] / sl, cy = -V->src[1] / sl;
    double tx = -sense * V->src[1] / sl, ty = sense * V->src[0] / sl;
    return atan2(px * tx + py * ty, px * cx + py * cy);
}

static kr_status kri_fdk_weights(kr_fdk_plan *p, const kri_vgeom *vg)
{
    const int64_t n = p->nviews, nu = p->nu;
    double *beta, *vw;
    KRI_TRY(kri_alloc((void **)&beta, (size_t)n * 2 * sizeof(double), "FDK view angles"));
    vw = beta + n;
    int mono = 1;
    double sense = 0;
    beta[0] = 0;
    double b0 = atan2(p->views[0].src[1], p->views[0].src[0]), prevb = b0;
    for (int64_t m = 1; m < n; m++) {
        double b = atan2(p->views[m].src[1], p->views[m].src[0]);
        double d = remainder(b - prevb, 2 * M_PI);
        prevb = b;
        beta[m] = beta[m - 1] + d;
        double sg = d > 0 ? 1.0 : (d < 0 ? -1.0 : 0.0);
        if (sg == 0 || (sense != 0 && sg != sense)) mono = 0;
        if (sense == 0) sense = sg;
    }
    if (n < 2) mono = 0;
    double arc = n > 1 ? fabs(beta[n - 1]) : 0;
    double step = n > 1 ? arc / (double)(n - 1) : 2 * M_PI;
    /* fan angle from the outermost columns */
    double gmax = 0;
    for (int64_t m = 0; m < n; m++) {
        double g0 = fabs(kri_gamma(&p->views[m], nu, 0, sense ? sense : 1));
        double g1 = fabs(kri_gamma(&p->views[m], nu, (double)(nu - 1), sense ? sense : 1));
        if (g0 > gmax) gmax = g0;
        if (g1 > gmax) gmax = g1;
    }
    p->info.arc_deg = arc * 180 / M_PI;
    p->info.fan_deg = 2 * gmax * 180 / M_PI;
    int full = !mono || arc + step >= 2 * M_PI - 0.25 * step;
    int shortscan = p->o.short_scan < 0 ? !full : p->o.short_scan;
    kr_status s = KR_OK;
    if (shortscan && !mono) {
        s = kri_fail(KR_ERR_GEOMETRY,
                     "Parker short-scan weights need views that turn monotonically about the z "
                     "axis; these do not");
        goto done;
    }
    if (shortscan) {
        if (arc < M_PI * (1 - 1e-9)) {
            s = kri_fail(KR_ERR_GEOMETRY,
                         "the short scan covers %.6g degrees; FDK needs at least 180 degrees "
                         "plus the fan angle (%.6g degrees)",
                         arc * 180 / M_PI, 2 * gmax * 180 / M_PI);
            goto done;
        }
        if (arc < M_PI + 2 * gmax - step)
            kr_log(p->ctx, KR_LOG_WARN,
                   "fdk: the short scan covers %.6g degrees, less than 180 + the fan angle "
                   "%.6g = %.6g degrees: rays at the edge of the fan lack a conjugate ray and "
                   "the reconstruction is incomplete there",
                   arc * 180 / M_PI, 2 * gmax * 180 / M_PI, 180 + 2 * gmax * 180 / M_PI);
        double delta = 0.5 * (arc - M_PI);
        KRI_TRY(kri_alloc((void **)&p->parker, (size_t)(nu * n) * sizeof(float),
                          "Parker weights"));
        for (int64_t m = 0; m < n; m++) {
            double b = fabs(beta[m]);
            double lo = m > 0 ? fabs(beta[m]) - fabs(beta[m - 1]) : 0;
            double hi = m + 1 < n ? fabs(beta[m + 1]) - fabs(beta[m]) : 0;
            vw[m] = 0.5 * (lo + hi);
            for (int64_t a = 0; a < nu; a++) {
                double g = kri_gamma(&p->views[m], nu, (double)a, sense);
                /* kri_gamma counts the fan angle the other way round from kri_parker */
                p->parker[a + nu * m] = (float)kri_parker(b, -g, delta);
            }
        }
    } else {
        s = kri_full_weights(beta, n, vw);
        if (s != KR_OK) goto done;
        if (mono && arc + step < 2 * M_PI - 0.25 * step)
            kr_log(p->ctx, KR_LOG_WARN,
                   "fdk: full-scan weights forced on views that cover only %.6g degrees",
                   (arc + step) * 180 / M_PI);
    }
    p->info.short_scan = shortscan;
    for (int64_t m = 0; m < n; m++)
        kri_fdk_wv_fill(p, vg, m, vw[m] * vg[m].dso / (vg[m].dsd * vg[m].ulen));
done:
    kri_free(beta);
    return s;
}

/* Warn when the cylinder inscribed in the volume leaves the detector in some views. */
static void kri_fdk_fov_check(kr_fdk_plan *p)
{
    int64_t first;
    double ext[4] = {0, 0, 0, 0};
    const int64_t bad =
        kri_ct_fov_count(p->views, p->nviews, &p->grid, p->nu, p->nv, 1, &first, ext);
    p->info.fov_warning = (int)(bad > 0x7fffffff ? 0x7fffffff : bad);
    if (bad)
        kr_log(p->ctx, KR_LOG_WARN,
               "fdk: the cylinder inscribed in the volume leaves the detector in %lld of %lld "
               "views (view %lld: columns %.1f..%.1f, rows %.1f..%.1f pixels from the detector "
               "centre; the detector spans +-%.1f x +-%.1f); the reconstruction is incomplete "
               "there",
               (long long)bad, (long long)p->nviews, (long long)first, ext[0], ext[1], ext[2],
               ext[3], 0.5 * (double)p->nu, 0.5 * (double)p->nv);
}

/* ---- plan ------------------------------------------------------------------------------------ */
void kr_fdk_plan_destroy(kr_fdk_plan *p)
{
    if (!p) return;
    if (p->be) p->be->destroy(p->state);
    kri_fdkm_destroy(p->multi);
    kri_free(p->views);
    kri_free(p->mat);
    kri_free(p->wv);
    kri_free(p->parker);
    kri_free(p);
}

static kr_status kri_fdk_check_opts(const kr_fdk_opts *o)
{
    if ((unsigned)o->filter >= KR_FILTER_METHOD_COUNT)
        return kri_fail(KR_ERR_INVALID_ARG, "fdk: filter method %d is not a kr_filter_method",
                        (int)o->filter);
    if ((unsigned)o->window >= KR_WINDOW_COUNT)
        return kri_fail(KR_ERR_INVALID_ARG, "fdk: filter window %d is not a kr_filter_window",
                        (int)o->window);
    if (!(o->cutoff > 0 && o->cutoff <= 1))
        return kri_fail(KR_ERR_INVALID_ARG, "fdk: cutoff %g is outside (0, 1]", o->cutoff);
    if (o->short_scan < -1 || o->short_scan > 1)
        return kri_fail(KR_ERR_INVALID_ARG, "fdk: short_scan is %d (expected -1, 0 or 1)",
                        o->short_scan);
    if (o->dtype != KR_F32)
        return kri_fail(KR_ERR_DTYPE, "fdk: dtype %s is not supported (FDK runs in f32)",
                        kr_dtype_name(o->dtype));
    if (o->gpu_mem < 0 || o->batch_views < 0 || o->slab_z < 0)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "fdk: gpu_mem (%lld), batch_views (%lld) and slab_z (%lld) must be >= 0",
                        (long long)o->gpu_mem, (long long)o->batch_views, (long long)o->slab_z);
    return KR_OK;
}

kr_status kri_fdk_plan_make(kr_fdk_plan **plan, const kr_ctx *ctx, int64_t nu, int64_t nv,
                            const kr_ct_view *views, int64_t nviews, const kr_ct_grid *grid,
                            const kr_fdk_opts *o, const kri_fdk_tune *t, int bp_only)
{
    return kri_fdk_plan_make_range(plan, ctx, nu, nv, views, nviews, grid, o, t, bp_only, 0,
                                   grid ? grid->n[2] : 0);
}

/* The plan; with backend == 0 its geometry alone (matrices, weights; no backend state: the
 * slab planner's band of kr_fdk_plan_create_slab), with 2 without the field-of-view warning
 * (a slab's detector is cut to the rows the slab sees; the whole scan is what to check). */
static kr_status kri_fdk_plan_build(kr_fdk_plan **plan, const kr_ctx *ctx, int64_t nu,
                                    int64_t nv, const kr_ct_view *views, int64_t nviews,
                                    const kr_ct_grid *grid, const kr_fdk_opts *o,
                                    const kri_fdk_tune *t, int bp_only, int64_t z0, int64_t z1,
                                    int backend)
{
    KRI_ARG_NOT_NULL(plan);
    *plan = NULL;
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(views);
    KRI_ARG_NOT_NULL(grid);
    kr_fdk_opts od;
    if (!o) {
        kr_fdk_opts_default(&od);
        o = &od;
    }
    KRI_TRY(kri_fdk_check_opts(o));
    kri_fdk_tune td;
    if (!t) {
        kri_fdk_tune_default(&td);
        t = &td;
    }
    KRI_TRY(kri_fdk_check_tune(t));
    const int64_t maxn = (int64_t)1 << 20;
    if (nu < 1 || nv < 1 || nu > maxn || nv > maxn)
        return kri_fail(KR_ERR_DIM, "fdk: the detector has %lld x %lld pixels (each must be "
                        "1..%lld)", (long long)nu, (long long)nv, (long long)maxn);
    if (nviews < 1 || nviews > ((int64_t)1 << 24))
        return kri_fail(KR_ERR_DIM, "fdk: %lld views (must be 1..%lld)", (long long)nviews,
                        (long long)1 << 24);
    for (int d = 0; d < 3; d++) {
        if (grid->n[d] < 1 || grid->n[d] > maxn)
            return kri_fail(KR_ERR_GEOMETRY, "fdk: volume size along %c is %lld (must be 1..%lld)",
                            "xyz"[d], (long long)grid->n[d], (long long)maxn);
        if (!(grid->voxel_mm[d] > 0) || !isfinite(grid->voxel_mm[d]))
            return kri_fail(KR_ERR_GEOMETRY, "fdk: voxel size along %c is %g mm (must be > 0)",
                            "xyz"[d], grid->voxel_mm[d]);
        if (!isfinite(grid->offset_mm[d]))
            return kri_fail(KR_ERR_GEOMETRY, "fdk: volume offset along %c is not finite",
                            "xyz"[d]);
    }
    int64_t nvox;
    if (!kri_mul_ok(grid->n[0], grid->n[1], &nvox) || !kri_mul_ok(nvox, grid->n[2], &nvox) ||
        nvox > KR_MAX_ELEMENTS)
        return kri_fail(KR_ERR_DIM, "fdk: the volume has too many voxels");
    if (z0 < 0 || z1 <= z0 || z1 > grid->n[2])
        return kri_fail(KR_ERR_INTERNAL, "fdk: slices [%lld, %lld) of %lld", (long long)z0,
                        (long long)z1, (long long)grid->n[2]);
    kr_fdk_plan *p = kri_calloc(1, sizeof *p);
    if (!p) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for an FDK plan");
    p->ctx = ctx;
    p->loc = kri_ctx_loc(ctx);
    p->o = *o;
    p->tune = *t;
    p->nu = nu;
    p->nv = nv;
    p->nviews = nviews;
    p->grid = *grid;
    p->bp_only = bp_only;
    p->share = 1;
    p->z0 = z0;
    p->z1 = z1;
    p->info.kernel = "none";
    kri_vgeom *vg = NULL;
    kr_status s;
#define KRI_CHECK(expr)                                                                        \
    do {                                                                                       \
        s = (expr);                                                                            \
        if (s != KR_OK) goto fail;                                                             \
    } while (0)
    KRI_CHECK(kri_alloc((void **)&p->views, (size_t)nviews * sizeof *p->views, "FDK views"));
    memcpy(p->views, views, (size_t)nviews * sizeof *views);
    KRI_CHECK(kri_alloc((void **)&p->mat, (size_t)nviews * sizeof *p->mat, "FDK matrices"));
    KRI_CHECK(kri_alloc((void **)&p->wv, (size_t)nviews * sizeof *p->wv, "FDK weights"));
    KRI_CHECK(kri_alloc((void **)&vg, (size_t)nviews * sizeof *vg, "FDK view geometry"));
    p->fast = 1;
    for (int64_t m = 0; m < nviews; m++) {
        KRI_CHECK(kri_fdk_view_geom(&p->views[m], &p->grid, nu, nv, m, !bp_only, &vg[m]));
        for (int d = 0; d < 4; d++) {
            p->mat[m].pu[d] = (float)vg[m].P[0][d];
            p->mat[m].pv[d] = (float)vg[m].P[1][d];
            p->mat[m].pw[d] = (float)vg[m].P[2][d];
        }
        if (p->mat[m].pu[2] != 0.0f || p->mat[m].pw[2] != 0.0f) p->fast = 0;
    }
    p->info.fast_path = p->fast;
    if (bp_only) { /* ray density: voxel volume / pixel area, per view */
        const double vox = grid->voxel_mm[0] * grid->voxel_mm[1] * grid->voxel_mm[2];
        for (int64_t m = 0; m < nviews; m++) kri_fdk_wv_fill(p, vg, m, vox / vg[m].area);
    } else {
        KRI_CHECK(kri_fdk_weights(p, vg));
        if (backend == 1) kri_fdk_fov_check(p);
    }
    if (!backend) {
        /* the geometry alone */
    } else if (kr_ctx_ndevices(ctx) > 1) {
        static const kri_fdk_single single = {kri_fdk_plan_make_range, kr_fdk_plan_destroy};
        KRI_CHECK(kri_fdkm_create(&p->multi, p, &single)); /* the parts hold the backend states */
    } else {
        KRI_CHECK(kri_backend_pick(&p->be, p->loc, &kri_fdk_cpu, &kri_fdk_cuda,
                                   bp_only ? "voxel-driven backprojector" : "fdk"));
        KRI_CHECK(p->be->create(p, &p->state));
    }
#undef KRI_CHECK
    kri_free(vg);
    *plan = p;
    return KR_OK;
fail:
    kri_free(vg);
    kr_fdk_plan_destroy(p);
    return s;
}

kr_status kri_fdk_plan_make_range(kr_fdk_plan **plan, const kr_ctx *ctx, int64_t nu, int64_t nv,
                                  const kr_ct_view *views, int64_t nviews,
                                  const kr_ct_grid *grid, const kr_fdk_opts *o,
                                  const kri_fdk_tune *t, int bp_only, int64_t z0, int64_t z1)
{
    return kri_fdk_plan_build(plan, ctx, nu, nv, views, nviews, grid, o, t, bp_only, z0, z1, 1);
}

kr_status kr_fdk_plan_create_slab(kr_fdk_plan **plan, const kr_ctx *ctx, const kr_ct_geom *g,
                                  const kr_fdk_opts *o, int64_t z0, int64_t z1, int64_t *row0,
                                  int64_t *rows)
{
    KRI_ARG_NOT_NULL(plan);
    *plan = NULL;
    KRI_ARG_NOT_NULL(g);
    KRI_ARG_NOT_NULL(row0);
    KRI_ARG_NOT_NULL(rows);
    if (!kr_ct_type_is_cone(kr_ct_geom_type(g)))
        return kri_fail(KR_ERR_GEOMETRY, "fdk: the geometry is of type %s; FDK needs a cone-beam "
                        "geometry (cone or cone-vec)", kr_ct_type_name(kr_ct_geom_type(g)));
    const kr_ct_grid *gr = kr_ct_geom_grid(g);
    const int64_t nu = kr_ct_geom_det_count(g), nv = kr_ct_geom_det_rows(g);
    const int64_t nviews = kr_ct_geom_nviews(g);
    if (z0 < 0 || z1 <= z0 || z1 > gr->n[2])
        return kri_fail(KR_ERR_INVALID_ARG, "fdk: slices %lld..%lld of a volume of %lld",
                        (long long)z0, (long long)z1 - 1, (long long)gr->n[2]);
    /* the rows the slab reads, from the whole geometry's matrices */
    kr_fdk_plan *whole = NULL;
    KRI_TRY(kri_fdk_plan_build(&whole, ctx, nu, nv, kr_ct_geom_views(g), nviews, gr, o, NULL, 0, 0,
                               gr->n[2], 0));
    int64_t vb0, nvb;
    kri_fdk_band(whole, z0, z1 - z0, &vb0, &nvb);
    kr_fdk_plan_destroy(whole);
    if (nvb < 1) { /* the slab sees no row: keep one, its values never reach the slab */
        vb0 = 0;
        nvb = 1;
    }
    /* the same rays around the slab: detector centres moved to the band's centre, the volume's
     * offset to the slab's */
    kr_ct_view *v = NULL;
    KRI_TRY(kri_alloc((void **)&v, (size_t)nviews * sizeof *v, "FDK slab views"));
    memcpy(v, kr_ct_geom_views(g), (size_t)nviews * sizeof *v);
    const double shift = (double)vb0 + 0.5 * (double)(nvb - 1) - 0.5 * (double)(nv - 1);
    for (int64_t m = 0; m < nviews; m++)
        for (int d = 0; d < 3; d++) v[m].det[d] += shift * v[m].v[d];
    kr_ct_grid sg = *gr;
    sg.n[2] = z1 - z0;
    sg.offset_mm[2] = gr->offset_mm[2] +
                      ((double)z0 + 0.5 * (double)(z1 - z0 - 1) - 0.5 * (double)(gr->n[2] - 1)) *
                          gr->voxel_mm[2];
    kr_status s = kri_fdk_plan_build(plan, ctx, nu, nvb, v, nviews, &sg, o, NULL, 0, 0, z1 - z0, 2);
    kri_free(v);
    if (s == KR_OK) {
        *row0 = vb0;
        *rows = nvb;
    }
    return s;
}

kr_status kri_fdk_plan_create_views_tuned(kr_fdk_plan **plan, const kr_ctx *ctx, int64_t nu,
                                          int64_t nv, const kr_ct_view *views, int64_t nviews,
                                          const kr_ct_grid *grid, const kr_fdk_opts *o,
                                          const kri_fdk_tune *t)
{
    return kri_fdk_plan_make(plan, ctx, nu, nv, views, nviews, grid, o, t, 0);
}

kr_status kr_fdk_plan_create_views(kr_fdk_plan **plan, const kr_ctx *ctx, int64_t nu,
                                   int64_t nv, const kr_ct_view *views, int64_t nviews,
                                   const kr_ct_grid *grid, const kr_fdk_opts *o)
{
    return kri_fdk_plan_make(plan, ctx, nu, nv, views, nviews, grid, o, NULL, 0);
}

/* ---- execute --------------------------------------------------------------------------------- */
/* An array of an execute: f32, contiguous, of the plan's dims (want), on the host or (CUDA
 * plans) on the plan's device. */
static kr_status kri_fdk_check_array(const kr_fdk_plan *p, const char *fn, const kr_array *a,
                                     const char *what, const int64_t *want)
{
    const kr_loc loc = p->loc == KR_DEVICE ? KRI_ANY_LOC : KR_HOST;
    KRI_TRY(kri_check_operand_dims(fn, what, a, KR_F32, loc, 3, want));
    if (a->loc == KR_DEVICE && a->device != kr_ctx_device(p->ctx))
        return kri_fail(KR_ERR_LOCATION, "%s: %s is on device %d, the plan on device %d", fn, what,
                        a->device, kr_ctx_device(p->ctx));
    return KR_OK;
}

static kr_status kri_fdk_check_finite(kr_fdk_plan *p, const kr_array *proj)
{
    int64_t nnan = 0, ninf = 0, first = -1;
    if (p->multi)
        KRI_TRY(kri_fdkm_census(p->multi, proj, &nnan, &ninf, &first));
    else
        KRI_TRY(p->be->census(p->state, p, proj, &nnan, &ninf, &first));
    if (nnan || ninf) {
        int64_t a = first % p->nu, b = first / p->nu % p->nv, m = first / (p->nu * p->nv);
        return kri_fail(KR_ERR_INVALID_ARG,
                        "%s: the projections contain %lld NaN and %lld infinite values (the "
                        "first at u %lld, v %lld, view %lld)",
                        p->bp_only ? "voxel-driven backprojector" : "fdk", (long long)nnan,
                        (long long)ninf, (long long)a, (long long)b, (long long)m);
    }
    return KR_OK;
}

static kr_status kri_fdk_run(kr_fdk_plan *p, const kr_array *proj, kr_array *vol, int mode)
{
    KRI_ARG_NOT_NULL(p);
    if ((mode == KRI_FDK_DENSITY) != p->bp_only)
        return kri_fail(KR_ERR_INVALID_ARG, "fdk: this plan %s",
                        p->bp_only ? "only backprojects with ray-density weights"
                                   : "has no ray-density weights");
    const char *fn = mode == KRI_FDK_DENSITY ? "voxel-driven backprojector"
                     : mode == KRI_FDK_FILTER ? "kr_fdk_execute"
                                              : "kr_fdk_backproject";
    const int64_t pd[3] = {p->nu, p->nv, p->nviews};
    KRI_TRY(kri_fdk_check_array(p, fn, proj, "proj", pd));
    KRI_TRY(kri_fdk_check_array(p, fn, vol, "vol", p->grid.n));
    KRI_TRY(kri_fdk_check_finite(p, proj));
    if (p->multi) return kri_fdkm_run(p->multi, p, proj, vol, mode);
    return p->be->run(p->state, p, proj, vol, mode);
}

kr_status kr_fdk_execute(kr_fdk_plan *p, const kr_array *proj, kr_array *vol)
{
    return kri_fdk_run(p, proj, vol, KRI_FDK_FILTER);
}

kr_status kr_fdk_backproject(kr_fdk_plan *p, const kr_array *proj, kr_array *vol)
{
    return kri_fdk_run(p, proj, vol, KRI_FDK_RAW);
}

kr_status kri_fdk_backproject_density(kr_fdk_plan *p, const kr_array *proj, kr_array *vol)
{
    return kri_fdk_run(p, proj, vol, KRI_FDK_DENSITY);
}

kr_status kr_fdk_plan_info(const kr_fdk_plan *p, kr_fdk_info *info)
{
    KRI_ARG_NOT_NULL(p);
    KRI_ARG_NOT_NULL(info);
    *info = p->info;
    return KR_OK;
}

kr_status kri_fdk_plan_create_tuned(kr_fdk_plan **plan, const kr_ctx *ctx, const kr_ct_geom *g,
                                    const kr_fdk_opts *o, const kri_fdk_tune *t)
{
    KRI_ARG_NOT_NULL(plan);
    *plan = NULL;
    KRI_ARG_NOT_NULL(g);
    if (!kr_ct_type_is_cone(kr_ct_geom_type(g)))
        return kri_fail(KR_ERR_GEOMETRY, "fdk: the geometry is of type %s; FDK needs a cone-beam "
                        "geometry (cone or cone-vec)", kr_ct_type_name(kr_ct_geom_type(g)));
    return kri_fdk_plan_make(plan, ctx, kr_ct_geom_det_count(g), kr_ct_geom_det_rows(g),
                             kr_ct_geom_views(g), kr_ct_geom_nviews(g), kr_ct_geom_grid(g), o, t,
                             0);
}

kr_status kr_fdk_plan_create(kr_fdk_plan **plan, const kr_ctx *ctx, const kr_ct_geom *g,
                             const kr_fdk_opts *o)
{
    return kri_fdk_plan_create_tuned(plan, ctx, g, o, NULL);
}

kr_status kr_fdk(const kr_ctx *ctx, const kr_ct_geom *g, const kr_fdk_opts *o,
                 const kr_array *proj, kr_array *vol)
{
    kr_fdk_plan *p;
    KRI_TRY(kr_fdk_plan_create(&p, ctx, g, o));
    kr_status s = kr_fdk_execute(p, proj, vol);
    kr_fdk_plan_destroy(p);
    return s;
}

kr_status kr_fdk_views(const kr_ctx *ctx, int64_t nu, int64_t nv, const kr_ct_view *views,
                       int64_t nviews, const kr_ct_grid *grid, const kr_fdk_opts *o,
                       const kr_array *proj, kr_array *vol)
{
    kr_fdk_plan *p;
    KRI_TRY(kr_fdk_plan_create_views(&p, ctx, nu, nv, views, nviews, grid, o));
    kr_status s = kr_fdk_execute(p, proj, vol);
    kr_fdk_plan_destroy(p);
    return s;
}
