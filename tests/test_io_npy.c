/* NumPy .npy: round trips of every dtype, exact header bytes, axis order, files written by numpy
 * (v1/v2/v3, C and Fortran order, big-endian, 0-d, 1-D) read by kray, files written by kray read
 * by numpy, and malformed files. */
#include "internal.h"
#include "io_test_util.h"

#include <stdint.h>

/* ---- values used on both sides: g(k) for numpy C-order linear index k ------------------- */
typedef struct spec {
    const char *name;
    const char *descr; /* numpy dtype string */
    kr_dtype dtype;
    int fortran, version, nshape;
    int64_t shape[4]; /* numpy shape */
    double scale, off;
} spec;

static const spec specs[] = {
    {"c_f4", "<f4", KR_F32, 0, 1, 2, {2, 3}, 0.1, -0.3},
    {"v2_f8", "<f8", KR_F64, 0, 2, 3, {2, 3, 4}, 0.1, 1e-9},
    {"v3_i2", "<i2", KR_I16, 0, 3, 2, {3, 4}, -1000, 5000},
    {"f_f4", "<f4", KR_F32, 1, 1, 2, {2, 3}, 1.5, 0},
    {"f_c8", "<c8", KR_C64, 1, 1, 3, {2, 3, 4}, 0.5, -2},
    {"f_u2", "<u2", KR_U16, 1, 2, 2, {3, 5}, 4097, 3},
    {"be_f8", ">f8", KR_F64, 0, 1, 1, {5}, 0.25, -1},
    {"be_f4", ">f4", KR_F32, 0, 1, 2, {2, 2}, 3.3, 0},
    {"be_c8", ">c8", KR_C64, 0, 1, 1, {3}, 1.1, 0.5},
    {"be_c16", ">c16", KR_C128, 1, 1, 2, {2, 3}, 1e-3, 7},
    {"be_u2", ">u2", KR_U16, 0, 1, 2, {2, 3}, 12345, 1},
    {"be_i2", ">i2", KR_I16, 0, 1, 1, {6}, 1001, -3003},
    {"u1", "|u1", KR_U8, 0, 1, 3, {2, 2, 2}, 30, 1},
    {"c16", "<c16", KR_C128, 0, 2, 2, {2, 3}, 0.7, 0.1},
    {"u2", "<u2", KR_U16, 0, 1, 1, {4}, 20000, 5},
    {"s0", "<f8", KR_F64, 0, 1, 0, {0}, 1, 3.5},
    {"one", "<f4", KR_F32, 0, 1, 1, {7}, 2, 0},
};

static double g_re(const spec *s, int64_t k) { return (double)k * s->scale + s->off; }
static double g_im(int64_t k) { return -((double)k + 0.5); }

/* Expected kray dims of a numpy shape. */
static int kray_dims(const spec *s, int64_t *dims)
{
    if (s->nshape == 0) {
        dims[0] = 1;
        return 1;
    }
    for (int i = 0; i < s->nshape; i++)
        dims[i] = s->fortran ? s->shape[i] : s->shape[s->nshape - 1 - i];
    return s->nshape;
}

/* numpy C-order linear index of kray linear index i. */
static int64_t numpy_index(const spec *s, int64_t i)
{
    if (!s->fortran) return i;
    int64_t k = 0;
    for (int d = 0; d < s->nshape; d++) { /* multi-index x_d, x_0 fastest in kray memory */
        int64_t x = i % s->shape[d];
        i /= s->shape[d];
        int64_t stride = 1;
        for (int e = d + 1; e < s->nshape; e++) stride *= s->shape[e];
        k += x * stride;
    }
    return k;
}

/* Compare element i of a with the value numpy computed (g, cast to the dtype). */
static int value_ok(const kr_array *a, int64_t i, double re, double im)
{
    switch (a->dtype) {
    case KR_F32: return ((float *)a->data)[i] == (float)re;
    case KR_F64: return ((double *)a->data)[i] == re;
    case KR_C64:
        return ((float *)a->data)[2 * i] == (float)re && ((float *)a->data)[2 * i + 1] == (float)im;
    case KR_C128:
        return ((double *)a->data)[2 * i] == re && ((double *)a->data)[2 * i + 1] == im;
    case KR_U8: return ((uint8_t *)a->data)[i] == (uint8_t)re;
    case KR_U16: return ((uint16_t *)a->data)[i] == (uint16_t)re;
    case KR_I16: return ((int16_t *)a->data)[i] == (int16_t)re;
    default: return 0;
    }
}

static void fill(kr_array *a, const spec *s)
{
    for (int64_t i = 0; i < kr_array_numel(a); i++) {
        double re = g_re(s, i), im = g_im(i);
        switch (a->dtype) {
        case KR_F32: ((float *)a->data)[i] = (float)re; break;
        case KR_F64: ((double *)a->data)[i] = re; break;
        case KR_C64:
            ((float *)a->data)[2 * i] = (float)re;
            ((float *)a->data)[2 * i + 1] = (float)im;
            break;
        case KR_C128:
            ((double *)a->data)[2 * i] = re;
            ((double *)a->data)[2 * i + 1] = im;
            break;
        case KR_U8: ((uint8_t *)a->data)[i] = (uint8_t)re; break;
        case KR_U16: ((uint16_t *)a->data)[i] = (uint16_t)re; break;
        case KR_I16: ((int16_t *)a->data)[i] = (int16_t)re; break;
        default: break;
        }
    }
}

static void test_roundtrip(void)
{
    int64_t shapes[3][3] = {{7, 1, 1}, {4, 3, 1}, {2, 3, 5}};
    int ndims[3] = {1, 2, 3};
    for (int t = KR_F32; t < KR_DTYPE_COUNT; t++)
        for (int k = 0; k < 3; k++) {
            spec s = {"rt", "", (kr_dtype)t, 0, 1, 0, {0}, t == KR_I16 ? -99 : 7, 3};
            kr_array *a = NULL;
            KT_OK(kr_array_create(&a, (kr_dtype)t, ndims[k], shapes[k], KR_HOST, NULL));
            fill(a, &s);
            if (t == KR_F32) ((float *)a->data)[0] = NAN;
            if (t == KR_F64) ((double *)a->data)[1] = -INFINITY;
            const char *path = kt_tmp("rt.npy");
            KT_OK(kr_write(path, a, NULL));
            kr_array *b = NULL;
            KT_OK(kr_read(path, &b, NULL, NULL));
            KT_CHECK_MSG(b && kr_array_same_shape(a, b) && b->ndim == a->ndim &&
                             memcmp(a->data, b->data, kr_array_bytes(a)) == 0,
                         "%s %dD round trip differs", kr_dtype_name(t), ndims[k]);
            KT_CHECK(kt_temps_left(path) == 0);
            kr_array_destroy(a);
            kr_array_destroy(b);
        }
}

/* The exact bytes kray writes: v1.0, C order, shape reversed, header padded to 64 bytes. */
static void test_header_bytes(void)
{
    int64_t dims[2] = {3, 2};
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, KR_I16, 2, dims, KR_HOST, NULL));
    for (int i = 0; i < 6; i++) ((int16_t *)a->data)[i] = (int16_t)(i - 2);
    const char *path = kt_tmp("hb.npy");
    KT_OK(kr_write(path, a, NULL));
    size_t n = 0;
    unsigned char *f = kt_slurp(path, &n);
    const char dict[] = "{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }";
    KT_CHECK_MSG(f && n == 128 + 12, "file is %zu bytes", n);
    if (f && n == 128 + 12) {
        KT_CHECK(memcmp(f, "\x93NUMPY\x01\x00\x76\x00", 10) == 0);
        KT_CHECK(memcmp(f + 10, dict, sizeof dict - 1) == 0);
        for (size_t i = 10 + sizeof dict - 1; i < 127; i++) KT_CHECK(f[i] == ' ');
        KT_CHECK(f[127] == '\n');
        const unsigned char data[12] = {0xfe, 0xff, 0xff, 0xff, 0, 0, 1, 0, 2, 0, 3, 0};
        KT_CHECK(memcmp(f + 128, data, 12) == 0);
    }
    free(f);
    kr_array_destroy(a);
    /* 1-D: "(5,)", u8: '|u1' */
    int64_t d1[1] = {5};
    KT_OK(kr_array_create(&a, KR_U8, 1, d1, KR_HOST, NULL));
    KT_OK(kr_write(path, a, NULL));
    f = kt_slurp(path, &n);
    KT_CHECK(f && strstr((char *)f + 10, "{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }"));
    free(f);
    kr_array_destroy(a);
    /* write_dtype converts */
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.write_dtype = KR_C128;
    KT_OK(kr_array_create(&a, KR_F32, 1, d1, KR_HOST, NULL));
    ((float *)a->data)[3] = 2.5f;
    KT_OK(kr_write(path, a, &o));
    kr_array *b = NULL;
    KT_OK(kr_read(path, &b, NULL, NULL));
    KT_CHECK(b && b->dtype == KR_C128 && ((double *)b->data)[6] == 2.5 && ((double *)b->data)[7] == 0);
    kr_array_destroy(a);
    kr_array_destroy(b);
}

/* Build a .npy file by hand. */
static void put_npy(const char *path, int major, int minor, const char *dict, size_t data_bytes)
{
    size_t dl = strlen(dict), pre = major == 1 ? 10 : 12;
    size_t hl = dl + 1, total = pre + hl + data_bytes;
    unsigned char *b = calloc(1, total);
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (unsigned char)major;
    b[7] = (unsigned char)minor;
    b[8] = (unsigned char)(hl & 0xff);
    b[9] = (unsigned char)(hl >> 8);
    if (pre == 12) b[10] = b[11] = 0;
    memcpy(b + pre, dict, dl);
    b[pre + dl] = '\n';
    for (size_t i = 0; i < data_bytes; i++) b[pre + hl + i] = (unsigned char)i;
    kt_put(path, b, total);
    free(b);
}

static void test_handmade_ok(void)
{
    const char *path = kt_tmp("hm.npy");
    kr_array *b = NULL;
    /* double quotes, no trailing comma, keys in another order, Python 2 longs, v2 preamble */
    put_npy(path, 2, 0, "{\"shape\": (3L, 2L), \"fortran_order\": False, \"descr\": \"<u2\"}", 12);
    KT_OK(kr_read(path, &b, NULL, NULL));
    KT_CHECK(b && b->dtype == KR_U16 && b->ndim == 2 && b->dims[0] == 2 && b->dims[1] == 3);
    if (b) KT_CHECK(((uint16_t *)b->data)[1] == 0x0302); /* bytes 2, 3 little-endian */
    kr_array_destroy(b);
    b = NULL;
    put_npy(path, 1, 0, "{'descr': '>u2', 'fortran_order': True, 'shape': ( 3 , 2 , ) , }", 12);
    KT_OK(kr_read(path, &b, NULL, NULL));
    KT_CHECK(b && b->dims[0] == 3 && b->dims[1] == 2);
    if (b) KT_CHECK(((uint16_t *)b->data)[1] == 0x0203); /* big-endian */
    kr_array_destroy(b);
    b = NULL;
    put_npy(path, 1, 0, "{'descr': '<u1', 'fortran_order': False, 'shape': (1, 1, 4), }", 4);
    KT_OK(kr_read(path, &b, NULL, NULL));
    KT_CHECK(b && b->ndim == 3 && b->dims[0] == 4 && b->dims[1] == 1 && b->dims[2] == 1);
    kr_array_destroy(b);
}

static void test_bad_files(void)
{
    const char *path = kt_tmp("bad.npy");
    kr_array *b = NULL;
    static const char good[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    static const struct {
        int major, minor;
        const char *dict;
        size_t data;
    } bad[] = {
        {4, 0, good, 24},                                                          /* version */
        {1, 1, good, 24},                                                          /* minor */
        {0, 0, good, 24},
        {1, 0, good, 23},                                                          /* short */
        {1, 0, good, 0},                                                           /* no data */
        {1, 0, good, 25},                                                          /* long */
        {2, 0, good, 28},                                                          /* long v2 */
        {1, 0, "{'descr': '<f4', 'fortran_order': False}", 24},                    /* no shape */
        {1, 0, "{'descr': '<f4', 'shape': (2, 3)}", 24},                           /* no order */
        {1, 0, "{'fortran_order': False, 'shape': (2, 3)}", 24},                   /* no descr */
        {1, 0, "{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }", 24}, /* int32 */
        {1, 0, "{'descr': '<f2', 'fortran_order': False, 'shape': (2, 3), }", 12}, /* half */
        {1, 0, "{'descr': '|b1', 'fortran_order': False, 'shape': (2, 3), }", 6},  /* bool */
        {1, 0, "{'descr': '|f4', 'fortran_order': False, 'shape': (2, 3), }", 24}, /* no order */
        {1, 0, "{'descr': 'f4', 'fortran_order': False, 'shape': (2, 3), }", 24},  /* no mark */
        {1, 0, "{'descr': '!f4', 'fortran_order': False, 'shape': (2, 3), }", 24}, /* bad mark */
        {1, 0, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,), }", 8},
        {1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (nan, 3), }", 24},
        {1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3), }", 24},
        {1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2.0, 3), }", 24},
        {1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 0), }", 0},
        {1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (1048576, 2097152), }", 24},
        {1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }",
         24},
        {1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }",
         24},
        {1, 0,
         "{'descr': '<f4', 'fortran_order': False, 'shape': "
         "(1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,6), }",
         24},                                                                       /* 17 dims */
        {1, 0, "{'descr': '<f4', 'fortran_order': maybe, 'shape': (2, 3), }", 24},
        {1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'x': 1}", 24},
        {1, 0, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}", 24},
        {1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), ", 24},  /* no '}' */
        {1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)} x", 24}, /* trailing */
        {1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3 }", 24},
        {1, 0, "{'descr': '<f4, 'fortran_order': False, 'shape': (2, 3)}", 24},
        {1, 0, "['descr', '<f4']", 24},
        {1, 0, "", 24},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        put_npy(path, bad[k].major, bad[k].minor, bad[k].dict, bad[k].data);
        kr_status s = kr_read(path, &b, NULL, NULL);
        KT_CHECK_MSG(s == KR_ERR_FORMAT && strstr(kr_last_error(), path),
                     "bad file %zu (v%d.%d \"%s\", %zu data bytes) gave %s: %s", k, bad[k].major,
                     bad[k].minor, bad[k].dict, bad[k].data, kr_status_string(s), kr_last_error());
        KT_CHECK(b == NULL);
    }
    /* header length runs past the end of the file */
    unsigned char h[] = "\x93NUMPY\x01\x00\xff\x7f{'descr': '<f4'";
    kt_put(path, h, sizeof h - 1);
    KT_FAILS_NAMING(kr_read(path, &b, NULL, NULL), KR_ERR_FORMAT, path);
    unsigned char h2[] = "\x93NUMPY\x02\x00\x00\x00\x00\x80{}";
    kt_put(path, h2, sizeof h2 - 1);
    KT_FAILS_NAMING(kr_read(path, &b, NULL, NULL), KR_ERR_FORMAT, path);
    /* bad magic, truncated preambles, NUL in the header */
    kt_put_str(path, "\x93NUMPZ\x01\x00\x10\x00{}");
    KT_FAILS_NAMING(kr_read(path, &b, NULL, NULL), KR_ERR_FORMAT, path);
    kt_put_str(path, "\x93NUM");
    KT_FAILS_NAMING(kr_read(path, &b, NULL, NULL), KR_ERR_FORMAT, path);
    kt_put(path, "\x93NUMPY\x01", 7);
    KT_FAILS_NAMING(kr_read(path, &b, NULL, NULL), KR_ERR_FORMAT, path);
    kt_put(path, "\x93NUMPY\x02\x00\x01\x00\x00", 11);
    KT_FAILS_NAMING(kr_read(path, &b, NULL, NULL), KR_ERR_FORMAT, path);
    kt_put(path, "\x93NUMPY\x01\x00\x03\x00{\0}", 13);
    KT_FAILS_NAMING(kr_read(path, &b, NULL, NULL), KR_ERR_FORMAT, path);
    kt_put(path, "", 0);
    KT_FAILS_NAMING(kr_read(path, &b, NULL, NULL), KR_ERR_FORMAT, path);
    /* missing file */
    remove(path);
    KT_FAILS_NAMING(kr_read(path, &b, NULL, NULL), KR_ERR_IO, path);
}

/* ---- numpy writes, kray reads ------------------------------------------------------------ */
static void test_numpy_to_kray(void)
{
    if (!kt_have_numpy()) {
        printf("note: %s with numpy not found; skipping numpy -> kray\n", KT_PY);
        return;
    }
    char script[1100], name[1100];
    snprintf(script, sizeof script, "%s", kt_tmp("mk.py"));
    FILE *f = fopen(script, "w");
    KT_CHECK(f != NULL);
    if (!f) return;
    fprintf(f, "import sys, numpy as np\n"
               "def mk(path, shape, dt, fortran, version, scale, off):\n"
               "    n = int(np.prod(shape))\n"
               "    k = np.arange(n, dtype=np.float64).reshape(shape)\n"
               "    a = k * scale + off\n"
               "    if np.dtype(dt).kind == 'c':\n"
               "        a = a - 1j * (k + 0.5)\n"
               "    a = a.astype(dt)\n"
               "    if fortran:\n"
               "        a = np.asfortranarray(a)\n"
               "        assert not a.flags.c_contiguous\n"
               "    with open(path, 'wb') as fh:\n"
               "        np.lib.format.write_array(fh, a, version=(version, 0))\n");
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        const spec *s = &specs[i];
        snprintf(name, sizeof name, "%s.npy", kt_tmp(s->name));
        fprintf(f, "mk('%s', (", name);
        for (int d = 0; d < s->nshape; d++) fprintf(f, "%lld,", (long long)s->shape[d]);
        fprintf(f, "), '%s', %s, %d, %.17g, %.17g)\n", s->descr, s->fortran ? "True" : "False",
                s->version, s->scale, s->off);
    }
    fclose(f);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "%s %s", KT_PY, script);
    KT_CHECK_MSG(kt_sh(cmd) == 0, "'%s' failed", cmd);
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        const spec *s = &specs[i];
        kr_array *b = NULL;
        snprintf(name, sizeof name, "%s.npy", kt_tmp(s->name));
        KT_OK(kr_read(name, &b, NULL, NULL));
        if (!b) continue;
        int64_t dims[4];
        int nd = kray_dims(s, dims);
        KT_CHECK_MSG(b->dtype == s->dtype && b->ndim == nd, "%s: dtype %s ndim %d", s->name,
                     kr_dtype_name(b->dtype), b->ndim);
        int ok = b->ndim == nd;
        for (int d = 0; ok && d < nd; d++) ok = b->dims[d] == dims[d];
        KT_CHECK_MSG(ok, "%s: dims differ", s->name);
        for (int64_t e = 0; ok && e < kr_array_numel(b); e++) {
            int64_t k = numpy_index(s, e);
            KT_CHECK_MSG(value_ok(b, e, g_re(s, k), g_im(k)), "%s: element %lld (numpy %lld)",
                         s->name, (long long)e, (long long)k);
        }
        kr_array_destroy(b);
    }
}

/* ---- kray writes, numpy reads ------------------------------------------------------------ */
static void test_kray_to_numpy(void)
{
    if (!kt_have_numpy()) {
        printf("note: %s with numpy not found; skipping kray -> numpy\n", KT_PY);
        return;
    }
    static const int64_t dims[3] = {4, 3, 2}; /* kray [x, y, z] -> numpy (2, 3, 4) */
    char script[1100], path[1100];
    snprintf(script, sizeof script, "%s", kt_tmp("chk.py"));
    FILE *f = fopen(script, "w");
    KT_CHECK(f != NULL);
    if (!f) return;
    fprintf(f, "import io, numpy as np\n"
               "def chk(path, descr, ndim, scale, off):\n"
               "    a = np.load(path)\n"
               "    shape = (2, 3, 4)[3 - ndim:]\n"
               "    k = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)\n"
               "    e = k * scale + off\n"
               "    if np.dtype(descr).kind == 'c':\n"
               "        e = e - 1j * (k + 0.5)\n"
               "    e = e.astype(descr)\n"
               "    ok = a.shape == shape and a.dtype.str == descr and a.flags.c_contiguous\n"
               "    ok = ok and np.array_equal(a, e)\n"
               "    ref = io.BytesIO()\n"
               "    np.save(ref, e)  # byte-identical to what numpy itself writes\n"
               "    ok = ok and open(path, 'rb').read() == ref.getvalue()\n"
               "    if ndim >= 2:  # img[y, x] is kray (x, y): x = 2, y = 1 -> linear 2 + 1 * 4\n"
               "        ok = ok and a[(0,) * (ndim - 2) + (1, 2)] == e.ravel()[6]\n"
               "    print(('OK ' if ok else 'BAD ') + path + ' ' + str(a.shape) + ' ' + a.dtype.str)\n");
    int count = 0;
    for (int t = KR_F32; t < KR_DTYPE_COUNT; t++)
        for (int nd = 1; nd <= 3; nd++) {
            spec s = {"", "", (kr_dtype)t, 0, 1, 0, {0}, t == KR_I16 ? -999 : 9, 4};
            kr_array *a = NULL;
            KT_OK(kr_array_create(&a, (kr_dtype)t, nd, dims, KR_HOST, NULL));
            fill(a, &s);
            char name[32];
            snprintf(name, sizeof name, "k%d_%d.npy", t, nd);
            snprintf(path, sizeof path, "%s", kt_tmp(name));
            KT_OK(kr_write(path, a, NULL));
            static const char *descr[] = {"", "<f4", "<f8", "<c8", "<c16", "|u1", "<u2", "<i2"};
            fprintf(f, "chk('%s', '%s', %d, %.17g, %.17g)\n", path, descr[t], nd,
                    s.scale, s.off);
            count++;
            kr_array_destroy(a);
        }
    fclose(f);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "%s %s 2>&1", KT_PY, script);
    int st;
    char *out = kt_sh_out(cmd, &st);
    KT_CHECK_MSG(out && st == 0, "'%s' failed: %s", cmd, out ? out : "");
    int oks = 0;
    for (const char *p = out; p && (p = strstr(p, "OK ")); p += 3) oks++;
    KT_CHECK_MSG(oks == count && !strstr(out ? out : "", "BAD"), "numpy checks: %d of %d OK:\n%s",
                 oks, count, out ? out : "");
    free(out);
}

int main(void)
{
    KT_RUN(test_roundtrip);
    KT_RUN(test_header_bytes);
    KT_RUN(test_handmade_ok);
    KT_RUN(test_bad_files);
    KT_RUN(test_numpy_to_kray);
    KT_RUN(test_kray_to_numpy);
    kt_cleanup_tmp();
    return kt_finish();
}
