/* kray coil noise: complex Gaussian noise with a coil covariance, the sample covariance of
 * noise scans, and whitening matrices (apply them with kr_coil_apply, coils.h).
 *
 * NOISE COVARIANCE. Psi is an nc x nc Hermitian positive definite matrix (kr_array [nc, nc],
 * c64 or c128, host), element (r, c) at index r + nc * c (axis 0 = row; BART/Fortran order):
 * Psi_rc = E[n_r conj(n_c)] for one complex noise sample n of the coils. Whitening uses the
 * Cholesky factor Psi = L L^H and W = L^-1 (lower triangular): W n has covariance I. Whitened
 * data W y and whitened maps W S turn every Psi-weighted formula into the Psi = I one:
 *     S^H Psi^-1 S = (W S)^H (W S),   S^H Psi^-1 y = (W S)^H (W y).
 *
 * Statuses: KR_ERR_INVALID_ARG (NULL, bad option, Psi not Hermitian or not positive definite),
 * KR_ERR_DTYPE, KR_ERR_DIM (shapes that disagree, naming both), KR_ERR_LOCATION (device
 * arrays: everything here is host only), KR_ERR_NOT_SUPPORTED (non-contiguous arrays).
 */
#ifndef KRAY_NOISE_H
#define KRAY_NOISE_H

#include "kray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Add complex Gaussian coil noise in place: for every position p of the other axes,
 *     data[p, :] += sigma * L w(p),   Psi = L L^H (Cholesky; psi NULL = identity),
 * w(p) a vector of nc independent standard complex Gaussians (E|w_c|^2 = 1, real and imaginary
 * parts each of variance 1/2), so the added noise has covariance sigma^2 Psi. w is drawn with
 * Box-Muller from the counter-based generator kri_rand_u64(seed, .): for the sample q = p * nc
 * + c (p the linear index over the non-coil axes in memory order), u1 = (1 + top 53 bits of
 * rand(2 q)) 2^-53 in (0, 1], u2 = top 53 bits of rand(2 q + 1) 2^-53, and
 * w = sqrt(-ln u1) (cos 2 pi u2 + i sin 2 pi u2). Deterministic: the same values for any
 * thread count. data: host c64, coil axis `coil_axis` (0 <= coil_axis < ndim) of length nc.
 * sigma >= 0 and finite. */
kr_status kr_noise_add(const kr_ctx *ctx, kr_array *data, int coil_axis, const kr_array *psi,
                       double sigma, uint64_t seed);
/* Sample covariance of noise-only samples (host c64, coil axis coil_axis):
 *     Psi = (1/n) sum_p n_p n_p^H     (zero-mean noise; n = number of samples per coil),
 * created as c128 [nc, nc] in *psi. Needs n >= nc (else KR_ERR_DIM: Psi would be singular). */
kr_status kr_noise_covariance(const kr_ctx *ctx, const kr_array *noise, int coil_axis,
                              kr_array **psi);
/* Whitening matrix W = L^-1, Psi = L L^H (c128 [nc, nc] created in *w; lower triangular).
 * psi not Hermitian (relative asymmetry > 1e-6) or not positive definite: KR_ERR_INVALID_ARG. */
kr_status kr_noise_whitener(const kr_array *psi, kr_array **w);

#ifdef __cplusplus
}
#endif
#endif
