/* BART .cfl/.hdr: round trips, exact header text, names, interoperability with the bart tool,
 * malformed pairs, atomic pair writing. */
#include "internal.h"
#include "io_test_util.h"

#include <float.h>
#include <errno.h>
#include <stdint.h>
#include <sys/stat.h>

/* Header text kray writes for dims d (no description). */
static void expect_file_text(const char *path, const char *want)
{
    size_t n;
    char *got = (char *)kt_slurp(path, &n);
    KT_CHECK_MSG(got && strcmp(got, want) == 0, "%s holds \"%s\", expected \"%s\"", path,
                 got ? got : "(unreadable)", want);
    free(got);
}

static kr_array *make_c64(int ndim, const int64_t *dims, uint64_t seed)
{
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, KR_C64, ndim, dims, KR_HOST, NULL));
    if (!a) return NULL;
    float *p = a->data;
    for (int64_t i = 0; i < 2 * kr_array_numel(a); i++) p[i] = (float)kri_rand_sym(seed, (uint64_t)i);
    return a;
}

static void test_roundtrip_c64(void)
{
    int64_t dims[3] = {3, 4, 5};
    kr_array *a = make_c64(3, dims, 1);
    float *p = a->data; /* special values survive bit for bit */
    p[0] = -0.0f;
    p[1] = FLT_MIN / 4; /* subnormal */
    p[2] = INFINITY;
    p[3] = NAN;
    p[4] = FLT_MAX;
    const char *path = kt_tmp("rt.cfl");
    KT_OK(kr_write(path, a, NULL));
    kr_array *b = NULL;
    KT_OK(kr_read(path, &b, NULL, NULL));
    KT_CHECK(b && b->dtype == KR_C64 && b->ndim == 3 && b->dims[0] == 3 && b->dims[1] == 4 &&
             b->dims[2] == 5);
    if (b) KT_CHECK(memcmp(a->data, b->data, kr_array_bytes(a)) == 0);
    /* the .cfl holds exactly the little-endian samples */
    size_t n;
    unsigned char *raw = kt_slurp(kt_tmp("rt.cfl"), &n);
    KT_CHECK(raw && n == kr_array_bytes(a) && memcmp(raw, a->data, n) == 0);
    free(raw);
    expect_file_text(kt_tmp("rt.hdr"), "# Dimensions\n3 4 5 \n# Creator\nkray " KRAY_VERSION_STRING
                                       "\n");
    KT_CHECK(kt_temps_left(path) == 0);
    kr_array_destroy(a);
    kr_array_destroy(b);
}

/* Every dtype is written as complex float: value -> (float)value + 0i. */
static void test_roundtrip_all_dtypes(void)
{
    int64_t dims[2] = {5, 3};
    for (int t = KR_F32; t < KR_DTYPE_COUNT; t++) {
        kr_array *a = NULL;
        KT_OK(kr_array_create(&a, (kr_dtype)t, 2, dims, KR_HOST, NULL));
        int64_t n = kr_array_numel(a);
        double re[15], im[15];
        for (int64_t i = 0; i < n; i++) {
            double v = 1000.0 * kri_rand_sym(7, (uint64_t)i);
            re[i] = v;
            im[i] = 0.0;
            switch (t) {
            case KR_F32: ((float *)a->data)[i] = (float)v; break;
            case KR_F64: ((double *)a->data)[i] = v; break;
            case KR_C64:
                ((float *)a->data)[2 * i] = (float)v;
                ((float *)a->data)[2 * i + 1] = (float)(im[i] = -v / 3);
                break;
            case KR_C128:
                ((double *)a->data)[2 * i] = v;
                ((double *)a->data)[2 * i + 1] = im[i] = v / 7;
                break;
            case KR_U8: ((uint8_t *)a->data)[i] = (uint8_t)(re[i] = (double)(i * 17 % 256)); break;
            case KR_U16: ((uint16_t *)a->data)[i] = (uint16_t)(re[i] = (double)(i * 4099)); break;
            case KR_I16: ((int16_t *)a->data)[i] = (int16_t)(re[i] = (double)(i * 2000 - 15000)); break;
            default: break;
            }
        }
        const char *path = kt_tmp("dt");
        KT_OK(kr_write(path, a, NULL));
        kr_array *b = NULL;
        KT_OK(kr_read(path, &b, NULL, NULL));
        KT_CHECK(b && b->dtype == KR_C64 && b->ndim == 2 && b->dims[0] == 5 && b->dims[1] == 3);
        if (b)
            for (int64_t i = 0; i < n; i++) {
                const float *q = b->data;
                KT_CHECK_MSG(q[2 * i] == (float)re[i] && q[2 * i + 1] == (float)im[i],
                             "%s element %lld: got %g%+gi, want %g%+gi", kr_dtype_name(t),
                             (long long)i, q[2 * i], q[2 * i + 1], (float)re[i], (float)im[i]);
            }
        kr_array_destroy(a);
        kr_array_destroy(b);
    }
}

static void test_names_and_meta(void)
{
    int64_t dims[1] = {4};
    kr_array *a = make_c64(1, dims, 3);
    const char *stem = kt_tmp("nm");
    char cfl[1100], hdr[1100];
    snprintf(cfl, sizeof cfl, "%s.cfl", stem);
    snprintf(hdr, sizeof hdr, "%s.hdr", stem);
    kr_io_opts o;
    kr_io_opts_default(&o);
    kr_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.description, sizeof m.description, "phantom --size 4\nout # x");
    o.meta = &m;
    KT_OK(kr_write(stem, a, &o)); /* no extension: the pair stem.cfl + stem.hdr */
    KT_CHECK(kt_exists(cfl) && kt_exists(hdr) && !kt_exists(stem));
    expect_file_text(hdr, "# Dimensions\n4 \n# Command\nphantom --size 4 out # x\n# Creator\nkray "
                          KRAY_VERSION_STRING "\n");
    const char *names[3] = {stem, cfl, hdr};
    for (int k = 0; k < 3; k++) {
        kr_array *b = NULL;
        kr_meta rm;
        KT_OK(kr_read(names[k], &b, &rm, NULL));
        KT_CHECK(b && b->ndim == 1 && b->dims[0] == 4 &&
                 memcmp(b->data, a->data, kr_array_bytes(a)) == 0);
        KT_CHECK_MSG(strcmp(rm.description, "phantom --size 4 out # x") == 0,
                     "description read back as \"%s\"", rm.description);
        kr_array_destroy(b);
    }
    /* Upper-case extension: the companion is upper case too. */
    char up[1100], uphdr[1100];
    snprintf(up, sizeof up, "%s_U.CFL", stem);
    snprintf(uphdr, sizeof uphdr, "%s_U.HDR", stem);
    KT_OK(kr_write(up, a, NULL));
    KT_CHECK(kt_exists(up) && kt_exists(uphdr));
    kr_array *b = NULL;
    KT_OK(kr_read(uphdr, &b, NULL, NULL));
    kr_array_destroy(b);
    kr_array_destroy(a);
}

/* BART pads dims to 16 with ones; kray drops trailing singleton dims, accepts > 16 dims of 1. */
static void test_header_variants(void)
{
    const char *stem = kt_tmp("hv");
    char cfl[1100], hdr[1100];
    snprintf(cfl, sizeof cfl, "%s.cfl", stem);
    snprintf(hdr, sizeof hdr, "%s.hdr", stem);
    float data[12];
    for (int i = 0; i < 12; i++) data[i] = (float)i;
    kt_put(cfl, data, sizeof data);
    const char *ok[] = {
        "# Dimensions\n3 2 1 1 1 1 1 1 1 1 1 1 1 1 1 1 \n# Command\nphantom x\n# Files\n >x\n"
        "# Creator\nBART v0.8.00\n",
        "# Creator\nsomething\n# Dimensions\n3 2\n",                /* sections in any order */
        "# Dimensions\r\n3\t2 \r\n",                                 /* CRLF and tabs */
        "# Dimensions\n3 2 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1\n",     /* 19 dims, extra ones */
        "junk line\n# Dimensions\n3 2\n# Future section\nvalue\n",   /* unknown lines skipped */
    };
    for (size_t k = 0; k < sizeof ok / sizeof ok[0]; k++) {
        kt_put_str(hdr, ok[k]);
        kr_array *b = NULL;
        KT_OK(kr_read(stem, &b, NULL, NULL));
        KT_CHECK_MSG(b && b->ndim == 2 && b->dims[0] == 3 && b->dims[1] == 2,
                     "header variant %zu", k);
        if (b) KT_CHECK(memcmp(b->data, data, sizeof data) == 0);
        kr_array_destroy(b);
    }
    /* all-singleton dims give one element of ndim 1 */
    kt_put(cfl, data, 8);
    kt_put_str(hdr, "# Dimensions\n1 1 1 1 \n");
    kr_array *b = NULL;
    KT_OK(kr_read(stem, &b, NULL, NULL));
    KT_CHECK(b && b->ndim == 1 && b->dims[0] == 1);
    kr_array_destroy(b);
}

static void test_bad_pairs(void)
{
    const char *stem = kt_tmp("bad");
    char cfl[1100], hdr[1100];
    snprintf(cfl, sizeof cfl, "%s.cfl", stem);
    snprintf(hdr, sizeof hdr, "%s.hdr", stem);
    float data[14] = {0};
    kr_array *b = NULL;

    /* missing files: KR_ERR_IO naming the missing one */
    remove(cfl);
    remove(hdr);
    KT_FAILS_NAMING(kr_read(stem, &b, NULL, NULL), KR_ERR_IO, hdr);
    kt_put_str(hdr, "# Dimensions\n3 2\n");
    KT_FAILS_NAMING(kr_read(stem, &b, NULL, NULL), KR_ERR_IO, cfl);

    /* .cfl size disagrees with the header */
    kt_put(cfl, data, 12 * 4 - 1);
    KT_FAILS_NAMING(kr_read(stem, &b, NULL, NULL), KR_ERR_FORMAT, cfl);
    kt_put(cfl, data, 14 * 4);
    KT_FAILS_NAMING(kr_read(cfl, &b, NULL, NULL), KR_ERR_FORMAT, cfl);
    kt_put(cfl, data, 0);
    KT_FAILS_NAMING(kr_read(hdr, &b, NULL, NULL), KR_ERR_FORMAT, cfl);
    kt_put(cfl, data, 12 * 4);

    const char *bad[] = {
        "",                                       /* empty */
        "3 2\n",                                  /* no section line */
        "# Dimensions\n",                         /* no dims line */
        "# Dimensions\n\n",                       /* empty dims line */
        "# Dimensions\n3 a\n",                    /* non-numeric */
        "# Dimensions\n3 2.0\n",                  /* not an integer */
        "# Dimensions\n3 nan\n",                  /* NaN */
        "# Dimensions\n3 inf\n",                  /* infinity */
        "# Dimensions\n3 0\n",                    /* zero */
        "# Dimensions\n-3 -2\n",                  /* negative */
        "# Dimensions\n3 0x2\n",                  /* hex */
        "# Dimensions\n99999999999999999999 1\n", /* does not fit 64 bits */
        "# Dimensions\n1099511627776 2\n",        /* product 2^41 > 2^40 */
        "# Dimensions\n4294967296 4294967296\n",  /* product overflows int64 after 2^40 check */
        "# Dimensions\n3 2\n# Dimensions\n3 2\n", /* twice */
        "# Dims\n3 2\n",                          /* wrong keyword */
        "# Dimensions\n3 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 2\n", /* dim 17 is not 1 */
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        kt_put_str(hdr, bad[k]);
        kr_status s = kr_read(stem, &b, NULL, NULL);
        KT_CHECK_MSG(s == KR_ERR_FORMAT && strstr(kr_last_error(), hdr),
                     "bad header %zu (\"%s\") gave %s: %s", k, bad[k], kr_status_string(s),
                     kr_last_error());
        KT_CHECK(b == NULL);
    }
    unsigned char nul[] = "# Dimensions\n3\0 2\n";
    kt_put(hdr, nul, sizeof nul - 1);
    KT_FAILS_NAMING(kr_read(stem, &b, NULL, NULL), KR_ERR_FORMAT, hdr);
    /* a directory in place of the data file */
    kt_put_str(hdr, "# Dimensions\n3 2\n");
    remove(cfl);
    mkdir(cfl, 0755);
    KT_FAILS_NAMING(kr_read(stem, &b, NULL, NULL), KR_ERR_IO, cfl);
    rmdir(cfl);
}

static void test_atomic_pair(void)
{
    const char *stem = kt_tmp("at");
    char cfl[1100], hdr[1100];
    snprintf(cfl, sizeof cfl, "%s.cfl", stem);
    snprintf(hdr, sizeof hdr, "%s.hdr", stem);
    int64_t big[2] = {64, 64}, small[1] = {2};
    kr_array *a = make_c64(2, big, 5), *s = make_c64(1, small, 6);
    KT_OK(kr_write(stem, a, NULL));
    KT_CHECK(kt_fsize(cfl) == 64 * 64 * 8);
    KT_OK(kr_write(stem, s, NULL)); /* overwrite replaces both whole */
    KT_CHECK(kt_fsize(cfl) == 16);
    expect_file_text(hdr, "# Dimensions\n2 \n# Creator\nkray " KRAY_VERSION_STRING "\n");

    /* the .hdr cannot be renamed into place (a directory is there): no .cfl is left either */
    remove(cfl);
    remove(hdr);
    mkdir(hdr, 0755);
    KT_FAILS_NAMING(kr_write(stem, s, NULL), KR_ERR_IO, hdr);
    KT_CHECK(!kt_exists(cfl));
    KT_CHECK(kt_temps_left(stem) == 0);
    rmdir(hdr);

    /* a directory that does not exist */
    char nodir[1100];
    snprintf(nodir, sizeof nodir, "%s_nodir/x", stem);
    KT_FAILS_NAMING(kr_write(nodir, s, NULL), KR_ERR_IO, "_nodir/x.cfl");

    /* a real write_dtype is stored as complex, as BART does: the same file as c64 */
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.write_dtype = KR_F32;
    char other[1100], other2[1100];
    snprintf(other, sizeof other, "%s_dt.cfl", stem);
    snprintf(other2, sizeof other2, "%s_dt2.cfl", stem);
    KT_OK(kr_write(other, s, &o));
    o.write_dtype = KR_C64;
    KT_OK(kr_write(other2, s, &o));
    size_t n1 = 0, n2 = 0;
    unsigned char *b1 = kt_slurp(other, &n1), *b2 = kt_slurp(other2, &n2);
    KT_CHECK(b1 && b2 && n1 == n2 && n1 == (size_t)kr_array_numel(s) * 8 && !memcmp(b1, b2, n1));
    free(b1);
    free(b2);
    kr_array_destroy(a);
    kr_array_destroy(s);
}

/* ---- interoperability with bart --------------------------------------------------------- */

/* Parse `bart show -f "%+.9e%+.9ei"` output into n complex values. */
static int parse_bart_show(const char *text, float *v, int64_t n)
{
    const char *p = text;
    for (int64_t i = 0; i < n; i++) {
        char *e, *e2;
        double re = strtod(p, &e);
        if (e == p) return 0;
        double im = strtod(e, &e2);
        if (e2 == e || *e2 != 'i') return 0;
        v[2 * i] = (float)re;
        v[2 * i + 1] = (float)im;
        p = e2 + 1;
    }
    while (*p == ' ' || *p == '\t' || *p == '\n') p++;
    return *p == '\0';
}

static float *bart_show(const char *stem, int64_t n)
{
    char cmd[1300];
    snprintf(cmd, sizeof cmd, "bart show -f '%%+.9e%%+.9ei' %s", stem);
    int st;
    char *out = kt_sh_out(cmd, &st);
    float *v = malloc((size_t)n * 2 * sizeof *v);
    KT_CHECK_MSG(out && st == 0 && v && parse_bart_show(out, v, n), "'%s' failed or printed "
                 "something unexpected", cmd);
    int ok = out && st == 0 && v && parse_bart_show(out, v, n);
    free(out);
    if (!ok) {
        free(v);
        return NULL;
    }
    return v;
}

/* Image axes: [x, y] in memory is BART's [y, x] on disk, both ways; a name without extension
 * never lands beside a device or directory. */
static void test_image_axes_and_devices(void)
{
    int64_t d[3] = {3, 2, 2};
    kr_array *a = NULL, *b = NULL, *c = NULL;
    KT_OK(kr_array_create(&a, KR_C64, 3, d, KR_HOST, NULL));
    for (int64_t i = 0; i < 12; i++) ((float *)a->data)[2 * i] = (float)i; /* x + 3 y + 6 z */
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.axes = KR_IO_AXES_IMAGE;
    const char *p = kt_tmp("axes.cfl");
    KT_OK(kr_write(p, a, &o));
    KT_OK(kr_read(p, &b, NULL, NULL)); /* as stored: [2, 3, 2], element (y, x, z) */
    KT_CHECK(b && b->ndim == 3 && b->dims[0] == 2 && b->dims[1] == 3 && b->dims[2] == 2);
    for (int64_t z = 0; b && z < 2; z++)
        for (int64_t y = 0; y < 2; y++)
            for (int64_t x = 0; x < 3; x++)
                KT_CHECK(((float *)b->data)[2 * (y + 2 * x + 6 * z)] == (float)(x + 3 * y + 6 * z));
    KT_OK(kr_read(p, &c, NULL, &o)); /* and back */
    KT_CHECK(c && kr_array_same_shape(a, c) && !memcmp(a->data, c->data, kr_array_bytes(a)));
    kr_array_destroy(b), kr_array_destroy(c);
    /* a 1-D [n] is BART's [1, n] */
    int64_t n4[1] = {4};
    KT_OK(kr_array_create(&b, KR_C64, 1, n4, KR_HOST, NULL));
    KT_OK(kr_write(p, b, &o));
    KT_OK(kr_read(p, &c, NULL, NULL));
    KT_CHECK(c && c->ndim == 2 && c->dims[0] == 1 && c->dims[1] == 4);
    kr_array_destroy(b), kr_array_destroy(c);
    /* /dev/null and a directory: refused, nothing written beside them */
    KT_FAILS_NAMING(kr_write("/dev/null", a, NULL), KR_ERR_IO, "/dev/null");
    KT_CHECK(!kt_exists("/dev/null.cfl") && !kt_exists("/dev/null.hdr"));
    char dir[1100];
    snprintf(dir, sizeof dir, "%s", kt_tmp("axes_dir"));
    KT_CHECK(mkdir(dir, 0700) == 0 || errno == EEXIST);
    KT_FAILS_NAMING(kr_write(dir, a, NULL), KR_ERR_IO, "not a regular file");
    kr_array_destroy(a);
}

static void test_bart_reads_kray(void)
{
    if (!kt_have_bart()) {
        printf("note: bart not found; skipping the kray -> bart checks\n");
        return;
    }
    int64_t dims[3] = {5, 3, 2};
    kr_array *a = make_c64(3, dims, 11);
    const char *stem = kt_tmp("tobart");
    kr_io_opts o;
    kr_io_opts_default(&o);
    kr_meta m;
    memset(&m, 0, sizeof m);
    snprintf(m.description, sizeof m.description, "kray test --seed 11");
    o.meta = &m;
    KT_OK(kr_write(stem, a, &o));
    int64_t n = kr_array_numel(a);
    float *v = bart_show(stem, n);
    if (v) KT_CHECK_MSG(memcmp(v, a->data, (size_t)n * 8) == 0, "bart show differs from kray's data");
    free(v);
    char cmd[3000];
    for (int d = 0; d < 3; d++) {
        snprintf(cmd, sizeof cmd, "bart show -d %d %s", d, stem);
        char *out = kt_sh_out(cmd, NULL);
        KT_CHECK_MSG(out && atoll(out) == dims[d], "'%s' printed '%s'", cmd, out ? out : "");
        free(out);
    }
    /* bart processes it: scale by 2 (exact in float) */
    const char *scaled = kt_tmp("tobart_x2");
    snprintf(cmd, sizeof cmd, "bart scale 2 %s %s >/dev/null 2>&1", stem, scaled);
    KT_CHECK(kt_sh(cmd) == 0);
    kr_array *b = NULL;
    KT_OK(kr_read(scaled, &b, NULL, NULL));
    KT_CHECK(b && b->ndim == 3 && b->dims[0] == 5 && b->dims[1] == 3 && b->dims[2] == 2);
    if (b)
        for (int64_t i = 0; i < 2 * n; i++)
            KT_CHECK(((float *)b->data)[i] == 2.0f * ((float *)a->data)[i]);
    kr_array_destroy(b);

    /* bart fft of a kray-written 4x4 array of ones: unitary centred FFT -> 4 at (2, 2) */
    int64_t d2[2] = {4, 4};
    kr_array *ones = NULL;
    KT_OK(kr_array_create(&ones, KR_F32, 2, d2, KR_HOST, NULL));
    for (int i = 0; i < 16; i++) ((float *)ones->data)[i] = 1.0f;
    const char *os = kt_tmp("ones"), *fs = kt_tmp("ones_fft");
    KT_OK(kr_write(os, ones, NULL));
    snprintf(cmd, sizeof cmd, "bart fft -u 3 %s %s >/dev/null 2>&1", os, fs);
    KT_CHECK(kt_sh(cmd) == 0);
    b = NULL;
    KT_OK(kr_read(fs, &b, NULL, NULL));
    KT_CHECK(b && b->ndim == 2 && b->dims[0] == 4 && b->dims[1] == 4);
    if (b)
        for (int i = 0; i < 16; i++) {
            const float *q = b->data;
            KT_NEAR(q[2 * i], i == 2 + 4 * 2 ? 4.0 : 0.0, 1e-6);
            KT_NEAR(q[2 * i + 1], 0.0, 1e-6);
        }
    kr_array_destroy(b);
    kr_array_destroy(ones);
    kr_array_destroy(a);
}

static void test_kray_reads_bart(void)
{
    if (!kt_have_bart()) {
        printf("note: bart not found; skipping the bart -> kray checks\n");
        return;
    }
    char cmd[1300];
    const char *v = kt_tmp("bvec");
    snprintf(cmd, sizeof cmd, "bart vec 1 2 3 %s >/dev/null 2>&1", v);
    KT_CHECK(kt_sh(cmd) == 0);
    kr_array *b = NULL;
    kr_meta m;
    KT_OK(kr_read(v, &b, &m, NULL));
    KT_CHECK(b && b->dtype == KR_C64 && b->ndim == 1 && b->dims[0] == 3);
    if (b) {
        const float *q = b->data;
        KT_CHECK(q[0] == 1 && q[1] == 0 && q[2] == 2 && q[3] == 0 && q[4] == 3 && q[5] == 0);
    }
    KT_CHECK_MSG(strncmp(m.description, "vec 1 2 3", 9) == 0, "description \"%s\"", m.description);
    kr_array_destroy(b);

    const char *p = kt_tmp("bphantom");
    snprintf(cmd, sizeof cmd, "bart phantom -x 16 %s >/dev/null 2>&1", p);
    KT_CHECK(kt_sh(cmd) == 0);
    b = NULL;
    KT_OK(kr_read(p, &b, NULL, NULL));
    KT_CHECK(b && b->ndim == 2 && b->dims[0] == 16 && b->dims[1] == 16);
    float *ref = bart_show(p, 256);
    if (b && ref) KT_CHECK(memcmp(ref, b->data, 256 * 8) == 0);
    double sum = 0;
    if (b)
        for (int i = 0; i < 256; i++) sum += ((float *)b->data)[2 * i];
    KT_CHECK(sum > 10.0); /* the phantom is not empty */
    free(ref);
    kr_array_destroy(b);

    /* k-space phantom with 3 coils: [16, 16, 1, 3] */
    const char *k = kt_tmp("bksp");
    snprintf(cmd, sizeof cmd, "bart phantom -k -s 3 -x 8 %s >/dev/null 2>&1", k);
    KT_CHECK(kt_sh(cmd) == 0);
    b = NULL;
    KT_OK(kr_read(k, &b, NULL, NULL));
    KT_CHECK(b && b->ndim == 4 && b->dims[0] == 8 && b->dims[1] == 8 && b->dims[2] == 1 &&
             b->dims[3] == 3);
    ref = bart_show(k, 8 * 8 * 3);
    if (b && ref) KT_CHECK(memcmp(ref, b->data, 8 * 8 * 3 * 8) == 0);
    free(ref);
    kr_array_destroy(b);
}

int main(void)
{
    KT_RUN(test_roundtrip_c64);
    KT_RUN(test_roundtrip_all_dtypes);
    KT_RUN(test_names_and_meta);
    KT_RUN(test_header_variants);
    KT_RUN(test_bad_pairs);
    KT_RUN(test_atomic_pair);
    KT_RUN(test_image_axes_and_devices);
    KT_RUN(test_bart_reads_kray);
    KT_RUN(test_kray_reads_bart);
    kt_cleanup_tmp();
    return kt_finish();
}
