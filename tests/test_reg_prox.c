/* Proximal maps of the reg module against closed forms: complex soft threshold, group (TV)
 * threshold, l2 ball, box, locally low rank (a block matrix of known SVD, rank-1 blocks with
 * a shifted block grid), l1-wavelet (W^H soft(W v)), and the iterative TV prox against PDHG on
 * the same denoising problem; values g(x); bad input. */
#include "kray/reg.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>

static const kr_dtype kTypes[4] = {KR_F32, KR_F64, KR_C64, KR_C128};
static double tol_of(kr_dtype t) { return (t == KR_F32 || t == KR_C64) ? 2e-6 : 1e-13; }

static kr_array *mk(kr_dtype t, int nd, const int64_t *d)
{
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, t, nd, d, KR_HOST, NULL));
    return a;
}

/* scalar k of an array as double */
static double sget(const kr_array *a, int64_t k)
{
    return (a->dtype == KR_F32 || a->dtype == KR_C64) ? ((const float *)a->data)[k]
                                                       : ((const double *)a->data)[k];
}

static void test_l1_l21(void)
{
    kr_ctx *c = kt_cpu_ctx();
    for (int ti = 0; ti < 4; ti++) {
        const kr_dtype t = kTypes[ti];
        const int w = kr_dtype_is_complex(t) ? 2 : 1;
        int64_t d[3] = {7, 5, 2};
        kr_array *v = mk(t, 3, d), *x = mk(t, 3, d);
        KT_OK(kr_vec_random(c, v, 3 + ti));
        kr_prox *p = NULL;
        /* l1 on all 70 elements */
        KT_OK(kr_prox_l1_create(&p, c, t, 3, d, 0.8));
        KT_OK(kr_prox_apply(p, 0.5, v, x));
        double g1 = 0;
        for (int64_t i = 0; i < 70; i++) {
            double m = 0;
            for (int q = 0; q < w; q++) m += sget(v, i * w + q) * sget(v, i * w + q);
            m = sqrt(m);
            g1 += m;
            const double f = m > 0.4 ? 1 - 0.4 / m : 0.0;
            for (int q = 0; q < w; q++) KT_NEAR(sget(x, i * w + q), f * sget(v, i * w + q), tol_of(t));
        }
        double val;
        KT_OK(kr_prox_value(p, v, &val));
        KT_NEAR(val, 0.8 * g1, 1e-6 * g1);
        kr_prox_destroy(p);
        /* l21 over the last axis (2 values per group), in place */
        KT_OK(kr_prox_l21_create(&p, c, t, 3, d, 1.1));
        KT_OK(kr_vec_copy(c, x, v));
        KT_OK(kr_prox_apply(p, 0.3, x, x));
        double g2 = 0;
        for (int64_t i = 0; i < 35; i++) {
            double m = 0;
            for (int cc = 0; cc < 2; cc++)
                for (int q = 0; q < w; q++) {
                    const double s = sget(v, (cc * 35 + i) * w + q);
                    m += s * s;
                }
            m = sqrt(m);
            g2 += m;
            const double f = m > 0.33 ? 1 - 0.33 / m : 0.0;
            for (int cc = 0; cc < 2; cc++)
                for (int q = 0; q < w; q++) {
                    const int64_t k = (cc * 35 + i) * w + q;
                    KT_NEAR(sget(x, k), f * sget(v, k), tol_of(t));
                }
        }
        KT_OK(kr_prox_value(p, v, &val));
        KT_NEAR(val, 1.1 * g2, 1e-6 * g2);
        kr_prox_destroy(p);
        kr_array_destroy(v);
        kr_array_destroy(x);
    }
    kr_ctx_destroy(c);
}

static void test_ball_box(void)
{
    kr_ctx *c = kt_cpu_ctx();
    for (int ti = 0; ti < 4; ti++) {
        const kr_dtype t = kTypes[ti];
        const int w = kr_dtype_is_complex(t) ? 2 : 1;
        int64_t d[1] = {40};
        kr_array *v = mk(t, 1, d), *x = mk(t, 1, d), *ctr = mk(t, 1, d);
        KT_OK(kr_vec_random(c, v, 21));
        KT_OK(kr_vec_random(c, ctr, 22));
        KT_OK(kr_vec_scale(c, ctr, 0.1, 0.0));
        kr_prox *p = NULL;
        KT_OK(kr_prox_l2ball_create(&p, c, t, 1, d, 0.5, ctr));
        KT_OK(kr_prox_apply(p, 1.0, v, x));
        double nr = 0;
        for (int64_t k = 0; k < 40 * w; k++) nr += pow(sget(v, k) - sget(ctr, k), 2);
        nr = sqrt(nr);
        KT_CHECK(nr > 0.5);
        for (int64_t k = 0; k < 40 * w; k++)
            KT_NEAR(sget(x, k), sget(ctr, k) + (sget(v, k) - sget(ctr, k)) * 0.5 / nr, tol_of(t));
        double val;
        KT_OK(kr_prox_value(p, x, &val));
        KT_CHECK(val == 0.0);
        KT_OK(kr_prox_value(p, v, &val));
        KT_CHECK(isinf(val));
        /* a point inside stays */
        KT_OK(kr_prox_apply(p, 1.0, x, v));
        for (int64_t k = 0; k < 40 * w; k++) KT_NEAR(sget(v, k), sget(x, k), tol_of(t));
        kr_prox_destroy(p);
        KT_OK(kr_vec_random(c, v, 23));
        KT_OK(kr_prox_box_create(&p, c, t, 1, d, -0.25, INFINITY));
        KT_OK(kr_prox_apply(p, 2.0, v, x));
        for (int64_t i = 0; i < 40; i++) {
            const double re = sget(v, i * w);
            KT_CHECK(sget(x, i * w) == (re < -0.25 ? (double)(w == 1 && t == KR_F32 ? -0.25f : -0.25) : re));
            if (w == 2) KT_CHECK(sget(x, i * w + 1) == 0.0);
        }
        KT_OK(kr_prox_value(p, x, &val));
        KT_CHECK(val == 0.0);
        KT_OK(kr_prox_value(p, v, &val));
        KT_CHECK(isinf(val));
        kr_prox_destroy(p);
        kr_array_destroy(v);
        kr_array_destroy(x);
        kr_array_destroy(ctr);
    }
    kr_ctx_destroy(c);
}

/* One 4 x 4 block of 3 frames: M = U diag(s) V^T with U the first three columns of a 16 x 16
 * Hadamard matrix / 4 and V a rotation; complex: times a global phase. */
static void test_llr_svd(void)
{
    kr_ctx *c = kt_cpu_ctx();
    const double s[3] = {5.0, 2.0, 0.7}, tau = 1.2, ph = 0.6;
    const double a = 0.3, b = 0.5;
    double V[3][3] = {{cos(a), -sin(a), 0}, {sin(a) * cos(b), cos(a) * cos(b), -sin(b)},
                      {sin(a) * sin(b), cos(a) * sin(b), cos(b)}};
    double U[16][3];
    for (int i = 0; i < 16; i++)
        for (int j = 0; j < 3; j++) U[i][j] = (__builtin_popcount(i & (j + 1)) & 1 ? -1 : 1) / 4.0;
    for (int ti = 0; ti < 4; ti++) {
        const kr_dtype t = kTypes[ti];
        const int w = kr_dtype_is_complex(t) ? 2 : 1;
        int64_t d[3] = {4, 4, 3};
        kr_array *v = mk(t, 3, d), *x = mk(t, 3, d);
        double M[16][3], E[16][3];
        for (int i = 0; i < 16; i++)
            for (int k = 0; k < 3; k++) {
                M[i][k] = E[i][k] = 0;
                for (int j = 0; j < 3; j++) {
                    M[i][k] += U[i][j] * s[j] * V[k][j];
                    E[i][k] += U[i][j] * (s[j] > tau ? s[j] - tau : 0) * V[k][j];
                }
                const double pr = w == 2 ? cos(ph) : 1, pi = w == 2 ? sin(ph) : 0;
                for (int q = 0; q < w; q++) {
                    const double val = M[i][k] * (q ? pi : pr);
                    if (t == KR_F32 || t == KR_C64)
                        ((float *)v->data)[(k * 16 + i) * w + q] = (float)val;
                    else
                        ((double *)v->data)[(k * 16 + i) * w + q] = val;
                }
            }
        kr_prox *p = NULL;
        KT_OK(kr_prox_llr_create(&p, c, t, 3, d, 2.0, 2, 4, NULL));
        KT_OK(kr_prox_apply(p, 0.6, v, x));
        for (int i = 0; i < 16; i++)
            for (int k = 0; k < 3; k++) {
                const double pr = w == 2 ? cos(ph) : 1, pi = w == 2 ? sin(ph) : 0;
                KT_NEAR(sget(x, (k * 16 + i) * w), E[i][k] * pr, 1e3 * tol_of(t));
                if (w == 2) KT_NEAR(sget(x, (k * 16 + i) * w + 1), E[i][k] * pi, 1e3 * tol_of(t));
            }
        double val;
        KT_OK(kr_prox_value(p, v, &val));
        KT_NEAR(val, 2.0 * (s[0] + s[1] + s[2]), 1e-5);
        kr_prox_destroy(p);
        kr_array_destroy(v);
        kr_array_destroy(x);
    }
    kr_ctx_destroy(c);
}

/* [10, 7, 4] (x, y, frame), blocks of 3 with shift (1, 2): every block holds a rank-1 matrix
 * a(p) b(t), so the prox scales it by max(0, 1 - tau / (|a_block| |b|)). */
static void test_llr_blocks(void)
{
    kr_ctx *c = kt_cpu_ctx();
    int64_t d[3] = {10, 7, 4}, sh[3] = {1, 2, 0};
    kr_array *v = mk(KR_F64, 3, d), *x = mk(KR_F64, 3, d);
    double av[70], bv[4] = {1.0, -0.5, 0.25, 2.0}, nb = 0;
    for (int i = 0; i < 70; i++) av[i] = sin(1.7 * i) + 0.2;
    for (int k = 0; k < 4; k++) nb += bv[k] * bv[k];
    nb = sqrt(nb);
    double *vv = v->data;
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 70; i++) vv[k * 70 + i] = av[i] * bv[k];
    kr_prox *p = NULL;
    const double tau = 0.9;
    KT_OK(kr_prox_llr_create(&p, c, KR_F64, 3, d, 1.0, 2, 3, sh));
    KT_OK(kr_prox_apply(p, tau, v, x));
    /* block of pixel (i, j): ((i + 1) mod 10) / 3, ((j + 2) mod 7) / 3 */
    double bn[4][3] = {{0}};
    for (int j = 0; j < 7; j++)
        for (int i = 0; i < 10; i++) bn[((i + 1) % 10) / 3][((j + 2) % 7) / 3] += av[j * 10 + i] * av[j * 10 + i];
    const double *xv = x->data;
    for (int k = 0; k < 4; k++)
        for (int j = 0; j < 7; j++)
            for (int i = 0; i < 10; i++) {
                const double sv = sqrt(bn[((i + 1) % 10) / 3][((j + 2) % 7) / 3]) * nb;
                const double f = sv > tau ? 1 - tau / sv : 0;
                KT_NEAR(xv[k * 70 + j * 10 + i], f * vv[k * 70 + j * 10 + i], 1e-11);
            }
    kr_prox_destroy(p);
    kr_array_destroy(v);
    kr_array_destroy(x);
    kr_ctx_destroy(c);
}

static void test_l1_wavelet(void)
{
    kr_ctx *c = kt_cpu_ctx();
    int64_t d[2] = {32, 16};
    kr_wavelet_opts o;
    kr_wavelet_opts_default(&o);
    o.kind = KR_WAVELET_DB2;
    o.levels = 2;
    kr_linop *W = NULL;
    KT_OK(kr_wavelet_linop_create(&W, c, KR_C128, 2, d, &o));
    kr_array *v = mk(KR_C128, 2, d), *x = mk(KR_C128, 2, d), *e = mk(KR_C128, 2, d);
    KT_OK(kr_vec_random(c, v, 77));
    kr_prox *p = NULL, *l1 = NULL;
    KT_OK(kr_prox_l1_wavelet_create(&p, c, KR_C128, 2, d, 0.7, &o, 0));
    KT_OK(kr_prox_l1_create(&l1, c, KR_C128, 2, d, 0.7));
    KT_OK(kr_prox_apply(p, 0.5, v, x));
    KT_OK(kr_linop_forward(W, v, e));
    KT_OK(kr_prox_apply(l1, 0.5, e, e));
    KT_OK(kr_linop_adjoint(W, e, v));
    double nd, nx;
    KT_OK(kr_vec_norm2(c, x, &nx));
    KT_OK(kr_vec_axpy(c, v, -1.0, 0.0, x));
    KT_OK(kr_vec_norm2(c, v, &nd));
    KT_LE(nd / nx, 1e-14);
    double g1, g2;
    KT_OK(kr_linop_forward(W, x, e));
    KT_OK(kr_prox_value(l1, e, &g1));
    KT_OK(kr_prox_value(p, x, &g2));
    KT_NEAR(g1, g2, 1e-12 * g1);
    kr_prox_destroy(p);
    /* random shifts: lambda 0 gives back v; two calls draw different shifts */
    KT_OK(kr_prox_l1_wavelet_create(&p, c, KR_C128, 2, d, 0.0, &o, 1234));
    KT_OK(kr_vec_random(c, v, 78));
    KT_OK(kr_prox_apply(p, 1.0, v, x));
    KT_OK(kr_vec_axpy(c, x, -1.0, 0.0, v));
    KT_OK(kr_vec_norm2(c, x, &nd));
    KT_LE(nd, 1e-13);
    kr_prox_destroy(p);
    KT_OK(kr_prox_l1_wavelet_create(&p, c, KR_C128, 2, d, 0.5, &o, 1234));
    KT_OK(kr_prox_apply(p, 1.0, v, x));
    KT_OK(kr_prox_apply(p, 1.0, v, e));
    KT_OK(kr_vec_axpy(c, e, -1.0, 0.0, x));
    KT_OK(kr_vec_norm2(c, e, &nd));
    KT_CHECK(nd > 1e-3);
    kr_prox_destroy(p);
    kr_prox_destroy(l1);
    kr_linop_destroy(W);
    kr_array_destroy(v);
    kr_array_destroy(x);
    kr_array_destroy(e);
    kr_ctx_destroy(c);
}

/* prox_{t lambda TV + box}(v) from the inner FGP iterations against PDHG on
 * min 1/2 |x - v|^2 + lambda t |D x|_21 + box(x). */
static void test_tv_prox(void)
{
    kr_ctx *c = kt_cpu_ctx();
    int64_t d[2] = {20, 16};
    kr_array *v = mk(KR_F64, 2, d), *x = mk(KR_F64, 2, d), *r = mk(KR_F64, 2, d);
    double *vv = v->data;
    uint64_t z = 88172645463325252ull;
    for (int j = 0; j < 16; j++)
        for (int i = 0; i < 20; i++)
            vv[j * 20 + i] = ((i - 10) * (i - 10) + (j - 8) * (j - 8) < 30 ? 1.0 : 0.0) +
                             0.3 * (kt_urand(&z) - 0.5);
    for (int box = 0; box < 2; box++) {
        kr_prox *p = NULL;
        const double lo = box ? 0.0 : -INFINITY, hi = box ? 0.9 : INFINITY;
        KT_OK(kr_prox_tv_create(&p, c, KR_F64, 2, d, 0.5, 3u, lo, hi, 200));
        KT_OK(kr_prox_apply(p, 0.4, v, x));
        KT_OK(kr_prox_apply(p, 0.4, v, x)); /* warm dual: 400 iterations in all */
        kr_linop *I = NULL, *D = NULL;
        KT_OK(kr_linop_identity(&I, c, KR_F64, 2, d, KR_HOST));
        KT_OK(kr_fdiff_linop_create(&D, c, KR_F64, 2, d, 3u, KR_FDIFF_NEUMANN));
        int64_t dd[3] = {20, 16, 2};
        kr_prox *l21 = NULL, *bx = NULL;
        KT_OK(kr_prox_l21_create(&l21, c, KR_F64, 3, dd, 0.2));
        KT_OK(kr_prox_box_create(&bx, c, KR_F64, 2, d, lo, hi));
        kr_reg_term terms[2] = {{D, l21}, {NULL, bx}};
        kr_reg_opts o;
        kr_reg_opts_default(&o);
        o.max_iter = 3000;
        o.tol = 1e-10;
        KT_OK(kr_pdhg(c, I, v, terms, box ? 2 : 1, r, &o, NULL));
        double nd, nr;
        KT_OK(kr_vec_norm2(c, r, &nr));
        KT_OK(kr_vec_axpy(c, r, -1.0, 0.0, x));
        KT_OK(kr_vec_norm2(c, r, &nd));
        KT_LE(nd / nr, 1e-4);
        double g1;
        KT_OK(kr_prox_value(p, x, &g1));
        KT_CHECK(isfinite(g1) && g1 > 0);
        kr_prox_destroy(p);
        kr_prox_destroy(l21);
        kr_prox_destroy(bx);
        kr_linop_destroy(I);
        kr_linop_destroy(D);
    }
    kr_array_destroy(v);
    kr_array_destroy(x);
    kr_array_destroy(r);
    kr_ctx_destroy(c);
}

static void test_bad_input(void)
{
    kr_ctx *c = kt_cpu_ctx();
    int64_t d[2] = {8, 8}, d2[2] = {8, 4};
    kr_prox *p = NULL;
    KT_STATUS(kr_prox_l1_create(&p, c, KR_F32, 2, d, -1.0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_prox_l1_create(&p, c, KR_F32, 2, d, NAN), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_prox_l1_create(&p, NULL, KR_F32, 2, d, 1.0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_prox_l1_create(&p, c, KR_I16, 2, d, 1.0), KR_ERR_DTYPE);
    KT_STATUS(kr_prox_box_create(&p, c, KR_F32, 2, d, 1.0, 0.0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_prox_l2ball_create(&p, c, KR_F32, 2, d, -1.0, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_prox_llr_create(&p, c, KR_F32, 2, d, 1.0, 2, 4, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_prox_llr_create(&p, c, KR_F32, 2, d, 1.0, 1, 0, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_prox_tv_create(&p, c, KR_F32, 2, d, 1.0, 3u, 0, 1, -1), KR_ERR_INVALID_ARG);
    KT_CHECK(p == NULL);
    KT_OK(kr_prox_l1_create(&p, c, KR_F32, 2, d, 1.0));
    kr_array *a = mk(KR_F32, 2, d), *b = mk(KR_F32, 2, d2), *z = mk(KR_F64, 2, d);
    KT_STATUS(kr_prox_apply(p, 0.0, a, a), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_prox_apply(p, 1.0, a, b), KR_ERR_DIM);
    KT_STATUS(kr_prox_apply(p, 1.0, z, a), KR_ERR_DTYPE);
    KT_STATUS(kr_prox_apply(p, 1.0, NULL, a), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_prox_value(p, a, NULL), KR_ERR_INVALID_ARG);
    kr_prox_destroy(p);
    kr_prox_destroy(NULL);
    kr_array_destroy(a);
    kr_array_destroy(b);
    kr_array_destroy(z);
    kr_ctx_destroy(c);
}

int main(void)
{
    KT_RUN(test_l1_l21);
    KT_RUN(test_ball_box);
    KT_RUN(test_llr_svd);
    KT_RUN(test_llr_blocks);
    KT_RUN(test_l1_wavelet);
    KT_RUN(test_tv_prox);
    KT_RUN(test_bad_input);
    return kt_finish();
}
