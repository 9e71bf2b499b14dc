/* Helpers shared by the FBP tests (header-only, static): exact line integrals of ellipse
 * phantoms along the rays of any 2-D kray geometry (chord lengths, written here independently
 * of src/phantom and src/ct), masked error measures, geometry builders. */
#ifndef KRAY_TEST_FBP_UTIL_H
#define KRAY_TEST_FBP_UTIL_H

#include "kray/ct.h"
#include "kray/fbp.h"
#include "kray/phantom.h"
#include "kt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Integral of the ellipse densities along the full line p + t d (d need not be unit). */
static inline double tf_line(const kr_ellipse *e, int ne, const double p[2], const double d[2])
{
    double dl = hypot(d[0], d[1]), u[2] = {d[0] / dl, d[1] / dl}, sum = 0;
    for (int i = 0; i < ne; i++) {
        double c = cos(e[i].phi_deg * M_PI / 180), s = sin(e[i].phi_deg * M_PI / 180);
        double qx = p[0] - e[i].x0, qy = p[1] - e[i].y0;
        /* into the ellipse frame, scaled to the unit circle */
        double px = (c * qx + s * qy) / e[i].a, py = (-s * qx + c * qy) / e[i].b;
        double ux = (c * u[0] + s * u[1]) / e[i].a, uy = (-s * u[0] + c * u[1]) / e[i].b;
        double A = ux * ux + uy * uy, B = 2 * (px * ux + py * uy), C = px * px + py * py - 1;
        double disc = B * B - 4 * A * C;
        if (disc > 0) sum += e[i].rho * sqrt(disc) / A;
    }
    return sum;
}

/* Exact sinogram [det, view] (f64) of ellipses for every ray of geometry g. */
static inline kr_array *tf_sinogram(const kr_ct_geom *g, const kr_ellipse *e, int ne, kr_dtype dt)
{
    int64_t N = kr_ct_geom_det_count(g), V = kr_ct_geom_nviews(g), dims[2] = {N, V};
    const kr_ct_view *vw = kr_ct_geom_views(g);
    kr_ct_type t = kr_ct_geom_type(g);
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, dt, 2, dims, KR_HOST, NULL));
    if (!a) return NULL;
    for (int64_t v = 0; v < V; v++) {
        const kr_ct_view *w = &vw[v];
        double R = hypot(w->det[0] - w->src[0], w->det[1] - w->src[1]);
        double ul = hypot(w->u[0], w->u[1]);
        for (int64_t k = 0; k < N; k++) {
            double o = (double)k - 0.5 * (double)(N - 1), p[2], d[2];
            if (t == KR_CT_PARALLEL2D) {
                p[0] = w->det[0] + o * w->u[0], p[1] = w->det[1] + o * w->u[1];
                d[0] = w->ray[0], d[1] = w->ray[1];
            } else if (t == KR_CT_FAN2D_FLAT) {
                p[0] = w->src[0], p[1] = w->src[1];
                d[0] = w->det[0] + o * w->u[0] - p[0], d[1] = w->det[1] + o * w->u[1] - p[1];
            } else {
                double gk = o * ul / R,
                       n[2] = {(w->det[0] - w->src[0]) / R, (w->det[1] - w->src[1]) / R};
                p[0] = w->src[0], p[1] = w->src[1];
                d[0] = cos(gk) * n[0] + sin(gk) * w->u[0] / ul;
                d[1] = cos(gk) * n[1] + sin(gk) * w->u[1] / ul;
            }
            double val = tf_line(e, ne, p, d);
            if (dt == KR_F32)
                ((float *)a->data)[k + N * v] = (float)val;
            else
                ((double *)a->data)[k + N * v] = val;
        }
    }
    return a;
}

/* Ellipses scaled by `scale` (mm per normalised unit) and shifted by (sx, sy) mm. */
static inline kr_ellipse *tf_ellipses(kr_phantom_kind kind, double scale, double sx, double sy,
                                      int *n)
{
    const kr_ellipse *e0 = kr_phantom_ellipses(kind, n);
    kr_ellipse *e = malloc(sizeof *e * (size_t)*n);
    for (int i = 0; e && i < *n; i++) {
        e[i] = e0[i];
        e[i].a *= scale, e[i].b *= scale;
        e[i].x0 = e0[i].x0 * scale + sx, e[i].y0 = e0[i].y0 * scale + sy;
    }
    return e;
}

/* Errors of x against ref (both [nx, ny]) over pixels with centre radius < rmax (grid of g). */
typedef struct tf_err {
    double mse, psnr, nrmse, maxerr, mean_x, mean_ref;
    int64_t count;
} tf_err;

static inline tf_err tf_compare(const kr_array *x, const kr_array *ref, const kr_ct_grid *gr,
                                double rmax, double range)
{
    tf_err r;
    memset(&r, 0, sizeof r);
    double se = 0, sr = 0, sx = 0, sref = 0;
    int64_t nx = gr->n[0], ny = gr->n[1];
    for (int64_t j = 0; j < ny; j++)
        for (int64_t i = 0; i < nx; i++) {
            double px = gr->offset_mm[0] + ((double)i - 0.5 * (double)(nx - 1)) * gr->voxel_mm[0];
            double py = gr->offset_mm[1] + ((double)j - 0.5 * (double)(ny - 1)) * gr->voxel_mm[1];
            if (hypot(px, py) >= rmax) continue;
            double a = kr_array_get_f64(x, j * nx + i), b = kr_array_get_f64(ref, j * nx + i);
            se += (a - b) * (a - b);
            sr += b * b;
            sx += a;
            sref += b;
            r.maxerr = fmax(r.maxerr, fabs(a - b));
            r.count++;
        }
    r.mse = se / (double)r.count;
    r.psnr = 10 * log10(range * range / r.mse);
    r.nrmse = sqrt(se / sr);
    r.mean_x = sx / (double)r.count;
    r.mean_ref = sref / (double)r.count;
    return r;
}

/* A circular scan over [start, stop) degrees on an n x n grid of vox mm pixels, with the
 * detector and the rotation axis offset by doff and cor mm along u. */
static inline kr_ct_geom *tf_geom_offset(kr_ct_type t, int64_t nviews, double start, double stop,
                                         int64_t ndet, double pitch, double sod, double sdd,
                                         int64_t n, double vox, double cor, double doff)
{
    kr_ct_scan s;
    kr_ct_scan_default(&s);
    s.type = t;
    s.nviews = nviews;
    s.start_deg = start;
    s.stop_deg = stop;
    s.det_count = ndet;
    s.det_spacing_mm = pitch;
    s.sod_mm = sod;
    s.sdd_mm = sdd;
    s.cor_offset_mm = cor;
    s.det_offset_mm = doff;
    kr_ct_grid gr;
    kr_ct_grid_2d(&gr, n, n, vox);
    kr_ct_geom *g = NULL;
    KT_OK(kr_ct_geom_create(&g, &s, &gr));
    return g;
}

static inline kr_ct_geom *tf_geom(kr_ct_type t, int64_t nviews, double start, double stop,
                                  int64_t ndet, double pitch, double sod, double sdd, int64_t n,
                                  double vox)
{
    return tf_geom_offset(t, nviews, start, stop, ndet, pitch, sod, sdd, n, vox, 0, 0);
}

/* Mean of img over the pixels within radius r of (cx, cy) mm (grid of g). */
static inline double tf_disk_mean(const kr_array *img, const kr_ct_geom *g, double cx, double cy,
                                  double r)
{
    const kr_ct_grid *gr = kr_ct_geom_grid(g);
    double s = 0;
    int64_t n = 0, nx = gr->n[0], ny = gr->n[1];
    for (int64_t j = 0; j < ny; j++)
        for (int64_t i = 0; i < nx; i++) {
            double x = ((double)i - 0.5 * (double)(nx - 1)) * gr->voxel_mm[0] + gr->offset_mm[0];
            double y = ((double)j - 0.5 * (double)(ny - 1)) * gr->voxel_mm[1] + gr->offset_mm[1];
            if (hypot(x - cx, y - cy) < r) s += kr_array_get_f64(img, j * nx + i), n++;
        }
    return s / (double)n;
}

static inline kr_array *tf_fbp(kr_backend be, const kr_ct_geom *g, const kr_fbp_opts *o,
                               const kr_array *sino)
{
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, be));
    int64_t dims[2];
    kr_ct_geom_image_dims(g, dims);
    kr_array *img = NULL;
    KT_OK(kr_array_create(&img, o->dtype, 2, dims, KR_HOST, NULL));
    KT_OK(kr_fbp(c, g, o, sino, img));
    kr_ctx_destroy(c);
    return img;
}

#endif
