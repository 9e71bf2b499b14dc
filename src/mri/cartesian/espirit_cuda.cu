// ESPIRiT's per-voxel stage on CUDA (kri_espirit_cuda, espirit_internal.h): one thread per
// voxel. The host sums the coefficients over the x frequencies once (hx, per x), so a thread
// builds its nc x nc matrix G(p) with K1 K2 products per entry, then runs the power iteration
// of espirit_kern.h (double precision) from the phase reference, and crops and rotates the
// phase as the host does. The matrices and vectors live in a device scratch laid out entry by
// entry over the voxels of a chunk (coalesced), chunks of at most about 256 MB. Maps and
// eigenvalues are copied back to the host arrays the caller gave. The host warm-starts each
// voxel from its neighbour instead, so the two agree where the power iteration converges (a
// residual of 1e-9), not bit for bit.
#include <cuda_runtime.h>

#include "cuda_util.cuh"
#include "internal.h"
#include "mri/cartesian/espirit_internal.h"
#include "mri/cartesian/espirit_kern.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

namespace {

constexpr int kThreads = 128;

struct EspGeom {
    int64_t nx, ny, nz, nvox, q0, chunk;
    int n, K1, K2;
    double crop;
    int rotate;
};

__global__ void k_espirit_voxels(EspGeom g, const double2 *__restrict__ hx,
                                 const double2 *__restrict__ ey, const double2 *__restrict__ ez,
                                 const double *__restrict__ ref, double2 *G, double2 *V,
                                 double2 *T, float *maps, float *ev)
{
    const int64_t lv = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t q = g.q0 + lv;
    if (lv >= g.chunk || q >= g.nvox) return;
    const int64_t x = q % g.nx, y = (q / g.nx) % g.ny, z = q / (g.nx * g.ny);
    const int n = g.n;
    double2 *Gl = G + lv, *v = V + lv, *tmp = T + lv;
    const int64_t cs = g.chunk;
    for (int c = 0, t = 0; c < n; c++)
        for (int c2 = 0; c2 <= c; c2++, t++) {
            kri_ez s = kri_ez_mk(0, 0);
            for (int dz = 0; dz < g.K2; dz++) {
                kri_ez sy = kri_ez_mk(0, 0);
                for (int dy = 0; dy < g.K1; dy++)
                    sy = kri_ez_add(sy, kri_ez_mul(hx[(((int64_t)t * g.K2 + dz) * g.K1 + dy) *
                                                          g.nx + x],
                                                   ey[(int64_t)dy * g.ny + y]));
                s = kri_ez_add(s, kri_ez_mul(sy, ez[(int64_t)dz * g.nz + z]));
            }
            Gl[(c + (int64_t)n * c2) * cs] = s;
            Gl[(c2 + (int64_t)n * c) * cs] = kri_ez_conj(s);
        }
    for (int i = 0; i < n; i++) v[i * cs] = kri_ez_mk(ref[2 * i], ref[2 * i + 1]);
    const double lam = kri_esp_power(n, Gl, cs, v, tmp, cs, 1000, 0.5 * g.crop);
    kri_esp_store(n, v, cs, ref, lam, g.crop, g.rotate, maps + 2 * q, g.nvox);
    if (ev) ev[q] = (float)lam;
}

// A device copy of `bytes` host bytes (*d freed by the caller with cudaFree).
kr_status to_device(void **d, const void *h, size_t bytes, cudaStream_t s, const char *what)
{
    cudaError_t e = cudaMalloc(d, bytes);
    if (e != cudaSuccess) *d = NULL;
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        return kri_fail(KR_ERR_OOM_DEVICE, "out of device memory for %s", what);
    }
    KRI_TRY(kri_cu_err(e, "cudaMalloc"));
    if (h) KRI_TRY(kri_cu_err(cudaMemcpyAsync(*d, h, bytes, cudaMemcpyHostToDevice, s),
                              "cudaMemcpyAsync"));
    return KR_OK;
}

} // namespace

static kr_status kri_cuda_espirit_maps(const kri_espirit_desc *d, float *maps, float *ev)
{
    const int64_t nx = d->n[0], ny = d->n[1], nz = d->n[2], nc = d->nc;
    const int64_t nvox = nx * ny * nz, ntri = nc * (nc + 1) / 2;
    const int K0 = d->K[0], K1 = d->K[1], K2 = d->K[2];
    KRI_TRY(kri_cuda_set_device(d->ctx));
    cudaStream_t s = kri_cu_stream(d->ctx);
    /* host tables: hx[((t K2 + dz) K1 + dy) nx + x] = sum_dx g[...][dx] e_x(dx, x); e_y, e_z */
    const size_t nhx = (size_t)(ntri * K2 * K1 * nx);
    double2 *hhx = (double2 *)malloc(sizeof(double2) * nhx);
    double2 *hey = (double2 *)malloc(sizeof(double2) * (size_t)(K1 * ny));
    double2 *hez = (double2 *)malloc(sizeof(double2) * (size_t)(K2 * nz));
    double2 *hex = (double2 *)malloc(sizeof(double2) * (size_t)(K0 * nx));
    kr_status st = KR_OK;
    if (!hhx || !hey || !hez || !hex)
        st = kri_fail(KR_ERR_OOM_HOST, "out of host memory for the ESPIRiT tables");
    if (st == KR_OK) {
        kri_esp_table(K0, nx, hex);
        kri_esp_table(K1, ny, hey);
        kri_esp_table(K2, nz, hez);
        const double2 *gg = (const double2 *)d->g;
        for (int64_t r = 0; r < ntri * K2 * K1; r++)
            for (int64_t x = 0; x < nx; x++) {
                kri_ez sum = kri_ez_mk(0, 0);
                for (int dx = 0; dx < K0; dx++)
                    sum = kri_ez_add(sum, kri_ez_mul(gg[r * K0 + dx], hex[dx * nx + x]));
                hhx[r * nx + x] = sum;
            }
    }
    void *dhx = NULL, *dey = NULL, *dez = NULL, *dref = NULL, *dmaps = NULL, *dev = NULL,
         *scratch = NULL;
    const int n = (int)nc;
    const size_t per = sizeof(double2) * ((size_t)n * n + 2 * (size_t)n);
    int64_t chunk = (int64_t)(((size_t)256 << 20) / per);
    if (chunk > nvox) chunk = nvox;
    if (chunk < 1) chunk = 1;
    if (st == KR_OK) st = to_device(&dhx, hhx, sizeof(double2) * nhx, s, "the ESPIRiT tables");
    if (st == KR_OK)
        st = to_device(&dey, hey, sizeof(double2) * (size_t)(K1 * ny), s, "the ESPIRiT tables");
    if (st == KR_OK)
        st = to_device(&dez, hez, sizeof(double2) * (size_t)(K2 * nz), s, "the ESPIRiT tables");
    if (st == KR_OK)
        st = to_device(&dref, d->ref, sizeof(double) * 2 * (size_t)nc, s, "the ESPIRiT tables");
    if (st == KR_OK)
        st = to_device(&dmaps, NULL, sizeof(float) * 2 * (size_t)(nvox * nc), s, "ESPIRiT maps");
    if (st == KR_OK && ev)
        st = to_device(&dev, NULL, sizeof(float) * (size_t)nvox, s, "ESPIRiT eigenvalues");
    if (st == KR_OK) st = to_device(&scratch, NULL, per * (size_t)chunk, s, "ESPIRiT scratch");
    EspGeom g;
    g.nx = nx, g.ny = ny, g.nz = nz, g.nvox = nvox, g.chunk = chunk;
    g.n = n, g.K1 = K1, g.K2 = K2, g.crop = d->crop, g.rotate = d->rotate;
    double2 *G = (double2 *)scratch, *V = G + (size_t)n * n * chunk, *T = V + (size_t)n * chunk;
    for (int64_t q0 = 0; st == KR_OK && q0 < nvox; q0 += chunk) {
        g.q0 = q0;
        k_espirit_voxels<<<kri_cu_grid(chunk, kThreads), kThreads, 0, s>>>(
            g, (const double2 *)dhx, (const double2 *)dey, (const double2 *)dez,
            (const double *)dref, G, V, T, (float *)dmaps, (float *)dev);
        st = kri_cu_launched("k_espirit_voxels");
    }
    if (st == KR_OK)
        st = kri_cu_err(cudaMemcpyAsync(maps, dmaps, sizeof(float) * 2 * (size_t)(nvox * nc),
                                        cudaMemcpyDeviceToHost, s),
                        "cudaMemcpyAsync");
    if (st == KR_OK && ev)
        st = kri_cu_err(cudaMemcpyAsync(ev, dev, sizeof(float) * (size_t)nvox,
                                        cudaMemcpyDeviceToHost, s),
                        "cudaMemcpyAsync");
    cudaError_t se = cudaStreamSynchronize(s);
    if (st == KR_OK) st = kri_cu_err(se, "cudaStreamSynchronize");
    cudaFree(dhx), cudaFree(dey), cudaFree(dez), cudaFree(dref), cudaFree(dmaps), cudaFree(dev);
    cudaFree(scratch);
    free(hhx), free(hey), free(hez), free(hex);
    return st;
}

extern "C" const kri_espirit_backend kri_espirit_cuda = {{"cuda", true}, kri_cuda_espirit_maps};
