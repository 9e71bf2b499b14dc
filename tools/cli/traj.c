/* kray traj: k-space trajectories (Cartesian, radial, golden angle, stacks, koosh ball, and the
 * gradient-limited variable-density spiral). */
#include "cli.h"
#include "kray/traj.h"

#include <string.h>

enum { T_CARTESIAN, T_RADIAL, T_SPIRAL, T_KOOSH };

int kc_tool_traj(int argc, char **argv)
{
    const char *out = NULL;
    int kind = 0, golden = 0, tiny = 0, full = 0, dc = 0, units = 0;
    int64_t samples = 64, spokes = 32, parts = 1, interleaves = 8;
    double os = 1, fov = 160, res = 1.4, gmax = 40, smax = 150, dwell = 4, vd = 2, vd0 = 0;
    kc_dims dims, matrix;
    memset(&dims, 0, sizeof dims);
    memset(&matrix, 0, sizeof matrix);
    const kc_opt opts[] = {
        {"kind", 'k', KC_CHOICE, &kind, "radial", "K",
         "cartesian grid, 2-D radial (stack of stars with --partitions), spiral, koosh (3-D "
         "radial)", "cartesian|radial|spiral|koosh", 0, 0, NULL},
        {"size", 'n', KC_DIMS, &dims, "64x64", "DIMS", "cartesian: grid N, NxM or NxMxP", NULL, 1,
         1 << 20, NULL},
        {"samples", 'x', KC_INT64, &samples, "64", "X",
         "radial, koosh: readout samples per spoke at Nyquist spacing (BART -x)", NULL, 1, 1 << 24,
         NULL},
        {"spokes", 'y', KC_INT64, &spokes, "32", "S", "radial, koosh: spokes (BART -y)", NULL, 1,
         1 << 24, NULL},
        {"oversampling", 'o', KC_DOUBLE, &os, "1", "O",
         "radial, koosh: readout oversampling, X*O samples 1/O apart (BART -o)", NULL, 1, 64,
         NULL},
        {"golden", 'G', KC_FLAG, &golden, NULL, NULL,
         "radial: golden-angle steps pi/phi (BART -G); koosh: 2-D golden means", NULL, 0, 0,
         NULL},
        {"tiny", 0, KC_INT, &tiny, "0", "N", "radial: tiny golden angle pi/(phi+N-1) (BART -s)",
         NULL, 0, 1000, NULL},
        {"full-circle", 'D', KC_FLAG, &full, NULL, NULL,
         "radial: uniform angles over 360 degrees (BART -D)", NULL, 0, 0, NULL},
        {"dc", 0, KC_FLAG, &dc, NULL, NULL,
         "radial, koosh: sample k = 0 on every spoke, positions (i - X/2)/O (BART -c)", NULL, 0,
         0, NULL},
        {"partitions", 0, KC_INT64, &parts, "1", "P",
         "radial, spiral: stack along kz = p - P/2", NULL, 1, 1 << 20, NULL},
        {"fov", 0, KC_DOUBLE, &fov, "160", "MM", "spiral: field of view at the centre (mm)", NULL,
         1e-3, 1e6, NULL},
        {"res", 0, KC_DOUBLE, &res, "1.4", "MM", "spiral: resolution (mm); kmax = 1/(2 res)",
         NULL, 1e-4, 1e6, NULL},
        {"interleaves", 0, KC_INT64, &interleaves, "8", "N", "spiral: interleaves", NULL, 1,
         1 << 20, NULL},
        {"gmax", 0, KC_DOUBLE, &gmax, "40", "MT_M", "spiral: gradient amplitude limit (mT/m)",
         NULL, 1e-3, 1e4, NULL},
        {"smax", 0, KC_DOUBLE, &smax, "150", "T_M_S", "spiral: slew-rate limit (T/m/s)", NULL,
         1e-3, 1e6, NULL},
        {"dwell", 0, KC_DOUBLE, &dwell, "4", "US", "spiral: sampling interval (us)", NULL, 1e-3,
         1e6, NULL},
        {"vd", 0, KC_DOUBLE, &vd, "2", "F",
         "spiral: variable density, FOV falls linearly to fov/F at kmax (1 = uniform)", NULL, 1,
         1e3, NULL},
        {"vd-start", 0, KC_DOUBLE, &vd0, "0", "R",
         "spiral: fraction of kmax sampled at full density before the ramp", NULL, 0, 0.999,
         NULL},
        {"units", 'u', KC_CHOICE, &units, "fov", "U",
         "output k in cycles per FOV (kray, BART), cycles per pixel [-0.5,0.5) or radians "
         "[-pi,pi) (the last two need --matrix)", "fov|pixel|radians", 0, 0, NULL},
        {"matrix", 0, KC_DIMS, &matrix, NULL, "DIMS",
         "image matrix for --units pixel|radians (e.g. 115x115)", NULL, 1, 1 << 24, NULL},
        {"dims", 0, KC_RENAMED, NULL, NULL, "--size", "--dims is the size of a raw input", NULL, 0, 0, NULL},
        {"", 'd', KC_RENAMED, NULL, NULL, "-n", NULL, NULL, 0, 0, NULL},
        {"", 's', KC_RENAMED, NULL, NULL, "--tiny", NULL, NULL, 0, 0, NULL},
        {"", 'c', KC_RENAMED, NULL, NULL, "--dc", NULL, NULL, 0, 0, NULL},
        {"", 'p', KC_RENAMED, NULL, NULL, "--partitions", NULL, NULL, 0, 0, NULL},
        {"", 'i', KC_RENAMED, NULL, NULL, "--interleaves", NULL, NULL, 0, 0, NULL},
        {"", 'm', KC_RENAMED, NULL, NULL, "--matrix", NULL, NULL, 0, 0, NULL},
        {0}};
    const kc_arg args[] = {{"output", &out, "trajectory file, [3, samples, shots(, partitions)]",
                            0},
                           {0}};
    const kc_spec spec = {
        "traj",
        "Write a k-space trajectory [3, samples, shots(, partitions)]: (kx, ky, kz) per sample\n"
        "in cycles per FOV (BART's unit: an N-pixel axis is sampled by k in [-N/2, N/2)).\n"
        "Radial spokes follow `bart traj -r`: spoke s along (sin t, cos t) with t = pi s/S (or\n"
        "2 pi s/S, or golden steps pi/phi), sample i at (i + 1/2 - X/2)/O. The spiral is an\n"
        "Archimedean interleaved design, slew- then amplitude-limited (Glover 1999, Kim and\n"
        "Hargreaves 2003), with a linear variable-density FOV ramp and the sampling limit\n"
        "g <= 1/(gamma FOV dwell); its design (samples, matrix, readout time, limits reached) is\n"
        "printed. .cfl output is a BART trajectory (coordinates in the real parts).",
        opts,
        args,
        KC_JSON | KC_HOST,
        "Examples:\n  kray traj --kind radial -x 64 -y 32 t.cfl          (= bart traj -r -x 64 -y 32)\n"
        "  kray traj --kind radial -x 256 -y 89 -o 2 --golden t.cfl\n"
        "  kray traj --kind spiral --fov 160 --res 1.4 -i 8 --vd 2 spiral.cfl\n"
        "  kray traj --kind koosh -x 128 -y 8000 koosh.npy\n"
        "  kray traj --kind cartesian --size 128x128 cart.cfl",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    if ((r = kc_check_output("traj", out)) != 0) return r;
    if (units != 0 && matrix.n == 0)
        return kc_usage("traj", "--units pixel or radians needs --matrix (the image size)");
    kc_apply_threads(&c);
    kr_dtype dt = kc_precision_dtype(&c);
    kr_array *t = NULL;
    kr_status s = KR_OK;
    kr_spiral_info info;
    memset(&info, 0, sizeof info);
    if (kind == T_CARTESIAN) {
        int64_t d[3] = {1, 1, 1};
        for (int i = 0; i < dims.n && i < 3; i++) d[i] = dims.d[i];
        if (dims.n == 1) d[1] = d[0];
        if (dims.n > 3) return kc_usage("traj", "--size has %d values; at most 3", dims.n);
        s = kr_traj_cartesian(&t, d[0], d[1], d[2], dt);
    } else if (kind == T_SPIRAL) {
        kr_spiral_opts so;
        kr_spiral_opts_default(&so);
        so.fov_mm = fov, so.res_mm = res, so.interleaves = interleaves, so.gmax_mT_m = gmax;
        so.smax_T_m_s = smax, so.dwell_us = dwell, so.vd_factor = vd, so.vd_start = vd0;
        so.partitions = parts, so.dtype = dt;
        s = kr_traj_spiral(&t, &so, &info);
    } else {
        kr_radial_opts ro;
        kr_radial_opts_default(&ro);
        ro.samples = samples, ro.spokes = spokes, ro.oversampling = os;
        ro.order = golden || tiny ? KR_RADIAL_GOLDEN : KR_RADIAL_UNIFORM;
        ro.tiny = tiny, ro.full_circle = full, ro.dc = dc, ro.partitions = parts, ro.dtype = dt;
        s = kind == T_KOOSH ? kr_traj_koosh(&t, &ro) : kr_traj_radial(&t, &ro);
    }
    if (s == KR_OK && units != 0) {
        int64_t n[3] = {1, 1, 1};
        for (int i = 0; i < matrix.n && i < 3; i++) n[i] = matrix.d[i];
        if (matrix.n == 1) n[1] = n[0];
        s = kr_traj_convert(t, KR_K_CYCLES_PER_FOV,
                            units == 1 ? KR_K_CYCLES_PER_PIXEL : KR_K_RADIANS, n);
    }
    if (s != KR_OK) { /* made from the options alone: a bad combination of values */
        kr_array_destroy(t);
        return kc_fail_usage("traj", s);
    }
    if ((s = kr_traj_write(out, t)) != KR_OK) {
        kr_array_destroy(t);
        return kc_fail("traj", s);
    }
    double ax[3] = {0, 0, 0}, kr = 0;
    kr_traj_extent(t, ax, &kr);
    char d[128];
    kr_dims_string(t->ndim, t->dims, d, sizeof d);
    if (c.json) {
        kc_jo j;
        kc_jo_begin(&j);
        kc_jo_str(&j, "output", out);
        kc_jo_ints(&j, "dims", t->ndim, t->dims);
        kc_jo_num(&j, "kmax", kr);
        if (kind == T_SPIRAL) {
            kc_jo_int(&j, "samples_per_interleave", info.samples);
            kc_jo_int(&j, "matrix", info.matrix);
            kc_jo_num(&j, "readout_ms", info.readout_ms);
            kc_jo_num(&j, "gmax_used_mT_m", info.gmax_used_mT_m);
            kc_jo_num(&j, "smax_used_T_m_s", info.smax_used_T_m_s);
            kc_jo_num(&j, "slew_limited_ms", info.slew_limited_ms);
        }
        kc_jo_end(&j);
    } else if (c.verbose) {
        kc_note("traj", "wrote %s: dims %s, max |k| %.4g (per axis %.4g %.4g %.4g)", out, d, kr,
               ax[0], ax[1], ax[2]);
        if (kind == T_SPIRAL)
            kc_note("traj", "spiral: %lld samples per interleave, readout %.3f ms, matrix %lld (kmax %.3f "
                   "cycles/FOV), |g| <= %.2f mT/m, slew <= %.1f T/m/s, slew-limited for %.3f ms",
                   (long long)info.samples, info.readout_ms, (long long)info.matrix, info.kmax,
                   info.gmax_used_mT_m, info.smax_used_T_m_s, info.slew_limited_ms);
    }
    kr_array_destroy(t);
    return 0;
}
