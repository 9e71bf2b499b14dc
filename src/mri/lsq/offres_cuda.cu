// CUDA kernels of the off-resonance operators (kray/offres.h): the elementwise expand/combine
// steps of the time-segmented operator and the exact direct sum. Grid-stride loops with bounds
// checks; every output element is written by exactly one thread (no atomics), and sums run in
// index order in double, so results are deterministic.
#include <cuda_runtime.h>

#include "core/cplx_cuda.cuh"
#include "cuda_util.cuh"
#include "internal.h"
#include "mri/lsq/offres_internal.h"
#include "mri/lsq/offres_kern.h"

namespace {

constexpr int kThreads = 256;

// w' x with w' = conj(w) when cj
__device__ __forceinline__ double2 wmul(double2 w, int cj, double2 x)
{
    return kri_cmul(make_double2(w.x, cj ? -w.y : w.y), x);
}

template <typename C>
__global__ void k_offres_expand(int64_t P, int L, const C *x, const C *w, int cj, C *X)
{
    int64_t tot = P * (int64_t)L;
    for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < tot;
         j += (int64_t)gridDim.x * blockDim.x)
        kri_cstore_d(X, j, wmul(kri_cload_d(w, j), cj, kri_cload_d(x, j % P)));
}

template <typename C>
__global__ void k_offres_combine(int64_t P, int L, const C *X, const C *w, int cj, C *x)
{
    for (int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; p < P;
         p += (int64_t)gridDim.x * blockDim.x) {
        double2 s = make_double2(0.0, 0.0);
        for (int l = 0; l < L; l++)
            s = kri_cadd(s, wmul(kri_cload_d(w, (int64_t)l * P + p), cj,
                                 kri_cload_d(X, (int64_t)l * P + p)));
        kri_cstore_d(x, p, s);
    }
}

struct geom {
    int64_t n0, n1, n2, N, M;
};

// adj = 0: one thread per sample m, sum over voxels; adj = 1: one thread per voxel, sum over m.
// B vectors: each thread serves one output of a chunk of up to KRI_OFFRES_BCHUNK vectors and
// computes every phase once for the chunk.
template <typename C>
__global__ void k_offres_exact(geom g, const double *k, const double *f, const double *tm,
                               int adj, int64_t B, const C *in, C *out)
{
    const int64_t nout = adj ? g.N : g.M, nin = adj ? g.M : g.N;
    const int64_t nchunk = (B + KRI_OFFRES_BCHUNK - 1) / KRI_OFFRES_BCHUNK;
    const double sgn = adj ? 1.0 : -1.0;
    for (int64_t w = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; w < nout * nchunk;
         w += (int64_t)gridDim.x * blockDim.x) {
        const int64_t o = w % nout, b0 = (w / nout) * KRI_OFFRES_BCHUNK;
        const int nb = (int)(B - b0 < KRI_OFFRES_BCHUNK ? B - b0 : KRI_OFFRES_BCHUNK);
        double sr[KRI_OFFRES_BCHUNK], si[KRI_OFFRES_BCHUNK];
#pragma unroll
        for (int b = 0; b < KRI_OFFRES_BCHUNK; b++) sr[b] = si[b] = 0.0;
        for (int64_t q = 0; q < nin; q++) {
            int64_t m = adj ? q : o, i = adj ? o : q;
            double s, c;
            sincospi(2.0 * kri_offres_phase(g.n0, g.n1, g.n2, k, m, i, f, tm), &s, &c);
            s *= sgn;
#pragma unroll
            for (int b = 0; b < KRI_OFFRES_BCHUNK; b++) {
                if (b >= nb) break;
                const double2 v =
                    kri_cmul(kri_cload_d(in, (b0 + b) * nin + q), make_double2(c, s));
                sr[b] += v.x;
                si[b] += v.y;
            }
        }
        for (int b = 0; b < nb; b++) kri_cstore_d(out, (b0 + b) * nout + o, make_double2(sr[b], si[b]));
    }
}

} // namespace

static kr_status kri_cuda_offres_expand(const kr_ctx *ctx, kr_dtype t, int64_t P, int L,
                                        const void *x, const void *w, int cj, void *X)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    if (t == KR_C64)
        k_offres_expand<float2><<<kri_cu_grid(P * L, kThreads), kThreads, 0, kri_cu_stream(ctx)>>>(
            P, L, (const float2 *)x, (const float2 *)w, cj, (float2 *)X);
    else
        k_offres_expand<double2><<<kri_cu_grid(P * L, kThreads), kThreads, 0, kri_cu_stream(ctx)>>>(
            P, L, (const double2 *)x, (const double2 *)w, cj, (double2 *)X);
    return kri_cu_launched("k_offres_expand");
}

static kr_status kri_cuda_offres_combine(const kr_ctx *ctx, kr_dtype t, int64_t P, int L,
                                         const void *X, const void *w, int cj, void *x)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    if (t == KR_C64)
        k_offres_combine<float2><<<kri_cu_grid(P, kThreads), kThreads, 0, kri_cu_stream(ctx)>>>(
            P, L, (const float2 *)X, (const float2 *)w, cj, (float2 *)x);
    else
        k_offres_combine<double2><<<kri_cu_grid(P, kThreads), kThreads, 0, kri_cu_stream(ctx)>>>(
            P, L, (const double2 *)X, (const double2 *)w, cj, (double2 *)x);
    return kri_cu_launched("k_offres_combine");
}

static kr_status kri_cuda_offres_exact(const kr_ctx *ctx, kr_dtype t, const int64_t n[3],
                                       int64_t M, const double *k, const double *f,
                                       const double *tm, int adj, int64_t B, const void *in,
                                       void *out)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    geom g = {n[0], n[1], n[2], n[0] * n[1] * n[2], M};
    const int64_t work = (adj ? g.N : M) * ((B + KRI_OFFRES_BCHUNK - 1) / KRI_OFFRES_BCHUNK);
    if (t == KR_C64)
        k_offres_exact<float2><<<kri_cu_grid(work, kThreads), kThreads, 0, kri_cu_stream(ctx)>>>(
            g, k, f, tm, adj, B, (const float2 *)in, (float2 *)out);
    else
        k_offres_exact<double2><<<kri_cu_grid(work, kThreads), kThreads, 0, kri_cu_stream(ctx)>>>(
            g, k, f, tm, adj, B, (const double2 *)in, (double2 *)out);
    return kri_cu_launched("k_offres_exact");
}

extern "C" const kri_offres_backend kri_offres_cuda = {{"cuda", true}, kri_cuda_offres_expand,
                                                      kri_cuda_offres_combine,
                                                      kri_cuda_offres_exact};
