/* Goertzel (kray/goertzel.h): tables shared by the CPU and CUDA twins. */
#ifndef KRAY_GOERTZEL_INTERNAL_H
#define KRAY_GOERTZEL_INTERNAL_H

#include "core/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One recurrence: coefficient c = 2 cos(theta), w = e^{-i theta} (wr, wi) and the centring
 * factor e^{-i theta n/2} (or, oi). */
typedef struct kri_gz_coef {
    double c, wr, wi, or_, oi;
} kri_gz_coef;

/* nq distinct x values (qx), npts points: point p uses row table q[p] and column coef py[p]. */
typedef struct kri_gz_plan {
    int64_t nx, ny, batch, nq, npts;
    kri_gz_coef *qx; /* [nq] */
    kri_gz_coef *py; /* [npts] */
    int64_t *q;      /* [npts] */
} kri_gz_plan;

/* The backend seam (core/backend.h): `run` evaluates the plan on c128 (dbl = 1) or c64 arrays,
 * host arrays in kri_gz_cpu (goertzel_cpu.c), device arrays in kri_gz_cuda (goertzel_cuda.cu;
 * goertzel_nocuda.c without CUDA). */
typedef struct kri_gz_backend {
    kri_backend_hdr hdr;
    kr_status (*run)(const kr_ctx *ctx, const kri_gz_plan *p, int dbl, const void *ksp, void *out);
} kri_gz_backend;
extern const kri_gz_backend kri_gz_cpu, kri_gz_cuda;

#ifdef __cplusplus
}
#endif
#endif
