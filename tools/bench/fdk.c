/* kray bench fdk: FDK and its backprojector on a RabbitCT-sized circular scan (496 views of
 * 1248 x 960 pixels into 512^3 and 1024^3) with synthetic projections (the time does not depend
 * on the values), optionally beside ASTRA's FDK_CUDA on the same geometry and data. */
#include "bench.h"
#include "ct/fdk_bench.h"
#include "fdk_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct kc_bcase {
    const char *name, *data;
    const kr_ctx *ctx;
    const char *device;
    int64_t n, views, nu, nv;
    int reps, json;
} kc_bcase;

static void kc_bench_line(const kc_bcase *b, const kr_fdk_info *info, double *t, int nt,
                          double *w, int nw)
{
    kc_times_sort(t, nt);
    kc_times_sort(w, nw);
    const double best = nt ? t[0] : w[0], med = nt ? t[nt / 2] : w[nw / 2];
    const double upd = (double)b->n * (double)b->n * (double)b->n * (double)b->views;
    if (!b->json) {
        printf("%-16s %-6s %-10s %4lld^3 %4lld x %4lldx%-4lld %-6s %9.4f s %9.4f s %10.3g  %s\n",
               b->name, kr_backend_name(kr_ctx_backend(b->ctx)), info->kernel, (long long)b->n,
               (long long)b->views, (long long)b->nu, (long long)b->nv, b->data, best, med,
               upd / best, info->slabs > 1 ? "out of core" : "");
        fflush(stdout);
        return;
    }
    const int64_t vol[3] = {b->n, b->n, b->n}, det[2] = {b->nu, b->nv};
    kc_jo j;
    kc_jo_begin(&j);
    kc_jo_str(&j, "case", b->name);
    kc_jo_str(&j, "backend", kr_backend_name(kr_ctx_backend(b->ctx)));
    kc_jo_str(&j, "device", b->device);
    kc_jo_str(&j, "kernel", info->kernel);
    kc_jo_ints(&j, "volume", 3, vol);
    kc_jo_int(&j, "views", b->views);
    kc_jo_ints(&j, "detector", 2, det);
    kc_jo_str(&j, "data", b->data);
    kc_jo_int(&j, "reps", b->reps);
    kc_jo_num(&j, "time_s", best);
    kc_jo_num(&j, "time_median_s", med);
    kc_jo_num(&j, "wall_s", w[0]);
    kc_jo_num(&j, "voxel_updates_per_s", upd / best);
    kc_jo_num(&j, "filter_s", info->t_filter_s);
    kc_jo_num(&j, "backproject_s", info->t_backproject_s);
    kc_jo_int(&j, "slabs", info->slabs);
    kc_jo_int(&j, "batch_views", info->batch_views);
    kc_jo_int(&j, "device_bytes", info->device_bytes);
    kc_jo_int(&j, "threads", kr_ctx_threads(b->ctx));
    kc_jo_end(&j);
    fflush(stdout);
}

/* Backprojection (weight 0) or FDK (1) timed reps times after a warm-up. The time of a
 * backprojection is the kernels' own (CUDA events, in core) or the step's (CPU); FDK's is the
 * wall time of kr_fdk_execute (census, weighting, filter, backprojection, transfers). */
static kr_status kc_bench_case(kc_bcase *b, const kr_ct_geom *g, const kr_fdk_opts *o,
                               const kri_fdk_tune *tune, const kr_array *proj, kr_array *vol,
                               int weight, double *best_wall)
{
    kr_fdk_plan *p = NULL;
    kr_status s = kri_fdk_plan_create_tuned(&p, b->ctx, g, o, tune);
    double t[1000], w[1000];
    int nt = 0;
    kr_fdk_info info;
    memset(&info, 0, sizeof info);
    for (int r = 0; s == KR_OK && r <= b->reps; r++) {
        double t0 = kr_time_now();
        s = weight ? kr_fdk_execute(p, proj, vol) : kr_fdk_backproject(p, proj, vol);
        double dt = kr_time_now() - t0;
        if (s == KR_OK) s = kr_fdk_plan_info(p, &info);
        if (s != KR_OK || r == 0) continue; /* r = 0 warms up */
        w[r - 1] = dt;
        double k = weight ? 0 : info.t_backproject_s;
        if (k > 0) t[nt++] = k;
    }
    if (s == KR_OK) {
        kc_bench_line(b, &info, t, nt, w, b->reps); /* sorts w */
        if (best_wall) *best_wall = w[0];
    }
    kr_fdk_plan_destroy(p);
    return s;
}

/* ASTRA FDK_CUDA on the same views and data (bench/peer_astra_fdk.py): one JSON line. */
static void kc_bench_astra(const kc_bcase *b, const kr_ct_geom *g, const kr_array *proj_h,
                           const char *peer, const char *tmpdir, double kray_s)
{
    char gp[4096], pp[4096], args[12800], line[4096] = "";
    if (kc_peer_inputs("bench fdk", tmpdir, "fdk", g, proj_h, gp, pp, sizeof gp)) return;
    snprintf(args, sizeof args, "'%s' --geom '%s' --proj '%s' --reps %d", peer, gp, pp, b->reps);
    kc_peer_json(args, line, sizeof line);
    unlink(pp);
    unlink(gp);
    const double ta = kc_json_num(line, "time_s");
    if (b->json) {
        printf("%s\n", line[0] ? line : "{\"peer\": \"astra\", \"error\": \"no output\"}");
        if (ta > 0) {
            const int64_t vol[3] = {b->n, b->n, b->n};
            kc_jo j;
            kc_jo_begin(&j);
            kc_jo_str(&j, "case", "fdk_vs_astra");
            kc_jo_ints(&j, "volume", 3, vol);
            kc_jo_str(&j, "data", "host");
            kc_jo_fmt(&j, "kray_s", "%.6g", kray_s);
            kc_jo_fmt(&j, "astra_s", "%.6g", ta);
            kc_jo_fmt(&j, "speedup", "%.4g", ta / kray_s);
            kc_jo_end(&j);
        }
    } else {
        printf("astra FDK_CUDA   %s\n", line[0] ? line : "(no output)");
        if (ta > 0)
            printf("kray / astra     %lld^3, data on the host: %.4f s vs %.4f s: %.2fx faster\n",
                   (long long)b->n, kray_s, ta, ta / kray_s);
    }
    fflush(stdout);
}

int kc_bench_fdk(int argc, char **argv)
{
    int size = 0, views = 0, reps = 5, kernel = 0, host = 0;
    kc_dims det = {0, {0}};
    const char *mem_s = "0", *peer = NULL, *tmpdir = "/tmp";
    const kc_opt opts[] = {
        {"size", 'n', KC_INT, &size, "0", "N",
         "volume N^3 (0: 512 then 1024 on CUDA, 128 on the CPU)", NULL, 0, 4096, NULL},
        {"views", 0, KC_INT, &views, "0", "N", "views (0: 496 on CUDA, 120 on the CPU)", NULL, 0,
         100000, NULL},
        {"det", 0, KC_DIMS, &det, NULL, "UxV",
         "detector pixels (default 1248x960 on CUDA, 312x240 on the CPU)", NULL, 1, 1 << 20,
         NULL},
        {"reps", 0, KC_INT, &reps, "5", "N", "timed repetitions after one warm-up", NULL, 1, 1000,
         NULL},
        {"cuda-kernel", 0, KC_CHOICE, &kernel, "auto", "K",
         "CUDA backprojection kernel (auto: time every kernel, FDK with the default)",
         "auto|smem|smem32|global|pipe|pipe32|align", 0, 0, NULL},
        KC_GPU_MEM_OPT(mem_s, "CUDA working-memory budget (0 = 90% of the free memory)"),
        {"host", 0, KC_FLAG, &host, NULL, NULL,
         "CUDA: also time FDK with projections and volume in host memory (transfers included)",
         NULL, 0, 0, NULL},
        {"peer", 0, KC_STRING, &peer, NULL, "SCRIPT",
         "run ASTRA's FDK_CUDA through this script (bench/peer_astra_fdk.py) on the same data, "
         "host to host, and print the ratio", NULL, 0, 0, NULL},
        {"tmp", 0, KC_STRING, &tmpdir, "/tmp", "DIR", "where the peer's input files go", NULL, 0,
         0, NULL},
        {0}};
    const kc_spec spec = {
        "bench fdk",
        "Cone-beam FDK on a RabbitCT-sized circular scan (source 750 mm from the axis, detector\n"
        "399 x 307 mm at 1200 mm, 256 mm cube volume) with synthetic projections: the\n"
        "voxel-driven backprojection alone (kernel time; every CUDA kernel with --kernel auto)\n"
        "and the whole FDK (census, weighting, filtering, backprojection) with the data where\n"
        "the backend computes; --host adds host-to-host FDK on CUDA, --peer ASTRA's FDK_CUDA.\n"
        "Reports the best and median of --reps runs and voxel updates per second (volume voxels\n"
        "x views / time). A table on stdout, JSON lines with --json.",
        opts,
        NULL,
        KC_JSON,
        "Examples:\n  kray bench fdk --backend cuda --host --json\n"
        "  kray bench fdk --backend cuda --size 512 --peer bench/peer_astra_fdk.py\n"
        "  kray bench fdk --backend cpu --size 256 --views 60 --det 624x480",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    kr_fdk_opts o;
    kr_fdk_opts_default(&o);
    if ((r = kc_gpu_mem("bench fdk", mem_s, &o.gpu_mem)) != 0) return r;
    if (det.n == 1 || det.n > 2) return kc_usage("bench fdk", "--det takes UxV");
    kr_ctx *ctx = NULL;
    char dev[256];
    /* errors only unless --verbose: the FOV warning is expected */
    if ((r = kc_bench_ctx("bench fdk", &c, &ctx, dev, sizeof dev)) != 0) return r;
    const int cuda = kr_ctx_backend(ctx) == KR_BACKEND_CUDA;
    int sizes[2] = {size ? size : (cuda ? 512 : 128), cuda && !size ? 1024 : 0};
    kc_bcase b;
    memset(&b, 0, sizeof b);
    b.ctx = ctx;
    b.device = dev;
    b.json = c.json;
    b.views = views ? views : (cuda ? 496 : 120);
    b.nu = det.n ? det.d[0] : (cuda ? 1248 : 312);
    b.nv = det.n ? det.d[1] : (cuda ? 960 : 240);
    b.reps = reps;
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
    kr_array *ph = NULL, *pd = NULL, *vol = NULL, *vh = NULL;
    int64_t dims[3] = {b.nu, b.nv, b.views};
    kr_status s = kr_array_create(&ph, KR_F32, 3, dims, KR_HOST, NULL);
    if (s == KR_OK) {
        float *x = ph->data;
        for (int64_t m = 0; m < b.views; m++)
            for (int64_t v = 0; v < b.nv; v++)
                for (int64_t u = 0; u < b.nu; u++)
                    x[u + b.nu * (v + b.nv * m)] =
                        (float)(1.0 + 0.5 * sin(0.01 * (double)u) * cos(0.013 * (double)v) +
                                1e-3 * (double)m);
        if (cuda) s = kr_array_clone(&pd, ph, KR_DEVICE, ctx);
    }
    if (!c.json)
        printf("%-16s %-6s %-10s %6s %16s %-6s %11s %11s %10s\n", "case", "backend", "kernel",
               "volume", "views x detector", "data", "best", "median", "updates/s");
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
        const kr_array *proj = cuda ? pd : ph;
        b.data = cuda ? "device" : "host";
        kri_fdk_tune tune;
        kri_fdk_tune_default(&tune);
        int k0 = cuda && kernel == 0 ? KRI_FDK_KERNEL_SMEM : kernel;
        int k1 = cuda && kernel == 0 ? KRI_FDK_KERNEL_COUNT - 1 : kernel;
        for (int k = k0; k <= k1 && s == KR_OK; k++) {
            tune.kernel = (kri_fdk_kernel)k;
            b.name = "fdk_backproject";
            s = kc_bench_case(&b, g, &o, &tune, proj, vol, 0, NULL);
        }
        tune.kernel = (kri_fdk_kernel)kernel;
        if (s == KR_OK) {
            b.name = "fdk";
            s = kc_bench_case(&b, g, &o, &tune, proj, vol, 1, NULL);
        }
        double t_host = 0;
        if (s == KR_OK && cuda && (host || peer)) {
            /* projections and volume in host memory: pinned staging, transfers, slabs */
            kr_array_destroy(vh);
            vh = NULL;
            s = kr_array_create(&vh, KR_F32, 3, grid.n, KR_HOST, NULL);
            b.name = "fdk";
            b.data = "host";
            if (s == KR_OK) s = kc_bench_case(&b, g, &o, &tune, ph, vh, 1, &t_host);
        }
        if (s == KR_OK && peer && cuda) kc_bench_astra(&b, g, ph, peer, tmpdir, t_host);
        if (peer && !cuda && si == 0)
            fprintf(stderr, "kray bench fdk: --peer runs ASTRA's CUDA FDK; skipped on the CPU\n");
    }
    kr_ct_geom_destroy(g);
    kr_array_destroy(ph);
    kr_array_destroy(pd);
    kr_array_destroy(vol);
    kr_array_destroy(vh);
    kr_ctx_destroy(ctx);
    return s == KR_OK ? 0 : kc_fail("bench fdk", s);
}
