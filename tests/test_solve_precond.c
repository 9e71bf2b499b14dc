/* Diagonal preconditioning of kr_cg and kr_cgls (kr_solve_opts.precond): on a badly scaled
 * Hermitian positive definite system D^(1/2) B D^(1/2) (B well conditioned, D spanning four
 * decades) the Jacobi-preconditioned CG reaches the tolerance in far fewer iterations, and both
 * converge to the dense solution (Gaussian elimination in double); the same for CGLS with the
 * inverse column norms; f32, f64, c64 and c128; bit-identical for 1 and 2 threads; bad
 * preconditioners give their exact statuses. */
#include "internal.h"
#include "solve_test_util.h"

#include <stdlib.h>
#include <string.h>

/* The badly scaled matrix R = C Q (m x n; Q with orthonormal-ish columns, C = diag(c_j)
 * column scales over four decades) and A = R^H R + lambda I's pieces. */
static void make_problem(kr_dtype t, int m, int n, uint64_t seed, cplx *R)
{
    const int c = kr_dtype_is_complex(t);
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double re = kri_rand_sym(seed, (uint64_t)(2 * (i * n + j)));
            double im = c ? kri_rand_sym(seed, (uint64_t)(2 * (i * n + j) + 1)) : 0.0;
            double scale = pow(10.0, 2.0 * (double)j / (double)(n - 1)); /* 1 .. 100 */
            R[i * n + j] = (re + I * im) * scale + (i == j ? 3.0 * scale : 0.0);
        }
}

static kr_array *host_vec(kr_dtype t, int64_t n)
{
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, t, 1, &n, KR_HOST, NULL));
    return a;
}

static double rel_to(const kr_array *x, kr_dtype t, const cplx *ref, int n)
{
    double e = 0, r = 0;
    for (int i = 0; i < n; i++) {
        e += pow(cabs(getc_(x->data, t, i) - ref[i]), 2);
        r += pow(cabs(ref[i]), 2);
    }
    return sqrt(e / r);
}

static void test_cg_cgls_jacobi(void)
{
    kr_ctx *ctx = kt_cpu_ctx();
    const kr_dtype dts[4] = {KR_F32, KR_F64, KR_C64, KR_C128};
    const int m = 60, n = 40;
    const double lambda = 0.5;
    for (int d = 0; d < 4; d++) {
        const kr_dtype t = dts[d];
        const kr_dtype rt = is_single(t) ? KR_F32 : KR_F64;
        cplx *R = malloc(sizeof(cplx) * m * n), *G = malloc(sizeof(cplx) * n * n);
        cplx *rhs = malloc(sizeof(cplx) * n), *xs = malloc(sizeof(cplx) * n);
        cplx *y = malloc(sizeof(cplx) * m), *xl = malloc(sizeof(cplx) * n);
        make_problem(t, m, n, 11 + (uint64_t)d, R);
        /* CG on A = R^H R + lambda I (the operator is A without lambda; lambda in opts) */
        void *Ab = malloc((size_t)(n * n) * kr_dtype_size(t));
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                cplx s = 0;
                for (int k = 0; k < m; k++) s += conj(R[k * n + i]) * R[k * n + j];
                setc_(Ab, t, i * n + j, s);
                G[i * n + j] = getc_(Ab, t, i * n + j) + (i == j ? lambda : 0);
            }
        for (int i = 0; i < n; i++) rhs[i] = kri_rand_sym(77, (uint64_t)i) + I * 0.0;
        for (int k = 0; k < m; k++) y[k] = kri_rand_sym(78, (uint64_t)k);
        kr_linop *A = NULL, *Rop = NULL;
        KT_OK(kr_linop_matrix(&A, ctx, t, n, n, Ab, KR_HOST));
        void *Rb = malloc((size_t)(m * n) * kr_dtype_size(t));
        for (int i = 0; i < m * n; i++) setc_(Rb, t, i, R[i]);
        KT_OK(kr_linop_matrix(&Rop, ctx, t, m, n, Rb, KR_HOST));
        kr_array *b = host_vec(t, n), *x = host_vec(t, n), *x2 = host_vec(t, n);
        kr_array *yy = host_vec(t, m), *P = host_vec(rt, n);
        for (int i = 0; i < n; i++) setc_(b->data, t, i, rhs[i]);
        for (int k = 0; k < m; k++) setc_(yy->data, t, k, y[k]);
        for (int i = 0; i < n; i++) {
            const double dg = creal(G[i * n + i]);
            if (rt == KR_F32)
                ((float *)P->data)[i] = (float)(1.0 / dg);
            else
                ((double *)P->data)[i] = 1.0 / dg;
        }
        /* dense references: (R^H R + lambda I) x = rhs and = R^H y */
        cplx *Gc = malloc(sizeof(cplx) * n * n), *rc = malloc(sizeof(cplx) * n);
        memcpy(Gc, G, sizeof(cplx) * n * n);
        memcpy(rc, rhs, sizeof(cplx) * n);
        gauss_solve(n, Gc, rc, xs);
        memcpy(Gc, G, sizeof(cplx) * n * n);
        for (int i = 0; i < n; i++) {
            cplx s = 0;
            for (int k = 0; k < m; k++) s += conj(R[k * n + i]) * y[k];
            rc[i] = s;
        }
        gauss_solve(n, Gc, rc, xl);
        const double tol = is_single(t) ? 1e-5 : 1e-12, acc = is_single(t) ? 1e-3 : 1e-9;
        kr_solve_opts o;
        kr_solve_opts_default(&o);
        o.max_iter = 500;
        o.tol = tol;
        o.lambda = lambda;
        kr_solve_info plain, pre, lplain, lpre;
        KT_OK(kr_cg(ctx, A, b, x, &o, &plain));
        const double e_plain = rel_to(x, t, xs, n);
        o.precond = P;
        KT_OK(kr_cg(ctx, A, b, x2, &o, &pre));
        const double e_pre = rel_to(x2, t, xs, n);
        /* CGLS: same P (the diagonal of R^H R + lambda I) */
        o.precond = NULL;
        KT_OK(kr_cgls(ctx, Rop, yy, x, &o, &lplain));
        const double el_plain = rel_to(x, t, xl, n);
        o.precond = P;
        KT_OK(kr_cgls(ctx, Rop, yy, x2, &o, &lpre));
        const double el_pre = rel_to(x2, t, xl, n);
        printf("  %s: CG %d -> %d iterations with Jacobi (errors %.1e, %.1e); CGLS %d -> %d "
               "(%.1e, %.1e)\n", kr_dtype_name(t), plain.iterations, pre.iterations, e_plain,
               e_pre, lplain.iterations, lpre.iterations, el_plain, el_pre);
        KT_CHECK(plain.converged && pre.converged && lplain.converged && lpre.converged);
        KT_LE(pre.iterations, plain.iterations / 2);
        KT_LE(lpre.iterations, lplain.iterations / 2);
        KT_LE(e_plain, acc);
        KT_LE(e_pre, acc);
        KT_LE(el_plain, acc);
        KT_LE(el_pre, acc);
        /* two threads: the same bits */
        kr_ctx *c2 = NULL;
        KT_OK(kr_ctx_create(&c2, KR_BACKEND_CPU));
        KT_OK(kr_ctx_set_threads(c2, 2));
        kr_ctx_set_quiet(c2, 1);
        kr_ctx *c1 = NULL;
        KT_OK(kr_ctx_create(&c1, KR_BACKEND_CPU));
        KT_OK(kr_ctx_set_threads(c1, 1));
        kr_ctx_set_quiet(c1, 1);
        o.precond = P;
        KT_OK(kr_cg(c1, A, b, x, &o, NULL));
        KT_OK(kr_cg(c2, A, b, x2, &o, NULL));
        KT_CHECK(memcmp(x->data, x2->data, kr_array_bytes(x)) == 0);
        kr_ctx_destroy(c1), kr_ctx_destroy(c2);
        free(R), free(G), free(rhs), free(xs), free(y), free(xl), free(Ab), free(Rb), free(Gc);
        free(rc);
        kr_linop_destroy(A), kr_linop_destroy(Rop);
        kr_array_destroy(b), kr_array_destroy(x), kr_array_destroy(x2), kr_array_destroy(yy);
        kr_array_destroy(P);
    }
    kr_ctx_destroy(ctx);
}

static void test_bad_precond(void)
{
    kr_ctx *ctx = kt_cpu_ctx();
    const double M[9] = {2, 0, 0, 0, 3, 0, 0, 0, 4};
    kr_linop *A = NULL;
    KT_OK(kr_linop_matrix(&A, ctx, KR_F64, 3, 3, M, KR_HOST));
    kr_array *b = host_vec(KR_F64, 3), *x = host_vec(KR_F64, 3), *pf = host_vec(KR_F32, 3);
    kr_array *p4 = host_vec(KR_F64, 4), *pn = host_vec(KR_F64, 3), *pc = host_vec(KR_C128, 3);
    for (int i = 0; i < 3; i++) ((double *)b->data)[i] = 1, ((double *)pn->data)[i] = 1;
    ((double *)pn->data)[1] = -1;
    kr_solve_opts o;
    kr_solve_opts_default(&o);
    o.precond = pf;
    KT_STATUS(kr_cg(ctx, A, b, x, &o, NULL), KR_ERR_DTYPE);
    o.precond = pc;
    KT_STATUS(kr_cg(ctx, A, b, x, &o, NULL), KR_ERR_DTYPE);
    o.precond = p4;
    KT_STATUS(kr_cg(ctx, A, b, x, &o, NULL), KR_ERR_DIM);
    o.precond = pn;
    KT_STATUS(kr_cg(ctx, A, b, x, &o, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cgls(ctx, A, b, x, &o, NULL), KR_ERR_INVALID_ARG);
    ((double *)pn->data)[1] = NAN;
    KT_STATUS(kr_cg(ctx, A, b, x, &o, NULL), KR_ERR_INVALID_ARG);
    /* exact diagonal inverse: one iteration */
    ((double *)pn->data)[0] = 0.5, ((double *)pn->data)[1] = 1.0 / 3, ((double *)pn->data)[2] = 0.25;
    kr_solve_info info;
    KT_OK(kr_cg(ctx, A, b, x, &o, &info));
    KT_CHECK(info.iterations == 1 && info.converged);
    KT_NEAR(((double *)x->data)[2], 0.25, 1e-15);
    kr_linop_destroy(A);
    kr_array_destroy(b), kr_array_destroy(x), kr_array_destroy(pf), kr_array_destroy(p4);
    kr_array_destroy(pn), kr_array_destroy(pc);
    kr_ctx_destroy(ctx);
}

int main(void)
{
    KT_RUN(test_cg_cgls_jacobi);
    KT_RUN(test_bad_precond);
    return kt_finish();
}
