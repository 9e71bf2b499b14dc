/* Ramp filters on the CPU (kri_filter_cpu, filter_internal.h): FFT filtering through the core's
 * host line transforms (FFTW) and the direct O(ndet^2) convolution. OpenMP over rows (pairs of
 * rows for the FFT); every row is computed by the same code whatever the thread count, so
 * cpu == cpu-serial bit for bit.
 *
 * The FFT filter packs two real rows into one complex line (x_2p + i x_2p+1, zero-padded to L)
 * and runs each line start to end while it is in cache: weights, forward transform, response,
 * inverse transform, unpacking into the output layout. */
#include "core/fft_internal.h"
#include "ct/filter_internal.h"

#include <omp.h>
#include <string.h>

/* The CPU state of a plan (kri_filter_cpu.create). */
typedef struct kri_filter_host {
    kri_filter_state base;
    void *work;   /* FFT: complex lines of ls elements, one per thread; direct: real
                     [ndet, nrows] x 2 */
    void *kern_t; /* direct: kern in the dtype; FFT: the response (L values) in the dtype */
    int64_t ls;   /* FFT: complex elements per line (L rounded up to 64-byte lines) */
    kri_fft_line *fwd, *bwd;
    int serial; /* small problems: one thread (a parallel region costs more than it saves) */
    int slots;  /* FFT: lines in work, the most threads an execute uses */
} kri_filter_host;

/* The weight row of row r (NULL: none) and its scale (p->pre, p->rs; filter_internal.h). */
static const double *kri_pre_row(const kr_filter_plan *p, int64_t r)
{
    return p->pre ? p->pre + p->ndet * ((r / p->pre_div) % p->pre_rows) : NULL;
}
static double kri_row_scale(const kr_filter_plan *p, int64_t r)
{
    return p->rs ? p->rs[(r / p->rs_div) % p->rs_count] : 1.0;
}

/* dst[m * ds] = in[m] * pre[m] * rs for m < N, in double, rounded to T (the weight is formed
 * as pre[m] then times rs, as one number per sample). */
#define KRI_DEFINE_PACK(T)                                                                         \
    static void kri_pack_##T(const kr_filter_plan *p, int64_t r, const T *restrict in,             \
                             T *restrict dst, int64_t ds)                                          \
    {                                                                                              \
        const int64_t N = p->ndet;                                                                 \
        const double *pre = kri_pre_row(p, r), rs = kri_row_scale(p, r);                           \
        if (pre && p->rs)                                                                          \
            for (int64_t m = 0; m < N; m++) dst[m * ds] = (T)((double)in[m] * (pre[m] * rs));      \
        else if (pre)                                                                              \
            for (int64_t m = 0; m < N; m++) dst[m * ds] = (T)((double)in[m] * pre[m]);             \
        else                                                                                       \
            for (int64_t m = 0; m < N; m++) dst[m * ds] = (T)((double)in[m] * rs);                 \
    }
KRI_DEFINE_PACK(float)
KRI_DEFINE_PACK(double)

/* Row r of the filtered output to the requested layout. q holds the filtered values at
 * positions 0 .. N (index * qs) and at position -1 (index ileft * qs). */
#define KRI_DEFINE_STORE(T)                                                                        \
    static inline T kri_at_##T(const T *q, int64_t qs, int64_t N, int64_t ileft, int64_t pos)      \
    {                                                                                              \
        if (pos >= 0 && pos <= N) return q[pos * qs];                                              \
        return pos == -1 ? q[ileft * qs] : (T)0;                                                   \
    }                                                                                              \
    static void kri_store_##T(const T *q, int64_t qs, int64_t N, int64_t ileft, T *out,            \
                              kri_filter_out mode)                                                 \
    {                                                                                              \
        const int64_t W = KRI_PAD_ROW(N);                                                          \
        if (mode == KRI_FILTER_PLAIN) {                                                            \
            for (int64_t m = 0; m < N; m++) out[m] = q[m * qs];                                    \
            return;                                                                                \
        }                                                                                          \
        if (mode == KRI_FILTER_PLANAR) { /* q_pad, then its differences */                       \
            T *restrict v = out, *restrict dv = out + W;                                           \
            for (int64_t j = 0; j < KRI_PAD + 1; j++)                                              \
                v[j] = kri_at_##T(q, qs, N, ileft, j - KRI_PAD);                                   \
            for (int64_t j = KRI_PAD + 1; j < W - 2; j++) v[j] = q[(j - KRI_PAD) * qs];            \
            for (int64_t j = W - 2; j < W; j++) v[j] = kri_at_##T(q, qs, N, ileft, j - KRI_PAD);   \
            for (int64_t j = 0; j + 1 < W; j++) dv[j] = v[j + 1] - v[j];                           \
            dv[W - 1] = (T)0 - v[W - 1];                                                           \
            return;                                                                                \
        }                                                                                          \
        for (int64_t j = 0; j < W; j++) {                                                          \
            T va = kri_at_##T(q, qs, N, ileft, j - KRI_PAD);                                       \
            T vb = kri_at_##T(q, qs, N, ileft, j - KRI_PAD + 1);                                   \
            out[2 * j] = va;                                                                       \
            out[2 * j + 1] = vb - va;                                                              \
        }                                                                                          \
    }
KRI_DEFINE_STORE(float)
KRI_DEFINE_STORE(double)

/* The parameters of the CPU filters: rows in (stride is), out (stride os) in the layout of mode,
 * nt threads. */
#define KRI_FILTER_ARGS(T)                                                                         \
    const kr_filter_plan *p, kri_filter_host *st, const T *in, int64_t is, T *out, int64_t os,     \
        kri_filter_out mode, int nt

/* Pair pr = rows 2 pr and 2 pr + 1 in line c (complex, interleaved): packed, transformed,
 * multiplied by the response h, transformed back and stored. */
#define KRI_DEFINE_CPU_FFT(T)                                                                      \
    static kr_status kri_cpu_filter_fft_##T(KRI_FILTER_ARGS(T))                                    \
    {                                                                                              \
        const int64_t N = p->ndet, L = p->L, R = p->nrows, P = p->npairs;                          \
        T *w = (T *)st->work;                                                                      \
        const T *h = (const T *)st->kern_t;                                                        \
        _Pragma("omp parallel for num_threads(nt) schedule(static)") for (int64_t pr = 0; pr < P;  \
                                                                          pr++)                    \
        {                                                                                          \
            T *restrict c = w + 2 * st->ls * omp_get_thread_num(); /* this thread's line */        \
            const int64_t r0 = 2 * pr, r1 = 2 * pr + 1;                                            \
            kri_pack_##T(p, r0, in + r0 * is, c, 2);                                               \
            if (r1 < R)                                                                            \
                kri_pack_##T(p, r1, in + r1 * is, c + 1, 2);                                       \
            else                                                                                   \
                for (int64_t m = 0; m < N; m++) c[2 * m + 1] = (T)0;                               \
            memset(c + 2 * N, 0, (size_t)(2 * (L - N)) * sizeof(T));                               \
            kri_fft_line_execute(st->fwd, c);                                                      \
            for (int64_t k = 0; k < L; k++) {                                                      \
                c[2 * k] *= h[k];                                                                  \
                c[2 * k + 1] *= h[k];                                                              \
            }                                                                                      \
            kri_fft_line_execute(st->bwd, c);                                                      \
            kri_store_##T(c, 2, N, L - 1, out + r0 * os, mode);                                    \
            if (r1 < R) kri_store_##T(c + 1, 2, N, L - 1, out + r1 * os, mode);                    \
        }                                                                                          \
        return KR_OK;                                                                              \
    }
KRI_DEFINE_CPU_FFT(float)
KRI_DEFINE_CPU_FFT(double)

/* y[k] = sum_m kern[|k - m|] x[m] (lags < ndet) for k = 0 .. N-1, and in PAIRS / PLANAR mode
 * also for k = N (stored at index N) and k = -1 (index N + 1). */
#define KRI_DEFINE_CPU_DIRECT(T)                                                                   \
    static kr_status kri_cpu_filter_direct_##T(KRI_FILTER_ARGS(T))                                 \
    {                                                                                              \
        const int64_t N = p->ndet, R = p->nrows;                                                   \
        T *x = (T *)st->work; /* pre-weighted copy, [N, R] */                                      \
        T *y = x + N * R;    /* convolved rows, [N + 2, R] */                                      \
        const T *h = (const T *)st->kern_t;                                                        \
        _Pragma("omp parallel for num_threads(nt) schedule(static)") for (int64_t r = 0; r < R;    \
                                                                          r++)                     \
        {                                                                                          \
            T *xr = x + r * N;                                                                     \
            T *yr = y + r * (N + 2);                                                               \
            kri_pack_##T(p, r, in + r * is, xr, 1);                                                \
            for (int64_t k = 0; k < N; k++) {                                                      \
                T acc = 0;                                                                         \
                for (int64_t m = 0; m < k; m++) acc += h[k - m] * xr[m];                           \
                for (int64_t m = k; m < N; m++) acc += h[m - k] * xr[m];                           \
                yr[k] = acc;                                                                       \
            }                                                                                      \
            if (mode != KRI_FILTER_PLAIN) {                                                        \
                T ar = 0, al = 0;                                                                  \
                for (int64_t m = 1; m < N; m++) ar += h[N - m] * xr[m];     /* position N */       \
                for (int64_t m = 0; m + 1 < N; m++) al += h[m + 1] * xr[m]; /* position -1 */      \
                yr[N] = ar;                                                                        \
                yr[N + 1] = al;                                                                    \
            }                                                                                      \
            kri_store_##T(yr, 1, N, N + 1, out + r * os, mode);                                    \
        }                                                                                          \
        return KR_OK;                                                                              \
    }
KRI_DEFINE_CPU_DIRECT(float)
KRI_DEFINE_CPU_DIRECT(double)


/* ---- the CPU table --------------------------------------------------------------------------- */
static void kri_filter_cpu_destroy(kri_filter_state *state)
{
    kri_filter_host *st = (kri_filter_host *)state;
    if (!st) return;
    kri_fft_line_destroy(st->fwd);
    kri_fft_line_destroy(st->bwd);
    kri_free(st->work);
    kri_free(st->kern_t);
    kri_free(st);
}

/* The table t (n doubles) in the dtype, into a new buffer *out. */
static kr_status kri_table_as(void **out, kr_dtype dt, const double *t, int64_t n, const char *what)
{
    KRI_TRY(kri_alloc(out, (size_t)n * kr_dtype_size(dt), what));
    for (int64_t i = 0; i < n; i++) {
        if (dt == KR_F32)
            ((float *)*out)[i] = (float)t[i];
        else
            ((double *)*out)[i] = t[i];
    }
    return KR_OK;
}

/* The buffers, transforms and tables of plan p into st. */
static kr_status kri_filter_cpu_make(const kr_filter_plan *p, kri_filter_host *st)
{
    const kr_dtype dt = p->o.dtype;
    const size_t es = kr_dtype_size(dt);
    if (p->o.method != KR_FILTER_FFT) {
        KRI_TRY(kri_alloc(&st->work, (size_t)((2 * p->ndet + 2) * p->nrows) * es, "filter work"));
        return kri_table_as(&st->kern_t, dt, p->kern, p->ndet, "filter kernel");
    }
    /* Below ~2^16 complex samples the whole FFT filter takes well under a millisecond on one
     * core; a parallel region would cost more than it saves (results do not depend on the
     * thread count either way). */
    st->serial = p->L * p->npairs < ((int64_t)1 << 16);
    const int64_t per64 = (int64_t)(64 / (2 * es)); /* complex elements per 64 bytes */
    st->ls = (p->L + per64 - 1) / per64 * per64;
    /* one line per thread: a pair is packed, transformed and stored by one thread alone */
    const int64_t th = st->serial ? 1 : kri_threads(p->ctx);
    st->slots = (int)(th < p->npairs ? th : p->npairs);
    if (st->slots < 1) st->slots = 1;
    KRI_TRY(kri_alloc(&st->work, (size_t)(st->ls * st->slots) * 2 * es, "filter work"));
    KRI_TRY(kri_table_as(&st->kern_t, dt, p->resp, p->L, "filter response"));
    KRI_TRY(kri_fft_line_create(&st->fwd, kr_dtype_complex(dt), p->L, KR_FFT_FORWARD));
    return kri_fft_line_create(&st->bwd, kr_dtype_complex(dt), p->L, KR_FFT_BACKWARD);
}

static kr_status kri_filter_cpu_create(const kr_filter_plan *p, kri_filter_state **out)
{
    *out = NULL;
    kri_filter_host *st = kri_calloc(1, sizeof *st);
    if (!st) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a filter plan");
    kr_status s = kri_filter_cpu_make(p, st);
    if (s == KR_OK)
        *out = &st->base;
    else
        kri_filter_cpu_destroy(&st->base);
    return s;
}

static kr_status kri_filter_cpu_run(const kr_filter_plan *p, kri_filter_state *state,
                                   const void *in, int64_t in_stride, void *out,
                                   int64_t out_stride, kri_filter_out mode)
{
    kri_filter_host *st = (kri_filter_host *)state;
    const int f64 = p->o.dtype == KR_F64;
    int nt = st->serial ? 1 : kri_threads(p->ctx);
    if (p->o.method == KR_FILTER_FFT && nt > st->slots) nt = st->slots; /* its scratch lines */
    if (p->o.method == KR_FILTER_FFT)
        return f64 ? kri_cpu_filter_fft_double(p, st, in, in_stride, out, out_stride, mode, nt)
                   : kri_cpu_filter_fft_float(p, st, in, in_stride, out, out_stride, mode, nt);
    return f64 ? kri_cpu_filter_direct_double(p, st, in, in_stride, out, out_stride, mode, nt)
               : kri_cpu_filter_direct_float(p, st, in, in_stride, out, out_stride, mode, nt);
}

const kri_filter_backend kri_filter_cpu = {{"cpu", true}, kri_filter_cpu_create, kri_filter_cpu_run,
                                           NULL, NULL, kri_filter_cpu_destroy};
