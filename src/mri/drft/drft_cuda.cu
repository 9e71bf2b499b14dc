/* DrFT on the GPU.
 *
 * Adjoint / Q (targets = voxels): one thread computes V voxels that are consecutive in a row
 * (register blocking); the k-space samples stream through shared memory in tiles of kTileAdj,
 * every thread of a warp reading the same sample (a broadcast). In row mode the phase factorises
 * along x, exp(2 pi i k.(x0 + j)) = exp(2 pi i k.x0) exp(2 pi i j kx): the tile holds each
 * sample's coefficient pre-multiplied by exp(2 pi i j kx) for j < V (computed once per block with
 * sincospif), so a thread needs ONE sin/cos per sample for its V voxels and then 4 FMAs per voxel
 * (this is why the kernel runs faster than the "one sin/cos per term" hardware limit).
 * Forward (targets = samples): one thread computes V samples; the image streams through shared
 * memory in tiles of rows / row segments, split over gridDim.z with a deterministic second pass;
 * groups of 8 voxels of a row share one sin/cos the same way (u = sum_t rho_t exp(-2 pi i t kx)).
 * float32 phase: the 32-bit fixed-point phase P = sum_d kf_d x_d (mod 2^32, wrapping integer
 * multiply-add: an exact reduction modulo one cycle) becomes r = P / 2^32 in [-1/2, 1/2) by
 * placing its top 23 bits into a float mantissa (no conversion instruction), and __sincosf(2 pi r)
 * runs on the special-function units with its argument inside [-pi, pi], where its absolute
 * error is 2^-21.41. The error per term is therefore bounded independently of image size and
 * k: |e| <= 2 pi 2^-24 (mantissa rounding) + 2^-21.41 + 2 pi |x|_1 2^-33 (k quantisation) +
 * float rounding ~ 1e-6 for |x|_1 < 1000. With fast_sincos = 0 the phase is converted exactly
 * (I2F) and sincospif is used instead (~1 ulp).
 * Sums: each thread accumulates one tile in float and adds it to its running float sum.
 * float64 kernels: phase in double, r = p - rint(p), sincospi(2 r).
 * Every output is computed by one thread in a fixed order (deterministic). */
#include "core/cplx_cuda.cuh"
#include "mri/drft/drft_internal.h"

#include <cuda_runtime.h>

#include <stdint.h>

struct kri_drft_dev {
    int device;
    long long m;
    uint4 *kf;
    float *adj32, *fwd32;
    double *k64, *adj64, *fwd64;
    float2 *scratch; /* forward partial sums, grown on demand */
    size_t scratch_bytes;
};

namespace {

constexpr int kThreads = 128;
constexpr int kTile = 512;    /* forward: image values per tile */
constexpr int kTileAdj = 256; /* adjoint: samples per tile */
constexpr int kTile64 = 256;
constexpr int kMaxGridY = 65535;
constexpr long long kFwdBlocks = 1024; /* forward: split the image until this many blocks */

template <bool FAST>
__device__ __forceinline__ void kd_sincos(unsigned p, float *s, float *c)
{
    if (FAST) {
        /* (p + 2^31) / 2^32 = r + 1/2 in [0, 1): its top 23 bits (rounded) as the mantissa of a
         * float in [1, 2); the wrap at the top maps r = +1/2 to -1/2, the same angle */
        unsigned u = ((p + 0x80000100u) >> 9) | 0x3F800000u;
        float r = __uint_as_float(u) - 1.5f;
        __sincosf(r * 6.28318530718f, s, c);
    } else {
        float r = (float)(int)p * 2.3283064365386963e-10f;
        sincospif(2.0f * r, s, c);
    }
}

/* ---- float32 adjoint / Q --------------------------------------------------------------------- */
struct kd_grid {
    int g[3], o[3];
    long long nvox;
};

/* Row mode (ROW: the V voxels of a thread are consecutive in one row, x = x0 + j): the phase
 * factorises, exp(2 pi i k.x) = exp(2 pi i k.x0) exp(2 pi i j kx), so each sample's coefficient
 * is stored V times in shared memory, pre-multiplied by exp(2 pi i j kx) (computed once per
 * block and sample with the exactly reduced fixed-point phase j kf_x), and each thread needs
 * one sin/cos per sample for its V voxels, then 4 FMAs per voxel. Otherwise (ROW = false, rows
 * not divisible by V) every voxel-sample term gets its own sin/cos. */
template <int V, bool ROW, bool FAST>
__global__ void __launch_bounds__(kThreads)
    k_drft_adj_f32(const uint4 *__restrict__ kf, const float *__restrict__ adj,
                   const float *__restrict__ fwd, const float2 *__restrict__ in, long long m,
                   int mode, kd_grid G, float2 *__restrict__ out)
{
    constexpr int CV = ROW ? V : 1; /* coefficients per sample in shared memory */
    __shared__ uint4 sk[kTileAdj];
    __shared__ float2 sc[kTileAdj * CV];
    const long long b = blockIdx.y;
    const float2 *src = in ? in + b * m : nullptr;
    float2 *dst = out + b * G.nvox;
    const long long n0 = ((long long)blockIdx.x * kThreads + threadIdx.x) * V;
    unsigned xs[V], ys[V], zs[V];
#pragma unroll
    for (int j = 0; j < V; j++) {
        long long n = n0 + j < G.nvox ? n0 + j : G.nvox - 1;
        long long t = n / G.g[0];
        xs[j] = (unsigned)((int)(n - t * G.g[0]) - G.o[0]);
        ys[j] = (unsigned)((int)(t % G.g[1]) - G.o[1]);
        zs[j] = (unsigned)((int)(t / G.g[1]) - G.o[2]);
    }
    float ar[V], ai[V];
#pragma unroll
    for (int j = 0; j < V; j++) ar[j] = ai[j] = 0.0f;
    for (long long t0 = 0; t0 < m; t0 += kTileAdj) {
        const int cnt = m - t0 < kTileAdj ? (int)(m - t0) : kTileAdj;
        __syncthreads();
        for (int i = threadIdx.x; i < cnt; i += kThreads) {
            const long long s = t0 + i;
            const uint4 k = kf[s];
            sk[i] = k;
            const float a = adj[s];
            float2 c;
            if (mode == KRI_DRFT_Q) {
                c = make_float2(a * fwd[s], 0.0f);
            } else {
                c = kri_cscale(src[s], a);
            }
            sc[i * CV] = c;
#pragma unroll
            for (int j = 1; j < CV; j++) {
                float sn, cs;
                kd_sincos<false>((unsigned)j * k.x, &sn, &cs);
                sc[i * CV + j] = kri_cmul(c, make_float2(cs, sn));
            }
        }
        __syncthreads();
        float pr[V], pi[V];
#pragma unroll
        for (int j = 0; j < V; j++) pr[j] = pi[j] = 0.0f;
        if (ROW) {
#pragma unroll 2
            for (int i = 0; i < cnt; i++) {
                const uint4 k = sk[i];
                float sn, cs;
                kd_sincos<FAST>(k.x * xs[0] + k.y * ys[0] + k.z * zs[0], &sn, &cs);
#pragma unroll
                for (int j = 0; j < V; j++) {
                    const float2 c = sc[i * CV + j];
                    pr[j] = fmaf(c.x, cs, pr[j]);
                    pr[j] = fmaf(-c.y, sn, pr[j]);
                    pi[j] = fmaf(c.x, sn, pi[j]);
                    pi[j] = fmaf(c.y, cs, pi[j]);
                }
            }
        } else {
#pragma unroll 2
            for (int i = 0; i < cnt; i++) {
                const uint4 k = sk[i];
                const float2 c = sc[i * CV];
#pragma unroll
                for (int j = 0; j < V; j++) {
                    float sn, cs;
                    kd_sincos<FAST>(k.x * xs[j] + k.y * ys[j] + k.z * zs[j], &sn, &cs);
                    pr[j] = fmaf(c.x, cs, pr[j]);
                    pr[j] = fmaf(-c.y, sn, pr[j]);
                    pi[j] = fmaf(c.x, sn, pi[j]);
                    pi[j] = fmaf(c.y, cs, pi[j]);
                }
            }
        }
#pragma unroll
        for (int j = 0; j < V; j++) ar[j] += pr[j], ai[j] += pi[j];
    }
#pragma unroll
    for (int j = 0; j < V; j++)
        if (n0 + j < G.nvox) dst[n0 + j] = make_float2(ar[j], ai[j]);
}

/* ---- float32 forward ------------------------------------------------------------------------- */
/* Targets = samples (V per thread), sources = image tiles of tr rows x tx voxels in shared memory.
 * The tiles are split over gridDim.z (nsplit slices of consecutive tiles) so that few samples
 * still fill the GPU; with nsplit > 1 each slice writes partial sums that k_drft_fwd_reduce adds
 * in slice order (deterministic). GX > 1: the phase factorises over groups of GX voxels of a row,
 * exp(-2 pi i k.(x0 + t)) = exp(-2 pi i k.x0) exp(-2 pi i t kx): each thread keeps
 * w_t = exp(-2 pi i t kx) for its samples in registers, forms u = sum_t rho_t w_t and needs one
 * sin/cos per group. */
struct kd_split {
    int tx, tr, ntx, nsplit;
    long long ntiles;
};

template <int V, int GX, bool FAST>
__global__ void __launch_bounds__(kThreads)
    k_drft_fwd_f32(const uint4 *__restrict__ kf, const float *__restrict__ fwd,
                   const float2 *__restrict__ img, long long m, kd_grid G, kd_split S,
                   float2 *__restrict__ out)
{
    __shared__ float2 sv[kTile];
    const long long b = blockIdx.y, nb = gridDim.y, z = blockIdx.z;
    img += b * G.nvox;
    const long long m0 = ((long long)blockIdx.x * kThreads + threadIdx.x) * V;
    unsigned kx[V], ky[V], kz[V];
    float2 w[V][GX];
#pragma unroll
    for (int j = 0; j < V; j++) {
        const uint4 k = kf[m0 + j < m ? m0 + j : m - 1];
        kx[j] = 0u - k.x, ky[j] = 0u - k.y, kz[j] = 0u - k.z; /* exp(-i ...) */
#pragma unroll
        for (int t = 0; t < GX; t++) {
            float sn, cs;
            kd_sincos<false>((unsigned)t * kx[j], &sn, &cs);
            w[j][t] = make_float2(cs, sn);
        }
    }
    float ar[V], ai[V];
#pragma unroll
    for (int j = 0; j < V; j++) ar[j] = ai[j] = 0.0f;
    const int rows = G.g[1] * G.g[2];
    const long long tl0 = z * S.ntiles / S.nsplit, tl1 = (z + 1) * S.ntiles / S.nsplit;
    for (long long tl = tl0; tl < tl1; tl++) {
        const int rb = (int)(tl / S.ntx) * S.tr, xb = (int)(tl % S.ntx) * S.tx;
        const int nr = rows - rb < S.tr ? rows - rb : S.tr;
        const int nx = G.g[0] - xb < S.tx ? G.g[0] - xb : S.tx;
        __syncthreads();
        for (int i = threadIdx.x; i < nr * nx; i += kThreads) {
            const int r = i / nx, x = i - r * nx;
            sv[i] = img[(long long)(rb + r) * G.g[0] + xb + x];
        }
        __syncthreads();
        float pr[V], pi[V];
#pragma unroll
        for (int j = 0; j < V; j++) pr[j] = pi[j] = 0.0f;
        for (int r = 0; r < nr; r++) {
            const int row = rb + r;
            const unsigned yv = (unsigned)(row % G.g[1] - G.o[1]);
            const unsigned zv = (unsigned)(row / G.g[1] - G.o[2]);
            const unsigned xv = (unsigned)(xb - G.o[0]);
            unsigned p[V];
#pragma unroll
            for (int j = 0; j < V; j++) p[j] = kx[j] * xv + ky[j] * yv + kz[j] * zv;
            const float2 *v = sv + r * nx;
            for (int x = 0; x < nx; x += GX) {
#pragma unroll
                for (int j = 0; j < V; j++) {
                    float ur = 0.0f, ui = 0.0f;
#pragma unroll
                    for (int t = 0; t < GX; t++) {
                        const float2 c = v[x + t], e = w[j][t];
                        ur = fmaf(c.x, e.x, ur);
                        ur = fmaf(-c.y, e.y, ur);
                        ui = fmaf(c.x, e.y, ui);
                        ui = fmaf(c.y, e.x, ui);
                    }
                    float sn, cs;
                    kd_sincos<FAST>(p[j], &sn, &cs);
                    pr[j] = fmaf(ur, cs, pr[j]);
                    pr[j] = fmaf(-ui, sn, pr[j]);
                    pi[j] = fmaf(ur, sn, pi[j]);
                    pi[j] = fmaf(ui, cs, pi[j]);
                    p[j] += (unsigned)GX * kx[j];
                }
            }
        }
#pragma unroll
        for (int j = 0; j < V; j++) ar[j] += pr[j], ai[j] += pi[j];
    }
#pragma unroll
    for (int j = 0; j < V; j++)
        if (m0 + j < m) {
            if (S.nsplit == 1) {
                const float f = fwd[m0 + j];
                out[b * m + m0 + j] = kri_cscale(make_float2(ar[j], ai[j]), f);
            } else {
                out[(z * nb + b) * m + m0 + j] = make_float2(ar[j], ai[j]);
            }
        }
}

__global__ void k_drft_fwd_reduce(const float2 *__restrict__ part, const float *__restrict__ fwd,
                                  long long m, long long nb, int nsplit, float2 *__restrict__ out)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= m * nb) return;
    const long long s = i % m;
    float re = 0.0f, im = 0.0f;
    for (int z = 0; z < nsplit; z++) {
        const float2 v = part[z * m * nb + i];
        re += v.x, im += v.y;
    }
    out[i] = kri_cscale(make_float2(re, im), fwd[s]);
}

/* ---- float64 ----------------------------------------------------------------------------------- */
__global__ void __launch_bounds__(kThreads)
    k_drft_adj_f64(const double *__restrict__ k64, const double *__restrict__ adj,
                   const double *__restrict__ fwd, const double2 *__restrict__ in, long long m,
                   int mode, kd_grid G, double2 *__restrict__ out)
{
    __shared__ double sk[3 * kTile64];
    __shared__ double2 sc[kTile64];
    const long long b = blockIdx.y;
    const double2 *src = in ? in + b * m : nullptr;
    double2 *dst = out + b * G.nvox;
    const long long n = (long long)blockIdx.x * kThreads + threadIdx.x;
    const long long nn = n < G.nvox ? n : G.nvox - 1;
    const long long t = nn / G.g[0];
    const double x = (double)((int)(nn - t * G.g[0]) - G.o[0]);
    const double y = (double)((int)(t % G.g[1]) - G.o[1]), z = (double)((int)(t / G.g[1]) - G.o[2]);
    double re = 0.0, im = 0.0;
    for (long long t0 = 0; t0 < m; t0 += kTile64) {
        const int cnt = m - t0 < kTile64 ? (int)(m - t0) : kTile64;
        __syncthreads();
        for (int i = threadIdx.x; i < cnt; i += kThreads) {
            const long long s = t0 + i;
            sk[3 * i] = k64[3 * s], sk[3 * i + 1] = k64[3 * s + 1], sk[3 * i + 2] = k64[3 * s + 2];
            const double a = adj[s];
            if (mode == KRI_DRFT_Q) {
                sc[i] = make_double2(a * fwd[s], 0.0);
            } else {
                sc[i] = kri_cscale(src[s], a);
            }
        }
        __syncthreads();
        for (int i = 0; i < cnt; i++) {
            const double p = sk[3 * i] * x + sk[3 * i + 1] * y + sk[3 * i + 2] * z;
            double sn, cs;
            sincospi(2.0 * (p - rint(p)), &sn, &cs);
            const double2 prod = kri_cmul(sc[i], make_double2(cs, sn));
            re += prod.x;
            im += prod.y;
        }
    }
    if (n < G.nvox) dst[n] = make_double2(re, im);
}

__global__ void __launch_bounds__(kThreads)
    k_drft_fwd_f64(const double *__restrict__ k64, const double *__restrict__ fwd,
                   const double2 *__restrict__ img, long long m, kd_grid G, double2 *__restrict__ out)
{
    __shared__ double2 sv[kTile64];
    const long long b = blockIdx.y;
    img += b * G.nvox;
    out += b * m;
    const long long s = (long long)blockIdx.x * kThreads + threadIdx.x;
    const long long ss = s < m ? s : m - 1;
    const double kx = k64[3 * ss], ky = k64[3 * ss + 1], kz = k64[3 * ss + 2];
    double re = 0.0, im = 0.0;
    for (long long v0 = 0; v0 < G.nvox; v0 += kTile64) {
        const int cnt = G.nvox - v0 < kTile64 ? (int)(G.nvox - v0) : kTile64;
        __syncthreads();
        for (int i = threadIdx.x; i < cnt; i += kThreads) sv[i] = img[v0 + i];
        __syncthreads();
        for (int i = 0; i < cnt; i++) {
            const long long v = v0 + i, t = v / G.g[0];
            const double x = (double)((int)(v - t * G.g[0]) - G.o[0]);
            const double y = (double)((int)(t % G.g[1]) - G.o[1]);
            const double z = (double)((int)(t / G.g[1]) - G.o[2]);
            const double p = kx * x + ky * y + kz * z;
            double sn, cs;
            sincospi(2.0 * (p - rint(p)), &sn, &cs);
            const double2 prod = kri_cmulc(make_double2(cs, sn), sv[i]); /* times exp(-i r) */
            re += prod.x;
            im += prod.y;
        }
    }
    if (s < m) out[s] = kri_cscale(make_double2(re, im), fwd[s]);
}

kd_grid kd_make_grid(const kri_drft_grid *g)
{
    kd_grid G;
    for (int d = 0; d < 3; d++) G.g[d] = (int)g->g[d], G.o[d] = (int)g->o[d];
    G.nvox = g->g[0] * g->g[1] * g->g[2];
    return G;
}

kr_status kd_finish(const kr_ctx *ctx, const char *what)
{
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return kri_fail(KR_ERR_CUDA, "DrFT: launching the %s kernel failed: %s", what,
                        cudaGetErrorString(e));
    e = cudaStreamSynchronize((cudaStream_t)kr_ctx_stream(ctx));
    if (e != cudaSuccess)
        return kri_fail(KR_ERR_CUDA, "DrFT: the %s kernel failed: %s", what, cudaGetErrorString(e));
    return KR_OK;
}

template <int V, bool ROW>
void kd_launch_adj(bool fast, dim3 grid, cudaStream_t st, const kri_drft_dev *d, const float2 *in,
                   int mode, kd_grid G, float2 *out)
{
    if (fast)
        k_drft_adj_f32<V, ROW, true><<<grid, kThreads, 0, st>>>(d->kf, d->adj32, d->fwd32, in, d->m,
                                                                mode, G, out);
    else
        k_drft_adj_f32<V, ROW, false><<<grid, kThreads, 0, st>>>(d->kf, d->adj32, d->fwd32, in,
                                                                 d->m, mode, G, out);
}

template <int V, int GX>
void kd_launch_fwd(bool fast, dim3 grid, cudaStream_t st, const kri_drft_dev *d, const float2 *in,
                   kd_grid G, kd_split S, float2 *out)
{
    if (fast)
        k_drft_fwd_f32<V, GX, true><<<grid, kThreads, 0, st>>>(d->kf, d->fwd32, in, d->m, G, S, out);
    else
        k_drft_fwd_f32<V, GX, false><<<grid, kThreads, 0, st>>>(d->kf, d->fwd32, in, d->m, G, S, out);
}

/* Voxels per thread: the largest of 8, 4, 2 that keeps >= 64k threads (enough warps to hide
 * the latency of the special-function units), else 1. */
int kd_auto_vpt(long long targets)
{
    for (int v = 8; v > 1; v /= 2)
        if (targets / v >= 65536) return v;
    return 1;
}

void kri_cuda_drft_free(kri_drft_dev *d)
{
    if (!d) return;
    int cur = 0;
    if (cudaGetDevice(&cur) == cudaSuccess && cur != d->device) cudaSetDevice(d->device);
    cudaFree(d->kf);
    cudaFree(d->adj32);
    cudaFree(d->fwd32);
    cudaFree(d->k64);
    cudaFree(d->adj64);
    cudaFree(d->fwd64);
    cudaFree(d->scratch);
    if (cur != d->device) cudaSetDevice(cur);
    kri_free(d);
}

kr_status kri_cuda_drft_upload(const kr_ctx *ctx, const kri_drft_data *h, kri_drft_dev **out)
{
    *out = NULL;
    KRI_TRY(kri_cuda_set_device(ctx));
    kri_drft_dev *d = (kri_drft_dev *)kri_calloc(1, sizeof *d);
    if (!d) return kri_fail(KR_ERR_OOM_HOST, "DrFT: out of host memory");
    d->device = kr_ctx_device(ctx);
    d->m = h->m;
    const size_t m = (size_t)h->m;
    struct {
        void **dst;
        const void *src;
        size_t bytes;
    } up[] = {{(void **)&d->kf, h->kf, m * sizeof(uint4)},
              {(void **)&d->adj32, h->adj32, m * sizeof(float)},
              {(void **)&d->fwd32, h->fwd32, m * sizeof(float)},
              {(void **)&d->k64, h->k64, 3 * m * sizeof(double)},
              {(void **)&d->adj64, h->adj64, m * sizeof(double)},
              {(void **)&d->fwd64, h->fwd64, m * sizeof(double)}};
    for (size_t i = 0; i < sizeof up / sizeof up[0]; i++) {
        cudaError_t e = cudaMalloc(up[i].dst, up[i].bytes);
        if (e != cudaSuccess) {
            kri_cuda_drft_free(d);
            (void)cudaGetLastError();
            return kri_fail(KR_ERR_OOM_DEVICE, "DrFT: cudaMalloc of %zu bytes for the trajectory "
                            "failed: %s", up[i].bytes, cudaGetErrorString(e));
        }
        e = cudaMemcpy(*up[i].dst, up[i].src, up[i].bytes, cudaMemcpyHostToDevice);
        if (e != cudaSuccess) {
            kri_cuda_drft_free(d);
            return kri_fail(KR_ERR_CUDA, "DrFT: copying the trajectory to the device failed: %s",
                            cudaGetErrorString(e));
        }
    }
    *out = d;
    return KR_OK;
}

kr_status kri_cuda_drft_adjoint(const kr_ctx *ctx, kri_drft_dev *d, const kri_drft_data *,
                                const kri_drft_grid *g, int mode, kr_dtype dtype, const void *in,
                                int64_t batch, void *out, const kr_drft_opts *o)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    cudaStream_t st = (cudaStream_t)kr_ctx_stream(ctx);
    const kd_grid G = kd_make_grid(g);
    for (int64_t b0 = 0; b0 < batch; b0 += kMaxGridY) {
        const int nb = (int)(batch - b0 < kMaxGridY ? batch - b0 : kMaxGridY);
        if (dtype == KR_C128) {
            const double2 *src = in ? (const double2 *)in + b0 * d->m : nullptr;
            double2 *dst = (double2 *)out + b0 * G.nvox;
            dim3 grid((unsigned)((G.nvox + kThreads - 1) / kThreads), (unsigned)nb);
            k_drft_adj_f64<<<grid, kThreads, 0, st>>>(d->k64, d->adj64, d->fwd64, src, d->m, mode,
                                                       G, dst);
        } else {
            const float2 *src = in ? (const float2 *)in + b0 * d->m : nullptr;
            float2 *dst = (float2 *)out + b0 * G.nvox;
            int v = o->voxels_per_thread > 0 ? o->voxels_per_thread : kd_auto_vpt(G.nvox);
            const bool row = G.g[0] % v == 0;
            dim3 grid((unsigned)((G.nvox + (long long)kThreads * v - 1) / ((long long)kThreads * v)),
                      (unsigned)nb);
            const bool f = o->fast_sincos != 0;
            switch (v * 2 + (row ? 1 : 0)) {
            case 2: case 3: kd_launch_adj<1, true>(f, grid, st, d, src, mode, G, dst); break;
            case 4: kd_launch_adj<2, false>(f, grid, st, d, src, mode, G, dst); break;
            case 5: kd_launch_adj<2, true>(f, grid, st, d, src, mode, G, dst); break;
            case 8: kd_launch_adj<4, false>(f, grid, st, d, src, mode, G, dst); break;
            case 9: kd_launch_adj<4, true>(f, grid, st, d, src, mode, G, dst); break;
            case 16: kd_launch_adj<8, false>(f, grid, st, d, src, mode, G, dst); break;
            default: kd_launch_adj<8, true>(f, grid, st, d, src, mode, G, dst); break;
            }
        }
        KRI_TRY(kd_finish(ctx, mode == KRI_DRFT_Q ? "Q" : "adjoint"));
    }
    return KR_OK;
}

kr_status kri_cuda_drft_forward(const kr_ctx *ctx, kri_drft_dev *d, const kri_drft_data *,
                                const kri_drft_grid *g, kr_dtype dtype, const void *in,
                                int64_t batch, void *out, const kr_drft_opts *o)
{
    const int vpt = o->voxels_per_thread;
    KRI_TRY(kri_cuda_set_device(ctx));
    cudaStream_t st = (cudaStream_t)kr_ctx_stream(ctx);
    const kd_grid G = kd_make_grid(g);
    kd_split S;
    S.tx = G.g[0] < kTile ? G.g[0] : kTile;
    S.tr = kTile / S.tx;
    S.ntx = (G.g[0] + S.tx - 1) / S.tx;
    const long long rows = (long long)G.g[1] * G.g[2];
    S.ntiles = (rows + S.tr - 1) / S.tr * S.ntx;
    for (int64_t b0 = 0; b0 < batch; b0 += kMaxGridY) {
        const int nb = (int)(batch - b0 < kMaxGridY ? batch - b0 : kMaxGridY);
        if (dtype == KR_C128) {
            dim3 grid((unsigned)((d->m + kThreads - 1) / kThreads), (unsigned)nb);
            k_drft_fwd_f64<<<grid, kThreads, 0, st>>>(d->k64, d->fwd64,
                                                       (const double2 *)in + b0 * G.nvox, d->m, G,
                                                       (double2 *)out + b0 * d->m);
            KRI_TRY(kd_finish(ctx, "forward"));
            continue;
        }
        /* samples per thread: at most 4 (the factorisation keeps 8 phasors per sample); 4 was the
         * fastest on an H100 from 2048 to 2e5 samples (the image split keeps the GPU busy) */
        const int v = vpt > 0 ? (vpt > 4 ? 4 : vpt) : (d->m >= 512 ? 4 : 1);
        const long long bx = (d->m + (long long)kThreads * v - 1) / ((long long)kThreads * v);
        /* enough blocks for any current GPU; depends only on the problem size (deterministic) */
        long long ns = (kFwdBlocks + bx * nb - 1) / (bx * nb);
        if (ns > S.ntiles) ns = S.ntiles;
        if (ns > kMaxGridY) ns = kMaxGridY;
        S.nsplit = (int)(ns < 1 ? 1 : ns);
        const float2 *src = (const float2 *)in + b0 * G.nvox;
        float2 *dst = (float2 *)out + b0 * d->m;
        float2 *tgt = dst;
        if (S.nsplit > 1) {
            const size_t need = (size_t)S.nsplit * (size_t)nb * (size_t)d->m * sizeof(float2);
            if (need > d->scratch_bytes) {
                cudaFree(d->scratch);
                d->scratch = nullptr;
                d->scratch_bytes = 0;
                cudaError_t e = cudaMalloc((void **)&d->scratch, need);
                if (e != cudaSuccess) {
                    (void)cudaGetLastError();
                    return kri_fail(KR_ERR_OOM_DEVICE, "DrFT: cudaMalloc of %zu bytes for the "
                                    "forward partial sums failed: %s", need, cudaGetErrorString(e));
                }
                d->scratch_bytes = need;
            }
            tgt = d->scratch;
        }
        dim3 grid((unsigned)bx, (unsigned)nb, (unsigned)S.nsplit);
        const bool f = o->fast_sincos != 0;
        const bool g8 = G.g[0] % 8 == 0;
        switch (v * 2 + (g8 ? 1 : 0)) {
        case 2: kd_launch_fwd<1, 1>(f, grid, st, d, src, G, S, tgt); break;
        case 3: kd_launch_fwd<1, 8>(f, grid, st, d, src, G, S, tgt); break;
        case 4: kd_launch_fwd<2, 1>(f, grid, st, d, src, G, S, tgt); break;
        case 5: kd_launch_fwd<2, 8>(f, grid, st, d, src, G, S, tgt); break;
        case 8: kd_launch_fwd<4, 1>(f, grid, st, d, src, G, S, tgt); break;
        default: kd_launch_fwd<4, 8>(f, grid, st, d, src, G, S, tgt); break;
        }
        if (S.nsplit > 1) {
            const long long n = d->m * nb;
            k_drft_fwd_reduce<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(d->scratch, d->fwd32, d->m,
                                                                          nb, S.nsplit, dst);
        }
        KRI_TRY(kd_finish(ctx, "forward"));
    }
    return KR_OK;
}

} // namespace

extern "C" const kri_drft_backend kri_drft_cuda = {{"cuda", true}, kri_cuda_drft_upload,
                                                  kri_cuda_drft_free, kri_cuda_drft_adjoint,
                                                  kri_cuda_drft_forward};
