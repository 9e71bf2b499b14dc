/* The execution context's fields (not installed). ctx.c makes and changes contexts; the core
 * pieces beneath it (array.c, gpu.c, log.c) read the fields here, so the dependencies run one
 * way: ctx.c uses gpu.c (device count) and log.c (kr_log), and none of them calls back into
 * ctx.c. Modules outside src/core/ use the kr_ctx_* accessors of kray/core.h. */
#ifndef KRAY_CTX_STATE_H
#define KRAY_CTX_STATE_H

#include "kray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

struct kr_ctx {
    kr_backend backend; /* resolved */
    int device;         /* == devs[0] */
    int ndev;           /* entries of devs (>= 1) */
    int dist;           /* plans divide over the MPI processes too (kray/dist.h) */
    int devs[KR_MAX_DEVICES];
    void *stream;
    int threads; /* 0 = OpenMP default */
    kr_log_level log_level;
    kr_progress_fn progress;
    void *progress_user;
    int quiet;
};

/* The device, stream and log level of a context; ctx NULL gives the defaults (0, the default
 * stream, KR_LOG_WARN). */
static inline int kri_ctx_device(const kr_ctx *ctx) { return ctx ? ctx->device : 0; }
static inline void *kri_ctx_stream(const kr_ctx *ctx) { return ctx ? ctx->stream : NULL; }
static inline kr_log_level kri_ctx_log_level(const kr_ctx *ctx)
{
    return ctx ? ctx->log_level : KR_LOG_WARN;
}

#ifdef __cplusplus
}
#endif
#endif
