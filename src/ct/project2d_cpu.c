/* 2-D projectors on the CPU: serial reference and OpenMP, bit-identical by construction (every
 * output value is computed by one thread with a fixed order of operations: the forward
 * projector is ray-driven, the adjoint a pixel-driven gather summing views in order). */
#include "project2d_internal.h"

#include <math.h>

#define KHD static inline
#define KMUL(a, b) ((a) * (b))
#define KADD(a, b) ((a) + (b))
#define KSUB(a, b) ((a) - (b))
#define KDIV(a, b) ((a) / (b))

#define KT float
#define KFN(x) x##_f32
#define KSQRT sqrtf
#define KFLOOR floorf
#define KCEIL ceilf
#define KABS fabsf
#define KSIN sinf
#define KCOS cosf
#define KATAN2 atan2f
#include "project2d_kern.h"
#undef KT
#undef KFN
#undef KSQRT
#undef KFLOOR
#undef KCEIL
#undef KABS
#undef KSIN
#undef KCOS
#undef KATAN2

#define KT double
#define KFN(x) x##_f64
#define KSQRT sqrt
#define KFLOOR floor
#define KCEIL ceil
#define KABS fabs
#define KSIN sin
#define KCOS cos
#define KATAN2 atan2
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

#define KRI_CPU_ADJOINT(T, SFX)                                                                \
    static void kri_cpu_adj_##SFX(const kri_ct2p_##SFX *p, const kri_ct2v_##SFX *views,       \
                                  int method, const T *sino, T *img, int64_t nb, int nthreads) \
    {                                                                                          \
        const int64_t rows = nb * p->ny, nsino = (int64_t)p->ndet * p->nviews;                 \
        _Pragma("omp parallel for schedule(dynamic, 1) num_threads(nthreads)")                 \
        for (int64_t row = 0; row < rows; row++) {                                             \
            const int64_t b = row / p->ny;                                                     \
            const int j = (int)(row % p->ny);                                                  \
            T *acc = img + row * p->nx; /* this row is written by this thread only */         \
            for (int i = 0; i < p->nx; i++) acc[i] = 0;                                        \
            for (int v = 0; v < p->nviews; v++) {                                              \
                const T *sv = sino + b * nsino + (int64_t)v * p->ndet;                         \
                for (int i = 0; i < p->nx; i++)                                                \
                    acc[i] += method == KR_CT_SIDDON                                           \
                                  ? kri_sid_gather_##SFX(p, &views[v], sv, i, j)               \
                                  : kri_jos_gather_##SFX(p, &views[v], sv, i, j);              \
            }                                                                                  \
        }                                                                                      \
    }

KRI_CPU_FORWARD(float, f32)
KRI_CPU_FORWARD(double, f64)
KRI_CPU_ADJOINT(float, f32)
KRI_CPU_ADJOINT(double, f64)

void kri_cpu_ct2d_forward(const kr_ct_projector *p, const void *img, void *sino, int64_t nb,
                          int nthreads)
{
    if (nthreads < 1) nthreads = 1;
    if (p->opts.dtype == KR_F64)
        kri_cpu_fwd_f64(&p->p64, p->views, p->opts.method, img, sino, nb, nthreads);
    else
        kri_cpu_fwd_f32(&p->p32, p->views, p->opts.method, img, sino, nb, nthreads);
}

void kri_cpu_ct2d_adjoint(const kr_ct_projector *p, const void *sino, void *img, int64_t nb,
                          int nthreads)
{
    if (nthreads < 1) nthreads = 1;
    if (p->opts.dtype == KR_F64)
        kri_cpu_adj_f64(&p->p64, p->views, p->opts.method, sino, img, nb, nthreads);
    else
        kri_cpu_adj_f32(&p->p32, p->views, p->opts.method, sino, img, nb, nthreads);
}
