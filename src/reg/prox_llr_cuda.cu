// The locally-low-rank prox on CUDA (kri_llr_cuda, prox_llr_internal.h): a batched SVD with one
// thread block per image block. The block's m x n matrix (m pixels, n = dims[axis] columns) is
// gathered into shared memory when it fits (else into a device scratch slab of its own), in
// double precision whatever the data type, and orthogonalised by one-sided (Hestenes) Jacobi as
// on the host, but with the round-robin pair order: in each of the n' - 1 rounds of a sweep
// (n' = n rounded up to even) the n' / 2 disjoint column pairs are rotated at once, one warp per
// pair (the inner products over the m rows summed by a fixed butterfly of shuffles). Sweeps stop
// when every pair's |<a_p, a_q>| / (|a_p| |a_q|) is below 1e-14 (at most 60), as on the host.
// Then s_j = |column j|, and x = M V diag(f) V^H with f_j = max(0, s_j - tau) / s_j is written
// straight to the output (which may be the input: blocks are disjoint), or the nuclear norm
// sum_j s_j of each block goes to a per-block array summed on the host in block order.
// cuSOLVER's gesvdjBatched is not used: it takes matrices of at most 32 x 32, and an 8 x 8 block
// already has 64 rows.
//
// Variants for tuning on a device (read at every call): KRAY_LLR_GPU=shared|global forces
// where the matrices live (default: shared memory when they fit the device's opt-in limit),
// KRAY_LLR_GPU_THREADS=64..1024 (a multiple of 32; default 256) the threads per block.
#include <cuda_runtime.h>

#include "cuda_util.cuh"
#include "internal.h"
#include "prox_llr_internal.h"
#include "prox_llr_kern.h"

#include <stdlib.h>
#include <string.h>

namespace {

template <typename T, bool C> __device__ __forceinline__ double2 ld(const T *v, int64_t e)
{
    return C ? make_double2((double)v[2 * e], (double)v[2 * e + 1]) : make_double2((double)v[e], 0.0);
}

template <typename T, bool C> __device__ __forceinline__ void st(T *x, int64_t e, double2 a)
{
    if (C) {
        x[2 * e] = (T)a.x;
        x[2 * e + 1] = (T)a.y;
    } else {
        x[e] = (T)a.x;
    }
}

__device__ __forceinline__ double warp_sum(double a)
{
    for (int o = 16; o > 0; o >>= 1) a += __shfl_xor_sync(0xffffffffu, a, o);
    return a;
}

// Pair k of round r of the circle method over np (even) players: player np - 1 stays, the
// others turn; every pair meets once in np - 1 rounds.
__device__ __forceinline__ void rr_pair(int np, int r, int k, int *p, int *q)
{
    if (k == 0) {
        *p = r;
        *q = np - 1;
    } else {
        *p = (r + k) % (np - 1);
        *q = (r - k + np - 1) % (np - 1);
    }
    if (*p > *q) {
        const int t = *p;
        *p = *q;
        *q = t;
    }
}

template <typename T, bool C>
__global__ void k_llr_svt(kri_llr_desc d, int64_t b0, const T *v, T *x, double tau,
                          double *bsum, double2 *slab, int64_t per_block, int use_shared)
{
    extern __shared__ double2 smem[];
    __shared__ int64_t lo[KR_MAX_DIMS], ext[KR_MAX_DIMS];
    __shared__ int64_t cnt_s;
    __shared__ double wmax[32];
    __shared__ int done_s;
    const int64_t b = b0 + blockIdx.x;
    if (b >= d.nblocks) return;
    double2 *M = use_shared ? smem : slab + (int64_t)blockIdx.x * per_block;
    if (threadIdx.x == 0) cnt_s = kri_llr_block(&d, b, lo, ext);
    __syncthreads();
    const int64_t m = cnt_s, n = d.n, cs = d.stride[d.axis];
    double2 *V = M + m * n;
    double *s = (double *)(V + n * n);
    for (int64_t e = threadIdx.x; e < m * n; e += blockDim.x) {
        const int64_t k = e % m, j = e / m;
        M[e] = ld<T, C>(v, kri_llr_offset(&d, lo, ext, k) + j * cs);
    }
    for (int64_t e = threadIdx.x; e < n * n; e += blockDim.x)
        V[e] = make_double2(e % n == e / n ? 1.0 : 0.0, 0.0);
    __syncthreads();
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nw = blockDim.x / 32;
    const int np = (int)((n + 1) & ~(int64_t)1);
    for (int sweep = 0; sweep < 60 && n > 1; sweep++) {
        double off = 0.0;
        for (int r = 0; r < np - 1; r++) {
            for (int k = warp; k < np / 2; k += nw) {
                int p, q;
                rr_pair(np, r, k, &p, &q);
                if (q >= n) continue;
                double2 *ap = M + (int64_t)p * m, *aq = M + (int64_t)q * m;
                double al = 0, be = 0, gr = 0, gi = 0;
                for (int64_t i = lane; i < m; i += 32) {
                    const double2 a = ap[i], c = aq[i];
                    al += a.x * a.x + a.y * a.y;
                    be += c.x * c.x + c.y * c.y;
                    gr += a.x * c.x + a.y * c.y; // conj(a_p) a_q
                    gi += a.x * c.y - a.y * c.x;
                }
                al = warp_sum(al);
                be = warp_sum(be);
                gr = warp_sum(gr);
                gi = warp_sum(gi);
                double er, ei, c, sn, r;
                if (!kri_llr_rotation(al, be, gr, gi, &er, &ei, &c, &sn, &r)) continue;
                off = fmax(off, r);
                for (int w = 0; w < 2; w++) {
                    double2 *X = w == 0 ? M : V;
                    const int64_t rows = w == 0 ? m : n;
                    double2 *xp = X + (int64_t)p * rows, *xq = X + (int64_t)q * rows;
                    for (int64_t i = lane; i < rows; i += 32) {
                        const double2 a = xp[i], o = xq[i];
                        const double qr = o.x * er - o.y * ei, qi = o.x * ei + o.y * er;
                        xp[i] = make_double2(c * a.x - sn * qr, c * a.y - sn * qi);
                        xq[i] = make_double2(sn * a.x + c * qr, sn * a.y + c * qi);
                    }
                }
            }
            __syncthreads();
        }
        if (lane == 0) wmax[warp] = off;
        __syncthreads();
        if (threadIdx.x == 0) {
            double o = 0;
            for (int w = 0; w < nw; w++) o = fmax(o, wmax[w]);
            done_s = o < 1e-14;
        }
        __syncthreads();
        if (done_s) break;
    }
    for (int64_t j = warp; j < n; j += nw) {
        double ss = 0;
        for (int64_t i = lane; i < m; i += 32) {
            const double2 a = M[j * m + i];
            ss += a.x * a.x + a.y * a.y;
        }
        ss = warp_sum(ss);
        if (lane == 0) s[j] = sqrt(ss);
    }
    __syncthreads();
    if (bsum) {
        if (threadIdx.x == 0) {
            double t = 0;
            for (int64_t j = 0; j < n; j++) t += s[j];
            bsum[b] = t;
        }
        return;
    }
    // x[i, k] = sum_j M[i, j] f_j conj(V[k, j])
    for (int64_t e = threadIdx.x; e < m * n; e += blockDim.x) {
        const int64_t i = e % m, kc = e / m;
        double ar = 0, ai = 0;
        for (int64_t j = 0; j < n; j++) {
            const double f = s[j] > tau ? (s[j] - tau) / s[j] : 0.0;
            if (f == 0.0) continue;
            const double2 a = M[j * m + i], w = V[j * n + kc];
            ar += f * (a.x * w.x + a.y * w.y);
            ai += f * (a.y * w.x - a.x * w.y);
        }
        // x may be v: the block was read into M before the first barrier, and blocks are
        // disjoint, so nothing reads these elements any more
        st<T, C>(x, kri_llr_offset(&d, lo, ext, i) + kc * cs, make_double2(ar, ai));
    }
}

struct Variant {
    int mode;    // 0 auto, 1 shared, 2 global
    int threads; // per block
};

Variant variant()
{
    Variant v;
    const char *m = getenv("KRAY_LLR_GPU"), *t = getenv("KRAY_LLR_GPU_THREADS");
    v.mode = m && !strcmp(m, "shared") ? 1 : (m && !strcmp(m, "global") ? 2 : 0);
    v.threads = t ? atoi(t) : 256;
    if (v.threads < 64 || v.threads > 1024 || v.threads % 32) v.threads = 256;
    return v;
}

template <typename T, bool C>
kr_status launch(const kr_ctx *ctx, const kri_llr_desc *d, const void *v, void *x, double tau,
                 double *bsum, kr_array **scratch)
{
    const Variant var = variant();
    const int64_t per = d->mmax * d->n + d->n * d->n + (d->n + 1) / 2; // double2 slots
    const size_t bytes = (size_t)per * sizeof(double2);
    int optin = 0;
    KRI_TRY(kri_cu_err(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin,
                                              kr_ctx_device(ctx)),
                       "cudaDeviceGetAttribute"));
    /* the kernel's static shared memory (block geometry, warp maxima) needs under 1 KB more */
    const size_t room = optin > 1024 ? (size_t)optin - 1024 : 0;
    int shared = var.mode == 1 || (var.mode == 0 && bytes <= room);
    if (shared && bytes > room)
        return kri_fail(KR_ERR_NOT_SUPPORTED, "locally-low-rank prox: a %lld x %lld block needs "
                        "%zu bytes of shared memory, the device has %zu (unset KRAY_LLR_GPU)",
                        (long long)d->mmax, (long long)d->n, bytes, room);
    if (shared && bytes > 48 * 1024)
        KRI_TRY(kri_cu_err(cudaFuncSetAttribute(k_llr_svt<T, C>,
                                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                (int)bytes),
                           "cudaFuncSetAttribute"));
    /* scratch: (global variant) one slab per block of a chunk, then the block sums */
    int64_t chunk = d->nblocks;
    if (!shared) {
        const int64_t cap = (int64_t)(((size_t)512 << 20) / bytes);
        chunk = cap < 1 ? 1 : (cap < chunk ? cap : chunk);
    }
    const int64_t slab_doubles = shared ? 0 : 2 * per * chunk;
    const int64_t need = slab_doubles + d->nblocks;
    if (!*scratch || kr_array_numel(*scratch) < need) {
        kr_array_destroy(*scratch);
        *scratch = NULL;
        KRI_TRY(kr_array_create(scratch, KR_F64, 1, &need, KR_DEVICE, ctx));
    }
    double2 *slab = shared ? nullptr : (double2 *)(*scratch)->data;
    double *sums = (double *)(*scratch)->data + slab_doubles;
    cudaStream_t s = kri_cu_stream(ctx);
    for (int64_t b0 = 0; b0 < d->nblocks; b0 += chunk) {
        const int64_t nbk = d->nblocks - b0 < chunk ? d->nblocks - b0 : chunk;
        k_llr_svt<T, C><<<(unsigned)nbk, var.threads, shared ? bytes : 0, s>>>(
            *d, b0, (const T *)v, (T *)x, tau, bsum ? sums : nullptr, slab, per, shared);
        KRI_TRY(kri_cu_launched("k_llr_svt"));
    }
    if (bsum)
        KRI_TRY(kri_cu_err(cudaMemcpyAsync(bsum, sums, sizeof(double) * (size_t)d->nblocks,
                                           cudaMemcpyDeviceToHost, s),
                           "cudaMemcpyAsync"));
    return kri_cu_err(cudaStreamSynchronize(s), "cudaStreamSynchronize");
}

} // namespace

static kr_status kri_cuda_llr_svt(const kr_ctx *ctx, kr_dtype t, const kri_llr_desc *d,
                                  const void *v, void *x, double tau, double *value,
                                  kr_array **scratch)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    double *bsum = nullptr;
    if (value) {
        bsum = (double *)malloc(sizeof(double) * (size_t)d->nblocks);
        if (!bsum) return kri_fail(KR_ERR_OOM_HOST, "locally-low-rank prox: block sums");
    }
    kr_status st;
    switch (t) {
    case KR_F32: st = launch<float, false>(ctx, d, v, x, tau, bsum, scratch); break;
    case KR_F64: st = launch<double, false>(ctx, d, v, x, tau, bsum, scratch); break;
    case KR_C64: st = launch<float, true>(ctx, d, v, x, tau, bsum, scratch); break;
    case KR_C128: st = launch<double, true>(ctx, d, v, x, tau, bsum, scratch); break;
    default: st = kri_fail(KR_ERR_DTYPE, "locally-low-rank prox on %s", kr_dtype_name(t));
    }
    if (st == KR_OK && value) {
        double total = 0;
        for (int64_t b = 0; b < d->nblocks; b++) total += bsum[b];
        *value = total;
    }
    free(bsum);
    return st;
}

extern "C" const kri_llr_backend kri_llr_cuda = {{"cuda", true}, kri_cuda_llr_svt};
