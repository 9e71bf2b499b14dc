/* Operator combinators (chain, stack, sum, scale), identity and dense matrix operators.
 * All are built on kr_linop_create with kray's own callbacks; operands are referenced. */
#include "internal.h"
#include "solve_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct kri_comb {
    const kr_ctx *ctx;
    kr_linop *a, *b;  /* referenced operands (b NULL for scale) */
    double re, im;    /* scale factor */
    kr_dtype dtype;
    kr_loc loc;
    int mid_ndim;     /* chain: shape of the intermediate (first's codomain) */
    int64_t mid_dims[KR_MAX_DIMS];
    int64_t a_out_n;  /* stack: elements of A's codomain */
    kri_scratch t1, t2;
} kri_comb;

static void kri_comb_free(void *data)
{
    kri_comb *c = data;
    if (!c) return;
    kr_linop_destroy(c->a);
    kr_linop_destroy(c->b);
    kri_scratch_free(&c->t1);
    kri_scratch_free(&c->t2);
    kri_free(c);
}

static kr_status kri_comb_new(kri_comb **out, kr_linop *a, kr_linop *b)
{
    kri_comb *c = kri_calloc(1, sizeof *c);
    if (!c) return kri_fail(KR_ERR_OOM_HOST, "out of host memory creating an operator");
    c->ctx = kri_linop_ctx(a);
    c->a = a;
    c->b = b;
    c->dtype = kr_linop_dtype(a);
    c->loc = kr_linop_loc(a);
    kri_scratch_init(&c->t1);
    kri_scratch_init(&c->t2);
    kr_linop_retain(a);
    if (b) kr_linop_retain(b);
    *out = c;
    return KR_OK;
}

static void kri_combo_name(char *buf, size_t len, const char *what, const kr_linop *a,
                           const kr_linop *b)
{
    if (b)
        snprintf(buf, len, "%s(%.24s, %.24s)", what, kr_linop_name(a), kr_linop_name(b));
    else
        snprintf(buf, len, "%s(%.40s)", what, kr_linop_name(a));
}

/* Create the operator "what(a, b)" with these callbacks (normal may be NULL); on failure the
 * comb data (and its references) are released. */
static kr_status kri_comb_finish(kr_linop **out, kri_comb *c, kr_linop_def *def, const char *what,
                                 kr_linop_apply_fn forward, kr_linop_apply_fn adjoint,
                                 kr_linop_apply_fn normal)
{
    char name[64];
    kri_combo_name(name, sizeof name, what, c->a, c->b);
    def->name = name;
    def->forward = forward;
    def->adjoint = adjoint;
    def->normal = normal;
    def->data = c;
    def->destroy = kri_comb_free;
    def->dtype = c->dtype;
    def->loc = c->loc;
    kr_status s = kri_linop_create_internal(out, c->ctx, def);
    if (s != KR_OK) kri_comb_free(c);
    return s;
}

kr_status kri_operands_agree(const char *fn, const kr_linop *a, const kr_linop *b)
{
    if (kr_linop_dtype(a) != kr_linop_dtype(b))
        return kri_fail(KR_ERR_DTYPE, "%s: operator '%s' works on %s, operator '%s' on %s", fn,
                        kr_linop_name(a), kr_dtype_name(kr_linop_dtype(a)), kr_linop_name(b),
                        kr_dtype_name(kr_linop_dtype(b)));
    if (kr_linop_loc(a) != kr_linop_loc(b) ||
        (kr_linop_loc(a) == KR_DEVICE &&
         kr_ctx_device(kri_linop_ctx(a)) != kr_ctx_device(kri_linop_ctx(b))))
        return kri_fail(KR_ERR_LOCATION,
                        "%s: operators '%s' and '%s' live in different memory (host/device)", fn,
                        kr_linop_name(a), kr_linop_name(b));
    return KR_OK;
}

/* "A x B -> 3x4" style description of a shape mismatch. */
static kr_status kri_shape_fail(const char *fn, const char *what_a, const kr_linop *a, int na,
                                const int64_t *da, const char *what_b, const kr_linop *b, int nb,
                                const int64_t *db)
{
    char s1[160], s2[160];
    return kri_fail(KR_ERR_DIM, "%s: %s of operator '%s' is %s but %s of operator '%s' is %s", fn,
                    what_a, kr_linop_name(a), kr_dims_string(na, da, s1, sizeof s1), what_b,
                    kr_linop_name(b), kr_dims_string(nb, db, s2, sizeof s2));
}

static kr_status kri_get_like(kri_scratch *s, const kri_comb *c, const kr_array *like,
                              kr_array **t)
{
    return kri_scratch_get(s, c->ctx, c->dtype, like->ndim, like->dims, c->loc, t);
}

static kr_status kri_get_dims(kri_scratch *s, const kri_comb *c, int ndim, const int64_t *dims,
                              kr_array **t)
{
    return kri_scratch_get(s, c->ctx, c->dtype, ndim, dims, c->loc, t);
}

/* out = f(A)(in_a) + f(B)(in_b) with f forward, adjoint or normal: the second part goes through
 * the scratch slot and is added. */
typedef kr_status (*kri_apply_fn)(const kr_linop *op, const kr_array *in, kr_array *out);

static kr_status kri_apply_add(kri_comb *c, kri_scratch *slot, kri_apply_fn f,
                               const kr_array *in_a, const kr_array *in_b, kr_array *out)
{
    kr_array *t;
    KRI_TRY(f(c->a, in_a, out));
    KRI_TRY(kri_get_like(slot, c, out, &t));
    kr_status s = f(c->b, in_b, t);
    if (s == KR_OK) s = kr_vec_axpy(c->ctx, out, 1.0, 0.0, t);
    kri_scratch_put(slot, t);
    return s;
}

/* ---- chain: x -> second(first(x)) ----------------------------------------------------------- */
/* out = f(second)(f(first)(in)) through the intermediate (f forward or adjoint). */
static kr_status kri_chain_apply(kri_comb *c, kri_apply_fn f, const kr_linop *first,
                                 const kr_linop *second, const kr_array *in, kr_array *out)
{
    kr_array *t;
    KRI_TRY(kri_get_dims(&c->t1, c, c->mid_ndim, c->mid_dims, &t));
    kr_status s = f(first, in, t);
    if (s == KR_OK) s = f(second, t, out);
    kri_scratch_put(&c->t1, t);
    return s;
}

static kr_status kri_chain_forward(void *data, const kr_array *x, kr_array *y)
{
    kri_comb *c = data;
    return kri_chain_apply(c, kr_linop_forward, c->a, c->b, x, y);
}

static kr_status kri_chain_adjoint(void *data, const kr_array *y, kr_array *x)
{
    kri_comb *c = data;
    return kri_chain_apply(c, kr_linop_adjoint, c->b, c->a, y, x);
}

/* first^H (second^H second) first: used when second has its own normal (e.g. Toeplitz). */
static kr_status kri_chain_normal(void *data, const kr_array *x, kr_array *z)
{
    kri_comb *c = data;
    kr_array *t = NULL, *u = NULL;
    KRI_TRY(kri_get_dims(&c->t1, c, c->mid_ndim, c->mid_dims, &t));
    kr_status s = kri_get_dims(&c->t2, c, c->mid_ndim, c->mid_dims, &u);
    if (s == KR_OK) s = kr_linop_forward(c->a, x, t);
    if (s == KR_OK) s = kr_linop_normal(c->b, t, u);
    if (s == KR_OK) s = kr_linop_adjoint(c->a, u, z);
    kri_scratch_put(&c->t2, u);
    kri_scratch_put(&c->t1, t);
    return s;
}

kr_status kr_linop_chain(kr_linop **out, kr_linop *first, kr_linop *second)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(first);
    KRI_ARG_NOT_NULL(second);
    KRI_TRY(kri_operands_agree("kr_linop_chain", first, second));
    kr_linop_def def;
    memset(&def, 0, sizeof def);
    int64_t mid[KR_MAX_DIMS], mid2[KR_MAX_DIMS];
    int nmid = kr_linop_out_dims(first, mid);
    int nmid2 = kr_linop_in_dims(second, mid2);
    if (!kri_dims_equal(nmid, mid, nmid2, mid2))
        return kri_shape_fail("kr_linop_chain", "output", first, nmid, mid, "input", second,
                              nmid2, mid2);
    kri_comb *c = NULL;
    KRI_TRY(kri_comb_new(&c, first, second));
    c->mid_ndim = nmid;
    memcpy(c->mid_dims, mid, (size_t)nmid * sizeof mid[0]);
    def.in_ndim = kr_linop_in_dims(first, def.in_dims);
    def.out_ndim = kr_linop_out_dims(second, def.out_dims);
    return kri_comb_finish(out, c, &def, "chain", kri_chain_forward, kri_chain_adjoint,
                           kri_linop_has_normal(second) ? kri_chain_normal : NULL);
}

/* The start of a combination of two operators of one input shape (stack, sum): the arguments,
 * their agreement, and def zeroed with a's input dims. */
static kr_status kri_pair_begin(const char *fn, kr_linop **out, kr_linop *a, kr_linop *b,
                                kr_linop_def *def)
{
    if (!out) return kri_fail(KR_ERR_INVALID_ARG, "%s: argument 'out' is NULL", fn);
    *out = NULL;
    if (!a || !b)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: argument '%s' is NULL", fn, a ? "b" : "a");
    KRI_TRY(kri_operands_agree(fn, a, b));
    memset(def, 0, sizeof *def);
    int64_t d[KR_MAX_DIMS];
    def->in_ndim = kr_linop_in_dims(a, def->in_dims);
    int n = kr_linop_in_dims(b, d);
    if (!kri_dims_equal(def->in_ndim, def->in_dims, n, d))
        return kri_shape_fail(fn, "input", a, def->in_ndim, def->in_dims, "input", b, n, d);
    return KR_OK;
}

/* ---- stack: x -> [A x ; B x] ---------------------------------------------------------------- */
/* Views of the two parts of a stacked (1-D) codomain array. */
static kr_status kri_stack_views(const kri_comb *c, const kr_array *y, kr_array *ya,
                                 kr_array *yb)
{
    int64_t da[KR_MAX_DIMS], db[KR_MAX_DIMS];
    int na = kr_linop_out_dims(c->a, da), nb = kr_linop_out_dims(c->b, db);
    char *base = y->data;
    KRI_TRY(kr_array_wrap(ya, c->dtype, na, da, base, y->loc));
    KRI_TRY(kr_array_wrap(yb, c->dtype, nb, db, base + (size_t)c->a_out_n * kr_dtype_size(c->dtype),
                          y->loc));
    ya->device = yb->device = y->device;
    return KR_OK;
}

static kr_status kri_stack_forward(void *data, const kr_array *x, kr_array *y)
{
    kri_comb *c = data;
    kr_array ya, yb;
    KRI_TRY(kri_stack_views(c, y, &ya, &yb));
    KRI_TRY(kr_linop_forward(c->a, x, &ya));
    return kr_linop_forward(c->b, x, &yb);
}

static kr_status kri_stack_adjoint(void *data, const kr_array *y, kr_array *x)
{
    kri_comb *c = data;
    kr_array ya, yb;
    KRI_TRY(kri_stack_views(c, y, &ya, &yb));
    return kri_apply_add(c, &c->t1, kr_linop_adjoint, &ya, &yb, x);
}

/* A^H A + B^H B, each part through its own normal. */
static kr_status kri_stack_normal(void *data, const kr_array *x, kr_array *z)
{
    return kri_apply_add(data, &((kri_comb *)data)->t1, kr_linop_normal, x, x, z);
}

kr_status kr_linop_stack(kr_linop **out, kr_linop *a, kr_linop *b)
{
    kr_linop_def def;
    KRI_TRY(kri_pair_begin("kr_linop_stack", out, a, b, &def));
    int64_t oa[KR_MAX_DIMS], ob[KR_MAX_DIMS];
    int noa = kr_linop_out_dims(a, oa), nob = kr_linop_out_dims(b, ob);
    int64_t na = 1, nbo = 1, total;
    for (int i = 0; i < noa; i++) na *= oa[i];
    for (int i = 0; i < nob; i++) nbo *= ob[i];
    total = na + nbo;
    if (total > KR_MAX_ELEMENTS)
        return kri_fail(KR_ERR_DIM, "kr_linop_stack: stacked output has %lld elements, more than "
                        "the limit of 2^40", (long long)total);
    kri_comb *c = NULL;
    KRI_TRY(kri_comb_new(&c, a, b));
    c->a_out_n = na;
    def.out_ndim = 1;
    def.out_dims[0] = total;
    return kri_comb_finish(out, c, &def, "stack", kri_stack_forward, kri_stack_adjoint,
                           kri_stack_normal);
}

/* ---- sum: x -> A x + B x -------------------------------------------------------------------- */
static kr_status kri_sum_forward(void *data, const kr_array *x, kr_array *y)
{
    return kri_apply_add(data, &((kri_comb *)data)->t1, kr_linop_forward, x, x, y);
}

static kr_status kri_sum_adjoint(void *data, const kr_array *y, kr_array *x)
{
    return kri_apply_add(data, &((kri_comb *)data)->t2, kr_linop_adjoint, y, y, x);
}

kr_status kr_linop_sum(kr_linop **out, kr_linop *a, kr_linop *b)
{
    kr_linop_def def;
    KRI_TRY(kri_pair_begin("kr_linop_sum", out, a, b, &def));
    int64_t d[KR_MAX_DIMS];
    def.out_ndim = kr_linop_out_dims(a, def.out_dims);
    int n = kr_linop_out_dims(b, d);
    if (!kri_dims_equal(def.out_ndim, def.out_dims, n, d))
        return kri_shape_fail("kr_linop_sum", "output", a, def.out_ndim, def.out_dims, "output", b,
                              n, d);
    kri_comb *c = NULL;
    KRI_TRY(kri_comb_new(&c, a, b));
    return kri_comb_finish(out, c, &def, "sum", kri_sum_forward, kri_sum_adjoint, NULL);
}

/* ---- scale: x -> a A x ---------------------------------------------------------------------- */
static kr_status kri_scale_forward(void *data, const kr_array *x, kr_array *y)
{
    kri_comb *c = data;
    KRI_TRY(kr_linop_forward(c->a, x, y));
    return kr_vec_scale(c->ctx, y, c->re, c->im);
}

static kr_status kri_scale_adjoint(void *data, const kr_array *y, kr_array *x)
{
    kri_comb *c = data;
    KRI_TRY(kr_linop_adjoint(c->a, y, x));
    return kr_vec_scale(c->ctx, x, c->re, -c->im);
}

static kr_status kri_scale_normal(void *data, const kr_array *x, kr_array *z)
{
    kri_comb *c = data;
    KRI_TRY(kr_linop_normal(c->a, x, z));
    return kr_vec_scale(c->ctx, z, c->re * c->re + c->im * c->im, 0.0);
}

kr_status kr_linop_scale(kr_linop **out, kr_linop *a, double re, double im)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(a);
    if (!isfinite(re) || !isfinite(im))
        return kri_fail(KR_ERR_INVALID_ARG, "kr_linop_scale: scale factor %g%+gi is not finite", re,
                        im);
    if (im != 0.0 && !kr_dtype_is_complex(kr_linop_dtype(a)))
        return kri_fail(KR_ERR_INVALID_ARG,
                        "kr_linop_scale: complex factor %g%+gi for real operator '%s' (%s)", re, im,
                        kr_linop_name(a), kr_dtype_name(kr_linop_dtype(a)));
    kr_linop_def def;
    memset(&def, 0, sizeof def);
    def.in_ndim = kr_linop_in_dims(a, def.in_dims);
    def.out_ndim = kr_linop_out_dims(a, def.out_dims);
    kri_comb *c = NULL;
    KRI_TRY(kri_comb_new(&c, a, NULL));
    c->re = re;
    c->im = im;
    return kri_comb_finish(out, c, &def, "scale", kri_scale_forward, kri_scale_adjoint,
                           kri_scale_normal);
}

/* ---- normal operator: x -> A^H A x ---------------------------------------------------------- */
static kr_status kri_normal_apply(void *data, const kr_array *x, kr_array *y)
{
    kri_comb *c = data;
    return kr_linop_normal(c->a, x, y);
}

kr_status kr_linop_normal_op(kr_linop **out, kr_linop *a)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(a);
    kr_linop_def def;
    memset(&def, 0, sizeof def);
    def.in_ndim = kr_linop_in_dims(a, def.in_dims);
    def.out_ndim = kr_linop_in_dims(a, def.out_dims);
    kri_comb *c = NULL;
    KRI_TRY(kri_comb_new(&c, a, NULL));
    /* A^H A is self-adjoint */
    return kri_comb_finish(out, c, &def, "normal", kri_normal_apply, kri_normal_apply, NULL);
}

/* ---- identity ------------------------------------------------------------------------------- */
static kr_status kri_identity_apply(void *data, const kr_array *in, kr_array *out)
{
    return kr_vec_copy((const kr_ctx *)data, out, in);
}

kr_status kr_linop_identity(kr_linop **out, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                            const int64_t *dims, kr_loc loc)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(dims);
    KRI_TRY(kr_dims_check(ndim, dims, "kr_linop_identity dims"));
    kr_linop_def def;
    memset(&def, 0, sizeof def);
    def.name = "identity";
    def.dtype = dtype;
    def.loc = loc;
    def.in_ndim = def.out_ndim = ndim;
    for (int i = 0; i < ndim; i++) def.in_dims[i] = def.out_dims[i] = dims[i];
    def.forward = def.adjoint = def.normal = kri_identity_apply;
    def.data = (void *)ctx; /* only read: kr_vec_copy takes a const ctx */
    return kri_linop_create_internal(out, ctx, &def);
}

/* ---- dense matrix --------------------------------------------------------------------------- */
typedef struct kri_matrix {
    const kr_ctx *ctx;
    kr_dtype dtype;
    int64_t m, n;
    const kri_matrix_backend *be;
    void *M; /* the backend's copy of the matrix */
} kri_matrix;

static void kri_matrix_free(void *data)
{
    kri_matrix *mx = data;
    if (!mx) return;
    mx->be->destroy(mx->M);
    kri_free(mx);
}

static kr_status kri_matrix_apply(const kri_matrix *mx, const kr_array *in, kr_array *out,
                                  int adjoint)
{
    return mx->be->apply(mx->ctx, mx->dtype, mx->m, mx->n, mx->M, in->data, out->data, adjoint);
}

static kr_status kri_matrix_forward(void *data, const kr_array *x, kr_array *y)
{
    return kri_matrix_apply(data, x, y, 0);
}

static kr_status kri_matrix_adjoint(void *data, const kr_array *y, kr_array *x)
{
    return kri_matrix_apply(data, y, x, 1);
}

kr_status kr_linop_matrix(kr_linop **out, const kr_ctx *ctx, kr_dtype dtype, int64_t m,
                          int64_t n, const void *matrix, kr_loc loc)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(matrix);
    if (!kr_dtype_is_float(dtype))
        return kri_fail(KR_ERR_DTYPE, "kr_linop_matrix: element type %s is not f32, f64, c64 or "
                        "c128", kr_dtype_name(dtype));
    int64_t mn;
    if (m < 1 || n < 1 || !kri_mul_ok(m, n, &mn) || mn > KR_MAX_ELEMENTS)
        return kri_fail(KR_ERR_DIM, "kr_linop_matrix: a %lld x %lld matrix is not allowed (each "
                        "size >= 1, at most 2^40 elements)", (long long)m, (long long)n);
    if (loc != KR_HOST && loc != KR_DEVICE)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_linop_matrix: invalid location %d", (int)loc);
    KRI_TRY(kri_check_loc(ctx, loc, "kr_linop_matrix operator"));
    const kri_matrix_backend *be;
    KRI_TRY(kri_backend_pick(&be, loc, &kri_matrix_cpu, &kri_matrix_cuda, "kr_linop_matrix"));
    kri_matrix *mx = kri_calloc(1, sizeof *mx);
    if (!mx) return kri_fail(KR_ERR_OOM_HOST, "out of host memory creating a matrix operator");
    *mx = (kri_matrix){ctx, dtype, m, n, be, NULL};
    kr_status s = be->create(&mx->M, ctx, (size_t)mn * kr_dtype_size(dtype), matrix);
    const kr_linop_def def = {.name = "matrix", .dtype = dtype, .loc = loc,
                              .in_ndim = 1, .in_dims = {n}, .out_ndim = 1, .out_dims = {m},
                              .forward = kri_matrix_forward, .adjoint = kri_matrix_adjoint,
                              .destroy = kri_matrix_free, .data = mx};
    if (s == KR_OK) s = kri_linop_create_internal(out, ctx, &def);
    if (s != KR_OK) kri_matrix_free(mx);
    return s;
}
