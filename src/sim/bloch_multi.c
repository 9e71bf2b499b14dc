/* The Bloch simulator divided over a context's device list (sim_internal.h, docs/scaling.md):
 * the isochromats in contiguous ranges, one backend instance per part on the plan's compiled
 * program. Each part returns its ADC sums as 64-bit fixed-point integers at the whole object's
 * scale; adding them is exact and order-free, so the k-space is the undivided plan's bit for
 * bit, on the CPU and on CUDA. */
#include "core/dist_plugin.h"
#include "core/parts.h"
#include "kray/dist.h"
#include "sim_internal.h"

#include <string.h>

struct kri_simm {
    kri_parts *parts;
    const kri_sim_backend *be;
    void *state[KR_MAX_DEVICES];
    int64_t *is; /* the global split (parts.h): global part g has isochromats [is[g], is[g + 1]) */
    float *fin[KR_MAX_DEVICES];     /* a part's final state (3 counts) and coil weights */
    float *sens[KR_MAX_DEVICES];
    int64_t *acc[KR_MAX_DEVICES], nacc;
    float *host_out;                /* k-space staged on the host for a device output */
    const kri_sim_prog *prog; /* the plan's (it outlives the parts) */
    kr_sim_opts opts;
    int auto_k; /* opts.iso_per_thread was 0: set from each object's size */
};

void kri_simm_destroy(kri_simm *m)
{
    if (!m) return;
    for (int i = 0; m->parts && i < m->parts->n; i++) {
        if (m->state[i]) {
            kri_cuda_set_device(m->parts->ctx[i]);
            m->be->destroy(m->state[i]);
        }
        kri_free(m->fin[i]);
        kri_free(m->sens[i]);
        kri_free(m->acc[i]);
    }
    if (m->parts) kri_cuda_set_device(m->parts->parent);
    kri_free(m->host_out);
    kri_parts_destroy(m->parts);
    kri_free(m->is);
    kri_free(m);
}

kr_status kri_simm_create(kri_simm **out, const kr_ctx *ctx, const kri_sim_prog *prog,
                          const kr_sim_opts *opts)
{
    *out = NULL;
    kri_simm *m = kri_calloc(1, sizeof *m);
    if (!m) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a divided simulation");
    kr_status s = kri_parts_create(&m->parts, ctx);
    if (s == KR_OK)
        s = kri_backend_pick(&m->be, kri_ctx_loc(ctx), &kri_sim_cpu, &kri_sim_cuda,
                             "Bloch simulation");
    if (s != KR_OK) {
        kri_simm_destroy(m);
        return s;
    }
    m->prog = prog;
    m->opts = *opts;
    *out = m;
    return KR_OK;
}

/* A part's backend instance is made with its first object (ranges may leave parts idle). */
typedef struct kri_simm_call {
    kri_simm *m;
    const kri_sim_obj *obj;
    double scale;
} kri_simm_call;

static kr_status kri_simm_part_object(void *user, int i, const kr_ctx *c)
{
    kri_simm_call *k = user;
    kri_simm *m = k->m;
    const kri_sim_obj *o = k->obj;
    const int g = m->parts->g0 + i;
    const int64_t i0 = m->is[g], n = m->is[g + 1] - i0;
    if (n <= 0) return KR_OK;
    if (!m->state[i]) KRI_TRY(m->be->create(&m->state[i], c, m->prog, &m->opts));
    kri_free(m->fin[i]);
    kri_free(m->sens[i]);
    m->fin[i] = m->sens[i] = NULL;
    KRI_TRY(kri_alloc((void **)&m->fin[i], (size_t)(3 * n) * sizeof(float), "a part's state"));
    if (o->sens) { /* [isochromat, coil]: this range of every coil */
        KRI_TRY(kri_alloc((void **)&m->sens[i], (size_t)(2 * n * o->ncoils) * sizeof(float),
                          "a part's coil weights"));
        for (int c2 = 0; c2 < o->ncoils; c2++)
            memcpy(m->sens[i] + 2 * n * c2, o->sens + 2 * (o->n * c2 + i0),
                   (size_t)(2 * n) * sizeof(float));
    }
    kri_sim_obj p = {n,
                     o->ncoils,
                     o->x + i0,
                     o->y + i0,
                     o->z + i0,
                     o->df + i0,
                     o->r1 + i0,
                     o->r2 + i0,
                     o->m0 + i0,
                     o->mx0 + i0,
                     o->my0 + i0,
                     o->mz0 + i0,
                     m->fin[i],
                     m->fin[i] + n,
                     m->fin[i] + 2 * n,
                     m->sens[i]};
    return m->be->set_object(m->state[i], &p);
}

kr_status kri_simm_set_object(kri_simm *m, const kri_sim_obj *obj)
{
    /* the parts' float groups are the undivided plan's: cuts at multiples of the group, and on
     * CUDA the isochromats per thread the whole object would get */
    kri_free(m->is);
    m->is = kri_parts_split(m->parts, obj->n, KRI_SIM_GROUP);
    if (!m->is) return KR_ERR_OOM_HOST;
    if (m->opts.iso_per_thread == 0 || m->auto_k) {
        const int k = kri_sim_iso_per_thread(obj->n);
        if (m->auto_k && m->opts.iso_per_thread != k) /* made for another size: make again */
            for (int i = 0; i < m->parts->n; i++)
                if (m->state[i]) {
                    kri_cuda_set_device(m->parts->ctx[i]);
                    m->be->destroy(m->state[i]);
                    m->state[i] = NULL;
                }
        kri_cuda_set_device(m->parts->parent);
        m->opts.iso_per_thread = k;
        m->auto_k = 1;
    }
    kri_simm_call k = {m, obj, 0};
    kr_status s = kri_parts_run(m->parts, kri_simm_part_object, &k);
    const int64_t nacc = 2 * m->prog->nsamples * (int64_t)obj->ncoils;
    for (int i = 0; i < m->parts->n && s == KR_OK && nacc != m->nacc; i++) {
        kri_free(m->acc[i]);
        m->acc[i] = NULL;
        if (nacc > 0) s = kri_alloc((void **)&m->acc[i], (size_t)nacc * sizeof(int64_t),
                                    "a part's ADC sums");
    }
    if (s == KR_OK && nacc != m->nacc) {
        kri_free(m->host_out);
        m->host_out = NULL;
    }
    if (s == KR_OK) m->nacc = nacc;
    else m->nacc = -1;
    return s;
}

static kr_status kri_simm_part_run(void *user, int i, const kr_ctx *c)
{
    kri_simm_call *k = user;
    kri_simm *m = k->m;
    (void)c;
    const int g = m->parts->g0 + i;
    if (m->is[g + 1] <= m->is[g]) {
        if (m->nacc > 0) memset(m->acc[i], 0, (size_t)m->nacc * sizeof(int64_t));
        return KR_OK;
    }
    return m->be->execute(m->state[i], k->scale, NULL, m->nacc > 0 ? m->acc[i] : NULL);
}

kr_status kri_simm_execute(kri_simm *m, const kri_sim_prog *prog, double scale, kr_loc loc,
                           const kr_ctx *ctx, float *kspace)
{
    kri_simm_call k = {m, NULL, scale};
    KRI_TRY(kri_parts_run(m->parts, kri_simm_part_run, &k));
    if (m->nacc <= 0 || !kspace) return KR_OK;
    /* integer sums, in any order the same (wrapping: two's complement, as the backends) */
    uint64_t *a0 = (uint64_t *)m->acc[0];
    for (int i = 1; i < m->parts->n; i++) {
        const uint64_t *ai = (const uint64_t *)m->acc[i];
        for (int64_t j = 0; j < m->nacc; j++) a0[j] += ai[j];
    }
    KRI_TRY(kri_parts_allreduce(m->parts, a0, KR_HOST, KRI_DIST_I64, KRI_DIST_SUM,
                                (size_t)m->nacc));
    const int64_t ncoils = m->nacc / (2 * prog->nsamples);
    if (loc == KR_HOST) {
        kri_sim_finish(prog, m->acc[0], ncoils, scale, kspace);
        return KR_OK;
    }
    if (!m->host_out)
        KRI_TRY(kri_alloc((void **)&m->host_out, (size_t)m->nacc * sizeof(float), "k-space"));
    kri_sim_finish(prog, m->acc[0], ncoils, scale, m->host_out);
    return kri_memcpy(kspace, KR_DEVICE, m->host_out, KR_HOST, (size_t)m->nacc * sizeof(float),
                      ctx);
}

kr_status kri_simm_get_state(const kri_simm *m, float *mx, float *my, float *mz)
{
    kr_status s = KR_OK;
    for (int i = 0; i < m->parts->n && s == KR_OK; i++) {
        const int g = m->parts->g0 + i;
        const int64_t i0 = m->is[g], n = m->is[g + 1] - i0;
        if (n <= 0) continue;
        s = kri_cuda_set_device(m->parts->ctx[i]);
        if (s == KR_OK) s = m->be->get_state(m->state[i], mx + i0, my + i0, mz + i0);
        kri_cuda_set_device(m->parts->parent);
    }
    if (kri_dist_active(m->parts->parent)) s = kr_dist_agree(s);
    float *f[3] = {mx, my, mz};
    for (int c = 0; c < 3 && s == KR_OK; c++) /* the other processes' isochromats */
        s = kri_parts_allgather(m->parts, f[c], KR_HOST, sizeof(float), m->is);
    return s;
}

