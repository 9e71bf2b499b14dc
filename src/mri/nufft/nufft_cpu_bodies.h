/* One precision and instruction set of the CPU NUFFT body (nufft_cpu_impl.h), named
 * kri_nf_<name>_f<ISA> (KRI_DOUBLE 0: float, c64 plans) or kri_nf_<name>_d<ISA> (KRI_DOUBLE 1:
 * double, c128 plans), <ISA> empty or _avx2 (KRI_AVX2 1: compiled for AVX2). Included once by
 * each of nufft_cpu_f.c, nufft_cpu_d.c, nufft_cpu_f_avx2.c and nufft_cpu_d_avx2.c. Not a public
 * header.
 *
 * KRI_V is a 32-byte vector of KRI_T (GNU vector extension; unaligned access allowed), KRI_VL
 * its lanes. Without contraction of a * b + c (ISO C mode) both instruction sets give the same
 * bits. */
#include "mri/nufft/nufft_cpu_body.h"

#include <omp.h>
#include <string.h>

#if defined(__GNUC__)
#define KRI_ALWAYS_INLINE __attribute__((always_inline))
#else
#define KRI_ALWAYS_INLINE
#endif
#define KRI_NF_AHEAD 16 /* points between a sample's prefetch and its use */

#define KRI_PASTE2(a, b) a##b
#define KRI_PASTE(a, b) KRI_PASTE2(a, b)
#if KRI_AVX2
#define KRI_ISA _avx2
#pragma GCC push_options
#pragma GCC target("avx2")
#else
#define KRI_ISA
#endif

#if KRI_DOUBLE
typedef double kri_v4d __attribute__((vector_size(32), aligned(8), may_alias));
#define KRI_T double
#define KRI_V kri_v4d
#define KRI_VL 4
#define KRI_F(name) KRI_PASTE(kri_nf_##name##_d, KRI_ISA)
#define KRI_COEF(k) ((k)->coef)
#else
typedef float kri_v8f __attribute__((vector_size(32), aligned(4), may_alias));
#define KRI_T float
#define KRI_V kri_v8f
#define KRI_VL 8
#define KRI_F(name) KRI_PASTE(kri_nf_##name##_f, KRI_ISA)
#define KRI_COEF(k) ((k)->coeff)
#endif

#include "mri/nufft/nufft_cpu_impl.h"

#if KRI_AVX2
#pragma GCC pop_options
#endif
