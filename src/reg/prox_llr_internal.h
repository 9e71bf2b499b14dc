/* Private interface of the locally-low-rank prox (prox_llr.c, prox_llr_cpu.c, prox_llr_cuda.cu):
 * the block geometry and the backend seam of the block-wise singular value threshold. Not
 * installed. */
#ifndef KRAY_PROX_LLR_INTERNAL_H
#define KRAY_PROX_LLR_INTERNAL_H

#include "core/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Blocks of kr_prox_llr_create (kray/reg.h): the axes other than `axis` are cut into blocks of
 * `block` values (smaller at the far edge), nb[a] blocks along axis a (1 along `axis`); block b
 * has index b_a = (b / prod_{a' < a} nb[a']) % nb[a] per axis. Its pixel k (fastest axis first
 * over the block's extent) is the element with coordinates q_a = b_a block + k_a shifted back
 * by shift[a] (circularly), and column j of its matrix is the pixel's value at index j of
 * `axis`. Matrices are m x n with m <= mmax pixels and n = dims[axis]. */
typedef struct kri_llr_desc {
    int ndim, axis;
    int64_t dims[KR_MAX_DIMS], stride[KR_MAX_DIMS], shift[KR_MAX_DIMS], nb[KR_MAX_DIMS];
    int64_t block, nblocks, mmax, n;
} kri_llr_desc;

/* The backend seam (core/backend.h): kri_llr_cpu (prox_llr_cpu.c: OpenMP over blocks, one-sided
 * cyclic Jacobi in double per block), kri_llr_cuda (prox_llr_cuda.cu: one thread block per
 * block, one-sided Jacobi in double with round-robin pair order; prox_llr_nocuda.c without
 * CUDA). t: f32, f64, c64, c128; v, x at the table's location.
 *   value == NULL: x = the block-wise singular value soft threshold of v by tau (x may be v);
 *   value != NULL: *value = sum over blocks of the nuclear norm of v's block (x unused), the
 *                  block sums added in block order.
 * *scratch: a device work array the CUDA side keeps between calls (made or grown on first use,
 * freed by the caller); the CPU side does not use it. */
typedef struct kri_llr_backend {
    kri_backend_hdr hdr;
    kr_status (*svt)(const kr_ctx *ctx, kr_dtype t, const kri_llr_desc *d, const void *v,
                     void *x, double tau, double *value, kr_array **scratch);
} kri_llr_backend;
extern const kri_llr_backend kri_llr_cpu, kri_llr_cuda;

#ifdef __cplusplus
}
#endif

#ifndef __cplusplus
/* Singular value soft threshold of the m x n complex matrix M (column-major, interleaved double
 * pairs, m >= 1, n >= 1) by tau, in place; work: n * n * 2 + 3 n doubles (prox_llr_cpu.c). */
void kri_svt(double *M, int64_t m, int64_t n, double tau, double *work);
#endif

#endif
