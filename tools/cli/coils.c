/* kray coils: receive-coil sensitivity maps of an MRXCAT-style loop array (Biot-Savart). */
#include "cli.h"

#include "kray/coils.h"

#include <stdlib.h>
#include <string.h>

int kc_tool_coils(int argc, char **argv)
{
    const char *out = NULL;
    int nc = 8, per = 8, grid = 0, norm = 0;
    double rbody = 300, voxel = 1, slice = 5, z = 0, wire = 1, tol = 1e-12;
    kc_dims size;
    memset(&size, 0, sizeof size);
    const kc_opt opts[] = {
        {"coils", 'c', KC_INT, &nc, "8", "N", "number of coils (nc)", NULL, 1, 4096, NULL},
        {"per-ring", 0, KC_INT, &per, "8", "N",
         "coils per ring at most (c_per_row); e.g. 16 coils, 6 per ring -> rings of 5/6/5", NULL, 1,
         4096, NULL},
        {"rbody", 0, KC_DOUBLE, &rbody, "300", "MM",
         "radius of the array: distance of the coil centres from the bore axis (rbody_mm)", NULL,
         1e-6, 1e6, NULL},
        {"size", 'n', KC_DIMS, &size, "256", "DIMS", "grid: N (NxN), NxM or NxMxP voxels", NULL, 1,
         65536, NULL},
        {"voxel", 0, KC_DOUBLE, &voxel, "1", "MM", "voxel size along x and y (rx)", NULL, 1e-9, 1e6,
         NULL},
        {"thickness", 0, KC_DOUBLE, &slice, "5", "MM", "voxel size along z (rz, slice thickness)", NULL,
         1e-9, 1e6, NULL},
        {"z", 0, KC_DOUBLE, &z, "0", "MM", "z of the grid centre (rings are centred on z = 0)",
         NULL, -1e6, 1e6, NULL},
        {"grid", 0, KC_CHOICE, &grid, "fft", "G",
         "voxel centres: origin at voxel N/2 (fft, as the simulator) or symmetric (ct)", "fft|ct",
         0, 0, NULL},
        {"coil-norm", 0, KC_CHOICE, &norm, "none", "N",
         "none: microtesla per ampere; rss: root-sum-of-squares over coils = 1 at (0, 0, z)",
         "none|rss", 0, 0, NULL},
        {"wire", 0, KC_DOUBLE, &wire, "1", "MM",
         "conductor radius: nearer points take the value on the wire's surface", NULL, 1e-9, 1e6,
         NULL},
        {"tol", 't', KC_DOUBLE, &tol, "1e-12", "T",
         "relative tolerance of the elliptic integrals (arithmetic-geometric mean)", NULL, 1e-16,
         1e-4, NULL},
        {"slice", 0, KC_RENAMED, NULL, NULL, "--thickness", "--slice is the index of a slice to show", NULL, 0, 0, NULL},
        {"norm", 0, KC_ALIAS, NULL, NULL, "coil-norm", NULL, NULL, 0, 0, NULL},
        {"", 'r', KC_RENAMED, NULL, NULL, "--per-ring", NULL, NULL, 0, 0, NULL},
        {"", 'g', KC_RENAMED, NULL, NULL, "--grid", NULL, NULL, 0, 0, NULL},
        {0}};
    const kc_arg args[] = {
        {"maps", &out, "complex maps [nx, ny, nz, coils] (format from the extension)", 0}, {0}};
    const kc_spec spec = {
        "coils",
        "Simulate receive sensitivities of circular loops on rings around a cylinder (the MRXCAT\n"
        "layout of Mayo Sarmiento (2018): fixed azimuths for up to 6 coils per ring, uniform beyond; coil\n"
        "radius rbody*25 deg (<= 6 per ring) or rbody*pi/max(per ring); rings 2 radii apart along\n"
        "z). Each loop's field comes from Biot-Savart in closed form with complete elliptic\n"
        "integrals; the map is B1- = Bx - i By of the loop at 1 A (z along the bore). With --json\n"
        "the layout (rings, centres, normals, radius) is printed on stdout.",
        opts,
        args,
        KC_JSON,
        "Examples:\n  kray coils --coils 16 --per-ring 6 --rbody 300 --size 256 maps.cfl\n"
        "  kray coils --coils 32 --per-ring 32 --size 128x128x8 --norm rss maps.nii",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    if ((r = kc_check_output("coils", out)) != 0) return r;
    int64_t d[3] = {1, 1, 1};
    if (size.n == 1)
        d[0] = d[1] = size.d[0];
    else if (size.n == 2 || size.n == 3)
        for (int i = 0; i < size.n; i++)
            d[i] = size.d[i];
    else
        return kc_usage("coils", "--size takes N, NxM or NxMxP, got %d sizes", size.n);
    if (d[0] * d[1] * d[2] * (int64_t)nc > ((int64_t)1 << 33))
        return kc_usage("coils", "%lldx%lldx%lld voxels x %d coils is too large", (long long)d[0],
                        (long long)d[1], (long long)d[2], nc);
    kr_coil *coils = calloc((size_t)nc, sizeof *coils);
    int *rings = calloc((size_t)nc, sizeof *rings);
    if (!coils || !rings) {
        free(coils);
        free(rings);
        return kc_fail("coils", KR_ERR_OOM_HOST);
    }
    int nrings = 0;
    kr_status s = kr_coil_layout_mrxcat(nc, per, rbody, coils, &nrings, rings);
    kr_ctx *ctx = NULL;
    kr_array *maps = NULL, *dev = NULL;
    int rc = 0;
    if (s != KR_OK) {
        rc = kc_fail("coils", s);
        goto done;
    }
    if ((rc = kc_make_ctx("coils", &c, &ctx)) != 0) goto done;
    kr_coil_map_opts o;
    kr_coil_map_opts_default(&o);
    o.nx = d[0];
    o.ny = d[1];
    o.nz = d[2];
    o.voxel_mm[0] = o.voxel_mm[1] = voxel;
    o.voxel_mm[2] = slice;
    o.z_mm = z;
    o.grid = grid == 0 ? KR_GRID_FFT : KR_GRID_CT;
    o.norm = norm == 0 ? KR_COIL_NORM_NONE : KR_COIL_NORM_RSS_CENTRE;
    o.wire_mm = wire;
    o.tol = tol;
    const int64_t dims[4] = {d[0], d[1], d[2], nc};
    const kr_dtype t = kr_dtype_complex(kc_precision_dtype(&c));
    double t0 = kr_time_now();
    if ((s = kr_array_create(&maps, t, 4, dims, KR_HOST, NULL)) != KR_OK) goto fail;
    if (kr_ctx_backend(ctx) == KR_BACKEND_CUDA) {
        if ((s = kr_array_create(&dev, t, 4, dims, KR_DEVICE, ctx)) != KR_OK ||
            (s = kr_coil_maps(ctx, coils, nc, &o, dev)) != KR_OK ||
            (s = kr_array_copy(maps, dev, ctx)) != KR_OK)
            goto fail;
    } else if ((s = kr_coil_maps(ctx, coils, nc, &o, maps)) != KR_OK) {
        goto fail;
    }
    double t1 = kr_time_now();
    kr_io_opts io;
    kr_io_opts_default(&io);
    io.axes = KR_IO_AXES_IMAGE;
    kr_meta meta;
    memset(&meta, 0, sizeof meta);
    snprintf(meta.description, sizeof meta.description,
             "kray coils: %d loops, %d per ring, rbody %g mm", nc, per, rbody);
    const double sp[3] = {voxel, voxel, slice};
    for (int i = 0; i < 3; i++) {
        meta.spacing[i] = sp[i];
        double cc = grid == 0 ? (double)(d[i] / 2) : 0.5 * (double)(d[i] - 1);
        meta.origin[i] = (i == 2 ? z : 0.0) - cc * sp[i];
    }
    io.meta = &meta;
    if ((s = kr_write(out, maps, &io)) != KR_OK) goto fail;
    if (c.json) {
        kc_jo j;
        kc_jo_begin(&j);
        kc_jo_str(&j, "tool", "coils");
        kc_jo_int(&j, "coils", nc);
        kc_jo_array(&j, "rings");
        for (int k = 0; k < nrings; k++) kc_jo_int(&j, NULL, rings[k]);
        kc_jo_end_array(&j);
        kc_jo_num(&j, "radius_mm", coils[0].radius_mm);
        kc_jo_str(&j, "backend", kr_backend_name(kr_ctx_backend(ctx)));
        kc_jo_num(&j, "seconds", t1 - t0);
        kc_jo_array(&j, "layout");
        for (int q = 0; q < nc; q++) {
            kc_jo_object(&j, NULL);
            kc_jo_int(&j, "ring", coils[q].ring);
            kc_jo_num(&j, "angle_deg", coils[q].angle_deg);
            kc_jo_nums(&j, "centre_mm", 3, coils[q].centre_mm);
            kc_jo_nums(&j, "normal", 3, coils[q].normal);
            kc_jo_end_object(&j);
        }
        kc_jo_end_array(&j);
        kc_jo_end(&j);
    } else if (c.verbose && !c.quiet) {
        char tb[32];
        fprintf(stderr, "kray coils: %d rings (", nrings);
        for (int k = 0; k < nrings; k++)
            fprintf(stderr, "%s%d", k ? "/" : "", rings[k]);
        fprintf(stderr, "), coil radius %.3g mm, maps in %s\n", coils[0].radius_mm,
                kc_fmt_seconds(t1 - t0, tb, sizeof tb));
    }
    goto done;
fail:
    rc = kc_fail("coils", s);
done:
    kr_array_destroy(dev);
    kr_array_destroy(maps);
    kr_ctx_destroy(ctx);
    free(coils);
    free(rings);
    return rc;
}
