// Device vector operations for kr_vec_* (kri_vec_cuda, solve_internal.h): elementwise kernels and
// deterministic reductions.
//
// Elementwise kernels round the scalar to the element precision and use explicitly rounded
// multiplies and adds (no FMA contraction), so they compute what the host loops compute.
// Reductions (dot, sum of squares) run in two passes in double: pass 1 gives one partial per
// chunk of KRI_VEC_CHUNK elements (one block, fixed tree), pass 2 sums the partials with one
// block (fixed strided order, then a fixed tree). The grid depends only on n, so the result is
// the same on every run; it may differ from the host's chunk-sequential sum in the last bits.
#include <cuda_runtime.h>

#include "internal.h"
#include "solve_internal.h"

namespace {

constexpr int kThreads = KRI_VEC_THREADS;
constexpr int kChunk = KRI_VEC_CHUNK;
constexpr int kFinalThreads = 1024;
static_assert(kChunk % kThreads == 0, "chunk must be a multiple of the block size");

__device__ __forceinline__ float mul_rn(float a, float b) { return __fmul_rn(a, b); }
__device__ __forceinline__ double mul_rn(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ float add_rn(float a, float b) { return __fadd_rn(a, b); }
__device__ __forceinline__ double add_rn(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ float sub_rn(float a, float b) { return __fsub_rn(a, b); }
__device__ __forceinline__ double sub_rn(double a, double b) { return __dsub_rn(a, b); }

kr_status cuda_fail(cudaError_t e, const char *what)
{
    if (e == cudaErrorMemoryAllocation)
        return kri_fail(KR_ERR_OOM_DEVICE, "out of device memory (%s)", what);
    return kri_fail(KR_ERR_CUDA, "%s failed: %s", what, cudaGetErrorString(e));
}

kr_status launch_check(const char *kernel)
{
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess)
        return kri_fail(KR_ERR_CUDA, "launching %s failed: %s", kernel, cudaGetErrorString(e));
    return KR_OK;
}

kr_status set_device(const kr_ctx *ctx)
{
    cudaError_t e = cudaSetDevice(kr_ctx_device(ctx));
    return e == cudaSuccess ? KR_OK : cuda_fail(e, "cudaSetDevice");
}

cudaStream_t stream_of(const kr_ctx *ctx) { return (cudaStream_t)kr_ctx_stream(ctx); }

// Blocks for a grid-stride loop over n items.
unsigned grid_for(int64_t n)
{
    int64_t b = (n + kThreads - 1) / kThreads;
    if (b > 65536) b = 65536;
    if (b < 1) b = 1;
    return (unsigned)b;
}

bool is_single(kr_dtype t) { return t == KR_F32 || t == KR_C64; }
bool is_complex(kr_dtype t) { return t == KR_C64 || t == KR_C128; }

// ---- elementwise -------------------------------------------------------------------------------
// OP 0: x = a x; OP 1: y += a x; OP 2: y = x + a y.
template <typename T, bool C, int OP>
__global__ void k_vec_elem(int64_t n, T *y, const T *x, T ar, T ai) // x may be y: no restrict
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        if (!C) {
            if (OP == 0)
                y[i] = mul_rn(ar, y[i]);
            else if (OP == 1)
                y[i] = add_rn(y[i], mul_rn(ar, x[i]));
            else
                y[i] = add_rn(x[i], mul_rn(ar, y[i]));
        } else {
            const T yr = y[2 * i], yi = y[2 * i + 1];
            if (OP == 0) {
                y[2 * i] = sub_rn(mul_rn(ar, yr), mul_rn(ai, yi));
                y[2 * i + 1] = add_rn(mul_rn(ar, yi), mul_rn(ai, yr));
            } else if (OP == 1) {
                const T xr = x[2 * i], xi = x[2 * i + 1];
                y[2 * i] = add_rn(yr, sub_rn(mul_rn(ar, xr), mul_rn(ai, xi)));
                y[2 * i + 1] = add_rn(yi, add_rn(mul_rn(ar, xi), mul_rn(ai, xr)));
            } else {
                const T xr = x[2 * i], xi = x[2 * i + 1];
                y[2 * i] = add_rn(xr, sub_rn(mul_rn(ar, yr), mul_rn(ai, yi)));
                y[2 * i + 1] = add_rn(xi, add_rn(mul_rn(ar, yi), mul_rn(ai, yr)));
            }
        }
    }
}

template <typename T, bool C, int OP>
kr_status launch_elem(const kr_ctx *ctx, int64_t n, void *y, const void *x, double re, double im)
{
    k_vec_elem<T, C, OP><<<grid_for(n), kThreads, 0, stream_of(ctx)>>>(
        n, static_cast<T *>(y), static_cast<const T *>(x), (T)re, (T)im);
    return launch_check("k_vec_elem");
}

template <int OP>
kr_status elem(const kr_ctx *ctx, kr_dtype t, int64_t n, void *y, const void *x, double re,
               double im)
{
    if (n <= 0) return KR_OK;
    KRI_TRY(set_device(ctx));
    switch (t) {
    case KR_F32: return launch_elem<float, false, OP>(ctx, n, y, x, re, im);
    case KR_F64: return launch_elem<double, false, OP>(ctx, n, y, x, re, im);
    case KR_C64: return launch_elem<float, true, OP>(ctx, n, y, x, re, im);
    case KR_C128: return launch_elem<double, true, OP>(ctx, n, y, x, re, im);
    default: return kri_fail(KR_ERR_DTYPE, "device vector operation on %s", kr_dtype_name(t));
    }
}

// ---- reductions --------------------------------------------------------------------------------
// Block tree over kThreads (or kFinalThreads) doubles in shared memory, fixed order.
template <int NT>
__device__ void block_tree(double *sre, double *sim)
{
    const int t = threadIdx.x;
    for (int s = NT / 2; s > 0; s >>= 1) {
        __syncthreads();
        if (t < s) {
            sre[t] += sre[t + s];
            sim[t] += sim[t + s];
        }
    }
    __syncthreads();
}

// Pass 1: block c sums chunk c. DOT: conj(x) y; else |x|^2 (y unused).
template <typename T, bool C, bool DOT>
__global__ void k_vec_reduce_chunks(int64_t n, const T *__restrict__ x, const T *__restrict__ y,
                                    double *__restrict__ part)
{
    __shared__ double sre[kThreads], sim[kThreads];
    const int64_t c = blockIdx.x;
    const int64_t i0 = c * kChunk;
    const int64_t i1 = i0 + kChunk < n ? i0 + kChunk : n;
    double re = 0.0, im = 0.0;
    for (int64_t i = i0 + threadIdx.x; i < i1; i += kThreads) {
        if (!C) {
            const double a = x[i];
            re += DOT ? a * (double)y[i] : a * a;
        } else {
            const double xr = x[2 * i], xi = x[2 * i + 1];
            if (DOT) {
                const double yr = y[2 * i], yi = y[2 * i + 1];
                re += xr * yr + xi * yi;
                im += xr * yi - xi * yr;
            } else {
                re += xr * xr + xi * xi;
            }
        }
    }
    sre[threadIdx.x] = re;
    sim[threadIdx.x] = im;
    block_tree<kThreads>(sre, sim);
    if (threadIdx.x == 0) {
        part[2 * c] = sre[0];
        part[2 * c + 1] = sim[0];
    }
}

// Pass 2: one block sums nchunks (re, im) partials into out[0], out[1].
__global__ void k_vec_reduce_partials(int64_t nchunks, const double *__restrict__ part,
                                      double *__restrict__ out)
{
    __shared__ double sre[kFinalThreads], sim[kFinalThreads];
    double re = 0.0, im = 0.0;
    for (int64_t c = threadIdx.x; c < nchunks; c += kFinalThreads) {
        re += part[2 * c];
        im += part[2 * c + 1];
    }
    sre[threadIdx.x] = re;
    sim[threadIdx.x] = im;
    block_tree<kFinalThreads>(sre, sim);
    if (threadIdx.x == 0) {
        out[0] = sre[0];
        out[1] = sim[0];
    }
}

// Stream-ordered temporary (memory pool), falling back to cudaMalloc where pools are missing.
struct dev_tmp {
    void *p = nullptr;
    bool pooled = false;
};

kr_status tmp_alloc(dev_tmp *t, size_t bytes, cudaStream_t s)
{
    cudaError_t e = cudaMallocAsync(&t->p, bytes, s);
    if (e == cudaSuccess) {
        t->pooled = true;
        return KR_OK;
    }
    (void)cudaGetLastError();
    t->p = nullptr;
    e = cudaMalloc(&t->p, bytes);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        t->p = nullptr;
        return cuda_fail(e, "allocating reduction partials");
    }
    return KR_OK;
}

void tmp_free(dev_tmp *t, cudaStream_t s)
{
    if (!t->p) return;
    if (t->pooled)
        (void)cudaFreeAsync(t->p, s);
    else
        (void)cudaFree(t->p);
    t->p = nullptr;
}

template <typename T, bool C, bool DOT>
kr_status launch_reduce(int64_t nchunks, int64_t n, const void *x, const void *y, double *part,
                        cudaStream_t s)
{
    k_vec_reduce_chunks<T, C, DOT><<<(unsigned)nchunks, kThreads, 0, s>>>(
        n, static_cast<const T *>(x), static_cast<const T *>(y), part);
    return launch_check("k_vec_reduce_chunks");
}

template <bool DOT>
kr_status reduce(const kr_ctx *ctx, kr_dtype t, int64_t n, const void *x, const void *y,
                 double *re, double *im)
{
    *re = 0.0;
    *im = 0.0;
    if (n <= 0) return KR_OK;
    KRI_TRY(set_device(ctx));
    const int64_t nchunks = (n + kChunk - 1) / kChunk;
    if (nchunks > 0x7fffffff)
        return kri_fail(KR_ERR_DIM, "device reduction over %lld elements is too large",
                        (long long)n);
    cudaStream_t s = stream_of(ctx);
    dev_tmp tmp;
    KRI_TRY(tmp_alloc(&tmp, (size_t)(2 * nchunks + 2) * sizeof(double), s));
    double *part = static_cast<double *>(tmp.p);
    kr_status st;
    switch (t) {
    case KR_F32: st = launch_reduce<float, false, DOT>(nchunks, n, x, y, part, s); break;
    case KR_F64: st = launch_reduce<double, false, DOT>(nchunks, n, x, y, part, s); break;
    case KR_C64: st = launch_reduce<float, true, DOT>(nchunks, n, x, y, part, s); break;
    case KR_C128: st = launch_reduce<double, true, DOT>(nchunks, n, x, y, part, s); break;
    default: st = kri_fail(KR_ERR_DTYPE, "device reduction on %s", kr_dtype_name(t)); break;
    }
    double host[2] = {0.0, 0.0};
    if (st == KR_OK) {
        k_vec_reduce_partials<<<1, kFinalThreads, 0, s>>>(nchunks, part, part + 2 * nchunks);
        st = launch_check("k_vec_reduce_partials");
    }
    if (st == KR_OK) {
        cudaError_t e = cudaMemcpyAsync(host, part + 2 * nchunks, sizeof host,
                                        cudaMemcpyDeviceToHost, s);
        if (e != cudaSuccess) st = cuda_fail(e, "copying a reduction result to the host");
    }
    tmp_free(&tmp, s);
    cudaError_t e = cudaStreamSynchronize(s);
    if (st == KR_OK && e != cudaSuccess) st = cuda_fail(e, "device reduction");
    if (st != KR_OK) return st;
    *re = host[0];
    *im = host[1];
    return KR_OK;
}

// ---- random ------------------------------------------------------------------------------------
// Device twin of kri_rand_sym (src/core/internal.h) on the shared kri_rand_u64, rounded as the
// host rounds (no fused multiply-add); the GPU parity test checks that both give identical
// values.
__device__ __forceinline__ double rand_sym(uint64_t seed, uint64_t i)
{
    return __dsub_rn(__dmul_rn((double)(kri_rand_u64(seed, i) >> 11), 2.0 / 9007199254740992.0),
                     1.0);
}

template <typename T>
__global__ void k_vec_random(int64_t ns, T *__restrict__ x, uint64_t seed)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t k = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; k < ns; k += stride)
        x[k] = (T)rand_sym(seed, (uint64_t)k);
}

} // namespace

static kr_status kri_cuda_vec_zero(const kr_ctx *ctx, void *x, size_t bytes)
{
    return kri_device_memset0(x, bytes, ctx);
}

static kr_status kri_cuda_vec_elem(const kr_ctx *ctx, kr_dtype t, int op, int64_t n, void *y,
                                   double re, double im, const void *x)
{
    if (op == 0) return elem<0>(ctx, t, n, y, nullptr, re, im);
    if (op == 1) return elem<1>(ctx, t, n, y, x, re, im);
    return elem<2>(ctx, t, n, y, x, re, im);
}

static kr_status kri_cuda_vec_dot(const kr_ctx *ctx, kr_dtype t, int64_t n, const void *x,
                                  const void *y, double *re, double *im)
{
    return reduce<true>(ctx, t, n, x, y, re, im);
}

static kr_status kri_cuda_vec_sumsq(const kr_ctx *ctx, kr_dtype t, int64_t n, const void *x,
                                    double *sumsq)
{
    double im;
    return reduce<false>(ctx, t, n, x, x, sumsq, &im);
}

static kr_status kri_cuda_vec_random(const kr_ctx *ctx, kr_dtype t, int64_t n, void *x,
                                     uint64_t seed)
{
    if (n <= 0) return KR_OK;
    KRI_TRY(set_device(ctx));
    const int64_t ns = is_complex(t) ? 2 * n : n;
    if (is_single(t))
        k_vec_random<float><<<grid_for(ns), kThreads, 0, stream_of(ctx)>>>(
            ns, static_cast<float *>(x), seed);
    else
        k_vec_random<double><<<grid_for(ns), kThreads, 0, stream_of(ctx)>>>(
            ns, static_cast<double *>(x), seed);
    return launch_check("k_vec_random");
}

namespace {
// z = d .* x (d real; complex x: both parts), one rounded product per scalar as on the host.
template <typename T, bool C>
__global__ void k_vec_dmul(int64_t n, T *z, const T *__restrict__ d, const T *x)
{
    const int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        if (C) {
            z[2 * i] = mul_rn(d[i], x[2 * i]);
            z[2 * i + 1] = mul_rn(d[i], x[2 * i + 1]);
        } else {
            z[i] = mul_rn(d[i], x[i]);
        }
    }
}
} // namespace

static kr_status kri_cuda_vec_dmul(const kr_ctx *ctx, kr_dtype t, int64_t n, void *z,
                                   const void *d, const void *x)
{
    if (n <= 0) return KR_OK;
    KRI_TRY(set_device(ctx));
    cudaStream_t s = stream_of(ctx);
    switch (t) {
    case KR_F32:
        k_vec_dmul<float, false><<<grid_for(n), kThreads, 0, s>>>(
            n, static_cast<float *>(z), static_cast<const float *>(d), static_cast<const float *>(x));
        break;
    case KR_C64:
        k_vec_dmul<float, true><<<grid_for(n), kThreads, 0, s>>>(
            n, static_cast<float *>(z), static_cast<const float *>(d), static_cast<const float *>(x));
        break;
    case KR_F64:
        k_vec_dmul<double, false><<<grid_for(n), kThreads, 0, s>>>(
            n, static_cast<double *>(z), static_cast<const double *>(d),
            static_cast<const double *>(x));
        break;
    case KR_C128:
        k_vec_dmul<double, true><<<grid_for(n), kThreads, 0, s>>>(
            n, static_cast<double *>(z), static_cast<const double *>(d),
            static_cast<const double *>(x));
        break;
    default: return kri_fail(KR_ERR_DTYPE, "device vector operation on %s", kr_dtype_name(t));
    }
    return launch_check("k_vec_dmul");
}

extern "C" const kri_vec_backend kri_vec_cuda = {{"cuda", true},     kri_cuda_vec_zero,
                                                 kri_cuda_vec_elem,  kri_cuda_vec_dot,
                                                 kri_cuda_vec_sumsq, kri_cuda_vec_random,
                                                 kri_cuda_vec_dmul};
