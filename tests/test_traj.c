/* Trajectories: Cartesian and radial layouts against closed forms (BART's conventions), golden
 * angles, koosh-ball directions, the gradient-limited spiral against its hardware limits and its
 * Nyquist condition (finite differences of the returned k, independent of the design loop), unit
 * conversions, files, and dumb inputs. */
#include "mri/mri_internal.h"
#include "kt.h"

#include <math.h>
#include <string.h>

#define PI 3.14159265358979323846

static double kv(const kr_array *t, int64_t i, int d) { return kr_array_get_f64(t, 3 * i + d); }

static void test_cartesian(void)
{
    kr_array *t = NULL;
    KT_OK(kr_traj_cartesian(&t, 4, 3, 1, KR_F32));
    KT_CHECK(t->ndim == 3 && t->dims[0] == 3 && t->dims[1] == 4 && t->dims[2] == 3);
    KT_CHECK(kv(t, 0, 0) == -2 && kv(t, 0, 1) == -1 && kv(t, 0, 2) == 0);
    KT_CHECK(kv(t, 11, 0) == 1 && kv(t, 11, 1) == 1);
    kr_array_destroy(t);
    KT_OK(kr_traj_cartesian(&t, 2, 3, 5, KR_F64));
    KT_CHECK(t->ndim == 4 && t->dims[3] == 5 && kv(t, 29, 2) == 2 && kv(t, 0, 2) == -2);
    int64_t n[3] = {2, 3, 5};
    KT_OK(kr_traj_check(t, n));
    kr_array_destroy(t);
    KT_STATUS(kr_traj_cartesian(&t, 0, 3, 1, KR_F32), KR_ERR_DIM);
    KT_STATUS(kr_traj_cartesian(&t, 4, 3, 1, KR_C64), KR_ERR_DTYPE);
    KT_STATUS(kr_traj_cartesian(NULL, 4, 3, 1, KR_F32), KR_ERR_INVALID_ARG);
}

static void test_radial(void)
{
    kr_radial_opts o;
    kr_radial_opts_default(&o);
    o.samples = 8, o.spokes = 4;
    kr_array *t = NULL;
    KT_OK(kr_traj_radial(&t, &o));
    KT_CHECK(t->ndim == 3 && t->dims[1] == 8 && t->dims[2] == 4);
    /* spoke s: (i + 1/2 - 4) (cos(pi s / 4), sin(pi s / 4)): `bart traj -r -x 8 -y 4` in kray's (kx, ky) */
    for (int64_t s = 0; s < 4; s++)
        for (int64_t i = 0; i < 8; i++) {
            double r = (double)i + 0.5 - 4.0, a = PI * (double)s / 4.0;
            KT_NEAR(kv(t, s * 8 + i, 1), r * sin(a), 1e-6);
            KT_NEAR(kv(t, s * 8 + i, 0), r * cos(a), 1e-6);
            KT_CHECK(kv(t, s * 8 + i, 2) == 0.0);
        }
    KT_NEAR(kv(t, 7, 0), 3.5, 0);          /* spoke 0 runs along +kx */
    KT_NEAR(kv(t, 2 * 8 + 7, 1), 3.5, 0);  /* spoke 2 along +ky */
    kr_array_destroy(t);
    /* DC-sampled spokes (BART -c): sample X/2 is the centre on every spoke */
    o.dc = 1;
    KT_OK(kr_traj_radial(&t, &o));
    for (int64_t s = 0; s < 4; s++) KT_CHECK(kv(t, s * 8 + 4, 1) == 0 && kv(t, s * 8 + 4, 0) == 0);
    KT_NEAR(kv(t, 0, 0), -4.0, 0);
    kr_array_destroy(t);
    /* golden angle: successive spokes 180/phi = 111.246 degrees apart */
    o.dc = 0, o.order = KR_RADIAL_GOLDEN, o.spokes = 5;
    KT_OK(kr_traj_radial(&t, &o));
    double a1 = atan2(kv(t, 8 + 7, 1), kv(t, 8 + 7, 0)) * 180 / PI;
    KT_NEAR(a1, 111.24611797, 1e-5);
    kr_array_destroy(t);
    o.tiny = 3; /* tiny golden angle pi / (phi + 2) */
    KT_OK(kr_traj_radial(&t, &o));
    a1 = atan2(kv(t, 8 + 7, 1), kv(t, 8 + 7, 0));
    KT_NEAR(a1, PI / (1.6180339887498949 + 2.0), 1e-6);
    kr_array_destroy(t);
    /* full circle, stack of stars */
    kr_radial_opts_default(&o);
    o.samples = 6, o.spokes = 4, o.full_circle = 1, o.partitions = 3, o.dtype = KR_F64;
    KT_OK(kr_traj_radial(&t, &o));
    KT_CHECK(t->ndim == 4 && t->dims[3] == 3);
    KT_NEAR(kv(t, 6 + 5, 1), 2.5, 1e-12); /* spoke 1 at 90 degrees */
    KT_NEAR(kv(t, 2 * 6 + 5, 0), -2.5, 1e-12);
    KT_CHECK(kv(t, 0, 2) == -1 && kv(t, 24, 2) == 0 && kv(t, 71, 2) == 1);
    kr_array_destroy(t);
    o.samples = 0;
    KT_STATUS(kr_traj_radial(&t, &o), KR_ERR_DIM);
    o.samples = 6, o.order = (kr_radial_order)5;
    KT_STATUS(kr_traj_radial(&t, &o), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_traj_radial(&t, NULL), KR_ERR_INVALID_ARG);
    KT_CHECK(t == NULL);
}

static void test_koosh(void)
{
    for (int ord = 0; ord < 2; ord++) {
        kr_radial_opts o;
        kr_radial_opts_default(&o);
        o.samples = 10, o.spokes = 400, o.order = ord ? KR_RADIAL_GOLDEN : KR_RADIAL_UNIFORM;
        kr_array *t = NULL;
        KT_OK(kr_traj_koosh(&t, &o));
        double zsum = 0, xs = 0, ys = 0;
        for (int64_t s = 0; s < 400; s++) {
            int64_t i = s * 10 + 9; /* r = 4.5 along d_s */
            double r = sqrt(kv(t, i, 0) * kv(t, i, 0) + kv(t, i, 1) * kv(t, i, 1) + kv(t, i, 2) * kv(t, i, 2));
            KT_NEAR(r, 4.5, 1e-5);
            KT_CHECK(kv(t, i, 2) >= 0.0);
            zsum += kv(t, i, 2) / 4.5, xs += kv(t, i, 0) / 4.5, ys += kv(t, i, 1) / 4.5;
        }
        /* uniform on the half sphere: mean z = 1/2, mean x = mean y = 0 */
        KT_NEAR(zsum / 400, 0.5, 0.01);
        KT_NEAR(xs / 400, 0.0, 0.02);
        KT_NEAR(ys / 400, 0.0, 0.02);
        kr_array_destroy(t);
    }
    kr_radial_opts o;
    kr_radial_opts_default(&o);
    o.partitions = 2;
    kr_array *t = NULL;
    KT_STATUS(kr_traj_koosh(&t, &o), KR_ERR_INVALID_ARG);
}

/* The spiral against the limits, from finite differences of its k (cycles/FOV -> 1/m). */
static void check_spiral(const kr_spiral_opts *o)
{
    kr_array *t = NULL;
    kr_spiral_info info;
    KT_OK(kr_traj_spiral(&t, o, &info));
    if (!t) return;
    const int64_t ns = info.samples, ni = o->interleaves;
    KT_CHECK(t->dims[1] == ns && t->dims[2] == ni);
    const double fov = o->fov_mm * 1e-3, dt = o->dwell_us * 1e-6, gam = KRI_GAMMA_HZ_T;
    const double kmax = o->fov_mm / (2 * o->res_mm);
    KT_NEAR(info.kmax, kmax, 1e-9);
    KT_CHECK(info.matrix == (int64_t)floor(2 * kmax) + 1);
    double gmax = 0, smax = 0, rlast = 0;
    for (int64_t i = 0; i < ns; i++) {
        double x = kv(t, i, 0), y = kv(t, i, 1);
        rlast = sqrt(x * x + y * y);
        if (i + 1 < ns) {
            double gx = (kv(t, i + 1, 0) - x) / fov / (gam * dt), gy = (kv(t, i + 1, 1) - y) / fov / (gam * dt);
            gmax = fmax(gmax, hypot(gx, gy));
        }
        if (i > 0 && i + 1 < ns) {
            double sx = (kv(t, i + 1, 0) - 2 * x + kv(t, i - 1, 0)) / fov / (gam * dt * dt);
            double sy = (kv(t, i + 1, 1) - 2 * y + kv(t, i - 1, 1)) / fov / (gam * dt * dt);
            smax = fmax(smax, hypot(sx, sy));
        }
    }
    KT_CHECK(kv(t, 0, 0) == 0 && kv(t, 0, 1) == 0);
    KT_LE(gmax * 1e3, o->gmax_mT_m * 1.001);
    /* along-track spacing within the local Nyquist distance */
    double smax_track = 0;
    for (int64_t i = 0; i + 1 < ns; i++) {
        double r = hypot(kv(t, i, 0), kv(t, i, 1)), f = 1.0, rs = o->vd_start * kmax;
        if (r > rs) f = 1.0 + (1.0 / o->vd_factor - 1.0) * (r - rs) / (kmax - rs);
        smax_track = fmax(smax_track, hypot(kv(t, i + 1, 0) - kv(t, i, 0), kv(t, i + 1, 1) - kv(t, i, 1)) * f);
    }
    KT_LE(smax_track, 1.0 + 1e-3);
    KT_LE(smax, o->smax_T_m_s * 1.01);
    KT_LE(info.gmax_used_mT_m, o->gmax_mT_m * (1 + 1e-9));
    KT_LE(info.smax_used_T_m_s, o->smax_T_m_s * (1 + 1e-6));
    KT_LE(rlast, kmax);
    KT_GE(rlast, kmax - 0.5);
    KT_LE(rlast, (double)info.matrix / 2);
    /* Nyquist for the local FOV: dr/dtheta = interleaves / (2 pi) * fov / FOV(r) in cycles/FOV */
    double emax = 0;
    for (int64_t i = ns / 4; i + 1 < ns; i++) {
        double r0 = hypot(kv(t, i, 0), kv(t, i, 1)), r1 = hypot(kv(t, i + 1, 0), kv(t, i + 1, 1));
        double th0 = atan2(kv(t, i, 1), kv(t, i, 0)), th1 = atan2(kv(t, i + 1, 1), kv(t, i + 1, 0));
        double dth = remainder(th1 - th0, 2 * PI), rm = 0.5 * (r0 + r1);
        double f = 1.0;
        double rs = o->vd_start * kmax;
        if (rm > rs) f = 1.0 + (1.0 / o->vd_factor - 1.0) * (rm - rs) / (kmax - rs);
        double want = (double)ni / (2 * PI) / f;
        emax = fmax(emax, fabs((r1 - r0) / dth / want - 1.0));
    }
    KT_LE(emax, 2e-3);
    /* interleave j is interleave 0 rotated by 2 pi j / interleaves */
    for (int64_t j = 1; j < ni; j += ni / 3 + 1) {
        double a = 2 * PI * (double)j / (double)ni;
        int64_t i = ns / 2;
        KT_NEAR(kv(t, j * ns + i, 0), kv(t, i, 0) * cos(a) - kv(t, i, 1) * sin(a), 1e-4);
        KT_NEAR(kv(t, j * ns + i, 1), kv(t, i, 0) * sin(a) + kv(t, i, 1) * cos(a), 1e-4);
    }
    printf("  spiral fov %g mm res %g mm %lld interleaves vd %g: %lld samples, %.2f ms, N = %lld, "
           "|g| <= %.2f mT/m, slew <= %.1f T/m/s (slew-limited for %.2f ms)\n",
           o->fov_mm, o->res_mm, (long long)ni, o->vd_factor, (long long)ns, info.readout_ms,
           (long long)info.matrix, info.gmax_used_mT_m, info.smax_used_T_m_s, info.slew_limited_ms);
    kr_array_destroy(t);
}

static void test_spiral(void)
{
    kr_spiral_opts o;
    kr_spiral_opts_default(&o); /* Dantas (2015)'s case: 16 cm, 1.4 mm, 8 interleaves, VD */
    check_spiral(&o);
    o.vd_factor = 1.0;
    check_spiral(&o);
    o.vd_factor = 3.0, o.vd_start = 0.3, o.interleaves = 16, o.res_mm = 0.8, o.smax_T_m_s = 120;
    check_spiral(&o);
    o.interleaves = 1, o.res_mm = 4.0, o.gmax_mT_m = 10, o.vd_factor = 1.0, o.vd_start = 0;
    check_spiral(&o);
    kr_spiral_opts_default(&o);
    o.partitions = 4, o.dtype = KR_F64;
    kr_array *t = NULL;
    kr_spiral_info info;
    KT_OK(kr_traj_spiral(&t, &o, &info));
    KT_CHECK(t->ndim == 4 && t->dims[3] == 4 && kv(t, 0, 2) == -2 &&
             kv(t, 3 * 8 * info.samples, 2) == 1);
    kr_array_destroy(t);
    /* dumb inputs */
    kr_spiral_opts b = o;
    b.res_mm = 100.0;
    KT_STATUS(kr_traj_spiral(&t, &b, NULL), KR_ERR_INVALID_ARG);
    b = o, b.fov_mm = NAN;
    KT_STATUS(kr_traj_spiral(&t, &b, NULL), KR_ERR_INVALID_ARG);
    b = o, b.interleaves = 0;
    KT_STATUS(kr_traj_spiral(&t, &b, NULL), KR_ERR_DIM);
    b = o, b.gmax_mT_m = 0;
    KT_STATUS(kr_traj_spiral(&t, &b, NULL), KR_ERR_INVALID_ARG);
    b = o, b.smax_T_m_s = -1;
    KT_STATUS(kr_traj_spiral(&t, &b, NULL), KR_ERR_INVALID_ARG);
    b = o, b.vd_factor = 0.5;
    KT_STATUS(kr_traj_spiral(&t, &b, NULL), KR_ERR_INVALID_ARG);
    b = o, b.vd_start = 1.0;
    KT_STATUS(kr_traj_spiral(&t, &b, NULL), KR_ERR_INVALID_ARG);
    b = o, b.dtype = KR_C64;
    KT_STATUS(kr_traj_spiral(&t, &b, NULL), KR_ERR_DTYPE);
    KT_STATUS(kr_traj_spiral(&t, NULL, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_traj_spiral(NULL, &o, NULL), KR_ERR_INVALID_ARG);
    KT_CHECK(t == NULL);
}

static void test_units_and_checks(void)
{
    kr_array *t = NULL;
    KT_OK(kr_traj_cartesian(&t, 8, 4, 1, KR_F64));
    int64_t n[3] = {8, 4, 1};
    KT_OK(kr_traj_convert(t, KR_K_CYCLES_PER_FOV, KR_K_CYCLES_PER_PIXEL, n));
    KT_NEAR(kv(t, 0, 0), -0.5, 1e-15);
    KT_NEAR(kv(t, 0, 1), -0.5, 1e-15);
    KT_OK(kr_traj_convert(t, KR_K_CYCLES_PER_PIXEL, KR_K_RADIANS, n));
    KT_NEAR(kv(t, 0, 0), -PI, 1e-15);
    KT_NEAR(kv(t, 1, 0), -0.75 * PI, 1e-15);
    KT_OK(kr_traj_convert(t, KR_K_RADIANS, KR_K_CYCLES_PER_FOV, n));
    KT_NEAR(kv(t, 1, 0), -3.0, 1e-13);
    KT_STATUS(kr_traj_convert(t, KR_K_RADIANS, KR_K_CYCLES_PER_FOV, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_traj_convert(t, (kr_kunits)9, KR_K_CYCLES_PER_FOV, n), KR_ERR_INVALID_ARG);
    KT_OK(kr_traj_check(t, n));
    double ax[3], r;
    KT_OK(kr_traj_extent(t, ax, &r));
    KT_NEAR(ax[0], 4.0, 1e-13);
    KT_NEAR(ax[1], 2.0, 1e-13);
    KT_NEAR(r, sqrt(20.0), 1e-13);
    ((double *)t->data)[4] = 2.0; /* ky = n/2 */
    KT_STATUS(kr_traj_check(t, n), KR_ERR_GEOMETRY);
    ((double *)t->data)[4] = INFINITY;
    KT_STATUS(kr_traj_check(t, NULL), KR_ERR_GEOMETRY);
    KT_STATUS(kr_traj_check(NULL, NULL), KR_ERR_INVALID_ARG);
    kr_array_destroy(t);
}

static void test_files(void)
{
    kr_radial_opts o;
    kr_radial_opts_default(&o);
    o.samples = 16, o.spokes = 5, o.order = KR_RADIAL_GOLDEN;
    kr_array *t = NULL, *r = NULL;
    KT_OK(kr_traj_radial(&t, &o));
    const char *cfl = kt_tmp("traj_rt.cfl"), *npy = kt_tmp("traj_rt.npy");
    KT_OK(kr_traj_write(cfl, t));
    KT_OK(kr_traj_read(cfl, &r, KR_F32));
    KT_CHECK(r && kr_array_same_shape(r, t) && memcmp(r->data, t->data, kr_array_bytes(t)) == 0);
    kr_array_destroy(r);
    KT_OK(kr_traj_write(npy, t));
    KT_OK(kr_traj_read(npy, &r, KR_F64));
    KT_CHECK(r && r->dtype == KR_F64 && kv(r, 17, 0) == kv(t, 17, 0));
    kr_array_destroy(r);
    /* a complex file with a non-zero imaginary part is not a trajectory */
    kr_array *c = NULL;
    KT_OK(kr_array_astype(&c, t, KR_C64));
    ((float *)c->data)[7] = 0.5f;
    const char *bad = kt_tmp("traj_bad.cfl");
    KT_OK(kr_write(bad, c, NULL));
    KT_STATUS(kr_traj_read(bad, &r, KR_F32), KR_ERR_FORMAT);
    kr_array_destroy(c);
    int64_t d[2] = {2, 5};
    KT_OK(kr_array_create(&c, KR_C64, 2, d, KR_HOST, NULL));
    KT_OK(kr_write(bad, c, NULL));
    KT_STATUS(kr_traj_read(bad, &r, KR_F32), KR_ERR_FORMAT);
    KT_STATUS(kr_traj_read(bad, &r, KR_C64), KR_ERR_DTYPE);
    KT_STATUS(kr_traj_read(NULL, &r, KR_F32), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_traj_write(bad, c), KR_ERR_DTYPE);
    KT_CHECK(r == NULL);
    kr_array_destroy(c);
    kr_array_destroy(t);
}

int main(void)
{
    KT_RUN(test_cartesian);
    KT_RUN(test_radial);
    KT_RUN(test_koosh);
    KT_RUN(test_spiral);
    KT_RUN(test_units_and_checks);
    KT_RUN(test_files);
    return kt_finish();
}
