/* kr_vec_*: vector operations for the solvers. Host: OpenMP, elementwise loops write disjoint
 * elements, reductions use fixed chunks (KRI_VEC_CHUNK) summed sequentially in double and
 * combined in chunk order, so results are bit-identical for any thread count. Device: the
 * kri_cuda_vec_* launchers of vec_cuda.cu. */
#include "internal.h"
#include "solve_internal.h"

#include <math.h>
#include <string.h>

/* Below this many scalars an elementwise loop runs on one thread. */
#define KRI_VEC_PAR_MIN 32768
/* Chunks per parallel round of a reduction (partials live on the stack). */
#define KRI_VEC_ROUND 256

/* ---- argument checks ------------------------------------------------------------------------ */
static kr_status kri_vec_basic(const char *fn, const kr_array *x, const char *name)
{
    if (!x) return kri_fail(KR_ERR_INVALID_ARG, "%s: argument '%s' is NULL", fn, name);
    if (!kr_dtype_is_float(x->dtype))
        return kri_fail(KR_ERR_DTYPE,
                        "%s: %s has element type %s; vector operations accept f32, f64, c64 and "
                        "c128",
                        fn, name, kr_dtype_name(x->dtype));
    if (x->ndim < 1 || x->ndim > KR_MAX_DIMS)
        return kri_fail(KR_ERR_DIM, "%s: %s has %d dimensions (1..%d allowed)", fn, name, x->ndim,
                        KR_MAX_DIMS);
    for (int i = 0; i < x->ndim; i++)
        if (x->dims[i] < 1)
            return kri_fail(KR_ERR_DIM, "%s: %s has size %lld in dimension %d", fn, name,
                            (long long)x->dims[i], i);
    if (!x->data) return kri_fail(KR_ERR_INVALID_ARG, "%s: %s has no data", fn, name);
    if (!kr_array_is_contiguous(x))
        return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: %s is not contiguous", fn, name);
    if (x->loc != KR_HOST && x->loc != KR_DEVICE)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: %s has invalid location %d", fn, name, (int)x->loc);
    return KR_OK;
}

static kr_status kri_vec_ctx(const char *fn, const kr_ctx *ctx, const kr_array *x,
                             const char *name)
{
    if (!ctx) return kri_fail(KR_ERR_INVALID_ARG, "%s: argument 'ctx' is NULL", fn);
    kr_status s = kri_check_loc(ctx, x->loc, name);
    if (s != KR_OK) return kri_fail_prefix(s, "%s", fn);
    if (x->loc == KR_DEVICE && x->device != kr_ctx_device(ctx))
        return kri_fail(KR_ERR_LOCATION, "%s: %s is on CUDA device %d, the context uses device %d",
                        fn, name, x->device, kr_ctx_device(ctx));
    return KR_OK;
}

static kr_status kri_vec_check1(const char *fn, const kr_ctx *ctx, const kr_array *x,
                                const char *name)
{
    if (!ctx) return kri_fail(KR_ERR_INVALID_ARG, "%s: argument 'ctx' is NULL", fn);
    KRI_TRY(kri_vec_basic(fn, x, name));
    return kri_vec_ctx(fn, ctx, x, name);
}

static kr_status kri_vec_check2(const char *fn, const kr_ctx *ctx, const kr_array *a,
                                const char *an, const kr_array *b, const char *bn)
{
    if (!ctx) return kri_fail(KR_ERR_INVALID_ARG, "%s: argument 'ctx' is NULL", fn);
    KRI_TRY(kri_vec_basic(fn, a, an));
    KRI_TRY(kri_vec_basic(fn, b, bn));
    if (a->loc != b->loc || (a->loc == KR_DEVICE && a->device != b->device))
        return kri_fail(KR_ERR_LOCATION, "%s: %s is in %s memory but %s is in %s memory", fn, an,
                        a->loc == KR_DEVICE ? "device" : "host", bn,
                        b->loc == KR_DEVICE ? "device" : "host");
    if (a->dtype != b->dtype)
        return kri_fail(KR_ERR_DTYPE, "%s: %s is %s but %s is %s", fn, an, kr_dtype_name(a->dtype),
                        bn, kr_dtype_name(b->dtype));
    int64_t na = kr_array_numel(a), nb = kr_array_numel(b);
    if (na != nb)
        return kri_fail(KR_ERR_DIM, "%s: %s has %lld elements but %s has %lld", fn, an,
                        (long long)na, bn, (long long)nb);
    if (a->data != b->data && kri_arrays_overlap(a, b))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: %s and %s partly overlap", fn, an, bn);
    return kri_vec_ctx(fn, ctx, a, an);
}

static kr_status kri_vec_scalar(const char *fn, const kr_array *x, double re, double im)
{
    if (!isfinite(re) || !isfinite(im))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: scalar %g%+gi is not finite", fn, re, im);
    if (im != 0.0 && !kr_dtype_is_complex(x->dtype))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: complex scalar %g%+gi for a real (%s) vector", fn,
                        re, im, kr_dtype_name(x->dtype));
    return KR_OK;
}

#ifndef KRAY_HAVE_CUDA
static kr_status kri_vec_no_cuda(const char *fn)
{
    return kri_fail(KR_ERR_NO_DEVICE, "%s: device vectors need CUDA, this build has none", fn);
}
#endif

/* ---- host kernels --------------------------------------------------------------------------- */
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

static void kri_cpu_elemwise(int nt, kr_dtype t, int op, int64_t n, void *yv, double re,
                             double im, const void *xv)
{
    const int cplx = kr_dtype_is_complex(t);
    if (t == KR_F32 || t == KR_C64)
        KRI_ELEMWISE(float);
    else
        KRI_ELEMWISE(double);
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

static void kri_cpu_reduce(int nt, kr_dtype t, int64_t n, const void *x, const void *y,
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

/* ---- public operations ---------------------------------------------------------------------- */
kr_status kr_vec_zero(const kr_ctx *ctx, kr_array *x)
{
    KRI_TRY(kri_vec_check1("kr_vec_zero", ctx, x, "x"));
    if (x->loc == KR_DEVICE) return kri_device_memset0(x->data, kr_array_bytes(x), ctx);
    memset(x->data, 0, kr_array_bytes(x));
    return KR_OK;
}

kr_status kr_vec_copy(const kr_ctx *ctx, kr_array *dst, const kr_array *src)
{
    KRI_TRY(kri_vec_check2("kr_vec_copy", ctx, dst, "dst", src, "src"));
    if (dst->data == src->data) return KR_OK;
    return kri_memcpy(dst->data, dst->loc, src->data, src->loc, kr_array_bytes(src), ctx);
}

static kr_status kri_vec_elem(const char *fn, int op, const kr_ctx *ctx, kr_array *y, double re,
                              double im, const kr_array *x)
{
    if (op == 0)
        KRI_TRY(kri_vec_check1(fn, ctx, y, "x"));
    else
        KRI_TRY(kri_vec_check2(fn, ctx, y, "y", x, "x"));
    KRI_TRY(kri_vec_scalar(fn, y, re, im));
    int64_t n = kr_array_numel(y);
    if (y->loc == KR_DEVICE) {
#ifdef KRAY_HAVE_CUDA
        if (op == 0) return kri_cuda_vec_scale(ctx, y->dtype, n, y->data, re, im);
        if (op == 1) return kri_cuda_vec_axpy(ctx, y->dtype, n, y->data, re, im, x->data);
        return kri_cuda_vec_xpay(ctx, y->dtype, n, y->data, re, im, x->data);
#else
        return kri_vec_no_cuda(fn);
#endif
    }
    kri_cpu_elemwise(kri_threads(ctx), y->dtype, op, n, y->data, re, im, x ? x->data : NULL);
    return KR_OK;
}

kr_status kr_vec_scale(const kr_ctx *ctx, kr_array *x, double re, double im)
{
    return kri_vec_elem("kr_vec_scale", 0, ctx, x, re, im, NULL);
}

kr_status kr_vec_axpy(const kr_ctx *ctx, kr_array *y, double re, double im, const kr_array *x)
{
    return kri_vec_elem("kr_vec_axpy", 1, ctx, y, re, im, x);
}

kr_status kr_vec_xpay(const kr_ctx *ctx, kr_array *y, double re, double im, const kr_array *x)
{
    return kri_vec_elem("kr_vec_xpay", 2, ctx, y, re, im, x);
}

kr_status kr_vec_dot(const kr_ctx *ctx, const kr_array *x, const kr_array *y, double *re,
                     double *im)
{
    KRI_TRY(kri_vec_check2("kr_vec_dot", ctx, x, "x", y, "y"));
    KRI_ARG_NOT_NULL(re);
    double r = 0.0, i = 0.0;
    int64_t n = kr_array_numel(x);
    if (x->loc == KR_DEVICE) {
#ifdef KRAY_HAVE_CUDA
        KRI_TRY(kri_cuda_vec_dot(ctx, x->dtype, n, x->data, y->data, &r, &i));
#else
        return kri_vec_no_cuda("kr_vec_dot");
#endif
    } else {
        kri_cpu_reduce(kri_threads(ctx), x->dtype, n, x->data, y->data, &r, &i);
    }
    *re = r;
    if (im) *im = i;
    return KR_OK;
}

kr_status kri_vec_sumsq(const kr_ctx *ctx, const kr_array *x, double *sumsq)
{
    KRI_TRY(kri_vec_check1("kr_vec_norm2", ctx, x, "x"));
    KRI_ARG_NOT_NULL(sumsq);
    double r = 0.0, i = 0.0;
    int64_t n = kr_array_numel(x);
    if (x->loc == KR_DEVICE) {
#ifdef KRAY_HAVE_CUDA
        KRI_TRY(kri_cuda_vec_sumsq(ctx, x->dtype, n, x->data, &r));
#else
        return kri_vec_no_cuda("kr_vec_norm2");
#endif
    } else {
        kri_cpu_reduce(kri_threads(ctx), x->dtype, n, x->data, NULL, &r, &i);
    }
    *sumsq = r;
    return KR_OK;
}

kr_status kr_vec_norm2(const kr_ctx *ctx, const kr_array *x, double *norm)
{
    KRI_ARG_NOT_NULL(norm);
    double s;
    KRI_TRY(kri_vec_sumsq(ctx, x, &s));
    *norm = sqrt(s);
    return KR_OK;
}

kr_status kr_vec_random(const kr_ctx *ctx, kr_array *x, uint64_t seed)
{
    KRI_TRY(kri_vec_check1("kr_vec_random", ctx, x, "x"));
    int64_t n = kr_array_numel(x);
    if (x->loc == KR_DEVICE) {
#ifdef KRAY_HAVE_CUDA
        return kri_cuda_vec_random(ctx, x->dtype, n, x->data, seed);
#else
        return kri_vec_no_cuda("kr_vec_random");
#endif
    }
    const int nt = kri_threads(ctx);
    const int64_t ns = kr_dtype_is_complex(x->dtype) ? 2 * n : n;
    if (x->dtype == KR_F32 || x->dtype == KR_C64) {
        float *v = x->data;
#pragma omp parallel for num_threads(nt) schedule(static) if (ns > KRI_VEC_PAR_MIN)
        for (int64_t k = 0; k < ns; k++) v[k] = (float)kri_rand_sym(seed, (uint64_t)k);
    } else {
        double *v = x->data;
#pragma omp parallel for num_threads(nt) schedule(static) if (ns > KRI_VEC_PAR_MIN)
        for (int64_t k = 0; k < ns; k++) v[k] = kri_rand_sym(seed, (uint64_t)k);
    }
    return KR_OK;
}
