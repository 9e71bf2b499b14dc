/* Strict RFC 8259 JSON reader and typed access to its tree (see json.h); the writer is in
 * json_write.c. */
#include "json.h"

#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- reader -------------------------------------------------------------------------------- */
typedef struct kri_jp {
    const unsigned char *s;
    size_t len, pos;
    int line;
    size_t line_start;
    const char *what;
    int depth;
} kri_jp;

static int kri_jp_col(const kri_jp *p, size_t pos) { return (int)(pos - p->line_start) + 1; }

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static kr_status kri_jp_fail(const kri_jp *p, size_t pos, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return kri_fail(KR_ERR_FORMAT, "%s: line %d, column %d: %s", p->what, p->line,
                    kri_jp_col(p, pos), msg);
}

static void kri_jp_ws(kri_jp *p)
{
    while (p->pos < p->len) {
        unsigned char c = p->s[p->pos];
        if (c == '\n') {
            p->line++;
            p->line_start = p->pos + 1;
        } else if (c != ' ' && c != '\t' && c != '\r') {
            return;
        }
        p->pos++;
    }
}

static const char *kri_jp_describe(const kri_jp *p, char *buf, size_t n)
{
    if (p->pos >= p->len) return "the end of the text";
    unsigned char c = p->s[p->pos];
    if (c >= 0x20 && c < 0x7f)
        snprintf(buf, n, "'%c'", c);
    else
        snprintf(buf, n, "byte 0x%02x", c);
    return buf;
}

const char *kri_json_type_name(kri_json_type t)
{
    static const char *const names[] = {"null",   "false", "true",  "number",
                                        "string", "array", "object"};
    return (int)t >= 0 && t <= KRI_JSON_OBJECT ? names[t] : "invalid";
}

static kri_json *kri_jv_new(kri_jp *p, kri_json_type t)
{
    kri_json *v = kri_calloc(1, sizeof *v);
    if (v) {
        v->type = t;
        v->line = p->line;
        v->col = kri_jp_col(p, p->pos);
    }
    return v;
}

void kri_json_free(kri_json *v)
{
    if (!v) return;
    for (size_t i = 0; i < v->n; i++) {
        if (v->items) kri_json_free(v->items[i]);
        if (v->keys) kri_free(v->keys[i]);
    }
    kri_free(v->items);
    kri_free(v->keys);
    kri_free(v->str);
    kri_free(v);
}

static kr_status kri_jp_oom(void) { return kri_fail(KR_ERR_OOM_HOST, "out of memory parsing JSON"); }

static int kri_hex4(const unsigned char *s, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned c = s[i], d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return 0;
        v = v * 16 + d;
    }
    *out = v;
    return 1;
}

/* Length of a valid UTF-8 sequence starting at s (n bytes available), 0 if invalid. */
static size_t kri_utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) { len = 2; min = 0x80; }
    else if (c >= 0xe0 && c <= 0xef) { len = 3; min = 0x800; }
    else if (c >= 0xf0 && c <= 0xf4) { len = 4; min = 0x10000; }
    else return 0;
    if (n < len) return 0;
    unsigned cp = c & (0x3f >> (len - 1));
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return len;
}

static size_t kri_utf8_put(unsigned cp, char *o)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* p->pos is at the opening quote. On success *out is a new NUL-terminated string. */
static kr_status kri_jp_string(kri_jp *p, char **out)
{
    size_t start = p->pos;
    p->pos++;
    /* Decoded text is never longer than the source text. */
    size_t cap = 1;
    for (size_t q = p->pos; q < p->len && p->s[q] != '"'; q++, cap++)
        if (p->s[q] == '\\' && q + 1 < p->len) q++, cap++;
    char *o = kri_malloc(cap + 4);
    if (!o) return kri_jp_oom();
    size_t n = 0;
    for (;;) {
        if (p->pos >= p->len) {
            kri_free(o);
            return kri_jp_fail(p, start, "unterminated string (the text ends inside it)");
        }
        unsigned char c = p->s[p->pos];
        if (c == '"') {
            p->pos++;
            break;
        }
        if (c < 0x20) {
            kri_free(o);
            return kri_jp_fail(p, p->pos, "control character 0x%02x inside a string (escape it)",
                               c);
        }
        if (c == '\\') {
            size_t esc = p->pos;
            if (p->pos + 1 >= p->len) {
                kri_free(o);
                return kri_jp_fail(p, esc, "unterminated escape sequence");
            }
            unsigned char e = p->s[p->pos + 1];
            p->pos += 2;
            switch (e) {
            case '"': o[n++] = '"'; break;
            case '\\': o[n++] = '\\'; break;
            case '/': o[n++] = '/'; break;
            case 'b': o[n++] = '\b'; break;
            case 'f': o[n++] = '\f'; break;
            case 'n': o[n++] = '\n'; break;
            case 'r': o[n++] = '\r'; break;
            case 't': o[n++] = '\t'; break;
            case 'u': {
                unsigned cp;
                if (p->pos + 4 > p->len || !kri_hex4(p->s + p->pos, &cp)) {
                    kri_free(o);
                    return kri_jp_fail(p, esc, "\\u must be followed by four hex digits");
                }
                p->pos += 4;
                if (cp >= 0xdc00 && cp <= 0xdfff) {
                    kri_free(o);
                    return kri_jp_fail(p, esc, "lone low surrogate \\u%04x", cp);
                }
                if (cp >= 0xd800 && cp <= 0xdbff) {
                    unsigned lo;
                    if (p->pos + 6 > p->len || p->s[p->pos] != '\\' || p->s[p->pos + 1] != 'u' ||
                        !kri_hex4(p->s + p->pos + 2, &lo) || lo < 0xdc00 || lo > 0xdfff) {
                        kri_free(o);
                        return kri_jp_fail(p, esc,
                                           "high surrogate \\u%04x not followed by a low one", cp);
                    }
                    p->pos += 6;
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                }
                if (cp == 0) {
                    kri_free(o);
                    return kri_jp_fail(p, esc, "\\u0000 (NUL) is not accepted in strings");
                }
                n += kri_utf8_put(cp, o + n);
                break;
            }
            default:
                kri_free(o);
                return kri_jp_fail(p, esc, "invalid escape sequence '\\%c'",
                                   e >= 0x20 && e < 0x7f ? e : '?');
            }
            continue;
        }
        size_t l = kri_utf8_len(p->s + p->pos, p->len - p->pos);
        if (!l) {
            kri_free(o);
            return kri_jp_fail(p, p->pos, "invalid UTF-8 byte 0x%02x in a string", c);
        }
        memcpy(o + n, p->s + p->pos, l);
        n += l;
        p->pos += l;
    }
    o[n] = '\0';
    *out = o;
    return KR_OK;
}

double kri_json_strtod(const char *txt, size_t n, int *range_err)
{
    char buf[512];
    char *heap = NULL, *b = buf;
    if (n + 1 > sizeof buf) {
        heap = kri_malloc(n + 1);
        if (!heap) {
            *range_err = 0;
            return NAN;
        }
        b = heap;
    }
    memcpy(b, txt, n);
    b[n] = '\0';
    const char *dp = localeconv()->decimal_point;
    if (dp && dp[0] && dp[0] != '.' && dp[1] == '\0') {
        char *dot = strchr(b, '.');
        if (dot) *dot = dp[0];
    }
    errno = 0;
    double v = strtod(b, NULL);
    *range_err = errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL);
    kri_free(heap);
    return v;
}

static kr_status kri_jp_number(kri_jp *p, kri_json **out)
{
    size_t start = p->pos, q = p->pos;
    const unsigned char *s = p->s;
    int integer = 1;
#define KRI_DIGIT(i) ((i) < p->len && s[i] >= '0' && s[i] <= '9')
    if (q < p->len && s[q] == '-') q++;
    if (!KRI_DIGIT(q))
        return kri_jp_fail(p, start, "invalid number: expected a digit after '-'");
    if (s[q] == '0') {
        q++;
        if (KRI_DIGIT(q)) return kri_jp_fail(p, start, "invalid number: leading zero");
    } else {
        while (KRI_DIGIT(q)) q++;
    }
    if (q < p->len && s[q] == '.') {
        integer = 0;
        q++;
        if (!KRI_DIGIT(q))
            return kri_jp_fail(p, start, "invalid number: expected a digit after '.'");
        while (KRI_DIGIT(q)) q++;
    }
    if (q < p->len && (s[q] == 'e' || s[q] == 'E')) {
        integer = 0;
        q++;
        if (q < p->len && (s[q] == '+' || s[q] == '-')) q++;
        if (!KRI_DIGIT(q))
            return kri_jp_fail(p, start, "invalid number: expected a digit in the exponent");
        while (KRI_DIGIT(q)) q++;
    }
#undef KRI_DIGIT
    int range = 0;
    double v = kri_json_strtod((const char *)s + start, q - start, &range);
    if (range || !isfinite(v))
        return kri_jp_fail(p, start, "number %.*s is out of the range of a double",
                           (int)(q - start > 40 ? 40 : q - start), (const char *)s + start);
    kri_json *j = kri_jv_new(p, KRI_JSON_NUMBER);
    if (!j) return kri_jp_oom();
    j->num = v;
    j->is_integer = integer;
    p->pos = q;
    *out = j;
    return KR_OK;
}

static kr_status kri_jp_value(kri_jp *p, kri_json **out);

static kr_status kri_jp_push(kri_json *c, kri_json *item, char *key, size_t *cap)
{
    if (c->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 4;
        kri_json **it = kri_malloc(nc * sizeof *it);
        if (!it) return kri_jp_oom();
        if (c->n) memcpy(it, c->items, c->n * sizeof *it);
        kri_free(c->items);
        c->items = it;
        if (c->type == KRI_JSON_OBJECT) {
            char **k = kri_malloc(nc * sizeof *k);
            if (!k) return kri_jp_oom();
            if (c->n) memcpy(k, c->keys, c->n * sizeof *k);
            kri_free(c->keys);
            c->keys = k;
        }
        *cap = nc;
    }
    c->items[c->n] = item;
    if (c->type == KRI_JSON_OBJECT) c->keys[c->n] = key;
    c->n++;
    return KR_OK;
}

static kr_status kri_jp_container(kri_jp *p, kri_json **out)
{
    int is_obj = p->s[p->pos] == '{';
    char close = is_obj ? '}' : ']';
    if (p->depth >= KRI_JSON_MAX_DEPTH)
        return kri_jp_fail(p, p->pos, "nesting deeper than %d levels", KRI_JSON_MAX_DEPTH);
    kri_json *c = kri_jv_new(p, is_obj ? KRI_JSON_OBJECT : KRI_JSON_ARRAY);
    if (!c) return kri_jp_oom();
    size_t cap = 0;
    kr_status st = KR_OK;
    p->depth++;
    p->pos++;
    kri_jp_ws(p);
    if (p->pos < p->len && p->s[p->pos] == close) {
        p->pos++;
        goto done;
    }
    for (;;) {
        char *key = NULL;
        kri_json *item = NULL;
        char d[32];
        kri_jp_ws(p);
        if (is_obj) {
            if (p->pos >= p->len || p->s[p->pos] != '"') {
                st = kri_jp_fail(p, p->pos, "expected a string key, found %s",
                                 kri_jp_describe(p, d, sizeof d));
                goto done;
            }
            size_t kpos = p->pos;
            int kline = p->line;
            if ((st = kri_jp_string(p, &key)) != KR_OK) goto done;
            for (size_t i = 0; i < c->n; i++)
                if (strcmp(c->keys[i], key) == 0) {
                    kri_jp q = *p;
                    q.line = kline;
                    st = kri_jp_fail(&q, kpos, "duplicate key \"%s\"", key);
                    kri_free(key);
                    goto done;
                }
            kri_jp_ws(p);
            if (p->pos >= p->len || p->s[p->pos] != ':') {
                st = kri_jp_fail(p, p->pos, "expected ':' after key \"%s\", found %s", key,
                                 kri_jp_describe(p, d, sizeof d));
                kri_free(key);
                goto done;
            }
            p->pos++;
            kri_jp_ws(p);
        }
        if ((st = kri_jp_value(p, &item)) != KR_OK) {
            kri_free(key);
            goto done;
        }
        if ((st = kri_jp_push(c, item, key, &cap)) != KR_OK) {
            kri_json_free(item);
            kri_free(key);
            goto done;
        }
        kri_jp_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            kri_jp_ws(p);
            if (p->pos < p->len && p->s[p->pos] == close) {
                st = kri_jp_fail(p, p->pos, "trailing comma before '%c'", close);
                goto done;
            }
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == close) {
            p->pos++;
            break;
        }
        st = kri_jp_fail(p, p->pos, "expected ',' or '%c' in %s, found %s", close,
                         is_obj ? "an object" : "an array", kri_jp_describe(p, d, sizeof d));
        goto done;
    }
done:
    p->depth--;
    if (st != KR_OK) {
        kri_json_free(c);
        return st;
    }
    *out = c;
    return KR_OK;
}

static kr_status kri_jp_literal(kri_jp *p, const char *word, kri_json_type t, kri_json **out)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0)
        return kri_jp_fail(p, p->pos, "invalid literal (expected %s)", word);
    kri_json *v = kri_jv_new(p, t);
    if (!v) return kri_jp_oom();
    p->pos += n;
    *out = v;
    return KR_OK;
}

static kr_status kri_jp_value(kri_jp *p, kri_json **out)
{
    char d[32];
    if (p->pos >= p->len) return kri_jp_fail(p, p->pos, "unexpected end of the text (truncated?)");
    unsigned char c = p->s[p->pos];
    switch (c) {
    case '{':
    case '[': return kri_jp_container(p, out);
    case '"': {
        kri_json *v = kri_jv_new(p, KRI_JSON_STRING);
        if (!v) return kri_jp_oom();
        kr_status st = kri_jp_string(p, &v->str);
        if (st != KR_OK) {
            kri_json_free(v);
            return st;
        }
        *out = v;
        return KR_OK;
    }
    case 't': return kri_jp_literal(p, "true", KRI_JSON_TRUE, out);
    case 'f': return kri_jp_literal(p, "false", KRI_JSON_FALSE, out);
    case 'n': return kri_jp_literal(p, "null", KRI_JSON_NULL, out);
    default:
        if (c == '-' || (c >= '0' && c <= '9')) return kri_jp_number(p, out);
        if (c == 'N' || c == 'I' || c == '+' || c == '.')
            return kri_jp_fail(p, p->pos,
                               "invalid number (JSON has no NaN, Infinity, '+' or bare '.'): %s",
                               kri_jp_describe(p, d, sizeof d));
        return kri_jp_fail(p, p->pos, "expected a value, found %s",
                           kri_jp_describe(p, d, sizeof d));
    }
}

kr_status kri_json_parse(const char *text, size_t len, const char *what, kri_json **out)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    if (!what) what = "JSON";
    if (!text && len) return kri_fail(KR_ERR_INVALID_ARG, "%s: text is NULL", what);
    kri_jp p = {(const unsigned char *)(text ? text : ""), len, 0, 1, 0, what, 0};
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) p.pos = p.line_start = 3;
    kri_jp_ws(&p);
    if (p.pos >= p.len) return kri_jp_fail(&p, p.pos, "the text is empty (no JSON value)");
    kri_json *v = NULL;
    KRI_TRY(kri_jp_value(&p, &v));
    kri_jp_ws(&p);
    if (p.pos < p.len) {
        char d[32];
        kr_status st = kri_jp_fail(&p, p.pos, "unexpected %s after the end of the JSON value",
                                   kri_jp_describe(&p, d, sizeof d));
        kri_json_free(v);
        return st;
    }
    *out = v;
    return KR_OK;
}

kri_json *kri_json_get(const kri_json *obj, const char *key)
{
    if (!obj || obj->type != KRI_JSON_OBJECT || !key) return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (strcmp(obj->keys[i], key) == 0) return obj->items[i];
    return NULL;
}

static const char *kri_jpath(char *buf, size_t n, const char *path, const char *key)
{
    if (path && *path)
        snprintf(buf, n, "%s.%s", path, key);
    else
        snprintf(buf, n, "%s", key);
    return buf;
}

kr_status kri_json_type_error(const kri_json *v, const char *what, const char *path,
                              const char *key, const char *want)
{
    char f[160];
    return kri_fail(KR_ERR_FORMAT, "%s: field '%s' at line %d, column %d must be %s, got %s",
                    what, kri_jpath(f, sizeof f, path, key), v->line, v->col, want,
                    kri_json_type_name(v->type));
}

kr_status kri_json_take(kri_json *obj, const char *key, int required, const char *what,
                        const char *path, kri_json **out)
{
    *out = kri_json_get(obj, key);
    if (!*out) {
        if (!required) return KR_OK;
        char f[160];
        if (path && *path)
            return kri_fail(KR_ERR_FORMAT, "%s: missing field '%s' in the object at line %d",
                            what, kri_jpath(f, sizeof f, path, key), obj->line);
        return kri_fail(KR_ERR_FORMAT, "%s: missing field '%s'", what, key);
    }
    (*out)->used = 1;
    return KR_OK;
}

kr_status kri_json_take_num(kri_json *obj, const char *key, int required, const char *what,
                            const char *path, double *out, int *present)
{
    kri_json *v;
    if (present) *present = 0;
    KRI_TRY(kri_json_take(obj, key, required, what, path, &v));
    if (!v) return KR_OK;
    if (v->type != KRI_JSON_NUMBER) return kri_json_type_error(v, what, path, key, "a number");
    *out = v->num;
    if (present) *present = 1;
    return KR_OK;
}

kr_status kri_json_take_int(kri_json *obj, const char *key, int required, const char *what,
                            const char *path, int64_t lo, int64_t hi, int64_t *out, int *present)
{
    kri_json *v;
    if (present) *present = 0;
    KRI_TRY(kri_json_take(obj, key, required, what, path, &v));
    if (!v) return KR_OK;
    if (v->type != KRI_JSON_NUMBER || v->num != floor(v->num) || fabs(v->num) > 9007199254740992.0)
        return kri_json_type_error(v, what, path, key, "an integer");
    if (v->num < (double)lo || v->num > (double)hi) {
        char f[160];
        return kri_fail(KR_ERR_FORMAT,
                        "%s: field '%s' at line %d, column %d is %.17g, outside %lld..%lld", what,
                        kri_jpath(f, sizeof f, path, key), v->line, v->col, v->num, (long long)lo,
                        (long long)hi);
    }
    *out = (int64_t)v->num;
    if (present) *present = 1;
    return KR_OK;
}

kr_status kri_json_take_str(kri_json *obj, const char *key, int required, const char *what,
                            const char *path, const char **out)
{
    kri_json *v;
    KRI_TRY(kri_json_take(obj, key, required, what, path, &v));
    if (!v) {
        *out = NULL;
        return KR_OK;
    }
    if (v->type != KRI_JSON_STRING) return kri_json_type_error(v, what, path, key, "a string");
    *out = v->str;
    return KR_OK;
}

kr_status kri_json_check_unused(const kri_json *obj, const char *what, const char *path,
                                const char *allowed)
{
    if (!obj || obj->type != KRI_JSON_OBJECT) return KR_OK;
    for (size_t i = 0; i < obj->n; i++) {
        if (obj->items[i]->used) continue;
        char f[160];
        if (allowed && *allowed)
            return kri_fail(KR_ERR_FORMAT,
                            "%s: unknown field '%s' at line %d, column %d (accepted here: %s)",
                            what, kri_jpath(f, sizeof f, path, obj->keys[i]), obj->items[i]->line,
                            obj->items[i]->col, allowed);
        return kri_fail(KR_ERR_FORMAT, "%s: unknown field '%s' at line %d, column %d", what,
                        kri_jpath(f, sizeof f, path, obj->keys[i]), obj->items[i]->line,
                        obj->items[i]->col);
    }
    return KR_OK;
}
