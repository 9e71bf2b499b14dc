/* ESPIRiT's per-voxel stage on the CPU (kri_espirit_cpu, espirit_internal.h): OpenMP over the
 * lines of x (one (y, z) each). Per line, the coefficients are summed over the y and z
 * frequencies once, r[tri][dx] = sum_{dz, dy} g[tri][dz][dy][dx] e_y e_z, so each voxel costs
 * one sum over dx per matrix entry. The first voxel of a line takes its eigenvector from a full
 * eigen-decomposition, the next ones warm-start the power iteration from their left neighbour.
 * Every line is computed by one thread in a fixed order: bit-identical for any thread count. */
#include "internal.h"
#include "mri/cartesian/espirit_internal.h"
#include "mri/cartesian/espirit_kern.h"
#include "mri/cartesian/sense_internal.h"

#include <string.h>

static kr_status kri_cpu_espirit_maps(const kri_espirit_desc *d, float *maps, float *ev)
{
    const int64_t nx = d->n[0], ny = d->n[1], nz = d->n[2], nc = d->nc;
    const int64_t nvox = nx * ny * nz, ntri = nc * (nc + 1) / 2;
    const int K0 = d->K[0], K1 = d->K[1], K2 = d->K[2];
    const int n = (int)nc;
    const kri_ez *g = (const kri_ez *)d->g, *ref = (const kri_ez *)d->ref;
    /* phase tables e[a][D][p] for the three axes */
    kri_ez *ex = NULL, *ey = NULL, *ez = NULL, *work = NULL;
    double *wtmp = NULL;
    const int nt = kri_threads(d->ctx);
    /* per thread: r (ntri K0), G, v, tmp, Gz, Zv (eigenvectors) */
    const size_t per = (size_t)(ntri * K0) + 3 * (size_t)n * n + 2 * (size_t)n;
    kr_status st = kri_alloc((void **)&ex, sizeof(kri_ez) * (size_t)(K0 * nx), "ESPIRiT phases");
    if (st == KR_OK) st = kri_alloc((void **)&ey, sizeof(kri_ez) * (size_t)(K1 * ny), "ESPIRiT phases");
    if (st == KR_OK) st = kri_alloc((void **)&ez, sizeof(kri_ez) * (size_t)(K2 * nz), "ESPIRiT phases");
    if (st == KR_OK) st = kri_alloc((void **)&work, sizeof(kri_ez) * per * (size_t)nt, "ESPIRiT scratch");
    if (st == KR_OK)
        st = kri_alloc((void **)&wtmp, sizeof(double) * (size_t)n * (size_t)nt, "ESPIRiT scratch");
    if (st != KR_OK) goto done;
    kri_esp_table(K0, nx, ex);
    kri_esp_table(K1, ny, ey);
    kri_esp_table(K2, nz, ez);
#pragma omp parallel num_threads(nt)
    {
        const int tid = kri_omp_tid();
        kri_ez *r = work + per * (size_t)tid, *G = r + ntri * K0, *v = G + (size_t)n * n,
               *tmp = v + n, *Gz = tmp + n, *Zv = Gz + (size_t)n * n;
        double *wz = wtmp + (size_t)n * (size_t)tid;
#pragma omp for schedule(static)
        for (int64_t line = 0; line < ny * nz; line++) {
            const int64_t y = line % ny, z = line / ny;
            for (int64_t t = 0; t < ntri; t++)
                for (int dx = 0; dx < K0; dx++) {
                    kri_ez s = kri_ez_mk(0, 0);
                    for (int dz = 0; dz < K2; dz++) {
                        kri_ez sy = kri_ez_mk(0, 0);
                        for (int dy = 0; dy < K1; dy++)
                            sy = kri_ez_add(sy, kri_ez_mul(g[((t * K2 + dz) * K1 + dy) * K0 + dx],
                                                           ey[dy * ny + y]));
                        s = kri_ez_add(s, kri_ez_mul(sy, ez[dz * nz + z]));
                    }
                    r[t * K0 + dx] = s;
                }
            for (int64_t x = 0; x < nx; x++) {
                for (int c = 0, t = 0; c < n; c++)
                    for (int c2 = 0; c2 <= c; c2++, t++) {
                        kri_ez s = kri_ez_mk(0, 0);
                        for (int dx = 0; dx < K0; dx++)
                            s = kri_ez_add(s, kri_ez_mul(r[t * K0 + dx], ex[dx * nx + x]));
                        G[c + n * c2] = s;
                        G[c2 + n * c] = kri_ez_conj(s);
                    }
                double lam;
                if (x == 0) {
                    /* line start: full eigen-decomposition */
                    memcpy(Gz, G, sizeof(kri_ez) * (size_t)n * n);
                    if (kri_zheev(n, Gz, n, wz, Zv, n) == 0) {
                        for (int i = 0; i < n; i++) v[i] = Zv[i + (int64_t)n * (n - 1)];
                        lam = wz[n - 1];
                    } else {
                        for (int i = 0; i < n; i++) v[i] = kri_ez_mk(i == 0, 0);
                        lam = kri_esp_power(n, G, 1, v, tmp, 1, 500, -1);
                    }
                } else {
                    lam = kri_esp_power(n, G, 1, v, tmp, 1, 300, 0.5 * d->crop);
                }
                const int64_t q = x + nx * line;
                kri_esp_store(n, v, 1, d->ref, lam, d->crop,
                              d->rotate, maps + 2 * q, nvox);
                if (ev) ev[q] = (float)lam;
                if (!(lam > d->crop) && lam < 0.5 * d->crop)
                    for (int i = 0; i < n; i++) v[i] = ref[i]; /* a meaningful warm start */
            }
        }
    }
done:
    kri_free(ex);
    kri_free(ey);
    kri_free(ez);
    kri_free(work);
    kri_free(wtmp);
    return st;
}

const kri_espirit_backend kri_espirit_cpu = {{"cpu", true}, kri_cpu_espirit_maps};
