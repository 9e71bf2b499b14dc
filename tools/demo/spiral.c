/* kray demo, section "spiral": the modified Shepp-Logan phantom's analytic k-space on a
 * variable-density spiral, reconstructed by the exact DrFT and by the NUFFT (both density
 * compensated, CPU), and velocity spectra of a small simulated FVE set (kray/fve.h). */
#include "demo.h"
#include "kray/fve.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* real part / n^2 of a c64 image into a new f32 [n, n] */
static kr_status kc_sp_real(const kr_array *a, int64_t n, kr_array **out)
{
    int64_t d[2] = {n, n};
    kr_status s = kr_array_create(out, KR_F32, 2, d, KR_HOST, NULL);
    if (s != KR_OK) return s;
    const double f = 1.0 / (double)(n * n);
    for (int64_t i = 0; i < n * n; i++)
        ((float *)(*out)->data)[i] = (float)(((const float *)a->data)[2 * i] * f);
    return KR_OK;
}

static kr_status kc_run_spiral(kc_demo *d)
{
    const int64_t n = d->quick ? 64 : 115;
    kr_array *t = NULL, *w = NULL, *y = NULL, *yw = NULL, *a = NULL, *b = NULL, *ra = NULL,
             *rb = NULL, *ft = NULL, *fd = NULL, *fw = NULL, *vi = NULL, *sp = NULL, *pic = NULL;
    kr_drft_plan *dp = NULL;
    kr_nufft_plan *np = NULL;
    double *kxy = NULL;
    kr_spiral_opts so;
    kr_spiral_opts_default(&so);
    so.fov_mm = 160, so.res_mm = 160.0 / (double)(n - 1), so.dtype = KR_F64;
    so.vd_factor = 1; /* uniform density: the phantom fills the FOV, so a 2x variable density
                         would alias its outer half into swirls */
    kr_spiral_info info;
    kr_status s = kr_traj_spiral(&t, &so, &info);
    int64_t M = 0;
    if (s == KR_OK) {
        M = t->dims[1] * t->dims[2];
        kxy = malloc((size_t)M * 2 * sizeof(double));
        if (!kxy) s = KR_ERR_OOM_HOST;
        for (int64_t m = 0; kxy && m < M; m++)
            kxy[2 * m] = ((double *)t->data)[3 * m], kxy[2 * m + 1] = ((double *)t->data)[3 * m + 1];
    }
    if (s == KR_OK) s = kr_phantom_kspace(&y, KR_PHANTOM_MODIFIED_SL, kxy, M, n);
    kr_dcf_opts dco;
    kr_dcf_opts_default(&dco);
    dco.method = KR_DCF_VORONOI;
    if (s == KR_OK) s = kr_dcf(&w, d->cpu, t, &dco, NULL);
    int64_t yd[2] = {t ? t->dims[1] : 1, t ? t->dims[2] : 1}, id[3] = {n, n, 1};
    if (s == KR_OK) s = kr_array_create(&yw, KR_C64, 2, yd, KR_HOST, NULL);
    for (int64_t m = 0; s == KR_OK && m < M; m++) { /* W y, c128 -> c64 */
        double wm = ((double *)w->data)[m];
        ((float *)yw->data)[2 * m] = (float)(((double *)y->data)[2 * m] * wm);
        ((float *)yw->data)[2 * m + 1] = (float)(((double *)y->data)[2 * m + 1] * wm);
    }
    if (s == KR_OK) s = kr_array_create(&a, KR_C64, 3, id, KR_HOST, NULL);
    if (s == KR_OK) s = kr_array_create(&b, KR_C64, 3, id, KR_HOST, NULL);
    double t0 = kr_time_now(), t1 = t0, t2 = t0;
    if (s == KR_OK) s = kr_drft_plan_create(&dp, d->cpu, id, t, NULL, NULL);
    if (s == KR_OK) s = kr_drft_adjoint(dp, yw, a);
    t1 = kr_time_now();
    kr_nufft_opts no;
    kr_nufft_opts_default(&no);
    no.eps = 1e-4;
    if (s == KR_OK) s = kr_nufft_plan_create(&np, d->cpu, 2, id, &no);
    if (s == KR_OK) s = kr_nufft_set_points(np, t);
    if (s == KR_OK) s = kr_nufft_adjoint(np, yw, b);
    t2 = kr_time_now();
    if (s == KR_OK) s = kc_sp_real(a, n, &ra);
    if (s == KR_OK) s = kc_sp_real(b, n, &rb);
    double e2 = 0, r2 = 0;
    for (int64_t i = 0; s == KR_OK && i < 2 * n * n; i++) {
        double p = ((float *)a->data)[i], q = ((float *)b->data)[i];
        e2 += (p - q) * (p - q), r2 += p * p;
    }
    if (s == KR_OK) {
        kc_report_para(d->report,
                       "Uniform-density spiral (FOV 160 mm, %lld interleaves, %lld samples each, "
                       "%lld^2 matrix), analytic k-space of the modified Shepp-Logan phantom, "
                       "Voronoi density compensation; adjoint DrFT (exact, %.3f s) and NUFFT "
                       "(eps 1e-4, %.3f s incl. planning) on the CPU; NUFFT vs DrFT relative l2 %.2g.",
                       (long long)t->dims[2], (long long)t->dims[1], (long long)n, t1 - t0, t2 - t1,
                       sqrt(e2 / r2));
        kc_report_figures_begin(d->report);
        s = kc_demo_png(d, "spiral_drft", ra, 0.0, 1.0, -1, 0, "DrFT (real part)");
        if (s == KR_OK) s = kc_demo_png(d, "spiral_nufft", rb, 0.0, 1.0, -1, 0, "NUFFT (real part)");
        kc_report_figures_end(d->report);
        kc_demo_say(d, "spiral %lld^2: DrFT %.3f s, NUFFT %.3f s, NUFFT vs DrFT %.2g", (long long)n,
                    t1 - t0, t2 - t1, sqrt(e2 / r2));
    }
    /* a small FVE set: spectra of two vessel centres and one static voxel */
    kr_fve_sim_opts fo;
    kr_fve_sim_opts_small(&fo);
    fo.slices = 1, fo.frames = d->quick ? 8 : 16;
    double t3 = kr_time_now();
    if (s == KR_OK) s = kr_fve_simulate(d->cpu, &fo, &ft, &fd, &fw);
    const int64_t E = fo.enc.encodes, T = fo.frames, V = 3;
    double vox[9] = {fo.vessel[0].x0 * fo.enc.n / 2, fo.vessel[0].y0 * fo.enc.n / 2, 0,
                     fo.vessel[1].x0 * fo.enc.n / 2, fo.vessel[1].y0 * fo.enc.n / 2, 0, 0, 7, 0};
    int64_t vd[4] = {E, T, fo.coils, V}, sd[3] = {E, T, V};
    if (s == KR_OK) s = kr_array_create(&vi, KR_C64, 4, vd, KR_HOST, NULL);
    if (s == KR_OK) s = kr_array_create(&sp, KR_C64, 3, sd, KR_HOST, NULL);
    if (s == KR_OK) s = kr_fve_voxels(d->cpu, ft, fw, fd, fo.enc.n, V, vox, vi);
    if (s == KR_OK) s = kr_fve_spectra(d->cpu, vi, sp);
    const int64_t z = 8;
    int64_t pd[3] = {T * z, E * z, V};
    if (s == KR_OK) s = kr_array_create(&pic, KR_F32, 3, pd, KR_HOST, NULL);
    for (int64_t v = 0; s == KR_OK && v < V; v++) {
        const float *p = (const float *)sp->data + 2 * E * T * v;
        double mx = 0;
        for (int64_t i = 0; i < E * T; i++) mx = fmax(mx, hypot(p[2 * i], p[2 * i + 1]));
        for (int64_t tt = 0; tt < T; tt++)
            for (int64_t bb = 0; bb < E; bb++)
                for (int64_t yy = 0; yy < z; yy++)
                    for (int64_t xx = 0; xx < z; xx++) /* row 0 on top: velocity up */
                        ((float *)pic->data)[tt * z + xx + pd[0] * ((E - 1 - bb) * z + yy) +
                                             pd[0] * pd[1] * v] =
                            (float)(hypot(p[2 * (bb + E * tt)], p[2 * (bb + E * tt) + 1]) / mx);
    }
    const double dv = fo.enc.vfov_cm_s / (double)E;
    if (s == KR_OK) {
        kc_report_para(d->report,
                       "Flow phantom (kray/fve.h): two vessels with pulsatile Poiseuille flow (peak "
                       "%.0f and %.0f cm/s) in static tissue, %lld^2, %lld velocity encodes over "
                       "%.0f cm/s, %lld frames, %d coils, exact spiral data (%.2f s). Spectrograms "
                       "(|spectrum|, velocity up from %.0f to %.0f cm/s, frames across) of the two "
                       "vessel centres and a static voxel (a line at v = 0).",
                       fo.vessel[0].vpeak_cm_s, fo.vessel[1].vpeak_cm_s, (long long)fo.enc.n,
                       (long long)E, fo.enc.vfov_cm_s, (long long)T, fo.coils, kr_time_now() - t3,
                       -(double)(E / 2) * fo.enc.vfov_cm_s / (double)E,
                       (double)(E - 1 - E / 2) * fo.enc.vfov_cm_s / (double)E);
        kc_report_figures_begin(d->report);
        const char *nm[3] = {"fve_spectrum_vessel1", "fve_spectrum_vessel2", "fve_spectrum_static"};
        const char *cap[3] = {"|spectrum| at the centre of vessel 1 (window 0 to its maximum)",
                              "|spectrum| at the centre of vessel 2",
                              "|spectrum| of a static voxel"};
        for (int v = 0; s == KR_OK && v < 3; v++) {
            kc_report_axes ax = {1, (int)pd[0], (int)pd[1], "frame", "velocity (cm/s)", 0,
                                 (double)T, -(double)(E / 2) * dv - dv / 2,
                                 (double)(E - 1 - E / 2) * dv + dv / 2};
            kc_report_next_axes(d->report, &ax);
            s = kc_demo_png(d, nm[v], pic, 0.0, 1.0, v, 0, cap[v]);
        }
        kc_report_figures_end(d->report);
        kc_demo_say(d, "FVE %lld^2 x %lld encodes x %lld frames: spectra of %lld voxels", (long long)fo.enc.n,
                    (long long)E, (long long)T, (long long)V);
    }
    free(kxy);
    kr_drft_plan_destroy(dp);
    kr_nufft_plan_destroy(np);
    kr_array *all[] = {t, w, y, yw, a, b, ra, rb, ft, fd, fw, vi, sp, pic};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) kr_array_destroy(all[i]);
    return s;
}

const kc_demo_section kc_demo_spiral = {"spiral", "MRI: spiral DrFT, NUFFT and FVE velocity spectra",
                                        kc_run_spiral};
