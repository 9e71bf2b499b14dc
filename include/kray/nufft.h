/* kray NUFFT: non-uniform fast Fourier transform, 2-D and 3-D, CPU (OpenMP) and CUDA.
 *
 * Transforms (image dims N = (Nx, Ny[, Nz]), image index n, centred coordinate x = n - N/2 with
 * integer division, k-space point k_m in cycles per FOV, as kray's DrFT and BART):
 *   forward (type 2, image -> samples):  y_m  = sum_n f[n] exp(-2 pi i sum_d k_md x_d / N_d)
 *   adjoint (type 1, samples -> image):  f[n] = sum_m y_m exp(+2 pi i sum_d k_md x_d / N_d)
 * No scaling and no density compensation: the adjoint is the exact adjoint of the forward, and
 * both approximate the direct sums (kray's DrFT) to the requested relative l2 accuracy `eps`.
 * BART 0.8's `bart nufft` (and `bart nufft -a`) equal kray's forward (adjoint) divided by
 * sqrt(Nx Ny [Nz]) for even sizes, up to BART's own error (measured with the bart binary in
 * tests/test_nufft_bart.c: ~1e-3 relative with its -P flag; without -P, BART does not wrap
 * points near k = +-N/2, ~1e-2 on radial data); for odd sizes BART 0.8's nufft is not a centred
 * DFT at all. `kray nufft --bart-scale` applies the factor.
 *
 * Trajectory: a KR_F32 or KR_F64 array of dims [3, M...] (rows kx, ky, kz per point, BART's
 * layout; [2, M...] is accepted for 2-D plans). M is the product of the dims after the first.
 * Every coordinate must be finite and lie in [-N_d/2, N_d/2] (the transform is periodic in k
 * with period N_d, so k = +N_d/2 is the same point as -N_d/2; kray's DrFT accepts the half-open
 * [-N_d/2, N_d/2)); a 2-D plan needs kz = 0. A KR_F64 trajectory keeps its precision in a c64
 * plan too: each point's grid position is computed in double precision (the GPU then keeps its
 * offset within a cell in float), so the plan is not limited by float32 coordinates (rounding
 * coordinates of up to 64 cycles to float32 alone costs about 2.6e-6 of relative error).
 *
 * Arrays (contiguous, the plan's dtype, in the plan's memory: host for CPU contexts, device
 * for CUDA contexts; the trajectory may be in host memory for either):
 *   image:   dims [Nx, Ny, (Nz,) B...]  -- the first ndim dims are the image, the product of
 *            the remaining dims must equal the plan's batch count B (trailing 1s are fine, so
 *            BART's [Nx, Ny, 1, coils] works for a 2-D plan);
 *   k-space: dims [S..., B...]          -- some leading dims multiply to the trajectory's M
 *            (e.g. [M], BART's [1, samples, spokes], kray's [samples, shots]), the rest to B.
 * All B batch members (coils, frames) share the trajectory; member b is computed exactly as a
 * single transform of that member (bit for bit on the CPU).
 *
 * Method: the samples are spread onto (interpolated from) a grid oversampled by sigma with a
 * Kaiser-Bessel kernel phi(t) = I0(beta sqrt(1 - (2t/w)^2)) / I0(beta), |t| <= w/2 grid cells,
 * evaluated by piecewise polynomials fitted at plan time; an FFT of the grid (kray/fft.h); and
 * division by the kernel's exact Fourier transform w sinh(z)/(z I0(beta)),
 * z = sqrt(beta^2 - (pi w x/n)^2) (deapodisation). Width w and beta come from eps and sigma
 * (kr_nufft_plan_info reports them); the grid size n_d is the smallest even 2^a 3^b 5^c >= sigma
 * N_d (and >= 2w).
 *
 * Determinism: on the CPU the output is bit-identical for every thread count (spreading runs
 * over tiles in 2^ndim colour phases, so no two threads touch one grid cell). On the GPU the
 * forward transform is deterministic; the adjoint accumulates with atomic additions (shared
 * memory per bin, then global), so its last bits may differ from run to run.
 *
 * Threads: a plan holds scratch buffers; do not execute one plan from two threads at once.
 */
#ifndef KRAY_NUFFT_H
#define KRAY_NUFFT_H

#include "kray/core.h"
#include "kray/linop.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kr_nufft_plan kr_nufft_plan;

typedef struct kr_nufft_opts {
    kr_dtype dtype;      /* KR_C64 (default) or KR_C128 (double: reference accuracy) */
    double eps;          /* requested relative l2 error: [1e-6, 0.1] for c64, [1e-14, 0.1] for
                            c128; default 1e-4 */
    double sigma;        /* grid oversampling in [1.25, 3]; 0 = 2.0 (1.25 saves memory and FFT
                            time at low accuracy, at the price of a wider kernel). c64 plans
                            refuse an eps below their rounding floor, which the deapodisation
                            raises on smaller grids: about 2e-7 (2-D) and 3e-7 (3-D) at 2,
                            2e-5 / 3e-4 at 1.25 with a width-9 kernel (the message gives it) */
    int64_t batch;       /* transforms per call sharing the trajectory (coils, frames); 0 = 1 */
    int width;           /* kernel width in grid cells, 2..16; 0 = chosen from eps (default) */
    int check_finite;    /* 1 (default): reject NaN/Inf input values with KR_ERR_INVALID_ARG;
                            0: skip the check (NaN then propagates to the output) */
    int gpu_max_subprob; /* CUDA: points per spreading subproblem; 0 = auto (256 in 2-D, 1024
                            in 3-D) */
    int gpu_max_batch;   /* CUDA: batch members transformed together; 0 = auto (all that fit
                            in about 1 GiB of grid) */
    int gpu_bin[3];      /* CUDA: spreading bin size in grid cells per dim; 0 = auto (32x32 in
                            2-D, 16x16x8 (w <= 5) or 16x16x4 in 3-D; shrunk to fit shared
                            memory) */
} kr_nufft_opts;

/* Fill `o` with the defaults above (o may not be NULL). */
void kr_nufft_opts_default(kr_nufft_opts *o);

/* Plan a transform of images with `ndim` (2 or 3) dims `dims` (each >= 2) under `ctx` (CPU,
 * CPU_SERIAL or CUDA); opts NULL = defaults. Everything the transforms need except the points
 * is allocated here (grids, FFT plans, deapodisation factors). */
kr_status kr_nufft_plan_create(kr_nufft_plan **plan, const kr_ctx *ctx, int ndim,
                               const int64_t *dims, const kr_nufft_opts *opts);

/* Set (or replace) the non-uniform points: validates them (NaN/Inf: KR_ERR_INVALID_ARG; out of
 * range or kz != 0 in 2-D: KR_ERR_GEOMETRY, naming the first bad point), sorts them into tiles /
 * bins and allocates what depends on M. The trajectory is copied; it may be freed afterwards.
 * On failure the plan has no points until the next successful call. */
kr_status kr_nufft_set_points(kr_nufft_plan *plan, const kr_array *traj);

/* image -> k-space (forward) and k-space -> image (adjoint); `out` is overwritten. */
kr_status kr_nufft_forward(kr_nufft_plan *plan, const kr_array *image, kr_array *kspace);
kr_status kr_nufft_adjoint(kr_nufft_plan *plan, const kr_array *kspace, kr_array *image);

void kr_nufft_plan_destroy(kr_nufft_plan *plan); /* accepts NULL */

typedef struct kr_nufft_info {
    int ndim;
    int64_t dims[3];     /* image dims (unused dims 1) */
    int64_t grid[3];     /* oversampled grid dims */
    int64_t batch;
    int64_t npoints;     /* M, 0 before kr_nufft_set_points */
    kr_dtype dtype;
    kr_backend backend;
    double eps;          /* requested */
    double sigma;        /* effective: min_d grid[d] / dims[d] */
    int width;           /* kernel width w (grid cells) */
    double beta;         /* Kaiser-Bessel shape */
    int degree;          /* degree of the kernel's piecewise polynomials */
} kr_nufft_info;

kr_status kr_nufft_plan_info(const kr_nufft_plan *plan, kr_nufft_info *info);

/* The plan as a kr_linop (domain: image [Nx, Ny, (Nz,) B], codomain: k-space [M, B]) for the
 * solvers; forward/adjoint call kr_nufft_forward/adjoint. The operator borrows the plan: keep
 * the plan (and its points) alive and unchanged in M until the operator is destroyed. Needs
 * kr_nufft_set_points first. */
kr_status kr_nufft_linop_create(kr_linop **op, kr_nufft_plan *plan);

#ifdef __cplusplus
}
#endif
#endif
