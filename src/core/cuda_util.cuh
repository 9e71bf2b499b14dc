/* Small host-side helpers shared by the CUDA sources (private; include after internal.h):
 * the launch check, the check of a runtime call, the ctx's stream and the grid of a grid-stride
 * loop. Device selection is
 * kri_cuda_set_device (internal.h). */
#ifndef KRAY_CUDA_UTIL_CUH
#define KRAY_CUDA_UTIL_CUH

#include <cuda_runtime.h>

#include "internal.h"

/* KR_OK, or KR_ERR_CUDA naming the kernel when its launch failed. */
static inline kr_status kri_cu_launched(const char *kernel)
{
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return kri_fail(KR_ERR_CUDA, "launching %s failed: %s", kernel, cudaGetErrorString(e));
    return KR_OK;
}

/* KR_OK, or KR_ERR_CUDA "WHAT failed: reason" for a failed runtime call (the error cleared). */
static inline kr_status kri_cu_err(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return KR_OK;
    (void)cudaGetLastError();
    return kri_fail(KR_ERR_CUDA, "%s failed: %s", what, cudaGetErrorString(e));
}

static inline cudaStream_t kri_cu_stream(const kr_ctx *ctx)
{
    return (cudaStream_t)kr_ctx_stream(ctx);
}

/* Blocks of `threads` for a grid-stride loop over n elements: at least 1, at most 65535 * 16. */
static inline unsigned kri_cu_grid(int64_t n, int threads)
{
    int64_t b = (n + threads - 1) / threads;
    if (b > 65535 * 16) b = 65535 * 16;
    if (b < 1) b = 1;
    return (unsigned)b;
}

#endif
