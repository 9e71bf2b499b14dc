/* The Cholesky arithmetic of SENSE, one text for the host (sense_linalg.c: kri_zpotrf, and the
 * g-factors of sense_cpu.c) and the CUDA kernels (sense_cuda.cu: the lattice kernel, which
 * factorises in registers, and the general kernel, which runs the same updates right-looking
 * over the threads of a block). Every function evaluates its formula in the order written, so
 * the host and the device compute the same operations on each entry.
 *
 * A factorised matrix is the lower triangle of a Hermitian n x n matrix, stored column-major
 * (a[i + lda j]; packed == 0) or packed by rows (a[i (i + 1) / 2 + j], j <= i; packed != 0).
 * Callers pass `packed` as a constant, so the index arithmetic folds. Complex values are
 * kri_chol_z: double _Complex in C, double2 (core/cplx_cuda.cuh) in CUDA. */
#ifndef KRAY_SENSE_CHOL_H
#define KRAY_SENSE_CHOL_H

#include <stdint.h>

#ifdef __CUDACC__
#include "core/cplx_cuda.cuh"
#define KRI_CHOL_HD static __device__ __forceinline__
#define KRI_CHOL_UNROLL _Pragma("unroll")
typedef double2 kri_chol_z;
KRI_CHOL_HD double kri_chol_re(kri_chol_z a) { return a.x; }
KRI_CHOL_HD kri_chol_z kri_chol_real(double r) { return kri_cmk<double2>(r, 0.0); }
/* a - b conj(c) */
KRI_CHOL_HD kri_chol_z kri_chol_fms(kri_chol_z a, kri_chol_z b, kri_chol_z c)
{
    return kri_csub(a, kri_cmul(b, kri_cmk<double2>(c.x, -c.y)));
}
/* a + conj(b) c */
KRI_CHOL_HD kri_chol_z kri_chol_fmac(kri_chol_z a, kri_chol_z b, kri_chol_z c)
{
    return kri_cadd(a, kri_cmulc(b, c));
}
KRI_CHOL_HD kri_chol_z kri_chol_scale(kri_chol_z a, double s) { return kri_cscale(a, s); }
KRI_CHOL_HD double kri_chol_abs2(kri_chol_z a) { return kri_cabs2(a); }
#else
#include <complex.h>
#define KRI_CHOL_HD static inline
#define KRI_CHOL_UNROLL
typedef double _Complex kri_chol_z;
KRI_CHOL_HD double kri_chol_re(kri_chol_z a) { return creal(a); }
KRI_CHOL_HD kri_chol_z kri_chol_real(double r) { return r; }
KRI_CHOL_HD kri_chol_z kri_chol_fms(kri_chol_z a, kri_chol_z b, kri_chol_z c)
{
    return a - b * conj(c);
}
KRI_CHOL_HD kri_chol_z kri_chol_fmac(kri_chol_z a, kri_chol_z b, kri_chol_z c)
{
    return a + conj(b) * c;
}
KRI_CHOL_HD kri_chol_z kri_chol_scale(kri_chol_z a, double s) { return a * s; }
KRI_CHOL_HD double kri_chol_abs2(kri_chol_z a) { return creal(a) * creal(a) + cimag(a) * cimag(a); }
#endif

/* Index of entry (i, j), j <= i. */
KRI_CHOL_HD int64_t kri_chol_at(int i, int j, int64_t lda, int packed)
{
    return packed ? (int64_t)i * (i + 1) / 2 + j : i + lda * j;
}

/* The pivot of column j once columns 0 .. j-1 hold L: re a[j, j] - sum_{k<j} |L[j, k]|^2. A
 * pivot that is not > tol makes the matrix singular (numerically). */
KRI_CHOL_HD double kri_chol_pivot(const kri_chol_z *a, int j, int64_t lda, int packed)
{
    double d = kri_chol_re(a[kri_chol_at(j, j, lda, packed)]);
    KRI_CHOL_UNROLL
    for (int k = 0; k < j; k++) d -= kri_chol_abs2(a[kri_chol_at(j, k, lda, packed)]);
    return d;
}

/* L[i, j] = (a[i, j] - sum_{k<j} L[i, k] conj(L[j, k])) * inv, inv = 1 / L[j, j] (i > j).
 * The right-looking order applies the same updates kri_chol_fms(a[i, j], L[i, k], L[j, k]) for
 * k = 0 .. j-1 one step at a time, then the same scaling. */
KRI_CHOL_HD void kri_chol_entry(kri_chol_z *a, int i, int j, int64_t lda, int packed,
                                double inv)
{
    kri_chol_z s = a[kri_chol_at(i, j, lda, packed)];
    KRI_CHOL_UNROLL
    for (int k = 0; k < j; k++)
        s = kri_chol_fms(s, a[kri_chol_at(i, k, lda, packed)],
                         a[kri_chol_at(j, k, lda, packed)]);
    a[kri_chol_at(i, j, lda, packed)] = kri_chol_scale(s, inv);
}

/* Column j of L from its pivot's root ljj = sqrt(pivot): L[j, j] = ljj, then the entries
 * below. */
KRI_CHOL_HD void kri_chol_column(kri_chol_z *a, int j, int n, int64_t lda, int packed,
                                 double ljj)
{
    a[kri_chol_at(j, j, lda, packed)] = kri_chol_real(ljj);
    const double inv = 1.0 / ljj;
    KRI_CHOL_UNROLL
    for (int i = j + 1; i < n; i++) kri_chol_entry(a, i, j, lda, packed, inv);
}

/* The g-factor variance of unknown i from li = L^-1 (lower triangle; X = (N + lambda I)^-1 =
 * li^H li): [X N X]_ii = X_ii - lambda sum_j |X_ij|^2, clamped at 0 (the N_ii factor is the
 * caller's). No unroll request: the lattice kernel unrolls it in full (constant R), the
 * general kernel (runtime size) keeps the compiler's own unrolling. */
KRI_CHOL_HD double kri_chol_gvar(const kri_chol_z *li, int i, int n, int64_t lda, int packed,
                                  double lambda)
{
    double var = 0;
    for (int k = i; k < n; k++) var += kri_chol_abs2(li[kri_chol_at(k, i, lda, packed)]);
    if (lambda > 0) {
        double s2 = 0;
            for (int j = 0; j < n; j++) {
            kri_chol_z xij = kri_chol_real(0.0);
            const int k0 = i > j ? i : j;
                    for (int k = k0; k < n; k++)
                xij = kri_chol_fmac(xij, li[kri_chol_at(k, i, lda, packed)],
                                    li[kri_chol_at(k, j, lda, packed)]);
            s2 += kri_chol_abs2(xij);
        }
        var -= lambda * s2;
        if (var < 0) var = 0;
    }
    return var;
}

#endif
