/* Shared helpers of the reg module (shapes, the backend pick, group kernels on arrays) and the
 * finite-difference operator (kr_fdiff_linop_create, kray/reg.h). */
#include "internal.h"
#include "reg_internal.h"

#include <stdlib.h>
#include <string.h>

void kri_shape_init(kri_shape *s, int ndim, const int64_t *dims)
{
    memset(s, 0, sizeof *s);
    s->ndim = ndim;
    int64_t st = 1;
    for (int a = 0; a < ndim; a++) {
        s->dims[a] = dims[a];
        s->stride[a] = st;
        st *= dims[a];
    }
    s->n = st;
}

kr_status kri_reg_pick(const kri_reg_backend **be, kr_loc loc, const char *what)
{
    return kri_backend_pick(be, loc, &kri_reg_cpu, &kri_reg_cuda, what);
}

kr_status kri_reg_group(const kr_ctx *ctx, kr_array *x, int kind, int k, double a, double b)
{
    const kri_reg_backend *be;
    KRI_TRY(kri_reg_pick(&be, x->loc, "proximal map"));
    return be->group(ctx, x->dtype, kind, kr_array_numel(x) / k, k, x->data, a, b);
}

kr_status kri_reg_reduce(const kr_ctx *ctx, const kr_array *x, int kind, int k, double a,
                         double b, double *out)
{
    const kri_reg_backend *be;
    KRI_TRY(kri_reg_pick(&be, x->loc, "proximal map"));
    return be->reduce(ctx, x->dtype, kind, kr_array_numel(x) / k, k, x->data, a, b, out);
}

kr_status kri_reg_mul(const kr_ctx *ctx, kr_array *y, const kr_array *w)
{
    const kri_reg_backend *be;
    KRI_TRY(kri_reg_pick(&be, y->loc, "elementwise product"));
    return be->mul(ctx, y->dtype, kr_array_numel(y), y->data, w->data);
}

/* ---- finite differences ----------------------------------------------------------------------- */
typedef struct kri_fdiff {
    const kr_ctx *ctx;
    kr_dtype dtype;
    const kri_reg_backend *be;
    kri_fdiff_desc d;
} kri_fdiff;

static kr_status kri_fdiff_fwd(void *data, const kr_array *in, kr_array *out)
{
    kri_fdiff *f = data;
    return f->be->fdiff(f->ctx, f->dtype, &f->d, in->data, out->data, 0);
}

static kr_status kri_fdiff_adj(void *data, const kr_array *in, kr_array *out)
{
    kri_fdiff *f = data;
    return f->be->fdiff(f->ctx, f->dtype, &f->d, in->data, out->data, 1);
}

/* Checks shared by the reg creates: ctx, dtype, dims. */
kr_status kri_reg_check_shape(const char *fn, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                              const int64_t *dims)
{
    if (!ctx) return kri_fail(KR_ERR_INVALID_ARG, "%s: argument 'ctx' is NULL", fn);
    if (!dims) return kri_fail(KR_ERR_INVALID_ARG, "%s: argument 'dims' is NULL", fn);
    if (!kr_dtype_is_float(dtype))
        return kri_fail(KR_ERR_DTYPE, "%s: element type %s; expected f32, f64, c64 or c128", fn,
                        kr_dtype_name(dtype));
    if (ndim < 1 || ndim > KR_MAX_DIMS - 1)
        return kri_fail(KR_ERR_DIM, "%s: %d dimensions (1..%d allowed)", fn, ndim,
                        KR_MAX_DIMS - 1);
    KRI_TRY(kr_dims_check(ndim, dims, fn));
    return KR_OK;
}

kr_status kr_fdiff_linop_create(kr_linop **op, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                                const int64_t *dims, unsigned axes, kr_fdiff_boundary bc)
{
    const char *fn = "kr_fdiff_linop_create";
    KRI_ARG_NOT_NULL(op);
    *op = NULL;
    KRI_TRY(kri_reg_check_shape(fn, ctx, dtype, ndim, dims));
    if (axes == 0 || (ndim < 32 && (axes >> ndim) != 0))
        return kri_fail(KR_ERR_INVALID_ARG,
                        "%s: axes mask 0x%x selects no axis or an axis beyond the %d dimensions",
                        fn, axes, ndim);
    if (bc != KR_FDIFF_NEUMANN && bc != KR_FDIFF_PERIODIC)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: unknown boundary rule %d", fn, (int)bc);
    kri_fdiff *f = kri_calloc(1, sizeof *f);
    if (!f) return kri_fail(KR_ERR_OOM_HOST, "%s: operator state", fn);
    f->ctx = ctx;
    f->dtype = dtype;
    kri_shape_init(&f->d.s, ndim, dims);
    for (int a = 0; a < ndim; a++)
        if (axes & (1u << a)) f->d.axis[f->d.naxes++] = a;
    f->d.periodic = bc == KR_FDIFF_PERIODIC;
    kr_status s = kri_reg_pick(&f->be, kri_ctx_loc(ctx), "finite differences");
    if (s != KR_OK) {
        kri_free(f);
        return s;
    }
    kr_linop_def def;
    memset(&def, 0, sizeof def);
    def.name = "fdiff";
    def.dtype = dtype;
    def.loc = kri_ctx_loc(ctx);
    def.in_ndim = ndim;
    def.out_ndim = ndim + 1;
    for (int a = 0; a < ndim; a++) def.in_dims[a] = def.out_dims[a] = dims[a];
    def.out_dims[ndim] = f->d.naxes;
    def.forward = kri_fdiff_fwd;
    def.adjoint = kri_fdiff_adj;
    def.destroy = kri_free;
    def.data = f;
    s = kr_linop_create(op, ctx, &def);
    if (s != KR_OK) kri_free(f);
    return s;
}
