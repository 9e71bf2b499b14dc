/* ESPIRiT coil sensitivity estimation (one map set) from the fully sampled centre of k-space:
 * calibration region, calibration matrix and its SVD (via the smaller Gram matrix), exact
 * image-space operator per pixel (trigonometric polynomial of the kernel projector), dominant
 * eigenvector per pixel (power iteration warm-started along each row), crop and phase. */
#include "internal.h"
#include "kray/sense.h"
#include "mri/cartesian/sense_internal.h"

#include <math.h>
#include <string.h>

#define KRI_TWO_PI 6.283185307179586476925286766559

void kr_espirit_opts_default(kr_espirit_opts *o)
{
    if (!o) return;
    o->kernel = 6;
    o->calib = 24;
    o->threshold = sqrt(0.001);
    o->crop = 0.8;
    o->rotate_phase = 1;
}

/* Pattern: any coil non-zero at (x, y). Full block [x0, x0+cx) x [y0, y0+cy)? */
static int kri_block_full(const uint8_t *pat, int64_t nx, int64_t x0, int64_t cx, int64_t y0,
                          int64_t cy)
{
    for (int64_t y = y0; y < y0 + cy; y++)
        for (int64_t x = x0; x < x0 + cx; x++)
            if (!pat[x + nx * y]) return 0;
    return 1;
}

/* BART-compatible calibration region: grow a centred block one sample per axis in turn while it
 * stays fully sampled (the y search inside the central min(calib, ny) lines), then slide it
 * along the readout to the position of largest energy. */
static void kri_calib_region(const float *k, int64_t nx, int64_t ny, int64_t nc, int calib,
                             const uint8_t *pat, int64_t *x0, int64_t *cx, int64_t *y0, int64_t *cy)
{
    int64_t ty = calib < ny ? calib : ny, tpos = (ny - ty) / 2;
    int64_t c[2] = {1, 1}, n[2] = {nx, ty};
    int stop[2] = {0, 0};
    while (!(stop[0] && stop[1])) {
        for (int i = 0; i < 2; i++) {
            if (c[i] == n[i] || c[i] >= calib) stop[i] = 1;
            if (stop[i]) continue;
            c[i]++;
            if (!kri_block_full(pat, nx, (nx - c[0]) / 2, c[0], tpos + (ty - c[1]) / 2, c[1])) {
                c[i]--;
                stop[i] = 1;
            }
        }
    }
    *cx = c[0];
    *cy = c[1];
    *y0 = tpos + (ty - c[1]) / 2;
    /* readout position of maximum energy (first maximum) */
    int64_t best = 0;
    double beste = -1;
    for (int64_t r = 0; r + c[0] <= nx; r++) {
        double e = 0;
        for (int64_t ch = 0; ch < nc; ch++)
            for (int64_t y = *y0; y < *y0 + c[1]; y++)
                for (int64_t x = r; x < r + c[0]; x++) {
                    const float *v = k + 2 * (x + nx * (y + ny * ch));
                    e += (double)v[0] * v[0] + (double)v[1] * v[1];
                }
        if (e > beste) {
            beste = e;
            best = r;
        }
    }
    *x0 = best;
}

/* Dominant eigenpair of the Hermitian n x n matrix g (column-major) by power iteration from v
 * (unit norm, updated). Returns the eigenvalue. tmp: n values. */
static double kri_power(int n, const kri_zc *g, kri_zc *v, kri_zc *tmp, int maxit, double low)
{
    double lam = 0;
    for (int it = 0; it < maxit; it++) {
        for (int i = 0; i < n; i++) {
            kri_zc s = 0;
            for (int j = 0; j < n; j++) s += g[i + (int64_t)n * j] * v[j];
            tmp[i] = s;
        }
        double rq = 0, nrm = 0;
        for (int i = 0; i < n; i++) {
            rq += creal(conj(v[i]) * tmp[i]);
            nrm += creal(tmp[i]) * creal(tmp[i]) + cimag(tmp[i]) * cimag(tmp[i]);
        }
        nrm = sqrt(nrm);
        if (nrm == 0) return 0;
        /* residual ||G v - rq v|| */
        double res = 0;
        for (int i = 0; i < n; i++) {
            kri_zc r = tmp[i] - rq * v[i];
            res += creal(r) * creal(r) + cimag(r) * cimag(r);
        }
        res = sqrt(res);
        for (int i = 0; i < n; i++) v[i] = tmp[i] / nrm;
        lam = rq;
        if (res <= 1e-9 * fabs(rq) + 1e-300) break;
        if (it >= 30 && rq < low) break; /* well below the crop: converged enough */
    }
    return lam;
}

kr_status kr_espirit(const kr_ctx *ctx, const kr_array *kspace, const kr_espirit_opts *opts,
                     kr_array **maps, kr_array **eigenvalues)
{
    const char *fn = "kr_espirit";
    KRI_ARG_NOT_NULL(maps);
    *maps = NULL;
    if (eigenvalues) *eigenvalues = NULL;
    KRI_TRY(kri_check_operand(fn, "kspace", kspace, KR_C64, KR_HOST));
    kr_espirit_opts o;
    kr_espirit_opts_default(&o);
    if (opts) o = *opts;
    if (o.kernel < 1 || o.kernel > 16)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: kernel width %d is outside 1..16", fn, o.kernel);
    if (o.calib < o.kernel + 1)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "%s: calibration width %d must exceed the kernel width %d", fn, o.calib,
                        o.kernel);
    if (!(o.threshold >= 0 && o.threshold < 1))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: threshold %g is outside [0, 1)", fn, o.threshold);
    if (!(o.crop >= 0 && o.crop < 1))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: crop %g is outside [0, 1)", fn, o.crop);
    int64_t d[3];
    KRI_TRY(kri_shape3(kspace, 3, "kr_espirit: kspace", d));
    const int64_t nx = d[0], ny = d[1], nc = d[2], nxy = nx * ny;
    if (nc > 256) return kri_fail(KR_ERR_DIM, "%s: %lld coils is too many", fn, (long long)nc);
    const float *kd = kspace->data;
    uint8_t *pat = NULL;
    KRI_TRY(kri_alloc((void **)&pat, (size_t)nxy, "ESPIRiT pattern"));
    for (int64_t q = 0; q < nxy; q++) {
        int any = 0;
        for (int64_t c = 0; c < nc && !any; c++)
            any = kd[2 * (q + nxy * c)] != 0 || kd[2 * (q + nxy * c) + 1] != 0;
        pat[q] = (uint8_t)any;
    }
    int64_t x0, cx, y0, cy;
    kri_calib_region(kd, nx, ny, nc, o.calib, pat, &x0, &cx, &y0, &cy);
    kri_free(pat);
    const int k = o.kernel;
    if (cx < k + 1 || cy < k + 1)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "%s: the fully sampled centre of k-space is %lldx%lld, too small for a "
                        "%dx%d kernel (need at least %dx%d)",
                        fn, (long long)cx, (long long)cy, k, k, k + 1, k + 1);
    kr_log(ctx, KR_LOG_INFO, "ESPIRiT: calibration region %lldx%lld at (%lld, %lld)", (long long)cx,
           (long long)cy, (long long)x0, (long long)y0);
    const int64_t px = cx - k + 1, py = cy - k + 1, L = px * py, N = (int64_t)k * k * nc;
    if (N > 8192 || L > 8192)
        return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: calibration matrix %lldx%lld is too large", fn,
                        (long long)L, (long long)N);
    kr_status st = KR_OK;
    kri_zc *A = NULL, *H = NULL, *V = NULL, *P = NULL, *gco = NULL, *hrow = NULL, *ex = NULL,
           *ey = NULL, *ref = NULL, *work = NULL;
    double *w = NULL;
    float *ev = NULL;
    kr_array *out = NULL, *evals = NULL;
    /* Calibration matrix A[p, col], col = kx + k (ky + k c), column-major L x N. */
    st = kri_alloc((void **)&A, sizeof(kri_zc) * (size_t)(L * N), "calibration matrix");
    if (st != KR_OK) goto done;
    for (int64_t c = 0; c < nc; c++)
        for (int ky = 0; ky < k; ky++)
            for (int kx = 0; kx < k; kx++) {
                int64_t col = kx + k * (ky + k * c);
                for (int64_t j = 0; j < py; j++)
                    for (int64_t i = 0; i < px; i++) {
                        const float *v = kd + 2 * ((x0 + i + kx) + nx * ((y0 + j + ky) + ny * c));
                        A[(i + px * j) + L * col] = v[0] + v[1] * _Complex_I;
                    }
            }
    /* Gram matrix of the smaller side, eigen-decomposition. */
    int64_t M = N <= L ? N : L;
    st = kri_alloc((void **)&H, sizeof(kri_zc) * (size_t)(M * M), "ESPIRiT Gram matrix");
    if (st == KR_OK)
        st = kri_alloc((void **)&V, sizeof(kri_zc) * (size_t)(M * M), "ESPIRiT eigenvectors");
    if (st == KR_OK) st = kri_alloc((void **)&w, sizeof(double) * (size_t)M, "ESPIRiT eigenvalues");
    if (st != KR_OK) goto done;
    if (N <= L) {
#pragma omp parallel for num_threads(kri_threads(ctx)) schedule(dynamic, 4)
        for (int64_t b = 0; b < N; b++)
            for (int64_t a = b; a < N; a++) {
                kri_zc s = 0;
                for (int64_t r = 0; r < L; r++) s += conj(A[r + L * a]) * A[r + L * b];
                H[a + N * b] = s; /* (A^H A)[a, b] */
            }
    } else {
#pragma omp parallel for num_threads(kri_threads(ctx)) schedule(dynamic, 4)
        for (int64_t b = 0; b < L; b++)
            for (int64_t a = b; a < L; a++) {
                kri_zc s = 0;
                for (int64_t col = 0; col < N; col++) s += A[a + L * col] * conj(A[b + L * col]);
                H[a + L * b] = s; /* (A A^H)[a, b] */
            }
    }
    if (kri_zheev((int)M, H, (int)M, w, V, (int)M) != 0) {
        st = kri_fail(KR_ERR_INTERNAL, "%s: eigen-decomposition of the calibration matrix failed",
                      fn);
        goto done;
    }
    double smax = sqrt(fmax(w[M - 1], 0));
    if (!(smax > 0)) {
        st = kri_fail(KR_ERR_INVALID_ARG, "%s: the calibration region holds no signal", fn);
        goto done;
    }
    int64_t nk = 0;
    for (int64_t i = M - 1; i >= 0; i--)
        if (sqrt(fmax(w[i], 0)) / smax > o.threshold) nk++;
    kr_log(ctx, KR_LOG_INFO, "ESPIRiT: %lld of %lld kernels kept", (long long)nk, (long long)N);
    /* Kept right singular vectors as columns of work (N x nk). */
    st = kri_alloc((void **)&work, sizeof(kri_zc) * (size_t)(N * nk), "ESPIRiT kernels");
    if (st != KR_OK) goto done;
    for (int64_t t = 0; t < nk; t++) {
        int64_t e = M - 1 - t;
        kri_zc *vt = work + N * t;
        if (N <= L) {
            for (int64_t a = 0; a < N; a++) vt[a] = V[a + M * e];
        } else {
            double sig = sqrt(w[e]);
            for (int64_t a = 0; a < N; a++) {
                kri_zc s = 0;
                for (int64_t r = 0; r < L; r++) s += conj(A[r + L * a]) * V[r + M * e];
                vt[a] = s / sig;
            }
        }
    }
    /* Projector P = sum v v^H (N x N). */
    st = kri_alloc((void **)&P, sizeof(kri_zc) * (size_t)(N * N), "ESPIRiT projector");
    if (st != KR_OK) goto done;
#pragma omp parallel for num_threads(kri_threads(ctx)) schedule(static)
    for (int64_t b = 0; b < N; b++)
        for (int64_t a = 0; a < N; a++) {
            kri_zc s = 0;
            for (int64_t t = 0; t < nk; t++) s += work[a + N * t] * conj(work[b + N * t]);
            P[a + N * b] = s;
        }
    /* g_{c c'}[D] = (1/k^2) sum_{kappa - kappa' = D} P[(kappa', c'), (kappa, c)],
     * D in [-(k-1), k-1]^2, stored gco[((c * nc + c') * K2 + Dy + k - 1) * K2 + Dx + k - 1]. */
    const int K2 = 2 * k - 1;
    st = kri_alloc((void **)&gco, sizeof(kri_zc) * (size_t)(nc * nc * K2 * K2),
                   "ESPIRiT coefficients");
    if (st != KR_OK) goto done;
    memset(gco, 0, sizeof(kri_zc) * (size_t)(nc * nc * K2 * K2));
#pragma omp parallel for num_threads(kri_threads(ctx)) schedule(static)
    for (int64_t cc = 0; cc < nc * nc; cc++) {
        int64_t c = cc / nc, c2 = cc % nc;
        kri_zc *g = gco + cc * K2 * K2;
        for (int ky = 0; ky < k; ky++)
            for (int kx = 0; kx < k; kx++)
                for (int ky2 = 0; ky2 < k; ky2++)
                    for (int kx2 = 0; kx2 < k; kx2++) {
                        int64_t a = kx + k * (ky + k * c), b = kx2 + k * (ky2 + k * c2);
                        int dx = kx - kx2, dy = ky - ky2;
                        g[(dy + k - 1) * K2 + dx + k - 1] += P[b + N * a];
                    }
        for (int i = 0; i < K2 * K2; i++) g[i] /= (double)(k * k);
    }
    kri_free(P);
    P = NULL;
    kri_free(A);
    A = NULL;
    kri_free(work);
    work = NULL;
    /* Separable evaluation: hrow[((c * nc + c') * K2 + Dy) * nx + x] = sum_Dx g e^{2 pi i Dx
     * px/nx}. */
    st = kri_alloc((void **)&ex, sizeof(kri_zc) * (size_t)(K2 * nx), "ESPIRiT phases");
    if (st == KR_OK)
        st = kri_alloc((void **)&ey, sizeof(kri_zc) * (size_t)(K2 * ny), "ESPIRiT phases");
    if (st == KR_OK)
        st =
            kri_alloc((void **)&hrow, sizeof(kri_zc) * (size_t)(nc * nc * K2 * nx), "ESPIRiT rows");
    if (st != KR_OK) goto done;
    for (int dd = 0; dd < K2; dd++) {
        for (int64_t x = 0; x < nx; x++) {
            int64_t m = ((int64_t)(dd - k + 1) * (x - nx / 2)) % nx;
            if (m < 0) m += nx;
            double t = KRI_TWO_PI * (double)m / (double)nx;
            ex[dd * nx + x] = cos(t) + sin(t) * _Complex_I;
        }
        for (int64_t y = 0; y < ny; y++) {
            int64_t m = ((int64_t)(dd - k + 1) * (y - ny / 2)) % ny;
            if (m < 0) m += ny;
            double t = KRI_TWO_PI * (double)m / (double)ny;
            ey[dd * ny + y] = cos(t) + sin(t) * _Complex_I;
        }
    }
#pragma omp parallel for num_threads(kri_threads(ctx)) schedule(static)
    for (int64_t cc = 0; cc < nc * nc; cc++)
        for (int dy = 0; dy < K2; dy++)
            for (int64_t x = 0; x < nx; x++) {
                kri_zc s = 0;
                for (int dx = 0; dx < K2; dx++)
                    s += gco[(cc * K2 + dy) * K2 + dx] * ex[dx * nx + x];
                hrow[(cc * K2 + dy) * nx + x] = s;
            }
    /* Reference direction: first principal component of the calibration data over coils. */
    st = kri_alloc((void **)&ref, sizeof(kri_zc) * (size_t)(nc * nc * 2 + nc), "ESPIRiT reference");
    if (st != KR_OK) goto done;
    {
        kri_zc *cov = ref + nc, *vec = cov + nc * nc;
        double *wv = NULL;
        st = kri_alloc((void **)&wv, sizeof(double) * (size_t)nc, "ESPIRiT reference");
        if (st != KR_OK) goto done;
        for (int64_t b = 0; b < nc; b++)
            for (int64_t a = b; a < nc; a++) {
                kri_zc s = 0;
                for (int64_t y = y0; y < y0 + cy; y++)
                    for (int64_t x = x0; x < x0 + cx; x++) {
                        const float *va = kd + 2 * (x + nx * (y + ny * a));
                        const float *vb = kd + 2 * (x + nx * (y + ny * b));
                        s += (va[0] + va[1] * _Complex_I) * (vb[0] - vb[1] * _Complex_I);
                    }
                cov[a + nc * b] = s;
            }
        int bad = kri_zheev((int)nc, cov, (int)nc, wv, vec, (int)nc);
        for (int64_t c = 0; c < nc; c++) ref[c] = bad ? (c == 0) : vec[c + nc * (nc - 1)];
        kri_free(wv);
    }
    {
        int64_t d3[3] = {nx, ny, nc}, d2[2] = {nx, ny};
        st = kr_array_create(&out, KR_C64, 3, d3, KR_HOST, NULL);
        if (st == KR_OK && eigenvalues) st = kr_array_create(&evals, KR_F32, 2, d2, KR_HOST, NULL);
        if (st != KR_OK) goto done;
    }
    float *mo = out->data;
    ev = evals ? evals->data : NULL;
    const int nt = kri_threads(ctx);
    const int n = (int)nc;
    {
        size_t per = 3 * (size_t)n * n + 2 * (size_t)n; /* g, v, tmp, gz, zv */
        st = kri_alloc((void **)&work, sizeof(kri_zc) * per * (size_t)nt, "ESPIRiT pixel scratch");
        if (st != KR_OK) goto done;
        double *wtmp = NULL;
        st = kri_alloc((void **)&wtmp, sizeof(double) * (size_t)n * (size_t)nt,
                       "ESPIRiT pixel scratch");
        if (st != KR_OK) goto done;
        const double crop = o.crop;
        const int rot = o.rotate_phase;
#pragma omp parallel num_threads(nt)
        {
            const int tid = kri_omp_tid();
            kri_zc *g = work + per * (size_t)tid, *v = g + (size_t)n * n, *tmp = v + n,
                   *gz = tmp + n, *zv = gz + (size_t)n * n;
            double *wz = wtmp + (size_t)n * (size_t)tid;
#pragma omp for schedule(static)
            for (int64_t y = 0; y < ny; y++) {
                for (int64_t x = 0; x < nx; x++) {
                    for (int64_t c = 0; c < nc; c++)
                        for (int64_t c2 = 0; c2 <= c; c2++) {
                            const kri_zc *hr = hrow + ((c * nc + c2) * K2) * nx + x;
                            kri_zc s = 0;
                            for (int dy = 0; dy < K2; dy++)
                                s += hr[(int64_t)dy * nx] * ey[dy * ny + y];
                            g[c + nc * c2] = s;
                            g[c2 + nc * c] = conj(s);
                        }
                    double lam;
                    if (x == 0) {
                        /* row start: full eigen-decomposition */
                        memcpy(gz, g, sizeof(kri_zc) * (size_t)n * n);
                        if (kri_zheev(n, gz, n, wz, zv, n) == 0) {
                            for (int i = 0; i < n; i++) v[i] = zv[i + (int64_t)n * (n - 1)];
                            lam = wz[n - 1];
                        } else {
                            for (int i = 0; i < n; i++) v[i] = i == 0;
                            lam = kri_power(n, g, v, tmp, 500, -1);
                        }
                    } else {
                        lam = kri_power(n, g, v, tmp, 300, 0.5 * crop);
                    }
                    int keep = lam > crop;
                    kri_zc ph = 1;
                    if (keep && rot) {
                        kri_zc z = 0;
                        for (int i = 0; i < n; i++) z += conj(ref[i]) * v[i];
                        double az = cabs(z);
                        ph = az > 0 ? conj(z) / az : 1;
                    }
                    for (int64_t c = 0; c < nc; c++) {
                        kri_zc m = keep ? v[c] * ph : 0;
                        mo[2 * (x + nx * y + nxy * c)] = (float)creal(m);
                        mo[2 * (x + nx * y + nxy * c) + 1] = (float)cimag(m);
                    }
                    if (ev) ev[x + nx * y] = (float)lam;
                    if (!keep && lam < 0.5 * crop) {
                        /* keep the warm start meaningful: restart from the reference */
                        for (int i = 0; i < n; i++) v[i] = ref[i];
                    }
                }
            }
        }
        kri_free(wtmp);
    }
    *maps = out;
    out = NULL;
    if (eigenvalues) {
        *eigenvalues = evals;
        evals = NULL;
    }
done:
    kri_free(A);
    kri_free(H);
    kri_free(V);
    kri_free(P);
    kri_free(gco);
    kri_free(hrow);
    kri_free(ex);
    kri_free(ey);
    kri_free(ref);
    kri_free(work);
    kri_free(w);
    kr_array_destroy(out);
    kr_array_destroy(evals);
    return st;
}
