/* Transforms of the reg module on the CPU: finite differences (values against the definition,
 * adjoint test for every dtype, 2-D, 3-D and a time axis, both boundary rules), wavelets
 * (Haar against its closed form, orthogonality W^H W = I to round-off for Haar, db2, db4 in
 * 2-D and 3-D, with shifts; filter identities), and bad input. */
#include "kray/reg.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>

static const kr_dtype kTypes[4] = {KR_F32, KR_F64, KR_C64, KR_C128};

static double tol_of(kr_dtype t) { return (t == KR_F32 || t == KR_C64) ? 2e-6 : 1e-14; }

static void test_fdiff_values(void)
{
    kr_ctx *c = kt_cpu_ctx();
    int64_t d[2] = {4, 3};
    double xv[12];
    for (int i = 0; i < 12; i++) xv[i] = (double)(i * i % 7) - 0.5 * i;
    for (int bc = 0; bc < 2; bc++) {
        kr_linop *D = NULL;
        KT_OK(kr_fdiff_linop_create(&D, c, KR_F64, 2, d, 3u, (kr_fdiff_boundary)bc));
        int64_t od[KR_MAX_DIMS];
        KT_CHECK(kr_linop_out_dims(D, od) == 3 && od[0] == 4 && od[1] == 3 && od[2] == 2);
        kr_array *x = NULL, *z = NULL;
        KT_OK(kr_array_create(&x, KR_F64, 2, d, KR_HOST, NULL));
        KT_OK(kr_array_create(&z, KR_F64, 3, od, KR_HOST, NULL));
        memcpy(x->data, xv, sizeof xv);
        KT_OK(kr_linop_forward(D, x, z));
        const double *zz = z->data;
        for (int j = 0; j < 3; j++)
            for (int i = 0; i < 4; i++) {
                double ex = i < 3 ? xv[j * 4 + i + 1] - xv[j * 4 + i]
                                  : (bc ? xv[j * 4] - xv[j * 4 + 3] : 0.0);
                double ey = j < 2 ? xv[(j + 1) * 4 + i] - xv[j * 4 + i]
                                  : (bc ? xv[i] - xv[j * 4 + i] : 0.0);
                KT_NEAR(zz[j * 4 + i], ex, 1e-15);
                KT_NEAR(zz[12 + j * 4 + i], ey, 1e-15);
            }
        kr_array_destroy(x);
        kr_array_destroy(z);
        kr_linop_destroy(D);
    }
    kr_ctx_destroy(c);
}

static void test_fdiff_adjoint(void)
{
    kr_ctx *c = kt_cpu_ctx();
    const int64_t d2[2] = {17, 12}, d3[3] = {9, 7, 5}, d4[3] = {6, 5, 8};
    for (int ti = 0; ti < 4; ti++)
        for (int bc = 0; bc < 2; bc++) {
            kr_linop *ops[3] = {NULL, NULL, NULL};
            KT_OK(kr_fdiff_linop_create(&ops[0], c, kTypes[ti], 2, d2, 3u, (kr_fdiff_boundary)bc));
            KT_OK(kr_fdiff_linop_create(&ops[1], c, kTypes[ti], 3, d3, 7u, (kr_fdiff_boundary)bc));
            /* only the time axis (axis 2) */
            KT_OK(kr_fdiff_linop_create(&ops[2], c, kTypes[ti], 3, d4, 4u, (kr_fdiff_boundary)bc));
            for (int k = 0; k < 3; k++) {
                double e = 1;
                KT_OK(kr_linop_adjoint_test(ops[k], 11 + k, &e));
                KT_LE(e, tol_of(kTypes[ti]));
                kr_linop_destroy(ops[k]);
            }
        }
    kr_ctx_destroy(c);
}

/* W^H W x = x and |W x| = |x| to round-off; the adjoint test. */
static void check_orth(kr_ctx *c, kr_dtype t, int nd, const int64_t *d, kr_wavelet_kind kind,
                       unsigned axes, int levels, const int64_t *shift)
{
    kr_wavelet_opts o;
    kr_wavelet_opts_default(&o);
    o.kind = kind;
    o.axes = axes;
    o.levels = levels;
    o.shift = shift;
    kr_linop *W = NULL;
    KT_OK(kr_wavelet_linop_create(&W, c, t, nd, d, &o));
    if (!W) return;
    kr_array *x = NULL, *w = NULL, *b = NULL;
    KT_OK(kr_array_create(&x, t, nd, d, KR_HOST, NULL));
    KT_OK(kr_array_create(&w, t, nd, d, KR_HOST, NULL));
    KT_OK(kr_array_create(&b, t, nd, d, KR_HOST, NULL));
    KT_OK(kr_vec_random(c, x, 99));
    KT_OK(kr_linop_forward(W, x, w));
    KT_OK(kr_linop_adjoint(W, w, b));
    double nx, nw, nb;
    KT_OK(kr_vec_norm2(c, x, &nx));
    KT_OK(kr_vec_norm2(c, w, &nw));
    KT_NEAR(nw / nx, 1.0, 10 * tol_of(t));
    KT_OK(kr_vec_axpy(c, b, -1.0, 0.0, x));
    KT_OK(kr_vec_norm2(c, b, &nb));
    KT_LE(nb / nx, 10 * tol_of(t));
    double e = 1;
    KT_OK(kr_linop_adjoint_test(W, 5, &e));
    KT_LE(e, tol_of(t));
    kr_array_destroy(x);
    kr_array_destroy(w);
    kr_array_destroy(b);
    kr_linop_destroy(W);
}

static void test_wavelet_orthogonal(void)
{
    kr_ctx *c = kt_cpu_ctx();
    const int64_t d2[2] = {32, 48}, d3[3] = {16, 16, 8}, sh2[2] = {3, -5}, sh3[3] = {1, 2, 7};
    for (int ti = 0; ti < 4; ti++)
        for (int k = 0; k < 3; k++) {
            check_orth(c, kTypes[ti], 2, d2, (kr_wavelet_kind)k, 0, 0, NULL);
            check_orth(c, kTypes[ti], 2, d2, (kr_wavelet_kind)k, 3u, 3, sh2);
            check_orth(c, kTypes[ti], 3, d3, (kr_wavelet_kind)k, 7u, 2, sh3);
            check_orth(c, kTypes[ti], 3, d3, (kr_wavelet_kind)k, 5u, 1, NULL);
        }
    /* short lines (the filter wraps around more than once) stay orthogonal */
    const int64_t d1[1] = {8};
    check_orth(c, KR_F64, 1, d1, KR_WAVELET_DB4, 1u, 3, NULL);
    kr_ctx_destroy(c);
}

/* Haar, one level, 1-D: (x0 + x1)/sqrt2, (x2 + x3)/sqrt2, ..., then (x0 - x1)/sqrt2, ... (high
 * pass g[j] = (-1)^j h[taps - 1 - j]); the
 * periodic db2 checked against its definition on a circular signal. */
static void test_wavelet_values(void)
{
    kr_ctx *c = kt_cpu_ctx();
    int64_t d[1] = {8};
    kr_wavelet_opts o;
    kr_wavelet_opts_default(&o);
    o.kind = KR_WAVELET_HAAR;
    o.axes = 1u;
    o.levels = 1;
    kr_linop *W = NULL;
    KT_OK(kr_wavelet_linop_create(&W, c, KR_F64, 1, d, &o));
    kr_array *x = NULL, *w = NULL;
    KT_OK(kr_array_create(&x, KR_F64, 1, d, KR_HOST, NULL));
    KT_OK(kr_array_create(&w, KR_F64, 1, d, KR_HOST, NULL));
    double *xv = x->data, *wv = w->data;
    for (int i = 0; i < 8; i++) xv[i] = 1.0 + i * i;
    KT_OK(kr_linop_forward(W, x, w));
    const double r = sqrt(0.5);
    for (int k = 0; k < 4; k++) {
        KT_NEAR(wv[k], r * (xv[2 * k] + xv[2 * k + 1]), 1e-14);
        KT_NEAR(wv[4 + k], r * (xv[2 * k] - xv[2 * k + 1]), 1e-14);
    }
    kr_linop_destroy(W);
    /* db2: low-pass taps sum to sqrt 2, so a constant maps to sqrt2 * constant (approximation)
     * and 0 (detail); a linear ramp has zero detail except where the period wraps */
    o.kind = KR_WAVELET_DB2;
    KT_OK(kr_wavelet_linop_create(&W, c, KR_F64, 1, d, &o));
    for (int i = 0; i < 8; i++) xv[i] = 2.5;
    KT_OK(kr_linop_forward(W, x, w));
    for (int k = 0; k < 4; k++) {
        KT_NEAR(wv[k], 2.5 * sqrt(2.0), 1e-14);
        KT_NEAR(wv[4 + k], 0.0, 1e-14);
    }
    for (int i = 0; i < 8; i++) xv[i] = 3.0 * i;
    KT_OK(kr_linop_forward(W, x, w));
    for (int k = 0; k < 3; k++) KT_NEAR(wv[4 + k], 0.0, 1e-13); /* db2 has 2 vanishing moments */
    KT_CHECK(fabs(wv[7]) > 1.0);                                 /* the wrap at the end */
    kr_linop_destroy(W);
    kr_array_destroy(x);
    kr_array_destroy(w);
    kr_ctx_destroy(c);
}

static void test_bad_input(void)
{
    kr_ctx *c = kt_cpu_ctx();
    kr_linop *op = NULL;
    int64_t d[2] = {12, 8};
    KT_STATUS(kr_fdiff_linop_create(NULL, c, KR_F32, 2, d, 1u, KR_FDIFF_NEUMANN),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fdiff_linop_create(&op, NULL, KR_F32, 2, d, 1u, KR_FDIFF_NEUMANN),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fdiff_linop_create(&op, c, KR_U8, 2, d, 1u, KR_FDIFF_NEUMANN), KR_ERR_DTYPE);
    KT_STATUS(kr_fdiff_linop_create(&op, c, KR_F32, 2, d, 0u, KR_FDIFF_NEUMANN),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fdiff_linop_create(&op, c, KR_F32, 2, d, 4u, KR_FDIFF_NEUMANN),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fdiff_linop_create(&op, c, KR_F32, 2, d, 1u, (kr_fdiff_boundary)7),
              KR_ERR_INVALID_ARG);
    int64_t bad[2] = {12, 0};
    KT_STATUS(kr_fdiff_linop_create(&op, c, KR_F32, 2, bad, 1u, KR_FDIFF_NEUMANN), KR_ERR_DIM);
    kr_wavelet_opts o;
    kr_wavelet_opts_default(&o);
    o.levels = 4; /* 12 is not divisible by 16 */
    KT_STATUS(kr_wavelet_linop_create(&op, c, KR_F32, 2, d, &o), KR_ERR_DIM);
    o.levels = -1;
    KT_STATUS(kr_wavelet_linop_create(&op, c, KR_F32, 2, d, &o), KR_ERR_INVALID_ARG);
    o.levels = 1;
    o.kind = (kr_wavelet_kind)9;
    KT_STATUS(kr_wavelet_linop_create(&op, c, KR_F32, 2, d, &o), KR_ERR_INVALID_ARG);
    kr_wavelet_kind k;
    KT_OK(kr_wavelet_kind_from_name("db2", &k));
    KT_CHECK(k == KR_WAVELET_DB2);
    KT_STATUS(kr_wavelet_kind_from_name("db3", &k), KR_ERR_INVALID_ARG);
    KT_CHECK(op == NULL);
    kr_ctx_destroy(c);
}

int main(void)
{
    KT_RUN(test_fdiff_values);
    KT_RUN(test_fdiff_adjoint);
    KT_RUN(test_wavelet_orthogonal);
    KT_RUN(test_wavelet_values);
    KT_RUN(test_bad_input);
    return kt_finish();
}
