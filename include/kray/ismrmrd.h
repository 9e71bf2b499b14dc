/* kray ISMRMRD: reading and writing the ISMRM raw data format (HDF5 file, group `dataset` with
 * an XML header and acquisitions). Writing goes through Debian's libismrmrd; reading through
 * kray's own bounded access to the HDF5 file (opened read-only; every length a file claims is
 * checked against what it holds before anything is allocated; docs/formats.md lists the
 * limits). Both are optional at build time: without libismrmrd every kr_ismrmrd_* function
 * returns KR_ERR_NOT_SUPPORTED, "kray was built without ISMRMRD; install libismrmrd-dev".
 *
 * Reading handles 2-D Cartesian data of one encoding space: kspace_encode_step_1 is the line
 * index j of axis 1 (0 .. encoded matrix y - 1), samples of an acquisition are placed along
 * axis 0 with its center_sample at index floor(nx_enc / 2). Noise-measurement acquisitions
 * (ISMRMRD_ACQ_IS_NOISE_MEASUREMENT) are collected into `noise` and give Psi (kr_noise_
 * covariance of noise.h, scaled by the ratio of noise to imaging dwell times, noise_dwell /
 * data_dwell, so Psi is the covariance per imaging k-space sample). Acquisitions flagged
 * IS_PARALLEL_CALIBRATION are calibration-only lines; IS_PARALLEL_CALIBRATION_AND_IMAGING are
 * both. Navigators, phase correction and dummy scans are skipped. Line flags are the KR_LINE_*
 * of cartesian.h; k-space axes and grid are those of coils.h.
 */
#ifndef KRAY_ISMRMRD_H
#define KRAY_ISMRMRD_H

#include "kray/cartesian.h"
#include "kray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

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
/* 1 when built with libismrmrd and the library loads (kray opens it on first use). */
int kr_have_ismrmrd(void);
/* Read `path`; *out is filled (free with kr_ismrmrd_data_destroy). Statuses: KR_ERR_IO (cannot
 * open, not a regular file), KR_ERR_FORMAT (not HDF5, no header, header without the fields
 * above, line indices or sample counts outside the encoded matrix, acquisitions with differing
 * channel counts, no imaging data for the repetition, lengths beyond what the file holds),
 * KR_ERR_NOT_SUPPORTED (more than one encoding, non-Cartesian trajectory, 3-D encoding, HDF5
 * storage kray does not read: docs/formats.md). */
kr_status kr_ismrmrd_read(const char *path, const kr_ismrmrd_read_opts *opts, kr_ismrmrd_data *out);
void kr_ismrmrd_data_destroy(kr_ismrmrd_data *d); /* accepts NULL and a zeroed struct */

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
 * into a new host array [x, y, z, channels] (trailing 1s dropped), f32, f64 or c64 by the
 * stored type (integer images are converted to f32, complex doubles to c64). */
kr_status kr_ismrmrd_read_image(const char *path, const char *dataset, const char *var, int index,
                                kr_array **out);
/* Read NDArray `index` of variable `var` (e.g. "phantom", "csm") into a new host array of the
 * item's dims (c64 for complex, f32/f64 for real data, ISMRMRD's dims order = kray's
 * fastest-first). */
kr_status kr_ismrmrd_read_array(const char *path, const char *dataset, const char *var, int index,
                                kr_array **out);

#ifdef __cplusplus
}
#endif
#endif
