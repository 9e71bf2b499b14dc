/* kray studio: what the viewer computes on arrays (see studio.h): slices through any two axes,
 * exports through kray's writers, differences and metrics of two arrays. */
#include "studio.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int64_t ks_dim(const kr_array *a, int k) { return k < a->ndim ? a->dims[k] : 1; }

kr_status ks_slice(const kr_array *a, int h, int v, const int64_t *idx, int part, float **out,
                   int64_t *w, int64_t *hh)
{
    *out = NULL;
    if (h < 0 || v < 0 || h >= KR_MAX_DIMS || v >= KR_MAX_DIMS || h == v) {
        kri_fail(KR_ERR_INVALID_ARG, "slice: the two axes must differ and lie in 0 .. %d",
                 KR_MAX_DIMS - 1);
        return KR_ERR_INVALID_ARG;
    }
    if (!kr_array_is_contiguous(a) || a->loc != KR_HOST) {
        kri_fail(KR_ERR_INTERNAL, "slice: the array is not a contiguous host array");
        return KR_ERR_INTERNAL;
    }
    int64_t base = 0;
    for (int k = 0; k < KR_MAX_DIMS; k++) {
        if (k == h || k == v) continue;
        int64_t i = idx[k];
        if (i < 0 || i >= ks_dim(a, k)) {
            kri_fail(KR_ERR_INVALID_ARG, "slice: index %lld of axis %d is outside 0 .. %lld",
                     (long long)i, k, (long long)ks_dim(a, k) - 1);
            return KR_ERR_INVALID_ARG;
        }
        base += i * (k < a->ndim ? a->strides[k] : 0);
    }
    const int64_t nw = ks_dim(a, h), nh = ks_dim(a, v);
    const int64_t sh = h < a->ndim ? a->strides[h] : 0, sv = v < a->ndim ? a->strides[v] : 0;
    float *f = malloc((size_t)(nw * nh) * sizeof *f);
    if (!f) {
        kri_fail(KR_ERR_OOM_HOST, "slice: out of memory for %lld x %lld values", (long long)nw,
                 (long long)nh);
        return KR_ERR_OOM_HOST;
    }
    const int cplx = kr_dtype_is_complex(a->dtype);
    for (int64_t y = 0; y < nh; y++)
        for (int64_t x = 0; x < nw; x++) {
            double re, im;
            kc_elem(a, base + x * sh + y * sv, &re, &im);
            double r;
            switch (part) {
            case 1: r = re; break;
            case 2: r = im; break;
            case 3: r = atan2(im, re); break;
            case 4: r = re == 0 && im == 0 ? NAN : log10(hypot(re, im)); break; /* 0: no sample */
            default: r = cplx ? hypot(re, im) : re;
            }
            f[y * nw + x] = (float)r;
        }
    *out = f;
    *w = nw;
    *hh = nh;
    return KR_OK;
}

kr_status ks_export(const kr_array *a, const char *path, double lo, double hi, int slice, int part)
{
    kr_io_opts io = *kc_image_io();
    kr_format f = kr_format_from_path(path);
    if (f == KR_FMT_PNG || f == KR_FMT_PGM)
        kc_picture_io(&io, lo, hi, slice, part >= 0 && part <= 3 ? part : 0);
    return kr_write(path, a, &io);
}

int ks_difference(const kr_array *x, const kr_array *ref, kr_array **d, char *err, size_t len)
{
    *d = NULL;
    int n = x->ndim > ref->ndim ? x->ndim : ref->ndim;
    for (int k = 0; k < n; k++)
        if (ks_dim(x, k) != ks_dim(ref, k)) {
            char a[128], b[128];
            snprintf(err, len, "the two arrays differ in size: %s and %s",
                     kr_dims_string(x->ndim, x->dims, a, sizeof a),
                     kr_dims_string(ref->ndim, ref->dims, b, sizeof b));
            return -1;
        }
    const int cplx = kr_dtype_is_complex(x->dtype) || kr_dtype_is_complex(ref->dtype);
    if (kr_array_create(d, KR_F32, x->ndim, x->dims, KR_HOST, NULL) != KR_OK) {
        snprintf(err, len, "%s", kr_last_error());
        return -1;
    }
    float *o = (*d)->data;
    const int64_t m = kr_array_numel(x);
    for (int64_t i = 0; i < m; i++) {
        double xr, xi, rr, ri;
        kc_elem(x, i, &xr, &xi);
        kc_elem(ref, i, &rr, &ri);
        o[i] = (float)(cplx ? hypot(xr - rr, xi - ri) : xr - rr);
    }
    return 0;
}

int ks_metrics(const kr_array *x, const kr_array *ref, kr_metrics *m, char *err, size_t len)
{
    kr_ctx *ctx = NULL;
    kr_status s = kr_ctx_create(&ctx, KR_BACKEND_CPU);
    if (s == KR_OK) s = kr_ctx_set_quiet(ctx, 1);
    if (s == KR_OK) s = kr_metrics_compute(ctx, x, ref, 0, m);
    kr_ctx_destroy(ctx);
    if (s != KR_OK) {
        snprintf(err, len, "%s", kr_last_error()[0] ? kr_last_error() : kr_status_string(s));
        return -1;
    }
    return 0;
}
