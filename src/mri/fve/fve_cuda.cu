/* FVE single voxels on the GPU (kray/fve.h): one 256-thread block per output (encode, frame,
 * coil, voxel); threads stride over the samples of the voxel's slice column (coalesced reads),
 * accumulate in double and reduce in shared memory by a fixed tree (deterministic). */
#include "core/cplx_cuda.cuh"
#include "core/internal.h"
#include "mri/fve/fve_internal.h"

#include <cuda_runtime.h>
#include <stdint.h>

#define KRI_FVE_THREADS 256

__global__ void k_fve_voxels(const double2 *ph, const int64_t *slice, int64_t nvox, int64_t M,
                             int64_t S, int64_t E, int64_t T, int64_t C, const float2 *data,
                             float2 *out, int *flag)
{
    __shared__ double sr[KRI_FVE_THREADS], si[KRI_FVE_THREADS];
    const int64_t j = blockIdx.x;
    if (j >= E * T * C * nvox) return; /* uniform per block */
    const int64_t ev = j % E, t = (j / E) % T, c = (j / (E * T)) % C, v = j / (E * T * C);
    const float2 *col = data + M * (slice[v] + S * (ev + E * (t + T * c)));
    const double2 *p = ph + v * M;
    double ar = 0, ai = 0;
    for (int64_t m = threadIdx.x; m < M; m += KRI_FVE_THREADS) {
        const double2 t = kri_cmul(p[m], kri_cload_d(col, m));
        ar += t.x;
        ai += t.y;
    }
    sr[threadIdx.x] = ar;
    si[threadIdx.x] = ai;
    __syncthreads();
    for (int h = KRI_FVE_THREADS / 2; h > 0; h >>= 1) {
        if ((int)threadIdx.x < h) {
            sr[threadIdx.x] += sr[threadIdx.x + h];
            si[threadIdx.x] += si[threadIdx.x + h];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        const float2 r = make_float2((float)sr[0], (float)si[0]);
        out[j] = r;
        if (!isfinite(r.x) || !isfinite(r.y)) atomicOr(flag, 1);
    }
}

/* ph[v M + m] = w_m exp(2 pi i c) / n^2, c = (kx x_v + ky y_v) / n mod 1 (kr_fve_voxels). */
__global__ void k_fve_phases(const double *k, const double *w, const double *vox, int64_t nvox,
                             int64_t M, double n, double2 *ph)
{
    const int64_t q = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (q >= nvox * M) return;
    const int64_t v = q / M, m = q % M;
    const double c = fmod((k[3 * m] * vox[3 * v] + k[3 * m + 1] * vox[3 * v + 1]) / n, 1.0);
    const double a = (w ? w[m] : 1.0) / (n * n);
    double sn, cs;
    sincospi(2.0 * c, &sn, &cs);
    ph[q] = kri_cscale(make_double2(cs, sn), a);
}

static kr_status kri_cuda_fve_voxels(const kr_ctx *ctx, const double *k, const double *w,
                                     const double *vox, int64_t n, const int64_t *slice,
                                     int64_t nvox, int64_t M, int64_t S, int64_t E, int64_t T,
                                     int64_t C, const void *data, void *out, int *nonfinite)
{
    kr_status s = KR_OK;
    double2 *dph = nullptr;
    int64_t *dsl = nullptr;
    cudaError_t e = cudaSuccess;
    const int64_t nout = E * T * C * nvox;
    cudaStream_t st = (cudaStream_t)kr_ctx_stream(ctx);
    KRI_TRY(kri_cuda_set_device(ctx));
    if (nout > 2147483647ll)
        return kri_fail(KR_ERR_NOT_SUPPORTED, "FVE voxels: %lld outputs in one launch are too many",
                        (long long)nout);
    /* stream-ordered allocations: no device-wide synchronisation per call */
    int *dflag = nullptr;
    int hflag = 0;
    double *dk = nullptr, *dw = nullptr, *dvox = nullptr;
    e = cudaMallocAsync((void **)&dph, (size_t)(nvox * M) * sizeof(double2), st);
    if (e == cudaSuccess) e = cudaMallocAsync((void **)&dk, (size_t)(3 * M) * sizeof(double), st);
    if (e == cudaSuccess && w) e = cudaMallocAsync((void **)&dw, (size_t)M * sizeof(double), st);
    if (e == cudaSuccess) e = cudaMallocAsync((void **)&dvox, (size_t)(3 * nvox) * sizeof(double), st);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(dk, k, (size_t)(3 * M) * sizeof(double), cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess && w)
        e = cudaMemcpyAsync(dw, w, (size_t)M * sizeof(double), cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(dvox, vox, (size_t)(3 * nvox) * sizeof(double), cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess) {
        const int64_t nq = nvox * M;
        k_fve_phases<<<(unsigned)((nq + 255) / 256), 256, 0, st>>>(dk, dw, dvox, nvox, M, (double)n,
                                                                   dph);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMallocAsync((void **)&dsl, (size_t)nvox * sizeof(int64_t), st);
    if (e == cudaSuccess) e = cudaMallocAsync((void **)&dflag, sizeof(int), st);
    if (e == cudaSuccess) e = cudaMemsetAsync(dflag, 0, sizeof(int), st);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(dsl, slice, (size_t)nvox * sizeof(int64_t), cudaMemcpyHostToDevice, st);
    if (e == cudaSuccess) {
        k_fve_voxels<<<(unsigned)nout, KRI_FVE_THREADS, 0, st>>>(dph, dsl, nvox, M, S, E, T, C,
                                                                (const float2 *)data, (float2 *)out,
                                                                dflag);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaMemcpyAsync(&hflag, dflag, sizeof(int), cudaMemcpyDeviceToHost, st);
    if (dph) cudaFreeAsync(dph, st);
    if (dsl) cudaFreeAsync(dsl, st);
    if (dflag) cudaFreeAsync(dflag, st);
    if (dk) cudaFreeAsync(dk, st);
    if (dw) cudaFreeAsync(dw, st);
    if (dvox) cudaFreeAsync(dvox, st);
    if (e == cudaSuccess) e = cudaStreamSynchronize(st);
    if (e != cudaSuccess)
        s = kri_fail(KR_ERR_CUDA, "FVE voxels on the GPU failed: %s", cudaGetErrorString(e));
    *nonfinite = hflag;
    return s;
}

extern "C" const kri_fve_backend kri_fve_cuda = {{"cuda", true}, kri_cuda_fve_voxels};
