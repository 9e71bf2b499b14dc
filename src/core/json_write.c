/* Small JSON writer: indented or one-line text into a growing buffer (see json.h). */
#include "json.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void kri_jw_init(kri_jw *w)
{
    memset(w, 0, sizeof *w);
    w->status = KR_OK;
}

void kri_jw_free(kri_jw *w)
{
    if (!w) return;
    kri_free(w->buf);
    w->buf = NULL;
    w->len = w->cap = 0;
}

static void kri_jw_put(kri_jw *w, const char *s, size_t n)
{
    if (w->status != KR_OK) return;
    if (w->len + n + 1 > w->cap) {
        size_t nc = w->cap ? w->cap : 256;
        while (nc < w->len + n + 1) nc *= 2;
        char *b = kri_malloc(nc);
        if (!b) {
            w->status = kri_fail(KR_ERR_OOM_HOST, "out of memory writing JSON");
            return;
        }
        if (w->len) memcpy(b, w->buf, w->len);
        kri_free(w->buf);
        w->buf = b;
        w->cap = nc;
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
    w->buf[w->len] = '\0';
}

static void kri_jw_puts(kri_jw *w, const char *s) { kri_jw_put(w, s, strlen(s)); }

static void kri_jw_newline(kri_jw *w)
{
    kri_jw_put(w, "\n", 1);
    for (int i = 0; i < w->depth; i++) kri_jw_put(w, "  ", 2);
}

/* Separator and indentation before a new item (value or key) in the current container. */
static void kri_jw_item(kri_jw *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    if (w->depth == 0) {
        if (w->count[0]++ > 0 && w->status == KR_OK)
            w->status = kri_fail(KR_ERR_INTERNAL, "JSON writer: two top-level values");
        return;
    }
    if (w->count[w->depth]++ > 0) kri_jw_put(w, ",", 1);
    if (w->inline_[w->depth]) {
        if (w->count[w->depth] > 1) kri_jw_put(w, " ", 1);
    } else {
        kri_jw_newline(w);
    }
}

static void kri_jw_begin(kri_jw *w, const char *open, int one_line)
{
    kri_jw_item(w);
    kri_jw_puts(w, open);
    if (w->depth >= KRI_JSON_MAX_DEPTH) {
        if (w->status == KR_OK)
            w->status = kri_fail(KR_ERR_INTERNAL, "JSON writer: nesting too deep");
        return;
    }
    w->depth++;
    w->count[w->depth] = 0;
    /* A container inside a one-line container stays on that line. */
    w->inline_[w->depth] = one_line || w->inline_[w->depth - 1];
}

static void kri_jw_end(kri_jw *w, const char *close)
{
    if (w->depth <= 0) {
        if (w->status == KR_OK)
            w->status = kri_fail(KR_ERR_INTERNAL, "JSON writer: unbalanced container end");
        return;
    }
    int had = w->count[w->depth], inl = w->inline_[w->depth];
    w->depth--;
    if (had && !inl) kri_jw_newline(w);
    kri_jw_puts(w, close);
}

void kri_jw_begin_object(kri_jw *w, int one_line) { kri_jw_begin(w, "{", one_line); }
void kri_jw_end_object(kri_jw *w) { kri_jw_end(w, "}"); }
void kri_jw_begin_array(kri_jw *w, int one_line) { kri_jw_begin(w, "[", one_line); }
void kri_jw_end_array(kri_jw *w) { kri_jw_end(w, "]"); }

static void kri_jw_quoted(kri_jw *w, const char *s)
{
    kri_jw_put(w, "\"", 1);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        char e[8];
        switch (*c) {
        case '"': kri_jw_put(w, "\\\"", 2); break;
        case '\\': kri_jw_put(w, "\\\\", 2); break;
        case '\n': kri_jw_put(w, "\\n", 2); break;
        case '\r': kri_jw_put(w, "\\r", 2); break;
        case '\t': kri_jw_put(w, "\\t", 2); break;
        case '\b': kri_jw_put(w, "\\b", 2); break;
        case '\f': kri_jw_put(w, "\\f", 2); break;
        default:
            if (*c < 0x20) {
                snprintf(e, sizeof e, "\\u%04x", *c);
                kri_jw_put(w, e, 6);
            } else {
                kri_jw_put(w, (const char *)c, 1);
            }
        }
    }
    kri_jw_put(w, "\"", 1);
}

void kri_jw_key(kri_jw *w, const char *key)
{
    kri_jw_item(w);
    kri_jw_quoted(w, key ? key : "");
    kri_jw_put(w, ": ", 2);
    w->after_key = 1;
}

void kri_json_format_double(double v, char *buf)
{
    if (v == 0) {
        strcpy(buf, signbit(v) ? "-0" : "0");
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, 32, "%.*g", prec, v);
        const char *dp = localeconv()->decimal_point;
        if (dp && dp[0] && dp[0] != '.') {
            char *q = strchr(buf, dp[0]);
            if (q) *q = '.';
        }
        int range = 0;
        if (kri_json_strtod(buf, strlen(buf), &range) == v) return;
    }
}

void kri_jw_number(kri_jw *w, double v)
{
    if (!isfinite(v)) {
        if (w->status == KR_OK)
            w->status = kri_fail(KR_ERR_INVALID_ARG, "JSON cannot represent the number %g", v);
        return;
    }
    char b[32];
    kri_json_format_double(v, b);
    kri_jw_item(w);
    kri_jw_puts(w, b);
}

void kri_jw_int(kri_jw *w, int64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%lld", (long long)v);
    kri_jw_item(w);
    kri_jw_puts(w, b);
}

void kri_jw_string(kri_jw *w, const char *s)
{
    kri_jw_item(w);
    kri_jw_quoted(w, s ? s : "");
}

void kri_jw_bool(kri_jw *w, int v)
{
    kri_jw_item(w);
    kri_jw_puts(w, v ? "true" : "false");
}

void kri_jw_null(kri_jw *w)
{
    kri_jw_item(w);
    kri_jw_puts(w, "null");
}

void kri_jw_raw(kri_jw *w, const char *text)
{
    kri_jw_item(w);
    kri_jw_puts(w, text ? text : "null");
}

kr_status kri_jw_finish(kri_jw *w, char **text, size_t *len)
{
    if (w->status == KR_OK && (w->depth != 0 || w->count[0] != 1))
        w->status = kri_fail(KR_ERR_INTERNAL, "JSON writer: document is incomplete");
    kri_jw_put(w, "\n", 1);
    if (w->status != KR_OK) {
        kr_status s = w->status;
        kri_jw_free(w);
        return s;
    }
    *text = w->buf;
    if (len) *len = w->len;
    w->buf = NULL;
    w->len = w->cap = 0;
    return KR_OK;
}
