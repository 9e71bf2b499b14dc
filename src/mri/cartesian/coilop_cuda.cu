// Coil-array operations on the GPU (coilop_internal.h): grid-stride kernels for image x maps,
// the conjugate coil sum and line masks.
#include <cuda_runtime.h>

#include "core/cuda_util.cuh"
#include "mri/cartesian/coilop_internal.h"

namespace
{

constexpr int kThreads = 128;

unsigned grid_stride(int64_t n)
{
    int64_t b = (n + kThreads - 1) / kThreads;
    if (b > 65536) b = 65536;
    if (b < 1) b = 1;
    return (unsigned)b;
}

__global__ void k_sense_mask(int64_t nx, int64_t ny, int64_t rest, float2 *data,
                             const uint8_t *__restrict__ lines)
{
    const int64_t n = nx * ny * rest;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        if (!lines[(i / nx) % ny]) data[i] = make_float2(0.f, 0.f);
}

__global__ void k_coil_expand(int64_t nxy, int64_t nc, const float2 *__restrict__ maps,
                              const float *__restrict__ img, int cplx, float2 *__restrict__ out)
{
    const int64_t n = nxy * nc;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        const int64_t p = i % nxy;
        const float ar = cplx ? img[2 * p] : img[p], ai = cplx ? img[2 * p + 1] : 0.f;
        const float2 s = maps[i];
        out[i] = make_float2(__fsub_rn(__fmul_rn(s.x, ar), __fmul_rn(s.y, ai)),
                             __fadd_rn(__fmul_rn(s.x, ai), __fmul_rn(s.y, ar)));
    }
}

__global__ void k_sense_reduce(int64_t nxy, int64_t nc, const float2 *__restrict__ maps,
                               const float2 *__restrict__ coil, float2 *__restrict__ img)
{
    for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < nxy;
         p += (int64_t)gridDim.x * blockDim.x) {
        double re = 0, im = 0;
        for (int64_t c = 0; c < nc; c++) {
            const float2 s = maps[p + nxy * c], a = coil[p + nxy * c];
            re += (double)s.x * a.x + (double)s.y * a.y;
            im += (double)s.x * a.y - (double)s.y * a.x;
        }
        img[p] = make_float2((float)re, (float)im);
    }
}

kr_status cuda_expand(const kr_ctx *ctx, int64_t nxy, int64_t nc, const float *maps,
                      const float *img, int cplx, float *coil)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    k_coil_expand<<<grid_stride(nxy * nc), kThreads, 0, kri_cu_stream(ctx)>>>(
        nxy, nc, (const float2 *)maps, img, cplx, (float2 *)coil);
    return kri_cu_launched("k_coil_expand");
}

kr_status cuda_reduce(const kr_ctx *ctx, int64_t nxy, int64_t nc, const float *maps,
                      const float *coil, float *img)
{
    k_sense_reduce<<<grid_stride(nxy), kThreads, 0, kri_cu_stream(ctx)>>>(
        nxy, nc, (const float2 *)maps, (const float2 *)coil, (float2 *)img);
    return kri_cu_launched("k_sense_reduce");
}

kr_status cuda_mask(const kr_ctx *ctx, int64_t nx, int64_t ny, int64_t rest, float *data,
                    const uint8_t *lines)
{
    k_sense_mask<<<grid_stride(nx * ny * rest), kThreads, 0, kri_cu_stream(ctx)>>>(
        nx, ny, rest, (float2 *)data, lines);
    return kri_cu_launched("k_sense_mask");
}

// The host flags copied to the device for the call; the mask finished before they are freed.
kr_status cuda_undersample(const kr_ctx *ctx, int64_t nx, int64_t ny, int64_t rest, float *data,
                           const uint8_t *lines)
{
    void *dl = NULL;
    KRI_TRY(kri_cuda_set_device(ctx));
    KRI_TRY(kri_device_alloc(&dl, (size_t)ny, kr_ctx_device(ctx), "line mask"));
    kr_status st = kri_memcpy(dl, KR_DEVICE, lines, KR_HOST, (size_t)ny, ctx);
    if (st == KR_OK) st = cuda_mask(ctx, nx, ny, rest, data, (const uint8_t *)dl);
    if (st == KR_OK) st = kri_device_synchronize(ctx);
    kri_device_free(dl);
    return st;
}

} // namespace

extern "C" const kri_coilop_backend kri_coilop_cuda = {
    {"cuda", true}, cuda_expand, cuda_reduce, cuda_mask, cuda_undersample};
