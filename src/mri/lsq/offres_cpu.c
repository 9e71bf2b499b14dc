/* The off-resonance operators' steps on the CPU (offres_internal.h): OpenMP over outputs, each
 * written by one thread with its sum in index order in double (identical bits for any thread
 * count). */
#include "internal.h"
#include "mri/lsq/offres_internal.h"
#include "mri/mri_internal.h"
#include "mri/lsq/offres_kern.h"

#include <complex.h>
#include <math.h>

static inline double complex ld(kr_dtype t, const void *p, int64_t i)
{
    if (t == KR_C64) {
        const float *f = (const float *)p;
        return CMPLX((double)f[2 * i], (double)f[2 * i + 1]);
    }
    const double *d = (const double *)p;
    return CMPLX(d[2 * i], d[2 * i + 1]);
}

static inline void st(kr_dtype t, void *p, int64_t i, double complex v)
{
    if (t == KR_C64) {
        float *f = (float *)p;
        f[2 * i] = (float)creal(v);
        f[2 * i + 1] = (float)cimag(v);
    } else {
        double *d = (double *)p;
        d[2 * i] = creal(v);
        d[2 * i + 1] = cimag(v);
    }
}

static kr_status kri_cpu_offres_expand(const kr_ctx *ctx, kr_dtype t, int64_t P, int L,
                                       const void *x, const void *w, int cj, void *X)
{
    const int nthreads = kri_threads(ctx);
    int64_t tot = P * L;
#pragma omp parallel for num_threads(nthreads) schedule(static)
    for (int64_t j = 0; j < tot; j++) {
        double complex a = ld(t, w, j);
        st(t, X, j, (cj ? conj(a) : a) * ld(t, x, j % P));
    }
    return KR_OK;
}

static kr_status kri_cpu_offres_combine(const kr_ctx *ctx, kr_dtype t, int64_t P, int L,
                                        const void *X, const void *w, int cj, void *x)
{
    const int nthreads = kri_threads(ctx);
#pragma omp parallel for num_threads(nthreads) schedule(static)
    for (int64_t p = 0; p < P; p++) {
        double complex s = 0;
        for (int l = 0; l < L; l++) {
            double complex a = ld(t, w, (int64_t)l * P + p);
            s += (cj ? conj(a) : a) * ld(t, X, (int64_t)l * P + p);
        }
        st(t, x, p, s);
    }
    return KR_OK;
}

static kr_status kri_cpu_offres_exact(const kr_ctx *ctx, kr_dtype t, const int64_t n[3],
                                      int64_t M, const double *k, const double *f,
                                      const double *tm, int adj, int64_t B, const void *in,
                                      void *out)
{
    const int nthreads = kri_threads(ctx);
    const int64_t N = n[0] * n[1] * n[2];
    const int64_t nout = adj ? N : M, nin = adj ? M : N;
    const double sgn = adj ? 1.0 : -1.0;
    const int64_t nchunk = (B + KRI_OFFRES_BCHUNK - 1) / KRI_OFFRES_BCHUNK;
#pragma omp parallel for num_threads(nthreads) schedule(static) collapse(2)
    for (int64_t bc = 0; bc < nchunk; bc++)
        for (int64_t o = 0; o < nout; o++) {
            const int64_t b0 = bc * KRI_OFFRES_BCHUNK;
            const int nb = (int)(B - b0 < KRI_OFFRES_BCHUNK ? B - b0 : KRI_OFFRES_BCHUNK);
            double sr[KRI_OFFRES_BCHUNK] = {0}, si[KRI_OFFRES_BCHUNK] = {0};
            for (int64_t q = 0; q < nin; q++) {
                const int64_t m = adj ? q : o, i = adj ? o : q;
                const double p = KRI_2PI * kri_offres_phase(n[0], n[1], n[2], k, m, i, f, tm);
                const double c = cos(p), s = sgn * sin(p);
                for (int b = 0; b < nb; b++) {
                    const double complex v = ld(t, in, (b0 + b) * nin + q);
                    sr[b] += creal(v) * c - cimag(v) * s;
                    si[b] += creal(v) * s + cimag(v) * c;
                }
            }
            for (int b = 0; b < nb; b++) st(t, out, (b0 + b) * nout + o, CMPLX(sr[b], si[b]));
        }
    return KR_OK;
}

const kri_offres_backend kri_offres_cpu = {{"cpu", true}, kri_cpu_offres_expand,
                                           kri_cpu_offres_combine, kri_cpu_offres_exact};
