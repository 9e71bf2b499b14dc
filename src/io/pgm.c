/* Netpbm PGM (grey map).
 * Reading: P5 (binary) and P2 (ASCII). Header "P5 <width> <height> <maxval>" with whitespace and
 * '#' comments (to the end of the line) between the fields; exactly one whitespace byte follows
 * maxval in P5. maxval 1..255 gives a u8 array, 256..65535 a u16 array (P5 samples are two bytes,
 * most significant first). Samples are returned as stored (not rescaled to maxval); a sample
 * above maxval is an error. kr_meta.description is set to "pgm maxval <n>".
 * The array is [width, height] with y index 0 = the first row of the file (the top of the
 * image). P2 rasters may contain comments; P5 files must end right after the raster (multi-image
 * files are not supported).
 * Writing: P5, 8-bit (maxval 255) or 16-bit (maxval 65535) by o->bits (0 = 8), rendered with
 * kri_render_gray (window/level, slice of a volume, part of complex data); row 0 of the file is
 * y index 0. Without a window, a u8 array written at 8 bits or a u16 array written at 16 bits is
 * stored as is (lossless); everything else is mapped from its min..max to 0..maxval.
 */
#include "io_internal.h"

#include <ctype.h>
#include <string.h>

/* Width and height limit per axis (PGM readers commonly use int). */
#define KRI_PGM_MAX_SIDE ((int64_t)1 << 31)

typedef struct kri_pgm_cursor {
    const char *path;
    const unsigned char *p, *end;
} kri_pgm_cursor;

/* Skip whitespace and comments. */
static void kri_pgm_skip(kri_pgm_cursor *c)
{
    while (c->p < c->end) {
        if (isspace(*c->p)) {
            c->p++;
        } else if (*c->p == '#') {
            while (c->p < c->end && *c->p != '\n' && *c->p != '\r') c->p++;
        } else {
            break;
        }
    }
}

/* An unsigned decimal number followed by whitespace, '#' or the end of the data. */
static kr_status kri_pgm_number(kri_pgm_cursor *c, const char *what, int64_t limit, int64_t *v)
{
    kri_pgm_skip(c);
    if (c->p >= c->end)
        return kri_fail(KR_ERR_FORMAT, "%s: file ends before the %s", c->path, what);
    if (!isdigit(*c->p))
        return kri_fail(KR_ERR_FORMAT, "%s: the %s is not a non-negative integer (found '%c')",
                        c->path, what, isprint(*c->p) ? *c->p : '?');
    int64_t x = 0;
    while (c->p < c->end && isdigit(*c->p)) {
        x = x * 10 + (*c->p - '0');
        if (x > limit)
            return kri_fail(KR_ERR_FORMAT, "%s: the %s exceeds %lld", c->path, what,
                            (long long)limit);
        c->p++;
    }
    if (c->p < c->end && !isspace(*c->p) && *c->p != '#')
        return kri_fail(KR_ERR_FORMAT, "%s: the %s is not a non-negative integer (found '%c')",
                        c->path, what, isprint(*c->p) ? *c->p : '?');
    *v = x;
    return KR_OK;
}

static kr_status kri_pgm_parse(const char *path, const unsigned char *buf, size_t len,
                               kr_array **out, int64_t *maxval_out)
{
    if (len < 2 || buf[0] != 'P' || (buf[1] != '5' && buf[1] != '2'))
        return kri_fail(KR_ERR_FORMAT,
                        "%s: not a PGM file (expected the magic 'P5' or 'P2')", path);
    int ascii = buf[1] == '2';
    kri_pgm_cursor c = {path, buf + 2, buf + len};
    if (c.p < c.end && !isspace(*c.p) && *c.p != '#')
        return kri_fail(KR_ERR_FORMAT, "%s: not a PGM file (bad magic)", path);
    int64_t w, h, maxval;
    KRI_TRY(kri_pgm_number(&c, "width", KRI_PGM_MAX_SIDE, &w));
    KRI_TRY(kri_pgm_number(&c, "height", KRI_PGM_MAX_SIDE, &h));
    KRI_TRY(kri_pgm_number(&c, "maxval", 65535, &maxval));
    if (w < 1 || h < 1)
        return kri_fail(KR_ERR_FORMAT, "%s: image size %lldx%lld has a zero side", path,
                        (long long)w, (long long)h);
    if (maxval < 1) return kri_fail(KR_ERR_FORMAT, "%s: maxval is 0 (must be 1..65535)", path);
    int64_t n;
    if (!kri_mul_ok(w, h, &n) || n > KR_MAX_ELEMENTS)
        return kri_fail(KR_ERR_FORMAT, "%s: image of %lldx%lld pixels exceeds kray's limit", path,
                        (long long)w, (long long)h);
    kr_dtype t = maxval <= 255 ? KR_U8 : KR_U16;
    int bps = maxval <= 255 ? 1 : 2;
    size_t left;
    if (!ascii) {
        if (c.p >= c.end || !isspace(*c.p))
            return kri_fail(KR_ERR_FORMAT, "%s: no whitespace after maxval", path);
        c.p++; /* the single whitespace byte before the raster */
        left = (size_t)(c.end - c.p);
        uint64_t want = (uint64_t)n * (uint64_t)bps;
        if ((uint64_t)left != want)
            return kri_fail(KR_ERR_FORMAT,
                            "%s: %lldx%lld %d-byte samples need %llu bytes, the file has %zu "
                            "after the header%s",
                            path, (long long)w, (long long)h, bps, (unsigned long long)want, left,
                            (uint64_t)left < want ? " (truncated)" : "");
    } else {
        left = (size_t)(c.end - c.p);
        /* every ASCII sample takes at least a digit and a separator */
        if ((uint64_t)n > (uint64_t)left / 2 + 1)
            return kri_fail(KR_ERR_FORMAT,
                            "%s: %lldx%lld samples cannot fit in the %zu bytes after the header "
                            "(truncated)",
                            path, (long long)w, (long long)h, left);
    }
    int64_t dims[2] = {w, h};
    kr_array *a;
    KRI_TRY(kri_io_array(&a, path, t, 2, dims));
    kr_status s = KR_OK;
    for (int64_t i = 0; i < n && s == KR_OK; i++) {
        int64_t v;
        if (ascii) {
            char what[64];
            snprintf(what, sizeof what, "sample %lld", (long long)i);
            s = kri_pgm_number(&c, what, 65535, &v);
            if (s != KR_OK) break;
        } else if (bps == 1) {
            v = c.p[i];
        } else {
            v = (int64_t)c.p[2 * i] << 8 | c.p[2 * i + 1];
        }
        if (v > maxval) {
            s = kri_fail(KR_ERR_FORMAT, "%s: sample %lld (x %lld, y %lld) is %lld, above maxval %lld",
                         path, (long long)i, (long long)(i % w), (long long)(i / w), (long long)v,
                         (long long)maxval);
            break;
        }
        if (bps == 1)
            ((uint8_t *)a->data)[i] = (uint8_t)v;
        else
            ((uint16_t *)a->data)[i] = (uint16_t)v;
    }
    if (s == KR_OK && ascii) {
        kri_pgm_skip(&c);
        if (c.p != c.end)
            s = kri_fail(KR_ERR_FORMAT, "%s: unexpected data after the %lld samples", path,
                         (long long)n);
    }
    if (s != KR_OK) {
        kr_array_destroy(a);
        return s;
    }
    *out = a;
    *maxval_out = maxval;
    return KR_OK;
}

kr_status kri_read_pgm(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o)
{
    (void)o;
    unsigned char *buf;
    size_t len;
    KRI_TRY(kri_read_file(path, &buf, &len, 0));
    int64_t maxval = 0;
    kr_status s = kri_pgm_parse(path, buf, len, out, &maxval);
    kri_free(buf);
    if (s == KR_OK && meta)
        snprintf(meta->description, sizeof meta->description, "pgm maxval %lld",
                 (long long)maxval);
    return s;
}

kr_status kri_write_pgm(const char *path, const kr_array *a, const kr_io_opts *o)
{
    int bits = o->bits == 0 ? 8 : o->bits;
    if (bits != 8 && bits != 16)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: PGM bit depth must be 8 or 16, got %d", path,
                        o->bits);
    kr_io_opts r = *o;
    if (!r.window_set && ((a->dtype == KR_U8 && bits == 8) || (a->dtype == KR_U16 && bits == 16))) {
        r.window_set = 1; /* identity: stored values are the array's */
        r.window_lo = 0.0;
        r.window_hi = bits == 8 ? 255.0 : 65535.0;
    }
    void *px;
    int64_t nx, ny;
    kr_status s = kri_render_gray(a, &r, bits, &px, &nx, &ny);
    if (s != KR_OK) return kri_fail_prefix(s, "%s", path);
    size_t n = (size_t)(nx * ny);
    if (bits == 16) { /* PGM 16-bit samples are big-endian */
        uint8_t *b = px;
        for (size_t i = 0; i < n; i++) {
            uint16_t v = ((const uint16_t *)px)[i];
            b[2 * i] = (uint8_t)(v >> 8);
            b[2 * i + 1] = (uint8_t)(v & 0xff);
        }
    }
    kri_wfile w;
    s = kri_wfile_open(&w, path);
    if (s != KR_OK) {
        kri_free(px);
        return s;
    }
    kri_wfile_printf(&w, "P5\n# kray %s", KRAY_VERSION_STRING);
    if (o->meta && o->meta->description[0]) {
        kri_wfile_printf(&w, ": ");
        const char *d = o->meta->description;
        for (size_t i = 0; i < sizeof o->meta->description && d[i]; i++) {
            char ch = iscntrl((unsigned char)d[i]) ? ' ' : d[i];
            kri_wfile_write(&w, &ch, 1);
        }
    }
    kri_wfile_printf(&w, "\n%lld %lld\n%d\n", (long long)nx, (long long)ny,
                     bits == 8 ? 255 : 65535);
    kri_wfile_write(&w, px, n * (size_t)(bits / 8));
    kri_free(px);
    return kri_wfile_commit(&w);
}
