/* Built-in phantom tables (Shepp-Logan 2-D, Kak-Slaney 3-D, Gach MR tissues) and the
 * argument checks shared by the phantom sources. Sources of the numbers: see kray/phantom.h. */
#include "phantom_internal.h"

#include <math.h>

/* 2-D Shepp & Logan 1974 (Kak & Slaney Table 3.1): rho, a, b, x0, y0, phi_deg. */
static const kr_ellipse sl2d_original[10] = {
    {2.00, 0.69, 0.92, 0.00, 0.0, 0.0},
    {-0.98, 0.6624, 0.874, 0.00, 0.0184, 0.0},
    {-0.02, 0.11, 0.31, 0.22, 0.0, 18.0},
    {-0.02, 0.16, 0.41, -0.22, 0.0, -18.0},
    {0.01, 0.21, 0.25, 0.00, -0.35, 0.0},
    {0.01, 0.046, 0.046, 0.00, -0.1, 0.0},
    {0.01, 0.046, 0.046, 0.00, 0.1, 0.0},
    {0.01, 0.046, 0.023, -0.08, 0.605, 0.0},
    {0.01, 0.023, 0.023, 0.00, 0.605, 0.0},
    {0.01, 0.023, 0.046, 0.06, 0.605, 0.0},
};

/* Same geometry, Toft's contrast. */
static const kr_ellipse sl2d_modified[10] = {
    {1.0, 0.69, 0.92, 0.00, 0.0, 0.0},
    {-0.8, 0.6624, 0.874, 0.00, 0.0184, 0.0},
    {-0.2, 0.11, 0.31, 0.22, 0.0, 18.0},
    {-0.2, 0.16, 0.41, -0.22, 0.0, -18.0},
    {0.1, 0.21, 0.25, 0.00, -0.35, 0.0},
    {0.1, 0.046, 0.046, 0.00, -0.1, 0.0},
    {0.1, 0.046, 0.046, 0.00, 0.1, 0.0},
    {0.1, 0.046, 0.023, -0.08, 0.605, 0.0},
    {0.1, 0.023, 0.023, 0.00, 0.605, 0.0},
    {0.1, 0.023, 0.046, 0.06, 0.605, 0.0},
};

/* 3-D Kak & Slaney 1988 p. 102: rho, a, b, c, x0, y0, z0, phi_deg. */
static const kr_ellipsoid sl3d_original[10] = {
    {2.00, 0.69, 0.92, 0.90, 0.00, 0.00, 0.00, 0.0},
    {-0.98, 0.6624, 0.874, 0.88, 0.00, 0.00, 0.00, 0.0},
    {-0.02, 0.41, 0.16, 0.21, -0.22, 0.00, -0.25, -108.0},
    {-0.02, 0.31, 0.11, 0.22, 0.22, 0.00, -0.25, -72.0},
    {0.02, 0.21, 0.25, 0.50, 0.00, -0.35, -0.25, 0.0},
    {0.02, 0.046, 0.046, 0.046, 0.00, -0.10, -0.25, 0.0},
    {0.01, 0.046, 0.023, 0.02, -0.08, 0.65, -0.25, 0.0},
    {0.01, 0.046, 0.023, 0.02, 0.06, 0.65, -0.25, -90.0},
    {0.02, 0.056, 0.04, 0.10, 0.06, 0.105, 0.625, -90.0},
    {-0.02, 0.056, 0.056, 0.10, 0.00, -0.10, 0.625, 0.0},
};

/* Same geometry, Yu, Ye & Wang 2004 contrast. */
static const kr_ellipsoid sl3d_modified[10] = {
    {1.0, 0.69, 0.92, 0.90, 0.00, 0.00, 0.00, 0.0},
    {-0.8, 0.6624, 0.874, 0.88, 0.00, 0.00, 0.00, 0.0},
    {-0.2, 0.41, 0.16, 0.21, -0.22, 0.00, -0.25, -108.0},
    {-0.2, 0.31, 0.11, 0.22, 0.22, 0.00, -0.25, -72.0},
    {0.2, 0.21, 0.25, 0.50, 0.00, -0.35, -0.25, 0.0},
    {0.2, 0.046, 0.046, 0.046, 0.00, -0.10, -0.25, 0.0},
    {0.1, 0.046, 0.023, 0.02, -0.08, 0.65, -0.25, 0.0},
    {0.1, 0.046, 0.023, 0.02, 0.06, 0.65, -0.25, -90.0},
    {0.2, 0.056, 0.04, 0.10, 0.06, 0.105, 0.625, -90.0},
    {-0.2, 0.056, 0.056, 0.10, 0.00, -0.10, 0.625, 0.0},
};

const kr_ellipse *kr_phantom_ellipses(kr_phantom_kind kind, int *n)
{
    const kr_ellipse *e = NULL;
    if (kind == KR_PHANTOM_SHEPP_LOGAN) e = sl2d_original;
    else if (kind == KR_PHANTOM_MODIFIED_SL) e = sl2d_modified;
    if (n) *n = e ? 10 : 0;
    return e;
}

const kr_ellipsoid *kr_phantom_ellipsoids(kr_phantom_kind kind, int *n)
{
    const kr_ellipsoid *e = NULL;
    if (kind == KR_PHANTOM_SHEPP_LOGAN) e = sl3d_original;
    else if (kind == KR_PHANTOM_MODIFIED_SL) e = sl3d_modified;
    if (n) *n = e ? 10 : 0;
    return e;
}

/* ---- MR tissues (Gach et al. 2008, via phantominator) ------------------------------------- */
enum { T_SCALP, T_MARROW, T_CSF, T_GRAY, T_WHITE, T_TUMOR, T_COUNT };

static const kri_mr_tissue mr_tissues[T_COUNT] = {
    {"scalp", 0.80, 0.324, 0.137, 0.0, 70.0},
    {"bone marrow", 0.12, 0.533, 0.088, 0.0, 50.0},
    {"csf", 0.98, 0.0, 0.0, 4200.0, 1990.0},
    {"gray matter", 0.745, 0.857, 0.376, 0.0, 100.0},
    {"white matter", 0.617, 0.583, 0.382, 0.0, 80.0},
    {"tumor", 0.95, 0.926, 0.217, 0.0, 100.0},
};

/* a, b, x0, y0, phi_deg, tissue: the 2-D Shepp-Logan geometry plus Gach's two layers. */
static const kri_mr_ellipse mr_ellipses[12] = {
    {0.72, 0.95, 0.00, 0.0, 0.0, T_SCALP},
    {0.69, 0.92, 0.00, 0.0, 0.0, T_MARROW},
    {0.6624, 0.874, 0.00, 0.0184, 0.0, T_CSF},
    {0.6524, 0.864, 0.00, 0.0184, 0.0, T_GRAY},
    {0.11, 0.31, 0.22, 0.0, 18.0, T_CSF},
    {0.16, 0.41, -0.22, 0.0, -18.0, T_CSF},
    {0.21, 0.25, 0.00, -0.35, 0.0, T_WHITE},
    {0.046, 0.046, 0.00, -0.1, 0.0, T_TUMOR},
    {0.046, 0.046, 0.00, 0.1, 0.0, T_TUMOR},
    {0.046, 0.023, -0.08, 0.605, 0.0, T_TUMOR},
    {0.023, 0.023, 0.00, 0.605, 0.0, T_TUMOR},
    {0.023, 0.046, 0.06, 0.605, 0.0, T_TUMOR},
};

const kri_mr_tissue *kri_mr_tissues(int *n)
{
    if (n) *n = T_COUNT;
    return mr_tissues;
}

const kri_mr_ellipse *kri_mr_ellipses(int *n)
{
    if (n) *n = (int)(sizeof mr_ellipses / sizeof mr_ellipses[0]);
    return mr_ellipses;
}

/* ---- checks ------------------------------------------------------------------------------- */
kr_status kri_phantom_check_ellipses(const kr_ellipse *e, int n, const char *fn)
{
    if (!e) return kri_fail(KR_ERR_INVALID_ARG, "%s: ellipse list is NULL", fn);
    if (n < 1) return kri_fail(KR_ERR_INVALID_ARG, "%s: ellipse count %d (must be >= 1)", fn, n);
    for (int i = 0; i < n; i++) {
        const kr_ellipse *p = &e[i];
        if (!isfinite(p->rho) || !isfinite(p->a) || !isfinite(p->b) || !isfinite(p->x0) ||
            !isfinite(p->y0) || !isfinite(p->phi_deg))
            return kri_fail(KR_ERR_INVALID_ARG, "%s: ellipse %d has a non-finite field", fn, i);
        if (!(p->a > 0) || !(p->b > 0))
            return kri_fail(KR_ERR_INVALID_ARG,
                            "%s: ellipse %d has semi-axes a = %g, b = %g (must be > 0)", fn, i,
                            p->a, p->b);
    }
    return KR_OK;
}

kr_status kri_phantom_check_ellipsoids(const kr_ellipsoid *e, int n, const char *fn)
{
    if (!e) return kri_fail(KR_ERR_INVALID_ARG, "%s: ellipsoid list is NULL", fn);
    if (n < 1)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: ellipsoid count %d (must be >= 1)", fn, n);
    for (int i = 0; i < n; i++) {
        const kr_ellipsoid *p = &e[i];
        if (!isfinite(p->rho) || !isfinite(p->a) || !isfinite(p->b) || !isfinite(p->c) ||
            !isfinite(p->x0) || !isfinite(p->y0) || !isfinite(p->z0) || !isfinite(p->phi_deg))
            return kri_fail(KR_ERR_INVALID_ARG, "%s: ellipsoid %d has a non-finite field", fn, i);
        if (!(p->a > 0) || !(p->b > 0) || !(p->c > 0))
            return kri_fail(KR_ERR_INVALID_ARG,
                            "%s: ellipsoid %d has semi-axes a = %g, b = %g, c = %g (must be > 0)",
                            fn, i, p->a, p->b, p->c);
    }
    return KR_OK;
}

kr_status kri_phantom_check_kind(kr_phantom_kind kind, const char *fn)
{
    if ((int)kind < 0 || kind >= KR_PHANTOM_KIND_COUNT)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: unknown phantom kind %d", fn, (int)kind);
    return KR_OK;
}

kr_status kri_phantom_check_grid(kr_phantom_grid grid, const char *fn)
{
    if ((int)grid < 0 || grid >= KR_GRID_COUNT)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: unknown pixel grid %d (KR_GRID_CT or KR_GRID_FFT)",
                        fn, (int)grid);
    return KR_OK;
}

kr_status kri_phantom_check_supersample(int s, const char *fn)
{
    if (s < 1 || s > KR_PHANTOM_MAX_SUPERSAMPLE)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: supersample %d is outside 1..%d", fn, s,
                        KR_PHANTOM_MAX_SUPERSAMPLE);
    return KR_OK;
}

kr_status kri_phantom_check_finite(const double *v, int64_t count, const char *fn,
                                   const char *what)
{
    for (int64_t i = 0; i < count; i++)
        if (!isfinite(v[i]))
            return kri_fail(KR_ERR_INVALID_ARG, "%s: %s[%lld] = %g is not finite", fn, what,
                            (long long)i, v[i]);
    return KR_OK;
}
