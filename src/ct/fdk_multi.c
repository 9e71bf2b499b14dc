/* FDK divided over a context's device list (fdk_internal.h, docs/scaling.md): the volume in z
 * slabs, one per part, each part a plan of its slab alone (kri_fdk_plan_make_range), so it
 * weights, filters and receives only the detector rows its slab reads. Every voxel sums the
 * same per-view values in the same order as in an undivided plan: on the CPU the result is the
 * same bit for bit, on CUDA to float rounding (as out of core, kray/fdk.h). */
#include "core/parts.h"
#include "fdk_internal.h"
#include "kray/dist.h"

#include <string.h>

struct kri_fdkm {
    kri_parts *parts;
    kr_fdk_plan *plan[KR_MAX_DEVICES];   /* NULL for a part with no slices */
    float *proj[KR_MAX_DEVICES];         /* device copies of parts off the first device */
    float *vol[KR_MAX_DEVICES];          /* their slabs */
    int64_t *zs; /* the global split of the slices (parts.h) */
    kri_fdk_single single;
};

void kri_fdkm_destroy(kri_fdkm *m)
{
    if (!m) return;
    for (int i = 0; m->parts && i < m->parts->n; i++) {
        if (m->plan[i]) m->single.destroy(m->plan[i]);
        if (m->proj[i] || m->vol[i]) {
            kri_cuda_set_device(m->parts->ctx[i]);
            kri_device_free(m->proj[i]);
            kri_device_free(m->vol[i]);
        }
    }
    if (m->parts) kri_cuda_set_device(m->parts->parent);
    kri_parts_destroy(m->parts);
    kri_free(m->zs);
    kri_free(m);
}

kr_status kri_fdkm_create(kri_fdkm **out, kr_fdk_plan *p, const kri_fdk_single *single)
{
    *out = NULL;
    kri_fdkm *m = kri_calloc(1, sizeof *m);
    if (!m) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a divided FDK plan");
    m->single = *single;
    kr_status s = kri_parts_create(&m->parts, p->ctx);
    if (s == KR_OK) {
        /* slabs of whole 16-slice groups (the CUDA kernels' thread slabs) */
        m->zs = kri_parts_split(m->parts, p->grid.n[2], 16);
        if (!m->zs) s = KR_ERR_OOM_HOST;
        const int64_t *zs = m->zs + m->parts->g0; /* this process's parts */
        for (int i = 0; i < m->parts->n && s == KR_OK; i++) {
            if (zs[i + 1] <= zs[i]) continue;
            /* parts on one device share its budget (gpu_mem is per device) */
            int share = 0;
            for (int j = 0; j < m->parts->n; j++)
                share += zs[j + 1] > zs[j] &&
                         kr_ctx_device(m->parts->ctx[j]) == kr_ctx_device(m->parts->ctx[i]);
            kr_fdk_opts o = p->o;
            o.gpu_mem /= share;
            s = m->single.make_range(&m->plan[i], m->parts->ctx[i], p->nu, p->nv, p->views,
                                        p->nviews, &p->grid, &o, &p->tune, p->bp_only,
                                        zs[i], zs[i + 1]);
            if (s == KR_OK) m->plan[i]->share = share;
        }
        kri_cuda_set_device(p->ctx);
    }
    if (kri_dist_active(p->ctx)) s = kr_dist_agree(s); /* every process made its parts */
    if (s != KR_OK) {
        kri_fdkm_destroy(m);
        return s;
    }
    kr_log(p->ctx, KR_LOG_INFO, "fdk: divided over %d %s in z slabs", m->parts->n,
           p->loc == KR_DEVICE ? "devices" : "parts");
    *out = m;
    return KR_OK;
}

kr_status kri_fdkm_census(kri_fdkm *m, const kr_array *proj, int64_t *nnan, int64_t *ninf,
                          int64_t *first)
{
    if (proj->loc == KR_HOST) { /* every process counts all of it: the same answer everywhere */
        kri_cpu_fdk_count_nonfinite(proj->data, kr_array_numel(proj),
                                    kri_threads(m->parts->parent), nnan, ninf, first);
        return KR_OK;
    }
    for (int i = 0; i < m->parts->n; i++) {
        kr_fdk_plan *q = m->plan[i];
        if (!q) continue;
        if (proj->loc == KR_DEVICE && kr_ctx_device(q->ctx) != proj->device) continue;
        KRI_TRY(kri_cuda_set_device(q->ctx));
        kr_status s = q->be->census(q->state, q, proj, nnan, ninf, first);
        kri_cuda_set_device(m->parts->parent);
        return s;
    }
    /* no part of this process on the device (more parts than slabs): count a host copy */
    kr_array *h = NULL;
    KRI_TRY(kr_array_clone(&h, proj, KR_HOST, m->parts->parent));
    kri_cpu_fdk_count_nonfinite(h->data, kr_array_numel(h), kri_threads(m->parts->parent), nnan,
                                ninf, first);
    kr_array_destroy(h);
    return KR_OK;
}

typedef struct kri_fdkm_call {
    kri_fdkm *m;
    const kr_array *proj;
    kr_array *vol;
    int mode;
} kri_fdkm_call;

static kr_status kri_fdkm_part(void *user, int i, const kr_ctx *c)
{
    kri_fdkm_call *k = user;
    kri_fdkm *m = k->m;
    kr_fdk_plan *q = m->plan[i];
    if (!q) return KR_OK;
    const int64_t plane = q->grid.n[0] * q->grid.n[1], nz = q->z1 - q->z0;
    const int64_t vd[3] = {q->grid.n[0], q->grid.n[1], nz};
    const int mine = kr_ctx_device(c);
    float *slab = (float *)k->vol->data + q->z0 * plane;
    const size_t vbytes = (size_t)(plane * nz) * sizeof(float);
    kr_array pa = *k->proj, va;
    /* off the first device: device projections copied to this one, the slab computed here and
     * copied back */
    if (kri_part_remote(m->parts, i, k->proj->loc)) {
        const size_t pbytes = kr_array_bytes(k->proj);
        if (!m->proj[i])
            KRI_TRY(kri_device_alloc((void **)&m->proj[i], pbytes, mine, "a part's projections"));
        KRI_TRY(kri_memcpy_peer(m->proj[i], mine, k->proj->data, k->proj->device, pbytes, c));
        pa.data = m->proj[i];
        pa.device = mine;
    }
    const int vremote = kri_part_remote(m->parts, i, k->vol->loc);
    if (vremote && !m->vol[i])
        KRI_TRY(kri_device_alloc((void **)&m->vol[i], vbytes, mine, "a part's slab"));
    KRI_TRY(kr_array_wrap(&va, KR_F32, 3, vd, vremote ? m->vol[i] : slab, k->vol->loc));
    va.device = vremote ? mine : k->vol->device;
    KRI_TRY(q->be->run(q->state, q, &pa, &va, k->mode));
    return vremote ? kri_memcpy_peer(slab, k->vol->device, m->vol[i], mine, vbytes, c) : KR_OK;
}

kr_status kri_fdkm_run(kri_fdkm *m, kr_fdk_plan *p, const kr_array *proj, kr_array *vol,
                       int mode)
{
    kri_fdkm_call k = {m, proj, vol, mode};
    kr_progress *pg = kri_fdk_progress(p, 1);
    kr_status s = kri_parts_run(m->parts, kri_fdkm_part, &k);
    if (s == KR_OK && m->parts->nranks > 1) { /* the other processes' slabs */
        const size_t plane = (size_t)(p->grid.n[0] * p->grid.n[1]) * sizeof(float);
        s = kri_parts_allgather(m->parts, vol->data, vol->loc, plane, m->zs); /* slices */
    }
    kr_progress_add(pg, 1);
    kr_progress_end(pg);
    /* the plan's info: the first part's kernel, the parts' slabs and bytes added, the slowest
     * part's times */
    kr_fdk_info *in = &p->info;
    in->slabs = 0, in->device_bytes = 0, in->t_filter_s = 0, in->t_backproject_s = 0;
    for (int i = 0; i < m->parts->n; i++) {
        const kr_fdk_plan *q = m->plan[i];
        if (!q) continue;
        if (in->slabs == 0) {
            in->kernel = q->info.kernel;
            in->slab_z = q->info.slab_z;
            in->batch_views = q->info.batch_views;
        }
        in->slabs += q->info.slabs;
        in->device_bytes += q->info.device_bytes;
        if (q->info.t_filter_s + q->info.t_backproject_s > in->t_filter_s + in->t_backproject_s) {
            in->t_filter_s = q->info.t_filter_s;
            in->t_backproject_s = q->info.t_backproject_s;
        }
    }
    return s;
}
