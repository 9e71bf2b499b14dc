/* kray bench cgsense: CG-SENSE end to end (the target case: 12 coils, 300^2 image, ~49,000
 * radial samples, 10 iterations) on the CPU and the GPU, with `bart pics -l2` on the same data,
 * trajectory and maps as a peer in the same run (subprocess; skipped when bart is missing).
 *
 * Timed per backend (after one warm-up; min and mean over --reps):
 *   plan:  kr_cgsense_plan_create (NUFFT plan, point sorting, maps and weights to the device;
 *          with the Toeplitz normal ("kray-toeplitz") also Q and its FFT);
 *   solve: E^H y and 10 CG iterations with k-space and image already in the backend's memory;
 *   e2e:   k-space host -> device, solve, image device -> host (= solve on the CPU).
 * BART is timed as a whole process (file I/O included) with -w 1 (no data scaling) and
 * -r L / (nx ny) so that both solve the same system; its 10th iterate is compared with kray's
 * after a least-squares scale (expected sqrt(nx ny): BART's nufft is kray's / sqrt(nx ny)). */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KRI_TRY_BENCH(expr)                                                                    \
    do {                                                                                       \
        kr_status kc_s_ = (expr);                                                              \
        if (kc_s_ != KR_OK) return kc_s_;                                                      \
    } while (0)

typedef struct kc_cgcase {
    int64_t n, nc, spokes, M;
    kr_array *traj, *data, *maps; /* host: f32 [3, 2n, spokes], c64 [M, nc], c64 [n, n, nc] */
} kc_cgcase;

static void kc_cgcase_free(kc_cgcase *c)
{
    kr_array_destroy(c->traj);
    kr_array_destroy(c->data);
    kr_array_destroy(c->maps);
}

static kr_status kc_cgcase_make(kc_cgcase *c, int64_t n, int64_t nc, int64_t spokes)
{
    memset(c, 0, sizeof *c);
    c->n = n, c->nc = nc, c->spokes = spokes;
    kr_radial_opts ro;
    kr_radial_opts_default(&ro);
    ro.samples = n;
    ro.oversampling = 2;
    ro.spokes = spokes;
    KRI_TRY_BENCH(kr_traj_radial(&c->traj, &ro));
    c->M = kr_array_numel(c->traj) / 3;
    double *k = malloc(sizeof(double) * 2 * (size_t)c->M);
    if (!k) return KR_ERR_OOM_HOST;
    for (int64_t m = 0; m < c->M; m++) {
        k[2 * m] = ((const float *)c->traj->data)[3 * m];
        k[2 * m + 1] = ((const float *)c->traj->data)[3 * m + 1];
    }
    kr_array *a = NULL, *b = NULL;
    kr_status s = kr_phantom_kspace_coils(&a, KR_PHANTOM_MODIFIED_SL, k, c->M, n, (int)nc);
    free(k);
    if (s == KR_OK) s = kr_array_astype(&c->data, a, KR_C64);
    if (s == KR_OK) s = kr_phantom_coil_maps(&b, n, (int)nc);
    if (s == KR_OK) s = kr_array_astype(&c->maps, b, KR_C64);
    kr_array_destroy(a);
    kr_array_destroy(b);
    return s;
}

static void kc_cg_emit(int json, const kc_cgcase *c, const char *impl, const char *backend,
                       double eps, double plan, const kc_tstats *solve, const kc_tstats *e2e,
                       double res, double vs_bart, const char *note)
{
    if (json) {
        kc_jo j;
        kc_jo_begin(&j);
        kc_jo_str(&j, "bench", "cgsense");
        kc_jo_str(&j, "impl", impl);
        kc_jo_str(&j, "backend", backend);
        kc_jo_int(&j, "n", c->n);
        kc_jo_int(&j, "coils", c->nc);
        kc_jo_int(&j, "samples", c->M);
        kc_jo_int(&j, "iterations", 10);
        kc_jo_num(&j, "eps", eps);
        kc_jo_num(&j, "plan_s", plan);
        kc_jo_num(&j, "solve_min_s", solve ? solve->min : NAN);
        kc_jo_num(&j, "solve_mean_s", solve ? solve->mean : NAN);
        kc_jo_num(&j, "e2e_min_s", e2e->min);
        kc_jo_num(&j, "e2e_mean_s", e2e->mean);
        kc_jo_num(&j, "rel_residual", res);
        kc_jo_num(&j, "nrmse_vs_bart", vs_bart);
        kc_jo_str(&j, "note", note);
        kc_jo_end(&j);
    } else {
        printf("%-6s %-5s %4lld^2 %3lld coils %7lld samples  plan %8.2f ms  solve %8.2f ms  "
               "e2e %8.2f ms (mean %8.2f)  res %.3g  vs bart %.2g  %s\n",
               impl, backend, (long long)c->n, (long long)c->nc, (long long)c->M, plan * 1e3,
               solve ? solve->min * 1e3 : NAN, e2e->min * 1e3, e2e->mean * 1e3, res, vs_bart,
               note);
    }
    fflush(stdout);
}

/* ||a - s b|| / ||a|| with the least-squares complex scale s (c64 host arrays, n elements). */
static double kc_cg_fit(const kr_array *a, const kr_array *b, int64_t n)
{
    const float *x = a->data, *y = b->data;
    double nr = 0, ni = 0, d = 0, aa = 0;
    for (int64_t i = 0; i < n; i++) {
        const double br = y[2 * i], bi = y[2 * i + 1], ar = x[2 * i], ai = x[2 * i + 1];
        nr += br * ar + bi * ai, ni += br * ai - bi * ar, d += br * br + bi * bi;
        aa += ar * ar + ai * ai;
    }
    if (d <= 0 || aa <= 0) return NAN;
    const double sr = nr / d, si = ni / d;
    double e = 0;
    for (int64_t i = 0; i < n; i++) {
        const double br = y[2 * i], bi = y[2 * i + 1];
        const double er = x[2 * i] - (sr * br - si * bi), ei = x[2 * i + 1] - (sr * bi + si * br);
        e += er * er + ei * ei;
    }
    return sqrt(e / aa);
}

/* One backend: returns the final image (host) in *img. */
static kr_status kc_cg_run(int json, const kc_cgcase *c, kr_backend be, int threads, double eps,
                           double lambda, int reps, const kr_array *bart, int toeplitz,
                           kr_array **img)
{
    kr_ctx *ctx = NULL;
    KRI_TRY_BENCH(kr_ctx_create(&ctx, be));
    kr_ctx_set_quiet(ctx, 1);
    if (threads > 0) kr_ctx_set_threads(ctx, threads);
    const kr_loc loc = be == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
    int64_t dims[2] = {c->n, c->n};
    kr_cgsense_opts o;
    kr_cgsense_opts_default(&o);
    o.eps = eps;
    o.normal = toeplitz ? KR_CGSENSE_NORMAL_TOEPLITZ : KR_CGSENSE_NORMAL_NUFFT;
    kr_cgsense_plan *p = NULL;
    kr_array *dk = NULL, *dx = NULL;
    double *ts = calloc((size_t)reps, sizeof(double)), *te = calloc((size_t)reps, sizeof(double));
    kr_solve_opts so;
    kr_solve_opts_default(&so);
    so.max_iter = 10;
    so.tol = 0;
    so.lambda = lambda;
    kr_solve_info info;
    memset(&info, 0, sizeof info);
    kr_status s = ts && te ? KR_OK : KR_ERR_OOM_HOST;
    double t0 = kr_time_now();
    if (s == KR_OK) s = kr_cgsense_plan_create(&p, ctx, 2, dims, c->traj, c->maps, &o);
    double plan = kr_time_now() - t0;
    if (s == KR_OK) s = kr_array_create(&dk, KR_C64, 2, c->data->dims, loc, ctx);
    if (s == KR_OK) s = kr_array_create(&dx, KR_C64, 2, dims, loc, ctx);
    if (s == KR_OK) s = kr_array_create(img, KR_C64, 2, dims, KR_HOST, NULL);
    for (int r = -1; r < reps && s == KR_OK; r++) { /* r = -1: warm-up */
        double a = kr_time_now();
        s = kr_array_copy(dk, c->data, ctx);
        double b = kr_time_now();
        if (s == KR_OK) s = kr_cgsense_solve(p, dk, dx, &so, &info);
        double nrm = 0; /* a reduction: waits for the device stream */
        if (s == KR_OK && loc == KR_DEVICE) s = kr_vec_norm2(ctx, dx, &nrm);
        double e = kr_time_now();
        if (s == KR_OK) s = kr_array_copy(*img, dx, ctx);
        double f = kr_time_now();
        if (r >= 0) ts[r] = e - b, te[r] = f - a;
    }
    if (s == KR_OK) {
        kc_tstats st, et;
        kc_tstats_of(ts, reps, &st);
        kc_tstats_of(te, reps, &et);
        char note[160];
        snprintf(note, sizeof note, "%s, lambda %g", be == KR_BACKEND_CUDA ? "device" : "host",
                 lambda);
        kc_cg_emit(json, c, toeplitz ? "kray-toeplitz" : "kray", kr_backend_name(be), eps, plan,
                   &st, &et, info.rel_residual,
                   bart ? kc_cg_fit(bart, *img, c->n * c->n) : NAN, note);
    }
    free(ts);
    free(te);
    kr_array_destroy(dk);
    kr_array_destroy(dx);
    kr_cgsense_plan_destroy(p);
    kr_ctx_destroy(ctx);
    return s;
}

/* bart pics -l2 on the same data: writes the files, times `reps` runs, reads the image. */
static kr_status kc_cg_bart(const kc_cgcase *c, const char *tmp, double lambda, int reps,
                            kc_tstats *t, kr_array **img)
{
    char st[4][1024], f[1100], cmd[4800];
    kr_array *out = NULL;
    kr_status s = kc_bart_radial_inputs(tmp, "cgs", c->traj, c->data, c->maps, c->n, 2 * c->n,
                                        c->spokes, c->nc, st);
    if (s != KR_OK) return s;
    const char *tp = st[0], *kp = st[1], *mp = st[2], *op = st[3];
    const double lb = lambda / (double)(c->n * c->n);
    snprintf(cmd, sizeof cmd, "bart pics -w 1 -l2 -r %.17g -i 10 -t '%s' '%s' '%s' '%s' "
             ">/dev/null 2>&1", lb, tp, kp, mp, op);
    double *ts = calloc((size_t)reps, sizeof(double));
    if (!ts) return KR_ERR_OOM_HOST;
    for (int r = 0; r < reps; r++) {
        double a = kr_time_now();
        if (system(cmd) != 0) {
            free(ts);
            fprintf(stderr, "kray bench cgsense: bart peer failed: %s\n", cmd);
            return KR_ERR_IO;
        }
        ts[r] = kr_time_now() - a;
    }
    kc_tstats_of(ts, reps, t);
    free(ts);
    snprintf(f, sizeof f, "%s.cfl", op);
    s = kr_read(f, &out, NULL, NULL);
    if (s == KR_OK) s = kr_array_astype(img, out, KR_C64);
    kr_array_destroy(out);
    kc_bart_remove(st);
    return s;
}

int kc_bench_cgsense(int argc, char **argv)
{
    int small = 0, reps = 5, peer_reps = 3;
    double eps = 1e-3, lambda_rel = 1e-3;
    const char *backends = "auto", *peers = "auto", *tmpd = "/tmp";
    const kc_opt opts[] = {
        {"small", 0, KC_FLAG, &small, NULL, NULL,
         "CI smoke size: 64^2, 4 coils, 24 spokes (default: 300^2, 12 coils, 82 spokes of 600 = "
         "49,200 samples)", NULL, 0, 0, NULL},
        {"eps", 'e', KC_DOUBLE, &eps, "1e-3", "E", "NUFFT accuracy", NULL, 1e-6, 0.1, NULL},
        {"lambda", 'l', KC_DOUBLE, &lambda_rel, "1e-3", "L",
         "Tikhonov weight as a fraction of M (the diagonal of E^H E per unit sum |S|^2)", NULL, 0,
         1e6, NULL},
        {"backends", 0, KC_STRING, &backends, "auto", "LIST", "cpu, cuda; auto: cpu and a GPU if "
         "usable", NULL, 0, 0, NULL},
        {"reps", 0, KC_INT, &reps, "5", "N", "timed solves per backend (after one warm-up)", NULL,
         1, 1e6, NULL},
        {"peers", 0, KC_STRING, &peers, "auto", "LIST", "bart or none; auto: bart when on PATH",
         NULL, 0, 0, NULL},
        {"peer-reps", 0, KC_INT, &peer_reps, "3", "N", "timed runs of bart pics", NULL, 1, 1e6,
         NULL},
        {"tmp", 0, KC_STRING, &tmpd, "/tmp", "DIR", "scratch directory for the peer's files", NULL,
         0, 0, NULL},
        {0}};
    const kc_spec spec = {
        "bench cgsense",
        "CG-SENSE, 10 iterations, end to end on the CPU and the GPU (plan, solve with data in\n"
        "the backend's memory, and host -> device -> host), with `bart pics -l2 -i 10` on the\n"
        "same data as a peer (whole process; -w 1 and lambda / (nx ny) so both solve the same\n"
        "system; its image is compared with kray's after a scale fit).",
        opts,
        NULL,
        KC_JSON,
        "Examples:\n"
        "  kray bench cgsense --json --backends cuda > cgsense.jsonl   # the H100 target case\n"
        "  kray bench cgsense --small --json --reps 1",
        NULL,
        NULL};
    kc_common cm;
    int r = kc_parse(&spec, &cm, argc, argv);
    if (r) return r < 0 ? 0 : r;
    int ndev = 0, gpu = kr_cuda_device_count(&ndev) == KR_OK && ndev > 0;
    kr_clear_error();
    int auto_be = !strcmp(backends, "auto");
    int use_cpu = auto_be || strstr(backends, "cpu") != NULL;
    int use_gpu = (auto_be && gpu) || strstr(backends, "cuda") != NULL;
    int use_bart = (!strcmp(peers, "auto") || strstr(peers, "bart")) && use_cpu &&
                   system("command -v bart >/dev/null 2>&1") == 0;
    if (strstr(peers, "bart") && !use_bart)
        fprintf(stderr, "kray bench cgsense: bart peer skipped (not on PATH or no cpu backend)\n");
    kc_cgcase c;
    kr_status s = small ? kc_cgcase_make(&c, 64, 4, 24) : kc_cgcase_make(&c, 300, 12, 82);
    if (s != KR_OK) {
        kc_cgcase_free(&c);
        return kc_fail("bench cgsense", s);
    }
    const double lambda = lambda_rel * (double)c.M;
    if (!cm.json) {
        char cpu[256], gname[256];
        kc_bench_machine(cpu, sizeof cpu, gname, sizeof gname);
        printf("kray bench cgsense: CPU %s; GPU %s\n", cpu, gname);
    }
    kr_array *bimg = NULL, *img = NULL;
    if (use_bart) {
        kc_tstats bt;
        s = kc_cg_bart(&c, tmpd, lambda, peer_reps, &bt, &bimg);
        if (s == KR_OK) {
            char note[200];
            snprintf(note, sizeof note, "bart pics -w 1 -l2 -r %.3g -i 10, whole process incl. "
                     "file I/O", lambda / (double)(c.n * c.n));
            kc_cg_emit(cm.json, &c, "bart", "cpu", NAN, NAN, NULL, &bt, NAN, NAN, note);
        } else {
            fprintf(stderr, "kray bench cgsense: bart peer: %s\n", kr_last_error());
            s = KR_OK;
        }
    }
    /* both normal operators: NUFFT forward + adjoint, and the Toeplitz embedding */
    for (int tp = 0; tp < 2; tp++) {
        if (use_cpu && s == KR_OK) {
            s = kc_cg_run(cm.json, &c, KR_BACKEND_CPU, cm.threads, eps, lambda, reps, bimg, tp,
                          &img);
            kr_array_destroy(img);
            img = NULL;
        }
        if (use_gpu && s == KR_OK) {
            s = kc_cg_run(cm.json, &c, KR_BACKEND_CUDA, 0, eps, lambda, reps, bimg, tp, &img);
            kr_array_destroy(img);
            img = NULL;
        }
    }
    kr_array_destroy(bimg);
    kc_cgcase_free(&c);
    return s == KR_OK ? 0 : kc_fail("bench cgsense", s);
}
