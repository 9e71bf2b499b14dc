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

/* The frame of a create verb: a zeroed state of type S (a plan's on its device), filled by
 * fill(p, s); on failure destroy(s) frees what fill made and *out stays NULL. `what` names the
 * plan in the out-of-memory sentence. */
template <typename S, typename P, typename F, typename D>
static kr_status kri_cu_state(const P *p, void **out, F fill, D destroy, const char *what)
{
    *out = NULL;
    S *s = (S *)kri_calloc(1, sizeof(S));
    if (!s) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for %s", what);
    kr_status st = fill(p, s);
    if (st != KR_OK) {
        destroy(s);
        return st;
    }
    *out = s;
    return KR_OK;
}

#endif
