/* Status names and the thread-local last-error sentence. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

#define KRI_DETAIL_LEN 1024

static _Thread_local char kri_detail[KRI_DETAIL_LEN];

static const char *const kri_status_names[KR_STATUS_COUNT] = {
    [KR_OK] = "KR_OK",
    [KR_ERR_INVALID_ARG] = "KR_ERR_INVALID_ARG",
    [KR_ERR_DIM] = "KR_ERR_DIM",
    [KR_ERR_DTYPE] = "KR_ERR_DTYPE",
    [KR_ERR_LOCATION] = "KR_ERR_LOCATION",
    [KR_ERR_GEOMETRY] = "KR_ERR_GEOMETRY",
    [KR_ERR_IO] = "KR_ERR_IO",
    [KR_ERR_FORMAT] = "KR_ERR_FORMAT",
    [KR_ERR_OOM_HOST] = "KR_ERR_OOM_HOST",
    [KR_ERR_OOM_DEVICE] = "KR_ERR_OOM_DEVICE",
    [KR_ERR_CUDA] = "KR_ERR_CUDA",
    [KR_ERR_FFT] = "KR_ERR_FFT",
    [KR_ERR_NO_DEVICE] = "KR_ERR_NO_DEVICE",
    [KR_ERR_NOT_SUPPORTED] = "KR_ERR_NOT_SUPPORTED",
    [KR_ERR_NOT_CONVERGED] = "KR_ERR_NOT_CONVERGED",
    [KR_ERR_INTERNAL] = "KR_ERR_INTERNAL",
};

const char *kr_status_string(kr_status s)
{
    if ((int)s < 0 || s >= KR_STATUS_COUNT || !kri_status_names[s]) return "KR_ERR_UNKNOWN";
    return kri_status_names[s];
}

const char *kr_last_error(void) { return kri_detail; }

void kr_clear_error(void) { kri_detail[0] = '\0'; }

size_t kri_escape(char *dst, size_t len, const char *src)
{
    static const char hex[] = "0123456789abcdef";
    size_t u = 0;
    if (!dst || len == 0) return 0;
    for (const unsigned char *p = (const unsigned char *)(src ? src : ""); *p; p++) {
        if (*p < 0x20 || *p == 0x7f) {
            if (u + 4 >= len) break;
            dst[u++] = '\\';
            dst[u++] = 'x';
            dst[u++] = hex[*p >> 4];
            dst[u++] = hex[*p & 15];
        } else {
            if (u + 1 >= len) break;
            dst[u++] = (char)*p;
        }
    }
    dst[u] = '\0';
    return u;
}

kr_status kri_vfail(kr_status s, const char *fmt, va_list ap)
{
    char raw[KRI_DETAIL_LEN];
    vsnprintf(raw, sizeof raw, fmt, ap);
    kri_escape(kri_detail, sizeof kri_detail, raw);
    return s;
}

kr_status kri_fail(kr_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kri_vfail(s, fmt, ap);
    va_end(ap);
    return s;
}

kr_status kri_fail_prefix(kr_status s, const char *fmt, ...)
{
    char raw[KRI_DETAIL_LEN], prefix[KRI_DETAIL_LEN], old[KRI_DETAIL_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    kri_escape(prefix, sizeof prefix, raw);
    memcpy(old, kri_detail, sizeof old);
    size_t n = strlen(prefix);
    memcpy(kri_detail, prefix, n + 1);
    if (old[0] && n + 2 < sizeof kri_detail) {
        memcpy(kri_detail + n, ": ", 3);
        size_t room = sizeof kri_detail - n - 3;
        size_t m = strlen(old);
        if (m > room) m = room;
        memcpy(kri_detail + n + 2, old, m);
        kri_detail[n + 2 + m] = '\0';
    }
    return s;
}
