/* The cone-beam projector divided over a context's device list (docs/scaling.md).
 *
 * Every part holds a projector plan of the whole geometry on its own device (or, CPU, with its
 * share of the threads). The forward divides the views: part i computes views [vs[i],
 * vs[i + 1]) of the projections from the whole volume. The adjoint divides the volume into z
 * slabs [zs[i], zs[i + 1]) (multiples of 16 slices) when every part's backend keeps a slab of
 * the adjoint exact (the CPU's slab scatter and the CUDA gather: KRI_CT_RANGE_Z), so both are
 * the undivided results bit for bit; otherwise (the CUDA scatters, exact to rounding only) each
 * part backprojects its views into a volume of its own and the volumes are added on the first
 * device in part order.
 *
 * Arrays are the caller's, where the first device is. A part on another device gets the
 * operand it reads copied to its device (the whole volume for the forward, all projections for
 * the adjoint), computes into buffers there, and copies its share back; a part on the first
 * device reads and writes the caller's arrays directly. All parts run at once
 * (kri_parts_run); a call returns when the result is complete. */
#include "project3d_internal.h"
#include "core/dist_plugin.h"
#include "core/parts.h"
#include "kray/dist.h"
#include "kray/linop.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct kri_ct3m {
    kri_parts *parts;
    kr_ct_projector_plan *plan[KR_MAX_DEVICES];
    int64_t *vs, *zs; /* global splits (parts.h): views and z slabs */
    int adj; /* KRI_CT_RANGE_Z or KRI_CT_RANGE_VIEWS */
    /* a part's own volume and projections (device buffers of parts off the first device; for
     * the views-divided adjoint also of parts i > 0 on it, host buffers on the CPU), made at
     * the first call that needs them; sum: the first device's copy of a part's volume */
    void *vol[KR_MAX_DEVICES], *proj[KR_MAX_DEVICES], *sum;
    kr_loc loc;
    size_t esz;
    int64_t nvox, nproj, plane, vsize; /* elements: volume, projections, slice, view */
    pthread_mutex_t lock;
    kri_ct3_single single;
};

/* Environment for the tests: KRAY_CT3_SPLIT_ADJOINT=views divides every adjoint by views (the
 * path the CUDA scatters take), so a machine without a GPU exercises it too. */
static int kri_ct3m_force_views(void)
{
    const char *e = getenv("KRAY_CT3_SPLIT_ADJOINT");
    return e && !strcmp(e, "views");
}

static void kri_ct3m_free_buf(const kri_ct3m *m, void *b, int part)
{
    if (!b) return;
    if (m->loc == KR_DEVICE) {
        kri_cuda_set_device(m->parts->ctx[part]);
        kri_device_free(b);
    } else {
        kri_free(b);
    }
}

void kri_ct3m_destroy(kri_ct3m *m)
{
    if (!m) return;
    for (int i = 0; i < (m->parts ? m->parts->n : 0); i++) {
        if (m->plan[i]) m->single.destroy(m->plan[i]);
        kri_ct3m_free_buf(m, m->vol[i], i);
        kri_ct3m_free_buf(m, m->proj[i], i);
    }
    kri_ct3m_free_buf(m, m->sum, 0);
    kri_free(m->vs);
    kri_free(m->zs);
    if (m->parts) {
        kri_cuda_set_device(m->parts->parent);
        kri_parts_destroy(m->parts);
    }
    pthread_mutex_destroy(&m->lock);
    kri_free(m);
}

/* Does part i work on the first device's memory? (CPU: every part.) */
static int kri_ct3m_local(const kri_ct3m *m, int i)
{
    return !kri_part_remote(m->parts, i, m->loc);
}

kr_status kri_ct3m_create(kri_ct3m **out, const kr_ct_projector_plan *p,
                          const kri_ct3_single *single)
{
    *out = NULL;
    kri_ct3m *m = kri_calloc(1, sizeof *m);
    if (!m) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a divided projector");
    m->single = *single;
    pthread_mutex_init(&m->lock, NULL);
    kr_status s = kri_parts_create(&m->parts, p->ctx);
    const kri_ct3p_f64 *P = &p->p3->p64;
    const int n = m->parts ? m->parts->n : 0;
    m->loc = p->loc;
    m->esz = kr_dtype_size(p->opts.dtype);
    m->plane = (int64_t)P->n[0] * P->n[1];
    m->nvox = m->plane * P->n[2];
    m->vsize = (int64_t)P->nu * P->nv;
    m->nproj = m->vsize * P->nviews;
    if (s == KR_OK) {
        m->vs = kri_parts_split(m->parts, P->nviews, 1);
        /* the CUDA gather's thread slabs are 16 (f64: 8) deep */
        m->zs = kri_parts_split(m->parts, P->n[2], 16);
        if (!m->vs || !m->zs) s = KR_ERR_OOM_HOST;
    }
    m->adj = kri_ct3m_force_views() ? KRI_CT_RANGE_VIEWS : KRI_CT_RANGE_Z;
    for (int i = 0; i < n && s == KR_OK; i++) {
        s = m->single.create(&m->plan[i], m->parts->ctx[i], p->geom, &p->opts);
        if (s == KR_OK && m->plan[i]->be->adjoint_split(m->plan[i], m->plan[i]->dev) !=
                              KRI_CT_RANGE_Z)
            m->adj = KRI_CT_RANGE_VIEWS;
    }
    kri_cuda_set_device(p->ctx);
    if (kri_dist_active(p->ctx)) s = kr_dist_agree(s); /* every process made its parts */
    if (s != KR_OK) {
        kri_ct3m_destroy(m);
        return s;
    }
    kr_log(p->ctx, KR_LOG_INFO,
           "CT projector: divided over %d %s (forward by views, adjoint by %s)", n,
           p->loc == KR_DEVICE ? "devices" : "parts",
           m->adj == KRI_CT_RANGE_Z ? "z slabs" : "views, partial volumes added");
    *out = m;
    return KR_OK;
}

/* *b = a buffer of `elems` elements for part i (on its device; on the host for the CPU). */
static kr_status kri_ct3m_buf(const kri_ct3m *m, int i, void **b, int64_t elems, const char *what)
{
    if (*b) return KR_OK;
    const size_t bytes = (size_t)elems * m->esz;
    if (m->loc == KR_HOST) return kri_alloc(b, bytes, what);
    return kri_device_alloc(b, bytes, kr_ctx_device(m->parts->ctx[i]), what);
}

/* Copy elems elements from src (device sdev) to dst (device ddev), on part ctx c. */
static kr_status kri_ct3m_copy(const kri_ct3m *m, void *dst, int ddev, const void *src, int sdev,
                               int64_t elems, const kr_ctx *c)
{
    const size_t bytes = (size_t)elems * m->esz;
    if (m->loc == KR_HOST) {
        memcpy(dst, src, bytes);
        return KR_OK;
    }
    return kri_memcpy_peer(dst, ddev, src, sdev, bytes, c);
}

typedef struct kri_ct3m_call {
    kri_ct3m *m;
    int adjoint;
    const void *in;
    void *out;
} kri_ct3m_call;

static kr_status kri_ct3m_part(void *user, int i, const kr_ctx *c)
{
    kri_ct3m_call *k = user;
    kri_ct3m *m = k->m;
    const kr_ct_projector_plan *q = m->plan[i];
    const int g = m->parts->g0 + i; /* the global part */
    const int first = kr_ctx_device(m->parts->parent), mine = kr_ctx_device(c);
    const int local = kri_ct3m_local(m, i);
    const char *in = k->in;
    char *out = k->out;
    if (!k->adjoint) { /* views [vs[i], vs[i + 1]) of out */
        kri_ct_range r = {KRI_CT_RANGE_VIEWS, m->vs[g], m->vs[g + 1]};
        if (r.r1 <= r.r0) return KR_OK;
        if (local) return q->be->forward_part(q, q->dev, in, out, &r);
        KRI_TRY(kri_ct3m_buf(m, i, &m->vol[i], m->nvox, "a part's copy of the volume"));
        KRI_TRY(kri_ct3m_buf(m, i, &m->proj[i], m->nproj, "a part's projections"));
        KRI_TRY(kri_ct3m_copy(m, m->vol[i], mine, in, first, m->nvox, c));
        KRI_TRY(q->be->forward_part(q, q->dev, m->vol[i], m->proj[i], &r));
        const size_t o = (size_t)(r.r0 * m->vsize) * m->esz;
        return kri_ct3m_copy(m, out + o, first, (char *)m->proj[i] + o, mine,
                             (r.r1 - r.r0) * m->vsize, c);
    }
    if (m->adj == KRI_CT_RANGE_Z) { /* slices [zs[i], zs[i + 1]) of out */
        kri_ct_range r = {KRI_CT_RANGE_Z, m->zs[g], m->zs[g + 1]};
        if (r.r1 <= r.r0) return KR_OK;
        if (local) return q->be->adjoint_part(q, q->dev, in, out, &r);
        KRI_TRY(kri_ct3m_buf(m, i, &m->vol[i], m->nvox, "a part's copy of the volume"));
        KRI_TRY(kri_ct3m_buf(m, i, &m->proj[i], m->nproj, "a part's projections"));
        KRI_TRY(kri_ct3m_copy(m, m->proj[i], mine, in, first, m->nproj, c));
        KRI_TRY(q->be->adjoint_part(q, q->dev, m->proj[i], m->vol[i], &r));
        const size_t o = (size_t)(r.r0 * m->plane) * m->esz;
        return kri_ct3m_copy(m, out + o, first, (char *)m->vol[i] + o, mine,
                             (r.r1 - r.r0) * m->plane, c);
    }
    /* the backprojection of views [vs[i], vs[i + 1]) alone: part 0 into out, the others into
     * volumes of their own, added by kri_ct3m_run */
    kri_ct_range r = {KRI_CT_RANGE_VIEWS, m->vs[g], m->vs[g + 1]};
    if (i == 0) return q->be->adjoint_part(q, q->dev, in, out, &r);
    KRI_TRY(kri_ct3m_buf(m, i, &m->vol[i], m->nvox, "a part's volume"));
    if (local) return q->be->adjoint_part(q, q->dev, in, m->vol[i], &r);
    KRI_TRY(kri_ct3m_buf(m, i, &m->proj[i], m->nproj, "a part's projections"));
    KRI_TRY(kri_ct3m_copy(m, m->proj[i], mine, in, first, m->nproj, c));
    return q->be->adjoint_part(q, q->dev, m->proj[i], m->vol[i], &r);
}

/* out = A in or A^T in on the parts; the arrays were checked by the front. */
kr_status kri_ct3m_run(kri_ct3m *m, int adjoint, const kr_array *in, kr_array *out)
{
    pthread_mutex_lock(&m->lock);
    kri_ct3m_call k = {m, adjoint, in->data, out->data};
    kr_status s = kri_parts_run(m->parts, kri_ct3m_part, &k);
    if (s == KR_OK && adjoint && m->adj == KRI_CT_RANGE_VIEWS) {
        /* out += the other parts' volumes, in part order, on the first device */
        const kr_ctx *c = m->parts->parent;
        const int first = kr_ctx_device(c);
        kr_array acc;
        s = m->loc == KR_DEVICE ? kri_ct3m_buf(m, 0, &m->sum, m->nvox, "the sum of the parts")
                                : KR_OK;
        for (int i = 1; i < m->parts->n && s == KR_OK; i++) {
            if (m->vs[m->parts->g0 + i + 1] <= m->vs[m->parts->g0 + i]) continue;
            void *v = m->vol[i];
            if (m->loc == KR_DEVICE && !kri_ct3m_local(m, i)) {
                s = kri_ct3m_copy(m, m->sum, first, v, kr_ctx_device(m->parts->ctx[i]),
                                  m->nvox, c);
                v = m->sum;
            }
            if (s == KR_OK) s = kr_array_wrap(&acc, out->dtype, out->ndim, out->dims, v, out->loc);
            acc.device = out->device;
            if (s == KR_OK) s = kr_vec_axpy(c, out, 1.0, 0.0, &acc);
        }
    }
    /* across processes: the views or the slabs of the others; the partial volumes added */
    const size_t esz = m->esz;
    if (s == KR_OK && !adjoint)
        s = kri_parts_allgather(m->parts, out->data, m->loc, (size_t)m->vsize * esz, m->vs);
    else if (s == KR_OK && m->adj == KRI_CT_RANGE_Z)
        s = kri_parts_allgather(m->parts, out->data, m->loc, (size_t)m->plane * esz, m->zs);
    else if (s == KR_OK)
        s = kri_parts_allreduce(m->parts, out->data, m->loc,
                                esz == 4 ? KRI_DIST_F32 : KRI_DIST_F64, KRI_DIST_SUM,
                                (size_t)m->nvox);
    pthread_mutex_unlock(&m->lock);
    return s;
}
