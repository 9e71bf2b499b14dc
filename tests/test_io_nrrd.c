/* NRRD (.nrrd): round trips (raw and gzip), hand-written headers (big-endian, gzip made here
 * with zlib, skips, detached data, complex axis, type synonyms), interoperability with Teem's
 * unu when installed, bad files, atomic writes and dumb inputs. */
#include "internal.h" /* kri_rand_sym */
#include "kt_io.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const kr_dtype all_types[] = {KR_U8, KR_I16, KR_U16, KR_F32, KR_F64, KR_C64, KR_C128};
static const char *type_names[] = {"uchar",  "short", "ushort", "float",
                                   "double", "float", "double"};

/* gzip (not zlib) stream of n bytes; returns its size */
static size_t gz(const void *src, size_t n, unsigned char *dst, size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK) return 0;
    z.next_in = (Bytef *)(uintptr_t)src;
    z.avail_in = (uInt)n;
    z.next_out = dst;
    z.avail_out = (uInt)cap;
    int r = deflate(&z, Z_FINISH);
    size_t out = cap - z.avail_out;
    deflateEnd(&z);
    return r == Z_STREAM_END ? out : 0;
}

/* gunzip exactly `want` bytes; 0 on success */
static int gunzip(const unsigned char *src, size_t n, void *dst, size_t want)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 31) != Z_OK) return -1;
    z.next_in = (Bytef *)(uintptr_t)src;
    z.avail_in = (uInt)n;
    z.next_out = dst;
    z.avail_out = (uInt)want;
    int r = inflate(&z, Z_FINISH);
    int ok = r == Z_STREAM_END && z.avail_out == 0;
    inflateEnd(&z);
    return ok ? 0 : -1;
}

static void test_round_trip(void)
{
    int64_t dims[3] = {5, 4, 3};
    kr_meta m = ktio_meta("kray test");
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.meta = &m;
    const char *p = kt_tmp("rt.nrrd");
    for (int gzip = 0; gzip <= 1; gzip++)
        for (size_t t = 0; t < sizeof all_types / sizeof all_types[0]; t++) {
            int cplx = kr_dtype_is_complex(all_types[t]);
            kr_array *a = ktio_make(all_types[t], 3, dims);
            o.nrrd_gzip = gzip;
            KT_OK(kr_write(p, a, &o));
            KT_CHECK(ktio_temp_files(p) == 0);
            size_t n;
            char *h = (char *)ktio_get(p, &n);
            KT_CHECK(h && strncmp(h, "NRRD0004\n", 9) == 0);
            char *end = h ? strstr(h, "\n\n") : NULL;
            KT_CHECK(end != NULL);
            if (end) {
                end[1] = 0;
                char want[200];
                snprintf(want, sizeof want, "\ntype: %s\n", type_names[t]);
                KT_CHECK(strstr(h, want) != NULL);
                snprintf(want, sizeof want, "\ndimension: %d\nsizes: %s5 4 3\n", 3 + cplx,
                         cplx ? "2 " : "");
                KT_CHECK(strstr(h, want) != NULL);
                KT_CHECK((strstr(h, "\nkinds: complex domain domain domain\n") != NULL) == cplx);
                KT_CHECK(strstr(h, gzip ? "\nencoding: gzip\n" : "\nencoding: raw\n") != NULL);
                KT_CHECK(strstr(h, "\nendian: little\n") != NULL);
                KT_CHECK(strstr(h, "\ncontent: kray test\n") != NULL);
                KT_CHECK(strstr(h, "\nspace dimension: 3\n") != NULL);
                snprintf(want, sizeof want,
                         "\nspace directions: %s(0.75,0,0) (0,1.25,0) (0,0,2.5)\n",
                         cplx ? "none " : "");
                KT_CHECK(strstr(h, want) != NULL);
                KT_CHECK(strstr(h, "\nspace origin: (-10.5,20.25,3)\n") != NULL);
                const unsigned char *d = (unsigned char *)end + 2;
                size_t dn = n - (size_t)((char *)d - h), bytes = kr_array_bytes(a);
                if (gzip) {
                    unsigned char *u = malloc(bytes);
                    KT_CHECK(gunzip(d, dn, u, bytes) == 0 && memcmp(u, a->data, bytes) == 0);
                    free(u);
                } else {
                    KT_CHECK(dn == bytes && memcmp(d, a->data, bytes) == 0);
                }
            }
            free(h);
            char label[64];
            snprintf(label, sizeof label, "%s %s", gzip ? "gzip" : "raw",
                     kr_dtype_name(all_types[t]));
            ktio_check_read_back(p, a, &m, label);
            kr_array_destroy(a);
        }
    /* 1-D and 5-D arrays: space dimension follows ndim, axes past the third have no direction */
    int64_t d1[1] = {7}, d5[5] = {2, 3, 2, 2, 3};
    kr_array *a = ktio_make(KR_F32, 1, d1), *b = NULL;
    KT_OK(kr_write(p, a, &o));
    KT_OK(kr_read(p, &b, NULL, NULL));
    KT_CHECK(ktio_equal(a, b));
    kr_array_destroy(a);
    kr_array_destroy(b);
    a = ktio_make(KR_C64, 5, d5);
    KT_OK(kr_write(p, a, &o));
    size_t n;
    char *h = (char *)ktio_get(p, &n);
    KT_CHECK(h && strstr(h, "space directions: none (0.75,0,0) (0,1.25,0) (0,0,2.5) none none\n"));
    free(h);
    KT_OK(kr_read(p, &b, NULL, NULL));
    KT_CHECK(ktio_equal(a, b));
    kr_array_destroy(a);
    kr_array_destroy(b);
    remove(p);
}

static void test_hand_written(void)
{
    const char *p = kt_tmp("hand.nrrd");
    kr_array *a = NULL;
    kr_meta m;
    /* NRRD0001, comments, key/value pairs, big-endian "unsigned short", spacings with nan */
    unsigned char be[6] = {0x12, 0x34, 0xff, 0x00, 0x00, 0x01};
    ktio_mk(p,
            "NRRD0001\n# a comment\ntype: unsigned short\ndimension: 2\nsizes: 3 1\n"
            "spacings: 0.5 nan\nmy key:=my value\nendian: big\nencoding: raw\nthicknesses: 1 1\n\n",
            be, 6);
    KT_OK(kr_read(p, &a, &m, NULL));
    KT_CHECK(a && a->dtype == KR_U16 && a->ndim == 2 && a->dims[0] == 3);
    if (a) {
        const uint16_t *v = a->data;
        KT_CHECK(v[0] == 0x1234 && v[1] == 0xff00 && v[2] == 1);
    }
    KT_CHECK(m.spacing[0] == 0.5 && m.spacing[1] == 0 && m.origin[0] == 0);
    kr_array_destroy(a);

    /* gzip made here, big-endian doubles, complex axis, space origin, CRLF lines */
    double dv[6] = {1.5, -2.0, 0.25, 1e-300, -7.0, 3.0};
    unsigned char raw[48], z[256];
    for (int i = 0; i < 6; i++) {
        unsigned char t[8];
        memcpy(t, &dv[i], 8);
        for (int k = 0; k < 8; k++)
            raw[8 * i + k] = t[7 - k];
    }
    size_t zn = gz(raw, 48, z, sizeof z);
    KT_CHECK(zn > 0);
    ktio_mk(p,
            "NRRD0005\r\ntype: double\r\ndimension: 2\r\nspace: left-posterior-superior\r\n"
            "sizes: 2 3\r\nkinds: complex space\r\nspace directions: none (0,0,-4)\r\n"
            "space origin: (1.5,-2,3)\r\nendian: big\r\nencoding: gzip\r\n\r\n",
            z, zn);
    KT_OK(kr_read(p, &a, &m, NULL));
    KT_CHECK(a && a->dtype == KR_C128 && a->ndim == 1 && a->dims[0] == 3);
    if (a) KT_CHECK(memcmp(a->data, dv, 48) == 0);
    KT_CHECK(m.spacing[0] == 4 && m.origin[0] == 1.5 && m.origin[1] == -2 && m.origin[2] == 3);
    kr_array_destroy(a);

    /* line skip and byte skip in attached data; byte skip -1 */
    signed char sc[4] = {-128, -1, 0, 127};
    unsigned char buf[64];
    memcpy(buf, "junk line\nmore\nXYZ", 18);
    memcpy(buf + 18, sc, 4);
    ktio_mk(p,
            "NRRD0004\ntype: signed char\ndimension: 1\nsizes: 4\nencoding: raw\nline skip: 2\n"
            "byte skip: 3\n\n",
            buf, 22);
    KT_OK(kr_read(p, &a, NULL, NULL));
    KT_CHECK(a && a->dtype == KR_I16 && ((int16_t *)a->data)[0] == -128 &&
             ((int16_t *)a->data)[3] == 127);
    kr_array_destroy(a);
    ktio_mk(p, "NRRD0004\ntype: int8\ndimension: 1\nsizes: 4\nencoding: raw\nbyte skip: -1\n\n",
            buf,
            22);
    KT_OK(kr_read(p, &a, NULL, NULL));
    KT_CHECK(a && ((int16_t *)a->data)[1] == -1);
    kr_array_destroy(a);

    /* int32_t / uint -> f64 */
    int32_t iv[2] = {-2000000000, 9};
    ktio_mk(p, "NRRD0004\ntype: int32_t\ndimension: 1\nsizes: 2\nendian: little\nencoding: raw\n\n",
            iv,
            8);
    KT_OK(kr_read(p, &a, NULL, NULL));
    KT_CHECK(a && a->dtype == KR_F64 && ((double *)a->data)[0] == -2000000000.0);
    kr_array_destroy(a);
    uint32_t uv[2] = {4000000000u, 9};
    ktio_mk(p, "NRRD0004\ntype: uint\ndimension: 1\nsizes: 2\nendian: little\nencoding: gz\n\n", z,
            gz(uv, 8, z, sizeof z));
    KT_OK(kr_read(p, &a, NULL, NULL));
    KT_CHECK(a && a->dtype == KR_F64 && ((double *)a->data)[0] == 4000000000.0);
    kr_array_destroy(a);
    remove(p);

    /* detached data file (relative to the header's folder), with line skip */
    char dir[1024], hp[1200], dp[1200];
    snprintf(dir, sizeof dir, "%s", kt_tmp("nrrd_det"));
    mkdir(dir, 0755);
    snprintf(hp, sizeof hp, "%s/h.nrrd", dir);
    snprintf(dp, sizeof dp, "%s/d.raw", dir);
    float fv[3] = {1.0f, -2.5f, 1e30f};
    unsigned char fb[32];
    memcpy(fb, "header line\n", 12);
    memcpy(fb + 12, fv, 12);
    KT_CHECK(ktio_put(dp, fb, 24) == 0);
    ktio_mk(hp,
            "NRRD0004\ntype: float\ndimension: 1\nsizes: 3\nendian: little\nencoding: raw\n"
            "line skip: 1\ndata file: d.raw",
            NULL, 0); /* detached headers may end at the end of the file, without a newline */
    KT_OK(kr_read(hp, &a, NULL, NULL));
    KT_CHECK(a && a->dtype == KR_F32 && memcmp(a->data, fv, 12) == 0);
    kr_array_destroy(a);
    ktio_mk(hp,
            "NRRD0004\ntype: float\ndimension: 1\nsizes: 4\nendian: little\nencoding: raw\n"
            "line skip: 1\ndata file: d.raw\n\n",
            NULL, 0);
    KTIO_READ_FAILS(hp, KR_ERR_FORMAT, "promises");
    ktio_mk(hp,
            "NRRD0004\ntype: float\ndimension: 1\nsizes: 1\nendian: little\nencoding: raw\n"
            "line skip: 3\ndata file: d.raw\n\n",
            NULL, 0);
    KTIO_READ_FAILS(hp, KR_ERR_FORMAT, "line skip");
    ktio_mk(hp,
            "NRRD0004\ntype: float\ndimension: 1\nsizes: 3\nendian: little\nencoding: raw\n"
            "data file: gone.raw\n\n",
            NULL, 0);
    KTIO_READ_FAILS(hp, KR_ERR_IO, "data file");
    ktio_mk(hp,
            "NRRD0004\ntype: float\ndimension: 1\nsizes: 3\nendian: little\nencoding: raw\n"
            "data file: LIST\n\n",
            NULL, 0);
    KTIO_READ_FAILS(hp, KR_ERR_NOT_SUPPORTED, "LIST");
    ktio_mk(hp,
            "NRRD0004\ntype: float\ndimension: 1\nsizes: 3\nendian: little\nencoding: raw\n"
            "data file: d%03d.raw 1 3 1\n\n",
            NULL, 0);
    KTIO_READ_FAILS(hp, KR_ERR_NOT_SUPPORTED, "data file");
    ktio_rmdir(dir);
}

static void test_bad_files(void)
{
    const char *p = kt_tmp("bad.nrrd");
    unsigned char data[64] = {0};
    unsigned char z[128];
    size_t zn = gz(data, 16, z, sizeof z);
#define H "NRRD0004\n"
    struct {
        const char *hdr, *what;
        kr_status st;
        int gzdata; /* 1: gzip of 16 zero bytes, 2: half of it, 3: garbage */
    } c[] = {
        {"NRRX0004\ntype: uchar\ndimension: 1\nsizes: 2\nencoding: raw\n\n", "NRRD000",
         KR_ERR_FORMAT, 0},
        {"NRRD0006\ntype: uchar\ndimension: 1\nsizes: 2\nencoding: raw\n\n", "version",
         KR_ERR_FORMAT, 0},
        {"NRRD0000\ntype: uchar\ndimension: 1\nsizes: 2\nencoding: raw\n\n", "version",
         KR_ERR_FORMAT, 0},
        {H "dimension: 1\nsizes: 2\nencoding: raw\n\n", "'type'", KR_ERR_FORMAT, 0},
        {H "type: uchar\nsizes: 2\nencoding: raw\n\n", "'dimension'", KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension: 1\nencoding: raw\n\n", "'sizes'", KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension: 1\nsizes: 2\n\n", "'encoding'", KR_ERR_FORMAT, 0},
        {H "type: float\ndimension: 1\nsizes: 2\nencoding: raw\n\n", "'endian'", KR_ERR_FORMAT, 0},
        {H "type: float\ndimension: 1\nsizes: 2\nendian: middle\nencoding: raw\n\n", "'endian'",
         KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension: 2\nsizes: 2\nencoding: raw\n\n", "'sizes'", KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension: 1\nsizes: 0\nencoding: raw\n\n", "sizes", KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension: 1\nsizes: -3\nencoding: raw\n\n", "sizes", KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension: 1\nsizes: 3e\nencoding: raw\n\n", "'sizes'", KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension: 3\nsizes: 2097152 2097152 2\nencoding: raw\n\n", "2^40",
         KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension: 2\nsizes: 9000000000000000000 9000000000000000000\n"
           "encoding: raw\n\n",
         "2^40", KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension: 2\nsizes: 1000 1000\nencoding: raw\n\n", "promises",
         KR_ERR_FORMAT, 0},
        /* 2^40 doubles (8 TiB): refused from the file size, never allocated */
        {H "type: double\ndimension: 2\nsizes: 1048576 1048576\nendian: little\nencoding: raw\n\n",
         "promises", KR_ERR_FORMAT, 0},
        {H "type: double\ndimension: 2\nsizes: 1048576 1048576\nendian: little\n"
           "encoding: gzip\n\n",
         "cannot hold", KR_ERR_FORMAT, 1},
        {H "type: uchar\ndimension: 0\nsizes: 2\nencoding: raw\n\n", "'dimension'", KR_ERR_FORMAT,
         0},
        {H "type: uchar\ndimension: 17\nsizes: 2\nencoding: raw\n\n", "'dimension'", KR_ERR_FORMAT,
         0},
        {H "type: block\ndimension: 1\nsizes: 2\nencoding: raw\n\n", "'type'", KR_ERR_FORMAT, 0},
        {H "type: int64\ndimension: 1\nsizes: 2\nendian: little\nencoding: raw\n\n", "'type'",
         KR_ERR_FORMAT, 0},
        {H "type: quaternion\ndimension: 1\nsizes: 2\nencoding: raw\n\n", "'type'", KR_ERR_FORMAT,
         0},
        {H "type: uchar\ndimension: 1\nsizes: 2\nencoding: ascii\n\n", "ascii",
         KR_ERR_NOT_SUPPORTED, 0},
        {H "type: uchar\ndimension: 1\nsizes: 2\nencoding: hex\n\n", "hex", KR_ERR_NOT_SUPPORTED,
         0},
        {H "type: uchar\ndimension: 1\nsizes: 2\nencoding: bzip2\n\n", "bzip2",
         KR_ERR_NOT_SUPPORTED, 0},
        {H "type: uchar\ndimension: 1\nsizes: 2\nencoding: zip\n\n", "'encoding'", KR_ERR_FORMAT,
         0},
        {H "type: uchar\ndimension: 1\nsizes: 2\nspacings: inf\nencoding: raw\n\n", "'spacings'",
         KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension: 2\nsizes: 2 2\nspacings: 1\nencoding: raw\n\n", "'spacings'",
         KR_ERR_FORMAT, 0},
        {H "type: uchar\nspacings: 1\ndimension: 1\nsizes: 2\nencoding: raw\n\n", "'spacings'",
         KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension: 1\nsizes: 2\nspace dimension: 2\nspace origin: (0,nan)\n"
           "encoding: raw\n\n",
         "'space origin'", KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension: 1\nsizes: 2\nspace origin: (0,0,0)\nencoding: raw\n\n",
         "'space origin'", KR_ERR_FORMAT, 0},
        {H
         "type: uchar\ndimension: 1\nsizes: 2\nspace: RAS\nspace origin: (0,0)\nencoding: raw\n\n",
         "'space origin'", KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension: 1\nsizes: 2\nspace: RAS\nspace directions: (1,0,inf)\n"
           "encoding: raw\n\n",
         "'space directions'", KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension: 2\nsizes: 2 2\nspace: RAS\nspace directions: (1,0,0)\n"
           "encoding: raw\n\n",
         "'space directions'", KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension: 1\nsizes: 2\nspace: RAS\nspace directions: 1,0,0\n"
           "encoding: raw\n\n",
         "'space directions'", KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension: 1\nsizes: 2\nspace: ZZZ\nencoding: raw\n\n", "'space'",
         KR_ERR_FORMAT, 0},
        {H "type: float\ndimension: 2\nsizes: 3 2\nkinds: complex domain\nendian: little\n"
           "encoding: raw\n\n",
         "complex", KR_ERR_FORMAT, 0},
        {H "type: short\ndimension: 2\nsizes: 2 2\nkinds: complex domain\nendian: little\n"
           "encoding: raw\n\n",
         "complex", KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension 1\nsizes: 2\nencoding: raw\n\n", "line 3", KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension: 1\nsizes: 2\nencoding: raw\n", "blank line", KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension: 1\nsizes: 2\nbyte skip: -2\nencoding: raw\n\n", "'byte skip'",
         KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension: 1\nsizes: 2\nline skip: 99\nencoding: raw\n\n", "line skip",
         KR_ERR_FORMAT, 0},
        {H "type: uchar\ndimension: 1\nsizes: 16\nbyte skip: 1\nencoding: gzip\n\n", "byte skip",
         KR_ERR_NOT_SUPPORTED, 1},
        {H "type: uchar\ndimension: 1\nsizes: 17\nencoding: gzip\n\n", "promises", KR_ERR_FORMAT,
         1},
        {H "type: uchar\ndimension: 1\nsizes: 15\nencoding: gzip\n\n", "more than", KR_ERR_FORMAT,
         1},
        {H "type: uchar\ndimension: 1\nsizes: 16\nencoding: gzip\n\n", "truncated", KR_ERR_FORMAT,
         2},
        {H "type: uchar\ndimension: 1\nsizes: 16\nencoding: gzip\n\n", "gzip", KR_ERR_FORMAT, 3},
    };
#undef H
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        if (c[k].gzdata == 1)
            ktio_mk(p, c[k].hdr, z, zn);
        else if (c[k].gzdata == 2)
            ktio_mk(p, c[k].hdr, z, zn / 2);
        else if (c[k].gzdata == 3)
            ktio_mk(p, c[k].hdr, "\x1f\x8b\x08\x00garbage-garbage-garbage", 28);
        else
            ktio_mk(p, c[k].hdr, data, 8);
        kr_array *a = NULL;
        kr_status s = kr_read(p, &a, NULL, NULL);
        KT_CHECK_MSG(s == c[k].st, "case %zu (%s): got %s (%s)", k, c[k].what, kr_status_string(s),
                     kr_last_error());
        KT_CHECK(a == NULL);
        KTIO_ERR_NAMES(p, c[k].what);
    }
    /* empty file, binary garbage, data cut short */
    KT_CHECK(ktio_put(p, "", 0) == 0);
    KTIO_READ_FAILS(p, KR_ERR_FORMAT, "NRRD");
    unsigned char g[40];
    for (int i = 0; i < 40; i++)
        g[i] = (unsigned char)(i * 53 + 1);
    KT_CHECK(ktio_put(p, g, sizeof g) == 0);
    KTIO_READ_FAILS(p, KR_ERR_FORMAT, "NRRD");
    ktio_mk(p, "NRRD0004\ntype: double\ndimension: 1\nsizes: 8\nendian: little\nencoding: raw\n\n",
            data,
            63);
    KTIO_READ_FAILS(p, KR_ERR_FORMAT, "promises");
    remove(p);
}

static void test_atomic_and_dumb(void)
{
    const char *p = kt_tmp("at.nrrd");
    int64_t big[3] = {64, 64, 16}, small[1] = {3};
    kr_array *a = ktio_make(KR_F32, 3, big), *b = ktio_make(KR_U8, 1, small), *r = NULL;
    KT_OK(kr_write(p, a, NULL));
    long big_size = ktio_size(p);
    KT_CHECK(big_size > 64 * 64 * 16 * 4);
    KT_OK(kr_write(p, b, NULL));
    KT_CHECK(ktio_size(p) < 400);
    KT_OK(kr_read(p, &r, NULL, NULL));
    KT_CHECK(ktio_equal(r, b));
    kr_array_destroy(r);
    kr_io_opts o;
    kr_io_opts_default(&o);
    for (int gzip = 0; gzip <= 1; gzip++) {
        kr_status s = KR_OK;
        o.nrrd_gzip = gzip;
        /* random data does not compress: the gzip write fails part way too */
        for (int64_t i = 0; i < kr_array_numel(a); i++)
            ((float *)a->data)[i] = (float)kri_rand_sym(7, (uint64_t)i);
        KTIO_WITH_FSIZE_LIMIT(100000, s = kr_write(p, a, &o));
        KT_CHECK(s == KR_ERR_IO);
        KTIO_ERR_NAMES(p, NULL);
        KT_CHECK(ktio_temp_files(p) == 0);
        KT_OK(kr_read(p, &r, NULL, NULL));
        KT_CHECK(ktio_equal(r, b));
        kr_array_destroy(r);
    }
    remove(p);
    KT_STATUS(kr_write(kt_tmp("none/x.nrrd"), b, NULL), KR_ERR_IO);
    kr_io_opts_default(&o);
    o.write_dtype = (kr_dtype)42;
    KT_STATUS(kr_write(p, b, &o), KR_ERR_DTYPE);
    kr_io_opts_default(&o);
    kr_meta m;
    memset(&m, 0, sizeof m);
    m.spacing[0] = NAN;
    o.meta = &m;
    KT_STATUS(kr_write(p, b, &o), KR_ERR_INVALID_ARG);
    KTIO_ERR_NAMES(p, "spacing");
    int64_t d16[16] = {2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2};
    kr_array *c = ktio_make(KR_C64, 16, d16);
    KT_STATUS(kr_write(p, c, NULL), KR_ERR_DIM); /* 16 dims + the complex axis */
    KT_CHECK(!ktio_exists(p));
    KT_STATUS(kr_read(p, NULL, NULL, NULL), KR_ERR_INVALID_ARG);
    KTIO_READ_FAILS(p, KR_ERR_IO, NULL);
    kr_array_destroy(a);
    kr_array_destroy(b);
    kr_array_destroy(c);
}

/* ---- Teem's unu ----------------------------------------------------------------------------- */
static const char *unu(void)
{
    if (system("command -v teem-unu >/dev/null 2>&1") == 0) return "teem-unu";
    if (system("command -v unu >/dev/null 2>&1") == 0) return "unu";
    return NULL;
}

static void test_unu_interop(void)
{
    const char *u = unu();
    if (!u) {
        printf("note: Teem's unu (Debian teem-apps) not found; NRRD interop not run\n");
        return;
    }
    char dir[1024], cmd[4096], p[1200], q[1200], t[1200];
    snprintf(dir, sizeof dir, "%s", kt_tmp("unu"));
    mkdir(dir, 0755);
    int64_t dims[3] = {5, 4, 3};
    kr_meta m = ktio_meta("kray test");
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.meta = &m;
    const kr_dtype types[] = {KR_U16, KR_F32, KR_F64, KR_C64};
    for (int k = 0; k < 4; k++) {
        kr_array *a = ktio_make(types[k], 3, dims), *b = NULL;
        o.nrrd_gzip = k % 2;
        snprintf(p, sizeof p, "%s/kr.nrrd", dir);
        snprintf(q, sizeof q, "%s/unu.nrrd", dir);
        snprintf(t, sizeof t, "%s/v.txt", dir);
        KT_OK(kr_write(p, a, &o));
        /* unu decodes kray's file: values as text */
        int64_t ns = kr_array_numel(a) * (kr_dtype_is_complex(types[k]) ? 2 : 1);
        snprintf(cmd, sizeof cmd,
                 "%s reshape -s %lld -i %s 2>/dev/null | %s save -f text -o %s 2>/dev/null", u,
                 (long long)ns, p, u, t);
        KT_CHECK_MSG(system(cmd) == 0, "unu could not read kray's %s NRRD",
                     kr_dtype_name(types[k]));
        size_t n;
        char *txt = (char *)ktio_get(t, &n);
        KT_CHECK(txt != NULL);
        const char *s = txt;
        double worst = 0;
        int64_t got = 0;
        for (int64_t i = 0; txt && i < ns; i++) {
            char *e;
            double v = strtod(s, &e);
            if (e == s) break;
            s = e;
            got++;
            double ref =
                kr_dtype_is_complex(types[k]) ? ((float *)a->data)[i] : kr_array_get_f64(a, i);
            double err = fabs(v - ref) / (fabs(ref) > 1 ? fabs(ref) : 1);
            if (err > worst) worst = err;
        }
        KT_CHECK_MSG(got == ns, "unu printed %lld of %lld values", (long long)got, (long long)ns);
        KT_LE(worst, 1e-6); /* unu prints about 8 significant digits */
        free(txt);
        /* unu re-encodes (raw, big-endian) keeping kray's axis information; kray reads it */
        snprintf(cmd, sizeof cmd, "%s save -f nrrd -e raw -en big -i %s -o %s 2>/dev/null", u, p,
                 q);
        KT_CHECK(system(cmd) == 0);
        kr_meta r;
        KT_OK(kr_read(q, &b, &r, NULL));
        KT_CHECK_MSG(ktio_equal(a, b), "unu's copy of %s differs", kr_dtype_name(types[k]));
        for (int i = 0; i < 3; i++)
            KT_CHECK(r.spacing[i] == m.spacing[i] && r.origin[i] == m.origin[i]);
        kr_array_destroy(a);
        kr_array_destroy(b);
    }
    /* unu makes files from raw samples: gzip, big-endian, spacings */
    int64_t d2[2] = {6, 5};
    kr_array *a = ktio_make(KR_I16, 2, d2), *b = NULL;
    snprintf(t, sizeof t, "%s/s.bin", dir);
    KT_CHECK(ktio_put(t, a->data, kr_array_bytes(a)) == 0);
    snprintf(cmd, sizeof cmd,
             "%s make -i %s -t short -s 6 5 -e raw -en little -sp 0.5 2 -c made-by-unu "
             "2>/dev/null | %s save -f nrrd -e gzip -en big -o %s 2>/dev/null",
             u, t, u, q);
    KT_CHECK(system(cmd) == 0);
    kr_meta r;
    KT_OK(kr_read(q, &b, &r, NULL));
    KT_CHECK(ktio_equal(a, b));
    KT_CHECK(r.spacing[0] == 0.5 && r.spacing[1] == 2 && r.spacing[2] == 0);
    KT_CHECK(strcmp(r.description, "made-by-unu") == 0);
    kr_array_destroy(a);
    kr_array_destroy(b);
    ktio_rmdir(dir);
}

int main(void)
{
    KT_RUN(test_round_trip);
    KT_RUN(test_hand_written);
    KT_RUN(test_bad_files);
    KT_RUN(test_atomic_and_dumb);
    KT_RUN(test_unu_interop);
    return kt_finish();
}
