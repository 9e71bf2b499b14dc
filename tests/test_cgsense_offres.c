/* Field-map-corrected multi-coil CG-SENSE (kray/cgsense.h with opts.fieldmap): the exact
 * encoding operator against a brute-force double direct sum over coils, samples and voxels;
 * the batched off-resonance operator against one image at a time; adjoint tests; the
 * time-segmented encoding against the exact one within the interpolation bound e(L); a spiral
 * 8-coil reconstruction of data simulated with the field map (direct sum) that the corrected
 * models recover much better than plain CG-SENSE; bad input. */
#include "kt.h"

#include "kray/cgsense.h"
#include "kray/linop.h"
#include "kray/offres.h"
#include "kray/phantom.h"
#include "kray/traj.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

/* smooth field map in Hz over [nx, ny]: amp (0.6 cos(2 pi x) + 0.4 sin(2 pi (x + y))) */
static kr_array *fieldmap(int64_t nx, int64_t ny, double amp)
{
    int64_t d[2] = {nx, ny};
    kr_array *f = NULL;
    KT_OK(kr_array_create(&f, KR_F64, 2, d, KR_HOST, NULL));
    double *v = f->data;
    for (int64_t j = 0; j < ny; j++)
        for (int64_t i = 0; i < nx; i++) {
            double x = (double)(i - nx / 2) / (double)nx, y = (double)(j - ny / 2) / (double)ny;
            v[j * nx + i] = amp * (0.6 * cos(2 * PI * x) + 0.4 * sin(2 * PI * (x + y)));
        }
    return f;
}

/* coil maps c64 [nx, ny, nc]: smooth magnitude and phase per coil (ring of nc coils) */
static kr_array *coil_maps(int64_t nx, int64_t ny, int64_t nc)
{
    int64_t d[3] = {nx, ny, nc};
    kr_array *m = NULL;
    KT_OK(kr_array_create(&m, KR_C64, 3, d, KR_HOST, NULL));
    float *v = m->data;
    for (int64_t c = 0; c < nc; c++) {
        double a = 2 * PI * (double)c / (double)nc;
        for (int64_t j = 0; j < ny; j++)
            for (int64_t i = 0; i < nx; i++) {
                double x = 2.0 * (double)(i - nx / 2) / (double)nx;
                double y = 2.0 * (double)(j - ny / 2) / (double)ny;
                double dx = x - 1.2 * cos(a), dy = y - 1.2 * sin(a);
                double mag = 1.0 / (1.0 + 0.6 * (dx * dx + dy * dy));
                double ph = a + 0.8 * (x * sin(a) - y * cos(a));
                int64_t q = i + nx * (j + ny * c);
                v[2 * q] = (float)(mag * cos(ph));
                v[2 * q + 1] = (float)(mag * sin(ph));
            }
    }
    return m;
}

/* y[m, c] = sum_p S_c(p) x(p) exp(-2 pi i (k_m . (p - n/2) / n + f(p) t_m)) in double */
static void direct(int64_t nx, int64_t ny, int64_t nc, int64_t M, const double *k3,
                   const double *t, const double *f, const kr_array *maps, const double complex *x,
                   double complex *y)
{
    const float *s = maps->data;
    const int64_t N = nx * ny;
    for (int64_t m = 0; m < M; m++) {
        for (int64_t c = 0; c < nc; c++) y[m + M * c] = 0;
        for (int64_t p = 0; p < N; p++) {
            double ph = k3[3 * m] * (double)(p % nx - nx / 2) / (double)nx +
                        k3[3 * m + 1] * (double)(p / nx - ny / 2) / (double)ny + f[p] * t[m];
            double complex e = cexp(-2 * PI * I * (ph - rint(ph))) * x[p];
            for (int64_t c = 0; c < nc; c++) {
                const float *sv = s + 2 * (p + N * c);
                y[m + M * c] += (sv[0] + I * sv[1]) * e;
            }
        }
    }
}

static double crel(const double complex *a, const double complex *b, int64_t n)
{
    double e = 0, r = 0;
    for (int64_t i = 0; i < n; i++) {
        e += pow(cabs(a[i] - b[i]), 2);
        r += pow(cabs(b[i]), 2);
    }
    return sqrt(e / r);
}

static double complex *c64_to_cd(const kr_array *a)
{
    const float *v = a->data;
    int64_t n = kr_array_numel(a);
    double complex *o = malloc(sizeof *o * (size_t)n);
    for (int64_t i = 0; i < n; i++) o[i] = v[2 * i] + I * v[2 * i + 1];
    return o;
}

/* Random small problem: 12 x 10 image, 3 coils, 150 samples, field map +-120 Hz, times 0..15 ms.
 * E x of the exact model against the direct sum, the adjoint tests of both models, and the
 * segmented model within e(L) of the exact one; the batched operator equals one image at a
 * time. */
static void test_exact_direct_and_segmented(void)
{
    kr_ctx *c = kt_cpu_ctx();
    const int64_t nx = 12, ny = 10, nc = 3, M = 150, dims[2] = {nx, ny};
    int64_t td[2] = {3, M};
    kr_array *traj = NULL, *times = NULL, *x = NULL, *y = NULL, *ys = NULL;
    KT_OK(kr_array_create(&traj, KR_F64, 2, td, KR_HOST, NULL));
    KT_OK(kr_array_create(&times, KR_F64, 1, &M, KR_HOST, NULL));
    double *k = traj->data, *t = times->data;
    uint64_t z = 99;
    for (int64_t m = 0; m < M; m++) {
        k[3 * m] = (kt_urand(&z) - 0.5) * (double)nx;
        k[3 * m + 1] = (kt_urand(&z) - 0.5) * (double)ny;
        k[3 * m + 2] = 0;
        t[m] = 0.015 * (double)m / (double)(M - 1);
    }
    kr_array *fm = fieldmap(nx, ny, 120), *maps = coil_maps(nx, ny, nc);
    kr_cgsense_opts o;
    kr_cgsense_opts_default(&o);
    o.fieldmap = fm;
    o.times = times;
    o.exact = 1;
    o.eps = 1e-6;
    kr_cgsense_plan *pe = NULL, *ps = NULL;
    KT_OK(kr_cgsense_plan_create(&pe, c, 2, dims, traj, maps, &o));
    o.exact = 0;
    KT_OK(kr_cgsense_plan_create(&ps, c, 2, dims, traj, maps, &o));
    kr_offres_info oi;
    KT_OK(kr_cgsense_plan_offres(ps, &oi));
    KT_CHECK(oi.segments >= 2);
    kr_linop *Ee = NULL, *Es = NULL;
    KT_OK(kr_cgsense_linop_create(&Ee, pe));
    KT_OK(kr_cgsense_linop_create(&Es, ps));
    int64_t yd[2] = {M, nc};
    KT_OK(kr_array_create(&x, KR_C64, 2, dims, KR_HOST, NULL));
    KT_OK(kr_array_create(&y, KR_C64, 2, yd, KR_HOST, NULL));
    KT_OK(kr_array_create(&ys, KR_C64, 2, yd, KR_HOST, NULL));
    KT_OK(kr_vec_random(c, x, 17));
    KT_OK(kr_linop_forward(Ee, x, y));
    KT_OK(kr_linop_forward(Es, x, ys));
    double complex *xd = c64_to_cd(x), *ref = malloc(sizeof *ref * (size_t)(M * nc));
    direct(nx, ny, nc, M, k, t, fm->data, maps, xd, ref);
    double complex *ye = c64_to_cd(y), *yse = c64_to_cd(ys);
    const double e_exact = crel(ye, ref, M * nc), e_seg = crel(yse, ref, M * nc);
    double a_exact = 0, a_seg = 0;
    KT_OK(kr_linop_adjoint_test(Ee, 3, &a_exact));
    KT_OK(kr_linop_adjoint_test(Es, 3, &a_seg));
    printf("  12x10, 3 coils, 150 samples, +-120 Hz over 15 ms: exact vs direct sum %.2e; "
           "segmented (L = %d, e(L) = %.2e) vs direct sum %.2e; adjoint tests %.1e, %.1e\n",
           e_exact, oi.segments, oi.interp_err, e_seg, a_exact, a_seg);
    KT_LE(e_exact, 2e-6);
    KT_LE(e_seg, oi.interp_err);
    KT_LE(a_exact, 1e-5);
    KT_LE(a_seg, 1e-5);
    /* more segments: closer (tol 1e-6 -> e(L) <= 1e-6) */
    kr_cgsense_plan *pt = NULL;
    o.segment_tol = 1e-6;
    KT_OK(kr_cgsense_plan_create(&pt, c, 2, dims, traj, maps, &o));
    kr_offres_info ot;
    KT_OK(kr_cgsense_plan_offres(pt, &ot));
    kr_linop *Et = NULL;
    KT_OK(kr_cgsense_linop_create(&Et, pt));
    KT_OK(kr_linop_forward(Et, x, ys));
    free(yse);
    yse = c64_to_cd(ys);
    const double e_tight = crel(yse, ref, M * nc);
    printf("  segment tolerance 1e-6: L = %d, e(L) = %.2e, vs direct sum %.2e\n", ot.segments,
           ot.interp_err, e_tight);
    KT_CHECK(ot.segments > oi.segments);
    KT_LE(e_tight, 1e-5);
    /* the batched off-resonance operator equals one image at a time (exact and segmented) */
    for (int exact = 0; exact < 2; exact++) {
        kr_offres_opts fo;
        kr_offres_opts_default(&fo);
        fo.exact = exact;
        fo.segments = 5;
        kr_offres_opts fb = fo;
        fb.batch = nc;
        int64_t n3[3] = {nx, ny, 1}, xb[3] = {nx, ny, nc};
        kr_linop *A1 = NULL, *AB = NULL;
        KT_OK(kr_offres_linop_create(&A1, c, n3, traj, fm, times, &fo, NULL));
        KT_OK(kr_offres_linop_create(&AB, c, n3, traj, fm, times, &fb, NULL));
        kr_array *X = NULL, *YB = NULL, *Y1 = NULL, *Xa = NULL, *Xb = NULL;
        KT_OK(kr_array_create(&X, KR_C64, 3, xb, KR_HOST, NULL));
        KT_OK(kr_array_create(&Xa, KR_C64, 3, xb, KR_HOST, NULL));
        KT_OK(kr_array_create(&Xb, KR_C64, 3, xb, KR_HOST, NULL));
        KT_OK(kr_array_create(&YB, KR_C64, 2, yd, KR_HOST, NULL));
        KT_OK(kr_array_create(&Y1, KR_C64, 2, yd, KR_HOST, NULL));
        KT_OK(kr_vec_random(c, X, 5));
        KT_OK(kr_linop_forward(AB, X, YB));
        KT_OK(kr_linop_adjoint(AB, YB, Xb));
        const size_t ib = (size_t)(nx * ny) * 8, kb = (size_t)M * 8;
        for (int64_t b = 0; b < nc; b++) {
            kr_array xi, yi, ai;
            KT_OK(kr_array_wrap(&xi, KR_C64, 3, n3, (char *)X->data + b * ib, KR_HOST));
            KT_OK(kr_array_wrap(&yi, KR_C64, 1, &M, (char *)Y1->data + b * kb, KR_HOST));
            KT_OK(kr_array_wrap(&ai, KR_C64, 3, n3, (char *)Xa->data + b * ib, KR_HOST));
            KT_OK(kr_linop_forward(A1, &xi, &yi));
            kr_array yb;
            KT_OK(kr_array_wrap(&yb, KR_C64, 1, &M, (char *)YB->data + b * kb, KR_HOST));
            KT_OK(kr_linop_adjoint(A1, &yb, &ai));
        }
        KT_CHECK(memcmp(YB->data, Y1->data, kr_array_bytes(Y1)) == 0);
        KT_CHECK(memcmp(Xa->data, Xb->data, kr_array_bytes(Xa)) == 0);
        kr_array_destroy(X), kr_array_destroy(YB), kr_array_destroy(Y1);
        kr_array_destroy(Xa), kr_array_destroy(Xb);
        kr_linop_destroy(A1), kr_linop_destroy(AB);
    }
    free(xd), free(ref), free(ye), free(yse);
    kr_linop_destroy(Ee), kr_linop_destroy(Es), kr_linop_destroy(Et);
    kr_cgsense_plan_destroy(pe), kr_cgsense_plan_destroy(ps), kr_cgsense_plan_destroy(pt);
    kr_array_destroy(traj), kr_array_destroy(times), kr_array_destroy(x), kr_array_destroy(y);
    kr_array_destroy(ys), kr_array_destroy(fm), kr_array_destroy(maps);
    kr_ctx_destroy(c);
}

/* 32^2 modified Shepp-Logan, 8 coils, 4-interleave spiral with a 12 ms readout, field map
 * +-100 Hz (about 2.4 cycles of phase over the readout at the extremes): data by the direct sum;
 * CG-SENSE (20 iterations) without the field map, with the time-segmented and with the exact
 * model. */
static void test_recon_with_fieldmap(void)
{
    kr_ctx *c = kt_cpu_ctx();
    const int64_t n = 32, nc = 8, dims[2] = {n, n};
    kr_spiral_opts so;
    kr_spiral_opts_default(&so);
    so.fov_mm = 200, so.res_mm = 6.25, so.interleaves = 4, so.vd_factor = 1, so.dtype = KR_F64;
    kr_spiral_info si;
    kr_array *traj = NULL, *times = NULL;
    KT_OK(kr_traj_spiral(&traj, &so, &si));
    const int64_t M = kr_array_numel(traj) / 3;
    KT_OK(kr_array_create(&times, KR_F64, 1, &M, KR_HOST, NULL));
    double *t = times->data;
    for (int64_t m = 0; m < M; m++)
        t[m] = 0.002 + 0.012 * (double)(m % si.samples) / (double)(si.samples - 1);
    kr_array *fm = fieldmap(n, n, 100), *maps = coil_maps(n, n, nc), *ph = NULL;
    KT_OK(kr_phantom_2d(&ph, KR_PHANTOM_MODIFIED_SL, n, n, 1, KR_F64));
    double complex *x0 = malloc(sizeof *x0 * (size_t)(n * n));
    for (int64_t q = 0; q < n * n; q++) x0[q] = ((double *)ph->data)[q];
    double complex *yd = malloc(sizeof *yd * (size_t)(M * nc));
    direct(n, n, nc, M, traj->data, t, fm->data, maps, x0, yd);
    int64_t kd[2] = {M, nc};
    kr_array *y = NULL, *x = NULL;
    KT_OK(kr_array_create(&y, KR_C64, 2, kd, KR_HOST, NULL));
    KT_OK(kr_array_create(&x, KR_C64, 2, dims, KR_HOST, NULL));
    for (int64_t i = 0; i < M * nc; i++) {
        ((float *)y->data)[2 * i] = (float)creal(yd[i]);
        ((float *)y->data)[2 * i + 1] = (float)cimag(yd[i]);
    }
    kr_solve_opts sopt;
    kr_solve_opts_default(&sopt);
    sopt.max_iter = 20;
    sopt.tol = 1e-7;
    sopt.lambda = 1e-3 * (double)M;
    double err[3];
    int segs = 0;
    for (int mode = 0; mode < 3; mode++) {
        kr_cgsense_opts o;
        kr_cgsense_opts_default(&o);
        if (mode > 0) o.fieldmap = fm, o.times = times, o.exact = mode == 2;
        kr_cgsense_plan *p = NULL;
        KT_OK(kr_cgsense_plan_create(&p, c, 2, dims, traj, maps, &o));
        if (mode == 1) {
            kr_offres_info oi;
            KT_OK(kr_cgsense_plan_offres(p, &oi));
            segs = oi.segments;
        }
        kr_solve_info info;
        KT_OK(kr_cgsense_solve(p, y, x, &sopt, &info));
        double complex *xr = c64_to_cd(x);
        err[mode] = crel(xr, x0, n * n);
        free(xr);
        kr_cgsense_plan_destroy(p);
    }
    printf("  32^2, 8 coils, 4-interleave spiral (%lld samples), +-100 Hz, 2-14 ms: NRMSE "
           "without the field map %.3f, time-segmented (L = %d) %.3f, exact %.3f\n",
           (long long)M, err[0], segs, err[1], err[2]);
    KT_LE(err[1], 0.5 * err[0]);
    KT_LE(err[2], 0.5 * err[0]);
    KT_LE(fabs(err[1] - err[2]), 0.01);
    free(x0), free(yd);
    kr_array_destroy(traj), kr_array_destroy(times), kr_array_destroy(fm);
    kr_array_destroy(maps), kr_array_destroy(ph), kr_array_destroy(y), kr_array_destroy(x);
    kr_ctx_destroy(c);
}

static void test_bad_input(void)
{
    kr_ctx *c = kt_cpu_ctx();
    const int64_t n = 8, dims[2] = {n, n}, M = 20;
    int64_t td[2] = {3, M};
    kr_array *traj = NULL, *times = NULL, *tshort = NULL;
    KT_OK(kr_array_create(&traj, KR_F32, 2, td, KR_HOST, NULL));
    KT_OK(kr_array_create(&times, KR_F64, 1, &M, KR_HOST, NULL));
    int64_t m1 = M - 1;
    KT_OK(kr_array_create(&tshort, KR_F64, 1, &m1, KR_HOST, NULL));
    kr_array *fm = fieldmap(n, n, 50), *fbad = fieldmap(n, n + 1, 50), *maps = coil_maps(n, n, 2);
    kr_cgsense_opts o;
    kr_cgsense_opts_default(&o);
    kr_cgsense_plan *p = NULL;
    o.fieldmap = fm;
    KT_STATUS(kr_cgsense_plan_create(&p, c, 2, dims, traj, maps, &o), KR_ERR_INVALID_ARG);
    o.times = tshort;
    KT_STATUS(kr_cgsense_plan_create(&p, c, 2, dims, traj, maps, &o), KR_ERR_DIM);
    o.times = times;
    o.fieldmap = fbad;
    KT_STATUS(kr_cgsense_plan_create(&p, c, 2, dims, traj, maps, &o), KR_ERR_DIM);
    o.fieldmap = fm;
    o.normal = KR_CGSENSE_NORMAL_TOEPLITZ;
    KT_STATUS(kr_cgsense_plan_create(&p, c, 2, dims, traj, maps, &o), KR_ERR_NOT_SUPPORTED);
    o.normal = KR_CGSENSE_NORMAL_NUFFT;
    ((double *)times->data)[3] = NAN;
    KT_STATUS(kr_cgsense_plan_create(&p, c, 2, dims, traj, maps, &o), KR_ERR_INVALID_ARG);
    KT_CHECK(p == NULL);
    kr_array_destroy(traj), kr_array_destroy(times), kr_array_destroy(tshort);
    kr_array_destroy(fm), kr_array_destroy(fbad), kr_array_destroy(maps);
    kr_ctx_destroy(c);
}

int main(void)
{
    KT_RUN(test_exact_direct_and_segmented);
    KT_RUN(test_recon_with_fieldmap);
    KT_RUN(test_bad_input);
    return kt_finish();
}
