/* NUFFT plans: options, validation of every argument, dispatch through the backend table
 * (nufft_internal.h) that the plan's context picks, and the kr_linop wrapper. */
#include "mri/nufft/nufft_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void kr_nufft_opts_default(kr_nufft_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->dtype = KR_C64;
    o->eps = 1e-4;
    o->sigma = 2.0;
    o->batch = 1;
    o->width = 0;
    o->check_finite = 1;
}

void kr_nufft_plan_destroy(kr_nufft_plan *p)
{
    if (!p) return;
    if (p->be) p->be->destroy(p);
    for (int d = 0; d < 3; d++) kri_free(p->deapod[d]);
    kri_free(p);
}

/* The rounding floor of a c64 plan: float rounding on the grid is white noise, and the
 * deapodisation amplifies it by D_d(x) / D_d(centre) along each dim, so the relative l2 error
 * of the output cannot go below about 1.5 2^-24 prod_d rms_x(D_d(x) / D_d(centre)). Measured
 * (CPU, c64, random points) within 1.5x of this where rounding dominates: 1.9e-7 at sigma 2,
 * w 8 in 2-D, 1.7e-5 and 9.9e-5 at sigma 1.25, w 9 and 11; 2.7e-7 at sigma 2, w 8 in 3-D
 * (H100). */
static double kri_nufft_f32_floor(const kr_nufft_plan *p)
{
    double f = 1.5 * 0x1p-24;
    for (int d = 0; d < p->ndim; d++) {
        const double *D = p->deapod[d];
        double c = D[p->N[d] / 2], s = 0;
        for (int64_t i = 0; i < p->N[d]; i++) s += (D[i] / c) * (D[i] / c);
        f *= sqrt(s / (double)p->N[d]);
    }
    return f;
}

kr_status kr_nufft_plan_create(kr_nufft_plan **plan, const kr_ctx *ctx, int ndim,
                               const int64_t *dims, const kr_nufft_opts *opts)
{
    KRI_ARG_NOT_NULL(plan);
    *plan = NULL;
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(dims);
    kr_nufft_opts o;
    if (opts)
        o = *opts;
    else
        kr_nufft_opts_default(&o);
    if (ndim != 2 && ndim != 3)
        return kri_fail(KR_ERR_DIM, "NUFFT images must have 2 or 3 dims, got %d", ndim);
    for (int d = 0; d < ndim; d++)
        if (dims[d] < 2 || dims[d] > (1 << 20))
            return kri_fail(KR_ERR_DIM, "NUFFT image dim %d is %lld; it must be in [2, %d]", d,
                            (long long)dims[d], 1 << 20);
    if (o.dtype != KR_C64 && o.dtype != KR_C128)
        return kri_fail(KR_ERR_DTYPE, "NUFFT plans are c64 or c128, got %s",
                        kr_dtype_name(o.dtype));
    double eps_min = o.dtype == KR_C64 ? 1e-6 : 1e-14;
    if (!(o.eps >= eps_min && o.eps <= 0.1))
        return kri_fail(KR_ERR_INVALID_ARG, "NUFFT eps %g is outside [%g, 0.1] for %s%s", o.eps,
                        eps_min, kr_dtype_name(o.dtype),
                        o.dtype == KR_C64 && o.eps < eps_min ? " (use KR_C128 for more accuracy)"
                                                             : "");
    if (o.sigma == 0.0) o.sigma = 2.0;
    if (!(o.sigma >= 1.25 && o.sigma <= 3.0))
        return kri_fail(KR_ERR_INVALID_ARG, "NUFFT oversampling sigma %g is outside [1.25, 3]",
                        o.sigma);
    if (o.batch == 0) o.batch = 1;
    if (o.batch < 1 || o.batch > (1 << 24))
        return kri_fail(KR_ERR_INVALID_ARG, "NUFFT batch %lld is outside [1, %d]",
                        (long long)o.batch, 1 << 24);
    if (o.width != 0 && (o.width < 2 || o.width > KRI_NUFFT_MAX_W))
        return kri_fail(KR_ERR_INVALID_ARG, "NUFFT kernel width %d is outside [2, %d] (0 = auto)",
                        o.width, KRI_NUFFT_MAX_W);
    if (o.gpu_max_subprob < 0 || o.gpu_max_batch < 0 || o.gpu_bin[0] < 0 || o.gpu_bin[1] < 0 ||
        o.gpu_bin[2] < 0 || o.gpu_bin[0] > 1024 || o.gpu_bin[1] > 1024 || o.gpu_bin[2] > 1024)
        return kri_fail(KR_ERR_INVALID_ARG, "NUFFT GPU options must be >= 0 (0 = auto), got "
                        "max_subprob %d, max_batch %d, bin %dx%dx%d (at most 1024 each)",
                        o.gpu_max_subprob, o.gpu_max_batch, o.gpu_bin[0], o.gpu_bin[1],
                        o.gpu_bin[2]);
    kr_backend be = kr_ctx_backend(ctx);

    /* Width from the requested sigma, grid from it, then width and beta again from the grid's
     * effective oversampling (never wider). */
    int w = o.width ? o.width : kri_nufft_width_for(o.eps, o.sigma, ndim);
    if (w == 0)
        return kri_fail(KR_ERR_INVALID_ARG, "NUFFT eps %g needs a kernel wider than %d cells at "
                        "sigma %g; raise sigma or eps", o.eps, KRI_NUFFT_MAX_W, o.sigma);
    int64_t n[3] = {1, 1, 1}, N[3] = {1, 1, 1};
    double sig = INFINITY;
    for (int d = 0; d < ndim; d++) {
        N[d] = dims[d];
        n[d] = kri_nufft_grid_size(N[d], o.sigma, w);
        sig = fmin(sig, (double)n[d] / (double)N[d]);
    }
    if (!o.width) {
        int w2 = kri_nufft_width_for(o.eps, sig, ndim);
        if (w2 > 0 && w2 < w) w = w2;
    }
    int64_t ngrid, nbytes;
    if (!kri_mul_ok(n[0], n[1], &ngrid) || !kri_mul_ok(ngrid, n[2], &ngrid) ||
        !kri_mul_ok(ngrid, 16, &nbytes) || ngrid > KR_MAX_ELEMENTS)
        return kri_fail(KR_ERR_DIM, "NUFFT grid %lldx%lldx%lld is too large", (long long)n[0],
                        (long long)n[1], (long long)n[2]);

    kr_nufft_plan *p = kri_calloc(1, sizeof *p);
    if (!p) return kri_fail(KR_ERR_OOM_HOST, "out of host memory creating a NUFFT plan");
    p->ctx = ctx;
    p->opts = o;
    p->backend = be;
    p->dtype = o.dtype;
    p->dbl = o.dtype == KR_C128;
    p->ndim = ndim;
    for (int d = 0; d < 3; d++) {
        p->N[d] = N[d];
        p->n[d] = n[d];
    }
    p->ngrid = ngrid;
    p->nimg = N[0] * N[1] * N[2];
    p->batch = o.batch;
    p->eps = o.eps;
    p->sigma = sig;
    p->check_finite = o.check_finite != 0;
    /* measured on an H100: 256 points per subproblem is best for dense 2-D centres (radial),
     * 1024 for 3-D */
    p->gpu_max_subprob = o.gpu_max_subprob ? o.gpu_max_subprob : ndim == 2 ? 256 : 1024;
    p->gpu_max_batch = o.gpu_max_batch;
    for (int d = 0; d < 3; d++) p->gpu_bin[d] = o.gpu_bin[d];
    double tol = fmax(0.02 * o.eps, 2e-14);
    if (!p->dbl) tol = fmax(tol, 1e-8);
    kr_status s = kri_nufft_kernel_init(&p->ker, w, kri_nufft_beta_for(w, sig), tol);
    for (int d = 0; d < 3 && s == KR_OK; d++) {
        s = kri_alloc((void **)&p->deapod[d], (size_t)N[d] * sizeof(double),
                      "NUFFT deapodisation factors");
        if (s == KR_OK && d < ndim) kri_nufft_deapod(&p->ker, N[d], n[d], p->deapod[d]);
        if (s == KR_OK && d >= ndim) p->deapod[d][0] = 1.0; /* unused dim of a 2-D plan */
    }
    double f32_floor = s == KR_OK && !p->dbl ? kri_nufft_f32_floor(p) : 0.0;
    if (f32_floor > o.eps) {
        kr_nufft_plan_destroy(p);
        return kri_fail(KR_ERR_INVALID_ARG, "NUFFT eps %g is below what %s reaches on a grid "
                        "oversampled by %g (about %.1e: float rounding, amplified by the "
                        "deapodisation); raise eps or sigma, or use KR_C128", o.eps,
                        kr_dtype_name(o.dtype), sig, f32_floor);
    }
    if (s == KR_OK && kr_ctx_ndevices(ctx) > 1 && p->batch > 1) {
        p->be = &kri_nufft_multi; /* the members divided over the devices (nufft_multi.c) */
        p->part_create = kr_nufft_plan_create;
        p->part_destroy = kr_nufft_plan_destroy;
    }
    else if (s == KR_OK)
        s = kri_backend_pick(&p->be, kri_ctx_loc(ctx), &kri_nufft_cpu, &kri_nufft_cuda, "NUFFT");
    if (s == KR_OK) s = p->be->create(p);
    if (s != KR_OK) {
        kr_nufft_plan_destroy(p);
        return s;
    }
    kr_log(ctx, KR_LOG_DEBUG,
           "nufft plan: %dD %lldx%lldx%lld, grid %lldx%lldx%lld, %s, eps %g, width %d, beta "
           "%.4f, degree %d, batch %lld",
           ndim, (long long)N[0], (long long)N[1], (long long)N[2], (long long)n[0],
           (long long)n[1], (long long)n[2], kr_dtype_name(p->dtype), p->eps, w, p->ker.beta,
           p->ker.degree, (long long)p->batch);
    *plan = p;
    return KR_OK;
}

kr_status kr_nufft_plan_info(const kr_nufft_plan *p, kr_nufft_info *info)
{
    KRI_ARG_NOT_NULL(p);
    KRI_ARG_NOT_NULL(info);
    memset(info, 0, sizeof *info);
    info->ndim = p->ndim;
    for (int d = 0; d < 3; d++) {
        info->dims[d] = p->N[d];
        info->grid[d] = p->n[d];
    }
    info->batch = p->batch;
    info->npoints = p->M;
    info->dtype = p->dtype;
    info->backend = p->backend;
    info->eps = p->eps;
    info->sigma = p->sigma;
    info->width = p->ker.w;
    info->beta = p->ker.beta;
    info->degree = p->ker.degree;
    return KR_OK;
}

/* ---- points --------------------------------------------------------------------------------- */
static const char kri_axis_name[3][3] = {"kx", "ky", "kz"};

/* The sentence for the first invalid coordinate (index m nc + d of the trajectory). */
static kr_status kri_report_bad_coord(const kr_nufft_plan *p, const kri_nufft_traj *t,
                                      int64_t bad)
{
    int64_t m = bad / t->nc;
    int d = (int)(bad % t->nc);
    size_t es = kr_dtype_size(t->dtype);
    unsigned char raw[8];
    KRI_TRY(kri_memcpy(raw, KR_HOST, (const char *)t->data + (size_t)bad * es, t->loc, es,
                       p->ctx));
    double v;
    if (t->dtype == KR_F32) {
        float f;
        memcpy(&f, raw, sizeof f);
        v = f;
    } else {
        memcpy(&v, raw, sizeof v);
    }
    if (!isfinite(v))
        return kri_fail(KR_ERR_INVALID_ARG, "NUFFT trajectory point %lld has %s = %g",
                        (long long)m, kri_axis_name[d], v);
    if (d >= p->ndim)
        return kri_fail(KR_ERR_GEOMETRY, "NUFFT trajectory point %lld has kz = %g; a 2-D plan "
                        "needs kz = 0", (long long)m, v);
    return kri_fail(KR_ERR_GEOMETRY, "NUFFT trajectory point %lld has %s = %g, outside [%g, %g] "
                    "for an image %lld wide", (long long)m, kri_axis_name[d], v,
                    -0.5 * (double)p->N[d], 0.5 * (double)p->N[d], (long long)p->N[d]);
}

kr_status kr_nufft_set_points(kr_nufft_plan *p, const kr_array *traj)
{
    KRI_ARG_NOT_NULL(p);
    KRI_TRY(kri_check_operand("kr_nufft_set_points", "trajectory", traj, KRI_ANY_DTYPE,
                              KRI_ANY_LOC));
    if (traj->dtype != KR_F32 && traj->dtype != KR_F64)
        return kri_fail(KR_ERR_DTYPE, "NUFFT trajectory must be f32 or f64, got %s",
                        kr_dtype_name(traj->dtype));
    if (traj->loc == KR_DEVICE && p->backend != KR_BACKEND_CUDA)
        return kri_fail(KR_ERR_LOCATION, "NUFFT trajectory is in device memory but the plan's "
                        "backend is %s", kr_backend_name(p->backend));
    int64_t nc = traj->dims[0];
    if (!(nc == 3 || (nc == 2 && p->ndim == 2))) {
        char b[128];
        return kri_fail(KR_ERR_DIM, "NUFFT trajectory has dims %s; the first dim must be 3 "
                        "(kx, ky, kz)%s", kr_dims_string(traj->ndim, traj->dims, b, sizeof b),
                        p->ndim == 2 ? " or 2 (kx, ky)" : "");
    }
    int64_t M = kr_array_numel(traj) / nc;
    if (M < 1) return kri_fail(KR_ERR_DIM, "NUFFT trajectory has no points");
    if (M > INT32_MAX)
        return kri_fail(KR_ERR_NOT_SUPPORTED, "NUFFT trajectory has %lld points; at most %d are "
                        "supported", (long long)M, INT32_MAX);

    p->M = 0; /* on failure the plan has no points */
    kri_nufft_traj tr = {traj->data, traj->dtype, nc, M, traj->loc};
    int64_t bad = -1;
    kr_status s = p->be->set_points(p, &tr, &bad);
    if (s == KR_OK && bad >= 0) return kri_report_bad_coord(p, &tr, bad);
    if (s == KR_OK) p->M = M;
    return s;
}

/* ---- execution ------------------------------------------------------------------------------ */
/* The one operand check (the plan's dtype, the context's memory), then the context's device. */
static kr_status kri_nufft_check_array(const kr_nufft_plan *p, const kr_array *a,
                                       const char *fn, const char *what)
{
    KRI_TRY(kri_check_operand(fn, what, a, p->dtype, kri_ctx_loc(p->ctx)));
    if (a->loc == KR_DEVICE && a->device != kr_ctx_device(p->ctx))
        return kri_fail(KR_ERR_LOCATION, "NUFFT %s is on CUDA device %d, the plan's context uses "
                        "device %d", what, a->device, kr_ctx_device(p->ctx));
    return KR_OK;
}

static kr_status kri_check_image(const kr_nufft_plan *p, const kr_array *a, const char *fn)
{
    KRI_TRY(kri_nufft_check_array(p, a, fn, "image"));
    int ok = 1;
    int64_t rest = 1;
    for (int d = 0; d < a->ndim; d++) {
        if (d < p->ndim)
            ok &= a->dims[d] == p->N[d];
        else
            rest *= a->dims[d];
    }
    if (a->ndim < p->ndim) ok = 0;
    if (!ok || rest != p->batch) {
        char b[128], e[96];
        if (p->ndim == 2)
            snprintf(e, sizeof e, "%lldx%lld", (long long)p->N[0], (long long)p->N[1]);
        else
            snprintf(e, sizeof e, "%lldx%lldx%lld", (long long)p->N[0], (long long)p->N[1],
                     (long long)p->N[2]);
        return kri_fail(KR_ERR_DIM, "NUFFT image has dims %s; the plan expects %s with %lld "
                        "batch member%s", kr_dims_string(a->ndim, a->dims, b, sizeof b), e,
                        (long long)p->batch, p->batch == 1 ? "" : "s");
    }
    return KR_OK;
}

static kr_status kri_check_kspace(const kr_nufft_plan *p, const kr_array *a, const char *fn)
{
    KRI_TRY(kri_nufft_check_array(p, a, fn, "k-space data"));
    int64_t prod = 1;
    int d = 0;
    while (d < a->ndim && prod < p->M) prod *= a->dims[d++];
    char b[128];
    if (prod != p->M)
        return kri_fail(KR_ERR_DIM, "NUFFT k-space data has dims %s; no leading dims give the "
                        "trajectory's %lld samples", kr_dims_string(a->ndim, a->dims, b, sizeof b),
                        (long long)p->M);
    int64_t rest = 1;
    for (; d < a->ndim; d++) rest *= a->dims[d];
    if (rest != p->batch)
        return kri_fail(KR_ERR_DIM, "NUFFT k-space data has dims %s: %lld samples x %lld batch "
                        "members, the plan expects %lld batch member%s",
                        kr_dims_string(a->ndim, a->dims, b, sizeof b), (long long)p->M,
                        (long long)rest, (long long)p->batch, p->batch == 1 ? "" : "s");
    return KR_OK;
}

static kr_status kri_check_points(const kr_nufft_plan *p)
{
    if (p->M == 0)
        return kri_fail(KR_ERR_INVALID_ARG, "NUFFT plan has no points: call kr_nufft_set_points "
                        "first");
    return KR_OK;
}

static kr_status kri_check_overlap(const kr_array *in, const kr_array *out)
{
    const char *a = in->data, *b = out->data;
    if (a < b + kr_array_bytes(out) && b < a + kr_array_bytes(in))
        return kri_fail(KR_ERR_INVALID_ARG, "NUFFT input and output overlap; in-place "
                        "transforms are not supported");
    return KR_OK;
}

static kr_status kri_report_bad_image(const kr_nufft_plan *p, int64_t bad)
{
    int64_t b = bad / p->nimg, i = bad % p->nimg;
    int64_t x = i % p->N[0], y = (i / p->N[0]) % p->N[1], z = i / (p->N[0] * p->N[1]);
    if (p->ndim == 2)
        return kri_fail(KR_ERR_INVALID_ARG, "NUFFT image value at (%lld, %lld) of batch member "
                        "%lld is NaN or infinite", (long long)x, (long long)y, (long long)b);
    return kri_fail(KR_ERR_INVALID_ARG, "NUFFT image value at (%lld, %lld, %lld) of batch member "
                    "%lld is NaN or infinite", (long long)x, (long long)y, (long long)z,
                    (long long)b);
}

static kr_status kri_report_bad_kspace(const kr_nufft_plan *p, int64_t bad)
{
    return kri_fail(KR_ERR_INVALID_ARG, "NUFFT k-space sample %lld of batch member %lld is NaN "
                    "or infinite", (long long)(bad % p->M), (long long)(bad / p->M));
}

/* Checks, the backend's transform (adjoint: k-space in, image out), and the sentence for a
 * non-finite input. */
static kr_status kri_nufft_execute(kr_nufft_plan *p, int adjoint, const kr_array *in,
                                   kr_array *out, const char *fn)
{
    KRI_ARG_NOT_NULL(p);
    KRI_TRY(kri_check_points(p));
    KRI_TRY(adjoint ? kri_check_kspace(p, in, fn) : kri_check_image(p, in, fn));
    KRI_TRY(adjoint ? kri_check_image(p, out, fn) : kri_check_kspace(p, out, fn));
    KRI_TRY(kri_check_overlap(in, out));
    int64_t bad = -1;
    KRI_TRY(adjoint ? p->be->adjoint(p, in->data, out->data, &bad)
                    : p->be->forward(p, in->data, out->data, &bad));
    if (bad < 0) return KR_OK;
    return adjoint ? kri_report_bad_kspace(p, bad) : kri_report_bad_image(p, bad);
}

kr_status kr_nufft_forward(kr_nufft_plan *p, const kr_array *image, kr_array *kspace)
{
    return kri_nufft_execute(p, 0, image, kspace, "kr_nufft_forward");
}

kr_status kr_nufft_adjoint(kr_nufft_plan *p, const kr_array *kspace, kr_array *image)
{
    return kri_nufft_execute(p, 1, kspace, image, "kr_nufft_adjoint");
}

/* ---- linear operator ------------------------------------------------------------------------ */
static kr_status kri_nufft_op_fwd(void *data, const kr_array *in, kr_array *out)
{
    return kr_nufft_forward((kr_nufft_plan *)data, in, out);
}

static kr_status kri_nufft_op_adj(void *data, const kr_array *in, kr_array *out)
{
    return kr_nufft_adjoint((kr_nufft_plan *)data, in, out);
}

kr_status kr_nufft_linop_create(kr_linop **op, kr_nufft_plan *p)
{
    KRI_ARG_NOT_NULL(op);
    *op = NULL;
    KRI_ARG_NOT_NULL(p);
    if (p->M == 0)
        return kri_fail(KR_ERR_INVALID_ARG, "NUFFT plan has no points: call kr_nufft_set_points "
                        "before kr_nufft_linop_create");
    kr_linop_def def;
    memset(&def, 0, sizeof def);
    def.name = "nufft";
    def.dtype = p->dtype;
    def.loc = kri_ctx_loc(p->ctx);
    def.in_ndim = p->ndim + 1;
    for (int d = 0; d < p->ndim; d++) def.in_dims[d] = p->N[d];
    def.in_dims[p->ndim] = p->batch;
    def.out_ndim = 2;
    def.out_dims[0] = p->M;
    def.out_dims[1] = p->batch;
    def.forward = kri_nufft_op_fwd;
    def.adjoint = kri_nufft_op_adj;
    def.data = p;
    return kr_linop_create(op, p->ctx, &def);
}
