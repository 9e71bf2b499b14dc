/* kray image-quality metrics, computed in float64 whatever the input type.
 *
 * Inputs are host or device arrays (both on the same side) of equal shape; complex inputs are
 * compared by magnitude unless stated. `range` is the data range L used by PSNR and SSIM; pass
 * 0 to use max(ref) - min(ref).
 *   MSE    = mean (x - ref)^2
 *   PSNR   = 10 log10(L^2 / MSE)   (+INFINITY when MSE == 0)
 *   NRMSE  = sqrt(MSE) / sqrt(mean ref^2)   (Euclidean normalisation, as skimage's default)
 *   MAXERR = max |x - ref|
 *   SSIM   = Wang et al. 2004: Gaussian window (sigma 1.5, truncated at 3.5 sigma -> 11 taps),
 *            K1 0.01, K2 0.03, population covariance; mean over the valid region. Agrees with
 *            skimage.metrics.structural_similarity(gaussian_weights=True, sigma=1.5,
 *            use_sample_covariance=False, data_range=L). 2-D images; for 3-D arrays the mean of
 *            the per-slice SSIM along axis 2.
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
    double ssim;
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
/* All of the above at once. */
kr_status kr_metrics_compute(const kr_ctx *ctx, const kr_array *x, const kr_array *ref,
                             double range, kr_metrics *out);

#ifdef __cplusplus
}
#endif
#endif
