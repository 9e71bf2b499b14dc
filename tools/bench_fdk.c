/* kray fdk --bench: FDK and its backprojector on a RabbitCT-sized circular scan with synthetic
 * projections (the time does not depend on the values), data on the device for CUDA. One JSON
 * line per case on stdout. */
#include "fdk_tool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int kc_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct kc_bcase {
    const char *name;
    const kr_ctx *ctx;
    const char *device;
    int64_t n, views, nu, nv;
    int reps;
    const char *data;
} kc_bcase;

static void kc_bench_line(const kc_bcase *b, const kr_fdk_info *info, const double *t, int nt,
                          const double *w, int nw)
{
    double ts[1000], ws[1000];
    memcpy(ts, t, (size_t)nt * sizeof *t);
    memcpy(ws, w, (size_t)nw * sizeof *w);
    qsort(ts, (size_t)nt, sizeof *ts, kc_cmp);
    qsort(ws, (size_t)nw, sizeof *ws, kc_cmp);
    double best = nt ? ts[0] : ws[0], med = nt ? ts[nt / 2] : ws[nw / 2];
    double upd = (double)b->n * (double)b->n * (double)b->n * (double)b->views;
    printf("{\"case\": ");
    kc_json_string(stdout, b->name);
    printf(", \"backend\": ");
    kc_json_string(stdout, kr_backend_name(kr_ctx_backend(b->ctx)));
    printf(", \"device\": ");
    kc_json_string(stdout, b->device);
    printf(", \"kernel\": ");
    kc_json_string(stdout, info->kernel);
    printf(", \"volume\": [%lld, %lld, %lld], \"views\": %lld, \"detector\": [%lld, %lld], "
           "\"data\": \"%s\", \"reps\": %d, \"time_s\": ",
           (long long)b->n, (long long)b->n, (long long)b->n, (long long)b->views,
           (long long)b->nu, (long long)b->nv, b->data, b->reps);
    kc_json_number(stdout, best);
    printf(", \"time_median_s\": ");
    kc_json_number(stdout, med);
    printf(", \"wall_s\": ");
    kc_json_number(stdout, ws[0]);
    printf(", \"voxel_updates_per_s\": ");
    kc_json_number(stdout, upd / best);
    printf(", \"filter_s\": ");
    kc_json_number(stdout, info->t_filter_s);
    printf(", \"backproject_s\": ");
    kc_json_number(stdout, info->t_backproject_s);
    printf(", \"slabs\": %lld, \"batch_views\": %lld, \"device_bytes\": %lld, \"threads\": %d}\n",
           (long long)info->slabs, (long long)info->batch_views, (long long)info->device_bytes,
           kr_ctx_threads(b->ctx));
    fflush(stdout);
}

/* Backprojection (weight 0) or FDK (1) timed reps times after a warm-up. */
static kr_status kc_bench_case(kc_bcase *b, const kr_ct_geom *g, const kr_fdk_opts *o,
                               const kr_array *proj, kr_array *vol, int weight)
{
    kr_fdk_plan *p = NULL;
    kr_status s = kr_fdk_plan_create(&p, b->ctx, g, o);
    double t[1000], w[1000];
    int nt = 0;
    kr_fdk_info info;
    for (int r = 0; s == KR_OK && r <= b->reps; r++) {
        double t0 = kr_time_now();
        s = weight ? kr_fdk_execute(p, proj, vol) : kr_fdk_backproject(p, proj, vol);
        double dt = kr_time_now() - t0;
        if (s == KR_OK) s = kr_fdk_plan_info(p, &info);
        if (s != KR_OK || r == 0) continue; /* r = 0 warms up */
        w[r - 1] = dt;
        /* the kernels' own time where the plan measured it (CUDA in core), else the wall time
         * of the step (CPU) or of the whole call */
        double k = weight ? (kr_ctx_backend(b->ctx) == KR_BACKEND_CUDA ? 0 : dt)
                          : info.t_backproject_s;
        if (k > 0) t[nt++] = k;
    }
    if (s == KR_OK) kc_bench_line(b, &info, t, nt, w, b->reps);
    kr_fdk_plan_destroy(p);
    return s;
}

int kc_fdk_bench(const kc_common *c, const kr_fdk_opts *o, const kc_fdk_bench_args *a)
{
    kr_ctx *ctx = NULL;
    int r = kc_make_ctx("fdk", c, &ctx);
    if (r) return r;
    if (!c->verbose) kr_ctx_set_log_level(ctx, KR_LOG_ERROR); /* the FOV warning is expected */
    const int cuda = kr_ctx_backend(ctx) == KR_BACKEND_CUDA;
    char dev[256] = "cpu";
    if (cuda) kr_cuda_device_name(kr_ctx_device(ctx), dev, sizeof dev);
    int sizes[2] = {a->size ? a->size : (cuda ? 512 : 128), cuda && !a->size ? 1024 : 0};
    kc_bcase b;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    b.device = dev;
    b.views = a->views ? a->views : (cuda ? 496 : 120);
    b.nu = a->nu ? a->nu : (cuda ? 1248 : 312);
    b.nv = a->nv ? a->nv : (cuda ? 960 : 240);
    b.reps = a->reps;
    b.data = cuda ? "device" : "host";
    /* RabbitCT-like: source 750 mm from the axis, detector at 1200 mm, 399 x 307 mm */
    kr_ct_scan sc;
    kr_ct_scan_default(&sc);
    sc.type = KR_CT_CONE;
    sc.nviews = b.views;
    sc.start_deg = 0;
    sc.stop_deg = 360;
    sc.det_count = b.nu;
    sc.det_rows = b.nv;
    sc.det_spacing_mm = 399.36 / (double)b.nu;
    sc.det_spacing_v_mm = 307.2 / (double)b.nv;
    sc.sod_mm = 750;
    sc.sdd_mm = 1200;
    kr_ct_geom *g = NULL;
    kr_array *ph = NULL, *proj = NULL, *vol = NULL;
    kr_status s = KR_OK;
    int64_t pd[3] = {b.nu, b.nv, b.views};
    if (s == KR_OK) s = kr_array_create(&ph, KR_F32, 3, pd, KR_HOST, NULL);
    if (s == KR_OK) {
        float *x = ph->data;
        for (int64_t m = 0; m < b.views; m++)
            for (int64_t v = 0; v < b.nv; v++)
                for (int64_t u = 0; u < b.nu; u++)
                    x[u + b.nu * (v + b.nv * m)] =
                        (float)(1.0 + 0.5 * sin(0.01 * (double)u) * cos(0.013 * (double)v) +
                                1e-3 * (double)m);
        if (cuda) {
            s = kr_array_clone(&proj, ph, KR_DEVICE, ctx);
            kr_array_destroy(ph);
            ph = NULL;
        } else {
            proj = ph;
            ph = NULL;
        }
    }
    for (int si = 0; si < 2 && s == KR_OK && sizes[si]; si++) {
        b.n = sizes[si];
        kr_ct_grid grid;
        memset(&grid, 0, sizeof grid);
        for (int d = 0; d < 3; d++) {
            grid.n[d] = b.n;
            grid.voxel_mm[d] = 256.0 / (double)b.n;
        }
        kr_ct_geom_destroy(g);
        g = NULL;
        kr_array_destroy(vol);
        vol = NULL;
        s = kr_ct_geom_create(&g, &sc, &grid);
        if (s == KR_OK)
            s = kr_array_create(&vol, KR_F32, 3, grid.n, cuda ? KR_DEVICE : KR_HOST, ctx);
        kr_fdk_opts ok = *o;
        int k0 = cuda && a->all_kernels ? KR_FDK_KERNEL_SMEM : (int)o->kernel;
        int k1 = cuda && a->all_kernels ? KR_FDK_KERNEL_COUNT - 1 : (int)o->kernel;
        for (int k = k0; k <= k1 && s == KR_OK; k++) {
            ok.kernel = (kr_fdk_kernel)k;
            b.name = "fdk_backproject";
            s = kc_bench_case(&b, g, &ok, proj, vol, 0);
        }
        if (s == KR_OK) {
            b.name = "fdk";
            s = kc_bench_case(&b, g, o, proj, vol, 1);
        }
    }
    kr_ct_geom_destroy(g);
    kr_array_destroy(ph);
    kr_array_destroy(proj);
    kr_array_destroy(vol);
    kr_ctx_destroy(ctx);
    return s == KR_OK ? 0 : kc_fail("fdk", s);
}
