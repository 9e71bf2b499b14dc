/* Analytic k-space: J1 against its integral representation, the analytic values against
 * direct DFT sums of finely point-sampled rasters on the FFT grid (sign, origin and scaling),
 * the inverse DFT of integer-grid k-space against the raster, the coil maps against their
 * closed form, coil k-space against the DFT of map x phantom, and dumb inputs. */
#include "internal.h"
#include "kt.h"
#include "phantom/phantom_internal.h"

#include <stdlib.h>
#include <string.h>

/* J1(x) = (1/2pi) integral_0^2pi cos(t - x sin t) dt; the trapezoid rule converges
 * geometrically for this periodic analytic integrand once M exceeds ~x + 30. */
static double j1_ref(double x)
{
    int M = 2 * (int)(fabs(x) + 40);
    double acc = 0;
    for (int m = 0; m < M; m++) {
        double t = 2 * M_PI * m / M;
        acc += cos(t - x * sin(t));
    }
    return acc / M;
}

static void test_j1(void)
{
    const double xs[] = {1e-3, 0.5, 1.0, 3.8317059702075125, 7.0155866698156188, 10.0, 30.0,
                         123.4, 1000.0, -2.5};
    double worst = 0;
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        double d = fabs(kri_bessel_j1(xs[i]) - j1_ref(xs[i]));
        worst = d > worst ? d : worst;
    }
    printf("  J1: worst |libm - integral| = %.3g\n", worst);
    KT_LE(worst, 1e-13);
    KT_NEAR(kri_bessel_j1(3.8317059702075125), 0.0, 1e-15); /* first zero */
    KT_NEAR(kri_jinc(0.0), 1.0, 0);
    KT_NEAR(kri_jinc(1e-5), 1.0 - 1e-10 / 8, 1e-16);
    /* Both sides of the switch to the series at 1e-4 agree with the series to 4 terms. */
    for (int side = 0; side < 2; side++) {
        double z = side ? 1.00001e-4 : 0.99999e-4, z2 = z * z;
        KT_NEAR(kri_jinc(z), 1 - z2 / 8 + z2 * z2 / 192 - z2 * z2 * z2 / 9216, 2e-16);
    }
    KT_NEAR(kri_jinc(2.0), 2 * j1_ref(2.0) / 2.0, 1e-14);
    KT_NEAR(kri_jinc(-2.0), kri_jinc(2.0), 0);
}

/* Direct centred DFT (negative exponent) of an n' x n' image on the FFT grid at a real k in
 * cycles per FOV: sum img[i, j] exp(-2 pi i (kx (i - n'/2) + ky (j - n'/2)) / n'). */
static void dft_at(const double *re, const double *im, int64_t np, double kx, double ky,
                   double *outr, double *outi)
{
    double *cx = malloc(2 * (size_t)np * sizeof(double)), *cy = malloc(2 * (size_t)np * sizeof(double));
    for (int64_t i = 0; i < np; i++) {
        double p = (double)(i - np / 2);
        cx[2 * i] = cos(-2 * M_PI * kx * p / np), cx[2 * i + 1] = sin(-2 * M_PI * kx * p / np);
        cy[2 * i] = cos(-2 * M_PI * ky * p / np), cy[2 * i + 1] = sin(-2 * M_PI * ky * p / np);
    }
    double sr = 0, si = 0;
    for (int64_t j = 0; j < np; j++) {
        double rr = 0, ri = 0;
        for (int64_t i = 0; i < np; i++) {
            double a = re[i + np * j], b = im ? im[i + np * j] : 0;
            rr += a * cx[2 * i] - b * cx[2 * i + 1];
            ri += a * cx[2 * i + 1] + b * cx[2 * i];
        }
        sr += rr * cy[2 * j] - ri * cy[2 * j + 1];
        si += rr * cy[2 * j + 1] + ri * cy[2 * j];
    }
    *outr = sr;
    *outi = si;
    free(cx);
    free(cy);
}

static const double ks[][2] = {{0, 0},   {1, 0},    {0, 1},   {3, -2},     {-7, 5},
                               {10, 10}, {-16, -16}, {15, -3}, {2.5, -1.25}, {-0.3, 0.7}};
enum { NK = sizeof ks / sizeof ks[0] };

/* An asymmetric set so that sign or origin errors cannot hide behind symmetry. */
static const kr_ellipse skew[3] = {
    {1.0, 0.45, 0.25, 0.3, -0.2, 30.0},
    {-0.5, 0.15, 0.1, 0.35, -0.15, -50.0},
    {0.8, 0.2, 0.05, -0.5, 0.4, 75.0},
};

/* Analytic k-space against the DFT of the point-sampled raster on a grid n' = 32 n of the same
 * FOV, scaled by (n/n')^2. The difference is the sampling (aliasing) error of a discontinuous
 * object on the fine lattice, about 1e-4 of F(0) here. */
static void test_kspace_vs_dft(void)
{
    const int64_t n = 32, np = 1024;
    double kk[2 * NK];
    for (int q = 0; q < NK; q++) kk[2 * q] = ks[q][0], kk[2 * q + 1] = ks[q][1];
    for (int set = 0; set < 2; set++) {
        int ne = 3;
        const kr_ellipse *e = set ? kr_phantom_ellipses(KR_PHANTOM_SHEPP_LOGAN, &ne) : skew;
        kr_array *img = NULL, *F = NULL;
        KT_OK(kr_phantom_2d_grid(&img, e, ne, KR_GRID_FFT, np, np, 1, KR_F64));
        KT_OK(kr_phantom_kspace_ellipses(&F, e, ne, kk, NK, n));
        if (!img || !F) return;
        KT_CHECK(F->dtype == KR_C128 && F->dims[0] == NK);
        const double *f = F->data;
        double f0 = 0;
        for (int i = 0; i < ne; i++) f0 += 0.25 * n * n * e[i].rho * M_PI * e[i].a * e[i].b;
        KT_NEAR(f[0], f0, 1e-12 * fabs(f0));
        KT_NEAR(f[1], 0.0, 1e-12 * fabs(f0));
        double worst = 0, sc = (double)(n * n) / (double)(np * np);
        for (int q = 0; q < NK; q++) {
            double dr, di;
            dft_at(img->data, NULL, np, ks[q][0], ks[q][1], &dr, &di);
            double err = hypot(dr * sc - f[2 * q], di * sc - f[2 * q + 1]) / fabs(f0);
            worst = err > worst ? err : worst;
        }
        printf("  set %d: F(0) = %.4f, worst |DFT - F| / F(0) = %.3g\n", set, f0, worst);
        KT_LE(worst, 3e-4);
        kr_array_destroy(img);
        kr_array_destroy(F);
    }
    /* Conjugate symmetry of a real object: F(-k) = conj(F(k)). */
    double kp[4] = {3.3, -1.7, -3.3, 1.7};
    kr_array *F = NULL;
    KT_OK(kr_phantom_kspace(&F, KR_PHANTOM_MODIFIED_SL, kp, 2, 64));
    if (F) {
        const double *f = F->data;
        KT_NEAR(f[0], f[2], 1e-12);
        KT_NEAR(f[1], -f[3], 1e-12);
    }
    kr_array_destroy(F);
}

/* The centred inverse DFT of F on the integer grid approximates the raster on the FFT grid:
 * NRMSE limited by Gibbs ringing at edges; mirrored or shifted images are much further. */
static void test_inverse_dft(void)
{
    const int64_t n = 64;
    double *kk = malloc(2 * (size_t)(n * n) * sizeof(double));
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            kk[2 * (i + n * j)] = (double)(i - n / 2);
            kk[2 * (i + n * j) + 1] = (double)(j - n / 2);
        }
    kr_array *F = NULL, *img = NULL;
    KT_OK(kr_phantom_kspace_ellipses(&F, skew, 3, kk, n * n, n));
    KT_OK(kr_phantom_2d_grid(&img, skew, 3, KR_GRID_FFT, n, n, 8, KR_F64));
    if (!F || !img) {
        free(kk);
        return;
    }
    const double *f = F->data, *im = img->data;
    double *rec = calloc((size_t)(n * n), sizeof(double));
    double *tmp = calloc(2 * (size_t)(n * n), sizeof(double));
    /* Separable inverse: rows over kx, then columns over ky; keep the real part at the end. */
    for (int64_t ky = 0; ky < n; ky++)
        for (int64_t i = 0; i < n; i++) {
            double sr = 0, si = 0;
            for (int64_t kx = 0; kx < n; kx++) {
                double ph = 2 * M_PI * (double)((kx - n / 2) * (i - n / 2)) / n;
                double a = f[2 * (kx + n * ky)], b = f[2 * (kx + n * ky) + 1];
                sr += a * cos(ph) - b * sin(ph);
                si += a * sin(ph) + b * cos(ph);
            }
            tmp[2 * (i + n * ky)] = sr, tmp[2 * (i + n * ky) + 1] = si;
        }
    double imag_max = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            double sr = 0, si = 0;
            for (int64_t ky = 0; ky < n; ky++) {
                double ph = 2 * M_PI * (double)((ky - n / 2) * (j - n / 2)) / n;
                double a = tmp[2 * (i + n * ky)], b = tmp[2 * (i + n * ky) + 1];
                sr += a * cos(ph) - b * sin(ph);
                si += a * sin(ph) + b * cos(ph);
            }
            rec[i + n * j] = sr / (double)(n * n);
            imag_max = fmax(imag_max, fabs(si) / (double)(n * n));
        }
    double e_ok = 0, e_flip = 0, e_shift = 0, norm = 0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            double r = rec[i + n * j];
            double d0 = r - im[i + n * j];
            double d1 = r - im[i + n * (n - 1 - j)];
            double d2 = r - im[((i + 1) % n) + n * j];
            e_ok += d0 * d0, e_flip += d1 * d1, e_shift += d2 * d2;
            norm += im[i + n * j] * im[i + n * j];
        }
    e_ok = sqrt(e_ok / norm), e_flip = sqrt(e_flip / norm), e_shift = sqrt(e_shift / norm);
    printf("  inverse DFT vs raster: NRMSE %.3f (y-flipped %.3f, shifted one pixel %.3f), "
           "max |imag| %.2g\n", e_ok, e_flip, e_shift, imag_max);
    KT_LE(e_ok, 0.15);
    KT_GE(e_flip, 3 * e_ok);
    KT_GE(e_shift, 1.5 * e_ok);
    /* The imaginary part is not zero (F is truncated asymmetrically at -n/2) but small. */
    KT_LE(imag_max, 0.05);
    free(rec);
    free(tmp);
    free(kk);
    kr_array_destroy(F);
    kr_array_destroy(img);
}

/* The documented closed form of coil c, written independently. */
static void coil_ref(int c, int nc, double x, double y, double *re, double *im)
{
    double al = 2 * M_PI * c / nc, tx = x - cos(al), ty = y - sin(al);
    double pr = 1 + 0.6 * cos(M_PI * tx / 2), pi_ = 0.5 * sin(M_PI * tx / 2);
    double qr = 1 + 0.6 * cos(M_PI * ty / 2), qi = 0.5 * sin(M_PI * ty / 2);
    double r = pr * qr - pi_ * qi, i = pr * qi + pi_ * qr;
    *re = r * cos(al) - i * sin(al);
    *im = r * sin(al) + i * cos(al);
}

static void test_coil_maps(void)
{
    const int64_t n = 24;
    const int nc = 5;
    kr_array *m = NULL;
    KT_OK(kr_phantom_coil_maps(&m, n, nc));
    if (!m) return;
    KT_CHECK(m->dtype == KR_C128 && m->dims[0] == n && m->dims[1] == n && m->dims[2] == nc);
    const double *p = m->data;
    double worst = 0, maxmag = 0;
    for (int c = 0; c < nc; c++)
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) {
                double re, im;
                coil_ref(c, nc, (double)(i - n / 2) * 2.0 / n, (double)(j - n / 2) * 2.0 / n, &re,
                         &im);
                int64_t idx = i + n * (j + n * c);
                worst = fmax(worst, hypot(p[2 * idx] - re, p[2 * idx + 1] - im));
                maxmag = fmax(maxmag, hypot(p[2 * idx], p[2 * idx + 1]));
            }
    KT_LE(worst, 1e-14);
    KT_LE(maxmag, 2.56 + 1e-12);
    /* Coil 0 is centred at (1, 0): |S| = 1.6 (1 + 0.6 cos(pi/4)) at (0.5, 0) against
     * 1.6 |1 + 0.6 cos(3 pi/4) - 0.5 i sin(3 pi/4)| at (-0.5, 0); on the x axis the phase is
     * that of P(x - 1) alone. */
    int64_t a = (n / 2 + n / 4) + n * (n / 2), b = (n / 2 - n / 4) + n * (n / 2);
    KT_NEAR(hypot(p[2 * a], p[2 * a + 1]), 1.6 * hypot(1 + 0.6 * cos(M_PI / 4), 0.5 * sin(M_PI / 4)), 1e-14);
    KT_NEAR(hypot(p[2 * b], p[2 * b + 1]), 1.6 * hypot(1 + 0.6 * cos(3 * M_PI / 4), 0.5 * sin(3 * M_PI / 4)), 1e-14);
    KT_NEAR(atan2(p[2 * a + 1], p[2 * a]), atan2(-0.5 * sin(M_PI / 4), 1 + 0.6 * cos(M_PI / 4)), 1e-14);
    kr_array_destroy(m);
}

/* k-space of coil x phantom against the DFT of (coil map x point-sampled raster) on the fine
 * FFT grid: checks the 9-term expansion, its sign and the shared scaling. */
static void test_coil_kspace(void)
{
    const int64_t n = 32, np = 1024;
    const int nc = 3;
    double kk[2 * NK];
    for (int q = 0; q < NK; q++) kk[2 * q] = ks[q][0], kk[2 * q + 1] = ks[q][1];
    kr_array *img = NULL, *maps = NULL, *K = NULL;
    KT_OK(kr_phantom_2d_grid(&img, skew, 3, KR_GRID_FFT, np, np, 1, KR_F64));
    KT_OK(kr_phantom_coil_maps(&maps, np, nc));
    KT_OK(kr_phantom_kspace_coils_ellipses(&K, skew, 3, kk, NK, n, nc));
    if (!img || !maps || !K) return;
    KT_CHECK(K->dtype == KR_C128 && K->dims[0] == NK && K->dims[1] == nc);
    double *re = malloc((size_t)(np * np) * sizeof(double)), *im = malloc((size_t)(np * np) * sizeof(double));
    const double *mp = maps->data, *f = img->data, *k = K->data;
    double f0 = 0;
    for (int i = 0; i < 3; i++) f0 += 0.25 * n * n * fabs(skew[i].rho) * M_PI * skew[i].a * skew[i].b;
    double worst = 0, sc = (double)(n * n) / (double)(np * np);
    for (int c = 0; c < nc; c++) {
        for (int64_t i = 0; i < np * np; i++) {
            re[i] = mp[2 * (i + np * np * c)] * f[i];
            im[i] = mp[2 * (i + np * np * c) + 1] * f[i];
        }
        for (int q = 0; q < NK; q++) {
            double dr, di;
            dft_at(re, im, np, ks[q][0], ks[q][1], &dr, &di);
            int64_t idx = q + NK * c;
            worst = fmax(worst, hypot(dr * sc - k[2 * idx], di * sc - k[2 * idx + 1]) / f0);
        }
    }
    printf("  coils: worst |DFT(map x image) - analytic| / F(0) = %.3g\n", worst);
    /* Same lattice error as above, amplified by the map (|S| up to 2.56). */
    KT_LE(worst, 6e-4);
    /* The kind-based function equals the list-based one on the built-in set. */
    kr_array *K2 = NULL, *K3 = NULL;
    int ne;
    const kr_ellipse *e = kr_phantom_ellipses(KR_PHANTOM_SHEPP_LOGAN, &ne);
    KT_OK(kr_phantom_kspace_coils(&K2, KR_PHANTOM_SHEPP_LOGAN, kk, NK, n, 2));
    KT_OK(kr_phantom_kspace_coils_ellipses(&K3, e, ne, kk, NK, n, 2));
    if (K2 && K3) KT_CHECK(memcmp(K2->data, K3->data, kr_array_bytes(K2)) == 0);
    free(re);
    free(im);
    kr_array_destroy(img);
    kr_array_destroy(maps);
    kr_array_destroy(K);
    kr_array_destroy(K2);
    kr_array_destroy(K3);
}

static void test_dumb_inputs(void)
{
    kr_array *a = (kr_array *)&a;
    double k[4] = {0, 0, 1, 2};
    KT_STATUS(kr_phantom_kspace(NULL, KR_PHANTOM_SHEPP_LOGAN, k, 2, 64), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_kspace(&a, (kr_phantom_kind)2, k, 2, 64), KR_ERR_INVALID_ARG);
    KT_CHECK(a == NULL);
    KT_STATUS(kr_phantom_kspace(&a, KR_PHANTOM_SHEPP_LOGAN, NULL, 2, 64), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_kspace(&a, KR_PHANTOM_SHEPP_LOGAN, k, 0, 64), KR_ERR_DIM);
    KT_STATUS(kr_phantom_kspace(&a, KR_PHANTOM_SHEPP_LOGAN, k, 2, 0), KR_ERR_DIM);
    k[3] = NAN;
    KT_STATUS(kr_phantom_kspace(&a, KR_PHANTOM_SHEPP_LOGAN, k, 2, 64), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "k[3]") != NULL);
    KT_STATUS(kr_phantom_kspace_coils(&a, KR_PHANTOM_SHEPP_LOGAN, k, 2, 64, 4), KR_ERR_INVALID_ARG);
    k[3] = 2;
    KT_STATUS(kr_phantom_kspace_ellipses(&a, NULL, 1, k, 2, 64), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_kspace_coils(&a, KR_PHANTOM_SHEPP_LOGAN, k, 2, 64, 0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_kspace_coils(NULL, KR_PHANTOM_SHEPP_LOGAN, k, 2, 64, 2), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_coil_maps(NULL, 8, 2), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_coil_maps(&a, 0, 2), KR_ERR_DIM);
    KT_STATUS(kr_phantom_coil_maps(&a, 8, -1), KR_ERR_INVALID_ARG);
    KT_CHECK(a == NULL);
}

int main(void)
{
    KT_RUN(test_j1);
    KT_RUN(test_kspace_vs_dft);
    KT_RUN(test_inverse_dft);
    KT_RUN(test_coil_maps);
    KT_RUN(test_coil_kspace);
    KT_RUN(test_dumb_inputs);
    return kt_finish();
}
