/* kray FFT: one wrapper over FFTW (host) and cuFFT (device).
 *
 * Sign convention: KR_FFT_FORWARD computes X[k] = sum_n x[n] exp(-2 pi i k n / N) (as FFTW, BART
 * and numpy); KR_FFT_BACKWARD uses exp(+2 pi i k n / N). Scaling: none by default (backward
 * after forward multiplies by prod N); KR_FFT_UNITARY scales the result by 1/sqrt(prod N) over
 * the transformed axes, i.e. 1/sqrt(N_axis) per axis (BART's fftu, numpy's norm="ortho").
 * KR_FFT_CENTERED puts the origin at index N/2 (integer division) on input and output of each
 * transformed axis, i.e. ifftshift -> fft -> fftshift (BART's fftc, numpy's
 * fftshift(fft(ifftshift(x)))), exact for even and odd N.
 *
 * Transforms are complex-to-complex on contiguous KR_C64 or KR_C128 arrays, over any subset of
 * axes given as a bit mask (bit d = axis d, axis 0 fastest), batched over the others. Axes of
 * length 1 are identities. An axis longer than 2^31 - 1 is KR_ERR_NOT_SUPPORTED.
 *
 * in == out (in place) is allowed; otherwise the two arrays must not overlap and `in` is never
 * modified.
 *
 * Host (FFTW 3, FFTW_ESTIMATE): axes are transformed one at a time in ascending order; the lines
 * of an axis are cut into fixed groups (the cut depends only on the shape), each group is copied
 * into a 64-byte aligned per-thread scratch buffer (ifftshift fused into the copy), transformed
 * there by one cached single-threaded FFTW plan, and copied back (fftshift and the unitary
 * scale fused into the copy). Every line therefore goes through the same plan on equally
 * aligned memory, so results are bit-identical whatever the thread count (kr_ctx_set_threads)
 * and whatever the alignment of the arrays. Host transforms take a CPU context or ctx == NULL
 * (default OpenMP threads); a CUDA context with host arrays is KR_ERR_LOCATION.
 *
 * Device (cuFFT): runs of up to 3 consecutive transformed axes are one cuFFT plan (advanced
 * layout, batched over the other axes); centring is done by pre/post phase modulation
 * ((-1)^n for even N, exp(+-2 pi i h n / N) with h = N/2 for odd N) fused with the unitary
 * scale. Device work is queued on the ctx's stream (kr_ctx_stream) and is asynchronous with
 * respect to the host; kr_array_copy to the host synchronises. Device results agree with host
 * results to float rounding, not bit for bit.
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

/* Plan a transform for arrays of this dtype/shape at `loc`.
 * axes: bit mask of axes to transform (0 = all axes); bits at or beyond ndim are
 * KR_ERR_INVALID_ARG. KR_DEVICE plans need a CUDA ctx (KR_ERR_NO_DEVICE when the build or the
 * machine has no CUDA device, KR_ERR_LOCATION with a CPU ctx); host plans need a CPU ctx or NULL.
 * The plan keeps `ctx` (which must outlive it) and reads its thread count and stream at each
 * execute. All FFTW/cuFFT planning and scratch allocation happen here: kr_fft_execute allocates
 * nothing unless the ctx's thread count grew since the last call.
 * The plan may be reused with any arrays of the same dtype, shape (trailing 1s ignored) and
 * location. One plan must not be executed from two threads at the same time (use one plan per
 * thread, or kr_fft, which is thread-safe). */
kr_status kr_fft_plan_create(kr_fft_plan **plan, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                             const int64_t *dims, unsigned axes, kr_fft_dir dir, unsigned flags,
                             kr_loc loc);
kr_status kr_fft_execute(kr_fft_plan *plan, const kr_array *in, kr_array *out);
void kr_fft_plan_destroy(kr_fft_plan *plan); /* accepts NULL */

/* One-shot convenience: plans, executes, destroys; in place allowed. Plans come from caches, so
 * repeated calls on one shape plan once: host FFTW plans from the shared FFTW plan cache, device
 * cuFFT plans from a cache of whole plans keyed by dtype, shape, axes, direction, flags and
 * device (at most 16; a plan serves one call at a time, and a call on another stream waits for
 * the plan's previous use). Thread-safe. */
kr_status kr_fft(const kr_ctx *ctx, const kr_array *in, kr_array *out, unsigned axes,
                 kr_fft_dir dir, unsigned flags);

/* Centre shifts (host or device, any dtype, contiguous): fftshift moves index 0 to N/2 (integer
 * division), i.e. out[(j + N/2) mod N] = in[j] per selected axis; ifftshift is its inverse
 * (out[j] = in[(j + N/2) mod N]). axes = 0 means all axes. in == out allowed. */
kr_status kr_fftshift(const kr_ctx *ctx, const kr_array *in, kr_array *out, unsigned axes);
kr_status kr_ifftshift(const kr_ctx *ctx, const kr_array *in, kr_array *out, unsigned axes);

/* Drop the cached plans not in use: host FFTW plans that no live kr_fft_plan uses (when none is
 * left in use also calls fftw_cleanup / fftwf_cleanup) and the device cuFFT plans of kr_fft
 * (with their work areas) that no call is using. Done automatically at exit. Thread-safe. */
void kr_fft_cache_clear(void);

#ifdef __cplusplus
}
#endif
#endif
