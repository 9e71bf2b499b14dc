/* kray bench sense: Cartesian SENSE (the target case: 256^2, 32 coils, R = 4) with k-space,
 * aliased images and results where the backend computes. Data: the modified Shepp-Logan with a
 * smooth phase (FOV 256 mm), the Biot-Savart maps of an MRXCAT array of circular loops (rings of
 * 8 on a 170 mm cylinder, kr_coil_maps, normalised to RSS 1 at the centre), its coil k-space
 * (FFT) with every R-th line kept. (kr_phantom_coil_maps would not do: its maps share three
 * frequencies along y, so R = 4 systems are singular.)
 *   execute:    k-space -> image (mask, inverse FFT, unfold)        kr_sense_execute
 *   unfold:     zero-filled coil images -> image                     kr_sense_unfold
 *   execute+g:  the same with the g-factor map                       kr_sense_execute
 *   g-factor:   the g-factor map alone                               kr_sense_gfactor
 *   general:    R = 4 plus --acs calibration lines, which breaks the lattice: one dense
 *               ny x ny system per column (execute, and execute with the g-factor)
 * Each time is the best over 3 rounds of the mean over --reps calls (the general path: best of
 * 3 single calls). The NRMSE of the image against the object on its support is printed too. */
#include "kray/cartesian.h"
#include "kray/coils.h"
#include "kray/sense.h"
#include "bench.h"

#include <math.h>
#include <stdlib.h>

typedef struct kc_sn {
    const kr_ctx *ctx;
    kr_sense_plan *p;
    const kr_array *k, *al;
    kr_array *img, *g;
} kc_sn;

static kr_status kc_sn_call(const kc_sn *b, int what)
{
    if (what == 0) return kr_sense_execute(b->p, b->k, b->img, NULL);
    if (what == 1) return kr_sense_unfold(b->p, b->al, b->img, NULL);
    if (what == 2) return kr_sense_execute(b->p, b->k, b->img, b->g);
    return kr_sense_gfactor(b->p, b->g);
}

/* Best over rounds of the mean time of reps calls of `what`. */
static kr_status kc_sn_time(const kc_sn *b, int what, int rounds, int reps, double *best)
{
    *best = INFINITY;
    kr_status s = kc_sn_call(b, what); /* warm-up */
    for (int r = 0; r < rounds && s == KR_OK; r++) {
        s = kc_bench_sync(b->ctx);
        const double t0 = kr_time_now();
        for (int k = 0; k < reps && s == KR_OK; k++) s = kc_sn_call(b, what);
        if (s == KR_OK) s = kc_bench_sync(b->ctx);
        *best = fmin(*best, (kr_time_now() - t0) / reps);
    }
    return s;
}

/* NRMSE of the device or host image img against obj (host c64) where obj != 0. */
static kr_status kc_sn_error(const kr_ctx *ctx, const kr_array *img, const kr_array *obj,
                             double *e)
{
    kr_array *h = NULL;
    kr_status s = kr_array_clone(&h, img, KR_HOST, ctx);
    if (s != KR_OK) return s;
    const float *x = h->data, *y = obj->data;
    double num = 0, den = 0;
    for (int64_t i = 0; i < kr_array_numel(obj); i++) {
        if (y[2 * i] == 0 && y[2 * i + 1] == 0) continue;
        const double dr = (double)x[2 * i] - y[2 * i], di = (double)x[2 * i + 1] - y[2 * i + 1];
        num += dr * dr + di * di;
        den += (double)y[2 * i] * y[2 * i] + (double)y[2 * i + 1] * y[2 * i + 1];
    }
    kr_array_destroy(h);
    *e = den > 0 ? sqrt(num / den) : NAN;
    return KR_OK;
}

static void kc_sn_emit(int json, const char *what, const kr_ctx *ctx, const char *dev, int64_t n,
                       int64_t nc, int accel, int64_t acs, double t, double err)
{
    const char *be = kr_backend_name(kr_ctx_backend(ctx));
    if (!json) {
        printf("%-12s %-5s %4lld^2 %3lld coils  R=%d  ACS %3lld  %10.4f ms", what, be, (long long)n,
               (long long)nc, accel, (long long)acs, t * 1e3);
        if (err == err) printf("  NRMSE %.2g", err);
        printf("\n");
        fflush(stdout);
        return;
    }
    kc_jo j;
    kc_jo_begin(&j);
    kc_jo_str(&j, "bench", "sense");
    kc_jo_str(&j, "case", what);
    kc_jo_str(&j, "backend", be);
    kc_jo_str(&j, "device", dev);
    kc_jo_int(&j, "n", n);
    kc_jo_int(&j, "coils", nc);
    kc_jo_int(&j, "accel", accel);
    kc_jo_int(&j, "acs", acs);
    kc_jo_int(&j, "threads", kr_ctx_threads(ctx));
    kc_jo_num(&j, "time_s", t);
    kc_jo_num(&j, "nrmse", err);
    kc_jo_end(&j);
    fflush(stdout);
}

/* The object: the modified Shepp-Logan (KR_GRID_FFT, 2x2 supersampled) with a linear phase. */
static kr_status kc_sn_object(kr_array **obj, int64_t n)
{
    int ne = 0;
    const kr_ellipse *e = kr_phantom_ellipses(KR_PHANTOM_MODIFIED_SL, &ne);
    kr_array *f = NULL;
    const int64_t d[2] = {n, n};
    kr_status s = kr_phantom_2d_grid(&f, e, ne, KR_GRID_FFT, n, n, 2, KR_F64);
    if (s == KR_OK) s = kr_array_create(obj, KR_C64, 2, d, KR_HOST, NULL);
    if (s == KR_OK) {
        const double *fv = f->data;
        float *o = (*obj)->data;
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) {
                const double ph = 0.7 * ((double)(i - n / 2) + 0.5 * (double)(j - n / 2)) * 2 / n;
                o[2 * (i + n * j)] = (float)(fv[i + n * j] * cos(ph));
                o[2 * (i + n * j) + 1] = (float)(fv[i + n * j] * sin(ph));
            }
    }
    kr_array_destroy(f);
    return s;
}

int kc_bench_sense(int argc, char **argv)
{
    int size = 256, coils = 32, accel = 4, acs = 24, reps = 0;
    const kc_opt opts[] = {
        {"size", 'n', KC_INT, &size, "256", "N", "image N^2", NULL, 8, 4096, NULL},
        {"coils", 'c', KC_INT, &coils, "32", "N", "receive coils", NULL, 1, 128, NULL},
        {"accel", 'R', KC_INT, &accel, "4", "R", "acceleration (must divide --size)", NULL, 1, 16,
         NULL},
        {"acs", 0, KC_INT, &acs, "24", "N", "calibration lines of the general-path case (0: skip it)",
         NULL, 0, 4096, NULL},
        {"reps", 0, KC_INT, &reps, "0", "N", "calls per timed round (0: 50 on CUDA, 3 on the CPU)",
         NULL, 0, 100000, NULL},
        {0}};
    const kc_spec spec = {
        "bench sense",
        "Cartesian SENSE with data where the backend computes: an N^2 Shepp-Logan with a smooth\n"
        "phase, analytic coil maps, every R-th k-space line. Times kr_sense_execute (k-space to\n"
        "image), kr_sense_unfold (from zero-filled coil images), execute with the g-factor map,\n"
        "the g-factor alone, and the general path (R plus --acs calibration lines: one dense\n"
        "system per column). Best of 3 rounds of the mean of --reps calls; the image's NRMSE\n"
        "against the object on its support. A table on stdout, JSON lines with --json.",
        opts,
        NULL,
        KC_JSON,
        "Examples:\n  kray bench sense --backend cuda --json\n  kray bench sense --backend cpu --acs 0",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    if (size % accel) return kc_usage("bench sense", "--accel must divide --size");
    if (acs >= size) return kc_usage("bench sense", "--acs must be below --size");
    kr_ctx *ctx = NULL, *cpu = NULL;
    char dev[256];
    if ((r = kc_bench_ctx("bench sense", &c, &ctx, dev, sizeof dev)) != 0) return r;
    const int cuda = kr_ctx_backend(ctx) == KR_BACKEND_CUDA;
    if (!reps) reps = cuda ? 50 : 3;
    const int64_t n = size, nc = coils, d2[2] = {n, n};
    const kr_loc loc = cuda ? KR_DEVICE : KR_HOST;
    kr_array *m4 = NULL, maps_view, *maps = &maps_view, *obj = NULL, *k = NULL, *al = NULL;
    kr_coil *cl = calloc((size_t)coils, sizeof *cl);
    kc_sn b = {ctx, NULL, NULL, NULL, NULL, NULL};
    kr_array *dk = NULL, *dal = NULL;
    uint8_t *lines = malloc((size_t)n);
    kr_status s = lines && cl ? kr_ctx_create(&cpu, KR_BACKEND_CPU) : KR_ERR_OOM_HOST;
    kr_coil_map_opts mo;
    kr_coil_map_opts_default(&mo);
    mo.nx = mo.ny = n;
    mo.voxel_mm[0] = mo.voxel_mm[1] = 256.0 / (double)n;
    mo.norm = KR_COIL_NORM_RSS_CENTRE;
    const int64_t d4[4] = {n, n, 1, nc}, d3[3] = {n, n, nc};
    int nrings = 0;
    if (s == KR_OK) s = kr_coil_layout_mrxcat(coils, 8, 170, cl, &nrings, NULL);
    if (s == KR_OK) s = kr_array_create(&m4, KR_C64, 4, d4, KR_HOST, NULL);
    if (s == KR_OK) s = kr_coil_maps(cpu, cl, coils, &mo, m4);
    if (s == KR_OK) s = kr_array_wrap(&maps_view, KR_C64, 3, d3, m4->data, KR_HOST);
    if (s == KR_OK) s = kc_sn_object(&obj, n);
    if (s == KR_OK) s = kr_array_create_like(&k, maps, KR_HOST, NULL);
    if (s == KR_OK) s = kr_coil_kspace(cpu, obj, maps, k);
    if (s == KR_OK) s = kr_cartesian_lines(lines, n, accel, 0, 0);
    if (s == KR_OK) s = kr_cartesian_undersample(cpu, k, lines);
    if (s == KR_OK) s = kr_array_create_like(&al, k, KR_HOST, NULL);
    if (s == KR_OK) s = kr_coil_images(cpu, k, al);
    if (s == KR_OK) s = kr_array_clone(&dk, k, loc, ctx);
    if (s == KR_OK) s = kr_array_clone(&dal, al, loc, ctx);
    if (s == KR_OK) s = kr_array_create(&b.img, KR_C64, 2, d2, loc, ctx);
    if (s == KR_OK) s = kr_array_create(&b.g, KR_F32, 2, d2, loc, ctx);
    kr_sense_opts o;
    kr_sense_opts_default(&o);
    o.accel = accel;
    if (s == KR_OK) s = kr_sense_plan_create(&b.p, ctx, maps, &o);
    b.k = dk, b.al = dal;
    static const char *const names[4] = {"execute", "unfold", "execute+g", "g-factor"};
    for (int w = 0; w < 4 && s == KR_OK; w++) {
        double t = 0, e = NAN;
        s = kc_sn_time(&b, w, 3, reps, &t);
        if (s == KR_OK && w < 3) s = kc_sn_error(ctx, b.img, obj, &e);
        if (s == KR_OK) kc_sn_emit(c.json, names[w], ctx, dev, n, nc, accel, 0, t, e);
    }
    kr_sense_plan_destroy(b.p);
    b.p = NULL;
    if (s == KR_OK && acs > 0) { /* the general path: lattice + ACS lines */
        s = kr_cartesian_lines(lines, n, accel, 0, acs);
        o.lines = lines;
        kr_array_destroy(k);
        k = NULL;
        kr_array_destroy(dk);
        dk = NULL;
        if (s == KR_OK) s = kr_array_create_like(&k, maps, KR_HOST, NULL);
        if (s == KR_OK) s = kr_coil_kspace(cpu, obj, maps, k);
        if (s == KR_OK) s = kr_array_clone(&dk, k, loc, ctx);
        if (s == KR_OK) s = kr_sense_plan_create(&b.p, ctx, maps, &o);
        b.k = dk;
        for (int w = 0; w <= 2 && s == KR_OK; w += 2) {
            double t = 0, e = NAN;
            s = kc_sn_time(&b, w, 3, 1, &t);
            if (s == KR_OK) s = kc_sn_error(ctx, b.img, obj, &e);
            if (s == KR_OK)
                kc_sn_emit(c.json, w ? "general+g" : "general", ctx, dev, n, nc, accel, acs, t, e);
        }
    }
    kr_sense_plan_destroy(b.p);
    free(lines);
    free(cl);
    kr_array_destroy(m4);
    kr_array_destroy(obj);
    kr_array_destroy(k);
    kr_array_destroy(al);
    kr_array_destroy(dk);
    kr_array_destroy(dal);
    kr_array_destroy(b.img);
    kr_array_destroy(b.g);
    kr_ctx_destroy(cpu);
    kr_ctx_destroy(ctx);
    return s == KR_OK ? 0 : kc_fail("bench sense", s);
}
