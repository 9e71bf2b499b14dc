/* Rasterisation of ellipse / ellipsoid phantoms (sub-sample means), point evaluation and the
 * 2-D MR tissue phantom. OpenMP over output rows; every pixel is computed by one thread in a
 * fixed order, so results do not depend on the thread count. */
#include "phantom_internal.h"

#include <math.h>
#include <string.h>

/* ---- prepared shapes ---------------------------------------------------------------------- */
typedef struct ell {
    double rho, x0, y0, z0, c, s, ia2, ib2, ic2;
    double wx, wy, wz; /* half-extents of the bounding box (slightly enlarged) */
    double area;       /* pi a b (2-D) */
} ell;

static const double BOX_GROW = 1.0 + 1e-9;

static void prep_ellipse(const kr_ellipse *e, ell *p)
{
    double phi = e->phi_deg * (M_PI / 180.0);
    p->rho = e->rho;
    p->x0 = e->x0;
    p->y0 = e->y0;
    p->z0 = 0;
    p->c = cos(phi);
    p->s = sin(phi);
    p->ia2 = 1.0 / (e->a * e->a);
    p->ib2 = 1.0 / (e->b * e->b);
    p->ic2 = 0;
    p->wx = sqrt(e->a * e->a * p->c * p->c + e->b * e->b * p->s * p->s) * BOX_GROW + 1e-12;
    p->wy = sqrt(e->a * e->a * p->s * p->s + e->b * e->b * p->c * p->c) * BOX_GROW + 1e-12;
    p->wz = 0;
    p->area = M_PI * e->a * e->b;
}

static void prep_ellipsoid(const kr_ellipsoid *e, ell *p)
{
    kr_ellipse e2 = {e->rho, e->a, e->b, e->x0, e->y0, e->phi_deg};
    prep_ellipse(&e2, p);
    p->z0 = e->z0;
    p->ic2 = 1.0 / (e->c * e->c);
    p->wz = e->c * BOX_GROW + 1e-12;
}

/* The membership tests, used by every function of this file. */
static inline int inside2(const ell *p, double x, double y)
{
    double dx = x - p->x0, dy = y - p->y0;
    double u = dx * p->c + dy * p->s, v = dy * p->c - dx * p->s;
    return u * u * p->ia2 + v * v * p->ib2 <= 1.0;
}

static inline int inside3(const ell *p, double x, double y, double z)
{
    double dx = x - p->x0, dy = y - p->y0, dz = z - p->z0;
    double u = dx * p->c + dy * p->s, v = dy * p->c - dx * p->s;
    return u * u * p->ia2 + v * v * p->ib2 + dz * dz * p->ic2 <= 1.0;
}

/* Sub-sample positions along one axis: pos[q] = (2 q + off) / (s N), q < s N. */
static kr_status axis_positions(double **pos, kr_phantom_grid g, int64_t N, int s)
{
    int64_t m = N * s;
    KRI_TRY(kri_alloc((void **)pos, (size_t)m * sizeof(double), "phantom sample positions"));
    double off = kri_phantom_sub_offset(g, N, s), den = (double)s * (double)N;
    for (int64_t q = 0; q < m; q++) (*pos)[q] = (2.0 * (double)q + off) / den;
    return KR_OK;
}

/* Index range [lo, hi] of sub-samples whose position may lie in [c - w, c + w]. */
static void sample_range(double c, double w, kr_phantom_grid g, int64_t N, int s, int64_t *lo,
                         int64_t *hi)
{
    double off = kri_phantom_sub_offset(g, N, s), den = (double)s * (double)N;
    double m = (double)(N * s);
    double a = floor(((c - w) * den - off) / 2.0) - 1.0;
    double b = ceil(((c + w) * den - off) / 2.0) + 1.0;
    if (a < 0) a = 0;
    if (b > m - 1) b = m - 1;
    *lo = (int64_t)a;
    *hi = (int64_t)b;
}

static kr_status check_real_dtype(kr_dtype t, const char *fn)
{
    if (t != KR_F32 && t != KR_F64)
        return kri_fail(KR_ERR_DTYPE, "%s: output type %s is not supported (f32 or f64)", fn,
                        kr_dtype_name(t));
    return KR_OK;
}

static inline void store(kr_array *a, int64_t idx, double v)
{
    if (a->dtype == KR_F32)
        ((float *)a->data)[idx] = (float)v;
    else
        ((double *)a->data)[idx] = v;
}

/* ---- 2-D / 3-D rasterisation -------------------------------------------------------------- */
/* One routine for both: 2-D is the 3-D case with nz = 1 and no z test. */
static kr_status raster(kr_array *out, const ell *E, int n, int dim3, kr_phantom_grid g,
                        int64_t nx, int64_t ny, int64_t nz, int s)
{
    double *xs = NULL, *ys = NULL, *zs = NULL;
    kr_status st = axis_positions(&xs, g, nx, s);
    if (st == KR_OK) st = axis_positions(&ys, g, ny, s);
    if (st == KR_OK) st = axis_positions(&zs, g, nz, dim3 ? s : 1);
    int64_t *lo = NULL, *hi = NULL;
    if (st == KR_OK) st = kri_alloc((void **)&lo, (size_t)n * sizeof(int64_t), "phantom ranges");
    if (st == KR_OK) st = kri_alloc((void **)&hi, (size_t)n * sizeof(int64_t), "phantom ranges");
    if (st != KR_OK) goto done;
    for (int e = 0; e < n; e++) sample_range(E[e].x0, E[e].wx, g, nx, s, &lo[e], &hi[e]);

    const int64_t nrows = ny * nz, ms = nx * (int64_t)s;
    const int sz_count = dim3 ? s : 1;
    const double inv = 1.0 / ((double)s * (double)s * (double)sz_count);
    int oom = 0;
#pragma omp parallel num_threads(kri_threads(NULL))
    {
        double *buf = kri_malloc((size_t)ms * sizeof(double));
        double *acc = kri_malloc((size_t)nx * sizeof(double));
        if (!buf || !acc) {
#pragma omp atomic write
            oom = 1;
        }
#pragma omp for schedule(dynamic, 4)
        for (int64_t r = 0; r < nrows; r++) {
            if (!buf || !acc) continue;
            int64_t j = r % ny, k = r / ny;
            memset(acc, 0, (size_t)nx * sizeof(double));
            for (int sz = 0; sz < sz_count; sz++) {
                double z = dim3 ? zs[k * s + sz] : 0.0;
                for (int sy = 0; sy < s; sy++) {
                    double y = ys[j * s + sy];
                    memset(buf, 0, (size_t)ms * sizeof(double));
                    for (int e = 0; e < n; e++) {
                        const ell *p = &E[e];
                        if (fabs(y - p->y0) > p->wy) continue;
                        if (dim3) {
                            if (fabs(z - p->z0) > p->wz) continue;
                            for (int64_t q = lo[e]; q <= hi[e]; q++)
                                if (inside3(p, xs[q], y, z)) buf[q] += p->rho;
                        } else {
                            for (int64_t q = lo[e]; q <= hi[e]; q++)
                                if (inside2(p, xs[q], y)) buf[q] += p->rho;
                        }
                    }
                    for (int64_t i = 0; i < nx; i++) {
                        double t = 0;
                        for (int sx = 0; sx < s; sx++) t += buf[i * s + sx];
                        acc[i] += t;
                    }
                }
            }
            for (int64_t i = 0; i < nx; i++) store(out, i + nx * r, acc[i] * inv);
        }
        kri_free(buf);
        kri_free(acc);
    }
    if (oom) st = kri_fail(KR_ERR_OOM_HOST, "out of host memory for phantom row buffers");
done:
    kri_free(xs);
    kri_free(ys);
    kri_free(zs);
    kri_free(lo);
    kri_free(hi);
    return st;
}

kr_status kr_phantom_2d_grid(kr_array **out, const kr_ellipse *e, int n, kr_phantom_grid grid,
                             int64_t nx, int64_t ny, int supersample, kr_dtype dtype)
{
    static const char *fn = "kr_phantom_2d";
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_TRY(kri_phantom_check_ellipses(e, n, fn));
    KRI_TRY(kri_phantom_check_grid(grid, fn));
    KRI_TRY(kri_phantom_check_supersample(supersample, fn));
    KRI_TRY(check_real_dtype(dtype, fn));
    int64_t dims[2] = {nx, ny};
    KRI_TRY(kr_dims_check(2, dims, "phantom image"));
    ell *E = NULL;
    KRI_TRY(kri_alloc((void **)&E, (size_t)n * sizeof(ell), "phantom ellipses"));
    for (int i = 0; i < n; i++) prep_ellipse(&e[i], &E[i]);
    kr_array *a = NULL;
    kr_status st = kr_array_create(&a, dtype, 2, dims, KR_HOST, NULL);
    if (st == KR_OK) st = raster(a, E, n, 0, grid, nx, ny, 1, supersample);
    kri_free(E);
    if (st != KR_OK) {
        kr_array_destroy(a);
        return st;
    }
    *out = a;
    return KR_OK;
}

kr_status kr_phantom_3d_grid(kr_array **out, const kr_ellipsoid *e, int n,
                             kr_phantom_grid grid, int64_t nx, int64_t ny, int64_t nz,
                             int supersample, kr_dtype dtype)
{
    static const char *fn = "kr_phantom_3d";
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_TRY(kri_phantom_check_ellipsoids(e, n, fn));
    KRI_TRY(kri_phantom_check_grid(grid, fn));
    KRI_TRY(kri_phantom_check_supersample(supersample, fn));
    KRI_TRY(check_real_dtype(dtype, fn));
    int64_t dims[3] = {nx, ny, nz};
    KRI_TRY(kr_dims_check(3, dims, "phantom volume"));
    ell *E = NULL;
    KRI_TRY(kri_alloc((void **)&E, (size_t)n * sizeof(ell), "phantom ellipsoids"));
    for (int i = 0; i < n; i++) prep_ellipsoid(&e[i], &E[i]);
    kr_array *a = NULL;
    kr_status st = kr_array_create(&a, dtype, 3, dims, KR_HOST, NULL);
    if (st == KR_OK) st = raster(a, E, n, 1, grid, nx, ny, nz, supersample);
    kri_free(E);
    if (st != KR_OK) {
        kr_array_destroy(a);
        return st;
    }
    *out = a;
    return KR_OK;
}

kr_status kr_phantom_2d(kr_array **out, kr_phantom_kind kind, int64_t nx, int64_t ny,
                        int supersample, kr_dtype dtype)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_TRY(kri_phantom_check_kind(kind, "kr_phantom_2d"));
    int n = 0;
    const kr_ellipse *e = kr_phantom_ellipses(kind, &n);
    return kr_phantom_2d_grid(out, e, n, KR_GRID_CT, nx, ny, supersample, dtype);
}

kr_status kr_phantom_3d(kr_array **out, kr_phantom_kind kind, int64_t nx, int64_t ny,
                        int64_t nz, int supersample, kr_dtype dtype)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_TRY(kri_phantom_check_kind(kind, "kr_phantom_3d"));
    int n = 0;
    const kr_ellipsoid *e = kr_phantom_ellipsoids(kind, &n);
    return kr_phantom_3d_grid(out, e, n, KR_GRID_CT, nx, ny, nz, supersample, dtype);
}

kr_status kr_phantom_2d_ellipses(kr_array **out, const kr_ellipse *e, int n, int64_t nx,
                                 int64_t ny, int supersample, kr_dtype dtype)
{
    return kr_phantom_2d_grid(out, e, n, KR_GRID_CT, nx, ny, supersample, dtype);
}

/* ---- point evaluation --------------------------------------------------------------------- */
kr_status kr_phantom_eval_2d(const kr_ellipse *e, int n, const double *xy, int64_t npts,
                             double *out)
{
    static const char *fn = "kr_phantom_eval_2d";
    KRI_TRY(kri_phantom_check_ellipses(e, n, fn));
    KRI_ARG_NOT_NULL(xy);
    KRI_ARG_NOT_NULL(out);
    if (npts < 1)
        return kri_fail(KR_ERR_DIM, "%s: point count %lld (must be >= 1)", fn, (long long)npts);
    ell E[64];
    ell *P = E;
    if (n > 64) KRI_TRY(kri_alloc((void **)&P, (size_t)n * sizeof(ell), "phantom ellipses"));
    for (int i = 0; i < n; i++) prep_ellipse(&e[i], &P[i]);
#pragma omp parallel for schedule(static) num_threads(kri_threads(NULL))
    for (int64_t p = 0; p < npts; p++) {
        double x = xy[2 * p], y = xy[2 * p + 1], v = 0;
        for (int i = 0; i < n; i++)
            if (inside2(&P[i], x, y)) v += P[i].rho;
        out[p] = v;
    }
    if (P != E) kri_free(P);
    return KR_OK;
}

kr_status kr_phantom_eval_3d(const kr_ellipsoid *e, int n, const double *xyz, int64_t npts,
                             double *out)
{
    static const char *fn = "kr_phantom_eval_3d";
    KRI_TRY(kri_phantom_check_ellipsoids(e, n, fn));
    KRI_ARG_NOT_NULL(xyz);
    KRI_ARG_NOT_NULL(out);
    if (npts < 1)
        return kri_fail(KR_ERR_DIM, "%s: point count %lld (must be >= 1)", fn, (long long)npts);
    ell E[64];
    ell *P = E;
    if (n > 64) KRI_TRY(kri_alloc((void **)&P, (size_t)n * sizeof(ell), "phantom ellipsoids"));
    for (int i = 0; i < n; i++) prep_ellipsoid(&e[i], &P[i]);
#pragma omp parallel for schedule(static) num_threads(kri_threads(NULL))
    for (int64_t p = 0; p < npts; p++) {
        double x = xyz[3 * p], y = xyz[3 * p + 1], z = xyz[3 * p + 2], v = 0;
        for (int i = 0; i < n; i++)
            if (inside3(&P[i], x, y, z)) v += P[i].rho;
        out[p] = v;
    }
    if (P != E) kri_free(P);
    return KR_OK;
}

/* ---- MR tissue phantom -------------------------------------------------------------------- */
kr_status kr_phantom_mr_2d_grid(kr_array **out, kr_phantom_grid grid, int64_t nx, int64_t ny,
                                int supersample, double b0_tesla)
{
    static const char *fn = "kr_phantom_mr_2d";
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_TRY(kri_phantom_check_grid(grid, fn));
    KRI_TRY(kri_phantom_check_supersample(supersample, fn));
    if (!(b0_tesla > 0 && b0_tesla <= 20))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: field strength %g T is outside (0, 20]", fn,
                        b0_tesla);
    int64_t dims[3] = {nx, ny, 3};
    KRI_TRY(kr_dims_check(3, dims, "MR phantom"));

    int nt = 0, ne = 0;
    const kri_mr_tissue *T = kri_mr_tissues(&nt);
    const kri_mr_ellipse *M = kri_mr_ellipses(&ne);
    double pd[16], t1[16], t2[16];
    ell E[16];
    int tis[16];
    for (int t = 0; t < nt; t++) {
        pd[t] = T[t].pd;
        t1[t] = T[t].t1_fixed_ms > 0 ? T[t].t1_fixed_ms
                                     : 1000.0 * T[t].t1_a * pow(b0_tesla, T[t].t1_c);
        t2[t] = T[t].t2_ms;
    }
    for (int i = 0; i < ne; i++) {
        kr_ellipse e = {0, M[i].a, M[i].b, M[i].x0, M[i].y0, M[i].phi_deg};
        prep_ellipse(&e, &E[i]);
        tis[i] = M[i].tissue;
    }

    kr_array *a = NULL;
    KRI_TRY(kr_array_create(&a, KR_F32, 3, dims, KR_HOST, NULL));
    const int s = supersample;
    double *xs = NULL, *ys = NULL;
    kr_status st = axis_positions(&xs, grid, nx, s);
    if (st == KR_OK) st = axis_positions(&ys, grid, ny, s);
    if (st != KR_OK) {
        kri_free(xs);
        kri_free(ys);
        kr_array_destroy(a);
        return st;
    }
    float *o = a->data;
    const int64_t plane = nx * ny;
#pragma omp parallel for schedule(dynamic, 4) num_threads(kri_threads(NULL))
    for (int64_t j = 0; j < ny; j++) {
        for (int64_t i = 0; i < nx; i++) {
            double spd = 0, st1 = 0, st2 = 0;
            for (int sy = 0; sy < s; sy++) {
                double y = ys[j * s + sy];
                for (int sx = 0; sx < s; sx++) {
                    double x = xs[i * s + sx];
                    int best = -1;
                    for (int e = 0; e < ne; e++)
                        if (fabs(y - E[e].y0) <= E[e].wy && inside2(&E[e], x, y) &&
                            (best < 0 || E[e].area <= E[best].area))
                            best = e;
                    if (best < 0) continue;
                    int t = tis[best];
                    spd += pd[t];
                    st1 += pd[t] * t1[t];
                    st2 += pd[t] * t2[t];
                }
            }
            int64_t idx = i + nx * j;
            o[idx] = spd > 0 ? (float)(st1 / spd) : 0.0f;
            o[idx + plane] = spd > 0 ? (float)(st2 / spd) : 0.0f;
            o[idx + 2 * plane] = (float)(spd / ((double)s * (double)s));
        }
    }
    kri_free(xs);
    kri_free(ys);
    *out = a;
    return KR_OK;
}

kr_status kr_phantom_mr_2d(kr_array **out, int64_t nx, int64_t ny, int supersample)
{
    return kr_phantom_mr_2d_grid(out, KR_GRID_CT, nx, ny, supersample, 1.5);
}
