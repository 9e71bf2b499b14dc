/* SENSE plans: validation, whitening of the maps, path selection (lattice / general) and the
 * backend (sense_internal.h), and the SENSE encoding operator E = M F S as a kr_linop. */
#include "kray/sense.h"
#include "internal.h"
#include "kray/cartesian.h"
#include "kray/fft.h"
#include "mri/cartesian/coilop_internal.h"
#include "mri/cartesian/sense_internal.h"
#include "solve/solve_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct kr_sense_plan {
    const kr_ctx *ctx;
    kr_loc loc;
    int device;
    int64_t nx, ny, nc;
    int method, accel, offset;
    double lambda;
    uint8_t *lines; /* host [ny], 0/1 */
    int64_t nlines;
    kri_zc *w;         /* whitener (host), or NULL */
    kr_array *maps;    /* whitened maps at loc */
    kr_array *buf;     /* coil-image scratch [nx, ny, nc] at loc */
    kr_fft_plan *ifft; /* backward centred unitary over x, y */
    const kri_sense_backend *be;
    void *state; /* the backend's, for this plan's device */
};

void kr_sense_opts_default(kr_sense_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->accel = 1;
}

void kr_sense_plan_destroy(kr_sense_plan *p)
{
    if (!p) return;
    kri_free(p->lines);
    kri_free(p->w);
    kr_array_destroy(p->maps);
    kr_array_destroy(p->buf);
    kr_fft_plan_destroy(p->ifft);
    if (p->state) p->be->destroy(p->state);
    kri_free(p);
}

static kr_status kri_whiten_array_host(kr_array *a, int64_t nxy, int64_t nc, const kri_zc *w)
{
    float *v = a->data;
#pragma omp parallel for schedule(static)
    for (int64_t p = 0; p < nxy; p++) kri_whiten_c64(nc, w, v + 2 * p, nxy);
    return KR_OK;
}

kr_status kr_sense_plan_create(kr_sense_plan **out, const kr_ctx *ctx, const kr_array *maps,
                               const kr_sense_opts *opts)
{
    const char *fn = "kr_sense_plan_create";
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(opts);
    KRI_TRY(kri_check_operand(fn, "maps", maps, KR_C64, KRI_ANY_LOC));
    int64_t d[3];
    KRI_TRY(kri_shape3(maps, 3, "kr_sense_plan_create: maps", d));
    const int64_t nx = d[0], ny = d[1], nc = d[2];
    if (!(opts->lambda >= 0) || !isfinite(opts->lambda))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: lambda %g must be finite and >= 0", fn,
                        opts->lambda);
    kr_loc loc = kri_ctx_loc(ctx);
    if (maps->loc == KR_DEVICE && loc == KR_HOST)
        return kri_fail(KR_ERR_LOCATION, "%s: maps are in GPU memory but the ctx is a CPU ctx", fn);
    kr_sense_plan *p = kri_calloc(1, sizeof *p);
    if (!p) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a SENSE plan");
    p->ctx = ctx;
    p->loc = loc;
    p->device = kr_ctx_device(ctx);
    p->nx = nx;
    p->ny = ny;
    p->nc = nc;
    p->lambda = opts->lambda;
    kr_status st = kri_alloc((void **)&p->lines, (size_t)ny, "SENSE line mask");
    if (st != KR_OK) goto fail;
    if (opts->lines) {
        for (int64_t j = 0; j < ny; j++) p->lines[j] = opts->lines[j] != 0;
        int off = 0;
        int r = kri_lines_lattice(p->lines, ny, &off);
        p->method = r ? KR_SENSE_LATTICE : KR_SENSE_GENERAL;
        p->accel = r;
        p->offset = off;
        if (r > nc) {
            st = kri_fail(KR_ERR_INVALID_ARG,
                          "%s: the line mask is a lattice with R = %d, which exceeds the number "
                          "of coils (%lld)",
                          fn, r, (long long)nc);
            goto fail;
        }
    } else {
        if (opts->accel < 1) {
            st = kri_fail(KR_ERR_INVALID_ARG, "%s: acceleration R = %d (must be >= 1)", fn,
                          opts->accel);
            goto fail;
        }
        if (opts->accel > nc) {
            st = kri_fail(KR_ERR_INVALID_ARG,
                          "%s: acceleration R = %d exceeds the number of coils (%lld)", fn,
                          opts->accel, (long long)nc);
            goto fail;
        }
        if (opts->offset < 0 || opts->offset >= opts->accel) {
            st = kri_fail(KR_ERR_INVALID_ARG, "%s: offset %d is outside 0..%d for R = %d", fn,
                          opts->offset, opts->accel - 1, opts->accel);
            goto fail;
        }
        for (int64_t j = 0; j < ny; j++)
            p->lines[j] = j >= opts->offset && (j - opts->offset) % opts->accel == 0;
        p->accel = opts->accel;
        p->offset = opts->offset;
        p->method = ny % opts->accel == 0 ? KR_SENSE_LATTICE : KR_SENSE_GENERAL;
    }
    p->nlines = kr_cartesian_count(p->lines, ny, 1);
    if (p->nlines * nc < ny) {
        st = kri_fail(KR_ERR_INVALID_ARG,
                      "%s: %lld acquired lines x %lld coils cannot determine %lld pixels per "
                      "column",
                      fn, (long long)p->nlines, (long long)nc, (long long)ny);
        goto fail;
    }
    if (p->method == KR_SENSE_GENERAL) p->accel = 0;
    st = kri_backend_pick(&p->be, loc, &kri_sense_cpu, &kri_sense_cuda, fn);
    if (st == KR_OK && opts->psi) st = kri_psi_whitener(opts->psi, nc, fn, &p->w);
    if (st == KR_OK) {
        kri_sense_desc desc = {ctx,       nx,       ny,       nc,       p->method, p->accel,
                               p->offset, p->lambda, p->lines, (const double *)p->w};
        st = p->be->create(&desc, &p->state);
    }
    if (st != KR_OK) goto fail;
    /* Whitened maps, on the host first. */
    kr_array *hm = NULL;
    st = kr_array_create(&hm, KR_C64, 3, d, KR_HOST, NULL);
    if (st != KR_OK) goto fail;
    st = kr_array_copy(hm, maps, ctx);
    if (st == KR_OK && p->w) st = kri_whiten_array_host(hm, nx * ny, nc, p->w);
    if (st == KR_OK) {
        const float *v = hm->data;
        for (int64_t i = 0; i < 2 * nx * ny * nc; i++)
            if (!isfinite(v[i])) {
                st = kri_fail(KR_ERR_INVALID_ARG, "%s: maps contain a non-finite value", fn);
                break;
            }
    }
    if (st != KR_OK) {
        kr_array_destroy(hm);
        goto fail;
    }
    if (loc == KR_HOST) {
        p->maps = hm;
    } else {
        st = kr_array_clone(&p->maps, hm, KR_DEVICE, ctx);
        kr_array_destroy(hm);
        if (st != KR_OK) goto fail;
    }
    st = kr_array_create(&p->buf, KR_C64, 3, d, loc, ctx);
    if (st != KR_OK) goto fail;
    st = kr_fft_plan_create(&p->ifft, ctx, KR_C64, 3, d, 3u, KR_FFT_BACKWARD,
                            KR_FFT_CENTERED | KR_FFT_UNITARY, loc);
    if (st != KR_OK) goto fail;
    kr_log(ctx, KR_LOG_INFO, "SENSE plan: %lldx%lld, %lld coils, %s path (%lld lines%s)",
           (long long)nx, (long long)ny, (long long)nc,
           p->method == KR_SENSE_LATTICE ? "lattice" : "general", (long long)p->nlines,
           p->w ? ", pre-whitened" : "");
    *out = p;
    return KR_OK;
fail:
    kr_sense_plan_destroy(p);
    return st;
}

kr_status kr_sense_plan_info(const kr_sense_plan *p, kr_sense_info *info)
{
    KRI_ARG_NOT_NULL(p);
    KRI_ARG_NOT_NULL(info);
    memset(info, 0, sizeof *info);
    info->method = p->method;
    info->accel = p->method == KR_SENSE_LATTICE ? p->accel : 0;
    info->fold = p->method == KR_SENSE_LATTICE ? p->accel : (int)p->ny;
    info->systems = p->method == KR_SENSE_LATTICE ? p->nx * (p->ny / p->accel) : p->nx;
    info->lines = p->nlines;
    return p->be->singular(p->state, &info->singular);
}

/* Check an execute operand: c64 [nx, ny, nc] (with_coils) or c64 / f32 [nx, ny] at the plan's
 * location and device. */
static kr_status kri_sense_operand(const kr_sense_plan *p, const kr_array *a, kr_dtype t,
                                   int with_coils, const char *fn, const char *what)
{
    const int64_t d[3] = {p->nx, p->ny, p->nc};
    KRI_TRY(kri_check_operand_dims(fn, what, a, t, p->loc, with_coils ? 3 : 2, d));
    if (a->loc == KR_DEVICE && a->device != p->device)
        return kri_fail(KR_ERR_LOCATION, "%s: %s is on CUDA device %d, the plan on device %d", fn,
                        what, a->device, p->device);
    return KR_OK;
}

/* Solve from p->buf (whitened zero-filled coil images) or without data. */
static kr_status kri_sense_solve(kr_sense_plan *p, int with_data, kr_array *image, kr_array *gfac)
{
    return p->be->solve(p->state, p->maps->data, with_data ? p->buf->data : NULL,
                        image ? image->data : NULL, gfac ? gfac->data : NULL);
}

/* Execute (kspace != 0: src is k-space, masked, whitened and transformed) or unfold (src holds
 * the aliased coil images, whitened only). */
static kr_status kri_sense_run(kr_sense_plan *p, const char *fn, const char *what,
                               const kr_array *src, kr_array *image, kr_array *gfactor, int kspace)
{
    KRI_ARG_NOT_NULL(p);
    KRI_TRY(kri_sense_operand(p, src, KR_C64, 1, fn, what));
    KRI_TRY(kri_sense_operand(p, image, KR_C64, 0, fn, "image"));
    if (gfactor) KRI_TRY(kri_sense_operand(p, gfactor, KR_F32, 0, fn, "gfactor"));
    KRI_TRY(p->be->prepare(p->state, src->data, p->buf->data, kspace));
    if (kspace) KRI_TRY(kr_fft_execute(p->ifft, p->buf, p->buf));
    return kri_sense_solve(p, 1, image, gfactor);
}

kr_status kr_sense_execute(kr_sense_plan *p, const kr_array *kspace, kr_array *image,
                           kr_array *gfactor)
{
    return kri_sense_run(p, "kr_sense_execute", "kspace", kspace, image, gfactor, 1);
}

kr_status kr_sense_unfold(kr_sense_plan *p, const kr_array *aliased, kr_array *image,
                          kr_array *gfactor)
{
    return kri_sense_run(p, "kr_sense_unfold", "aliased", aliased, image, gfactor, 0);
}

kr_status kr_sense_gfactor(kr_sense_plan *p, kr_array *gfactor)
{
    KRI_ARG_NOT_NULL(p);
    KRI_TRY(kri_sense_operand(p, gfactor, KR_F32, 0, "kr_sense_gfactor", "gfactor"));
    return kri_sense_solve(p, 0, NULL, gfactor);
}

/* ---- SENSE operator ------------------------------------------------------------------------ */
typedef struct kri_sense_op {
    const kr_ctx *ctx;
    int64_t nx, ny, nc;
    kr_loc loc;
    const kri_coilop_backend *be;
    kr_array *maps;
    kr_array *lines; /* u8 [ny] at loc, 0 or 1, or NULL (all lines) */
    kr_fft_plan *fwd, *bwd;
    kri_scratch tmp;
    pthread_mutex_t lock; /* FFT plans are not reentrant */
} kri_sense_op;

static void kri_sense_op_free(void *data)
{
    kri_sense_op *o = data;
    if (!o) return;
    kr_array_destroy(o->maps);
    kr_array_destroy(o->lines);
    kr_fft_plan_destroy(o->fwd);
    kr_fft_plan_destroy(o->bwd);
    kri_scratch_free(&o->tmp);
    pthread_mutex_destroy(&o->lock);
    kri_free(o);
}

static kr_status kri_sense_mask_apply(kri_sense_op *o, kr_array *a)
{
    if (!o->lines) return KR_OK;
    return o->be->mask(o->ctx, o->nx, o->ny, o->nc, a->data, o->lines->data);
}

static kr_status kri_sense_op_forward_locked(kri_sense_op *o, const kr_array *in, kr_array *out)
{
    KRI_TRY(o->be->expand(o->ctx, o->nx * o->ny, o->nc, o->maps->data, in->data, 1, out->data));
    KRI_TRY(kr_fft_execute(o->fwd, out, out));
    return kri_sense_mask_apply(o, out);
}

static kr_status kri_sense_op_forward(void *data, const kr_array *in, kr_array *out)
{
    kri_sense_op *o = data;
    pthread_mutex_lock(&o->lock);
    kr_status st = kri_sense_op_forward_locked(o, in, out);
    pthread_mutex_unlock(&o->lock);
    return st;
}

static kr_status kri_sense_op_adjoint_locked(kri_sense_op *o, const kr_array *in, kr_array *out)
{
    int64_t d[3] = {o->nx, o->ny, o->nc};
    kr_array *t = NULL;
    KRI_TRY(kri_scratch_get(&o->tmp, o->ctx, KR_C64, 3, d, o->loc, &t));
    kr_status st = kr_array_copy(t, in, o->ctx);
    if (st == KR_OK) st = kri_sense_mask_apply(o, t);
    if (st == KR_OK) st = kr_fft_execute(o->bwd, t, t);
    if (st == KR_OK)
        st = o->be->reduce(o->ctx, o->nx * o->ny, o->nc, o->maps->data, t->data, out->data);
    kri_scratch_put(&o->tmp, t);
    return st;
}

static kr_status kri_sense_op_adjoint(void *data, const kr_array *in, kr_array *out)
{
    kri_sense_op *o = data;
    pthread_mutex_lock(&o->lock);
    kr_status st = kri_sense_op_adjoint_locked(o, in, out);
    pthread_mutex_unlock(&o->lock);
    return st;
}

kr_status kr_sense_linop_create(kr_linop **op, const kr_ctx *ctx, const kr_array *maps,
                         const uint8_t *lines, kr_loc loc)
{
    const char *fn = "kr_sense_linop_create";
    KRI_ARG_NOT_NULL(op);
    *op = NULL;
    KRI_ARG_NOT_NULL(ctx);
    KRI_TRY(kri_check_operand(fn, "maps", maps, KR_C64, KRI_ANY_LOC));
    if (loc != KR_HOST && loc != KR_DEVICE)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: invalid location %d", fn, (int)loc);
    KRI_TRY(kri_check_loc(ctx, loc, fn));
    const kri_coilop_backend *be;
    KRI_TRY(kri_backend_pick(&be, loc, &kri_coilop_cpu, &kri_coilop_cuda, fn));
    int64_t d[3];
    KRI_TRY(kri_shape3(maps, 3, "kr_sense_linop_create: maps", d));
    kri_sense_op *o = kri_calloc(1, sizeof *o);
    if (!o) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a SENSE operator");
    o->ctx = ctx;
    o->nx = d[0];
    o->ny = d[1];
    o->nc = d[2];
    o->loc = loc;
    o->be = be;
    kri_scratch_init(&o->tmp);
    pthread_mutex_init(&o->lock, NULL);
    kr_status st = kr_array_clone(&o->maps, maps, loc, ctx);
    if (st == KR_OK && lines) {
        kr_array *h = NULL; /* the flags as 0 / 1, then where the operator works */
        st = kr_array_create(&h, KR_U8, 1, &d[1], KR_HOST, NULL);
        if (st == KR_OK) {
            uint8_t *f = h->data;
            for (int64_t j = 0; j < d[1]; j++) f[j] = lines[j] != 0;
            st = kr_array_clone(&o->lines, h, loc, ctx);
        }
        kr_array_destroy(h);
    }
    if (st == KR_OK)
        st = kr_fft_plan_create(&o->fwd, ctx, KR_C64, 3, d, 3u, KR_FFT_FORWARD,
                                KR_FFT_CENTERED | KR_FFT_UNITARY, loc);
    if (st == KR_OK)
        st = kr_fft_plan_create(&o->bwd, ctx, KR_C64, 3, d, 3u, KR_FFT_BACKWARD,
                                KR_FFT_CENTERED | KR_FFT_UNITARY, loc);
    if (st != KR_OK) {
        kri_sense_op_free(o);
        return st;
    }
    kr_linop_def def;
    memset(&def, 0, sizeof def);
    def.name = "sense";
    def.dtype = KR_C64;
    def.loc = loc;
    def.in_ndim = 2;
    def.in_dims[0] = d[0];
    def.in_dims[1] = d[1];
    def.out_ndim = 3;
    def.out_dims[0] = d[0];
    def.out_dims[1] = d[1];
    def.out_dims[2] = d[2];
    def.forward = kri_sense_op_forward;
    def.adjoint = kri_sense_op_adjoint;
    def.destroy = kri_sense_op_free;
    def.data = o;
    st = kr_linop_create(op, ctx, &def);
    if (st != KR_OK) kri_sense_op_free(o);
    return st;
}
