/* Trajectory generators: Cartesian, 2-D radial (BART's conventions) and stacks of stars, 3-D
 * radial (koosh ball), and the gradient-limited variable-density spiral. */
#include "mri/mri_internal.h"

#include <math.h>
#include <string.h>

#define KRI_GOLDEN 1.61803398874989484820 /* (1 + sqrt 5) / 2 */

static kr_status kri_traj_alloc(kr_array **out, kr_dtype dtype, int64_t d1, int64_t d2, int64_t d3,
                                const char *fn)
{
    if (dtype != KR_F32 && dtype != KR_F64)
        return kri_fail(KR_ERR_DTYPE, "%s: trajectory dtype must be f32 or f64, got %s", fn,
                        kr_dtype_name(dtype));
    int64_t dims[4] = {3, d1, d2, d3};
    int nd = d3 > 1 ? 4 : (d2 > 1 ? 3 : 2);
    kr_status s = kr_array_create(out, dtype, nd, dims, KR_HOST, NULL);
    if (s != KR_OK) return kri_fail_prefix(s, "%s", fn);
    return KR_OK;
}

static void kri_traj_set(kr_array *t, int64_t i, double kx, double ky, double kz)
{
    if (t->dtype == KR_F32) {
        float *p = (float *)t->data + 3 * i;
        p[0] = (float)kx, p[1] = (float)ky, p[2] = (float)kz;
    } else {
        double *p = (double *)t->data + 3 * i;
        p[0] = kx, p[1] = ky, p[2] = kz;
    }
}

kr_status kr_traj_cartesian(kr_array **out, int64_t nx, int64_t ny, int64_t nz, kr_dtype dtype)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    if (nx < 1 || ny < 1 || nz < 1)
        return kri_fail(KR_ERR_DIM, "kr_traj_cartesian: grid %lldx%lldx%lld has a size < 1",
                        (long long)nx, (long long)ny, (long long)nz);
    KRI_TRY(kri_traj_alloc(out, dtype, nx, ny, nz, __func__));
    int64_t i = 0;
    for (int64_t l = 0; l < nz; l++)
        for (int64_t j = 0; j < ny; j++)
            for (int64_t a = 0; a < nx; a++, i++)
                kri_traj_set(*out, i, (double)(a - nx / 2), (double)(j - ny / 2),
                             (double)(l - nz / 2));
    return KR_OK;
}

void kr_radial_opts_default(kr_radial_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->samples = 64;
    o->oversampling = 1.0;
    o->spokes = 32;
    o->order = KR_RADIAL_UNIFORM;
    o->partitions = 1;
    o->dtype = KR_F32;
}

static kr_status kri_radial_check(const kr_radial_opts *o, const char *fn)
{
    if (!o) return kri_fail(KR_ERR_INVALID_ARG, "%s: argument 'opts' is NULL", fn);
    if (o->samples < 1 || o->spokes < 1 || o->partitions < 1)
        return kri_fail(KR_ERR_DIM, "%s: %lld samples x %lld spokes x %lld partitions (each must "
                        "be >= 1)", fn, (long long)o->samples, (long long)o->spokes,
                        (long long)o->partitions);
    if (o->order != KR_RADIAL_UNIFORM && o->order != KR_RADIAL_GOLDEN)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: unknown spoke order %d", fn, (int)o->order);
    if (o->oversampling != 0.0 && (!(o->oversampling >= 1.0) || !(o->oversampling <= 64.0)))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: readout oversampling %g must be in [1, 64]", fn,
                        o->oversampling);
    if (o->tiny < 0)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: tiny golden angle index %d must be >= 0", fn,
                        o->tiny);
    return KR_OK;
}

static double kri_radial_os(const kr_radial_opts *o)
{
    return o->oversampling == 0.0 ? 1.0 : o->oversampling;
}

/* Samples per spoke: samples x oversampling. */
static int64_t kri_radial_x(const kr_radial_opts *o)
{
    int64_t x = (int64_t)llround((double)o->samples * kri_radial_os(o));
    return x > 0 ? x : 1;
}

/* Position of readout sample i along a spoke (BART: (i + 1/2 - X/2) / o, or (i - X/2) / o with
 * -c). */
static double kri_radial_pos(const kr_radial_opts *o, int64_t i)
{
    int64_t x = kri_radial_x(o);
    double p = o->dc ? (double)i - (double)(x / 2) : (double)i + 0.5 - 0.5 * (double)x;
    return p / kri_radial_os(o);
}

kr_status kr_traj_radial(kr_array **out, const kr_radial_opts *o)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_TRY(kri_radial_check(o, __func__));
    KRI_TRY(kri_traj_alloc(out, o->dtype, kri_radial_x(o), o->spokes, o->partitions, __func__));
    double step;
    if (o->order == KR_RADIAL_GOLDEN)
        step = KRI_PI / (KRI_GOLDEN + (o->tiny > 1 ? (double)(o->tiny - 1) : 0.0));
    else
        step = (o->full_circle ? 2.0 * KRI_PI : KRI_PI) / (double)o->spokes;
    int64_t idx = 0;
    for (int64_t p = 0; p < o->partitions; p++) {
        double kz = (double)(p - o->partitions / 2);
        for (int64_t s = 0; s < o->spokes; s++) {
            double t = step * (double)s, sx = sin(t), cy = cos(t);
            for (int64_t i = 0; i < kri_radial_x(o); i++, idx++) {
                double r = kri_radial_pos(o, i);
                kri_traj_set(*out, idx, r * cy, r * sx, kz); /* BART's (sin, cos) in (k0, k1) */
            }
        }
    }
    return KR_OK;
}

kr_status kr_traj_koosh(kr_array **out, const kr_radial_opts *o)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_TRY(kri_radial_check(o, __func__));
    if (o->partitions != 1)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_traj_koosh: a koosh ball has no partitions (got "
                        "%lld)", (long long)o->partitions);
    KRI_TRY(kri_traj_alloc(out, o->dtype, kri_radial_x(o), o->spokes, 1, __func__));
    /* 2-D golden means of Chan et al. 2009 (MRM 61:354): eigenvector ratios of the 3x3 Fibonacci
     * recurrence matrix. */
    const double g1 = 0.465571231876768, g2 = 0.682327803828019;
    int64_t idx = 0;
    for (int64_t s = 0; s < o->spokes; s++) {
        double z, az;
        if (o->order == KR_RADIAL_GOLDEN) {
            z = fmod((double)s * g1, 1.0);
            az = 2.0 * KRI_PI * fmod((double)s * g2, 1.0);
        } else {
            z = ((double)s + 0.5) / (double)o->spokes;
            az = 2.0 * KRI_PI * fmod((double)s / (KRI_GOLDEN * KRI_GOLDEN), 1.0);
        }
        double rho = sqrt(fmax(0.0, 1.0 - z * z));
        double d[3] = {rho * cos(az), rho * sin(az), z};
        for (int64_t i = 0; i < kri_radial_x(o); i++, idx++) {
            double r = kri_radial_pos(o, i);
            kri_traj_set(*out, idx, r * d[0], r * d[1], r * d[2]);
        }
    }
    return KR_OK;
}

/* ---- spiral ---------------------------------------------------------------------------------- */
void kr_spiral_opts_default(kr_spiral_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->fov_mm = 160.0;
    o->res_mm = 1.4;
    o->interleaves = 8;
    o->gmax_mT_m = 40.0;
    o->smax_T_m_s = 150.0;
    o->dwell_us = 4.0;
    o->vd_factor = 2.0;
    o->vd_start = 0.0;
    o->partitions = 1;
    o->dtype = KR_F32;
}

/* Field of view (m) at radius r (1/m) and its derivative dFOV/dr. */
typedef struct kri_vd {
    double fov, kmax, r0, slope; /* slope = dFOV/dr beyond r0 */
} kri_vd;

static void kri_vd_eval(const kri_vd *v, double r, double *f, double *df)
{
    if (r <= v->r0) {
        *f = v->fov, *df = 0.0;
    } else {
        *f = v->fov + v->slope * (r - v->r0), *df = v->slope;
    }
}

#define KRI_SPIRAL_OS 16               /* integration steps per dwell */
#define KRI_SPIRAL_MAX_SAMPLES 4000000 /* 16 s at 4 us: a design that long is an input error */

/* Integrate interleave 0; writes up to cap samples (r, theta) and returns the count. */
static kr_status kri_spiral_design(const kr_spiral_opts *o, double *rs, double *ths, int64_t cap,
                                   int64_t *count, kr_spiral_info *info)
{
    const double gam = KRI_GAMMA_HZ_T, G = o->gmax_mT_m * 1e-3, S = o->smax_T_m_s;
    const double dt = o->dwell_us * 1e-6, h = dt / KRI_SPIRAL_OS;
    const double fov = o->fov_mm * 1e-3, kmax = 1.0 / (2.0 * o->res_mm * 1e-3);
    const double nint = (double)o->interleaves;
    kri_vd v = {fov, kmax, o->vd_start * kmax, 0.0};
    v.slope = fov * (1.0 / o->vd_factor - 1.0) / (kmax - v.r0);
    double r = 0.0, th = 0.0, w = 0.0; /* radius (1/m), angle, angular speed (rad/s) */
    double gused = 0.0, sused = 0.0, tswitch = -1.0;
    int64_t n = 0;
    for (int64_t step = 0;; step++) {
        if (step % KRI_SPIRAL_OS == 0) {
            if (n >= cap)
                return kri_fail(KR_ERR_INVALID_ARG, "kr_traj_spiral: the readout needs more than "
                                "%lld samples; check fov, res, interleaves and gradient limits",
                                (long long)cap);
            rs[n] = r, ths[n] = th;
            n++;
        }
        double f, df;
        kri_vd_eval(&v, r, &f, &df);
        double a = nint / (2.0 * KRI_PI * f);               /* dr/dtheta */
        double da = -nint / (2.0 * KRI_PI) * df / (f * f);  /* d(dr/dtheta)/dr */
        double rp = a, rpp = da * a;
        /* k' = w A e^{i th}, k'' = (alpha A + w^2 B) e^{i th}, A = r' + i r, B = r'' - r + 2 i r' */
        double A2 = rp * rp + r * r;
        double Br = rpp - r, Bi = 2.0 * rp;
        double B2 = Br * Br + Bi * Bi, AB = rp * Br + r * Bi; /* Re(A conj B) */
        /* amplitude limit, and the sampling limit: at most 1 / FOV(r) along the track per dwell
         * (gamma g dt <= 1 / FOV(r), the readout-bandwidth limit of Hargreaves' vds) */
        double gl = fmin(G, 1.0 / (gam * f * dt));
        double wmax = gam * gl / sqrt(A2);
        if (w > wmax) w = wmax; /* the radius grew since the last clamp */
        double w2 = w * w, s2 = (gam * S) * (gam * S);
        double disc = (AB * w2) * (AB * w2) - A2 * (B2 * w2 * w2 - s2);
        double alpha = disc >= 0.0 ? (-AB * w2 + sqrt(disc)) / A2 : -AB * w2 / A2;
        double wn = w + alpha * h;
        if (wn > wmax) {
            wn = wmax;
            if (tswitch < 0.0) tswitch = (double)step * h;
        }
        double alpha_eff = (wn - w) / h;
        double gnow = w * sqrt(A2) / gam;
        double sre = alpha_eff * rp + w2 * Br, sim = alpha_eff * r + w2 * Bi;
        double snow = sqrt(sre * sre + sim * sim) / gam;
        if (gnow > gused) gused = gnow;
        if (snow > sused) sused = snow;
        double dth = 0.5 * (w + wn) * h;
        /* midpoint step of dr/dtheta = a(r) */
        double fm, dfm;
        kri_vd_eval(&v, r + 0.5 * a * dth, &fm, &dfm);
        double rn = r + nint / (2.0 * KRI_PI * fm) * dth;
        th += dth, w = wn, r = rn;
        if (r > kmax) break;
    }
    *count = n;
    if (info) {
        info->samples = n;
        info->kmax = kmax * fov;
        info->matrix = (int64_t)floor(2.0 * kmax * fov) + 1;
        info->readout_ms = (double)(n - 1) * dt * 1e3;
        info->gmax_used_mT_m = gused * 1e3;
        info->smax_used_T_m_s = sused;
        info->slew_limited_ms = tswitch < 0.0 ? info->readout_ms : tswitch * 1e3;
    }
    return KR_OK;
}

kr_status kr_traj_spiral(kr_array **out, const kr_spiral_opts *o, kr_spiral_info *info)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(o);
    if (info) memset(info, 0, sizeof *info);
    const char *fn = __func__;
    if (!(o->fov_mm > 0.0) || !(o->res_mm > 0.0) || !isfinite(o->fov_mm) || !isfinite(o->res_mm))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: fov %g mm and resolution %g mm must be finite "
                        "and > 0", fn, o->fov_mm, o->res_mm);
    if (o->res_mm * 2.0 > o->fov_mm)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: resolution %g mm is coarser than half the fov "
                        "(%g mm)", fn, o->res_mm, o->fov_mm);
    if (o->interleaves < 1 || o->partitions < 1)
        return kri_fail(KR_ERR_DIM, "%s: %lld interleaves and %lld partitions (each must be >= 1)",
                        fn, (long long)o->interleaves, (long long)o->partitions);
    if (!(o->gmax_mT_m > 0.0) || !(o->smax_T_m_s > 0.0) || !(o->dwell_us > 0.0) ||
        !isfinite(o->gmax_mT_m) || !isfinite(o->smax_T_m_s) || !isfinite(o->dwell_us))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: gmax %g mT/m, smax %g T/m/s and dwell %g us must "
                        "be finite and > 0", fn, o->gmax_mT_m, o->smax_T_m_s, o->dwell_us);
    if (!(o->vd_factor >= 1.0) || !isfinite(o->vd_factor) || !(o->vd_start >= 0.0) ||
        !(o->vd_start < 1.0))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: vd_factor %g must be >= 1 and vd_start %g in "
                        "[0, 1)", fn, o->vd_factor, o->vd_start);
    if (o->dtype != KR_F32 && o->dtype != KR_F64)
        return kri_fail(KR_ERR_DTYPE, "%s: trajectory dtype must be f32 or f64, got %s", fn,
                        kr_dtype_name(o->dtype));
    int64_t cap = KRI_SPIRAL_MAX_SAMPLES;
    /* a sample count bound: turns x (2 pi r / (gamma gmax dt)) rounded up, plus slack */
    double kmax = 1.0 / (2.0 * o->res_mm * 1e-3), fov = o->fov_mm * 1e-3;
    double turns = kmax * fov / (double)o->interleaves;
    double bound = 4.0 * turns * 2.0 * KRI_PI * kmax /
                       (KRI_GAMMA_HZ_T * o->gmax_mT_m * 1e-3 * o->dwell_us * 1e-6) + 1e5;
    if (bound < (double)cap) cap = (int64_t)bound;
    double *buf = NULL;
    KRI_TRY(kri_alloc((void **)&buf, (size_t)cap * 2 * sizeof(double), "spiral design"));
    int64_t n = 0;
    kr_status s = kri_spiral_design(o, buf, buf + cap, cap, &n, info);
    if (s == KR_OK) s = kri_traj_alloc(out, o->dtype, n, o->interleaves, o->partitions, fn);
    if (s != KR_OK) {
        kri_free(buf);
        return s;
    }
    int64_t idx = 0;
    for (int64_t p = 0; p < o->partitions; p++) {
        double kz = (double)(p - o->partitions / 2);
        for (int64_t j = 0; j < o->interleaves; j++) {
            double rot = 2.0 * KRI_PI * (double)j / (double)o->interleaves;
            for (int64_t i = 0; i < n; i++, idx++) {
                double rr = buf[i] * fov, t = buf[cap + i] + rot;
                kri_traj_set(*out, idx, rr * cos(t), rr * sin(t), kz);
            }
        }
    }
    kri_free(buf);
    return KR_OK;
}
