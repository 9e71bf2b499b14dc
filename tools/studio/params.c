/* kray studio: growable text, request parameters and their checks (see studio.h). */
#include "studio.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void ks_buf_put(ks_buf *b, const void *s, size_t n)
{
    if (b->oom) return;
    if (b->n + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (b->n + n + 1 > cap) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = '\0';
}

void ks_buf_puts(ks_buf *b, const char *s) { ks_buf_put(b, s, strlen(s)); }

void ks_buf_printf(ks_buf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        ks_buf_put(b, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->oom = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    ks_buf_put(b, big, (size_t)n);
    free(big);
}

void ks_buf_free(ks_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

void ks_errf(ks_err *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
}

void ks_params_add(ks_params *p, const char *key, const char *val)
{
    if (p->n >= KS_MAX_PARAMS || !key) return;
    char *k = strdup(key), *v = strdup(val ? val : "");
    if (!k || !v) {
        free(k);
        free(v);
        return;
    }
    p->key[p->n] = k;
    p->val[p->n] = v;
    p->n++;
}

void ks_params_free(ks_params *p)
{
    for (int i = 0; i < p->n; i++) {
        free(p->key[i]);
        free(p->val[i]);
    }
    p->n = 0;
}

const char *ks_param(const ks_params *p, const char *key)
{
    for (int i = p->n - 1; i >= 0; i--) /* the last one given wins */
        if (!strcmp(p->key[i], key)) return p->val[i][0] ? p->val[i] : NULL;
    return NULL;
}

/* The value as the page shows it in a sentence: at most 40 printable characters. */
static const char *ks_shown(const char *v, char *buf, size_t len)
{
    size_t o = 0;
    for (const char *c = v; *c && o + 4 < len && c - v < 40; c++)
        buf[o++] = (*c >= 0x20 && *c < 0x7f) ? *c : '?';
    buf[o] = '\0';
    return buf;
}

int ks_p_num(const ks_params *p, const char *key, double def, double lo, double hi, double *out,
             ks_err *e)
{
    const char *v = ks_param(p, key);
    char sb[48];
    if (!v) {
        *out = def;
        return 0;
    }
    char *end = NULL;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || *end || errno == ERANGE || !isfinite(x)) {
        ks_errf(e, "parameter '%s': '%s' is not a number", key, ks_shown(v, sb, sizeof sb));
        return -1;
    }
    if (x < lo || x > hi) {
        ks_errf(e, "parameter '%s': %g is outside %g .. %g", key, x, lo, hi);
        return -1;
    }
    *out = x;
    return 0;
}

int ks_p_int(const ks_params *p, const char *key, int def, int lo, int hi, int *out, ks_err *e)
{
    double x;
    char sb[48];
    if (ks_p_num(p, key, def, -1e300, 1e300, &x, e)) return -1;
    if (x != floor(x)) {
        ks_errf(e, "parameter '%s': '%s' is not a whole number", key,
                ks_shown(ks_param(p, key), sb, sizeof sb));
        return -1;
    }
    if (x < lo || x > hi) {
        ks_errf(e, "parameter '%s': %g is outside %d .. %d", key, x, lo, hi);
        return -1;
    }
    *out = (int)x;
    return 0;
}

int ks_p_choice(const ks_params *p, const char *key, const char *choices, int def, int *out,
                ks_err *e)
{
    const char *v = ks_param(p, key);
    char sb[48];
    if (!v) {
        *out = def;
        return 0;
    }
    size_t n = strlen(v);
    int i = 0;
    for (const char *c = choices; *c; i++) {
        size_t k = strcspn(c, "|");
        if (k == n && !strncmp(c, v, n)) {
            *out = i;
            return 0;
        }
        c += k;
        if (*c) c++;
    }
    ks_errf(e, "parameter '%s': '%s' is not one of %s", key, ks_shown(v, sb, sizeof sb), choices);
    return -1;
}
