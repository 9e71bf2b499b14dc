/* Phantom rasterisation: known values derived from the tables, brute-force sub-sampling,
 * dense-sampling convergence, 3-D volumes, point evaluation, the MR tissue phantom and dumb
 * inputs. References are computed here independently of the library code. */
#include "internal.h"
#include "kt.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Pixel centre of index i on an axis of N pixels, from the header's formulas. */
static double centre(kr_phantom_grid g, int64_t i, int64_t N)
{
    if (g == KR_GRID_FFT) return (double)(i - N / 2) * 2.0 / (double)N;
    return (double)(2 * i + 1 - N) / (double)N;
}

static double sub(kr_phantom_grid g, int64_t i, int m, int s, int64_t N)
{
    return centre(g, i, N) + (double)(2 * m + 1 - s) / ((double)s * (double)N);
}

/* Density of an ellipse list at (x, y): the defining quadratic form, written independently. */
static double density2(const kr_ellipse *e, int n, double x, double y)
{
    double v = 0;
    for (int i = 0; i < n; i++) {
        double t = e[i].phi_deg * M_PI / 180.0;
        double u = (x - e[i].x0) * cos(t) + (y - e[i].y0) * sin(t);
        double w = -(x - e[i].x0) * sin(t) + (y - e[i].y0) * cos(t);
        if ((u / e[i].a) * (u / e[i].a) + (w / e[i].b) * (w / e[i].b) <= 1.0) v += e[i].rho;
    }
    return v;
}

static double density3(const kr_ellipsoid *e, int n, double x, double y, double z)
{
    double v = 0;
    for (int i = 0; i < n; i++) {
        double t = e[i].phi_deg * M_PI / 180.0;
        double u = (x - e[i].x0) * cos(t) + (y - e[i].y0) * sin(t);
        double w = -(x - e[i].x0) * sin(t) + (y - e[i].y0) * cos(t);
        double h = z - e[i].z0;
        if ((u / e[i].a) * (u / e[i].a) + (w / e[i].b) * (w / e[i].b) +
                (h / e[i].c) * (h / e[i].c) <=
            1.0)
            v += e[i].rho;
    }
    return v;
}

static double px(const kr_array *a, int64_t i, int64_t j) { return kr_array_get_f64(a, i + a->dims[0] * j); }

static void test_tables(void)
{
    int n = -1;
    const kr_ellipse *e = kr_phantom_ellipses(KR_PHANTOM_SHEPP_LOGAN, &n);
    KT_CHECK(e != NULL && n == 10);
    KT_NEAR(e[0].rho, 2.0, 0);
    KT_NEAR(e[1].rho, -0.98, 0);
    KT_NEAR(e[1].y0, 0.0184, 0); /* y down: the literature's -0.0184 */
    e = kr_phantom_ellipses(KR_PHANTOM_MODIFIED_SL, &n);
    KT_CHECK(e != NULL && n == 10);
    KT_NEAR(e[0].rho + e[1].rho, 0.2, 1e-15);
    const kr_ellipsoid *s = kr_phantom_ellipsoids(KR_PHANTOM_SHEPP_LOGAN, &n);
    KT_CHECK(s != NULL && n == 10);
    KT_NEAR(s[4].c, 0.5, 0);
    n = 5;
    KT_CHECK(kr_phantom_ellipses((kr_phantom_kind)7, &n) == NULL && n == 0);
    n = 5;
    KT_CHECK(kr_phantom_ellipsoids((kr_phantom_kind)-1, &n) == NULL && n == 0);
    KT_CHECK(kr_phantom_ellipses(KR_PHANTOM_SHEPP_LOGAN, NULL) != NULL);
}

/* Values at chosen points, derived from the tables by hand (kray's y points down, so the
 * literature's y values change sign):
 *   (0, 0):    inside ellipses 1 (2) and 2 (-0.98); ellipse 3 (centre 0.22, semi-axis 0.11
 *              across) does not reach it -> 1.02 (modified: 1 - 0.8 = 0.2)
 *   (0, -0.08): plus ellipse 6 (radius 0.046 at (0, -0.1)) -> 1.03 (modified 0.3); (0, -0.1)
 *              itself lies exactly on the boundary of ellipse 5 (-0.35 + 0.25), so avoid it
 *   (0.22, 0): centre of ellipse 3 -> 2 - 0.98 - 0.02 = 1.00 (modified 0.0)
 *   (0, -0.35): centre of ellipse 5 -> 1.03 (modified 0.3)
 *   (0, -0.9): ellipse 1 only (ellipse 2 ends at -0.874 + 0.0184) -> 2.0 (modified 1.0)
 *   (0.9, -0.9): outside -> 0.
 * On the FFT grid with N = 200 these are pixel centres: index = 100 + 100 x. */
static void test_known_values(void)
{
    const double xs[6] = {0, 0, 0.22, 0, 0, 0.9}, ys[6] = {0, -0.08, 0, -0.35, -0.9, -0.9};
    const double orig[6] = {1.02, 1.03, 1.00, 1.03, 2.0, 0.0};
    const double modi[6] = {0.2, 0.3, 0.0, 0.3, 1.0, 0.0};
    for (int kind = 0; kind < 2; kind++) {
        int n;
        const kr_ellipse *e = kr_phantom_ellipses((kr_phantom_kind)kind, &n);
        const double *want = kind ? modi : orig;
        for (int ss = 1; ss <= 3; ss += 2) {
            kr_array *a = NULL;
            KT_OK(kr_phantom_2d_grid(&a, e, n, KR_GRID_FFT, 200, 200, ss, KR_F64));
            if (!a) return;
            for (int p = 0; p < 6; p++) {
                int64_t i = 100 + (int64_t)lround(100 * xs[p]), j = 100 + (int64_t)lround(100 * ys[p]);
                KT_NEAR(px(a, i, j), want[p], 1e-12);
            }
            kr_array_destroy(a);
        }
        double xy[12], v[6];
        for (int p = 0; p < 6; p++) xy[2 * p] = xs[p], xy[2 * p + 1] = ys[p];
        KT_OK(kr_phantom_eval_2d(e, n, xy, 6, v));
        for (int p = 0; p < 6; p++) KT_NEAR(v[p], want[p], 1e-12);
    }
    /* CT grid with odd N has a pixel centre at the origin (index 50 of 101). */
    kr_array *a = NULL;
    KT_OK(kr_phantom_2d(&a, KR_PHANTOM_SHEPP_LOGAN, 101, 101, 1, KR_F32));
    if (a) {
        KT_CHECK(a->dtype == KR_F32 && a->dims[0] == 101 && a->dims[1] == 101);
        KT_NEAR(px(a, 50, 50), 1.02, 1e-6);
        KT_NEAR(px(a, 0, 0), 0.0, 0);
    }
    kr_array_destroy(a);
    /* Row j increases with +y, which points down: ellipse 5 (the top of the head, y = -0.35)
     * is in rows j < 100, the three small ellipses (the bottom, y = +0.605) in rows j > 100.
     * N = 200 CT grid: y_j = (2j + 1 - 200)/200. */
    KT_OK(kr_phantom_2d(&a, KR_PHANTOM_MODIFIED_SL, 200, 200, 1, KR_F64));
    if (a) {
        KT_NEAR(px(a, 100, 65), 0.3, 1e-12);  /* y = -0.345 */
        KT_NEAR(px(a, 100, 134), 0.2, 1e-12); /* y = 0.345 */
        KT_NEAR(px(a, 100, 160), 0.3, 1e-12); /* y = 0.605 inside ellipse 9 */
    }
    kr_array_destroy(a);
}

/* A set with rotated, overlapping, off-centre and negative ellipses. */
static const kr_ellipse mixed[5] = {
    {1.0, 0.7, 0.5, 0.05, -0.1, 25.0},
    {-0.4, 0.3, 0.12, -0.2, 0.1, -60.0},
    {0.7, 0.2, 0.2, 0.3, 0.2, 0.0},
    {0.25, 0.08, 0.35, 0.1, -0.3, 110.0},
    {2.0, 0.03, 0.05, -0.5, -0.5, 45.0},
};

/* The raster equals the mean of the documented sub-samples of the defining density. */
static void test_raster_bruteforce(void)
{
    const int64_t nx = 37, ny = 26;
    for (int set = 0; set < 2; set++) {
        int n = 5;
        const kr_ellipse *e = set ? kr_phantom_ellipses(KR_PHANTOM_SHEPP_LOGAN, &n) : mixed;
        for (int g = 0; g < 2; g++)
            for (int s = 1; s <= 4; s++) {
                kr_array *a = NULL;
                KT_OK(kr_phantom_2d_grid(&a, e, n, (kr_phantom_grid)g, nx, ny, s, KR_F64));
                if (!a) return;
                double worst = 0;
                for (int64_t j = 0; j < ny; j++)
                    for (int64_t i = 0; i < nx; i++) {
                        double acc = 0;
                        for (int my = 0; my < s; my++)
                            for (int mx = 0; mx < s; mx++)
                                acc += density2(e, n, sub((kr_phantom_grid)g, i, mx, s, nx),
                                                sub((kr_phantom_grid)g, j, my, s, ny));
                        acc /= (double)(s * s);
                        double d = fabs(acc - px(a, i, j));
                        if (d > worst) worst = d;
                    }
                KT_LE(worst, 1e-12);
                kr_array_destroy(a);
            }
    }
}

/* Convergence to the continuous object: s = 8 against dense point sampling (48^2 per pixel),
 * and the image integral against the exact sum of rho pi a b. */
static void test_raster_dense(void)
{
    const int64_t N = 48;
    const int dense = 48;
    kr_array *a = NULL;
    KT_OK(kr_phantom_2d_grid(&a, mixed, 5, KR_GRID_CT, N, N, 8, KR_F64));
    if (!a) return;
    double exact = 0;
    for (int i = 0; i < 5; i++) exact += mixed[i].rho * M_PI * mixed[i].a * mixed[i].b;
    double sum = 0, sumd = 0, maxd = 0, meand = 0;
    for (int64_t j = 0; j < N; j++)
        for (int64_t i = 0; i < N; i++) {
            double acc = 0;
            for (int my = 0; my < dense; my++)
                for (int mx = 0; mx < dense; mx++)
                    acc += density2(mixed, 5, sub(KR_GRID_CT, i, mx, dense, N),
                                    sub(KR_GRID_CT, j, my, dense, N));
            acc /= (double)(dense * dense);
            double d = fabs(acc - px(a, i, j));
            maxd = d > maxd ? d : maxd;
            meand += d;
            sum += px(a, i, j);
            sumd += acc;
        }
    meand /= (double)(N * N);
    double area = 4.0 / (double)(N * N); /* pixel area in normalised units */
    printf("  dense: max |s8 - s48| = %.3g, mean %.3g; integral s8 %.6f, s48 %.6f, exact %.6f\n",
           maxd, meand, sum * area, sumd * area, exact);
    KT_LE(maxd, 0.25);   /* a boundary pixel: a few sub-samples of a few ellipses */
    KT_LE(meand, 2e-3);
    KT_LE(fabs(sum * area - exact), 2e-3 * fabs(exact));
    KT_LE(fabs(sumd * area - exact), 5e-4 * fabs(exact));
    kr_array_destroy(a);
}

static void test_raster_3d(void)
{
    int n;
    const kr_ellipsoid *e = kr_phantom_ellipsoids(KR_PHANTOM_SHEPP_LOGAN, &n);
    const int64_t nx = 13, ny = 12, nz = 9;
    for (int g = 0; g < 2; g++)
        for (int s = 1; s <= 2; s++) {
            kr_array *a = NULL;
            KT_OK(kr_phantom_3d_grid(&a, e, n, (kr_phantom_grid)g, nx, ny, nz, s, KR_F64));
            if (!a) return;
            KT_CHECK(a->ndim == 3 && a->dims[2] == nz);
            double worst = 0;
            for (int64_t k = 0; k < nz; k++)
                for (int64_t j = 0; j < ny; j++)
                    for (int64_t i = 0; i < nx; i++) {
                        double acc = 0;
                        for (int mz = 0; mz < s; mz++)
                            for (int my = 0; my < s; my++)
                                for (int mx = 0; mx < s; mx++)
                                    acc += density3(e, n, sub((kr_phantom_grid)g, i, mx, s, nx),
                                                    sub((kr_phantom_grid)g, j, my, s, ny),
                                                    sub((kr_phantom_grid)g, k, mz, s, nz));
                        acc /= (double)(s * s * s);
                        double d = fabs(acc - kr_array_get_f64(a, i + nx * (j + ny * k)));
                        worst = d > worst ? d : worst;
                    }
            KT_LE(worst, 1e-12);
            kr_array_destroy(a);
        }
    /* Known values of the Kak-Slaney phantom: origin 2 - 0.98 = 1.02; centre of ellipsoid 5
     * (0, -.35, -.25) 1.02 + 0.02; centre of ellipsoid 3 (-.22, 0, -.25) 1.02 - 0.02; centre of
     * ellipsoid 10 (0, -.1, .625) 1.02 - 0.02 (y down); above the head (0, 0, 0.95) 0. */
    double xyz[15] = {0, 0, 0, 0, -.35, -.25, -.22, 0, -.25, 0, -.1, .625, 0, 0, .95};
    double want[5] = {1.02, 1.04, 1.00, 1.00, 0}, v[5];
    KT_OK(kr_phantom_eval_3d(e, n, xyz, 5, v));
    for (int p = 0; p < 5; p++) KT_NEAR(v[p], want[p], 1e-12);
    kr_array *a = NULL;
    KT_OK(kr_phantom_3d(&a, KR_PHANTOM_MODIFIED_SL, 21, 21, 21, 1, KR_F32));
    if (a) KT_NEAR(kr_array_get_f64(a, 10 + 21 * (10 + 21 * 10)), 0.2, 1e-7);
    kr_array_destroy(a);
}

/* Thread count must not change a bit. */
static void test_determinism(void)
{
    int n;
    const kr_ellipse *e = kr_phantom_ellipses(KR_PHANTOM_SHEPP_LOGAN, &n);
    kr_array *a = NULL, *b = NULL;
    omp_set_num_threads(1);
    KT_OK(kr_phantom_2d_grid(&a, e, n, KR_GRID_FFT, 64, 48, 5, KR_F64));
    omp_set_num_threads(3);
    KT_OK(kr_phantom_2d_grid(&b, e, n, KR_GRID_FFT, 64, 48, 5, KR_F64));
    if (a && b) KT_CHECK(memcmp(a->data, b->data, kr_array_bytes(a)) == 0);
    kr_array_destroy(a);
    kr_array_destroy(b);
}

/* MR phantom at 1.5 T, FFT grid N = 400 (index = 200 + 200 x). Expected values from the
 * tissue table: T1 = 1000 A 1.5^C ms. */
static void test_mr(void)
{
    kr_array *a = NULL;
    KT_OK(kr_phantom_mr_2d_grid(&a, KR_GRID_FFT, 400, 400, 1, 1.5));
    if (!a) return;
    KT_CHECK(a->dtype == KR_F32 && a->ndim == 3 && a->dims[2] == 3);
    struct { double x, y, t1, t2, pd; } pts[] = {
        {0, 0, 998.1393, 100, 0.745},      /* gray matter (inside scalp, marrow, csf, gm) */
        {0, -0.9, 552.3613, 50, 0.12},     /* bone marrow ring (y down: the top) */
        {0, -0.935, 342.5070, 70, 0.80},   /* scalp only */
        {0.22, 0, 4200, 1990, 0.98},       /* right ventricle */
        {0, -0.35, 680.6681, 80, 0.617},   /* white matter */
        {0, -0.12, 1011.1668, 100, 0.95},  /* tumour overlapping white matter: smaller wins */
        {0, -0.85, 4200, 1990, 0.98},      /* csf layer between marrow and gray matter */
        {0, 0.605, 1011.1668, 100, 0.95},  /* small tumour */
        {0.9, -0.9, 0, 0, 0},              /* background */
    };
    const int64_t plane = 400 * 400;
    for (size_t p = 0; p < sizeof pts / sizeof pts[0]; p++) {
        int64_t i = 200 + (int64_t)lround(200 * pts[p].x), j = 200 + (int64_t)lround(200 * pts[p].y);
        int64_t idx = i + 400 * j;
        KT_NEAR(kr_array_get_f64(a, idx), pts[p].t1, 1e-3 + 1e-6 * pts[p].t1);
        KT_NEAR(kr_array_get_f64(a, idx + plane), pts[p].t2, 1e-4 * pts[p].t2);
        KT_NEAR(kr_array_get_f64(a, idx + 2 * plane), pts[p].pd, 1e-6);
    }
    kr_array_destroy(a);

    /* Field dependence: gray matter at 3 T = 857 * 3^0.376 ms; CSF unchanged. */
    KT_OK(kr_phantom_mr_2d_grid(&a, KR_GRID_FFT, 400, 400, 1, 3.0));
    if (a) {
        KT_NEAR(kr_array_get_f64(a, 200 + 400 * 200), 1295.3240, 2e-3);
        KT_NEAR(kr_array_get_f64(a, 244 + 400 * 200), 4200, 1e-3);
    }
    kr_array_destroy(a);

    /* Supersampling: interior pixels keep their values; a pixel straddling the csf / gray
     * matter boundary (x = 0, y = -0.864 + 0.0184 = -0.8456) has T1 and PD in between. */
    KT_OK(kr_phantom_mr_2d_grid(&a, KR_GRID_FFT, 400, 400, 4, 1.5));
    if (a) {
        KT_NEAR(kr_array_get_f64(a, 200 + 400 * 200), 998.1393, 1e-3);
        int64_t idx = 200 + 400 * 31; /* y = -0.845, pixel spans -0.850 .. -0.840 */
        double t1 = kr_array_get_f64(a, idx), pd = kr_array_get_f64(a, idx + 2 * plane);
        KT_CHECK(t1 > 1000 && t1 < 4199);
        KT_CHECK(pd > 0.746 && pd < 0.979);
        /* PD-weighted T1: sum pd T1 / sum pd with the csf fraction f from PD. */
        double f = (pd - 0.745) / (0.98 - 0.745);
        double want = (f * 0.98 * 4200 + (1 - f) * 0.745 * 998.1393) / pd;
        KT_NEAR(t1, want, 0.5);
    }
    kr_array_destroy(a);

    /* The shorthand is the CT grid at 1.5 T: odd N puts a pixel at the origin. */
    KT_OK(kr_phantom_mr_2d(&a, 101, 101, 1));
    if (a) KT_NEAR(kr_array_get_f64(a, 50 + 101 * 50), 998.1393, 1e-3);
    kr_array_destroy(a);
}

static void test_dumb_inputs(void)
{
    kr_array *a = (kr_array *)&a; /* must be reset to NULL on failure */
    int n;
    const kr_ellipse *e = kr_phantom_ellipses(KR_PHANTOM_SHEPP_LOGAN, &n);
    KT_STATUS(kr_phantom_2d(NULL, KR_PHANTOM_SHEPP_LOGAN, 8, 8, 1, KR_F32), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_2d(&a, (kr_phantom_kind)9, 8, 8, 1, KR_F32), KR_ERR_INVALID_ARG);
    KT_CHECK(a == NULL);
    KT_STATUS(kr_phantom_2d(&a, KR_PHANTOM_SHEPP_LOGAN, 0, 8, 1, KR_F32), KR_ERR_DIM);
    KT_STATUS(kr_phantom_2d(&a, KR_PHANTOM_SHEPP_LOGAN, 8, -3, 1, KR_F32), KR_ERR_DIM);
    KT_STATUS(kr_phantom_2d(&a, KR_PHANTOM_SHEPP_LOGAN, 8, 8, 0, KR_F32), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_2d(&a, KR_PHANTOM_SHEPP_LOGAN, 8, 8, 65, KR_F32), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_2d(&a, KR_PHANTOM_SHEPP_LOGAN, 8, 8, 1, KR_C64), KR_ERR_DTYPE);
    KT_STATUS(kr_phantom_2d(&a, KR_PHANTOM_SHEPP_LOGAN, 8, 8, 1, (kr_dtype)99), KR_ERR_DTYPE);
    KT_STATUS(kr_phantom_2d(&a, KR_PHANTOM_SHEPP_LOGAN, (int64_t)1 << 21, (int64_t)1 << 21, 1,
                            KR_F32),
              KR_ERR_DIM);
    KT_STATUS(kr_phantom_2d_grid(&a, e, n, (kr_phantom_grid)5, 8, 8, 1, KR_F32), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_2d_grid(&a, NULL, 3, KR_GRID_CT, 8, 8, 1, KR_F32), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_2d_grid(&a, e, 0, KR_GRID_CT, 8, 8, 1, KR_F32), KR_ERR_INVALID_ARG);
    kr_ellipse bad = {1, 0.5, 0.0, 0, 0, 0};
    KT_STATUS(kr_phantom_2d_ellipses(&a, &bad, 1, 8, 8, 1, KR_F32), KR_ERR_INVALID_ARG);
    bad.b = 0.5;
    bad.phi_deg = NAN;
    KT_STATUS(kr_phantom_2d_ellipses(&a, &bad, 1, 8, 8, 1, KR_F32), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "non-finite") != NULL);
    bad.phi_deg = 0;
    bad.rho = INFINITY;
    KT_STATUS(kr_phantom_2d_ellipses(&a, &bad, 1, 8, 8, 1, KR_F32), KR_ERR_INVALID_ARG);

    KT_STATUS(kr_phantom_3d(NULL, KR_PHANTOM_SHEPP_LOGAN, 4, 4, 4, 1, KR_F32), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_3d(&a, KR_PHANTOM_SHEPP_LOGAN, 4, 4, 0, 1, KR_F32), KR_ERR_DIM);
    KT_STATUS(kr_phantom_3d(&a, KR_PHANTOM_SHEPP_LOGAN, 4, 4, 4, -1, KR_F32), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_3d(&a, KR_PHANTOM_SHEPP_LOGAN, 4, 4, 4, 1, KR_U8), KR_ERR_DTYPE);
    kr_ellipsoid bad3 = {1, 0.5, 0.5, -1, 0, 0, 0, 0};
    KT_STATUS(kr_phantom_3d_grid(&a, &bad3, 1, KR_GRID_CT, 4, 4, 4, 1, KR_F32), KR_ERR_INVALID_ARG);
    KT_CHECK(a == NULL);

    double xy[2] = {0, 0}, v;
    KT_STATUS(kr_phantom_eval_2d(e, n, NULL, 1, &v), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_eval_2d(e, n, xy, 1, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_eval_2d(e, n, xy, 0, &v), KR_ERR_DIM);
    KT_STATUS(kr_phantom_eval_3d(NULL, 1, xy, 1, &v), KR_ERR_INVALID_ARG);

    KT_STATUS(kr_phantom_mr_2d(NULL, 8, 8, 1), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_mr_2d(&a, 0, 8, 1), KR_ERR_DIM);
    KT_STATUS(kr_phantom_mr_2d(&a, 8, 8, 0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_mr_2d_grid(&a, KR_GRID_CT, 8, 8, 1, 0.0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_mr_2d_grid(&a, KR_GRID_CT, 8, 8, 1, NAN), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_mr_2d_grid(&a, (kr_phantom_grid)-1, 8, 8, 1, 1.5), KR_ERR_INVALID_ARG);
    KT_CHECK(a == NULL);
}

int main(void)
{
    KT_RUN(test_tables);
    KT_RUN(test_known_values);
    KT_RUN(test_raster_bruteforce);
    KT_RUN(test_raster_dense);
    KT_RUN(test_raster_3d);
    KT_RUN(test_determinism);
    KT_RUN(test_mr);
    KT_RUN(test_dumb_inputs);
    return kt_finish();
}
