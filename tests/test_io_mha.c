/* MetaImage (.mha / .mhd + .raw): round trips, hand-written headers (MSB byte order, zlib
 * compressed data made here with zlib, detached data with HeaderSize), bad files, atomic writes
 * and dumb inputs. */
#include "kt_io.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const kr_dtype all_types[] = {KR_U8, KR_I16, KR_U16, KR_F32, KR_F64, KR_C64, KR_C128};
static const char *met_names[] = {"MET_UCHAR",  "MET_SHORT", "MET_USHORT", "MET_FLOAT",
                                  "MET_DOUBLE", "MET_FLOAT", "MET_DOUBLE"};

static void test_round_trip(void)
{
    int64_t dims[3] = {5, 4, 3};
    kr_meta m = ktio_meta("kray test");
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.meta = &m;
    for (int det = 0; det <= 1; det++)
        for (size_t t = 0; t < sizeof all_types / sizeof all_types[0]; t++) {
            kr_array *a = ktio_make(all_types[t], 3, dims);
            const char *p = kt_tmp(det ? "rt.mhd" : "rt.mha");
            const char *raw = kt_tmp("rt.raw");
            KT_OK(kr_write(p, a, &o));
            KT_CHECK(ktio_temp_files(p) == 0 && ktio_temp_files(raw) == 0);
            size_t n;
            char *h = (char *)ktio_get(p, &n);
            KT_CHECK(h != NULL);
            if (h) {
                char want[128];
                snprintf(want, sizeof want, "ElementType = %s\n", met_names[t]);
                KT_CHECK(strstr(h, want) != NULL);
                KT_CHECK(strstr(h, "ObjectType = Image\nNDims = 3\n") == h);
                KT_CHECK(strstr(h, "\nDimSize = 5 4 3\n") != NULL);
                KT_CHECK(strstr(h, "\nElementSpacing = 0.75 1.25 2.5\n") != NULL);
                KT_CHECK(strstr(h, "\nOffset = -10.5 20.25 3\n") != NULL);
                KT_CHECK(strstr(h, "\nBinaryDataByteOrderMSB = False\n") != NULL);
                KT_CHECK(strstr(h, "\nComment = kray test\n") != NULL);
                KT_CHECK((strstr(h, "ElementNumberOfChannels = 2\n") != NULL) ==
                         kr_dtype_is_complex(all_types[t]));
                const char *df = det ? "ElementDataFile = kt_" : "ElementDataFile = LOCAL\n";
                char *e = strstr(h, df);
                KT_CHECK(e != NULL);
                if (det) {
                    KT_CHECK(e && strstr(e, "_rt.raw\n") != NULL);
                    KT_CHECK(n == (size_t)(strchr(e, '\n') + 1 - h)); /* header only */
                    size_t rn;
                    unsigned char *r = ktio_get(raw, &rn);
                    KT_CHECK(r && rn == kr_array_bytes(a) &&
                             memcmp(r, a->data, kr_array_bytes(a)) == 0);
                    free(r);
                } else if (e) {
                    size_t hl = (size_t)(e - h) + strlen(df);
                    KT_CHECK(n == hl + kr_array_bytes(a));
                    KT_CHECK(n >= hl && memcmp(h + hl, a->data, kr_array_bytes(a)) == 0);
                }
                free(h);
            }
            char label[64];
            snprintf(label, sizeof label, "%s %s", det ? "mhd" : "mha",
                     kr_dtype_name(all_types[t]));
            ktio_check_read_back(p, a, &m, label);
            kr_array_destroy(a);
            remove(p);
            remove(raw);
        }
}

static void test_hand_written(void)
{
    const char *p = kt_tmp("hand.mha");
    kr_array *a = NULL;
    kr_meta m;
    /* big-endian shorts, CRLF lines, unknown keys, 2-D, keys in other case */
    unsigned char be[8] = {0xff, 0xfe, 0x00, 0x01, 0x7f, 0xff, 0x80, 0x00};
    ktio_mk(p,
            "ObjectType = Image\r\nNDims = 2\r\nTransformMatrix = 1 0 0 1\r\nFooBar = 3\r\n"
            "AnatomicalOrientation = RAI\r\nelementspacing = 0.5 4\r\nPosition = 1 -2\r\n"
            "DimSize = 2 2\r\nBinaryData = True\r\nBinaryDataByteOrderMSB = True\r\n"
            "ElementType = MET_SHORT\r\nElementDataFile = LOCAL\r\n",
            be, 8);
    KT_OK(kr_read(p, &a, &m, NULL));
    KT_CHECK(a && a->dtype == KR_I16 && a->ndim == 2 && a->dims[0] == 2 && a->dims[1] == 2);
    if (a) {
        const int16_t *v = a->data;
        KT_CHECK(v[0] == -2 && v[1] == 1 && v[2] == 32767 && v[3] == -32768);
    }
    KT_CHECK(m.spacing[0] == 0.5 && m.spacing[1] == 4 && m.spacing[2] == 0);
    KT_CHECK(m.origin[0] == 1 && m.origin[1] == -2 && m.origin[2] == 0);
    kr_array_destroy(a);

    /* ElementByteOrderMSB, unsigned short */
    unsigned char us[4] = {0x12, 0x34, 0xff, 0x00};
    ktio_mk(p,
            "NDims = 1\nDimSize = 2\nElementByteOrderMSB = True\nElementType = MET_USHORT\n"
            "ElementDataFile = LOCAL\n",
            us, 4);
    KT_OK(kr_read(p, &a, NULL, NULL));
    KT_CHECK(a && a->dtype == KR_U16 && ((uint16_t *)a->data)[0] == 0x1234 &&
             ((uint16_t *)a->data)[1] == 0xff00);
    kr_array_destroy(a);

    /* widened types: MET_CHAR -> i16, MET_INT / MET_UINT -> f64 */
    signed char c[3] = {-128, 5, 127};
    ktio_mk(p, "NDims = 1\nDimSize = 3\nElementType = MET_CHAR\nElementDataFile = LOCAL\n", c, 3);
    KT_OK(kr_read(p, &a, NULL, NULL));
    KT_CHECK(a && a->dtype == KR_I16 && ((int16_t *)a->data)[0] == -128 &&
             ((int16_t *)a->data)[2] == 127);
    kr_array_destroy(a);
    int32_t iv[2] = {-2000000000, 7};
    ktio_mk(p, "NDims = 1\nDimSize = 2\nElementType = MET_INT\nElementDataFile = LOCAL\n", iv, 8);
    KT_OK(kr_read(p, &a, NULL, NULL));
    KT_CHECK(a && a->dtype == KR_F64 && ((double *)a->data)[0] == -2000000000.0);
    kr_array_destroy(a);
    uint32_t uv[2] = {4000000000u, 7};
    ktio_mk(p, "NDims = 1\nDimSize = 2\nElementType = MET_UINT\nElementDataFile = LOCAL\n", uv, 8);
    KT_OK(kr_read(p, &a, NULL, NULL));
    KT_CHECK(a && a->dtype == KR_F64 && ((double *)a->data)[0] == 4000000000.0);
    kr_array_destroy(a);

    /* complex: 2 channels of MET_DOUBLE, big-endian */
    unsigned char cd[32];
    double dv[4] = {1.5, -2.25, 1e300, -0.0};
    for (int i = 0; i < 4; i++) {
        unsigned char t[8];
        memcpy(t, &dv[i], 8);
        for (int k = 0; k < 8; k++)
            cd[8 * i + k] = t[7 - k];
    }
    ktio_mk(p,
            "NDims = 1\nDimSize = 2\nElementNumberOfChannels = 2\nBinaryDataByteOrderMSB = True\n"
            "ElementType = MET_DOUBLE\nElementDataFile = LOCAL\n",
            cd, 32);
    KT_OK(kr_read(p, &a, NULL, NULL));
    KT_CHECK(a && a->dtype == KR_C128 && a->ndim == 1 && a->dims[0] == 2);
    if (a) KT_CHECK(memcmp(a->data, dv, 32) == 0);
    kr_array_destroy(a);
    remove(p);
}

static void test_compressed(void)
{
    const char *p = kt_tmp("z.mha");
    float v[300];
    for (int i = 0; i < 300; i++)
        v[i] = (float)(i % 17) * 0.5f - 2.0f;
    unsigned char z[4096];
    uLongf zn = sizeof z;
    KT_CHECK(compress2(z, &zn, (const Bytef *)v, sizeof v, 6) == Z_OK);
    char hdr[512];
    kr_array *a = NULL;
    for (int with_size = 0; with_size <= 1; with_size++) {
        char sizeline[64] = "";
        if (with_size)
            snprintf(sizeline, sizeof sizeline, "CompressedDataSize = %lu\n", (unsigned long)zn);
        snprintf(hdr, sizeof hdr,
                 "ObjectType = Image\nNDims = 3\nDimSize = 10 10 3\nCompressedData = True\n"
                 "%sElementType = MET_FLOAT\nElementDataFile = LOCAL\n",
                 sizeline);
        /* with CompressedDataSize, bytes after the stream are not read */
        memset(z + zn, 0x77, 16);
        ktio_mk(p, hdr, z, zn + (with_size ? 16 : 0));
        KT_OK(kr_read(p, &a, NULL, NULL));
        KT_CHECK(a && a->dtype == KR_F32 && kr_array_numel(a) == 300 &&
                 memcmp(a->data, v, sizeof v) == 0);
        kr_array_destroy(a);
    }
    /* the stream decompresses to less / more than DimSize promises */
    ktio_mk(p,
            "NDims = 1\nDimSize = 301\nCompressedData = True\nElementType = MET_FLOAT\n"
            "ElementDataFile = LOCAL\n",
            z, zn);
    KTIO_READ_FAILS(p, KR_ERR_FORMAT, "promises");
    ktio_mk(p,
            "NDims = 1\nDimSize = 299\nCompressedData = True\nElementType = MET_FLOAT\n"
            "ElementDataFile = LOCAL\n",
            z, zn);
    KTIO_READ_FAILS(p, KR_ERR_FORMAT, "more than");
    /* truncated and corrupt streams */
    ktio_mk(p,
            "NDims = 1\nDimSize = 300\nCompressedData = True\nElementType = MET_FLOAT\n"
            "ElementDataFile = LOCAL\n",
            z, zn / 2);
    KTIO_READ_FAILS(p, KR_ERR_FORMAT, "truncated");
    unsigned char bad[64];
    memset(bad, 0x5a, sizeof bad);
    ktio_mk(p,
            "NDims = 1\nDimSize = 300\nCompressedData = True\nElementType = MET_FLOAT\n"
            "ElementDataFile = LOCAL\n",
            bad, sizeof bad);
    KTIO_READ_FAILS(p, KR_ERR_FORMAT, "zlib");
    ktio_mk(p,
            "NDims = 1\nDimSize = 300\nCompressedData = True\nCompressedDataSize = 100000\n"
            "ElementType = MET_FLOAT\nElementDataFile = LOCAL\n",
            z, zn);
    KTIO_READ_FAILS(p, KR_ERR_FORMAT, "CompressedDataSize");
    remove(p);
}

static void test_detached(void)
{
    char dir[1024], sub[1100], hp[1200], rp[1200];
    snprintf(dir, sizeof dir, "%s", kt_tmp("mhd"));
    mkdir(dir, 0755);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    mkdir(sub, 0755);
    snprintf(hp, sizeof hp, "%s/img.mhd", dir);
    snprintf(rp, sizeof rp, "%s/sub/data.bin", dir);
    /* 16 junk bytes then 6 uint8 values; HeaderSize 16 */
    unsigned char d[22];
    for (int i = 0; i < 22; i++)
        d[i] = (unsigned char)(i < 16 ? 0xee : 10 * (i - 16));
    KT_CHECK(ktio_put(rp, d, 22) == 0);
    ktio_mk(hp,
            "ObjectType = Image\nNDims = 2\nDimSize = 3 2\nHeaderSize = 16\n"
            "ElementType = MET_UCHAR\n"
            "ElementDataFile = sub/data.bin\n",
            NULL, 0);
    kr_array *a = NULL;
    KT_OK(kr_read(hp, &a, NULL, NULL));
    KT_CHECK(a && a->dtype == KR_U8 && ((uint8_t *)a->data)[0] == 0 &&
             ((uint8_t *)a->data)[5] == 50);
    kr_array_destroy(a);
    /* HeaderSize -1: the data are the last bytes */
    ktio_mk(hp,
            "NDims = 1\nDimSize = 4\nHeaderSize = -1\nElementType = MET_UCHAR\n"
            "ElementDataFile = sub/data.bin\n",
            NULL, 0);
    KT_OK(kr_read(hp, &a, NULL, NULL));
    KT_CHECK(a && ((uint8_t *)a->data)[0] == 20 && ((uint8_t *)a->data)[3] == 50);
    kr_array_destroy(a);
    /* the data file holds less than promised, or is missing */
    ktio_mk(hp,
            "NDims = 1\nDimSize = 7\nHeaderSize = 16\nElementType = MET_UCHAR\n"
            "ElementDataFile = sub/data.bin\n",
            NULL, 0);
    KTIO_READ_FAILS(hp, KR_ERR_FORMAT, "promises");
    ktio_mk(hp,
            "NDims = 1\nDimSize = 23\nHeaderSize = -1\nElementType = MET_UCHAR\n"
            "ElementDataFile = sub/data.bin\n",
            NULL, 0);
    KTIO_READ_FAILS(hp, KR_ERR_FORMAT, "promises");
    ktio_mk(hp,
            "NDims = 1\nDimSize = 1\nHeaderSize = 23\nElementType = MET_UCHAR\n"
            "ElementDataFile = sub/data.bin\n",
            NULL, 0);
    KTIO_READ_FAILS(hp, KR_ERR_FORMAT, "HeaderSize");
    ktio_mk(hp, "NDims = 1\nDimSize = 2\nElementType = MET_UCHAR\nElementDataFile = nothere.raw\n",
            NULL,
            0);
    KTIO_READ_FAILS(hp, KR_ERR_IO, "ElementDataFile");
    ktio_mk(hp, "NDims = 1\nDimSize = 2\nElementType = MET_UCHAR\nElementDataFile = LIST\n",
            NULL, 0);
    KTIO_READ_FAILS(hp, KR_ERR_NOT_SUPPORTED, "LIST");
    ktio_mk(hp,
            "NDims = 1\nDimSize = 2\nElementType = MET_UCHAR\n"
            "ElementDataFile = s%03d.raw 1 2 1\n",
            NULL, 0);
    KTIO_READ_FAILS(hp, KR_ERR_NOT_SUPPORTED, "ElementDataFile");
    ktio_rmdir(dir);
}

static void test_bad_files(void)
{
    const char *p = kt_tmp("bad.mha");
    unsigned char data[64] = {0};
    struct {
        const char *hdr, *what;
        kr_status st;
    } c[] = {
        {"DimSize = 2\nElementType = MET_UCHAR\nElementDataFile = LOCAL\n", "NDims", KR_ERR_FORMAT},
        {"NDims = 1\nElementType = MET_UCHAR\nElementDataFile = LOCAL\n", "DimSize", KR_ERR_FORMAT},
        {"NDims = 1\nDimSize = 2\nElementDataFile = LOCAL\n", "ElementType", KR_ERR_FORMAT},
        {"NDims = 1\nDimSize = 2\nElementType = MET_UCHAR\n", "ElementDataFile", KR_ERR_FORMAT},
        {"NDims = 2\nDimSize = 2\nElementType = MET_UCHAR\nElementDataFile = LOCAL\n", "DimSize",
         KR_ERR_FORMAT},
        {"NDims = 1\nDimSize = 0\nElementType = MET_UCHAR\nElementDataFile = LOCAL\n", "DimSize",
         KR_ERR_FORMAT},
        {"NDims = 1\nDimSize = -4\nElementType = MET_UCHAR\nElementDataFile = LOCAL\n", "DimSize",
         KR_ERR_FORMAT},
        {"NDims = 1\nDimSize = 4x\nElementType = MET_UCHAR\nElementDataFile = LOCAL\n", "DimSize",
         KR_ERR_FORMAT},
        {"NDims = 1\nDimSize = 99999999999999999999\nElementType = MET_UCHAR\n"
         "ElementDataFile = LOCAL\n",
         "DimSize", KR_ERR_FORMAT},
        {"NDims = 3\nDimSize = 2097152 2097152 2\nElementType = MET_UCHAR\n"
         "ElementDataFile = LOCAL\n",
         "2^40", KR_ERR_FORMAT},
        {"NDims = 3\nDimSize = 4294967296 4294967296 4294967296\nElementType = MET_UCHAR\n"
         "ElementDataFile = LOCAL\n",
         "2^40", KR_ERR_FORMAT},
        {"NDims = 2\nDimSize = 1000 1000\nElementType = MET_UCHAR\nElementDataFile = LOCAL\n",
         "promises", KR_ERR_FORMAT},
        /* 2^40 doubles (8 TiB): refused from the file size, never allocated */
        {"NDims = 2\nDimSize = 1048576 1048576\nElementType = MET_DOUBLE\n"
         "ElementDataFile = LOCAL\n",
         "promises", KR_ERR_FORMAT},
        {"NDims = 2\nDimSize = 1048576 1048576\nCompressedData = True\nElementType = MET_DOUBLE\n"
         "ElementDataFile = LOCAL\n",
         "cannot hold", KR_ERR_FORMAT},
        {"NDims = 0\nDimSize = 2\nElementType = MET_UCHAR\nElementDataFile = LOCAL\n", "NDims",
         KR_ERR_FORMAT},
        {"NDims = 17\nDimSize = 2\nElementType = MET_UCHAR\nElementDataFile = LOCAL\n", "NDims",
         KR_ERR_FORMAT},
        {"NDims = two\nDimSize = 2\nElementType = MET_UCHAR\nElementDataFile = LOCAL\n", "NDims",
         KR_ERR_FORMAT},
        {"NDims = 1\nDimSize = 2\nElementType = MET_LONG\nElementDataFile = LOCAL\n", "ElementType",
         KR_ERR_FORMAT},
        {"NDims = 1\nDimSize = 2\nElementType = MET_FOO\nElementDataFile = LOCAL\n", "ElementType",
         KR_ERR_FORMAT},
        {"NDims = 1\nDimSize = 2\nElementSpacing = nan\nElementType = MET_UCHAR\n"
         "ElementDataFile = LOCAL\n",
         "ElementSpacing", KR_ERR_FORMAT},
        {"NDims = 1\nDimSize = 2\nElementSpacing = 0\nElementType = MET_UCHAR\n"
         "ElementDataFile = LOCAL\n",
         "ElementSpacing", KR_ERR_FORMAT},
        {"NDims = 2\nDimSize = 2 2\nElementSpacing = 1,2\nElementType = MET_UCHAR\n"
         "ElementDataFile = LOCAL\n",
         "ElementSpacing", KR_ERR_FORMAT},
        {"NDims = 2\nDimSize = 2 2\nElementSpacing = 1 2 3\nElementType = MET_UCHAR\n"
         "ElementDataFile = LOCAL\n",
         "ElementSpacing", KR_ERR_FORMAT},
        {"NDims = 2\nDimSize = 2 2\nOffset = 0 inf\nElementType = MET_UCHAR\n"
         "ElementDataFile = LOCAL\n",
         "Offset", KR_ERR_FORMAT},
        {"NDims = 2\nDimSize = 2 2\nOffset = 0 NaN\nElementType = MET_UCHAR\n"
         "ElementDataFile = LOCAL\n",
         "Offset", KR_ERR_FORMAT},
        {"NDims = 1\nDimSize = 2\nBinaryDataByteOrderMSB = Maybe\nElementType = MET_SHORT\n"
         "ElementDataFile = LOCAL\n",
         "BinaryDataByteOrderMSB", KR_ERR_FORMAT},
        {"NDims = 1\nDimSize = 2\nBinaryDataByteOrderMSB = True\nElementByteOrderMSB = False\n"
         "ElementType = MET_SHORT\nElementDataFile = LOCAL\n",
         "disagree", KR_ERR_FORMAT},
        {"NDims = 1\nDimSize = 2\nElementNumberOfChannels = 3\nElementType = MET_FLOAT\n"
         "ElementDataFile = LOCAL\n",
         "ElementNumberOfChannels", KR_ERR_FORMAT},
        {"NDims = 1\nDimSize = 2\nElementNumberOfChannels = 2\nElementType = MET_SHORT\n"
         "ElementDataFile = LOCAL\n",
         "ElementNumberOfChannels", KR_ERR_FORMAT},
        {"NDims = 1\nDimSize = 2\nCompressedData = yes\nElementType = MET_SHORT\n"
         "ElementDataFile = LOCAL\n",
         "CompressedData", KR_ERR_FORMAT},
        {"NDims = 1\nDimSize = 2\nHeaderSize = -2\nElementType = MET_SHORT\n"
         "ElementDataFile = LOCAL\n",
         "HeaderSize", KR_ERR_FORMAT},
        {"ObjectType = Mesh\nNDims = 1\nDimSize = 2\nElementType = MET_UCHAR\n"
         "ElementDataFile = LOCAL\n",
         "ObjectType", KR_ERR_FORMAT},
        {"NDims 1\nDimSize = 2\nElementType = MET_UCHAR\nElementDataFile = LOCAL\n", "line 1",
         KR_ERR_FORMAT},
        {"", "ElementDataFile", KR_ERR_FORMAT},
        {"NDims = 1\nDimSize = 2\nBinaryData = False\nElementType = MET_UCHAR\n"
         "ElementDataFile = LOCAL\n",
         "BinaryData", KR_ERR_NOT_SUPPORTED},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        ktio_mk(p, c[k].hdr, data, 8);
        kr_array *a = NULL;
        kr_status s = kr_read(p, &a, NULL, NULL);
        KT_CHECK_MSG(s == c[k].st, "case %zu (%s): got %s (%s)", k, c[k].what, kr_status_string(s),
                     kr_last_error());
        KT_CHECK(a == NULL);
        KTIO_ERR_NAMES(p, c[k].what);
    }
    /* binary garbage and a truncated LOCAL file */
    unsigned char g[40];
    for (int i = 0; i < 40; i++)
        g[i] = (unsigned char)(i * 37);
    KT_CHECK(ktio_put(p, g, sizeof g) == 0);
    KTIO_READ_FAILS(p, KR_ERR_FORMAT, "MetaImage");
    ktio_mk(p, "NDims = 1\nDimSize = 8\nElementType = MET_DOUBLE\nElementDataFile = LOCAL\n",
            data, 63);
    KTIO_READ_FAILS(p, KR_ERR_FORMAT, "promises");
    remove(p);
}

static void test_atomic_and_dumb(void)
{
    const char *p = kt_tmp("at.mhd"), *raw = kt_tmp("at.raw"), *q = kt_tmp("at.mha");
    int64_t big[3] = {64, 64, 16}, small[1] = {3};
    kr_array *a = ktio_make(KR_F32, 3, big), *b = ktio_make(KR_U8, 1, small), *r = NULL;
    KT_OK(kr_write(p, a, NULL));
    KT_CHECK(ktio_size(raw) == 64 * 64 * 16 * 4);
    KT_OK(kr_write(p, b, NULL));
    KT_CHECK(ktio_size(raw) == 3);
    KT_OK(kr_read(p, &r, NULL, NULL));
    KT_CHECK(ktio_equal(r, b));
    kr_array_destroy(r);
    /* a write that fails part way leaves the old pair and no temporary file */
    kr_status s = KR_OK;
    KTIO_WITH_FSIZE_LIMIT(100000, s = kr_write(p, a, NULL));
    KT_CHECK(s == KR_ERR_IO);
    KT_CHECK(ktio_size(raw) == 3 && ktio_temp_files(p) == 0 && ktio_temp_files(raw) == 0);
    KT_OK(kr_read(p, &r, NULL, NULL));
    KT_CHECK(ktio_equal(r, b));
    kr_array_destroy(r);
    remove(p);
    remove(raw);
    KTIO_WITH_FSIZE_LIMIT(100000, s = kr_write(p, a, NULL));
    KT_CHECK(s == KR_ERR_IO && !ktio_exists(p) && !ktio_exists(raw));
    KTIO_WITH_FSIZE_LIMIT(100000, s = kr_write(q, a, NULL));
    KT_CHECK(s == KR_ERR_IO && !ktio_exists(q) && ktio_temp_files(q) == 0);
    /* dumb inputs */
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.write_dtype = (kr_dtype)42;
    KT_STATUS(kr_write(q, b, &o), KR_ERR_DTYPE);
    kr_io_opts_default(&o);
    kr_meta m;
    memset(&m, 0, sizeof m);
    m.origin[0] = NAN;
    o.meta = &m;
    KT_STATUS(kr_write(q, b, &o), KR_ERR_INVALID_ARG);
    KTIO_ERR_NAMES(q, "origin");
    m.origin[0] = 0;
    m.spacing[2] = -2;
    KT_STATUS(kr_write(p, b, &o), KR_ERR_INVALID_ARG);
    KT_CHECK(!ktio_exists(q) && !ktio_exists(p) && !ktio_exists(raw));
    KT_STATUS(kr_write(q, NULL, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_read(q, NULL, NULL, NULL), KR_ERR_INVALID_ARG);
    KTIO_READ_FAILS(q, KR_ERR_IO, NULL); /* does not exist */
    kr_array_destroy(a);
    kr_array_destroy(b);
}

int main(void)
{
    KT_RUN(test_round_trip);
    KT_RUN(test_hand_written);
    KT_RUN(test_compressed);
    KT_RUN(test_detached);
    KT_RUN(test_bad_files);
    KT_RUN(test_atomic_and_dumb);
    return kt_finish();
}
