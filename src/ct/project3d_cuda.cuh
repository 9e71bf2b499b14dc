/* The cone-beam projector arithmetic on CUDA, shared by the kernels of project3d_cuda.cu and
 * project3d_gather.cu: project3d_kern.h instantiated for float and double with the CUDA
 * operations, overloads so kernels can be templates, and the conversion-free floor. */
#ifndef KRAY_CT_PROJECT3D_CUDA_CUH
#define KRAY_CT_PROJECT3D_CUDA_CUH
#include "ct_cuda_math.cuh"
#include "project_cuda.cuh"

#include "project3d_internal.h"

#define KHD static __device__ __forceinline__

static __device__ __forceinline__ float kri_fma(float a, float b, float c)
{
    return __fmaf_rn(a, b, c);
}
static __device__ __forceinline__ double kri_fma(double a, double b, double c)
{
    return __fma_rn(a, b, c);
}
#define KFMA(a, b, c) kri_fma(a, b, c)
#define KLOAD(p) __ldg(p)
#define KSCATTER(p, x) atomicAdd((p), (x))
#define KUNROLL _Pragma("unroll")

#define KT float
#define KFN(x) x##_f32
#define KFLOOR floorf
#define KABS fabsf
#include "project3d_kern.h"
#undef KT
#undef KFN
#undef KFLOOR
#undef KABS

#define KT double
#define KFN(x) x##_f64
#define KFLOOR floor
#define KABS fabs
#include "project3d_kern.h"
#undef KT
#undef KFN

/* Overloads so the kernels can be templates. */
#define KRI_OVERLOADS3(T, SFX)                                                                 \
    static __device__ __forceinline__ void ray3(const kri_ct3p_##SFX *p,                      \
                                                const kri_ct3v_##SFX *v, int iu, int iv,       \
                                                int su, int sv, kri_ray3_##SFX *r)             \
    {                                                                                          \
        kri_ct3_ray_##SFX(p, v, iu, iv, su, sv, r);                                            \
    }                                                                                          \
    static __device__ __forceinline__ void jos3_setup(const kri_ct3p_##SFX *p,                \
                                                      const kri_ray3_##SFX *r,                 \
                                                      kri_jos3_##SFX *j)                       \
    {                                                                                          \
        kri_jos3_setup_##SFX(p, r, j);                                                         \
    }                                                                                          \
    static __device__ __forceinline__ void jos3_w4(T wa, T wb, T *w)                           \
    {                                                                                          \
        kri_jos3_w4_##SFX(wa, wb, w);                                                          \
    }                                                                                          \
    static __device__ __forceinline__ T bilerp3(T a, T b, T c, T d, T wa, T wb)                \
    {                                                                                          \
        return kri_bilerp_##SFX(a, b, c, d, wa, wb);                                           \
    }                                                                                          \
    static __device__ __forceinline__ T sid3_walk(const kri_ct3p_##SFX *p,                    \
                                                  const kri_ray3_##SFX *r, const T *vol,       \
                                                  T *acc, T c, int z0, int z1)                 \
    {                                                                                          \
        return kri_sid3_walk_##SFX(p, r, vol, acc, c, z0, z1);                                 \
    }
KRI_OVERLOADS3(float, f32)
KRI_OVERLOADS3(double, f64)

template <typename T> struct kri_t3;
template <> struct kri_t3<float> {
    typedef kri_ct3p_f32 P;
    typedef kri_ct3v_f32 V;
    typedef kri_ray3_f32 R;
    typedef kri_jos3_f32 J;
};
template <> struct kri_t3<double> {
    typedef kri_ct3p_f64 P;
    typedef kri_ct3v_f64 V;
    typedef kri_ray3_f64 R;
    typedef kri_jos3_f64 J;
};

/* Floor without conversion instructions (float <-> int conversions issue at 16 per clock and SM,
 * a quarter or less of the FP32 rate, and would bound the Joseph loops): for |x| < 2^22 (2^51),
 * r = x + M rounded down, M = 1.5 * 2^23 (1.5 * 2^52), is M + floor(x) exactly, its low bits
 * hold floor(x) as an integer, and r - M is floor(x) as a float. kri_floor_i returns floor(x)
 * and sets *fl to it as a float: the same numbers as floor() and a conversion. */
static __device__ __forceinline__ unsigned kri_floor_raw(float x, float *fl)
{
    const float M = 12582912.0f;
    float r = __fadd_rd(x, M);
    *fl = __fsub_rn(r, M);
    return (unsigned)__float_as_int(r); /* 0x4B400000 + floor(x) */
}
static __device__ __forceinline__ unsigned kri_floor_raw(double x, double *fl)
{
    const double M = 6755399441055744.0;
    double r = __dadd_rd(x, M);
    *fl = __dsub_rn(r, M);
    return (unsigned)(unsigned long long)__double_as_longlong(r); /* low bits: floor(x) */
}
template <typename T> static __device__ __forceinline__ unsigned kri_floor_bias();
template <> __device__ __forceinline__ unsigned kri_floor_bias<float>() { return 0x4B400000u; }
template <> __device__ __forceinline__ unsigned kri_floor_bias<double>() { return 0u; }

/* The gather adjoint (project3d_gather.cu), for plans whose state says d->gather: slices
 * [za, zb) of vol (za a multiple of 16, or 0); returns when the result is ready.
 * kri_ct3_view_gathers: does view d (double parameters) let it gather? */
kr_status kri_cuda_ct3d_adjoint_gather(const kr_ct_projector_plan *p, const kri_ct3_dev *d,
                                        const void *proj, void *vol, int za, int zb);
int kri_ct3_view_gathers(const kri_ct3v_f64 *d, const kri_ct3p_f64 *P);

#endif
