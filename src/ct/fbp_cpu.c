/* 2-D FBP on the CPU (kri_fbp_cpu, fbp_internal.h): backprojection of filtered rows (PLANAR),
 * pixel-driven with linear interpolation. OpenMP over fixed blocks of KRI_ROWS image rows; every
 * pixel is summed over the views in view order by the same code whatever the thread count, so
 * the threaded result is bit-identical to the serial one. Inside a block the loops run view by
 * view over the block's rows, so one filtered view (a few kB) stays in L1 while the block's rows
 * accumulate. */
#include "ct/fbp_internal.h"

#include <math.h>
#include <string.h>

#define KRI_ROWS 16

/* Parallel beam: the padded detector coordinate k(x) = c + a1 x is monotone in x, so the pixels
 * of a row where the filtered projection is not zero (0 < k < ndet + 3) form one interval; it is
 * found with the same float expression the loop uses, and the loop then needs no bounds test. */
#define KRI_DEFINE_PAR(T)                                                                          \
    static inline int kri_valid_##T(T c, T a1, int64_t x, T hi)                                    \
    {                                                                                              \
        T k = c + a1 * (T)x;                                                                       \
        return k > (T)0 && k < hi;                                                                 \
    }                                                                                              \
    /* ia1 = 1 / a1 (any value when a1 == 0): the estimate from it is corrected by the tests */    \
    static void kri_interval_##T(T c, T a1, double ia1, T hi, int64_t nx, int64_t *xs,             \
                                 int64_t *xe)                                                      \
    {                                                                                              \
        int64_t s, e;                                                                              \
        if (a1 == (T)0) {                                                                          \
            s = 0;                                                                                 \
            e = kri_valid_##T(c, a1, 0, hi) ? nx : 0;                                              \
        } else {                                                                                   \
            double xa = -(double)c * ia1, xb = ((double)hi - (double)c) * ia1;                     \
            double lo = xa < xb ? xa : xb, up = xa < xb ? xb : xa;                                 \
            const double top = (double)nx + 1;                                                     \
            lo = lo < -1.0 ? -1.0 : lo > top ? top : lo;                                           \
            up = up < -1.0 ? -1.0 : up > top ? top : up;                                           \
            s = (int64_t)(lo + 1.0) - 1; /* floor(lo) for lo >= -1 */                              \
            e = (int64_t)(up + 1.0) + 1; /* >= ceil(up) + 1 */                                     \
            if (s < 0) s = 0;                                                                      \
            if (e > nx) e = nx;                                                                    \
            if (e < s) e = s;                                                                      \
            while (s < e && !kri_valid_##T(c, a1, s, hi)) s++;                                     \
            while (e > s && !kri_valid_##T(c, a1, e - 1, hi)) e--;                                 \
            if (s == e) { /* nothing found near the estimate: the row misses the detector */       \
                *xs = *xe = 0;                                                                     \
                return;                                                                            \
            }                                                                                      \
            while (s > 0 && kri_valid_##T(c, a1, s - 1, hi)) s--;                                  \
            while (e < nx && kri_valid_##T(c, a1, e, hi)) e++;                                     \
        }                                                                                          \
        *xs = s;                                                                                   \
        *xe = e;                                                                                   \
    }

KRI_DEFINE_PAR(float)
KRI_DEFINE_PAR(double)

/* The filtered rows: float rows in the filter's PLANAR layout (q[j], then dq[j] = q[j + 1] - q[j]
 * after KRI_PAD_ROW(ndet) values), so that a vector load covers the samples of several pixels;
 * double rows in the PAIRS layout ((q[j], dq[j]) next to each other), where one 16-byte load
 * fetches both values of a pixel (faster for 4-wide vectors than loads and permutes). Sample j
 * is q[S j] and dq[S j] with S = KRI_S_<type>, dq = q + KRI_DQ_<type>(ndet). */
#define KRI_S_float 1
#define KRI_S_double 2
#define KRI_DQ_float(n) KRI_PAD_ROW(n)
#define KRI_DQ_double(n) 1

/* One row of one parallel-beam view: acc[x] += q(c + a1 x) for x in [xs, xe), where
 * tab[x] = a1 x (the view's table, the same float product). The scalar loop is the reference;
 * the AVX2 and AVX-512 loops compute exactly the same IEEE operations in the same order
 * (multiply, add, truncate, subtract, multiply, add, add: no FMA), so every path gives the same
 * bits and the dispatch never changes a result. sure != 0: every intermediate of k stays below
 * 2^20, so that when |a1| <= 1 the indices of W consecutive pixels span at most W - 1 (their
 * exact span is at most W - 1, the rounding adds less than 1/8). */
typedef void (*kri_row_f)(float *acc, const float *q, const float *dq, float c, float a1,
                          const float *tab, int64_t xs, int64_t xe, int sure);
typedef void (*kri_row_d)(double *acc, const double *q, const double *dq, double c, double a1,
                          const double *tab, int64_t xs, int64_t xe, int sure);

#define KRI_DEFINE_ROW_SCALAR(T)                                                                   \
    static void kri_row_##T(T *acc, const T *q, const T *dq, T c, T a1, const T *tab, int64_t xs,  \
                            int64_t xe, int sure)                                                  \
    {                                                                                              \
        (void)tab, (void)sure;                                                                     \
        for (int64_t x = xs; x < xe; x++) {                                                        \
            const T k = c + a1 * (T)x;                                                             \
            const int i = (int)k;                                                                  \
            const T f = k - (T)i;                                                                  \
            acc[x] += q[KRI_S_##T * i] + f * dq[KRI_S_##T * i];                                    \
        }                                                                                          \
    }
KRI_DEFINE_ROW_SCALAR(float)
KRI_DEFINE_ROW_SCALAR(double)

#if defined(__GNUC__) && defined(__x86_64__) && !defined(KRAY_NO_SIMD)
#define KRI_HAVE_AVX2_PATH 1
#include <immintrin.h>

/* The float vector loops: W consecutive pixels x .. x + W-1 have detector indices i(x) that are
 * monotone in x, so their lowest one, ib, is that of the first pixel (a1 >= 0) or of the last
 * (a1 < 0), computed by the same scalar expression as that lane (the same integer). When
 * |a1| <= 1 the W indices lie within ib .. ib + W-1: one W-wide load of q and of dq from ib and
 * a permute by i - ib select every lane's sample without a gather (the rows have a tail of
 * KRI_CPU_TAIL elements, so the loads never leave the buffer). Groups whose span is larger
 * (|a1| > 1, or rounding at |a1| = 1) gather instead; the values are the same either way. */
/* The AVX2 float loop for rows whose lowest index in a group of 8 is that of lane L (0 when
 * a1 >= 0, 7 when a1 < 0); checked != 0 tests each group's span (and gathers the groups whose
 * span is too wide). */
__attribute__((target("avx2"), always_inline)) static inline void
kri_row_float_avx2_loop(float *acc, const float *q, const float *dq, float c, const float *tab,
                        int64_t *xp, int64_t xe, const int L, const int checked)
{
    int64_t x = *xp;
    const __m256 vc = _mm256_set1_ps(c);
    const __m256i lane = _mm256_set1_epi32(L), far = _mm256_set1_epi32(~7);
#pragma GCC unroll 2
    for (; x + 8 <= xe; x += 8) {
        const __m256 k = _mm256_add_ps(vc, _mm256_loadu_ps(tab + x));
        const __m256i i = _mm256_cvttps_epi32(k);
        const __m256 f = _mm256_sub_ps(k, _mm256_cvtepi32_ps(i));
        /* ib >= 0: unsigned, so that the address needs no sign extension */
        const unsigned ib = (unsigned)(L == 0 ? _mm256_cvtsi256_si32(i) : _mm256_extract_epi32(i, 7));
        const __m256i r = _mm256_sub_epi32(i, _mm256_permutevar8x32_epi32(i, lane));
        __m256 qv, dv;
        if (!checked || __builtin_expect(_mm256_testz_si256(r, far), 1)) { /* r in 0 .. 7 */
            qv = _mm256_permutevar8x32_ps(_mm256_loadu_ps(q + ib), r);
            dv = _mm256_permutevar8x32_ps(_mm256_loadu_ps(dq + ib), r);
        } else {
            qv = _mm256_i32gather_ps(q, i, 4);
            dv = _mm256_i32gather_ps(dq, i, 4);
        }
        const __m256 val = _mm256_add_ps(qv, _mm256_mul_ps(f, dv));
        _mm256_storeu_ps(acc + x, _mm256_add_ps(_mm256_loadu_ps(acc + x), val));
    }
    *xp = x;
}

__attribute__((target("avx2"))) static void kri_row_float_avx2(float *acc, const float *q,
                                                               const float *dq, float c, float a1,
                                                               const float *tab, int64_t xs,
                                                               int64_t xe, int sure)
{
    int64_t x = xs;
    if (xe - xs >= 8) {
        const int checked = !(sure && fabsf(a1) <= 1.0f);
        if (a1 >= 0 && !checked)
            kri_row_float_avx2_loop(acc, q, dq, c, tab, &x, xe, 0, 0);
        else if (!checked)
            kri_row_float_avx2_loop(acc, q, dq, c, tab, &x, xe, 7, 0);
        else if (a1 >= 0)
            kri_row_float_avx2_loop(acc, q, dq, c, tab, &x, xe, 0, 1);
        else
            kri_row_float_avx2_loop(acc, q, dq, c, tab, &x, xe, 7, 1);
    }
    kri_row_float(acc, q, dq, c, a1, tab, x, xe, sure);
}

/* The AVX-512 float loop (groups of 16; lane L = 0 or 15), as the AVX2 one. */
__attribute__((target("avx512f"), always_inline)) static inline void
kri_row_float_avx512_loop(float *acc, const float *q, const float *dq, float c, const float *tab,
                          int64_t *xp, int64_t xe, const int L, const int checked)
{
    int64_t x = *xp;
    const __m512 vc = _mm512_set1_ps(c);
    const __m512i lane = _mm512_set1_epi32(L), span = _mm512_set1_epi32(15);
    for (; x + 16 <= xe; x += 16) {
        const __m512 k = _mm512_add_ps(vc, _mm512_loadu_ps(tab + x));
        const __m512i i = _mm512_cvttps_epi32(k);
        const __m512 f = _mm512_sub_ps(k, _mm512_cvtepi32_ps(i));
        const unsigned ib = (unsigned)(L == 0 ? _mm_cvtsi128_si32(_mm512_castsi512_si128(i))
                                              : _mm_extract_epi32(_mm512_extracti32x4_epi32(i, 3), 3));
        const __m512i r = _mm512_sub_epi32(i, _mm512_permutexvar_epi32(lane, i));
        __m512 qv, dv;
        if (!checked || __builtin_expect(_mm512_cmpgt_epu32_mask(r, span) == 0, 1)) {
            qv = _mm512_permutexvar_ps(r, _mm512_loadu_ps(q + ib));
            dv = _mm512_permutexvar_ps(r, _mm512_loadu_ps(dq + ib));
        } else {
            qv = _mm512_i32gather_ps(i, q, 4);
            dv = _mm512_i32gather_ps(i, dq, 4);
        }
        const __m512 val = _mm512_add_ps(qv, _mm512_mul_ps(f, dv));
        _mm512_storeu_ps(acc + x, _mm512_add_ps(_mm512_loadu_ps(acc + x), val));
    }
    *xp = x;
}

__attribute__((target("avx512f"))) static void kri_row_float_avx512(float *acc, const float *q,
                                                                    const float *dq, float c,
                                                                    float a1, const float *tab,
                                                                    int64_t xs, int64_t xe,
                                                                    int sure)
{
    int64_t x = xs;
    if (xe - xs >= 16) {
        const int checked = !(sure && fabsf(a1) <= 1.0f);
        if (a1 >= 0 && !checked)
            kri_row_float_avx512_loop(acc, q, dq, c, tab, &x, xe, 0, 0);
        else if (!checked)
            kri_row_float_avx512_loop(acc, q, dq, c, tab, &x, xe, 15, 0);
        else if (a1 >= 0)
            kri_row_float_avx512_loop(acc, q, dq, c, tab, &x, xe, 0, 1);
        else
            kri_row_float_avx512_loop(acc, q, dq, c, tab, &x, xe, 15, 1);
    }
    kri_row_float_avx2(acc, q, dq, c, a1, tab, x, xe, sure);
}

__attribute__((target("avx2"))) static void
kri_row_double_avx2(double *acc, const double *row, const double *dq, double c, double a1,
                    const double *tab, int64_t xs, int64_t xe, int sure)
{
    int64_t x = xs;
    if (xe - xs >= 4) {
        const __m256d vc = _mm256_set1_pd(c);
        for (; x + 4 <= xe; x += 4) {
            const __m256d k = _mm256_add_pd(vc, _mm256_loadu_pd(tab + x));
            const __m128i i = _mm256_cvttpd_epi32(k);
            const __m256d f = _mm256_sub_pd(k, _mm256_cvtepi32_pd(i));
            /* four 16-byte (q, dq) loads, transposed */
            const __m128d p0 = _mm_loadu_pd(row + 2 * _mm_cvtsi128_si32(i));
            const __m128d p1 = _mm_loadu_pd(row + 2 * _mm_extract_epi32(i, 1));
            const __m128d p2 = _mm_loadu_pd(row + 2 * _mm_extract_epi32(i, 2));
            const __m128d p3 = _mm_loadu_pd(row + 2 * _mm_extract_epi32(i, 3));
            const __m256d a = _mm256_set_m128d(p2, p0), b = _mm256_set_m128d(p3, p1);
            const __m256d qv = _mm256_unpacklo_pd(a, b), dv = _mm256_unpackhi_pd(a, b);
            const __m256d val = _mm256_add_pd(qv, _mm256_mul_pd(f, dv));
            _mm256_storeu_pd(acc + x, _mm256_add_pd(_mm256_loadu_pd(acc + x), val));
        }
    }
    kri_row_double(acc, row, dq, c, a1, tab, x, xe, sure);
}

__attribute__((target("avx512f"))) static void
kri_row_double_avx512(double *acc, const double *row, const double *dq, double c, double a1,
                      const double *tab, int64_t xs, int64_t xe, int sure)
{
    int64_t x = xs;
    if (xe - xs >= 8) {
        const __m512d vc = _mm512_set1_pd(c), va = _mm512_set1_pd(a1), step = _mm512_set1_pd(8.0);
        __m512d vx =
            _mm512_add_pd(_mm512_set1_pd((double)x), _mm512_setr_pd(0, 1, 2, 3, 4, 5, 6, 7));
        if (fabs(a1) <= 0.8) {
            /* 8 pixels span at most 7 samples: two 8-double loads and permutes (see the float
             * version) */
            const __m512i one = _mm512_set1_epi64(1);
            for (; x + 8 <= xe; x += 8) {
                const __m512d k = _mm512_add_pd(vc, _mm512_mul_pd(va, vx));
                const __m256i i = _mm512_cvttpd_epi32(k);
                const __m512d f = _mm512_sub_pd(k, _mm512_cvtepi32_pd(i));
                const int ib =
                    a1 >= 0 ? (int)(c + a1 * (double)x) : (int)(c + a1 * (double)(x + 7));
                const double *b = row + 2 * (int64_t)ib;
                const __m512d z0 = _mm512_loadu_pd(b), z1 = _mm512_loadu_pd(b + 8);
                const __m512i r2 = _mm512_slli_epi64(
                    _mm512_cvtepi32_epi64(_mm256_sub_epi32(i, _mm256_set1_epi32(ib))), 1);
                const __m512d qv = _mm512_permutex2var_pd(z0, r2, z1);
                const __m512d dv = _mm512_permutex2var_pd(z0, _mm512_add_epi64(r2, one), z1);
                const __m512d val = _mm512_add_pd(qv, _mm512_mul_pd(f, dv));
                _mm512_storeu_pd(acc + x, _mm512_add_pd(_mm512_loadu_pd(acc + x), val));
                vx = _mm512_add_pd(vx, step);
            }
        }
        for (; x + 8 <= xe; x += 8) {
            const __m512d k = _mm512_add_pd(vc, _mm512_mul_pd(va, vx));
            const __m256i i = _mm512_cvttpd_epi32(k);
            const __m512d f = _mm512_sub_pd(k, _mm512_cvtepi32_pd(i));
            const __m256i i2 = _mm256_add_epi32(i, i);
            const __m512d qv = _mm512_i32gather_pd(i2, (const void *)row, 8);
            const __m512d dv = _mm512_i32gather_pd(i2, (const void *)(row + 1), 8);
            const __m512d val = _mm512_add_pd(qv, _mm512_mul_pd(f, dv));
            _mm512_storeu_pd(acc + x, _mm512_add_pd(_mm512_loadu_pd(acc + x), val));
            vx = _mm512_add_pd(vx, step);
        }
    }
    kri_row_double_avx2(acc, row, dq, c, a1, tab, x, xe, sure);
}
#endif

/* ---- fan beams ----------------------------------------------------------------------------------
 * A row of a fan-beam view goes in chunks of KRI_FAN_CHUNK pixels and two passes. The first gives
 * every pixel its padded detector coordinate k and weight w (a division, or an angle, per pixel)
 * in a loop without branches, which gcc vectorises; pixels outside (0, hi) get k = hi and w = 0
 * (the pair row is zero there, so they add +0). The second interpolates and accumulates; it stays
 * scalar (vector gathers of the pairs measured slower than scalar loads). The first loop is also
 * compiled for AVX2 and picked at run time: no FMA either way, so the same bits. */
#define KRI_FAN_CHUNK 64

/* atan2(a, b) for the equiangular coordinate, without branches or calls so that loops over it
 * vectorise: atan(|t|) = pi/4 + atan(u), u = (|t| - 1) / (|t| + 1); atan(|u|) = pi/8 + atan(v),
 * v = (|u| - tan(pi/8)) / (1 + tan(pi/8) |u|); atan(|v|) = pi/16 + atan(z), likewise, with
 * |z| <= tan(pi/16) ~ 0.2, where 12 terms of the odd series reach double precision (within
 * 5e-16 of atan2 in absolute terms). b < 0 adds +-pi, as atan2 does; b = 0 gives NaN (k NaN is
 * outside the detector: only pixels level with the source have b = 0). */
static inline double kri_atan2_nb(double a, double b)
{
    const double t8 = 0.41421356237309504880, t16 = 0.19891236737965800691;
    const double t = a / b, at = fabs(t);
    const double u = (at - 1.0) / (at + 1.0), au = fabs(u);
    const double v = (au - t8) / (1.0 + t8 * au), av = fabs(v);
    const double z = (av - t16) / (1.0 + t16 * av), zz = z * z;
    double p = -1.0 / 23;
    p = p * zz + 1.0 / 21, p = p * zz - 1.0 / 19, p = p * zz + 1.0 / 17, p = p * zz - 1.0 / 15;
    p = p * zz + 1.0 / 13, p = p * zz - 1.0 / 11, p = p * zz + 1.0 / 9, p = p * zz - 1.0 / 7;
    p = p * zz + 1.0 / 5, p = p * zz - 1.0 / 3, p = p * zz + 1.0;
    const double atv = 0.19634954084936207740 + z * p;                 /* atan|v| */
    const double atu = 0.39269908169872415481 + copysign(atv, v);      /* atan|u| */
    const double att = 0.78539816339744830962 + copysign(atu, u);      /* atan|t| */
    return copysign(att, t) + (b < 0.0 ? copysign(3.14159265358979323846, a) : 0.0);
}

/* First pass over pixels x0 .. x0 + n - 1 of a row (A = ca + a1 x, B = cb + b1 x): kb, wb. */
#define KRI_DEFINE_FAN_COORD(T, NAME, ATTR)                                                        \
    ATTR static void NAME(kri_bp_kind kind, T ca, T cb, T a1, T b1, T k0, T cc, T hi, int x0,      \
                          int n, T *restrict kb, T *restrict wb)                                   \
    {                                                                                              \
        if (kind == KRI_BP_FLAT) {                                                                 \
            for (int j = 0; j < n; j++) {                                                          \
                const T x = (T)(x0 + j), A = ca + a1 * x, B = cb + b1 * x;                         \
                const T rb = (T)1 / B, k = A * rb + k0, w = rb * rb;                               \
                const int in = (k > (T)0) & (k < hi) & (w < (T)HUGE_VAL);                          \
                kb[j] = in ? k : hi;                                                               \
                wb[j] = in ? w : (T)0;                                                             \
            }                                                                                      \
            return;                                                                                \
        }                                                                                          \
        for (int j = 0; j < n; j++) {                                                              \
            const T x = (T)(x0 + j), A = ca + a1 * x, B = cb + b1 * x;                             \
            const T k = (T)kri_atan2_nb((double)A, (double)B) * cc + k0;                           \
            const T w = (T)1 / (A * A + B * B);                                                    \
            const int in = (k > (T)0) & (k < hi) & (w < (T)HUGE_VAL);                              \
            kb[j] = in ? k : hi;                                                                   \
            wb[j] = in ? w : (T)0;                                                                 \
        }                                                                                          \
    }
typedef void (*kri_fan_f)(kri_bp_kind kind, float ca, float cb, float a1, float b1, float k0,
                          float cc, float hi, int x0, int n, float *restrict kb,
                          float *restrict wb);
typedef void (*kri_fan_d)(kri_bp_kind kind, double ca, double cb, double a1, double b1, double k0,
                          double cc, double hi, int x0, int n, double *restrict kb,
                          double *restrict wb);
KRI_DEFINE_FAN_COORD(float, kri_fan_float, )
KRI_DEFINE_FAN_COORD(double, kri_fan_double, )
#ifdef KRI_HAVE_AVX2_PATH
KRI_DEFINE_FAN_COORD(float, kri_fan_float_avx2, __attribute__((target("avx2"))))
KRI_DEFINE_FAN_COORD(double, kri_fan_double_avx2, __attribute__((target("avx2"))))
#endif

/* The table of a parallel-beam view: tab[j] = a1 (x0 + j), j < n (the row loops' product; a
 * vector loop, also built for AVX2: a product is the same at any width). */
#define KRI_DEFINE_TAB(T, NAME, ATTR)                                                              \
    ATTR static void NAME(T *restrict tab, T a1, int x0, int n)                                    \
    {                                                                                              \
        for (int j = 0; j < n; j++) tab[j] = a1 * (T)(x0 + j);                                     \
    }
typedef void (*kri_tab_f)(float *restrict tab, float a1, int x0, int n);
typedef void (*kri_tab_d)(double *restrict tab, double a1, int x0, int n);
KRI_DEFINE_TAB(float, kri_tab_float, )
KRI_DEFINE_TAB(double, kri_tab_double, )
#ifdef KRI_HAVE_AVX2_PATH
KRI_DEFINE_TAB(float, kri_tab_float_avx2, __attribute__((target("avx2"))))
KRI_DEFINE_TAB(double, kri_tab_double_avx2, __attribute__((target("avx2"))))
#endif

/* One row of one fan-beam view: acc[x] += w(x) q(k(x)), x = 0 .. nx-1. */
#define KRI_DEFINE_FAN_ROW(T, FANFN)                                                               \
    static void kri_fan_row_##T(FANFN coord, kri_bp_kind kind, T *acc, const T *q, const T *dq,    \
                                T ca, T cb, T a1, T b1, T k0, T cc, T hi, int64_t nx)              \
    {                                                                                              \
        T kb[KRI_FAN_CHUNK], wb[KRI_FAN_CHUNK];                                                    \
        for (int64_t x0 = 0; x0 < nx; x0 += KRI_FAN_CHUNK) {                                       \
            const int n = (int)(nx - x0 < KRI_FAN_CHUNK ? nx - x0 : KRI_FAN_CHUNK);                \
            coord(kind, ca, cb, a1, b1, k0, cc, hi, (int)x0, n, kb, wb);                           \
            T *a = acc + x0;                                                                       \
            for (int j = 0; j < n; j++) {                                                          \
                const int i = (int)kb[j];                                                          \
                const T f = kb[j] - (T)i;                                                          \
                a[j] += wb[j] * (q[KRI_S_##T * i] + f * dq[KRI_S_##T * i]);                        \
            }                                                                                      \
        }                                                                                          \
    }
KRI_DEFINE_FAN_ROW(float, kri_fan_f)
KRI_DEFINE_FAN_ROW(double, kri_fan_d)

/* The SIMD level to use: 3 AVX-512, 2 AVX2 (when the CPU has it and simd != 0), 0 plain loops. */
static int kri_simd_level(int simd)
{
#ifdef KRI_HAVE_AVX2_PATH
    if (simd && __builtin_cpu_supports("avx512f")) return 3;
    if (simd && __builtin_cpu_supports("avx2")) return 2;
#endif
    (void)simd;
    return 0;
}

/* Parallel beams go through the image in chunks of at most KRI_FBP_CHUNK columns (each pixel is in
 * one chunk, so the order of its sums is unchanged); per chunk and view, the table a1 x of the
 * chunk's columns is made once for the block's rows. */
#define KRI_FBP_CHUNK 2048

#define KRI_DEFINE_BP(T, ROWFN, FANFN, TABFN)                                                      \
    static void kri_bp_##T(kri_bp_kind kind, const kri_bp_view *views, int64_t nviews,             \
                           const T *pairs, int64_t ndet, T *img, int64_t nx, int64_t ny,           \
                           int clamp, int nthreads, ROWFN rowfn, FANFN fanfn, TABFN tabfn)         \
    {                                                                                              \
        const int64_t rl = 2 * KRI_PAD_ROW(ndet), dqo = KRI_DQ_##T(ndet);                          \
        const int64_t nblk = (ny + KRI_ROWS - 1) / KRI_ROWS;                                       \
        const T hi = (T)(ndet + KRI_PAD + 1);                                                      \
        const int sure = (double)hi + 2.0 * (double)nx < 1048576.0;                                \
        _Pragma(                                                                                   \
            "omp parallel for num_threads(nthreads) schedule(dynamic, 1)") for (int64_t blk = 0;   \
                                                                                blk < nblk; blk++) \
        {                                                                                          \
            const int64_t y0 = blk * KRI_ROWS, y1 = y0 + KRI_ROWS < ny ? y0 + KRI_ROWS : ny;       \
            memset(img + y0 * nx, 0, (size_t)((y1 - y0) * nx) * sizeof(T));                        \
            if (kind == KRI_BP_PAR) {                                                              \
                T tab[KRI_FBP_CHUNK];                                                              \
                for (int64_t x0 = 0; x0 < nx; x0 += KRI_FBP_CHUNK) {                               \
                    const int64_t x1 = x0 + KRI_FBP_CHUNK < nx ? x0 + KRI_FBP_CHUNK : nx;          \
                    for (int64_t v = 0; v < nviews; v++) {                                         \
                        const T *q = pairs + v * rl, *dq = q + dqo;                                \
                        const kri_bp_view *b = &views[v];                                          \
                        const T a0 = (T)b->a0, a1 = (T)b->a1, a2 = (T)b->a2;                       \
                        const double ia1 = a1 != (T)0 ? 1.0 / (double)a1 : 0.0;                    \
                        tabfn(tab, a1, (int)x0, (int)(x1 - x0));                                   \
                        for (int64_t y = y0; y < y1; y++) {                                        \
                            const T c = a0 + a2 * (T)y;                                            \
                            int64_t xs, xe;                                                        \
                            kri_interval_##T(c, a1, ia1, hi, nx, &xs, &xe);                        \
                            if (xs < x0) xs = x0;                                                  \
                            if (xe > x1) xe = x1;                                                  \
                            if (xe > xs)                                                           \
                                rowfn(img + y * nx, q, dq, c, a1, tab - x0, xs, xe, sure);         \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
            } else {                                                                               \
                for (int64_t v = 0; v < nviews; v++) {                                             \
                    const T *q = pairs + v * rl, *dq = q + dqo;                                    \
                    const kri_bp_view *b = &views[v];                                              \
                    const T a0 = (T)b->a0, a1 = (T)b->a1, a2 = (T)b->a2;                           \
                    const T b0 = (T)b->b0, b1 = (T)b->b1, b2 = (T)b->b2;                           \
                    const T k0 = (T)b->k0, cc = (T)b->c;                                           \
                    for (int64_t y = y0; y < y1; y++)                                              \
                        kri_fan_row_##T(fanfn, kind, img + y * nx, q, dq, a0 + a2 * (T)y,          \
                                        b0 + b2 * (T)y, a1, b1, k0, cc, hi, nx);                   \
                }                                                                                  \
            }                                                                                      \
            if (clamp)                                                                             \
                for (int64_t i = y0 * nx; i < y1 * nx; i++)                                        \
                    if (img[i] < (T)0) img[i] = (T)0;                                              \
        }                                                                                          \
    }

KRI_DEFINE_BP(float, kri_row_f, kri_fan_f, kri_tab_f)
KRI_DEFINE_BP(double, kri_row_d, kri_fan_d, kri_tab_d)

kr_status kri_cpu_fbp_backproject(int f64, kri_bp_kind kind, const kri_bp_view *views,
                                  int64_t nviews, const void *pairs, int64_t ndet, void *image,
                                  int64_t nx, int64_t ny, int clamp, int nthreads, int simd)
{
    const int lv = kri_simd_level(simd);
    kri_row_f rf = kri_row_float;
    kri_row_d rd = kri_row_double;
    kri_fan_f ff = kri_fan_float;
    kri_fan_d fd = kri_fan_double;
    kri_tab_f tf = kri_tab_float;
    kri_tab_d td = kri_tab_double;
#ifdef KRI_HAVE_AVX2_PATH
    if (lv >= 2) rf = kri_row_float_avx2, rd = kri_row_double_avx2;
    if (lv >= 2) ff = kri_fan_float_avx2, fd = kri_fan_double_avx2;
    if (lv >= 2) tf = kri_tab_float_avx2, td = kri_tab_double_avx2;
    if (lv >= 3) rf = kri_row_float_avx512, rd = kri_row_double_avx512;
#else
    (void)lv;
#endif
    if (f64)
        kri_bp_double(kind, views, nviews, (const double *)pairs, ndet, (double *)image, nx, ny,
                      clamp, nthreads, rd, fd, td);
    else
        kri_bp_float(kind, views, nviews, (const float *)pairs, ndet, (float *)image, nx, ny, clamp,
                     nthreads, rf, ff, tf);
    return KR_OK;
}

/* ---- the CPU table --------------------------------------------------------------------------- */
static void kri_fbp_cpu_destroy(kri_fbp_state *st)
{
    if (!st) return;
    kri_free(st->pairs);
    kri_free(st);
}

static kr_status kri_fbp_cpu_create(const kr_fbp_plan *p, kri_fbp_state **out)
{
    *out = NULL;
    kri_fbp_state *st = kri_calloc(1, sizeof *st);
    if (!st) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for an FBP plan");
    st->groups = 1;
    st->planar = p->o.dtype == KR_F32; /* the layouts above */
    st->kernel = "cpu";
    const size_t es = kr_dtype_size(p->o.dtype);
    const size_t pair_bytes = (size_t)(p->nviews * 2 * KRI_PAD_ROW(p->ndet)) * es;
    kr_status s = kri_alloc(&st->pairs, pair_bytes + KRI_CPU_TAIL * es, "filtered sinogram");
    if (s != KR_OK) {
        kri_fbp_cpu_destroy(st);
        return s;
    }
    memset((char *)st->pairs + pair_bytes, 0, KRI_CPU_TAIL * es);
    *out = st;
    return KR_OK;
}

static kr_status kri_fbp_cpu_backproject(const kr_fbp_plan *p, kri_fbp_state *st, void *image)
{
    return kri_cpu_fbp_backproject(p->o.dtype == KR_F64, p->kind, p->views, p->nviews, st->pairs,
                                   p->ndet, image, p->nx, p->ny, p->o.clamp_negative,
                                   kri_threads(p->ctx), 1);
}

const kri_fbp_backend kri_fbp_cpu = {{"cpu", true}, kri_fbp_cpu_create, kri_fbp_cpu_backproject,
                                     kri_fbp_cpu_destroy};
