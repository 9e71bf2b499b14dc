// Dense matrix operator on the device (kri_matrix_cuda, solve_internal.h): one thread per output,
// accumulated in double in index order with explicitly rounded operations, the same arithmetic
// as the host's (linop_cpu.c). Meant for tests and small problems (rows are not read coalesced).
#include <cuda_runtime.h>

#include "internal.h"
#include "solve_internal.h"

namespace {

constexpr int kThreads = 128;

template <typename T, bool C>
__global__ void k_matvec(int64_t m, int64_t n, const T *__restrict__ M, const T *__restrict__ v,
                         T *__restrict__ w, int adjoint)
{
    const int64_t nout = adjoint ? n : m, nin = adjoint ? m : n;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t o = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; o < nout; o += stride) {
        if (!C) {
            double acc = 0.0;
            for (int64_t k = 0; k < nin; k++) {
                const int64_t idx = adjoint ? k * n + o : o * n + k;
                acc = __dadd_rn(acc, __dmul_rn((double)M[idx], (double)v[k]));
            }
            w[o] = (T)acc;
        } else {
            const double sg = adjoint ? -1.0 : 1.0;
            double ar = 0.0, ai = 0.0;
            for (int64_t k = 0; k < nin; k++) {
                const int64_t idx = adjoint ? k * n + o : o * n + k;
                const double mr = M[2 * idx], mi = __dmul_rn(sg, (double)M[2 * idx + 1]);
                const double vr = v[2 * k], vi = v[2 * k + 1];
                ar = __dadd_rn(ar, __dsub_rn(__dmul_rn(mr, vr), __dmul_rn(mi, vi)));
                ai = __dadd_rn(ai, __dadd_rn(__dmul_rn(mr, vi), __dmul_rn(mi, vr)));
            }
            w[2 * o] = (T)ar;
            w[2 * o + 1] = (T)ai;
        }
    }
}

template <typename T, bool C>
kr_status launch(const kr_ctx *ctx, int64_t m, int64_t n, const void *M, const void *in,
                 void *out, int adjoint)
{
    const int64_t nout = adjoint ? n : m;
    int64_t blocks = (nout + kThreads - 1) / kThreads;
    if (blocks > 65536) blocks = 65536;
    k_matvec<T, C><<<(unsigned)blocks, kThreads, 0, (cudaStream_t)kr_ctx_stream(ctx)>>>(
        m, n, static_cast<const T *>(M), static_cast<const T *>(in), static_cast<T *>(out),
        adjoint);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return kri_fail(KR_ERR_CUDA, "launching k_matvec failed: %s", cudaGetErrorString(e));
    return KR_OK;
}

} // namespace

static kr_status kri_cuda_matvec(const kr_ctx *ctx, kr_dtype t, int64_t m, int64_t n,
                                 const void *M, const void *in, void *out, int adjoint)
{
    cudaError_t e = cudaSetDevice(kr_ctx_device(ctx));
    if (e != cudaSuccess)
        return kri_fail(KR_ERR_CUDA, "cudaSetDevice(%d) failed: %s", kr_ctx_device(ctx),
                        cudaGetErrorString(e));
    switch (t) {
    case KR_F32: return launch<float, false>(ctx, m, n, M, in, out, adjoint);
    case KR_F64: return launch<double, false>(ctx, m, n, M, in, out, adjoint);
    case KR_C64: return launch<float, true>(ctx, m, n, M, in, out, adjoint);
    case KR_C128: return launch<double, true>(ctx, m, n, M, in, out, adjoint);
    default: return kri_fail(KR_ERR_DTYPE, "device matrix operator on %s", kr_dtype_name(t));
    }
}

// The matrix lives on the ctx's device.
static kr_status kri_cuda_matrix_create(void **M, const kr_ctx *ctx, size_t bytes,
                                        const void *host)
{
    KRI_TRY(kri_device_alloc(M, bytes, kr_ctx_device(ctx), "a matrix operator"));
    return kri_memcpy(*M, KR_DEVICE, host, KR_HOST, bytes, ctx);
}

extern "C" const kri_matrix_backend kri_matrix_cuda = {{"cuda", true}, kri_cuda_matrix_create,
                                                       kri_cuda_matvec, kri_device_free};
