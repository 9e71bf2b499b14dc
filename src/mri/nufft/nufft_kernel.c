/* NUFFT kernel: Kaiser-Bessel window, its closed-form Fourier transform, the choice of width
 * and shape from the requested accuracy, and the piecewise-polynomial fit used to evaluate it
 * fast on CPU and GPU.
 *
 * Why Kaiser-Bessel (and not FINUFFT's exponential of semicircle): with a polynomial fit the
 * evaluation cost is the same for both, the two reach the same accuracy per width within a few
 * per cent (Barnett et al. 2019), KB has an exact closed-form Fourier transform (deapodisation
 * needs no quadrature), and I0(beta sqrt(1 - z^2)) is an entire function of z (I0 is even), so
 * the polynomial fit converges fast on every piece, including those at the support's edge where
 * the ES kernel has a square-root singularity. */
#include "mri/nufft/nufft_internal.h"

#include <math.h>
#include <string.h>

double kri_bessel_i0(double x)
{
    /* sum_k (x^2/4)^k / (k!)^2: all terms positive, converges for every x; beta <= ~45 here. */
    double q = 0.25 * x * x, term = 1.0, sum = 1.0;
    for (int k = 1; k < 500; k++) {
        term *= q / ((double)k * (double)k);
        sum += term;
        if (term < 1e-17 * sum) break;
    }
    return sum;
}

/* Measured relative l2 errors of this NUFFT (random points and data, c128, Beatty's beta;
 * tests/test_nufft.c prints them) follow err ~ C exp(-pi w sqrt(1 - 1/sigma)) with
 * C ~ 4.5 (2-D) and ~ 5.4 (3-D) at sigma = 2, and C ~ 1.6 (2-D) at sigma = 1.25, i.e.
 * C ~ c sqrt(ndim) (sigma - 1)^0.75 with c ~ 3.2. Float rounding adds ~2e-7 to c64 results (GPU
 * atomics included), and structured trajectories (radial: dense centre) come out a little worse
 * than random points, so the rule uses c = 4.1: at sigma = 2 it gives w = 3, 4, 5, 6, 8 in 2-D
 * and 3, 4, 6, 7, 8 in 3-D for eps = 1e-2 .. 1e-6 (measured errors 0.5-0.8 eps at 1e-2 .. 1e-3,
 * smaller below). */
#define KRI_NUFFT_ERR_C 4.1

int kri_nufft_width_for(double eps, double sigma, int ndim)
{
    double rate = M_PI * sqrt(1.0 - 1.0 / sigma);
    double c = KRI_NUFFT_ERR_C * sqrt((double)ndim) * pow(sigma - 1.0, 0.75);
    for (int w = 2; w <= KRI_NUFFT_MAX_W; w++)
        if (c * exp(-rate * (double)w) <= eps) return w;
    return 0;
}

double kri_nufft_beta_for(int w, double sigma)
{
    /* Beatty, Nishimura, Pauly 2005, eq. 5; optimal to within a few per cent (measured). */
    double a = (double)w / sigma * (sigma - 0.5);
    double b = a * a - 0.8;
    if (b < 0.25 * a * a) b = 0.25 * a * a; /* tiny widths: keep beta positive */
    return M_PI * sqrt(b);
}

double kri_nufft_kernel_exact(const kri_nufft_kernel *k, double t)
{
    double z = 2.0 * t / (double)k->w;
    if (fabs(z) > 1.0) return 0.0;
    return kri_bessel_i0(k->beta * sqrt(1.0 - z * z)) / kri_bessel_i0(k->beta);
}

double kri_nufft_kernel_ft(const kri_nufft_kernel *k, double xi)
{
    /* integral_{-w/2}^{w/2} I0(beta sqrt(1 - (2t/w)^2)) e^{-2 pi i xi t} dt
     *   = w sinh(sqrt(beta^2 - a^2)) / sqrt(beta^2 - a^2),  a = pi w xi
     * (sin(sqrt(a^2 - beta^2)) / sqrt(a^2 - beta^2) beyond a = beta). */
    double w = (double)k->w, a = M_PI * w * xi;
    double d = k->beta * k->beta - a * a, r;
    if (d > 1e-12) {
        double z = sqrt(d);
        r = sinh(z) / z;
    } else if (d < -1e-12) {
        double z = sqrt(-d);
        r = sin(z) / z;
    } else {
        r = 1.0;
    }
    return w * r / kri_bessel_i0(k->beta);
}

void kri_nufft_kernel_vals_d(const kri_nufft_kernel *k, double s, double *vals)
{
    double z = 2.0 * s - 1.0;
    for (int j = 0; j < k->w; j++) vals[j] = k->coef[k->degree * KRI_NUFFT_MAX_W + j];
    for (int d = k->degree - 1; d >= 0; d--)
        for (int j = 0; j < k->w; j++) vals[j] = vals[j] * z + k->coef[d * KRI_NUFFT_MAX_W + j];
}

/* Chebyshev interpolation of piece j at degree `deg`, converted to monomials in z. */
static void kri_fit_piece(const kri_nufft_kernel *k, int j, int deg, double *mono)
{
    int m = deg + 1;
    double f[KRI_NUFFT_MAX_DEG + 1], a[KRI_NUFFT_MAX_DEG + 1];
    for (int i = 0; i < m; i++) {
        double z = cos(M_PI * ((double)i + 0.5) / (double)m);
        double s = 0.5 * (z + 1.0);
        f[i] = kri_nufft_kernel_exact(k, s - 0.5 * (double)k->w + (double)j);
    }
    for (int c = 0; c < m; c++) {
        double acc = 0.0;
        for (int i = 0; i < m; i++)
            acc += f[i] * cos(M_PI * (double)c * ((double)i + 0.5) / (double)m);
        a[c] = acc * (c == 0 ? 1.0 : 2.0) / (double)m;
    }
    /* sum_c a_c T_c(z) in monomials: T_{c+1} = 2 z T_c - T_{c-1}. */
    double tp[KRI_NUFFT_MAX_DEG + 2], tc[KRI_NUFFT_MAX_DEG + 2], tn[KRI_NUFFT_MAX_DEG + 2];
    memset(tp, 0, sizeof tp);
    memset(tc, 0, sizeof tc);
    for (int i = 0; i <= deg; i++) mono[i] = 0.0;
    tp[0] = 1.0; /* T_0 */
    tc[1] = 1.0; /* T_1 */
    mono[0] += a[0];
    if (deg >= 1) mono[1] += a[1];
    for (int c = 2; c <= deg; c++) {
        tn[0] = -tp[0];
        for (int i = 1; i <= c; i++) tn[i] = 2.0 * tc[i - 1] - tp[i];
        for (int i = 0; i <= c; i++) {
            tp[i] = tc[i];
            tc[i] = tn[i];
        }
        for (int i = 0; i <= c; i++) mono[i] += a[c] * tc[i];
    }
}

kr_status kri_nufft_kernel_init(kri_nufft_kernel *k, int w, double beta, double tol)
{
    memset(k, 0, sizeof *k);
    k->w = w;
    k->beta = beta;
    double best_err = INFINITY;
    int best_deg = 0;
    double best[KRI_NUFFT_NCOEF];
    int first = w + 1 < 4 ? 4 : w + 1;
    for (int deg = first; deg <= KRI_NUFFT_MAX_DEG; deg++) {
        double mono[KRI_NUFFT_MAX_DEG + 1];
        for (int j = 0; j < w; j++) {
            kri_fit_piece(k, j, deg, mono);
            for (int d = 0; d <= KRI_NUFFT_MAX_DEG; d++)
                k->coef[d * KRI_NUFFT_MAX_W + j] = d <= deg ? mono[d] : 0.0;
        }
        k->degree = deg;
        double err = 0.0, vals[KRI_NUFFT_MAX_W];
        for (int i = 0; i <= 256; i++) {
            double s = (double)i / 256.0;
            kri_nufft_kernel_vals_d(k, s, vals);
            for (int j = 0; j < w; j++) {
                double e = fabs(vals[j] - kri_nufft_kernel_exact(k, s - 0.5 * w + j));
                if (e > err) err = e;
            }
        }
        if (err < best_err) {
            best_err = err;
            best_deg = deg;
            memcpy(best, k->coef, sizeof best);
        }
        if (err <= tol) break;
    }
    memcpy(k->coef, best, sizeof best);
    k->degree = best_deg;
    k->fit_err = best_err;
    for (int i = 0; i < KRI_NUFFT_NCOEF; i++) k->coeff[i] = (float)k->coef[i];
    if (!(best_err <= tol))
        return kri_fail(KR_ERR_INTERNAL, "NUFFT kernel fit (width %d, beta %.4g) reaches only "
                        "%.3g, %.3g was needed", w, beta, best_err, tol);
    return KR_OK;
}

static int kri_smooth235(int64_t v)
{
    while (v % 2 == 0) v /= 2;
    while (v % 3 == 0) v /= 3;
    while (v % 5 == 0) v /= 5;
    return v == 1;
}

int64_t kri_nufft_grid_size(int64_t N, double sigma, int w)
{
    int64_t n = (int64_t)ceil(sigma * (double)N - 1e-9);
    if (n < 2 * (int64_t)w) n = 2 * (int64_t)w;
    if (n < N) n = N;
    while (n % 2 || !kri_smooth235(n)) n++;
    return n;
}

void kri_nufft_deapod(const kri_nufft_kernel *k, int64_t N, int64_t n, double *D)
{
    for (int64_t i = 0; i < N; i++)
        D[i] = 1.0 / kri_nufft_kernel_ft(k, (double)(i - N / 2) / (double)n);
}
