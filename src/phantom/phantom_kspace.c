/* Analytic 2-D k-space of ellipse phantoms (J1 closed form) and the built-in analytic coil
 * sensitivities. Conventions (units, sign, scaling): see kray/phantom.h. */
#define _XOPEN_SOURCE 700 /* j1() from <math.h> (POSIX XSI) */
#include "phantom_internal.h"

#include <math.h>

double kri_bessel_j1(double x) { return j1(x); }

double kri_jinc(double z)
{
    double az = fabs(z);
    if (az < 1e-4) {
        double z2 = z * z;
        return 1.0 - z2 / 8.0 + z2 * z2 / 192.0;
    }
    return 2.0 * j1(az) / az;
}

/* Prepared ellipse for k-space: amplitude (n/2)^2 rho pi a b, rotation, semi-axes, centre. */
typedef struct k_ell {
    double amp, c, s, a, b, x0, y0;
} k_ell;

static void prep(const kr_ellipse *e, int n, double scale, k_ell *P)
{
    for (int i = 0; i < n; i++) {
        double phi = e[i].phi_deg * (M_PI / 180.0);
        P[i] = (k_ell){scale * e[i].rho * M_PI * e[i].a * e[i].b, cos(phi), sin(phi),
                       e[i].a, e[i].b, e[i].x0, e[i].y0};
    }
}

/* F(kx, ky) of the prepared set, into (re, im). */
static void kval(const k_ell *P, int n, double kx, double ky, double *re, double *im)
{
    double sr = 0, si = 0;
    for (int i = 0; i < n; i++) {
        const k_ell *p = &P[i];
        double ku = kx * p->c + ky * p->s, kv = ky * p->c - kx * p->s;
        double r = 0.5 * sqrt(p->a * p->a * ku * ku + p->b * p->b * kv * kv);
        double m = p->amp * kri_jinc(2.0 * M_PI * r);
        double ph = -M_PI * (kx * p->x0 + ky * p->y0);
        sr += m * cos(ph);
        si += m * sin(ph);
    }
    *re = sr;
    *im = si;
}

static kr_status check_common(const kr_ellipse *e, int ne, const double *k, int64_t nsamples,
                              int64_t n, const char *fn)
{
    KRI_TRY(kri_phantom_check_ellipses(e, ne, fn));
    KRI_ARG_NOT_NULL(k);
    if (nsamples < 1 || n < 1)
        return kri_fail(KR_ERR_DIM, "%s: %lld samples, image size %lld (each must be >= 1)", fn,
                        (long long)nsamples, (long long)n);
    if (nsamples > KR_MAX_ELEMENTS || n > ((int64_t)1 << 31))
        return kri_fail(KR_ERR_DIM, "%s: %lld samples or image size %lld is too large", fn,
                        (long long)nsamples, (long long)n);
    return kri_phantom_check_finite(k, 2 * nsamples, fn, "k");
}

kr_status kr_phantom_kspace_ellipses(kr_array **out, const kr_ellipse *e, int ne,
                                     const double *k, int64_t nsamples, int64_t n)
{
    static const char *fn = "kr_phantom_kspace";
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_TRY(check_common(e, ne, k, nsamples, n, fn));
    k_ell stackbuf[32];
    k_ell *P = stackbuf;
    if (ne > 32) KRI_TRY(kri_alloc((void **)&P, (size_t)ne * sizeof(k_ell), "k-space ellipses"));
    prep(e, ne, 0.25 * (double)n * (double)n, P);
    kr_array *a = NULL;
    kr_status st = kr_array_create(&a, KR_C128, 1, &nsamples, KR_HOST, NULL);
    if (st == KR_OK) {
        double *o = a->data;
#pragma omp parallel for schedule(static) num_threads(kri_threads(NULL))
        for (int64_t q = 0; q < nsamples; q++)
            kval(P, ne, k[2 * q], k[2 * q + 1], &o[2 * q], &o[2 * q + 1]);
        *out = a;
    }
    if (P != stackbuf) kri_free(P);
    return st;
}

kr_status kr_phantom_kspace(kr_array **out, kr_phantom_kind kind, const double *k,
                            int64_t nsamples, int64_t n)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_TRY(kri_phantom_check_kind(kind, "kr_phantom_kspace"));
    int ne = 0;
    const kr_ellipse *e = kr_phantom_ellipses(kind, &ne);
    return kr_phantom_kspace_ellipses(out, e, ne, k, nsamples, n);
}

/* ---- coils -------------------------------------------------------------------------------- */
/* Coil c: S_c(x, y) = exp(i al) P(x - cos al) P(y - sin al), al = 2 pi c / ncoils, with
 * P(t) = 1 + 0.6 cos(pi t / 2) + 0.5 i sin(pi t / 2) = 1 + 0.55 e^{i pi t/2} + 0.05 e^{-i pi t/2}.
 * Expanded on the shared frequencies (m/2, l/2), m, l in {-1, 0, 1} (cycles per FOV):
 * S_c = sum_{m,l} w[c][m][l] exp(i pi (m x + l y) / 2). */
static void coil_p(double t, double *re, double *im)
{
    *re = 1.0 + 0.6 * cos(M_PI * t / 2.0);
    *im = 0.5 * sin(M_PI * t / 2.0);
}

/* Weights p_m(tc) of exp(i pi m t / 2) in P(t - tc), m = -1, 0, 1. */
static void coil_pw(double tc, double wr[3], double wi[3])
{
    wr[0] = 0.05 * cos(M_PI * tc / 2.0), wi[0] = 0.05 * sin(M_PI * tc / 2.0);
    wr[1] = 1.0, wi[1] = 0.0;
    wr[2] = 0.55 * cos(M_PI * tc / 2.0), wi[2] = -0.55 * sin(M_PI * tc / 2.0);
}

/* The 9 weights of coil c, index (m + 1) + 3 (l + 1). */
static void coil_weights(int c, int ncoils, double wr[9], double wi[9])
{
    double al = 2.0 * M_PI * (double)c / (double)ncoils, ca = cos(al), sa = sin(al);
    double xr[3], xi[3], yr[3], yi[3];
    coil_pw(ca, xr, xi);
    coil_pw(sa, yr, yi);
    for (int l = 0; l < 3; l++)
        for (int m = 0; m < 3; m++) {
            double pr = xr[m] * yr[l] - xi[m] * yi[l], pi_ = xr[m] * yi[l] + xi[m] * yr[l];
            wr[m + 3 * l] = ca * pr - sa * pi_;
            wi[m + 3 * l] = ca * pi_ + sa * pr;
        }
}

kr_status kr_phantom_coil_maps(kr_array **out, int64_t n, int ncoils)
{
    static const char *fn = "kr_phantom_coil_maps";
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    if (ncoils < 1)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: coil count %d (must be >= 1)", fn, ncoils);
    int64_t dims[3] = {n, n, ncoils};
    KRI_TRY(kr_dims_check(3, dims, "coil maps"));
    kr_array *a = NULL;
    KRI_TRY(kr_array_create(&a, KR_C128, 3, dims, KR_HOST, NULL));
    double *o = a->data;
    const int64_t plane = n * n;
    const double off = kri_phantom_sub_offset(KR_GRID_FFT, n, 1), den = (double)n;
#pragma omp parallel for schedule(static) num_threads(kri_threads(NULL))
    for (int64_t r = 0; r < n * (int64_t)ncoils; r++) {
        int64_t j = r % n;
        int c = (int)(r / n);
        double al = 2.0 * M_PI * (double)c / (double)ncoils, ca = cos(al), sa = sin(al);
        double y = (2.0 * (double)j + off) / den, qr, qi;
        coil_p(y - sa, &qr, &qi);
        for (int64_t i = 0; i < n; i++) {
            double x = (2.0 * (double)i + off) / den, pr, pi_;
            coil_p(x - ca, &pr, &pi_);
            double sr = pr * qr - pi_ * qi, si = pr * qi + pi_ * qr;
            int64_t idx = i + n * j + plane * c;
            o[2 * idx] = ca * sr - sa * si;
            o[2 * idx + 1] = ca * si + sa * sr;
        }
    }
    *out = a;
    return KR_OK;
}

kr_status kr_phantom_kspace_coils_ellipses(kr_array **out, const kr_ellipse *e, int ne,
                                           const double *k, int64_t nsamples, int64_t n,
                                           int ncoils)
{
    static const char *fn = "kr_phantom_kspace_coils";
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_TRY(check_common(e, ne, k, nsamples, n, fn));
    if (ncoils < 1)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: coil count %d (must be >= 1)", fn, ncoils);
    int64_t dims[2] = {nsamples, ncoils};
    KRI_TRY(kr_dims_check(2, dims, "coil k-space"));
    k_ell stackbuf[32];
    k_ell *P = stackbuf;
    double *W = NULL;
    kr_status st = KR_OK;
    if (ne > 32) st = kri_alloc((void **)&P, (size_t)ne * sizeof(k_ell), "k-space ellipses");
    if (st == KR_OK)
        st = kri_alloc((void **)&W, (size_t)ncoils * 18 * sizeof(double), "coil weights");
    kr_array *a = NULL;
    if (st == KR_OK) st = kr_array_create(&a, KR_C128, 2, dims, KR_HOST, NULL);
    if (st == KR_OK) {
        prep(e, ne, 0.25 * (double)n * (double)n, P);
        for (int c = 0; c < ncoils; c++) coil_weights(c, ncoils, W + 18 * c, W + 18 * c + 9);
        double *o = a->data;
#pragma omp parallel for schedule(static) num_threads(kri_threads(NULL))
        for (int64_t q = 0; q < nsamples; q++) {
            double kx = k[2 * q], ky = k[2 * q + 1], fr[9], fi[9];
            for (int l = -1; l <= 1; l++)
                for (int m = -1; m <= 1; m++)
                    kval(P, ne, kx - 0.5 * m, ky - 0.5 * l, &fr[(m + 1) + 3 * (l + 1)],
                         &fi[(m + 1) + 3 * (l + 1)]);
            for (int c = 0; c < ncoils; c++) {
                const double *wr = W + 18 * c, *wi = wr + 9;
                double sr = 0, si = 0;
                for (int t = 0; t < 9; t++) {
                    sr += wr[t] * fr[t] - wi[t] * fi[t];
                    si += wr[t] * fi[t] + wi[t] * fr[t];
                }
                int64_t idx = q + nsamples * c;
                o[2 * idx] = sr;
                o[2 * idx + 1] = si;
            }
        }
        *out = a;
    }
    if (P != stackbuf) kri_free(P);
    kri_free(W);
    return st;
}

kr_status kr_phantom_kspace_coils(kr_array **out, kr_phantom_kind kind, const double *k,
                                  int64_t nsamples, int64_t n, int ncoils)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_TRY(kri_phantom_check_kind(kind, "kr_phantom_kspace_coils"));
    int ne = 0;
    const kr_ellipse *e = kr_phantom_ellipses(kind, &ne);
    return kr_phantom_kspace_coils_ellipses(out, e, ne, k, nsamples, n, ncoils);
}
