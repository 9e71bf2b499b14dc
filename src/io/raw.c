/* Raw samples without a header. Reading needs kr_io_opts: raw_dtype, raw_ndim, raw_dims
 * (fastest first), raw_big_endian (0 little, non-zero big) and raw_offset (bytes skipped at the
 * start). The file must hold exactly raw_offset + numel * dtype size bytes.
 * Writing stores the array's samples (converted to write_dtype when set) in little-endian order,
 * with no header and no offset; the raw_* fields are ignored when writing.
 * Complex samples are interleaved (re, im) pairs; byte order applies to each part. */
#include "fmtcommon.h"

#include <errno.h>
#include <string.h>

/* The checks of kri_read_raw: the options' dims and type against the file's size. */
static kr_status kri_raw_check(const char *path, const kr_io_opts *o, uint64_t *data)
{
    if (kr_dtype_size(o->raw_dtype) == 0)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "%s: reading a raw file needs its element type (kr_io_opts.raw_dtype)",
                        path);
    char what[4200];
    snprintf(what, sizeof what, "%s: raw dims", path);
    if (o->raw_ndim < 1 || o->raw_ndim > KR_MAX_DIMS)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "%s: reading a raw file needs 1..%d dims (kr_io_opts.raw_ndim is %d)",
                        path, KR_MAX_DIMS, o->raw_ndim);
    KRI_TRY(kr_dims_check(o->raw_ndim, o->raw_dims, what));
    if (o->raw_offset < 0)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: raw offset %lld is negative", path,
                        (long long)o->raw_offset);
    size_t fsize;
    KRI_TRY(kri_file_size(path, &fsize));
    int64_t numel = 1;
    for (int i = 0; i < o->raw_ndim; i++) numel *= o->raw_dims[i]; /* checked above */
    size_t esize = kr_dtype_size(o->raw_dtype);
    uint64_t bytes = (uint64_t)numel * esize;
    uint64_t want = bytes + (uint64_t)o->raw_offset;
    if (want < bytes || (uint64_t)fsize != want) {
        char d[200];
        return kri_fail(KR_ERR_FORMAT,
                        "%s: file holds %zu bytes, expected %llu (offset %lld + %s %s samples "
                        "of %zu bytes)",
                        path, fsize, (unsigned long long)want, (long long)o->raw_offset,
                        kr_dims_string(o->raw_ndim, o->raw_dims, d, sizeof d),
                        kr_dtype_name(o->raw_dtype), esize);
    }
    *data = bytes;
    return KR_OK;
}

kr_status kri_layout_raw(const char *path, const kr_io_opts *o, kri_layout *L)
{
    uint64_t data;
    KRI_TRY(kri_raw_check(path, o, &data));
    memset(L, 0, sizeof *L);
    L->ndim = o->raw_ndim;
    for (int i = 0; i < o->raw_ndim; i++) L->dims[i] = o->raw_dims[i];
    L->dtype = o->raw_dtype;
    const size_t unit = kri_swap_unit(o->raw_dtype);
    L->swap = unit > 1 && (o->raw_big_endian != 0) == kri_host_little_endian() ? (int)unit : 0;
    snprintf(L->data, sizeof L->data, "%s", path);
    L->offset = (uint64_t)o->raw_offset;
    return KR_OK;
}

kr_status kri_read_raw(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o)
{
    (void)meta;
    uint64_t data;
    KRI_TRY(kri_raw_check(path, o, &data));
    kr_array *a;
    KRI_TRY(kri_io_array(&a, path, o->raw_dtype, o->raw_ndim, o->raw_dims));
    FILE *f = fopen(path, "rb");
    if (!f) {
        kr_array_destroy(a);
        return kri_fail(KR_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    kr_status s = KR_OK;
    if (fseeko(f, (off_t)o->raw_offset, SEEK_SET) != 0)
        s = kri_fail(KR_ERR_IO, "%s: cannot seek to offset %lld: %s", path,
                     (long long)o->raw_offset, strerror(errno));
    else if (fread(a->data, 1, (size_t)data, f) != (size_t)data)
        s = kri_fail(KR_ERR_IO, "%s: cannot read %llu bytes", path, (unsigned long long)data);
    fclose(f);
    if (s != KR_OK) {
        kr_array_destroy(a);
        return s;
    }
    size_t unit = kri_swap_unit(a->dtype);
    int big = o->raw_big_endian != 0;
    if (unit > 1 && big == kri_host_little_endian())
        kri_byteswap(a->data, (size_t)data / unit, unit);
    *out = a;
    return KR_OK;
}

static kr_status kri_raw_body(kri_wfile *w, const kr_array *a, void *user)
{
    (void)user;
    return kri_samples_write(w, a, 0); /* little-endian */
}

kr_status kri_write_raw(const char *path, const kr_array *a, const kr_io_opts *o)
{
    return kri_write_through(path, a, o->write_dtype, kri_raw_body, NULL);
}
