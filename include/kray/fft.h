/* kray FFT: one wrapper over FFTW (host) and cuFFT (device).
 *
 * Sign convention: KR_FFT_FORWARD computes X[k] = sum_n x[n] exp(-2 pi i k n / N) (as FFTW, BART
 * and numpy); KR_FFT_BACKWARD uses exp(+2 pi i k n / N). Scaling: none by default (backward
 * after forward multiplies by N); KR_FFT_UNITARY scales each transformed axis by 1/sqrt(N_axis)
 * (BART's fftu). KR_FFT_CENTERED puts the origin at index N/2 (integer division) on input and
 * output of each transformed axis, i.e. ifftshift -> fft -> fftshift (BART's fftc, numpy's
 * fftshift(fft(ifftshift(x)))), for even and odd N.
 *
 * Transforms are complex-to-complex on KR_C64 or KR_C128 arrays, over any subset of axes given
 * as a bit mask (bit d = axis d, axis 0 fastest), batched over the others. Host results do not
 * depend on the thread count (each 1-D line is transformed by the same single-threaded plan).
 */
#ifndef KRAY_FFT_H
#define KRAY_FFT_H

#include "kray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kr_fft_dir { KR_FFT_FORWARD = -1, KR_FFT_BACKWARD = +1 } kr_fft_dir;

enum kr_fft_flags {
    KR_FFT_CENTERED = 1u << 0, /* origin at N/2 on both sides */
    KR_FFT_UNITARY = 1u << 1   /* scale by 1/sqrt(prod of transformed dims) */
};

typedef struct kr_fft_plan kr_fft_plan;

/* Plan a transform for arrays of this dtype/shape at `loc` (KR_DEVICE requires a CUDA ctx).
 * axes: bit mask of axes to transform (0 = all axes with dim > 1). The plan may be reused with
 * any arrays of the same dtype, shape and location; in == out is allowed. */
kr_status kr_fft_plan_create(kr_fft_plan **plan, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                             const int64_t *dims, unsigned axes, kr_fft_dir dir, unsigned flags,
                             kr_loc loc);
kr_status kr_fft_execute(kr_fft_plan *plan, const kr_array *in, kr_array *out);
void kr_fft_plan_destroy(kr_fft_plan *plan); /* accepts NULL */

/* One-shot convenience: plans (host plans are cached per shape), executes, in place allowed. */
kr_status kr_fft(const kr_ctx *ctx, const kr_array *in, kr_array *out, unsigned axes,
                 kr_fft_dir dir, unsigned flags);

/* Centre shifts (host or device, any dtype): fftshift moves index 0 to N/2; ifftshift inverts.
 * in == out allowed. */
kr_status kr_fftshift(const kr_ctx *ctx, const kr_array *in, kr_array *out, unsigned axes);
kr_status kr_ifftshift(const kr_ctx *ctx, const kr_array *in, kr_array *out, unsigned axes);

/* Drop cached host plans (also done at exit). */
void kr_fft_cache_clear(void);

#ifdef __cplusplus
}
#endif
#endif
