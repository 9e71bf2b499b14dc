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

kr_status kri_vfail(kr_status s, const char *fmt, va_list ap)
{
    vsnprintf(kri_detail, sizeof kri_detail, fmt, ap);
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
    char prefix[KRI_DETAIL_LEN], old[KRI_DETAIL_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
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
