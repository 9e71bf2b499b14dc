/* FDK on the CPU: the backprojector against a brute-force double-precision reference, and FDK
 * of exact cone-beam projections (kr_phantom_line_integrals_*) against the phantoms. */
#include "ct/fdk_bench.h"
#include "internal.h"
#include "test_fdk_util.h"

#include <stdio.h>

static kr_ctx *ctx_cpu(int threads)
{
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, threads == 1 ? KR_BACKEND_CPU_SERIAL : KR_BACKEND_CPU));
    if (threads > 1) KT_OK(kr_ctx_set_threads(c, threads));
    KT_OK(kr_ctx_set_quiet(c, 1));
    KT_OK(kr_ctx_set_log_level(c, KR_LOG_ERROR));
    return c;
}

/* ---- the backprojector against brute force ------------------------------------------------ */
/* sum over views of q(a, b) t^2, where S + t (X - S) = det + a' u + b' v is the detector point
 * of the ray through X (a = a' + (nu-1)/2, ...), bilinear, zero off the detector. */
static void ref_backproject(const kr_ct_view *views, int64_t nviews, int64_t nu, int64_t nv,
                            const kr_ct_grid *g, const float *q, double *out)
{
    for (int64_t k = 0; k < g->n[2]; k++)
        for (int64_t j = 0; j < g->n[1]; j++)
            for (int64_t i = 0; i < g->n[0]; i++) {
                const int64_t id[3] = {i, j, k};
                double X[3], acc = 0;
                for (int d = 0; d < 3; d++)
                    X[d] = g->offset_mm[d] +
                           ((double)id[d] - 0.5 * (double)(g->n[d] - 1)) * g->voxel_mm[d];
                for (int64_t m = 0; m < nviews; m++) {
                    const kr_ct_view *V = &views[m];
                    /* [u v -(X-S)] (a, b, t) = S - det, Cramer's rule */
                    double c0[3], c1[3], c2[3], r[3];
                    for (int d = 0; d < 3; d++) {
                        c0[d] = V->u[d];
                        c1[d] = V->v[d];
                        c2[d] = -(X[d] - V->src[d]);
                        r[d] = V->src[d] - V->det[d];
                    }
#define DET3(a, b, c)                                                                          \
    ((a)[0] * ((b)[1] * (c)[2] - (b)[2] * (c)[1]) - (b)[0] * ((a)[1] * (c)[2] - (a)[2] * (c)[1]) + \
     (c)[0] * ((a)[1] * (b)[2] - (a)[2] * (b)[1]))
                    double D = DET3(c0, c1, c2);
                    double a = DET3(r, c1, c2) / D + 0.5 * (double)(nu - 1);
                    double b = DET3(c0, r, c2) / D + 0.5 * (double)(nv - 1);
                    double t = DET3(c0, c1, r) / D;
#undef DET3
                    double fa = floor(a), fb = floor(b);
                    double val = 0;
                    for (int da = 0; da < 2; da++)
                        for (int db = 0; db < 2; db++) {
                            int64_t ia = (int64_t)fa + da, ib = (int64_t)fb + db;
                            if (ia < 0 || ia >= nu || ib < 0 || ib >= nv) continue;
                            double wa = da ? a - fa : 1 - (a - fa), wb = db ? b - fb : 1 - (b - fb);
                            val += wa * wb * q[ia + nu * (ib + nv * m)];
                        }
                    acc += val * t * t;
                }
                out[i + g->n[0] * (j + g->n[1] * k)] = acc;
            }
}

static void check_backproject(const kr_ct_view *views, int64_t nviews, int64_t nu, int64_t nv,
                              const kr_ct_grid *g, int expect_fast)
{
    int64_t pd[3] = {nu, nv, nviews};
    kr_array *proj = NULL, *vol = NULL;
    KT_OK(kr_array_create(&proj, KR_F32, 3, pd, KR_HOST, NULL));
    KT_OK(kr_array_create(&vol, KR_F32, 3, g->n, KR_HOST, NULL));
    float *q = proj->data;
    for (int64_t i = 0; i < kr_array_numel(proj); i++) q[i] = (float)kri_rand_sym(11, (uint64_t)i);
    int64_t nvox = kr_array_numel(vol);
    double *ref = malloc((size_t)nvox * sizeof(double));
    ref_backproject(views, nviews, nu, nv, g, q, ref);
    double rmax = 0;
    for (int64_t i = 0; i < nvox; i++) rmax = fmax(rmax, fabs(ref[i]));
    for (int pass = 0; pass < 2; pass++) {
        setenv("KRAY_FDK_NO_AVX512", pass ? "1" : "0", 1);
        kr_ctx *ctx = ctx_cpu(2);
        kr_fdk_plan *p = NULL;
        KT_OK(kr_fdk_plan_create_views(&p, ctx, nu, nv, views, nviews, g, NULL));
        KT_OK(kr_fdk_backproject(p, proj, vol));
        kr_fdk_info info;
        KT_OK(kr_fdk_plan_info(p, &info));
        KT_CHECK(info.fast_path == expect_fast);
        const float *x = vol->data;
        double e = 0;
        for (int64_t i = 0; i < nvox; i++) e = fmax(e, fabs((double)x[i] - ref[i]));
        printf("  backprojection (%s, fast %d) vs brute force: max error %.3g of max %.3g\n",
               info.kernel, info.fast_path, e, rmax);
        KT_LE(e, 2e-5 * rmax);
        KT_CHECK(rmax > 1);
        kr_fdk_plan_destroy(p);
        kr_ctx_destroy(ctx);
    }
    unsetenv("KRAY_FDK_NO_AVX512");
    free(ref);
    kr_array_destroy(proj);
    kr_array_destroy(vol);
}

static void test_backproject_brute_force(void)
{
    /* circular scan with offsets, anisotropic voxels, an offset volume, odd sizes */
    kt_cone c;
    kt_cone_default(&c, 12, 1.0, 23);
    c.grid.n[0] = 21, c.grid.n[1] = 17, c.grid.n[2] = 13;
    c.grid.voxel_mm[0] = 0.9, c.grid.voxel_mm[1] = 1.1, c.grid.voxel_mm[2] = 1.3;
    c.grid.offset_mm[0] = 1.5, c.grid.offset_mm[1] = -0.7, c.grid.offset_mm[2] = 2.1;
    c.nu = 37, c.nv = 29;
    c.pitch_u = 1.7, c.pitch_v = 2.3;
    c.off_u = 3.1, c.off_v = -2.2, c.cor = 0.6, c.start_deg = 10, c.arc_deg = 250;
    kr_ct_view *v = kt_cone_views(&c);
    check_backproject(v, c.nviews, c.nu, c.nv, &c.grid, 1);
    /* a tilted detector (v not along z): the general path */
    for (int64_t m = 0; m < c.nviews; m++) {
        double t = 0.15;
        double u0[3] = {v[m].u[0], v[m].u[1], v[m].u[2]}, v0[3] = {v[m].v[0], v[m].v[1], v[m].v[2]};
        for (int d = 0; d < 3; d++) {
            v[m].u[d] = cos(t) * u0[d] + sin(t) * v0[d] * c.pitch_u / c.pitch_v;
            v[m].v[d] = cos(t) * v0[d] - sin(t) * u0[d] * c.pitch_v / c.pitch_u;
        }
    }
    check_backproject(v, c.nviews, c.nu, c.nv, &c.grid, 0);
    free(v);
}

/* ---- FDK of exact projections --------------------------------------------------------------- */
static double slice_nrmse(const kr_array *vol, const kr_array *ref, int64_t k)
{
    kr_array *a = kt_slice(vol, k), *b = kt_slice(ref, k);
    double e = NAN;
    KT_OK(kr_nrmse(NULL, a, b, &e));
    kr_array_destroy(a);
    kr_array_destroy(b);
    return e;
}

static void test_shepp_logan(void)
{
    kt_cone c;
    kt_cone_default(&c, 64, 1.0, 120);
    kr_array *proj = kt_cone_project_sl(&c);
    kr_ctx *ctx = ctx_cpu(2);
    kr_array *vol = kt_fdk(ctx, &c, NULL, proj);
    kr_array *ref = NULL;
    KT_OK(kr_phantom_3d(&ref, KR_PHANTOM_MODIFIED_SL, 64, 64, 64, 3, KR_F32));
    if (vol) {
        double e32 = slice_nrmse(vol, ref, 32), e20 = slice_nrmse(vol, ref, 20);
        double e44 = slice_nrmse(vol, ref, 44);
        printf("  Shepp-Logan 64^3, 120 views: NRMSE slice 32 %.4f, 20 %.4f, 44 %.4f\n", e32, e20,
               e44);
        KT_LE(e32, 0.21);
        KT_LE(e20, 0.22);
        KT_LE(e44, 0.22);
    }
    kr_array_destroy(vol);
    kr_array_destroy(ref);
    kr_array_destroy(proj);
    kr_ctx_destroy(ctx);
}

/* Radial profile of the central slice of a ball reconstruction: annuli 1 voxel wide about the
 * axis up to rmax voxels; mean and standard deviation per annulus. */
static int ball_profile(const kr_array *vol, int rmax, double *mean, double *sd)
{
    const int64_t nx = vol->dims[0], ny = vol->dims[1], k = vol->dims[2] / 2;
    const float *x = (const float *)vol->data + k * nx * ny;
    double s[64] = {0}, s2[64] = {0};
    int n[64] = {0};
    for (int64_t j = 0; j < ny; j++)
        for (int64_t i = 0; i < nx; i++) {
            double r = hypot((double)i - 0.5 * (double)(nx - 1), (double)j - 0.5 * (double)(ny - 1));
            int a = (int)r;
            if (a >= rmax) continue;
            s[a] += x[i + nx * j];
            s2[a] += (double)x[i + nx * j] * x[i + nx * j];
            n[a]++;
        }
    for (int a = 0; a < rmax; a++) {
        mean[a] = s[a] / n[a];
        sd[a] = sqrt(fmax(0, s2[a] / n[a] - mean[a] * mean[a]));
    }
    return rmax;
}

static void test_ball_scale_and_rings(void)
{
    /* A uniform ball of 0.02 / mm, radius 0.7 * 32 = 22.4 mm. Inside r < 14 voxels (0.6 of the
     * radius; further out the Ram-Lak filter's Gibbs ripple of period 2 voxels from the edge
     * reaches 0.4%) every 1-voxel annulus of the central slice must have its mean within 0.5%
     * of the density (the scale, and no ring pattern of the ray-driven kind) and a standard
     * deviation under 0.5% of it. */
    kt_cone c;
    kt_cone_default(&c, 64, 1.0, 120);
    const double rho = 0.02;
    kr_ellipsoid e = {rho, 0.7, 0.7, 0.7, 0, 0, 0, 0};
    kr_array *proj = kt_cone_project(&c, &e, 1);
    kr_ctx *ctx = ctx_cpu(2);
    kr_array *vol = kt_fdk(ctx, &c, NULL, proj);
    if (vol) {
        double mean[64], sd[64], wm = 0, wsd = 0;
        int n = ball_profile(vol, 14, mean, sd);
        for (int a = 0; a < n; a++) {
            wm = fmax(wm, fabs(mean[a] - rho) / rho);
            wsd = fmax(wsd, sd[a] / rho);
        }
        printf("  ball, annuli 1 voxel wide to r 14: |mean - rho| / rho <= %.5f, std / rho <= "
               "%.5f\n", wm, wsd);
        KT_LE(wm, 0.005);
        KT_LE(wsd, 0.005);
    }
    kr_array_destroy(vol);
    kr_array_destroy(proj);
    kr_ctx_destroy(ctx);
}

static void test_short_scan(void)
{
    /* fan angle of this geometry: 2 atan(95 / 512) = 21.0 degrees; scan 210 degrees */
    kt_cone c, s;
    kt_cone_default(&c, 64, 1.0, 120);
    s = c;
    s.nviews = 80;
    s.arc_deg = 210.0 * 80 / 79; /* views from 0 to 210 degrees inclusive */
    s.start_deg = 30;
    kr_array *pf = kt_cone_project_sl(&c), *ps = kt_cone_project_sl(&s);
    kr_ctx *ctx = ctx_cpu(2);
    kr_array *vf = kt_fdk(ctx, &c, NULL, pf), *vs = kt_fdk(ctx, &s, NULL, ps);
    kr_array *ref = NULL;
    KT_OK(kr_phantom_3d(&ref, KR_PHANTOM_MODIFIED_SL, 64, 64, 64, 3, KR_F32));
    kr_ct_view *v = kt_cone_views(&s);
    kr_fdk_plan *p = NULL;
    KT_OK(kr_fdk_plan_create_views(&p, ctx, s.nu, s.nv, v, s.nviews, &s.grid, NULL));
    kr_fdk_info info;
    KT_OK(kr_fdk_plan_info(p, &info));
    KT_CHECK(info.short_scan == 1);
    KT_NEAR(info.arc_deg, 210, 1e-9);
    KT_NEAR(info.fan_deg, 2 * atan(95.0 / 512) * 180 / KT_PI, 1e-6);
    if (vf && vs) {
        double es = slice_nrmse(vs, ref, 32), ef = slice_nrmse(vf, ref, 32);
        double d = slice_nrmse(vs, vf, 32);
        printf("  short scan 210 deg: NRMSE vs phantom %.4f (full scan %.4f), vs full scan %.4f\n",
               es, ef, d);
        KT_LE(es, 0.22);
        KT_LE(d, 0.1);
    }
    /* scale with Parker weights: a uniform ball */
    kr_ellipsoid e = {0.02, 0.7, 0.7, 0.7, 0, 0, 0, 0};
    kr_array *pb = kt_cone_project(&s, &e, 1);
    kr_array *vb = kt_fdk(ctx, &s, NULL, pb);
    if (vb) {
        double mean[64], sd[64], wm = 0;
        int n = ball_profile(vb, 14, mean, sd);
        for (int a = 0; a < n; a++) wm = fmax(wm, fabs(mean[a] - 0.02) / 0.02);
        printf("  short-scan ball, annuli to r 14: |mean - rho| / rho <= %.5f\n", wm);
        KT_LE(wm, 0.01);
    }
    kr_array_destroy(pb);
    kr_array_destroy(vb);
    /* the same views with full-scan weights forced: clearly worse */
    kr_fdk_opts o;
    kr_fdk_opts_default(&o);
    o.short_scan = 0;
    kr_array *vw = kt_fdk(ctx, &s, &o, ps);
    if (vw && vs) {
        double d = slice_nrmse(vw, vf, 32);
        printf("  short scan without Parker weights vs full scan: %.4f\n", d);
        KT_GE(d, 0.15);
    }
    kr_fdk_plan_destroy(p);
    free(v);
    kr_array_destroy(vw);
    kr_array_destroy(vf);
    kr_array_destroy(vs);
    kr_array_destroy(pf);
    kr_array_destroy(ps);
    kr_array_destroy(ref);
    kr_ctx_destroy(ctx);
}

static void test_offsets(void)
{
    /* detector shifted in u and v, rotation centre off the central ray, ball off-centre */
    kt_cone c;
    kt_cone_default(&c, 48, 1.0, 90);
    c.nu = 80, c.nv = 76;
    c.off_u = 7.0, c.off_v = -5.0, c.cor = 2.5;
    kr_ellipsoid e = {0.03, 0.5, 0.5, 0.5, 0.1, -0.15, 0.05, 0};
    kr_array *proj = kt_cone_project(&c, &e, 1);
    kr_ctx *ctx = ctx_cpu(2);
    kr_array *vol = kt_fdk(ctx, &c, NULL, proj);
    kr_array *ref = NULL;
    KT_OK(kr_phantom_3d_grid(&ref, &e, 1, KR_GRID_CT, 48, 48, 48, 3, KR_F32));
    if (vol) {
        /* interior of the ball: within 1% of its density */
        const float *x = vol->data;
        double s = 0;
        int n = 0;
        for (int64_t k = 20; k < 28; k++)
            for (int64_t j = 14; j < 22; j++)
                for (int64_t i = 22; i < 30; i++) {
                    s += x[i + 48 * (j + 48 * k)];
                    n++;
                }
        double e24 = slice_nrmse(vol, ref, 24);
        printf("  offsets: interior mean %.6f (density 0.03), NRMSE slice 24 %.4f\n", s / n, e24);
        KT_NEAR(s / n, 0.03, 0.0003);
        KT_LE(e24, 0.2);
    }
    kr_array_destroy(vol);
    kr_array_destroy(ref);
    kr_array_destroy(proj);
    kr_ctx_destroy(ctx);
}

static void test_wide_cone(void)
{
    /* Source 1.2 n voxels from the axis: the cylinder inscribed in the volume fills a fan of
     * +-24.6 degrees (the cosine weight falls to 0.91 at its edge). A ball of radius 6 mm with
     * its centre at (15.6, -2.4, 2.4) mm, seen by rays up to 22 degrees off the central ray:
     * inside it, FDK must give the density within 0.8% (the mean over a 5^3 box at its centre;
     * 0.2% measured, 1.7% without the cosine weight) and every voxel of the box within 1.8%
     * (0.9% measured, 3.4% without it). */
    kt_cone c;
    const int64_t n = 48;
    kt_cone_default(&c, n, 1.0, 180);
    c.sod = 1.2 * (double)n, c.sdd = 2.0 * c.sod;
    c.nu = 108, c.nv = 48;
    const double rho = 0.02, half = 0.5 * (double)n;
    kr_ellipsoid e = {rho, 0.25, 0.25, 0.25, 0.65, -0.1, 0.1, 0};
    kr_array *proj = kt_cone_project(&c, &e, 1);
    kr_ctx *ctx = ctx_cpu(2);
    kr_array *vol = kt_fdk(ctx, &c, NULL, proj);
    if (vol) {
        /* the ball's centre in voxel indices: (x / half) * half + (n - 1) / 2 */
        const int64_t ci = (int64_t)lround(e.x0 * half + 0.5 * (double)(n - 1));
        const int64_t cj = (int64_t)lround(e.y0 * half + 0.5 * (double)(n - 1));
        const int64_t ck = (int64_t)lround(e.z0 * half + 0.5 * (double)(n - 1));
        const float *x = vol->data;
        double sum = 0, worst = 0;
        int cnt = 0;
        for (int64_t k = ck - 2; k <= ck + 2; k++)
            for (int64_t j = cj - 2; j <= cj + 2; j++)
                for (int64_t i = ci - 2; i <= ci + 2; i++) {
                    const double y = x[i + n * (j + n * k)];
                    sum += y;
                    worst = fmax(worst, fabs(y - rho) / rho);
                    cnt++;
                }
        printf("  wide cone (fan +-24.6 deg), ball near its edge: interior mean %.6f (density "
               "%.2f), worst voxel %.4f of the density off\n",
               sum / cnt, rho, worst);
        KT_NEAR(sum / cnt, rho, 0.008 * rho);
        KT_LE(worst, 0.018);
    }
    kr_array_destroy(vol);
    kr_array_destroy(proj);
    kr_ctx_destroy(ctx);
}

static void test_filters(void)
{
    /* FFT (Ram-Lak window) and direct convolution compute the same filter; every window keeps
     * the scale (its gain at zero frequency is 1) */
    kt_cone c;
    kt_cone_default(&c, 40, 1.0, 72);
    kr_ellipsoid e = {0.02, 0.7, 0.7, 0.7, 0, 0, 0, 0};
    kr_array *proj = kt_cone_project(&c, &e, 1);
    kr_ctx *ctx = ctx_cpu(2);
    kr_fdk_opts o;
    kr_fdk_opts_default(&o);
    kr_array *vf = kt_fdk(ctx, &c, &o, proj);
    o.filter = KR_FILTER_DIRECT;
    kr_array *vd = kt_fdk(ctx, &c, &o, proj);
    double r = 0, d = vf && vd ? kt_maxdiff(vf, vd, &r) : 1;
    printf("  fft vs direct filter: max |diff| / max %.3g\n", d / r);
    KT_LE(d, 1e-5 * r);
    for (int w = 1; w <= 5; w++) {
        kr_fdk_opts_default(&o);
        if (w == 5) {
            o.filter = KR_FILTER_SEED; /* Cordeiro (2017)'s seed kernel, with its constant */
        } else {
            o.window = (kr_filter_window)w;
            o.cutoff = w == 4 ? 0.8 : 1.0;
        }
        kr_array *v = kt_fdk(ctx, &c, &o, proj);
        if (!v) continue;
        double mean[64], sd[64], wm = 0;
        int n = ball_profile(v, 8, mean, sd);
        for (int a = 0; a < n; a++) wm = fmax(wm, fabs(mean[a] - 0.02) / 0.02);
        printf("  %s: ball annuli to r 8 within %.5f of the density\n",
               w == 5 ? "seed kernel" : kr_filter_window_name(o.window), wm);
        KT_LE(wm, 0.005);
        kr_array_destroy(v);
    }
    kr_fdk_opts_default(&o);
    o.filter = KR_FILTER_DIRECT;
    o.window = KR_WINDOW_HANN;
    kr_ct_view *v = kt_cone_views(&c);
    kr_fdk_plan *p = NULL;
    KT_STATUS(kr_fdk_plan_create_views(&p, ctx, c.nu, c.nv, v, c.nviews, &c.grid, &o),
              KR_ERR_INVALID_ARG);
    free(v);
    kr_array_destroy(vf);
    kr_array_destroy(vd);
    kr_array_destroy(proj);
    kr_ctx_destroy(ctx);
}

static void test_cone_geometry(void)
{
    /* kray/ct.h's circular cone scan and its exact projections against this test's own */
    kt_cone c;
    kt_cone_default(&c, 32, 1.0, 40);
    c.off_u = 2.0, c.off_v = -1.5, c.cor = 0.7;
    kr_ct_scan sc;
    kr_ct_scan_default(&sc);
    sc.type = KR_CT_CONE;
    sc.nviews = c.nviews;
    sc.start_deg = 0;
    sc.stop_deg = 360;
    sc.det_count = c.nu;
    sc.det_rows = c.nv;
    sc.det_spacing_mm = c.pitch_u;
    sc.det_spacing_v_mm = c.pitch_v;
    sc.det_offset_mm = c.off_u;
    sc.det_offset_v_mm = c.off_v;
    sc.cor_offset_mm = c.cor;
    sc.sod_mm = c.sod;
    sc.sdd_mm = c.sdd;
    kr_ct_geom *g = NULL;
    KT_OK(kr_ct_geom_create(&g, &sc, &c.grid));
    kr_ctx *ctx = ctx_cpu(2);
    kr_array *pa = kt_cone_project_sl(&c), *pb = NULL;
    KT_OK(kr_ct_phantom_projections(&pb, ctx, g, KR_PHANTOM_MODIFIED_SL, 1, KR_F32));
    double r = 0, d = pb ? kt_maxdiff(pa, pb, &r) : 1;
    printf("  exact projections, kray/ct.h vs this test: max |diff| %.3g of max %.3g\n", d, r);
    KT_LE(d, 1e-4 * r);
    kr_array *va = kt_fdk(ctx, &c, NULL, pa), *vb = kt_vol(&c);
    KT_OK(kr_fdk(ctx, g, NULL, pa, vb));
    d = va ? kt_maxdiff(vb, va, &r) : 1;
    printf("  FDK from the kr_ct_geom vs from the test's views: max |diff| %.3g of max %.3g\n", d,
           r);
    KT_LE(d, 1e-5 * r);
    /* 2-D geometries are refused */
    kr_ct_scan s2;
    kr_ct_scan_default(&s2);
    s2.det_count = 16;
    kr_ct_grid g2;
    kr_ct_grid_2d(&g2, 8, 8, 1.0);
    kr_ct_geom *gp = NULL;
    KT_OK(kr_ct_geom_create(&gp, &s2, &g2));
    kr_fdk_plan *p = NULL;
    KT_STATUS(kr_fdk_plan_create(&p, ctx, gp, NULL), KR_ERR_GEOMETRY);
    KT_STATUS(kr_fdk_plan_create(&p, ctx, NULL, NULL), KR_ERR_INVALID_ARG);
    kr_ct_geom_destroy(gp);
    kr_ct_geom_destroy(g);
    kr_array_destroy(pa);
    kr_array_destroy(pb);
    kr_array_destroy(va);
    kr_array_destroy(vb);
    kr_ctx_destroy(ctx);
}

/* ---- determinism ------------------------------------------------------------------------------ */
static int same_bits(const kr_array *a, const kr_array *b)
{
    return a && b && memcmp(a->data, b->data, kr_array_bytes(a)) == 0;
}

static void test_deterministic(void)
{
    kt_cone c;
    kt_cone_default(&c, 40, 1.0, 37);
    c.grid.n[2] = 35;
    kr_array *proj = kt_cone_project_sl(&c);
    kr_ctx *c1 = ctx_cpu(1), *c2 = ctx_cpu(2), *c3 = ctx_cpu(3);
    kr_array *v1 = kt_fdk(c1, &c, NULL, proj), *v2 = kt_fdk(c2, &c, NULL, proj);
    kr_array *v3 = kt_fdk(c3, &c, NULL, proj);
    KT_CHECK(same_bits(v1, v2));
    KT_CHECK(same_bits(v1, v3));
    /* views in batches of 5 (the CPU's out-of-core path) */
    kr_fdk_opts o;
    kr_fdk_opts_default(&o);
    o.batch_views = 5;
    kr_array *v4 = kt_fdk(c2, &c, &o, proj);
    KT_CHECK(same_bits(v1, v4));
    kr_array_destroy(v1);
    kr_array_destroy(v2);
    kr_array_destroy(v3);
    kr_array_destroy(v4);
    kr_array_destroy(proj);
    kr_ctx_destroy(c1);
    kr_ctx_destroy(c2);
    kr_ctx_destroy(c3);
}

/* ---- bad input -------------------------------------------------------------------------------- */
static void test_bad_input(void)
{
    kt_cone c;
    kt_cone_default(&c, 16, 1.0, 20);
    kr_ct_view *v = kt_cone_views(&c);
    kr_ctx *ctx = ctx_cpu(2);
    kr_fdk_plan *p = NULL;
    kr_fdk_opts o;
    KT_STATUS(kr_fdk_plan_create_views(NULL, ctx, c.nu, c.nv, v, c.nviews, &c.grid, NULL),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fdk_plan_create_views(&p, NULL, c.nu, c.nv, v, c.nviews, &c.grid, NULL),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fdk_plan_create_views(&p, ctx, c.nu, c.nv, NULL, c.nviews, &c.grid, NULL),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fdk_plan_create_views(&p, ctx, c.nu, c.nv, v, c.nviews, NULL, NULL),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fdk_plan_create_views(&p, ctx, 0, c.nv, v, c.nviews, &c.grid, NULL), KR_ERR_DIM);
    KT_STATUS(kr_fdk_plan_create_views(&p, ctx, c.nu, -3, v, c.nviews, &c.grid, NULL), KR_ERR_DIM);
    KT_STATUS(kr_fdk_plan_create_views(&p, ctx, c.nu, c.nv, v, 0, &c.grid, NULL), KR_ERR_DIM);
    KT_CHECK(p == NULL);
    kr_ct_grid g = c.grid;
    g.voxel_mm[1] = 0;
    KT_STATUS(kr_fdk_plan_create_views(&p, ctx, c.nu, c.nv, v, c.nviews, &g, NULL),
              KR_ERR_GEOMETRY);
    g = c.grid;
    g.n[2] = 0;
    KT_STATUS(kr_fdk_plan_create_views(&p, ctx, c.nu, c.nv, v, c.nviews, &g, NULL),
              KR_ERR_GEOMETRY);
    /* options */
    kr_fdk_opts_default(&o);
    o.dtype = KR_F64;
    KT_STATUS(kr_fdk_plan_create_views(&p, ctx, c.nu, c.nv, v, c.nviews, &c.grid, &o),
              KR_ERR_DTYPE);
    kr_fdk_opts_default(&o);
    o.cutoff = 0;
    KT_STATUS(kr_fdk_plan_create_views(&p, ctx, c.nu, c.nv, v, c.nviews, &c.grid, &o),
              KR_ERR_INVALID_ARG);
    kr_fdk_opts_default(&o);
    o.short_scan = 2;
    KT_STATUS(kr_fdk_plan_create_views(&p, ctx, c.nu, c.nv, v, c.nviews, &c.grid, &o),
              KR_ERR_INVALID_ARG);
    kri_fdk_tune tune;
    kri_fdk_tune_default(&tune);
    tune.fuse = -2;
    KT_STATUS(kri_fdk_plan_create_views_tuned(&p, ctx, c.nu, c.nv, v, c.nviews, &c.grid, NULL,
                                              &tune),
              KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "fuse") != NULL);
    kri_fdk_tune_default(&tune);
    tune.kernel = KRI_FDK_KERNEL_COUNT;
    KT_STATUS(kri_fdk_plan_create_views_tuned(&p, ctx, c.nu, c.nv, v, c.nviews, &c.grid, NULL,
                                              &tune),
              KR_ERR_INVALID_ARG);
    kr_fdk_opts_default(&o);
    o.gpu_mem = -1;
    KT_STATUS(kr_fdk_plan_create_views(&p, ctx, c.nu, c.nv, v, c.nviews, &c.grid, &o),
              KR_ERR_INVALID_ARG);
    /* geometry: degenerate views */
    kr_ct_view saved = v[3];
    v[3].det[0] = v[3].src[0], v[3].det[1] = v[3].src[1], v[3].det[2] = v[3].src[2];
    KT_STATUS(kr_fdk_plan_create_views(&p, ctx, c.nu, c.nv, v, c.nviews, &c.grid, NULL),
              KR_ERR_GEOMETRY);
    v[3] = saved;
    v[4].v[0] = v[4].u[0], v[4].v[1] = v[4].u[1], v[4].v[2] = v[4].u[2];
    KT_STATUS(kr_fdk_plan_create_views(&p, ctx, c.nu, c.nv, v, c.nviews, &c.grid, NULL),
              KR_ERR_GEOMETRY);
    v[4] = saved;
    v[4] = v[3];
    v[5].u[0] = NAN;
    KT_STATUS(kr_fdk_plan_create_views(&p, ctx, c.nu, c.nv, v, c.nviews, &c.grid, NULL),
              KR_ERR_GEOMETRY);
    free(v);
    /* the source inside the volume */
    kt_cone t = c;
    t.sod = 10, t.sdd = 40;
    v = kt_cone_views(&t);
    KT_STATUS(kr_fdk_plan_create_views(&p, ctx, c.nu, c.nv, v, c.nviews, &c.grid, NULL),
              KR_ERR_GEOMETRY);
    free(v);
    /* short scans under 180 degrees */
    t = c;
    t.arc_deg = 150;
    v = kt_cone_views(&t);
    KT_STATUS(kr_fdk_plan_create_views(&p, ctx, c.nu, c.nv, v, c.nviews, &c.grid, NULL),
              KR_ERR_GEOMETRY);
    o.short_scan = 0; /* full-scan weights forced: accepted (with a warning) */
    kr_fdk_opts_default(&o);
    o.short_scan = 0;
    KT_OK(kr_fdk_plan_create_views(&p, ctx, c.nu, c.nv, v, c.nviews, &c.grid, &o));
    kr_fdk_plan_destroy(p);
    p = NULL;
    free(v);

    /* execute */
    v = kt_cone_views(&c);
    KT_OK(kr_fdk_plan_create_views(&p, ctx, c.nu, c.nv, v, c.nviews, &c.grid, NULL));
    kr_array *proj = kt_cone_project_sl(&c), *vol = kt_vol(&c), *bad = NULL;
    KT_STATUS(kr_fdk_execute(NULL, proj, vol), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fdk_execute(p, NULL, vol), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fdk_execute(p, proj, NULL), KR_ERR_INVALID_ARG);
    int64_t d1[3] = {c.nu, c.nv, c.nviews - 1};
    KT_OK(kr_array_create(&bad, KR_F32, 3, d1, KR_HOST, NULL));
    KT_STATUS(kr_fdk_execute(p, bad, vol), KR_ERR_DIM);
    KT_CHECK(strstr(kr_last_error(), "24x24x19") != NULL);
    kr_array_destroy(bad);
    int64_t d2[3] = {16, 16, 15};
    KT_OK(kr_array_create(&bad, KR_F32, 3, d2, KR_HOST, NULL));
    KT_STATUS(kr_fdk_execute(p, proj, bad), KR_ERR_DIM);
    kr_array_destroy(bad);
    KT_OK(kr_array_create(&bad, KR_F64, 3, c.grid.n, KR_HOST, NULL));
    KT_STATUS(kr_fdk_execute(p, proj, bad), KR_ERR_DTYPE);
    kr_array_destroy(bad);
    kr_array fake = *vol;
    fake.loc = KR_DEVICE;
    KT_STATUS(kr_fdk_execute(p, proj, &fake), KR_ERR_LOCATION);
    /* non-finite projections: counted, reported with the first position, volume untouched */
    float *x = proj->data;
    float *y = vol->data;
    y[7] = 42.0f;
    x[5 + c.nu * (6 + c.nv * 2)] = NAN;
    x[1 + c.nu * (2 + c.nv * 9)] = NAN;
    x[3 + c.nu * (3 + c.nv * 15)] = INFINITY;
    x[4 + c.nu * (3 + c.nv * 15)] = -INFINITY;
    KT_STATUS(kr_fdk_execute(p, proj, vol), KR_ERR_INVALID_ARG);
    printf("  %s\n", kr_last_error());
    KT_CHECK(strstr(kr_last_error(), "2 NaN and 2 infinite") != NULL);
    KT_CHECK(strstr(kr_last_error(), "u 5, v 6, view 2") != NULL);
    KT_CHECK(y[7] == 42.0f);
    KT_STATUS(kr_fdk_backproject(p, proj, vol), KR_ERR_INVALID_ARG);
    kr_array_destroy(proj);
    kr_array_destroy(vol);
    kr_fdk_plan_destroy(p);
    kr_fdk_plan_destroy(NULL);
    KT_STATUS(kr_fdk_plan_info(NULL, NULL), KR_ERR_INVALID_ARG);
    free(v);
    kr_ctx_destroy(ctx);
    /* the kernels' names, in the order of the tools' --kernel choices */
    const char *names[KRI_FDK_KERNEL_COUNT] = {"auto", "smem",   "smem32", "global",
                                               "pipe", "pipe32", "align"};
    for (int k = 0; k < KRI_FDK_KERNEL_COUNT; k++)
        KT_CHECK(!strcmp(kri_fdk_kernel_name((kri_fdk_kernel)k), names[k]));
    KT_CHECK(!strcmp(kri_fdk_kernel_name(KRI_FDK_KERNEL_COUNT), "invalid"));
}

int main(void)
{
    KT_RUN(test_backproject_brute_force);
    KT_RUN(test_shepp_logan);
    KT_RUN(test_ball_scale_and_rings);
    KT_RUN(test_short_scan);
    KT_RUN(test_offsets);
    KT_RUN(test_wide_cone);
    KT_RUN(test_filters);
    KT_RUN(test_cone_geometry);
    KT_RUN(test_deterministic);
    KT_RUN(test_bad_input);
    return kt_finish();
}
