/* Private interface of the Cartesian room (src/mri/cartesian/): SENSE plans, coil combination,
 * noise and ESPIRiT. Not installed. The CUDA side (sense_cuda.cu) sees only the backend part
 * (plain C types). */
#ifndef KRAY_SENSE_INTERNAL_H
#define KRAY_SENSE_INTERNAL_H

#include "core/backend.h"
#include "kray/sense.h"

#include <stdint.h>

/* Largest R of the device lattice kernels. */
#define KRI_SENSE_CUDA_MAX_R 32

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the backend seam of SENSE plans (core/backend.h) ---------------------------------------
 * A plan as its backends see it: host data owned by the plan, which outlives the backend state
 * made from it. */
typedef struct kri_sense_desc {
    const kr_ctx *ctx;
    int64_t nx, ny, nc;
    int method;           /* KR_SENSE_LATTICE or KR_SENSE_GENERAL */
    int accel, offset;    /* lattice: R and the first line (general: accel 0) */
    double lambda;
    const uint8_t *lines; /* [ny] acquired flags, 0 or 1 */
    const double *w;      /* whitener W = L^-1: nc x nc column-major complex pairs, or NULL */
} kri_sense_desc;

/* Host arrays in kri_sense_cpu (sense_cpu.c), device arrays in kri_sense_cuda (sense_cuda.cu;
 * sense_nocuda.c without CUDA). Arrays are c64 (interleaved float pairs) or f32 at the
 * backend's memory; CUDA verbs queue work on the ctx's stream. */
typedef struct kri_sense_backend {
    kri_backend_hdr hdr;
    /* The state of one plan on one device (*state, freed by destroy); fails for a plan the
     * backend cannot run (KR_ERR_NOT_SUPPORTED). */
    kr_status (*create)(const kri_sense_desc *d, void **state);
    void (*destroy)(void *state);
    /* buf = W src [nx, ny, nc], with the lines not acquired zeroed when mask != 0. */
    kr_status (*prepare)(void *state, const float *src, float *buf, int mask);
    /* Unfold: maps [nx, ny, nc] (whitened), aliased [nx, ny, nc] (whitened zero-filled coil
     * images, or NULL for the g-factor only), image [nx, ny] (or NULL), gfac f32 [nx, ny] (or
     * NULL). */
    kr_status (*solve)(void *state, const float *maps, const float *aliased, float *image,
                       float *gfac);
    /* Singular systems of the last solve. */
    kr_status (*singular)(const void *state, int64_t *n);
} kri_sense_backend;
extern const kri_sense_backend kri_sense_cpu, kri_sense_cuda;

/* Point-spread function of a line set as complex pairs: p(d) = (1/ny) sum_{j: lines[j]}
 * exp(2 pi i (j - floor(ny/2)) d / ny), d = 0 .. ny-1 (exact integer phase reduction). */
void kri_sense_psf(const uint8_t *lines, int64_t ny, double *psf);

#ifdef __cplusplus
}
#endif

#ifndef __cplusplus
#include "mri/cartesian/sense_chol.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* The calling thread's number in an OpenMP region (0 without OpenMP): its slot of scratch. */
static inline int kri_omp_tid(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* ---- small dense complex linear algebra (sense_linalg.c), double precision -----------------
 * Matrices are column-major: A[i + lda * j] is row i, column j. */
typedef kri_chol_z kri_zc;

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
/* The same with the O(n^3) steps (the trailing updates of the tridiagonalisation, the
 * back-transformation) shared by nt OpenMP threads for large n; every entry is computed by one
 * thread in a fixed order, so the result is the same for any nt. */
int kri_zheev_nt(int n, kri_zc *a, int lda, double *w, kri_zc *v, int ldv, int nt);
/* Lower Cholesky factor and its inverse of a host psi kr_array (c64/c128 [nc, nc]) as
 * column-major doubles: *w (nc x nc) = L^-1. Checks Hermitian (1e-6 relative) and positive
 * definite; messages name the argument "<fn>: psi". Caller frees *w with kri_free. */
kr_status kri_psi_whitener(const kr_array *psi, int64_t nc, const char *fn, kri_zc **w);
/* The same checks; *l = L itself (invert == 0) or L^-1 (invert != 0). */
kr_status kri_psi_factor(const kr_array *psi, int64_t nc, const char *fn, int invert, kri_zc **l);
/* Apply the lower-triangular W (column-major, nc x nc) to nc values with stride `stride`
 * (complex float interleaved) in place, in double. */
void kri_whiten_c64(int64_t nc, const kri_zc *w, float *v, int64_t stride);

/* Is `lines` (ny flags) exactly the lattice j = o (mod R) with R dividing ny? Returns R (>= 1)
 * and sets *offset, or 0. */
int kri_lines_lattice(const uint8_t *lines, int64_t ny, int *offset);

/* dims[0..2] of an array of rank <= 3 (missing dims are 1); KR_ERR_DIM naming `what` when the
 * rank is larger than maxrank. */
kr_status kri_shape3(const kr_array *a, int maxrank, const char *what, int64_t d[3]);
#endif

#endif
