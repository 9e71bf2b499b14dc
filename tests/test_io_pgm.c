/* PGM: reading P5/P2 with comments, 8/16-bit; writing P5 8/16-bit through the grey-level
 * rendering; exact header bytes; interoperability with Pillow; malformed files. */
#include "internal.h"
#include "io_test_util.h"

#include <stdint.h>

static kr_array *read_ok(const char *path, kr_dtype t, int64_t w, int64_t h)
{
    kr_array *a = NULL;
    KT_OK(kr_read(path, &a, NULL, NULL));
    KT_CHECK_MSG(a && a->dtype == t && a->ndim == 2 && a->dims[0] == w && a->dims[1] == h,
                 "%s: wrong dtype or dims", path);
    if (a && !(a->dtype == t && a->ndim == 2 && a->dims[0] == w && a->dims[1] == h)) {
        kr_array_destroy(a);
        return NULL;
    }
    return a;
}

static void test_read_handmade(void)
{
    const char *path = kt_tmp("hm.pgm");
    /* P5 8-bit: comments between all fields, first row of the file is y = 0 */
    const char hdr8[] = "P5#c0\n# comment\n3 #w\n#x\n 2\n# maxval next\n200\n";
    unsigned char f8[sizeof hdr8 - 1 + 6];
    memcpy(f8, hdr8, sizeof hdr8 - 1);
    const unsigned char px[6] = {0, 10, 20, 100, 150, 200};
    memcpy(f8 + sizeof hdr8 - 1, px, 6);
    kt_put(path, f8, sizeof f8);
    kr_array *a = read_ok(path, KR_U8, 3, 2);
    if (a) KT_CHECK(memcmp(a->data, px, 6) == 0); /* (x=1, y=1) is the 5th byte */
    kr_array_destroy(a);
    kr_meta m;
    KT_OK(kr_read(path, &a, &m, NULL));
    KT_CHECK(strcmp(m.description, "pgm maxval 200") == 0);
    kr_array_destroy(a);

    /* P5 16-bit: big-endian samples, maxval 1000 */
    const unsigned char f16[] = {'P', '5', '\n', '2', ' ', '2', '\n', '1', '0', '0', '0', '\r',
                                 0x03, 0xE8, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00};
    kt_put(path, f16, sizeof f16);
    a = read_ok(path, KR_U16, 2, 2);
    if (a) {
        const uint16_t *u = a->data;
        KT_CHECK(u[0] == 1000 && u[1] == 1 && u[2] == 256 && u[3] == 0);
    }
    kr_array_destroy(a);

    /* P2 ASCII with comments in the header and in the raster */
    kt_put_str(path, "P2\n# created by hand\n4 2 15\n0 1 2 3 # first row\n"
                     "15\n14\t13 12\n\n");
    a = read_ok(path, KR_U8, 4, 2);
    if (a) {
        const uint8_t want[8] = {0, 1, 2, 3, 15, 14, 13, 12};
        KT_CHECK(memcmp(a->data, want, 8) == 0);
    }
    kr_array_destroy(a);
    kt_put_str(path, "P2 2 1 65535 65535 300");
    a = read_ok(path, KR_U16, 2, 1);
    if (a) KT_CHECK(((uint16_t *)a->data)[0] == 65535 && ((uint16_t *)a->data)[1] == 300);
    kr_array_destroy(a);
    /* maxval 256 already needs two bytes per sample */
    const unsigned char f256[] = {'P', '5', ' ', '1', ' ', '1', ' ', '2', '5', '6', '\n', 1, 0};
    kt_put(path, f256, sizeof f256);
    a = read_ok(path, KR_U16, 1, 1);
    if (a) KT_CHECK(((uint16_t *)a->data)[0] == 256);
    kr_array_destroy(a);
}

static void test_roundtrip_and_header(void)
{
    int64_t dims[2] = {3, 2};
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, KR_U8, 2, dims, KR_HOST, NULL));
    const uint8_t v[6] = {7, 0, 255, 128, 3, 99};
    memcpy(a->data, v, 6);
    const char *path = kt_tmp("rt.pgm");
    KT_OK(kr_write(path, a, NULL)); /* u8 at 8 bits: stored as is */
    size_t n = 0;
    unsigned char *f = kt_slurp(path, &n);
    const char hdr[] = "P5\n# kray " KRAY_VERSION_STRING "\n3 2\n255\n";
    KT_CHECK(f && n == sizeof hdr - 1 + 6 && memcmp(f, hdr, sizeof hdr - 1) == 0 &&
             memcmp(f + sizeof hdr - 1, v, 6) == 0);
    free(f);
    kr_array *b = read_ok(path, KR_U8, 3, 2);
    if (b) KT_CHECK(memcmp(b->data, v, 6) == 0);
    kr_array_destroy(b);
    kr_array_destroy(a);

    /* u16 at 16 bits: stored as is, big-endian, maxval 65535; description as a comment */
    KT_OK(kr_array_create(&a, KR_U16, 2, dims, KR_HOST, NULL));
    const uint16_t w[6] = {0, 1, 65535, 0x1234, 40000, 2};
    memcpy(a->data, w, sizeof w);
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.bits = 16;
    kr_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.description, sizeof m.description, "two\nlines");
    o.meta = &m;
    KT_OK(kr_write(path, a, &o));
    f = kt_slurp(path, &n);
    const char hdr16[] = "P5\n# kray " KRAY_VERSION_STRING ": two lines\n3 2\n65535\n";
    KT_CHECK(f && n == sizeof hdr16 - 1 + 12 && memcmp(f, hdr16, sizeof hdr16 - 1) == 0);
    if (f && n == sizeof hdr16 - 1 + 12)
        KT_CHECK(f[sizeof hdr16 - 1 + 6] == 0x12 && f[sizeof hdr16 - 1 + 7] == 0x34);
    free(f);
    b = read_ok(path, KR_U16, 3, 2);
    if (b) KT_CHECK(memcmp(b->data, w, sizeof w) == 0);
    kr_array_destroy(b);
    KT_CHECK(kt_temps_left(path) == 0);
    kr_array_destroy(a);
}

/* Reference mapping (documented): round((v - lo) / (hi - lo) * maxval), clamped. */
static double ref_level(double v, double lo, double hi, double maxval)
{
    double t = (v - lo) / (hi - lo) * maxval;
    t = t < 0 ? 0 : t > maxval ? maxval : floor(t + 0.5);
    return t;
}

static void test_render(void)
{
    const char *path = kt_tmp("rd.pgm");
    int64_t dims[3] = {4, 3, 5};
    kr_array *vol = NULL;
    KT_OK(kr_array_create(&vol, KR_F32, 3, dims, KR_HOST, NULL));
    float *p = vol->data;
    for (int i = 0; i < 60; i++) p[i] = (float)(0.37 * i - 4.0);
    kr_io_opts o;
    kr_io_opts_default(&o);
    /* default: central slice z = 2, its own min..max */
    KT_OK(kr_write(path, vol, &o));
    kr_array *b = read_ok(path, KR_U8, 4, 3);
    if (b)
        for (int i = 0; i < 12; i++) {
            double lo = p[24], hi = p[35];
            KT_NEAR(((uint8_t *)b->data)[i], ref_level(p[24 + i], lo, hi, 255), 0);
        }
    kr_array_destroy(b);
    /* slice 4, window [-1, 20] at 16 bits */
    o.slice = 4;
    o.window_set = 1;
    o.window_lo = -1;
    o.window_hi = 20;
    o.bits = 16;
    KT_OK(kr_write(path, vol, &o));
    b = read_ok(path, KR_U16, 4, 3);
    if (b)
        for (int i = 0; i < 12; i++)
            KT_NEAR(((uint16_t *)b->data)[i], ref_level(p[48 + i], -1, 20, 65535), 0);
    kr_array_destroy(b);
    kr_array_destroy(vol);

    /* complex parts of a 2-D c64 image, window [-2, 2] */
    int64_t d2[2] = {2, 2};
    kr_array *c = NULL;
    KT_OK(kr_array_create(&c, KR_C64, 2, d2, KR_HOST, NULL));
    const float cv[8] = {1, 0, 0, 1, -1, -1, 0.5f, -1.5f};
    memcpy(c->data, cv, sizeof cv);
    kr_io_opts_default(&o);
    o.window_set = 1;
    o.window_lo = -2;
    o.window_hi = 2;
    for (int part = 0; part < 4; part++) {
        o.complex_part = part;
        KT_OK(kr_write(path, c, &o));
        b = read_ok(path, KR_U8, 2, 2);
        for (int i = 0; b && i < 4; i++) {
            double re = cv[2 * i], im = cv[2 * i + 1];
            double v = part == 0 ? hypot(re, im) : part == 1 ? re : part == 2 ? im : atan2(im, re);
            KT_NEAR(((uint8_t *)b->data)[i], ref_level(v, -2, 2, 255), 0);
        }
        kr_array_destroy(b);
    }
    /* u8 written at 16 bits without a window: min..max stretch */
    kr_array *u = NULL;
    KT_OK(kr_array_create(&u, KR_U8, 2, d2, KR_HOST, NULL));
    const uint8_t uv[4] = {10, 20, 30, 50};
    memcpy(u->data, uv, 4);
    kr_io_opts_default(&o);
    o.bits = 16;
    KT_OK(kr_write(path, u, &o));
    b = read_ok(path, KR_U16, 2, 2);
    for (int i = 0; b && i < 4; i++)
        KT_NEAR(((uint16_t *)b->data)[i], ref_level(uv[i], 10, 50, 65535), 0);
    kr_array_destroy(b);
    kr_array_destroy(u);

    /* write errors leave nothing behind */
    const char *bad = kt_tmp("rdbad.pgm");
    kr_io_opts_default(&o);
    o.bits = 12;
    KT_FAILS_NAMING(kr_write(bad, c, &o), KR_ERR_INVALID_ARG, bad);
    kr_io_opts_default(&o);
    o.complex_part = 4;
    KT_FAILS_NAMING(kr_write(bad, c, &o), KR_ERR_INVALID_ARG, bad);
    kr_io_opts_default(&o);
    o.slice = 1; /* a 2-D image has one slice */
    KT_FAILS_NAMING(kr_write(bad, c, &o), KR_ERR_INVALID_ARG, bad);
    kr_io_opts_default(&o);
    o.window_set = 1;
    o.window_lo = 3;
    o.window_hi = 3;
    KT_FAILS_NAMING(kr_write(bad, c, &o), KR_ERR_INVALID_ARG, bad);
    int64_t d4[4] = {2, 2, 2, 2};
    kr_array *v4 = NULL;
    KT_OK(kr_array_create(&v4, KR_F32, 4, d4, KR_HOST, NULL));
    KT_FAILS_NAMING(kr_write(bad, v4, NULL), KR_ERR_DIM, bad);
    KT_CHECK(!kt_exists(bad) && kt_temps_left(bad) == 0);
    kr_array_destroy(v4);
    kr_array_destroy(c);
}

static void test_bad_files(void)
{
    const char *path = kt_tmp("bad.pgm");
    kr_array *a = NULL;
    static const struct {
        const char *text;
        size_t len; /* 0 = strlen */
    } bad[] = {
        {"", 0},
        {"P6\n1 1\n255\n\x01\x02\x03", 0},    /* colour */
        {"P5x 1 1 255\n\x01", 0},               /* bad magic */
        {"P5\n1 1\n0\n\x01", 0},                /* maxval 0 */
        {"P5\n1 1\n65536\n\x01\x01", 0},        /* maxval too large */
        {"P5\n1 1\n99999999999999999999\n\x01\x01", 0},
        {"P5\n2 2\n255\n\x01\x02\x03", 0},      /* truncated */
        {"P5\n2 2\n255\n\x01\x02\x03\x04\x05", 0}, /* longer */
        {"P5\n2 1\n65535\n\x01\x02\x03", 0},    /* truncated 16-bit */
        {"P5\n2 2\n255", 0},                    /* ends after maxval */
        {"P5\n2 2\n255#c\n\x01\x02\x03\x04", 0}, /* no whitespace after maxval */
        {"P5\n2 2", 0},                         /* ends before maxval */
        {"P5\na 2\n255\n\x01\x02", 0},          /* non-numeric width */
        {"P5\n2 -2\n255\n\x01\x02", 0},         /* negative */
        {"P5\n2 2.5\n255\n\x01\x02\x03\x04", 0}, /* not an integer */
        {"P5\nnan 2\n255\n\x01\x02", 0},        /* NaN */
        {"P5\n0 2\n255\n", 0},                  /* zero width */
        {"P5\n4294967296 1\n255\n\x01", 0},     /* side over 2^31 */
        {"P5\n2000000 2000000\n255\n\x01", 0},  /* 4e12 pixels > 2^40 */
        {"P5\n1 1\n100\n\xC8", 0},              /* sample 200 > maxval 100 */
        {"P2\n2 2\n15\n1 2 3", 0},              /* P2 truncated */
        {"P2\n2 1\n15\n1 16", 0},               /* P2 sample > maxval */
        {"P2\n2 1\n15\n1 x", 0},                /* P2 non-numeric */
        {"P2\n2 1\n15\n1 -1", 0},               /* P2 negative */
        {"P2\n2 1\n15\n1 2 3", 0},              /* P2 extra sample */
        {"P2\n2 1\n15\n1 2.0", 0},              /* P2 not an integer */
        {"P2\n100000 100000\n15\n1 2", 0},      /* P2 promises more than the file can hold */
        {"P5\n1 1\n255\n", 0},                  /* no sample at all */
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        kt_put(path, bad[k].text, bad[k].len ? bad[k].len : strlen(bad[k].text));
        kr_status s = kr_read(path, &a, NULL, NULL);
        KT_CHECK_MSG(s == KR_ERR_FORMAT && strstr(kr_last_error(), path),
                     "bad PGM %zu gave %s: %s", k, kr_status_string(s), kr_last_error());
        KT_CHECK(a == NULL);
    }
    remove(path);
    KT_FAILS_NAMING(kr_read(path, &a, NULL, NULL), KR_ERR_IO, path);
}

/* ---- Pillow (python3-pil) as the peer ---------------------------------------------------- */
static void test_pillow(void)
{
    if (kt_sh(KT_PY " -c 'import numpy, PIL' >/dev/null 2>&1") != 0) {
        printf("note: %s with numpy and PIL not found; skipping the Pillow checks\n", KT_PY);
        return;
    }
    char k8[1100], k16[1100], p8[1100], p16[1100], script[1100], cmd[6000];
    snprintf(k8, sizeof k8, "%s", kt_tmp("k8.pgm"));
    snprintf(k16, sizeof k16, "%s", kt_tmp("k16.pgm"));
    snprintf(p8, sizeof p8, "%s", kt_tmp("p8.pgm"));
    snprintf(p16, sizeof p16, "%s", kt_tmp("p16.pgm"));
    snprintf(script, sizeof script, "%s", kt_tmp("pil.py"));
    /* kray writes a 5x3 image (x fastest): value(x, y) = 16 y + x (8-bit), 4000 y + 7 x (16) */
    int64_t dims[2] = {5, 3};
    kr_array *a8 = NULL, *a16 = NULL;
    KT_OK(kr_array_create(&a8, KR_U8, 2, dims, KR_HOST, NULL));
    KT_OK(kr_array_create(&a16, KR_U16, 2, dims, KR_HOST, NULL));
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 5; x++) {
            ((uint8_t *)a8->data)[x + 5 * y] = (uint8_t)(16 * y + x);
            ((uint16_t *)a16->data)[x + 5 * y] = (uint16_t)(4000 * y + 7 * x + 50000 * (y == 2));
        }
    kr_io_opts o;
    kr_io_opts_default(&o);
    KT_OK(kr_write(k8, a8, &o));
    o.bits = 16;
    KT_OK(kr_write(k16, a16, &o));
    FILE *f = fopen(script, "w");
    KT_CHECK(f != NULL);
    if (!f) return;
    fprintf(f,
            "import sys, numpy as np\n"
            "from PIL import Image\n"
            "k8, k16, p8, p16 = sys.argv[1:5]\n"
            "y, x = np.mgrid[0:3, 0:5]\n"
            "e8 = 16 * y + x\n"
            "e16 = 4000 * y + 7 * x + 50000 * (y == 2)\n"
            "a = np.array(Image.open(k8)); b = np.array(Image.open(k16))\n"
            "print('K8', 'OK' if a.shape == (3, 5) and (a == e8).all() else 'BAD')\n"
            "print('K16', 'OK' if b.shape == (3, 5) and (b == e16).all() else 'BAD')\n"
            "Image.fromarray((3 * e8).astype(np.uint8)).save(p8)\n"
            "Image.fromarray((e16 + 1).astype(np.int32)).save(p16)\n");
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s %s %s %s %s %s 2>&1", KT_PY, script, k8, k16, p8, p16);
    int st;
    char *out = kt_sh_out(cmd, &st);
    KT_CHECK_MSG(out && st == 0 && strstr(out, "K8 OK") && strstr(out, "K16 OK"),
                 "Pillow check failed: %s", out ? out : "(no output)");
    free(out);
    kr_array *b = read_ok(p8, KR_U8, 5, 3);
    for (int i = 0; b && i < 15; i++)
        KT_CHECK(((uint8_t *)b->data)[i] == 3 * ((uint8_t *)a8->data)[i]);
    kr_array_destroy(b);
    b = read_ok(p16, KR_U16, 5, 3);
    for (int i = 0; b && i < 15; i++)
        KT_CHECK(((uint16_t *)b->data)[i] == ((uint16_t *)a16->data)[i] + 1);
    kr_array_destroy(b);
    kr_array_destroy(a8);
    kr_array_destroy(a16);
}

int main(void)
{
    KT_RUN(test_read_handmade);
    KT_RUN(test_roundtrip_and_header);
    KT_RUN(test_render);
    KT_RUN(test_bad_files);
    KT_RUN(test_pillow);
    kt_cleanup_tmp();
    return kt_finish();
}
