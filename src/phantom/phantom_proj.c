/* Exact projections: the parallel-beam sinogram of a 2-D ellipse phantom and line integrals of
 * a 3-D ellipsoid phantom along segments (closed-form chord lengths). */
#include "phantom_internal.h"

#include <math.h>

kr_status kr_phantom_sinogram_ellipses(kr_array **out, const kr_ellipse *e, int n,
                                       const double *theta, int64_t nview, const double *s,
                                       int64_t ndet)
{
    static const char *fn = "kr_phantom_sinogram";
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_TRY(kri_phantom_check_ellipses(e, n, fn));
    KRI_ARG_NOT_NULL(theta);
    KRI_ARG_NOT_NULL(s);
    int64_t dims[2] = {ndet, nview};
    if (ndet < 1 || nview < 1)
        return kri_fail(KR_ERR_DIM, "%s: %lld detector positions and %lld views (each must be >= 1)",
                        fn, (long long)ndet, (long long)nview);
    KRI_TRY(kr_dims_check(2, dims, "phantom sinogram"));
    KRI_TRY(kri_phantom_check_finite(theta, nview, fn, "theta"));
    KRI_TRY(kri_phantom_check_finite(s, ndet, fn, "s"));
    kr_array *a = NULL;
    KRI_TRY(kr_array_create(&a, KR_F64, 2, dims, KR_HOST, NULL));
    double *o = a->data;
#pragma omp parallel for schedule(dynamic, 1) num_threads(kri_threads(NULL))
    for (int64_t v = 0; v < nview; v++) {
        double ct = cos(theta[v]), st = sin(theta[v]);
        double *col = o + ndet * v;
        for (int i = 0; i < n; i++) {
            const kr_ellipse *p = &e[i];
            double d = theta[v] - p->phi_deg * (M_PI / 180.0);
            double cd = cos(d), sd = sin(d);
            double w2 = p->a * p->a * cd * cd + p->b * p->b * sd * sd;
            double t0 = p->x0 * ct + p->y0 * st;
            double k = 2.0 * p->rho * p->a * p->b / w2;
            for (int64_t q = 0; q < ndet; q++) {
                double t = s[q] - t0;
                double r = w2 - t * t;
                if (r > 0) col[q] += k * sqrt(r);
            }
        }
    }
    *out = a;
    return KR_OK;
}

kr_status kr_phantom_sinogram(kr_array **out, kr_phantom_kind kind, const double *theta,
                              int64_t nview, const double *s, int64_t ndet)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_TRY(kri_phantom_check_kind(kind, "kr_phantom_sinogram"));
    int n = 0;
    const kr_ellipse *e = kr_phantom_ellipses(kind, &n);
    return kr_phantom_sinogram_ellipses(out, e, n, theta, nview, s, ndet);
}

/* Prepared ellipsoid for ray intersection. */
typedef struct ray_ell {
    double rho, x0, y0, z0, c, s, ia, ib, ic;
} ray_ell;

/* Length of the part of segment p0 + t d, t in [0, 1], inside the unit-sphere image of the
 * ellipsoid, as a fraction of the segment (t units). */
static double chord_fraction(const ray_ell *p, const double *src, const double *d)
{
    double qx = src[0] - p->x0, qy = src[1] - p->y0, qz = src[2] - p->z0;
    double pu = (qx * p->c + qy * p->s) * p->ia, pv = (qy * p->c - qx * p->s) * p->ib;
    double pw = qz * p->ic;
    double du = (d[0] * p->c + d[1] * p->s) * p->ia, dv = (d[1] * p->c - d[0] * p->s) * p->ib;
    double dw = d[2] * p->ic;
    double A = du * du + dv * dv + dw * dw;
    if (!(A > 0)) return 0;
    double B = pu * du + pv * dv + pw * dw;
    double C = pu * pu + pv * pv + pw * pw - 1.0;
    double disc = B * B - A * C;
    if (!(disc > 0)) return 0;
    double sq = sqrt(disc);
    /* Stable roots: q = -(B + sign(B) sq); t = q / A and C / q. */
    double q = B >= 0 ? -(B + sq) : -(B - sq);
    double t1 = q / A, t2 = (q != 0) ? C / q : -t1;
    if (t1 > t2) {
        double tmp = t1;
        t1 = t2;
        t2 = tmp;
    }
    if (t1 < 0) t1 = 0;
    if (t2 > 1) t2 = 1;
    return t2 > t1 ? t2 - t1 : 0;
}

kr_status kr_phantom_line_integrals_ellipsoids(const kr_ellipsoid *e, int n, const double *src,
                                               const double *dst, int64_t nrays, double scale,
                                               double *out)
{
    static const char *fn = "kr_phantom_line_integrals";
    KRI_TRY(kri_phantom_check_ellipsoids(e, n, fn));
    KRI_ARG_NOT_NULL(src);
    KRI_ARG_NOT_NULL(dst);
    KRI_ARG_NOT_NULL(out);
    if (nrays < 1)
        return kri_fail(KR_ERR_DIM, "%s: ray count %lld (must be >= 1)", fn, (long long)nrays);
    if (nrays > KR_MAX_ELEMENTS)
        return kri_fail(KR_ERR_DIM, "%s: ray count %lld exceeds the limit of 2^40", fn,
                        (long long)nrays);
    if (!(isfinite(scale) && scale > 0))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: scale %g must be finite and > 0", fn, scale);
    KRI_TRY(kri_phantom_check_finite(src, 3 * nrays, fn, "src"));
    KRI_TRY(kri_phantom_check_finite(dst, 3 * nrays, fn, "dst"));
    ray_ell stackbuf[32];
    ray_ell *P = stackbuf;
    if (n > 32) KRI_TRY(kri_alloc((void **)&P, (size_t)n * sizeof(ray_ell), "phantom ellipsoids"));
    for (int i = 0; i < n; i++) {
        double phi = e[i].phi_deg * (M_PI / 180.0);
        P[i] = (ray_ell){e[i].rho, e[i].x0, e[i].y0, e[i].z0, cos(phi), sin(phi),
                         1.0 / e[i].a, 1.0 / e[i].b, 1.0 / e[i].c};
    }
#pragma omp parallel for schedule(static) num_threads(kri_threads(NULL))
    for (int64_t r = 0; r < nrays; r++) {
        const double *a = src + 3 * r, *b = dst + 3 * r;
        double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        double v = 0;
        if (len > 0)
            for (int i = 0; i < n; i++) v += P[i].rho * chord_fraction(&P[i], a, d);
        out[r] = v * len * scale;
    }
    if (P != stackbuf) kri_free(P);
    return KR_OK;
}

kr_status kr_phantom_line_integrals_3d(kr_phantom_kind kind, const double *src,
                                       const double *dst, int64_t nrays, double scale,
                                       double *out)
{
    KRI_TRY(kri_phantom_check_kind(kind, "kr_phantom_line_integrals_3d"));
    int n = 0;
    const kr_ellipsoid *e = kr_phantom_ellipsoids(kind, &n);
    return kr_phantom_line_integrals_ellipsoids(e, n, src, dst, nrays, scale, out);
}
