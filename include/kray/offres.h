/* kray off-resonance (B0 field map) correction for non-Cartesian MRI.
 *
 * Model (conventions of kray/drft.h, kray/nufft.h and kray/lsq.h): image rho on n = (nx, ny, nz)
 * voxels (nz = 1 in 2-D), centred coordinate x = idx - n/2 (integer division), samples k_m in
 * cycles per FOV, field map f(x) = Delta B0(x) in Hz, sample times t_m in seconds (from the
 * excitation or the echo: any common origin, the model only sees t_m):
 *   (A rho)_m   = sum_x rho(x) exp(-2 pi i (k_m . x / n + f(x) t_m)),
 *   (A^H d)(x)  = sum_m d_m   exp(+2 pi i (k_m . x / n + f(x) t_m)).
 * f = 0 gives the plain F of kray/lsq.h.
 *
 * Two operators, both kr_linops with domain [nx, ny, nz] (one image) and codomain [M] (or B
 * images at once with opts.batch: [nx, ny(, nz), B] -> [M, B]):
 *  - exact: the direct sum above, O(M N); CPU: OpenMP over outputs, phases and sums in double
 *    (phase reduced modulo one cycle before sin/cos), each output summed in index order, so the
 *    result is bit-identical for any thread count; CUDA: one thread per output, same arithmetic
 *    order (results may differ from the CPU in the last bits through sincos).
 *  - time-segmented (Sutton, Noll, Fessler 2003, least-squares interpolators over the field
 *    map histogram): L segment times tau_l evenly spaced over [t_min, t_max] (tau = the midpoint
 *    when L = 1) and
 *      exp(-2 pi i f t_m) ~= sum_l b_l(t_m) exp(-2 pi i f tau_l),
 *    where b(t) minimises sum_j h_j |exp(-2 pi i f_j t) - sum_l b_l exp(-2 pi i f_j tau_l)|^2 over
 *    a histogram (h_j voxel counts at bin centres f_j, `bins` bins over [f_min, f_max]), solved
 *    in double by a Cholesky factorisation of the L x L Gram matrix with a relative ridge of
 *    1e-12 (Hermitian, so b is well defined also when L exceeds the field map's rank). Then
 *      A rho = sum_l diag(b_l(t)) F (exp(-2 pi i f tau_l) .* rho),
 *      A^H d = sum_l exp(+2 pi i f tau_l) .* F^H (conj(b_l(t)) .* d),
 *    with F one batched NUFFT plan (batch L) on the ctx's backend (CPU or CUDA).
 *    Automatic L (opts.segments = 0): the smallest L (<= 64) whose interpolation error
 *      e(L) = max over 65 times t in [t_min, t_max] and over the histogram bins f_j of
 *             |exp(-2 pi i f_j t) - sum_l b_l(t) exp(-2 pi i f_j tau_l)|
 *    is <= opts.tol (the worst-voxel phase-factor error; since each sample is a sum over voxels,
 *    |A_ts rho - A rho|_m <= e ||rho||_1 up to the NUFFT's own eps). Measured operator errors
 *    against the exact one are listed in docs/lsq.md.
 *
 * Inputs: traj host f32/f64 [3, M...] (kray/traj.h; |k_d| <= n_d/2), fieldmap host f32/f64 with
 * dims [nx, ny(, nz)] (trailing 1s ignored; Hz, finite), times host f32/f64 with M values
 * (any dims; seconds, finite). Arrays for the operator: KR_C64 or KR_C128, in the ctx's memory.
 * Bad input: field map of the wrong dims -> KR_ERR_DIM, NaN/Inf in the field map or times ->
 * KR_ERR_INVALID_ARG, times count != samples -> KR_ERR_DIM, each with one sentence.
 */
#ifndef KRAY_OFFRES_H
#define KRAY_OFFRES_H

#include "kray/core.h"
#include "kray/linop.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kr_offres_opts {
    kr_dtype dtype; /* KR_C64 (default) or KR_C128 */
    int exact;      /* non-zero: the direct-sum operator (segments, tol, bins, eps ignored) */
    int segments;   /* L in [1, 256]; 0 = automatic from tol (default) */
    double tol;     /* automatic L: bound on e(L) above; 0 = 1e-3 (c64) / 1e-6 (c128) */
    int bins;       /* histogram bins; 0 = 256 */
    double eps;     /* NUFFT accuracy; 0 = 1e-4 (c64) / 1e-9 (c128) */
    int64_t batch;  /* B images at once (e.g. the coil images of CG-SENSE): domain
                       [nx, ny, B] (nz = 1) or [nx, ny, nz, B], codomain [M, B], one NUFFT
                       plan of batch L B
                       (segmented) or each phase computed once for up to 8 images (exact);
                       0 or 1 = one image, [nx, ny, nz] -> [M] */
} kr_offres_opts;

void kr_offres_opts_default(kr_offres_opts *o);

typedef struct kr_offres_info {
    int segments;      /* L used (0 for the exact operator) */
    double interp_err; /* e(L) as defined above (0 for the exact operator) */
    double t_min, t_max;     /* seconds */
    double f_min, f_max;     /* Hz */
} kr_offres_info;

/* Build the operator A (exact or time-segmented per opts; NULL = defaults) for images n[3] on
 * the ctx's backend. The operator owns copies of everything it needs (traj, field map, times may
 * be freed afterwards). info may be NULL. */
kr_status kr_offres_linop_create(kr_linop **op, const kr_ctx *ctx, const int64_t n[3],
                          const kr_array *traj, const kr_array *fieldmap, const kr_array *times,
                          const kr_offres_opts *opts, kr_offres_info *info);

/* The least-squares interpolators alone (for tests and tools): for `nt` times t[] and segment
 * times tau[L] over the histogram (f[j], h[j]), j < nb, write b[l * nt + i] (complex double,
 * interleaved) for time i. Returns KR_ERR_INVALID_ARG on non-finite input or L < 1. */
kr_status kr_offres_interp(int L, const double *tau, int nb, const double *f, const double *h,
                           int64_t nt, const double *t, double *b);

#ifdef __cplusplus
}
#endif
#endif
