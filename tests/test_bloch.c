/* Bloch simulator (CPU) against closed forms and an independent ODE integrator: free
 * precession with ramped gradients, T1 recovery, T2 decay, hard pulses on and off resonance
 * (and with a gradient), relaxation during RF (Strang splitting error and its convergence),
 * spin-echo refocusing of an off-resonance spread, multi-coil weighting, serial == threaded
 * bit for bit, and bad inputs with their exact statuses. */
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
static kr_ctx *g_ser;
static const double HUGE_T = 1e12; /* ms: no relaxation */

static kr_iso *iso_one(double x, double y, double z, double df, double t1, double t2, double mx,
                       double my, double mz)
{
    kr_iso *iso = NULL;
    KT_OK(kr_iso_create(&iso, 1));
    if (!iso) return NULL;
    iso->x_mm[0] = (float)x;
    iso->y_mm[0] = (float)y;
    iso->z_mm[0] = (float)z;
    iso->df_hz[0] = (float)df;
    iso->t1_ms[0] = (float)t1;
    iso->t2_ms[0] = (float)t2;
    iso->m0[0] = 1.0f;
    iso->mx[0] = (float)mx;
    iso->my[0] = (float)my;
    iso->mz[0] = (float)mz;
    return iso;
}

/* Simulate on ctx; returns the k-space (host c64 [ns, ncoils]) or NULL when ns == 0; the final
 * state goes to iso's mx, my, mz when state != 0 (after the initial state was used). */
static kr_array *sim(kr_ctx *ctx, const kr_seq *seq, kr_iso *iso, const kr_array *sens, int state,
                     const kr_sim_opts *opts)
{
    kr_sim_plan *p = NULL;
    KT_OK(kr_sim_plan_create(&p, ctx, seq, opts));
    if (!p) return NULL;
    KT_OK(kr_sim_set_object(p, iso, sens));
    kr_sim_info info;
    KT_OK(kr_sim_get_info(p, &info));
    kr_array *k = NULL;
    if (info.nsamples > 0) {
        int64_t dims[2] = {info.nsamples, info.ncoils};
        KT_OK(kr_array_create(&k, KR_C64, 2, dims, KR_HOST, NULL));
        KT_OK(kr_sim_execute(p, k));
    } else {
        KT_OK(kr_sim_execute(p, NULL));
    }
    if (state) KT_OK(kr_sim_get_state(p, iso));
    kr_sim_plan_destroy(p);
    return k;
}

static double complex kv(const kr_array *k, int64_t i)
{
    const float *f = k->data;
    return f[2 * i] + I * f[2 * i + 1];
}

static void add_delay(kr_seq *s, double dur)
{
    kr_seq_block b;
    kr_seq_block_init(&b);
    b.duration_s = dur;
    KT_OK(kr_seq_add_block(s, &b));
}

static void add_hard(kr_seq *s, double flip_deg, double phase, double dur, double gx)
{
    const double ramp = 100e-6;
    double tu[2] = {0, ramp}, gu[2] = {0, gx}, td[2] = {0, ramp}, gd[2] = {gx, 0};
    kr_seq_block b;
    if (gx != 0) { /* ramp up to gx, pulse on the flat top, ramp down */
        kr_seq_block_init(&b);
        b.duration_s = ramp;
        b.grad[0].n = 2;
        b.grad[0].t_s = tu;
        b.grad[0].g_mT_m = gu;
        KT_OK(kr_seq_add_block(s, &b));
    }
    kr_seq_block_init(&b);
    b.duration_s = dur;
    b.rf.n = 1;
    b.rf.dt_s = dur;
    b.rf.amp_uT = flip_deg / 360.0 / (GB * dur) * 1e6;
    b.rf.phase_rad = phase;
    double t[2] = {0, dur}, g[2] = {gx, gx};
    if (gx != 0) {
        b.grad[0].n = 2;
        b.grad[0].t_s = t;
        b.grad[0].g_mT_m = g;
    }
    KT_OK(kr_seq_add_block(s, &b));
    if (gx != 0) {
        kr_seq_block_init(&b);
        b.duration_s = ramp;
        b.grad[0].n = 2;
        b.grad[0].t_s = td;
        b.grad[0].g_mT_m = gd;
        KT_OK(kr_seq_add_block(s, &b));
    }
}

/* Clockwise rotation of (m[0], m[1]) about z by 2 pi cyc. */
static void zrot(double m[3], double cyc)
{
    double c = cos(2 * M_PI * cyc), s = sin(2 * M_PI * cyc);
    double x = m[0] * c + m[1] * s, y = m[1] * c - m[0] * s;
    m[0] = x;
    m[1] = y;
}

/* ---- independent reference: RK4 of dM/dt = gamma M x B - relaxation, in double ------------ */
static void bloch_rhs(const double m[3], const double w[3], double r1, double r2, double m0,
                      double d[3])
{
    d[0] = m[1] * w[2] - m[2] * w[1] - r2 * m[0];
    d[1] = m[2] * w[0] - m[0] * w[2] - r2 * m[1];
    d[2] = m[0] * w[1] - m[1] * w[0] - r1 * (m[2] - m0);
}

/* Constant field w (rad/s) for time T in nstep RK4 steps. */
static void rk4(double m[3], const double w[3], double r1, double r2, double m0, double T,
                int nstep)
{
    double h = T / nstep;
    for (int s = 0; s < nstep; s++) {
        double k1[3], k2[3], k3[3], k4[3], t[3];
        bloch_rhs(m, w, r1, r2, m0, k1);
        for (int i = 0; i < 3; i++)
            t[i] = m[i] + 0.5 * h * k1[i];
        bloch_rhs(t, w, r1, r2, m0, k2);
        for (int i = 0; i < 3; i++)
            t[i] = m[i] + 0.5 * h * k2[i];
        bloch_rhs(t, w, r1, r2, m0, k3);
        for (int i = 0; i < 3; i++)
            t[i] = m[i] + h * k3[i];
        bloch_rhs(t, w, r1, r2, m0, k4);
        for (int i = 0; i < 3; i++)
            m[i] += h / 6.0 * (k1[i] + 2 * k2[i] + 2 * k3[i] + k4[i]);
    }
}

/* ---- tests ------------------------------------------------------------------------------- */
static void test_free_precession(void)
{
    /* a trapezoid on x (ramps 100 us, flat 1 ms, 8 mT/m) with 50 samples over the whole of it */
    const double x = 3.7, y = -2.0, df = 37.0, A = 8.0, rise = 100e-6, flat = 1e-3;
    kr_seq *s = NULL;
    KT_OK(kr_seq_create(&s, NULL));
    kr_seq_block b;
    kr_seq_block_init(&b);
    b.duration_s = 2 * rise + flat;
    double t[4], g[4];
    kr_seq_trap(&b.grad[0], t, g, 0, A, rise, flat, rise);
    double ty[2] = {0, 2 * rise + flat}, gy[2] = {0, -6.0}; /* a ramp on y that ends at -6 */
    b.grad[1].n = 2;
    b.grad[1].t_s = ty;
    b.grad[1].g_mT_m = gy;
    b.adc.n = 50;
    b.adc.delay_s = 0;
    b.adc.dwell_s = (2 * rise + flat) / 50;
    b.adc.phase_rad = 0.4;
    KT_OK(kr_seq_add_block(s, &b));
    /* bring y back to zero in a second block: continuity */
    kr_seq_block b2;
    kr_seq_block_init(&b2);
    b2.duration_s = 100e-6;
    double ty2[2] = {0, 100e-6}, gy2[2] = {-6.0, 0};
    b2.grad[1].n = 2;
    b2.grad[1].t_s = ty2;
    b2.grad[1].g_mT_m = gy2;
    KT_OK(kr_seq_add_block(s, &b2));
    kr_iso *iso = iso_one(x, y, 0, df, HUGE_T, HUGE_T, 0.6, -0.8, 0.0);
    kr_array *k = sim(g_ser, s, iso, NULL, 1, NULL);
    double maxerr = 0;
    for (int j = 0; j < 50; j++) {
        double tk = (j + 0.5) * b.adc.dwell_s;
        /* area of the trapezoid up to tk, and of the y ramp (mT/m s) */
        double ax;
        if (tk < rise)
            ax = 0.5 * A * tk * tk / rise;
        else if (tk < rise + flat)
            ax = 0.5 * A * rise + A * (tk - rise);
        else {
            double u = 2 * rise + flat - tk;
            ax = A * (rise + flat) - 0.5 * A * u * u / rise;
        }
        double ay = -6.0 * 0.5 * tk * tk / (2 * rise + flat);
        double cyc = GB * 1e-6 * (ax * x + ay * y) + df * tk;
        double complex want = (0.6 - 0.8 * I) * cexp(-2 * M_PI * I * cyc) * cexp(-0.4 * I);
        double e = cabs(kv(k, j) - want);
        if (e > maxerr) maxerr = e;
    }
    printf("  free precession: max sample error %.3g\n", maxerr);
    KT_LE(maxerr, 2e-6);
    /* final state after both blocks: y area total -6 (T/2) - 6 (100us)/2 */
    double T = 2 * rise + flat + 100e-6;
    double cyc =
        GB * 1e-6 *
            (A * (rise + flat) * x + (-6.0 * 0.5 * (2 * rise + flat) - 6.0 * 0.5 * 100e-6) * y) +
        df * T;
    double complex m = (0.6 - 0.8 * I) * cexp(-2 * M_PI * I * cyc);
    KT_NEAR(iso->mx[0], creal(m), 2e-6);
    KT_NEAR(iso->my[0], cimag(m), 2e-6);
    kr_array_destroy(k);
    kr_iso_destroy(iso);
    kr_seq_destroy(s);
}

static void test_t1_recovery(void)
{
    kr_seq *s = NULL;
    KT_OK(kr_seq_create(&s, NULL));
    const double d[4] = {0.1, 0.033, 0.25, 0.117}; /* 500 ms in uneven pieces */
    for (int i = 0; i < 4; i++)
        add_delay(s, d[i]);
    kr_iso *iso = iso_one(1, 2, 3, 50.0, 800.0, 60.0, 0.3, 0.0, -1.0);
    kr_array *k = sim(g_ser, s, iso, NULL, 1, NULL);
    KT_CHECK(k == NULL);
    KT_NEAR(iso->mz[0], 1.0 - 2.0 * exp(-500.0 / 800.0), 1e-6);
    KT_NEAR(hypot(iso->mx[0], iso->my[0]), 0.3 * exp(-500.0 / 60.0), 1e-7);
    kr_iso_destroy(iso);
    kr_seq_destroy(s);
}

static void test_t2_decay(void)
{
    kr_seq *s = NULL;
    KT_OK(kr_seq_create(&s, NULL));
    kr_seq_block b;
    kr_seq_block_init(&b);
    b.duration_s = 0.1;
    b.adc.n = 100;
    b.adc.dwell_s = 1e-3;
    KT_OK(kr_seq_add_block(s, &b));
    kr_iso *iso = iso_one(0, 0, 0, 0.0, 1000.0, 40.0, 0.6, 0.8, 0.0);
    kr_array *k = sim(g_ser, s, iso, NULL, 1, NULL);
    double maxerr = 0;
    for (int j = 0; j < 100; j++) {
        double tk = (j + 0.5) * 1e-3;
        double complex want = (0.6 + 0.8 * I) * exp(-tk / 40e-3);
        maxerr = fmax(maxerr, cabs(kv(k, j) - want));
    }
    printf("  T2 decay over a 100-sample run: max error %.3g\n", maxerr);
    KT_LE(maxerr, 5e-6);
    KT_NEAR(iso->mz[0], 1.0 - exp(-100.0 / 1000.0), 1e-6);
    KT_NEAR(iso->mx[0], 0.6 * exp(-100.0 / 40.0), 1e-7);
    kr_array_destroy(k);
    kr_iso_destroy(iso);
    kr_seq_destroy(s);
}

static void test_hard_pulse_on_resonance(void)
{
    const double flips[5] = {30, 90, 135, 180, 270}, phis[3] = {0.0, 0.3, -2.0};
    double maxerr = 0;
    for (int f = 0; f < 5; f++)
        for (int p = 0; p < 3; p++) {
            kr_seq *s = NULL;
            KT_OK(kr_seq_create(&s, NULL));
            add_hard(s, flips[f], phis[p], 100e-6, 0);
            kr_iso *iso = iso_one(0, 0, 0, 0, HUGE_T, HUGE_T, 0, 0, 1);
            kr_array_destroy(sim(g_ser, s, iso, NULL, 1, NULL));
            double a = flips[f] * M_PI / 180;
            /* Mxy = i sin(a) exp(i phi), Mz = cos(a) */
            double complex want = I * sin(a) * cexp(I * phis[p]);
            maxerr = fmax(maxerr, fabs(iso->mx[0] - creal(want)));
            maxerr = fmax(maxerr, fabs(iso->my[0] - cimag(want)));
            maxerr = fmax(maxerr, fabs(iso->mz[0] - cos(a)));
            kr_iso_destroy(iso);
            kr_seq_destroy(s);
        }
    printf("  hard pulses on resonance: max error %.3g\n", maxerr);
    KT_LE(maxerr, 1e-6);
}

static void test_hard_pulse_off_resonance(void)
{
    /* 90 degree nominal, 200 us, 1.1 kHz off resonance, then the same with a gradient */
    const double dur = 200e-6, phi = 0.7;
    const double b1 = 90.0 / 360.0 / (GB * dur); /* tesla */
    struct {
        double df, x, gx;
    } cases[3] = {{1100.0, 0, 0}, {-400.0, 0, 0}, {150.0, 4.0, 12.0}};
    for (int c = 0; c < 3; c++) {
        kr_seq *s = NULL;
        KT_OK(kr_seq_create(&s, NULL));
        add_hard(s, 90.0, phi, dur, cases[c].gx);
        kr_iso *iso = iso_one(cases[c].x, 0, 0, cases[c].df, HUGE_T, HUGE_T, 0.2, 0.1, 0.9);
        kr_array_destroy(sim(g_ser, s, iso, NULL, 1, NULL));
        double w[3] = {2 * M_PI * GB * b1 * cos(phi), 2 * M_PI * GB * b1 * sin(phi),
                       2 * M_PI * (cases[c].df + GB * cases[c].gx * 1e-3 * cases[c].x * 1e-3)};
        double m[3] = {0.2, 0.1, 0.9};
        /* the ramps (100 us each, none without a gradient) are exact z rotations */
        double ramp_cyc =
            cases[c].gx != 0
                ? GB * cases[c].gx * 1e-3 * 0.5 * 100e-6 * cases[c].x * 1e-3 + cases[c].df * 100e-6
                : 0.0;
        zrot(m, ramp_cyc);
        rk4(m, w, 0, 0, 1, dur, 20000);
        zrot(m, ramp_cyc);
        printf("  off resonance case %d: error %.3g\n", c,
               sqrt(pow(iso->mx[0] - m[0], 2) + pow(iso->my[0] - m[1], 2) +
                    pow(iso->mz[0] - m[2], 2)));
        KT_NEAR(iso->mx[0], m[0], 2e-6);
        KT_NEAR(iso->my[0], m[1], 2e-6);
        KT_NEAR(iso->mz[0], m[2], 2e-6);
        kr_iso_destroy(iso);
        kr_seq_destroy(s);
    }
}

/* Relaxation during a long pulse: one raster sample (Strang splitting once) vs the same pulse
 * subdivided by rf_max_dt, against RK4 with relaxation. */
static void test_rf_relaxation_splitting(void)
{
    const double dur = 1e-3, t1 = 100.0, t2 = 10.0;
    const double b1 = 90.0 / 360.0 / (GB * dur);
    double w[3] = {2 * M_PI * GB * b1, 0, 2 * M_PI * 30.0};
    double ref[3] = {0, 0, 1};
    rk4(ref, w, 1000.0 / t1, 1000.0 / t2, 1.0, dur, 40000);
    double err[3];
    const double maxdt[3] = {0.0, 100e-6, 10e-6};
    for (int q = 0; q < 3; q++) {
        kr_seq *s = NULL;
        KT_OK(kr_seq_create(&s, NULL));
        add_hard(s, 90.0, 0.0, dur, 0);
        kr_iso *iso = iso_one(0, 0, 0, 30.0, t1, t2, 0, 0, 1);
        kr_sim_opts o;
        kr_sim_opts_default(&o);
        o.rf_max_dt_s = maxdt[q];
        kr_array_destroy(sim(g_ser, s, iso, NULL, 1, &o));
        err[q] = sqrt(pow(iso->mx[0] - ref[0], 2) + pow(iso->my[0] - ref[1], 2) +
                      pow(iso->mz[0] - ref[2], 2));
        kr_iso_destroy(iso);
        kr_seq_destroy(s);
    }
    printf("  relaxation during a 1 ms pulse: error %.3g (one step), %.3g (100 us), %.3g (10 us)\n",
           err[0], err[1], err[2]);
    /* the header's estimate for one step: theta^2 dt |R2 - R1| / 8 = 0.028 (measured 0.029) */
    KT_LE(err[0], 0.035);
    KT_GE(err[0], 1e-3); /* the splitting error is real, not hidden */
    /* second order: 10x finer -> ~100x smaller (global error O(dt^2)) */
    KT_LE(err[1], err[0] / 50);
    KT_LE(err[2], 2e-5);
}

static void test_spin_echo_refocusing(void)
{
    const int n = 200;
    const double te = 40e-3, t2 = 80.0, dur = 1e-6;
    kr_iso *iso = NULL;
    KT_OK(kr_iso_create(&iso, n));
    for (int i = 0; i < n; i++) {
        iso->df_hz[i] = (float)(-100.0 + 200.0 * (i + 0.5) / n);
        iso->t1_ms[i] = 1000.0f;
        iso->t2_ms[i] = (float)t2;
        iso->m0[i] = 1.0f / n;
    }
    KT_OK(kr_iso_equilibrium(iso));
    kr_seq *s = NULL;
    KT_OK(kr_seq_create(&s, NULL));
    add_hard(s, 90.0, 0.0, dur, 0);
    add_delay(s, te / 2 - dur);
    add_hard(s, 180.0, M_PI / 2, dur, 0);
    /* samples at 0.5 us + TE - 5 ms, ..., one exactly at 0.5 us + TE: dwell 5 ms, 3 samples */
    kr_seq_block b;
    kr_seq_block_init(&b);
    b.duration_s = 30e-3;
    b.adc.n = 3;
    b.adc.dwell_s = 5e-3;
    /* block starts at 1.5 us + TE/2 - 1 us... sample 1 at delay + 1.5 dwell */
    double blk_start = te / 2 + dur;
    b.adc.delay_s = 0.5 * dur + te - blk_start - 1.5 * 5e-3;
    KT_OK(kr_seq_add_block(s, &b));
    kr_array *k = sim(g_ser, s, iso, NULL, 0, NULL);
    double complex echo = kv(k, 1);
    printf("  spin echo: %.7f%+.7fi, expected %.7fi\n", creal(echo), cimag(echo),
           exp(-te * 1e3 / t2));
    KT_NEAR(creal(echo), 0.0, 2e-5);
    KT_NEAR(cimag(echo), exp(-te * 1e3 / t2), 2e-5);
    /* 5 ms off the echo: the uniform 200 Hz spread has dephased to sinc(1) = 0 */
    KT_LE(cabs(kv(k, 0)), 2e-3);
    KT_LE(cabs(kv(k, 2)), 2e-3);
    kr_array_destroy(k);
    kr_iso_destroy(iso);
    kr_seq_destroy(s);
}

/* Coil weighting is linear: coil signals == sum_i S_ic * (single-isochromat signals). */
static void test_coil_weighting(void)
{
    const int n = 5, nc = 3;
    kr_seq_cart_opts o;
    kr_seq_cart_opts_default(&o);
    o.nx = 8;
    o.ny = 4;
    o.fov_x_mm = o.fov_y_mm = 64;
    o.te_ms = 6;
    o.tr_ms = 20;
    o.flip_deg = 40;
    kr_seq *s = NULL;
    KT_OK(kr_seq_gre(&s, &o));
    kr_iso *iso = NULL;
    KT_OK(kr_iso_create(&iso, n));
    int64_t dims[2] = {n, nc};
    kr_array *sens = NULL;
    KT_OK(kr_array_create(&sens, KR_C64, 2, dims, KR_HOST, NULL));
    for (int i = 0; i < n; i++) {
        iso->x_mm[i] = (float)(5.0 * kri_rand_sym(1, i));
        iso->y_mm[i] = (float)(5.0 * kri_rand_sym(2, i));
        iso->df_hz[i] = (float)(20.0 * kri_rand_sym(3, i));
        iso->t1_ms[i] = (float)(500 + 300 * kri_rand_sym(4, i));
        iso->t2_ms[i] = (float)(60 + 30 * kri_rand_sym(5, i));
        iso->m0[i] = (float)(0.5 + 0.4 * kri_rand_sym(6, i));
        for (int c = 0; c < nc; c++) {
            ((float *)sens->data)[2 * (i + n * c)] = (float)kri_rand_sym(7, i + n * c);
            ((float *)sens->data)[2 * (i + n * c) + 1] = (float)kri_rand_sym(8, i + n * c);
        }
    }
    KT_OK(kr_iso_equilibrium(iso));
    kr_array *k = sim(g_ser, s, iso, sens, 0, NULL);
    const int64_t ns = 32;
    double complex ref[3][32];
    memset(ref, 0, sizeof ref);
    for (int i = 0; i < n; i++) {
        kr_iso *one = iso_one(iso->x_mm[i], iso->y_mm[i], 0, iso->df_hz[i], iso->t1_ms[i],
                              iso->t2_ms[i], 0, 0, iso->m0[i]);
        one->m0[0] = iso->m0[i];
        kr_array *k1 = sim(g_ser, s, one, NULL, 0, NULL);
        for (int c = 0; c < nc; c++) {
            const float *w = (const float *)sens->data + 2 * (i + n * c);
            for (int64_t j = 0; j < ns; j++)
                ref[c][j] += (w[0] + I * w[1]) * kv(k1, j);
        }
        kr_array_destroy(k1);
        kr_iso_destroy(one);
    }
    double maxerr = 0;
    for (int c = 0; c < nc; c++)
        for (int64_t j = 0; j < ns; j++)
            maxerr = fmax(maxerr, cabs(kv(k, j + ns * c) - ref[c][j]));
    printf("  coil weighting: max error %.3g\n", maxerr);
    KT_LE(maxerr, 2e-6);
    kr_array_destroy(k);
    kr_array_destroy(sens);
    kr_iso_destroy(iso);
    kr_seq_destroy(s);
}

static void test_serial_equals_threaded(void)
{
    const int n = 3000, nc = 2;
    kr_seq_cart_opts o;
    kr_seq_cart_opts_default(&o);
    o.nx = 16;
    o.ny = 8;
    o.fov_x_mm = o.fov_y_mm = 100;
    o.te_ms = 5;
    o.tr_ms = 12;
    o.flip_deg = 25;
    kr_seq *s = NULL;
    KT_OK(kr_seq_gre(&s, &o));
    kr_iso *iso = NULL;
    KT_OK(kr_iso_create(&iso, n));
    int64_t dims[2] = {n, nc};
    kr_array *sens = NULL;
    KT_OK(kr_array_create(&sens, KR_C64, 2, dims, KR_HOST, NULL));
    for (int i = 0; i < n; i++) {
        iso->x_mm[i] = (float)(50.0 * kri_rand_sym(11, i));
        iso->y_mm[i] = (float)(50.0 * kri_rand_sym(12, i));
        iso->df_hz[i] = (float)(30.0 * kri_rand_sym(13, i));
        iso->t1_ms[i] = (float)(700 + 500 * kri_rand_sym(14, i));
        iso->t2_ms[i] = (float)(80 + 60 * kri_rand_sym(15, i));
        iso->m0[i] = (float)(0.5 + 0.5 * kri_rand_sym(16, i));
        for (int j = 0; j < 2 * nc; j++)
            ((float *)sens->data)[2 * i + 2 * n * (j / 2) + (j % 2)] =
                (float)kri_rand_sym(17, 4 * i + j);
    }
    KT_OK(kr_iso_equilibrium(iso));
    kr_array *ref = sim(g_ser, s, iso, sens, 0, NULL);
    for (int th = 2; th <= 3; th++) {
        kr_ctx *c = NULL;
        KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
        KT_OK(kr_ctx_set_threads(c, th));
        kr_array *k = sim(c, s, iso, sens, 0, NULL);
        KT_CHECK(k && ref && memcmp(k->data, ref->data, kr_array_bytes(ref)) == 0);
        kr_array_destroy(k);
        kr_ctx_destroy(c);
    }
    kr_array_destroy(ref);
    kr_array_destroy(sens);
    kr_iso_destroy(iso);
    kr_seq_destroy(s);
}

static void test_bad_inputs(void)
{
    kr_seq *s = NULL;
    KT_OK(kr_seq_create(&s, NULL));
    kr_sim_plan *p = NULL;
    KT_STATUS(kr_sim_plan_create(&p, g_ser, s, NULL), KR_ERR_INVALID_ARG); /* empty sequence */
    add_hard(s, 90, 0, 100e-6, 0);
    kr_seq_block b;
    kr_seq_block_init(&b);
    b.duration_s = 1e-3;
    b.adc.n = 4;
    b.adc.dwell_s = 1e-4;
    KT_OK(kr_seq_add_block(s, &b));
    KT_STATUS(kr_sim_plan_create(NULL, g_ser, s, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_sim_plan_create(&p, NULL, s, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_sim_plan_create(&p, g_ser, NULL, NULL), KR_ERR_INVALID_ARG);
    kr_sim_opts o;
    kr_sim_opts_default(&o);
    o.rf_max_dt_s = -1;
    KT_STATUS(kr_sim_plan_create(&p, g_ser, s, &o), KR_ERR_INVALID_ARG);
    KT_OK(kr_sim_plan_create(&p, g_ser, s, NULL));
    kr_array *k = NULL;
    int64_t d4[1] = {4}, d5[1] = {5};
    KT_OK(kr_array_create(&k, KR_C64, 1, d4, KR_HOST, NULL));
    KT_STATUS(kr_sim_execute(p, k), KR_ERR_INVALID_ARG); /* no object yet */
    KT_STATUS(kr_sim_set_object(p, NULL, NULL), KR_ERR_INVALID_ARG);
    kr_iso *iso = iso_one(0, 0, 0, 0, 0.0, 50, 0, 0, 1); /* T1 = 0 */
    KT_STATUS(kr_sim_set_object(p, iso, NULL), KR_ERR_INVALID_ARG);
    iso->t1_ms[0] = 100;
    iso->t2_ms[0] = -5;
    KT_STATUS(kr_sim_set_object(p, iso, NULL), KR_ERR_INVALID_ARG);
    iso->t2_ms[0] = NAN;
    KT_STATUS(kr_sim_set_object(p, iso, NULL), KR_ERR_INVALID_ARG);
    iso->t2_ms[0] = 50;
    iso->m0[0] = -1;
    KT_STATUS(kr_sim_set_object(p, iso, NULL), KR_ERR_INVALID_ARG);
    iso->m0[0] = 0; /* inert isochromat: T1/T2 not checked */
    iso->t1_ms[0] = 0;
    KT_OK(kr_sim_set_object(p, iso, NULL));
    iso->m0[0] = 1;
    iso->t1_ms[0] = 100;
    kr_array *sens = NULL;
    int64_t ds[2] = {2, 1};
    KT_OK(kr_array_create(&sens, KR_C64, 2, ds, KR_HOST, NULL));
    KT_STATUS(kr_sim_set_object(p, iso, sens), KR_ERR_DIM);
    kr_array *sensf = NULL;
    KT_OK(kr_array_create(&sensf, KR_F32, 1, d4, KR_HOST, NULL));
    KT_STATUS(kr_sim_set_object(p, iso, sensf), KR_ERR_DTYPE);
    KT_OK(kr_sim_set_object(p, iso, NULL));
    kr_array *k5 = NULL, *kf = NULL;
    KT_OK(kr_array_create(&k5, KR_C64, 1, d5, KR_HOST, NULL));
    KT_OK(kr_array_create(&kf, KR_F32, 1, d4, KR_HOST, NULL));
    KT_STATUS(kr_sim_execute(p, k5), KR_ERR_DIM);
    KT_STATUS(kr_sim_execute(p, kf), KR_ERR_DTYPE);
    KT_STATUS(kr_sim_execute(p, NULL), KR_ERR_INVALID_ARG);
    KT_OK(kr_sim_execute(p, k));
    kr_iso *two = NULL;
    KT_OK(kr_iso_create(&two, 2));
    KT_STATUS(kr_sim_get_state(p, two), KR_ERR_DIM);
    kr_iso *none = NULL;
    KT_STATUS(kr_iso_create(&none, 0), KR_ERR_INVALID_ARG);
    KT_CHECK(none == NULL);
    KT_STATUS(kr_sim(g_ser, s, iso, NULL, NULL), KR_ERR_INVALID_ARG);
    kr_sim_plan_destroy(p);
    kr_sim_plan_destroy(NULL);
    kr_iso_destroy(two);
    kr_iso_destroy(iso);
    kr_array_destroy(k);
    kr_array_destroy(k5);
    kr_array_destroy(kf);
    kr_array_destroy(sens);
    kr_array_destroy(sensf);
    kr_seq_destroy(s);
    if (!kri_have_cuda()) {
        kr_ctx *cg = NULL;
        KT_STATUS(kr_ctx_create(&cg, KR_BACKEND_CUDA), KR_ERR_NO_DEVICE);
    }
}

int main(void)
{
    if (kr_ctx_create(&g_ser, KR_BACKEND_CPU_SERIAL) != KR_OK) return 1;
    KT_RUN(test_free_precession);
    KT_RUN(test_t1_recovery);
    KT_RUN(test_t2_decay);
    KT_RUN(test_hard_pulse_on_resonance);
    KT_RUN(test_hard_pulse_off_resonance);
    KT_RUN(test_rf_relaxation_splitting);
    KT_RUN(test_spin_echo_refocusing);
    KT_RUN(test_coil_weighting);
    KT_RUN(test_serial_equals_threaded);
    KT_RUN(test_bad_inputs);
    kr_ctx_destroy(g_ser);
    return kt_finish();
}
