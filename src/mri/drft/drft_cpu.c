/* DrFT on the CPU: the float64 reference and the float32 OpenMP path.
 *
 * float64: phase p = k/n . x in double, reduced exactly to r = p - rint(p) in [-1/2, 1/2], then
 * libm sin/cos of 2 pi r. float32: the phase is a wrapping 32-bit fixed-point number
 * P = sum_d kf_d x_d (mod 2^32) = 2^32 frac(k/n . x), exact apart from the quantisation of k/n
 * to 2^-32; its top two bits pick the quadrant and the remaining angle, |a| <= pi/4, goes
 * through short Taylor polynomials (error < 2e-9 before float rounding). Sums run in float over
 * chunks of KRI_DRFT_CHUNK terms and are added into double accumulators, so the rounding error of
 * the sum grows with sqrt(chunk) rather than with M.
 * Every output is computed by one thread in a fixed order: bits do not depend on thread count.
 */
#include "mri/drft/drft_internal.h"
#include "mri/mri_internal.h"

#include <math.h>
#include <string.h>

#define KRI_DRFT_CHUNK 256

static inline void kri_sincos_q(uint32_t p, float *s, float *c)
{
    uint32_t q = (p + 0x20000000u) >> 30;               /* nearest quarter turn */
    int32_t u = (int32_t)(p - (q << 30));                 /* |u| <= 2^29 */
    float a = (float)u * (float)(KRI_2PI / 4294967296.0); /* |a| <= pi/4 */
    float a2 = a * a;
    float sn = a * (1.0f + a2 * (-1.6666667e-1f + a2 * (8.3333333e-3f +
                    a2 * (-1.9841270e-4f + a2 * 2.7557319e-6f))));
    float cs = 1.0f + a2 * (-0.5f + a2 * (4.1666667e-2f + a2 * (-1.3888889e-3f +
                    a2 * (2.4801587e-5f + a2 * -2.7557319e-7f))));
    float sw = (float)(q & 1u), sgs = 1.0f - (float)(q & 2u), sgc = 1.0f - (float)((q + 1u) & 2u);
    /* q = 0: (s, c); 1: (c, -s); 2: (-s, -c); 3: (-c, s) */
    *s = (sw * cs + (1.0f - sw) * sn) * sgs;
    *c = (sw * sn + (1.0f - sw) * cs) * sgc;
}

void kri_sincos_fixed(uint32_t p, float *s, float *c) { kri_sincos_q(p, s, c); }

static int64_t kri_numel(const kri_drft_grid *g) { return g->g[0] * g->g[1] * g->g[2]; }

/* Coefficient of sample m in adjoint mode. */
static inline void kri_coef64(const kri_drft_data *d, int mode, const double *in, int64_t m,
                              double *cr, double *ci)
{
    double a = d->adj64 ? d->adj64[m] : 1.0;
    if (mode == KRI_DRFT_Q) {
        double f = d->fwd64 ? d->fwd64[m] : 1.0;
        *cr = a * f, *ci = 0.0;
    } else {
        *cr = a * in[2 * m], *ci = a * in[2 * m + 1];
    }
}

static inline void kri_coef32(const kri_drft_data *d, int mode, const float *in, int64_t m,
                              float *cr, float *ci)
{
    float a = d->adj32 ? d->adj32[m] : 1.0f;
    if (mode == KRI_DRFT_Q) {
        float f = d->fwd32 ? d->fwd32[m] : 1.0f;
        *cr = a * f, *ci = 0.0f;
    } else {
        *cr = a * in[2 * m], *ci = a * in[2 * m + 1];
    }
}

/* ---- float64 ------------------------------------------------------------------------------ */
void kri_cpu_drft_adjoint_point(const kri_drft_data *d, const kri_drft_grid *g, int mode,
                                const double *in, int64_t ix, int64_t iy, int64_t iz, double out[2])
{
    const double x = (double)(ix - g->o[0]), y = (double)(iy - g->o[1]), z = (double)(iz - g->o[2]);
    double re = 0.0, im = 0.0;
    for (int64_t m = 0; m < d->m; m++) {
        const double *k = d->k64 + 3 * m;
        double p = k[0] * x + k[1] * y + k[2] * z;
        double r = KRI_2PI * (p - rint(p));
        double s = sin(r), c = cos(r), cr, ci;
        kri_coef64(d, mode, in, m, &cr, &ci);
        re += cr * c - ci * s;
        im += cr * s + ci * c;
    }
    out[0] = re, out[1] = im;
}

static kr_status kri_cpu_drft_adjoint_f64(const kri_drft_data *d, const kri_drft_grid *g,
                                          int mode, const double *in, int64_t batch, double *out,
                                          int nthreads)
{
    const int64_t nvox = kri_numel(g), rows = g->g[1] * g->g[2];
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 1)
    for (int64_t rb = 0; rb < rows * batch; rb++) {
        int64_t b = rb / rows, row = rb % rows, iy = row % g->g[1], iz = row / g->g[1];
        const double *src = mode == KRI_DRFT_Q ? NULL : in + 2 * d->m * b;
        double *dst = out + 2 * (nvox * b + row * g->g[0]);
        for (int64_t ix = 0; ix < g->g[0]; ix++)
            kri_cpu_drft_adjoint_point(d, g, mode, src, ix, iy, iz, dst + 2 * ix);
    }
    return KR_OK;
}

void kri_cpu_drft_forward_point(const kri_drft_data *d, const kri_drft_grid *g, const double *in,
                                int64_t m, double out[2])
{
    const double *k = d->k64 + 3 * m;
    double re = 0.0, im = 0.0;
    int64_t v = 0;
    for (int64_t iz = 0; iz < g->g[2]; iz++)
        for (int64_t iy = 0; iy < g->g[1]; iy++) {
            double pyz = k[1] * (double)(iy - g->o[1]) + k[2] * (double)(iz - g->o[2]);
            for (int64_t ix = 0; ix < g->g[0]; ix++, v++) {
                double p = k[0] * (double)(ix - g->o[0]) + pyz;
                double r = KRI_2PI * (p - rint(p));
                double s = sin(r), c = cos(r), vr = in[2 * v], vi = in[2 * v + 1];
                /* times exp(-i r) */
                re += vr * c + vi * s;
                im += vi * c - vr * s;
            }
        }
    double f = d->fwd64 ? d->fwd64[m] : 1.0;
    out[0] = re * f, out[1] = im * f;
}

static kr_status kri_cpu_drft_forward_f64(const kri_drft_data *d, const kri_drft_grid *g,
                                          const double *in, int64_t batch, double *out,
                                          int nthreads)
{
    const int64_t nvox = kri_numel(g), m = d->m;
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 16)
    for (int64_t mb = 0; mb < m * batch; mb++) {
        int64_t b = mb / m, s = mb % m;
        kri_cpu_drft_forward_point(d, g, in + 2 * nvox * b, s, out + 2 * (m * b + s));
    }
    return KR_OK;
}

/* ---- float32 ------------------------------------------------------------------------------ */
typedef struct kri_rowbuf {
    float *pr, *pi;
    double *ar, *ai;
} kri_rowbuf;

static kr_status kri_rowbufs(kri_rowbuf **rb, int nt, int64_t len)
{
    size_t bytes = (size_t)nt * sizeof(kri_rowbuf) +
                   (size_t)nt * (size_t)len * 2 * (sizeof(float) + sizeof(double));
    char *p = NULL;
    KRI_TRY(kri_alloc((void **)&p, bytes, "DrFT row buffers"));
    *rb = (kri_rowbuf *)p;
    char *q = p + (size_t)nt * sizeof(kri_rowbuf);
    for (int t = 0; t < nt; t++) {
        (*rb)[t].ar = (double *)q, q += (size_t)len * sizeof(double);
        (*rb)[t].ai = (double *)q, q += (size_t)len * sizeof(double);
        (*rb)[t].pr = (float *)q, q += (size_t)len * sizeof(float);
        (*rb)[t].pi = (float *)q, q += (size_t)len * sizeof(float);
    }
    return KR_OK;
}

#ifdef _OPENMP
#include <omp.h>
#define KRI_TID() omp_get_thread_num()
#else
#define KRI_TID() 0
#endif

static kr_status kri_cpu_drft_adjoint_f32(const kri_drft_data *d, const kri_drft_grid *g,
                                          int mode, const float *in, int64_t batch, float *out,
                                          int nthreads)
{
    const int64_t nvox = kri_numel(g), rows = g->g[1] * g->g[2], gx = g->g[0], m = d->m;
    kri_rowbuf *rb = NULL;
    KRI_TRY(kri_rowbufs(&rb, nthreads, gx));
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 1)
    for (int64_t t = 0; t < rows * batch; t++) {
        kri_rowbuf *B = &rb[KRI_TID()];
        int64_t b = t / rows, row = t % rows, iy = row % g->g[1], iz = row / g->g[1];
        const float *src = mode == KRI_DRFT_Q ? NULL : in + 2 * m * b;
        const uint32_t y = (uint32_t)(iy - g->o[1]), z = (uint32_t)(iz - g->o[2]);
        const uint32_t x0 = (uint32_t)(-g->o[0]);
        float *restrict pr = B->pr, *restrict pi = B->pi;
        double *restrict ar = B->ar, *restrict ai = B->ai;
        for (int64_t ix = 0; ix < gx; ix++) ar[ix] = ai[ix] = 0.0;
        for (int64_t c0 = 0; c0 < m; c0 += KRI_DRFT_CHUNK) {
            int64_t c1 = c0 + KRI_DRFT_CHUNK < m ? c0 + KRI_DRFT_CHUNK : m;
            for (int64_t ix = 0; ix < gx; ix++) pr[ix] = pi[ix] = 0.0f;
            for (int64_t s = c0; s < c1; s++) {
                const uint32_t *kf = d->kf + 4 * s;
                const uint32_t p0 = kf[0] * x0 + kf[1] * y + kf[2] * z, kx = kf[0];
                float cr, ci;
                kri_coef32(d, mode, src, s, &cr, &ci);
#pragma omp simd
                for (int64_t ix = 0; ix < gx; ix++) {
                    float sn, cs;
                    kri_sincos_q(p0 + kx * (uint32_t)ix, &sn, &cs);
                    pr[ix] += cr * cs - ci * sn;
                    pi[ix] += cr * sn + ci * cs;
                }
            }
            for (int64_t ix = 0; ix < gx; ix++) ar[ix] += pr[ix], ai[ix] += pi[ix];
        }
        float *dst = out + 2 * (nvox * b + row * gx);
        for (int64_t ix = 0; ix < gx; ix++) dst[2 * ix] = (float)ar[ix], dst[2 * ix + 1] = (float)ai[ix];
    }
    kri_free(rb);
    return KR_OK;
}

static kr_status kri_cpu_drft_forward_f32(const kri_drft_data *d, const kri_drft_grid *g,
                                          const float *in, int64_t batch, float *out,
                                          int nthreads)
{
    const int64_t nvox = kri_numel(g), rows = g->g[1] * g->g[2], gx = g->g[0], m = d->m;
    const uint32_t x0 = (uint32_t)(-g->o[0]);
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 16)
    for (int64_t t = 0; t < m * batch; t++) {
        int64_t b = t / m, s = t % m;
        const float *img = in + 2 * nvox * b;
        const uint32_t *kf = d->kf + 4 * s;
        /* exp(-i 2 pi k.x/n): negate the wrapping phase */
        const uint32_t kx = 0u - kf[0], ky = 0u - kf[1], kz = 0u - kf[2];
        double re = 0.0, im = 0.0;
        for (int64_t row = 0; row < rows; row++) {
            int64_t iy = row % g->g[1], iz = row / g->g[1];
            const uint32_t p0 = kx * x0 + ky * (uint32_t)(iy - g->o[1]) + kz * (uint32_t)(iz - g->o[2]);
            const float *v = img + 2 * row * gx;
            float sr = 0.0f, si = 0.0f;
#pragma omp simd reduction(+ : sr, si)
            for (int64_t ix = 0; ix < gx; ix++) {
                float sn, cs;
                kri_sincos_q(p0 + kx * (uint32_t)ix, &sn, &cs);
                float vr = v[2 * ix], vi = v[2 * ix + 1];
                sr += vr * cs - vi * sn;
                si += vr * sn + vi * cs;
            }
            re += (double)sr, im += (double)si;
        }
        float f = d->fwd32 ? d->fwd32[s] : 1.0f;
        out[2 * (m * b + s)] = (float)re * f;
        out[2 * (m * b + s) + 1] = (float)im * f;
    }
    return KR_OK;
}

/* ---- the CPU table -------------------------------------------------------------------------- */
static kr_status kri_cpu_drft_prepare(const kr_ctx *ctx, const kri_drft_data *d,
                                      kri_drft_dev **dev)
{
    (void)ctx, (void)d;
    *dev = NULL; /* the CPU reads the plan's host arrays */
    return KR_OK;
}

static void kri_cpu_drft_release(kri_drft_dev *dev) { (void)dev; }

static kr_status kri_cpu_drft_adjoint(const kr_ctx *ctx, kri_drft_dev *dev, const kri_drft_data *d,
                                      const kri_drft_grid *g, int mode, kr_dtype dtype,
                                      const void *in, int64_t batch, void *out,
                                      const kr_drft_opts *o)
{
    (void)dev, (void)o;
    int nt = kri_threads(ctx);
    if (dtype == KR_C128)
        return kri_cpu_drft_adjoint_f64(d, g, mode, (const double *)in, batch, (double *)out, nt);
    return kri_cpu_drft_adjoint_f32(d, g, mode, (const float *)in, batch, (float *)out, nt);
}

static kr_status kri_cpu_drft_forward(const kr_ctx *ctx, kri_drft_dev *dev, const kri_drft_data *d,
                                      const kri_drft_grid *g, kr_dtype dtype, const void *in,
                                      int64_t batch, void *out, const kr_drft_opts *o)
{
    (void)dev, (void)o;
    int nt = kri_threads(ctx);
    if (dtype == KR_C128)
        return kri_cpu_drft_forward_f64(d, g, (const double *)in, batch, (double *)out, nt);
    return kri_cpu_drft_forward_f32(d, g, (const float *)in, batch, (float *)out, nt);
}

const kri_drft_backend kri_drft_cpu = {{"cpu", true}, kri_cpu_drft_prepare, kri_cpu_drft_release,
                                       kri_cpu_drft_adjoint, kri_cpu_drft_forward};
