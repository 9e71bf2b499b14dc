/* kr_array: descriptors, allocation on host or device, copies and element-type conversion. */
#include "ctx_state.h"
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

kr_status kr_dims_check(int ndim, const int64_t *dims, const char *what)
{
    if (!what) what = "array";
    if (ndim < 1 || ndim > KR_MAX_DIMS)
        return kri_fail(KR_ERR_DIM, "%s: number of dimensions %d is outside 1..%d", what, ndim,
                        KR_MAX_DIMS);
    if (!dims) return kri_fail(KR_ERR_INVALID_ARG, "%s: dims is NULL", what);
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) {
        if (dims[i] < 1)
            return kri_fail(KR_ERR_DIM, "%s: dimension %d has size %lld (must be >= 1)", what, i,
                            (long long)dims[i]);
        if (!kri_mul_ok(n, dims[i], &n) || n > KR_MAX_ELEMENTS)
            return kri_fail(KR_ERR_DIM, "%s: element count exceeds the limit of 2^40", what);
    }
    return KR_OK;
}

const char *kr_dims_string(int ndim, const int64_t *dims, char *buf, size_t len)
{
    if (!buf || !len) return "";
    buf[0] = '\0';
    size_t used = 0;
    for (int i = 0; i < ndim && used < len; i++) {
        int w = snprintf(buf + used, len - used, i ? "x%lld" : "%lld", (long long)dims[i]);
        if (w < 0) break;
        used += (size_t)w;
    }
    return buf;
}

static void kri_set_shape(kr_array *a, kr_dtype dtype, int ndim, const int64_t *dims)
{
    a->dtype = dtype;
    a->ndim = ndim;
    int64_t s = 1;
    for (int i = 0; i < KR_MAX_DIMS; i++) {
        a->dims[i] = i < ndim ? dims[i] : 1;
        a->strides[i] = s;
        s *= a->dims[i];
    }
}

kr_status kr_array_wrap(kr_array *a, kr_dtype dtype, int ndim, const int64_t *dims, void *data,
                        kr_loc loc)
{
    KRI_ARG_NOT_NULL(a);
    if (kr_dtype_size(dtype) == 0)
        return kri_fail(KR_ERR_DTYPE, "kr_array_wrap: invalid element type %d", (int)dtype);
    KRI_TRY(kr_dims_check(ndim, dims, "kr_array_wrap"));
    if (!data) return kri_fail(KR_ERR_INVALID_ARG, "kr_array_wrap: data is NULL");
    if (loc != KR_HOST && loc != KR_DEVICE)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_array_wrap: invalid location %d", (int)loc);
    memset(a, 0, sizeof *a);
    kri_set_shape(a, dtype, ndim, dims);
    a->data = data;
    a->loc = loc;
    return KR_OK;
}

kr_status kri_array_view(kr_array *v, const kr_array *a, int nd, const int64_t *dims,
                         int64_t off)
{
    char *p = (char *)a->data + (size_t)off * kr_dtype_size(a->dtype);
    KRI_TRY(kr_array_wrap(v, a->dtype, nd, dims, p, a->loc));
    v->device = a->device;
    return KR_OK;
}

kr_status kr_array_create(kr_array **out, kr_dtype dtype, int ndim, const int64_t *dims,
                          kr_loc loc, const kr_ctx *ctx)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    if (kr_dtype_size(dtype) == 0)
        return kri_fail(KR_ERR_DTYPE, "kr_array_create: invalid element type %d", (int)dtype);
    KRI_TRY(kr_dims_check(ndim, dims, "kr_array_create"));
    if (loc != KR_HOST && loc != KR_DEVICE)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_array_create: invalid location %d", (int)loc);
    kr_array *a = kri_calloc(1, sizeof *a);
    if (!a) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for an array descriptor");
    kri_set_shape(a, dtype, ndim, dims);
    a->loc = loc;
    a->owns = 1;
    size_t bytes = kr_array_bytes(a);
    if (loc == KR_HOST) {
        a->data = kri_calloc(1, bytes);
        if (!a->data) {
            char d[128];
            kri_free(a);
            return kri_fail(KR_ERR_OOM_HOST, "out of host memory allocating a %s %s array (%zu bytes)",
                            kr_dims_string(ndim, dims, d, sizeof d), kr_dtype_name(dtype), bytes);
        }
    } else {
        a->device = kri_ctx_device(ctx);
        kr_status s = kri_device_alloc(&a->data, bytes, a->device, "an array");
        if (s == KR_OK) s = kri_device_memset0(a->data, bytes, ctx);
        if (s != KR_OK) {
            kri_device_free(a->data);
            kri_free(a);
            return s;
        }
    }
    *out = a;
    return KR_OK;
}

kr_status kr_array_create_like(kr_array **out, const kr_array *like, kr_loc loc,
                               const kr_ctx *ctx)
{
    KRI_ARG_NOT_NULL(like);
    return kr_array_create(out, like->dtype, like->ndim, like->dims, loc, ctx);
}

void kr_array_destroy(kr_array *a)
{
    if (!a) return;
    if (a->owns && a->data) {
        if (a->loc == KR_DEVICE)
            kri_device_free(a->data);
        else
            kri_free(a->data);
    }
    kri_free(a);
}

int64_t kr_array_numel(const kr_array *a)
{
    if (!a || a->ndim < 1 || a->ndim > KR_MAX_DIMS) return 0;
    int64_t n = 1;
    for (int i = 0; i < a->ndim; i++) n *= a->dims[i];
    return n;
}

size_t kr_array_bytes(const kr_array *a)
{
    return a ? (size_t)kr_array_numel(a) * kr_dtype_size(a->dtype) : 0;
}

int kr_array_is_contiguous(const kr_array *a)
{
    if (!a) return 0;
    int64_t s = 1;
    for (int i = 0; i < a->ndim; i++) {
        if (a->dims[i] > 1 && a->strides[i] != s) return 0;
        s *= a->dims[i];
    }
    return 1;
}

int kr_array_rank(const kr_array *a)
{
    if (!a) return 0;
    int r = 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->dims[i] > 1) r = i + 1;
    return r;
}

int kr_array_same_shape(const kr_array *a, const kr_array *b)
{
    if (!a || !b || a->dtype != b->dtype) return 0;
    int n = a->ndim > b->ndim ? a->ndim : b->ndim;
    for (int i = 0; i < n; i++) {
        int64_t da = i < a->ndim ? a->dims[i] : 1, db = i < b->ndim ? b->dims[i] : 1;
        if (da != db) return 0;
    }
    return 1;
}

/* ---- the operand check of public entry points (internal.h) ------------------------------ */
kr_status kri_check_operand(const char *fn, const char *what, const kr_array *a, kr_dtype dtype,
                            kr_loc loc)
{
    if (!a || !a->data)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: %s is NULL or has no data", fn, what);
    if (dtype != KRI_ANY_DTYPE && a->dtype != dtype)
        return kri_fail(KR_ERR_DTYPE, "%s: %s is %s; expected %s", fn, what,
                        kr_dtype_name(a->dtype), kr_dtype_name(dtype));
    if (loc != KRI_ANY_LOC && a->loc != loc)
        return kri_fail(KR_ERR_LOCATION, "%s: %s is in %s memory; expected %s memory", fn,
                        what, a->loc == KR_DEVICE ? "device" : "host",
                        loc == KR_DEVICE ? "device" : "host");
    if (!kr_array_is_contiguous(a))
        return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: %s must be contiguous", fn, what);
    return KR_OK;
}

kr_status kri_check_operand_dims(const char *fn, const char *what, const kr_array *a,
                                 kr_dtype dtype, kr_loc loc, int ndim, const int64_t *dims)
{
    KRI_TRY(kri_check_operand(fn, what, a, dtype, loc));
    int ok = 1; /* missing trailing axes of `a` count as extent 1, extra ones must be 1 */
    for (int i = 0; ok && i < ndim; i++)
        ok = dims[i] < 0 || (i < a->ndim ? a->dims[i] : 1) == dims[i];
    for (int i = ndim; ok && i < a->ndim; i++) ok = a->dims[i] == 1;
    if (!ok) {
        char ga[128], ex[160];
        size_t u = 0;
        ex[0] = '\0';
        for (int i = 0; i < ndim && u < sizeof ex; i++) {
            int w = dims[i] < 0 ? snprintf(ex + u, sizeof ex - u, i ? "x*" : "*")
                                : snprintf(ex + u, sizeof ex - u, i ? "x%lld" : "%lld",
                                           (long long)dims[i]);
            if (w < 0) break;
            u += (size_t)w;
        }
        return kri_fail(KR_ERR_DIM, "%s: %s has dims %s, expected %s", fn, what,
                        kr_dims_string(a->ndim, a->dims, ga, sizeof ga), ex);
    }
    return KR_OK;
}

static kr_status kri_check_array(const kr_array *a, const char *what)
{
    if (!a) return kri_fail(KR_ERR_INVALID_ARG, "%s is NULL", what);
    if (kr_dtype_size(a->dtype) == 0)
        return kri_fail(KR_ERR_DTYPE, "%s has an invalid element type", what);
    KRI_TRY(kr_dims_check(a->ndim, a->dims, what));
    if (!a->data) return kri_fail(KR_ERR_INVALID_ARG, "%s has no data", what);
    if (!kr_array_is_contiguous(a))
        return kri_fail(KR_ERR_NOT_SUPPORTED, "%s is not contiguous", what);
    return KR_OK;
}

kr_status kr_array_copy(kr_array *dst, const kr_array *src, const kr_ctx *ctx)
{
    KRI_TRY(kri_check_array(dst, "copy destination"));
    KRI_TRY(kri_check_array(src, "copy source"));
    if (!kr_array_same_shape(dst, src)) {
        char a[128], b[128];
        return kri_fail(KR_ERR_DIM, "copy: source is %s %s, destination is %s %s",
                        kr_dims_string(src->ndim, src->dims, a, sizeof a), kr_dtype_name(src->dtype),
                        kr_dims_string(dst->ndim, dst->dims, b, sizeof b), kr_dtype_name(dst->dtype));
    }
    return kri_memcpy(dst->data, dst->loc, src->data, src->loc, kr_array_bytes(src), ctx);
}

kr_status kr_array_clone(kr_array **out, const kr_array *src, kr_loc loc, const kr_ctx *ctx)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_TRY(kri_check_array(src, "clone source"));
    kr_array *a;
    KRI_TRY(kr_array_create(&a, src->dtype, src->ndim, src->dims, loc, ctx));
    kr_status s = kr_array_copy(a, src, ctx);
    if (s != KR_OK) {
        kr_array_destroy(a);
        return s;
    }
    *out = a;
    return KR_OK;
}

kr_status kr_array_zero(kr_array *a, const kr_ctx *ctx)
{
    KRI_TRY(kri_check_array(a, "array"));
    if (a->loc == KR_DEVICE) return kri_device_memset0(a->data, kr_array_bytes(a), ctx);
    memset(a->data, 0, kr_array_bytes(a));
    return KR_OK;
}

/* Read element i as (re, im). */
static void kri_get(const kr_array *a, int64_t i, double *re, double *im)
{
    *im = 0.0;
    switch (a->dtype) {
    case KR_F32: *re = ((const float *)a->data)[i]; break;
    case KR_F64: *re = ((const double *)a->data)[i]; break;
    case KR_C64:
        *re = ((const float *)a->data)[2 * i];
        *im = ((const float *)a->data)[2 * i + 1];
        break;
    case KR_C128:
        *re = ((const double *)a->data)[2 * i];
        *im = ((const double *)a->data)[2 * i + 1];
        break;
    case KR_U8: *re = ((const uint8_t *)a->data)[i]; break;
    case KR_U16: *re = ((const uint16_t *)a->data)[i]; break;
    case KR_I16: *re = ((const int16_t *)a->data)[i]; break;
    default: *re = 0.0; break;
    }
}

static double kri_sat(double v, double lo, double hi)
{
    if (isnan(v)) return 0.0;
    v = nearbyint(v);
    return v < lo ? lo : v > hi ? hi : v;
}

static void kri_set(kr_array *a, int64_t i, double re, double im)
{
    switch (a->dtype) {
    case KR_F32: ((float *)a->data)[i] = (float)re; break;
    case KR_F64: ((double *)a->data)[i] = re; break;
    case KR_C64:
        ((float *)a->data)[2 * i] = (float)re;
        ((float *)a->data)[2 * i + 1] = (float)im;
        break;
    case KR_C128:
        ((double *)a->data)[2 * i] = re;
        ((double *)a->data)[2 * i + 1] = im;
        break;
    case KR_U8: ((uint8_t *)a->data)[i] = (uint8_t)kri_sat(re, 0, 255); break;
    case KR_U16: ((uint16_t *)a->data)[i] = (uint16_t)kri_sat(re, 0, 65535); break;
    case KR_I16: ((int16_t *)a->data)[i] = (int16_t)kri_sat(re, -32768, 32767); break;
    default: break;
    }
}

void kri_array_elem(const kr_array *a, int64_t i, double *re, double *im)
{
    kri_get(a, i, re, im);
}

double kr_array_get_f64(const kr_array *a, int64_t i)
{
    double re, im;
    kri_get(a, i, &re, &im);
    return re;
}

kr_status kr_array_convert(kr_array *dst, const kr_array *src)
{
    KRI_TRY(kri_check_array(dst, "conversion destination"));
    KRI_TRY(kri_check_array(src, "conversion source"));
    if (dst->loc != KR_HOST || src->loc != KR_HOST)
        return kri_fail(KR_ERR_LOCATION, "kr_array_convert works on host arrays only");
    int64_t n = kr_array_numel(src);
    if (kr_array_numel(dst) != n)
        return kri_fail(KR_ERR_DIM, "convert: %lld elements into %lld", (long long)n,
                        (long long)kr_array_numel(dst));
    if (dst->dtype == src->dtype) {
        memmove(dst->data, src->data, kr_array_bytes(src));
        return KR_OK;
    }
    if (dst->dtype == KR_F32 && src->dtype == KR_F64) { /* the common ones, as loops that vectorise */
        float *d = dst->data;
        const double *x = src->data;
        for (int64_t i = 0; i < n; i++) d[i] = (float)x[i];
        return KR_OK;
    }
    if (dst->dtype == KR_F64 && src->dtype == KR_F32) {
        double *d = dst->data;
        const float *x = src->data;
        for (int64_t i = 0; i < n; i++) d[i] = (double)x[i];
        return KR_OK;
    }
    for (int64_t i = 0; i < n; i++) {
        double re, im;
        kri_get(src, i, &re, &im);
        kri_set(dst, i, re, im);
    }
    return KR_OK;
}

kr_status kr_array_astype(kr_array **out, const kr_array *src, kr_dtype dtype)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_TRY(kri_check_array(src, "conversion source"));
    kr_array *a;
    KRI_TRY(kr_array_create(&a, dtype, src->ndim, src->dims, KR_HOST, NULL));
    kr_status s = kr_array_convert(a, src);
    if (s != KR_OK) {
        kr_array_destroy(a);
        return s;
    }
    *out = a;
    return KR_OK;
}
