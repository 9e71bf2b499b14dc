/* FDK backprojection, pipelined kernels ("pipe", "pipe32"): the smem kernel's tiles, staged one
 * view ahead with asynchronous copies (cp.async, zero fill off the detector and outside the
 * band) into two alternating tiles, so the L2 latency of the staging hides behind the voxel
 * loop, with one barrier per view instead of two. A thread owns CY columns (j, j + TY, ...) of
 * KZ slices each; larger blocks in x-y shrink the staged cells per voxel update (the footprint
 * of a TX x TY*CY column box grows with its perimeter, the work with its area).
 *
 * Same values, same order, same float expressions as the other kernels (fdk_cuda.cuh), so the
 * result is bit-identical to them and to the CPU's AVX-512 kernel. */
#include "fdk_cuda.cuh"

/* Issue the copies of view n's tile (mode bb[4] 1 or 2) into t: pairs (q(a, b), q(a + 1, b)). */
template <int NT>
static __device__ __forceinline__ void kri_stage(const kri_bp_src &S, const float *qs,
                                                 const int *bb, float2 *t, int tid)
{
    const int st = bb[4];
    if (st != 1 && st != 2) return;
    const int tu0 = bb[0], tv0 = bb[1], W = bb[2], H = bb[3];
    for (int r = tid / 32; r < H; r += NT / 32) {
        const int b = tv0 + r;
        const bool rok = b >= S.vb0 && b < S.vb0 + S.nvb && b < S.nv;
        const float *row = qs + (long long)(b - S.vb0) * S.nu;
        for (int c = tid & 31; c < W; c += 32) {
            const int a = tu0 + c;
            const bool ok0 = st == 2 || (rok && a >= 0 && a < S.nu);
            const bool ok1 = st == 2 || (rok && a + 1 >= 0 && a + 1 < S.nu);
            float *d = (float *)(t + r * W + c);
            kri_cp4(d, ok0 ? row + a : qs, ok0);
            kri_cp4(d + 1, ok1 ? row + a + 1 : qs, ok1);
        }
    }
}

template <int TX, int TY, int CY, int KZ, int MINB>
__global__ void __launch_bounds__(TX *TY, MINB)
    k_fdk_bp_pipe(kri_bp_src S, kri_bp_vol V, int cap, const kri_bp_views P)
{
    constexpr int NT = TX * TY;
    extern __shared__ float2 tiles[]; /* two tiles of cap cells */
    __shared__ int bb[3][5];          /* footprints of views n, n + 1, n + 2 (mod 3) */
    const int tid = threadIdx.y * TX + threadIdx.x;
    const int i = blockIdx.x * TX + threadIdx.x;
    const int jb = blockIdx.y * TY * CY + threadIdx.y; /* first column of this thread */
    const int kl0 = blockIdx.z * KZ;
    const int nk = min(KZ, V.nzs - kl0);
    const int k0 = V.z0 + kl0;
    const float nuf = (float)S.nu, kf0 = (float)k0;
    const long long zst = (long long)V.nx * V.ny;
    const bool iok = i < V.nx;
    float acc[CY][KZ];
#pragma unroll
    for (int c = 0; c < CY; c++) {
        const int j = jb + c * TY;
        const float *vp = V.vol + ((long long)kl0 * V.ny + j) * V.nx + i;
#pragma unroll
        for (int kk = 0; kk < KZ; kk++)
            acc[c][kk] = (iok && j < V.ny && kk < nk) ? vp[kk * zst] : 0.0f;
    }
    const int bi0 = blockIdx.x * TX, bi1 = min(V.nx, bi0 + TX) - 1;
    const int bj0 = blockIdx.y * TY * CY, bj1 = min(V.ny, bj0 + TY * CY) - 1;
    /* prologue: footprints of views 0 and 1, copies of view 0 */
    if (tid < 32) {
        kri_footprint(P.m[0], S, bi0, bi1, bj0, bj1, k0, nk, cap, tid, bb[0]);
        if (P.n > 1) kri_footprint(P.m[1], S, bi0, bi1, bj0, bj1, k0, nk, cap, tid, bb[1]);
    }
    __syncthreads();
    kri_stage<NT>(S, S.q + (long long)P.slot0 * S.slot, bb[0], tiles, tid);
    kri_cp_commit();
    for (int n = 0; n < P.n; n++) {
        /* this thread's copies of view n are done; after the barrier everyone's are, every
         * thread has finished view n - 1 (its tile is free), and bb[(n + 1) % 3] is visible */
        kri_cp_wait_all();
        __syncthreads();
        if (n + 1 < P.n) {
            kri_stage<NT>(S, S.q + (long long)(P.slot0 + n + 1) * S.slot, bb[(n + 1) % 3],
                          tiles + ((n + 1) & 1) * cap, tid);
            kri_cp_commit();
        }
        /* slot (n + 2) % 3 held view n - 1's footprint, read by nobody after the barrier */
        if (tid < 32 && n + 2 < P.n)
            kri_footprint(P.m[n + 2], S, bi0, bi1, bj0, bj1, k0, nk, cap, tid, bb[(n + 2) % 3]);
        const int *b = bb[n % 3];
        const int st = b[4];
        if (!iok || st == 3) continue;
        const kri_fdk_mat &M = P.m[n];
        const float *qs = S.q + (long long)(P.slot0 + n) * S.slot;
        const float2 *t = tiles + (n & 1) * cap;
#pragma unroll
        for (int c = 0; c < CY; c++) {
            const int j = jb + c * TY;
            if (j >= V.ny) break;
            const kri_col col = kri_column(M, i, j, nuf);
            if (st)
                kri_accum_tile<KZ>(acc[c], col, t, b[0], b[1], b[2], b[3], kf0, nk);
            else
                kri_accum_global<KZ>(acc[c], col, S, qs, kf0, nk);
        }
    }
    kri_cp_wait_all(); /* nothing is left in flight at exit */
    if (!iok) return;
#pragma unroll
    for (int c = 0; c < CY; c++) {
        const int j = jb + c * TY;
        if (j >= V.ny) break;
        float *vp = V.vol + ((long long)kl0 * V.ny + j) * V.nx + i;
#pragma unroll
        for (int kk = 0; kk < KZ; kk++)
            if (kk < nk) vp[kk * zst] = acc[c][kk];
    }
}

template <int TX, int TY, int CY, int KZ, int MINB>
static cudaError_t kri_launch_pipe(int cap, cudaStream_t st, const kri_bp_src &S,
                                   const kri_bp_vol &V, const kri_bp_views &P)
{
    const size_t smem = 2 * (size_t)cap * sizeof(float2);
    cudaError_t e = cudaFuncSetAttribute(k_fdk_bp_pipe<TX, TY, CY, KZ, MINB>,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (e != cudaSuccess) return e;
    dim3 g((unsigned)((V.nx + TX - 1) / TX), (unsigned)((V.ny + TY * CY - 1) / (TY * CY)),
           (unsigned)((V.nzs + KZ - 1) / KZ));
    k_fdk_bp_pipe<TX, TY, CY, KZ, MINB><<<g, dim3(TX, TY), smem, st>>>(S, V, cap, P);
    return cudaGetLastError();
}

cudaError_t kri_fdk_bp_pipe(int variant, cudaStream_t st, const kri_bp_src &S,
                            const kri_bp_vol &V, const kri_bp_views &P)
{
    if (P.n <= 0) return cudaSuccess;
    /* tiles sized for the 99th percentile of the RabbitCT-sized footprints (larger ones read
     * global memory); two tiles per block, 3 (variant 0) or 2 (variant 1) blocks per SM */
    if (variant == 0) return kri_launch_pipe<32, 8, 2, 8, 3>(4608, st, S, V, P);
    return kri_launch_pipe<32, 8, 4, 8, 2>(7168, st, S, V, P);
}
