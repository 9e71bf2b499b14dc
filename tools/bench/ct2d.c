/* kray bench ct2d: the 2-D projectors (Joseph and Siddon, forward and matched adjoint) on the
 * three 2-D beam types: an N^2 image (default 512^2, 1 mm pixels) from 720 views of 768
 * detector pixels; parallel beam over 180 degrees (1 mm pitch), flat and equiangular fan
 * beams over 360 degrees (source 600 mm from the axis, detector at 1000 mm, 1.5 mm pitch;
 * arc length on the equiangular detector). Data where the backend computes; the image is the modified
 * Shepp-Logan (the time does not depend on the values). */
#include "bench.h"

int kc_bench_ct2d(int argc, char **argv)
{
    int size = 512, views = 720, det = 768, reps = 5, method = 0, geoms = 0;
    const kc_opt opts[] = {
        {"size", 'n', KC_INT, &size, "512", "N", "image N^2 (1 mm pixels scaled by 512 / N)",
         NULL, 8, 16384, NULL},
        {"views", 0, KC_INT, &views, "720", "N", "views", NULL, 1, 100000, NULL},
        {"det", 0, KC_INT, &det, "768", "N", "detector pixels", NULL, 1, 1 << 20, NULL},
        {"reps", 0, KC_INT, &reps, "5", "N", "timed repetitions after one warm-up", NULL, 1, 1000,
         NULL},
        {"method", 'm', KC_CHOICE, &method, "both", "M", "projector", "both|joseph|siddon", 0, 0,
         NULL},
        {"geometry", 0, KC_CHOICE, &geoms, "all", "G", "beam type",
         "all|parallel2d|fan2d-flat|fan2d-equiangular", 0, 0, NULL},
        {0}};
    const kc_spec spec = {
        "bench ct2d",
        "2-D CT projectors: Joseph and Siddon forward projection and their matched adjoints\n"
        "(exact transposes) of an N^2 image from 720 views of 768 pixels, for the parallel beam\n"
        "(180 degrees) and the flat and equiangular fan beams (360 degrees, SOD 600 mm, SDD\n"
        "1000 mm), in the --precision given (f32 by default), data where the backend computes.\n"
        "Reports the best and median of --reps runs and rays (detector pixels x views) per\n"
        "second. A table on stdout, JSON lines with --json.",
        opts,
        NULL,
        KC_JSON,
        "Examples:\n  kray bench ct2d --backend cuda --json\n"
        "  kray bench ct2d --backend cuda --precision f64 --method joseph",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    kr_ctx *ctx = NULL;
    char dev[256];
    if ((r = kc_bench_ctx("bench ct2d", &c, &ctx, dev, sizeof dev)) != 0) return r;
    const int cuda = kr_ctx_backend(ctx) == KR_BACKEND_CUDA;
    const kr_dtype dt = c.precision ? KR_F64 : KR_F32;
    const kr_loc loc = cuda ? KR_DEVICE : KR_HOST;
    const double s = 512.0 / (double)size;
    kr_ct_grid g;
    kr_ct_grid_2d(&g, size, size, s);
    const int64_t pdim[2] = {det, views};
    kr_array *h = NULL, *hx = NULL, *x = NULL, *y = NULL;
    kr_status st = kr_phantom_2d(&h, KR_PHANTOM_MODIFIED_SL, size, size, 1, KR_F64);
    if (st == KR_OK) st = kr_array_astype(&hx, h, dt);
    if (st == KR_OK) st = kr_array_clone(&x, hx, loc, ctx);
    if (st == KR_OK) st = kr_array_create(&y, dt, 2, pdim, loc, ctx);
    if (st == KR_OK && !c.json) kc_proj_header();
    static const kr_ct_type types[3] = {KR_CT_PARALLEL2D, KR_CT_FAN2D_FLAT,
                                        KR_CT_FAN2D_EQUIANGULAR};
    double t[1000];
    for (int gi = 0; gi < 3 && st == KR_OK; gi++) {
        if (geoms && geoms != gi + 1) continue;
        kr_ct_scan sc;
        kr_ct_scan_default(&sc);
        sc.type = types[gi];
        sc.nviews = views;
        sc.start_deg = 0;
        sc.stop_deg = gi ? 360 : 180;
        sc.det_count = det;
        sc.det_spacing_mm = gi ? 1.5 * s : s;
        if (gi) sc.sod_mm = 600, sc.sdd_mm = 1000;
        kr_ct_geom *geo = NULL;
        st = kr_ct_geom_create(&geo, &sc, &g);
        for (int m = 1; m <= 2 && st == KR_OK; m++) {
            if (method && method != m) continue;
            kr_ct_projector_opts o;
            kr_ct_projector_opts_default(&o);
            o.method = m == 2 ? KR_CT_SIDDON : KR_CT_JOSEPH;
            o.dtype = dt;
            kr_ct_projector_plan *p = NULL;
            st = kr_ct_projector_plan_create(&p, ctx, geo, &o);
            kc_proj_case pc = {"ct2d_forward", kr_ct_type_name(types[gi]),
                               kr_ct_method_name(o.method), kr_dtype_name(dt), 2, g.n, pdim,
                               views};
            for (int adj = 0; adj <= 1 && st == KR_OK; adj++) {
                for (int k = 0; st == KR_OK && k <= reps; k++) { /* k = 0 warms up */
                    double t0 = kr_time_now();
                    /* both return when the result is there */
                    st = adj ? kr_ct_projector_adjoint(p, y, x) : kr_ct_projector_forward(p, x, y);
                    if (k) t[k - 1] = kr_time_now() - t0;
                }
                if (adj) pc.bcase = "ct2d_adjoint";
                if (st == KR_OK) kc_proj_line(c.json, &pc, ctx, dev, t, reps);
            }
            if (st == KR_OK) st = kr_array_copy(x, hx, ctx); /* the adjoint overwrote it */
            kr_ct_projector_plan_destroy(p);
        }
        kr_ct_geom_destroy(geo);
    }
    kr_array_destroy(h);
    kr_array_destroy(hx);
    kr_array_destroy(x);
    kr_array_destroy(y);
    kr_ctx_destroy(ctx);
    return st == KR_OK ? 0 : kc_fail("bench ct2d", st);
}
