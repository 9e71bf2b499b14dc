/* Helpers shared by the SENSE / Cartesian / noise tests: analytic coil maps with local
 * sensitivity (loop-like), a complex test object, simple error measures. Header-only. */
#ifndef KRAY_TEST_SENSE_UTIL_H
#define KRAY_TEST_SENSE_UTIL_H

#include "kray/cartesian.h"
#include "kray/coils.h"
#include "kray/noise.h"
#include "kray/sense.h"
#include "kt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Coil c of nc sits at angle alpha_c = 2 pi (c + 0.5) / nc on a ring around the FOV ([-1, 1]^2),
 * at radius 1.3 (even c) or 1.1 (odd c) so that neighbours differ. Sensitivity
 *   S_c(r) = (1 + |r - r_c|^2 / d^2)^(-3/2) * exp(i (alpha_c + 1.5 * ((r - r_c) . t_c)))
 * (d = 0.4, t_c the tangent): the on-axis profile of a loop of radius d, with a coil-specific
 * smooth phase; about 2-6 % of the peak in the centre. Point values at the FFT grid positions
 * x = (i - floor(nx/2)) * 2 / nx. */
static inline kr_array *kts_maps(int64_t nx, int64_t ny, int64_t nc)
{
    int64_t dims[3] = {nx, ny, nc};
    kr_array *m = NULL;
    if (kr_array_create(&m, KR_C64, 3, dims, KR_HOST, NULL) != KR_OK) return NULL;
    float *v = m->data;
    for (int64_t c = 0; c < nc; c++) {
        double a = 2 * M_PI * (c + 0.5) / (double)nc;
        double rad = (c % 2) ? 1.1 : 1.3;
        double cx = rad * cos(a), cy = rad * sin(a), tx = -sin(a), ty = cos(a);
        for (int64_t j = 0; j < ny; j++)
            for (int64_t i = 0; i < nx; i++) {
                double x = (double)(i - nx / 2) * 2.0 / (double)nx;
                double y = (double)(j - ny / 2) * 2.0 / (double)ny;
                double dx = x - cx, dy = y - cy, d2 = 0.16;
                double mag = pow(1.0 + (dx * dx + dy * dy) / d2, -1.5);
                double ph = a + 1.5 * (dx * tx + dy * ty);
                int64_t q = i + nx * (j + ny * c);
                v[2 * q] = (float)(mag * cos(ph));
                v[2 * q + 1] = (float)(mag * sin(ph));
            }
    }
    return m;
}

/* Complex test object: modified Shepp-Logan on the FFT grid (2x2 supersampling) times a smooth
 * phase exp(i 0.7 (x + 0.5 y)). c64 [nx, ny]. */
static inline kr_array *kts_object(int64_t nx, int64_t ny)
{
    int ne = 0;
    const kr_ellipse *e = kr_phantom_ellipses(KR_PHANTOM_MODIFIED_SL, &ne);
    kr_array *f = NULL, *o = NULL;
    if (kr_phantom_2d_grid(&f, e, ne, KR_GRID_FFT, nx, ny, 2, KR_F64) != KR_OK) return NULL;
    int64_t dims[2] = {nx, ny};
    if (kr_array_create(&o, KR_C64, 2, dims, KR_HOST, NULL) != KR_OK) {
        kr_array_destroy(f);
        return NULL;
    }
    const double *fv = f->data;
    float *ov = o->data;
    for (int64_t j = 0; j < ny; j++)
        for (int64_t i = 0; i < nx; i++) {
            double x = (double)(i - nx / 2) * 2.0 / (double)nx;
            double y = (double)(j - ny / 2) * 2.0 / (double)ny;
            double ph = 0.7 * (x + 0.5 * y);
            int64_t q = i + nx * j;
            ov[2 * q] = (float)(fv[q] * cos(ph));
            ov[2 * q + 1] = (float)(fv[q] * sin(ph));
        }
    kr_array_destroy(f);
    return o;
}

/* ||a - b|| / ||b|| over complex arrays (c64), optionally only where mask[p] != 0 (per pixel of
 * the first n elements). */
static inline double kts_nrmse(const kr_array *a, const kr_array *b, const uint8_t *mask)
{
    const float *x = a->data, *y = b->data;
    int64_t n = kr_array_numel(b);
    double num = 0, den = 0;
    for (int64_t i = 0; i < n; i++) {
        if (mask && !mask[i]) continue;
        double dr = (double)x[2 * i] - y[2 * i], di = (double)x[2 * i + 1] - y[2 * i + 1];
        num += dr * dr + di * di;
        den += (double)y[2 * i] * y[2 * i] + (double)y[2 * i + 1] * y[2 * i + 1];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* Object support: |object| > 0. */
static inline uint8_t *kts_support(const kr_array *obj)
{
    int64_t n = kr_array_numel(obj);
    uint8_t *m = calloc((size_t)n, 1);
    const float *v = obj->data;
    for (int64_t i = 0; m && i < n; i++) m[i] = (v[2 * i] != 0 || v[2 * i + 1] != 0);
    return m;
}

/* k-space of the object with the maps (host, CPU ctx). */
static inline kr_array *kts_kspace(const kr_ctx *ctx, const kr_array *obj, const kr_array *maps)
{
    kr_array *k = NULL;
    if (kr_array_create_like(&k, maps, KR_HOST, NULL) != KR_OK) return NULL;
    if (kr_coil_kspace(ctx, obj, maps, k) != KR_OK) {
        kr_array_destroy(k);
        return NULL;
    }
    return k;
}

/* A Hermitian positive definite coil covariance: Psi = A A^H / nc + 0.5 I with A pseudo-random
 * (c128 [nc, nc]), unit-ish diagonal and correlations of about 0.1-0.4. */
static inline kr_array *kts_psi(int64_t nc, uint64_t seed)
{
    int64_t dims[2] = {nc, nc};
    kr_array *p = NULL;
    if (kr_array_create(&p, KR_C128, 2, dims, KR_HOST, NULL) != KR_OK) return NULL;
    double *a = malloc(sizeof(double) * 2 * (size_t)(nc * nc));
    uint64_t s = seed * 2654435761u + 1;
    for (int64_t i = 0; i < 2 * nc * nc; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        a[i] = ((double)(s >> 11) / 9007199254740992.0 - 0.5) * 1.2;
    }
    double *v = p->data;
    for (int64_t r = 0; r < nc; r++)
        for (int64_t c = 0; c < nc; c++) {
            double sr = 0, si = 0;
            for (int64_t k = 0; k < nc; k++) {
                double ar = a[2 * (r + nc * k)], ai = a[2 * (r + nc * k) + 1];
                double br = a[2 * (c + nc * k)], bi = a[2 * (c + nc * k) + 1];
                sr += ar * br + ai * bi; /* A[r,k] conj(A[c,k]) */
                si += ai * br - ar * bi;
            }
            v[2 * (r + nc * c)] = sr / (double)nc + (r == c ? 0.5 : 0.0);
            v[2 * (r + nc * c) + 1] = si / (double)nc;
        }
    free(a);
    return p;
}

#endif
