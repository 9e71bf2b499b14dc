/* Per-element math of the reg kernels, compiled as C (reg_cpu.c) and as CUDA (reg_cuda.cu):
 * each function computes the output element(s) of one index, so the CPU loops and the CUDA
 * threads evaluate the same expressions (gathers: one writer per output, no atomics). Real
 * arithmetic is done in T (float or double) with separately rounded products only where the
 * comment says; the DWT accumulates in double on both sides. */
#ifndef KRAY_REG_KERN_H
#define KRAY_REG_KERN_H

#include "reg_internal.h"

#include <math.h>

/* Coordinate of element i along axis a. */
static inline KRI_HD int64_t kri_coord(const kri_shape *s, int64_t i, int a)
{
    return (i / s->stride[a]) % s->dims[a];
}

/* Offset of the neighbour of element i along axis a at distance +1 (periodic wrap or -1 when
 * outside for the Neumann rule). */
static inline KRI_HD int64_t kri_fd_next(const kri_fdiff_desc *d, int64_t i, int a)
{
    const int64_t c = kri_coord(&d->s, i, a), st = d->s.stride[a];
    if (c + 1 < d->s.dims[a]) return i + st;
    return d->periodic ? i - c * st : -1;
}
static inline KRI_HD int64_t kri_fd_prev(const kri_fdiff_desc *d, int64_t i, int a)
{
    const int64_t c = kri_coord(&d->s, i, a), st = d->s.stride[a];
    if (c > 0) return i - st;
    return d->periodic ? i + (d->s.dims[a] - 1) * st : -1;
}

/* z[e] for output scalar index e of D x (w = scalars per element: 1 real, 2 complex). */
#define KRI_FDIFF_FWD(T, d, x, z, e, w)                                                        \
    do {                                                                                       \
        const int64_t el_ = (e) / (w), comp_ = (e) % (w);                                      \
        const int64_t c_ = el_ / (d)->s.n, i_ = el_ % (d)->s.n;                                \
        const int64_t j_ = kri_fd_next((d), i_, (d)->axis[c_]);                                \
        (z)[e] = j_ < 0 ? (T)0 : (T)((x)[j_ * (w) + comp_] - (x)[i_ * (w) + comp_]);           \
    } while (0)

/* x[e] of D^T z: sum over axes of z_a[prev] - z_a[i] (terms that do not exist are 0). The
 * sum runs over the axes in order, in T. */
#define KRI_FDIFF_ADJ(T, d, z, x, e, w)                                                        \
    do {                                                                                       \
        const int64_t i_ = (e) / (w), comp_ = (e) % (w);                                       \
        T acc_ = (T)0;                                                                         \
        for (int c_ = 0; c_ < (d)->naxes; c_++) {                                              \
            const int a_ = (d)->axis[c_];                                                      \
            const T *zc_ = (z) + (int64_t)c_ * (d)->s.n * (w);                                 \
            const int64_t p_ = kri_fd_prev((d), i_, a_);                                       \
            if (p_ >= 0) acc_ = acc_ + zc_[p_ * (w) + comp_];                                  \
            if (kri_fd_next((d), i_, a_) >= 0) acc_ = acc_ - zc_[i_ * (w) + comp_];            \
        }                                                                                      \
        (x)[e] = acc_;                                                                         \
    } while (0)

/* Filter tap j of the high-pass filter. */
static inline KRI_HD double kri_dwt_g(const kri_dwt_desc *d, int j)
{
    const double v = d->h[d->taps - 1 - j];
    return (j & 1) ? -v : v;
}

/* True when element i lies inside the region of d. */
static inline KRI_HD int kri_dwt_inside(const kri_dwt_desc *d, int64_t i)
{
    for (int a = 0; a < d->s.ndim; a++)
        if (kri_coord(&d->s, i, a) >= d->region[a]) return 0;
    return 1;
}

/* Output scalar e of one DWT step (analysis: inv 0; synthesis: inv 1), accumulated in double in
 * tap order. Analysis: out[k] = sum_j h[j] in[(2k + j) mod L], out[L/2 + k] = sum_j g[j] in[..].
 * Synthesis (the transpose): out[p] = sum_{j: p - j even} h[j] a[k] + g[j] d[k],
 * k = ((p - j) mod L) / 2. */
#define KRI_DWT_STEP(T, d, in, out, e, w, inv)                                                 \
    do {                                                                                       \
        const int64_t i_ = (e) / (w), comp_ = (e) % (w);                                       \
        if (!kri_dwt_inside((d), i_)) {                                                        \
            (out)[e] = (in)[e];                                                                \
        } else {                                                                               \
            const int ax_ = (d)->axis;                                                         \
            const int64_t L_ = (d)->region[ax_], H_ = L_ / 2, st_ = (d)->s.stride[ax_];        \
            const int64_t p_ = kri_coord(&(d)->s, i_, ax_);                                    \
            const int64_t base_ = i_ - p_ * st_;                                               \
            double acc_ = 0.0;                                                                 \
            if (!(inv)) {                                                                      \
                const int hi_ = p_ >= H_;                                                      \
                const int64_t k_ = hi_ ? p_ - H_ : p_;                                         \
                for (int j_ = 0; j_ < (d)->taps; j_++) {                                       \
                    const int64_t q_ = (2 * k_ + j_) % L_;                                     \
                    const double f_ = hi_ ? kri_dwt_g((d), j_) : (d)->h[j_];                   \
                    acc_ += f_ * (double)(in)[(base_ + q_ * st_) * (w) + comp_];               \
                }                                                                              \
            } else {                                                                           \
                for (int j_ = 0; j_ < (d)->taps; j_++) {                                       \
                    const int64_t r_ = ((p_ - j_) % L_ + L_) % L_;                             \
                    if (r_ & 1) continue;                                                      \
                    const int64_t k_ = r_ / 2;                                                 \
                    acc_ += (d)->h[j_] * (double)(in)[(base_ + k_ * st_) * (w) + comp_];       \
                    acc_ += kri_dwt_g((d), j_) *                                               \
                            (double)(in)[(base_ + (H_ + k_) * st_) * (w) + comp_];             \
                }                                                                              \
            }                                                                                  \
            (out)[e] = (T)acc_;                                                                \
        }                                                                                      \
    } while (0)

/* Source element of the circular shift by +shift for output element i. */
static inline KRI_HD int64_t kri_roll_src(const kri_shape *s, const int64_t *shift, int64_t i)
{
    int64_t src = 0;
    for (int a = 0; a < s->ndim; a++) {
        const int64_t n = s->dims[a];
        int64_t c = kri_coord(s, i, a) - shift[a] % n;
        if (c < 0) c += n;
        if (c >= n) c -= n;
        src += c * s->stride[a];
    }
    return src;
}

/* The factor of a group kernel for squared norm ss (double). */
static inline KRI_HD double kri_group_factor(int kind, double ss, double a)
{
    if (kind == KRI_G_SHRINK) {
        const double nr = sqrt(ss);
        return nr > a ? 1.0 - a / nr : 0.0;
    }
    if (kind == KRI_G_CLIP) {
        const double nr = sqrt(ss);
        return nr > a ? a / nr : 1.0;
    }
    return 1.0 / sqrt(ss + a * a);
}

/* Apply a group kernel to element i of x (k groups of n elements, w scalars each). */
#define KRI_GROUP(T, kind, n, k, w, x, i, a, b)                                                \
    do {                                                                                       \
        if ((kind) == KRI_G_BOX) {                                                             \
            T v_ = (x)[(i) * (w)];                                                             \
            v_ = v_ < (T)(a) ? (T)(a) : v_;                                                    \
            v_ = v_ > (T)(b) ? (T)(b) : v_;                                                    \
            (x)[(i) * (w)] = v_;                                                               \
            if ((w) == 2) (x)[(i) * 2 + 1] = (T)0;                                             \
        } else {                                                                               \
            double ss_ = 0.0;                                                                  \
            for (int c_ = 0; c_ < (k); c_++)                                                   \
                for (int q_ = 0; q_ < (w); q_++) {                                             \
                    const double v_ = (double)(x)[((int64_t)c_ * (n) + (i)) * (w) + q_];       \
                    ss_ += v_ * v_;                                                            \
                }                                                                              \
            const T f_ = (T)kri_group_factor((kind), ss_, (a));                                \
            for (int c_ = 0; c_ < (k); c_++)                                                   \
                for (int q_ = 0; q_ < (w); q_++) {                                             \
                    T *p_ = (x) + ((int64_t)c_ * (n) + (i)) * (w) + q_;                        \
                    *p_ = *p_ * f_;                                                            \
                }                                                                              \
        }                                                                                      \
    } while (0)

/* The term of a reduction for element i (double). */
#define KRI_REDUCE_TERM(kind, n, k, w, x, i, a, b, out)                                        \
    do {                                                                                       \
        if ((kind) == KRI_R_GNORM) {                                                           \
            double ss_ = 0.0;                                                                  \
            for (int c_ = 0; c_ < (k); c_++)                                                   \
                for (int q_ = 0; q_ < (w); q_++) {                                             \
                    const double v_ = (double)(x)[((int64_t)c_ * (n) + (i)) * (w) + q_];       \
                    ss_ += v_ * v_;                                                            \
                }                                                                              \
            (out) = sqrt(ss_);                                                                 \
        } else {                                                                               \
            const double v_ = (double)(x)[(i) * (w)];                                          \
            double t_ = 0.0;                                                                   \
            if (v_ < (a)) t_ = (a) - v_;                                                       \
            if (v_ > (b)) t_ = v_ - (b);                                                       \
            if ((w) == 2) t_ += fabs((double)(x)[(i) * 2 + 1]);                                \
            (out) = t_;                                                                        \
        }                                                                                      \
    } while (0)

/* y[i] *= m[i] (w scalars per element; complex product with separately rounded terms). */
#define KRI_MUL(T, w, y, m, i)                                                                 \
    do {                                                                                       \
        if ((w) == 1) {                                                                        \
            (y)[i] = (y)[i] * (m)[i];                                                          \
        } else {                                                                               \
            const T yr_ = (y)[2 * (i)], yi_ = (y)[2 * (i) + 1];                                \
            const T mr_ = (m)[2 * (i)], mi_ = (m)[2 * (i) + 1];                                \
            const T p1_ = yr_ * mr_, p2_ = yi_ * mi_, p3_ = yr_ * mi_, p4_ = yi_ * mr_;        \
            (y)[2 * (i)] = p1_ - p2_;                                                          \
            (y)[2 * (i) + 1] = p3_ + p4_;                                                      \
        }                                                                                      \
    } while (0)

#endif
