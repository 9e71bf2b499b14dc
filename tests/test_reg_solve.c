/* The reg algorithms on small problems (CPU, f64): FISTA on a LASSO problem against the
 * optimality conditions, the monotone variant's objective never increases, ADMM and PDHG reach
 * the same TV + non-negativity minimiser (and FISTA with the TV prox), warm starts, the
 * histories, bit-identical results for 1 and 2 threads, and bad input. */
#include "kray/reg.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>

#define M 40
#define N 30

static kr_linop *rand_matrix(kr_ctx *c, uint64_t seed)
{
    double *A = malloc(sizeof(double) * M * N);
    uint64_t z = seed;
    for (int i = 0; i < M * N; i++) A[i] = kt_urand(&z) - 0.5;
    kr_linop *op = NULL;
    KT_OK(kr_linop_matrix(&op, c, KR_F64, M, N, A, KR_HOST));
    free(A);
    return op;
}

static kr_array *vec(int64_t n)
{
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, KR_F64, 1, &n, KR_HOST, NULL));
    return a;
}

/* y = A x0 + noise with x0 piecewise constant, non-negative */
static kr_array *data(kr_ctx *c, kr_linop *A)
{
    kr_array *x0 = vec(N), *y = vec(M);
    double *xv = x0->data;
    for (int i = 0; i < N; i++) xv[i] = i < 10 ? 1.0 : (i < 18 ? 0.0 : 2.0);
    KT_OK(kr_linop_forward(A, x0, y));
    uint64_t z = 99;
    for (int i = 0; i < M; i++) ((double *)y->data)[i] += 0.05 * (kt_urand(&z) - 0.5);
    (void)c;
    kr_array_destroy(x0);
    return y;
}

static void test_fista_lasso(void)
{
    kr_ctx *c = kt_cpu_ctx();
    kr_linop *A = rand_matrix(c, 7);
    kr_array *y = data(c, A), *x = vec(N), *g = vec(N), *r = vec(M);
    const double lam = 0.3;
    kr_prox *p = NULL;
    int64_t n = N;
    KT_OK(kr_prox_l1_create(&p, c, KR_F64, 1, &n, lam));
    for (int mono = 0; mono < 2; mono++) {
        kr_reg_opts o;
        kr_reg_opts_default(&o);
        o.max_iter = 3000;
        o.tol = 1e-12;
        o.monotone = mono;
        double obj[3001], res[3001];
        o.objective = obj;
        o.residual = res;
        kr_reg_info info;
        KT_OK(kr_fista(c, A, y, p, x, &o, &info));
        KT_CHECK(info.converged);
        KT_CHECK(info.lipschitz > 0);
        KT_NEAR(obj[info.iterations], info.objective, 0.0);
        KT_CHECK(res[0] == 1.0);
        if (mono)
            for (int k = 1; k <= info.iterations; k++) KT_LE(obj[k], obj[k - 1]);
        /* optimality: A^T (A x - y) + lam sign(x) = 0 on the support, |.| <= lam off it */
        KT_OK(kr_linop_forward(A, x, r));
        KT_OK(kr_vec_axpy(c, r, -1.0, 0.0, y));
        KT_OK(kr_linop_adjoint(A, r, g));
        const double *xv = x->data, *gv = g->data;
        int support = 0;
        for (int i = 0; i < N; i++) {
            if (xv[i] != 0.0) {
                support++;
                KT_NEAR(gv[i], -lam * (xv[i] > 0 ? 1 : -1), 1e-6);
            } else {
                KT_LE(fabs(gv[i]), lam + 1e-6);
            }
        }
        KT_CHECK(support > 5 && support < N);
    }
    kr_prox_destroy(p);
    kr_linop_destroy(A);
    kr_array_destroy(y);
    kr_array_destroy(x);
    kr_array_destroy(g);
    kr_array_destroy(r);
    kr_ctx_destroy(c);
}

/* min 1/2 |A x - y|^2 + lam |D x|_1 + (x >= 0): ADMM, PDHG and FISTA (TV prox) agree. */
static void test_same_minimiser(void)
{
    kr_ctx *c = kt_cpu_ctx();
    kr_linop *A = rand_matrix(c, 11), *D = NULL;
    int64_t n = N, dd[2] = {N, 1};
    KT_OK(kr_fdiff_linop_create(&D, c, KR_F64, 1, &n, 1u, KR_FDIFF_NEUMANN));
    kr_array *y = data(c, A), *xa = vec(N), *xp = vec(N), *xf = vec(N);
    const double lam = 0.5;
    kr_prox *l21 = NULL, *box = NULL, *tv = NULL;
    KT_OK(kr_prox_l21_create(&l21, c, KR_F64, 2, dd, lam));
    KT_OK(kr_prox_box_create(&box, c, KR_F64, 1, &n, 0.0, INFINITY));
    KT_OK(kr_prox_tv_create(&tv, c, KR_F64, 1, &n, lam, 1u, 0.0, INFINITY, 50));
    kr_reg_term terms[2] = {{D, l21}, {NULL, box}};
    kr_reg_opts o;
    kr_reg_opts_default(&o);
    o.max_iter = 4000;
    o.tol = 1e-11;
    o.cg_iter = 20;
    kr_reg_info ia, ip, iff;
    KT_OK(kr_admm(c, A, y, terms, 2, xa, &o, &ia));
    KT_OK(kr_pdhg(c, A, y, terms, 2, xp, &o, &ip));
    o.monotone = 1;
    KT_OK(kr_fista(c, A, y, tv, xf, &o, &iff));
    double na, d1, d2;
    KT_OK(kr_vec_norm2(c, xa, &na));
    KT_OK(kr_vec_axpy(c, xp, -1.0, 0.0, xa));
    KT_OK(kr_vec_norm2(c, xp, &d1));
    KT_OK(kr_vec_axpy(c, xf, -1.0, 0.0, xa));
    KT_OK(kr_vec_norm2(c, xf, &d2));
    printf("ADMM %d it (F %.10g), PDHG %d it (F %.10g), FISTA %d it (F %.10g); |pd-admm|/|x| "
           "%.2e, |fista-admm|/|x| %.2e\n",
           ia.iterations, ia.objective, ip.iterations, ip.objective, iff.iterations,
           iff.objective, d1 / na, d2 / na);
    KT_LE(d1 / na, 1e-4);
    KT_LE(d2 / na, 1e-4);
    KT_NEAR(ia.objective, ip.objective, 1e-6 * ia.objective);
    const double *v = xa->data;
    for (int i = 0; i < N; i++) KT_GE(v[i], 0.0);
    kr_prox_destroy(l21);
    kr_prox_destroy(box);
    kr_prox_destroy(tv);
    kr_linop_destroy(A);
    kr_linop_destroy(D);
    kr_array_destroy(y);
    kr_array_destroy(xa);
    kr_array_destroy(xp);
    kr_array_destroy(xf);
    kr_ctx_destroy(c);
}

/* A converged x given back to FISTA as the start stops at once; 1 and 2 threads give the same bits. */
static void test_warm_and_threads(void)
{
    kr_ctx *c = kt_cpu_ctx();
    kr_linop *A = rand_matrix(c, 13), *D = NULL;
    int64_t n = N, dd[2] = {N, 1};
    KT_OK(kr_fdiff_linop_create(&D, c, KR_F64, 1, &n, 1u, KR_FDIFF_NEUMANN));
    kr_array *y = data(c, A), *x = vec(N), *x2 = vec(N);
    kr_prox *l21 = NULL;
    KT_OK(kr_prox_l21_create(&l21, c, KR_F64, 2, dd, 0.4));
    kr_reg_term t = {D, l21};
    kr_reg_opts o;
    kr_reg_opts_default(&o);
    o.max_iter = 3000;
    o.tol = 1e-9;
    kr_reg_info i1, i2;
    kr_prox *l1 = NULL;
    KT_OK(kr_prox_l1_create(&l1, c, KR_F64, 1, &n, 0.3));
    KT_OK(kr_fista(c, A, y, l1, x, &o, &i1));
    KT_CHECK(i1.converged && i1.iterations > 20);
    o.warm_start = 1;
    o.tol = 1e-6;
    KT_OK(kr_fista(c, A, y, l1, x, &o, &i2));
    KT_LE(i2.iterations, 2);
    KT_NEAR(i2.objective, i1.objective, 1e-9 * i1.objective);
    kr_prox_destroy(l1);
    /* threads */
    o.warm_start = 0;
    o.max_iter = 50;
    for (int algo = 0; algo < 2; algo++) {
        KT_OK(kr_ctx_set_threads(c, 1));
        if (algo == 0) KT_OK(kr_admm(c, A, y, &t, 1, x, &o, NULL));
        else KT_OK(kr_pdhg(c, A, y, &t, 1, x, &o, NULL));
        KT_OK(kr_ctx_set_threads(c, 2));
        if (algo == 0) KT_OK(kr_admm(c, A, y, &t, 1, x2, &o, NULL));
        else KT_OK(kr_pdhg(c, A, y, &t, 1, x2, &o, NULL));
        KT_CHECK(memcmp(x->data, x2->data, N * sizeof(double)) == 0);
    }
    kr_prox_destroy(l21);
    kr_linop_destroy(A);
    kr_linop_destroy(D);
    kr_array_destroy(y);
    kr_array_destroy(x);
    kr_array_destroy(x2);
    kr_ctx_destroy(c);
}

static void test_bad_input(void)
{
    kr_ctx *c = kt_cpu_ctx();
    kr_linop *A = rand_matrix(c, 3), *D = NULL;
    int64_t n = 7;
    KT_OK(kr_fdiff_linop_create(&D, c, KR_F64, 1, &n, 1u, KR_FDIFF_NEUMANN));
    kr_array *y = vec(M), *x = vec(N), *xs = vec(7);
    kr_reg_opts o;
    kr_reg_opts_default(&o);
    KT_STATUS(kr_fista(NULL, A, y, NULL, x, &o, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fista(c, NULL, y, NULL, x, &o, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fista(c, A, x, NULL, x, &o, NULL), KR_ERR_DIM);
    KT_STATUS(kr_fista(c, A, y, NULL, xs, &o, NULL), KR_ERR_DIM);
    o.max_iter = 0;
    KT_STATUS(kr_fista(c, A, y, NULL, x, &o, NULL), KR_ERR_INVALID_ARG);
    kr_reg_opts_default(&o);
    o.rho = -1;
    KT_STATUS(kr_admm(c, A, y, NULL, 0, x, &o, NULL), KR_ERR_INVALID_ARG);
    kr_reg_opts_default(&o);
    kr_reg_term t = {D, NULL};
    KT_STATUS(kr_pdhg(c, A, y, &t, 1, x, &o, NULL), KR_ERR_INVALID_ARG);
    kr_prox *p = NULL;
    KT_OK(kr_prox_l1_create(&p, c, KR_F64, 1, &n, 1.0));
    t.g = p;
    KT_STATUS(kr_pdhg(c, A, y, &t, 1, x, &o, NULL), KR_ERR_DIM);
    kr_reg_term t2[2] = {{NULL, p}, {NULL, p}};
    KT_STATUS(kr_pdhg(c, A, y, t2, 2, x, &o, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_admm(c, A, y, NULL, 1, x, &o, NULL), KR_ERR_INVALID_ARG);
    double L;
    KT_STATUS(kr_linop_norm2_estimate(c, A, 0, 1, &L), KR_ERR_INVALID_ARG);
    KT_OK(kr_linop_norm2_estimate(c, D, 200, 1, &L));
    KT_NEAR(L, 2 + 2 * cos(3.14159265358979323846 / 7), 1e-6); /* largest eigenvalue of the path Laplacian */
    kr_prox_destroy(p);
    kr_linop_destroy(A);
    kr_linop_destroy(D);
    kr_array_destroy(y);
    kr_array_destroy(x);
    kr_array_destroy(xs);
    kr_ctx_destroy(c);
}

int main(void)
{
    KT_RUN(test_fista_lasso);
    KT_RUN(test_same_minimiser);
    KT_RUN(test_warm_and_threads);
    KT_RUN(test_bad_input);
    return kt_finish();
}
