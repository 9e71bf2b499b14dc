/* The block geometry of the locally-low-rank prox (prox_llr_internal.h), one text for the host
 * (prox_llr_cpu.c) and the CUDA kernel (prox_llr_cuda.cu). Not installed. */
#ifndef KRAY_PROX_LLR_KERN_H
#define KRAY_PROX_LLR_KERN_H

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

#endif
