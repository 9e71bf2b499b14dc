// CG-SENSE on the GPU: the per-sample weighting of multi-coil k-space (cgsense_internal.h).
#include <cuda_runtime.h>

#include "core/cuda_util.cuh"
#include "mri/cgsense/cgsense_internal.h"

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

kr_status cuda_weight(const kr_ctx *ctx, int64_t M, int64_t nc, const float *w, float *y)
{
    const int64_t n = M * nc;
    if (n <= 0) return KR_OK;
    int64_t blocks = (n + kThreads - 1) / kThreads;
    if (blocks > 65535 * 4) blocks = 65535 * 4;
    k_cgsense_weight<<<(unsigned)blocks, kThreads, 0, kri_cu_stream(ctx)>>>(M, nc, w,
                                                                           (float2 *)y);
    return kri_cu_launched("k_cgsense_weight");
}

} // namespace

extern "C" const kri_cgsense_backend kri_cgsense_cuda = {{"cuda", true}, cuda_weight};
