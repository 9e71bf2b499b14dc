/* FDK on the CPU (the backend table kri_fdk_cpu): pre-weighting, the non-finite census, the
 * voxel-driven backprojector and the pipeline of an execute (views in batches: weighted and
 * filtered in parallel, one serial filter per thread, then backprojected).
 *
 * Backprojection work items are (z block of KRI_CPU_KZ slices, chunk of KRI_CPU_JC y rows), in
 * a fixed order; for each chunk of views and each row, the item loads the row's KZ x nx voxels
 * into a private accumulator, adds the views in order and stores them back, so every voxel sees
 * the same sequence of float additions whatever the number of threads and however the views are
 * batched or chunked. Per view, the column
 * quantities (u, 1/w^2, v at k = 0, dv/dk) of the row are computed once and shared by the KZ
 * slices (the z-column register blocking of the fast path); the general path recomputes them
 * per voxel. The AVX-512 kernel does the same arithmetic 16 voxels at a time with gathers. */
#include "fdk_internal.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) && defined(__x86_64__) && !defined(KRAY_NO_AVX512)
#define KRI_FDK_AVX512 1
#include <immintrin.h>
#endif

#define KRI_CPU_KZ 32 /* slices per work item */

/* Padded view layout: pixel (a, b) at (b + 1) * (nu + 3) + a + 1, zeros around. */
#define KRI_FDK_PADW(nu) ((nu) + 3)
#define KRI_FDK_PADH(nv) ((nv) + 3)

/* The projection matrix (fdk_kern.h), portable instance: two roundings everywhere. */
#define KT float
#define KFN(x) x##_f32
#define KHD static inline
#define KS(x) (x)
#define KMUL(a, b) ((a) * (b))
#define KADD(a, b) ((a) + (b))
#define KFMA(a, b, c) ((a) * (b) + (c)) /* two roundings: C11 does not contract */
#define KRCP(a) (1.0f / (a))
#define KFMUL(a, b) ((a) * (b))
#define KFADD(a, b) ((a) + (b))
#include "fdk_kern.h"

#ifdef KRI_FDK_AVX512
/* The AVX-512 instance: 16 columns at a time, fused multiply-adds, exact division. */
#define KT __m512
#define KFN(x) x##_avx512
#define KHD static inline __attribute__((target("avx512f")))
#define KS(x) _mm512_set1_ps(x)
#define KMUL(a, b) _mm512_mul_ps(a, b)
#define KADD(a, b) _mm512_add_ps(a, b)
#define KFMA(a, b, c) _mm512_fmadd_ps(a, b, c)
#define KRCP(a) _mm512_div_ps(_mm512_set1_ps(1.0f), a)
#define KFMUL(a, b) ((a) * (b))
#define KFADD(a, b) ((a) + (b))
#include "fdk_kern.h"
#endif

/* ---- pre-weighting ------------------------------------------------------------------------- */
void kri_cpu_fdk_weight(const kr_fdk_plan *p, const float *pv, int64_t m, float *w, int64_t ws)
{
    kri_cpu_fdk_weight_rows(p, pv, m, 0, p->nv, w, ws);
}

void kri_cpu_fdk_weight_rows(const kr_fdk_plan *p, const float *pv, int64_t m, int64_t b0,
                             int64_t nb, float *w, int64_t ws)
{
    const kri_fdk_wv *c = &p->wv[m];
    const int64_t nu = p->nu;
    const float *park = p->parker ? p->parker + nu * m : NULL;
    w -= b0 * ws;
    for (int64_t b = b0; b < b0 + nb; b++) {
        double rb[3];
        for (int d = 0; d < 3; d++) rb[d] = (double)c->r0[d] + (double)b * (double)c->v[d];
        for (int64_t a = 0; a < nu; a++) {
            double r[3];
            for (int d = 0; d < 3; d++) r[d] = rb[d] + (double)a * (double)c->u[d];
            double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
            double cw = (r[0] * c->n[0] + r[1] * c->n[1] + r[2] * c->n[2]) / len;
            double s = p->bp_only ? (double)c->scale / cw
                                  : (double)c->scale * cw * (park ? (double)park[a] : 1.0);
            w[a + ws * b] = (float)((double)pv[a + nu * b] * s);
        }
    }
}

void kri_cpu_fdk_stage(float *dst, int64_t dst_slot, const float *src, int64_t src_slot,
                       int64_t nb, int64_t n, int nthreads)
{
    /* pieces of 2^18 floats (1 MiB), so a few large views still spread over the threads */
    const int64_t piece = (int64_t)1 << 18, per = (n + piece - 1) / piece;
#pragma omp parallel for num_threads(nthreads) schedule(static)
    for (int64_t t = 0; t < nb * per; t++) {
        const int64_t b = t / per, o = (t % per) * piece;
        const int64_t len = n - o < piece ? n - o : piece;
        memcpy(dst + b * dst_slot + o, src + b * src_slot + o, (size_t)len * sizeof(float));
    }
}

void kri_cpu_fdk_count_nonfinite(const float *x, int64_t n, int nthreads, int64_t *nnan,
                                 int64_t *ninf, int64_t *first)
{
    /* fixed chunks, combined in order: the counts and the first index are exact anyway */
    const int64_t chunk = (int64_t)1 << 20;
    int64_t nchunks = (n + chunk - 1) / chunk;
    int64_t tn = 0, ti = 0, f = -1;
#pragma omp parallel for num_threads(nthreads) schedule(static) reduction(+ : tn, ti)
    for (int64_t c = 0; c < nchunks; c++) {
        int64_t e = (c + 1) * chunk < n ? (c + 1) * chunk : n;
        int64_t cn = 0, ci = 0, cf = -1;
        for (int64_t i = c * chunk; i < e; i++) {
            float v = x[i];
            if (v - v != 0.0f) { /* NaN or infinite */
                if (isnan(v)) cn++;
                else ci++;
                if (cf < 0) cf = i;
            }
        }
        tn += cn;
        ti += ci;
        if (cf >= 0) {
#pragma omp critical(kri_fdk_first)
            if (f < 0 || cf < f) f = cf;
        }
    }
    *nnan = tn;
    *ninf = ti;
    *first = f;
}

/* ---- backprojection: portable kernel ------------------------------------------------------- */
typedef struct kri_cols {
    float *fu, *wt, *vb, *dv; /* per column of the row: u fraction, weight, v at k = 0, dv/dk */
    int32_t *ib;              /* padded index of (floor(u), row -1) */
} kri_cols;

/* Column quantities of row j for view matrix M (fast path). */
static void kri_fdk_columns(const kri_fdk_mat *M, int64_t nx, int64_t j, float nuf, int padw,
                            kri_cols *c)
{
    float w0, u0, v0;
    kri_fdk_row_terms_f32(M, (float)j, &w0, &u0, &v0);
    for (int64_t i = 0; i < nx; i++) {
        float u;
        kri_fdk_col_f32(M, (float)i, w0, u0, v0, &u, &c->wt[i], &c->vb[i], &c->dv[i]);
        u = u < -1.0f ? -1.0f : (u > nuf ? nuf : u);
        int32_t iu = (int32_t)u; /* u >= -1: truncate, then fix to floor */
        if ((float)iu > u) iu -= 1;
        c->fu[i] = u - (float)iu;
        c->ib[i] = iu + 1 + padw; /* padded index of (iu, row -1) + one row */
    }
}

/* One voxel of the general path (u, w depend on k): returns the weighted sample. */
static float kri_fdk_voxel_general(const kri_fdk_mat *M, const float *q, int padw, float nuf,
                                   float nvf, float fi, float fj, float fk)
{
    float w, un, vn;
    kri_fdk_voxel_f32(M, fi, fj, fk, &w, &un, &vn);
    const float r = 1.0f / w;
    float u = un * r, v = vn * r;
    u = u < -1.0f ? -1.0f : (u > nuf ? nuf : u);
    v = v < -1.0f ? -1.0f : (v > nvf ? nvf : v);
    int32_t iu = (int32_t)u, iv = (int32_t)v;
    if ((float)iu > u) iu -= 1;
    if ((float)iv > v) iv -= 1;
    const float fu = u - (float)iu, fv = v - (float)iv;
    const float *a = q + (int64_t)(iv + 1) * padw + (iu + 1);
    const float s0 = a[0] + fu * (a[1] - a[0]);
    const float s1 = a[padw] + fu * (a[padw + 1] - a[padw]);
    return (r * r) * (s0 + fv * (s1 - s0));
}

/* Fast-path update of nk slices of one row for one view. acc[kk * nx + i]. */
static void kri_fdk_row_portable(const kri_cols *c, const float *q, int padw, float nvf,
                                 int64_t nx, int64_t k0, int64_t nk, float *acc)
{
    for (int64_t kk = 0; kk < nk; kk++) {
        const float kf = (float)(k0 + kk);
        float *ar = acc + kk * nx;
        for (int64_t i = 0; i < nx; i++) {
            float v = kri_fdk_v_f32(c->vb[i], c->dv[i], kf);
            v = v < -1.0f ? -1.0f : (v > nvf ? nvf : v);
            int32_t iv = (int32_t)v;
            if ((float)iv > v) iv -= 1;
            const float fv = v - (float)iv;
            const float *a = q + (int64_t)iv * padw + c->ib[i];
            const float fu = c->fu[i];
            const float s0 = a[0] + fu * (a[1] - a[0]);
            const float s1 = a[padw] + fu * (a[padw + 1] - a[padw]);
            ar[i] += c->wt[i] * (s0 + fv * (s1 - s0));
        }
    }
}

#ifdef KRI_FDK_AVX512
/* Column quantities, 16 columns at a time (fused multiply-adds; exact division). */
__attribute__((target("avx512f"))) static void
kri_fdk_columns_avx512(const kri_fdk_mat *M, int64_t nx, int64_t j, float nuf, int padw,
                       kri_cols *c)
{
    __m512 w0, u0, v0;
    kri_fdk_row_terms_avx512(M, (float)j, &w0, &u0, &v0);
    const __m512 lo = _mm512_set1_ps(-1.0f), hi = _mm512_set1_ps(nuf);
    const __m512i base = _mm512_set1_epi32(1 + padw);
    const __m512i iota = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (int64_t i = 0; i < nx; i += 16) {
        const int64_t rem = nx - i;
        const __mmask16 m = rem >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << rem) - 1u);
        const __m512 fi = _mm512_cvtepi32_ps(_mm512_add_epi32(_mm512_set1_epi32((int)i), iota));
        __m512 u, wt, vb, dv;
        kri_fdk_col_avx512(M, fi, w0, u0, v0, &u, &wt, &vb, &dv);
        u = _mm512_min_ps(_mm512_max_ps(u, lo), hi);
        const __m512 fl = _mm512_roundscale_ps(u, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
        _mm512_mask_storeu_ps(c->fu + i, m, _mm512_sub_ps(u, fl));
        _mm512_mask_storeu_epi32(c->ib + i, m, _mm512_add_epi32(_mm512_cvtps_epi32(fl), base));
        _mm512_mask_storeu_ps(c->wt + i, m, wt);
        _mm512_mask_storeu_ps(c->vb + i, m, vb);
        _mm512_mask_storeu_ps(c->dv + i, m, dv);
    }
}

/* One slice of the update for the lanes `lm` (the others contribute exactly zero: they are
 * masked out of the gathers, which then return zeros, and acc + wt * 0 == acc); v must be in
 * [-1, nv] on those lanes. Uses the names of kri_fdk_row_avx512. */
#define KRI_FDK_AVX_UPDATE(v, lm)                                                              \
    do {                                                                                       \
        float *ar = acc + kk * nx + i;                                                         \
        const __mmask8 l0 = (__mmask8)((lm) & 0xFF), l1 = (__mmask8)((lm) >> 8);               \
        const __m512 fl = _mm512_roundscale_ps(v, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);  \
        const __m512 fv = _mm512_sub_ps(v, fl);                                                \
        /* exact: (nu + 3) (nv + 3) < 2^24 for this kernel */                                  \
        const __m512i i0 = _mm512_cvtps_epi32(_mm512_fmadd_ps(fl, pwf, ibf));                  \
        const __m512i i1 = _mm512_add_epi32(i0, pw);                                           \
        const __m256i a0 = _mm512_castsi512_si256(i0), a1 = _mm512_extracti64x4_epi64(i0, 1);  \
        const __m256i b0 = _mm512_castsi512_si256(i1), b1 = _mm512_extracti64x4_epi64(i1, 1);  \
        const __m512 g0 = _mm512_castpd_ps(_mm512_mask_i32gather_pd(zd, l0, a0, q, 4));        \
        const __m512 g1 = _mm512_castpd_ps(_mm512_mask_i32gather_pd(zd, l1, a1, q, 4));        \
        const __m512 h0 = _mm512_castpd_ps(_mm512_mask_i32gather_pd(zd, l0, b0, q, 4));        \
        const __m512 h1 = _mm512_castpd_ps(_mm512_mask_i32gather_pd(zd, l1, b1, q, 4));        \
        const __m512 q00 = _mm512_permutex2var_ps(g0, even, g1);                               \
        const __m512 q10 = _mm512_permutex2var_ps(g0, odd, g1);                                \
        const __m512 q01 = _mm512_permutex2var_ps(h0, even, h1);                               \
        const __m512 q11 = _mm512_permutex2var_ps(h0, odd, h1);                                \
        const __m512 s0 = _mm512_fmadd_ps(fu, _mm512_sub_ps(q10, q00), q00);                   \
        const __m512 s1 = _mm512_fmadd_ps(fu, _mm512_sub_ps(q11, q01), q01);                   \
        const __m512 val = _mm512_fmadd_ps(fv, _mm512_sub_ps(s1, s0), s0);                     \
        _mm512_mask_storeu_ps(ar, m, _mm512_fmadd_ps(wt, val, _mm512_maskz_loadu_ps(m, ar)));  \
    } while (0)

/* The update, 16 columns at a time: the column quantities stay in registers across the nk
 * slices; each row pair of the bilinear stencil is fetched with two 8-lane 64-bit gathers
 * (the two u neighbours at once) and de-interleaved. Samples with v <= -1 or v >= nv read only
 * zero rows and contribute exactly zero, so they are skipped (whole slices when no lane needs
 * them); on the other lanes the clamp to [-1, nv] is a no-op. */
__attribute__((target("avx512f"))) static void
kri_fdk_row_avx512(const kri_cols *c, const float *q, int padw, float nvf, int64_t nx, int64_t k0,
                   int64_t nk, float *acc)
{
    const __m512 lo = _mm512_set1_ps(-1.0f), hi = _mm512_set1_ps(nvf);
    const __m512i pw = _mm512_set1_epi32(padw);
    const __m512 pwf = _mm512_set1_ps((float)padw);
    const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
    const __m512d zd = _mm512_setzero_pd();
    for (int64_t i = 0; i < nx; i += 16) {
        const int64_t rem = nx - i;
        const __mmask16 m = rem >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << rem) - 1u);
        const __m512 dv = _mm512_maskz_loadu_ps(m, c->dv + i);
        const __m512 vb = _mm512_maskz_loadu_ps(m, c->vb + i);
        const __m512 fu = _mm512_maskz_loadu_ps(m, c->fu + i);
        const __m512 wt = _mm512_maskz_loadu_ps(m, c->wt + i);
        const __m512 ibf = _mm512_cvtepi32_ps(_mm512_maskz_loadu_epi32(m, c->ib + i));
        /* v is monotonic in k: when both ends are inside (-1, nv) so is every slice */
        const __m512 va = kri_fdk_v_avx512(vb, dv, _mm512_set1_ps((float)k0));
        const __m512 vz = kri_fdk_v_avx512(vb, dv, _mm512_set1_ps((float)(k0 + nk - 1)));
        const __mmask16 in = _mm512_mask_cmp_ps_mask(m, va, lo, _CMP_GT_OQ) &
                             _mm512_mask_cmp_ps_mask(m, va, hi, _CMP_LT_OQ) &
                             _mm512_mask_cmp_ps_mask(m, vz, lo, _CMP_GT_OQ) &
                             _mm512_mask_cmp_ps_mask(m, vz, hi, _CMP_LT_OQ);
        if (in == m) {
            for (int64_t kk = 0; kk < nk; kk++) {
                const __m512 v = kri_fdk_v_avx512(vb, dv, _mm512_set1_ps((float)(k0 + kk)));
                KRI_FDK_AVX_UPDATE(v, m);
            }
        } else {
            for (int64_t kk = 0; kk < nk; kk++) {
                const __m512 v = kri_fdk_v_avx512(vb, dv, _mm512_set1_ps((float)(k0 + kk)));
                const __mmask16 lm = _mm512_mask_cmp_ps_mask(m, v, lo, _CMP_GT_OQ) &
                                     _mm512_mask_cmp_ps_mask(m, v, hi, _CMP_LT_OQ);
                if (lm == 0) continue;
                KRI_FDK_AVX_UPDATE(v, lm);
            }
        }
    }
}
#undef KRI_FDK_AVX_UPDATE

/* The processor has AVX-512F and KRAY_FDK_NO_AVX512 is unset or "0" (the variable lets tests
 * and benchmarks compare the two kernels). */
static int kri_have_avx512(void)
{
    __builtin_cpu_init();
    const char *e = getenv("KRAY_FDK_NO_AVX512");
    return __builtin_cpu_supports("avx512f") && !(e && *e && strcmp(e, "0") != 0);
}
#endif

/* The AVX-512 kernel: fast path, the processor has it, and padded indices exact in float. */
static int kri_fdk_use_avx512(const kr_fdk_plan *p)
{
#ifdef KRI_FDK_AVX512
    return p->fast && KRI_FDK_PADW(p->nu) * KRI_FDK_PADH(p->nv) < ((int64_t)1 << 24) &&
           kri_have_avx512();
#else
    (void)p;
    return 0;
#endif
}

static const char *kri_cpu_fdk_kernel_name(const kr_fdk_plan *p)
{
    return kri_fdk_use_avx512(p) ? "cpu-avx512" : "cpu";
}

/* Floats of backprojection scratch per thread for a volume nx wide. */
static int64_t kri_cpu_fdk_scratch_floats(int64_t nx)
{
    return (int64_t)(KRI_CPU_KZ + 5) * nx + 16;
}

/* Views per pass over a row chunk: about 1 MiB of detector bands (a band: the rows one z block
 * reads, estimated at the centre column of the first view) stays in the core's cache while
 * KRI_CPU_JC rows of the volume use it. */
#define KRI_CPU_JC 16
static int64_t kri_fdk_view_chunk(const kr_fdk_plan *p, int64_t m0)
{
    const kri_fdk_mat *M = &p->mat[m0];
    const float ci = 0.5f * (float)(p->grid.n[0] - 1), cj = 0.5f * (float)(p->grid.n[1] - 1);
    float w, un, vn;
    kri_fdk_voxel_f32(M, ci, cj, 0.0f, &w, &un, &vn);
    const double rows = fabs((double)M->pv[2] / (double)w) * KRI_CPU_KZ + 4;
    const double band = rows * (double)KRI_FDK_PADW(p->nu) * sizeof(float);
    int64_t vc = (int64_t)((double)(1 << 20) / band);
    return vc < 1 ? 1 : (vc > 16 ? 16 : vc);
}

/* vol [nx, ny, z1 - z0] (slices [z0, z1) of the plan) += sum over views m0 .. m0 + nb - 1 (in
 * order) of the padded filtered views q (view m0 + b at q + b * padw * padh). */
static void kri_cpu_fdk_backproject(const kr_fdk_plan *p, const float *q, int64_t m0,
                                    int64_t nb, float *vol, int nthreads, float *scratch)
{
    const int64_t nx = p->grid.n[0], ny = p->grid.n[1], nz = p->z1 - p->z0;
    vol -= p->z0 * nx * ny; /* indexed by absolute slices below */
    const int padw = (int)KRI_FDK_PADW(p->nu);
    const int64_t vstride = (int64_t)padw * KRI_FDK_PADH(p->nv);
    const float nuf = (float)p->nu, nvf = (float)p->nv;
    const int64_t nzb = (nz + KRI_CPU_KZ - 1) / KRI_CPU_KZ;
    const int64_t njc = (ny + KRI_CPU_JC - 1) / KRI_CPU_JC;
    const int64_t items = nzb * njc;
    const int64_t sstride = kri_cpu_fdk_scratch_floats(nx);
    const int64_t vc = kri_fdk_view_chunk(p, m0);
    const int avx = kri_fdk_use_avx512(p);
#pragma omp parallel num_threads(nthreads)
    {
        /* per-thread scratch: accumulator KZ x nx and the column tables */
        float *acc = scratch + (int64_t)omp_get_thread_num() * sstride;
        kri_cols c;
        c.fu = acc + KRI_CPU_KZ * nx;
        c.wt = c.fu + nx;
        c.vb = c.wt + nx;
        c.dv = c.vb + nx;
        c.ib = (int32_t *)(c.dv + nx);
        /* items: (z block, chunk of KRI_CPU_JC rows); the views go in chunks of vc, each chunk
         * applied to every row of the item while its detector bands are in cache. The volume
         * holds the running sums between chunks, so every voxel still adds the views in order
         * and the result does not depend on the chunking. */
#pragma omp for schedule(static)
        for (int64_t t = 0; t < items; t++) {
            const int64_t zb = t / njc, j0 = (t % njc) * KRI_CPU_JC;
            const int64_t j1 = j0 + KRI_CPU_JC < ny ? j0 + KRI_CPU_JC : ny;
            const int64_t k0 = p->z0 + zb * KRI_CPU_KZ;
            const int64_t nk = p->z1 - k0 < KRI_CPU_KZ ? p->z1 - k0 : KRI_CPU_KZ;
            for (int64_t b0 = 0; b0 < nb; b0 += vc) {
                const int64_t b1 = b0 + vc < nb ? b0 + vc : nb;
                for (int64_t j = j0; j < j1; j++) {
                    for (int64_t kk = 0; kk < nk; kk++)
                        memcpy(acc + kk * nx, vol + ((k0 + kk) * ny + j) * nx,
                               (size_t)nx * sizeof(float));
                    for (int64_t b = b0; b < b1; b++) {
                        const kri_fdk_mat *M = &p->mat[m0 + b];
                        const float *qv = q + b * vstride;
                        if (p->fast) {
#ifdef KRI_FDK_AVX512
                            if (avx) {
                                kri_fdk_columns_avx512(M, nx, j, nuf, padw, &c);
                                kri_fdk_row_avx512(&c, qv, padw, nvf, nx, k0, nk, acc);
                                continue;
                            }
#endif
                            kri_fdk_columns(M, nx, j, nuf, padw, &c);
                            kri_fdk_row_portable(&c, qv, padw, nvf, nx, k0, nk, acc);
                        } else {
                            for (int64_t kk = 0; kk < nk; kk++)
                                for (int64_t i = 0; i < nx; i++)
                                    acc[kk * nx + i] += kri_fdk_voxel_general(
                                        M, qv, padw, nuf, nvf, (float)i, (float)j,
                                        (float)(k0 + kk));
                        }
                    }
                    for (int64_t kk = 0; kk < nk; kk++)
                        memcpy(vol + ((k0 + kk) * ny + j) * nx, acc + kk * nx,
                               (size_t)nx * sizeof(float));
                }
            }
        }
    }
    (void)avx;
}

/* ---- the backend ----------------------------------------------------------------------------- */
typedef struct kri_fdk_host {
    int64_t vb0, nvb;    /* the detector rows the plan's slices read (all of them, in core) */
    int nt;              /* threads at plan creation */
    kr_ctx *serial;      /* single-threaded ctx of the per-thread filters */
    kri_fdk_filt **filt; /* nt filters of nv rows each, unit spacing */
    float *w;            /* nt weighted views [nu, nv] */
    float *q;            /* batch of padded filtered views [(nu + 3) (nv + 3), batch] */
    int64_t batch;
    float *scr;          /* backprojection scratch, scr_threads x kri_cpu_fdk_scratch_floats */
    int scr_threads;
} kri_fdk_host;

static void kri_cpu_fdk_destroy(void *state)
{
    kri_fdk_host *h = state;
    if (!h) return;
    for (int t = 0; h->filt && t < h->nt; t++) kri_fdk_filt_destroy(h->filt[t]);
    kri_free(h->filt);
    kr_ctx_destroy(h->serial);
    kri_free(h->w);
    kri_free(h->q);
    kri_free(h->scr);
    kri_free(h);
}

static kr_status kri_cpu_fdk_create(kr_fdk_plan *p, void **state)
{
    kri_fdk_host *h = kri_calloc(1, sizeof *h);
    *state = h;
    if (!h) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for an FDK plan");
    const int64_t nu = p->nu, nv = p->nv;
    /* a plan of some slices weights and filters only the rows they read */
    h->vb0 = 0, h->nvb = nv;
    if (p->z0 > 0 || p->z1 < p->grid.n[2]) kri_fdk_band(p, p->z0, p->z1 - p->z0, &h->vb0, &h->nvb);
    int64_t vbytes = KRI_FDK_PADW(nu) * KRI_FDK_PADH(nv) * (int64_t)sizeof(float);
    int64_t b = p->o.batch_views ? p->o.batch_views : ((int64_t)256 << 20) / vbytes;
    h->batch = b < 1 ? 1 : (b > p->nviews ? p->nviews : b);
    p->info.batch_views = h->batch;
    /* one single-threaded filter and weighting buffer per thread: the views of a batch are
     * filtered in parallel, each by the same serial code (so the result does not depend on
     * which thread takes a view) */
    h->nt = p->bp_only ? 0 : kri_threads(p->ctx);
    if (!p->bp_only) KRI_TRY(kr_ctx_create(&h->serial, KR_BACKEND_CPU_SERIAL));
    h->filt = kri_calloc((size_t)h->nt, sizeof *h->filt);
    if (!h->filt && h->nt) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for filters");
    for (int t = 0; t < h->nt && h->nvb > 0; t++)
        KRI_TRY(kri_fdk_filt_create(&h->filt[t], h->serial, nu, h->nvb, &p->o, p->tune.fuse));
    if (h->nt)
        KRI_TRY(kri_alloc((void **)&h->w, (size_t)(nu * nv) * (size_t)h->nt * sizeof(float),
                          "FDK weighted views"));
    /* calloc: the padding stays zero for ever (the filter writes only the interior) */
    h->q = kri_calloc((size_t)(h->batch * (vbytes / (int64_t)sizeof(float))), sizeof(float));
    if (!h->q)
        return kri_fail(KR_ERR_OOM_HOST, "out of host memory for %lld filtered views",
                        (long long)h->batch);
    return KR_OK;
}

static kr_status kri_cpu_fdk_census(void *state, const kr_fdk_plan *p, const kr_array *proj,
                                    int64_t *nnan, int64_t *ninf, int64_t *first)
{
    (void)state;
    kri_cpu_fdk_count_nonfinite(proj->data, kr_array_numel(proj), kri_threads(p->ctx), nnan,
                                ninf, first);
    return KR_OK;
}

static kr_status kri_cpu_fdk_scratch(kri_fdk_host *h, int64_t nx, int nt)
{
    if (h->scr && h->scr_threads >= nt) return KR_OK;
    kri_free(h->scr);
    h->scr = NULL;
    h->scr_threads = 0;
    KRI_TRY(kri_alloc((void **)&h->scr, (size_t)(nt * kri_cpu_fdk_scratch_floats(nx)) *
                      sizeof(float), "FDK backprojection scratch"));
    h->scr_threads = nt;
    return KR_OK;
}

static kr_status kri_cpu_fdk_run(void *state, kr_fdk_plan *p, const kr_array *proj,
                                 kr_array *vol, int mode)
{
    kri_fdk_host *h = state;
    const int64_t nu = p->nu, nv = p->nv, padw = KRI_FDK_PADW(nu);
    const int64_t vstride = padw * KRI_FDK_PADH(nv);
    const int nt = kri_threads(p->ctx);
    KRI_TRY(kri_cpu_fdk_scratch(h, p->grid.n[0], nt));
    const float *in = proj->data;
    float *out = vol->data;
    memset(out, 0, kr_array_bytes(vol));
    double tf = 0, tb = 0;
    kr_progress *pg = kri_fdk_progress(p, p->nviews);
    for (int64_t m0 = 0; m0 < p->nviews; m0 += h->batch) {
        int64_t nb = p->nviews - m0 < h->batch ? p->nviews - m0 : h->batch;
        double t0 = kr_time_now();
        kr_status fs = KR_OK;
        /* filtering takes one of the plan's nt filters a thread */
        const int ft = mode != KRI_FDK_FILTER || nt < h->nt ? nt : h->nt;
#pragma omp parallel for num_threads(ft) schedule(static)
        for (int64_t b = 0; b < nb; b++) {
            const int t = omp_get_thread_num();
            const float *pv = in + (m0 + b) * nu * nv;
            /* the band's rows at their own places; rows outside it stay zero and are not read */
            float *q = h->q + b * vstride + padw + 1 + h->vb0 * padw;
            if (h->nvb == 0) continue;
            if (mode == KRI_FDK_DENSITY) {
                kri_cpu_fdk_weight_rows(p, pv, m0 + b, h->vb0, h->nvb, q, padw);
            } else if (mode == KRI_FDK_FILTER) {
                float *w = h->w + (int64_t)t * nu * nv;
                kri_cpu_fdk_weight_rows(p, pv, m0 + b, h->vb0, h->nvb, w, nu);
                kr_status s = kri_fdk_filt_run(h->filt[t], w, nu, q, padw);
                if (s != KR_OK) {
#pragma omp critical(kri_fdk_filter_status)
                    fs = s;
                }
            } else {
                for (int64_t r = h->vb0; r < h->vb0 + h->nvb; r++)
                    memcpy(q + (r - h->vb0) * padw, pv + r * nu, (size_t)nu * sizeof(float));
            }
        }
        if (fs != KR_OK) {
            kr_progress_end(pg);
            return fs;
        }
        double t1 = kr_time_now();
        kri_cpu_fdk_backproject(p, h->q, m0, nb, out, nt, h->scr);
        tb += kr_time_now() - t1;
        tf += t1 - t0;
        kr_progress_add(pg, nb);
    }
    kr_progress_end(pg);
    p->info.t_filter_s = tf;
    p->info.t_backproject_s = tb;
    p->info.kernel = kri_cpu_fdk_kernel_name(p);
    p->info.slabs = 1;
    p->info.slab_z = p->z1 - p->z0;
    return KR_OK;
}

const kri_fdk_backend kri_fdk_cpu = {{"cpu", true},
                                     kri_cpu_fdk_create,
                                     kri_cpu_fdk_destroy,
                                     kri_cpu_fdk_census,
                                     kri_cpu_fdk_run};
