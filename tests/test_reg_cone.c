/* Sparse-view, low-dose cone-beam CT with TV (CPU, f32): the 3-D modified Shepp-Logan phantom
 * in a 128 mm cube of 48^3 voxels from 34 views over 360 degrees (the angular sampling of 90
 * views at 128^3), source-origin 400 mm, source-detector 600 mm, a flat detector that sees the
 * whole cube; exact (analytic) line integrals plus Gaussian noise of sigma 4 mm x 1/mm (the line
 * integrals reach 35). Against the rasterised phantom (PSNR over the voxels within 60 mm of the
 * axis and 32 mm of the central plane, range 1): TV by FISTA (40 iterations, the TV prox with
 * x >= 0, lambda 30) must beat FDK by >= 8 dB and CGLS at its best iteration by >= 3 dB.
 * 48^3 keeps the test near 20 s of CPU; `kray bench reg --cone-quality` runs the 90-view
 * 128^3 case and reports its PSNRs. KRAY_TEST_CONE_{N,VIEWS,SIGMA,LAMBDA,ITERS} override the
 * set-up (for exploring; the checks stay). */
#include "kray/fdk.h"
#include "kray/reg.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>

static int64_t NV = 48;

static kr_ct_geom *geom(int64_t n, int64_t views)
{
    kr_ct_scan sc;
    kr_ct_scan_default(&sc);
    sc.type = KR_CT_CONE;
    sc.nviews = views;
    sc.start_deg = 0;
    sc.stop_deg = 360;
    sc.det_count = n * 240 / 128;
    sc.det_rows = n * 224 / 128;
    sc.det_spacing_mm = 1.2 * 128.0 / (double)n;
    sc.sod_mm = 400;
    sc.sdd_mm = 600;
    kr_ct_grid grid;
    kr_ct_grid_3d(&grid, n, n, n, 128.0 / (double)n);
    kr_ct_geom *g = NULL;
    KT_OK(kr_ct_geom_create(&g, &sc, &grid));
    return g;
}

/* PSNR (range 1) over the voxels within 60 mm of the axis and 32 mm of the central plane. */
static double psnr(const kr_array *x, const kr_array *t, int64_t n)
{
    const float *a = x->data, *b = t->data;
    const double h = 128.0 / (double)n;
    double se = 0;
    int64_t cnt = 0;
    for (int64_t k = 0; k < n; k++)
        for (int64_t j = 0; j < n; j++)
            for (int64_t i = 0; i < n; i++) {
                const double px = (i + 0.5 - 0.5 * n) * h, py = (j + 0.5 - 0.5 * n) * h;
                const double pz = (k + 0.5 - 0.5 * n) * h;
                if (px * px + py * py > 60.0 * 60.0 || fabs(pz) > 32.0) continue;
                const int64_t p = i + n * (j + n * k);
                se += ((double)a[p] - b[p]) * ((double)a[p] - b[p]);
                cnt++;
            }
    return 10 * log10((double)cnt / se);
}

static void test_cone_tv(void)
{
    const char *env = getenv("KRAY_TEST_CONE_N");
    if (env) NV = atoi(env);
    const int64_t n = NV;
    const char *ve = getenv("KRAY_TEST_CONE_VIEWS"), *se = getenv("KRAY_TEST_CONE_SIGMA");
    const int64_t views = ve ? atoi(ve) : 34;
    const double sigma = se ? atof(se) : 4.0;
    kr_ctx *c = kt_cpu_ctx();
    const double t0 = kr_time_now();
    kr_ct_geom *g = geom(n, views);
    kr_array *y = NULL, *truth = NULL, *x = NULL, *xf = NULL;
    KT_OK(kr_ct_phantom_projections(&y, c, g, KR_PHANTOM_MODIFIED_SL, 1, KR_F32));
    KT_OK(kr_phantom_3d(&truth, KR_PHANTOM_MODIFIED_SL, n, n, n, 2, KR_F32));
    uint64_t z = 4242;
    float *yv = y->data;
    double ymax = 0;
    for (int64_t i = 0; i < kr_array_numel(y); i++) {
        ymax = fmax(ymax, yv[i]);
        const double u1 = kt_urand(&z), u2 = kt_urand(&z);
        yv[i] += (float)(sigma * sqrt(-2 * log(u1 + 1e-300)) * cos(6.283185307179586 * u2));
    }
    KT_OK(kr_array_create_like(&x, truth, KR_HOST, NULL));
    KT_OK(kr_array_create_like(&xf, truth, KR_HOST, NULL));
    KT_OK(kr_fdk(c, g, NULL, y, xf));
    const double p_fdk = psnr(xf, truth, n);
    kr_ct_projector_opts po;
    kr_ct_projector_opts_default(&po);
    kr_linop *A = NULL;
    KT_OK(kr_ct_linop_create(&A, c, g, &po));
    double p_cgls = -1e9;
    int best = 0;
    const int its[] = {2, 3, 4, 6, 9};
    for (int i = 0; i < 5; i++) {
        kr_solve_opts so;
        kr_solve_opts_default(&so);
        so.max_iter = its[i];
        so.tol = 0;
        KT_OK(kr_cgls(c, A, y, x, &so, NULL));
        const double p = psnr(x, truth, n);
        if (p > p_cgls) p_cgls = p, best = its[i];
    }
    const char *le = getenv("KRAY_TEST_CONE_LAMBDA"), *ie = getenv("KRAY_TEST_CONE_ITERS");
    const double lam = le ? atof(le) : 30.0;
    kr_prox *tv = NULL;
    KT_OK(kr_prox_tv_create(&tv, c, KR_F32, 3, truth->dims, lam, 7u, 0.0, INFINITY, 10));
    kr_reg_opts o;
    kr_reg_opts_default(&o);
    o.max_iter = ie ? atoi(ie) : 40;
    o.tol = 0;
    o.power_iter = 15;
    kr_reg_info info;
    KT_OK(kr_fista(c, A, y, tv, x, &o, &info));
    const double p_tv = psnr(x, truth, n);
    printf("%lld^3, %lld views, noise %g (line integrals up to %.0f), %.1f s: PSNR dB: FDK %.2f, "
           "CGLS best (%d it) %.2f, TV FISTA (lambda %g, %d it) %.2f\n", (long long)n,
           (long long)views, sigma, ymax, kr_time_now() - t0, p_fdk, best, p_cgls, lam,
           o.max_iter, p_tv);
    KT_GE(p_tv, p_fdk + 8);
    KT_GE(p_tv, p_cgls + 3);
    kr_prox_destroy(tv);
    kr_linop_destroy(A);
    kr_array_destroy(x), kr_array_destroy(xf), kr_array_destroy(y), kr_array_destroy(truth);
    kr_ct_geom_destroy(g);
    kr_ctx_destroy(c);
}

int main(void)
{
    KT_RUN(test_cone_tv);
    return kt_finish();
}
