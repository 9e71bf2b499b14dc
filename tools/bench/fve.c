/* kray bench fve / kray bench goertzel: the FVE data set (32 encodes x 5 slices x 4 coils x 43
 * frames, 115^2, 8-interleave spiral) reconstructed whole by NUFFT and by DrFT and one voxel's
 * spectra; Goertzel (full image and one point) against the FFT. Data are random (timings do not
 * depend on them); --small runs reduced sizes on the CPU for CI smoke tests. */
#include "bench.h"
#include "kray/fve.h"
#include "kray/goertzel.h"
#include "kray/traj.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void kc_bf_line(int json, const char *bcase, const kr_ctx *ctx, const char *size,
                       const kc_tstats *t, const char *extra_key, double extra)
{
    const char *be = kr_backend_name(kr_ctx_backend(ctx));
    if (json) {
        kc_jo j;
        kc_jo_begin(&j);
        kc_jo_str(&j, "case", bcase);
        kc_jo_str(&j, "backend", be);
        kc_jo_str(&j, "size", size);
        kc_jo_int(&j, "reps", t ? t->n : 0);
        kc_jo_num(&j, "seconds", t ? t->mean : NAN);
        kc_jo_num(&j, "min", t ? t->min : NAN);
        kc_jo_num(&j, "max", t ? t->max : NAN);
        if (extra_key) kc_jo_num(&j, extra_key, extra);
        kc_jo_end(&j);
    } else if (t) {
        printf("%-18s %-5s %-34s mean %10.4f ms  min %10.4f ms  max %10.4f ms", bcase, be, size,
               t->mean * 1e3, t->min * 1e3, t->max * 1e3);
        if (extra_key) printf("  %s %.3g", extra_key, extra);
        printf("\n");
    } else {
        printf("%-18s %-5s %-34s skipped (%s)\n", bcase, be, size, extra_key ? extra_key : "");
    }
}

/* Wait for the ctx's stream: a one-element stream-ordered copy to the host. */
static kr_status kc_bf_sync(const kr_ctx *ctx)
{
    kr_array *dv = NULL, *hv = NULL;
    int64_t one[1] = {1};
    kr_status s = kr_array_create(&dv, KR_C64, 1, one, KR_DEVICE, ctx);
    if (s == KR_OK) s = kr_array_create(&hv, KR_C64, 1, one, KR_HOST, NULL);
    if (s == KR_OK) s = kr_array_copy(hv, dv, ctx);
    kr_array_destroy(dv), kr_array_destroy(hv);
    return s;
}

static void kc_bf_fill(kr_array *a, uint64_t seed)
{
    float *f = (float *)a->data;
    int64_t n = 2 * kr_array_numel(a);
    uint64_t z = 0x9E3779B97F4A7C15ull ^ seed;
    for (int64_t i = 0; i < n; i++) {
        z ^= z << 13, z ^= z >> 7, z ^= z << 17;
        f[i] = (float)((double)(z >> 11) / 9007199254740992.0 - 0.5);
    }
}

int kc_bench_fve(int argc, char **argv)
{
    int small = 0, reps = 3, vreps = 20, nodrft = 0;
    double eps = 1e-3;
    const kc_opt opts[] = {
        {"small", 0, KC_FLAG, &small, NULL, NULL, "reduced size (48^2, 2 slices, 16 encodes, 6 frames, 2 coils, 4 interleaves)", NULL, 0, 0, NULL},
        {"reps", 0, KC_INT, &reps, "3", "N", "timed repetitions of the full reconstructions", NULL, 1, 1000, NULL},
        {"voxel-reps", 0, KC_INT, &vreps, "20", "N", "timed repetitions of the voxel", NULL, 1, 100000, NULL},
        {"eps", 'e', KC_DOUBLE, &eps, "1e-3", "E", "NUFFT accuracy", NULL, 1e-6, 0.1, NULL},
        {"no-drft", 0, KC_FLAG, &nodrft, NULL, NULL, "skip the full DrFT (hours on a CPU at full size)", NULL, 0, 0, NULL},
        {0}};
    const kc_spec spec = {
        "bench fve",
        "FVE timings on random data of Dantas (2015)'s size: the whole set by NUFFT (adjoint,\n"
        "batched over every slice/encode/frame/coil, data on the device) and by DrFT (float32,\n"
        "batched), and one voxel (x, y in every slice: all encodes, frames and coils) by\n"
        "kr_fve_voxels. The full CPU DrFT runs only with --small. Targets (H100): DrFT <= 10 s,\n"
        "NUFFT <= 1 s, one voxel <= 1 ms.",
        opts, NULL, KC_JSON,
        "Examples:\n  kray bench fve --json\n  kray bench fve --small --backend cpu", NULL, NULL};
    kc_common cm;
    int r = kc_parse(&spec, &cm, argc, argv);
    if (r) return r < 0 ? 0 : r;
    kr_ctx *ctx = NULL;
    if ((r = kc_make_ctx("bench fve", &cm, &ctx)) != 0) return r;
    kr_fve_sim_opts o;
    if (small) kr_fve_sim_opts_small(&o);
    else kr_fve_sim_opts_default(&o);
    const int64_t n = o.enc.n;
    kr_spiral_opts so;
    kr_spiral_opts_default(&so);
    so.fov_mm = o.enc.fov_mm, so.res_mm = o.enc.fov_mm / (double)(n - 1);
    so.interleaves = o.interleaves, so.dtype = KR_F64;
    kr_loc loc = kr_ctx_backend(ctx) == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
    kr_array *t = NULL, *w = NULL, *d = NULL, *dd = NULL, *img = NULL, *vi = NULL;
    kr_status s = kr_traj_spiral(&t, &so, NULL);
    kr_dcf_opts dco;
    kr_dcf_opts_default(&dco);
    dco.method = KR_DCF_SPIRAL;
    if (s == KR_OK) s = kr_dcf(&w, NULL, t, &dco, NULL);
    int64_t dims[6] = {0, 0, o.slices, o.enc.encodes, o.frames, o.coils};
    if (s == KR_OK) {
        dims[0] = t->dims[1], dims[1] = t->dims[2];
        s = kr_array_create(&d, KR_C64, 6, dims, KR_HOST, NULL);
    }
    if (s == KR_OK) kc_bf_fill(d, 1);
    if (s == KR_OK) s = kr_array_clone(&dd, d, loc, ctx);
    const int64_t M = dims[0] * dims[1], B = s == KR_OK ? kr_array_numel(d) / M : 0;
    char size[160];
    snprintf(size, sizeof size, "%lldx%lld M=%lld B=%lld", (long long)n, (long long)n, (long long)M, (long long)B);
    if (!cm.json && s == KR_OK) {
        char cpu[256], g[256];
        kc_bench_machine(cpu, sizeof cpu, g, sizeof g);
        printf("kray bench fve: CPU %s; GPU %s; data %s (%.2f GB)\n", cpu, g, size, (double)kr_array_bytes(d) / 1e9);
    }
    int64_t id[3] = {n, n, B};
    if (s == KR_OK) s = kr_array_create(&img, KR_C64, 3, id, loc, ctx);
    double *tm = calloc((size_t)(reps > vreps ? reps : vreps), sizeof(double));
    kc_tstats st;
    /* NUFFT */
    if (s == KR_OK) {
        kr_nufft_opts no;
        kr_nufft_opts_default(&no);
        no.eps = eps, no.batch = B;
        kr_nufft_plan *p = NULL;
        int64_t nd[2] = {n, n};
        s = kr_nufft_plan_create(&p, ctx, 2, nd, &no);
        if (s == KR_OK) s = kr_nufft_set_points(p, t);
        if (s == KR_OK) s = kr_nufft_adjoint(p, dd, img); /* warm-up */
        for (int i = 0; s == KR_OK && i < reps; i++) {
            double a = kr_time_now();
            s = kr_nufft_adjoint(p, dd, img);
            if (s == KR_OK && loc == KR_DEVICE) s = kc_bf_sync(ctx);
            tm[i] = kr_time_now() - a;
        }
        kr_nufft_plan_destroy(p);
        if (s == KR_OK) kc_tstats_of(tm, reps, &st), kc_bf_line(cm.json, "fve-full-nufft", ctx, size, &st, "eps", eps);
    }
    /* DrFT */
    if (s == KR_OK && (nodrft || (loc == KR_HOST && !small))) {
        kc_bf_line(cm.json, "fve-full-drft", ctx, size, NULL, nodrft ? "--no-drft" : "CPU at full size", 0);
    } else if (s == KR_OK) {
        kr_drft_plan *p = NULL;
        int64_t nn[3] = {n, n, 1};
        s = kr_drft_plan_create(&p, ctx, nn, t, w, NULL);
        /* the CPU smoke test (--small) transforms only the first 8 columns */
        const int64_t Bd = loc == KR_HOST && B > 8 ? 8 : B;
        kr_array v = *img, dv = *dd;
        v.owns = 0, v.ndim = 4, v.dims[2] = 1, v.dims[3] = Bd;
        dv.owns = 0, dv.ndim = 3, dv.dims[2] = Bd;
        for (int i = 3; i < KR_MAX_DIMS; i++) dv.dims[i] = 1;
        for (int i = 1; i < KR_MAX_DIMS; i++) dv.strides[i] = dv.strides[i - 1] * dv.dims[i - 1];
        char dsize[160];
        snprintf(dsize, sizeof dsize, "%lldx%lld M=%lld B=%lld", (long long)n, (long long)n, (long long)M, (long long)Bd);
        for (int i = 1; i < KR_MAX_DIMS; i++) v.strides[i] = v.strides[i - 1] * v.dims[i - 1];
        int dr = reps < 2 ? reps : 2;
        for (int i = 0; s == KR_OK && i < dr; i++) {
            double a = kr_time_now();
            s = kr_drft_adjoint(p, &dv, &v);
            if (s == KR_OK && loc == KR_DEVICE) s = kc_bf_sync(ctx);
            tm[i] = kr_time_now() - a;
        }
        kr_drft_plan_destroy(p);
        if (s == KR_OK) kc_tstats_of(tm, dr, &st), kc_bf_line(cm.json, "fve-full-drft", ctx, dsize, &st, NULL, 0);
    }
    /* one voxel in slice 0 ("fve-voxel-1slice", reads a fifth of the data), then one (x, y)
     * in every slice ("fve-voxel", the whole data set) */
    for (int all = 0; all < 2 && s == KR_OK; all++) {
        kr_array_destroy(vi);
        vi = NULL;
        int64_t S = all ? o.slices : 1, vd[4] = {o.enc.encodes, o.frames, o.coils, S};
        double *vox = malloc((size_t)S * 3 * sizeof(double));
        for (int64_t i = 0; vox && i < S; i++) vox[3 * i] = 3.5, vox[3 * i + 1] = -7, vox[3 * i + 2] = (double)i;
        s = vox ? kr_array_create(&vi, KR_C64, 4, vd, loc, ctx) : KR_ERR_OOM_HOST;
        if (s == KR_OK) s = kr_fve_voxels(ctx, t, w, dd, n, S, vox, vi);
        for (int i = 0; s == KR_OK && i < vreps; i++) {
            double a = kr_time_now();
            s = kr_fve_voxels(ctx, t, w, dd, n, S, vox, vi);
            tm[i] = kr_time_now() - a;
        }
        free(vox);
        if (s == KR_OK)
            kc_tstats_of(tm, vreps, &st),
                kc_bf_line(cm.json, all ? "fve-voxel" : "fve-voxel-1slice", ctx, size, &st,
                           "slices", (double)S);
    }
    free(tm);
    kr_array_destroy(t), kr_array_destroy(w), kr_array_destroy(d), kr_array_destroy(dd);
    kr_array_destroy(img), kr_array_destroy(vi);
    kr_ctx_destroy(ctx);
    return s == KR_OK ? 0 : kc_fail("bench fve", s);
}

int kc_bench_goertzel(int argc, char **argv)
{
    int small = 0, reps = 5;
    const kc_opt opts[] = {
        {"small", 0, KC_FLAG, &small, NULL, NULL, "sizes 64 and 115 only", NULL, 0, 0, NULL},
        {"reps", 0, KC_INT, &reps, "5", "N", "timed repetitions", NULL, 1, 100000, NULL},
        {0}};
    const kc_spec spec = {
        "bench goertzel",
        "Goertzel vs FFT (Dantas (2015)'s Table 6.1): centred 2-D FFT of an n x n k-space (kr_fft,\n"
        "one-shot plan cache on the CPU, a kr_fft_plan on the GPU), the Goertzel full image and\n"
        "one Goertzel point, n = 115, 128, 256, 512, 1024; error = max |Goertzel - FFT| / max |FFT|.",
        opts, NULL, KC_JSON, "Examples:\n  kray bench goertzel --json\n  kray bench goertzel --small --backend cpu", NULL, NULL};
    kc_common cm;
    int r = kc_parse(&spec, &cm, argc, argv);
    if (r) return r < 0 ? 0 : r;
    kr_ctx *ctx = NULL;
    if ((r = kc_make_ctx("bench goertzel", &cm, &ctx)) != 0) return r;
    kr_loc loc = kr_ctx_backend(ctx) == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
    const int64_t sizes[5] = {115, 128, 256, 512, 1024}, small_sizes[2] = {64, 115};
    const int ns = small ? 2 : 5;
    double *tm = calloc((size_t)reps, sizeof(double));
    kr_status s = tm ? KR_OK : KR_ERR_OOM_HOST;
    for (int si = 0; s == KR_OK && si < ns; si++) {
        int64_t n = small ? small_sizes[si] : sizes[si], d[2] = {n, n}, od[1] = {1};
        kr_array *h = NULL, *k = NULL, *a = NULL, *b = NULL, *pt = NULL, *ha = NULL, *hb = NULL;
        kr_fft_plan *fp = NULL;
        char size[64];
        snprintf(size, sizeof size, "%lldx%lld", (long long)n, (long long)n);
        kc_tstats st;
        s = kr_array_create(&h, KR_C64, 2, d, KR_HOST, NULL);
        if (s == KR_OK) kc_bf_fill(h, (uint64_t)n);
        if (s == KR_OK) s = kr_array_clone(&k, h, loc, ctx);
        if (s == KR_OK) s = kr_array_create(&a, KR_C64, 2, d, loc, ctx);
        if (s == KR_OK) s = kr_array_create(&b, KR_C64, 2, d, loc, ctx);
        if (s == KR_OK) s = kr_array_create(&pt, KR_C64, 1, od, loc, ctx);
        if (s == KR_OK) s = kr_fft_plan_create(&fp, ctx, KR_C64, 2, d, 3u, KR_FFT_BACKWARD, KR_FFT_CENTERED, loc);
        if (s == KR_OK) s = kr_fft_execute(fp, k, a);
        for (int i = 0; s == KR_OK && i < reps; i++) {
            double t0 = kr_time_now();
            s = kr_fft_execute(fp, k, a);
            if (s == KR_OK && loc == KR_DEVICE) s = kc_bf_sync(ctx);
            tm[i] = kr_time_now() - t0;
        }
        if (s == KR_OK) kc_tstats_of(tm, reps, &st), kc_bf_line(cm.json, "fft-full", ctx, size, &st, NULL, 0);
        if (s == KR_OK) s = kr_goertzel2d_image(ctx, k, b);
        for (int i = 0; s == KR_OK && i < reps; i++) {
            double t0 = kr_time_now();
            s = kr_goertzel2d_image(ctx, k, b);
            tm[i] = kr_time_now() - t0;
        }
        double err = NAN;
        if (s == KR_OK) s = kr_array_clone(&ha, a, KR_HOST, ctx);
        if (s == KR_OK) s = kr_array_clone(&hb, b, KR_HOST, ctx);
        if (s == KR_OK) {
            double e = 0, m = 0;
            const float *x = (const float *)hb->data, *y = (const float *)ha->data;
            for (int64_t i = 0; i < n * n; i++) {
                e = fmax(e, hypot(x[2 * i] - y[2 * i], x[2 * i + 1] - y[2 * i + 1]));
                m = fmax(m, hypot(y[2 * i], y[2 * i + 1]));
            }
            err = e / m;
            kc_tstats_of(tm, reps, &st), kc_bf_line(cm.json, "goertzel-full", ctx, size, &st, "rel_err", err);
        }
        const double xy[2] = {3.0, -5.0};
        for (int i = 0; s == KR_OK && i < reps; i++) {
            double t0 = kr_time_now();
            s = kr_goertzel2d(ctx, k, 1, xy, pt);
            tm[i] = kr_time_now() - t0;
        }
        if (s == KR_OK) kc_tstats_of(tm, reps, &st), kc_bf_line(cm.json, "goertzel-point", ctx, size, &st, NULL, 0);
        kr_fft_plan_destroy(fp);
        kr_array_destroy(h), kr_array_destroy(k), kr_array_destroy(a), kr_array_destroy(b);
        kr_array_destroy(pt), kr_array_destroy(ha), kr_array_destroy(hb);
    }
    free(tm);
    kr_ctx_destroy(ctx);
    return s == KR_OK ? 0 : kc_fail("bench goertzel", s);
}
