/* kray CG-SENSE: iterative parallel-imaging reconstruction of non-Cartesian multi-coil data
 * (Pruessmann, Weiger, Boernert, Boesiger, MRM 46:638-651, 2001), CPU and CUDA.
 *
 * MODEL. Image x: [Nx, Ny(, Nz)] (c64). Coil maps S: c64 [Nx, Ny(, Nz), C] (BART's [Nx, Ny, 1,
 * C] is accepted: trailing/inner 1s of a 2-D image are fine). Trajectory: as kray/nufft.h
 * ([3, M...] in cycles per FOV, BART's units). k-space y: c64 [M, C] (any leading dims that
 * multiply to M, e.g. BART's [1, samples, spokes, C]). The encoding operator is
 *     (E x)_c = F (S_c x),   F = kray's NUFFT forward (kray/nufft.h: no scaling,
 *                                  y_m = sum_n f[n] exp(-2 pi i k_m . x_n / N)),
 * built on ONE batched NUFFT plan whose batch is the coil dimension. With optional density-
 * compensation weights D = diag(w_m) (w >= 0, e.g. from kr_dcf, shared by all coils) kray
 * solves the WEIGHTED least-squares problem
 *     x = argmin || D^{1/2} (E x - y) ||^2 + lambda || x ||^2,
 *     (E^H D E + lambda I) x = E^H D y,
 * by CG (kr_cg) on the normal operator N = E^H D E = sum_c S_c^H F^H D F S_c. This is how
 * Pruessmann 2001 uses density compensation (D inside E^H D E, which speeds up convergence);
 * it changes the solution only when the data are inconsistent (noise, model error). Without
 * weights D = I (plain least squares, the problem `bart pics -l2` solves). Pruessmann's
 * image-space intensity correction is opts.precond = KR_CGSENSE_PRECOND_INTENSITY (below); it
 * changes the iterates, not the solution CG converges to.
 *
 * SCALE. F has no 1/sqrt(N) factor, so for data y = E x the solution is x itself, and lambda
 * is in the units of E^H D E: its diagonal is about M sum_c |S_c|^2 without weights and about
 * prod(N) sum_c |S_c|^2 with area weights (cells of a Cartesian grid weigh 1, kray/traj.h).
 * BART's nufft is F / sqrt(prod N): `bart pics -l2 -r L` equals kray with
 * lambda = L prod(N), times sqrt(prod N) times BART's data scaling (docs/sense.md).
 *
 * NORMAL OPERATOR (kr_cgsense_opts.normal). KR_CGSENSE_NORMAL_NUFFT: F^H D F by a NUFFT
 * forward, the weighting and a NUFFT adjoint (all coils batched). KR_CGSENSE_NORMAL_TOEPLITZ:
 * F^H D F by the Toeplitz embedding T (kray/lsq.h: the kernel Q on the 2x grid, computed once
 * at plan creation by an adjoint NUFFT of the weights, applied by FFT to all coils in one
 * batch); then N x = sum_c S_c^H T (S_c x). A caller may replace T with kr_cgsense_set_fhf: a
 * square kr_linop of the plan's dtype and location on [Nx, Ny(, Nz)] (applied coil by coil)
 * or of Nx Ny (Nz) C elements (applied once to the coil images); T must include the weights D.
 *
 * FIELD MAP (opts.fieldmap, opts.times). With a B0 field map f(x) (Hz) and sample times t_m
 * (s), the encoding becomes (E x)_c = A (S_c x) with kray/offres.h's operator
 *     (A u)_m = sum_x u(x) exp(-2 pi i (k_m . x / N + f(x) t_m)),
 * all coils through one off-resonance operator of batch C: time-segmented (Sutton, Noll,
 * Fessler 2003: one NUFFT plan of batch L C, L automatic or opts.segments) or exact
 * (opts.exact, the direct sum, O(M N C) per application, each phase computed once for up to 8
 * coils), on the ctx's backend. The normal operator is then E^H D E by A and A^H (the Toeplitz
 * choice is refused: KR_ERR_NOT_SUPPORTED). Checks as kr_offres_linop_create (field map dims,
 * times count, finite values).
 *
 * BACKENDS. A CPU ctx: host arrays (OpenMP, bit-identical for any thread count as the NUFFT).
 * A CUDA ctx: maps, weights, scratch and the NUFFT plan live on the device; k-space, image and
 * the solver vectors passed to kr_cgsense_* are device arrays, so CG runs without a host round
 * trip per iteration (kr_cg reads back two scalars per iteration).
 *
 * THREADS. A plan holds scratch buffers and a NUFFT plan: do not use one plan (or operators
 * made from it) from two threads at once.
 */
#ifndef KRAY_CGSENSE_H
#define KRAY_CGSENSE_H

#include "kray/core.h"
#include "kray/linop.h"
#include "kray/offres.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kr_cgsense_normal {
    KR_CGSENSE_NORMAL_NUFFT = 0, /* F^H D F = NUFFT adjoint . D . NUFFT forward (default) */
    KR_CGSENSE_NORMAL_TOEPLITZ   /* F^H D F = the operator given to kr_cgsense_set_fhf */
} kr_cgsense_normal;

/* Preconditioners of kr_cgsense_solve (diagonal, applied by kr_cg as P in opts.precond):
 *   INTENSITY: Pruessmann et al. 2001's intensity correction I = (sum_c |S_c|^2)^(-1/2),
 *              applied as P = I^2 (preconditioned CG with P gives the iterates of CG on
 *              I E^H D E I y = I E^H D y, x = I y, the paper's symmetric form);
 *   JACOBI:    P = 1 / diag(E^H D E + lambda I) = 1 / (w_sum sum_c |S_c|^2 + lambda), exact
 *              because every sample contributes |exp(...)|^2 = 1 to the diagonal of F^H D F
 *              (w_sum = sum_m w_m, or M without weights; a field map changes nothing).
 * Voxels where sum_c |S_c|^2 (and lambda) vanish get the value of the best-covered voxel. */
typedef enum kr_cgsense_precond {
    KR_CGSENSE_PRECOND_NONE = 0,
    KR_CGSENSE_PRECOND_INTENSITY,
    KR_CGSENSE_PRECOND_JACOBI
} kr_cgsense_precond;

typedef struct kr_cgsense_opts {
    const kr_array *dcf;      /* optional weights w (f32/f64, host or the plan's location),
                                 M values >= 0 and finite; NULL = D = I. Copied. */
    kr_cgsense_normal normal; /* default KR_CGSENSE_NORMAL_NUFFT */
    double eps;               /* NUFFT accuracy (kray/nufft.h); default 1e-4 */
    double sigma;             /* NUFFT grid oversampling; 0 = 2 */
    /* Off-resonance (FIELD MAP below): both NULL = no field map. */
    const kr_array *fieldmap; /* host f32/f64 with the image dims, Hz (kray/offres.h) */
    const kr_array *times;    /* host f32/f64, one time in seconds per sample */
    int exact;                /* non-zero: the exact direct-sum model (else time segments) */
    int segments;             /* time segments L in [1, 256]; 0 = automatic from segment_tol */
    double segment_tol;       /* automatic L: interpolation error bound; 0 = 1e-3 */
    kr_cgsense_precond precond; /* used by kr_cgsense_solve unless its opts->precond is set;
                                   default KR_CGSENSE_PRECOND_NONE */
} kr_cgsense_opts;

void kr_cgsense_opts_default(kr_cgsense_opts *o);

typedef struct kr_cgsense_plan kr_cgsense_plan;

/* Plan for images of `ndim` (2 or 3) dims `dims`, the trajectory `traj` (host, [3, M...] or
 * [2, M...]) and the coil maps `maps` (c64, host or the ctx's location; copied). Checks:
 * maps dims [dims..., C] (KR_ERR_DIM naming both shapes), maps c64 (KR_ERR_DTYPE) and finite
 * (KR_ERR_INVALID_ARG), trajectory finite (KR_ERR_INVALID_ARG) and in range (KR_ERR_GEOMETRY,
 * from kr_nufft_set_points), weights with M values (KR_ERR_DIM), >= 0 and finite
 * (KR_ERR_INVALID_ARG). The ctx must outlive the plan. */
kr_status kr_cgsense_plan_create(kr_cgsense_plan **plan, const kr_ctx *ctx, int ndim,
                                 const int64_t *dims, const kr_array *traj, const kr_array *maps,
                                 const kr_cgsense_opts *opts);
void kr_cgsense_plan_destroy(kr_cgsense_plan *plan); /* accepts NULL */

/* Sizes: coils C and samples M (either pointer may be NULL). */
kr_status kr_cgsense_plan_sizes(const kr_cgsense_plan *plan, int64_t *coils, int64_t *samples);
/* The off-resonance model of a plan made with a field map (kray/offres.h's info: segments L, 0
 * for the exact model, interpolation error, time and field ranges); all zeros without one. */
kr_status kr_cgsense_plan_offres(const kr_cgsense_plan *plan, kr_offres_info *info);
/* The diagonal preconditioner `kind` for Tikhonov weight lambda (see kr_cgsense_precond):
 * d real f32 [dims] at the plan's location (KR_CGSENSE_PRECOND_NONE fills ones). */
kr_status kr_cgsense_precond_diag(kr_cgsense_plan *plan, kr_cgsense_precond kind, double lambda,
                                  kr_array *d);

/* Replace the Toeplitz operator: attach T ~= F^H D F (see NORMAL OPERATOR above; the plan
 * keeps a reference; NULL detaches). Only used when opts.normal was KR_CGSENSE_NORMAL_TOEPLITZ;
 * solving with that option and no T attached fails with KR_ERR_NOT_SUPPORTED. */
kr_status kr_cgsense_set_fhf(kr_cgsense_plan *plan, kr_linop *fhf);

/* The weighted encoding operator D^{1/2} E: domain [dims], codomain [M, C] (D = I without
 * weights). Its default normal is E^H D E by the NUFFT. Borrows the plan (keep it alive). */
kr_status kr_cgsense_linop_create(kr_linop **op, kr_cgsense_plan *plan);
/* The normal operator E^H D E (square on [dims]; Hermitian), by the plan's `normal` choice. */
kr_status kr_cgsense_normal_linop_create(kr_linop **op, kr_cgsense_plan *plan);

/* b = E^H D y (k-space y [M, C] at the plan's location, b [dims]). */
kr_status kr_cgsense_rhs(kr_cgsense_plan *plan, const kr_array *kspace, kr_array *b);
/* Coil-combined density-compensated adjoint (the gridding reconstruction):
 *     x = (E^H D y) / (prod(N) sum_c |S_c|^2)   (0 where sum_c |S_c|^2 == 0),
 * which estimates the image with the same scale as CG-SENSE when w are cell areas in
 * (cycles per FOV)^d (kr_dcf). */
kr_status kr_cgsense_adjoint_image(kr_cgsense_plan *plan, const kr_array *kspace, kr_array *x);
/* CG-SENSE: solve (E^H D E + lambda I) x = E^H D y with kr_cg (opts: lambda, max_iter, tol,
 * warm_start (x holds the initial guess), history, show_progress, precond; NULL = kr_cg's
 * defaults). Without opts->precond the plan's opts.precond choice is made for lambda and
 * passed to kr_cg.
 * Status and info as kr_cg: KR_OK also when not converged (check info->converged). The
 * k-space values are checked once for NaN/Inf (KR_ERR_INVALID_ARG). */
kr_status kr_cgsense_solve(kr_cgsense_plan *plan, const kr_array *kspace, kr_array *x,
                           const kr_solve_opts *opts, kr_solve_info *info);

/* ---- several slices --------------------------------------------------------------------------
 * S independent reconstructions that share the trajectory (the slices of a multi-slice scan,
 * frames, repetitions): k-space c64 [M..., C, S], maps c64 [dims..., C, S] or [dims..., C] (one
 * set for every slice), x c64 [dims..., S] (the initial guesses with sopts->warm_start). Each
 * slice is solved exactly as kr_cgsense_plan_create + kr_cgsense_solve solve it alone (so on
 * the CPU the result is the same bit for bit); a context with several devices divides the
 * slices over them (docs/scaling.md). Arrays in host memory for a CPU context, on the first
 * device for a CUDA one. sopts->history and show_progress are ignored; info (S entries, may
 * be NULL) receives each slice's solver info. A slice that fails stops the call with its
 * sentence prefixed "slice s: ". */
kr_status kr_cgsense_solve_slices(const kr_ctx *ctx, int ndim, const int64_t *dims,
                                  int64_t ncoils, int64_t nslices, const kr_array *traj,
                                  const kr_array *maps, const kr_array *kspace,
                                  const kr_cgsense_opts *copts, const kr_solve_opts *sopts,
                                  kr_array *x, kr_solve_info *info);

/* ---- coil maps from the data's own k-space centre -------------------------------------------
 * Low-resolution coil images a_c = F^H (D h y_c) with the window
 *     h(k) = cos^2(pi |k| / (2 r)) for |k| < r, else 0   (r = calib_radius, cycles per FOV),
 * then S_c = a_c / sqrt(sum_c |a_c|^2), set to 0 where the root sum of squares is below
 * threshold * its maximum. D: the weights given (NULL = ones; radial data then over-weights
 * the centre, which blurs a_c a little more but cancels in the ratio to first order). CPU NUFFT
 * (eps 1e-3) whatever the ctx backend.
 * ESPIRiT variant (espirit != 0; 2-D and 3-D, weights optional): the Cartesian calibration
 * k-space |k_a| < r of kr_cgsense_calib_kspace (with weights D: their gridding, one step on the
 * image grid; without: the least-squares fit, 30 steps on the small grid), then kr_espirit with
 * its defaults and calib = 2 floor(r) (threshold sqrt(0.001), crop 0.8: maps are 0 outside the
 * object), and kernel width 6, or the largest k >= 3 below it with at least as many patches
 * (c - k + 1)^d as kernel columns k^d C in the c = 2 ceil(r) - 1 calibration samples per axis
 * (r = 12 keeps 6; a 3-D region of r = 6 takes 4), both on the ctx's backend (ctx NULL: the
 * CPU).
 * *maps is created c64 [dims..., C] on the host. */
typedef struct kr_cgsense_maps_opts {
    double calib_radius; /* r > 0, cycles per FOV (ESPIRiT: >= 3.5); default 12 */
    double threshold;    /* in [0, 1); default 0 (no mask) */
    int espirit;         /* non-zero: ESPIRiT instead (above); default 0 */
} kr_cgsense_maps_opts;

void kr_cgsense_maps_opts_default(kr_cgsense_maps_opts *o);
kr_status kr_cgsense_estimate_maps(const kr_ctx *ctx, int ndim, const int64_t *dims,
                                   const kr_array *traj, const kr_array *kspace,
                                   const kr_array *dcf, const kr_cgsense_maps_opts *opts,
                                   kr_array **maps);

/* ---- Cartesian calibration data from non-Cartesian samples -----------------------------------
 * The samples inside a grid of g_a points per image axis around k = 0 (|k_a| < g_a / 2; same
 * FOV, coarser pixels; g_a = min(grid, N_a), grid 0 = 2 ceil(r) + 8) are fitted by g-grid coil
 * images x_c in the least-squares sense,
 *     (F_g^H W F_g + lambda I) x_c = F_g^H W y_c,   lambda = 1e-3 sum_m w_m,
 * by `iters` CG iterations (1 <= iters <= 1000; kray/lsq.h's Toeplitz normal operator, on the
 * ctx's backend), W the weights given (NULL = ones). The centred FFT of x_c gives coil k-space at
 * the integer k of the g-grid, i.e. the Cartesian samples of the full image's k-space there.
 * The ones with |k_a| < r on every axis are written into *cal, c64 [dims..., C] on the host,
 * zero elsewhere: the input kr_espirit expects (a fully sampled centre of width 2 ceil(r) - 1).
 * One iteration from zero is the density-compensated gridding of the samples (up to a factor,
 * which ESPIRiT does not see; with grid = N it is the gridding reconstruction's own k-space);
 * more iterations fit the samples without needing density weights (docs/sense.md compares
 * the two). Needs r >= 2, grid 0 or >= 2 ceil(r), and at least one sample near k = 0
 * (KR_ERR_INVALID_ARG); other checks as kr_cgsense_estimate_maps. */
kr_status kr_cgsense_calib_kspace(const kr_ctx *ctx, int ndim, const int64_t *dims,
                                  const kr_array *traj, const kr_array *kspace,
                                  const kr_array *dcf, double calib_radius, int iters,
                                  int64_t grid, kr_array **cal);

#ifdef __cplusplus
}
#endif
#endif
