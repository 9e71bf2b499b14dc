/* Shared helpers of the FDK tests: a circular cone-beam scan in kr_ct_view form and exact
 * projections of analytic phantoms on it (kr_phantom_line_integrals_*), so FDK is tested
 * against data that did not come from a discrete projector. */
#ifndef KRAY_TEST_FDK_UTIL_H
#define KRAY_TEST_FDK_UTIL_H

#include "kt.h"
#include "kray/fdk.h"
#include "kray/phantom.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KT_PI 3.14159265358979323846

typedef struct kt_cone {
    int64_t nu, nv, nviews;
    double pitch_u, pitch_v;      /* mm */
    double sod, sdd;              /* mm */
    double start_deg, arc_deg;    /* view m at start + m * arc / nviews */
    double off_u, off_v, cor;     /* detector offsets and centre-of-rotation offset, mm */
    kr_ct_grid grid;
} kt_cone;

/* A cube volume of n^3 voxels of `vox` mm centred on the origin, and a detector that sees it. */
static inline void kt_cone_default(kt_cone *c, int64_t n, double vox, int64_t nviews)
{
    memset(c, 0, sizeof *c);
    c->nu = c->nv = (int64_t)(1.5 * (double)n);
    c->pitch_u = c->pitch_v = 2.0 * vox; /* magnification 2: one voxel per pixel at the axis */
    c->sod = 4.0 * (double)n * vox;
    c->sdd = 2.0 * c->sod;
    c->nviews = nviews;
    c->arc_deg = 360;
    for (int d = 0; d < 3; d++) {
        c->grid.n[d] = n;
        c->grid.voxel_mm[d] = vox;
    }
}

/* Views: e_u = (cos t, sin t, 0), e_d = (-sin t, cos t, 0) (as kray/ct.h), v along +z;
 * src = -sod e_d - cor e_u, det = (sdd - sod) e_d + (off_u - cor) e_u + off_v e_z. */
static inline kr_ct_view *kt_cone_views(const kt_cone *c)
{
    kr_ct_view *v = calloc((size_t)c->nviews, sizeof *v);
    for (int64_t m = 0; m < c->nviews; m++) {
        double t = (c->start_deg + (double)m * c->arc_deg / (double)c->nviews) * KT_PI / 180.0;
        double eu[3] = {cos(t), sin(t), 0}, ed[3] = {-sin(t), cos(t), 0};
        for (int d = 0; d < 3; d++) {
            v[m].src[d] = -c->sod * ed[d] - c->cor * eu[d];
            v[m].det[d] = (c->sdd - c->sod) * ed[d] + (c->off_u - c->cor) * eu[d];
            v[m].u[d] = c->pitch_u * eu[d];
            v[m].v[d] = 0;
        }
        v[m].det[2] += c->off_v;
        v[m].v[2] = c->pitch_v;
    }
    return v;
}

/* Exact projections [nu, nv, nviews] (f32) of ellipsoids given in the phantom's normalised
 * frame, where the volume's half-width along x is 1 (mm = normalised * half). */
static inline kr_array *kt_cone_project(const kt_cone *c, const kr_ellipsoid *e, int ne)
{
    const kr_ct_view *views = kt_cone_views(c);
    const double half = 0.5 * (double)c->grid.n[0] * c->grid.voxel_mm[0];
    int64_t nr = c->nu * c->nv;
    double *src = malloc((size_t)nr * 3 * sizeof(double));
    double *dst = malloc((size_t)nr * 3 * sizeof(double));
    double *li = malloc((size_t)nr * sizeof(double));
    int64_t dims[3] = {c->nu, c->nv, c->nviews};
    kr_array *p = NULL;
    KT_OK(kr_array_create(&p, KR_F32, 3, dims, KR_HOST, NULL));
    float *out = p->data;
    for (int64_t m = 0; m < c->nviews; m++) {
        const kr_ct_view *V = &views[m];
        for (int64_t b = 0; b < c->nv; b++)
            for (int64_t a = 0; a < c->nu; a++) {
                int64_t r = a + c->nu * b;
                double sa = (double)a - 0.5 * (double)(c->nu - 1);
                double sb = (double)b - 0.5 * (double)(c->nv - 1);
                for (int d = 0; d < 3; d++) {
                    src[3 * r + d] = V->src[d] / half;
                    dst[3 * r + d] = (V->det[d] + sa * V->u[d] + sb * V->v[d]) / half;
                }
            }
        KT_OK(kr_phantom_line_integrals_ellipsoids(e, ne, src, dst, nr, half, li));
        for (int64_t r = 0; r < nr; r++) out[r + nr * m] = (float)li[r];
    }
    free(src);
    free(dst);
    free(li);
    free((void *)views);
    return p;
}

static inline kr_array *kt_cone_project_sl(const kt_cone *c)
{
    int ne = 0;
    const kr_ellipsoid *e = kr_phantom_ellipsoids(KR_PHANTOM_MODIFIED_SL, &ne);
    return kt_cone_project(c, e, ne);
}

static inline kr_array *kt_vol(const kt_cone *c)
{
    kr_array *v = NULL;
    KT_OK(kr_array_create(&v, KR_F32, 3, c->grid.n, KR_HOST, NULL));
    return v;
}

/* FDK on the ctx's backend with host arrays; returns the volume (NULL on failure). */
static inline kr_array *kt_fdk(const kr_ctx *ctx, const kt_cone *c, const kr_fdk_opts *o,
                               const kr_array *proj)
{
    kr_ct_view *v = kt_cone_views(c);
    kr_array *vol = kt_vol(c);
    kr_status s = kr_fdk_views(ctx, c->nu, c->nv, v, c->nviews, &c->grid, o, proj, vol);
    free(v);
    if (s != KR_OK) {
        kt_fail_at(__FILE__, __LINE__, "kr_fdk_views: %s (%s)", kr_status_string(s),
                   kr_last_error());
        kr_array_destroy(vol);
        return NULL;
    }
    return vol;
}

/* Slice k of a [nx, ny, nz] f32 volume as a new [nx, ny] f32 array. */
static inline kr_array *kt_slice(const kr_array *vol, int64_t k)
{
    kr_array *s = NULL;
    int64_t d[2] = {vol->dims[0], vol->dims[1]};
    KT_OK(kr_array_create(&s, KR_F32, 2, d, KR_HOST, NULL));
    memcpy(s->data, (const float *)vol->data + k * d[0] * d[1], (size_t)(d[0] * d[1]) * 4);
    return s;
}

/* Max |a - b| over two f32 arrays of equal size, and the max |b|. */
static inline double kt_maxdiff(const kr_array *a, const kr_array *b, double *maxref)
{
    const float *x = a->data, *y = b->data;
    double m = 0, r = 0;
    for (int64_t i = 0; i < kr_array_numel(a); i++) {
        double d = fabs((double)x[i] - (double)y[i]);
        if (!(d <= m)) m = d;
        if (fabs((double)y[i]) > r) r = fabs((double)y[i]);
    }
    if (maxref) *maxref = r;
    return m;
}

#endif
