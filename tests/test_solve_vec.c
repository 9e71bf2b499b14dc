/* kr_vec_*: values against straightforward loops (long double references for reductions),
 * the documented chunked summation order, bit-identical results for 1, 2, 3 threads and the
 * serial backend, the counter-based random fill, and dumb inputs with exact statuses. */
#include "internal.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>

static kr_ctx *g_ctx;
static const kr_dtype kDT[4] = {KR_F32, KR_F64, KR_C64, KR_C128};

static int is_single(kr_dtype t) { return t == KR_F32 || t == KR_C64; }
static int64_t nscal(const kr_array *a)
{
    return kr_array_numel(a) * (kr_dtype_is_complex(a->dtype) ? 2 : 1);
}
static double sc(const kr_array *a, int64_t k)
{
    return is_single(a->dtype) ? ((const float *)a->data)[k] : ((const double *)a->data)[k];
}

static kr_array *vec(kr_dtype t, int64_t n, uint64_t seed)
{
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, t, 1, &n, KR_HOST, NULL));
    if (seed) KT_OK(kr_vec_random(g_ctx, a, seed));
    return a;
}

/* Largest |got - want| over the scalars, got from an array and want from a double buffer. */
static double max_err(const kr_array *got, const double *want)
{
    double e = 0;
    for (int64_t k = 0; k < nscal(got); k++) e = fmax(e, fabs(sc(got, k) - want[k]));
    return e;
}

static void check_elementwise(kr_dtype t, int64_t n)
{
    const int cplx = kr_dtype_is_complex(t);
    const double eps = is_single(t) ? 0x1p-24 : 0x1p-53;
    const double ar = 1.25, ai = cplx ? -0.5 : 0.0;
    kr_array *x = vec(t, n, 1), *y = vec(t, n, 2), *w = vec(t, n, 0);
    int64_t ns = nscal(x);
    double *ref = malloc((size_t)ns * sizeof *ref);
    /* a (re, im) applied to scalar pair k: (ar u - ai v, ar v + ai u) */
    for (int op = 0; op < 3; op++) {
        KT_OK(kr_vec_copy(g_ctx, w, y));
        KT_CHECK(memcmp(w->data, y->data, kr_array_bytes(y)) == 0);
        for (int64_t i = 0; i < n; i++) {
            for (int part = 0; part < (cplx ? 2 : 1); part++) {
                int64_t k = cplx ? 2 * i + part : i;
                double yr = sc(y, cplx ? 2 * i : i), yi = cplx ? sc(y, 2 * i + 1) : 0;
                double xr = sc(x, cplx ? 2 * i : i), xi = cplx ? sc(x, 2 * i + 1) : 0;
                double ay = part ? ar * yi + ai * yr : ar * yr - ai * yi;
                double ax = part ? ar * xi + ai * xr : ar * xr - ai * xi;
                double yv = part ? yi : yr, xv = part ? xi : xr;
                ref[k] = op == 0 ? ay : op == 1 ? yv + ax : xv + ay;
            }
        }
        if (op == 0) KT_OK(kr_vec_scale(g_ctx, w, ar, ai));
        if (op == 1) KT_OK(kr_vec_axpy(g_ctx, w, ar, ai, x));
        if (op == 2) KT_OK(kr_vec_xpay(g_ctx, w, ar, ai, x));
        /* values are in [-1, 1): a few roundings of numbers below 4 */
        KT_LE(max_err(w, ref), 8 * eps);
    }
    KT_OK(kr_vec_zero(g_ctx, w));
    for (int64_t k = 0; k < ns; k++) ref[k] = 0;
    KT_CHECK(max_err(w, ref) == 0);
    /* y += a y with the same array twice is allowed (elementwise) */
    KT_OK(kr_vec_copy(g_ctx, w, y));
    KT_OK(kr_vec_axpy(g_ctx, w, 1.0, 0.0, w));
    for (int64_t k = 0; k < ns; k++) ref[k] = 2 * sc(y, k);
    KT_CHECK(max_err(w, ref) == 0);

    /* dot and norm against long double sums, with the error bound of chunked summation */
    long double dr = 0, di = 0, nn = 0, absum = 0;
    for (int64_t i = 0; i < n; i++) {
        long double xr = sc(x, cplx ? 2 * i : i), xi = cplx ? sc(x, 2 * i + 1) : 0;
        long double yr = sc(y, cplx ? 2 * i : i), yi = cplx ? sc(y, 2 * i + 1) : 0;
        dr += xr * yr + xi * yi;
        di += xr * yi - xi * yr;
        nn += xr * xr + xi * xi;
        absum += fabsl(xr * yr) + fabsl(xi * yi) + fabsl(xr * yi) + fabsl(xi * yr);
    }
    const double bound = (4096.0 + (double)(n / 4096) + 4) * 0x1p-53 * (double)absum;
    double re = 0, im = 0, nrm = 0;
    KT_OK(kr_vec_dot(g_ctx, x, y, &re, &im));
    KT_NEAR(re, (double)dr, bound);
    KT_NEAR(im, (double)di, bound);
    KT_OK(kr_vec_dot(g_ctx, x, y, &re, NULL)); /* im optional */
    KT_OK(kr_vec_norm2(g_ctx, x, &nrm));
    KT_NEAR(nrm, sqrt((double)nn), 1e-15 * sqrt((double)nn) + bound / sqrt((double)nn));
    KT_OK(kr_vec_dot(g_ctx, x, x, &re, &im));
    KT_NEAR(re, nrm * nrm, 1e-14 * re);
    KT_CHECK(im == 0.0);

    /* random: scalar k is (T) kri_rand_sym(seed, k) */
    int same = 1, inrange = 1;
    for (int64_t k = 0; k < ns; k++) {
        double v = kri_rand_sym(1, (uint64_t)k);
        if (is_single(t) ? ((float *)x->data)[k] != (float)v : ((double *)x->data)[k] != v)
            same = 0;
        if (!(sc(x, k) >= -1.0 && sc(x, k) <= 1.0)) inrange = 0;
    }
    KT_CHECK(same && inrange);
    free(ref);
    kr_array_destroy(x), kr_array_destroy(y), kr_array_destroy(w);
}

static void test_elementwise_and_reductions(void)
{
    const int64_t sizes[3] = {1, 5000, 70001};
    for (int d = 0; d < 4; d++)
        for (int s = 0; s < 3; s++) check_elementwise(kDT[d], sizes[s]);
}

/* The documented order: chunks of 4096 elements summed in order, chunk sums added in order. */
static void chunked_ref(const kr_array *x, const kr_array *y, double *re, double *im)
{
    const int64_t n = kr_array_numel(x);
    const int cplx = kr_dtype_is_complex(x->dtype);
    double tr = 0, ti = 0;
    for (int64_t c0 = 0; c0 < n; c0 += 4096) {
        double sr = 0, si = 0;
        for (int64_t i = c0; i < n && i < c0 + 4096; i++) {
            if (!cplx) {
                sr = sr + sc(x, i) * sc(y, i);
            } else {
                double xr = sc(x, 2 * i), xi = sc(x, 2 * i + 1), yr = sc(y, 2 * i),
                       yi = sc(y, 2 * i + 1);
                sr = sr + (xr * yr + xi * yi);
                si = si + (xr * yi - xi * yr);
            }
        }
        tr += sr;
        ti += si;
    }
    *re = tr;
    *im = ti;
}

static void test_determinism(void)
{
    /* 1.2 M elements: 293 chunks, more than one parallel round of 256 chunks */
    const int64_t n = 1200007;
    const kr_dtype types[2] = {KR_F32, KR_C128};
    for (int d = 0; d < 2; d++) {
        kr_array *x = vec(types[d], n, 7), *y = vec(types[d], n, 8);
        double ref_re, ref_im, ref_n;
        chunked_ref(x, y, &ref_re, &ref_im);
        chunked_ref(x, x, &ref_n, &ref_im);
        chunked_ref(x, y, &ref_re, &ref_im);
        ref_n = sqrt(ref_n);
        for (int variant = 0; variant < 4; variant++) {
            kr_ctx *c = NULL;
            KT_OK(kr_ctx_create(&c, variant == 3 ? KR_BACKEND_CPU_SERIAL : KR_BACKEND_CPU));
            if (variant < 3) KT_OK(kr_ctx_set_threads(c, variant + 1));
            double re, im, nrm;
            KT_OK(kr_vec_dot(c, x, y, &re, &im));
            KT_OK(kr_vec_norm2(c, x, &nrm));
            KT_CHECK_MSG(memcmp(&re, &ref_re, sizeof re) == 0 && memcmp(&im, &ref_im, sizeof im) == 0,
                         "%s dot with variant %d: %.17g%+.17gi, chunked reference %.17g%+.17gi",
                         kr_dtype_name(types[d]), variant, re, im, ref_re, ref_im);
            KT_CHECK_MSG(memcmp(&nrm, &ref_n, sizeof nrm) == 0,
                         "%s norm with variant %d: %.17g, chunked reference %.17g",
                         kr_dtype_name(types[d]), variant, nrm, ref_n);
            kr_ctx_destroy(c);
        }
        kr_array_destroy(x), kr_array_destroy(y);
    }
}

static void test_vec_dumb(void)
{
    kr_array *x = vec(KR_F32, 10, 1), *y = vec(KR_F32, 10, 2), *z = vec(KR_F32, 11, 3);
    kr_array *d = vec(KR_F64, 10, 4), *u = NULL;
    int64_t ten = 10;
    KT_OK(kr_array_create(&u, KR_U8, 1, &ten, KR_HOST, NULL));
    double re, nrm;
    KT_STATUS(kr_vec_zero(NULL, x), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_vec_zero(g_ctx, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_vec_zero(g_ctx, u), KR_ERR_DTYPE);
    KT_STATUS(kr_vec_copy(g_ctx, x, d), KR_ERR_DTYPE);
    KT_STATUS(kr_vec_copy(g_ctx, x, z), KR_ERR_DIM);
    KT_STATUS(kr_vec_copy(g_ctx, x, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_vec_axpy(g_ctx, x, 1.0, 0.0, z), KR_ERR_DIM);
    KT_STATUS(kr_vec_axpy(g_ctx, x, 1.0, 0.0, d), KR_ERR_DTYPE);
    KT_STATUS(kr_vec_axpy(g_ctx, x, 1.0, 0.5, y), KR_ERR_INVALID_ARG); /* complex scalar */
    KT_STATUS(kr_vec_xpay(g_ctx, x, NAN, 0.0, y), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_vec_scale(g_ctx, x, INFINITY, 0.0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_vec_scale(g_ctx, x, 2.0, 1.0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_vec_dot(g_ctx, x, y, NULL, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_vec_dot(g_ctx, x, d, &re, NULL), KR_ERR_DTYPE);
    KT_STATUS(kr_vec_dot(g_ctx, x, z, &re, NULL), KR_ERR_DIM);
    KT_STATUS(kr_vec_norm2(g_ctx, x, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_vec_norm2(g_ctx, u, &nrm), KR_ERR_DTYPE);
    KT_STATUS(kr_vec_random(g_ctx, u, 1), KR_ERR_DTYPE);
    KT_STATUS(kr_vec_random(NULL, x, 1), KR_ERR_INVALID_ARG);
    /* a device descriptor: refused before any access */
    float dummy[10];
    kr_array dev;
    KT_OK(kr_array_wrap(&dev, KR_F32, 1, &ten, dummy, KR_DEVICE));
    KT_STATUS(kr_vec_axpy(g_ctx, x, 1.0, 0.0, &dev), KR_ERR_LOCATION); /* mixed locations */
    KT_STATUS(kr_vec_dot(g_ctx, &dev, x, &re, NULL), KR_ERR_LOCATION);
    KT_STATUS(kr_vec_copy(g_ctx, &dev, x), KR_ERR_LOCATION);
    KT_STATUS(kr_vec_zero(g_ctx, &dev), KR_ERR_LOCATION); /* device array, CPU ctx */
    KT_STATUS(kr_vec_norm2(g_ctx, &dev, &nrm), KR_ERR_LOCATION);
    /* partial overlap, non-contiguous, no data, zero size */
    kr_array part = *y;
    part.data = (float *)y->data + 1;
    part.dims[0] = 9;
    kr_array y9 = *y;
    y9.dims[0] = 9;
    KT_STATUS(kr_vec_axpy(g_ctx, &y9, 1.0, 0.0, &part), KR_ERR_INVALID_ARG);
    kr_array strided = *x;
    strided.ndim = 2, strided.dims[0] = 5, strided.dims[1] = 2, strided.strides[1] = 6;
    KT_STATUS(kr_vec_scale(g_ctx, &strided, 2.0, 0.0), KR_ERR_NOT_SUPPORTED);
    kr_array nodata = *x;
    nodata.data = NULL;
    KT_STATUS(kr_vec_zero(g_ctx, &nodata), KR_ERR_INVALID_ARG);
    kr_array empty = *x;
    empty.dims[0] = 0;
    KT_STATUS(kr_vec_zero(g_ctx, &empty), KR_ERR_DIM);
    /* shapes may differ when the counts agree */
    kr_array x25 = *x;
    x25.ndim = 2, x25.dims[0] = 2, x25.dims[1] = 5, x25.strides[1] = 2;
    KT_OK(kr_vec_dot(g_ctx, &x25, y, &re, NULL));
    kr_array_destroy(x), kr_array_destroy(y), kr_array_destroy(z), kr_array_destroy(d);
    kr_array_destroy(u);
}

int main(void)
{
    if (kr_ctx_create(&g_ctx, KR_BACKEND_CPU) != KR_OK) return 1;
    KT_RUN(test_elementwise_and_reductions);
    KT_RUN(test_determinism);
    KT_RUN(test_vec_dumb);
    kr_ctx_destroy(g_ctx);
    return kt_finish();
}
