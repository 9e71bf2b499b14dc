/* Coil noise: complex Gaussian noise with covariance sigma^2 Psi (counter-based, Box-Muller),
 * sample covariance of noise scans, whitening matrices and coil-matrix application. */
#include "internal.h"
#include "kray/coils.h"
#include "kray/noise.h"
#include "mri/cartesian/sense_internal.h"

#include <math.h>
#include <string.h>

/* Samples per chunk of the covariance sum (fixed: the result does not depend on threads). */
#define KRI_NOISE_CHUNK 4096

typedef struct kri_coil_layout {
    int64_t inner, nc, outer; /* element (i, c, o) at i + inner * (c + nc * o) */
} kri_coil_layout;

static kr_status kri_coil_layout_of(const kr_array *a, int coil_axis, const char *fn,
                                    kri_coil_layout *l)
{
    if (coil_axis < 0 || coil_axis >= a->ndim)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: coil axis %d is outside 0..%d", fn, coil_axis,
                        a->ndim - 1);
    l->inner = 1;
    l->outer = 1;
    for (int i = 0; i < coil_axis; i++) l->inner *= a->dims[i];
    l->nc = a->dims[coil_axis];
    for (int i = coil_axis + 1; i < a->ndim; i++) l->outer *= a->dims[i];
    return KR_OK;
}

kr_status kr_noise_add(const kr_ctx *ctx, kr_array *data, int coil_axis, const kr_array *psi,
                       double sigma, uint64_t seed)
{
    const char *fn = "kr_noise_add";
    KRI_TRY(kri_check_operand(fn, "data", data, KR_C64, KR_HOST));
    if (!(sigma >= 0) || !isfinite(sigma))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: sigma %g must be finite and >= 0", fn, sigma);
    kri_coil_layout l = {1, 1, 1};
    KRI_TRY(kri_coil_layout_of(data, coil_axis, fn, &l));
    kri_zc *lf = NULL;
    if (psi) KRI_TRY(kri_psi_factor(psi, l.nc, fn, 0, &lf));
    if (sigma == 0) {
        kri_free(lf);
        return KR_OK;
    }
    int nt = kri_threads(ctx);
    double *wbuf = NULL;
    kr_status st =
        kri_alloc((void **)&wbuf, sizeof(double) * 2 * (size_t)l.nc * (size_t)nt, "noise scratch");
    if (st != KR_OK) {
        kri_free(lf);
        return st;
    }
    float *x = data->data;
    const int64_t np = l.inner * l.outer, nc = l.nc, inner = l.inner;
    const double two_pi = 6.283185307179586476925286766559;
#pragma omp parallel num_threads(nt)
    {
        double *w = wbuf + (size_t)kri_omp_tid() * 2 * (size_t)nc;
#pragma omp for schedule(static)
        for (int64_t p = 0; p < np; p++) {
            int64_t i = p % inner, o = p / inner;
            for (int64_t c = 0; c < nc; c++) {
                uint64_t q = (uint64_t)p * (uint64_t)nc + (uint64_t)c;
                double u1 = (double)((kri_rand_u64(seed, 2 * q) >> 11) + 1) * 0x1p-53;
                double u2 = (double)(kri_rand_u64(seed, 2 * q + 1) >> 11) * 0x1p-53;
                double r = sqrt(-log(u1));
                w[2 * c] = r * cos(two_pi * u2);
                w[2 * c + 1] = r * sin(two_pi * u2);
            }
            for (int64_t rr = 0; rr < nc; rr++) {
                double nr, ni;
                if (lf) {
                    nr = ni = 0;
                    for (int64_t c = 0; c <= rr; c++) {
                        kri_zc m = lf[rr + nc * c];
                        nr += creal(m) * w[2 * c] - cimag(m) * w[2 * c + 1];
                        ni += creal(m) * w[2 * c + 1] + cimag(m) * w[2 * c];
                    }
                } else {
                    nr = w[2 * rr];
                    ni = w[2 * rr + 1];
                }
                int64_t e = i + inner * (rr + nc * o);
                x[2 * e] = (float)(x[2 * e] + sigma * nr);
                x[2 * e + 1] = (float)(x[2 * e + 1] + sigma * ni);
            }
        }
    }
    kri_free(wbuf);
    kri_free(lf);
    return KR_OK;
}

kr_status kr_noise_covariance(const kr_ctx *ctx, const kr_array *noise, int coil_axis,
                              kr_array **psi)
{
    const char *fn = "kr_noise_covariance";
    KRI_ARG_NOT_NULL(psi);
    *psi = NULL;
    KRI_TRY(kri_check_operand(fn, "noise", noise, KR_C64, KR_HOST));
    kri_coil_layout l = {1, 1, 1};
    KRI_TRY(kri_coil_layout_of(noise, coil_axis, fn, &l));
    const int64_t np = l.inner * l.outer, nc = l.nc, inner = l.inner;
    if (np < nc)
        return kri_fail(KR_ERR_DIM,
                        "%s: %lld noise samples per coil cannot give a non-singular covariance "
                        "of %lld coils",
                        fn, (long long)np, (long long)nc);
    int64_t nchunk = (np + KRI_NOISE_CHUNK - 1) / KRI_NOISE_CHUNK;
    int64_t nn = nc * nc;
    double *part = NULL;
    KRI_TRY(kri_alloc((void **)&part, sizeof(double) * 2 * (size_t)nn * (size_t)nchunk,
                      "noise covariance partial sums"));
    const float *x = noise->data;
#pragma omp parallel for num_threads(kri_threads(ctx)) schedule(static)
    for (int64_t k = 0; k < nchunk; k++) {
        double *acc = part + 2 * nn * k;
        memset(acc, 0, sizeof(double) * 2 * (size_t)nn);
        int64_t p1 = (k + 1) * KRI_NOISE_CHUNK < np ? (k + 1) * KRI_NOISE_CHUNK : np;
        for (int64_t p = k * KRI_NOISE_CHUNK; p < p1; p++) {
            int64_t i = p % inner, o = p / inner;
            const float *v = x + 2 * (i + inner * nc * o);
            for (int64_t c = 0; c < nc; c++) {
                double cr = v[2 * inner * c], ci = v[2 * inner * c + 1];
                for (int64_t r = 0; r < nc; r++) {
                    double rr = v[2 * inner * r], ri = v[2 * inner * r + 1];
                    /* n_r conj(n_c) */
                    acc[2 * (r + nc * c)] += rr * cr + ri * ci;
                    acc[2 * (r + nc * c) + 1] += ri * cr - rr * ci;
                }
            }
        }
    }
    int64_t dims[2] = {nc, nc};
    kr_status st = kr_array_create(psi, KR_C128, 2, dims, KR_HOST, NULL);
    if (st != KR_OK) {
        kri_free(part);
        return st;
    }
    double *out = (*psi)->data;
    for (int64_t e = 0; e < 2 * nn; e++) {
        double s = 0;
        for (int64_t k = 0; k < nchunk; k++) s += part[2 * nn * k + e];
        out[e] = s / (double)np;
    }
    kri_free(part);
    return KR_OK;
}

kr_status kr_noise_whitener(const kr_array *psi, kr_array **w)
{
    const char *fn = "kr_noise_whitener";
    KRI_ARG_NOT_NULL(w);
    *w = NULL;
    KRI_TRY(kri_check_operand(fn, "psi", psi, KRI_ANY_DTYPE, KR_HOST));
    int64_t nc = psi->dims[0];
    kri_zc *l = NULL;
    KRI_TRY(kri_psi_factor(psi, nc, fn, 1, &l));
    int64_t dims[2] = {nc, nc};
    kr_status st = kr_array_create(w, KR_C128, 2, dims, KR_HOST, NULL);
    if (st == KR_OK) {
        double *o = (*w)->data;
        for (int64_t e = 0; e < nc * nc; e++) {
            o[2 * e] = creal(l[e]);
            o[2 * e + 1] = cimag(l[e]);
        }
    }
    kri_free(l);
    return st;
}

kr_status kr_coil_apply(const kr_ctx *ctx, kr_array *data, int coil_axis, const kr_array *m)
{
    const char *fn = "kr_coil_apply";
    KRI_TRY(kri_check_operand(fn, "data", data, KR_C64, KR_HOST));
    KRI_TRY(kri_check_operand(fn, "matrix", m, KRI_ANY_DTYPE, KR_HOST));
    kri_coil_layout l = {1, 1, 1};
    KRI_TRY(kri_coil_layout_of(data, coil_axis, fn, &l));
    if (m->dtype != KR_C64 && m->dtype != KR_C128)
        return kri_fail(KR_ERR_DTYPE, "%s: matrix has element type %s; expected c64 or c128", fn,
                        kr_dtype_name(m->dtype));
    const int64_t nc = l.nc;
    if (kr_array_rank(m) > 2 || m->dims[0] != nc || (m->ndim > 1 ? m->dims[1] : 1) != nc) {
        char b[96];
        return kri_fail(KR_ERR_DIM, "%s: matrix has %s values; expected %lldx%lld (coils)", fn,
                        kr_dims_string(m->ndim, m->dims, b, sizeof b), (long long)nc,
                        (long long)nc);
    }
    double *md = NULL;
    KRI_TRY(kri_alloc((void **)&md, sizeof(double) * 2 * (size_t)(nc * nc), "coil matrix"));
    for (int64_t e = 0; e < 2 * nc * nc; e++)
        md[e] = m->dtype == KR_C64 ? ((const float *)m->data)[e] : ((const double *)m->data)[e];
    int nt = kri_threads(ctx);
    double *tbuf = NULL;
    kr_status st =
        kri_alloc((void **)&tbuf, sizeof(double) * 2 * (size_t)nc * (size_t)nt, "coil scratch");
    if (st != KR_OK) {
        kri_free(md);
        return st;
    }
    float *x = data->data;
    const int64_t np = l.inner * l.outer, inner = l.inner;
#pragma omp parallel num_threads(nt)
    {
        double *t = tbuf + (size_t)kri_omp_tid() * 2 * (size_t)nc;
#pragma omp for schedule(static)
        for (int64_t p = 0; p < np; p++) {
            float *v = x + 2 * (p % inner + inner * nc * (p / inner));
            for (int64_t r = 0; r < nc; r++) {
                double sr = 0, si = 0;
                for (int64_t c = 0; c < nc; c++) {
                    double ar = md[2 * (r + nc * c)], ai = md[2 * (r + nc * c) + 1];
                    double vr = v[2 * inner * c], vi = v[2 * inner * c + 1];
                    sr += ar * vr - ai * vi;
                    si += ar * vi + ai * vr;
                }
                t[2 * r] = sr;
                t[2 * r + 1] = si;
            }
            for (int64_t r = 0; r < nc; r++) {
                v[2 * inner * r] = (float)t[2 * r];
                v[2 * inner * r + 1] = (float)t[2 * r + 1];
            }
        }
    }
    kri_free(tbuf);
    kri_free(md);
    return KR_OK;
}
