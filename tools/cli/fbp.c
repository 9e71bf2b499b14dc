/* kray fbp: 2-D filtered backprojection of a sinogram [det, view] (or [det, view, slices]). */
#include "cli.h"
#include "internal.h"
#include "kray/dicom.h"
#include "kray/fbp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define KC_GEOM_TYPES "parallel2d|fan2d-flat|fan2d-equiangular"

typedef struct kc_fbp_args {
    const char *geom, *angles, *save_geom;
    int type, filter, window, short_scan, clamp, seed_raw, skimage, circle;
    double det_spacing, det_offset, cor_offset, sod, sdd, voxel, cutoff, mu_water;
    kc_dims size;
    int g_type, g_angles, g_spacing, g_doff, g_cor, g_sod, g_sdd, g_size, g_voxel;
} kc_fbp_args;

/* scikit-image's radon output, NumPy (detectors, angles) = kray [angles, det]: transpose every
 * plane to kray's [det, view]. 0 or -1 (out of memory). */
static int kc_fbp_transpose(kr_array **sino)
{
    kr_array *a = *sino, *t = NULL;
    int64_t d[KR_MAX_DIMS], n0 = a->dims[0], n1 = a->ndim > 1 ? a->dims[1] : 1;
    for (int i = 0; i < a->ndim; i++) d[i] = a->dims[i];
    d[0] = n1, d[1] = n0;
    if (kr_array_create(&t, a->dtype, a->ndim < 2 ? 2 : a->ndim, d, KR_HOST, NULL) != KR_OK)
        return -1;
    size_t es = kr_dtype_size(a->dtype);
    int64_t planes = kr_array_numel(a) / (n0 * n1);
    for (int64_t p = 0; p < planes; p++)
        for (int64_t j = 0; j < n1; j++)
            for (int64_t i = 0; i < n0; i++) {
                const int64_t to = p * n0 * n1 + j + n1 * i, from = p * n0 * n1 + i + n0 * j;
                if (es == 4)
                    ((float *)t->data)[to] = ((const float *)a->data)[from];
                else if (es == 8)
                    ((double *)t->data)[to] = ((const double *)a->data)[from];
                else
                    memcpy((char *)t->data + (size_t)to * es, (const char *)a->data + (size_t)from * es,
                           es);
            }
    kr_array_destroy(a);
    *sino = t;
    return 0;
}

/* The relative spreads (max - min) / max |.| of the view sums (*sv) and of the detector sums
 * (*sd) of plane 0, each sum in double in ascending order, in one pass over the data. 0 or -1
 * (out of memory). */
static int kc_fbp_spreads(const kr_array *s, double *sv, double *sd)
{
    const int64_t nd = s->dims[0], nv = s->dims[1];
    double *sum = calloc((size_t)(nd + nv), sizeof *sum), *dsum = sum + nv;
    if (!sum) return -1;
    for (int64_t v = 0; v < nv; v++)
        for (int64_t k = 0; k < nd; k++) {
            const int64_t i = k + nd * v;
            const double x = s->dtype == KR_F32   ? (double)((const float *)s->data)[i]
                             : s->dtype == KR_F64 ? ((const double *)s->data)[i]
                                                  : kr_array_get_f64(s, i);
            sum[v] += x;
            dsum[k] += x;
        }
    for (int by_det = 0; by_det < 2; by_det++) {
        const double *a = by_det ? dsum : sum;
        double lo = INFINITY, hi = -INFINITY, big = 0;
        for (int64_t k = 0; k < (by_det ? nd : nv); k++)
            lo = fmin(lo, a[k]), hi = fmax(hi, a[k]), big = fmax(big, fabs(a[k]));
        *(by_det ? sd : sv) = big > 0 ? (hi - lo) / big : 0.0;
    }
    free(sum);
    return 0;
}

/* A parallel scan sees the same total attenuation in every view (the zeroth moment of the
 * Radon transform). A sinogram whose views disagree while its detector rows agree is the
 * wrong way round: refuse it with a sentence. 0 or KC_EXIT_INPUT. */
static int kc_fbp_check_layout(const char *path, const kr_array *s)
{
    double sv = 0, sd = 0;
    if (s->ndim < 2 || s->dims[0] < 8 || s->dims[1] < 8 || kc_fbp_spreads(s, &sv, &sd) != 0)
        return 0;
    if (!(sv > 0.2 && sd < 0.05)) return 0;
    char d[64];
    kc_error("fbp", "sinogram '%s' (%s) looks transposed: a parallel scan has the same "
                    "sum in every view, and its views differ by %.0f %% while its detector rows "
                    "agree to %.1f %%; kray reads [det, view] (NumPy shape (views, detectors)), "
                    "scikit-image's radon gives (detectors, angles): use --skimage",
             path, kr_dims_string(s->ndim, s->dims, d, sizeof d), 100 * sv, 100 * sd);
    return KC_EXIT_INPUT;
}

/* iradon's circle: zero every pixel whose centre lies farther than floor(min(nx, ny) / 2)
 * pixels from the rotation axis. */
static void kc_fbp_circle(kr_array *img, const kr_ct_grid *gr)
{
    int64_t nx = gr->n[0], ny = gr->n[1], planes = kr_array_numel(img) / (nx * ny);
    double r = (double)((nx < ny ? nx : ny) / 2);
    for (int64_t j = 0; j < ny; j++)
        for (int64_t i = 0; i < nx; i++) {
            double x = (double)i - 0.5 * (double)(nx - 1) + gr->offset_mm[0] / gr->voxel_mm[0];
            double y = (double)j - 0.5 * (double)(ny - 1) + gr->offset_mm[1] / gr->voxel_mm[1];
            if (x * x + y * y <= r * r) continue;
            for (int64_t p = 0; p < planes; p++) {
                int64_t k = i + nx * (j + ny * p);
                if (img->dtype == KR_F32) ((float *)img->data)[k] = 0.0f;
                else ((double *)img->data)[k] = 0.0;
            }
        }
}

static int kc_is_dcm(const char *p)
{
    size_t n = strlen(p);
    return n > 4 && strcasecmp(p + n - 4, ".dcm") == 0;
}

/* The geometry from --geom or from the shortcut options; sinogram dims give the defaults. */
static int kc_fbp_geometry(const kc_fbp_args *a, const kr_array *sino, kr_ct_geom **g)
{
    const char *tool = "fbp";
    kr_status s;
    if (a->geom) {
        if (a->g_type || a->g_angles || a->g_spacing || a->g_doff || a->g_cor || a->g_sod ||
            a->g_sdd || a->g_size || a->g_voxel)
            return kc_usage(tool, "--geom gives the whole geometry; do not combine it with "
                                  "--type, --angles, --pitch, --det-offset, --cor, --sod, --sdd, "
                                  "--size or --voxel");
        s = kr_ct_geom_read_json(g, a->geom);
        return s == KR_OK ? 0 : kc_fail(tool, s);
    }
    kr_ct_scan sc;
    kr_ct_scan_default(&sc);
    sc.type = (kr_ct_type)(a->type + 1);
    int fan = sc.type != KR_CT_PARALLEL2D;
    sc.det_count = sino->dims[0];
    sc.nviews = sino->ndim > 1 ? sino->dims[1] : 1;
    sc.start_deg = 0;
    sc.stop_deg = fan ? 360 : 180;
    if (a->skimage && fan)
        return kc_usage(tool, "--skimage is scikit-image's parallel-beam radon; drop --type");
    if (a->angles) {
        int64_t count;
        s = kr_ct_angles_parse(a->angles, &sc.start_deg, &sc.stop_deg, &count);
        if (s != KR_OK) return kc_fail_usage(tool, s);
        if (count != sc.nviews) {
            kc_error("fbp", "--angles gives %lld views but the sinogram has %lld",
                    (long long)count, (long long)sc.nviews);
            return KC_EXIT_INPUT;
        }
    }
    sc.det_spacing_mm = a->det_spacing;
    sc.det_offset_mm = a->det_offset;
    if (a->skimage) { /* iradon: theta = -kray's angle, axis at index N/2 (pixels too) */
        sc.start_deg = -sc.start_deg, sc.stop_deg = -sc.stop_deg;
        sc.det_offset_mm += sc.det_count % 2 ? 0.0 : -0.5 * a->det_spacing;
    }
    sc.cor_offset_mm = a->cor_offset;
    if (fan && (!a->g_sod || !a->g_sdd))
        return kc_usage(tool, "fan-beam geometries need --sod and --sdd (mm)");
    if (!fan && (a->g_sod || a->g_sdd))
        return kc_usage(tool, "--sod and --sdd are for fan beams (--type fan2d-flat or "
                              "fan2d-equiangular)");
    sc.sod_mm = fan ? a->sod : 0;
    sc.sdd_mm = fan ? a->sdd : 0;
    int64_t nx = a->size.n ? a->size.d[0] : sc.det_count;
    int64_t ny = a->size.n > 1 ? a->size.d[1] : nx;
    if (a->size.n > 2) return kc_usage(tool, "--size takes N or NxM");
    double vox = a->g_voxel ? a->voxel : (fan ? a->det_spacing * a->sod / a->sdd : a->det_spacing);
    kr_ct_grid gr;
    kr_ct_grid_2d(&gr, nx, ny, vox);
    if (a->skimage) {
        gr.offset_mm[0] = nx % 2 ? 0.0 : -0.5 * vox;
        gr.offset_mm[1] = ny % 2 ? 0.0 : -0.5 * vox;
    }
    s = kr_ct_geom_create(g, &sc, &gr);
    return s == KR_OK ? 0 : kc_fail_usage(tool, s); /* the options describe the geometry */
}

int kc_tool_fbp(int argc, char **argv)
{
    const char *pin = NULL, *pout = NULL;
    kc_fbp_args a;
    memset(&a, 0, sizeof a);
    kc_raw raw;
    memset(&raw, 0, sizeof raw);
    const kc_opt opts[] = {
        {"geom", 'g', KC_STRING, &a.geom, NULL, "FILE",
         "geometry JSON file (kray/ct.h schema); replaces the options below", NULL, 0, 0, NULL},
        {"type", 0, KC_CHOICE, &a.type, "parallel2d", "T", "scanner type", KC_GEOM_TYPES, 0, 0,
         &a.g_type},
        {"angles", 0, KC_STRING, &a.angles, NULL, "A:B:N",
         "view angles start:stop:count in degrees, stop exclusive (default 0:180:views, "
         "fan 0:360:views)",
         NULL, 0, 0, &a.g_angles},
        {"pitch", 0, KC_DOUBLE, &a.det_spacing, "1", "MM",
         "detector pitch (arc length per pixel for fan2d-equiangular)", NULL, 0, 0, &a.g_spacing},
        {"det-offset", 0, KC_DOUBLE, &a.det_offset, "0", "MM", "detector shift along u", NULL, 0, 0,
         &a.g_doff},
        {"cor", 0, KC_DOUBLE, &a.cor_offset, "0", "MM", "centre-of-rotation offset along u",
         NULL, 0, 0, &a.g_cor},
        {"sod", 0, KC_DOUBLE, &a.sod, NULL, "MM", "fan: source to rotation axis distance", NULL, 0,
         0, &a.g_sod},
        {"sdd", 0, KC_DOUBLE, &a.sdd, NULL, "MM", "fan: source to detector distance", NULL, 0, 0,
         &a.g_sdd},
        {"size", 'n', KC_DIMS, &a.size, NULL, "N|NxM",
         "image size in pixels (default: detector count, square)", NULL, 1, 1 << 20, &a.g_size},
        {"voxel", 0, KC_DOUBLE, &a.voxel, NULL, "MM",
         "pixel size (default: --pitch, times sod/sdd for fans)", NULL, 0, 0, &a.g_voxel},
        {"filter", 'f', KC_CHOICE, &a.filter, "fft", "F",
         "fft: zero-padded FFT of the band-limited ramp with a window; direct: Ram-Lak spatial "
         "convolution; seed: the spatial kernel h(n) = -1/(4n^2-1) of Shepp and Logan (1974)",
         "fft|direct|seed", 0, 0, NULL},
        {"filter-window", 0, KC_CHOICE, &a.window, "ramlak", "W", "frequency window (fft filter)",
         "ramlak|shepp-logan|cosine|hamming|hann", 0, 0, NULL},
        {"cutoff", 0, KC_DOUBLE, &a.cutoff, "1", "F",
         "window cutoff as a fraction of Nyquist, (0, 1]", NULL, 1e-9, 1, NULL},
        {"seed-raw", 0, KC_FLAG, &a.seed_raw, NULL, NULL,
         "seed filter without its constant 2/(pi^2 tau): the result is pi^2 tau / 2 times the "
         "attenuation",
         NULL, 0, 0, NULL},
        {"parker", 0, KC_CHOICE, &a.short_scan, "auto", "P",
         "fan beams: Parker weights for scans shorter than 360 degrees", "auto|off|on", 0, 0, NULL},
        {"nonneg", 0, KC_FLAG, &a.clamp, NULL, NULL, "set negative pixels to 0", NULL, 0, 0, NULL},
        {"mu-water", 0, KC_DOUBLE, &a.mu_water, "0.0193", "1/MM",
         ".dcm output: attenuation of water for HU = 1000 (mu - mu_water) / mu_water", NULL, 1e-12,
         1e12, NULL},
        {"skimage", 0, KC_FLAG, &a.skimage, NULL, NULL,
         "the sinogram is scikit-image's radon(img, theta) output: NumPy shape (detectors, angles) "
         "read as such, theta = --angles (default 0:180:angles) with iradon's sign, rotation axis "
         "and image centre at index N//2, --circle: equals iradon(sino, theta) (unit pixels)",
         NULL, 0, 0, NULL},
        {"circle", 0, KC_FLAG, &a.circle, NULL, NULL,
         "zero the pixels outside the reconstruction circle, radius min(nx, ny)//2 pixels about "
         "the rotation axis (iradon's circle=True)", NULL, 0, 0, NULL},
        {"geom-out", 0, KC_STRING, &a.save_geom, NULL, "FILE",
         "also write the geometry used as JSON", NULL, 0, 0, NULL},
        KC_RAW_OPTS(raw),
        {"det-spacing", 0, KC_ALIAS, NULL, NULL, "pitch", NULL, NULL, 0, 0, NULL},
        {"cor-offset", 0, KC_ALIAS, NULL, NULL, "cor", NULL, NULL, 0, 0, NULL},
        {"clamp", 0, KC_ALIAS, NULL, NULL, "nonneg", NULL, NULL, 0, 0, NULL},
        {"save-geom", 0, KC_ALIAS, NULL, NULL, "geom-out", NULL, NULL, 0, 0, NULL},
        {"window", 0, KC_RENAMED, NULL, NULL, "--filter-window", "--window is the display window of kray convert", NULL, 0, 0, NULL},
        {"short-scan", 0, KC_RENAMED, NULL, NULL, "--parker", "--short-scan is the cone-beam scan range", NULL, 0, 0, NULL},
        {"", 's', KC_RENAMED, NULL, NULL, "-n", NULL, NULL, 0, 0, NULL},
        {"", 'w', KC_RENAMED, NULL, NULL, "--filter-window", NULL, NULL, 0, 0, NULL},
        {"", 'a', KC_RENAMED, NULL, NULL, "--angles", NULL, NULL, 0, 0, NULL},
        {0}};
    const kc_arg args[] = {{"sinogram", &pin, "line integrals [det, view] (or [det, view, n])", 0},
                           {"image", &pout, "attenuation image [x, y] in 1/mm (.dcm: HU)", 0},
                           {0}};
    const kc_spec spec = {
        "fbp",
        "Filtered backprojection of a parallel- or fan-beam sinogram into attenuation values\n"
        "(1/mm when lengths are in mm): ramp filter (band-limited Ram-Lak by zero-padded FFT\n"
        "with an optional window, or spatial convolution), fan-beam cosine and distance\n"
        "weights, Parker weights for short scans, pixel-driven linear-interpolation\n"
        "backprojection. Sinogram layout [det, view]: detectors vary fastest. A .dcm output is\n"
        "a CT Image Storage file in HU. With --json, one JSON object with the timings.",
        opts,
        args,
        KC_JSON,
        "Examples:\n"
        "  kray phantom --kind sinogram --size 512 --views 720 --units pixel sino.npy\n"
        "  kray fbp --angles 0:180:720 sino.npy recon.nii\n"
        "  kray fbp --type fan2d-flat --sod 500 --sdd 1000 --pitch 1.2 fan.npy recon.dcm\n"
        "  kray fbp --geom scan.json --filter-window hann --cutoff 0.8 sino.npy recon.npy\n"
        "  kray fbp --skimage sinogram_from_skimage.npy recon.npy   # = iradon(sinogram)",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;

    kr_io_opts io;
    kr_io_opts_default(&io);
    if (!kc_is_dcm(pout) && (r = kc_check_output("fbp", pout)) != 0) return r;
    if (a.save_geom && (r = (strlen(a.save_geom) > 5 &&
                             !strcasecmp(a.save_geom + strlen(a.save_geom) - 5, ".json"))
                                ? 0
                                : kc_usage("fbp", "--geom-out needs a .json file name")) != 0)
        return r;
    if ((r = kc_raw_to_io("fbp", pin, &raw, &io)) != 0) return r;

    kr_ctx *ctx = NULL;
    kr_ct_geom *g = NULL;
    kr_fbp_plan *plan = NULL;
    kr_array *sino = NULL, *conv = NULL, *img = NULL, *dsino = NULL, *dimg = NULL;
    const kr_dtype dt = kc_precision_dtype(&c);
    double t_read = 0, t_plan = 0, t_h2d = 0, t_exec = 0, t_d2h = 0, t_write = 0;
    kr_status s;
    double t0 = kr_time_now();
    if ((s = kc_read(pin, &sino, NULL, &io)) != KR_OK) goto fail;
    if (kr_dtype_is_complex(sino->dtype)) {
        kc_error("fbp", "'%s' holds complex values; a sinogram is real", pin);
        r = KC_EXIT_INPUT;
        goto done;
    }
    if (sino->dtype != dt) {
        if ((s = kr_array_astype(&conv, sino, dt)) != KR_OK) goto fail;
        kr_array_destroy(sino);
        sino = conv;
        conv = NULL;
    }
    if (a.skimage && kc_fbp_transpose(&sino) != 0) {
        s = KR_ERR_OOM_HOST;
        goto fail;
    }
    t_read = kr_time_now() - t0;
    if (!a.geom && !a.angles && a.type == 0 && (r = kc_fbp_check_layout(pin, sino)) != 0)
        goto done;
    if ((r = kc_fbp_geometry(&a, sino, &g)) != 0) goto done;
    if (a.save_geom && (s = kr_ct_geom_write_json(g, a.save_geom, 0)) != KR_OK &&
        (s = kr_ct_geom_write_json(g, a.save_geom, 1)) != KR_OK)
        goto fail;
    if ((r = kc_make_ctx("fbp", &c, &ctx)) != 0) goto done;

    kr_fbp_opts fo;
    kr_fbp_opts_default(&fo);
    fo.filter = (kr_filter_method)a.filter;
    fo.window = (kr_filter_window)a.window;
    fo.cutoff = a.cutoff;
    fo.seed_raw = a.seed_raw;
    fo.clamp_negative = a.clamp;
    fo.short_scan = a.short_scan == 0 ? -1 : a.short_scan == 1 ? 0 : 1;
    fo.dtype = dt;
    t0 = kr_time_now();
    if ((s = kr_fbp_plan_create(&plan, ctx, g, &fo)) != KR_OK) goto fail;
    t_plan = kr_time_now() - t0;

    int64_t idims[3];
    kr_ct_geom_image_dims(g, idims);
    idims[2] = sino->ndim > 2 ? sino->dims[2] : 1;
    if ((s = kr_array_create(&img, dt, idims[2] > 1 ? 3 : 2, idims, KR_HOST, NULL)) != KR_OK)
        goto fail;
    const int gpu = kr_ctx_backend(ctx) == KR_BACKEND_CUDA;
    if (gpu) {
        t0 = kr_time_now();
        if ((s = kr_array_clone(&dsino, sino, KR_DEVICE, ctx)) != KR_OK) goto fail;
        if ((s = kr_array_create_like(&dimg, img, KR_DEVICE, ctx)) != KR_OK) goto fail;
        t_h2d = kr_time_now() - t0;
    }
    t0 = kr_time_now();
    if ((s = kr_fbp_execute(plan, gpu ? dsino : sino, gpu ? dimg : img)) != KR_OK) goto fail;
    if (gpu && (s = kri_device_synchronize(ctx)) != KR_OK) goto fail;
    t_exec = kr_time_now() - t0;
    if (gpu) {
        t0 = kr_time_now();
        if ((s = kr_array_copy(img, dimg, ctx)) != KR_OK) goto fail;
        t_d2h = kr_time_now() - t0;
    }

    const kr_ct_grid *gr = kr_ct_geom_grid(g);
    if (a.circle || a.skimage) kc_fbp_circle(img, gr);
    t0 = kr_time_now();
    if (kc_is_dcm(pout)) {
        kr_dicom_opts dop;
        kr_dicom_opts_default(&dop);
        dop.mu_water = a.mu_water;
        dop.pixel_spacing_mm[0] = gr->voxel_mm[0];
        dop.pixel_spacing_mm[1] = gr->voxel_mm[1];
        dop.origin_mm[0] = gr->offset_mm[0];
        dop.origin_mm[1] = gr->offset_mm[1];
        if ((s = kr_write_dicom(pout, img, &dop)) != KR_OK) goto fail;
    } else {
        kr_meta meta;
        memset(&meta, 0, sizeof meta);
        meta.spacing[0] = gr->voxel_mm[0];
        meta.spacing[1] = gr->voxel_mm[1];
        meta.spacing[2] = 1;
        meta.origin[0] = gr->offset_mm[0] - 0.5 * (double)(gr->n[0] - 1) * gr->voxel_mm[0];
        meta.origin[1] = gr->offset_mm[1] - 0.5 * (double)(gr->n[1] - 1) * gr->voxel_mm[1];
        snprintf(meta.description, sizeof meta.description, "kray fbp %s %s",
                 kr_ct_type_name(kr_ct_geom_type(g)), kr_filter_window_name(fo.window));
        kr_io_opts wo;
        kr_io_opts_default(&wo);
        wo.axes = KR_IO_AXES_IMAGE;
        wo.meta = &meta;
        if ((s = kr_write(pout, img, &wo)) != KR_OK) goto fail;
    }
    t_write = kr_time_now() - t0;

    kr_fbp_info info;
    kr_fbp_plan_info(plan, &info);
    if (c.json) {
        kc_jo j;
        kc_jo_begin(&j);
        kc_jo_str(&j, "tool", "fbp");
        kc_jo_str(&j, "sinogram", pin);
        kc_jo_str(&j, "image", pout);
        kc_jo_str(&j, "geometry", kr_ct_type_name(kr_ct_geom_type(g)));
        kc_jo_int(&j, "views", kr_ct_geom_nviews(g));
        kc_jo_int(&j, "detectors", kr_ct_geom_det_count(g));
        kc_jo_ints(&j, "size", 2, idims);
        kc_jo_int(&j, "slices", idims[2]);
        kc_jo_str(&j, "backend", kr_backend_name(kr_ctx_backend(ctx)));
        kc_jo_str(&j, "precision", kr_dtype_name(dt));
        kc_jo_str(&j, "filter", kr_filter_method_name(fo.filter));
        kc_jo_str(&j, "window", kr_filter_window_name(fo.window));
        kc_jo_num(&j, "cutoff", fo.cutoff);
        kc_jo_bool(&j, "short_scan", info.short_scan);
        kc_jo_num(&j, "arc_deg", info.arc_deg);
        kc_jo_num(&j, "fan_deg", info.fan_deg);
        kc_jo_int(&j, "pad_len", info.pad_len);
        kc_jo_str(&j, "kernel", info.kernel);
        const char *tk[] = {"read_s", "plan_s", "h2d_s", "execute_s", "d2h_s", "write_s"};
        const double tv[] = {t_read, t_plan, t_h2d, t_exec, t_d2h, t_write};
        for (int i = 0; i < 6; i++) kc_jo_num(&j, tk[i], tv[i]);
        kc_jo_end(&j);
    } else if (c.verbose) {
        char b1[32], b2[32];
        kc_note("fbp", "%s, %lld views x %lld detectors -> %lldx%lld (%s, %s): plan "
                "%s, execute %s",
                kr_ct_type_name(kr_ct_geom_type(g)), (long long)kr_ct_geom_nviews(g),
                (long long)kr_ct_geom_det_count(g), (long long)idims[0], (long long)idims[1],
                kr_backend_name(kr_ctx_backend(ctx)), kr_dtype_name(dt),
                kc_fmt_seconds(t_plan, b1, sizeof b1), kc_fmt_seconds(t_exec, b2, sizeof b2));
    }
    r = 0;
    goto done;
fail:
    r = kc_fail("fbp", s);
done:
    kr_fbp_plan_destroy(plan);
    kr_array_destroy(sino);
    kr_array_destroy(conv);
    kr_array_destroy(img);
    kr_array_destroy(dsino);
    kr_array_destroy(dimg);
    kr_ct_geom_destroy(g);
    kr_ctx_destroy(ctx);
    return r;
}
