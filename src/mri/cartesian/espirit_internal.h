/* Private interface of ESPIRiT (espirit.c, espirit_cpu.c, espirit_cuda.cu): the per-voxel stage
 * behind the backend seam. espirit.c does the calibration (region, calibration matrix, its SVD,
 * the kernel projector) on the host and hands the backends the image-space operator as
 * coefficients of a trigonometric polynomial. Not installed. */
#ifndef KRAY_ESPIRIT_INTERNAL_H
#define KRAY_ESPIRIT_INTERNAL_H

#include "core/backend.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The image-space operator of ESPIRiT at voxel p = (x, y, z) of an nx x ny x nz grid (nz = 1
 * in 2-D):
 *     G(p)[c, c2] = sum_D g[tri(c, c2)][D] e(D, p),   c >= c2,   G[c2, c] = conj(G[c, c2]),
 *     e(D, p) = exp(2 pi i sum_a D_a (p_a - n_a / 2) / n_a)  (integer phase reduced mod n_a),
 * D_a in [-(k_a - 1), k_a - 1] (K_a = 2 k_a - 1 values; K_2 = 1 in 2-D), tri(c, c2) =
 * c (c + 1) / 2 + c2. g is stored as complex double pairs:
 *     g[((tri * K[2] + dz) * K[1] + dy) * K[0] + dx].
 * The map at p is the eigenvector of G(p) of the largest eigenvalue lambda (unit norm), 0 where
 * lambda <= crop; with rotate != 0 it is multiplied by conj(z) / |z|, z = ref^H v (ref: nc
 * complex pairs, the phase reference). */
typedef struct kri_espirit_desc {
    const kr_ctx *ctx;
    int64_t n[3];      /* nx, ny, nz */
    int64_t nc;        /* coils */
    int K[3];          /* 2 k - 1 per axis (1 for an axis of size 1) */
    const double *g;   /* host: the coefficients above */
    const double *ref; /* host: nc complex pairs */
    double crop;
    int rotate;
} kri_espirit_desc;

/* The backend seam (core/backend.h): kri_espirit_cpu (espirit_cpu.c: OpenMP over lines of x,
 * each line warm-started from its previous voxel, the first voxel of a line by a full
 * eigen-decomposition), kri_espirit_cuda (espirit_cuda.cu: one thread per voxel, power
 * iteration from the phase reference; espirit_nocuda.c without CUDA). Both write host arrays:
 * maps c64 [nx, ny, nz, nc] and, when ev is not NULL, eigenvalues f32 [nx, ny, nz]. */
typedef struct kri_espirit_backend {
    kri_backend_hdr hdr;
    kr_status (*maps)(const kri_espirit_desc *d, float *maps, float *ev);
} kri_espirit_backend;
extern const kri_espirit_backend kri_espirit_cpu, kri_espirit_cuda;

#ifdef __cplusplus
}
#endif
#endif
