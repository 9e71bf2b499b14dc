// CG-SENSE device pieces: the per-sample weighting of multi-coil k-space.
#include "mri/cgsense/cgsense_internal.h"
#include "internal.h"

#include <cuda_runtime.h>

namespace {

constexpr int kThreads = 256;

__global__ void k_cgsense_weight(int64_t M, int64_t nc, const float *__restrict__ w,
                                 float2 *__restrict__ y)
{
    const int64_t n = M * nc;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        const float s = w[i % M];
        const float2 v = y[i];
        y[i] = make_float2(__fmul_rn(v.x, s), __fmul_rn(v.y, s));
    }
}

} // namespace

extern "C" kr_status kri_cuda_cgsense_weight(int64_t M, int64_t nc, const float *w, float *y,
                                             void *stream)
{
    const int64_t n = M * nc;
    if (n <= 0) return KR_OK;
    int64_t blocks = (n + kThreads - 1) / kThreads;
    if (blocks > 65535 * 4) blocks = 65535 * 4;
    k_cgsense_weight<<<(unsigned)blocks, kThreads, 0, (cudaStream_t)stream>>>(M, nc, w,
                                                                             (float2 *)y);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return kri_fail(KR_ERR_CUDA, "launching k_cgsense_weight failed: %s",
                        cudaGetErrorString(e));
    return KR_OK;
}
