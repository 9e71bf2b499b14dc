/* Projection arrays (kray/ct.h): their check against a geometry (kr_ct_check_projections,
 * also the projectors' shape check) and exact projections of the 3-D phantom. */
#include "project_internal.h"
#include "projections_internal.h"

#include <math.h>
#include <stdio.h>

kr_status kri_ct_proj_shape(const kr_ct_geom *g, const kr_array *a, const char *what)
{
    int64_t want[3];
    int nd = kr_ct_geom_sino_dims(g, want);
    char have[128];
    int ok = a->ndim >= 1 && a->ndim <= KR_MAX_DIMS;
    int64_t d[3] = {1, 1, 1};
    for (int i = 0; ok && i < a->ndim; i++) {
        if (i < nd)
            d[i] = a->dims[i];
        else if (a->dims[i] != 1)
            ok = 0;
    }
    for (int i = 0; i < nd; i++)
        if (d[i] != want[i]) ok = 0;
    if (ok) return KR_OK;
    kr_dims_string(a->ndim, a->dims, have, sizeof have);
    int larger = 0;
    for (int i = 0; i < nd - 1 && a->ndim >= nd; i++)
        if (d[i] > want[i]) larger = 1;
    if (nd == 3)
        return kri_fail(KR_ERR_DIM,
                        "%s are %s, the geometry expects %lldx%lldx%lld (u x v x view)%s", what,
                        have, (long long)want[0], (long long)want[1], (long long)want[2],
                        larger ? ": the detector is smaller than the data" : "");
    return kri_fail(KR_ERR_DIM, "%s is %s, the geometry expects %lldx%lld (det x view)%s", what,
                    have, (long long)want[0], (long long)want[1],
                    larger ? ": the detector is smaller than the data" : "");
}

/* ---- projection checks ------------------------------------------------------------------- */
kr_status kr_ct_check_projections(const kr_ct_geom *g, const kr_array *proj, const kr_ctx *ctx)
{
    KRI_ARG_NOT_NULL(g);
    const char *what = kr_ct_type_ndim(g->type) == 3 ? "projections" : "sinogram";
    KRI_TRY(kri_check_operand("kr_ct_check_projections", what, proj, KRI_ANY_DTYPE, KRI_ANY_LOC));
    if (proj->dtype != KR_F32 && proj->dtype != KR_F64)
        return kri_fail(KR_ERR_DTYPE, "%s are %s (f32 or f64 expected)", what,
                        kr_dtype_name(proj->dtype));
    KRI_TRY(kri_ct_proj_shape(g, proj, what));
    if (proj->loc == KR_DEVICE) {
        KRI_ARG_NOT_NULL(ctx);
        KRI_TRY(kri_check_loc(ctx, KR_DEVICE, what));
    }
    const kri_ctproj_backend *be;
    KRI_TRY(kri_backend_pick(&be, proj->loc, &kri_ctproj_cpu, &kri_ctproj_cuda, what));
    int64_t nnan = 0, ninf = 0, first = -1;
    KRI_TRY(be->count_nonfinite(ctx, proj->dtype, kr_array_numel(proj), proj->data, &nnan, &ninf,
                                &first));
    if (first < 0) return KR_OK;
    char where[96];
    if (kr_ct_type_ndim(g->type) == 3) {
        int64_t nu = g->det_count, nv = g->det_rows;
        snprintf(where, sizeof where, "u %lld, v %lld, view %lld", (long long)(first % nu),
                 (long long)(first / nu % nv), (long long)(first / (nu * nv)));
    } else {
        snprintf(where, sizeof where, "det %lld, view %lld", (long long)(first % g->det_count),
                 (long long)(first / g->det_count));
    }
    return kri_fail(KR_ERR_INVALID_ARG,
                    "%s %s %lld NaN and %lld infinite value%s (the first at %s)", what,
                    kr_ct_type_ndim(g->type) == 3 ? "contain" : "contains", (long long)nnan,
                    (long long)ninf, ninf == 1 ? "" : "s", where);
}

/* ---- exact phantom projections ----------------------------------------------------------- */
kr_status kr_ct_phantom_projections(kr_array **out, const kr_ctx *ctx, const kr_ct_geom *g,
                                    kr_phantom_kind kind, int ray_factor, kr_dtype dtype)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(g);
    (void)ctx;
    if (!kr_ct_type_is_cone(g->type))
        return kri_fail(KR_ERR_NOT_SUPPORTED,
                        "exact phantom projections are implemented for cone geometries, not %s",
                        kr_ct_type_name(g->type));
    if (ray_factor < 0 || ray_factor > KRI_CT3_MAXK)
        return kri_fail(KR_ERR_INVALID_ARG, "ray factor %d (must be 0..%d)", ray_factor,
                        KRI_CT3_MAXK);
    if (dtype != KR_F32 && dtype != KR_F64)
        return kri_fail(KR_ERR_DTYPE, "phantom projections must be f32 or f64, got %s",
                        kr_dtype_name(dtype));
    const int k = ray_factor ? ray_factor : 1;
    int64_t dims[3];
    kr_ct_geom_sino_dims(g, dims);
    kr_array *a = NULL;
    KRI_TRY(kr_array_create(&a, dtype, 3, dims, KR_HOST, NULL));
    const kr_ct_grid *gr = &g->grid;
    double half[3];
    for (int d = 0; d < 3; d++) half[d] = 0.5 * (double)gr->n[d] * gr->voxel_mm[d];
    const int64_t nu = dims[0], nv = dims[1], per_row = nu * k * k;
    int64_t rows = ((int64_t)1 << 20) / per_row;
    if (rows < 1) rows = 1;
    if (rows > nv) rows = nv;
    double *buf = NULL;
    kr_status st = kri_alloc((void **)&buf, (size_t)(rows * per_row) * 8 * sizeof(double),
                             "phantom projection rays");
    if (st != KR_OK) {
        kr_array_destroy(a);
        return st;
    }
    double *A = buf, *B = buf + 3 * rows * per_row, *L = B + 3 * rows * per_row,
           *S = L + rows * per_row;
    for (int64_t vi = 0; vi < g->nviews && st == KR_OK; vi++) {
        const kr_ct_view *v = &g->views[vi];
        double dmax = 0;
        for (int c = 0; c < 8; c++) {
            double q = 0;
            for (int d = 0; d < 3; d++) {
                double x = gr->offset_mm[d] + ((c >> d) & 1 ? half[d] : -half[d]) - v->src[d];
                q += x * x;
            }
            dmax = fmax(dmax, sqrt(q));
        }
        for (int64_t b0 = 0; b0 < nv && st == KR_OK; b0 += rows) {
            const int64_t nb = b0 + rows <= nv ? rows : nv - b0;
            const int64_t nr = nb * per_row;
            for (int64_t r = 0; r < nr; r++) {
                int64_t s = r % (k * k), pix = r / (k * k);
                int64_t iu = pix % nu, ib = b0 + pix / nu;
                double a_ =
                    (double)iu - 0.5 * (double)(nu - 1) + (double)(2 * (s % k) + 1 - k) / (2.0 * k);
                double b_ =
                    (double)ib - 0.5 * (double)(nv - 1) + (double)(2 * (s / k) + 1 - k) / (2.0 * k);
                double dir[3], len = 0, far[3], seg = 0, segn = 0;
                for (int d = 0; d < 3; d++) {
                    dir[d] = v->det[d] + a_ * v->u[d] + b_ * v->v[d] - v->src[d];
                    len += dir[d] * dir[d];
                }
                len = sqrt(len);
                const double f = 1.01 * dmax / len;
                for (int d = 0; d < 3; d++) {
                    far[d] = v->src[d] + f * dir[d];
                    A[3 * r + d] = (v->src[d] - gr->offset_mm[d]) / half[d];
                    B[3 * r + d] = (far[d] - gr->offset_mm[d]) / half[d];
                    seg += (far[d] - v->src[d]) * (far[d] - v->src[d]);
                    segn += (B[3 * r + d] - A[3 * r + d]) * (B[3 * r + d] - A[3 * r + d]);
                }
                S[r] = sqrt(seg) / sqrt(segn); /* mm per normalised unit along this ray */
            }
            st = kr_phantom_line_integrals_3d(kind, A, B, nr, 1.0, L);
            if (st != KR_OK) break;
            for (int64_t pix = 0; pix < nb * nu; pix++) {
                double sum = 0;
                for (int64_t s = 0; s < k * k; s++) sum += L[pix * k * k + s] * S[pix * k * k + s];
                int64_t o = (vi * nv + b0) * nu + pix;
                if (dtype == KR_F64)
                    ((double *)a->data)[o] = sum / (double)(k * k);
                else
                    ((float *)a->data)[o] = (float)(sum / (double)(k * k));
            }
        }
    }
    kri_free(buf);
    if (st != KR_OK) {
        kr_array_destroy(a);
        return st;
    }
    *out = a;
    return KR_OK;
}
