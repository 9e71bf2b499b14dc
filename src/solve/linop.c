/* kr_linop: creation, reference counting, checked application, default normal, adjoint test.
 * Combinators and the dense matrix operator are in linop_comb.c. */
#include "internal.h"
#include "solve_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

struct kr_linop {
    atomic_int refs;
    const kr_ctx *ctx;
    char name[64];
    kr_dtype dtype;
    kr_loc loc;
    int device; /* CUDA device ordinal of the operands when loc == KR_DEVICE */
    int in_ndim, out_ndim;
    int64_t in_dims[KR_MAX_DIMS], out_dims[KR_MAX_DIMS];
    kr_linop_apply_fn forward, adjoint, normal;
    kr_linop_free_fn destroy;
    void *data;
    int internal;     /* kray combinator: callback errors are not prefixed */
    kri_scratch tmp;  /* codomain-shaped, for the default normal */
};

/* ---- scratch -------------------------------------------------------------------------------- */
void kri_scratch_init(kri_scratch *s)
{
    s->buf = NULL;
    atomic_flag_clear(&s->busy);
}

kr_status kri_scratch_get(kri_scratch *s, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                          const int64_t *dims, kr_loc loc, kr_array **out)
{
    *out = NULL;
    if (!atomic_flag_test_and_set(&s->busy)) {
        if (!s->buf) {
            kr_status st = kr_array_create(&s->buf, dtype, ndim, dims, loc, ctx);
            if (st != KR_OK) {
                s->buf = NULL;
                atomic_flag_clear(&s->busy);
                return st;
            }
        }
        *out = s->buf;
        return KR_OK;
    }
    /* Slot in use by a concurrent application: a temporary of the same shape. */
    return kr_array_create(out, dtype, ndim, dims, loc, ctx);
}

void kri_scratch_put(kri_scratch *s, kr_array *a)
{
    if (!a) return;
    if (a == s->buf)
        atomic_flag_clear(&s->busy);
    else
        kr_array_destroy(a);
}

void kri_scratch_free(kri_scratch *s)
{
    kr_array_destroy(s->buf);
    s->buf = NULL;
}

/* ---- creation and lifetime ------------------------------------------------------------------ */
static kr_status kri_linop_new(kr_linop **out, const kr_ctx *ctx, const kr_linop_def *def,
                               int internal)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(def);
    const char *name = def->name && def->name[0] ? def->name : "unnamed";
    if (!kr_dtype_is_float(def->dtype))
        return kri_fail(KR_ERR_DTYPE,
                        "kr_linop_create: operator '%s' has element type %s; operators work on "
                        "f32, f64, c64 or c128",
                        name, kr_dtype_name(def->dtype));
    if (def->loc != KR_HOST && def->loc != KR_DEVICE)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_linop_create: operator '%s' has invalid location %d",
                        name, (int)def->loc);
    char what[96];
    snprintf(what, sizeof what, "input dims of operator '%s'", name);
    KRI_TRY(kr_dims_check(def->in_ndim, def->in_dims, what));
    snprintf(what, sizeof what, "output dims of operator '%s'", name);
    KRI_TRY(kr_dims_check(def->out_ndim, def->out_dims, what));
    if (!def->forward || !def->adjoint)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "kr_linop_create: operator '%s' needs both a forward and an adjoint "
                        "callback",
                        name);
    snprintf(what, sizeof what, "operator '%s'", name);
    KRI_TRY(kri_check_loc(ctx, def->loc, what));

    kr_linop *op = kri_calloc(1, sizeof *op);
    if (!op) return kri_fail(KR_ERR_OOM_HOST, "out of host memory creating operator '%s'", name);
    atomic_init(&op->refs, 1);
    op->ctx = ctx;
    snprintf(op->name, sizeof op->name, "%s", name);
    op->dtype = def->dtype;
    op->loc = def->loc;
    op->device = def->loc == KR_DEVICE ? kr_ctx_device(ctx) : 0;
    op->in_ndim = def->in_ndim;
    op->out_ndim = def->out_ndim;
    for (int i = 0; i < KR_MAX_DIMS; i++) {
        op->in_dims[i] = i < def->in_ndim ? def->in_dims[i] : 1;
        op->out_dims[i] = i < def->out_ndim ? def->out_dims[i] : 1;
    }
    op->forward = def->forward;
    op->adjoint = def->adjoint;
    op->normal = def->normal;
    op->destroy = def->destroy;
    op->data = def->data;
    op->internal = internal;
    kri_scratch_init(&op->tmp);
    *out = op;
    return KR_OK;
}

kr_status kr_linop_create(kr_linop **op, const kr_ctx *ctx, const kr_linop_def *def)
{
    return kri_linop_new(op, ctx, def, 0);
}

kr_status kri_linop_create_internal(kr_linop **op, const kr_ctx *ctx, const kr_linop_def *def)
{
    return kri_linop_new(op, ctx, def, 1);
}

kr_status kr_linop_retain(kr_linop *op)
{
    KRI_ARG_NOT_NULL(op);
    atomic_fetch_add(&op->refs, 1);
    return KR_OK;
}

void kr_linop_destroy(kr_linop *op)
{
    if (!op) return;
    if (atomic_fetch_sub(&op->refs, 1) != 1) return;
    if (op->destroy) op->destroy(op->data);
    kri_scratch_free(&op->tmp);
    kri_free(op);
}

/* ---- attributes ----------------------------------------------------------------------------- */
kr_dtype kr_linop_dtype(const kr_linop *op) { return op ? op->dtype : KR_DTYPE_INVALID; }

kr_loc kr_linop_loc(const kr_linop *op) { return op ? op->loc : KR_HOST; }

int kr_linop_in_dims(const kr_linop *op, int64_t *dims)
{
    if (!op) return 0;
    if (dims)
        for (int i = 0; i < op->in_ndim; i++) dims[i] = op->in_dims[i];
    return op->in_ndim;
}

int kr_linop_out_dims(const kr_linop *op, int64_t *dims)
{
    if (!op) return 0;
    if (dims)
        for (int i = 0; i < op->out_ndim; i++) dims[i] = op->out_dims[i];
    return op->out_ndim;
}

const char *kr_linop_name(const kr_linop *op) { return op ? op->name : ""; }

const kr_ctx *kri_linop_ctx(const kr_linop *op) { return op->ctx; }

int kri_linop_has_normal(const kr_linop *op) { return op->normal != NULL; }

/* ---- checks --------------------------------------------------------------------------------- */
int kri_dims_equal(int na, const int64_t *da, int nb, const int64_t *db)
{
    int n = na > nb ? na : nb;
    for (int i = 0; i < n; i++) {
        int64_t a = i < na ? da[i] : 1, b = i < nb ? db[i] : 1;
        if (a != b) return 0;
    }
    return 1;
}

kr_status kri_linop_check_array(const kr_linop *op, const kr_array *a, int in, const char *fn,
                                const char *what)
{
    int nd = in ? op->in_ndim : op->out_ndim;
    const int64_t *dd = in ? op->in_dims : op->out_dims;
    char s1[160], s2[160];
    if (!a || (a->ndim >= 1 && a->ndim <= KR_MAX_DIMS)) {
        snprintf(s1, sizeof s1, "%s of operator '%s'", what, op->name);
        KRI_TRY(kri_check_operand(fn, s1, a, op->dtype, op->loc));
        if (a->loc == KR_DEVICE && a->device != op->device)
            return kri_fail(KR_ERR_LOCATION,
                            "%s: %s is on CUDA device %d, operator '%s' on device %d", fn, what,
                            a->device, op->name, op->device);
        if (kri_dims_equal(a->ndim, a->dims, nd, dd)) return KR_OK;
        kr_dims_string(a->ndim, a->dims, s1, sizeof s1);
    } else {
        snprintf(s1, sizeof s1, "%d-dimensional", a->ndim);
    }
    return kri_fail(KR_ERR_DIM, "%s: %s is %s, operator '%s' expects %s %s", fn, what, s1,
                    op->name, in ? "input" : "output", kr_dims_string(nd, dd, s2, sizeof s2));
}

static kr_status kri_apply_check(const kr_linop *op, const kr_array *in, int in_is_domain,
                                 const kr_array *out, int out_is_domain, const char *fn)
{
    if (!op) return kri_fail(KR_ERR_INVALID_ARG, "%s: argument 'op' is NULL", fn);
    KRI_TRY(kri_linop_check_array(op, in, in_is_domain, fn, "input"));
    KRI_TRY(kri_linop_check_array(op, out, out_is_domain, fn, "output"));
    if (kri_arrays_overlap(in, out))
        return kri_fail(KR_ERR_INVALID_ARG,
                        "%s: input and output of operator '%s' overlap (use separate arrays)", fn,
                        op->name);
    return KR_OK;
}

static kr_status kri_callback_status(const kr_linop *op, kr_status s, const char *which)
{
    if (s == KR_OK || op->internal) return s;
    return kri_fail_prefix(s, "operator '%s' %s", op->name, which);
}

/* ---- application ---------------------------------------------------------------------------- */
kr_status kr_linop_forward(const kr_linop *op, const kr_array *x, kr_array *y)
{
    KRI_TRY(kri_apply_check(op, x, 1, y, 0, "kr_linop_forward"));
    return kri_callback_status(op, op->forward(op->data, x, y), "forward");
}

kr_status kr_linop_adjoint(const kr_linop *op, const kr_array *y, kr_array *x)
{
    KRI_TRY(kri_apply_check(op, y, 0, x, 1, "kr_linop_adjoint"));
    return kri_callback_status(op, op->adjoint(op->data, y, x), "adjoint");
}

kr_status kr_linop_normal(const kr_linop *op, const kr_array *x, kr_array *z)
{
    KRI_TRY(kri_apply_check(op, x, 1, z, 1, "kr_linop_normal"));
    if (op->normal) return kri_callback_status(op, op->normal(op->data, x, z), "normal");
    /* The operator was created non-const; the scratch slot is its only mutable part. */
    kri_scratch *tmp = (kri_scratch *)&op->tmp;
    kr_array *t;
    KRI_TRY(kri_scratch_get(tmp, op->ctx, op->dtype, op->out_ndim, op->out_dims, op->loc, &t));
    kr_status s = kri_callback_status(op, op->forward(op->data, x, t), "forward");
    if (s == KR_OK) s = kri_callback_status(op, op->adjoint(op->data, t, z), "adjoint");
    kri_scratch_put(tmp, t);
    return s;
}

/* ---- adjoint test --------------------------------------------------------------------------- */
kr_status kr_linop_adjoint_test(const kr_linop *op, uint64_t seed, double *rel_err)
{
    KRI_ARG_NOT_NULL(op);
    KRI_ARG_NOT_NULL(rel_err);
    *rel_err = NAN;
    const kr_ctx *ctx = op->ctx;
    kr_array *x = NULL, *ax = NULL, *y = NULL, *aty = NULL;
    kr_status s = kr_array_create(&x, op->dtype, op->in_ndim, op->in_dims, op->loc, ctx);
    if (s == KR_OK) s = kr_array_create(&aty, op->dtype, op->in_ndim, op->in_dims, op->loc, ctx);
    if (s == KR_OK) s = kr_array_create(&y, op->dtype, op->out_ndim, op->out_dims, op->loc, ctx);
    if (s == KR_OK) s = kr_array_create(&ax, op->dtype, op->out_ndim, op->out_dims, op->loc, ctx);
    if (s == KR_OK) s = kr_vec_random(ctx, x, seed);
    /* A second, unrelated stream for y. */
    if (s == KR_OK) s = kr_vec_random(ctx, y, kri_rand_u64(seed, UINT64_C(0xAD01E7)));
    if (s == KR_OK) s = kr_linop_forward(op, x, ax);
    if (s == KR_OK) s = kr_linop_adjoint(op, y, aty);
    double d1r = 0, d1i = 0, d2r = 0, d2i = 0, nax = 0, ny = 0, nx = 0, naty = 0;
    if (s == KR_OK) s = kr_vec_dot(ctx, ax, y, &d1r, &d1i);
    if (s == KR_OK) s = kr_vec_dot(ctx, x, aty, &d2r, &d2i);
    if (s == KR_OK) s = kr_vec_norm2(ctx, ax, &nax);
    if (s == KR_OK) s = kr_vec_norm2(ctx, y, &ny);
    if (s == KR_OK) s = kr_vec_norm2(ctx, x, &nx);
    if (s == KR_OK) s = kr_vec_norm2(ctx, aty, &naty);
    kr_array_destroy(x);
    kr_array_destroy(ax);
    kr_array_destroy(y);
    kr_array_destroy(aty);
    if (s != KR_OK) return kri_fail_prefix(s, "adjoint test of operator '%s'", op->name);
    double diff = hypot(d1r - d2r, d1i - d2i);
    double den = fmax(nax * ny, nx * naty);
    *rel_err = den > 0 ? diff / den : (diff > 0 ? INFINITY : 0.0);
    kr_log(ctx, KR_LOG_DEBUG, "adjoint test of '%s': <Ax,y> = %.17g%+.17gi, <x,A^H y> = %.17g%+.17gi, "
           "relative error %.3g", op->name, d1r, d1i, d2r, d2i, *rel_err);
    return KR_OK;
}
