/* The locally-low-rank prox on the CPU (kri_llr_cpu, prox_llr_internal.h): the SVD of each
 * block is a one-sided (Hestenes) Jacobi iteration in double with complex rotations (cyclic
 * pair order), so real and complex data share one code. Blocks are independent (OpenMP over
 * blocks, each block written by one thread): results do not depend on the thread count. */
#include "internal.h"
#include "prox_llr_internal.h"
#include "prox_llr_kern.h"

#include <math.h>
#include <string.h>

/* M (m x n complex, column-major interleaved) <- M V diag(f) V^H with M V = U S (one-sided
 * Jacobi: columns of M V orthogonal, norms s_j), f_j = max(0, s_j - tau) / s_j. Returns the
 * sum of the singular values of the input. work: 2 n n + n doubles. */
static double kri_svt_impl(double *M, int64_t m, int64_t n, double tau, double *V, double *s)
{
    memset(V, 0, (size_t)(2 * n * n) * sizeof *V);
    for (int64_t j = 0; j < n; j++) V[2 * (j * n + j)] = 1.0;
    for (int sweep = 0; sweep < 60; sweep++) {
        double off = 0.0;
        for (int64_t pp = 0; pp < n - 1; pp++)
            for (int64_t q = pp + 1; q < n; q++) {
                double *ap = M + 2 * pp * m, *aq = M + 2 * q * m;
                double al = 0, be = 0, gr = 0, gi = 0;
                for (int64_t i = 0; i < m; i++) {
                    const double pr = ap[2 * i], pi = ap[2 * i + 1];
                    const double qr = aq[2 * i], qi = aq[2 * i + 1];
                    al += pr * pr + pi * pi;
                    be += qr * qr + qi * qi;
                    gr += pr * qr + pi * qi; /* conj(a_p) a_q */
                    gi += pr * qi - pi * qr;
                }
                double er, ei, c, sn, r;
                if (!kri_llr_rotation(al, be, gr, gi, &er, &ei, &c, &sn, &r)) continue;
                if (r > off) off = r;
                for (int k = 0; k < 2; k++) {
                    double *X = k == 0 ? M : V;
                    const int64_t rows = k == 0 ? m : n;
                    double *xp = X + 2 * pp * rows, *xq = X + 2 * q * rows;
                    for (int64_t i = 0; i < rows; i++) {
                        const double pr = xp[2 * i], pi = xp[2 * i + 1];
                        const double qr = xq[2 * i] * er - xq[2 * i + 1] * ei;
                        const double qi = xq[2 * i] * ei + xq[2 * i + 1] * er;
                        xp[2 * i] = c * pr - sn * qr;
                        xp[2 * i + 1] = c * pi - sn * qi;
                        xq[2 * i] = sn * pr + c * qr;
                        xq[2 * i + 1] = sn * pi + c * qi;
                    }
                }
            }
        if (off < 1e-14) break;
    }
    double sum = 0.0;
    for (int64_t j = 0; j < n; j++) {
        double ss = 0.0;
        for (int64_t i = 0; i < m; i++)
            ss += M[2 * (j * m + i)] * M[2 * (j * m + i)] +
                  M[2 * (j * m + i) + 1] * M[2 * (j * m + i) + 1];
        s[j] = sqrt(ss);
        sum += s[j];
    }
    if (tau < 0) return sum;
    /* M V diag(f): scale columns; then times V^H. */
    for (int64_t j = 0; j < n; j++) {
        const double f = s[j] > tau ? (s[j] - tau) / s[j] : 0.0;
        for (int64_t i = 0; i < 2 * m; i++) M[2 * j * m + i] *= f;
    }
    return sum; /* the caller multiplies by V^H */
}

void kri_svt(double *M, int64_t m, int64_t n, double tau, double *work)
{
    double *V = work, *s = work + 2 * n * n, *row = s + n;
    kri_svt_impl(M, m, n, tau, V, s);
    for (int64_t i = 0; i < m; i++) {
        for (int64_t k = 0; k < n; k++) {
            double ar = 0.0, ai = 0.0;
            for (int64_t j = 0; j < n; j++) {
                const double mr = M[2 * (j * m + i)], mi = M[2 * (j * m + i) + 1];
                const double vr = V[2 * (j * n + k)], vi = -V[2 * (j * n + k) + 1];
                ar += mr * vr - mi * vi;
                ai += mr * vi + mi * vr;
            }
            row[2 * k] = ar;
            row[2 * k + 1] = ai;
        }
        for (int64_t k = 0; k < n; k++) {
            M[2 * (k * m + i)] = row[2 * k];
            M[2 * (k * m + i) + 1] = row[2 * k + 1];
        }
    }
}

/* Nuclear norm of M (destroys M). */
static double kri_nuclear(double *M, int64_t m, int64_t n, double *work)
{
    return kri_svt_impl(M, m, n, -1.0, work, work + 2 * n * n);
}

static kr_status kri_cpu_llr_svt(const kr_ctx *ctx, kr_dtype t, const kri_llr_desc *d,
                                 const void *v, void *x, double tau, double *value,
                                 kr_array **scratch)
{
    (void)scratch;
    const int cplx = kr_dtype_is_complex(t), dbl = t == KR_F64 || t == KR_C128;
    const int64_t n = d->n, m = d->mmax, nblocks = d->nblocks;
    double *bsum = value ? kri_calloc((size_t)nblocks, sizeof *bsum) : NULL;
    if (value && !bsum) return kri_fail(KR_ERR_OOM_HOST, "locally-low-rank prox: block sums");
    int fail = 0;
#pragma omp parallel for num_threads(kri_threads(ctx)) schedule(dynamic) reduction(| : fail)
    for (int64_t b = 0; b < nblocks; b++) {
        double *M = kri_malloc((size_t)(2 * m * n + 2 * n * n + 3 * n) * sizeof(double));
        int64_t *idx = kri_malloc((size_t)m * sizeof(int64_t));
        if (!M || !idx) {
            fail |= 1;
            kri_free(M);
            kri_free(idx);
            continue;
        }
        int64_t lo[KR_MAX_DIMS], ext[KR_MAX_DIMS];
        const int64_t cnt = kri_llr_block(d, b, lo, ext);
        for (int64_t k = 0; k < cnt; k++) idx[k] = kri_llr_offset(d, lo, ext, k);
        const int64_t cs = d->stride[d->axis];
        for (int64_t j = 0; j < n; j++)
            for (int64_t k = 0; k < cnt; k++) {
                const int64_t e = idx[k] + j * cs;
                double re, im = 0.0;
                if (dbl) {
                    re = ((const double *)v)[cplx ? 2 * e : e];
                    if (cplx) im = ((const double *)v)[2 * e + 1];
                } else {
                    re = ((const float *)v)[cplx ? 2 * e : e];
                    if (cplx) im = ((const float *)v)[2 * e + 1];
                }
                M[2 * (j * cnt + k)] = re;
                M[2 * (j * cnt + k) + 1] = im;
            }
        double *work = M + 2 * m * n;
        if (value) {
            bsum[b] = kri_nuclear(M, cnt, n, work);
        } else {
            kri_svt(M, cnt, n, tau, work);
            for (int64_t j = 0; j < n; j++)
                for (int64_t k = 0; k < cnt; k++) {
                    const int64_t e = idx[k] + j * cs;
                    const double re = M[2 * (j * cnt + k)], im = M[2 * (j * cnt + k) + 1];
                    if (dbl) {
                        ((double *)x)[cplx ? 2 * e : e] = re;
                        if (cplx) ((double *)x)[2 * e + 1] = im;
                    } else {
                        ((float *)x)[cplx ? 2 * e : e] = (float)re;
                        if (cplx) ((float *)x)[2 * e + 1] = (float)im;
                    }
                }
        }
        kri_free(M);
        kri_free(idx);
    }
    double total = 0.0;
    for (int64_t b = 0; bsum && b < nblocks; b++) total += bsum[b];
    kri_free(bsum);
    if (fail) return kri_fail(KR_ERR_OOM_HOST, "locally-low-rank prox: block matrices");
    if (value) *value = total;
    return KR_OK;
}

const kri_llr_backend kri_llr_cpu = {{"cpu", true}, kri_cpu_llr_svt};
