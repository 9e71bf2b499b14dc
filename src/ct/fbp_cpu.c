/* CPU backprojection of filtered pair rows (see fbp_internal.h), pixel-driven with linear
 * interpolation. OpenMP over fixed blocks of KRI_ROWS image rows; every pixel is summed over the
 * views in view order by the same code whatever the thread count, so the threaded result is
 * bit-identical to the serial one. Inside a block the loops run view by view over the block's
 * rows, so one filtered view (a few kB) stays in L1 while the block's rows accumulate. */
#include "fbp_internal.h"

#include <math.h>
#include <string.h>

#define KRI_ROWS 16

/* Parallel beam: the padded detector coordinate k(x) = c + a1 x is monotone in x, so the pixels
 * of a row that see the detector (1 < k < ndet + 2) form one interval; it is found with the
 * same float expression the loop uses, and the loop then needs no bounds test. */
#define KRI_DEFINE_PAR(T)                                                                      \
    static inline int kri_valid_##T(T c, T a1, int64_t x, T hi)                                \
    {                                                                                          \
        T k = c + a1 * (T)x;                                                                   \
        return k > (T)1 && k < hi;                                                             \
    }                                                                                          \
    static void kri_interval_##T(T c, T a1, T hi, int64_t nx, int64_t *xs, int64_t *xe)        \
    {                                                                                          \
        int64_t s, e;                                                                          \
        if (a1 == (T)0) {                                                                      \
            s = 0;                                                                             \
            e = kri_valid_##T(c, a1, 0, hi) ? nx : 0;                                          \
        } else {                                                                               \
            double xa = (1.0 - (double)c) / (double)a1, xb = ((double)hi - (double)c) / (double)a1; \
            double lo = fmin(xa, xb), up = fmax(xa, xb);                                       \
            lo = fmax(-1.0, fmin(lo, (double)nx + 1));                                         \
            up = fmax(-1.0, fmin(up, (double)nx + 1));                                         \
            s = (int64_t)floor(lo);                                                            \
            e = (int64_t)ceil(up) + 1;                                                         \
            if (s < 0) s = 0;                                                                  \
            if (e > nx) e = nx;                                                                \
            if (e < s) e = s;                                                                  \
            while (s < e && !kri_valid_##T(c, a1, s, hi)) s++;                                 \
            while (e > s && !kri_valid_##T(c, a1, e - 1, hi)) e--;                             \
            if (s == e) { /* nothing found near the estimate: the row misses the detector */   \
                *xs = *xe = 0;                                                                 \
                return;                                                                        \
            }                                                                                  \
            while (s > 0 && kri_valid_##T(c, a1, s - 1, hi)) s--;                              \
            while (e < nx && kri_valid_##T(c, a1, e, hi)) e++;                                 \
        }                                                                                      \
        *xs = s;                                                                               \
        *xe = e;                                                                               \
    }

KRI_DEFINE_PAR(float)
KRI_DEFINE_PAR(double)

#define KRI_DEFINE_BP(T, ATAN2)                                                                \
    static void kri_bp_##T(kri_bp_kind kind, const kri_bp_view *views, int64_t nviews,         \
                           const T *pairs, int64_t ndet, T *img, int64_t nx, int64_t ny,       \
                           int clamp, int nthreads)                                            \
    {                                                                                          \
        const int64_t rl = 2 * KRI_PAD_ROW(ndet);                                              \
        const int64_t nblk = (ny + KRI_ROWS - 1) / KRI_ROWS;                                   \
        const T hi = (T)(ndet + KRI_PAD);                                                      \
        _Pragma("omp parallel for num_threads(nthreads) schedule(dynamic, 1)")                 \
        for (int64_t blk = 0; blk < nblk; blk++) {                                             \
            const int64_t y0 = blk * KRI_ROWS, y1 = y0 + KRI_ROWS < ny ? y0 + KRI_ROWS : ny;    \
            memset(img + y0 * nx, 0, (size_t)((y1 - y0) * nx) * sizeof(T));                    \
            for (int64_t v = 0; v < nviews; v++) {                                             \
                const T *row = pairs + v * rl;                                                 \
                const kri_bp_view *b = &views[v];                                              \
                const T a0 = (T)b->a0, a1 = (T)b->a1, a2 = (T)b->a2;                           \
                if (kind == KRI_BP_PAR) {                                                      \
                    for (int64_t y = y0; y < y1; y++) {                                        \
                        const T c = a0 + a2 * (T)y;                                            \
                        int64_t xs, xe;                                                        \
                        kri_interval_##T(c, a1, hi, nx, &xs, &xe);                             \
                        T *acc = img + y * nx;                                                 \
                        for (int64_t x = xs; x < xe; x++) {                                    \
                            const T k = c + a1 * (T)x;                                         \
                            const int i = (int)k;                                              \
                            const T f = k - (T)i;                                              \
                            acc[x] += row[2 * i] + f * row[2 * i + 1];                         \
                        }                                                                      \
                    }                                                                          \
                    continue;                                                                  \
                }                                                                              \
                const T b0 = (T)b->b0, b1 = (T)b->b1, b2 = (T)b->b2;                           \
                const T k0 = (T)b->k0, cc = (T)b->c;                                           \
                for (int64_t y = y0; y < y1; y++) {                                            \
                    const T ca = a0 + a2 * (T)y, cb = b0 + b2 * (T)y;                          \
                    T *acc = img + y * nx;                                                     \
                    for (int64_t x = 0; x < nx; x++) {                                         \
                        const T A = ca + a1 * (T)x, B = cb + b1 * (T)x;                        \
                        T k, w;                                                                \
                        if (kind == KRI_BP_FLAT) {                                             \
                            const T rb = (T)1 / B;                                             \
                            k = A * rb + k0;                                                   \
                            w = rb * rb;                                                       \
                        } else {                                                               \
                            k = ATAN2(A, B) * cc + k0;                                         \
                            w = (T)1 / (A * A + B * B);                                        \
                        }                                                                      \
                        if (k > (T)1 && k < hi) {                                              \
                            const int i = (int)k;                                              \
                            const T f = k - (T)i;                                              \
                            acc[x] += w * (row[2 * i] + f * row[2 * i + 1]);                   \
                        }                                                                      \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
            if (clamp)                                                                         \
                for (int64_t i = y0 * nx; i < y1 * nx; i++)                                    \
                    if (img[i] < (T)0) img[i] = (T)0;                                          \
        }                                                                                      \
    }

KRI_DEFINE_BP(float, atan2f)
KRI_DEFINE_BP(double, atan2)

kr_status kri_cpu_fbp_backproject(int f64, kri_bp_kind kind, const kri_bp_view *views,
                                  int64_t nviews, const void *pairs, int64_t ndet, void *image,
                                  int64_t nx, int64_t ny, int clamp, int nthreads)
{
    if (f64)
        kri_bp_double(kind, views, nviews, (const double *)pairs, ndet, (double *)image, nx, ny,
                      clamp, nthreads);
    else
        kri_bp_float(kind, views, nviews, (const float *)pairs, ndet, (float *)image, nx, ny,
                     clamp, nthreads);
    return KR_OK;
}
