/* The NaN / Inf census on the device: a grid-stride kernel keeps the smallest index of a
 * non-finite value by atomicMin, and one read-back gives it to the host. */
#include "core/internal.h"
#include "mri/nonfinite_internal.h"

#include <cuda_runtime.h>

#include <stdint.h>

template <typename T>
__global__ void k_first_nonfinite(const T *__restrict__ p, long long n, unsigned long long *first)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        if (!isfinite(p[i])) atomicMin(first, (unsigned long long)i);
}

static kr_status kri_cuda_first_nonfinite(const kr_ctx *ctx, kr_dtype rt, const void *p,
                                          int64_t n, int64_t *first)
{
    *first = -1;
    KRI_TRY(kri_cuda_set_device(ctx));
    cudaStream_t st = (cudaStream_t)kr_ctx_stream(ctx);
    unsigned long long *dflag = nullptr, h = ~0ull;
    cudaError_t e = cudaMalloc((void **)&dflag, sizeof h);
    if (e != cudaSuccess)
        return kri_fail(KR_ERR_CUDA, "NaN / Inf check: cudaMalloc(flag) failed: %s",
                        cudaGetErrorString(e));
    e = cudaMemcpyAsync(dflag, &h, sizeof h, cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess) {
        long long blocks = (n + 255) / 256;
        if (blocks > 4096) blocks = 4096;
        if (blocks < 1) blocks = 1;
        if (rt == KR_F64)
            k_first_nonfinite<double><<<(unsigned)blocks, 256, 0, st>>>((const double *)p, n, dflag);
        else
            k_first_nonfinite<float><<<(unsigned)blocks, 256, 0, st>>>((const float *)p, n, dflag);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMemcpyAsync(&h, dflag, sizeof h, cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    cudaFree(dflag);
    if (e != cudaSuccess)
        return kri_fail(KR_ERR_CUDA, "NaN / Inf check: checking the data for NaN failed: %s",
                        cudaGetErrorString(e));
    *first = h == ~0ull ? -1 : (int64_t)h;
    return KR_OK;
}

extern "C" const kri_nonfinite_backend kri_nonfinite_cuda = {{"cuda", true},
                                                            kri_cuda_first_nonfinite};
