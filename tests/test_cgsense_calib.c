/* Coil maps from non-Cartesian data (kr_cgsense_calib_kspace, kr_cgsense_estimate_maps with
 * espirit): the calibration k-space against the analytic Cartesian samples of the multi-coil
 * phantom (least-squares fit and gridding); on the radial 8-coil phantom (64^2, 48 spokes,
 * analytic k-space) CG-SENSE with the ESPIRiT maps comes within 25 % of the NRMSE that the true
 * maps give and beats the default root-sum-of-squares estimate; 3-D: a koosh ball of the
 * analytic 3-D phantom of espirit_test_util.h (data by the CG-SENSE operator), the same
 * comparison; bad input. NRMSEs are of |x| inside the object against |object| RSS(S), the
 * image that normalised maps give (ESPIRiT's maps have unit RSS and their own phase). */
#include "cgsense_test_util.h"
#include "espirit_test_util.h"

#include <stdio.h>

/* Normalised copy of maps (RSS 1 where non-zero), and the RSS per voxel. */
static kr_array *normalise(const kr_array *maps, int64_t nv, int64_t nc, double *rss)
{
    kr_array *m = NULL;
    KT_OK(kr_array_clone(&m, maps, KR_HOST, NULL));
    float *v = m->data;
    for (int64_t q = 0; q < nv; q++) {
        double s = 0;
        for (int64_t c = 0; c < nc; c++)
            s += (double)v[2 * (q + nv * c)] * v[2 * (q + nv * c)] +
                 (double)v[2 * (q + nv * c) + 1] * v[2 * (q + nv * c) + 1];
        rss[q] = sqrt(s);
        for (int64_t c = 0; c < nc; c++)
            for (int r = 0; r < 2; r++)
                v[2 * (q + nv * c) + r] = s > 0 ? (float)(v[2 * (q + nv * c) + r] / rss[q]) : 0.f;
    }
    return m;
}

/* CG-SENSE (iters, lambda 1e-3 M) with `maps`; NRMSE of |x| against ref where mask. */
static double recon_err(kr_ctx *c, int nd, const int64_t *dims, const kr_array *traj,
                        const kr_array *y, const kr_array *maps, const double *ref,
                        const uint8_t *mask, int iters)
{
    kr_cgsense_plan *p = NULL;
    KT_OK(kr_cgsense_plan_create(&p, c, nd, dims, traj, maps, NULL));
    int64_t M = 0, nv = 1;
    for (int a = 0; a < nd; a++) nv *= dims[a];
    KT_OK(kr_cgsense_plan_sizes(p, NULL, &M));
    kr_array *x = NULL;
    KT_OK(kr_array_create(&x, KR_C64, nd, dims, KR_HOST, NULL));
    kr_solve_opts so;
    kr_solve_opts_default(&so);
    so.max_iter = iters;
    so.tol = 1e-6;
    so.lambda = 1e-3 * (double)M;
    KT_OK(kr_cgsense_solve(p, y, x, &so, NULL));
    const float *v = x->data;
    double e = 0, r = 0;
    for (int64_t q = 0; q < nv; q++) {
        if (!mask[q]) continue;
        const double a = hypot(v[2 * q], v[2 * q + 1]);
        e += (a - ref[q]) * (a - ref[q]);
        r += ref[q] * ref[q];
    }
    kr_array_destroy(x);
    kr_cgsense_plan_destroy(p);
    return sqrt(e / r);
}

static void test_calib_values(void)
{
    kr_ctx *c = kt_cpu_ctx();
    ct_problem pr;
    ct_problem_make(&pr, 64, 8, 48);
    int64_t dims[2] = {64, 64};
    /* the analytic Cartesian k-space of the coil images at the integer k with |k| < 8 */
    const int64_t nk = 15 * 15;
    double *kc = malloc(sizeof(double) * 2 * (size_t)nk);
    for (int64_t j = 0; j < 15; j++)
        for (int64_t i = 0; i < 15; i++) {
            kc[2 * (i + 15 * j)] = (double)(i - 7);
            kc[2 * (i + 15 * j) + 1] = (double)(j - 7);
        }
    kr_array *ref = NULL;
    KT_OK(kr_phantom_kspace_coils(&ref, KR_PHANTOM_MODIFIED_SL, kc, nk, 64, 8));
    for (int mode = 0; mode < 2; mode++) {
        kr_array *cal = NULL;
        KT_OK(kr_cgsense_calib_kspace(c, 2, dims, pr.traj, pr.data, mode ? pr.dcf : NULL, 8,
                                      mode ? 1 : 30, mode ? 64 : 0, &cal));
        /* gridding: one step, the factor unknown: fit it */
        const float *cv = cal->data;
        const double *rv = ref->data;
        double num = 0, den = 0, e = 0, r = 0;
        for (int64_t cc = 0; cc < 8; cc++)
            for (int64_t q = 0; q < nk; q++) {
                const int64_t i = q % 15 + 32 - 7, j = q / 15 + 32 - 7;
                const float *a = cv + 2 * (i + 64 * (j + 64 * cc));
                const double *b = rv + 2 * (q + nk * cc);
                num += a[0] * b[0] + a[1] * b[1];
                den += a[0] * a[0] + a[1] * a[1];
            }
        const double s = mode ? num / den : 1.0;
        for (int64_t cc = 0; cc < 8; cc++)
            for (int64_t q = 0; q < nk; q++) {
                const int64_t i = q % 15 + 32 - 7, j = q / 15 + 32 - 7;
                const float *a = cv + 2 * (i + 64 * (j + 64 * cc));
                const double *b = rv + 2 * (q + nk * cc);
                e += pow(s * a[0] - b[0], 2) + pow(s * a[1] - b[1], 2);
                r += b[0] * b[0] + b[1] * b[1];
            }
        /* nothing outside |k| < 8 */
        double outside = 0;
        for (int64_t cc = 0; cc < 8; cc++)
            for (int64_t q = 0; q < 64 * 64; q++) {
                const int64_t i = q % 64 - 32, j = q / 64 - 32;
                if (labs(i) < 8 && labs(j) < 8) continue;
                outside += fabs(cv[2 * (q + 4096 * cc)]) + fabs(cv[2 * (q + 4096 * cc) + 1]);
            }
        printf("  calibration samples |k| < 8 vs the analytic phantom k-space, %s: %.2e\n",
               mode ? "gridding with the radial DCF (scale fitted)" : "least-squares fit",
               sqrt(e / r));
        KT_LE(sqrt(e / r), mode ? 0.05 : 0.02);
        KT_CHECK(outside == 0);
        kr_array_destroy(cal);
    }
    free(kc);
    kr_array_destroy(ref);
    ct_problem_free(&pr);
    kr_ctx_destroy(c);
}

static void test_radial_2d(void)
{
    kr_ctx *c = kt_cpu_ctx();
    ct_problem pr;
    ct_problem_make(&pr, 64, 8, 48);
    int64_t dims[2] = {64, 64};
    const int64_t nv = 64 * 64;
    double *rss = malloc(sizeof(double) * nv), *ref = malloc(sizeof(double) * nv);
    uint8_t *mask = malloc((size_t)nv);
    kr_array *tn = normalise(pr.maps, nv, 8, rss);
    double mx = 0;
    const float *t = pr.truth->data;
    for (int64_t q = 0; q < nv; q++) mx = fmax(mx, hypot(t[2 * q], t[2 * q + 1]));
    for (int64_t q = 0; q < nv; q++) {
        ref[q] = hypot(t[2 * q], t[2 * q + 1]) * rss[q];
        mask[q] = hypot(t[2 * q], t[2 * q + 1]) > 0.05 * mx;
    }
    const double e_true = recon_err(c, 2, dims, pr.traj, pr.data, tn, ref, mask, 30);
    kr_cgsense_maps_opts mo;
    kr_cgsense_maps_opts_default(&mo);
    kr_array *m = NULL;
    KT_OK(kr_cgsense_estimate_maps(c, 2, dims, pr.traj, pr.data, NULL, &mo, &m));
    const double e_rss = recon_err(c, 2, dims, pr.traj, pr.data, m, ref, mask, 30);
    kr_array_destroy(m);
    mo.espirit = 1;
    double e_esp[2];
    for (int w = 0; w < 2; w++) {
        m = NULL;
        KT_OK(kr_cgsense_estimate_maps(c, 2, dims, pr.traj, pr.data, w ? pr.dcf : NULL, &mo, &m));
        e_esp[w] = recon_err(c, 2, dims, pr.traj, pr.data, m, ref, mask, 30);
        kr_array_destroy(m);
    }
    printf("  radial 64^2, 8 coils, 48 spokes, CG-SENSE 30 iterations, NRMSE of |x|: true maps "
           "%.4f, RSS estimate %.4f, ESPIRiT (least-squares calibration) %.4f, ESPIRiT "
           "(gridded calibration, radial DCF) %.4f\n", e_true, e_rss, e_esp[0], e_esp[1]);
    for (int w = 0; w < 2; w++) {
        KT_LE(e_esp[w], 1.25 * e_true);
        KT_LE(e_esp[w], e_rss);
    }
    free(rss), free(ref), free(mask);
    kr_array_destroy(tn);
    ct_problem_free(&pr);
    kr_ctx_destroy(c);
}

/* 3-D: 24 x 24 x 20, 6 coils, koosh ball of 600 spokes x 24 samples (kz scaled by 20/24 to
 * the volume's extent; data by the encoding operator of the true maps, NUFFT eps 1e-6),
 * calibration radius 6 (an 11^3 region, kernel 6). */
static void test_koosh_3d(void)
{
    kr_ctx *c = kt_cpu_ctx();
    const int64_t n3[3] = {24, 24, 20}, nc = 6, nv = 24 * 24 * 20;
    kr_array *S = ket_maps3(n3, nc), *img = NULL;
    kr_array *k = ket_kspace3(c, S, &img);
    kr_array_destroy(k);
    /* the object: img / S for coil 0 is the phantom times its phase; rebuild it */
    int ne = 0;
    const kr_ellipsoid *e = kr_phantom_ellipsoids(KR_PHANTOM_MODIFIED_SL, &ne);
    kr_array *ph = NULL, *x0 = NULL;
    KT_OK(kr_phantom_3d_grid(&ph, e, ne, KR_GRID_FFT, n3[0], n3[1], n3[2], 2, KR_F64));
    KT_OK(kr_array_create(&x0, KR_C64, 3, n3, KR_HOST, NULL));
    double mx = 0;
    for (int64_t q = 0; q < nv; q++) {
        const double x = 2.0 * (double)(q % n3[0] - n3[0] / 2) / (double)n3[0];
        const double y = 2.0 * (double)(q / n3[0] % n3[1] - n3[1] / 2) / (double)n3[1];
        const double f = ((double *)ph->data)[q];
        ((float *)x0->data)[2 * q] = (float)(f * cos(0.6 * (x + y)));
        ((float *)x0->data)[2 * q + 1] = (float)(f * sin(0.6 * (x + y)));
        mx = fmax(mx, fabs(f));
    }
    kr_radial_opts ro;
    kr_radial_opts_default(&ro);
    ro.samples = 24;
    ro.spokes = 600;
    kr_array *traj = NULL, *y = NULL;
    KT_OK(kr_traj_koosh(&traj, &ro));
    const int64_t M = kr_array_numel(traj) / 3, yd[2] = {M, nc};
    for (int64_t m = 0; m < M; m++) ((float *)traj->data)[3 * m + 2] *= 20.0f / 24.0f;
    KT_OK(kr_array_create(&y, KR_C64, 2, yd, KR_HOST, NULL));
    {
        kr_cgsense_opts o;
        kr_cgsense_opts_default(&o);
        o.eps = 1e-6;
        kr_cgsense_plan *p = NULL;
        kr_linop *E = NULL;
        KT_OK(kr_cgsense_plan_create(&p, c, 3, n3, traj, S, &o));
        KT_OK(kr_cgsense_linop_create(&E, p));
        KT_OK(kr_linop_forward(E, x0, y));
        kr_linop_destroy(E);
        kr_cgsense_plan_destroy(p);
    }
    double *rss = malloc(sizeof(double) * nv), *ref = malloc(sizeof(double) * nv);
    uint8_t *mask = malloc((size_t)nv);
    kr_array *tn = normalise(S, nv, nc, rss);
    for (int64_t q = 0; q < nv; q++) {
        const double f = fabs(((double *)ph->data)[q]);
        ref[q] = f * rss[q];
        mask[q] = f > 0.05 * mx;
    }
    const double e_true = recon_err(c, 3, n3, traj, y, tn, ref, mask, 20);
    kr_cgsense_maps_opts mo;
    kr_cgsense_maps_opts_default(&mo);
    mo.espirit = 1;
    mo.calib_radius = 6;
    kr_array *m = NULL;
    double t0 = kr_time_now();
    KT_OK(kr_cgsense_estimate_maps(c, 3, n3, traj, y, NULL, &mo, &m));
    double t1 = kr_time_now();
    KT_CHECK(m && m->ndim == 4 && m->dims[2] == n3[2]);
    const double e_esp = recon_err(c, 3, n3, traj, y, m, ref, mask, 20);
    kr_cgsense_maps_opts_default(&mo);
    mo.calib_radius = 6;
    kr_array *mr = NULL;
    KT_OK(kr_cgsense_estimate_maps(c, 3, n3, traj, y, NULL, &mo, &mr));
    const double e_rss = recon_err(c, 3, n3, traj, y, mr, ref, mask, 20);
    printf("  koosh 24x24x20, 6 coils, 600 spokes, CG-SENSE 20 iterations, NRMSE of |x|: true "
           "maps %.4f, RSS estimate %.4f, 3-D ESPIRiT from the data %.4f (maps %.1f s)\n",
           e_true, e_rss, e_esp, t1 - t0);
    KT_LE(e_esp, 1.25 * e_true);
    free(rss), free(ref), free(mask);
    kr_array_destroy(S), kr_array_destroy(img), kr_array_destroy(ph), kr_array_destroy(x0);
    kr_array_destroy(traj), kr_array_destroy(y), kr_array_destroy(tn), kr_array_destroy(m);
    kr_array_destroy(mr);
    kr_ctx_destroy(c);
}

static void test_bad_input(void)
{
    kr_ctx *c = kt_cpu_ctx();
    ct_problem pr;
    ct_problem_make(&pr, 16, 2, 8);
    int64_t dims[2] = {16, 16};
    kr_array *cal = NULL;
    KT_STATUS(kr_cgsense_calib_kspace(c, 2, dims, pr.traj, pr.data, NULL, 1.5, 30, 0, &cal),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cgsense_calib_kspace(c, 2, dims, pr.traj, pr.data, NULL, 4, 0, 0, &cal),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cgsense_calib_kspace(c, 2, dims, pr.traj, pr.data, NULL, 4, 30, 6, &cal),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cgsense_calib_kspace(c, 4, dims, pr.traj, pr.data, NULL, 4, 30, 0, &cal),
              KR_ERR_DIM);
    ((float *)pr.data->data)[5] = NAN;
    KT_STATUS(kr_cgsense_calib_kspace(c, 2, dims, pr.traj, pr.data, NULL, 4, 30, 0, &cal),
              KR_ERR_INVALID_ARG);
    KT_CHECK(cal == NULL);
    ct_problem_free(&pr);
    kr_ctx_destroy(c);
}

int main(void)
{
    KT_RUN(test_calib_values);
    KT_RUN(test_radial_2d);
    KT_RUN(test_koosh_3d);
    KT_RUN(test_bad_input);
    return kt_finish();
}
