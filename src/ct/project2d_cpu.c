/* 2-D projectors on the CPU: serial reference and OpenMP, bit-identical by construction (every
 * output value is computed by one thread with a fixed order of operations: the forward
 * projector is ray-driven, the adjoint a pixel-driven gather summing views in order). */
#include "project2d_internal.h"
#include "project_cpu.h"

#define KT float
#define KFN(x) x##_f32
#define KSQRT sqrtf
#define KFLOOR kri_floorf
#define KCEIL kri_ceilf
#define KABS fabsf
#include "project2d_kern.h"
#undef KT
#undef KFN
#undef KSQRT
#undef KFLOOR
#undef KCEIL
#undef KABS

#define KT double
#define KFN(x) x##_f64
#define KSQRT sqrt
#define KFLOOR kri_floord
#define KCEIL kri_ceild
#define KABS fabs
#include "project2d_kern.h"
#undef KT
#undef KFN

/* One function body per element type. */
#define KRI_CPU_FORWARD(T, SFX)                                                                \
    static void kri_cpu_fwd_##SFX(const kri_ct2p_##SFX *p, const kri_ct2v_##SFX *views,       \
                                  int method, const T *img, T *sino, int64_t nb, int nthreads) \
    {                                                                                          \
        const int64_t rows = nb * p->nviews, npix = (int64_t)p->nx * p->ny;                    \
        _Pragma("omp parallel for schedule(dynamic, 1) num_threads(nthreads)")                 \
        for (int64_t row = 0; row < rows; row++) {                                             \
            const int64_t b = row / p->nviews;                                                 \
            const int v = (int)(row % p->nviews);                                              \
            const T *im = img + b * npix;                                                      \
            T *out = sino + row * p->ndet;                                                     \
            for (int k = 0; k < p->ndet; k++) {                                                \
                kri_ray2_##SFX r;                                                              \
                kri_ct2_ray_##SFX(p, &views[v], k, &r);                                        \
                out[k] = method == KR_CT_SIDDON ? kri_sid_ray_##SFX(p, &r, im)                 \
                                                : kri_jos_ray_##SFX(p, &r, im);                \
            }                                                                                  \
        }                                                                                      \
    }

/* Adjoint: rows in blocks of KRI_ROWS; for each view a table of that view's rays (the same
 * records the forward projector computes) serves the whole block; each pixel sums its views in
 * order, so the result does not depend on the thread count. */
#define KRI_ROWS 16
/* View vw's part of the block of rows j0..j1 - 1 for method M (sid or jos): the view's ray
 * records in the table, then each pixel's gather. */
#define KRI_ADJ_VIEW(T, SFX, M)                                                                \
    {                                                                                          \
        kri_##M##rec_##SFX *t = tab;                                                           \
        for (int k = 0; t && k < p->ndet; k++) kri_##M##rec_make_##SFX(p, vw, k, &t[k]);       \
        for (int j = j0; j < j1; j++) {                                                        \
            T *acc = rows + (int64_t)(j - j0) * p->nx;                                         \
            for (int i = 0; i < p->nx; i++) acc[i] += kri_##M##_gather_##SFX(p, vw, t, sv, i, j); \
        }                                                                                      \
    }
#define KRI_CPU_ADJOINT(T, SFX)                                                                \
    static void kri_cpu_adj_##SFX(const kri_ct2p_##SFX *p, const kri_ct2v_##SFX *views,       \
                                  int method, const T *sino, T *img, int64_t nb, int nthreads) \
    {                                                                                          \
        const int64_t bpi = (p->ny + KRI_ROWS - 1) / KRI_ROWS, blocks = nb * bpi;              \
        const int64_t nsino = (int64_t)p->ndet * p->nviews;                                    \
        const size_t rec = method == KR_CT_SIDDON ? sizeof(kri_sidrec_##SFX)                   \
                                                  : sizeof(kri_josrec_##SFX);                  \
        _Pragma("omp parallel num_threads(nthreads)")                                          \
        {                                                                                      \
            void *tab = kri_malloc((size_t)p->ndet * rec); /* NULL: rays computed per use */   \
            _Pragma("omp for schedule(dynamic, 1)")                                            \
            for (int64_t blk = 0; blk < blocks; blk++) {                                       \
                const int64_t b = blk / bpi;                                                   \
                const int j0 = (int)(blk % bpi) * KRI_ROWS;                                    \
                const int j1 = j0 + KRI_ROWS < p->ny ? j0 + KRI_ROWS : p->ny;                  \
                T *rows = img + (b * p->ny + j0) * (int64_t)p->nx;                             \
                for (int64_t q = 0; q < (int64_t)(j1 - j0) * p->nx; q++) rows[q] = 0;          \
                for (int v = 0; v < p->nviews; v++) {                                          \
                    const kri_ct2v_##SFX *vw = &views[v];                                      \
                    const T *sv = sino + b * nsino + (int64_t)v * p->ndet;                     \
                    if (method == KR_CT_SIDDON)                                                \
                        KRI_ADJ_VIEW(T, SFX, sid)                                              \
                    else                                                                       \
                        KRI_ADJ_VIEW(T, SFX, jos)                                              \
                }                                                                              \
            }                                                                                  \
            kri_free(tab);                                                                     \
        }                                                                                      \
    }

KRI_CPU_FORWARD(float, f32)
KRI_CPU_FORWARD(double, f64)
KRI_CPU_ADJOINT(float, f32)
KRI_CPU_ADJOINT(double, f64)

/* sino = A img (adjoint 0) or img = A^T sino (adjoint 1). */
static void kri_cpu_ct2d(const kr_ct_projector_plan *p, int adjoint, const void *in, void *out,
                         int64_t nb)
{
    const kri_ct2_plan *q = p->p2;
    const int method = p->opts.method;
    int nt = kri_threads(p->ctx);
    if (nt < 1) nt = 1;
    if (p->opts.dtype == KR_F64) {
        if (adjoint)
            kri_cpu_adj_f64(&q->p64, q->views, method, in, out, nb, nt);
        else
            kri_cpu_fwd_f64(&q->p64, q->views, method, in, out, nb, nt);
    } else {
        if (adjoint)
            kri_cpu_adj_f32(&q->p32, q->views, method, in, out, nb, nt);
        else
            kri_cpu_fwd_f32(&q->p32, q->views, method, in, out, nb, nt);
    }
}

static kr_status kri_cpu_ct2d_forward(const kr_ct_projector_plan *p, void *dev, const void *img,
                                      void *sino, int64_t nb)
{
    kri_cpu_ct2d(p, 0, img, sino, nb);
    return KR_OK;
}

static kr_status kri_cpu_ct2d_adjoint(const kr_ct_projector_plan *p, void *dev, const void *sino,
                                      void *img, int64_t nb)
{
    kri_cpu_ct2d(p, 1, sino, img, nb);
    return KR_OK;
}

/* The CPU keeps no state for a plan. */
const kri_ct_backend kri_ct2_cpu = {{"cpu", true}, NULL, NULL, kri_cpu_ct2d_forward,
                                    kri_cpu_ct2d_adjoint, NULL, NULL, NULL};
