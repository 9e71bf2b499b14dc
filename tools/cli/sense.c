/* kray sense: SENSE reconstruction of Cartesian undersampled multi-coil data (direct Pruessmann
 * unfolding or CG-SENSE), g-factor maps, ESPIRiT sensitivities; CPU or GPU. */
#include "mri_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Lines used by the direct solve: the regular lattice inside the acquired lines (classic SENSE;
 * extra calibration lines are then left out), or every acquired line. */
static void kc_sense_lines(const kc_mri_input *in, int64_t ny, int accel, int offset, int all,
                           uint8_t *use, int *lattice_r)
{
    *lattice_r = 0;
    for (int64_t j = 0; j < ny; j++) use[j] = in->lines[j] != 0;
    if (accel > 0) { /* forced lattice */
        for (int64_t j = 0; j < ny; j++) use[j] = j >= offset && (j - offset) % accel == 0;
        *lattice_r = accel;
        return;
    }
    if (all) return;
    if (in->ismrmrd) { /* the file says which lines are imaging lines */
        for (int64_t j = 0; j < ny; j++) use[j] = (in->lines[j] & KR_LINE_IMAGING) != 0;
        return;
    }
    /* array input: R = distance between the first two acquired lines; keep the lattice when it
     * is completely acquired */
    int64_t j0 = -1, j1 = -1;
    for (int64_t j = 0; j < ny && j1 < 0; j++)
        if (use[j]) {
            if (j0 < 0)
                j0 = j;
            else
                j1 = j;
        }
    if (j0 < 0 || j1 < 0) return;
    int64_t r = j1 - j0;
    int complete = 1;
    for (int64_t j = j0 % r; j < ny; j += r) complete &= use[j] != 0;
    if (!complete || r < 2) return;
    for (int64_t j = 0; j < ny; j++) use[j] = use[j] && (j % r) == (j0 % r);
    *lattice_r = (int)r;
}

int kc_tool_sense(int argc, char **argv)
{
    const char *in_path = NULL, *out_path = NULL, *maps_path = NULL, *psi_path = NULL,
               *g_path = NULL, *maps_out = NULL, *dataset = NULL;
    int accel = 0, offset = 0, all = 0, cg = 0, iters = 100, no_psi = 0, magnitude = 0, kernel = 6,
        calib = 24, repetition = 0;
    double lambda = 0, tol = 1e-6, crop = 0.8;
    const kc_opt opts[] = {
        {"maps", 0, KC_STRING, &maps_path, NULL, "FILE",
         "coil sensitivities c64 [x,y,coil] (default: ESPIRiT from the calibration lines)", NULL, 0,
         0, NULL},
        {"accel", 'R', KC_INT, &accel, "0", "R",
         "use the lattice of every R-th line from --first-line (0 = from the data: the ISMRMRD "
         "imaging lines, or the regular lattice among the acquired lines)",
         NULL, 0, 0, NULL},
        {"first-line", 0, KC_INT, &offset, "0", "N", "with --accel: first lattice line", NULL, 0, 0,
         NULL},
        {"all-lines", 0, KC_FLAG, &all, NULL, NULL,
         "use every acquired line (lattice + calibration lines: exact general solve) instead "
         "of the lattice alone",
         NULL, 0, 0, NULL},
        {"lambda", 'l', KC_DOUBLE, &lambda, "0", "L",
         "Tikhonov weight: (E^H Psi^-1 E + L I) x = E^H Psi^-1 y", NULL, 0, 0, NULL},
        KC_MRI_PSI_OPT(psi_path),
        {"no-psi", 0, KC_FLAG, &no_psi, NULL, NULL, "ignore the file's noise scans", NULL, 0, 0,
         NULL},
        {"gfactor-out", 0, KC_STRING, &g_path, NULL, "FILE",
         "write the g-factor map (f32; direct solve only)", NULL, 0, 0, NULL},
        {"cg", 0, KC_FLAG, &cg, NULL, NULL,
         "CG-SENSE: conjugate gradients on the normal equations with every acquired line", NULL, 0,
         0, NULL},
        {"iters", 'i', KC_INT, &iters, "100", "N", "CG-SENSE: iterations", NULL, 1, 100000, NULL},
        {"tol", 't', KC_DOUBLE, &tol, "1e-6", "T", "CG-SENSE: relative residual", NULL, 0, 1, NULL},
        KC_MRI_MAPS_OUT_OPT(maps_out),
        {"magnitude", 0, KC_FLAG, &magnitude, NULL, NULL, "write |image| as f32", NULL, 0, 0, NULL},
        KC_MRI_ESPIRIT_OPTS(kernel, calib, crop, dataset),
        {"repetition", 0, KC_INT, &repetition, "0", "N", "ISMRMRD: repetition", NULL, 0, 0, NULL},
        {"offset", 0, KC_RENAMED, NULL, NULL, "--first-line", "--offset is the byte offset of a raw input", NULL, 0, 0, NULL},
        {"gfactor", 0, KC_ALIAS, NULL, NULL, "gfactor-out", NULL, NULL, 0, 0, NULL},
        {"iter", 0, KC_ALIAS, NULL, NULL, "iters", NULL, NULL, 0, 0, NULL},
        {"", 'm', KC_RENAMED, NULL, NULL, "--maps", NULL, NULL, 0, 0, NULL},
        {"", 'g', KC_RENAMED, NULL, NULL, "--gfactor-out", NULL, NULL, 0, 0, NULL},
        {0}};
    const kc_arg args[] = {{"kspace", &in_path,
                            "undersampled k-space c64 [x, y, coil] (zeros where not acquired) "
                            "or an ISMRMRD file",
                            0},
                           {"output", &out_path, "image (c64, or f32 with --magnitude)", 0},
                           {0}};
    const kc_spec spec = {
        "sense",
        "SENSE (Pruessmann 1999): solve (E^H Psi^-1 E + lambda I) x = E^H Psi^-1 y, E = mask x\n"
        "centred FFT x coil maps. Direct: for a regular lattice with R dividing the lines, one\n"
        "R x R system per aliased pixel (Cholesky, double precision); any other line set is\n"
        "solved exactly column by column. g = sqrt([X N X]_pp N_pp), X = (N + lambda I)^-1.\n"
        "Maps default to ESPIRiT (BART ecalib's defaults) from the fully sampled centre, or\n"
        "from all repetitions of time-interleaved ISMRMRD data. --backend cuda unfolds on the GPU.",
        opts,
        args,
        KC_JSON,
        "Examples:\n  kray sense --maps maps.cfl under.cfl sense.cfl\n"
        "  kray sense --gfactor-out g.nii --lambda 1e-3 under.cfl sense.nii\n"
        "  kray sense --backend cuda raw_R4.h5 sense.cfl",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    if ((r = kc_check_output("sense", out_path)) != 0) return r;
    if (g_path && (r = kc_check_output("sense", g_path)) != 0) return r;
    if (g_path && cg) return kc_usage("sense", "--gfactor-out needs the direct solve (drop --cg)");
    if (!kc_mri_is_ismrmrd(in_path) && (r = kc_check_input("sense", in_path)) != 0) return r;
    if (accel < 0 || (accel > 0 && (offset < 0 || offset >= accel)))
        return kc_usage("sense", "--accel %d with --first-line %d: give R >= 1 and 0 <= first "
                                 "line < R, or R = 0 to take the lines from the data",
                        accel, offset);
    /* ctx: the solve (CPU or CUDA); hctx: host-side work (ESPIRiT, whitening, masks) */
    kr_ctx *ctx = NULL, *hctx = NULL;
    if ((r = kc_make_ctx("sense", &c, &ctx)) != 0) return r;
    const int gpu = kr_ctx_backend(ctx) == KR_BACKEND_CUDA;
    {
        kc_common hc = c;
        if (hc.backend != (int)KR_BACKEND_CPU_SERIAL) hc.backend = (int)KR_BACKEND_CPU;
        if ((r = kc_make_ctx("sense", &hc, &hctx)) != 0) {
            kr_ctx_destroy(ctx);
            return r;
        }
    }
    kc_mri_input in;
    kr_array *psi = NULL, *maps = NULL, *img = NULL, *g = NULL, *dk = NULL, *dimg = NULL,
             *dg = NULL, *b = NULL, *wk = NULL, *wm = NULL, *w = NULL;
    uint8_t *use = NULL;
    kr_sense_plan *plan = NULL;
    kr_linop *E = NULL, *N = NULL;
    kr_status s = KR_OK;
    double t0 = 0, t1 = 0;
    int lattice_r = 0, iterations = 0;
    kr_sense_info info;
    memset(&info, 0, sizeof info);
    if ((r = kc_mri_load("sense", in_path, dataset, repetition, 0, &in)) != 0) goto done;
    const int64_t nx = in.kspace->dims[0], ny = in.kspace->dims[1], nc = in.kspace->dims[2];
    int64_t want[3] = {nx, ny, nc}, d2[2] = {nx, ny};
    if (psi_path && (r = kc_mri_read_psi("sense", psi_path, nc, &psi)) != 0) goto done;
    if (!psi && in.psi && !no_psi) {
        psi = in.psi;
        in.psi = NULL;
    }
    r = kc_mri_maps("sense", hctx, &in, maps_path, want, kernel, calib, crop, maps_out, &maps);
    if (r != 0) goto done;
    use = malloc((size_t)ny);
    if (!use) {
        s = KR_ERR_OOM_HOST;
        goto fail;
    }
    kc_sense_lines(&in, ny, accel, offset, all || cg, use, &lattice_r);
    s = kr_array_create(&img, KR_C64, 2, d2, KR_HOST, NULL);
    if (s == KR_OK && g_path) s = kr_array_create(&g, KR_F32, 2, d2, KR_HOST, NULL);
    if (s != KR_OK) goto fail;
    if (cg) {
        /* CG-SENSE with whitened data and maps */
        const kr_loc loc = gpu ? KR_DEVICE : KR_HOST;
        s = kr_array_clone(&wk, in.kspace, KR_HOST, NULL);
        if (s == KR_OK) s = kr_array_clone(&wm, maps, KR_HOST, NULL);
        if (s == KR_OK && psi) {
            s = kr_noise_whitener(psi, &w);
            if (s == KR_OK) s = kr_coil_apply(hctx, wk, 2, w);
            if (s == KR_OK) s = kr_coil_apply(hctx, wm, 2, w);
        }
        if (s == KR_OK) s = kr_cartesian_undersample(hctx, wk, use);
        if (s == KR_OK) s = kr_sense_linop_create(&E, ctx, wm, use, loc);
        if (s == KR_OK) s = kr_linop_normal_op(&N, E);
        if (s == KR_OK && gpu) s = kr_array_clone(&dk, wk, KR_DEVICE, ctx);
        if (s == KR_OK) s = kr_array_create(&b, KR_C64, 2, d2, loc, ctx);
        if (s == KR_OK) s = kr_array_create(&dimg, KR_C64, 2, d2, loc, ctx);
        if (s != KR_OK) goto fail;
        t0 = kr_time_now();
        s = kr_linop_adjoint(E, gpu ? dk : wk, b);
        kr_solve_opts so;
        kr_solve_opts_default(&so);
        so.max_iter = iters;
        so.tol = tol;
        so.lambda = lambda;
        so.show_progress = !c.quiet;
        kr_solve_info si;
        if (s == KR_OK) s = kr_cg(ctx, N, b, dimg, &so, &si);
        if (s == KR_OK) s = kr_array_copy(img, dimg, ctx);
        t1 = kr_time_now();
        if (s != KR_OK) goto fail;
        iterations = si.iterations;
    } else {
        kr_sense_opts o;
        kr_sense_opts_default(&o);
        o.lines = use;
        o.lambda = lambda;
        o.psi = psi;
        s = kr_sense_plan_create(&plan, ctx, maps, &o);
        if (s != KR_OK) goto fail;
        if (gpu) {
            s = kr_array_clone(&dk, in.kspace, KR_DEVICE, ctx);
            if (s == KR_OK) s = kr_array_create(&dimg, KR_C64, 2, d2, KR_DEVICE, ctx);
            if (s == KR_OK && g) s = kr_array_create(&dg, KR_F32, 2, d2, KR_DEVICE, ctx);
            if (s != KR_OK) goto fail;
        }
        t0 = kr_time_now();
        s = kr_sense_execute(plan, gpu ? dk : in.kspace, gpu ? dimg : img, gpu ? dg : g);
        if (s == KR_OK && gpu) s = kr_array_copy(img, dimg, ctx);
        if (s == KR_OK && gpu && g) s = kr_array_copy(g, dg, ctx);
        t1 = kr_time_now();
        if (s == KR_OK) s = kr_sense_plan_info(plan, &info);
        if (s != KR_OK) goto fail;
    }
    if ((r = kc_mri_write_image("sense", out_path, img, magnitude)) != 0) goto done;
    if (g && (r = kc_mri_write("sense", g_path, g)) != 0) goto done;
    {
        int64_t nl = kr_cartesian_count(use, ny, 0xff);
        const char *method = cg ? "cg" : info.method == KR_SENSE_LATTICE ? "lattice" : "general";
        if (c.json) {
            const int64_t dims[3] = {nx, ny, nc};
            kc_jo j;
            kc_jo_begin(&j);
            kc_jo_str(&j, "tool", "sense");
            kc_jo_str(&j, "input", in_path);
            kc_jo_ints(&j, "dims", 3, dims);
            kc_jo_str(&j, "method", method);
            kc_jo_int(&j, "accel", cg ? 0 : info.accel);
            kc_jo_int(&j, "lines", nl);
            kc_jo_num(&j, "lambda", lambda);
            kc_jo_str(&j, "backend", kr_backend_name(kr_ctx_backend(ctx)));
            kc_jo_int(&j, "iterations", iterations);
            kc_jo_int(&j, "singular", info.singular);
            kc_jo_num(&j, "time_ms", 1e3 * (t1 - t0));
            kc_jo_end(&j);
        } else if (c.verbose) {
            char tb[32];
            kc_note("sense", "%s, %lld of %lld lines (R %d), %s in %s", method,
                    (long long)nl, (long long)ny, lattice_r, kr_backend_name(kr_ctx_backend(ctx)),
                    kc_fmt_seconds(t1 - t0, tb, sizeof tb));
        }
    }
    goto done;
fail:
    r = kc_fail("sense", s);
done:
    kr_sense_plan_destroy(plan);
    kr_linop_destroy(N);
    kr_linop_destroy(E);
    kc_mri_free(&in);
    free(use);
    kr_array_destroy(psi);
    kr_array_destroy(maps);
    kr_array_destroy(img);
    kr_array_destroy(g);
    kr_array_destroy(dk);
    kr_array_destroy(dimg);
    kr_array_destroy(dg);
    kr_array_destroy(b);
    kr_array_destroy(wk);
    kr_array_destroy(wm);
    kr_array_destroy(w);
    kr_ctx_destroy(hctx);
    kr_ctx_destroy(ctx);
    return r;
}
