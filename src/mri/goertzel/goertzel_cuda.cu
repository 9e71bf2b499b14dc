/* Goertzel CUDA twin (kray/goertzel.h): a row kernel (one thread per (x value, row, batch
 * member)) and a column kernel (one thread per (point, batch member)), double recurrences, the
 * batch cut into chunks so the row scratch stays below 256 MiB. */
#include "core/internal.h"
#include "mri/goertzel/goertzel_internal.h"

#include <cuda_runtime.h>
#include <stdint.h>

#define KRI_GZ_CU(call, what)                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            s = kri_fail(KR_ERR_CUDA, "Goertzel: %s failed: %s", what, cudaGetErrorString(e_));  \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

template <typename T>
__device__ __forceinline__ void kd_gz(const T *a, int64_t st, int64_t n, const kri_gz_coef &cf,
                                      double *yr, double *yi)
{
    double s1r = 0, s1i = 0, s2r = 0, s2i = 0;
    for (int64_t i = n - 1; i >= 0; i--) {
        const T *v = a + 2 * i * st;
        double s0r = (double)v[0] + cf.c * s1r - s2r;
        double s0i = (double)v[1] + cf.c * s1i - s2i;
        s2r = s1r, s2i = s1i, s1r = s0r, s1i = s0i;
    }
    double ur = s1r - (cf.wr * s2r - cf.wi * s2i);
    double ui = s1i - (cf.wr * s2i + cf.wi * s2r);
    *yr = ur * cf.or_ - ui * cf.oi;
    *yi = ur * cf.oi + ui * cf.or_;
}

template <typename T>
__global__ void k_goertzel_rows(const T *ksp, const kri_gz_coef *qx, int64_t nx, int64_t ny,
                                int64_t nq, int64_t nb, double *r)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nb * nq * ny) return;
    const int64_t q = t % nq, j = (t / nq) % ny, b = t / (nq * ny);
    double yr, yi;
    kd_gz<T>(ksp + 2 * (b * nx * ny + j * nx), 1, nx, qx[q], &yr, &yi);
    r[2 * t] = yr;
    r[2 * t + 1] = yi;
}

template <typename T>
__global__ void k_goertzel_cols(const double *r, const kri_gz_coef *py, const int64_t *qi,
                                int64_t ny, int64_t nq, int64_t np, int64_t nb, T *out)
{
    int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nb * np) return;
    const int64_t i = t % np, b = t / np;
    double yr, yi;
    kd_gz<double>(r + 2 * (b * nq * ny + qi[i]), nq, ny, py[i], &yr, &yi);
    out[2 * t] = (T)yr;
    out[2 * t + 1] = (T)yi;
}

static kr_status kri_cuda_goertzel2d(const kr_ctx *ctx, const kri_gz_plan *p, int dbl,
                                     const void *ksp, void *out)
{
    kr_status s = KR_OK;
    kri_gz_coef *dqx = nullptr, *dpy = nullptr;
    int64_t *dq = nullptr;
    double *r = nullptr;
    const int64_t nx = p->nx, ny = p->ny, nq = p->nq, np = p->npts;
    const size_t esz = dbl ? 16 : 8;
    int64_t per = nq * ny * 16, bc = (256ll << 20) / (per > 0 ? per : 1);
    if (bc < 1) bc = 1;
    if (bc > p->batch) bc = p->batch;
    cudaStream_t st = (cudaStream_t)kr_ctx_stream(ctx);
    KRI_TRY(kri_cuda_set_device(ctx));
    KRI_GZ_CU(cudaMallocAsync((void **)&dqx, (size_t)nq * sizeof(kri_gz_coef), st), "cudaMallocAsync(rows)");
    KRI_GZ_CU(cudaMallocAsync((void **)&dpy, (size_t)np * sizeof(kri_gz_coef), st), "cudaMallocAsync(points)");
    KRI_GZ_CU(cudaMallocAsync((void **)&dq, (size_t)np * sizeof(int64_t), st), "cudaMallocAsync(points)");
    KRI_GZ_CU(cudaMallocAsync((void **)&r, (size_t)(bc * nq * ny) * 16, st), "cudaMallocAsync(row scratch)");
    KRI_GZ_CU(cudaMemcpyAsync(dqx, p->qx, (size_t)nq * sizeof(kri_gz_coef), cudaMemcpyHostToDevice, st),
              "copying the row table");
    KRI_GZ_CU(cudaMemcpyAsync(dpy, p->py, (size_t)np * sizeof(kri_gz_coef), cudaMemcpyHostToDevice, st),
              "copying the point table");
    KRI_GZ_CU(cudaMemcpyAsync(dq, p->q, (size_t)np * sizeof(int64_t), cudaMemcpyHostToDevice, st),
              "copying the point table");
    for (int64_t b0 = 0; b0 < p->batch; b0 += bc) {
        const int64_t nb = p->batch - b0 < bc ? p->batch - b0 : bc;
        const int64_t nrow = nb * nq * ny, ncol = nb * np;
        const unsigned threads = 128;
        const int64_t g1 = (nrow + threads - 1) / threads, g2 = (ncol + threads - 1) / threads;
        if (g1 > 2147483647ll || g2 > 2147483647ll) {
            s = kri_fail(KR_ERR_NOT_SUPPORTED, "Goertzel: %lld recurrences in one chunk are too many",
                         (long long)(nrow > ncol ? nrow : ncol));
            goto done;
        }
        const char *kin = (const char *)ksp + (size_t)(b0 * nx * ny) * esz;
        char *kout = (char *)out + (size_t)(b0 * np) * esz;
        if (dbl)
            k_goertzel_rows<double><<<(unsigned)g1, threads, 0, st>>>((const double *)kin, dqx, nx,
                                                                       ny, nq, nb, r);
        else
            k_goertzel_rows<float><<<(unsigned)g1, threads, 0, st>>>((const float *)kin, dqx, nx,
                                                                      ny, nq, nb, r);
        KRI_GZ_CU(cudaGetLastError(), "launching k_goertzel_rows");
        if (dbl)
            k_goertzel_cols<double><<<(unsigned)g2, threads, 0, st>>>(r, dpy, dq, ny, nq, np, nb,
                                                                       (double *)kout);
        else
            k_goertzel_cols<float><<<(unsigned)g2, threads, 0, st>>>(r, dpy, dq, ny, nq, np, nb,
                                                                      (float *)kout);
        KRI_GZ_CU(cudaGetLastError(), "launching k_goertzel_cols");
    }
    KRI_GZ_CU(cudaStreamSynchronize(st), "the Goertzel kernels");
done: /* stream-ordered frees: no device-wide synchronisation per call */
    if (dqx) cudaFreeAsync(dqx, st);
    if (dpy) cudaFreeAsync(dpy, st);
    if (dq) cudaFreeAsync(dq, st);
    if (r) cudaFreeAsync(r, st);
    return s;
}

extern "C" const kri_gz_backend kri_gz_cuda = {{"cuda", true}, kri_cuda_goertzel2d};
