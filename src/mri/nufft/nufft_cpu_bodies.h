/* Both precisions of the CPU NUFFT body (nufft_cpu_impl.h), named kri_nf_<name>_f<KRI_ISA> and
 * kri_nf_<name>_d<KRI_ISA>; included by nufft_cpu.c once per instruction set. Not a public
 * header. */
#define KRI_PASTE2(a, b) a##b
#define KRI_PASTE(a, b) KRI_PASTE2(a, b)

#define KRI_T float
#define KRI_V kri_v8f
#define KRI_VL 8
#define KRI_F(name) KRI_PASTE(kri_nf_##name##_f, KRI_ISA)
#define KRI_COEF(k) ((k)->coeff)
#include "mri/nufft/nufft_cpu_impl.h"
#undef KRI_T
#undef KRI_V
#undef KRI_VL
#undef KRI_F
#undef KRI_COEF

#define KRI_T double
#define KRI_V kri_v4d
#define KRI_VL 4
#define KRI_F(name) KRI_PASTE(kri_nf_##name##_d, KRI_ISA)
#define KRI_COEF(k) ((k)->coef)
#include "mri/nufft/nufft_cpu_impl.h"
#undef KRI_T
#undef KRI_V
#undef KRI_VL
#undef KRI_F
#undef KRI_COEF

#undef KRI_PASTE
#undef KRI_PASTE2
