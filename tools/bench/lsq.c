/* kray bench lsq: the Illinois case study's sizes (3-D 128^3 image, 2.1e6 samples): Q (Toeplitz
 * set-up: Q by adjoint NUFFT on the 2x grid, its FFT, plans), F^H W d, and the per-iteration
 * time of each normal operator (Toeplitz, NUFFT, and the exact DrFT when asked or in --small). */
#include "bench.h"

#include "kray/lsq.h"
#include "mri/lsq/lsq_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void kc_lsq_line(const kc_common *c, const char *cs, const char *backend, const char *dev,
                        const int64_t n[3], int64_t m, kr_dtype t, int reps, double sec)
{
    if (c->json) {
        kc_jo j;
        kc_jo_begin(&j);
        kc_jo_str(&j, "bench", "lsq");
        kc_jo_str(&j, "case", cs);
        kc_jo_str(&j, "backend", backend);
        kc_jo_str(&j, "device", dev);
        kc_jo_ints(&j, "dims", 3, n);
        kc_jo_int(&j, "samples", m);
        kc_jo_str(&j, "dtype", kr_dtype_name(t));
        kc_jo_int(&j, "reps", reps);
        kc_jo_num(&j, "seconds", sec);
        kc_jo_end(&j);
    } else {
        char b[64];
        printf("%-18s %-5s %lldx%lldx%lld, %lld samples, %s: %s\n", cs, backend, (long long)n[0],
               (long long)n[1], (long long)n[2], (long long)m, kr_dtype_name(t),
               kc_fmt_seconds(sec, b, sizeof b));
    }
    fflush(stdout);
}

int kc_bench_lsq(int argc, char **argv)
{
    int small = 0, reps = 3, drft = 0;
    int64_t samples = 0;
    kc_dims dims;
    memset(&dims, 0, sizeof dims);
    const kc_opt opts[] = {
        {"small", 0, KC_FLAG, &small, NULL, NULL,
         "CI smoke size: 16^3 image, 8000 samples, DrFT included (seconds on a CPU)", NULL, 0,
         0, NULL},
        {"size", 'n', KC_DIMS, &dims, NULL, "DIMS", "image size (default 128x128x128)", NULL, 2,
         4096, NULL},
        {"samples", 'x', KC_INT64, &samples, "0", "M",
         "random k-space samples (0 = 2.1e6, or 8000 with --small)", NULL, 0, 1e10, NULL},
        {"reps", 0, KC_INT, &reps, "3", "N", "timed repetitions (after one warm-up)", NULL, 1,
         1000, NULL},
        {"drft", 0, KC_FLAG, &drft, NULL, NULL,
         "also time the exact DrFT normal operator (O(M N): slow at full size)", NULL, 0, 0,
         NULL},
        {0}};
    const kc_spec spec = {
        "bench lsq",
        "Least-squares MRI pieces on random 3-D points: Q (Toeplitz set-up with Q by adjoint\n"
        "NUFFT on the 2x grid), F^H W d (adjoint NUFFT), and one application of the normal\n"
        "operator F^H W F by Toeplitz, NUFFT (and DrFT). One line per case (JSON with --json).",
        opts,
        NULL,
        KC_JSON,
        "Examples:\n  kray bench lsq --backend cuda --json     (128^3, 2.1e6 samples)\n"
        "  kray bench lsq --small --backend cpu",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    int64_t n[3] = {128, 128, 128};
    if (small) n[0] = n[1] = n[2] = 16;
    if (dims.n) {
        if (dims.n != 3) return kc_usage("bench lsq", "--size must be NxMxP");
        for (int i = 0; i < 3; i++) n[i] = dims.d[i];
    }
    int64_t m = samples > 0 ? samples : (small ? 8000 : 2100000);
    if (small) drft = 1;
    kr_ctx *ctx = NULL;
    if ((r = kc_make_ctx("bench lsq", &c, &ctx)) != 0) return r;
    kr_ctx_set_quiet(ctx, 1);
    kr_dtype t = c.precision == 1 ? KR_C128 : KR_C64;
    const char *be = kr_backend_name(kr_ctx_backend(ctx));
    char dev[256] = "cpu";
    if (kr_ctx_backend(ctx) == KR_BACKEND_CUDA)
        kr_cuda_device_name(kr_ctx_device(ctx), dev, sizeof dev);
    kr_array *tr = NULL;
    int64_t td[2] = {3, m};
    kr_status s = kr_array_create(&tr, KR_F32, 2, td, KR_HOST, NULL);
    if (s == KR_OK) {
        float *k = (float *)tr->data;
        uint64_t z = 0x2545F4914F6CDD1Dull;
        for (int64_t i = 0; i < 3 * m; i++) {
            z ^= z << 13, z ^= z >> 7, z ^= z << 17;
            double u = (double)(z >> 11) / 9007199254740992.0;
            k[i] = (float)((u - 0.5) * (double)n[i % 3]);
        }
    }
    kr_lsq_opts o;
    kr_lsq_opts_default(&o);
    o.dtype = t;
    /* Q: the Toeplitz set-up (Q by adjoint NUFFT on the 2x grid, FFT(Q), FFT plans) */
    if (s == KR_OK) {
        double t0 = 0, sec = 0;
        for (int i = -1; s == KR_OK && i < reps; i++) {
            if (i == 0) t0 = kr_time_now();
            kr_toeplitz_plan *tp = NULL;
            s = kr_toeplitz_plan_create(&tp, ctx, n, tr, NULL, &o);
            kr_toeplitz_plan_destroy(tp);
        }
        sec = (kr_time_now() - t0) / reps;
        if (s == KR_OK) kc_lsq_line(&c, "q-nufft", be, dev, n, m, t, reps, sec);
    }
    for (int meth = 0; s == KR_OK && meth < 3; meth++) {
        if (meth == KR_LSQ_NORMAL_DRFT && !drft) continue;
        o.normal = (kr_lsq_normal_method)meth;
        kr_lsq_plan *p = NULL;
        double sec = 0;
        s = kr_lsq_plan_create(&p, ctx, n, tr, NULL, &o);
        if (s == KR_OK && meth == KR_LSQ_NORMAL_TOEPLITZ) {
            s = kri_lsq_bench(p, 0, reps, &sec);
            if (s == KR_OK) kc_lsq_line(&c, "fhd-nufft", be, dev, n, m, t, reps, sec);
        }
        if (s == KR_OK && meth == KR_LSQ_NORMAL_DRFT) {
            s = kri_lsq_bench(p, 0, 1, &sec);
            if (s == KR_OK) kc_lsq_line(&c, "fhd-drft", be, dev, n, m, t, 1, sec);
        }
        if (s == KR_OK) s = kri_lsq_bench(p, 1, meth == KR_LSQ_NORMAL_DRFT ? 1 : reps, &sec);
        const char *cs = meth == KR_LSQ_NORMAL_TOEPLITZ
                             ? "normal-toeplitz"
                             : (meth == KR_LSQ_NORMAL_NUFFT ? "normal-nufft" : "normal-drft");
        if (s == KR_OK)
            kc_lsq_line(&c, cs, be, dev, n, m, t, meth == KR_LSQ_NORMAL_DRFT ? 1 : reps, sec);
        kr_lsq_plan_destroy(p);
    }
    kr_array_destroy(tr);
    kr_ctx_destroy(ctx);
    return s == KR_OK ? 0 : kc_fail("bench lsq", s);
}
