/* Ramp filters on the GPU: pack (pre-weights, two real rows per complex row, zero padding),
 * multiply by the real response, unpack (plain rows or padded interpolation pairs), and the
 * direct O(ndet^2) convolution. The FFTs themselves are kray/fft.h device plans, called by
 * filter.c between these launches, all on the ctx's stream. */
#include "fbp_internal.h"

#include <cuda_runtime.h>

namespace
{

constexpr int kThreads = 256;
constexpr int kMaxBlocks = 65535;
constexpr int kTile = 1024; /* direct convolution: samples staged per pass */

template <typename T> struct cplx;
template <> struct cplx<float> {
    typedef float2 type;
};
template <> struct cplx<double> {
    typedef double2 type;
};

kr_status check_launch(const char *what)
{
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return kri_fail(KR_ERR_CUDA, "launching %s failed: %s", what, cudaGetErrorString(e));
    return KR_OK;
}

int grid_for(long long n)
{
    long long b = (n + kThreads - 1) / kThreads;
    if (b < 1) b = 1;
    return b > kMaxBlocks ? kMaxBlocks : (int)b;
}

template <typename T>
__device__ __forceinline__ T row_weight(const kri_rowweights &w, long long r, long long m,
                                        long long N)
{
    T v = (T)1;
    if (w.pre) v = ((const T *)w.pre)[m + N * ((r / w.pre_div) % w.pre_rows)];
    if (w.rs) v *= ((const T *)w.rs)[(r / w.rs_div) % w.rs_count];
    return v;
}

/* work[pr * L + m] = (x_{2pr}[m], x_{2pr+1}[m]) for m < N, 0 for m >= N. */
template <typename T>
__global__ void k_filter_pack(const T *__restrict__ in, long long is, kri_rowweights w,
                              typename cplx<T>::type *__restrict__ work, long long N, long long R,
                              long long L)
{
    const long long total = L * ((R + 1) / 2);
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        long long m = i % L, pr = i / L;
        long long r0 = 2 * pr, r1 = r0 + 1;
        typename cplx<T>::type c;
        c.x = (T)0;
        c.y = (T)0;
        if (m < N) {
            c.x = in[r0 * is + m] * row_weight<T>(w, r0, m, N);
            if (r1 < R) c.y = in[r1 * is + m] * row_weight<T>(w, r1, m, N);
        }
        work[i] = c;
    }
}

template <typename T>
__global__ void k_filter_mul(typename cplx<T>::type *__restrict__ work, const T *__restrict__ resp,
                             long long L, long long total)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        T h = resp[i % L];
        typename cplx<T>::type c = work[i];
        c.x *= h;
        c.y *= h;
        work[i] = c;
    }
}

/* Filtered value of row r at position m: 0 .. N-1 in PLAIN mode; -1 .. N (index L - 1 for -1)
 * in PAIRS mode, 0 beyond. */
template <typename T>
__device__ __forceinline__ T unpacked(const typename cplx<T>::type *work, long long L, long long N,
                                      long long r, long long m)
{
    if (m < -1 || m > N) return (T)0;
    typename cplx<T>::type c = work[(r / 2) * L + (m < 0 ? L - 1 : m)];
    return (r & 1) ? c.y : c.x;
}

template <typename T>
__global__ void k_filter_unpack(const typename cplx<T>::type *__restrict__ work, long long L,
                                T *__restrict__ out, long long os, int pairs, long long N,
                                long long R)
{
    const long long w = pairs ? KRI_PAD_ROW(N) : N;
    const long long total = w * R;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        long long j = i % w, r = i / w;
        if (!pairs) {
            out[r * os + j] = unpacked<T>(work, L, N, r, j);
        } else {
            T va = unpacked<T>(work, L, N, r, j - KRI_PAD);
            T vb = unpacked<T>(work, L, N, r, j - KRI_PAD + 1);
            out[r * os + 2 * j] = va;
            out[r * os + 2 * j + 1] = vb - va;
        }
    }
}

/* plain: rows of N + 2 values at positions -1 .. N. */
template <typename T>
__global__ void k_filter_pairs(const T *__restrict__ plain, T *__restrict__ out, long long os,
                               long long N, long long R)
{
    const long long w = KRI_PAD_ROW(N);
    const long long total = w * R;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
         i += (long long)gridDim.x * blockDim.x) {
        long long j = i % w, r = i / w;
        long long a = j - KRI_PAD, b = a + 1;
        T va = (a >= -1 && a <= N) ? plain[r * (N + 2) + a + 1] : (T)0;
        T vb = (b >= -1 && b <= N) ? plain[r * (N + 2) + b + 1] : (T)0;
        out[r * os + 2 * j] = va;
        out[r * os + 2 * j + 1] = vb - va;
    }
}

/* out[k + shift] = sum_m kern[|k - m|] x[m] (lags < N), x = pre-weighted row, for
 * k = -shift .. N - 1 + shift; a block (kThreads) covers kThreads outputs of one row; the row
 * is staged in kTile pieces. Sum in ascending m, as the CPU. */
template <typename T>
__global__ void k_filter_direct(const T *__restrict__ in, long long is, kri_rowweights w,
                                const T *__restrict__ kern, T *__restrict__ out, long long os,
                                int shift, long long N, long long R)
{
    __shared__ T xs[kTile];
    const long long nout = N + 2 * shift;
    const long long kblocks = (nout + kThreads - 1) / kThreads;
    for (long long b = blockIdx.x; b < kblocks * R; b += gridDim.x) {
        const long long r = b / kblocks;
        const long long o = (b % kblocks) * kThreads + threadIdx.x; /* output index */
        const long long k = o - shift;                              /* position */
        T acc = (T)0;
        for (long long m0 = 0; m0 < N; m0 += kTile) {
            __syncthreads();
            for (int t = threadIdx.x; t < kTile; t += blockDim.x) {
                long long m = m0 + t;
                xs[t] = m < N ? in[r * is + m] * row_weight<T>(w, r, m, N) : (T)0;
            }
            __syncthreads();
            if (o < nout) {
                long long mend = N - m0 < kTile ? N - m0 : kTile;
                for (long long t = 0; t < mend; t++) {
                    long long d = k - (m0 + t);
                    d = d < 0 ? -d : d;
                    if (d < N) acc += kern[d] * xs[t];
                }
            }
        }
        if (o < nout) out[r * os + o] = acc;
    }
}

} // namespace

extern "C" kr_status kri_cuda_filter_pack(void *stream, int f64, const void *in, int64_t in_stride,
                                          kri_rowweights w, void *work, int64_t ndet, int64_t nrows,
                                          int64_t L)
{
    cudaStream_t st = (cudaStream_t)stream;
    long long total = (long long)L * ((nrows + 1) / 2);
    if (f64)
        k_filter_pack<double><<<grid_for(total), kThreads, 0, st>>>(
            (const double *)in, in_stride, w, (double2 *)work, ndet, nrows, L);
    else
        k_filter_pack<float><<<grid_for(total), kThreads, 0, st>>>((const float *)in, in_stride, w,
                                                                   (float2 *)work, ndet, nrows, L);
    return check_launch("k_filter_pack");
}

extern "C" kr_status kri_cuda_filter_mul(void *stream, int f64, void *work, const void *resp,
                                         int64_t L, int64_t npairs)
{
    cudaStream_t st = (cudaStream_t)stream;
    long long total = (long long)L * npairs;
    if (f64)
        k_filter_mul<double>
            <<<grid_for(total), kThreads, 0, st>>>((double2 *)work, (const double *)resp, L, total);
    else
        k_filter_mul<float>
            <<<grid_for(total), kThreads, 0, st>>>((float2 *)work, (const float *)resp, L, total);
    return check_launch("k_filter_mul");
}

extern "C" kr_status kri_cuda_filter_unpack(void *stream, int f64, const void *work, int64_t L,
                                            void *out, int64_t out_stride, int mode, int64_t ndet,
                                            int64_t nrows)
{
    cudaStream_t st = (cudaStream_t)stream;
    int pairs = mode == KRI_FILTER_PAIRS;
    long long total = (long long)(pairs ? KRI_PAD_ROW(ndet) : ndet) * nrows;
    if (f64)
        k_filter_unpack<double><<<grid_for(total), kThreads, 0, st>>>(
            (const double2 *)work, L, (double *)out, out_stride, pairs, ndet, nrows);
    else
        k_filter_unpack<float><<<grid_for(total), kThreads, 0, st>>>(
            (const float2 *)work, L, (float *)out, out_stride, pairs, ndet, nrows);
    return check_launch("k_filter_unpack");
}

extern "C" kr_status kri_cuda_filter_direct(void *stream, int f64, const void *in,
                                            int64_t in_stride, kri_rowweights w, const void *kern,
                                            void *out, int64_t out_stride, int shift, int64_t ndet,
                                            int64_t nrows)
{
    cudaStream_t st = (cudaStream_t)stream;
    long long blocks = ((ndet + 2 * shift + kThreads - 1) / kThreads) * (long long)nrows;
    int grid = blocks > kMaxBlocks ? kMaxBlocks : (int)blocks;
    if (f64)
        k_filter_direct<double><<<grid, kThreads, 0, st>>>((const double *)in, in_stride, w,
                                                           (const double *)kern, (double *)out,
                                                           out_stride, shift, ndet, nrows);
    else
        k_filter_direct<float><<<grid, kThreads, 0, st>>>((const float *)in, in_stride, w,
                                                          (const float *)kern, (float *)out,
                                                          out_stride, shift, ndet, nrows);
    return check_launch("k_filter_direct");
}

extern "C" kr_status kri_cuda_filter_pairs(void *stream, int f64, const void *plain, void *out,
                                           int64_t out_stride, int64_t ndet, int64_t nrows)
{
    cudaStream_t st = (cudaStream_t)stream;
    long long total = (long long)KRI_PAD_ROW(ndet) * nrows;
    if (f64)
        k_filter_pairs<double><<<grid_for(total), kThreads, 0, st>>>(
            (const double *)plain, (double *)out, out_stride, ndet, nrows);
    else
        k_filter_pairs<float><<<grid_for(total), kThreads, 0, st>>>(
            (const float *)plain, (float *)out, out_stride, ndet, nrows);
    return check_launch("k_filter_pairs");
}
