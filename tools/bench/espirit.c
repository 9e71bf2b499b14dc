/* kray bench espirit: ESPIRiT maps (kr_espirit) of a 2-D and a 3-D multi-coil phantom on the
 * backend chosen: the calibration (region, SVD of the calibration matrix, kernel projector) on
 * the host, the per-voxel eigenvectors on the backend (OpenMP lines or one CUDA thread per
 * voxel). Data: the modified Shepp-Logan (2-D, or 3-D), Biot-Savart maps of an MRXCAT array of
 * loops (kr_coil_maps, normalised to RSS 1 at the centre), coil k-space by the centred FFT,
 * fully sampled. Each time is the best of --reps calls, maps returned to the host included.
 * Also printed: the fraction of the true sensitivities outside the span of the maps inside the
 * object (|S - m m^H S| / |S|), a check that the maps are right. */
#include "kray/coils.h"
#include "kray/fft.h"
#include "kray/sense.h"
#include "bench.h"

#include <math.h>
#include <stdlib.h>

/* k-space [n..., nc] of the phantom times the maps S (c64 [n..., nc], host), fully sampled. */
static kr_status kc_esp_data(const kr_ctx *cpu, const int64_t n[3], int nd, int coils,
                             kr_array **S, kr_array **k, kr_array **obj)
{
    kr_coil *cl = calloc((size_t)coils, sizeof *cl);
    if (!cl) return KR_ERR_OOM_HOST;
    kr_coil_map_opts mo;
    kr_coil_map_opts_default(&mo);
    mo.nx = n[0], mo.ny = n[1], mo.nz = n[2];
    mo.voxel_mm[0] = mo.voxel_mm[1] = 256.0 / (double)n[0];
    mo.voxel_mm[2] = nd == 3 ? 256.0 / (double)n[2] : 5.0;
    mo.norm = KR_COIL_NORM_RSS_CENTRE;
    const int64_t d4[4] = {n[0], n[1], n[2], coils}, nv = n[0] * n[1] * n[2];
    int nrings = 0;
    kr_status s = kr_coil_layout_mrxcat(coils, 8, 170, cl, &nrings, NULL);
    if (s == KR_OK) s = kr_array_create(S, KR_C64, 4, d4, KR_HOST, NULL);
    if (s == KR_OK) s = kr_coil_maps(cpu, cl, coils, &mo, *S);
    int ne2 = 0, ne3 = 0;
    const kr_ellipse *e2 = kr_phantom_ellipses(KR_PHANTOM_MODIFIED_SL, &ne2);
    const kr_ellipsoid *e3 = kr_phantom_ellipsoids(KR_PHANTOM_MODIFIED_SL, &ne3);
    if (s == KR_OK)
        s = nd == 3 ? kr_phantom_3d_grid(obj, e3, ne3, KR_GRID_FFT, n[0], n[1], n[2], 1, KR_F64)
                    : kr_phantom_2d_grid(obj, e2, ne2, KR_GRID_FFT, n[0], n[1], 1, KR_F64);
    if (s == KR_OK) s = kr_array_create(k, KR_C64, 4, d4, KR_HOST, NULL);
    if (s == KR_OK) {
        const float *sv = (*S)->data;
        const double *f = (*obj)->data;
        float *kv = (*k)->data;
        for (int64_t c = 0; c < coils; c++)
            for (int64_t q = 0; q < nv; q++) {
                kv[2 * (q + nv * c)] = (float)(sv[2 * (q + nv * c)] * f[q]);
                kv[2 * (q + nv * c) + 1] = (float)(sv[2 * (q + nv * c) + 1] * f[q]);
            }
        s = kr_fft(cpu, *k, *k, nd == 3 ? 7u : 3u, KR_FFT_FORWARD, KR_FFT_CENTERED);
    }
    free(cl);
    return s;
}

/* |S - m m^H S| / |S| where the object is non-zero and the maps are. */
static double kc_esp_span(const kr_array *m, const kr_array *S, const kr_array *obj, int64_t nv,
                          int64_t nc)
{
    const float *a = m->data, *b = S->data;
    const double *f = obj->data;
    double num = 0, den = 0;
    for (int64_t q = 0; q < nv; q++) {
        if (f[q] == 0) continue;
        double zr = 0, zi = 0, ss = 0, mm = 0;
        for (int64_t c = 0; c < nc; c++) {
            const float *x = a + 2 * (q + nv * c), *y = b + 2 * (q + nv * c);
            zr += (double)x[0] * y[0] + (double)x[1] * y[1];
            zi += (double)x[0] * y[1] - (double)x[1] * y[0];
            ss += (double)y[0] * y[0] + (double)y[1] * y[1];
            mm += (double)x[0] * x[0] + (double)x[1] * x[1];
        }
        if (mm == 0) continue;
        num += fmax(ss - (zr * zr + zi * zi), 0);
        den += ss;
    }
    return den > 0 ? sqrt(num / den) : NAN;
}

int kc_bench_espirit(int argc, char **argv)
{
    int size = 256, coils = 8, kernel = 6, calib = 24, reps = 3, kernel3 = 5, calib3 = 20;
    int small = 0;
    kc_dims d3;
    d3.n = 3, d3.d[0] = 128, d3.d[1] = 128, d3.d[2] = 64;
    const kc_opt opts[] = {
        {"size", 'n', KC_INT, &size, "256", "N", "2-D image N^2 (0: skip the 2-D case)", NULL, 0,
         4096, NULL},
        {"size3", 0, KC_DIMS, &d3, "128x128x64", "DIMS", "3-D volume NxMxK (1x1x1: skip it)",
         NULL, 1, 1024, NULL},
        {"coils", 'c', KC_INT, &coils, "8", "N", "receive coils", NULL, 1, 64, NULL},
        {"kernel", 0, KC_INT, &kernel, "6", "N", "ESPIRiT kernel width of the 2-D case", NULL, 2,
         16, NULL},
        {"calib", 0, KC_INT, &calib, "24", "N", "ESPIRiT calibration width of the 2-D case", NULL,
         3, 256, NULL},
        {"reps", 0, KC_INT, &reps, "3", "N", "timed calls (the best is printed)", NULL, 1, 1000,
         NULL},
        {"small", 0, KC_FLAG, &small, NULL, NULL,
         "CPU smoke size: 48^2 and 16x16x12, 4 coils, 3-D kernel 4 and calibration 10", NULL, 0,
         0, NULL},
        {0}};
    const kc_spec spec = {
        "bench espirit",
        "ESPIRiT maps of a fully sampled 2-D (N^2) and 3-D (kernel 5, calibration 20^3) phantom\n"
        "with an MRXCAT loop array: the calibration on the host, the per-voxel eigenvectors on\n"
        "the backend. Best of --reps calls (maps back on the host included), and the part of\n"
        "the true sensitivities outside the span of the maps inside the object. A table on\n"
        "stdout, JSON lines with --json.",
        opts,
        NULL,
        KC_JSON,
        "Examples:\n  kray bench espirit --backend cuda --json\n"
        "  kray bench espirit --backend cpu --size 128 --size3 48x48x32",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    if (d3.n != 3) return kc_usage("bench espirit", "--size3 must be NxMxK");
    if (small) {
        size = 48, coils = 4, kernel3 = 4, calib3 = 10;
        d3.d[0] = d3.d[1] = 16, d3.d[2] = 12;
    }
    kr_ctx *ctx = NULL, *cpu = NULL;
    char dev[256];
    if ((r = kc_bench_ctx("bench espirit", &c, &ctx, dev, sizeof dev)) != 0) return r;
    kr_status s = kr_ctx_create(&cpu, KR_BACKEND_CPU);
    if (s == KR_OK) kr_ctx_set_quiet(cpu, 1);
    for (int nd = 2; nd <= 3 && s == KR_OK; nd++) {
        const int64_t n[3] = {nd == 2 ? size : d3.d[0], nd == 2 ? size : d3.d[1],
                              nd == 2 ? 1 : d3.d[2]};
        if (n[0] * n[1] * n[2] <= 1) continue;
        kr_array *S = NULL, *k = NULL, *obj = NULL, *m = NULL;
        s = kc_esp_data(cpu, n, nd, coils, &S, &k, &obj);
        kr_espirit_opts o;
        kr_espirit_opts_default(&o);
        o.kernel = nd == 2 ? kernel : kernel3;
        o.calib = nd == 2 ? calib : calib3;
        double best = INFINITY;
        for (int i = 0; i < reps && s == KR_OK; i++) {
            kr_array_destroy(m);
            m = NULL;
            const double t0 = kr_time_now();
            s = kr_espirit(ctx, k, &o, &m, NULL);
            best = fmin(best, kr_time_now() - t0);
        }
        const double span = s == KR_OK ? kc_esp_span(m, S, obj, n[0] * n[1] * n[2], coils) : NAN;
        const char *be = kr_backend_name(kr_ctx_backend(ctx));
        if (s == KR_OK && !c.json) {
            printf("espirit-%dd %-5s %lldx%lldx%lld %2d coils  kernel %d  calib %d  %9.3f s  "
                   "outside the span %.2g\n", nd, be, (long long)n[0], (long long)n[1],
                   (long long)n[2], coils, o.kernel, o.calib, best, span);
            fflush(stdout);
        } else if (s == KR_OK) {
            kc_jo j;
            kc_jo_begin(&j);
            kc_jo_str(&j, "bench", "espirit");
            kc_jo_str(&j, "case", nd == 2 ? "espirit-2d" : "espirit-3d");
            kc_jo_str(&j, "backend", be);
            kc_jo_str(&j, "device", dev);
            kc_jo_int(&j, "nx", n[0]);
            kc_jo_int(&j, "ny", n[1]);
            kc_jo_int(&j, "nz", n[2]);
            kc_jo_int(&j, "coils", coils);
            kc_jo_int(&j, "kernel", o.kernel);
            kc_jo_int(&j, "calib", o.calib);
            kc_jo_int(&j, "threads", kr_ctx_threads(ctx));
            kc_jo_num(&j, "time_s", best);
            kc_jo_num(&j, "outside_span", span);
            kc_jo_end(&j);
            fflush(stdout);
        }
        kr_array_destroy(S), kr_array_destroy(k), kr_array_destroy(obj), kr_array_destroy(m);
    }
    kr_ctx_destroy(cpu);
    kr_ctx_destroy(ctx);
    return s == KR_OK ? 0 : kc_fail("bench espirit", s);
}
