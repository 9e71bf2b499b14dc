/* NIfTI-1 (.nii): round trips, header bytes against the NIfTI-1 layout, hand-made headers
 * (byte-swapped, scaled, units), interoperability with nibabel both ways, bad files, atomic
 * writes and dumb inputs. */
#include "kt_io.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const kr_dtype all_types[] = {KR_U8, KR_I16, KR_U16, KR_F32, KR_F64, KR_C64, KR_C128};
static const int nii_codes[] = {2, 4, 512, 16, 64, 32, 1792};

/* ---- little helpers to build headers by hand ---------------------------------------------- */
static void put16(unsigned char *h, int off, int v, int big)
{
    uint16_t u = (uint16_t)v;
    h[off + (big ? 1 : 0)] = (unsigned char)(u & 0xff);
    h[off + (big ? 0 : 1)] = (unsigned char)(u >> 8);
}
static void put32(unsigned char *h, int off, uint32_t u, int big)
{
    for (int i = 0; i < 4; i++)
        h[off + (big ? 3 - i : i)] = (unsigned char)(u >> (8 * i));
}
static void putf(unsigned char *h, int off, float f, int big)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put32(h, off, u, big);
}
static int32_t get32(const unsigned char *h, int off)
{
    uint32_t u = 0;
    for (int i = 0; i < 4; i++)
        u |= (uint32_t)h[off + i] << (8 * i);
    return (int32_t)u;
}
static int16_t get16(const unsigned char *h, int off)
{
    return (int16_t)(h[off] | (h[off + 1] << 8));
}
static float getf(const unsigned char *h, int off)
{
    uint32_t u = (uint32_t)get32(h, off);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* A minimal valid header (352 bytes) for a 4x3x2 float32 volume, byte order `big`. */
static void base_header(unsigned char *h, int big)
{
    memset(h, 0, 352);
    put32(h, 0, 348, big);
    put16(h, 40, 3, big);
    put16(h, 42, 4, big);
    put16(h, 44, 3, big);
    put16(h, 46, 2, big);
    for (int i = 4; i < 8; i++)
        put16(h, 40 + 2 * i, 1, big);
    put16(h, 70, 16, big); /* float32 */
    put16(h, 72, 32, big);
    for (int i = 0; i < 8; i++)
        putf(h, 76 + 4 * i, 1.0f, big);
    putf(h, 108, 352.0f, big);
    memcpy(h + 344, "n+1\0", 4);
}

/* header + 24 float values (value i = i - 5.5) in byte order `big` */
static void write_f32_file(const char *path, unsigned char *h, int big, size_t cut)
{
    unsigned char buf[352 + 24 * 4];
    memcpy(buf, h, 352);
    for (int i = 0; i < 24; i++)
        putf(buf, 352 + 4 * i, (float)i - 5.5f, big);
    size_t n = sizeof buf - cut;
    KT_CHECK(ktio_put(path, buf, n) == 0);
}

/* ---- round trips ---------------------------------------------------------------------------- */
static void test_round_trip_all_types(void)
{
    int64_t dims[3] = {5, 4, 3};
    kr_meta m = ktio_meta("kray test volume");
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.meta = &m;
    for (size_t t = 0; t < sizeof all_types / sizeof all_types[0]; t++) {
        kr_array *a = ktio_make(all_types[t], 3, dims);
        const char *p = kt_tmp("rt.nii");
        KT_OK(kr_write(p, a, &o));
        KT_CHECK(ktio_temp_files(p) == 0);
        /* the header against the NIfTI-1 layout */
        size_t n;
        unsigned char *f = ktio_get(p, &n);
        KT_CHECK(f != NULL && n == 352 + kr_array_bytes(a));
        if (f) {
            KT_CHECK(get32(f, 0) == 348);
            KT_CHECK(get16(f, 40) == 3 && get16(f, 42) == 5 && get16(f, 44) == 4 &&
                     get16(f, 46) == 3);
            KT_CHECK(get16(f, 70) == nii_codes[t]);
            KT_CHECK(get16(f, 72) == (int)(8 * kr_dtype_size(all_types[t])));
            KT_CHECK(getf(f, 80) == 0.75f && getf(f, 84) == 1.25f && getf(f, 88) == 2.5f);
            KT_CHECK(getf(f, 108) == 352.0f);
            KT_CHECK(f[123] == 2); /* mm */
            KT_CHECK(strcmp((const char *)f + 148, "kray test volume") == 0);
            KT_CHECK(get16(f, 252) == 1 && get16(f, 254) == 1);
            /* kray's LPS origin (-10.5, 20.25, 3) and axes in NIfTI's RAS: diag(-1, -1, 1) */
            KT_CHECK(getf(f, 256) == 0.0f && getf(f, 260) == 0.0f && getf(f, 264) == 1.0f);
            KT_CHECK(getf(f, 268) == 10.5f && getf(f, 272) == -20.25f && getf(f, 276) == 3.0f);
            KT_CHECK(getf(f, 280) == -0.75f && getf(f, 292) == 10.5f); /* srow_x */
            KT_CHECK(getf(f, 300) == -1.25f && getf(f, 308) == -20.25f); /* srow_y */
            KT_CHECK(getf(f, 320) == 2.5f && getf(f, 324) == 3.0f);    /* srow_z */
            KT_CHECK(memcmp(f + 344, "n+1\0", 4) == 0);
            KT_CHECK(memcmp(f + 352, a->data, kr_array_bytes(a)) == 0);
            free(f);
        }
        ktio_check_read_back(p, a, &m, kr_dtype_name(all_types[t]));
        kr_array_destroy(a);
        remove(p);
    }
}

static void test_shapes_and_conversion(void)
{
    /* 1-D, 2-D and 7-D keep their ndim; trailing 1s past 7 are dropped */
    int64_t d1[1] = {17}, d2[2] = {6, 5}, d7[7] = {2, 3, 1, 2, 1, 2, 2};
    int64_t d9[9] = {3, 2, 1, 1, 1, 1, 1, 1, 1};
    const int64_t *ds[] = {d1, d2, d7, d9};
    int nd[] = {1, 2, 7, 9};
    for (int k = 0; k < 4; k++) {
        kr_array *a = ktio_make(KR_F32, nd[k], ds[k]), *b = NULL;
        const char *p = kt_tmp("shape.nii");
        KT_OK(kr_write(p, a, NULL));
        KT_OK(kr_read(p, &b, NULL, NULL));
        KT_CHECK(b && b->ndim == (nd[k] > 7 ? 7 : nd[k]));
        KT_CHECK(b && memcmp(a->data, b->data, kr_array_bytes(a)) == 0);
        kr_array_destroy(a);
        kr_array_destroy(b);
        remove(p);
    }
    /* write_dtype converts (f64 -> i16 rounds to nearest) */
    int64_t d[1] = {4};
    kr_array *a = NULL, *b = NULL;
    KT_OK(kr_array_create(&a, KR_F64, 1, d, KR_HOST, NULL));
    double v[4] = {-2.6, 0.4, 7.5, 1000.2};
    memcpy(a->data, v, sizeof v);
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.write_dtype = KR_I16;
    const char *p = kt_tmp("conv.nii");
    KT_OK(kr_write(p, a, &o));
    KT_OK(kr_read(p, &b, NULL, NULL));
    KT_CHECK(b && b->dtype == KR_I16);
    if (b) {
        const int16_t *s = b->data;
        KT_CHECK(s[0] == -3 && s[1] == 0 && s[2] == 8 && s[3] == 1000);
    }
    kr_array_destroy(a);
    kr_array_destroy(b);
    remove(p);
}

/* ---- hand-made headers ---------------------------------------------------------------------- */
static void test_byte_swapped(void)
{
    unsigned char h[352];
    const char *p = kt_tmp("be.nii");
    for (int big = 0; big <= 1; big++) {
        base_header(h, big);
        putf(h, 80, 0.5f, big);
        putf(h, 84, 0.25f, big);
        putf(h, 88, 4.0f, big);
        put16(h, 252, 1, big);
        putf(h, 268, 7.0f, big);
        putf(h, 272, -8.0f, big);
        putf(h, 276, 9.5f, big);
        write_f32_file(p, h, big, 0);
        kr_array *a = NULL;
        kr_meta m;
        KT_OK(kr_read(p, &a, &m, NULL));
        KT_CHECK(a && a->dtype == KR_F32 && a->ndim == 3 && a->dims[0] == 4 && a->dims[1] == 3 &&
                 a->dims[2] == 2);
        if (a)
            for (int i = 0; i < 24; i++)
                KT_CHECK(((float *)a->data)[i] == (float)i - 5.5f);
        KT_CHECK(m.spacing[0] == 0.5 && m.spacing[1] == 0.25 && m.spacing[2] == 4.0);
        KT_CHECK(m.origin[0] == -7.0 && m.origin[1] == 8.0 && m.origin[2] == 9.5); /* qoffset, LPS */
        kr_array_destroy(a);
    }
    remove(p);
}

static void test_scaling_units_origin(void)
{
    unsigned char h[352];
    const char *p = kt_tmp("sc.nii");
    /* int16 with slope 2.5, inter -7: f32 result */
    unsigned char buf[352 + 12];
    base_header(h, 0);
    put16(h, 40, 1, 0);
    put16(h, 42, 6, 0);
    put16(h, 70, 4, 0);
    put16(h, 72, 16, 0);
    putf(h, 112, 2.5f, 0);
    putf(h, 116, -7.0f, 0);
    h[123] = 3; /* micron */
    putf(h, 80, 500.0f, 0);
    put16(h, 252, 1, 0);
    putf(h, 268, 1.0f, 0); /* qoffset: not used because sform_code > 0 */
    put16(h, 254, 2, 0);
    putf(h, 292, 1500.0f, 0); /* srow_x[3] */
    putf(h, 308, -250.0f, 0);
    putf(h, 324, 2.0f, 0);
    memcpy(buf, h, 352);
    int16_t raw[6] = {-3, 0, 1, 100, -32768, 32767};
    for (int i = 0; i < 6; i++)
        put16(buf, 352 + 2 * i, raw[i], 0);
    KT_CHECK(ktio_put(p, buf, sizeof buf) == 0);
    kr_array *a = NULL;
    kr_meta m;
    KT_OK(kr_read(p, &a, &m, NULL));
    KT_CHECK(a && a->dtype == KR_F32 && a->ndim == 1 && a->dims[0] == 6);
    if (a)
        for (int i = 0; i < 6; i++)
            KT_CHECK(((float *)a->data)[i] == (float)(2.5 * raw[i] - 7.0));
    KT_NEAR(m.spacing[0], 0.5, 1e-12);
    KT_NEAR(m.origin[0], -1.5, 1e-12); /* RAS -> LPS */
    KT_NEAR(m.origin[1], 0.25, 1e-12);
    KT_NEAR(m.origin[2], 0.002, 1e-12);
    kr_array_destroy(a);

    /* slope 0, NaN (nibabel's "unset") or (1, 0): no scaling, the stored type is kept */
    float slopes[3] = {0.0f, NAN, 1.0f};
    for (int k = 0; k < 3; k++) {
        putf(buf, 112, slopes[k], 0);
        putf(buf, 116, k == 2 ? 0.0f : 5.0f, 0);
        KT_CHECK(ktio_put(p, buf, sizeof buf) == 0);
        KT_OK(kr_read(p, &a, NULL, NULL));
        KT_CHECK(a && a->dtype == KR_I16 && ((int16_t *)a->data)[3] == 100);
        kr_array_destroy(a);
    }
    /* float64 scaled -> f64; complex64 scaled -> c64 (slope on both parts, inter on real) */
    unsigned char cb[352 + 16];
    base_header(h, 0);
    put16(h, 40, 1, 0);
    put16(h, 42, 2, 0);
    put16(h, 70, 32, 0);
    put16(h, 72, 64, 0);
    putf(h, 112, 2.0f, 0);
    putf(h, 116, 1.0f, 0);
    memcpy(cb, h, 352);
    float cv[4] = {1.5f, -2.0f, 3.0f, 0.25f};
    for (int i = 0; i < 4; i++)
        putf(cb, 352 + 4 * i, cv[i], 0);
    KT_CHECK(ktio_put(p, cb, sizeof cb) == 0);
    KT_OK(kr_read(p, &a, NULL, NULL));
    KT_CHECK(a && a->dtype == KR_C64);
    if (a) {
        const float *c = a->data;
        KT_CHECK(c[0] == 4.0f && c[1] == -4.0f && c[2] == 7.0f && c[3] == 0.5f);
    }
    kr_array_destroy(a);
    put16(cb, 70, 64, 0); /* same 16 bytes as two float64... reinterpret: 2 doubles */
    double dv[2] = {0.5, -1.25};
    memcpy(cb + 352, dv, 16);
    KT_CHECK(ktio_put(p, cb, sizeof cb) == 0);
    KT_OK(kr_read(p, &a, NULL, NULL));
    KT_CHECK(a && a->dtype == KR_F64 && ((double *)a->data)[0] == 2.0 &&
             ((double *)a->data)[1] == -1.5);
    kr_array_destroy(a);
    remove(p);
}

static void test_widened_types(void)
{
    /* int8 -> i16, int32 and uint32 -> f64, all exact */
    unsigned char h[352], buf[352 + 16];
    const char *p = kt_tmp("wide.nii");
    base_header(h, 1); /* big-endian, to exercise swapping of widened types */
    put16(h, 40, 1, 1);
    put16(h, 42, 4, 1);
    put16(h, 70, 256, 1);
    put16(h, 72, 8, 1);
    memcpy(buf, h, 352);
    signed char i8[4] = {-128, -1, 0, 127};
    memcpy(buf + 352, i8, 4);
    KT_CHECK(ktio_put(p, buf, 356) == 0);
    kr_array *a = NULL;
    KT_OK(kr_read(p, &a, NULL, NULL));
    KT_CHECK(a && a->dtype == KR_I16);
    if (a) {
        const int16_t *v = a->data;
        KT_CHECK(v[0] == -128 && v[1] == -1 && v[2] == 0 && v[3] == 127);
    }
    kr_array_destroy(a);
    uint32_t u[4] = {0u, 1u, 4294967295u, 2147483648u};
    for (int code = 8; code <= 768; code += 760) {
        put16(buf, 70, code, 1);
        put16(buf, 72, 32, 1);
        for (int i = 0; i < 4; i++)
            put32(buf, 352 + 4 * i, u[i], 1);
        KT_CHECK(ktio_put(p, buf, sizeof buf) == 0);
        KT_OK(kr_read(p, &a, NULL, NULL));
        KT_CHECK(a && a->dtype == KR_F64);
        if (a) {
            const double *v = a->data;
            if (code == 8)
                KT_CHECK(v[0] == 0 && v[1] == 1 && v[2] == -1 && v[3] == -2147483648.0);
            else
                KT_CHECK(v[0] == 0 && v[1] == 1 && v[2] == 4294967295.0 && v[3] == 2147483648.0);
        }
        kr_array_destroy(a);
    }
    remove(p);
}

/* ---- bad files ------------------------------------------------------------------------------ */
static void test_bad_files(void)
{
    unsigned char h[352];
    const char *p = kt_tmp("bad.nii");
    kr_array *a = NULL;
    kr_meta mm;

    KTIO_READ_FAILS(kt_tmp("missing.nii"), KR_ERR_IO, NULL);

    /* truncated header */
    base_header(h, 0);
    KT_CHECK(ktio_put(p, h, 200) == 0);
    KTIO_READ_FAILS(p, KR_ERR_FORMAT, "348");
    KT_CHECK(ktio_put(p, h, 0) == 0);
    KTIO_READ_FAILS(p, KR_ERR_FORMAT, "348");

    /* data shorter than promised: one byte and one value missing; header only */
    write_f32_file(p, h, 0, 1);
    KTIO_READ_FAILS(p, KR_ERR_FORMAT, "promises");
    write_f32_file(p, h, 0, 4 * 24);
    KTIO_READ_FAILS(p, KR_ERR_FORMAT, "promises");

    struct {
        int off, kind; /* kind 0: int16, 1: float, 2: int32, 3: magic bytes */
        double v;
        const char *what;
        kr_status st;
    } cases[] = {
        {0, 2, 349, "sizeof_hdr", KR_ERR_FORMAT},        /* wrong byte-order marker */
        {0, 2, 0x12345678, "sizeof_hdr", KR_ERR_FORMAT}, /* 348 in neither order */
        {0, 2, 540, "NIfTI-2", KR_ERR_NOT_SUPPORTED},
        {40, 0, 0, "dim[0]", KR_ERR_FORMAT},
        {40, 0, 8, "dim[0]", KR_ERR_FORMAT},
        {40, 0, -3, "dim[0]", KR_ERR_FORMAT},
        {44, 0, 0, "dim[2]", KR_ERR_FORMAT},
        {46, 0, -5, "dim[3]", KR_ERR_FORMAT},
        {70, 0, 3, "datatype 3", KR_ERR_FORMAT}, /* not a NIfTI type */
        {70, 0, 128, "RGB24", KR_ERR_FORMAT},    /* known, unsupported */
        {70, 0, 1024, "int64", KR_ERR_FORMAT},
        {72, 0, 16, "bitpix", KR_ERR_FORMAT},
        {80, 1, NAN, "pixdim[1]", KR_ERR_FORMAT},
        {84, 1, INFINITY, "pixdim[2]", KR_ERR_FORMAT},
        {108, 1, NAN, "vox_offset", KR_ERR_FORMAT},
        {108, 1, 352.5, "vox_offset", KR_ERR_FORMAT},
        {108, 1, 348, "vox_offset", KR_ERR_FORMAT},
        {108, 1, 1e6, "vox_offset", KR_ERR_FORMAT},     /* beyond the file */
        {108, 1, 400, "promises", KR_ERR_FORMAT},       /* data would run past the end */
        {116, 1, INFINITY, "scl_inter", KR_ERR_FORMAT}, /* with slope 2 below */
        {344, 3, 0, "magic", KR_ERR_FORMAT},
        {344, 3, 1, "ni1", KR_ERR_NOT_SUPPORTED},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        base_header(h, 0);
        switch (cases[k].kind) {
        case 0: put16(h, cases[k].off, (int)cases[k].v, 0); break;
        case 1: putf(h, cases[k].off, (float)cases[k].v, 0); break;
        case 2: put32(h, cases[k].off, (uint32_t)(int64_t)cases[k].v, 0); break;
        default: memcpy(h + 344, cases[k].v != 0 ? "ni1\0" : "n+2\0", 4); break;
        }
        if (cases[k].off == 116) putf(h, 112, 2.0f, 0);
        write_f32_file(p, h, 0, 0);
        kr_status s = kr_read(p, &a, NULL, NULL);
        KT_CHECK_MSG(s == cases[k].st, "case %zu (%s): got %s (%s)", k, cases[k].what,
                     kr_status_string(s), kr_last_error());
        KTIO_ERR_NAMES(p, cases[k].what);
        KT_CHECK(a == NULL);
    }
    /* NaN in the origin that is used (sform), and in qoffset when qform is used */
    base_header(h, 0);
    put16(h, 254, 1, 0);
    putf(h, 292, NAN, 0);
    write_f32_file(p, h, 0, 0);
    KT_STATUS(kr_read(p, &a, &mm, NULL), KR_ERR_FORMAT);
    KTIO_ERR_NAMES(p, "srow");
    base_header(h, 0);
    put16(h, 252, 1, 0);
    putf(h, 272, NAN, 0);
    write_f32_file(p, h, 0, 0);
    KT_STATUS(kr_read(p, &a, &mm, NULL), KR_ERR_FORMAT);
    KTIO_ERR_NAMES(p, "qoffset");
    /* dims whose product passes kray's 2^40 limit (and would overflow 32-bit products) */
    base_header(h, 0);
    put16(h, 40, 7, 0);
    for (int i = 1; i <= 7; i++)
        put16(h, 40 + 2 * i, 32767, 0);
    write_f32_file(p, h, 0, 0);
    KTIO_READ_FAILS(p, KR_ERR_FORMAT, "2^40");
    /* absurd but under the limit: the file does not hold the data */
    base_header(h, 0);
    put16(h, 42, 30000, 0);
    put16(h, 44, 30000, 0);
    put16(h, 46, 30, 0);
    write_f32_file(p, h, 0, 0);
    KTIO_READ_FAILS(p, KR_ERR_FORMAT, "promises");
    remove(p);
}

/* ---- writes: atomicity and dumb inputs ------------------------------------------------------ */
static void test_atomic_writes(void)
{
    const char *p = kt_tmp("atomic.nii");
    int64_t big[3] = {64, 64, 16}, small[2] = {3, 2};
    kr_array *a = ktio_make(KR_F32, 3, big), *b = ktio_make(KR_U8, 2, small), *r = NULL;
    KT_OK(kr_write(p, a, NULL));
    KT_CHECK(ktio_size(p) == 352 + 64 * 64 * 16 * 4);
    /* overwriting replaces the whole file */
    KT_OK(kr_write(p, b, NULL));
    KT_CHECK(ktio_size(p) == 352 + 6);
    KT_OK(kr_read(p, &r, NULL, NULL));
    KT_CHECK(ktio_equal(r, b));
    kr_array_destroy(r);
    /* a write that fails part way (file size limit) leaves the old file and no temp file */
    kr_status s = KR_OK;
    KTIO_WITH_FSIZE_LIMIT(100000, s = kr_write(p, a, NULL));
    KT_CHECK(s == KR_ERR_IO);
    KTIO_ERR_NAMES(p, NULL);
    KT_CHECK(ktio_size(p) == 352 + 6);
    KT_CHECK(ktio_temp_files(p) == 0);
    remove(p);
    KTIO_WITH_FSIZE_LIMIT(100000, s = kr_write(p, a, NULL));
    KT_CHECK(s == KR_ERR_IO && !ktio_exists(p) && ktio_temp_files(p) == 0);
    /* a folder that does not exist */
    const char *q = kt_tmp("no/such/dir.nii");
    KT_STATUS(kr_write(q, a, NULL), KR_ERR_IO);
    KTIO_ERR_NAMES(q, NULL);
    KT_CHECK(!ktio_exists(q));
    kr_array_destroy(a);
    kr_array_destroy(b);
}

static void test_dumb_inputs(void)
{
    const char *p = kt_tmp("dumb.nii");
    int64_t d[3] = {4, 3, 2};
    kr_array *a = ktio_make(KR_F32, 3, d), *r = NULL;
    KT_STATUS(kr_write(NULL, a, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_write(p, NULL, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_read(NULL, &r, NULL, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_read(p, NULL, NULL, NULL), KR_ERR_INVALID_ARG);
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.write_dtype = (kr_dtype)99;
    KT_STATUS(kr_write(p, a, &o), KR_ERR_DTYPE);
    kr_io_opts_default(&o);
    kr_meta m;
    memset(&m, 0, sizeof m);
    m.spacing[1] = NAN;
    o.meta = &m;
    KT_STATUS(kr_write(p, a, &o), KR_ERR_INVALID_ARG);
    m.spacing[1] = -1.0;
    KT_STATUS(kr_write(p, a, &o), KR_ERR_INVALID_ARG);
    m.spacing[1] = 1.0;
    m.origin[2] = INFINITY;
    KT_STATUS(kr_write(p, a, &o), KR_ERR_INVALID_ARG);
    KT_CHECK(!ktio_exists(p));
    /* too many dims, too large a size */
    int64_t d8[8] = {2, 2, 2, 2, 2, 2, 2, 2}, dl[2] = {32768, 1};
    kr_array *b = ktio_make(KR_U8, 8, d8), *c = ktio_make(KR_U8, 2, dl);
    KT_STATUS(kr_write(p, b, NULL), KR_ERR_DIM);
    KT_STATUS(kr_write(p, c, NULL), KR_ERR_DIM);
    KTIO_ERR_NAMES(p, "32767");
    KT_CHECK(!ktio_exists(p));
    /* device array descriptor and a non-contiguous one */
    kr_array w = *a;
    w.loc = KR_DEVICE;
    KT_STATUS(kr_write(p, &w, NULL), KR_ERR_LOCATION);
    w = *a;
    w.strides[1] = 5;
    KT_STATUS(kr_write(p, &w, NULL), KR_ERR_NOT_SUPPORTED);
    w = *a;
    w.dims[0] = 0;
    KT_STATUS(kr_write(p, &w, NULL), KR_ERR_DIM);
    w = *a;
    w.dtype = KR_DTYPE_INVALID;
    KT_STATUS(kr_write(p, &w, NULL), KR_ERR_DTYPE);
    KT_CHECK(!ktio_exists(p));
    kr_array_destroy(a);
    kr_array_destroy(b);
    kr_array_destroy(c);
}

/* ---- nibabel ------------------------------------------------------------------------------- */
static const char *nib_script =
    "import sys, os, struct\n"
    "import numpy as np, nibabel as nib\n"
    "mode, d = sys.argv[1], sys.argv[2]\n"
    "def vals(kind, n):\n"
    "    i = np.arange(n)\n"
    "    if kind == 'u8': return (i % 251).astype(np.uint8)\n"
    "    if kind == 'i16': return ((i * 37) % 2000 - 1000).astype(np.int16)\n"
    "    if kind == 'u16': return ((i * 997) % 65536).astype(np.uint16)\n"
    "    if kind == 'f32': return (i * 0.5 - 3.25).astype(np.float32)\n"
    "    if kind == 'f64': return i * 0.1 - 1.0\n"
    "    if kind == 'c64': return (i * 0.5 + 1j * (-0.25 * i)).astype(np.complex64)\n"
    "    if kind == 'c128': return i * 0.1 + 1j * (1.0 - i * 0.3)\n"
    "    if kind == 'i8': return (i % 256 - 128).astype(np.int8)\n"
    "    if kind == 'i32': return (i * 100003 - 7000000).astype(np.int32)\n"
    "    if kind == 'u32': return (i * 40000001).astype(np.uint32)\n"
    "    raise SystemExit('kind ' + kind)\n"
    "bad = []\n"
    "if mode == 'check':\n"
    "    sp, org = (0.75, 1.25, 2.5), (-10.5, 20.25, 3.0)\n"
    "    dt = dict(u8='uint8', i16='int16', u16='uint16', f32='float32', f64='float64',\n"
    "              c64='complex64', c128='complex128')\n"
    "    for k in sys.argv[3:]:\n"
    "        img = nib.load(os.path.join(d, 'kr_%s.nii' % k))\n"
    "        a = np.asanyarray(img.dataobj)\n"
    "        want = vals(k, 60).reshape((5, 4, 3), order='F')\n"
    "        if a.shape != (5, 4, 3): bad.append('%s shape %s' % (k, a.shape))\n"
    "        if str(img.get_data_dtype()) != dt[k]: bad.append('%s dtype %s' % (k, "
    "img.get_data_dtype()))\n"
    "        if a.dtype != want.dtype or not np.array_equal(a, want): bad.append('%s values' % k)\n"
    "        if tuple(float(z) for z in img.header.get_zooms()) != sp: bad.append('%s zooms %s' % "
    "(k, img.header.get_zooms()))\n"
    "        lps = np.array([-1.0, -1.0, 1.0])\n"
    "        if not np.array_equal(img.affine[:3, 3], lps * org): bad.append('%s origin %s' % (k, "
    "img.affine[:3, 3]))\n"
    "        if not np.array_equal(img.affine[:3, :3], np.diag(lps * sp)): bad.append('%s affine' "
    "% k)\n"
    "        if nib.aff2axcodes(img.affine) != ('L', 'P', 'S'): bad.append('%s axcodes' % k)\n"
    "        if not np.allclose(img.get_qform(), img.affine): bad.append('%s qform' % k)\n"
    "        if img.header['descrip'].item() != b'kray ' + k.encode(): bad.append('%s descrip' % "
    "k)\n"
    "else:\n"
    "    def save(name, data, zooms, header=None, dtype=None, units=None, shift=(-10.5, 20.25, "
    "3.0)):\n"
    "        z = list(zooms[:3]); z += [1.0] * (3 - len(z))\n"
    "        aff = np.diag(z + [1.0]); aff[:3, 3] = shift\n"
    "        img = nib.Nifti1Image(data, aff, header=header)\n"
    "        if dtype is not None: img.set_data_dtype(dtype)\n"
    "        if units: img.header.set_xyzt_units(*units)\n"
    "        img.header.set_zooms(zooms)\n"
    "        nib.save(img, os.path.join(d, 'nb_%s.nii' % name))\n"
    "        back = nib.load(os.path.join(d, 'nb_%s.nii' % name))\n"
    "        e = np.asanyarray(back.dataobj) if np.iscomplexobj(data) else back.get_fdata()\n"
    "        np.asarray(e, dtype=np.complex128).ravel(order='F').tofile(os.path.join(d, "
    "'nb_%s.ref' % name))\n"
    "    z3 = (0.5, 0.75, 2.0)\n"
    "    for k in ['u8', 'i16', 'u16', 'f32', 'f64', 'c64', 'c128', 'i8', 'i32', 'u32']:\n"
    "        save(k, vals(k, 60).reshape((5, 4, 3), order='F'), z3)\n"
    "    f = vals('f64', 60).reshape((5, 4, 3), order='F') * 37.0 + 5.0\n"
    "    save('scaled_i16', f, z3, dtype=np.int16)\n"
    "    save('scaled_u8', f, z3, dtype=np.uint8)\n"
    "    save('be_f32', vals('f32', 60).reshape((5, 4, 3), order='F').astype('>f4'), z3,\n"
    "         header=nib.Nifti1Header(endianness='>'))\n"
    "    save('be_scaled', f, z3, header=nib.Nifti1Header(endianness='>'), dtype=np.int16)\n"
    "    save('f32_4d', vals('f32', 24).reshape((3, 2, 2, 2), order='F'), (500.0, 750.0, 2000.0, "
    "3.0),\n"
    "         units=('micron', 'sec'), shift=(1000.0, -2000.0, 500.0))\n"
    "    save('f32_2d', vals('f32', 35).reshape((7, 5), order='F'), (0.5, 0.75))\n"
    "if bad:\n"
    "    print('nibabel check failed: ' + '; '.join(bad)); sys.exit(1)\n";

static int run_python(const char *dir, const char *mode, const char *args)
{
    char script[1200], cmd[4096];
    snprintf(script, sizeof script, "%s/nib.py", dir);
    if (ktio_put(script, nib_script, strlen(nib_script)) != 0) return -1;
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s %s %s %s", script, mode, dir, args);
    return system(cmd);
}

static void test_nibabel_reads_kray(void)
{
    if (!ktio_python_has("nibabel")) {
        printf("note: /usr/bin/python3 with nibabel not found; nibabel interop not run\n");
        return;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", kt_tmp("nib_w"));
    mkdir(dir, 0755);
    const char *names[] = {"u8", "i16", "u16", "f32", "f64", "c64", "c128"};
    int64_t dims[3] = {5, 4, 3};
    kr_meta m = ktio_meta(NULL);
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.meta = &m;
    char args[256] = "";
    for (int t = 0; t < 7; t++) {
        kr_array *a = ktio_make(all_types[t], 3, dims);
        char p[1200];
        snprintf(p, sizeof p, "%s/kr_%s.nii", dir, names[t]);
        snprintf(m.description, sizeof m.description, "kray %s", names[t]);
        KT_OK(kr_write(p, a, &o));
        kr_array_destroy(a);
        strcat(args, names[t]);
        strcat(args, " ");
    }
    KT_CHECK_MSG(run_python(dir, "check", args) == 0, "nibabel did not read kray's files");
    ktio_rmdir(dir);
}

static void test_kray_reads_nibabel(void)
{
    if (!ktio_python_has("nibabel")) {
        printf("note: /usr/bin/python3 with nibabel not found; nibabel interop not run\n");
        return;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", kt_tmp("nib_r"));
    mkdir(dir, 0755);
    int r = run_python(dir, "write", "");
    KT_CHECK_MSG(r == 0, "nibabel failed to write test files");
    if (r != 0) return;
    struct {
        const char *name;
        kr_dtype dtype;
        int ndim;
        int64_t dims[4];
        double sp[3], org[3], tol;
    } f[] = {
        {"u8", KR_U8, 3, {5, 4, 3}, {0.5, 0.75, 2}, {-10.5, 20.25, 3}, 0},
        {"i16", KR_I16, 3, {5, 4, 3}, {0.5, 0.75, 2}, {-10.5, 20.25, 3}, 0},
        {"u16", KR_U16, 3, {5, 4, 3}, {0.5, 0.75, 2}, {-10.5, 20.25, 3}, 0},
        {"f32", KR_F32, 3, {5, 4, 3}, {0.5, 0.75, 2}, {-10.5, 20.25, 3}, 0},
        {"f64", KR_F64, 3, {5, 4, 3}, {0.5, 0.75, 2}, {-10.5, 20.25, 3}, 0},
        {"c64", KR_C64, 3, {5, 4, 3}, {0.5, 0.75, 2}, {-10.5, 20.25, 3}, 0},
        {"c128", KR_C128, 3, {5, 4, 3}, {0.5, 0.75, 2}, {-10.5, 20.25, 3}, 0},
        {"i8", KR_I16, 3, {5, 4, 3}, {0.5, 0.75, 2}, {-10.5, 20.25, 3}, 0},
        {"i32", KR_F64, 3, {5, 4, 3}, {0.5, 0.75, 2}, {-10.5, 20.25, 3}, 0},
        {"u32", KR_F64, 3, {5, 4, 3}, {0.5, 0.75, 2}, {-10.5, 20.25, 3}, 0},
        {"scaled_i16", KR_F32, 3, {5, 4, 3}, {0.5, 0.75, 2}, {-10.5, 20.25, 3}, 1e-6},
        {"scaled_u8", KR_F32, 3, {5, 4, 3}, {0.5, 0.75, 2}, {-10.5, 20.25, 3}, 1e-6},
        {"be_f32", KR_F32, 3, {5, 4, 3}, {0.5, 0.75, 2}, {-10.5, 20.25, 3}, 0},
        {"be_scaled", KR_F32, 3, {5, 4, 3}, {0.5, 0.75, 2}, {-10.5, 20.25, 3}, 1e-6},
        {"f32_4d", KR_F32, 4, {3, 2, 2, 2}, {0.5, 0.75, 2}, {1, -2, 0.5}, 0},
        {"f32_2d", KR_F32, 2, {7, 5}, {0.5, 0.75, 0}, {-10.5, 20.25, 3}, 0},
    };
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
        char p[1200], q[1200];
        snprintf(p, sizeof p, "%s/nb_%s.nii", dir, f[k].name);
        snprintf(q, sizeof q, "%s/nb_%s.ref", dir, f[k].name);
        kr_array *a = NULL;
        kr_meta m;
        kr_status s = kr_read(p, &a, &m, NULL);
        KT_CHECK_MSG(s == KR_OK, "%s: %s", f[k].name, kr_last_error());
        if (s != KR_OK) continue;
        KT_CHECK_MSG(a->dtype == f[k].dtype, "%s: dtype %s", f[k].name, kr_dtype_name(a->dtype));
        KT_CHECK(a->ndim == f[k].ndim);
        for (int i = 0; i < f[k].ndim; i++)
            KT_CHECK(a->dims[i] == f[k].dims[i]);
        for (int i = 0; i < 3; i++) {
            KT_CHECK_MSG(m.spacing[i] == f[k].sp[i], "%s: spacing[%d] %g", f[k].name, i,
                         m.spacing[i]);
            double lps = i < 2 ? -1.0 : 1.0; /* nibabel writes RAS; kray reads LPS */
            KT_CHECK_MSG(fabs(m.origin[i] - lps * f[k].org[i]) <= 1e-12, "%s: origin[%d] %g",
                         f[k].name, i, m.origin[i]);
        }
        size_t n;
        double *ref = (double *)ktio_get(q, &n);
        int64_t ne = kr_array_numel(a);
        KT_CHECK(ref && n == (size_t)ne * 16);
        double worst = 0;
        for (int64_t i = 0; ref && i < ne; i++) {
            double re = kr_array_get_f64(a, i), im = 0;
            if (a->dtype == KR_C64) im = ((float *)a->data)[2 * i + 1];
            if (a->dtype == KR_C128) im = ((double *)a->data)[2 * i + 1];
            double e = fabs(re - ref[2 * i]) + fabs(im - ref[2 * i + 1]);
            double scale = fabs(ref[2 * i]) > 1 ? fabs(ref[2 * i]) : 1;
            if (e / scale > worst) worst = e / scale;
        }
        KT_CHECK_MSG(worst <= f[k].tol, "%s: relative error %g > %g", f[k].name, worst, f[k].tol);
        free(ref);
        kr_array_destroy(a);
    }
    ktio_rmdir(dir);
}

int main(void)
{
    KT_RUN(test_round_trip_all_types);
    KT_RUN(test_shapes_and_conversion);
    KT_RUN(test_byte_swapped);
    KT_RUN(test_scaling_units_origin);
    KT_RUN(test_widened_types);
    KT_RUN(test_bad_files);
    KT_RUN(test_atomic_writes);
    KT_RUN(test_dumb_inputs);
    KT_RUN(test_nibabel_reads_kray);
    KT_RUN(test_kray_reads_nibabel);
    return kt_finish();
}
