/* kray bench bloch: the Bloch simulator's throughput on two objects, with the object already
 * on the device (kr_sim_execute alone is timed; median of --reps after a warm-up):
 *   se_epi: single-shot spin-echo EPI (kr_seq_se_epi) of N^2 (default 256^2 on CUDA, 64^2 on
 *           the CPU), 4 us dwell, TE 120 ms or what the echo train needs (346 ms at 256^2), on the MR brain-like phantom (1.5 T tissue values,
 *           the background filled with a weak tissue so that every voxel counts) with 2 x 2
 *           isochromats per voxel;
 *   gre:    RF-spoiled gradient echo (kr_seq_gre, TE 4 ms, TR 10 ms, 25 degrees) of M^2
 *           (128^2 on CUDA, 32^2 on the CPU) on the same phantom with S x S isochromats per
 *           voxel (16 x 16: 4,194,304 isochromats on CUDA; 4 x 4 on the CPU).
 * On CUDA every case runs with 1, 2 and 4 isochromats per thread and with fast and accurate
 * math. The rate is isochromat-steps (isochromats x piecewise-constant intervals) per second. */
#include "kray/sim.h"
#include "bench.h"

#include <math.h>
#include <stdlib.h>

/* The phantom's [n, n, 3] tissue planes (T1, T2, PD) with PD 0 replaced by a weak tissue. */
static kr_status kc_bl_object(kr_iso **iso, int64_t n, int sub)
{
    kr_array *tis = NULL;
    kr_status s = kr_phantom_mr_2d_grid(&tis, KR_GRID_FFT, n, n, 1, 1.5);
    if (s != KR_OK) return s;
    float *f = tis->data;
    for (int64_t i = 0; i < n * n; i++)
        if (!(f[2 * n * n + i] > 0)) {
            f[i] = 1000;
            f[n * n + i] = 100;
            f[2 * n * n + i] = 0.05f;
        }
    kr_iso_opts io;
    kr_iso_opts_default(&io);
    io.voxel_mm[0] = io.voxel_mm[1] = 256.0 / (double)n; /* FOV 256 mm */
    io.sub[0] = io.sub[1] = sub;
    s = kr_iso_from_tissue(iso, tis, NULL, &io);
    kr_array_destroy(tis);
    return s;
}

static kr_status kc_bl_case(int json, const char *name, const kr_ctx *ctx, const char *dev,
                            const kr_seq *seq, const kr_iso *iso, int reps)
{
    const int cuda = kr_ctx_backend(ctx) == KR_BACKEND_CUDA;
    double *t = malloc(sizeof *t * (size_t)reps);
    kr_status s = t ? KR_OK : KR_ERR_OOM_HOST;
    for (int fast = 1; fast >= 0 && s == KR_OK; fast--)
        for (int k = 1; k <= 4 && s == KR_OK; k *= 2) {
            if (!cuda && (k > 1 || !fast)) continue; /* CUDA options */
            kr_sim_opts o;
            kr_sim_opts_default(&o);
            o.fast_math = fast;
            o.iso_per_thread = cuda ? k : 0;
            kr_sim_plan *p = NULL;
            kr_array *kd = NULL;
            kr_sim_info info;
            s = kr_sim_plan_create(&p, ctx, seq, &o);
            if (s == KR_OK) s = kr_sim_set_object(p, iso, NULL);
            if (s == KR_OK) s = kr_sim_get_info(p, &info);
            const int64_t dims[2] = {info.nsamples, 1};
            if (s == KR_OK)
                s = kr_array_create(&kd, KR_C64, 2, dims, cuda ? KR_DEVICE : KR_HOST, ctx);
            if (s == KR_OK) s = kr_sim_execute(p, kd); /* warm-up */
            for (int r = 0; r < reps && s == KR_OK; r++) {
                s = kc_bench_sync(ctx);
                const double t0 = kr_time_now();
                if (s == KR_OK) s = kr_sim_execute(p, kd);
                if (s == KR_OK) s = kc_bench_sync(ctx);
                t[r] = kr_time_now() - t0;
            }
            if (s == KR_OK) {
                kc_times_sort(t, reps);
                const double tm = t[reps / 2];
                if (json) {
                    kc_jo j;
                    kc_jo_begin(&j);
                    kc_jo_str(&j, "bench", "bloch");
                    kc_jo_str(&j, "case", name);
                    kc_jo_str(&j, "backend", kr_backend_name(kr_ctx_backend(ctx)));
                    kc_jo_str(&j, "device", dev);
                    kc_jo_int(&j, "fast_math", fast);
                    kc_jo_int(&j, "iso_per_thread", o.iso_per_thread);
                    kc_jo_int(&j, "isochromats", info.niso);
                    kc_jo_int(&j, "intervals", info.nintervals);
                    kc_jo_int(&j, "steps", info.nsteps);
                    kc_jo_int(&j, "samples", info.nsamples);
                    kc_jo_int(&j, "threads", kr_ctx_threads(ctx));
                    kc_jo_int(&j, "reps", reps);
                    kc_jo_num(&j, "time_median_s", tm);
                    kc_jo_num(&j, "time_best_s", t[0]);
                    kc_jo_num(&j, "iso_steps_per_s", info.iso_steps / tm);
                    kc_jo_end(&j);
                } else {
                    printf("%-8s %-5s %-8s %d/thread %9lld iso %8lld intervals %10.3f ms "
                           "%10.3g iso-steps/s\n",
                           name, kr_backend_name(kr_ctx_backend(ctx)),
                           fast ? "fast" : "accurate", o.iso_per_thread, (long long)info.niso,
                           (long long)info.nintervals, tm * 1e3, info.iso_steps / tm);
                }
                fflush(stdout);
            }
            kr_array_destroy(kd);
            kr_sim_plan_destroy(p);
        }
    free(t);
    return s;
}

int kc_bench_bloch(int argc, char **argv)
{
    int size = 0, gsize = 0, gsub = 0, reps = 5;
    const kc_opt opts[] = {
        {"size", 'n', KC_INT, &size, "0", "N", "SE-EPI matrix N^2 (0: 256 on CUDA, 64 on the CPU)",
         NULL, 0, 1024, NULL},
        {"gre-size", 0, KC_INT, &gsize, "0", "M", "GRE matrix M^2 (0: 128 on CUDA, 32 on the CPU)",
         NULL, 0, 1024, NULL},
        {"gre-sub", 0, KC_INT, &gsub, "0", "S",
         "GRE isochromats per voxel S x S (0: 16 on CUDA, 4 on the CPU)", NULL, 0, 64, NULL},
        {"reps", 0, KC_INT, &reps, "5", "N", "timed repetitions after one warm-up", NULL, 1, 1000,
         NULL},
        {0}};
    const kc_spec spec = {
        "bench bloch",
        "Bloch simulation throughput: a single-shot SE-EPI (N^2, 2 x 2 isochromats per voxel)\n"
        "and an RF-spoiled GRE (M^2, S x S isochromats per voxel) on the MR phantom, object on\n"
        "the device; on CUDA with 1, 2 and 4 isochromats per thread, fast and accurate math.\n"
        "Median of --reps runs of kr_sim_execute and isochromat-steps per second. A table on\n"
        "stdout, JSON lines with --json.",
        opts,
        NULL,
        KC_JSON,
        "Examples:\n  kray bench bloch --backend cuda --json\n  kray bench bloch --backend cpu",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    kr_ctx *ctx = NULL;
    char dev[256];
    if ((r = kc_bench_ctx("bench bloch", &c, &ctx, dev, sizeof dev)) != 0) return r;
    const int cuda = kr_ctx_backend(ctx) == KR_BACKEND_CUDA;
    const int64_t n = size ? size : (cuda ? 256 : 64), m = gsize ? gsize : (cuda ? 128 : 32);
    const int sub = gsub ? gsub : (cuda ? 16 : 4);
    kr_seq *seq = NULL;
    kr_iso *iso = NULL;
    kr_seq_epi_opts eo;
    kr_seq_epi_opts_default(&eo);
    eo.nx = eo.ny = n;
    eo.bw_hz_px = 1.0 / (4e-6 * (double)n); /* 4 us dwell */
    eo.te_ms = fmax(120.0, ceil(1.35 * (double)n)); /* the echo train's minimum: 330 ms at 256 */
    eo.ndummy = 0;
    kr_status s = kr_seq_se_epi(&seq, &eo);
    if (s == KR_OK) s = kc_bl_object(&iso, n, 2);
    if (s == KR_OK) s = kc_bl_case(c.json, "se_epi", ctx, dev, seq, iso, reps);
    kr_seq_destroy(seq);
    kr_iso_destroy(iso);
    seq = NULL;
    iso = NULL;
    kr_seq_cart_opts go;
    kr_seq_cart_opts_default(&go);
    go.nx = go.ny = m;
    go.te_ms = 4;
    go.tr_ms = 10;
    go.flip_deg = 25;
    go.spoil = KR_SPOIL_RF_GRADIENT;
    if (s == KR_OK) s = kr_seq_gre(&seq, &go);
    if (s == KR_OK) s = kc_bl_object(&iso, m, sub);
    if (s == KR_OK) s = kc_bl_case(c.json, "gre", ctx, dev, seq, iso, reps);
    kr_seq_destroy(seq);
    kr_iso_destroy(iso);
    kr_ctx_destroy(ctx);
    return s == KR_OK ? 0 : kc_fail("bench bloch", s);
}
