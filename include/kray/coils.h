/* kray receive-coil arrays: circular loops on rings around a cylinder (the MRXCAT layout used
 * by Mayo Sarmiento (2018)), their Biot-Savart field in closed form, and complex sensitivity maps.
 *
 * FRAME. Scanner coordinates in mm, z along the bore (B0), x and y across it, right-handed,
 * the same frame as the simulator's isochromats (sim.h). A coil is a circular loop of radius a
 * centred at c with unit normal n; the current (1 A) circulates counter-clockwise seen from
 * the tip of n, so the field at the centre points along +n. Layout coils have the inward
 * normal n = -(cos phi, sin phi, 0) at azimuth phi.
 *
 * LAYOUT (kr_coil_layout_mrxcat, after MRXCAT's coilCentres): nc coils, at most c_per_row per
 * ring. If c_per_row divides nc: nc / c_per_row full rings. Otherwise f = max(floor((nc -
 * c_per_row) / c_per_row), 0) full rings and the remainder r = nc - f c_per_row; if r >
 * c_per_row it is split into floor(r/2) (first ring) and ceil(r/2) (last ring) around the
 * full rings, else it is the first ring (e.g. nc = 16, c_per_row = 6 -> 5/6/5; nc = 10,
 * c_per_row = 8 -> 5/5; nc = 9, c_per_row = 8 -> 4/5). Coil radius a = rbody * phi_min / 2,
 * phi_min = 50 degrees when every ring has <= 6 coils, else 2 pi / (largest ring). Rings are
 * 2 a apart along z, centred on z = 0 (ring k at z = (2 k - (rings - 1)) a). Azimuths
 * (degrees) by ring size: 1: 0; 2: 150, 210; 3: 130, 180, 230; 4: 150, 210, 330, 30;
 * 5: 130, 180, 230, 330, 30; 6: 130, 180, 230, 310, 0, 50; m > 6: 360 q / m, q = 0..m-1.
 * Centres at (rbody cos phi, rbody sin phi, z_ring). Coils are numbered ring by ring, in the
 * order of the table within a ring.
 *
 * FIELD (kr_coil_field). In the loop's frame (axial distance z, radial distance rho) the
 * Biot-Savart integral has the closed form (Smythe; Simpson et al., NASA 2001)
 *   B_z   = mu0 I / (2 pi) / sqrt((a + rho)^2 + z^2) * [K(m) + (a^2 - rho^2 - z^2) /
 *           ((a - rho)^2 + z^2) E(m)],
 *   B_rho = mu0 I z / (2 pi rho) / sqrt((a + rho)^2 + z^2) * [-K(m) + (a^2 + rho^2 + z^2) /
 *           ((a - rho)^2 + z^2) E(m)],   m = 4 a rho / ((a + rho)^2 + z^2),
 * with the complete elliptic integrals K, E of parameter m computed by the arithmetic-
 * geometric mean to a relative tolerance (kr_elliptic_ke); near the axis (rho < 1e-6 a) B_rho
 * uses its series 3 mu0 I a^2 z rho / (4 (a^2 + z^2)^(5/2)). On the wire the field is
 * infinite: points closer than wire_mm to the conductor are evaluated on the wire's surface
 * (moved away from the conductor along the line joining them). mu0 = 4 pi 1e-7 T m / A.
 *
 * SENSITIVITY. The receive sensitivity of a coil is the complex field S = Bx - i By (B1-)
 * of the loop at unit current, in the scanner frame; the simulator forms a coil's signal
 * as sum S Mxy (no conjugate). |S| is the transverse field, arg S = -atan2(By, Bx).
 * Normalisation: KR_COIL_NORM_NONE gives microtesla per ampere; KR_COIL_NORM_RSS_CENTRE
 * scales every coil by one factor so that sqrt(sum_c |S_c|^2) = 1 at (0, 0, z_mm).
 *
 * MULTI-COIL DATA (kr_coil_kspace .. kr_coil_apply).
 *
 * AXES. Images are [x, y] (x = readout, fastest); coil images, coil sensitivity maps and
 * Cartesian k-space are [x | kx, y | ky, coil]. Phase encoding is axis 1 (y); undersampling
 * along it is kray/cartesian.h.
 *
 * GRIDS AND TRANSFORMS. Everything uses the centred unitary FFT of fft.h (KR_FFT_CENTERED |
 * KR_FFT_UNITARY over axes 0 and 1): k-space index j of an axis of N samples holds the
 * frequency k = j - floor(N/2) cycles per FOV, image index i the position p = i - floor(N/2)
 * pixels, and
 *     kspace_c = F (S_c image),   F X[k] = N^-1/2 sum_p x[p] exp(-2 pi i k p / N) per axis,
 * the image-domain ("fast") route of multi-coil simulation: image x coil map, then FFT. The
 * inverse, images = F^H kspace, is what `kray recon` computes. Unitary means a fully sampled
 * k-space and its image have the same sum of |.|^2; noise of variance s^2 per k-space sample
 * has variance s^2 per image pixel.
 *
 * COIL COMBINATION.
 *   root-sum-of-squares  rss(p) = sqrt(sum_c |I_c(p)|^2)                     (f32)
 *   optimal (Roemer, "sensitivity-weighted", optimal B1)
 *       rho(p) = S(p)^H Psi^-1 I(p) / (S(p)^H Psi^-1 S(p))                   (c64)
 *     the unbiased, SNR-optimal estimate when S is the true sensitivity; 0 where S(p) = 0.
 *     Psi is the noise covariance of kray/noise.h.
 *
 * Statuses of these functions: KR_ERR_INVALID_ARG (NULL, bad option), KR_ERR_DTYPE (e.g.
 * k-space not c64), KR_ERR_DIM (shapes that disagree, naming both), KR_ERR_LOCATION (arrays at
 * another location than the function or ctx accepts), KR_ERR_NOT_SUPPORTED (non-contiguous
 * arrays).
 */
#ifndef KRAY_COILS_H
#define KRAY_COILS_H

#include "kray/core.h"
#include "kray/phantom.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KR_MU0 (4e-7 * 3.14159265358979323846) /* T m / A (the classical value) */

typedef struct kr_coil {
    double centre_mm[3];
    double normal[3]; /* unit */
    double radius_mm; /* > 0 */
    int ring;         /* ring index (layout), else free */
    double angle_deg; /* azimuth of the centre (layout), else free */
} kr_coil;

/* Complete elliptic integrals of parameter m in [0, 1) (K(m) = integral_0^{pi/2}
 * (1 - m sin^2 t)^(-1/2) dt), by the arithmetic-geometric mean iterated until the relative
 * difference of the means is below tol (0 = 1e-15; at most 64 iterations). INVALID_ARG for
 * m outside [0, 1), tol < 0 or NULL outputs. */
kr_status kr_elliptic_ke(double m, double tol, double *K, double *E);

/* MRXCAT layout (see above). coils: ncoils entries; ring_counts (may be NULL): ncoils
 * entries, the first *nrings receive the ring sizes. INVALID_ARG for ncoils or
 * coils_per_ring < 1, rbody_mm not finite and > 0. */
kr_status kr_coil_layout_mrxcat(int ncoils, int coils_per_ring, double rbody_mm, kr_coil *coils,
                                int *nrings, int *ring_counts);

/* Field (tesla per ampere) of one loop at p (mm). wire_mm >= 0 (0: points on the wire give
 * an infinite field, reported as INVALID_ARG). */
kr_status kr_coil_field(const kr_coil *coil, const double p_mm[3], double wire_mm,
                        double b_T_per_A[3]);

typedef enum kr_coil_norm {
    KR_COIL_NORM_NONE = 0,   /* microtesla per ampere */
    KR_COIL_NORM_RSS_CENTRE, /* root-sum-of-squares over coils at (0, 0, z_mm) = 1 */
    KR_COIL_NORM_COUNT
} kr_coil_norm;

typedef struct kr_coil_map_opts {
    int64_t nx, ny, nz;   /* grid (nz = 1 for a 2-D slice); default 64, 64, 1 */
    double voxel_mm[3];   /* rx, ry, rz (default 1, 1, 5 as Mayo Sarmiento (2018)) */
    kr_phantom_grid grid; /* voxel centres as kr_iso_opts (default KR_GRID_FFT) */
    double z_mm;          /* centre of the grid along z (default 0) */
    double wire_mm;       /* conductor radius (default 1) */
    double tol;           /* elliptic-integral tolerance (default 1e-12) */
    kr_coil_norm norm;    /* default KR_COIL_NORM_NONE */
} kr_coil_map_opts;

void kr_coil_map_opts_default(kr_coil_map_opts *o);

/* Sensitivity maps into out: c64 or c128, contiguous, [nx, ny, nz, ncoils] (BART's coil
 * dimension 3), on the host for a CPU ctx and on the device for a CUDA ctx. Voxel (i, j, k)
 * is at ((i - c_x) rx, (j - c_y) ry, z_mm + (k - c_z) rz) with c as kr_iso_opts. Statuses:
 * INVALID_ARG (NULL, bad options or coils), DIM (out's shape), DTYPE, LOCATION. */
kr_status kr_coil_maps(const kr_ctx *ctx, const kr_coil *coils, int ncoils,
                       const kr_coil_map_opts *opts, kr_array *out);

/* Sensitivities at arbitrary points (CPU, OpenMP): xyz_mm holds npts (x, y, z) triples;
 * *out is created host c64 [npts, ncoils]. Uses opts' wire_mm, tol, norm and z_mm (for the
 * RSS_CENTRE reference point) only; opts NULL = defaults. ctx may be NULL (CPU defaults). */
kr_status kr_coil_sens_points(const kr_ctx *ctx, const kr_coil *coils, int ncoils,
                              const double *xyz_mm, int64_t npts, const kr_coil_map_opts *opts,
                              kr_array **out);

/* ---- multi-coil data ------------------------------------------------------------------------ */
/* kspace[:, :, c] = F(maps[:, :, c] * image): image f32 or c64 [nx, ny]; maps c64 [nx, ny, nc];
 * kspace c64 [nx, ny, nc], created by the caller. Host arrays with a CPU ctx (or ctx NULL), or
 * device arrays with a CUDA ctx. */
kr_status kr_coil_kspace(const kr_ctx *ctx, const kr_array *image, const kr_array *maps,
                         kr_array *kspace);
/* images = F^H kspace over axes 0 and 1 (c64 [nx, ny, nc] -> c64 [nx, ny, nc]; any trailing
 * dims are batched). in == out allowed. Locations as kr_coil_kspace. */
kr_status kr_coil_images(const kr_ctx *ctx, const kr_array *kspace, kr_array *images);
/* Root-sum-of-squares over the coil axis: images c64 [nx, ny, nc] -> out f32 [nx, ny]. Host. */
kr_status kr_coil_rss(const kr_ctx *ctx, const kr_array *images, kr_array *out);
/* Optimal (Roemer) combination with maps c64 [nx, ny, nc] -> out c64 [nx, ny]. psi may be NULL
 * (identity, or data and maps already whitened). Host. */
kr_status kr_coil_combine(const kr_ctx *ctx, const kr_array *images, const kr_array *maps,
                          const kr_array *psi, kr_array *out);
/* Apply an nc x nc coil matrix in place along coil_axis: data[p, r] <- sum_c M[r, c] data[p, c]
 * (host c64 data; M c64 or c128 [nc, nc], element (r, c) at r + nc c). With M = W, the
 * whitener of kr_noise_whitener (noise.h), this pre-whitens data or maps. */
kr_status kr_coil_apply(const kr_ctx *ctx, kr_array *data, int coil_axis, const kr_array *m);

#ifdef __cplusplus
}
#endif
#endif
