/* Small dense complex linear algebra for SENSE, noise whitening and ESPIRiT (double precision):
 * Cholesky, triangular solve and inverse, Hermitian eigen-decomposition (Householder
 * tridiagonalisation + implicit QL), plus shared argument helpers of the room. */
#include "internal.h"
#include "mri/cartesian/sense_internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

int kri_zpotrf(int n, kri_zc *a, int lda, double tol)
{
    for (int j = 0; j < n; j++) {
        double d = kri_chol_pivot(a, j, lda, 0);
        if (!(d > tol)) return j + 1;
        kri_chol_column(a, j, n, lda, 0, sqrt(d));
    }
    return 0;
}

void kri_zpotrs(int n, const kri_zc *l, int lda, kri_zc *b)
{
    for (int i = 0; i < n; i++) {
        kri_zc s = b[i];
        for (int k = 0; k < i; k++) s -= l[i + (int64_t)lda * k] * b[k];
        b[i] = s / creal(l[i + (int64_t)lda * i]);
    }
    for (int i = n - 1; i >= 0; i--) {
        kri_zc s = b[i];
        for (int k = i + 1; k < n; k++) s -= conj(l[k + (int64_t)lda * i]) * b[k];
        b[i] = s / creal(l[i + (int64_t)lda * i]);
    }
}

void kri_ztrtri_lower(int n, kri_zc *l, int lda)
{
    /* Linv L = I: Linv[i, j] = -(sum_{k=j+1..i} Linv[i, k] L[k, j]) / L[j, j], columns from the
     * last, rows of a column from the bottom so that L[k, j] (k <= i) is still unread-over. */
    for (int j = n - 1; j >= 0; j--) {
        double ljj = creal(l[j + (int64_t)lda * j]);
        for (int i = n - 1; i > j; i--) {
            kri_zc s = 0;
            for (int k = j + 1; k <= i; k++) s += l[i + (int64_t)lda * k] * l[k + (int64_t)lda * j];
            /* l[i, k] for k > j holds Linv (columns already done); l[k, j] for k <= i is still L
             * because rows of column j are overwritten from the bottom. Row i itself: k = i uses
             * Linv[i, i] * L[i, j] (L[i, j] not yet overwritten). */
            l[i + (int64_t)lda * j] = -s / ljj;
        }
        l[j + (int64_t)lda * j] = 1.0 / ljj;
    }
}

/* Real symmetric tridiagonal (d, e; e[i] couples i and i + 1, e[n-1] = 0) implicit QL with the
 * real rotations applied to the columns of the complex n x n matrix V. */
static int kri_tql(int n, double *d, double *e, kri_zc *v, int ldv)
{
    for (int l = 0; l < n; l++) {
        int iter = 0, m;
        do {
            for (m = l; m < n - 1; m++) {
                double dd = fabs(d[m]) + fabs(d[m + 1]);
                if (fabs(e[m]) <= DBL_EPSILON * dd) break;
            }
            if (m != l) {
                if (iter++ == 60) return -1;
                double g = (d[l + 1] - d[l]) / (2.0 * e[l]);
                double r = hypot(g, 1.0);
                g = d[m] - d[l] + e[l] / (g + (g >= 0 ? r : -r));
                double s = 1.0, c = 1.0, p = 0.0;
                int i;
                for (i = m - 1; i >= l; i--) {
                    double f = s * e[i], b = c * e[i];
                    r = hypot(f, g);
                    e[i + 1] = r;
                    if (r == 0.0) {
                        d[i + 1] -= p;
                        e[m] = 0.0;
                        break;
                    }
                    s = f / r;
                    c = g / r;
                    g = d[i + 1] - p;
                    r = (d[i] - g) * s + 2.0 * c * b;
                    p = s * r;
                    d[i + 1] = g + p;
                    g = c * r - b;
                    kri_zc *vi = v + (int64_t)ldv * i, *vi1 = v + (int64_t)ldv * (i + 1);
                    for (int k = 0; k < n; k++) {
                        kri_zc t = vi1[k];
                        vi1[k] = s * vi[k] + c * t;
                        vi[k] = c * vi[k] - s * t;
                    }
                }
                if (r == 0.0 && i >= l) continue;
                d[l] -= p;
                e[l] = g;
                e[m] = 0.0;
            }
        } while (m != l);
    }
    return 0;
}

int kri_zheev(int n, kri_zc *a, int lda, double *w, kri_zc *v, int ldv)
{
    return kri_zheev_nt(n, a, lda, w, v, ldv, 1);
}

int kri_zheev_nt(int n, kri_zc *a, int lda, double *w, kri_zc *v, int ldv, int nt)
{
    if (n < 96) nt = 1; /* not worth a team */
    if (n <= 0) return 0;
    /* Full Hermitian matrix from the lower triangle. */
    for (int j = 0; j < n; j++) {
        a[j + (int64_t)lda * j] = creal(a[j + (int64_t)lda * j]);
        for (int i = j + 1; i < n; i++) a[j + (int64_t)lda * i] = conj(a[i + (int64_t)lda * j]);
    }
    /* Householder vectors u_k (length n, zero above k+1) kept in the strict lower part of a
     * scratch area: we store them in v's columns temporarily is not possible (v is the output),
     * so keep them in a (below the subdiagonal) and a separate array for the first entry. */
    kri_zc *u = kri_malloc(sizeof(kri_zc) * (size_t)n * (size_t)n);
    kri_zc *p = kri_malloc(sizeof(kri_zc) * (size_t)n);
    double *e = kri_malloc(sizeof(double) * (size_t)n);
    kri_zc *eo = kri_malloc(sizeof(kri_zc) * (size_t)n);
    if (!u || !p || !e || !eo) {
        kri_free(u), kri_free(p), kri_free(e), kri_free(eo);
        return -2;
    }
    memset(u, 0, sizeof(kri_zc) * (size_t)n * (size_t)n);
    int nh = 0; /* number of reflections */
    for (int k = 0; k + 2 < n; k++) {
        int m = n - k - 1; /* length of x = a[k+1 .. n-1, k] */
        kri_zc *x = a + (k + 1) + (int64_t)lda * k;
        double xn = 0;
        for (int i = 0; i < m; i++) xn += creal(x[i]) * creal(x[i]) + cimag(x[i]) * cimag(x[i]);
        xn = sqrt(xn);
        kri_zc *uk = u + (int64_t)n * k;
        double tail = xn * xn - (creal(x[0]) * creal(x[0]) + cimag(x[0]) * cimag(x[0]));
        if (xn == 0.0 || tail <= 1e-300 * xn * xn) {
            eo[k] = x[0]; /* already tridiagonal in this column */
            continue;
        }
        double ax0 = cabs(x[0]);
        kri_zc ph = ax0 > 0 ? x[0] / ax0 : 1.0;
        kri_zc alpha = -ph * xn;
        /* v = x - alpha e1, u = sqrt(2) v / |v| so that H = I - u u^H maps x to alpha e1. */
        for (int i = 0; i < m; i++) uk[k + 1 + i] = x[i];
        uk[k + 1] -= alpha;
        double vn = 0;
        for (int i = 0; i < m; i++)
            vn += creal(uk[k + 1 + i]) * creal(uk[k + 1 + i]) +
                  cimag(uk[k + 1 + i]) * cimag(uk[k + 1 + i]);
        double sc = sqrt(2.0 / vn);
        for (int i = 0; i < m; i++) uk[k + 1 + i] *= sc;
        /* Trailing block B = a[k+1.., k+1..]: p = B u, K = (u^H p) / 2, q = p - K u,
         * B -= u q^H + q u^H. */
        kri_zc *ub = uk + k + 1;
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && m >= 256)
        for (int i = 0; i < m; i++) {
            kri_zc s = 0;
            for (int j = 0; j < m; j++) s += a[(k + 1 + i) + (int64_t)lda * (k + 1 + j)] * ub[j];
            p[i] = s;
        }
        kri_zc kk = 0;
        for (int i = 0; i < m; i++) kk += conj(ub[i]) * p[i];
        kk *= 0.5;
        for (int i = 0; i < m; i++) p[i] -= kk * ub[i];
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1 && m >= 256)
        for (int j = 0; j < m; j++)
            for (int i = 0; i < m; i++)
                a[(k + 1 + i) + (int64_t)lda * (k + 1 + j)] -=
                    ub[i] * conj(p[j]) + p[i] * conj(ub[j]);
        eo[k] = alpha;
        nh = k + 1;
        /* column k below the subdiagonal is now zero (not stored). */
    }
    if (n >= 2) eo[n - 2] = a[(n - 1) + (int64_t)lda * (n - 2)];
    double *d = w;
    for (int i = 0; i < n; i++) d[i] = creal(a[i + (int64_t)lda * i]);
    /* Real off-diagonal through a diagonal unitary D: delta_0 = 1, delta_{i+1} = delta_i e_i/|e_i|.
     */
    kri_zc *delta = p;
    delta[0] = 1.0;
    for (int i = 0; i + 1 < n; i++) {
        double ae = cabs(eo[i]);
        e[i] = ae;
        delta[i + 1] = ae > 0 ? delta[i] * eo[i] / ae : delta[i];
    }
    e[n - 1] = 0.0;
    /* V = Q D with Q = H_0 H_1 ... : start from D and apply reflections from the last. */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) v[i + (int64_t)ldv * j] = i == j ? delta[i] : 0.0;
    /* column by column (each column is independent): one parallel region */
#pragma omp parallel for num_threads(nt) schedule(static) if (nt > 1)
    for (int j = 0; j < n; j++) {
        kri_zc *vj = v + (int64_t)ldv * j;
        for (int k = nh - 1; k >= 0; k--) {
            const kri_zc *uk = u + (int64_t)n * k;
            kri_zc s = 0;
            for (int i = k + 1; i < n; i++) s += conj(uk[i]) * vj[i];
            if (s == 0) continue;
            for (int i = k + 1; i < n; i++) vj[i] -= uk[i] * s;
        }
    }
    int rc = kri_tql(n, d, e, v, ldv);
    /* Sort ascending (selection sort; n is small). */
    for (int i = 0; i + 1 < n && rc == 0; i++) {
        int kmin = i;
        for (int j = i + 1; j < n; j++)
            if (d[j] < d[kmin]) kmin = j;
        if (kmin != i) {
            double t = d[i];
            d[i] = d[kmin];
            d[kmin] = t;
            for (int r = 0; r < n; r++) {
                kri_zc tv = v[r + (int64_t)ldv * i];
                v[r + (int64_t)ldv * i] = v[r + (int64_t)ldv * kmin];
                v[r + (int64_t)ldv * kmin] = tv;
            }
        }
    }
    kri_free(u);
    kri_free(p);
    kri_free(e);
    kri_free(eo);
    return rc;
}

/* ---- shared helpers ---------------------------------------------------------------------- */
kr_status kri_psi_whitener(const kr_array *psi, int64_t nc, const char *fn, kri_zc **wout)
{
    return kri_psi_factor(psi, nc, fn, 1, wout);
}

kr_status kri_psi_factor(const kr_array *psi, int64_t nc, const char *fn, int invert,
                         kri_zc **wout)
{
    *wout = NULL;
    KRI_TRY(kri_check_operand(fn, "psi", psi, KRI_ANY_DTYPE, KR_HOST));
    if (psi->dtype != KR_C64 && psi->dtype != KR_C128)
        return kri_fail(KR_ERR_DTYPE, "%s: psi has element type %s; expected c64 or c128", fn,
                        kr_dtype_name(psi->dtype));
    char what[96];
    snprintf(what, sizeof what, "%s: psi", fn);
    int64_t d0 = psi->dims[0], d1 = psi->ndim > 1 ? psi->dims[1] : 1;
    if (kr_array_rank(psi) > 2 || d0 != nc || d1 != nc) {
        char b[96];
        return kri_fail(KR_ERR_DIM, "%s has %s values; expected %lldx%lld for %lld coils", what,
                        kr_dims_string(psi->ndim, psi->dims, b, sizeof b), (long long)nc,
                        (long long)nc, (long long)nc);
    }
    if (nc > 4096) return kri_fail(KR_ERR_DIM, "%s: %lld coils is too many", what, (long long)nc);
    int n = (int)nc;
    kri_zc *l = kri_malloc(sizeof(kri_zc) * (size_t)n * (size_t)n);
    if (!l) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for %s", what);
    double amax = 0;
    for (int64_t i = 0; i < nc * nc; i++) {
        double re, im;
        if (psi->dtype == KR_C64) {
            re = ((const float *)psi->data)[2 * i];
            im = ((const float *)psi->data)[2 * i + 1];
        } else {
            re = ((const double *)psi->data)[2 * i];
            im = ((const double *)psi->data)[2 * i + 1];
        }
        if (!isfinite(re) || !isfinite(im)) {
            kri_free(l);
            return kri_fail(KR_ERR_INVALID_ARG, "%s has a non-finite entry", what);
        }
        l[i] = re + im * _Complex_I;
        if (cabs(l[i]) > amax) amax = cabs(l[i]);
    }
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++) {
            kri_zc a = l[i + (int64_t)n * j], b = l[j + (int64_t)n * i];
            if (cabs(a - conj(b)) > 1e-6 * amax) {
                kri_free(l);
                return kri_fail(KR_ERR_INVALID_ARG,
                                "%s is not Hermitian: entry (%d, %d) is %g%+gi but (%d, %d) is "
                                "%g%+gi",
                                what, i, j, creal(a), cimag(a), j, i, creal(b), cimag(b));
            }
        }
    int bad = kri_zpotrf(n, l, n, 1e-13 * amax);
    if (bad) {
        kri_free(l);
        return kri_fail(KR_ERR_INVALID_ARG,
                        "%s is not positive definite (Cholesky pivot %d is not positive)", what,
                        bad - 1);
    }
    if (invert) kri_ztrtri_lower(n, l, n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < j; i++) l[i + (int64_t)n * j] = 0;
    *wout = l;
    return KR_OK;
}

void kri_whiten_c64(int64_t nc, const kri_zc *w, float *v, int64_t stride)
{
    /* Rows from the last: row r reads v[c] for c <= r, which are not yet overwritten. */
    for (int64_t r = nc - 1; r >= 0; r--) {
        double sr = 0, si = 0;
        for (int64_t c = 0; c <= r; c++) {
            kri_zc m = w[r + nc * c];
            double vr = v[2 * c * stride], vi = v[2 * c * stride + 1];
            sr += creal(m) * vr - cimag(m) * vi;
            si += creal(m) * vi + cimag(m) * vr;
        }
        v[2 * r * stride] = (float)sr;
        v[2 * r * stride + 1] = (float)si;
    }
}

int kri_lines_lattice(const uint8_t *lines, int64_t ny, int *offset)
{
    int64_t j0 = -1, j1 = -1;
    for (int64_t j = 0; j < ny; j++)
        if (lines[j]) {
            if (j0 < 0)
                j0 = j;
            else {
                j1 = j;
                break;
            }
        }
    if (j0 < 0) return 0;
    int64_t r = j1 < 0 ? ny : j1 - j0;
    if (j0 >= r || ny % r != 0 || r > 1 << 30) return 0;
    for (int64_t j = 0; j < ny; j++)
        if ((lines[j] != 0) != ((j - j0) % r == 0)) return 0;
    *offset = (int)j0;
    return (int)r;
}

kr_status kri_shape3(const kr_array *a, int maxrank, const char *what, int64_t d[3])
{
    int r = kr_array_rank(a);
    if (r > maxrank) {
        char b[96];
        return kri_fail(KR_ERR_DIM, "%s has %s values; expected at most %d dimensions", what,
                        kr_dims_string(a->ndim, a->dims, b, sizeof b), maxrank);
    }
    for (int i = 0; i < 3; i++) d[i] = i < a->ndim ? a->dims[i] : 1;
    return KR_OK;
}
