// SENSE on the GPU (the CUDA table of sense_internal.h): data preparation (line mask + coil
// pre-whitening), batched unfolding of all aliased pixels (one thread per R x R system, built,
// factorised and solved in double precision in registers / local memory) and the general path
// (one block per column). The Cholesky arithmetic is sense_chol.h's, shared with the host.
#include <cuda_runtime.h>

#include "core/cuda_util.cuh"
#include "mri/cartesian/sense_chol.h"
#include "mri/cartesian/sense_internal.h"

namespace
{

constexpr int kThreads = 128;

unsigned grid_for(int64_t n)
{
    int64_t b = (n + kThreads - 1) / kThreads;
    if (b > 2147483647LL) b = 2147483647LL;
    if (b < 1) b = 1;
    return (unsigned)b;
}

__device__ __forceinline__ double2 zmk(double r, double i) { return kri_cmk<double2>(r, i); }

// (L^-1)[i, j], i > j, of the lower-triangular L being inverted in place column by column from
// the last: columns right of j already hold L^-1, column j still holds L.
__device__ __forceinline__ double2 linv_entry(const double2 *a, int i, int j, int64_t lda,
                                              int packed, double ljj)
{
    double2 s = zmk(0, 0);
    for (int k = j + 1; k <= i; k++)
        s = kri_cadd(s, kri_cmul(a[kri_chol_at(i, k, lda, packed)],
                                 a[kri_chol_at(k, j, lda, packed)]));
    return kri_cscale(s, -1.0 / ljj);
}

// ---- preparation -----------------------------------------------------------------------------
__global__ void k_sense_prepare(int64_t nx, int64_t ny, int64_t nc, const float2 *__restrict__ in,
                                float2 *out, const uint8_t *__restrict__ lines,
                                const float2 *__restrict__ w)
{
    const int64_t nxy = nx * ny;
    const int64_t p = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= nxy) return;
    const int64_t y = p / nx;
    if (lines && !lines[y]) {
        for (int64_t c = 0; c < nc; c++) out[p + nxy * c] = make_float2(0.f, 0.f);
        return;
    }
    if (in != out)
        for (int64_t c = 0; c < nc; c++) out[p + nxy * c] = in[p + nxy * c];
    if (!w) return;
    // out[r] = sum_{c <= r} W[r, c] out[c], rows from the last (in place).
    for (int64_t r = nc - 1; r >= 0; r--) {
        double sr = 0, si = 0;
        for (int64_t c = 0; c <= r; c++) {
            float2 m = w[r * nc + c], v = out[p + nxy * c];
            sr += (double)m.x * v.x - (double)m.y * v.y;
            si += (double)m.x * v.y + (double)m.y * v.x;
        }
        out[p + nxy * r] = make_float2((float)sr, (float)si);
    }
}

// ---- unfolding -------------------------------------------------------------------------------
// RM: compile-time capacity; EXACT: R == RM (fully unrolled, registers).
template <int RM, bool EXACT>
__global__ void k_sense_unfold(int64_t nx, int64_t ny, int64_t nc, int rt_r, int offset,
                               double lambda, const float2 *__restrict__ maps,
                               const float2 *__restrict__ al, float2 *__restrict__ img,
                               float *__restrict__ gf, unsigned long long *singular)
{
    // R is a compile-time constant when EXACT (loops unroll, arrays stay in registers).
    const int R = EXACT ? RM : rt_r;
    const int64_t ny_r = ny / R, nxy = nx * ny;
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nx * ny_r) return;
    const int64_t x = t % nx, y0 = t / nx;

    double2 nm[RM * (RM + 1) / 2]; // lower triangle packed by rows: (m, n <= m) at m(m+1)/2 + n
    double2 b[RM];
    double n0[RM];
    bool act[RM];
#pragma unroll
    for (int i = 0; i < R * (R + 1) / 2; i++) nm[i] = zmk(0, 0);
#pragma unroll
    for (int i = 0; i < R; i++) b[i] = zmk(0, 0);

    for (int64_t c = 0; c < nc; c++) {
        double2 s[RM];
#pragma unroll
        for (int m = 0; m < R; m++) {
            const int64_t q = x + nx * (y0 + ny_r * m) + nxy * c;
            const float2 v = maps[q];
            s[m] = zmk(v.x, v.y);
            if (al) {
                const float2 a = al[q];
                b[m] = kri_cadd(b[m], kri_cmulc(s[m], zmk(a.x, a.y)));
            }
        }
#pragma unroll
        for (int m = 0; m < R; m++)
#pragma unroll
            for (int n = 0; n <= m; n++)
                nm[m * (m + 1) / 2 + n] = kri_cadd(nm[m * (m + 1) / 2 + n], kri_cmulc(s[m], s[n]));
    }
    // PSF phases and scale 1/R; inactive unknowns (zero sensitivity) become identity rows, which
    // leaves the other unknowns exactly as if they had been removed.
    long long hm = ((long long)offset - (long long)(ny / 2)) % R;
    if (hm < 0) hm += R;
    const double invr = 1.0 / R;
    double dmax = 0;
#pragma unroll
    for (int m = 0; m < R; m++) act[m] = nm[m * (m + 1) / 2 + m].x > 0;
#pragma unroll
    for (int m = 0; m < R; m++) {
#pragma unroll
        for (int n = 0; n <= m; n++) {
            double2 v = nm[m * (m + 1) / 2 + n];
            if (!act[m] || !act[n]) {
                v = zmk(m == n ? 1.0 : 0.0, 0.0);
                if (m == n) n0[m] = 0;
            } else {
                const double ang = 6.283185307179586 * (double)((hm * (m - n)) % R) * invr;
                double sn, cs;
                sincos(ang, &sn, &cs);
                v = kri_cscale(kri_cmul(zmk(cs, sn), v), invr);
                if (m == n) {
                    n0[m] = v.x;
                    v = zmk(v.x + lambda, 0.0);
                    if (v.x > dmax) dmax = v.x;
                }
            }
            nm[m * (m + 1) / 2 + n] = v;
        }
        if (!act[m]) b[m] = zmk(0, 0);
    }
    // Cholesky in place (packed lower).
    bool bad = false;
    const double tol = 1e-12 * dmax;
#pragma unroll
    for (int j = 0; j < R; j++) {
        double d = kri_chol_pivot(nm, j, 0, 1);
        if (!act[j])
            d = 1.0; // identity row: exactly 1 (its L row entries are 0)
        else if (!(d > tol)) {
            bad = true;
            d = 1.0;
        }
        kri_chol_column(nm, j, R, 0, 1, sqrt(d));
    }
    if (bad) {
        if (singular) atomicAdd(singular, 1ull);
#pragma unroll
        for (int m = 0; m < R; m++) {
            const int64_t p = x + nx * (y0 + ny_r * m);
            if (img) img[p] = make_float2(0.f, 0.f);
            if (gf) gf[p] = act[m] ? __int_as_float(0x7f800000) : 0.f;
        }
        return;
    }
    if (img) {
        // forward L z = b, back L^H x = z
#pragma unroll
        for (int i = 0; i < R; i++) {
            double2 s = b[i];
#pragma unroll
            for (int k = 0; k < i; k++) s = kri_csub(s, kri_cmul(nm[i * (i + 1) / 2 + k], b[k]));
            b[i] = kri_cscale(s, 1.0 / nm[i * (i + 1) / 2 + i].x);
        }
#pragma unroll
        for (int i = R - 1; i >= 0; i--) {
            double2 s = b[i];
#pragma unroll
            for (int k = i + 1; k < R; k++)
                s = kri_csub(s, kri_cmulc(nm[k * (k + 1) / 2 + i], b[k]));
            b[i] = kri_cscale(s, 1.0 / nm[i * (i + 1) / 2 + i].x);
        }
#pragma unroll
        for (int m = 0; m < R; m++) {
            const int64_t p = x + nx * (y0 + ny_r * m);
            img[p] = act[m] ? make_float2((float)b[m].x, (float)b[m].y) : make_float2(0.f, 0.f);
        }
    }
    if (gf) {
        // Linv in place (packed lower): columns from the last, rows from the bottom.
#pragma unroll
        for (int j = R - 1; j >= 0; j--) {
            const double ljj = nm[j * (j + 1) / 2 + j].x;
#pragma unroll
            for (int i = R - 1; i > j; i--)
                nm[i * (i + 1) / 2 + j] = linv_entry(nm, i, j, 0, 1, ljj);
            nm[j * (j + 1) / 2 + j] = zmk(1.0 / ljj, 0);
        }
#pragma unroll
        for (int i = 0; i < R; i++) {
            const int64_t p = x + nx * (y0 + ny_r * i);
            if (!act[i]) {
                gf[p] = 0.f;
                continue;
            }
            gf[p] = (float)sqrt(kri_chol_gvar(nm, i, R, 0, 1, lambda) * n0[i]);
        }
    }
}

// ---- general path: one block per column --------------------------------------------------------
__global__ void k_sense_general(int64_t nx, int64_t ny, int64_t nc, int64_t x0, double lambda,
                                const double2 *__restrict__ psf, const float2 *__restrict__ maps,
                                const float2 *__restrict__ al, float2 *__restrict__ img,
                                float *__restrict__ gf, double2 *scr, int *iscr,
                                unsigned long long *singular)
{
    const int64_t x = x0 + blockIdx.x;
    if (x >= nx) return; // uniform for the whole block
    const int n = (int)ny, tid = threadIdx.x, T = blockDim.x;
    const int64_t nxy = nx * ny;
    double2 *N = scr + (size_t)blockIdx.x * ((size_t)n * n + 3 * (size_t)n);
    double2 *b = N + (size_t)n * n, *t = b + n, *d0 = t + n;
    int *ix = iscr + (size_t)blockIdx.x * n;
    __shared__ int s_na, s_bad;
    __shared__ double s_dmax;
    // active rows (non-zero sensitivity), compacted by thread 0 in place
    for (int y = tid; y < n; y += T) {
        double e = 0;
        for (int64_t c = 0; c < nc; c++) {
            const float2 v = maps[x + nx * y + nxy * c];
            e += (double)v.x * v.x + (double)v.y * v.y;
        }
        ix[y] = e > 0;
    }
    __syncthreads();
    if (tid == 0) {
        int na = 0;
        for (int y = 0; y < n; y++)
            if (ix[y]) ix[na++] = y;
        s_na = na;
        s_bad = 0;
    }
    __syncthreads();
    const int na = s_na;
    // normal matrix (lower triangle) and right-hand side
    for (int64_t q = tid; q < (int64_t)na * na; q += T) {
        const int i = (int)(q / na), j = (int)(q % na);
        if (j > i) continue;
        const int64_t yi = ix[i], yj = ix[j];
        double2 s = zmk(0, 0);
        for (int64_t c = 0; c < nc; c++) {
            const float2 a = maps[x + nx * yi + nxy * c], e = maps[x + nx * yj + nxy * c];
            s = kri_cadd(s, kri_cmulc(zmk(a.x, a.y), zmk(e.x, e.y)));
        }
        int dd = (int)(yi - yj);
        if (dd < 0) dd += n;
        double2 v = kri_cmul(psf[dd], s);
        if (i == j) {
            d0[i] = zmk(v.x, 0);
            v = zmk(v.x + lambda, 0);
        }
        N[i + (size_t)n * j] = v;
    }
    if (al)
        for (int i = tid; i < na; i += T) {
            const int64_t yi = ix[i];
            double2 s = zmk(0, 0);
            for (int64_t c = 0; c < nc; c++) {
                const float2 a = maps[x + nx * yi + nxy * c], e = al[x + nx * yi + nxy * c];
                s = kri_cadd(s, kri_cmulc(zmk(a.x, a.y), zmk(e.x, e.y)));
            }
            b[i] = s;
        }
    __syncthreads();
    if (tid == 0) {
        double m = 0;
        for (int i = 0; i < na; i++) m = fmax(m, N[i + (size_t)n * i].x);
        s_dmax = m;
    }
    __syncthreads();
    // right-looking Cholesky: the updates and scaling of kri_chol_entry, a step at a time
    for (int k = 0; k < na; k++) {
        if (tid == 0) {
            double d = N[k + (size_t)n * k].x;
            if (!(d > 1e-12 * s_dmax)) {
                s_bad = 1;
                d = 1;
            }
            N[k + (size_t)n * k] = kri_chol_real(sqrt(d));
        }
        __syncthreads();
        if (s_bad) break;
        const double inv = 1.0 / N[k + (size_t)n * k].x;
        for (int i = k + 1 + tid; i < na; i += T)
            N[i + (size_t)n * k] = kri_chol_scale(N[i + (size_t)n * k], inv);
        __syncthreads();
        const int m = na - k - 1;
        for (int64_t q = tid; q < (int64_t)m * m; q += T) {
            const int i = k + 1 + (int)(q / m), j = k + 1 + (int)(q % m);
            if (j > i) continue;
            N[i + (size_t)n * j] =
                kri_chol_fms(N[i + (size_t)n * j], N[i + (size_t)n * k], N[j + (size_t)n * k]);
        }
        __syncthreads();
    }
    // zero the column, then write the active pixels
    for (int y = tid; y < n; y += T) {
        if (img) img[x + nx * y] = make_float2(0.f, 0.f);
        if (gf) gf[x + nx * y] = 0.f;
    }
    __syncthreads();
    if (s_bad) {
        if (tid == 0 && singular) atomicAdd(singular, 1ull);
        if (gf)
            for (int i = tid; i < na; i += T) gf[x + nx * ix[i]] = __int_as_float(0x7f800000);
        return;
    }
    if (img && al) {
        for (int k = 0; k < na; k++) { // forward: L z = b
            if (tid == 0) b[k] = kri_cscale(b[k], 1.0 / N[k + (size_t)n * k].x);
            __syncthreads();
            const double2 bk = b[k];
            for (int i = k + 1 + tid; i < na; i += T)
                b[i] = kri_csub(b[i], kri_cmul(N[i + (size_t)n * k], bk));
            __syncthreads();
        }
        for (int k = na - 1; k >= 0; k--) { // back: L^H x = z
            if (tid == 0) b[k] = kri_cscale(b[k], 1.0 / N[k + (size_t)n * k].x);
            __syncthreads();
            const double2 bk = b[k];
            for (int i = tid; i < k; i += T)
                b[i] = kri_csub(b[i], kri_cmulc(N[k + (size_t)n * i], bk));
            __syncthreads();
        }
        for (int i = tid; i < na; i += T)
            img[x + nx * ix[i]] = make_float2((float)b[i].x, (float)b[i].y);
    }
    if (!gf) return;
    // Linv in place, column by column from the last (new column computed into t, then stored)
    for (int j = na - 1; j >= 0; j--) {
        const double ljj = N[j + (size_t)n * j].x;
        for (int i = j + 1 + tid; i < na; i += T) t[i] = linv_entry(N, i, j, n, 0, ljj);
        __syncthreads();
        for (int i = j + 1 + tid; i < na; i += T) N[i + (size_t)n * j] = t[i];
        if (tid == 0) N[j + (size_t)n * j] = zmk(1.0 / ljj, 0);
        __syncthreads();
    }
    for (int i = tid; i < na; i += T)
        gf[x + nx * ix[i]] = (float)sqrt(kri_chol_gvar(N, i, na, n, 0, lambda) * d0[i].x);
}

template <int RM, bool EXACT>
kr_status launch_unfold(const kri_sense_desc *g, const float *maps, const float *al, float *img,
                        float *gf, unsigned long long *sing, cudaStream_t s)
{
    const int64_t n = g->nx * (g->ny / g->accel);
    k_sense_unfold<RM, EXACT><<<grid_for(n), kThreads, 0, s>>>(
        g->nx, g->ny, g->nc, g->accel, g->offset, g->lambda, (const float2 *)maps,
        (const float2 *)al, (float2 *)img, gf, sing);
    return kri_cu_launched("k_sense_unfold");
}

kr_status sense_unfold(const kri_sense_desc *g, const float *maps, const float *aliased,
                       float *image, float *gfac, unsigned long long *singular, cudaStream_t s)
{
    switch (g->accel) {
    case 1: return launch_unfold<1, true>(g, maps, aliased, image, gfac, singular, s);
    case 2: return launch_unfold<2, true>(g, maps, aliased, image, gfac, singular, s);
    case 3: return launch_unfold<3, true>(g, maps, aliased, image, gfac, singular, s);
    case 4: return launch_unfold<4, true>(g, maps, aliased, image, gfac, singular, s);
    case 5: return launch_unfold<5, true>(g, maps, aliased, image, gfac, singular, s);
    case 6: return launch_unfold<6, true>(g, maps, aliased, image, gfac, singular, s);
    case 7: return launch_unfold<7, true>(g, maps, aliased, image, gfac, singular, s);
    case 8: return launch_unfold<8, true>(g, maps, aliased, image, gfac, singular, s);
    default: break;
    }
    if (g->accel <= 16) return launch_unfold<16, false>(g, maps, aliased, image, gfac, singular, s);
    if (g->accel <= KRI_SENSE_CUDA_MAX_R)
        return launch_unfold<KRI_SENSE_CUDA_MAX_R, false>(g, maps, aliased, image, gfac, singular,
                                                          s);
    return kri_fail(KR_ERR_NOT_SUPPORTED, "SENSE on the GPU supports R <= %d (got %d)",
                    KRI_SENSE_CUDA_MAX_R, g->accel);
}

kr_status sense_general(const kri_sense_desc *g, int64_t x0, int64_t ncols, const double *psf,
                        const float *maps, const float *aliased, float *image, float *gfac,
                        double *scr, int *iscr, unsigned long long *singular, cudaStream_t s)
{
    if (ncols < 1 || ncols > 2147483647LL)
        return kri_fail(KR_ERR_INTERNAL, "SENSE general path: %lld columns per launch",
                        (long long)ncols);
    k_sense_general<<<(unsigned)ncols, 256, 0, s>>>(
        g->nx, g->ny, g->nc, x0, g->lambda, (const double2 *)psf, (const float2 *)maps,
        (const float2 *)aliased, (float2 *)image, gfac, (double2 *)scr, iscr, singular);
    return kri_cu_launched("k_sense_general");
}

// ---- the CUDA table ----------------------------------------------------------------------------
// The device state of one plan: the line flags, the whitener (c64 row-major W[r * nc + c]) and
// the singular-system counter; the general path's PSF (double pairs [ny]) and per-column
// scratch for `batch` columns per launch.
struct sense_dev {
    kri_sense_desc d;
    int device;
    uint8_t *lines;
    float *w;
    unsigned long long *singular;
    double *psf, *scr;
    int *iscr;
    int64_t batch;
};

void cuda_destroy(void *state)
{
    sense_dev *s = (sense_dev *)state;
    if (!s) return;
    kri_device_free(s->lines);
    kri_device_free(s->w);
    kri_device_free(s->singular);
    kri_device_free(s->psf);
    kri_device_free(s->scr);
    kri_device_free(s->iscr);
    kri_free(s);
}

// Device copies of a host array (bytes).
kr_status upload(void **dst, const void *src, size_t bytes, const sense_dev *s, const char *what)
{
    KRI_TRY(kri_device_alloc(dst, bytes, s->device, what));
    return kri_memcpy(*dst, KR_DEVICE, src, KR_HOST, bytes, s->d.ctx);
}

kr_status cuda_create(const kri_sense_desc *d, void **state)
{
    const char *fn = "kr_sense_plan_create";
    const int64_t nx = d->nx, ny = d->ny, nc = d->nc;
    if (d->method == KR_SENSE_GENERAL && ny > 8192)
        return kri_fail(KR_ERR_NOT_SUPPORTED,
                        "%s: the CUDA general path handles up to 8192 lines (got %lld); use the "
                        "CPU backend or CG-SENSE (kr_sense_linop_create)",
                        fn, (long long)ny);
    if (d->accel > KRI_SENSE_CUDA_MAX_R)
        return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: the CUDA backend supports R <= %d (got %d)", fn,
                        KRI_SENSE_CUDA_MAX_R, d->accel);
    sense_dev *s = (sense_dev *)kri_calloc(1, sizeof *s);
    if (!s) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a SENSE plan");
    s->d = *d;
    s->device = kr_ctx_device(d->ctx);
    kr_status st = upload((void **)&s->lines, d->lines, (size_t)ny, s, "SENSE line mask");
    if (st == KR_OK)
        st = kri_device_alloc((void **)&s->singular, sizeof(unsigned long long), s->device,
                              "SENSE counter");
    if (st == KR_OK) st = kri_device_memset0(s->singular, sizeof(unsigned long long), d->ctx);
    if (st == KR_OK && d->method == KR_SENSE_GENERAL) {
        /* PSF and per-column scratch: batches of columns within ~512 MB */
        double *psf = NULL;
        st = kri_alloc((void **)&psf, 2 * sizeof(double) * (size_t)ny, "SENSE PSF");
        if (st == KR_OK) {
            kri_sense_psf(d->lines, ny, psf);
            st = upload((void **)&s->psf, psf, 2 * sizeof(double) * (size_t)ny, s, "SENSE PSF");
            kri_free(psf);
        }
        size_t per = (size_t)(ny * ny + 3 * ny) * 2 * sizeof(double);
        int64_t b = (int64_t)(((size_t)512 << 20) / per);
        s->batch = b < 1 ? 1 : (b > nx ? nx : b);
        if (st == KR_OK)
            st = kri_device_alloc((void **)&s->scr, per * (size_t)s->batch, s->device,
                                  "SENSE scratch");
        if (st == KR_OK)
            st = kri_device_alloc((void **)&s->iscr, sizeof(int) * (size_t)(ny * s->batch),
                                  s->device, "SENSE scratch");
    }
    if (st == KR_OK && d->w) {
        /* row-major c64 W[r * nc + c] */
        float *hw = NULL;
        st = kri_alloc((void **)&hw, sizeof(float) * 2 * (size_t)(nc * nc), "whitener");
        if (st == KR_OK) {
            for (int64_t r = 0; r < nc; r++)
                for (int64_t c = 0; c < nc; c++) {
                    hw[2 * (r * nc + c)] = (float)d->w[2 * (r + nc * c)];
                    hw[2 * (r * nc + c) + 1] = (float)d->w[2 * (r + nc * c) + 1];
                }
            st = upload((void **)&s->w, hw, sizeof(float) * 2 * (size_t)(nc * nc), s,
                        "SENSE whitener");
            kri_free(hw);
        }
    }
    if (st != KR_OK) {
        cuda_destroy(s);
        return st;
    }
    *state = s;
    return KR_OK;
}

kr_status cuda_prepare(void *state, const float *src, float *buf, int mask)
{
    const sense_dev *s = (const sense_dev *)state;
    const kri_sense_desc *g = &s->d;
    KRI_TRY(kri_cuda_set_device(g->ctx));
    const int64_t nxy = g->nx * g->ny;
    k_sense_prepare<<<grid_for(nxy), kThreads, 0, kri_cu_stream(g->ctx)>>>(
        g->nx, g->ny, g->nc, (const float2 *)src, (float2 *)buf, mask ? s->lines : NULL,
        (const float2 *)s->w);
    return kri_cu_launched("k_sense_prepare");
}

kr_status cuda_solve(void *state, const float *maps, const float *aliased, float *image,
                     float *gfac)
{
    const sense_dev *s = (const sense_dev *)state;
    const kri_sense_desc *g = &s->d;
    const cudaStream_t st = kri_cu_stream(g->ctx);
    KRI_TRY(kri_cuda_set_device(g->ctx));
    KRI_TRY(kri_device_memset0(s->singular, sizeof(unsigned long long), g->ctx));
    if (g->method == KR_SENSE_GENERAL) {
        for (int64_t x0 = 0; x0 < g->nx; x0 += s->batch) {
            int64_t nb = g->nx - x0 < s->batch ? g->nx - x0 : s->batch;
            KRI_TRY(sense_general(g, x0, nb, s->psf, maps, aliased, image, gfac, s->scr, s->iscr,
                                  s->singular, st));
        }
        return KR_OK;
    }
    return sense_unfold(g, maps, aliased, image, gfac, s->singular, st);
}

kr_status cuda_singular(const void *state, int64_t *n)
{
    const sense_dev *s = (const sense_dev *)state;
    unsigned long long c = 0;
    KRI_TRY(kri_memcpy(&c, KR_HOST, s->singular, KR_DEVICE, sizeof c, s->d.ctx));
    *n = (int64_t)c;
    return KR_OK;
}

} // namespace

extern "C" const kri_sense_backend kri_sense_cuda = {
    {"cuda", true}, cuda_create, cuda_destroy, cuda_prepare, cuda_solve, cuda_singular};
