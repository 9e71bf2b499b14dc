/* Private interface between src/core/fft.c and src/core/fft_cuda.cu (not installed).
 * fft.c validates every argument; these launchers trust them. Device pointers are plain void *.
 * All work is queued on `stream` (a cudaStream_t, NULL = default stream) without synchronising;
 * every CUDA / cuFFT return code and kernel launch is checked (KR_ERR_CUDA, KR_ERR_FFT,
 * KR_ERR_OOM_DEVICE with a sentence). */
#ifndef KRAY_FFT_INTERNAL_H
#define KRAY_FFT_INTERNAL_H

#include "internal.h"
#include "kray/fft.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kri_cuda_fft kri_cuda_fft;

/* A cuFFT result code (cufftResult) by name, and the failure of `what` with it
 * (KR_ERR_OOM_DEVICE for CUFFT_ALLOC_FAILED, else KR_ERR_FFT), for every cuFFT caller. */
const char *kri_cufft_name(int result);
kr_status kri_cufft_fail(int result, const char *what);

/* cuFFT plans for a C2C transform of a contiguous KR_C64 / KR_C128 array of `dims` over the
 * axes in `axes` (bits of axes of length 1 must already be cleared; axes != 0), direction
 * dir (-1 forward, +1 backward), flags as kr_fft_flags, on CUDA device `device`. */
kr_status kri_cuda_fft_create(kri_cuda_fft **out, kr_dtype dtype, int ndim, const int64_t *dims,
                              unsigned axes, int dir, unsigned flags, int device);
/* Transform in -> out (in == out allowed; in is not modified otherwise). */
kr_status kri_cuda_fft_execute(kri_cuda_fft *plan, const void *in, void *out, void *stream);
void kri_cuda_fft_destroy(kri_cuda_fft *plan); /* accepts NULL */

/* Rotate a contiguous device array of `ndim`/`dims` with elements of esize bytes (1, 2, 4, 8 or
 * 16) along the axes in `axes`: out[(j + s) mod n] = in[j] with s = n/2 (fftshift, inverse == 0)
 * or s = n - n/2 (ifftshift). in == out allowed (uses a stream-ordered temporary). */
kr_status kri_cuda_fft_shift(size_t esize, int ndim, const int64_t *dims, unsigned axes,
                             int inverse, const void *in, void *out, int device, void *stream);

#ifdef __cplusplus
}
#endif
#endif
