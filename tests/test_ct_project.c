/* 2-D projectors on the CPU: Siddon against brute-force exact chords of the pixel image,
 * Joseph exact on linear images, both against the closed-form projection of a disk with a
 * rigorous per-ray pixelisation bound, hand-computed fan rays, the transpose (full matrix and
 * dot-product tests), serial == threaded bit for bit, f32 vs f64, batches, bad inputs. */
#include "internal.h"
#include "kray/ct.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>


/* ---- helpers --------------------------------------------------------------------------------- */
static kr_ctx *ctx_cpu(kr_backend b, int threads)
{
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, b));
    if (threads) KT_OK(kr_ctx_set_threads(c, threads));
    return c;
}

static kr_ct_geom *geom(kr_ct_type t, int64_t nviews, double start, double stop, int64_t ndet,
                        double pitch, double doff, double cor, double sod, double sdd,
                        const kr_ct_grid *g)
{
    kr_ct_scan s;
    kr_ct_scan_default(&s);
    s.type = t;
    s.nviews = nviews;
    s.start_deg = start;
    s.stop_deg = stop;
    s.det_count = ndet;
    s.det_spacing_mm = pitch;
    s.det_offset_mm = doff;
    s.cor_offset_mm = cor;
    s.sod_mm = sod;
    s.sdd_mm = sdd;
    kr_ct_geom *geo = NULL;
    KT_OK(kr_ct_geom_create(&geo, &s, g));
    return geo;
}

static kr_array *arr(kr_dtype t, int64_t d0, int64_t d1, int64_t nb)
{
    kr_array *a = NULL;
    int64_t dims[3] = {d0, d1, nb};
    KT_OK(kr_array_create(&a, t, nb > 1 ? 3 : 2, dims, KR_HOST, NULL));
    return a;
}

static double get(const kr_array *a, int64_t i)
{
    return a->dtype == KR_F64 ? ((const double *)a->data)[i] : ((const float *)a->data)[i];
}

static void set(kr_array *a, int64_t i, double v)
{
    if (a->dtype == KR_F64)
        ((double *)a->data)[i] = v;
    else
        ((float *)a->data)[i] = (float)v;
}

/* Forward or adjoint in one call with a fresh plan. */
static kr_array *run(const kr_ctx *c, const kr_ct_geom *g, kr_ct_method m, kr_dtype t,
                     const kr_array *in, int adjoint)
{
    kr_ct_projector_opts o;
    kr_ct_projector_opts_default(&o);
    o.method = m;
    o.dtype = t;
    kr_ct_projector_plan *p = NULL;
    KT_OK(kr_ct_projector_plan_create(&p, c, g, &o));
    int64_t nb = in->ndim > 2 ? in->dims[2] : 1;
    kr_array *out = adjoint ? arr(t, kr_ct_geom_grid(g)->n[0], kr_ct_geom_grid(g)->n[1], nb)
                            : arr(t, kr_ct_geom_det_count(g), kr_ct_geom_nviews(g), nb);
    if (adjoint)
        KT_OK(kr_ct_projector_adjoint(p, in, out));
    else
        KT_OK(kr_ct_projector_forward(p, in, out));
    kr_ct_projector_plan_destroy(p);
    return out;
}

/* The documented ray of detector pixel k in view v: point p, unit direction d (mm). */
static void ref_ray(const kr_ct_geom *g, int64_t v, int64_t k, double p[2], double d[2])
{
    const kr_ct_view *w = &kr_ct_geom_views(g)[v];
    double s = (double)k - 0.5 * (double)(kr_ct_geom_det_count(g) - 1);
    switch (kr_ct_geom_type(g)) {
    case KR_CT_PARALLEL2D: {
        double l = hypot(w->ray[0], w->ray[1]);
        p[0] = w->det[0] + s * w->u[0];
        p[1] = w->det[1] + s * w->u[1];
        d[0] = w->ray[0] / l;
        d[1] = w->ray[1] / l;
        break;
    }
    case KR_CT_FAN2D_FLAT: {
        double q0 = w->det[0] + s * w->u[0] - w->src[0], q1 = w->det[1] + s * w->u[1] - w->src[1];
        double l = hypot(q0, q1);
        p[0] = w->src[0];
        p[1] = w->src[1];
        d[0] = q0 / l;
        d[1] = q1 / l;
        break;
    }
    default: {
        double r0 = w->det[0] - w->src[0], r1 = w->det[1] - w->src[1], R = hypot(r0, r1);
        double ul = hypot(w->u[0], w->u[1]), gam = s * ul / R;
        p[0] = w->src[0];
        p[1] = w->src[1];
        d[0] = cos(gam) * r0 / R + sin(gam) * w->u[0] / ul;
        d[1] = cos(gam) * r1 / R + sin(gam) * w->u[1] / ul;
    }
    }
}

/* Chord of the line p + t d through the rectangle [x0,x1] x [y0,y1], from the points where the
 * line meets the four edges (a formulation independent of the projector's slab clipping). */
static double chord_rect(const double p[2], const double d[2], double x0, double x1, double y0,
                         double y1)
{
    double tmin = INFINITY, tmax = -INFINITY;
    const double xs[2] = {x0, x1}, ys[2] = {y0, y1};
    for (int e = 0; e < 2; e++) {
        if (d[0] != 0) {
            double t = (xs[e] - p[0]) / d[0], y = p[1] + t * d[1];
            if (y >= y0 && y <= y1) tmin = fmin(tmin, t), tmax = fmax(tmax, t);
        }
        if (d[1] != 0) {
            double t = (ys[e] - p[1]) / d[1], x = p[0] + t * d[0];
            if (x >= x0 && x <= x1) tmin = fmin(tmin, t), tmax = fmax(tmax, t);
        }
    }
    return tmax > tmin ? tmax - tmin : 0;
}

/* Chord of the line through a disk of radius r centred at c. */
static double chord_disk(const double p[2], const double d[2], const double c[2], double r)
{
    double q0 = c[0] - p[0], q1 = c[1] - p[1];
    double dist = fabs(q0 * d[1] - q1 * d[0]);
    return dist < r ? 2 * sqrt(r * r - dist * dist) : 0;
}

static void pixel_centre(const kr_ct_grid *g, int64_t i, int64_t j, double *x, double *y)
{
    *x = g->offset_mm[0] + ((double)i - 0.5 * (double)(g->n[0] - 1)) * g->voxel_mm[0];
    *y = g->offset_mm[1] + ((double)j - 0.5 * (double)(g->n[1] - 1)) * g->voxel_mm[1];
}

/* Random image in [-1, 1). */
static kr_array *rand_image(kr_dtype t, const kr_ct_grid *g, int64_t nb, uint64_t seed)
{
    kr_array *a = arr(t, g->n[0], g->n[1], nb);
    for (int64_t i = 0; i < kr_array_numel(a); i++) set(a, i, kri_rand_sym(seed, (uint64_t)i));
    return a;
}


static kr_array *rand_sino(kr_dtype t, const kr_ct_geom *g, int64_t nb, uint64_t seed)
{
    kr_array *a = arr(t, kr_ct_geom_det_count(g), kr_ct_geom_nviews(g), nb);
    for (int64_t i = 0; i < kr_array_numel(a); i++) set(a, i, kri_rand_sym(seed, (uint64_t)i));
    return a;
}

/* A set of geometries exercising every code path: axis-aligned and oblique views, anisotropic
 * and offset grids, odd sizes, detector pitch finer and coarser than the pixels, offsets, and
 * vector geometries with tilted detectors. */
#define NGEOM 7
static kr_ct_geom *test_geom(int which, kr_ct_grid *g)
{
    kr_ct_grid_2d(g, 13, 10, 1.0);
    g->voxel_mm[1] = 1.3;
    g->offset_mm[0] = 0.4;
    g->offset_mm[1] = -0.7;
    switch (which) {
    case 0: return geom(KR_CT_PARALLEL2D, 12, 0, 180, 21, 0.9, 0.123, 0.05, 0, 0, g);
    case 1: return geom(KR_CT_PARALLEL2D, 10, 7, 367, 40, 0.4, -0.31, 0, 0, 0, g);
    case 2: return geom(KR_CT_FAN2D_FLAT, 16, 0, 360, 31, 1.1, 0.37, -0.21, 40, 70, g);
    case 3: return geom(KR_CT_FAN2D_FLAT, 9, 13, 373, 12, 2.3, 1.7, 0.4, 30, 45, g);
    case 4: return geom(KR_CT_FAN2D_EQUIANGULAR, 14, 0, 360, 29, 1.3, 0.21, 0.3, 35, 60, g);
    case 5: { /* parallel, detector tilted against the rays */
        kr_ct_view v[5];
        memset(v, 0, sizeof v);
        for (int i = 0; i < 5; i++) {
            double a = 0.4 + 1.1 * i;
            v[i].ray[0] = cos(a);
            v[i].ray[1] = sin(a);
            v[i].u[0] = 0.7 * cos(a + 1.2);
            v[i].u[1] = 0.7 * sin(a + 1.2);
            v[i].det[0] = 30 * cos(a) + 0.1;
            v[i].det[1] = 30 * sin(a);
        }
        kr_ct_geom *geo = NULL;
        KT_OK(kr_ct_geom_create_views(&geo, KR_CT_PARALLEL2D, 27, v, 5, g));
        return geo;
    }
    default: { /* flat fan, detector rotated and off-centre */
        kr_ct_view v[6];
        memset(v, 0, sizeof v);
        for (int i = 0; i < 6; i++) {
            double a = 0.3 + 1.05 * i;
            v[i].src[0] = -35 * cos(a);
            v[i].src[1] = -35 * sin(a);
            v[i].det[0] = 25 * cos(a) + 3 * sin(a);
            v[i].det[1] = 25 * sin(a) - 3 * cos(a);
            v[i].u[0] = 1.2 * cos(a + 1.9);
            v[i].u[1] = 1.2 * sin(a + 1.9);
        }
        kr_ct_geom *geo = NULL;
        KT_OK(kr_ct_geom_create_views(&geo, KR_CT_FAN2D_FLAT, 35, v, 6, g));
        return geo;
    }
    }
}

/* ---- Siddon = exact chords of the pixel image ------------------------------------------------ */
static void test_siddon_exact(void)
{
    kr_ctx *c = ctx_cpu(KR_BACKEND_CPU, 0);
    for (int w = 0; w < NGEOM; w++) {
        kr_ct_grid g;
        kr_ct_geom *geo = test_geom(w, &g);
        for (int t = 0; t < 2; t++) {
            kr_dtype dt = t ? KR_F32 : KR_F64;
            kr_array *img = rand_image(dt, &g, 1, 11 + w);
            kr_array *sino = run(c, geo, KR_CT_SIDDON, dt, img, 0);
            double maxerr = 0, maxv = 0;
            int64_t nd = kr_ct_geom_det_count(geo), nv = kr_ct_geom_nviews(geo);
            for (int64_t v = 0; v < nv; v++)
                for (int64_t k = 0; k < nd; k++) {
                    double p[2], d[2], ref = 0;
                    ref_ray(geo, v, k, p, d);
                    for (int64_t j = 0; j < g.n[1]; j++)
                        for (int64_t i = 0; i < g.n[0]; i++) {
                            double x, y;
                            pixel_centre(&g, i, j, &x, &y);
                            double l = chord_rect(p, d, x - 0.5 * g.voxel_mm[0],
                                                  x + 0.5 * g.voxel_mm[0],
                                                  y - 0.5 * g.voxel_mm[1],
                                                  y + 0.5 * g.voxel_mm[1]);
                            ref += l * get(img, i + j * g.n[0]);
                        }
                    maxerr = fmax(maxerr, fabs(get(sino, k + v * nd) - ref));
                    maxv = fmax(maxv, fabs(ref));
                }
            KT_CHECK(maxv > 1);
            /* f64: rounding only; f32: positions of a few tens of mm in float */
            KT_LE(maxerr / maxv, t ? 1e-5 : 1e-13);
            printf("  geometry %d %s: Siddon vs brute-force chords, max error %.2e of max %.3g\n",
                   w, kr_dtype_name(dt), maxerr / maxv, maxv);
            kr_array_destroy(img);
            kr_array_destroy(sino);
        }
        kr_ct_geom_destroy(geo);
    }
    kr_ctx_destroy(c);
}

/* ---- Joseph is exact for linear images on rays that stay inside the pixel-centre box ------ */
static void test_joseph_linear(void)
{
    kr_ctx *c = ctx_cpu(KR_BACKEND_CPU, 0);
    kr_ct_grid g;
    kr_ct_grid_2d(&g, 32, 28, 0.8);
    g.voxel_mm[1] = 0.6;
    g.offset_mm[0] = 1.0;
    /* views within 5 degrees of the axes: x-major near 90/270, y-major near 0/180 */
    double ang[8] = {-4.1, 2.7, 86.2, 91.3, 176.4, 183.9, 265.5, 272.2};
    kr_ct_scan s;
    kr_ct_scan_default(&s);
    s.nviews = 8;
    s.angles_deg = ang;
    s.det_count = 40;
    s.det_spacing_mm = 0.37;
    s.det_offset_mm = 0.11;
    kr_ct_geom *geo = NULL;
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    kr_array *img = arr(KR_F64, 32, 28, 1);
    const double al = 0.7, be = 0.031, ga = -0.045; /* f = al + be x + ga y (mm) */
    for (int j = 0; j < 28; j++)
        for (int i = 0; i < 32; i++) {
            double x, y;
            pixel_centre(&g, i, j, &x, &y);
            set(img, i + 32 * j, al + be * x + ga * y);
        }
    kr_array *sino = run(c, geo, KR_CT_JOSEPH, KR_F64, img, 0);
    int tested = 0;
    double maxrel = 0;
    for (int v = 0; v < 8; v++)
        for (int k = 0; k < 40; k++) {
            double p[2], d[2];
            ref_ray(geo, v, k, p, d);
            int xm = fabs(d[0]) / g.voxel_mm[0] >= fabs(d[1]) / g.voxel_mm[1];
            /* along the major axis the ray spans the outer pixel edges; at the outermost
             * samples (pixel centres) its minor coordinate must stay inside the centre box */
            double x0, y0, x1, y1;
            pixel_centre(&g, 0, 0, &x0, &y0);
            pixel_centre(&g, 31, 27, &x1, &y1);
            double a0, a1, e0, e1, m0, m1;
            if (xm) {
                e0 = x0 - 0.5 * g.voxel_mm[0], e1 = x1 + 0.5 * g.voxel_mm[0];
                a0 = (x0 - p[0]) / d[0], a1 = (x1 - p[0]) / d[0];
                m0 = p[1] + a0 * d[1], m1 = p[1] + a1 * d[1];
                if (fmin(m0, m1) < y0 || fmax(m0, m1) > y1) continue;
                a0 = (e0 - p[0]) / d[0], a1 = (e1 - p[0]) / d[0];
            } else {
                e0 = y0 - 0.5 * g.voxel_mm[1], e1 = y1 + 0.5 * g.voxel_mm[1];
                a0 = (y0 - p[1]) / d[1], a1 = (y1 - p[1]) / d[1];
                m0 = p[0] + a0 * d[0], m1 = p[0] + a1 * d[0];
                if (fmin(m0, m1) < x0 || fmax(m0, m1) > x1) continue;
                a0 = (e0 - p[1]) / d[1], a1 = (e1 - p[1]) / d[1];
            }
            /* exact integral of a linear function over the segment: length x midpoint value */
            double tm = 0.5 * (a0 + a1), len = fabs(a1 - a0);
            double ref = len * (al + be * (p[0] + tm * d[0]) + ga * (p[1] + tm * d[1]));
            maxrel = fmax(maxrel, fabs(get(sino, k + 40 * v) - ref) / fabs(ref));
            tested++;
        }
    KT_GE(tested, 100);
    KT_LE(maxrel, 1e-13);
    printf("  Joseph on a linear image: %d rays, max relative error %.2e\n", tested, maxrel);
    kr_array_destroy(img);
    kr_array_destroy(sino);
    kr_ct_geom_destroy(geo);
    kr_ctx_destroy(c);
}

/* ---- disk: closed-form chords, with a rigorous per-ray pixelisation bound ------------------- */
static void test_disk(void)
{
    kr_ctx *c = ctx_cpu(KR_BACKEND_CPU, 0);
    kr_ct_grid g;
    kr_ct_grid_2d(&g, 64, 64, 1.0);
    const double cen[2] = {3.3, -5.1}, r = 20;
    /* pixel value = covered area fraction (64 x 64 sub-samples), exact 0/1 away from the rim */
    kr_array *img = arr(KR_F64, 64, 64, 1);
    for (int j = 0; j < 64; j++)
        for (int i = 0; i < 64; i++) {
            double x, y;
            pixel_centre(&g, i, j, &x, &y);
            double dc = hypot(x - cen[0], y - cen[1]);
            if (dc <= r - 0.75) {
                set(img, i + 64 * j, 1);
            } else if (dc < r + 0.75) {
                int in = 0;
                for (int b = 0; b < 64; b++)
                    for (int a = 0; a < 64; a++)
                        in += hypot(x - 0.5 + (a + 0.5) / 64 - cen[0],
                                    y - 0.5 + (b + 0.5) / 64 - cen[1]) < r;
                set(img, i + 64 * j, in / 4096.0);
            }
        }
    for (int t = 0; t < 3; t++) {
        kr_ct_type ty = t == 0 ? KR_CT_PARALLEL2D : t == 1 ? KR_CT_FAN2D_FLAT : KR_CT_FAN2D_EQUIANGULAR;
        kr_ct_geom *geo = geom(ty, 30, 1, 361, 96, 0.9, 0.2, 0, 120, 200, &g);
        for (int m = 0; m < 2; m++) {
            kr_array *sino = run(c, geo, m ? KR_CT_SIDDON : KR_CT_JOSEPH, KR_F64, img, 0);
            /* Rigorous per-ray bound. The image g equals the disk f except in pixels cut by the
             * circle, which lie within r -/+ 1.46 mm (centres within 0.75 of the circle,
             * half-diagonal 0.71), and |g - f| <= 1, so Siddon (the exact integral of g)
             * errs by at most the ray's path through the annulus r -/+ 1.5. Joseph: a column
             * sample stands for a path segment of length L <= sqrt(2) px; it is exact when
             * its two interpolation pixels (centres within 1 px) are wholly inside or outside
             * and f is constant on the segment, i.e. when the sample is farther than 1.75 px
             * from the circle; the other segments lie within r -/+ 2.46 and each errs by at
             * most its length, so w = 2.5. */
            double w = m ? 1.5 : 2.5, se = 0, sr = 0, worst = 0;
            for (int v = 0; v < 30; v++)
                for (int k = 0; k < 96; k++) {
                    double p[2], d[2];
                    ref_ray(geo, v, k, p, d);
                    double ref = chord_disk(p, d, cen, r);
                    double bound = chord_disk(p, d, cen, r + w) - chord_disk(p, d, cen, r - w);
                    double e = fabs(get(sino, k + 96 * v) - ref);
                    KT_CHECK_MSG(e <= bound + 1e-9, "%s %s view %d det %d: error %.4g > %.4g",
                                 kr_ct_type_name(ty), m ? "siddon" : "joseph", v, k, e, bound);
                    worst = fmax(worst, e);
                    se += e * e;
                    sr += ref * ref;
                }
            printf("  disk r=20 px, %s %s: RMS error %.2e of the RMS chord, max %.3f mm\n",
                   kr_ct_type_name(ty), m ? "siddon" : "joseph", sqrt(se / sr), worst);
            KT_LE(sqrt(se / sr), 0.02);
            kr_array_destroy(sino);
        }
        kr_ct_geom_destroy(geo);
    }
    kr_array_destroy(img);
    kr_ctx_destroy(c);
}

/* ---- one pixel, hand-computed fan rays ------------------------------------------------------ */
static void test_fan_hand(void)
{
    kr_ctx *c = ctx_cpu(KR_BACKEND_CPU_SERIAL, 0);
    kr_ct_grid g;
    kr_ct_grid_2d(&g, 3, 3, 1.0);
    kr_array *img = arr(KR_F64, 3, 3, 1);
    set(img, 4, 1); /* the centre pixel, the square [-0.5, 0.5]^2 */
    const double gam = 0.05;
    for (int eq = 0; eq < 2; eq++) {
        /* source 10 mm below the centre, detector 20 mm from the source, 3 pixels; views at 0,
         * 90, 180 and 270 degrees see the same thing by symmetry */
        kr_ct_geom *geo = geom(eq ? KR_CT_FAN2D_EQUIANGULAR : KR_CT_FAN2D_FLAT, 4, 0, 360, 3,
                               eq ? 20 * gam : 0.7, 0, 0, 10, 20, &g);
        /* centre ray: straight through, length 1 */
        double sid[3], jos[3];
        sid[1] = jos[1] = 1;
        if (!eq) {
            /* ray to (0.7, 10): x = 0.035 (y + 10), inside the pixel from y = -0.5 to 0.5 */
            sid[2] = sqrt(1 + 0.035 * 0.035);
            /* Joseph: y-major, row y = 0 at x = 0.35: weight 0.65, path per row 1/cos */
            jos[2] = 0.65 * sqrt(1 + 0.035 * 0.035);
        } else {
            /* ray at angle 0.05 rad: enters the bottom edge at y = -0.5 (t = 9.5 / cos) and
             * leaves the right edge x = 0.5 (t = 0.5 / sin) */
            sid[2] = 0.5 / sin(gam) - 9.5 / cos(gam);
            /* Joseph: row y = 0 at x = 10 tan(gam) = 0.5004: weight 1 - x, path 1 / cos */
            jos[2] = (1 - 10 * tan(gam)) / cos(gam);
        }
        sid[0] = sid[2];
        jos[0] = jos[2];
        for (int m = 0; m < 2; m++) {
            kr_array *s = run(c, geo, m ? KR_CT_SIDDON : KR_CT_JOSEPH, KR_F64, img, 0);
            for (int v = 0; v < 4; v++)
                for (int k = 0; k < 3; k++)
                    KT_NEAR(get(s, k + 3 * v), m ? sid[k] : jos[k], 1e-14);
            kr_array_destroy(s);
        }
        kr_ct_geom_destroy(geo);
    }
    kr_array_destroy(img);
    kr_ctx_destroy(c);
}

/* ---- transpose ------------------------------------------------------------------------------ */
/* Dense A (rows = rays) from forward projections of unit images, and B = dense A^T from adjoint
 * projections of unit sinograms: B must be A transposed. */
static void test_matrix_transpose(void)
{
    kr_ctx *c = ctx_cpu(KR_BACKEND_CPU, 2);
    for (int w = 0; w < NGEOM; w++) {
        kr_ct_grid g;
        kr_ct_geom *geo = test_geom(w, &g);
        const int64_t npix = g.n[0] * g.n[1];
        const int64_t nray = kr_ct_geom_det_count(geo) * kr_ct_geom_nviews(geo);
        for (int m = 0; m < 2; m++)
            for (int t = 0; t < 2; t++) {
                kr_dtype dt = t ? KR_F32 : KR_F64;
                kr_ct_projector_opts o = {m ? KR_CT_SIDDON : KR_CT_JOSEPH, dt, 0};
                kr_ct_projector_plan *p = NULL;
                KT_OK(kr_ct_projector_plan_create(&p, c, geo, &o));
                double *A = calloc((size_t)(npix * nray), sizeof *A);
                kr_array *img = arr(dt, g.n[0], g.n[1], 1);
                kr_array *sino = arr(dt, kr_ct_geom_det_count(geo), kr_ct_geom_nviews(geo), 1);
                for (int64_t q = 0; q < npix; q++) {
                    KT_OK(kr_array_zero(img, NULL));
                    set(img, q, 1);
                    KT_OK(kr_ct_projector_forward(p, img, sino));
                    for (int64_t r = 0; r < nray; r++) A[r * npix + q] = get(sino, r);
                }
                double maxa = 0, maxd = 0;
                int64_t nnz = 0;
                for (int64_t r = 0; r < nray; r++) {
                    KT_OK(kr_array_zero(sino, NULL));
                    set(sino, r, 1);
                    KT_OK(kr_ct_projector_adjoint(p, sino, img));
                    for (int64_t q = 0; q < npix; q++) {
                        double a = A[r * npix + q], b = get(img, q);
                        maxa = fmax(maxa, fabs(a));
                        maxd = fmax(maxd, fabs(a - b));
                        nnz += a != 0;
                    }
                }
                KT_CHECK(nnz > nray); /* not a trivial matrix */
                KT_LE(maxd / maxa, t ? 1e-6 : 1e-13);
                if (maxd != 0)
                    printf("  geometry %d %s %s: |A - (A^T)^T| max %.2e of max %.3g\n", w,
                           kr_ct_method_name(o.method), kr_dtype_name(dt), maxd, maxa);
                free(A);
                kr_array_destroy(img);
                kr_array_destroy(sino);
                kr_ct_projector_plan_destroy(p);
            }
        kr_ct_geom_destroy(geo);
    }
    kr_ctx_destroy(c);
}

static double dot(const kr_array *a, const kr_array *b)
{
    double s = 0;
    for (int64_t i = 0; i < kr_array_numel(a); i++) s += get(a, i) * get(b, i);
    return s;
}

/* <A x, y> = <x, A^T y> on full-size scans with random x and y. */
static void test_dot(void)
{
    kr_ctx *c = ctx_cpu(KR_BACKEND_CPU, 0);
    kr_ct_grid g;
    kr_ct_grid_2d(&g, 61, 52, 0.9);
    g.offset_mm[1] = 2.1;
    kr_ct_geom *geos[3] = {geom(KR_CT_PARALLEL2D, 90, 0, 180, 80, 0.8, 0.3, 0.1, 0, 0, &g),
                           geom(KR_CT_FAN2D_FLAT, 72, 0, 360, 91, 1.3, 0.5, 0.2, 110, 190, &g),
                           geom(KR_CT_FAN2D_EQUIANGULAR, 60, 10, 370, 85, 1.25, 0.1, 0, 90,
                                150, &g)};
    for (int w = 0; w < 3; w++)
        for (int m = 0; m < 2; m++)
            for (int t = 0; t < 2; t++) {
                kr_dtype dt = t ? KR_F32 : KR_F64;
                kr_ct_method me = m ? KR_CT_SIDDON : KR_CT_JOSEPH;
                kr_array *x = rand_image(dt, &g, 1, 5), *y = rand_sino(dt, geos[w], 1, 6);
                kr_array *Ax = run(c, geos[w], me, dt, x, 0), *Aty = run(c, geos[w], me, dt, y, 1);
                double l = dot(Ax, y), r = dot(x, Aty);
                double rel = fabs(l - r) / sqrt(dot(Ax, Ax) * dot(y, y));
                printf("  %s %s %s: dot test %.2e\n", kr_ct_type_name(kr_ct_geom_type(geos[w])),
                       kr_ct_method_name(me), kr_dtype_name(dt), rel);
                KT_LE(rel, t ? 1e-5 : 1e-12);
                kr_array_destroy(x);
                kr_array_destroy(y);
                kr_array_destroy(Ax);
                kr_array_destroy(Aty);
            }
    for (int w = 0; w < 3; w++) kr_ct_geom_destroy(geos[w]);
    kr_ctx_destroy(c);
}

/* ---- determinism, precision, batches -------------------------------------------------------- */
static int same(const kr_array *a, const kr_array *b)
{
    return kr_array_same_shape(a, b) && memcmp(a->data, b->data, kr_array_bytes(a)) == 0;
}

static void test_serial_threaded(void)
{
    kr_ctx *cs = ctx_cpu(KR_BACKEND_CPU_SERIAL, 0), *c2 = ctx_cpu(KR_BACKEND_CPU, 2),
           *c3 = ctx_cpu(KR_BACKEND_CPU, 3);
    for (int w = 0; w < NGEOM; w++) {
        kr_ct_grid g;
        kr_ct_geom *geo = test_geom(w, &g);
        for (int m = 0; m < 2; m++)
            for (int t = 0; t < 2; t++) {
                kr_dtype dt = t ? KR_F32 : KR_F64;
                kr_ct_method me = m ? KR_CT_SIDDON : KR_CT_JOSEPH;
                kr_array *x = rand_image(dt, &g, 2, 9), *y = rand_sino(dt, geo, 2, 10);
                kr_array *f1 = run(cs, geo, me, dt, x, 0), *f2 = run(c2, geo, me, dt, x, 0),
                         *f3 = run(c3, geo, me, dt, x, 0);
                kr_array *b1 = run(cs, geo, me, dt, y, 1), *b2 = run(c2, geo, me, dt, y, 1),
                         *b3 = run(c3, geo, me, dt, y, 1);
                KT_CHECK(same(f1, f2) && same(f1, f3));
                KT_CHECK(same(b1, b2) && same(b1, b3));
                /* a batch of 2 equals two single runs */
                kr_array *x1 = arr(dt, g.n[0], g.n[1], 1);
                memcpy(x1->data, (char *)x->data + kr_array_bytes(x1), kr_array_bytes(x1));
                kr_array *s1 = run(c2, geo, me, dt, x1, 0);
                KT_CHECK(memcmp(s1->data, (char *)f1->data + kr_array_bytes(s1),
                                kr_array_bytes(s1)) == 0);
                kr_array *y1 = arr(dt, kr_ct_geom_det_count(geo), kr_ct_geom_nviews(geo), 1);
                memcpy(y1->data, (char *)y->data + kr_array_bytes(y1), kr_array_bytes(y1));
                kr_array *i1 = run(c2, geo, me, dt, y1, 1);
                KT_CHECK(memcmp(i1->data, (char *)b1->data + kr_array_bytes(i1),
                                kr_array_bytes(i1)) == 0);
                kr_array *all[] = {x, y, f1, f2, f3, b1, b2, b3, x1, s1, y1, i1};
                for (size_t i = 0; i < sizeof all / sizeof *all; i++) kr_array_destroy(all[i]);
            }
        kr_ct_geom_destroy(geo);
    }
    kr_ctx_destroy(cs);
    kr_ctx_destroy(c2);
    kr_ctx_destroy(c3);
}

static void test_f32_f64(void)
{
    kr_ctx *c = ctx_cpu(KR_BACKEND_CPU, 0);
    kr_ct_grid g;
    kr_ct_grid_2d(&g, 128, 128, 0.5);
    /* a smooth-edged disk pair, values ~ 0.02 / mm as in tissue */
    kr_array *x64 = arr(KR_F64, 128, 128, 1), *x32 = arr(KR_F32, 128, 128, 1);
    for (int j = 0; j < 128; j++)
        for (int i = 0; i < 128; i++) {
            double x, y;
            pixel_centre(&g, i, j, &x, &y);
            double v = 0.02 * (hypot(x, y) < 28) + 0.01 * (hypot(x - 8, y + 5) < 9);
            set(x64, i + 128 * j, v);
            set(x32, i + 128 * j, v);
        }
    kr_ct_geom *geos[3] = {geom(KR_CT_PARALLEL2D, 90, 0, 180, 190, 0.5, 0, 0, 0, 0, &g),
                           geom(KR_CT_FAN2D_FLAT, 90, 0, 360, 200, 1.0, 0.25, 0, 500, 1000, &g),
                           geom(KR_CT_FAN2D_EQUIANGULAR, 90, 0, 360, 200, 1.0, 0.25, 0, 500,
                                1000, &g)};
    for (int w = 0; w < 3; w++)
        for (int m = 0; m < 2; m++) {
            kr_ct_method me = m ? KR_CT_SIDDON : KR_CT_JOSEPH;
            kr_array *s64 = run(c, geos[w], me, KR_F64, x64, 0);
            kr_array *s32 = run(c, geos[w], me, KR_F32, x32, 0);
            kr_array *b64 = run(c, geos[w], me, KR_F64, s64, 1);
            kr_array *b32 = run(c, geos[w], me, KR_F32, s32, 1);
            double ef = 0, mf = 0, eb = 0, mb = 0;
            for (int64_t i = 0; i < kr_array_numel(s64); i++) {
                ef = fmax(ef, fabs(get(s64, i) - get(s32, i)));
                mf = fmax(mf, fabs(get(s64, i)));
            }
            for (int64_t i = 0; i < kr_array_numel(b64); i++) {
                eb = fmax(eb, fabs(get(b64, i) - get(b32, i)));
                mb = fmax(mb, fabs(get(b64, i)));
            }
            printf("  %s %s: |f32 - f64| / max: forward %.2e, adjoint %.2e\n",
                   kr_ct_type_name(kr_ct_geom_type(geos[w])), kr_ct_method_name(me), ef / mf,
                   eb / mb);
            KT_LE(ef / mf, 5e-5);
            KT_LE(eb / mb, 5e-5);
            kr_array_destroy(s64);
            kr_array_destroy(s32);
            kr_array_destroy(b64);
            kr_array_destroy(b32);
        }
    for (int w = 0; w < 3; w++) kr_ct_geom_destroy(geos[w]);
    kr_array_destroy(x64);
    kr_array_destroy(x32);
    kr_ctx_destroy(c);
}

/* ---- bad inputs ----------------------------------------------------------------------------- */
static void test_bad_inputs(void)
{
    kr_ctx *c = ctx_cpu(KR_BACKEND_CPU, 0);
    kr_ct_grid g;
    kr_ct_grid_2d(&g, 8, 6, 1);
    kr_ct_geom *geo = geom(KR_CT_PARALLEL2D, 5, 0, 180, 11, 1, 0, 0, 0, 0, &g);
    kr_ct_projector_plan *p = NULL;
    kr_ct_projector_opts o;
    kr_ct_projector_opts_default(&o);
    KT_CHECK(o.method == KR_CT_JOSEPH && o.dtype == KR_F32);
    KT_STATUS(kr_ct_projector_plan_create(NULL, c, geo, &o), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ct_projector_plan_create(&p, NULL, geo, &o), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ct_projector_plan_create(&p, c, NULL, &o), KR_ERR_INVALID_ARG);
    o.method = (kr_ct_method)7;
    KT_STATUS(kr_ct_projector_plan_create(&p, c, geo, &o), KR_ERR_INVALID_ARG);
    o.method = KR_CT_SIDDON;
    o.dtype = KR_C64;
    KT_STATUS(kr_ct_projector_plan_create(&p, c, geo, &o), KR_ERR_DTYPE);
    KT_CHECK(p == NULL);
    KT_OK(kr_ct_projector_plan_create(&p, c, geo, NULL)); /* NULL opts = defaults */
    KT_CHECK(kr_ct_projector_geom(p) != NULL && kr_ct_projector_geom(p) != geo);
    kr_ct_geom_destroy(geo); /* the plan keeps its own copy */

    kr_array *img = arr(KR_F32, 8, 6, 1), *sino = arr(KR_F32, 11, 5, 1);
    KT_OK(kr_ct_projector_forward(p, img, sino));
    KT_STATUS(kr_ct_projector_forward(NULL, img, sino), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ct_projector_forward(p, NULL, sino), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ct_projector_adjoint(p, sino, NULL), KR_ERR_INVALID_ARG);
    kr_array *bad = arr(KR_F64, 8, 6, 1);
    KT_STATUS(kr_ct_projector_forward(p, bad, sino), KR_ERR_DTYPE);
    KT_CHECK(strstr(kr_last_error(), "kr_ct_projector_forward: image is f64; expected f32"));
    kr_array_destroy(bad);
    bad = arr(KR_F32, 11, 4, 1);
    KT_STATUS(kr_ct_projector_forward(p, img, bad), KR_ERR_DIM);
    KT_CHECK(strstr(kr_last_error(), "sinogram is 11x4, the geometry expects 11x5 (det x view)"));
    KT_STATUS(kr_ct_projector_adjoint(p, bad, img), KR_ERR_DIM);
    kr_array_destroy(bad);
    bad = arr(KR_F32, 6, 8, 1);
    KT_STATUS(kr_ct_projector_forward(p, bad, sino), KR_ERR_DIM);
    kr_array_destroy(bad);
    bad = arr(KR_F32, 8, 6, 3);
    KT_STATUS(kr_ct_projector_forward(p, bad, sino), KR_ERR_DIM);
    KT_CHECK(strstr(kr_last_error(), "batch"));
    kr_array_destroy(bad);
    int64_t d4[4] = {8, 6, 1, 2};
    KT_OK(kr_array_create(&bad, KR_F32, 4, d4, KR_HOST, NULL));
    KT_STATUS(kr_ct_projector_forward(p, bad, sino), KR_ERR_DIM);
    kr_array_destroy(bad);
    /* a device array handed to a CPU plan */
    kr_array dev;
    float fake[48];
    int64_t di[2] = {8, 6};
    KT_OK(kr_array_wrap(&dev, KR_F32, 2, di, fake, KR_DEVICE));
    KT_STATUS(kr_ct_projector_forward(p, &dev, sino), KR_ERR_LOCATION);
    /* the same memory as input and output */
    kr_array alias;
    int64_t ds[2] = {11, 5};
    KT_OK(kr_array_wrap(&alias, KR_F32, 2, ds, img->data, KR_HOST));
    KT_STATUS(kr_ct_projector_forward(p, img, &alias), KR_ERR_INVALID_ARG);
    kr_ct_projector_plan_destroy(p);
    kr_ct_projector_plan_destroy(NULL);

    /* CUDA plans without a device (or without CUDA) */
    kr_ctx *cu = NULL;
    if (kr_ctx_create(&cu, KR_BACKEND_CUDA) == KR_OK) kr_ctx_destroy(cu);
    else KT_CHECK(strstr(kr_last_error(), "no CUDA device") != NULL);

    kr_ct_method m;
    KT_OK(kr_ct_method_from_name("siddon", &m));
    KT_CHECK(m == KR_CT_SIDDON && strcmp(kr_ct_method_name(KR_CT_JOSEPH), "joseph") == 0);
    KT_STATUS(kr_ct_method_from_name("ray", &m), KR_ERR_INVALID_ARG);
    kr_array_destroy(img);
    kr_array_destroy(sino);
    kr_ctx_destroy(c);
}

int main(void)
{
    KT_RUN(test_siddon_exact);
    KT_RUN(test_joseph_linear);
    KT_RUN(test_disk);
    KT_RUN(test_fan_hand);
    KT_RUN(test_matrix_transpose);
    KT_RUN(test_dot);
    KT_RUN(test_serial_threaded);
    KT_RUN(test_f32_f64);
    KT_RUN(test_bad_inputs);
    return kt_finish();
}
