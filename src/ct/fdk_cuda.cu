/* FDK on CUDA (the backend table kri_fdk_cuda): pre-weighting, the non-finite census, the
 * voxel-driven backprojection kernels and the out-of-core pipeline (slabs x batches, two
 * streams, pinned staging).
 *
 * Backprojection kernels. A thread owns one (i, j) column and KZ consecutive slices of it and
 * keeps their sums in registers across all the views of a launch (KRI_FDK_VPL views, whose
 * matrices travel in the kernel's parameter block, i.e. in constant memory); per view it
 * computes the column quantities once (u, 1/w^2, v at k = 0, dv/dk: the fast path's z-column
 * register blocking) and then does one bilinear lookup and one fused multiply-add per voxel.
 *   smem / smem32: the block's detector footprint for the view (the box of its voxels projects
 *     inside the bounding box of its 8 corners' projections, plus a margin) is staged in shared
 *     memory with zeros off the detector; views whose footprint exceeds the tile fall back to
 *     global reads for that block.
 *   global: reads through the L1/texture path (__ldg) with bounds tests; also the general
 *     (non-fast-path) kernel, which recomputes u and w per voxel.
 * Every path evaluates the same float expressions in the same order as the CPU's AVX-512
 * kernel (explicit __f*_rn intrinsics, so nvcc cannot contract differently), and reads the
 * same values, so the staging never changes a result.
 *
 * Pipeline (kri_cuda_fdk_run): for each z slab, for each batch of views: [host projections:
 * copy the slab's detector rows of the batch into a pinned buffer, then to the device on the
 * copy stream; the compute stream waits for it] -> pre-weight (rows past the band zeroed): with
 * the FFT filter straight into its packed row pairs, which it filters into the batch buffer;
 * otherwise into the batch buffer, filtered in place -> backproject into the slab (the user's
 * device volume directly, or a device slab copied to the host volume at the end of the slab).
 * Two pinned and two device staging buffers alternate, guarded by events, so the host copy and
 * the transfer of batch b+1 overlap the kernels of batch b (host projections come in batches of
 * at most KRI_FDK_HOST_BATCH views for that). A host volume comes down through the same pinned
 * buffers in chunks, each copied on by every CPU thread while the next one transfers. */
#include <cuda_runtime.h>

#include <math.h>
#include <string.h>

#include "fdk_cuda.cuh"

#define KRI_CU(call, what)                                                                     \
    do {                                                                                       \
        cudaError_t kri_e_ = (call);                                                           \
        if (kri_e_ != cudaSuccess) return kri_cuda_fdk_fail(kri_e_, what);                     \
    } while (0)

static kr_status kri_cuda_fdk_fail(cudaError_t e, const char *what)
{
    (void)cudaGetLastError();
    if (e == cudaErrorMemoryAllocation)
        return kri_fail(KR_ERR_OOM_DEVICE, "fdk: out of device memory (%s)", what);
    return kri_fail(KR_ERR_CUDA, "fdk: %s failed: %s", what, cudaGetErrorString(e));
}

#define KRI_LAUNCHED(what) KRI_CU(cudaGetLastError(), what)

/* ---- smem kernel ----------------------------------------------------------------------------
 * The tile holds, for detector cells (tu0 + c, tv0 + r), the pairs (q(a, b), q(a + 1, b)), so a
 * bilinear lookup is two 8-byte shared loads. Rows and columns off the detector or outside the
 * band are zero, as kri_fetch returns. */
template <int TX, int TY, int KZ>
__global__ void __launch_bounds__(TX *TY, 4)
    k_fdk_bp_smem(kri_bp_src S, kri_bp_vol V, int tile_cap, const kri_bp_views P)
{
    extern __shared__ float2 tile[];
    __shared__ int bb[2][5]; /* kri_footprint's tu0, tv0, W, H, mode */
    const int tid = threadIdx.y * TX + threadIdx.x;
    const int i = blockIdx.x * TX + threadIdx.x, j = blockIdx.y * TY + threadIdx.y;
    const int kl0 = blockIdx.z * KZ; /* local slice of the block's first */
    const int nk = min(KZ, V.nzs - kl0);
    const int k0 = V.z0 + kl0; /* global */
    const bool active = i < V.nx && j < V.ny;
    const float nuf = (float)S.nu, kf0 = (float)k0;
    float acc[KZ];
    float *vp = V.vol + ((long long)kl0 * V.ny + j) * V.nx + i;
    const long long zst = (long long)V.nx * V.ny;
#pragma unroll
    for (int kk = 0; kk < KZ; kk++) acc[kk] = (active && kk < nk) ? vp[kk * zst] : 0.0f;
    /* the block's voxel box (valid voxels only) */
    const int bi0 = blockIdx.x * TX, bi1 = min(V.nx, bi0 + TX) - 1;
    const int bj0 = blockIdx.y * TY, bj1 = min(V.ny, bj0 + TY) - 1;
    for (int n = 0; n < P.n; n++) {
        const kri_fdk_mat &M = P.m[n];
        if (tid < 32) kri_footprint(M, S, bi0, bi1, bj0, bj1, k0, nk, tile_cap, tid, bb[n & 1]);
        __syncthreads(); /* bb ready; every thread is done with the previous view's tile */
        const int st = bb[n & 1][4];
        const int tu0 = bb[n & 1][0], tv0 = bb[n & 1][1], W = bb[n & 1][2], H = bb[n & 1][3];
        const float *qs = S.q + (long long)(P.slot0 + n) * S.slot;
        if (st == 2) {
            for (int r = tid / 32; r < H; r += TX * TY / 32) {
                const float *row = qs + (long long)(tv0 + r - S.vb0) * S.nu + tu0;
                for (int c = tid & 31; c < W; c += 32)
                    tile[r * W + c] = make_float2(__ldg(row + c), __ldg(row + c + 1));
            }
        } else if (st == 1) {
            for (int r = tid / 32; r < H; r += TX * TY / 32)
                for (int c = tid & 31; c < W; c += 32)
                    tile[r * W + c] = make_float2(kri_fetch(S, qs, tu0 + c, tv0 + r),
                                                  kri_fetch(S, qs, tu0 + c + 1, tv0 + r));
        }
        __syncthreads();
        if (!active || st == 3) continue;
        const kri_col col = kri_column(M, i, j, nuf);
        if (st)
            kri_accum_tile<KZ>(acc, col, tile, tu0, tv0, W, H, kf0, nk);
        else
            kri_accum_global<KZ>(acc, col, S, qs, kf0, nk);
    }
    if (active) {
#pragma unroll
        for (int kk = 0; kk < KZ; kk++)
            if (kk < nk) vp[kk * zst] = acc[kk];
    }
}

/* ---- global kernel (fast path, or the general path when GENERAL) ----------------------------- */
template <int KZ, bool GENERAL>
__global__ void __launch_bounds__(256)
    k_fdk_bp_global(kri_bp_src S, kri_bp_vol V, const kri_bp_views P)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= V.nx || j >= V.ny) return;
    const int kl0 = blockIdx.z * KZ;
    const int nk = min(KZ, V.nzs - kl0);
    const int k0 = V.z0 + kl0;
    const float nuf = (float)S.nu, nvf = (float)S.nv;
    float acc[KZ];
    float *vp = V.vol + ((long long)kl0 * V.ny + j) * V.nx + i;
    const long long zst = (long long)V.nx * V.ny;
#pragma unroll
    for (int kk = 0; kk < KZ; kk++) acc[kk] = kk < nk ? vp[kk * zst] : 0.0f;
    for (int n = 0; n < P.n; n++) {
        const kri_fdk_mat &M = P.m[n];
        const float *qs = S.q + (long long)(P.slot0 + n) * S.slot;
        if (!GENERAL) {
            const kri_col col = kri_column(M, i, j, nuf);
            /* v is monotonic in k: samples with v <= -1 or v >= nv are +0 (skipped) */
            const float va = kri_fdk_v_cu(col.vb, col.dv, (float)k0);
            const float vz = kri_fdk_v_cu(col.vb, col.dv, (float)(k0 + nk - 1));
            if ((va <= -1.0f && vz <= -1.0f) || (va >= nvf && vz >= nvf)) continue;
            kri_accum_global<KZ>(acc, col, S, qs, (float)k0, nk);
        } else {
            const float fi = (float)i, fj = (float)j;
#pragma unroll
            for (int kk = 0; kk < KZ; kk++) {
                if (kk < nk) {
                    /* the CPU's kri_fdk_voxel_general, in the same order */
                    float w, un, vn;
                    kri_fdk_voxel_cu(&M, fi, fj, (float)(k0 + kk), &w, &un, &vn);
                    const float r = __fdiv_rn(1.0f, w);
                    float u = __fmul_rn(un, r);
                    float v = __fmul_rn(vn, r);
                    u = fminf(fmaxf(u, -1.0f), nuf);
                    v = fminf(fmaxf(v, -1.0f), nvf);
                    const float flu = floorf(u), flv = floorf(v);
                    const int iu = (int)flu, iv = (int)flv;
                    const float fu = __fsub_rn(u, flu), fv = __fsub_rn(v, flv);
                    const float q00 = kri_fetch(S, qs, iu, iv), q10 = kri_fetch(S, qs, iu + 1, iv);
                    const float q01 = kri_fetch(S, qs, iu, iv + 1);
                    const float q11 = kri_fetch(S, qs, iu + 1, iv + 1);
                    const float s0 = __fadd_rn(q00, __fmul_rn(fu, __fsub_rn(q10, q00)));
                    const float s1 = __fadd_rn(q01, __fmul_rn(fu, __fsub_rn(q11, q01)));
                    const float val = __fadd_rn(s0, __fmul_rn(fv, __fsub_rn(s1, s0)));
                    acc[kk] = __fadd_rn(acc[kk], __fmul_rn(__fmul_rn(r, r), val));
                }
            }
        }
    }
#pragma unroll
    for (int kk = 0; kk < KZ; kk++)
        if (kk < nk) vp[kk * zst] = acc[kk];
}

/* ---- pre-weighting and census ------------------------------------------------ */
/* The weight of detector row fb (absolute), column a of a view: cosine weight times the view's
 * scale times the Parker weight pk, or (density) the scale over the cosine weight. */
__device__ __forceinline__ float kri_fdk_w(const kri_fdk_wv &c, float fb, int a, float pk,
                                           bool density)
{
    const float fa = (float)a;
    float d[3];
#pragma unroll
    for (int e = 0; e < 3; e++) d[e] = c.r0[e] + fa * c.u[e] + fb * c.v[e];
    const float len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    const float cw = (d[0] * c.n[0] + d[1] * c.n[1] + d[2] * c.n[2]) / len;
    return density ? c.scale / cw : c.scale * cw * pk;
}

/* out slot b, row r (< nbmax), column a: raw(b, r, a) times kri_fdk_w (mode KRI_FDK_FILTER or
 * KRI_FDK_DENSITY) or as it is (KRI_FDK_RAW), for r < nvb; zero beyond. */
__global__ void k_fdk_weight(const float *__restrict__ raw, long long raw_slot, int nu, int nvb,
                             int nbmax, int vb0, int m0, int nb, const kri_fdk_wv *__restrict__ wv,
                             const float *__restrict__ parker, int weight, float *__restrict__ out)
{
    const int a = blockIdx.x * blockDim.x + threadIdx.x;
    if (a >= nu) return;
    for (int b = blockIdx.z; b < nb; b += gridDim.z) {
        const kri_fdk_wv c = wv[m0 + b];
        const float pk = parker ? parker[a + (long long)nu * (m0 + b)] : 1.0f;
        for (int r = blockIdx.y; r < nbmax; r += gridDim.y) {
            float y = 0.0f;
            if (r < nvb) {
                const float x = raw[(long long)b * raw_slot + (long long)r * nu + a];
                const float fb = (float)(vb0 + r);
                y = weight ? x * kri_fdk_w(c, fb, a, pk, weight == KRI_FDK_DENSITY) : x;
            }
            out[(long long)b * nu * nbmax + (long long)r * nu + a] = y;
        }
    }
}

/* The same weighted rows packed straight into the FFT filter's work buffer (one pass instead of
 * weighting and packing): rows are slot-major (nbmax per slot, nrows in all), pair p at
 * work[p * L + a] = (row 2p, row 2p + 1) at column a < W (nu where the buffer's padding stays
 * zero, else L); zero for a >= nu, for rows past the band or past slot nb, and for the missing
 * partner of an odd last row. A block does one pair, each thread KRI_PACK_C columns a blockDim
 * apart with all loads first (enough bytes in flight: 6.3 ms with one column a thread, 3.2 with
 * four, at the RabbitCT size). */
#define KRI_PACK_C 4
__global__ void __launch_bounds__(512)
    k_fdk_weight_pack(const float *__restrict__ raw, long long raw_slot, int nu, int nvb,
                      int nbmax, int vb0, int m0, int nb, const kri_fdk_wv *__restrict__ wv,
                      const float *__restrict__ parker, float2 *__restrict__ work, int L, int W,
                      int nrows)
{
    const int npairs = (nrows + 1) / 2;
    for (int p = blockIdx.x; p < npairs; p += gridDim.x) {
        const float *src[2], *pks[2];
        kri_fdk_wv c[2];
        float fb[2];
#pragma unroll
        for (int e = 0; e < 2; e++) {
            const int row = 2 * p + e, b = row < nrows ? row / nbmax : nb, r = row - b * nbmax;
            const bool on = b < nb && r < nvb;
            src[e] = on ? raw + (long long)b * raw_slot + (long long)r * nu : NULL;
            pks[e] = on && parker ? parker + (long long)nu * (m0 + b) : NULL;
            if (on) c[e] = wv[m0 + b];
            fb[e] = (float)(vb0 + r);
        }
        float2 *dst = work + (long long)p * L;
        for (int a0 = threadIdx.x; a0 < W; a0 += KRI_PACK_C * blockDim.x) {
            float x[2][KRI_PACK_C], pk[2][KRI_PACK_C];
#pragma unroll
            for (int k = 0; k < KRI_PACK_C; k++) {
                const int a = a0 + k * blockDim.x;
#pragma unroll
                for (int e = 0; e < 2; e++) {
                    const bool in = src[e] && a < nu;
                    x[e][k] = in ? src[e][a] : 0.0f;
                    pk[e][k] = in && pks[e] ? pks[e][a] : 1.0f;
                }
            }
#pragma unroll
            for (int k = 0; k < KRI_PACK_C; k++) {
                const int a = a0 + k * blockDim.x;
                if (a >= W) break;
                float z[2];
#pragma unroll
                for (int e = 0; e < 2; e++)
                    z[e] = src[e] && a < nu
                               ? x[e][k] * kri_fdk_w(c[e], fb[e], a, pk[e][k], false)
                               : 0.0f;
                dst[a] = make_float2(z[0], z[1]);
            }
        }
    }
}

__global__ void k_fdk_census(const float *__restrict__ x, long long n,
                             unsigned long long *__restrict__ cnt)
{
    unsigned long long nn = 0, ni = 0, first = ~0ull;
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < n;
         t += (long long)gridDim.x * blockDim.x) {
        const float v = x[t];
        if (isnan(v)) {
            nn++;
            if ((unsigned long long)t < first) first = (unsigned long long)t;
        } else if (isinf(v)) {
            ni++;
            if ((unsigned long long)t < first) first = (unsigned long long)t;
        }
    }
    if (nn) atomicAdd(&cnt[0], nn);
    if (ni) atomicAdd(&cnt[1], ni);
    if (first != ~0ull) atomicMin(&cnt[2], first);
}

/* ---- plan state ------------------------------------------------------------------------------ */
typedef struct kri_fdk_dev {
    int dev;
    int64_t budget; /* resolved gpu_mem */
    int budget_auto;
    cudaStream_t copy; /* non-blocking: overlaps with the ctx's stream even if that is stream 0 */
    cudaEvent_t h2d[2], used[2], d2h[2];
    cudaEvent_t tev[3]; /* in-core timing: before weighting, after filtering, after BP */
    int timed;          /* the last execute recorded tev */
    kri_fdk_wv *d_wv;
    float *d_parker;
    unsigned long long *d_cnt;
    /* schedule-dependent */
    int ready, ph, vh;
    kri_fdk_sched sched;
    float *d_raw[2], *h_pin[2], *d_q, *d_slab;
    kri_fdk_filt *filt;
    int64_t bytes;
} kri_fdk_dev;

static void kri_cuda_fdk_release(kri_fdk_dev *cu)
{
    for (int k = 0; k < 2; k++) {
        if (cu->d_raw[k]) cudaFree(cu->d_raw[k]);
        if (cu->h_pin[k]) cudaFreeHost(cu->h_pin[k]);
        cu->d_raw[k] = cu->h_pin[k] = NULL;
    }
    if (cu->d_q) cudaFree(cu->d_q);
    if (cu->d_slab) cudaFree(cu->d_slab);
    cu->d_q = cu->d_slab = NULL;
    kri_fdk_filt_destroy(cu->filt);
    cu->filt = NULL;
    kri_fdk_sched_free(&cu->sched);
    cu->ready = 0;
    cu->bytes = 0;
}

static void kri_cuda_fdk_destroy(void *state)
{
    kri_fdk_dev *cu = (kri_fdk_dev *)state;
    if (!cu) return;
    cudaSetDevice(cu->dev);
    if (cu->copy) cudaStreamSynchronize(cu->copy);
    kri_cuda_fdk_release(cu);
    for (int k = 0; k < 2; k++) {
        if (cu->h2d[k]) cudaEventDestroy(cu->h2d[k]);
        if (cu->used[k]) cudaEventDestroy(cu->used[k]);
        if (cu->d2h[k]) cudaEventDestroy(cu->d2h[k]);
    }
    for (int k = 0; k < 3; k++)
        if (cu->tev[k]) cudaEventDestroy(cu->tev[k]);
    if (cu->copy) cudaStreamDestroy(cu->copy);
    if (cu->d_wv) cudaFree(cu->d_wv);
    if (cu->d_parker) cudaFree(cu->d_parker);
    if (cu->d_cnt) cudaFree(cu->d_cnt);
    (void)cudaGetLastError();
    kri_free(cu);
}

/* Free device memory in bytes (for the auto budget). */
static kr_status kri_cuda_fdk_free_bytes(const kr_ctx *ctx, int64_t *bytes)
{
    KRI_TRY(kri_cuda_set_device(ctx));
    size_t fr = 0, tot = 0;
    KRI_CU(cudaMemGetInfo(&fr, &tot), "cudaMemGetInfo");
    *bytes = (int64_t)fr;
    return KR_OK;
}

/* Streams, events and the weight tables on the device (the schedule's buffers come at the first
 * execute, kri_cuda_fdk_prepare). */
static kr_status kri_cuda_fdk_create(kr_fdk_plan *p, void **state)
{
    *state = NULL;
    KRI_TRY(kri_cuda_set_device(p->ctx));
    kri_fdk_dev *cu = (kri_fdk_dev *)kri_calloc(1, sizeof *cu);
    *state = cu;
    if (!cu) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for an FDK plan");
    cu->dev = kr_ctx_device(p->ctx);
    KRI_CU(cudaStreamCreateWithFlags(&cu->copy, cudaStreamNonBlocking), "cudaStreamCreate");
    for (int k = 0; k < 2; k++) {
        KRI_CU(cudaEventCreateWithFlags(&cu->h2d[k], cudaEventDisableTiming), "cudaEventCreate");
        KRI_CU(cudaEventCreateWithFlags(&cu->used[k], cudaEventDisableTiming), "cudaEventCreate");
        KRI_CU(cudaEventCreateWithFlags(&cu->d2h[k], cudaEventDisableTiming), "cudaEventCreate");
    }
    for (int k = 0; k < 3; k++) KRI_CU(cudaEventCreate(&cu->tev[k]), "cudaEventCreate");
    size_t wb = (size_t)p->nviews * sizeof(kri_fdk_wv);
    KRI_CU(cudaMalloc((void **)&cu->d_wv, wb), "allocating the FDK weights");
    KRI_CU(cudaMemcpy(cu->d_wv, p->wv, wb, cudaMemcpyHostToDevice), "uploading the FDK weights");
    if (p->parker) {
        size_t pb = (size_t)(p->nu * p->nviews) * sizeof(float);
        KRI_CU(cudaMalloc((void **)&cu->d_parker, pb), "allocating the Parker weights");
        KRI_CU(cudaMemcpy(cu->d_parker, p->parker, pb, cudaMemcpyHostToDevice),
               "uploading the Parker weights");
    }
    KRI_CU(cudaMalloc((void **)&cu->d_cnt, 4 * sizeof(unsigned long long)),
           "allocating the FDK counters");
    cu->budget = p->o.gpu_mem;
    cu->budget_auto = p->o.gpu_mem == 0;
    return KR_OK;
}

/* The filter and backprojection seconds of the last execute when it ran in core (one slab, one
 * batch: the events bracket the whole of each step), else 0. */
static kr_status kri_cuda_fdk_times(const kri_fdk_dev *cu, double *t_filter, double *t_bp)
{
    *t_filter = *t_bp = 0;
    if (!cu->timed) return KR_OK;
    float a = 0, b = 0;
    KRI_CU(cudaEventElapsedTime(&a, cu->tev[0], cu->tev[1]), "cudaEventElapsedTime");
    KRI_CU(cudaEventElapsedTime(&b, cu->tev[1], cu->tev[2]), "cudaEventElapsedTime");
    *t_filter = 1e-3 * a;
    *t_bp = 1e-3 * b;
    return KR_OK;
}

/* Non-finite values of the projections: counted on the host or on the device. */
static kr_status kri_cuda_fdk_census(void *state, const kr_fdk_plan *p, const kr_array *proj,
                                     int64_t *nnan, int64_t *ninf, int64_t *first)
{
    kri_fdk_dev *cu = (kri_fdk_dev *)state;
    const float *x = (const float *)proj->data;
    const int64_t n = kr_array_numel(proj);
    if (proj->loc == KR_HOST) {
        kri_cpu_fdk_count_nonfinite(x, n, kri_threads(p->ctx), nnan, ninf, first);
        return KR_OK;
    }
    KRI_TRY(kri_cuda_set_device(p->ctx));
    cudaStream_t st = (cudaStream_t)kr_ctx_stream(p->ctx);
    unsigned long long h[3] = {0, 0, ~0ull};
    KRI_CU(cudaMemcpyAsync(cu->d_cnt, h, sizeof h, cudaMemcpyHostToDevice, st), "cudaMemcpy");
    int blocks = (int)((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096);
    k_fdk_census<<<blocks > 0 ? blocks : 1, 256, 0, st>>>(x, n, cu->d_cnt);
    KRI_LAUNCHED("the FDK census kernel");
    KRI_CU(cudaMemcpyAsync(h, cu->d_cnt, sizeof h, cudaMemcpyDeviceToHost, st), "cudaMemcpy");
    KRI_CU(cudaStreamSynchronize(st), "the FDK census");
    *nnan = (int64_t)h[0];
    *ninf = (int64_t)h[1];
    *first = h[2] == ~0ull ? -1 : (int64_t)h[2];
    return KR_OK;
}

/* Buffers for a schedule on these array locations (kept until the locations change). */
static kr_status kri_cuda_fdk_prepare(kri_fdk_dev *cu, kr_fdk_plan *p, int ph, int vh)
{
    if (cu->ready && cu->ph == ph && cu->vh == vh) return KR_OK;
    KRI_CU(cudaStreamSynchronize(cu->copy), "cudaStreamSynchronize");
    kri_cuda_fdk_release(cu);
    if (cu->budget_auto) { /* 90% of what is free now, with the caller's arrays allocated
                              (shared with the other parts of a divided plan on this device) */
        int64_t fr = 0;
        KRI_TRY(kri_cuda_fdk_free_bytes(p->ctx, &fr));
        cu->budget = fr / 10 * 9 / (p->share > 0 ? p->share : 1);
    }
    KRI_TRY(kri_fdk_sched_make(p, ph, vh, cu->budget, cu->budget_auto, &cu->sched));
    const kri_fdk_sched *s = &cu->sched;
    const size_t rowsb = (size_t)(s->batch * s->nbmax * p->nu) * sizeof(float);
    if (ph)
        for (int k = 0; k < 2; k++) {
            KRI_CU(cudaMalloc((void **)&cu->d_raw[k], rowsb), "allocating FDK staging");
            cudaError_t e = cudaHostAlloc((void **)&cu->h_pin[k], rowsb, cudaHostAllocDefault);
            if (e != cudaSuccess) {
                (void)cudaGetLastError();
                cu->h_pin[k] = NULL;
                return kri_fail(KR_ERR_OOM_HOST, "fdk: cannot pin %zu bytes of host staging (%s)",
                                rowsb, cudaGetErrorString(e));
            }
        }
    KRI_CU(cudaMalloc((void **)&cu->d_q, rowsb), "allocating the FDK batch");
    /* slots past the last batch's views are filtered too: keep them finite */
    KRI_CU(cudaMemset(cu->d_q, 0, rowsb), "clearing the FDK batch");
    if (vh)
        KRI_CU(cudaMalloc((void **)&cu->d_slab,
                          (size_t)(p->grid.n[0] * p->grid.n[1] * s->slab_z) * sizeof(float)),
               "allocating the FDK slab");
    if (!p->bp_only)
        KRI_TRY(kri_fdk_filt_create(&cu->filt, p->ctx, p->nu, s->batch * s->nbmax, &p->o,
                                    p->tune.fuse));
    cu->ph = ph;
    cu->vh = vh;
    cu->ready = 1;
    cu->bytes = s->bytes;
    p->info.slabs = s->nslabs;
    p->info.slab_z = s->slab_z;
    p->info.batch_views = s->batch;
    p->info.device_bytes = s->bytes;
    kr_log(p->ctx, KR_LOG_INFO,
           "fdk: %lld slab(s) of %lld slices, batches of %lld views x %lld rows, %.1f MiB of "
           "device memory (budget %.1f MiB)",
           (long long)s->nslabs, (long long)s->slab_z, (long long)s->batch, (long long)s->nbmax,
           (double)s->bytes / 1048576.0, (double)cu->budget / 1048576.0);
    return KR_OK;
}

/* Backprojection launches for slots [0, nb) of the batch (views m0 ..) into one slab. */
static kr_status kri_cuda_fdk_bp(kr_fdk_plan *p, cudaStream_t st, const kri_bp_src &S,
                                 const kri_bp_vol &V, int64_t m0, int64_t nb)
{
    kri_fdk_kernel kern = p->tune.kernel;
    /* measured on the H100 (docs/benchmarks.md): the ray-aligned kernel is the fastest at both
     * RabbitCT sizes (2.5 and 1.25 detector pixels per voxel) */
    if (kern == KRI_FDK_KERNEL_AUTO) kern = KRI_FDK_KERNEL_ALIGN;
    if (!p->fast) kern = KRI_FDK_KERNEL_GLOBAL;
    p->info.kernel = !p->fast ? "global-general" : kri_fdk_kernel_name(kern);
    for (int64_t c0 = 0; c0 < nb; c0 += KRI_FDK_VPL) {
        kri_bp_views P;
        P.n = (int)(nb - c0 < KRI_FDK_VPL ? nb - c0 : KRI_FDK_VPL);
        P.slot0 = (int)c0;
        memcpy(P.m, p->mat + m0 + c0, (size_t)P.n * sizeof(kri_fdk_mat));
        if (kern == KRI_FDK_KERNEL_SMEM) {
            const int cap = 4096; /* cells: 32 KiB */
            dim3 g((unsigned)((V.nx + 15) / 16), (unsigned)((V.ny + 15) / 16),
                   (unsigned)((V.nzs + 15) / 16));
            k_fdk_bp_smem<16, 16, 16><<<g, dim3(16, 16), cap * sizeof(float2), st>>>(S, V, cap, P);
        } else if (kern == KRI_FDK_KERNEL_SMEM32) {
            const int cap = 5632; /* cells: 44 KiB, under the 48 KiB default */
            dim3 g((unsigned)((V.nx + 31) / 32), (unsigned)((V.ny + 7) / 8),
                   (unsigned)((V.nzs + 15) / 16));
            k_fdk_bp_smem<32, 8, 16><<<g, dim3(32, 8), cap * sizeof(float2), st>>>(S, V, cap, P);
        } else if (kern == KRI_FDK_KERNEL_ALIGN) {
            KRI_CU(kri_fdk_bp_align(st, S, V, P), "the ray-aligned FDK backprojection kernel");
        } else if (kern == KRI_FDK_KERNEL_PIPE || kern == KRI_FDK_KERNEL_PIPE32) {
            KRI_CU(kri_fdk_bp_pipe(kern == KRI_FDK_KERNEL_PIPE32, st, S, V, P),
                   "the pipelined FDK backprojection kernel");
        } else {
            dim3 g((unsigned)((V.nx + 31) / 32), (unsigned)((V.ny + 7) / 8),
                   (unsigned)((V.nzs + 7) / 8));
            if (p->fast)
                k_fdk_bp_global<8, false><<<g, dim3(32, 8), 0, st>>>(S, V, P);
            else
                k_fdk_bp_global<8, true><<<g, dim3(32, 8), 0, st>>>(S, V, P);
        }
        KRI_LAUNCHED("the FDK backprojection kernel");
    }
    return KR_OK;
}

static kr_status kri_cuda_fdk_run(void *state, kr_fdk_plan *p, const kr_array *proj,
                                  kr_array *vol, int mode)
{
    KRI_TRY(kri_cuda_set_device(p->ctx));
    kri_fdk_dev *cu = (kri_fdk_dev *)state;
    const int ph = proj->loc == KR_HOST, vh = vol->loc == KR_HOST;
    KRI_TRY(kri_cuda_fdk_prepare(cu, p, ph, vh));
    const kri_fdk_sched *s = &cu->sched;
    cudaStream_t st = (cudaStream_t)kr_ctx_stream(p->ctx);
    const int64_t nu = p->nu, nv = p->nv, nx = p->grid.n[0], ny = p->grid.n[1];
    const int64_t B = s->batch, H = s->nbmax;
    const float *pin = (const float *)proj->data;
    float *vout = (float *)vol->data;
    int64_t count = 0; /* batches issued, for the staging alternation */
    const int timed = s->nslabs == 1 && s->batch >= p->nviews;
    cu->timed = 0;
    kr_progress *pg = kri_fdk_progress(p, s->nslabs * p->nviews);
    kr_status rs = KR_OK;
#define KRI_RUN(call)                                                                          \
    do {                                                                                       \
        rs = (call);                                                                           \
        if (rs != KR_OK) goto out;                                                             \
    } while (0)
#define KRI_RUN_CU(call, what)                                                                 \
    do {                                                                                       \
        cudaError_t e_ = (call);                                                               \
        if (e_ != cudaSuccess) {                                                               \
            rs = kri_cuda_fdk_fail(e_, what);                                                  \
            goto out;                                                                          \
        }                                                                                      \
    } while (0)
    for (int64_t si = 0; si < s->nslabs; si++) {
        const kri_fdk_slab *sl = &s->slabs[si];
        float *slab = vh ? cu->d_slab : vout + (sl->z0 - p->z0) * nx * ny;
        const size_t slab_bytes = (size_t)(nx * ny * sl->nz) * sizeof(float);
        KRI_RUN_CU(cudaMemsetAsync(slab, 0, slab_bytes, st), "clearing the FDK slab");
        kri_bp_vol V = {slab, (int)nx, (int)ny, (int)sl->nz, (int)sl->z0};
        for (int64_t m0 = 0; m0 < p->nviews && sl->nvb > 0; m0 += B) {
            const int64_t nb = p->nviews - m0 < B ? p->nviews - m0 : B;
            const float *raw;
            long long raw_slot;
            const int k = (int)(count++ & 1);
            if (ph) {
                /* the pinned buffer k is free once its previous transfer is done */
                KRI_RUN_CU(cudaEventSynchronize(cu->h2d[k]), "waiting for FDK staging");
                kri_cpu_fdk_stage(cu->h_pin[k], nu * H, pin + (m0 * nv + sl->vb0) * nu, nu * nv,
                                  nb, nu * sl->nvb, kri_threads(p->ctx));
                KRI_RUN_CU(cudaStreamWaitEvent(cu->copy, cu->used[k], 0), "cudaStreamWaitEvent");
                KRI_RUN_CU(cudaMemcpyAsync(cu->d_raw[k], cu->h_pin[k],
                                           (size_t)(nb * nu * H) * sizeof(float),
                                           cudaMemcpyHostToDevice, cu->copy),
                           "copying projections to the device");
                KRI_RUN_CU(cudaEventRecord(cu->h2d[k], cu->copy), "cudaEventRecord");
                KRI_RUN_CU(cudaStreamWaitEvent(st, cu->h2d[k], 0), "cudaStreamWaitEvent");
                raw = cu->d_raw[k];
                raw_slot = (long long)(nu * H);
            } else {
                raw = pin + (m0 * nv + sl->vb0) * nu;
                raw_slot = (long long)(nu * nv);
            }
            if (timed) KRI_RUN_CU(cudaEventRecord(cu->tev[0], st), "cudaEventRecord");
            int64_t L = 0;
            int pz = 0;
            float2 *pw = mode == KRI_FDK_FILTER
                             ? (float2 *)kri_fdk_filt_packed(cu->filt, &L, &pz)
                             : NULL;
            if (pw) { /* FFT filter: weight straight into its packed rows */
                const int64_t npairs = (B * H + 1) / 2;
                const unsigned g = (unsigned)(npairs < (1 << 30) ? npairs : (1 << 30));
                /* columns written: nu where the padding stays zero, else L; threads: a row in
                 * two passes (nu = 1248: 160 threads; L = 2500: 320, 2 % idle) */
                const int64_t W = pz ? nu : L;
                int nt = (int)((W + 2 * KRI_PACK_C - 1) / (2 * KRI_PACK_C) + 31) & ~31;
                nt = nt < 64 ? 64 : nt > 512 ? 512 : nt;
                k_fdk_weight_pack<<<g, nt, 0, st>>>(raw, raw_slot, (int)nu, (int)sl->nvb, (int)H,
                                                     (int)sl->vb0, (int)m0, (int)nb, cu->d_wv,
                                                     cu->d_parker, pw, (int)L, (int)W,
                                                     (int)(B * H));
            } else {
                dim3 g((unsigned)((nu + 127) / 128), (unsigned)(H < 65535 ? H : 65535),
                       (unsigned)(nb < 65535 ? nb : 65535));
                k_fdk_weight<<<g, 128, 0, st>>>(raw, raw_slot, (int)nu, (int)sl->nvb, (int)H,
                                                (int)sl->vb0, (int)m0, (int)nb, cu->d_wv,
                                                mode == KRI_FDK_FILTER ? cu->d_parker : NULL,
                                                mode, cu->d_q);
            }
            KRI_RUN_CU(cudaGetLastError(), "the FDK weighting kernel");
            if (ph) KRI_RUN_CU(cudaEventRecord(cu->used[k], st), "cudaEventRecord");
            const float *q = cu->d_q;
            if (pw)
                KRI_RUN(kri_fdk_filt_run_packed(cu->filt, cu->d_q, nu));
            else if (mode == KRI_FDK_FILTER)
                KRI_RUN(kri_fdk_filt_run(cu->filt, cu->d_q, nu, cu->d_q, nu));
            kri_bp_src S = {q, (long long)(nu * H), (int)nu, (int)nv, (int)sl->vb0, (int)sl->nvb,
                            0u - 0x4B400000u * 8u};
            if (timed) KRI_RUN_CU(cudaEventRecord(cu->tev[1], st), "cudaEventRecord");
            KRI_RUN(kri_cuda_fdk_bp(p, st, S, V, m0, nb));
            if (timed) {
                KRI_RUN_CU(cudaEventRecord(cu->tev[2], st), "cudaEventRecord");
                cu->timed = 1;
            }
            kr_progress_add(pg, nb);
        }
        if (vh && ph) {
            /* through the two pinned buffers: chunk c comes down while every CPU thread copies
             * chunk c - 1 on into the caller's (pageable) volume */
            char *dst = (char *)(vout + (sl->z0 - p->z0) * nx * ny);
            const size_t chunk = (size_t)(B * H * nu) * sizeof(float);
            const int nt = kri_threads(p->ctx);
            size_t prev_o = 0, prev_n = 0;
            for (size_t o = 0, c = 0;; o += chunk, c++) {
                const size_t n = o < slab_bytes ? (slab_bytes - o < chunk ? slab_bytes - o : chunk) : 0;
                const int k = (int)(c & 1);
                if (n)
                    KRI_RUN_CU(cudaMemcpyAsync(cu->h_pin[k], (char *)slab + o, n,
                                               cudaMemcpyDeviceToHost, st),
                               "copying the volume to the host");
                if (n) KRI_RUN_CU(cudaEventRecord(cu->d2h[k], st), "cudaEventRecord");
                if (prev_n) {
                    KRI_RUN_CU(cudaEventSynchronize(cu->d2h[k ^ 1]), "copying the volume");
                    kri_cpu_fdk_stage((float *)(dst + prev_o), 0, cu->h_pin[k ^ 1], 0, 1,
                                      (int64_t)(prev_n / sizeof(float)), nt);
                }
                if (!n) break;
                prev_o = o, prev_n = n;
            }
        } else if (vh) {
            KRI_RUN_CU(cudaMemcpyAsync(vout + (sl->z0 - p->z0) * nx * ny, slab, slab_bytes,
                                       cudaMemcpyDeviceToHost, st),
                       "copying the volume to the host");
        }
    }
    KRI_RUN_CU(cudaStreamSynchronize(st), "the FDK reconstruction");
out:
#undef KRI_RUN
#undef KRI_RUN_CU
    kr_progress_end(pg);
    if (rs != KR_OK) {
        /* leave the streams idle so buffers can be reused or freed */
        cudaStreamSynchronize(st);
        cudaStreamSynchronize(cu->copy);
        (void)cudaGetLastError();
    }
    if (rs != KR_OK) cu->timed = 0;
    if (rs == KR_OK) rs = kri_cuda_fdk_times(cu, &p->info.t_filter_s, &p->info.t_backproject_s);
    else p->info.t_filter_s = p->info.t_backproject_s = 0;
    return rs;
}

extern "C" const kri_fdk_backend kri_fdk_cuda = {{"cuda", true},
                                                 kri_cuda_fdk_create,
                                                 kri_cuda_fdk_destroy,
                                                 kri_cuda_fdk_census,
                                                 kri_cuda_fdk_run};
