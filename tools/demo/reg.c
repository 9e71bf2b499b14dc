/* kray demo section "reg": regularised reconstruction against the linear one, side by side.
 * Sparse-view, noisy 2-D CT: FBP against TV (FISTA with the TV prox and x >= 0, kray/reg.h).
 * Undersampled radial 8-coil MRI with noise: CG-SENSE against l1-wavelet (kray mrreg: FISTA on
 * the Toeplitz normal, kray/mrreg.h). PSNR and SSIM against the phantom. */
#include "demo.h"
#include "internal.h"
#include "kray/fbp.h"
#include "kray/mrreg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KC_PI 3.14159265358979323846

/* |x| of a host array (any dtype) as a new f32 array. */
static kr_status kc_reg_mag(const kr_array *x, kr_array **out)
{
    kr_status s = kr_array_create(out, KR_F32, x->ndim, x->dims, KR_HOST, NULL);
    for (int64_t i = 0; s == KR_OK && i < kr_array_numel(x); i++) {
        double re, im;
        kri_array_elem(x, i, &re, &im);
        ((float *)(*out)->data)[i] = (float)hypot(re, im);
    }
    return s;
}

typedef struct kc_reg_row {
    const char *what;
    kr_metrics m;
    double t;
} kc_reg_row;

/* Metrics of |x| against the f32 truth (range 1), and its PNG. */
static kr_status kc_reg_show(kc_demo *d, const kr_array *x, const kr_array *truth,
                             const char *png, const char *what, double t, kc_reg_row *row)
{
    kr_array *a = NULL;
    kr_status s = kc_reg_mag(x, &a);
    if (s == KR_OK) s = kr_metrics_compute(d->cpu, a, truth, 1.0, &row->m);
    char cap[160];
    snprintf(cap, sizeof cap, "%s: PSNR %.2f dB, SSIM %.3f", what, row->m.psnr, row->m.ssim);
    if (s == KR_OK) s = kc_demo_png(d, png, a, 0.0, 1.0, -1, 0, cap);
    row->what = what;
    row->t = t;
    kr_array_destroy(a);
    return s;
}

/* Sparse-view CT: n^2 pixels of 1 mm, nv parallel views over 180 degrees, exact line integrals
 * plus Gaussian noise. */
static kr_status kc_reg_ct(kc_demo *d, kc_reg_row *rows)
{
    const int64_t n = d->quick ? 64 : 96, nv = d->quick ? 20 : 30;
    const double sigma = 1.0, lam = 6.0;
    kr_status s;
    kr_ct_geom *g = NULL;
    kr_linop *A = NULL;
    kr_prox *tv = NULL;
    kr_array *sino = NULL, *sf = NULL, *truth = NULL, *xf = NULL, *xt = NULL;
    double *th = malloc(sizeof(double) * (size_t)nv), *sp = malloc(sizeof(double) * (size_t)n);
    double *nz = malloc(sizeof(double) * (size_t)(n * nv));
    if (!th || !sp || !nz) {
        s = KR_ERR_OOM_HOST;
        goto done;
    }
    kr_ct_scan sc;
    kr_ct_scan_default(&sc);
    sc.nviews = nv;
    sc.det_count = n;
    kr_ct_grid gr;
    kr_ct_grid_2d(&gr, n, n, 1.0);
    for (int64_t v = 0; v < nv; v++) th[v] = KC_PI * (double)v / (double)nv;
    for (int64_t k = 0; k < n; k++) sp[k] = (double)(2 * k + 1 - n) / (double)n;
    if ((s = kr_ct_geom_create(&g, &sc, &gr)) != KR_OK ||
        (s = kr_phantom_sinogram(&sino, KR_PHANTOM_MODIFIED_SL, th, nv, sp, n)) != KR_OK ||
        (s = kr_phantom_2d(&truth, KR_PHANTOM_MODIFIED_SL, n, n, 4, KR_F32)) != KR_OK)
        goto done;
    kc_demo_noise(nz, n * nv, sigma, 2026);
    for (int64_t i = 0; i < n * nv; i++)
        ((double *)sino->data)[i] = ((double *)sino->data)[i] * 0.5 * (double)n + nz[i];
    if ((s = kr_array_astype(&sf, sino, KR_F32)) != KR_OK ||
        (s = kr_array_create_like(&xf, truth, KR_HOST, NULL)) != KR_OK ||
        (s = kr_array_create_like(&xt, truth, KR_HOST, NULL)) != KR_OK)
        goto done;
    double t0 = kr_time_now();
    kr_fbp_opts fo;
    kr_fbp_opts_default(&fo);
    if ((s = kr_fbp(d->cpu, g, &fo, sf, xf)) != KR_OK) goto done;
    double t1 = kr_time_now();
    kr_ct_projector_opts po;
    kr_ct_projector_opts_default(&po);
    int64_t dims[2] = {n, n};
    kr_reg_opts o;
    kr_reg_opts_default(&o);
    o.max_iter = d->quick ? 12 : 20;
    o.tol = 0;
    o.power_iter = 10;
    if ((s = kr_ct_linop_create(&A, d->cpu, g, &po)) != KR_OK ||
        (s = kr_prox_tv_create(&tv, d->cpu, KR_F32, 2, dims, lam, 3u, 0.0, INFINITY, 5)) !=
            KR_OK ||
        (s = kr_fista(d->cpu, A, sf, tv, xt, &o, NULL)) != KR_OK)
        goto done;
    double t2 = kr_time_now();
    kc_report_para(d->report,
                   "Sparse-view, low-dose CT: the modified Shepp-Logan phantom (%lldx%lld pixels "
                   "of 1 mm) from only %lld parallel views over 180 degrees, exact line integrals "
                   "plus Gaussian noise of sigma %.1f (mm x 1/mm). FBP (Ram-Lak) against TV: "
                   "minimise 1/2 |A x - y|^2 + %.0f TV(x) with x >= 0 by FISTA, %d iterations on "
                   "the matched Joseph pair (kray ctreg --reg tv:%.0f --nonneg).",
                   (long long)n, (long long)n, (long long)nv, sigma, lam, o.max_iter, lam);
    kc_report_figures_begin(d->report);
    if ((s = kc_demo_png(d, "reg_ct_truth", truth, 0.0, 1.0, -1, 0, "Phantom")) != KR_OK ||
        (s = kc_reg_show(d, xf, truth, "reg_ct_fbp", "FBP", t1 - t0, &rows[0])) != KR_OK ||
        (s = kc_reg_show(d, xt, truth, "reg_ct_tv", "TV (FISTA)", t2 - t1, &rows[1])) != KR_OK)
        goto done;
    kc_report_figures_end(d->report);
done:
    free(th), free(sp), free(nz);
    kr_prox_destroy(tv);
    kr_linop_destroy(A);
    kr_array_destroy(sino), kr_array_destroy(sf), kr_array_destroy(truth);
    kr_array_destroy(xf), kr_array_destroy(xt);
    kr_ct_geom_destroy(g);
    return s;
}

/* Undersampled radial MRI: n^2, 8 smooth coils, `spokes` spokes of 2n samples, noise. */
static kr_status kc_reg_mri(kc_demo *d, kc_reg_row *rows)
{
    const int64_t n = d->quick ? 64 : 80, nc = 8, spokes = d->quick ? 16 : 20;
    const double lam = 0.02;
    const kr_loc loc = d->gpu ? KR_DEVICE : KR_HOST;
    kr_status s;
    kr_array *traj = NULL, *kd = NULL, *k = NULL, *mc = NULL, *maps = NULL, *truth = NULL;
    kr_array *dk = NULL, *dx = NULL, *xc = NULL, *xw = NULL;
    kr_cgsense_plan *plan = NULL;
    double *kk = NULL, *nz = NULL;
    kr_radial_opts ro;
    kr_radial_opts_default(&ro);
    ro.samples = n;
    ro.oversampling = 2;
    ro.spokes = spokes;
    if ((s = kr_traj_radial(&traj, &ro)) != KR_OK) goto done;
    const int64_t M = kr_array_numel(traj) / 3;
    kk = malloc(sizeof(double) * 2 * (size_t)M);
    nz = malloc(sizeof(double) * 2 * (size_t)(M * nc));
    if (!kk || !nz) {
        s = KR_ERR_OOM_HOST;
        goto done;
    }
    for (int64_t m = 0; m < M; m++)
        for (int a = 0; a < 2; a++) kk[2 * m + a] = ((const float *)traj->data)[3 * m + a];
    if ((s = kr_phantom_kspace_coils(&kd, KR_PHANTOM_MODIFIED_SL, kk, M, n, (int)nc)) != KR_OK ||
        (s = kr_array_astype(&k, kd, KR_C64)) != KR_OK ||
        (s = kr_phantom_coil_maps(&mc, n, (int)nc)) != KR_OK ||
        (s = kr_array_astype(&maps, mc, KR_C64)) != KR_OK ||
        (s = kr_phantom_2d_grid(&truth, kr_phantom_ellipses(KR_PHANTOM_MODIFIED_SL, NULL), 10,
                                KR_GRID_FFT, n, n, 2, KR_F32)) != KR_OK)
        goto done;
    double mx = 0;
    float *kv = k->data;
    for (int64_t i = 0; i < 2 * M * nc; i++) mx = fmax(mx, fabs(kv[i]));
    kc_demo_noise(nz, 2 * M * nc, 0.03 * mx, 2027);
    for (int64_t i = 0; i < 2 * M * nc; i++) kv[i] += (float)nz[i];
    int64_t dims[2] = {n, n};
    if ((s = kr_array_clone(&dk, k, loc, d->ctx)) != KR_OK ||
        (s = kr_array_create(&dx, KR_C64, 2, dims, loc, d->ctx)) != KR_OK)
        goto done;
    double t0 = kr_time_now();
    kr_cgsense_opts po;
    kr_cgsense_opts_default(&po);
    po.eps = 1e-3;
    kr_solve_opts so;
    kr_solve_opts_default(&so);
    so.max_iter = 8;
    so.tol = 0;
    if ((s = kr_cgsense_plan_create(&plan, d->ctx, 2, dims, traj, maps, &po)) != KR_OK ||
        (s = kr_cgsense_solve(plan, dk, dx, &so, NULL)) != KR_OK ||
        (s = kr_array_clone(&xc, dx, KR_HOST, d->ctx)) != KR_OK)
        goto done;
    double t1 = kr_time_now();
    kr_mrreg_data md;
    memset(&md, 0, sizeof md);
    md.ndim = 2;
    md.dims[0] = md.dims[1] = n;
    md.frames = 1;
    md.maps = maps;
    md.kspace = dk;
    md.traj = traj;
    md.eps = 1e-3;
    md.toeplitz = 1;
    kr_mrreg_term t = {KR_MRREG_L1_WAVELET, lam, 0, 0};
    kr_mrreg_opts o;
    kr_mrreg_opts_default(&o);
    o.max_iter = d->quick ? 15 : 25;
    if ((s = kr_mrreg(d->ctx, &md, &t, 1, &o, dx, NULL)) != KR_OK ||
        (s = kr_array_clone(&xw, dx, KR_HOST, d->ctx)) != KR_OK)
        goto done;
    double t2 = kr_time_now();
    kc_report_para(d->report,
                   "Undersampled radial MRI: analytic k-space of the phantom seen by %lld smooth "
                   "coils on %lld radial spokes of %lld samples for a %lldx%lld image (about "
                   "%.0f-fold fewer spokes than Nyquist), complex noise of 3 %% of the largest "
                   "sample. CG-SENSE (%d iterations, before the noise grows) against l1-wavelet: "
                   "minimise 1/2 |E x / c - y / s|^2 + %g |W x|_1 (BART pics' problem, db2 "
                   "wavelets with random shifts) by FISTA, %d iterations on the Toeplitz normal "
                   "(kray mrreg --reg l1-wavelet:%g), %s.",
                   (long long)nc, (long long)spokes, (long long)(2 * n), (long long)n,
                   (long long)n, KC_PI * (double)n / 2 / (double)spokes, so.max_iter, lam,
                   o.max_iter, lam, d->gpu ? "on the GPU" : "on the CPU");
    kc_report_figures_begin(d->report);
    if ((s = kc_demo_png(d, "reg_mri_truth", truth, 0.0, 1.0, -1, 0, "Phantom")) != KR_OK ||
        (s = kc_reg_show(d, xc, truth, "reg_mri_cgsense", "CG-SENSE", t1 - t0, &rows[0])) !=
            KR_OK ||
        (s = kc_reg_show(d, xw, truth, "reg_mri_wavelet", "l1-wavelet (FISTA)", t2 - t1,
                         &rows[1])) != KR_OK)
        goto done;
    kc_report_figures_end(d->report);
done:
    free(kk), free(nz);
    kr_cgsense_plan_destroy(plan);
    kr_array_destroy(traj), kr_array_destroy(kd), kr_array_destroy(k), kr_array_destroy(mc);
    kr_array_destroy(maps), kr_array_destroy(truth), kr_array_destroy(dk);
    kr_array_destroy(dx), kr_array_destroy(xc), kr_array_destroy(xw);
    return s;
}

static kr_status kc_demo_reg_run(kc_demo *d)
{
    kc_reg_row ct[2], mr[2];
    memset(ct, 0, sizeof ct);
    memset(mr, 0, sizeof mr);
    kr_status s = kc_reg_ct(d, ct);
    if (s == KR_OK) s = kc_reg_mri(d, mr);
    if (s != KR_OK) return s;
    const char *hdr[] = {"reconstruction", "PSNR (dB)", "SSIM", "time"};
    kc_report_table_begin(d->report, 4, hdr);
    kc_reg_row *rows[4] = {&ct[0], &ct[1], &mr[0], &mr[1]};
    for (int i = 0; i < 4; i++) {
        char b[32];
        kc_report_table_rowf(d->report, "%s %s\t%.2f\t%.3f\t%s", i < 2 ? "CT" : "MRI",
                             rows[i]->what, rows[i]->m.psnr, rows[i]->m.ssim,
                             kc_fmt_seconds(rows[i]->t, b, sizeof b));
    }
    kc_report_table_end(d->report);
    kc_demo_say(d, "sparse-view CT: TV %.2f dB vs FBP %.2f dB; radial MRI: l1-wavelet %.2f dB vs "
                "CG-SENSE %.2f dB", ct[1].m.psnr, ct[0].m.psnr, mr[1].m.psnr, mr[0].m.psnr);
    if (!(ct[1].m.psnr > ct[0].m.psnr) || !(mr[1].m.psnr > mr[0].m.psnr)) {
        kr_clear_error();
        kc_report_error(d->report, "the regularised images did not beat the linear ones");
        return KR_ERR_INTERNAL;
    }
    return KR_OK;
}

const kc_demo_section kc_demo_reg = {"reg", "Regularised reconstruction: TV and wavelets",
                                     kc_demo_reg_run};
