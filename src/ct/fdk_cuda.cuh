/* Device helpers of the FDK backprojection kernels (fdk_cuda.cu, fdk_cuda_pipe.cu): the column
 * quantities, the bilinear sample, the block footprint and the per-column accumulation, written
 * once so every kernel evaluates the same float expressions in the same order as the CPU's
 * AVX-512 kernel (explicit __f*_rn intrinsics: nvcc cannot contract differently). Private to the
 * CUDA sources of src/ct. */
#ifndef KRAY_FDK_CUDA_CUH
#define KRAY_FDK_CUDA_CUH

#include <cuda_runtime.h>

#include "fdk_internal.h"

/* ---- device arithmetic shared by all kernels ------------------------------------------------ */
#define KDF static __device__ __forceinline__

/* The projection matrix (fdk_kern.h), CUDA instance: the CPU's AVX-512 arithmetic operation for
 * operation. __frcp_rn(w) = __fdiv_rn(1.0f, w): both correctly rounded. */
#define KT float
#define KFN(x) x##_cu
#define KHD KDF
#define KS(x) (x)
#define KMUL(a, b) __fmul_rn(a, b)
#define KADD(a, b) __fadd_rn(a, b)
#define KFMA(a, b, c) __fmaf_rn(a, b, c)
#define KRCP(a) __frcp_rn(a)
#define KFMUL(a, b) __fmul_rn(a, b)
#define KFADD(a, b) __fadd_rn(a, b)
#include "fdk_kern.h"

struct kri_col {
    float fu, wt, vb, dv;
    int iu;
};

/* Column quantities: u clamped to [-1, nu] and split into floor and fraction. */
KDF kri_col kri_column(const kri_fdk_mat &M, int i, int j, float nuf)
{
    float w0, u0, v0, u;
    kri_col c;
    kri_fdk_row_terms_cu(&M, (float)j, &w0, &u0, &v0);
    kri_fdk_col_cu(&M, (float)i, w0, u0, v0, &u, &c.wt, &c.vb, &c.dv);
    u = fminf(fmaxf(u, -1.0f), nuf);
    const float fl = floorf(u);
    c.fu = __fsub_rn(u, fl);
    c.iu = (int)fl;
    return c;
}

KDF float kri_bilerp(float q00, float q10, float q01, float q11, float fu, float fv)
{
    const float s0 = __fmaf_rn(fu, __fsub_rn(q10, q00), q00);
    const float s1 = __fmaf_rn(fu, __fsub_rn(q11, q01), q01);
    return __fmaf_rn(fv, __fsub_rn(s1, s0), s0);
}

/* Filtered projection value at detector pixel (a, b) of batch slot s, zero off the detector
 * and outside the slab's band [vb0, vb0 + nvb). */
struct kri_bp_src {
    const float *q;
    long long slot; /* floats per view slot: nu * nbmax */
    int nu, nv, vb0, nvb;
    /* -8 * 0x4B400000 (mod 2^32): the bias of the float-bits tile addresses of the align kernel
     * (8-byte cells), passed at run time so that ptxas keeps it inside the row bases instead of
     * adding it per sample. Here rather than as an argument of that kernel alone: so placed,
     * ptxas spills 8 bytes and the 1024^3 backprojection is 1.5 % slower (392.1 vs 386.5 ms). */
    unsigned nbias8;
};

KDF float kri_fetch(const kri_bp_src &S, const float *qs, int a, int b)
{
    if (a < 0 || a >= S.nu || b < S.vb0 || b >= S.vb0 + S.nvb || b >= S.nv) return 0.0f;
    return __ldg(qs + (long long)(b - S.vb0) * S.nu + a);
}

/* Parameter block of one launch: the views' matrices (constant memory). */
struct kri_bp_views {
    int n;     /* views in this launch */
    int slot0; /* batch slot of the first */
    kri_fdk_mat m[KRI_FDK_VPL];
};

struct kri_bp_vol {
    float *vol; /* slab base: slice z0 */
    int nx, ny, nzs, z0;
};

/* Footprint of a block's voxel box [bi0, bi1] x [bj0, bj1] x [k0, k0 + nk - 1] on view M,
 * computed by 8 lanes (corner lane & 7 each; u clamped as the columns, v unclamped;
 * u and v are linear-fractional in (i, j, k), so the extremes sit at corners) and written by lane
 * 0 to bb: tu0, tv0, W, H (tile origin and size: cells floor .. floor + 1 and a margin of 2 for
 * rounding) and the mode: 0 global reads (footprint larger than cap cells), 1 staged with
 * checked loads, 2 staged with loads wholly on the detector and inside the band, 3 nothing to
 * add (a footprint wholly off the detector or the band reads only zeros: every sample is +0 and
 * adding it changes nothing). Must be called by all 32 lanes of a warp; the shuffles stay within
 * aligned groups of 8 lanes, and the caller's lane 0 of a group (lane argument 0) writes bb. */
KDF void kri_footprint(const kri_fdk_mat &M, const kri_bp_src &S, int bi0, int bi1, int bj0,
                       int bj1, int k0, int nk, int cap, int lane, int *bb)
{
    const float nuf = (float)S.nu;
    const int rlo = max(0, S.vb0), rhi = min(S.nv, S.vb0 + S.nvb);
    const int c = lane & 7;
    const int ci = (c & 1) ? bi1 : bi0, cj = (c & 2) ? bj1 : bj0;
    const int ck = (c & 4) ? k0 + nk - 1 : k0;
    const kri_col col = kri_column(M, ci, cj, nuf);
    const float v = floorf(kri_fdk_v_cu(col.vb, col.dv, (float)ck));
    float umin = (float)col.iu, umax = umin, vmin = v, vmax = v;
#pragma unroll
    for (int o = 1; o < 8; o <<= 1) {
        umin = fminf(umin, __shfl_xor_sync(0xffffffffu, umin, o));
        umax = fmaxf(umax, __shfl_xor_sync(0xffffffffu, umax, o));
        vmin = fminf(vmin, __shfl_xor_sync(0xffffffffu, vmin, o));
        vmax = fmaxf(vmax, __shfl_xor_sync(0xffffffffu, vmax, o));
    }
    if (lane != 0) return;
    const float W = umax - umin + 6.0f, H = vmax - vmin + 6.0f;
    int st = 0;
    if (umax + 4.0f < 0.0f || umin - 2.0f > nuf || vmax + 4.0f <= (float)rlo ||
        vmin - 2.0f >= (float)rhi)
        st = 3;
    else if (W * H <= (float)cap && fabsf(vmin) < 4.0e6f && fabsf(vmax) < 4.0e6f) {
        bb[0] = (int)umin - 2;
        bb[1] = (int)vmin - 2;
        bb[2] = (int)W;
        bb[3] = (int)H;
        st = 1;
        if (bb[0] >= 0 && bb[0] + bb[2] < S.nu && bb[1] >= rlo && bb[1] + bb[3] <= rhi) st = 2;
    }
    bb[4] = st;
}

/* acc[kk] += w * sample over the column's nk slices from global memory (clamped v). */
template <int KZ>
KDF void kri_accum_global(float *acc, const kri_col &col, const kri_bp_src &S, const float *qs,
                          float kf0, int nk)
{
    const float nvf = (float)S.nv;
#pragma unroll
    for (int kk = 0; kk < KZ; kk++) {
        if (kk < nk) {
            float v = kri_fdk_v_cu(col.vb, col.dv, __fadd_rn(kf0, (float)kk));
            v = fminf(fmaxf(v, -1.0f), nvf);
            const float fl = floorf(v);
            const int iv = (int)fl;
            acc[kk] = __fmaf_rn(col.wt,
                                kri_bilerp(kri_fetch(S, qs, col.iu, iv),
                                           kri_fetch(S, qs, col.iu + 1, iv),
                                           kri_fetch(S, qs, col.iu, iv + 1),
                                           kri_fetch(S, qs, col.iu + 1, iv + 1), col.fu,
                                           __fsub_rn(v, fl)),
                                acc[kk]);
        }
    }
}

/* The same from a staged tile of pairs (q(a, b), q(a + 1, b)) for cells (tu0 + c, tv0 + r),
 * W x H. v is not clamped: outside [-1, nv] both rows read are zero rows of the tile and the
 * sample is +0, exactly as after the clamp. floor(v) is converted with the 1.5 * 2^23 trick
 * (exact for |v| < 2^22; staged v are bounded by the tile), which keeps the conversion pipe
 * free. */
template <int KZ>
KDF void kri_accum_tile(float *acc, const kri_col &col, const float2 *tile, int tu0, int tv0,
                        int W, int H, float kf0, int nk)
{
    const int cb = (col.iu - tu0) - tv0 * W; /* tile index of (iu, row 0) */
    const unsigned hi = (unsigned)(W * (H - 1) - 1); /* largest valid upper index */
#pragma unroll
    for (int kk = 0; kk < KZ; kk++) {
        if (kk < nk) {
            const float v = kri_fdk_v_cu(col.vb, col.dv, __fadd_rn(kf0, (float)kk));
            const float fl = floorf(v);
            const int iv = __float_as_int(__fadd_rn(fl, 12582912.0f)) - 0x4B400000;
            const unsigned off = min((unsigned)(iv * W + cb), hi);
            const float2 a = tile[off], b = tile[off + W];
            acc[kk] = __fmaf_rn(col.wt,
                                kri_bilerp(a.x, a.y, b.x, b.y, col.fu, __fsub_rn(v, fl)),
                                acc[kk]);
        }
    }
}

/* 4-byte asynchronous copy global -> shared; ok == false writes +0 without reading src. */
KDF void kri_cp4(float *dst, const float *src, bool ok)
{
    const unsigned d = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(d), "l"(src),
                 "r"(ok ? 4 : 0)
                 : "memory");
}
KDF void kri_cp_commit()
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}
KDF void kri_cp_wait_all()
{
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
}

/* 16-byte asynchronous copy global -> shared, bypassing L1; the first n bytes (0..16) come
 * from src, the rest is +0 (n == 0 reads nothing). Both addresses 16-byte aligned. */
KDF void kri_cp16(unsigned dst, const float *src, int n)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(n)
                 : "memory");
}

/* Launchers of the pipelined kernels (fdk_cuda_pipe.cu); variant 0: 32x16 columns per block,
 * variant 1: 32x32. Returns the launch status. */
cudaError_t kri_fdk_bp_pipe(int variant, cudaStream_t st, const kri_bp_src &S,
                            const kri_bp_vol &V, const kri_bp_views &P);

/* Launcher of the ray-aligned kernel (fdk_cuda_align.cu). */
cudaError_t kri_fdk_bp_align(cudaStream_t st, const kri_bp_src &S, const kri_bp_vol &V,
                             const kri_bp_views &P);

#endif
