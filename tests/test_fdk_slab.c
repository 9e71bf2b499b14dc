/* The out-of-core schedule of FDK (slab.c): budgets, slab partitions and detector-row bands,
 * checked by brute force over every voxel and view (host code: runs without a GPU). */
#include "ct/fdk_internal.h"
#include "test_fdk_util.h"

#include <stdio.h>

static kr_fdk_plan *make_plan(const kt_cone *c, const kr_fdk_opts *o, kr_ctx **ctx)
{
    KT_OK(kr_ctx_create(ctx, KR_BACKEND_CPU));
    KT_OK(kr_ctx_set_log_level(*ctx, KR_LOG_ERROR));
    kr_ct_view *v = kt_cone_views(c);
    kr_fdk_plan *p = NULL;
    KT_OK(kr_fdk_plan_create_views(&p, *ctx, c->nu, c->nv, v, c->nviews, &c->grid, o));
    free(v);
    return p;
}

/* Every voxel of every slab interpolates between rows floor(v) and floor(v) + 1 (v clamped to
 * [-1, nv], as the kernels): those inside the detector with a non-zero weight must lie in the
 * slab's band (reads outside it give zero). */
static void check_bands(const kr_fdk_plan *p, const kri_fdk_sched *s)
{
    const int64_t nx = p->grid.n[0], ny = p->grid.n[1];
    int64_t bad = 0, next = 0;
    for (int64_t si = 0; si < s->nslabs; si++) {
        const kri_fdk_slab *sl = &s->slabs[si];
        KT_CHECK(sl->z0 == next);
        KT_CHECK(sl->nz >= 1 && sl->nz <= s->slab_z);
        KT_CHECK(sl->nvb <= s->nbmax);
        KT_CHECK(sl->vb0 % 2 == 0);
        next = sl->z0 + sl->nz;
        for (int64_t m = 0; m < p->nviews; m++) {
            const kri_fdk_mat *M = &p->mat[m];
            for (int64_t j = 0; j < ny; j++)
                for (int64_t i = 0; i < nx; i++) {
                    const float jf = (float)j, fi = (float)i;
                    const float w = fmaf(M->pw[0], fi, M->pw[1] * jf + M->pw[3]);
                    const float r = 1.0f / w;
                    const float vb = fmaf(M->pv[0], fi, M->pv[1] * jf + M->pv[3]) * r;
                    const float dv = M->pv[2] * r;
                    for (int64_t k = sl->z0; k < sl->z0 + sl->nz; k++) {
                        float v = fmaf((float)k, dv, vb);
                        v = v < -1 ? -1 : (v > (float)p->nv ? (float)p->nv : v);
                        const float fl = floorf(v), fv = v - fl;
                        const int64_t iv = (int64_t)fl;
                        for (int64_t b = iv; b <= iv + 1; b++)
                            if (b >= 0 && b < p->nv && (b < sl->vb0 || b >= sl->vb0 + sl->nvb) &&
                                (b == iv ? 1 - fv : fv) != 0)
                                bad++;
                    }
                }
        }
    }
    KT_CHECK(next == p->grid.n[2]);
    KT_CHECK_MSG(bad == 0, "%lld voxel reads fall outside their slab's band", (long long)bad);
}

static void test_schedules(void)
{
    kt_cone c;
    kt_cone_default(&c, 24, 1.0, 30);
    c.grid.n[2] = 29;
    c.off_v = 3.0;
    kr_ctx *ctx = NULL;
    kr_fdk_plan *p = make_plan(&c, NULL, &ctx);
    const int64_t f = 4;
    /* in core: everything fits */
    kri_fdk_sched s;
    for (int ph = 0; ph < 2; ph++)
        for (int vh = 0; vh < 2; vh++) {
            KT_OK(kri_fdk_sched_make(p, ph, vh, (int64_t)1 << 30, 0, &s));
            KT_CHECK(s.nslabs == 1 && s.batch == c.nviews);
            KT_LE(s.bytes, (int64_t)1 << 30);
            check_bands(p, &s);
            kri_fdk_sched_free(&s);
        }
    /* budgets from generous to tight (fractions of the in-core schedule): always within the
     * budget, bands always cover, down to one slice and one view; below that, refused */
    KT_OK(kri_fdk_sched_make(p, 1, 1, (int64_t)1 << 30, 0, &s));
    const int64_t incore = s.bytes;
    kri_fdk_sched_free(&s);
    const int64_t one = kri_fdk_sched_bytes(p, 1, 1, 1, c.nv, 1); /* >= one slice, one view */
    const double frac[] = {2.0, 1.0, 0.6, 0.4, 0.25, 0.15};
    int64_t max_slabs = 0;
    for (int b = 0; b < 6; b++) {
        int64_t budget = (int64_t)(frac[b] * (double)incore);
        if (budget < one) continue;
        KT_OK(kri_fdk_sched_make(p, 1, 1, budget, 0, &s));
        printf("  budget %lld KiB: %lld slabs of %lld, batch %lld x %lld rows, %lld bytes\n",
               (long long)budget >> 10, (long long)s.nslabs, (long long)s.slab_z,
               (long long)s.batch, (long long)s.nbmax, (long long)s.bytes);
        KT_LE(s.bytes, budget);
        KT_CHECK(s.bytes == kri_fdk_sched_bytes(p, 1, 1, s.slab_z, s.nbmax, s.batch));
        if (frac[b] >= 1.0) KT_CHECK(s.nslabs == 1 && s.batch == c.nviews);
        else KT_CHECK(s.nslabs > 1 || s.batch < c.nviews);
        if (s.nslabs > max_slabs) max_slabs = s.nslabs;
        check_bands(p, &s);
        kri_fdk_sched_free(&s);
    }
    KT_CHECK(max_slabs > 1);
    /* too small for one slice and one view: exact statuses */
    const int64_t tiny = kri_fdk_sched_bytes(p, 1, 1, 1, 2, 1) - 1; /* below 1 slice, 1 view */
    KT_STATUS(kri_fdk_sched_make(p, 1, 1, tiny, 0, &s), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "too small") != NULL);
    KT_STATUS(kri_fdk_sched_make(p, 1, 1, tiny, 1, &s), KR_ERR_OOM_DEVICE);
    /* the volume on the device: no slab buffer in the model; valid schedules either way */
    const int64_t mid = (int64_t)(0.3 * (double)incore) > one ? (int64_t)(0.3 * (double)incore)
                                                              : one;
    for (int vh = 0; vh < 2; vh++) {
        KT_OK(kri_fdk_sched_make(p, 1, vh, mid, 0, &s));
        KT_LE(s.bytes, mid);
        KT_CHECK(kri_fdk_sched_bytes(p, 1, 0, s.slab_z, s.nbmax, s.batch) +
                     c.grid.n[0] * c.grid.n[1] * s.slab_z * 4 ==
                 kri_fdk_sched_bytes(p, 1, 1, s.slab_z, s.nbmax, s.batch));
        check_bands(p, &s);
        kri_fdk_sched_free(&s);
    }
    (void)f;
    kr_fdk_plan_destroy(p);
    kr_ctx_destroy(ctx);

    /* forced sizes */
    kr_fdk_opts o;
    kr_fdk_opts_default(&o);
    o.slab_z = 5;
    o.batch_views = 7;
    p = make_plan(&c, &o, &ctx);
    KT_OK(kri_fdk_sched_make(p, 1, 1, (int64_t)1 << 30, 0, &s));
    KT_CHECK(s.slab_z == 5 && s.nslabs == 6 && s.batch == 7);
    check_bands(p, &s);
    kri_fdk_sched_free(&s);
    KT_STATUS(kri_fdk_sched_make(p, 1, 1, kri_fdk_sched_bytes(p, 1, 1, 5, 4, 7) / 2, 0, &s),
              KR_ERR_INVALID_ARG);
    printf("  %s\n", kr_last_error());
    kr_fdk_plan_destroy(p);
    kr_ctx_destroy(ctx);
}

static void test_band_short_detector(void)
{
    /* a detector shorter than the volume's projection: bands clip to the detector and the
     * slabs beyond its reach read no rows */
    kt_cone c;
    kt_cone_default(&c, 20, 1.0, 16);
    c.grid.n[2] = 60;
    c.nv = 10;
    kr_ctx *ctx = NULL;
    kr_fdk_plan *p = make_plan(&c, NULL, &ctx);
    kr_fdk_opts o = p->o;
    (void)o;
    kri_fdk_sched s;
    KT_OK(kri_fdk_sched_make(p, 1, 1, (int64_t)1 << 30, 0, &s));
    const int64_t incore = s.bytes;
    kri_fdk_sched_free(&s);
    o.slab_z = 4; /* thin slabs: the upper ones see no detector row */
    p->o.slab_z = 4;
    KT_OK(kri_fdk_sched_make(p, 1, 1, incore, 0, &s));
    int empty = 0;
    for (int64_t i = 0; i < s.nslabs; i++) {
        KT_LE(s.slabs[i].vb0 + s.slabs[i].nvb, c.nv);
        empty += s.slabs[i].nvb == 0;
    }
    printf("  short detector: %lld slabs, %d read no rows\n", (long long)s.nslabs, empty);
    KT_CHECK(empty > 0);
    check_bands(p, &s);
    kri_fdk_sched_free(&s);
    kr_fdk_plan_destroy(p);
    kr_ctx_destroy(ctx);
}

/* Host projections come in batches of at most KRI_FDK_HOST_BATCH views (so transfers overlap
 * the kernels), unless the tuning or opts.batch_views says otherwise; device ones in one. */
static void test_host_batches(void)
{
    kt_cone c;
    kt_cone_default(&c, 16, 1.0, 70);
    kr_ctx *ctx = NULL;
    kr_fdk_plan *p = make_plan(&c, NULL, &ctx);
    kri_fdk_sched s;
    KT_OK(kri_fdk_sched_make(p, 1, 1, (int64_t)1 << 30, 0, &s));
    KT_CHECK(s.nslabs == 1 && s.batch == KRI_FDK_HOST_BATCH);
    kri_fdk_sched_free(&s);
    KT_OK(kri_fdk_sched_make(p, 0, 1, (int64_t)1 << 30, 0, &s));
    KT_CHECK(s.batch == 70);
    kri_fdk_sched_free(&s);
    p->tune.host_batch = -1;
    KT_OK(kri_fdk_sched_make(p, 1, 1, (int64_t)1 << 30, 0, &s));
    KT_CHECK(s.batch == 70);
    kri_fdk_sched_free(&s);
    p->tune.host_batch = 9;
    KT_OK(kri_fdk_sched_make(p, 1, 0, (int64_t)1 << 30, 0, &s));
    KT_CHECK(s.batch == 9);
    kri_fdk_sched_free(&s);
    kr_fdk_plan_destroy(p);
    kr_ctx_destroy(ctx);
}

int main(void)
{
    KT_RUN(test_schedules);
    KT_RUN(test_host_batches);
    KT_RUN(test_band_short_detector);
    return kt_finish();
}
