/* NumPy .npy: "\x93NUMPY", version (1.0, 2.0 or 3.0), header length (u16 LE for 1.0, u32 LE for
 * 2.0/3.0), then a Python dict literal {'descr': ..., 'fortran_order': ..., 'shape': (...)}
 * padded with spaces and ended by '\n', then the samples.
 *
 * Element types: '<f4' f32, '<f8' f64, '<c8' c64, '<c16' c128, '|u1' u8 (also '<u1', '>u1'),
 * '<u2' u16, '<i2' i16. Big-endian ('>') variants are read and byte-swapped; other types
 * (ints of 4/8 bytes, bool, float16, structured) are rejected with KR_ERR_FORMAT.
 * Axis order: kray dims are fastest first. A C-order array of numpy shape (s0, ..., sk) is read
 * as dims (sk, ..., s0); a Fortran-order one as dims (s0, ..., sk). No data is moved either
 * way. A 0-d array (shape "()") is read as one element with dims [1]; a shape with a 0 is
 * rejected (kray arrays are never empty).
 * Writing: always C order, little-endian, shape = kray dims reversed (all a->ndim dims, so a
 * kray [x, y] image is numpy shape (ny, nx), indexed img[y, x]); version 1.0 (kray's at most
 * 16 dims always fit its 16-bit header length). The header is padded with spaces so the data
 * start at a multiple of 64 bytes, as numpy does.
 */
#include "fmtcommon.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define KRI_NPY_HEADER_LIMIT ((size_t)1 << 20)

static const unsigned char kri_npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

static const struct {
    const char *code; /* descr without the byte-order character */
    kr_dtype dtype;
} kri_npy_types[] = {{"f4", KR_F32}, {"f8", KR_F64}, {"c8", KR_C64},  {"c16", KR_C128},
                     {"u1", KR_U8},  {"u2", KR_U16}, {"i2", KR_I16}};

/* ---- a tiny parser for the header dict ----------------------------------------------------- */
typedef struct kri_npy_parser {
    const char *path;
    const char *p, *end;
} kri_npy_parser;

static void kri_npy_ws(kri_npy_parser *ps)
{
    while (ps->p < ps->end && isspace((unsigned char)*ps->p)) ps->p++;
}

static int kri_npy_accept(kri_npy_parser *ps, char c)
{
    kri_npy_ws(ps);
    if (ps->p < ps->end && *ps->p == c) {
        ps->p++;
        return 1;
    }
    return 0;
}

static kr_status kri_npy_expect(kri_npy_parser *ps, char c, const char *where)
{
    if (kri_npy_accept(ps, c)) return KR_OK;
    return kri_fail(KR_ERR_FORMAT, "%s: malformed header: expected '%c' %s", ps->path, c, where);
}

/* A quoted Python string (no escapes needed for the keys and dtypes we accept). */
static kr_status kri_npy_string(kri_npy_parser *ps, char *dst, size_t cap, const char *what)
{
    kri_npy_ws(ps);
    if (ps->p >= ps->end || (*ps->p != '\'' && *ps->p != '"'))
        return kri_fail(KR_ERR_FORMAT, "%s: malformed header: expected a quoted string for %s",
                        ps->path, what);
    char q = *ps->p++;
    const char *s = ps->p;
    while (ps->p < ps->end && *ps->p != q && *ps->p != '\\') ps->p++;
    if (ps->p >= ps->end || *ps->p != q)
        return kri_fail(KR_ERR_FORMAT, "%s: malformed header: unterminated string for %s",
                        ps->path, what);
    size_t n = (size_t)(ps->p - s);
    ps->p++;
    if (n >= cap)
        return kri_fail(KR_ERR_FORMAT, "%s: malformed header: %s '%.16s...' is too long",
                        ps->path, what, s);
    memcpy(dst, s, n);
    dst[n] = '\0';
    return KR_OK;
}

static kr_status kri_npy_descr(kri_npy_parser *ps, kr_dtype *dtype, int *swap)
{
    kri_npy_ws(ps);
    if (ps->p < ps->end && *ps->p == '[')
        return kri_fail(KR_ERR_FORMAT, "%s: structured dtypes are not supported", ps->path);
    char d[32];
    KRI_TRY(kri_npy_string(ps, d, sizeof d, "'descr'"));
    char order = d[0];
    const char *code = d + 1;
    if (order != '<' && order != '>' && order != '|' && order != '=')
        return kri_fail(KR_ERR_FORMAT,
                        "%s: dtype '%s' has no byte-order mark ('<', '>', '|' or '=')", ps->path,
                        d);
    for (size_t i = 0; i < sizeof kri_npy_types / sizeof kri_npy_types[0]; i++)
        if (strcmp(code, kri_npy_types[i].code) == 0) {
            kr_dtype t = kri_npy_types[i].dtype;
            if (order == '|' && kr_dtype_size(t) != 1)
                return kri_fail(KR_ERR_FORMAT,
                                "%s: dtype '%s' is multi-byte but has no byte order", ps->path,
                                d);
            int big = order == '>' || (order == '=' && !kri_host_little_endian());
            *dtype = t;
            *swap = kr_dtype_size(t) > 1 && big == kri_host_little_endian();
            return KR_OK;
        }
    return kri_fail(KR_ERR_FORMAT,
                    "%s: unsupported dtype '%s' (kray reads f4, f8, c8, c16, u1, u2 and i2)",
                    ps->path, d);
}

static kr_status kri_npy_bool(kri_npy_parser *ps, int *v)
{
    kri_npy_ws(ps);
    size_t left = (size_t)(ps->end - ps->p);
    if (left >= 4 && strncmp(ps->p, "True", 4) == 0) {
        ps->p += 4;
        *v = 1;
    } else if (left >= 5 && strncmp(ps->p, "False", 5) == 0) {
        ps->p += 5;
        *v = 0;
    } else {
        return kri_fail(KR_ERR_FORMAT,
                        "%s: malformed header: 'fortran_order' must be True or False", ps->path);
    }
    return KR_OK;
}

/* "(s0, s1, ...)" with non-negative integers; "()" is 0-d. */
static kr_status kri_npy_shape(kri_npy_parser *ps, int *n, int64_t *shape)
{
    KRI_TRY(kri_npy_expect(ps, '(', "to open 'shape'"));
    *n = 0;
    if (kri_npy_accept(ps, ')')) return KR_OK;
    for (;;) {
        kri_npy_ws(ps);
        const char *s = ps->p;
        while (ps->p < ps->end && (isalnum((unsigned char)*ps->p) || *ps->p == '-' ||
                                   *ps->p == '+' || *ps->p == '.'))
            ps->p++;
        size_t len = (size_t)(ps->p - s);
        if (len && (s[len - 1] == 'L' || s[len - 1] == 'l')) len--; /* Python 2 longs */
        char word[32];
        if (len == 0 || len >= sizeof word)
            return kri_fail(KR_ERR_FORMAT, "%s: malformed header: shape entry %d is not a number",
                            ps->path, *n);
        memcpy(word, s, len);
        word[len] = '\0';
        for (size_t i = 0; i < len; i++)
            if (!isdigit((unsigned char)word[i]))
                return kri_fail(KR_ERR_FORMAT,
                                "%s: shape entry %d is '%s', not a non-negative integer",
                                ps->path, *n, word);
        errno = 0;
        long long v = strtoll(word, NULL, 10);
        if (errno == ERANGE || v > KR_MAX_ELEMENTS)
            return kri_fail(KR_ERR_FORMAT, "%s: shape entry %d (%s) is too large", ps->path, *n,
                            word);
        if (*n >= KR_MAX_DIMS)
            return kri_fail(KR_ERR_FORMAT, "%s: shape has more than %d dimensions", ps->path,
                            KR_MAX_DIMS);
        shape[(*n)++] = v;
        if (kri_npy_accept(ps, ')')) return KR_OK;
        KRI_TRY(kri_npy_expect(ps, ',', "between shape entries"));
        if (kri_npy_accept(ps, ')')) return KR_OK;
    }
}

typedef struct kri_npy_header {
    kr_dtype dtype;
    int swap, fortran;
    int ndim;
    int64_t dims[KR_MAX_DIMS]; /* kray order */
    int64_t numel;
} kri_npy_header;

static kr_status kri_npy_parse(const char *path, const char *text, size_t len, kri_npy_header *h)
{
    kri_npy_parser ps = {path, text, text + len};
    int have_descr = 0, have_fortran = 0, have_shape = 0, nshape = 0;
    int64_t shape[KR_MAX_DIMS];
    KRI_TRY(kri_npy_expect(&ps, '{', "at the start of the header"));
    while (!kri_npy_accept(&ps, '}')) {
        char key[32];
        KRI_TRY(kri_npy_string(&ps, key, sizeof key, "a key"));
        KRI_TRY(kri_npy_expect(&ps, ':', "after a key"));
        int *seen;
        if (strcmp(key, "descr") == 0) {
            seen = &have_descr;
            KRI_TRY(kri_npy_descr(&ps, &h->dtype, &h->swap));
        } else if (strcmp(key, "fortran_order") == 0) {
            seen = &have_fortran;
            KRI_TRY(kri_npy_bool(&ps, &h->fortran));
        } else if (strcmp(key, "shape") == 0) {
            seen = &have_shape;
            KRI_TRY(kri_npy_shape(&ps, &nshape, shape));
        } else {
            return kri_fail(KR_ERR_FORMAT, "%s: header has an unexpected key '%s'", path, key);
        }
        if (*seen)
            return kri_fail(KR_ERR_FORMAT, "%s: header repeats the key '%s'", path, key);
        *seen = 1;
        if (kri_npy_accept(&ps, '}')) break;
        KRI_TRY(kri_npy_expect(&ps, ',', "between header entries"));
    }
    kri_npy_ws(&ps);
    if (ps.p != ps.end)
        return kri_fail(KR_ERR_FORMAT, "%s: malformed header: text after the closing '}'", path);
    if (!have_descr || !have_fortran || !have_shape)
        return kri_fail(KR_ERR_FORMAT, "%s: header lacks the key '%s'", path,
                        !have_descr ? "descr" : !have_fortran ? "fortran_order" : "shape");
    h->numel = 1;
    for (int i = 0; i < nshape; i++) {
        if (shape[i] == 0)
            return kri_fail(KR_ERR_FORMAT,
                            "%s: shape entry %d is 0; kray cannot hold an empty array", path, i);
        if (!kri_mul_ok(h->numel, shape[i], &h->numel) || h->numel > KR_MAX_ELEMENTS)
            return kri_fail(KR_ERR_FORMAT,
                            "%s: the shape's product exceeds kray's limit of 2^40 elements", path);
    }
    h->ndim = nshape ? nshape : 1;
    h->dims[0] = 1;
    for (int i = 0; i < nshape; i++) h->dims[i] = h->fortran ? shape[i] : shape[nshape - 1 - i];
    return KR_OK;
}

static uint32_t kri_le32(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

/* The header of the .npy file f (fsize bytes): h, and the offset of the data (checked to hold
 * exactly the samples the header promises). */
static kr_status kri_npy_header_of(FILE *f, const char *path, size_t fsize, kri_npy_header *h,
                                   size_t *data_at)
{
    kr_status s = KR_OK;
    char *text = NULL;
    unsigned char pre[12];
    size_t npre = fread(pre, 1, sizeof pre, f);
    if (npre < 6 || memcmp(pre, kri_npy_magic, 6) != 0)
        return kri_fail(KR_ERR_FORMAT, "%s: not a NumPy .npy file (bad magic string)", path);
    if (npre < 10) return kri_fail(KR_ERR_FORMAT, "%s: file ends inside the .npy preamble", path);
    int major = pre[6], minor = pre[7];
    size_t pre_len, hlen;
    if (major == 1 && minor == 0) {
        pre_len = 10;
        hlen = (size_t)pre[8] | (size_t)pre[9] << 8;
    } else if ((major == 2 || major == 3) && minor == 0) {
        if (npre < 12)
            return kri_fail(KR_ERR_FORMAT, "%s: file ends inside the .npy preamble", path);
        pre_len = 12;
        hlen = kri_le32(pre + 8);
    } else {
        return kri_fail(KR_ERR_FORMAT,
                        "%s: unsupported .npy version %d.%d (kray reads 1.0, 2.0 and 3.0)", path,
                        major, minor);
    }
    if (hlen > fsize - pre_len)
        return kri_fail(KR_ERR_FORMAT,
                        "%s: header length %zu runs past the end of the %zu-byte file", path,
                        hlen, fsize);
    if (hlen > KRI_NPY_HEADER_LIMIT)
        return kri_fail(KR_ERR_FORMAT, "%s: header length %zu exceeds the %zu-byte limit", path,
                        hlen, KRI_NPY_HEADER_LIMIT);
    text = kri_malloc(hlen + 1);
    if (!text)
        return kri_fail(KR_ERR_OOM_HOST, "%s: out of memory for a %zu-byte header", path, hlen);
    if (fseek(f, (long)pre_len, SEEK_SET) != 0 || fread(text, 1, hlen, f) != hlen) {
        s = kri_fail(KR_ERR_IO, "%s: cannot read the %zu-byte header", path, hlen);
        goto done;
    }
    text[hlen] = '\0';
    if (memchr(text, '\0', hlen)) {
        s = kri_fail(KR_ERR_FORMAT, "%s: header contains NUL bytes", path);
        goto done;
    }
    memset(h, 0, sizeof *h);
    s = kri_npy_parse(path, text, hlen, h);
    if (s != KR_OK) goto done;
    uint64_t want = (uint64_t)h->numel * kr_dtype_size(h->dtype),
             have = (uint64_t)(fsize - pre_len - hlen);
    if (have != want)
        s = kri_fail(KR_ERR_FORMAT,
                     "%s: %s data of %lld elements need %llu bytes but the file holds %llu "
                     "after the header",
                     path, kr_dtype_name(h->dtype), (long long)h->numel,
                     (unsigned long long)want, (unsigned long long)have);
    *data_at = pre_len + hlen;
done:
    kri_free(text);
    return s;
}

kr_status kri_layout_npy(const char *path, kri_layout *L)
{
    size_t fsize, at = 0;
    KRI_TRY(kri_file_size(path, &fsize));
    FILE *f = fopen(path, "rb");
    if (!f) return kri_fail(KR_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    kri_npy_header h;
    kr_status s = kri_npy_header_of(f, path, fsize, &h, &at);
    fclose(f);
    if (s != KR_OK) return s;
    memset(L, 0, sizeof *L);
    L->ndim = h.ndim;
    memcpy(L->dims, h.dims, sizeof h.dims);
    L->dtype = h.dtype;
    L->swap = h.swap ? (int)kri_swap_unit(h.dtype) : 0;
    snprintf(L->data, sizeof L->data, "%s", path);
    L->offset = at;
    return KR_OK;
}

kr_status kri_read_npy(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o)
{
    (void)meta, (void)o;
    size_t fsize, at = 0;
    KRI_TRY(kri_file_size(path, &fsize));
    FILE *f = fopen(path, "rb");
    if (!f) return kri_fail(KR_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    kr_array *a = NULL;
    kri_npy_header h;
    kr_status s = kri_npy_header_of(f, path, fsize, &h, &at);
    if (s != KR_OK) goto done;
    const size_t want = (size_t)h.numel * kr_dtype_size(h.dtype);
    s = kri_io_array(&a, path, h.dtype, h.ndim, h.dims);
    if (s != KR_OK) goto done;
    if (fseek(f, (long)at, SEEK_SET) != 0 || fread(a->data, 1, want, f) != want) {
        s = kri_fail(KR_ERR_IO, "%s: cannot read %llu data bytes", path,
                     (unsigned long long)want);
        goto done;
    }
    if (h.swap) {
        const size_t unit = kri_swap_unit(h.dtype);
        kri_byteswap(a->data, want / unit, unit);
    }
    *out = a;
    a = NULL;
done:
    fclose(f);
    kr_array_destroy(a);
    return s;
}

/* Magic, version 1.0, the header dict padded to a multiple of 64 bytes, then the samples. */
static kr_status kri_npy_body(kri_wfile *w, const kr_array *c, void *user)
{
    (void)user;
    const char *code = NULL;
    for (size_t i = 0; i < sizeof kri_npy_types / sizeof kri_npy_types[0]; i++)
        if (kri_npy_types[i].dtype == c->dtype) code = kri_npy_types[i].code;
    if (!code) /* unreachable: every kray dtype has an npy code */
        return kri_fail(KR_ERR_INTERNAL, "%s: no .npy code for dtype %s", w->path,
                        kr_dtype_name(c->dtype));
    char dict[64 + 24 * KR_MAX_DIMS];
    int n = snprintf(dict, sizeof dict, "{'descr': '%c%s', 'fortran_order': False, 'shape': (",
                     kr_dtype_size(c->dtype) == 1 ? '|' : '<', code);
    for (int i = c->ndim - 1; i >= 0; i--)
        n += snprintf(dict + n, sizeof dict - (size_t)n, "%lld,%s", (long long)c->dims[i],
                      i ? " " : "");
    if (c->ndim > 1) n--; /* "(3,)" for 1-D, "(3, 4)" otherwise */
    n += snprintf(dict + n, sizeof dict - (size_t)n, "), }");
    /* magic(6) + version(2) + length(2) + dict + padding + '\n' = multiple of 64 */
    size_t total = ((size_t)10 + (size_t)n + 1 + 63) / 64 * 64;
    size_t hlen = total - 10;
    char header[sizeof dict + 128];
    memcpy(header, dict, (size_t)n);
    memset(header + n, ' ', hlen - (size_t)n - 1);
    header[hlen - 1] = '\n';
    unsigned char pre[10];
    memcpy(pre, kri_npy_magic, 6);
    pre[6] = 1;
    pre[7] = 0;
    pre[8] = (unsigned char)(hlen & 0xff);
    pre[9] = (unsigned char)(hlen >> 8);
    kri_wfile_write(w, pre, sizeof pre);
    kri_wfile_write(w, header, hlen);
    return kri_samples_write(w, c, 0); /* little-endian */
}

kr_status kri_write_npy(const char *path, const kr_array *a, const kr_io_opts *o)
{
    return kri_write_through(path, a, o->write_dtype, kri_npy_body, NULL);
}
