/* Key/value text headers shared by the MetaImage and NRRD readers (see kv_header.h). */
#include "kv_header.h"

#include "fmtcommon.h"
#include "iofile.h"

#include <string.h>

static char *kri_kv_trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

kr_status kri_kv_read(const char *path, size_t max, const char *what, kri_kv_parse_fn parse,
                      void *hdr)
{
    char *text;
    size_t n;
    KRI_TRY(kri_read_head(path, max, &text, &n, what));
    kr_status s = parse(path, text, n, hdr);
    kri_free(text);
    return s;
}

void kri_kv_begin(kri_kv_lines *r, char *text, size_t len)
{
    r->text = text;
    r->len = len;
    r->pos = 0;
    r->lineno = 0;
}

int kri_kv_next(kri_kv_lines *r, char **line)
{
    if (r->pos >= r->len) return 0;
    char *l = r->text + r->pos;
    char *nl = memchr(l, '\n', r->len - r->pos);
    size_t ll = nl ? (size_t)(nl - l) : r->len - r->pos;
    r->lineno++;
    if (memchr(l, 0, ll)) return -1;
    l[ll] = 0;
    r->pos += ll + (nl ? 1 : 0);
    *line = kri_kv_trim(l);
    return 1;
}

int kri_kv_split(char *line, const char *sep, char **key, char **value)
{
    char *at = strchr(line, sep[0]);
    size_t n = strlen(sep);
    if (!at || strncmp(at, sep, n) != 0) return 0;
    *at = 0;
    *key = kri_kv_trim(line);
    *value = kri_kv_trim(at + n);
    return 1;
}

kr_status kri_kv_datafile(const char *path, const char *field, const char *v, int multi,
                          const char *single, char *out, size_t len)
{
    if (!*v) return kri_fail(KR_ERR_FORMAT, "%s: %s is empty", path, field);
    if (multi)
        return kri_fail(KR_ERR_NOT_SUPPORTED,
                        "%s: %s '%s' (a list or pattern of files) is not supported; kray reads "
                        "%s or one data file",
                        path, field, v, single);
    if (strlen(v) >= len) return kri_fail(KR_ERR_FORMAT, "%s: %s name is too long", path, field);
    snprintf(out, len, "%s", v);
    return KR_OK;
}

kr_status kri_kv_int(const char *path, const char *name, const char *v, int64_t lo, int64_t hi,
                     int64_t *out)
{
    int64_t x = 0;
    if (kri_parse_i64s(v, NULL, &x, 1) != 1)
        return kri_fail(KR_ERR_FORMAT, "%s: %s is '%s', expected one whole number", path, name, v);
    if (x < lo || x > hi) {
        if (hi == INT64_MAX)
            return kri_fail(KR_ERR_FORMAT, "%s: %s is %lld, must be at least %lld", path, name,
                            (long long)x, (long long)lo);
        return kri_fail(KR_ERR_FORMAT, "%s: %s is %lld, must be %lld to %lld", path, name,
                        (long long)x, (long long)lo, (long long)hi);
    }
    *out = x;
    return KR_OK;
}
