/* What the CT projectors' CUDA sources share (private; host side): cuda_util.cuh and the end of
 * a sequence of launches on the ctx's stream. */
#ifndef KRAY_CT_PROJECT_CUDA_CUH
#define KRAY_CT_PROJECT_CUDA_CUH

#include "cuda_util.cuh"

/* KR_OK once the launches before it succeeded and the ctx's stream ran them; KR_ERR_CUDA
 * naming `what` otherwise. */
static inline kr_status kri_cu_finish(const kr_ctx *ctx, const char *what)
{
    KRI_TRY(kri_cu_err(cudaGetLastError(), what));
    cudaError_t e = cudaStreamSynchronize((cudaStream_t)kr_ctx_stream(ctx));
    if (e != cudaSuccess)
        return kri_fail(KR_ERR_CUDA, "%s failed while running: %s", what, cudaGetErrorString(e));
    return KR_OK;
}

#endif
