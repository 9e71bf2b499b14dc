/* kt: kray's minimal test harness (see kt.h). */
#include "kt.h"

#include "internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int kt_failures;
const char *kt_current = "";
static int kt_passed, kt_failed;

void kt_fail_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "FAIL %s (%s:%d): ", kt_current, file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    kt_failures++;
}

void kt_run(const char *name, void (*fn)(void))
{
    kt_current = name;
    kt_failures = 0;
    kr_clear_error();
    fn();
    if (kt_failures) {
        kt_failed++;
        printf("not ok  %s (%d failed checks)\n", name, kt_failures);
    } else {
        kt_passed++;
        printf("ok      %s\n", name);
    }
    fflush(stdout);
}

int kt_finish(void)
{
    printf("%d passed, %d failed\n", kt_passed, kt_failed);
    return kt_failed ? 1 : 0;
}

void kt_skip(const char *why)
{
    printf("skipped: %s\n", why);
    fflush(stdout);
    exit(77);
}

void kt_require_gpu(void)
{
    int n = 0;
    if (kr_cuda_device_count(&n) != KR_OK || n < 1) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", kr_last_error());
        kt_skip(msg);
    }
}

const char *kt_tmp(const char *name)
{
    static char buf[8][1024];
    static int slot;
    const char *dir = getenv("KRAY_TMP");
    if (!dir || !*dir) dir = "/tmp";
    mkdir(dir, 0755);
    char *p = buf[slot++ % 8];
    snprintf(p, sizeof buf[0], "%s/kt_%ld_%s", dir, (long)getpid(), name);
    return p;
}

const char *kt_src(void)
{
    const char *s = getenv("KRAY_SRC");
    return s && *s ? s : ".";
}

kr_array *kt_rand_complex(kr_dtype dt, int ndim, const int64_t *dims, uint64_t seed)
{
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, dt, ndim, dims, KR_HOST, NULL));
    if (!a) return NULL;
    const int64_t n = 2 * kr_array_numel(a);
    for (int64_t i = 0; i < n; i++) {
        const double v = kri_rand_sym(seed, (uint64_t)i);
        if (dt == KR_C64) ((float *)a->data)[i] = (float)v;
        else ((double *)a->data)[i] = v;
    }
    return a;
}

kr_array *kt_host_array(kr_dtype dt, int ndim, const int64_t *dims, uint64_t seed)
{
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, dt, ndim, dims, KR_HOST, NULL));
    if (a && seed) {
        kr_ctx *c = kt_cpu_ctx();
        KT_OK(kr_vec_random(c, a, seed));
        kr_ctx_destroy(c);
    }
    return a;
}

int kt_same_bits(const kr_array *a, const kr_array *b)
{
    return kr_array_bytes(a) == kr_array_bytes(b) && !memcmp(a->data, b->data, kr_array_bytes(a));
}

double kt_relmax(const kr_array *a, const kr_array *b)
{
    double m = 0, s = 0;
    for (int64_t i = 0; i < kr_array_numel(a); i++) {
        const double x = kr_array_get_f64(a, i), y = kr_array_get_f64(b, i);
        if (fabs(x - y) > m) m = fabs(x - y);
        if (fabs(y) > s) s = fabs(y);
    }
    return s > 0 ? m / s : m;
}

kr_ctx *kt_cpu_parts(int nparts)
{
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
    KT_OK(kr_ctx_set_threads(c, 2));
    KT_OK(kr_ctx_set_log_level(c, KR_LOG_ERROR));
    int devs[KR_MAX_DEVICES];
    for (int i = 0; i < nparts && i < KR_MAX_DEVICES; i++) devs[i] = i;
    KT_OK(kr_ctx_set_devices(c, nparts, devs));
    return c;
}

double kt_cget(const kr_array *a, int64_t i, int part)
{
    return a->dtype == KR_C64 ? (double)((const float *)a->data)[2 * i + part]
                              : ((const double *)a->data)[2 * i + part];
}

kr_ctx *kt_cpu_ctx(void)
{
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
    if (c) kr_ctx_set_quiet(c, 1);
    return c;
}

double kt_urand(uint64_t *z)
{
    *z ^= *z << 13, *z ^= *z >> 7, *z ^= *z << 17;
    return (double)(*z >> 11) / 9007199254740992.0;
}
