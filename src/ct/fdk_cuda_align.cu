/* FDK backprojection, ray-aligned kernel ("align"). Blocks of 32 x 32 columns x KZ slices, like
 * pipe32, with three changes that cut the instructions per voxel update about in half:
 *   - the warps' columns follow the views' rays: lane l of warp y owns block column
 *     (l, (y + TY c + round(l shear)) & 31), or its transpose (each block picks the axis and the
 *     shear from the ray through its centre on the launch's middle view), so a warp's samples
 *     crowd into few detector cells (shared-memory broadcasts instead of bank conflicts); the
 *     volume goes in and out through shared memory, so its global accesses stay coalesced;
 *   - the views' footprints are staged as plain floats with 16-byte asynchronous copies (zero
 *     fill off the detector and outside the band), a quarter of a copy per cell where the pair
 *     tiles of pipe took two;
 *   - a sample's tile address is one exact float FMA (row * pitch + column, biased by 1.5 * 2^23
 *     so the float's bits are the index), then four loads.
 * Same values, same order, same float expressions as the other kernels (fdk_cuda.cuh), so the
 * result is bit-identical to them and to the CPU's AVX-512 kernel.
 *
 * The hybrid variant (NTEX > 0, by request only) sends three of each thread's four columns
 * through the texture unit's bilinear filter, whose 8-bit interpolation weights make it
 * approximate (1.6e-3 of the maximum in an FDK of the test's phantom); 512^3: 72 ms. */
#include "fdk_cuda.cuh"

#define KRI_BIAS 12582912.0f /* 1.5 * 2^23: floats in [2^23, 2^24) are integers, bits = 0x4B400000 + n */

KDF float kri_lds(unsigned a)
{
    float x;
    asm volatile("ld.shared.f32 %0, [%1];" : "=f"(x) : "r"(a));
    return x;
}

/* The lanes' direction for a block centred at column (ci, cj) on view M: along i or j,
 * whichever is closer to the direction in which u stays constant there (the ray through the
 * block, seen from above), with the shear that follows it (clamped to +-1; any shear gives a
 * bijection, so this only steers speed). */
KDF void kri_ray_lanes(const kri_fdk_mat &M, float ci, float cj, bool *lanes_j, float *shear)
{
    const float w = M.pw[0] * ci + M.pw[1] * cj + M.pw[3];
    const float u = (M.pu[0] * ci + M.pu[1] * cj + M.pu[3]) / w;
    const float t0 = u * M.pw[1] - M.pu[1], t1 = M.pu[0] - u * M.pw[0]; /* (-g1, g0) */
    *lanes_j = fabsf(t1) > fabsf(t0);
    const float s = *lanes_j ? t0 / t1 : t1 / t0;
    *shear = s >= -1.0f ? fminf(s, 1.0f) : -1.0f; /* NaN too */
}

/* Footprint of the block on view M in the plain layout: the tile starts at a multiple of 4
 * cells and its pitch is a multiple of 4 (16-byte rows); mode 0 if that exceeds cap floats. */
KDF void kri_footprint4(const kri_fdk_mat &M, const kri_bp_src &S, int bi0, int bi1, int bj0,
                        int bj1, int k0, int nk, int cap, int lane, int *bb)
{
    kri_footprint(M, S, bi0, bi1, bj0, bj1, k0, nk, cap, lane, bb);
    if (lane != 0 || (bb[4] != 1 && bb[4] != 2)) return;
    const int tu = bb[0] & ~3, pitch = (bb[2] + (bb[0] - tu) + 3) & ~3;
    if (pitch * bb[3] > cap) {
        bb[4] = 0;
        return;
    }
    bb[0] = tu;
    bb[2] = pitch;
}

/* Issue the copies of view n's tile (mode bb[4] 1 or 2) into the tile at shared address t. */
template <int NT>
KDF void kri_stage4(const kri_bp_src &S, const float *qs, const int *bb, unsigned t, int tid,
                    bool v16)
{
    const int st = bb[4];
    if (st != 1 && st != 2) return;
    const int tu0 = bb[0], tv0 = bb[1], pitch = bb[2], H = bb[3];
    for (int r = tid / 32; r < H; r += NT / 32) {
        const int b = tv0 + r;
        const bool rok = b >= S.vb0 && b < S.vb0 + S.nvb && b < S.nv;
        const float *row = qs + (long long)(b - S.vb0) * S.nu;
        const unsigned d = t + (unsigned)(r * pitch) * 4u;
        if (v16) {
            for (int c = (tid & 31) * 4; c < pitch; c += 128) {
                const int a = tu0 + c;
                const int n = rok && a >= 0 ? min(max(S.nu - a, 0), 4) * 4 : 0;
                kri_cp16(d + (unsigned)c * 4u, n ? row + a : S.q, n);
            }
        } else {
            for (int c = tid & 31; c < pitch; c += 32) {
                const int a = tu0 + c;
                const bool ok = rok && a >= 0 && a < S.nu;
                float *dp = (float *)__cvta_shared_to_generic(d + (unsigned)c * 4u);
                kri_cp4(dp, ok ? row + a : S.q, ok);
            }
        }
    }
}

/* acc[kk] += w * sample for all KZ slices from the plain tile at shared address t (slices past
 * nk compute discarded samples: the store skips them). No clamp: the footprint covers all KZ
 * slices of every column of the block, with a margin of 2 cells for rounding (u and v are
 * linear-fractional, so their extremes are at the box corners, which the footprint evaluates
 * with these very expressions). */
template <int KZ>
KDF void kri_accum_plain(float *acc, const kri_col &col, unsigned t, const int *bb, float kf0)
{
    const int pitch = bb[2];
    const float pf = (float)pitch;
    const float cb = (float)((col.iu - bb[0]) - bb[1] * pitch) + KRI_BIAS;
    const unsigned adj = t - 0x4B400000u * 4u, down = (unsigned)pitch * 4u;
#pragma unroll
    for (int kk = 0; kk < KZ; kk++) {
        const float v = __fmaf_rn(__fadd_rn(kf0, (float)kk), col.dv, col.vb);
        const float fl = floorf(v);
        const float x = __fmaf_rn(fl, pf, cb);
        const unsigned a0 = (unsigned)__float_as_int(x) * 4u + adj, a1 = a0 + down;
        acc[kk] = __fmaf_rn(col.wt,
                            kri_bilerp(kri_lds(a0), kri_lds(a0 + 4u), kri_lds(a1),
                                       kri_lds(a1 + 4u), col.fu, __fsub_rn(v, fl)),
                            acc[kk]);
    }
}

/* The same through the texture unit's bilinear filter (the hybrid kernel): one fetch per
 * sample, the interpolation weights rounded to 8 fractional bits by the hardware, zero off the
 * detector and the band (border addressing; the batch rows past the band are zero). */
template <int KZ>
KDF void kri_accum_tex(float *acc, const kri_col &col, unsigned long long tex, float vb0,
                       float kf0)
{
    const float x = __fadd_rn((float)col.iu, col.fu) + 0.5f; /* texel centres at +0.5 */
#pragma unroll
    for (int kk = 0; kk < KZ; kk++) {
        const float v = __fmaf_rn(__fadd_rn(kf0, (float)kk), col.dv, col.vb);
        const float q = tex2D<float>((cudaTextureObject_t)tex, x, v - vb0 + 0.5f);
        acc[kk] = __fmaf_rn(col.wt, q, acc[kk]);
    }
}

/* Volume <-> shared exchange buffer ex[(kk * 32 + lj) * 32 + li] (coalesced along i). */
template <int NT, int KZ>
KDF void kri_exchange(float *ex, const kri_bp_vol &V, int kl0, int nk, int bi0, int bj0, int tid,
                      bool load)
{
    for (int x = tid; x < 32 * 32 * KZ; x += NT) {
        const int i = bi0 + (x & 31), j = bj0 + ((x >> 5) & 31), kk = x >> 10;
        if (i >= V.nx || j >= V.ny || kk >= nk) continue;
        float *vp = V.vol + ((long long)(kl0 + kk) * V.ny + j) * V.nx + i;
        if (load)
            ex[x] = *vp;
        else
            *vp = ex[x];
    }
}

/* NTEX > 0 (the hybrid kernel): each thread's first NTEX columns sample through the texture
 * unit (P.tex), in parallel with the shared-memory path of the others. */
template <int TY, int CY, int KZ, int MINB, int NTEX>
__global__ void __launch_bounds__(32 * TY, MINB)
    k_fdk_bp_align(kri_bp_src S, kri_bp_vol V, int cap, const kri_bp_views P)
{
    constexpr int NT = 32 * TY;
    static_assert(TY * CY == 32, "blocks of 32 x 32 columns");
    extern __shared__ __align__(16) float tiles[]; /* two tiles of cap floats; the exchange */
    __shared__ int bb[KRI_FDK_VPL][5]; /* footprints of all the launch's views */
    const int tid = threadIdx.y * 32 + threadIdx.x;
    const int kl0 = blockIdx.z * KZ;
    const int nk = min(KZ, V.nzs - kl0);
    const int k0 = V.z0 + kl0;
    const float nuf = (float)S.nu, kf0 = (float)k0;
    const int bi0 = blockIdx.x * 32, bi1 = min(V.nx, bi0 + 32) - 1;
    const int bj0 = blockIdx.y * 32, bj1 = min(V.ny, bj0 + 32) - 1;
    const bool v16 = ((S.nu | (int)(S.slot & 3)) & 3) == 0 && ((size_t)S.q & 15) == 0;
    const unsigned t0 = (unsigned)__cvta_generic_to_shared(tiles);
    bool lanes_j;
    float shear;
    kri_ray_lanes(P.m[P.n / 2], (float)bi0 + 15.5f, (float)bj0 + 15.5f, &lanes_j, &shear);
    const int sh = __float2int_rn((float)threadIdx.x * shear);
    int li[CY], lj[CY];
#pragma unroll
    for (int c = 0; c < CY; c++) {
        const int o = ((int)threadIdx.y + c * TY + sh) & 31;
        li[c] = lanes_j ? o : (int)threadIdx.x;
        lj[c] = lanes_j ? (int)threadIdx.x : o;
    }
    float acc[CY][KZ];
    kri_exchange<NT, KZ>(tiles, V, kl0, nk, bi0, bj0, tid, true);
    __syncthreads();
#pragma unroll
    for (int c = 0; c < CY; c++)
#pragma unroll
        for (int kk = 0; kk < KZ; kk++) acc[c][kk] = tiles[(kk * 32 + lj[c]) * 32 + li[c]];
    /* all footprints up front, 8 lanes per view (no warp does extra work inside the loop,
     * where it would hold the others at the barrier) */
    for (int v0 = (tid >> 5) * 4; v0 < P.n; v0 += NT / 8) {
        const int n = v0 + ((tid & 31) >> 3), nc = min(n, P.n - 1);
        kri_footprint4(P.m[nc], S, bi0, bi1, bj0, bj1, k0, KZ, cap, n < P.n ? tid & 7 : 1,
                       bb[nc]);
    }
    __syncthreads(); /* also: every thread has read its sums out of the exchange */
    kri_stage4<NT>(S, S.q + (long long)P.slot0 * S.slot, bb[0], t0, tid, v16);
    kri_cp_commit();
    for (int n = 0; n < P.n; n++) {
        kri_cp_wait_all();
        __syncthreads();
        if (n + 1 < P.n) {
            kri_stage4<NT>(S, S.q + (long long)(P.slot0 + n + 1) * S.slot, bb[n + 1],
                           t0 + (unsigned)(((n + 1) & 1) * cap) * 4u, tid, v16);
            kri_cp_commit();
        }
        const int *b = bb[n];
        const int st = b[4];
        if (st == 3) continue;
        const kri_fdk_mat &M = P.m[n];
        const float *qs = S.q + (long long)(P.slot0 + n) * S.slot;
        const unsigned t = t0 + (unsigned)((n & 1) * cap) * 4u;
#pragma unroll
        for (int c = 0; c < CY; c++) {
            const int i = bi0 + li[c], j = bj0 + lj[c];
            if (i >= V.nx || j >= V.ny) continue;
            const kri_col col = kri_column(M, i, j, nuf);
            if (c < NTEX)
                kri_accum_tex<KZ>(acc[c], col, P.tex[n], (float)S.vb0, kf0);
            else if (st)
                kri_accum_plain<KZ>(acc[c], col, t, b, kf0);
            else
                kri_accum_global<KZ>(acc[c], col, S, qs, kf0, nk);
        }
    }
    kri_cp_wait_all();
    __syncthreads(); /* every thread is done with the tiles */
#pragma unroll
    for (int c = 0; c < CY; c++)
#pragma unroll
        for (int kk = 0; kk < KZ; kk++) tiles[(kk * 32 + lj[c]) * 32 + li[c]] = acc[c][kk];
    __syncthreads();
    kri_exchange<NT, KZ>(tiles, V, kl0, nk, bi0, bj0, tid, false);
}

template <int TY, int CY, int KZ, int MINB, int NTEX>
static cudaError_t kri_launch_align(int cap, cudaStream_t st, const kri_bp_src &S,
                                    const kri_bp_vol &V, const kri_bp_views &P)
{
    const size_t smem = 2 * (size_t)cap * sizeof(float);
    static_assert(32 * 32 * KZ <= 2 * 8192, "the exchange fits in the tiles");
    cudaError_t e = cudaFuncSetAttribute(k_fdk_bp_align<TY, CY, KZ, MINB, NTEX>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return e;
    dim3 g((unsigned)((V.nx + 31) / 32), (unsigned)((V.ny + 31) / 32),
           (unsigned)((V.nzs + KZ - 1) / KZ));
    k_fdk_bp_align<TY, CY, KZ, MINB, NTEX><<<g, dim3(32, TY), smem, st>>>(S, V, cap, P);
    return cudaGetLastError();
}

cudaError_t kri_fdk_bp_align(cudaStream_t st, const kri_bp_src &S, const kri_bp_vol &V,
                             const kri_bp_views &P, int hybrid, int deep)
{
    if (P.n <= 0) return cudaSuccess;
    /* measured at 512^3 (H100): 3 blocks of 8 slices per thread 86 ms; 2 blocks 97 ms; 16 slices
     * per thread in 512-thread blocks 99 ms; 8 slices in 512-thread blocks 116 ms */
    /* hybrid, 512^3: 1, 2, 3 of the 4 columns through the texture unit 79.9, 74.9, 72.2 ms */
    if (hybrid) return kri_launch_align<8, 4, 8, 3, 3>(8192, st, S, V, P);
    /* 16 slices per thread, 2 blocks per SM: 512^3 89.4 ms (worse), 1024^3 528.8 ms against
     * 569.4 (a voxel covers 1.25 pixels there, 2.5 at 512^3: small footprints make the column
     * set-up, which 16 slices halve, the larger share) */
    if (deep) return kri_launch_align<8, 4, 16, 2, 0>(8192, st, S, V, P);
    return kri_launch_align<8, 4, 8, 3, 0>(8192, st, S, V, P);
}
