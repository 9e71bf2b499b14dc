/* CPU NUFFT: tile sort of the points, deterministic OpenMP spreading (2^ndim colour phases of
 * tiles at least one kernel width wide), race-free interpolation, FFTW through kray/fft.h,
 * deapodisation with zero-padding / cropping. Results are bit-identical for every thread
 * count: every grid cell and every output value is computed by one thread, in a fixed order. */
#include "mri/mri_internal.h"
#include "mri/nufft/nufft_internal.h"

#include <string.h>

#if defined(__GNUC__)
#define KRI_ALWAYS_INLINE __attribute__((always_inline))
#else
#define KRI_ALWAYS_INLINE
#endif

/* ---- typed bodies (float for c64 plans, double for c128 plans) ---------------------------- */
#define KRI_T float
#define KRI_F(name) kri_nf_##name##_f
#define KRI_COEF(k) ((k)->coeff)
#include "mri/nufft/nufft_cpu_impl.h"
#undef KRI_T
#undef KRI_F
#undef KRI_COEF

#define KRI_T double
#define KRI_F(name) kri_nf_##name##_d
#define KRI_COEF(k) ((k)->coef)
#include "mri/nufft/nufft_cpu_impl.h"
#undef KRI_T
#undef KRI_F
#undef KRI_COEF

/* ---- plan-time state ------------------------------------------------------------------------ */
static kr_status kri_cpu_nufft_create(kr_nufft_plan *p)
{
    size_t rs = p->dbl ? sizeof(double) : sizeof(float);
    p->nthreads = kri_threads(p->ctx);
    if (p->nthreads < 1) p->nthreads = 1;
    KRI_TRY(kri_alloc(&p->grid, (size_t)p->ngrid * 2 * rs, "the NUFFT grid"));
    for (int d = 0; d < 3; d++) {
        KRI_TRY(kri_alloc(&p->dpre[d], (size_t)p->N[d] * rs, "NUFFT deapodisation factors"));
        for (int64_t i = 0; i < p->N[d]; i++) {
            if (p->dbl)
                ((double *)p->dpre[d])[i] = p->deapod[d][i];
            else
                ((float *)p->dpre[d])[i] = (float)p->deapod[d][i];
        }
    }
    /* Tiles: an even number per grid dim, each at least w cells (and about 32 cells in 2-D,
     * 16 in 3-D, so that one tile's footprint stays in cache). */
    int target = p->ndim == 2 ? 32 : 16;
    if (target < p->ker.w) target = p->ker.w;
    for (int d = 0; d < 3; d++) {
        int nt = 1;
        if (d < p->ndim) {
            nt = (int)(p->n[d] / target);
            nt -= nt % 2;
            if (nt < 2) nt = 2; /* n >= 2 w, so two tiles are each >= w */
        }
        p->ntile[d] = nt;
        KRI_TRY(kri_alloc((void **)&p->cell_tile[d], (size_t)p->n[d] * sizeof(int32_t),
                          "NUFFT tile table"));
        for (int t = 0; t < nt; t++) {
            int64_t lo = p->n[d] * t / nt, hi = p->n[d] * (t + 1) / nt;
            for (int64_t c = lo; c < hi; c++) p->cell_tile[d][c] = t;
        }
    }
    int64_t ntiles = (int64_t)p->ntile[0] * p->ntile[1] * p->ntile[2];
    KRI_TRY(kri_alloc((void **)&p->tile_start, (size_t)(ntiles + 1) * sizeof(int64_t),
                      "NUFFT tile offsets"));
    memset(p->tile_start, 0, (size_t)(ntiles + 1) * sizeof(int64_t));

    int64_t gd[3] = {p->n[0], p->n[1], p->n[2]};
    KRI_TRY(kr_fft_plan_create(&p->fft_fwd, p->ctx, p->dtype, p->ndim, gd, 0, KR_FFT_FORWARD, 0,
                               KR_HOST));
    KRI_TRY(kr_fft_plan_create(&p->fft_bwd, p->ctx, p->dtype, p->ndim, gd, 0, KR_FFT_BACKWARD,
                               0, KR_HOST));
    return KR_OK;
}

static void kri_cpu_nufft_destroy(kr_nufft_plan *p)
{
    kri_free(p->perm);
    p->perm = NULL;
    for (int d = 0; d < 3; d++) {
        kri_free(p->l0[d]);
        kri_free(p->frac[d]);
        kri_free(p->dpre[d]);
        kri_free(p->cell_tile[d]);
        p->l0[d] = NULL;
        p->frac[d] = NULL;
        p->dpre[d] = NULL;
        p->cell_tile[d] = NULL;
    }
    kri_free(p->tile_start);
    p->tile_start = NULL;
    kri_free(p->grid);
    p->grid = NULL;
    kr_fft_plan_destroy(p->fft_fwd);
    kr_fft_plan_destroy(p->fft_bwd);
    p->fft_fwd = p->fft_bwd = NULL;
}

/* Footprints of points [m0, m1) (original order) in the plan's precision; returns the first
 * invalid coordinate index m nc + d, or -1. */
static int64_t kri_geometry(const kr_nufft_plan *p, const kri_nufft_traj *t, int64_t m0,
                            int64_t m1, int32_t *const *l0, void *const *frac)
{
    const int nd = p->ndim, nc = (int)t->nc;
    const double hw = 0.5 * (double)p->ker.w;
    for (int64_t m = m0; m < m1; m++)
        for (int d = 0; d < nc; d++) {
            double k = t->dtype == KR_F32 ? (double)((const float *)t->data)[m * nc + d]
                                          : ((const double *)t->data)[m * nc + d];
            if (!KRI_NUFFT_COORD_OK(k, d, nd, p->N[d])) return m * nc + d;
            if (d >= nd) continue;
            double u = k * ((double)p->n[d] / (double)p->N[d]);
            double a = u - hw, c = ceil(a);
            int64_t l = (int64_t)c;
            if (l < 0) l += p->n[d];
            if (l >= p->n[d]) l -= p->n[d];
            l0[d][m] = (int32_t)l;
            if (p->dbl)
                ((double *)frac[d])[m] = c - a;
            else
                ((float *)frac[d])[m] = (float)(c - a);
        }
    return -1;
}

/* Validate and compute the footprints (in parallel; the first invalid coordinate wins), then a
 * stable counting sort by tile (tile of the footprint's centre cell l0 + floor(w/2)); within a
 * tile the original order is kept. */
static kr_status kri_cpu_nufft_set_points(kr_nufft_plan *p, const kri_nufft_traj *t,
                                          int64_t *bad)
{
    const int64_t M = t->M;
    const int nd = p->ndim, P = p->ker.w / 2;
    const size_t rs = p->dbl ? sizeof(double) : sizeof(float);
    *bad = -1;
    int32_t *l0o[3] = {NULL, NULL, NULL}, *tile = NULL;
    void *fo[3] = {NULL, NULL, NULL};
    kr_status s = KR_OK;
    for (int d = 0; d < nd && s == KR_OK; d++) {
        s = kri_alloc((void **)&l0o[d], (size_t)M * sizeof(int32_t), "NUFFT points");
        if (s == KR_OK) s = kri_alloc(&fo[d], (size_t)M * rs, "NUFFT points");
    }
    if (s == KR_OK) s = kri_alloc((void **)&tile, (size_t)M * sizeof(int32_t), "NUFFT tiles");
    if (s == KR_OK) {
        const int64_t chunk = 1 << 14, nchunk = (M + chunk - 1) / chunk;
        int64_t first = INT64_MAX;
#pragma omp parallel for schedule(static) num_threads(p->nthreads) reduction(min : first)
        for (int64_t c = 0; c < nchunk; c++) {
            int64_t m0 = c * chunk, m1 = m0 + chunk < M ? m0 + chunk : M;
            int64_t b = kri_geometry(p, t, m0, m1, l0o, fo);
            if (b >= 0 && b < first) first = b;
        }
        if (first != INT64_MAX) *bad = first;
    }
    if (s != KR_OK || *bad >= 0) goto done;

    kri_free(p->perm);
    p->perm = NULL;
    for (int d = 0; d < 3; d++) {
        kri_free(p->l0[d]);
        kri_free(p->frac[d]);
        p->l0[d] = NULL;
        p->frac[d] = NULL;
    }
    s = kri_alloc((void **)&p->perm, (size_t)M * sizeof(int32_t), "NUFFT point order");
    for (int d = 0; d < nd && s == KR_OK; d++) {
        s = kri_alloc((void **)&p->l0[d], (size_t)M * sizeof(int32_t), "NUFFT points");
        if (s == KR_OK) s = kri_alloc(&p->frac[d], (size_t)M * rs, "NUFFT points");
    }
    if (s != KR_OK) goto done;
    {
        const int64_t ntiles = (int64_t)p->ntile[0] * p->ntile[1] * p->ntile[2];
        memset(p->tile_start, 0, (size_t)(ntiles + 1) * sizeof(int64_t));
        for (int64_t m = 0; m < M; m++) {
            int64_t tt = 0;
            for (int d = nd - 1; d >= 0; d--) {
                int64_t c = l0o[d][m] + P;
                if (c >= p->n[d]) c -= p->n[d];
                tt = tt * p->ntile[d] + p->cell_tile[d][c];
            }
            tile[m] = (int32_t)tt;
            p->tile_start[tt + 1]++;
        }
        for (int64_t q = 0; q < ntiles; q++) p->tile_start[q + 1] += p->tile_start[q];
        /* Use tile_start[t] as the running cursor, then restore it. */
        for (int64_t m = 0; m < M; m++) p->perm[p->tile_start[tile[m]]++] = (int32_t)m;
        for (int64_t q = ntiles; q > 0; q--) p->tile_start[q] = p->tile_start[q - 1];
        p->tile_start[0] = 0;
    }
#pragma omp parallel for schedule(static) num_threads(p->nthreads)
    for (int64_t i = 0; i < M; i++) {
        int64_t m = p->perm[i];
        for (int d = 0; d < nd; d++) {
            p->l0[d][i] = l0o[d][m];
            if (p->dbl)
                ((double *)p->frac[d])[i] = ((const double *)fo[d])[m];
            else
                ((float *)p->frac[d])[i] = ((const float *)fo[d])[m];
        }
    }
done:
    for (int d = 0; d < 3; d++) {
        kri_free(l0o[d]);
        kri_free(fo[d]);
    }
    kri_free(tile);
    return s;
}

/* ---- execution ------------------------------------------------------------------------------ */
void kri_cpu_nufft_spread(kr_nufft_plan *p, const void *kspace)
{
    if (p->dbl) {
        kri_nf_zero_grid_d(p);
        kri_nf_spread_d(p, (const double *)kspace);
    } else {
        kri_nf_zero_grid_f(p);
        kri_nf_spread_f(p, (const float *)kspace);
    }
}

void kri_cpu_nufft_interp(kr_nufft_plan *p, void *kspace)
{
    if (p->dbl)
        kri_nf_interp_d(p, (double *)kspace);
    else
        kri_nf_interp_f(p, (float *)kspace);
}

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
            if (p->dbl)
                kri_nf_crop_d(p, (double *)y);
            else
                kri_nf_crop_f(p, (float *)y);
        } else {
            if (p->dbl)
                kri_nf_pad_d(p, (const double *)x);
            else
                kri_nf_pad_f(p, (const float *)x);
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
