/* Part of an array file (kray/io.h, kr_read_part): the indices [start, start + count) along one
 * axis. .npy, .cfl (axes as stored) and raw files keep their samples in one uncompressed block
 * in kray's order (kri_layout): only the part's bytes are read, in runs of contiguous samples.
 * Other formats are read whole and cut. */
#include "io_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* dims of the part and the run geometry: `inner` elements below the axis, `outer` above. */
static kr_status kri_part_shape(const char *path, int ndim, const int64_t *dims, int axis,
                                int64_t start, int64_t count, int64_t *pd, int64_t *inner,
                                int64_t *outer)
{
    const int nd = ndim > axis ? ndim : axis + 1;
    const int64_t n = axis < ndim ? dims[axis] : 1;
    if (start < 0 || count < 1 || start > n - count)
        return kri_fail(KR_ERR_DIM, "%s: indices %lld..%lld of axis %d, which has %lld", path,
                        (long long)start, (long long)(start + count - 1), axis, (long long)n);
    *inner = 1, *outer = 1;
    for (int d = 0; d < nd; d++) {
        const int64_t v = d < ndim ? dims[d] : 1;
        pd[d] = d == axis ? count : v;
        if (d < axis) *inner *= v;
        if (d > axis) *outer *= v;
    }
    return KR_OK;
}

/* Read the part from a layout: one pread per run of inner * count contiguous elements. */
static kr_status kri_part_from_layout(const char *path, const kri_layout *L, int axis,
                                      int64_t start, int64_t count, kr_array **out)
{
    int64_t pd[KR_MAX_DIMS], inner, outer;
    KRI_TRY(kri_part_shape(path, L->ndim, L->dims, axis, start, count, pd, &inner, &outer));
    const int nd = L->ndim > axis ? L->ndim : axis + 1;
    kr_array *a;
    KRI_TRY(kri_io_array(&a, path, L->dtype, nd, pd));
    const size_t esz = kr_dtype_size(L->dtype), run = (size_t)(inner * count) * esz;
    const int64_t n = axis < L->ndim ? L->dims[axis] : 1;
    int fd = open(L->data, O_RDONLY);
    kr_status s = KR_OK;
    if (fd < 0) s = kri_fail(KR_ERR_IO, "%s: cannot open: %s", L->data, strerror(errno));
    for (int64_t o = 0; o < outer && s == KR_OK; o++) {
        const uint64_t at = L->offset + (uint64_t)((o * n + start) * inner) * esz;
        char *dst = (char *)a->data + (size_t)o * run;
        size_t done = 0;
        while (done < run) {
            ssize_t r = pread(fd, dst + done, run - done, (off_t)(at + done));
            if (r <= 0) {
                s = kri_fail(KR_ERR_IO, "%s: cannot read bytes %llu..%llu: %s", L->data,
                             (unsigned long long)(at + done), (unsigned long long)(at + run),
                             r < 0 ? strerror(errno) : "the file ends early");
                break;
            }
            done += (size_t)r;
        }
    }
    if (fd >= 0) close(fd);
    if (s == KR_OK && L->swap > 1)
        kri_byteswap(a->data, kr_array_bytes(a) / (size_t)L->swap, (size_t)L->swap);
    if (s != KR_OK) {
        kr_array_destroy(a);
        return s;
    }
    *out = a;
    return KR_OK;
}

/* The part of a whole array (other formats). */
static kr_status kri_part_cut(const char *path, const kr_array *w, int axis, int64_t start,
                              int64_t count, kr_array **out)
{
    int64_t pd[KR_MAX_DIMS], inner, outer;
    KRI_TRY(kri_part_shape(path, w->ndim, w->dims, axis, start, count, pd, &inner, &outer));
    const int nd = w->ndim > axis ? w->ndim : axis + 1;
    kr_array *a;
    KRI_TRY(kri_io_array(&a, path, w->dtype, nd, pd));
    const size_t esz = kr_dtype_size(w->dtype), run = (size_t)(inner * count) * esz;
    const int64_t n = axis < w->ndim ? w->dims[axis] : 1;
    for (int64_t o = 0; o < outer; o++)
        memcpy((char *)a->data + (size_t)o * run,
               (const char *)w->data + (size_t)((o * n + start) * inner) * esz, run);
    *out = a;
    return KR_OK;
}

/* The layout of a format that has one (npy, raw, cfl as stored); *have 0 for the others. */
static kr_status kri_part_layout(const char *path, const kr_io_opts *o, kri_layout *L, int *have)
{
    const kr_format f = kr_format_from_path(path);
    *have = f == KR_FMT_NPY || f == KR_FMT_RAW || (f == KR_FMT_CFL && o->axes != KR_IO_AXES_IMAGE);
    if (!*have) return KR_OK;
    return f == KR_FMT_NPY   ? kri_layout_npy(path, L)
           : f == KR_FMT_RAW ? kri_layout_raw(path, o, L)
                             : kri_layout_cfl(path, L);
}

kr_status kr_read_shape(const char *path, int *ndim, int64_t *dims, kr_dtype *dtype,
                        const kr_io_opts *opts)
{
    KRI_ARG_NOT_NULL(path);
    KRI_ARG_NOT_NULL(ndim);
    KRI_ARG_NOT_NULL(dims);
    kr_io_opts def;
    if (!opts) {
        kr_io_opts_default(&def);
        opts = &def;
    }
    kri_layout L;
    int have;
    KRI_TRY(kri_part_layout(path, opts, &L, &have));
    if (have) {
        *ndim = L.ndim;
        memcpy(dims, L.dims, (size_t)L.ndim * sizeof *dims);
        if (dtype) *dtype = L.dtype;
        return KR_OK;
    }
    kr_array *w = NULL;
    KRI_TRY(kr_read(path, &w, NULL, opts));
    *ndim = w->ndim;
    memcpy(dims, w->dims, (size_t)w->ndim * sizeof *dims);
    if (dtype) *dtype = w->dtype;
    kr_array_destroy(w);
    return KR_OK;
}

kr_status kr_read_part(const char *path, int axis, int64_t start, int64_t count, kr_array **out,
                       kr_meta *meta, const kr_io_opts *opts)
{
    KRI_ARG_NOT_NULL(path);
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    if (axis < 0 || axis >= KR_MAX_DIMS)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: axis %d (must be 0..%d)", path, axis,
                        KR_MAX_DIMS - 1);
    kr_io_opts def;
    if (!opts) {
        kr_io_opts_default(&def);
        opts = &def;
    }
    kri_layout L;
    int direct;
    KRI_TRY(kri_part_layout(path, opts, &L, &direct));
    if (direct) {
        if (meta) memset(meta, 0, sizeof *meta);
        return kri_part_from_layout(path, &L, axis, start, count, out);
    }
    kr_status s;
    kr_array *w = NULL;
    KRI_TRY(kr_read(path, &w, meta, opts));
    s = kri_part_cut(path, w, axis, start, count, out);
    kr_array_destroy(w);
    return s;
}
