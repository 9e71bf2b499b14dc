/* kray sim: Bloch simulation of a Cartesian gradient-echo or spin-echo acquisition of a T1/T2/PD
 * object, optionally with an MRXCAT coil array. */
#include "cli.h"

#include "kray/coils.h"
#include "kray/sim.h"

#include <stdlib.h>
#include <string.h>

typedef struct kc_sim_args {
    const char *object, *df, *image, *out, *seqfile;
    int size, decimate, sub, nfreq, lorentz, seq, spoil, dummy, coils, per, cnorm, nofast, ipt;
    int shots, order;
    double voxel, slice, spread, sine_amp, sine_cyc, te, tr, flip, bw, rfdur, fov, rbody;
    kc_dims matrix;
} kc_sim_args;

static kr_status kc_sim_object(const kc_sim_args *a, kr_iso **iso, int64_t *nx, int64_t *ny)
{
    kr_array *tis = NULL, *df = NULL;
    kr_status s;
    if (a->object)
        s = kc_read(a->object, &tis, NULL, kc_image_io());
    else
        s = kr_phantom_mr_2d_grid(&tis, KR_GRID_FFT, a->size, a->size, 1, 1.5);
    if (s == KR_OK && a->df) s = kc_read(a->df, &df, NULL, kc_image_io());
    kr_array *t32 = NULL, *d32 = NULL;
    if (s == KR_OK && tis->dtype != KR_F32 && tis->dtype != KR_F64)
        s = kr_array_astype(&t32, tis, KR_F32);
    if (s == KR_OK && df && df->dtype != KR_F32 && df->dtype != KR_F64)
        s = kr_array_astype(&d32, df, KR_F32);
    if (s == KR_OK) {
        kr_iso_opts o;
        kr_iso_opts_default(&o);
        o.voxel_mm[0] = o.voxel_mm[1] = a->voxel;
        o.voxel_mm[2] = a->slice;
        o.decimate = a->decimate;
        o.sub[0] = o.sub[1] = a->sub;
        o.nfreq = a->nfreq;
        o.spread_hz = a->spread;
        o.spread = a->lorentz ? KR_SPREAD_LORENTZ : KR_SPREAD_UNIFORM;
        o.sine_amp_hz = a->sine_amp;
        o.sine_cycles = a->sine_cyc;
        s = kr_iso_from_tissue(iso, t32 ? t32 : tis, d32 ? d32 : df, &o);
        *nx = (tis->dims[0] + a->decimate - 1) / a->decimate;
        *ny = (tis->ndim > 1 ? (tis->dims[1] + a->decimate - 1) / a->decimate : 1);
    }
    kr_array_destroy(tis);
    kr_array_destroy(df);
    kr_array_destroy(t32);
    kr_array_destroy(d32);
    return s;
}

int kc_tool_sim(int argc, char **argv)
{
    kc_sim_args a;
    memset(&a, 0, sizeof a);
    const kc_opt opts[] = {
        {"object", 0, KC_STRING, &a.object, NULL, "FILE",
         "T1 (ms), T2 (ms), PD maps [nx, ny, 3] (as 'kray phantom --kind mr --grid fft'); "
         "default: the built-in MR Shepp-Logan",
         NULL, 0, 0, NULL},
        {"size", 'n', KC_INT, &a.size, "128", "N", "size of the built-in phantom (NxN)", NULL, 2,
         8192, NULL},
        {"df", 0, KC_STRING, &a.df, NULL, "FILE", "off-resonance map in Hz [nx, ny] (optional)",
         NULL, 0, 0, NULL},
        {"voxel", 0, KC_DOUBLE, &a.voxel, "1", "MM", "voxel size of the maps along x and y", NULL,
         1e-6, 1e4, NULL},
        {"thickness", 0, KC_DOUBLE, &a.slice, "5", "MM",
         "slice thickness (isochromats spread along z "
         "with --sub)",
         NULL, 1e-6, 1e4, NULL},
        {"decimate", 0, KC_INT, &a.decimate, "1", "D",
         "keep every D-th voxel along x and y (1, 2, 4)", NULL, 1, 4, NULL},
        {"sub", 0, KC_INT, &a.sub, "1", "N", "isochromats per voxel along x and y", NULL, 1, 16,
         NULL},
        {"nfreq", 0, KC_INT, &a.nfreq, "1", "N", "frequency offsets per sub-position", NULL, 1,
         4096, NULL},
        {"spread", 0, KC_DOUBLE, &a.spread, "0", "HZ",
         "intra-voxel frequency spread: width (uniform) or half width (--lorentz)", NULL, 0, 1e6,
         NULL},
        {"lorentz", 0, KC_FLAG, &a.lorentz, NULL, NULL,
         "Lorentzian frequency spread (T2' decay) instead of uniform", NULL, 0, 0, NULL},
        {"sine-amp", 0, KC_DOUBLE, &a.sine_amp, "0", "HZ",
         "sinusoidal off-resonance along y: amplitude", NULL, -1e6, 1e6, NULL},
        {"sine-cycles", 0, KC_DOUBLE, &a.sine_cyc, "1", "C",
         "sinusoidal off-resonance: cycles across the FOV", NULL, -1e4, 1e4, NULL},
        {"seq", 0, KC_CHOICE, &a.seq, "gre", "S",
         "gradient echo, spin echo (Cartesian) or single-echo spin-echo EPI", "gre|se|se-epi", 0,
         0, NULL},
        {"seq-file", 0, KC_STRING, &a.seqfile, NULL, "FILE",
         "simulate a Pulseq 1.4 .seq file instead of --seq (output: the ADC samples [n, 1, 1, "
         "coils] in time order, or, with --matrix NxM, ADC event j as line j)",
         NULL, 0, 0, NULL},
        {"te", 0, KC_DOUBLE, &a.te, "0", "MS", "echo time (0: 10 gre/se, 120 se-epi)", NULL, 0, 1e5,
         NULL},
        {"tr", 0, KC_DOUBLE, &a.tr, "0", "MS", "repetition time (0: 100 gre/se, 3000 se-epi)", NULL,
         0, 1e6, NULL},
        {"shots", 0, KC_INT, &a.shots, "1", "N",
         "se-epi: shots (Mayo Sarmiento (2018)'s height/ETL; must divide the lines)", NULL, 1, 65536, NULL},
        {"order", 0, KC_CHOICE, &a.order, "interleaved", "O",
         "se-epi line order: interleaved (shot s: lines s, s + shots, ...) or sequential "
         "(segments)",
         "interleaved|sequential", 0, 0, NULL},
        {"flip", 0, KC_DOUBLE, &a.flip, "90", "DEG", "excitation flip angle", NULL, -1e4, 1e4,
         NULL},
        {"bw", 0, KC_DOUBLE, &a.bw, "0", "HZ",
         "readout bandwidth per pixel (0: 400 gre/se, 1500 se-epi)", NULL, 0, 1e7, NULL},
        {"rf-dur", 0, KC_DOUBLE, &a.rfdur, "200", "US", "hard-pulse duration", NULL, 1e-3, 1e6,
         NULL},
        {"spoil", 0, KC_CHOICE, &a.spoil, "rf", "M",
         "GRE spoiling: none (balanced), ideal (Mxy := 0), gradient, rf (RF + gradient)",
         "none|ideal|gradient|rf", 0, 0, NULL},
        {"dummy", 0, KC_INT, &a.dummy, "-1", "N",
         "preparatory TRs (shots) without acquisition (-1: 0 gre/se, 1 se-epi)", NULL, -1,
         1000000, NULL},
        {"matrix", 0, KC_DIMS, &a.matrix, NULL, "NxM",
         "acquired matrix (readout x phase); default: the object's size", NULL, 1, 65536, NULL},
        {"fov", 0, KC_DOUBLE, &a.fov, "0", "MM", "field of view, both axes (0 = voxel x size)",
         NULL, 0, 1e6, NULL},
        {"coils", 'c', KC_INT, &a.coils, "0", "N",
         "MRXCAT loop array of N coils (0 = one ideal coil of sensitivity 1)", NULL, 0, 4096, NULL},
        {"per-ring", 0, KC_INT, &a.per, "8", "N", "coils per ring at most", NULL, 1, 4096, NULL},
        {"rbody", 0, KC_DOUBLE, &a.rbody, "300", "MM", "radius of the coil array", NULL, 1e-6, 1e6,
         NULL},
        {"coil-norm", 0, KC_CHOICE, &a.cnorm, "rss", "N",
         "coil sensitivities: rss = 1 at the centre, or none (microtesla per ampere)", "rss|none",
         0, 0, NULL},
        {"image-out", 0, KC_STRING, &a.image, NULL, "FILE",
         "also write the images: centred inverse FFT / (nx ny) of each coil's k-space", NULL, 0, 0,
         NULL},
        {"accurate", 0, KC_FLAG, &a.nofast, NULL, NULL,
         "CUDA: accurate sin/cos/exp instead of the hardware approximations", NULL, 0, 0, NULL},
        {"iso-per-thread", 0, KC_INT, &a.ipt, "0", "K", "CUDA: isochromats per thread (0 = auto)",
         NULL, 0, 4, NULL},
        {"slice", 0, KC_RENAMED, NULL, NULL, "--thickness", "--slice is the index of a slice to show", NULL, 0, 0, NULL},
        {"image", 0, KC_ALIAS, NULL, NULL, "image-out", NULL, NULL, 0, 0, NULL},
        {"no-fast-math", 0, KC_ALIAS, NULL, NULL, "accurate", NULL, NULL, 0, 0, NULL},
        {"", 'o', KC_RENAMED, NULL, NULL, "--object", NULL, NULL, 0, 0, NULL},
        {"", 's', KC_RENAMED, NULL, NULL, "--seq", NULL, NULL, 0, 0, NULL},
        {"", 'm', KC_RENAMED, NULL, NULL, "--matrix", NULL, NULL, 0, 0, NULL},
        {0}};
    const kc_arg args[] = {
        {"kspace", &a.out, "k-space [nx, ny, 1, coils], complex (readout along x)", 0}, {0}};
    const kc_spec spec = {
        "sim",
        "Simulate the Bloch equations for every isochromat of a T1/T2/PD object through a 2-D\n"
        "Cartesian gradient echo, spin echo or spin-echo EPI (odd echoes reversed and sorted\n"
        "into Cartesian k-space), or a Pulseq file, with hard pulses (exact rotations and relaxation\n"
        "per piecewise-constant step), summing the transverse magnetisation into k-space, "
        "weighted\n"
        "by Biot-Savart coil sensitivities with --coils. k-space sample (m, j) is kx = (m - nx/2)\n"
        "/ FOV, ky = (j - ny/2) / FOV, so a centred inverse FFT gives the image on the fft grid\n"
        "(--image-out). A 90 degree pulse of phase 0 leaves Mxy = i M0. With --json a line with the\n"
        "timing and throughput (isochromat-steps per second) goes to stdout.",
        opts,
        args,
        KC_JSON,
        "Examples:\n  kray sim --te 5 --tr 20 --flip 30 --image-out img.nii k.cfl\n"
        "  kray phantom --kind mr --grid fft --size 256 obj.nii\n"
        "  kray sim --object obj.nii --seq se --te 30 --tr 1000 --coils 16 --per-ring 6 k.cfl\n"
        "  kray sim --seq se-epi --size 64 --shots 2 --order sequential --image-out epi.nii k.cfl\n"
        "  kray sim --seq-file gre.seq --matrix 64x64 --image-out img.nii k.cfl",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    if ((r = kc_check_output("sim", a.out)) != 0) return r;
    if (a.image && (r = kc_check_output("sim", a.image)) != 0) return r;
    if (a.object && (r = kc_check_input("sim", a.object)) != 0) return r;
    if (a.df && (r = kc_check_input("sim", a.df)) != 0) return r;
    if (a.decimate == 3) return kc_usage("sim", "--decimate takes 1, 2 or 4");
    if (a.ipt == 3) return kc_usage("sim", "--iso-per-thread takes 0, 1, 2 or 4");
    if (a.matrix.n > 2) return kc_usage("sim", "--matrix takes N or NxM");
    if (a.seqfile && a.image && !a.matrix.n)
        return kc_usage("sim", "--image-out with --seq-file needs --matrix NxM");

    kr_ctx *ctx = NULL;
    kr_iso *iso = NULL;
    kr_seq *seq = NULL;
    kr_coil *coils = NULL;
    kr_array *sens = NULL, *k = NULL, *kd = NULL, *img = NULL;
    kr_sim_plan *plan = NULL;
    int rc = 0;
    kr_status s;
    int64_t ox = 0, oy = 0;
    if ((rc = kc_make_dist_ctx("sim", &c, &ctx)) != 0) return rc;
    if ((s = kc_sim_object(&a, &iso, &ox, &oy)) != KR_OK) goto fail;
    const int epi = a.seq == 2;
    kr_seq_cart_opts so;
    kr_seq_cart_opts_default(&so);
    so.nx = a.matrix.n ? a.matrix.d[0] : ox;
    so.ny = a.matrix.n == 2 ? a.matrix.d[1] : a.matrix.n == 1 ? a.matrix.d[0] : oy;
    double vx = a.voxel * a.decimate;
    so.fov_x_mm = a.fov > 0 ? a.fov : vx * (double)ox;
    so.fov_y_mm = a.fov > 0 ? a.fov : vx * (double)oy;
    so.te_ms = a.te > 0 ? a.te : epi ? 120.0 : 10.0;
    so.tr_ms = a.tr > 0 ? a.tr : epi ? 3000.0 : 100.0;
    so.flip_deg = a.flip;
    so.bw_hz_px = a.bw > 0 ? a.bw : epi ? 1500.0 : 400.0;
    so.rf_dur_s = a.rfdur * 1e-6;
    so.spoil = (kr_spoil)(a.spoil == 0   ? KR_SPOIL_NONE
                          : a.spoil == 1 ? KR_SPOIL_IDEAL
                          : a.spoil == 2 ? KR_SPOIL_GRADIENT
                                         : KR_SPOIL_RF_GRADIENT);
    so.ndummy = a.dummy >= 0 ? a.dummy : epi ? 1 : 0;
    int sort = 0; /* samples -> Cartesian k-space by the ADC labels */
    if (a.seqfile) {
        if ((s = kr_seq_read_pulseq(&seq, a.seqfile, NULL)) != KR_OK) goto fail;
        sort = a.matrix.n > 0;
    } else if (epi) {
        kr_seq_epi_opts eo;
        kr_seq_epi_opts_default(&eo);
        eo.nx = so.nx;
        eo.ny = so.ny;
        eo.fov_x_mm = so.fov_x_mm;
        eo.fov_y_mm = so.fov_y_mm;
        eo.te_ms = so.te_ms;
        eo.tr_ms = so.tr_ms;
        eo.flip_deg = so.flip_deg;
        eo.bw_hz_px = so.bw_hz_px;
        eo.rf_dur_s = so.rf_dur_s;
        eo.shots = a.shots;
        eo.order = a.order == 0 ? KR_EPI_INTERLEAVED : KR_EPI_SEQUENTIAL;
        eo.ndummy = so.ndummy;
        if ((s = kr_seq_se_epi(&seq, &eo)) != KR_OK) goto fail;
        sort = 1;
    } else if ((s = (a.seq == 0 ? kr_seq_gre(&seq, &so) : kr_seq_se(&seq, &so))) != KR_OK) {
        goto fail;
    }
    kr_seq_info sinfo;
    if ((s = kr_seq_get_info(seq, &sinfo)) != KR_OK) goto fail;
    int nc = a.coils > 0 ? a.coils : 1;
    if (a.coils > 0) {
        coils = calloc((size_t)a.coils, sizeof *coils);
        double *xyz = malloc((size_t)iso->n * 3 * sizeof *xyz);
        if (!coils || !xyz) {
            free(xyz);
            s = KR_ERR_OOM_HOST;
            goto fail;
        }
        int nrings;
        s = kr_coil_layout_mrxcat(a.coils, a.per, a.rbody, coils, &nrings, NULL);
        for (int64_t i = 0; i < iso->n && s == KR_OK; i++) {
            xyz[3 * i] = iso->x_mm[i];
            xyz[3 * i + 1] = iso->y_mm[i];
            xyz[3 * i + 2] = iso->z_mm[i];
        }
        kr_coil_map_opts mo;
        kr_coil_map_opts_default(&mo);
        mo.norm = a.cnorm == 0 ? KR_COIL_NORM_RSS_CENTRE : KR_COIL_NORM_NONE;
        if (s == KR_OK) s = kr_coil_sens_points(ctx, coils, a.coils, xyz, iso->n, &mo, &sens);
        free(xyz);
        if (s != KR_OK) goto fail;
    }
    kr_sim_opts sim_o;
    kr_sim_opts_default(&sim_o);
    sim_o.fast_math = !a.nofast;
    sim_o.iso_per_thread = a.ipt;
    if ((s = kr_sim_plan_create(&plan, ctx, seq, &sim_o)) != KR_OK ||
        (s = kr_sim_set_object(plan, iso, sens)) != KR_OK)
        goto fail;
    const int cart = !a.seqfile || sort;
    const int64_t dims[4] = {cart && !sort ? so.nx : sinfo.nsamples, cart && !sort ? so.ny : 1, 1,
                             nc};
    const int dev = kr_ctx_backend(ctx) == KR_BACKEND_CUDA;
    if ((s = kr_array_create(&k, KR_C64, 4, dims, KR_HOST, NULL)) != KR_OK) goto fail;
    if (dev && (s = kr_array_create(&kd, KR_C64, 4, dims, KR_DEVICE, ctx)) != KR_OK) goto fail;
    double t0 = kr_time_now();
    if ((s = kr_sim_execute(plan, dev ? kd : k)) != KR_OK) goto fail;
    double t1 = kr_time_now();
    if (dev && (s = kr_array_copy(k, kd, ctx)) != KR_OK) goto fail;
    if (sort) {
        kr_array *ks = NULL;
        if ((s = kr_seq_sort_kspace(seq, k, so.nx, so.ny, &ks)) != KR_OK) goto fail;
        kr_array_destroy(k);
        k = ks;
    }
    kr_io_opts io; /* Cartesian k-space and the image share the image's axes */
    kr_io_opts_default(&io);
    io.axes = KR_IO_AXES_IMAGE;
    if ((s = kc_write(a.out, k, &io)) != KR_OK) goto fail;
    if (a.image) {
        if ((s = kr_array_create(&img, KR_C64, 4, k->dims, KR_HOST, NULL)) != KR_OK ||
            (s = kr_fft(NULL, k, img, 0x3, KR_FFT_BACKWARD, KR_FFT_CENTERED)) != KR_OK)
            goto fail;
        float *f = img->data;
        const double sc = 1.0 / ((double)so.nx * (double)so.ny);
        for (int64_t i = 0; i < 2 * kr_array_numel(img); i++)
            f[i] = (float)(f[i] * sc);
        if ((s = kc_write(a.image, img, &io)) != KR_OK) goto fail;
    }
    kr_sim_info info;
    kr_sim_get_info(plan, &info);
    if (c.json) {
        kc_jo j;
        kc_jo_begin(&j);
        kc_jo_str(&j, "tool", "sim");
        kc_jo_str(&j, "backend", kr_backend_name(kr_ctx_backend(ctx)));
        kc_jo_str(&j, "sequence",
                  a.seqfile ? "pulseq" : a.seq == 0 ? "gre" : a.seq == 1 ? "se" : "se-epi");
        kc_jo_int(&j, "isochromats", info.niso);
        kc_jo_int(&j, "coils", info.ncoils);
        kc_jo_int(&j, "samples", info.nsamples);
        kc_jo_int(&j, "steps", info.nsteps);
        kc_jo_int(&j, "intervals", info.nintervals);
        kc_jo_num(&j, "seconds", t1 - t0);
        kc_jo_num(&j, "iso_steps_per_s", t1 > t0 ? info.iso_steps / (t1 - t0) : 0.0);
        kc_jo_end(&j);
    } else if (c.verbose && !c.quiet) {
        char tb[32];
        kc_note("sim", "%lld isochromats, %lld samples x %d coils in %s (%.3g "
                "isochromat-steps/s)",
                (long long)info.niso, (long long)info.nsamples, info.ncoils,
                kc_fmt_seconds(t1 - t0, tb, sizeof tb), t1 > t0 ? info.iso_steps / (t1 - t0) : 0.0);
    }
    goto done;
fail:
    rc = kc_fail("sim", s);
done:
    kr_sim_plan_destroy(plan);
    kr_array_destroy(img);
    kr_array_destroy(kd);
    kr_array_destroy(k);
    kr_array_destroy(sens);
    free(coils);
    kr_seq_destroy(seq);
    kr_iso_destroy(iso);
    kr_ctx_destroy(ctx);
    return rc;
}
