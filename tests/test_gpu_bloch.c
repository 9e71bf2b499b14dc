/* Bloch simulator on CUDA: parity with the CPU backend (one coil with and without
 * sensitivities, several coil groups, isochromats per thread 1/2/4, fast and accurate math),
 * closed forms on the GPU (Ernst steady state, spin echo, T1 recovery without ADC), a sample
 * taken during an RF pulse, run-to-run bit identity, final-state parity and location errors.
 * Exits 77 without a usable CUDA device. The simulator's speed is `kray bench bloch`. */
#include "internal.h"
#include "kray/sim.h"
#include "kt.h"

#include <complex.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

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
    kr_ctx_destroy(g_gpu);
    kr_ctx_destroy(g_cpu);
    return kt_finish();
}
