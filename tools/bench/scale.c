/* kray bench scale: the work divided over 1, 2, 4, ... devices (docs/scaling.md), each case
 * timed on every device list of --sets after a warm-up, with the speed-up against the first
 * list. Run under `mpirun -n N` it divides over the processes too (each with its own list):
 * rank 0 prints. Cases (--cases, default all):
 *   fdk-host    FDK host to host (projections in, volume out, pinned staging per device)
 *   fdk-device  FDK with projections and volume on the first device
 *   sirt, cgls  time per iteration of the matched Joseph pair, vectors on the first device
 *   fve         the whole FVE set by one NUFFT adjoint (every column a batch member)
 *   cgsense     CG-SENSE of many slices sharing a radial trajectory (kr_cgsense_solve_slices)
 * Problems (--problem): full (the targets: FDK 1024^3 from 496 views of 1248 x 960, SIRT/CGLS
 * 512^3 from the same views, the FVE data set of Dantas (2015), 64 slices of 256^2 with 8
 * coils), medium (a quarter of each dimension, for one GPU), small (CPU smoke tests). The data are synthetic:
 * times do not depend on the values. */
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct kc_sc {
    const kr_ctx *ctx;   /* the list under test */
    int reps, json;
    const char *set, *size;
    double base;         /* the first list's time of this case (0: this is the first) */
} kc_sc;

static int kc_sc_root(void) { return kr_dist_rank() == 0; }

static void kc_sc_line(kc_sc *b, const char *bcase, const char *what, double *t, int n)
{
    kc_times_sort(t, n);
    const double best = t[0], med = t[n / 2];
    const double speedup = b->base > 0 ? b->base / best : 1.0;
    if (!kc_sc_root()) return;
    const int nd = kr_ctx_ndevices(b->ctx) * kr_dist_size();
    if (b->json) {
        kc_jo j;
        kc_jo_begin(&j);
        kc_jo_str(&j, "bench", "scale");
        kc_jo_str(&j, "case", bcase);
        kc_jo_str(&j, "what", what);
        kc_jo_str(&j, "problem", b->size);
        kc_jo_str(&j, "backend", kr_backend_name(kr_ctx_backend(b->ctx)));
        kc_jo_str(&j, "devices", b->set);
        kc_jo_int(&j, "processes", kr_dist_size());
        kc_jo_int(&j, "workers", nd);
        kc_jo_int(&j, "reps", n);
        kc_jo_num(&j, "time_s", best);
        kc_jo_num(&j, "time_median_s", med);
        kc_jo_num(&j, "spread_s", t[n - 1] - t[0]);
        kc_jo_num(&j, "speedup", speedup);
        kc_jo_end(&j);
    } else {
        printf("%-11s %-18s %-10s %3d proc x %-12s %9.4f s (median %9.4f s)  x%.2f\n", bcase,
               what, b->size, kr_dist_size(), b->set, best, med, speedup);
    }
    fflush(stdout);
    if (b->base == 0) b->base = best;
}

/* ---- the problems ----------------------------------------------------------------------- */
static kr_status kc_sc_cone(const char *size, int64_t n, int64_t views, kr_ct_geom **g)
{
    const int64_t div = !strcmp(size, "full") ? 1 : !strcmp(size, "medium") ? 4 : 16;
    kr_ct_grid gr;
    kr_ct_grid_3d(&gr, n / div, n / div, n / div, 0.5 * (double)div);
    kr_ct_scan s;
    kr_ct_scan_default(&s);
    s.type = KR_CT_CONE;
    s.nviews = views / (div > 1 ? div / 2 : 1);
    s.start_deg = 0;
    s.stop_deg = 360;
    s.det_count = 1248 / div;
    s.det_rows = 960 / div;
    s.det_spacing_mm = 0.32 * (double)div;
    s.sod_mm = 750;
    s.sdd_mm = 1200;
    return kr_ct_geom_create(g, &s, &gr);
}

/* An array of `t` filled with small deterministic values on the host, cloned to loc. */
static kr_status kc_sc_data(kr_array **out, kr_dtype t, int nd, const int64_t *d, kr_loc loc,
                            const kr_ctx *ctx)
{
    kr_array *h = NULL;
    KRI_TRY(kr_array_create(&h, t, nd, d, KR_HOST, NULL));
    kr_ctx *cpu = NULL;
    kr_status s = kr_ctx_create(&cpu, KR_BACKEND_CPU);
    if (s == KR_OK) s = kr_vec_random(cpu, h, 11);
    kr_ctx_destroy(cpu);
    if (s == KR_OK && loc == KR_DEVICE) s = kr_array_clone(out, h, KR_DEVICE, ctx);
    else if (s == KR_OK) *out = h, h = NULL;
    kr_array_destroy(h);
    return s;
}

static kr_status kc_sc_fdk(kc_sc *b, int device)
{
    kr_ct_geom *g = NULL;
    KRI_TRY(kc_sc_cone(b->size, 1024, 496, &g));
    int64_t pd[3], vd[3];
    kr_ct_geom_sino_dims(g, pd);
    kr_ct_geom_image_dims(g, vd);
    const kr_loc loc = device && kr_ctx_backend(b->ctx) == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
    kr_array *p = NULL, *v = NULL;
    kr_fdk_plan *plan = NULL;
    kr_status s = kc_sc_data(&p, KR_F32, 3, pd, loc, b->ctx);
    if (s == KR_OK) s = kr_array_create(&v, KR_F32, 3, vd, loc, b->ctx);
    if (s == KR_OK) s = kr_fdk_plan_create(&plan, b->ctx, g, NULL);
    double t[64];
    int nt = 0;
    for (int r = 0; s == KR_OK && r <= b->reps; r++) {
        double t0 = kr_time_now();
        s = kr_fdk_execute(plan, p, v);
        if (r > 0) t[nt++] = kr_time_now() - t0;
    }
    if (s == KR_OK) kc_sc_line(b, device ? "fdk-device" : "fdk-host", "reconstruction", t, nt);
    kr_fdk_plan_destroy(plan);
    kr_array_destroy(p), kr_array_destroy(v);
    kr_ct_geom_destroy(g);
    return s;
}

static kr_status kc_sc_iter(kc_sc *b, int cgls)
{
    kr_ct_geom *g = NULL;
    KRI_TRY(kc_sc_cone(b->size, 512, 496, &g));
    const kr_loc loc = kr_ctx_backend(b->ctx) == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
    int64_t pd[3], vd[3];
    kr_ct_geom_sino_dims(g, pd);
    kr_ct_geom_image_dims(g, vd);
    kr_linop *A = NULL;
    kr_sirt_plan *sp = NULL;
    kr_array *y = NULL, *x = NULL;
    kr_status s = kr_ct_linop_create(&A, b->ctx, g, NULL);
    if (s == KR_OK) s = kc_sc_data(&y, KR_F32, 3, pd, loc, b->ctx);
    if (s == KR_OK) s = kr_array_create(&x, KR_F32, 3, vd, loc, b->ctx);
    if (s == KR_OK && !cgls) s = kr_sirt_plan_create(&sp, b->ctx, A);
    const int iters = 3;
    double t[64];
    int nt = 0;
    for (int r = 0; s == KR_OK && r <= b->reps; r++) {
        double t0 = kr_time_now();
        if (cgls) {
            kr_solve_opts o;
            kr_solve_opts_default(&o);
            o.max_iter = iters;
            o.tol = 0;
            s = kr_cgls(b->ctx, A, y, x, &o, NULL);
        } else {
            kr_sirt_opts o;
            kr_sirt_opts_default(&o);
            o.max_iter = iters;
            s = kr_sirt_execute(sp, y, x, &o, NULL);
        }
        if (r > 0) t[nt++] = (kr_time_now() - t0) / iters;
    }
    if (s == KR_OK) kc_sc_line(b, cgls ? "cgls" : "sirt", "per iteration", t, nt);
    kr_sirt_plan_destroy(sp);
    kr_linop_destroy(A);
    kr_array_destroy(y), kr_array_destroy(x);
    kr_ct_geom_destroy(g);
    return s;
}

static kr_status kc_sc_fve(kc_sc *b)
{
    kr_fve_sim_opts so;
    if (!strcmp(b->size, "small")) kr_fve_sim_opts_small(&so);
    else kr_fve_sim_opts_default(&so);
    if (!strcmp(b->size, "medium")) so.frames = 11; /* a quarter of the cardiac frames */
    kr_array *traj = NULL, *data = NULL, *img = NULL, *dd = NULL;
    kr_status s = kr_fve_simulate(NULL, &so, &traj, &data, NULL);
    const kr_loc loc = kr_ctx_backend(b->ctx) == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
    const int64_t M = s == KR_OK ? kr_array_numel(traj) / 3 : 1;
    const int64_t B = s == KR_OK ? kr_array_numel(data) / M : 1;
    kr_nufft_opts o;
    kr_nufft_opts_default(&o);
    o.batch = B;
    o.eps = 1e-4;
    kr_nufft_plan *p = NULL;
    const int64_t N[2] = {so.enc.n, so.enc.n}, id[3] = {so.enc.n, so.enc.n, B};
    if (s == KR_OK) s = kr_nufft_plan_create(&p, b->ctx, 2, N, &o);
    if (s == KR_OK) s = kr_nufft_set_points(p, traj);
    if (s == KR_OK) s = kr_array_clone(&dd, data, loc, b->ctx);
    if (s == KR_OK) s = kr_array_create(&img, KR_C64, 3, id, loc, b->ctx);
    double t[64];
    int nt = 0;
    for (int r = 0; s == KR_OK && r <= b->reps; r++) {
        double t0 = kr_time_now();
        s = kr_nufft_adjoint(p, dd, img);
        if (s == KR_OK) s = kc_bench_sync(b->ctx);
        if (r > 0) t[nt++] = kr_time_now() - t0;
    }
    if (s == KR_OK) kc_sc_line(b, "fve", "whole set by NUFFT", t, nt);
    kr_nufft_plan_destroy(p);
    kr_array_destroy(traj), kr_array_destroy(data), kr_array_destroy(img), kr_array_destroy(dd);
    return s;
}

static kr_status kc_sc_cgsense(kc_sc *b)
{
    const int small = !strcmp(b->size, "small");
    const int64_t n = small ? 32 : 256, C = small ? 4 : 8, S = small ? 4 : 64;
    kr_radial_opts ro;
    kr_radial_opts_default(&ro);
    ro.samples = n;
    ro.oversampling = 2;
    ro.spokes = small ? 24 : 96;
    const kr_loc loc = kr_ctx_backend(b->ctx) == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
    kr_array *traj = NULL, *maps = NULL, *m1 = NULL, *ksp = NULL, *x = NULL;
    kr_status s = kr_traj_radial(&traj, &ro);
    const int64_t M = s == KR_OK ? kr_array_numel(traj) / 3 : 1;
    const int64_t kd[3] = {M, C, S}, xd[3] = {n, n, S}, N[2] = {n, n};
    if (s == KR_OK) s = kr_phantom_coil_maps(&m1, n, (int)C);
    if (s == KR_OK) s = kr_array_astype(&maps, m1, KR_C64);
    kr_array *dm = NULL;
    if (s == KR_OK) s = kr_array_clone(&dm, maps, loc, b->ctx);
    if (s == KR_OK) s = kc_sc_data(&ksp, KR_C64, 3, kd, loc, b->ctx);
    if (s == KR_OK) s = kr_array_create(&x, KR_C64, 3, xd, loc, b->ctx);
    kr_solve_opts so;
    kr_solve_opts_default(&so);
    so.max_iter = 10;
    so.tol = 0;
    double t[64];
    int nt = 0;
    for (int r = 0; s == KR_OK && r <= b->reps; r++) {
        double t0 = kr_time_now();
        s = kr_cgsense_solve_slices(b->ctx, 2, N, C, S, traj, dm, ksp, NULL, &so, x, NULL);
        if (r > 0) t[nt++] = kr_time_now() - t0;
    }
    if (s == KR_OK) kc_sc_line(b, "cgsense", "slices, 10 iterations", t, nt);
    kr_array_destroy(traj), kr_array_destroy(maps), kr_array_destroy(m1), kr_array_destroy(ksp);
    kr_array_destroy(x), kr_array_destroy(dm);
    return s;
}

int kc_bench_scale(int argc, char **argv)
{
    const char *cases = "fdk-host,fdk-device,sirt,cgls,fve,cgsense", *sets = NULL;
    int reps = 3, sizei = 0;
    const kc_opt opts[] = {
        {"cases", 0, KC_STRING, &cases, "fdk-host,fdk-device,sirt,cgls,fve,cgsense", "LIST",
         "cases to run, comma-separated", NULL, 0, 0, NULL},
        {"sets", 0, KC_STRING, &sets, NULL, "L1;L2;..",
         "device lists to compare, e.g. '0;0,1;0,1,2,3' (default: 1, 2, 4, ... of the GPUs "
         "present; CPU: 1 and 2 parts)", NULL, 0, 0, NULL},
        {"problem", 0, KC_CHOICE, &sizei, "full", "P",
         "problem sizes: full (the targets), medium (a quarter per dimension), small (smoke)",
         "full|medium|small", 0, 0, NULL},
        {"reps", 0, KC_INT, &reps, "3", "N", "timed repetitions after a warm-up", NULL, 1, 60,
         NULL},
        {0}};
    const kc_spec spec = {"bench scale",
                          "Work divided over several devices (and, under mpirun, processes):\n"
                          "FDK, SIRT/CGLS iterations, the FVE set by NUFFT, CG-SENSE slices, each\n"
                          "against the first device list (docs/scaling.md).",
                          opts, NULL, KC_JSON,
                          "Examples:\n"
                          "  kray bench scale --json --sets '0;0,1;0,1,2,3'\n"
                          "  mpirun -n 4 kray bench scale --json --sets 0 --cases fdk-host\n"
                          "  kray bench scale --problem medium --sets '0;0,0'   # one GPU, two workers",
                          NULL, NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    static const char *const sizes[] = {"full", "medium", "small"};
    const char *size = sizes[sizei];
    kr_ctx *probe = NULL;
    char dev[160];
    if ((r = kc_bench_ctx("bench scale", &c, &probe, dev, sizeof dev)) != 0) return r;
    char deflt[256] = "0;0,1";
    if (!sets && kr_ctx_backend(probe) == KR_BACKEND_CUDA) {
        int ng = 1;
        kr_cuda_device_count(&ng);
        size_t u = 0;
        for (int k = 1; k <= ng && u < sizeof deflt - 32; k *= 2) {
            u += (size_t)snprintf(deflt + u, sizeof deflt - u, "%s", k > 1 ? ";" : "");
            for (int i = 0; i < k; i++) u += (size_t)snprintf(deflt + u, sizeof deflt - u, "%s%d", i ? "," : "", i);
        }
    }
    if (!sets) sets = deflt;
    kr_ctx_destroy(probe);
    { /* every list well formed before anything runs (a malformed one is bad usage) */
        char list[256];
        snprintf(list, sizeof list, "%s", sets);
        kr_ctx *cpu = NULL;
        kr_status s = kr_ctx_create(&cpu, KR_BACKEND_CPU);
        for (char *save = NULL, *tok = strtok_r(list, ";", &save); s == KR_OK && tok;
             tok = strtok_r(NULL, ";", &save))
            s = kr_ctx_set_devices_spec(cpu, tok);
        kr_ctx_destroy(cpu);
        if (s != KR_OK || strlen(sets) >= sizeof list || !*sets)
            return kc_usage("bench scale", "--sets '%s': %s", sets,
                            s != KR_OK ? kr_last_error() : "give lists like '0;0,1'");
    }
    static const char *const names[6] = {"fdk-host", "fdk-device", "sirt", "cgls", "fve", "cgsense"};
    if ((r = kc_bench_list_check("bench scale", "cases", cases, names, 6)) != 0) return r;
    for (int ci = 0; ci < 6; ci++) {
        if (!kc_bench_has(cases, names[ci])) continue;
        kc_sc b = {NULL, reps, c.json, NULL, size, 0};
        char list[256];
        snprintf(list, sizeof list, "%s", sets);
        for (char *save = NULL, *tok = strtok_r(list, ";", &save); tok;
             tok = strtok_r(NULL, ";", &save)) {
            kr_ctx *ctx = NULL;
            if ((r = kc_bench_ctx("bench scale", &c, &ctx, dev, sizeof dev)) != 0) return r;
            kr_status s = kr_ctx_set_devices_spec(ctx, tok);
            if (s == KR_OK && kr_dist_size() > 1) s = kr_ctx_set_dist(ctx, 1);
            b.ctx = ctx;
            b.set = tok;
            if (s == KR_OK) {
                switch (ci) {
                case 0: s = kc_sc_fdk(&b, 0); break;
                case 1: s = kc_sc_fdk(&b, 1); break;
                case 2: s = kc_sc_iter(&b, 0); break;
                case 3: s = kc_sc_iter(&b, 1); break;
                case 4: s = kc_sc_fve(&b); break;
                default: s = kc_sc_cgsense(&b); break;
                }
            }
            kr_ctx_destroy(ctx);
            if (s != KR_OK) return kc_fail("bench scale", s);
        }
    }
    return 0;
}
