/* kray fdk: cone-beam FDK reconstruction. The geometry options are those of the other cone-beam
 * tools (tools/common/cone_common.h); the benchmark is `kray bench fdk` (tools/bench/fdk.c). */
#include "cone_common.h"
#include "ct/fdk_bench.h"
#include "core/parts.h"
#include "fdk_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int kc_parse_bytes(const char *s, int64_t *out)
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

int kc_gpu_mem(const char *tool, const char *s, int64_t *out)
{
    if (kc_parse_bytes(s, out) == 0) return 0;
    return kc_usage(tool, "--gpu-mem '%s' is not a size (e.g. 512M, 2G or bytes)", s);
}

/* One of several MPI processes (docs/scaling.md): this rank's slices of the volume (16-slice
 * groups shared out in rank order) from the detector rows they see, read from the file alone;
 * the slabs gathered on rank 0, which writes. Every failure is agreed on, so all stop. */
static int kc_fdk_dist(const kc_common *c, const kc_cone *a, const char *in, const char *out,
                       const kr_fdk_opts *o, int slice)
{
    const int rank = kr_dist_rank(), size = kr_dist_size();
    int r = kc_check_input("fdk", in), nd = 0;
    if (r) return r;
    kr_array shape, dflt, *band = NULL, *slab = NULL, *vol = NULL;
    memset(&shape, 0, sizeof shape);
    memset(&dflt, 0, sizeof dflt);
    kr_ct_geom *g = NULL;
    kr_ctx *ctx = NULL;
    kr_fdk_plan *plan = NULL;
    int64_t *zs = NULL, *off = NULL, *cnt = NULL;
    double t0 = kr_time_now();
    kr_status s = kr_read_shape(in, &nd, shape.dims, NULL, NULL);
    if ((s = kr_dist_agree(s)) != KR_OK) return kc_fail("fdk", s);
    shape.ndim = nd;
    dflt.ndim = 3;
    dflt.dims[0] = dflt.dims[1] = shape.dims[0];
    dflt.dims[2] = nd > 1 ? shape.dims[1] : 1;
    if ((r = kc_cone_geometry("fdk", a, &shape, &dflt, NULL, &g)) != 0) goto done;
    if ((r = kc_make_ctx("fdk", c, &ctx)) != 0) goto done;
    if (rank == 0) kr_ct_geom_check_fov(g, ctx, NULL); /* the whole scan's warning, once */
    int64_t vd[3], row0 = 0, rows = 0;
    kr_ct_geom_image_dims(g, vd);
    const int64_t plane = vd[0] * vd[1];
    zs = calloc((size_t)size + 1, sizeof *zs);
    off = calloc((size_t)size, sizeof *off);
    cnt = calloc((size_t)size, sizeof *cnt);
    s = zs && off && cnt ? KR_OK : KR_ERR_OOM_HOST;
    if (s == KR_OK) kri_split(vd[2], size, 16, zs);
    const int64_t z0 = zs ? zs[rank] : 0, z1 = zs ? zs[rank + 1] : 0;
    if (s == KR_OK && z1 > z0) s = kr_fdk_plan_create_slab(&plan, ctx, g, o, z0, z1, &row0, &rows);
    if (s == KR_OK && z1 > z0) s = kc_read_part(in, 1, row0, rows, &band, NULL);
    if (s == KR_OK && band && band->dtype != KR_F32) {
        kr_array *f = NULL;
        s = kr_array_astype(&f, band, KR_F32);
        kr_array_destroy(band);
        band = f;
    }
    const int64_t sd[3] = {vd[0], vd[1], z1 > z0 ? z1 - z0 : 1};
    if (s == KR_OK) s = kr_array_create(&slab, KR_F32, 3, sd, KR_HOST, NULL);
    if (s == KR_OK && z1 > z0) s = kr_fdk_execute(plan, band, slab);
    if (s == KR_OK && rank == 0) s = kr_array_create(&vol, KR_F32, 3, vd, KR_HOST, NULL);
    if ((s = kr_dist_agree(s)) != KR_OK) {
        r = kc_fail("fdk", s);
        goto done;
    }
    for (int q = 0; q < size; q++) {
        off[q] = zs[q] * plane * (int64_t)sizeof(float);
        cnt[q] = (zs[q + 1] - zs[q]) * plane * (int64_t)sizeof(float);
    }
    s = kr_dist_gather(slab->data, vol ? vol->data : NULL, off, cnt, 0);
    if ((s = kr_dist_agree(s)) != KR_OK) {
        r = kc_fail("fdk", s);
        goto done;
    }
    if (rank == 0 && (r = kc_cone_write("fdk", out, vol, g, 1, slice)) != 0) goto done;
    if (c->verbose)
        kc_note("fdk", "wrote %s: %lldx%lldx%lld voxels in %.3f s over %d processes (rank 0: "
                "slices %lld..%lld from detector rows %lld..%lld)",
                out, (long long)vd[0], (long long)vd[1], (long long)vd[2], kr_time_now() - t0,
                size, (long long)z0, (long long)z1 - 1, (long long)row0,
                (long long)(row0 + rows - 1));
    r = 0;
done:
    free(zs), free(off), free(cnt);
    kr_fdk_plan_destroy(plan);
    kr_array_destroy(band), kr_array_destroy(slab), kr_array_destroy(vol);
    kr_ct_geom_destroy(g);
    kr_ctx_destroy(ctx);
    return r;
}

int kc_tool_fdk(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *mem_s = "0";
    kc_cone a;
    memset(&a, 0, sizeof a);
    double cutoff = 1;
    int filter = 0, window = 0, parker = 0, kernel = 0, slice = -1;
    int64_t batch = 0, slab = 0;
    /* clang-format off */
    const kc_opt opts[] = {
        KC_CONE_GEOM_OPTS(a, "volume voxels (default: U x U x V of the detector)",
                          "voxel size (default: pitch x sod / sdd)"),
        {"filter", 'f', KC_CHOICE, &filter, "fft", "F",
         "ramp filter: FFT with a window, direct band-limited Ram-Lak, or the seed kernel",
         "fft|direct|seed", 0, 0, NULL},
        {"filter-window", 0, KC_CHOICE, &window, "ramlak", "W", "FFT filter window",
         "ramlak|shepp-logan|cosine|hamming|hann", 0, 0, NULL},
        {"cutoff", 0, KC_DOUBLE, &cutoff, "1", "F", "FFT filter cutoff, fraction of Nyquist",
         NULL, 1e-6, 1, NULL},
        {"parker", 0, KC_CHOICE, &parker, "auto", "P",
         "Parker short-scan weights: auto (views turning by less than 360 degrees), on, off",
         "auto|on|off", 0, 0, NULL},
        KC_GPU_MEM_OPT(mem_s, "CUDA working-memory budget, e.g. 512M or 2G (0 = 90% of the free "
                              "memory); larger problems run in z slabs and view batches"),
        {"view-batch", 0, KC_INT64, &batch, "0", "N", "views per batch (0 = auto)", NULL, 0, 1e9,
         NULL},
        {"slab", 0, KC_INT64, &slab, "0", "N", "z slices per slab (0 = auto)", NULL, 0, 1e9,
         NULL},
        {"cuda-kernel", 0, KC_CHOICE, &kernel, "auto", "K",
         "CUDA backprojection kernel (all exact and bit-identical; auto = align)",
         "auto|smem|smem32|global|pipe|pipe32|align", 0, 0, NULL},
        {"slice", 's', KC_INT, &slice, "-1", "N", "PNG/PGM output: the z slice (-1 = central)",
         NULL, -1, 2e9, NULL},
        {"window", 0, KC_RENAMED, NULL, NULL, "--filter-window", "--window is the display window of kray convert", NULL, 0, 0, NULL},
        {"batch", 0, KC_RENAMED, NULL, NULL, "--view-batch", "--batch is the batch of coils of nufft and drft", NULL, 0, 0, NULL},
        {"kernel", 0, KC_RENAMED, NULL, NULL, "--cuda-kernel", "--kernel is the ESPIRiT kernel width", NULL, 0, 0, NULL},
        {0}};
    /* clang-format on */
    const kc_arg args[] = {{"projections", &in, "line integrals [u, v, view] (any readable format)",
                            0},
                           {"volume", &out, "reconstruction [x, y, z] in 1/mm", 0},
                           {0}};
    const kc_spec spec = {
        "fdk",
        "Cone-beam FDK reconstruction (Feldkamp-Davis-Kress), flat detector: cosine weighting,\n"
        "ramp filtering along detector rows, Parker weights for short scans, voxel-driven\n"
        "backprojection with the distance weight. Projections are line integrals [u, v, view];\n"
        "the volume is attenuation in 1/mm, written with its voxel size and origin where the\n"
        "format has them (PNG/PGM: one slice). Projections with NaN or infinite values are\n"
        "refused (their count is reported).",
        opts,
        args,
        KC_JSON,
        KC_CONE_NOTES
        "\nExamples:\n"
        "  kray fdk --geom g.json proj.nrrd vol.nrrd\n"
        "  kray fdk --sod 750 --sdd 1200 --pitch 0.32 --size 256 --voxel 1 proj.npy vol.nii\n"
        "  kray fdk --sod 750 --sdd 1200 --short-scan --gpu-mem 512M proj.npy vol.nrrd\n"
        "Benchmark: kray bench fdk.",
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
    o.short_scan = parker == 0 ? -1 : (parker == 1 ? 1 : 0);
    o.batch_views = batch;
    o.slab_z = slab;
    kri_fdk_tune tune;
    kri_fdk_tune_default(&tune);
    tune.kernel = (kri_fdk_kernel)kernel;
    tune.fuse = -1; /* one run: the cuFFT callbacks' plan-time link (~0.6 s) would not pay back */
    if ((r = kc_gpu_mem("fdk", mem_s, &o.gpu_mem)) != 0) return r;
    if (c.precision == 1)
        return kc_usage("fdk", "--precision f64 is not supported: FDK runs in f32");
    if ((r = kc_check_output("fdk", out)) != 0) return r;
    if (kr_dist_size() > 1) return kc_fdk_dist(&c, &a, in, out, &o, slice);

    kr_array *proj = NULL, *vol = NULL;
    kr_ctx *ctx = NULL;
    kr_ct_geom *g = NULL;
    kr_fdk_plan *plan = NULL;
    kr_status s;
    if ((r = kc_cone_read("fdk", in, KR_F32, 0, &proj, NULL)) != 0) goto done;
    {
        /* without --size (and --geom), the volume is U x U x V voxels of the detector */
        kr_array dflt;
        memset(&dflt, 0, sizeof dflt);
        dflt.ndim = 3;
        dflt.dims[0] = dflt.dims[1] = proj->dims[0];
        dflt.dims[2] = proj->ndim > 1 ? proj->dims[1] : 1;
        if ((r = kc_cone_geometry("fdk", &a, proj, &dflt, NULL, &g)) != 0) goto done;
    }
    if ((r = kc_make_ctx("fdk", &c, &ctx)) != 0) goto done;
    int64_t vd[3];
    kr_ct_geom_image_dims(g, vd);
    r = KC_EXIT_INPUT;
    if ((s = kri_fdk_plan_create_tuned(&plan, ctx, g, &o, &tune)) != KR_OK ||
        (s = kr_array_create(&vol, KR_F32, 3, vd, KR_HOST, NULL)) != KR_OK) {
        r = kc_fail("fdk", s);
        goto done;
    }
    double t0 = kr_time_now();
    if ((s = kr_fdk_execute(plan, proj, vol)) != KR_OK) {
        r = kc_fail("fdk", s);
        goto done;
    }
    double t = kr_time_now() - t0;
    kr_fdk_info info;
    kr_fdk_plan_info(plan, &info);
    if ((r = kc_cone_write("fdk", out, vol, g, 1, slice)) != 0) goto done;
    if (c.json) {
        const int64_t det[2] = {kr_ct_geom_det_count(g), kr_ct_geom_det_rows(g)};
        kc_jo j;
        kc_jo_begin(&j);
        kc_jo_str(&j, "tool", "fdk");
        kc_jo_str(&j, "backend", kr_backend_name(kr_ctx_backend(ctx)));
        kc_jo_str(&j, "kernel", info.kernel);
        kc_jo_ints(&j, "volume", 3, vd);
        kc_jo_ints(&j, "detector", 2, det);
        kc_jo_int(&j, "views", kr_ct_geom_nviews(g));
        kc_jo_int(&j, "short_scan", info.short_scan);
        kc_jo_num(&j, "arc_deg", info.arc_deg);
        kc_jo_num(&j, "fan_deg", info.fan_deg);
        kc_jo_int(&j, "slabs", info.slabs);
        kc_jo_num(&j, "time_s", t);
        kc_jo_end(&j);
    } else if (c.verbose) {
        char tb[32];
        kc_note("fdk", "wrote %s: %lldx%lldx%lld voxels from %lld views (%s scan over %.4g "
                "degrees, fan %.4g degrees) in %s on %s (%s, %lld slab%s)",
                out, (long long)vd[0], (long long)vd[1], (long long)vd[2],
                (long long)kr_ct_geom_nviews(g), info.short_scan ? "short" : "full", info.arc_deg,
                info.fan_deg, kc_fmt_seconds(t, tb, sizeof tb),
                kr_backend_name(kr_ctx_backend(ctx)), info.kernel, (long long)info.slabs,
                info.slabs == 1 ? "" : "s");
    }
    r = 0;
done:
    kr_fdk_plan_destroy(plan);
    kr_ct_geom_destroy(g);
    kr_array_destroy(proj);
    kr_array_destroy(vol);
    kr_ctx_destroy(ctx);
    return r;
}
