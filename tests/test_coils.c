/* Coil arrays: elliptic integrals against high-precision values (mpmath, 30 digits), the
 * loop field against its on-axis closed form and against a direct numerical Biot-Savart sum
 * over the discretised loop (written here independently), the MRXCAT layout for the
 * cases of Mayo Sarmiento (2018), sensitivity maps against point evaluation, normalisation, the wire
 * clamp, thread-count independence and bad inputs. */
#include "internal.h"
#include "kray/coils.h"
#include "kt.h"

#include <omp.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static void test_elliptic(void)
{
    /* mpmath.ellipk / ellipe, mp.dps = 30 */
    const double m[6] = {0, 0.1, 0.5, 0.9, 0.99, 0.999999};
    const double K[6] = {1.5707963267948966192, 1.6124413487202194007, 1.8540746773013719184,
                         2.5780921133481732927, 3.6956373629898742386, 8.2940514636010622019};
    const double E[6] = {1.5707963267948966192, 1.5307576368977632002, 1.3506438810476755025,
                         1.1047747327040733079, 1.0159935450252239477, 1.000003897026172166};
    double worst = 0;
    for (int i = 0; i < 6; i++) {
        double k, e;
        KT_OK(kr_elliptic_ke(m[i], 0, &k, &e));
        worst = fmax(worst, fabs(k - K[i]) / K[i]);
        worst = fmax(worst, fabs(e - E[i]) / E[i]);
    }
    printf("  elliptic K, E: max rel error %.3g\n", worst);
    KT_LE(worst, 5e-15);
    /* a loose tolerance stops early but stays close */
    double k, e;
    KT_OK(kr_elliptic_ke(0.9, 1e-4, &k, &e));
    KT_LE(fabs(k - K[3]), 1e-6);
    double dk, de;
    KT_STATUS(kr_elliptic_ke(1.0, 0, &dk, &de), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_elliptic_ke(-0.1, 0, &dk, &de), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_elliptic_ke(0.5, -1, &dk, &de), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_elliptic_ke(0.5, 0, NULL, &de), KR_ERR_INVALID_ARG);
}

static kr_coil make_coil(double cx, double cy, double cz, double nx, double ny, double nz, double a)
{
    kr_coil c;
    memset(&c, 0, sizeof c);
    c.centre_mm[0] = cx;
    c.centre_mm[1] = cy;
    c.centre_mm[2] = cz;
    c.normal[0] = nx;
    c.normal[1] = ny;
    c.normal[2] = nz;
    c.radius_mm = a;
    return c;
}

static void test_on_axis(void)
{
    const double a = 50.0;
    kr_coil c = make_coil(0, 0, 0, 0, 0, 1, a);
    double worst = 0;
    for (int i = -10; i <= 10; i++) {
        double z = 17.0 * i, p[3] = {0, 0, z}, B[3];
        KT_OK(kr_coil_field(&c, p, 1.0, B));
        double am = a * 1e-3, zm = z * 1e-3;
        double want = KR_MU0 * am * am / (2 * pow(am * am + zm * zm, 1.5));
        worst = fmax(worst, fabs(B[2] - want) / want);
        KT_LE(fabs(B[0]) + fabs(B[1]), 1e-12 * want);
    }
    printf("  on-axis field: max rel error %.3g\n", worst);
    KT_LE(worst, 1e-13);
    /* a tilted, shifted coil: the axis follows the normal */
    const double n[3] = {0.3, -0.5, 0.81};
    double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    kr_coil t = make_coil(10, -20, 5, n[0], n[1], n[2], a);
    double p[3] = {10 + 40 * n[0] / nn, -20 + 40 * n[1] / nn, 5 + 40 * n[2] / nn}, B[3];
    KT_OK(kr_coil_field(&t, p, 1.0, B));
    double want = KR_MU0 * 0.05 * 0.05 / (2 * pow(0.05 * 0.05 + 0.04 * 0.04, 1.5));
    for (int k = 0; k < 3; k++)
        KT_NEAR(B[k], want * n[k] / nn, 1e-13 * want);
}

/* Direct Biot-Savart sum over N straight pieces (midpoint rule on the periodic parameter,
 * which converges faster than any power of 1/N away from the wire). */
static void numeric_field(const kr_coil *c, const double p[3], int N, double B[3])
{
    double n[3] = {c->normal[0], c->normal[1], c->normal[2]};
    double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    for (int k = 0; k < 3; k++)
        n[k] /= nn;
    /* in-plane basis u, v with u x v = n */
    double u[3] = {1, 0, 0};
    if (fabs(n[0]) > 0.9) u[0] = 0, u[1] = 1;
    double d = u[0] * n[0] + u[1] * n[1] + u[2] * n[2];
    for (int k = 0; k < 3; k++)
        u[k] -= d * n[k];
    double un = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int k = 0; k < 3; k++)
        u[k] /= un;
    double v[3] = {n[1] * u[2] - n[2] * u[1], n[2] * u[0] - n[0] * u[2], n[0] * u[1] - n[1] * u[0]};
    const double a = c->radius_mm * 1e-3;
    B[0] = B[1] = B[2] = 0;
    for (int j = 0; j < N; j++) {
        double th = 2 * M_PI * (j + 0.5) / N, dth = 2 * M_PI / N;
        double r[3], dl[3];
        for (int k = 0; k < 3; k++) {
            r[k] = c->centre_mm[k] * 1e-3 + a * (cos(th) * u[k] + sin(th) * v[k]);
            dl[k] = a * dth * (-sin(th) * u[k] + cos(th) * v[k]);
        }
        double R[3] = {p[0] * 1e-3 - r[0], p[1] * 1e-3 - r[1], p[2] * 1e-3 - r[2]};
        double r3 = pow(R[0] * R[0] + R[1] * R[1] + R[2] * R[2], 1.5);
        double cr[3] = {dl[1] * R[2] - dl[2] * R[1], dl[2] * R[0] - dl[0] * R[2],
                        dl[0] * R[1] - dl[1] * R[0]};
        for (int k = 0; k < 3; k++)
            B[k] += 1e-7 * cr[k] / r3;
    }
}

static void test_vs_numeric_biot_savart(void)
{
    kr_coil coils[2] = {make_coil(0, 0, 0, 0, 0, 1, 40),
                        make_coil(300, 20, -15, -0.9, 0.1, 0.2, 80)};
    double worst = 0;
    int count = 0;
    for (int c = 0; c < 2; c++)
        for (int i = 0; i < 400; i++) {
            double p[3];
            for (int k = 0; k < 3; k++)
                p[k] = coils[c].centre_mm[k] + 3.0 * coils[c].radius_mm * kri_rand_sym(40 + k, i);
            /* skip points within 0.2 a of the wire (the quadrature needs more pieces there) */
            double B[3], R[3];
            numeric_field(&coils[c], p, 8000, R);
            KT_OK(kr_coil_field(&coils[c], p, 0.0, B));
            double nr = sqrt(R[0] * R[0] + R[1] * R[1] + R[2] * R[2]);
            double e = sqrt(pow(B[0] - R[0], 2) + pow(B[1] - R[1], 2) + pow(B[2] - R[2], 2)) / nr;
            /* distance to the conductor */
            kr_coil cc = coils[c];
            double nn = sqrt(cc.normal[0] * cc.normal[0] + cc.normal[1] * cc.normal[1] +
                             cc.normal[2] * cc.normal[2]);
            double dz = 0, dr[3];
            for (int k = 0; k < 3; k++)
                dz += (p[k] - cc.centre_mm[k]) * cc.normal[k] / nn;
            for (int k = 0; k < 3; k++)
                dr[k] = p[k] - cc.centre_mm[k] - dz * cc.normal[k] / nn;
            double rho = sqrt(dr[0] * dr[0] + dr[1] * dr[1] + dr[2] * dr[2]);
            if (hypot(rho - cc.radius_mm, dz) < 0.2 * cc.radius_mm) continue;
            worst = fmax(worst, e);
            count++;
        }
    printf("  closed form vs 8000-piece Biot-Savart sum at %d points: max rel error %.3g\n", count,
           worst);
    KT_GE(count, 600);
    KT_LE(worst, 1e-10);
}

static void test_layout(void)
{
    kr_coil c[64];
    int nr = 0, cnt[64];
    const double rb = 300.0;
    KT_OK(kr_coil_layout_mrxcat(16, 6, rb, c, &nr, cnt));
    KT_CHECK(nr == 3 && cnt[0] == 5 && cnt[1] == 6 && cnt[2] == 5);
    const double a5[5] = {130, 180, 230, 330, 30}, a6[6] = {130, 180, 230, 310, 0, 50};
    const double rc = 0.5 * rb * 50.0 * M_PI / 180.0;
    for (int q = 0; q < 16; q++) {
        int ring = q < 5 ? 0 : q < 11 ? 1 : 2;
        double deg = ring == 1 ? a6[q - 5] : a5[ring == 0 ? q : q - 11];
        double ph = deg * M_PI / 180;
        KT_CHECK(c[q].ring == ring);
        KT_NEAR(c[q].angle_deg, deg, 0);
        KT_NEAR(c[q].centre_mm[0], rb * cos(ph), 1e-12);
        KT_NEAR(c[q].centre_mm[1], rb * sin(ph), 1e-12);
        KT_NEAR(c[q].centre_mm[2], (ring - 1) * 2 * rc, 1e-12);
        KT_NEAR(c[q].normal[0], -cos(ph), 1e-15);
        KT_NEAR(c[q].normal[1], -sin(ph), 1e-15);
        KT_NEAR(c[q].radius_mm, rc, 1e-12);
    }
    /* > 6 per ring: uniform, radius rbody pi / m */
    KT_OK(kr_coil_layout_mrxcat(8, 8, rb, c, &nr, cnt));
    KT_CHECK(nr == 1 && cnt[0] == 8);
    for (int q = 0; q < 8; q++)
        KT_NEAR(c[q].angle_deg, 45.0 * q, 1e-12);
    KT_NEAR(c[0].radius_mm, 0.5 * rb * 2 * M_PI / 8, 1e-12);
    KT_NEAR(c[0].centre_mm[2], 0.0, 0);
    KT_OK(kr_coil_layout_mrxcat(32, 32, rb, c, &nr, cnt));
    KT_CHECK(nr == 1 && cnt[0] == 32);
    KT_NEAR(c[5].angle_deg, 360.0 * 5 / 32, 1e-12);
    KT_NEAR(c[31].radius_mm, 0.5 * rb * 2 * M_PI / 32, 1e-12);
    /* fixed tables for 1..6 coils in one ring */
    const double *tabs[7] = {NULL,
                             NULL,
                             (const double[]){150, 210},
                             (const double[]){130, 180, 230},
                             (const double[]){150, 210, 330, 30},
                             a5,
                             a6};
    for (int m = 1; m <= 6; m++) {
        KT_OK(kr_coil_layout_mrxcat(m, 8, rb, c, &nr, cnt));
        KT_CHECK(nr == 1 && cnt[0] == m);
        for (int q = 0; q < m; q++)
            KT_NEAR(c[q].angle_deg, m == 1 ? 0.0 : tabs[m][q], 0);
        KT_NEAR(c[0].radius_mm, rc, 1e-12);
    }
    /* ring splits of the MRXCAT rule */
    struct {
        int nc, cpr, rings, c0, c1, c2, c3;
    } cases[] = {{10, 8, 2, 5, 5, 0, 0}, {9, 8, 2, 4, 5, 0, 0},  {17, 8, 3, 4, 8, 5, 0},
                 {12, 6, 2, 6, 6, 0, 0}, {20, 8, 3, 6, 8, 6, 0}, {25, 8, 4, 4, 8, 8, 5},
                 {7, 8, 1, 7, 0, 0, 0},  {14, 8, 2, 7, 7, 0, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        KT_OK(kr_coil_layout_mrxcat(cases[i].nc, cases[i].cpr, rb, c, &nr, cnt));
        KT_CHECK_MSG(nr == cases[i].rings, "nc %d cpr %d: %d rings", cases[i].nc, cases[i].cpr, nr);
        int want[4] = {cases[i].c0, cases[i].c1, cases[i].c2, cases[i].c3};
        for (int k = 0; k < nr && k < 4; k++)
            KT_CHECK_MSG(cnt[k] == want[k], "nc %d cpr %d ring %d: %d coils", cases[i].nc,
                         cases[i].cpr, k, cnt[k]);
    }
    /* 7 coils in one ring: radius from the > 6 rule, z = 0 */
    KT_OK(kr_coil_layout_mrxcat(7, 8, rb, c, &nr, NULL));
    KT_NEAR(c[0].radius_mm, 0.5 * rb * 2 * M_PI / 7, 1e-12);
    KT_STATUS(kr_coil_layout_mrxcat(0, 6, rb, c, &nr, cnt), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_coil_layout_mrxcat(4, 0, rb, c, &nr, cnt), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_coil_layout_mrxcat(4, 4, -1, c, &nr, cnt), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_coil_layout_mrxcat(4, 4, rb, NULL, &nr, cnt), KR_ERR_INVALID_ARG);
}

static double grid_pos(kr_phantom_grid g, int64_t i, int64_t n, double d)
{
    return g == KR_GRID_FFT ? (double)(i - n / 2) * d : ((double)i - 0.5 * (double)(n - 1)) * d;
}

static void test_maps(void)
{
    kr_coil c[16];
    int nr;
    KT_OK(kr_coil_layout_mrxcat(16, 6, 200.0, c, &nr, NULL));
    kr_ctx *ctx = NULL;
    KT_OK(kr_ctx_create(&ctx, KR_BACKEND_CPU));
    for (int g = 0; g < 2; g++)
        for (int dt = 0; dt < 2; dt++) {
            kr_coil_map_opts o;
            kr_coil_map_opts_default(&o);
            o.nx = 12;
            o.ny = 9;
            o.nz = 3;
            o.voxel_mm[0] = 10;
            o.voxel_mm[1] = 12;
            o.voxel_mm[2] = 20;
            o.z_mm = 7;
            o.grid = (kr_phantom_grid)g;
            int64_t dims[4] = {12, 9, 3, 16};
            kr_array *m = NULL;
            KT_OK(kr_array_create(&m, dt ? KR_C128 : KR_C64, 4, dims, KR_HOST, NULL));
            KT_OK(kr_coil_maps(ctx, c, 16, &o, m));
            double worst = 0;
            for (int q = 0; q < 16; q++)
                for (int64_t k = 0; k < 3; k++)
                    for (int64_t j = 0; j < 9; j++)
                        for (int64_t i = 0; i < 12; i++) {
                            double p[3] = {grid_pos(o.grid, i, 12, 10), grid_pos(o.grid, j, 9, 12),
                                           7 + grid_pos(o.grid, k, 3, 20)};
                            double B[3];
                            KT_OK(kr_coil_field(&c[q], p, 1.0, B));
                            int64_t idx = i + 12 * (j + 9 * (k + 3 * q));
                            double re = kr_array_get_f64(m, idx);
                            double im = dt ? ((double *)m->data)[2 * idx + 1]
                                           : ((float *)m->data)[2 * idx + 1];
                            double wr = B[0] * 1e6, wi = -B[1] * 1e6; /* microtesla per A */
                            worst = fmax(worst, hypot(re - wr, im - wi) / hypot(wr, wi));
                        }
            KT_LE(worst, dt ? 1e-14 : 1e-7);
            kr_array_destroy(m);
        }
    /* RSS normalisation at the centre, via point evaluation */
    kr_coil_map_opts o;
    kr_coil_map_opts_default(&o);
    o.norm = KR_COIL_NORM_RSS_CENTRE;
    double centre[3] = {0, 0, 0};
    kr_array *s = NULL;
    KT_OK(kr_coil_sens_points(ctx, c, 16, centre, 1, &o, &s));
    double rss = 0;
    for (int q = 0; q < 16; q++) {
        const float *w = (const float *)s->data + 2 * q;
        rss += w[0] * w[0] + w[1] * w[1];
    }
    KT_NEAR(sqrt(rss), 1.0, 1e-6);
    kr_array_destroy(s);
    kr_ctx_destroy(ctx);
}

static void test_wire_clamp_and_threads(void)
{
    kr_coil c = make_coil(0, 0, 0, 0, 0, 1, 30);
    double on[3] = {30, 0, 0}, B[3], B2[3];
    KT_STATUS(kr_coil_field(&c, on, 0.0, B), KR_ERR_INVALID_ARG);
    KT_OK(kr_coil_field(&c, on, 1.0, B));
    double surf[3] = {31, 0, 0}; /* on the surface of a 1 mm wire: same value */
    KT_OK(kr_coil_field(&c, surf, 1.0, B2));
    for (int k = 0; k < 3; k++)
        KT_NEAR(B[k], B2[k], 1e-12 * fabs(B2[2]));
    KT_CHECK(isfinite(B[2]) && fabs(B[2]) > 0);
    /* maps do not depend on the thread count */
    kr_coil cs[8];
    int nr;
    KT_OK(kr_coil_layout_mrxcat(8, 8, 150, cs, &nr, NULL));
    kr_coil_map_opts o;
    kr_coil_map_opts_default(&o);
    o.nx = o.ny = 32;
    int64_t dims[4] = {32, 32, 1, 8};
    kr_array *a = NULL, *b = NULL;
    KT_OK(kr_array_create(&a, KR_C64, 4, dims, KR_HOST, NULL));
    KT_OK(kr_array_create(&b, KR_C64, 4, dims, KR_HOST, NULL));
    kr_ctx *s1 = NULL, *s3 = NULL;
    KT_OK(kr_ctx_create(&s1, KR_BACKEND_CPU_SERIAL));
    KT_OK(kr_ctx_create(&s3, KR_BACKEND_CPU));
    KT_OK(kr_ctx_set_threads(s3, 3));
    KT_OK(kr_coil_maps(s1, cs, 8, &o, a));
    KT_OK(kr_coil_maps(s3, cs, 8, &o, b));
    KT_CHECK(memcmp(a->data, b->data, kr_array_bytes(a)) == 0);
    /* bad inputs */
    kr_array *f = NULL, *wrong = NULL;
    KT_OK(kr_array_create(&f, KR_F32, 4, dims, KR_HOST, NULL));
    int64_t d2[4] = {32, 32, 1, 7};
    KT_OK(kr_array_create(&wrong, KR_C64, 4, d2, KR_HOST, NULL));
    KT_STATUS(kr_coil_maps(s1, cs, 8, &o, f), KR_ERR_DTYPE);
    KT_STATUS(kr_coil_maps(s1, cs, 8, &o, wrong), KR_ERR_DIM);
    KT_STATUS(kr_coil_maps(s1, NULL, 8, &o, a), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_coil_maps(NULL, cs, 8, &o, a), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_coil_maps(s1, cs, 0, &o, a), KR_ERR_INVALID_ARG);
    kr_coil_map_opts bad = o;
    bad.wire_mm = 0;
    KT_STATUS(kr_coil_maps(s1, cs, 8, &bad, a), KR_ERR_INVALID_ARG);
    bad = o;
    bad.nx = 0;
    KT_STATUS(kr_coil_maps(s1, cs, 8, &bad, a), KR_ERR_INVALID_ARG);
    bad = o;
    bad.norm = KR_COIL_NORM_COUNT;
    KT_STATUS(kr_coil_maps(s1, cs, 8, &bad, a), KR_ERR_INVALID_ARG);
    kr_coil badc = cs[0];
    badc.radius_mm = 0;
    KT_STATUS(kr_coil_field(&badc, on, 1.0, B), KR_ERR_INVALID_ARG);
    badc = cs[0];
    badc.normal[0] = badc.normal[1] = badc.normal[2] = 0;
    KT_STATUS(kr_coil_maps(s1, &badc, 1, &o, a), KR_ERR_INVALID_ARG);
    kr_array *pts = NULL;
    KT_STATUS(kr_coil_sens_points(s1, cs, 8, on, 0, &o, &pts), KR_ERR_DIM);
    KT_STATUS(kr_coil_sens_points(s1, cs, 8, NULL, 1, &o, &pts), KR_ERR_INVALID_ARG);
    kr_array_destroy(a);
    kr_array_destroy(b);
    kr_array_destroy(f);
    kr_array_destroy(wrong);
    kr_ctx_destroy(s1);
    kr_ctx_destroy(s3);
}

int main(void)
{
    KT_RUN(test_elliptic);
    KT_RUN(test_on_axis);
    KT_RUN(test_vs_numeric_biot_savart);
    KT_RUN(test_layout);
    KT_RUN(test_maps);
    KT_RUN(test_wire_clamp_and_threads);
    return kt_finish();
}
