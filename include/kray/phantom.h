/* kray analytic phantoms: the ground truth of most tests.
 *
 * FRAME. Objects live in a normalised frame: x to the right, y DOWN, z into the (x, y) plane
 * (right-handed; the screen's axes, and DICOM's patient axes of an axial slice). A 2-D image covers the square [-1, 1] x [-1, 1], a 3-D volume the cube
 * [-1, 1]^3, whatever the number of pixels: an nx x ny image has pixel pitch 2/nx along x and
 * 2/ny along y (square pixels only when nx == ny). Arrays are [x, y] and [x, y, z], x fastest;
 * pixel index i runs along +x, j along +y (so row j = 0 is the TOP of the object, as every
 * viewer shows row 0), k along +z.
 *
 * PIXEL GRIDS (kr_phantom_grid). Two conventions for where pixel i sits along an axis of N
 * pixels (the same rule for y and z with their own N):
 *   KR_GRID_CT  (CT style, the default of the functions without a grid argument): centres
 *               symmetric about the origin, x_i = (2 i + 1 - N) / N. The pixel edges are at
 *               -1 and +1; for even N no pixel centre is at 0.
 *   KR_GRID_FFT (FFT / MRI style, as BART): the origin is the centre of pixel floor(N/2),
 *               x_i = (i - floor(N/2)) * 2 / N. For even N the grid runs from -1 to 1 - 2/N;
 *               for odd N it is identical to KR_GRID_CT.
 * Rasterisation: pixel value = mean of the phantom sampled at s^d sub-sample points per pixel
 * (s = supersample, d = 2 or 3), sub-sample m of s (m = 0 .. s-1) along an axis at
 * x_i + (2 m + 1 - s) / (s N) (s = 1: the pixel centre). A point is inside an ellipse when
 * u^2/a^2 + v^2/b^2 <= 1 (boundary included), with u, v below. Deterministic: the output does
 * not depend on the number of OpenMP threads.
 *
 * ELLIPSES. kr_ellipse {rho, a, b, x0, y0, phi_deg}: semi-axis a lies along the ellipse's own
 * u axis, which is the x axis rotated by phi_deg degrees from +x towards +y (clockwise on the
 * screen); b along its v axis:
 *   u = (x - x0) cos(phi) + (y - y0) sin(phi),   v = -(x - x0) sin(phi) + (y - y0) cos(phi).
 * Ellipsoids (kr_ellipsoid) are the same in (x, y) with semi-axis c along z and centre z0, and
 * phi a rotation about z only. Densities ADD where ellipses overlap (Shepp & Logan 1974, Kak &
 * Slaney 1988); the MR phantom below is different (not additive).
 *
 * BUILT-IN SETS (kr_phantom_kind). The literature draws these with y up: kray's tables are the
 * numbers below with y0 and phi negated, so that the head is upright with y down.
 *   2-D (10 ellipses), geometry of Shepp & Logan 1974 as tabulated by Kak & Slaney 1988
 *   (Table 3.1), i = 1..10: (x0, y0; a, b; phi) =
 *     (0, 0; .69, .92; 0)  (0, -.0184; .6624, .874; 0)  (.22, 0; .11, .31; -18)
 *     (-.22, 0; .16, .41; 18)  (0, .35; .21, .25; 0)  (0, .1; .046, .046; 0)
 *     (0, -.1; .046, .046; 0)  (-.08, -.605; .046, .023; 0)  (0, -.605; .023, .023; 0)
 *     (.06, -.605; .023, .046; 0)
 *   densities: SHEPP_LOGAN 2, -.98, -.02, -.02, .01 x 6 (so the centre of the head is 1.02);
 *              MODIFIED_SL (Toft 1996, MATLAB's "Modified Shepp-Logan") 1, -.8, -.2, -.2, .1 x 6.
 *   3-D (10 ellipsoids), Kak & Slaney 1988 p. 102 (with its errata; rows as reproduced e.g. by
 *   the sl3d and phantominator packages): (x0, y0, z0; a, b, c; phi) =
 *     (0, 0, 0; .69, .92, .9; 0)  (0, 0, 0; .6624, .874, .88; 0)
 *     (-.22, 0, -.25; .41, .16, .21; 108)  (.22, 0, -.25; .31, .11, .22; 72)
 *     (0, .35, -.25; .21, .25, .5; 0)  (0, .1, -.25; .046, .046, .046; 0)
 *     (-.08, -.65, -.25; .046, .023, .02; 0)  (.06, -.65, -.25; .046, .023, .02; 90)
 *     (.06, -.105, .625; .056, .04, .1; 90)  (0, .1, .625; .056, .056, .1; 0)
 *   densities: SHEPP_LOGAN 2, -.98, -.02, -.02, .02, .02, .01, .01, .02, -.02 (Kak & Slaney);
 *              MODIFIED_SL 1, -.8, -.2, -.2, .2, .2, .1, .1, .2, -.2 (Yu, Ye & Wang 2004).
 *   The z = -0.25 slice of the 3-D phantom resembles, but is NOT, the 2-D phantom.
 */
#ifndef KRAY_PHANTOM_H
#define KRAY_PHANTOM_H

#include "kray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kr_phantom_kind {
    KR_PHANTOM_SHEPP_LOGAN = 0, /* original contrast */
    KR_PHANTOM_MODIFIED_SL,     /* higher contrast (Toft in 2-D, Yu-Ye-Wang in 3-D) */
    KR_PHANTOM_KIND_COUNT
} kr_phantom_kind;

typedef enum kr_phantom_grid {
    KR_GRID_CT = 0, /* x_i = (2 i + 1 - N) / N, symmetric about the origin */
    KR_GRID_FFT,    /* x_i = (i - floor(N/2)) * 2 / N, origin at pixel floor(N/2) */
    KR_GRID_COUNT
} kr_phantom_grid;

/* Largest accepted supersample factor. */
#define KR_PHANTOM_MAX_SUPERSAMPLE 64

typedef struct kr_ellipse {
    double rho;      /* density added inside */
    double a, b;     /* semi-axes along the ellipse's own u and v axes, normalised units (> 0) */
    double x0, y0;   /* centre */
    double phi_deg;  /* counter-clockwise rotation of the u axis from +x, degrees */
} kr_ellipse;

typedef struct kr_ellipsoid {
    double rho;
    double a, b, c;  /* semi-axes along u, v (rotated x, y) and z */
    double x0, y0, z0;
    double phi_deg;  /* counter-clockwise rotation about +z, degrees */
} kr_ellipsoid;

/* The built-in sets. The returned pointer is static (never free it); *n receives the count.
 * NULL (and *n = 0 when n != NULL) for an unknown kind. */
const kr_ellipse *kr_phantom_ellipses(kr_phantom_kind kind, int *n);
const kr_ellipsoid *kr_phantom_ellipsoids(kr_phantom_kind kind, int *n);

/* ---- rasterisation ------------------------------------------------------------------------ */
/* Create `*out` (f32 or f64, dims [nx, ny] or [nx, ny, nz]) and fill it with the phantom on
 * `grid` with supersample^d sub-samples per pixel (1 <= supersample <= 64).
 * Statuses: INVALID_ARG (NULL, bad kind/grid/supersample, ellipse with a non-finite field or a
 * semi-axis <= 0, n < 1), DIM (a size < 1 or too many elements), DTYPE (not f32/f64). */
kr_status kr_phantom_2d_grid(kr_array **out, const kr_ellipse *e, int n, kr_phantom_grid grid,
                             int64_t nx, int64_t ny, int supersample, kr_dtype dtype);
kr_status kr_phantom_3d_grid(kr_array **out, const kr_ellipsoid *e, int n,
                             kr_phantom_grid grid, int64_t nx, int64_t ny, int64_t nz,
                             int supersample, kr_dtype dtype);
/* Shorthands on KR_GRID_CT. */
kr_status kr_phantom_2d(kr_array **out, kr_phantom_kind kind, int64_t nx, int64_t ny,
                        int supersample, kr_dtype dtype);
kr_status kr_phantom_3d(kr_array **out, kr_phantom_kind kind, int64_t nx, int64_t ny,
                        int64_t nz, int supersample, kr_dtype dtype);
kr_status kr_phantom_2d_ellipses(kr_array **out, const kr_ellipse *e, int n, int64_t nx,
                                 int64_t ny, int supersample, kr_dtype dtype);

/* Point values (no averaging) at npts points: xy holds (x, y) pairs, xyz (x, y, z) triples;
 * out[p] receives the sum of the densities of the ellipses containing point p. */
kr_status kr_phantom_eval_2d(const kr_ellipse *e, int n, const double *xy, int64_t npts,
                             double *out);
kr_status kr_phantom_eval_3d(const kr_ellipsoid *e, int n, const double *xyz, int64_t npts,
                             double *out);

/* ---- exact projections -------------------------------------------------------------------- */
/* Exact parallel-beam sinogram of the 2-D phantom, f64 array created with dims [ndet, nview]
 * (detector fastest): out[d + ndet * v] = integral of the density along the line
 *     x cos(theta_v) + y sin(theta_v) = s_d
 * in normalised length units (closed form: an ellipse of density rho adds
 * 2 rho a b sqrt(w^2 - t^2) / w^2 where |t| <= w, t = s - x0 cos(theta) - y0 sin(theta),
 * w^2 = a^2 cos^2(theta - phi) + b^2 sin^2(theta - phi)).
 * Orientation: the ray direction is (-sin(theta), cos(theta)) and the detector axis is
 * (cos(theta), sin(theta)): theta = 0 integrates along y (vertical rays), s increasing with
 * +x; theta = pi/2 integrates along x, s increasing with +y. Angles in radians, any value;
 * p(s, theta + pi) = p(-s, theta). To compare with a projector that works on an N x N image
 * of the KR_GRID_CT grid with pixel size h (mm), use detector positions s = u_mm / (N h / 2)
 * and multiply the values by N h / 2. Statuses: INVALID_ARG (NULL, non-finite theta or s),
 * DIM (nview or ndet < 1). */
kr_status kr_phantom_sinogram(kr_array **out, kr_phantom_kind kind, const double *theta,
                              int64_t nview, const double *s, int64_t ndet);
kr_status kr_phantom_sinogram_ellipses(kr_array **out, const kr_ellipse *e, int n,
                                       const double *theta, int64_t nview, const double *s,
                                       int64_t ndet);

/* Exact line integrals of the 3-D phantom along segments: ray r goes from src[3r..3r+2]
 * (x, y, z) to dst[3r..3r+2], normalised units; only the part of each ellipsoid's chord that
 * lies between the two points counts. out[r] = scale * sum_e rho_e * (chord length of e within
 * the segment). scale converts lengths (e.g. mm per normalised unit; 1 = normalised). A
 * segment of zero length gives 0. Statuses: INVALID_ARG (NULL, non-finite coordinates, scale
 * not finite and > 0), DIM (nrays < 1). */
kr_status kr_phantom_line_integrals_3d(kr_phantom_kind kind, const double *src,
                                       const double *dst, int64_t nrays, double scale,
                                       double *out);
kr_status kr_phantom_line_integrals_ellipsoids(const kr_ellipsoid *e, int n, const double *src,
                                               const double *dst, int64_t nrays, double scale,
                                               double *out);

/* ---- analytic k-space (2-D) --------------------------------------------------------------- */
/* The continuous object f(x, y) is imaged as an n x n image on the KR_GRID_FFT grid, i.e. at
 * pixel positions p = (i - floor(n/2), j - floor(n/2)) in pixel units, x = 2 p / n. k is in
 * cycles per field of view (FOV = n pixels = 2 normalised units), so the Cartesian k-space of
 * that image is integer k in [-n/2, n/2) per axis (the index of kx in a centred array is
 * kx + floor(n/2)), and k = (kx, ky) is any real pair. The analytic value is
 *     F(k) = (n/2)^2 * integral f(x, y) exp(-i pi (kx x + ky y)) dx dy
 *          = integral f exp(-2 pi i k.p / n) d^2p       (p in pixel units),
 * i.e. the continuous limit of the forward DFT with a NEGATIVE exponent and no scaling,
 *     F(k) ~= sum_{i,j} img[i, j] exp(-2 pi i (kx (i - floor(n/2)) + ky (j - floor(n/2))) / n),
 * the forward FFT of numpy, FFTW, BART and kray with the origin at index floor(n/2) on both
 * sides (numpy: fftshift(fft2(ifftshift(img)))). Each ellipse adds (closed form, J1 Bessel)
 *     (n/2)^2 rho pi a b * 2 J1(2 pi r) / (2 pi r) * exp(-i pi (kx x0 + ky y0)),
 *     r = sqrt((a k_u)^2 + (b k_v)^2) / 2 (the factor 2 J1(z)/z is 1 at z = 0),
 *     k_u = kx cos(phi) + ky sin(phi), k_v = -kx sin(phi) + ky cos(phi).
 * So F(0) = (n/2)^2 * sum rho pi a b = sum over pixels of the image in the continuous limit,
 * and the centred INVERSE DFT (1/n^2) sum_k F(k) exp(+2 pi i k.p / n) over the integer grid
 * approximates the phantom rasterised on KR_GRID_FFT (up to Gibbs ringing at the edges; with
 * BART: `bart fft -i 3` then divide by n^2). A rasterised image differs from F by the pixel
 * averaging (~ sinc(kx/n) sinc(ky/n)) and aliasing; a point-sampled image on a finer grid n' =
 * s n of the same FOV approaches F with the factor (n/n')^2. For an nx x ny image (pixels of
 * 2/nx by 2/ny) the factor (n/2)^2 becomes nx ny / 4: pass n = 2 (factor 1) and multiply by
 * nx ny / 4; k stays in cycles per FOV along each axis.
 * Input k: nsamples pairs (kx, ky). Output: `*out` created, c128, dims [nsamples].
 * Statuses: INVALID_ARG (NULL, non-finite k), DIM (nsamples < 1 or n < 1). */
kr_status kr_phantom_kspace(kr_array **out, kr_phantom_kind kind, const double *k,
                            int64_t nsamples, int64_t n);
kr_status kr_phantom_kspace_ellipses(kr_array **out, const kr_ellipse *e, int ne,
                                     const double *k, int64_t nsamples, int64_t n);

/* Built-in smooth coil sensitivities (analytic, so coil k-space stays analytic). Coil c of
 * ncoils is centred at (cos(alpha_c), sin(alpha_c)), alpha_c = 2 pi c / ncoils (coil 0 at
 * (1, 0), then counter-clockwise around the head):
 *     S_c(x, y) = exp(i alpha_c) * P(x - cos(alpha_c)) * P(y - sin(alpha_c)),
 *     P(t) = 1 + 0.6 cos(pi t / 2) + 0.5 i sin(pi t / 2),
 * so |S_c| is 2.56 at the coil centre and falls to 0.16 .. 1 on the far side of the FOV, and
 * the phase is alpha_c plus up to about +-27 degrees per axis. Since
 * P(t) = 1 + 0.55 exp(i pi t / 2) + 0.05 exp(-i pi t / 2), S_c is a sum of 9 terms
 * w_c[m, l] exp(i pi (m x + l y) / 2), m, l in {-1, 0, 1}: frequencies (m/2, l/2) cycles per
 * FOV shared by all coils, and the k-space of S_c f is sum_{m,l} w_c[m, l] F(kx - m/2, ky - l/2)
 * (9 evaluations of F per sample whatever ncoils).
 * kr_phantom_coil_maps: S_c on the n x n KR_GRID_FFT grid (point values at pixel positions),
 *   `*out` created c128 [n, n, ncoils].
 * kr_phantom_kspace_coils: analytic k-space of S_c * phantom with the scaling of
 *   kr_phantom_kspace, `*out` created c128 [nsamples, ncoils].
 * Statuses: as kr_phantom_kspace; INVALID_ARG for ncoils < 1. */
kr_status kr_phantom_coil_maps(kr_array **out, int64_t n, int ncoils);
kr_status kr_phantom_kspace_coils(kr_array **out, kr_phantom_kind kind, const double *k,
                                  int64_t nsamples, int64_t n, int ncoils);
kr_status kr_phantom_kspace_coils_ellipses(kr_array **out, const kr_ellipse *e, int ne,
                                           const double *k, int64_t nsamples, int64_t n,
                                           int ncoils);

/* ---- MR tissue phantom (2-D) -------------------------------------------------------------- */
/* Tissue values from Gach, Tanase & Boada, "2D & 3D Shepp-Logan phantom standards for MRI",
 * Proc. 19th Int. Conf. on Systems Engineering (ICSEng 2008), pp. 521-526,
 * doi:10.1109/ICSEng.2008.15, as transcribed in the phantominator package (mr_shepp_logan.py;
 * the paper itself was not available to us). T1 follows T1 = A * B0^C seconds except CSF:
 *   tissue        PD     T1 (A, C or fixed)      T2 (ms)
 *   scalp         0.80   A 0.324, C 0.137            70
 *   bone marrow   0.12   A 0.533, C 0.088            50
 *   CSF           0.98   4200 ms (fixed)           1990
 *   gray matter   0.745  A 0.857, C 0.376           100
 *   white matter  0.617  A 0.583, C 0.382            80
 *   tumour        0.95   A 0.926, C 0.217           100
 * (at 1.5 T: T1 = 342.5, 552.4, 4200, 998.1, 680.7, 1011.2 ms). Geometry: the 2-D Shepp-Logan
 * ellipses above with Gach's labels (1 marrow, 2 CSF, 3-4 CSF ventricles, 5 white matter, 6-10
 * tumours) plus Gach's scalp (0, 0; .72, .95) and gray-matter (0, -.0184; .6524, .864) layers;
 * Gach's 3-D-only ellipsoids are left out. Overlaps are NOT additive: at each point the
 * containing ellipse of smallest area wins (the innermost one for nested ellipses), as in
 * Gach's definition; outside the scalp everything is 0.
 * Output `*out` created f32 [nx, ny, 3]: plane 0 = T1 (ms), 1 = T2 (ms), 2 = PD. With
 * supersample s > 1, PD is the mean of the s^2 sub-sample PDs and T1, T2 are PD-weighted means
 * (sum PD T / sum PD; 0 where every sub-sample is background), so edge pixels keep tissue-like
 * relaxation times. b0_tesla in (0, 20]. */
kr_status kr_phantom_mr_2d_grid(kr_array **out, kr_phantom_grid grid, int64_t nx, int64_t ny,
                                int supersample, double b0_tesla);
/* Shorthand: KR_GRID_CT, 1.5 T. */
kr_status kr_phantom_mr_2d(kr_array **out, int64_t nx, int64_t ny, int supersample);

#ifdef __cplusplus
}
#endif
#endif
