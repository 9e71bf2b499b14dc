/* Plain C arithmetic for the CT projectors' CPU sources (project2d_cpu.c, project3d_cpu.c): the
 * K* operations that the shared kernel headers (project2d_kern.h, project3d_kern.h) expect (C11
 * does not contract a product and a sum, so each rounds once, as the CUDA _rn intrinsics of
 * ct_cuda_math.cuh), and floor and ceil without a library call. */
#ifndef KRAY_CT_PROJECT_CPU_H
#define KRAY_CT_PROJECT_CPU_H

#include <math.h>

#define KHD static inline
#define KMUL(a, b) ((a) * (b))
#define KADD(a, b) ((a) + (b))
#define KSUB(a, b) ((a) - (b))
#define KDIV(a, b) ((a) / (b))

/* floor and ceil without a library call (x86-64 without SSE4.1 has no rounding instruction);
 * exact, and the library's answer outside the fast range. */
static inline float kri_floorf(float x)
{
    if (!(x > -4194304.0f && x < 4194304.0f)) return floorf(x);
    int t = (int)x;
    return (float)(t - (x < (float)t));
}
static inline float kri_ceilf(float x) { return -kri_floorf(-x); }
static inline double kri_floord(double x)
{
    if (!(x > -1073741824.0 && x < 1073741824.0)) return floor(x);
    int t = (int)x;
    return (double)(t - (x < (double)t));
}
static inline double kri_ceild(double x) { return -kri_floord(-x); }

#endif
