/* kray bench reg: regularised reconstruction (kray/mrreg.h, kray/reg.h) at the target sizes.
 *  mri:   kr_mrreg, l1-wavelet by FISTA on the Toeplitz normal, 256^2, 8 coils, 64 radial
 *         spokes of 512 samples, 100 iterations, on the --backend; peer `bart pics -e -R W` with
 *         the same iterations (whole process, CPU);
 *  cone:  TV by FISTA (TV prox, x >= 0) on the matched Joseph pair, cone beam 256^3 from 90
 *         views of 384^2, 50 iterations; peer ASTRA SIRT3D_CUDA with the same iterations
 *         through --peer bench/peer_astra_cone.py (for scale: ASTRA has no TV);
 *  cone-quality: the 90-view 128^3 case with noise, PSNR against the phantom of FDK, CGLS at
 *         its best iteration and TV (tests/test_reg_cone.c runs it at 48^3).
 * Each time is the best (and median) of --reps runs after a warm-up, of the whole call (plans,
 * step estimate, iterations) with the data already in the backend's memory; "per_iter_s" is
 * (t(N) - t(1)) / (N - 1), which leaves out what a run pays once. --small: CPU smoke sizes. */
#include "bench.h"
#include "internal.h"

#include "kray/fdk.h"
#include "kray/mrreg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct kc_rg {
    int json, reps, small;
    const kr_ctx *ctx;
    const char *dev;
} kc_rg;

static void kc_rg_line(const kc_rg *b, const char *cs, const char *impl, const char *size,
                       int iters, double best, double median, double per_iter, double psnr,
                       double vs, const char *note)
{
    const int peer = !strcmp(impl, "bart") || !strcmp(impl, "astra");
    if (b->json) {
        kc_jo j;
        kc_jo_begin(&j);
        kc_jo_str(&j, "bench", "reg");
        kc_jo_str(&j, "case", cs);
        kc_jo_str(&j, "impl", impl);
        kc_jo_str(&j, "backend", peer ? "-" : kr_backend_name(kr_ctx_backend(b->ctx)));
        kc_jo_str(&j, "device", peer ? "-" : b->dev);
        kc_jo_str(&j, "size", size);
        kc_jo_int(&j, "iterations", iters);
        kc_jo_num(&j, "time_s", best);
        kc_jo_num(&j, "time_median_s", median);
        kc_jo_num(&j, "per_iter_s", per_iter);
        kc_jo_num(&j, "psnr_db", psnr);
        kc_jo_num(&j, "nrmse_vs_peer", vs);
        kc_jo_str(&j, "note", note);
        kc_jo_end(&j);
    } else {
        printf("%-13s %-6s %-26s %4d it  %9.4f s (median %9.4f)  %8.5f s/it  PSNR %6.2f  vs "
               "peer %.3g  %s\n",
               cs, impl, size, iters, best, median, per_iter, psnr, vs, note);
    }
    fflush(stdout);
}

/* Sort t[0..n) and give the best and the median. */
static void kc_rg_stats(double *t, int n, double *best, double *median)
{
    kc_times_sort(t, n);
    *best = t[0];
    *median = t[n / 2];
}

/* ||a - s b|| / ||a|| with the complex least-squares scale s (c64 host, n elements). */
static double kc_rg_fit(const float *a, const float *b, int64_t n)
{
    double nr = 0, ni = 0, d = 0, aa = 0, e = 0;
    for (int64_t i = 0; i < n; i++) {
        const double br = b[2 * i], bi = b[2 * i + 1], ar = a[2 * i], ai = a[2 * i + 1];
        nr += br * ar + bi * ai, ni += br * ai - bi * ar, d += br * br + bi * bi;
        aa += ar * ar + ai * ai;
    }
    if (!(d > 0) || !(aa > 0)) return NAN;
    const double sr = nr / d, si = ni / d;
    for (int64_t i = 0; i < n; i++) {
        const double er = a[2 * i] - (sr * b[2 * i] - si * b[2 * i + 1]);
        const double ei = a[2 * i + 1] - (sr * b[2 * i + 1] + si * b[2 * i]);
        e += er * er + ei * ei;
    }
    return sqrt(e / aa);
}

/* PSNR (range 1) of |x| against the real truth after the least-squares real scale of |x|. */
static double kc_rg_psnr_c(const float *x, const float *t, int64_t n)
{
    double xt = 0, xx = 0, e = 0;
    for (int64_t i = 0; i < n; i++) {
        const double m = hypot(x[2 * i], x[2 * i + 1]);
        xt += m * t[i], xx += m * m;
    }
    const double s = xx > 0 ? xt / xx : 0;
    for (int64_t i = 0; i < n; i++) {
        const double d = s * hypot(x[2 * i], x[2 * i + 1]) - t[i];
        e += d * d;
    }
    return 10 * log10((double)n / e);
}

/* n Gaussian values of deviation sigma (Box-Muller on kray's counter-based stream). */
static void kc_rg_noise(double *x, int64_t n, double sigma, uint64_t seed)
{
    for (int64_t i = 0; i < n; i += 2) {
        const double u1 = ((double)(kri_rand_u64(seed, (uint64_t)i) >> 11) + 0.5) / 9007199254740992.0;
        const double u2 = ((double)(kri_rand_u64(seed, (uint64_t)i + 1) >> 11) + 0.5) / 9007199254740992.0;
        const double r = sigma * sqrt(-2.0 * log(u1)), t = 6.283185307179586 * u2;
        x[i] = r * cos(t);
        if (i + 1 < n) x[i + 1] = r * sin(t);
    }
}

/* ---- MRI ------------------------------------------------------------------------------------ */
typedef struct kc_mrcase {
    int64_t n, nc, spokes, M;
    int iters;
    double lambda;
    kr_array *traj, *k, *maps, *truth; /* host: f32 [3, 2n, S]; c64 [M, C]; c64 [n, n, C]; f32 */
} kc_mrcase;

static void kc_mrcase_free(kc_mrcase *c)
{
    kr_array_destroy(c->traj), kr_array_destroy(c->k), kr_array_destroy(c->maps);
    kr_array_destroy(c->truth);
}

static kr_status kc_mrcase_make(kc_mrcase *c, int small)
{
    memset(c, 0, sizeof *c);
    c->n = small ? 64 : 256, c->nc = small ? 4 : 8, c->spokes = small ? 16 : 64;
    c->iters = small ? 10 : 100;
    c->lambda = 0.005;
    kr_radial_opts ro;
    kr_radial_opts_default(&ro);
    ro.samples = c->n;
    ro.oversampling = 2;
    ro.spokes = c->spokes;
    kr_status s = kr_traj_radial(&c->traj, &ro);
    if (s != KR_OK) return s;
    c->M = kr_array_numel(c->traj) / 3;
    double *k = malloc(sizeof(double) * 2 * (size_t)c->M);
    if (!k) return KR_ERR_OOM_HOST;
    for (int64_t m = 0; m < c->M; m++)
        for (int d = 0; d < 2; d++) k[2 * m + d] = ((const float *)c->traj->data)[3 * m + d];
    kr_array *a = NULL, *b = NULL;
    s = kr_phantom_kspace_coils(&a, KR_PHANTOM_MODIFIED_SL, k, c->M, c->n, (int)c->nc);
    free(k);
    if (s == KR_OK) s = kr_array_astype(&c->k, a, KR_C64);
    if (s == KR_OK) s = kr_phantom_coil_maps(&b, c->n, (int)c->nc);
    if (s == KR_OK) s = kr_array_astype(&c->maps, b, KR_C64);
    if (s == KR_OK)
        s = kr_phantom_2d_grid(&c->truth, kr_phantom_ellipses(KR_PHANTOM_MODIFIED_SL, NULL), 10,
                               KR_GRID_FFT, c->n, c->n, 2, KR_F32);
    kr_array_destroy(a), kr_array_destroy(b);
    if (s != KR_OK) return s;
    /* complex Gaussian noise of 2 % of the largest sample */
    float *kv = c->k->data;
    double mx = 0;
    for (int64_t i = 0; i < 2 * kr_array_numel(c->k); i++) mx = fmax(mx, fabs(kv[i]));
    double *nz = malloc(sizeof(double) * 2 * (size_t)kr_array_numel(c->k));
    if (!nz) return KR_ERR_OOM_HOST;
    kc_rg_noise(nz, 2 * kr_array_numel(c->k), 0.02 * mx, 77);
    for (int64_t i = 0; i < 2 * kr_array_numel(c->k); i++) kv[i] += (float)nz[i];
    free(nz);
    return KR_OK;
}

/* "256^2 8c 64x512" */
static const char *kc_mr_size(const kc_mrcase *c, char *buf, size_t n)
{
    snprintf(buf, n, "%lld^2 %lldc %lldx%lld", (long long)c->n, (long long)c->nc,
             (long long)c->spokes, (long long)(2 * c->n));
    return buf;
}

/* kray: warm-up, `reps` timed runs of c->iters and one of 1 iteration; the image on the host. */
static kr_status kc_rg_mri_kray(const kc_rg *b, const kc_mrcase *c, kr_array **img)
{
    const kr_ctx *ctx = b->ctx;
    const kr_loc loc = kr_ctx_backend(ctx) == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
    int64_t xd[2] = {c->n, c->n};
    kr_array *dk = NULL, *dx = NULL;
    kr_status s = kr_array_clone(&dk, c->k, loc, ctx);
    if (s == KR_OK) s = kr_array_create(&dx, KR_C64, 2, xd, loc, ctx);
    kr_mrreg_data d;
    memset(&d, 0, sizeof d);
    d.ndim = 2;
    d.dims[0] = d.dims[1] = c->n;
    d.frames = 1;
    d.maps = c->maps;
    d.kspace = dk;
    d.traj = c->traj;
    d.eps = 1e-3;
    d.toeplitz = 1;
    kr_mrreg_term t = {KR_MRREG_L1_WAVELET, c->lambda, 0, 0};
    kr_mrreg_opts o;
    kr_mrreg_opts_default(&o);
    double *ts = calloc((size_t)b->reps, sizeof *ts), t1 = 0;
    if (!ts) s = KR_ERR_OOM_HOST;
    for (int r = -2; r < b->reps && s == KR_OK; r++) { /* -2: warm-up, -1: one iteration */
        o.max_iter = r == -1 ? 1 : c->iters;
        const double a = kr_time_now();
        s = kr_mrreg(ctx, &d, &t, 1, &o, dx, NULL);
        if (s == KR_OK) s = kc_bench_sync(ctx);
        const double e = kr_time_now() - a;
        if (r == -1) t1 = e;
        if (r >= 0) ts[r] = e;
    }
    if (s == KR_OK) s = kr_array_clone(img, dx, KR_HOST, ctx);
    if (s == KR_OK) {
        double best, med;
        kc_rg_stats(ts, b->reps, &best, &med);
        char size[64], note[160];
        kc_mr_size(c, size, sizeof size);
        snprintf(note, sizeof note, "l1-wavelet %g, FISTA on the Toeplitz normal, one run of 1 "
                 "iteration %.4f s", c->lambda, t1);
        kc_rg_line(b, "mri_l1wavelet", "kray", size, c->iters, best, med,
                   (best - t1) / (c->iters - 1), kc_rg_psnr_c((*img)->data, c->truth->data,
                                                               c->n * c->n), NAN, note);
    }
    free(ts);
    kr_array_destroy(dk), kr_array_destroy(dx);
    return s;
}

/* `bart pics -e -R W:3:0:lambda` on the same data (whole process, file I/O included). */
static kr_status kc_rg_mri_bart(const kc_rg *b, const kc_mrcase *c, const char *tmp,
                                const kr_array *kimg)
{
    char st[4][1024], f[1100], cmd[5200];
    kr_array *out = NULL, *img = NULL;
    kr_status s = kc_bart_radial_inputs(tmp, "reg", c->traj, c->k, c->maps, c->n, 2 * c->n,
                                        c->spokes, c->nc, st);
    const char *tp = st[0], *kp = st[1], *mp = st[2], *op = st[3];
    double *ts = calloc((size_t)b->reps, sizeof *ts), t1 = 0;
    if (s == KR_OK && !ts) s = KR_ERR_OOM_HOST;
    for (int r = -1; r < b->reps && s == KR_OK; r++) {
        snprintf(cmd, sizeof cmd, "bart pics -e -R W:3:0:%g -i %d -t '%s' '%s' '%s' '%s' "
                 ">/dev/null 2>&1", c->lambda, r < 0 ? 1 : c->iters, tp, kp, mp, op);
        const double a = kr_time_now();
        if (system(cmd) != 0) {
            fprintf(stderr, "kray bench reg: bart peer failed: %s\n", cmd);
            s = KR_ERR_IO;
            break;
        }
        if (r < 0) t1 = kr_time_now() - a;
        else ts[r] = kr_time_now() - a;
    }
    if (s == KR_OK) snprintf(f, sizeof f, "%s.cfl", op), s = kr_read(f, &out, NULL, NULL);
    if (s == KR_OK) s = kr_array_astype(&img, out, KR_C64);
    if (s == KR_OK) {
        double best, med;
        kc_rg_stats(ts, b->reps, &best, &med);
        char size[64], note[200];
        kc_mr_size(c, size, sizeof size);
        snprintf(note, sizeof note, "bart pics -e -R W:3:0:%g, whole process incl. file I/O; "
                 "-i 1 %.4f s; nrmse_vs_peer: kray's image against it after a scale",
                 c->lambda, t1);
        const int64_t np = c->n * c->n;
        kc_rg_line(b, "mri_l1wavelet", "bart", size, c->iters, best, med,
                   (best - t1) / (c->iters - 1), kc_rg_psnr_c(img->data, c->truth->data, np),
                   kimg ? kc_rg_fit(img->data, kimg->data, np) : NAN, note);
    }
    free(ts);
    kr_array_destroy(out), kr_array_destroy(img);
    kc_bart_remove(st);
    return s;
}

/* ---- cone beam -------------------------------------------------------------------------------- */
/* The scan of the cone cases: n^3 voxels in a 128 mm cube, `views` over 360 degrees, a det^2
 * flat detector of 230.4 mm, source-origin 400 mm, source-detector 600 mm. */
static kr_status kc_rg_geom(kr_ct_geom **g, int64_t n, int64_t views, int64_t det)
{
    kr_ct_scan sc;
    kr_ct_scan_default(&sc);
    sc.type = KR_CT_CONE;
    sc.nviews = views;
    sc.start_deg = 0;
    sc.stop_deg = 360;
    sc.det_count = sc.det_rows = det;
    sc.det_spacing_mm = 230.4 / (double)det;
    sc.sod_mm = 400;
    sc.sdd_mm = 600;
    kr_ct_grid grid;
    kr_ct_grid_3d(&grid, n, n, n, 128.0 / (double)n);
    return kr_ct_geom_create(g, &sc, &grid);
}

/* PSNR (range 1) over the voxels within 60 mm of the axis and 32 mm of the central plane, as
 * tests/test_reg_cone.c measures (host f32 volumes of n^3). */
static double kc_rg_psnr_vol(const kr_array *x, const kr_array *t, int64_t n)
{
    const float *a = x->data, *b = t->data;
    const double h = 128.0 / (double)n;
    double se = 0;
    int64_t cnt = 0;
    for (int64_t k = 0; k < n; k++) {
        const double pz = ((double)k + 0.5 - 0.5 * (double)n) * h;
        if (fabs(pz) > 32.0) continue;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) {
                const double px = ((double)i + 0.5 - 0.5 * (double)n) * h;
                const double py = ((double)j + 0.5 - 0.5 * (double)n) * h;
                if (px * px + py * py > 3600.0) continue;
                const int64_t p = i + n * (j + n * k);
                se += ((double)a[p] - b[p]) * ((double)a[p] - b[p]);
                cnt++;
            }
    }
    return 10 * log10((double)cnt / se);
}

/* Exact projections with noise sigma (host f32) and the rasterised phantom (host f32). */
static kr_status kc_rg_cone_data(const kr_ct_geom *g, int64_t n, double sigma, kr_array **y,
                                 kr_array **truth)
{
    kr_ctx *cpu = NULL;
    kr_status s = kr_ctx_create(&cpu, KR_BACKEND_CPU);
    if (s == KR_OK) kr_ctx_set_quiet(cpu, 1);
    if (s == KR_OK) s = kr_ct_phantom_projections(y, cpu, g, KR_PHANTOM_MODIFIED_SL, 1, KR_F32);
    if (s == KR_OK) s = kr_phantom_3d(truth, KR_PHANTOM_MODIFIED_SL, n, n, n, 2, KR_F32);
    kr_ctx_destroy(cpu);
    if (s != KR_OK || sigma <= 0) return s;
    const int64_t m = kr_array_numel(*y);
    double *nz = malloc(sizeof(double) * (size_t)m);
    if (!nz) return KR_ERR_OOM_HOST;
    kc_rg_noise(nz, m, sigma, 4242);
    for (int64_t i = 0; i < m; i++) ((float *)(*y)->data)[i] += (float)nz[i];
    free(nz);
    return KR_OK;
}

/* TV by FISTA (the TV prox, 10 inner steps, x >= 0, lambda 30) from zero, `iters` iterations,
 * on device data when the backend is CUDA; the volume back on the host in x. */
static kr_status kc_rg_tv(const kr_ctx *ctx, const kr_ct_geom *g, const kr_array *dy, int iters,
                          kr_array *dx)
{
    kr_ct_projector_opts po;
    kr_ct_projector_opts_default(&po);
    kr_linop *A = NULL;
    kr_prox *tv = NULL;
    int64_t d[3];
    kr_ct_geom_image_dims(g, d);
    kr_status s = kr_ct_linop_create(&A, ctx, g, &po);
    if (s == KR_OK) s = kr_prox_tv_create(&tv, ctx, KR_F32, 3, d, 30.0, 7u, 0.0, INFINITY, 10);
    kr_reg_opts o;
    kr_reg_opts_default(&o);
    o.max_iter = iters;
    o.tol = 0;
    o.power_iter = 15;
    if (s == KR_OK) s = kr_fista(ctx, A, dy, tv, dx, &o, NULL);
    if (s == KR_OK) s = kc_bench_sync(ctx);
    kr_prox_destroy(tv);
    kr_linop_destroy(A);
    return s;
}

static kr_status kc_rg_cone(const kc_rg *b, const char *peer, const char *tmp)
{
    const int64_t n = b->small ? 32 : 256, views = b->small ? 30 : 90, det = b->small ? 48 : 384;
    const int iters = b->small ? 5 : 50;
    const kr_ctx *ctx = b->ctx;
    const int cuda = kr_ctx_backend(ctx) == KR_BACKEND_CUDA;
    const kr_loc loc = cuda ? KR_DEVICE : KR_HOST;
    kr_ct_geom *g = NULL;
    kr_array *y = NULL, *truth = NULL, *dy = NULL, *dx = NULL, *x = NULL;
    kr_status s = kc_rg_geom(&g, n, views, det);
    if (s == KR_OK) s = kc_rg_cone_data(g, n, 4.0, &y, &truth);
    if (s == KR_OK) s = kr_array_clone(&dy, y, loc, ctx);
    if (s == KR_OK) s = kr_array_create_like(&dx, truth, loc, ctx);
    double *ts = calloc((size_t)b->reps, sizeof *ts), t1 = 0;
    if (s == KR_OK && !ts) s = KR_ERR_OOM_HOST;
    for (int r = -2; r < b->reps && s == KR_OK; r++) {
        const double a = kr_time_now();
        s = kc_rg_tv(ctx, g, dy, r == -1 ? 1 : iters, dx);
        const double e = kr_time_now() - a;
        if (r == -1) t1 = e;
        if (r >= 0) ts[r] = e;
    }
    if (s == KR_OK) s = kr_array_clone(&x, dx, KR_HOST, ctx);
    double best = NAN, med = NAN;
    char size[64];
    snprintf(size, sizeof size, "%lld^3 %lldv %lld^2", (long long)n, (long long)views,
             (long long)det);
    if (s == KR_OK) {
        kc_rg_stats(ts, b->reps, &best, &med);
        kc_rg_line(b, "cone_tv", "kray", size, iters, best, med, (best - t1) / (iters - 1),
                   kc_rg_psnr_vol(x, truth, n), NAN,
                   "TV lambda 30 (FISTA, TV prox 10 steps, x >= 0), Joseph pair, noise 4");
    }
    if (s == KR_OK && peer && cuda) {
        char gp[4096], vp[4096], args[12800], line[4096] = "";
        if (kc_peer_inputs("bench reg", tmp, "reg", g, truth, gp, vp, sizeof gp) == 0) {
            snprintf(args, sizeof args, "'%s' --geom '%s' --vol '%s' --reps 1 --iters %d", peer,
                     gp, vp, iters);
            kc_peer_json(args, line, sizeof line);
            unlink(vp);
            unlink(gp);
        }
        printf(b->json ? "%s\n" : "astra         %s\n",
               line[0] ? line : "{\"peer\": \"astra\", \"error\": \"no output\"}");
        const double ta = kc_json_num(line, "sirt_run_s"), tai = kc_json_num(line, "sirt_iter_s");
        if (ta > 0) {
            char note[200];
            snprintf(note, sizeof note, "ASTRA SIRT3D_CUDA (no TV) %d iterations incl. its host "
                     "transfers; kray TV %.4f s is %.2fx its time", iters, best, ta / best);
            kc_rg_line(b, "cone_tv", "astra", size, iters, ta, ta, tai, NAN, NAN, note);
        }
    }
    if (peer && !cuda)
        fprintf(stderr, "kray bench reg: --peer runs ASTRA on CUDA; skipped on the CPU\n");
    free(ts);
    kr_array_destroy(y), kr_array_destroy(truth), kr_array_destroy(dy), kr_array_destroy(dx);
    kr_array_destroy(x);
    kr_ct_geom_destroy(g);
    return s;
}

/* The 90-view 128^3 quality case (small: 32^3 from 22 views): PSNR of FDK, CGLS at its best of
 * 2, 3, 4, 6, 9 iterations and TV (40 iterations). */
static kr_status kc_rg_quality(const kc_rg *b)
{
    const int64_t n = b->small ? 32 : 128, views = b->small ? 22 : 90, det = n * 3 / 2;
    const kr_ctx *ctx = b->ctx;
    const kr_loc loc = kr_ctx_backend(ctx) == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
    kr_ct_geom *g = NULL;
    kr_linop *A = NULL;
    kr_array *y = NULL, *truth = NULL, *dy = NULL, *dx = NULL, *x = NULL;
    kr_status s = kc_rg_geom(&g, n, views, det);
    if (s == KR_OK) s = kc_rg_cone_data(g, n, 4.0, &y, &truth);
    if (s == KR_OK) s = kr_array_clone(&dy, y, loc, ctx);
    if (s == KR_OK) s = kr_array_create_like(&dx, truth, loc, ctx);
    if (s == KR_OK) s = kr_array_create_like(&x, truth, KR_HOST, NULL);
    double p[3] = {NAN, NAN, NAN}, t[3] = {0, 0, 0};
    int best_it = 0;
    double a = kr_time_now();
    if (s == KR_OK) s = kr_fdk(ctx, g, NULL, dy, dx);
    if (s == KR_OK) s = kr_array_copy(x, dx, ctx);
    if (s == KR_OK) p[0] = kc_rg_psnr_vol(x, truth, n), t[0] = kr_time_now() - a;
    kr_ct_projector_opts po;
    kr_ct_projector_opts_default(&po);
    if (s == KR_OK) s = kr_ct_linop_create(&A, ctx, g, &po);
    const int its[] = {2, 3, 4, 6, 9};
    a = kr_time_now();
    for (int i = 0; i < 5 && s == KR_OK; i++) {
        kr_solve_opts so;
        kr_solve_opts_default(&so);
        so.max_iter = its[i];
        so.tol = 0;
        s = kr_cgls(ctx, A, dy, dx, &so, NULL);
        if (s == KR_OK) s = kr_array_copy(x, dx, ctx);
        const double q = s == KR_OK ? kc_rg_psnr_vol(x, truth, n) : NAN;
        if (!(q <= p[1])) p[1] = q, best_it = its[i];
    }
    t[1] = kr_time_now() - a;
    a = kr_time_now();
    if (s == KR_OK) s = kc_rg_tv(ctx, g, dy, 40, dx);
    if (s == KR_OK) s = kr_array_copy(x, dx, ctx);
    if (s == KR_OK) p[2] = kc_rg_psnr_vol(x, truth, n), t[2] = kr_time_now() - a;
    if (s == KR_OK) {
        char size[64], note[200];
        snprintf(size, sizeof size, "%lld^3 %lldv %lld^2", (long long)n, (long long)views,
                 (long long)det);
        kc_rg_line(b, "cone_quality", "fdk", size, 0, t[0], t[0], NAN, p[0], NAN,
                   "FDK (ramp), noise sigma 4 on the exact line integrals");
        snprintf(note, sizeof note, "CGLS at its best of 2, 3, 4, 6, 9 iterations (%d); time of "
                 "all five runs", best_it);
        kc_rg_line(b, "cone_quality", "cgls", size, best_it, t[1], t[1], NAN, p[1], NAN, note);
        snprintf(note, sizeof note, "TV FISTA lambda 30, x >= 0: %+.2f dB over FDK, %+.2f dB "
                 "over the best CGLS", p[2] - p[0], p[2] - p[1]);
        kc_rg_line(b, "cone_quality", "kray-tv", size, 40, t[2], t[2], NAN, p[2], NAN, note);
    }
    kr_linop_destroy(A);
    kr_array_destroy(y), kr_array_destroy(truth), kr_array_destroy(dy), kr_array_destroy(dx);
    kr_array_destroy(x);
    kr_ct_geom_destroy(g);
    return s;
}

int kc_bench_reg(int argc, char **argv)
{
    int small = 0, reps = 3;
    const char *cases = NULL, *peers = "auto", *peer = NULL, *tmp = "/tmp";
    const kc_opt opts[] = {
        {"small", 0, KC_FLAG, &small, NULL, NULL,
         "CPU smoke sizes: mri 64^2, 4 coils, 16 spokes, 10 iterations; cone 32^3 from 30 views "
         "of 48^2, 5 iterations; quality 32^3 from 22 views", NULL, 0, 0, NULL},
        {"cases", 0, KC_STRING, &cases, NULL, "LIST",
         "mri, cone, quality (default: all on CUDA and with --small; mri on the CPU)", NULL, 0,
         0, NULL},
        {"reps", 0, KC_INT, &reps, "3", "N", "timed runs after one warm-up", NULL, 1, 1000, NULL},
        {"peers", 0, KC_STRING, &peers, "auto", "LIST",
         "mri: bart or none; auto: bart when on PATH (CPU backends)", NULL, 0, 0, NULL},
        {"peer", 0, KC_STRING, &peer, NULL, "SCRIPT",
         "cone: ASTRA SIRT3D_CUDA through this script (bench/peer_astra_cone.py); CUDA only",
         NULL, 0, 0, NULL},
        {"tmp", 0, KC_STRING, &tmp, "/tmp", "DIR", "scratch directory for the peers' files",
         NULL, 0, 0, NULL},
        {0}};
    const kc_spec spec = {
        "bench reg",
        "Regularised reconstruction at the target sizes: (mri) kray mrreg's l1-wavelet FISTA,\n"
        "256^2, 8 coils, 64 radial spokes x 512 samples, 100 iterations, with `bart pics -e -R W\n"
        "-i 100` on the same data as a peer (CPU); (cone) TV by FISTA, cone beam 256^3 from 90\n"
        "views of 384^2, 50 iterations, with ASTRA's SIRT3D_CUDA for scale (--peer); (quality)\n"
        "the 90-view 128^3 scan with noise: PSNR of FDK, the best CGLS and TV. Times: best and\n"
        "median of --reps whole runs (plans, step estimate and iterations; data already in the\n"
        "backend's memory) and the time per iteration (t(N) - t(1)) / (N - 1).",
        opts,
        NULL,
        KC_JSON,
        "Examples:\n"
        "  kray bench reg --backend cuda --json --peer bench/peer_astra_cone.py\n"
        "  kray bench reg --backend cpu --cases mri --json      # with bart pics as the peer\n"
        "  kray bench reg --backend cpu --small --reps 1 --json",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    kr_ctx *ctx = NULL;
    char dev[256];
    if ((r = kc_bench_ctx("bench reg", &c, &ctx, dev, sizeof dev)) != 0) return r;
    const int cuda = kr_ctx_backend(ctx) == KR_BACKEND_CUDA;
    if (!cases) cases = cuda || small ? "mri,cone,quality" : "mri";
    static const char *const names[3] = {"mri", "cone", "quality"};
    if ((r = kc_bench_list_check("bench reg", "cases", cases, names, 3)) != 0) {
        kr_ctx_destroy(ctx);
        return r;
    }
    const int do_mri = kc_bench_has(cases, "mri"), do_cone = kc_bench_has(cases, "cone");
    const int do_q = kc_bench_has(cases, "quality");
    const int use_bart = do_mri && !cuda &&
                         (!strcmp(peers, "auto") || kc_bench_has(peers, "bart")) &&
                         system("command -v bart >/dev/null 2>&1") == 0;
    if (kc_bench_has(peers, "bart") && !use_bart)
        fprintf(stderr, "kray bench reg: bart peer skipped (not on PATH, or not a CPU run)\n");
    kc_rg b = {c.json, reps, small, ctx, dev};
    if (!c.json) {
        char cpu[256], gname[256];
        kc_bench_machine(cpu, sizeof cpu, gname, sizeof gname);
        printf("kray bench reg: CPU %s; GPU %s; backend %s\n", cpu, gname,
               kr_backend_name(kr_ctx_backend(ctx)));
    }
    kr_status s = KR_OK;
    if (do_mri) {
        kc_mrcase mc;
        kr_array *img = NULL;
        s = kc_mrcase_make(&mc, small);
        if (s == KR_OK) s = kc_rg_mri_kray(&b, &mc, &img);
        if (s == KR_OK && use_bart) {
            kc_rg bb = b;
            s = kc_rg_mri_bart(&bb, &mc, tmp, img);
            if (s != KR_OK) fprintf(stderr, "kray bench reg: bart peer: %s\n", kr_last_error());
            s = KR_OK;
        }
        kr_array_destroy(img);
        kc_mrcase_free(&mc);
    }
    if (s == KR_OK && do_cone) s = kc_rg_cone(&b, peer, tmp);
    if (s == KR_OK && do_q) s = kc_rg_quality(&b);
    kr_ctx_destroy(ctx);
    return s == KR_OK ? 0 : kc_fail("bench reg", s);
}
