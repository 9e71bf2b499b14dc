/* Bloch simulator on CUDA: parity with the CPU backend (one coil with and without
 * sensitivities, several coil groups, isochromats per thread 1/2/4, fast and accurate math),
 * closed forms on the GPU (Ernst steady state, spin echo, T1 recovery without ADC), a sample
 * taken during an RF pulse, run-to-run bit identity, final-state parity and location errors.
 * Exits 77 without a usable CUDA device.
 *
 * Benchmark: KRAY_BENCH=1 ./test_gpu_bloch prints JSON lines (case, isochromats, intervals,
 * median time of 5 runs after a warm-up, isochromat-steps per second) for an SE-EPI of 256^2
 * with 2 x 2 isochromats per voxel and for a large GRE, sweeping isochromats per thread and
 * fast/accurate math. Times are kr_sim_execute with the object already on the device. */
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
static kr_ctx *g_cpu, *g_gpu;

static kr_iso *random_iso(int64_t n, double fov, uint64_t seed)
{
    kr_iso *iso = NULL;
    KT_OK(kr_iso_create(&iso, n));
    for (int64_t i = 0; i < n; i++) {
        iso->x_mm[i] = (float)(0.5 * fov * kri_rand_sym(seed, i));
        iso->y_mm[i] = (float)(0.5 * fov * kri_rand_sym(seed + 1, i));
        iso->z_mm[i] = (float)(2.0 * kri_rand_sym(seed + 2, i));
        iso->df_hz[i] = (float)(40.0 * kri_rand_sym(seed + 3, i));
        iso->t1_ms[i] = (float)(900 + 600 * kri_rand_sym(seed + 4, i));
        iso->t2_ms[i] = (float)(90 + 60 * kri_rand_sym(seed + 5, i));
        iso->m0[i] = (float)(0.6 + 0.4 * kri_rand_sym(seed + 6, i));
    }
    kr_iso_equilibrium(iso);
    return iso;
}

static kr_array *random_sens(int64_t n, int nc, uint64_t seed)
{
    int64_t d[2] = {n, nc};
    kr_array *s = NULL;
    KT_OK(kr_array_create(&s, KR_C64, 2, d, KR_HOST, NULL));
    float *f = s->data;
    for (int64_t i = 0; i < 2 * n * nc; i++)
        f[i] = (float)kri_rand_sym(seed, i);
    return s;
}

/* Simulate on ctx, return host k-space; state (if non-NULL) receives the final state. */
static kr_array *sim(kr_ctx *ctx, const kr_seq *seq, const kr_iso *iso, const kr_array *sens,
                     const kr_sim_opts *opts, kr_iso *state)
{
    kr_sim_plan *p = NULL;
    KT_OK(kr_sim_plan_create(&p, ctx, seq, opts));
    if (!p) return NULL;
    KT_OK(kr_sim_set_object(p, iso, sens));
    kr_sim_info info;
    KT_OK(kr_sim_get_info(p, &info));
    int64_t dims[2] = {info.nsamples, info.ncoils};
    kr_array *k = NULL, *kd = NULL;
    KT_OK(kr_array_create(&k, KR_C64, 2, dims, KR_HOST, NULL));
    const int dev = kr_ctx_backend(ctx) == KR_BACKEND_CUDA;
    if (dev) {
        KT_OK(kr_array_create(&kd, KR_C64, 2, dims, KR_DEVICE, ctx));
        KT_OK(kr_sim_execute(p, kd));
        KT_OK(kr_array_copy(k, kd, ctx));
    } else {
        KT_OK(kr_sim_execute(p, k));
    }
    if (state) KT_OK(kr_sim_get_state(p, state));
    kr_array_destroy(kd);
    kr_sim_plan_destroy(p);
    return k;
}

static double rel_diff(const kr_array *a, const kr_array *b)
{
    const float *x = a->data, *y = b->data;
    double mx = 0, me = 0;
    for (int64_t i = 0; i < kr_array_numel(a); i++) {
        mx = fmax(mx, hypot(y[2 * i], y[2 * i + 1]));
        me = fmax(me, hypot(x[2 * i] - y[2 * i], x[2 * i + 1] - y[2 * i + 1]));
    }
    return mx > 0 ? me / mx : me;
}

static kr_seq *gre(int64_t nx, int64_t ny, double fov, kr_spoil sp)
{
    kr_seq_cart_opts o;
    kr_seq_cart_opts_default(&o);
    o.nx = nx;
    o.ny = ny;
    o.fov_x_mm = o.fov_y_mm = fov;
    o.te_ms = 4;
    o.tr_ms = 10;
    o.flip_deg = 25;
    o.spoil = sp;
    kr_seq *s = NULL;
    KT_OK(kr_seq_gre(&s, &o));
    return s;
}

static void test_parity_one_coil(void)
{
    kr_seq *s = gre(32, 64, 120, KR_SPOIL_RF_GRADIENT); /* > 256 steps: several chunks */
    kr_iso *iso = random_iso(3000, 120, 1);
    kr_array *ref = sim(g_cpu, s, iso, NULL, NULL, NULL);
    kr_sim_opts o;
    kr_sim_opts_default(&o);
    for (int fast = 0; fast <= 1; fast++)
        for (int k = 1; k <= 4; k *= 2) {
            o.fast_math = fast;
            o.iso_per_thread = k;
            kr_array *g = sim(g_gpu, s, iso, NULL, &o, NULL);
            double e = rel_diff(g, ref);
            printf("  one coil, fast %d, %d per thread: max |gpu - cpu| / max |cpu| = %.3g\n", fast,
                   k, e);
            KT_LE(e, fast ? 1e-3 : 1e-4);
            kr_array_destroy(g);
        }
    kr_array *sens = random_sens(iso->n, 1, 9);
    kr_array *r1 = sim(g_cpu, s, iso, sens, NULL, NULL);
    kr_array *g1 = sim(g_gpu, s, iso, sens, NULL, NULL);
    KT_LE(rel_diff(g1, r1), 1e-3);
    kr_array_destroy(r1);
    kr_array_destroy(g1);
    kr_array_destroy(sens);
    kr_array_destroy(ref);
    kr_iso_destroy(iso);
    kr_seq_destroy(s);
}

static void test_parity_coils(void)
{
    kr_seq *s = gre(16, 24, 100, KR_SPOIL_GRADIENT);
    kr_iso *iso = random_iso(1500, 100, 21);
    const int ncs[4] = {2, 3, 8, 20};
    for (int q = 0; q < 4; q++) {
        kr_array *sens = random_sens(iso->n, ncs[q], 30 + q);
        kr_array *r = sim(g_cpu, s, iso, sens, NULL, NULL);
        kr_array *g = sim(g_gpu, s, iso, sens, NULL, NULL);
        double e = rel_diff(g, r);
        printf("  %d coils: max |gpu - cpu| / max |cpu| = %.3g\n", ncs[q], e);
        KT_LE(e, 1e-3);
        kr_array_destroy(r);
        kr_array_destroy(g);
        kr_array_destroy(sens);
    }
    kr_iso_destroy(iso);
    kr_seq_destroy(s);
}

static void test_bit_identity_and_state(void)
{
    kr_seq *s = gre(32, 32, 120, KR_SPOIL_RF_GRADIENT);
    kr_iso *iso = random_iso(5000, 120, 41);
    kr_iso *st_g = NULL, *st_c = NULL;
    KT_OK(kr_iso_create(&st_g, iso->n));
    KT_OK(kr_iso_create(&st_c, iso->n));
    kr_array *a = sim(g_gpu, s, iso, NULL, NULL, st_g);
    kr_array *b = sim(g_gpu, s, iso, NULL, NULL, NULL);
    KT_CHECK(a && b && memcmp(a->data, b->data, kr_array_bytes(a)) == 0);
    kr_array *c = sim(g_cpu, s, iso, NULL, NULL, st_c);
    double e = 0;
    for (int64_t i = 0; i < iso->n; i++) {
        e = fmax(e, fabs(st_g->mx[i] - st_c->mx[i]));
        e = fmax(e, fabs(st_g->my[i] - st_c->my[i]));
        e = fmax(e, fabs(st_g->mz[i] - st_c->mz[i]));
    }
    printf("  final state: max |gpu - cpu| = %.3g\n", e);
    KT_LE(e, 1e-3);
    kr_array_destroy(a);
    kr_array_destroy(b);
    kr_array_destroy(c);
    kr_iso_destroy(st_g);
    kr_iso_destroy(st_c);
    kr_iso_destroy(iso);
    kr_seq_destroy(s);
}

static void test_closed_forms_on_gpu(void)
{
    /* Ernst with ideal spoiling */
    kr_seq_cart_opts o;
    kr_seq_cart_opts_default(&o);
    o.nx = 8;
    o.ny = 160;
    o.fov_x_mm = o.fov_y_mm = 200;
    o.te_ms = 5;
    o.tr_ms = 20;
    o.flip_deg = 30;
    o.rf_dur_s = 10e-6;
    o.spoil = KR_SPOIL_IDEAL;
    kr_seq *s = NULL;
    KT_OK(kr_seq_gre(&s, &o));
    kr_iso *iso = NULL;
    KT_OK(kr_iso_create(&iso, 1));
    iso->t1_ms[0] = 500;
    iso->t2_ms[0] = 50;
    iso->m0[0] = 1;
    kr_iso_equilibrium(iso);
    kr_array *k = sim(g_gpu, s, iso, NULL, NULL, NULL);
    const double a = 30 * M_PI / 180, e1 = exp(-20.0 / 500);
    const double want = sin(a) * (1 - e1) / (1 - cos(a) * e1) * exp(-5.0 / 50);
    const float *f = k->data;
    KT_NEAR(f[2 * (8 * 159 + 4) + 1], want, 1e-4 * want);
    KT_NEAR(f[2 * (8 * 159 + 4)], 0.0, 1e-5);
    kr_array_destroy(k);
    kr_seq_destroy(s);
    /* T1 recovery, no ADC: the state only */
    KT_OK(kr_seq_create(&s, NULL));
    kr_seq_block b;
    kr_seq_block_init(&b);
    b.duration_s = 0.5;
    KT_OK(kr_seq_add_block(s, &b));
    iso->mz[0] = -1;
    iso->t1_ms[0] = 800;
    kr_sim_plan *p = NULL;
    KT_OK(kr_sim_plan_create(&p, g_gpu, s, NULL));
    KT_OK(kr_sim_set_object(p, iso, NULL));
    KT_OK(kr_sim_execute(p, NULL));
    KT_OK(kr_sim_get_state(p, iso));
    KT_NEAR(iso->mz[0], 1 - 2 * exp(-500.0 / 800), 1e-5);
    /* location: a host output for a CUDA plan */
    kr_sim_plan_destroy(p);
    kr_seq_destroy(s);
    KT_OK(kr_seq_create(&s, NULL));
    b.adc.n = 4;
    b.adc.dwell_s = 1e-3;
    KT_OK(kr_seq_add_block(s, &b));
    KT_OK(kr_sim_plan_create(&p, g_gpu, s, NULL));
    KT_OK(kr_sim_set_object(p, iso, NULL));
    int64_t d1[1] = {4};
    kr_array *host = NULL;
    KT_OK(kr_array_create(&host, KR_C64, 1, d1, KR_HOST, NULL));
    KT_STATUS(kr_sim_execute(p, host), KR_ERR_LOCATION);
    kr_array_destroy(host);
    kr_sim_plan_destroy(p);
    kr_seq_destroy(s);
    kr_iso_destroy(iso);
}

/* Samples during an RF pulse (an RF step that ends with an ADC sample), GPU vs CPU. */
static void test_sample_during_rf(void)
{
    kr_seq *s = NULL;
    KT_OK(kr_seq_create(&s, NULL));
    kr_seq_block b;
    kr_seq_block_init(&b);
    b.duration_s = 1e-3;
    b.rf.n = 100;
    b.rf.dt_s = 10e-6;
    b.rf.amp_uT = 5.0;
    b.adc.n = 25;
    b.adc.dwell_s = 40e-6;
    KT_OK(kr_seq_add_block(s, &b));
    kr_iso *iso = random_iso(700, 50, 61);
    kr_array *r = sim(g_cpu, s, iso, NULL, NULL, NULL);
    kr_array *g = sim(g_gpu, s, iso, NULL, NULL, NULL);
    KT_LE(rel_diff(g, r), 1e-4);
    kr_array_destroy(r);
    kr_array_destroy(g);
    kr_iso_destroy(iso);
    kr_seq_destroy(s);
}

/* ---- benchmark (KRAY_BENCH=1) -------------------------------------------------------------- */
/* Single-shot spin-echo EPI, n x n, FOV fov (mm), TE te (ms; lengthened to what the echo
 * train needs), readout dwell dw (s). Hard pulses, no ramp sampling, no partial Fourier. */
static kr_seq *se_epi(int n, double fov, double te, double dw)
{
    kr_seq *s = NULL;
    kr_seq_limits lim;
    kr_seq_limits_default(&lim);
    KT_OK(kr_seq_create(&s, &lim));
    const double rfd = 100e-6, r = 10e-6;
    const double G = 1e3 / (GB * fov * 1e-3 * dw); /* mT/m */
    const double rise = ceil(G / (lim.smax_T_m_s * 1e3) / r) * r;
    const double flat = n * dw, ro = 2 * rise + flat;
    const double dky = 1e3 / (GB * fov * 1e-3); /* mT/m s per line */
    const double brise = ceil(sqrt(dky / (lim.smax_T_m_s * 1e3)) / r) * r;
    const double line = ro + 2 * brise;
    const double pre = 1e-3;
    /* TE at least what the echo train needs */
    const double centre = (n / 2) * line + rise + (n / 2 + 0.5) * dw;
    const double te_min = 2.0 * (centre + pre + rfd);
    if (te * 1e-3 < te_min) te = ceil(te_min * 1e3);
    kr_seq_block b;
    double tx[4], gx[4], ty[4], gy[4];
    /* 90 */
    kr_seq_block_init(&b);
    b.duration_s = rfd;
    b.rf.n = 1;
    b.rf.dt_s = rfd;
    b.rf.amp_uT = 0.25 / (GB * rfd) * 1e6;
    KT_OK(kr_seq_add_block(s, &b));
    /* 180 at TE/2 */
    kr_seq_block_init(&b);
    b.start_s = 0.5 * rfd + 0.5 * te * 1e-3 - 0.5 * rfd;
    b.duration_s = rfd;
    b.rf.n = 1;
    b.rf.dt_s = rfd;
    b.rf.amp_uT = 0.5 / (GB * rfd) * 1e6;
    b.rf.phase_rad = M_PI / 2;
    KT_OK(kr_seq_add_block(s, &b));
    /* prephaser ending so that the centre sample of line n/2 is at TE */
    double t_pre = 0.5 * rfd + te * 1e-3 - centre - pre;
    kr_seq_block_init(&b);
    b.start_s = t_pre;
    b.duration_s = pre;
    double ax = -G * (0.5 * rise + (n / 2 + 0.5) * dw), ay = -dky * (n / 2);
    kr_seq_trap(&b.grad[0], tx, gx, 0, ax / (pre - 200e-6), 200e-6, pre - 400e-6, 200e-6);
    kr_seq_trap(&b.grad[1], ty, gy, 0, ay / (pre - 200e-6), 200e-6, pre - 400e-6, 200e-6);
    KT_OK(kr_seq_add_block(s, &b));
    for (int j = 0; j < n; j++) {
        kr_seq_block_init(&b);
        b.duration_s = ro;
        kr_seq_trap(&b.grad[0], tx, gx, 0, (j % 2) ? -G : G, rise, flat, rise);
        b.adc.n = n;
        b.adc.delay_s = rise;
        b.adc.dwell_s = dw;
        b.adc.line = j;
        KT_OK(kr_seq_add_block(s, &b));
        kr_seq_block_init(&b);
        b.duration_s = 2 * brise;
        if (j + 1 < n) kr_seq_trap(&b.grad[1], ty, gy, 0, dky / brise, brise, 0, brise);
        KT_OK(kr_seq_add_block(s, &b));
    }
    return s;
}

static double median5(double *t)
{
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++)
            if (t[j] < t[i]) {
                double x = t[i];
                t[i] = t[j];
                t[j] = x;
            }
    return t[2];
}

static void bench_case(const char *name, const kr_seq *s, const kr_iso *iso)
{
    int64_t dims[2];
    for (int fast = 1; fast >= 0; fast--)
        for (int k = 1; k <= 4; k *= 2) {
            kr_sim_opts o;
            kr_sim_opts_default(&o);
            o.fast_math = fast;
            o.iso_per_thread = k;
            kr_sim_plan *p = NULL;
            KT_OK(kr_sim_plan_create(&p, g_gpu, s, &o));
            KT_OK(kr_sim_set_object(p, iso, NULL));
            kr_sim_info info;
            KT_OK(kr_sim_get_info(p, &info));
            dims[0] = info.nsamples;
            dims[1] = 1;
            kr_array *kd = NULL;
            KT_OK(kr_array_create(&kd, KR_C64, 2, dims, KR_DEVICE, g_gpu));
            KT_OK(kr_sim_execute(p, kd)); /* warm-up */
            double t[5];
            for (int r = 0; r < 5; r++) {
                double t0 = kr_time_now();
                KT_OK(kr_sim_execute(p, kd));
                t[r] = kr_time_now() - t0;
            }
            double tm = median5(t);
            printf("{\"case\": \"%s\", \"backend\": \"cuda\", \"fast_math\": %d, "
                   "\"iso_per_thread\": %d, \"isochromats\": %lld, \"intervals\": %lld, "
                   "\"steps\": %lld, \"samples\": %lld, \"time_ms\": %.3f, "
                   "\"iso_steps_per_s\": %.4g}\n",
                   name, fast, k, (long long)info.niso, (long long)info.nintervals,
                   (long long)info.nsteps, (long long)info.nsamples, tm * 1e3, info.iso_steps / tm);
            kr_array_destroy(kd);
            kr_sim_plan_destroy(p);
        }
}

static void bench(void)
{
    /* SE-EPI 256^2, 2 x 2 isochromats per voxel over the whole FOV (262144) */
    const int n = 256;
    kr_seq *s = se_epi(n, 256, 120, 4e-6);
    kr_array *tis = NULL;
    KT_OK(kr_phantom_mr_2d_grid(&tis, KR_GRID_FFT, n, n, 1, 1.5));
    float *f = tis->data;
    for (int i = 0; i < n * n; i++) /* fill the background so every voxel counts */
        if (!(f[2 * n * n + i] > 0)) {
            f[i] = 1000;
            f[n * n + i] = 100;
            f[2 * n * n + i] = 0.05f;
        }
    kr_iso_opts io;
    kr_iso_opts_default(&io);
    io.sub[0] = io.sub[1] = 2;
    kr_iso *iso = NULL;
    KT_OK(kr_iso_from_tissue(&iso, tis, NULL, &io));
    bench_case("se_epi_256_4iso", s, iso);
    kr_iso_destroy(iso);
    kr_seq_destroy(s);
    kr_array_destroy(tis);
    /* large: 4M isochromats, RF-spoiled GRE 128 x 128 */
    s = gre(128, 128, 256, KR_SPOIL_RF_GRADIENT);
    iso = random_iso((int64_t)1 << 22, 256, 77);
    bench_case("gre_128_4M", s, iso);
    kr_iso_destroy(iso);
    kr_seq_destroy(s);
}

int main(void)
{
    kt_require_gpu();
    if (kr_ctx_create(&g_cpu, KR_BACKEND_CPU) != KR_OK) return 1;
    if (kr_ctx_create(&g_gpu, KR_BACKEND_CUDA) != KR_OK) return 1;
    KT_RUN(test_parity_one_coil);
    KT_RUN(test_parity_coils);
    KT_RUN(test_bit_identity_and_state);
    KT_RUN(test_closed_forms_on_gpu);
    KT_RUN(test_sample_during_rf);
    const char *b = getenv("KRAY_BENCH");
    if (b && *b && strcmp(b, "0") != 0) KT_RUN(bench);
    kr_ctx_destroy(g_gpu);
    kr_ctx_destroy(g_cpu);
    return kt_finish();
}
