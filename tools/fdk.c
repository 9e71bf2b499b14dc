/* kray fdk: cone-beam FDK reconstruction of a circular scan (and --bench, its benchmark). */
#include "cli.h"
#include "ct/fdk_internal.h"
#include "fdk_tool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "A", "AxB" or "AxBxC" (positive finite numbers) into v[0..n-1]; a single value fills all. */
static int kc_parse_vec(const char *s, double *v, int n)
{
    char *end;
    int k = 0;
    const char *p = s;
    while (k < n) {
        double x = strtod(p, &end);
        if (end == p || !isfinite(x) || !(x > 0)) return -1;
        v[k++] = x;
        if (*end == '\0') break;
        if (*end != 'x') return -1;
        p = end + 1;
    }
    if (*end != '\0') return -1;
    for (int i = k; i < n; i++) v[i] = v[k - 1];
    return k == 1 || k == n ? 0 : -1;
}

/* "512M", "2G", "1.5g", "65536", "0" -> bytes. */
int kc_parse_bytes(const char *s, int64_t *out)
{
    char *end;
    double x = strtod(s, &end);
    if (end == s || !isfinite(x) || x < 0) return -1;
    double m = 1;
    if (*end) {
        switch (*end) {
        case 'k': case 'K': m = 1024.0; break;
        case 'm': case 'M': m = 1048576.0; break;
        case 'g': case 'G': m = 1073741824.0; break;
        default: return -1;
        }
        end++;
        if (*end == 'i' || *end == 'B') end++;
        if (*end == 'B') end++;
        if (*end) return -1;
    }
    if (x * m > 9.0e18) return -1;
    *out = (int64_t)(x * m);
    return 0;
}

int kc_tool_fdk(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *pitch_s = "1", *voxel_s = NULL, *mem_s = "0";
    double sod = 0, sdd = 0, arc = 360, start = 0, offu = 0, offv = 0, cor = 0, cutoff = 1;
    int filter = 0, window = 0, shortscan = 0, kernel = 0, bench = 0, reps = 5;
    int64_t batch = 0, slab = 0;
    kc_dims size = {0, {0}}, bdet = {0, {0}};
    int bsize = 0, bviews = 0;
    int sod_given = 0, sdd_given = 0;
    const kc_opt opts[] = {
        {"sod", 0, KC_DOUBLE, &sod, NULL, "MM", "source to rotation axis distance (required)",
         NULL, 1e-9, 1e9, &sod_given},
        {"sdd", 0, KC_DOUBLE, &sdd, NULL, "MM",
         "source to detector distance (required, > --sod)", NULL, 1e-9, 1e9, &sdd_given},
        {"pitch", 0, KC_STRING, &pitch_s, "1", "MM",
         "detector pixel pitch: U or UxV (mm)", NULL, 0, 0, NULL},
        {"arc", 0, KC_DOUBLE, &arc, "360", "DEG",
         "scan arc: view m at start + m * arc / views (stop excluded); under 360 is a short "
         "scan", NULL, -3600, 3600, NULL},
        {"start", 0, KC_DOUBLE, &start, "0", "DEG", "angle of the first view", NULL, -3600, 3600,
         NULL},
        {"offset-u", 0, KC_DOUBLE, &offu, "0", "MM", "detector shift along u", NULL, -1e6, 1e6,
         NULL},
        {"offset-v", 0, KC_DOUBLE, &offv, "0", "MM", "detector shift along v (z)", NULL, -1e6,
         1e6, NULL},
        {"cor", 0, KC_DOUBLE, &cor, "0", "MM",
         "centre-of-rotation offset: the axis lies this far along +u from the central ray", NULL,
         -1e6, 1e6, NULL},
        {"size", 'n', KC_DIMS, &size, NULL, "DIMS",
         "volume voxels N or NxMxP (default: nu x nu x nv)", NULL, 1, 1 << 20, NULL},
        {"voxel", 0, KC_STRING, &voxel_s, NULL, "MM",
         "voxel size X or XxYxZ in mm (default: pitch_u * sod / sdd)", NULL, 0, 0, NULL},
        {"filter", 0, KC_CHOICE, &filter, "fft", "F",
         "ramp filter: FFT with a window, direct band-limited Ram-Lak, or the seed kernel",
         "fft|direct|seed", 0, 0, NULL},
        {"window", 0, KC_CHOICE, &window, "ramlak", "W", "FFT filter window",
         "ramlak|shepp-logan|cosine|hamming|hann", 0, 0, NULL},
        {"cutoff", 0, KC_DOUBLE, &cutoff, "1", "F", "FFT filter cutoff, fraction of Nyquist",
         NULL, 1e-6, 1, NULL},
        {"short-scan", 0, KC_CHOICE, &shortscan, "auto", "S",
         "Parker weights: auto (arc under 360 degrees), on, off", "auto|on|off", 0, 0, NULL},
        {"gpu-mem", 0, KC_STRING, &mem_s, "0", "BYTES",
         "CUDA working-memory budget, e.g. 512M or 2G (0 = 90% of the free memory); larger "
         "problems run in z slabs and view batches",
         NULL, 0, 0, NULL},
        {"batch", 0, KC_INT64, &batch, "0", "N", "views per batch (0 = auto)", NULL, 0, 1e9,
         NULL},
        {"slab", 0, KC_INT64, &slab, "0", "N", "z slices per slab (0 = auto)", NULL, 0, 1e9,
         NULL},
        {"kernel", 0, KC_CHOICE, &kernel, "auto", "K", "CUDA backprojection kernel",
         "auto|smem|smem32|global", 0, 0, NULL},
        {"bench", 0, KC_FLAG, &bench, NULL, NULL,
         "benchmark on synthetic data instead of files: one JSON line per case", NULL, 0, 0,
         NULL},
        {"bench-size", 0, KC_INT, &bsize, "0", "N",
         "benchmark volume N^3 (0: 512 then 1024 on CUDA, 128 on the CPU)", NULL, 0, 4096,
         NULL},
        {"bench-views", 0, KC_INT, &bviews, "0", "N",
         "benchmark views (0: 496 on CUDA, 120 on the CPU)", NULL, 0, 100000, NULL},
        {"bench-det", 0, KC_DIMS, &bdet, NULL, "UxV",
         "benchmark detector (default 1248x960 on CUDA, 312x240 on the CPU)", NULL, 1, 1 << 20,
         NULL},
        {"reps", 0, KC_INT, &reps, "5", "N", "benchmark repetitions (the best is reported)", NULL,
         1, 1000, NULL},
        {0}};
    const kc_arg args[] = {{"projections", &in, "line integrals [u, v, view] (any readable format)",
                            1},
                           {"volume", &out, "reconstruction [x, y, z] in 1/mm", 1},
                           {0}};
    const kc_spec spec = {
        "fdk",
        "Cone-beam FDK reconstruction (Feldkamp-Davis-Kress) of a circular scan with a flat\n"
        "detector: cosine weighting, ramp filtering along detector rows, Parker weights for short\n"
        "scans, voxel-driven backprojection with the distance weight. Projections are line\n"
        "integrals [u, v, view]; the volume is attenuation in 1/mm on a grid centred on the\n"
        "rotation axis (written with its voxel size and origin where the format has them).\n"
        "Geometry: view m has its source at angle start + m * arc / views about z, the detector\n"
        "opposite, u along the rotation direction and v along +z (kray's CT conventions).",
        opts,
        args,
        KC_JSON,
        "Examples:\n"
        "  kray fdk --sod 750 --sdd 1200 --pitch 0.32 --size 256 --voxel 1 proj.nrrd vol.nrrd\n"
        "  kray fdk --sod 750 --sdd 1200 --arc 210 --gpu-mem 512M proj.npy vol.nii\n"
        "  kray fdk --bench --backend cuda          (RabbitCT-sized: 496 x 1248 x 960 -> 512^3)\n"
        "  kray fdk --bench --backend cpu --bench-size 256\n"
        "With --bench no files are read: synthetic projections of the given size are\n"
        "reconstructed (data on the device for CUDA) and one JSON line per case is printed:\n"
        "backprojection alone (every CUDA kernel when --kernel is auto) and the whole FDK.",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;

    kr_fdk_opts o;
    kr_fdk_opts_default(&o);
    o.filter = filter;
    o.window = window;
    o.cutoff = cutoff;
    o.short_scan = shortscan == 0 ? -1 : (shortscan == 1 ? 1 : 0);
    o.batch_views = batch;
    o.slab_z = slab;
    o.kernel = (kr_fdk_kernel)kernel;
    if (kc_parse_bytes(mem_s, &o.gpu_mem) != 0)
        return kc_usage("fdk", "--gpu-mem '%s' is not a size (e.g. 512M, 2G or bytes)", mem_s);
    if (c.precision == 1)
        return kc_usage("fdk", "--precision f64 is not supported: FDK runs in f32");
    if (size.n == 2) return kc_usage("fdk", "--size takes N or NxMxP");
    double pitch[2];
    if (kc_parse_vec(pitch_s, pitch, 2) != 0)
        return kc_usage("fdk", "--pitch '%s' must be U or UxV with positive millimetres", pitch_s);

    if (bench) {
        if (in || out) return kc_usage("fdk", "--bench takes no file arguments");
        kc_fdk_bench_args b = {bsize, bviews, bdet.n ? bdet.d[0] : 0, bdet.n ? bdet.d[1] : 0,
                               reps, kernel == 0};
        return kc_fdk_bench(&c, &o, &b);
    }
    if (!in || !out) return kc_usage("fdk", "two files are needed: <projections> <volume>");
    if (!sod_given || !sdd_given)
        return kc_usage("fdk", "--sod and --sdd are required (source-axis and source-detector "
                               "distances in mm)");
    if ((r = kc_check_input("fdk", in)) != 0 || (r = kc_check_output("fdk", out)) != 0) return r;

    kr_array *proj = NULL, *p32 = NULL, *vol = NULL;
    kr_ctx *ctx = NULL;
    kr_ct_view *views = NULL;
    kr_fdk_plan *plan = NULL;
    kr_status s = kr_read(in, &proj, NULL, NULL);
    if (s != KR_OK) return kc_fail("fdk", s);
    int rc = KC_EXIT_INPUT;
    if (kr_array_rank(proj) > 3 || kr_dtype_is_complex(proj->dtype)) {
        char d[96];
        fprintf(stderr, "kray fdk: %s holds %s %s values; projections are real [u, v, view]\n",
                in, kr_dims_string(proj->ndim, proj->dims, d, sizeof d),
                kr_dtype_name(proj->dtype));
        goto done;
    }
    if (proj->dtype != KR_F32) {
        if ((s = kr_array_astype(&p32, proj, KR_F32)) != KR_OK) goto fail;
    } else {
        p32 = proj;
        proj = NULL;
    }
    const int64_t nu = p32->dims[0], nv = p32->ndim > 1 ? p32->dims[1] : 1;
    const int64_t nviews = p32->ndim > 2 ? p32->dims[2] : 1;
    kri_fdk_circ circ = {nviews, start, arc, sod, sdd, pitch[0], pitch[1], offu, offv, cor};
    if ((s = kri_fdk_circular_views(&circ, &views)) != KR_OK) goto fail;
    kr_ct_grid g;
    memset(&g, 0, sizeof g);
    g.n[0] = size.n ? size.d[0] : nu;
    g.n[1] = size.n ? (size.n > 1 ? size.d[1] : size.d[0]) : nu;
    g.n[2] = size.n ? (size.n > 2 ? size.d[2] : size.d[0]) : nv;
    double vox[3] = {pitch[0] * sod / sdd, pitch[0] * sod / sdd, pitch[0] * sod / sdd};
    if (voxel_s && kc_parse_vec(voxel_s, vox, 3) != 0) {
        rc = kc_usage("fdk", "--voxel '%s' must be X or XxYxZ with positive millimetres",
                      voxel_s);
        goto done;
    }
    for (int d = 0; d < 3; d++) g.voxel_mm[d] = vox[d];
    if ((r = kc_make_ctx("fdk", &c, &ctx)) != 0) {
        rc = r;
        goto done;
    }
    if ((s = kr_fdk_plan_create_views(&plan, ctx, nu, nv, views, nviews, &g, &o)) != KR_OK)
        goto fail;
    if ((s = kr_array_create(&vol, KR_F32, 3, g.n, KR_HOST, NULL)) != KR_OK) goto fail;
    double t0 = kr_time_now();
    if ((s = kr_fdk_execute(plan, p32, vol)) != KR_OK) goto fail;
    double t = kr_time_now() - t0;
    kr_fdk_info info;
    kr_fdk_plan_info(plan, &info);
    kr_meta meta;
    memset(&meta, 0, sizeof meta);
    for (int d = 0; d < 3; d++) {
        meta.spacing[d] = g.voxel_mm[d];
        meta.origin[d] = g.offset_mm[d] - 0.5 * (double)(g.n[d] - 1) * g.voxel_mm[d];
    }
    snprintf(meta.description, sizeof meta.description, "kray fdk: attenuation in 1/mm");
    kr_io_opts io;
    kr_io_opts_default(&io);
    io.meta = &meta;
    if ((s = kr_write(out, vol, &io)) != KR_OK) goto fail;
    if (c.json) {
        printf("{\"tool\": \"fdk\", \"backend\": ");
        kc_json_string(stdout, kr_backend_name(kr_ctx_backend(ctx)));
        printf(", \"kernel\": ");
        kc_json_string(stdout, info.kernel);
        printf(", \"volume\": [%lld, %lld, %lld], \"detector\": [%lld, %lld], \"views\": %lld, "
               "\"short_scan\": %d, \"arc_deg\": ",
               (long long)g.n[0], (long long)g.n[1], (long long)g.n[2], (long long)nu,
               (long long)nv, (long long)nviews, info.short_scan);
        kc_json_number(stdout, info.arc_deg);
        printf(", \"fan_deg\": ");
        kc_json_number(stdout, info.fan_deg);
        printf(", \"slabs\": %lld, \"time_s\": ", (long long)info.slabs);
        kc_json_number(stdout, t);
        printf("}\n");
    } else if (c.verbose) {
        char tb[32];
        fprintf(stderr,
                "kray fdk: wrote %s: %lldx%lldx%lld voxels of %gx%gx%g mm from %lld views "
                "(%s scan over %.4g degrees, fan %.4g degrees) in %s on %s (%s, %lld slab%s)\n",
                out, (long long)g.n[0], (long long)g.n[1], (long long)g.n[2], g.voxel_mm[0],
                g.voxel_mm[1], g.voxel_mm[2], (long long)nviews,
                info.short_scan ? "short" : "full", info.arc_deg, info.fan_deg,
                kc_fmt_seconds(t, tb, sizeof tb), kr_backend_name(kr_ctx_backend(ctx)),
                info.kernel, (long long)info.slabs, info.slabs == 1 ? "" : "s");
    }
    rc = 0;
    goto done;
fail:
    rc = kc_fail("fdk", s);
done:
    kr_fdk_plan_destroy(plan);
    kri_free(views);
    kr_array_destroy(proj);
    kr_array_destroy(p32);
    kr_array_destroy(vol);
    kr_ctx_destroy(ctx);
    return rc;
}
