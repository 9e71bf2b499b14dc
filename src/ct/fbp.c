/* 2-D FBP, the front: geometry analysis (per-view backprojection parameters, view weights,
 * fan-beam cosine and Parker weights), the filter plan, validation and the dispatch to the
 * backend (fbp_internal.h), whose create verb makes the buffers. The mathematics is documented
 * in kray/fbp.h. */
#include "ct/ct_internal.h"
#include "ct/fbp_internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

void kr_fbp_opts_default(kr_fbp_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->filter = KR_FILTER_FFT;
    o->window = KR_WINDOW_RAMLAK;
    o->cutoff = 1.0;
    o->short_scan = -1;
    o->dtype = KR_F32;
}

void kr_fbp_plan_destroy(kr_fbp_plan *p)
{
    if (!p) return;
    if (p->be) p->be->destroy(p->st);
    kr_filter_plan_destroy(p->filter);
    kr_ct_geom_destroy(p->g);
    kri_free(p->views);
    kri_free(p);
}

/* ---- small vector helpers ------------------------------------------------------------------ */
static double cross2(const double *a, const double *b) { return a[0] * b[1] - a[1] * b[0]; }
static double dot2(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1]; }

/* Wrap an angle difference into (-pi, pi]. */
static double wrap_pi(double a)
{
    a = fmod(a, 2 * M_PI);
    if (a <= -M_PI) a += 2 * M_PI;
    if (a > M_PI) a -= 2 * M_PI;
    return a;
}

typedef struct kri_sortkey {
    double a;
    int64_t i;
} kri_sortkey;

static int cmp_key(const void *x, const void *y)
{
    const kri_sortkey *a = x, *b = y;
    if (a->a < b->a) return -1;
    if (a->a > b->a) return 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* Angular weights for full coverage with period P: half the gaps to the neighbours (gaps capped
 * at twice the median for limited-angle scans). *maxgap receives the largest gap. */
static kr_status kri_gap_weights(const double *ang, int64_t n, double P, double *w, double *maxgap,
                                 double *medgap, int *capped)
{
    kri_sortkey *k;
    double *gap;
    KRI_TRY(kri_alloc((void **)&k, (size_t)n * sizeof *k, "view angles"));
    kr_status s = kri_alloc((void **)&gap, (size_t)n * sizeof *gap, "view gaps");
    if (s != KR_OK) {
        kri_free(k);
        return s;
    }
    for (int64_t i = 0; i < n; i++) {
        double a = fmod(ang[i], P);
        if (a < 0) a += P;
        k[i].a = a;
        k[i].i = i;
    }
    qsort(k, (size_t)n, sizeof *k, cmp_key);
    /* gap[j] = from sorted j to sorted j+1 (circular) */
    for (int64_t j = 0; j < n; j++) gap[j] = j + 1 < n ? k[j + 1].a - k[j].a : k[0].a + P - k[j].a;
    double *srt;
    s = kri_alloc((void **)&srt, (size_t)n * sizeof *srt, "view gaps");
    if (s == KR_OK) {
        double mx = 0;
        int64_t npos = 0;
        for (int64_t j = 0; j < n; j++) {
            mx = fmax(mx, gap[j]);
            if (gap[j] > 0) srt[npos++] = gap[j];
        }
        /* median of the positive gaps (duplicates of 360-degree parallel scans are zeros) */
        for (int64_t a = 1; a < npos; a++) { /* insertion sort is fine: called once per plan */
            double v = srt[a];
            int64_t b = a - 1;
            while (b >= 0 && srt[b] > v) srt[b + 1] = srt[b], b--;
            srt[b + 1] = v;
        }
        double med = npos ? srt[npos / 2] : P;
        double cap = 2 * med;
        *capped = 0;
        for (int64_t j = 0; j < n; j++) {
            double gp = gap[(j + n - 1) % n], gn = gap[j];
            if (gp > cap) gp = cap, *capped = 1;
            if (gn > cap) gn = cap, *capped = 1;
            w[k[j].i] = 0.5 * (gp + gn);
        }
        *maxgap = mx;
        *medgap = med;
        kri_free(srt);
    }
    kri_free(gap);
    kri_free(k);
    return s;
}

/* ---- geometry analysis ----------------------------------------------------------------------
 * Fills p->views and the filter options' tables (allocated here, freed by the caller). */
typedef struct kri_tables {
    double *pre; /* [ndet, pre_rows] */
    int64_t pre_rows;
    double *rs;   /* [nviews] */
    double alpha; /* equiangular pitch */
} kri_tables;

static kr_status kri_fbp_analyse(kr_fbp_plan *p, kri_tables *t)
{
    const kr_ct_view *V = kr_ct_geom_views(p->g);
    const kr_ct_grid *gr = kr_ct_geom_grid(p->g);
    const int64_t N = p->ndet, nv = p->nviews;
    const double dx = gr->voxel_mm[0], dy = gr->voxel_mm[1];
    const double px0 = gr->offset_mm[0] - 0.5 * (double)(p->nx - 1) * dx;
    const double py0 = gr->offset_mm[1] - 0.5 * (double)(p->ny - 1) * dy;
    const double kc = 0.5 * (double)(N - 1) + KRI_PAD;
    double *ang, *wv, *gam = NULL; /* view angles, view weights, fan angles [ndet, nv] */
    KRI_TRY(kri_alloc((void **)&ang, (size_t)nv * sizeof *ang, "view angles"));
    kr_status s = kri_alloc((void **)&wv, (size_t)nv * sizeof *wv, "view weights");
    if (s == KR_OK) s = kri_alloc((void **)&t->rs, (size_t)nv * sizeof *t->rs, "view scales");
    if (s == KR_OK && p->kind != KRI_BP_PAR) {
        s = kri_alloc((void **)&gam, (size_t)(N * nv) * sizeof *gam, "fan angles");
        if (s == KR_OK)
            s = kri_alloc((void **)&t->pre, (size_t)(N * nv) * sizeof *t->pre, "fan weights");
    }
    double gmax = 0;
    for (int64_t v = 0; s == KR_OK && v < nv; v++) {
        const kr_ct_view *w = &V[v];
        kri_bp_view *b = &p->views[v];
        memset(b, 0, sizeof *b);
        if (p->kind == KRI_BP_PAR) {
            double cr = cross2(w->ray, w->u), rl = hypot(w->ray[0], w->ray[1]);
            b->a1 = -w->ray[1] * dx / cr;
            b->a2 = w->ray[0] * dy / cr;
            b->a0 = (w->ray[0] * (py0 - w->det[1]) - w->ray[1] * (px0 - w->det[0])) / cr + kc;
            double tau = fabs(cr) / rl; /* spacing between neighbouring rays */
            ang[v] = atan2(w->ray[1], w->ray[0]);
            t->rs[v] = p->o.seed_raw ? 1.0 : 1.0 / tau;
            continue;
        }
        const double *s0 = w->src;
        double ds[2] = {w->det[0] - s0[0], w->det[1] - s0[1]};
        double ul = hypot(w->u[0], w->u[1]);
        double uh[2] = {w->u[0] / ul, w->u[1] / ul}, nh[2];
        double o2[2] = {-s0[0], -s0[1]}; /* from the source to the rotation axis */
        ang[v] = atan2(s0[1], s0[0]);
        if (p->kind == KRI_BP_FLAT) {
            nh[0] = -uh[1];
            nh[1] = uh[0];
            if (dot2(nh, ds) < 0) nh[0] = -nh[0], nh[1] = -nh[1];
            /* D, cu: the axis's depth and lateral offset as seen from the source */
            double sdd = dot2(ds, nh), D = dot2(o2, nh), du = dot2(ds, uh), cu = dot2(o2, uh);
            if (!(D > 0) || !(D < sdd)) {
                s = kri_fail(KR_ERR_GEOMETRY,
                             "view %lld: the rotation axis must lie between the source and the "
                             "detector for fan-beam FBP (source-axis %g mm, source-detector %g mm)",
                             (long long)v, D, sdd);
                break;
            }
            double K = sdd / ul;
            b->a0 = K * ((px0 - s0[0]) * uh[0] + (py0 - s0[1]) * uh[1]);
            b->a1 = K * dx * uh[0];
            b->a2 = K * dy * uh[1];
            b->b0 = (px0 - s0[0]) * nh[0] + (py0 - s0[1]) * nh[1];
            b->b1 = dx * nh[0];
            b->b2 = dy * nh[1];
            b->k0 = -du / ul + kc;
            double taup = ul * D / sdd; /* spacing on the virtual detector through the axis */
            t->rs[v] = (p->o.seed_raw ? 1.0 : 1.0 / taup) * D * D;
            /* The cosine weight of the ray e through pixel k: R cos(gamma) / D, gamma its angle
             * to the ray through the axis and R the source-axis distance (o2 . e / (D |e|)). With
             * a centre-of-rotation offset (cu != 0) the source is off the detector's normal
             * through the axis, and gamma is not the angle to that normal. */
            for (int64_t k = 0; k < N; k++) {
                double xi = du + ((double)k - 0.5 * (double)(N - 1)) * ul;
                double e[2] = {sdd * nh[0] + xi * uh[0], sdd * nh[1] + xi * uh[1]};
                t->pre[k + N * v] = (sdd + cu / D * xi) / sqrt(sdd * sdd + xi * xi);
                gam[k + N * v] = atan2(cross2(o2, e), dot2(o2, e));
            }
        } else {
            double R = hypot(ds[0], ds[1]);
            nh[0] = ds[0] / R;
            nh[1] = ds[1] / R;
            double alpha = ul / R, D = hypot(s0[0], s0[1]);
            if (v == 0)
                t->alpha = alpha;
            else if (fabs(alpha - t->alpha) > 1e-9 * t->alpha) {
                s = kri_fail(KR_ERR_GEOMETRY,
                             "view %lld: equiangular pitch %.10g rad differs from view 0's %.10g "
                             "rad; FBP needs one pitch",
                             (long long)v, alpha, t->alpha);
                break;
            }
            b->a0 = (px0 - s0[0]) * uh[0] + (py0 - s0[1]) * uh[1];
            b->a1 = dx * uh[0];
            b->a2 = dy * uh[1];
            b->b0 = (px0 - s0[0]) * nh[0] + (py0 - s0[1]) * nh[1];
            b->b1 = dx * nh[0];
            b->b2 = dy * nh[1];
            b->c = 1.0 / alpha;
            b->k0 = kc;
            double g0 = atan2(dot2(o2, uh), dot2(o2, nh)); /* the axis's fan angle */
            double orient = cross2(nh, uh) >= 0 ? 1.0 : -1.0;
            t->rs[v] = D / alpha;
            for (int64_t k = 0; k < N; k++) {
                double gk = ((double)k - 0.5 * (double)(N - 1)) * alpha - g0;
                t->pre[k + N * v] = cos(gk);
                gam[k + N * v] = orient * gk;
            }
        }
        for (int64_t k = 0; k < N; k++) gmax = fmax(gmax, fabs(gam[k + N * v]));
    }
    if (s != KR_OK) goto done;

    /* view weights */
    double P = p->kind == KRI_BP_PAR ? M_PI : 2 * M_PI, maxgap, med;
    int capped = 0;
    s = kri_gap_weights(ang, nv, P, wv, &maxgap, &med, &capped);
    if (s != KR_OK) goto done;
    int shortscan = 0;
    if (p->kind != KRI_BP_PAR) {
        shortscan = p->o.short_scan == 1 || (p->o.short_scan < 0 && maxgap > 2.5 * med && nv > 2);
    }
    p->info.fan_deg = 2 * gmax * 180 / M_PI;
    p->info.arc_deg = (P - (capped ? maxgap : 0)) * 180 / M_PI;
    if (capped && !shortscan)
        kr_log(p->ctx, KR_LOG_WARN,
               "fbp: limited-angle scan: the largest gap between views is %.4g degrees (median "
               "%.4g); view weights are capped",
               maxgap * 180 / M_PI, med * 180 / M_PI);
    if (!shortscan) {
        double f = p->kind == KRI_BP_PAR ? 1.0 : 0.5; /* fan: each ray is measured twice */
        for (int64_t v = 0; v < nv; v++) t->rs[v] *= f * wv[v];
        if (t->pre) { /* one cosine row when every view has the same one */
            int same = 1;
            for (int64_t i = N; same && i < N * nv; i++)
                same = fabs(t->pre[i] - t->pre[i % N]) <= 1e-12;
            t->pre_rows = same ? 1 : nv;
        }
    } else {
        /* Parker: views in scan order, positions b_v from the first view */
        double sgn = 0, prev = 0, *bpos = wv; /* reuse wv for positions after reading it */
        bpos[0] = 0;
        for (int64_t v = 1; v < nv; v++) {
            double d = wrap_pi(ang[v] - ang[v - 1]);
            if (v == 1) sgn = d > 0 ? 1 : -1;
            if (!(d * sgn > 0)) {
                s = kri_fail(KR_ERR_GEOMETRY,
                             "short-scan (Parker) weights need the views in scan order; view %lld "
                             "turns by %.6g degrees after view %lld",
                             (long long)v, d * 180 / M_PI, (long long)(v - 1));
                goto done;
            }
            prev += d * sgn;
            bpos[v] = prev;
        }
        double arc = bpos[nv - 1], delta = 0.5 * (arc - M_PI);
        if (arc < M_PI) {
            s = kri_fail(KR_ERR_GEOMETRY,
                         "the fan-beam scan covers %.6g degrees; FBP needs at least 180 degrees "
                         "(plus the fan angle %.6g degrees for exact short-scan weights)",
                         arc * 180 / M_PI, p->info.fan_deg);
            goto done;
        }
        if (delta < gmax)
            kr_log(p->ctx, KR_LOG_WARN,
                   "fbp: the short scan covers %.6g degrees, less than 180 + fan angle = %.6g; "
                   "Parker weights under-cover the edge rays",
                   arc * 180 / M_PI, 180 + p->info.fan_deg);
        for (int64_t v = 0; v < nv; v++) {
            double db = v == 0        ? bpos[1] - bpos[0]
                        : v == nv - 1 ? bpos[v] - bpos[v - 1]
                                      : 0.5 * (bpos[v + 1] - bpos[v - 1]);
            t->rs[v] *= db;
            for (int64_t k = 0; k < N; k++)
                t->pre[k + N * v] *= kri_parker(bpos[v], sgn * gam[k + N * v], delta);
        }
        t->pre_rows = nv;
        p->info.arc_deg = arc * 180 / M_PI;
    }
    p->info.short_scan = shortscan;
done:
    kri_free(ang);
    kri_free(wv);
    kri_free(gam);
    return s;
}

kr_status kr_fbp_plan_create(kr_fbp_plan **plan, const kr_ctx *ctx, const kr_ct_geom *g,
                             const kr_fbp_opts *o)
{
    KRI_ARG_NOT_NULL(plan);
    *plan = NULL;
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(g);
    KRI_ARG_NOT_NULL(o);
    if (o->dtype != KR_F32 && o->dtype != KR_F64)
        return kri_fail(KR_ERR_DTYPE, "fbp: dtype %s not supported (f32 or f64)",
                        kr_dtype_name(o->dtype));
    if (o->short_scan < -1 || o->short_scan > 1)
        return kri_fail(KR_ERR_INVALID_ARG, "fbp: short_scan %d must be -1 (auto), 0 or 1",
                        o->short_scan);
    kr_ct_type type = kr_ct_geom_type(g);
    if (kr_ct_type_ndim(type) != 2)
        return kri_fail(KR_ERR_NOT_SUPPORTED, "fbp: geometry type %s is not a 2-D geometry",
                        kr_ct_type_name(type));
    if (o->short_scan == 1 && type == KR_CT_PARALLEL2D)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "fbp: short-scan (Parker) weights are for fan beams, not parallel2d");

    const kri_fbp_backend *be;
    KRI_TRY(kri_backend_pick(&be, kri_ctx_loc(ctx), &kri_fbp_cpu, &kri_fbp_cuda, "fbp"));

    kr_fbp_plan *p = kri_calloc(1, sizeof *p);
    if (!p) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for an FBP plan");
    p->ctx = ctx;
    p->loc = kri_ctx_loc(ctx);
    p->o = *o;
    p->kind = type == KR_CT_PARALLEL2D   ? KRI_BP_PAR
              : type == KR_CT_FAN2D_FLAT ? KRI_BP_FLAT
                                         : KRI_BP_EQUI;
    kri_tables t;
    memset(&t, 0, sizeof t);
    kr_status s = kr_ct_geom_clone(&p->g, g);
#define KRI_FBP_STEP(expr)                                                                         \
    do {                                                                                           \
        if (s == KR_OK) s = (expr);                                                                \
    } while (0)
    if (s == KR_OK) {
        p->ndet = kr_ct_geom_det_count(g);
        p->nviews = kr_ct_geom_nviews(g);
        p->nx = kr_ct_geom_grid(g)->n[0];
        p->ny = kr_ct_geom_grid(g)->n[1];
    }
    KRI_FBP_STEP(kri_alloc((void **)&p->views, (size_t)p->nviews * sizeof *p->views, "FBP views"));
    KRI_FBP_STEP(kri_fbp_analyse(p, &t));
    if (s == KR_OK) {
        kr_filter_opts fo;
        kr_filter_opts_default(&fo);
        fo.method = o->filter;
        fo.window = o->window;
        fo.cutoff = o->cutoff;
        fo.seed_raw = o->seed_raw;
        fo.dtype = o->dtype;
        fo.equiangular_rad = p->kind == KRI_BP_EQUI ? t.alpha : 0;
        fo.pre_weight = t.pre_rows ? t.pre : NULL;
        fo.pre_rows = t.pre_rows;
        fo.row_scale = t.rs;
        fo.row_scale_count = p->nviews;
        s = kr_filter_plan_create(&p->filter, ctx, p->ndet, p->nviews, &fo);
        if (s != KR_OK)
            s = kri_fail_prefix(s, "fbp");
        else
            p->info.pad_len = kr_filter_pad_len(p->filter);
    }
    KRI_FBP_STEP(be->create(p, &p->st));
    if (s == KR_OK) p->be = be;
#undef KRI_FBP_STEP
    kri_free(t.pre);
    kri_free(t.rs);
    if (s != KR_OK) {
        kr_fbp_plan_destroy(p);
        return s;
    }
    p->info.view_groups = p->st->groups;
    p->info.kernel = p->st->kernel;
    kr_log(ctx, KR_LOG_INFO,
           "fbp: %s, %lld views x %lld detectors -> %lldx%lld, filter %s/%s, %s%s, kernel %s",
           kr_ct_type_name(type), (long long)p->nviews, (long long)p->ndet, (long long)p->nx,
           (long long)p->ny, kr_filter_method_name(o->filter), kr_filter_window_name(o->window),
           kr_dtype_name(o->dtype), p->info.short_scan ? ", Parker short scan" : "",
           p->info.kernel);
    *plan = p;
    return KR_OK;
}

kr_status kr_fbp_plan_info(const kr_fbp_plan *p, kr_fbp_info *info)
{
    KRI_ARG_NOT_NULL(p);
    KRI_ARG_NOT_NULL(info);
    *info = p->info;
    return KR_OK;
}

/* ---- execution ----------------------------------------------------------------------------- */
/* The one operand check of a sinogram [det, view(, slices)] or image [x, y(, slices)] of the
 * plan; *nb = its slices, or, with nb NULL, one slice only. */
static kr_status kri_fbp_check(const char *fn, const kr_fbp_plan *p, const kr_array *a,
                               int is_sino, int64_t *nb)
{
    const int64_t dims[3] = {is_sino ? p->ndet : p->nx, is_sino ? p->nviews : p->ny, nb ? -1 : 1};
    const char *what = is_sino ? "the sinogram" : "the image";
    KRI_TRY(kri_check_operand_dims(fn, what, a, p->o.dtype, p->loc, 3, dims));
    if (nb) *nb = a->ndim > 2 ? a->dims[2] : 1;
    return KR_OK;
}

/* Filter one sinogram into the backend's rows, in the layout its backprojection reads. */
static kr_status kri_fbp_filter_run(kr_fbp_plan *p, const void *sino)
{
    return kri_filter_run(p->filter, sino, p->ndet, p->st->pairs, 2 * KRI_PAD_ROW(p->ndet),
                          p->st->planar ? KRI_FILTER_PLANAR : KRI_FILTER_PAIRS);
}

static kr_status kri_fbp_bp(kr_fbp_plan *p, void *image)
{
    return p->be->backproject(p, p->st, image);
}

kr_status kr_fbp_execute(kr_fbp_plan *p, const kr_array *sino, kr_array *image)
{
    KRI_ARG_NOT_NULL(p);
    int64_t nbs = 0, nbi = 0;
    KRI_TRY(kri_fbp_check("kr_fbp_execute", p, sino, 1, &nbs));
    KRI_TRY(kri_fbp_check("kr_fbp_execute", p, image, 0, &nbi));
    if (nbs != nbi)
        return kri_fail(KR_ERR_DIM, "fbp: the sinogram has %lld slices, the image %lld",
                        (long long)nbs, (long long)nbi);
    const size_t es = kr_dtype_size(p->o.dtype);
    for (int64_t b = 0; b < nbs; b++) {
        const char *in = (const char *)sino->data + (size_t)(b * p->ndet * p->nviews) * es;
        char *out = (char *)image->data + (size_t)(b * p->nx * p->ny) * es;
        KRI_TRY(kri_fbp_filter_run(p, in));
        KRI_TRY(kri_fbp_bp(p, out));
    }
    p->filtered = 0;
    return KR_OK;
}

kr_status kr_fbp_filter(kr_fbp_plan *p, const kr_array *sino)
{
    KRI_ARG_NOT_NULL(p);
    KRI_TRY(kri_fbp_check("kr_fbp_filter", p, sino, 1, NULL));
    KRI_TRY(kri_fbp_filter_run(p, sino->data));
    p->filtered = 1;
    return KR_OK;
}

kr_status kr_fbp_backproject(kr_fbp_plan *p, kr_array *image)
{
    KRI_ARG_NOT_NULL(p);
    KRI_TRY(kri_fbp_check("kr_fbp_backproject", p, image, 0, NULL));
    if (!p->filtered)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "kr_fbp_backproject: no filtered sinogram; call kr_fbp_filter first");
    return kri_fbp_bp(p, image->data);
}

kr_status kr_fbp(const kr_ctx *ctx, const kr_ct_geom *g, const kr_fbp_opts *o, const kr_array *sino,
                 kr_array *image)
{
    kr_fbp_opts d;
    if (!o) {
        kr_fbp_opts_default(&d);
        o = &d;
    }
    kr_fbp_plan *p = NULL;
    KRI_TRY(kr_fbp_plan_create(&p, ctx, g, o));
    kr_status s = kr_fbp_execute(p, sino, image);
    kr_fbp_plan_destroy(p);
    return s;
}
