/* Trajectory shape checks, unit conversion, extent, and BART/NumPy/raw trajectory files. */
#include "kray/io.h"
#include "mri/mri_internal.h"

#include <math.h>
#include <string.h>

kr_status kri_traj_shape(const kr_array *traj, const char *fn, kr_loc loc, int64_t *m)
{
    KRI_TRY(kri_check_operand(fn, "trajectory", traj, KRI_ANY_DTYPE, loc));
    if (traj->dtype != KR_F32 && traj->dtype != KR_F64)
        return kri_fail(KR_ERR_DTYPE, "%s: trajectory must be f32 or f64, got %s", fn,
                        kr_dtype_name(traj->dtype));
    if (traj->dims[0] != 3) {
        char d[160];
        return kri_fail(KR_ERR_DIM, "%s: trajectory has dims %s; expected [3, samples, ...] "
                        "(kx, ky, kz per sample)", fn,
                        kr_dims_string(traj->ndim, traj->dims, d, sizeof d));
    }
    if (m) *m = kr_array_numel(traj) / 3;
    return KR_OK;
}

kr_status kri_traj_to_f64(const kr_array *traj, double **k, int64_t *m)
{
    KRI_TRY(kri_traj_shape(traj, __func__, KR_HOST, m));
    KRI_TRY(kri_alloc((void **)k, (size_t)(*m) * 3 * sizeof(double), "trajectory copy"));
    for (int64_t i = 0; i < *m; i++) kri_traj_get(traj, i, *k + 3 * i);
    return KR_OK;
}

static double kri_unit_factor(kr_kunits u, int64_t n)
{
    switch (u) {
    case KR_K_CYCLES_PER_PIXEL: return 1.0 / (double)n;
    case KR_K_RADIANS: return 2.0 * KRI_PI / (double)n;
    default: return 1.0;
    }
}

kr_status kr_traj_convert(kr_array *traj, kr_kunits from, kr_kunits to, const int64_t n[3])
{
    int64_t m;
    KRI_TRY(kri_traj_shape(traj, __func__, KR_HOST, &m));
    if ((unsigned)from > KR_K_RADIANS || (unsigned)to > KR_K_RADIANS)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_traj_convert: unknown k units %d -> %d", (int)from,
                        (int)to);
    if ((from != KR_K_CYCLES_PER_FOV || to != KR_K_CYCLES_PER_FOV) && !n)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_traj_convert: the image matrix n is needed to "
                        "convert per-pixel units");
    double f[3] = {1.0, 1.0, 1.0};
    for (int d = 0; d < 3; d++) {
        if (!n) break;
        if (n[d] < 1)
            return kri_fail(KR_ERR_DIM, "kr_traj_convert: matrix size n[%d] = %lld must be >= 1",
                            d, (long long)n[d]);
        if (n[d] > 1) f[d] = kri_unit_factor(to, n[d]) / kri_unit_factor(from, n[d]);
    }
    for (int64_t i = 0; i < m; i++)
        for (int d = 0; d < 3; d++) {
            if (traj->dtype == KR_F32) {
                float *p = (float *)traj->data + 3 * i + d;
                *p = (float)((double)*p * f[d]);
            } else {
                double *p = (double *)traj->data + 3 * i + d;
                *p *= f[d];
            }
        }
    return KR_OK;
}

kr_status kr_traj_check(const kr_array *traj, const int64_t n[3])
{
    int64_t m;
    KRI_TRY(kri_traj_shape(traj, __func__, KR_HOST, &m));
    static const char ax[3] = {'x', 'y', 'z'};
    if (n)
        for (int d = 0; d < 3; d++)
            if (n[d] < 1)
                return kri_fail(KR_ERR_DIM, "kr_traj_check: matrix size n[%d] = %lld must be >= 1",
                                d, (long long)n[d]);
    for (int64_t i = 0; i < m; i++) {
        double k[3];
        kri_traj_get(traj, i, k);
        for (int d = 0; d < 3; d++) {
            if (!isfinite(k[d]))
                return kri_fail(KR_ERR_GEOMETRY, "trajectory sample %lld has k%c = %g (not finite)",
                                (long long)i, ax[d], k[d]);
            if (n) {
                double h = 0.5 * (double)n[d];
                if (!(k[d] >= -h && k[d] < h))
                    return kri_fail(KR_ERR_GEOMETRY, "trajectory sample %lld has k%c = %g outside "
                                    "[-%g, %g) for a matrix of %lld (k must be in cycles per FOV)",
                                    (long long)i, ax[d], k[d], h, h, (long long)n[d]);
            }
        }
    }
    return KR_OK;
}

kr_status kr_traj_extent(const kr_array *traj, double kmax_axis[3], double *kmax_radius)
{
    int64_t m;
    KRI_TRY(kri_traj_shape(traj, __func__, KR_HOST, &m));
    double a[3] = {0, 0, 0}, r2 = 0.0;
    for (int64_t i = 0; i < m; i++) {
        double k[3];
        kri_traj_get(traj, i, k);
        for (int d = 0; d < 3; d++) a[d] = fmax(a[d], fabs(k[d]));
        r2 = fmax(r2, k[0] * k[0] + k[1] * k[1] + k[2] * k[2]);
    }
    if (kmax_axis)
        for (int d = 0; d < 3; d++) kmax_axis[d] = a[d];
    if (kmax_radius) *kmax_radius = sqrt(r2);
    return KR_OK;
}

/* BART's k0 and k1 belong to its image axes 0 (rows, kray's y) and 1 (columns, kray's x): swap
 * the first two coordinates of every sample (host, f32/f64/c64/c128) at the .cfl boundary. */
static void kri_traj_swap_xy(kr_array *t)
{
    int64_t m = kr_array_numel(t) / 3;
    size_t es = kr_dtype_size(t->dtype);
    unsigned char *p = t->data, tmp[16];
    for (int64_t i = 0; i < m; i++) {
        unsigned char *a = p + (size_t)(3 * i) * es, *b = a + es;
        memcpy(tmp, a, es), memcpy(a, b, es), memcpy(b, tmp, es);
    }
}

kr_status kr_traj_read(const char *path, kr_array **out, kr_dtype dtype)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(path);
    if (dtype != KR_F32 && dtype != KR_F64)
        return kri_fail(KR_ERR_DTYPE, "kr_traj_read: trajectory dtype must be f32 or f64, got %s",
                        kr_dtype_name(dtype));
    kr_array *a = NULL;
    KRI_TRY(kr_read(path, &a, NULL, NULL));
    kr_status s = KR_OK;
    if (a->dims[0] != 3) {
        char d[160];
        s = kri_fail(KR_ERR_FORMAT, "%s: dims %s are not a trajectory [3, samples, ...]", path,
                     kr_dims_string(a->ndim, a->dims, d, sizeof d));
    } else if (!kr_dtype_is_float(a->dtype)) {
        s = kri_fail(KR_ERR_FORMAT, "%s: element type %s is not a trajectory type", path,
                     kr_dtype_name(a->dtype));
    }
    int64_t n = kr_array_numel(a);
    if (s == KR_OK && kr_dtype_is_complex(a->dtype)) {
        for (int64_t i = 0; i < n; i++) {
            double im = a->dtype == KR_C64 ? (double)((const float *)a->data)[2 * i + 1]
                                           : ((const double *)a->data)[2 * i + 1];
            if (im != 0.0) {
                s = kri_fail(KR_ERR_FORMAT, "%s: value %lld has imaginary part %g; a BART "
                             "trajectory keeps k in the real parts", path, (long long)i, im);
                break;
            }
        }
    }
    if (s == KR_OK) s = kr_array_create(out, dtype, a->ndim, a->dims, KR_HOST, NULL);
    if (s == KR_OK) s = kr_array_convert(*out, a); /* complex -> real takes the real part */
    if (s == KR_OK && kr_format_from_path(path) == KR_FMT_CFL) kri_traj_swap_xy(*out);
    kr_array_destroy(a);
    if (s != KR_OK) {
        kr_array_destroy(*out);
        *out = NULL;
    }
    return s;
}

kr_status kr_traj_write(const char *path, const kr_array *traj)
{
    KRI_ARG_NOT_NULL(path);
    KRI_TRY(kri_traj_shape(traj, __func__, KR_HOST, NULL));
    if (kr_format_from_path(path) != KR_FMT_CFL) return kr_write(path, traj, NULL);
    kr_array *c = NULL;
    KRI_TRY(kr_array_create(&c, KR_C64, traj->ndim, traj->dims, KR_HOST, NULL));
    kr_status s = kr_array_convert(c, traj);
    if (s == KR_OK) kri_traj_swap_xy(c);
    if (s == KR_OK) s = kr_write(path, c, NULL);
    kr_array_destroy(c);
    return s;
}
