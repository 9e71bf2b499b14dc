/* Bloch simulation on the GPU (kri_sim_cuda, sim_internal.h).
 *
 * One thread holds K isochromats in registers and runs the whole compiled program; blocks of
 * 128 threads stream the steps through shared memory in chunks (every thread executes every
 * step, so all branches on step fields are uniform). ADC runs are processed in tiles of
 * 16 / NC samples x NC coils = 16 slots: each thread sums its K isochromats into 16 register
 * slots per component, a warp "reduce-scatter" butterfly (8 + 4 + 2 + 1 + 1 shuffles per
 * component for 16 slots) leaves the warp total of slot (lane >> 1) & 15 in lanes 2s and
 * 2s + 1, the 4 warps' totals are added in warp order through shared memory, and the block
 * total is added to the 64-bit fixed-point accumulator with an integer atomic. The
 * isochromat -> (block, thread, slot) map is fixed by K and the block size, float sums are in
 * a fixed order, and integer addition is associative: the output is identical run to run and
 * on any GPU. More than NC coils: the kernel is launched once per group of NC coils.
 *
 * Precision: float state; with fast_math the per-step sin/cos use __sincosf on phases
 * reduced to [-pi, pi] (absolute error < 2^-21.4) and exp uses __expf (2 ulp + ...; the
 * arguments here are small); RF steps always use sincospif (accurate for any argument). */
#include "sim_internal.h"

#include <cuda_runtime.h>

#include <math.h>
#include <string.h>

namespace
{

constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;
constexpr int kStepChunk = 256;
constexpr int kSlots = 16;
constexpr long long kPad = 512; /* isochromat padding: a multiple of kThreads * K for K <= 4 */
constexpr unsigned kFull = 0xffffffffu;

struct DevObj {
    const float *x, *y, *z, *df, *r1, *r2, *m0, *mx0, *my0, *mz0;
    float *mx, *my, *mz;
    const float2 *sens; /* coil-major [ncoils][npad], or NULL */
    long long npad;
    int ncoils;
};

__device__ __forceinline__ void sincos2pi(float c, int fast, float *s, float *co)
{
    if (fast)
        __sincosf(6.28318530717958647f * c, s, co);
    else
        sincospif(2.0f * c, s, co);
}

__device__ __forceinline__ float fexp(float x, int fast) { return fast ? __expf(x) : expf(x); }

__device__ __forceinline__ float cycles(const kri_sim_step &s, float x, float y, float z, float df)
{
    return s.kx * x + s.ky * y + s.kz * z + df * s.dt;
}

__device__ __forceinline__ unsigned long long to_fix(float v, double scale)
{
    double q = (double)v * scale;
    const double lim = 9.2e18;
    q = q != q ? 0.0 : fmin(fmax(q, -lim), lim);
    return (unsigned long long)__double2ll_rn(q);
}

/* Reduce-scatter of 16 slots across the warp: returns the warp total of slot (lane >> 1) & 15. */
__device__ __forceinline__ float warp_scatter16(float (&a)[kSlots], int lane)
{
#pragma unroll
    for (int j = 0; j < 8; j++) {
        bool up = lane & 16;
        float send = up ? a[j] : a[j + 8], keep = up ? a[j + 8] : a[j];
        a[j] = keep + __shfl_xor_sync(kFull, send, 16);
    }
#pragma unroll
    for (int j = 0; j < 4; j++) {
        bool up = lane & 8;
        float send = up ? a[j] : a[j + 4], keep = up ? a[j + 4] : a[j];
        a[j] = keep + __shfl_xor_sync(kFull, send, 8);
    }
#pragma unroll
    for (int j = 0; j < 2; j++) {
        bool up = lane & 4;
        float send = up ? a[j] : a[j + 2], keep = up ? a[j + 2] : a[j];
        a[j] = keep + __shfl_xor_sync(kFull, send, 4);
    }
    {
        bool up = lane & 2;
        float send = up ? a[0] : a[1], keep = up ? a[1] : a[0];
        a[0] = keep + __shfl_xor_sync(kFull, send, 2);
    }
    return a[0] + __shfl_xor_sync(kFull, a[0], 1);
}

template <int K, int NC, bool WS> struct Iso {
    float x[K], y[K], z[K], df[K], r1[K], r2[K], m0[K], mx[K], my[K], mz[K];
    float wr[K][NC], wi[K][NC];
    float e1[K], e2[K], dtc; /* relaxation cache for precession steps */
};

template <int K, int NC, bool WS>
__device__ __forceinline__ void step_rf(Iso<K, NC, WS> &v, const kri_sim_step &s, int fast)
{
    const float hdt = 0.5f * s.dt;
#pragma unroll
    for (int k = 0; k < K; k++) {
        float h1 = fexp(-hdt * v.r1[k], fast), h2 = fexp(-hdt * v.r2[k], fast);
        float mx = v.mx[k] * h2, my = v.my[k] * h2;
        float mz = v.mz[k] * h1 + v.m0[k] * (1.0f - h1);
        float cz = cycles(s, v.x[k], v.y[k], v.z[k], v.df[k]);
        float nrm = sqrtf(s.bx * s.bx + s.by * s.by + cz * cz); /* cycles */
        if (nrm > 1e-30f) {
            float sh, ch;
            sincospif(nrm, &sh, &ch); /* half angle: pi |v| */
            const float tp = 6.28318530717958647f;
            float wx = tp * s.bx, wy = tp * s.by, wz = tp * cz, th = tp * nrm;
            float s1 = 2.0f * sh * ch / th, s2 = 2.0f * sh * sh / (th * th);
            float ct = 1.0f - 2.0f * sh * sh;
            float cx = wy * mz - wz * my, cy = wz * mx - wx * mz, cc = wx * my - wy * mx;
            float d = (wx * mx + wy * my + wz * mz) * s2;
            float nx = mx * ct - cx * s1 + wx * d, ny = my * ct - cy * s1 + wy * d;
            mz = mz * ct - cc * s1 + wz * d;
            mx = nx;
            my = ny;
        }
        v.mx[k] = mx * h2;
        v.my[k] = my * h2;
        v.mz[k] = mz * h1 + v.m0[k] * (1.0f - h1);
    }
}

template <int K, int NC, bool WS>
__device__ __forceinline__ void step_precess(Iso<K, NC, WS> &v, const kri_sim_step &s, int fast)
{
    if (s.dt != v.dtc) {
#pragma unroll
        for (int k = 0; k < K; k++) {
            v.e1[k] = fexp(-s.dt * v.r1[k], fast);
            v.e2[k] = fexp(-s.dt * v.r2[k], fast);
        }
        v.dtc = s.dt;
    }
#pragma unroll
    for (int k = 0; k < K; k++) {
        float c = cycles(s, v.x[k], v.y[k], v.z[k], v.df[k]);
        float sn, co;
        sincos2pi(c - rintf(c), fast, &sn, &co);
        float mx = v.mx[k], my = v.my[k];
        v.mx[k] = (mx * co + my * sn) * v.e2[k];
        v.my[k] = (my * co - mx * sn) * v.e2[k];
        v.mz[k] = v.mz[k] * v.e1[k] + v.m0[k] * (1.0f - v.e1[k]);
    }
}

/* A run of nrep equal steps with a sample after each (s.adc >= 0). */
template <int K, int NC, bool WS>
__device__ __forceinline__ void step_run(Iso<K, NC, WS> &v, const kri_sim_step &s, int fast,
                                         float (*sred)[kWarps][2][kSlots], int &parity, int coil0,
                                         const DevObj &o, long long ns, double scale,
                                         unsigned long long *acc)
{
    constexpr int T = kSlots / NC; /* samples per tile */
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float zr[K], zi[K], sx[K], sy[K], cc[K];
#pragma unroll
    for (int k = 0; k < K; k++) {
        float c = cycles(s, v.x[k], v.y[k], v.z[k], v.df[k]);
        cc[k] = c;
        float sn, co;
        sincos2pi(c - rintf(c), fast, &sn, &co);
        float e2 = fexp(-s.dt * v.r2[k], fast);
        zr[k] = e2 * co;
        zi[k] = -e2 * sn;
        sx[k] = v.mx[k];
        sy[k] = v.my[k];
    }
    const int nrep = s.nrep;
    for (int b0 = 0; b0 < nrep; b0 += T) {
        float ar[kSlots], ai[kSlots];
#pragma unroll
        for (int t = 0; t < T; t++) {
            const bool live = b0 + t < nrep; /* uniform */
#pragma unroll
            for (int c = 0; c < NC; c++)
                ar[t * NC + c] = ai[t * NC + c] = 0.0f;
            if (live) {
#pragma unroll
                for (int k = 0; k < K; k++) {
                    float mx = v.mx[k], my = v.my[k];
                    v.mx[k] = mx * zr[k] - my * zi[k];
                    v.my[k] = mx * zi[k] + my * zr[k];
                }
#pragma unroll
                for (int c = 0; c < NC; c++) {
                    float sr = 0.0f, si = 0.0f;
#pragma unroll
                    for (int k = 0; k < K; k++) {
                        if (WS) {
                            sr += v.wr[k][c] * v.mx[k] - v.wi[k][c] * v.my[k];
                            si += v.wr[k][c] * v.my[k] + v.wi[k][c] * v.mx[k];
                        } else {
                            sr += v.mx[k];
                            si += v.my[k];
                        }
                    }
                    ar[t * NC + c] = sr;
                    ai[t * NC + c] = si;
                }
            }
        }
        float tr = warp_scatter16(ar, lane), ti = warp_scatter16(ai, lane);
        if ((lane & 1) == 0) {
            sred[parity][warp][0][lane >> 1] = tr;
            sred[parity][warp][1][lane >> 1] = ti;
        }
        __syncthreads();
        if (threadIdx.x < 2 * kSlots) {
            const int slot = threadIdx.x & (kSlots - 1), comp = threadIdx.x >> 4;
            float tot = 0.0f;
#pragma unroll
            for (int w = 0; w < kWarps; w++)
                tot += sred[parity][w][comp][slot];
            const int t = slot / NC, coil = coil0 + slot % NC;
            if (b0 + t < nrep && coil < o.ncoils) {
                long long sample = (long long)s.adc + b0 + t;
                atomicAdd(acc + 2 * (sample + ns * coil) + comp, to_fix(tot, scale));
            }
        }
        parity ^= 1;
    }
    /* end state from the closed form */
#pragma unroll
    for (int k = 0; k < K; k++) {
        double cn = (double)cc[k] * (double)nrep;
        cn -= rint(cn);
        float sn, co;
        sincospif(2.0f * (float)cn, &sn, &co);
        float tt = (float)((double)s.dt * (double)nrep);
        float e2 = fexp(-tt * v.r2[k], fast), e1 = fexp(-tt * v.r1[k], fast);
        v.mx[k] = (sx[k] * co + sy[k] * sn) * e2;
        v.my[k] = (sy[k] * co - sx[k] * sn) * e2;
        v.mz[k] = v.mz[k] * e1 + v.m0[k] * (1.0f - e1);
    }
}

template <int K, int NC, bool WS>
__global__ void __launch_bounds__(kThreads)
    k_bloch(const kri_sim_step *__restrict__ steps, long long nsteps, DevObj o, int coil0,
            long long ns, double scale, unsigned long long *__restrict__ acc, int write_state,
            int fast)
{
    __shared__ kri_sim_step sst[kStepChunk];
    __shared__ float sred[2][kWarps][2][kSlots];
    Iso<K, NC, WS> v;
    const long long base = (long long)blockIdx.x * (kThreads * K) + threadIdx.x;
#pragma unroll
    for (int k = 0; k < K; k++) {
        const long long i = base + (long long)k * kThreads; /* < npad by construction */
        v.x[k] = o.x[i];
        v.y[k] = o.y[i];
        v.z[k] = o.z[i];
        v.df[k] = o.df[i];
        v.r1[k] = o.r1[i];
        v.r2[k] = o.r2[i];
        v.m0[k] = o.m0[i];
        v.mx[k] = o.mx0[i];
        v.my[k] = o.my0[i];
        v.mz[k] = o.mz0[i];
#pragma unroll
        for (int c = 0; c < NC; c++) {
            float2 w = make_float2(0.0f, 0.0f);
            if (WS && coil0 + c < o.ncoils) w = o.sens[(long long)(coil0 + c) * o.npad + i];
            v.wr[k][c] = w.x;
            v.wi[k][c] = w.y;
        }
        v.e1[k] = v.e2[k] = 1.0f;
    }
    v.dtc = -1.0f;
    int parity = 0;
    for (long long c0 = 0; c0 < nsteps; c0 += kStepChunk) {
        const int cnt = (int)min((long long)kStepChunk, nsteps - c0);
        __syncthreads(); /* everyone is done with the previous chunk */
        for (int j = threadIdx.x; j < cnt; j += kThreads)
            sst[j] = steps[c0 + j];
        __syncthreads();
        for (int q = 0; q < cnt; q++) {
            const kri_sim_step s = sst[q];
            if (KRI_STEP_IS_SPOIL(s)) {
#pragma unroll
                for (int k = 0; k < K; k++)
                    v.mx[k] = v.my[k] = 0.0f;
            } else if (s.bx != 0.0f || s.by != 0.0f) {
                step_rf(v, s, fast);
                if (s.adc >= 0) {
                    kri_sim_step z = s;
                    z.dt = z.kx = z.ky = z.kz = 0.0f;
                    z.nrep = 1;
                    step_run(v, z, fast, sred, parity, coil0, o, ns, scale, acc);
                }
            } else if (s.adc < 0) {
                step_precess(v, s, fast);
            } else {
                step_run(v, s, fast, sred, parity, coil0, o, ns, scale, acc);
            }
        }
    }
    if (write_state) {
#pragma unroll
        for (int k = 0; k < K; k++) {
            const long long i = base + (long long)k * kThreads;
            o.mx[i] = v.mx[k];
            o.my[i] = v.my[k];
            o.mz[i] = v.mz[k];
        }
    }
}

__global__ void k_bloch_finish(const unsigned long long *__restrict__ acc,
                               const float2 *__restrict__ rx, long long ns, long long total,
                               double inv, float2 *__restrict__ out)
{
    long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= total) return;
    const long long k = j % ns;
    double re = (double)(long long)acc[2 * j] * inv, im = (double)(long long)acc[2 * j + 1] * inv;
    float2 r = rx[k];
    /* separately rounded products and sums, as the host's kri_sim_finish */
    out[j] = make_float2((float)__dsub_rn(__dmul_rn(re, (double)r.x), __dmul_rn(im, (double)r.y)),
                         (float)__dadd_rn(__dmul_rn(re, (double)r.y), __dmul_rn(im, (double)r.x)));
}

kr_status cuda_fail(cudaError_t e, const char *what)
{
    return kri_fail(KR_ERR_CUDA, "Bloch simulation: %s failed: %s", what, cudaGetErrorString(e));
}

} // namespace

struct kri_cuda_sim {
    const kr_ctx *ctx;
    cudaStream_t stream;
    int fast, kopt;
    kri_sim_step *steps;
    long long nsteps, ns;
    float2 *rx;
    /* object */
    float *obj; /* 13 npad floats */
    float2 *sens;
    long long n, npad;
    int ncoils;
    unsigned long long *acc;
};

static void kri_cuda_sim_destroy(kri_cuda_sim *s)
{
    if (!s) return;
    cudaFree(s->steps);
    cudaFree(s->rx);
    cudaFree(s->obj);
    cudaFree(s->sens);
    cudaFree(s->acc);
    kri_free(s);
}

static kr_status kri_cuda_sim_create(kri_cuda_sim **out, const kr_ctx *ctx,
                                     const kri_sim_prog *prog, int fast_math, int iso_per_thread)
{
    *out = NULL;
    KRI_TRY(kri_cuda_set_device(ctx));
    kri_cuda_sim *s = (kri_cuda_sim *)kri_calloc(1, sizeof *s);
    if (!s) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a CUDA simulation plan");
    s->ctx = ctx;
    s->stream = (cudaStream_t)kr_ctx_stream(ctx);
    s->fast = fast_math;
    s->kopt = iso_per_thread;
    s->nsteps = prog->nsteps;
    s->ns = prog->nsamples;
    cudaError_t e = cudaMalloc((void **)&s->steps, (size_t)prog->nsteps * sizeof(kri_sim_step));
    if (e == cudaSuccess)
        e = cudaMemcpy(s->steps, prog->steps, (size_t)prog->nsteps * sizeof(kri_sim_step),
                       cudaMemcpyHostToDevice);
    if (e == cudaSuccess && prog->nsamples > 0) {
        e = cudaMalloc((void **)&s->rx, (size_t)prog->nsamples * sizeof(float2));
        if (e == cudaSuccess)
            e = cudaMemcpy(s->rx, prog->rx, (size_t)prog->nsamples * sizeof(float2),
                           cudaMemcpyHostToDevice);
    }
    if (e != cudaSuccess) {
        kr_status st = e == cudaErrorMemoryAllocation
                           ? kri_fail(KR_ERR_OOM_DEVICE, "out of device memory for %lld steps",
                                      (long long)prog->nsteps)
                           : cuda_fail(e, "uploading the sequence");
        kri_cuda_sim_destroy(s);
        return st;
    }
    *out = s;
    return KR_OK;
}

static kr_status kri_cuda_sim_set_object(kri_cuda_sim *s, const kri_sim_obj *obj)
{
    KRI_TRY(kri_cuda_set_device(s->ctx));
    const long long n = obj->n, npad = (n + kPad - 1) / kPad * kPad;
    const int nc = obj->ncoils;
    cudaFree(s->obj);
    cudaFree(s->sens);
    cudaFree(s->acc);
    s->obj = NULL;
    s->sens = NULL;
    s->acc = NULL;
    s->n = 0;
    /* host staging, padded with inert isochromats (m0 = 0, rates 1/s) */
    float *h = (float *)kri_calloc((size_t)npad * 10, sizeof(float));
    if (!h) return kri_fail(KR_ERR_OOM_HOST, "out of host memory staging the object");
    const float *src[10] = {obj->x,  obj->y,  obj->z,   obj->df,  obj->r1,
                            obj->r2, obj->m0, obj->mx0, obj->my0, obj->mz0};
    for (int f = 0; f < 10; f++) {
        memcpy(h + (size_t)f * npad, src[f], (size_t)n * sizeof(float));
        if (f == 4 || f == 5)
            for (long long i = n; i < npad; i++)
                h[(size_t)f * npad + i] = 1.0f;
    }
    cudaError_t e = cudaMalloc((void **)&s->obj, (size_t)npad * 13 * sizeof(float));
    if (e == cudaSuccess)
        e = cudaMemcpy(s->obj, h, (size_t)npad * 10 * sizeof(float), cudaMemcpyHostToDevice);
    kri_free(h);
    if (e == cudaSuccess && obj->sens) {
        e = cudaMalloc((void **)&s->sens, (size_t)npad * nc * sizeof(float2));
        if (e == cudaSuccess) e = cudaMemset(s->sens, 0, (size_t)npad * nc * sizeof(float2));
        if (e == cudaSuccess)
            e = cudaMemcpy2D(s->sens, (size_t)npad * sizeof(float2), obj->sens,
                             (size_t)n * sizeof(float2), (size_t)n * sizeof(float2), (size_t)nc,
                             cudaMemcpyHostToDevice);
    }
    if (e == cudaSuccess && s->ns > 0)
        e = cudaMalloc((void **)&s->acc, (size_t)(2 * s->ns * nc) * sizeof(unsigned long long));
    if (e != cudaSuccess) {
        cudaFree(s->obj);
        cudaFree(s->sens);
        s->obj = NULL;
        s->sens = NULL;
        s->acc = NULL;
        if (e == cudaErrorMemoryAllocation)
            return kri_fail(KR_ERR_OOM_DEVICE, "out of device memory for %lld isochromats",
                            (long long)n);
        return cuda_fail(e, "uploading the object");
    }
    s->n = n;
    s->npad = npad;
    s->ncoils = nc;
    return KR_OK;
}

template <int K, int NC, bool WS>
static cudaError_t launch(kri_cuda_sim *s, const DevObj &o, int coil0, double scale, int write)
{
    const long long nblk = s->npad / (kThreads * K);
    k_bloch<K, NC, WS><<<(unsigned)nblk, kThreads, 0, s->stream>>>(
        s->steps, s->nsteps, o, coil0, s->ns, scale, s->acc, write, s->fast);
    return cudaGetLastError();
}

static kr_status kri_cuda_sim_execute(kri_cuda_sim *s, double scale, float *kspace_dev,
                                      int64_t *acc_host)
{
    KRI_TRY(kri_cuda_set_device(s->ctx));
    if (!s->obj) return kri_fail(KR_ERR_INVALID_ARG, "CUDA simulation: no object");
    const long long np = s->npad;
    DevObj o;
    o.x = s->obj;
    o.y = s->obj + np;
    o.z = s->obj + 2 * np;
    o.df = s->obj + 3 * np;
    o.r1 = s->obj + 4 * np;
    o.r2 = s->obj + 5 * np;
    o.m0 = s->obj + 6 * np;
    o.mx0 = s->obj + 7 * np;
    o.my0 = s->obj + 8 * np;
    o.mz0 = s->obj + 9 * np;
    o.mx = s->obj + 10 * np;
    o.my = s->obj + 11 * np;
    o.mz = s->obj + 12 * np;
    o.sens = s->sens;
    o.npad = np;
    o.ncoils = s->ncoils;
    const long long total = s->ns * s->ncoils;
    cudaError_t e = cudaSuccess;
    if (total > 0)
        e = cudaMemsetAsync(s->acc, 0, (size_t)(2 * total) * sizeof(unsigned long long), s->stream);
    if (e != cudaSuccess) return cuda_fail(e, "clearing the accumulators");
    const int nc = s->ncoils;
    int K = s->kopt;
    if (K == 0) K = kri_sim_iso_per_thread(s->n);
    if (!s->sens) {
        e = K == 4   ? launch<4, 1, false>(s, o, 0, scale, 1)
            : K == 2 ? launch<2, 1, false>(s, o, 0, scale, 1)
                     : launch<1, 1, false>(s, o, 0, scale, 1);
    } else if (nc == 1) {
        e = K == 4   ? launch<4, 1, true>(s, o, 0, scale, 1)
            : K == 2 ? launch<2, 1, true>(s, o, 0, scale, 1)
                     : launch<1, 1, true>(s, o, 0, scale, 1);
    } else {
        const int grp = nc <= 2 ? 2 : nc <= 4 ? 4 : nc <= 8 ? 8 : 16;
        for (int c0 = 0; c0 < nc && e == cudaSuccess; c0 += grp) {
            const int w = c0 == 0;
            switch (grp) {
            case 2: e = launch<4, 2, true>(s, o, c0, scale, w); break;
            case 4: e = launch<4, 4, true>(s, o, c0, scale, w); break;
            case 8: e = launch<2, 8, true>(s, o, c0, scale, w); break;
            default: e = launch<1, 16, true>(s, o, c0, scale, w); break;
            }
        }
    }
    if (e != cudaSuccess) return cuda_fail(e, "the simulation kernel launch");
    if (total > 0 && acc_host) { /* the sums themselves, for a divided plan */
        e = cudaMemcpyAsync(acc_host, s->acc, (size_t)(2 * total) * sizeof(unsigned long long),
                            cudaMemcpyDeviceToHost, s->stream);
        if (e != cudaSuccess) return cuda_fail(e, "reading the accumulators");
    } else if (total > 0) {
        if (!kspace_dev) return kri_fail(KR_ERR_INVALID_ARG, "CUDA simulation: no output");
        const int th = 256;
        k_bloch_finish<<<(unsigned)((total + th - 1) / th), th, 0, s->stream>>>(
            s->acc, s->rx, s->ns, total, 1.0 / scale, (float2 *)kspace_dev);
        e = cudaGetLastError();
        if (e != cudaSuccess) return cuda_fail(e, "the k-space kernel launch");
    }
    e = cudaStreamSynchronize(s->stream);
    if (e != cudaSuccess) return cuda_fail(e, "the simulation");
    return KR_OK;
}

static kr_status kri_cuda_sim_get_state(const kri_cuda_sim *s, float *mx, float *my,
                                        float *mz)
{
    KRI_TRY(kri_cuda_set_device(s->ctx));
    const long long np = s->npad;
    float *dst[3] = {mx, my, mz};
    for (int f = 0; f < 3; f++) {
        cudaError_t e = cudaMemcpy(dst[f], s->obj + (10 + f) * np, (size_t)s->n * sizeof(float),
                                   cudaMemcpyDeviceToHost);
        if (e != cudaSuccess) return cuda_fail(e, "reading the final state");
    }
    return KR_OK;
}

/* ---- the backend table (sim_internal.h) ---------------------------------------------------- */
static kr_status kri_cuda_sim_make(void **state, const kr_ctx *ctx, const kri_sim_prog *prog,
                                   const kr_sim_opts *opts)
{
    kri_cuda_sim *s = nullptr;
    KRI_TRY(kri_cuda_sim_create(&s, ctx, prog, opts->fast_math != 0, opts->iso_per_thread));
    *state = s;
    return KR_OK;
}

static kr_status kri_cuda_sim_object(void *state, const kri_sim_obj *obj)
{
    return kri_cuda_sim_set_object((kri_cuda_sim *)state, obj);
}

static kr_status kri_cuda_sim_run(void *state, double scale, float *kspace, int64_t *acc)
{
    return kri_cuda_sim_execute((kri_cuda_sim *)state, scale, kspace, acc);
}

static kr_status kri_cuda_sim_state(const void *state, float *mx, float *my, float *mz)
{
    return kri_cuda_sim_get_state((const kri_cuda_sim *)state, mx, my, mz);
}

static void kri_cuda_sim_free(void *state) { kri_cuda_sim_destroy((kri_cuda_sim *)state); }

extern "C" const kri_sim_backend kri_sim_cuda = {{"cuda", true},      kri_cuda_sim_make,
                                                 kri_cuda_sim_object, kri_cuda_sim_run,
                                                 kri_cuda_sim_state,  kri_cuda_sim_free};
