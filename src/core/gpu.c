/* Device detection and device memory. The only C file that includes CUDA headers; without
 * KRAY_HAVE_CUDA every entry point reports KR_ERR_NO_DEVICE ("built without CUDA"). */
#include "ctx_state.h"
#include "internal.h"

#include <stdio.h>
#include <string.h>

#ifdef KRAY_HAVE_CUDA
#include <cuda_runtime.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

static pthread_once_t kri_probe_once = PTHREAD_ONCE_INIT;
static int kri_probe_count;
static char kri_probe_reason[256];

static void kri_probe(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        const char *why;
        switch (e) {
        case cudaErrorNoDevice: why = "no CUDA-capable device is present"; break;
        case cudaErrorInsufficientDriver:
            why = "the CUDA driver is missing or older than the runtime";
            break;
        default: why = cudaGetErrorString(e); break;
        }
        snprintf(kri_probe_reason, sizeof kri_probe_reason, "no CUDA device: %s", why);
        kri_probe_count = 0;
        (void)cudaGetLastError(); /* clear the sticky-free error state */
        return;
    }
    if (n == 0) snprintf(kri_probe_reason, sizeof kri_probe_reason, "no CUDA device: none found");
    kri_probe_count = n;
}

bool kri_have_cuda(void) { return true; }

kr_status kr_cuda_device_count(int *count)
{
    KRI_ARG_NOT_NULL(count);
    pthread_once(&kri_probe_once, kri_probe);
    *count = kri_probe_count;
    if (kri_probe_count == 0) return kri_fail(KR_ERR_NO_DEVICE, "%s", kri_probe_reason);
    return KR_OK;
}

kr_status kr_cuda_device_name(int dev, char *buf, size_t len)
{
    KRI_ARG_NOT_NULL(buf);
    int n;
    KRI_TRY(kr_cuda_device_count(&n));
    if (dev < 0 || dev >= n)
        return kri_fail(KR_ERR_INVALID_ARG, "CUDA device %d does not exist (%d present)", dev, n);
    struct cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, dev);
    if (e != cudaSuccess)
        return kri_fail(KR_ERR_CUDA, "cudaGetDeviceProperties(%d): %s", dev, cudaGetErrorString(e));
    snprintf(buf, len, "%s, sm_%d%d, %.1f GiB, %d SMs", p.name, p.major, p.minor,
             (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0), p.multiProcessorCount);
    return KR_OK;
}

static kr_status kri_cuda_err(cudaError_t e, const char *what)
{
    if (e == cudaErrorMemoryAllocation)
        return kri_fail(KR_ERR_OOM_DEVICE, "out of device memory (%s)", what);
    return kri_fail(KR_ERR_CUDA, "%s failed: %s", what, cudaGetErrorString(e));
}

/* Stream-ordered scratch (cudaMallocAsync/cudaFreeAsync, per call in the FVE, Goertzel and
 * other launchers) comes from the device's default memory pool. By default the pool returns
 * freed memory to the system at every synchronisation, so each call would allocate afresh; a
 * release threshold keeps up to KRI_POOL_KEEP bytes cached for reuse (set once per device). */
#define KRI_POOL_KEEP ((uint64_t)256 << 20)
#define KRI_POOL_DEVS 64
static _Atomic int kri_pool_set[KRI_POOL_DEVS];

kr_status kri_cuda_set_device(const kr_ctx *ctx)
{
    /* a CPU context's device entries are labels of its parts, not ordinals */
    if (ctx && ctx->backend != KR_BACKEND_CUDA) return KR_OK;
    int dev = ctx ? kri_ctx_device(ctx) : 0;
    cudaError_t e = cudaSetDevice(dev);
    if (e != cudaSuccess) return kri_cuda_err(e, "cudaSetDevice");
    if (dev >= 0 && dev < KRI_POOL_DEVS && !atomic_exchange(&kri_pool_set[dev], 1)) {
        cudaMemPool_t pool;
        uint64_t keep = KRI_POOL_KEEP;
        if (cudaDeviceGetDefaultMemPool(&pool, dev) != cudaSuccess ||
            cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess)
            (void)cudaGetLastError(); /* an optimisation only: allocation still works */
    }
    return KR_OK;
}

kr_status kri_device_alloc(void **p, size_t bytes, int device, const char *what)
{
    KRI_ARG_NOT_NULL(p);
    *p = NULL;
    int n;
    KRI_TRY(kr_cuda_device_count(&n));
    cudaError_t e = cudaSetDevice(device);
    if (e != cudaSuccess) return kri_cuda_err(e, "cudaSetDevice");
    e = cudaMalloc(p, bytes ? bytes : 1);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        *p = NULL;
        if (e == cudaErrorMemoryAllocation)
            return kri_fail(KR_ERR_OOM_DEVICE, "out of device memory allocating %zu bytes for %s",
                            bytes, what ? what : "an array");
        return kri_cuda_err(e, "cudaMalloc");
    }
    return KR_OK;
}

void kri_device_free(void *p)
{
    if (p) cudaFree(p);
}

kr_status kri_memcpy(void *dst, kr_loc dst_loc, const void *src, kr_loc src_loc, size_t bytes,
                     const kr_ctx *ctx)
{
    if (bytes == 0) return KR_OK;
    if (dst_loc == KR_HOST && src_loc == KR_HOST) {
        memmove(dst, src, bytes);
        return KR_OK;
    }
    enum cudaMemcpyKind kind = dst_loc == KR_HOST ? cudaMemcpyDeviceToHost
                               : src_loc == KR_HOST ? cudaMemcpyHostToDevice
                                                    : cudaMemcpyDeviceToDevice;
    cudaStream_t s = ctx ? (cudaStream_t)kri_ctx_stream(ctx) : 0;
    cudaError_t e = cudaMemcpyAsync(dst, src, bytes, kind, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    return e == cudaSuccess ? KR_OK : kri_cuda_err(e, "cudaMemcpy");
}

kr_status kri_cuda_stream_create(const kr_ctx *ctx, void **stream)
{
    *stream = NULL;
    KRI_TRY(kri_cuda_set_device(ctx));
    cudaStream_t st;
    cudaError_t e = cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking);
    if (e != cudaSuccess) return kri_cuda_err(e, "cudaStreamCreate");
    *stream = st;
    return KR_OK;
}

void kri_cuda_stream_destroy(const kr_ctx *ctx, void *stream)
{
    int cur = -1;
    if (cudaGetDevice(&cur) != cudaSuccess) cur = -1;
    if (cudaSetDevice(kri_ctx_device(ctx)) == cudaSuccess) cudaStreamDestroy((cudaStream_t)stream);
    if (cur >= 0) (void)cudaSetDevice(cur);
    (void)cudaGetLastError();
}

/* Peer access between device pairs, asked for once per ordered pair (an optimisation: copies
 * work without it). */
static _Atomic unsigned char kri_peer_asked[KRI_POOL_DEVS][KRI_POOL_DEVS];

kr_status kri_memcpy_peer(void *dst, int dst_dev, const void *src, int src_dev, size_t bytes,
                          const kr_ctx *ctx)
{
    if (bytes == 0) return KR_OK;
    cudaStream_t s = ctx ? (cudaStream_t)kri_ctx_stream(ctx) : 0;
    cudaError_t e;
    if (dst_dev == src_dev) {
        e = cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s);
    } else {
        if (dst_dev < KRI_POOL_DEVS && src_dev < KRI_POOL_DEVS &&
            !atomic_exchange(&kri_peer_asked[src_dev][dst_dev], 1)) {
            int can = 0, cur = -1;
            if (cudaGetDevice(&cur) == cudaSuccess &&
                cudaDeviceCanAccessPeer(&can, src_dev, dst_dev) == cudaSuccess && can &&
                cudaSetDevice(src_dev) == cudaSuccess)
                (void)cudaDeviceEnablePeerAccess(dst_dev, 0);
            if (cur >= 0) (void)cudaSetDevice(cur);
            (void)cudaGetLastError(); /* "already enabled" and refusals are not errors here */
        }
        e = cudaMemcpyPeerAsync(dst, dst_dev, src, src_dev, bytes, s);
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    return e == cudaSuccess ? KR_OK : kri_cuda_err(e, "copying between devices");
}

kr_status kri_device_memset0(void *p, size_t bytes, const kr_ctx *ctx)
{
    cudaStream_t s = ctx ? (cudaStream_t)kri_ctx_stream(ctx) : 0;
    cudaError_t e = cudaMemsetAsync(p, 0, bytes, s);
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    return e == cudaSuccess ? KR_OK : kri_cuda_err(e, "cudaMemset");
}

kr_status kri_device_synchronize(const kr_ctx *ctx)
{
    if (ctx && ctx->backend != KR_BACKEND_CUDA) return KR_OK; /* nothing queued */
    cudaStream_t s = ctx ? (cudaStream_t)kri_ctx_stream(ctx) : 0;
    cudaError_t e = cudaStreamSynchronize(s);
    return e == cudaSuccess ? KR_OK : kri_cuda_err(e, "cudaStreamSynchronize");
}

kr_status kr_host_register(void *ptr, size_t bytes)
{
    KRI_ARG_NOT_NULL(ptr);
    if (bytes == 0) return kri_fail(KR_ERR_INVALID_ARG, "kr_host_register: the size is 0 bytes");
    int n;
    KRI_TRY(kr_cuda_device_count(&n));
    cudaError_t e = cudaHostRegister(ptr, bytes, cudaHostRegisterPortable);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return kri_fail(KR_ERR_CUDA, "cannot page-lock %zu bytes of host memory: %s", bytes,
                        cudaGetErrorString(e));
    }
    return KR_OK;
}

kr_status kr_host_unregister(void *ptr)
{
    KRI_ARG_NOT_NULL(ptr);
    int n;
    KRI_TRY(kr_cuda_device_count(&n));
    cudaError_t e = cudaHostUnregister(ptr);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return kri_fail(KR_ERR_CUDA, "cannot unlock host memory: %s", cudaGetErrorString(e));
    }
    return KR_OK;
}

#else /* no CUDA in this build */

bool kri_have_cuda(void) { return false; }

kr_status kr_cuda_device_count(int *count)
{
    KRI_ARG_NOT_NULL(count);
    *count = 0;
    return kri_fail(KR_ERR_NO_DEVICE, "no CUDA device: kray was built without CUDA");
}

kr_status kr_cuda_device_name(int dev, char *buf, size_t len)
{
    (void)dev;
    if (buf && len) buf[0] = '\0';
    int n;
    return kr_cuda_device_count(&n);
}

kr_status kri_cuda_set_device(const kr_ctx *ctx)
{
    (void)ctx;
    return KR_OK;
}

kr_status kri_device_alloc(void **p, size_t bytes, int device, const char *what)
{
    (void)bytes, (void)device, (void)what;
    if (p) *p = NULL;
    int n;
    return kr_cuda_device_count(&n);
}

void kri_device_free(void *p) { (void)p; }

kr_status kri_memcpy(void *dst, kr_loc dst_loc, const void *src, kr_loc src_loc, size_t bytes,
                     const kr_ctx *ctx)
{
    (void)ctx;
    if (dst_loc != KR_HOST || src_loc != KR_HOST) {
        int n;
        return kr_cuda_device_count(&n);
    }
    if (bytes) memmove(dst, src, bytes);
    return KR_OK;
}

kr_status kri_cuda_stream_create(const kr_ctx *ctx, void **stream)
{
    (void)ctx;
    *stream = NULL;
    int n;
    return kr_cuda_device_count(&n);
}

void kri_cuda_stream_destroy(const kr_ctx *ctx, void *stream) { (void)ctx, (void)stream; }

kr_status kri_memcpy_peer(void *dst, int dst_dev, const void *src, int src_dev, size_t bytes,
                          const kr_ctx *ctx)
{
    (void)dst, (void)dst_dev, (void)src, (void)src_dev, (void)bytes, (void)ctx;
    int n;
    return kr_cuda_device_count(&n);
}

kr_status kri_device_memset0(void *p, size_t bytes, const kr_ctx *ctx)
{
    (void)p, (void)bytes, (void)ctx;
    int n;
    return kr_cuda_device_count(&n);
}

kr_status kri_device_synchronize(const kr_ctx *ctx)
{
    (void)ctx;
    return KR_OK;
}

kr_status kr_host_register(void *ptr, size_t bytes)
{
    KRI_ARG_NOT_NULL(ptr);
    (void)bytes;
    int n;
    return kr_cuda_device_count(&n);
}

kr_status kr_host_unregister(void *ptr)
{
    KRI_ARG_NOT_NULL(ptr);
    int n;
    return kr_cuda_device_count(&n);
}

#endif
