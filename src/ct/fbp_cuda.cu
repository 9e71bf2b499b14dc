/* 2-D FBP backprojection on the GPU.
 *
 * Input: filtered sinogram as padded pair rows (q[j], q[j+1] - q[j]) (filter_internal.h), so one
 * 8-byte load gives both interpolation operands; per-view parameters (8 values per view).
 *
 * k_fbp_tiled (float): a block of 8 x 32 threads owns a 32 x 64 pixel tile; each thread
 * accumulates 4 x 2 pixels in registers (x = tx + 8 jx, y = ty + 32 jy, so a warp covers a
 * compact 8 x 4 patch and its shared-memory reads hit few distinct words). Views are processed
 * in chunks: for each view of the chunk the block finds the detector window its tile projects
 * to (the extreme padded coordinates are at the tile's corners, for parallel and fan rays alike),
 * stages that window of pairs in shared memory, and every thread then interpolates from shared
 * memory with no bounds tests: floor and fraction come from the 1.5 * 2^23 rounding trick
 * (full-rate adds instead of float-int conversions) and the staged pairs are (midpoint, slope),
 * so one 8-byte shared load and one FMA interpolate. Pixels outside the image are not
 * computed (partial tiles only). The window width W is fixed at plan time from the geometry.
 *
 * k_fbp_global (float or double, any geometry): one thread per pixel, reads pairs through the
 * read-only cache with clamped coordinates; used for f64 and when the window would not fit.
 *
 * Views may be split into G groups (grid z) that write partial images, summed in group order by
 * k_fbp_reduce: results are deterministic run to run.
 *
 * The backend table kri_fbp_cuda (fbp_internal.h): its create verb uploads the per-view
 * parameters, picks the kernel, its window width and the view groups, and allocates the
 * device buffers; backproject only launches. */
#include "ct/fbp_internal.h"

#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>

#include "cuda_util.cuh"

#define KRI_BP_TILE_X 32
#define KRI_BP_TILE_Y 64
#define KRI_BP_CHUNK 32 /* views staged per shared-memory pass */
/* Largest dynamic shared memory a tiled kernel may use (bytes), to pick the window width. */
#define KRI_BP_SMEM_MAX (48 * 1024)

namespace
{

constexpr int kBX = 8, kBY = 32;                                    /* threads per block */
constexpr int kPX = KRI_BP_TILE_X / kBX, kPY = KRI_BP_TILE_Y / kBY; /* pixels per thread */
static_assert(kPX == 4 && kPY == 2, "tile shape");
constexpr float kMagic = 12582912.0f; /* 1.5 * 2^23 */
constexpr int kMagicBits = 0x4B400000;

/* Padded detector coordinate at local pixel (x, y) of a view whose parameters were made
 * tile-local (A0, B0 at the tile origin, k0 or a0 minus the window start). */
template <int KIND>
__device__ __forceinline__ float coord(const float4 &pa, const float4 &pb, float x, float y,
                                       float *w)
{
    if (KIND == KRI_BP_PAR) {
        *w = 1.0f;
        return fmaf(pa.y, x, fmaf(pa.z, y, pa.x));
    }
    float A = fmaf(pa.y, x, fmaf(pa.z, y, pa.x));
    float B = fmaf(pb.y, x, fmaf(pb.z, y, pb.x));
    if (KIND == KRI_BP_FLAT) {
        float rb = __frcp_rn(B);
        *w = rb * rb;
        return fmaf(A, rb, pa.w);
    }
    *w = __frcp_rn(fmaf(A, A, B * B));
    return fmaf(atan2f(A, B), pb.w, pa.w);
}

/* Accumulate one staged view into the thread's pixels. t = padded coordinate - window start
 * - 1/2; rint(t) is the left sample (floor of the coordinate, or one less at exact integers,
 * where the fraction is then 1/2 and the result the same), row[] holds (midpoint q + dq / 2,
 * dq), so the value is mid + (t - rint(t)) dq. CHECK skips pixels outside the image. */
template <int KIND, bool CHECK>
__device__ __forceinline__ void accumulate(float (&acc)[kPY][kPX], const float4 &pa,
                                           const float4 &pb, const float2 *row, int tx, int ty,
                                           int rx, int ry)
{
#pragma unroll
    for (int j = 0; j < kPY; j++)
#pragma unroll
        for (int i = 0; i < kPX; i++) {
            const int lx = tx + kBX * i, ly = ty + kBY * j;
            if (CHECK && (lx >= rx || ly >= ry)) continue;
            float w;
            const float t = coord<KIND>(pa, pb, (float)lx, (float)ly, &w);
            const float f = __fadd_rn(t, kMagic);
            const float fr = __fsub_rn(t, __fsub_rn(f, kMagic));
            const float2 s = row[__float_as_int(f) - kMagicBits];
            const float val = fmaf(fr, s.y, s.x);
            if (KIND == KRI_BP_PAR)
                acc[j][i] += val;
            else
                acc[j][i] = fmaf(w, val, acc[j][i]);
        }
}

template <int KIND>
__global__ void __launch_bounds__(kBX *kBY)
    k_fbp_tiled(const float *__restrict__ views, int vbeg_stride, int nviews,
                const float2 *__restrict__ pairs, int rowlen, int nx, int ny, int W, int CV,
                float *__restrict__ out, long long gstride, int clamp)
{
    extern __shared__ float4 smem[];
    float4 *spa = smem;                                /* CV: a0', a1, a2, k0' */
    float4 *spb = smem + CV;                           /* CV: b0', b1, b2, c */
    int *sws = reinterpret_cast<int *>(smem + 2 * CV); /* CV window starts */
    float2 *sq = reinterpret_cast<float2 *>(smem + 2 * CV + (CV + 3) / 4); /* CV x W pairs */

    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kBX + tx;
    const int x0 = blockIdx.x * KRI_BP_TILE_X, y0 = blockIdx.y * KRI_BP_TILE_Y;
    const int vbeg = blockIdx.z * vbeg_stride;
    const int vend = min(nviews, vbeg + vbeg_stride);
    const int rx = min(KRI_BP_TILE_X, nx - x0), ry = min(KRI_BP_TILE_Y, ny - y0);
    const float cx = (float)(rx - 1), cy = (float)(ry - 1);
    const bool full = rx == KRI_BP_TILE_X && ry == KRI_BP_TILE_Y;
    float acc[kPY][kPX];
#pragma unroll
    for (int j = 0; j < kPY; j++)
#pragma unroll
        for (int i = 0; i < kPX; i++) acc[j][i] = 0.0f;

    for (int vc = vbeg; vc < vend; vc += CV) {
        const int nv = min(CV, vend - vc);
        __syncthreads(); /* the previous chunk is no longer read */
        if (tid < nv) {
            const float *pv = views + 8 * (long long)(vc + tid);
            float4 pa = make_float4(pv[0], pv[1], pv[2], pv[6]);
            float4 pb = make_float4(pv[3], pv[4], pv[5], pv[7]);
            /* tile-local origin */
            pa.x = fmaf(pa.y, (float)x0, fmaf(pa.z, (float)y0, pa.x));
            pb.x = fmaf(pb.y, (float)x0, fmaf(pb.z, (float)y0, pb.x));
            float w, kmin = 3.0e38f;
            kmin = fminf(kmin, coord<KIND>(pa, pb, 0.0f, 0.0f, &w));
            kmin = fminf(kmin, coord<KIND>(pa, pb, cx, 0.0f, &w));
            kmin = fminf(kmin, coord<KIND>(pa, pb, 0.0f, cy, &w));
            kmin = fminf(kmin, coord<KIND>(pa, pb, cx, cy, &w));
            const int ws = (int)floorf(kmin) - 1;
            const float shift = (float)ws + 0.5f;
            if (KIND == KRI_BP_PAR)
                pa.x -= shift;
            else
                pa.w -= shift;
            spa[tid] = pa;
            spb[tid] = pb;
            sws[tid] = ws;
        }
        __syncthreads();
        for (int i = tid; i < nv * W; i += kBX * kBY) {
            const int v = i / W, t = i - v * W;
            const int g = sws[v] + t;
            float2 val = make_float2(0.0f, 0.0f);
            if (g >= 0 && g < rowlen) val = __ldg(&pairs[(long long)(vc + v) * rowlen + g]);
            sq[i] = make_float2(fmaf(0.5f, val.y, val.x), val.y);
        }
        __syncthreads();
        if (full) {
            for (int v = 0; v < nv; v++)
                accumulate<KIND, false>(acc, spa[v], spb[v], sq + v * W, tx, ty, rx, ry);
        } else {
            for (int v = 0; v < nv; v++)
                accumulate<KIND, true>(acc, spa[v], spb[v], sq + v * W, tx, ty, rx, ry);
        }
    }
    float *o = out + blockIdx.z * gstride;
#pragma unroll
    for (int j = 0; j < kPY; j++)
#pragma unroll
        for (int i = 0; i < kPX; i++) {
            const int x = x0 + tx + kBX * i, y = y0 + ty + kBY * j;
            if (x < nx && y < ny) {
                float v = acc[j][i];
                if (clamp && v < 0.0f) v = 0.0f;
                o[(long long)y * nx + x] = v;
            }
        }
}

template <typename T> __device__ __forceinline__ T d_floor(T v);
template <> __device__ __forceinline__ float d_floor(float v) { return floorf(v); }
template <> __device__ __forceinline__ double d_floor(double v) { return floor(v); }
template <typename T> __device__ __forceinline__ T d_atan2(T a, T b);
template <> __device__ __forceinline__ float d_atan2(float a, float b) { return atan2f(a, b); }
template <> __device__ __forceinline__ double d_atan2(double a, double b) { return atan2(a, b); }

template <typename T, int KIND>
__global__ void k_fbp_global(const T *__restrict__ views, int vbeg_stride, int nviews,
                             const T *__restrict__ pairs, int ndet, int nx, int ny,
                             T *__restrict__ out, long long gstride, int clamp)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;
    const int vbeg = blockIdx.z * vbeg_stride, vend = min(nviews, vbeg + vbeg_stride);
    const long long rl = 2LL * KRI_PAD_ROW(ndet);
    const T hi = (T)(ndet + KRI_PAD + 1), fx = (T)x, fy = (T)y;
    T acc = (T)0;
    for (int v = vbeg; v < vend; v++) {
        const T *p = views + 8LL * v;
        const T A = __ldg(&p[0]) + __ldg(&p[1]) * fx + __ldg(&p[2]) * fy;
        T k, w = (T)1;
        if (KIND == KRI_BP_PAR) {
            k = A;
        } else {
            const T B = __ldg(&p[3]) + __ldg(&p[4]) * fx + __ldg(&p[5]) * fy;
            if (KIND == KRI_BP_FLAT) {
                const T rb = (T)1 / B;
                k = A * rb + __ldg(&p[6]);
                w = rb * rb;
            } else {
                k = d_atan2(A, B) * __ldg(&p[7]) + __ldg(&p[6]);
                w = (T)1 / (A * A + B * B);
            }
        }
        k = k < (T)0 ? (T)0 : (k > hi ? hi : k); /* 0 and hi interpolate to 0 */
        if (!(k >= (T)0)) continue;              /* NaN */
        const T fl = d_floor(k);
        const int i = (int)fl;
        const T *q = pairs + v * rl + 2 * i;
        acc += w * (__ldg(&q[0]) + (k - fl) * __ldg(&q[1]));
    }
    if (clamp && gstride == 0 && acc < (T)0) acc = (T)0;
    out[blockIdx.z * gstride + (long long)y * nx + x] = acc;
}

template <typename T>
__global__ void k_fbp_reduce(const T *__restrict__ part, int groups, long long n,
                             T *__restrict__ out, int clamp)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        T s = (T)0;
        for (int g = 0; g < groups; g++) s += part[g * n + i];
        if (clamp && s < (T)0) s = (T)0;
        out[i] = s;
    }
}

template <typename T>
kr_status launch_global(cudaStream_t st, kri_bp_kind kind, const T *views, int vps, int nviews,
                        const T *pairs, int ndet, int nx, int ny, T *out, long long gstride,
                        int clamp, int groups)
{
    dim3 block(32, 8), grid((nx + 31) / 32, (ny + 7) / 8, groups);
    switch (kind) {
    case KRI_BP_PAR:
        k_fbp_global<T, KRI_BP_PAR>
            <<<grid, block, 0, st>>>(views, vps, nviews, pairs, ndet, nx, ny, out, gstride, clamp);
        break;
    case KRI_BP_FLAT:
        k_fbp_global<T, KRI_BP_FLAT>
            <<<grid, block, 0, st>>>(views, vps, nviews, pairs, ndet, nx, ny, out, gstride, clamp);
        break;
    default:
        k_fbp_global<T, KRI_BP_EQUI>
            <<<grid, block, 0, st>>>(views, vps, nviews, pairs, ndet, nx, ny, out, gstride, clamp);
    }
    return kri_cu_launched("k_fbp_global");
}

} // namespace

/* Number of multiprocessors of CUDA device `dev`. */
static kr_status kri_cuda_sm_count(int dev, int *count)
{
    int n = 0;
    cudaError_t e = cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess)
        return kri_fail(KR_ERR_CUDA, "cudaDeviceGetAttribute(multiprocessor count): %s",
                        cudaGetErrorString(e));
    *count = n;
    return KR_OK;
}

/* views: device array of nviews x 8 values of the dtype (a0, a1, a2, b0, b1, b2, k0, c); pairs:
 * device pair rows; image: device [nx, ny]; partial: device [groups, nx, ny] scratch when
 * groups > 1. smem_w > 0 selects the shared-memory tiled kernel with that staged window width
 * (pairs per view), 0 the global fallback. On `stream`, no synchronisation. */
static kr_status kri_cuda_fbp_backproject(void *stream, int f64, kri_bp_kind kind,
                                          const void *views, int64_t nviews, const void *pairs,
                                          int64_t ndet, void *image, int64_t nx, int64_t ny,
                                          int clamp, int groups, void *partial, int smem_w)
{
    cudaStream_t st = (cudaStream_t)stream;
    if (nviews > 0x7fffffff || ndet > (1 << 28) || nx > (1 << 24) || ny > (1 << 24))
        return kri_fail(KR_ERR_NOT_SUPPORTED, "fbp: problem too large for the CUDA kernels");
    if (groups < 1) groups = 1;
    const int vps = (int)((nviews + groups - 1) / groups);
    const long long npix = (long long)nx * ny;
    void *dst = groups > 1 ? partial : image;
    const long long gstride = groups > 1 ? npix : 0;
    const int cl = groups > 1 ? 0 : clamp;
    kr_status s;
    if (f64) {
        s = launch_global<double>(st, kind, (const double *)views, vps, (int)nviews,
                                  (const double *)pairs, (int)ndet, (int)nx, (int)ny, (double *)dst,
                                  gstride, cl, groups);
    } else if (smem_w <= 0) {
        s = launch_global<float>(st, kind, (const float *)views, vps, (int)nviews,
                                 (const float *)pairs, (int)ndet, (int)nx, (int)ny, (float *)dst,
                                 gstride, cl, groups);
    } else {
        const int W = smem_w;
        /* views per chunk: as many as fit the shared-memory budget, at most KRI_BP_CHUNK */
        int CV = KRI_BP_CHUNK;
        auto bytes = [W](int cv) {
            return (size_t)(2 * cv + (cv + 3) / 4) * sizeof(float4) +
                   (size_t)cv * W * sizeof(float2);
        };
        while (CV > 1 && bytes(CV) > KRI_BP_SMEM_MAX) CV--;
        if (bytes(CV) > KRI_BP_SMEM_MAX)
            return kri_fail(KR_ERR_INTERNAL,
                            "fbp: detector window of %d samples does not fit "
                            "in shared memory",
                            W);
        dim3 block(kBX, kBY);
        dim3 grid((unsigned)((nx + KRI_BP_TILE_X - 1) / KRI_BP_TILE_X),
                  (unsigned)((ny + KRI_BP_TILE_Y - 1) / KRI_BP_TILE_Y), (unsigned)groups);
        const int rowlen = (int)KRI_PAD_ROW(ndet);
        const float *v = (const float *)views;
        const float2 *pr = (const float2 *)pairs;
        float *o = (float *)dst;
        switch (kind) {
        case KRI_BP_PAR:
            k_fbp_tiled<KRI_BP_PAR><<<grid, block, bytes(CV), st>>>(
                v, vps, (int)nviews, pr, rowlen, (int)nx, (int)ny, W, CV, o, gstride, cl);
            break;
        case KRI_BP_FLAT:
            k_fbp_tiled<KRI_BP_FLAT><<<grid, block, bytes(CV), st>>>(
                v, vps, (int)nviews, pr, rowlen, (int)nx, (int)ny, W, CV, o, gstride, cl);
            break;
        default:
            k_fbp_tiled<KRI_BP_EQUI><<<grid, block, bytes(CV), st>>>(
                v, vps, (int)nviews, pr, rowlen, (int)nx, (int)ny, W, CV, o, gstride, cl);
        }
        s = kri_cu_launched("k_fbp_tiled");
    }
    if (s != KR_OK || groups == 1) return s;
    int blocks = (int)((npix + 255) / 256);
    if (blocks > 65535) blocks = 65535;
    if (f64)
        k_fbp_reduce<double>
            <<<blocks, 256, 0, st>>>((const double *)partial, groups, npix, (double *)image, clamp);
    else
        k_fbp_reduce<float>
            <<<blocks, 256, 0, st>>>((const float *)partial, groups, npix, (float *)image, clamp);
    return kri_cu_launched("k_fbp_reduce");
}

/* ---- the CUDA table -------------------------------------------------------------------------- */
/* The device state of a plan (kri_fbp_cuda.create). */
typedef struct kri_fbp_dev {
    kri_fbp_state base; /* pairs on the device */
    void *d_views;      /* nviews x 8 values of the dtype */
    void *d_partial;    /* groups x nx x ny when groups > 1 */
    int smem_w;         /* staged window width of the tiled kernel, 0: the global kernel */
    char kernel[48];
} kri_fbp_dev;

static void kri_fbp_cuda_destroy(kri_fbp_state *st)
{
    kri_fbp_dev *d = (kri_fbp_dev *)st;
    if (!d) return;
    kri_device_free(d->base.pairs);
    kri_device_free(d->d_views);
    kri_device_free(d->d_partial);
    kri_free(d);
}

/* Staged window width (pairs per view) of the tiled CUDA kernel: the largest spread of the
 * padded detector coordinate over the (image-clamped) corners of one tile, plus margins. */
static int kri_fbp_window(const kr_fbp_plan *p)
{
    const int64_t TX = KRI_BP_TILE_X, TY = KRI_BP_TILE_Y;
    double span = 0;
    for (int64_t v = 0; v < p->nviews; v++) {
        const kri_bp_view *b = &p->views[v];
        for (int64_t y0 = 0; y0 < p->ny; y0 += TY)
            for (int64_t x0 = 0; x0 < p->nx; x0 += TX) {
                double xs[2] = {(double)x0, (double)(x0 + TX < p->nx ? x0 + TX - 1 : p->nx - 1)};
                double ys[2] = {(double)y0, (double)(y0 + TY < p->ny ? y0 + TY - 1 : p->ny - 1)};
                double kmin = INFINITY, kmax = -INFINITY;
                for (int c = 0; c < 4; c++) {
                    double x = xs[c & 1], y = ys[c >> 1], k;
                    double A = b->a0 + b->a1 * x + b->a2 * y, B = b->b0 + b->b1 * x + b->b2 * y;
                    if (p->kind == KRI_BP_PAR)
                        k = A;
                    else if (p->kind == KRI_BP_FLAT)
                        k = A / B + b->k0;
                    else
                        k = atan2(A, B) * b->c + b->k0;
                    kmin = fmin(kmin, k);
                    kmax = fmax(kmax, k);
                }
                span = fmax(span, kmax - kmin);
                if (p->kind == KRI_BP_PAR) goto next_view; /* same spread for every tile */
            }
    next_view:;
    }
    double w = ceil(span) + 6;
    return w > 1e6 ? 1000000 : (int)w;
}


static kr_status kri_fbp_cuda_create(const kr_fbp_plan *p, kri_fbp_state **out)
{
    *out = NULL;
    kri_fbp_dev *d = (kri_fbp_dev *)kri_calloc(1, sizeof *d);
    if (!d) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for an FBP plan");
    const kr_ctx *ctx = p->ctx;
    const kr_dtype dt = p->o.dtype;
    const int dev = kr_ctx_device(ctx);
    const size_t es = kr_dtype_size(dt);
    const size_t pair_bytes = (size_t)(p->nviews * 2 * KRI_PAD_ROW(p->ndet)) * es;
    int sms = 0;
    kr_status s = KR_OK;
#define KRI_CHECK(expr)                                                                            \
    do {                                                                                           \
        if (s == KR_OK) s = (expr);                                                                \
    } while (0)
    d->base.groups = 1;
    KRI_CHECK(kri_cuda_set_device(ctx));
    KRI_CHECK(kri_device_alloc(&d->base.pairs, pair_bytes, dev, "filtered sinogram"));
    /* per-view parameters in the dtype (kri_bp_view is 8 doubles) */
    KRI_CHECK(kri_cuda_upload_as(ctx, dt, &d->d_views, &p->views[0].a0, p->nviews * 8,
                                 "FBP views"));
    /* kernel choice: tiled shared-memory kernel for f32 when the window fits */
    if (s == KR_OK && dt == KR_F32) {
        int w = kri_fbp_window(p);
        if ((size_t)w * 8 * 8 + 64 * 8 <= KRI_BP_SMEM_MAX) d->smem_w = w;
    }
    KRI_CHECK(kri_cuda_sm_count(dev, &sms));
    if (s == KR_OK) {
        int64_t tiles = ((p->nx + KRI_BP_TILE_X - 1) / KRI_BP_TILE_X) *
                        ((p->ny + KRI_BP_TILE_Y - 1) / KRI_BP_TILE_Y);
        if (!d->smem_w) tiles = ((p->nx + 31) / 32) * ((p->ny + 7) / 8);
        int64_t want = tiles > 0 ? (4 * (int64_t)sms + tiles - 1) / tiles : 1;
        int64_t maxg = p->nviews / KRI_BP_CHUNK;
        if (want > maxg) want = maxg;
        if (want > 16) want = 16;
        d->base.groups = want < 1 ? 1 : (int)want;
    }
    if (d->base.groups > 1)
        KRI_CHECK(kri_device_alloc(&d->d_partial, (size_t)(d->base.groups * p->nx * p->ny) * es,
                                   dev, "FBP partial sums"));
#undef KRI_CHECK
    if (s != KR_OK) {
        kri_fbp_cuda_destroy(&d->base);
        return s;
    }
    snprintf(d->kernel, sizeof d->kernel, "%s-%s-%s", d->smem_w ? "tiled" : "global",
             p->kind == KRI_BP_PAR    ? "parallel"
             : p->kind == KRI_BP_FLAT ? "flat"
                                      : "equiangular",
             dt == KR_F32 ? "f32" : "f64");
    d->base.kernel = d->kernel;
    *out = &d->base;
    return KR_OK;
}

static kr_status kri_fbp_cuda_backproject(const kr_fbp_plan *p, kri_fbp_state *st, void *image)
{
    const kri_fbp_dev *d = (const kri_fbp_dev *)st;
    KRI_TRY(kri_cuda_set_device(p->ctx));
    return kri_cuda_fbp_backproject(kr_ctx_stream(p->ctx), p->o.dtype == KR_F64, p->kind,
                                    d->d_views, p->nviews, d->base.pairs, p->ndet, image, p->nx,
                                    p->ny, p->o.clamp_negative, d->base.groups, d->d_partial,
                                    d->smem_w);
}

extern "C" const kri_fbp_backend kri_fbp_cuda = {
    {"cuda", true}, kri_fbp_cuda_create, kri_fbp_cuda_backproject, kri_fbp_cuda_destroy};
