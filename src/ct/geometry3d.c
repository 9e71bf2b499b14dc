/* Cone-beam view mathematics (ct_internal.h): validation of a 3-D view, central projection
 * onto a flat detector and the field-of-view count. It builds on the geometry's struct only and
 * calls nothing of geometry.c (which calls these). */
#include "ct_internal.h"

#include <math.h>
#include <stdio.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static int kri_finite3v(const double *a)
{
    return kri_ct_mm_ok(a[0]) && kri_ct_mm_ok(a[1]) && kri_ct_mm_ok(a[2]);
}
static double kri_dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static double kri_norm3(const double *a) { return sqrt(kri_dot3(a, a)); }
static void kri_cross3(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

kr_status kri_ct_check_view3(const kr_ct_geom *g, int64_t vi, const char *where)
{
    const kr_ct_view *v = &g->views[vi];
    const kr_ct_grid *gr = &g->grid;
    if (!kri_finite3v(v->src) || !kri_finite3v(v->ray) || !kri_finite3v(v->det) ||
        !kri_finite3v(v->u) || !kri_finite3v(v->v))
        return kri_fail(KR_ERR_GEOMETRY,
                        "%s: a view vector has a non-finite component or one beyond "
                        "1e6 mm in magnitude",
                        where);
    if (v->ray[0] != 0 || v->ray[1] != 0 || v->ray[2] != 0)
        return kri_fail(KR_ERR_GEOMETRY,
                        "%s: a cone-beam view has a source point, not a ray direction (ray must "
                        "be zero)",
                        where);
    double ul = kri_norm3(v->u), vl = kri_norm3(v->v);
    if (!(ul > 0))
        return kri_fail(KR_ERR_GEOMETRY, "%s: the detector pixel vector u is zero", where);
    if (!(vl > 0))
        return kri_fail(KR_ERR_GEOMETRY, "%s: the detector pixel vector v is zero", where);
    double n[3];
    kri_cross3(v->u, v->v, n);
    double nl = kri_norm3(n);
    if (!(nl > 1e-9 * ul * vl))
        return kri_fail(KR_ERR_GEOMETRY, "%s: the detector vectors u and v are parallel", where);
    double r[3] = {v->det[0] - v->src[0], v->det[1] - v->src[1], v->det[2] - v->src[2]};
    double R = kri_norm3(r);
    if (!(R > 0))
        return kri_fail(KR_ERR_GEOMETRY,
                        "%s: the detector centre coincides with the source (degenerate "
                        "source-detector distance 0)",
                        where);
    double rn = kri_dot3(r, n) / nl;
    if (!(fabs(rn) > 1e-9 * R))
        return kri_fail(KR_ERR_GEOMETRY,
                        "%s: the source lies in the detector plane (degenerate source-detector "
                        "distance: the detector is seen edge-on)",
                        where);
    double s = rn > 0 ? 1 / nl : -1 / nl; /* unit normal towards the detector */
    double nrm[3] = {n[0] * s, n[1] * s, n[2] * s};
    /* the volume grown by one voxel must lie in front of the source */
    double h[3];
    for (int d = 0; d < 3; d++) h[d] = (double)(gr->n[d] + 2) * 0.5 * gr->voxel_mm[d];
    double minsep = 1e-6 * (gr->voxel_mm[0] + gr->voxel_mm[1] + gr->voxel_mm[2]);
    for (int c = 0; c < 8; c++) {
        double p[3];
        for (int d = 0; d < 3; d++)
            p[d] = gr->offset_mm[d] + ((c >> d) & 1 ? h[d] : -h[d]) - v->src[d];
        if (kri_dot3(p, nrm) > minsep) continue;
        char extra[192] = "";
        if (g->has_scan)
            snprintf(extra, sizeof extra,
                     "; the source-origin distance %.6g mm must exceed the distance from the "
                     "axis to the volume's corners plus one voxel, %.6g mm",
                     g->scan.sod_mm,
                     hypot(fabs(gr->offset_mm[0]) + h[0], fabs(gr->offset_mm[1]) + h[1]));
        return kri_fail(KR_ERR_GEOMETRY,
                        "%s: the source at (%.6g, %.6g, %.6g) mm lies inside the volume or within "
                        "one voxel of it (or behind the source), which spans x %.6g..%.6g, "
                        "y %.6g..%.6g, z %.6g..%.6g mm%s",
                        where, v->src[0], v->src[1], v->src[2],
                        gr->offset_mm[0] - h[0] + gr->voxel_mm[0],
                        gr->offset_mm[0] + h[0] - gr->voxel_mm[0],
                        gr->offset_mm[1] - h[1] + gr->voxel_mm[1],
                        gr->offset_mm[1] + h[1] - gr->voxel_mm[1],
                        gr->offset_mm[2] - h[2] + gr->voxel_mm[2],
                        gr->offset_mm[2] + h[2] - gr->voxel_mm[2], extra);
    }
    return KR_OK;
}

int kri_ct_view_project(const kr_ct_view *v, const double p[3], double *a, double *b)
{
    double n[3], r[3], d[3];
    kri_cross3(v->u, v->v, n);
    for (int k = 0; k < 3; k++) {
        r[k] = v->det[k] - v->src[k];
        d[k] = p[k] - v->src[k];
    }
    double rn = kri_dot3(r, n), dn = kri_dot3(d, n);
    if (!(rn != 0) || !(dn / rn > 0)) return 0; /* behind the source or in its plane */
    double t = rn / dn, q[3];
    for (int k = 0; k < 3; k++) q[k] = v->src[k] + t * d[k] - v->det[k];
    double uu = kri_dot3(v->u, v->u), uv = kri_dot3(v->u, v->v), vv = kri_dot3(v->v, v->v);
    double qu = kri_dot3(q, v->u), qv = kri_dot3(q, v->v), det = uu * vv - uv * uv;
    *a = (vv * qu - uv * qv) / det;
    *b = (uu * qv - uv * qu) / det;
    return 1;
}

int64_t kri_ct_fov_count(const kr_ct_view *views, int64_t nviews, const kr_ct_grid *gr,
                         int64_t det_count, int64_t det_rows, int cylinder, int64_t *first,
                         double ext[4])
{
    const double hu = 0.5 * (double)det_count, hv = 0.5 * (double)det_rows;
    const double tol = 1e-9 * (hu + hv);
    const double r =
        0.5 * fmin((double)gr->n[0] * gr->voxel_mm[0], (double)gr->n[1] * gr->voxel_mm[1]);
    const int npts = cylinder ? 32 : 8;
    int64_t count = 0;
    *first = -1;
    for (int64_t i = 0; i < nviews; i++) {
        double amin = HUGE_VAL, amax = -HUGE_VAL, bmin = HUGE_VAL, bmax = -HUGE_VAL;
        int behind = 0;
        for (int c = 0; c < npts; c++) {
            double p[3], a, b;
            if (cylinder) { /* 16 points on each end face's rim */
                const double t = 2 * M_PI * (double)(c % 16) / 16.0;
                p[0] = gr->offset_mm[0] + r * cos(t);
                p[1] = gr->offset_mm[1] + r * sin(t);
                p[2] = gr->offset_mm[2] +
                       (c < 16 ? -0.5 : 0.5) * (double)gr->n[2] * gr->voxel_mm[2];
            } else { /* the 8 corners of the box */
                for (int d = 0; d < 3; d++)
                    p[d] = gr->offset_mm[d] +
                           ((c >> d) & 1 ? 0.5 : -0.5) * (double)gr->n[d] * gr->voxel_mm[d];
            }
            if (!kri_ct_view_project(&views[i], p, &a, &b)) {
                behind = 1;
                break;
            }
            amin = fmin(amin, a);
            amax = fmax(amax, a);
            bmin = fmin(bmin, b);
            bmax = fmax(bmax, b);
        }
        if (behind || amin < -hu - tol || amax > hu + tol || bmin < -hv - tol || bmax > hv + tol) {
            if (*first < 0) {
                *first = i;
                ext[0] = amin, ext[1] = amax, ext[2] = bmin, ext[3] = bmax;
            }
            count++;
        }
    }
    return count;
}
