/* Exact projections: the 2-D sinogram and 3-D segment line integrals against fine Riemann sums
 * of the point density, closed-form single-disc cases for orientation, 2-D / 3-D consistency
 * in constant-z planes, and dumb inputs. */
#include "internal.h"
#include "kt.h"

#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Densities from the defining quadratic forms, written independently of the library; the
 * rotation's cos/sin are precomputed per ellipse (cs[2 i], cs[2 i + 1]). */
static void trig2(const kr_ellipse *e, int n, double *cs)
{
    for (int i = 0; i < n; i++)
        cs[2 * i] = cos(e[i].phi_deg * M_PI / 180.0), cs[2 * i + 1] = sin(e[i].phi_deg * M_PI / 180.0);
}

static double density2(const kr_ellipse *e, int n, const double *cs, double x, double y)
{
    double v = 0;
    for (int i = 0; i < n; i++) {
        double c = cs[2 * i], sn = cs[2 * i + 1];
        double u = (x - e[i].x0) * c + (y - e[i].y0) * sn;
        double w = -(x - e[i].x0) * sn + (y - e[i].y0) * c;
        if ((u / e[i].a) * (u / e[i].a) + (w / e[i].b) * (w / e[i].b) <= 1.0) v += e[i].rho;
    }
    return v;
}

static double density3(const kr_ellipsoid *e, int n, const double *cs, double x, double y,
                       double z)
{
    double v = 0;
    for (int i = 0; i < n; i++) {
        double c = cs[2 * i], sn = cs[2 * i + 1];
        double u = (x - e[i].x0) * c + (y - e[i].y0) * sn;
        double w = -(x - e[i].x0) * sn + (y - e[i].y0) * c;
        double h = z - e[i].z0;
        if ((u / e[i].a) * (u / e[i].a) + (w / e[i].b) * (w / e[i].b) +
                (h / e[i].c) * (h / e[i].c) <=
            1.0)
            v += e[i].rho;
    }
    return v;
}

/* Midpoint rule along the line x cos(th) + y sin(th) = s, parameter t on [-1.5, 1.5]. */
static double riemann_line(const kr_ellipse *e, int n, double th, double s, int M)
{
    double h = 3.0 / M, acc = 0, cs[64];
    trig2(e, n, cs);
    for (int m = 0; m < M; m++) {
        double t = -1.5 + (m + 0.5) * h;
        acc += density2(e, n, cs, s * cos(th) - t * sin(th), s * sin(th) + t * cos(th));
    }
    return acc * h;
}

static void test_sinogram_riemann(void)
{
    const double th[6] = {0.0, 0.3, M_PI / 2, 2.0, -1.1, 4.0};
    const double s[8] = {-0.9, -0.5, -0.21, 0.0, 0.13, 0.22, 0.6, 0.95};
    for (int kind = 0; kind < 2; kind++) {
        int n;
        const kr_ellipse *e = kr_phantom_ellipses((kr_phantom_kind)kind, &n);
        kr_array *a = NULL;
        KT_OK(kr_phantom_sinogram(&a, (kr_phantom_kind)kind, th, 6, s, 8));
        if (!a) return;
        KT_CHECK(a->dtype == KR_F64 && a->dims[0] == 8 && a->dims[1] == 6);
        double worst = 0;
        for (int v = 0; v < 6; v++)
            for (int d = 0; d < 8; d++) {
                double ref = riemann_line(e, n, th[v], s[d], 150000);
                double got = ((double *)a->data)[d + 8 * v];
                double rel = fabs(got - ref) / fmax(fabs(ref), 0.1);
                worst = rel > worst ? rel : worst;
            }
        printf("  kind %d: worst relative difference to the Riemann sums %.3g\n", kind, worst);
        KT_LE(worst, 1e-3);
        kr_array_destroy(a);
    }
}

/* Orientation on one disc of radius 0.1 at (0.5, 0) with density 1: the chord through its
 * centre is 0.2. theta = 0 integrates along y, so the peak is at s = +0.5; theta = pi/2 at
 * s = 0; theta = pi at s = -0.5; an off-centre line t = 0.06 gives 2 sqrt(0.01 - 0.0036). */
static void test_sinogram_orientation(void)
{
    kr_ellipse disc = {1.0, 0.1, 0.1, 0.5, 0.0, 0.0};
    double th[3] = {0.0, M_PI / 2, M_PI}, s[4] = {0.5, 0.0, -0.5, 0.56};
    kr_array *a = NULL;
    KT_OK(kr_phantom_sinogram_ellipses(&a, &disc, 1, th, 3, s, 4));
    if (!a) return;
    const double *p = a->data;
    KT_NEAR(p[0 + 4 * 0], 0.2, 1e-14);
    KT_NEAR(p[2 + 4 * 0], 0.0, 0);
    KT_NEAR(p[3 + 4 * 0], 2 * sqrt(0.01 - 0.0036), 1e-14);
    KT_NEAR(p[0 + 4 * 1], 0.0, 0);    /* theta = pi/2: the line y = 0.5 misses the disc */
    KT_NEAR(p[1 + 4 * 1], 0.2, 1e-14); /* y = 0 goes through its centre */
    KT_NEAR(p[2 + 4 * 2], 0.2, 1e-14); /* theta = pi: s = -0.5 is x = 0.5 */
    KT_NEAR(p[0 + 4 * 2], 0.0, 0);
    kr_array_destroy(a);
    double th2[1] = {M_PI / 2}, s2[3] = {0.0, 0.05, 0.11};
    KT_OK(kr_phantom_sinogram_ellipses(&a, &disc, 1, th2, 1, s2, 3));
    if (!a) return;
    p = a->data;
    KT_NEAR(p[0], 0.2, 1e-14);
    KT_NEAR(p[1], 2 * sqrt(0.01 - 0.0025), 1e-14);
    KT_NEAR(p[2], 0.0, 0);
    kr_array_destroy(a);
    /* An ellipse rotated by 90 degrees has its a axis along y. */
    kr_ellipse el = {2.0, 0.3, 0.1, 0.0, 0.0, 90.0}; /* long axis along y */
    double th4[2] = {0.0, M_PI / 2}, s4[1] = {0.0};
    KT_OK(kr_phantom_sinogram_ellipses(&a, &el, 1, th4, 2, s4, 1));
    if (a) {
        KT_NEAR(((double *)a->data)[0], 2.0 * 0.6, 1e-14); /* vertical ray: 2 a */
        KT_NEAR(((double *)a->data)[1], 2.0 * 0.2, 1e-14); /* horizontal ray: 2 b */
    }
    kr_array_destroy(a);
}

static double riemann_segment(const kr_ellipsoid *e, int n, const double *a, const double *b,
                              int M)
{
    double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), acc = 0, cs[64];
    for (int i = 0; i < n; i++)
        cs[2 * i] = cos(e[i].phi_deg * M_PI / 180.0), cs[2 * i + 1] = sin(e[i].phi_deg * M_PI / 180.0);
    for (int m = 0; m < M; m++) {
        double t = (m + 0.5) / M;
        acc += density3(e, n, cs, a[0] + t * d[0], a[1] + t * d[1], a[2] + t * d[2]);
    }
    return acc * len / M;
}

static void test_line_integrals_riemann(void)
{
    enum { R = 40 };
    double src[3 * R], dst[3 * R], out[R];
    for (int r = 0; r < R; r++)
        for (int c = 0; c < 3; c++) {
            /* Half the rays end inside the head, half cross it completely. */
            double span = r % 2 ? 1.2 : 0.5;
            src[3 * r + c] = span * kri_rand_sym(7, (uint64_t)(6 * r + c));
            dst[3 * r + c] = 1.2 * kri_rand_sym(7, (uint64_t)(6 * r + 3 + c));
        }
    /* A ray along z through the ventricle plane and one along x through the origin. */
    double fixed[12] = {0, -0.35, -1.2, 0, -0.35, 1.2, -1.2, 0, -0.25, 1.2, 0, -0.25};
    memcpy(src, fixed, 3 * sizeof(double));
    memcpy(dst, fixed + 3, 3 * sizeof(double));
    memcpy(src + 3, fixed + 6, 3 * sizeof(double));
    memcpy(dst + 3, fixed + 9, 3 * sizeof(double));
    for (int kind = 0; kind < 2; kind++) {
        int n;
        const kr_ellipsoid *e = kr_phantom_ellipsoids((kr_phantom_kind)kind, &n);
        KT_OK(kr_phantom_line_integrals_3d((kr_phantom_kind)kind, src, dst, R, 1.0, out));
        double worst = 0;
        for (int r = 0; r < R; r++) {
            double ref = riemann_segment(e, n, src + 3 * r, dst + 3 * r, 100000);
            double rel = fabs(out[r] - ref) / fmax(fabs(ref), 0.1);
            worst = rel > worst ? rel : worst;
        }
        printf("  kind %d: worst relative difference to the Riemann sums %.3g\n", kind, worst);
        KT_LE(worst, 1e-3);
    }
    /* Known: along z at (0, -0.35) (y down) the ray crosses ellipsoids 1, 2 (z half-chords
     * 0.9 sqrt(1 - (.35/.92)^2), 0.88 sqrt(1 - (.35/.874)^2)) and 5 (0.5, whole length 1.0). */
    double want = 2.0 * 2 * 0.9 * sqrt(1 - pow(0.35 / 0.92, 2)) -
                  0.98 * 2 * 0.88 * sqrt(1 - pow(0.35 / 0.874, 2)) + 0.02 * 1.0;
    KT_OK(kr_phantom_line_integrals_3d(KR_PHANTOM_SHEPP_LOGAN, src, dst, 1, 1.0, out));
    KT_NEAR(out[0], want, 1e-13);
    /* scale multiplies lengths; a zero-length segment gives 0. */
    KT_OK(kr_phantom_line_integrals_3d(KR_PHANTOM_SHEPP_LOGAN, src, dst, 1, 2.5, out));
    KT_NEAR(out[0], 2.5 * want, 1e-12);
    KT_OK(kr_phantom_line_integrals_3d(KR_PHANTOM_SHEPP_LOGAN, src, src, 1, 1.0, out));
    KT_NEAR(out[0], 0.0, 0);
    /* Reversing a segment does not change its integral. */
    double o1, o2;
    KT_OK(kr_phantom_line_integrals_3d(KR_PHANTOM_MODIFIED_SL, src + 9, dst + 9, 1, 1.0, &o1));
    KT_OK(kr_phantom_line_integrals_3d(KR_PHANTOM_MODIFIED_SL, dst + 9, src + 9, 1, 1.0, &o2));
    KT_NEAR(o1, o2, 1e-14);
}

/* In a plane z = zp each ellipsoid cuts an ellipse with semi-axes scaled by
 * sqrt(1 - ((zp - z0)/c)^2): long in-plane segments must match the 2-D sinogram of the cut. */
static void test_plane_consistency(void)
{
    int n;
    const kr_ellipsoid *e = kr_phantom_ellipsoids(KR_PHANTOM_SHEPP_LOGAN, &n);
    const double zps[3] = {-0.25, 0.0, 0.6};
    for (int iz = 0; iz < 3; iz++) {
        double zp = zps[iz];
        kr_ellipse cut[10];
        int m = 0;
        for (int i = 0; i < n; i++) {
            double q = (zp - e[i].z0) / e[i].c;
            if (fabs(q) >= 1) continue;
            double f = sqrt(1 - q * q);
            cut[m++] = (kr_ellipse){e[i].rho, e[i].a * f, e[i].b * f, e[i].x0, e[i].y0,
                                    e[i].phi_deg};
        }
        enum { NV = 7, ND = 9 };
        double th[NV], s[ND];
        for (int v = 0; v < NV; v++) th[v] = -0.4 + 0.77 * v;
        for (int d = 0; d < ND; d++) s[d] = -0.95 + 0.23 * d;
        kr_array *a = NULL;
        KT_OK(kr_phantom_sinogram_ellipses(&a, cut, m, th, NV, s, ND));
        if (!a) return;
        double src[3 * NV * ND], dst[3 * NV * ND], out[NV * ND];
        for (int v = 0; v < NV; v++)
            for (int d = 0; d < ND; d++) {
                int r = d + ND * v;
                double c = cos(th[v]), sn = sin(th[v]);
                src[3 * r] = s[d] * c + 3 * sn, src[3 * r + 1] = s[d] * sn - 3 * c;
                dst[3 * r] = s[d] * c - 3 * sn, dst[3 * r + 1] = s[d] * sn + 3 * c;
                src[3 * r + 2] = dst[3 * r + 2] = zp;
            }
        KT_OK(kr_phantom_line_integrals_ellipsoids(e, n, src, dst, NV * ND, 1.0, out));
        double worst = 0;
        for (int r = 0; r < NV * ND; r++) {
            double diff = fabs(out[r] - ((double *)a->data)[r]);
            worst = diff > worst ? diff : worst;
        }
        KT_LE(worst, 1e-12);
        kr_array_destroy(a);
    }
}

static void test_dumb_inputs(void)
{
    kr_array *a = (kr_array *)&a;
    double th[2] = {0, 1}, s[2] = {0, 0.5};
    KT_STATUS(kr_phantom_sinogram(NULL, KR_PHANTOM_SHEPP_LOGAN, th, 2, s, 2), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_sinogram(&a, (kr_phantom_kind)3, th, 2, s, 2), KR_ERR_INVALID_ARG);
    KT_CHECK(a == NULL);
    KT_STATUS(kr_phantom_sinogram(&a, KR_PHANTOM_SHEPP_LOGAN, NULL, 2, s, 2), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_sinogram(&a, KR_PHANTOM_SHEPP_LOGAN, th, 2, NULL, 2), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_sinogram(&a, KR_PHANTOM_SHEPP_LOGAN, th, 0, s, 2), KR_ERR_DIM);
    KT_STATUS(kr_phantom_sinogram(&a, KR_PHANTOM_SHEPP_LOGAN, th, 2, s, -1), KR_ERR_DIM);
    th[1] = NAN;
    KT_STATUS(kr_phantom_sinogram(&a, KR_PHANTOM_SHEPP_LOGAN, th, 2, s, 2), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "theta[1]") != NULL);
    th[1] = 1;
    s[0] = INFINITY;
    KT_STATUS(kr_phantom_sinogram(&a, KR_PHANTOM_SHEPP_LOGAN, th, 2, s, 2), KR_ERR_INVALID_ARG);
    s[0] = 0;
    KT_STATUS(kr_phantom_sinogram_ellipses(&a, NULL, 1, th, 2, s, 2), KR_ERR_INVALID_ARG);
    KT_CHECK(a == NULL);

    double p0[3] = {0, 0, -1}, p1[3] = {0, 0, 1}, o;
    KT_STATUS(kr_phantom_line_integrals_3d(KR_PHANTOM_SHEPP_LOGAN, NULL, p1, 1, 1, &o),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_line_integrals_3d(KR_PHANTOM_SHEPP_LOGAN, p0, NULL, 1, 1, &o),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_line_integrals_3d(KR_PHANTOM_SHEPP_LOGAN, p0, p1, 1, 1, NULL),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_line_integrals_3d(KR_PHANTOM_SHEPP_LOGAN, p0, p1, 0, 1, &o), KR_ERR_DIM);
    KT_STATUS(kr_phantom_line_integrals_3d((kr_phantom_kind)4, p0, p1, 1, 1, &o),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_line_integrals_3d(KR_PHANTOM_SHEPP_LOGAN, p0, p1, 1, 0.0, &o),
              KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_line_integrals_3d(KR_PHANTOM_SHEPP_LOGAN, p0, p1, 1, NAN, &o),
              KR_ERR_INVALID_ARG);
    p1[2] = NAN;
    KT_STATUS(kr_phantom_line_integrals_3d(KR_PHANTOM_SHEPP_LOGAN, p0, p1, 1, 1, &o),
              KR_ERR_INVALID_ARG);
    kr_ellipsoid bad = {1, 0.5, 0.5, 0.0, 0, 0, 0, 0};
    p1[2] = 1;
    KT_STATUS(kr_phantom_line_integrals_ellipsoids(&bad, 1, p0, p1, 1, 1, &o), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_phantom_line_integrals_ellipsoids(&bad, 0, p0, p1, 1, 1, &o), KR_ERR_INVALID_ARG);
}

int main(void)
{
    KT_RUN(test_sinogram_riemann);
    KT_RUN(test_sinogram_orientation);
    KT_RUN(test_line_integrals_riemann);
    KT_RUN(test_plane_consistency);
    KT_RUN(test_dumb_inputs);
    return kt_finish();
}
