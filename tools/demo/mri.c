/* kray demo section "mri": analytic k-space -> centred inverse FFT -> image vs phantom. */
#include "demo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Centred Cartesian grid: kx, ky in [-n/2, n/2) cycles per FOV, kx fastest. */
static double *kc_kgrid(int64_t n)
{
    double *k = malloc(sizeof(double) * (size_t)(2 * n * n));
    if (!k) return NULL;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            k[2 * (j * n + i)] = (double)(i - n / 2);
            k[2 * (j * n + i) + 1] = (double)(j - n / 2);
        }
    return k;
}

/* View a [n*n*c] library result as [n, n, c] (contiguous, same memory). */
static void kc_reshape(kr_array *a, int64_t n, int64_t c)
{
    a->ndim = c > 1 ? 3 : 2;
    a->dims[0] = n;
    a->dims[1] = n;
    a->dims[2] = c;
    for (int i = a->ndim; i < KR_MAX_DIMS; i++) a->dims[i] = 1;
    if (c == 1) a->dims[2] = 1;
    a->strides[0] = 1;
    for (int i = 1; i < KR_MAX_DIMS; i++) a->strides[i] = a->strides[i - 1] * a->dims[i - 1];
}

/* New f64 [n, n] array: real part of the first n*n elements times `scale`. */
static kr_status kc_real_part(const kr_array *a, int64_t n, double scale, kr_array **out,
                              double *max_imag)
{
    int64_t dims[2] = {n, n};
    kr_status s = kr_array_create(out, KR_F64, 2, dims, KR_HOST, NULL);
    if (s != KR_OK) return s;
    double *o = (*out)->data, mi = 0;
    for (int64_t i = 0; i < n * n; i++) {
        double re, im;
        kc_elem(a, i, &re, &im);
        o[i] = re * scale;
        if (fabs(im * scale) > mi) mi = fabs(im * scale);
    }
    if (max_imag) *max_imag = mi;
    return KR_OK;
}

static void kc_metrics_row(kc_demo *d, const char *what, const kr_metrics *m, double tk, double tf,
                           double maximag)
{
    char a[32], b[32];
    kc_report_table_rowf(d->report, "%s\t%.2f\t%.4f\t%.4f\t%.3g\t%.2g\t%s\t%s", what, m->psnr,
                         m->ssim, m->nrmse, m->maxerr, maximag, kc_fmt_seconds(tk, a, sizeof a),
                         kc_fmt_seconds(tf, b, sizeof b));
}

/* Throughput of the centred inverse 2-D FFT over a stack of coil images, CPU and GPU. */
static kr_status kc_fft_bench(kc_demo *d, kr_dtype cdt)
{
    const int64_t n = d->quick ? 256 : 512, nc = 8;
    const int reps = d->quick ? 3 : 10;
    int64_t dims[3] = {n, n, nc};
    kr_array *h = NULL, *ho = NULL, *dv = NULL, *dvo = NULL;
    kr_fft_plan *pc = NULL, *pg = NULL;
    double tcpu = 0, tgpu = 0, tcopy = 0, tgpu_all = 0, maxdiff = 0;
    char a[32], b[32], c[32];
    kr_status s;
    if ((s = kr_array_create(&h, cdt, 3, dims, KR_HOST, NULL)) != KR_OK) goto done;
    if ((s = kr_array_create(&ho, cdt, 3, dims, KR_HOST, NULL)) != KR_OK) goto done;
    if ((s = kr_vec_random(d->cpu, h, 7u)) != KR_OK) goto done;
    if ((s = kr_fft_plan_create(&pc, d->cpu, cdt, 3, dims, 3u, KR_FFT_BACKWARD, KR_FFT_CENTERED,
                                KR_HOST)) != KR_OK ||
        (s = kr_fft_execute(pc, h, ho)) != KR_OK)
        goto done;
    double t0 = kr_time_now();
    for (int r = 0; r < reps; r++)
        if ((s = kr_fft_execute(pc, h, ho)) != KR_OK) goto done;
    tcpu = (kr_time_now() - t0) / reps;
    if (d->gpu) {
        kr_array *back = NULL;
        if ((s = kr_array_clone(&dv, h, KR_DEVICE, d->ctx)) != KR_OK) goto done;
        if ((s = kr_array_create_like(&dvo, h, KR_DEVICE, d->ctx)) != KR_OK) goto done;
        if ((s = kr_array_create_like(&back, h, KR_HOST, NULL)) != KR_OK) goto done;
        /* plan and warm up, then: copy alone; reps transforms + one copy */
        s = kr_fft_plan_create(&pg, d->ctx, cdt, 3, dims, 3u, KR_FFT_BACKWARD, KR_FFT_CENTERED,
                               KR_DEVICE);
        if (s == KR_OK) s = kr_fft_execute(pg, dv, dvo);
        if (s == KR_OK) s = kr_array_copy(back, dvo, d->ctx);
        t0 = kr_time_now();
        if (s == KR_OK) s = kr_array_copy(back, dvo, d->ctx);
        tcopy = kr_time_now() - t0;
        t0 = kr_time_now();
        for (int r = 0; r < reps && s == KR_OK; r++) s = kr_fft_execute(pg, dv, dvo);
        if (s == KR_OK) s = kr_array_copy(back, dvo, d->ctx);
        tgpu_all = kr_time_now() - t0;
        tgpu = (tgpu_all - tcopy) / reps;
        if (tgpu < 0) tgpu = 0;
        double scale = 0;
        for (int64_t i = 0; s == KR_OK && i < kr_array_numel(h); i++) {
            double xr, xi, yr, yi;
            kc_elem(ho, i, &xr, &xi);
            kc_elem(back, i, &yr, &yi);
            double e = hypot(xr - yr, xi - yi), m = hypot(xr, xi);
            if (e > maxdiff) maxdiff = e;
            if (m > scale) scale = m;
        }
        if (scale > 0) maxdiff /= scale;
        kr_array_destroy(back);
        if (s != KR_OK) goto done;
    }
    const char *hdr[] = {"backend", "transform (planned once)", "time per transform", "throughput"};
    double gb = (double)kr_array_bytes(h) / 1e9;
    kc_report_table_begin(d->report, 4, hdr);
    kc_report_table_rowf(d->report,
                         "cpu (%d threads)\t%d x %lldx%lld %s, centred inverse\t%s\t%.2f GB/s",
                         kr_ctx_threads(d->cpu), (int)nc, (long long)n, (long long)n,
                         kr_dtype_name(cdt), kc_fmt_seconds(tcpu, a, sizeof a), gb / tcpu);
    if (d->gpu)
        kc_report_table_rowf(d->report,
                             "cuda\tsame (max |GPU - CPU| / max |CPU| = %.1e)\t%s (+ %s to copy "
                             "the result to the host)\t%.2f GB/s",
                             maxdiff, kc_fmt_seconds(tgpu, b, sizeof b),
                             kc_fmt_seconds(tcopy, c, sizeof c), tgpu > 0 ? gb / tgpu : 0.0);
    kc_report_table_end(d->report);
    if (d->gpu)
        kc_demo_say(d, "FFT %d x %lld^2: cpu %s, gpu %s per transform (%.0fx)", (int)nc,
                    (long long)n, kc_fmt_seconds(tcpu, a, sizeof a),
                    kc_fmt_seconds(tgpu, b, sizeof b), tgpu > 0 ? tcpu / tgpu : 0.0);
    else
        kc_demo_say(d, "FFT %d x %lld^2: cpu %s per transform (no GPU)", (int)nc, (long long)n,
                    kc_fmt_seconds(tcpu, a, sizeof a));
done:
    kr_fft_plan_destroy(pc);
    kr_fft_plan_destroy(pg);
    kr_array_destroy(h);
    kr_array_destroy(ho);
    kr_array_destroy(dv);
    kr_array_destroy(dvo);
    return s;
}

static kr_status kc_run_mri(kc_demo *d)
{
    const int64_t n = d->quick ? 128 : 256;
    const int ncoil = d->quick ? 4 : 8;
    const kr_dtype cdt = kr_dtype_complex(d->real);
    const double scale = 1.0 / (double)(n * n);
    kr_array *K = NULL, *Kc = NULL, *img = NULL, *rec = NULL, *ref = NULL, *logk = NULL,
             *err = NULL, *dK = NULL, *dimg = NULL, *himg = NULL, *grec = NULL, *KC = NULL,
             *KCc = NULL, *cimg = NULL, *maps = NULL, *comb = NULL;
    kr_metrics m, mg, mc;
    kr_fft_plan *gplan = NULL;
    double tk = 0, tf1 = 0, tf = 0, tkc = 0, tfc = 0, tg1 = 0, tg = 0, imag = 0, gimag = 0,
           cimag = 0, gdiff = 0;
    char caption[256], tb[32], tb2[32];
    kr_status s = KR_OK;
    double *k = kc_kgrid(n);
    if (!k) return KR_ERR_OOM_HOST;

    kc_report_para(
        d->report,
        "The analytic Fourier transform of the modified Shepp-Logan phantom (sums of "
        "Bessel J1 terms, one per ellipse) is sampled on the %lldx%lld Cartesian grid "
        "kx, ky = -N/2 .. N/2-1 cycles per FOV, transformed back with kray's centred "
        "inverse FFT (scaled by 1/N^2) and compared with the phantom rasterised with "
        "4x4 supersampling. The remaining difference is Gibbs ringing at the edges "
        "from truncating k-space (an exact property of the data, not an error of the "
        "FFT); PSNR/SSIM use the data range 1. Both images are on the FFT grid (origin at "
        "pixel N/2), as MRI and BART use.",
        (long long)n, (long long)n);

    double t0 = kr_time_now();
    if ((s = kr_phantom_kspace(&K, KR_PHANTOM_MODIFIED_SL, k, n * n, n)) != KR_OK) goto done;
    tk = kr_time_now() - t0;
    kc_reshape(K, n, 1);
    if ((s = kr_array_astype(&Kc, K, cdt)) != KR_OK) goto done;
    if ((s = kr_array_create_like(&img, Kc, KR_HOST, NULL)) != KR_OK) goto done;
    t0 = kr_time_now();
    if ((s = kr_fft(d->cpu, Kc, img, 3u, KR_FFT_BACKWARD, KR_FFT_CENTERED)) != KR_OK) goto done;
    tf1 = kr_time_now() - t0;
    t0 = kr_time_now();
    if ((s = kr_fft(d->cpu, Kc, img, 3u, KR_FFT_BACKWARD, KR_FFT_CENTERED)) != KR_OK) goto done;
    tf = kr_time_now() - t0;
    if ((s = kc_real_part(img, n, scale, &rec, &imag)) != KR_OK) goto done;
    {
        int ne = 0;
        const kr_ellipse *e = kr_phantom_ellipses(KR_PHANTOM_MODIFIED_SL, &ne);
        if ((s = kr_phantom_2d_grid(&ref, e, ne, KR_GRID_FFT, n, n, 4, KR_F64)) != KR_OK) goto done;
    }
    if ((s = kr_metrics_compute(d->cpu, rec, ref, 1.0, &m)) != KR_OK) goto done;

    /* images: log |k|, reconstruction, reference, error */
    int64_t dims2[2] = {n, n};
    if ((s = kr_array_create(&logk, KR_F64, 2, dims2, KR_HOST, NULL)) != KR_OK) goto done;
    if ((s = kr_array_create(&err, KR_F64, 2, dims2, KR_HOST, NULL)) != KR_OK) goto done;
    for (int64_t i = 0; i < n * n; i++) {
        double re, im;
        kc_elem(K, i, &re, &im);
        ((double *)logk->data)[i] = log10(1.0 + hypot(re, im));
        ((double *)err->data)[i] = fabs(((double *)rec->data)[i] - ((double *)ref->data)[i]);
    }
    kc_report_figures_begin(d->report);
    if ((s = kc_demo_png(d, "mri_kspace_log", logk, 0, 0, -1, 0,
                         "Analytic k-space, log10(1 + |F|) (kx across, ky down; k = 0 at the "
                         "centre)")) != KR_OK)
        goto done;
    if ((s = kc_demo_png(d, "mri_recon", rec, 0.0, 1.0, -1, 0,
                         "Centred inverse FFT / N^2, real part (window 0 to 1)")) != KR_OK)
        goto done;
    if ((s = kc_demo_png(d, "mri_reference", ref, 0.0, 1.0, -1, 0,
                         "Phantom rasterised on the FFT grid, 4x4 supersampling")) != KR_OK)
        goto done;
    if ((s = kc_demo_png(d, "mri_error", err, 0.0, 0.1, -1, 0,
                         "|difference| (window 0 to 0.1): Gibbs ringing at the edges")) != KR_OK)
        goto done;
    kc_report_figures_end(d->report);

    /* GPU: the same inverse FFT with cuFFT. */
    if (d->gpu) {
        if ((s = kr_array_clone(&dK, Kc, KR_DEVICE, d->ctx)) != KR_OK) goto done;
        if ((s = kr_array_create_like(&dimg, Kc, KR_DEVICE, d->ctx)) != KR_OK) goto done;
        if ((s = kr_array_create_like(&himg, Kc, KR_HOST, NULL)) != KR_OK) goto done;
        t0 = kr_time_now();
        if ((s = kr_fft_plan_create(&gplan, d->ctx, cdt, 2, dims2, 3u, KR_FFT_BACKWARD,
                                    KR_FFT_CENTERED, KR_DEVICE)) != KR_OK)
            goto done;
        if ((s = kr_fft_execute(gplan, dK, dimg)) != KR_OK) goto done;
        if ((s = kr_array_copy(himg, dimg, d->ctx)) != KR_OK) goto done;
        tg1 = kr_time_now() - t0;
        t0 = kr_time_now();
        if ((s = kr_fft_execute(gplan, dK, dimg)) != KR_OK) goto done;
        if ((s = kr_array_copy(himg, dimg, d->ctx)) != KR_OK) goto done;
        tg = kr_time_now() - t0;
        if ((s = kc_real_part(himg, n, scale, &grec, &gimag)) != KR_OK) goto done;
        if ((s = kr_metrics_compute(d->cpu, grec, ref, 1.0, &mg)) != KR_OK) goto done;
        for (int64_t i = 0; i < n * n; i++) {
            double e = fabs(((double *)grec->data)[i] - ((double *)rec->data)[i]);
            if (e > gdiff) gdiff = e;
        }
    }

    /* Coils: analytic k-space of coil-weighted phantom, per-coil inverse FFT, combination
     * x = sum_c conj(s_c) I_c / sum_c |s_c|^2 with the analytic maps. */
    t0 = kr_time_now();
    if ((s = kr_phantom_kspace_coils(&KC, KR_PHANTOM_MODIFIED_SL, k, n * n, n, ncoil)) != KR_OK)
        goto done;
    tkc = kr_time_now() - t0;
    kc_reshape(KC, n, ncoil);
    if ((s = kr_array_astype(&KCc, KC, cdt)) != KR_OK) goto done;
    if ((s = kr_array_create_like(&cimg, KCc, KR_HOST, NULL)) != KR_OK) goto done;
    t0 = kr_time_now();
    if ((s = kr_fft(d->cpu, KCc, cimg, 3u, KR_FFT_BACKWARD, KR_FFT_CENTERED)) != KR_OK) goto done;
    tfc = kr_time_now() - t0;
    if ((s = kr_phantom_coil_maps(&maps, n, ncoil)) != KR_OK) goto done;
    if (kr_array_numel(maps) != n * n * ncoil) {
        s = KR_ERR_DIM;
        goto done;
    }
    {
        kr_array *cplx = NULL;
        if ((s = kr_array_create(&cplx, KR_C128, 2, dims2, KR_HOST, NULL)) != KR_OK) goto done;
        double *o = cplx->data;
        for (int64_t i = 0; i < n * n; i++) {
            double nr = 0, ni = 0, den = 0;
            for (int c = 0; c < ncoil; c++) {
                double sr, si, ir, ii;
                kc_elem(maps, i + c * n * n, &sr, &si);
                kc_elem(cimg, i + c * n * n, &ir, &ii);
                nr += sr * ir + si * ii; /* conj(s) * I */
                ni += sr * ii - si * ir;
                den += sr * sr + si * si;
            }
            o[2 * i] = den > 1e-12 ? nr / den : 0.0;
            o[2 * i + 1] = den > 1e-12 ? ni / den : 0.0;
        }
        s = kc_real_part(cplx, n, scale, &comb, &cimag);
        kr_array_destroy(cplx);
        if (s != KR_OK) goto done;
    }
    if ((s = kr_metrics_compute(d->cpu, comb, ref, 1.0, &mc)) != KR_OK) goto done;
    kc_report_figures_begin(d->report);
    snprintf(caption, sizeof caption, "Coil 1 of %d: |inverse FFT| of its analytic k-space", ncoil);
    if ((s = kc_demo_png(d, "mri_coil1", cimg, 0, 0, 0, 0, caption)) != KR_OK) goto done;
    if ((s = kc_demo_png(d, "mri_coil1_map", maps, 0, 0, 0, 0,
                         "Coil 1 sensitivity |s_1| (analytic)")) != KR_OK)
        goto done;
    snprintf(caption, sizeof caption,
             "%d coils combined with the analytic maps, real part (window 0 to 1)", ncoil);
    if ((s = kc_demo_png(d, "mri_coil_combined", comb, 0.0, 1.0, -1, 0, caption)) != KR_OK)
        goto done;
    kc_report_figures_end(d->report);

    const char *hdr[] = {"case",       "PSNR (dB)",         "SSIM",       "NRMSE", "max error",
                         "max |imag|", "k-space synthesis", "inverse FFT"};
    kc_report_table_begin(d->report, 8, hdr);
    snprintf(caption, sizeof caption, "single coil, CPU (%s; first call with planning %s)",
             kr_dtype_name(cdt), kc_fmt_seconds(tf1, tb, sizeof tb));
    kc_metrics_row(d, caption, &m, tk, tf, imag);
    if (d->gpu) {
        snprintf(
            caption, sizeof caption,
            "single coil, GPU (FFT + copy to host; planning + first call %s; max |GPU - CPU| %.2g)",
            kc_fmt_seconds(tg1, tb, sizeof tb), gdiff);
        kc_metrics_row(d, caption, &mg, tk, tg, gimag);
    }
    snprintf(caption, sizeof caption, "%d coils, CPU, combined with the analytic maps", ncoil);
    kc_metrics_row(d, caption, &mc, tkc, tfc, cimag);
    kc_report_table_end(d->report);
    if (!d->gpu) kc_report_para(d->report, "GPU row skipped: no CUDA backend in this run.");

    kc_demo_say(
        d, "k-space -> image %lldx%lld: PSNR %.2f dB, SSIM %.4f vs phantom; inverse FFT %s cpu%s%s",
        (long long)n, (long long)n, m.psnr, m.ssim, kc_fmt_seconds(tf, tb, sizeof tb),
        d->gpu ? ", gpu " : "", d->gpu ? kc_fmt_seconds(tg, tb2, sizeof tb2) : "");
    kc_demo_say(d, "%d coils combined: PSNR %.2f dB, SSIM %.4f", ncoil, mc.psnr, mc.ssim);
    kc_report_para(d->report, "FFT throughput on a stack of coil images (random data), the "
                              "centred inverse transform over axes 0 and 1:");
    s = kc_fft_bench(d, cdt);
done:
    kr_fft_plan_destroy(gplan);
    free(k);
    kr_array *all[] = {K,    Kc,   img,  rec, ref, logk, err,  dK,
                       dimg, himg, grec, KC,  KCc, cimg, maps, comb};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) kr_array_destroy(all[i]);
    return s;
}

const kc_demo_section kc_demo_mri_fourier = {"mri", "MRI: analytic k-space and the inverse FFT",
                                             kc_run_mri};
