/* CT geometry: types, grids, builders from physical parameters, per-view vectors, validation,
 * and the "start:stop:count" angle parser. */
#include "ct_internal.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const char *const kri_ct_type_names[KR_CT_TYPE_COUNT] = {
    "invalid", "parallel2d", "fan2d-flat", "fan2d-equiangular", "cone", "cone-vec"};

const char *kr_ct_type_name(kr_ct_type t)
{
    return (int)t > 0 && t < KR_CT_TYPE_COUNT ? kri_ct_type_names[t] : "invalid";
}

kr_status kr_ct_type_from_name(const char *s, kr_ct_type *t)
{
    KRI_ARG_NOT_NULL(s);
    KRI_ARG_NOT_NULL(t);
    for (int i = 1; i < KR_CT_TYPE_COUNT; i++)
        if (strcmp(s, kri_ct_type_names[i]) == 0) {
            *t = (kr_ct_type)i;
            return KR_OK;
        }
    return kri_fail(KR_ERR_INVALID_ARG,
                    "unknown CT geometry type '%s' (expected parallel2d, fan2d-flat, "
                    "fan2d-equiangular, cone or cone-vec)",
                    s);
}

int kr_ct_type_ndim(kr_ct_type t)
{
    switch (t) {
    case KR_CT_PARALLEL2D:
    case KR_CT_FAN2D_FLAT:
    case KR_CT_FAN2D_EQUIANGULAR: return 2;
    case KR_CT_CONE:
    case KR_CT_CONE_VEC: return 3;
    default: return 0;
    }
}

int kr_ct_type_is_cone(kr_ct_type t) { return t == KR_CT_CONE || t == KR_CT_CONE_VEC; }

int kr_ct_type_is_parallel(kr_ct_type t) { return t == KR_CT_PARALLEL2D; }

void kr_ct_grid_2d(kr_ct_grid *g, int64_t nx, int64_t ny, double voxel_mm)
{
    if (!g) return;
    memset(g, 0, sizeof *g);
    g->n[0] = nx;
    g->n[1] = ny;
    g->n[2] = 1;
    g->voxel_mm[0] = g->voxel_mm[1] = g->voxel_mm[2] = voxel_mm;
}

void kr_ct_grid_3d(kr_ct_grid *g, int64_t nx, int64_t ny, int64_t nz, double voxel_mm)
{
    if (!g) return;
    memset(g, 0, sizeof *g);
    g->n[0] = nx;
    g->n[1] = ny;
    g->n[2] = nz;
    g->voxel_mm[0] = g->voxel_mm[1] = g->voxel_mm[2] = voxel_mm;
}

void kr_ct_scan_default(kr_ct_scan *s)
{
    if (!s) return;
    memset(s, 0, sizeof *s);
    s->type = KR_CT_PARALLEL2D;
    s->nviews = 180;
    s->start_deg = 0;
    s->stop_deg = 180;
    s->det_spacing_mm = 1;
}

/* sin and cos of an angle in degrees; exact at multiples of 90 degrees. */
static void kri_sincosd(double deg, double *s, double *c)
{
    double r = fmod(deg, 360.0); /* exact */
    if (r < 0) r += 360.0;
    if (r == 0) { *s = 0; *c = 1; return; }
    if (r == 90) { *s = 1; *c = 0; return; }
    if (r == 180) { *s = 0; *c = -1; return; }
    if (r == 270) { *s = -1; *c = 0; return; }
    double a = r * (3.14159265358979323846 / 180.0);
    *s = sin(a);
    *c = cos(a);
}

/* Check a 2-D grid and normalise its unused z entries (n 1, voxel 1, offset 0). */
static kr_status kri_ct_grid_check(kr_ct_grid *g, int ndim)
{
    static const char ax[3] = {'x', 'y', 'z'};
    if (g->n[2] == 0 && ndim == 2) g->n[2] = 1;
    for (int d = 0; d < ndim; d++) {
        if (g->n[d] < 1 || g->n[d] > KRI_CT_MAX_N)
            return kri_fail(KR_ERR_GEOMETRY, "image size along %c is %lld (must be 1..%lld)",
                            ax[d], (long long)g->n[d], (long long)KRI_CT_MAX_N);
        if (!kri_ct_size_ok(g->voxel_mm[d]))
            return kri_fail(KR_ERR_GEOMETRY,
                            "image voxel size along %c is %g mm (must be in 1e-6..1e6 mm)",
                            ax[d], g->voxel_mm[d]);
        if (!kri_ct_mm_ok(g->offset_mm[d]))
            return kri_fail(KR_ERR_GEOMETRY,
                            "image offset along %c is %g mm (must be finite, at most 1e6 mm in "
                            "magnitude)",
                            ax[d], g->offset_mm[d]);
    }
    if (ndim == 2) {
        if (g->n[2] != 1)
            return kri_fail(KR_ERR_GEOMETRY,
                            "a 2-D geometry needs an image with one slice (n[2] = 1), got %lld",
                            (long long)g->n[2]);
        g->voxel_mm[2] = 1;
        g->offset_mm[2] = 0;
    }
    return KR_OK;
}

/* ---- view validation ------------------------------------------------------------------------- */
static int kri_mm3_ok(const double *a)
{
    return kri_ct_mm_ok(a[0]) && kri_ct_mm_ok(a[1]) && kri_ct_mm_ok(a[2]);
}
static double kri_cross2(const double *a, const double *b) { return a[0] * b[1] - a[1] * b[0]; }
static double kri_dot2(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1]; }
static double kri_norm2(const double *a) { return hypot(a[0], a[1]); }

static void kri_view_where(const kr_ct_geom *g, int64_t v, char *buf, size_t n)
{
    if (g->has_scan)
        snprintf(buf, n, "view %lld (angle %.10g deg)", (long long)v, g->angles[v]);
    else
        snprintf(buf, n, "view %lld", (long long)v);
}

static kr_status kri_ct_check_view_at(const kr_ct_geom *g, int64_t vi, const char *where)
{
    const kr_ct_view *v = &g->views[vi];
    const kr_ct_grid *gr = &g->grid;
    if (kr_ct_type_ndim(g->type) == 3) return kri_ct_check_view3(g, vi, where);
    int par = kr_ct_type_is_parallel(g->type);
    if (!kri_mm3_ok(v->src) || !kri_mm3_ok(v->ray) || !kri_mm3_ok(v->det) ||
        !kri_mm3_ok(v->u) || !kri_mm3_ok(v->v))
        return kri_fail(KR_ERR_GEOMETRY,
                        "%s: a view vector has a non-finite component or one beyond "
                        "1e6 mm in magnitude",
                        where);
    if (v->src[2] != 0 || v->ray[2] != 0 || v->det[2] != 0 || v->u[2] != 0 || v->v[0] != 0 ||
        v->v[1] != 0 || v->v[2] != 0)
        return kri_fail(KR_ERR_GEOMETRY,
                        "%s: a 2-D geometry must have zero z components and a zero v vector",
                        where);
    if (par && (v->src[0] != 0 || v->src[1] != 0))
        return kri_fail(KR_ERR_GEOMETRY,
                        "%s: a parallel-beam view has no source point (src must be zero)", where);
    if (!par && (v->ray[0] != 0 || v->ray[1] != 0))
        return kri_fail(KR_ERR_GEOMETRY,
                        "%s: a fan-beam view has a source point, not a ray direction (ray must "
                        "be zero)",
                        where);
    double ulen = kri_norm2(v->u);
    if (!(ulen > 0))
        return kri_fail(KR_ERR_GEOMETRY, "%s: the detector pixel vector u is zero", where);
    if (par) {
        double rlen = kri_norm2(v->ray);
        if (!(rlen > 0))
            return kri_fail(KR_ERR_GEOMETRY, "%s: the ray direction is zero", where);
        if (fabs(kri_cross2(v->ray, v->u)) <= 1e-9 * rlen * ulen)
            return kri_fail(KR_ERR_GEOMETRY,
                            "%s: the detector u vector is parallel to the ray direction", where);
        return KR_OK;
    }
    double r[2] = {v->det[0] - v->src[0], v->det[1] - v->src[1]};
    double R = kri_norm2(r);
    if (!(R > 0))
        return kri_fail(KR_ERR_GEOMETRY, "%s: the detector centre coincides with the source",
                        where);
    double nrm[2]; /* "forward" direction: every ray d has d . nrm > 0 */
    if (g->type == KR_CT_FAN2D_FLAT) {
        double c = kri_cross2(r, v->u);
        if (fabs(c) <= 1e-9 * R * ulen)
            return kri_fail(KR_ERR_GEOMETRY,
                            "%s: the detector u vector points at the source (flat detector seen "
                            "edge-on)",
                            where);
        /* unit normal to u, on the detector's side of the source */
        nrm[0] = -v->u[1] / ulen;
        nrm[1] = v->u[0] / ulen;
        if (kri_dot2(nrm, r) < 0) nrm[0] = -nrm[0], nrm[1] = -nrm[1];
    } else {
        nrm[0] = r[0] / R;
        nrm[1] = r[1] / R;
        if (fabs(kri_dot2(nrm, v->u)) > 1e-6 * ulen)
            return kri_fail(KR_ERR_GEOMETRY,
                            "%s: for an equiangular detector u must be perpendicular to det - src "
                            "(the arc's tangent)",
                            where);
        double half = ((double)g->det_count - 1) / 2 * ulen / R;
        if (!(half < 1.5707963267948966 * (1 - 1e-9)))
            return kri_fail(KR_ERR_GEOMETRY,
                            "%s: the equiangular fan spans %.6g degrees (must be under 180)",
                            where, 2 * half * 180 / 3.14159265358979323846);
    }
    /* The image grown by one pixel must lie in front of the source. */
    double hx = (double)(gr->n[0] + 2) * 0.5 * gr->voxel_mm[0];
    double hy = (double)(gr->n[1] + 2) * 0.5 * gr->voxel_mm[1];
    double minsep = 1e-6 * (gr->voxel_mm[0] + gr->voxel_mm[1]);
    for (int c = 0; c < 4; c++) {
        double p[2] = {gr->offset_mm[0] + ((c & 1) ? hx : -hx) - v->src[0],
                       gr->offset_mm[1] + ((c & 2) ? hy : -hy) - v->src[1]};
        if (!(kri_dot2(p, nrm) > minsep)) {
            char extra[160] = "";
            if (g->has_scan)
                snprintf(extra, sizeof extra,
                         "; the source-origin distance %.6g mm must exceed the distance from the "
                         "axis to the image corners plus one pixel, %.6g mm",
                         g->scan.sod_mm,
                         hypot(fabs(gr->offset_mm[0]) + hx, fabs(gr->offset_mm[1]) + hy));
            return kri_fail(KR_ERR_GEOMETRY,
                            "%s: the source at (%.6g, %.6g) mm lies inside the image or within "
                            "one pixel of it, which spans x %.6g..%.6g, y %.6g..%.6g mm%s",
                            where, v->src[0], v->src[1], gr->offset_mm[0] - hx + gr->voxel_mm[0],
                            gr->offset_mm[0] + hx - gr->voxel_mm[0],
                            gr->offset_mm[1] - hy + gr->voxel_mm[1],
                            gr->offset_mm[1] + hy - gr->voxel_mm[1], extra);
        }
    }
    return KR_OK;
}

/* A view's location is written only for the sentence of a view that fails (printing it for
 * each of 1e5 valid views was most of the time a long scan took to parse). */
static kr_status kri_ct_check_view(const kr_ct_geom *g, int64_t vi)
{
    if (kri_ct_check_view_at(g, vi, "") == KR_OK) return KR_OK;
    char where[96];
    kri_view_where(g, vi, where, sizeof where);
    return kri_ct_check_view_at(g, vi, where);
}

/* Validate every view of g: then *out = g, else g is destroyed. */
static kr_status kri_ct_finish(kr_ct_geom **out, kr_ct_geom *g)
{
    kr_status s = KR_OK;
    for (int64_t v = 0; s == KR_OK && v < g->nviews; v++) s = kri_ct_check_view(g, v);
    if (s != KR_OK) {
        kr_ct_geom_destroy(g);
        return s;
    }
    *out = g;
    return KR_OK;
}

static kr_status kri_ct_check_common(kr_ct_type type, int64_t det_count, int64_t det_rows,
                                     int64_t nviews)
{
    if (kr_ct_type_ndim(type) == 0)
        return kri_fail(KR_ERR_INVALID_ARG, "CT geometry type %d is not one of parallel2d, "
                        "fan2d-flat, fan2d-equiangular, cone, cone-vec", (int)type);
    if (det_count < 1 || det_count > KRI_CT_MAX_N)
        return kri_fail(KR_ERR_GEOMETRY, "det_count is %lld (must be 1..%lld)",
                        (long long)det_count, (long long)KRI_CT_MAX_N);
    if (kr_ct_type_ndim(type) == 3 && (det_rows < 1 || det_rows > KRI_CT_MAX_N))
        return kri_fail(KR_ERR_GEOMETRY, "det_rows is %lld (must be 1..%lld)",
                        (long long)det_rows, (long long)KRI_CT_MAX_N);
    if (nviews < 1 || nviews > KRI_CT_MAX_VIEWS)
        return kri_fail(KR_ERR_GEOMETRY, "the number of views is %lld (must be 1..%lld)",
                        (long long)nviews, (long long)KRI_CT_MAX_VIEWS);
    return KR_OK;
}

/* The image and the projections a geometry describes must fit in the machine's memory together
 * (as float32, the smallest element type a reconstruction uses): said before anything that
 * size is allocated, with both numbers. */
static kr_status kri_ct_check_memory(int64_t det_count, int64_t det_rows, int64_t nviews,
                                     const kr_ct_grid *g)
{
    const double img = 4.0 * (double)g->n[0] * (double)g->n[1] * (double)g->n[2];
    const double prj = 4.0 * (double)det_count * (double)det_rows * (double)nviews;
    const double have = (double)kri_host_memory_bytes();
    if (have > 0 && img + prj > have)
        return kri_fail(KR_ERR_OOM_HOST,
                        "the geometry needs %.1f GB for its %lldx%lldx%lld image and %.1f GB for "
                        "its %lldx%lldx%lld projections (float32), more than the %.1f GB of "
                        "memory of this machine",
                        img * 1e-9, (long long)g->n[0], (long long)g->n[1], (long long)g->n[2],
                        prj * 1e-9, (long long)det_count, (long long)det_rows, (long long)nviews,
                        have * 1e-9);
    return KR_OK;
}

static kr_status kri_ct_alloc(kr_ct_geom **out, kr_ct_type type, int64_t det_count,
                              int64_t det_rows, int64_t nviews, const kr_ct_grid *grid)
{
    *out = NULL;
    KRI_TRY(kri_ct_check_common(type, det_count, det_rows, nviews));
    kr_ct_grid gr = *grid;
    KRI_TRY(kri_ct_grid_check(&gr, kr_ct_type_ndim(type)));
    KRI_TRY(kri_ct_check_memory(det_count, kr_ct_type_ndim(type) == 3 ? det_rows : 1, nviews,
                                &gr));
    kr_ct_geom *g = kri_calloc(1, sizeof *g);
    if (!g) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a CT geometry");
    g->type = type;
    g->nviews = nviews;
    g->det_count = det_count;
    g->det_rows = kr_ct_type_ndim(type) == 3 ? det_rows : 1;
    g->grid = gr;
    g->views = kri_calloc((size_t)nviews, sizeof *g->views);
    if (!g->views) {
        kri_free(g);
        return kri_fail(KR_ERR_OOM_HOST, "out of host memory for %lld CT views",
                        (long long)nviews);
    }
    *out = g;
    return KR_OK;
}

void kr_ct_geom_destroy(kr_ct_geom *g)
{
    if (!g) return;
    kri_free(g->views);
    kri_free(g->angles);
    kri_free(g);
}

kr_status kr_ct_geom_create_views(kr_ct_geom **out, kr_ct_type type, int64_t det_count,
                                  const kr_ct_view *views, int64_t nviews,
                                  const kr_ct_grid *grid)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(views);
    KRI_ARG_NOT_NULL(grid);
    if (kr_ct_type_ndim(type) == 3)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "kr_ct_geom_create_views builds 2-D geometries; give %s views with "
                        "kr_ct_geom_create_views3d (it takes the number of detector rows)",
                        kr_ct_type_name(type));
    kr_ct_geom *g;
    KRI_TRY(kri_ct_alloc(&g, type, det_count, 1, nviews, grid));
    memcpy(g->views, views, (size_t)nviews * sizeof *views);
    return kri_ct_finish(out, g);
}

kr_status kr_ct_geom_create_views3d(kr_ct_geom **out, kr_ct_type type, int64_t det_count,
                                    int64_t det_rows, const kr_ct_view *views, int64_t nviews,
                                    const kr_ct_grid *grid)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(views);
    KRI_ARG_NOT_NULL(grid);
    if (type != KR_CT_CONE_VEC)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "kr_ct_geom_create_views3d builds cone-vec geometries, not %s%s",
                        kr_ct_type_name(type),
                        type == KR_CT_CONE ? " (a circular cone scan given as views is cone-vec)"
                                           : "");
    kr_ct_geom *g;
    KRI_TRY(kri_ct_alloc(&g, type, det_count, det_rows, nviews, grid));
    memcpy(g->views, views, (size_t)nviews * sizeof *views);
    return kri_ct_finish(out, g);
}

static kr_status kri_ct_scan_check(const kr_ct_scan *s)
{
    if (s->type == KR_CT_CONE_VEC)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "a cone-vec geometry is given as views (kr_ct_geom_create_views3d), "
                        "not as a scan; use type cone for a circular scan");
    KRI_TRY(kri_ct_check_common(s->type, s->det_count, s->det_rows, s->nviews));
    if (s->angles_deg) {
        for (int64_t i = 0; i < s->nviews; i++)
            if (!(fabs(s->angles_deg[i]) <= KRI_CT_MAX_DEG))
                return kri_fail(KR_ERR_GEOMETRY,
                                "angles_deg[%lld] is %g (must be finite, within +-1e6 deg)",
                                (long long)i, s->angles_deg[i]);
    } else {
        if (!(fabs(s->start_deg) <= KRI_CT_MAX_DEG) || !(fabs(s->stop_deg) <= KRI_CT_MAX_DEG))
            return kri_fail(KR_ERR_GEOMETRY,
                            "the angle range %g..%g deg must have finite start_deg and stop_deg "
                            "within +-1e6 deg",
                            s->start_deg, s->stop_deg);
        if (s->nviews > 1 && s->start_deg == s->stop_deg)
            return kri_fail(KR_ERR_GEOMETRY,
                            "start_deg and stop_deg are both %g for %lld views (empty arc)",
                            s->start_deg, (long long)s->nviews);
    }
    if (!kri_ct_size_ok(s->det_spacing_mm))
        return kri_fail(KR_ERR_GEOMETRY, "det_spacing_mm is %g (must be in 1e-6..1e6 mm)",
                        s->det_spacing_mm);
    if (!kri_ct_mm_ok(s->det_offset_mm))
        return kri_fail(KR_ERR_GEOMETRY,
                        "det_offset_mm is %g (must be finite, at most 1e6 mm in magnitude)",
                        s->det_offset_mm);
    if (!kri_ct_mm_ok(s->cor_offset_mm))
        return kri_fail(KR_ERR_GEOMETRY,
                        "cor_offset_mm is %g (must be finite, at most 1e6 mm in magnitude)",
                        s->cor_offset_mm);
    if (s->type == KR_CT_CONE) {
        if (s->det_spacing_v_mm != 0 && !kri_ct_size_ok(s->det_spacing_v_mm))
            return kri_fail(KR_ERR_GEOMETRY,
                            "det_spacing_v_mm is %g (must be in 1e-6..1e6 mm, or 0 for "
                            "det_spacing_mm)",
                            s->det_spacing_v_mm);
        if (!kri_ct_mm_ok(s->det_offset_v_mm))
            return kri_fail(KR_ERR_GEOMETRY,
                            "det_offset_v_mm is %g (must be finite, at most 1e6 mm in magnitude)",
                            s->det_offset_v_mm);
    } else if (s->det_rows > 1 || s->det_rows < 0 || s->det_spacing_v_mm != 0 ||
               s->det_offset_v_mm != 0) {
        return kri_fail(KR_ERR_GEOMETRY,
                        "det_rows (%lld), det_spacing_v_mm (%g) and det_offset_v_mm (%g) apply "
                        "to cone beams only; a %s scan must leave them 0",
                        (long long)s->det_rows, s->det_spacing_v_mm, s->det_offset_v_mm,
                        kr_ct_type_name(s->type));
    }
    if (s->type != KR_CT_PARALLEL2D) {
        if (!kri_ct_size_ok(s->sod_mm))
            return kri_fail(KR_ERR_GEOMETRY,
                            "sod_mm (source-origin distance) is %g (must be in 1e-6..1e6 mm)",
                            s->sod_mm);
        if (!(s->sdd_mm <= KRI_CT_MAX_MM))
            return kri_fail(KR_ERR_GEOMETRY,
                            "sdd_mm (source-detector distance) is %g (must be at most 1e6 mm)",
                            s->sdd_mm);
        if (!isfinite(s->sdd_mm) || s->sdd_mm <= s->sod_mm)
            return kri_fail(KR_ERR_GEOMETRY,
                            "sdd_mm (source-detector distance) is %g; it must exceed sod_mm = %g "
                            "(the detector lies beyond the rotation axis)",
                            s->sdd_mm, s->sod_mm);
    }
    return KR_OK;
}

kr_status kr_ct_geom_create(kr_ct_geom **out, const kr_ct_scan *scan, const kr_ct_grid *grid)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(scan);
    KRI_ARG_NOT_NULL(grid);
    KRI_TRY(kri_ct_scan_check(scan));
    kr_ct_geom *g;
    KRI_TRY(kri_ct_alloc(&g, scan->type, scan->det_count, scan->det_rows, scan->nviews, grid));
    g->angles = kri_malloc((size_t)scan->nviews * sizeof *g->angles);
    if (!g->angles) {
        kr_ct_geom_destroy(g);
        return kri_fail(KR_ERR_OOM_HOST, "out of host memory for %lld angles",
                        (long long)scan->nviews);
    }
    g->has_scan = 1;
    g->uniform = scan->angles_deg == NULL;
    g->scan = *scan;
    g->scan.angles_deg = g->angles;
    if (g->uniform) {
        double step = (scan->stop_deg - scan->start_deg) / (double)scan->nviews;
        for (int64_t i = 0; i < scan->nviews; i++)
            g->angles[i] = scan->start_deg + (double)i * step;
    } else {
        memcpy(g->angles, scan->angles_deg, (size_t)scan->nviews * sizeof *g->angles);
    }
    if (scan->type == KR_CT_PARALLEL2D) g->scan.sod_mm = g->scan.sdd_mm = 0;
    if (scan->type == KR_CT_CONE && scan->det_spacing_v_mm == 0)
        g->scan.det_spacing_v_mm = scan->det_spacing_mm;
    if (scan->type != KR_CT_CONE) g->scan.det_rows = 0;

    const double sod = scan->sod_mm, sdd = scan->sdd_mm, pitch = scan->det_spacing_mm;
    const double doff = scan->det_offset_mm, cor = scan->cor_offset_mm;
    for (int64_t i = 0; i < scan->nviews; i++) {
        double s, c;
        kri_sincosd(g->angles[i], &s, &c);
        const double eu[2] = {c, s}, ed[2] = {-s, c};
        kr_ct_view *v = &g->views[i];
        switch (scan->type) {
        case KR_CT_PARALLEL2D:
            for (int k = 0; k < 2; k++) {
                v->ray[k] = ed[k];
                v->det[k] = (doff - cor) * eu[k];
                v->u[k] = pitch * eu[k];
            }
            break;
        case KR_CT_FAN2D_FLAT:
            for (int k = 0; k < 2; k++) {
                v->src[k] = -sod * ed[k] - cor * eu[k];
                v->det[k] = (sdd - sod) * ed[k] + (doff - cor) * eu[k];
                v->u[k] = pitch * eu[k];
            }
            break;
        case KR_CT_CONE:
            for (int k = 0; k < 2; k++) {
                v->src[k] = -sod * ed[k] - cor * eu[k];
                v->det[k] = (sdd - sod) * ed[k] + (doff - cor) * eu[k];
                v->u[k] = pitch * eu[k];
            }
            v->det[2] = g->scan.det_offset_v_mm;
            v->v[2] = g->scan.det_spacing_v_mm;
            break;
        default: { /* equiangular: the arc turned by doff / sdd about the source */
            double a = doff / sdd, sa = sin(a), ca = cos(a);
            for (int k = 0; k < 2; k++) {
                double n = ca * ed[k] + sa * eu[k], t = -sa * ed[k] + ca * eu[k];
                v->src[k] = -sod * ed[k] - cor * eu[k];
                v->det[k] = v->src[k] + sdd * n;
                v->u[k] = pitch * t;
            }
        }
        }
    }
    return kri_ct_finish(out, g);
}

kr_status kr_ct_geom_clone(kr_ct_geom **out, const kr_ct_geom *g)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(g);
    kr_ct_geom *c;
    KRI_TRY(kri_ct_alloc(&c, g->type, g->det_count, g->det_rows, g->nviews, &g->grid));
    memcpy(c->views, g->views, (size_t)g->nviews * sizeof *g->views);
    if (g->has_scan) {
        c->angles = kri_malloc((size_t)g->nviews * sizeof *c->angles);
        if (!c->angles) {
            kr_ct_geom_destroy(c);
            return kri_fail(KR_ERR_OOM_HOST, "out of host memory cloning a CT geometry");
        }
        memcpy(c->angles, g->angles, (size_t)g->nviews * sizeof *c->angles);
        c->has_scan = 1;
        c->uniform = g->uniform;
        c->scan = g->scan;
        c->scan.angles_deg = c->angles;
    }
    *out = c;
    return KR_OK;
}

kr_ct_type kr_ct_geom_type(const kr_ct_geom *g) { return g ? g->type : KR_CT_TYPE_INVALID; }
int64_t kr_ct_geom_nviews(const kr_ct_geom *g) { return g ? g->nviews : 0; }
int64_t kr_ct_geom_det_count(const kr_ct_geom *g) { return g ? g->det_count : 0; }
int64_t kr_ct_geom_det_rows(const kr_ct_geom *g) { return g ? g->det_rows : 0; }
const kr_ct_view *kr_ct_geom_views(const kr_ct_geom *g) { return g ? g->views : NULL; }
const kr_ct_grid *kr_ct_geom_grid(const kr_ct_geom *g) { return g ? &g->grid : NULL; }

kr_status kr_ct_geom_scan(const kr_ct_geom *g, kr_ct_scan *scan)
{
    KRI_ARG_NOT_NULL(g);
    KRI_ARG_NOT_NULL(scan);
    if (!g->has_scan)
        return kri_fail(KR_ERR_NOT_SUPPORTED,
                        "this %s geometry was given as explicit views and has no physical "
                        "description",
                        kr_ct_type_name(g->type));
    *scan = g->scan;
    return KR_OK;
}

int kr_ct_geom_sino_dims(const kr_ct_geom *g, int64_t *dims)
{
    if (!g) return 0;
    if (kr_ct_type_ndim(g->type) == 3) {
        if (dims) {
            dims[0] = g->det_count;
            dims[1] = g->det_rows;
            dims[2] = g->nviews;
        }
        return 3;
    }
    if (dims) {
        dims[0] = g->det_count;
        dims[1] = g->nviews;
    }
    return 2;
}

int kr_ct_geom_image_dims(const kr_ct_geom *g, int64_t *dims)
{
    if (!g) return 0;
    int nd = kr_ct_type_ndim(g->type) == 3 ? 3 : 2;
    if (dims)
        for (int d = 0; d < nd; d++) dims[d] = g->grid.n[d];
    return nd;
}

/* ---- "start:stop:count" ---------------------------------------------------------------------- */
static int kri_parse_double(const char *s, size_t n, double *out)
{
    char buf[64];
    if (n == 0 || n >= sizeof buf) return 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    /* '.' is the decimal point whatever the locale */
    const char *dp = localeconv()->decimal_point;
    if (dp && dp[0] && dp[0] != '.' && dp[1] == '\0') {
        if (strchr(buf, dp[0])) return 0;
        char *dot = strchr(buf, '.');
        if (dot) *dot = dp[0];
    }
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (*end != '\0' || errno == ERANGE || !isfinite(v)) return 0;
    *out = v;
    return 1;
}

kr_status kr_ct_angles_parse(const char *spec, double *start_deg, double *stop_deg,
                             int64_t *count)
{
    KRI_ARG_NOT_NULL(spec);
    KRI_ARG_NOT_NULL(start_deg);
    KRI_ARG_NOT_NULL(stop_deg);
    KRI_ARG_NOT_NULL(count);
    const char *c1 = strchr(spec, ':');
    const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
    if (!c1 || !c2 || strchr(c2 + 1, ':'))
        return kri_fail(KR_ERR_INVALID_ARG,
                        "angles '%s' must be start:stop:count in degrees (e.g. 0:180:720)", spec);
    double a, b;
    if (!kri_parse_double(spec, (size_t)(c1 - spec), &a))
        return kri_fail(KR_ERR_INVALID_ARG, "angles '%s': start '%.*s' is not a finite number",
                        spec, (int)(c1 - spec), spec);
    if (!kri_parse_double(c1 + 1, (size_t)(c2 - c1 - 1), &b))
        return kri_fail(KR_ERR_INVALID_ARG, "angles '%s': stop '%.*s' is not a finite number",
                        spec, (int)(c2 - c1 - 1), c1 + 1);
    const char *cs = c2 + 1;
    char *end;
    errno = 0;
    long long n = (*cs >= '0' && *cs <= '9') ? strtoll(cs, &end, 10) : -1;
    if (n < 0 || *end != '\0' || errno == ERANGE)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "angles '%s': count '%s' is not a whole number of views", spec, cs);
    if (n < 1 || n > KRI_CT_MAX_VIEWS)
        return kri_fail(KR_ERR_INVALID_ARG, "angles '%s': count %lld must be 1..%lld", spec, n,
                        (long long)KRI_CT_MAX_VIEWS);
    if (a == b && n > 1)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "angles '%s': start and stop are equal, so %lld views would coincide",
                        spec, n);
    *start_deg = a;
    *stop_deg = b;
    *count = n;
    return KR_OK;
}

/* ---- cone-beam checks (the mathematics in geometry3d.c) -------------------------------------- */
kr_status kr_ct_geom_check_fov(const kr_ct_geom *g, const kr_ctx *ctx, int64_t *views_truncated)
{
    KRI_ARG_NOT_NULL(g);
    if (views_truncated) *views_truncated = 0;
    if (!kr_ct_type_is_cone(g->type))
        return kri_fail(KR_ERR_NOT_SUPPORTED,
                        "the field-of-view check is implemented for cone geometries, not %s",
                        kr_ct_type_name(g->type));
    int64_t first;
    double ext[4] = {0, 0, 0, 0};
    const int64_t count = kri_ct_fov_count(g->views, g->nviews, &g->grid, g->det_count,
                                           g->det_rows, 0, &first, ext);
    if (views_truncated) *views_truncated = count;
    if (count > 0)
        kr_log(ctx, KR_LOG_WARN,
               "CT geometry: the volume is not entirely inside the field of view: in %lld of "
               "%lld views part of it projects outside the detector (view %lld: columns "
               "%.1f..%.1f, rows %.1f..%.1f pixels from the detector centre; the detector spans "
               "+-%.1f x +-%.1f); those parts are not seen from every direction",
               (long long)count, (long long)g->nviews, (long long)first, ext[0], ext[1], ext[2],
               ext[3], 0.5 * (double)g->det_count, 0.5 * (double)g->det_rows);
    return KR_OK;
}

kr_status kr_ct_scan_short_arc_deg(const kr_ct_scan *s, double *arc_deg)
{
    KRI_ARG_NOT_NULL(s);
    KRI_ARG_NOT_NULL(arc_deg);
    if (s->type != KR_CT_FAN2D_FLAT && s->type != KR_CT_FAN2D_EQUIANGULAR &&
        s->type != KR_CT_CONE)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "a short scan needs a fan or cone beam with a source, not type %s",
                        kr_ct_type_name(s->type));
    if (!(s->det_count >= 1) || !(isfinite(s->det_spacing_mm) && s->det_spacing_mm > 0) ||
        !isfinite(s->det_offset_mm) || !(isfinite(s->sdd_mm) && s->sdd_mm > 0))
        return kri_fail(KR_ERR_INVALID_ARG,
                        "short-scan arc: det_count %lld, det_spacing_mm %g, det_offset_mm %g and "
                        "sdd_mm %g must be valid",
                        (long long)s->det_count, s->det_spacing_mm, s->det_offset_mm, s->sdd_mm);
    double h = fabs(s->det_offset_mm) + 0.5 * (double)s->det_count * s->det_spacing_mm;
    double half = s->type == KR_CT_FAN2D_EQUIANGULAR ? h / s->sdd_mm : atan(h / s->sdd_mm);
    if (!(half < 1.5707963267948966))
        return kri_fail(KR_ERR_INVALID_ARG, "short-scan arc: the fan spans 180 degrees or more");
    *arc_deg = 180.0 + 2.0 * half * (180.0 / 3.14159265358979323846);
    return KR_OK;
}

/* Parker (1982) weight for scan position b in [0, pi + 2 delta] and fan angle g (positive in
 * the direction of rotation). */
double kri_parker(double b, double g, double delta)
{
    if (b < 0 || b > M_PI + 2 * delta) return 0;
    if (b < 2 * (delta - g)) {
        double s = sin(0.25 * M_PI * b / (delta - g));
        return s * s;
    }
    if (b <= M_PI - 2 * g) return 1;
    if (delta + g <= 0) return 0;
    double s = sin(0.25 * M_PI * (M_PI + 2 * delta - b) / (delta + g));
    return s * s;
}
