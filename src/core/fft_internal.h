/* Private interface of the FFT (not installed): the front src/core/fft.c validates every
 * argument and picks a backend table (core/backend.h); fft_cpu.c (FFTW) and fft_cuda.cu (cuFFT;
 * fft_nocuda.c without CUDA) fill the tables and trust their arguments. Device pointers are
 * plain void *. Device work is queued on the ctx's stream without synchronising; every CUDA /
 * cuFFT return code and kernel launch is checked (KR_ERR_CUDA, KR_ERR_FFT, KR_ERR_OOM_DEVICE
 * with a sentence). */
#ifndef KRAY_FFT_INTERNAL_H
#define KRAY_FFT_INTERNAL_H

#include "backend.h"
#include "kray/fft.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A cuFFT result code (cufftResult) by name, and the failure of `what` with it
 * (KR_ERR_OOM_DEVICE for CUFFT_ALLOC_FAILED, else KR_ERR_FFT), for every cuFFT caller
 * (fft_cuda.cu; only in a build with CUDA). */
const char *kri_cufft_name(int result);
kr_status kri_cufft_fail(int result, const char *what);

/* One C2C transform of a contiguous KR_C64 / KR_C128 array of ndim/dims over the axes in `axes`
 * (resolved: bits of axes of length 1 cleared; axes != 0), direction dir (-1 forward, +1
 * backward), flags as kr_fft_flags; scale is 1 or 1/sqrt(prod of the transformed lengths). */
typedef struct kri_fft_desc {
    kr_dtype dtype;
    int ndim;
    int64_t dims[KR_MAX_DIMS];
    int64_t numel;
    unsigned axes;
    int dir;
    unsigned flags;
    double scale;
} kri_fft_desc;

/* The backend seam: kri_fft_cpu (fft_cpu.c) for host arrays, kri_fft_cuda (fft_cuda.cu) for
 * device arrays on the ctx's device.
 *   create / execute / destroy: a plan's state (FFTW plans and scratch on the host; cuFFT plans
 *     and their work area on the ctx's device); execute reads the ctx's threads or stream;
 *     in == out allowed, `in` is not modified otherwise.
 *   run: one transform through the backend's plan cache (what kr_fft does): the host caches
 *     FFTW plans, the device whole cuFFT plans, each bounded, thread-safe, emptied of idle
 *     plans by cache_clear and at exit.
 *   plans_made: plans made so far (FFTW plans on the host, cuFFT plans on the device), for the
 *     tests of the caches.
 *   shift: out[(j + s) mod n] = in[j] along the axes in `axes` (!= 0), s = n/2 (fftshift,
 *     inverse == 0) or n - n/2 (ifftshift); elements of esize bytes; in == out allowed. */
typedef struct kri_fft_backend {
    kri_backend_hdr hdr;
    kr_status (*create)(void **state, const kr_ctx *ctx, const kri_fft_desc *d);
    kr_status (*execute)(void *state, const kr_ctx *ctx, const void *in, void *out);
    void (*destroy)(void *state); /* accepts NULL */
    kr_status (*run)(const kr_ctx *ctx, const kri_fft_desc *d, const void *in, void *out);
    void (*cache_clear)(void);
    int64_t (*plans_made)(void);
    kr_status (*shift)(const kr_ctx *ctx, size_t esize, int ndim, const int64_t *dims,
                       unsigned axes, int inverse, const void *in, void *out);
} kri_fft_backend;
extern const kri_fft_backend kri_fft_cpu, kri_fft_cuda;

/* One in-place complex FFT of length n on the host (kr_dtype KR_C64 or KR_C128, dir -1 forward,
 * +1 backward, unnormalised), for code that transforms lines of its own inside its own loops
 * (the CPU ramp filter fuses weighting, transform, response and unpacking per line): an FFTW
 * plan from the host plan cache. Lines must be 64-byte aligned; executing is thread-safe and
 * gives the same bits on every line with the same values. fft_cpu.c. */
typedef struct kri_fft_line kri_fft_line;
kr_status kri_fft_line_create(kri_fft_line **out, kr_dtype dtype, int64_t n, int dir);
void kri_fft_line_execute(const kri_fft_line *l, void *line);
void kri_fft_line_destroy(kri_fft_line *l); /* accepts NULL */

/* Plans made so far by the backend for arrays at `loc` (0 where that backend is absent): a
 * test calls kr_fft twice on one shape and sees the count grow once. */
int64_t kri_fft_plans_made(kr_loc loc);

#ifdef __cplusplus
}
#endif
#endif
