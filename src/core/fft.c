/* kray FFT: argument checking, plans, the one-shot transform and the centre shifts; the work is
 * done by a backend table (fft_internal.h): FFTW on the host (fft_cpu.c), cuFFT on the device
 * (fft_cuda.cu). Conventions are in include/kray/fft.h. */
#include "kray/fft.h"

#include "fft_internal.h"

#include <limits.h>
#include <math.h>
#include <string.h>

struct kr_fft_plan {
    const kr_ctx *ctx;
    kri_fft_desc d;
    kr_loc loc;
    const kri_fft_backend *be;
    void *state; /* the backend's plan; NULL when every selected axis has length 1 */
};

/* Resolve and check an axes mask against ndim (0 = all). Clears axes of length 1. */
static kr_status kri_axes_resolve(unsigned axes, int ndim, const int64_t *dims, unsigned *out,
                                  const char *fn)
{
    unsigned all = ndim >= 32 ? ~0u : (1u << ndim) - 1u;
    if (axes & ~all)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: axes mask 0x%x names axes beyond the %d of the "
                        "array (valid bits 0x%x)", fn, axes, ndim, all);
    if (axes == 0) axes = all;
    for (int d = 0; d < ndim; d++)
        if (dims[d] == 1) axes &= ~(1u << d);
    *out = axes;
    return KR_OK;
}

/* The checks of a plan for arrays of dtype/shape at `loc`, and its description. */
static kr_status kri_fft_describe(kri_fft_desc *d, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                                  const int64_t *dims, unsigned axes, kr_fft_dir dir,
                                  unsigned flags, kr_loc loc, const char *fn)
{
    KRI_ARG_NOT_NULL(dims);
    if (dtype != KR_C64 && dtype != KR_C128)
        return kri_fail(KR_ERR_DTYPE, "FFT needs a c64 or c128 array, got %s",
                        kr_dtype_name(dtype));
    KRI_TRY(kr_dims_check(ndim, dims, "FFT array"));
    if (dir != KR_FFT_FORWARD && dir != KR_FFT_BACKWARD)
        return kri_fail(KR_ERR_INVALID_ARG, "FFT direction must be KR_FFT_FORWARD (-1) or "
                        "KR_FFT_BACKWARD (+1), got %d", (int)dir);
    if (flags & ~(unsigned)(KR_FFT_CENTERED | KR_FFT_UNITARY))
        return kri_fail(KR_ERR_INVALID_ARG, "unknown FFT flags 0x%x", flags);
    if (loc != KR_HOST && loc != KR_DEVICE)
        return kri_fail(KR_ERR_INVALID_ARG, "invalid FFT location %d", (int)loc);
    unsigned ax = 0;
    KRI_TRY(kri_axes_resolve(axes, ndim, dims, &ax, fn));
    if (loc == KR_DEVICE) {
        int ndev;
        KRI_TRY(kr_cuda_device_count(&ndev));
    }
    KRI_TRY(kri_check_loc(ctx, loc, "the FFT plan's array"));
    for (int i = 0; i < ndim; i++)
        if ((ax & (1u << i)) && dims[i] > INT_MAX)
            return kri_fail(KR_ERR_NOT_SUPPORTED, "FFT axis %d has length %lld; at most %d is "
                            "supported", i, (long long)dims[i], INT_MAX);
    memset(d, 0, sizeof *d);
    d->dtype = dtype;
    d->ndim = ndim;
    d->numel = 1;
    double prod = 1.0;
    for (int i = 0; i < ndim; i++) {
        d->dims[i] = dims[i];
        d->numel *= dims[i];
        if (ax & (1u << i)) prod *= (double)dims[i];
    }
    d->axes = ax;
    d->dir = (int)dir;
    d->flags = flags;
    d->scale = (flags & KR_FFT_UNITARY) ? 1.0 / sqrt(prod) : 1.0;
    return KR_OK;
}

void kr_fft_plan_destroy(kr_fft_plan *plan)
{
    if (!plan) return;
    if (plan->be) plan->be->destroy(plan->state);
    kri_free(plan);
}

kr_status kr_fft_plan_create(kr_fft_plan **plan, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                             const int64_t *dims, unsigned axes, kr_fft_dir dir, unsigned flags,
                             kr_loc loc)
{
    KRI_ARG_NOT_NULL(plan);
    *plan = NULL;
    kri_fft_desc d;
    KRI_TRY(kri_fft_describe(&d, ctx, dtype, ndim, dims, axes, dir, flags, loc,
                             "kr_fft_plan_create"));
    const kri_fft_backend *be;
    KRI_TRY(kri_backend_pick(&be, loc, &kri_fft_cpu, &kri_fft_cuda, "FFT on device arrays"));
    kr_fft_plan *p = kri_calloc(1, sizeof *p);
    if (!p) return kri_fail(KR_ERR_OOM_HOST, "out of host memory creating an FFT plan");
    p->ctx = ctx;
    p->d = d;
    p->loc = loc;
    if (d.axes != 0) {
        kr_status s = be->create(&p->state, ctx, &d);
        if (s != KR_OK) {
            kr_fft_plan_destroy(p);
            return s;
        }
        p->be = be;
    }
    char buf[128];
    kr_log(ctx, KR_LOG_DEBUG, "fft plan: %s %s axes 0x%x %s%s%s on %s",
           kr_dtype_name(dtype), kr_dims_string(ndim, dims, buf, sizeof buf), d.axes,
           dir == KR_FFT_FORWARD ? "forward" : "backward",
           (flags & KR_FFT_CENTERED) ? " centered" : "", (flags & KR_FFT_UNITARY) ? " unitary" : "",
           loc == KR_HOST ? "host" : "device");
    *plan = p;
    return KR_OK;
}

/* ---- execute / one-shot --------------------------------------------------------------------- */
/* Checks shared by execute, kr_fft and the shifts: two operands of one dtype, shape, location
 * and device, not partly overlapping. */
static kr_status kri_check_pair(const kr_array *in, const kr_array *out, const char *fn)
{
    if (in) KRI_TRY(kr_dims_check(in->ndim, in->dims, "input array"));
    if (out) KRI_TRY(kr_dims_check(out->ndim, out->dims, "output array"));
    KRI_TRY(kri_check_operand(fn, "input", in, KRI_ANY_DTYPE, KRI_ANY_LOC));
    KRI_TRY(kri_check_operand_dims(fn, "output", out, in->dtype, in->loc, in->ndim, in->dims));
    if (in->loc == KR_DEVICE && in->device != out->device)
        return kri_fail(KR_ERR_LOCATION, "%s: input is on CUDA device %d, output on device %d",
                        fn, in->device, out->device);
    if (in->data != out->data) {
        uintptr_t i0 = (uintptr_t)in->data, o0 = (uintptr_t)out->data;
        size_t bytes = kr_array_bytes(in);
        if (i0 < o0 + bytes && o0 < i0 + bytes)
            return kri_fail(KR_ERR_INVALID_ARG, "%s: input and output overlap without being the "
                            "same array", fn);
    }
    return KR_OK;
}

/* Device arrays must be on the ctx's device. */
static kr_status kri_check_device(const kr_ctx *ctx, const kr_array *a, const char *fn,
                                  const char *whose)
{
    if (a->loc == KR_DEVICE && a->device != kr_ctx_device(ctx))
        return kri_fail(KR_ERR_LOCATION, "%s: the arrays are on CUDA device %d, the %scontext "
                        "uses device %d", fn, a->device, whose, kr_ctx_device(ctx));
    return KR_OK;
}

/* Every selected axis has length 1: the transform (and the shift) is a copy. */
static kr_status kri_identity(const kr_ctx *ctx, const kr_array *in, kr_array *out)
{
    if (in->data == out->data) return KR_OK;
    return kri_memcpy(out->data, out->loc, in->data, in->loc, kr_array_bytes(in), ctx);
}

kr_status kr_fft_execute(kr_fft_plan *plan, const kr_array *in, kr_array *out)
{
    KRI_ARG_NOT_NULL(plan);
    KRI_TRY(kri_check_pair(in, out, "kr_fft_execute"));
    KRI_TRY(kri_check_operand_dims("kr_fft_execute", "input", in, plan->d.dtype, plan->loc,
                                   plan->d.ndim, plan->d.dims));
    KRI_TRY(kri_check_device(plan->ctx, in, "kr_fft_execute", "plan's "));
    if (!plan->state) return kri_identity(plan->ctx, in, out);
    return plan->be->execute(plan->state, plan->ctx, in->data, out->data);
}

kr_status kr_fft(const kr_ctx *ctx, const kr_array *in, kr_array *out, unsigned axes,
                 kr_fft_dir dir, unsigned flags)
{
    KRI_TRY(kri_check_pair(in, out, "kr_fft"));
    if (in->dtype != KR_C64 && in->dtype != KR_C128)
        return kri_fail(KR_ERR_DTYPE, "kr_fft: FFT needs c64 or c128 arrays, got %s",
                        kr_dtype_name(in->dtype));
    KRI_TRY(kri_check_loc(ctx, in->loc, "kr_fft: the input array"));
    kri_fft_desc d;
    KRI_TRY(kri_fft_describe(&d, ctx, in->dtype, in->ndim, in->dims, axes, dir, flags, in->loc,
                             "kr_fft"));
    KRI_TRY(kri_check_device(ctx, in, "kr_fft", ""));
    if (d.axes == 0) return kri_identity(ctx, in, out);
    const kri_fft_backend *be;
    KRI_TRY(kri_backend_pick(&be, in->loc, &kri_fft_cpu, &kri_fft_cuda, "FFT on device arrays"));
    return be->run(ctx, &d, in->data, out->data);
}

void kr_fft_cache_clear(void)
{
    kri_fft_cpu.cache_clear();
    if (kri_fft_cuda.hdr.present) kri_fft_cuda.cache_clear();
}

int64_t kri_fft_plans_made(kr_loc loc)
{
    const kri_fft_backend *be = loc == KR_DEVICE ? &kri_fft_cuda : &kri_fft_cpu;
    return be->hdr.present ? be->plans_made() : 0;
}

/* ---- centre shifts -------------------------------------------------------------------------- */
static kr_status kri_shift(const kr_ctx *ctx, const kr_array *in, kr_array *out, unsigned axes,
                           int inverse, const char *fn)
{
    KRI_TRY(kri_check_pair(in, out, fn));
    size_t es = kr_dtype_size(in->dtype);
    if (es == 0) return kri_fail(KR_ERR_DTYPE, "%s: invalid dtype %d", fn, (int)in->dtype);
    KRI_TRY(kri_check_loc(ctx, in->loc, "the array to shift"));
    unsigned ax = 0;
    KRI_TRY(kri_axes_resolve(axes, in->ndim, in->dims, &ax, fn));
    KRI_TRY(kri_check_device(ctx, in, fn, ""));
    if (ax == 0) return kri_identity(ctx, in, out);
    const kri_fft_backend *be;
    KRI_TRY(kri_backend_pick(&be, in->loc, &kri_fft_cpu, &kri_fft_cuda, fn));
    return be->shift(ctx, es, in->ndim, in->dims, ax, inverse, in->data, out->data);
}

kr_status kr_fftshift(const kr_ctx *ctx, const kr_array *in, kr_array *out, unsigned axes)
{
    return kri_shift(ctx, in, out, axes, 0, "kr_fftshift");
}

kr_status kr_ifftshift(const kr_ctx *ctx, const kr_array *in, kr_array *out, unsigned axes)
{
    return kri_shift(ctx, in, out, axes, 1, "kr_ifftshift");
}

int64_t kri_fft_good_size(int64_t n)
{
    for (int64_t m = n > 1 ? n : 1;; m++) {
        int64_t r = m;
        while (r % 2 == 0) r /= 2;
        while (r % 3 == 0) r /= 3;
        while (r % 5 == 0) r /= 5;
        if (r == 1) return m;
    }
}
