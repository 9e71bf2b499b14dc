/* kray metrics: compare an image with a reference (MSE, PSNR, SSIM, NRMSE, max error). */
#include "cli.h"

#include <math.h>
#include <string.h>

/* Same dims, trailing 1s ignored. */
static int kc_same_dims(const kr_array *a, const kr_array *b)
{
    int n = a->ndim > b->ndim ? a->ndim : b->ndim;
    for (int i = 0; i < n; i++) {
        int64_t da = i < a->ndim ? a->dims[i] : 1, db = i < b->ndim ? b->dims[i] : 1;
        if (da != db) return 0;
    }
    return 1;
}

static kr_status kc_read_pair(const char *px, const char *pr, const kr_io_opts *io, kr_array **x,
                              kr_array **ref)
{
    *x = *ref = NULL;
    kr_status s = kc_read(px, x, NULL, io);
    if (s != KR_OK) return s;
    s = kc_read(pr, ref, NULL, io);
    if (s != KR_OK) {
        kr_array_destroy(*x);
        *x = NULL;
    }
    return s;
}

int kc_tool_metrics(int argc, char **argv)
{
    const char *px = NULL, *pr = NULL;
    double range = 0.0;
    kc_raw raw;
    memset(&raw, 0, sizeof raw);
    const kc_opt opts[] = {
        {"range", 'r', KC_DOUBLE, &range, "0", "L",
         "data range L for PSNR and SSIM, in image units (0 = max(ref) - min(ref))", NULL, 0, 1e300,
         NULL},
        KC_RAW_OPTS(raw),
        {0}};
    const kc_arg args[] = {{"x", &px, "image to assess", 0},
                           {"ref", &pr, "reference image (same dimensions)", 0},
                           {0}};
    const kc_spec spec = {
        "metrics",
        "Compare <x> with <ref> in float64: MSE = mean (x - ref)^2, PSNR = 10 log10(L^2 / MSE)\n"
        "in dB (inf when identical), SSIM (Wang 2004: Gaussian window sigma 1.5, K1 0.01,\n"
        "K2 0.03; planes of at least 11x11, mean over the slices of a volume), NRMSE =\n"
        "||x - ref|| / ||ref|| and the maximum absolute error. Element types may differ;\n"
        "complex data are compared by magnitude. With --json, one JSON object (PSNR is null\n"
        "when the images are identical, SSIM null when the planes are too small).\n"
        "Runs on the GPU with --backend cuda (or auto on a GPU machine).",
        opts,
        args,
        KC_JSON,
        "Examples:\n  kray metrics recon.nii phantom.nii\n"
        "  kray metrics --range 1 --json recon.npy phantom.npy",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;

    kr_io_opts io;
    kr_io_opts_default(&io);
    io.axes = KR_IO_AXES_IMAGE;
    if ((r = kc_raw_to_io("metrics", px, &raw, &io)) != 0) return r;
    if ((r = kc_raw_to_io("metrics", pr, &raw, &io)) != 0) return r;

    kr_ctx *ctx = NULL;
    if ((r = kc_make_ctx("metrics", &c, &ctx)) != 0) return r;

    kr_array *x = NULL, *ref = NULL, *dx = NULL, *dref = NULL;
    kr_metrics m;
    memset(&m, 0, sizeof m);
    double t0 = 0, t1 = 0;
    kr_status s = kc_read_pair(px, pr, &io, &x, &ref);
    if (s != KR_OK) goto fail;
    if (!kc_same_dims(x, ref)) {
        char a[128], b[128];
        kc_error("metrics", "'%s' has %s values but '%s' has %s", px,
                kr_dims_string(x->ndim, x->dims, a, sizeof a), pr,
                kr_dims_string(ref->ndim, ref->dims, b, sizeof b));
        r = KC_EXIT_INPUT;
        goto done;
    }
    /* Element types may differ: the library compares in float64 (complex by magnitude). */
    const kr_array *ux = x, *uref = ref;
    if (kr_ctx_backend(ctx) == KR_BACKEND_CUDA) {
        if ((s = kr_array_clone(&dx, x, KR_DEVICE, ctx)) != KR_OK ||
            (s = kr_array_clone(&dref, ref, KR_DEVICE, ctx)) != KR_OK)
            goto fail;
        ux = dx;
        uref = dref;
    }
    t0 = kr_time_now();
    s = kr_metrics_compute(ctx, ux, uref, range, &m);
    t1 = kr_time_now();
    if (s != KR_OK) goto fail;

    if (c.json) {
        kc_jo j;
        kc_jo_begin(&j);
        kc_jo_str(&j, "x", px);
        kc_jo_str(&j, "ref", pr);
        kc_jo_ints(&j, "dims", ref->ndim, ref->dims);
        kc_jo_metrics(&j, &m);
        kc_jo_str(&j, "backend", kr_backend_name(kr_ctx_backend(ctx)));
        kc_jo_num(&j, "seconds", t1 - t0);
        kc_jo_end(&j);
    } else {
        char d[128];
        printf("x       %s\nref     %s\ndims    %s\n", px, pr,
               kr_dims_string(ref->ndim, ref->dims, d, sizeof d));
        printf("range   %.9g\n", m.range);
        printf("MSE     %.6g\n", m.mse);
        if (isinf(m.psnr))
            printf("PSNR    inf dB (identical)\n");
        else
            printf("PSNR    %.4f dB\n", m.psnr);
        if (isnan(m.ssim))
            printf("SSIM    n/a (needs planes of at least 11x11)\n");
        else
            printf("SSIM    %.6f\n", m.ssim);
        printf("NRMSE   %.6g\n", m.nrmse);
        printf("MAXERR  %.6g\n", m.maxerr);
    }
    r = 0;
    goto done;
fail:
    r = kc_fail("metrics", s);
done:
    kr_array_destroy(dx);
    kr_array_destroy(dref);
    kr_array_destroy(x);
    kr_array_destroy(ref);
    kr_ctx_destroy(ctx);
    return r;
}
