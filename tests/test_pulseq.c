/* Pulseq files: a hand-written 1.4 file (tests/data/pulseq_small.seq) read against the values
 * worked out by hand from the specification (compressed shapes, TRAP, extended trapezoid with
 * a time shape, ADC, block durations, skipped sections), the RF flip angle of its pulse by the
 * simulator; round trips of kray's GRE, SE and SE-EPI (write -> read: the same blocks, waveforms
 * sampled densely, and the same simulated k-space); bad and truncated files with their
 * statuses. */
#include "internal.h"
#include "kray/sim.h"
#include "kt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const double GB = KR_GAMMA_BAR_HZ_PER_T;

static const char *data_path(void)
{
    static char p[4096];
    const char *src = getenv("KRAY_SRC");
    snprintf(p, sizeof p, "%s/tests/data/pulseq_small.seq", src && *src ? src : ".");
    return p;
}

static double grad_at(const kr_seq_grad *g, double t)
{
    if (g->n == 0 || t < g->t_s[0] || t > g->t_s[g->n - 1]) return 0.0;
    for (int i = 0; i + 1 < g->n; i++)
        if (t <= g->t_s[i + 1]) {
            double w = (t - g->t_s[i]) / (g->t_s[i + 1] - g->t_s[i]);
            return g->g_mT_m[i] + w * (g->g_mT_m[i + 1] - g->g_mT_m[i]);
        }
    return 0.0;
}

static void test_handwritten(void)
{
    kr_seq *s = NULL;
    KT_OK(kr_seq_read_pulseq(&s, data_path(), NULL));
    if (!s) return;
    kr_seq_info info;
    KT_OK(kr_seq_get_info(s, &info));
    KT_CHECK(info.nblocks == 3 && info.nadc == 1 && info.nsamples == 50);
    KT_NEAR(info.duration_s, 1.7e-3, 1e-12);
    kr_seq_block b;
    KT_OK(kr_seq_get_block(s, 0, &b));
    KT_NEAR(b.duration_s, 200e-6, 1e-12);
    KT_CHECK(b.rf.n == 100);
    KT_NEAR(b.rf.dt_s, 1e-6, 1e-15);
    const double a = 500.0 / GB * 1e6; /* microtesla */
    KT_NEAR(b.rf.b1_uT[0], 0.0, 1e-6);
    KT_NEAR(b.rf.b1_uT[1], 0.5 * a, 1e-5);
    KT_NEAR(b.rf.b1_uT[2 * 39 + 1], 0.5 * a, 1e-5);
    KT_NEAR(b.rf.b1_uT[2 * 40 + 1], a, 1e-5);
    KT_NEAR(b.rf.b1_uT[2 * 59 + 1], a, 1e-5);
    KT_NEAR(b.rf.b1_uT[2 * 60 + 1], 0.5 * a, 1e-5);
    KT_NEAR(b.rf.b1_uT[2 * 99 + 1], 0.5 * a, 1e-5);
    KT_OK(kr_seq_get_block(s, 1, &b));
    KT_NEAR(b.duration_s, 1e-3, 1e-12);
    const double gx = 1e5 / GB * 1e3, gy = -5e4 / GB * 1e3; /* mT/m */
    const double tx[4] = {100e-6, 200e-6, 700e-6, 800e-6}, ty[4] = {200e-6, 300e-6, 500e-6,
                                                                   600e-6};
    KT_CHECK(b.grad[0].n == 4 && b.grad[1].n == 4 && b.grad[2].n == 0);
    for (int i = 0; i < 4 && b.grad[0].n == 4 && b.grad[1].n == 4; i++) {
        KT_NEAR(b.grad[0].t_s[i], tx[i], 1e-12);
        KT_NEAR(b.grad[1].t_s[i], ty[i], 1e-12);
        KT_NEAR(b.grad[0].g_mT_m[i], (i == 1 || i == 2) ? gx : 0.0, 1e-9);
        KT_NEAR(b.grad[1].g_mT_m[i], (i == 1 || i == 2) ? gy : 0.0, 1e-9);
    }
    KT_CHECK(b.adc.n == 50 && b.adc.line == 0);
    KT_NEAR(b.adc.dwell_s, 10e-6, 1e-15);
    KT_NEAR(b.adc.delay_s, 200e-6, 1e-15);
    KT_OK(kr_seq_get_block(s, 2, &b));
    KT_NEAR(b.start_s, 1.2e-3, 1e-12);
    KT_NEAR(b.duration_s, 500e-6, 1e-12);
    KT_CHECK(b.rf.n == 0 && b.adc.n == 0 && b.grad[0].n == 0);
    /* the pulse: flip = 500 Hz x 60 us = 0.03 cycles about the +y-phased axis (phase 90 deg):
     * Mx = -sin(flip)?  M turns about B1 = (0, |B1|): +z tips towards +x, i.e. Mxy = sin f
     * times i exp(i pi/2) = -sin f (sim.h: a pulse of phase phi leaves Mxy = i M0 e^{i phi}) */
    kr_ctx *ctx = NULL;
    KT_OK(kr_ctx_create(&ctx, KR_BACKEND_CPU));
    kr_iso *iso = NULL;
    KT_OK(kr_iso_create(&iso, 1));
    iso->t1_ms[0] = iso->t2_ms[0] = 1e12f;
    iso->m0[0] = 1;
    KT_OK(kr_iso_equilibrium(iso));
    kr_sim_plan *p = NULL;
    KT_OK(kr_sim_plan_create(&p, ctx, s, NULL));
    KT_OK(kr_sim_set_object(p, iso, NULL));
    int64_t d1 = 50;
    kr_array *k = NULL;
    KT_OK(kr_array_create(&k, KR_C64, 1, &d1, KR_HOST, NULL));
    KT_OK(kr_sim_execute(p, k));
    KT_OK(kr_sim_get_state(p, iso));
    const double f = 2 * M_PI * 0.03;
    printf("  hand-written file: final M = (%.6f, %.6f, %.6f), expected (%.6f, 0, %.6f)\n",
           iso->mx[0], iso->my[0], iso->mz[0], -sin(f), cos(f));
    KT_NEAR(iso->mx[0], -sin(f), 2e-5);
    KT_NEAR(iso->my[0], 0.0, 2e-5);
    KT_NEAR(iso->mz[0], cos(f), 2e-5);
    kr_array_destroy(k);
    kr_sim_plan_destroy(p);
    kr_iso_destroy(iso);
    kr_ctx_destroy(ctx);
    kr_seq_destroy(s);
}

/* Same blocks: timing, RF sampled each 0.5 us, gradients each 1 us, ADC parameters. */
static void compare_seqs(const kr_seq *a, const kr_seq *b, double adc_tol)
{
    kr_seq_info ia, ib;
    KT_OK(kr_seq_get_info(a, &ia));
    KT_OK(kr_seq_get_info(b, &ib));
    KT_CHECK(ia.nblocks == ib.nblocks && ia.nadc == ib.nadc && ia.nsamples == ib.nsamples);
    if (ia.nblocks != ib.nblocks) return;
    double terr = 0, rferr = 0, gerr = 0, aerr = 0, gmax = 0, rfmax = 0;
    for (int64_t i = 0; i < ia.nblocks; i++) {
        kr_seq_block x, y;
        KT_OK(kr_seq_get_block(a, i, &x));
        KT_OK(kr_seq_get_block(b, i, &y));
        terr = fmax(terr, fabs(x.start_s - y.start_s) + fabs(x.duration_s - y.duration_s));
        for (double t = 0.25e-6; t < x.duration_s; t += 0.5e-6) {
            double bx[2] = {0, 0}, by[2] = {0, 0};
            const kr_seq_rf *r[2] = {&x.rf, &y.rf};
            double *o[2] = {bx, by};
            for (int q = 0; q < 2; q++) {
                if (r[q]->n == 0) continue;
                double u = (t - r[q]->delay_s) / r[q]->dt_s;
                if (u < 0 || u >= (double)r[q]->n) continue;
                int64_t j = (int64_t)u;
                double re = r[q]->b1_uT[2 * j], im = r[q]->b1_uT[2 * j + 1];
                double ph = r[q]->phase_rad;
                o[q][0] = re * cos(ph) - im * sin(ph);
                o[q][1] = re * sin(ph) + im * cos(ph);
            }
            rferr = fmax(rferr, hypot(bx[0] - by[0], bx[1] - by[1]));
            rfmax = fmax(rfmax, hypot(bx[0], bx[1]));
            if (fmod(t, 1e-6) < 0.5e-6)
                for (int ax = 0; ax < 3; ax++) {
                    double g0 = grad_at(&x.grad[ax], t), g1 = grad_at(&y.grad[ax], t);
                    gerr = fmax(gerr, fabs(g0 - g1));
                    gmax = fmax(gmax, fabs(g0));
                }
        }
        KT_CHECK(x.adc.n == y.adc.n);
        if (x.adc.n) {
            aerr = fmax(aerr, fabs(x.adc.delay_s - y.adc.delay_s) +
                                  fabs(x.adc.dwell_s - y.adc.dwell_s) * (double)x.adc.n);
            KT_NEAR(x.adc.phase_rad, y.adc.phase_rad, 1e-9);
            KT_NEAR(x.adc.freq_hz, y.adc.freq_hz, 1e-9);
        }
    }
    printf("  round trip: %lld blocks, timing %.2g s, RF %.2g of %.3g uT, gradients %.2g of %.3g "
           "mT/m, ADC timing %.2g s\n",
           (long long)ia.nblocks, terr, rferr, rfmax, gerr, gmax, aerr);
    KT_LE(terr, 1e-9);
    KT_LE(rferr, 1e-5 * rfmax);
    KT_LE(gerr, 1e-9 * gmax + 1e-12);
    KT_LE(aerr, adc_tol);
}

static kr_array *simulate(const kr_seq *s)
{
    kr_ctx *ctx = NULL;
    kr_iso *iso = NULL;
    kr_array *k = NULL;
    KT_OK(kr_ctx_create(&ctx, KR_BACKEND_CPU));
    KT_OK(kr_iso_create(&iso, 9));
    for (int i = 0; i < 9; i++) {
        iso->x_mm[i] = (float)(20 * (i % 3 - 1));
        iso->y_mm[i] = (float)(20 * (i / 3 - 1) + 3);
        iso->t1_ms[i] = 400;
        iso->t2_ms[i] = 60;
        iso->m0[i] = 1;
        iso->df_hz[i] = (float)(5 * i);
    }
    KT_OK(kr_iso_equilibrium(iso));
    KT_OK(kr_sim(ctx, s, iso, NULL, &k));
    kr_iso_destroy(iso);
    kr_ctx_destroy(ctx);
    return k;
}

static void round_trip(kr_seq *s, const char *name, double adc_tol, double ktol)
{
    const char *path = kt_tmp(name);
    kr_pulseq_write_opts o;
    kr_pulseq_write_opts_default(&o);
    o.name = name;
    KT_OK(kr_seq_write_pulseq(s, path, &o));
    kr_seq *r = NULL;
    KT_OK(kr_seq_read_pulseq(&r, path, NULL));
    if (!r) return;
    compare_seqs(s, r, adc_tol);
    kr_array *ka = simulate(s), *kb = simulate(r);
    double err = 0, mx = 0;
    const float *fa = ka->data, *fb = kb->data;
    for (int64_t i = 0; i < kr_array_numel(ka); i++) {
        err = fmax(err, hypot(fa[2 * i] - fb[2 * i], fa[2 * i + 1] - fb[2 * i + 1]));
        mx = fmax(mx, hypot(fa[2 * i], fa[2 * i + 1]));
    }
    printf("  %s: simulated k-space after the round trip: max difference %.3g of %.3g\n", name,
           err, mx);
    KT_LE(err, ktol * mx);
    kr_array_destroy(ka);
    kr_array_destroy(kb);
    kr_seq_destroy(r);
    remove(path);
}

static void test_round_trip(void)
{
    kr_seq_cart_opts o;
    kr_seq_cart_opts_default(&o);
    o.nx = 16;
    o.ny = 8;
    o.fov_x_mm = o.fov_y_mm = 120;
    o.bw_hz_px = 3125; /* dwell 20 us: TE fill delays on the 10 us raster */
    o.te_ms = 8;
    o.tr_ms = 30;
    o.flip_deg = 25;
    o.ndummy = 2;
    /* short pulses: the read-back pulse is 1 us raster samples, and the simulator's Strang
     * splitting of relaxation during one long RF step would differ by ~1e-4 at 200 us */
    o.rf_dur_s = 20e-6;
    kr_seq *s = NULL;
    KT_OK(kr_seq_gre(&s, &o));
    round_trip(s, "gre.seq", 1e-12, 1e-4); /* measured 4e-5: RF splitting, 20 us vs 20 x 1 us */
    kr_seq_destroy(s);
    o.te_ms = 20;
    o.tr_ms = 100;
    KT_OK(kr_seq_se(&s, &o));
    /* SE ends each TR with ideal spoiling, which Pulseq cannot say: compare the blocks only
     * (the simulated signals differ from TR 2 on) */
    const char *path = kt_tmp("se.seq");
    KT_OK(kr_seq_write_pulseq(s, path, NULL));
    kr_seq *r = NULL;
    KT_OK(kr_seq_read_pulseq(&r, path, NULL));
    if (r) compare_seqs(s, r, 1e-12);
    kr_seq_destroy(r);
    kr_seq_destroy(s);
    remove(path);
    /* EPI: ADC delays are rounded to whole microseconds by the format */
    kr_seq_epi_opts e;
    kr_seq_epi_opts_default(&e);
    e.nx = e.ny = 16;
    e.fov_x_mm = e.fov_y_mm = 120;
    e.te_ms = 30;
    e.tr_ms = 200;
    e.ndummy = 0;
    e.shots = 1;
    KT_OK(kr_seq_se_epi(&s, &e));
    path = kt_tmp("epi.seq");
    KT_OK(kr_seq_write_pulseq(s, path, NULL));
    KT_OK(kr_seq_read_pulseq(&r, path, NULL));
    if (r) compare_seqs(s, r, 0.5e-6 + 16 * 0.5e-9);
    kr_seq_destroy(r);
    kr_seq_destroy(s);
    remove(path);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_bad_files(void)
{
    kr_seq *s = NULL;
    KT_STATUS(kr_seq_read_pulseq(NULL, data_path(), NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_seq_read_pulseq(&s, NULL, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_seq_read_pulseq(&s, "/nonexistent/x.seq", NULL), KR_ERR_IO);
    /* truncated copies of the hand-written file: cut inside [SHAPES] and before [BLOCKS] */
    FILE *f = fopen(data_path(), "r");
    KT_CHECK(f != NULL);
    if (!f) return;
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *cut[] = {"17\n-0.5", "[BLOCKS]", "num_samples 4\n0\n10"};
    for (int i = 0; i < 3; i++) {
        char *p = strstr(buf, cut[i]);
        KT_CHECK(p != NULL);
        if (!p) continue;
        char save = *p;
        *p = 0;
        const char *path = kt_tmp("trunc.seq");
        write_text(path, buf);
        *p = save;
        KT_STATUS(kr_seq_read_pulseq(&s, path, NULL), KR_ERR_FORMAT);
        printf("  truncated %d: %s\n", i, kr_last_error());
        KT_CHECK(s == NULL);
        remove(path);
    }
    const char *bad[] = {
        "hello\n",                                                         /* no version */
        "[VERSION]\nmajor 1\nminor 4\n[BLOCKS]\n1 10 0 5 0 0 0 0\n",       /* undefined grad */
        "[VERSION]\nmajor 1\nminor 4\n[BLOCKS]\n1 10 0 0 0\n",             /* short row */
        "[VERSION]\nmajor 2\nminor 0\n[BLOCKS]\n1 10 0 0 0 0 0 0\n",       /* version */
        "[VERSION]\nmajor 1\nminor 4\n[BLOCKS]\n1 10 1 0 0 0 0 0\n[RF]\n1 100 1 1 0 0 0 0\n",
        "[VERSION]\nmajor 1\nminor 4\n[BLOCKS]\n1 10 0 0 0 0 0 0\n1 10 0 0 0 0 0 0\n",
        "[VERSION]\nmajor 1\nminor 4\n[BLOCKS]\n1 x 0 0 0 0 0 0\n",
    };
    for (int i = 0; i < (int)(sizeof bad / sizeof bad[0]); i++) {
        const char *path = kt_tmp("bad.seq");
        write_text(path, bad[i]);
        KT_STATUS(kr_seq_read_pulseq(&s, path, NULL), KR_ERR_FORMAT);
        printf("  bad %d: %s\n", i, kr_last_error());
        remove(path);
    }
    /* a gradient beyond the limits: the block validation's INVALID_ARG */
    const char *path = kt_tmp("strong.seq");
    write_text(path, "[VERSION]\nmajor 1\nminor 4\n[BLOCKS]\n1 100 0 2 0 0 0 0\n[TRAP]\n"
                     "2 4e6 100 500 100 0\n");
    KT_STATUS(kr_seq_read_pulseq(&s, path, NULL), KR_ERR_INVALID_ARG);
    printf("  strong: %s\n", kr_last_error());
    remove(path);
    /* writer: NULLs and a time off the raster */
    KT_STATUS(kr_seq_write_pulseq(NULL, "x.seq", NULL), KR_ERR_INVALID_ARG);
    KT_OK(kr_seq_create(&s, NULL));
    KT_STATUS(kr_seq_write_pulseq(s, NULL, NULL), KR_ERR_INVALID_ARG);
    kr_seq_block b;
    kr_seq_block_init(&b);
    b.duration_s = 15e-6;
    KT_OK(kr_seq_add_block(s, &b));
    KT_STATUS(kr_seq_write_pulseq(s, kt_tmp("odd.seq"), NULL), KR_ERR_NOT_SUPPORTED);
    kr_seq_destroy(s);
}

int main(void)
{
    KT_RUN(test_handwritten);
    KT_RUN(test_round_trip);
    KT_RUN(test_bad_files);
    return kt_finish();
}
