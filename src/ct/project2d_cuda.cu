/* 2-D projectors on CUDA: forward one thread per ray (threads of a warp take neighbouring
 * detector pixels of one view, so sinogram writes are coalesced); adjoint one thread per pixel
 * gathering over all views in order (no atomics: each pixel is written once, and the result is
 * reproducible bit for bit). Per-view parameters are staged through shared memory. The
 * arithmetic is project2d_kern.h, shared with the CPU. */
#include "ct_cuda_math.cuh"
#include "project_cuda.cuh"

#include "project2d_internal.h"

#define KHD static __device__ __forceinline__

#define KT float
#define KFN(x) x##_f32
#define KFLOOR floorf
#define KCEIL ceilf
#define KABS fabsf
#include "project2d_kern.h"
#undef KT
#undef KFN
#undef KFLOOR
#undef KCEIL
#undef KABS

#define KT double
#define KFN(x) x##_f64
#define KFLOOR floor
#define KCEIL ceil
#define KABS fabs
#include "project2d_kern.h"
#undef KT
#undef KFN

/* Overloads so the kernels below can be templates. */
#define KRI_OVERLOADS(T, SFX)                                                                  \
    static __device__ __forceinline__ void ray(const kri_ct2p_##SFX *p,                       \
                                               const kri_ct2v_##SFX *v, int k,                \
                                               kri_ray2_##SFX *r)                              \
    {                                                                                          \
        kri_ct2_ray_##SFX(p, v, k, r);                                                         \
    }                                                                                          \
    static __device__ __forceinline__ T jos_ray(const kri_ct2p_##SFX *p,                       \
                                                const kri_ray2_##SFX *r, const T *img)         \
    {                                                                                          \
        return kri_jos_ray_##SFX(p, r, img);                                                   \
    }                                                                                          \
    static __device__ __forceinline__ T sid_ray(const kri_ct2p_##SFX *p,                       \
                                                const kri_ray2_##SFX *r, const T *img)         \
    {                                                                                          \
        return kri_sid_ray_##SFX(p, r, img);                                                   \
    }                                                                                          \
    static __device__ __forceinline__ T jos_gather(const kri_ct2p_##SFX *p,                    \
                                                   const kri_ct2v_##SFX *v, const T *s, int i, \
                                                   int j)                                      \
    {                                                                                          \
        return kri_jos_gather_##SFX(p, v, NULL, s, i, j);                                            \
    }                                                                                          \
    static __device__ __forceinline__ T sid_gather(const kri_ct2p_##SFX *p,                    \
                                                   const kri_ct2v_##SFX *v, const T *s, int i, \
                                                   int j)                                      \
    {                                                                                          \
        return kri_sid_gather_##SFX(p, v, NULL, s, i, j);                                            \
    }
KRI_OVERLOADS(float, f32)
KRI_OVERLOADS(double, f64)

template <typename T> struct kri_types;
template <> struct kri_types<float> {
    typedef kri_ct2p_f32 P;
    typedef kri_ct2v_f32 V;
    typedef kri_ray2_f32 R;
};
template <> struct kri_types<double> {
    typedef kri_ct2p_f64 P;
    typedef kri_ct2v_f64 V;
    typedef kri_ray2_f64 R;
};

#define KRI_FWD_THREADS 128
#define KRI_ADJ_BX 32
#define KRI_ADJ_BY 8
#define KRI_ADJ_VIEWS 128 /* views staged in shared memory at a time */

/* grid: (ceil(ndet / 128), views of this launch from v0, nb) */
template <typename T, int METHOD>
__global__ void k_ct2d_forward(typename kri_types<T>::P p,
                               const typename kri_types<T>::V *__restrict__ views, int v0,
                               const T *__restrict__ img, T *__restrict__ sino)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int v = v0 + blockIdx.y;
    const long long b = blockIdx.z;
    __shared__ typename kri_types<T>::V sv;
    if (threadIdx.x == 0) sv = views[v];
    __syncthreads();
    if (k >= p.ndet) return;
    typename kri_types<T>::R r;
    ray(&p, &sv, k, &r);
    const T *im = img + b * (long long)p.nx * p.ny;
    T val = METHOD == KR_CT_SIDDON ? sid_ray(&p, &r, im) : jos_ray(&p, &r, im);
    sino[(b * p.nviews + v) * (long long)p.ndet + k] = val;
}

/* grid: (ceil(nx / 32), ceil(rows / 8), nb) for the rows from j0; block 32 x 8 */
template <typename T, int METHOD>
__global__ void k_ct2d_adjoint(typename kri_types<T>::P p,
                               const typename kri_types<T>::V *__restrict__ views,
                               int j0, const T *__restrict__ sino, T *__restrict__ img)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int j = j0 + blockIdx.y * blockDim.y + threadIdx.y;
    const long long b = blockIdx.z;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x, nthr = blockDim.x * blockDim.y;
    __shared__ typename kri_types<T>::V sv[KRI_ADJ_VIEWS];
    const bool inside = i < p.nx && j < p.ny;
    const T *sb = sino + b * (long long)p.ndet * p.nviews;
    T acc = 0;
    for (int v0 = 0; v0 < p.nviews; v0 += KRI_ADJ_VIEWS) {
        const int nv = min(KRI_ADJ_VIEWS, p.nviews - v0);
        __syncthreads();
        for (int t = tid; t < nv; t += nthr) sv[t] = views[v0 + t];
        __syncthreads();
        if (!inside) continue;
        for (int t = 0; t < nv; t++) {
            const T *s = sb + (long long)(v0 + t) * p.ndet;
            acc += METHOD == KR_CT_SIDDON ? sid_gather(&p, &sv[t], s, i, j)
                                          : jos_gather(&p, &sv[t], s, i, j);
        }
    }
    if (inside) img[(b * p.ny + j) * (long long)p.nx + i] = acc;
}

/* out = A in (adjoint 0: in the image, out the sinogram) or A^T in (adjoint 1) for nb slices.
 * grid.y is limited to 65535 blocks: the forward launches per 65535 views, the adjoint per band
 * of rows. */
template <typename T>
static kr_status kri_run(const kr_ct_projector_plan *p, const kri_ct2_dev *dev,
                         const typename kri_types<T>::P &prm, int adjoint, const void *in,
                         void *out, int64_t nb)
{
    if (nb > 65535)
        return kri_fail(KR_ERR_NOT_SUPPORTED, "CUDA projector: batch of %lld exceeds 65535",
                        (long long)nb);
    typedef void (*K)(typename kri_types<T>::P, const typename kri_types<T>::V *, int, const T *,
                      T *);
    const bool sid = p->opts.method == KR_CT_SIDDON;
    const K k = adjoint
                    ? (sid ? k_ct2d_adjoint<T, KR_CT_SIDDON> : k_ct2d_adjoint<T, KR_CT_JOSEPH>)
                    : (sid ? k_ct2d_forward<T, KR_CT_SIDDON> : k_ct2d_forward<T, KR_CT_JOSEPH>);
    const char *what =
        adjoint ? "CT adjoint (backprojection) kernel" : "CT forward projection kernel";
    const char *launch = adjoint ? "CT adjoint (backprojection) kernel launch"
                                 : "CT forward projection kernel launch";
    cudaStream_t st = kri_cu_stream(p->ctx);
    const typename kri_types<T>::V *dv = (const typename kri_types<T>::V *)dev->views;
    const int n = adjoint ? prm.ny : prm.nviews, step = adjoint ? 65535 * KRI_ADJ_BY : 65535;
    for (int i0 = 0; i0 < n; i0 += step) {
        const int m = n - i0 < step ? n - i0 : step;
        const dim3 block = adjoint ? dim3(KRI_ADJ_BX, KRI_ADJ_BY) : dim3(KRI_FWD_THREADS);
        const dim3 grid = adjoint ? dim3((prm.nx + KRI_ADJ_BX - 1) / KRI_ADJ_BX,
                                         (m + KRI_ADJ_BY - 1) / KRI_ADJ_BY, (unsigned)nb)
                                  : dim3((prm.ndet + KRI_FWD_THREADS - 1) / KRI_FWD_THREADS, m,
                                         (unsigned)nb);
        k<<<grid, block, 0, st>>>(prm, dv, i0, (const T *)in, (T *)out);
        KRI_TRY(kri_cu_err(cudaGetLastError(), launch));
    }
    return kri_cu_finish(p->ctx, what);
}

static kr_status kri_cuda_ct2d(const kr_ct_projector_plan *p, void *dev, int adjoint, const void *in,
                               void *out, int64_t nb)
{
    KRI_TRY(kri_cuda_set_device(p->ctx));
    const kri_ct2_dev *d = (const kri_ct2_dev *)dev;
    if (p->opts.dtype == KR_F64) return kri_run<double>(p, d, p->p2->p64, adjoint, in, out, nb);
    return kri_run<float>(p, d, p->p2->p32, adjoint, in, out, nb);
}

static kr_status kri_cuda_ct2d_forward(const kr_ct_projector_plan *p, void *dev, const void *img,
                                       void *sino, int64_t nb)
{
    return kri_cuda_ct2d(p, dev, 0, img, sino, nb);
}

static kr_status kri_cuda_ct2d_adjoint(const kr_ct_projector_plan *p, void *dev, const void *sino,
                                       void *img, int64_t nb)
{
    return kri_cuda_ct2d(p, dev, 1, sino, img, nb);
}

static void kri_cuda_ct2d_destroy(void *state)
{
    kri_ct2_dev *dev = (kri_ct2_dev *)state;
    if (!dev) return;
    kri_device_free(dev->views);
    kri_free(dev);
}

/* The plan's per-view parameters on the ctx's device. */
static kr_status kri_cuda_ct2d_fill(const kr_ct_projector_plan *p, kri_ct2_dev *dev)
{
    const size_t bytes =
        (size_t)p->geom->nviews *
        (p->opts.dtype == KR_F64 ? sizeof(kri_ct2v_f64) : sizeof(kri_ct2v_f32));
    KRI_TRY(kri_device_alloc(&dev->views, bytes, kr_ctx_device(p->ctx),
                             "projector view parameters"));
    return kri_memcpy(dev->views, KR_DEVICE, p->p2->views, KR_HOST, bytes, p->ctx);
}

static kr_status kri_cuda_ct2d_create(const kr_ct_projector_plan *p, void **out)
{
    return kri_cu_state<kri_ct2_dev>(p, out, kri_cuda_ct2d_fill, kri_cuda_ct2d_destroy,
                                     "a projector plan");
}

extern "C" const kri_ct_backend kri_ct2_cuda = {{"cuda", true}, kri_cuda_ct2d_create,
                                                kri_cuda_ct2d_destroy, kri_cuda_ct2d_forward,
                                                kri_cuda_ct2d_adjoint, NULL, NULL, NULL};
