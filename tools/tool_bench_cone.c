/* kray bench cone: the cone-beam projectors (Joseph and Siddon, forward and matched adjoint) on
 * the RabbitCT-sized circular scan of kray bench fdk (496 views of 1248 x 960 pixels, 512^3
 * voxels of 0.5 mm, source 750 mm from the axis, detector at 1200 mm), or that scan scaled.
 * The volume is the modified 3-D Shepp-Logan (the time does not depend on the values). */
#include "tool_bench.h"

#include <math.h>

int kc_bench_cone(int argc, char **argv)
{
    int size = 0, views = 0, reps = 3, method = 0, adjoint = 0;
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
        {"method", 0, KC_CHOICE, &method, "both", "M", "projector", "both|joseph|siddon", 0, 0,
         NULL},
        {"adjoint", 0, KC_FLAG, &adjoint, NULL, NULL,
         "also time the matched (ray-driven) adjoints, same repetitions", NULL, 0, 0, NULL},
        {0}};
    const kc_spec spec = {
        "bench cone",
        "Cone-beam projectors on a RabbitCT-sized circular scan (496 views of 1248x960 pixels of\n"
        "0.32 mm, 512^3 voxels of 0.5 mm, SOD 750 mm, SDD 1200 mm; --size N scales the volume,\n"
        "and the detector and pixel pitch with it), f32, data where the backend computes:\n"
        "Joseph and Siddon forward projection (and with --adjoint their matched adjoints).\n"
        "Reports the best and median of --reps runs and rays (detector pixels x views) per\n"
        "second. A table on stdout, JSON lines with --json.",
        opts,
        NULL,
        KC_JSON,
        "Examples:\n  kray bench cone --backend cuda --json\n"
        "  kray bench cone --backend cpu --size 64 --method joseph",
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
    double t[1000];
    for (int m = 1; m <= 2 && st == KR_OK; m++) {
        if (method && method != m) continue;
        kr_ct_projector_opts o;
        kr_ct_projector_opts_default(&o);
        o.method = m == 2 ? KR_CT_SIDDON : KR_CT_JOSEPH;
        const char *mn = m == 2 ? "siddon" : "joseph";
        kr_ct_projector *p = NULL;
        st = kr_ct_projector_create(&p, ctx, geo, &o);
        for (int k = 0; st == KR_OK && k <= reps; k++) { /* k = 0 warms up */
            double t0 = kr_time_now();
            st = kr_ct_projector_forward(p, vol, pr); /* returns when the result is there */
            if (k) t[k - 1] = kr_time_now() - t0;
        }
        pc.method = mn;
        pc.bcase = "cone_forward";
        if (st == KR_OK) kc_proj_line(c.json, &pc, ctx, dev, t, reps);
        for (int k = 0; adjoint && st == KR_OK && k <= reps; k++) {
            double t0 = kr_time_now();
            st = kr_ct_projector_adjoint(p, pr, vol);
            if (k) t[k - 1] = kr_time_now() - t0;
        }
        if (adjoint && st == KR_OK) {
            pc.bcase = "cone_adjoint";
            kc_proj_line(c.json, &pc, ctx, dev, t, reps);
            st = kr_array_copy(vol, hv, ctx); /* the adjoint overwrote it */
        }
        kr_ct_projector_destroy(p);
    }
    kr_array_destroy(hv);
    kr_array_destroy(vol);
    kr_array_destroy(pr);
    kr_ct_geom_destroy(geo);
    kr_ctx_destroy(ctx);
    return st == KR_OK ? 0 : kc_fail("bench cone", st);
}
