/* SENSE plans: validation, whitening of the maps, path selection (lattice / general), host and
 * device dispatch, and the SENSE encoding operator E = M F S as a kr_linop. */
#include "kray/sense.h"
#include "internal.h"
#include "kray/cartesian.h"
#include "kray/fft.h"
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
    /* device */
    void *dlines;       /* [ny] bytes */
    void *dw;           /* whitener c64 row-major, or NULL */
    void *dsingular;    /* unsigned long long counter */
    void *dpsf;         /* general path: PSF, double pairs [ny] */
    void *dscr, *discr; /* general path: per-column scratch */
    int64_t batch;      /* general path: columns per launch */
    int64_t singular;   /* host path: last count */
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
#ifdef KRAY_HAVE_CUDA
    kri_device_free(p->dlines);
    kri_device_free(p->dw);
    kri_device_free(p->dsingular);
    kri_device_free(p->dpsf);
    kri_device_free(p->dscr);
    kri_device_free(p->discr);
#endif
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
    KRI_TRY(kri_check_c64(maps, "kr_sense_plan_create: maps"));
    int64_t d[3];
    KRI_TRY(kri_shape3(maps, 3, "kr_sense_plan_create: maps", d));
    const int64_t nx = d[0], ny = d[1], nc = d[2];
    if (!(opts->lambda >= 0) || !isfinite(opts->lambda))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: lambda %g must be finite and >= 0", fn,
                        opts->lambda);
    kr_loc loc = kr_ctx_backend(ctx) == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
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
    if (loc == KR_DEVICE && p->method == KR_SENSE_GENERAL && ny > 8192) {
        st = kri_fail(KR_ERR_NOT_SUPPORTED,
                      "%s: the CUDA general path handles up to 8192 lines (got %lld); use the "
                      "CPU backend or CG-SENSE (kr_sense_linop)",
                      fn, (long long)ny);
        goto fail;
    }
    if (loc == KR_DEVICE && p->accel > KRI_SENSE_CUDA_MAX_R) {
        st = kri_fail(KR_ERR_NOT_SUPPORTED, "%s: the CUDA backend supports R <= %d (got %d)", fn,
                      KRI_SENSE_CUDA_MAX_R, p->accel);
        goto fail;
    }
    if (opts->psi) {
        st = kri_psi_whitener(opts->psi, nc, "kr_sense_plan_create: psi", &p->w);
        if (st != KR_OK) goto fail;
    }
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
#ifdef KRAY_HAVE_CUDA
    if (loc == KR_DEVICE) {
        st = kri_device_alloc(&p->dlines, (size_t)ny, p->device, "SENSE line mask");
        if (st == KR_OK) st = kri_memcpy(p->dlines, KR_DEVICE, p->lines, KR_HOST, (size_t)ny, ctx);
        if (st == KR_OK)
            st = kri_device_alloc(&p->dsingular, sizeof(unsigned long long), p->device,
                                  "SENSE counter");
        if (st == KR_OK) st = kri_device_memset0(p->dsingular, sizeof(unsigned long long), ctx);
        if (st == KR_OK && p->method == KR_SENSE_GENERAL) {
            /* PSF and per-column scratch: batches of columns within ~512 MB */
            kri_zc *psf = NULL;
            st = kri_alloc((void **)&psf, sizeof(kri_zc) * (size_t)ny, "SENSE PSF");
            if (st == KR_OK) {
                kri_sense_psf(p->lines, ny, psf);
                st =
                    kri_device_alloc(&p->dpsf, sizeof(kri_zc) * (size_t)ny, p->device, "SENSE PSF");
                if (st == KR_OK)
                    st = kri_memcpy(p->dpsf, KR_DEVICE, psf, KR_HOST, sizeof(kri_zc) * (size_t)ny,
                                    ctx);
                kri_free(psf);
            }
            size_t per = (size_t)(ny * ny + 3 * ny) * 2 * sizeof(double);
            int64_t b = (int64_t)(((size_t)512 << 20) / per);
            p->batch = b < 1 ? 1 : (b > nx ? nx : b);
            if (st == KR_OK)
                st = kri_device_alloc(&p->dscr, per * (size_t)p->batch, p->device, "SENSE scratch");
            if (st == KR_OK)
                st = kri_device_alloc(&p->discr, sizeof(int) * (size_t)(ny * p->batch), p->device,
                                      "SENSE scratch");
        }
        if (st == KR_OK && p->w) {
            /* row-major c64 W[r * nc + c] */
            float *hw = NULL;
            st = kri_alloc((void **)&hw, sizeof(float) * 2 * (size_t)(nc * nc), "whitener");
            if (st == KR_OK) {
                for (int64_t r = 0; r < nc; r++)
                    for (int64_t c = 0; c < nc; c++) {
                        hw[2 * (r * nc + c)] = (float)creal(p->w[r + nc * c]);
                        hw[2 * (r * nc + c) + 1] = (float)cimag(p->w[r + nc * c]);
                    }
                st = kri_device_alloc(&p->dw, sizeof(float) * 2 * (size_t)(nc * nc), p->device,
                                      "SENSE whitener");
                if (st == KR_OK)
                    st = kri_memcpy(p->dw, KR_DEVICE, hw, KR_HOST,
                                    sizeof(float) * 2 * (size_t)(nc * nc), ctx);
                kri_free(hw);
            }
        }
        if (st != KR_OK) goto fail;
    }
#endif
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
    info->singular = p->singular;
#ifdef KRAY_HAVE_CUDA
    if (p->loc == KR_DEVICE) {
        unsigned long long c = 0;
        KRI_TRY(kri_memcpy(&c, KR_HOST, p->dsingular, KR_DEVICE, sizeof c, p->ctx));
        info->singular = (int64_t)c;
    }
#endif
    return KR_OK;
}

/* Check an execute operand: c64 / f32, dims, location. */
static kr_status kri_sense_operand(const kr_sense_plan *p, const kr_array *a, kr_dtype t,
                                   int with_coils, const char *fn, const char *what)
{
    if (!a) return kri_fail(KR_ERR_INVALID_ARG, "%s: %s is NULL", fn, what);
    if (!a->data) return kri_fail(KR_ERR_INVALID_ARG, "%s: %s has no data", fn, what);
    if (a->dtype != t)
        return kri_fail(KR_ERR_DTYPE, "%s: %s has element type %s; expected %s", fn, what,
                        kr_dtype_name(a->dtype), kr_dtype_name(t));
    if (!kr_array_is_contiguous(a))
        return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: %s is not contiguous", fn, what);
    int64_t d[3];
    char w[128];
    snprintf(w, sizeof w, "%s: %s", fn, what);
    KRI_TRY(kri_shape3(a, with_coils ? 3 : 2, w, d));
    if (d[0] != p->nx || d[1] != p->ny || (with_coils && d[2] != p->nc)) {
        char b[96];
        if (with_coils)
            return kri_fail(KR_ERR_DIM, "%s: %s has %s values, the plan expects %lldx%lldx%lld", fn,
                            what, kr_dims_string(a->ndim, a->dims, b, sizeof b), (long long)p->nx,
                            (long long)p->ny, (long long)p->nc);
        return kri_fail(KR_ERR_DIM, "%s: %s has %s values, the plan expects %lldx%lld", fn, what,
                        kr_dims_string(a->ndim, a->dims, b, sizeof b), (long long)p->nx,
                        (long long)p->ny);
    }
    if (a->loc != p->loc)
        return kri_fail(KR_ERR_LOCATION, "%s: %s is in %s memory, the plan works in %s memory", fn,
                        what, a->loc == KR_HOST ? "host" : "GPU",
                        p->loc == KR_HOST ? "host" : "GPU");
    if (a->loc == KR_DEVICE && a->device != p->device)
        return kri_fail(KR_ERR_LOCATION, "%s: %s is on CUDA device %d, the plan on device %d", fn,
                        what, a->device, p->device);
    return KR_OK;
}

/* Solve from p->buf (whitened zero-filled coil images) or without data. */
static kr_status kri_sense_solve(kr_sense_plan *p, int with_data, kr_array *image, kr_array *gfac)
{
    if (p->loc == KR_HOST) {
        kri_sense_cpu a = {p->nx,
                           p->ny,
                           p->nc,
                           p->accel,
                           p->offset,
                           p->lines,
                           p->lambda,
                           p->maps->data,
                           with_data ? p->buf->data : NULL,
                           image ? image->data : NULL,
                           gfac ? gfac->data : NULL,
                           kri_threads(p->ctx)};
        int64_t sing = 0;
        if (p->method == KR_SENSE_LATTICE)
            KRI_TRY(kri_cpu_sense_lattice(&a, &sing));
        else
            KRI_TRY(kri_cpu_sense_general(&a, &sing));
        p->singular = sing;
        if (sing)
            kr_log(p->ctx, KR_LOG_WARN,
                   "SENSE: %lld of the systems were singular (pixels set to 0, g = inf); "
                   "use lambda > 0",
                   (long long)sing);
        return KR_OK;
    }
#ifdef KRAY_HAVE_CUDA
    KRI_TRY(kri_cuda_set_device(p->ctx));
    kri_sense_geom g = {p->nx, p->ny, p->nc, p->accel, p->offset, p->lambda};
    KRI_TRY(kri_device_memset0(p->dsingular, sizeof(unsigned long long), p->ctx));
    if (p->method == KR_SENSE_GENERAL) {
        for (int64_t x0 = 0; x0 < p->nx; x0 += p->batch) {
            int64_t nb = p->nx - x0 < p->batch ? p->nx - x0 : p->batch;
            KRI_TRY(kri_cuda_sense_general(&g, x0, nb, p->dpsf, p->maps->data,
                                           with_data ? p->buf->data : NULL,
                                           image ? image->data : NULL, gfac ? gfac->data : NULL,
                                           p->dscr, p->discr, p->dsingular, kr_ctx_stream(p->ctx)));
        }
        return KR_OK;
    }
    return kri_cuda_sense_unfold(&g, p->maps->data, with_data ? p->buf->data : NULL,
                                 image ? image->data : NULL, gfac ? gfac->data : NULL, p->dsingular,
                                 kr_ctx_stream(p->ctx));
#else
    (void)image;
    (void)gfac;
    (void)with_data;
    return kri_fail(KR_ERR_NO_DEVICE, "no CUDA device: kray was built without CUDA");
#endif
}

/* buf = W * (lines ? src : 0) for k-space (mask != 0) or W * src for images. */
static kr_status kri_sense_prepare(kr_sense_plan *p, const kr_array *src, int mask)
{
    const int64_t nx = p->nx, ny = p->ny, nc = p->nc, nxy = nx * ny;
    if (p->loc == KR_HOST) {
        const float *s = src->data;
        float *b = p->buf->data;
        const uint8_t *ln = p->lines;
        const kri_zc *w = p->w;
#pragma omp parallel for num_threads(kri_threads(p->ctx)) schedule(static)
        for (int64_t y = 0; y < ny; y++) {
            for (int64_t c = 0; c < nc; c++) {
                float *dst = b + 2 * (nx * y + nxy * c);
                if (mask && !ln[y])
                    memset(dst, 0, sizeof(float) * 2 * (size_t)nx);
                else
                    memcpy(dst, s + 2 * (nx * y + nxy * c), sizeof(float) * 2 * (size_t)nx);
            }
            if (w && !(mask && !ln[y]))
                for (int64_t x = 0; x < nx; x++) kri_whiten_c64(nc, w, b + 2 * (x + nx * y), nxy);
        }
        return KR_OK;
    }
#ifdef KRAY_HAVE_CUDA
    KRI_TRY(kri_cuda_set_device(p->ctx));
    kri_sense_geom g = {nx, ny, nc, p->accel, p->offset, p->lambda};
    return kri_cuda_sense_prepare(&g, src->data, p->buf->data, mask ? p->dlines : NULL, p->dw,
                                  kr_ctx_stream(p->ctx));
#else
    return kri_fail(KR_ERR_NO_DEVICE, "no CUDA device: kray was built without CUDA");
#endif
}

kr_status kr_sense_execute(kr_sense_plan *p, const kr_array *kspace, kr_array *image,
                           kr_array *gfactor)
{
    const char *fn = "kr_sense_execute";
    KRI_ARG_NOT_NULL(p);
    KRI_TRY(kri_sense_operand(p, kspace, KR_C64, 1, fn, "kspace"));
    KRI_TRY(kri_sense_operand(p, image, KR_C64, 0, fn, "image"));
    if (gfactor) KRI_TRY(kri_sense_operand(p, gfactor, KR_F32, 0, fn, "gfactor"));
    KRI_TRY(kri_sense_prepare(p, kspace, 1));
    KRI_TRY(kr_fft_execute(p->ifft, p->buf, p->buf));
    return kri_sense_solve(p, 1, image, gfactor);
}

kr_status kr_sense_unfold(kr_sense_plan *p, const kr_array *aliased, kr_array *image,
                          kr_array *gfactor)
{
    const char *fn = "kr_sense_unfold";
    KRI_ARG_NOT_NULL(p);
    KRI_TRY(kri_sense_operand(p, aliased, KR_C64, 1, fn, "aliased"));
    KRI_TRY(kri_sense_operand(p, image, KR_C64, 0, fn, "image"));
    if (gfactor) KRI_TRY(kri_sense_operand(p, gfactor, KR_F32, 0, fn, "gfactor"));
    KRI_TRY(kri_sense_prepare(p, aliased, 0));
    return kri_sense_solve(p, 1, image, gfactor);
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
    kr_array *maps;
    uint8_t *lines; /* host */
    void *dlines;   /* device copy */
    kr_fft_plan *fwd, *bwd;
    kri_scratch tmp;
    pthread_mutex_t lock; /* FFT plans are not reentrant */
} kri_sense_op;

static void kri_sense_op_free(void *data)
{
    kri_sense_op *o = data;
    if (!o) return;
    kr_array_destroy(o->maps);
    kri_free(o->lines);
#ifdef KRAY_HAVE_CUDA
    kri_device_free(o->dlines);
#endif
    kr_fft_plan_destroy(o->fwd);
    kr_fft_plan_destroy(o->bwd);
    kri_scratch_free(&o->tmp);
    pthread_mutex_destroy(&o->lock);
    kri_free(o);
}

static kr_status kri_sense_mask_apply(kri_sense_op *o, kr_array *a)
{
    if (!o->lines) return KR_OK;
    if (o->loc == KR_HOST) {
        float *k = a->data;
        const int64_t nx = o->nx, ny = o->ny, nc = o->nc;
#pragma omp parallel for num_threads(kri_threads(o->ctx)) schedule(static)
        for (int64_t c = 0; c < nc; c++)
            for (int64_t j = 0; j < ny; j++)
                if (!o->lines[j])
                    memset(k + 2 * nx * (j + ny * c), 0, sizeof(float) * 2 * (size_t)nx);
        return KR_OK;
    }
#ifdef KRAY_HAVE_CUDA
    return kri_cuda_sense_mask(o->nx, o->ny, o->nc, a->data, o->dlines, kr_ctx_stream(o->ctx));
#else
    return kri_fail(KR_ERR_NO_DEVICE, "no CUDA device: kray was built without CUDA");
#endif
}

static kr_status kri_sense_op_forward_locked(kri_sense_op *o, const kr_array *in, kr_array *out)
{
    const int64_t nxy = o->nx * o->ny, nc = o->nc;
    if (o->loc == KR_HOST) {
        const float *s = o->maps->data, *x = in->data;
        float *y = out->data;
        int64_t n = nxy * nc;
#pragma omp parallel for num_threads(kri_threads(o->ctx)) schedule(static)
        for (int64_t i = 0; i < n; i++) {
            int64_t p = i % nxy;
            float sr = s[2 * i], si = s[2 * i + 1], xr = x[2 * p], xi = x[2 * p + 1];
            y[2 * i] = sr * xr - si * xi;
            y[2 * i + 1] = sr * xi + si * xr;
        }
    } else {
#ifdef KRAY_HAVE_CUDA
        KRI_TRY(kri_cuda_sense_expand(o->nx, o->ny, nc, o->maps->data, in->data, out->data,
                                      kr_ctx_stream(o->ctx)));
#else
        return kri_fail(KR_ERR_NO_DEVICE, "no CUDA device: kray was built without CUDA");
#endif
    }
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
    const int64_t nxy = o->nx * o->ny, nc = o->nc;
    int64_t d[3] = {o->nx, o->ny, nc};
    kr_array *t = NULL;
    KRI_TRY(kri_scratch_get(&o->tmp, o->ctx, KR_C64, 3, d, o->loc, &t));
    kr_status st = kr_array_copy(t, in, o->ctx);
    if (st == KR_OK) st = kri_sense_mask_apply(o, t);
    if (st == KR_OK) st = kr_fft_execute(o->bwd, t, t);
    if (st == KR_OK) {
        if (o->loc == KR_HOST) {
            const float *s = o->maps->data, *a = t->data;
            float *x = out->data;
#pragma omp parallel for num_threads(kri_threads(o->ctx)) schedule(static)
            for (int64_t p = 0; p < nxy; p++) {
                double re = 0, im = 0;
                for (int64_t c = 0; c < nc; c++) {
                    int64_t q = 2 * (p + nxy * c);
                    re += (double)s[q] * a[q] + (double)s[q + 1] * a[q + 1];
                    im += (double)s[q] * a[q + 1] - (double)s[q + 1] * a[q];
                }
                x[2 * p] = (float)re;
                x[2 * p + 1] = (float)im;
            }
        } else {
#ifdef KRAY_HAVE_CUDA
            st = kri_cuda_sense_reduce(o->nx, o->ny, nc, o->maps->data, t->data, out->data,
                                       kr_ctx_stream(o->ctx));
#else
            st = kri_fail(KR_ERR_NO_DEVICE, "no CUDA device: kray was built without CUDA");
#endif
        }
    }
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

kr_status kr_sense_linop(kr_linop **op, const kr_ctx *ctx, const kr_array *maps,
                         const uint8_t *lines, kr_loc loc)
{
    const char *fn = "kr_sense_linop";
    KRI_ARG_NOT_NULL(op);
    *op = NULL;
    KRI_ARG_NOT_NULL(ctx);
    KRI_TRY(kri_check_c64(maps, "kr_sense_linop: maps"));
    if (loc != KR_HOST && loc != KR_DEVICE)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: invalid location %d", fn, (int)loc);
    KRI_TRY(kri_check_loc(ctx, loc, fn));
    int64_t d[3];
    KRI_TRY(kri_shape3(maps, 3, "kr_sense_linop: maps", d));
    kri_sense_op *o = kri_calloc(1, sizeof *o);
    if (!o) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a SENSE operator");
    o->ctx = ctx;
    o->nx = d[0];
    o->ny = d[1];
    o->nc = d[2];
    o->loc = loc;
    kri_scratch_init(&o->tmp);
    pthread_mutex_init(&o->lock, NULL);
    kr_status st = kr_array_clone(&o->maps, maps, loc, ctx);
    if (st == KR_OK && lines) {
        st = kri_alloc((void **)&o->lines, (size_t)d[1], "SENSE operator lines");
        if (st == KR_OK)
            for (int64_t j = 0; j < d[1]; j++) o->lines[j] = lines[j] != 0;
#ifdef KRAY_HAVE_CUDA
        if (st == KR_OK && loc == KR_DEVICE) {
            st = kri_device_alloc(&o->dlines, (size_t)d[1], kr_ctx_device(ctx), "line mask");
            if (st == KR_OK)
                st = kri_memcpy(o->dlines, KR_DEVICE, o->lines, KR_HOST, (size_t)d[1], ctx);
        }
#endif
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
