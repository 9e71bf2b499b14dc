/* NUFFT on CUDA: plan state, set_points and execution (kernels in nufft_cuda_kernels.cuh).
 *
 * set_points: the trajectory is uploaded (when on the host); every point is validated and
 * binned (32x32 cells in 2-D; 16x16x8 or 16x16x4 in 3-D; smaller when the padded tile does not
 * fit in shared memory) with the host's arithmetic; a counting sort (atomic ranks in each bin,
 * one atomic per bin and warp; a scan of the bin counts) puts each point's index at its sorted
 * place (KRAY_NUFFT_GPU_SORT=radix: a stable CUB radix sort of (bin, index) instead), then each
 * sorted point's footprint (first cell l0, offset s) is written in sorted order; the sorted
 * points are cut into subproblems of at most max_subprob points of one bin. The arrays are kept
 * for the next call (grown only), and the call synchronises once.
 *
 * adjoint: one block per (subproblem, batch member) spreads its points into a shared-memory
 * copy of the bin's padded tile (bin + w - 1 cells per dim): with shared atomics (2-D, and 3-D
 * with w < 6), or (3-D, w >= 6) with the points staged in shared memory and each warp adding
 * them on the tile planes it owns, no atomics (KRAY_NUFFT_GPU_SPREAD=atomic|warp picks one);
 * then the tile goes to the global grid with one atomic per non-zero cell (wrapping
 * periodically); cuFFT (kray/fft.h device plans, batched); deapodisation + crop. Atomic
 * accumulation makes the last bits run-dependent.
 * forward: zero-pad + deapodisation, cuFFT, then one thread per bin-sorted point interpolates
 * all batch members of the pass from the w^ndim footprint (deterministic).
 *
 * Execution only launches kernels (and, with check_finite, reads back one flag). The kernel
 * width W, the precision and ndim are template parameters (w <= 16). */
#include "mri/nufft/nufft_internal.h"

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mri/nufft/nufft_cuda_kernels.cuh"

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
    /* points (set_points; grown, never shrunk: capacity cap points, trajectory bytes) */
    long long M, nsubs, cap;
    int sort_radix;      /* KRAY_NUFFT_GPU_SORT=radix: stable CUB radix sort */
    int *perm, *l0[3];
    void *frac[3];
    int *sub_bin, *sub_first;
    unsigned *keys, *keys_s;
    int *rank, *count;   /* counting sort: rank in bin, points per bin (nbins + 1) */
    void *sort_tmp, *traj;
    size_t sort_bytes, traj_bytes;
    size_t shmem;
    int spread_warp, np; /* k_nufft_spread_warp and its points per stage */
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
    void **ps[] = {(void **)&d->perm, (void **)&d->sub_bin, (void **)&d->sub_first,
                   (void **)&d->keys, (void **)&d->keys_s, (void **)&d->rank, &d->sort_tmp,
                   &d->traj};
    for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
        kri_device_free(*ps[k]);
        *ps[k] = NULL;
    }
    for (int i = 0; i < 3; i++) {
        kri_device_free(d->l0[i]);
        kri_device_free(d->frac[i]);
        d->l0[i] = NULL;
        d->frac[i] = NULL;
    }
    d->M = d->nsubs = d->cap = 0;
    d->sort_bytes = d->traj_bytes = 0;
}

static void kri_cuda_nufft_destroy(kr_nufft_plan *p)
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
    kri_device_free(d->count);
    kri_device_free(d->scan_tmp);
    kri_free(d);
    p->dev = NULL;
}

static kr_status kri_cuda_nufft_create(kr_nufft_plan *p)
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
    int optin = 0;
    KRI_CU(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, d->device),
           "querying the shared memory size");
    /* Bin sizes: 32x32 cells (2-D, padded tile within 48 KiB) or 16x16x8 (w <= 5) / 16x16x4
     * (3-D, within the opt-in shared memory, at most 100 KiB: larger 3-D bins keep the halo's
     * share of global atomics and the idle threads of sparse bins down), halved (largest dim
     * first) until the padded tile of complex values and the coefficients fit. */
    /* The spreading kernel: in 3-D with w >= 6 the warp-owned-plane kernel (no shared atomics),
     * else shared atomics; KRAY_NUFFT_GPU_SPREAD=atomic|warp picks one (3-D only), and
     * KRAY_NUFFT_GPU_BIN=XxYxZ sets the bins when the options do not (for tuning). */
    const char *sv = getenv("KRAY_NUFFT_GPU_SPREAD");
    d->spread_warp = p->ndim == 3 && (sv && *sv ? strcmp(sv, "warp") == 0 : w >= 6);
    d->np = 64;
    int ebin[3] = {0, 0, 0};
    const char *eb = getenv("KRAY_NUFFT_GPU_BIN");
    if (eb && sscanf(eb, "%dx%dx%d", &ebin[0], &ebin[1], &ebin[2]) < 2) ebin[0] = ebin[1] = 0;
    /* shared memory besides the tile: the coefficients (atomic kernel) or the staged points */
    const size_t cbytes = d->spread_warp
                              ? (size_t)d->np * (2 * rs + 3 * (size_t)w * rs + 3 * sizeof(int))
                              : (size_t)(p->ker.degree + 1) * kMaxW * rs;
    size_t budget = p->ndim == 2 ? kShmemBudget : (size_t)(optin < 100 * 1024 ? optin : 100 * 1024);
    if (budget < kShmemBudget) budget = kShmemBudget;
    int bs[3];
    for (int attempt = 0; attempt < 2; attempt++) {
        bs[0] = bs[1] = p->ndim == 3 ? 16 : 32;
        bs[2] = p->ndim == 3 ? (w <= 5 ? 8 : 4) : 1; /* fastest on an H100 (measured) */
        for (int i = 0; i < p->ndim; i++) {
            if (ebin[i] > 0 && ebin[i] <= 1024) bs[i] = ebin[i];
            if (p->gpu_bin[i] > 0) bs[i] = p->gpu_bin[i];
        }
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
    KRI_TRY(kri_device_alloc((void **)&d->count, nb1, d->device, "NUFFT bins"));
    const char *srt = getenv("KRAY_NUFFT_GPU_SORT");
    d->sort_radix = srt && strcmp(srt, "radix") == 0;
    KRI_CU(cub::DeviceScan::ExclusiveSum(NULL, d->scan_tmp_bytes, d->nsub, d->sub_start,
                                         (int)(d->nbins + 1), d->stream),
           "sizing the bin scan");
    KRI_TRY(kri_device_alloc(&d->scan_tmp, d->scan_tmp_bytes, d->device, "NUFFT scan scratch"));
    return KR_OK;
}

/* The point arrays for at least M points (and a trajectory staging area of tbytes when the
 * trajectory is on the host), allocated when they grow only. */
template <typename T>
static kr_status kri_points_alloc(kr_nufft_plan *p, long long M, size_t tbytes)
{
    kri_nufft_dev *d = p->dev;
    if (tbytes > d->traj_bytes) {
        kri_device_free(d->traj);
        d->traj = NULL;
        d->traj_bytes = 0;
        KRI_TRY(kri_device_alloc(&d->traj, tbytes, d->device, "the NUFFT trajectory"));
        d->traj_bytes = tbytes;
    }
    if (M <= d->cap) return KR_OK;
    size_t tb = d->traj_bytes;
    void *tr = d->traj;
    d->traj = NULL;
    kri_dev_free_points(d);
    d->traj = tr;
    d->traj_bytes = tb;
    const size_t n = (size_t)M;
    for (int i = 0; i < p->ndim; i++) {
        KRI_TRY(kri_device_alloc((void **)&d->l0[i], n * sizeof(int), d->device, "NUFFT points"));
        KRI_TRY(kri_device_alloc(&d->frac[i], n * sizeof(T), d->device, "NUFFT points"));
    }
    KRI_TRY(kri_device_alloc((void **)&d->perm, n * sizeof(int), d->device, "NUFFT point order"));
    KRI_TRY(kri_device_alloc((void **)&d->keys, n * sizeof(unsigned), d->device, "NUFFT keys"));
    KRI_TRY(kri_device_alloc((void **)&d->keys_s, n * sizeof(unsigned), d->device, "NUFFT keys"));
    KRI_TRY(kri_device_alloc((void **)&d->rank, n * sizeof(int), d->device, "NUFFT ranks"));
    /* at most one partial subproblem per bin beyond the full ones */
    size_t nsub = (size_t)d->nbins + n / (size_t)d->geo.maxsub + 1;
    KRI_TRY(kri_device_alloc((void **)&d->sub_bin, nsub * sizeof(int), d->device,
                             "NUFFT subproblems"));
    KRI_TRY(kri_device_alloc((void **)&d->sub_first, nsub * sizeof(int), d->device,
                             "NUFFT subproblems"));
    int nbits = 1;
    while (nbits < 32 && (1ll << nbits) < d->nbins) nbits++;
    KRI_CU(cub::DeviceRadixSort::SortPairs(NULL, d->sort_bytes, d->keys, d->keys_s, d->rank,
                                           d->perm, (int)M, 0, nbits, d->stream),
           "sizing the NUFFT sort");
    KRI_TRY(kri_device_alloc(&d->sort_tmp, d->sort_bytes, d->device, "NUFFT sort scratch"));
    d->cap = M;
    return KR_OK;
}

/* Points on the device with no allocation after the first call (or a larger one) and one
 * synchronisation: validation and binning, a counting sort (atomic ranks; or, with
 * KRAY_NUFFT_GPU_SORT=radix, a stable radix sort of (bin, index)) that writes every point's
 * footprint to its sorted place, bin starts, subproblems; then the validity flag and the
 * subproblem count come back together. */
template <typename T, typename K>
static kr_status kri_set_points_tk(kr_nufft_plan *p, const kri_nufft_traj *t, int64_t *bad)
{
    kri_nufft_dev *d = p->dev;
    const long long M = t->M;
    const int nc = (int)t->nc;
    const kri_geo g = d->geo;
    const size_t tbytes = (size_t)(M * nc) * sizeof(K);
    *bad = -1;
    d->M = d->nsubs = 0;
    KRI_TRY(kri_points_alloc<T>(p, M, t->loc == KR_HOST ? tbytes : 0));
    const K *tr = (const K *)t->data;
    if (t->loc == KR_HOST) {
        KRI_CU(cudaMemcpyAsync(d->traj, t->data, tbytes, cudaMemcpyHostToDevice, d->stream),
               "uploading the NUFFT trajectory");
        tr = (const K *)d->traj;
    }
    kri_geo_r gr;
    gr.hw = 0.5 * (double)p->ker.w;
    for (int i = 0; i < 3; i++) gr.r[i] = (double)p->n[i] / (double)p->N[i];
    kri_pts out;
    for (int i = 0; i < 3; i++) {
        out.l0[i] = d->l0[i < p->ndim ? i : 0];
        out.fr[i] = d->frac[i < p->ndim ? i : 0];
    }
    const unsigned nbk = kri_blocks(M);
    KRI_CU(cudaMemsetAsync(d->bad, 0xff, sizeof *d->bad, d->stream), "clearing the NUFFT flag");
    if (!d->sort_radix) {
        KRI_CU(cudaMemsetAsync(d->count, 0, (size_t)(d->nbins + 1) * sizeof(int), d->stream),
               "clearing the NUFFT bins");
        k_nufft_bin_count<K><<<nbk, kThreads, 0, d->stream>>>(tr, nc, M, g, gr, d->keys, d->rank,
                                                               d->count, d->bad);
        KRI_LAUNCHED("the NUFFT binning kernel");
        KRI_CU(cub::DeviceScan::ExclusiveSum(d->scan_tmp, d->scan_tmp_bytes, d->count,
                                             d->bin_start, (int)(d->nbins + 1), d->stream),
               "the NUFFT bin scan");
        k_nufft_scatter<<<nbk, kThreads, 0, d->stream>>>(M, d->keys, d->rank, d->bin_start,
                                                         d->perm, d->bad);
        KRI_LAUNCHED("the NUFFT point sort");
    } else {
        int nbits = 1;
        while (nbits < 32 && (1ll << nbits) < d->nbins) nbits++;
        k_nufft_bin_keys<K><<<nbk, kThreads, 0, d->stream>>>(tr, nc, M, g, gr, d->keys, d->rank,
                                                              d->bad);
        KRI_LAUNCHED("the NUFFT binning kernel");
        KRI_CU(cub::DeviceRadixSort::SortPairs(d->sort_tmp, d->sort_bytes, d->keys, d->keys_s,
                                               d->rank, d->perm, (int)M, 0, nbits, d->stream),
               "the NUFFT point sort");
        k_nufft_bin_start<<<kri_blocks(d->nbins + 1), kThreads, 0, d->stream>>>(
            M, d->nbins, d->keys_s, d->bin_start);
        KRI_LAUNCHED("the NUFFT bin starts");
    }
    k_nufft_gather<T, K><<<nbk, kThreads, 0, d->stream>>>(tr, nc, M, g, gr, d->perm, out, d->bad);
    KRI_LAUNCHED("the NUFFT footprints");
    k_nufft_sub_count<<<kri_blocks(d->nbins + 1), kThreads, 0, d->stream>>>(
        d->nbins, g.maxsub, d->bin_start, d->nsub);
    KRI_LAUNCHED("the NUFFT subproblem count");
    KRI_CU(cub::DeviceScan::ExclusiveSum(d->scan_tmp, d->scan_tmp_bytes, d->nsub, d->sub_start,
                                         (int)(d->nbins + 1), d->stream),
           "the NUFFT subproblem scan");
    k_nufft_sub_fill<<<kri_blocks(d->nbins), kThreads, 0, d->stream>>>(
        d->nbins, g.maxsub, d->bin_start, d->sub_start, d->sub_bin, d->sub_first);
    KRI_LAUNCHED("the NUFFT subproblems");
    unsigned long long badv = ~0ull;
    int nsubs = 0;
    KRI_CU(cudaMemcpyAsync(&badv, d->bad, sizeof badv, cudaMemcpyDeviceToHost, d->stream),
           "reading the NUFFT flag");
    KRI_CU(cudaMemcpyAsync(&nsubs, d->sub_start + d->nbins, sizeof nsubs, cudaMemcpyDeviceToHost,
                           d->stream),
           "reading the NUFFT subproblem count");
    KRI_CU(cudaStreamSynchronize(d->stream), "setting the NUFFT points");
    if (badv != ~0ull) {
        *bad = (int64_t)badv;
        return KR_OK;
    }
    d->M = M;
    d->nsubs = nsubs;
    return KR_OK;
}

static kr_status kri_cuda_nufft_set_points(kr_nufft_plan *p, const kri_nufft_traj *t,
                                           int64_t *bad)
{
    KRI_TRY(kri_cuda_set_device(p->ctx));
    if (t->dtype == KR_F32)
        return p->dbl ? kri_set_points_tk<double, float>(p, t, bad)
                      : kri_set_points_tk<float, float>(p, t, bad);
    return p->dbl ? kri_set_points_tk<double, double>(p, t, bad)
                  : kri_set_points_tk<float, double>(p, t, bad);
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
    if (ND == 3 && d->spread_warp) {
        if (d->shmem > kShmemBudget) {
            cudaError_t e = cudaFuncSetAttribute(k_nufft_spread_warp<T, W>,
                                                 cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                 (int)d->shmem);
            if (e != cudaSuccess) return e;
        }
        k_nufft_spread_warp<T, W><<<grid, kThreads, d->shmem, d->stream>>>(
            d->geo, c, d->sub_bin, d->sub_first, d->bin_start, d->perm, d->l0[0], d->l0[1],
            d->l0[2], (const T *)d->frac[0], (const T *)d->frac[1], (const T *)d->frac[2],
            (const typename kri_c2<T>::t *)y, d->M, (T *)d->grid, ngrid, b0, check, d->bad,
            d->np);
        return cudaGetLastError();
    }
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

/* One pass of nb batch members (from b0; image and kspace point at member b0) on the cleared
 * grids: zero-padding and deapodisation, FFT, interpolation. */
template <typename T>
static kr_status kri_forward_pass(kr_nufft_plan *p, const kri_coef<T> &c, const void *image,
                                  void *kspace, long long b0, int nb)
{
    kri_nufft_dev *d = p->dev;
    k_nufft_pad<T><<<kri_blocks(p->nimg * nb), kThreads, 0, d->stream>>>(
        d->geo, (const typename kri_c2<T>::t *)image, p->nimg, nb, (const T *)d->D[0],
        (const T *)d->D[1], (const T *)d->D[2], (typename kri_c2<T>::t *)d->grid, p->ngrid, b0,
        p->check_finite, d->bad);
    KRI_LAUNCHED("the NUFFT zero-padding kernel");
    KRI_TRY(kri_grid_fft(p, nb == d->chunk ? d->fwd : d->fwd_rem, nb));
    cudaError_t e = p->ndim == 2 ? kri_interp_w<T, 2>(p->ker.w, d, c, kspace, nb, p->ngrid)
                                 : kri_interp_w<T, 3>(p->ker.w, d, c, kspace, nb, p->ngrid);
    KRI_CU(e, "the NUFFT interpolation kernel");
    return KR_OK;
}

/* The same for the adjoint: spreading, FFT, deapodisation and crop. */
template <typename T>
static kr_status kri_adjoint_pass(kr_nufft_plan *p, const kri_coef<T> &c, const void *kspace,
                                  void *image, long long b0, int nb)
{
    kri_nufft_dev *d = p->dev;
    const int chk = p->check_finite;
    cudaError_t e = p->ndim == 2 ? kri_spread_w<T, 2>(p->ker.w, d, c, kspace, nb, p->ngrid, b0, chk)
                                 : kri_spread_w<T, 3>(p->ker.w, d, c, kspace, nb, p->ngrid, b0, chk);
    KRI_CU(e, "the NUFFT spreading kernel");
    KRI_TRY(kri_grid_fft(p, nb == d->chunk ? d->bwd : d->bwd_rem, nb));
    k_nufft_crop<T><<<kri_blocks(p->nimg * nb), kThreads, 0, d->stream>>>(
        d->geo, (const typename kri_c2<T>::t *)d->grid, p->ngrid, nb, (const T *)d->D[0],
        (const T *)d->D[1], (const T *)d->D[2], (typename kri_c2<T>::t *)image, p->nimg);
    KRI_LAUNCHED("the NUFFT deapodisation kernel");
    return KR_OK;
}

/* Both directions (adjoint: k-space in, image out), in passes of d->chunk batch members. */
template <typename T>
static kr_status kri_execute_t(kr_nufft_plan *p, int adjoint, const void *in, void *out,
                               int64_t *bad)
{
    kri_nufft_dev *d = p->dev;
    kri_coef<T> c;
    kri_coef_of<T>(p, &c);
    const size_t cs = 2 * sizeof(T);
    const long long nin = adjoint ? d->M : p->nimg, nout = adjoint ? p->nimg : d->M;
    KRI_TRY(kri_bad_begin(p));
    for (long long b0 = 0; b0 < p->batch; b0 += d->chunk) {
        int nb = (int)(p->batch - b0 < d->chunk ? p->batch - b0 : d->chunk);
        KRI_CU(cudaMemsetAsync(d->grid, 0, (size_t)(p->ngrid * nb) * cs, d->stream),
               "clearing the NUFFT grid");
        const void *x = (const char *)in + (size_t)(b0 * nin) * cs;
        void *y = (char *)out + (size_t)(b0 * nout) * cs;
        KRI_TRY(adjoint ? kri_adjoint_pass<T>(p, c, x, y, b0, nb)
                        : kri_forward_pass<T>(p, c, x, y, b0, nb));
    }
    return kri_bad_end(p, bad);
}

static kr_status kri_cuda_nufft_forward(kr_nufft_plan *p, const void *image, void *kspace,
                                        int64_t *bad)
{
    KRI_TRY(kri_cuda_set_device(p->ctx));
    return p->dbl ? kri_execute_t<double>(p, 0, image, kspace, bad)
                  : kri_execute_t<float>(p, 0, image, kspace, bad);
}

static kr_status kri_cuda_nufft_adjoint(kr_nufft_plan *p, const void *kspace, void *image,
                                        int64_t *bad)
{
    KRI_TRY(kri_cuda_set_device(p->ctx));
    return p->dbl ? kri_execute_t<double>(p, 1, kspace, image, bad)
                  : kri_execute_t<float>(p, 1, kspace, image, bad);
}

extern "C" const kri_nufft_backend kri_nufft_cuda = {
    {"cuda", true},           kri_cuda_nufft_create,  kri_cuda_nufft_destroy,
    kri_cuda_nufft_set_points, kri_cuda_nufft_forward, kri_cuda_nufft_adjoint};
