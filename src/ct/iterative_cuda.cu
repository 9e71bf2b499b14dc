/* Elementwise kernels of the SIRT plan (iterative.c): fill, guarded reciprocal with a count of
 * bad entries, product and clamp at zero, f32 and f64, grid-stride, on the ctx's stream. */
#include <cuda_runtime.h>

#include "iterative_internal.h"

#define KRI_EW_THREADS 256

static unsigned kri_ew_blocks(long long n)
{
    long long b = (n + KRI_EW_THREADS - 1) / KRI_EW_THREADS;
    if (b > 65535LL * 8) b = 65535LL * 8;
    return (unsigned)(b < 1 ? 1 : b);
}

static kr_status kri_ew_check(const char *what)
{
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return kri_fail(KR_ERR_CUDA, "SIRT: %s kernel launch failed: %s", what,
                        cudaGetErrorString(e));
    return KR_OK;
}

template <typename T> __global__ void k_sirt_fill(long long n, T *x, T v)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        x[i] = v;
}

template <typename T> __global__ void k_sirt_recip(long long n, T *x, unsigned long long *bad)
{
    unsigned long long b = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        T a = x[i];
        if (!isfinite(a) || a < 0) b++;
        x[i] = a > 0 && isfinite(a) ? (T)1 / a : (T)0;
    }
    if (b) atomicAdd(bad, b);
}

template <typename T> __global__ void k_sirt_mul(long long n, T *x, const T *__restrict__ w)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        x[i] *= w[i];
}

template <typename T> __global__ void k_sirt_clamp0(long long n, T *x)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        if (x[i] < 0) x[i] = 0;
}

static kr_status kri_cuda_sirt_fill(const kr_ctx *ctx, kr_dtype t, int64_t n, void *x,
                                    double v)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    cudaStream_t st = (cudaStream_t)kr_ctx_stream(ctx);
    if (t == KR_F64)
        k_sirt_fill<double><<<kri_ew_blocks(n), KRI_EW_THREADS, 0, st>>>(n, (double *)x, v);
    else
        k_sirt_fill<float><<<kri_ew_blocks(n), KRI_EW_THREADS, 0, st>>>(n, (float *)x, (float)v);
    return kri_ew_check("fill");
}

static kr_status kri_cuda_sirt_recip(const kr_ctx *ctx, kr_dtype t, int64_t n, void *x,
                                     int64_t *nbad)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    cudaStream_t st = (cudaStream_t)kr_ctx_stream(ctx);
    unsigned long long *d = NULL, h = 0;
    cudaError_t e = cudaMalloc((void **)&d, sizeof h);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return kri_fail(KR_ERR_OOM_DEVICE, "SIRT: cannot allocate a device counter: %s",
                        cudaGetErrorString(e));
    }
    kr_status s = KR_OK;
    e = cudaMemsetAsync(d, 0, sizeof h, st);
    if (e == cudaSuccess) {
        if (t == KR_F64)
            k_sirt_recip<double><<<kri_ew_blocks(n), KRI_EW_THREADS, 0, st>>>(n, (double *)x, d);
        else
            k_sirt_recip<float><<<kri_ew_blocks(n), KRI_EW_THREADS, 0, st>>>(n, (float *)x, d);
        s = kri_ew_check("reciprocal");
        if (s == KR_OK) e = cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, st);
        if (s == KR_OK && e == cudaSuccess) e = cudaStreamSynchronize(st);
    }
    if (s == KR_OK && e != cudaSuccess) {
        cudaGetLastError();
        s = kri_fail(KR_ERR_CUDA, "SIRT: reciprocal of the weights failed: %s",
                     cudaGetErrorString(e));
    }
    cudaFree(d);
    if (s == KR_OK) *nbad = (int64_t)h;
    return s;
}

static kr_status kri_cuda_sirt_mul(const kr_ctx *ctx, kr_dtype t, int64_t n, void *x,
                                   const void *w)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    cudaStream_t st = (cudaStream_t)kr_ctx_stream(ctx);
    if (t == KR_F64)
        k_sirt_mul<double>
            <<<kri_ew_blocks(n), KRI_EW_THREADS, 0, st>>>(n, (double *)x, (const double *)w);
    else
        k_sirt_mul<float>
            <<<kri_ew_blocks(n), KRI_EW_THREADS, 0, st>>>(n, (float *)x, (const float *)w);
    return kri_ew_check("product");
}

static kr_status kri_cuda_sirt_clamp0(const kr_ctx *ctx, kr_dtype t, int64_t n, void *x)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    cudaStream_t st = (cudaStream_t)kr_ctx_stream(ctx);
    if (t == KR_F64)
        k_sirt_clamp0<double><<<kri_ew_blocks(n), KRI_EW_THREADS, 0, st>>>(n, (double *)x);
    else
        k_sirt_clamp0<float><<<kri_ew_blocks(n), KRI_EW_THREADS, 0, st>>>(n, (float *)x);
    return kri_ew_check("clamp");
}

extern "C" const kri_sirt_backend kri_sirt_cuda = {{"cuda", true}, kri_cuda_sirt_fill,
                                                   kri_cuda_sirt_recip, kri_cuda_sirt_mul,
                                                   kri_cuda_sirt_clamp0};
