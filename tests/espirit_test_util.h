/* Shared fixtures of the ESPIRiT tests: an analytic 3-D multi-coil phantom (loop-like coil
 * sensitivities around the volume with smooth phases, times the modified 3-D Shepp-Logan with
 * a smooth phase), its coil k-space by the centred FFT, and comparisons of two map sets that
 * are blind to the per-voxel phase of the maps (|maps| and the projections m m^H). Header-only. */
#ifndef KRAY_ESPIRIT_TEST_UTIL_H
#define KRAY_ESPIRIT_TEST_UTIL_H

#include "kray/fft.h"
#include "kray/phantom.h"
#include "kray/sense.h"
#include "kt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The 3-D test size: 32 x 28 x 24 voxels, 6 coils. */
static const int64_t kN[3] = {32, 28, 24};
static const int64_t kNC = 6;

/* Coil c of nc at r_c (radius 1.25 of the half-FOV, spread over the sphere by a golden-angle
 * spiral), S_c(r) = (1 + |r - r_c|^2 / 0.3)^(-3/2) exp(i (2 pi c / nc + 1.2 (r - r_c) . t_c)),
 * r in [-1, 1)^3 at the FFT grid points. c64 [nx, ny, nz, nc]. */
static inline kr_array *ket_maps3(const int64_t n[3], int64_t nc)
{
    int64_t d[4] = {n[0], n[1], n[2], nc};
    kr_array *m = NULL;
    if (kr_array_create(&m, KR_C64, 4, d, KR_HOST, NULL) != KR_OK) return NULL;
    float *v = m->data;
    const int64_t nv = n[0] * n[1] * n[2];
    for (int64_t c = 0; c < nc; c++) {
        const double zc = 1.0 - (2.0 * (double)c + 1.0) / (double)nc;
        const double rc = sqrt(1.0 - zc * zc), phi = 2.39996322972865332 * (double)c;
        const double cx = 1.25 * rc * cos(phi), cy = 1.25 * rc * sin(phi), cz = 1.25 * zc;
        const double tx = -sin(phi), ty = cos(phi);
        for (int64_t q = 0; q < nv; q++) {
            const double x = 2.0 * (double)(q % n[0] - n[0] / 2) / (double)n[0];
            const double y = 2.0 * (double)(q / n[0] % n[1] - n[1] / 2) / (double)n[1];
            const double z = 2.0 * (double)(q / (n[0] * n[1]) - n[2] / 2) / (double)n[2];
            const double dx = x - cx, dy = y - cy, dz = z - cz;
            const double mag = pow(1.0 + (dx * dx + dy * dy + dz * dz) / 0.3, -1.5);
            const double ph = 6.283185307179586 * (double)c / (double)nc + 1.2 * (dx * tx + dy * ty);
            v[2 * (q + nv * c)] = (float)(mag * cos(ph));
            v[2 * (q + nv * c) + 1] = (float)(mag * sin(ph));
        }
    }
    return m;
}

/* Coil images S_c x (x: the modified 3-D Shepp-Logan on the FFT grid times exp(0.6 i (x + y)))
 * and their centred k-space (unnormalised forward FFT), c64 [nx, ny, nz, nc]. *img may be NULL. */
static inline kr_array *ket_kspace3(kr_ctx *ctx, const kr_array *maps, kr_array **img)
{
    const int64_t n[3] = {maps->dims[0], maps->dims[1], maps->dims[2]}, nc = maps->dims[3];
    const int64_t nv = n[0] * n[1] * n[2];
    int ne = 0;
    const kr_ellipsoid *e = kr_phantom_ellipsoids(KR_PHANTOM_MODIFIED_SL, &ne);
    kr_array *ph = NULL, *k = NULL;
    KT_OK(kr_phantom_3d_grid(&ph, e, ne, KR_GRID_FFT, n[0], n[1], n[2], 2, KR_F64));
    KT_OK(kr_array_create(&k, KR_C64, 4, maps->dims, KR_HOST, NULL));
    const float *s = maps->data;
    float *kv = k->data;
    for (int64_t q = 0; q < nv; q++) {
        const double x = 2.0 * (double)(q % n[0] - n[0] / 2) / (double)n[0];
        const double y = 2.0 * (double)(q / n[0] % n[1] - n[1] / 2) / (double)n[1];
        const double f = ((const double *)ph->data)[q];
        const double cr = f * cos(0.6 * (x + y)), ci = f * sin(0.6 * (x + y));
        for (int64_t c = 0; c < nc; c++) {
            const float *m = s + 2 * (q + nv * c);
            kv[2 * (q + nv * c)] = (float)(m[0] * cr - m[1] * ci);
            kv[2 * (q + nv * c) + 1] = (float)(m[0] * ci + m[1] * cr);
        }
    }
    kr_array_destroy(ph);
    if (img) KT_OK(kr_array_clone(img, k, KR_HOST, NULL));
    KT_OK(kr_fft(ctx, k, k, 7u, KR_FFT_FORWARD, KR_FFT_CENTERED));
    return k;
}

/* Agreement of map sets a and b (c64 [voxels..., nc], nv voxels): where both are non-zero,
 * |maps| (||a| - |b|| / ||b||) and the projections (||a a^H - b b^H||_F / ||b b^H||_F summed
 * over voxels: blind to each voxel's phase); the fraction of voxels kept by one only. */
typedef struct ket_cmp {
    double crop_mismatch, mag, proj;
    int64_t both;
} ket_cmp;

static inline ket_cmp ket_compare(const kr_array *a, const kr_array *b, int64_t nv, int64_t nc)
{
    ket_cmp r = {0, 0, 0, 0};
    const float *av = a->data, *bv = b->data;
    double nm = 0, dm = 0, np = 0, dp = 0;
    int64_t mism = 0;
    for (int64_t q = 0; q < nv; q++) {
        int za = 1, zb = 1;
        for (int64_t c = 0; c < nc; c++) {
            const int64_t i = 2 * (q + nv * c);
            za &= av[i] == 0 && av[i + 1] == 0;
            zb &= bv[i] == 0 && bv[i + 1] == 0;
        }
        if (za != zb) mism++;
        if (za || zb) continue;
        r.both++;
        for (int64_t c = 0; c < nc; c++) {
            const int64_t i = 2 * (q + nv * c);
            const double ma = hypot(av[i], av[i + 1]), mb = hypot(bv[i], bv[i + 1]);
            nm += (ma - mb) * (ma - mb);
            dm += mb * mb;
            for (int64_t c2 = 0; c2 < nc; c2++) {
                const int64_t j = 2 * (q + nv * c2);
                /* (x x^H)[c, c2] = x_c conj(x_c2) */
                const double par = av[i] * av[j] + av[i + 1] * av[j + 1];
                const double pai = av[i + 1] * av[j] - av[i] * av[j + 1];
                const double pbr = bv[i] * bv[j] + bv[i + 1] * bv[j + 1];
                const double pbi = bv[i + 1] * bv[j] - bv[i] * bv[j + 1];
                np += (par - pbr) * (par - pbr) + (pai - pbi) * (pai - pbi);
                dp += pbr * pbr + pbi * pbi;
            }
        }
    }
    r.crop_mismatch = (double)mism / (double)nv;
    r.mag = dm > 0 ? sqrt(nm / dm) : 0;
    r.proj = dp > 0 ? sqrt(np / dp) : 0;
    return r;
}

#endif
