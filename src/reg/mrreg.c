/* Regularised MRI reconstruction (kray/mrreg.h): BART's pics problem on kray's encoding
 * operators. The encoding is normalised as BART's (A = E / c), the data divided by BART's scale
 * estimate, the terms built with BART's definitions, and FISTA / ADMM / PDHG of kray/reg.h
 * solve it; the image comes back in kray's units. */
#include "internal.h"
#include "mrreg_internal.h"
#include "reg_internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void kr_mrreg_opts_default(kr_mrreg_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->method = KR_MRREG_AUTO;
    o->max_iter = 30;
    o->wavelet = KR_WAVELET_DB2;
    o->randshift = 1;
    o->seed = 1;
    o->rho = 0.5;
    o->cg_iter = 10;
}

static kr_status kri_term_fail(const char *spec, const char *why)
{
    return kri_fail(KR_ERR_INVALID_ARG, "regulariser '%s': %s (l1-wavelet:LAMBDA, "
                    "tv:LAMBDA[:AXES] or llr:LAMBDA[:BLOCK])", spec, why);
}

kr_status kr_mrreg_term_parse(const char *spec, kr_mrreg_term *t)
{
    KRI_ARG_NOT_NULL(spec);
    KRI_ARG_NOT_NULL(t);
    memset(t, 0, sizeof *t);
    static const char *const names[] = {"l1-wavelet:", "tv:", "llr:"};
    int k = -1;
    for (int i = 0; i < 3 && k < 0; i++)
        if (!strncmp(spec, names[i], strlen(names[i]))) k = i;
    if (k < 0) return kri_term_fail(spec, "unknown kind");
    t->kind = (kr_mrreg_kind)k;
    const char *p = spec + strlen(names[k]);
    char *end = NULL;
    t->lambda = strtod(p, &end);
    if (end == p || !isfinite(t->lambda) || t->lambda < 0)
        return kri_term_fail(spec, "LAMBDA must be a finite number >= 0");
    if (*end == '\0') return KR_OK;
    if (*end != ':' || k == KR_MRREG_L1_WAVELET)
        return kri_term_fail(spec, "unexpected text after LAMBDA");
    p = end + 1;
    if (k == KR_MRREG_LLR) {
        long long b = strtoll(p, &end, 10);
        if (end == p || *end || b < 1 || b > 1 << 20)
            return kri_term_fail(spec, "BLOCK must be an integer >= 1");
        t->block = b;
        return KR_OK;
    }
    if (!*p) return kri_term_fail(spec, "AXES is empty");
    for (; *p; p++) {
        const char *ax = strchr("xyzt", tolower((unsigned char)*p));
        if (!ax || !*p) return kri_term_fail(spec, "AXES are letters of x, y, z and t");
        /* t is the frame axis: bit 3 stands for it until the image's axes are known */
        t->axes |= 1u << (ax - "xyzt");
    }
    return KR_OK;
}

/* ---- the problem -------------------------------------------------------------------------- */
typedef struct kri_mr {
    const kr_ctx *ctx;
    int nd;                      /* image axes with the frame axis: spatial + 1 */
    int64_t dims[4];
    int spatial;
    kr_linop *lin[8];            /* operators to release */
    kr_prox *prox[8];
    int nlin, nprox;
} kri_mr;

static void kri_mr_free(kri_mr *m)
{
    for (int i = 0; i < m->nlin; i++) kr_linop_destroy(m->lin[i]);
    for (int i = 0; i < m->nprox; i++) kr_prox_destroy(m->prox[i]);
}

/* Wavelet levels by BART's rule: decompose while the level's input is >= 16 samples (and
 * every spatial axis stays divisible). */
static int kri_mr_levels(const kri_mr *m)
{
    int L = 0;
    for (;;) {
        int ok = 1;
        for (int a = 0; a < m->spatial && ok; a++) {
            const int64_t n = m->dims[a], q = (int64_t)1 << (L + 1);
            ok = n % q == 0 && (L == 0 || n / (q / 2) >= 16);
        }
        if (!ok || L >= 12) break;
        L++;
    }
    return L;
}

/* BART's low-rank threshold factor GWIDTH(M, N, B) (lowrank/svthresh.h). */
static double kri_llr_gwidth(const kri_mr *m, int64_t block)
{
    double M = 1, B = 1;
    for (int a = 0; a < m->spatial; a++) {
        const int64_t b = block < m->dims[a] ? block : m->dims[a];
        M *= (double)b;
        B *= (double)((m->dims[a] + b - 1) / b);
    }
    const double N = (double)m->dims[m->spatial];
    return sqrt(M) + sqrt(N) + sqrt(log(B * (M < N ? M : N)));
}

/* The image axes of a tv term: x y z are spatial axes 0 1 2, t the frame axis. */
static kr_status kri_mr_tv_axes(const kri_mr *m, const kr_mrreg_term *t, unsigned *axes)
{
    unsigned a = 0;
    if (!t->axes) {
        a = (1u << m->spatial) - 1;
    } else {
        for (int i = 0; i < 3; i++)
            if (t->axes & (1u << i)) {
                if (i >= m->spatial)
                    return kri_fail(KR_ERR_INVALID_ARG, "mrreg: tv axis '%c' is not an axis of "
                                    "a %d-D image", "xyz"[i], m->spatial);
                a |= 1u << i;
            }
        if (t->axes & 8u) a |= 1u << m->spatial;
    }
    *axes = a;
    return KR_OK;
}

static kr_status kri_mr_push(kri_mr *m, kr_linop *K, kr_prox *g)
{
    if (K) m->lin[m->nlin++] = K;
    if (g) m->prox[m->nprox++] = g;
    return KR_OK;
}

/* One kr_reg_term of term t for `method` (FISTA: a prox of x; ADMM: K = I for prox-able terms;
 * PDHG: the wavelet as K = W without shifts). */
static kr_status kri_mr_term(kri_mr *m, const kr_mrreg_term *t, kr_mrreg_method method,
                             const kr_mrreg_opts *o, int j, kr_reg_term *out)
{
    const kr_ctx *c = m->ctx;
    out->K = NULL;
    out->g = NULL;
    kr_wavelet_opts w;
    kr_wavelet_opts_default(&w);
    w.kind = o->wavelet;
    w.axes = (1u << m->spatial) - 1;
    w.levels = o->levels > 0 ? o->levels : kri_mr_levels(m);
    if (t->kind == KR_MRREG_L1_WAVELET && w.levels < 1)
        return kri_fail(KR_ERR_DIM, "mrreg: l1-wavelet needs even image sizes");
    switch (t->kind) {
    case KR_MRREG_L1_WAVELET:
        if (method == KR_MRREG_PDHG) {
            KRI_TRY(kr_wavelet_linop_create(&out->K, c, KR_C64, m->nd, m->dims, &w));
            KRI_TRY(kri_mr_push(m, out->K, NULL));
            KRI_TRY(kr_prox_l1_create(&out->g, c, KR_C64, m->nd, m->dims, t->lambda));
        } else {
            const uint64_t seed = o->randshift ? (o->seed ? o->seed : 1) + 7919u * (uint64_t)j : 0;
            KRI_TRY(kr_prox_l1_wavelet_create(&out->g, c, KR_C64, m->nd, m->dims, t->lambda, &w,
                                              seed));
        }
        return kri_mr_push(m, NULL, out->g);
    case KR_MRREG_TV: {
        unsigned axes = 0;
        KRI_TRY(kri_mr_tv_axes(m, t, &axes));
        KRI_TRY(kri_bart_grad_create(&out->K, c, m->nd, m->dims, axes));
        KRI_TRY(kri_mr_push(m, out->K, NULL));
        int64_t gd[KR_MAX_DIMS];
        const int gn = kr_linop_out_dims(out->K, gd);
        KRI_TRY(kr_prox_l21_create(&out->g, c, KR_C64, gn, gd, t->lambda));
        return kri_mr_push(m, NULL, out->g);
    }
    case KR_MRREG_LLR: {
        const int64_t b = t->block > 0 ? t->block : 8;
        KRI_TRY(kr_prox_llr_create(&out->g, c, KR_C64, m->nd, m->dims,
                                   t->lambda * kri_llr_gwidth(m, b), m->spatial, b, NULL));
        return kri_mr_push(m, NULL, out->g);
    }
    }
    return kri_fail(KR_ERR_INVALID_ARG, "mrreg: term %d has an unknown kind %d", j, (int)t->kind);
}

/* The k-th smallest of a[0..n) (0-based), by Hoare's selection; reorders a so that a[0..k) <=
 * a[k] <= a[k+1..n). The value is the sorted array's a[k] (what BART's zsort gives). */
static float kri_select(float *a, int64_t n, int64_t k)
{
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        const float p = a[lo + (hi - lo) / 2];
        int64_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < p) i++;
            while (a[j] > p) j--;
            if (i <= j) {
                const float t = a[i];
                a[i++] = a[j];
                a[j--] = t;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break;
    }
    return a[k];
}

/* BART's scale rule on the magnitudes of the adjoint image a (estimate_scaling_norm). */
static kr_status kri_mr_scale(const kr_ctx *ctx, const kr_array *a, double *s)
{
    kr_array *h = NULL;
    const kr_array *v = a;
    if (a->loc != KR_HOST) {
        KRI_TRY(kr_array_clone(&h, a, KR_HOST, ctx));
        v = h;
    }
    const int64_t n = kr_array_numel(v);
    float *mag = kri_malloc((size_t)n * sizeof *mag);
    if (!mag) {
        kr_array_destroy(h);
        return kri_fail(KR_ERR_OOM_HOST, "mrreg: scale estimate");
    }
    const float *z = v->data;
    for (int64_t i = 0; i < n; i++) mag[i] = hypotf(z[2 * i], z[2 * i + 1]);
    kr_array_destroy(h);
    /* median, 90th percentile and maximum: two selections (the second in the upper half the
     * first leaves) and a scan, O(n) where BART sorts */
    const int64_t k50 = n / 2, k90 = (int64_t)trunc((double)n * 0.9);
    const double med = kri_select(mag, n, k50);
    const double p90 = kri_select(mag + k50, n - k50, k90 - k50);
    float mxf = mag[0];
    for (int64_t i = 1; i < n; i++) mxf = mag[i] > mxf ? mag[i] : mxf;
    const double mx = mxf;
    kri_free(mag);
    *s = (mx - p90) < 2 * (p90 - med) ? p90 : mx;
    if (!(*s > 0) || !isfinite(*s)) *s = 1.0; /* BART: "Estimated scale is zero. Set to one." */
    return KR_OK;
}


static kr_status kri_mr_check(const kr_mrreg_data *d, const kr_mrreg_term *terms, int nterms,
                              const kr_mrreg_opts *o, kr_mrreg_method *method, const char *fn)
{
    if (d->ndim != 2 && d->ndim != 3)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: ndim is %d; images are 2-D or 3-D", fn, d->ndim);
    for (int a = 0; a < d->ndim; a++)
        if (d->dims[a] < 1)
            return kri_fail(KR_ERR_INVALID_ARG, "%s: image dim %d is %lld", fn, a,
                            (long long)d->dims[a]);
    if (d->frames < 1)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: frames is %lld, must be >= 1", fn,
                        (long long)d->frames);
    if (!d->maps || !d->kspace)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: the data need maps and k-space", fn);
    if (!(d->eps >= 0) || d->eps > 0.1)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: eps is %g; 0 (default) or up to 0.1", fn, d->eps);
    if (nterms < 1 || nterms > 4 || !terms)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: %d regularisers given; 1 to 4 (without one, "
                        "kr_cgsense_solve is the reconstruction)", fn, nterms);
    int ntv = 0, nllr = 0;
    for (int j = 0; j < nterms; j++) {
        const kr_mrreg_term *t = &terms[j];
        if ((unsigned)t->kind > KR_MRREG_LLR)
            return kri_fail(KR_ERR_INVALID_ARG, "%s: term %d has an unknown kind %d", fn, j,
                            (int)t->kind);
        if (!(t->lambda >= 0) || !isfinite(t->lambda))
            return kri_fail(KR_ERR_INVALID_ARG, "%s: term %d's lambda is %g; it must be finite "
                            "and >= 0", fn, j, t->lambda);
        if (t->block < 0 || t->axes > 15u)
            return kri_fail(KR_ERR_INVALID_ARG, "%s: term %d has a bad block or axes", fn, j);
        ntv += t->kind == KR_MRREG_TV;
        nllr += t->kind == KR_MRREG_LLR;
    }
    if (o->max_iter < 1 || !(o->tol >= 0) || !isfinite(o->tol) || !(o->scale >= 0) ||
        !isfinite(o->scale) || !(o->rho > 0) || !isfinite(o->rho) || o->cg_iter < 1 ||
        o->levels < 0 || (unsigned)o->wavelet > KR_WAVELET_DB4)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: bad options (max_iter >= 1, tol >= 0, scale >= "
                        "0, rho > 0, cg_iter >= 1, levels >= 0, a known wavelet)", fn);
    kr_mrreg_method m = o->method;
    if (m == KR_MRREG_AUTO) m = nterms == 1 && ntv == 0 ? KR_MRREG_FISTA : KR_MRREG_ADMM;
    if ((unsigned)m > KR_MRREG_PDHG)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: unknown method %d", fn, (int)m);
    if (m == KR_MRREG_FISTA && (nterms != 1 || ntv))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: fista takes one l1-wavelet or llr term; tv and "
                        "several terms need admm or pdhg", fn);
    if (m == KR_MRREG_PDHG && nllr > 1)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: pdhg takes at most one llr term", fn);
    *method = m;
    return KR_OK;
}

static const char *kri_mr_fn = "kr_mrreg";

static kr_status kri_mr_run(kri_mr *m, const kr_mrreg_data *d, const kr_mrreg_term *terms,
                            int nterms, const kr_mrreg_opts *o, kr_mrreg_method method,
                            kr_array *x, kr_mrreg_info *info)
{
    const char *fn = kri_mr_fn;
    const kr_ctx *ctx = m->ctx;
    const kr_loc loc = kri_ctx_loc(ctx);
    kr_linop *E = NULL, *A = NULL;
    double c = 1;
    KRI_TRY(kri_mrreg_encoding(&E, &c, ctx, d, fn));
    kri_mr_push(m, E, NULL);
    KRI_TRY(kr_linop_scale(&A, E, 1.0 / c, 0.0));
    kri_mr_push(m, A, NULL);
    int64_t yd[KR_MAX_DIMS];
    const int yn = kr_linop_out_dims(A, yd);
    kr_array *y = NULL, *a = NULL, xv;
    kr_status s = kr_array_create(&y, KR_C64, yn, yd, loc, ctx);
    if (s == KR_OK) s = kr_vec_copy(ctx, y, d->kspace);
    if (s == KR_OK && d->traj && d->dcf) s = kri_mrreg_weight(ctx, y, d->dcf, yd[1], d->frames);
    if (s == KR_OK) s = kr_array_wrap(&xv, KR_C64, m->nd, m->dims, x->data, x->loc);
    xv.device = x->device;
    double sc = o->scale;
    if (s == KR_OK && !(sc > 0)) {
        s = kr_array_create(&a, KR_C64, m->nd, m->dims, loc, ctx);
        if (s == KR_OK) s = kr_linop_adjoint(A, y, a);
        if (s == KR_OK) s = kri_mr_scale(ctx, a, &sc);
        kr_array_destroy(a);
    }
    if (s == KR_OK) s = kr_vec_scale(ctx, y, 1.0 / sc, 0.0);
    if (s == KR_OK && o->warm_start) s = kr_vec_scale(ctx, &xv, c / sc, 0.0);
    kr_reg_term rt[4];
    for (int j = 0; j < nterms && s == KR_OK; j++) s = kri_mr_term(m, &terms[j], method, o, j, &rt[j]);
    kr_reg_opts ro;
    kr_reg_opts_default(&ro);
    ro.max_iter = o->max_iter;
    ro.tol = o->tol;
    ro.warm_start = o->warm_start;
    ro.objective = o->objective;
    ro.show_progress = o->show_progress;
    ro.seed = o->seed;
    ro.rho = o->rho;
    ro.cg_iter = o->cg_iter;
    ro.normal_form = d->traj && d->toeplitz; /* FISTA on the Toeplitz normal, as BART */
    kr_reg_info ri;
    memset(&ri, 0, sizeof ri);
    if (s == KR_OK) {
        if (method == KR_MRREG_FISTA)
            s = kr_fista(ctx, A, y, rt[0].g, &xv, &ro, &ri);
        else if (method == KR_MRREG_ADMM)
            s = kr_admm(ctx, A, y, rt, nterms, &xv, &ro, &ri);
        else
            s = kr_pdhg(ctx, A, y, rt, nterms, &xv, &ro, &ri);
    }
    if (s == KR_OK) s = kr_vec_scale(ctx, &xv, sc / c, 0.0);
    kr_array_destroy(y);
    if (s == KR_OK && info) {
        info->method = method;
        info->iterations = ri.iterations;
        info->objective = ri.objective;
        info->scale = sc;
        info->norm = c;
        info->lipschitz = ri.lipschitz;
        info->converged = ri.converged;
    }
    return s;
}

kr_status kr_mrreg(const kr_ctx *ctx, const kr_mrreg_data *data, const kr_mrreg_term *terms,
                   int nterms, const kr_mrreg_opts *opts, kr_array *x, kr_mrreg_info *info)
{
    const char *fn = kri_mr_fn;
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(data);
    KRI_ARG_NOT_NULL(x);
    kr_mrreg_opts o;
    if (opts)
        o = *opts;
    else
        kr_mrreg_opts_default(&o);
    kr_mrreg_method method = KR_MRREG_FISTA;
    KRI_TRY(kri_mr_check(data, terms, nterms, &o, &method, fn));
    kri_mr m;
    memset(&m, 0, sizeof m);
    m.ctx = ctx;
    m.spatial = data->ndim;
    m.nd = data->ndim + 1;
    memcpy(m.dims, data->dims, (size_t)data->ndim * sizeof *data->dims);
    m.dims[data->ndim] = data->frames;
    KRI_TRY(kri_check_operand_dims(fn, "x", x, KR_C64, kri_ctx_loc(ctx), m.nd, m.dims));
    if (info) memset(info, 0, sizeof *info);
    kr_status s = kri_mr_run(&m, data, terms, nterms, &o, method, x, info);
    kri_mr_free(&m);
    return s;
}
