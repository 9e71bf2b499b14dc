// CUDA kernels of the Toeplitz embedding (zero-pad, product with FFT(Q), crop with optional coil
// maps) and of the k-space weighting. Grid-stride loops with bounds checks; every output element
// is written by exactly one thread (no atomics), so results are deterministic.
#include <cuda_runtime.h>

#include "core/cplx_cuda.cuh"
#include "cuda_util.cuh"
#include "internal.h"
#include "mri/lsq/lsq_internal.h"

namespace {

constexpr int kThreads = 256;

struct dims3 {
    int64_t nx, ny, nz, gx, gy, gz;
};

template <typename C>
__global__ void k_toep_pad(dims3 d, int64_t nb, const C *__restrict__ in,
                           const C *__restrict__ maps, C *__restrict__ buf)
{
    const int64_t G = d.gx * d.gy * d.gz, N = d.nx * d.ny * d.nz, total = G * nb;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
        const int64_t b = e / G, j = e - b * G;
        const int64_t x = j % d.gx, y = (j / d.gx) % d.gy, z = j / (d.gx * d.gy);
        C v;
        v.x = 0;
        v.y = 0;
        if (x < d.nx && y < d.ny && z < d.nz) {
            const int64_t i = x + d.nx * (y + d.ny * z);
            v = in[(maps ? 0 : b * N) + i];
            if (maps) v = kri_cmul(v, maps[b * N + i]);
        }
        buf[e] = v;
    }
}

template <typename C>
__global__ void k_toep_mulq(int64_t G, int64_t nb, C *__restrict__ buf, const C *__restrict__ q)
{
    const int64_t total = G * nb, stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride)
        buf[e] = kri_cmul(buf[e], q[e % G]);
}

template <typename C>
__global__ void k_toep_crop(dims3 d, int64_t nb, const C *__restrict__ buf,
                            C *__restrict__ out)
{
    const int64_t G = d.gx * d.gy * d.gz, N = d.nx * d.ny * d.nz, total = N * nb;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
        const int64_t b = e / N, i = e - b * N;
        const int64_t x = i % d.nx, y = (i / d.nx) % d.ny, z = i / (d.nx * d.ny);
        out[e] = buf[b * G + x + d.gx * (y + d.gy * z)];
    }
}

template <typename C>
__global__ void k_toep_crop_maps(dims3 d, int64_t nb, const C *__restrict__ buf,
                                 const C *__restrict__ maps, C *__restrict__ out, int accumulate)
{
    const int64_t G = d.gx * d.gy * d.gz, N = d.nx * d.ny * d.nz;
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < N; i += stride) {
        const int64_t x = i % d.nx, y = (i / d.nx) % d.ny, z = i / (d.nx * d.ny);
        const int64_t j = x + d.gx * (y + d.gy * z);
        C acc;
        if (accumulate) {
            acc = out[i];
        } else {
            acc.x = 0;
            acc.y = 0;
        }
        for (int64_t b = 0; b < nb; b++) {
            acc = kri_cadd(acc, kri_cmulc(maps[b * N + i], buf[b * G + j]));
        }
        out[i] = acc;
    }
}

template <typename C>
__global__ void k_lsq_wmul(int64_t M, int64_t nb, const C *d,
                           const typename kri_real_of<C>::type *__restrict__ w, C *out)
{
    const int64_t total = M * nb, stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < total; e += stride) {
        out[e] = kri_cscale(d[e], w[e % M]);
    }
}

dims3 mk(const int64_t n[3], const int64_t g[3])
{
    dims3 d = {n[0], n[1], n[2], g[0], g[1], g[2]};
    return d;
}

} // namespace

static kr_status kri_cuda_toep_pad(const kr_ctx *ctx, kr_dtype t, const int64_t n[3],
                                   const int64_t g[3], int64_t nb, const void *in,
                                   const void *maps, void *buf)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    const int64_t total = g[0] * g[1] * g[2] * nb;
    if (t == KR_C64)
        k_toep_pad<float2><<<kri_cu_grid(total, kThreads), kThreads, 0, kri_cu_stream(ctx)>>>(
            mk(n, g), nb, (const float2 *)in, (const float2 *)maps, (float2 *)buf);
    else
        k_toep_pad<double2><<<kri_cu_grid(total, kThreads), kThreads, 0, kri_cu_stream(ctx)>>>(
            mk(n, g), nb, (const double2 *)in, (const double2 *)maps, (double2 *)buf);
    return kri_cu_launched("k_toep_pad");
}

static kr_status kri_cuda_toep_mulq(const kr_ctx *ctx, kr_dtype t, int64_t G, int64_t nb,
                                    void *buf, const void *qhat)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    if (t == KR_C64)
        k_toep_mulq<float2><<<kri_cu_grid(G * nb, kThreads), kThreads, 0, kri_cu_stream(ctx)>>>(
            G, nb, (float2 *)buf, (const float2 *)qhat);
    else
        k_toep_mulq<double2><<<kri_cu_grid(G * nb, kThreads), kThreads, 0, kri_cu_stream(ctx)>>>(
            G, nb, (double2 *)buf, (const double2 *)qhat);
    return kri_cu_launched("k_toep_mulq");
}

static kr_status kri_cuda_toep_crop(const kr_ctx *ctx, kr_dtype t, const int64_t n[3],
                                    const int64_t g[3], int64_t nb, const void *buf,
                                    const void *maps, void *out, int accumulate)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    const int64_t N = n[0] * n[1] * n[2];
    if (maps) {
        if (t == KR_C64)
            k_toep_crop_maps<float2><<<kri_cu_grid(N, kThreads), kThreads, 0, kri_cu_stream(ctx)>>>(
                mk(n, g), nb, (const float2 *)buf, (const float2 *)maps, (float2 *)out,
                accumulate);
        else
            k_toep_crop_maps<double2><<<kri_cu_grid(N, kThreads), kThreads, 0, kri_cu_stream(ctx)>>>(
                mk(n, g), nb, (const double2 *)buf, (const double2 *)maps, (double2 *)out,
                accumulate);
        return kri_cu_launched("k_toep_crop_maps");
    }
    if (t == KR_C64)
        k_toep_crop<float2><<<kri_cu_grid(N * nb, kThreads), kThreads, 0, kri_cu_stream(ctx)>>>(
            mk(n, g), nb, (const float2 *)buf, (float2 *)out);
    else
        k_toep_crop<double2><<<kri_cu_grid(N * nb, kThreads), kThreads, 0, kri_cu_stream(ctx)>>>(
            mk(n, g), nb, (const double2 *)buf, (double2 *)out);
    return kri_cu_launched("k_toep_crop");
}

static kr_status kri_cuda_lsq_wmul(const kr_ctx *ctx, kr_dtype t, int64_t M, int64_t nb,
                                   const void *d, const void *w, void *out)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    if (t == KR_C64)
        k_lsq_wmul<float2><<<kri_cu_grid(M * nb, kThreads), kThreads, 0, kri_cu_stream(ctx)>>>(
            M, nb, (const float2 *)d, (const float *)w, (float2 *)out);
    else
        k_lsq_wmul<double2><<<kri_cu_grid(M * nb, kThreads), kThreads, 0, kri_cu_stream(ctx)>>>(
            M, nb, (const double2 *)d, (const double *)w, (double2 *)out);
    return kri_cu_launched("k_lsq_wmul");
}

extern "C" const kri_toep_backend kri_toep_cuda = {{"cuda", true}, kri_cuda_toep_pad,
                                                  kri_cuda_toep_mulq, kri_cuda_toep_crop,
                                                  kri_cuda_lsq_wmul};
