/* kray core: status codes, last-error detail, execution context, arrays, timers, progress.
 *
 * Conventions used by every kray header:
 *   - every public function returns kr_status (KR_OK == 0); on failure kr_last_error() gives a
 *     thread-local sentence with the detail;
 *   - dims are listed fastest-varying first (Fortran / BART order);
 *   - no CUDA types appear in public headers: device pointers are plain void *.
 */
#ifndef KRAY_CORE_H
#define KRAY_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KRAY_VERSION_MAJOR 0
#define KRAY_VERSION_MINOR 1
#define KRAY_VERSION_PATCH 0
#define KRAY_VERSION_STRING "0.1.0"

/* ---- status ------------------------------------------------------------------------------ */
typedef enum kr_status {
    KR_OK = 0,
    KR_ERR_INVALID_ARG,   /* NULL pointer, bad option value, out-of-range parameter */
    KR_ERR_DIM,           /* dimensions that do not agree or are not allowed */
    KR_ERR_DTYPE,         /* element type not accepted by this function */
    KR_ERR_LOCATION,      /* operands on different devices (host vs GPU), never copied silently */
    KR_ERR_GEOMETRY,      /* inconsistent scanner / trajectory geometry */
    KR_ERR_IO,            /* the operating system refused a read or write */
    KR_ERR_FORMAT,        /* a file exists but its content is malformed or unsupported */
    KR_ERR_OOM_HOST,      /* host allocation failed */
    KR_ERR_OOM_DEVICE,    /* device allocation failed */
    KR_ERR_CUDA,          /* a CUDA call or kernel launch failed */
    KR_ERR_FFT,           /* FFTW / cuFFT planning or execution failed */
    KR_ERR_NO_DEVICE,     /* CUDA requested but no usable device (or built without CUDA) */
    KR_ERR_NOT_SUPPORTED, /* valid request that this build or backend does not implement */
    KR_ERR_NOT_CONVERGED, /* an iterative method stopped before reaching its tolerance */
    KR_ERR_INTERNAL,      /* a bug in kray: please report */
    KR_STATUS_COUNT
} kr_status;

/* Short fixed name of a status, e.g. "KR_ERR_FORMAT". Never NULL. */
const char *kr_status_string(kr_status s);
/* Thread-local sentence describing the last failure on this thread ("" when none). */
const char *kr_last_error(void);
void kr_clear_error(void);

/* ---- version ----------------------------------------------------------------------------- */
const char *kr_version(void);
/* Build features, e.g. "openmp fftw cuda(sm_90) png zlib". */
const char *kr_build_features(void);
/* The optional parts of this build, which kray loads only when a call first needs them (cufft:
 * the CUDA toolkit's cuFFT; ismrmrd: libismrmrd; dcmtk: kray's DICOM plug-in), one line each
 * into buf (always terminated when len > 0): "<part> <state> <file or reason>", state
 * "present" (its file is where the loader looks; not loaded yet), "loaded" or "missing".
 * load != 0 loads each part first, so the state is "loaded" or "missing" with the loader's
 * reason (that takes tens of milliseconds). Returns the number of parts. */
int kr_optional_parts(char *buf, size_t len, int load);

/* ---- element types ----------------------------------------------------------------------- */
typedef enum kr_dtype {
    KR_DTYPE_INVALID = 0,
    KR_F32,  /* float */
    KR_F64,  /* double */
    KR_C64,  /* complex float: interleaved (re, im) float pairs */
    KR_C128, /* complex double */
    KR_U8,
    KR_U16,
    KR_I16,
    KR_DTYPE_COUNT
} kr_dtype;

size_t kr_dtype_size(kr_dtype t);           /* bytes per element, 0 if invalid */
const char *kr_dtype_name(kr_dtype t);      /* "f32", "f64", "c64", "c128", "u8", "u16", "i16" */
kr_dtype kr_dtype_from_name(const char *s); /* KR_DTYPE_INVALID if unknown */
int kr_dtype_is_complex(kr_dtype t);
int kr_dtype_is_float(kr_dtype t);          /* f32, f64, c64, c128 */
kr_dtype kr_dtype_real(kr_dtype t);         /* c64 -> f32, c128 -> f64, else itself */
kr_dtype kr_dtype_complex(kr_dtype t);      /* f32 -> c64, f64 -> c128, complex -> itself */

/* ---- context ----------------------------------------------------------------------------- */
typedef enum kr_backend {
    KR_BACKEND_AUTO = 0,   /* CUDA when a device is present, else CPU; resolved at ctx creation */
    KR_BACKEND_CPU_SERIAL, /* one thread, the reference */
    KR_BACKEND_CPU,        /* OpenMP, bit-identical to CPU_SERIAL by design */
    KR_BACKEND_CUDA
} kr_backend;

typedef enum kr_log_level {
    KR_LOG_QUIET = 0,
    KR_LOG_ERROR,
    KR_LOG_WARN,
    KR_LOG_INFO,
    KR_LOG_DEBUG
} kr_log_level;

/* Progress callback: fraction in [0,1]; done != 0 on the last call of a task. */
typedef void (*kr_progress_fn)(void *user, const char *task, double fraction, int done);

typedef struct kr_ctx kr_ctx;

/* Create a context. AUTO is resolved here (and logged at INFO). Asking for CUDA without a
 * usable device fails with KR_ERR_NO_DEVICE. Defaults: device 0, threads = OpenMP default,
 * log level WARN, progress bar on stderr when stderr is a terminal. */
kr_status kr_ctx_create(kr_ctx **ctx, kr_backend backend);
void kr_ctx_destroy(kr_ctx *ctx); /* accepts NULL */

kr_backend kr_ctx_backend(const kr_ctx *ctx);      /* resolved backend (never AUTO) */
int kr_ctx_threads(const kr_ctx *ctx);             /* 1 for CPU_SERIAL */
int kr_ctx_device(const kr_ctx *ctx);
void *kr_ctx_stream(const kr_ctx *ctx);            /* cudaStream_t as void*, NULL = default */
kr_log_level kr_ctx_log_level(const kr_ctx *ctx);

kr_status kr_ctx_set_threads(kr_ctx *ctx, int nthreads);   /* 0 = OpenMP default */
kr_status kr_ctx_set_device(kr_ctx *ctx, int device);
kr_status kr_ctx_set_stream(kr_ctx *ctx, void *stream);
kr_status kr_ctx_set_log_level(kr_ctx *ctx, kr_log_level level);
/* fn == NULL restores the default (bar on a terminal); kr_ctx_set_quiet disables progress. */
kr_status kr_ctx_set_progress(kr_ctx *ctx, kr_progress_fn fn, void *user);
kr_status kr_ctx_set_quiet(kr_ctx *ctx, int quiet);

/* ---- several devices ------------------------------------------------------------------------
 * A context holds a list of devices (1 to KR_MAX_DEVICES entries, default {0}). Plans that can
 * divide their work divide it over the list (docs/scaling.md: FDK by z slabs, the cone-beam
 * projectors and so every solver that uses them by views and slabs, the batched MRI plans by
 * batch entries, the Bloch simulator by isochromats); every other plan uses the first entry,
 * which is also what kr_ctx_device returns. Arrays a divided plan takes and returns live where
 * the first device is (host memory for the CPU backends); the plan moves what the other devices
 * need and gathers their results.
 *   CUDA: entries are device ordinals; one ordinal may appear more than once (two workers share
 *         that GPU, which tests a division on a machine with one GPU).
 *   CPU:  entries are labels of parts of the machine: n entries divide the work into n parts
 *         that run at once, each with its share of the ctx's threads. The results equal the
 *         undivided ones bit for bit (every division keeps each output value's arithmetic).
 * kr_ctx_set_device(ctx, d) sets the list {d}. */
#define KR_MAX_DEVICES 64
kr_status kr_ctx_set_devices(kr_ctx *ctx, int n, const int *devices);
/* "0,2,3" (a comma-separated list of entries 0..1023) or "all" (every CUDA device; one part for
 * a CPU context). */
kr_status kr_ctx_set_devices_spec(kr_ctx *ctx, const char *spec);
int kr_ctx_ndevices(const kr_ctx *ctx);          /* 1 for ctx NULL */
int kr_ctx_device_at(const kr_ctx *ctx, int i);  /* entry i, 0 <= i < kr_ctx_ndevices */

const char *kr_backend_name(kr_backend b);                 /* "auto", "cpu-serial", "cpu", "cuda" */
kr_status kr_backend_from_name(const char *s, kr_backend *b);
/* Number of backends: kr_backend_name(0 .. kr_backend_count() - 1) lists them (help texts). */
int kr_backend_count(void);

/* Number of usable CUDA devices. Returns KR_ERR_NO_DEVICE (count 0, reason in kr_last_error(),
 * e.g. "no CUDA device: built without CUDA" or "no CUDA device: CUDA driver not found") when
 * there is none. Never crashes on machines without a GPU or driver. */
kr_status kr_cuda_device_count(int *count);
/* One line describing device `dev` ("NVIDIA H100 80GB HBM3, sm_90, 79.6 GiB, 132 SMs"). */
kr_status kr_cuda_device_name(int dev, char *buf, size_t len);

/* ---- arrays ------------------------------------------------------------------------------ */
#define KR_MAX_DIMS 16

typedef enum kr_loc { KR_HOST = 0, KR_DEVICE = 1 } kr_loc;

/* dims fastest-first; strides in elements (not bytes). An array made by kr_array_create is
 * contiguous: strides[0] = 1, strides[i] = strides[i-1] * dims[i-1]. Unused dims are 1. */
typedef struct kr_array {
    kr_dtype dtype;
    int ndim;
    int64_t dims[KR_MAX_DIMS];
    int64_t strides[KR_MAX_DIMS];
    void *data;
    kr_loc loc;
    int device; /* CUDA device ordinal when loc == KR_DEVICE */
    int owns;   /* non-zero: kr_array_destroy frees data */
} kr_array;

/* Largest element count kray accepts for one array (2^40), guards against absurd headers. */
#define KR_MAX_ELEMENTS ((int64_t)1 << 40)

/* Allocate a zero-filled contiguous array (device arrays use the ctx's device; ctx may be NULL
 * for host arrays). */
kr_status kr_array_create(kr_array **out, kr_dtype dtype, int ndim, const int64_t *dims,
                          kr_loc loc, const kr_ctx *ctx);
/* Same shape and dtype as `like`, zero-filled, at loc. */
kr_status kr_array_create_like(kr_array **out, const kr_array *like, kr_loc loc,
                               const kr_ctx *ctx);
void kr_array_destroy(kr_array *a); /* accepts NULL; frees data only if owned */
/* Fill a caller-owned descriptor for existing contiguous memory (not owned). */
kr_status kr_array_wrap(kr_array *a, kr_dtype dtype, int ndim, const int64_t *dims, void *data,
                        kr_loc loc);

int64_t kr_array_numel(const kr_array *a);
size_t kr_array_bytes(const kr_array *a);
int kr_array_is_contiguous(const kr_array *a);
/* Effective rank: index of the last dim > 1, plus one (0 for a scalar). */
int kr_array_rank(const kr_array *a);
/* Same dtype and the same dims (trailing 1s ignored). */
int kr_array_same_shape(const kr_array *a, const kr_array *b);
/* Validate dims: 1 <= ndim <= KR_MAX_DIMS, each dim >= 1, product <= KR_MAX_ELEMENTS without
 * overflow. Sets the detail and returns KR_ERR_DIM otherwise. `what` names the array. */
kr_status kr_dims_check(int ndim, const int64_t *dims, const char *what);
/* "512x512x3" into buf. */
const char *kr_dims_string(int ndim, const int64_t *dims, char *buf, size_t len);

/* Page-lock `bytes` of caller-owned host memory at `ptr` for every CUDA device
 * (cudaHostRegister), so copies between it and a device run at full bus speed; undo with
 * kr_host_unregister(ptr) before the memory is freed. A range overlapping one already
 * registered is refused (KR_ERR_CUDA); KR_ERR_NO_DEVICE without CUDA. */
kr_status kr_host_register(void *ptr, size_t bytes);
kr_status kr_host_unregister(void *ptr);
/* Copy contents between arrays of equal dtype and shape, any locations (host<->device). */
kr_status kr_array_copy(kr_array *dst, const kr_array *src, const kr_ctx *ctx);
/* New array with the same content at loc. */
kr_status kr_array_clone(kr_array **out, const kr_array *src, kr_loc loc, const kr_ctx *ctx);
/* Host only: convert element type (complex -> real takes the real part; real -> complex sets
 * imaginary 0; float -> integer rounds to nearest and saturates). Shapes must match. */
kr_status kr_array_convert(kr_array *dst, const kr_array *src);
/* Host only: new array of another dtype. */
kr_status kr_array_astype(kr_array **out, const kr_array *src, kr_dtype dtype);
/* Set every element to zero (host or device). */
kr_status kr_array_zero(kr_array *a, const kr_ctx *ctx);
/* Host only: value of element i (linear, contiguous) as double (real part for complex). */
double kr_array_get_f64(const kr_array *a, int64_t i);

/* ---- timing ------------------------------------------------------------------------------ */
double kr_time_now(void); /* monotonic seconds */

/* ---- logging (to stderr, respecting the ctx level; ctx may be NULL = WARN) ---------------- */
void kr_log(const kr_ctx *ctx, kr_log_level level, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* ---- progress ---------------------------------------------------------------------------- */
/* A task with `total` units. Reports to the ctx callback; else, unless the ctx is quiet, draws
 * a bar on stderr when stderr is a terminal, or, when it is not (a pipe, a log file), writes one
 * line "kray: <task>: N% after T s" every 5 s once the task has run 5 s, and "done in T s" at
 * the end (tasks shorter than 5 s print nothing; the environment variable
 * KRAY_PROGRESS_SECONDS sets another interval). Cheap when nothing is shown. Thread-safe
 * updates. */
typedef struct kr_progress kr_progress;
kr_progress *kr_progress_begin(const kr_ctx *ctx, const char *task, int64_t total);
void kr_progress_add(kr_progress *p, int64_t units);
void kr_progress_end(kr_progress *p); /* accepts NULL */

#ifdef __cplusplus
}
#endif
#endif
