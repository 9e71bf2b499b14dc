/* SENSE on the host (the CPU table of sense_internal.h): data preparation (line mask and
 * pre-whitening), lattice unfolding (R x R systems per aliased pixel, rows of x vectorised) and
 * the general column-by-column solve (ny x ny systems), both in double precision with OpenMP
 * over independent systems (bit-identical for any thread count). */
#include "internal.h"
#include "mri/cartesian/sense_internal.h"

#include <math.h>
#include <string.h>

/* One solve: maps c64 [nx, ny, nc] (whitened), aliased c64 [nx, ny, nc] (whitened zero-filled
 * coil images, NULL = g-factor only), image c64 [nx, ny] or NULL, gfac f32 [nx, ny] or NULL. */
typedef struct kri_sense_job {
    int64_t nx, ny, nc;
    int accel, offset;    /* lattice */
    const uint8_t *lines; /* general: acquired flags [ny] */
    double lambda;
    const float *maps, *aliased;
    float *image, *gfac;
    int nthreads;
} kri_sense_job;

/* Solve one Hermitian system of size n (column-major n x n in `nmat`, lower triangle; `n0d`
 * the diagonal without lambda) with right-hand side rhs (overwritten by the solution when rhs
 * != NULL) and g-factors into g (when g != NULL). `lx` is n x n scratch. Returns 0, or 1 when
 * singular. */
static int kri_sense_small_solve(int n, kri_zc *nmat, const double *n0d, double lambda, kri_zc *rhs,
                                 double *g, kri_zc *lx)
{
    double dmax = 0;
    for (int i = 0; i < n; i++)
        if (creal(nmat[i + (int64_t)n * i]) > dmax) dmax = creal(nmat[i + (int64_t)n * i]);
    if (kri_zpotrf(n, nmat, n, 1e-12 * dmax) != 0) return 1;
    if (rhs) kri_zpotrs(n, nmat, n, rhs);
    if (!g) return 0;
    /* X = Linv^H Linv; noise covariance diag [X N0 X]_ii = X_ii - lambda sum_k |X_ik|^2. */
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++) lx[i + (int64_t)n * j] = nmat[i + (int64_t)n * j];
    kri_ztrtri_lower(n, lx, n);
    for (int i = 0; i < n; i++) g[i] = sqrt(kri_chol_gvar(lx, i, n, n, 0, lambda) * n0d[i]);
    return 0;
}

/* The pixels of one system: unknown m (m < nu) at base + stride m; the active ones ix[0 .. na)
 * get the solution rhs and g-factor gv (or 0 and g = inf when the system is singular), the
 * others 0. */
static void kri_sense_store(int64_t base, int64_t stride, int nu, const int *ix, int na, int bad,
                            const kri_zc *rhs, const double *gv, float *img, float *gf)
{
    for (int m = 0; m < nu; m++) {
        int64_t p = base + stride * m;
        if (img) img[2 * p] = img[2 * p + 1] = 0.0f;
        if (gf) gf[p] = 0.0f;
    }
    for (int i = 0; i < na; i++) {
        int64_t p = base + stride * ix[i];
        if (bad) {
            if (gf) gf[p] = INFINITY;
            continue;
        }
        if (img) {
            img[2 * p] = (float)creal(rhs[i]);
            img[2 * p + 1] = (float)cimag(rhs[i]);
        }
        if (gf) gf[p] = (float)gv[i];
    }
}

/* acc[x] += conj(a[x]) b[x] for x < nx (complex float rows, double accumulators). */
static void kri_acc_conj(int64_t nx, const float *a, const float *b, double *acc)
{
    for (int64_t x = 0; x < nx; x++) {
        double mr = a[2 * x], mi = a[2 * x + 1];
        double nr = b[2 * x], ni = b[2 * x + 1];
        acc[2 * x] += mr * nr + mi * ni;
        acc[2 * x + 1] += mr * ni - mi * nr;
    }
}

static kr_status kri_cpu_sense_lattice(const kri_sense_job *a, int64_t *singular)
{
    const int64_t nx = a->nx, ny = a->ny, nc = a->nc;
    const int R = a->accel;
    const int64_t ny_r = ny / R, nxy = nx * ny;
    const int npair = R * (R + 1) / 2;
    const double lambda = a->lambda;
    /* PSF phases phi_d = exp(2 pi i (offset - floor(ny/2)) d / R), d = 0 .. R-1. */
    kri_zc phi[KRI_SENSE_CUDA_MAX_R * 4];
    kri_zc *ph = phi;
    if (R > KRI_SENSE_CUDA_MAX_R * 4) {
        KRI_TRY(kri_alloc((void **)&ph, sizeof(kri_zc) * (size_t)R, "SENSE phases"));
    }
    int64_t hm = ((int64_t)a->offset - ny / 2) % R;
    if (hm < 0) hm += R;
    for (int d = 0; d < R; d++) {
        double t = 6.283185307179586476925286766559 * (double)((hm * d) % R) / (double)R;
        ph[d] = cos(t) + sin(t) * _Complex_I;
    }
    int nt = a->nthreads > 0 ? a->nthreads : 1;
    /* Per-thread scratch: row accumulators (npair + R) x nx complex + R diag, small systems. */
    size_t per = (size_t)(npair + R) * (size_t)nx * 2 + (size_t)R * (size_t)R * 4 + (size_t)R * 8;
    double *scr = NULL;
    kr_status st =
        kri_alloc((void **)&scr, sizeof(double) * per * (size_t)nt, "SENSE unfolding scratch");
    if (st != KR_OK) {
        if (ph != phi) kri_free(ph);
        return st;
    }
    int64_t nsing = 0;
    const float *maps = a->maps, *al = a->aliased;
    float *img = a->image, *gf = a->gfac;
#pragma omp parallel num_threads(nt) reduction(+ : nsing)
    {
        double *base = scr + per * (size_t)kri_omp_tid();
        double *gacc = base;                                  /* [npair][nx][2] */
        double *bacc = gacc + (size_t)npair * (size_t)nx * 2; /* [R][nx][2] */
        kri_zc *nmat = (kri_zc *)(bacc + (size_t)R * (size_t)nx * 2);
        kri_zc *lx = nmat + (size_t)R * R;
        kri_zc *rhs = lx + (size_t)R * R;
        double *n0d = (double *)(rhs + R);
        double *gv = n0d + R;
        int *act = (int *)(gv + R);
        (void)act;
#pragma omp for schedule(static)
        for (int64_t y0 = 0; y0 < ny_r; y0++) {
            memset(gacc, 0, sizeof(double) * (size_t)(npair + R) * (size_t)nx * 2);
            for (int64_t c = 0; c < nc; c++) {
                int pi = 0;
                for (int m = 0; m < R; m++) {
                    const float *sm = maps + 2 * (nx * (y0 + ny_r * m) + nxy * c);
                    for (int n = 0; n <= m; n++, pi++) {
                        const float *sn = maps + 2 * (nx * (y0 + ny_r * n) + nxy * c);
                        /* G[m, n] += conj(S_m) S_n */
                        kri_acc_conj(nx, sm, sn, gacc + (size_t)pi * (size_t)nx * 2);
                    }
                    if (al) {
                        const float *am = al + 2 * (nx * (y0 + ny_r * m) + nxy * c);
                        kri_acc_conj(nx, sm, am, bacc + (size_t)m * (size_t)nx * 2);
                    }
                }
            }
            for (int64_t x = 0; x < nx; x++) {
                /* Active unknowns: non-zero sensitivity. */
                int idx[KRI_SENSE_CUDA_MAX_R * 4];
                int *ix = R <= KRI_SENSE_CUDA_MAX_R * 4 ? idx : act;
                int na = 0;
                for (int m = 0; m < R; m++) {
                    int pd = m * (m + 1) / 2 + m;
                    if (gacc[(size_t)pd * nx * 2 + 2 * x] > 0) ix[na++] = m;
                }
                for (int i = 0; i < na; i++) {
                    int m = ix[i];
                    for (int j = 0; j <= i; j++) {
                        int n = ix[j]; /* n <= m */
                        int pi = m * (m + 1) / 2 + n;
                        kri_zc gmn = gacc[(size_t)pi * nx * 2 + 2 * x] +
                                     gacc[(size_t)pi * nx * 2 + 2 * x + 1] * _Complex_I;
                        kri_zc v = ph[(m - n) % R] * gmn / (double)R;
                        if (i == j) {
                            n0d[i] = creal(v);
                            v = creal(v) + lambda;
                        }
                        nmat[i + (int64_t)na * j] = v;
                    }
                    if (al)
                        rhs[i] = bacc[(size_t)m * nx * 2 + 2 * x] +
                                 bacc[(size_t)m * nx * 2 + 2 * x + 1] * _Complex_I;
                }
                int bad = na > 0 ? kri_sense_small_solve(na, nmat, n0d, lambda, al ? rhs : NULL,
                                                         gf ? gv : NULL, lx)
                                 : 0;
                nsing += bad;
                kri_sense_store(x + nx * y0, nx * ny_r, R, ix, na, bad, rhs, gv, img, gf);
            }
        }
    }
    kri_free(scr);
    if (ph != phi) kri_free(ph);
    *singular = nsing;
    return KR_OK;
}

void kri_sense_psf(const uint8_t *lines, int64_t ny, double *psf_pairs)
{
    kri_zc *psf = (kri_zc *)psf_pairs;
    for (int64_t d = 0; d < ny; d++) {
        kri_zc s = 0;
        for (int64_t j = 0; j < ny; j++)
            if (lines[j]) {
                int64_t k = ((j - ny / 2) * d) % ny;
                if (k < 0) k += ny;
                double t = 6.283185307179586476925286766559 * (double)k / (double)ny;
                s += cos(t) + sin(t) * _Complex_I;
            }
        psf[d] = s / (double)ny;
    }
}

static kr_status kri_cpu_sense_general(const kri_sense_job *a, int64_t *singular)
{
    const int64_t nx = a->nx, ny = a->ny, nc = a->nc, nxy = nx * ny;
    if (ny > 46340)
        return kri_fail(KR_ERR_DIM, "SENSE: %lld lines is too many for the general path",
                        (long long)ny);
    const int n = (int)ny;
    const double lambda = a->lambda;
    kri_zc *psf = NULL;
    KRI_TRY(kri_alloc((void **)&psf, sizeof(kri_zc) * (size_t)n, "SENSE point-spread function"));
    kri_sense_psf(a->lines, ny, (double *)psf);
    int nt = a->nthreads > 0 ? a->nthreads : 1;
    /* Per thread: column of maps and data (nc x ny complex each), N and Linv (ny^2 each), rhs,
     * diag, g, index. */
    size_t per = (size_t)nc * (size_t)n * 2 + (size_t)n * (size_t)n * 2 + (size_t)n * 4;
    kri_zc *scr = NULL;
    kr_status st =
        kri_alloc((void **)&scr, sizeof(kri_zc) * per * (size_t)nt, "SENSE general scratch");
    if (st != KR_OK) {
        kri_free(psf);
        return st;
    }
    int64_t nsing = 0;
    const float *maps = a->maps, *al = a->aliased;
    float *img = a->image, *gf = a->gfac;
#pragma omp parallel num_threads(nt) reduction(+ : nsing)
    {
        kri_zc *s = scr + per * (size_t)kri_omp_tid(); /* s[c * n + y] */
        kri_zc *d = s + (size_t)nc * n;            /* data column */
        kri_zc *nmat = d + (size_t)nc * n;
        kri_zc *lx = nmat + (size_t)n * n;
        kri_zc *rhs = lx + (size_t)n * n;
        double *n0d = (double *)(rhs + n);
        double *gv = n0d + n;
        int *ix = (int *)(gv + n);
#pragma omp for schedule(dynamic, 1)
        for (int64_t x = 0; x < nx; x++) {
            for (int64_t c = 0; c < nc; c++)
                for (int y = 0; y < n; y++) {
                    int64_t q = 2 * (x + nx * y + nxy * c);
                    s[c * n + y] = maps[q] + maps[q + 1] * _Complex_I;
                    if (al) d[c * n + y] = al[q] + al[q + 1] * _Complex_I;
                }
            int na = 0;
            for (int y = 0; y < n; y++) {
                double e = 0;
                for (int64_t c = 0; c < nc; c++) {
                    kri_zc v = s[c * n + y];
                    e += creal(v) * creal(v) + cimag(v) * cimag(v);
                }
                if (e > 0) ix[na++] = y;
            }
            for (int j = 0; j < na; j++) {
                int yj = ix[j];
                for (int i = j; i < na; i++) {
                    int yi = ix[i];
                    kri_zc gsum = 0;
                    for (int64_t c = 0; c < nc; c++) gsum += conj(s[c * n + yi]) * s[c * n + yj];
                    int dd = yi - yj;
                    if (dd < 0) dd += n;
                    kri_zc v = psf[dd] * gsum;
                    if (i == j) {
                        n0d[i] = creal(v);
                        v = creal(v) + lambda;
                    }
                    nmat[i + (int64_t)na * j] = v;
                }
                if (al) {
                    kri_zc b = 0;
                    for (int64_t c = 0; c < nc; c++) b += conj(s[c * n + yj]) * d[c * n + yj];
                    rhs[j] = b;
                }
            }
            int bad = na > 0 ? kri_sense_small_solve(na, nmat, n0d, lambda, al ? rhs : NULL,
                                                     gf ? gv : NULL, lx)
                             : 0;
            nsing += bad;
            kri_sense_store(x, nx, n, ix, na, bad, rhs, gv, img, gf);
        }
    }
    kri_free(scr);
    kri_free(psf);
    *singular = nsing;
    return KR_OK;
}

/* ---- the CPU table --------------------------------------------------------------------------- */
typedef struct kri_sense_host {
    kri_sense_desc d;
    int64_t singular; /* of the last solve */
} kri_sense_host;

static kr_status kri_cpu_create(const kri_sense_desc *d, void **state)
{
    kri_sense_host *h = kri_calloc(1, sizeof *h);
    if (!h) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a SENSE plan");
    h->d = *d;
    *state = h;
    return KR_OK;
}

static void kri_cpu_destroy(void *state) { kri_free(state); }

static kr_status kri_cpu_prepare(void *state, const float *s, float *b, int mask)
{
    const kri_sense_host *h = state;
    const int64_t nx = h->d.nx, ny = h->d.ny, nc = h->d.nc, nxy = nx * ny;
    const uint8_t *ln = h->d.lines;
    const kri_zc *w = (const kri_zc *)h->d.w;
#pragma omp parallel for num_threads(kri_threads(h->d.ctx)) schedule(static)
    for (int64_t y = 0; y < ny; y++) {
        for (int64_t c = 0; c < nc; c++) {
            float *dst = b + 2 * (nx * y + nxy * c);
            if (mask && !ln[y])
                memset(dst, 0, sizeof(float) * 2 * (size_t)nx);
            else
                memcpy(dst, s + 2 * (nx * y + nxy * c), sizeof(float) * 2 * (size_t)nx);
        }
        if (w && !(mask && !ln[y]))
            for (int64_t x = 0; x < nx; x++) kri_whiten_c64(nc, w, b + 2 * (x + nx * y), nxy);
    }
    return KR_OK;
}

static kr_status kri_cpu_solve(void *state, const float *maps, const float *aliased, float *image,
                               float *gfac)
{
    kri_sense_host *h = state;
    const kri_sense_desc *d = &h->d;
    kri_sense_job a = {d->nx,    d->ny,   d->nc,   d->accel, d->offset,          d->lines,
                       d->lambda, maps,   aliased, image,    gfac, kri_threads(d->ctx)};
    int64_t sing = 0;
    if (d->method == KR_SENSE_LATTICE)
        KRI_TRY(kri_cpu_sense_lattice(&a, &sing));
    else
        KRI_TRY(kri_cpu_sense_general(&a, &sing));
    h->singular = sing;
    if (sing)
        kr_log(d->ctx, KR_LOG_WARN,
               "SENSE: %lld of the systems were singular (pixels set to 0, g = inf); "
               "use lambda > 0",
               (long long)sing);
    return KR_OK;
}

static kr_status kri_cpu_singular(const void *state, int64_t *n)
{
    *n = ((const kri_sense_host *)state)->singular;
    return KR_OK;
}

const kri_sense_backend kri_sense_cpu = {{"cpu", true}, kri_cpu_create,  kri_cpu_destroy,
                                         kri_cpu_prepare, kri_cpu_solve, kri_cpu_singular};
