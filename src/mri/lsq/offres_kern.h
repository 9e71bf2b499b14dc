/* Off-resonance arithmetic shared by the CPU (offres_cpu.c, C) and CUDA (offres_cuda.cu) direct
 * sums: the same expression compiles on both sides. Not installed. */
#ifndef KRAY_OFFRES_KERN_H
#define KRAY_OFFRES_KERN_H

#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define KRI_OFFRES_HD __host__ __device__ __forceinline__
#else
#define KRI_OFFRES_HD static inline
#endif

/* Phase of sample m at voxel i of an n0 x n1 x n2 image in cycles, k_m . c_i / n + f_i tm_m with
 * the centred voxel coordinates c_i, reduced to [-1/2, 1/2] (offres_internal.h). */
KRI_OFFRES_HD double kri_offres_phase(int64_t n0, int64_t n1, int64_t n2, const double *k,
                                      int64_t m, int64_t i, const double *f, const double *tm)
{
    double c0 = (double)(i % n0 - n0 / 2), c1 = (double)((i / n0) % n1 - n1 / 2);
    double c2 = (double)(i / (n0 * n1) - n2 / 2);
    double p = k[3 * m] * c0 / (double)n0 + k[3 * m + 1] * c1 / (double)n1 +
               k[3 * m + 2] * c2 / (double)n2 + f[i] * tm[m];
    return p - rint(p);
}

#endif
