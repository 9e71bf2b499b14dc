/* Host memory: aligned, checked allocation. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *kri_malloc(size_t bytes)
{
    size_t n = bytes ? (bytes + 63) / 64 * 64 : 64;
    if (n < bytes) return NULL;
    return aligned_alloc(64, n);
}

void *kri_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) return NULL;
    void *p = kri_malloc(n * size);
    if (p) memset(p, 0, n * size);
    return p;
}

void kri_free(void *p) { free(p); }

kr_status kri_alloc(void **p, size_t bytes, const char *what)
{
    *p = kri_malloc(bytes);
    if (!*p)
        return kri_fail(KR_ERR_OOM_HOST, "out of host memory allocating %zu bytes for %s", bytes,
                        what ? what : "an array");
    return KR_OK;
}

bool kri_mul_ok(int64_t a, int64_t b, int64_t *out)
{
    if (a < 0 || b < 0) return false;
    if (a != 0 && b > INT64_MAX / a) return false;
    *out = a * b;
    return true;
}

uint64_t kri_host_memory_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}
