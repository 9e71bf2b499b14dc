/* cuFFT LTO store callbacks of the FFT ramp filter (filter_cufft.cu): not part of libkray's
 * sources; CMake compiles this file to LTO-IR (nvcc -dc -fatbin, code=lto_XX) and embeds the
 * fatbin, and cuFFT links the callbacks into its own kernels when the plans are made.
 *   mul:    forward transform of the packed row pairs, each bin stored times the response
 *           (replaces the separate multiply pass: one read and one write of the work buffer);
 *   unpack: inverse transform, the real and imaginary parts of positions 0 .. N-1 stored
 *           straight into rows 2p and 2p + 1 of the PLAIN output (replaces the unpack pass;
 *           the padding is never written).
 * The values are those of the separate passes: the same products, the same inverse FFT. */
#include <cufftXt.h>

#include "../filter_cb.h"

/* (pair, position) of work offset off; the plans exist only while L * pairs < 2^32, so 32-bit
 * arithmetic is exact */
__device__ __forceinline__ void kri_fcb_split(const kri_filter_cbinfo *c, unsigned long long off,
                                              unsigned *p, unsigned *m)
{
    const unsigned o = (unsigned)off, L = (unsigned)c->L;
    *p = o / L;
    *m = o - *p * L;
}

template <typename C, typename T>
__device__ __forceinline__ void kri_fcb_mul(void *out, unsigned long long off, C e, void *info)
{
    const kri_filter_cbinfo *c = (const kri_filter_cbinfo *)info;
    const T h = ((const T *)c->resp)[(unsigned)off % (unsigned)c->L];
    e.x *= h;
    e.y *= h;
    ((C *)out)[off] = e;
}

template <typename C, typename T>
__device__ __forceinline__ void kri_fcb_unpack(unsigned long long off, C e, void *info)
{
    const kri_filter_cbinfo *c = (const kri_filter_cbinfo *)info;
    unsigned p, m;
    kri_fcb_split(c, off, &p, &m);
    if (m >= (unsigned)c->N) return;
    T *o = (T *)c->out + 2 * (long long)p * c->os + m;
    o[0] = e.x;
    if (2 * (long long)p + 1 < c->R) o[c->os] = e.y;
}

__device__ void kri_fcb_mul_c(void *out, unsigned long long off, cufftComplex e, void *info,
                              void *shared)
{
    kri_fcb_mul<cufftComplex, float>(out, off, e, info);
}

__device__ void kri_fcb_mul_z(void *out, unsigned long long off, cufftDoubleComplex e, void *info,
                              void *shared)
{
    kri_fcb_mul<cufftDoubleComplex, double>(out, off, e, info);
}

__device__ void kri_fcb_unpack_c(void *out, unsigned long long off, cufftComplex e, void *info,
                                 void *shared)
{
    kri_fcb_unpack<cufftComplex, float>(off, e, info);
}

__device__ void kri_fcb_unpack_z(void *out, unsigned long long off, cufftDoubleComplex e,
                                 void *info, void *shared)
{
    kri_fcb_unpack<cufftDoubleComplex, double>(off, e, info);
}
