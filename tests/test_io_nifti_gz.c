/* gzip-compressed NIfTI-1 (.nii.gz): the file is a gzip stream whose content is byte for byte
 * the .nii kray writes for the same array; round trips of every type with their metadata; files
 * of several gzip members (as written by tools that flush between header and data); corrupt,
 * truncated and short streams; atomic writes; nibabel reading kray's .nii.gz and kray reading
 * nibabel's. */
#include "kt_io.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

static const kr_dtype all_types[] = {KR_U8, KR_I16, KR_U16, KR_F32, KR_F64, KR_C64, KR_C128};

/* The whole decompressed content of a gzip file (any members), or NULL. */
static unsigned char *gunzip(const char *path, size_t *n)
{
    gzFile g = gzopen(path, "rb");
    if (!g) return NULL;
    size_t cap = 1 << 16, len = 0;
    unsigned char *b = malloc(cap);
    for (int r; b && (r = gzread(g, b + len, (unsigned)(cap - len))) > 0;) {
        len += (size_t)r;
        if (len == cap) {
            unsigned char *nb = realloc(b, cap *= 2);
            if (!nb) free(b);
            b = nb;
        }
    }
    gzclose(g);
    *n = len;
    return b;
}

/* n bytes as one gzip member appended to path (mode "ab") or a new file ("wb"). */
static int gzip_append(const char *path, const char *mode, const void *p, size_t n)
{
    gzFile g = gzopen(path, mode);
    if (!g) return -1;
    int ok = n == 0 || gzwrite(g, p, (unsigned)n) == (int)n;
    return gzclose(g) == Z_OK && ok ? 0 : -1;
}

static void test_content_and_round_trips(void)
{
    int64_t dims[3] = {5, 4, 3};
    kr_meta m = ktio_meta("kray gz volume");
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.meta = &m;
    KT_CHECK(kr_format_from_path("a/b.nii.gz") == KR_FMT_NIFTI);
    KT_CHECK(kr_format_from_path("B.NII.GZ") == KR_FMT_NIFTI);
    KT_CHECK(kr_format_from_path("b.gz") == KR_FMT_UNKNOWN);
    for (size_t t = 0; t < sizeof all_types / sizeof all_types[0]; t++) {
        kr_array *a = ktio_make(all_types[t], 3, dims);
        const char *p = kt_tmp("rt.nii.gz"), *q = kt_tmp("rt_plain.nii");
        KT_OK(kr_write(p, a, &o));
        KT_OK(kr_write(q, a, &o));
        KT_CHECK(ktio_temp_files(p) == 0);
        size_t nz = 0, nu = 0, np = 0;
        unsigned char *z = ktio_get(p, &nz), *u = gunzip(p, &nu), *plain = ktio_get(q, &np);
        KT_CHECK_MSG(z && nz > 2 && z[0] == 0x1f && z[1] == 0x8b, "%s: not a gzip file",
                     kr_dtype_name(all_types[t]));
        KT_CHECK_MSG(u && plain && nu == np && memcmp(u, plain, np) == 0,
                     "%s: the decompressed .nii.gz differs from the .nii",
                     kr_dtype_name(all_types[t]));
        free(z);
        free(u);
        free(plain);
        ktio_check_read_back(p, a, &m, kr_dtype_name(all_types[t]));
        kr_array_destroy(a);
        remove(p);
        remove(q);
    }
    /* a volume large enough for several compression buffers (8 MiB of f32) */
    int64_t big[3] = {128, 128, 128};
    kr_array *a = ktio_make(KR_F32, 3, big), *r = NULL;
    const char *p = kt_tmp("big.nii.gz");
    KT_OK(kr_write(p, a, NULL));
    KT_OK(kr_read(p, &r, NULL, NULL));
    KT_CHECK(ktio_equal(r, a));
    kr_array_destroy(a);
    kr_array_destroy(r);
    remove(p);
}

static void test_members_and_bad_streams(void)
{
    int64_t dims[3] = {6, 5, 4};
    kr_array *a = ktio_make(KR_I16, 3, dims), *r = NULL;
    const char *q = kt_tmp("m_plain.nii"), *p = kt_tmp("m.nii.gz");
    KT_OK(kr_write(q, a, NULL));
    size_t n = 0;
    unsigned char *plain = ktio_get(q, &n);
    KT_CHECK(plain && n == 352 + kr_array_bytes(a));
    if (!plain) return;
    /* header and data as separate gzip members, the data split again */
    KT_CHECK(gzip_append(p, "wb", plain, 352) == 0);
    KT_CHECK(gzip_append(p, "ab", plain + 352, 100) == 0);
    KT_CHECK(gzip_append(p, "ab", plain + 452, n - 452) == 0);
    KT_OK(kr_read(p, &r, NULL, NULL));
    KT_CHECK(r && ktio_equal(r, a));
    kr_array_destroy(r);
    r = NULL;
    /* data that end early (decompressed) */
    KT_CHECK(gzip_append(p, "wb", plain, n - 10) == 0);
    KTIO_READ_FAILS(p, KR_ERR_FORMAT, "data end");
    /* too short for the header, and nothing at all */
    KT_CHECK(gzip_append(p, "wb", plain, 200) == 0);
    KTIO_READ_FAILS(p, KR_ERR_FORMAT, "348");
    KT_CHECK(gzip_append(p, "wb", plain, 0) == 0);
    KTIO_READ_FAILS(p, KR_ERR_FORMAT, "348");
    /* a compressed file cut short, and one with its deflate data overwritten */
    KT_CHECK(gzip_append(p, "wb", plain, n) == 0);
    size_t nz = 0;
    unsigned char *z = ktio_get(p, &nz);
    KT_CHECK(z && nz > 60);
    if (z) {
        KT_CHECK(ktio_put(p, z, nz / 2) == 0);
        KTIO_READ_FAILS(p, KR_ERR_FORMAT, NULL);
        for (size_t i = 20; i < nz - 8; i++)
            z[i] = (unsigned char)(0xA5 ^ i);
        KT_CHECK(ktio_put(p, z, nz) == 0);
        KTIO_READ_FAILS(p, KR_ERR_FORMAT, NULL);
        free(z);
    }
    KTIO_READ_FAILS(kt_tmp("missing.nii.gz"), KR_ERR_IO, NULL);
    /* a failed write leaves no file and no temporary file behind */
    const char *d = kt_tmp("no/such/dir.nii.gz");
    KT_STATUS(kr_write(d, a, NULL), KR_ERR_IO);
    KT_CHECK(!ktio_exists(d));
    free(plain);
    kr_array_destroy(a);
    remove(p);
    remove(q);
}

static const char *nib_script =
    "import sys, os\n"
    "import numpy as np, nibabel as nib\n"
    "mode, d = sys.argv[1], sys.argv[2]\n"
    "want = (np.arange(60) * 0.5 - 3.25).astype(np.float32).reshape((5, 4, 3), order='F')\n"
    "if mode == 'check':\n"
    "    img = nib.load(os.path.join(d, 'kr.nii.gz'))\n"
    "    a = np.asanyarray(img.dataobj)\n"
    "    ok = a.dtype == np.float32 and np.array_equal(a, want)\n"
    "    ok = ok and tuple(float(z) for z in img.header.get_zooms()) == (0.75, 1.25, 2.5)\n"
    "    ok = ok and np.array_equal(img.affine[:3, 3], (10.5, -20.25, 3.0))\n"
    "    sys.exit(0 if ok else 1)\n"
    "aff = np.diag([0.5, 0.75, 2.0, 1.0]); aff[:3, 3] = (1.5, -2.0, 4.0)\n"
    "nib.save(nib.Nifti1Image(want, aff), os.path.join(d, 'nb.nii.gz'))\n";

static void test_nibabel(void)
{
    if (!ktio_python_has("nibabel")) {
        printf("note: /usr/bin/python3 with nibabel not found; nibabel interop not run\n");
        return;
    }
    char dir[1024], script[1200], cmd[4096], p[1200];
    snprintf(dir, sizeof dir, "%s", kt_tmp("nibgz"));
    mkdir(dir, 0755);
    snprintf(script, sizeof script, "%s/nib.py", dir);
    KT_CHECK(ktio_put(script, nib_script, strlen(nib_script)) == 0);
    /* kray -> nibabel: 0.5 i - 3.25, the values the script expects */
    int64_t dims[3] = {5, 4, 3};
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, KR_F32, 3, dims, KR_HOST, NULL));
    for (int i = 0; i < 60; i++)
        ((float *)a->data)[i] = 0.5f * (float)i - 3.25f;
    kr_meta m = ktio_meta("kray");
    kr_io_opts o;
    kr_io_opts_default(&o);
    o.meta = &m;
    snprintf(p, sizeof p, "%s/kr.nii.gz", dir);
    KT_OK(kr_write(p, a, &o));
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s check %s", script, dir);
    KT_CHECK_MSG(system(cmd) == 0, "nibabel did not read kray's .nii.gz");
    /* nibabel -> kray */
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s write %s", script, dir);
    KT_CHECK_MSG(system(cmd) == 0, "nibabel failed to write a .nii.gz");
    snprintf(p, sizeof p, "%s/nb.nii.gz", dir);
    kr_array *r = NULL;
    kr_meta rm;
    KT_OK(kr_read(p, &r, &rm, NULL));
    KT_CHECK(r && ktio_equal(r, a));
    KT_CHECK(rm.spacing[0] == 0.5 && rm.spacing[1] == 0.75 && rm.spacing[2] == 2.0);
    KT_CHECK(rm.origin[0] == -1.5 && rm.origin[1] == 2.0 && rm.origin[2] == 4.0); /* LPS */
    kr_array_destroy(a);
    kr_array_destroy(r);
    ktio_rmdir(dir);
}

int main(void)
{
    KT_RUN(test_content_and_round_trips);
    KT_RUN(test_members_and_bad_streams);
    KT_RUN(test_nibabel);
    return kt_finish();
}
