/* Internal helpers shared across kray's C sources (not installed). */
#ifndef KRAY_INTERNAL_H
#define KRAY_INTERNAL_H

#include "kray/core.h"

#include <stdarg.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Record the detail sentence for this thread and return `s`. Use as
 *   return kri_fail(KR_ERR_DIM, "sinogram has %s values, geometry expects %s", a, b);  */
kr_status kri_fail(kr_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
kr_status kri_vfail(kr_status s, const char *fmt, va_list ap);
/* Prefix the current detail with "context: " (keeps the status). */
kr_status kri_fail_prefix(kr_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Copy `src` into dst (len bytes, always terminated) with every control byte (< 0x20, 0x7f)
 * written as \xNN, so that a message quoting file contents is one line without terminal
 * escapes. kri_fail and kri_fail_prefix pass every sentence through it, and the command line
 * does the same with its own messages. Returns the length written. */
size_t kri_escape(char *dst, size_t len, const char *src);

/* Propagate a non-OK status. */
#define KRI_TRY(expr)                                                                          \
    do {                                                                                       \
        kr_status kri_try_s_ = (expr);                                                         \
        if (kri_try_s_ != KR_OK) return kri_try_s_;                                            \
    } while (0)

/* NULL-argument check with a sentence naming the argument and the function. */
#define KRI_ARG_NOT_NULL(p)                                                                    \
    do {                                                                                       \
        if ((p) == NULL)                                                                       \
            return kri_fail(KR_ERR_INVALID_ARG, "%s: argument '%s' is NULL", __func__, #p);    \
    } while (0)

/* ---- host memory (64-byte aligned, checked) ----------------------------------------------- */
void *kri_malloc(size_t bytes);            /* NULL on failure (or bytes == 0 -> 64-byte block) */
void *kri_calloc(size_t n, size_t size);   /* zeroed; NULL on failure or overflow */
/* Physical memory of the machine in bytes (0 when unknown). */
uint64_t kri_host_memory_bytes(void);
void kri_free(void *p);
/* Allocate or fail with KR_ERR_OOM_HOST and a sentence naming `what`. */
kr_status kri_alloc(void **p, size_t bytes, const char *what);
/* a * b without overflow; returns false on overflow or negative inputs. */
bool kri_mul_ok(int64_t a, int64_t b, int64_t *out);

/* ---- device memory (implemented in src/core/gpu.c; NO_DEVICE when built without CUDA) ----- */
kr_status kri_device_alloc(void **p, size_t bytes, int device, const char *what);
void kri_device_free(void *p);
/* Copy bytes between any two locations; synchronous with respect to the host. */
kr_status kri_memcpy(void *dst, kr_loc dst_loc, const void *src, kr_loc src_loc, size_t bytes,
                     const kr_ctx *ctx);
kr_status kri_device_memset0(void *p, size_t bytes, const kr_ctx *ctx);
kr_status kri_device_synchronize(const kr_ctx *ctx);
/* Make the ctx's device current (no-op without CUDA, and for a CPU context). */
kr_status kri_cuda_set_device(const kr_ctx *ctx);
/* A non-blocking stream on the ctx's device, and its release (CUDA builds; NO_DEVICE without). */
kr_status kri_cuda_stream_create(const kr_ctx *ctx, void **stream);
void kri_cuda_stream_destroy(const kr_ctx *ctx, void *stream);
/* Copy bytes from device src_dev to device dst_dev (the same device, or peers: through peer
 * access where the devices have it, enabled on first use, else staged by the driver) on the
 * ctx's stream, and wait for it. */
kr_status kri_memcpy_peer(void *dst, int dst_dev, const void *src, int src_dev, size_t bytes,
                          const kr_ctx *ctx);
/* True when the build has CUDA support compiled in. */
bool kri_have_cuda(void);

/* ---- context internals --------------------------------------------------------------------- */
/* Threads to use for an OpenMP region under this ctx (1 for CPU_SERIAL; ctx NULL = default). */
int kri_threads(const kr_ctx *ctx);
/* Require that the ctx backend can operate on arrays at `loc` (CUDA ctx for device arrays). */
kr_status kri_check_loc(const kr_ctx *ctx, kr_loc loc, const char *what);
/* The one operand check of every public entry point that takes arrays. An operand: not NULL
 * and with data (KR_ERR_INVALID_ARG), of `dtype` (KR_ERR_DTYPE), at `loc` (KR_ERR_LOCATION),
 * contiguous (KR_ERR_NOT_SUPPORTED); the sentence names fn and what ("kr_lsq_rhs: data is c128;
 * expected c64"). KRI_ANY_DTYPE / KRI_ANY_LOC skip that test. */
#define KRI_ANY_DTYPE ((kr_dtype)-1)
#define KRI_ANY_LOC ((kr_loc)-1)
kr_status kri_check_operand(const char *fn, const char *what, const kr_array *a, kr_dtype dtype,
                            kr_loc loc);
/* The same, and the shape: `ndim` dims, each equal to dims[i] unless dims[i] < 0 (any extent);
 * axes of `a` beyond ndim must be 1, missing ones count as 1 (KR_ERR_DIM, naming both). */
kr_status kri_check_operand_dims(const char *fn, const char *what, const kr_array *a,
                                 kr_dtype dtype, kr_loc loc, int ndim, const int64_t *dims);

/* ---- misc ---------------------------------------------------------------------------------- */
/* Smallest 2^a 3^b 5^c >= n (an FFT length FFTW and cuFFT transform fast; n < 1 gives 1). */
int64_t kri_fft_good_size(int64_t n);
/* Qualifiers of a small function that host and CUDA code both call. */
#if defined(__CUDACC__)
#define KRI_HD __host__ __device__
#else
#define KRI_HD
#endif

/* A view of contiguous `a` from element `off`, shaped `dims` (the caller checks that it fits),
 * on a's device. */
kr_status kri_array_view(kr_array *v, const kr_array *a, int nd, const int64_t *dims,
                         int64_t off);
/* Element i of a host array as (re, im) doubles, any dtype (im 0 for real ones). */
void kri_array_elem(const kr_array *a, int64_t i, double *re, double *im);
/* qsort comparator: ascending doubles (the first double of each element). */
static inline int kri_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
/* Deterministic counter-based random numbers (splitmix64): value i of stream `seed`. */
static inline KRI_HD uint64_t kri_rand_u64(uint64_t seed, uint64_t i)
{
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
/* Uniform in [-1, 1) with 53 random bits. */
static inline double kri_rand_sym(uint64_t seed, uint64_t i)
{
    return (double)(kri_rand_u64(seed, i) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

#ifdef __cplusplus
}
#endif
#endif
