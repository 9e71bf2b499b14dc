/* SIRT on any real operator with non-negative entries (kr_sirt_*, see kray/ct.h), with its
 * transpose or another backprojector: the row and column sums are computed once per plan, the
 * iteration uses only the operator, vector operations and the elementwise steps of the backend
 * at the operator's location (iterative_internal.h). CGLS for CT is kr_cgls on
 * kr_ct_linop_create. */
#include "ct_internal.h"
#include "iterative_internal.h"
#include "solve/solve_internal.h"

#include <math.h>
#include <string.h>

struct kr_sirt_plan {
    const kr_ctx *ctx;
    kr_linop *A;
    kr_linop *B;     /* the backprojector, or NULL: A^T */
    kr_array *R, *C; /* 1 / row sums A 1 (codomain), 1 / column sums B 1 (domain) */
    kr_array *r, *g; /* work: residual (codomain), update (domain) */
    const kri_sirt_backend *be; /* the elementwise steps at A's location */
};

void kr_sirt_opts_default(kr_sirt_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->max_iter = 50;
    o->tol = 0;
    o->relax = 1;
}

void kr_sirt_plan_destroy(kr_sirt_plan *s)
{
    if (!s) return;
    kr_array_destroy(s->R);
    kr_array_destroy(s->C);
    kr_array_destroy(s->r);
    kr_array_destroy(s->g);
    kr_linop_destroy(s->A);
    kr_linop_destroy(s->B);
    kri_free(s);
}

/* ---- plan ------------------------------------------------------------------------------- */
/* x = B y, or A^T y without a backprojector. */
static kr_status kri_sirt_back(const kr_sirt_plan *s, const kr_array *y, kr_array *x)
{
    return s->B ? kr_linop_forward(s->B, y, x) : kr_linop_adjoint(s->A, y, x);
}

static kr_status kri_sirt_array(kr_array **a, const kr_ctx *ctx, const kr_linop *A, int in)
{
    int64_t d[KR_MAX_DIMS];
    int nd = in ? kr_linop_in_dims(A, d) : kr_linop_out_dims(A, d);
    return kr_array_create(a, kr_linop_dtype(A), nd, d, kr_linop_loc(A), ctx);
}

/* B maps A's codomain to A's domain, in A's dtype, location and device. */
static kr_status kri_sirt_check_pair(const kr_linop *A, const kr_linop *B)
{
    KRI_TRY(kri_operands_agree("SIRT", A, B));
    int64_t ai[KR_MAX_DIMS], ao[KR_MAX_DIMS], bi[KR_MAX_DIMS], bo[KR_MAX_DIMS];
    const int nai = kr_linop_in_dims(A, ai), nao = kr_linop_out_dims(A, ao);
    const int nbi = kr_linop_in_dims(B, bi), nbo = kr_linop_out_dims(B, bo);
    char h1[96], h2[96], h3[96], h4[96];
    if (!kri_dims_equal(nbi, bi, nao, ao) || !kri_dims_equal(nbo, bo, nai, ai))
        return kri_fail(KR_ERR_DIM,
                        "SIRT: the backprojector '%s' maps %s to %s; the operator '%s' maps %s "
                        "to %s, so it should map %s to %s",
                        kr_linop_name(B), kr_dims_string(nbi, bi, h1, sizeof h1),
                        kr_dims_string(nbo, bo, h2, sizeof h2), kr_linop_name(A),
                        kr_dims_string(nai, ai, h3, sizeof h3),
                        kr_dims_string(nao, ao, h4, sizeof h4), h4, h3);
    return KR_OK;
}

/* x *= w, elementwise */
static kr_status kri_sirt_mul(const kr_sirt_plan *s, kr_array *x, const kr_array *w)
{
    return s->be->mul(s->ctx, x->dtype, kr_array_numel(x), x->data, w->data);
}

/* The weights: R = 1 / (A 1) (cols 0), or C = 1 / (B 1), B = A^T without a backprojector
 * (cols 1); a negative or non-finite sum is an error. */
static kr_status kri_sirt_weights(kr_sirt_plan *s, int cols)
{
    kr_array *one = cols ? s->r : s->g, *w = cols ? s->C : s->R;
    int64_t nbad = 0;
    KRI_TRY(s->be->fill(s->ctx, one->dtype, kr_array_numel(one), one->data, 1.0));
    KRI_TRY(cols ? kri_sirt_back(s, one, w) : kr_linop_forward(s->A, one, w));
    KRI_TRY(s->be->recip(s->ctx, w->dtype, kr_array_numel(w), w->data, &nbad));
    if (nbad) {
        const kr_linop *M = cols && s->B ? s->B : s->A;
        return kri_fail(KR_ERR_INVALID_ARG,
                        "SIRT: %lld %s sums of %s '%s' are negative or not finite (SIRT needs "
                        "non-negative weights, as those of a projector)",
                        (long long)nbad, cols ? "column" : "row",
                        cols && s->B ? "backprojector" : "operator", kr_linop_name(M));
    }
    return KR_OK;
}

kr_status kr_sirt_plan_create(kr_sirt_plan **out, const kr_ctx *ctx, kr_linop *A)
{
    return kr_sirt_plan_create_pair(out, ctx, A, NULL);
}

kr_status kr_sirt_plan_create_pair(kr_sirt_plan **out, const kr_ctx *ctx, kr_linop *A, kr_linop *B)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(A);
    kr_dtype t = kr_linop_dtype(A);
    if (t != KR_F32 && t != KR_F64)
        return kri_fail(KR_ERR_DTYPE, "SIRT needs a real operator (f32 or f64), '%s' is %s",
                        kr_linop_name(A), kr_dtype_name(t));
    KRI_TRY(kri_check_loc(ctx, kr_linop_loc(A), "the SIRT operator"));
    if (B) KRI_TRY(kri_sirt_check_pair(A, B));
    const kri_sirt_backend *be;
    KRI_TRY(kri_backend_pick(&be, kr_linop_loc(A), &kri_sirt_cpu, &kri_sirt_cuda, "SIRT"));
    kr_sirt_plan *s = kri_calloc(1, sizeof *s);
    if (!s) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a SIRT plan");
    s->ctx = ctx;
    s->be = be;
    kr_status st = kr_linop_retain(A);
    if (st != KR_OK) {
        kri_free(s);
        return st;
    }
    s->A = A;
    if (B && (st = kr_linop_retain(B)) != KR_OK) goto fail;
    s->B = B;
    if ((st = kri_sirt_array(&s->R, ctx, A, 0)) != KR_OK ||
        (st = kri_sirt_array(&s->C, ctx, A, 1)) != KR_OK ||
        (st = kri_sirt_array(&s->r, ctx, A, 0)) != KR_OK ||
        (st = kri_sirt_array(&s->g, ctx, A, 1)) != KR_OK ||
        (st = kri_sirt_weights(s, 0)) != KR_OK || (st = kri_sirt_weights(s, 1)) != KR_OK)
        goto fail;
    *out = s;
    return KR_OK;
fail:
    kr_sirt_plan_destroy(s);
    return st;
}

/* An operand of kr_sirt_execute: of A's dtype and location, A's codomain (domain 0) or domain
 * (domain 1) in shape. (The device is checked by the vector operations that first use it.) */
static kr_status kri_sirt_operand(const kr_sirt_plan *s, const char *fn, const char *what,
                                  const kr_array *a, int domain)
{
    int64_t d[KR_MAX_DIMS];
    const int nd = domain ? kr_linop_in_dims(s->A, d) : kr_linop_out_dims(s->A, d);
    return kri_check_operand_dims(fn, what, a, kr_linop_dtype(s->A), kr_linop_loc(s->A), nd, d);
}

kr_status kr_sirt_execute(kr_sirt_plan *s, const kr_array *y, kr_array *x, const kr_sirt_opts *opts,
                          kr_solve_info *info)
{
    static const char fn[] = "kr_sirt_execute";
    if (info) {
        info->iterations = 0;
        info->rel_residual = NAN;
        info->converged = 0;
    }
    KRI_ARG_NOT_NULL(s);
    kr_sirt_opts o;
    if (opts)
        o = *opts;
    else
        kr_sirt_opts_default(&o);
    if (o.max_iter < 1)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: max_iter is %d (must be >= 1)", fn, o.max_iter);
    if (!(o.tol >= 0) || !isfinite(o.tol))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: tol is %g (must be >= 0)", fn, o.tol);
    if (!(o.relax > 0 && o.relax < 2))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: relax is %g (must be in (0, 2))", fn, o.relax);
    KRI_TRY(kri_sirt_operand(s, fn, "y", y, 0));
    KRI_TRY(kri_sirt_operand(s, fn, "x", x, 1));
    if (kri_arrays_overlap(x, y))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: x and y overlap in memory", fn);
    const kr_ctx *ctx = s->ctx;
    double yn;
    KRI_TRY(kr_vec_norm2(ctx, y, &yn));
    if (!isfinite(yn)) return kri_fail(KR_ERR_INVALID_ARG, "%s: y contains inf or nan", fn);
    if (!o.warm_start) KRI_TRY(kr_vec_zero(ctx, x));
    if (yn == 0) {
        KRI_TRY(kr_vec_zero(ctx, x));
        if (o.history) o.history[0] = 0;
        if (info) info->rel_residual = 0, info->converged = 1;
        return KR_OK;
    }
    kr_progress *prog = o.show_progress ? kr_progress_begin(ctx, "sirt", o.max_iter) : NULL;
    kr_status st = KR_OK;
    double rel = NAN;
    int k = 0;
    for (;; k++) {
        double rn;
        if ((st = kr_linop_forward(s->A, x, s->r)) != KR_OK) break;
        if ((st = kr_vec_xpay(ctx, s->r, -1.0, 0.0, y)) != KR_OK) break; /* r = y - A x */
        if ((st = kr_vec_norm2(ctx, s->r, &rn)) != KR_OK) break;
        rel = rn / yn;
        if (o.history) o.history[k] = rel;
        kr_log(ctx, KR_LOG_INFO, "%s: iteration %d: relative residual %.6e", fn, k, rel);
        if (!isfinite(rel)) {
            st = kri_fail(KR_ERR_NOT_CONVERGED, "%s: the residual became %g after %d iterations",
                          fn, rel, k);
            break;
        }
        if (rel <= o.tol || k == o.max_iter) break;
        if ((st = kri_sirt_mul(s, s->r, s->R)) != KR_OK) break;
        if ((st = kri_sirt_back(s, s->r, s->g)) != KR_OK) break;
        if ((st = kri_sirt_mul(s, s->g, s->C)) != KR_OK) break;
        if ((st = kr_vec_axpy(ctx, x, o.relax, 0.0, s->g)) != KR_OK) break;
        if (o.nonneg &&
            (st = s->be->clamp0(ctx, x->dtype, kr_array_numel(x), x->data)) != KR_OK)
            break;
        kr_progress_add(prog, 1);
    }
    kr_progress_end(prog);
    if (info) {
        info->iterations = k;
        info->rel_residual = rel;
        info->converged = rel <= o.tol;
    }
    if (st == KR_OK)
        kr_log(ctx, KR_LOG_DEBUG, "SIRT: %d iterations, relative residual %.3g", k, rel);
    return st;
}
