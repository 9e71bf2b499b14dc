/* Density compensation: Voronoi areas on Cartesian grids (= 1) and their sum (= the clip region),
 * duplicates, radial Voronoi against the exact polar-grid cells 2 r tan(pi / 2S) and against the
 * analytic |k| weights, Pipe-Menon flatness checked by a brute-force convolution written here,
 * analytic spiral weights against Voronoi, stacks and 3-D, speed at ~50k points, dumb inputs. */
#include "mri/mri_internal.h"
#include "kt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static double wv(const kr_array *w, int64_t i) { return kr_array_get_f64(w, i); }
static double kv(const kr_array *t, int64_t i, int d) { return kr_array_get_f64(t, 3 * i + d); }

static kr_array *dcf(const kr_array *t, const kr_dcf_opts *o, kr_dcf_info *info)
{
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
    kr_array *w = NULL;
    KT_OK(kr_dcf(&w, c, t, o, info));
    kr_ctx_destroy(c);
    return w;
}

static void test_voronoi_cartesian(void)
{
    kr_array *t = NULL;
    KT_OK(kr_traj_cartesian(&t, 16, 12, 1, KR_F32));
    kr_dcf_opts o;
    kr_dcf_opts_default(&o);
    o.boundary = KR_DCF_SQUARE;
    kr_dcf_info info;
    kr_array *w = dcf(t, &o, &info);
    if (!w) return;
    KT_CHECK(w->dtype == KR_F32 && w->ndim == 2 && w->dims[0] == 16 && w->dims[1] == 12);
    double emax = 0;
    for (int64_t i = 0; i < 192; i++) emax = fmax(emax, fabs(wv(w, i) - 1.0));
    KT_LE(emax, 1e-6);
    KT_NEAR(info.total, 192.0, 1e-9);
    KT_NEAR(info.support, 192.0, 1e-12);
    KT_CHECK(info.clipped == 2 * 16 + 2 * 12 - 4 && info.duplicates == 0);
    kr_array_destroy(w);
    /* disk: interior cells are 1, the sum is the disk area */
    kr_dcf_opts_default(&o);
    w = dcf(t, &o, &info);
    double rmax = sqrt(8.0 * 8.0 + 6.0 * 6.0), R = rmax + 0.5;
    KT_NEAR(info.support, PI * R * R, 1e-9);
    KT_NEAR(info.total, PI * R * R, 1e-6 * PI * R * R);
    emax = 0;
    for (int64_t i = 0; i < 192; i++) {
        double x = kv(t, i, 0), y = kv(t, i, 1);
        if (fabs(x) <= 6 && fabs(y) <= 4) emax = fmax(emax, fabs(wv(w, i) - 1.0));
    }
    KT_LE(emax, 1e-6);
    kr_array_destroy(w);
    /* explicit square half-width */
    kr_dcf_opts_default(&o);
    o.boundary = KR_DCF_SQUARE, o.radius = 10;
    w = dcf(t, &o, &info);
    KT_NEAR(info.total, 400.0, 1e-9);
    kr_array_destroy(w);
    kr_array_destroy(t);
}

static void test_voronoi_duplicates(void)
{
    /* a 6x5 grid, every point three times (and one copy moved by 1e-7 < dup_tol) */
    int64_t d[2] = {3, 90};
    kr_array *t = NULL;
    KT_OK(kr_array_create(&t, KR_F64, 2, d, KR_HOST, NULL));
    for (int64_t r = 0; r < 3; r++)
        for (int64_t i = 0; i < 30; i++) {
            double *p = (double *)t->data + 3 * (r * 30 + i);
            p[0] = (double)(i % 6 - 3) + (r == 2 ? 1e-7 : 0.0), p[1] = (double)(i / 6 - 2), p[2] = 0;
        }
    kr_dcf_opts o;
    kr_dcf_opts_default(&o);
    o.boundary = KR_DCF_SQUARE;
    kr_dcf_info info;
    kr_array *w = dcf(t, &o, &info);
    if (!w) return;
    double emax = 0;
    for (int64_t i = 0; i < 90; i++) emax = fmax(emax, fabs(wv(w, i) - 1.0 / 3.0));
    KT_LE(emax, 1e-6);
    KT_CHECK(info.duplicates == 90);
    KT_NEAR(info.total, 30.0, 1e-5);
    kr_array_destroy(w);
    kr_array_destroy(t);
}

/* Exact cells of the polar grid: 2 r tan(pi / 2S); the centre (shared by S spokes):
 * (S / 2) tan(pi / 2S) / S. Analytic weights: r pi / S and pi / 4 / S. */
static void test_voronoi_radial(void)
{
    kr_radial_opts ro;
    kr_radial_opts_default(&ro);
    ro.samples = 64, ro.spokes = 48, ro.dc = 1;
    kr_array *t = NULL;
    KT_OK(kr_traj_radial(&t, &ro));
    kr_dcf_opts o;
    kr_dcf_opts_default(&o);
    kr_dcf_info info;
    kr_array *wv_ = dcf(t, &o, &info), *wa = NULL;
    o.method = KR_DCF_RADIAL;
    wa = dcf(t, &o, NULL);
    if (!wv_ || !wa) return;
    const double x = PI / (2.0 * 48), R = 32.5;
    KT_NEAR(info.total, PI * R * R, 1e-6 * PI * R * R);
    KT_CHECK(info.duplicates == 48);
    double ev = 0, ea = 0, ta = 0;
    for (int64_t i = 0; i < 64 * 48; i++) {
        double r = hypot(kv(t, i, 0), kv(t, i, 1));
        ta += wv(wa, i);
        if (r > 30.5) continue; /* the rim cells are clipped by the disk */
        double exact = r < 0.5 ? 24.0 * tan(x) / 48.0 : 2.0 * r * tan(x);
        double analytic = r < 0.5 ? PI / 4.0 / 48.0 : r * PI / 48.0;
        ev = fmax(ev, fabs(wv(wv_, i) / exact - 1.0));
        ea = fmax(ea, fabs(wv(wa, i) / analytic - 1.0));
        KT_NEAR(wv(wv_, i) / wv(wa, i), tan(x) / x, 1e-5);
    }
    KT_LE(ev, 1e-5);
    KT_LE(ea, 1e-5);
    /* analytic total: disk of radius 31.5 + ring to the last sample (-32 on every spoke) */
    printf("  radial 64x48: Voronoi total %.2f (disk %.2f), analytic total %.2f\n", info.total,
           PI * R * R, ta);
    kr_array_destroy(wv_), kr_array_destroy(wa), kr_array_destroy(t);
    /* golden angle and symmetric spokes: every cell positive, sum = disk */
    ro.order = KR_RADIAL_GOLDEN, ro.dc = 0, ro.spokes = 89;
    KT_OK(kr_traj_radial(&t, &ro));
    kr_dcf_opts_default(&o);
    wv_ = dcf(t, &o, &info);
    double wmin = 1e30;
    for (int64_t i = 0; i < 64 * 89; i++) wmin = fmin(wmin, wv(wv_, i));
    KT_CHECK(wmin > 0);
    KT_NEAR(info.total, PI * 32.0 * 32.0, 1e-6 * PI * 32 * 32);
    kr_array_destroy(wv_), kr_array_destroy(t);
    /* stack of stars: one Voronoi diagram per kz plane */
    ro.order = KR_RADIAL_UNIFORM, ro.spokes = 16, ro.samples = 32, ro.partitions = 3;
    KT_OK(kr_traj_radial(&t, &ro));
    wv_ = dcf(t, &o, &info);
    /* R = max |k| + 1/2 from the float trajectory */
    KT_NEAR(info.support, 3 * PI * 16.0 * 16.0, 1e-5 * info.support);
    KT_NEAR(info.total, info.support, 1e-9 * info.support);
    kr_array_destroy(wv_), kr_array_destroy(t);
}

/* Brute-force sum_m w_m c(|k_j - k_m|) / integral(c) with the kernel of traj.h, written here. */
static double i0(double x)
{
    double s = 1, t = 1;
    for (int k = 1; k < 200; k++) {
        t *= (x / 2) * (x / 2) / ((double)k * k);
        s += t;
    }
    return s;
}

static void psf_at_samples(const kr_array *t, const kr_array *w, double R, double beta, int dim,
                           double *mn, double *mx, int64_t stride)
{
    int64_t m = kr_array_numel(t) / 3;
    /* integral of c over the plane / space by a fine radial quadrature */
    double integ = 0;
    const int ns = 20000;
    for (int i = 0; i < ns; i++) {
        double r = (i + 0.5) * R / ns, c = i0(beta * sqrt(1 - (r / R) * (r / R))) / i0(beta);
        integ += c * (dim == 2 ? 2 * PI * r : 4 * PI * r * r) * R / ns;
    }
    *mn = 1e30, *mx = -1e30;
    for (int64_t j = 0; j < m; j += stride) {
        double s = 0;
        for (int64_t q = 0; q < m; q++) {
            double dx = kv(t, q, 0) - kv(t, j, 0), dy = kv(t, q, 1) - kv(t, j, 1),
                   dz = kv(t, q, 2) - kv(t, j, 2);
            double d = sqrt(dx * dx + dy * dy + dz * dz);
            if (d < R) s += wv(w, q) * i0(beta * sqrt(1 - (d / R) * (d / R))) / i0(beta);
        }
        s /= integ;
        *mn = fmin(*mn, s), *mx = fmax(*mx, s);
    }
}

static void test_pipe_menon(void)
{
    kr_radial_opts ro;
    kr_radial_opts_default(&ro);
    ro.samples = 48, ro.spokes = 40, ro.dc = 1;
    kr_array *t = NULL;
    KT_OK(kr_traj_radial(&t, &ro));
    kr_dcf_opts o;
    kr_dcf_opts_default(&o);
    o.method = KR_DCF_PIPE_MENON;
    kr_dcf_info info;
    kr_array *w = dcf(t, &o, &info), *ones = NULL;
    if (!w) return;
    double mn, mx;
    psf_at_samples(t, w, 2.0, 2.34 * 4.0, 2, &mn, &mx, 7);
    printf("  Pipe-Menon radial 48x40: sum w c / int c in [%.4f, %.4f], info.flatness %.3g\n", mn,
           mx, info.flatness);
    KT_LE(mx - mn, 0.05);
    KT_NEAR(0.5 * (mn + mx), 1.0, 0.05);
    KT_LE(info.flatness, 0.05);
    KT_CHECK(info.iterations == 20);
    /* uniform weights are far from flat (the density of radial sampling falls as 1/r) */
    KT_OK(kr_array_create_like(&ones, w, KR_HOST, NULL));
    for (int64_t i = 0; i < kr_array_numel(ones); i++) ((float *)ones->data)[i] = 1.0f;
    psf_at_samples(t, ones, 2.0, 2.34 * 4.0, 2, &mn, &mx, 7);
    KT_GE(mx / mn, 10.0);
    /* interior weights agree with the analytic |k| weights */
    kr_dcf_opts_default(&o);
    o.method = KR_DCF_RADIAL;
    kr_array *wa = dcf(t, &o, NULL);
    double emax = 0;
    for (int64_t i = 0; i < 48 * 40; i++) {
        double r = hypot(kv(t, i, 0), kv(t, i, 1));
        if (r > 4 && r < 18) emax = fmax(emax, fabs(wv(w, i) / wv(wa, i) - 1));
    }
    printf("  Pipe-Menon vs analytic radial (4 < |k| < 18): max rel diff %.3g\n", emax);
    KT_LE(emax, 0.05);
    kr_array_destroy(w), kr_array_destroy(ones), kr_array_destroy(wa), kr_array_destroy(t);
    /* 3-D koosh ball: Pipe-Menon in 3-D flattens the PSF; analytic 3-D sum = ball volume */
    kr_radial_opts_default(&ro);
    ro.samples = 16, ro.spokes = 300;
    KT_OK(kr_traj_koosh(&t, &ro));
    kr_dcf_opts_default(&o);
    o.method = KR_DCF_PIPE_MENON, o.kernel_radius = 3.0;
    w = dcf(t, &o, &info);
    psf_at_samples(t, w, 3.0, 2.34 * 6.0, 3, &mn, &mx, 11);
    printf("  Pipe-Menon koosh 16x300: sum w c / int c in [%.4f, %.4f]\n", mn, mx);
    KT_LE(mx - mn, 0.1);
    kr_dcf_opts_default(&o);
    o.method = KR_DCF_RADIAL;
    wa = dcf(t, &o, &info);
    KT_NEAR(info.total, 4.0 / 3.0 * PI * 8.0 * 8.0 * 8.0, 1e-6 * 2144.66);
    kr_dcf_opts_default(&o);
    kr_array *wv3 = NULL;
    KT_STATUS(kr_dcf(&wv3, NULL, t, &o, NULL), KR_ERR_NOT_SUPPORTED); /* 3-D Voronoi */
    KT_CHECK(wv3 == NULL);
    kr_array_destroy(w), kr_array_destroy(wa), kr_array_destroy(t);
}

static void test_spiral_weights(void)
{
    kr_spiral_opts so;
    kr_spiral_opts_default(&so);
    kr_array *t = NULL;
    kr_spiral_info si;
    KT_OK(kr_traj_spiral(&t, &so, &si));
    kr_dcf_opts o;
    kr_dcf_opts_default(&o);
    kr_dcf_info iv, ia;
    kr_array *wvo = dcf(t, &o, &iv);
    o.method = KR_DCF_SPIRAL;
    kr_array *wa = dcf(t, &o, &ia);
    if (!wvo || !wa) return;
    /* compare over the interior (0.2 kmax .. 0.9 kmax) as sums over rings of samples */
    double sv = 0, sa = 0, emed = 0;
    int64_t m = kr_array_numel(wa), cnt = 0;
    double *ratio = malloc(sizeof(double) * (size_t)m);
    for (int64_t i = 0; i < m; i++) {
        double r = hypot(kv(t, i, 0), kv(t, i, 1));
        if (r < 0.2 * si.kmax || r > 0.9 * si.kmax) continue;
        sv += wv(wvo, i), sa += wv(wa, i);
        ratio[cnt++] = wv(wa, i) / wv(wvo, i);
    }
    for (int64_t i = 0; i < cnt; i++) emed += fabs(ratio[i] - 1);
    emed /= (double)cnt;
    free(ratio);
    printf("  spiral (Dantas (2015)'s case): analytic/Voronoi interior sums %.4f, mean |ratio - 1| %.3g, "
           "analytic total %.1f vs pi kmax^2 %.1f\n", sa / sv, emed, ia.total,
           PI * si.kmax * si.kmax);
    KT_NEAR(sa / sv, 1.0, 0.02);
    KT_LE(emed, 0.1);
    KT_NEAR(ia.total / (PI * si.kmax * si.kmax), 1.0, 0.02);
    kr_array_destroy(wvo), kr_array_destroy(wa), kr_array_destroy(t);
}

/* ~50k points: Voronoi and Pipe-Menon must stay fast (printed; generous bound). */
static void test_speed(void)
{
    kr_radial_opts ro;
    kr_radial_opts_default(&ro);
    ro.samples = 256, ro.spokes = 200, ro.order = KR_RADIAL_GOLDEN, ro.dc = 1;
    kr_array *t = NULL;
    KT_OK(kr_traj_radial(&t, &ro));
    kr_dcf_opts o;
    kr_dcf_opts_default(&o);
    double t0 = kr_time_now();
    kr_dcf_info info;
    kr_array *w = dcf(t, &o, &info);
    double t1 = kr_time_now();
    o.method = KR_DCF_PIPE_MENON;
    kr_array *wp = dcf(t, &o, NULL);
    double t2 = kr_time_now();
    printf("  51200 golden-angle radial samples: Voronoi %.2f s, Pipe-Menon (20 it) %.2f s\n",
           t1 - t0, t2 - t1);
    KT_NEAR(info.total, info.support, 1e-9 * info.support);
    KT_NEAR(info.support, PI * 128.5 * 128.5, 1e-5 * info.support);
    KT_LE(t1 - t0, 10.0);
    KT_LE(t2 - t1, 10.0);
    kr_array_destroy(w), kr_array_destroy(wp), kr_array_destroy(t);
}

static void test_dumb_inputs(void)
{
    kr_array *t = NULL, *w = NULL;
    KT_OK(kr_traj_cartesian(&t, 4, 4, 1, KR_F32));
    kr_dcf_opts o;
    kr_dcf_opts_default(&o);
    KT_STATUS(kr_dcf(NULL, NULL, t, &o, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_dcf(&w, NULL, NULL, &o, NULL), KR_ERR_INVALID_ARG);
    o.method = (kr_dcf_method)9;
    KT_STATUS(kr_dcf(&w, NULL, t, &o, NULL), KR_ERR_INVALID_ARG);
    kr_dcf_opts_default(&o);
    o.boundary = (kr_dcf_boundary)5;
    KT_STATUS(kr_dcf(&w, NULL, t, &o, NULL), KR_ERR_INVALID_ARG);
    kr_dcf_opts_default(&o);
    o.radius = -1;
    KT_STATUS(kr_dcf(&w, NULL, t, &o, NULL), KR_ERR_INVALID_ARG);
    kr_dcf_opts_default(&o);
    o.dup_tol = NAN;
    KT_STATUS(kr_dcf(&w, NULL, t, &o, NULL), KR_ERR_INVALID_ARG);
    kr_dcf_opts_default(&o);
    o.method = KR_DCF_PIPE_MENON, o.iterations = 0;
    KT_STATUS(kr_dcf(&w, NULL, t, &o, NULL), KR_ERR_INVALID_ARG);
    o.iterations = 5, o.kernel_radius = 0;
    KT_STATUS(kr_dcf(&w, NULL, t, &o, NULL), KR_ERR_INVALID_ARG);
    kr_dcf_opts_default(&o);
    ((float *)t->data)[5] = NAN;
    KT_STATUS(kr_dcf(&w, NULL, t, &o, NULL), KR_ERR_GEOMETRY);
    ((float *)t->data)[5] = 0;
    kr_array dev;
    int64_t d[3] = {3, 4, 4};
    KT_OK(kr_array_wrap(&dev, KR_F32, 3, d, t->data, KR_DEVICE));
    KT_STATUS(kr_dcf(&w, NULL, &dev, &o, NULL), KR_ERR_LOCATION);
    int64_t d2[2] = {2, 8};
    kr_array *t2 = NULL;
    KT_OK(kr_array_create(&t2, KR_F32, 2, d2, KR_HOST, NULL));
    KT_STATUS(kr_dcf(&w, NULL, t2, &o, NULL), KR_ERR_DIM);
    kr_array_destroy(t2);
    /* radial / spiral weights need >= 2 samples per shot */
    int64_t d3[3] = {3, 1, 8};
    KT_OK(kr_array_create(&t2, KR_F32, 3, d3, KR_HOST, NULL));
    o.method = KR_DCF_RADIAL;
    KT_STATUS(kr_dcf(&w, NULL, t2, &o, NULL), KR_ERR_DIM);
    o.method = KR_DCF_SPIRAL;
    KT_STATUS(kr_dcf(&w, NULL, t2, &o, NULL), KR_ERR_DIM);
    /* planes of constant kz with fewer than 3 points: no 2-D Voronoi diagram */
    for (int i = 0; i < 8; i++) ((float *)t2->data)[3 * i + 2] = (float)i * 0.25f;
    kr_dcf_opts_default(&o);
    KT_STATUS(kr_dcf(&w, NULL, t2, &o, NULL), KR_ERR_NOT_SUPPORTED);
    KT_CHECK(w == NULL);
    kr_array_destroy(t2);
    kr_array_destroy(t);
}

int main(void)
{
    KT_RUN(test_voronoi_cartesian);
    KT_RUN(test_voronoi_duplicates);
    KT_RUN(test_voronoi_radial);
    KT_RUN(test_pipe_menon);
    KT_RUN(test_spiral_weights);
    KT_RUN(test_speed);
    KT_RUN(test_dumb_inputs);
    return kt_finish();
}
