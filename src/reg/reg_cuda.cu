// The reg kernels on CUDA (kri_reg_cuda, reg_internal.h): one thread per output scalar (or per
// element for the group kernels) evaluating the per-element math of reg_kern.h, the same
// expressions as the host loops (the compiler may contract products and sums into fused
// multiply-adds here, so results agree with the host to rounding, not bit for bit).
// Reductions: one double partial per chunk of kChunk elements (fixed in-block tree), the
// partials summed on the host in chunk order: deterministic on every run.
#include <cuda_runtime.h>

#include "cuda_util.cuh"
#include "reg_internal.h"
#include "reg_kern.h"

namespace {

constexpr int kThreads = 256;
constexpr int kChunk = 4096;

struct Shift {
    int64_t v[KR_MAX_DIMS];
};

template <typename T>
__global__ void k_reg_fdiff(kri_fdiff_desc d, const T *__restrict__ in, T *__restrict__ out,
                            int64_t ne, int w, int adjoint)
{
    const kri_fdiff_desc *dp = &d;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < ne;
         e += (int64_t)gridDim.x * blockDim.x) {
        if (adjoint)
            KRI_FDIFF_ADJ(T, dp, in, out, e, w);
        else
            KRI_FDIFF_FWD(T, dp, in, out, e, w);
    }
}

template <typename T>
__global__ void k_reg_dwt(kri_dwt_desc d, const T *__restrict__ in, T *__restrict__ out,
                          int64_t ne, int w, int inverse)
{
    const kri_dwt_desc *dp = &d;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < ne;
         e += (int64_t)gridDim.x * blockDim.x)
        KRI_DWT_STEP(T, dp, in, out, e, w, inverse);
}

template <typename T>
__global__ void k_reg_roll(kri_shape s, Shift sh, const T *__restrict__ in, T *__restrict__ out,
                           int w)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < s.n;
         i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t j = kri_roll_src(&s, sh.v, i);
        for (int q = 0; q < w; q++) out[i * w + q] = in[j * w + q];
    }
}

template <typename T>
__global__ void k_reg_group(int kind, int64_t n, int k, int w, T *x, double a, double b)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        KRI_GROUP(T, kind, n, k, w, x, i, a, b);
}

template <typename T>
__global__ void k_reg_mul(int64_t n, int w, T *y, const T *m)
{
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        KRI_MUL(T, w, y, m, i);
}

// One block per chunk: thread t sums elements t, t + kThreads, ... of the chunk in order,
// then a fixed tree.
template <typename T>
__global__ void k_reg_reduce(int kind, int64_t n, int k, int w, const T *__restrict__ x,
                             double a, double b, double *part)
{
    __shared__ double sh[kThreads];
    const int64_t c0 = (int64_t)blockIdx.x * kChunk;
    double s = 0.0;
    for (int64_t i = c0 + threadIdx.x; i < c0 + kChunk && i < n; i += kThreads) {
        double v;
        KRI_REDUCE_TERM(kind, n, k, w, x, i, a, b, v);
        s += v;
    }
    sh[threadIdx.x] = s;
    __syncthreads();
    for (int h = kThreads / 2; h > 0; h >>= 1) {
        if (threadIdx.x < h) sh[threadIdx.x] += sh[threadIdx.x + h];
        __syncthreads();
    }
    if (threadIdx.x == 0) part[blockIdx.x] = sh[0];
}

bool single(kr_dtype t) { return t == KR_F32 || t == KR_C64; }
int width(kr_dtype t) { return kr_dtype_is_complex(t) ? 2 : 1; }

kr_status cu_fdiff(const kr_ctx *ctx, kr_dtype t, const kri_fdiff_desc *d, const void *in,
                   void *out, int adjoint)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    const int w = width(t);
    const int64_t ne = (adjoint ? d->s.n : d->s.n * d->naxes) * w;
    const unsigned g = kri_cu_grid(ne, kThreads);
    if (single(t))
        k_reg_fdiff<float><<<g, kThreads, 0, kri_cu_stream(ctx)>>>(
            *d, (const float *)in, (float *)out, ne, w, adjoint);
    else
        k_reg_fdiff<double><<<g, kThreads, 0, kri_cu_stream(ctx)>>>(
            *d, (const double *)in, (double *)out, ne, w, adjoint);
    return kri_cu_launched("k_reg_fdiff");
}

kr_status cu_dwt(const kr_ctx *ctx, kr_dtype t, const kri_dwt_desc *d, const void *in, void *out,
                 int inverse)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    const int w = width(t);
    const int64_t ne = d->s.n * w;
    const unsigned g = kri_cu_grid(ne, kThreads);
    if (single(t))
        k_reg_dwt<float><<<g, kThreads, 0, kri_cu_stream(ctx)>>>(*d, (const float *)in,
                                                                 (float *)out, ne, w, inverse);
    else
        k_reg_dwt<double><<<g, kThreads, 0, kri_cu_stream(ctx)>>>(*d, (const double *)in,
                                                                  (double *)out, ne, w, inverse);
    return kri_cu_launched("k_reg_dwt");
}

kr_status cu_roll(const kr_ctx *ctx, kr_dtype t, const kri_shape *s, const int64_t *shift,
                  const void *in, void *out)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    Shift sh;
    for (int a = 0; a < KR_MAX_DIMS; a++) sh.v[a] = a < s->ndim ? shift[a] : 0;
    const int w = width(t);
    const unsigned g = kri_cu_grid(s->n, kThreads);
    if (single(t))
        k_reg_roll<float><<<g, kThreads, 0, kri_cu_stream(ctx)>>>(*s, sh, (const float *)in,
                                                                  (float *)out, w);
    else
        k_reg_roll<double><<<g, kThreads, 0, kri_cu_stream(ctx)>>>(*s, sh, (const double *)in,
                                                                   (double *)out, w);
    return kri_cu_launched("k_reg_roll");
}

kr_status cu_group(const kr_ctx *ctx, kr_dtype t, int kind, int64_t n, int k, void *x, double a,
                   double b)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    const int w = width(t);
    const unsigned g = kri_cu_grid(n, kThreads);
    if (single(t))
        k_reg_group<float><<<g, kThreads, 0, kri_cu_stream(ctx)>>>(kind, n, k, w, (float *)x, a, b);
    else
        k_reg_group<double><<<g, kThreads, 0, kri_cu_stream(ctx)>>>(kind, n, k, w, (double *)x, a,
                                                                    b);
    return kri_cu_launched("k_reg_group");
}

kr_status cu_mul(const kr_ctx *ctx, kr_dtype t, int64_t n, void *y, const void *m)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    const int w = width(t);
    const unsigned g = kri_cu_grid(n, kThreads);
    if (single(t))
        k_reg_mul<float><<<g, kThreads, 0, kri_cu_stream(ctx)>>>(n, w, (float *)y,
                                                                 (const float *)m);
    else
        k_reg_mul<double><<<g, kThreads, 0, kri_cu_stream(ctx)>>>(n, w, (double *)y,
                                                                  (const double *)m);
    return kri_cu_launched("k_reg_mul");
}

kr_status cu_reduce(const kr_ctx *ctx, kr_dtype t, int kind, int64_t n, int k, const void *x,
                    double a, double b, double *out)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    const int w = width(t);
    const int64_t nchunk = (n + kChunk - 1) / kChunk;
    *out = 0.0;
    if (nchunk == 0) return KR_OK;
    cudaStream_t st = kri_cu_stream(ctx);
    double *part = nullptr;
    KRI_TRY(kri_cu_err(cudaMallocAsync((void **)&part, (size_t)nchunk * sizeof(double), st),
                       "cudaMallocAsync (reduction partials)"));
    if (single(t))
        k_reg_reduce<float><<<(unsigned)nchunk, kThreads, 0, st>>>(kind, n, k, w,
                                                                   (const float *)x, a, b, part);
    else
        k_reg_reduce<double><<<(unsigned)nchunk, kThreads, 0, st>>>(kind, n, k, w,
                                                                    (const double *)x, a, b, part);
    kr_status s = kri_cu_launched("k_reg_reduce");
    double *host = (double *)kri_malloc((size_t)nchunk * sizeof(double));
    if (s == KR_OK && !host) s = kri_fail(KR_ERR_OOM_HOST, "reduction partials");
    if (s == KR_OK)
        s = kri_cu_err(cudaMemcpyAsync(host, part, (size_t)nchunk * sizeof(double),
                                       cudaMemcpyDeviceToHost, st),
                       "cudaMemcpyAsync (reduction partials)");
    (void)cudaFreeAsync(part, st);
    if (s == KR_OK) s = kri_cu_err(cudaStreamSynchronize(st), "cudaStreamSynchronize");
    if (s == KR_OK) {
        double sum = 0.0;
        for (int64_t c = 0; c < nchunk; c++) sum += host[c];
        *out = sum;
    }
    kri_free(host);
    return s;
}

} // namespace

extern "C" const kri_reg_backend kri_reg_cuda = {
    {"cuda", true}, cu_fdiff, cu_dwt, cu_roll, cu_group, cu_reduce, cu_mul,
};
