/* Isochromat objects: allocation and the maps -> isochromats builder. */
#include "sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

kr_status kr_iso_create(kr_iso **out, int64_t n)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    if (n < 1 || n > ((int64_t)1 << 36))
        return kri_fail(KR_ERR_INVALID_ARG, "an object needs 1 to 2^36 isochromats, not %lld",
                        (long long)n);
    kr_iso *iso = kri_calloc(1, sizeof *iso);
    if (!iso) return kri_fail(KR_ERR_OOM_HOST, "out of host memory creating an object");
    float *f = kri_calloc((size_t)n * 10, sizeof(float));
    int64_t *v = kri_malloc((size_t)n * sizeof(int64_t));
    if (!f || !v) {
        kri_free(f);
        kri_free(v);
        kri_free(iso);
        return kri_fail(KR_ERR_OOM_HOST, "out of host memory for %lld isochromats", (long long)n);
    }
    iso->n = n;
    iso->x_mm = f;
    iso->y_mm = f + n;
    iso->z_mm = f + 2 * n;
    iso->df_hz = f + 3 * n;
    iso->t1_ms = f + 4 * n;
    iso->t2_ms = f + 5 * n;
    iso->m0 = f + 6 * n;
    iso->mx = f + 7 * n;
    iso->my = f + 8 * n;
    iso->mz = f + 9 * n;
    iso->voxel = v;
    for (int64_t i = 0; i < n; i++)
        v[i] = -1;
    *out = iso;
    return KR_OK;
}

void kr_iso_destroy(kr_iso *iso)
{
    if (!iso) return;
    kri_free(iso->x_mm); /* the float block starts there */
    kri_free(iso->voxel);
    kri_free(iso);
}

kr_status kr_iso_equilibrium(kr_iso *iso)
{
    KRI_ARG_NOT_NULL(iso);
    if (!iso->mx || !iso->my || !iso->mz || !iso->m0)
        return kri_fail(KR_ERR_INVALID_ARG, "the object has NULL magnetisation arrays");
    for (int64_t i = 0; i < iso->n; i++) {
        iso->mx[i] = 0.0f;
        iso->my[i] = 0.0f;
        iso->mz[i] = iso->m0[i];
    }
    return KR_OK;
}

void kr_iso_opts_default(kr_iso_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->voxel_mm[0] = o->voxel_mm[1] = o->voxel_mm[2] = 1.0;
    o->grid = KR_GRID_FFT;
    o->sub[0] = o->sub[1] = o->sub[2] = 1;
    o->nfreq = 1;
    o->spread = KR_SPREAD_UNIFORM;
    o->decimate = 1;
    o->sine_axis = 1;
}

static kr_status check_map(const kr_array *a, const char *what, const kr_array *ref)
{
    char name[48];
    snprintf(name, sizeof name, "the %s map", what);
    KRI_TRY(kri_check_operand("kr_iso_from_maps", name, a, KRI_ANY_DTYPE, KR_HOST));
    if (a->dtype != KR_F32 && a->dtype != KR_F64)
        return kri_fail(KR_ERR_DTYPE, "the %s map is %s, expected f32 or f64", what,
                        kr_dtype_name(a->dtype));
    if (kr_array_rank(a) > 3)
        return kri_fail(KR_ERR_DIM, "the %s map must be a 2-D or 3-D array", what);
    if (ref) {
        for (int d = 0; d < 3; d++) {
            int64_t na = d < a->ndim ? a->dims[d] : 1, nr = d < ref->ndim ? ref->dims[d] : 1;
            if (na != nr) {
                char b1[64], b2[64];
                return kri_fail(KR_ERR_DIM, "the %s map is %s, the T1 map %s", what,
                                kr_dims_string(a->ndim, a->dims, b1, sizeof b1),
                                kr_dims_string(ref->ndim, ref->dims, b2, sizeof b2));
            }
        }
    }
    return KR_OK;
}

static inline double val(const kr_array *a, int64_t i)
{
    return a->dtype == KR_F32 ? (double)((const float *)a->data)[i] : ((const double *)a->data)[i];
}

static kr_status kri_iso_check_opts(const kr_iso_opts *o)
{
    for (int d = 0; d < 3; d++) {
        if (!(isfinite(o->voxel_mm[d]) && o->voxel_mm[d] > 0))
            return kri_fail(KR_ERR_INVALID_ARG, "voxel size %d is %g mm (must be > 0)", d,
                            o->voxel_mm[d]);
        if (o->sub[d] < 1 || o->sub[d] > 64)
            return kri_fail(KR_ERR_INVALID_ARG, "sub[%d] = %d isochromats per voxel (1 to 64)", d,
                            o->sub[d]);
    }
    if ((int)o->grid < 0 || o->grid >= KR_GRID_COUNT)
        return kri_fail(KR_ERR_INVALID_ARG, "invalid grid %d", (int)o->grid);
    if (o->nfreq < 1 || o->nfreq > 4096)
        return kri_fail(KR_ERR_INVALID_ARG, "nfreq = %d (1 to 4096)", o->nfreq);
    if (!(isfinite(o->spread_hz) && o->spread_hz >= 0) || (int)o->spread < 0 ||
        o->spread >= KR_SPREAD_COUNT)
        return kri_fail(KR_ERR_INVALID_ARG, "frequency spread %g Hz (kind %d) is invalid",
                        o->spread_hz, (int)o->spread);
    if (o->decimate != 1 && o->decimate != 2 && o->decimate != 4)
        return kri_fail(KR_ERR_INVALID_ARG, "decimate = %d (1, 2 or 4)", o->decimate);
    if (!isfinite(o->z_mm) || !isfinite(o->sine_amp_hz) || !isfinite(o->sine_cycles) ||
        o->sine_axis < 0 || o->sine_axis > 1)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "z_mm, sine amplitude and cycles must be finite and sine_axis 0 or 1");
    return KR_OK;
}

static double centre(kr_phantom_grid g, int64_t N)
{
    return g == KR_GRID_FFT ? (double)(N / 2) : 0.5 * (double)(N - 1);
}

kr_status kr_iso_from_maps(kr_iso **out, const kr_array *t1, const kr_array *t2, const kr_array *pd,
                           const kr_array *dfm, const kr_iso_opts *opts)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    kr_iso_opts o;
    if (opts)
        o = *opts;
    else
        kr_iso_opts_default(&o);
    KRI_TRY(kri_iso_check_opts(&o));
    KRI_TRY(check_map(t1, "T1", NULL));
    KRI_TRY(check_map(t2, "T2", t1));
    KRI_TRY(check_map(pd, "PD", t1));
    if (dfm) KRI_TRY(check_map(dfm, "off-resonance", t1));
    const int64_t nx = t1->dims[0], ny = t1->ndim > 1 ? t1->dims[1] : 1,
                  nz = t1->ndim > 2 ? t1->dims[2] : 1;
    const int d = o.decimate;
    const int64_t mx = (nx + d - 1) / d, my = (ny + d - 1) / d;
    const double dx = o.voxel_mm[0] * d, dy = o.voxel_mm[1] * d, dz = o.voxel_mm[2];
    /* validate and count */
    int64_t nvox = 0;
    for (int64_t k = 0; k < nz; k++)
        for (int64_t j = 0; j < my; j++)
            for (int64_t i = 0; i < mx; i++) {
                int64_t v = i * d + nx * (j * d + ny * k);
                double p = val(pd, v), a = val(t1, v), b = val(t2, v);
                if (!(isfinite(p) && p >= 0))
                    return kri_fail(KR_ERR_INVALID_ARG,
                                    "PD is %g at voxel (%lld, %lld, %lld) (must be finite, >= 0)",
                                    p, (long long)(i * d), (long long)(j * d), (long long)k);
                if (p > 0 && (!(isfinite(a) && a > 0) || !(isfinite(b) && b > 0)))
                    return kri_fail(KR_ERR_INVALID_ARG,
                                    "T1 = %g ms, T2 = %g ms at voxel (%lld, %lld, %lld) where PD = "
                                    "%g (T1 and T2 must be finite and > 0)",
                                    a, b, (long long)(i * d), (long long)(j * d), (long long)k, p);
                if (dfm && !isfinite(val(dfm, v)))
                    return kri_fail(KR_ERR_INVALID_ARG,
                                    "off-resonance is not finite at voxel (%lld, %lld, %lld)",
                                    (long long)(i * d), (long long)(j * d), (long long)k);
                if (p > 0) nvox++;
            }
    if (nvox == 0) return kri_fail(KR_ERR_INVALID_ARG, "no voxel has PD > 0");
    const int64_t per = (int64_t)o.sub[0] * o.sub[1] * o.sub[2] * o.nfreq;
    int64_t total = 0;
    if (!kri_mul_ok(nvox, per, &total) || total > ((int64_t)1 << 36))
        return kri_fail(KR_ERR_INVALID_ARG, "%lld voxels x %lld isochromats per voxel is too many",
                        (long long)nvox, (long long)per);
    kr_iso *iso = NULL;
    KRI_TRY(kr_iso_create(&iso, total));
    const double cx = centre(o.grid, mx), cy = centre(o.grid, my), cz = centre(o.grid, nz);
    const double fov[2] = {(double)mx * dx, (double)my * dy};
    int64_t q = 0;
    for (int64_t k = 0; k < nz; k++)
        for (int64_t j = 0; j < my; j++)
            for (int64_t i = 0; i < mx; i++) {
                int64_t v = i * d + nx * (j * d + ny * k);
                double p = val(pd, v);
                if (!(p > 0)) continue;
                double base_df = dfm ? val(dfm, v) : 0.0;
                for (int sz = 0; sz < o.sub[2]; sz++)
                    for (int sy = 0; sy < o.sub[1]; sy++)
                        for (int sx = 0; sx < o.sub[0]; sx++) {
                            double x =
                                ((double)i - cx + (2.0 * sx + 1.0 - o.sub[0]) / (2.0 * o.sub[0])) *
                                dx;
                            double y =
                                ((double)j - cy + (2.0 * sy + 1.0 - o.sub[1]) / (2.0 * o.sub[1])) *
                                dy;
                            double z = o.z_mm + ((double)k - cz +
                                                 (2.0 * sz + 1.0 - o.sub[2]) / (2.0 * o.sub[2])) *
                                                    dz;
                            double df0 = base_df;
                            if (o.sine_amp_hz != 0.0) {
                                double u = (o.sine_axis == 0 ? x : y) / fov[o.sine_axis];
                                df0 += o.sine_amp_hz * sin(2.0 * M_PI * o.sine_cycles * u);
                            }
                            for (int f = 0; f < o.nfreq; f++) {
                                double w = ((double)f + 0.5) / (double)o.nfreq - 0.5, off = 0.0;
                                if (o.nfreq > 1) {
                                    if (o.spread == KR_SPREAD_UNIFORM)
                                        off = o.spread_hz * w;
                                    else
                                        off = o.spread_hz * tan(M_PI * w);
                                }
                                iso->x_mm[q] = (float)x;
                                iso->y_mm[q] = (float)y;
                                iso->z_mm[q] = (float)z;
                                iso->df_hz[q] = (float)(df0 + off);
                                iso->t1_ms[q] = (float)val(t1, v);
                                iso->t2_ms[q] = (float)val(t2, v);
                                iso->m0[q] = (float)(p / (double)per);
                                iso->voxel[q] = i + mx * (j + my * k);
                                q++;
                            }
                        }
            }
    kr_iso_equilibrium(iso);
    *out = iso;
    return KR_OK;
}

kr_status kr_iso_from_tissue(kr_iso **out, const kr_array *tissue, const kr_array *df_hz,
                             const kr_iso_opts *opts)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_TRY(kri_check_operand("kr_iso_from_tissue", "the tissue array", tissue, KRI_ANY_DTYPE,
                              KR_HOST));
    if (tissue->dtype != KR_F32 && tissue->dtype != KR_F64)
        return kri_fail(KR_ERR_DTYPE, "the tissue array is %s, expected f32 or f64",
                        kr_dtype_name(tissue->dtype));
    if (tissue->ndim < 3 || tissue->dims[2] != 3 || kr_array_rank(tissue) > 3) {
        char b[64];
        return kri_fail(KR_ERR_DIM, "the tissue array is %s, expected [nx, ny, 3]",
                        kr_dims_string(tissue->ndim, tissue->dims, b, sizeof b));
    }
    const int64_t dims[2] = {tissue->dims[0], tissue->dims[1]};
    const size_t plane = (size_t)(dims[0] * dims[1]) * kr_dtype_size(tissue->dtype);
    kr_array t1, t2, pd;
    char *base = tissue->data;
    KRI_TRY(kr_array_wrap(&t1, tissue->dtype, 2, dims, base, KR_HOST));
    KRI_TRY(kr_array_wrap(&t2, tissue->dtype, 2, dims, base + plane, KR_HOST));
    KRI_TRY(kr_array_wrap(&pd, tissue->dtype, 2, dims, base + 2 * plane, KR_HOST));
    return kr_iso_from_maps(out, &t1, &t2, &pd, df_hz, opts);
}
