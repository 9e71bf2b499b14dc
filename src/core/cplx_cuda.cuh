/* Complex arithmetic on float2 / double2 for the CUDA sources (private, device code only).
 * One definition for every module: the formulas are written out (no cuComplex), so the compiler
 * sees the same products and sums wherever they are used. */
#ifndef KRAY_CPLX_CUDA_CUH
#define KRAY_CPLX_CUDA_CUH

#include <cuda_runtime.h>

/* The complex vector type of a real type, and back. */
template <typename T> struct kri_cplx_of;
template <> struct kri_cplx_of<float> { typedef float2 type; };
template <> struct kri_cplx_of<double> { typedef double2 type; };
template <typename C> struct kri_real_of;
template <> struct kri_real_of<float2> { typedef float type; };
template <> struct kri_real_of<double2> { typedef double type; };

template <typename C> __device__ __forceinline__ C kri_cmk(typename kri_real_of<C>::type r,
                                                           typename kri_real_of<C>::type i)
{
    C z;
    z.x = r;
    z.y = i;
    return z;
}
template <typename C> __device__ __forceinline__ C kri_cadd(C a, C b)
{
    return kri_cmk<C>(a.x + b.x, a.y + b.y);
}
template <typename C> __device__ __forceinline__ C kri_csub(C a, C b)
{
    return kri_cmk<C>(a.x - b.x, a.y - b.y);
}
/* a b */
template <typename C> __device__ __forceinline__ C kri_cmul(C a, C b)
{
    return kri_cmk<C>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
/* conj(a) b */
template <typename C> __device__ __forceinline__ C kri_cmulc(C a, C b)
{
    return kri_cmk<C>(a.x * b.x + a.y * b.y, a.x * b.y - a.y * b.x);
}
template <typename C>
__device__ __forceinline__ C kri_cscale(C a, typename kri_real_of<C>::type s)
{
    return kri_cmk<C>(a.x * s, a.y * s);
}
template <typename C> __device__ __forceinline__ typename kri_real_of<C>::type kri_cabs2(C a)
{
    return a.x * a.x + a.y * a.y;
}
/* Load a float2 or double2 as double2, and store a double2 as either. */
template <typename C> __device__ __forceinline__ double2 kri_cload_d(const C *p, long long i)
{
    C v = p[i];
    return make_double2((double)v.x, (double)v.y);
}
__device__ __forceinline__ void kri_cstore_d(float2 *p, long long i, double2 v)
{
    p[i] = make_float2((float)v.x, (float)v.y);
}
__device__ __forceinline__ void kri_cstore_d(double2 *p, long long i, double2 v) { p[i] = v; }

#endif
