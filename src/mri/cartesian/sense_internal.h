/* Private interface of the SENSE / Cartesian / noise / ESPIRiT room (src/mri/). Not installed.
 * The CUDA side (sense_cuda.cu) sees only the launcher part (plain C types). */
#ifndef KRAY_SENSE_INTERNAL_H
#define KRAY_SENSE_INTERNAL_H

#include "kray/core.h"

#include <stdint.h>

/* Largest R of the device lattice kernels. */
#define KRI_SENSE_CUDA_MAX_R 32

#ifdef __cplusplus
extern "C" {
#endif

/* ---- CUDA launchers (sense_cuda.cu). Device pointers; complex = interleaved float pairs.
 * All queue work on `stream` without synchronising and check every launch. ----------------- */

/* Geometry of a lattice unfolding problem. */
typedef struct kri_sense_geom {
    int64_t nx, ny, nc;
    int accel, offset;
    double lambda;
} kri_sense_geom;

/* buf[x, y, c] = lines[y] ? (W k)[x, y, c] : 0 (W lower-triangular nc x nc, c64 row-major
 * W[r * nc + c], or NULL = identity); in == out allowed. lines: device [ny] bytes. */
kr_status kri_cuda_sense_prepare(const kri_sense_geom *g, const float *kspace, float *buf,
                                 const uint8_t *lines, const float *w, void *stream);
/* Unfold: maps c64 [nx, ny, nc] (whitened), aliased c64 [nx, ny, nc] (whitened zero-filled coil
 * images, or NULL for g-factor only), image c64 [nx, ny] (or NULL), gfac f32 [nx, ny] (or
 * NULL); singular: device int64 counter incremented per singular system (may be NULL). */
kr_status kri_cuda_sense_unfold(const kri_sense_geom *g, const float *maps, const float *aliased,
                                float *image, float *gfac, unsigned long long *singular,
                                void *stream);
/* General path: one ny x ny system per column x in [x0, x0 + ncols), one block per column.
 * psf: device double pairs [ny] (p(d), d = 0 .. ny-1); scr: device double pairs, ncols * (ny^2 +
 * 3 ny); iscr: device ints, ncols * ny. Other arguments as kri_cuda_sense_unfold. */
kr_status kri_cuda_sense_general(const kri_sense_geom *g, int64_t x0, int64_t ncols,
                                 const double *psf, const float *maps, const float *aliased,
                                 float *image, float *gfac, double *scr, int *iscr,
                                 unsigned long long *singular, void *stream);
/* SENSE operator pieces: coil[x, y, c] = maps[x, y, c] * img[x, y]; masked lines zeroed when
 * lines != NULL. */
kr_status kri_cuda_sense_expand(int64_t nx, int64_t ny, int64_t nc, const float *maps,
                                const float *img, float *coil, void *stream);
kr_status kri_cuda_sense_mask(int64_t nx, int64_t ny, int64_t nc, float *data, const uint8_t *lines,
                              void *stream);
/* img[x, y] = sum_c conj(maps[x, y, c]) coil[x, y, c] (coil order fixed). */
kr_status kri_cuda_sense_reduce(int64_t nx, int64_t ny, int64_t nc, const float *maps,
                                const float *coil, float *img, void *stream);
/* image f32 (is_complex 0) or c64 [nx, ny] times maps -> coil [nx, ny, nc]. */
kr_status kri_cuda_coil_expand(int64_t nx, int64_t ny, int64_t nc, const float *maps,
                               const float *img, int img_complex, float *coil, void *stream);

#ifdef __cplusplus
}
#endif

#ifndef __cplusplus
#include <complex.h>

/* ---- small dense complex linear algebra (sense_linalg.c), double precision -----------------
 * Matrices are column-major: A[i + lda * j] is row i, column j. */
typedef double _Complex kri_zc;

/* In-place Cholesky A = L L^H of the Hermitian n x n matrix (lower triangle read and
 * overwritten by L; upper triangle untouched). Returns 0, or k + 1 when pivot k is <= tol
 * (then L is incomplete). */
int kri_zpotrf(int n, kri_zc *a, int lda, double tol);
/* Solve L L^H x = b in place (b of length n). */
void kri_zpotrs(int n, const kri_zc *l, int lda, kri_zc *b);
/* Inverse of the lower-triangular L in place (lower triangle). */
void kri_ztrtri_lower(int n, kri_zc *l, int lda);
/* Eigen-decomposition of the Hermitian n x n matrix A (lower triangle used): eigenvalues w
 * ascending, eigenvectors in the columns of V (n x n, ldv). A is destroyed. Householder
 * tridiagonalisation + implicit QL. Returns 0, or -1 when QL did not converge. */
int kri_zheev(int n, kri_zc *a, int lda, double *w, kri_zc *v, int ldv);
/* Lower Cholesky factor and its inverse of a host psi kr_array (c64/c128 [nc, nc]) as
 * column-major doubles: *w (nc x nc) = L^-1. Checks Hermitian (1e-6 relative) and positive
 * definite; `what` names the argument. Caller frees *w with kri_free. */
kr_status kri_psi_whitener(const kr_array *psi, int64_t nc, const char *what, kri_zc **w);
/* The same checks; *l = L itself (invert == 0) or L^-1 (invert != 0). */
kr_status kri_psi_factor(const kr_array *psi, int64_t nc, const char *what, int invert, kri_zc **l);
/* Apply the lower-triangular W (column-major, nc x nc) to nc values with stride `stride`
 * (complex float interleaved) in place, in double. */
void kri_whiten_c64(int64_t nc, const kri_zc *w, float *v, int64_t stride);

/* ---- host SENSE solvers (sense_cpu.c) ---------------------------------------------------------
 * maps c64 [nx, ny, nc] (whitened), aliased c64 [nx, ny, nc] (whitened zero-filled coil images,
 * NULL = g-factor only), image c64 [nx, ny] or NULL, gfac f32 [nx, ny] or NULL. OpenMP over
 * systems with `nthreads`; bit-identical for any thread count. *singular receives the number
 * of singular systems. */
typedef struct kri_sense_cpu {
    int64_t nx, ny, nc;
    int accel, offset;    /* lattice */
    const uint8_t *lines; /* general: acquired flags [ny] */
    double lambda;
    const float *maps, *aliased;
    float *image, *gfac;
    int nthreads;
} kri_sense_cpu;

kr_status kri_cpu_sense_lattice(const kri_sense_cpu *a, int64_t *singular);
kr_status kri_cpu_sense_general(const kri_sense_cpu *a, int64_t *singular);
/* Point-spread function of a line set: p(d) = (1/ny) sum_{j: lines[j]} exp(2 pi i (j -
 * floor(ny/2)) d / ny), d = 0 .. ny-1 (exact integer phase reduction). */
void kri_sense_psf(const uint8_t *lines, int64_t ny, kri_zc *psf);

/* Is `lines` (ny flags) exactly the lattice j = o (mod R) with R dividing ny? Returns R (>= 1)
 * and sets *offset, or 0. */
int kri_lines_lattice(const uint8_t *lines, int64_t ny, int *offset);

/* Non-NULL, with data, c64 (KR_ERR_DTYPE) and contiguous (KR_ERR_NOT_SUPPORTED). */
kr_status kri_check_c64(const kr_array *a, const char *what);
/* dims[0..2] of an array of rank <= 3 (missing dims are 1); KR_ERR_DIM naming `what` when the
 * rank is larger than maxrank. */
kr_status kri_shape3(const kr_array *a, int maxrank, const char *what, int64_t d[3]);
#endif

#endif
