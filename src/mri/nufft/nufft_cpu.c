/* CPU NUFFT: tile sort of the points, deterministic OpenMP spreading (2^ndim colour phases of
 * tiles at least one kernel width wide), race-free interpolation, FFTW through kray/fft.h,
 * deapodisation with zero-padding / cropping. Results are bit-identical for every thread
 * count: every grid cell and every output value is computed by one thread, in a fixed order. */
#include "mri/mri_internal.h"
#include "mri/nufft/nufft_cpu_body.h"
#include "mri/nufft/nufft_internal.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* ---- plan-time state ------------------------------------------------------------------------ */
/* Tile width target (cells): 32 in 2-D, 16 in 3-D (measured on the 2-core machine: 3-D tiles of
 * 8 or 12 cells were slower at every width, the sort's extra streams included).
 * KRAY_NUFFT_CPU_TILE overrides it (for tuning). */
static int kri_nufft_cpu_tile(int ndim, int w)
{
    int t = ndim == 2 ? 32 : 16;
    const char *e = getenv("KRAY_NUFFT_CPU_TILE");
    if (e && atoi(e) > 0) t = atoi(e);
    return t < w ? w : t;
}

static kr_status kri_cpu_nufft_create(kr_nufft_plan *p)
{
    size_t rs = p->dbl ? sizeof(double) : sizeof(float);
    p->nthreads = kri_threads(p->ctx);
    if (p->nthreads < 1) p->nthreads = 1;
#ifdef KRI_NF_AVX2
    /* AVX2 bodies where the CPU has them (KRAY_NUFFT_CPU_SIMD=0: the baseline ones, same bits) */
    const char *simd = getenv("KRAY_NUFFT_CPU_SIMD");
    p->simd = __builtin_cpu_supports("avx2") && !(simd && strcmp(simd, "0") == 0);
#endif
    for (int d = 0; d < 3; d++) p->gscale[d] = (double)p->n[d] / (double)p->N[d];
    /* the grid, and 64 zero bytes after it for whole-vector row reads */
    KRI_TRY(kri_alloc(&p->grid, (size_t)p->ngrid * 2 * rs + 64, "the NUFFT grid"));
    memset((char *)p->grid + (size_t)p->ngrid * 2 * rs, 0, 64);
    for (int d = 0; d < 3; d++) {
        KRI_TRY(kri_alloc(&p->dpre[d], (size_t)p->N[d] * rs, "NUFFT deapodisation factors"));
        for (int64_t i = 0; i < p->N[d]; i++) {
            if (p->dbl)
                ((double *)p->dpre[d])[i] = p->deapod[d][i];
            else
                ((float *)p->dpre[d])[i] = (float)p->deapod[d][i];
        }
    }
    /* Tiles: an even number per grid dim, each at least w cells; a thread spreads one tile's
     * points into its own buffer of (tile + w - 1)^ndim cells (small enough to stay in cache,
     * with none of the grid's power-of-two strides), then adds the buffer to the grid. */
    int target = kri_nufft_cpu_tile(p->ndim, p->ker.w);
    int64_t cells = 1;
    for (int d = 0; d < 3; d++) {
        int nt = 1;
        if (d < p->ndim) {
            nt = (int)(p->n[d] / target);
            nt -= nt % 2;
            if (nt < 2) nt = 2; /* n >= 2 w, so two tiles are each >= w */
            cells *= (p->n[d] + nt - 1) / nt + p->ker.w - 1;
        }
        p->ntile[d] = nt;
        /* cell (footprint centre, in (-n, 2 n) before wrapping) -> tile; cell_tile[d] points
         * at cell 0 of a table of 3 n entries */
        int32_t *tab = NULL;
        KRI_TRY(kri_alloc((void **)&tab, (size_t)(3 * p->n[d]) * sizeof(int32_t),
                          "NUFFT tile table"));
        p->cell_tile[d] = tab + p->n[d];
        for (int t = 0; t < nt; t++) {
            int64_t lo = p->n[d] * t / nt, hi = p->n[d] * (t + 1) / nt;
            for (int64_t c = lo; c < hi; c++)
                p->cell_tile[d][c - p->n[d]] = p->cell_tile[d][c] = p->cell_tile[d][c + p->n[d]] = t;
        }
    }
    p->tbuf_cells = cells + 4; /* slack for the last row's whole vectors */
    KRI_TRY(kri_alloc(&p->tbuf, (size_t)(p->tbuf_cells * p->nthreads) * 2 * rs,
                      "NUFFT tile buffers"));
    int64_t ntiles = (int64_t)p->ntile[0] * p->ntile[1] * p->ntile[2];
    KRI_TRY(kri_alloc((void **)&p->tile_start, (size_t)(ntiles + 1) * sizeof(int64_t),
                      "NUFFT tile offsets"));
    memset(p->tile_start, 0, (size_t)(ntiles + 1) * sizeof(int64_t));
    /* counting-sort chunks: one per thread, fewer when the grid has very many tiles */
    int64_t nch = (int64_t)(1 << 24) / ntiles;
    p->nchunk = nch < 1 ? 1 : nch < p->nthreads ? (int)nch : p->nthreads;
    KRI_TRY(kri_alloc((void **)&p->hist, (size_t)(ntiles * p->nchunk) * sizeof(int64_t),
                      "NUFFT sort counts"));

    int64_t gd[3] = {p->n[0], p->n[1], p->n[2]};
    KRI_TRY(kr_fft_plan_create(&p->fft_fwd, p->ctx, p->dtype, p->ndim, gd, 0, KR_FFT_FORWARD, 0,
                               KR_HOST));
    KRI_TRY(kr_fft_plan_create(&p->fft_bwd, p->ctx, p->dtype, p->ndim, gd, 0, KR_FFT_BACKWARD,
                               0, KR_HOST));
    return KR_OK;
}

static void kri_cpu_points_free(kr_nufft_plan *p)
{
    kri_free(p->perm);
    kri_free(p->kxyz);
    kri_free(p->ptile);
    p->perm = NULL;
    p->kxyz = NULL;
    p->ptile = NULL;
    p->cap = 0;
}

static void kri_cpu_nufft_destroy(kr_nufft_plan *p)
{
    kri_cpu_points_free(p);
    for (int d = 0; d < 3; d++) {
        kri_free(p->dpre[d]);
        if (p->cell_tile[d]) kri_free(p->cell_tile[d] - p->n[d]);
        p->dpre[d] = NULL;
        p->cell_tile[d] = NULL;
    }
    kri_free(p->tile_start);
    p->tile_start = NULL;
    kri_free(p->hist);
    p->hist = NULL;
    kri_free(p->tbuf);
    p->tbuf = NULL;
    kri_free(p->grid);
    p->grid = NULL;
    kr_fft_plan_destroy(p->fft_fwd);
    kr_fft_plan_destroy(p->fft_bwd);
    p->fft_fwd = p->fft_bwd = NULL;
}

static kr_status kri_cpu_points_alloc(kr_nufft_plan *p, int64_t M)
{
    if (M <= p->cap) return KR_OK;
    kri_cpu_points_free(p);
    KRI_TRY(kri_alloc((void **)&p->perm, (size_t)M * sizeof(int32_t), "NUFFT point order"));
    KRI_TRY(kri_alloc((void **)&p->ptile, (size_t)M * sizeof(int32_t), "NUFFT point tiles"));
    KRI_TRY(kri_alloc(&p->kxyz, (size_t)(M * p->ndim) * sizeof(double), "NUFFT points"));
    p->cap = M;
    return KR_OK;
}

/* A stable counting sort by tile, in parallel and identical for every thread count: each chunk
 * of the points (in order) validates and counts its points per tile; the cursors of chunk c in
 * tile t start after the tile's points of chunks before c; each chunk then writes its points'
 * indices and coordinates (in the trajectory's type) to their sorted places. The arrays are reused while the
 * number of points does not grow. */
static kr_status kri_cpu_nufft_set_points(kr_nufft_plan *p, const kri_nufft_traj *t,
                                          int64_t *bad)
{
    const int64_t M = t->M;
    const int nch = p->nchunk, nc = (int)t->nc, f32 = t->dtype == KR_F32;
    *bad = -1;
    KRI_TRY(kri_cpu_points_alloc(p, M));
    const int64_t ntiles = (int64_t)p->ntile[0] * p->ntile[1] * p->ntile[2];
    int32_t *tile = p->ptile;
    int64_t *hist = p->hist, first = INT64_MAX;
    memset(hist, 0, (size_t)(ntiles * nch) * sizeof(int64_t));
#pragma omp parallel for schedule(static, 1) num_threads(p->nthreads) reduction(min : first)
    for (int c = 0; c < nch; c++) {
        int64_t m0 = M * c / nch, m1 = M * (c + 1) / nch, *cnt = hist + c * ntiles;
        int64_t b = KRI_NF(p, tiles_of, t->data, f32, nc, m0, m1, tile, cnt);
        if (b >= 0 && b < first) first = b;
    }
    if (first != INT64_MAX) {
        *bad = first;
        return KR_OK;
    }
    int64_t run = 0;
    for (int64_t q = 0; q < ntiles; q++) {
        p->tile_start[q] = run;
        for (int c = 0; c < nch; c++) {
            int64_t n = hist[c * ntiles + q];
            hist[c * ntiles + q] = run;
            run += n;
        }
    }
    p->tile_start[ntiles] = run;
#pragma omp parallel for schedule(static, 1) num_threads(p->nthreads)
    for (int c = 0; c < nch; c++) {
        int64_t *cur = hist + c * ntiles;
        KRI_NF(p, scatter, t->data, f32, nc, M * c / nch, M * (c + 1) / nch, tile, cur);
    }
    p->kf32 = f32;
    return KR_OK;
}

/* ---- execution ------------------------------------------------------------------------------ */
void kri_cpu_nufft_spread(kr_nufft_plan *p, const void *kspace)
{
    KRI_NF(p, zero_grid, p->n[0]);
    KRI_NF(p, spread, kspace);
}

void kri_cpu_nufft_interp(kr_nufft_plan *p, void *kspace) { KRI_NF(p, interp, kspace); }

static kr_status kri_grid_fft(kr_nufft_plan *p, kr_fft_plan *f)
{
    kr_array g;
    int64_t gd[3] = {p->n[0], p->n[1], p->n[2]};
    KRI_TRY(kr_array_wrap(&g, p->dtype, p->ndim, gd, p->grid, KR_HOST));
    return kr_fft_execute(f, &g, &g);
}

/* The first non-finite of n complex values of a host array (-1: none), when the plan checks. */
static kr_status kri_cpu_nufft_finite(kr_nufft_plan *p, const void *data, int64_t n, int64_t *bad)
{
    *bad = -1;
    if (!p->check_finite) return KR_OK;
    int64_t r = -1;
    KRI_TRY(kri_first_nonfinite(p->ctx, KR_HOST, p->dbl ? KR_F64 : KR_F32, data, 2 * n, &r));
    *bad = r >= 0 ? r / 2 : -1;
    return KR_OK;
}

/* Both directions, one batch member at a time on the plan's grid: forward pad + FFT +
 * interpolation, adjoint spreading + FFT + crop. */
static kr_status kri_cpu_nufft_execute(kr_nufft_plan *p, int adjoint, const void *in, void *out,
                                       int64_t *bad)
{
    const int64_t nin = adjoint ? p->M : p->nimg, nout = adjoint ? p->nimg : p->M;
    KRI_TRY(kri_cpu_nufft_finite(p, in, nin * p->batch, bad));
    if (*bad >= 0) return KR_OK;
    size_t cs = p->dbl ? 2 * sizeof(double) : 2 * sizeof(float);
    for (int64_t b = 0; b < p->batch; b++) {
        const char *x = (const char *)in + (size_t)(b * nin) * cs;
        char *y = (char *)out + (size_t)(b * nout) * cs;
        if (adjoint) {
            kri_cpu_nufft_spread(p, x);
            KRI_TRY(kri_grid_fft(p, p->fft_bwd));
            KRI_NF(p, crop, (void *)y);
        } else {
            KRI_NF(p, pad, (const void *)x);
            KRI_TRY(kri_grid_fft(p, p->fft_fwd));
            kri_cpu_nufft_interp(p, y);
        }
    }
    return KR_OK;
}

static kr_status kri_cpu_nufft_forward(kr_nufft_plan *p, const void *image, void *kspace,
                                       int64_t *bad)
{
    return kri_cpu_nufft_execute(p, 0, image, kspace, bad);
}

static kr_status kri_cpu_nufft_adjoint(kr_nufft_plan *p, const void *kspace, void *image,
                                       int64_t *bad)
{
    return kri_cpu_nufft_execute(p, 1, kspace, image, bad);
}

const kri_nufft_backend kri_nufft_cpu = {{"cpu", true},           kri_cpu_nufft_create,
                                         kri_cpu_nufft_destroy,    kri_cpu_nufft_set_points,
                                         kri_cpu_nufft_forward,    kri_cpu_nufft_adjoint};
