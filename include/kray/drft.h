/* kray direct (non-uniform) Fourier transform: the exact reference for non-Cartesian MRI.
 *
 * For an image grid of n = (nx, ny, nz) voxels (nz = 1 in 2-D) with pixel coordinates
 * x = (i - nx/2, j - ny/2, l - nz/2) (origin at index n/2, integer division, as BART and
 * KR_FFT_CENTERED) and M samples k_m in cycles per FOV (kray/traj.h):
 *   forward   d_m  = phi_m sum_x rho(x) exp(-2 pi i k_m . x / n)
 *   adjoint   s(x) = sum_m W_m phi_m d_m exp(+2 pi i k_m . x / n)
 *   Q         Q(x) = sum_m W_m phi_m^2 exp(+2 pi i k_m . x / n)    (on the image grid or 2x it)
 * where "k . x / n" is kx x / nx + ky y / ny + kz z / nz, W_m are optional real weights (density
 * compensation, W = 1 when none) and phi_m the Fourier transform of the voxel basis:
 *   KR_DRFT_BASIS_DIRAC: phi = 1 (the plain DFT of point samples, Dantas (2015)'s DrFT);
 *   KR_DRFT_BASIS_BOX:   phi = prod_d sinc(k_d / n_d), sinc(u) = sin(pi u) / (pi u): the voxel is
 *                        a box one pixel wide (the Illinois case study's rho basis function).
 * With phi and W the adjoint is the case study's F^H d, and Q is its Toeplitz kernel. No other
 * scaling: on the Cartesian grid (kr_traj_cartesian) the forward equals the unnormalised
 * centred DFT (kr_fft with KR_FFT_FORWARD | KR_FFT_CENTERED) and the unweighted adjoint equals
 * the unnormalised centred inverse DFT (N times numpy's ifft). BART's `nufft` applies the same
 * exponent signs, k units and image origin, and scales both directions by 1/sqrt(nx ny nz).
 * A user basis phi (complex) is obtained with DIRAC by multiplying the data by conj(phi) before
 * the adjoint; Q for it is the adjoint of the data d_m = phi_m (conj(phi) phi = |phi|^2).
 *
 * Arrays: images are complex (KR_C64 or KR_C128) with dims [nx, ny, nz, batch...] (trailing 1s
 * may be dropped; in 2-D [nx, ny, 1, batch...]); k-space data are complex with the trajectory's
 * sample dims [d1, d2, ...] followed by batch dims (e.g. coils). Batch dims must agree as
 * products. Q arrays are complex [nx, ny, nz] or [2nx, 2ny, 2nz] (axes of size 1 stay 1), with
 * the origin at index n (2x grid) or n/2.
 *
 * Precision and backends: the element type decides. KR_C128 computes in float64 with an exactly
 * range-reduced phase (the reference); KR_C64 computes in float32: the phase k.x/n is formed in
 * 32-bit fixed point (k quantised to 2^-32 cycles per pixel, integer voxel coordinates, wrapping
 * integer arithmetic = exact reduction modulo one cycle) and the sine/cosine of the reduced
 * angle come from a polynomial (CPU) or the hardware __sincosf (CUDA), so the error per term does
 * not grow with the image size (bounds in the report / tests). Host arrays need a CPU context
 * (KR_BACKEND_CPU_SERIAL = 1 thread, KR_BACKEND_CPU = OpenMP; identical bits for any thread count
 * since each output is summed by one thread in a fixed order), device arrays a CUDA context.
 */
#ifndef KRAY_DRFT_H
#define KRAY_DRFT_H

#include "kray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kr_drft_basis {
    KR_DRFT_BASIS_DIRAC = 0,
    KR_DRFT_BASIS_BOX = 1
} kr_drft_basis;

typedef struct kr_drft_opts {
    kr_drft_basis basis;   /* default DIRAC */
    int check_k;           /* non-zero (default): reject k outside [-n/2, n/2) per axis */
    int check_data;        /* non-zero (default): reject NaN/Inf samples and image values */
    int fast_sincos;       /* CUDA float path: non-zero (default) hardware __sincosf after exact
                              range reduction; 0 = sincospif (slower, ~1 ulp) */
    int voxels_per_thread; /* CUDA tuning: 0 = auto, else 1, 2, 4 or 8 */
} kr_drft_opts;

void kr_drft_opts_default(kr_drft_opts *o);

typedef struct kr_drft_plan kr_drft_plan;

/* Plan for an image of dims n[3] (nz = 1 for 2-D) and a trajectory [3, d1, ...] (host or device;
 * copied into the plan). weights: NULL or a real array with the trajectory's sample dims, every
 * value finite and >= 0, not all zero. The plan keeps what each backend needs (device copies are
 * made on first use on a CUDA context). */
kr_status kr_drft_plan_create(kr_drft_plan **plan, const kr_ctx *ctx, const int64_t n[3],
                              const kr_array *traj, const kr_array *weights,
                              const kr_drft_opts *opts);
void kr_drft_plan_destroy(kr_drft_plan *plan); /* accepts NULL */
/* Replace the weights (NULL = none). */
kr_status kr_drft_set_weights(kr_drft_plan *plan, const kr_array *weights);
/* Sample count M and the trajectory's sample dims (returns their number; dims may be NULL). */
int64_t kr_drft_samples(const kr_drft_plan *plan);
int kr_drft_sample_dims(const kr_drft_plan *plan, int64_t *dims);

kr_status kr_drft_forward(kr_drft_plan *plan, const kr_array *img, kr_array *ksp);
kr_status kr_drft_adjoint(kr_drft_plan *plan, const kr_array *ksp, kr_array *img);
kr_status kr_drft_q(kr_drft_plan *plan, kr_array *q);

/* The DrFT as a kr_linop (kray/linop.h) on arrays of `dtype` (c64/c128) in the context's memory
 * (device for a CUDA context): domain [nx, ny, nz] (+ [batch] when batch > 1), codomain the
 * trajectory's sample dims (+ [batch]). With weights the operator is A = diag(sqrt(W) phi) F0 and
 * A^H = F0^H diag(sqrt(W) phi) (F0 the unweighted DIRAC transform), so that A and A^H stay an
 * adjoint pair; A^H A = F0^H diag(W phi^2) F0 has the Toeplitz kernel kr_drft_q. */
struct kr_linop;
kr_status kr_drft_linop_create(struct kr_linop **op, const kr_ctx *ctx, const int64_t n[3],
                               const kr_array *traj, const kr_array *weights,
                               const kr_drft_opts *opts, kr_dtype dtype, int64_t batch);

#ifdef __cplusplus
}
#endif
#endif
