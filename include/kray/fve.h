/* kray FVE: Fourier velocity encoding (spiral, multi-slice, cine, multi-coil) -- a flow phantom
 * with simulated data, single-voxel reconstruction and velocity spectra (Dantas (2015)'s
 * chapter 5 system).
 *
 * DATA LAYOUT. k-space data are c64 [samples, interleaves, slices, encodes, frames, coils] (Dantas
 * (2015)'s M(kx, ky, z, kv, t, coil)); the trajectory is a 2-D spiral [3, samples,
 * interleaves] in cycles per FOV (kray/traj.h), shared by every slice, encode, frame and coil.
 * A "column" is one (slice, encode, frame, coil) member: samples x interleaves contiguous
 * values.
 *
 * VELOCITY ENCODING. Encode e = 0 .. E-1 has the first moment kv_e = (e - E/2) / vfov
 * (cycles per cm/s; E/2 integer division), vfov = velocity field of view in cm/s (twice the
 * usual "venc"). A spin moving through-plane at v cm/s contributes rho exp(+2 pi i kv_e v). The
 * spectrum of a voxel is the centred forward DFT over e divided by E:
 *   P(v_b) = (1/E) sum_e s_e exp(-2 pi i kv_e v_b),  v_b = (b - E/2) vfov / E  (b = 0 .. E-1),
 * so a spin at v = v_b gives P = rho at bin b exactly; velocities alias modulo vfov and the bin
 * width is vfov / E.
 *
 * PHANTOM (kr_fve_simulate). Static tissue: the 2-D modified Shepp-Logan ellipses (kray/
 * phantom.h, normalised frame [-1, 1]^2 = the FOV), the same in every slice. Vessels: disks of
 * radius R at (x0, y0) in the normalised frame, carrying laminar (Poiseuille) through-plane flow
 * v(r, t) = vmax(t) (1 - r^2 / R^2), vmax(t) = vpeak (a + (1 - a) (1 + cos(2 pi (t / T -
 * phase))) / 2) for frame t of T (a = diastolic fraction). The vessel REPLACES the tissue under
 * it (a disk of minus the tissue density at its centre is added; vessels must lie inside one
 * constant tissue region). For a disk the velocity histogram is uniform on [0, vmax(t)]. The
 * vessel is simulated as `rings` equal-area annuli (r_q = R sqrt(q / rings)); annulus q moves
 * at v(r) evaluated at its mid-area radius, v_q = vmax (1 - (q + 1/2) / rings), so the
 * simulated distribution is `rings` equally weighted velocities spread uniformly over
 * [0, vmax] -- the continuous uniform distribution's midpoint rule. Each annulus is the
 * difference of two disks, whose k-space is exact (J1 closed form) under the analytic coils of
 * kr_phantom_kspace_coils_ellipses; the data are therefore exact for this phantom:
 *   d(k, slice, e, t, c) = F_static,c(k) + sum_vessels sum_q exp(2 pi i kv_e v_q(t)) A_{q,c}(k)
 * (vessel slice dependence: each vessel has its centre per slice, x0 + slice * dx). Slices are
 * otherwise identical. Scaling as kr_phantom_kspace (k-space of an n x n image).
 *
 * SPECTRA (kr_fve_voxels, kr_fve_spectra). A voxel (x, y, slice), x, y in kray's centred pixel
 * coordinates (index - n/2, fractional allowed, within the pixel-centre span), is reconstructed
 * for every encode, frame and coil by the one-output DrFT adjoint
 *   m(e, t, c) = (1 / n^2) sum_m W_m d_m exp(+2 pi i (kx_m x + ky_m y) / n)
 * (W = density compensation in (cycles/FOV)^2, so m approximates the image value; kray/drft.h
 * with a 1/n^2 factor). Coils are combined coherently with a phase reference taken from the
 * data: a_c = mean over frames of m(E/2, t, c) (the kv = 0 encode, i.e. the flow-insensitive
 * image of coil c at that voxel) and
 *   u(e, t) = sum_c conj(a_c) m(e, t, c) / sqrt(sum_c |a_c|^2),
 * the same weights for every encode and frame, so the velocity phase is kept and the kv = 0
 * value is real and positive (a matched filter: |u| = the coil-RSS magnitude when the coil
 * images are proportional). The spectrum is P above applied to u along e.
 */
#ifndef KRAY_FVE_H
#define KRAY_FVE_H

#include "kray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Encoding parameters (stored in the data's JSON sidecar, see docs/mri.md "FVE"). */
typedef struct kr_fve_params {
    int64_t n;          /* image matrix n x n (115) */
    double fov_mm;      /* field of view (160) */
    double vfov_cm_s;   /* velocity field of view in cm/s (bins of vfov / encodes); > 0 */
    int64_t encodes;    /* velocity encodes E (32) */
} kr_fve_params;

/* Velocity of bin b: (b - E/2) vfov / E, b = 0 .. E-1 into v[E]. */
kr_status kr_fve_velocity_axis(const kr_fve_params *p, double *v);

/* JSON sidecar: {"n": 115, "fov_mm": 160, "vfov_cm_s": 200, "encodes": 32, ...}; write adds the
 * phantom's description when sim is not NULL. read rejects missing or invalid fields. */
struct kr_fve_sim_opts;
kr_status kr_fve_params_write(const char *path, const kr_fve_params *p,
                              const struct kr_fve_sim_opts *sim);
kr_status kr_fve_params_read(const char *path, kr_fve_params *p);

#define KR_FVE_MAX_VESSELS 8

typedef struct kr_fve_vessel {
    double x0, y0;       /* centre in the normalised frame [-1, 1]^2 (slice 0) */
    double dx_slice;     /* centre moves by this much in x per slice (oblique vessel) */
    double radius;       /* R, normalised units */
    double vpeak_cm_s;   /* peak centre-line velocity (systole) */
    double diastole;     /* a in [0, 1]: vmax at diastole / vpeak */
    double phase;        /* systole at frame phase * T */
    double rho;          /* spin density of blood */
} kr_fve_vessel;

typedef struct kr_fve_sim_opts {
    kr_fve_params enc;        /* n 115, fov 160 mm, vfov 200 cm/s, 32 encodes */
    int64_t slices;           /* 5 */
    int64_t frames;           /* 43 */
    int coils;                /* 4 (kray/phantom.h analytic coils) */
    int64_t interleaves;      /* 8; the spiral: kr_spiral_opts defaults with fov_mm and res =
                                 fov / n (so the matrix is n) */
    int rings;                /* equal-area annuli per vessel, 64 */
    int nvessels;             /* 2 */
    kr_fve_vessel vessel[KR_FVE_MAX_VESSELS];
    double tissue_scale;      /* multiplies the static tissue (1) */
} kr_fve_sim_opts;

void kr_fve_sim_opts_default(kr_fve_sim_opts *o);
/* A smaller set for tests and demos: n 48, 2 slices, 16 encodes, 6 frames, 2 coils, 4
 * interleaves, 32 rings (the vessels scaled to stay several pixels wide). */
void kr_fve_sim_opts_small(kr_fve_sim_opts *o);

/* Simulate: *traj (f64 [3, samples, interleaves]), *data (c64 [samples, interleaves, slices,
 * encodes, frames, coils]) and *weights (f64 [samples, interleaves]: analytic spiral DCF; may be
 * NULL). ctx: CPU threads (NULL = default). */
kr_status kr_fve_simulate(const kr_ctx *ctx, const kr_fve_sim_opts *o, kr_array **traj,
                          kr_array **data, kr_array **weights);

/* Truth: the simulated velocity of vessel v at normalised position (x, y) in slice s, frame t
 * (cm/s; *inside = 0 and 0 returned outside every vessel), and vmax(t) of vessel v. */
double kr_fve_true_velocity(const kr_fve_sim_opts *o, double x, double y, int64_t slice,
                            int64_t frame, int *inside);
double kr_fve_vmax(const kr_fve_vessel *v, int64_t frame, int64_t frames);

/* Single voxels: vox holds nvox triples (x, y, slice) (pixel coordinates as above, slice an
 * integer index). out: c64 [encodes, frames, coils, nvox] and data in the ctx's memory; traj
 * and weights are host arrays for either backend (KR_ERR_LOCATION otherwise). weights NULL = 1.
 * Host: double
 * accumulation, one thread per output (bit-identical for any thread count). Non-finite data
 * samples among those the voxels sum give KR_ERR_INVALID_ARG naming the first non-finite sample
 * (detected from the output, so clean data are read once). */
kr_status kr_fve_voxels(const kr_ctx *ctx, const kr_array *traj, const kr_array *weights,
                        const kr_array *data, int64_t n, int64_t nvox, const double *vox,
                        kr_array *out);
/* The same voxels by gridding + Goertzel (Dantas (2015)'s second method): each needed column's
 * samples, times W / n^2, are spread onto the NUFFT's sigma = 2 Kaiser-Bessel grid (kernel
 * chosen for the requested relative accuracy eps in [1e-12, 0.1], double precision), the grid's
 * centred DFT is evaluated at the voxel by the Goertzel recurrence (kray/goertzel.h) and divided
 * by the kernel's Fourier transform (deapodisation). Integer voxels give the kr_nufft_adjoint
 * pixel of a c128 plan of the n x n image (same eps) to rounding; fractional voxels use a plan
 * for a slightly larger image with the same pixel size, so that no kernel footprint wraps around
 * the grid. Agrees with kr_fve_voxels to about eps relative to the largest value (measured in
 * tests/test_fve_goertzel.c: 1.1e-4 at eps 1e-3, 6.7e-8 at 1e-6). Host arrays and a CPU context
 * (NULL = default) only: device arrays or a CUDA context give KR_ERR_NOT_SUPPORTED. Columns are
 * gridded in chunks of at most 64 MiB of grids; bit-identical for any thread count. */
kr_status kr_fve_voxels_gridded(const kr_ctx *ctx, const kr_array *traj, const kr_array *weights,
                                const kr_array *data, int64_t n, int64_t nvox, const double *vox,
                                double eps, kr_array *out);
/* Coil combination and spectra (host arrays): vox_img c64 [E, T, C, nvox] from kr_fve_voxels ->
 * spec c64 [E (velocity bins), T, nvox] (see the header comment). */
kr_status kr_fve_spectra(const kr_ctx *ctx, const kr_array *vox_img, kr_array *spec);

#ifdef __cplusplus
}
#endif
#endif
