/* CG-SENSE coil maps from the data's own k-space centre: windowed low-resolution coil images
 * normalised by their root sum of squares, or ESPIRiT on a fitted Cartesian calibration region
 * (see cgsense.h). */
#include "kray/cgsense.h"
#include "internal.h"
#include "kray/fft.h"
#include "kray/nufft.h"
#include "kray/sense.h"
#include "mri/mri_internal.h"

#include <math.h>
#include <string.h>

void kr_cgsense_maps_opts_default(kr_cgsense_maps_opts *o)
{
    if (!o) return;
    o->calib_radius = 12;
    o->threshold = 0;
    o->espirit = 0;
}

/* ESPIRiT on the calibration k-space of the samples (kr_cgsense_calib_kspace): with density
 * weights their gridding on the image grid (one CG step), else the least-squares fit on a small
 * grid (30 steps); on the ctx's backend (a NULL ctx: the CPU); *maps on the host. */
static kr_status kri_maps_espirit(const kr_ctx *ctx, int ndim, const int64_t *dims,
                                  const kr_array *traj, const kr_array *kspace,
                                  const kr_array *dcf, const kr_cgsense_maps_opts *o,
                                  kr_array **maps)
{
    kr_ctx *own = NULL;
    if (!ctx) {
        KRI_TRY(kr_ctx_create(&own, KR_BACKEND_CPU));
        kr_ctx_set_quiet(own, 1);
        ctx = own;
    }
    kr_array *cal = NULL;
    int64_t full = 0;
    for (int a = 0; a < ndim; a++) full = dims[a] > full ? dims[a] : full;
    kr_status st = kr_cgsense_calib_kspace(ctx, ndim, dims, traj, kspace, dcf, o->calib_radius,
                                           dcf ? 1 : 30, dcf ? full : 0, &cal);
    kr_espirit_opts eo;
    kr_espirit_opts_default(&eo);
    eo.calib = 2 * (int)floor(o->calib_radius);
    /* the kernel: 6, or the largest below it that leaves at least as many calibration rows,
     * (c - k + 1)^d with c = 2 ceil(r) - 1 samples per axis, as kernel columns k^d C (a small
     * 3-D region is otherwise underdetermined: 11^3 samples hold 216 patches of 6^3 x C) */
    const int64_t nc = cal ? cal->dims[cal->ndim - 1] : 1;
    const int cw = 2 * (int)ceil(o->calib_radius) - 1;
    for (eo.kernel = 6; eo.kernel > 2; eo.kernel--) {
        double rows = 1, cols = (double)nc;
        for (int a = 0; a < ndim; a++) {
            rows *= cw - eo.kernel + 1;
            cols *= eo.kernel;
        }
        if (rows >= cols && eo.kernel < cw) break;
    }
    if (st == KR_OK) st = kr_espirit(ctx, cal, &eo, maps, NULL);
    kr_array_destroy(cal);
    kr_ctx_destroy(own);
    return st;
}

kr_status kr_cgsense_estimate_maps(const kr_ctx *ctx, int ndim, const int64_t *dims,
                                   const kr_array *traj, const kr_array *kspace,
                                   const kr_array *dcf, const kr_cgsense_maps_opts *opts,
                                   kr_array **maps)
{
    const char *fn = "kr_cgsense_estimate_maps";
    KRI_ARG_NOT_NULL(maps);
    *maps = NULL;
    KRI_ARG_NOT_NULL(dims);
    KRI_TRY(kri_check_operand(fn, "trajectory", traj, KRI_ANY_DTYPE, KR_HOST));
    KRI_TRY(kri_check_operand(fn, "k-space", kspace, KR_C64, KR_HOST));
    if (dcf) KRI_TRY(kri_check_operand(fn, "density weights", dcf, KRI_ANY_DTYPE, KR_HOST));
    kr_cgsense_maps_opts o;
    kr_cgsense_maps_opts_default(&o);
    if (opts) o = *opts;
    if (!isfinite(o.calib_radius) || o.calib_radius <= 0)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: calibration radius %g must be > 0", fn,
                        o.calib_radius);
    if (!isfinite(o.threshold) || o.threshold < 0 || o.threshold >= 1)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: threshold %g must be in [0, 1)", fn,
                        o.threshold);
    if (ndim != 2 && ndim != 3)
        return kri_fail(KR_ERR_DIM, "%s: images must have 2 or 3 dims (got %d)", fn, ndim);
    if (o.espirit) return kri_maps_espirit(ctx, ndim, dims, traj, kspace, dcf, &o, maps);
    double *k = NULL;
    int64_t M = 0;
    KRI_TRY(kri_traj_to_f64(traj, &k, &M));
    const int64_t total = kr_array_numel(kspace);
    if (M <= 0 || total % M != 0) {
        kri_free(k);
        return kri_fail(KR_ERR_DIM, "%s: k-space has %lld values, not a multiple of the %lld "
                        "trajectory samples", fn, (long long)total, (long long)M);
    }
    const int64_t nc = total / M;
    if (dcf && kr_array_numel(dcf) != M) {
        kri_free(k);
        return kri_fail(KR_ERR_DIM, "%s: density weights have %lld values, the trajectory %lld "
                        "samples", fn, (long long)kr_array_numel(dcf), (long long)M);
    }
    if (dcf && dcf->dtype != KR_F32 && dcf->dtype != KR_F64) {
        kri_free(k);
        return kri_fail(KR_ERR_DTYPE, "%s: density weights are %s; expected f32 or f64", fn,
                        kr_dtype_name(dcf->dtype));
    }
    kr_ctx *own = NULL;
    const kr_ctx *cpu = ctx;
    kr_status st = KR_OK;
    if (!ctx || kr_ctx_backend(ctx) == KR_BACKEND_CUDA) {
        st = kr_ctx_create(&own, KR_BACKEND_CPU);
        if (st == KR_OK && ctx) st = kr_ctx_set_threads(own, kr_ctx_threads(ctx));
        if (st == KR_OK) kr_ctx_set_quiet(own, 1);
        cpu = own;
    }
    /* windowed (and weighted) k-space */
    int64_t kd[2] = {M, nc};
    kr_array *y = NULL, *img = NULL;
    kr_nufft_plan *plan = NULL;
    if (st == KR_OK) st = kr_array_create(&y, KR_C64, 2, kd, KR_HOST, NULL);
    if (st == KR_OK) {
        const float *src = kspace->data;
        float *dst = y->data;
        const double r = o.calib_radius;
        for (int64_t m = 0; m < M && st == KR_OK; m++) {
            const double *km = k + 3 * m;
            const double kr = sqrt(km[0] * km[0] + km[1] * km[1] + km[2] * km[2]);
            double h = 0;
            if (kr < r) {
                const double c = cos(3.14159265358979323846 * kr / (2 * r));
                h = c * c;
            }
            if (dcf) h *= kr_array_get_f64(dcf, m);
            for (int64_t c = 0; c < nc; c++) {
                const int64_t i = m + M * c;
                dst[2 * i] = (float)(h * src[2 * i]);
                dst[2 * i + 1] = (float)(h * src[2 * i + 1]);
                if (!isfinite(src[2 * i]) || !isfinite(src[2 * i + 1]))
                    st = kri_fail(KR_ERR_INVALID_ARG, "%s: k-space sample %lld of coil %lld "
                                  "is NaN or infinite", fn, (long long)m, (long long)c);
            }
        }
    }
    kr_nufft_opts no;
    kr_nufft_opts_default(&no);
    no.eps = 1e-3;
    no.batch = nc;
    if (st == KR_OK) st = kr_nufft_plan_create(&plan, cpu, ndim, dims, &no);
    if (st == KR_OK) st = kr_nufft_set_points(plan, traj);
    int64_t id[4] = {dims[0], dims[1], ndim == 3 ? dims[2] : nc, nc};
    if (st == KR_OK) st = kr_array_create(&img, KR_C64, ndim + 1, id, KR_HOST, NULL);
    if (st == KR_OK) st = kr_nufft_adjoint(plan, y, img);
    if (st == KR_OK) {
        int64_t nvox = 1;
        for (int d = 0; d < ndim; d++) nvox *= dims[d];
        float *a = img->data;
        double rmax = 0;
        for (int64_t q = 0; q < nvox; q++) {
            double e = 0;
            for (int64_t c = 0; c < nc; c++) {
                const int64_t i = 2 * (q + nvox * c);
                e += (double)a[i] * a[i] + (double)a[i + 1] * a[i + 1];
            }
            if (sqrt(e) > rmax) rmax = sqrt(e);
        }
        for (int64_t q = 0; q < nvox; q++) {
            double e = 0;
            for (int64_t c = 0; c < nc; c++) {
                const int64_t i = 2 * (q + nvox * c);
                e += (double)a[i] * a[i] + (double)a[i + 1] * a[i + 1];
            }
            const double rss = sqrt(e);
            const double f = (rss > 0 && rss >= o.threshold * rmax) ? 1.0 / rss : 0.0;
            for (int64_t c = 0; c < nc; c++) {
                const int64_t i = 2 * (q + nvox * c);
                a[i] = (float)(a[i] * f);
                a[i + 1] = (float)(a[i + 1] * f);
            }
        }
    }
    kr_nufft_plan_destroy(plan);
    kr_array_destroy(y);
    kr_ctx_destroy(own);
    kri_free(k);
    if (st != KR_OK) {
        kr_array_destroy(img);
        return st;
    }
    *maps = img;
    return KR_OK;
}
