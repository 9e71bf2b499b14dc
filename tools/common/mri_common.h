/* Helpers shared by `kray recon` and `kray sense` (mri_common.c): multi-coil input from array
 * files or ISMRMRD, line detection, sensitivity maps, writing outputs. */
#ifndef KRAY_TOOLS_TOOL_MRI_H
#define KRAY_TOOLS_TOOL_MRI_H

#include "cli.h"
#include "kray/cartesian.h"
#include "kray/coils.h"
#include "kray/ismrmrd.h"
#include "kray/noise.h"
#include "kray/sense.h"

/* Option entries (kc_opt) that `kray recon` and `kray sense` share, with the same defaults and
 * help: the noise covariance file, the file the maps are written to, the ESPIRiT settings and
 * the ISMRMRD group. */
#define KC_MRI_PSI_OPT(path)                                                                       \
    {"psi", 0, KC_STRING, &(path), NULL, "FILE",                                                   \
     "noise covariance [coil,coil] (default: from the ISMRMRD noise scans, else identity)", NULL,  \
     0, 0, NULL}
#define KC_MRI_MAPS_OUT_OPT(path)                                                                  \
    {"maps-out", 0, KC_STRING, &(path), NULL, "FILE", "write the sensitivity maps used", NULL, 0,  \
     0, NULL}
#define KC_MRI_ESPIRIT_OPTS(kernel, calib, crop, dataset)                                          \
    {"kernel", 0, KC_INT, &(kernel), "6", "N", "ESPIRiT kernel width", NULL, 0, 0, NULL},          \
        {"calib", 0, KC_INT, &(calib), "24", "N", "ESPIRiT largest calibration width", NULL, 0, 0, \
         NULL},                                                                                    \
        {"crop", 0, KC_DOUBLE, &(crop), "0.8", "C", "ESPIRiT eigenvalue crop", NULL, 0, 0, NULL},  \
        {"dataset", 0, KC_STRING, &(dataset), "dataset", "NAME", "ISMRMRD: HDF5 group", NULL, 0,   \
         0, NULL}

typedef struct kc_mri_input {
    kr_array *kspace; /* c64 [nx, ny, nc], host */
    kr_array *calib;  /* data for sensitivity estimation when it is not kspace (ISMRMRD
                         time-interleaved calibration), else NULL */
    uint8_t *lines;   /* [ny] KR_LINE_* flags (array input: every line holding data is
                         KR_LINE_IMAGING) */
    kr_array *psi;    /* noise covariance from the file's noise scans, or NULL */
    int accel;        /* acceleration in the file header (ISMRMRD), else 0 */
    int ismrmrd;      /* input was an ISMRMRD file */
} kc_mri_input;

/* .h5, .mrd, .ismrmrd */
int kc_mri_is_ismrmrd(const char *path);
/* Load k-space; returns 0 or an exit code after printing one sentence. */
int kc_mri_load(const char *tool, const char *path, const char *dataset, int repetition,
                int keep_oversampling, kc_mri_input *in);
void kc_mri_free(kc_mri_input *in);
/* Read a complex [nx, ny, nc] array (BART [nx, ny, 1, nc] accepted, c128 converted to c64);
 * `what` names it in messages; expect_ny/nc > 0 check the shape against the k-space. */
int kc_mri_read_c64(const char *tool, const char *path, const char *what, const int64_t *want,
                    kr_array **out);
/* Read an nc x nc noise covariance. */
int kc_mri_read_psi(const char *tool, const char *path, int64_t nc, kr_array **out);
/* Write an array (format by extension); 0 or exit code. */
int kc_mri_write(const char *tool, const char *path, const kr_array *a);
/* Sensitivity maps: read from `path` (shape checked against want), or ESPIRiT from calib (or
 * kspace) when path is NULL; written to out_path when it is not NULL. 0 or exit code. */
int kc_mri_maps(const char *tool, const kr_ctx *ctx, const kc_mri_input *in, const char *path,
                const int64_t *want, int kernel, int calib, double crop, const char *out_path,
                kr_array **maps);
/* ---- nufft and drft: the transform's options and its benchmark's random trajectory ---- */
/* "random:M" -> M samples uniform in [-n/2, n/2) along each of the first nd axes with n > 1
 * (0 along the others), [3, M] of element type dt (KR_F32 or KR_F64); a fixed xorshift64
 * sequence, so every run and machine gets the same points. */
kr_status kc_random_traj(const char *spec, int nd, const int64_t n[3], kr_dtype dt, kr_array **t);

/* Read `path` as a host f64 array of the file's dims (complex files: real parts), e.g. a field
 * map or sample times. */
kr_status kc_read_real(const char *path, kr_array **out, const kr_io_opts *io);

/* clang-format off */
#define KC_TRANSFORM_DIR_OPTS(fwd, adj)                                                        \
    {"forward", 'F', KC_FLAG, &(fwd), NULL, NULL, "image -> k-space samples", NULL, 0, 0, NULL}, \
    {"adjoint", 'a', KC_FLAG, &(adj), NULL, NULL, "k-space samples -> image (the default)",   \
     NULL, 0, 0, NULL}
/* --bench and its options; `what` names the random samples ("samples", "points"), check_help
 * the reference of --check. */
#define KC_TRANSFORM_BENCH_OPTS(bench, reps, batch, check, what, check_help)                   \
    {"bench", 0, KC_FLAG, &(bench), NULL, NULL,                                                \
     "time the transform on random data (arguments: <traj> only; 'random:M' = M random "       \
     what ")", NULL, 0, 0, NULL},                                                              \
    {"reps", 0, KC_INT, &(reps), "10", "N", "bench: timed repetitions", NULL, 1, 1000000, NULL}, \
    {"batch", 0, KC_INT64, &(batch), "1", "B", "bench: batch (coils)", NULL, 1, 1 << 20, NULL}, \
    {"check", 0, KC_INT64, &(check), "64", "N", check_help, NULL, 0, 1 << 30, NULL},          \
    {"dims", 0, KC_RENAMED, NULL, NULL, "--size", "--dims is the size of a raw input", NULL, 0, \
     0, NULL},                                                                                 \
    {"weights", 0, KC_ALIAS, NULL, NULL, "dcf", NULL, NULL, 0, 0, NULL},                       \
    {"", 'd', KC_RENAMED, NULL, NULL, "-n", NULL, NULL, 0, 0, NULL}
/* clang-format on */

/* Density weights of a trajectory (kray cgsense and kray mrreg -w): a method name (radial, pipe,
 * voronoi) or a file of real values, as f32. */
kr_status kc_mri_dcf(const char *spec, const kr_ctx *ctx, const kr_array *traj, kr_array **w);

/* Write a c64 image, or its magnitude as f32 when magnitude != 0; 0 or exit code. */
int kc_mri_write_image(const char *tool, const char *path, const kr_array *img, int magnitude);

#endif
