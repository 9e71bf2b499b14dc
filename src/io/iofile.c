/* Helpers of the format files (see iofile.h): safe writing through a temporary file, reading
 * whole files and headers, byte order, dtype conversion and the writers' array check. */
#include "iofile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

kr_status kri_io_check_array(const kr_array *a, const char *path)
{
    if (a) { /* a shape the writers can trust, before the operand check reads it */
        if (kr_dtype_size(a->dtype) == 0)
            return kri_fail(KR_ERR_DTYPE, "%s: array has an invalid element type", path);
        KRI_TRY(kr_dims_check(a->ndim, a->dims, path));
    }
    return kri_check_operand(path, "array to write", a, KRI_ANY_DTYPE, KR_HOST);
}

kr_status kri_io_as_dtype(const kr_array *a, kr_dtype dtype, const kr_array **use,
                          kr_array **tmp)
{
    *tmp = NULL;
    *use = a;
    if (dtype == KR_DTYPE_INVALID || dtype == a->dtype) return KR_OK;
    KRI_TRY(kr_array_astype(tmp, a, dtype));
    *use = *tmp;
    return KR_OK;
}

/* ---- safe writing ------------------------------------------------------------------------- */
kr_status kri_wfile_open(kri_wfile *w, const char *path)
{
    memset(w, 0, sizeof *w);
    w->slot = -1;
    if (strlen(path) >= sizeof w->path)
        return kri_fail(KR_ERR_INVALID_ARG, "output path is too long (%zu characters)",
                        strlen(path));
    snprintf(w->path, sizeof w->path, "%s", path);
    snprintf(w->tmp, sizeof w->tmp, "%s.tmp.%ld", path, (long)getpid());
    w->slot = kri_tmp_register(w->tmp); /* removed if a signal ends the process */
    w->f = fopen(w->tmp, "wb");
    if (!w->f) {
        kr_status s = kri_fail(KR_ERR_IO, "%s: cannot create file: %s", path, strerror(errno));
        kri_tmp_unregister(w->slot);
        w->slot = -1;
        return s;
    }
    return KR_OK;
}

kr_status kri_wfile_write(kri_wfile *w, const void *p, size_t n)
{
    if (w->status != KR_OK) return w->status;
    if (n && fwrite(p, 1, n, w->f) != n)
        w->status = kri_fail(KR_ERR_IO, "%s: write failed: %s", w->path, strerror(errno));
    return w->status;
}

kr_status kri_wfile_printf(kri_wfile *w, const char *fmt, ...)
{
    if (w->status != KR_OK) return w->status;
    va_list ap;
    va_start(ap, fmt);
    int r = vfprintf(w->f, fmt, ap);
    va_end(ap);
    if (r < 0) w->status = kri_fail(KR_ERR_IO, "%s: write failed: %s", w->path, strerror(errno));
    return w->status;
}

kr_status kri_wfile_commit(kri_wfile *w)
{
    kr_status s = w->status;
    if (!w->f) return s != KR_OK ? s : kri_fail(KR_ERR_IO, "%s: file is not open", w->path);
    if (s == KR_OK && fflush(w->f) != 0)
        s = kri_fail(KR_ERR_IO, "%s: write failed: %s", w->path, strerror(errno));
    if (fclose(w->f) != 0 && s == KR_OK)
        s = kri_fail(KR_ERR_IO, "%s: closing failed: %s", w->path, strerror(errno));
    w->f = NULL;
    if (s == KR_OK && rename(w->tmp, w->path) != 0)
        s = kri_fail(KR_ERR_IO, "%s: cannot rename temporary file into place: %s", w->path,
                     strerror(errno));
    if (s != KR_OK) remove(w->tmp);
    kri_tmp_unregister(w->slot);
    w->slot = -1;
    return s;
}

kr_status kri_wfile_finish(kri_wfile *w, kr_status s)
{
    if (s == KR_OK) return kri_wfile_commit(w);
    kri_wfile_abort(w);
    return s;
}

kr_status kri_write_through(const char *path, const kr_array *a, kr_dtype dtype,
                            kri_write_body_fn body, void *user)
{
    const kr_array *use;
    kr_array *tmp;
    KRI_TRY(kri_io_as_dtype(a, dtype, &use, &tmp));
    kri_wfile w;
    kr_status s = kri_wfile_open(&w, path);
    if (s == KR_OK) {
        s = body(&w, use, user);
        if (s == KR_OK) s = w.status; /* writes the body did not check */
        s = kri_wfile_finish(&w, s);
    }
    kr_array_destroy(tmp);
    return s;
}

void kri_wfile_abort(kri_wfile *w)
{
    if (w->f) {
        fclose(w->f);
        w->f = NULL;
    }
    if (w->tmp[0]) remove(w->tmp);
    kri_tmp_unregister(w->slot);
    w->slot = -1;
}

/* ---- reading ------------------------------------------------------------------------------ */
kr_status kri_io_array(kr_array **a, const char *path, kr_dtype t, int ndim,
                       const int64_t *dims)
{
    kr_status s = kr_array_create(a, t, ndim, dims, KR_HOST, NULL);
    if (s != KR_OK) kri_fail_prefix(s, "%s", path);
    return s;
}

kr_status kri_file_size(const char *path, size_t *size)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return kri_fail(KR_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (!S_ISREG(st.st_mode)) return kri_fail(KR_ERR_IO, "%s: not a regular file", path);
    *size = (size_t)st.st_size;
    return KR_OK;
}

kr_status kri_read_file(const char *path, unsigned char **buf, size_t *len, size_t limit)
{
    *buf = NULL;
    *len = 0;
    size_t size;
    KRI_TRY(kri_file_size(path, &size));
    if (limit && size > limit)
        return kri_fail(KR_ERR_FORMAT, "%s: file is %zu bytes, more than the %zu expected", path,
                        size, limit);
    FILE *f = fopen(path, "rb");
    if (!f) return kri_fail(KR_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    unsigned char *b = kri_malloc(size + 1);
    if (!b) {
        fclose(f);
        return kri_fail(KR_ERR_OOM_HOST, "%s: out of memory reading %zu bytes", path, size);
    }
    size_t got = size ? fread(b, 1, size, f) : 0;
    int err = ferror(f);
    fclose(f);
    if (got != size || err) {
        kri_free(b);
        return kri_fail(KR_ERR_IO, "%s: read %zu of %zu bytes", path, got, size);
    }
    b[size] = 0;
    *buf = b;
    *len = size;
    return KR_OK;
}

kr_status kri_read_head(const char *path, size_t max, char **buf, size_t *len, const char *what)
{
    *buf = NULL;
    *len = 0;
    size_t size;
    KRI_TRY(kri_file_size(path, &size));
    size_t n = size < max ? size : max;
    FILE *f = fopen(path, "rb");
    if (!f) return kri_fail(KR_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    char *text;
    kr_status s = kri_alloc((void **)&text, n + 1, what);
    if (s != KR_OK) {
        fclose(f);
        return s;
    }
    size_t got = n ? fread(text, 1, n, f) : 0;
    fclose(f);
    if (got != n) {
        kri_free(text);
        return kri_fail(KR_ERR_IO, "%s: read %zu of %zu bytes", path, got, n);
    }
    text[n] = 0;
    *buf = text;
    *len = n;
    return KR_OK;
}

size_t kri_swap_unit(kr_dtype t)
{
    return kr_dtype_is_complex(t) ? kr_dtype_size(t) / 2 : kr_dtype_size(t);
}

void kri_byteswap(void *p, size_t n, size_t size)
{
    unsigned char *c = p;
    for (size_t i = 0; i < n; i++, c += size)
        for (size_t j = 0; j < size / 2; j++) {
            unsigned char t = c[j];
            c[j] = c[size - 1 - j];
            c[size - 1 - j] = t;
        }
}

int kri_host_little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}
