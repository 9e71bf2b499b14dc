/* FDK view weights: full-scan weights integrate the angle once over 360 degrees / 2; Parker
 * short-scan weights of every ray and its conjugate ray sum to 1 and integrate to 180 degrees
 * along the central ray; the per-view matrices reproduce the ray geometry; the pre-weighting
 * applies the cosine weight exactly, also off the central ray of a wide cone. */
#include "ct/fdk_internal.h"
#include "test_fdk_util.h"

#include <stdio.h>

static kr_fdk_plan *plan_for(const kt_cone *c, kr_ctx **ctx, const kr_fdk_opts *o)
{
    KT_OK(kr_ctx_create(ctx, KR_BACKEND_CPU));
    KT_OK(kr_ctx_set_log_level(*ctx, KR_LOG_ERROR));
    kr_ct_view *v = kt_cone_views(c);
    kr_fdk_plan *p = NULL;
    KT_OK(kr_fdk_plan_create_views(&p, *ctx, c->nu, c->nv, v, c->nviews, &c->grid, o));
    free(v);
    return p;
}

/* view weight (angle) of view m: scale * Dsd * |u| / D */
static double view_angle(const kt_cone *c, const kr_fdk_plan *p, int64_t m)
{
    return (double)p->wv[m].scale * c->sdd * c->pitch_u / c->sod;
}

static void test_full_scan_weights(void)
{
    kt_cone c;
    kt_cone_default(&c, 16, 1.0, 90);
    kr_ctx *ctx;
    kr_fdk_plan *p = plan_for(&c, &ctx, NULL);
    KT_CHECK(p->parker == NULL);
    KT_CHECK(p->info.short_scan == 0);
    double s = 0;
    for (int64_t m = 0; m < c.nviews; m++) {
        KT_NEAR(view_angle(&c, p, m), KT_PI / 90, 1e-6);
        s += view_angle(&c, p, m);
    }
    KT_NEAR(s, KT_PI, 1e-5);
    kr_fdk_plan_destroy(p);
    kr_ctx_destroy(ctx);
    /* non-uniform angles in random order: still half the cyclic gaps, summing to pi */
    kr_ct_view *v = kt_cone_views(&c);
    kr_ct_view t = v[10];
    v[10] = v[47];
    v[47] = t; /* views out of order: not monotonic, treated as a full scan */
    KT_OK(kr_ctx_create(&ctx, KR_BACKEND_CPU));
    KT_OK(kr_fdk_plan_create_views(&p, ctx, c.nu, c.nv, v, c.nviews, &c.grid, NULL));
    s = 0;
    for (int64_t m = 0; m < c.nviews; m++) s += view_angle(&c, p, m);
    KT_NEAR(s, KT_PI, 1e-5);
    KT_CHECK(p->info.short_scan == 0);
    kr_fdk_opts o;
    kr_fdk_opts_default(&o);
    o.short_scan = 1; /* Parker weights on views out of order: refused */
    kr_fdk_plan *q = NULL;
    KT_STATUS(kr_fdk_plan_create_views(&q, ctx, c.nu, c.nv, v, c.nviews, &c.grid, &o),
              KR_ERR_GEOMETRY);
    free(v);
    kr_fdk_plan_destroy(p);
    kr_ctx_destroy(ctx);
}

static void check_parker(double arc_deg, int64_t nviews, double sense)
{
    kt_cone c;
    kt_cone_default(&c, 16, 1.0, nviews);
    c.arc_deg = sense * arc_deg * (double)nviews / (double)(nviews - 1); /* last view at arc */
    kr_ctx *ctx;
    kr_fdk_plan *p = plan_for(&c, &ctx, NULL);
    KT_CHECK(p->info.short_scan == 1);
    KT_NEAR(p->info.arc_deg, arc_deg, 1e-9);
    const double step = arc_deg / (double)(nviews - 1) * KT_PI / 180;
    const int64_t nu = c.nu;
    double worst = 0, integral = 0;
    for (int64_t m = 0; m < nviews; m++) {
        const double beta = (double)m * step;
        /* central-ray integral: sum of angle x Parker weight (the table's centre pair) */
        double wc = 0.5 * (p->parker[nu / 2 - 1 + nu * m] + p->parker[nu / 2 + nu * m]);
        integral += view_angle(&c, p, m) * wc;
        for (int64_t a = 0; a < nu; a++) {
            /* fan angle of column a, positive towards the source's motion */
            double g = sense * atan(((double)a - 0.5 * (double)(nu - 1)) * c.pitch_u / c.sdd);
            double b2 = beta + KT_PI - 2 * g; /* conjugate ray: (beta + pi - 2 gamma, -gamma) */
            double f = b2 / step;
            int64_t m2 = (int64_t)floor(f);
            if (m2 < 0 || m2 + 1 >= nviews) continue;
            int64_t a2 = nu - 1 - a;
            double w2 = (1 - (f - (double)m2)) * p->parker[a2 + nu * m2] +
                        (f - (double)m2) * p->parker[a2 + nu * (m2 + 1)];
            worst = fmax(worst, fabs(p->parker[a + nu * m] + w2 - 1));
        }
    }
    printf("  arc %.1f, %lld views, sense %+.0f: |w + w_conjugate - 1| <= %.4f, central-ray "
           "integral %.6f (pi %.6f)\n",
           arc_deg, (long long)nviews, sense, worst, integral, KT_PI);
    KT_LE(worst, 0.02); /* linear interpolation between views of the conjugate's weight */
    KT_NEAR(integral, KT_PI, 0.01);
    kr_fdk_plan_destroy(p);
    kr_ctx_destroy(ctx);
}

static void test_parker(void)
{
    /* fan angle 2 atan(11.5 * 2 / 128) = 20.4 degrees */
    check_parker(205, 400, +1);
    check_parker(240, 300, +1);
    check_parker(205, 400, -1); /* clockwise scan */
}

static void test_matrices(void)
{
    /* the matrix maps a voxel to the detector pixel its ray from the source hits */
    kt_cone c;
    kt_cone_default(&c, 10, 0.8, 7);
    c.grid.n[0] = 9, c.grid.offset_mm[2] = 1.5, c.off_u = 1.2, c.off_v = -0.4, c.cor = 0.3;
    kr_ctx *ctx;
    kr_fdk_plan *p = plan_for(&c, &ctx, NULL);
    kr_ct_view *v = kt_cone_views(&c);
    KT_CHECK(p->fast == 1);
    double worst = 0;
    for (int64_t m = 0; m < c.nviews; m++) {
        const kri_fdk_mat *M = &p->mat[m];
        const int64_t id[3] = {7, 2, 5};
        double X[3], q[3];
        for (int d = 0; d < 3; d++)
            X[d] = c.grid.offset_mm[d] +
                   ((double)id[d] - 0.5 * (double)(c.grid.n[d] - 1)) * c.grid.voxel_mm[d];
        const float *rows[3] = {M->pu, M->pv, M->pw};
        for (int r = 0; r < 3; r++)
            q[r] = rows[r][0] * 7.0 + rows[r][1] * 2.0 + rows[r][2] * 5.0 + rows[r][3];
        double a = q[0] / q[2], b = q[1] / q[2];
        /* the detector point of (a, b) and the source must be collinear with X */
        double P[3], d1[3], d2[3], cr[3];
        for (int d = 0; d < 3; d++) {
            P[d] = v[m].det[d] + (a - 0.5 * (double)(c.nu - 1)) * v[m].u[d] +
                   (b - 0.5 * (double)(c.nv - 1)) * v[m].v[d];
            d1[d] = P[d] - v[m].src[d];
            d2[d] = X[d] - v[m].src[d];
        }
        cr[0] = d1[1] * d2[2] - d1[2] * d2[1];
        cr[1] = d1[2] * d2[0] - d1[0] * d2[2];
        cr[2] = d1[0] * d2[1] - d1[1] * d2[0];
        double l1 = sqrt(d1[0] * d1[0] + d1[1] * d1[1] + d1[2] * d1[2]);
        double l2 = sqrt(d2[0] * d2[0] + d2[1] * d2[1] + d2[2] * d2[2]);
        worst = fmax(worst, sqrt(cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]) / (l1 * l2));
        /* lambda = |X - S| / |P - S| */
        KT_NEAR(q[2], l2 / l1, 1e-6);
    }
    KT_LE(worst, 1e-6);
    free(v);
    kr_fdk_plan_destroy(p);
    kr_ctx_destroy(ctx);
}

static void test_cosine_weight(void)
{
    /* all-ones projections through the pre-weighting of a wide cone (source 20 mm from the axis,
     * detector 40 mm from it, up to 53 degrees off the central ray), the detector and the
     * rotation centre off the central ray: every pixel gets the view weight pi / nviews times
     * D / (Dsd |u|) times the cosine weight D / sqrt(D^2 + s^2 + t^2), (s, t) the pixel in
     * detector coordinates scaled to the axis from the foot of the source's perpendicular */
    kt_cone c;
    kt_cone_default(&c, 16, 1.0, 90);
    c.sod = 20, c.sdd = 40, c.nu = 40, c.nv = 36;
    c.off_u = 1.2, c.off_v = -0.4, c.cor = 0.3;
    kr_ctx *ctx;
    kr_fdk_plan *p = plan_for(&c, &ctx, NULL);
    kr_ct_view *v = kt_cone_views(&c);
    KT_CHECK(p->parker == NULL);
    float *ones = malloc((size_t)(c.nu * c.nv) * sizeof(float));
    float *w = malloc((size_t)(c.nu * c.nv) * sizeof(float));
    for (int64_t i = 0; i < c.nu * c.nv; i++) ones[i] = 1.0f;
    const double D = c.sod, Dsd = c.sdd;
    double worst = 0, cmin = 1;
    const int64_t views[3] = {0, 17, 58};
    for (int q = 0; q < 3; q++) {
        const int64_t m = views[q];
        const kr_ct_view *V = &v[m];
        kri_cpu_fdk_weight(p, ones, m, w, c.nu);
        const double eu[3] = {V->u[0] / c.pitch_u, V->u[1] / c.pitch_u, V->u[2] / c.pitch_u};
        for (int64_t b = 0; b < c.nv; b++)
            for (int64_t a = 0; a < c.nu; a++) {
                double r[3];
                for (int d = 0; d < 3; d++)
                    r[d] = V->det[d] + ((double)a - 0.5 * (double)(c.nu - 1)) * V->u[d] +
                           ((double)b - 0.5 * (double)(c.nv - 1)) * V->v[d] - V->src[d];
                const double s = (r[0] * eu[0] + r[1] * eu[1] + r[2] * eu[2]) * D / Dsd;
                const double t = r[2] * D / Dsd;
                const double cw = D / sqrt(D * D + s * s + t * t);
                const double want = KT_PI / (double)c.nviews * D / (Dsd * c.pitch_u) * cw;
                worst = fmax(worst, fabs((double)w[a + c.nu * b] - want) / want);
                cmin = fmin(cmin, cw);
            }
    }
    printf("  cosine pre-weight of all-ones views (cosine down to %.3f): max relative error "
           "%.3g\n",
           cmin, worst);
    KT_CHECK(cmin < 0.7);
    KT_LE(worst, 1e-6);
    free(ones);
    free(w);
    free(v);
    kr_fdk_plan_destroy(p);
    kr_ctx_destroy(ctx);
}

int main(void)
{
    KT_RUN(test_full_scan_weights);
    KT_RUN(test_parker);
    KT_RUN(test_matrices);
    KT_RUN(test_cosine_weight);
    return kt_finish();
}
