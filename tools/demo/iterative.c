/* kray demo section "iterative": CG-SENSE of undersampled radial multi-coil phantom k-space
 * against the density-compensated (gridding) adjoint. */
#include "demo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ||a - b|| / ||b|| of two host c64 arrays over n elements. */
static double kc_it_nrmse(const kr_array *a, const kr_array *b, int64_t n)
{
    const float *x = a->data, *y = b->data;
    double e = 0, r = 0;
    for (int64_t i = 0; i < 2 * n; i++) {
        e += (double)(x[i] - y[i]) * (x[i] - y[i]);
        r += (double)y[i] * y[i];
    }
    return r > 0 ? sqrt(e / r) : 0;
}

static kr_status kc_demo_iterative_run(kc_demo *d)
{
    const int64_t n = d->quick ? 64 : 128, nc = 8, spokes = d->quick ? 24 : 40;
    const int iters = d->quick ? 15 : 25;
    const kr_loc loc = d->gpu ? KR_DEVICE : KR_HOST;
    kr_array *traj = NULL, *kd = NULL, *data = NULL, *mc = NULL, *maps = NULL, *w = NULL,
             *ph = NULL, *truth = NULL, *dk = NULL, *dx = NULL, *da = NULL, *x = NULL, *adj = NULL;
    kr_cgsense_plan *plan = NULL;
    double *k = NULL, hist[64];
    kr_status s;
    kr_radial_opts ro;
    kr_radial_opts_default(&ro);
    ro.samples = n;
    ro.oversampling = 2;
    ro.spokes = spokes;
    ro.order = KR_RADIAL_GOLDEN;
    if ((s = kr_traj_radial(&traj, &ro)) != KR_OK) goto done;
    const int64_t M = kr_array_numel(traj) / 3;
    k = malloc(sizeof(double) * 2 * (size_t)M);
    if (!k) {
        s = KR_ERR_OOM_HOST;
        goto done;
    }
    for (int64_t m = 0; m < M; m++) {
        k[2 * m] = ((const float *)traj->data)[3 * m];
        k[2 * m + 1] = ((const float *)traj->data)[3 * m + 1];
    }
    if ((s = kr_phantom_kspace_coils(&kd, KR_PHANTOM_MODIFIED_SL, k, M, n, (int)nc)) != KR_OK ||
        (s = kr_array_astype(&data, kd, KR_C64)) != KR_OK ||
        (s = kr_phantom_coil_maps(&mc, n, (int)nc)) != KR_OK ||
        (s = kr_array_astype(&maps, mc, KR_C64)) != KR_OK)
        goto done;
    kr_dcf_opts dop;
    kr_dcf_opts_default(&dop);
    dop.method = KR_DCF_RADIAL;
    if ((s = kr_dcf(&w, d->cpu, traj, &dop, NULL)) != KR_OK) goto done;
    if ((s = kr_phantom_2d_grid(&ph, kr_phantom_ellipses(KR_PHANTOM_MODIFIED_SL, NULL), 10,
                                KR_GRID_FFT, n, n, 2, KR_F32)) != KR_OK ||
        (s = kr_array_astype(&truth, ph, KR_C64)) != KR_OK)
        goto done;
    int64_t dims[2] = {n, n};
    kr_cgsense_opts po;
    kr_cgsense_opts_default(&po);
    po.dcf = w;
    double t0 = kr_time_now();
    if ((s = kr_cgsense_plan_create(&plan, d->ctx, 2, dims, traj, maps, &po)) != KR_OK ||
        (s = kr_array_clone(&dk, data, loc, d->ctx)) != KR_OK ||
        (s = kr_array_create(&dx, KR_C64, 2, dims, loc, d->ctx)) != KR_OK ||
        (s = kr_array_create(&da, KR_C64, 2, dims, loc, d->ctx)) != KR_OK)
        goto done;
    double t1 = kr_time_now();
    if ((s = kr_cgsense_adjoint_image(plan, dk, da)) != KR_OK ||
        (s = kr_array_clone(&adj, da, KR_HOST, d->ctx)) != KR_OK)
        goto done;
    double t2 = kr_time_now();
    kr_solve_opts so;
    kr_solve_opts_default(&so);
    so.max_iter = iters;
    so.tol = 1e-6;
    so.history = hist;
    kr_solve_info info;
    if ((s = kr_cgsense_solve(plan, dk, dx, &so, &info)) != KR_OK ||
        (s = kr_array_clone(&x, dx, KR_HOST, d->ctx)) != KR_OK)
        goto done;
    double t3 = kr_time_now();
    const double ea = kc_it_nrmse(adj, truth, n * n), ex = kc_it_nrmse(x, truth, n * n);
    kc_report_para(d->report,
                   "Analytic k-space of the modified Shepp-Logan phantom seen by %lld smooth "
                   "coils, sampled on %lld golden-angle radial spokes of %lld samples (2x readout "
                   "oversampling) for a %lldx%lld image: about %.1f-fold fewer spokes than radial "
                   "Nyquist (pi n / 2). CG-SENSE (Pruessmann 2001) solves the density-weighted "
                   "least-squares problem (E^H D E) x = E^H D y with E = NUFFT . coil maps, "
                   "D = analytic radial weights, by conjugate gradients on one batched NUFFT "
                   "plan (%s).",
                   (long long)nc, (long long)spokes, (long long)(2 * n), (long long)n,
                   (long long)n, 3.14159265358979 * (double)n / 2 / (double)spokes,
                   d->gpu ? "GPU" : "CPU");
    kc_report_figures_begin(d->report);
    if ((s = kc_demo_png(d, "iterative_truth", truth, 0.0, 1.0, -1, 0,
                         "Phantom (window 0 to 1)")) != KR_OK ||
        (s = kc_demo_png(d, "iterative_adjoint", adj, 0.0, 1.0, -1, 0,
                         "Density-compensated adjoint, coil-combined")) != KR_OK ||
        (s = kc_demo_png(d, "iterative_cgsense", x, 0.0, 1.0, -1, 0, "CG-SENSE")) != KR_OK)
        goto done;
    kc_report_figures_end(d->report);
    const char *names[] = {"CG-SENSE"};
    const double *curves[] = {hist};
    int lens[] = {info.iterations + 1};
    kc_report_chart(d->report, "Relative residual ||E^H D (y - E x)|| / ||E^H D y|| per iteration",
                    "iteration", "relative residual", 1, names, curves, lens, 1);
    const char *hdr[] = {"image", "iterations", "relative residual", "NRMSE vs phantom", "time"};
    char a[32], b[32];
    kc_report_table_begin(d->report, 5, hdr);
    kc_report_table_rowf(d->report, "DCF adjoint\t\t\t%.4f\t%s", ea,
                         kc_fmt_seconds(t2 - t1, a, sizeof a));
    kc_report_table_rowf(d->report, "CG-SENSE\t%d\t%.3g\t%.4f\t%s", info.iterations,
                         info.rel_residual, ex, kc_fmt_seconds(t3 - t2, b, sizeof b));
    kc_report_table_end(d->report);
    kc_report_para(d->report, "Plan (NUFFT points, maps and weights to the %s): %s.",
                   d->gpu ? "GPU" : "CPU", kc_fmt_seconds(t1 - t0, a, sizeof a));
    kc_demo_say(d, "CG-SENSE %lldx%lld, %lld coils, %lld spokes: NRMSE %.3f (adjoint %.3f), %d "
                "iterations in %s",
                (long long)n, (long long)n, (long long)nc, (long long)spokes, ex, ea,
                info.iterations, kc_fmt_seconds(t3 - t2, b, sizeof b));
    if (!(ex < ea)) {
        kr_clear_error();
        s = KR_ERR_INTERNAL;
        kc_report_error(d->report, "CG-SENSE (NRMSE %.4f) did not beat the adjoint (%.4f)", ex,
                        ea);
    }
done:
    free(k);
    kr_array_destroy(traj), kr_array_destroy(kd), kr_array_destroy(data), kr_array_destroy(mc);
    kr_array_destroy(maps), kr_array_destroy(w), kr_array_destroy(ph), kr_array_destroy(truth);
    kr_array_destroy(dk), kr_array_destroy(dx), kr_array_destroy(da), kr_array_destroy(x);
    kr_array_destroy(adj);
    kr_cgsense_plan_destroy(plan);
    return s;
}

const kc_demo_section kc_demo_iterative = {"iterative", "Iterative MRI: CG-SENSE",
                                           kc_demo_iterative_run};
