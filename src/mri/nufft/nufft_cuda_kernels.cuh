/* Kernels of the CUDA NUFFT (included by nufft_cuda.cu only; see its header comment): kernel
 * evaluation, point geometry and bin sort helpers, spreading, interpolation, zero-padding and
 * cropping with deapodisation. */
#ifndef KRAY_NUFFT_CUDA_KERNELS_CUH
#define KRAY_NUFFT_CUDA_KERNELS_CUH

#include "mri/nufft/nufft_internal.h"

#include <cuda_runtime.h>

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

/* Footprint of coordinate d of point m (first cell l0, wrapped into [0, n); offset s), with the
 * host's arithmetic (nufft_internal.h: double, no fused multiply-add), so CPU and GPU plans place
 * the points identically. */
template <typename K>
__device__ __forceinline__ int kd_foot(const K *traj, int nc, long long m, int d, const kri_geo &g,
                                       double hw, double r, double *s)
{
    double u = __dmul_rn((double)traj[m * nc + d], r);
    double a = __dsub_rn(u, hw), c = ceil(a);
    int l = (int)c;
    if (l < 0) l += g.n[d];
    if (l >= g.n[d]) l -= g.n[d];
    *s = __dsub_rn(c, a);
    return l;
}

/* Validate point m (the first invalid coordinate index m nc + d goes to *bad by atomicMin;
 * returns false then) and compute its bin. */
template <typename K>
__device__ __forceinline__ bool kd_bin_of(const K *traj, int nc, long long m, const kri_geo &g,
                                          double hw, const double *r, unsigned *bin,
                                          unsigned long long *bad)
{
    int c[3] = {0, 0, 0};
    for (int d = 0; d < nc; d++) {
        double k = (double)traj[m * nc + d];
        bool ok = isfinite(k) && (d < g.nd ? fabs(k) <= 0.5 * (double)g.N[d] : k == 0.0);
        if (!ok) {
            atomicMin(bad, (unsigned long long)(m * nc + d));
            return false;
        }
        if (d >= g.nd) continue;
        double s;
        c[d] = kd_centre(kd_foot(traj, nc, m, d, g, hw, r[d], &s), g.P, g.n[d]) / g.bs[d];
    }
    *bin = (unsigned)((c[2] * g.nb[1] + c[1]) * g.nb[0] + c[0]);
    return true;
}

struct kri_geo_r {
    double hw, r[3];
};

/* Counting sort, pass 1: validate, bin, and the point's rank among its bin's points (atomic:
 * the order within a bin is run-dependent). The lanes of a warp with the same bin (neighbours
 * along a trajectory usually are) take their ranks with one atomic. */
template <typename K>
__global__ void k_nufft_bin_count(const K *traj, int nc, long long M, const kri_geo g,
                                  const kri_geo_r gr, unsigned *keys, int *rank, int *count,
                                  unsigned long long *bad)
{
    long long m = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= M) return;
    unsigned b;
    if (!kd_bin_of(traj, nc, m, g, gr.hw, gr.r, &b, bad)) return;
    keys[m] = b;
    const unsigned peers = __match_any_sync(__activemask(), b);
    const int lane = threadIdx.x & 31, leader = __ffs(peers) - 1;
    int base = 0;
    if (lane == leader) base = atomicAdd(count + b, __popc(peers));
    base = __shfl_sync(peers, base, leader);
    rank[m] = base + __popc(peers & ((1u << lane) - 1));
}

/* Write the footprint of point m to sorted place i. */
template <typename T, typename K>
__device__ __forceinline__ void kd_put(const K *traj, int nc, long long m, long long i,
                                       const kri_geo &g, const kri_geo_r &gr, int *const *l0,
                                       T *const *fr)
{
    for (int d = 0; d < g.nd; d++) {
        double s;
        l0[d][i] = kd_foot(traj, nc, m, d, g, gr.hw, gr.r[d], &s);
        fr[d][i] = (T)s;
    }
}

struct kri_pts {
    int *l0[3];
    void *fr[3];
};

/* Counting sort, pass 2: every point's index to its place (nothing when a point was invalid);
 * k_nufft_gather then writes the footprints in sorted order. */
__global__ void k_nufft_scatter(long long M, const unsigned *keys, const int *rank,
                                const int *start, int *perm, const unsigned long long *bad)
{
    long long m = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= M || *bad != ~0ull) return;
    perm[start[keys[m]] + rank[m]] = (int)m;
}

/* Radix-sort variant, pass 1: validate and bin (key, index) pairs for a stable sort. */
template <typename K>
__global__ void k_nufft_bin_keys(const K *traj, int nc, long long M, const kri_geo g,
                                 const kri_geo_r gr, unsigned *keys, int *vals,
                                 unsigned long long *bad)
{
    long long m = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= M) return;
    unsigned b = 0;
    kd_bin_of(traj, nc, m, g, gr.hw, gr.r, &b, bad);
    keys[m] = b;
    vals[m] = (int)m;
}

/* Both sorts, last pass: the footprints of the sorted points (coalesced writes). */
template <typename T, typename K>
__global__ void k_nufft_gather(const K *traj, int nc, long long M, const kri_geo g,
                               const kri_geo_r gr, const int *perm, kri_pts out,
                               const unsigned long long *bad)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= M || *bad != ~0ull) return;
    kd_put<T, K>(traj, nc, perm[i], i, g, gr, out.l0, (T *const *)out.fr);
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

/* Subproblem blockIdx.x: its sorted points [first, last) and its bin's first cell o. */
struct kd_subp {
    int first, last, o[3];
};

__device__ __forceinline__ kd_subp kd_subp_of(const kri_geo &g, const int *sub_bin,
                                              const int *sub_first, const int *bin_start)
{
    kd_subp r;
    const int bin = sub_bin[blockIdx.x];
    r.first = sub_first[blockIdx.x];
    r.last = min(r.first + g.maxsub, bin_start[bin + 1]);
    r.o[0] = bin % g.nb[0] * g.bs[0];
    r.o[1] = bin / g.nb[0] % g.nb[1] * g.bs[1];
    r.o[2] = bin / (g.nb[0] * g.nb[1]) * g.bs[2];
    return r;
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
    const int b = blockIdx.y;
    const kd_subp sp = kd_subp_of(g, sub_bin, sub_first, bin_start);
    const int first = sp.first, last = sp.last, ox = sp.o[0], oy = sp.o[1], oz = sp.o[2];
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

/* Spreading without atomics in shared memory (3-D): block = (subproblem, batch member). The
 * subproblem's points are staged in chunks of up to np: their kernel values (one thread per
 * point and dim), samples and tile corners go to shared memory. Warp k of NW owns the tile's
 * planes z = k (mod NW) and walks through every staged point in order: the lanes share the
 * point's w x w cells on each owned plane it touches, so no two threads ever add to one cell at
 * the same time (a __syncwarp between points orders the lanes' adds). Each tile cell receives
 * its points in sorted order; the tile then goes to the grid as in k_nufft_spread. */
template <typename T, int W>
__global__ void __launch_bounds__(kThreads)
    k_nufft_spread_warp(const kri_geo g, const __grid_constant__ kri_coef<T> coef,
                        const int *sub_bin, const int *sub_first, const int *bin_start,
                        const int *perm, const int *l0x, const int *l0y, const int *l0z,
                        const T *fx, const T *fy, const T *fz, const typename kri_c2<T>::t *y,
                        long long M, T *grid, long long ngrid, long long b0, int check,
                        unsigned long long *bad, int np)
{
    typedef typename kri_c2<T>::t C;
    extern __shared__ __align__(16) unsigned char kri_smem[];
    const int b = blockIdx.y;
    const kd_subp sp = kd_subp_of(g, sub_bin, sub_first, bin_start);
    const int first = sp.first, last = sp.last, ox = sp.o[0], oy = sp.o[1], oz = sp.o[2];
    const int TX = g.bs[0] + W - 1, TY = g.bs[1] + W - 1, TZ = g.bs[2] + W - 1;
    const int ncell = TX * TY * TZ;
    C *tile = (C *)kri_smem;
    C *sv = tile + ncell;                  /* np samples */
    T *kv = (T *)(sv + np);                /* np x 3 x W kernel values */
    int *corner = (int *)(kv + 3 * W * np); /* np x 3 tile corners */
    for (int t = threadIdx.x; t < ncell; t += blockDim.x) tile[t] = C{(T)0, (T)0};
    const C *yb = y + (long long)b * M;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, NW = blockDim.x >> 5;
    for (int base = first; base < last; base += np) {
        const int cnt = min(np, last - base);
        __syncthreads(); /* the tile is cleared / the previous chunk is consumed */
        for (int t = threadIdx.x; t < 3 * cnt; t += blockDim.x) {
            const int q = t / 3, d = t - 3 * q, i = base + q;
            const T f = d == 0 ? fx[i] : d == 1 ? fy[i] : fz[i];
            T v[W];
            kd_kvals<T, W>(coef, g.deg, f, v);
#pragma unroll
            for (int j = 0; j < W; j++) kv[(q * 3 + d) * W + j] = v[j];
            const int l = d == 0 ? l0x[i] : d == 1 ? l0y[i] : l0z[i];
            const int o = d == 0 ? ox : d == 1 ? oy : oz;
            corner[q * 3 + d] = kd_centre(l, g.P, g.n[d]) - o;
            if (d == 0) {
                const int m = perm[i];
                C v0 = yb[m];
                if (check && !(kd_finite(v0.x) && kd_finite(v0.y))) {
                    atomicMin(bad, (unsigned long long)((b0 + b) * M + m));
                    v0 = C{(T)0, (T)0};
                }
                sv[q] = v0;
            }
        }
        __syncthreads();
        for (int q = 0; q < cnt; q++) {
            const int lz = corner[q * 3 + 2];
            int z = lz + ((warp - lz) % NW + NW) % NW; /* first owned plane >= lz */
            if (z < lz + W) {
                const int lx = corner[q * 3], ly = corner[q * 3 + 1];
                const T *kx = kv + q * 3 * W, *ky = kx + W, *kz = ky + W;
                const C v = sv[q];
                for (; z < lz + W; z += NW) {
                    const T az = kz[z - lz];
                    const T vr = v.x * az, vi = v.y * az;
                    C *pl = tile + (z * TY + ly) * TX + lx;
#pragma unroll
                    for (int c0 = 0; c0 < W * W; c0 += 32) {
                        const int c = c0 + lane;
                        if (c < W * W) {
                            const int jy = c / W, jx = c - jy * W;
                            const T a = ky[jy] * kx[jx];
                            C *cell = pl + jy * TX + jx;
                            C o = *cell;
                            o.x += vr * a;
                            o.y += vi * a;
                            *cell = o;
                        }
                    }
                }
            }
            __syncwarp();
        }
    }
    __syncthreads();
    T *gb = grid + 2 * (long long)b * ngrid;
    for (int t = threadIdx.x; t < ncell; t += blockDim.x) {
        const C v = tile[t];
        if (v.x == (T)0 && v.y == (T)0) continue;
        int tx = t % TX, ty = (t / TX) % TY, tz = t / (TX * TY);
        int gx = (ox - g.P + tx) % g.n[0], gy = (oy - g.P + ty) % g.n[1],
            gz = (oz - g.P + tz) % g.n[2];
        if (gx < 0) gx += g.n[0];
        if (gy < 0) gy += g.n[1];
        if (gz < 0) gz += g.n[2];
        long long gi = ((long long)gz * g.n[1] + gy) * (long long)g.n[0] + gx;
        kd_atomic_add2(gb + 2 * gi, v.x, v.y);
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

#endif
