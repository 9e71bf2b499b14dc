/* CG and CGLS against direct solves (complex Gaussian elimination with partial pivoting in
 * double, solve_test_util.h), with and without Tikhonov lambda, for f32, f64, c64, c128; warm start,
 * residual history, non-convergence, breakdown, non-finite operators, progress, determinism
 * across thread counts, and dumb inputs with exact statuses. */
#include "internal.h"
#include "solve_test_util.h"

#include <stdlib.h>
#include <string.h>

static kr_ctx *g_ctx;
static const kr_dtype kDT[4] = {KR_F32, KR_F64, KR_C64, KR_C128};

/* Buffer of count elements of t with scalars kri_rand_sym(seed, k) * scale (+ shift on the
 * real part of diagonal entries when diag_n > 0 and shift != 0 are handled by the caller). */
static void *rand_buf(kr_dtype t, int64_t count, uint64_t seed)
{
    int64_t ns = count * (kr_dtype_is_complex(t) ? 2 : 1);
    void *p = malloc((size_t)count * kr_dtype_size(t));
    for (int64_t k = 0; k < ns; k++) {
        double v = kri_rand_sym(seed, (uint64_t)k);
        if (is_single(t))
            ((float *)p)[k] = (float)v;
        else
            ((double *)p)[k] = v;
    }
    return p;
}

/* ||x - ref|| / ||ref|| with x an array */
static double rel_err(const kr_array *x, const cplx *ref)
{
    double num = 0, den = 0;
    for (int64_t i = 0; i < kr_array_numel(x); i++) {
        cplx d = getc_(x->data, x->dtype, i) - ref[i];
        num += creal(d * conj(d));
        den += creal(ref[i] * conj(ref[i]));
    }
    return sqrt(num / den);
}

static kr_array *vec(kr_dtype t, int64_t n, uint64_t seed)
{
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, t, 1, &n, KR_HOST, NULL));
    if (seed) KT_OK(kr_vec_random(g_ctx, a, seed));
    return a;
}

/* Hermitian positive definite n x n: M = B^H B / n + 0.1 I (B random); returns a t buffer. */
static void *hpd_matrix(kr_dtype t, int n, uint64_t seed)
{
    void *B = rand_buf(t, (int64_t)n * n, seed);
    void *M = malloc((size_t)n * n * kr_dtype_size(t));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            cplx s = i == j ? 0.1 : 0.0;
            for (int k = 0; k < n; k++)
                s += conj(getc_(B, t, (int64_t)k * n + i)) * getc_(B, t, (int64_t)k * n + j) / n;
            setc_(M, t, (int64_t)i * n + j, s);
        }
    /* exact Hermitian symmetry after rounding */
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++) setc_(M, t, (int64_t)i * n + j, conj(getc_(M, t, (int64_t)j * n + i)));
    for (int i = 0; i < n; i++) setc_(M, t, (int64_t)i * n + i, creal(getc_(M, t, (int64_t)i * n + i)));
    free(B);
    return M;
}

/* ---- CG vs direct solve ---------------------------------------------------------------------- */
static void test_cg_direct(void)
{
    const int n = 40;
    for (int d = 0; d < 4; d++) {
        kr_dtype t = kDT[d];
        void *M = hpd_matrix(t, n, 100 + (uint64_t)d);
        kr_linop *A = NULL;
        KT_OK(kr_linop_matrix(&A, g_ctx, t, n, n, M, KR_HOST));
        kr_array *b = vec(t, n, 200), *x = vec(t, n, 0);
        for (int li = 0; li < 2; li++) {
            const double lambda = li ? 0.5 : 0.0;
            cplx G[40 * 40], r[40], ref[40];
            for (int i = 0; i < n * n; i++) G[i] = getc_(M, t, i) + (i % (n + 1) == 0 ? lambda : 0);
            for (int i = 0; i < n; i++) r[i] = getc_(b->data, t, i);
            gauss_solve(n, G, r, ref);
            kr_solve_opts o;
            kr_solve_opts_default(&o);
            o.max_iter = 300;
            o.tol = is_single(t) ? 1e-6 : 1e-13;
            o.lambda = lambda;
            kr_solve_info info;
            KT_OK(kr_cg(g_ctx, A, b, x, &o, &info));
            KT_CHECK(info.converged == 1 && info.rel_residual <= o.tol);
            double e = rel_err(x, ref);
            KT_LE(e, is_single(t) ? 1e-5 : 1e-12);
            printf("  cg   %-4s lambda %.1f: %3d iterations, rel residual %.1e, error vs direct %.1e\n",
                   kr_dtype_name(t), lambda, info.iterations, info.rel_residual, e);
        }
        kr_array_destroy(b), kr_array_destroy(x);
        kr_linop_destroy(A);
        free(M);
    }
}

/* ---- CGLS vs normal equations ----------------------------------------------------------------- */
static void test_cgls_direct(void)
{
    const int m = 60, n = 25;
    for (int d = 0; d < 4; d++) {
        kr_dtype t = kDT[d];
        void *Mb = rand_buf(t, (int64_t)m * n, 300 + (uint64_t)d);
        kr_linop *A = NULL;
        KT_OK(kr_linop_matrix(&A, g_ctx, t, m, n, Mb, KR_HOST));
        kr_array *y = vec(t, m, 400), *x = vec(t, n, 0);
        for (int li = 0; li < 2; li++) {
            const double lambda = li ? 0.3 : 0.0;
            cplx G[25 * 25], r[25], ref[25];
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    cplx s = i == j ? lambda : 0;
                    for (int k = 0; k < m; k++)
                        s += conj(getc_(Mb, t, (int64_t)k * n + i)) * getc_(Mb, t, (int64_t)k * n + j);
                    G[i * n + j] = s;
                }
                cplx s = 0;
                for (int k = 0; k < m; k++)
                    s += conj(getc_(Mb, t, (int64_t)k * n + i)) * getc_(y->data, t, k);
                r[i] = s;
            }
            gauss_solve(n, G, r, ref);
            kr_solve_opts o;
            kr_solve_opts_default(&o);
            o.max_iter = 200;
            o.tol = is_single(t) ? 1e-6 : 1e-13;
            o.lambda = lambda;
            kr_solve_info info;
            KT_OK(kr_cgls(g_ctx, A, y, x, &o, &info));
            KT_CHECK(info.converged == 1);
            double e = rel_err(x, ref);
            KT_LE(e, is_single(t) ? 1e-5 : 1e-12);
            printf("  cgls %-4s lambda %.1f: %3d iterations, rel residual %.1e, error vs direct %.1e\n",
                   kr_dtype_name(t), lambda, info.iterations, info.rel_residual, e);

            if (li && t == KR_F64) {
                /* the same minimiser through operators: CGLS on [A ; sqrt(lambda) I], y = [y ; 0],
                 * and CG on (A^H A) with lambda and b = A^H y */
                kr_linop *Id = NULL, *S = NULL, *St = NULL, *N = NULL;
                int64_t nn = n;
                KT_OK(kr_linop_identity(&Id, g_ctx, t, 1, &nn, KR_HOST));
                KT_OK(kr_linop_scale(&S, Id, sqrt(lambda), 0.0));
                KT_OK(kr_linop_stack(&St, A, S));
                kr_array *ys = vec(t, m + n, 0), *x2 = vec(t, n, 0), *aty = vec(t, n, 0);
                memcpy(ys->data, y->data, kr_array_bytes(y));
                o.lambda = 0;
                KT_OK(kr_cgls(g_ctx, St, ys, x2, &o, &info));
                KT_LE(rel_err(x2, ref), 1e-11);
                KT_OK(kr_linop_normal_op(&N, A));
                KT_OK(kr_linop_adjoint(A, y, aty));
                o.lambda = lambda;
                KT_OK(kr_cg(g_ctx, N, aty, x2, &o, &info));
                KT_LE(rel_err(x2, ref), 1e-11);
                kr_array_destroy(ys), kr_array_destroy(x2), kr_array_destroy(aty);
                kr_linop_destroy(Id), kr_linop_destroy(S), kr_linop_destroy(St);
                kr_linop_destroy(N);
            }
        }
        kr_array_destroy(y), kr_array_destroy(x);
        kr_linop_destroy(A);
        free(Mb);
    }
}

/* ---- warm start, history, stopping ------------------------------------------------------------ */
static void test_warm_start_and_history(void)
{
    const int n = 40;
    kr_dtype t = KR_F64;
    void *M = hpd_matrix(t, n, 500);
    kr_linop *A = NULL;
    KT_OK(kr_linop_matrix(&A, g_ctx, t, n, n, M, KR_HOST));
    kr_array *b = vec(t, n, 501), *x = vec(t, n, 502); /* garbage in x: must be ignored */
    double hist[202];
    for (int i = 0; i < 202; i++) hist[i] = -1;
    kr_solve_opts o;
    kr_solve_opts_default(&o);
    o.max_iter = 200;
    o.tol = 1e-10;
    o.history = hist;
    kr_solve_info cold, warm;
    KT_OK(kr_cg(g_ctx, A, b, x, &o, &cold));
    KT_CHECK(cold.converged && cold.iterations > 5);
    KT_CHECK(hist[0] == 1.0); /* r0 = b */
    KT_CHECK(hist[cold.iterations] == cold.rel_residual);
    KT_LE(hist[cold.iterations], 1e-10);
    KT_CHECK(hist[cold.iterations + 1] == -1); /* untouched */
    int rises = 0;
    for (int k = 1; k <= cold.iterations; k++) rises += hist[k] > hist[k - 1];
    printf("  cg history: %d iterations, residual rose in %d of them\n", cold.iterations, rises);
    /* warm start near the solution: fewer iterations, same answer */
    kr_array *xs = vec(t, n, 0), *noise = vec(t, n, 503);
    KT_OK(kr_vec_copy(g_ctx, xs, x));
    KT_OK(kr_vec_axpy(g_ctx, x, 1e-6, 0.0, noise));
    o.warm_start = 1;
    KT_OK(kr_cg(g_ctx, A, b, x, &o, &warm));
    KT_CHECK(warm.converged);
    KT_LE(warm.iterations, cold.iterations - 3);
    KT_LE(hist[0], 1e-4);
    double diff;
    KT_OK(kr_vec_axpy(g_ctx, xs, -1.0, 0.0, x));
    KT_OK(kr_vec_norm2(g_ctx, xs, &diff));
    KT_LE(diff, 1e-8);
    printf("  cg warm start: %d iterations instead of %d\n", warm.iterations, cold.iterations);
    /* warm start at the exact solution: zero iterations */
    KT_OK(kr_cg(g_ctx, A, b, x, &o, &warm));
    KT_CHECK(warm.iterations == 0 && warm.converged);

    /* CGLS: same story on an overdetermined system */
    void *Mb = rand_buf(t, 60 * 25, 504);
    kr_linop *R = NULL;
    KT_OK(kr_linop_matrix(&R, g_ctx, t, 60, 25, Mb, KR_HOST));
    kr_array *y = vec(t, 60, 505), *z = vec(t, 25, 0), *zn = vec(t, 25, 506);
    o.warm_start = 0;
    KT_OK(kr_cgls(g_ctx, R, y, z, &o, &cold));
    KT_CHECK(cold.converged && hist[0] == 1.0 && hist[cold.iterations] < hist[0]);
    KT_OK(kr_vec_axpy(g_ctx, z, 1e-6, 0.0, zn));
    o.warm_start = 1;
    KT_OK(kr_cgls(g_ctx, R, y, z, &o, &warm));
    KT_CHECK(warm.converged);
    KT_LE(warm.iterations, cold.iterations - 3);
    printf("  cgls warm start: %d iterations instead of %d\n", warm.iterations, cold.iterations);

    /* not converged within max_iter: KR_OK, converged 0, x still improved */
    o.warm_start = 0;
    o.max_iter = 3;
    o.tol = 1e-15;
    KT_OK(kr_cg(g_ctx, A, b, x, &o, &cold));
    KT_CHECK(cold.converged == 0 && cold.iterations == 3);
    KT_CHECK(cold.rel_residual < 1.0 && cold.rel_residual == hist[3]);
    /* b = 0: x = 0 at once */
    KT_OK(kr_vec_zero(g_ctx, b));
    KT_OK(kr_cg(g_ctx, A, b, x, NULL, &cold));
    KT_CHECK(cold.converged && cold.iterations == 0);
    KT_OK(kr_vec_norm2(g_ctx, x, &diff));
    KT_CHECK(diff == 0.0);
    kr_array_destroy(b), kr_array_destroy(x), kr_array_destroy(xs), kr_array_destroy(noise);
    kr_array_destroy(y), kr_array_destroy(z), kr_array_destroy(zn);
    kr_linop_destroy(A), kr_linop_destroy(R);
    free(M), free(Mb);
}

/* Indefinite A: <p, A p> = 0 stops CG with KR_OK and converged 0; a nan operator is an error. */
static kr_status nan_op(void *data, const kr_array *in, kr_array *out)
{
    (void)data, (void)in;
    for (int64_t i = 0; i < kr_array_numel(out); i++) ((double *)out->data)[i] = NAN;
    return KR_OK;
}

static void test_breakdown_and_nan(void)
{
    double Md[4] = {1, 0, 0, -1};
    kr_linop *A = NULL, *N = NULL;
    KT_OK(kr_linop_matrix(&A, g_ctx, KR_F64, 2, 2, Md, KR_HOST));
    kr_array *b = vec(KR_F64, 2, 0), *x = vec(KR_F64, 2, 0);
    ((double *)b->data)[0] = ((double *)b->data)[1] = 1.0;
    kr_solve_info info;
    KT_OK(kr_cg(g_ctx, A, b, x, NULL, &info));
    KT_CHECK(info.converged == 0 && info.iterations == 0);
    kr_linop_def def;
    memset(&def, 0, sizeof def);
    def.name = "nan";
    def.dtype = KR_F64;
    def.in_ndim = def.out_ndim = 1;
    def.in_dims[0] = def.out_dims[0] = 2;
    def.forward = def.adjoint = nan_op;
    KT_OK(kr_linop_create(&N, g_ctx, &def));
    KT_STATUS(kr_cg(g_ctx, N, b, x, NULL, &info), KR_ERR_NOT_CONVERGED);
    KT_CHECK(strstr(kr_last_error(), "operator 'nan'") != NULL);
    KT_STATUS(kr_cgls(g_ctx, N, b, x, NULL, &info), KR_ERR_NOT_CONVERGED);
    kr_array_destroy(b), kr_array_destroy(x);
    kr_linop_destroy(A), kr_linop_destroy(N);
}

/* ---- progress and determinism on a large operator ---------------------------------------------- */
typedef struct {
    int calls, done;
    double last;
} prog_t;
static void on_progress(void *user, const char *task, double f, int done)
{
    prog_t *p = user;
    p->calls++;
    p->last = f;
    p->done += done;
    (void)task;
}

/* SPD tridiagonal (2.5, -1, -1) on n elements: a large operator with a serial callback. */
static kr_status tridiag(void *data, const kr_array *in, kr_array *out)
{
    (void)data;
    const double *u = in->data;
    double *v = out->data;
    int64_t n = kr_array_numel(in);
    for (int64_t i = 0; i < n; i++)
        v[i] = 2.5 * u[i] - (i > 0 ? u[i - 1] : 0.0) - (i + 1 < n ? u[i + 1] : 0.0);
    return KR_OK;
}

static void test_progress_and_threads(void)
{
    const int64_t n = 200003;
    kr_array *b = vec(KR_F64, n, 600), *x[3];
    kr_solve_opts o;
    kr_solve_opts_default(&o);
    o.max_iter = 25;
    o.tol = 0;
    o.lambda = 0.25;
    o.show_progress = 1;
    for (int th = 0; th < 3; th++) {
        kr_ctx *c = NULL;
        KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
        KT_OK(kr_ctx_set_threads(c, th + 1));
        prog_t pr = {0, 0, 0};
        KT_OK(kr_ctx_set_progress(c, on_progress, &pr));
        kr_linop_def def;
        memset(&def, 0, sizeof def);
        def.name = "tridiag";
        def.dtype = KR_F64;
        def.in_ndim = def.out_ndim = 1;
        def.in_dims[0] = def.out_dims[0] = n;
        def.forward = def.adjoint = tridiag;
        kr_linop *A = NULL;
        KT_OK(kr_linop_create(&A, c, &def));
        x[th] = vec(KR_F64, n, 0);
        kr_solve_info info;
        KT_OK(kr_cg(c, A, b, x[th], &o, &info));
        KT_CHECK(info.iterations == 25 && info.converged == 0);
        KT_CHECK(pr.calls >= 2 && pr.done == 1 && pr.last == 1.0);
        if (th > 0) KT_CHECK(memcmp(x[th]->data, x[0]->data, kr_array_bytes(b)) == 0);
        kr_linop_destroy(A);
        kr_ctx_destroy(c);
    }
    for (int th = 0; th < 3; th++) kr_array_destroy(x[th]);
    kr_array_destroy(b);
}

/* ---- dumb inputs -------------------------------------------------------------------------------- */
static void test_solve_dumb(void)
{
    double Md[12] = {4, 1, 0, 1, 3, 0, 0, 0, 2, 1, 1, 1};
    kr_linop *A = NULL, *R = NULL;
    KT_OK(kr_linop_matrix(&A, g_ctx, KR_F64, 3, 3, Md, KR_HOST));
    KT_OK(kr_linop_matrix(&R, g_ctx, KR_F64, 4, 3, Md, KR_HOST));
    kr_array *b = vec(KR_F64, 3, 1), *x = vec(KR_F64, 3, 0), *b4 = vec(KR_F64, 4, 2);
    kr_array *xf = vec(KR_F32, 3, 0), *x4 = vec(KR_F64, 4, 0);
    kr_solve_opts o;
    kr_solve_opts_default(&o);
    KT_CHECK(o.max_iter == 50 && o.tol == 1e-6 && o.lambda == 0 && !o.warm_start && !o.history);
    KT_STATUS(kr_cg(NULL, A, b, x, &o, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cg(g_ctx, NULL, b, x, &o, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cg(g_ctx, A, NULL, x, &o, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cg(g_ctx, A, b, NULL, &o, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cgls(g_ctx, R, b4, NULL, &o, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cg(g_ctx, A, b, xf, &o, NULL), KR_ERR_DTYPE);
    KT_STATUS(kr_cg(g_ctx, A, b, x4, &o, NULL), KR_ERR_DIM);
    KT_STATUS(kr_cg(g_ctx, R, b4, x, &o, NULL), KR_ERR_DIM); /* not square */
    KT_CHECK(strstr(kr_last_error(), "square") != NULL);
    KT_STATUS(kr_cgls(g_ctx, R, b, x, &o, NULL), KR_ERR_DIM); /* y must be 4 */
    KT_STATUS(kr_cg(g_ctx, A, b, b, &o, NULL), KR_ERR_INVALID_ARG); /* x aliases b */
    float dummy[3];
    int64_t three = 3;
    kr_array dev;
    KT_OK(kr_array_wrap(&dev, KR_F64, 1, &three, dummy, KR_DEVICE));
    dev.dtype = KR_F64;
    KT_STATUS(kr_cg(g_ctx, A, b, &dev, &o, NULL), KR_ERR_LOCATION);
    KT_STATUS(kr_cgls(g_ctx, R, b4, &dev, &o, NULL), KR_ERR_LOCATION);
    kr_solve_info info = {7, 7, 7};
    o.lambda = -0.1;
    KT_STATUS(kr_cg(g_ctx, A, b, x, &o, &info), KR_ERR_INVALID_ARG);
    KT_CHECK(info.iterations == 0 && info.converged == 0);
    KT_STATUS(kr_cgls(g_ctx, R, b4, x, &o, NULL), KR_ERR_INVALID_ARG);
    o.lambda = NAN;
    KT_STATUS(kr_cg(g_ctx, A, b, x, &o, NULL), KR_ERR_INVALID_ARG);
    o.lambda = 0;
    o.max_iter = 0;
    KT_STATUS(kr_cg(g_ctx, A, b, x, &o, NULL), KR_ERR_INVALID_ARG);
    o.max_iter = -5;
    KT_STATUS(kr_cgls(g_ctx, R, b4, x, &o, NULL), KR_ERR_INVALID_ARG);
    o.max_iter = 10;
    o.tol = -1;
    KT_STATUS(kr_cg(g_ctx, A, b, x, &o, NULL), KR_ERR_INVALID_ARG);
    o.tol = NAN;
    KT_STATUS(kr_cgls(g_ctx, R, b4, x, &o, NULL), KR_ERR_INVALID_ARG);
    o.tol = 1e-12;
    /* b with a nan: refused */
    ((double *)b->data)[1] = NAN;
    KT_STATUS(kr_cg(g_ctx, A, b, x, &o, NULL), KR_ERR_INVALID_ARG);
    ((double *)b->data)[1] = 0.5;
    KT_OK(kr_cg(g_ctx, A, b, x, &o, NULL));
    kr_solve_opts_default(NULL); /* no crash */
    kr_array_destroy(b), kr_array_destroy(x), kr_array_destroy(b4), kr_array_destroy(xf);
    kr_array_destroy(x4);
    kr_linop_destroy(A), kr_linop_destroy(R);
}

int main(void)
{
    if (kr_ctx_create(&g_ctx, KR_BACKEND_CPU) != KR_OK) return 1;
    kr_ctx_set_quiet(g_ctx, 1);
    KT_RUN(test_cg_direct);
    KT_RUN(test_cgls_direct);
    KT_RUN(test_warm_start_and_history);
    KT_RUN(test_breakdown_and_nan);
    KT_RUN(test_progress_and_threads);
    KT_RUN(test_solve_dumb);
    kr_ctx_destroy(g_ctx);
    return kt_finish();
}
