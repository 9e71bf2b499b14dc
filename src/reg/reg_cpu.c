/* The reg kernels on the host (kri_reg_cpu): OpenMP loops over output elements calling the
 * per-element math of reg_kern.h (one writer per output); reductions sum fixed chunks of
 * KRI_REG_CHUNK elements in order and add the chunk sums in order, so every result is
 * bit-identical for any thread count. */
#include "internal.h"
#include "reg_internal.h"
#include "reg_kern.h"

#include <math.h>

#define KRI_REG_CHUNK 4096
#define KRI_REG_PAR_MIN 16384

static int kri_w(kr_dtype t) { return kr_dtype_is_complex(t) ? 2 : 1; }
static int kri_single(kr_dtype t) { return t == KR_F32 || t == KR_C64; }

static kr_status kri_cpu_fdiff(const kr_ctx *ctx, kr_dtype t, const kri_fdiff_desc *d,
                               const void *in, void *out, int adjoint)
{
    const int nt = kri_threads(ctx), w = kri_w(t);
    const int64_t ne = (adjoint ? d->s.n : d->s.n * d->naxes) * w;
#define KRI_FD_LOOP(T)                                                                         \
    do {                                                                                       \
        const T *x = in;                                                                       \
        T *z = out;                                                                            \
        _Pragma("omp parallel for num_threads(nt) schedule(static) if (ne > KRI_REG_PAR_MIN)") \
        for (int64_t e = 0; e < ne; e++) {                                                     \
            if (adjoint)                                                                       \
                KRI_FDIFF_ADJ(T, d, x, z, e, w);                                               \
            else                                                                               \
                KRI_FDIFF_FWD(T, d, x, z, e, w);                                               \
        }                                                                                      \
    } while (0)
    if (kri_single(t))
        KRI_FD_LOOP(float);
    else
        KRI_FD_LOOP(double);
#undef KRI_FD_LOOP
    return KR_OK;
}

/* One DWT step by lines: the array is [inner (stride st), axis (n), outer]; each (outer, p)
 * pair is one output line segment of st elements, computed from the taps' source rows with the
 * arithmetic of KRI_DWT_STEP (double accumulation in tap order), so the result is the same
 * bit for bit, whoever computes it. Elements outside the region are copied. */
#define KRI_DWT_LINES(T)                                                                       \
    do {                                                                                       \
        const T *x = in;                                                                       \
        T *y = out;                                                                            \
        _Pragma("omp parallel for num_threads(nt) schedule(static) if (ne > KRI_REG_PAR_MIN)") \
        for (int64_t op = 0; op < no * n; op++) {                                              \
            const int64_t o = op / n, p = op % n, row = (o * n + p) * st;                      \
            T *yr = y + row * w;                                                               \
            const T *xr = x + row * w;                                                         \
            if (!oin[o] || p >= L) {                                                           \
                for (int64_t q = 0; q < st * w; q++) yr[q] = xr[q];                            \
                continue;                                                                      \
            }                                                                                  \
            const int64_t *src = tab + p * 2 * KRI_WAVELET_MAXTAPS;                            \
            const double *f = ftab + p * 2 * KRI_WAVELET_MAXTAPS;                              \
            const int cnt = cnt_[p];                                                           \
            const T *xb = x + o * n * st * w;                                                  \
            for (int64_t q = 0; q < st * w; q++) {                                             \
                if (!iin[q / w]) {                                                             \
                    yr[q] = xr[q];                                                             \
                    continue;                                                                  \
                }                                                                              \
                double acc = 0.0;                                                              \
                for (int c = 0; c < cnt; c++) acc += f[c] * (double)xb[src[c] + q];            \
                yr[q] = (T)acc;                                                                \
            }                                                                                  \
        }                                                                                      \
    } while (0)

/* Per output position p < L of the step: the source rows (as scalar offsets in the line) and
 * filter taps in the order KRI_DWT_STEP adds them. */
static void kri_dwt_table(const kri_dwt_desc *d, int inverse, int64_t L, int64_t rowlen,
                          int64_t *tab, double *ftab, int *cnt)
{
    const int64_t H = L / 2;
    for (int64_t p = 0; p < L; p++) {
        int64_t *src = tab + p * 2 * KRI_WAVELET_MAXTAPS;
        double *f = ftab + p * 2 * KRI_WAVELET_MAXTAPS;
        int c = 0;
        if (!inverse) {
            const int hi = p >= H;
            const int64_t k = hi ? p - H : p;
            for (int j = 0; j < d->taps; j++) {
                src[c] = (2 * k + j) % L * rowlen;
                f[c++] = hi ? kri_dwt_g(d, j) : d->h[j];
            }
        } else {
            for (int j = 0; j < d->taps; j++) {
                const int64_t r = ((p - j) % L + L) % L;
                if (r & 1) continue;
                src[c] = r / 2 * rowlen;
                f[c++] = d->h[j];
                src[c] = (H + r / 2) * rowlen;
                f[c++] = kri_dwt_g(d, j);
            }
        }
        cnt[p] = c;
    }
}

static kr_status kri_cpu_dwt(const kr_ctx *ctx, kr_dtype t, const kri_dwt_desc *d,
                             const void *in, void *out, int inverse)
{
    const int nt = kri_threads(ctx), w = kri_w(t), ax = d->axis;
    const int64_t ne = d->s.n * w, st = d->s.stride[ax], n = d->s.dims[ax];
    const int64_t no = d->s.n / (st * n), L = d->region[ax];
    /* inside the region along the other axes: inner elements and outer lines */
    uint8_t *iin = kri_malloc((size_t)st), *oin = kri_malloc((size_t)no);
    int64_t *tab = kri_malloc(sizeof *tab * (size_t)(L * 2 * KRI_WAVELET_MAXTAPS));
    double *ftab = kri_malloc(sizeof *ftab * (size_t)(L * 2 * KRI_WAVELET_MAXTAPS));
    int *cnt_ = kri_malloc(sizeof *cnt_ * (size_t)L);
    if (!iin || !oin || !tab || !ftab || !cnt_) {
        kri_free(iin), kri_free(oin), kri_free(tab), kri_free(ftab), kri_free(cnt_);
        return kri_fail(KR_ERR_OOM_HOST, "wavelet transform: line tables");
    }
    for (int64_t i = 0; i < st; i++) {
        iin[i] = 1;
        for (int a = 0; a < ax; a++) iin[i] &= kri_coord(&d->s, i, a) < d->region[a];
    }
    for (int64_t o = 0; o < no; o++) {
        oin[o] = 1;
        for (int a = ax + 1; a < d->s.ndim; a++)
            oin[o] &= kri_coord(&d->s, o * st * n, a) < d->region[a];
    }
    kri_dwt_table(d, inverse, L, st * w, tab, ftab, cnt_);
    if (kri_single(t))
        KRI_DWT_LINES(float);
    else
        KRI_DWT_LINES(double);
    kri_free(iin), kri_free(oin), kri_free(tab), kri_free(ftab), kri_free(cnt_);
    return KR_OK;
}
#undef KRI_DWT_LINES

static kr_status kri_cpu_roll(const kr_ctx *ctx, kr_dtype t, const kri_shape *s,
                              const int64_t *shift, const void *in, void *out)
{
    const int nt = kri_threads(ctx), w = kri_w(t);
    const int64_t n = s->n;
#define KRI_ROLL_LOOP(T)                                                                       \
    do {                                                                                       \
        const T *x = in;                                                                       \
        T *y = out;                                                                            \
        _Pragma("omp parallel for num_threads(nt) schedule(static) if (n > KRI_REG_PAR_MIN)")  \
        for (int64_t i = 0; i < n; i++) {                                                      \
            const int64_t j = kri_roll_src(s, shift, i);                                       \
            for (int q = 0; q < w; q++) y[i * w + q] = x[j * w + q];                           \
        }                                                                                      \
    } while (0)
    if (kri_single(t))
        KRI_ROLL_LOOP(float);
    else
        KRI_ROLL_LOOP(double);
#undef KRI_ROLL_LOOP
    return KR_OK;
}

static kr_status kri_cpu_group(const kr_ctx *ctx, kr_dtype t, int kind, int64_t n, int k,
                               void *xv, double a, double b)
{
    const int nt = kri_threads(ctx), w = kri_w(t);
#define KRI_GROUP_LOOP(T)                                                                      \
    do {                                                                                       \
        T *x = xv;                                                                             \
        _Pragma("omp parallel for num_threads(nt) schedule(static) if (n > KRI_REG_PAR_MIN)")  \
        for (int64_t i = 0; i < n; i++) KRI_GROUP(T, kind, n, k, w, x, i, a, b);               \
    } while (0)
    if (kri_single(t))
        KRI_GROUP_LOOP(float);
    else
        KRI_GROUP_LOOP(double);
#undef KRI_GROUP_LOOP
    return KR_OK;
}

static kr_status kri_reg_reduce_cpu(const kr_ctx *ctx, kr_dtype t, int kind, int64_t n, int k,
                                    const void *xv, double a, double b, double *out)
{
    const int nt = kri_threads(ctx), w = kri_w(t);
    const int64_t nchunk = (n + KRI_REG_CHUNK - 1) / KRI_REG_CHUNK;
    double *part = kri_malloc((size_t)(nchunk > 0 ? nchunk : 1) * sizeof *part);
    if (!part) return kri_fail(KR_ERR_OOM_HOST, "reduction partial sums");
#define KRI_RED_LOOP(T)                                                                        \
    do {                                                                                       \
        const T *x = xv;                                                                       \
        _Pragma("omp parallel for num_threads(nt) schedule(static) if (nchunk > 1)")           \
        for (int64_t c = 0; c < nchunk; c++) {                                                 \
            const int64_t i1 = (c + 1) * KRI_REG_CHUNK < n ? (c + 1) * KRI_REG_CHUNK : n;      \
            double s = 0.0;                                                                    \
            for (int64_t i = c * KRI_REG_CHUNK; i < i1; i++) {                                 \
                double v;                                                                      \
                KRI_REDUCE_TERM(kind, n, k, w, x, i, a, b, v);                                 \
                s += v;                                                                        \
            }                                                                                  \
            part[c] = s;                                                                       \
        }                                                                                      \
    } while (0)
    if (kri_single(t))
        KRI_RED_LOOP(float);
    else
        KRI_RED_LOOP(double);
#undef KRI_RED_LOOP
    double s = 0.0;
    for (int64_t c = 0; c < nchunk; c++) s += part[c];
    kri_free(part);
    *out = s;
    return KR_OK;
}

static kr_status kri_cpu_mul(const kr_ctx *ctx, kr_dtype t, int64_t n, void *yv, const void *wv)
{
    const int nt = kri_threads(ctx), w = kri_w(t);
#define KRI_MUL_LOOP(T)                                                                        \
    do {                                                                                       \
        T *y = yv;                                                                             \
        const T *m = wv;                                                                       \
        _Pragma("omp parallel for num_threads(nt) schedule(static) if (n > KRI_REG_PAR_MIN)")  \
        for (int64_t i = 0; i < n; i++) KRI_MUL(T, w, y, m, i);                                \
    } while (0)
    if (kri_single(t))
        KRI_MUL_LOOP(float);
    else
        KRI_MUL_LOOP(double);
#undef KRI_MUL_LOOP
    return KR_OK;
}

const kri_reg_backend kri_reg_cpu = {
    .hdr = {"cpu", true},
    .fdiff = kri_cpu_fdiff,
    .dwt = kri_cpu_dwt,
    .roll = kri_cpu_roll,
    .group = kri_cpu_group,
    .reduce = kri_reg_reduce_cpu,
    .mul = kri_cpu_mul,
};
