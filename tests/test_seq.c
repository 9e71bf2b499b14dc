/* Sequences and objects: block validation (each error with its exact status, the sequence left
 * unchanged), queries, the GRE and SE builders' timing and k-space positions (integrated here
 * from the blocks' corner points, independently of the library), compiled-step merging, and
 * maps -> isochromats (grids, sub-voxels, frequency spreads, decimation, sine pattern, bad
 * inputs). */
#include "internal.h"
#include "kray/sim.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const double GB = KR_GAMMA_BAR_HZ_PER_T;

static int64_t nblocks(const kr_seq *s)
{
    kr_seq_info i;
    if (kr_seq_get_info(s, &i) != KR_OK) return -1;
    return i.nblocks;
}

static void test_validation(void)
{
    kr_seq *s = NULL;
    KT_STATUS(kr_seq_create(NULL, NULL), KR_ERR_INVALID_ARG);
    kr_seq_limits lim;
    kr_seq_limits_default(&lim);
    lim.gmax_mT_m = 0;
    KT_STATUS(kr_seq_create(&s, &lim), KR_ERR_INVALID_ARG);
    kr_seq_limits_default(&lim);
    lim.b1max_uT = 20;
    KT_OK(kr_seq_create(&s, &lim));
    KT_STATUS(kr_seq_add_block(s, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_seq_add_block(NULL, NULL), KR_ERR_INVALID_ARG);
    kr_seq_block b;
    double t[4], g[4];
    /* durations */
    kr_seq_block_init(&b);
    KT_STATUS(kr_seq_add_block(s, &b), KR_ERR_INVALID_ARG);
    b.duration_s = NAN;
    KT_STATUS(kr_seq_add_block(s, &b), KR_ERR_INVALID_ARG);
    /* a good block: trapezoid 20 mT/m, rise 200 us (100 T/m/s) */
    kr_seq_block_init(&b);
    b.duration_s = 1e-3;
    kr_seq_trap(&b.grad[0], t, g, 0, 20, 200e-6, 400e-6, 200e-6);
    KT_OK(kr_seq_add_block(s, &b));
    /* beyond gmax */
    kr_seq_trap(&b.grad[0], t, g, 0, 41, 300e-6, 200e-6, 300e-6);
    KT_STATUS(kr_seq_add_block(s, &b), KR_ERR_INVALID_ARG);
    /* beyond slew: 30 mT/m in 100 us = 300 T/m/s */
    kr_seq_trap(&b.grad[1], t, g, 0, 30, 100e-6, 200e-6, 100e-6);
    b.grad[0].n = 0;
    KT_STATUS(kr_seq_add_block(s, &b), KR_ERR_INVALID_ARG);
    /* a jump inside the block (zero rise after a delay) */
    kr_seq_trap(&b.grad[1], t, g, 100e-6, 10, 0, 200e-6, 100e-6);
    KT_STATUS(kr_seq_add_block(s, &b), KR_ERR_INVALID_ARG);
    b.grad[1].n = 0;
    /* one corner, non-increasing corners, NULL corners */
    double t1[2] = {0, 0}, g1[2] = {0, 0};
    b.grad[2].n = 1;
    b.grad[2].t_s = t1;
    b.grad[2].g_mT_m = g1;
    KT_STATUS(kr_seq_add_block(s, &b), KR_ERR_INVALID_ARG);
    b.grad[2].n = 2;
    KT_STATUS(kr_seq_add_block(s, &b), KR_ERR_INVALID_ARG);
    b.grad[2].t_s = NULL;
    KT_STATUS(kr_seq_add_block(s, &b), KR_ERR_INVALID_ARG);
    b.grad[2].n = 0;
    /* gradient corner after the block's end */
    kr_seq_trap(&b.grad[0], t, g, 0, 10, 100e-6, 900e-6, 100e-6);
    KT_STATUS(kr_seq_add_block(s, &b), KR_ERR_INVALID_ARG);
    b.grad[0].n = 0;
    /* RF beyond the block, over b1max, ADC beyond the block */
    b.rf.n = 10;
    b.rf.dt_s = 1e-4;
    b.rf.delay_s = 1e-4;
    b.rf.amp_uT = 10;
    KT_STATUS(kr_seq_add_block(s, &b), KR_ERR_INVALID_ARG);
    b.rf.delay_s = 0;
    b.rf.amp_uT = 25;
    KT_STATUS(kr_seq_add_block(s, &b), KR_ERR_INVALID_ARG);
    b.rf.n = 0;
    b.adc.n = 11;
    b.adc.dwell_s = 1e-4;
    KT_STATUS(kr_seq_add_block(s, &b), KR_ERR_INVALID_ARG);
    b.adc.n = 10;
    b.adc.dwell_s = 0;
    KT_STATUS(kr_seq_add_block(s, &b), KR_ERR_INVALID_ARG);
    b.adc.n = 0;
    /* overlap with the first block (which ends at 1 ms) */
    b.start_s = 0.5e-3;
    KT_STATUS(kr_seq_add_block(s, &b), KR_ERR_INVALID_ARG);
    KT_CHECK(nblocks(s) == 1); /* every failure left the sequence unchanged */
    /* a gap is fine */
    b.start_s = 2e-3;
    KT_OK(kr_seq_add_block(s, &b));
    /* continuity: a block ending at 10 mT/m ... */
    kr_seq_block_init(&b);
    b.duration_s = 1e-3;
    double tu[2] = {0, 1e-3}, gu[2] = {0, 10};
    b.grad[0].n = 2;
    b.grad[0].t_s = tu;
    b.grad[0].g_mT_m = gu;
    KT_OK(kr_seq_add_block(s, &b));
    KT_STATUS(kr_seq_check(s), KR_ERR_INVALID_ARG); /* last block ends non-zero */
    /* ... must be continued at once and with the same value */
    double td[2] = {0, 1e-3}, gd[2] = {10, 0}, gw[2] = {12, 0};
    kr_seq_block_init(&b);
    b.duration_s = 1e-3;
    b.grad[0].n = 2;
    b.grad[0].t_s = td;
    b.grad[0].g_mT_m = gw;
    KT_STATUS(kr_seq_add_block(s, &b), KR_ERR_INVALID_ARG); /* 10 -> 12 */
    b.grad[0].g_mT_m = gd;
    b.start_s = 5e-3;
    KT_STATUS(kr_seq_add_block(s, &b), KR_ERR_INVALID_ARG); /* gap */
    kr_seq_block_init(&b);
    b.duration_s = 1e-3;
    KT_STATUS(kr_seq_add_block(s, &b), KR_ERR_INVALID_ARG); /* nothing continues the 10 */
    b.grad[0].n = 2;
    b.grad[0].t_s = td;
    b.grad[0].g_mT_m = gd;
    KT_OK(kr_seq_add_block(s, &b));
    KT_OK(kr_seq_check(s));
    KT_CHECK(nblocks(s) == 4);
    kr_seq_destroy(s);
    /* the first block must start at zero gradient */
    KT_OK(kr_seq_create(&s, NULL));
    kr_seq_block_init(&b);
    b.duration_s = 1e-3;
    b.grad[0].n = 2;
    b.grad[0].t_s = td;
    b.grad[0].g_mT_m = gd;
    KT_STATUS(kr_seq_add_block(s, &b), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_seq_check(s), KR_ERR_INVALID_ARG); /* no blocks */
    kr_seq_destroy(s);
    kr_seq_destroy(NULL);
}

static void test_queries(void)
{
    kr_seq *s = NULL;
    KT_OK(kr_seq_create(&s, NULL));
    kr_seq_block b;
    kr_seq_block_init(&b);
    b.duration_s = 2e-3;
    b.adc.n = 16;
    b.adc.dwell_s = 1e-4;
    b.adc.line = 7;
    b.adc.echo = 2;
    KT_OK(kr_seq_add_block(s, &b));
    b.start_s = 3e-3;
    b.adc.n = 4;
    b.adc.line = 9;
    KT_OK(kr_seq_add_block(s, &b));
    kr_seq_info info;
    KT_OK(kr_seq_get_info(s, &info));
    KT_CHECK(info.nblocks == 2 && info.nadc == 2 && info.nsamples == 20);
    KT_NEAR(info.duration_s, 5e-3, 1e-15);
    int64_t blk = -1, first = -1;
    kr_seq_adc adc;
    KT_OK(kr_seq_get_adc(s, 1, &blk, &first, &adc));
    KT_CHECK(blk == 1 && first == 16 && adc.line == 9 && adc.echo == 2 && adc.n == 4);
    kr_seq_block got;
    KT_OK(kr_seq_get_block(s, 1, &got));
    KT_NEAR(got.start_s, 3e-3, 0);
    KT_STATUS(kr_seq_get_block(s, 2, &got), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_seq_get_adc(s, 2, NULL, NULL, NULL), KR_ERR_INVALID_ARG);
    kr_seq_destroy(s);
}

/* Gradient area of block b, axis a, from the block start to t (trapezoidal pieces). */
static double area_to(const kr_seq_block *b, int a, double t)
{
    const kr_seq_grad *g = &b->grad[a];
    double s = 0;
    for (int i = 0; i + 1 < g->n; i++) {
        double t0 = g->t_s[i], t1 = g->t_s[i + 1];
        if (t <= t0) break;
        double te = t < t1 ? t : t1;
        double ge = g->g_mT_m[i] + (g->g_mT_m[i + 1] - g->g_mT_m[i]) * (te - t0) / (t1 - t0);
        s += 0.5 * (g->g_mT_m[i] + ge) * (te - t0);
    }
    return s;
}

/* Walk the sequence: k (1/m) at each ADC sample, counted from the last excitation (flip < 150
 * degrees) and negated at refocusing pulses; also the time from the excitation centre. */
static void trajectory(const kr_seq *s, double flip_limit_deg, double *kx, double *ky, double *te,
                       int64_t *line, int64_t ns)
{
    kr_seq_info info;
    KT_OK(kr_seq_get_info(s, &info));
    KT_CHECK(info.nsamples == ns);
    double k[2] = {0, 0}, t_exc = 0;
    for (int64_t i = 0; i < info.nblocks; i++) {
        kr_seq_block b;
        KT_OK(kr_seq_get_block(s, i, &b));
        if (b.rf.n > 0) {
            double flip = 360.0 * GB * b.rf.b1_uT[0] * 1e-6 * b.rf.dt_s * b.rf.n;
            if (flip < flip_limit_deg) {
                k[0] = k[1] = 0;
                t_exc = b.start_s + b.rf.delay_s + 0.5 * b.rf.n * b.rf.dt_s;
            } else {
                k[0] = -k[0];
                k[1] = -k[1];
            }
        }
        for (int64_t m = 0; m < b.adc.n; m++) {
            double t = b.adc.delay_s + (m + 0.5) * b.adc.dwell_s;
            int64_t first;
            KT_OK(kr_seq_get_adc(s, 0, NULL, &first, NULL));
            int64_t idx = -1;
            /* the sample index: count the samples of earlier blocks */
            idx = 0;
            for (int64_t j = 0; j < i; j++) {
                kr_seq_block bj;
                KT_OK(kr_seq_get_block(s, j, &bj));
                idx += bj.adc.n;
            }
            idx += m;
            kx[idx] = k[0] + GB * 1e-3 * area_to(&b, 0, t);
            ky[idx] = k[1] + GB * 1e-3 * area_to(&b, 1, t);
            te[idx] = b.start_s + t - t_exc;
            line[idx] = b.adc.line;
        }
        k[0] += GB * 1e-3 * area_to(&b, 0, b.duration_s);
        k[1] += GB * 1e-3 * area_to(&b, 1, b.duration_s);
    }
}

static void check_cartesian(const kr_seq *s, const kr_seq_cart_opts *o, double flip_limit)
{
    const int64_t ns = o->nx * o->ny;
    double *kx = malloc(ns * sizeof *kx), *ky = malloc(ns * sizeof *ky),
           *te = malloc(ns * sizeof *te);
    int64_t *line = malloc(ns * sizeof *line);
    trajectory(s, flip_limit, kx, ky, te, line, ns);
    double ekx = 0, eky = 0, ete = 0;
    int bad_line = 0;
    const double dwell = 1.0 / (o->bw_hz_px * o->nx);
    for (int64_t j = 0; j < o->ny; j++)
        for (int64_t m = 0; m < o->nx; m++) {
            int64_t i = m + o->nx * j;
            ekx = fmax(ekx, fabs(kx[i] - (double)(m - o->nx / 2) / (o->fov_x_mm * 1e-3)));
            eky = fmax(eky, fabs(ky[i] - (double)(j - o->ny / 2) / (o->fov_y_mm * 1e-3)));
            ete = fmax(ete, fabs(te[i] - (o->te_ms * 1e-3 + (double)(m - o->nx / 2) * dwell)));
            if (line[i] != j) bad_line = 1;
        }
    KT_LE(ekx, 1e-6);
    KT_LE(eky, 1e-6);
    KT_LE(ete, 1e-12);
    KT_CHECK(!bad_line);
    free(kx);
    free(ky);
    free(te);
    free(line);
}

static void test_gre_builder(void)
{
    kr_seq_cart_opts o;
    kr_seq_cart_opts_default(&o);
    o.nx = 32;
    o.ny = 12;
    o.fov_x_mm = 200;
    o.fov_y_mm = 150;
    o.te_ms = 5;
    o.tr_ms = 15;
    o.flip_deg = 20;
    for (int sp = 0; sp < KR_SPOIL_COUNT; sp++) {
        o.spoil = (kr_spoil)sp;
        o.ndummy = sp; /* dummies add TRs but no samples */
        kr_seq *s = NULL;
        KT_OK(kr_seq_gre(&s, &o));
        if (!s) continue;
        check_cartesian(s, &o, 150.0);
        kr_seq_info info;
        KT_OK(kr_seq_get_info(s, &info));
        KT_NEAR(info.duration_s, (o.ny + o.ndummy) * o.tr_ms * 1e-3, 1e-12);
        /* excitations every TR */
        int64_t nexc = 0;
        for (int64_t i = 0; i < info.nblocks; i++) {
            kr_seq_block b;
            KT_OK(kr_seq_get_block(s, i, &b));
            if (b.rf.n > 0) {
                KT_NEAR(b.start_s, nexc * o.tr_ms * 1e-3, 1e-12);
                if (sp == KR_SPOIL_RF_GRADIENT) { /* quadratic phase, 117 degrees */
                    double deg = fmod(117.0 * 0.5 * nexc * (nexc + 1), 360.0);
                    KT_NEAR(b.rf.phase_rad, deg * M_PI / 180, 1e-12);
                }
                nexc++;
            }
        }
        KT_CHECK(nexc == o.ny + o.ndummy);
        /* compiled steps: readouts become runs */
        kr_ctx *ctx = NULL;
        KT_OK(kr_ctx_create(&ctx, KR_BACKEND_CPU_SERIAL));
        kr_sim_plan *p = NULL;
        KT_OK(kr_sim_plan_create(&p, ctx, s, NULL));
        kr_sim_info si;
        KT_OK(kr_sim_get_info(p, &si));
        KT_LE(si.nsteps, 10 * (o.ny + o.ndummy));
        KT_GE(si.nintervals, o.nx * o.ny);
        KT_CHECK(si.nsamples == o.nx * o.ny);
        kr_sim_plan_destroy(p);
        kr_ctx_destroy(ctx);
        kr_seq_destroy(s);
    }
    /* timing errors */
    kr_seq *s = NULL;
    o.te_ms = 0.5;
    KT_STATUS(kr_seq_gre(&s, &o), KR_ERR_INVALID_ARG);
    o.te_ms = 5;
    o.tr_ms = 5.5;
    KT_STATUS(kr_seq_gre(&s, &o), KR_ERR_INVALID_ARG);
    o.tr_ms = 15;
    o.bw_hz_px = 20000; /* 0.64 MHz over 200 mm: 75 mT/m */
    KT_STATUS(kr_seq_gre(&s, &o), KR_ERR_INVALID_ARG);
    o.bw_hz_px = 400;
    o.nx = 0;
    KT_STATUS(kr_seq_gre(&s, &o), KR_ERR_INVALID_ARG);
    o.nx = 32;
    o.spoil = KR_SPOIL_COUNT;
    KT_STATUS(kr_seq_gre(&s, &o), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_seq_gre(&s, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_seq_gre(NULL, &o), KR_ERR_INVALID_ARG);
    KT_CHECK(s == NULL);
}

static void test_se_builder(void)
{
    kr_seq_cart_opts o;
    kr_seq_cart_opts_default(&o);
    o.nx = 24;
    o.ny = 10;
    o.fov_x_mm = 180;
    o.fov_y_mm = 240;
    o.te_ms = 30;
    o.tr_ms = 300;
    o.ndummy = 1;
    kr_seq *s = NULL;
    KT_OK(kr_seq_se(&s, &o));
    check_cartesian(s, &o, 150.0);
    /* refocusing pulse centred at TE/2 after the excitation centre, phase 90 degrees */
    kr_seq_info info;
    KT_OK(kr_seq_get_info(s, &info));
    int found = 0;
    for (int64_t i = 0; i < info.nblocks && !found; i++) {
        kr_seq_block b;
        KT_OK(kr_seq_get_block(s, i, &b));
        if (b.rf.n > 0 && b.start_s > 0 && b.start_s < o.tr_ms * 1e-3) {
            KT_NEAR(b.start_s + 0.5 * b.rf.dt_s - 0.5 * o.rf_dur_s, 0.5 * o.te_ms * 1e-3, 1e-12);
            KT_NEAR(b.rf.phase_rad, M_PI / 2, 1e-15);
            found = 1;
        }
    }
    KT_CHECK(found);
    kr_seq_destroy(s);
    s = NULL;
    o.te_ms = 2;
    KT_STATUS(kr_seq_se(&s, &o), KR_ERR_INVALID_ARG);
    o.te_ms = 30;
    o.tr_ms = 20;
    KT_STATUS(kr_seq_se(&s, &o), KR_ERR_INVALID_ARG);
}

static kr_array *map2(int64_t nx, int64_t ny, const double *v)
{
    int64_t d[2] = {nx, ny};
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, KR_F64, 2, d, KR_HOST, NULL));
    if (a) memcpy(a->data, v, (size_t)(nx * ny) * sizeof(double));
    return a;
}

static void test_iso_from_maps(void)
{
    /* 4 x 3 maps, two voxels without PD */
    double t1v[12], t2v[12], pdv[12], dfv[12];
    for (int i = 0; i < 12; i++) {
        t1v[i] = 500 + 10 * i;
        t2v[i] = 50 + i;
        pdv[i] = (i == 3 || i == 7) ? 0.0 : 0.1 * (i + 1);
        dfv[i] = 2.0 * i;
    }
    t1v[3] = 0; /* allowed where PD = 0 */
    kr_array *t1 = map2(4, 3, t1v), *t2 = map2(4, 3, t2v), *pd = map2(4, 3, pdv),
             *df = map2(4, 3, dfv);
    kr_iso_opts o;
    kr_iso_opts_default(&o);
    o.voxel_mm[0] = 2;
    o.voxel_mm[1] = 3;
    o.voxel_mm[2] = 5;
    kr_iso *iso = NULL;
    KT_OK(kr_iso_from_maps(&iso, t1, t2, pd, df, &o));
    KT_CHECK(iso && iso->n == 10);
    int64_t q = 0;
    for (int64_t j = 0; j < 3 && iso; j++)
        for (int64_t i = 0; i < 4; i++) {
            int64_t v = i + 4 * j;
            if (pdv[v] == 0) continue;
            KT_NEAR(iso->x_mm[q], (i - 2) * 2.0, 0);
            KT_NEAR(iso->y_mm[q], (j - 1) * 3.0, 0);
            KT_NEAR(iso->z_mm[q], 0, 0);
            KT_NEAR(iso->m0[q], pdv[v], 1e-7);
            KT_NEAR(iso->t1_ms[q], t1v[v], 0);
            KT_NEAR(iso->df_hz[q], dfv[v], 0);
            KT_NEAR(iso->mz[q], iso->m0[q], 0);
            KT_CHECK(iso->voxel[q] == v);
            q++;
        }
    kr_iso_destroy(iso);
    /* CT grid, sub-voxels and a uniform frequency spread */
    o.grid = KR_GRID_CT;
    o.sub[0] = 2;
    o.sub[1] = 2;
    o.nfreq = 3;
    o.spread_hz = 30;
    KT_OK(kr_iso_from_maps(&iso, t1, t2, pd, NULL, &o));
    KT_CHECK(iso && iso->n == 10 * 12);
    if (iso) {
        /* first voxel (0, 0): centre (-3, -3); sub-positions +-0.5, +-0.75; offsets -10, 0, 10 */
        KT_NEAR(iso->x_mm[0], -3.0 - 0.5, 1e-6);
        KT_NEAR(iso->y_mm[0], -3.0 - 0.75, 1e-6);
        KT_NEAR(iso->df_hz[0], -10, 1e-5);
        KT_NEAR(iso->df_hz[1], 0, 1e-5);
        KT_NEAR(iso->df_hz[2], 10, 1e-5);
        KT_NEAR(iso->x_mm[3], -3.0 + 0.5, 1e-6);
        KT_NEAR(iso->m0[0], 0.1 / 12, 1e-8);
    }
    kr_iso_destroy(iso);
    o.spread = KR_SPREAD_LORENTZ;
    o.sub[0] = o.sub[1] = 1;
    KT_OK(kr_iso_from_maps(&iso, t1, t2, pd, NULL, &o));
    if (iso) KT_NEAR(iso->df_hz[0], -30 * sqrt(3.0), 1e-4); /* tan(-pi/3) */
    kr_iso_destroy(iso);
    /* decimation by 2 and the sine pattern along y */
    kr_iso_opts_default(&o);
    o.decimate = 2;
    o.sine_amp_hz = 40;
    o.sine_cycles = 1;
    KT_OK(kr_iso_from_maps(&iso, t1, t2, pd, NULL, &o));
    /* kept voxels (0,0), (2,0), (0,2), (2,2); PD > 0 in all; grid 2 x 2 of 2 mm */
    KT_CHECK(iso && iso->n == 4);
    if (iso) {
        KT_NEAR(iso->x_mm[1], 0.0, 0);
        KT_NEAR(iso->y_mm[2], 0.0, 0);
        KT_NEAR(iso->t1_ms[3], t1v[2 + 4 * 2], 0);
        KT_NEAR(iso->df_hz[0], 40 * sin(2 * M_PI * (-2.0) / 4.0), 1e-5);
    }
    kr_iso_destroy(iso);
    /* bad inputs */
    kr_iso_opts_default(&o);
    kr_array *small = map2(3, 4, t1v);
    KT_STATUS(kr_iso_from_maps(&iso, t1, small, pd, NULL, &o), KR_ERR_DIM);
    KT_STATUS(kr_iso_from_maps(&iso, t1, t2, pd, small, &o), KR_ERR_DIM);
    KT_STATUS(kr_iso_from_maps(&iso, NULL, t2, pd, NULL, &o), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_iso_from_maps(NULL, t1, t2, pd, NULL, &o), KR_ERR_INVALID_ARG);
    ((double *)t1->data)[5] = -1; /* PD > 0 there */
    KT_STATUS(kr_iso_from_maps(&iso, t1, t2, pd, NULL, &o), KR_ERR_INVALID_ARG);
    ((double *)t1->data)[5] = t1v[5];
    ((double *)t2->data)[6] = 0;
    KT_STATUS(kr_iso_from_maps(&iso, t1, t2, pd, NULL, &o), KR_ERR_INVALID_ARG);
    ((double *)t2->data)[6] = t2v[6];
    ((double *)pd->data)[0] = -0.5;
    KT_STATUS(kr_iso_from_maps(&iso, t1, t2, pd, NULL, &o), KR_ERR_INVALID_ARG);
    memset(pd->data, 0, 12 * sizeof(double));
    KT_STATUS(kr_iso_from_maps(&iso, t1, t2, pd, NULL, &o), KR_ERR_INVALID_ARG);
    memcpy(pd->data, pdv, sizeof pdv);
    o.decimate = 3;
    KT_STATUS(kr_iso_from_maps(&iso, t1, t2, pd, NULL, &o), KR_ERR_INVALID_ARG);
    kr_iso_opts_default(&o);
    o.sub[0] = 0;
    KT_STATUS(kr_iso_from_maps(&iso, t1, t2, pd, NULL, &o), KR_ERR_INVALID_ARG);
    kr_iso_opts_default(&o);
    kr_array *cx = NULL;
    int64_t d[2] = {4, 3};
    KT_OK(kr_array_create(&cx, KR_C64, 2, d, KR_HOST, NULL));
    KT_STATUS(kr_iso_from_maps(&iso, cx, t2, pd, NULL, &o), KR_ERR_DTYPE);
    KT_STATUS(kr_iso_from_tissue(&iso, t1, NULL, &o), KR_ERR_DIM);
    KT_CHECK(iso == NULL);
    kr_array_destroy(cx);
    kr_array_destroy(small);
    /* the MR phantom through kr_iso_from_tissue */
    kr_array *tis = NULL;
    KT_OK(kr_phantom_mr_2d_grid(&tis, KR_GRID_FFT, 32, 32, 1, 1.5));
    KT_OK(kr_iso_from_tissue(&iso, tis, NULL, NULL));
    int64_t count = 0;
    const float *tf = tis->data;
    for (int i = 0; i < 32 * 32; i++)
        count += tf[2 * 1024 + i] > 0;
    KT_CHECK(iso && iso->n == count);
    if (iso) {
        int64_t v = iso->voxel[count / 2];
        KT_NEAR(iso->t1_ms[count / 2], tf[v], 0);
        KT_NEAR(iso->t2_ms[count / 2], tf[1024 + v], 0);
        KT_NEAR(iso->m0[count / 2], tf[2048 + v], 0);
    }
    kr_iso_destroy(iso);
    kr_array_destroy(tis);
    kr_array_destroy(t1);
    kr_array_destroy(t2);
    kr_array_destroy(pd);
    kr_array_destroy(df);
}

int main(void)
{
    KT_RUN(test_validation);
    KT_RUN(test_queries);
    KT_RUN(test_gre_builder);
    KT_RUN(test_se_builder);
    KT_RUN(test_iso_from_maps);
    return kt_finish();
}
