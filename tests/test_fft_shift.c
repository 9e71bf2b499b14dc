/* Host fftshift / ifftshift: every dtype, even and odd sizes, axis subsets, in place and out of
 * place, rows larger than the 64 KiB copy slice, against explicit index arithmetic; inverse
 * pairs; dumb inputs. */
#include "internal.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>

static kr_array *mk(kr_dtype t, int ndim, const int64_t *dims, uint64_t seed)
{
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, t, ndim, dims, KR_HOST, NULL));
    unsigned char *b = a->data;
    for (size_t i = 0; i < kr_array_bytes(a); i++) b[i] = (unsigned char)kri_rand_u64(seed, i);
    return a;
}

/* out[(j_d + s_d) mod n_d] = in[j], s = n/2 (fftshift) or n - n/2 (ifftshift), by multi-index. */
static void ref_shift(const kr_array *in, unsigned char *out, unsigned axes, int inverse)
{
    size_t es = kr_dtype_size(in->dtype);
    int64_t numel = kr_array_numel(in);
    for (int64_t i = 0; i < numel; i++) {
        int64_t rem = i, dst = 0, stride = 1;
        for (int d = 0; d < in->ndim; d++) {
            int64_t n = in->dims[d], j = rem % n;
            rem /= n;
            if (axes == 0 || (axes & (1u << d))) j = (j + (inverse ? n - n / 2 : n / 2)) % n;
            dst += j * stride;
            stride *= n;
        }
        memcpy(out + (size_t)dst * es, (const unsigned char *)in->data + (size_t)i * es, es);
    }
}

static void check(kr_dtype t, int ndim, const int64_t *dims, unsigned axes, uint64_t seed)
{
    kr_array *x = mk(t, ndim, dims, seed), *y = NULL, *z = NULL;
    KT_OK(kr_array_create_like(&y, x, KR_HOST, NULL));
    KT_OK(kr_array_create_like(&z, x, KR_HOST, NULL));
    size_t bytes = kr_array_bytes(x);
    unsigned char *ref = malloc(bytes);
    char buf[64];
    for (int inv = 0; inv < 2; inv++) {
        kr_status (*fn)(const kr_ctx *, const kr_array *, kr_array *, unsigned) =
            inv ? kr_ifftshift : kr_fftshift;
        ref_shift(x, ref, axes, inv);
        KT_OK(fn(NULL, x, y, axes));
        KT_CHECK_MSG(memcmp(y->data, ref, bytes) == 0, "%sfftshift %s %s axes 0x%x (out of place)",
                     inv ? "i" : "", kr_dtype_name(t), kr_dims_string(ndim, dims, buf, sizeof buf),
                     axes);
        memcpy(z->data, x->data, bytes);
        KT_OK(fn(NULL, z, z, axes));
        KT_CHECK_MSG(memcmp(z->data, ref, bytes) == 0, "%sfftshift %s %s axes 0x%x (in place)",
                     inv ? "i" : "", kr_dtype_name(t), kr_dims_string(ndim, dims, buf, sizeof buf),
                     axes);
        /* the other shift undoes it */
        KT_OK((inv ? kr_fftshift : kr_ifftshift)(NULL, z, z, axes));
        KT_CHECK(memcmp(z->data, x->data, bytes) == 0);
    }
    free(ref);
    kr_array_destroy(x);
    kr_array_destroy(y);
    kr_array_destroy(z);
}

static void test_shift_reference(void)
{
    const kr_dtype types[] = {KR_U8, KR_I16, KR_F32, KR_F64, KR_C64, KR_C128};
    int64_t s1[1] = {5}, s2[1] = {6}, s3[2] = {7, 4}, s4[3] = {3, 5, 6}, s5[4] = {2, 1, 3, 9};
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
        check(types[t], 1, s1, 0, 1);
        check(types[t], 1, s2, 0, 2);
        check(types[t], 2, s3, 0, 3);
        check(types[t], 2, s3, 2u, 4);
        check(types[t], 3, s4, 0, 5);
        check(types[t], 3, s4, 5u, 6);
        check(types[t], 3, s4, 2u, 7);
        check(types[t], 4, s5, 0, 8);
        check(types[t], 4, s5, 10u, 9);
    }
    /* Rows of 68000 bytes: the copy is cut into 64 KiB slices. */
    int64_t big[2] = {17000, 3};
    check(KR_F32, 2, big, 2u, 10);
    check(KR_F32, 2, big, 0, 11);
}

static void test_shift_odd_is_not_involution(void)
{
    int64_t n = 5;
    kr_array *x = NULL, *y = NULL;
    KT_OK(kr_array_create(&x, KR_F64, 1, &n, KR_HOST, NULL));
    KT_OK(kr_array_create_like(&y, x, KR_HOST, NULL));
    for (int i = 0; i < 5; i++) ((double *)x->data)[i] = i;
    KT_OK(kr_fftshift(NULL, x, y, 0)); /* numpy.fft.fftshift([0,1,2,3,4]) = [3,4,0,1,2] */
    const double fs[5] = {3, 4, 0, 1, 2}, ifs[5] = {2, 3, 4, 0, 1};
    for (int i = 0; i < 5; i++) KT_NEAR(((double *)y->data)[i], fs[i], 0);
    KT_OK(kr_ifftshift(NULL, x, y, 0)); /* numpy.fft.ifftshift([0,1,2,3,4]) = [2,3,4,0,1] */
    for (int i = 0; i < 5; i++) KT_NEAR(((double *)y->data)[i], ifs[i], 0);
    kr_array_destroy(x);
    kr_array_destroy(y);
}

static void test_shift_threads(void)
{
    int64_t d[3] = {33, 20, 17};
    kr_array *x = mk(KR_C64, 3, d, 3), *y = NULL, *z = NULL;
    KT_OK(kr_array_create_like(&y, x, KR_HOST, NULL));
    KT_OK(kr_array_create_like(&z, x, KR_HOST, NULL));
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
    KT_OK(kr_ctx_set_threads(c, 1));
    KT_OK(kr_fftshift(c, x, y, 0));
    for (int nt = 2; nt <= 3; nt++) {
        KT_OK(kr_ctx_set_threads(c, nt));
        memcpy(z->data, x->data, kr_array_bytes(x));
        KT_OK(kr_fftshift(c, z, z, 0));
        KT_CHECK(memcmp(z->data, y->data, kr_array_bytes(x)) == 0);
    }
    kr_ctx_destroy(c);
    kr_array_destroy(x);
    kr_array_destroy(y);
    kr_array_destroy(z);
}

static void test_shift_dumb(void)
{
    int64_t d[2] = {4, 3}, e[2] = {3, 4};
    kr_array *a = NULL, *b = NULL, *f = NULL, *g = NULL;
    KT_OK(kr_array_create(&a, KR_F32, 2, d, KR_HOST, NULL));
    KT_OK(kr_array_create(&b, KR_F32, 2, d, KR_HOST, NULL));
    KT_OK(kr_array_create(&f, KR_F64, 2, d, KR_HOST, NULL));
    KT_OK(kr_array_create(&g, KR_F32, 2, e, KR_HOST, NULL));
    KT_STATUS(kr_fftshift(NULL, NULL, b, 0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ifftshift(NULL, a, NULL, 0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fftshift(NULL, a, f, 0), KR_ERR_DTYPE);
    KT_STATUS(kr_fftshift(NULL, a, g, 0), KR_ERR_DIM);
    KT_STATUS(kr_fftshift(NULL, a, b, 4u), KR_ERR_INVALID_ARG);
    kr_array bad = *a;
    bad.dtype = KR_DTYPE_INVALID;
    KT_STATUS(kr_fftshift(NULL, &bad, &bad, 0), KR_ERR_DTYPE);
    kr_array dv;
    KT_OK(kr_array_wrap(&dv, KR_F32, 2, d, (void *)(uintptr_t)0x1000, KR_DEVICE));
    KT_STATUS(kr_fftshift(NULL, &dv, &dv, 0), KR_ERR_LOCATION);
    KT_STATUS(kr_ifftshift(NULL, a, &dv, 0), KR_ERR_LOCATION);
    kr_array_destroy(a);
    kr_array_destroy(b);
    kr_array_destroy(f);
    kr_array_destroy(g);
}

int main(void)
{
    KT_RUN(test_shift_reference);
    KT_RUN(test_shift_odd_is_not_involution);
    KT_RUN(test_shift_threads);
    KT_RUN(test_shift_dumb);
    return kt_finish();
}
