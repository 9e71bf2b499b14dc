/* Private contract between metrics.c (validation, dispatch), metrics_cpu.c (OpenMP) and
 * metrics_cuda.cu (kernels). Not installed. */
#ifndef KRAY_METRICS_INTERNAL_H
#define KRAY_METRICS_INTERNAL_H

#include "internal.h"
#include "kray/metrics.h"

#ifdef __cplusplus
extern "C" {
#endif

/* SSIM constants (Wang et al. 2004, scikit-image defaults with gaussian_weights=True). */
#define KRI_SSIM_SIGMA 1.5
#define KRI_SSIM_TRUNCATE 3.5
#define KRI_SSIM_RADIUS 5 /* int(3.5 * 1.5 + 0.5) */
#define KRI_SSIM_WIN (2 * KRI_SSIM_RADIUS + 1)
#define KRI_SSIM_K1 0.01
#define KRI_SSIM_K2 0.03

/* One pass over x and ref as float64 (real types by value, complex by magnitude). */
typedef struct kri_metrics_stats {
    double sse;    /* sum (x - ref)^2 */
    double sref2;  /* sum ref^2 */
    double maxerr; /* max abs(x - ref) (NaN-ignoring, as fmax) */
    double rmin;   /* min ref (NaN-ignoring) */
    double rmax;   /* max ref (NaN-ignoring) */
} kri_metrics_stats;

/* Normalised Gaussian taps w[0..RADIUS] (w[k] = w[-k]) as scipy.ndimage builds them. */
void kri_ssim_weights(double w[KRI_SSIM_RADIUS + 1]);

/* Fold partial b into a (in that order). */
void kri_metrics_stats_combine(kri_metrics_stats *a, const kri_metrics_stats *b);
void kri_metrics_stats_init(kri_metrics_stats *a);

/* CPU twins. Arrays are validated, host-resident, contiguous, of equal shape (dtypes may
 * differ). `nthreads` >= 1. Results do not depend on nthreads. */
kr_status kri_cpu_metrics_stats(const kr_array *x, const kr_array *ref, int nthreads,
                                kri_metrics_stats *out);
/* Sum of the SSIM map over the valid (cropped) region of every [nx, ny] slice. */
kr_status kri_cpu_ssim_sum(const kr_array *x, const kr_array *ref, int64_t nx, int64_t ny,
                           int64_t nslices, double c1, double c2, int nthreads, double *sum);

/* CUDA launchers (metrics_cuda.cu); same contracts for device-resident arrays on the ctx's
 * device, run on the ctx's stream and synchronised before returning. */
kr_status kri_cuda_metrics_stats(const kr_ctx *ctx, const kr_array *x, const kr_array *ref,
                                 kri_metrics_stats *out);
kr_status kri_cuda_ssim_sum(const kr_ctx *ctx, const kr_array *x, const kr_array *ref,
                            int64_t nx, int64_t ny, int64_t nslices, double c1, double c2,
                            double *sum);

#ifdef __cplusplus
}
#endif
#endif
