/* kray dcf: density-compensation weights of a trajectory (Voronoi, Pipe-Menon, analytic). */
#include "cli.h"
#include "kray/traj.h"

#include <string.h>

int kc_tool_dcf(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    int method = 0, boundary = 0, iters = 20;
    double radius = 0, tol = 1e-4, kradius = 2, beta = 0;
    const kc_opt opts[] = {
        {"method", 'm', KC_CHOICE, &method, "voronoi", "M",
         "voronoi: 2-D cell areas (per kz plane); pipe-menon: iterative w <- w / (w * C) with a "
         "Kaiser-Bessel kernel (2-D or 3-D); radial: |k| dk pi/S (|k|^2 dk 2 pi/S for koosh); "
         "spiral: Jacobian |k . dk| 2 pi/interleaves",
         "voronoi|pipe-menon|radial|spiral", 0, 0, NULL},
        {"boundary", 0, KC_CHOICE, &boundary, "disk", "B",
         "voronoi: clip the outer cells to a disk or a square", "disk|square", 0, 0, NULL},
        {"radius", 0, KC_DOUBLE, &radius, "0", "R",
         "voronoi: disk radius / square half-width in cycles per FOV (0 = max |k| + 1/2, or the "
         "samples' box + 1/2)", NULL, 0, 1e9, NULL},
        {"dup-tol", 0, KC_DOUBLE, &tol, "1e-4", "D",
         "voronoi: samples closer than D share one cell equally", NULL, 0, 1e3, NULL},
        {"iters", 'i', KC_INT, &iters, "20", "N", "pipe-menon: iterations", NULL, 1, 10000,
         NULL},
        {"kernel-radius", 0, KC_DOUBLE, &kradius, "2", "R",
         "pipe-menon: kernel radius in cycles per FOV", NULL, 1e-3, 1e3, NULL},
        {"beta", 0, KC_DOUBLE, &beta, "0", "B",
         "pipe-menon: Kaiser-Bessel shape (0 = 2.34 x 2R, Jackson 1991)", NULL, 0, 1e3, NULL},
        {"iterations", 0, KC_ALIAS, NULL, NULL, "iters", NULL, NULL, 0, 0, NULL},
        {"", 'n', KC_RENAMED, NULL, NULL, "-i", NULL, NULL, 0, 0, NULL},
        {"", 'b', KC_RENAMED, NULL, NULL, "--boundary", NULL, NULL, 0, 0, NULL},
        {"", 'r', KC_RENAMED, NULL, NULL, "--radius", NULL, NULL, 0, 0, NULL},
        {0}};
    const kc_arg args[] = {{"traj", &in, "trajectory [3, samples, ...] (e.g. from kray/bart traj)",
                            0},
                           {"weights", &out, "weights, the trajectory's sample dims", 0},
                           {0}};
    const kc_spec spec = {
        "dcf",
        "Density-compensation weights as areas (2-D) or volumes (3-D) in (cycles per FOV)^d:\n"
        "a Cartesian grid gets 1 everywhere, so the weighted adjoint DrFT approximates N^d times\n"
        "the image. Voronoi cells are cut by the perpendicular bisectors of the neighbours\n"
        "(robust to grids, collinear spokes and repeated samples: coincident samples share\n"
        "their cell); the outermost cells are clipped to the boundary. Written as the\n"
        "trajectory's real type (c64 in a .cfl file).",
        opts,
        args,
        KC_JSON | KC_HOST,
        "Examples:\n  kray dcf t.cfl w.cfl\n  kray dcf --method pipe-menon koosh.npy w.npy\n"
        "  kray dcf --method radial --json t.cfl w.cfl",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    if ((r = kc_check_input("dcf", in)) != 0) return r;
    if ((r = kc_check_output("dcf", out)) != 0) return r;
    kc_apply_threads(&c);
    kr_ctx *ctx = NULL;
    kr_status s = kr_ctx_create(&ctx, c.threads == 1 ? KR_BACKEND_CPU_SERIAL : KR_BACKEND_CPU);
    if (s == KR_OK && c.threads > 0) s = kr_ctx_set_threads(ctx, c.threads);
    kr_array *t = NULL, *w = NULL;
    if (s == KR_OK) s = kc_read_traj(in, &t, KR_F64);
    kr_dcf_opts o;
    kr_dcf_opts_default(&o);
    o.method = (kr_dcf_method)method;
    o.boundary = (kr_dcf_boundary)boundary;
    o.radius = radius, o.dup_tol = tol, o.iterations = iters, o.kernel_radius = kradius;
    o.beta = beta;
    kr_dcf_info info;
    memset(&info, 0, sizeof info);
    double t0 = kr_time_now(), t1 = t0;
    if (s == KR_OK) s = kr_dcf(&w, ctx, t, &o, &info);
    t1 = kr_time_now();
    kr_array *wc = NULL;
    if (s == KR_OK) s = kr_array_astype(&wc, w, kc_precision_dtype(&c));
    if (s == KR_OK) s = kr_write(out, wc, NULL);
    if (s != KR_OK) {
        kr_array_destroy(t), kr_array_destroy(w), kr_array_destroy(wc);
        kr_ctx_destroy(ctx);
        return kc_fail("dcf", s);
    }
    static const char *names[] = {"voronoi", "pipe-menon", "radial", "spiral"};
    if (c.json) {
        kc_jo j;
        kc_jo_begin(&j);
        kc_jo_str(&j, "traj", in);
        kc_jo_str(&j, "weights", out);
        kc_jo_str(&j, "method", names[method]);
        kc_jo_int(&j, "samples", kr_array_numel(w));
        kc_jo_num(&j, "total", info.total);
        kc_jo_num(&j, "support", info.support);
        kc_jo_int(&j, "duplicates", info.duplicates);
        kc_jo_int(&j, "clipped", info.clipped);
        kc_jo_int(&j, "iterations", info.iterations);
        kc_jo_num(&j, "flatness", info.flatness);
        kc_jo_num(&j, "seconds", t1 - t0);
        kc_jo_end(&j);
    } else if (c.verbose) {
        fprintf(stderr, "kray dcf: %s weights of %lld samples: sum %.6g", names[method],
               (long long)kr_array_numel(w), info.total);
        if (method == 0)
            fprintf(stderr, " (clip region %.6g), %lld samples share cells, %lld cells clipped",
                   info.support, (long long)info.duplicates, (long long)info.clipped);
        if (method == 1)
            fprintf(stderr, ", %d iterations, max |w * C - 1| at the samples %.3g", info.iterations,
                   info.flatness);
        fprintf(stderr, "\n");
    }
    kr_array_destroy(t), kr_array_destroy(w), kr_array_destroy(wc);
    kr_ctx_destroy(ctx);
    return 0;
}
