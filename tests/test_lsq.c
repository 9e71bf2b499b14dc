/* Least-squares MRI (kray/lsq.h): the normal operator F^H W F by DrFT, Toeplitz and NUFFT against a
 * brute-force direct sum in double; Q from the DrFT vs Q from the NUFFT vs the direct sum; the
 * coil-map form of the Toeplitz engine; adjoint / self-adjointness; CG against a dense direct
 * solve; CG on analytic phantom k-space vs the density-compensated adjoint; bad input. */
#include "kt.h"

#include "kray/drft.h"
#include "kray/fft.h"
#include "kray/linop.h"
#include "kray/lsq.h"
#include "kray/phantom.h"
#include "kray/traj.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double PI = 3.14159265358979323846;

/* random trajectory [3, M] in [-n/2, n/2) (kz = 0 when n[2] == 1) and weights in [0.5, 1.5) */
static void mk_traj(const int64_t n[3], int64_t m, uint64_t seed, kr_array **t, kr_array **w)
{
    int64_t d[2] = {3, m};
    KT_OK(kr_array_create(t, KR_F64, 2, d, KR_HOST, NULL));
    KT_OK(kr_array_create(w, KR_F64, 1, &m, KR_HOST, NULL));
    double *k = (double *)(*t)->data, *wv = (double *)(*w)->data;
    uint64_t z = seed;
    for (int64_t i = 0; i < m; i++) {
        for (int a = 0; a < 3; a++)
            k[3 * i + a] = n[a] > 1 ? (kt_urand(&z) - 0.5) * (double)n[a] : 0.0;
        wv[i] = 0.5 + kt_urand(&z);
    }
}

/* brute force: out = F^H W F x in double (x: N complex) */
static void ref_normal(const int64_t n[3], const kr_array *t, const kr_array *w,
                       const double complex *x, double complex *out)
{
    int64_t m = t->dims[1], N = n[0] * n[1] * n[2];
    const double *k = (const double *)t->data, *wv = w ? (const double *)w->data : NULL;
    double complex *d = calloc((size_t)m, sizeof *d);
    for (int64_t j = 0; j < m; j++) {
        double complex s = 0;
        for (int64_t i = 0; i < N; i++) {
            int64_t c[3] = {i % n[0] - n[0] / 2, (i / n[0]) % n[1] - n[1] / 2,
                            i / (n[0] * n[1]) - n[2] / 2};
            double ph = 0;
            for (int a = 0; a < 3; a++) ph += k[3 * j + a] * (double)c[a] / (double)n[a];
            s += x[i] * cexp(-2 * PI * I * ph);
        }
        d[j] = s * (wv ? wv[j] : 1.0);
    }
    for (int64_t i = 0; i < N; i++) {
        int64_t c[3] = {i % n[0] - n[0] / 2, (i / n[0]) % n[1] - n[1] / 2,
                        i / (n[0] * n[1]) - n[2] / 2};
        double complex s = 0;
        for (int64_t j = 0; j < m; j++) {
            double ph = 0;
            for (int a = 0; a < 3; a++) ph += k[3 * j + a] * (double)c[a] / (double)n[a];
            s += d[j] * cexp(2 * PI * I * ph);
        }
        out[i] = s;
    }
    free(d);
}

static double complex get_c(const kr_array *a, int64_t i)
{
    if (a->dtype == KR_C64) {
        const float *p = (const float *)a->data;
        return p[2 * i] + I * p[2 * i + 1];
    }
    const double *p = (const double *)a->data;
    return p[2 * i] + I * p[2 * i + 1];
}

static void set_c(kr_array *a, int64_t i, double complex v)
{
    if (a->dtype == KR_C64) {
        float *p = (float *)a->data;
        p[2 * i] = (float)creal(v), p[2 * i + 1] = (float)cimag(v);
    } else {
        double *p = (double *)a->data;
        p[2 * i] = creal(v), p[2 * i + 1] = cimag(v);
    }
}

static double rel_err_arr(const kr_array *a, const double complex *ref, int64_t n)
{
    double e = 0, r = 0;
    for (int64_t i = 0; i < n; i++) {
        double complex d = get_c(a, i) - ref[i];
        e += creal(d * conj(d)), r += creal(ref[i] * conj(ref[i]));
    }
    return sqrt(e / r);
}

/* the three normal operators vs the brute force, c64 and c128 */
static void check_three(const int64_t n[3], int64_t m)
{
    kr_ctx *c = kt_cpu_ctx();
    kr_array *t = NULL, *w = NULL;
    mk_traj(n, m, 0x1234567ull + (uint64_t)m, &t, &w);
    int64_t N = n[0] * n[1] * n[2];
    double complex *x = malloc((size_t)N * sizeof *x), *ref = malloc((size_t)N * sizeof *ref);
    uint64_t z = 99;
    for (int64_t i = 0; i < N; i++) x[i] = (kt_urand(&z) - 0.5) + I * (kt_urand(&z) - 0.5);
    ref_normal(n, t, w, x, ref);
    for (int prec = 0; prec < 2; prec++) {
        kr_dtype dt = prec ? KR_C128 : KR_C64;
        for (int meth = 0; meth < 4; meth++) {
            kr_lsq_opts o;
            kr_lsq_opts_default(&o);
            o.dtype = dt;
            o.normal = meth == 3 ? KR_LSQ_NORMAL_TOEPLITZ : (kr_lsq_normal_method)meth;
            o.qmethod = meth == 3 ? KR_LSQ_Q_DRFT : KR_LSQ_Q_NUFFT;
            o.eps = prec ? 1e-10 : 1e-5;
            kr_lsq_plan *p = NULL;
            KT_OK(kr_lsq_plan_create(&p, c, n, t, w, &o));
            kr_array *xi = NULL, *yo = NULL;
            KT_OK(kr_array_create(&xi, dt, 3, n, KR_HOST, NULL));
            KT_OK(kr_array_create(&yo, dt, 3, n, KR_HOST, NULL));
            for (int64_t i = 0; i < N; i++) set_c(xi, i, x[i]);
            KT_OK(kr_lsq_normal(p, xi, yo));
            double e = rel_err_arr(yo, ref, N);
            /* NUFFT eps 1e-5 (c64: plus float rounding); exact paths: rounding only */
            double tol = prec ? (meth == 1 || meth == 3 ? 1e-12 : 1e-8)
                              : (meth == 1 || meth == 3 ? 2e-5 : 1e-4);
            printf("n %lldx%lldx%lld %s method %d (0 toeplitz/nufft-Q, 1 drft, 2 nufft, 3 "
                   "toeplitz/drft-Q): rel err %.3g\n",
                   (long long)n[0], (long long)n[1], (long long)n[2], kr_dtype_name(dt), meth, e);
            KT_CHECK_MSG(e <= tol, "n %lldx%lldx%lld %s method %d: rel err %.3g > %.3g",
                         (long long)n[0], (long long)n[1], (long long)n[2], kr_dtype_name(dt),
                         meth, e, tol);
            /* normal operator: self-adjoint (dot test) */
            kr_linop *Nop = NULL;
            KT_OK(kr_lsq_normal_linop_create(&Nop, p));
            double ae = 1;
            KT_OK(kr_linop_adjoint_test(Nop, 7, &ae));
            KT_LE(ae, prec ? 1e-9 : 1e-4);
            kr_linop_destroy(Nop);
            kr_array_destroy(xi);
            kr_array_destroy(yo);
            kr_lsq_plan_destroy(p);
        }
    }
    free(x);
    free(ref);
    kr_array_destroy(t);
    kr_array_destroy(w);
    kr_ctx_destroy(c);
}

static void test_three_2d(void)
{
    int64_t n[3] = {12, 10, 1};
    check_three(n, 300);
}

static void test_three_3d(void)
{
    int64_t n[3] = {6, 8, 4};
    check_three(n, 250);
}

/* Q by DrFT and by NUFFT vs the direct sum Q(z) = sum W exp(2 pi i k.z/n), z = idx - n */
static void test_q_methods(void)
{
    kr_ctx *c = kt_cpu_ctx();
    int64_t n[3] = {8, 6, 4};
    kr_array *t = NULL, *w = NULL;
    mk_traj(n, 200, 77, &t, &w);
    int64_t g[3] = {16, 12, 8}, G = 16 * 12 * 8;
    double complex *ref = malloc((size_t)G * sizeof *ref);
    const double *k = (const double *)t->data, *wv = (const double *)w->data;
    for (int64_t i = 0; i < G; i++) {
        int64_t zc[3] = {i % g[0] - n[0], (i / g[0]) % g[1] - n[1], i / (g[0] * g[1]) - n[2]};
        double complex s = 0;
        for (int64_t j = 0; j < 200; j++) {
            double ph = 0;
            for (int a = 0; a < 3; a++) ph += k[3 * j + a] * (double)zc[a] / (double)n[a];
            s += wv[j] * cexp(2 * PI * I * ph);
        }
        ref[i] = s;
    }
    double e[2];
    for (int qm = 0; qm < 2; qm++) {
        kr_lsq_opts o;
        kr_lsq_opts_default(&o);
        o.dtype = KR_C128;
        o.qmethod = (kr_lsq_qmethod)qm;
        o.eps = 1e-10;
        kr_toeplitz_plan *tp = NULL;
        KT_OK(kr_toeplitz_plan_create(&tp, c, n, t, w, &o));
        kr_array *q = NULL;
        KT_OK(kr_array_create(&q, KR_C128, 3, g, KR_HOST, NULL));
        KT_OK(kr_toeplitz_q(tp, q));
        e[qm] = rel_err_arr(q, ref, G);
        kr_array_destroy(q);
        kr_toeplitz_plan_destroy(tp);
    }
    printf("Q vs direct sum: DrFT %.3g, NUFFT (eps 1e-10) %.3g\n", e[1], e[0]);
    KT_LE(e[KR_LSQ_Q_DRFT], 1e-12);
    KT_LE(e[KR_LSQ_Q_NUFFT], 1e-8);
    free(ref);
    kr_array_destroy(t);
    kr_array_destroy(w);
    kr_ctx_destroy(c);
}

/* batched apply (chunks of 2, then singles) and the coil-map form vs per-image apply */
static void test_batch_and_maps(void)
{
    kr_ctx *c = kt_cpu_ctx();
    int64_t n[3] = {10, 12, 1}, N = 120, C = 5;
    kr_array *t = NULL, *w = NULL;
    mk_traj(n, 150, 5, &t, &w);
    kr_lsq_opts o;
    kr_lsq_opts_default(&o);
    o.dtype = KR_C128;
    o.batch = 2;
    kr_toeplitz_plan *tp = NULL;
    KT_OK(kr_toeplitz_plan_create(&tp, c, n, t, w, &o));
    int64_t dm[4] = {10, 12, 1, C};
    kr_array *maps = NULL, *xs = NULL, *ys = NULL, *x = NULL, *y = NULL, *one = NULL, *tone = NULL;
    KT_OK(kr_array_create(&maps, KR_C128, 4, dm, KR_HOST, NULL));
    KT_OK(kr_array_create(&xs, KR_C128, 4, dm, KR_HOST, NULL));
    KT_OK(kr_array_create(&ys, KR_C128, 4, dm, KR_HOST, NULL));
    KT_OK(kr_array_create(&x, KR_C128, 3, n, KR_HOST, NULL));
    KT_OK(kr_array_create(&y, KR_C128, 3, n, KR_HOST, NULL));
    KT_OK(kr_array_create(&one, KR_C128, 3, n, KR_HOST, NULL));
    KT_OK(kr_array_create(&tone, KR_C128, 3, n, KR_HOST, NULL));
    KT_OK(kr_vec_random(c, maps, 1));
    KT_OK(kr_vec_random(c, xs, 2));
    KT_OK(kr_vec_random(c, x, 3));
    /* batched: 5 images in chunks 2, 2, 1 vs one at a time */
    KT_OK(kr_toeplitz_execute(tp, xs, ys));
    double emax = 0;
    double complex *acc = calloc((size_t)N, sizeof *acc);
    for (int64_t b = 0; b < C; b++) {
        for (int64_t i = 0; i < N; i++) set_c(one, i, get_c(xs, b * N + i));
        KT_OK(kr_toeplitz_execute(tp, one, tone));
        for (int64_t i = 0; i < N; i++)
            emax = fmax(emax, cabs(get_c(tone, i) - get_c(ys, b * N + i)));
        /* coil form reference: sum conj(S) T (S x) */
        for (int64_t i = 0; i < N; i++) set_c(one, i, get_c(maps, b * N + i) * get_c(x, i));
        KT_OK(kr_toeplitz_execute(tp, one, tone));
        for (int64_t i = 0; i < N; i++) acc[i] += conj(get_c(maps, b * N + i)) * get_c(tone, i);
    }
    KT_LE(emax, 1e-12);
    KT_OK(kr_toeplitz_execute_maps(tp, maps, x, y));
    KT_LE(rel_err_arr(y, acc, N), 1e-13);
    /* in place */
    KT_OK(kr_toeplitz_execute_maps(tp, maps, x, x));
    KT_LE(rel_err_arr(x, acc, N), 1e-13);
    /* bad maps */
    int64_t bd[4] = {10, 11, 1, C};
    kr_array *bad = NULL;
    KT_OK(kr_array_create(&bad, KR_C128, 4, bd, KR_HOST, NULL));
    KT_STATUS(kr_toeplitz_execute_maps(tp, bad, x, y), KR_ERR_DIM);
    KT_STATUS(kr_toeplitz_execute_maps(tp, maps, xs, y), KR_ERR_DIM);
    KT_STATUS(kr_toeplitz_execute(tp, NULL, y), KR_ERR_INVALID_ARG);
    kr_array *f = NULL;
    KT_OK(kr_array_create(&f, KR_C64, 3, n, KR_HOST, NULL));
    KT_STATUS(kr_toeplitz_execute(tp, f, y), KR_ERR_DTYPE);
    /* T as a linop: self-adjoint */
    kr_linop *T = NULL;
    KT_OK(kr_toeplitz_linop_create(&T, tp, 1));
    double ae = 1;
    KT_OK(kr_linop_adjoint_test(T, 3, &ae));
    KT_LE(ae, 1e-10);
    kr_linop_destroy(T); /* owns tp */
    free(acc);
    kr_array_destroy(f);
    kr_array_destroy(bad);
    kr_array_destroy(maps);
    kr_array_destroy(xs);
    kr_array_destroy(ys);
    kr_array_destroy(x);
    kr_array_destroy(y);
    kr_array_destroy(one);
    kr_array_destroy(tone);
    kr_array_destroy(t);
    kr_array_destroy(w);
    kr_ctx_destroy(c);
}

/* A = sqrt(W) F: dot-product adjoint test; its normal equals F^H W F */
static void test_lsq_linop_adjoint(void)
{
    kr_ctx *c = kt_cpu_ctx();
    int64_t n[3] = {16, 16, 1};
    kr_array *t = NULL, *w = NULL;
    mk_traj(n, 400, 11, &t, &w);
    for (int meth = 0; meth < 3; meth++) {
        kr_lsq_opts o;
        kr_lsq_opts_default(&o);
        o.normal = (kr_lsq_normal_method)meth;
        o.batch = 2;
        kr_lsq_plan *p = NULL;
        KT_OK(kr_lsq_plan_create(&p, c, n, t, w, &o));
        kr_linop *A = NULL;
        KT_OK(kr_lsq_linop_create(&A, p));
        double ae = 1;
        KT_OK(kr_linop_adjoint_test(A, 21, &ae));
        KT_LE(ae, 1e-5);
        kr_linop_destroy(A);
        kr_lsq_plan_destroy(p);
    }
    kr_array_destroy(t);
    kr_array_destroy(w);
    kr_ctx_destroy(c);
}

/* complex Gaussian elimination with partial pivoting: A (n x n, row-major) x = b (overwritten) */
static void dense_solve(int64_t n, double complex *A, double complex *b)
{
    for (int64_t k = 0; k < n; k++) {
        int64_t p = k;
        for (int64_t i = k + 1; i < n; i++)
            if (cabs(A[i * n + k]) > cabs(A[p * n + k])) p = i;
        if (p != k) {
            for (int64_t j = 0; j < n; j++) {
                double complex tmp = A[k * n + j];
                A[k * n + j] = A[p * n + j], A[p * n + j] = tmp;
            }
            double complex tb = b[k];
            b[k] = b[p], b[p] = tb;
        }
        for (int64_t i = k + 1; i < n; i++) {
            double complex f = A[i * n + k] / A[k * n + k];
            for (int64_t j = k; j < n; j++) A[i * n + j] -= f * A[k * n + j];
            b[i] -= f * b[k];
        }
    }
    for (int64_t k = n - 1; k >= 0; k--) {
        double complex s = b[k];
        for (int64_t j = k + 1; j < n; j++) s -= A[k * n + j] * b[j];
        b[k] = s / A[k * n + k];
    }
}

/* CG on (F^H W F + lambda I) x = F^H W d vs the dense solution in double */
static void test_cg_dense(void)
{
    kr_ctx *c = kt_cpu_ctx();
    int64_t n[3] = {8, 8, 1}, N = 64, M = 150;
    kr_array *t = NULL, *w = NULL;
    mk_traj(n, M, 4242, &t, &w);
    const double *k = (const double *)t->data, *wv = (const double *)w->data;
    double lambda = 0.5;
    double complex *E = malloc((size_t)(M * N) * sizeof *E), *A = calloc((size_t)(N * N), sizeof *A);
    double complex *d = malloc((size_t)M * sizeof *d), *b = calloc((size_t)N, sizeof *b);
    uint64_t z = 8;
    for (int64_t j = 0; j < M; j++) {
        d[j] = (kt_urand(&z) - 0.5) + I * (kt_urand(&z) - 0.5);
        for (int64_t i = 0; i < N; i++) {
            double ph = k[3 * j] * (double)(i % 8 - 4) / 8 + k[3 * j + 1] * (double)(i / 8 - 4) / 8;
            E[j * N + i] = cexp(-2 * PI * I * ph);
        }
    }
    for (int64_t a = 0; a < N; a++) {
        for (int64_t j = 0; j < M; j++) b[a] += conj(E[j * N + a]) * wv[j] * d[j];
        for (int64_t bb = 0; bb < N; bb++) {
            double complex s = 0;
            for (int64_t j = 0; j < M; j++) s += conj(E[j * N + a]) * wv[j] * E[j * N + bb];
            A[a * N + bb] = s + (a == bb ? lambda : 0);
        }
    }
    dense_solve(N, A, b);
    for (int meth = 0; meth < 4; meth++) {
        kr_lsq_opts o;
        kr_lsq_opts_default(&o);
        o.dtype = KR_C128;
        o.normal = meth == 3 ? KR_LSQ_NORMAL_TOEPLITZ : (kr_lsq_normal_method)meth;
        o.qmethod = meth == 3 ? KR_LSQ_Q_DRFT : KR_LSQ_Q_NUFFT;
        o.eps = 1e-11;
        kr_lsq_plan *p = NULL;
        KT_OK(kr_lsq_plan_create(&p, c, n, t, w, &o));
        kr_array *dd = NULL, *rhs = NULL, *x = NULL;
        KT_OK(kr_array_create(&dd, KR_C128, 1, &M, KR_HOST, NULL));
        KT_OK(kr_array_create(&rhs, KR_C128, 3, n, KR_HOST, NULL));
        KT_OK(kr_array_create(&x, KR_C128, 3, n, KR_HOST, NULL));
        for (int64_t j = 0; j < M; j++) set_c(dd, j, d[j]);
        KT_OK(kr_lsq_rhs(p, dd, rhs));
        kr_linop *Nop = NULL;
        KT_OK(kr_lsq_normal_linop_create(&Nop, p));
        kr_solve_opts so;
        kr_solve_opts_default(&so);
        so.lambda = lambda;
        so.tol = 1e-13;
        so.max_iter = 300;
        double hist[301];
        so.history = hist;
        kr_solve_info info;
        KT_OK(kr_cg(c, Nop, rhs, x, &so, &info));
        KT_CHECK(info.converged);
        KT_LE(hist[info.iterations], 1e-13);
        double e = rel_err_arr(x, b, N);
        printf("CG method %d: %d iterations, rel err vs dense %.3g\n", meth, info.iterations, e);
        KT_CHECK_MSG(e <= (meth == 1 || meth == 3 ? 1e-10 : 1e-8), "method %d: CG vs dense %.3g",
                     meth, e);
        kr_linop_destroy(Nop);
        kr_array_destroy(dd);
        kr_array_destroy(rhs);
        kr_array_destroy(x);
        kr_lsq_plan_destroy(p);
    }
    free(E);
    free(A);
    free(d);
    free(b);
    kr_array_destroy(t);
    kr_array_destroy(w);
    kr_ctx_destroy(c);
}

/* Analytic Shepp-Logan k-space on an undersampled radial trajectory: CG (Toeplitz) beats the
 * best-scaled density-compensated adjoint in NRMSE against the Cartesian-k-space image. */
static void test_phantom_nrmse(void)
{
    kr_ctx *c = kt_cpu_ctx();
    const int64_t nn = 64, N = nn * nn;
    int64_t n[3] = {nn, nn, 1};
    kr_radial_opts ro;
    kr_radial_opts_default(&ro);
    ro.samples = nn;
    ro.spokes = 60;
    ro.dtype = KR_F64;
    kr_array *t = NULL, *w = NULL, *kd = NULL, *kc = NULL;
    KT_OK(kr_traj_radial(&t, &ro));
    kr_dcf_opts dopt;
    kr_dcf_opts_default(&dopt);
    dopt.method = KR_DCF_RADIAL;
    KT_OK(kr_dcf(&w, c, t, &dopt, NULL));
    int64_t M = kr_array_numel(t) / 3;
    double *k2 = malloc((size_t)(2 * (M > N ? M : N)) * sizeof *k2);
    const double *k = (const double *)t->data;
    for (int64_t j = 0; j < M; j++) k2[2 * j] = k[3 * j], k2[2 * j + 1] = k[3 * j + 1];
    KT_OK(kr_phantom_kspace(&kd, KR_PHANTOM_MODIFIED_SL, k2, M, nn));
    /* reference image: centred inverse DFT of the Cartesian analytic k-space / n^2 */
    for (int64_t i = 0; i < N; i++) k2[2 * i] = (double)(i % nn - nn / 2), k2[2 * i + 1] = (double)(i / nn - nn / 2);
    KT_OK(kr_phantom_kspace(&kc, KR_PHANTOM_MODIFIED_SL, k2, N, nn));
    int64_t d2[2] = {nn, nn};
    kr_array ref;
    KT_OK(kr_array_wrap(&ref, KR_C128, 2, d2, kc->data, KR_HOST));
    KT_OK(kr_fft(c, &ref, &ref, 0, KR_FFT_BACKWARD, KR_FFT_CENTERED));
    KT_OK(kr_vec_scale(c, &ref, 1.0 / (double)N, 0));
    kr_lsq_opts o;
    kr_lsq_opts_default(&o);
    o.dtype = KR_C128;
    o.eps = 1e-8;
    kr_lsq_plan *p = NULL, *pw = NULL;
    KT_OK(kr_lsq_plan_create(&p, c, n, t, NULL, &o));
    KT_OK(kr_lsq_plan_create(&pw, c, n, t, w, &o));
    kr_array *adj = NULL, *rhs = NULL, *x = NULL;
    KT_OK(kr_array_create(&adj, KR_C128, 3, n, KR_HOST, NULL));
    KT_OK(kr_array_create(&rhs, KR_C128, 3, n, KR_HOST, NULL));
    KT_OK(kr_array_create(&x, KR_C128, 3, n, KR_HOST, NULL));
    KT_OK(kr_lsq_rhs(pw, kd, adj));
    KT_OK(kr_lsq_rhs(p, kd, rhs));
    kr_linop *Nop = NULL;
    KT_OK(kr_lsq_normal_linop_create(&Nop, p));
    kr_solve_opts so;
    kr_solve_opts_default(&so);
    so.max_iter = 30;
    so.tol = 1e-6;
    so.lambda = 1e-3 * (double)M;
    kr_solve_info info;
    KT_OK(kr_cg(c, Nop, rhs, x, &so, &info));
    /* best scale for the adjoint: s = <adj, ref> / <adj, adj> */
    double complex num = 0;
    double den = 0;
    for (int64_t i = 0; i < N; i++) {
        double complex a = get_c(adj, i);
        num += conj(a) * get_c(&ref, i), den += creal(a * conj(a));
    }
    double ea = 0, ex = 0, r = 0;
    for (int64_t i = 0; i < N; i++) {
        double complex rv = get_c(&ref, i);
        ea += pow(cabs(get_c(adj, i) * (num / den) - rv), 2);
        ex += pow(cabs(get_c(x, i) - rv), 2);
        r += pow(cabs(rv), 2);
    }
    double nrmse_adj = sqrt(ea / r), nrmse_cg = sqrt(ex / r);
    printf("phantom 64^2, %lld radial samples: NRMSE adjoint (DCF, best scale) %.4f, CG %d it %.4f\n",
           (long long)M, nrmse_adj, info.iterations, nrmse_cg);
    KT_LE(nrmse_cg, 0.8 * nrmse_adj);
    kr_linop_destroy(Nop);
    kr_lsq_plan_destroy(p);
    kr_lsq_plan_destroy(pw);
    free(k2);
    kr_array_destroy(adj);
    kr_array_destroy(rhs);
    kr_array_destroy(x);
    kr_array_destroy(t);
    kr_array_destroy(w);
    kr_array_destroy(kd);
    kr_array_destroy(kc);
    kr_ctx_destroy(c);
}

static void test_bad_input(void)
{
    kr_ctx *c = kt_cpu_ctx();
    int64_t n[3] = {8, 8, 1};
    kr_array *t = NULL, *w = NULL;
    mk_traj(n, 50, 3, &t, &w);
    kr_lsq_plan *p = NULL;
    kr_toeplitz_plan *tp = NULL;
    KT_STATUS(kr_lsq_plan_create(NULL, c, n, t, w, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_lsq_plan_create(&p, NULL, n, t, w, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_lsq_plan_create(&p, c, n, NULL, w, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_toeplitz_plan_create(&tp, c, NULL, t, w, NULL), KR_ERR_INVALID_ARG);
    int64_t nb[3] = {1, 8, 1};
    KT_STATUS(kr_lsq_plan_create(&p, c, nb, t, w, NULL), KR_ERR_DIM);
    kr_lsq_opts o;
    kr_lsq_opts_default(&o);
    o.dtype = KR_F32;
    KT_STATUS(kr_lsq_plan_create(&p, c, n, t, w, &o), KR_ERR_DTYPE);
    kr_lsq_opts_default(&o);
    o.batch = -1;
    KT_STATUS(kr_lsq_plan_create(&p, c, n, t, w, &o), KR_ERR_INVALID_ARG);
    kr_lsq_opts_default(&o);
    o.normal = (kr_lsq_normal_method)9;
    KT_STATUS(kr_lsq_plan_create(&p, c, n, t, w, &o), KR_ERR_INVALID_ARG);
    double *k = (double *)t->data;
    k[4] = NAN;
    KT_STATUS(kr_lsq_plan_create(&p, c, n, t, w, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_toeplitz_plan_create(&tp, c, n, t, w, NULL), KR_ERR_INVALID_ARG);
    k[4] = 4.5;
    KT_STATUS(kr_lsq_plan_create(&p, c, n, t, w, NULL), KR_ERR_GEOMETRY);
    k[4] = 0;
    ((double *)w->data)[3] = -1;
    KT_STATUS(kr_lsq_plan_create(&p, c, n, t, w, NULL), KR_ERR_INVALID_ARG);
    ((double *)w->data)[3] = 1;
    int64_t m2 = 49;
    kr_array *w2 = NULL;
    KT_OK(kr_array_create(&w2, KR_F64, 1, &m2, KR_HOST, NULL));
    KT_STATUS(kr_lsq_plan_create(&p, c, n, t, w2, NULL), KR_ERR_DIM);
    KT_OK(kr_lsq_plan_create(&p, c, n, t, w, NULL));
    kr_array *x = NULL, *y = NULL, *d = NULL;
    KT_OK(kr_array_create(&x, KR_C64, 3, n, KR_HOST, NULL));
    KT_OK(kr_array_create(&y, KR_C128, 3, n, KR_HOST, NULL));
    KT_OK(kr_array_create(&d, KR_C64, 1, &m2, KR_HOST, NULL));
    KT_STATUS(kr_lsq_normal(p, x, y), KR_ERR_DTYPE);
    KT_STATUS(kr_lsq_rhs(p, d, x), KR_ERR_DIM);
    KT_STATUS(kr_lsq_normal(p, NULL, x), KR_ERR_INVALID_ARG);
    kr_lsq_plan_destroy(p);
    kr_lsq_plan_destroy(NULL);
    kr_toeplitz_plan_destroy(NULL);
    kr_array_destroy(x);
    kr_array_destroy(y);
    kr_array_destroy(d);
    kr_array_destroy(w2);
    kr_array_destroy(t);
    kr_array_destroy(w);
    kr_ctx_destroy(c);
}

int main(void)
{
    KT_RUN(test_three_2d);
    KT_RUN(test_three_3d);
    KT_RUN(test_q_methods);
    KT_RUN(test_batch_and_maps);
    KT_RUN(test_lsq_linop_adjoint);
    KT_RUN(test_cg_dense);
    KT_RUN(test_phantom_nrmse);
    KT_RUN(test_bad_input);
    return kt_finish();
}
