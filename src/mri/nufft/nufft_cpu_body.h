/* The entry points of the CPU NUFFT body (nufft_cpu_impl.h), one set per precision (f: c64
 * plans, d: c128 plans) and, on x86-64, per instruction set (baseline and _avx2; picked at plan
 * creation). Each set is compiled in a file of its own (nufft_cpu_f.c, nufft_cpu_d.c and their
 * _avx2 twins), so a build compiles the four in parallel. Not a public header. */
#ifndef KRAY_NUFFT_CPU_BODY_H
#define KRAY_NUFFT_CPU_BODY_H

#include "mri/nufft/nufft_internal.h"

#if defined(__GNUC__) && defined(__x86_64__) && !defined(KRAY_NO_SIMD)
#define KRI_NF_AVX2 1
#endif

#define KRI_NF_DECLARE(T, sfx)                                                                   \
    void kri_nf_spread_##sfx(kr_nufft_plan *p, const T *restrict y);                           \
    void kri_nf_interp_##sfx(kr_nufft_plan *p, T *restrict y);                                 \
    void kri_nf_pad_##sfx(kr_nufft_plan *p, const T *restrict f);                              \
    void kri_nf_crop_##sfx(kr_nufft_plan *p, T *restrict f);                                   \
    void kri_nf_zero_grid_##sfx(kr_nufft_plan *p, int64_t n0);                                 \
    int64_t kri_nf_tiles_of_##sfx(const kr_nufft_plan *p, const void *kv, int f32, int nc,     \
                                  int64_t m0, int64_t m1, int32_t *tile, int64_t *cnt);        \
    void kri_nf_scatter_##sfx(kr_nufft_plan *p, const void *kv, int f32, int nc, int64_t m0,   \
                              int64_t m1, const int32_t *tile, int64_t *cur);
KRI_NF_DECLARE(float, f)
KRI_NF_DECLARE(double, d)
#ifdef KRI_NF_AVX2
KRI_NF_DECLARE(float, f_avx2)
KRI_NF_DECLARE(double, d_avx2)
#endif
#undef KRI_NF_DECLARE

/* Call body `name` of the plan's precision and instruction set with the given arguments. */
#ifdef KRI_NF_AVX2
#define KRI_NF(p, name, ...)                                                                   \
    ((p)->dbl ? ((p)->simd ? kri_nf_##name##_d_avx2(p, __VA_ARGS__)                            \
                           : kri_nf_##name##_d(p, __VA_ARGS__))                                \
              : ((p)->simd ? kri_nf_##name##_f_avx2(p, __VA_ARGS__)                            \
                           : kri_nf_##name##_f(p, __VA_ARGS__)))
#else
#define KRI_NF(p, name, ...)                                                                   \
    ((p)->dbl ? kri_nf_##name##_d(p, __VA_ARGS__) : kri_nf_##name##_f(p, __VA_ARGS__))
#endif

#endif
