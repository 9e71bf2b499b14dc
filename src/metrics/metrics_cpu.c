/* Metrics on the CPU (kri_metrics_cpu, metrics_internal.h): one-pass error statistics and SSIM,
 * OpenMP with fixed chunking.
 *
 * Determinism: the statistics reduction splits the n elements into chunks whose size depends
 * only on n; each chunk is summed sequentially into its own partial and the partials are folded
 * in chunk order. SSIM writes one partial sum per output row (each row summed sequentially) and
 * folds the rows in order. Neither depends on the thread count. */
#include "metrics_internal.h"

#include <math.h>
#include <omp.h>
#include <string.h>

/* Elements [off, off + n) of a contiguous host array as float64: real types by value, complex
 * types by magnitude. */
static void kri_load_mag(const kr_array *a, int64_t off, int64_t n, double *out)
{
#define KRI_LOAD_REAL(T)                                                                       \
    {                                                                                          \
        const T *p = (const T *)a->data + off;                                                 \
        for (int64_t i = 0; i < n; i++) out[i] = (double)p[i];                                 \
        break;                                                                                 \
    }
    switch (a->dtype) {
    case KR_F32: KRI_LOAD_REAL(float)
    case KR_F64: KRI_LOAD_REAL(double)
    case KR_U8: KRI_LOAD_REAL(uint8_t)
    case KR_U16: KRI_LOAD_REAL(uint16_t)
    case KR_I16: KRI_LOAD_REAL(int16_t)
    case KR_C64: {
        const float *p = (const float *)a->data + 2 * off;
        for (int64_t i = 0; i < n; i++) out[i] = hypot((double)p[2 * i], (double)p[2 * i + 1]);
        break;
    }
    case KR_C128: {
        const double *p = (const double *)a->data + 2 * off;
        for (int64_t i = 0; i < n; i++) out[i] = hypot(p[2 * i], p[2 * i + 1]);
        break;
    }
    default:
        for (int64_t i = 0; i < n; i++) out[i] = NAN;
        break;
    }
#undef KRI_LOAD_REAL
}

/* ---- error statistics ----------------------------------------------------------------------- */
#define KRI_STATS_MIN_CHUNK 4096
#define KRI_STATS_MAX_CHUNKS 65536
#define KRI_STATS_BLOCK 256

static void kri_stats_range(const kr_array *x, const kr_array *ref, int64_t lo, int64_t hi,
                            kri_metrics_stats *st)
{
    double bx[KRI_STATS_BLOCK], br[KRI_STATS_BLOCK];
    kri_metrics_stats_init(st);
    for (int64_t b = lo; b < hi; b += KRI_STATS_BLOCK) {
        int64_t m = hi - b < KRI_STATS_BLOCK ? hi - b : KRI_STATS_BLOCK;
        kri_load_mag(x, b, m, bx);
        kri_load_mag(ref, b, m, br);
        for (int64_t i = 0; i < m; i++) {
            double d = bx[i] - br[i];
            st->sse += d * d;
            st->sref2 += br[i] * br[i];
            st->maxerr = fmax(st->maxerr, fabs(d));
            st->rmin = fmin(st->rmin, br[i]);
            st->rmax = fmax(st->rmax, br[i]);
        }
    }
}

static kr_status kri_cpu_metrics_stats(const kr_ctx *ctx, const kr_array *x, const kr_array *ref,
                                       kri_metrics_stats *out)
{
    const int nthreads = kri_threads(ctx);
    int64_t n = kr_array_numel(x);
    int64_t chunk = (n + KRI_STATS_MAX_CHUNKS - 1) / KRI_STATS_MAX_CHUNKS;
    if (chunk < KRI_STATS_MIN_CHUNK) chunk = KRI_STATS_MIN_CHUNK;
    int64_t nchunks = (n + chunk - 1) / chunk;
    kri_metrics_stats *part;
    KRI_TRY(kri_alloc((void **)&part, (size_t)nchunks * sizeof *part, "metric partial sums"));
#pragma omp parallel for num_threads(nthreads) schedule(static)
    for (int64_t c = 0; c < nchunks; c++) {
        int64_t lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;
        kri_stats_range(x, ref, lo, hi, &part[c]);
    }
    kri_metrics_stats_init(out);
    for (int64_t c = 0; c < nchunks; c++) kri_metrics_stats_combine(out, &part[c]);
    kri_free(part);
    return KR_OK;
}

/* ---- SSIM ----------------------------------------------------------------------------------- */
/* The five Gaussian-filtered maps (mean x, mean ref, mean x^2, mean ref^2, mean x*ref) are
 * needed only on the valid region [R, n-R) of each axis, and there the 11-tap window never leaves
 * the image, so no boundary extension is ever read: the result equals scipy's 'reflect' mode
 * (or any other) after skimage's crop of R pixels. The pass along x (fastest axis) writes the
 * five maps for every row and the valid columns; the pass along y then forms SSIM per pixel. */
enum { KRI_MX, KRI_MR, KRI_MXX, KRI_MRR, KRI_MXR, KRI_NMAPS };

static kr_status kri_cpu_ssim_sum(const kr_ctx *ctx, const kr_array *x, const kr_array *ref,
                                  int64_t nx, int64_t ny, int64_t nslices, double c1, double c2,
                                  double *sum)
{
    const int nthreads = kri_threads(ctx);
    const int R = KRI_SSIM_RADIUS;
    const int64_t wx = nx - 2 * R, wy = ny - 2 * R;
    double w[KRI_SSIM_RADIUS + 1];
    kri_ssim_weights(w);

    double *maps = NULL, *scratch = NULL, *rowsum = NULL;
    kr_status s = kri_alloc((void **)&maps, (size_t)KRI_NMAPS * (size_t)(ny * wx) * sizeof(double),
                            "SSIM filtered maps");
    if (s == KR_OK)
        s = kri_alloc((void **)&scratch, (size_t)nthreads * 2 * (size_t)nx * sizeof(double),
                      "SSIM row buffers");
    if (s == KR_OK) s = kri_alloc((void **)&rowsum, (size_t)wy * sizeof(double), "SSIM row sums");
    if (s != KR_OK) {
        kri_free(maps);
        kri_free(scratch);
        return s;
    }
    const int64_t plane = ny * wx;
    double total = 0.0;
    for (int64_t sl = 0; sl < nslices; sl++) {
        const int64_t base = sl * nx * ny;
#pragma omp parallel num_threads(nthreads)
        {
            double *bx = scratch + (size_t)omp_get_thread_num() * 2 * (size_t)nx;
            double *br = bx + nx;
#pragma omp for schedule(static)
            for (int64_t iy = 0; iy < ny; iy++) {
                kri_load_mag(x, base + iy * nx, nx, bx);
                kri_load_mag(ref, base + iy * nx, nx, br);
                double *o = maps + iy * wx;
                for (int64_t j = 0; j < wx; j++) {
                    const double *px = bx + j + R, *pr = br + j + R;
                    double hx = w[0] * px[0], hr = w[0] * pr[0];
                    double hxx = w[0] * (px[0] * px[0]), hrr = w[0] * (pr[0] * pr[0]);
                    double hxr = w[0] * (px[0] * pr[0]);
                    for (int k = R; k >= 1; k--) { /* outer taps first, as scipy */
                        double xa = px[-k], xb = px[k], ra = pr[-k], rb = pr[k];
                        hx += w[k] * (xa + xb);
                        hr += w[k] * (ra + rb);
                        hxx += w[k] * (xa * xa + xb * xb);
                        hrr += w[k] * (ra * ra + rb * rb);
                        hxr += w[k] * (xa * ra + xb * rb);
                    }
                    o[KRI_MX * plane + j] = hx;
                    o[KRI_MR * plane + j] = hr;
                    o[KRI_MXX * plane + j] = hxx;
                    o[KRI_MRR * plane + j] = hrr;
                    o[KRI_MXR * plane + j] = hxr;
                }
            }
#pragma omp for schedule(static)
            for (int64_t i = 0; i < wy; i++) {
                const double *c = maps + (i + R) * wx; /* centre row of the window */
                double acc = 0.0;
                for (int64_t j = 0; j < wx; j++) {
                    double v[KRI_NMAPS];
                    for (int m = 0; m < KRI_NMAPS; m++) {
                        const double *p = c + m * plane + j;
                        double h = w[0] * p[0];
                        for (int k = R; k >= 1; k--) h += w[k] * (p[-k * wx] + p[k * wx]);
                        v[m] = h;
                    }
                    double ux = v[KRI_MX], ur = v[KRI_MR];
                    double vx = v[KRI_MXX] - ux * ux, vr = v[KRI_MRR] - ur * ur;
                    double vxr = v[KRI_MXR] - ux * ur;
                    double num = (2.0 * ux * ur + c1) * (2.0 * vxr + c2);
                    double den = (ux * ux + ur * ur + c1) * (vx + vr + c2);
                    acc += num / den;
                }
                rowsum[i] = acc;
            }
        }
        for (int64_t i = 0; i < wy; i++) total += rowsum[i];
    }
    kri_free(maps);
    kri_free(scratch);
    kri_free(rowsum);
    *sum = total;
    return KR_OK;
}

const kri_metrics_backend kri_metrics_cpu = {{"cpu", true}, kri_cpu_metrics_stats,
                                             kri_cpu_ssim_sum};
