/* CG-SENSE (kray/cgsense.h): the encoding operator against direct sums, its adjoint, the
 * normal operator hook, a dense-solve reference, the phantom reconstruction against the
 * density-compensated adjoint, map estimation, and bad input. */
#include "cgsense_test_util.h"

#include <complex.h>

/* Small random problem: n x n image, nc coils, M random points in [-n/2, n/2). */
typedef struct small {
    int64_t n, nc, M;
    kr_array *traj, *maps;
} small;

static void small_make(small *s, int64_t n, int64_t nc, int64_t M, uint64_t seed)
{
    s->n = n;
    s->nc = nc;
    s->M = M;
    int64_t td[2] = {3, M}, md[3] = {n, n, nc};
    KT_OK(kr_array_create(&s->traj, KR_F32, 2, td, KR_HOST, NULL));
    KT_OK(kr_array_create(&s->maps, KR_C64, 3, md, KR_HOST, NULL));
    float *t = s->traj->data, *m = s->maps->data;
    for (int64_t i = 0; i < M; i++) {
        t[3 * i] = (float)(0.499 * n * (2.0 * ((double)((i * 7919 + seed) % 1000) / 1000.0) - 1.0));
        t[3 * i + 1] = (float)(0.499 * n * (2.0 * ((double)((i * 104729 + 17) % 997) / 997.0) -
                                            1.0));
        t[3 * i + 2] = 0;
    }
    for (int64_t i = 0; i < n * n * nc; i++) {
        m[2 * i] = (float)(0.5 + 0.5 * sin(0.37 * (double)i));
        m[2 * i + 1] = (float)(0.3 * cos(0.11 * (double)i + 1.0));
    }
}

static void small_free(small *s)
{
    kr_array_destroy(s->traj);
    kr_array_destroy(s->maps);
}

/* E x by direct sums (double): y[m, c] = sum_p S_c(p) x(p) exp(-2 pi i k_m . (p - n/2) / n). */
static void direct_forward(const small *s, const float *x, double complex *y)
{
    const int64_t n = s->n;
    const float *t = s->traj->data, *mp = s->maps->data;
    for (int64_t c = 0; c < s->nc; c++)
        for (int64_t m = 0; m < s->M; m++) {
            double complex acc = 0;
            for (int64_t j = 0; j < n; j++)
                for (int64_t i = 0; i < n; i++) {
                    const int64_t p = i + n * j, q = p + n * n * c;
                    double ph = -2 * 3.14159265358979323846 * (t[3 * m] * (double)(i - n / 2) +
                                             t[3 * m + 1] * (double)(j - n / 2)) / (double)n;
                    double complex sv = mp[2 * q] + I * mp[2 * q + 1];
                    double complex xv = x[2 * p] + I * x[2 * p + 1];
                    acc += sv * xv * cexp(I * ph);
                }
            y[m + s->M * c] = acc;
        }
}

static void test_forward_direct(void)
{
    kr_ctx *c = kt_cpu_ctx();
    small s;
    small_make(&s, 16, 3, 200, 1);
    int64_t dims[2] = {16, 16};
    kr_cgsense_plan *p = NULL;
    KT_OK(kr_cgsense_plan_create(&p, c, 2, dims, s.traj, s.maps, NULL));
    kr_linop *E = NULL;
    KT_OK(kr_cgsense_linop_create(&E, p));
    kr_array *x = NULL, *y = NULL;
    int64_t yd[2] = {200, 3};
    KT_OK(kr_array_create(&x, KR_C64, 2, dims, KR_HOST, NULL));
    KT_OK(kr_array_create(&y, KR_C64, 2, yd, KR_HOST, NULL));
    KT_OK(kr_vec_random(c, x, 5));
    KT_OK(kr_linop_forward(E, x, y));
    double complex *ref = malloc(sizeof(double complex) * 600);
    direct_forward(&s, x->data, ref);
    double e = 0, r = 0;
    const float *yv = y->data;
    for (int64_t i = 0; i < 600; i++) {
        double complex d = yv[2 * i] + I * yv[2 * i + 1] - ref[i];
        e += creal(d * conj(d));
        r += creal(ref[i] * conj(ref[i]));
    }
    printf("  E x vs direct sums: relative l2 error %.2e\n", sqrt(e / r));
    KT_LE(sqrt(e / r), 5e-4); /* NUFFT eps 1e-4 plus float rounding */
    double rel = 1;
    KT_OK(kr_linop_adjoint_test(E, 3, &rel));
    printf("  adjoint test (no weights): %.2e\n", rel);
    KT_LE(rel, 1e-5);
    free(ref);
    kr_array_destroy(x);
    kr_array_destroy(y);
    kr_linop_destroy(E);
    kr_cgsense_plan_destroy(p);
    small_free(&s);
    kr_ctx_destroy(c);
}

/* 3-D: E x against direct sums and the adjoint test (8 x 6 x 4 image, 2 coils, 150 points). */
static void test_forward_3d(void)
{
    kr_ctx *c = kt_cpu_ctx();
    const int64_t nx = 8, ny = 6, nz = 4, nc = 2, M = 150, nv = nx * ny * nz;
    int64_t dims[3] = {nx, ny, nz}, td[2] = {3, M}, md[4] = {nx, ny, nz, nc}, yd[2] = {M, nc};
    kr_array *traj = NULL, *maps = NULL, *x = NULL, *y = NULL;
    KT_OK(kr_array_create(&traj, KR_F64, 2, td, KR_HOST, NULL));
    KT_OK(kr_array_create(&maps, KR_C64, 4, md, KR_HOST, NULL));
    KT_OK(kr_array_create(&x, KR_C64, 3, dims, KR_HOST, NULL));
    KT_OK(kr_array_create(&y, KR_C64, 2, yd, KR_HOST, NULL));
    double *t = traj->data;
    for (int64_t m = 0; m < M; m++)
        for (int d = 0; d < 3; d++)
            t[3 * m + d] = 0.499 * (double)dims[d] * sin(1.7 * (double)(m + 1) * (d + 1.3));
    KT_OK(kr_vec_random(c, maps, 8));
    KT_OK(kr_vec_random(c, x, 9));
    kr_cgsense_plan *p = NULL;
    KT_OK(kr_cgsense_plan_create(&p, c, 3, dims, traj, maps, NULL));
    kr_linop *E = NULL;
    KT_OK(kr_cgsense_linop_create(&E, p));
    KT_OK(kr_linop_forward(E, x, y));
    const float *s = maps->data, *xv = x->data, *yv = y->data;
    double e = 0, r = 0;
    for (int64_t cc = 0; cc < nc; cc++)
        for (int64_t m = 0; m < M; m++) {
            double complex acc = 0;
            for (int64_t q = 0; q < nv; q++) {
                const int64_t i = q % nx, j = (q / nx) % ny, l = q / (nx * ny), k = q + nv * cc;
                double ph = -2 * 3.14159265358979323846 *
                            (t[3 * m] * (double)(i - nx / 2) / (double)nx +
                             t[3 * m + 1] * (double)(j - ny / 2) / (double)ny +
                             t[3 * m + 2] * (double)(l - nz / 2) / (double)nz);
                acc += (s[2 * k] + I * s[2 * k + 1]) * (xv[2 * q] + I * xv[2 * q + 1]) *
                       cexp(I * ph);
            }
            const int64_t o = m + M * cc;
            double complex d = yv[2 * o] + I * yv[2 * o + 1] - acc;
            e += creal(d * conj(d));
            r += creal(acc * conj(acc));
        }
    printf("  3-D E x vs direct sums: %.2e\n", sqrt(e / r));
    KT_LE(sqrt(e / r), 5e-4);
    double rel = 1;
    KT_OK(kr_linop_adjoint_test(E, 5, &rel));
    KT_LE(rel, 1e-5);
    kr_linop_destroy(E);
    kr_cgsense_plan_destroy(p);
    kr_array_destroy(traj), kr_array_destroy(maps), kr_array_destroy(x), kr_array_destroy(y);
    kr_ctx_destroy(c);
}

/* With weights: adjoint test of D^1/2 E and N x == (D^1/2 E)^H (D^1/2 E) x. */
static void test_weighted_adjoint_normal(void)
{
    kr_ctx *c = kt_cpu_ctx();
    ct_problem P;
    ct_problem_make(&P, 32, 4, 16);
    int64_t dims[2] = {32, 32};
    kr_cgsense_opts o;
    kr_cgsense_opts_default(&o);
    o.dcf = P.dcf;
    kr_cgsense_plan *p = NULL;
    KT_OK(kr_cgsense_plan_create(&p, c, 2, dims, P.traj, P.maps, &o));
    kr_linop *E = NULL, *N = NULL;
    KT_OK(kr_cgsense_linop_create(&E, p));
    KT_OK(kr_cgsense_normal_linop_create(&N, p));
    double rel = 1;
    KT_OK(kr_linop_adjoint_test(E, 11, &rel));
    KT_LE(rel, 1e-5);
    KT_OK(kr_linop_adjoint_test(N, 12, &rel));
    KT_LE(rel, 1e-5);
    kr_array *x = NULL, *a = NULL, *b = NULL, *y = NULL;
    int64_t yd[2] = {P.M, 4};
    KT_OK(kr_array_create(&x, KR_C64, 2, dims, KR_HOST, NULL));
    KT_OK(kr_array_create(&a, KR_C64, 2, dims, KR_HOST, NULL));
    KT_OK(kr_array_create(&b, KR_C64, 2, dims, KR_HOST, NULL));
    KT_OK(kr_array_create(&y, KR_C64, 2, yd, KR_HOST, NULL));
    KT_OK(kr_vec_random(c, x, 9));
    KT_OK(kr_linop_forward(N, x, a));
    KT_OK(kr_linop_forward(E, x, y));
    KT_OK(kr_linop_adjoint(E, y, b));
    KT_LE(ct_nrmse(a, b, 1.0), 1e-5);
    /* rhs = E^H D y: the adjoint of D^1/2 applied to D^1/2 y */
    const float *w = P.dcf->data;
    float *yv = y->data;
    KT_OK(kr_cgsense_rhs(p, P.data, a));
    memcpy(yv, P.data->data, sizeof(float) * 2 * (size_t)(P.M * 4));
    for (int64_t i = 0; i < P.M * 4; i++) {
        yv[2 * i] *= sqrtf(w[i % P.M]);
        yv[2 * i + 1] *= sqrtf(w[i % P.M]);
    }
    KT_OK(kr_linop_adjoint(E, y, b));
    KT_LE(ct_nrmse(a, b, 1.0), 1e-5);
    kr_array_destroy(x);
    kr_array_destroy(a);
    kr_array_destroy(b);
    kr_array_destroy(y);
    kr_linop_destroy(E);
    kr_linop_destroy(N);
    kr_cgsense_plan_destroy(p);
    ct_problem_free(&P);
    kr_ctx_destroy(c);
}

/* CG on a small well-posed problem against the dense normal equations (direct sums, double,
 * Gaussian elimination with partial pivoting). */
static void test_dense_solve(void)
{
    kr_ctx *c = kt_cpu_ctx();
    small s;
    small_make(&s, 8, 3, 90, 2);
    const int64_t n = 8, np = 64, M = 90, nc = 3;
    int64_t dims[2] = {n, n};
    /* dense E (M nc x np) by direct sums on unit vectors */
    double complex *Em = calloc((size_t)(M * nc * np), sizeof(double complex));
    float *unit = calloc(2 * (size_t)np, sizeof(float));
    double complex *col = malloc(sizeof(double complex) * (size_t)(M * nc));
    for (int64_t j = 0; j < np; j++) {
        memset(unit, 0, sizeof(float) * 2 * (size_t)np);
        unit[2 * j] = 1;
        direct_forward(&s, unit, col);
        for (int64_t i = 0; i < M * nc; i++) Em[i + M * nc * j] = col[i];
    }
    kr_array *y = NULL, *x = NULL;
    int64_t yd[2] = {M, nc};
    KT_OK(kr_array_create(&y, KR_C64, 2, yd, KR_HOST, NULL));
    KT_OK(kr_array_create(&x, KR_C64, 2, dims, KR_HOST, NULL));
    KT_OK(kr_vec_random(c, y, 77));
    const double lambda = 5.0;
    /* A = E^H E + lambda I, b = E^H y */
    double complex *A = calloc((size_t)(np * (np + 1)), sizeof(double complex));
    const float *yv = y->data;
    for (int64_t i = 0; i < np; i++) {
        for (int64_t j = 0; j < np; j++) {
            double complex acc = 0;
            for (int64_t r = 0; r < M * nc; r++) acc += conj(Em[r + M * nc * i]) * Em[r + M * nc * j];
            A[i + np * j] = acc + (i == j ? lambda : 0);
        }
        double complex acc = 0;
        for (int64_t r = 0; r < M * nc; r++)
            acc += conj(Em[r + M * nc * i]) * (yv[2 * r] + I * yv[2 * r + 1]);
        A[i + np * np] = acc;
    }
    for (int64_t k = 0; k < np; k++) { /* elimination on [A | b] */
        int64_t piv = k;
        for (int64_t i = k + 1; i < np; i++)
            if (cabs(A[i + np * k]) > cabs(A[piv + np * k])) piv = i;
        for (int64_t j = 0; j <= np; j++) {
            double complex t = A[k + np * j];
            A[k + np * j] = A[piv + np * j];
            A[piv + np * j] = t;
        }
        for (int64_t i = k + 1; i < np; i++) {
            double complex f = A[i + np * k] / A[k + np * k];
            for (int64_t j = k; j <= np; j++) A[i + np * j] -= f * A[k + np * j];
        }
    }
    double complex *xr = malloc(sizeof(double complex) * (size_t)np);
    for (int64_t i = np - 1; i >= 0; i--) {
        double complex acc = A[i + np * np];
        for (int64_t j = i + 1; j < np; j++) acc -= A[i + np * j] * xr[j];
        xr[i] = acc / A[i + np * i];
    }
    kr_cgsense_opts o;
    kr_cgsense_opts_default(&o);
    o.eps = 1e-6;
    kr_cgsense_plan *p = NULL;
    KT_OK(kr_cgsense_plan_create(&p, c, 2, dims, s.traj, s.maps, &o));
    kr_solve_opts so;
    kr_solve_opts_default(&so);
    so.lambda = lambda;
    so.max_iter = 300;
    so.tol = 1e-6;
    kr_solve_info info;
    KT_OK(kr_cgsense_solve(p, y, x, &so, &info));
    KT_CHECK(info.converged);
    double e = 0, r = 0;
    const float *xv = x->data;
    for (int64_t i = 0; i < np; i++) {
        double complex d = xv[2 * i] + I * xv[2 * i + 1] - xr[i];
        e += creal(d * conj(d));
        r += creal(xr[i] * conj(xr[i]));
    }
    printf("  CG-SENSE vs dense solve: %d iterations, relative error %.2e\n", info.iterations,
           sqrt(e / r));
    KT_LE(sqrt(e / r), 1e-4);
    free(Em);
    free(unit);
    free(col);
    free(A);
    free(xr);
    kr_array_destroy(x);
    kr_array_destroy(y);
    kr_cgsense_plan_destroy(p);
    small_free(&s);
    kr_ctx_destroy(c);
}

/* Undersampled radial phantom (64^2, 8 coils, 24 spokes of 128 samples: ~R 4 vs the 100
 * spokes of radial Nyquist): CG-SENSE beats the coil-combined density-compensated adjoint. */
static void test_phantom_vs_adjoint(void)
{
    kr_ctx *c = kt_cpu_ctx();
    ct_problem P;
    ct_problem_make(&P, 64, 8, 24);
    int64_t dims[2] = {64, 64};
    kr_cgsense_opts o;
    kr_cgsense_opts_default(&o);
    o.dcf = P.dcf;
    kr_cgsense_plan *pw = NULL, *pu = NULL;
    KT_OK(kr_cgsense_plan_create(&pw, c, 2, dims, P.traj, P.maps, &o));
    KT_OK(kr_cgsense_plan_create(&pu, c, 2, dims, P.traj, P.maps, NULL));
    kr_array *adj = NULL, *xu = NULL, *xw = NULL;
    KT_OK(kr_array_create(&adj, KR_C64, 2, dims, KR_HOST, NULL));
    KT_OK(kr_array_create(&xu, KR_C64, 2, dims, KR_HOST, NULL));
    KT_OK(kr_array_create(&xw, KR_C64, 2, dims, KR_HOST, NULL));
    KT_OK(kr_cgsense_adjoint_image(pw, P.data, adj));
    kr_solve_opts so;
    kr_solve_opts_default(&so);
    so.max_iter = 30;
    so.tol = 1e-4;
    double hist[31];
    so.history = hist;
    kr_solve_info iu, iw;
    KT_OK(kr_cgsense_solve(pu, P.data, xu, &so, &iu));
    so.max_iter = 15;
    KT_OK(kr_cgsense_solve(pw, P.data, xw, &so, &iw));
    double ea = ct_nrmse(adj, P.truth, 1), eu = ct_nrmse(xu, P.truth, 1),
           ew = ct_nrmse(xw, P.truth, 1);
    printf("  NRMSE vs phantom: DCF adjoint %.4f, CG-SENSE %.4f (%d it, res %.1e), "
           "DCF-weighted CG-SENSE %.4f (%d it, res %.1e)\n",
           ea, eu, iu.iterations, iu.rel_residual, ew, iw.iterations, iw.rel_residual);
    KT_LE(eu, 0.5 * ea);
    KT_LE(eu, 0.25);
    KT_LE(ew, 0.5 * ea);
    KT_LE(iu.rel_residual, hist[0]);
    kr_array_destroy(adj);
    kr_array_destroy(xu);
    kr_array_destroy(xw);
    kr_cgsense_plan_destroy(pw);
    kr_cgsense_plan_destroy(pu);
    ct_problem_free(&P);
    kr_ctx_destroy(c);
}

/* The plan's own Toeplitz normal agrees with the NUFFT normal to the NUFFT accuracy; the hook
 * with a stand-in T = F^H F from a plain NUFFT operator (per coil on the image, and batched on
 * [image, coils]) reproduces the NUFFT normal path; detached, solving fails cleanly. */
static void test_fhf_hook(void)
{
    kr_ctx *c = kt_cpu_ctx();
    ct_problem P;
    ct_problem_make(&P, 32, 3, 12);
    int64_t dims[2] = {32, 32};
    kr_cgsense_opts o;
    kr_cgsense_opts_default(&o);
    kr_cgsense_plan *pn = NULL, *pt = NULL;
    KT_OK(kr_cgsense_plan_create(&pn, c, 2, dims, P.traj, P.maps, &o));
    o.normal = KR_CGSENSE_NORMAL_TOEPLITZ;
    KT_OK(kr_cgsense_plan_create(&pt, c, 2, dims, P.traj, P.maps, &o));
    kr_array *x = NULL;
    KT_OK(kr_array_create(&x, KR_C64, 2, dims, KR_HOST, NULL));
    {
        /* the plan's own T (kray/lsq.h Toeplitz engine, eps 1e-4) vs the NUFFT normal */
        kr_linop *N1 = NULL, *N2 = NULL;
        kr_array *a = NULL, *b = NULL;
        KT_OK(kr_cgsense_normal_linop_create(&N1, pn));
        KT_OK(kr_cgsense_normal_linop_create(&N2, pt));
        KT_OK(kr_array_create(&a, KR_C64, 2, dims, KR_HOST, NULL));
        KT_OK(kr_array_create(&b, KR_C64, 2, dims, KR_HOST, NULL));
        KT_OK(kr_vec_random(c, x, 3));
        KT_OK(kr_linop_forward(N1, x, a));
        KT_OK(kr_linop_forward(N2, x, b));
        const double e = ct_nrmse(b, a, 1.0);
        printf("  Toeplitz normal vs NUFFT normal: %.2e\n", e);
        KT_LE(e, 1e-3);
        KT_OK(kr_cgsense_set_fhf(pt, NULL));
        KT_STATUS(kr_cgsense_solve(pt, P.data, x, NULL, NULL), KR_ERR_NOT_SUPPORTED);
        kr_array_destroy(a);
        kr_array_destroy(b);
        kr_linop_destroy(N1);
        kr_linop_destroy(N2);
    }
    for (int batched = 0; batched < 2; batched++) {
        kr_nufft_opts no;
        kr_nufft_opts_default(&no);
        no.batch = batched ? 3 : 1;
        kr_nufft_plan *np = NULL;
        KT_OK(kr_nufft_plan_create(&np, c, 2, dims, &no));
        KT_OK(kr_nufft_set_points(np, P.traj));
        kr_linop *F = NULL, *T = NULL, *N1 = NULL, *N2 = NULL;
        KT_OK(kr_nufft_linop_create(&F, np));
        KT_OK(kr_linop_normal_op(&T, F));
        KT_OK(kr_cgsense_set_fhf(pt, T));
        KT_OK(kr_cgsense_normal_linop_create(&N1, pn));
        KT_OK(kr_cgsense_normal_linop_create(&N2, pt));
        kr_array *a = NULL, *b = NULL;
        KT_OK(kr_array_create(&a, KR_C64, 2, dims, KR_HOST, NULL));
        KT_OK(kr_array_create(&b, KR_C64, 2, dims, KR_HOST, NULL));
        KT_OK(kr_vec_random(c, x, 4));
        KT_OK(kr_linop_forward(N1, x, a));
        KT_OK(kr_linop_forward(N2, x, b));
        KT_LE(ct_nrmse(b, a, 1.0), 1e-6);
        KT_OK(kr_cgsense_set_fhf(pt, NULL));
        kr_array_destroy(a);
        kr_array_destroy(b);
        kr_linop_destroy(N1);
        kr_linop_destroy(N2);
        kr_linop_destroy(T);
        kr_linop_destroy(F);
        kr_nufft_plan_destroy(np);
    }
    kr_array_destroy(x);
    kr_cgsense_plan_destroy(pn);
    kr_cgsense_plan_destroy(pt);
    ct_problem_free(&P);
    kr_ctx_destroy(c);
}

/* Maps from the data's k-space centre match the true maps normalised by their RSS inside the
 * object, and CG-SENSE with them recovers rss_true * phantom there. */
static void test_estimate_maps(void)
{
    kr_ctx *c = kt_cpu_ctx();
    ct_problem P;
    ct_problem_make(&P, 64, 8, 48);
    int64_t dims[2] = {64, 64};
    kr_array *est = NULL;
    KT_OK(kr_cgsense_estimate_maps(c, 2, dims, P.traj, P.data, P.dcf, NULL, &est));
    KT_CHECK(est && est->ndim == 3 && est->dims[2] == 8);
    const float *s = P.maps->data, *e = est->data, *t = P.truth->data;
    const int64_t nv = 64 * 64;
    double err = 0, ref = 0;
    for (int64_t q = 0; q < nv; q++) {
        if (t[2 * q] < 0.25) continue; /* inside the brain (not the skull rim, not outside) */
        double rss = 0;
        for (int64_t c2 = 0; c2 < 8; c2++) {
            const int64_t i = 2 * (q + nv * c2);
            rss += (double)s[i] * s[i] + (double)s[i + 1] * s[i + 1];
        }
        rss = sqrt(rss);
        for (int64_t c2 = 0; c2 < 8; c2++) {
            const int64_t i = 2 * (q + nv * c2);
            double dr = e[i] - s[i] / rss, di = e[i + 1] - s[i + 1] / rss;
            err += dr * dr + di * di;
            ref += (s[i] * s[i] + s[i + 1] * s[i + 1]) / (rss * rss);
        }
    }
    printf("  estimated maps vs true/RSS inside the object: relative error %.3f\n",
           sqrt(err / ref));
    KT_LE(sqrt(err / ref), 0.1);
    kr_array_destroy(est);
    /* ESPIRiT variant: |maps| against |true| / RSS, and |CG-SENSE| against RSS * phantom */
    kr_cgsense_maps_opts mo;
    kr_cgsense_maps_opts_default(&mo);
    mo.espirit = 1;
    /* without weights: the least-squares calibration (tests/test_cgsense_calib.c) */
    KT_OK(kr_cgsense_estimate_maps(c, 2, dims, P.traj, P.data, NULL, &mo, &est));
    KT_CHECK(est && est->ndim == 3 && est->dims[2] == 8);
    kr_array_destroy(est);
    est = NULL;
    KT_OK(kr_cgsense_estimate_maps(c, 2, dims, P.traj, P.data, P.dcf, &mo, &est));
    kr_cgsense_plan *p = NULL;
    KT_OK(kr_cgsense_plan_create(&p, c, 2, dims, P.traj, est, NULL));
    kr_array *x = NULL;
    KT_OK(kr_array_create(&x, KR_C64, 2, dims, KR_HOST, NULL));
    kr_solve_opts so;
    kr_solve_opts_default(&so);
    so.max_iter = 30;
    so.lambda = 1e-3 * (double)P.M;
    KT_OK(kr_cgsense_solve(p, P.data, x, &so, NULL));
    e = est->data;
    const float *xv = x->data;
    double em = 0, rm = 0, ex = 0, rx = 0;
    for (int64_t q = 0; q < nv; q++) {
        if (t[2 * q] < 0.25) continue;
        double rss = 0;
        for (int64_t c2 = 0; c2 < 8; c2++) {
            const int64_t i = 2 * (q + nv * c2);
            rss += (double)s[i] * s[i] + (double)s[i + 1] * s[i + 1];
        }
        rss = sqrt(rss);
        for (int64_t c2 = 0; c2 < 8; c2++) {
            const int64_t i = 2 * (q + nv * c2);
            const double a = hypot(e[i], e[i + 1]), b = hypot(s[i], s[i + 1]) / rss;
            em += (a - b) * (a - b), rm += b * b;
        }
        const double a = hypot(xv[2 * q], xv[2 * q + 1]), b = rss * hypot(t[2 * q], t[2 * q + 1]);
        ex += (a - b) * (a - b), rx += b * b;
    }
    printf("  ESPIRiT maps: |maps| error %.3f, |CG-SENSE| vs RSS x phantom %.3f (inside)\n",
           sqrt(em / rm), sqrt(ex / rx));
    KT_LE(sqrt(em / rm), 0.05);
    KT_LE(sqrt(ex / rx), 0.1);
    kr_array_destroy(x);
    kr_cgsense_plan_destroy(p);
    kr_array_destroy(est);
    /* bad options */
    kr_cgsense_maps_opts_default(&mo);
    mo.calib_radius = 0;
    KT_STATUS(kr_cgsense_estimate_maps(c, 2, dims, P.traj, P.data, NULL, &mo, &est),
              KR_ERR_INVALID_ARG);
    mo.calib_radius = 10;
    mo.threshold = 1;
    KT_STATUS(kr_cgsense_estimate_maps(c, 2, dims, P.traj, P.data, NULL, &mo, &est),
              KR_ERR_INVALID_ARG);
    ct_problem_free(&P);
    kr_ctx_destroy(c);
}

static void test_bad_input(void)
{
    kr_ctx *c = kt_cpu_ctx();
    ct_problem P;
    ct_problem_make(&P, 16, 2, 4);
    int64_t dims[2] = {16, 16}, bad[2] = {16, 18};
    kr_cgsense_plan *p = NULL;
    KT_STATUS(kr_cgsense_plan_create(NULL, c, 2, dims, P.traj, P.maps, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cgsense_plan_create(&p, NULL, 2, dims, P.traj, P.maps, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cgsense_plan_create(&p, c, 2, dims, NULL, P.maps, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cgsense_plan_create(&p, c, 2, dims, P.traj, NULL, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cgsense_plan_create(&p, c, 2, bad, P.traj, P.maps, NULL), KR_ERR_DIM);
    KT_STATUS(kr_cgsense_plan_create(&p, c, 1, dims, P.traj, P.maps, NULL), KR_ERR_DIM);
    kr_array *m128 = NULL;
    KT_OK(kr_array_astype(&m128, P.maps, KR_C128));
    KT_STATUS(kr_cgsense_plan_create(&p, c, 2, dims, P.traj, m128, NULL), KR_ERR_DTYPE);
    kr_array_destroy(m128);
    kr_cgsense_opts o;
    kr_cgsense_opts_default(&o);
    kr_array *w = NULL;
    int64_t wd[1] = {P.M - 1};
    KT_OK(kr_array_create(&w, KR_F32, 1, wd, KR_HOST, NULL));
    o.dcf = w;
    KT_STATUS(kr_cgsense_plan_create(&p, c, 2, dims, P.traj, P.maps, &o), KR_ERR_DIM);
    kr_array_destroy(w);
    kr_array *wneg = NULL;
    KT_OK(kr_array_clone(&wneg, P.dcf, KR_HOST, NULL));
    ((float *)wneg->data)[3] = -1;
    o.dcf = wneg;
    KT_STATUS(kr_cgsense_plan_create(&p, c, 2, dims, P.traj, P.maps, &o), KR_ERR_INVALID_ARG);
    kr_array_destroy(wneg);
    o.dcf = NULL;
    o.normal = (kr_cgsense_normal)7;
    KT_STATUS(kr_cgsense_plan_create(&p, c, 2, dims, P.traj, P.maps, &o), KR_ERR_INVALID_ARG);
    /* NaN in the trajectory, out of range */
    kr_array *tn = NULL;
    KT_OK(kr_array_clone(&tn, P.traj, KR_HOST, NULL));
    ((float *)tn->data)[4] = NAN;
    KT_STATUS(kr_cgsense_plan_create(&p, c, 2, dims, tn, P.maps, NULL), KR_ERR_INVALID_ARG);
    ((float *)tn->data)[4] = 40;
    KT_STATUS(kr_cgsense_plan_create(&p, c, 2, dims, tn, P.maps, NULL), KR_ERR_GEOMETRY);
    kr_array_destroy(tn);
    /* NaN in the maps */
    kr_array *mn = NULL;
    KT_OK(kr_array_clone(&mn, P.maps, KR_HOST, NULL));
    ((float *)mn->data)[7] = NAN;
    KT_STATUS(kr_cgsense_plan_create(&p, c, 2, dims, P.traj, mn, NULL), KR_ERR_INVALID_ARG);
    kr_array_destroy(mn);
    KT_CHECK(p == NULL);
    /* a good plan, bad solve arguments */
    KT_OK(kr_cgsense_plan_create(&p, c, 2, dims, P.traj, P.maps, NULL));
    kr_array *x = NULL, *x3 = NULL, *dn = NULL;
    KT_OK(kr_array_create(&x, KR_C64, 2, dims, KR_HOST, NULL));
    KT_OK(kr_array_create(&x3, KR_C64, 2, bad, KR_HOST, NULL));
    kr_solve_opts so;
    kr_solve_opts_default(&so);
    so.lambda = -1;
    KT_STATUS(kr_cgsense_solve(p, P.data, x, &so, NULL), KR_ERR_INVALID_ARG);
    so.lambda = NAN;
    KT_STATUS(kr_cgsense_solve(p, P.data, x, &so, NULL), KR_ERR_INVALID_ARG);
    so.lambda = 0;
    KT_STATUS(kr_cgsense_solve(p, P.data, x3, &so, NULL), KR_ERR_DIM);
    KT_STATUS(kr_cgsense_solve(p, NULL, x, &so, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cgsense_solve(p, P.data, NULL, &so, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cgsense_solve(p, P.maps, x, &so, NULL), KR_ERR_DIM);
    KT_STATUS(kr_cgsense_solve(p, P.dcf, x, &so, NULL), KR_ERR_DTYPE);
    KT_OK(kr_array_clone(&dn, P.data, KR_HOST, NULL));
    ((float *)dn->data)[11] = INFINITY;
    KT_STATUS(kr_cgsense_solve(p, dn, x, &so, NULL), KR_ERR_INVALID_ARG);
    so.max_iter = 0;
    KT_STATUS(kr_cgsense_solve(p, P.data, x, &so, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cgsense_set_fhf(NULL, NULL), KR_ERR_INVALID_ARG);
    kr_linop *id = NULL;
    KT_OK(kr_linop_identity(&id, c, KR_C64, 2, bad, KR_HOST));
    KT_STATUS(kr_cgsense_set_fhf(p, id), KR_ERR_DIM);
    kr_linop_destroy(id);
    KT_OK(kr_linop_identity(&id, c, KR_C128, 2, dims, KR_HOST));
    KT_STATUS(kr_cgsense_set_fhf(p, id), KR_ERR_DTYPE);
    kr_linop_destroy(id);
    kr_array_destroy(x);
    kr_array_destroy(x3);
    kr_array_destroy(dn);
    kr_cgsense_plan_destroy(p);
    kr_cgsense_plan_destroy(NULL);
    ct_problem_free(&P);
    kr_ctx_destroy(c);
}

/* Same result bit for bit with 1 and 3 threads (weighted solve and map estimation). */
static void test_threads_bitwise(void)
{
    ct_problem P;
    ct_problem_make(&P, 32, 4, 12);
    int64_t dims[2] = {32, 32};
    kr_array *x[2] = {NULL, NULL}, *m[2] = {NULL, NULL};
    for (int t = 0; t < 2; t++) {
        kr_ctx *c = NULL;
        KT_OK(kr_ctx_create(&c, t ? KR_BACKEND_CPU : KR_BACKEND_CPU_SERIAL));
        kr_ctx_set_quiet(c, 1);
        if (t) KT_OK(kr_ctx_set_threads(c, 3));
        kr_cgsense_opts o;
        kr_cgsense_opts_default(&o);
        o.dcf = P.dcf;
        kr_cgsense_plan *p = NULL;
        KT_OK(kr_cgsense_plan_create(&p, c, 2, dims, P.traj, P.maps, &o));
        KT_OK(kr_array_create(&x[t], KR_C64, 2, dims, KR_HOST, NULL));
        kr_solve_opts so;
        kr_solve_opts_default(&so);
        so.max_iter = 6;
        so.lambda = 3;
        KT_OK(kr_cgsense_solve(p, P.data, x[t], &so, NULL));
        KT_OK(kr_cgsense_estimate_maps(c, 2, dims, P.traj, P.data, P.dcf, NULL, &m[t]));
        kr_cgsense_plan_destroy(p);
        kr_ctx_destroy(c);
    }
    KT_CHECK(memcmp(x[0]->data, x[1]->data, kr_array_bytes(x[0])) == 0);
    KT_CHECK(memcmp(m[0]->data, m[1]->data, kr_array_bytes(m[0])) == 0);
    for (int t = 0; t < 2; t++) kr_array_destroy(x[t]), kr_array_destroy(m[t]);
    ct_problem_free(&P);
}

int main(void)
{
    KT_RUN(test_forward_direct);
    KT_RUN(test_forward_3d);
    KT_RUN(test_weighted_adjoint_normal);
    KT_RUN(test_dense_solve);
    KT_RUN(test_phantom_vs_adjoint);
    KT_RUN(test_fhf_hook);
    KT_RUN(test_estimate_maps);
    KT_RUN(test_bad_input);
    KT_RUN(test_threads_bitwise);
    return kt_finish();
}
