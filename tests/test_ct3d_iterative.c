/* SIRT and CGLS on the cone-beam projectors (CPU): SIRT against a dense reference iteration on
 * the explicit matrix (with and without non-negativity), the monotone fall of the R-weighted
 * SIRT residual and of the CGLS residual, CGLS against the direct solution of the regularised
 * normal equations, stopping on the tolerance, and bad input. */
#include "internal.h"
#include "kray/ct.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>

static kr_ctx *mkctx(void)
{
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
    KT_OK(kr_ctx_set_threads(c, 2));
    KT_OK(kr_ctx_set_log_level(c, KR_LOG_ERROR));
    return c;
}

/* A tiny cone problem: 6 x 5 x 4 voxels, 8 views of 7 x 5 pixels. */
static kr_ct_geom *tiny(void)
{
    kr_ct_grid g;
    kr_ct_grid_3d(&g, 6, 5, 4, 1.0);
    g.voxel_mm[2] = 1.3;
    kr_ct_scan s;
    kr_ct_scan_default(&s);
    s.type = KR_CT_CONE;
    s.nviews = 8;
    s.start_deg = 0;
    s.stop_deg = 360;
    s.det_count = 7;
    s.det_rows = 5;
    s.det_spacing_mm = 1.6;
    s.det_offset_mm = 0.3;
    s.sod_mm = 25;
    s.sdd_mm = 40;
    kr_ct_geom *geo = NULL;
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    return geo;
}

#define NX 120 /* voxels */
#define NY 280 /* rays */

static kr_linop *op_of(const kr_ctx *c, const kr_ct_geom *g, kr_ct_method m)
{
    kr_ct_projector_opts o;
    kr_ct_projector_opts_default(&o);
    o.method = m;
    o.dtype = KR_F64;
    kr_linop *A = NULL;
    KT_OK(kr_ct_linop_create(&A, c, g, &o));
    return A;
}

static kr_array *dom(void)
{
    kr_array *a = NULL;
    int64_t d[3] = {6, 5, 4};
    KT_OK(kr_array_create(&a, KR_F64, 3, d, KR_HOST, NULL));
    return a;
}

static kr_array *cod(void)
{
    kr_array *a = NULL;
    int64_t d[3] = {7, 5, 8};
    KT_OK(kr_array_create(&a, KR_F64, 3, d, KR_HOST, NULL));
    return a;
}

/* Dense A (NY x NX, row-major) from forward projections of unit vectors. */
static double *dense(const kr_linop *A)
{
    double *M = calloc(NX * NY, sizeof *M);
    kr_array *e = dom(), *p = cod();
    for (int q = 0; q < NX; q++) {
        memset(e->data, 0, NX * sizeof(double));
        ((double *)e->data)[q] = 1;
        KT_OK(kr_linop_forward(A, e, p));
        for (int r = 0; r < NY; r++) M[r * NX + q] = ((double *)p->data)[r];
    }
    kr_array_destroy(e);
    kr_array_destroy(p);
    return M;
}

static void truth(kr_array *x)
{
    double *v = x->data;
    for (int i = 0; i < NX; i++)
        v[i] =
            0.3 + 0.7 * (kri_rand_sym(42, (uint64_t)i) > 0.2) + 0.1 * kri_rand_sym(43, (uint64_t)i);
}

/* Dense SIRT reference: k iterations from 0. */
static void sirt_ref(const double *M, const double *y, int k, double relax, int nonneg, double *x)
{
    double R[NY], C[NX], r[NY], g[NX];
    for (int i = 0; i < NY; i++) {
        double s = 0;
        for (int j = 0; j < NX; j++) s += M[i * NX + j];
        R[i] = s > 0 ? 1 / s : 0;
    }
    for (int j = 0; j < NX; j++) {
        double s = 0;
        for (int i = 0; i < NY; i++) s += M[i * NX + j];
        C[j] = s > 0 ? 1 / s : 0;
        x[j] = 0;
    }
    for (int it = 0; it < k; it++) {
        for (int i = 0; i < NY; i++) {
            double s = 0;
            for (int j = 0; j < NX; j++) s += M[i * NX + j] * x[j];
            r[i] = (y[i] - s) * R[i];
        }
        for (int j = 0; j < NX; j++) {
            double s = 0;
            for (int i = 0; i < NY; i++) s += M[i * NX + j] * r[i];
            g[j] = s * C[j];
            x[j] += relax * g[j];
            if (nonneg && x[j] < 0) x[j] = 0;
        }
    }
}

static double resid(const double *M, const double *y, const double *x, const double *w)
{
    double s = 0;
    for (int i = 0; i < NY; i++) {
        double a = 0;
        for (int j = 0; j < NX; j++) a += M[i * NX + j] * x[j];
        s += (y[i] - a) * (y[i] - a) * (w ? w[i] : 1);
    }
    return sqrt(s);
}

static void test_sirt(void)
{
    kr_ctx *c = mkctx();
    kr_ct_geom *geo = tiny();
    for (int m = 0; m < 2; m++) {
        kr_linop *A = op_of(c, geo, m ? KR_CT_SIDDON : KR_CT_JOSEPH);
        double *M = dense(A);
        kr_array *xt = dom(), *y = cod(), *x = dom();
        truth(xt);
        KT_OK(kr_linop_forward(A, xt, y));
        kr_sirt_plan *s = NULL;
        KT_OK(kr_sirt_plan_create(&s, c, A));
        kr_sirt_opts o;
        kr_sirt_opts_default(&o);
        KT_CHECK(o.max_iter == 50 && o.relax == 1 && o.tol == 0 && !o.nonneg);
        double hist[21], xr[NX], w[NY];
        o.max_iter = 20;
        o.relax = 1.5;
        o.history = hist;
        kr_solve_info info;
        KT_OK(kr_sirt_execute(s, y, x, &o, &info));
        KT_CHECK(info.iterations == 20 && !info.converged);
        sirt_ref(M, y->data, 20, 1.5, 0, xr);
        double d = 0, n = 0;
        for (int j = 0; j < NX; j++) {
            d = fmax(d, fabs(((double *)x->data)[j] - xr[j]));
            n = fmax(n, fabs(xr[j]));
        }
        KT_LE(d, 1e-12 * n);
        const double zero[NX] = {0}, ynorm = resid(M, y->data, zero, NULL);
        KT_NEAR(info.rel_residual, resid(M, y->data, x->data, NULL) / ynorm, 1e-12);
        /* history: plain residual after k iterations; the R-weighted one falls monotonically */
        for (int i = 0; i < NY; i++) {
            double sr = 0;
            for (int j = 0; j < NX; j++) sr += M[i * NX + j];
            w[i] = sr > 0 ? 1 / sr : 0;
        }
        double prev = HUGE_VAL;
        for (int k = 0; k <= 20; k++) {
            sirt_ref(M, y->data, k, 1.5, 0, xr);
            KT_NEAR(hist[k], resid(M, y->data, xr, NULL) / ynorm, 1e-12);
            double rw = resid(M, y->data, xr, w);
            KT_LE(rw, prev * (1 + 1e-13));
            prev = rw;
        }
        KT_LE(hist[20], 0.2 * hist[0]);
        /* warm start continues the same iteration: 5 + 15 == 20 */
        o.max_iter = 5;
        o.history = NULL;
        KT_OK(kr_sirt_execute(s, y, x, &o, NULL));
        o.max_iter = 15;
        o.warm_start = 1;
        KT_OK(kr_sirt_execute(s, y, x, &o, &info));
        sirt_ref(M, y->data, 20, 1.5, 0, xr);
        for (int j = 0; j < NX; j++) KT_NEAR(((double *)x->data)[j], xr[j], 1e-12 * n);
        /* non-negativity from data with a negative part */
        double *yv = y->data;
        for (int i = 0; i < NY; i++) yv[i] -= 0.8 * fabs(kri_rand_sym(9, (uint64_t)i));
        o.warm_start = 0;
        o.max_iter = 12;
        o.relax = 1;
        o.nonneg = 1;
        KT_OK(kr_sirt_execute(s, y, x, &o, &info));
        sirt_ref(M, y->data, 12, 1, 1, xr);
        int neg = 0;
        for (int j = 0; j < NX; j++) {
            KT_NEAR(((double *)x->data)[j], xr[j], 1e-12 * n);
            neg += xr[j] < 0;
        }
        KT_CHECK(neg == 0);
        /* tolerance: stops once the residual is small enough */
        o.nonneg = 0;
        o.max_iter = 500;
        o.tol = 0.05;
        KT_OK(kr_linop_forward(A, xt, y));
        KT_OK(kr_sirt_execute(s, y, x, &o, &info));
        KT_CHECK(info.converged && info.iterations < 500 && info.rel_residual <= 0.05);
        o.max_iter = info.iterations - 1;
        kr_solve_info i2;
        KT_OK(kr_sirt_execute(s, y, x, &o, &i2));
        KT_CHECK(!i2.converged && i2.rel_residual > 0.05);
        kr_sirt_plan_destroy(s);
        free(M);
        kr_array_destroy(xt);
        kr_array_destroy(y);
        kr_array_destroy(x);
        kr_linop_destroy(A);
    }
    kr_ct_geom_destroy(geo);
    kr_ctx_destroy(c);
}

/* Cholesky solve of the SPD system S x = b (n x n, row-major, overwritten). */
static void chol_solve(double *S, double *b, int n)
{
    for (int j = 0; j < n; j++) {
        double d = S[j * n + j];
        for (int k = 0; k < j; k++) d -= S[j * n + k] * S[j * n + k];
        d = sqrt(d);
        S[j * n + j] = d;
        for (int i = j + 1; i < n; i++) {
            double s = S[i * n + j];
            for (int k = 0; k < j; k++) s -= S[i * n + k] * S[j * n + k];
            S[i * n + j] = s / d;
        }
    }
    for (int i = 0; i < n; i++) {
        double s = b[i];
        for (int k = 0; k < i; k++) s -= S[i * n + k] * b[k];
        b[i] = s / S[i * n + i];
    }
    for (int i = n - 1; i >= 0; i--) {
        double s = b[i];
        for (int k = i + 1; k < n; k++) s -= S[k * n + i] * b[k];
        b[i] = s / S[i * n + i];
    }
}

static void test_cgls(void)
{
    kr_ctx *c = mkctx();
    kr_ct_geom *geo = tiny();
    kr_linop *A = op_of(c, geo, KR_CT_JOSEPH);
    double *M = dense(A);
    kr_array *xt = dom(), *y = cod(), *x = dom();
    truth(xt);
    KT_OK(kr_linop_forward(A, xt, y));
    double *yv = y->data;
    for (int i = 0; i < NY; i++) yv[i] += 0.05 * kri_rand_sym(5, (uint64_t)i); /* inconsistent */
    /* reference: (A^T A + lambda I) x = A^T y */
    const double lam = 0.02;
    double *S = calloc(NX * NX, sizeof *S), b[NX];
    for (int i = 0; i < NX; i++) {
        b[i] = 0;
        for (int r = 0; r < NY; r++) b[i] += M[r * NX + i] * yv[r];
        for (int j = 0; j < NX; j++) {
            double s = 0;
            for (int r = 0; r < NY; r++) s += M[r * NX + i] * M[r * NX + j];
            S[i * NX + j] = s + (i == j ? lam : 0);
        }
    }
    chol_solve(S, b, NX);
    kr_solve_opts o;
    kr_solve_opts_default(&o);
    o.max_iter = 400;
    o.tol = 1e-13;
    o.lambda = lam;
    kr_solve_info info;
    KT_OK(kr_cgls(c, A, y, x, &o, &info));
    double d = 0, n = 0;
    for (int j = 0; j < NX; j++) {
        d += (((double *)x->data)[j] - b[j]) * (((double *)x->data)[j] - b[j]);
        n += b[j] * b[j];
    }
    printf("  CGLS vs the direct solution: relative error %.2g after %d iterations\n",
           sqrt(d / n), info.iterations);
    KT_LE(sqrt(d / n), 1e-9);
    /* lambda = 0: ||y - A x_k|| falls monotonically with k */
    o.lambda = 0;
    o.tol = 0;
    double prev = HUGE_VAL;
    for (int k = 1; k <= 12; k++) {
        o.max_iter = k;
        KT_OK(kr_cgls(c, A, y, x, &o, &info));
        double r = resid(M, yv, x->data, NULL);
        KT_LE(r, prev * (1 + 1e-12));
        prev = r;
    }
    free(S);
    free(M);
    kr_array_destroy(xt);
    kr_array_destroy(y);
    kr_array_destroy(x);
    kr_linop_destroy(A);
    kr_ct_geom_destroy(geo);
    kr_ctx_destroy(c);
}

static void test_bad_input(void)
{
    kr_ctx *c = mkctx();
    kr_ct_geom *geo = tiny();
    kr_linop *A = op_of(c, geo, KR_CT_SIDDON);
    kr_sirt_plan *s = (kr_sirt_plan *)1;
    KT_STATUS(kr_sirt_plan_create(&s, c, NULL), KR_ERR_INVALID_ARG);
    KT_CHECK(s == NULL);
    KT_STATUS(kr_sirt_plan_create(NULL, c, A), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_sirt_plan_create(&s, NULL, A), KR_ERR_INVALID_ARG);
    float cm[8] = {1, 0, 0, 0, 0, 0, 1, 0};
    kr_linop *Mc = NULL;
    KT_OK(kr_linop_matrix(&Mc, c, KR_C64, 2, 2, cm, KR_HOST));
    KT_STATUS(kr_sirt_plan_create(&s, c, Mc), KR_ERR_DTYPE);
    double neg[4] = {1, -2, 0.5, 1};
    kr_linop *Mn = NULL;
    KT_OK(kr_linop_matrix(&Mn, c, KR_F64, 2, 2, neg, KR_HOST));
    KT_STATUS(kr_sirt_plan_create(&s, c, Mn), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "1 row sums of operator") != NULL);
    KT_OK(kr_sirt_plan_create(&s, c, A));
    kr_array *y = cod(), *x = dom();
    kr_sirt_opts o;
    kr_sirt_opts_default(&o);
    o.relax = 2;
    KT_STATUS(kr_sirt_execute(s, y, x, &o, NULL), KR_ERR_INVALID_ARG);
    o.relax = 1;
    o.max_iter = 0;
    KT_STATUS(kr_sirt_execute(s, y, x, &o, NULL), KR_ERR_INVALID_ARG);
    o.max_iter = 3;
    o.tol = -1;
    KT_STATUS(kr_sirt_execute(s, y, x, &o, NULL), KR_ERR_INVALID_ARG);
    o.tol = 0;
    KT_STATUS(kr_sirt_execute(s, x, y, &o, NULL), KR_ERR_DIM);
    KT_STATUS(kr_sirt_execute(NULL, y, x, &o, NULL), KR_ERR_INVALID_ARG);
    /* y = 0 gives x = 0 without iterating */
    ((double *)x->data)[3] = 5;
    kr_solve_info info;
    KT_OK(kr_sirt_execute(s, y, x, &o, &info));
    KT_CHECK(info.iterations == 0 && info.converged && ((double *)x->data)[3] == 0);
    ((double *)y->data)[7] = NAN;
    KT_STATUS(kr_sirt_execute(s, y, x, &o, NULL), KR_ERR_INVALID_ARG);
    kr_array_destroy(y);
    kr_array_destroy(x);
    kr_sirt_plan_destroy(s);
    kr_sirt_plan_destroy(NULL);
    kr_linop_destroy(Mc);
    kr_linop_destroy(Mn);
    kr_linop_destroy(A);
    kr_ct_geom_destroy(geo);
    kr_ctx_destroy(c);
}

int main(void)
{
    KT_RUN(test_sirt);
    KT_RUN(test_cgls);
    KT_RUN(test_bad_input);
    return kt_finish();
}
