/* Projection arrays on CUDA: the count of non-finite values behind kr_ct_check_projections. */
#include "project_cuda.cuh"
#include "projections_internal.h"

template <typename T>
__global__ void k_count_nonfinite(long long n, const T *__restrict__ x,
                                  unsigned long long *out /* nan, inf, first */)
{
    unsigned long long nn = 0, ni = 0, first = ~0ull;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        T v = x[i];
        if (isfinite(v)) continue;
        if (isnan(v))
            nn++;
        else
            ni++;
        if ((unsigned long long)i < first) first = (unsigned long long)i;
    }
    if (nn) atomicAdd(&out[0], nn);
    if (ni) atomicAdd(&out[1], ni);
    if (first != ~0ull) atomicMin(&out[2], first);
}

static kr_status kri_cuda_count_nonfinite(const kr_ctx *ctx, kr_dtype t, int64_t n,
                                          const void *x, int64_t *nnan, int64_t *ninf,
                                          int64_t *first)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    cudaStream_t st = (cudaStream_t)kr_ctx_stream(ctx);
    unsigned long long *d = NULL, h[3] = {0, 0, ~0ull};
    if (cudaMalloc((void **)&d, sizeof h) != cudaSuccess) {
        cudaGetLastError();
        return kri_fail(KR_ERR_OOM_DEVICE, "cannot allocate 24 bytes of device memory to count "
                                           "non-finite values");
    }
    kr_status s = KR_OK;
    s = kri_cu_err(cudaMemcpyAsync(d, h, sizeof h, cudaMemcpyHostToDevice, st),
                   "counting non-finite values: copy");
    long long blocks = (n + 255) / 256;
    if (blocks > 4096) blocks = 4096;
    if (blocks < 1) blocks = 1;
    if (s == KR_OK) {
        if (t == KR_F64)
            k_count_nonfinite<double><<<(unsigned)blocks, 256, 0, st>>>(n, (const double *)x, d);
        else
            k_count_nonfinite<float><<<(unsigned)blocks, 256, 0, st>>>(n, (const float *)x, d);
        s = kri_cu_err(cudaGetLastError(), "counting non-finite values: kernel launch");
    }
    if (s == KR_OK)
        s = kri_cu_err(cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, st),
                       "counting non-finite values: copy back");
    if (s == KR_OK) s = kri_cu_finish(ctx, "counting non-finite values");
    cudaFree(d);
    if (s != KR_OK) return s;
    *nnan = (int64_t)h[0];
    *ninf = (int64_t)h[1];
    *first = h[2] == ~0ull ? -1 : (int64_t)h[2];
    return KR_OK;
}

extern "C" const kri_ctproj_backend kri_ctproj_cuda = {{"cuda", true}, kri_cuda_count_nonfinite};
