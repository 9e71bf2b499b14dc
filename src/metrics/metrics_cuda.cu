/* Metrics on the GPU (kri_metrics_cuda, metrics_internal.h): error statistics and SSIM for device
 * arrays, in float64.
 *
 * Determinism: every launch uses a grid whose size depends only on the problem size; each
 * thread accumulates its elements (or SSIM tiles) in a fixed order, each block reduces with a
 * fixed shared-memory tree into one partial per block, and the host folds the partials in block
 * order. The same input therefore gives the same bits on every run and every GPU model with the
 * same arithmetic. */
#include "metrics_internal.h"

#include <cuda_runtime.h>

#include <math.h>
#include <stdlib.h>

namespace {

constexpr int kThreads = 256;         /* power of two: the tree reduction relies on it */
constexpr int kStatsMaxBlocks = 1024; /* partials per statistics launch, at most */
constexpr int kStatsPerThread = 4;
constexpr int kTileX = 32, kTileY = 8; /* SSIM output tile; block = kTileX x kTileY threads */
constexpr int kSsimMaxBlocks = 4096;
constexpr int kR = KRI_SSIM_RADIUS;
constexpr int kInX = kTileX + 2 * kR, kInY = kTileY + 2 * kR;
constexpr int kMaps = 5;

static_assert(kTileX * kTileY == kThreads, "SSIM block must have kThreads threads");

struct kri_ssim_taps {
    double w[KRI_SSIM_RADIUS + 1];
};

__device__ __forceinline__ double kd_nan() { return __longlong_as_double(0x7ff8000000000000LL); }

/* Element i as float64: real types by value, complex types by magnitude. The switch is uniform
 * across a launch, so it costs no divergence. */
__device__ __forceinline__ double kd_load(const void *p, int dtype, long long i)
{
    switch (dtype) {
    case KR_F32: return (double)((const float *)p)[i];
    case KR_F64: return ((const double *)p)[i];
    case KR_C64: {
        const float *q = (const float *)p + 2 * i;
        return hypot((double)q[0], (double)q[1]);
    }
    case KR_C128: {
        const double *q = (const double *)p + 2 * i;
        return hypot(q[0], q[1]);
    }
    case KR_U8: return (double)((const unsigned char *)p)[i];
    case KR_U16: return (double)((const unsigned short *)p)[i];
    case KR_I16: return (double)((const short *)p)[i];
    default: return kd_nan();
    }
}

__global__ void k_metrics_stats(const void *x, int xt, const void *r, int rt, long long n,
                                double *part)
{
    __shared__ double sh[5][kThreads];
    const int tid = threadIdx.x;
    double sse = 0.0, sr2 = 0.0, mx = kd_nan(), rmin = kd_nan(), rmax = kd_nan();
    const long long stride = (long long)gridDim.x * kThreads;
    for (long long i = (long long)blockIdx.x * kThreads + tid; i < n; i += stride) {
        double a = kd_load(x, xt, i), b = kd_load(r, rt, i);
        double d = a - b;
        sse += d * d;
        sr2 += b * b;
        mx = fmax(mx, fabs(d));
        rmin = fmin(rmin, b);
        rmax = fmax(rmax, b);
    }
    sh[0][tid] = sse;
    sh[1][tid] = sr2;
    sh[2][tid] = mx;
    sh[3][tid] = rmin;
    sh[4][tid] = rmax;
    __syncthreads();
    for (int s = kThreads / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sh[0][tid] += sh[0][tid + s];
            sh[1][tid] += sh[1][tid + s];
            sh[2][tid] = fmax(sh[2][tid], sh[2][tid + s]);
            sh[3][tid] = fmin(sh[3][tid], sh[3][tid + s]);
            sh[4][tid] = fmax(sh[4][tid], sh[4][tid + s]);
        }
        __syncthreads();
    }
    if (tid == 0)
        for (int k = 0; k < 5; k++) part[(long long)k * gridDim.x + blockIdx.x] = sh[k][0];
}

/* One block per tile of kTileX x kTileY valid output pixels (looping over tiles with a stride
 * of gridDim.x): load the input tile with its halo as float64, filter along x into five maps in
 * shared memory, filter along y, form SSIM and accumulate it per thread in tile order. */
__global__ void k_ssim_tiles(const void *x, int xt, const void *r, int rt, long long nx,
                             long long ny, long long ntx, long long nty, long long ntiles,
                             kri_ssim_taps taps, double c1, double c2, double *part)
{
    __shared__ double sx[kInY][kInX];
    __shared__ double sr[kInY][kInX];
    __shared__ double sh[kMaps][kInY][kTileX];
    __shared__ double red[kThreads];
    const int lx = threadIdx.x, ly = threadIdx.y, tid = ly * kTileX + lx;
    const long long wx = nx - 2 * kR, wy = ny - 2 * kR;
    double acc = 0.0;
    for (long long t = blockIdx.x; t < ntiles; t += gridDim.x) {
        const long long per_slice = ntx * nty;
        const long long sl = t / per_slice, rem = t - sl * per_slice;
        const long long i0 = (rem / ntx) * kTileY, j0 = (rem % ntx) * kTileX;
        const long long base = sl * nx * ny;
        for (int k = tid; k < kInY * kInX; k += kThreads) {
            const int rr = k / kInX, cc = k - rr * kInX;
            const long long gi = i0 + rr, gj = j0 + cc;
            double vx = 0.0, vr = 0.0;
            if (gi < ny && gj < nx) {
                const long long idx = base + gi * nx + gj;
                vx = kd_load(x, xt, idx);
                vr = kd_load(r, rt, idx);
            }
            sx[rr][cc] = vx;
            sr[rr][cc] = vr;
        }
        __syncthreads();
        for (int k = tid; k < kInY * kTileX; k += kThreads) {
            const int rr = k / kTileX, cc = k - rr * kTileX + kR;
            double a0 = sx[rr][cc], b0 = sr[rr][cc];
            double hx = taps.w[0] * a0, hr = taps.w[0] * b0;
            double hxx = taps.w[0] * (a0 * a0), hrr = taps.w[0] * (b0 * b0);
            double hxr = taps.w[0] * (a0 * b0);
            for (int m = kR; m >= 1; m--) {
                const double xa = sx[rr][cc - m], xb = sx[rr][cc + m];
                const double ra = sr[rr][cc - m], rb = sr[rr][cc + m];
                hx += taps.w[m] * (xa + xb);
                hr += taps.w[m] * (ra + rb);
                hxx += taps.w[m] * (xa * xa + xb * xb);
                hrr += taps.w[m] * (ra * ra + rb * rb);
                hxr += taps.w[m] * (xa * ra + xb * rb);
            }
            const int oc = cc - kR;
            sh[0][rr][oc] = hx;
            sh[1][rr][oc] = hr;
            sh[2][rr][oc] = hxx;
            sh[3][rr][oc] = hrr;
            sh[4][rr][oc] = hxr;
        }
        __syncthreads();
        if (i0 + ly < wy && j0 + lx < wx) {
            double v[kMaps];
            for (int q = 0; q < kMaps; q++) {
                double h = taps.w[0] * sh[q][ly + kR][lx];
                for (int m = kR; m >= 1; m--)
                    h += taps.w[m] * (sh[q][ly + kR - m][lx] + sh[q][ly + kR + m][lx]);
                v[q] = h;
            }
            const double ux = v[0], ur = v[1];
            const double vx = v[2] - ux * ux, vr = v[3] - ur * ur, vxr = v[4] - ux * ur;
            const double num = (2.0 * ux * ur + c1) * (2.0 * vxr + c2);
            const double den = (ux * ux + ur * ur + c1) * (vx + vr + c2);
            acc += num / den;
        }
        __syncthreads(); /* the next tile overwrites shared memory */
    }
    red[tid] = acc;
    __syncthreads();
    for (int s = kThreads / 2; s > 0; s >>= 1) {
        if (tid < s) red[tid] += red[tid + s];
        __syncthreads();
    }
    if (tid == 0) part[blockIdx.x] = red[0];
}

kr_status kri_cuda_fail(cudaError_t e, const char *what)
{
    if (e == cudaErrorMemoryAllocation)
        return kri_fail(KR_ERR_OOM_DEVICE, "out of device memory for %s", what);
    return kri_fail(KR_ERR_CUDA, "%s failed: %s", what, cudaGetErrorString(e));
}

/* Launch-side scaffolding shared by both metrics: device buffer for `count` doubles of partials,
 * copied back to `host` after the kernel; everything freed on every path. */
struct kri_partials {
    double *dev = nullptr;
    double *host = nullptr;
    ~kri_partials()
    {
        if (dev) cudaFree(dev);
        free(host);
    }
};

kr_status kri_partials_alloc(kri_partials *p, size_t count, const char *what)
{
    cudaError_t e = cudaMalloc((void **)&p->dev, count * sizeof(double));
    if (e != cudaSuccess) {
        p->dev = nullptr;
        (void)cudaGetLastError();
        return kri_cuda_fail(e, what);
    }
    p->host = (double *)malloc(count * sizeof(double));
    if (!p->host) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for %s", what);
    return KR_OK;
}

kr_status kri_partials_fetch(kri_partials *p, size_t count, cudaStream_t stream, const char *what)
{
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return kri_cuda_fail(e, what);
    e = cudaMemcpyAsync(p->host, p->dev, count * sizeof(double), cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    if (e != cudaSuccess) return kri_cuda_fail(e, what);
    return KR_OK;
}

} // namespace

static kr_status kri_cuda_metrics_stats(const kr_ctx *ctx, const kr_array *x,
                                        const kr_array *ref, kri_metrics_stats *out)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    cudaStream_t stream = (cudaStream_t)kr_ctx_stream(ctx);
    const long long n = (long long)kr_array_numel(x);
    long long want = (n + (long long)kThreads * kStatsPerThread - 1) /
                     ((long long)kThreads * kStatsPerThread);
    const int grid = (int)(want < kStatsMaxBlocks ? (want > 0 ? want : 1) : kStatsMaxBlocks);
    kri_partials p;
    KRI_TRY(kri_partials_alloc(&p, (size_t)5 * grid, "metric partial sums"));
    k_metrics_stats<<<grid, kThreads, 0, stream>>>(x->data, (int)x->dtype, ref->data,
                                                   (int)ref->dtype, n, p.dev);
    KRI_TRY(kri_partials_fetch(&p, (size_t)5 * grid, stream, "metric statistics kernel"));
    kri_metrics_stats_init(out);
    for (int b = 0; b < grid; b++) {
        kri_metrics_stats s;
        s.sse = p.host[b];
        s.sref2 = p.host[grid + b];
        s.maxerr = p.host[2 * grid + b];
        s.rmin = p.host[3 * grid + b];
        s.rmax = p.host[4 * grid + b];
        kri_metrics_stats_combine(out, &s);
    }
    return KR_OK;
}

static kr_status kri_cuda_ssim_sum(const kr_ctx *ctx, const kr_array *x, const kr_array *ref,
                                   int64_t nx, int64_t ny, int64_t nslices, double c1, double c2,
                                   double *sum)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    cudaStream_t stream = (cudaStream_t)kr_ctx_stream(ctx);
    const long long wx = nx - 2 * kR, wy = ny - 2 * kR;
    if (wx < 1 || wy < 1)
        return kri_fail(KR_ERR_INTERNAL, "SSIM kernel called on a %lldx%lld slice", (long long)nx,
                        (long long)ny);
    const long long ntx = (wx + kTileX - 1) / kTileX, nty = (wy + kTileY - 1) / kTileY;
    const long long ntiles = ntx * nty * (long long)nslices;
    const int grid = (int)(ntiles < kSsimMaxBlocks ? ntiles : kSsimMaxBlocks);
    kri_ssim_taps taps;
    kri_ssim_weights(taps.w);
    kri_partials p;
    KRI_TRY(kri_partials_alloc(&p, (size_t)grid, "SSIM partial sums"));
    k_ssim_tiles<<<grid, dim3(kTileX, kTileY), 0, stream>>>(x->data, (int)x->dtype, ref->data,
                                                            (int)ref->dtype, (long long)nx,
                                                            (long long)ny, ntx, nty, ntiles,
                                                            taps, c1, c2, p.dev);
    KRI_TRY(kri_partials_fetch(&p, (size_t)grid, stream, "SSIM kernel"));
    double s = 0.0;
    for (int b = 0; b < grid; b++) s += p.host[b];
    *sum = s;
    return KR_OK;
}

extern "C" const kri_metrics_backend kri_metrics_cuda = {{"cuda", true}, kri_cuda_metrics_stats,
                                                         kri_cuda_ssim_sum};
