/* Ramp filters on the GPU (kri_filter_cuda, filter_internal.h): pack (pre-weights, two real rows
 * per complex row, zero padding), multiply by the real response, unpack (plain rows or padded
 * interpolation pairs), and the direct O(ndet^2) convolution. The FFTs themselves are kray/fft.h
 * device plans (or cuFFT plans with store callbacks, filter_cufft.cu), run between these
 * launches, all on the ctx's stream. The backend's create verb uploads the plan's tables and
 * makes its device buffers and transforms; execution only launches. */
#include "ct/filter_internal.h"

#include <cuda_runtime.h>
#include <string.h>

#include "cuda_util.cuh"

/* Pre-weight tables as in kr_filter_opts: pre row (r / pre_div) % pre_rows, scale
 * rs[(r / rs_div) % rs_count]; NULL tables mean 1. */
typedef struct kri_rowweights {
    const void *pre, *rs;
    int64_t pre_rows, pre_div, rs_count, rs_div;
} kri_rowweights;

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

/* ---- launchers: T = float when f64 == 0, double otherwise; on `stream`, launch checked, no
 * synchronisation ---------------------------------------------------------------------------- */
static kr_status kri_cuda_filter_pack(void *stream, int f64, const void *in, int64_t in_stride,
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
    return kri_cu_launched("k_filter_pack");
}

static kr_status kri_cuda_filter_mul(void *stream, int f64, void *work, const void *resp,
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
    return kri_cu_launched("k_filter_mul");
}

static kr_status kri_cuda_filter_unpack(void *stream, int f64, const void *work, int64_t L,
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
    return kri_cu_launched("k_filter_unpack");
}

/* Direct convolution: out[r * out_stride + k + shift] = filtered position k for
 * k = -shift .. ndet - 1 + shift (shift 0: positions 0 .. ndet-1; shift 1: -1 .. ndet). */
static kr_status kri_cuda_filter_direct(void *stream, int f64, const void *in, int64_t in_stride,
                                        kri_rowweights w, const void *kern, void *out,
                                        int64_t out_stride, int shift, int64_t ndet, int64_t nrows)
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
    return kri_cu_launched("k_filter_direct");
}

/* plain: rows of ndet + 2 values holding positions -1 .. ndet (from the direct kernel). */
static kr_status kri_cuda_filter_pairs(void *stream, int f64, const void *plain, void *out,
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
    return kri_cu_launched("k_filter_pairs");
}

/* ---- the CUDA table -------------------------------------------------------------------------- */
/* The device state of a plan (kri_filter_cuda.create), buffers in the plan's dtype. */
typedef struct kri_filter_dev {
    kri_filter_state base; /* fused: cb != NULL */
    void *d_kern, *d_resp, *d_pre, *d_rs, *d_work, *d_plain;
    void *d_in; /* with cb and no cuFFT workspace: the packed input, zero padding kept */
    kri_filter_cufft *cb; /* transforms with store callbacks, or NULL (then fwd/bwd and separate
                           * passes; bwd serves PAIRS either way) */
    kr_fft_plan *fwd, *bwd;
} kri_filter_dev;

static void kri_filter_cuda_destroy(kri_filter_state *state)
{
    kri_filter_dev *st = (kri_filter_dev *)state;
    if (!st) return;
    kr_fft_plan_destroy(st->fwd);
    kr_fft_plan_destroy(st->bwd);
    kri_device_free(st->d_kern);
    kri_device_free(st->d_resp);
    kri_device_free(st->d_pre);
    kri_device_free(st->d_rs);
    kri_device_free(st->d_work);
    kri_device_free(st->d_plain);
    kri_device_free(st->d_in);
    kri_filter_cufft_destroy(st->cb);
    kri_free(st);
}

extern "C" kr_status kri_cuda_upload_as(const kr_ctx *ctx, kr_dtype dt, void **dst,
                                        const double *src, int64_t n, const char *what)
{
    size_t es = kr_dtype_size(dt);
    KRI_TRY(kri_device_alloc(dst, (size_t)n * es, kr_ctx_device(ctx), what));
    void *tmp;
    KRI_TRY(kri_alloc(&tmp, (size_t)n * es, what));
    if (dt == KR_F32)
        for (int64_t i = 0; i < n; i++) ((float *)tmp)[i] = (float)src[i];
    else
        memcpy(tmp, src, (size_t)n * es);
    kr_status s = kri_memcpy(*dst, KR_DEVICE, tmp, KR_HOST, (size_t)n * es, ctx);
    kri_free(tmp);
    return s;
}

/* The device tables, buffers and transforms of plan p into st. */
static kr_status kri_filter_cuda_make(const kr_filter_plan *p, kri_filter_dev *st)
{
    const kr_ctx *ctx = p->ctx;
    const kr_dtype dt = p->o.dtype;
    const int dev = kr_ctx_device(ctx);
    const size_t es = kr_dtype_size(dt);
    KRI_TRY(kri_cuda_set_device(ctx));
    if (p->pre_rows)
        KRI_TRY(kri_cuda_upload_as(ctx, dt, &st->d_pre, p->pre, p->ndet * p->pre_rows,
                                   "filter pre-weights"));
    if (p->rs_count)
        KRI_TRY(kri_cuda_upload_as(ctx, dt, &st->d_rs, p->rs, p->rs_count, "filter row scales"));
    if (p->o.method != KR_FILTER_FFT) {
        KRI_TRY(kri_cuda_upload_as(ctx, dt, &st->d_kern, p->kern, p->ndet, "filter kernel"));
        return kri_device_alloc(&st->d_plain, (size_t)((p->ndet + 2) * p->nrows) * es, dev,
                                "filter work");
    }
    const size_t wb = (size_t)(p->L * p->npairs) * 2 * es;
    KRI_TRY(kri_cuda_upload_as(ctx, dt, &st->d_resp, p->resp, p->L, "filter response"));
    KRI_TRY(kri_device_alloc(&st->d_work, wb, dev, "filter work"));
    size_t ws = 0;
    KRI_TRY(kri_filter_cufft_create(&st->cb, ctx, dt == KR_F64, p->o.fuse, p->L, p->npairs,
                                    p->ndet, p->nrows, st->d_resp, &ws));
    st->base.fused = st->cb != NULL;
    /* out of place forward from an input whose zero padding is written once: packing then
     * writes ndet of L columns (the memory cuFFT's workspace would take) */
    if (st->cb && ws == 0) {
        KRI_TRY(kri_device_alloc(&st->d_in, wb, dev, "filter input"));
        KRI_TRY(kri_device_memset0(st->d_in, wb, ctx));
    }
    /* the plain transforms: both without the callbacks; with them the inverse one for PAIRS
     * output (all planning here, none in a run) */
    const int64_t wdims[2] = {p->L, p->npairs};
    if (!st->cb)
        KRI_TRY(kr_fft_plan_create(&st->fwd, ctx, kr_dtype_complex(dt), 2, wdims, 1u,
                                   KR_FFT_FORWARD, 0, KR_DEVICE));
    return kr_fft_plan_create(&st->bwd, ctx, kr_dtype_complex(dt), 2, wdims, 1u, KR_FFT_BACKWARD,
                              0, KR_DEVICE);
}

static kr_status kri_filter_cuda_create(const kr_filter_plan *p, kri_filter_state **out)
{
    *out = NULL;
    kri_filter_dev *st = (kri_filter_dev *)kri_calloc(1, sizeof *st);
    if (!st) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a filter plan");
    kr_status s = kri_filter_cuda_make(p, st);
    if (s == KR_OK)
        *out = &st->base;
    else
        kri_filter_cuda_destroy(&st->base);
    return s;
}

static void *kri_filter_cuda_packed_work(const kr_filter_plan *p, kri_filter_state *state,
                                         int *pad_zero)
{
    kri_filter_dev *st = (kri_filter_dev *)state;
    *pad_zero = st->d_in != NULL;
    if (p->o.method != KR_FILTER_FFT) return NULL;
    return st->d_in ? st->d_in : st->d_work;
}

static kr_status kri_filter_cuda_run_packed(const kr_filter_plan *p, kri_filter_state *state,
                                            void *out, int64_t out_stride, kri_filter_out mode)
{
    kri_filter_dev *st = (kri_filter_dev *)state;
    void *stream = kr_ctx_stream(p->ctx);
    const int f64 = p->o.dtype == KR_F64;
    kr_array wa;
    int64_t dims[2] = {p->L, p->npairs};
    KRI_TRY(kri_cuda_set_device(p->ctx));
    KRI_TRY(kr_array_wrap(&wa, kr_dtype_complex(p->o.dtype), 2, dims, st->d_work, KR_DEVICE));
    wa.device = kr_ctx_device(p->ctx);
    if (st->cb) {
        KRI_TRY(kri_filter_cufft_forward(st->cb, stream, st->d_in ? st->d_in : st->d_work,
                                         st->d_work));
        if (mode == KRI_FILTER_PLAIN)
            return kri_filter_cufft_inverse_plain(st->cb, stream, st->d_work, out, out_stride);
    } else {
        KRI_TRY(kr_fft_execute(st->fwd, &wa, &wa));
        KRI_TRY(kri_cuda_filter_mul(stream, f64, st->d_work, st->d_resp, p->L, p->npairs));
    }
    KRI_TRY(kr_fft_execute(st->bwd, &wa, &wa));
    return kri_cuda_filter_unpack(stream, f64, st->d_work, p->L, out, out_stride, (int)mode,
                                  p->ndet, p->nrows);
}

static kr_status kri_filter_cuda_run(const kr_filter_plan *p, kri_filter_state *state,
                                     const void *in, int64_t in_stride, void *out,
                                     int64_t out_stride, kri_filter_out mode)
{
    kri_filter_dev *st = (kri_filter_dev *)state;
    const int f64 = p->o.dtype == KR_F64;
    void *stream = kr_ctx_stream(p->ctx);
    KRI_TRY(kri_cuda_set_device(p->ctx));
    kri_rowweights rw = {st->d_pre, st->d_rs, p->pre_rows, p->pre_div, p->rs_count, p->rs_div};
    if (p->o.method == KR_FILTER_FFT) {
        KRI_TRY(kri_cuda_filter_pack(stream, f64, in, in_stride, rw,
                                     st->d_in ? st->d_in : st->d_work, p->ndet, p->nrows, p->L));
        return kri_filter_cuda_run_packed(p, state, out, out_stride, mode);
    }
    if (mode == KRI_FILTER_PLAIN)
        return kri_cuda_filter_direct(stream, f64, in, in_stride, rw, st->d_kern, out, out_stride,
                                      0, p->ndet, p->nrows);
    /* positions -1 .. N into rows of N + 2 (index = position + 1) */
    KRI_TRY(kri_cuda_filter_direct(stream, f64, in, in_stride, rw, st->d_kern, st->d_plain,
                                   p->ndet + 2, 1, p->ndet, p->nrows));
    return kri_cuda_filter_pairs(stream, f64, st->d_plain, out, out_stride, p->ndet, p->nrows);
}

extern "C" const kri_filter_backend kri_filter_cuda = {
    {"cuda", true}, kri_filter_cuda_create, kri_filter_cuda_run, kri_filter_cuda_packed_work,
    kri_filter_cuda_run_packed, kri_filter_cuda_destroy};
