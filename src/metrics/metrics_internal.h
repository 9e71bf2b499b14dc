/* Private contract between metrics.c (validation, the closed forms), metrics_cpu.c (OpenMP) and
 * metrics_cuda.cu (kernels): the backend table and the small host math both sides use. Not
 * installed. */
#ifndef KRAY_METRICS_INTERNAL_H
#define KRAY_METRICS_INTERNAL_H

#include "core/backend.h"
#include "kray/metrics.h"

#include <math.h>

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

static inline void kri_metrics_stats_init(kri_metrics_stats *a)
{
    a->sse = 0.0;
    a->sref2 = 0.0;
    a->maxerr = NAN; /* fmax(NaN, v) = v: the first value wins */
    a->rmin = NAN;
    a->rmax = NAN;
}

/* Fold partial b into a (in that order). */
static inline void kri_metrics_stats_combine(kri_metrics_stats *a, const kri_metrics_stats *b)
{
    a->sse += b->sse;
    a->sref2 += b->sref2;
    a->maxerr = fmax(a->maxerr, b->maxerr);
    a->rmin = fmin(a->rmin, b->rmin);
    a->rmax = fmax(a->rmax, b->rmax);
}

/* Normalised Gaussian taps w[0..RADIUS] (w[k] = w[-k]) as scipy.ndimage builds them. */
static inline void kri_ssim_weights(double w[KRI_SSIM_RADIUS + 1])
{
    /* phi(k) = exp(-k^2 / (2 sigma^2)) for k = -R..R, normalised by its sum. The sum is taken
     * in the order numpy's pairwise summation uses for 11 terms (8 running lanes, then the
     * remainder), so the taps match scipy.ndimage's to the last bit where exp agrees. */
    const int r = KRI_SSIM_RADIUS, n = 2 * KRI_SSIM_RADIUS + 1;
    const double a = -0.5 / (KRI_SSIM_SIGMA * KRI_SSIM_SIGMA);
    double phi[2 * KRI_SSIM_RADIUS + 1];
    for (int i = 0; i < n; i++) {
        double k = (double)(i - r);
        phi[i] = exp(a * (k * k));
    }
    double s = ((phi[0] + phi[1]) + (phi[2] + phi[3])) + ((phi[4] + phi[5]) + (phi[6] + phi[7]));
    for (int i = 8; i < n; i++) s += phi[i];
    for (int k = 0; k <= r; k++) w[k] = phi[r + k] / s;
}

/* The backend seam (core/backend.h): kri_metrics_cpu (metrics_cpu.c, OpenMP) for host arrays,
 * kri_metrics_cuda (metrics_cuda.cu; metrics_nocuda.c without CUDA) for device arrays on the
 * ctx's device (run on its stream, synchronised before returning). Arrays are validated,
 * contiguous, of equal shape (dtypes may differ); results do not depend on the thread count.
 *   stats:    one statistics pass over x and ref.
 *   ssim_sum: the sum of the SSIM map over the valid (cropped) region of every [nx, ny] slice. */
typedef struct kri_metrics_backend {
    kri_backend_hdr hdr;
    kr_status (*stats)(const kr_ctx *ctx, const kr_array *x, const kr_array *ref,
                       kri_metrics_stats *out);
    kr_status (*ssim_sum)(const kr_ctx *ctx, const kr_array *x, const kr_array *ref, int64_t nx,
                          int64_t ny, int64_t nslices, double c1, double c2, double *sum);
} kri_metrics_backend;
extern const kri_metrics_backend kri_metrics_cpu, kri_metrics_cuda;

#ifdef __cplusplus
}
#endif
#endif
