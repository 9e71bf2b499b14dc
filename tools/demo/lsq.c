/* kray demo section "lsq": Tikhonov-regularised deblurring with CG and CGLS on a kr_linop. */
#include "demo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KC_BLUR_R 4

/* Separable Gaussian blur with zero boundary on [n, n] images. The matrix is symmetric, so the
 * adjoint is the blur itself (checked by kr_linop_adjoint_test below). */
typedef struct kc_blur {
    int64_t n;
    double g[2 * KC_BLUR_R + 1];
    double *tmp; /* n*n work image */
} kc_blur;

static double kc_get(const kr_array *a, int64_t i)
{
    return a->dtype == KR_F32 ? ((const float *)a->data)[i] : ((const double *)a->data)[i];
}

static void kc_lsq_set(kr_array *a, int64_t i, double v)
{
    if (a->dtype == KR_F32)
        ((float *)a->data)[i] = (float)v;
    else
        ((double *)a->data)[i] = v;
}

static kr_status kc_blur_apply(void *data, const kr_array *in, kr_array *out)
{
    const kc_blur *b = data;
    const int64_t n = b->n;
    for (int64_t y = 0; y < n; y++) /* along x into tmp */
        for (int64_t x = 0; x < n; x++) {
            double acc = 0;
            for (int t = -KC_BLUR_R; t <= KC_BLUR_R; t++) {
                int64_t xx = x + t;
                if (xx >= 0 && xx < n) acc += b->g[t + KC_BLUR_R] * kc_get(in, xx + n * y);
            }
            b->tmp[x + n * y] = acc;
        }
    for (int64_t y = 0; y < n; y++) /* along y into out */
        for (int64_t x = 0; x < n; x++) {
            double acc = 0;
            for (int t = -KC_BLUR_R; t <= KC_BLUR_R; t++) {
                int64_t yy = y + t;
                if (yy >= 0 && yy < n) acc += b->g[t + KC_BLUR_R] * b->tmp[x + n * yy];
            }
            kc_lsq_set(out, x + n * y, acc);
        }
    return KR_OK;
}

static void kc_blur_free(void *data)
{
    kc_blur *b = data;
    if (b) free(b->tmp);
    free(b);
}

static kr_status kc_blur_create(kr_linop **op, const kr_ctx *ctx, kr_dtype dt, int64_t n,
                                double sigma)
{
    kc_blur *b = calloc(1, sizeof *b);
    if (!b || !(b->tmp = malloc(sizeof(double) * (size_t)(n * n)))) {
        kc_blur_free(b);
        return KR_ERR_OOM_HOST;
    }
    b->n = n;
    double sum = 0;
    for (int t = -KC_BLUR_R; t <= KC_BLUR_R; t++)
        sum += b->g[t + KC_BLUR_R] = exp(-0.5 * t * t / (sigma * sigma));
    for (int t = 0; t < 2 * KC_BLUR_R + 1; t++) b->g[t] /= sum;
    kr_linop_def def;
    memset(&def, 0, sizeof def);
    def.name = "gaussian blur";
    def.dtype = dt;
    def.loc = KR_HOST;
    def.in_ndim = def.out_ndim = 2;
    def.in_dims[0] = def.in_dims[1] = def.out_dims[0] = def.out_dims[1] = n;
    def.forward = kc_blur_apply;
    def.adjoint = kc_blur_apply;
    def.destroy = kc_blur_free;
    def.data = b;
    kr_status s = kr_linop_create(op, ctx, &def);
    if (s != KR_OK) kc_blur_free(b); /* the operator did not take ownership */
    return s;
}

static kr_status kc_run_lsq(kc_demo *d)
{
    const int64_t n = d->quick ? 64 : 128;
    const double sigma_blur = 1.5, noise = 0.01, lambda = 3e-2; /* both PSNR and SSIM rise */
    const int iters = d->quick ? 30 : 60;
    kr_linop *A = NULL, *AtA = NULL;
    kr_array *truth = NULL, *y = NULL, *b = NULL, *xcgls = NULL, *xcg = NULL, *err = NULL;
    double *hist_cgls = calloc((size_t)iters + 1, sizeof(double)),
           *hist_cg = calloc((size_t)iters + 1, sizeof(double)),
           *nz = malloc(sizeof(double) * (size_t)(n * n));
    kr_solve_info icgls, icg;
    kr_metrics m_data, m_cgls, m_cg, m_agree;
    double adj = 0, t_cgls = 0, t_cg = 0;
    char tb[32], tb2[32];
    kr_status s = KR_OK;
    if (!hist_cgls || !hist_cg || !nz) {
        s = KR_ERR_OOM_HOST;
        goto done;
    }
    memset(&icgls, 0, sizeof icgls);
    memset(&icg, 0, sizeof icg);

    kc_report_para(d->report,
                   "A small least-squares problem through kray's operator layer: the modified "
                   "Shepp-Logan phantom (%lldx%lld) blurred by a separable Gaussian (sigma %.1f "
                   "pixels, zero boundary; a kr_linop whose adjoint is checked by the "
                   "dot-product test) plus Gaussian noise (sigma %.2f), then restored by "
                   "minimising ||A x - y||^2 + lambda ||x||^2 (lambda %.0e) with CGLS, and with "
                   "CG on the normal equations (A^T A + lambda I) x = A^T y. Both must reach the "
                   "same minimiser. lambda is set for the noise: much smaller (2e-3) and the "
                   "solution fits the noise, so PSNR rises while SSIM falls. The operator is a "
                   "host callback, so this section runs on the CPU.",
                   (long long)n, (long long)n, sigma_blur, noise, lambda);

    if ((s = kc_blur_create(&A, d->cpu, d->real, n, sigma_blur)) != KR_OK) goto done;
    if ((s = kr_linop_adjoint_test(A, 12345u, &adj)) != KR_OK) goto done;
    if ((s = kr_phantom_2d(&truth, KR_PHANTOM_MODIFIED_SL, n, n, 2, d->real)) != KR_OK) goto done;
    if ((s = kr_array_create_like(&y, truth, KR_HOST, NULL)) != KR_OK) goto done;
    if ((s = kr_linop_forward(A, truth, y)) != KR_OK) goto done;
    kc_demo_noise(nz, n * n, noise, 2024u);
    for (int64_t i = 0; i < n * n; i++) kc_lsq_set(y, i, kc_get(y, i) + nz[i]);

    kr_solve_opts o;
    kr_solve_opts_default(&o);
    o.max_iter = iters;
    o.tol = 1e-12; /* run every iteration: the curve is the point */
    o.lambda = lambda;
    o.history = hist_cgls;
    if ((s = kr_array_create_like(&xcgls, truth, KR_HOST, NULL)) != KR_OK) goto done;
    double t0 = kr_time_now();
    if ((s = kr_cgls(d->cpu, A, y, xcgls, &o, &icgls)) != KR_OK) goto done;
    t_cgls = kr_time_now() - t0;

    if ((s = kr_linop_chain(&AtA, A, A)) != KR_OK) goto done; /* A^T A = A A (A symmetric) */
    if ((s = kr_array_create_like(&b, truth, KR_HOST, NULL)) != KR_OK) goto done;
    if ((s = kr_linop_adjoint(A, y, b)) != KR_OK) goto done;
    if ((s = kr_array_create_like(&xcg, truth, KR_HOST, NULL)) != KR_OK) goto done;
    o.history = hist_cg;
    t0 = kr_time_now();
    if ((s = kr_cg(d->cpu, AtA, b, xcg, &o, &icg)) != KR_OK) goto done;
    t_cg = kr_time_now() - t0;

    if ((s = kr_metrics_compute(d->cpu, y, truth, 1.0, &m_data)) != KR_OK ||
        (s = kr_metrics_compute(d->cpu, xcgls, truth, 1.0, &m_cgls)) != KR_OK ||
        (s = kr_metrics_compute(d->cpu, xcg, truth, 1.0, &m_cg)) != KR_OK ||
        (s = kr_metrics_compute(d->cpu, xcg, xcgls, 1.0, &m_agree)) != KR_OK)
        goto done;

    if ((s = kr_array_create_like(&err, truth, KR_HOST, NULL)) != KR_OK) goto done;
    for (int64_t i = 0; i < n * n; i++)
        kc_lsq_set(err, i, fabs(kc_get(xcgls, i) - kc_get(truth, i)));
    kc_report_figures_begin(d->report);
    if ((s = kc_demo_png(d, "lsq_truth", truth, 0.0, 1.0, -1, 0, "Truth (window 0 to 1)")) !=
            KR_OK ||
        (s = kc_demo_png(d, "lsq_data", y, 0.0, 1.0, -1, 0, "Blurred + noise: y")) != KR_OK ||
        (s = kc_demo_png(d, "lsq_cgls", xcgls, 0.0, 1.0, -1, 0, "CGLS solution")) != KR_OK ||
        (s = kc_demo_png(d, "lsq_error", err, 0.0, 0.2, -1, 0,
                         "|CGLS - truth| (window 0 to 0.2)")) != KR_OK) {
        kc_report_figures_end(d->report);
        goto done;
    }
    kc_report_figures_end(d->report);

    const char *names[2] = {"CGLS: ||A^T r|| / ||A^T r0||", "CG on normal equations"};
    const double *curves[2] = {hist_cgls, hist_cg};
    int lens[2] = {icgls.iterations + 1, icg.iterations + 1};
    kc_report_chart(d->report, "Relative residual of the normal equations per iteration",
                    "iteration", "relative residual", 2, names, curves, lens, 1);

    const char *hdr[] = {"image", "iterations", "final relative residual", "PSNR (dB)", "SSIM",
                         "NRMSE", "time"};
    kc_report_table_begin(d->report, 7, hdr);
    kc_report_table_rowf(d->report, "data y\t\t\t%.2f\t%.4f\t%.4f\t", m_data.psnr, m_data.ssim,
                         m_data.nrmse);
    kc_report_table_rowf(d->report, "CGLS\t%d\t%.3g\t%.2f\t%.4f\t%.4f\t%s", icgls.iterations,
                         icgls.rel_residual, m_cgls.psnr, m_cgls.ssim, m_cgls.nrmse,
                         kc_fmt_seconds(t_cgls, tb, sizeof tb));
    kc_report_table_rowf(d->report, "CG (normal equations)\t%d\t%.3g\t%.2f\t%.4f\t%.4f\t%s",
                         icg.iterations, icg.rel_residual, m_cg.psnr, m_cg.ssim, m_cg.nrmse,
                         kc_fmt_seconds(t_cg, tb2, sizeof tb2));
    kc_report_table_end(d->report);
    kc_report_para(d->report,
                   "Adjoint test of the blur operator: |<Ax, y> - <x, A^T y>| / (|Ax| |y|) = "
                   "%.2g. CG and CGLS solutions differ by NRMSE %.2g.",
                   adj, m_agree.nrmse);

    kc_demo_say(d,
                "deblurring %lldx%lld: data PSNR %.2f dB -> CGLS %.2f dB (%d it, %s), CG %.2f dB; "
                "CG vs CGLS NRMSE %.1g",
                (long long)n, (long long)n, m_data.psnr, m_cgls.psnr, icgls.iterations,
                kc_fmt_seconds(t_cgls, tb, sizeof tb), m_cg.psnr, m_agree.nrmse);
done:
    free(hist_cgls);
    free(hist_cg);
    free(nz);
    kr_linop_destroy(AtA);
    kr_linop_destroy(A);
    kr_array *all[] = {truth, y, b, xcgls, xcg, err};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) kr_array_destroy(all[i]);
    return s;
}

const kc_demo_section kc_demo_lsq = {"lsq", "Least squares: deblurring with CG and CGLS",
                                     kc_run_lsq};
