/* NUFFT on CUDA.
 *
 * set_points: the per-point footprints computed by nufft.c (first cell l0, offset s) are
 * uploaded, each point gets the key of its bin (bins of 32x32 cells in 2-D, 16x16x2 in 3-D,
 * smaller when the padded tile would not fit in 48 KiB of shared memory), the (key, index)
 * pairs are sorted by a stable CUB radix sort (so the order is deterministic), and the sorted
 * points are cut into subproblems of at most max_subprob points of one bin.
 *
 * adjoint: one block per (subproblem, batch member) spreads its points into a shared-memory
 * copy of the bin's padded tile (bin + w - 1 cells per dim) with shared atomics, then adds the
 * tile to the global grid with one atomic per non-zero cell (wrapping periodically); cuFFT
 * (kray/fft.h device plans, batched); deapodisation + crop. Atomic accumulation makes the last
 * bits run-dependent.
 * forward: zero-pad + deapodisation, cuFFT, then one thread per bin-sorted point interpolates
 * all batch members of the pass from the w^ndim footprint (deterministic).
 *
 * Everything is allocated at plan creation or set_points; execution only launches kernels. The
 * kernel width W, the precision and ndim are template parameters (w <= 16), the kernel's
 * polynomial coefficients are a __grid_constant__ kernel parameter (uniform reads). */
#include "nufft_internal.h"

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <limits.h>
#include <math.h>
#include <stdint.h>

namespace {

constexpr int kMaxW = KRI_NUFFT_MAX_W;
constexpr int kThreads = 256;
constexpr size_t kShmemBudget = 48 * 1024;

template <typename T> struct kri_coef {
    T c[KRI_NUFFT_NCOEF];
};

struct kri_geo {
    int nd;
    int n[3];    /* grid */
    int N[3];    /* image */
    int bs[3];   /* bin size (cells) */
    int nb[3];   /* bins per dim */
    int P;       /* floor(w / 2) */
    int deg;     /* polynomial degree */
    int maxsub;  /* points per subproblem */
};

template <typename T> struct kri_c2;
template <> struct kri_c2<float> {
    typedef float2 t;
};
template <> struct kri_c2<double> {
    typedef double2 t;
};

__device__ __forceinline__ bool kd_finite(float v) { return isfinite(v); }
__device__ __forceinline__ bool kd_finite(double v) { return isfinite(v); }

template <typename T, int W>
__device__ __forceinline__ void kd_kvals(const kri_coef<T> &c, int deg, T s, T *v)
{
    T z = (T)2 * s - (T)1;
#pragma unroll
    for (int j = 0; j < W; j++) v[j] = c.c[deg * kMaxW + j];
    for (int d = deg - 1; d >= 0; d--) {
#pragma unroll
        for (int j = 0; j < W; j++) v[j] = fma(v[j], z, c.c[d * kMaxW + j]);
    }
}

/* (re, im) += (a, b) in global memory: one vector atomic for float on sm_90 and newer. */
__device__ __forceinline__ void kd_atomic_add2(float *p, float a, float b)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    atomicAdd((float2 *)p, make_float2(a, b));
#else
    atomicAdd(p, a);
    atomicAdd(p + 1, b);
#endif
}
__device__ __forceinline__ void kd_atomic_add2(double *p, double a, double b)
{
    atomicAdd(p, a);
    atomicAdd(p + 1, b);
}

/* Kernel value j of a point with offset s, coefficients in shared memory. */
template <typename T>
__device__ __forceinline__ T kd_kval1(const T *cs, int deg, T s, int j)
{
    T z = (T)2 * s - (T)1, v = cs[deg * kMaxW + j];
    for (int d = deg - 1; d >= 0; d--) v = fma(v, z, cs[d * kMaxW + j]);
    return v;
}

/* Centre cell of a point's footprint (l0 + P, wrapped). */
__device__ __forceinline__ int kd_centre(int l0, int P, int n)
{
    int c = l0 + P;
    return c >= n ? c - n : c;
}

__global__ void k_nufft_bin_keys(kri_geo g, long long M, const int *l0x, const int *l0y,
                                 const int *l0z, unsigned *keys, int *vals)
{
    long long m = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= M) return;
    int bx = kd_centre(l0x[m], g.P, g.n[0]) / g.bs[0];
    int by = kd_centre(l0y[m], g.P, g.n[1]) / g.bs[1];
    int bz = g.nd == 3 ? kd_centre(l0z[m], g.P, g.n[2]) / g.bs[2] : 0;
    keys[m] = (unsigned)((bz * g.nb[1] + by) * g.nb[0] + bx);
    vals[m] = (int)m;
}

/* Footprint of every point, with the host's arithmetic (nufft_internal.h: double, no fused
 * multiply-add), so CPU and GPU plans place the points identically. The first invalid
 * coordinate index m nc + d goes to *bad (atomicMin). */
template <typename T, typename K>
__global__ void k_nufft_geometry(const K *traj, int nc, long long M, const kri_geo g, double hw,
                                 double r0, double r1, double r2, int *l0x, int *l0y, int *l0z,
                                 T *fx, T *fy, T *fz, unsigned long long *bad)
{
    long long m = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= M) return;
    for (int d = 0; d < nc; d++) {
        double k = (double)traj[m * nc + d];
        bool ok = isfinite(k) && (d < g.nd ? fabs(k) <= 0.5 * (double)g.N[d] : k == 0.0);
        if (!ok) {
            atomicMin(bad, (unsigned long long)(m * nc + d));
            return;
        }
        if (d >= g.nd) continue;
        double u = __dmul_rn(k, d == 0 ? r0 : d == 1 ? r1 : r2);
        double a = __dsub_rn(u, hw), c = ceil(a);
        int l = (int)c;
        if (l < 0) l += g.n[d];
        if (l >= g.n[d]) l -= g.n[d];
        T f = (T)__dsub_rn(c, a);
        if (d == 0) {
            l0x[m] = l;
            fx[m] = f;
        } else if (d == 1) {
            l0y[m] = l;
            fy[m] = f;
        } else {
            l0z[m] = l;
            fz[m] = f;
        }
    }
}

template <typename T>
__global__ void k_nufft_gather(long long M, int nd, const int *perm, const int *l0ix,
                               const int *l0iy, const int *l0iz, const T *fix, const T *fiy,
                               const T *fiz, int *l0x, int *l0y, int *l0z, T *fx, T *fy, T *fz)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= M) return;
    int m = perm[i];
    l0x[i] = l0ix[m];
    l0y[i] = l0iy[m];
    fx[i] = fix[m];
    fy[i] = fiy[m];
    if (nd == 3) {
        l0z[i] = l0iz[m];
        fz[i] = fiz[m];
    }
}

/* First sorted index with key >= bin, for every bin (and M for bin = nbins). */
__global__ void k_nufft_bin_start(long long M, long long nbins, const unsigned *keys, int *start)
{
    long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (b > nbins) return;
    long long lo = 0, hi = M;
    while (lo < hi) {
        long long mid = (lo + hi) / 2;
        if ((long long)keys[mid] < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    start[b] = (int)lo;
}

__global__ void k_nufft_sub_count(long long nbins, int maxsub, const int *start, int *nsub)
{
    long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (b > nbins) return;
    if (b == nbins) {
        nsub[b] = 0;
        return;
    }
    int cnt = start[b + 1] - start[b];
    nsub[b] = (cnt + maxsub - 1) / maxsub;
}

__global__ void k_nufft_sub_fill(long long nbins, int maxsub, const int *start,
                                 const int *sub_start, int *sub_bin, int *sub_first)
{
    long long b = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nbins) return;
    int s0 = sub_start[b], s1 = sub_start[b + 1];
    for (int s = s0; s < s1; s++) {
        sub_bin[s] = (int)b;
        sub_first[s] = start[b] + (s - s0) * maxsub;
    }
}

/* Spreading: block = (subproblem blockIdx.x, batch member blockIdx.y of the pass). The work
 * items are (point, r) pairs: item r of a point adds its footprint row jy = r (2-D) or plane
 * jz = r (3-D), so the W items of one point run on neighbouring lanes and touch disjoint
 * cells, and a block keeps busy even when its bin holds few points. The kernel coefficients
 * are staged in shared memory after the tile (each item evaluates one row's polynomial with
 * its own index). */
template <typename T, int ND, int W>
__global__ void __launch_bounds__(kThreads)
    k_nufft_spread(const kri_geo g, const __grid_constant__ kri_coef<T> coef, const int *sub_bin,
                   const int *sub_first, const int *bin_start, const int *perm, const int *l0x,
                   const int *l0y, const int *l0z, const T *fx, const T *fy, const T *fz,
                   const typename kri_c2<T>::t *y, long long M, T *grid, long long ngrid,
                   long long b0, int check, unsigned long long *bad)
{
    extern __shared__ __align__(16) unsigned char kri_smem[];
    T *sh = (T *)kri_smem;
    const int s = blockIdx.x, b = blockIdx.y;
    const int bin = sub_bin[s];
    const int first = sub_first[s];
    const int last = min(first + g.maxsub, bin_start[bin + 1]);
    const int bx = bin % g.nb[0], by = (bin / g.nb[0]) % g.nb[1], bz = bin / (g.nb[0] * g.nb[1]);
    const int ox = bx * g.bs[0], oy = by * g.bs[1], oz = bz * g.bs[2];
    const int TX = g.bs[0] + W - 1, TY = g.bs[1] + W - 1, TZ = ND == 3 ? g.bs[2] + W - 1 : 1;
    const int ncell = TX * TY * TZ;
    T *cs = sh + 2 * ncell; /* (deg + 1) x kMaxW coefficients */
    for (int t = threadIdx.x; t < 2 * ncell; t += blockDim.x) sh[t] = (T)0;
    for (int t = threadIdx.x; t < (g.deg + 1) * kMaxW; t += blockDim.x) cs[t] = coef.c[t];
    __syncthreads();
    const typename kri_c2<T>::t *yb = y + (long long)b * M;
    const int nitem = (last - first) * W;
    for (int it = threadIdx.x; it < nitem; it += blockDim.x) {
        const int i = first + it / W, r = it % W;
        const int m = perm[i];
        typename kri_c2<T>::t v = yb[m];
        if (check && !(kd_finite(v.x) && kd_finite(v.y))) {
            if (r == 0) atomicMin(bad, (unsigned long long)((b0 + b) * M + m));
            continue;
        }
        T kx[W];
        kd_kvals<T, W>(coef, g.deg, fx[i], kx);
        const int lx = kd_centre(l0x[i], g.P, g.n[0]) - ox;
        const int ly = kd_centre(l0y[i], g.P, g.n[1]) - oy;
        if (ND == 2) {
            const T a = kd_kval1<T>(cs, g.deg, fy[i], r);
            const T vr = v.x * a, vi = v.y * a;
            T *row = sh + 2 * ((ly + r) * TX + lx);
#pragma unroll
            for (int jx = 0; jx < W; jx++) {
                atomicAdd(row + 2 * jx, vr * kx[jx]);
                atomicAdd(row + 2 * jx + 1, vi * kx[jx]);
            }
        } else {
            T ky[W];
            kd_kvals<T, W>(coef, g.deg, fy[i], ky);
            const int lz = kd_centre(l0z[i], g.P, g.n[2]) - oz;
            const T az = kd_kval1<T>(cs, g.deg, fz[i], r);
            const T vzr = v.x * az, vzi = v.y * az;
#pragma unroll
            for (int jy = 0; jy < W; jy++) {
                const T vr = vzr * ky[jy], vi = vzi * ky[jy];
                T *row = sh + 2 * (((lz + r) * TY + (ly + jy)) * TX + lx);
#pragma unroll
                for (int jx = 0; jx < W; jx++) {
                    atomicAdd(row + 2 * jx, vr * kx[jx]);
                    atomicAdd(row + 2 * jx + 1, vi * kx[jx]);
                }
            }
        }
    }
    __syncthreads();
    T *gb = grid + 2 * (long long)b * ngrid;
    for (int t = threadIdx.x; t < ncell; t += blockDim.x) {
        T re = sh[2 * t], im = sh[2 * t + 1];
        if (re == (T)0 && im == (T)0) continue;
        int tx = t % TX, ty = (t / TX) % TY, tz = t / (TX * TY);
        int gx = (ox - g.P + tx) % g.n[0], gy = (oy - g.P + ty) % g.n[1];
        if (gx < 0) gx += g.n[0];
        if (gy < 0) gy += g.n[1];
        long long gz = 0;
        if (ND == 3) {
            int q = (oz - g.P + tz) % g.n[2];
            gz = q < 0 ? q + g.n[2] : q;
        }
        long long gi = (gz * g.n[1] + gy) * (long long)g.n[0] + gx;
        kd_atomic_add2(gb + 2 * gi, re, im);
    }
}

/* Interpolation: one thread per sorted point, all `nb` batch members of the pass. */
template <typename T, int ND, int W>
__global__ void __launch_bounds__(kThreads)
    k_nufft_interp(const kri_geo g, const __grid_constant__ kri_coef<T> coef, const int *perm,
                   const int *l0x, const int *l0y, const int *l0z, const T *fx, const T *fy,
                   const T *fz, const typename kri_c2<T>::t *grid, long long ngrid, int nb,
                   typename kri_c2<T>::t *out, long long M)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= M) return;
    T kx[W], ky[W], kz[ND == 3 ? W : 1];
    int ix[W], iy[W], iz[ND == 3 ? W : 1];
    kd_kvals<T, W>(coef, g.deg, fx[i], kx);
    kd_kvals<T, W>(coef, g.deg, fy[i], ky);
    const int x0 = l0x[i], y0 = l0y[i];
#pragma unroll
    for (int j = 0; j < W; j++) {
        ix[j] = x0 + j >= g.n[0] ? x0 + j - g.n[0] : x0 + j;
        iy[j] = y0 + j >= g.n[1] ? y0 + j - g.n[1] : y0 + j;
    }
    if (ND == 3) {
        kd_kvals<T, W>(coef, g.deg, fz[i], kz);
        const int z0 = l0z[i];
#pragma unroll
        for (int j = 0; j < (ND == 3 ? W : 1); j++)
            iz[j] = z0 + j >= g.n[2] ? z0 + j - g.n[2] : z0 + j;
    } else {
        kz[0] = (T)1;
        iz[0] = 0;
    }
    const int m = perm[i];
    for (int b = 0; b < nb; b++) {
        const typename kri_c2<T>::t *gb = grid + (long long)b * ngrid;
        T are = 0, aim = 0;
#pragma unroll 1
        for (int jz = 0; jz < (ND == 3 ? W : 1); jz++) {
            T zre = 0, zim = 0;
#pragma unroll
            for (int jy = 0; jy < W; jy++) {
                const typename kri_c2<T>::t *row =
                    gb + ((long long)iz[jz] * g.n[1] + iy[jy]) * g.n[0];
                T rre = 0, rim = 0;
#pragma unroll
                for (int jx = 0; jx < W; jx++) {
                    typename kri_c2<T>::t q = row[ix[jx]];
                    rre = fma(q.x, kx[jx], rre);
                    rim = fma(q.y, kx[jx], rim);
                }
                zre = fma(ky[jy], rre, zre);
                zim = fma(ky[jy], rim, zim);
            }
            are = fma(kz[jz], zre, are);
            aim = fma(kz[jz], zim, aim);
        }
        typename kri_c2<T>::t r;
        r.x = are;
        r.y = aim;
        out[(long long)b * M + m] = r;
    }
}

/* Image element e of member b of the pass <-> grid cell of its centred coordinate. */
__device__ __forceinline__ long long kd_img2grid(const kri_geo &g, long long e, int *i0, int *i1,
                                                 int *i2)
{
    int x = (int)(e % g.N[0]);
    long long r = e / g.N[0];
    int y = (int)(r % g.N[1]);
    int z = (int)(r / g.N[1]);
    *i0 = x;
    *i1 = y;
    *i2 = z;
    int gx = x - g.N[0] / 2, gy = y - g.N[1] / 2, gz = z - g.N[2] / 2;
    if (gx < 0) gx += g.n[0];
    if (gy < 0) gy += g.n[1];
    if (gz < 0) gz += g.n[2];
    return ((long long)gz * g.n[1] + gy) * g.n[0] + gx;
}

template <typename T>
__global__ void k_nufft_pad(const kri_geo g, const typename kri_c2<T>::t *img, long long nimg,
                            int nb, const T *D0, const T *D1, const T *D2,
                            typename kri_c2<T>::t *grid, long long ngrid, long long b0, int check,
                            unsigned long long *bad)
{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nimg * nb) return;
    long long b = t / nimg, e = t % nimg;
    int i0, i1, i2;
    long long gi = kd_img2grid(g, e, &i0, &i1, &i2);
    typename kri_c2<T>::t v = img[t];
    if (check && !(kd_finite(v.x) && kd_finite(v.y))) {
        atomicMin(bad, (unsigned long long)((b0 + b) * nimg + e));
        v.x = v.y = 0;
    }
    T d = D0[i0] * D1[i1] * D2[i2];
    v.x *= d;
    v.y *= d;
    grid[b * ngrid + gi] = v;
}

template <typename T>
__global__ void k_nufft_crop(const kri_geo g, const typename kri_c2<T>::t *grid, long long ngrid,
                             int nb, const T *D0, const T *D1, const T *D2,
                             typename kri_c2<T>::t *img, long long nimg)
{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nimg * nb) return;
    long long b = t / nimg, e = t % nimg;
    int i0, i1, i2;
    long long gi = kd_img2grid(g, e, &i0, &i1, &i2);
    typename kri_c2<T>::t v = grid[b * ngrid + gi];
    T d = D0[i0] * D1[i1] * D2[i2];
    v.x *= d;
    v.y *= d;
    img[t] = v;
}

} // namespace

/* ---- device state ------------------------------------------------------------------------- */
struct kri_nufft_dev {
    int device;
    cudaStream_t stream;
    kri_geo geo;
    long long nbins;
    int chunk;           /* batch members per pass */
    void *grid;          /* chunk grids */
    kr_fft_plan *fwd, *bwd, *fwd_rem, *bwd_rem;
    void *D[3];          /* deapodisation factors (plan precision) */
    unsigned long long *bad;
    /* bins (plan time) */
    int *bin_start;      /* nbins + 1 */
    int *nsub;           /* nbins + 1 */
    int *sub_start;      /* nbins + 1 */
    void *scan_tmp;
    size_t scan_tmp_bytes;
    /* points (set_points) */
    long long M, nsubs;
    int *perm, *l0[3];
    void *frac[3];
    int *sub_bin, *sub_first;
    size_t shmem;
};

#define KRI_CU(call, what)                                                                    \
    do {                                                                                      \
        cudaError_t kri_e_ = (call);                                                          \
        if (kri_e_ != cudaSuccess)                                                            \
            return kri_fail(KR_ERR_CUDA, "NUFFT: %s failed: %s", what,                        \
                            cudaGetErrorString(kri_e_));                                      \
    } while (0)

#define KRI_LAUNCHED(what) KRI_CU(cudaGetLastError(), what)

static unsigned kri_blocks(long long n) { return (unsigned)((n + kThreads - 1) / kThreads); }

static void kri_dev_free_points(kri_nufft_dev *d)
{
    kri_device_free(d->perm);
    d->perm = NULL;
    for (int i = 0; i < 3; i++) {
        kri_device_free(d->l0[i]);
        kri_device_free(d->frac[i]);
        d->l0[i] = NULL;
        d->frac[i] = NULL;
    }
    kri_device_free(d->sub_bin);
    kri_device_free(d->sub_first);
    d->sub_bin = d->sub_first = NULL;
    d->M = d->nsubs = 0;
}

extern "C" void kri_cuda_nufft_free(kr_nufft_plan *p)
{
    kri_nufft_dev *d = p->dev;
    if (!d) return;
    kri_dev_free_points(d);
    kri_device_free(d->grid);
    kr_fft_plan_destroy(d->fwd);
    kr_fft_plan_destroy(d->bwd);
    kr_fft_plan_destroy(d->fwd_rem);
    kr_fft_plan_destroy(d->bwd_rem);
    for (int i = 0; i < 3; i++) kri_device_free(d->D[i]);
    kri_device_free(d->bad);
    kri_device_free(d->bin_start);
    kri_device_free(d->nsub);
    kri_device_free(d->sub_start);
    kri_device_free(d->scan_tmp);
    kri_free(d);
    p->dev = NULL;
}

extern "C" kr_status kri_cuda_nufft_init(kr_nufft_plan *p)
{
    KRI_TRY(kri_cuda_set_device(p->ctx));
    kri_nufft_dev *d = (kri_nufft_dev *)kri_calloc(1, sizeof *d);
    if (!d) return kri_fail(KR_ERR_OOM_HOST, "out of host memory creating a NUFFT plan");
    p->dev = d;
    d->device = kr_ctx_device(p->ctx);
    d->stream = (cudaStream_t)kr_ctx_stream(p->ctx);
    const int w = p->ker.w;
    const size_t rs = p->dbl ? sizeof(double) : sizeof(float);
    kri_geo &g = d->geo;
    g.nd = p->ndim;
    g.P = w / 2;
    g.deg = p->ker.degree;
    g.maxsub = p->gpu_max_subprob;
    for (int i = 0; i < 3; i++) {
        g.n[i] = (int)p->n[i];
        g.N[i] = (int)p->N[i];
    }
    /* Bin sizes: 32x32 (2-D) or 16x16x2 (3-D), halved (largest first) until the padded tile of
     * complex values fits the shared-memory budget; never larger than the grid. */
    int optin = 0;
    KRI_CU(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, d->device),
           "querying the shared memory size");
    /* Bin sizes: 32x32 cells (2-D, padded tile within 48 KiB) or 16x16x8 (w <= 5) / 16x16x4
     * (3-D, within the opt-in shared memory, at most 100 KiB: larger 3-D bins keep the halo's
     * share of global atomics and the idle threads of sparse bins down), halved (largest dim
     * first) until the padded tile of complex values and the coefficients fit. */
    const size_t cbytes = (size_t)(p->ker.degree + 1) * kMaxW * rs;
    size_t budget = p->ndim == 2 ? kShmemBudget : (size_t)(optin < 100 * 1024 ? optin : 100 * 1024);
    if (budget < kShmemBudget) budget = kShmemBudget;
    int bs[3];
    for (int attempt = 0; attempt < 2; attempt++) {
        bs[0] = bs[1] = p->ndim == 3 ? 16 : 32;
        bs[2] = p->ndim == 3 ? (w <= 5 ? 8 : 4) : 1; /* fastest on an H100 (measured) */
        for (int i = 0; i < p->ndim; i++)
            if (p->gpu_bin[i] > 0) bs[i] = p->gpu_bin[i];
        int fits = 0;
        for (;;) {
            size_t cells = 1;
            for (int i = 0; i < p->ndim; i++) cells *= (size_t)(bs[i] + w - 1);
            if (cells * 2 * rs + cbytes <= budget) {
                fits = 1;
                break;
            }
            int big = 0;
            for (int i = 1; i < p->ndim; i++)
                if (bs[i] > bs[big]) big = i;
            if (bs[big] == 1) break;
            bs[big] /= 2;
        }
        if (fits) break;
        if (attempt == 1 || (size_t)optin <= budget)
            return kri_fail(KR_ERR_NOT_SUPPORTED, "NUFFT: a kernel of width %d does not fit the "
                            "GPU's shared memory (%d bytes per block) in %s", w, optin,
                            kr_dtype_name(p->dtype));
        budget = (size_t)optin; /* retry with the whole opt-in limit */
    }
    d->nbins = 1;
    for (int i = 0; i < 3; i++) {
        if (i >= p->ndim) bs[i] = 1;
        if (bs[i] > g.n[i]) bs[i] = g.n[i];
        g.bs[i] = bs[i];
        g.nb[i] = (g.n[i] + bs[i] - 1) / bs[i];
        d->nbins *= g.nb[i];
    }
    d->shmem = 2 * rs;
    for (int i = 0; i < p->ndim; i++) d->shmem *= (size_t)(bs[i] + w - 1);
    d->shmem += cbytes;
    if (d->nbins >= INT_MAX)
        return kri_fail(KR_ERR_NOT_SUPPORTED, "NUFFT: %lld GPU bins are too many",
                        (long long)d->nbins);

    /* Batch members per pass: all, or as many grids as fit in about 1 GiB (at least 1). */
    size_t gbytes = (size_t)p->ngrid * 2 * rs;
    long long chunk = p->gpu_max_batch ? p->gpu_max_batch : (long long)((1ull << 30) / gbytes);
    if (chunk < 1) chunk = 1;
    if (chunk > p->batch) chunk = p->batch;
    if (chunk > 4096) chunk = 4096; /* gridDim.y of the spreading launch */
    d->chunk = (int)chunk;
    KRI_TRY(kri_device_alloc(&d->grid, gbytes * (size_t)chunk, d->device, "the NUFFT grids"));
    int64_t gd[4] = {p->n[0], p->n[1], p->n[2], chunk};
    gd[p->ndim] = chunk;
    unsigned axes = (1u << p->ndim) - 1;
    KRI_TRY(kr_fft_plan_create(&d->fwd, p->ctx, p->dtype, p->ndim + 1, gd, axes, KR_FFT_FORWARD,
                               0, KR_DEVICE));
    KRI_TRY(kr_fft_plan_create(&d->bwd, p->ctx, p->dtype, p->ndim + 1, gd, axes, KR_FFT_BACKWARD,
                               0, KR_DEVICE));
    long long rem = p->batch % chunk;
    if (rem) {
        gd[p->ndim] = rem;
        KRI_TRY(kr_fft_plan_create(&d->fwd_rem, p->ctx, p->dtype, p->ndim + 1, gd, axes,
                                   KR_FFT_FORWARD, 0, KR_DEVICE));
        KRI_TRY(kr_fft_plan_create(&d->bwd_rem, p->ctx, p->dtype, p->ndim + 1, gd, axes,
                                   KR_FFT_BACKWARD, 0, KR_DEVICE));
    }
    for (int i = 0; i < 3; i++) {
        KRI_TRY(kri_device_alloc(&d->D[i], (size_t)p->N[i] * rs, d->device,
                                 "NUFFT deapodisation factors"));
        void *h = NULL;
        KRI_TRY(kri_alloc(&h, (size_t)p->N[i] * rs, "NUFFT deapodisation factors"));
        for (int64_t k = 0; k < p->N[i]; k++) {
            if (p->dbl)
                ((double *)h)[k] = p->deapod[i][k];
            else
                ((float *)h)[k] = (float)p->deapod[i][k];
        }
        kr_status s = kri_memcpy(d->D[i], KR_DEVICE, h, KR_HOST, (size_t)p->N[i] * rs, p->ctx);
        kri_free(h);
        KRI_TRY(s);
    }
    KRI_TRY(kri_device_alloc((void **)&d->bad, sizeof *d->bad, d->device, "a NUFFT flag"));
    size_t nb1 = (size_t)(d->nbins + 1) * sizeof(int);
    KRI_TRY(kri_device_alloc((void **)&d->bin_start, nb1, d->device, "NUFFT bins"));
    KRI_TRY(kri_device_alloc((void **)&d->nsub, nb1, d->device, "NUFFT bins"));
    KRI_TRY(kri_device_alloc((void **)&d->sub_start, nb1, d->device, "NUFFT bins"));
    KRI_CU(cub::DeviceScan::ExclusiveSum(NULL, d->scan_tmp_bytes, d->nsub, d->sub_start,
                                         (int)(d->nbins + 1), d->stream),
           "sizing the bin scan");
    KRI_TRY(kri_device_alloc(&d->scan_tmp, d->scan_tmp_bytes, d->device, "NUFFT scan scratch"));
    return KR_OK;
}

template <typename T>
static kr_status kri_set_points_t(kr_nufft_plan *p, const kri_nufft_traj *t, int64_t *bad)
{
    kri_nufft_dev *d = p->dev;
    const long long M = t->M;
    const int nd = p->ndim;
    const kri_geo g = d->geo;
    *bad = -1;
    /* Temporaries: the trajectory on the device, original-order footprints, keys, values, sort
     * scratch. */
    void *traj = NULL;
    int *l0o[3] = {NULL, NULL, NULL};
    T *fo[3] = {NULL, NULL, NULL};
    unsigned *keys = NULL, *keys_s = NULL;
    int *vals = NULL;
    void *sort_tmp = NULL;
    size_t sort_bytes = 0, tbytes = (size_t)(M * t->nc) * kr_dtype_size(t->dtype);
    kr_status s = KR_OK;
    cudaError_t e = cudaSuccess;
    int nsubs = 0;
    unsigned long long badv = ~0ull;
    int nbits = 1;
    while (nbits < 32 && (1ll << nbits) < d->nbins) nbits++;
#define KRI_S(expr)                                                                           \
    do {                                                                                      \
        if (s == KR_OK) s = (expr);                                                           \
    } while (0)
#define KRI_E(expr)                                                                           \
    do {                                                                                      \
        if (s == KR_OK && e == cudaSuccess) e = (expr);                                       \
    } while (0)
    const void *tsrc = t->data;
    if (t->loc == KR_HOST) {
        KRI_S(kri_device_alloc(&traj, tbytes, d->device, "the NUFFT trajectory"));
        KRI_S(kri_memcpy(traj, KR_DEVICE, t->data, KR_HOST, tbytes, p->ctx));
        tsrc = traj;
    }
    for (int i = 0; i < nd; i++) {
        KRI_S(kri_device_alloc((void **)&l0o[i], (size_t)M * sizeof(int), d->device,
                               "NUFFT points"));
        KRI_S(kri_device_alloc((void **)&fo[i], (size_t)M * sizeof(T), d->device, "NUFFT points"));
    }
    for (int i = nd; i < 3; i++) { /* unused by 2-D kernels; valid pointers anyway */
        l0o[i] = l0o[0];
        fo[i] = fo[0];
    }
    if (s == KR_OK) {
        double r[3];
        for (int i = 0; i < 3; i++) r[i] = (double)p->n[i] / (double)p->N[i];
        const double hw = 0.5 * (double)p->ker.w;
        KRI_E(cudaMemsetAsync(d->bad, 0xff, sizeof *d->bad, d->stream));
        if (t->dtype == KR_F32)
            k_nufft_geometry<T, float><<<kri_blocks(M), kThreads, 0, d->stream>>>(
                (const float *)tsrc, (int)t->nc, M, g, hw, r[0], r[1], r[2], l0o[0], l0o[1],
                l0o[2], fo[0], fo[1], fo[2], d->bad);
        else
            k_nufft_geometry<T, double><<<kri_blocks(M), kThreads, 0, d->stream>>>(
                (const double *)tsrc, (int)t->nc, M, g, hw, r[0], r[1], r[2], l0o[0], l0o[1],
                l0o[2], fo[0], fo[1], fo[2], d->bad);
        KRI_E(cudaGetLastError());
        KRI_E(cudaMemcpyAsync(&badv, d->bad, sizeof badv, cudaMemcpyDeviceToHost, d->stream));
        KRI_E(cudaStreamSynchronize(d->stream));
    }
    if (s == KR_OK && e == cudaSuccess && badv != ~0ull) {
        *bad = (int64_t)badv;
        goto done;
    }
    if (s == KR_OK && e == cudaSuccess) kri_dev_free_points(d);
    for (int i = 0; i < nd; i++) {
        KRI_S(kri_device_alloc((void **)&d->l0[i], (size_t)M * sizeof(int), d->device,
                               "NUFFT points"));
        KRI_S(kri_device_alloc(&d->frac[i], (size_t)M * sizeof(T), d->device, "NUFFT points"));
    }
    KRI_S(kri_device_alloc((void **)&keys, (size_t)M * sizeof(unsigned), d->device, "NUFFT keys"));
    KRI_S(kri_device_alloc((void **)&keys_s, (size_t)M * sizeof(unsigned), d->device,
                           "NUFFT keys"));
    KRI_S(kri_device_alloc((void **)&vals, (size_t)M * sizeof(int), d->device, "NUFFT keys"));
    KRI_S(kri_device_alloc((void **)&d->perm, (size_t)M * sizeof(int), d->device,
                           "NUFFT point order"));
    KRI_E(cub::DeviceRadixSort::SortPairs(NULL, sort_bytes, keys, keys_s, vals, d->perm, (int)M,
                                          0, nbits, d->stream));
    KRI_S(kri_device_alloc(&sort_tmp, sort_bytes, d->device, "NUFFT sort scratch"));
    if (s == KR_OK && e == cudaSuccess) {
        k_nufft_bin_keys<<<kri_blocks(M), kThreads, 0, d->stream>>>(g, M, l0o[0], l0o[1], l0o[2],
                                                                    keys, vals);
        e = cudaGetLastError();
    }
    KRI_E(cub::DeviceRadixSort::SortPairs(sort_tmp, sort_bytes, keys, keys_s, vals, d->perm,
                                          (int)M, 0, nbits, d->stream));
    if (s == KR_OK && e == cudaSuccess) {
        int *l2 = nd == 3 ? d->l0[2] : d->l0[0];
        T *f2 = nd == 3 ? (T *)d->frac[2] : (T *)d->frac[0];
        k_nufft_gather<T><<<kri_blocks(M), kThreads, 0, d->stream>>>(
            M, nd, d->perm, l0o[0], l0o[1], l0o[2], fo[0], fo[1], fo[2], d->l0[0], d->l0[1], l2,
            (T *)d->frac[0], (T *)d->frac[1], f2);
        e = cudaGetLastError();
    }
    if (s == KR_OK && e == cudaSuccess) {
        k_nufft_bin_start<<<kri_blocks(d->nbins + 1), kThreads, 0, d->stream>>>(
            M, d->nbins, keys_s, d->bin_start);
        e = cudaGetLastError();
    }
    if (s == KR_OK && e == cudaSuccess) {
        k_nufft_sub_count<<<kri_blocks(d->nbins + 1), kThreads, 0, d->stream>>>(
            d->nbins, g.maxsub, d->bin_start, d->nsub);
        e = cudaGetLastError();
    }
    KRI_E(cub::DeviceScan::ExclusiveSum(d->scan_tmp, d->scan_tmp_bytes, d->nsub, d->sub_start,
                                        (int)(d->nbins + 1), d->stream));
    if (s == KR_OK && e == cudaSuccess)
        s = kri_memcpy(&nsubs, KR_HOST, d->sub_start + d->nbins, KR_DEVICE, sizeof(int), p->ctx);
    KRI_S(kri_device_alloc((void **)&d->sub_bin, (size_t)(nsubs > 0 ? nsubs : 1) * sizeof(int),
                           d->device, "NUFFT subproblems"));
    KRI_S(kri_device_alloc((void **)&d->sub_first, (size_t)(nsubs > 0 ? nsubs : 1) * sizeof(int),
                           d->device, "NUFFT subproblems"));
    if (s == KR_OK && e == cudaSuccess) {
        k_nufft_sub_fill<<<kri_blocks(d->nbins), kThreads, 0, d->stream>>>(
            d->nbins, g.maxsub, d->bin_start, d->sub_start, d->sub_bin, d->sub_first);
        e = cudaGetLastError();
    }
    KRI_E(cudaStreamSynchronize(d->stream));
    if (s == KR_OK) {
        d->M = M;
        d->nsubs = nsubs;
    }
done:
    if (s == KR_OK && e != cudaSuccess)
        s = kri_fail(KR_ERR_CUDA, "NUFFT: setting the points on the GPU failed: %s",
                     cudaGetErrorString(e));
#undef KRI_S
#undef KRI_E
    kri_device_free(traj);
    for (int i = 0; i < nd; i++) {
        kri_device_free(l0o[i]);
        kri_device_free(fo[i]);
    }
    kri_device_free(keys);
    kri_device_free(keys_s);
    kri_device_free(vals);
    kri_device_free(sort_tmp);
    if (s != KR_OK) kri_dev_free_points(d);
    return s;
}

extern "C" kr_status kri_cuda_nufft_set_points(kr_nufft_plan *p, const kri_nufft_traj *t,
                                               int64_t *bad)
{
    KRI_TRY(kri_cuda_set_device(p->ctx));
    return p->dbl ? kri_set_points_t<double>(p, t, bad) : kri_set_points_t<float>(p, t, bad);
}

/* ---- execution ---------------------------------------------------------------------------- */
template <typename T> static void kri_coef_of(const kr_nufft_plan *p, kri_coef<T> *c);
template <> void kri_coef_of<float>(const kr_nufft_plan *p, kri_coef<float> *c)
{
    for (int i = 0; i < KRI_NUFFT_NCOEF; i++) c->c[i] = p->ker.coeff[i];
}
template <> void kri_coef_of<double>(const kr_nufft_plan *p, kri_coef<double> *c)
{
    for (int i = 0; i < KRI_NUFFT_NCOEF; i++) c->c[i] = p->ker.coef[i];
}

template <typename T, int ND, int W>
static cudaError_t kri_launch_spread(kri_nufft_dev *d, const kri_coef<T> &c, const void *y,
                                     int nb, long long ngrid, long long b0, int check)
{
    if (d->nsubs == 0) return cudaSuccess;
    static_assert(W <= kMaxW, "kernel too wide");
    dim3 grid((unsigned)d->nsubs, (unsigned)nb);
    if (d->shmem > kShmemBudget) {
        cudaError_t e = cudaFuncSetAttribute(k_nufft_spread<T, ND, W>,
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)d->shmem);
        if (e != cudaSuccess) return e;
    }
    k_nufft_spread<T, ND, W><<<grid, kThreads, d->shmem, d->stream>>>(
        d->geo, c, d->sub_bin, d->sub_first, d->bin_start, d->perm, d->l0[0], d->l0[1],
        ND == 3 ? d->l0[2] : d->l0[0], (const T *)d->frac[0], (const T *)d->frac[1],
        ND == 3 ? (const T *)d->frac[2] : (const T *)d->frac[0],
        (const typename kri_c2<T>::t *)y, d->M, (T *)d->grid, ngrid, b0, check, d->bad);
    return cudaGetLastError();
}

template <typename T, int ND, int W>
static cudaError_t kri_launch_interp(kri_nufft_dev *d, const kri_coef<T> &c, void *out, int nb,
                                     long long ngrid)
{
    k_nufft_interp<T, ND, W><<<kri_blocks(d->M), kThreads, 0, d->stream>>>(
        d->geo, c, d->perm, d->l0[0], d->l0[1], ND == 3 ? d->l0[2] : d->l0[0],
        (const T *)d->frac[0], (const T *)d->frac[1],
        ND == 3 ? (const T *)d->frac[2] : (const T *)d->frac[0],
        (const typename kri_c2<T>::t *)d->grid, ngrid, nb, (typename kri_c2<T>::t *)out, d->M);
    return cudaGetLastError();
}

#define KRI_W_CASES(F, ...)                                                                   \
    switch (w) {                                                                              \
    case 2: return F<T, ND, 2>(__VA_ARGS__);                                                  \
    case 3: return F<T, ND, 3>(__VA_ARGS__);                                                  \
    case 4: return F<T, ND, 4>(__VA_ARGS__);                                                  \
    case 5: return F<T, ND, 5>(__VA_ARGS__);                                                  \
    case 6: return F<T, ND, 6>(__VA_ARGS__);                                                  \
    case 7: return F<T, ND, 7>(__VA_ARGS__);                                                  \
    case 8: return F<T, ND, 8>(__VA_ARGS__);                                                  \
    case 9: return F<T, ND, 9>(__VA_ARGS__);                                                  \
    case 10: return F<T, ND, 10>(__VA_ARGS__);                                                \
    case 11: return F<T, ND, 11>(__VA_ARGS__);                                                \
    case 12: return F<T, ND, 12>(__VA_ARGS__);                                                \
    case 13: return F<T, ND, 13>(__VA_ARGS__);                                                \
    case 14: return F<T, ND, 14>(__VA_ARGS__);                                                \
    case 15: return F<T, ND, 15>(__VA_ARGS__);                                                \
    case 16: return F<T, ND, 16>(__VA_ARGS__);                                                \
    default: return cudaErrorInvalidValue;                                                    \
    }

template <typename T, int ND>
static cudaError_t kri_spread_w(int w, kri_nufft_dev *d, const kri_coef<T> &c, const void *y,
                                int nb, long long ngrid, long long b0, int check)
{
    KRI_W_CASES(kri_launch_spread, d, c, y, nb, ngrid, b0, check)
}

template <typename T, int ND>
static cudaError_t kri_interp_w(int w, kri_nufft_dev *d, const kri_coef<T> &c, void *out, int nb,
                                long long ngrid)
{
    KRI_W_CASES(kri_launch_interp, d, c, out, nb, ngrid)
}

static kr_status kri_grid_fft(kr_nufft_plan *p, kr_fft_plan *f, int nb)
{
    kri_nufft_dev *d = p->dev;
    int64_t gd[4] = {p->n[0], p->n[1], p->n[2], nb};
    gd[p->ndim] = nb;
    kr_array a;
    KRI_TRY(kr_array_wrap(&a, p->dtype, p->ndim + 1, gd, d->grid, KR_DEVICE));
    a.device = d->device;
    return kr_fft_execute(f, &a, &a);
}

static kr_status kri_bad_begin(kr_nufft_plan *p)
{
    if (!p->check_finite) return KR_OK;
    KRI_CU(cudaMemsetAsync(p->dev->bad, 0xff, sizeof *p->dev->bad, p->dev->stream),
           "clearing the finiteness flag");
    return KR_OK;
}

static kr_status kri_bad_end(kr_nufft_plan *p, int64_t *bad)
{
    *bad = -1;
    if (!p->check_finite) return KR_OK;
    unsigned long long v = ~0ull;
    KRI_CU(cudaMemcpyAsync(&v, p->dev->bad, sizeof v, cudaMemcpyDeviceToHost, p->dev->stream),
           "reading the finiteness flag");
    KRI_CU(cudaStreamSynchronize(p->dev->stream), "NUFFT execution");
    if (v != ~0ull) *bad = (int64_t)v;
    return KR_OK;
}

template <typename T>
static kr_status kri_forward_t(kr_nufft_plan *p, const void *image, void *kspace, int64_t *bad)
{
    kri_nufft_dev *d = p->dev;
    kri_coef<T> c;
    kri_coef_of<T>(p, &c);
    const long long ngrid = p->ngrid, nimg = p->nimg, M = d->M;
    const size_t cs = 2 * sizeof(T);
    KRI_TRY(kri_bad_begin(p));
    for (long long b0 = 0; b0 < p->batch; b0 += d->chunk) {
        int nb = (int)(p->batch - b0 < d->chunk ? p->batch - b0 : d->chunk);
        KRI_CU(cudaMemsetAsync(d->grid, 0, (size_t)(ngrid * nb) * cs, d->stream),
               "clearing the NUFFT grid");
        k_nufft_pad<T><<<kri_blocks(nimg * nb), kThreads, 0, d->stream>>>(
            d->geo, (const typename kri_c2<T>::t *)((const char *)image + (size_t)(b0 * nimg) * cs),
            nimg, nb, (const T *)d->D[0], (const T *)d->D[1], (const T *)d->D[2],
            (typename kri_c2<T>::t *)d->grid, ngrid, b0, p->check_finite, d->bad);
        KRI_LAUNCHED("the NUFFT zero-padding kernel");
        KRI_TRY(kri_grid_fft(p, nb == d->chunk ? d->fwd : d->fwd_rem, nb));
        void *out = (char *)kspace + (size_t)(b0 * M) * cs;
        cudaError_t e = p->ndim == 2 ? kri_interp_w<T, 2>(p->ker.w, d, c, out, nb, ngrid)
                                     : kri_interp_w<T, 3>(p->ker.w, d, c, out, nb, ngrid);
        KRI_CU(e, "the NUFFT interpolation kernel");
    }
    return kri_bad_end(p, bad);
}

template <typename T>
static kr_status kri_adjoint_t(kr_nufft_plan *p, const void *kspace, void *image, int64_t *bad)
{
    kri_nufft_dev *d = p->dev;
    kri_coef<T> c;
    kri_coef_of<T>(p, &c);
    const long long ngrid = p->ngrid, nimg = p->nimg, M = d->M;
    const size_t cs = 2 * sizeof(T);
    KRI_TRY(kri_bad_begin(p));
    for (long long b0 = 0; b0 < p->batch; b0 += d->chunk) {
        int nb = (int)(p->batch - b0 < d->chunk ? p->batch - b0 : d->chunk);
        KRI_CU(cudaMemsetAsync(d->grid, 0, (size_t)(ngrid * nb) * cs, d->stream),
               "clearing the NUFFT grid");
        const void *y = (const char *)kspace + (size_t)(b0 * M) * cs;
        cudaError_t e = p->ndim == 2
                            ? kri_spread_w<T, 2>(p->ker.w, d, c, y, nb, ngrid, b0, p->check_finite)
                            : kri_spread_w<T, 3>(p->ker.w, d, c, y, nb, ngrid, b0, p->check_finite);
        KRI_CU(e, "the NUFFT spreading kernel");
        KRI_TRY(kri_grid_fft(p, nb == d->chunk ? d->bwd : d->bwd_rem, nb));
        k_nufft_crop<T><<<kri_blocks(nimg * nb), kThreads, 0, d->stream>>>(
            d->geo, (const typename kri_c2<T>::t *)d->grid, ngrid, nb, (const T *)d->D[0],
            (const T *)d->D[1], (const T *)d->D[2],
            (typename kri_c2<T>::t *)((char *)image + (size_t)(b0 * nimg) * cs), nimg);
        KRI_LAUNCHED("the NUFFT deapodisation kernel");
    }
    return kri_bad_end(p, bad);
}

extern "C" kr_status kri_cuda_nufft_forward(kr_nufft_plan *p, const void *image, void *kspace,
                                            int64_t *bad)
{
    KRI_TRY(kri_cuda_set_device(p->ctx));
    return p->dbl ? kri_forward_t<double>(p, image, kspace, bad)
                  : kri_forward_t<float>(p, image, kspace, bad);
}

extern "C" kr_status kri_cuda_nufft_adjoint(kr_nufft_plan *p, const void *kspace, void *image,
                                            int64_t *bad)
{
    KRI_TRY(kri_cuda_set_device(p->ctx));
    return p->dbl ? kri_adjoint_t<double>(p, kspace, image, bad)
                  : kri_adjoint_t<float>(p, kspace, image, bad);
}
