/* Coil sensitivity maps on the GPU (kri_coils_cuda, coils_internal.h): one thread per voxel and
 * coil, the same double-precision closed form as the CPU twin (kri_loop_field), so the two
 * agree to a few units in the last place of double before the final rounding to the output
 * type. */
#include "sim/coils_internal.h"

#include <cuda_runtime.h>

namespace
{

struct Grid {
    double o[3], d[3];
    long long n[3];
};

template <typename T>
__global__ void k_coil_maps(const kri_coil_dev *__restrict__ coils, int ncoils, Grid g, double wire,
                            double tol, double gain, T *__restrict__ out)
{
    const long long npts = g.n[0] * g.n[1] * g.n[2];
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= npts * ncoils) return;
    const long long p = j % npts;
    const int c = (int)(j / npts);
    const long long i = p % g.n[0], jj = (p / g.n[0]) % g.n[1], k = p / (g.n[0] * g.n[1]);
    const kri_coil_dev cd = coils[c];
    double B[3] = {0.0, 0.0, 0.0};
    kri_loop_field(&cd, g.o[0] + (double)i * g.d[0], g.o[1] + (double)jj * g.d[1],
                   g.o[2] + (double)k * g.d[2], wire, tol, B);
    out[2 * j] = (T)(B[0] * gain);
    out[2 * j + 1] = (T)(-B[1] * gain);
}

} // namespace

static kr_status kri_cuda_coil_maps(const kr_ctx *ctx, const kri_coil_dev *coils, int ncoils,
                                    const kri_coil_grid *grid, int is_double, void *out_dev)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    cudaStream_t stream = (cudaStream_t)kr_ctx_stream(ctx);
    kri_coil_dev *d = NULL;
    cudaError_t e = cudaMalloc((void **)&d, (size_t)ncoils * sizeof *d);
    if (e == cudaErrorMemoryAllocation)
        return kri_fail(KR_ERR_OOM_DEVICE, "out of device memory for the coil table");
    if (e == cudaSuccess)
        e = cudaMemcpy(d, coils, (size_t)ncoils * sizeof *d, cudaMemcpyHostToDevice);
    const int64_t *n = grid->n;
    const double wire_mm = grid->wire, tol = grid->tol, gain = grid->gain;
    Grid g;
    for (int a = 0; a < 3; a++) {
        g.o[a] = grid->origin[a];
        g.d[a] = grid->step[a];
        g.n[a] = n[a];
    }
    const long long total = n[0] * n[1] * n[2] * (long long)ncoils;
    const int th = 128;
    const long long nb = (total + th - 1) / th;
    if (e == cudaSuccess && nb > 0x7fffffffLL) {
        cudaFree(d);
        return kri_fail(KR_ERR_DIM, "coil maps of %lld values are too large for one launch", total);
    }
    if (e == cudaSuccess) {
        if (is_double)
            k_coil_maps<double><<<(unsigned)nb, th, 0, stream>>>(d, ncoils, g, wire_mm, tol, gain,
                                                                 (double *)out_dev);
        else
            k_coil_maps<float><<<(unsigned)nb, th, 0, stream>>>(d, ncoils, g, wire_mm, tol, gain,
                                                                (float *)out_dev);
        e = cudaGetLastError();
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    cudaFree(d);
    if (e != cudaSuccess)
        return kri_fail(KR_ERR_CUDA, "coil maps on the GPU failed: %s", cudaGetErrorString(e));
    return KR_OK;
}

extern "C" const kri_coils_backend kri_coils_cuda = {{"cuda", true}, kri_cuda_coil_maps};
