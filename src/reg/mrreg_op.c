/* The encoding operators of the regularised MRI reconstruction (kray/mrreg.h): a block-diagonal
 * operator over frames built on the CG-SENSE plans (non-Cartesian) or on the SENSE operator and
 * a sampling pattern (Cartesian), and BART's circular backward-difference gradient. Written
 * against kr_linop, kr_vec_* and the reg backend table, so one code serves host and device. */
#include "internal.h"
#include "mrreg_internal.h"
#include "reg_internal.h"

#include "kray/cgsense.h"
#include "kray/sense.h"

#include <math.h>
#include <string.h>

/* ---- frames: E = blockdiag(E_0, ..., E_T-1), then an optional sampling mask ----------------- */
typedef struct kri_frames {
    int64_t T;
    int dnd, cnd;
    int64_t ddims[KR_MAX_DIMS], cdims[KR_MAX_DIMS];
    int64_t dn, cn;               /* elements per frame in the domain and the codomain */
    kr_linop **E, **N;            /* per frame: the operator and (NUFFT) its normal */
    kr_cgsense_plan **plan;       /* non-Cartesian: the plans the operators borrow */
    const kr_ctx *ctx;
    kr_array *mask, *tmp;         /* Cartesian: pattern c64 [codomain] and a scratch */
} kri_frames;

static void kri_frames_free(void *data)
{
    kri_frames *f = data;
    if (!f) return;
    for (int64_t t = 0; t < f->T; t++) {
        if (f->E) kr_linop_destroy(f->E[t]);
        if (f->N) kr_linop_destroy(f->N[t]);
        if (f->plan) kr_cgsense_plan_destroy(f->plan[t]);
    }
    kri_free(f->E);
    kri_free(f->N);
    kri_free(f->plan);
    kr_array_destroy(f->mask);
    kr_array_destroy(f->tmp);
    kri_free(f);
}

/* which: 0 forward (domain -> codomain), 1 adjoint, 2 normal (the frames' own normals). */
static kr_status kri_frames_each(kri_frames *f, int which, const kr_array *in, kr_array *out)
{
    for (int64_t t = 0; t < f->T; t++) {
        kr_array vi, vo;
        const int fwd = which == 0, nd_in = fwd || which == 2 ? f->dnd : f->cnd;
        const int64_t *di = fwd || which == 2 ? f->ddims : f->cdims;
        const int64_t *dout = fwd ? f->cdims : f->ddims;
        const int64_t ni = fwd || which == 2 ? f->dn : f->cn, no = fwd ? f->cn : f->dn;
        KRI_TRY(kri_array_view(&vi, in, nd_in, di, t * ni));
        KRI_TRY(kri_array_view(&vo, out, fwd ? f->cnd : f->dnd, dout, t * no));
        kr_status s = which == 0   ? kr_linop_forward(f->E[t], &vi, &vo)
                      : which == 1 ? kr_linop_adjoint(f->E[t], &vi, &vo)
                                   : kr_linop_forward(f->N[t], &vi, &vo);
        if (s != KR_OK) return s;
    }
    return KR_OK;
}

static kr_status kri_frames_fwd(void *data, const kr_array *in, kr_array *out)
{
    kri_frames *f = data;
    KRI_TRY(kri_frames_each(f, 0, in, out));
    return f->mask ? kri_reg_mul(f->ctx, out, f->mask) : KR_OK;
}

static kr_status kri_frames_adj(void *data, const kr_array *in, kr_array *out)
{
    kri_frames *f = data;
    if (!f->mask) return kri_frames_each(f, 1, in, out);
    KRI_TRY(kr_vec_copy(f->ctx, f->tmp, in));
    KRI_TRY(kri_reg_mul(f->ctx, f->tmp, f->mask));
    return kri_frames_each(f, 1, f->tmp, out);
}

static kr_status kri_frames_normal(void *data, const kr_array *in, kr_array *out)
{
    return kri_frames_each(data, 2, in, out);
}

static kr_status kri_frames_linop(kr_linop **E, const kr_ctx *ctx, kri_frames *f,
                                  const char *name)
{
    kr_linop_def def;
    memset(&def, 0, sizeof def);
    def.name = name;
    def.dtype = KR_C64;
    def.loc = kri_ctx_loc(ctx);
    def.in_ndim = f->dnd + 1;
    memcpy(def.in_dims, f->ddims, sizeof f->ddims);
    def.in_dims[f->dnd] = f->T;
    def.out_ndim = f->cnd + 1;
    memcpy(def.out_dims, f->cdims, sizeof f->cdims);
    def.out_dims[f->cnd] = f->T;
    def.forward = kri_frames_fwd;
    def.adjoint = kri_frames_adj;
    def.normal = f->N ? kri_frames_normal : NULL;
    def.destroy = kri_frames_free;
    def.data = f;
    kr_status s = kr_linop_create(E, ctx, &def);
    if (s != KR_OK) kri_frames_free(f);
    return s;
}

static kr_status kri_frames_new(kri_frames **out, const kr_ctx *ctx, int64_t T, int nc,
                                const char *fn)
{
    kri_frames *f = kri_calloc(1, sizeof *f);
    if (!f) return kri_fail(KR_ERR_OOM_HOST, "%s: operator state", fn);
    f->ctx = ctx;
    f->T = T;
    f->E = kri_calloc((size_t)T, sizeof *f->E);
    if (nc) {
        f->N = kri_calloc((size_t)T, sizeof *f->N);
        f->plan = kri_calloc((size_t)T, sizeof *f->plan);
    }
    if (!f->E || (nc && (!f->N || !f->plan))) {
        kri_frames_free(f);
        return kri_fail(KR_ERR_OOM_HOST, "%s: operator state for %lld frames", fn, (long long)T);
    }
    *out = f;
    return KR_OK;
}

static int64_t kri_prod(int n, const int64_t *d)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++) p *= d[i];
    return p;
}

/* Coils of maps [dims..., C] (inner 1s allowed: BART's [nx, ny, 1, C]). */
static kr_status kri_maps_coils(const kr_array *maps, int nd, const int64_t *dims, int64_t *nc,
                                const char *fn)
{
    KRI_TRY(kri_check_operand(fn, "maps", maps, KR_C64, KRI_ANY_LOC));
    const int64_t n = kr_array_numel(maps), np = kri_prod(nd, dims);
    int ok = maps->ndim >= nd && n % np == 0;
    for (int a = 0; ok && a < nd; a++) ok = maps->dims[a] == dims[a];
    if (!ok) {
        char a[96], b[96];
        return kri_fail(KR_ERR_DIM, "%s: maps have dims %s; expected [%s, coils]", fn,
                        kr_dims_string(maps->ndim, maps->dims, a, sizeof a),
                        kr_dims_string(nd, dims, b, sizeof b));
    }
    *nc = n / np;
    return KR_OK;
}

static kr_status kri_mrreg_noncart(kr_linop **E, const kr_ctx *ctx, const kr_mrreg_data *d,
                                   int64_t nc, const char *fn)
{
    const kr_array *tr = d->traj;
    KRI_TRY(kri_check_operand(fn, "traj", tr, KRI_ANY_DTYPE, KR_HOST));
    if ((tr->dtype != KR_F32 && tr->dtype != KR_F64) || (tr->dims[0] != 3 && tr->dims[0] != 2))
        return kri_fail(KR_ERR_DIM, "%s: the trajectory must be f32 or f64 [3, M...] (or "
                        "[2, M...])", fn);
    const int64_t T = d->frames, D = tr->dims[0], all = kr_array_numel(tr) / D;
    if (all % T != 0)
        return kri_fail(KR_ERR_DIM, "%s: the trajectory has %lld points, not a multiple of "
                        "the %lld frames", fn, (long long)all, (long long)T);
    const int64_t M = all / T;
    if (kr_array_numel(d->kspace) != M * nc * T)
        return kri_fail(KR_ERR_DIM, "%s: the k-space has %lld values; %lld samples x %lld "
                        "coils x %lld frames expected", fn, (long long)kr_array_numel(d->kspace),
                        (long long)M, (long long)nc, (long long)T);
    if (d->dcf) {
        KRI_TRY(kri_check_operand(fn, "dcf", d->dcf, KRI_ANY_DTYPE, KR_HOST));
        if (kr_array_numel(d->dcf) != M * T)
            return kri_fail(KR_ERR_DIM, "%s: the density weights have %lld values; %lld "
                            "expected (samples x frames)", fn,
                            (long long)kr_array_numel(d->dcf), (long long)(M * T));
    }
    kri_frames *f = NULL;
    KRI_TRY(kri_frames_new(&f, ctx, T, 1, fn));
    f->dnd = d->ndim;
    memcpy(f->ddims, d->dims, (size_t)d->ndim * sizeof *d->dims);
    f->dn = kri_prod(d->ndim, d->dims);
    f->cnd = 2;
    f->cdims[0] = M;
    f->cdims[1] = nc;
    f->cn = M * nc;
    kr_status s = KR_OK;
    for (int64_t t = 0; t < T && s == KR_OK; t++) {
        kr_array tv, wv;
        int64_t td[2] = {D, M};
        s = kri_array_view(&tv, tr, 2, td, t * M * D);
        kr_cgsense_opts o;
        kr_cgsense_opts_default(&o);
        o.eps = d->eps > 0 ? d->eps : 1e-4;
        o.normal = d->toeplitz ? KR_CGSENSE_NORMAL_TOEPLITZ : KR_CGSENSE_NORMAL_NUFFT;
        if (s == KR_OK && d->dcf) {
            s = kri_array_view(&wv, d->dcf, 1, &M, t * M);
            o.dcf = &wv;
        }
        if (s == KR_OK) s = kr_cgsense_plan_create(&f->plan[t], ctx, d->ndim, d->dims, &tv,
                                                  d->maps, &o);
        if (s == KR_OK) s = kr_cgsense_linop_create(&f->E[t], f->plan[t]);
        if (s == KR_OK) s = kr_cgsense_normal_linop_create(&f->N[t], f->plan[t]);
    }
    if (s != KR_OK) {
        kri_frames_free(f);
        return kri_fail_prefix(s, "%s", fn);
    }
    return kri_frames_linop(E, ctx, f, "mrreg non-Cartesian encoding");
}

/* The pattern: non-zero mask entries, or samples non-zero in some coil; expanded to c64
 * [nx, ny, C, T] at the ctx's location. */
static kr_status kri_mrreg_pattern(kr_array **out, const kr_ctx *ctx, const kr_mrreg_data *d,
                                   int64_t nc, const char *fn)
{
    const int64_t np = d->dims[0] * d->dims[1], T = d->frames;
    kr_array *ks = NULL, *m = NULL;
    kr_status s = KR_OK;
    if (d->mask) {
        KRI_TRY(kri_check_operand(fn, "mask", d->mask, KRI_ANY_DTYPE, KR_HOST));
        if (kr_dtype_is_complex(d->mask->dtype) || kr_array_numel(d->mask) != np * T)
            return kri_fail(KR_ERR_DIM, "%s: the mask must be real with %lld values (nx x ny x "
                            "frames), not %lld", fn, (long long)(np * T),
                            (long long)kr_array_numel(d->mask));
    } else if (d->kspace->loc != KR_HOST) {
        KRI_TRY(kr_array_clone(&ks, d->kspace, KR_HOST, ctx));
    }
    const kr_array *k = ks ? ks : d->kspace;
    int64_t md[4] = {d->dims[0], d->dims[1], nc, T};
    s = kr_array_create(&m, KR_C64, 4, md, KR_HOST, NULL);
    float *mv = s == KR_OK ? m->data : NULL;
    for (int64_t t = 0; s == KR_OK && t < T; t++)
        for (int64_t p = 0; p < np; p++) {
            int on = 0;
            if (d->mask) {
                double re, im;
                kri_array_elem(d->mask, t * np + p, &re, &im);
                on = re != 0;
            } else {
                const float *kv = k->data;
                for (int64_t c = 0; c < nc && !on; c++) {
                    const float *e = kv + 2 * (p + np * (c + nc * t));
                    on = e[0] != 0 || e[1] != 0;
                }
            }
            for (int64_t c = 0; c < nc; c++) mv[2 * (p + np * (c + nc * t))] = on ? 1.0f : 0.0f;
        }
    kr_array_destroy(ks);
    if (s == KR_OK && kri_ctx_loc(ctx) == KR_DEVICE) {
        kr_array *dm = NULL;
        s = kr_array_clone(&dm, m, KR_DEVICE, ctx);
        kr_array_destroy(m);
        m = dm;
    }
    if (s != KR_OK) {
        kr_array_destroy(m);
        return s;
    }
    *out = m;
    return KR_OK;
}

static kr_status kri_mrreg_cart(kr_linop **E, const kr_ctx *ctx, const kr_mrreg_data *d,
                                int64_t nc, const char *fn)
{
    const int64_t T = d->frames, np = d->dims[0] * d->dims[1];
    if (kr_array_numel(d->kspace) != np * nc * T)
        return kri_fail(KR_ERR_DIM, "%s: the k-space has %lld values; %lldx%lld x %lld coils x "
                        "%lld frames expected", fn, (long long)kr_array_numel(d->kspace),
                        (long long)d->dims[0], (long long)d->dims[1], (long long)nc,
                        (long long)T);
    kri_frames *f = NULL;
    KRI_TRY(kri_frames_new(&f, ctx, T, 0, fn));
    f->dnd = 2;
    memcpy(f->ddims, d->dims, 2 * sizeof *d->dims);
    f->dn = np;
    f->cnd = 3;
    f->cdims[0] = d->dims[0];
    f->cdims[1] = d->dims[1];
    f->cdims[2] = nc;
    f->cn = np * nc;
    kr_array mv;
    int64_t md[3] = {d->dims[0], d->dims[1], nc};
    kr_status s = kri_array_view(&mv, d->maps, 3, md, 0);
    if (s == KR_OK) s = kr_sense_linop_create(&f->E[0], ctx, &mv, NULL, kri_ctx_loc(ctx));
    for (int64_t t = 1; t < T && s == KR_OK; t++) {
        s = kr_linop_retain(f->E[0]);
        f->E[t] = f->E[0];
    }
    if (s == KR_OK) s = kri_mrreg_pattern(&f->mask, ctx, d, nc, fn);
    if (s == KR_OK) s = kr_array_create_like(&f->tmp, f->mask, f->mask->loc, ctx);
    if (s != KR_OK) {
        kri_frames_free(f);
        return kri_fail_prefix(s, "%s", fn);
    }
    return kri_frames_linop(E, ctx, f, "mrreg Cartesian encoding");
}

kr_status kri_mrreg_encoding(kr_linop **E, double *c, const kr_ctx *ctx, const kr_mrreg_data *d,
                             const char *fn)
{
    int64_t nc = 0;
    if (!d->traj && d->ndim != 2)
        return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: Cartesian data are 2-D ([nx, ny, coils, "
                        "frames]); 3-D Cartesian data are not supported", fn);
    KRI_TRY(kri_maps_coils(d->maps, d->ndim, d->dims, &nc, fn));
    KRI_TRY(kri_check_operand(fn, "kspace", d->kspace, KR_C64, kri_ctx_loc(ctx)));
    if (d->traj) {
        *c = sqrt((double)kri_prod(d->ndim, d->dims));
        return kri_mrreg_noncart(E, ctx, d, nc, fn);
    }
    *c = 1.0;
    return kri_mrreg_cart(E, ctx, d, nc, fn);
}

kr_status kri_mrreg_weight(const kr_ctx *ctx, kr_array *y, const kr_array *w, int64_t coils,
                           int64_t frames)
{
    const int64_t n = kr_array_numel(y), nw = kr_array_numel(w), M = nw / frames;
    if (n != nw * coils || M * frames != nw)
        return kri_fail(KR_ERR_DIM, "mrreg: %lld density weights do not fit %lld k-space values "
                        "of %lld coils", (long long)nw, (long long)n, (long long)coils);
    kr_array *a = NULL;
    KRI_TRY(kr_array_create(&a, KR_C64, 1, &n, KR_HOST, NULL));
    float *av = a->data;
    kr_status s = KR_OK;
    /* the weights were checked (finite, >= 0) when the encoding's per-frame plans took them */
    for (int64_t t = 0; t < frames; t++)
        for (int64_t m = 0; m < M; m++) {
            double re, im;
            kri_array_elem(w, m + M * t, &re, &im);
            for (int64_t c = 0; c < coils; c++) av[2 * (m + M * (c + coils * t))] = (float)sqrt(re);
        }
    if (y->loc == KR_DEVICE) {
        kr_array *d = NULL;
        s = kr_array_clone(&d, a, KR_DEVICE, ctx);
        kr_array_destroy(a);
        a = d;
    }
    if (s == KR_OK) s = kri_reg_mul(ctx, y, a);
    kr_array_destroy(a);
    return s;
}

/* ---- BART's gradient ------------------------------------------------------------------------ */
typedef struct kri_bgrad {
    const kr_ctx *ctx;
    const kri_reg_backend *be;
    kr_linop *D;
    kr_array *tmp;
    kri_shape s;
    int k, axis[KR_MAX_DIMS];
} kri_bgrad;

static void kri_bgrad_free(void *data)
{
    kri_bgrad *g = data;
    kr_linop_destroy(g->D);
    kr_array_destroy(g->tmp);
    kri_free(g);
}

/* out_j = roll(in_j, sign along axis_j) for every component j. */
static kr_status kri_bgrad_roll(kri_bgrad *g, const kr_array *in, kr_array *out, int sign)
{
    for (int j = 0; j < g->k; j++) {
        int64_t sh[KR_MAX_DIMS] = {0};
        sh[g->axis[j]] = sign;
        const size_t off = (size_t)(j * g->s.n) * kr_dtype_size(KR_C64);
        KRI_TRY(g->be->roll(g->ctx, KR_C64, &g->s, sh, (const char *)in->data + off,
                            (char *)out->data + off));
    }
    return KR_OK;
}

static kr_status kri_bgrad_fwd(void *data, const kr_array *in, kr_array *out)
{
    kri_bgrad *g = data;
    KRI_TRY(kr_linop_forward(g->D, in, g->tmp));
    return kri_bgrad_roll(g, g->tmp, out, +1);
}

static kr_status kri_bgrad_adj(void *data, const kr_array *in, kr_array *out)
{
    kri_bgrad *g = data;
    KRI_TRY(kri_bgrad_roll(g, in, g->tmp, -1));
    return kr_linop_adjoint(g->D, g->tmp, out);
}

kr_status kri_bart_grad_create(kr_linop **G, const kr_ctx *ctx, int ndim, const int64_t *dims,
                               unsigned axes)
{
    const char *fn = "mrreg gradient";
    kri_bgrad *g = kri_calloc(1, sizeof *g);
    if (!g) return kri_fail(KR_ERR_OOM_HOST, "%s: state", fn);
    g->ctx = ctx;
    kri_shape_init(&g->s, ndim, dims);
    for (int a = 0; a < ndim; a++)
        if (axes & (1u << a)) g->axis[g->k++] = a;
    kr_status s = kri_reg_pick(&g->be, kri_ctx_loc(ctx), fn);
    if (s == KR_OK) s = kr_fdiff_linop_create(&g->D, ctx, KR_C64, ndim, dims, axes,
                                              KR_FDIFF_PERIODIC);
    kr_linop_def def;
    memset(&def, 0, sizeof def);
    if (s == KR_OK) {
        def.out_ndim = kr_linop_out_dims(g->D, def.out_dims);
        s = kr_array_create(&g->tmp, KR_C64, def.out_ndim, def.out_dims, kri_ctx_loc(ctx), ctx);
    }
    if (s != KR_OK) {
        kri_bgrad_free(g);
        return s;
    }
    def.name = "BART gradient";
    def.dtype = KR_C64;
    def.loc = kri_ctx_loc(ctx);
    def.in_ndim = ndim;
    memcpy(def.in_dims, dims, (size_t)ndim * sizeof *dims);
    def.forward = kri_bgrad_fwd;
    def.adjoint = kri_bgrad_adj;
    def.destroy = kri_bgrad_free;
    def.data = g;
    s = kr_linop_create(G, ctx, &def);
    if (s != KR_OK) kri_bgrad_free(g);
    return s;
}
