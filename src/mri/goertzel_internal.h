/* Goertzel (kray/goertzel.h): tables shared by the CPU and CUDA twins. */
#ifndef KRAY_GOERTZEL_INTERNAL_H
#define KRAY_GOERTZEL_INTERNAL_H

#include "kray/core.h"

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

/* CPU: c128 (dbl = 1) or c64 arrays on the host. */
kr_status kri_cpu_goertzel2d(const kr_ctx *ctx, const kri_gz_plan *p, int dbl, const void *ksp,
                             void *out);
/* CUDA: device arrays. */
kr_status kri_cuda_goertzel2d(const kr_ctx *ctx, const kri_gz_plan *p, int dbl, const void *ksp,
                              void *out);

#ifdef __cplusplus
}
#endif
#endif
