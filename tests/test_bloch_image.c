/* Whole sequences on the CPU simulator against closed forms and direct sums: the Ernst
 * steady state (ideal spoiling), the balanced SSFP steady state, the ADC sum of a uniform
 * object (a product of Dirichlet kernels), and gradient-echo and spin-echo k-space of the MR
 * Shepp-Logan phantom (with an off-resonance pattern) against a direct sum written here with
 * the exact longitudinal transient, plus the GRE image by kray's centred inverse FFT against
 * the expected T1/T2-weighted image. */
#include "internal.h"
#include "kray/sim.h"
#include "kt.h"

#include <complex.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const double GB = KR_GAMMA_BAR_HZ_PER_T;
static kr_ctx *g_ctx;

static kr_array *sim(const kr_seq *seq, const kr_iso *iso)
{
    kr_array *k = NULL;
    KT_OK(kr_sim(g_ctx, seq, iso, NULL, &k));
    return k;
}

static double complex kv(const kr_array *k, int64_t i)
{
    const float *f = k->data;
    return f[2 * i] + I * f[2 * i + 1];
}

static kr_iso *iso_one(double t1, double t2)
{
    kr_iso *iso = NULL;
    KT_OK(kr_iso_create(&iso, 1));
    iso->t1_ms[0] = (float)t1;
    iso->t2_ms[0] = (float)t2;
    iso->m0[0] = 1;
    kr_iso_equilibrium(iso);
    return iso;
}

static void test_ernst(void)
{
    const double t1 = 500, t2 = 50, tr = 20, te = 5, a = 30 * M_PI / 180;
    kr_seq_cart_opts o;
    kr_seq_cart_opts_default(&o);
    o.nx = 8;
    o.ny = 160;
    o.fov_x_mm = o.fov_y_mm = 200;
    o.te_ms = te;
    o.tr_ms = tr;
    o.flip_deg = 30;
    o.rf_dur_s = 10e-6;
    o.spoil = KR_SPOIL_IDEAL;
    kr_seq *s = NULL;
    KT_OK(kr_seq_gre(&s, &o));
    kr_iso *iso = iso_one(t1, t2);
    kr_array *k = sim(s, iso);
    const double e1 = exp(-tr / t1);
    const double want = sin(a) * (1 - e1) / (1 - cos(a) * e1) * exp(-te / t2);
    double complex got = kv(k, 8 * 159 + 4);
    printf("  Ernst: %.8f, expected %.8f\n", cimag(got), want);
    KT_NEAR(creal(got), 0.0, 1e-6);
    KT_NEAR(cimag(got), want, 2e-5 * want);
    /* the first line: fully relaxed, sin(a) exp(-te/t2) */
    KT_NEAR(cimag(kv(k, 4)), sin(a) * exp(-te / t2), 2e-5);
    kr_array_destroy(k);
    kr_iso_destroy(iso);
    kr_seq_destroy(s);
}

static void test_bssfp(void)
{
    const double t1 = 800, t2 = 100, tr = 5e-3, a = 60.0, dur = 1e-6;
    const int n = 2000;
    kr_seq *s = NULL;
    KT_OK(kr_seq_create(&s, NULL));
    for (int j = 0; j < n; j++) {
        kr_seq_block b;
        kr_seq_block_init(&b);
        b.start_s = j * tr;
        b.duration_s = dur;
        b.rf.n = 1;
        b.rf.dt_s = dur;
        b.rf.amp_uT = a / 360.0 / (GB * dur) * 1e6;
        b.rf.phase_rad = (j % 2) ? M_PI : 0.0;
        KT_OK(kr_seq_add_block(s, &b));
        kr_seq_block r;
        kr_seq_block_init(&r);
        r.duration_s = tr - dur;
        r.adc.n = 1;
        r.adc.dwell_s = 1e-6; /* sample at TR/2 from the pulse centre */
        r.adc.delay_s = 0.5 * tr - 0.5 * dur - 0.5e-6;
        r.adc.phase_rad = b.rf.phase_rad;
        KT_OK(kr_seq_add_block(s, &r));
    }
    kr_iso *iso = iso_one(t1, t2);
    kr_array *k = sim(s, iso);
    const double e1 = exp(-tr * 1e3 / t1), e2 = exp(-tr * 1e3 / t2), ar = a * M_PI / 180;
    const double want = sin(ar) * (1 - e1) * sqrt(e2) / (1 - (e1 - e2) * cos(ar) - e1 * e2);
    printf("  bSSFP: %.8f, expected %.8f\n", cabs(kv(k, n - 1)), want);
    KT_NEAR(cabs(kv(k, n - 1)), want, 1e-4 * want);
    KT_NEAR(cabs(kv(k, n - 2)), want, 1e-4 * want);
    kr_array_destroy(k);
    kr_iso_destroy(iso);
    kr_seq_destroy(s);
}

/* Trapezoid area from its start to t (rise = fall). */
static double trap_area(double amp, double rise, double flat, double t)
{
    if (t <= 0) return 0;
    if (t < rise) return 0.5 * amp * t * t / rise;
    if (t < rise + flat) return 0.5 * amp * rise + amp * (t - rise);
    double u = 2 * rise + flat - t;
    if (u <= 0) return amp * (rise + flat);
    return amp * (rise + flat) - 0.5 * amp * u * u / rise;
}

static void test_uniform_object(void)
{
    const int N = 8;
    const double dx = 3.0;
    kr_iso *iso = NULL;
    KT_OK(kr_iso_create(&iso, N * N));
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            int q = i + N * j;
            iso->x_mm[q] = (float)((i - N / 2) * dx);
            iso->y_mm[q] = (float)((j - N / 2) * dx);
            iso->t1_ms[q] = iso->t2_ms[q] = 1e12f;
            iso->m0[q] = 1;
            iso->mx[q] = 1; /* transverse from the start */
        }
    /* prephaser (x: -6 mT/m, y: 4 mT/m), then a readout at 5 mT/m with 40 samples */
    const double pr = 100e-6, pf = 300e-6, rr = 100e-6, rf = 800e-6, dw = 20e-6;
    kr_seq *s = NULL;
    KT_OK(kr_seq_create(&s, NULL));
    kr_seq_block b;
    double tx[4], gx[4], ty[4], gy[4];
    kr_seq_block_init(&b);
    b.duration_s = 2 * pr + pf;
    kr_seq_trap(&b.grad[0], tx, gx, 0, -6, pr, pf, pr);
    kr_seq_trap(&b.grad[1], ty, gy, 0, 4, pr, pf, pr);
    KT_OK(kr_seq_add_block(s, &b));
    kr_seq_block_init(&b);
    b.duration_s = 2 * rr + rf;
    kr_seq_trap(&b.grad[0], tx, gx, 0, 5, rr, rf, rr);
    b.adc.n = 50;
    b.adc.dwell_s = dw;
    KT_OK(kr_seq_add_block(s, &b));
    kr_array *k = sim(s, iso);
    double worst = 0;
    for (int m = 0; m < 50; m++) {
        double t = (m + 0.5) * dw;
        double ax = -6 * (pr + pf) + trap_area(5, rr, rf, t), ay = 4 * (pr + pf);
        double kxm = GB * 1e-3 * ax * 1e-3, kym = GB * 1e-3 * ay * 1e-3; /* cycles per mm */
        double complex dxs = 0, dys = 0;
        for (int i = 0; i < N; i++) {
            dxs += cexp(-2 * M_PI * I * kxm * (i - N / 2) * dx);
            dys += cexp(-2 * M_PI * I * kym * (i - N / 2) * dx);
        }
        worst = fmax(worst, cabs(kv(k, m) - dxs * dys));
    }
    printf("  uniform object: max error %.3g of %d\n", worst, N * N);
    KT_LE(worst, 2e-5 * N * N);
    kr_array_destroy(k);
    kr_iso_destroy(iso);
    kr_seq_destroy(s);
}

/* Build the phantom object on the FFT grid of n x n, voxel dx. */
static kr_iso *phantom(int n, double dx, double sine_hz)
{
    kr_array *tis = NULL;
    KT_OK(kr_phantom_mr_2d_grid(&tis, KR_GRID_FFT, n, n, 1, 1.5));
    kr_iso_opts o;
    kr_iso_opts_default(&o);
    o.voxel_mm[0] = o.voxel_mm[1] = dx;
    o.sine_amp_hz = sine_hz;
    o.sine_cycles = 1;
    kr_iso *iso = NULL;
    KT_OK(kr_iso_from_tissue(&iso, tis, NULL, &o));
    kr_array_destroy(tis);
    return iso;
}

/* Direct k-space sum: transverse weight w[v] of voxel v in line j (given), decay from the
 * excitation, off-resonance phase from t_ref. */
static double complex *direct(const kr_iso *iso, int n, double fov, double dwell, double te,
                              const double *mz_line, int spin_echo)
{
    double complex *ref = calloc((size_t)n * n, sizeof *ref);
    for (int j = 0; j < n; j++)
        for (int m = 0; m < n; m++) {
            double t = (te + (m - n / 2) * dwell) * 1e3; /* ms */
            double kx = (m - n / 2) / fov, ky = (j - n / 2) / fov;
            double complex acc = 0;
            for (int64_t v = 0; v < iso->n; v++) {
                double tph = spin_echo ? t - te * 1e3 : t;
                double complex w = I * mz_line[(size_t)j * iso->n + v] * exp(-t / iso->t2_ms[v]) *
                                   cexp(-2 * M_PI * I * iso->df_hz[v] * tph * 1e-3);
                acc += w * cexp(-2 * M_PI * I * (kx * iso->x_mm[v] + ky * iso->y_mm[v]));
            }
            ref[m + n * j] = acc;
        }
    return ref;
}

static void compare(const kr_array *k, const double complex *ref, int64_t ns, double rel)
{
    double maxref = 0, maxerr = 0;
    for (int64_t i = 0; i < ns; i++) {
        maxref = fmax(maxref, cabs(ref[i]));
        maxerr = fmax(maxerr, cabs(kv(k, i) - ref[i]));
    }
    printf("  k-space vs direct sum: max error %.3g of max %.3g\n", maxerr, maxref);
    KT_LE(maxerr, rel * maxref);
}

static void test_gre_phantom(void)
{
    const int n = 24;
    const double dx = 4.0, fov = n * dx, a = 30 * M_PI / 180, tr = 15, te = 3;
    kr_iso *iso = phantom(n, dx, 20.0);
    kr_seq_cart_opts o;
    kr_seq_cart_opts_default(&o);
    o.nx = o.ny = n;
    o.fov_x_mm = o.fov_y_mm = fov;
    o.te_ms = te;
    o.tr_ms = tr;
    o.flip_deg = 30;
    o.rf_dur_s = 10e-6;
    o.bw_hz_px = 4000;
    o.spoil = KR_SPOIL_IDEAL;
    kr_seq *s = NULL;
    KT_OK(kr_seq_gre(&s, &o));
    kr_array *k = sim(s, iso);
    /* exact transient of Mz before each excitation (ideal spoiling) */
    double *mzl = malloc(sizeof(double) * n * iso->n);
    for (int64_t v = 0; v < iso->n; v++) {
        double mz = iso->m0[v], e1 = exp(-tr / iso->t1_ms[v]);
        for (int j = 0; j < n; j++) {
            mzl[(size_t)j * iso->n + v] = sin(a) * mz;
            mz = mz * cos(a) * e1 + iso->m0[v] * (1 - e1);
        }
    }
    double dwell = 1.0 / (o.bw_hz_px * n);
    double complex *ref = direct(iso, n, fov, dwell, te * 1e-3, mzl, 0);
    compare(k, ref, n * n, 5e-5);
    free(ref);
    free(mzl);
    kr_array_destroy(k);
    kr_seq_destroy(s);
    kr_iso_destroy(iso);
    /* steady state image by kray's centred inverse FFT, without off-resonance */
    iso = phantom(n, dx, 0.0);
    o.ndummy = 300;
    KT_OK(kr_seq_gre(&s, &o));
    k = sim(s, iso);
    int64_t d2[2] = {n, n};
    kr_array *img = NULL;
    KT_OK(kr_array_create(&img, KR_C64, 2, d2, KR_HOST, NULL));
    kr_array kview; /* [nx * ny, 1] -> [nx, ny] */
    KT_OK(kr_array_wrap(&kview, KR_C64, 2, d2, k->data, KR_HOST));
    KT_OK(kr_fft(NULL, &kview, img, 0x3, KR_FFT_BACKWARD, KR_FFT_CENTERED));
    double maxerr = 0, maxv = 0;
    for (int64_t v = 0; v < iso->n; v++) {
        double complex im = kv(img, iso->voxel[v]) / ((double)n * n);
        double e1 = exp(-tr / iso->t1_ms[v]);
        double want = iso->m0[v] * sin(a) * (1 - e1) / (1 - cos(a) * e1) * exp(-te / iso->t2_ms[v]);
        maxerr = fmax(maxerr, cabs(im - I * want));
        maxv = fmax(maxv, want);
    }
    /* and nothing outside the object */
    double outside = 0;
    for (int64_t p = 0; p < n * n; p++) {
        int inside = 0;
        for (int64_t v = 0; v < iso->n && !inside; v++)
            inside = iso->voxel[v] == p;
        if (!inside) outside = fmax(outside, cabs(kv(img, p)) / ((double)n * n));
    }
    printf("  GRE image vs Ernst: max error %.3g of max %.3g, outside %.3g\n", maxerr, maxv,
           outside);
    KT_LE(outside, 2e-3 * maxv);
    kr_array_destroy(img);
    KT_LE(maxerr, 2e-3 * maxv); /* T2 decay across the 250 us readout blurs (measured 6e-4) */
    kr_array_destroy(k);
    kr_seq_destroy(s);
    kr_iso_destroy(iso);
}

static void test_se_phantom(void)
{
    const int n = 24;
    const double dx = 4.0, fov = n * dx, tr = 200, te = 20;
    kr_iso *iso = phantom(n, dx, 20.0);
    kr_seq_cart_opts o;
    kr_seq_cart_opts_default(&o);
    o.nx = o.ny = n;
    o.fov_x_mm = o.fov_y_mm = fov;
    o.te_ms = te;
    o.tr_ms = tr;
    o.rf_dur_s = 1e-6; /* hard-pulse isodelay effects with off-resonance stay < 2e-5 */
    o.bw_hz_px = 2000;
    kr_seq *s = NULL;
    KT_OK(kr_seq_se(&s, &o));
    kr_array *k = sim(s, iso);
    double *mzl = malloc(sizeof(double) * n * iso->n);
    for (int64_t v = 0; v < iso->n; v++) {
        double m0 = iso->m0[v], mz = m0, t1 = iso->t1_ms[v];
        double ea = exp(-0.5 * te / t1), eb = exp(-(tr - 0.5 * te) / t1);
        for (int j = 0; j < n; j++) {
            mzl[(size_t)j * iso->n + v] = mz;
            double after180 = -m0 * (1 - ea);
            mz = after180 * eb + m0 * (1 - eb);
        }
    }
    double dwell = 1.0 / (o.bw_hz_px * n);
    double complex *ref = direct(iso, n, fov, dwell, te * 1e-3, mzl, 1);
    compare(k, ref, n * n, 5e-5);
    free(ref);
    free(mzl);
    kr_array_destroy(k);
    kr_seq_destroy(s);
    kr_iso_destroy(iso);
}

int main(void)
{
    if (kr_ctx_create(&g_ctx, KR_BACKEND_CPU) != KR_OK) return 1;
    KT_RUN(test_ernst);
    KT_RUN(test_bssfp);
    KT_RUN(test_uniform_object);
    KT_RUN(test_gre_phantom);
    KT_RUN(test_se_phantom);
    kr_ctx_destroy(g_ctx);
    return kt_finish();
}
