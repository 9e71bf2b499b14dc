/* The block geometry and the Jacobi rotation of the locally-low-rank prox (prox_llr_internal.h),
 * one text for the host (prox_llr_cpu.c) and the CUDA kernel (prox_llr_cuda.cu). Not
 * installed. */
#ifndef KRAY_PROX_LLR_KERN_H
#define KRAY_PROX_LLR_KERN_H

#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define KRI_LLR_HD static __host__ __device__ __forceinline__
#else
#define KRI_LLR_HD static inline
#endif

/* Start lo[a] and extent ext[a] of block b per axis (lo = ext = 0 along the column axis);
 * returns the block's pixel count. */
KRI_LLR_HD int64_t kri_llr_block(const kri_llr_desc *d, int64_t b, int64_t *lo, int64_t *ext)
{
    int64_t rem = b, cnt = 1;
    for (int a = 0; a < d->ndim; a++) {
        if (a == d->axis) {
            lo[a] = 0;
            ext[a] = 1;
            continue;
        }
        const int64_t len = d->dims[a], bl = len < d->block ? len : d->block, bi = rem % d->nb[a];
        rem /= d->nb[a];
        lo[a] = bi * bl;
        ext[a] = lo[a] + bl <= len ? bl : len - lo[a];
        cnt *= ext[a];
    }
    return cnt;
}

/* Element offset of pixel k of the block (lo, ext) at column index 0. */
KRI_LLR_HD int64_t kri_llr_offset(const kri_llr_desc *d, const int64_t *lo, const int64_t *ext,
                                  int64_t k)
{
    int64_t r = k, off = 0;
    for (int a = 0; a < d->ndim; a++) {
        if (a == d->axis) continue;
        const int64_t qc = lo[a] + r % ext[a];
        r /= ext[a];
        int64_t pc = qc - d->shift[a];
        if (pc < 0) pc += d->dims[a];
        off += pc * d->stride[a];
    }
    return off;
}

/* The rotation of one Jacobi step on columns a_p, a_q with al = |a_p|^2, be = |a_q|^2 and
 * conj(a_p) a_q = gr + i gi: a_q times e = er + i ei (= conj(gamma) / |gamma|) makes the pair's
 * product real, then the real rotation (c, sn) zeroes it: a_p' = c a_p - sn e a_q,
 * a_q' = sn a_p + c e a_q. Returns 0 (nothing to do: the pair is orthogonal to 1e-15),
 * else 1 with *off = |gamma| / (|a_p| |a_q|). */
KRI_LLR_HD int kri_llr_rotation(double al, double be, double gr, double gi, double *er,
                                double *ei, double *c, double *sn, double *off)
{
    const double g = hypot(gr, gi);
    if (g <= 1e-15 * sqrt(al * be) || g == 0.0) return 0;
    *off = g / sqrt(al * be);
    *er = gr / g;
    *ei = -gi / g;
    const double zeta = (be - al) / (2.0 * g);
    const double tt = (zeta >= 0 ? 1.0 : -1.0) / (fabs(zeta) + sqrt(1.0 + zeta * zeta));
    *c = 1.0 / sqrt(1.0 + tt * tt);
    *sn = *c * tt;
    return 1;
}

#endif
