/* kray analytic phantoms: the ground truth of most tests.
 *
 * Coordinates: 2-D images span [-1, 1] x [-1, 1] (normalised units); pixel (i, j) of an N x N
 * image (i fastest = x) has centre x = (2 i + 1 - N) / N, y = (2 j + 1 - N) / N, so the image is
 * symmetric about the origin. y points up the image rows (row j increases with y).
 * 3-D likewise with z along axis 2. An ellipse is (density, a, b, x0, y0, phi_deg); an ellipsoid
 * (density, a, b, c, x0, y0, z0, phi_deg) rotated by phi about z. Densities add where ellipses
 * overlap, as in Shepp & Logan 1974 and Kak & Slaney 1988.
 */
#ifndef KRAY_PHANTOM_H
#define KRAY_PHANTOM_H

#include "kray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kr_phantom_kind {
    KR_PHANTOM_SHEPP_LOGAN = 0,  /* original contrast (Shepp & Logan 1974): 2, -0.98, -0.02 ... */
    KR_PHANTOM_MODIFIED_SL,      /* Toft's modified contrast: 1, -0.8, -0.2, -0.1 ... */
} kr_phantom_kind;

typedef struct kr_ellipse {
    double rho;      /* density added inside */
    double a, b;     /* semi-axes along the ellipse's own x and y, normalised units */
    double x0, y0;   /* centre */
    double phi_deg;  /* counter-clockwise rotation */
} kr_ellipse;

typedef struct kr_ellipsoid {
    double rho;
    double a, b, c;
    double x0, y0, z0;
    double phi_deg;  /* rotation about z */
} kr_ellipsoid;

/* The built-in ellipse sets (10 ellipses in 2-D; 10 ellipsoids in 3-D, Kak & Slaney). The
 * returned pointer is static; *n receives the count. */
const kr_ellipse *kr_phantom_ellipses(kr_phantom_kind kind, int *n);
const kr_ellipsoid *kr_phantom_ellipsoids(kr_phantom_kind kind, int *n);

/* Rasterise to an N x M (2-D) or N x M x P (3-D) f32 or f64 image; each pixel is the mean of
 * supersample^d sub-samples (1 = centre only). `out` is created. */
kr_status kr_phantom_2d(kr_array **out, kr_phantom_kind kind, int64_t nx, int64_t ny,
                        int supersample, kr_dtype dtype);
kr_status kr_phantom_3d(kr_array **out, kr_phantom_kind kind, int64_t nx, int64_t ny,
                        int64_t nz, int supersample, kr_dtype dtype);
/* Same for a user ellipse list. */
kr_status kr_phantom_2d_ellipses(kr_array **out, const kr_ellipse *e, int n, int64_t nx,
                                 int64_t ny, int supersample, kr_dtype dtype);

/* Exact parallel-beam sinogram [det, view] of the 2-D phantom in normalised units: view angles
 * theta_v (radians), detector positions s_d; value = integral of the density along the line
 * x cos(theta) + y sin(theta) = s. Output f64 array created with dims [ndet, nview]. */
kr_status kr_phantom_sinogram(kr_array **out, kr_phantom_kind kind, const double *theta,
                              int64_t nview, const double *s, int64_t ndet);
kr_status kr_phantom_sinogram_ellipses(kr_array **out, const kr_ellipse *e, int n,
                                       const double *theta, int64_t nview, const double *s,
                                       int64_t ndet);

/* Exact line integrals of the 3-D phantom along rays from src[r] (x,y,z) to dst[r]; only the
 * segment between the two points counts. scale multiplies every length (e.g. mm per normalised
 * unit). out[r] receives the integral. */
kr_status kr_phantom_line_integrals_3d(kr_phantom_kind kind, const double *src,
                                       const double *dst, int64_t nrays, double scale,
                                       double *out);
kr_status kr_phantom_line_integrals_ellipsoids(const kr_ellipsoid *e, int n, const double *src,
                                               const double *dst, int64_t nrays, double scale,
                                               double *out);

/* Analytic 2-D Fourier transform of the phantom at arbitrary k (cycles per unit of the
 * normalised [-1,1] frame, times the FOV convention below):
 *   F(k) = integral f(r) exp(-2 pi i k.r) dr, for the phantom scaled to an N x N image with the
 * pixel grid above, k in cycles per FOV with FOV = N pixels: kx, ky in [-N/2, N/2) cover the
 * Cartesian grid, and F is normalised so that samples on the integer grid equal the centred
 * unitary-free DFT of the continuous object sampled at the pixel centres (sum over pixels of
 * f(x) exp(-2 pi i k.x/N)), i.e. F = (N/2)^2 * FT_continuous(kx*2/N, ky*2/N).
 * k is given as pairs (kx, ky) per sample; out is c128 with dims [nsamples].
 * If coils != NULL (array c64/c128 [ncoil_terms...] ignored: see kr_phantom_kspace_coils). */
kr_status kr_phantom_kspace(kr_array **out, kr_phantom_kind kind, const double *k,
                            int64_t nsamples, int64_t n);
kr_status kr_phantom_kspace_ellipses(kr_array **out, const kr_ellipse *e, int ne,
                                     const double *k, int64_t nsamples, int64_t n);

/* Smooth analytic coil sensitivities: coil c has sensitivity
 *   s_c(x, y) = sum_t w[c][t] * exp(2 pi i (fx[t] x + fy[t] y))   (a few Fourier terms)
 * so the k-space of s_c * phantom is analytic (shifted sums of F). Built-in set: `ncoils`
 * birdcage-like coils placed around the object, each a sum of 9 low-frequency terms.
 * kspace output c128 [nsamples, ncoils]; maps output c128 [n, n, ncoils] on the pixel grid. */
kr_status kr_phantom_kspace_coils(kr_array **out, kr_phantom_kind kind, const double *k,
                                  int64_t nsamples, int64_t n, int ncoils);
kr_status kr_phantom_coil_maps(kr_array **out, int64_t n, int ncoils);

/* MR tissue phantom: per ellipse T1, T2 (ms) and proton density, values from Gach et al. 2008
 * (IEEE TMI, "2-D & 3-D Shepp-Logan phantom standards for MRI") at 1.5 T.
 * Output f32 [nx, ny, 3] = (T1 ms, T2 ms, PD); background (outside the head) is 0. */
kr_status kr_phantom_mr_2d(kr_array **out, int64_t nx, int64_t ny, int supersample);

#ifdef __cplusplus
}
#endif
#endif
