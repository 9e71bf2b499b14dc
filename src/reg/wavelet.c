/* Orthogonal periodic wavelet transforms (kr_wavelet_linop_create, kray/reg.h): the filters,
 * the level and axis schedule, and the operator. The steps run on the backend table
 * (reg_cpu.c, reg_cuda.cu); the transform ping-pongs between the output and one work array. */
#include "internal.h"
#include "reg_internal.h"

#include <string.h>

/* Orthonormal Daubechies scaling filters (sum sqrt 2, unit norm), db1 = Haar. */
static const double kri_haar[2] = {0.70710678118654752440, 0.70710678118654752440};
static const double kri_db2[4] = {0.48296291314453414337, 0.83651630373780790557,
                                  0.22414386804201338102, -0.12940952255126038117};
static const double kri_db4[8] = {0.23037781330889650086, 0.71484657055291564709,
                                  0.63088076792985890788, -0.02798376941685985421,
                                  -0.18703481171909308408, 0.03084138183556076363,
                                  0.03288301166688519974, -0.01059740178506903211};

void kr_wavelet_opts_default(kr_wavelet_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->kind = KR_WAVELET_DB4;
}

kr_status kr_wavelet_kind_from_name(const char *s, kr_wavelet_kind *k)
{
    KRI_ARG_NOT_NULL(s);
    KRI_ARG_NOT_NULL(k);
    if (!strcmp(s, "haar") || !strcmp(s, "db1"))
        *k = KR_WAVELET_HAAR;
    else if (!strcmp(s, "db2"))
        *k = KR_WAVELET_DB2;
    else if (!strcmp(s, "db4"))
        *k = KR_WAVELET_DB4;
    else
        return kri_fail(KR_ERR_INVALID_ARG, "unknown wavelet '%s' (haar, db2, db4)", s);
    return KR_OK;
}

kr_status kri_wavelet_init(kri_wavelet *w, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                           const int64_t *dims, const kr_wavelet_opts *o, const char *fn)
{
    memset(w, 0, sizeof *w);
    KRI_TRY(kri_reg_check_shape(fn, ctx, dtype, ndim, dims));
    kr_wavelet_opts def;
    if (!o) {
        kr_wavelet_opts_default(&def);
        o = &def;
    }
    const double *h;
    switch (o->kind) {
    case KR_WAVELET_HAAR: h = kri_haar, w->taps = 2; break;
    case KR_WAVELET_DB2: h = kri_db2, w->taps = 4; break;
    case KR_WAVELET_DB4: h = kri_db4, w->taps = 8; break;
    default: return kri_fail(KR_ERR_INVALID_ARG, "%s: unknown wavelet kind %d", fn, (int)o->kind);
    }
    memcpy(w->h, h, (size_t)w->taps * sizeof *h);
    w->axes = o->axes ? o->axes : (ndim >= 2 ? 3u : 1u);
    if (ndim < 32 && (w->axes >> ndim) != 0)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: axes mask 0x%x selects an axis beyond the %d "
                        "dimensions", fn, w->axes, ndim);
    if (o->levels < 0)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: levels is %d, must be >= 0", fn, o->levels);
    int levels = o->levels;
    if (levels == 0) {
        /* as many as every axis allows (divisible, coarsest band >= taps), at most 4 */
        levels = 4;
        for (int a = 0; a < ndim; a++) {
            if (!(w->axes & (1u << a))) continue;
            int l = 0;
            while (l < 4 && dims[a] % ((int64_t)2 << l) == 0 && (dims[a] >> (l + 1)) >= w->taps)
                l++;
            if (l < levels) levels = l;
        }
        if (levels < 1) levels = 1;
    }
    for (int a = 0; a < ndim; a++) {
        if (!(w->axes & (1u << a))) continue;
        if (levels > 30 || dims[a] % ((int64_t)1 << levels) != 0)
            return kri_fail(KR_ERR_DIM, "%s: axis %d has %lld samples, not divisible by 2^%d "
                            "(%d levels; pad the data or use fewer levels)", fn, a,
                            (long long)dims[a], levels, levels);
    }
    w->levels = levels;
    w->ctx = ctx;
    w->dtype = dtype;
    w->loc = kri_ctx_loc(ctx);
    kri_shape_init(&w->s, ndim, dims);
    if (o->shift) {
        for (int a = 0; a < ndim; a++) {
            int64_t v = o->shift[a] % dims[a];
            w->shift[a] = v < 0 ? v + dims[a] : v;
            if (w->shift[a]) w->shifted = 1;
        }
    }
    const kri_reg_backend *be;
    KRI_TRY(kri_reg_pick(&be, w->loc, "wavelet transform"));
    kr_status s = kr_array_create(&w->tmp, dtype, ndim, dims, w->loc, ctx);
    if (s != KR_OK) return kri_fail_prefix(s, "%s: work array", fn);
    return KR_OK;
}

void kri_wavelet_free(kri_wavelet *w)
{
    if (!w) return;
    kr_array_destroy(w->tmp);
    w->tmp = NULL;
}

kr_status kri_wavelet_apply(kri_wavelet *w, const void *in, void *out, int inverse)
{
    const kri_reg_backend *be;
    KRI_TRY(kri_reg_pick(&be, w->loc, "wavelet transform"));
    const size_t bytes = (size_t)w->s.n * kr_dtype_size(w->dtype);
    void *tmp = w->tmp->data;
    const void *cur = in;
    int64_t neg[KR_MAX_DIMS];
    for (int a = 0; a < w->s.ndim; a++) neg[a] = w->s.dims[a] - w->shift[a];
    if (!inverse && w->shifted) {
        KRI_TRY(be->roll(w->ctx, w->dtype, &w->s, w->shift, in, out));
        cur = out;
    }
    kri_dwt_desc d;
    memset(&d, 0, sizeof d);
    d.s = w->s;
    d.taps = w->taps;
    memcpy(d.h, w->h, sizeof d.h);
    int axes[KR_MAX_DIMS], na = 0;
    for (int a = 0; a < w->s.ndim; a++)
        if (w->axes & (1u << a)) axes[na++] = a;
    const int steps = w->levels * na;
    for (int st = 0; st < steps; st++) {
        const int k = inverse ? steps - 1 - st : st;
        const int lev = k / na;
        d.axis = axes[k % na];
        for (int a = 0; a < w->s.ndim; a++)
            d.region[a] = (w->axes & (1u << a)) ? w->s.dims[a] >> lev : w->s.dims[a];
        void *dst = cur == out ? tmp : out;
        KRI_TRY(be->dwt(w->ctx, w->dtype, &d, cur, dst, inverse));
        cur = dst;
    }
    if (inverse && w->shifted) {
        void *dst = cur == out ? tmp : out;
        KRI_TRY(be->roll(w->ctx, w->dtype, &w->s, neg, cur, dst));
        cur = dst;
    }
    if (cur != out) KRI_TRY(kri_memcpy(out, w->loc, cur, w->loc, bytes, w->ctx));
    return KR_OK;
}

/* ---- the operator ------------------------------------------------------------------------- */
static kr_status kri_wav_fwd(void *data, const kr_array *in, kr_array *out)
{
    return kri_wavelet_apply(data, in->data, out->data, 0);
}

static kr_status kri_wav_adj(void *data, const kr_array *in, kr_array *out)
{
    return kri_wavelet_apply(data, in->data, out->data, 1);
}

static kr_status kri_wav_normal(void *data, const kr_array *in, kr_array *out)
{
    kri_wavelet *w = data;
    return kr_vec_copy(w->ctx, out, in);
}

static void kri_wav_free(void *data)
{
    kri_wavelet_free(data);
    kri_free(data);
}

kr_status kr_wavelet_linop_create(kr_linop **op, const kr_ctx *ctx, kr_dtype dtype, int ndim,
                                  const int64_t *dims, const kr_wavelet_opts *o)
{
    KRI_ARG_NOT_NULL(op);
    *op = NULL;
    kri_wavelet *w = kri_calloc(1, sizeof *w);
    if (!w) return kri_fail(KR_ERR_OOM_HOST, "kr_wavelet_linop_create: operator state");
    kr_status s = kri_wavelet_init(w, ctx, dtype, ndim, dims, o, "kr_wavelet_linop_create");
    if (s != KR_OK) {
        kri_wav_free(w);
        return s;
    }
    kr_linop_def def;
    memset(&def, 0, sizeof def);
    def.name = "wavelet";
    def.dtype = dtype;
    def.loc = w->loc;
    def.in_ndim = def.out_ndim = ndim;
    for (int a = 0; a < ndim; a++) def.in_dims[a] = def.out_dims[a] = dims[a];
    def.forward = kri_wav_fwd;
    def.adjoint = kri_wav_adj;
    def.normal = kri_wav_normal;
    def.destroy = kri_wav_free;
    def.data = w;
    s = kr_linop_create(op, ctx, &def);
    if (s != KR_OK) kri_wav_free(w);
    return s;
}
