/* Execution context: backend, device, stream, threads, logging, progress. */
#include "ctx_state.h"
#include "internal.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The one list of backend names, in kr_backend order. */
static const char *const kri_backend_names[] = {"auto", "cpu-serial", "cpu", "cuda"};
#define KRI_NBACKENDS ((int)(sizeof kri_backend_names / sizeof kri_backend_names[0]))

int kr_backend_count(void) { return KRI_NBACKENDS; }

const char *kr_backend_name(kr_backend b)
{
    if ((int)b < 0 || (int)b >= KRI_NBACKENDS) return "invalid";
    return kri_backend_names[b];
}

kr_status kr_backend_from_name(const char *s, kr_backend *b)
{
    KRI_ARG_NOT_NULL(s);
    KRI_ARG_NOT_NULL(b);
    for (int i = 0; i < KRI_NBACKENDS; i++)
        if (strcmp(s, kri_backend_names[i]) == 0) {
            *b = (kr_backend)i;
            return KR_OK;
        }
    if (!strcmp(s, "gpu")) {
        *b = KR_BACKEND_CUDA;
        return KR_OK;
    }
    if (!strcmp(s, "serial")) {
        *b = KR_BACKEND_CPU_SERIAL;
        return KR_OK;
    }
    char list[128] = ""; /* "auto, cpu-serial, cpu or cuda" */
    size_t u = 0;
    for (int i = 0; i < KRI_NBACKENDS && u < sizeof list; i++) {
        const char *sep = i == 0 ? "" : i == KRI_NBACKENDS - 1 ? " or " : ", ";
        int w = snprintf(list + u, sizeof list - u, "%s%s", sep, kri_backend_names[i]);
        if (w < 0) break;
        u += (size_t)w;
    }
    return kri_fail(KR_ERR_INVALID_ARG, "unknown backend '%s' (expected %s)", s, list);
}

kr_status kr_ctx_create(kr_ctx **out, kr_backend backend)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    if ((int)backend < 0 || backend > KR_BACKEND_CUDA)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_ctx_create: invalid backend %d", (int)backend);
    kr_ctx *c = kri_calloc(1, sizeof *c);
    if (!c) return kri_fail(KR_ERR_OOM_HOST, "out of host memory creating a context");
    c->log_level = KR_LOG_WARN;
    c->ndev = 1;
    int ndev = 0;
    if (backend == KR_BACKEND_AUTO) {
        if (kr_cuda_device_count(&ndev) == KR_OK) {
            c->backend = KR_BACKEND_CUDA;
            kr_log(c, KR_LOG_INFO, "backend auto: using CUDA (%d device%s)", ndev,
                   ndev == 1 ? "" : "s");
        } else {
            c->backend = KR_BACKEND_CPU;
            kr_log(c, KR_LOG_INFO, "backend auto: using CPU (%s)", kr_last_error());
            kr_clear_error();
        }
    } else if (backend == KR_BACKEND_CUDA) {
        kr_status s = kr_cuda_device_count(&ndev);
        if (s != KR_OK) {
            kri_free(c);
            return s;
        }
        c->backend = KR_BACKEND_CUDA;
    } else {
        c->backend = backend;
    }
    *out = c;
    return KR_OK;
}

void kr_ctx_destroy(kr_ctx *ctx) { kri_free(ctx); }

kr_backend kr_ctx_backend(const kr_ctx *ctx) { return ctx ? ctx->backend : KR_BACKEND_CPU; }

int kr_ctx_threads(const kr_ctx *ctx) { return kri_threads(ctx); }

int kr_ctx_device(const kr_ctx *ctx) { return kri_ctx_device(ctx); }

void *kr_ctx_stream(const kr_ctx *ctx) { return kri_ctx_stream(ctx); }

kr_log_level kr_ctx_log_level(const kr_ctx *ctx) { return kri_ctx_log_level(ctx); }

kr_status kr_ctx_set_threads(kr_ctx *ctx, int nthreads)
{
    KRI_ARG_NOT_NULL(ctx);
    if (nthreads < 0)
        return kri_fail(KR_ERR_INVALID_ARG, "thread count must be >= 0 (0 = default), got %d",
                        nthreads);
    ctx->threads = nthreads;
    return KR_OK;
}

kr_status kr_ctx_set_device(kr_ctx *ctx, int device)
{
    return kr_ctx_set_devices(ctx, 1, &device);
}

kr_status kr_ctx_set_devices(kr_ctx *ctx, int n, const int *devices)
{
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(devices);
    if (n < 1 || n > KR_MAX_DEVICES)
        return kri_fail(KR_ERR_INVALID_ARG, "a device list has 1 to %d entries, not %d",
                        KR_MAX_DEVICES, n);
    int have = 0;
    if (ctx->backend == KR_BACKEND_CUDA) KRI_TRY(kr_cuda_device_count(&have));
    for (int i = 0; i < n; i++) {
        if (devices[i] < 0 || devices[i] > 1023)
            return kri_fail(KR_ERR_INVALID_ARG, "device must be 0..1023, got %d", devices[i]);
        if (ctx->backend == KR_BACKEND_CUDA && devices[i] >= have)
            return kri_fail(KR_ERR_INVALID_ARG, "CUDA device %d does not exist (%d present)",
                            devices[i], have);
    }
    ctx->ndev = n;
    for (int i = 0; i < n; i++) ctx->devs[i] = devices[i];
    ctx->device = devices[0];
    return KR_OK;
}

kr_status kr_ctx_set_devices_spec(kr_ctx *ctx, const char *spec)
{
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(spec);
    int devs[KR_MAX_DEVICES], n = 0;
    if (!strcmp(spec, "all")) {
        if (ctx->backend == KR_BACKEND_CUDA) {
            KRI_TRY(kr_cuda_device_count(&n));
            if (n > KR_MAX_DEVICES) n = KR_MAX_DEVICES;
        } else {
            n = 1;
        }
        for (int i = 0; i < n; i++) devs[i] = i;
        return kr_ctx_set_devices(ctx, n, devs);
    }
    const char *s = spec;
    for (;;) {
        if (*s < '0' || *s > '9' || n == KR_MAX_DEVICES) break;
        long v = 0;
        while (*s >= '0' && *s <= '9' && v <= 1023) v = v * 10 + (*s++ - '0');
        if (v > 1023) break;
        devs[n++] = (int)v;
        if (*s == '\0') return kr_ctx_set_devices(ctx, n, devs);
        if (*s++ != ',') break;
    }
    return kri_fail(KR_ERR_INVALID_ARG,
                    "device list '%.40s' is not 'all' or up to %d comma-separated numbers "
                    "0..1023 (e.g. 0,1,2)",
                    spec, KR_MAX_DEVICES);
}

int kr_ctx_ndevices(const kr_ctx *ctx) { return ctx ? ctx->ndev : 1; }

int kr_ctx_device_at(const kr_ctx *ctx, int i)
{
    if (!ctx) return 0;
    return i >= 0 && i < ctx->ndev ? ctx->devs[i] : ctx->devs[0];
}

kr_status kr_ctx_set_stream(kr_ctx *ctx, void *stream)
{
    KRI_ARG_NOT_NULL(ctx);
    ctx->stream = stream;
    return KR_OK;
}

kr_status kr_ctx_set_log_level(kr_ctx *ctx, kr_log_level level)
{
    KRI_ARG_NOT_NULL(ctx);
    if ((int)level < 0 || level > KR_LOG_DEBUG)
        return kri_fail(KR_ERR_INVALID_ARG, "invalid log level %d", (int)level);
    ctx->log_level = level;
    return KR_OK;
}

kr_status kr_ctx_set_progress(kr_ctx *ctx, kr_progress_fn fn, void *user)
{
    KRI_ARG_NOT_NULL(ctx);
    ctx->progress = fn;
    ctx->progress_user = user;
    return KR_OK;
}

kr_status kr_ctx_set_quiet(kr_ctx *ctx, int quiet)
{
    KRI_ARG_NOT_NULL(ctx);
    ctx->quiet = quiet != 0;
    return KR_OK;
}

int kri_threads(const kr_ctx *ctx)
{
    if (ctx && ctx->backend == KR_BACKEND_CPU_SERIAL) return 1;
    if (ctx && ctx->threads > 0) return ctx->threads;
    return omp_get_max_threads();
}

kr_status kri_check_loc(const kr_ctx *ctx, kr_loc loc, const char *what)
{
    kr_backend b = kr_ctx_backend(ctx);
    if (loc == KR_DEVICE && b != KR_BACKEND_CUDA)
        return kri_fail(KR_ERR_LOCATION, "%s is in device memory but the context backend is %s",
                        what, kr_backend_name(b));
    if (loc == KR_HOST && b == KR_BACKEND_CUDA)
        return kri_fail(KR_ERR_LOCATION,
                        "%s is in host memory but the context backend is cuda (copy it to the "
                        "device first)",
                        what);
    return KR_OK;
}

/* ---- internal accessors for progress.c -------------------------------------------------- */
kr_progress_fn kri_ctx_progress(const kr_ctx *ctx, void **user, int *quiet);
kr_progress_fn kri_ctx_progress(const kr_ctx *ctx, void **user, int *quiet)
{
    *user = ctx ? ctx->progress_user : NULL;
    *quiet = ctx ? (ctx->quiet || ctx->log_level == KR_LOG_QUIET) : 0;
    return ctx ? ctx->progress : NULL;
}
