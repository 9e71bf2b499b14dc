/* File I/O dispatcher (format by extension) and the safe-write / read helpers. */
#include "io_internal.h"
#include "kray/dicom.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

void kr_io_opts_default(kr_io_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->bits = 8;
    o->slice = -1;
    o->nrrd_gzip = 0;
}

static const char *kri_ext(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    return dot ? dot + 1 : "";
}

kr_format kr_format_from_path(const char *path)
{
    if (!path || !*path) return KR_FMT_UNKNOWN;
    if (kri_nifti_gz(path)) return KR_FMT_NIFTI;
    const char *e = kri_ext(path);
    static const struct {
        const char *ext;
        kr_format f;
    } map[] = {{"cfl", KR_FMT_CFL}, {"hdr", KR_FMT_CFL},   {"npy", KR_FMT_NPY},
               {"nii", KR_FMT_NIFTI}, {"mha", KR_FMT_MHA}, {"mhd", KR_FMT_MHA},
               {"nrrd", KR_FMT_NRRD}, {"png", KR_FMT_PNG}, {"pgm", KR_FMT_PGM},
               {"raw", KR_FMT_RAW},   {"dcm", KR_FMT_DICOM}, {"", KR_FMT_CFL}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcasecmp(e, map[i].ext) == 0) return map[i].f;
    return KR_FMT_UNKNOWN;
}

const char *kr_format_name(kr_format f)
{
    static const char *const names[] = {"unknown", "cfl",  "npy", "nifti", "metaimage",
                                        "nrrd",    "png",  "pgm", "raw", "dicom"};
    return (int)f >= 0 && f <= KR_FMT_DICOM ? names[f] : "unknown";
}

static kr_status kri_unknown_format(const char *path)
{
    return kri_fail(KR_ERR_INVALID_ARG,
                    "%s: unknown file extension '.%s' (expected .cfl, .npy, .nii, .nii.gz, .mha, "
                    ".mhd, .dcm, .nrrd, .png, .pgm or .raw)",
                    path, kri_ext(path));
}

kr_status kr_read(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *opts)
{
    KRI_ARG_NOT_NULL(path);
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    if (meta) memset(meta, 0, sizeof *meta);
    kr_io_opts def;
    if (!opts) {
        kr_io_opts_default(&def);
        opts = &def;
    }
    switch (kr_format_from_path(path)) {
    case KR_FMT_CFL: return kri_read_cfl(path, out, meta, opts);
    case KR_FMT_NPY: return kri_read_npy(path, out, meta, opts);
    case KR_FMT_NIFTI: return kri_read_nifti(path, out, meta, opts);
    case KR_FMT_MHA: return kri_read_mha(path, out, meta, opts);
    case KR_FMT_NRRD: return kri_read_nrrd(path, out, meta, opts);
    case KR_FMT_PGM: return kri_read_pgm(path, out, meta, opts);
    case KR_FMT_RAW: return kri_read_raw(path, out, meta, opts);
    case KR_FMT_DICOM: {
        double sp[2] = {0, 0};
        kr_status s = kr_read_dicom(path, out, sp);
        if (s == KR_OK && meta) {
            meta->spacing[0] = sp[0];
            meta->spacing[1] = sp[1];
        }
        return s;
    }
    case KR_FMT_PNG:
        return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: PNG is an output-only format in kray", path);
    default: return kri_unknown_format(path);
    }
}

kr_status kr_write(const char *path, const kr_array *a, const kr_io_opts *opts)
{
    KRI_ARG_NOT_NULL(path);
    KRI_TRY(kri_io_check_array(a, path));
    kr_io_opts def;
    if (!opts) {
        kr_io_opts_default(&def);
        opts = &def;
    }
    switch (kr_format_from_path(path)) {
    case KR_FMT_CFL: return kri_write_cfl(path, a, opts);
    case KR_FMT_NPY: return kri_write_npy(path, a, opts);
    case KR_FMT_NIFTI: return kri_write_nifti(path, a, opts);
    case KR_FMT_MHA: return kri_write_mha(path, a, opts);
    case KR_FMT_NRRD: return kri_write_nrrd(path, a, opts);
    case KR_FMT_PNG: return kri_write_png(path, a, opts);
    case KR_FMT_PGM: return kri_write_pgm(path, a, opts);
    case KR_FMT_RAW: return kri_write_raw(path, a, opts);
    case KR_FMT_DICOM: {
        kr_dicom_opts d;
        kr_dicom_opts_default(&d);
        const kr_meta *m = opts->meta;
        if (m && m->spacing[0] > 0 && m->spacing[1] > 0) {
            d.pixel_spacing_mm[0] = m->spacing[0];
            d.pixel_spacing_mm[1] = m->spacing[1];
            if (m->spacing[2] > 0) d.slice_thickness_mm = m->spacing[2];
        }
        return kr_write_dicom(path, a, &d);
    }
    default: return kri_unknown_format(path);
    }
}

kr_status kri_io_check_array(const kr_array *a, const char *path)
{
    if (!a) return kri_fail(KR_ERR_INVALID_ARG, "%s: array to write is NULL", path);
    if (kr_dtype_size(a->dtype) == 0)
        return kri_fail(KR_ERR_DTYPE, "%s: array has an invalid element type", path);
    KRI_TRY(kr_dims_check(a->ndim, a->dims, path));
    if (!a->data) return kri_fail(KR_ERR_INVALID_ARG, "%s: array has no data", path);
    if (a->loc != KR_HOST)
        return kri_fail(KR_ERR_LOCATION, "%s: array is in device memory; copy it to the host first",
                        path);
    if (!kr_array_is_contiguous(a))
        return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: array is not contiguous", path);
    return KR_OK;
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
    if (strlen(path) >= sizeof w->path)
        return kri_fail(KR_ERR_INVALID_ARG, "output path is too long (%zu characters)",
                        strlen(path));
    snprintf(w->path, sizeof w->path, "%s", path);
    snprintf(w->tmp, sizeof w->tmp, "%s.tmp.%ld", path, (long)getpid());
    w->f = fopen(w->tmp, "wb");
    if (!w->f)
        return kri_fail(KR_ERR_IO, "%s: cannot create file: %s", path, strerror(errno));
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
    return s;
}

void kri_wfile_abort(kri_wfile *w)
{
    if (w->f) {
        fclose(w->f);
        w->f = NULL;
    }
    if (w->tmp[0]) remove(w->tmp);
}

/* ---- reading ------------------------------------------------------------------------------ */
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
