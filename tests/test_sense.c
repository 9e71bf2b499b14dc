/* SENSE: exactness without noise (lattice and general paths), CG-SENSE agreement, g-factor
 * (R = 1, Monte-Carlo pseudo-replicas), noisy R = 4 and R = 8 reconstructions, pre-whitening,
 * determinism, operator adjointness, bad input. */
#include "test_sense_util.h"

#include <stdio.h>

static kr_ctx *g_ctx;

/* Reconstruct obj from lines with maps; returns NRMSE over the support. */
static double sense_error(int64_t nx, int64_t ny, int64_t nc, const kr_sense_opts *o,
                          kr_sense_info *info)
{
    kr_array *maps = kts_maps(nx, ny, nc), *obj = kts_object(nx, ny);
    kr_array *k = kts_kspace(g_ctx, obj, maps), *img = NULL;
    int64_t d2[2] = {nx, ny};
    KT_OK(kr_array_create(&img, KR_C64, 2, d2, KR_HOST, NULL));
    kr_sense_plan *p = NULL;
    KT_OK(kr_sense_plan_create(&p, g_ctx, maps, o));
    KT_OK(kr_sense_execute(p, k, img, NULL));
    if (info) KT_OK(kr_sense_plan_info(p, info));
    uint8_t *sup = kts_support(obj);
    double e = kts_nrmse(img, obj, sup);
    free(sup);
    kr_sense_plan_destroy(p);
    kr_array_destroy(maps);
    kr_array_destroy(obj);
    kr_array_destroy(k);
    kr_array_destroy(img);
    return e;
}

static void test_exact_lattice(void)
{
    kr_sense_opts o;
    kr_sense_opts_default(&o);
    kr_sense_info info;
    /* R = 2, 8 coils, even and odd offsets. */
    for (int off = 0; off < 2; off++) {
        o.accel = 2;
        o.offset = off;
        double e = sense_error(64, 64, 8, &o, &info);
        printf("  R=2 offset %d noise-free NRMSE %.3g (lattice %d)\n", off, e, info.method);
        KT_CHECK(info.method == KR_SENSE_LATTICE && info.fold == 2);
        KT_LE(e, 2e-6);
    }
    /* R = 3 on 96 lines (lattice), R = 4 and odd matrix sizes. */
    o.accel = 3;
    o.offset = 1;
    double e = sense_error(48, 96, 8, &o, &info);
    printf("  R=3 48x96 noise-free NRMSE %.3g\n", e);
    KT_CHECK(info.method == KR_SENSE_LATTICE);
    KT_LE(e, 2e-6);
    o.accel = 4;
    o.offset = 3;
    e = sense_error(33, 60, 12, &o, &info);
    printf("  R=4 33x60 noise-free NRMSE %.3g\n", e);
    KT_CHECK(info.method == KR_SENSE_LATTICE);
    KT_LE(e, 5e-6);
}

static void test_exact_general(void)
{
    kr_sense_opts o;
    kr_sense_opts_default(&o);
    kr_sense_info info;
    /* ny not divisible by R: 90 lines at R = 4 (23 lines), 61 lines at R = 3. */
    o.accel = 4;
    o.offset = 1;
    double e = sense_error(40, 90, 12, &o, &info);
    printf("  R=4 40x90 (90 %% 4 != 0) noise-free NRMSE %.3g (general %d, %lld lines)\n", e,
           info.method, (long long)info.lines);
    KT_CHECK(info.method == KR_SENSE_GENERAL && info.fold == 90 && info.lines == 23);
    KT_LE(e, 5e-6);
    o.accel = 3;
    o.offset = 0;
    e = sense_error(31, 61, 8, &o, &info);
    printf("  R=3 31x61 noise-free NRMSE %.3g\n", e);
    KT_CHECK(info.method == KR_SENSE_GENERAL);
    KT_LE(e, 5e-6);
    /* Lattice plus ACS lines through an explicit mask. */
    uint8_t lines[64];
    KT_OK(kr_cartesian_lines(lines, 64, 4, 0, 12));
    o.lines = lines;
    e = sense_error(32, 64, 8, &o, &info);
    printf("  R=4 + 12 ACS lines noise-free NRMSE %.3g (%lld lines)\n", e, (long long)info.lines);
    KT_CHECK(info.method == KR_SENSE_GENERAL &&
             info.lines == 16 + 9); /* 3 lattice lines in the ACS */
    KT_LE(e, 5e-6);
    /* An explicit lattice mask is recognised. */
    for (int j = 0; j < 64; j++) lines[j] = (j % 4) == 2;
    e = sense_error(32, 64, 8, &o, &info);
    KT_CHECK(info.method == KR_SENSE_LATTICE && info.accel == 4);
    KT_LE(e, 5e-6);
}

/* CG-SENSE on the operator equals the direct solve (lambda 0 and lambda > 0), both paths. */
static void test_cg_agrees(void)
{
    const int64_t nx = 32, ny = 40, nc = 8;
    kr_array *maps = kts_maps(nx, ny, nc), *obj = kts_object(nx, ny);
    kr_array *k = kts_kspace(g_ctx, obj, maps);
    KT_OK(kr_noise_add(g_ctx, k, 2, NULL, 0.02, 7));
    int64_t d2[2] = {nx, ny};
    for (int pass = 0; pass < 4; pass++) {
        uint8_t lines[40];
        int general = pass & 1;
        double lambda = pass >= 2 ? 0.05 : 0.0;
        /* lambda 0 at R = 2 (float CG converges to ~1e-6 on this conditioning), R = 4 else */
        KT_OK(kr_cartesian_lines(lines, ny, lambda > 0 ? 4 : 2, 1, general ? 6 : 0));
        kr_sense_opts o;
        kr_sense_opts_default(&o);
        o.lines = lines;
        o.lambda = lambda;
        kr_sense_plan *p = NULL;
        kr_array *direct = NULL, *cg = NULL, *b = NULL, *ky = NULL;
        KT_OK(kr_array_create(&direct, KR_C64, 2, d2, KR_HOST, NULL));
        KT_OK(kr_array_create(&cg, KR_C64, 2, d2, KR_HOST, NULL));
        KT_OK(kr_array_create(&b, KR_C64, 2, d2, KR_HOST, NULL));
        KT_OK(kr_sense_plan_create(&p, g_ctx, maps, &o));
        KT_OK(kr_sense_execute(p, k, direct, NULL));
        kr_linop *E = NULL, *N = NULL;
        KT_OK(kr_sense_linop_create(&E, g_ctx, maps, lines, KR_HOST));
        KT_OK(kr_linop_normal_op(&N, E));
        KT_OK(kr_array_clone(&ky, k, KR_HOST, NULL));
        KT_OK(kr_cartesian_undersample(g_ctx, ky, lines));
        KT_OK(kr_linop_adjoint(E, ky, b));
        kr_solve_opts so;
        kr_solve_opts_default(&so);
        so.max_iter = 300;
        so.tol = 1e-7;
        so.lambda = lambda;
        kr_solve_info si;
        KT_OK(kr_cg(g_ctx, N, b, cg, &so, &si));
        double e = kts_nrmse(cg, direct, NULL);
        printf("  CG-SENSE vs direct (%s, lambda %g): %.3g after %d iterations\n",
               general ? "general" : "lattice", lambda, e, si.iterations);
        KT_LE(e, 2e-5);
        double rel = 0;
        KT_OK(kr_linop_adjoint_test(E, 11, &rel));
        KT_LE(rel, 1e-5);
        kr_linop_destroy(N);
        kr_linop_destroy(E);
        kr_sense_plan_destroy(p);
        kr_array_destroy(direct);
        kr_array_destroy(cg);
        kr_array_destroy(b);
        kr_array_destroy(ky);
    }
    kr_array_destroy(maps);
    kr_array_destroy(obj);
    kr_array_destroy(k);
}

/* R = 1: g is exactly 1 where the maps are non-zero, and the image is the optimal combination. */
static void test_r1(void)
{
    const int64_t nx = 24, ny = 20, nc = 4;
    kr_array *maps = kts_maps(nx, ny, nc), *obj = kts_object(nx, ny);
    kr_array *k = kts_kspace(g_ctx, obj, maps), *g = NULL, *img = NULL, *ci = NULL, *comb = NULL;
    int64_t d2[2] = {nx, ny};
    KT_OK(kr_array_create(&g, KR_F32, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&img, KR_C64, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&comb, KR_C64, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create_like(&ci, k, KR_HOST, NULL));
    kr_sense_opts o;
    kr_sense_opts_default(&o);
    kr_sense_plan *p = NULL;
    KT_OK(kr_sense_plan_create(&p, g_ctx, maps, &o));
    KT_OK(kr_sense_execute(p, k, img, g));
    int ones = 1;
    const float *gv = g->data;
    for (int64_t i = 0; i < nx * ny; i++) ones &= gv[i] == 1.0f;
    KT_CHECK(ones);
    KT_OK(kr_coil_images(g_ctx, k, ci));
    KT_OK(kr_coil_combine(g_ctx, ci, maps, NULL, comb));
    KT_LE(kts_nrmse(img, comb, NULL), 1e-6);
    /* With lambda: g = N / (N + lambda) per pixel. */
    kr_sense_plan_destroy(p);
    o.lambda = 0.1;
    KT_OK(kr_sense_plan_create(&p, g_ctx, maps, &o));
    KT_OK(kr_sense_gfactor(p, g));
    const float *s = maps->data;
    double worst = 0;
    for (int64_t q = 0; q < nx * ny; q++) {
        double n = 0;
        for (int64_t c = 0; c < nc; c++)
            n += (double)s[2 * (q + nx * ny * c)] * s[2 * (q + nx * ny * c)] +
                 (double)s[2 * (q + nx * ny * c) + 1] * s[2 * (q + nx * ny * c) + 1];
        double ref = n / (n + 0.1);
        if (fabs(gv[q] - ref) > worst) worst = fabs(gv[q] - ref);
    }
    KT_LE(worst, 1e-6);
    kr_sense_plan_destroy(p);
    kr_array_destroy(maps);
    kr_array_destroy(obj);
    kr_array_destroy(k);
    kr_array_destroy(g);
    kr_array_destroy(img);
    kr_array_destroy(ci);
    kr_array_destroy(comb);
}

/* Pseudo-replica g-factor: std of SENSE over noise-only replicas vs std of the fully sampled
 * optimal combination, g = std_R / (std_1 sqrt(R)); compared with the analytic map. */
static void test_gfactor_monte_carlo(void)
{
    const int64_t nx = 32, ny = 48, nc = 8;
    const int R = 3, reps = 400;
    kr_array *maps = kts_maps(nx, ny, nc), *psi = kts_psi(nc, 3);
    int64_t d2[2] = {nx, ny}, d3[3] = {nx, ny, nc};
    kr_array *g = NULL, *img = NULL, *img1 = NULL, *noise = NULL;
    KT_OK(kr_array_create(&g, KR_F32, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&img, KR_C64, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&img1, KR_C64, 2, d2, KR_HOST, NULL));
    kr_sense_opts o;
    kr_sense_opts_default(&o);
    o.psi = psi;
    kr_sense_plan *pR = NULL, *p1 = NULL;
    o.accel = R;
    KT_OK(kr_sense_plan_create(&pR, g_ctx, maps, &o));
    o.accel = 1;
    KT_OK(kr_sense_plan_create(&p1, g_ctx, maps, &o));
    KT_OK(kr_sense_gfactor(pR, g));
    double *vR = calloc((size_t)(nx * ny), sizeof(double)),
           *v1 = calloc((size_t)(nx * ny), sizeof(double));
    for (int r = 0; r < reps; r++) {
        KT_OK(kr_array_create(&noise, KR_C64, 3, d3, KR_HOST, NULL));
        KT_OK(kr_noise_add(g_ctx, noise, 2, psi, 1.0, 1000 + (uint64_t)r));
        KT_OK(kr_sense_execute(pR, noise, img, NULL));
        KT_OK(kr_sense_execute(p1, noise, img1, NULL));
        const float *a = img->data, *b = img1->data;
        for (int64_t q = 0; q < nx * ny; q++) {
            vR[q] += (double)a[2 * q] * a[2 * q] + (double)a[2 * q + 1] * a[2 * q + 1];
            v1[q] += (double)b[2 * q] * b[2 * q] + (double)b[2 * q + 1] * b[2 * q + 1];
        }
        kr_array_destroy(noise);
    }
    const float *gv = g->data;
    double sum_rel = 0, gmean = 0, emean = 0;
    for (int64_t q = 0; q < nx * ny; q++) {
        double ge = sqrt(vR[q] / v1[q] / R);
        sum_rel += fabs(ge - gv[q]) / gv[q];
        gmean += gv[q];
        emean += ge;
    }
    int64_t n = nx * ny;
    printf("  R=%d g-factor: analytic mean %.4f, pseudo-replica mean %.4f, mean |rel diff| %.4f"
           " (%d replicas)\n",
           R, gmean / n, emean / n, sum_rel / n, reps);
    /* Each variance estimate from 400 replicas has relative std ~ 1/sqrt(400) = 5 %, so the
     * ratio of two has ~7 % and g (a square root) ~3.5 %; mean |rel diff| ~ 0.8 * 3.5 %. */
    KT_LE(sum_rel / n, 0.04);
    KT_NEAR(emean / gmean, 1.0, 0.01);
    KT_GE(gmean / n, 1.0);
    free(vR);
    free(v1);
    kr_sense_plan_destroy(pR);
    kr_sense_plan_destroy(p1);
    kr_array_destroy(maps);
    kr_array_destroy(psi);
    kr_array_destroy(g);
    kr_array_destroy(img);
    kr_array_destroy(img1);
}

/* Noisy reconstructions at R = 4 (16 coils) and R = 8 (32 coils, Mayo Sarmiento (2018)'s failing case).
 * Noise sigma^2 Psi per k-space sample. Without regularisation the error is pure noise (the
 * noise-free solve is exact), so its size is predicted by the g-factor map:
 *   NRMSE_pred^2 = sum_p R g_p^2 sigma^2 / N_p / sum_p |x_p|^2,   N_p = S_p^H Psi^-1 S_p
 * (sigma^2 / N_p is the noise variance of the fully sampled optimal combination at p). */
static void noisy_case(int64_t n, int64_t nc, int R, double sigma, double lambda, double max_nrmse,
                       double max_gmean)
{
    kr_array *maps = kts_maps(n, n, nc), *obj = kts_object(n, n), *psi = kts_psi(nc, 5);
    kr_array *k = kts_kspace(g_ctx, obj, maps), *img = NULL, *g = NULL, *w = NULL, *wm = NULL;
    KT_OK(kr_noise_add(g_ctx, k, 2, psi, sigma, 99));
    int64_t d2[2] = {n, n};
    KT_OK(kr_array_create(&img, KR_C64, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&g, KR_F32, 2, d2, KR_HOST, NULL));
    kr_sense_opts o;
    kr_sense_opts_default(&o);
    o.accel = R;
    o.offset = 0;
    o.psi = psi;
    o.lambda = lambda;
    kr_sense_plan *p = NULL;
    KT_OK(kr_sense_plan_create(&p, g_ctx, maps, &o));
    double t0 = kr_time_now();
    KT_OK(kr_sense_execute(p, k, img, g));
    double t1 = kr_time_now();
    uint8_t *sup = kts_support(obj);
    double e = kts_nrmse(img, obj, sup);
    KT_OK(kr_noise_whitener(psi, &w));
    KT_OK(kr_array_clone(&wm, maps, KR_HOST, NULL));
    KT_OK(kr_coil_apply(g_ctx, wm, 2, w));
    const float *gv = g->data, *sw = wm->data, *ov = obj->data;
    double gm = 0, gx = 0, pred = 0, ref = 0, e1 = 0;
    int64_t cnt = 0;
    for (int64_t q = 0; q < n * n; q++)
        if (sup[q]) {
            double np = 0;
            for (int64_t c = 0; c < nc; c++)
                np += (double)sw[2 * (q + n * n * c)] * sw[2 * (q + n * n * c)] +
                      (double)sw[2 * (q + n * n * c) + 1] * sw[2 * (q + n * n * c) + 1];
            pred += R * (double)gv[q] * gv[q] * sigma * sigma / np;
            e1 += sigma * sigma / np;
            ref += (double)ov[2 * q] * ov[2 * q] + (double)ov[2 * q + 1] * ov[2 * q + 1];
            gm += gv[q];
            if (gv[q] > gx) gx = gv[q];
            cnt++;
        }
    gm /= (double)cnt;
    pred = sqrt(pred / ref);
    e1 = sqrt(e1 / ref);
    printf("  %lldx%lld, %lld coils, R=%d, lambda %g: NRMSE %.3g (full sampling %.4f, "
           "predicted from g at lambda 0: %.4f), g mean %.3f max %.3f (object), %.1f ms\n",
           (long long)n, (long long)n, (long long)nc, R, lambda, e, e1, pred, gm, gx,
           1e3 * (t1 - t0));
    KT_LE(e, max_nrmse);
    KT_LE(gm, max_gmean);
    if (lambda == 0) KT_GE(gm, 1.0);
    if (lambda == 0 && sigma > 0) KT_NEAR(e / pred, 1.0, 0.05);
    free(sup);
    kr_sense_plan_destroy(p);
    kr_array_destroy(maps);
    kr_array_destroy(obj);
    kr_array_destroy(psi);
    kr_array_destroy(k);
    kr_array_destroy(img);
    kr_array_destroy(g);
    kr_array_destroy(w);
    kr_array_destroy(wm);
}

static void test_noisy(void)
{
    /* R = 4, 16 coils, full-sampling NRMSE about 2 %. */
    noisy_case(128, 16, 4, 0.002, 0.0, 0.12, 2.5);
    /* R = 8, 32 coils on one ring: g averages about 50 over the object (the unfolding is
     * exact, noise-free below; the noise amplification is the coil geometry's), so a noisy
     * R = 8 needs regularisation: at full-sampling NRMSE 0.4 % the unregularised error is
     * about 0.8, lambda = 1e-5 brings it to about 0.16. */
    noisy_case(128, 32, 8, 0.0, 0.0, 2e-5, 1e9);
    noisy_case(128, 32, 8, 5e-4, 0.0, 1.0, 60.0);
    noisy_case(128, 32, 8, 5e-4, 1e-5, 0.2, 12.0);
}

/* psi in the plan == whitening data and maps by hand; thread count does not change bits. */
static void test_whitening_and_determinism(void)
{
    const int64_t nx = 40, ny = 32, nc = 6;
    kr_array *maps = kts_maps(nx, ny, nc), *obj = kts_object(nx, ny), *psi = kts_psi(nc, 9);
    kr_array *k = kts_kspace(g_ctx, obj, maps), *w = NULL, *wk = NULL, *wm = NULL;
    KT_OK(kr_noise_add(g_ctx, k, 2, psi, 0.03, 5));
    KT_OK(kr_noise_whitener(psi, &w));
    KT_OK(kr_array_clone(&wk, k, KR_HOST, NULL));
    KT_OK(kr_array_clone(&wm, maps, KR_HOST, NULL));
    KT_OK(kr_coil_apply(g_ctx, wk, 2, w));
    KT_OK(kr_coil_apply(g_ctx, wm, 2, w));
    int64_t d2[2] = {nx, ny};
    kr_array *a = NULL, *b = NULL, *c = NULL, *ga = NULL, *gc = NULL;
    KT_OK(kr_array_create(&a, KR_C64, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&b, KR_C64, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&c, KR_C64, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&ga, KR_F32, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&gc, KR_F32, 2, d2, KR_HOST, NULL));
    for (int general = 0; general < 2; general++) {
        uint8_t lines[32];
        KT_OK(kr_cartesian_lines(lines, ny, 2, 1, general ? 4 : 0));
        kr_sense_opts o;
        kr_sense_opts_default(&o);
        o.lines = lines;
        o.lambda = 0.001;
        o.psi = psi;
        kr_sense_plan *p = NULL, *q = NULL;
        KT_OK(kr_sense_plan_create(&p, g_ctx, maps, &o));
        o.psi = NULL;
        KT_OK(kr_sense_plan_create(&q, g_ctx, wm, &o));
        KT_OK(kr_ctx_set_threads(g_ctx, 2));
        KT_OK(kr_sense_execute(p, k, a, ga));
        KT_OK(kr_sense_execute(q, wk, b, NULL));
        KT_LE(kts_nrmse(a, b, NULL), 1e-6);
        KT_OK(kr_ctx_set_threads(g_ctx, 1));
        KT_OK(kr_sense_execute(p, k, c, gc));
        KT_CHECK(memcmp(a->data, c->data, kr_array_bytes(a)) == 0);
        KT_CHECK(memcmp(ga->data, gc->data, kr_array_bytes(ga)) == 0);
        KT_OK(kr_ctx_set_threads(g_ctx, 0));
        kr_sense_plan_destroy(p);
        kr_sense_plan_destroy(q);
    }
    kr_array_destroy(maps);
    kr_array_destroy(obj);
    kr_array_destroy(psi);
    kr_array_destroy(k);
    kr_array_destroy(w);
    kr_array_destroy(wk);
    kr_array_destroy(wm);
    kr_array_destroy(a);
    kr_array_destroy(b);
    kr_array_destroy(c);
    kr_array_destroy(ga);
    kr_array_destroy(gc);
}

/* Pixels with zero sensitivity are left out (0, g = 0); identical maps make systems singular. */
static void test_masked_and_singular(void)
{
    const int64_t nx = 16, ny = 16, nc = 4;
    kr_array *maps = kts_maps(nx, ny, nc), *obj = kts_object(nx, ny);
    float *s = maps->data;
    /* zero all coils on row y = 3 (its fold partner at R = 2 is y = 11) */
    for (int64_t c = 0; c < nc; c++)
        for (int64_t x = 0; x < nx; x++)
            s[2 * (x + nx * (3 + ny * c))] = s[2 * (x + nx * (3 + ny * c)) + 1] = 0;
    kr_array *k = kts_kspace(g_ctx, obj, maps), *img = NULL, *g = NULL;
    int64_t d2[2] = {nx, ny};
    KT_OK(kr_array_create(&img, KR_C64, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&g, KR_F32, 2, d2, KR_HOST, NULL));
    for (int general = 0; general < 2; general++) {
        uint8_t lines[16];
        KT_OK(kr_cartesian_lines(lines, ny, 2, 0, general ? 2 : 0));
        kr_sense_opts o;
        kr_sense_opts_default(&o);
        o.lines = lines;
        kr_sense_plan *p = NULL;
        KT_OK(kr_sense_plan_create(&p, g_ctx, maps, &o));
        KT_OK(kr_sense_execute(p, k, img, g));
        const float *iv = img->data, *gv = g->data, *ov = obj->data;
        double worst = 0;
        int zero_ok = 1;
        for (int64_t x = 0; x < nx; x++)
            for (int64_t y = 0; y < ny; y++) {
                int64_t q = x + nx * y;
                if (y == 3) {
                    zero_ok &= iv[2 * q] == 0 && iv[2 * q + 1] == 0 && gv[q] == 0;
                    continue;
                }
                double d = hypot(iv[2 * q] - ov[2 * q], iv[2 * q + 1] - ov[2 * q + 1]);
                if (d > worst) worst = d;
            }
        KT_CHECK(zero_ok);
        KT_LE(worst, 1e-5);
        kr_sense_plan_destroy(p);
    }
    /* All coils identical: R = 2 systems are singular (lambda 0). */
    for (int64_t c = 1; c < nc; c++)
        memcpy(s + 2 * nx * ny * c, s, sizeof(float) * 2 * (size_t)(nx * ny));
    kr_sense_opts o;
    kr_sense_opts_default(&o);
    o.accel = 2;
    kr_sense_plan *p = NULL;
    KT_OK(kr_sense_plan_create(&p, g_ctx, maps, &o));
    KT_OK(kr_ctx_set_log_level(g_ctx, KR_LOG_QUIET));
    KT_OK(kr_sense_execute(p, k, img, g));
    KT_OK(kr_ctx_set_log_level(g_ctx, KR_LOG_WARN));
    kr_sense_info info;
    KT_OK(kr_sense_plan_info(p, &info));
    KT_CHECK(info.singular > 0);
    KT_CHECK(isinf(((const float *)g->data)[0]));
    kr_sense_plan_destroy(p);
    kr_array_destroy(maps);
    kr_array_destroy(obj);
    kr_array_destroy(k);
    kr_array_destroy(img);
    kr_array_destroy(g);
}

static void test_bad_input(void)
{
    const int64_t nx = 16, ny = 16, nc = 4;
    kr_array *maps = kts_maps(nx, ny, nc), *small = kts_maps(nx, ny - 2, nc), *fmaps = NULL;
    int64_t d2[2] = {nx, ny}, d3[3] = {nx, ny, nc}, dp[2] = {nc + 1, nc + 1};
    KT_OK(kr_array_create(&fmaps, KR_F32, 3, d3, KR_HOST, NULL));
    kr_sense_opts o;
    kr_sense_opts_default(&o);
    kr_sense_plan *p = NULL;
    KT_STATUS(kr_sense_plan_create(NULL, g_ctx, maps, &o), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_sense_plan_create(&p, NULL, maps, &o), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_sense_plan_create(&p, g_ctx, NULL, &o), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_sense_plan_create(&p, g_ctx, maps, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_sense_plan_create(&p, g_ctx, fmaps, &o), KR_ERR_DTYPE);
    o.accel = 5;
    KT_STATUS(kr_sense_plan_create(&p, g_ctx, maps, &o), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "exceeds the number of coils") != NULL);
    o.accel = 0;
    KT_STATUS(kr_sense_plan_create(&p, g_ctx, maps, &o), KR_ERR_INVALID_ARG);
    o.accel = -2;
    KT_STATUS(kr_sense_plan_create(&p, g_ctx, maps, &o), KR_ERR_INVALID_ARG);
    o.accel = 2;
    o.offset = 2;
    KT_STATUS(kr_sense_plan_create(&p, g_ctx, maps, &o), KR_ERR_INVALID_ARG);
    o.offset = 0;
    o.lambda = -1;
    KT_STATUS(kr_sense_plan_create(&p, g_ctx, maps, &o), KR_ERR_INVALID_ARG);
    o.lambda = NAN;
    KT_STATUS(kr_sense_plan_create(&p, g_ctx, maps, &o), KR_ERR_INVALID_ARG);
    o.lambda = 0;
    kr_array *psi = NULL;
    KT_OK(kr_array_create(&psi, KR_C64, 2, dp, KR_HOST, NULL));
    o.psi = psi;
    KT_STATUS(kr_sense_plan_create(&p, g_ctx, maps, &o), KR_ERR_DIM);
    kr_array_destroy(psi);
    dp[0] = dp[1] = nc;
    KT_OK(kr_array_create(&psi, KR_C64, 2, dp, KR_HOST, NULL)); /* all zero: not PD */
    o.psi = psi;
    KT_STATUS(kr_sense_plan_create(&p, g_ctx, maps, &o), KR_ERR_INVALID_ARG);
    ((float *)psi->data)[2] = 1.0f; /* (1, 0) set, (0, 1) not: not Hermitian */
    KT_STATUS(kr_sense_plan_create(&p, g_ctx, maps, &o), KR_ERR_INVALID_ARG);
    kr_array_destroy(psi);
    o.psi = NULL;
    uint8_t lines[16] = {0};
    lines[3] = 1; /* 1 line x 4 coils < 16 pixels */
    o.lines = lines;
    KT_STATUS(kr_sense_plan_create(&p, g_ctx, maps, &o), KR_ERR_INVALID_ARG);
    o.lines = NULL;
    /* Execute operands. */
    KT_OK(kr_sense_plan_create(&p, g_ctx, maps, &o));
    kr_array *img = NULL, *g = NULL, *gc = NULL, dev;
    KT_OK(kr_array_create(&img, KR_C64, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&g, KR_F32, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&gc, KR_C64, 2, d2, KR_HOST, NULL));
    KT_STATUS(kr_sense_execute(NULL, maps, img, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_sense_execute(p, NULL, img, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_sense_execute(p, maps, NULL, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_sense_execute(p, small, img, NULL), KR_ERR_DIM);
    KT_STATUS(kr_sense_execute(p, fmaps, img, NULL), KR_ERR_DTYPE);
    KT_STATUS(kr_sense_execute(p, maps, g, NULL), KR_ERR_DTYPE);
    KT_STATUS(kr_sense_execute(p, maps, img, gc), KR_ERR_DTYPE);
    KT_STATUS(kr_sense_execute(p, maps, img, img), KR_ERR_DTYPE);
    KT_OK(kr_array_wrap(&dev, KR_C64, 3, d3, (void *)0x1000, KR_DEVICE));
    KT_STATUS(kr_sense_execute(p, &dev, img, NULL), KR_ERR_LOCATION);
    KT_STATUS(kr_sense_gfactor(p, img), KR_ERR_DTYPE);
    KT_STATUS(kr_sense_plan_info(p, NULL), KR_ERR_INVALID_ARG);
    kr_sense_plan *p2 = NULL;
    KT_STATUS(kr_sense_plan_create(&p2, g_ctx, &dev, &o), KR_ERR_LOCATION);
    KT_CHECK(p2 == NULL);
    kr_linop *E = NULL;
    KT_STATUS(kr_sense_linop_create(&E, g_ctx, fmaps, NULL, KR_HOST), KR_ERR_DTYPE);
    KT_STATUS(kr_sense_linop_create(&E, g_ctx, NULL, NULL, KR_HOST), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_sense_linop_create(&E, g_ctx, maps, NULL, KR_DEVICE), KR_ERR_LOCATION);
    kr_sense_plan_destroy(p);
    kr_sense_plan_destroy(NULL);
    kr_array_destroy(maps);
    kr_array_destroy(small);
    kr_array_destroy(fmaps);
    kr_array_destroy(img);
    kr_array_destroy(g);
    kr_array_destroy(gc);
}

int main(void)
{
    if (kr_ctx_create(&g_ctx, KR_BACKEND_CPU) != KR_OK) return 1;
    KT_RUN(test_exact_lattice);
    KT_RUN(test_exact_general);
    KT_RUN(test_cg_agrees);
    KT_RUN(test_r1);
    KT_RUN(test_gfactor_monte_carlo);
    KT_RUN(test_noisy);
    KT_RUN(test_whitening_and_determinism);
    KT_RUN(test_masked_and_singular);
    KT_RUN(test_bad_input);
    kr_ctx_destroy(g_ctx);
    return kt_finish();
}
