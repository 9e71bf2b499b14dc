/* kray cgsense: CG-SENSE reconstruction of non-Cartesian multi-coil k-space (Pruessmann 2001),
 * CPU or GPU (kray/cgsense.h). */
#include "cli.h"
#include "mri_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* The image comes out as the data divided by the maps (E^H E x = E^H y): maps that are not
 * normalised (root-sum-of-squares about 1 where there is signal, as kray's and BART's ESPIRiT
 * maps are) scale it by the inverse. One line on stderr when the largest RSS over the pixels is
 * outside [0.1, 10] (BART's `phantom -S` maps peak near 1e5). */
static void kc_cg_scale_note(const kr_array *maps)
{
    int64_t nc = maps->ndim >= 3 ? maps->dims[maps->ndim - 1] : 1;
    int64_t np = kr_array_numel(maps) / (nc > 0 ? nc : 1);
    const float *m = (const float *)maps->data; /* c64, host, contiguous */
    double peak = 0;
    for (int64_t p = 0; p < np; p++) {
        double ss = 0;
        for (int64_t c = 0; c < nc; c++) {
            const float *z = m + 2 * (p + c * np);
            ss += (double)z[0] * z[0] + (double)z[1] * z[1];
        }
        if (ss > peak) peak = ss;
    }
    peak = sqrt(peak);
    if (peak > 0 && (peak > 10 || peak < 0.1))
        kc_note("cgsense", "note: the maps' root-sum-of-squares peaks at %.3g, not about 1, so "
                "the image is about %.3g times the scale it has with normalised maps ('bart "
                "normalize 8' normalises BART's maps)",
                peak, 1.0 / peak);
}

int kc_tool_cgsense(int argc, char **argv)
{
    const char *tp = NULL, *kp = NULL, *mp = NULL, *op = NULL, *dcfp = NULL, *warm = NULL,
               *adjp = NULL, *maps_out = NULL, *fmp = NULL, *tsp = NULL;
    int iters = 30, toeplitz = 0, espirit = 0, segments = 0, exact = 0, precond = 0;
    double lambda = 0, tol = 1e-4, eps = 1e-4, calib = 12, thresh = 0;
    kc_dims dims;
    memset(&dims, 0, sizeof dims);
    const kc_opt opts[] = {
        {"maps", 0, KC_STRING, &mp, NULL, "FILE",
         "coil maps c64 [nx, ny(, nz), coils] (BART's [nx, ny, 1, coils] too; BART's maps are "
         "normalised differently, see below) (default: estimated from the k-space centre: "
         "windowed low-resolution coil images / RSS)", NULL, 0, 0, NULL},
        {"espirit", 0, KC_FLAG, &espirit, NULL, NULL,
         "without --maps: ESPIRiT on the calibration region |k| < --calib-radius per axis, fitted "
         "to the central samples by least squares (2-D and 3-D)", NULL, 0, 0, NULL},
        {"calib-radius", 0, KC_DOUBLE, &calib, "12", "R",
         "without --maps: calibration window radius in cycles per FOV", NULL, 0.5, 1e6, NULL},
        {"threshold", 0, KC_DOUBLE, &thresh, "0", "F",
         "without --maps: zero the maps where RSS < F * max RSS", NULL, 0, 0.999, NULL},
        {"maps-out", 0, KC_STRING, &maps_out, NULL, "FILE", "also write the maps used", NULL, 0, 0,
         NULL},
        {"size", 'n', KC_DIMS, &dims, NULL, "DIMS",
         "image size NxM or NxMxP (default: from --maps; needed without --maps)", NULL, 2, 1 << 20, NULL},
        {"lambda", 'l', KC_DOUBLE, &lambda, "0", "L",
         "Tikhonov weight (>= 0, units of E^H D E, see docs/sense.md)", NULL, 0, 0, NULL},
        {"iters", 'i', KC_INT, &iters, "30", "N", "maximum CG iterations", NULL, 1, 1000000, NULL},
        {"tol", 't', KC_DOUBLE, &tol, "1e-4", "T", "stop at this relative residual", NULL, 0, 1,
         NULL},
        {"dcf", 'w', KC_STRING, &dcfp, NULL, "D|FILE",
         "density weights D (weighted least squares): radial, pipe, voronoi or a file of real "
         "values [samples...]", NULL, 0, 0, NULL},
        {"init", 0, KC_STRING, &warm, NULL, "FILE", "initial image (warm start)", NULL, 0, 0, NULL},
        {"adjoint-out", 0, KC_STRING, &adjp, NULL, "FILE",
         "also write the coil-combined density-compensated adjoint", NULL, 0, 0, NULL},
        {"eps", 'e', KC_DOUBLE, &eps, "1e-4", "E", "NUFFT accuracy", NULL, 1e-6, 0.1, NULL},
        {"toeplitz", 0, KC_FLAG, &toeplitz, NULL, NULL,
         "normal operator by Toeplitz embedding (Q on the 2x grid, FFTs; faster per iteration)", NULL, 0, 0,
         NULL},
        {"precond", 0, KC_CHOICE, &precond, "none", "P",
         "diagonal preconditioner of CG: none, intensity (Pruessmann's intensity correction "
         "1/sum |S|^2) or jacobi (1/diag(E^H D E + lambda I)); same solution, other iterates",
         "none|intensity|jacobi", 0, 0, NULL},
        {"fieldmap", 0, KC_STRING, &fmp, NULL, "FILE",
         "off-resonance field map in Hz, dims of the image (needs --times): E = the model "
         "exp(-2 pi i (k.x/n + f(x) t)) times the maps, time-segmented (or --exact)", NULL, 0, 0,
         NULL},
        {"times", 0, KC_STRING, &tsp, NULL, "FILE",
         "sample times in seconds, one per trajectory point (with --fieldmap)", NULL, 0, 0, NULL},
        {"segments", 0, KC_INT, &segments, "0", "L",
         "--fieldmap: time segments L (0 = smallest L with interpolation error <= 1e-3)", NULL, 0,
         256, NULL},
        {"exact", 0, KC_FLAG, &exact, NULL, NULL,
         "--fieldmap: use the exact direct-sum operator (O(M N C) per application)", NULL, 0, 0,
         NULL},
        {"iter", 0, KC_ALIAS, NULL, NULL, "iters", NULL, NULL, 0, 0, NULL},
        {"warm", 0, KC_ALIAS, NULL, NULL, "init", NULL, NULL, 0, 0, NULL},
        {"calib", 0, KC_RENAMED, NULL, NULL, "--calib-radius", "--calib is the ESPIRiT calibration width", NULL, 0, 0, NULL},
        {"dims", 0, KC_RENAMED, NULL, NULL, "--size", "--dims is the size of a raw input", NULL, 0, 0, NULL},
        {"traj", 't', KC_RENAMED, NULL, NULL, "<traj>, the first argument", NULL, NULL, 0, 0, NULL},
        {"data", 'k', KC_RENAMED, NULL, NULL, "<kspace>, the second argument", NULL, NULL, 0, 0, NULL},
        {"estimate-maps", 'E', KC_RENAMED, NULL, NULL, "the default without --maps", NULL, NULL, 0, 0, NULL},
        {"", 'm', KC_RENAMED, NULL, NULL, "--maps", NULL, NULL, 0, 0, NULL},
        {"", 'd', KC_RENAMED, NULL, NULL, "-n", NULL, NULL, 0, 0, NULL},
        {0}};
    const kc_arg args[] = {
        {"traj", &tp,
         "trajectory [3, samples, ...] in cycles per FOV (BART .cfl from `bart traj`, or kray "
         ".npy/.raw/.cfl)", 0},
        {"kspace", &kp, "k-space c64 [samples..., coils] (BART's [1, samples, spokes, coils] too)",
         0},
        {"output", &op, "image c64 [nx, ny(, nz)]", 0},
        {0}};
    const kc_spec spec = {
        "cgsense",
        "CG-SENSE (Pruessmann 2001): solves (E^H D E + lambda I) x = E^H D y by conjugate\n"
        "gradients, E = NUFFT . coil maps (kray's NUFFT: no scaling, k in cycles per FOV), D =\n"
        "density weights (--dcf) or I; with --fieldmap and --times, E models off-resonance\n"
        "(time-segmented, or --exact). --precond intensity|jacobi preconditions CG. -v prints\n"
        "each iteration's residual as it happens and a summary; a run that does not reach\n"
        "--tol writes the last iterate with a warning (exit 0).",
        opts,
        args,
        KC_JSON,
        "Examples:\n"
        "  bart traj -r -x 512 -y 64 t && bart scale 0.5 t t2  # 256^2 image, 2x readout\n"
        "  kray cgsense --maps maps.cfl -l 0.01 -i 20 t2.cfl ksp.cfl x.cfl\n"
        "  kray cgsense -n 256x256 --dcf radial t.cfl ksp.cfl x.cfl   # maps estimated\n"
        "  kray cgsense --maps m.cfl --fieldmap f.npy --times t.npy --precond intensity \\\n"
        "      t.cfl ksp.cfl x.cfl\n"
        "Scale: E has no scaling, so the image is the data divided by the maps (E x = y).\n"
        "BART's nufft divides by sqrt(nx ny), so `bart pics` gives sqrt(nx ny) times kray's\n"
        "image; and maps from `bart phantom -S` peak near 1e5, which makes kray's image about\n"
        "1e-5 of the object (`bart normalize 8` normalises them). When the maps' root-sum-of-\n"
        "squares peaks outside 0.1 .. 10, a note on stderr says so (docs/sense.md).",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    const int est = mp == NULL;
    if (adjp && !dcfp)
        return kc_usage("cgsense", "--adjoint-out needs density weights (--dcf)");
    if (est && dims.n == 0)
        return kc_usage("cgsense", "without --maps the maps are estimated: give the image size "
                                   "(--size NxM)");
    if (espirit && !est)
        return kc_usage("cgsense", "--espirit estimates the maps: give no --maps");
    if ((fmp != NULL) != (tsp != NULL))
        return kc_usage("cgsense", "--fieldmap and --times must be given together");
    if (fmp && toeplitz)
        return kc_usage("cgsense", "--toeplitz does not model the field map; drop one of them");
    if (!fmp && (segments || exact))
        return kc_usage("cgsense", "--segments and --exact need --fieldmap");
    if (dims.n != 0 && dims.n != 2 && dims.n != 3)
        return kc_usage("cgsense", "--size has %d values; give 2 or 3", dims.n);
    if (!isfinite(lambda) || lambda < 0)
        return kc_usage("cgsense", "--lambda is %g; it must be >= 0", lambda);
    if ((r = kc_check_output("cgsense", op)) != 0) return r;
    if (adjp && (r = kc_check_output("cgsense", adjp)) != 0) return r;
    if (maps_out && (r = kc_check_output("cgsense", maps_out)) != 0) return r;
    kr_ctx *ctx = NULL;
    if ((r = kc_make_ctx("cgsense", &c, &ctx)) != 0) return r;
    const kr_loc loc = kr_ctx_backend(ctx) == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
    kr_array *t = NULL, *k = NULL, *kc64 = NULL, *maps = NULL, *mc64 = NULL, *w = NULL,
             *x = NULL, *dk = NULL, *dx = NULL, *wa = NULL, *fmap = NULL, *tms = NULL;
    kr_cgsense_plan *p = NULL;
    double *hist = NULL;
    kr_status s = kc_read_traj(tp, &t, KR_F32);
    if (s == KR_OK) s = kc_read(kp, &k, NULL, NULL);
    if (s == KR_OK) s = kr_array_astype(&kc64, k, KR_C64);
    int nd = dims.n;
    int64_t n[3] = {1, 1, 1};
    for (int i = 0; i < dims.n; i++) n[i] = dims.d[i];
    if (s == KR_OK && dcfp) s = kc_mri_dcf(dcfp, ctx, t, &w);
    if (s == KR_OK && fmp) {
        s = kc_read_real(fmp, &fmap, kc_image_io()); /* an image; the times follow the samples */
        if (s == KR_OK) s = kc_read_real(tsp, &tms, NULL);
    }
    if (s == KR_OK && mp) {
        s = kc_read(mp, &maps, NULL, kc_image_io());
        if (s == KR_OK) s = kr_array_astype(&mc64, maps, KR_C64);
        if (s == KR_OK && nd == 0) {
            nd = mc64->ndim >= 4 && mc64->dims[2] > 1 ? 3 : 2;
            for (int i = 0; i < nd; i++) n[i] = mc64->dims[i];
        }
    } else if (s == KR_OK) {
        kr_cgsense_maps_opts mo;
        kr_cgsense_maps_opts_default(&mo);
        mo.calib_radius = calib;
        mo.threshold = thresh;
        mo.espirit = espirit;
        s = kr_cgsense_estimate_maps(ctx, nd, n, t, kc64, w, &mo, &mc64);
    }
    if (s == KR_OK && mp && !c.quiet) kc_cg_scale_note(mc64);
    if (s == KR_OK && maps_out) s = kr_write(maps_out, mc64, kc_image_io());
    kr_cgsense_opts po;
    kr_cgsense_opts_default(&po);
    po.dcf = w;
    po.eps = eps;
    po.normal = toeplitz ? KR_CGSENSE_NORMAL_TOEPLITZ : KR_CGSENSE_NORMAL_NUFFT;
    po.fieldmap = fmap;
    po.times = tms;
    po.exact = exact;
    po.segments = segments;
    po.precond = precond == 1   ? KR_CGSENSE_PRECOND_INTENSITY
                 : precond == 2 ? KR_CGSENSE_PRECOND_JACOBI
                                : KR_CGSENSE_PRECOND_NONE;
    double t0 = kr_time_now();
    if (s == KR_OK) s = kr_cgsense_plan_create(&p, ctx, nd, n, t, mc64, &po);
    if (s == KR_OK) s = kr_array_create(&x, KR_C64, nd, n, KR_HOST, NULL);
    if (s == KR_OK && warm) {
        kr_array *w0 = NULL, *w1 = NULL;
        s = kc_read(warm, &w0, NULL, kc_image_io());
        if (s == KR_OK) s = kr_array_astype(&w1, w0, KR_C64);
        if (s == KR_OK && kr_array_numel(w1) != kr_array_numel(x)) {
            char a[96], b[96];
            s = KR_ERR_DIM;
            kc_error("cgsense", "warm-start image %s has %s values, the image is %s",
                    warm, kr_dims_string(w1->ndim, w1->dims, a, sizeof a),
                    kr_dims_string(nd, n, b, sizeof b));
            r = KC_EXIT_INPUT;
        }
        if (s == KR_OK) memcpy(x->data, w1->data, kr_array_bytes(x));
        kr_array_destroy(w0);
        kr_array_destroy(w1);
        if (r) goto out;
    }
    if (s == KR_OK) s = kr_array_clone(&dk, kc64, loc, ctx);
    if (s == KR_OK) s = kr_array_clone(&dx, x, loc, ctx);
    if (s == KR_OK && adjp) {
        kr_array *da = NULL;
        s = kr_array_create_like(&da, x, loc, ctx);
        if (s == KR_OK) s = kr_cgsense_adjoint_image(p, dk, da);
        if (s == KR_OK) s = kr_array_clone(&wa, da, KR_HOST, ctx);
        if (s == KR_OK) s = kr_write(adjp, wa, kc_image_io());
        kr_array_destroy(da);
    }
    kr_solve_opts so;
    kr_solve_opts_default(&so);
    so.lambda = lambda;
    so.max_iter = iters;
    so.tol = tol;
    so.warm_start = warm != NULL;
    so.show_progress = !c.quiet;
    hist = calloc((size_t)iters + 1, sizeof(double));
    so.history = hist;
    kr_solve_info info;
    memset(&info, 0, sizeof info);
    double t1 = kr_time_now();
    if (s == KR_OK && !hist) s = KR_ERR_OOM_HOST;
    if (s == KR_OK) s = kr_cgsense_solve(p, dk, dx, &so, &info);
    if (s == KR_OK) s = kr_array_copy(x, dx, ctx);
    double t2 = kr_time_now();
    if (s == KR_OK) s = kr_write(op, x, kc_image_io());
    if (s == KR_OK) {
        int64_t nc = 0, M = 0;
        kr_cgsense_plan_sizes(p, &nc, &M);
        kr_offres_info oi;
        kr_cgsense_plan_offres(p, &oi);
        if (c.json) {
            kc_jo j;
            kc_jo_begin(&j);
            kc_jo_str(&j, "tool", "cgsense");
            kc_jo_str(&j, "backend", kr_backend_name(kr_ctx_backend(ctx)));
            kc_jo_int(&j, "coils", nc);
            kc_jo_int(&j, "samples", M);
            kc_jo_int(&j, "iterations", info.iterations);
            kc_jo_bool(&j, "converged", info.converged);
            kc_jo_num(&j, "rel_residual", info.rel_residual);
            if (fmp) {
                kc_jo_str(&j, "fieldmap_model", exact ? "exact" : "segmented");
                kc_jo_int(&j, "segments", oi.segments);
                kc_jo_num(&j, "interp_err", oi.interp_err);
            }
            kc_jo_str(&j, "precond", precond == 1 ? "intensity" : precond == 2 ? "jacobi" : "none");
            kc_jo_num(&j, "plan_seconds", t1 - t0);
            kc_jo_num(&j, "solve_seconds", t2 - t1);
            kc_jo_nums(&j, "history", info.iterations + 1, hist);
            kc_jo_end(&j);
        } else if (c.verbose) {
            if (fmp && !exact)
                kc_note("cgsense", "field map %.4g..%.4g Hz, times %.4g..%.4g ms: %d segments, "
                        "interpolation error %.2e", oi.f_min, oi.f_max, 1e3 * oi.t_min,
                        1e3 * oi.t_max, oi.segments, oi.interp_err);
            kc_note("cgsense", "%lld coils, %lld samples, %d iterations, relative residual "
                    "%.3e (%s), solve %.3f s (%s)",
                   (long long)nc, (long long)M, info.iterations, info.rel_residual,
                   info.converged ? "converged" : "not converged", t2 - t1,
                   kr_backend_name(kr_ctx_backend(ctx)));
        }
        if (!info.converged)
            kc_note("cgsense", "warning: not converged after %d iterations (relative "
                            "residual %.3e > --tol %g); wrote the last iterate (CG's smallest "
                            "error in the E^H D E norm)",
                    info.iterations, info.rel_residual, tol);
    }
    r = s == KR_OK ? 0 : kc_fail("cgsense", s);
out:
    free(hist);
    kr_array_destroy(t), kr_array_destroy(k), kr_array_destroy(kc64), kr_array_destroy(maps);
    kr_array_destroy(mc64), kr_array_destroy(w), kr_array_destroy(x), kr_array_destroy(dk);
    kr_array_destroy(dx), kr_array_destroy(wa), kr_array_destroy(fmap), kr_array_destroy(tms);
    kr_cgsense_plan_destroy(p);
    kr_ctx_destroy(ctx);
    return r;
}
