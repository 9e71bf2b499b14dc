/* The NUFFT divided over a context's device list (docs/scaling.md): a backend table
 * (kri_nufft_multi) whose state is one plan per part, each transforming a contiguous range of
 * the batch members (coils, frames, FVE columns) with the shared trajectory. Member b is
 * computed exactly as by an undivided plan (kray/nufft.h), so the CPU results are the same bit
 * for bit. Device arrays live on the first device; a part on another device copies its members
 * there and back (its points it takes from a host copy of the trajectory). */
#include "core/dist_plugin.h"
#include "core/parts.h"
#include "kray/dist.h"
#include "nufft_internal.h"

#include <string.h>

struct kri_nufftm {
    kri_parts *parts;
    kr_nufft_plan *plan[KR_MAX_DEVICES]; /* NULL for a part without members */
    int64_t *bs;                         /* global split (parts.h): members */
    void *img[KR_MAX_DEVICES], *ksp[KR_MAX_DEVICES]; /* remote parts' device buffers */
    int64_t ksp_elems[KR_MAX_DEVICES];
};
typedef struct kri_nufftm kri_nufftm;

static void kri_nufftm_destroy(kr_nufft_plan *p)
{
    kri_nufftm *m = p->multi;
    if (!m) return;
    for (int i = 0; m->parts && i < m->parts->n; i++) {
        if (m->plan[i]) p->part_destroy(m->plan[i]);
        if (m->img[i] || m->ksp[i]) {
            kri_cuda_set_device(m->parts->ctx[i]);
            kri_device_free(m->img[i]);
            kri_device_free(m->ksp[i]);
        }
    }
    if (m->parts) kri_cuda_set_device(m->parts->parent);
    kri_parts_destroy(m->parts);
    kri_free(m->bs);
    kri_free(m);
    p->multi = NULL;
}

static kr_status kri_nufftm_create(kr_nufft_plan *p)
{
    kri_nufftm *m = kri_calloc(1, sizeof *m);
    if (!m) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a divided NUFFT plan");
    p->multi = m;
    kr_status s = kri_parts_create(&m->parts, p->ctx);
    if (s == KR_OK && !(m->bs = kri_parts_split(m->parts, p->batch, 1))) s = KR_ERR_OOM_HOST;
    kr_nufft_opts o = p->opts;
    for (int i = 0; s == KR_OK && i < m->parts->n; i++) {
        const int g = m->parts->g0 + i;
        o.batch = m->bs[g + 1] - m->bs[g];
        if (o.batch > 0)
            s = p->part_create(&m->plan[i], m->parts->ctx[i], p->ndim, p->N, &o);
    }
    kri_cuda_set_device(p->ctx);
    if (kri_dist_active(p->ctx)) s = kr_dist_agree(s); /* every process made its parts */
    if (s == KR_OK)
        kr_log(p->ctx, KR_LOG_INFO, "nufft: %lld batch members divided over %d %s",
               (long long)p->batch, m->parts->n,
               p->backend == KR_BACKEND_CUDA ? "devices" : "parts");
    return s;
}

typedef struct kri_nufftm_call {
    kr_nufft_plan *p;
    int what; /* 0 points, 1 forward, 2 adjoint */
    const kri_nufft_traj *traj;
    const void *in;
    void *out;
    int64_t bad[KR_MAX_DEVICES];
} kri_nufftm_call;

static kr_status kri_nufftm_part(void *user, int i, const kr_ctx *c)
{
    kri_nufftm_call *k = user;
    kr_nufft_plan *p = k->p;
    kri_nufftm *m = p->multi;
    kr_nufft_plan *q = m->plan[i];
    k->bad[i] = -1;
    if (!q) return KR_OK;
    if (k->what == 0) {
        kr_status s = q->be->set_points(q, k->traj, &k->bad[i]);
        if (s == KR_OK && k->bad[i] < 0) q->M = k->traj->M;
        return s;
    }
    const int adjoint = k->what == 2, remote = kri_part_remote(m->parts, i, kri_ctx_loc(p->ctx));
    const size_t esz = kr_dtype_size(p->dtype);
    const int g = m->parts->g0 + i;
    const int64_t b0 = m->bs[g], nb = m->bs[g + 1] - b0;
    const int64_t ni = p->nimg * nb, nk = p->M * nb; /* elements of this part */
    const char *img = (const char *)(adjoint ? k->out : k->in) + (size_t)(b0 * p->nimg) * esz;
    const char *ksp = (const char *)(adjoint ? k->in : k->out) + (size_t)(b0 * p->M) * esz;
    const void *in = adjoint ? (const void *)ksp : (const void *)img;
    void *out = adjoint ? (void *)img : (void *)ksp;
    if (!remote) {
        KRI_TRY(adjoint ? q->be->adjoint(q, in, out, &k->bad[i])
                        : q->be->forward(q, in, out, &k->bad[i]));
        return kri_device_synchronize(c);
    }
    const int mine = kr_ctx_device(c), first = kr_ctx_device(p->ctx);
    if (!m->img[i]) KRI_TRY(kri_device_alloc(&m->img[i], (size_t)ni * esz, mine, "a part's images"));
    if (m->ksp_elems[i] < nk) {
        kri_device_free(m->ksp[i]);
        m->ksp[i] = NULL;
        m->ksp_elems[i] = 0;
        KRI_TRY(kri_device_alloc(&m->ksp[i], (size_t)nk * esz, mine, "a part's k-space"));
        m->ksp_elems[i] = nk;
    }
    void *din = adjoint ? m->ksp[i] : m->img[i], *dout = adjoint ? m->img[i] : m->ksp[i];
    KRI_TRY(kri_memcpy_peer(din, mine, in, first, (size_t)(adjoint ? nk : ni) * esz, c));
    KRI_TRY(adjoint ? q->be->adjoint(q, din, dout, &k->bad[i])
                    : q->be->forward(q, din, dout, &k->bad[i]));
    KRI_TRY(kri_device_synchronize(c));
    return kri_memcpy_peer(out, first, dout, mine, (size_t)(adjoint ? ni : nk) * esz, c);
}

/* The first bad index over the parts (of every process), as an index of the whole batch
 * (-1: none). */
static int64_t kri_nufftm_bad(const kri_nufftm_call *k, int64_t per_member)
{
    const kri_nufftm *m = k->p->multi;
    int64_t b = INT64_MAX;
    for (int i = 0; i < m->parts->n && b == INT64_MAX; i++)
        if (k->bad[i] >= 0)
            b = k->what == 0 ? k->bad[i] : k->bad[i] + m->bs[m->parts->g0 + i] * per_member;
    if (kri_parts_allreduce(m->parts, &b, KR_HOST, KRI_DIST_I64, KRI_DIST_MIN, 1) != KR_OK)
        return -1;
    return b == INT64_MAX ? -1 : b;
}

/* The other processes' members of out (elements per member: per). */
static kr_status kri_nufftm_exchange(kr_nufft_plan *p, void *out, int64_t per)
{
    kri_nufftm *m = p->multi;
    return kri_parts_allgather(m->parts, out, kri_ctx_loc(p->ctx),
                               (size_t)per * kr_dtype_size(p->dtype), m->bs); /* members */
}

static kr_status kri_nufftm_set_points(kr_nufft_plan *p, const kri_nufft_traj *t, int64_t *bad)
{
    kri_nufftm *m = p->multi;
    kri_nufft_traj th = *t;
    void *host = NULL;
    int any_remote = 0;
    for (int i = 1; i < m->parts->n; i++) any_remote |= kri_part_remote(m->parts, i, t->loc);
    if (t->loc == KR_DEVICE && any_remote) { /* every part reads a host copy */
        const size_t bytes = (size_t)(t->nc * t->M) * kr_dtype_size(t->dtype);
        KRI_TRY(kri_alloc(&host, bytes, "a host copy of the trajectory"));
        kr_status s = kri_memcpy(host, KR_HOST, t->data, KR_DEVICE, bytes, p->ctx);
        if (s != KR_OK) {
            kri_free(host);
            return s;
        }
        th.data = host;
        th.loc = KR_HOST;
    }
    for (int i = 0; i < m->parts->n; i++)
        if (m->plan[i]) m->plan[i]->M = 0;
    kri_nufftm_call k = {p, 0, &th, NULL, NULL, {0}};
    kr_status s = kri_parts_run(m->parts, kri_nufftm_part, &k);
    kri_free(host);
    *bad = s == KR_OK ? kri_nufftm_bad(&k, 0) : -1;
    return s;
}

static kr_status kri_nufftm_forward(kr_nufft_plan *p, const void *image, void *kspace,
                                    int64_t *bad)
{
    kri_nufftm_call k = {p, 1, NULL, image, kspace, {0}};
    KRI_TRY(kri_parts_run(((kri_nufftm *)p->multi)->parts, kri_nufftm_part, &k));
    *bad = kri_nufftm_bad(&k, p->nimg);
    return *bad < 0 ? kri_nufftm_exchange(p, kspace, p->M) : KR_OK;
}

static kr_status kri_nufftm_adjoint(kr_nufft_plan *p, const void *kspace, void *image,
                                    int64_t *bad)
{
    kri_nufftm_call k = {p, 2, NULL, kspace, image, {0}};
    KRI_TRY(kri_parts_run(((kri_nufftm *)p->multi)->parts, kri_nufftm_part, &k));
    *bad = kri_nufftm_bad(&k, p->M);
    return *bad < 0 ? kri_nufftm_exchange(p, image, p->nimg) : KR_OK;
}

const kri_nufft_backend kri_nufft_multi = {{"divided", true},
                                           kri_nufftm_create,
                                           kri_nufftm_destroy,
                                           kri_nufftm_set_points,
                                           kri_nufftm_forward,
                                           kri_nufftm_adjoint};
