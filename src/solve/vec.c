/* kr_vec_*: vector operations for the solvers: argument checks, then the backend table of the
 * arrays' location (solve_internal.h): vec_cpu.c on the host, vec_cuda.cu on the device. */
#include "internal.h"
#include "solve_internal.h"

#include <math.h>

/* ---- argument checks ------------------------------------------------------------------------ */
int kri_arrays_overlap(const kr_array *a, const kr_array *b)
{
    uintptr_t a0 = (uintptr_t)a->data, b0 = (uintptr_t)b->data;
    uintptr_t a1 = a0 + kr_array_bytes(a), b1 = b0 + kr_array_bytes(b);
    return a0 < b1 && b0 < a1;
}

/* The operand check, after what it cannot see: a real or complex floating element type, a
 * valid shape and location. */
static kr_status kri_vec_basic(const char *fn, const kr_array *x, const char *name)
{
    if (x) {
        if (!kr_dtype_is_float(x->dtype))
            return kri_fail(KR_ERR_DTYPE,
                            "%s: %s has element type %s; vector operations accept f32, f64, c64 "
                            "and c128",
                            fn, name, kr_dtype_name(x->dtype));
        if (x->ndim < 1 || x->ndim > KR_MAX_DIMS)
            return kri_fail(KR_ERR_DIM, "%s: %s has %d dimensions (1..%d allowed)", fn, name,
                            x->ndim, KR_MAX_DIMS);
        for (int i = 0; i < x->ndim; i++)
            if (x->dims[i] < 1)
                return kri_fail(KR_ERR_DIM, "%s: %s has size %lld in dimension %d", fn, name,
                                (long long)x->dims[i], i);
        if (x->loc != KR_HOST && x->loc != KR_DEVICE)
            return kri_fail(KR_ERR_INVALID_ARG, "%s: %s has invalid location %d", fn, name,
                            (int)x->loc);
    }
    return kri_check_operand(fn, name, x, KRI_ANY_DTYPE, KRI_ANY_LOC);
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

/* The table for x's location (core/backend.h). */
static kr_status kri_vec_pick(const kri_vec_backend **be, const kr_array *x, const char *fn)
{
    return kri_backend_pick(be, x->loc, &kri_vec_cpu, &kri_vec_cuda, fn);
}

/* ---- public operations ---------------------------------------------------------------------- */
kr_status kr_vec_zero(const kr_ctx *ctx, kr_array *x)
{
    KRI_TRY(kri_vec_check1("kr_vec_zero", ctx, x, "x"));
    const kri_vec_backend *be;
    KRI_TRY(kri_vec_pick(&be, x, "kr_vec_zero"));
    return be->zero(ctx, x->data, kr_array_bytes(x));
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
    const kri_vec_backend *be;
    KRI_TRY(kri_vec_pick(&be, y, fn));
    return be->elem(ctx, y->dtype, op, kr_array_numel(y), y->data, re, im, x ? x->data : NULL);
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
    const kri_vec_backend *be;
    KRI_TRY(kri_vec_pick(&be, x, "kr_vec_dot"));
    double r = 0.0, i = 0.0;
    KRI_TRY(be->dot(ctx, x->dtype, kr_array_numel(x), x->data, y->data, &r, &i));
    *re = r;
    if (im) *im = i;
    return KR_OK;
}

kr_status kri_vec_sumsq(const kr_ctx *ctx, const kr_array *x, double *sumsq)
{
    KRI_TRY(kri_vec_check1("kr_vec_norm2", ctx, x, "x"));
    KRI_ARG_NOT_NULL(sumsq);
    const kri_vec_backend *be;
    KRI_TRY(kri_vec_pick(&be, x, "kr_vec_norm2"));
    double r = 0.0;
    KRI_TRY(be->sumsq(ctx, x->dtype, kr_array_numel(x), x->data, &r));
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
    const kri_vec_backend *be;
    KRI_TRY(kri_vec_pick(&be, x, "kr_vec_random"));
    return be->random(ctx, x->dtype, kr_array_numel(x), x->data, seed);
}

kr_dtype kri_real_dtype(kr_dtype t)
{
    return (t == KR_F32 || t == KR_C64) ? KR_F32 : KR_F64;
}

kr_status kri_vec_dmul(const kr_ctx *ctx, kr_array *z, const kr_array *d, const kr_array *x)
{
    const char *fn = "kri_vec_dmul";
    KRI_TRY(kri_vec_check2(fn, ctx, z, "z", x, "x"));
    KRI_TRY(kri_vec_basic(fn, d, "d"));
    if (d->dtype != kri_real_dtype(x->dtype))
        return kri_fail(KR_ERR_DTYPE, "%s: d is %s; expected %s for %s vectors", fn,
                        kr_dtype_name(d->dtype), kr_dtype_name(kri_real_dtype(x->dtype)),
                        kr_dtype_name(x->dtype));
    if (kr_array_numel(d) != kr_array_numel(x))
        return kri_fail(KR_ERR_DIM, "%s: d has %lld elements but x has %lld", fn,
                        (long long)kr_array_numel(d), (long long)kr_array_numel(x));
    if (d->loc != x->loc || (d->loc == KR_DEVICE && d->device != x->device))
        return kri_fail(KR_ERR_LOCATION, "%s: d and x are in different memory", fn);
    const kri_vec_backend *be;
    KRI_TRY(kri_vec_pick(&be, x, fn));
    return be->dmul(ctx, x->dtype, kr_array_numel(x), z->data, d->data, x->data);
}
