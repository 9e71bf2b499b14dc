/* kr_vec_* on the host (kri_vec_cpu, solve_internal.h): OpenMP; elementwise loops write disjoint
 * elements, reductions use fixed chunks (KRI_VEC_CHUNK) summed sequentially in double and
 * combined in chunk order, so results are bit-identical for any thread count. */
#include "internal.h"
#include "solve_internal.h"

#include <string.h>

/* Below this many scalars an elementwise loop runs on one thread. */
#define KRI_VEC_PAR_MIN 32768
/* Chunks per parallel round of a reduction (partials live on the stack). */
#define KRI_VEC_ROUND 256

/* Elementwise: scale (op 0): x = a x; axpy (op 1): y += a x; xpay (op 2): y = x + a y.
 * The scalar is rounded to the element precision first; the device computes the same. */
#define KRI_ELEMWISE(T)                                                                        \
    do {                                                                                       \
        T *y = yv;                                                                             \
        const T *x = xv;                                                                       \
        const T ar = (T)re, ai = (T)im;                                                        \
        if (!cplx) {                                                                           \
            _Pragma("omp parallel for num_threads(nt) schedule(static) if (n > KRI_VEC_PAR_MIN)") \
            for (int64_t i = 0; i < n; i++) {                                                  \
                if (op == 0) y[i] = ar * y[i];                                                 \
                else if (op == 1) y[i] = y[i] + ar * x[i];                                     \
                else y[i] = x[i] + ar * y[i];                                                  \
            }                                                                                  \
        } else {                                                                               \
            _Pragma("omp parallel for num_threads(nt) schedule(static) if (n > KRI_VEC_PAR_MIN / 2)") \
            for (int64_t i = 0; i < n; i++) {                                                  \
                T yr = y[2 * i], yi = y[2 * i + 1];                                            \
                if (op == 0) {                                                                 \
                    y[2 * i] = ar * yr - ai * yi;                                              \
                    y[2 * i + 1] = ar * yi + ai * yr;                                          \
                } else if (op == 1) {                                                          \
                    T xr = x[2 * i], xi = x[2 * i + 1];                                        \
                    y[2 * i] = yr + (ar * xr - ai * xi);                                       \
                    y[2 * i + 1] = yi + (ar * xi + ai * xr);                                   \
                } else {                                                                       \
                    T xr = x[2 * i], xi = x[2 * i + 1];                                        \
                    y[2 * i] = xr + (ar * yr - ai * yi);                                       \
                    y[2 * i + 1] = xi + (ar * yi + ai * yr);                                   \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    } while (0)

static kr_status kri_cpu_vec_elem(const kr_ctx *ctx, kr_dtype t, int op, int64_t n, void *yv,
                                  double re, double im, const void *xv)
{
    const int nt = kri_threads(ctx);
    const int cplx = kr_dtype_is_complex(t);
    if (t == KR_F32 || t == KR_C64)
        KRI_ELEMWISE(float);
    else
        KRI_ELEMWISE(double);
    return KR_OK;
}

/* Partial sums over elements [i0, i1): dot (sum conj(x) y) or sum of squares (y == NULL). */
#define KRI_CHUNK_SUM(T)                                                                       \
    do {                                                                                       \
        const T *x = xv, *y = yv;                                                              \
        if (!cplx) {                                                                           \
            if (y)                                                                             \
                for (int64_t i = i0; i < i1; i++) sr = sr + (double)x[i] * (double)y[i];       \
            else                                                                               \
                for (int64_t i = i0; i < i1; i++) sr = sr + (double)x[i] * (double)x[i];       \
        } else if (y) {                                                                        \
            for (int64_t i = i0; i < i1; i++) {                                                \
                double xr = x[2 * i], xi = x[2 * i + 1], yr = y[2 * i], yi = y[2 * i + 1];     \
                sr = sr + (xr * yr + xi * yi);                                                 \
                si = si + (xr * yi - xi * yr);                                                 \
            }                                                                                  \
        } else {                                                                               \
            for (int64_t i = i0; i < i1; i++) {                                                \
                double xr = x[2 * i], xi = x[2 * i + 1];                                       \
                sr = sr + (xr * xr + xi * xi);                                                 \
            }                                                                                  \
        }                                                                                      \
    } while (0)

static void kri_cpu_chunk(kr_dtype t, const void *xv, const void *yv, int64_t i0, int64_t i1,
                          double *re, double *im)
{
    const int cplx = kr_dtype_is_complex(t);
    double sr = 0.0, si = 0.0;
    if (t == KR_F32 || t == KR_C64)
        KRI_CHUNK_SUM(float);
    else
        KRI_CHUNK_SUM(double);
    *re = sr;
    *im = si;
}

static void kri_vec_reduce_cpu(int nt, kr_dtype t, int64_t n, const void *x, const void *y,
                               double *re, double *im)
{
    const int64_t nchunks = (n + KRI_VEC_CHUNK - 1) / KRI_VEC_CHUNK;
    double tr = 0.0, ti = 0.0;
    double pr[KRI_VEC_ROUND], pi[KRI_VEC_ROUND];
    for (int64_t c0 = 0; c0 < nchunks; c0 += KRI_VEC_ROUND) {
        const int64_t cn = nchunks - c0 < KRI_VEC_ROUND ? nchunks - c0 : KRI_VEC_ROUND;
#pragma omp parallel for num_threads(nt) schedule(static) if (cn > 1)
        for (int64_t c = 0; c < cn; c++) {
            int64_t i0 = (c0 + c) * KRI_VEC_CHUNK;
            int64_t i1 = i0 + KRI_VEC_CHUNK < n ? i0 + KRI_VEC_CHUNK : n;
            kri_cpu_chunk(t, x, y, i0, i1, &pr[c], &pi[c]);
        }
        for (int64_t c = 0; c < cn; c++) {
            tr += pr[c];
            ti += pi[c];
        }
    }
    *re = tr;
    *im = ti;
}

static kr_status kri_cpu_vec_zero(const kr_ctx *ctx, void *x, size_t bytes)
{
    (void)ctx;
    memset(x, 0, bytes);
    return KR_OK;
}

static kr_status kri_cpu_vec_dot(const kr_ctx *ctx, kr_dtype t, int64_t n, const void *x,
                                 const void *y, double *re, double *im)
{
    kri_vec_reduce_cpu(kri_threads(ctx), t, n, x, y, re, im);
    return KR_OK;
}

static kr_status kri_cpu_vec_sumsq(const kr_ctx *ctx, kr_dtype t, int64_t n, const void *x,
                                   double *sumsq)
{
    double im;
    kri_vec_reduce_cpu(kri_threads(ctx), t, n, x, NULL, sumsq, &im);
    return KR_OK;
}

static kr_status kri_cpu_vec_random(const kr_ctx *ctx, kr_dtype t, int64_t n, void *x,
                                    uint64_t seed)
{
    const int nt = kri_threads(ctx);
    const int64_t ns = kr_dtype_is_complex(t) ? 2 * n : n;
    if (t == KR_F32 || t == KR_C64) {
        float *v = x;
#pragma omp parallel for num_threads(nt) schedule(static) if (ns > KRI_VEC_PAR_MIN)
        for (int64_t k = 0; k < ns; k++) v[k] = (float)kri_rand_sym(seed, (uint64_t)k);
    } else {
        double *v = x;
#pragma omp parallel for num_threads(nt) schedule(static) if (ns > KRI_VEC_PAR_MIN)
        for (int64_t k = 0; k < ns; k++) v[k] = kri_rand_sym(seed, (uint64_t)k);
    }
    return KR_OK;
}

#define KRI_DMUL(T)                                                                            \
    do {                                                                                       \
        T *z = zv;                                                                             \
        const T *d = dv, *x = xv;                                                              \
        _Pragma("omp parallel for num_threads(nt) schedule(static) if (n > KRI_VEC_PAR_MIN / 2)") \
        for (int64_t i = 0; i < n; i++) {                                                      \
            if (cplx) {                                                                        \
                z[2 * i] = d[i] * x[2 * i];                                                    \
                z[2 * i + 1] = d[i] * x[2 * i + 1];                                            \
            } else {                                                                           \
                z[i] = d[i] * x[i];                                                            \
            }                                                                                  \
        }                                                                                      \
    } while (0)

static kr_status kri_cpu_vec_dmul(const kr_ctx *ctx, kr_dtype t, int64_t n, void *zv,
                                  const void *dv, const void *xv)
{
    const int nt = kri_threads(ctx);
    const int cplx = kr_dtype_is_complex(t);
    if (t == KR_F32 || t == KR_C64)
        KRI_DMUL(float);
    else
        KRI_DMUL(double);
    return KR_OK;
}

const kri_vec_backend kri_vec_cpu = {{"cpu", true},     kri_cpu_vec_zero,  kri_cpu_vec_elem,
                                     kri_cpu_vec_dot,   kri_cpu_vec_sumsq, kri_cpu_vec_random,
                                     kri_cpu_vec_dmul};
