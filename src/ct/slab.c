/* Out-of-core schedule for FDK on a device: the volume in z slabs, the projections in batches
 * of views, each batch holding only the detector rows (the band) that the current slab reads.
 *
 * Device memory model (bytes), for slab thickness Z, band slot height H (rows per view) and
 * batch size B:
 *   volume slab          nx ny Z 4            when the volume is on the host
 *   staging buffers      2 B nu H 4           when the projections are on the host (the two
 *                                             halves of the double buffer)
 *   filtered batch       B nu H 4
 *   filter plan          kri_fdk_filt_device_bytes(nu, B H) (none for bp_only plans)
 *   tables               nu nviews 4 (Parker) + nviews sizeof(kri_fdk_wv) + 64 KiB
 * Among the slab thicknesses nz / 1, nz / 2, ... (rounded up), each with the largest batch
 * that fits, the schedule takes the one of least modelled device traffic (kri_sched_cost:
 * re-reading detector bands per slab against re-reading the slab per launch). Pinned host
 * staging (2 B nu H 4 bytes) is host memory and not counted. A plan that computes only slices
 * [z0, z1) of the volume (a part of a divided plan, fdk_multi.c) schedules those alone. */
#include "fdk_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The projection matrix (fdk_kern.h) in double. */
#define KT double
#define KFN(x) x##_f64
#define KHD static inline
#define KS(x) ((double)(x))
#define KMUL(a, b) ((a) * (b))
#define KADD(a, b) ((a) + (b))
#define KFMA(a, b, c) ((a) * (b) + (c))
#define KRCP(a) (1.0 / (a))
#define KFMUL(a, b) ((a) * (b))
#define KFADD(a, b) ((a) + (b))
#include "fdk_kern.h"

int64_t kri_fdk_sched_bytes(const kr_fdk_plan *p, int proj_host, int vol_host, int64_t slab_z,
                            int64_t nbmax, int64_t batch)
{
    const int64_t f = (int64_t)sizeof(float);
    int64_t rows = batch * nbmax;
    int64_t b = 0;
    if (vol_host) b += p->grid.n[0] * p->grid.n[1] * slab_z * f;
    if (proj_host) b += 2 * rows * p->nu * f;
    b += rows * p->nu * f;
    if (!p->bp_only) b += kri_fdk_filt_device_bytes(p->nu, rows, &p->o);
    b += (p->parker ? p->nu * p->nviews * f : 0) +
         p->nviews * (int64_t)sizeof(kri_fdk_wv) + ((int64_t)64 << 10);
    return b;
}

/* v range of slice k over the 4 corner columns, in every view: rows [lo, hi). */
static void kri_slice_rows(const kr_fdk_plan *p, int64_t k, int64_t *lo, int64_t *hi)
{
    const double ic[2] = {0, (double)(p->grid.n[0] - 1)};
    const double jc[2] = {0, (double)(p->grid.n[1] - 1)};
    double vmin = INFINITY, vmax = -INFINITY;
    for (int64_t m = 0; m < p->nviews; m++) {
        const kri_fdk_mat *M = &p->mat[m];
        for (int c = 0; c < 4; c++) {
            double w, un, vn;
            kri_fdk_voxel_f64(M, ic[c & 1], jc[c >> 1], (double)k, &w, &un, &vn);
            const double v = vn / w;
            if (v < vmin) vmin = v;
            if (v > vmax) vmax = v;
        }
    }
    /* rows floor(v) and floor(v) + 1 are read; two rows of margin for float rounding */
    double l = floor(vmin) - 2, h = floor(vmax) + 4;
    if (l < 0) l = 0;
    if (h > (double)p->nv) h = (double)p->nv;
    *lo = (int64_t)l;
    *hi = h > l ? (int64_t)h : (int64_t)l;
}

/* Band of slices [z0, z0 + nz) from per-slice ranges: even start, even height where possible. */
static void kri_band_from(const kr_fdk_plan *p, const int64_t *slo, const int64_t *shi,
                          int64_t z0, int64_t nz, int64_t *vb0, int64_t *nvb)
{
    int64_t lo = INT64_MAX, hi = 0;
    for (int64_t k = z0; k < z0 + nz; k++) {
        if (shi[k] <= slo[k]) continue;
        if (slo[k] < lo) lo = slo[k];
        if (shi[k] > hi) hi = shi[k];
    }
    if (lo >= hi) {
        *vb0 = 0;
        *nvb = 0;
        return;
    }
    lo -= lo % 2;
    if ((hi - lo) % 2 && hi < p->nv) hi++;
    *vb0 = lo;
    *nvb = hi - lo;
}

static kr_status kri_slice_tables(const kr_fdk_plan *p, int64_t **slo, int64_t **shi)
{
    int64_t nz = p->grid.n[2];
    KRI_TRY(kri_alloc((void **)slo, (size_t)nz * 2 * sizeof(int64_t), "FDK slab bands"));
    *shi = *slo + nz;
    for (int64_t k = 0; k < nz; k++) kri_slice_rows(p, k, &(*slo)[k], &(*shi)[k]);
    return KR_OK;
}

void kri_fdk_band(const kr_fdk_plan *p, int64_t z0, int64_t nz, int64_t *vb0, int64_t *nvb)
{
    int64_t lo = INT64_MAX, hi = 0;
    for (int64_t k = z0; k < z0 + nz; k++) {
        int64_t l, h;
        kri_slice_rows(p, k, &l, &h);
        if (h <= l) continue;
        if (l < lo) lo = l;
        if (h > hi) hi = h;
    }
    if (lo >= hi) {
        *vb0 = 0;
        *nvb = 0;
        return;
    }
    lo -= lo % 2;
    if ((hi - lo) % 2 && hi < p->nv) hi++;
    *vb0 = lo;
    *nvb = hi - lo;
}

void kri_fdk_sched_free(kri_fdk_sched *s)
{
    if (!s) return;
    kri_free(s->slabs);
    memset(s, 0, sizeof *s);
}

static int64_t kri_slot_rows(const kr_fdk_plan *p, const int64_t *slo, const int64_t *shi,
                             int64_t zs)
{
    const int64_t ze = p->z1;
    int64_t hmax = 0;
    for (int64_t z0 = p->z0; z0 < ze; z0 += zs) {
        int64_t b0, nb;
        kri_band_from(p, slo, shi, z0, ze - z0 < zs ? ze - z0 : zs, &b0, &nb);
        if (nb > hmax) hmax = nb;
    }
    hmax += hmax % 2;
    return hmax < 2 ? 2 : hmax;
}

/* Largest batch (<= nviews) within the budget, 0 if none. */
static int64_t kri_max_batch(const kr_fdk_plan *p, int ph, int vh, int64_t zs, int64_t H,
                             int64_t budget)
{
    int64_t b1 = kri_fdk_sched_bytes(p, ph, vh, zs, H, 1);
    if (b1 > budget) return 0;
    int64_t per = kri_fdk_sched_bytes(p, ph, vh, zs, H, 2) - b1;
    int64_t b = per > 0 ? 1 + (budget - b1) / per : p->nviews;
    if (b > p->nviews) b = p->nviews;
    while (b > 1 && kri_fdk_sched_bytes(p, ph, vh, zs, H, b) > budget) b--;
    return b;
}

static const char *kri_mib(int64_t b, char *buf, size_t n)
{
    if (b >= ((int64_t)1 << 20)) snprintf(buf, n, "%.1f MiB", (double)b / 1048576.0);
    else snprintf(buf, n, "%.1f KiB", (double)b / 1024.0);
    return buf;
}

/* Device traffic of a schedule (bytes, a model to compare candidates): every slab weights,
 * filters and reads its band of every view (about 12 bytes per sample), and every launch of at
 * most KRI_FDK_VPL views reads and writes the slab. */
static double kri_sched_cost(const kr_fdk_plan *p, const int64_t *slo, const int64_t *shi,
                             int64_t zs, int64_t batch)
{
    const int64_t nz = p->z1 - p->z0;
    double rows = 0;
    for (int64_t z0 = p->z0; z0 < p->z1; z0 += zs) {
        int64_t b0, nb;
        kri_band_from(p, slo, shi, z0, p->z1 - z0 < zs ? p->z1 - z0 : zs, &b0, &nb);
        rows += (double)nb;
    }
    int64_t per = batch < KRI_FDK_VPL ? batch : KRI_FDK_VPL;
    double launches = (double)((p->nviews + batch - 1) / batch) *
                      (double)((batch + per - 1) / per);
    return rows * (double)p->nviews * (double)p->nu * 12.0 +
           launches * (double)(p->grid.n[0] * p->grid.n[1] * nz) * 8.0;
}

kr_status kri_fdk_sched_make(const kr_fdk_plan *p, int ph, int vh, int64_t budget,
                             int budget_auto, kri_fdk_sched *s)
{
    memset(s, 0, sizeof *s);
    const int64_t nz = p->z1 - p->z0; /* the plan's slices [z0, z1) */
    int64_t *slo, *shi;
    KRI_TRY(kri_slice_tables(p, &slo, &shi));
    int64_t best_zs = 0, best_b = 0, best_h = 0, prev_zs = -1;
    double best_cost = INFINITY;
    for (int64_t div = 1; div <= nz; div++) {
        int64_t zs = p->o.slab_z ? (p->o.slab_z < nz ? p->o.slab_z : nz) : (nz + div - 1) / div;
        if (zs == prev_zs) continue;
        prev_zs = zs;
        int64_t H = kri_slot_rows(p, slo, shi, zs);
        int64_t b = kri_max_batch(p, ph, vh, zs, H, budget);
        if (p->o.batch_views) {
            int64_t fb = p->o.batch_views < p->nviews ? p->o.batch_views : p->nviews;
            b = kri_fdk_sched_bytes(p, ph, vh, zs, H, fb) <= budget ? fb : 0;
        }
        if (b > 0) {
            double cost = kri_sched_cost(p, slo, shi, zs, b);
            if (cost < best_cost) {
                best_cost = cost;
                best_b = b;
                best_zs = zs;
                best_h = H;
            }
        }
        if (p->o.slab_z) break;
    }
    if (best_b < 1) {
        int64_t need = kri_fdk_sched_bytes(p, ph, vh, 1, kri_slot_rows(p, slo, shi, 1),
                                           p->o.batch_views ? p->o.batch_views : 1);
        if (p->o.slab_z)
            need = kri_fdk_sched_bytes(p, ph, vh, p->o.slab_z < nz ? p->o.slab_z : nz,
                                       kri_slot_rows(p, slo, shi, p->o.slab_z < nz ? p->o.slab_z
                                                                                   : nz),
                                       p->o.batch_views ? p->o.batch_views : 1);
        kri_free(slo);
        char a[32], b[32];
        return kri_fail(budget_auto ? KR_ERR_OOM_DEVICE : KR_ERR_INVALID_ARG,
                        "fdk: the device memory budget of %s is too small: the smallest slab "
                        "(%lld slice%s) with one batch of %lld view%s needs %s",
                        kri_mib(budget, a, sizeof a),
                        (long long)(p->o.slab_z ? p->o.slab_z : 1), p->o.slab_z > 1 ? "s" : "",
                        (long long)(p->o.batch_views ? p->o.batch_views : 1),
                        p->o.batch_views > 1 ? "s" : "", kri_mib(need, b, sizeof b));
    }
    /* host projections: batches small enough that staging, upload and kernels overlap (the
     * volume holds the running sums, so the batch size does not change a value) */
    const int hb = p->tune.host_batch == 0 ? KRI_FDK_HOST_BATCH : p->tune.host_batch;
    if (ph && !p->o.batch_views && hb > 0 && best_b > hb) best_b = hb;
    s->slab_z = best_zs;
    s->nslabs = (nz + best_zs - 1) / best_zs;
    s->batch = best_b;
    s->nbmax = best_h;
    s->bytes = kri_fdk_sched_bytes(p, ph, vh, best_zs, best_h, best_b);
    s->slabs = kri_calloc((size_t)s->nslabs, sizeof *s->slabs);
    if (!s->slabs) {
        kri_free(slo);
        return kri_fail(KR_ERR_OOM_HOST, "out of host memory for an FDK schedule");
    }
    for (int64_t i = 0; i < s->nslabs; i++) {
        kri_fdk_slab *sl = &s->slabs[i];
        sl->z0 = p->z0 + i * best_zs;
        sl->nz = p->z1 - sl->z0 < best_zs ? p->z1 - sl->z0 : best_zs;
        kri_band_from(p, slo, shi, sl->z0, sl->nz, &sl->vb0, &sl->nvb);
    }
    kri_free(slo);
    return KR_OK;
}
