/* Divided work: part contexts and the runner (parts.h). */
#include "parts.h"
#include "ctx_state.h"
#include "kray/dist.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kri_parts_destroy(kri_parts *p)
{
    if (!p) return;
    for (int i = 0; i < p->n; i++) {
        if (p->stream[i]) kri_cuda_stream_destroy(p->ctx[i], p->stream[i]);
        kri_free(p->ctx[i]);
    }
    kri_free(p);
}

kr_status kri_parts_create(kri_parts **out, const kr_ctx *ctx)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(ctx);
    kri_parts *p = kri_calloc(1, sizeof *p);
    if (!p) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for the parts of a device list");
    p->parent = ctx;
    p->n = ctx->ndev;
    p->rank = 0, p->nranks = 1;
    if (kri_dist_active(ctx)) {
        kr_status s = kri_dist_same_count(ctx, p->n);
        if (s != KR_OK) {
            kri_free(p);
            return s;
        }
        p->rank = kr_dist_rank();
        p->nranks = kr_dist_size();
    }
    p->nglobal = p->n * p->nranks;
    p->g0 = p->n * p->rank;
    const int threads = kri_threads(ctx);
    for (int i = 0; i < p->n; i++) {
        kr_ctx *c = kri_calloc(1, sizeof *c);
        if (!c) {
            kri_parts_destroy(p);
            return kri_fail(KR_ERR_OOM_HOST, "out of host memory for the parts of a device list");
        }
        p->ctx[i] = c;
        c->backend = ctx->backend;
        /* the parent says what the plan does; parts speak up on errors (and with DEBUG) */
        c->log_level = ctx->log_level == KR_LOG_DEBUG ? KR_LOG_DEBUG
                       : ctx->log_level < KR_LOG_ERROR ? ctx->log_level
                                                       : KR_LOG_ERROR;
        c->quiet = 1;
        c->ndev = 1;
        c->device = c->devs[0] = ctx->devs[i];
        /* the threads shared out: T / n each, the first T % n one more, at least one */
        int share = threads / p->n + (i < threads % p->n);
        c->threads = ctx->backend == KR_BACKEND_CPU_SERIAL ? 1 : (share > 0 ? share : 1);
        if (ctx->backend == KR_BACKEND_CUDA) {
            if (i == 0) {
                c->stream = ctx->stream;
            } else {
                kr_status s = kri_cuda_stream_create(c, &p->stream[i]);
                if (s != KR_OK) {
                    kri_parts_destroy(p);
                    return s;
                }
                c->stream = p->stream[i];
            }
        }
    }
    *out = p;
    return KR_OK;
}

/* One part's run: the function, then its status and sentence. */
typedef struct kri_part_job {
    const kri_parts *p;
    int part;
    kri_part_fn fn;
    void *user;
    kr_status s;
    char why[1024];
} kri_part_job;

static void *kri_part_main(void *arg)
{
    kri_part_job *j = arg;
    const kr_ctx *c = j->p->ctx[j->part];
    j->s = kri_cuda_set_device(c);
    if (j->s == KR_OK) j->s = j->fn(j->user, j->part, c);
    if (j->s != KR_OK) snprintf(j->why, sizeof j->why, "%s", kr_last_error());
    return NULL;
}

kr_status kri_parts_run(const kri_parts *p, kri_part_fn fn, void *user)
{
    KRI_ARG_NOT_NULL(p);
    KRI_ARG_NOT_NULL(fn);
    kri_part_job *jobs;
    KRI_TRY(kri_alloc((void **)&jobs, (size_t)p->n * sizeof *jobs, "the jobs of a device list"));
    pthread_t tid[KR_MAX_DEVICES];
    int started[KR_MAX_DEVICES] = {0};
    for (int i = 0; i < p->n; i++) {
        jobs[i] = (kri_part_job){p, i, fn, user, KR_OK, ""};
        if (i > 0) {
            if (pthread_create(&tid[i], NULL, kri_part_main, &jobs[i]) == 0)
                started[i] = 1;
            else
                kri_part_main(&jobs[i]); /* no thread to be had: run it here, in turn */
        }
    }
    kri_part_main(&jobs[0]);
    for (int i = 1; i < p->n; i++)
        if (started[i]) pthread_join(tid[i], NULL);
    /* the caller's thread works on the parent's device again */
    kr_status s = kri_cuda_set_device(p->parent);
    for (int i = 0; i < p->n; i++) {
        if (jobs[i].s == KR_OK) continue;
        if (p->parent->backend == KR_BACKEND_CUDA && p->n > 1)
            s = kri_fail(jobs[i].s, "%s (device %d)", jobs[i].why, p->ctx[i]->device);
        else
            s = kri_fail(jobs[i].s, "%s", jobs[i].why);
        break;
    }
    kri_free(jobs);
    return kri_dist_active(p->parent) ? kr_dist_agree(s) : s;
}

int64_t *kri_parts_split(const kri_parts *p, int64_t total, int64_t align)
{
    int64_t *s = kri_malloc((size_t)(p->nglobal + 1) * sizeof *s);
    if (!s) {
        kri_fail(KR_ERR_OOM_HOST, "out of host memory for the split of a divided plan");
        return NULL;
    }
    kri_split(total, p->nglobal, align, s);
    return s;
}

kr_status kri_parts_allgather(const kri_parts *p, void *buf, kr_loc loc, size_t esz,
                              const int64_t *starts)
{
    if (!kri_dist_active(p->parent)) return KR_OK;
    int64_t *rs = kri_malloc((size_t)(p->nranks + 1) * sizeof *rs);
    if (!rs) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for an MPI exchange");
    for (int r = 0; r <= p->nranks; r++) rs[r] = starts[r * p->n];
    kr_status s = kri_dist_allgather(p->parent, buf, loc, esz, rs);
    kri_free(rs);
    return s;
}

kr_status kri_parts_allreduce(const kri_parts *p, void *buf, kr_loc loc, int type, int op,
                              size_t n)
{
    return kri_dist_active(p->parent) ? kri_dist_allreduce(p->parent, buf, loc, type, op, n)
                                      : KR_OK;
}

int kri_part_remote(const kri_parts *p, int i, kr_loc loc)
{
    if (loc != KR_DEVICE) return 0;
    if (p->ctx[i]->device != p->parent->device) return 1;
    const char *e = getenv("KRAY_PARTS_COPY");
    return i > 0 && e && !strcmp(e, "1");
}

void kri_split(int64_t total, int n, int64_t align, int64_t *starts)
{
    if (align < 1) align = 1;
    if (n < 1) n = 1;
    const int64_t units = (total + align - 1) / align; /* the last unit may be short */
    starts[0] = 0;
    for (int i = 1; i < n; i++) {
        int64_t b = units / n * i + (i < units % n ? i : units % n);
        b *= align;
        starts[i] = b < total ? b : total;
    }
    starts[n] = total;
}
