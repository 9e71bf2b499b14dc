/* Goertzel evaluation of the centred 2-D DFT (kray/goertzel.h): validation, tables, dispatch. */
#include "kray/goertzel.h"

#include "core/internal.h"
#include "mri/goertzel/goertzel_internal.h"
#include "mri/mri_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const double kri_gz_twopi = 6.283185307179586476925286766559;

static kri_gz_coef kri_gz_make(double pos, int64_t n)
{
    kri_gz_coef c;
    /* theta = 2 pi pos / n; reduce pos modulo n first so large n keep the phase exact */
    double f = fmod(pos, (double)n) / (double)n;
    double th = kri_gz_twopi * f;
    c.c = 2.0 * cos(th);
    c.wr = cos(th);
    c.wi = -sin(th);
    double h = fmod(f * (double)(n / 2), 1.0); /* theta n/2 / (2 pi), reduced */
    c.or_ = cos(kri_gz_twopi * h);
    c.oi = -sin(kri_gz_twopi * h);
    return c;
}

static int kri_gz_cmp(const void *a, const void *b)
{
    const double *x = (const double *)a, *y = (const double *)b;
    return x[0] < y[0] ? -1 : (x[0] > y[0] ? 1 : (x[1] < y[1] ? -1 : (x[1] > y[1])));
}

static void kri_gz_plan_free(kri_gz_plan *p)
{
    kri_free(p->qx);
    kri_free(p->py);
    kri_free(p->q);
}

/* Checks shared by both entry points; fills nx, ny, batch. */
static kr_status kri_gz_check(const kr_ctx *ctx, const kr_array *ksp, const kr_array *out,
                              const char *fn, kri_gz_plan *p)
{
    KRI_TRY(kri_check_operand(fn, "k-space", ksp, KRI_ANY_DTYPE, kri_ctx_loc(ctx)));
    if (ksp->dtype != KR_C64 && ksp->dtype != KR_C128)
        return kri_fail(KR_ERR_DTYPE, "%s: k-space must be c64 or c128, got %s", fn,
                        kr_dtype_name(ksp->dtype));
    KRI_TRY(kri_check_operand(fn, "output", out, ksp->dtype, kri_ctx_loc(ctx)));
    p->nx = ksp->dims[0];
    p->ny = ksp->ndim > 1 ? ksp->dims[1] : 1;
    int64_t nk = kr_array_numel(ksp);
    if (p->nx < 1 || p->ny < 1 || nk < 1)
        return kri_fail(KR_ERR_DIM, "%s: k-space is empty", fn);
    p->batch = nk / (p->nx * p->ny);
    /* NaN / Inf */
    int64_t bad = -1, nr = 2 * nk;
    KRI_TRY(kri_first_nonfinite(ctx, ksp->loc, kr_dtype_real(ksp->dtype), ksp->data, nr,
                                &bad));
    if (bad >= 0)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: k-space value %lld is not finite", fn,
                        (long long)(bad / 2));
    return KR_OK;
}

static kr_status kri_gz_run(const kr_ctx *ctx, const kri_gz_plan *p, const kr_array *ksp,
                            kr_array *out)
{
    const kri_gz_backend *be;
    KRI_TRY(kri_backend_pick(&be, ksp->loc, &kri_gz_cpu, &kri_gz_cuda, "Goertzel"));
    return be->run(ctx, p, ksp->dtype == KR_C128, ksp->data, out->data);
}

kr_status kr_goertzel2d(const kr_ctx *ctx, const kr_array *kspace, int64_t npts, const double *xy,
                        kr_array *out)
{
    kri_gz_plan p;
    memset(&p, 0, sizeof p);
    KRI_ARG_NOT_NULL(xy);
    if (npts < 1)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_goertzel2d: npts is %lld; need at least 1",
                        (long long)npts);
    KRI_TRY(kri_gz_check(ctx, kspace, out, "kr_goertzel2d", &p));
    if (out->dims[0] != npts || kr_array_numel(out) != npts * p.batch) {
        char a[96], b[96];
        return kri_fail(KR_ERR_DIM,
                        "kr_goertzel2d: output has dims %s; expected [%lld, batch] with batch = "
                        "%lld (k-space %s)",
                        kr_dims_string(out->ndim, out->dims, a, sizeof a), (long long)npts,
                        (long long)p.batch, kr_dims_string(kspace->ndim, kspace->dims, b, sizeof b));
    }
    const int64_t n[2] = {p.nx, p.ny};
    for (int64_t i = 0; i < npts; i++)
        for (int d = 0; d < 2; d++) {
            double v = xy[2 * i + d], lo = -(double)(n[d] / 2), hi = (double)(n[d] - 1 - n[d] / 2);
            if (!isfinite(v) || v < lo || v > hi)
                return kri_fail(KR_ERR_INVALID_ARG,
                                "kr_goertzel2d: point %lld = (%g, %g) is outside the %lldx%lld "
                                "image: %s must lie in [%g, %g]",
                                (long long)i, xy[2 * i], xy[2 * i + 1], (long long)p.nx,
                                (long long)p.ny, d ? "y" : "x", lo, hi);
        }
    /* distinct x values (sorted), so points on one column share the row pass */
    double *sx = NULL;
    kr_status s = kri_alloc((void **)&sx, (size_t)npts * 2 * sizeof(double), "Goertzel points");
    if (s == KR_OK) s = kri_alloc((void **)&p.qx, (size_t)npts * sizeof(kri_gz_coef), "Goertzel table");
    if (s == KR_OK) s = kri_alloc((void **)&p.py, (size_t)npts * sizeof(kri_gz_coef), "Goertzel table");
    if (s == KR_OK) s = kri_alloc((void **)&p.q, (size_t)npts * sizeof(int64_t), "Goertzel table");
    if (s == KR_OK) {
        for (int64_t i = 0; i < npts; i++) sx[2 * i] = xy[2 * i], sx[2 * i + 1] = (double)i;
        qsort(sx, (size_t)npts, 2 * sizeof(double), kri_gz_cmp);
        int64_t nq = 0;
        for (int64_t i = 0; i < npts; i++) {
            if (i == 0 || sx[2 * i] != sx[2 * (i - 1)]) p.qx[nq++] = kri_gz_make(sx[2 * i], p.nx);
            p.q[(int64_t)sx[2 * i + 1]] = nq - 1;
        }
        p.nq = nq;
        p.npts = npts;
        for (int64_t i = 0; i < npts; i++) p.py[i] = kri_gz_make(xy[2 * i + 1], p.ny);
        s = kri_gz_run(ctx, &p, kspace, out);
    }
    kri_free(sx);
    kri_gz_plan_free(&p);
    return s;
}

kr_status kr_goertzel2d_image(const kr_ctx *ctx, const kr_array *kspace, kr_array *image)
{
    kri_gz_plan p;
    memset(&p, 0, sizeof p);
    KRI_TRY(kri_gz_check(ctx, kspace, image, "kr_goertzel2d_image", &p));
    if (image->dims[0] != p.nx || (image->ndim > 1 ? image->dims[1] : 1) != p.ny ||
        kr_array_numel(image) != kr_array_numel(kspace)) {
        char a[96], b[96];
        return kri_fail(KR_ERR_DIM, "kr_goertzel2d_image: image has dims %s, k-space %s",
                        kr_dims_string(image->ndim, image->dims, a, sizeof a),
                        kr_dims_string(kspace->ndim, kspace->dims, b, sizeof b));
    }
    int64_t np = p.nx * p.ny;
    kr_status s = kri_alloc((void **)&p.qx, (size_t)p.nx * sizeof(kri_gz_coef), "Goertzel table");
    if (s == KR_OK) s = kri_alloc((void **)&p.py, (size_t)np * sizeof(kri_gz_coef), "Goertzel table");
    if (s == KR_OK) s = kri_alloc((void **)&p.q, (size_t)np * sizeof(int64_t), "Goertzel table");
    if (s == KR_OK) {
        p.nq = p.nx;
        p.npts = np;
        for (int64_t i = 0; i < p.nx; i++) p.qx[i] = kri_gz_make((double)(i - p.nx / 2), p.nx);
        for (int64_t j = 0; j < p.ny; j++) {
            kri_gz_coef cy = kri_gz_make((double)(j - p.ny / 2), p.ny);
            for (int64_t i = 0; i < p.nx; i++) p.py[i + p.nx * j] = cy, p.q[i + p.nx * j] = i;
        }
        s = kri_gz_run(ctx, &p, kspace, image);
    }
    kri_gz_plan_free(&p);
    return s;
}
