/* kray SENSE: parallel-imaging reconstruction of Cartesian undersampled multi-coil data
 * (Pruessmann et al., MRM 42:952-962, 1999), g-factor maps, the SENSE encoding operator for
 * CG-SENSE, and coil sensitivity estimation with ESPIRiT (Uecker et al., MRM 71:990, 2014).
 *
 * Axes, grids and the centred unitary FFT F are those of coils.h: maps and k-space are
 * [x, y, coil], images [x, y], phase encoding along y (axis 1).
 *
 * MODEL. Coil c sees S_c x; the scanner acquires the lines A = {j : lines[j] != 0} of the
 * centred k-space F(S_c x). With noise covariance Psi (noise.h), SENSE is the (Tikhonov
 * regularised) weighted least-squares solution
 *     x = argmin ||Psi^-1/2 (M F S x - y)||^2 + lambda ||x||^2,
 *     (E^H Psi^-1 E + lambda I) x = E^H Psi^-1 y,   E = M F S,
 * with M the line mask. This is exactly what kr_sense_linop_create + kr_cg (lambda in kr_solve_opts)
 * solves iteratively (CG-SENSE); kr_sense_execute solves it directly:
 *
 * LATTICE PATH (Pruessmann's unfolding). When A is the regular lattice {j : j = offset mod R}
 * and R divides ny, F^H M F couples only pixels ny/R apart in y: zero-filled coil images are
 *     a_c(y) = (1/R) sum_m phi^m S_c(y_m) x(y_m),  y_m = y + m ny/R (mod ny),  m = 0 .. R-1,
 *     phi = exp(2 pi i (offset - floor(ny/2)) / R)
 * (derived from the centred DFT; for the usual offset the phases are +-1). So the normal
 * equations split into nx * ny/R independent R x R Hermitian systems, one per aliased pixel,
 *     (C^H Psi^-1 C / R + lambda I) rho = rhs,  C[c, m] = phi^m S_c(y_m),
 *     rhs[m] = sum_c conj(S_c(y_m)) (Psi^-1 a)_c(y_m)   (= E^H Psi^-1 y at y_m),
 * solved by Cholesky in double precision. Every (x, y) pixel belongs to exactly one system.
 *
 * GENERAL PATH (any other line set: ny not divisible by R, extra ACS lines, arbitrary masks).
 * Then the point-spread function of the mask, p(d) = (1/ny) sum_{j in A} exp(2 pi i (j -
 * floor(ny/2)) d / ny), is not confined to multiples of ny/R: for R not dividing ny the
 * aliased copies sit at non-integer shifts ny/R and spread over every pixel of the column
 * (there is no exact small fold set). kray solves the exact normal equations column by column:
 * for each x one ny x ny Hermitian system
 *     N[y, y'] = p(y - y') sum_c conj(S_c(y)) (Psi^-1 S)_c(y') + lambda delta(y, y'),
 * by Cholesky (double precision); the fold set of each pixel is the whole column. Cost
 * O(nx ny^3) instead of O(nx ny R^2): fine for small matrices, seconds for 256^2 on a CPU.
 * kr_sense_plan_info says which path a plan uses.
 *
 * Pixels whose sensitivity vanishes at every coil (sum_c |S_c|^2 == 0, e.g. maps cropped by
 * ESPIRiT) are left out of their system (Pruessmann's object mask): they come out 0 with
 * g = 0. A system that is numerically singular (a Cholesky pivot <= 1e-12 times the largest
 * diagonal entry; only possible with lambda = 0) gives 0 with g = +inf for its pixels and is
 * counted in kr_sense_info.singular.
 *
 * G-FACTOR. With N = E^H Psi^-1 E (lambda excluded) and X = (N + lambda I)^-1, the noise
 * covariance of the reconstruction is X N X, and
 *     g(p) = sqrt([X N X]_pp N_pp),
 * which for lambda = 0 is Pruessmann's g = sqrt([(C^H Psi^-1 C)^-1]_pp [C^H Psi^-1 C]_pp): the
 * SNR of the accelerated image is SNR_full / (g sqrt(R_eff)), R_eff = ny / (acquired lines).
 * g >= 1 for lambda = 0 (g == 1 at R = 1); regularisation lowers it (at R = 1, g = N/(N +
 * lambda)). Computed in double, returned as f32.
 *
 * PRE-WHITENING. With psi set, the plan whitens the maps once (W S, noise.h) and every execute
 * whitens the data (W y), then solves with Psi = I. Nothing else changes.
 *
 * BACKENDS. CPU (ctx CPU or CPU_SERIAL): OpenMP over systems, each system solved by one thread
 * in a fixed order, so results are bit-identical for any thread count. CUDA (ctx CUDA):
 * kspace, image and g-factor arrays live on the device; the plan keeps the whitened maps, a
 * cuFFT plan and a coil-image buffer on the device; execute runs masking/whitening, the
 * inverse FFT and the unfolding as kernels on the ctx's stream with no host round trip. Lattice
 * path: one thread per aliased pixel, the R x R system built, factorised and solved in
 * registers / local memory in double precision (R <= 32 on the device). General path: one
 * thread block per column, the ny x ny system in device scratch (double precision, right-looking
 * Cholesky; columns in batches within about 512 MB; ny <= 8192 on the device). Device results
 * agree with the host to float rounding, amplified at most by the g-factor.
 */
#ifndef KRAY_SENSE_H
#define KRAY_SENSE_H

#include "kray/core.h"
#include "kray/linop.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kr_sense_opts {
    int accel;            /* R >= 1 (<= number of coils): keep lines j = offset (mod R) */
    int offset;           /* 0 <= offset < R */
    const uint8_t *lines; /* optional [ny] acquired-line flags (non-zero = acquired), e.g. from
                             kr_cartesian_lines; overrides accel/offset (the plan detects
                             whether it is a lattice with R dividing ny). Copied. */
    double lambda;        /* Tikhonov weight >= 0 (same units as kr_cg's lambda on the
                             operator E of kr_sense_linop_create); default 0 */
    const kr_array *psi;  /* optional noise covariance c64/c128 [nc, nc] (host); NULL = I */
} kr_sense_opts;

void kr_sense_opts_default(kr_sense_opts *o); /* accel 1, offset 0, lines NULL, lambda 0 */

enum { KR_SENSE_LATTICE = 1, KR_SENSE_GENERAL = 2 };

typedef struct kr_sense_info {
    int method;       /* KR_SENSE_LATTICE or KR_SENSE_GENERAL */
    int accel;        /* R of the lattice (general path: 0) */
    int fold;         /* pixels per system: R, or ny */
    int64_t systems;  /* systems per execute: nx ny / R, or nx */
    int64_t lines;    /* acquired lines */
    int64_t singular; /* singular systems in the last execute (device: read on request) */
} kr_sense_info;

typedef struct kr_sense_plan kr_sense_plan;

/* maps: c64 [nx, ny, nc] on the host or (CUDA ctx) the device; copied (and whitened) into the
 * plan. Checks: R <= nc, 0 <= offset < R, lambda >= 0 and finite (KR_ERR_INVALID_ARG); at least
 * ceil(ny / nc) acquired lines (KR_ERR_INVALID_ARG: the column systems would be singular);
 * psi [nc, nc] matching the maps (KR_ERR_DIM), Hermitian positive definite
 * (KR_ERR_INVALID_ARG); maps c64 (KR_ERR_DTYPE). The ctx must outlive the plan. */
kr_status kr_sense_plan_create(kr_sense_plan **plan, const kr_ctx *ctx, const kr_array *maps,
                               const kr_sense_opts *opts);
void kr_sense_plan_destroy(kr_sense_plan *plan); /* accepts NULL */
kr_status kr_sense_plan_info(const kr_sense_plan *plan, kr_sense_info *info);

/* Reconstruct from k-space c64 [nx, ny, nc] (lines outside the plan's set are ignored) into
 * image c64 [nx, ny]; gfactor f32 [nx, ny] or NULL. Arrays at the plan's location. */
kr_status kr_sense_execute(kr_sense_plan *plan, const kr_array *kspace, kr_array *image,
                           kr_array *gfactor);
/* The same from zero-filled coil images a = F^H (M y) (c64 [nx, ny, nc], not whitened: the plan
 * whitens them when it has psi). */
kr_status kr_sense_unfold(kr_sense_plan *plan, const kr_array *aliased, kr_array *image,
                          kr_array *gfactor);
/* g-factor only (f32 [nx, ny]). */
kr_status kr_sense_gfactor(kr_sense_plan *plan, kr_array *gfactor);

/* Several slices (a multi-slice scan, frames): k-space c64 [nx, ny, nc, S], maps c64
 * [nx, ny, nc, S] or [nx, ny, nc] (one set for every slice), image c64 [nx, ny, S], gfactor f32
 * [nx, ny, S] or NULL. Each slice is reconstructed exactly as kr_sense_plan_create (with opts)
 * and kr_sense_execute reconstruct it alone; a context with several devices (or processes,
 * kray/dist.h) divides the slices over them (docs/scaling.md). Arrays in host memory for a CPU
 * context, on the first device for a CUDA one. A failing slice stops the call with its
 * sentence prefixed "slice s: ". */
kr_status kr_sense_execute_slices(const kr_ctx *ctx, const kr_array *maps, int64_t nslices,
                                  const kr_sense_opts *opts, const kr_array *kspace,
                                  kr_array *image, kr_array *gfactor);

/* The SENSE encoding operator E = M F S as a kr_linop: domain c64 [nx, ny], codomain c64
 * [nx, ny, nc] (zero on lines not acquired). maps c64 [nx, ny, nc] (host or device; copied to
 * `loc`); lines [ny] flags (NULL = all lines). E^H y = sum_c conj(S_c) F^H (M y_c). For
 * Psi != I pass whitened maps and whitened data (kr_coil_apply with kr_noise_whitener). CG-SENSE:
 * kr_linop_normal_op(&N, E); kr_linop_adjoint(E, y, b); kr_cg(ctx, N, b, x, opts, info). */
kr_status kr_sense_linop_create(kr_linop **op, const kr_ctx *ctx, const kr_array *maps,
                         const uint8_t *lines, kr_loc loc);

/* ---- ESPIRiT ---------------------------------------------------------------------------------
 * Sensitivity maps from the fully sampled centre of 2-D or 3-D k-space (one map set):
 *  1. calibration region: inside the centre of extent (nx, min(calib, ny), min(calib, nz)), a
 *     centred block grown one sample at a time per axis (x, y, z in turn) up to `calib` while
 *     every sample of the block is non-zero in some coil, then slid along x (the readout) to the
 *     position of largest energy (BART's rule);
 *  2. calibration matrix: one row per kernel-sized patch (kernel^d x nc values; the kernel is 1
 *     along an axis of size 1), SVD (eigen-decomposition of the smaller Gram matrix), keep the
 *     right singular vectors with sigma_i / sigma_0 > threshold (BART ecalib's rule:
 *     threshold = sqrt(-t));
 *  3. image-space operator G(p) = (1/kernel^d) sum_i w_i(p) w_i(p)^H (w_i(p): kernel i, per
 *     coil, as a trigonometric polynomial at voxel p), evaluated exactly per voxel;
 *  4. maps = the eigenvector of G(p) of the largest eigenvalue (unit norm over coils), set to 0
 *     where that eigenvalue is <= crop;
 *  5. phase: per voxel, the map is rotated so that its inner product with the first principal
 *     component of the calibration data (over coils) is real and positive (BART's default).
 * kspace: host c64 [nx, ny, nc] (2-D) or [nx, ny, nz, nc] (3-D; nz = 1 is 2-D), zero where not
 * sampled. *maps created c64 with the k-space's dims; eigenvalues (optional, may be NULL) created
 * f32 [nx, ny(, nz)]; both on the host. Steps 1-3 run on the host; step 4 on the ctx's backend:
 * CPU (OpenMP over lines of x, each warm-started from its left neighbour, the first voxel by a
 * full eigen-decomposition; bit-identical for any thread count) or CUDA (one thread per voxel,
 * power iteration in double from the phase reference; the maps agree with the CPU's to float
 * rounding where the iteration converges). KR_ERR_INVALID_ARG when the calibration region is
 * smaller than kernel + 1 along an axis (no fully sampled centre); KR_ERR_NOT_SUPPORTED when the
 * calibration matrix is too large (both sides > 4096, or more than 2^26 entries). */
typedef struct kr_espirit_opts {
    int kernel;       /* kernel width k (default 6) */
    int calib;        /* largest calibration width per axis (default 24) */
    double threshold; /* singular-value threshold relative to the largest (default
                         sqrt(0.001), BART's -t 0.001) */
    double crop;      /* eigenvalue crop in [0, 1) (default 0.8) */
    int rotate_phase; /* non-zero (default): step 5 */
} kr_espirit_opts;

void kr_espirit_opts_default(kr_espirit_opts *o);
kr_status kr_espirit(const kr_ctx *ctx, const kr_array *kspace, const kr_espirit_opts *opts,
                     kr_array **maps, kr_array **eigenvalues);

#ifdef __cplusplus
}
#endif
#endif
