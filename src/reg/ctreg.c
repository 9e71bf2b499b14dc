/* CT algorithms on the matched projector pairs (kray/reg.h): OS-SART (ordered subsets of views)
 * and ASD-POCS (OS-SART alternating with normalised TV steepest descent). Each subset is a
 * projector of its own, built once on a geometry holding the subset's views, with its SART
 * weights R_s = 1 / (A_s 1) and C_s = 1 / (A_s^T 1). */
#include "internal.h"
#include "reg_internal.h"

#include <math.h>
#include <string.h>

void kr_ct_reg_opts_default(kr_ct_reg_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->max_iter = 20;
    o->subsets = 10;
    o->relax = 1.0;
    o->tv_iter = 20;
    o->alpha = 0.002;
    o->alpha_red = 0.95;
    o->r_max = 0.95;
}

typedef struct kri_os {
    const kr_ctx *ctx;
    int S;
    kr_loc loc;
    kr_linop *A[1024];
    kr_array *R[1024], *C[1024], *y[1024], *r[1024];
    kr_array *b;
} kri_os;

static void kri_os_free(kri_os *s)
{
    for (int i = 0; i < s->S; i++) {
        kr_linop_destroy(s->A[i]);
        kr_array_destroy(s->R[i]);
        kr_array_destroy(s->C[i]);
        kr_array_destroy(s->y[i]);
        kr_array_destroy(s->r[i]);
    }
    kr_array_destroy(s->b);
    kri_free(s);
}

/* a = 1 / a elementwise (0 stays 0; a negative sum is no projector), through the host. */
static kr_status kri_reciprocal(const kr_ctx *ctx, kr_array *a)
{
    const int64_t n = kr_array_numel(a);
    const size_t bytes = kr_array_bytes(a);
    void *h = a->data;
    if (a->loc == KR_DEVICE) {
        h = kri_malloc(bytes);
        if (!h) return kri_fail(KR_ERR_OOM_HOST, "SART weights");
        kr_status s = kri_memcpy(h, KR_HOST, a->data, KR_DEVICE, bytes, ctx);
        if (s != KR_OK) {
            kri_free(h);
            return s;
        }
    }
    for (int64_t i = 0; i < n; i++) {
        double v = a->dtype == KR_F32 ? ((float *)h)[i] : ((double *)h)[i];
        v = v > 0 ? 1.0 / v : 0.0;
        if (a->dtype == KR_F32)
            ((float *)h)[i] = (float)v;
        else
            ((double *)h)[i] = v;
    }
    kr_status s = KR_OK;
    if (a->loc == KR_DEVICE) {
        s = kri_memcpy(a->data, KR_DEVICE, h, KR_HOST, bytes, ctx);
        kri_free(h);
    }
    return s;
}

static kr_status kri_os_build(kri_os **out, const kr_ctx *ctx, const kr_ct_geom *g,
                              const kr_ct_projector_opts *po, const kr_array *y, int S)
{
    kri_os *s = kri_calloc(1, sizeof *s);
    if (!s) return kri_fail(KR_ERR_OOM_HOST, "OS-SART subsets");
    s->ctx = ctx;
    s->loc = kri_ctx_loc(ctx);
    const int64_t V = kr_ct_geom_nviews(g), per = kr_ct_geom_det_count(g) * kr_ct_geom_det_rows(g);
    const int cone = kr_ct_type_is_cone(kr_ct_geom_type(g));
    const kr_ct_view *views = kr_ct_geom_views(g);
    const size_t esz = kr_dtype_size(po->dtype);
    kr_ct_view *sel = kri_malloc((size_t)V * sizeof *sel);
    kr_status st = sel ? KR_OK : kri_fail(KR_ERR_OOM_HOST, "OS-SART subsets");
    for (int k = 0; k < S && st == KR_OK; k++) {
        int64_t nv = 0;
        for (int64_t v = k; v < V; v += S) sel[nv++] = views[v];
        kr_ct_geom *gs = NULL;
        st = cone ? kr_ct_geom_create_views3d(&gs, KR_CT_CONE_VEC, kr_ct_geom_det_count(g),
                                              kr_ct_geom_det_rows(g), sel, nv,
                                              kr_ct_geom_grid(g))
                  : kr_ct_geom_create_views(&gs, kr_ct_geom_type(g), kr_ct_geom_det_count(g),
                                            sel, nv, kr_ct_geom_grid(g));
        if (st == KR_OK) st = kr_ct_linop_create(&s->A[k], ctx, gs, po);
        kr_ct_geom_destroy(gs);
        s->S = k + 1;
        if (st != KR_OK) break;
        int64_t cd[KR_MAX_DIMS], dd[KR_MAX_DIMS];
        int cn = kr_linop_out_dims(s->A[k], cd), dn = kr_linop_in_dims(s->A[k], dd);
        st = kr_array_create(&s->R[k], po->dtype, cn, cd, s->loc, ctx);
        if (st == KR_OK) st = kr_array_create(&s->y[k], po->dtype, cn, cd, s->loc, ctx);
        if (st == KR_OK) st = kr_array_create(&s->r[k], po->dtype, cn, cd, s->loc, ctx);
        if (st == KR_OK) st = kr_array_create(&s->C[k], po->dtype, dn, dd, s->loc, ctx);
        if (st == KR_OK && !s->b) st = kr_array_create(&s->b, po->dtype, dn, dd, s->loc, ctx);
        /* weights from A 1 and A^T 1 */
        /* ones: the box [1, 1] */
        if (st == KR_OK) st = kri_reg_group(ctx, s->b, KRI_G_BOX, 1, 1.0, 1.0);
        if (st == KR_OK) st = kr_linop_forward(s->A[k], s->b, s->R[k]);
        if (st == KR_OK) st = kri_reg_group(ctx, s->r[k], KRI_G_BOX, 1, 1.0, 1.0);
        if (st == KR_OK) st = kr_linop_adjoint(s->A[k], s->r[k], s->C[k]);
        if (st == KR_OK) st = kri_reciprocal(ctx, s->R[k]);
        if (st == KR_OK) st = kri_reciprocal(ctx, s->C[k]);
        /* the subset's data */
        for (int64_t i = 0, v = k; v < V && st == KR_OK; v += S, i++)
            st = kri_memcpy((char *)s->y[k]->data + (size_t)(i * per) * esz, s->loc,
                            (const char *)y->data + (size_t)(v * per) * esz, y->loc,
                            (size_t)per * esz, ctx);
    }
    kri_free(sel);
    if (st != KR_OK) {
        kri_os_free(s);
        return st;
    }
    *out = s;
    return KR_OK;
}

/* ||a - b|| through tmp. */
static kr_status kri_rel_sub_norm(const kr_ctx *c, const kr_array *a, const kr_array *b,
                                  kr_array *tmp, double *out)
{
    KRI_TRY(kr_vec_copy(c, tmp, a));
    KRI_TRY(kr_vec_axpy(c, tmp, -1.0, 0.0, b));
    return kr_vec_norm2(c, tmp, out);
}

/* One pass over the subsets. */
static kr_status kri_os_pass(kri_os *s, kr_array *x, double relax, int nonneg)
{
    const kr_ctx *c = s->ctx;
    for (int k = 0; k < s->S; k++) {
        KRI_TRY(kr_linop_forward(s->A[k], x, s->r[k]));
        KRI_TRY(kr_vec_xpay(c, s->r[k], -1.0, 0.0, s->y[k])); /* r = y - A x */
        KRI_TRY(kri_reg_mul(c, s->r[k], s->R[k]));
        KRI_TRY(kr_linop_adjoint(s->A[k], s->r[k], s->b));
        KRI_TRY(kri_reg_mul(c, s->b, s->C[k]));
        KRI_TRY(kr_vec_axpy(c, x, relax, 0.0, s->b));
        if (nonneg) KRI_TRY(kri_reg_group(c, x, KRI_G_BOX, 1, 0.0, INFINITY));
    }
    return KR_OK;
}

/* ||A x - y|| / ||y|| over all subsets. */
static kr_status kri_os_residual(kri_os *s, const kr_array *x, double *rel)
{
    double num = 0, den = 0, a, b;
    for (int k = 0; k < s->S; k++) {
        KRI_TRY(kr_linop_forward(s->A[k], x, s->r[k]));
        KRI_TRY(kr_vec_axpy(s->ctx, s->r[k], -1.0, 0.0, s->y[k]));
        KRI_TRY(kr_vec_norm2(s->ctx, s->r[k], &a));
        KRI_TRY(kr_vec_norm2(s->ctx, s->y[k], &b));
        num += a * a;
        den += b * b;
    }
    *rel = den > 0 ? sqrt(num / den) : 0.0;
    return KR_OK;
}

static kr_status kri_ct_reg_check(const char *fn, const kr_ctx *ctx, const kr_ct_geom *g,
                                  const kr_ct_projector_opts *po, const kr_array *y,
                                  const kr_array *x, const kr_ct_reg_opts *o)
{
    if (!ctx || !g || !po)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: ctx, geometry and projector options must not "
                        "be NULL", fn);
    const kr_loc loc = kri_ctx_loc(ctx);
    KRI_TRY(kri_check_operand(fn, "y", y, po->dtype, loc));
    KRI_TRY(kr_ct_check_projections(g, y, ctx));
    int64_t d[KR_MAX_DIMS];
    int nd = kr_ct_geom_image_dims(g, d);
    KRI_TRY(kri_check_operand_dims(fn, "x", x, po->dtype, loc, nd, d));
    if (o->max_iter < 1)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: max_iter is %d, must be >= 1", fn, o->max_iter);
    if (o->subsets < 1 || o->subsets > 1024 || o->subsets > kr_ct_geom_nviews(g))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: subsets is %d, must be 1..min(views, 1024) = %lld",
                        fn, o->subsets,
                        (long long)(kr_ct_geom_nviews(g) < 1024 ? kr_ct_geom_nviews(g) : 1024));
    if (!(o->relax > 0.0 && o->relax < 2.0))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: relax is %g, must be in (0, 2)", fn, o->relax);
    if (o->tv_iter < 0 || !(o->alpha >= 0) || !(o->alpha_red > 0 && o->alpha_red <= 1) ||
        !(o->r_max > 0) || isinf(o->alpha) || isinf(o->r_max))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: tv_iter >= 0, alpha >= 0, 0 < alpha_red <= 1 "
                        "and r_max > 0 are required", fn);
    return KR_OK;
}

static kr_status kri_ct_reg_run(const char *fn, const kr_ctx *ctx, const kr_ct_geom *g,
                                const kr_ct_projector_opts *po, const kr_array *y, kr_array *x,
                                const kr_ct_reg_opts *o, kr_solve_info *info, int tv)
{
    kr_ct_reg_opts def;
    if (!o) {
        kr_ct_reg_opts_default(&def);
        o = &def;
    }
    KRI_TRY(kri_ct_reg_check(fn, ctx, g, po, y, x, o));
    kri_os *s = NULL;
    KRI_TRY(kri_os_build(&s, ctx, g, po, y, o->subsets));
    kr_linop *D = NULL;
    kr_array *z = NULL, *gt = NULL, *x0 = NULL;
    int64_t d[KR_MAX_DIMS];
    const int nd = kr_ct_geom_image_dims(g, d);
    kr_status st = KR_OK;
    if (!o->warm_start) st = kr_vec_zero(ctx, x);
    if (st == KR_OK && tv) {
        st = kr_fdiff_linop_create(&D, ctx, po->dtype, nd, d, (1u << nd) - 1, KR_FDIFF_NEUMANN);
        int64_t cd[KR_MAX_DIMS];
        int cn = D ? kr_linop_out_dims(D, cd) : 0;
        if (st == KR_OK) st = kr_array_create(&z, po->dtype, cn, cd, s->loc, ctx);
        if (st == KR_OK) st = kr_array_create(&gt, po->dtype, nd, d, s->loc, ctx);
        if (st == KR_OK) st = kr_array_create(&x0, po->dtype, nd, d, s->loc, ctx);
    }
    double rel = 0.0, dtvg = 0.0;
    if (st == KR_OK && o->residual) st = kri_os_residual(s, x, &o->residual[0]);
    kr_progress *prog = o->show_progress ? kr_progress_begin(ctx, fn, o->max_iter) : NULL;
    int k;
    for (k = 0; k < o->max_iter && st == KR_OK; k++) {
        if (tv) st = kr_vec_copy(ctx, x0, x);
        if (st == KR_OK) st = kri_os_pass(s, x, o->relax, o->nonneg);
        if (st == KR_OK && tv && o->tv_iter > 0) {
            /* data step length, then TV steepest descent from the POCS point */
            double dp, dg, gn;
            st = kri_rel_sub_norm(ctx, x, x0, gt, &dp);
            if (st == KR_OK && k == 0) dtvg = o->alpha * dp;
            if (st == KR_OK) st = kr_vec_copy(ctx, x0, x);
            for (int j = 0; j < o->tv_iter && st == KR_OK; j++) {
                st = kr_linop_forward(D, x, z);
                if (st == KR_OK) st = kri_reg_group(ctx, z, KRI_G_NORMAL, nd, 1e-8, 0.0);
                if (st == KR_OK) st = kr_linop_adjoint(D, z, gt);
                if (st == KR_OK) st = kr_vec_norm2(ctx, gt, &gn);
                if (st != KR_OK || !(gn > 0)) break;
                st = kr_vec_axpy(ctx, x, -dtvg / gn, 0.0, gt);
            }
            if (st == KR_OK) st = kri_rel_sub_norm(ctx, x, x0, gt, &dg);
            if (st == KR_OK && dg > o->r_max * dp) dtvg *= o->alpha_red;
        }
        if (st == KR_OK && o->residual) st = kri_os_residual(s, x, &o->residual[k + 1]);
        kr_progress_add(prog, 1);
    }
    kr_progress_end(prog);
    if (st == KR_OK) st = kri_os_residual(s, x, &rel);
    if (st == KR_OK && !isfinite(rel))
        st = kri_fail(KR_ERR_NOT_CONVERGED, "%s: the image became non-finite", fn);
    if (info) {
        info->iterations = k;
        info->rel_residual = rel;
        info->converged = 0;
    }
    kr_linop_destroy(D);
    kr_array_destroy(z);
    kr_array_destroy(gt);
    kr_array_destroy(x0);
    kri_os_free(s);
    return st;
}

kr_status kr_os_sart(const kr_ctx *ctx, const kr_ct_geom *g, const kr_ct_projector_opts *po,
                     const kr_array *y, kr_array *x, const kr_ct_reg_opts *o, kr_solve_info *info)
{
    return kri_ct_reg_run("kr_os_sart", ctx, g, po, y, x, o, info, 0);
}

kr_status kr_asd_pocs(const kr_ctx *ctx, const kr_ct_geom *g, const kr_ct_projector_opts *po,
                      const kr_array *y, kr_array *x, const kr_ct_reg_opts *o,
                      kr_solve_info *info)
{
    return kri_ct_reg_run("kr_asd_pocs", ctx, g, po, y, x, o, info, 1);
}
