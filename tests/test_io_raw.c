/* Raw samples: round trips of every dtype, byte order and offset on reading, conversion on
 * writing, size mismatches and missing options. */
#include "internal.h"
#include "io_test_util.h"

#include <stdint.h>

static kr_io_opts raw_opts(kr_dtype t, int ndim, const int64_t *dims)
{
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.raw_dtype = t;
    o.raw_ndim = ndim;
    for (int i = 0; i < ndim; i++) o.raw_dims[i] = dims[i];
    return o;
}

static void test_roundtrip(void)
{
    int64_t dims[3] = {5, 4, 3};
    for (int t = KR_F32; t < KR_DTYPE_COUNT; t++) {
        kr_array *a = NULL;
        KT_OK(kr_array_create(&a, (kr_dtype)t, 3, dims, KR_HOST, NULL));
        unsigned char *p = a->data;
        for (size_t i = 0; i < kr_array_bytes(a); i++) p[i] = (unsigned char)kri_rand_u64(t, i);
        const char *path = kt_tmp("rt.raw");
        KT_OK(kr_write(path, a, NULL));
        KT_CHECK(kt_fsize(path) == (long long)kr_array_bytes(a));
        kr_io_opts o = raw_opts((kr_dtype)t, 3, dims);
        kr_array *b = NULL;
        KT_OK(kr_read(path, &b, NULL, &o));
        KT_CHECK_MSG(b && (int)b->dtype == t && kr_array_same_shape(a, b) &&
                         memcmp(a->data, b->data, kr_array_bytes(a)) == 0,
                     "%s round trip differs", kr_dtype_name(t));
        KT_CHECK(kt_temps_left(path) == 0);
        kr_array_destroy(a);
        kr_array_destroy(b);
    }
}

/* The bytes on disk are little-endian, whatever the host. */
static void test_written_bytes(void)
{
    int64_t d[1] = {2};
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, KR_U16, 1, d, KR_HOST, NULL));
    ((uint16_t *)a->data)[0] = 0x0102;
    ((uint16_t *)a->data)[1] = 0xA0B0;
    const char *path = kt_tmp("le.raw");
    KT_OK(kr_write(path, a, NULL));
    size_t n;
    unsigned char *f = kt_slurp(path, &n);
    KT_CHECK(f && n == 4 && f[0] == 0x02 && f[1] == 0x01 && f[2] == 0xB0 && f[3] == 0xA0);
    free(f);
    kr_array_destroy(a);
    /* write_dtype converts: f64 -> u8 rounds to nearest and saturates; f32 -> i16 too */
    int64_t d5[1] = {6};
    KT_OK(kr_array_create(&a, KR_F64, 1, d5, KR_HOST, NULL));
    const double v[6] = {-3.0, 0.4, 0.6, 254.5001, 300.0, 17.0};
    memcpy(a->data, v, sizeof v);
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.write_dtype = KR_U8;
    KT_OK(kr_write(path, a, &o));
    f = kt_slurp(path, &n);
    const unsigned char want[6] = {0, 0, 1, 255, 255, 17};
    KT_CHECK(f && n == 6 && memcmp(f, want, 6) == 0);
    free(f);
    o.write_dtype = KR_C64; /* real -> complex: (v, 0) float pairs */
    KT_OK(kr_write(path, a, &o));
    f = kt_slurp(path, &n);
    KT_CHECK(f && n == 48);
    if (f && n == 48) {
        float c[12];
        memcpy(c, f, 48);
        for (int i = 0; i < 6; i++) KT_CHECK(c[2 * i] == (float)v[i] && c[2 * i + 1] == 0.0f);
    }
    free(f);
    kr_array_destroy(a);
}

/* Big-endian files and a header to skip. */
static void test_byte_order_offset(void)
{
    const char *path = kt_tmp("be.raw");
    unsigned char b[7 + 16];
    memset(b, 0xEE, 7); /* 7 bytes of header junk */
    /* f32 big-endian: 1.0f = 3F800000, -2.5f = C0200000, two complex parts or four f32 */
    const unsigned char be[16] = {0x3F, 0x80, 0, 0, 0xC0, 0x20, 0, 0,
                                  0x01, 0x02, 0x03, 0x04, 0xFF, 0xFE, 0x80, 0x00};
    memcpy(b + 7, be, 16);
    kt_put(path, b, sizeof b);
    int64_t d4[1] = {4}, d2[1] = {2}, d8[2] = {4, 2};
    kr_io_opts o = raw_opts(KR_F32, 1, d4);
    o.raw_big_endian = 1;
    o.raw_offset = 7;
    kr_array *a = NULL;
    KT_OK(kr_read(path, &a, NULL, &o));
    KT_CHECK(a && ((float *)a->data)[0] == 1.0f && ((float *)a->data)[1] == -2.5f);
    kr_array_destroy(a);
    o = raw_opts(KR_C64, 1, d2);
    o.raw_big_endian = 1;
    o.raw_offset = 7;
    KT_OK(kr_read(path, &a, NULL, &o));
    KT_CHECK(a && ((float *)a->data)[0] == 1.0f && ((float *)a->data)[1] == -2.5f);
    kr_array_destroy(a);
    o = raw_opts(KR_U16, 2, d8);
    o.raw_big_endian = 1;
    o.raw_offset = 7;
    KT_OK(kr_read(path, &a, NULL, &o));
    KT_CHECK(a && a->ndim == 2 && a->dims[0] == 4 && a->dims[1] == 2);
    if (a) {
        const uint16_t *u = a->data;
        KT_CHECK(u[0] == 0x3F80 && u[4] == 0x0102 && u[5] == 0x0304 && u[6] == 0xFFFE);
    }
    kr_array_destroy(a);
    o = raw_opts(KR_I16, 2, d8);
    o.raw_offset = 7; /* little-endian */
    KT_OK(kr_read(path, &a, NULL, &o));
    if (a) {
        const int16_t *s = a->data;
        KT_CHECK(s[0] == (int16_t)0x803F && s[6] == (int16_t)0xFEFF && s[7] == 0x0080);
    }
    kr_array_destroy(a);
    o = raw_opts(KR_F64, 1, d2);
    o.raw_big_endian = 1;
    o.raw_offset = 7;
    KT_OK(kr_read(path, &a, NULL, &o)); /* 3F800000C0200000 as a double */
    if (a) {
        uint64_t bits;
        memcpy(&bits, a->data, 8);
        KT_CHECK(bits == 0x3F800000C0200000ull);
    }
    kr_array_destroy(a);
    o = raw_opts(KR_U8, 1, d4);
    o.raw_big_endian = 1; /* no effect on bytes */
    o.raw_offset = 19;
    KT_OK(kr_read(path, &a, NULL, &o));
    KT_CHECK(a && ((uint8_t *)a->data)[0] == 0xFF && ((uint8_t *)a->data)[3] == 0x00);
    kr_array_destroy(a);
}

static void test_bad(void)
{
    const char *path = kt_tmp("bad.raw");
    unsigned char bytes[40] = {0};
    kt_put(path, bytes, 40);
    int64_t dims[2] = {3, 3};
    kr_array *a = NULL;
    kr_io_opts o = raw_opts(KR_F32, 2, dims); /* 36 bytes expected, file has 40 */
    KT_FAILS_NAMING(kr_read(path, &a, NULL, &o), KR_ERR_FORMAT, path);
    KT_CHECK(strstr(kr_last_error(), "40") && strstr(kr_last_error(), "36"));
    KT_CHECK(a == NULL);
    o.raw_offset = 4; /* exact */
    KT_OK(kr_read(path, &a, NULL, &o));
    kr_array_destroy(a);
    a = NULL;
    o.raw_offset = 5; /* one too many */
    KT_FAILS_NAMING(kr_read(path, &a, NULL, &o), KR_ERR_FORMAT, path);
    o.raw_offset = 1000;
    KT_FAILS_NAMING(kr_read(path, &a, NULL, &o), KR_ERR_FORMAT, path);
    o.raw_offset = INT64_MAX; /* absurd offset */
    KT_FAILS_NAMING(kr_read(path, &a, NULL, &o), KR_ERR_FORMAT, path);
    o.raw_offset = 0;
    o.raw_dtype = KR_C128; /* 144 bytes: truncated */
    KT_FAILS_NAMING(kr_read(path, &a, NULL, &o), KR_ERR_FORMAT, path);
    kt_put(path, bytes, 0);
    KT_FAILS_NAMING(kr_read(path, &a, NULL, &o), KR_ERR_FORMAT, path);

    /* options missing or wrong: the caller's fault, not the file's */
    KT_FAILS_NAMING(kr_read(path, &a, NULL, NULL), KR_ERR_INVALID_ARG, path); /* no dtype */
    o = raw_opts(KR_F32, 2, dims);
    o.raw_dtype = (kr_dtype)99;
    KT_STATUS(kr_read(path, &a, NULL, &o), KR_ERR_INVALID_ARG);
    o = raw_opts(KR_F32, 0, dims);
    KT_STATUS(kr_read(path, &a, NULL, &o), KR_ERR_INVALID_ARG);
    o = raw_opts(KR_F32, 2, dims);
    o.raw_ndim = KR_MAX_DIMS + 1;
    KT_STATUS(kr_read(path, &a, NULL, &o), KR_ERR_INVALID_ARG);
    o = raw_opts(KR_F32, 2, dims);
    o.raw_dims[1] = 0;
    KT_FAILS_NAMING(kr_read(path, &a, NULL, &o), KR_ERR_DIM, path);
    o.raw_dims[1] = -4;
    KT_STATUS(kr_read(path, &a, NULL, &o), KR_ERR_DIM);
    o.raw_dims[0] = (int64_t)1 << 30;
    o.raw_dims[1] = (int64_t)1 << 30; /* 2^60 elements */
    KT_STATUS(kr_read(path, &a, NULL, &o), KR_ERR_DIM);
    o = raw_opts(KR_F32, 2, dims);
    o.raw_offset = -1;
    KT_STATUS(kr_read(path, &a, NULL, &o), KR_ERR_INVALID_ARG);
    KT_CHECK(a == NULL);

    /* missing file, directory */
    o = raw_opts(KR_F32, 2, dims);
    remove(path);
    KT_FAILS_NAMING(kr_read(path, &a, NULL, &o), KR_ERR_IO, path);
    mkdir(path, 0755);
    KT_FAILS_NAMING(kr_read(path, &a, NULL, &o), KR_ERR_IO, path);
    rmdir(path);

    /* writing: invalid write_dtype, missing directory; nothing left behind */
    kr_array *w = NULL;
    KT_OK(kr_array_create(&w, KR_F32, 2, dims, KR_HOST, NULL));
    o.write_dtype = (kr_dtype)99;
    KT_STATUS(kr_write(path, w, &o), KR_ERR_DTYPE);
    KT_CHECK(!kt_exists(path) && kt_temps_left(path) == 0);
    char nodir[1200];
    snprintf(nodir, sizeof nodir, "%s.d/x.raw", path);
    KT_FAILS_NAMING(kr_write(nodir, w, NULL), KR_ERR_IO, nodir);
    kr_array_destroy(w);
}

int main(void)
{
    KT_RUN(test_roundtrip);
    KT_RUN(test_written_bytes);
    KT_RUN(test_byte_order_offset);
    KT_RUN(test_bad);
    kt_cleanup_tmp();
    return kt_finish();
}
