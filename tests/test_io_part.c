/* kr_read_part: every axis of arrays in .npy (little- and big-endian, Fortran order), .cfl,
 * .raw (read in place) and .nii, .mha (read whole and cut) against the whole array cut here;
 * bad ranges. */
#include "kt.h"

#include <stdlib.h>
#include <string.h>

static kr_array *ramp(kr_dtype t, int nd, const int64_t *d)
{
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, t, nd, d, KR_HOST, NULL));
    const int64_t n = kr_array_numel(a) * (kr_dtype_is_complex(t) ? 2 : 1);
    for (int64_t i = 0; i < n; i++) {
        if (t == KR_F32 || t == KR_C64) ((float *)a->data)[i] = (float)(i * 0.5 - 3);
        else if (t == KR_F64) ((double *)a->data)[i] = i * 0.25 - 1;
        else if (t == KR_I16) ((int16_t *)a->data)[i] = (int16_t)(i - 40);
    }
    return a;
}

/* a's indices [s, s + c) along axis, cut by hand, equal part? */
static int equal_part(const kr_array *a, int axis, int64_t s, int64_t c, const kr_array *part)
{
    int64_t inner = 1, outer = 1;
    for (int d = 0; d < a->ndim; d++) {
        if (d < axis) inner *= a->dims[d];
        if (d > axis) outer *= a->dims[d];
    }
    if (part->dims[axis] != c || part->dtype != a->dtype) return 0;
    const size_t es = kr_dtype_size(a->dtype), run = (size_t)(inner * c) * es;
    for (int64_t o = 0; o < outer; o++)
        if (memcmp((const char *)part->data + o * run,
                   (const char *)a->data + (size_t)((o * a->dims[axis] + s) * inner) * es, run))
            return 0;
    return 1;
}

static void check_file(const char *path, const kr_array *a, const kr_io_opts *o)
{
    for (int axis = 0; axis < a->ndim; axis++)
        for (int64_t s = 0; s < a->dims[axis]; s += 2) {
            const int64_t c = a->dims[axis] - s > 2 ? 2 : a->dims[axis] - s;
            kr_array *p = NULL;
            KT_OK(kr_read_part(path, axis, s, c, &p, NULL, o));
            KT_CHECK_MSG(p && equal_part(a, axis, s, c, p), "%s: axis %d, [%lld, +%lld)", path,
                         axis, (long long)s, (long long)c);
            kr_array_destroy(p);
        }
    kr_array *p = NULL;
    int nd = 0;
    int64_t dd[KR_MAX_DIMS];
    kr_dtype dt = KR_DTYPE_INVALID;
    KT_OK(kr_read_shape(path, &nd, dd, &dt, o));
    KT_CHECK(nd == a->ndim && dt == a->dtype && !memcmp(dd, a->dims, (size_t)nd * sizeof *dd));
    KT_STATUS(kr_read_part(path, 1, 2, a->dims[1], &p, NULL, o), KR_ERR_DIM);
    KT_STATUS(kr_read_part(path, 0, -1, 1, &p, NULL, o), KR_ERR_DIM);
    KT_STATUS(kr_read_part(path, 0, 0, 0, &p, NULL, o), KR_ERR_DIM);
    KT_STATUS(kr_read_part(path, -1, 0, 1, &p, NULL, o), KR_ERR_INVALID_ARG);
    /* an axis past the array's dims is a dim of 1 */
    KT_OK(kr_read_part(path, a->ndim, 0, 1, &p, NULL, o));
    KT_CHECK(p && kr_array_numel(p) == kr_array_numel(a));
    kr_array_destroy(p);
}

static void test_formats(void)
{
    const int64_t d[3] = {5, 4, 7};
    const char *names[] = {"part.npy", "part.cfl", "part.raw", "part.nii", "part.mha"};
    const kr_dtype types[] = {KR_F32, KR_C64, KR_I16, KR_F64, KR_F32};
    for (int i = 0; i < 5; i++) {
        kr_array *a = ramp(types[i], 3, d);
        const char *path = kt_tmp(names[i]);
        KT_OK(kr_write(path, a, NULL));
        kr_io_opts o;
        kr_io_opts_default(&o);
        o.raw_dtype = types[i];
        o.raw_ndim = 3;
        memcpy(o.raw_dims, d, sizeof d);
        check_file(path, a, &o);
        kr_array_destroy(a);
    }
}

/* A big-endian, Fortran-order .npy written byte by byte: dims (4, 3) as stored. */
static void test_npy_variants(void)
{
    const char *path = kt_tmp("part_be.npy");
    FILE *f = fopen(path, "wb");
    KT_CHECK(f != NULL);
    if (!f) return;
    char hdr[118];
    memset(hdr, ' ', sizeof hdr);
    const char *dict = "{'descr': '>f4', 'fortran_order': True, 'shape': (4, 3), }";
    memcpy(hdr, dict, strlen(dict));
    hdr[sizeof hdr - 1] = '\n';
    const unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, sizeof hdr, 0};
    fwrite(pre, 1, sizeof pre, f);
    fwrite(hdr, 1, sizeof hdr, f);
    for (int i = 0; i < 12; i++) {
        float v = (float)i + 0.5f;
        unsigned char b[4], *p = (unsigned char *)&v;
        for (int k = 0; k < 4; k++) b[k] = p[3 - k];
        fwrite(b, 1, 4, f);
    }
    fclose(f);
    kr_array *a = NULL;
    KT_OK(kr_read(path, &a, NULL, NULL));
    KT_CHECK(a && a->dims[0] == 4 && a->dims[1] == 3 && ((float *)a->data)[5] == 5.5f);
    if (a) check_file(path, a, NULL);
    kr_array_destroy(a);
}

int main(void)
{
    KT_RUN(test_formats);
    KT_RUN(test_npy_variants);
    return kt_finish();
}
