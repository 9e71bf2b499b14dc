/* Off-resonance correction (kray/offres.h): the exact direct-sum operator with a field map and
 * the time-segmented operator on one batched NUFFT plan, with least-squares interpolators over
 * the field map's histogram. */
#include "internal.h"
#include "mri/lsq/lsq_internal.h"
#include "mri/lsq/offres_internal.h"
#include "mri/mri_internal.h"

#include "kray/linop.h"
#include "kray/nufft.h"
#include "kray/offres.h"

#include <complex.h>
#include <math.h>
#include <string.h>

void kr_offres_opts_default(kr_offres_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->dtype = KR_C64;
}

/* ---- least-squares interpolators ----------------------------------------------------------- */
/* In-place Cholesky of the Hermitian positive definite g (L x L, row-major): lower factor. */
static int chol(int L, double complex *g)
{
    for (int j = 0; j < L; j++) {
        double d = creal(g[j * L + j]);
        for (int q = 0; q < j; q++) d -= creal(g[j * L + q] * conj(g[j * L + q]));
        if (!(d > 0)) return -1;
        d = sqrt(d);
        g[j * L + j] = d;
        for (int i = j + 1; i < L; i++) {
            double complex s = g[i * L + j];
            for (int q = 0; q < j; q++) s -= g[i * L + q] * conj(g[j * L + q]);
            g[i * L + j] = s / d;
        }
    }
    return 0;
}

static void chol_solve(int L, const double complex *g, double complex *b)
{
    for (int i = 0; i < L; i++) { /* forward: G_low y = b */
        double complex s = b[i];
        for (int q = 0; q < i; q++) s -= g[i * L + q] * b[q];
        b[i] = s / creal(g[i * L + i]);
    }
    for (int i = L - 1; i >= 0; i--) { /* back: G_low^H x = y */
        double complex s = b[i];
        for (int q = i + 1; q < L; q++) s -= conj(g[q * L + i]) * b[q];
        b[i] = s / creal(g[i * L + i]);
    }
}

static inline double complex cis(double cycles)
{
    double p = KRI_2PI * (cycles - rint(cycles));
    return CMPLX(cos(p), sin(p));
}

kr_status kr_offres_interp(int L, const double *tau, int nb, const double *f, const double *h,
                           int64_t nt, const double *t, double *b)
{
    KRI_ARG_NOT_NULL(tau);
    KRI_ARG_NOT_NULL(f);
    KRI_ARG_NOT_NULL(h);
    KRI_ARG_NOT_NULL(t);
    KRI_ARG_NOT_NULL(b);
    if (L < 1 || L > 256 || nb < 1 || nt < 0)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "kr_offres_interp: L = %d must be in [1, 256] and bins %d >= 1", L, nb);
    for (int j = 0; j < nb; j++)
        if (!isfinite(f[j]) || !(h[j] >= 0) || !isfinite(h[j]))
            return kri_fail(KR_ERR_INVALID_ARG,
                            "kr_offres_interp: histogram bin %d has f = %g, h = %g (finite, h >= "
                            "0 needed)",
                            j, f[j], h[j]);
    for (int l = 0; l < L; l++)
        if (!isfinite(tau[l]))
            return kri_fail(KR_ERR_INVALID_ARG, "kr_offres_interp: tau[%d] is %g", l, tau[l]);
    double complex *g = NULL, *r = NULL;
    KRI_TRY(kri_alloc((void **)&g, sizeof *g * (size_t)(L * L + L), "interpolator Gram matrix"));
    r = g + L * L;
    double hs = 0;
    for (int j = 0; j < nb; j++) hs += h[j];
    if (!(hs > 0)) hs = 1;
    for (int a = 0; a < L; a++)
        for (int c = 0; c < L; c++) {
            double complex s = 0;
            for (int j = 0; j < nb; j++) s += h[j] * cis(f[j] * (tau[a] - tau[c]));
            g[a * L + c] = s;
        }
    for (int a = 0; a < L; a++) g[a * L + a] += 1e-13 * hs;
    if (chol(L, g) != 0) {
        kri_free(g);
        return kri_fail(KR_ERR_INTERNAL, "kr_offres_interp: the Gram matrix of %d segments is "
                                        "not positive definite",
                        L);
    }
    /* ha[a][j] = h_j exp(+2 pi i f_j tau_a); et[j] = exp(-2 pi i f_j t) */
    double complex *ha = NULL, *et = NULL;
    kr_status st0 = kri_alloc((void **)&ha, sizeof *ha * (size_t)(L + 1) * (size_t)nb,
                              "interpolator tables");
    if (st0 != KR_OK) {
        kri_free(g);
        return st0;
    }
    et = ha + (size_t)L * (size_t)nb;
    for (int a = 0; a < L; a++)
        for (int j = 0; j < nb; j++) ha[(size_t)a * nb + j] = h[j] * cis(f[j] * tau[a]);
    for (int64_t i = 0; i < nt; i++) {
        if (!isfinite(t[i])) {
            kri_free(g);
            kri_free(ha);
            return kri_fail(KR_ERR_INVALID_ARG, "kr_offres_interp: time %lld is %g",
                            (long long)i, t[i]);
        }
        for (int j = 0; j < nb; j++) et[j] = h[j] > 0 ? cis(-f[j] * t[i]) : 0;
        for (int a = 0; a < L; a++) {
            double complex s = 0;
            for (int j = 0; j < nb; j++) s += ha[(size_t)a * nb + j] * et[j];
            r[a] = s;
        }
        chol_solve(L, g, r);
        for (int a = 0; a < L; a++) {
            b[2 * ((int64_t)a * nt + i)] = creal(r[a]);
            b[2 * ((int64_t)a * nt + i) + 1] = cimag(r[a]);
        }
    }
    kri_free(ha);
    kri_free(g);
    return KR_OK;
}

static void seg_times(int L, double t0, double t1, double *tau)
{
    if (L == 1) {
        tau[0] = 0.5 * (t0 + t1);
        return;
    }
    for (int l = 0; l < L; l++) tau[l] = t0 + (t1 - t0) * (double)l / (double)(L - 1);
}

/* e(L): worst |exp(-2 pi i f_j t) - sum_l b_l(t) exp(-2 pi i f_j tau_l)| over 65 times and the
 * bins with h_j > 0. */
static kr_status interp_error(int L, double t0, double t1, int nb, const double *f,
                              const double *h, double *err)
{
    enum { NT = 65 };
    double tau[256], tt[NT], *b = NULL;
    seg_times(L, t0, t1, tau);
    for (int i = 0; i < NT; i++) tt[i] = t0 + (t1 - t0) * (double)i / (NT - 1);
    KRI_TRY(kri_alloc((void **)&b, sizeof *b * 2 * (size_t)L * NT, "interpolators"));
    kr_status s = kr_offres_interp(L, tau, nb, f, h, NT, tt, b);
    double e = 0;
    for (int i = 0; s == KR_OK && i < NT; i++)
        for (int j = 0; j < nb; j++) {
            if (!(h[j] > 0)) continue;
            double complex v = cis(-f[j] * tt[i]);
            for (int l = 0; l < L; l++)
                v -= CMPLX(b[2 * (l * NT + i)], b[2 * (l * NT + i) + 1]) * cis(-f[j] * tau[l]);
            if (cabs(v) > e) e = cabs(v);
        }
    kri_free(b);
    *err = e;
    return s;
}

/* ---- the operator -------------------------------------------------------------------------- */
typedef struct offres_op {
    const kr_ctx *ctx;
    const kri_offres_backend *be; /* the steps at loc */
    kr_dtype t;
    kr_loc loc;
    int exact, L;
    int64_t n[3], N, M, B;
    kr_array *k, *f, *tm;  /* exact: f64 [3M], [N], [M] at loc */
    kr_nufft_plan *nufft;  /* segmented: batch L */
    kr_array *ph, *b;      /* exp(-2 pi i f tau_l) [N, L], b_l(t_m) [M, L] at loc */
    kr_array *X, *Y;       /* scratch [nx, ny, nz, L], [M, L] */
} offres_op;

static void offres_free(void *data)
{
    offres_op *o = (offres_op *)data;
    if (!o) return;
    kr_array_destroy(o->k);
    kr_array_destroy(o->f);
    kr_array_destroy(o->tm);
    kr_nufft_plan_destroy(o->nufft);
    kr_array_destroy(o->ph);
    kr_array_destroy(o->b);
    kr_array_destroy(o->X);
    kr_array_destroy(o->Y);
    kri_free(o);
}

/* X holds B groups of L blocks of P values, x B blocks of P values. */
static kr_status expand(offres_op *o, int64_t P, const void *x, const kr_array *w, int cj,
                        void *X)
{
    const size_t es = kr_dtype_size(o->t);
    for (int64_t b = 0; b < o->B; b++)
        KRI_TRY(o->be->expand(o->ctx, o->t, P, o->L, (const char *)x + (size_t)(b * P) * es,
                              w->data, cj, (char *)X + (size_t)(b * o->L * P) * es));
    return KR_OK;
}

static kr_status combine(offres_op *o, int64_t P, const void *X, const kr_array *w, int cj,
                         void *x)
{
    const size_t es = kr_dtype_size(o->t);
    for (int64_t b = 0; b < o->B; b++)
        KRI_TRY(o->be->combine(o->ctx, o->t, P, o->L, (const char *)X + (size_t)(b * o->L * P) * es,
                               w->data, cj, (char *)x + (size_t)(b * P) * es));
    return KR_OK;
}

static kr_status exact_apply(offres_op *o, int adj, const kr_array *in, kr_array *out)
{
    const double *k = (const double *)o->k->data, *f = (const double *)o->f->data;
    const double *tm = (const double *)o->tm->data;
    return o->be->exact(o->ctx, o->t, o->n, o->M, k, f, tm, adj, o->B, in->data, out->data);
}

static kr_status offres_fwd(void *data, const kr_array *in, kr_array *out)
{
    offres_op *o = (offres_op *)data;
    if (o->exact) return exact_apply(o, 0, in, out);
    KRI_TRY(expand(o, o->N, in->data, o->ph, 0, o->X->data));
    KRI_TRY(kr_nufft_forward(o->nufft, o->X, o->Y));
    return combine(o, o->M, o->Y->data, o->b, 0, out->data);
}

static kr_status offres_adj(void *data, const kr_array *in, kr_array *out)
{
    offres_op *o = (offres_op *)data;
    if (o->exact) return exact_apply(o, 1, in, out);
    KRI_TRY(expand(o, o->M, in->data, o->b, 1, o->Y->data));
    KRI_TRY(kr_nufft_adjoint(o->nufft, o->Y, o->X));
    return combine(o, o->N, o->X->data, o->ph, 1, out->data);
}

/* host complex [P, L] array of the element type from interleaved double values, moved to loc */
static kr_status to_loc(offres_op *o, int64_t P, const double *v, kr_array **out)
{
    kr_array *h = NULL, vv;
    int64_t d[2] = {P, o->L};
    KRI_TRY(kr_array_wrap(&vv, KR_C128, 2, d, (void *)v, KR_HOST));
    KRI_TRY(kr_array_create(&h, o->t, 2, d, KR_HOST, NULL));
    kr_status s0 = kr_array_convert(h, &vv);
    if (s0 != KR_OK) {
        kr_array_destroy(h);
        return s0;
    }
    if (o->loc == KR_HOST) {
        *out = h;
        return KR_OK;
    }
    kr_status s = kr_array_clone(out, h, KR_DEVICE, o->ctx);
    kr_array_destroy(h);
    return s;
}

static kr_status f64_at(offres_op *o, int64_t cnt, const double *v, kr_array **out)
{
    kr_array w;
    KRI_TRY(kr_array_wrap(&w, KR_F64, 1, &cnt, (void *)v, KR_HOST));
    return kr_array_clone(out, &w, o->loc, o->loc == KR_HOST ? NULL : o->ctx);
}

static kr_status check_real(const char *what, const kr_array *a, int64_t want, int dims_n,
                            const int64_t n[3])
{
    KRI_TRY(kri_check_operand("kr_offres_linop_create", what, a, KRI_ANY_DTYPE, KR_HOST));
    if (a->dtype != KR_F32 && a->dtype != KR_F64)
        return kri_fail(KR_ERR_DTYPE, "kr_offres_linop_create: the %s must be f32 or f64, got %s",
                        what, kr_dtype_name(a->dtype));
    int ok = kr_array_numel(a) == want;
    if (ok && dims_n) {
        for (int d = 0; d < a->ndim; d++)
            if (a->dims[d] != (d < 3 ? n[d] : 1)) ok = 0;
    }
    if (!ok) {
        if (dims_n)
            return kri_fail(KR_ERR_DIM,
                            "kr_offres_linop_create: the field map has %lld values (%d dims, first "
                            "%lldx%lld), the image is %lldx%lldx%lld",
                            (long long)kr_array_numel(a), a->ndim, (long long)a->dims[0],
                            (long long)(a->ndim > 1 ? a->dims[1] : 1), (long long)n[0],
                            (long long)n[1], (long long)n[2]);
        return kri_fail(KR_ERR_DIM, "kr_offres_linop_create: %lld %s for %lld trajectory samples",
                        (long long)kr_array_numel(a), what, (long long)want);
    }
    for (int64_t i = 0; i < want; i++) {
        double v = kr_array_get_f64(a, i);
        if (!isfinite(v))
            return kri_fail(KR_ERR_INVALID_ARG,
                            "kr_offres_linop_create: %s value %lld is %g; it must be finite", what,
                            (long long)i, v);
    }
    return KR_OK;
}

/* histogram of f over nb bins: centres fc, counts h */
static void histogram(const double *f, int64_t N, int nb, double fmin, double fmax, double *fc,
                      double *h)
{
    double w = (fmax - fmin) / nb;
    for (int j = 0; j < nb; j++) fc[j] = fmin + (j + 0.5) * w, h[j] = 0;
    if (!(w > 0)) {
        fc[0] = fmin;
        h[0] = (double)N;
        for (int j = 1; j < nb; j++) fc[j] = fmin;
        return;
    }
    for (int64_t i = 0; i < N; i++) {
        int j = (int)floor((f[i] - fmin) / w);
        j = j < 0 ? 0 : (j >= nb ? nb - 1 : j);
        h[j] += 1;
    }
}

static kr_status build_segmented(offres_op *o, const kr_array *tv, const double *f,
                                 const double *tm, const kr_offres_opts *opt,
                                 kr_offres_info *inf)
{
    int nb = opt->bins > 0 ? opt->bins : 256;
    if (nb > (1 << 16))
        return kri_fail(KR_ERR_INVALID_ARG, "kr_offres_linop_create: %d bins (at most 65536)", nb);
    double tol = opt->tol > 0 ? opt->tol : (o->t == KR_C64 ? 1e-3 : 1e-5);
    double *fc = NULL, *h = NULL, *b = NULL, *ph = NULL;
    KRI_TRY(kri_alloc((void **)&fc, sizeof *fc * 2 * (size_t)nb, "field map histogram"));
    h = fc + nb;
    histogram(f, o->N, nb, inf->f_min, inf->f_max, fc, h);
    kr_status s = KR_OK;
    double e = 0;
    int L = opt->segments;
    if (L > 0) {
        s = interp_error(L, inf->t_min, inf->t_max, nb, fc, h, &e);
    } else {
        for (L = 1; L <= 64; L++) {
            s = interp_error(L, inf->t_min, inf->t_max, nb, fc, h, &e);
            if (s != KR_OK || e <= tol) break;
        }
        if (s == KR_OK && L > 64) {
            L = 64;
            kr_log(o->ctx, KR_LOG_INFO,
                   "kr_offres_linop_create: 64 segments reach only %.3g (tol %.3g)", e, tol);
        }
    }
    o->L = L;
    inf->segments = L;
    inf->interp_err = e;
    double tau[256];
    seg_times(L, inf->t_min, inf->t_max, tau);
    if (s == KR_OK)
        s = kri_alloc((void **)&b, sizeof *b * 2 * (size_t)(o->M + o->N) * (size_t)L,
                      "segment coefficients");
    if (s == KR_OK) {
        ph = b + 2 * o->M * L;
        s = kr_offres_interp(L, tau, nb, fc, h, o->M, tm, b);
    }
    if (s == KR_OK) {
        for (int l = 0; l < L; l++)
            for (int64_t i = 0; i < o->N; i++) {
                double complex v = cis(-f[i] * tau[l]);
                ph[2 * (l * o->N + i)] = creal(v);
                ph[2 * (l * o->N + i) + 1] = cimag(v);
            }
        s = to_loc(o, o->M, b, &o->b);
    }
    if (s == KR_OK) s = to_loc(o, o->N, ph, &o->ph);
    kri_free(b);
    kri_free(fc);
    int64_t xd[4] = {o->n[0], o->n[1], o->n[2], L * o->B}, yd[2] = {o->M, L * o->B};
    if (s == KR_OK) s = kr_array_create(&o->X, o->t, 4, xd, o->loc, o->ctx);
    if (s == KR_OK) s = kr_array_create(&o->Y, o->t, 2, yd, o->loc, o->ctx);
    if (s == KR_OK) {
        kr_nufft_opts no;
        kr_nufft_opts_default(&no);
        no.dtype = o->t;
        no.eps = opt->eps > 0 ? opt->eps : (o->t == KR_C64 ? 1e-4 : 1e-9);
        no.batch = L * o->B;
        s = kr_nufft_plan_create(&o->nufft, o->ctx, o->n[2] > 1 ? 3 : 2, o->n, &no);
    }
    if (s == KR_OK) s = kr_nufft_set_points(o->nufft, tv);
    return s;
}

kr_status kr_offres_linop_create(kr_linop **op, const kr_ctx *ctx, const int64_t n[3],
                          const kr_array *traj, const kr_array *fieldmap, const kr_array *times,
                          const kr_offres_opts *opts, kr_offres_info *info)
{
    KRI_ARG_NOT_NULL(op);
    *op = NULL;
    kr_offres_opts opt;
    if (opts)
        opt = *opts;
    else
        kr_offres_opts_default(&opt);
    if (!opt.exact && (opt.segments < 0 || opt.segments > 256))
        return kri_fail(KR_ERR_INVALID_ARG, "kr_offres_linop_create: segments %d must be in [0, 256]",
                        opt.segments);
    if (opt.batch < 0 || opt.batch > 4096)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_offres_linop_create: batch %lld must be in "
                        "[0, 4096]", (long long)opt.batch);
    if (!(opt.tol >= 0) || !(opt.eps >= 0) || opt.eps > 0.1 || opt.bins < 0)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "kr_offres_linop_create: tol %g, eps %g (<= 0.1) and bins %d must be >= 0",
                        opt.tol, opt.eps, opt.bins);
    kr_array tv, wv;
    KRI_TRY(kri_lsq_check_inputs("kr_offres_linop_create", ctx, n, traj, NULL, opt.dtype, &tv, &wv));
    int64_t M = tv.dims[1], N = n[0] * n[1] * n[2];
    KRI_TRY(check_real("field map", fieldmap, N, 1, n));
    KRI_TRY(check_real("times", times, M, 0, n));
    offres_op *o = NULL;
    KRI_TRY(kri_alloc((void **)&o, sizeof *o, "off-resonance operator"));
    memset(o, 0, sizeof *o);
    o->ctx = ctx;
    o->t = opt.dtype;
    o->loc = kri_ctx_loc(ctx);
    o->exact = opt.exact != 0;
    for (int a = 0; a < 3; a++) o->n[a] = n[a];
    o->N = N;
    o->M = M;
    o->B = opt.batch > 1 ? opt.batch : 1;
    kr_offres_info inf;
    memset(&inf, 0, sizeof inf);
    double *kf = NULL, *f, *tm;
    kr_status s = kri_backend_pick(&o->be, o->loc, &kri_offres_cpu, &kri_offres_cuda,
                                   "kr_offres_linop_create");
    if (s == KR_OK) s = kri_alloc((void **)&kf, sizeof *kf * (size_t)(4 * M + N), "field map copy");
    if (s == KR_OK) {
        f = kf + 3 * M;
        tm = f + N;
        for (int64_t m = 0; m < M; m++) {
            for (int a = 0; a < 3; a++) kf[3 * m + a] = kr_array_get_f64(&tv, 3 * m + a);
            tm[m] = kr_array_get_f64(times, m);
        }
        for (int64_t i = 0; i < N; i++) f[i] = kr_array_get_f64(fieldmap, i);
        inf.t_min = inf.t_max = tm[0];
        for (int64_t m = 1; m < M; m++)
            inf.t_min = fmin(inf.t_min, tm[m]), inf.t_max = fmax(inf.t_max, tm[m]);
        inf.f_min = inf.f_max = f[0];
        for (int64_t i = 1; i < N; i++)
            inf.f_min = fmin(inf.f_min, f[i]), inf.f_max = fmax(inf.f_max, f[i]);
        if (o->exact) {
            s = f64_at(o, 3 * M, kf, &o->k);
            if (s == KR_OK) s = f64_at(o, N, f, &o->f);
            if (s == KR_OK) s = f64_at(o, M, tm, &o->tm);
        } else {
            kr_array kv;
            int64_t kd[2] = {3, M};
            s = kr_array_wrap(&kv, KR_F64, 2, kd, kf, KR_HOST);
            if (s == KR_OK) s = build_segmented(o, &kv, f, tm, &opt, &inf);
        }
    }
    kri_free(kf);
    kr_linop_def d;
    memset(&d, 0, sizeof d);
    d.name = o->exact ? "offres-exact" : "offres-segmented";
    d.dtype = o->t;
    d.loc = o->loc;
    d.in_ndim = 3;
    for (int a = 0; a < 3; a++) d.in_dims[a] = n[a];
    d.out_ndim = 1;
    d.out_dims[0] = M;
    if (opt.batch > 1) { /* [nx, ny, B] (2-D) or [nx, ny, nz, B] */
        d.in_ndim = n[2] > 1 ? 4 : 3;
        d.in_dims[d.in_ndim - 1] = opt.batch;
        d.out_ndim = 2;
        d.out_dims[1] = opt.batch;
    }
    d.forward = offres_fwd;
    d.adjoint = offres_adj;
    d.destroy = offres_free;
    d.data = o;
    if (s == KR_OK) s = kr_linop_create(op, ctx, &d);
    if (s != KR_OK) {
        offres_free(o);
        return s;
    }
    if (info) *info = inf;
    return KR_OK;
}
