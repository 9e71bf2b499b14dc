/* The CPU NUFFT body for c64 plans (float), compiled for AVX2 (nufft_cpu_bodies.h); empty where
 * nufft_cpu_body.h has no AVX2 bodies (not x86-64, or KRAY_NO_SIMD). */
#include "mri/nufft/nufft_cpu_body.h"

#ifdef KRI_NF_AVX2
#define KRI_AVX2 1
#define KRI_DOUBLE 0
#include "mri/nufft/nufft_cpu_bodies.h"
#else
typedef int kri_nf_f_avx2_absent; /* ISO C wants a declaration in every file */
#endif
