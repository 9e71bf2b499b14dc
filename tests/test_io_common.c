/* I/O entry points shared by the formats cfl, npy, raw and pgm: dumb inputs to kr_read/kr_write
 * with exact statuses, format detection, missing files, and the safe-write guarantees (a failed
 * write leaves neither the file nor a temporary; an overwrite replaces the file whole). */
#include "internal.h"
#include "io_test_util.h"

#include <stdint.h>

static const char *const exts[4] = {".cfl", ".npy", ".raw", ".pgm"};

/* Main file of a written path (the .cfl of a pair). */
static void path_for(char *buf, size_t n, const char *stem, int k)
{
    snprintf(buf, n, "%s%s", kt_tmp(stem), exts[k]);
}

static void test_format_from_path(void)
{
    KT_CHECK(kr_format_from_path("a.cfl") == KR_FMT_CFL);
    KT_CHECK(kr_format_from_path("a.hdr") == KR_FMT_CFL);
    KT_CHECK(kr_format_from_path("dir.v2/a") == KR_FMT_CFL); /* no extension: BART pair */
    KT_CHECK(kr_format_from_path("a.NPY") == KR_FMT_NPY);
    KT_CHECK(kr_format_from_path("x/y.raw") == KR_FMT_RAW);
    KT_CHECK(kr_format_from_path("y.pgm") == KR_FMT_PGM);
    KT_CHECK(kr_format_from_path("y.xyz") == KR_FMT_UNKNOWN);
    KT_CHECK(kr_format_from_path(NULL) == KR_FMT_UNKNOWN);
    KT_CHECK(strcmp(kr_format_name(KR_FMT_NPY), "npy") == 0);
}

static void test_dumb_inputs(void)
{
    int64_t dims[2] = {4, 3};
    kr_array *a = NULL, *out = (kr_array *)&out; /* non-NULL garbage must be reset */
    KT_OK(kr_array_create(&a, KR_F32, 2, dims, KR_HOST, NULL));
    kr_io_opts o;
    kr_io_opts_default(&o);
    KT_STATUS(kr_read(NULL, &out, NULL, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_read("x.npy", NULL, NULL, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_read("x.xyz", &out, NULL, NULL), KR_ERR_INVALID_ARG);
    KT_CHECK(out == NULL);
    KT_STATUS(kr_write(NULL, a, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_write("x.xyz", a, NULL), KR_ERR_INVALID_ARG);

    for (int k = 0; k < 4; k++) {
        char p[1200];
        path_for(p, sizeof p, "dumb", k);
        KT_FAILS_NAMING(kr_write(p, NULL, NULL), KR_ERR_INVALID_ARG, p);
        kr_array bad = *a;
        bad.dtype = KR_DTYPE_INVALID;
        KT_FAILS_NAMING(kr_write(p, &bad, &o), KR_ERR_DTYPE, p);
        bad = *a;
        bad.dtype = (kr_dtype)42;
        KT_STATUS(kr_write(p, &bad, &o), KR_ERR_DTYPE);
        bad = *a;
        bad.ndim = 0;
        KT_STATUS(kr_write(p, &bad, &o), KR_ERR_DIM);
        bad = *a;
        bad.ndim = KR_MAX_DIMS + 1;
        KT_STATUS(kr_write(p, &bad, &o), KR_ERR_DIM);
        bad = *a;
        bad.dims[1] = 0;
        KT_STATUS(kr_write(p, &bad, &o), KR_ERR_DIM);
        bad.dims[1] = -3;
        KT_STATUS(kr_write(p, &bad, &o), KR_ERR_DIM);
        bad = *a;
        bad.data = NULL;
        KT_STATUS(kr_write(p, &bad, &o), KR_ERR_INVALID_ARG);
        bad = *a;
        bad.loc = KR_DEVICE; /* never read device pointers from the host */
        KT_STATUS(kr_write(p, &bad, &o), KR_ERR_LOCATION);
        bad = *a;
        bad.strides[1] = 8; /* a strided view */
        KT_STATUS(kr_write(p, &bad, &o), KR_ERR_NOT_SUPPORTED);
        KT_CHECK_MSG(!kt_exists(p) && kt_temps_left(p) == 0, "%s: a failed write left a file",
                     p);
        /* reading a missing file: KR_ERR_IO naming it (raw needs its options first) */
        kr_io_opts ro;
        kr_io_opts_default(&ro);
        ro.raw_dtype = KR_F32;
        ro.raw_ndim = 2;
        ro.raw_dims[0] = 4;
        ro.raw_dims[1] = 3;
        out = (kr_array *)&out;
        KT_FAILS_NAMING(kr_read(p, &out, NULL, &ro), KR_ERR_IO, kt_tmp("dumb"));
        KT_CHECK(out == NULL);
    }
    kr_array_destroy(a);
}

/* For every format: write into a directory that does not exist (no file); write a big array
 * then a small one over it (replaced whole, no temporaries); read back the small one. */
static void test_safe_write(void)
{
    int64_t big[2] = {64, 48}, small[2] = {3, 2};
    kr_array *b = NULL, *s = NULL;
    KT_OK(kr_array_create(&b, KR_U8, 2, big, KR_HOST, NULL));
    KT_OK(kr_array_create(&s, KR_U8, 2, small, KR_HOST, NULL));
    for (int i = 0; i < 64 * 48; i++) ((uint8_t *)b->data)[i] = (uint8_t)(i * 7);
    for (int i = 0; i < 6; i++) ((uint8_t *)s->data)[i] = (uint8_t)(40 * i + 1);
    for (int k = 0; k < 4; k++) {
        char p[1200], nodir[1300];
        path_for(p, sizeof p, "safe", k);
        snprintf(nodir, sizeof nodir, "%s_missing_dir/f%s", kt_tmp("safe"), exts[k]);
        KT_FAILS_NAMING(kr_write(nodir, s, NULL), KR_ERR_IO, "_missing_dir/f");
        KT_CHECK(!kt_exists(nodir));

        KT_OK(kr_write(p, b, NULL));
        long long big_size = kt_fsize(p);
        KT_OK(kr_write(p, s, NULL));
        long long small_size = kt_fsize(p);
        KT_CHECK_MSG(small_size > 0 && small_size < big_size && small_size < 200,
                     "%s: %lld bytes after overwriting a %lld-byte file", p, small_size,
                     big_size);
        KT_CHECK(kt_temps_left(p) == 0);
        kr_io_opts ro;
        kr_io_opts_default(&ro);
        ro.raw_dtype = KR_U8;
        ro.raw_ndim = 2;
        ro.raw_dims[0] = 3;
        ro.raw_dims[1] = 2;
        kr_array *r = NULL;
        KT_OK(kr_read(p, &r, NULL, &ro));
        KT_CHECK(r && r->dims[0] == 3 && r->dims[1] == 2 && kr_array_numel(r) == 6);
        for (int i = 0; r && i < 6; i++)
            KT_CHECK_MSG(kr_array_get_f64(r, i) == 40 * i + 1, "%s element %d", p, i);
        kr_array_destroy(r);

        /* the target is a directory: the rename fails, nothing is left behind */
        char dirp[1300];
        snprintf(dirp, sizeof dirp, "%s_isdir%s", kt_tmp("safe"), exts[k]);
        mkdir(dirp, 0755);
        KT_FAILS_NAMING(kr_write(dirp, s, NULL), KR_ERR_IO, "_isdir");
        KT_CHECK(kt_temps_left(dirp) == 0);
        rmdir(dirp);
    }
    kr_array_destroy(b);
    kr_array_destroy(s);
}

/* A directory given as the file to read. */
static void test_read_directory(void)
{
    for (int k = 1; k < 4; k++) {
        char p[1200];
        path_for(p, sizeof p, "rdir", k);
        mkdir(p, 0755);
        kr_io_opts ro;
        kr_io_opts_default(&ro);
        ro.raw_dtype = KR_U8;
        ro.raw_ndim = 1;
        ro.raw_dims[0] = 1;
        kr_array *r = NULL;
        KT_FAILS_NAMING(kr_read(p, &r, NULL, &ro), KR_ERR_IO, p);
        rmdir(p);
    }
}

int main(void)
{
    KT_RUN(test_format_from_path);
    KT_RUN(test_dumb_inputs);
    KT_RUN(test_safe_write);
    KT_RUN(test_read_directory);
    kt_cleanup_tmp();
    return kt_finish();
}
