/* kray bench llr: the locally-low-rank prox (kr_prox_llr_create: block-wise singular value soft
 * threshold, one SVD per image block) with the data where the backend computes. Cases: 2-D
 * 256^2 x 32 frames with 8^2 blocks (64 x 32 matrices), 3-D 64^3 x 16 frames with 8^3 blocks
 * (512 x 16), c64, a rank-4 signal per block plus noise. On CUDA every variant of the kernel is
 * timed in one run (KRAY_LLR_GPU=shared|global, KRAY_LLR_GPU_THREADS=128|256|512), so one GPU
 * run shows which to keep. Each time is the best of 3 rounds of the mean of --reps calls. */
#include "kray/reg.h"
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct kc_llr_case {
    const char *name;
    int ndim, axis;
    int64_t dims[4];
} kc_llr_case;

/* x = a rank-4 product of smooth profiles plus 1 % noise (c64, host). */
static kr_status kc_llr_data(const kr_ctx *cpu, const kc_llr_case *lc, kr_array **x)
{
    kr_status s = kr_array_create(x, KR_C64, lc->ndim, lc->dims, KR_HOST, NULL);
    if (s == KR_OK) s = kr_vec_random(cpu, *x, 7);
    if (s != KR_OK) return s;
    const int64_t T = lc->dims[lc->axis], nv = kr_array_numel(*x) / T;
    float *v = (*x)->data;
    for (int64_t t = 0; t < T; t++)
        for (int64_t q = 0; q < nv; q++) {
            double re = 0, im = 0;
            for (int r = 0; r < 4; r++) {
                const double a = sin(0.001 * (double)(q * (r + 1)) + r), b = cos(0.3 * t * (r + 1));
                re += a * b;
                im += a * sin(0.2 * t + r);
            }
            const int64_t e = lc->axis == 0 ? t + T * q : q + nv * t;
            v[2 * e] = (float)(re + 0.01 * v[2 * e]);
            v[2 * e + 1] = (float)(im + 0.01 * v[2 * e + 1]);
        }
    return KR_OK;
}

static void kc_llr_emit(int json, const kc_llr_case *lc, const char *variant, const kr_ctx *ctx,
                        const char *dev, int64_t block, double t, int64_t elems)
{
    const char *be = kr_backend_name(kr_ctx_backend(ctx));
    const char *what = lc->name;
    char shape[64];
    kr_dims_string(lc->ndim, lc->dims, shape, sizeof shape);
    if (!json) {
        printf("%-7s %-16s %-5s %-14s block %2lld  %10.3f ms  %8.1f Melem/s\n", what, shape, be,
               variant, (long long)block, t * 1e3, (double)elems / t * 1e-6);
        fflush(stdout);
        return;
    }
    kc_jo j;
    kc_jo_begin(&j);
    kc_jo_str(&j, "bench", "llr");
    kc_jo_str(&j, "case", what);
    kc_jo_str(&j, "shape", shape);
    kc_jo_str(&j, "backend", be);
    kc_jo_str(&j, "device", dev);
    kc_jo_str(&j, "variant", variant);
    kc_jo_int(&j, "block", block);
    kc_jo_int(&j, "threads", kr_ctx_threads(ctx));
    kc_jo_num(&j, "time_s", t);
    kc_jo_num(&j, "elements_per_s", (double)elems / t);
    kc_jo_end(&j);
    fflush(stdout);
}

int kc_bench_llr(int argc, char **argv)
{
    int reps = 0, block = 8, small = 0;
    const kc_opt opts[] = {
        {"block", 0, KC_INT, &block, "8", "B", "block width (pixels per axis)", NULL, 2, 64, NULL},
        {"reps", 0, KC_INT, &reps, "0", "N", "calls per timed round (0: 20 on CUDA, 2 on the CPU)",
         NULL, 0, 100000, NULL},
        {"small", 0, KC_FLAG, &small, NULL, NULL, "quarter sizes per axis (CPU smoke size)", NULL,
         0, 0, NULL},
        {0}};
    const kc_spec spec = {
        "bench llr",
        "The locally-low-rank prox (block-wise singular value soft threshold): 2-D 256^2 x 32\n"
        "frames and 3-D 64^3 x 16 frames, c64, rank-4 blocks plus noise, data on the backend.\n"
        "On CUDA every kernel variant is timed (matrices in shared or global memory; 128, 256\n"
        "and 512 threads per block). Best of 3 rounds of the mean of --reps calls. A table on\n"
        "stdout, JSON lines with --json.",
        opts,
        NULL,
        KC_JSON,
        "Examples:\n  kray bench llr --backend cuda --json\n  kray bench llr --backend cpu --small",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    kr_ctx *ctx = NULL, *cpu = NULL;
    char dev[256];
    if ((r = kc_bench_ctx("bench llr", &c, &ctx, dev, sizeof dev)) != 0) return r;
    const int cuda = kr_ctx_backend(ctx) == KR_BACKEND_CUDA;
    if (!reps) reps = cuda ? 20 : 2;
    const int sh = small ? 4 : 1;
    const kc_llr_case cases[2] = {{"llr-2d", 3, 2, {256 / sh, 256 / sh, 32, 1}},
                                  {"llr-3d", 4, 3, {64 / sh, 64 / sh, 64 / sh, 16}}};
    const char *const modes[3] = {"shared", "global", NULL};
    const char *const threads[3] = {"128", "256", "512"};
    kr_status s = kr_ctx_create(&cpu, KR_BACKEND_CPU);
    if (s == KR_OK) kr_ctx_set_quiet(cpu, 1);
    for (int ci = 0; ci < 2 && s == KR_OK; ci++) {
        const kc_llr_case *lc = &cases[ci];
        kr_array *h = NULL, *d = NULL, *x = NULL;
        kr_prox *p = NULL;
        s = kc_llr_data(cpu, lc, &h);
        if (s == KR_OK) s = kr_array_clone(&d, h, cuda ? KR_DEVICE : KR_HOST, ctx);
        if (s == KR_OK) s = kr_array_create_like(&x, d, d->loc, ctx);
        if (s == KR_OK)
            s = kr_prox_llr_create(&p, ctx, KR_C64, lc->ndim, lc->dims, 1.0, lc->axis, block, NULL);
        for (int mi = 0; mi < (cuda ? 2 : 1) && s == KR_OK; mi++)
            for (int ti = 0; ti < (cuda ? 3 : 1) && s == KR_OK; ti++) {
                char variant[32] = "openmp";
                if (cuda) {
                    setenv("KRAY_LLR_GPU", modes[mi], 1);
                    setenv("KRAY_LLR_GPU_THREADS", threads[ti], 1);
                    snprintf(variant, sizeof variant, "%s/%s", modes[mi], threads[ti]);
                }
                double best = INFINITY;
                s = kr_prox_apply(p, 0.5, d, x); /* warm-up (scratch, shared memory opt-in) */
                for (int round = 0; round < 3 && s == KR_OK; round++) {
                    s = kc_bench_sync(ctx);
                    const double t0 = kr_time_now();
                    for (int k = 0; k < reps && s == KR_OK; k++) s = kr_prox_apply(p, 0.5, d, x);
                    if (s == KR_OK) s = kc_bench_sync(ctx);
                    best = fmin(best, (kr_time_now() - t0) / reps);
                }
                if (s == KR_OK)
                    kc_llr_emit(c.json, lc, variant, ctx, dev, block, best,
                                kr_array_numel(h));
            }
        unsetenv("KRAY_LLR_GPU");
        unsetenv("KRAY_LLR_GPU_THREADS");
        kr_prox_destroy(p);
        kr_array_destroy(h), kr_array_destroy(d), kr_array_destroy(x);
    }
    kr_ctx_destroy(cpu);
    kr_ctx_destroy(ctx);
    return s == KR_OK ? 0 : kc_fail("bench llr", s);
}
