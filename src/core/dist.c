/* kray across processes (kray/dist.h): the process-wide rank and size, and the collectives the
 * divided plans use (parts.h). No MPI header here: the plug-in (src/plugins/mpi.c, loaded as an
 * optional part, optional.h) holds every MPI call behind the table of dist_plugin.h. */
#include "ctx_state.h"
#include "dist_plugin.h"
#include "internal.h"
#include "kray/dist.h"
#include "optional.h"
#include "parts.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static const kri_dist_ops *kri_ops;
static int kri_rank = 0, kri_size = 1, kri_local = 0, kri_inited = 0;
static pthread_mutex_t kri_dist_lock = PTHREAD_MUTEX_INITIALIZER;

int kr_dist_launched(void)
{
    /* Open MPI, MPICH/Hydra and PMI-2, PMIx and Slurm set these in every process they start */
    const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS",
                          "SLURM_NTASKS"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) {
            long n = strtol(v, NULL, 10);
            if (n > 1 && (i < 4 || getenv("SLURM_PROCID"))) return (int)(n < (1 << 30) ? n : 1 << 30);
        }
    }
    return 1;
}

kr_status kr_dist_init(int *argc, char ***argv)
{
    pthread_mutex_lock(&kri_dist_lock);
    kr_status s = KR_OK;
    if (kri_inited) goto done;
    const int launched = kr_dist_launched();
    if (launched <= 1) {
        kri_inited = 1; /* one process: nothing to load */
        goto done;
    }
    const kri_fn *fns = NULL;
    const kri_dist_ops *ops = NULL;
    s = kri_part_load(KRI_PART_MPI, &fns);
    if (s == KR_OK) ops = kri_part_data(fns, KRI_SYM_kri_dist_plugin);
    if (s != KR_OK || !ops || ops->abi != KRI_DIST_ABI) {
        char why[600];
        snprintf(why, sizeof why, "%s", s != KR_OK ? kr_last_error()
                                                   : "its plug-in is of another kray version");
        s = kri_fail(KR_ERR_NOT_SUPPORTED,
                     "this process is one of %d started by an MPI launcher, but this kray has no "
                     "usable MPI plugin (%s)",
                     launched, why);
        goto done;
    }
    char err[512] = "";
    if (ops->init(argc, argv, &kri_rank, &kri_size, &kri_local, err, sizeof err)) {
        s = kri_fail(KR_ERR_NOT_SUPPORTED, "%s", err);
        goto done;
    }
    kri_ops = ops;
    kri_inited = 1;
done:
    pthread_mutex_unlock(&kri_dist_lock);
    return s;
}

kr_status kr_dist_finalize(void)
{
    if (kri_ops && kri_ops->finalize())
        return kri_fail(KR_ERR_INTERNAL, "MPI_Finalize failed");
    kri_ops = NULL;
    return KR_OK;
}

int kr_dist_rank(void) { return kri_rank; }
int kr_dist_size(void) { return kri_size; }
int kr_dist_local_rank(void) { return kri_local; }

kr_status kr_ctx_set_dist(kr_ctx *ctx, int on)
{
    KRI_ARG_NOT_NULL(ctx);
    if (on && !kri_inited)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_ctx_set_dist: call kr_dist_init first");
    ctx->dist = on != 0;
    return KR_OK;
}

int kr_ctx_dist(const kr_ctx *ctx) { return ctx && ctx->dist && kri_size > 1; }

/* ---- collectives ---------------------------------------------------------------------------- */
static kr_status kri_dist_err(int rc, const char *err)
{
    return rc ? kri_fail(KR_ERR_INTERNAL, "%s", err) : KR_OK;
}

kr_status kr_dist_agree(kr_status s)
{
    if (!kri_ops || kri_size < 2) return s;
    char err[512] = "";
    /* the lowest failing rank (kri_size when none) */
    int64_t who = s == KR_OK ? kri_size : kri_rank;
    KRI_TRY(kri_dist_err(kri_ops->allreduce(&who, 1, KRI_DIST_I64, KRI_DIST_MIN, err, sizeof err),
                         err));
    if (who >= kri_size) return KR_OK;
    struct {
        int32_t status;
        char why[1020];
    } msg;
    memset(&msg, 0, sizeof msg);
    if (who == kri_rank) {
        msg.status = (int32_t)s;
        snprintf(msg.why, sizeof msg.why, "%s", kr_last_error());
    }
    KRI_TRY(kri_dist_err(kri_ops->bcast(&msg, sizeof msg, (int)who, err, sizeof err), err));
    msg.why[sizeof msg.why - 1] = '\0';
    kr_status st = (kr_status)msg.status;
    if (st <= KR_OK || st >= KR_STATUS_COUNT) st = KR_ERR_INTERNAL;
    return kri_fail(st, "%s (rank %lld)", msg.why, (long long)who);
}

kr_status kr_dist_bcast(void *buf, size_t bytes, int root)
{
    if (!kri_ops || kri_size < 2) return KR_OK;
    char err[512] = "";
    return kri_dist_err(kri_ops->bcast(buf, bytes, root, err, sizeof err), err);
}

kr_status kr_dist_gather(const void *mine, void *all, const int64_t *offsets,
                         const int64_t *counts, int root)
{
    KRI_ARG_NOT_NULL(offsets);
    KRI_ARG_NOT_NULL(counts);
    if (kri_rank == root && counts[root] > 0)
        memmove((char *)all + offsets[root], mine, (size_t)counts[root]);
    if (!kri_ops || kri_size < 2) return KR_OK;
    char err[512] = "";
    if (kri_rank != root)
        return counts[kri_rank] > 0
                   ? kri_dist_err(kri_ops->send(mine, (size_t)counts[kri_rank], root, err,
                                                sizeof err),
                                  err)
                   : KR_OK;
    for (int r = 0; r < kri_size; r++)
        if (r != root && counts[r] > 0)
            KRI_TRY(kri_dist_err(kri_ops->recv((char *)all + offsets[r], (size_t)counts[r], r,
                                               err, sizeof err),
                                 err));
    return KR_OK;
}

int kri_dist_active(const kr_ctx *ctx) { return kr_ctx_dist(ctx); }

/* Device memory through the plugin directly when MPI is CUDA-aware, else through a host copy
 * of [o, o + n) bytes (to the host before, back after when `back`). */
static kr_status kri_dist_stage(void *dev, size_t o, size_t n, kr_loc loc, const kr_ctx *ctx,
                                unsigned char **host, int to_host)
{
    (void)loc;
    if (!*host) KRI_TRY(kri_alloc((void **)host, n ? n : 1, "an MPI staging buffer"));
    return to_host ? kri_memcpy(*host, KR_HOST, (char *)dev + o, KR_DEVICE, n, ctx)
                   : kri_memcpy((char *)dev + o, KR_DEVICE, *host, KR_HOST, n, ctx);
}

kr_status kri_dist_allgather(const kr_ctx *ctx, void *buf, kr_loc loc, size_t esz,
                             const int64_t *rank_starts)
{
    if (!kr_ctx_dist(ctx)) return KR_OK;
    char err[512] = "";
    const int direct = loc == KR_HOST || kri_ops->cuda_aware();
    unsigned char *h = NULL; /* device data: one host staging buffer of the largest range */
    kr_status s = KR_OK;
    if (!direct) {
        size_t most = 0;
        for (int r = 0; r < kri_size; r++) {
            const size_t n = (size_t)(rank_starts[r + 1] - rank_starts[r]) * esz;
            if (n > most) most = n;
        }
        if (most) s = kri_alloc((void **)&h, most, "an MPI staging buffer");
    }
    for (int r = 0; r < kri_size && s == KR_OK; r++) {
        const size_t o = (size_t)rank_starts[r] * esz,
                     n = (size_t)(rank_starts[r + 1] - rank_starts[r]) * esz;
        if (n == 0) continue;
        if (direct) {
            s = kri_dist_err(kri_ops->bcast((char *)buf + o, n, r, err, sizeof err), err);
            continue;
        }
        if (r == kri_rank) s = kri_dist_stage(buf, o, n, loc, ctx, &h, 1);
        if (s == KR_OK) s = kri_dist_err(kri_ops->bcast(h, n, r, err, sizeof err), err);
        if (s == KR_OK && r != kri_rank) s = kri_dist_stage(buf, o, n, loc, ctx, &h, 0);
    }
    kri_free(h);
    return s;
}

kr_status kri_dist_allreduce(const kr_ctx *ctx, void *buf, kr_loc loc, int type, int op,
                             size_t n)
{
    if (!kr_ctx_dist(ctx)) return KR_OK;
    char err[512] = "";
    const size_t bytes = n * (type == KRI_DIST_F32 ? 4 : 8);
    if (loc == KR_HOST || kri_ops->cuda_aware())
        return kri_dist_err(kri_ops->allreduce(buf, n, type, op, err, sizeof err), err);
    unsigned char *h = NULL;
    kr_status s = kri_dist_stage(buf, 0, bytes, loc, ctx, &h, 1);
    if (s == KR_OK) s = kri_dist_err(kri_ops->allreduce(h, n, type, op, err, sizeof err), err);
    if (s == KR_OK) s = kri_dist_stage(buf, 0, bytes, loc, ctx, &h, 0);
    kri_free(h);
    return s;
}

kr_status kri_dist_same_count(const kr_ctx *ctx, int64_t n)
{
    if (!kr_ctx_dist(ctx)) return KR_OK;
    char err[512] = "";
    int64_t v[2] = {n, -n};
    KRI_TRY(kri_dist_err(kri_ops->allreduce(v, 2, KRI_DIST_I64, KRI_DIST_MAX, err, sizeof err), err));
    if (v[0] != -v[1])
        return kri_fail(KR_ERR_INVALID_ARG, "the processes' device lists differ in length (%lld to "
                        "%lld entries); every process needs as many", (long long)-v[1],
                        (long long)v[0]);
    return KR_OK;
}
