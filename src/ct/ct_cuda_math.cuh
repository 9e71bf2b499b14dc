/* Exactly rounded device arithmetic for the CT projector kernels (project2d_cuda.cu,
 * project3d_cuda.cu): explicit _rn intrinsics, so nvcc cannot contract a product and a sum into
 * an FMA the CPU does not do, and the shared kernel headers (project2d_kern.h, project3d_kern.h)
 * compute the same values on both backends. Defines the K* macros those headers expect. */
#ifndef KRAY_CT_CUDA_MATH_CUH
#define KRAY_CT_CUDA_MATH_CUH

#include <cuda_runtime.h>

static __device__ __forceinline__ float kri_mul(float a, float b) { return __fmul_rn(a, b); }
static __device__ __forceinline__ double kri_mul(double a, double b) { return __dmul_rn(a, b); }
static __device__ __forceinline__ float kri_add(float a, float b) { return __fadd_rn(a, b); }
static __device__ __forceinline__ double kri_add(double a, double b) { return __dadd_rn(a, b); }
static __device__ __forceinline__ float kri_sub(float a, float b) { return __fsub_rn(a, b); }
static __device__ __forceinline__ double kri_sub(double a, double b) { return __dsub_rn(a, b); }
static __device__ __forceinline__ float kri_div(float a, float b) { return __fdiv_rn(a, b); }
static __device__ __forceinline__ double kri_div(double a, double b) { return __ddiv_rn(a, b); }
static __device__ __forceinline__ float kri_sqrt(float a) { return __fsqrt_rn(a); }
static __device__ __forceinline__ double kri_sqrt(double a) { return __dsqrt_rn(a); }
#define KMUL(a, b) kri_mul(a, b)
#define KADD(a, b) kri_add(a, b)
#define KSUB(a, b) kri_sub(a, b)
#define KDIV(a, b) kri_div(a, b)
#define KSQRT(a) kri_sqrt(a)

#endif
