/* kray FFT on CUDA (kri_fft_cuda, fft_internal.h): cuFFT plans per run of consecutive axes,
 * centring by phase modulation, unitary scaling, centre-shift kernels, and the cache of whole
 * plans behind kr_fft.
 *
 * Centring: with h = N/2 and sign s (-1 forward, +1 backward), the centred transform
 *   z[k] = sum_m x[(m + h) mod N] exp(s 2 pi i (k - h) m / N)
 * equals post[k] * DFT(pre[m] x[m]) with pre[m] = exp(2 pi i ((-s h) m mod N) / N) and
 * post[k] = exp(2 pi i ((s h^2 + (-s h) k) mod N) / N). For even N these are (-1)^m and
 * (-1)^(k + N/2), applied as exact sign flips; for odd N the phase is reduced exactly in integer
 * arithmetic and evaluated with sincospi in double. */
#include "fft_internal.h"

#include <cuda_runtime.h>
#include "cufft_load.h" /* cuFFT, loaded on first use */

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include <atomic>

extern "C" const char *kri_cufft_name(int r)
{
    switch ((cufftResult)r) {
    case CUFFT_SUCCESS: return "CUFFT_SUCCESS";
    case CUFFT_INVALID_PLAN: return "CUFFT_INVALID_PLAN";
    case CUFFT_ALLOC_FAILED: return "CUFFT_ALLOC_FAILED";
    case CUFFT_INVALID_TYPE: return "CUFFT_INVALID_TYPE";
    case CUFFT_INVALID_VALUE: return "CUFFT_INVALID_VALUE";
    case CUFFT_INTERNAL_ERROR: return "CUFFT_INTERNAL_ERROR";
    case CUFFT_EXEC_FAILED: return "CUFFT_EXEC_FAILED";
    case CUFFT_SETUP_FAILED: return "CUFFT_SETUP_FAILED";
    case CUFFT_INVALID_SIZE: return "CUFFT_INVALID_SIZE";
    case CUFFT_UNALIGNED_DATA: return "CUFFT_UNALIGNED_DATA";
    case CUFFT_INVALID_DEVICE: return "CUFFT_INVALID_DEVICE";
    case CUFFT_NO_WORKSPACE: return "CUFFT_NO_WORKSPACE";
    case CUFFT_NOT_IMPLEMENTED: return "CUFFT_NOT_IMPLEMENTED";
    case CUFFT_NOT_SUPPORTED: return "CUFFT_NOT_SUPPORTED";
    default: return "unknown cuFFT error";
    }
}

extern "C" kr_status kri_cufft_fail(int r, const char *what)
{
    if (r == CUFFT_ALLOC_FAILED)
        return kri_fail(KR_ERR_OOM_DEVICE, "out of device memory in %s (%s)", what,
                        kri_cufft_name(r));
    return kri_fail(KR_ERR_FFT, "%s failed: %s (%d)", what, kri_cufft_name(r), r);
}

namespace {

struct kri_mod_geom {
    int ndim;
    long long dims[KR_MAX_DIMS];
    int mode[KR_MAX_DIMS];       /* 0 untouched, 1 even (sign), 2 odd (phase) */
    long long c0[KR_MAX_DIMS];   /* even: parity offset; odd: phase constant */
    long long c1[KR_MAX_DIMS];   /* odd: phase slope */
};

struct kri_shift_geom {
    int ndim;
    long long dims[KR_MAX_DIMS];
    long long shift[KR_MAX_DIMS]; /* out[k] = in[(k - shift) mod n] */
};

struct kri_cufft_group {
    cufftHandle h;
    int made;
    long long loops; /* cufftExec calls */
    long long step;  /* element offset between calls */
};

kr_status kri_cuda_fail(cudaError_t e, const char *what)
{
    (void)cudaGetLastError(); /* clear a non-sticky error */
    if (e == cudaErrorMemoryAllocation)
        return kri_fail(KR_ERR_OOM_DEVICE, "out of device memory in %s", what);
    return kri_fail(KR_ERR_CUDA, "%s failed: %s", what, cudaGetErrorString(e));
}

#define KRI_CU(call, what)                                                                     \
    do {                                                                                       \
        cudaError_t kri_e_ = (call);                                                           \
        if (kri_e_ != cudaSuccess) return kri_cuda_fail(kri_e_, what);                         \
    } while (0)

#define KRI_CUFFT(call, what)                                                                  \
    do {                                                                                       \
        cufftResult kri_r_ = (call);                                                           \
        if (kri_r_ != CUFFT_SUCCESS) return kri_cufft_fail(kri_r_, what);                      \
    } while (0)

const int kri_block = 256;

unsigned kri_grid(long long n)
{
    long long b = (n + kri_block - 1) / kri_block;
    return (unsigned)(b < (1 << 20) ? (b > 0 ? b : 1) : (1 << 20));
}

/* out[i] = in[i] * scale * (+-1) * exp(2 pi i frac(i)); in == out allowed. */
template <typename C, typename R>
__global__ void k_fft_modulate(const C *in, C *out, long long numel, kri_mod_geom g, double scale)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < numel;
         i += (long long)gridDim.x * blockDim.x) {
        long long rem = i;
        int neg = 0, odd = 0;
        double frac = 0.0;
        for (int d = 0; d < g.ndim; d++) {
            long long n = g.dims[d], k = rem % n;
            rem /= n;
            if (g.mode[d] == 1) {
                neg ^= (int)((k + g.c0[d]) & 1);
            } else if (g.mode[d] == 2) {
                frac += (double)((g.c0[d] + g.c1[d] * k) % n) / (double)n;
                odd = 1;
            }
        }
        C v = in[i];
        const double s = neg ? -scale : scale;
        if (odd) {
            double sn, cs;
            frac -= floor(frac);
            sincospi(2.0 * frac, &sn, &cs);
            const R fr = (R)(s * cs), fi = (R)(s * sn);
            C w;
            w.x = v.x * fr - v.y * fi;
            w.y = v.x * fi + v.y * fr;
            out[i] = w;
        } else {
            const R f = (R)s;
            v.x *= f;
            v.y *= f;
            out[i] = v;
        }
    }
}

template <typename E>
__global__ void k_fft_shift(const E *in, E *out, long long numel, kri_shift_geom g)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < numel;
         i += (long long)gridDim.x * blockDim.x) {
        long long rem = i, src = 0, stride = 1;
        for (int d = 0; d < g.ndim; d++) {
            long long n = g.dims[d], k = rem % n - g.shift[d];
            rem /= n;
            if (k < 0) k += n;
            src += k * stride;
            stride *= n;
        }
        out[i] = in[src];
    }
}

kr_status kri_launch_modulate(kr_dtype dtype, const void *in, void *out, long long numel,
                              const kri_mod_geom &g, double scale, cudaStream_t st)
{
    if (dtype == KR_C64)
        k_fft_modulate<float2, float><<<kri_grid(numel), kri_block, 0, st>>>(
            (const float2 *)in, (float2 *)out, numel, g, scale);
    else
        k_fft_modulate<double2, double><<<kri_grid(numel), kri_block, 0, st>>>(
            (const double2 *)in, (double2 *)out, numel, g, scale);
    KRI_CU(cudaGetLastError(), "launching the FFT modulation kernel");
    return KR_OK;
}

} // namespace

/* Plans made so far (kri_fft_cuda.plans_made). */
static std::atomic<long long> kri_cufft_made{0};

struct kri_cuda_fft {
    kr_dtype dtype;
    int dir;
    unsigned flags;
    int device;
    long long numel;
    int ngroups;
    kri_cufft_group g[KR_MAX_DIMS];
    void *work;
    kri_mod_geom pre, post;
    double scale;
};

static void kri_cuda_fft_destroy(kri_cuda_fft *p)
{
    if (!p) return;
    (void)cudaSetDevice(p->device);
    for (int i = 0; i < p->ngroups; i++)
        if (p->g[i].made) (void)cufftDestroy(p->g[i].h);
    if (p->work) (void)cudaFree(p->work);
    kri_free(p);
}

static kr_status kri_cuda_fft_build(kri_cuda_fft *p, int ndim, const int64_t *dims, unsigned axes)
{
    KRI_CU(cudaSetDevice(p->device), "cudaSetDevice");
    const cufftType type = p->dtype == KR_C64 ? CUFFT_C2C : CUFFT_Z2Z;
    size_t work_max = 0;
    for (int d = 0; d < ndim;) {
        if (!(axes & (1u << d))) {
            d++;
            continue;
        }
        int r = 0; /* run of up to 3 consecutive transformed axes d .. d+r-1 */
        while (r < 3 && d + r < ndim && (axes & (1u << (d + r)))) r++;
        long long inner = 1, block = 1, n[3] = {1, 1, 1};
        for (int e = 0; e < d; e++) inner *= dims[e];
        for (int e = 0; e < r; e++) {
            block *= dims[d + e];
            n[r - 1 - e] = dims[d + e]; /* cuFFT lists the slowest axis first */
        }
        long long outer = p->numel / (inner * block);
        long long batch, dist;
        kri_cufft_group *g = &p->g[p->ngroups];
        if (outer >= inner) { /* batch over the outer lines, loop over inner offsets */
            batch = outer;
            dist = inner * block;
            g->loops = inner;
            g->step = 1;
        } else {
            batch = inner;
            dist = 1;
            g->loops = outer;
            g->step = inner * block;
        }
        KRI_CUFFT(cufftCreate(&g->h), "cufftCreate");
        g->made = 1;
        p->ngroups++;
        KRI_CUFFT(cufftSetAutoAllocation(g->h, 0), "cufftSetAutoAllocation");
        long long emb[3] = {n[0], n[1], n[2]}, emb2[3] = {n[0], n[1], n[2]};
        size_t ws = 0;
        cufftResult rr = cufftMakePlanMany64(g->h, r, n, emb, inner, dist, emb2, inner, dist, type,
                                             batch, &ws);
        if (rr != CUFFT_SUCCESS) {
            char buf[128];
            kr_status fs = kri_cufft_fail(rr, "cufftMakePlanMany64");
            return kri_fail_prefix(fs, "planning a rank-%d cuFFT over %s (axes from %d)",
                                   r, kr_dims_string(ndim, dims, buf, sizeof buf), d);
        }
        if (ws > work_max) work_max = ws;
        d += r;
    }
    if (work_max > 0) {
        KRI_CU(cudaMalloc(&p->work, work_max), "cudaMalloc of the cuFFT work area");
        for (int i = 0; i < p->ngroups; i++)
            KRI_CUFFT(cufftSetWorkArea(p->g[i].h, p->work), "cufftSetWorkArea");
    }
    return KR_OK;
}

static kr_status kri_cuda_fft_create(kri_cuda_fft **out, kr_dtype dtype, int ndim,
                                     const int64_t *dims, unsigned axes, int dir, unsigned flags,
                                     int device)
{
    *out = NULL;
    KRI_TRY(kri_cufft_load());
    kri_cuda_fft *p = (kri_cuda_fft *)kri_calloc(1, sizeof *p);
    if (!p) return kri_fail(KR_ERR_OOM_HOST, "out of host memory creating a cuFFT plan");
    p->dtype = dtype;
    p->dir = dir;
    p->flags = flags;
    p->device = device;
    p->numel = 1;
    double prod = 1.0;
    for (int d = 0; d < ndim; d++) {
        p->numel *= dims[d];
        if (axes & (1u << d)) prod *= (double)dims[d];
    }
    p->scale = (flags & KR_FFT_UNITARY) ? 1.0 / sqrt(prod) : 1.0;
    p->pre.ndim = p->post.ndim = ndim;
    for (int d = 0; d < ndim; d++) {
        long long n = dims[d], h = n / 2, c1 = ((-(long long)dir * h) % n + n) % n;
        p->pre.dims[d] = p->post.dims[d] = n;
        if (!(flags & KR_FFT_CENTERED) || !(axes & (1u << d))) continue;
        if (n % 2 == 0) {
            p->pre.mode[d] = p->post.mode[d] = 1;
            p->pre.c0[d] = 0;
            p->post.c0[d] = h;
        } else {
            p->pre.mode[d] = p->post.mode[d] = 2;
            p->pre.c0[d] = 0;
            p->post.c0[d] = (((long long)dir * ((h * h) % n)) % n + n) % n;
            p->pre.c1[d] = p->post.c1[d] = c1;
        }
    }
    kr_status s = kri_cuda_fft_build(p, ndim, dims, axes);
    if (s != KR_OK) {
        kri_cuda_fft_destroy(p);
        return s;
    }
    kri_cufft_made++;
    *out = p;
    return KR_OK;
}

static kr_status kri_cuda_fft_execute(kri_cuda_fft *p, const void *in, void *out, void *stream)
{
    const size_t es = p->dtype == KR_C64 ? sizeof(float2) : sizeof(double2);
    if ((uintptr_t)in % es || (uintptr_t)out % es)
        return kri_fail(KR_ERR_INVALID_ARG, "device FFT arrays must be aligned to %zu bytes", es);
    cudaStream_t st = (cudaStream_t)stream;
    KRI_CU(cudaSetDevice(p->device), "cudaSetDevice");
    if (p->flags & KR_FFT_CENTERED)
        KRI_TRY(kri_launch_modulate(p->dtype, in, out, p->numel, p->pre, 1.0, st));
    else if (in != out)
        KRI_CU(cudaMemcpyAsync(out, in, (size_t)p->numel * es, cudaMemcpyDeviceToDevice, st),
               "cudaMemcpyAsync of the FFT input");
    char *base = (char *)out;
    for (int i = 0; i < p->ngroups; i++) {
        const kri_cufft_group *g = &p->g[i];
        KRI_CUFFT(cufftSetStream(g->h, st), "cufftSetStream");
        for (long long l = 0; l < g->loops; l++) {
            char *ptr = base + (size_t)(l * g->step) * es;
            if (p->dtype == KR_C64)
                KRI_CUFFT(cufftExecC2C(g->h, (cufftComplex *)ptr, (cufftComplex *)ptr, p->dir),
                          "cufftExecC2C");
            else
                KRI_CUFFT(cufftExecZ2Z(g->h, (cufftDoubleComplex *)ptr,
                                       (cufftDoubleComplex *)ptr, p->dir),
                          "cufftExecZ2Z");
        }
    }
    if ((p->flags & KR_FFT_CENTERED) || p->scale != 1.0)
        KRI_TRY(kri_launch_modulate(p->dtype, out, out, p->numel, p->post, p->scale, st));
    return KR_OK;
}

template <typename E>
static kr_status kri_shift_launch(const void *in, void *out, long long numel,
                                  const kri_shift_geom &g, cudaStream_t st)
{
    k_fft_shift<E><<<kri_grid(numel), kri_block, 0, st>>>((const E *)in, (E *)out, numel, g);
    KRI_CU(cudaGetLastError(), "launching the FFT shift kernel");
    return KR_OK;
}

static kr_status kri_cuda_fft_shift(size_t esize, int ndim, const int64_t *dims, unsigned axes,
                                    int inverse, const void *in, void *out, int device,
                                    void *stream)
{
    if ((uintptr_t)in % esize || (uintptr_t)out % esize)
        return kri_fail(KR_ERR_INVALID_ARG, "device arrays to shift must be aligned to %zu bytes",
                        esize);
    cudaStream_t st = (cudaStream_t)stream;
    KRI_CU(cudaSetDevice(device), "cudaSetDevice");
    kri_shift_geom g;
    g.ndim = ndim;
    long long numel = 1;
    for (int d = 0; d < ndim; d++) {
        long long n = dims[d];
        g.dims[d] = n;
        g.shift[d] = (axes & (1u << d)) ? (inverse ? n - n / 2 : n / 2) : 0;
        numel *= n;
    }
    const size_t bytes = (size_t)numel * esize;
    void *tmp = NULL;
    const void *src = in;
    if (in == out) {
        KRI_CU(cudaMallocAsync(&tmp, bytes, st), "cudaMallocAsync of the shift temporary");
        cudaError_t e = cudaMemcpyAsync(tmp, in, bytes, cudaMemcpyDeviceToDevice, st);
        if (e != cudaSuccess) {
            (void)cudaFreeAsync(tmp, st);
            return kri_cuda_fail(e, "cudaMemcpyAsync to the shift temporary");
        }
        src = tmp;
    }
    kr_status s;
    switch (esize) {
    case 1: s = kri_shift_launch<unsigned char>(src, out, numel, g, st); break;
    case 2: s = kri_shift_launch<unsigned short>(src, out, numel, g, st); break;
    case 4: s = kri_shift_launch<unsigned int>(src, out, numel, g, st); break;
    case 8: s = kri_shift_launch<uint2>(src, out, numel, g, st); break;
    case 16: s = kri_shift_launch<uint4>(src, out, numel, g, st); break;
    default: s = kri_fail(KR_ERR_DTYPE, "cannot shift elements of %zu bytes", esize); break;
    }
    if (tmp) {
        cudaError_t e = cudaFreeAsync(tmp, st);
        if (s == KR_OK && e != cudaSuccess) s = kri_cuda_fail(e, "cudaFreeAsync");
    }
    return s;
}

/* ---- the backend table ---------------------------------------------------------------------- */
static kr_status kri_cuda_fft_make(void **state, const kr_ctx *ctx, const kri_fft_desc *d)
{
    kri_cuda_fft *p = nullptr;
    KRI_TRY(kri_cuda_fft_create(&p, d->dtype, d->ndim, d->dims, d->axes, d->dir, d->flags,
                                kr_ctx_device(ctx)));
    *state = p;
    return KR_OK;
}

static kr_status kri_cuda_fft_exec(void *state, const kr_ctx *ctx, const void *in, void *out)
{
    return kri_cuda_fft_execute((kri_cuda_fft *)state, in, out, kr_ctx_stream(ctx));
}

static void kri_cuda_fft_free(void *state) { kri_cuda_fft_destroy((kri_cuda_fft *)state); }

static kr_status kri_cuda_fft_shift_verb(const kr_ctx *ctx, size_t esize, int ndim,
                                         const int64_t *dims, unsigned axes, int inverse,
                                         const void *in, void *out)
{
    return kri_cuda_fft_shift(esize, ndim, dims, axes, inverse, in, out, kr_ctx_device(ctx),
                              kr_ctx_stream(ctx));
}

/* ---- the plan cache behind kr_fft ------------------------------------------------------------
 * Whole plans (cuFFT handles, work area, modulation tables) keyed by the transform and the
 * device, at most kri_cufft_cache_max of them, least recently used idle ones evicted first. A
 * plan serves one call at a time (busy); a second concurrent call with the same key makes a
 * second plan. Device work is asynchronous: each use records `done` on its stream, and the
 * next use (maybe on another stream) waits for it before touching the work area; a plan is
 * destroyed only after its last use has finished. A plan that does not fit in device memory is
 * tried once more after the idle plans (and their work areas) are freed. */
namespace {

const int kri_cufft_cache_max = 16;

struct kri_cufft_entry {
    kri_cufft_entry *next;
    kri_fft_desc d;
    int device;
    bool busy;
    bool recorded; /* `done` marks the end of a use */
    unsigned long long used; /* LRU tick */
    cudaEvent_t done;
    kri_cuda_fft *plan;
};

pthread_mutex_t kri_cufft_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_once_t kri_cufft_once = PTHREAD_ONCE_INIT;
kri_cufft_entry *kri_cufft_cache;
int kri_cufft_count;
unsigned long long kri_cufft_tick;

bool kri_cufft_key_eq(const kri_cufft_entry *e, const kri_fft_desc *d, int device)
{
    if (e->device != device || e->d.dtype != d->dtype || e->d.ndim != d->ndim ||
        e->d.axes != d->axes || e->d.dir != d->dir || e->d.flags != d->flags)
        return false;
    for (int i = 0; i < d->ndim; i++)
        if (e->d.dims[i] != d->dims[i]) return false;
    return true;
}

/* Destroy unlinked entries (after their last use), keeping the caller's current device. */
void kri_cufft_free_list(kri_cufft_entry *e)
{
    if (!e) return;
    int cur = -1;
    if (cudaGetDevice(&cur) != cudaSuccess) cur = -1;
    while (e) {
        kri_cufft_entry *next = e->next;
        (void)cudaSetDevice(e->device);
        if (e->recorded) (void)cudaEventSynchronize(e->done);
        if (e->done) (void)cudaEventDestroy(e->done);
        kri_cuda_fft_destroy(e->plan);
        kri_free(e);
        e = next;
    }
    if (cur >= 0) (void)cudaSetDevice(cur);
    (void)cudaGetLastError(); /* errors while tearing down are not the caller's */
}

/* Unlink idle entries: all of them (keep == 0) or the least recently used beyond `keep`. */
kri_cufft_entry *kri_cufft_unlink_idle_locked(int keep)
{
    kri_cufft_entry *out = nullptr;
    while (kri_cufft_count > keep) {
        kri_cufft_entry **victim = nullptr;
        for (kri_cufft_entry **pp = &kri_cufft_cache; *pp; pp = &(*pp)->next)
            if (!(*pp)->busy && (!victim || (*pp)->used < (*victim)->used)) victim = pp;
        if (!victim) break; /* all in use: the cache may exceed its bound until calls end */
        kri_cufft_entry *v = *victim;
        *victim = v->next;
        v->next = out;
        out = v;
        kri_cufft_count--;
    }
    return out;
}

void kri_cufft_clear(void)
{
    pthread_mutex_lock(&kri_cufft_lock);
    kri_cufft_entry *dead = kri_cufft_unlink_idle_locked(0);
    pthread_mutex_unlock(&kri_cufft_lock);
    kri_cufft_free_list(dead);
}

void kri_cufft_atexit(void) { kri_cufft_clear(); }
void kri_cufft_register(void) { (void)atexit(kri_cufft_atexit); }

/* An idle cached plan for the key, marked busy, or NULL. */
kri_cufft_entry *kri_cufft_take(const kri_fft_desc *d, int device)
{
    pthread_mutex_lock(&kri_cufft_lock);
    kri_cufft_entry *e = kri_cufft_cache;
    while (e && (e->busy || !kri_cufft_key_eq(e, d, device))) e = e->next;
    if (e) e->busy = true;
    pthread_mutex_unlock(&kri_cufft_lock);
    return e;
}

/* A new busy entry with a fresh plan, linked into the cache (evicting idle ones beyond the
 * bound). */
kr_status kri_cufft_make(kri_cufft_entry **out, const kri_fft_desc *d, int device)
{
    *out = nullptr;
    kri_cufft_entry *e = (kri_cufft_entry *)kri_calloc(1, sizeof *e);
    if (!e) return kri_fail(KR_ERR_OOM_HOST, "out of host memory caching a cuFFT plan");
    e->d = *d;
    e->device = device;
    e->busy = true;
    kr_status s = kri_cuda_fft_create(&e->plan, d->dtype, d->ndim, d->dims, d->axes, d->dir,
                                      d->flags, device);
    if (s == KR_OK) {
        cudaError_t ce = cudaEventCreateWithFlags(&e->done, cudaEventDisableTiming);
        if (ce != cudaSuccess) s = kri_cuda_fail(ce, "cudaEventCreate for the cuFFT plan cache");
    }
    if (s != KR_OK) {
        e->next = nullptr;
        kri_cufft_free_list(e);
        return s;
    }
    pthread_once(&kri_cufft_once, kri_cufft_register);
    pthread_mutex_lock(&kri_cufft_lock);
    e->next = kri_cufft_cache;
    kri_cufft_cache = e;
    kri_cufft_count++;
    kri_cufft_entry *dead = kri_cufft_unlink_idle_locked(kri_cufft_cache_max);
    pthread_mutex_unlock(&kri_cufft_lock);
    kri_cufft_free_list(dead);
    *out = e;
    return KR_OK;
}

/* End a use: the entry becomes idle, or is dropped when the use failed. */
void kri_cufft_give(kri_cufft_entry *e, bool ok)
{
    pthread_mutex_lock(&kri_cufft_lock);
    e->busy = false;
    e->used = ++kri_cufft_tick;
    kri_cufft_entry *dead = nullptr;
    if (!ok) {
        for (kri_cufft_entry **pp = &kri_cufft_cache; *pp; pp = &(*pp)->next)
            if (*pp == e) {
                *pp = e->next;
                e->next = nullptr;
                kri_cufft_count--;
                dead = e;
                break;
            }
    }
    pthread_mutex_unlock(&kri_cufft_lock);
    kri_cufft_free_list(dead);
}

} // namespace

static kr_status kri_cuda_fft_run(const kr_ctx *ctx, const kri_fft_desc *d, const void *in,
                                  void *out)
{
    const int device = kr_ctx_device(ctx);
    cudaStream_t st = (cudaStream_t)kr_ctx_stream(ctx);
    kri_cufft_entry *e = kri_cufft_take(d, device);
    if (!e) {
        kr_status ms = kri_cufft_make(&e, d, device);
        if (ms == KR_ERR_OOM_DEVICE) { /* the idle plans' work areas may be what is missing */
            kri_cufft_clear();
            ms = kri_cufft_make(&e, d, device);
        }
        KRI_TRY(ms);
    }
    kr_status s = KR_OK;
    cudaError_t ce = cudaSetDevice(device);
    if (ce == cudaSuccess && e->recorded) ce = cudaStreamWaitEvent(st, e->done, 0);
    if (ce != cudaSuccess) s = kri_cuda_fail(ce, "waiting for the cached cuFFT plan's last use");
    if (s == KR_OK) s = kri_cuda_fft_execute(e->plan, in, out, st);
    if (s == KR_OK) {
        ce = cudaEventRecord(e->done, st);
        if (ce != cudaSuccess) s = kri_cuda_fail(ce, "cudaEventRecord after a cached cuFFT plan");
        e->recorded = ce == cudaSuccess;
    }
    kri_cufft_give(e, s == KR_OK);
    return s;
}

static int64_t kri_cuda_fft_plans_made(void) { return (int64_t)kri_cufft_made.load(); }

extern "C" const kri_fft_backend kri_fft_cuda = {{"cuda", true},
                                                 kri_cuda_fft_make,
                                                 kri_cuda_fft_exec,
                                                 kri_cuda_fft_free,
                                                 kri_cuda_fft_run,
                                                 kri_cufft_clear,
                                                 kri_cuda_fft_plans_made,
                                                 kri_cuda_fft_shift_verb};
