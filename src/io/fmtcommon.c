/* Helpers shared by the NIfTI, MetaImage and NRRD formats (see fmtcommon.h). */
#include "fmtcommon.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define KRI_IO_CHUNK ((size_t)1 << 20) /* bytes per staging buffer */

size_t kri_stype_size(kri_stype t)
{
    switch (t) {
    case KRI_ST_U8:
    case KRI_ST_I8: return 1;
    case KRI_ST_I16:
    case KRI_ST_U16: return 2;
    case KRI_ST_I32:
    case KRI_ST_U32:
    case KRI_ST_F32: return 4;
    case KRI_ST_F64: return 8;
    default: return 0;
    }
}

const char *kri_stype_name(kri_stype t)
{
    static const char *const n[] = {"none",  "uint8",  "int8",    "int16",  "uint16",
                                    "int32", "uint32", "float32", "float64"};
    return (int)t >= 0 && t <= KRI_ST_F64 ? n[t] : "none";
}

kr_dtype kri_stype_dtype(kri_stype t, int complex)
{
    if (complex) return t == KRI_ST_F32 ? KR_C64 : t == KRI_ST_F64 ? KR_C128 : KR_DTYPE_INVALID;
    switch (t) {
    case KRI_ST_U8: return KR_U8;
    case KRI_ST_I8:
    case KRI_ST_I16: return KR_I16;
    case KRI_ST_U16: return KR_U16;
    case KRI_ST_I32:
    case KRI_ST_U32:
    case KRI_ST_F64: return KR_F64;
    case KRI_ST_F32: return KR_F32;
    default: return KR_DTYPE_INVALID;
    }
}

kri_stype kri_stype_of(kr_dtype t)
{
    switch (t) {
    case KR_F32:
    case KR_C64: return KRI_ST_F32;
    case KR_F64:
    case KR_C128: return KRI_ST_F64;
    case KR_U8: return KRI_ST_U8;
    case KR_U16: return KRI_ST_U16;
    case KR_I16: return KRI_ST_I16;
    default: return KRI_ST_NONE;
    }
}

/* True when the stored component type is the array's own component type (a plain copy). */
static int kri_direct(kri_stype t, const kr_array *a)
{
    return kri_stype_of(a->dtype) == t;
}

static int kri_need_swap(kri_stype t, int big)
{
    return kri_stype_size(t) > 1 && (big ? 1 : 0) == (kri_host_little_endian() ? 1 : 0);
}

/* Convert `count` stored samples at src (already in host order) into component `first` of a. */
static void kri_widen(const unsigned char *src, kri_stype t, kr_array *a, size_t first,
                      size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const unsigned char *p = src + i * kri_stype_size(t);
        switch (t) {
        case KRI_ST_I8: ((int16_t *)a->data)[first + i] = (int8_t)p[0]; break;
        case KRI_ST_I32: {
            int32_t v;
            memcpy(&v, p, 4);
            ((double *)a->data)[first + i] = v;
            break;
        }
        case KRI_ST_U32: {
            uint32_t v;
            memcpy(&v, p, 4);
            ((double *)a->data)[first + i] = v;
            break;
        }
        default: break; /* direct types never come here */
        }
    }
}

static size_t kri_components(const kr_array *a)
{
    return (size_t)kr_array_numel(a) * (kr_dtype_is_complex(a->dtype) ? 2u : 1u);
}

kr_status kri_samples_read(kri_read_fn rd, void *user, const char *path, kri_stype t, int big,
                           kr_array *a)
{
    size_t ns = kri_components(a), ss = kri_stype_size(t);
    int swap = kri_need_swap(t, big);
    if (kri_direct(t, a)) {
        long long got = rd(user, a->data, ns * ss);
        if (got < 0) return KR_ERR_FORMAT; /* the reader set the sentence */
        if ((size_t)got != ns * ss)
            return kri_fail(KR_ERR_FORMAT, "%s: data ends after %zu of %zu values", path,
                            (size_t)got / ss, ns);
        if (swap) kri_byteswap(a->data, ns, ss);
        return KR_OK;
    }
    unsigned char *buf;
    KRI_TRY(kri_alloc((void **)&buf, KRI_IO_CHUNK, "read buffer"));
    size_t per = KRI_IO_CHUNK / ss, done = 0;
    kr_status s = KR_OK;
    while (s == KR_OK && done < ns) {
        size_t cnt = ns - done < per ? ns - done : per;
        long long got = rd(user, buf, cnt * ss);
        if (got < 0) {
            s = KR_ERR_FORMAT;
        } else if ((size_t)got != cnt * ss) {
            s = kri_fail(KR_ERR_FORMAT, "%s: data ends after %zu of %zu values", path,
                         done + (size_t)got / ss, ns);
        } else {
            if (swap) kri_byteswap(buf, cnt, ss);
            kri_widen(buf, t, a, done, cnt);
            done += cnt;
        }
    }
    kri_free(buf);
    return s;
}

static long long kri_fread_all(void *user, void *p, size_t n)
{
    return (long long)fread(p, 1, n, user);
}

kr_status kri_samples_from_file(FILE *f, const char *path, kri_stype t, int big, kr_array *a)
{
    return kri_samples_read(kri_fread_all, f, path, t, big, a);
}

void kri_samples_from_mem(const unsigned char *src, kri_stype t, int big, kr_array *a)
{
    size_t ns = kri_components(a), ss = kri_stype_size(t);
    int swap = kri_need_swap(t, big);
    if (kri_direct(t, a)) {
        memcpy(a->data, src, ns * ss);
        if (swap) kri_byteswap(a->data, ns, ss);
        return;
    }
    unsigned char tmp[8 * 64];
    for (size_t done = 0; done < ns;) {
        size_t cnt = ns - done < 64 ? ns - done : 64;
        memcpy(tmp, src + done * ss, cnt * ss);
        if (swap) kri_byteswap(tmp, cnt, ss);
        kri_widen(tmp, t, a, done, cnt);
        done += cnt;
    }
}

/* Hand the array's bytes, in byte order `big`, to `sink` in pieces. */
typedef kr_status (*kri_sink_fn)(void *user, const unsigned char *p, size_t n, int last);

static kr_status kri_feed(const kr_array *a, int big, kri_sink_fn sink, void *user)
{
    kri_stype t = kri_stype_of(a->dtype);
    size_t ss = kri_stype_size(t), ns = kri_components(a), total = ns * ss;
    if (!kri_need_swap(t, big)) {
        const unsigned char *p = a->data;
        size_t done = 0;
        do {
            size_t n = total - done < KRI_IO_CHUNK ? total - done : KRI_IO_CHUNK;
            KRI_TRY(sink(user, p + done, n, done + n == total));
            done += n;
        } while (done < total);
        return KR_OK;
    }
    unsigned char *buf;
    KRI_TRY(kri_alloc((void **)&buf, KRI_IO_CHUNK, "write buffer"));
    kr_status s = KR_OK;
    size_t done = 0;
    do {
        size_t n = total - done < KRI_IO_CHUNK ? total - done : KRI_IO_CHUNK;
        memcpy(buf, (const unsigned char *)a->data + done, n);
        kri_byteswap(buf, n / ss, ss);
        s = sink(user, buf, n, done + n == total);
        done += n;
    } while (s == KR_OK && done < total);
    kri_free(buf);
    return s;
}

static kr_status kri_sink_plain(void *user, const unsigned char *p, size_t n, int last)
{
    (void)last;
    return kri_wfile_write(user, p, n);
}

kr_status kri_samples_write(kri_wfile *w, const kr_array *a, int big)
{
    return kri_feed(a, big, kri_sink_plain, w);
}

typedef struct kri_gz {
    z_stream z;
    kri_wfile *w;
    unsigned char *out;
} kri_gz;

static kr_status kri_sink_gzip(void *user, const unsigned char *p, size_t n, int last)
{
    kri_gz *g = user;
    g->z.next_in = (Bytef *)(uintptr_t)p; /* zlib does not write through next_in */
    g->z.avail_in = (uInt)n;              /* n <= KRI_IO_CHUNK fits uInt */
    int flush = last ? Z_FINISH : Z_NO_FLUSH;
    for (;;) {
        g->z.next_out = g->out;
        g->z.avail_out = (uInt)KRI_IO_CHUNK;
        int r = deflate(&g->z, flush);
        if (r == Z_STREAM_ERROR)
            return kri_fail(KR_ERR_INTERNAL, "%s: zlib deflate failed", g->w->path);
        KRI_TRY(kri_wfile_write(g->w, g->out, KRI_IO_CHUNK - g->z.avail_out));
        if (last ? r == Z_STREAM_END : g->z.avail_out != 0) break;
    }
    return KR_OK;
}

kr_status kri_samples_write_gzip(kri_wfile *w, const kr_array *a, int big)
{
    return kri_gzip_write(w, NULL, 0, a, big);
}

kr_status kri_gzip_write(kri_wfile *w, const void *head, size_t nhead, const kr_array *a, int big)
{
    kri_gz g;
    memset(&g, 0, sizeof g);
    g.w = w;
    KRI_TRY(kri_alloc((void **)&g.out, KRI_IO_CHUNK, "compression buffer"));
    /* windowBits 15 + 16: gzip wrapper */
    if (deflateInit2(&g.z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK) {
        kri_free(g.out);
        return kri_fail(KR_ERR_OOM_HOST, "%s: cannot start zlib compression", w->path);
    }
    kr_status s = KR_OK;
    /* no flush: one member */
    for (size_t done = 0; s == KR_OK && done < nhead; done += KRI_IO_CHUNK)
        s = kri_sink_gzip(&g, (const unsigned char *)head + done,
                          nhead - done < KRI_IO_CHUNK ? nhead - done : KRI_IO_CHUNK, 0);
    if (s == KR_OK) s = kri_feed(a, big, kri_sink_gzip, &g);
    deflateEnd(&g.z);
    kri_free(g.out);
    return s;
}

kr_status kri_inflate_exact(const char *path, const char *what, const unsigned char *src, size_t n,
                            void *dst, size_t want)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 32) != Z_OK) /* + 32: zlib or gzip header, detected */
        return kri_fail(KR_ERR_OOM_HOST, "%s: cannot start zlib decompression", path);
    size_t in_done = 0, out_done = 0;
    unsigned char *out = dst;
    kr_status s = KR_OK;
    for (;;) {
        if (z.avail_in == 0 && in_done < n) {
            size_t k = n - in_done < UINT_MAX ? n - in_done : UINT_MAX;
            z.next_in = (Bytef *)(uintptr_t)(src + in_done);
            z.avail_in = (uInt)k;
            in_done += k;
        }
        unsigned char scratch[1];
        int overflow = out_done == want;
        size_t room = want - out_done < UINT_MAX ? want - out_done : UINT_MAX;
        z.next_out = overflow ? scratch : out + out_done;
        z.avail_out = overflow ? 1u : (uInt)room;
        uInt before = z.avail_out;
        int r = inflate(&z, Z_NO_FLUSH);
        size_t produced = before - z.avail_out;
        if (overflow && produced) {
            s = kri_fail(KR_ERR_FORMAT, "%s: %s holds more than the %zu bytes the header promises",
                         path, what, want);
            break;
        }
        out_done += produced;
        if (r == Z_STREAM_END) {
            if (out_done == want) break;
            if (z.avail_in == 0 && in_done == n) {
                s = kri_fail(KR_ERR_FORMAT,
                             "%s: %s ends after %zu of the %zu bytes the header promises", path,
                             what, out_done, want);
                break;
            }
            inflateReset(&z); /* another gzip member follows */
            continue;
        }
        if (r == Z_BUF_ERROR && z.avail_in == 0 && in_done == n) {
            s = kri_fail(KR_ERR_FORMAT,
                         "%s: %s is truncated: it ends after %zu of the %zu bytes the header "
                         "promises",
                         path, what, out_done, want);
            break;
        }
        if (r != Z_OK && r != Z_BUF_ERROR) {
            s = kri_fail(r == Z_MEM_ERROR ? KR_ERR_OOM_HOST : KR_ERR_FORMAT,
                         "%s: %s is not a valid zlib/gzip stream (%s)", path, what,
                         z.msg ? z.msg : "corrupt data");
            break;
        }
    }
    inflateEnd(&z);
    return s;
}

int kri_inflate_cannot_hold(size_t csize, size_t bytes) { return bytes / 1100 > csize + 64; }

size_t kri_inflate_max(size_t csize)
{
    return csize > SIZE_MAX / 1100 - 65 ? SIZE_MAX : (csize + 65) * 1100 - 1;
}

kr_status kri_samples_from_zfile(FILE *f, const char *path, const char *dpath, size_t csize,
                                 size_t bytes, const char *fmt, const char *what, kri_stype t,
                                 int big, kr_array *a)
{
    char zname[64], rname[64];
    snprintf(zname, sizeof zname, "compressed %s data", fmt);
    snprintf(rname, sizeof rname, "%s data", fmt);
    unsigned char *z = NULL, *raw = NULL;
    kr_status s = kri_alloc((void **)&z, csize, zname);
    if (s == KR_OK && fread(z, 1, csize, f) != csize)
        s = kri_fail(KR_ERR_IO, "%s: cannot read %zu bytes from %s", path, csize, dpath);
    if (s == KR_OK) s = kri_alloc((void **)&raw, bytes, rname);
    if (s == KR_OK) s = kri_inflate_exact(path, what, z, csize, raw, bytes);
    if (s == KR_OK) kri_samples_from_mem(raw, t, big, a);
    kri_free(z);
    kri_free(raw);
    return s;
}

static int kri_is_sep(char c, const char *seps)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || (seps && c && strchr(seps, c));
}

/* Whole numbers into iv (strtoll; out of range is malformed) or, with iv NULL, reals into fv. */
static int kri_parse_nums(const char *s, const char *seps, int64_t *iv, double *fv, int max)
{
    int n = 0;
    for (;;) {
        while (*s && kri_is_sep(*s, seps))
            s++;
        if (!*s) return n;
        char *end;
        long long x = 0;
        double d = 0;
        errno = 0;
        if (iv)
            x = strtoll(s, &end, 10);
        else
            d = strtod(s, &end);
        if (end == s || (iv && errno == ERANGE) || (*end && !kri_is_sep(*end, seps))) return -1;
        if (n == max) return -2;
        if (iv)
            iv[n++] = (int64_t)x;
        else
            fv[n++] = d;
        s = end;
    }
}

int kri_parse_i64s(const char *s, const char *seps, int64_t *v, int max)
{
    return kri_parse_nums(s, seps, v, NULL, max);
}

int kri_parse_f64s(const char *s, const char *seps, double *v, int max)
{
    return kri_parse_nums(s, seps, NULL, v, max);
}

kr_status kri_sibling_path(const char *header, const char *name, char *out, size_t len)
{
    const char *slash = strrchr(header, '/');
    int k;
    if (name[0] == '/' || !slash)
        k = snprintf(out, len, "%s", name);
    else
        k = snprintf(out, len, "%.*s/%s", (int)(slash - header), header, name);
    if (k < 0 || (size_t)k >= len)
        return kri_fail(KR_ERR_FORMAT, "%s: data file name '%s' is too long", header, name);
    return KR_OK;
}

kr_status kri_data_file(const char *path, const char *field, const char *name, char *dpath,
                        size_t len, size_t *size)
{
    if (!name) {
        snprintf(dpath, len, "%s", path);
        return kri_file_size(path, size);
    }
    KRI_TRY(kri_sibling_path(path, name, dpath, len));
    kr_status s = kri_file_size(dpath, size);
    return s == KR_OK ? KR_OK : kri_fail_prefix(s, "%s: %s %s", path, field, name);
}

kr_status kri_data_open(const char *path, const char *dpath, size_t start, FILE **f)
{
    *f = fopen(dpath, "rb");
    if (!*f)
        return kri_fail(KR_ERR_IO, "%s: cannot open data file %s: %s", path, dpath,
                        strerror(errno));
    if (fseek(*f, (long)start, SEEK_SET) != 0) {
        fclose(*f);
        *f = NULL;
        return kri_fail(KR_ERR_IO, "%s: cannot seek in %s", path, dpath);
    }
    return KR_OK;
}

kr_status kri_write_meta(const char *path, const kr_io_opts *o, kr_meta *m)
{
    memset(m, 0, sizeof *m);
    if (o->meta) *m = *o->meta;
    for (int i = 0; i < 3; i++) {
        if (!isfinite(m->spacing[i]) || m->spacing[i] < 0)
            return kri_fail(KR_ERR_INVALID_ARG, "%s: spacing[%d] is %g, must be finite and >= 0",
                            path, i, m->spacing[i]);
        if (!isfinite(m->origin[i]))
            return kri_fail(KR_ERR_INVALID_ARG, "%s: origin[%d] is %g, must be finite", path, i,
                            m->origin[i]);
    }
    return KR_OK;
}

kr_status kri_dims_product(const char *path, const char *field, int n, const int64_t *dims,
                           int64_t *numel)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++) {
        if (dims[i] < 1)
            return kri_fail(KR_ERR_FORMAT, "%s: %s: size %lld of axis %d must be at least 1", path,
                            field, (long long)dims[i], i);
        if (!kri_mul_ok(p, dims[i], &p) || p > KR_MAX_ELEMENTS)
            return kri_fail(KR_ERR_FORMAT,
                            "%s: %s: the sizes multiply to more than kray's limit of 2^40 "
                            "elements",
                            path, field);
    }
    *numel = p;
    return KR_OK;
}
