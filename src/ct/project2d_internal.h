/* 2-D projector internals shared by project2d.c, project2d_cpu.c and project2d_cuda.cu.
 *
 * Kernels work in pixel-index coordinates: X = (x - x_0) / dx, Y = (y - y_0) / dy, where
 * (x_0, y_0) is the centre of pixel (0, 0), so pixel (i, j) is the square [i -/+ 0.5] x
 * [j -/+ 0.5]; ray directions stay in mm so path lengths come out in mm. */
#ifndef KRAY_CT_PROJECT2D_INTERNAL_H
#define KRAY_CT_PROJECT2D_INTERNAL_H

#include "project_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { KRI_CT2_PARALLEL = 0, KRI_CT2_FLAT = 1, KRI_CT2_EQUI = 2 };

/* Plan-wide constants. */
#define KRI_CT2P_FIELDS(T)                                                                    \
    int nx, ny, ndet, nviews, kind;                                                            \
    T vx, vy;   /* pixel size, mm */                                                           \
    T cdet;     /* (ndet - 1) / 2 */                                                           \
    T margin;   /* safety margin (detector pixels) of the gather's candidate ranges */
typedef struct kri_ct2p_f32 { KRI_CT2P_FIELDS(float) } kri_ct2p_f32;
typedef struct kri_ct2p_f64 { KRI_CT2P_FIELDS(double) } kri_ct2p_f64;

/* Per-view parameters:
 *   parallel: (px, py) detector centre [index], (ax, ay) unit ray direction [mm],
 *             (bx, by) detector pixel vector u [mm], (ux, uy) u in index units,
 *             inv = 1 / cross(a, u)
 *   flat fan: (px, py) source [index], (ax, ay) = det - src [mm], (bx, by) = u [mm]
 *   equiangular: (px, py) source [index], (ax, ay) unit central direction n [mm],
 *             (bx, by) unit tangent [mm], ux = angular pitch [rad], inv = 1 / ux
 *   cls: which Joseph classes (x-major / y-major) the view's rays may have, decided in double
 *   with a tolerance so that a ray near 45 degrees counts in both (only a pruning hint). */
#define KRI_CT2V_FIELDS(T)                                                                    \
    T px, py, ax, ay, bx, by, ux, uy, inv;                                                     \
    int cls; /* Joseph classes present (fan): bit 1 x-major rays, bit 0 y-major rays */
typedef struct kri_ct2v_f32 { KRI_CT2V_FIELDS(float) } kri_ct2v_f32;
typedef struct kri_ct2v_f64 { KRI_CT2V_FIELDS(double) } kri_ct2v_f64;

/* The 2-D part of a kr_ct_projector_plan (p->p2). Its tables (kri_ct2_cpu, kri_ct2_cuda) are
 * declared in project_internal.h; the CUDA one's state (p->dev) is a kri_ct2_dev. */
typedef struct kri_ct2_plan {
    kri_ct2p_f32 p32;
    kri_ct2p_f64 p64;
    void *views; /* host: nviews kri_ct2v_f32 or kri_ct2v_f64 (opts.dtype) */
} kri_ct2_plan;

/* The state of the CUDA backend: the per-view parameters in device memory. */
typedef struct kri_ct2_dev {
    void *views;
} kri_ct2_dev;

#ifdef __cplusplus
}
#endif
#endif
