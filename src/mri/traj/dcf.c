/* Density compensation: option checks and dispatch, Voronoi planes (voronoi.c does the cells),
 * iterative Pipe-Menon with a Kaiser-Bessel kernel on a binned neighbour search, and the
 * analytic radial and spiral weights. */
#include "mri/mri_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void kr_dcf_opts_default(kr_dcf_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->method = KR_DCF_VORONOI;
    o->boundary = KR_DCF_DISK;
    o->radius = 0.0;
    o->dup_tol = 1e-4;
    o->iterations = 20;
    o->kernel_radius = 2.0;
    o->beta = 0.0;
}

static kr_status kri_dcf_check_opts(const kr_dcf_opts *o)
{
    if ((unsigned)o->method > KR_DCF_SPIRAL)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_dcf: unknown method %d", (int)o->method);
    if ((unsigned)o->boundary > KR_DCF_SQUARE)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_dcf: unknown boundary %d", (int)o->boundary);
    if (!(o->radius >= 0.0) || !isfinite(o->radius))
        return kri_fail(KR_ERR_INVALID_ARG, "kr_dcf: radius %g must be finite and >= 0 (0 = auto)",
                        o->radius);
    if (!(o->dup_tol >= 0.0) || !isfinite(o->dup_tol))
        return kri_fail(KR_ERR_INVALID_ARG, "kr_dcf: dup_tol %g must be finite and >= 0",
                        o->dup_tol);
    if (o->method == KR_DCF_PIPE_MENON) {
        if (o->iterations < 1 || o->iterations > 10000)
            return kri_fail(KR_ERR_INVALID_ARG, "kr_dcf: Pipe-Menon iterations %d outside 1..10000",
                            o->iterations);
        if (!(o->kernel_radius > 0.0) || !isfinite(o->kernel_radius))
            return kri_fail(KR_ERR_INVALID_ARG, "kr_dcf: kernel radius %g must be finite and > 0",
                            o->kernel_radius);
        if (!(o->beta >= 0.0) || !isfinite(o->beta))
            return kri_fail(KR_ERR_INVALID_ARG, "kr_dcf: kernel beta %g must be finite and >= 0",
                            o->beta);
    }
    return KR_OK;
}

/* ---- Voronoi over planes of constant kz ------------------------------------------------------- */
static kr_status kri_dcf_voronoi(const double *k, int64_t m, const kr_dcf_opts *o, int nthreads,
                                 double *w, kr_dcf_info *info)
{
    kri_voronoi_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.dup_tol = o->dup_tol;
    cfg.disk = o->boundary == KR_DCF_DISK;
    double rmax = 0.0, lo[2] = {k[0], k[1]}, hi[2] = {k[0], k[1]};
    for (int64_t i = 0; i < m; i++) {
        const double *p = k + 3 * i;
        rmax = fmax(rmax, sqrt(p[0] * p[0] + p[1] * p[1]));
        for (int d = 0; d < 2; d++) lo[d] = fmin(lo[d], p[d]), hi[d] = fmax(hi[d], p[d]);
    }
    if (cfg.disk) {
        cfg.radius = o->radius > 0.0 ? o->radius : rmax + 0.5;
    } else if (o->radius > 0.0) {
        cfg.lo[0] = cfg.lo[1] = -o->radius;
        cfg.hi[0] = cfg.hi[1] = o->radius;
    } else {
        for (int d = 0; d < 2; d++) cfg.lo[d] = lo[d] - 0.5, cfg.hi[d] = hi[d] + 0.5;
    }
    /* planes of equal kz */
    double *zs = NULL, *x = NULL, *y = NULL, *a = NULL;
    int64_t *idx = NULL;
    kr_status s = kri_alloc((void **)&zs, (size_t)m * sizeof(double), "Voronoi planes");
    if (s == KR_OK) s = kri_alloc((void **)&x, (size_t)m * sizeof(double), "Voronoi points");
    if (s == KR_OK) s = kri_alloc((void **)&y, (size_t)m * sizeof(double), "Voronoi points");
    if (s == KR_OK) s = kri_alloc((void **)&a, (size_t)m * sizeof(double), "Voronoi areas");
    if (s == KR_OK) s = kri_alloc((void **)&idx, (size_t)m * sizeof(int64_t), "Voronoi planes");
    int64_t nz = 0;
    if (s == KR_OK) {
        for (int64_t i = 0; i < m; i++) zs[i] = k[3 * i + 2];
        qsort(zs, (size_t)m, sizeof(double), kri_cmp_double);
        for (int64_t i = 0; i < m; i++)
            if (i == 0 || zs[i] != zs[nz - 1]) zs[nz++] = zs[i];
    }
    double total_support = 0.0;
    for (int64_t pz = 0; s == KR_OK && pz < nz; pz++) {
        int64_t np = 0;
        for (int64_t i = 0; i < m; i++)
            if (k[3 * i + 2] == zs[pz]) {
                idx[np] = i, x[np] = k[3 * i], y[np] = k[3 * i + 1];
                np++;
            }
        if (np < 3) {
            s = kri_fail(KR_ERR_NOT_SUPPORTED, "kr_dcf: Voronoi weights need planes of constant "
                         "kz with >= 3 samples each; the plane kz = %g has %lld (for 3-D "
                         "trajectories use Pipe-Menon or the analytic radial weights)", zs[pz],
                         (long long)np);
            break;
        }
        int64_t dup = 0, clip = 0;
        double sup = 0.0;
        s = kri_voronoi_areas(x, y, np, &cfg, nthreads, a, &dup, &clip, &sup);
        if (s != KR_OK) break;
        for (int64_t t = 0; t < np; t++) w[idx[t]] = a[t];
        if (info) info->duplicates += dup, info->clipped += clip;
        total_support += sup;
    }
    if (info && s == KR_OK) info->support = total_support;
    kri_free(zs), kri_free(x), kri_free(y), kri_free(a), kri_free(idx);
    return s;
}

/* ---- Pipe-Menon ------------------------------------------------------------------------------------ */
#define KRI_PM_TABLE 4096

typedef struct kri_pm {
    double r2;       /* kernel radius squared */
    double tab[KRI_PM_TABLE + 2];
    int dim;
    double x0[3], h; /* bins */
    int64_t nb[3];
    int64_t *start, *order;
} kri_pm;

static double kri_pm_kernel(const kri_pm *p, double d2)
{
    double u = d2 / p->r2 * KRI_PM_TABLE;
    if (u >= KRI_PM_TABLE) return 0.0;
    int64_t i = (int64_t)u;
    double f = u - (double)i;
    return p->tab[i] + f * (p->tab[i + 1] - p->tab[i]);
}

static int64_t kri_pm_bin(const kri_pm *p, const double *k, int d)
{
    int64_t b = (int64_t)floor((k[d] - p->x0[d]) / p->h);
    if (b < 0) b = 0;
    if (b >= p->nb[d]) b = p->nb[d] - 1;
    return b;
}

static kr_status kri_pm_bins(kri_pm *p, const double *k, int64_t m)
{
    double lo[3], hi[3];
    for (int d = 0; d < 3; d++) lo[d] = hi[d] = k[d];
    for (int64_t i = 0; i < m; i++)
        for (int d = 0; d < 3; d++) lo[d] = fmin(lo[d], k[3 * i + d]), hi[d] = fmax(hi[d], k[3 * i + d]);
    p->h = sqrt(p->r2);
    for (;;) {
        int64_t tot = 1;
        for (int d = 0; d < 3; d++) {
            p->x0[d] = lo[d];
            p->nb[d] = d < p->dim ? (int64_t)floor((hi[d] - lo[d]) / p->h) + 1 : 1;
            tot *= p->nb[d];
        }
        if (tot <= ((int64_t)1 << 24)) break;
        p->h *= 2.0; /* bins larger than the kernel stay correct, only slower */
    }
    int64_t nbt = p->nb[0] * p->nb[1] * p->nb[2];
    KRI_TRY(kri_alloc((void **)&p->start, (size_t)(nbt + 1) * sizeof(int64_t), "Pipe-Menon bins"));
    memset(p->start, 0, (size_t)(nbt + 1) * sizeof(int64_t));
    KRI_TRY(kri_alloc((void **)&p->order, (size_t)m * sizeof(int64_t), "Pipe-Menon bins"));
    int64_t *fill = NULL;
    KRI_TRY(kri_alloc((void **)&fill, (size_t)nbt * sizeof(int64_t), "Pipe-Menon bins"));
    for (int64_t i = 0; i < m; i++) {
        const double *q = k + 3 * i;
        int64_t b = (kri_pm_bin(p, q, 2) * p->nb[1] + kri_pm_bin(p, q, 1)) * p->nb[0] +
                    kri_pm_bin(p, q, 0);
        p->start[b + 1]++;
    }
    for (int64_t b = 0; b < nbt; b++) p->start[b + 1] += p->start[b];
    memcpy(fill, p->start, (size_t)nbt * sizeof(int64_t));
    for (int64_t i = 0; i < m; i++) {
        const double *q = k + 3 * i;
        int64_t b = (kri_pm_bin(p, q, 2) * p->nb[1] + kri_pm_bin(p, q, 1)) * p->nb[0] +
                    kri_pm_bin(p, q, 0);
        p->order[fill[b]++] = i;
    }
    kri_free(fill);
    return KR_OK;
}

/* conv[j] = sum_m w[m] c(|k_j - k_m|), each j by one thread, neighbours in bin order. */
static void kri_pm_convolve(const kri_pm *p, const double *k, int64_t m, const double *w,
                            double *conv, int nthreads)
{
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 256)
    for (int64_t j = 0; j < m; j++) {
        const double *kj = k + 3 * j;
        int64_t b[3], lo[3], hi[3];
        for (int d = 0; d < 3; d++) {
            b[d] = kri_pm_bin(p, kj, d);
            lo[d] = b[d] > 0 ? b[d] - 1 : 0;
            hi[d] = b[d] + 1 < p->nb[d] ? b[d] + 1 : p->nb[d] - 1;
        }
        double sum = 0.0;
        for (int64_t bz = lo[2]; bz <= hi[2]; bz++)
            for (int64_t by = lo[1]; by <= hi[1]; by++)
                for (int64_t bx = lo[0]; bx <= hi[0]; bx++) {
                    int64_t bb = (bz * p->nb[1] + by) * p->nb[0] + bx;
                    for (int64_t t = p->start[bb]; t < p->start[bb + 1]; t++) {
                        int64_t q = p->order[t];
                        const double *kq = k + 3 * q;
                        double dx = kq[0] - kj[0], dy = kq[1] - kj[1], dz = kq[2] - kj[2];
                        double d2 = dx * dx + dy * dy + dz * dz;
                        if (d2 < p->r2) sum += w[q] * kri_pm_kernel(p, d2);
                    }
                }
        conv[j] = sum;
    }
}

static kr_status kri_dcf_pipe(const double *k, int64_t m, const kr_dcf_opts *o, int nthreads,
                              double *w, kr_dcf_info *info)
{
    kri_pm *p = kri_calloc(1, sizeof *p);
    if (!p) return kri_fail(KR_ERR_OOM_HOST, "kr_dcf: out of memory for the Pipe-Menon kernel");
    const double R = o->kernel_radius;
    /* Jackson et al. 1991: beta = 2.34 W for a kernel W = 2R Nyquist units wide */
    const double beta = o->beta > 0.0 ? o->beta : 2.34 * 2.0 * R;
    p->r2 = R * R;
    p->dim = 2;
    for (int64_t i = 0; i < m; i++)
        if (k[3 * i + 2] != k[2]) p->dim = 3;
    const double i0b = kri_bessel_i0(beta);
    for (int i = 0; i <= KRI_PM_TABLE + 1; i++) {
        double u = fmin(1.0, (double)i / KRI_PM_TABLE);
        p->tab[i] = kri_bessel_i0(beta * sqrt(1.0 - u)) / i0b;
    }
    /* integral of the kernel over the plane / space (Simpson in u = d^2 / R^2) */
    const int ns = 4096;
    double integ = 0.0;
    for (int i = 0; i <= ns; i++) {
        double u = (double)i / ns, c = kri_bessel_i0(beta * sqrt(1.0 - u)) / i0b;
        double f = p->dim == 2 ? c : c * sqrt(u);
        double wgt = (i == 0 || i == ns) ? 1.0 : ((i & 1) ? 4.0 : 2.0);
        integ += wgt * f;
    }
    integ *= 1.0 / (3.0 * ns);
    integ *= p->dim == 2 ? KRI_PI * R * R : 2.0 * KRI_PI * R * R * R;
    double *conv = NULL;
    kr_status s = kri_pm_bins(p, k, m);
    if (s == KR_OK) s = kri_alloc((void **)&conv, (size_t)m * sizeof(double), "Pipe-Menon");
    if (s == KR_OK) {
        for (int64_t i = 0; i < m; i++) w[i] = 1.0;
        for (int it = 0; it < o->iterations; it++) {
            kri_pm_convolve(p, k, m, w, conv, nthreads);
            for (int64_t i = 0; i < m; i++) w[i] = conv[i] > 0.0 ? w[i] / conv[i] : 0.0;
        }
        kri_pm_convolve(p, k, m, w, conv, nthreads);
        double flat = 0.0;
        for (int64_t i = 0; i < m; i++) flat = fmax(flat, fabs(conv[i] - 1.0));
        for (int64_t i = 0; i < m; i++) w[i] *= integ;
        if (info) info->iterations = o->iterations, info->flatness = flat;
    }
    kri_free(conv);
    kri_free(p->start);
    kri_free(p->order);
    kri_free(p);
    return s;
}

/* ---- analytic --------------------------------------------------------------------------------------- */
/* Sample dims as (n per shot, shots per partition, partitions). */
static void kri_dcf_layout(const kr_array *t, int64_t *n, int64_t *shots, int64_t *parts)
{
    *n = t->ndim > 1 ? t->dims[1] : 1;
    *shots = t->ndim > 2 ? t->dims[2] : 1;
    *parts = kr_array_numel(t) / 3 / (*n * *shots);
}

static kr_status kri_dcf_radial(const kr_array *t, const double *k, double *w)
{
    int64_t n, S, P;
    kri_dcf_layout(t, &n, &S, &P);
    if (n < 2)
        return kri_fail(KR_ERR_DIM, "kr_dcf: radial weights need >= 2 samples per spoke, got %lld",
                        (long long)n);
    int koosh = 0;
    for (int64_t sp = 0; sp < S * P && !koosh; sp++) {
        const double *a = k + 3 * sp * n, *b = a + 3 * (n - 1);
        if (fabs(a[2] - b[2]) > 1e-9 * (1.0 + fabs(a[2]))) koosh = 1;
    }
    if (koosh && P != 1)
        return kri_fail(KR_ERR_DIM, "kr_dcf: a 3-D radial trajectory must be [3, samples, spokes]");
    for (int64_t p = 0; p < P; p++) {
        int64_t centre = 0;
        double dkc = 0.0;
        for (int pass = 0; pass < 2; pass++) {
            for (int64_t s = 0; s < S; s++) {
                const double *a = k + 3 * (p * S + s) * n, *b = a + 3 * (n - 1);
                double ex = b[0] - a[0], ey = b[1] - a[1], ez = koosh ? b[2] - a[2] : 0.0;
                double dk = sqrt(ex * ex + ey * ey + ez * ez) / (double)(n - 1);
                for (int64_t i = 0; i < n; i++) {
                    const double *q = a + 3 * i;
                    double r = sqrt(q[0] * q[0] + q[1] * q[1] + (koosh ? q[2] * q[2] : 0.0));
                    double *wi = w + (p * S + s) * n + i;
                    if (r < 0.25 * dk) {
                        if (pass == 0) centre++, dkc = dk;
                        else *wi = koosh ? 4.0 / 3.0 * KRI_PI * pow(0.5 * dkc, 3) / (double)centre
                                         : KRI_PI * 0.25 * dkc * dkc / (double)centre;
                    } else if (pass == 1) {
                        *wi = koosh ? 2.0 * KRI_PI / (double)S * (r * r * dk + dk * dk * dk / 12.0)
                                    : KRI_PI / (double)S * r * dk;
                    }
                }
            }
        }
    }
    return KR_OK;
}

static kr_status kri_dcf_spiral(const kr_array *t, const double *k, double *w)
{
    int64_t n, S, P;
    kri_dcf_layout(t, &n, &S, &P);
    if (n < 2)
        return kri_fail(KR_ERR_DIM, "kr_dcf: spiral weights need >= 2 samples per interleave, got "
                        "%lld", (long long)n);
    for (int64_t sh = 0; sh < S * P; sh++) {
        const double *a = k + 3 * sh * n;
        for (int64_t i = 0; i < n; i++) {
            int64_t i0 = i > 0 ? i - 1 : 0, i1 = i + 1 < n ? i + 1 : n - 1;
            double tx = (a[3 * i1] - a[3 * i0]) / (double)(i1 - i0);
            double ty = (a[3 * i1 + 1] - a[3 * i0 + 1]) / (double)(i1 - i0);
            w[sh * n + i] = fabs(a[3 * i] * tx + a[3 * i + 1] * ty) * 2.0 * KRI_PI / (double)S;
        }
    }
    return KR_OK;
}

kr_status kr_dcf(kr_array **w, const kr_ctx *ctx, const kr_array *traj, const kr_dcf_opts *opts,
                 kr_dcf_info *info)
{
    KRI_ARG_NOT_NULL(w);
    *w = NULL;
    if (info) memset(info, 0, sizeof *info);
    kr_dcf_opts o;
    if (opts) o = *opts;
    else kr_dcf_opts_default(&o);
    KRI_TRY(kri_dcf_check_opts(&o));
    int64_t m;
    KRI_TRY(kri_traj_shape(traj, __func__, KR_HOST, &m));
    KRI_TRY(kr_traj_check(traj, NULL));
    double *k = NULL, *wd = NULL;
    KRI_TRY(kri_traj_to_f64(traj, &k, &m));
    kr_status s = kri_alloc((void **)&wd, (size_t)m * sizeof(double), "weights");
    int nt = kri_threads(ctx);
    if (s == KR_OK) {
        switch (o.method) {
        case KR_DCF_VORONOI: s = kri_dcf_voronoi(k, m, &o, nt, wd, info); break;
        case KR_DCF_PIPE_MENON: s = kri_dcf_pipe(k, m, &o, nt, wd, info); break;
        case KR_DCF_RADIAL: s = kri_dcf_radial(traj, k, wd); break;
        default: s = kri_dcf_spiral(traj, k, wd); break;
        }
    }
    if (s == KR_OK) {
        const int64_t one = 1;
        s = traj->ndim > 1
                ? kr_array_create(w, traj->dtype, traj->ndim - 1, traj->dims + 1, KR_HOST, NULL)
                : kr_array_create(w, traj->dtype, 1, &one, KR_HOST, NULL);
    }
    if (s == KR_OK) {
        double tot = 0.0;
        for (int64_t i = 0; i < m; i++) {
            tot += wd[i];
            if (traj->dtype == KR_F32) ((float *)(*w)->data)[i] = (float)wd[i];
            else ((double *)(*w)->data)[i] = wd[i];
        }
        if (info) info->total = tot;
    }
    kri_free(k);
    kri_free(wd);
    return s;
}
