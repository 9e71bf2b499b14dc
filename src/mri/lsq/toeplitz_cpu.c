/* The Toeplitz engine's elementwise steps and the k-space weighting on the CPU (lsq_internal.h):
 * OpenMP over rows / elements, every output written by one thread in a fixed order. */
#include "core/internal.h"
#include "mri/lsq/lsq_internal.h"

#include <string.h>

#define KRI_TOEP_CPU(T)                                                                          \
    static void kri_toep_pad_##T(int nt, const int64_t n[3], const int64_t g[3], int64_t nb,    \
                                 const T *in, const T *maps, T *buf)                            \
    {                                                                                            \
        const int64_t G = g[0] * g[1] * g[2], N = n[0] * n[1] * n[2];                            \
        const int64_t rows = g[1] * g[2] * nb;                                                   \
        _Pragma("omp parallel for num_threads(nt) schedule(static)")                             \
        for (int64_t r = 0; r < rows; r++) {                                                     \
            const int64_t b = r / (g[1] * g[2]), yz = r - b * g[1] * g[2];                       \
            const int64_t y = yz % g[1], z = yz / g[1];                                          \
            T *o = buf + 2 * (b * G + g[0] * yz);                                                \
            int64_t x = 0;                                                                       \
            if (y < n[1] && z < n[2]) {                                                          \
                const int64_t i0 = n[0] * (y + n[1] * z);                                        \
                const T *s = in + 2 * ((maps ? 0 : b * N) + i0);                                 \
                const T *mp = maps ? maps + 2 * (b * N + i0) : NULL;                             \
                for (; x < n[0]; x++) {                                                          \
                    T re = s[2 * x], im = s[2 * x + 1];                                          \
                    if (mp) {                                                                    \
                        T mr = mp[2 * x], mi = mp[2 * x + 1];                                    \
                        T a = re * mr - im * mi, c = re * mi + im * mr;                          \
                        re = a, im = c;                                                          \
                    }                                                                            \
                    o[2 * x] = re, o[2 * x + 1] = im;                                            \
                }                                                                                \
            }                                                                                    \
            for (; x < g[0]; x++) o[2 * x] = 0, o[2 * x + 1] = 0;                                \
        }                                                                                        \
    }                                                                                            \
    static void kri_toep_mulq_##T(int nt, int64_t G, int64_t nb, T *buf, const T *q)            \
    {                                                                                            \
        const int64_t tot = G * nb;                                                              \
        _Pragma("omp parallel for num_threads(nt) schedule(static)")                             \
        for (int64_t e = 0; e < tot; e++) {                                                      \
            const T *p = q + 2 * (e % G);                                                        \
            T re = buf[2 * e], im = buf[2 * e + 1];                                              \
            buf[2 * e] = re * p[0] - im * p[1];                                                  \
            buf[2 * e + 1] = re * p[1] + im * p[0];                                              \
        }                                                                                        \
    }                                                                                            \
    static void kri_toep_crop_##T(int nt, const int64_t n[3], const int64_t g[3], int64_t nb,   \
                                  const T *buf, const T *maps, T *out, int acc)                 \
    {                                                                                            \
        const int64_t G = g[0] * g[1] * g[2], N = n[0] * n[1] * n[2];                            \
        const int64_t rows = n[1] * n[2] * (maps ? 1 : nb);                                      \
        _Pragma("omp parallel for num_threads(nt) schedule(static)")                             \
        for (int64_t r = 0; r < rows; r++) {                                                     \
            const int64_t b = r / (n[1] * n[2]), yz = r - b * n[1] * n[2];                       \
            const int64_t y = yz % n[1], z = yz / n[1];                                          \
            const int64_t j0 = g[0] * (y + g[1] * z), i0 = n[0] * yz;                            \
            if (!maps) {                                                                         \
                memcpy(out + 2 * (b * N + i0), buf + 2 * (b * G + j0),                           \
                       (size_t)n[0] * 2 * sizeof(T));                                            \
                continue;                                                                        \
            }                                                                                    \
            for (int64_t x = 0; x < n[0]; x++) {                                                 \
                T ar = acc ? out[2 * (i0 + x)] : 0, ai = acc ? out[2 * (i0 + x) + 1] : 0;        \
                for (int64_t c = 0; c < nb; c++) {                                               \
                    const T *m = maps + 2 * (c * N + i0 + x), *v = buf + 2 * (c * G + j0 + x);   \
                    ar += m[0] * v[0] + m[1] * v[1];                                             \
                    ai += m[0] * v[1] - m[1] * v[0];                                             \
                }                                                                                \
                out[2 * (i0 + x)] = ar, out[2 * (i0 + x) + 1] = ai;                              \
            }                                                                                    \
        }                                                                                        \
    }                                                                                            \
    static void kri_lsq_wmul_##T(int nt, int64_t M, int64_t nb, const T *d, const T *w, T *out) \
    {                                                                                            \
        const int64_t tot = M * nb;                                                              \
        _Pragma("omp parallel for num_threads(nt) schedule(static)")                             \
        for (int64_t e = 0; e < tot; e++) {                                                      \
            const T s = w[e % M];                                                                \
            out[2 * e] = d[2 * e] * s, out[2 * e + 1] = d[2 * e + 1] * s;                        \
        }                                                                                        \
    }

KRI_TOEP_CPU(float)
KRI_TOEP_CPU(double)

static kr_status kri_cpu_toep_pad(const kr_ctx *ctx, kr_dtype t, const int64_t n[3],
                                  const int64_t g[3], int64_t nb, const void *in, const void *maps,
                                  void *buf)
{
    int nt = kri_threads(ctx);
    if (t == KR_C64)
        kri_toep_pad_float(nt, n, g, nb, in, maps, buf);
    else
        kri_toep_pad_double(nt, n, g, nb, in, maps, buf);
    return KR_OK;
}

static kr_status kri_cpu_toep_mulq(const kr_ctx *ctx, kr_dtype t, int64_t G, int64_t nb,
                                   void *buf, const void *q)
{
    int nt = kri_threads(ctx);
    if (t == KR_C64)
        kri_toep_mulq_float(nt, G, nb, buf, q);
    else
        kri_toep_mulq_double(nt, G, nb, buf, q);
    return KR_OK;
}

static kr_status kri_cpu_toep_crop(const kr_ctx *ctx, kr_dtype t, const int64_t n[3],
                                   const int64_t g[3], int64_t nb, const void *buf,
                                   const void *maps, void *out, int acc)
{
    int nt = kri_threads(ctx);
    if (t == KR_C64)
        kri_toep_crop_float(nt, n, g, nb, buf, maps, out, acc);
    else
        kri_toep_crop_double(nt, n, g, nb, buf, maps, out, acc);
    return KR_OK;
}

static kr_status kri_cpu_lsq_wmul(const kr_ctx *ctx, kr_dtype t, int64_t M, int64_t nb,
                                  const void *d, const void *w, void *out)
{
    int nt = kri_threads(ctx);
    if (t == KR_C64)
        kri_lsq_wmul_float(nt, M, nb, d, w, out);
    else
        kri_lsq_wmul_double(nt, M, nb, d, w, out);
    return KR_OK;
}

const kri_toep_backend kri_toep_cpu = {{"cpu", true}, kri_cpu_toep_pad, kri_cpu_toep_mulq,
                                       kri_cpu_toep_crop, kri_cpu_lsq_wmul};
