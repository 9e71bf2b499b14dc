/* kray least-squares non-Cartesian MRI: the normal operator F^H W F three ways (exact DrFT,
 * Toeplitz embedding with the kernel Q, NUFFT), and the Toeplitz engine that CG-SENSE builds on.
 *
 * Model (conventions of kray/drft.h and kray/nufft.h): image rho on n = (nx, ny, nz) voxels
 * (nz = 1 in 2-D) with the origin at index n/2, samples k_m in cycles per FOV,
 *   F rho_m = sum_x rho(x) exp(-2 pi i k_m . x / n),      (F^H d)(x) = sum_m d_m exp(+2 pi i k_m . x / n),
 * and optional real weights W_m >= 0 (density compensation; W = 1 when none). The weighted
 * least-squares problem min ||sqrt(W) (F rho - d)||^2 + lambda ||rho||^2 has the normal equations
 *   (F^H W F + lambda I) rho = F^H W d.
 * F^H W F is a convolution: (F^H W F rho)(x) = sum_y Q(x - y) rho(y) with the Toeplitz kernel
 *   Q(z) = sum_m W_m exp(+2 pi i k_m . z / n),   z in (-n, n) per axis (the 2x grid),
 * (the Illinois case study's Q with phi = 1). It is applied exactly by zero-padding rho to the
 * 2n grid (axes of size 1 stay 1), an FFT, a product with FFT(Q) (precomputed once per trajectory
 * and weights) and an inverse FFT, then cropping back to n.
 *
 * Q is computed either by the DrFT (kr_drft_q on the 2x grid: exact to float rounding, O(M N)) or
 * by an adjoint NUFFT of the weights on the 2n grid with the points 2 k (kray/nufft.h: relative
 * accuracy eps, fast). The NUFFT route is the default.
 *
 * Arrays: images complex [nx, ny, nz, B] (2-D: [nx, ny, 1, B]; trailing 1s may be dropped), in
 * the context's memory (host for CPU contexts, device for CUDA contexts). Trajectories are host
 * f32/f64 arrays [3, ...] (kray/traj.h), weights host real arrays with the trajectory's sample
 * count (any dims of that product). dtype KR_C64 (CPU and CUDA) or KR_C128 (CPU; CUDA where the
 * underlying transform supports it).
 *
 * Determinism: the CPU Toeplitz path is bit-identical for every thread count (FFTs per kray/fft.h,
 * elementwise loops, coil sums in coil order per voxel).
 */
#ifndef KRAY_LSQ_H
#define KRAY_LSQ_H

#include "kray/core.h"
#include "kray/linop.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How F^H W F is applied by the operators of kr_lsq_linop_create. */
typedef enum kr_lsq_normal_method {
    KR_LSQ_NORMAL_TOEPLITZ = 0, /* FFT convolution with Q on the 2x grid (default) */
    KR_LSQ_NORMAL_DRFT = 1,     /* exact: DrFT forward, weights, DrFT adjoint, O(M N) */
    KR_LSQ_NORMAL_NUFFT = 2     /* NUFFT forward, weights, NUFFT adjoint */
} kr_lsq_normal_method;

/* How the Toeplitz kernel Q is computed. */
typedef enum kr_lsq_qmethod {
    KR_LSQ_Q_NUFFT = 0, /* adjoint NUFFT of W on the 2n grid (default, accuracy eps) */
    KR_LSQ_Q_DRFT = 1   /* kr_drft_q on the 2n grid (exact direct sum) */
} kr_lsq_qmethod;

typedef struct kr_lsq_opts {
    kr_dtype dtype;         /* KR_C64 (default) or KR_C128 */
    int64_t batch;          /* images per operator application (coils, frames); 0 = 1 */
    kr_lsq_normal_method normal;   /* default KR_LSQ_NORMAL_TOEPLITZ */
    kr_lsq_qmethod qmethod; /* default KR_LSQ_Q_NUFFT */
    double eps;             /* NUFFT accuracy (forward/adjoint and Q); 0 = 1e-4 for c64, 1e-9
                               for c128 */
} kr_lsq_opts;

void kr_lsq_opts_default(kr_lsq_opts *o);

/* ---- Toeplitz engine ---------------------------------------------------------------------- */
typedef struct kr_toeplitz_plan kr_toeplitz_plan;

/* Plan the Toeplitz normal operator T = F^H W F for images n[3] (nz = 1: 2-D; every axis >= 1,
 * at least two axes >= 2) and the host trajectory traj [3, M...] with optional weights (NULL =
 * 1). Uses opts->dtype, opts->batch (images per FFT batch: the work buffers hold batch padded
 * images), opts->qmethod and opts->eps; opts->normal is ignored. Computes Q once (on the ctx's
 * backend), its FFT, and creates the FFT plans (device plans for a CUDA ctx, reused by every
 * apply). Bad input: NaN/Inf in traj or weights, negative weights, k outside [-n/2, n/2):
 * KR_ERR_INVALID_ARG / KR_ERR_GEOMETRY with a sentence. */
kr_status kr_toeplitz_plan_create(kr_toeplitz_plan **t, const kr_ctx *ctx, const int64_t n[3],
                             const kr_array *traj, const kr_array *weights,
                             const kr_lsq_opts *opts);
void kr_toeplitz_plan_destroy(kr_toeplitz_plan *t); /* accepts NULL */

/* out = T in for each of the B images of in [nx, ny, nz, B] (any B >= 1, done in chunks of the
 * plan's batch); out has the same dims; in == out is allowed. dtype and location as the plan. */
kr_status kr_toeplitz_execute(kr_toeplitz_plan *t, const kr_array *in, kr_array *out);

/* SENSE normal operator on the Toeplitz engine:
 *   out = sum_c conj(S_c) .* T (S_c .* in)         (E^H W E with E = F S, coils c = 0..C-1)
 * maps [nx, ny, nz, C] (the plan's dtype and location), in and out [nx, ny, nz] (one image;
 * in == out is allowed). Coils are processed in chunks of the plan's batch; the coil sum per voxel
 * runs in coil order (deterministic). Add lambda * in yourself (kr_vec_axpy) for Tikhonov. */
kr_status kr_toeplitz_execute_maps(kr_toeplitz_plan *t, const kr_array *maps, const kr_array *in,
                                 kr_array *out);

/* The kernel Q as computed by the plan: q [2nx, 2ny, 2nz'] (nz' = nz, doubled when nz > 1) with
 * the origin at index n (kr_drft_q's 2x layout), the plan's dtype, host or device. */
kr_status kr_toeplitz_q(const kr_toeplitz_plan *t, kr_array *q);

/* T as a self-adjoint kr_linop on [nx, ny, nz, B] (B = opts->batch); the operator owns t. */
kr_status kr_toeplitz_linop_create(kr_linop **op, kr_toeplitz_plan *t, int64_t batch);

/* ---- least-squares plan -------------------------------------------------------------------
 * One object per (image size, trajectory, weights): the transforms the chosen normal method
 * needs (NUFFT plan; DrFT plan; Toeplitz engine), built once. */
typedef struct kr_lsq_plan kr_lsq_plan;

/* opts NULL = defaults. traj and weights as for kr_toeplitz_plan_create (copied). */
kr_status kr_lsq_plan_create(kr_lsq_plan **p, const kr_ctx *ctx, const int64_t n[3], const kr_array *traj,
                        const kr_array *weights, const kr_lsq_opts *opts);
void kr_lsq_plan_destroy(kr_lsq_plan *p); /* accepts NULL */
int64_t kr_lsq_samples(const kr_lsq_plan *p); /* M */

/* rhs = F^H W d: d [M, B] (any dims with M*B elements), rhs [nx, ny, nz, B]; NUFFT adjoint for
 * the Toeplitz and NUFFT methods, DrFT adjoint for the DrFT method. */
kr_status kr_lsq_rhs(kr_lsq_plan *p, const kr_array *d, kr_array *rhs);
/* out = F^H W F in by the plan's method (in, out [nx, ny, nz, B]; in == out not allowed). */
kr_status kr_lsq_normal(kr_lsq_plan *p, const kr_array *in, kr_array *out);

/* The normal operator N = F^H W F as a self-adjoint kr_linop on [nx, ny, nz(, B)] for kr_cg:
 * kr_cg(ctx, N, rhs, x, {lambda}) solves (F^H W F + lambda I) x = F^H W d. Borrows p: keep the
 * plan alive until the operator is destroyed. */
kr_status kr_lsq_normal_linop_create(kr_linop **op, kr_lsq_plan *p);
/* A = diag(sqrt(W)) F as a kr_linop: domain [nx, ny, nz(, B)], codomain [M(, B)]; forward and
 * adjoint by the NUFFT (DrFT for the DrFT method); its normal (kr_linop_normal) is the plan's
 * method, so kr_linop_normal_op(A) equals kr_lsq_normal_linop_create. Borrows p. */
kr_status kr_lsq_linop_create(kr_linop **op, kr_lsq_plan *p);

#ifdef __cplusplus
}
#endif
#endif
