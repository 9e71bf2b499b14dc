/* CG-SENSE for non-Cartesian multi-coil data: the encoding operator E = F S on one batched NUFFT
 * plan (coils as the batch), its weighted normal operator, and the CG solve (see cgsense.h). */
#include "kray/cgsense.h"
#include "kray/lsq.h"
#include "kray/offres.h"
#include "internal.h"
#include "kray/nufft.h"
#include "mri/cartesian/coilop_internal.h"
#include "mri/cgsense/cgsense_internal.h"
#include "mri/mri_internal.h"

#include <math.h>
#include <pthread.h>
#include <string.h>

struct kr_cgsense_plan {
    const kr_ctx *ctx;
    kr_loc loc;
    const kri_cgsense_backend *be;
    const kri_coilop_backend *ops;
    int ndim;
    int64_t dims[3], nvox, nc, M;
    kr_nufft_plan *nufft;
    kr_array *maps;  /* c64 [dims, C] at loc */
    kr_array *w;     /* f32 [M] weights D at loc, or NULL */
    kr_array *ws;    /* f32 [M] sqrt(D), or NULL */
    kr_array *icomb; /* f32 [nvox]: 1 / (prod N sum |S|^2) or 0, made on first use */
    kr_array *pdiag; /* the solve's preconditioner diagonal, kept for the next solve with the */
    int pdiag_kind;  /* same preconditioner and lambda (a plan solves many slices and frames) */
    double pdiag_lambda;
    kr_array *coil;  /* c64 [dims, C] scratch */
    kr_array *coil2; /* c64 [dims, C] scratch for T (on first use) */
    kr_array *ksp;   /* c64 [M, C] scratch */
    kr_linop *fhf;   /* Toeplitz hook */
    kr_linop *offres; /* field map: A batched over coils ([nx, ny, nz, C] -> [M, C]), or NULL */
    kr_offres_info oinfo;
    double *sos;     /* host [nvox]: sum_c |S_c|^2 (made on first use) */
    double wsum;     /* sum of the weights (M without) */
    kr_cgsense_normal normal;
    kr_cgsense_precond precond;
    pthread_mutex_t lock;
};

void kr_cgsense_opts_default(kr_cgsense_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->normal = KR_CGSENSE_NORMAL_NUFFT;
    o->eps = 1e-4;
    o->sigma = 0;
    o->precond = KR_CGSENSE_PRECOND_NONE;
}

void kr_cgsense_plan_destroy(kr_cgsense_plan *p)
{
    if (!p) return;
    kr_nufft_plan_destroy(p->nufft);
    kr_array_destroy(p->maps);
    kr_array_destroy(p->w);
    kr_array_destroy(p->ws);
    kr_array_destroy(p->icomb);
    kr_array_destroy(p->pdiag);
    kr_array_destroy(p->coil);
    kr_array_destroy(p->coil2);
    kr_array_destroy(p->ksp);
    kr_linop_destroy(p->fhf);
    kr_linop_destroy(p->offres);
    kri_free(p->sos);
    pthread_mutex_destroy(&p->lock);
    kri_free(p);
}

/* x[i] *= s[i % n] for i < n * reps (complex float x, real float s), at the plan's location. */
static kr_status kri_weight(const kr_cgsense_plan *p, const kr_array *s, int64_t n, int64_t reps,
                            float *x)
{
    return p->be->weight(p->ctx, n, reps, s->data, x);
}

/* coil[p, c] = S[p, c] x[p] */
static kr_status kri_expand(const kr_cgsense_plan *p, const float *x, float *coil)
{
    return p->ops->expand(p->ctx, p->nvox, p->nc, p->maps->data, x, 1, coil);
}

/* x[p] = sum_c conj(S[p, c]) coil[p, c], accumulated in double in coil order */
static kr_status kri_reduce(const kr_cgsense_plan *p, const float *coil, float *x)
{
    return p->ops->reduce(p->ctx, p->nvox, p->nc, p->maps->data, coil, x);
}

/* ksp = F coil for every coil: the NUFFT, or the off-resonance operator A with a field map
 * (batched over the coils, on the coil images' own dims [image, C]). */
static kr_status kri_F_forward(kr_cgsense_plan *p, kr_array *ksp)
{
    if (!p->offres) return kr_nufft_forward(p->nufft, p->coil, ksp);
    return kr_linop_forward(p->offres, p->coil, ksp);
}

/* coil = F^H ksp for every coil. */
static kr_status kri_F_adjoint(kr_cgsense_plan *p, const kr_array *ksp)
{
    if (!p->offres) return kr_nufft_adjoint(p->nufft, ksp, p->coil);
    return kr_linop_adjoint(p->offres, ksp, p->coil);
}

/* out = E^H D y (y [M, C] as a view; y is not modified: copied to the k-space scratch). */
static kr_status kri_rhs_locked(kr_cgsense_plan *p, const kr_array *y, kr_array *out)
{
    KRI_TRY(kr_array_copy(p->ksp, y, p->ctx));
    if (p->w) KRI_TRY(kri_weight(p, p->w, p->M, p->nc, p->ksp->data));
    KRI_TRY(kri_F_adjoint(p, p->ksp));
    return kri_reduce(p, p->coil->data, out->data);
}

/* ---- the encoding operator D^{1/2} E ------------------------------------------------------ */
static kr_status kri_op_forward(void *data, const kr_array *in, kr_array *out)
{
    kr_cgsense_plan *p = data;
    pthread_mutex_lock(&p->lock);
    kr_status st = kri_expand(p, in->data, p->coil->data);
    if (st == KR_OK) {
        kr_array v; /* the codomain as [M, C] */
        const int64_t kd[2] = {p->M, p->nc};
        kri_array_view(&v, out, 2, kd, 0);
        st = kri_F_forward(p, &v);
    }
    if (st == KR_OK && p->ws) st = kri_weight(p, p->ws, p->M, p->nc, out->data);
    pthread_mutex_unlock(&p->lock);
    return st;
}

static kr_status kri_op_adjoint(void *data, const kr_array *in, kr_array *out)
{
    kr_cgsense_plan *p = data;
    pthread_mutex_lock(&p->lock);
    kr_status st = kr_array_copy(p->ksp, in, p->ctx);
    if (st == KR_OK && p->ws) st = kri_weight(p, p->ws, p->M, p->nc, p->ksp->data);
    if (st == KR_OK) st = kri_F_adjoint(p, p->ksp);
    if (st == KR_OK) st = kri_reduce(p, p->coil->data, out->data);
    pthread_mutex_unlock(&p->lock);
    return st;
}

/* E^H D E x through the NUFFT: expand, forward, weight, adjoint, reduce. */
static kr_status kri_normal_nufft(kr_cgsense_plan *p, const kr_array *in, kr_array *out)
{
    KRI_TRY(kri_expand(p, in->data, p->coil->data));
    KRI_TRY(kri_F_forward(p, p->ksp));
    if (p->w) KRI_TRY(kri_weight(p, p->w, p->M, p->nc, p->ksp->data));
    KRI_TRY(kri_F_adjoint(p, p->ksp));
    return kri_reduce(p, p->coil->data, out->data);
}

/* E^H D E x through the attached T ~= F^H D F: expand, T (batched or coil by coil), reduce. */
static kr_status kri_normal_fhf(kr_cgsense_plan *p, const kr_array *in, kr_array *out)
{
    if (!p->fhf)
        return kri_fail(KR_ERR_NOT_SUPPORTED, "CG-SENSE plan asks for the Toeplitz normal "
                        "operator but none is attached (kr_cgsense_set_fhf)");
    if (!p->coil2) KRI_TRY(kr_array_create_like(&p->coil2, p->coil, p->loc, p->ctx));
    KRI_TRY(kri_expand(p, in->data, p->coil->data));
    int64_t td[KR_MAX_DIMS];
    int tn = kr_linop_in_dims(p->fhf, td);
    int64_t tnum = 1;
    for (int i = 0; i < tn; i++) tnum *= td[i];
    if (tnum == p->nvox * p->nc) {
        kr_array a, b; /* the coil arrays in T's own dims (e.g. [nx, ny, 1, C]) */
        kri_array_view(&a, p->coil, tn, td, 0);
        kri_array_view(&b, p->coil2, tn, td, 0);
        KRI_TRY(kr_linop_forward(p->fhf, &a, &b));
    } else {
        for (int64_t c = 0; c < p->nc; c++) { /* coil c of each */
            kr_array a, b;
            kri_array_view(&a, p->coil, p->ndim, p->dims, c * p->nvox);
            kri_array_view(&b, p->coil2, p->ndim, p->dims, c * p->nvox);
            KRI_TRY(kr_linop_forward(p->fhf, &a, &b));
        }
    }
    return kri_reduce(p, p->coil2->data, out->data);
}

static kr_status kri_op_normal(void *data, const kr_array *in, kr_array *out)
{
    kr_cgsense_plan *p = data;
    pthread_mutex_lock(&p->lock);
    kr_status st = p->normal == KR_CGSENSE_NORMAL_TOEPLITZ ? kri_normal_fhf(p, in, out)
                                                           : kri_normal_nufft(p, in, out);
    pthread_mutex_unlock(&p->lock);
    return st;
}

static void kri_def_shapes(const kr_cgsense_plan *p, kr_linop_def *def)
{
    memset(def, 0, sizeof *def);
    def->dtype = KR_C64;
    def->loc = p->loc;
    def->in_ndim = p->ndim;
    for (int d = 0; d < p->ndim; d++) def->in_dims[d] = p->dims[d];
    def->data = (void *)p;
}

kr_status kr_cgsense_linop_create(kr_linop **op, kr_cgsense_plan *p)
{
    KRI_ARG_NOT_NULL(op);
    *op = NULL;
    KRI_ARG_NOT_NULL(p);
    kr_linop_def def;
    kri_def_shapes(p, &def);
    def.name = "cgsense-encoding";
    def.out_ndim = 2;
    def.out_dims[0] = p->M;
    def.out_dims[1] = p->nc;
    def.forward = kri_op_forward;
    def.adjoint = kri_op_adjoint;
    def.normal = kri_op_normal;
    return kr_linop_create(op, p->ctx, &def);
}

kr_status kr_cgsense_normal_linop_create(kr_linop **op, kr_cgsense_plan *p)
{
    KRI_ARG_NOT_NULL(op);
    *op = NULL;
    KRI_ARG_NOT_NULL(p);
    kr_linop_def def;
    kri_def_shapes(p, &def);
    def.name = "cgsense-normal";
    def.out_ndim = p->ndim;
    for (int d = 0; d < p->ndim; d++) def.out_dims[d] = p->dims[d];
    def.forward = kri_op_normal;
    def.adjoint = kri_op_normal;
    def.normal = NULL;
    return kr_linop_create(op, p->ctx, &def);
}

/* ---- plan ----------------------------------------------------------------------------------- */

static kr_status kri_plan_weights(kr_cgsense_plan *p, const kr_array *dcf)
{
    const char *fn = "kr_cgsense_plan_create";
    KRI_TRY(kri_check_operand(fn, "density weights", dcf, KRI_ANY_DTYPE, KRI_ANY_LOC));
    if (dcf->dtype != KR_F32 && dcf->dtype != KR_F64)
        return kri_fail(KR_ERR_DTYPE, "%s: density weights are %s; expected f32 or f64", fn,
                        kr_dtype_name(dcf->dtype));
    if (kr_array_numel(dcf) != p->M)
        return kri_fail(KR_ERR_DIM, "%s: density weights have %lld values, the trajectory %lld "
                        "samples", fn, (long long)kr_array_numel(dcf), (long long)p->M);
    kr_array *h = NULL, *hf = NULL, *hs = NULL;
    int64_t d1[1] = {p->M};
    kr_status st = dcf->loc == KR_HOST ? KR_OK : kr_array_clone(&h, dcf, KR_HOST, p->ctx);
    if (st == KR_OK) st = kr_array_create(&hf, KR_F32, 1, d1, KR_HOST, NULL);
    if (st == KR_OK) st = kr_array_create(&hs, KR_F32, 1, d1, KR_HOST, NULL);
    if (st == KR_OK) {
        const kr_array *src = h ? h : dcf;
        float *f = hf->data, *s = hs->data;
        p->wsum = 0;
        for (int64_t m = 0; m < p->M && st == KR_OK; m++) {
            double v = kr_array_get_f64(src, m);
            if (!isfinite(v) || v < 0)
                st = kri_fail(KR_ERR_INVALID_ARG, "%s: density weight %lld is %g (weights must "
                              "be finite and >= 0)", fn, (long long)m, v);
            f[m] = (float)v;
            s[m] = (float)sqrt(v);
            p->wsum += (double)f[m];
        }
    }
    if (st == KR_OK) st = kr_array_clone(&p->w, hf, p->loc, p->ctx);
    if (st == KR_OK) st = kr_array_clone(&p->ws, hs, p->loc, p->ctx);
    kr_array_destroy(h);
    kr_array_destroy(hf);
    kr_array_destroy(hs);
    return st;
}

/* The default T for KR_CGSENSE_NORMAL_TOEPLITZ: kray/lsq.h's Toeplitz engine (Q on the 2x grid
 * by an adjoint NUFFT of the weights, applied by FFT), all coils in one batch. */
static kr_status kri_plan_toeplitz(kr_cgsense_plan *p, const kr_array *traj,
                                   const kr_cgsense_opts *o)
{
    kr_lsq_opts lo;
    kr_lsq_opts_default(&lo);
    lo.dtype = KR_C64;
    lo.batch = p->nc;
    if (o->eps > 0) lo.eps = o->eps;
    const int64_t n[3] = {p->dims[0], p->dims[1], p->ndim == 3 ? p->dims[2] : 1};
    kr_array *wh = NULL;
    kr_status st = KR_OK;
    if (o->dcf && o->dcf->loc != KR_HOST) st = kr_array_clone(&wh, o->dcf, KR_HOST, p->ctx);
    kr_toeplitz_plan *t = NULL;
    if (st == KR_OK)
        st = kr_toeplitz_plan_create(&t, p->ctx, n, traj, o->dcf ? (wh ? wh : o->dcf) : NULL, &lo);
    kr_array_destroy(wh);
    kr_linop *op = NULL;
    if (st == KR_OK) {
        st = kr_toeplitz_linop_create(&op, t, p->nc); /* the operator owns t */
        if (st != KR_OK) kr_toeplitz_plan_destroy(t);
    }
    if (st == KR_OK) st = kr_cgsense_set_fhf(p, op);
    kr_linop_destroy(op); /* the plan keeps its own reference */
    return st;
}

/* The off-resonance operator A of the field map, batched over the coils (kray/offres.h). */
static kr_status kri_plan_offres(kr_cgsense_plan *p, const kr_array *traj,
                                 const kr_cgsense_opts *o)
{
    const char *fn = "kr_cgsense_plan_create";
    if (traj->loc != KR_HOST)
        return kri_fail(KR_ERR_LOCATION, "%s: with a field map the trajectory must be in host "
                        "memory", fn);
    double *k = NULL;
    int64_t M = 0;
    KRI_TRY(kri_traj_to_f64(traj, &k, &M));
    kr_array kv;
    const int64_t kd[2] = {3, M};
    kr_status st = kr_array_wrap(&kv, KR_F64, 2, kd, k, KR_HOST);
    kr_offres_opts fo;
    kr_offres_opts_default(&fo);
    fo.dtype = KR_C64;
    fo.exact = o->exact;
    fo.segments = o->segments;
    fo.tol = o->segment_tol;
    if (o->eps > 0) fo.eps = o->eps;
    fo.batch = p->nc;
    if (st == KR_OK)
        st = kr_offres_linop_create(&p->offres, p->ctx, p->dims, &kv, o->fieldmap, o->times, &fo,
                                    &p->oinfo);
    kri_free(k);
    if (st != KR_OK) return st;
    p->M = M;
    return KR_OK;
}

kr_status kr_cgsense_plan_create(kr_cgsense_plan **out, const kr_ctx *ctx, int ndim,
                                 const int64_t *dims, const kr_array *traj, const kr_array *maps,
                                 const kr_cgsense_opts *opts)
{
    const char *fn = "kr_cgsense_plan_create";
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(dims);
    KRI_TRY(kri_check_operand(fn, "trajectory", traj, KRI_ANY_DTYPE, KRI_ANY_LOC));
    KRI_ARG_NOT_NULL(maps);
    kr_cgsense_opts o;
    kr_cgsense_opts_default(&o);
    if (opts) o = *opts;
    if (ndim != 2 && ndim != 3)
        return kri_fail(KR_ERR_DIM, "%s: images must have 2 or 3 dims (got %d)", fn, ndim);
    for (int d = 0; d < ndim; d++)
        if (dims[d] < 2)
            return kri_fail(KR_ERR_DIM, "%s: image dim %d is %lld (must be >= 2)", fn, d,
                            (long long)dims[d]);
    if (o.normal != KR_CGSENSE_NORMAL_NUFFT && o.normal != KR_CGSENSE_NORMAL_TOEPLITZ)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: unknown normal-operator choice %d", fn,
                        (int)o.normal);
    if (o.precond != KR_CGSENSE_PRECOND_NONE && o.precond != KR_CGSENSE_PRECOND_INTENSITY &&
        o.precond != KR_CGSENSE_PRECOND_JACOBI)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: unknown preconditioner %d", fn, (int)o.precond);
    if ((o.fieldmap != NULL) != (o.times != NULL))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: the field map and the sample times go together "
                        "(one of them is missing)", fn);
    if (o.fieldmap && o.normal == KR_CGSENSE_NORMAL_TOEPLITZ)
        return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: the Toeplitz normal operator does not model a "
                        "field map; use the NUFFT normal operator", fn);
    KRI_TRY(kri_check_operand(fn, "coil maps", maps, KR_C64, KRI_ANY_LOC));
    const kr_loc loc = kri_ctx_loc(ctx);
    if (maps->loc != KR_HOST && maps->loc != loc)
        return kri_fail(KR_ERR_LOCATION, "%s: coil maps are in GPU memory but the ctx is %s", fn,
                        kr_backend_name(kr_ctx_backend(ctx)));
    const kri_cgsense_backend *be;
    const kri_coilop_backend *ops;
    KRI_TRY(kri_backend_pick(&be, loc, &kri_cgsense_cpu, &kri_cgsense_cuda, fn));
    KRI_TRY(kri_backend_pick(&ops, loc, &kri_coilop_cpu, &kri_coilop_cuda, fn));
    int64_t nvox = 1, nc = 1;
    int ok = maps->ndim >= ndim;
    for (int d = 0; d < ndim && ok; d++) {
        ok = maps->dims[d] == dims[d];
        nvox *= dims[d];
    }
    for (int d = ndim; d < maps->ndim; d++) nc *= maps->dims[d];
    if (!ok) {
        char a[96], b[96];
        return kri_fail(KR_ERR_DIM, "%s: coil maps have %s values, the image is %s (maps must "
                        "be [image dims, coils])", fn,
                        kr_dims_string(maps->ndim, maps->dims, a, sizeof a),
                        kr_dims_string(ndim, dims, b, sizeof b));
    }
    kr_cgsense_plan *p = kri_calloc(1, sizeof *p);
    if (!p) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a CG-SENSE plan");
    pthread_mutex_init(&p->lock, NULL);
    p->ctx = ctx;
    p->loc = loc;
    p->be = be;
    p->ops = ops;
    p->ndim = ndim;
    p->dims[0] = p->dims[1] = p->dims[2] = 1;
    for (int d = 0; d < ndim; d++) p->dims[d] = dims[d];
    p->nvox = nvox;
    p->nc = nc;
    p->normal = o.normal;
    p->precond = o.precond;
    int64_t cd[4] = {p->dims[0], p->dims[1], p->dims[2], nc};
    if (ndim == 2) cd[2] = nc;
    kr_array mv;
    kri_array_view(&mv, maps, ndim + 1, cd, 0);
    kr_status st = kr_array_clone(&p->maps, &mv, loc, ctx);
    int64_t bad = -1;
    if (st == KR_OK)
        st = kri_first_nonfinite(ctx, loc, KR_F32, p->maps->data, 2 * nvox * nc, &bad);
    if (st == KR_OK && bad >= 0)
        st = kri_fail(KR_ERR_INVALID_ARG, "%s: coil map value %lld (coil %lld) is not finite", fn,
                      (long long)(bad / 2 % nvox), (long long)(bad / 2 / nvox));
    if (st == KR_OK && o.fieldmap) {
        st = kri_plan_offres(p, traj, &o);
    } else if (st == KR_OK) {
        kr_nufft_opts no;
        kr_nufft_opts_default(&no);
        no.dtype = KR_C64;
        no.batch = nc;
        no.check_finite = 0; /* data checked once per solve, iterates finite by construction */
        if (o.eps > 0) no.eps = o.eps;
        no.sigma = o.sigma;
        kr_nufft_info info;
        st = kr_nufft_plan_create(&p->nufft, ctx, ndim, p->dims, &no);
        if (st == KR_OK) st = kr_nufft_set_points(p->nufft, traj);
        if (st == KR_OK) st = kr_nufft_plan_info(p->nufft, &info);
        if (st == KR_OK) p->M = info.npoints;
    }
    if (st == KR_OK) {
        p->wsum = (double)p->M;
        int64_t kd[2] = {p->M, nc};
        st = kr_array_create(&p->ksp, KR_C64, 2, kd, loc, ctx);
    }
    if (st == KR_OK) st = kr_array_create(&p->coil, KR_C64, ndim + 1, cd, loc, ctx);
    if (st == KR_OK && o.dcf) st = kri_plan_weights(p, o.dcf);
    if (st == KR_OK && o.normal == KR_CGSENSE_NORMAL_TOEPLITZ) st = kri_plan_toeplitz(p, traj, &o);
    if (st != KR_OK) {
        kr_cgsense_plan_destroy(p);
        return st;
    }
    *out = p;
    return KR_OK;
}

kr_status kr_cgsense_plan_sizes(const kr_cgsense_plan *p, int64_t *coils, int64_t *samples)
{
    KRI_ARG_NOT_NULL(p);
    if (coils) *coils = p->nc;
    if (samples) *samples = p->M;
    return KR_OK;
}

kr_status kr_cgsense_plan_offres(const kr_cgsense_plan *p, kr_offres_info *info)
{
    KRI_ARG_NOT_NULL(p);
    KRI_ARG_NOT_NULL(info);
    if (p->offres)
        *info = p->oinfo;
    else
        memset(info, 0, sizeof *info);
    return KR_OK;
}

kr_status kr_cgsense_set_fhf(kr_cgsense_plan *p, kr_linop *fhf)
{
    const char *fn = "kr_cgsense_set_fhf";
    KRI_ARG_NOT_NULL(p);
    if (fhf) {
        if (kr_linop_dtype(fhf) != KR_C64)
            return kri_fail(KR_ERR_DTYPE, "%s: the operator is %s; the plan is c64", fn,
                            kr_dtype_name(kr_linop_dtype(fhf)));
        if (kr_linop_loc(fhf) != p->loc)
            return kri_fail(KR_ERR_LOCATION, "%s: the operator and the plan are in different "
                            "memory (host vs device)", fn);
        int64_t di[KR_MAX_DIMS], dout[KR_MAX_DIMS];
        int ni = kr_linop_in_dims(fhf, di), no = kr_linop_out_dims(fhf, dout);
        int64_t a = 1, b = 1;
        for (int i = 0; i < ni; i++) a *= di[i];
        for (int i = 0; i < no; i++) b *= dout[i];
        int okdims = 1;
        for (int d = 0; d < p->ndim && okdims; d++) okdims = d < ni && di[d] == p->dims[d];
        if (!okdims || a != b || (a != p->nvox && a != p->nvox * p->nc)) {
            char s[96];
            return kri_fail(KR_ERR_DIM, "%s: the operator maps %s values; expected a square "
                            "operator on the image or on [image, coils]", fn,
                            kr_dims_string(ni, di, s, sizeof s));
        }
        KRI_TRY(kr_linop_retain(fhf));
    }
    kr_array_destroy(p->pdiag); /* a kept preconditioner is made again for the new operator */
    p->pdiag = NULL;
    kr_linop_destroy(p->fhf);
    p->fhf = fhf;
    return KR_OK;
}

/* Check k-space (c64, contiguous, M C values, plan location) and make a [M, C] view. */
static kr_status kri_kspace_view(const kr_cgsense_plan *p, const kr_array *y, kr_array *v,
                                 const char *fn)
{
    KRI_TRY(kri_check_operand(fn, "k-space", y, KR_C64, p->loc));
    if (kr_array_numel(y) != p->M * p->nc)
        return kri_fail(KR_ERR_DIM, "%s: k-space has %lld values, expected %lld samples x %lld "
                        "coils", fn, (long long)kr_array_numel(y), (long long)p->M,
                        (long long)p->nc);
    int64_t kd[2] = {p->M, p->nc};
    kri_array_view(v, y, 2, kd, 0);
    return KR_OK;
}

static kr_status kri_image_check(const kr_cgsense_plan *p, const kr_array *x, const char *fn)
{
    return kri_check_operand_dims(fn, "image", x, KR_C64, p->loc, p->ndim, p->dims);
}

kr_status kr_cgsense_rhs(kr_cgsense_plan *p, const kr_array *kspace, kr_array *b)
{
    const char *fn = "kr_cgsense_rhs";
    KRI_ARG_NOT_NULL(p);
    kr_array v;
    KRI_TRY(kri_kspace_view(p, kspace, &v, fn));
    KRI_TRY(kri_image_check(p, b, fn));
    pthread_mutex_lock(&p->lock);
    kr_status st = kri_rhs_locked(p, &v, b);
    pthread_mutex_unlock(&p->lock);
    return st;
}

/* p->sos = sum_c |S_c|^2 per voxel (host, double), made once from the plan's maps. */
static kr_status kri_sos(kr_cgsense_plan *p)
{
    if (p->sos) return KR_OK;
    kr_array *hm = NULL;
    KRI_TRY(p->loc == KR_HOST ? KR_OK : kr_array_clone(&hm, p->maps, KR_HOST, p->ctx));
    double *sos = kri_malloc(sizeof(double) * (size_t)p->nvox);
    if (!sos) {
        kr_array_destroy(hm);
        return kri_fail(KR_ERR_OOM_HOST, "out of host memory for the coil sensitivity sums");
    }
    const float *m = (hm ? hm : p->maps)->data;
    for (int64_t q = 0; q < p->nvox; q++) {
        double e = 0;
        for (int64_t c = 0; c < p->nc; c++) {
            const int64_t k = 2 * (q + p->nvox * c);
            e += (double)m[k] * m[k] + (double)m[k + 1] * m[k + 1];
        }
        sos[q] = e;
    }
    kr_array_destroy(hm);
    p->sos = sos;
    return KR_OK;
}

/* A real f32 [dims] array at the plan's location from host values v[q] = f(q). */
static kr_status kri_real_at(kr_cgsense_plan *p, const float *v, kr_array *dst)
{
    kr_array h;
    KRI_TRY(kr_array_wrap(&h, KR_F32, p->ndim, p->dims, (void *)v, KR_HOST));
    return kr_array_copy(dst, &h, p->ctx);
}

kr_status kr_cgsense_adjoint_image(kr_cgsense_plan *p, const kr_array *kspace, kr_array *x)
{
    KRI_TRY(kr_cgsense_rhs(p, kspace, x));
    if (!p->icomb) {
        KRI_TRY(kri_sos(p));
        int64_t d1[1] = {p->nvox};
        kr_array *h = NULL;
        KRI_TRY(kr_array_create(&h, KR_F32, 1, d1, KR_HOST, NULL));
        float *f = h->data;
        const double scale = (double)p->nvox;
        for (int64_t q = 0; q < p->nvox; q++)
            f[q] = p->sos[q] > 0 ? (float)(1.0 / (scale * p->sos[q])) : 0.f;
        kr_status st = kr_array_clone(&p->icomb, h, p->loc, p->ctx);
        kr_array_destroy(h);
        KRI_TRY(st);
    }
    return kri_weight(p, p->icomb, p->nvox, 1, x->data);
}

kr_status kr_cgsense_precond_diag(kr_cgsense_plan *p, kr_cgsense_precond kind, double lambda,
                                  kr_array *d)
{
    const char *fn = "kr_cgsense_precond_diag";
    KRI_ARG_NOT_NULL(p);
    KRI_TRY(kri_check_operand_dims(fn, "the preconditioner", d, KR_F32, p->loc, p->ndim,
                                   p->dims));
    if (!isfinite(lambda) || lambda < 0)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: lambda %g must be finite and >= 0", fn, lambda);
    if (kind != KR_CGSENSE_PRECOND_NONE && kind != KR_CGSENSE_PRECOND_INTENSITY &&
        kind != KR_CGSENSE_PRECOND_JACOBI)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: unknown preconditioner %d", fn, (int)kind);
    KRI_TRY(kri_sos(p));
    float *v = kri_malloc(sizeof(float) * (size_t)p->nvox);
    if (!v) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a preconditioner");
    /* diagonal of E^H D E (+ lambda) per voxel; where it vanishes, the best-covered voxel's */
    const double w = kind == KR_CGSENSE_PRECOND_JACOBI ? p->wsum : 1.0;
    const double lam = kind == KR_CGSENSE_PRECOND_JACOBI ? lambda : 0.0;
    double dmax = 0;
    for (int64_t q = 0; q < p->nvox; q++) dmax = fmax(dmax, w * p->sos[q] + lam);
    for (int64_t q = 0; q < p->nvox; q++) {
        const double dq = w * p->sos[q] + lam;
        v[q] = kind == KR_CGSENSE_PRECOND_NONE ? 1.0f
                                                : (float)(1.0 / (dq > 0 ? dq : (dmax > 0 ? dmax : 1)));
    }
    kr_status st = kri_real_at(p, v, d);
    kri_free(v);
    return st;
}

kr_status kr_cgsense_solve(kr_cgsense_plan *p, const kr_array *kspace, kr_array *x,
                           const kr_solve_opts *opts, kr_solve_info *info)
{
    const char *fn = "kr_cgsense_solve";
    KRI_ARG_NOT_NULL(p);
    kr_array v;
    KRI_TRY(kri_kspace_view(p, kspace, &v, fn));
    KRI_TRY(kri_image_check(p, x, fn));
    if (opts && (!isfinite(opts->lambda) || opts->lambda < 0))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: lambda %g must be finite and >= 0", fn,
                        opts->lambda);
    if (p->normal == KR_CGSENSE_NORMAL_TOEPLITZ && !p->fhf)
        return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: the plan asks for the Toeplitz normal "
                        "operator but none is attached (kr_cgsense_set_fhf)", fn);
    int64_t bad = -1;
    KRI_TRY(kri_first_nonfinite(p->ctx, p->loc, KR_F32, v.data, 2 * p->M * p->nc, &bad));
    if (bad >= 0)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: k-space sample %lld of coil %lld is NaN or "
                        "infinite", fn, (long long)(bad / 2 % p->M),
                        (long long)(bad / 2 / p->M));
    kr_array *b = NULL;
    kr_linop *N = NULL;
    kr_solve_opts so;
    if (opts)
        so = *opts;
    else
        kr_solve_opts_default(&so);
    KRI_TRY(kr_array_create_like(&b, x, p->loc, p->ctx));
    kr_status st = kr_cgsense_rhs(p, &v, b);
    if (st == KR_OK && !so.precond && p->precond != KR_CGSENSE_PRECOND_NONE) {
        if (p->pdiag && (p->pdiag_kind != (int)p->precond || p->pdiag_lambda != so.lambda)) {
            kr_array_destroy(p->pdiag);
            p->pdiag = NULL;
        }
        if (!p->pdiag) {
            st = kr_array_create(&p->pdiag, KR_F32, p->ndim, p->dims, p->loc, p->ctx);
            if (st == KR_OK) st = kr_cgsense_precond_diag(p, p->precond, so.lambda, p->pdiag);
            if (st != KR_OK) {
                kr_array_destroy(p->pdiag);
                p->pdiag = NULL;
            }
            p->pdiag_kind = (int)p->precond;
            p->pdiag_lambda = so.lambda;
        }
        so.precond = p->pdiag;
    }
    if (st == KR_OK) st = kr_cgsense_normal_linop_create(&N, p);
    if (st == KR_OK) st = kr_cg(p->ctx, N, b, x, &so, info);
    kr_linop_destroy(N);
    kr_array_destroy(b);
    return st;
}
