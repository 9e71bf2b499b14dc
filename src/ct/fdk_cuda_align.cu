/* FDK backprojection, ray-aligned kernel ("align"). Blocks of 32 x 32 columns x KZ slices, like
 * pipe32, with changes that cut the instructions per voxel update from 49 to about 22 and keep
 * the shared-memory banks (the limit now, about 80 % busy on the H100) as free as possible:
 *   - the warps' columns follow the views' rays: each warp takes 4 neighbouring lines of 8
 *     voxels along the ray through the block's centre on the launch's middle view (sheared
 *     lines along i or j, whichever is closer), so its samples crowd into few detector cells
 *     and bank conflicts stay few; the volume goes in and out through shared memory, so its
 *     global accesses stay coalesced;
 *   - the views' footprints are staged as plain floats with 16-byte asynchronous copies (zero
 *     fill off the detector and outside the band), spread over all threads in 4-cell chunks;
 *   - each staged tile is then rebuilt in shared memory as cells of (value, difference to the
 *     right neighbour), in rows whose pitch spreads a detector column over the banks: a
 *     sample's bilinear interpolation is two 8-byte loads and three FMAs plus a subtraction;
 *   - a sample's tile address is one exact float FMA (row * pitch + column, biased by 1.5 * 2^23
 *     so the float's bits are the index), with the bias folded into the row bases at run time.
 * Same values, same order, same float expressions as the other kernels (fdk_cuda.cuh), so the
 * result is bit-identical to them and to the CPU's AVX-512 kernel. Measured (512^3, 496 views
 * of 1248 x 960, H100): plain tiles 86 ms, pairs 75 ms, 16 slices per thread 72 ms, warps of
 * 4 x 8 instead of 1 x 32 voxels 67.6 ms. */
#include "fdk_cuda.cuh"

#define KRI_BIAS 12582912.0f /* 1.5 * 2^23: floats in [2^23, 2^24) are integers, bits = 0x4B400000 + n */

/* The lanes' direction for a block centred at column (ci, cj) on view M: along i or j,
 * whichever is closer to the direction in which u stays constant there (the ray through the
 * block, seen from above), with the shear that follows it (clamped to +-1; any shear gives a
 * bijection, so this only steers speed). */
KDF void kri_ray_lanes(const kri_fdk_mat &M, float ci, float cj, bool *lanes_j, float *shear)
{
    float w, un, vn;
    kri_fdk_voxel_cu(&M, ci, cj, 0.0f, &w, &un, &vn);
    const float u = un / w;
    const float t0 = u * M.pw[1] - M.pu[1], t1 = M.pu[0] - u * M.pw[0]; /* (-g1, g0) */
    *lanes_j = fabsf(t1) > fabsf(t0);
    const float s = *lanes_j ? t0 / t1 : t1 / t0;
    *shear = s >= -1.0f ? fminf(s, 1.0f) : -1.0f; /* NaN too */
}

/* Footprint of the block on view M: bb[0..4] as kri_footprint, then for the plain tile a start
 * at a multiple of 4 cells and a pitch (bb[2]) that is a multiple of 4 (16-byte rows), and for
 * the pair tile a pitch bb[5] of 6 (mod 16) cells: even, for 16-byte stores of two cells, and
 * the rows a warp reads at one detector column fall in different banks up to 8 rows apart
 * (8-byte cells: 16 per 128 bytes; an odd column offset never collides). bb[6] is the number
 * of 4-cell chunks of the plain tile, bb[7] the bits of 1 / (pitch / 4). Mode 0 if the pair
 * tile exceeds cap cells; mode 2 only if the rounded rows stay on the detector. */
KDF void kri_footprint_pairs(const kri_fdk_mat &M, const kri_bp_src &S, int bi0, int bi1,
                             int bj0, int bj1, int k0, int nk, int cap, int lane, int *bb)
{
    kri_footprint(M, S, bi0, bi1, bj0, bj1, k0, nk, cap, lane, bb);
    if (lane != 0 || (bb[4] != 1 && bb[4] != 2)) return;
    const int tu = bb[0] & ~3, pitch = (bb[2] + (bb[0] - tu) + 3) & ~3;
    const int ppd = pitch + ((6 - pitch) & 15);
    if (ppd * bb[3] > cap) {
        bb[4] = 0;
        return;
    }
    bb[0] = tu;
    bb[2] = pitch;
    bb[5] = ppd;
    bb[6] = bb[3] * (pitch / 4);
    bb[7] = __float_as_int(__frcp_rn((float)(pitch / 4)));
    if (tu + pitch > S.nu) bb[4] = 1;
}

/* Chunk x (4 cells) of a tile of rows of m chunks (inv = 1 / m): its row and chunk within the
 * row. Exact: (x + 1/2) / m lies at least 1 / (2 m) from an integer, and its float error is
 * below (x / m) 2^-22 <= (rows m) 2^-22 / m < 1 / (2^10 m), rows m being at most cap / 4. */
KDF void kri_chunk(int x, int m, float inv, int *r, int *c)
{
    *r = (int)__fmul_rn((float)x + 0.5f, inv);
    *c = x - *r * m;
}

/* Issue the copies of view n's plain tile (mode bb[4] 1 or 2) into shared address t: 16 bytes
 * per 4-cell chunk (4 bytes per cell when the rows are not 16-byte aligned); cells off the
 * detector or outside the band are +0 (zero-fill, nothing read). */
template <int NT>
KDF void kri_stage4(const kri_bp_src &S, const float *qs, const int *bb, unsigned t, int tid,
                    bool v16)
{
    const int st = bb[4];
    if (st != 1 && st != 2) return;
    const int tu0 = bb[0], tv0 = bb[1], pitch = bb[2], H = bb[3], nch = bb[6], m = pitch / 4;
    const float inv = __int_as_float(bb[7]);
    const int rlo = max(S.vb0, 0), rhi = min(S.vb0 + S.nvb, S.nv);
    const float *base = qs + (long long)(tv0 - S.vb0) * S.nu + tu0;
    if (v16) {
        for (int x = tid; x < nch; x += NT) {
            int r, c;
            kri_chunk(x, m, inv, &r, &c);
            const float *src = base + (long long)r * S.nu + 4 * c;
            const unsigned d = t + (unsigned)x * 16u;
            int n = 16;
            if (st == 1) {
                const int a = tu0 + 4 * c;
                n = (unsigned)(tv0 + r - rlo) < (unsigned)(rhi - rlo) && a >= 0
                        ? min(max(S.nu - a, 0), 4) * 4
                        : 0;
            }
            kri_cp16(d, n ? src : S.q, n);
        }
        return;
    }
    for (int r = tid / 32; r < H; r += NT / 32) {
        const bool rok = (unsigned)(tv0 + r - rlo) < (unsigned)(rhi - rlo);
        const float *row = base + (long long)r * S.nu;
        const unsigned d = t + (unsigned)(r * pitch) * 4u;
        for (int c = tid & 31; c < pitch; c += 32) {
            const int a = tu0 + c;
            const bool ok = rok && a >= 0 && a < S.nu;
            float *dp = (float *)__cvta_shared_to_generic(d + (unsigned)c * 4u);
            kri_cp4(dp, ok ? row + c : S.q, ok);
        }
    }
}

/* Rebuild the plain tile (rows of pitch floats at raw) as cells of pairs (q(a, b),
 * q(a + 1, b) - q(a, b)) of pitch bb[5] at pd: the difference the bilinear sample takes
 * first, so one 8-byte load per row and one FMA give that row's interpolation (bit-identical:
 * the same __fsub_rn). A row's last cell pairs with the next row's first (raw has 4 floats of
 * slack past the tile); no sample reads it (margin). A lane's fifth value is its right
 * neighbour's first (a shuffle, not a strided load), and the two 16-byte halves of a lane's
 * 32 bytes go out in the order (c >> 2) & 1, so that within a row every 8 lanes of a store
 * cover the 8 bank groups of 16 bytes. */
template <int NT>
KDF void kri_make_pairs(const float *raw, float *pd, const int *bb, int tid)
{
    const int ppd = bb[5], nch = bb[6], m = bb[2] / 4, lane = tid & 31;
    const float inv = __int_as_float(bb[7]);
    for (int x0 = tid - lane; x0 < nch; x0 += NT) { /* warp-uniform trip count */
        const int x = x0 + lane;
        const bool on = x < nch;
        const float4 a = on ? reinterpret_cast<const float4 *>(raw)[x] : make_float4(0, 0, 0, 0);
        float e = __shfl_down_sync(0xffffffffu, a.x, 1);
        if (!on) continue;
        if (lane == 31 || x + 1 == nch) e = raw[4 * x + 4];
        int r, c;
        kri_chunk(x, m, inv, &r, &c);
        const float4 h0 = make_float4(a.x, __fsub_rn(a.y, a.x), a.y, __fsub_rn(a.z, a.y));
        const float4 h1 = make_float4(a.z, __fsub_rn(a.w, a.z), a.w, __fsub_rn(e, a.w));
        float4 *o = reinterpret_cast<float4 *>(pd + 2 * (r * ppd + 4 * c));
        const int s = (c >> 2) & 1;
        o[s] = s ? h1 : h0;
        o[s ^ 1] = s ? h0 : h1;
    }
}

KDF float2 kri_lds2(unsigned a)
{
    float2 x;
    asm volatile("ld.shared.v2.f32 {%0, %1}, [%2];" : "=f"(x.x), "=f"(x.y) : "r"(a));
    return x;
}

/* acc[kk] += w * sample for all KZ slices from the pair tile at shared address t (slices past
 * nk compute discarded samples: the store skips them). No clamp: the footprint covers all KZ
 * slices of every column of the block, with a margin of 2 cells for rounding (u and v are
 * linear-fractional, so their extremes are at the box corners, which the footprint evaluates
 * with these very expressions). */
template <int KZ>
KDF void kri_accum_pairs(float *acc, const kri_col &col, unsigned t, unsigned nbias8,
                         const int *bb, float kf0)
{
    const int pitch = bb[5];
    const float pf = (float)pitch;
    const float cb = (float)((col.iu - bb[0]) - bb[1] * pitch) + KRI_BIAS;
    const unsigned adj0 = t + nbias8, adj1 = adj0 + (unsigned)pitch * 8u; /* the rows' bases */
#pragma unroll
    for (int kk = 0; kk < KZ; kk++) {
        const float v = kri_fdk_v_cu(col.vb, col.dv, __fadd_rn(kf0, (float)kk));
        const float fl = floorf(v);
        const unsigned xb = (unsigned)__float_as_int(__fmaf_rn(fl, pf, cb));
        const float2 p0 = kri_lds2(xb * 8u + adj0), p1 = kri_lds2(xb * 8u + adj1);
        const float s0 = __fmaf_rn(col.fu, p0.y, p0.x), s1 = __fmaf_rn(col.fu, p1.y, p1.x);
        acc[kk] = __fmaf_rn(col.wt, __fmaf_rn(__fsub_rn(v, fl), __fsub_rn(s1, s0), s0), acc[kk]);
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

template <int TY, int CY, int KZ, int MINB, int W>
__global__ void __launch_bounds__(32 * TY, MINB)
    k_fdk_bp_align(kri_bp_src S, kri_bp_vol V, int cap, const kri_bp_views P)
{
    constexpr int NT = 32 * TY;
    static_assert(TY * CY == 32, "blocks of 32 x 32 columns");
    extern __shared__ __align__(16) float tiles[]; /* plain tile: cap floats, pair tile: 2 cap;
                                                  * the exchange */
    __shared__ int bb[KRI_FDK_VPL][8]; /* footprints of all the launch's views */
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
    /* slot y + TY c of the 32 covers 32 / W neighbouring lines of the block (across the ray)
     * over one W-long stretch along it: lane l at position a = W h + l % W along the ray, on
     * line L + l / W, sheared; a bijection for any shear. Shorter stretches spread a warp's
     * samples over fewer detector rows (depth changes v along the ray), wider ones over more
     * columns: W = 8 reads the fewest distinct cells (~20 per row load at 512^3). */
    int li[CY], lj[CY];
#pragma unroll
    for (int c = 0; c < CY; c++) {
        constexpr int NL = 32 / W;
        const int slot = (int)threadIdx.y + c * TY, lane = (int)threadIdx.x;
        const int a = (slot % NL) * W + lane % W, line = (slot / NL) * NL + lane / W;
        const int o = (line + __float2int_rn((float)a * shear)) & 31;
        li[c] = lanes_j ? o : a;
        lj[c] = lanes_j ? a : o;
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
        kri_footprint_pairs(P.m[nc], S, bi0, bi1, bj0, bj1, k0, KZ, cap,
                            n < P.n ? tid & 7 : 1, bb[nc]);
    }
    __syncthreads(); /* also: every thread has read its sums out of the exchange */
    const float *raw = tiles;
    float *pd = tiles + cap + 4;
    const unsigned tpd = t0 + (unsigned)(cap + 4) * 4u;
    kri_stage4<NT>(S, S.q + (long long)P.slot0 * S.slot, bb[0], t0, tid, v16);
    kri_cp_commit();
    for (int n = 0; n < P.n; n++) {
        const int *b = bb[n];
        const int st = b[4];
        kri_cp_wait_all();
        __syncthreads(); /* view n's plain tile is in; every thread is done with the pairs */
        if (st == 1 || st == 2) {
            kri_make_pairs<NT>(raw, pd, b, tid);
            __syncthreads(); /* the pairs are in; the plain tile is free */
        }
        if (n + 1 < P.n) {
            kri_stage4<NT>(S, S.q + (long long)(P.slot0 + n + 1) * S.slot, bb[n + 1], t0, tid,
                           v16);
            kri_cp_commit();
        }
        if (st == 3) continue;
        const kri_fdk_mat &M = P.m[n];
        const float *qs = S.q + (long long)(P.slot0 + n) * S.slot;
#pragma unroll
        for (int c = 0; c < CY; c++) {
            const int i = bi0 + li[c], j = bj0 + lj[c];
            if (i >= V.nx || j >= V.ny) continue;
            const kri_col col = kri_column(M, i, j, nuf);
            if (st)
                kri_accum_pairs<KZ>(acc[c], col, tpd, S.nbias8, b, kf0);
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

/* Tile capacity (floats) for MINB blocks per SM: the H100's 228 KiB of shared memory per SM,
 * less 1 KiB per block for the system and the footprint table, in three tiles of cap floats
 * (the plain one, 4 floats of slack, the pairs: two),
 * rounded down to 64. */
template <int MINB> constexpr int kri_align_cap()
{
    return (int)(((228 * 1024 / MINB - 1024 - 16 - (int)sizeof(int) * 8 * KRI_FDK_VPL) / 12) & ~63);
}

template <int TY, int CY, int KZ, int MINB, int W>
static cudaError_t kri_launch_align(cudaStream_t st, const kri_bp_src &S, const kri_bp_vol &V,
                                    const kri_bp_views &P)
{
    constexpr int cap = kri_align_cap<MINB>();
    static_assert(32 * 32 * KZ <= 3 * cap, "the exchange fits in the tiles");
    const size_t smem = (3 * (size_t)cap + 4) * sizeof(float); /* plain + 4 slack, pairs */
    cudaError_t e = cudaFuncSetAttribute(k_fdk_bp_align<TY, CY, KZ, MINB, W>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return e;
    dim3 g((unsigned)((V.nx + 31) / 32), (unsigned)((V.ny + 31) / 32),
           (unsigned)((V.nzs + KZ - 1) / KZ));
    k_fdk_bp_align<TY, CY, KZ, MINB, W><<<g, dim3(32, TY), smem, st>>>(S, V, cap, P);
    return cudaGetLastError();
}

cudaError_t kri_fdk_bp_align(cudaStream_t st, const kri_bp_src &S, const kri_bp_vol &V,
                             const kri_bp_views &P)
{
    if (P.n <= 0) return cudaSuccess;
    /* measured (H100, RabbitCT geometry, 512^3, 2.5 detector pixels per voxel): 16 slices per
     * thread in 2 blocks per SM 72.5 ms against 75.1 for 8 slices in 3 blocks; at 1024^3 (1.25
     * pixels per voxel) 16 slices were already 7 % faster with the plain tiles. 512-thread
     * blocks and 2 blocks of 8 slices per SM were slower. */
    /* warps of 4 lines x 8 voxels along the ray (W = 8): 512^3 67.6 ms, 1024^3 383.5 ms;
     * 2 x 16: 72.9 / 400.1; 1 x 32 (a whole line): 71.9 / 396.3 */
    return kri_launch_align<8, 4, 16, 2, 8>(st, S, V, P);
}
