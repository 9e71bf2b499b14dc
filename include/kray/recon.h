/* kray Cartesian MRI: multi-coil data, coil noise, coil combination, undersampling, ISMRMRD.
 *
 * AXES. Images are [x, y] (x = readout, fastest); coil images, coil sensitivity maps and
 * Cartesian k-space are [x | kx, y | ky, coil]. Phase encoding is axis 1 (y): undersampling
 * keeps or drops whole readout lines of axis 1.
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
 * NOISE COVARIANCE. Psi is an nc x nc Hermitian positive definite matrix (kr_array [nc, nc],
 * c64 or c128, host), element (r, c) at index r + nc * c (axis 0 = row; BART/Fortran order):
 * Psi_rc = E[n_r conj(n_c)] for one complex noise sample n of the coils. Whitening uses the
 * Cholesky factor Psi = L L^H and W = L^-1 (lower triangular): W n has covariance I. Whitened
 * data W y and whitened maps W S turn every Psi-weighted formula into the Psi = I one:
 *     S^H Psi^-1 S = (W S)^H (W S),   S^H Psi^-1 y = (W S)^H (W y).
 *
 * COIL COMBINATION.
 *   root-sum-of-squares  rss(p) = sqrt(sum_c |I_c(p)|^2)                     (f32)
 *   optimal (Roemer, "sensitivity-weighted", optimal B1)
 *       rho(p) = S(p)^H Psi^-1 I(p) / (S(p)^H Psi^-1 S(p))                   (c64)
 *     the unbiased, SNR-optimal estimate when S is the true sensitivity; 0 where S(p) = 0.
 *
 * Statuses of every function here: KR_ERR_INVALID_ARG (NULL, bad option), KR_ERR_DTYPE (e.g.
 * k-space not c64), KR_ERR_DIM (shapes that disagree, naming both), KR_ERR_LOCATION (arrays at
 * another location than the function or ctx accepts), KR_ERR_NOT_SUPPORTED (non-contiguous
 * arrays; ISMRMRD functions in a build without libismrmrd).
 */
#ifndef KRAY_RECON_H
#define KRAY_RECON_H

#include "kray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

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

/* ---- Cartesian undersampling ------------------------------------------------------------------
 */
/* Phase-encode line mask, lines[j] for j = 0 .. ny - 1 (index in the centred k-space array):
 *   bit 0 (KR_LINE_IMAGING)     (j - offset) mod accel == 0: the regular undersampled lattice;
 *   bit 1 (KR_LINE_CALIBRATION) j in the nacs central lines [floor(ny/2) - floor(nacs/2),
 *                               floor(ny/2) - floor(nacs/2) + nacs) (autocalibration, ACS).
 * A line is acquired when lines[j] != 0. accel >= 1 (any integer, need not divide ny);
 * 0 <= offset < accel (offset = index of the first lattice line, as ISMRMRD's
 * kspace_encode_step_1 counts lines); 0 <= nacs <= ny. */
enum { KR_LINE_IMAGING = 1, KR_LINE_CALIBRATION = 2 };
kr_status kr_cartesian_lines(uint8_t *lines, int64_t ny, int accel, int offset, int64_t nacs);
/* Zero, in place, every line j of axis 1 with lines[j] == 0 (c64 [nx, ny, ...], host or
 * device; lines is a host array of ny flags). */
kr_status kr_cartesian_undersample(const kr_ctx *ctx, kr_array *kspace, const uint8_t *lines);
/* Number of lines with lines[j] & which (which = KR_LINE_IMAGING, KR_LINE_CALIBRATION or
 * both); 0 for NULL. */
int64_t kr_cartesian_count(const uint8_t *lines, int64_t ny, unsigned which);

/* ---- noise --------------------------------------------------------------------------------------
 */
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
/* Apply an nc x nc coil matrix in place along coil_axis: data[p, r] <- sum_c M[r, c] data[p, c]
 * (host c64 data; M c64 or c128 [nc, nc], element (r, c) at r + nc c). With M = W this
 * pre-whitens data or maps. */
kr_status kr_coil_apply(const kr_ctx *ctx, kr_array *data, int coil_axis, const kr_array *m);

/* ---- ISMRMRD ------------------------------------------------------------------------------------
 */
/* The ISMRM raw data format (HDF5 file, group `dataset` with an XML header and acquisitions),
 * through Debian's libismrmrd (optional at build time: without it every kr_ismrmrd_* function
 * returns KR_ERR_NOT_SUPPORTED, "kray was built without ISMRMRD; install libismrmrd-dev").
 * Reading handles 2-D Cartesian data of one encoding space: kspace_encode_step_1 is the line
 * index j of axis 1 (0 .. encoded matrix y - 1), samples of an acquisition are placed along
 * axis 0 with its center_sample at index floor(nx_enc / 2). Noise-measurement acquisitions
 * (ISMRMRD_ACQ_IS_NOISE_MEASUREMENT) are collected into `noise` and give Psi (kr_noise_
 * covariance, scaled by the ratio of noise to imaging dwell times, noise_dwell / data_dwell,
 * so Psi is the covariance per imaging k-space sample). Acquisitions flagged
 * IS_PARALLEL_CALIBRATION are calibration-only lines; IS_PARALLEL_CALIBRATION_AND_IMAGING are
 * both. Navigators, phase correction and dummy scans are skipped. */
typedef struct kr_ismrmrd_read_opts {
    const char *dataset;     /* HDF5 group; NULL = "dataset" */
    int repetition;          /* repetition to read into `kspace` (>= 0; default 0) */
    int slice;               /* slice (default 0) */
    int remove_oversampling; /* non-zero (default): crop the readout to the reconSpace matrix x
                                (centred, in the image domain) */
} kr_ismrmrd_read_opts;

typedef struct kr_ismrmrd_data {
    kr_array *kspace;   /* c64 [nx, ny, nc]: the selected repetition, zero where not sampled */
    kr_array *calib;    /* c64 [nx, ny, nc]: mean over ALL repetitions of every line (the
                           interleaved calibration of time-interleaved acquisitions), or NULL
                           when the file has one repetition */
    uint8_t *lines;     /* [ny] KR_LINE_* flags of the selected repetition */
    kr_array *noise;    /* c64 [nsamples, nc] noise-scan samples, or NULL */
    kr_array *psi;      /* c128 [nc, nc] from the noise scans, or NULL */
    int64_t nx, ny, nc; /* sizes of kspace (nx after the optional readout crop) */
    int64_t enc_matrix[3], recon_matrix[3];
    double enc_fov_mm[3], recon_fov_mm[3];
    int64_t e1_min, e1_max, e1_center; /* encodingLimits kspace_encoding_step_1 (or 0..ny-1) */
    int accel;            /* parallelImaging accelerationFactor kspace_encoding_step_1, else 1 */
    int repetitions;      /* number of repetitions in the file */
    int64_t acquisitions; /* imaging acquisitions read for the selected repetition */
    double dwell_us;      /* sample_time_us of the imaging acquisitions */
    char calibration_mode[32]; /* parallelImaging calibrationMode ("" if absent) */
} kr_ismrmrd_data;

void kr_ismrmrd_read_opts_default(kr_ismrmrd_read_opts *o);
/* 1 when built with libismrmrd. */
int kr_have_ismrmrd(void);
/* Read `path`; *out is filled (free with kr_ismrmrd_data_free). Statuses: KR_ERR_IO (cannot
 * open), KR_ERR_FORMAT (no header, header without the fields above, more than one encoding,
 * non-Cartesian trajectory, 3-D encoding, line indices or sample counts outside the encoded
 * matrix, acquisitions with differing channel counts, no imaging data for the repetition). */
kr_status kr_ismrmrd_read(const char *path, const kr_ismrmrd_read_opts *opts, kr_ismrmrd_data *out);
void kr_ismrmrd_data_free(kr_ismrmrd_data *d); /* accepts NULL and a zeroed struct */

typedef struct kr_ismrmrd_write_opts {
    const char *dataset; /* NULL = "dataset" */
    double fov_mm[3];    /* encoded = recon FOV (default 256, 256, 5) */
    int accel;           /* written into parallelImaging when > 1 (default 1) */
    double dwell_us;     /* sample_time_us (default 5) */
    double h1_hz;        /* H1 resonance frequency (default 63.87 MHz, 1.5 T) */
} kr_ismrmrd_write_opts;

void kr_ismrmrd_write_opts_default(kr_ismrmrd_write_opts *o);
/* Write simulated Cartesian data: one acquisition per line j with lines[j] != 0 (lines NULL =
 * all lines), flags from KR_LINE_* (calibration-only lines IS_PARALLEL_CALIBRATION, lattice
 * lines inside the ACS block IS_PARALLEL_CALIBRATION_AND_IMAGING), first/last-in-slice
 * flags, center_sample floor(nx/2); noise (c64 [nsamples, nc] or NULL) as noise-measurement
 * acquisitions of nx samples first. kspace: host c64 [nx, ny, nc]. The file is replaced. */
kr_status kr_ismrmrd_write(const char *path, const kr_ismrmrd_write_opts *opts,
                           const kr_array *kspace, const uint8_t *lines, const kr_array *noise);
/* Read image `index` of variable `var` (e.g. "myimage", written by ismrmrd_recon_cartesian_2d)
 * into a new host array [x, y, z, channels] (trailing 1s dropped), f32 or c64 by the image's
 * data type (integer images are converted to f32). */
kr_status kr_ismrmrd_read_image(const char *path, const char *dataset, const char *var, int index,
                                kr_array **out);
/* Read NDArray `index` of variable `var` (e.g. "phantom", "csm") into a new host array (c64
 * for complex, f32/f64 for real data, ISMRMRD's dims order = kray's fastest-first). */
kr_status kr_ismrmrd_read_array(const char *path, const char *dataset, const char *var, int index,
                                kr_array **out);

#ifdef __cplusplus
}
#endif
#endif
