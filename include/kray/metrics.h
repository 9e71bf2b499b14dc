/* kray image-quality metrics, computed in float64 whatever the input type.
 *
 * Operands. `x` is the image under test, `ref` the reference. Both must have the same dims
 * (trailing 1s ignored; a mismatch is KR_ERR_DIM naming both shapes) and must be contiguous.
 * Their element types may differ (any of f32, f64, c64, c128, u8, u16, i16): real types are
 * compared by value (signed), complex types by magnitude |z| = hypot(re, im), every value taken
 * to float64 first.
 *
 * Location. Both arrays on the host, or both on the device (else KR_ERR_LOCATION; nothing is
 * copied). Host arrays are measured on the CPU with the ctx's thread count whatever its backend
 * (ctx may be NULL: default threads). Device arrays need a CUDA ctx on the arrays' device (else
 * KR_ERR_LOCATION) and are measured there; built without CUDA: KR_ERR_NO_DEVICE.
 *
 * Data range. `range` is the data range L used by PSNR and SSIM; it must be finite and >= 0
 * (else KR_ERR_INVALID_ARG). 0 means L = max(ref) - min(ref) (of the magnitudes for complex);
 * when that is 0 (constant reference) the call fails with KR_ERR_INVALID_ARG: pass a range.
 *
 * Definitions (n = number of elements, d_i = x_i - ref_i):
 *   MSE    = sum d_i^2 / n
 *   PSNR   = 10 log10(L^2 / MSE) dB; +INFINITY when MSE == 0
 *   NRMSE  = sqrt(MSE) / sqrt(sum ref_i^2 / n) (skimage's default 'euclidean' normalisation);
 *            +INFINITY when ref is all zero and x is not, 0 when both are all zero
 *   MAXERR = max |d_i|
 *   SSIM   = Wang et al. 2004 with a Gaussian window: sigma 1.5 truncated at 3.5 sigma (11
 *            taps, w_k = exp(-k^2 / 4.5) / sum, k = -5..5), applied separably; local weighted
 *            means mu, population variances and covariance (E[ab] - mu_a mu_b);
 *            SSIM_p = (2 mu_x mu_r + C1)(2 cov_xr + C2) / ((mu_x^2 + mu_r^2 + C1)(var_x + var_r + C2))
 *            with C1 = (0.01 L)^2, C2 = (0.03 L)^2, averaged over the pixels at least 5 from every
 *            edge. Equals skimage.metrics.structural_similarity(x, ref, gaussian_weights=True,
 *            sigma=1.5, use_sample_covariance=False, data_range=L) (scikit-image 0.19; agreement
 *            measured at ~1e-14). Because of the 5-pixel crop the window never reaches past the
 *            image, so scipy's 'reflect' boundary mode (or any other) does not affect the value.
 *            Images are the [dims[0], dims[1]] planes; each needs dims[0] >= 11 and dims[1] >= 11
 *            (else kr_ssim returns KR_ERR_DIM). For arrays with more dims, SSIM is the mean of the
 *            per-slice 2-D SSIM over every plane (dims 2.. flattened; for 3-D: along axis 2).
 *   NaN in the inputs propagates to MSE, PSNR, NRMSE, MAXERR (and SSIM near it).
 *
 * Determinism: the CPU result is bit-identical for any thread count (fixed chunking, fixed-order
 * combination); the GPU result is bit-identical from run to run. CPU and GPU agree to rounding
 * (relative ~1e-15), not bit for bit.
 */
#ifndef KRAY_METRICS_H
#define KRAY_METRICS_H

#include "kray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kr_metrics {
    double mse;
    double psnr;   /* dB; +INFINITY when identical */
    double ssim;   /* NaN when the planes are smaller than 11x11 */
    double nrmse;
    double maxerr;
    double range;  /* the data range used */
} kr_metrics;

kr_status kr_mse(const kr_ctx *ctx, const kr_array *x, const kr_array *ref, double *out);
kr_status kr_psnr(const kr_ctx *ctx, const kr_array *x, const kr_array *ref, double range,
                  double *out);
kr_status kr_nrmse(const kr_ctx *ctx, const kr_array *x, const kr_array *ref, double *out);
kr_status kr_maxerr(const kr_ctx *ctx, const kr_array *x, const kr_array *ref, double *out);
kr_status kr_ssim(const kr_ctx *ctx, const kr_array *x, const kr_array *ref, double range,
                  double *out);
/* All of the above at once (one statistics pass plus SSIM). `ssim` is NaN when the planes are
 * smaller than 11x11 (the other fields are still computed); `range` is the L used. On failure
 * every field is NaN. The single-value functions set *out to NaN on failure. */
kr_status kr_metrics_compute(const kr_ctx *ctx, const kr_array *x, const kr_array *ref,
                             double range, kr_metrics *out);

#ifdef __cplusplus
}
#endif
#endif
