/* kray bench cone: the cone-beam projectors (Joseph and Siddon, forward and matched adjoint) and
 * the voxel-driven backprojector on the RabbitCT-sized circular scan of kray bench fdk (496
 * views of 1248 x 960 pixels, 512^3 voxels of 0.5 mm, source 750 mm from the axis, detector at
 * 1200 mm), or that scan scaled, SIRT (with either backprojector) and CGLS iterations, and
 * ASTRA's projectors and iterations as the peer. The volume is the modified 3-D Shepp-Logan
 * (the time does not depend on the values). */
#include "bench.h"

#include <math.h>
#include <unistd.h>

/* Run `iters` iterations from zero on y: SIRT with plan sp, or CGLS on A when sp is NULL; *t the
 * run's seconds. */
static kr_status kc_cone_run(kr_ctx *ctx, kr_linop *A, kr_sirt_plan *sp, const kr_array *y,
                             kr_array *x, int iters, double *t)
{
    const double t0 = kr_time_now();
    kr_status st;
    if (sp) {
        kr_sirt_opts so;
        kr_sirt_opts_default(&so);
        so.max_iter = iters;
        st = kr_sirt_execute(sp, y, x, &so, NULL);
    } else {
        kr_solve_opts co;
        kr_solve_opts_default(&co);
        co.max_iter = iters;
        co.tol = 0;
        st = kr_cgls(ctx, A, y, x, &co, NULL);
    }
    if (st == KR_OK) st = kc_bench_sync(ctx);
    *t = kr_time_now() - t0;
    return st;
}

/* SIRT (the matched pair of opts o), SIRT with the voxel-driven backprojector in place of A^T,
 * and CGLS, each run from zero for `iters` and for 2 iters iterations on the projections y: one
 * JSON line or table row each with the time per iteration, (t(2 iters) - t(iters)) / iters,
 * which leaves out what a run pays once (SIRT's first residual, CGLS's first A^T y; SIRT's plan,
 * made once and applying A and its backprojector once for the weights, is reported apart, as
 * is the time of the first run). per_iter: SIRT, SIRT voxel, CGLS. */
static kr_status kc_cone_iters(int json, kr_ctx *ctx, const kr_ct_geom *geo,
                               const kr_ct_projector_opts *o, const kc_proj_case *pc,
                               const kr_array *y, kr_array *x, int iters, double per_iter[3])
{
    static const char *const name[3] = {"sirt", "sirt_voxel", "cgls"};
    kr_linop *A = NULL;
    kr_status st = kr_ct_linop_create(&A, ctx, geo, o);
    for (int k = 0; k < 3 && st == KR_OK; k++) {
        double t1 = 0, t2 = 0, plan = 0;
        kr_linop *B = NULL;
        kr_sirt_plan *sp = NULL;
        if (k < 2) { /* the SIRT plan, with its weights */
            const double t0 = kr_time_now();
            if (k == 1) st = kr_ct_voxel_bp_linop_create(&B, ctx, geo, 0);
            if (st == KR_OK) st = kr_sirt_plan_create_pair(&sp, ctx, A, B);
            if (st == KR_OK) st = kc_bench_sync(ctx);
            plan = kr_time_now() - t0;
        }
        if (st == KR_OK) st = kc_cone_run(ctx, A, sp, y, x, iters, &t1);
        if (st == KR_OK) st = kc_cone_run(ctx, A, sp, y, x, 2 * iters, &t2);
        kr_sirt_plan_destroy(sp);
        kr_linop_destroy(B);
        if (st != KR_OK) break;
        per_iter[k] = (t2 - t1) / iters;
        if (json) {
            char cs[64];
            snprintf(cs, sizeof cs, "cone_%s", name[k]);
            kc_jo j;
            kc_jo_begin(&j);
            kc_jo_str(&j, "case", cs);
            kc_jo_str(&j, "method", pc->method);
            kc_jo_str(&j, "dtype", "f32");
            kc_jo_str(&j, "backend", kr_backend_name(kr_ctx_backend(ctx)));
            kc_jo_ints(&j, "volume", 3, pc->vol);
            kc_jo_int(&j, "views", pc->views);
            kc_jo_int(&j, "iters", iters);
            kc_jo_fmt(&j, "time_s", "%.6g", t1);
            kc_jo_fmt(&j, "time_2x_s", "%.6g", t2);
            kc_jo_fmt(&j, "per_iter_s", "%.6g", per_iter[k]);
            if (k < 2) kc_jo_fmt(&j, "plan_s", "%.6g", plan);
            kc_jo_end(&j);
        } else {
            printf("cone_%-10s %-7s %d / %d iterations from zero: %.3f / %.3f s, %.1f ms per "
                   "iteration",
                   name[k], pc->method, iters, 2 * iters, t1, t2, per_iter[k] * 1e3);
            if (k < 2) printf(" (plan with its weights %.3f s, not counted)", plan);
            printf("\n");
        }
    }
    kr_linop_destroy(A);
    fflush(stdout);
    return st;
}

/* The voxel-driven backprojector (kr_ct_voxel_bp_linop_create) on the dense projections pr, `reps`
 * timed runs after a warm-up, one line as the projectors' (method "voxel"); *best: seconds. */
static kr_status kc_cone_voxel_bp(int json, kr_ctx *ctx, const char *dev, const kr_ct_geom *geo,
                                  kc_proj_case *pc, const kr_array *pr, kr_array *vol, int reps,
                                  double *t, double *best)
{
    kr_linop *B = NULL;
    kr_status st = kr_ct_voxel_bp_linop_create(&B, ctx, geo, 0);
    for (int k = 0; st == KR_OK && k <= reps; k++) {
        double t0 = kr_time_now();
        st = kr_linop_forward(B, pr, vol);
        if (st == KR_OK) st = kc_bench_sync(ctx);
        if (k) t[k - 1] = kr_time_now() - t0;
    }
    kr_linop_destroy(B);
    if (st != KR_OK) return st;
    pc->method = "voxel";
    pc->bcase = "cone_adjoint";
    kc_proj_line(json, pc, ctx, dev, t, reps); /* sorts t */
    *best = t[0];
    return KR_OK;
}

/* ASTRA's FP3D_CUDA, BP3D_CUDA (and with iters its SIRT3D_CUDA and CGLS3D_CUDA) on the same
 * views and volume through the peer script, with kray's times beside them (seconds; 0: not
 * measured). */
static void kc_cone_astra(int json, const char *peer, const char *tmpdir, const kr_ct_geom *geo,
                          const kr_array *vol_h, int reps, int iters, const double kray[6])
{
    char gp[4096], vp[4096], args[12800], line[4096] = "";
    if (kc_peer_inputs("bench cone", tmpdir, "cone", geo, vol_h, gp, vp, sizeof gp)) return;
    snprintf(args, sizeof args, "'%s' --geom '%s' --vol '%s' --reps %d --iters %d", peer, gp, vp,
             reps, iters);
    kc_peer_json(args, line, sizeof line);
    unlink(vp);
    unlink(gp);
    printf(json ? "%s\n" : "astra            %s\n",
           line[0] ? line : "{\"peer\": \"astra\", \"error\": \"no output\"}");
    static const char *const what[6][3] = {
        {"forward", "fp_s", "Joseph forward vs FP3D_CUDA"},
        {"adjoint", "bp_s", "matched Joseph adjoint vs BP3D_CUDA (voxel-driven, not a transpose)"},
        {"sirt", "sirt_iter_s", "SIRT iteration (matched pair) vs SIRT3D_CUDA's"},
        {"cgls", "cgls_iter_s", "CGLS iteration vs CGLS3D_CUDA's"},
        {"adjoint_voxel", "bp_s", "voxel-driven backprojector vs BP3D_CUDA"},
        {"sirt_voxel", "sirt_iter_s", "SIRT iteration (voxel backprojector) vs SIRT3D_CUDA's"}};
    for (int k = 0; k < 6; k++) {
        const double ta = kc_json_num(line, what[k][1]);
        if (!(ta > 0) || !(kray[k] > 0)) continue;
        if (json) {
            char cs[64];
            snprintf(cs, sizeof cs, "cone_%s_vs_astra", what[k][0]);
            kc_jo j;
            kc_jo_begin(&j);
            kc_jo_str(&j, "case", cs);
            kc_jo_fmt(&j, "kray_s", "%.6g", kray[k]);
            kc_jo_fmt(&j, "astra_s", "%.6g", ta);
            kc_jo_fmt(&j, "speedup", "%.4g", ta / kray[k]);
            kc_jo_end(&j);
        } else
            printf("kray / astra     %s: %.4f s vs %.4f s: %.2fx\n", what[k][2], kray[k], ta,
                   ta / kray[k]);
    }
    fflush(stdout);
}

int kc_bench_cone(int argc, char **argv)
{
    int size = 0, views = 0, reps = 3, method = 0, adjoint = 0, iters = 0;
    const char *peer = NULL, *tmpdir = "/tmp";
    kc_dims det = {0, {0}};
    const kc_opt opts[] = {
        {"size", 'n', KC_INT, &size, "0", "N", "volume N^3 (0: 512 on CUDA, 64 on the CPU)", NULL,
         0, 4096, NULL},
        {"views", 0, KC_INT, &views, "0", "N", "views (0: 496 on CUDA, 60 on the CPU)", NULL, 0,
         100000, NULL},
        {"det", 0, KC_DIMS, &det, NULL, "UxV",
         "detector pixels (default 1248x960 scaled by N/512)", NULL, 1, 1 << 20, NULL},
        {"reps", 0, KC_INT, &reps, "3", "N", "timed repetitions after one warm-up", NULL, 1, 1000,
         NULL},
        {"method", 'm', KC_CHOICE, &method, "both", "M", "projector", "both|joseph|siddon", 0, 0,
         NULL},
        {"adjoint", 'a', KC_FLAG, &adjoint, NULL, NULL,
         "also time the matched adjoints, same repetitions", NULL, 0, 0, NULL},
        {"iters", 'i', KC_INT, &iters, "0", "N",
         "also time SIRT (with either backprojector) and CGLS, runs of N and 2N iterations",
         NULL, 0, 10000,
         NULL},
        {"peer", 0, KC_STRING, &peer, NULL, "SCRIPT",
         "run ASTRA's FP3D_CUDA, BP3D_CUDA (and with --iters SIRT3D_CUDA, CGLS3D_CUDA) through "
         "this script (bench/peer_astra_cone.py) on the same views and volume; CUDA only",
         NULL, 0, 0, NULL},
        {"tmp", 0, KC_STRING, &tmpdir, "/tmp", "DIR", "where the peer's input files go", NULL, 0,
         0, NULL},
        {0}};
    const kc_spec spec = {
        "bench cone",
        "Cone-beam projectors on a RabbitCT-sized circular scan (496 views of 1248x960 pixels of\n"
        "0.32 mm, 512^3 voxels of 0.5 mm, SOD 750 mm, SDD 1200 mm; --size N scales the volume,\n"
        "and the detector and pixel pitch with it), f32, data where the backend computes:\n"
        "Joseph and Siddon forward projection; with --adjoint their matched adjoints and the\n"
        "voxel-driven backprojector (kray backproject --backprojector voxel), on projections uniform in\n"
        "[-1, 1) (the adjoints skip zero pixels); with --iters N the time per iteration of SIRT\n"
        "and CGLS on each pair, and of SIRT with the voxel-driven backprojector (runs of N and 2N\n"
        "iterations: the difference over N, for kray and the peer alike). Reports the best\n"
        "and median of --reps runs and rays (detector pixels x views) per second; --peer adds\n"
        "ASTRA's projectors and iterations on the same data, with the ratios (kray's Joseph\n"
        "pair against them). A table on stdout, JSON lines with --json.",
        opts,
        NULL,
        KC_JSON,
        "Examples:\n  kray bench cone --backend cuda --json\n"
        "  kray bench cone --backend cpu --size 64 --method joseph\n"
        "  kray bench cone --backend cuda --method joseph --adjoint --iters 5 \\\n"
        "      --peer bench/peer_astra_cone.py",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    if (det.n == 1 || det.n > 2) return kc_usage("bench cone", "--det takes UxV");
    kr_ctx *ctx = NULL;
    char dev[256];
    if ((r = kc_bench_ctx("bench cone", &c, &ctx, dev, sizeof dev)) != 0) return r;
    const int cuda = kr_ctx_backend(ctx) == KR_BACKEND_CUDA;
    const int64_t n = size ? size : (cuda ? 512 : 64);
    const double s = 512.0 / (double)n;
    kr_ct_grid g;
    kr_ct_grid_3d(&g, n, n, n, 0.5 * s);
    kr_ct_scan sc;
    kr_ct_scan_default(&sc);
    sc.type = KR_CT_CONE;
    sc.nviews = views ? views : (cuda ? 496 : 60);
    sc.start_deg = 0;
    sc.stop_deg = 360;
    sc.det_count = det.n ? det.d[0] : (int64_t)fmax(1.0, round(1248.0 / s));
    sc.det_rows = det.n ? det.d[1] : (int64_t)fmax(1.0, round(960.0 / s));
    sc.det_spacing_mm = 399.36 / (double)sc.det_count;
    sc.det_spacing_v_mm = 307.2 / (double)sc.det_rows;
    sc.sod_mm = 750;
    sc.sdd_mm = 1200;
    kr_ct_geom *geo = NULL;
    kr_array *hv = NULL, *vol = NULL, *pr = NULL;
    const kr_loc loc = cuda ? KR_DEVICE : KR_HOST;
    int64_t pd[3] = {sc.det_count, sc.det_rows, sc.nviews};
    kr_status st = kr_ct_geom_create(&geo, &sc, &g);
    if (st == KR_OK) st = kr_phantom_3d(&hv, KR_PHANTOM_MODIFIED_SL, n, n, n, 1, KR_F32);
    if (st == KR_OK) st = kr_array_clone(&vol, hv, loc, ctx);
    if (st == KR_OK) st = kr_array_create(&pr, KR_F32, 3, pd, loc, ctx);
    if (st == KR_OK && !c.json) kc_proj_header();
    kc_proj_case pc = {NULL, "cone", NULL, "f32", 3, g.n, pd, pd[2]};
    /* Joseph: forward, adjoint, SIRT, CGLS; the voxel backprojector; SIRT with it */
    double t[1000], kray[6] = {0, 0, 0, 0, 0, 0};
    for (int m = 1; m <= 2 && st == KR_OK; m++) {
        if (method && method != m) continue;
        kr_ct_projector_opts o;
        kr_ct_projector_opts_default(&o);
        o.method = m == 2 ? KR_CT_SIDDON : KR_CT_JOSEPH;
        const char *mn = m == 2 ? "siddon" : "joseph";
        kr_ct_projector_plan *p = NULL;
        st = kr_ct_projector_plan_create(&p, ctx, geo, &o);
        for (int k = 0; st == KR_OK && k <= reps; k++) { /* k = 0 warms up */
            double t0 = kr_time_now();
            st = kr_ct_projector_forward(p, vol, pr); /* returns when the result is there */
            if (k) t[k - 1] = kr_time_now() - t0;
        }
        pc.method = mn;
        pc.bcase = "cone_forward";
        if (st == KR_OK) kc_proj_line(c.json, &pc, ctx, dev, t, reps); /* sorts t */
        if (m == 1) kray[0] = t[0];
        /* the adjoint skips pixels whose value is 0: time it on dense data (the phantom's
         * projections are 0 around its shadow), uniform in [-1, 1) */
        if (adjoint && st == KR_OK) st = kr_vec_random(ctx, pr, 7);
        for (int k = 0; adjoint && st == KR_OK && k <= reps; k++) {
            double t0 = kr_time_now();
            st = kr_ct_projector_adjoint(p, pr, vol);
            if (k) t[k - 1] = kr_time_now() - t0;
        }
        if (adjoint && st == KR_OK) {
            pc.bcase = "cone_adjoint";
            kc_proj_line(c.json, &pc, ctx, dev, t, reps);
            if (m == 1) kray[1] = t[0];
        }
        if (adjoint && st == KR_OK && m == 1) /* on the same dense data */
            st = kc_cone_voxel_bp(c.json, ctx, dev, geo, &pc, pr, vol, reps, t, &kray[4]);
        if (adjoint && st == KR_OK) st = kr_array_copy(vol, hv, ctx);
        pc.method = mn;
        double it[3] = {0, 0, 0};
        if (st == KR_OK && iters > 0) { /* y: this method's projections of the phantom */
            if (adjoint) st = kr_ct_projector_forward(p, vol, pr);
            if (st == KR_OK) st = kc_cone_iters(c.json, ctx, geo, &o, &pc, pr, vol, iters, it);
            if (st == KR_OK) st = kr_array_copy(vol, hv, ctx);
        }
        kr_ct_projector_plan_destroy(p);
        if (m == 1) kray[2] = it[0], kray[3] = it[2], kray[5] = it[1];
    }
    if (st == KR_OK && peer && cuda)
        kc_cone_astra(c.json, peer, tmpdir, geo, hv, reps, iters, kray);
    if (peer && !cuda)
        fprintf(stderr, "kray bench cone: --peer runs ASTRA on CUDA; skipped on the CPU\n");
    kr_array_destroy(hv);
    kr_array_destroy(vol);
    kr_array_destroy(pr);
    kr_ct_geom_destroy(geo);
    kr_ctx_destroy(ctx);
    return st == KR_OK ? 0 : kc_fail("bench cone", st);
}
