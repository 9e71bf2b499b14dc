/* kray recon: Cartesian multi-coil reconstruction (centred FFT, RSS / optimal coil combination),
 * with optional simulated undersampling and coil noise; reads k-space arrays or ISMRMRD files. */
#include "mri_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- kray recon -------------------------------------------------------------------------------
 */
enum { KC_COMB_RSS, KC_COMB_OPTIMAL, KC_COMB_COILS };

int kc_tool_recon(int argc, char **argv)
{
    const char *in_path = NULL, *out_path = NULL, *maps_path = NULL, *psi_path = NULL, *kout = NULL,
               *maps_out = NULL, *dataset = NULL, *extract = NULL;
    int combine = 0, accel = 1, offset = 0, acs = 0, repetition = 0, keep_os = 0, kernel = 6,
        calib = 24, magnitude = 0;
    int accel_given = 0;
    double noise = 0, crop = 0.8;
    int64_t seed = 1;
    const kc_opt opts[] = {
        {"combine", 0, KC_CHOICE, &combine, "rss", "MODE",
         "coil combination: rss (root-sum-of-squares, f32), optimal (S^H Psi^-1 I / S^H Psi^-1 "
         "S with --maps or ESPIRiT maps, c64) or coils (the coil images, c64 [x,y,coil])",
         "rss|optimal|coils", 0, 0, NULL},
        {"maps", 0, KC_STRING, &maps_path, NULL, "FILE",
         "optimal: coil sensitivities c64 [x,y,coil] (default: ESPIRiT from the fully sampled "
         "centre of k-space)",
         NULL, 0, 0, NULL},
        KC_MRI_PSI_OPT(psi_path),
        {"accel", 'R', KC_INT, &accel, "1", "R",
         "simulate Cartesian undersampling: keep every R-th phase-encode line (axis 1)", NULL, 0, 0,
         &accel_given},
        {"first-line", 0, KC_INT, &offset, "0", "N", "first kept line (0 .. R-1)", NULL, 0, 0, NULL},
        {"acs", 0, KC_INT, &acs, "0", "N", "also keep N central autocalibration lines", NULL, 0, 0,
         NULL},
        {"noise", 0, KC_DOUBLE, &noise, "0", "SIGMA",
         "simulate coil noise: add complex Gaussian noise of covariance SIGMA^2 Psi per sample",
         NULL, 0, 1e30, NULL},
        {"seed", 0, KC_INT64, &seed, "1", "N",
         "noise seed (counter-based: same values on every "
         "machine and thread count)",
         NULL, 0, 0, NULL},
        {"kspace-out", 0, KC_STRING, &kout, NULL, "FILE",
         "write the (undersampled, noisy) k-space; .h5 writes ISMRMRD (with a noise scan when "
         "--noise is set)",
         NULL, 0, 0, NULL},
        KC_MRI_MAPS_OUT_OPT(maps_out),
        {"magnitude", 0, KC_FLAG, &magnitude, NULL, NULL, "optimal: write |image| as f32", NULL, 0,
         0, NULL},
        KC_MRI_ESPIRIT_OPTS(kernel, calib, crop, dataset),
        {"repetition", 0, KC_INT, &repetition, "0", "N", "ISMRMRD: repetition to reconstruct", NULL,
         0, 0, NULL},
        {"keep-oversampling", 0, KC_FLAG, &keep_os, NULL, NULL,
         "ISMRMRD: keep the readout oversampling (default: crop to the recon matrix)", NULL, 0, 0,
         NULL},
        {"extract-image", 0, KC_STRING, &extract, NULL, "VAR",
         "ISMRMRD: write the file's stored image VAR (e.g. 'cpp' from "
         "ismrmrd_recon_cartesian_2d) instead of reconstructing",
         NULL, 0, 0, NULL},
        {"offset", 0, KC_RENAMED, NULL, NULL, "--first-line", "--offset is the byte offset of a raw input", NULL, 0, 0, NULL},
        {"", 'c', KC_RENAMED, NULL, NULL, "--combine", NULL, NULL, 0, 0, NULL},
        {"", 'm', KC_RENAMED, NULL, NULL, "--maps", NULL, NULL, 0, 0, NULL},
        {0}};
    const kc_arg args[] = {{"kspace", &in_path,
                            "k-space c64 [x, y, coil] (BART [x, y, 1, coil] too) or an ISMRMRD "
                            "file (.h5, .mrd)",
                            0},
                           {"output", &out_path, "image file (format from the extension)", 0},
                           {0}};
    const kc_spec spec = {
        "recon",
        "Reconstruct Cartesian multi-coil k-space: coil images = centred unitary inverse FFT\n"
        "over x and y (k-space index j holds k = j - floor(N/2)), then RSS or the optimal\n"
        "(Roemer) combination. Lines that were not acquired are zero (zero-filled recon).\n"
        "--accel/--acs/--noise simulate undersampling and coil noise first (for SENSE, see\n"
        "kray sense). ISMRMRD input: one encoding space, 2-D Cartesian; the readout\n"
        "oversampling is removed, noise scans give Psi.",
        opts,
        args,
        KC_HOST,
        "Examples:\n  kray recon kspace.cfl rss.nii\n"
        "  kray recon --combine optimal --maps maps.cfl kspace.cfl img.cfl\n"
        "  kray recon --accel 4 --acs 24 --noise 0.01 --kspace-out under.cfl k.cfl alias.nii\n"
        "  kray recon raw.h5 rss.png",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    if ((r = kc_check_output("recon", out_path)) != 0) return r;
    if (accel < 1 || offset < 0 || offset >= accel)
        return kc_usage("recon", "--accel %d with --first-line %d: give R >= 1 and 0 <= first "
                                 "line < R", accel, offset);
    if (extract) {
        if (!kc_mri_is_ismrmrd(in_path))
            return kc_usage("recon", "--extract-image needs an ISMRMRD input (.h5), got '%s'",
                            in_path);
        kr_array *img = NULL;
        kr_status s = kr_ismrmrd_read_image(in_path, dataset, extract, 0, &img);
        if (s != KR_OK) return kc_fail("recon", s);
        r = kc_mri_write("recon", out_path, img);
        kr_array_destroy(img);
        return r;
    }
    if (!kc_mri_is_ismrmrd(in_path) && (r = kc_check_input("recon", in_path)) != 0) return r;
    /* host-only tool: a CPU context whatever --backend says */
    kr_ctx *ctx = NULL;
    if (c.backend != (int)KR_BACKEND_CPU_SERIAL) c.backend = (int)KR_BACKEND_CPU;
    if ((r = kc_make_ctx("recon", &c, &ctx)) != 0) return r;
    kc_mri_input in;
    kr_array *psi = NULL, *maps = NULL, *ci = NULL, *out = NULL;
    kr_status s = KR_OK;
    if ((r = kc_mri_load("recon", in_path, dataset, repetition, keep_os, &in)) != 0) goto done;
    const int64_t nx = in.kspace->dims[0], ny = in.kspace->dims[1], nc = in.kspace->dims[2];
    int64_t want[3] = {nx, ny, nc};
    if (psi_path && (r = kc_mri_read_psi("recon", psi_path, nc, &psi)) != 0) goto done;
    if (!psi && in.psi) {
        psi = in.psi;
        in.psi = NULL;
    }
    /* simulation: undersampling, noise */
    if (accel_given || acs > 0) {
        uint8_t *lines = malloc((size_t)ny);
        if (!lines) {
            r = kc_fail("recon", KR_ERR_OOM_HOST);
            goto done;
        }
        s = kr_cartesian_lines(lines, ny, accel, offset, acs);
        if (s == KR_OK) s = kr_cartesian_undersample(ctx, in.kspace, lines);
        if (s == KR_OK) {
            free(in.lines);
            in.lines = lines;
        } else {
            free(lines);
            goto fail;
        }
    }
    if (noise > 0) {
        s = kr_noise_add(ctx, in.kspace, 2, psi, noise, (uint64_t)seed);
        if (s == KR_OK) s = kr_cartesian_undersample(ctx, in.kspace, in.lines);
        if (s != KR_OK) goto fail;
    }
    if (kout) {
        if (kc_mri_is_ismrmrd(kout)) {
            kr_ismrmrd_write_opts wo;
            kr_ismrmrd_write_opts_default(&wo);
            wo.accel = accel_given && accel > 1 ? accel : (in.accel > 1 ? in.accel : 1);
            kr_array *ns = NULL;
            if (noise > 0) {
                int64_t dn[2] = {256, nc};
                s = kr_array_create(&ns, KR_C64, 2, dn, KR_HOST, NULL);
                if (s == KR_OK) s = kr_noise_add(ctx, ns, 1, psi, noise, (uint64_t)seed + 1);
            }
            if (s == KR_OK) s = kr_ismrmrd_write(kout, &wo, in.kspace, in.lines, ns);
            kr_array_destroy(ns);
            if (s != KR_OK) goto fail;
        } else {
            if ((r = kc_check_output("recon", kout)) != 0) goto done;
            if ((r = kc_mri_write("recon", kout, in.kspace)) != 0) goto done;
        }
    }
    s = kr_array_create_like(&ci, in.kspace, KR_HOST, NULL);
    if (s == KR_OK) s = kr_coil_images(ctx, in.kspace, ci);
    if (s != KR_OK) goto fail;
    int64_t d2[2] = {nx, ny};
    if (combine == KC_COMB_COILS) {
        r = kc_mri_write("recon", out_path, ci);
        goto done;
    }
    if (combine == KC_COMB_RSS) {
        s = kr_array_create(&out, KR_F32, 2, d2, KR_HOST, NULL);
        if (s == KR_OK) s = kr_coil_rss(ctx, ci, out);
        if (s != KR_OK) goto fail;
        r = kc_mri_write("recon", out_path, out);
        goto done;
    }
    r = kc_mri_maps("recon", ctx, &in, maps_path, want, kernel, calib, crop, maps_out, &maps);
    if (r != 0) goto done;
    s = kr_array_create(&out, KR_C64, 2, d2, KR_HOST, NULL);
    if (s == KR_OK) s = kr_coil_combine(ctx, ci, maps, psi, out);
    if (s != KR_OK) goto fail;
    r = kc_mri_write_image("recon", out_path, out, magnitude);
    goto done;
fail:
    r = kc_fail("recon", s);
done:
    kc_mri_free(&in);
    kr_array_destroy(psi);
    kr_array_destroy(maps);
    kr_array_destroy(ci);
    kr_array_destroy(out);
    kr_ctx_destroy(ctx);
    return r;
}
