/* BART .cfl/.hdr pair: complex float little-endian samples (.cfl) described by a text header
 * (.hdr). The header is a sequence of "# <Keyword>" lines, each followed by its value lines;
 * kray needs "# Dimensions" (one line of whitespace-separated sizes, fastest first) and reads
 * "# Command" into kr_meta.description. Other sections ("# Files", "# Creator", ...) are
 * skipped, as BART does.
 *
 * Names: "x", "x.cfl" and "x.hdr" all name the pair x.cfl + x.hdr (the companion takes the
 * case of the given extension: "X.CFL" pairs with "X.HDR").
 * Reading gives a KR_C64 array whose ndim drops the trailing singleton dims BART pads to 16
 * (at least one dim is kept). More than KR_MAX_DIMS dims are accepted when the extra ones are 1.
 * Writing converts any dtype to c64 (real -> imaginary 0) and writes the .hdr with
 * "# Dimensions", "# Command" (kr_meta description, when given) and "# Creator" (kray version).
 * Any write_dtype is accepted: BART has complex float only, so a real image is stored as complex
 * with zero imaginary parts (as `bart` itself does).
 * KR_IO_AXES_IMAGE: the array is an image [x, y, ...] and BART's is [y, x, ...] (row, column):
 * the first two axes are swapped after reading and before writing.
 * Both files go through temporary names; if the second rename fails the first file is removed.
 */
#include "io_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define KRI_CFL_HDR_LIMIT ((size_t)1 << 20) /* a .hdr larger than 1 MiB is not a BART header */

typedef struct kri_cfl_names {
    char cfl[4096];
    char hdr[4096];
} kri_cfl_names;

/* New c64 array with the first two axes of `a` (c64, host) swapped: [d0, d1, r...] ->
 * [d1, d0, r...]; a 1-D [n] is taken as [n, 1]. Trailing singleton dims are dropped. */
static kr_status kri_cfl_swap01(const kr_array *a, kr_array **out)
{
    int64_t d0 = a->dims[0], d1 = a->ndim > 1 ? a->dims[1] : 1, rest = 1;
    int64_t dims[KR_MAX_DIMS];
    int nd = a->ndim < 2 ? 2 : a->ndim;
    for (int i = 2; i < a->ndim; i++) dims[i] = a->dims[i], rest *= a->dims[i];
    dims[0] = d1, dims[1] = d0;
    while (nd > 1 && dims[nd - 1] == 1) nd--;
    KRI_TRY(kr_array_create(out, KR_C64, nd, dims, KR_HOST, NULL));
    const uint64_t *src = a->data; /* one complex float = 8 bytes */
    uint64_t *dst = (*out)->data;
    for (int64_t r = 0; r < rest; r++) {
        const uint64_t *s = src + r * d0 * d1;
        uint64_t *d = dst + r * d0 * d1;
        for (int64_t j = 0; j < d1; j++)
            for (int64_t i = 0; i < d0; i++) d[j + d1 * i] = s[i + d0 * j];
    }
    return KR_OK;
}

static kr_status kri_cfl_names_make(const char *path, kri_cfl_names *n)
{
    size_t len = strlen(path);
    if (len == 0) return kri_fail(KR_ERR_INVALID_ARG, "cfl: the file name is empty");
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t stem = len;
    int upper = 0;
    if (strlen(base) > 4 && (strcasecmp(path + len - 4, ".cfl") == 0 ||
                             strcasecmp(path + len - 4, ".hdr") == 0)) {
        stem = len - 4;
        upper = isupper((unsigned char)path[len - 3]) != 0;
    }
    if (stem + 4 >= sizeof n->cfl)
        return kri_fail(KR_ERR_INVALID_ARG, "cfl: file name is too long (%zu characters)", len);
    snprintf(n->cfl, sizeof n->cfl, "%.*s%s", (int)stem, path, upper ? ".CFL" : ".cfl");
    snprintf(n->hdr, sizeof n->hdr, "%.*s%s", (int)stem, path, upper ? ".HDR" : ".hdr");
    return KR_OK;
}

/* Copy a header value line into dst (trimmed, control characters turned into spaces). */
static void kri_cfl_copy_line(char *dst, size_t cap, const char *src, size_t n)
{
    while (n && isspace((unsigned char)*src)) src++, n--;
    while (n && isspace((unsigned char)src[n - 1])) n--;
    if (n >= cap) n = cap - 1;
    for (size_t i = 0; i < n; i++) dst[i] = iscntrl((unsigned char)src[i]) ? ' ' : src[i];
    dst[n] = '\0';
}

/* Parse the dims line [p, end) of `hdr`. */
static kr_status kri_cfl_parse_dims(const char *hdr, const char *p, const char *end, int *ndim,
                                    int64_t *dims)
{
    int count = 0, n = 0;
    int64_t total = 1;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) p++;
        if (p >= end) break;
        const char *tok = p;
        while (p < end && !isspace((unsigned char)*p)) p++;
        char word[40];
        size_t wl = (size_t)(p - tok);
        if (wl >= sizeof word)
            return kri_fail(KR_ERR_FORMAT, "%s: dimension %d ('%.20s...') is not a valid size",
                            hdr, count, tok);
        memcpy(word, tok, wl);
        word[wl] = '\0';
        char *stop;
        errno = 0;
        long long v = strtoll(word, &stop, 10);
        if (*stop != '\0' || !(isdigit((unsigned char)word[0]) || word[0] == '-' ||
                               word[0] == '+'))
            return kri_fail(KR_ERR_FORMAT, "%s: dimension %d ('%s') is not an integer", hdr, count,
                            word);
        if (errno == ERANGE || v > KR_MAX_ELEMENTS)
            return kri_fail(KR_ERR_FORMAT, "%s: dimension %d ('%s') is too large", hdr, count,
                            word);
        if (v < 1)
            return kri_fail(KR_ERR_FORMAT, "%s: dimension %d has size %lld (must be >= 1)", hdr,
                            count, v);
        if (count >= KR_MAX_DIMS) {
            if (v != 1)
                return kri_fail(KR_ERR_FORMAT,
                                "%s: dimension %d has size %lld; kray supports %d dimensions",
                                hdr, count, v, KR_MAX_DIMS);
        } else {
            dims[count] = v;
            if (v > 1) n = count + 1;
        }
        if (!kri_mul_ok(total, (int64_t)v, &total) || total > KR_MAX_ELEMENTS)
            return kri_fail(KR_ERR_FORMAT,
                            "%s: the dimensions' product exceeds kray's limit of 2^40 elements",
                            hdr);
        count++;
    }
    if (count == 0) return kri_fail(KR_ERR_FORMAT, "%s: the dimensions line is empty", hdr);
    *ndim = n > 0 ? n : 1;
    return KR_OK;
}

/* Parse a whole .hdr text (NUL-terminated at text[len]). */
static kr_status kri_cfl_parse_header(const char *hdr, const char *text, size_t len, int *ndim,
                                      int64_t *dims, kr_meta *meta)
{
    if (memchr(text, '\0', len))
        return kri_fail(KR_ERR_FORMAT, "%s: header contains NUL bytes; not a BART header", hdr);
    const char *p = text, *end = text + len;
    int have_dims = 0;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol) eol = end;
        if (*p == '#') {
            const char *k = p + 1;
            while (k < eol && (*k == ' ' || *k == '\t')) k++;
            const char *ke = k;
            while (ke < eol && !isspace((unsigned char)*ke)) ke++;
            size_t kl = (size_t)(ke - k);
            const char *vl = eol < end ? eol + 1 : end; /* the value line */
            const char *vle = memchr(vl, '\n', (size_t)(end - vl));
            if (!vle) vle = end;
            if (kl == 10 && strncmp(k, "Dimensions", 10) == 0) {
                if (have_dims)
                    return kri_fail(KR_ERR_FORMAT, "%s: the header has two '# Dimensions' lines",
                                    hdr);
                if (vl >= end)
                    return kri_fail(KR_ERR_FORMAT,
                                    "%s: '# Dimensions' is not followed by a line of sizes", hdr);
                KRI_TRY(kri_cfl_parse_dims(hdr, vl, vle, ndim, dims));
                have_dims = 1;
                p = vle < end ? vle + 1 : end;
                continue;
            }
            if (kl == 7 && strncmp(k, "Command", 7) == 0 && meta && vl < end && *vl != '#')
                kri_cfl_copy_line(meta->description, sizeof meta->description, vl,
                                  (size_t)(vle - vl));
        }
        p = eol < end ? eol + 1 : end;
    }
    if (!have_dims)
        return kri_fail(KR_ERR_FORMAT, "%s: no '# Dimensions' line; not a BART header", hdr);
    return KR_OK;
}

/* The header's dims, checked against the size of the data file. */
static kr_status kri_cfl_dims(const kri_cfl_names *nm, kr_meta *meta, int *ndim, int64_t *dims,
                              uint64_t *bytes)
{
    unsigned char *text;
    size_t len;
    KRI_TRY(kri_read_file(nm->hdr, &text, &len, KRI_CFL_HDR_LIMIT));
    kr_status s = kri_cfl_parse_header(nm->hdr, (const char *)text, len, ndim, dims, meta);
    kri_free(text);
    if (s != KR_OK) return s;
    int64_t numel = 1;
    for (int i = 0; i < *ndim; i++) numel *= dims[i]; /* checked by the parser */
    size_t size;
    KRI_TRY(kri_file_size(nm->cfl, &size));
    *bytes = (uint64_t)numel * 8u;
    if ((uint64_t)size != *bytes) {
        char d[200];
        return kri_fail(KR_ERR_FORMAT,
                        "%s: file holds %zu bytes but %s promises %s complex floats (%llu bytes)",
                        nm->cfl, size, nm->hdr, kr_dims_string(*ndim, dims, d, sizeof d),
                        (unsigned long long)*bytes);
    }
    return KR_OK;
}

kr_status kri_layout_cfl(const char *path, kri_layout *L)
{
    kri_cfl_names nm;
    KRI_TRY(kri_cfl_names_make(path, &nm));
    memset(L, 0, sizeof *L);
    uint64_t bytes;
    KRI_TRY(kri_cfl_dims(&nm, NULL, &L->ndim, L->dims, &bytes));
    L->dtype = KR_C64;
    L->swap = kri_host_little_endian() ? 0 : 4;
    snprintf(L->data, sizeof L->data, "%s", nm.cfl);
    return KR_OK;
}

kr_status kri_read_cfl(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o)
{
    kri_cfl_names nm;
    KRI_TRY(kri_cfl_names_make(path, &nm));
    int ndim = 0;
    int64_t dims[KR_MAX_DIMS];
    uint64_t want;
    KRI_TRY(kri_cfl_dims(&nm, meta, &ndim, dims, &want));
    const int64_t numel = (int64_t)(want / 8u);
    kr_array *a;
    KRI_TRY(kri_io_array(&a, path, KR_C64, ndim, dims));
    FILE *f = fopen(nm.cfl, "rb");
    if (!f) {
        kr_array_destroy(a);
        return kri_fail(KR_ERR_IO, "%s: cannot open: %s", nm.cfl, strerror(errno));
    }
    size_t got = fread(a->data, 1, (size_t)want, f);
    int err = ferror(f);
    fclose(f);
    if (got != (size_t)want || err) {
        kr_array_destroy(a);
        return kri_fail(KR_ERR_IO, "%s: read %zu of %llu bytes", nm.cfl, got,
                        (unsigned long long)want);
    }
    if (!kri_host_little_endian()) kri_byteswap(a->data, (size_t)numel * 2, 4);
    if (o->axes == KR_IO_AXES_IMAGE) {
        kr_array *t = NULL;
        kr_status st = kri_cfl_swap01(a, &t);
        kr_array_destroy(a);
        if (st != KR_OK) return st;
        a = t;
    }
    *out = a;
    return KR_OK;
}

/* Write the data file's temporary copy (little-endian complex floats). */
static kr_status kri_cfl_write_data(kri_wfile *w, const kr_array *c)
{
    size_t bytes = kr_array_bytes(c);
    if (kri_host_little_endian()) return kri_wfile_write(w, c->data, bytes);
    unsigned char buf[8192];
    const unsigned char *src = c->data;
    for (size_t off = 0; off < bytes; off += sizeof buf) {
        size_t n = bytes - off < sizeof buf ? bytes - off : sizeof buf;
        memcpy(buf, src + off, n);
        kri_byteswap(buf, n / 4, 4);
        KRI_TRY(kri_wfile_write(w, buf, n));
    }
    return KR_OK;
}

static kr_status kri_cfl_write_header(kri_wfile *w, const kr_array *c, const kr_io_opts *o)
{
    kri_wfile_printf(w, "# Dimensions\n");
    for (int i = 0; i < c->ndim; i++) kri_wfile_printf(w, "%lld ", (long long)c->dims[i]);
    kri_wfile_printf(w, "\n");
    if (o->meta && o->meta->description[0]) {
        char line[sizeof o->meta->description];
        kri_cfl_copy_line(line, sizeof line, o->meta->description,
                          strnlen(o->meta->description, sizeof o->meta->description));
        /* a value line starting with '#' would be read as a section by BART */
        if (line[0]) kri_wfile_printf(w, "# Command\n%s%s\n", line[0] == '#' ? " " : "", line);
    }
    return kri_wfile_printf(w, "# Creator\nkray %s\n", KRAY_VERSION_STRING);
}

kr_status kri_write_cfl(const char *path, const kr_array *a, const kr_io_opts *o)
{
    kri_cfl_names nm;
    KRI_TRY(kri_cfl_names_make(path, &nm));
    /* A name without extension is the pair <name>.cfl + <name>.hdr; never beside a device, a
     * directory or a pipe of that name (`/dev/null` must not become /dev/null.cfl). */
    struct stat sb;
    if (strcmp(nm.cfl, path) != 0 && strcmp(nm.hdr, path) != 0 && stat(path, &sb) == 0 &&
        !S_ISREG(sb.st_mode))
        return kri_fail(KR_ERR_IO, "%s is not a regular file; an output name without an "
                        "extension means the BART pair %s + %s, which is not written beside it "
                        "(give a file name with an extension)", path, nm.cfl, nm.hdr);
    const kr_array *c;
    kr_array *tmp;
    KRI_TRY(kri_io_as_dtype(a, KR_C64, &c, &tmp));
    if (o->axes == KR_IO_AXES_IMAGE) {
        kr_array *t = NULL;
        kr_status st = kri_cfl_swap01(c, &t);
        kr_array_destroy(tmp);
        if (st != KR_OK) return st;
        c = tmp = t;
    }

    kri_wfile wc, wh;
    kr_status s = kri_wfile_open(&wc, nm.cfl);
    if (s != KR_OK) {
        kr_array_destroy(tmp);
        return s;
    }
    s = kri_wfile_open(&wh, nm.hdr);
    if (s != KR_OK) {
        kri_wfile_abort(&wc);
        kr_array_destroy(tmp);
        return s;
    }
    kri_cfl_write_data(&wc, c);
    kri_cfl_write_header(&wh, c, o);
    kr_array_destroy(tmp);
    /* Flush both before renaming either, so that a full disk fails with no file renamed. */
    s = wc.status != KR_OK ? wc.status : wh.status;
    if (s == KR_OK && fflush(wc.f) != 0)
        s = kri_fail(KR_ERR_IO, "%s: write failed: %s", nm.cfl, strerror(errno));
    if (s == KR_OK && fflush(wh.f) != 0)
        s = kri_fail(KR_ERR_IO, "%s: write failed: %s", nm.hdr, strerror(errno));
    if (s != KR_OK) {
        kri_wfile_abort(&wc);
        kri_wfile_abort(&wh);
        return s;
    }
    s = kri_wfile_commit(&wc);
    if (s != KR_OK) {
        kri_wfile_abort(&wh);
        return s;
    }
    s = kri_wfile_commit(&wh);
    if (s != KR_OK) remove(nm.cfl); /* never leave a .cfl with a stale or missing .hdr */
    return s;
}
