/* Ramp filters on the CPU (kri_filter_cpu, filter_internal.h): FFT filtering through kray/fft.h
 * host plans (FFTW) and the direct O(ndet^2) convolution. OpenMP over rows; every row is computed
 * by the same code whatever the thread count, so cpu == cpu-serial bit for bit. */
#include "ct/filter_internal.h"

#include <string.h>

/* The CPU state of a plan (kri_filter_cpu.create). */
typedef struct kri_filter_host {
    kri_filter_state base;
    void *work;   /* FFT: complex [L, npairs]; direct: real [ndet, nrows] x 2 */
    void *kern_t; /* direct: kern in the dtype */
    kr_fft_plan *fwd, *bwd;
    kr_ctx *serial; /* small problems: one thread (parallel regions cost more than they save),
                       NULL otherwise */
} kri_filter_host;

static double kri_row_weight(const kr_filter_plan *p, int64_t r, int64_t m)
{
    double w = 1.0;
    if (p->pre) w = p->pre[m + p->ndet * ((r / p->pre_div) % p->pre_rows)];
    if (p->rs) w *= p->rs[(r / p->rs_div) % p->rs_count];
    return w;
}

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
        if (mode == KRI_FILTER_PLAIN) {                                                            \
            for (int64_t m = 0; m < N; m++) out[m] = q[m * qs];                                    \
            return;                                                                                \
        }                                                                                          \
        for (int64_t j = 0; j < KRI_PAD_ROW(N); j++) {                                             \
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

#define KRI_DEFINE_CPU_FFT(T)                                                                      \
    static kr_status kri_cpu_filter_fft_##T(KRI_FILTER_ARGS(T))                                    \
    {                                                                                              \
        const int64_t N = p->ndet, L = p->L, R = p->nrows, P = p->npairs;                          \
        T *w = (T *)st->work;                                                                      \
        _Pragma("omp parallel for num_threads(nt) schedule(static)") for (int64_t pr = 0; pr < P;  \
                                                                          pr++)                    \
        {                                                                                          \
            T *c = w + 2 * L * pr;                                                                 \
            int64_t r0 = 2 * pr, r1 = 2 * pr + 1;                                                  \
            for (int64_t m = 0; m < N; m++) {                                                      \
                c[2 * m] = (T)((double)in[r0 * is + m] * kri_row_weight(p, r0, m));                \
                c[2 * m + 1] =                                                                     \
                    r1 < R ? (T)((double)in[r1 * is + m] * kri_row_weight(p, r1, m)) : (T)0;       \
            }                                                                                      \
            for (int64_t m = 2 * N; m < 2 * L; m++) c[m] = (T)0;                                   \
        }                                                                                          \
        kr_array wa;                                                                               \
        int64_t dims[2] = {L, P};                                                                  \
        KRI_TRY(kr_array_wrap(&wa, kr_dtype_complex(p->o.dtype), 2, dims, w, KR_HOST));            \
        KRI_TRY(kr_fft_execute(st->fwd, &wa, &wa));                                                \
        _Pragma("omp parallel for num_threads(nt) schedule(static)") for (int64_t pr = 0; pr < P;  \
                                                                          pr++)                    \
        {                                                                                          \
            T *c = w + 2 * L * pr;                                                                 \
            for (int64_t k = 0; k < L; k++) {                                                      \
                T h = (T)p->resp[k];                                                               \
                c[2 * k] *= h;                                                                     \
                c[2 * k + 1] *= h;                                                                 \
            }                                                                                      \
        }                                                                                          \
        KRI_TRY(kr_fft_execute(st->bwd, &wa, &wa));                                                \
        _Pragma("omp parallel for num_threads(nt) schedule(static)") for (int64_t r = 0; r < R;    \
                                                                          r++)                     \
        {                                                                                          \
            const T *c = w + 2 * L * (r / 2) + (r % 2);                                            \
            kri_store_##T(c, 2, N, L - 1, out + r * os, mode);                                     \
        }                                                                                          \
        return KR_OK;                                                                              \
    }
KRI_DEFINE_CPU_FFT(float)
KRI_DEFINE_CPU_FFT(double)

/* y[k] = sum_m kern[|k - m|] x[m] (lags < ndet) for k = 0 .. N-1, and in PAIRS mode also for
 * k = N (stored at index N) and k = -1 (index N + 1). */
#define KRI_DEFINE_CPU_DIRECT(T)                                                                   \
    static kr_status kri_cpu_filter_direct_##T(KRI_FILTER_ARGS(T))                                 \
    {                                                                                              \
        const int64_t N = p->ndet, R = p->nrows;                                                   \
        T *x = (T *)st->work; /* pre-weighted copy, [N, R] */                                      \
        T *y = x + N * R;    /* convolved rows, [N + 2, R] */                                      \
        const T *h = (const T *)st->kern_t;                                                        \
        _Pragma("omp parallel for num_threads(nt) schedule(static)") for (int64_t r = 0; r < R;    \
                                                                          r++) for (int64_t m = 0; \
                                                                                    m < N; m++)    \
            x[r * N + m] = (T)((double)in[r * is + m] * kri_row_weight(p, r, m));                  \
        _Pragma("omp parallel for num_threads(nt) schedule(static)") for (int64_t r = 0; r < R;    \
                                                                          r++)                     \
        {                                                                                          \
            const T *xr = x + r * N;                                                               \
            T *yr = y + r * (N + 2);                                                               \
            for (int64_t k = 0; k < N; k++) {                                                      \
                T acc = 0;                                                                         \
                for (int64_t m = 0; m < k; m++) acc += h[k - m] * xr[m];                           \
                for (int64_t m = k; m < N; m++) acc += h[m - k] * xr[m];                           \
                yr[k] = acc;                                                                       \
            }                                                                                      \
            if (mode == KRI_FILTER_PAIRS) {                                                        \
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
    kr_fft_plan_destroy(st->fwd);
    kr_fft_plan_destroy(st->bwd);
    kr_ctx_destroy(st->serial);
    kri_free(st->work);
    kri_free(st->kern_t);
    kri_free(st);
}

/* The buffers, transforms and kernel copy of plan p into st. */
static kr_status kri_filter_cpu_make(const kr_filter_plan *p, kri_filter_host *st)
{
    const kr_dtype dt = p->o.dtype;
    const size_t es = kr_dtype_size(dt);
    if (p->o.method != KR_FILTER_FFT) {
        KRI_TRY(kri_alloc(&st->work, (size_t)((2 * p->ndet + 2) * p->nrows) * es, "filter work"));
        KRI_TRY(kri_alloc(&st->kern_t, (size_t)p->ndet * es, "filter kernel"));
        for (int64_t n = 0; n < p->ndet; n++) {
            if (dt == KR_F32)
                ((float *)st->kern_t)[n] = (float)p->kern[n];
            else
                ((double *)st->kern_t)[n] = p->kern[n];
        }
        return KR_OK;
    }
    /* Below ~2^21 complex samples the whole FFT filter takes about a millisecond on one core;
     * OpenMP regions would cost more than they save (results do not depend on the thread count
     * either way). */
    const kr_ctx *fctx = p->ctx;
    if (p->L * p->npairs < ((int64_t)1 << 21)) {
        KRI_TRY(kr_ctx_create(&st->serial, KR_BACKEND_CPU_SERIAL));
        fctx = st->serial;
    }
    const int64_t wdims[2] = {p->L, p->npairs};
    KRI_TRY(kri_alloc(&st->work, (size_t)(p->L * p->npairs) * 2 * es, "filter work"));
    KRI_TRY(kr_fft_plan_create(&st->fwd, fctx, kr_dtype_complex(dt), 2, wdims, 1u, KR_FFT_FORWARD,
                               0, KR_HOST));
    return kr_fft_plan_create(&st->bwd, fctx, kr_dtype_complex(dt), 2, wdims, 1u,
                              KR_FFT_BACKWARD, 0, KR_HOST);
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
    const int nt = st->serial ? 1 : kri_threads(p->ctx);
    if (p->o.method == KR_FILTER_FFT)
        return f64 ? kri_cpu_filter_fft_double(p, st, in, in_stride, out, out_stride, mode, nt)
                   : kri_cpu_filter_fft_float(p, st, in, in_stride, out, out_stride, mode, nt);
    return f64 ? kri_cpu_filter_direct_double(p, st, in, in_stride, out, out_stride, mode, nt)
               : kri_cpu_filter_direct_float(p, st, in, in_stride, out, out_stride, mode, nt);
}

const kri_filter_backend kri_filter_cpu = {{"cpu", true}, kri_filter_cpu_create, kri_filter_cpu_run,
                                           NULL, NULL, kri_filter_cpu_destroy};
