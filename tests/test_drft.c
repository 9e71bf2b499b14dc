/* DrFT: against direct double loops written here from the formulas in drft.h (Cartesian DFT,
 * random 2-D/3-D trajectories, box basis, weights, Q on the 2x grid and its Toeplitz property),
 * the dot-product adjoint test, float-vs-double error bounds, thread-count independence, and
 * dumb inputs with their exact statuses. */
#include "mri/drft/drft_internal.h"
#include "kt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PI 3.14159265358979323846

static kr_ctx *ctx_of(kr_backend b, int threads)
{
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, b));
    if (c && threads > 0) KT_OK(kr_ctx_set_threads(c, threads));
    return c;
}

/* A random trajectory with k uniform in [-n/2, n/2) on each axis of size > 1. */
static kr_array *rand_traj(int64_t m, const int64_t n[3], kr_dtype dt, uint64_t seed)
{
    kr_array *t = NULL;
    int64_t dims[2] = {3, m};
    KT_OK(kr_array_create(&t, dt, 2, dims, KR_HOST, NULL));
    for (int64_t i = 0; i < m; i++)
        for (int d = 0; d < 3; d++) {
            double v = n[d] > 1 ? 0.5 * kri_rand_sym(seed, (uint64_t)(3 * i + d)) * (double)n[d] : 0.0;
            if (dt == KR_F32) ((float *)t->data)[3 * i + d] = (float)v;
            else ((double *)t->data)[3 * i + d] = v;
        }
    return t;
}


static double sinc(double u) { return u == 0.0 ? 1.0 : sin(PI * u) / (PI * u); }

/* Direct formulas of drft.h (no range reduction, plain libm). */
static void naive_adjoint(const kr_array *traj, const double *w, int box, const int64_t n[3],
                          const int64_t g[3], const kr_array *ksp, int q, double *out)
{
    int64_t m = kr_array_numel(traj) / 3, v = 0;
    for (int64_t iz = 0; iz < g[2]; iz++)
        for (int64_t iy = 0; iy < g[1]; iy++)
            for (int64_t ix = 0; ix < g[0]; ix++, v++) {
                double x[3] = {(double)(ix - g[0] / 2), (double)(iy - g[1] / 2), (double)(iz - g[2] / 2)};
                double re = 0, im = 0;
                for (int64_t s = 0; s < m; s++) {
                    double ph = 0, phi = 1;
                    for (int d = 0; d < 3; d++) {
                        double k = kr_array_get_f64(traj, 3 * s + d);
                        ph += k * x[d] / (double)n[d];
                        if (box && n[d] > 1) phi *= sinc(k / (double)n[d]);
                    }
                    double W = w ? w[s] : 1.0, cr, ci;
                    if (q) cr = W * phi * phi, ci = 0;
                    else cr = W * phi * kt_cget(ksp, s, 0), ci = W * phi * kt_cget(ksp, s, 1);
                    double c = cos(2 * PI * ph), sn = sin(2 * PI * ph);
                    re += cr * c - ci * sn;
                    im += cr * sn + ci * c;
                }
                out[2 * v] = re, out[2 * v + 1] = im;
            }
}

static void naive_forward(const kr_array *traj, int box, const int64_t n[3], const kr_array *img,
                          double *out)
{
    int64_t m = kr_array_numel(traj) / 3;
    for (int64_t s = 0; s < m; s++) {
        double re = 0, im = 0, phi = 1, k[3];
        for (int d = 0; d < 3; d++) {
            k[d] = kr_array_get_f64(traj, 3 * s + d);
            if (box && n[d] > 1) phi *= sinc(k[d] / (double)n[d]);
        }
        int64_t v = 0;
        for (int64_t iz = 0; iz < n[2]; iz++)
            for (int64_t iy = 0; iy < n[1]; iy++)
                for (int64_t ix = 0; ix < n[0]; ix++, v++) {
                    double ph = k[0] * (double)(ix - n[0] / 2) / (double)n[0] +
                                k[1] * (double)(iy - n[1] / 2) / (double)n[1] +
                                k[2] * (double)(iz - n[2] / 2) / (double)n[2];
                    double c = cos(2 * PI * ph), sn = -sin(2 * PI * ph);
                    double a = kt_cget(img, v, 0), b = kt_cget(img, v, 1);
                    re += a * c - b * sn;
                    im += a * sn + b * c;
                }
        out[2 * s] = re * phi, out[2 * s + 1] = im * phi;
    }
}

/* max |a - ref| / max |ref| over complex values */
static double rel_maxerr(const kr_array *a, const double *ref, int64_t n)
{
    double e = 0, r = 0;
    for (int64_t i = 0; i < n; i++) {
        e = fmax(e, hypot(kt_cget(a, i, 0) - ref[2 * i], kt_cget(a, i, 1) - ref[2 * i + 1]));
        r = fmax(r, hypot(ref[2 * i], ref[2 * i + 1]));
    }
    return e / r;
}

static void check_case(const int64_t n[3], int64_t m, int box, int weights, kr_dtype dt, double tol)
{
    kr_ctx *c = ctx_of(KR_BACKEND_CPU, 2);
    kr_array *t = rand_traj(m, n, KR_F64, 7 + (uint64_t)m), *w = NULL;
    double *wd = NULL;
    if (weights) {
        int64_t wdims[1] = {m};
        KT_OK(kr_array_create(&w, KR_F64, 1, wdims, KR_HOST, NULL));
        wd = (double *)w->data;
        for (int64_t i = 0; i < m; i++) wd[i] = 1.5 + kri_rand_sym(99, (uint64_t)i);
    }
    kr_drft_opts o;
    kr_drft_opts_default(&o);
    o.basis = box ? KR_DRFT_BASIS_BOX : KR_DRFT_BASIS_DIRAC;
    kr_drft_plan *p = NULL;
    KT_OK(kr_drft_plan_create(&p, c, n, t, w, &o));
    int64_t idims[3] = {n[0], n[1], n[2]}, kdims[1] = {m};
    kr_array *img = kt_rand_complex(dt, 3, idims, 3), *ksp = kt_rand_complex(dt, 1, kdims, 4);
    kr_array *oimg = NULL, *oksp = NULL;
    KT_OK(kr_array_create(&oimg, dt, 3, idims, KR_HOST, NULL));
    KT_OK(kr_array_create(&oksp, dt, 1, kdims, KR_HOST, NULL));
    int64_t nv = n[0] * n[1] * n[2];
    double *ref = malloc(sizeof(double) * 2 * (size_t)(nv > m ? nv : m));
    KT_OK(kr_drft_adjoint(p, ksp, oimg));
    naive_adjoint(t, wd, box, n, n, ksp, 0, ref);
    double e = rel_maxerr(oimg, ref, nv);
    KT_CHECK_MSG(e <= tol, "adjoint %lldx%lldx%lld m=%lld box=%d w=%d %s: rel err %.3g > %.3g",
                 (long long)n[0], (long long)n[1], (long long)n[2], (long long)m, box, weights,
                 kr_dtype_name(dt), e, tol);
    KT_OK(kr_drft_forward(p, img, oksp));
    naive_forward(t, box, n, img, ref);
    e = rel_maxerr(oksp, ref, m);
    KT_CHECK_MSG(e <= tol, "forward %lldx%lldx%lld m=%lld box=%d %s: rel err %.3g > %.3g",
                 (long long)n[0], (long long)n[1], (long long)n[2], (long long)m, box,
                 kr_dtype_name(dt), e, tol);
    free(ref);
    kr_array_destroy(img), kr_array_destroy(ksp), kr_array_destroy(oimg), kr_array_destroy(oksp);
    kr_array_destroy(t), kr_array_destroy(w);
    kr_drft_plan_destroy(p);
    kr_ctx_destroy(c);
}

static void test_against_direct_sums(void)
{
    const int64_t a[3] = {8, 6, 1}, b[3] = {7, 5, 1}, c3[3] = {4, 6, 5}, d[3] = {9, 1, 1};
    check_case(a, 57, 0, 0, KR_C128, 1e-12);
    check_case(b, 40, 1, 1, KR_C128, 1e-12);
    check_case(c3, 91, 1, 1, KR_C128, 1e-12);
    check_case(d, 13, 0, 1, KR_C128, 1e-12);
    check_case(a, 57, 0, 0, KR_C64, 2e-6);
    check_case(c3, 91, 1, 1, KR_C64, 2e-6);
    check_case(b, 40, 0, 1, KR_C64, 2e-6);
}

/* On the Cartesian grid the forward DrFT is the centred DFT and the adjoint the centred
 * inverse DFT (unnormalised): compared with a separable DFT computed here. */
static void test_cartesian_dft(void)
{
    const int64_t n[3] = {6, 5, 1};
    kr_ctx *c = ctx_of(KR_BACKEND_CPU_SERIAL, 0);
    kr_array *t = NULL;
    KT_OK(kr_traj_cartesian(&t, n[0], n[1], 1, KR_F64));
    KT_CHECK(t && t->ndim == 3 && t->dims[1] == 6 && t->dims[2] == 5);
    kr_drft_plan *p = NULL;
    KT_OK(kr_drft_plan_create(&p, c, n, t, NULL, NULL));
    int64_t idims[2] = {6, 5};
    kr_array *img = kt_rand_complex(KR_C128, 2, idims, 11), *k = NULL, *back = NULL;
    KT_OK(kr_array_create(&k, KR_C128, 2, idims, KR_HOST, NULL));
    KT_OK(kr_array_create(&back, KR_C128, 2, idims, KR_HOST, NULL));
    KT_OK(kr_drft_forward(p, img, k));
    double emax = 0;
    for (int64_t ky = 0; ky < 5; ky++)
        for (int64_t kx = 0; kx < 6; kx++) {
            double re = 0, im = 0;
            for (int64_t y = 0; y < 5; y++)
                for (int64_t x = 0; x < 6; x++) {
                    double ph = -2 * PI * ((double)((kx - 3) * (x - 3)) / 6.0 +
                                           (double)((ky - 2) * (y - 2)) / 5.0);
                    double a = kt_cget(img, y * 6 + x, 0), b = kt_cget(img, y * 6 + x, 1);
                    re += a * cos(ph) - b * sin(ph);
                    im += a * sin(ph) + b * cos(ph);
                }
            emax = fmax(emax, hypot(kt_cget(k, ky * 6 + kx, 0) - re, kt_cget(k, ky * 6 + kx, 1) - im));
        }
    KT_LE(emax, 1e-12);
    /* adjoint of the forward = N times the identity on the Cartesian grid */
    KT_OK(kr_drft_adjoint(p, k, back));
    emax = 0;
    for (int64_t i = 0; i < 30; i++)
        emax = fmax(emax, hypot(kt_cget(back, i, 0) / 30 - kt_cget(img, i, 0),
                                kt_cget(back, i, 1) / 30 - kt_cget(img, i, 1)));
    KT_LE(emax, 1e-13);
    kr_array_destroy(img), kr_array_destroy(k), kr_array_destroy(back), kr_array_destroy(t);
    kr_drft_plan_destroy(p);
    kr_ctx_destroy(c);
}

/* Cartesian samples: forward == kr_fft(FORWARD | CENTERED), adjoint == kr_fft(BACKWARD |
 * CENTERED), unnormalised, for even, odd and 3-D grids. */
static void test_vs_fft(void)
{
    const int64_t sizes[3][3] = {{16, 12, 1}, {9, 7, 1}, {6, 5, 4}};
    kr_ctx *c = ctx_of(KR_BACKEND_CPU, 2);
    for (int q = 0; q < 3; q++) {
        const int64_t *n = sizes[q];
        for (int prec = 0; prec < 2; prec++) {
            kr_dtype dt = prec ? KR_C128 : KR_C64;
            kr_array *t = NULL, *x = kt_rand_complex(dt, 3, n, 50 + (uint64_t)q), *k = NULL, *kf = NULL;
            kr_array *b = NULL, *bf = NULL;
            KT_OK(kr_traj_cartesian(&t, n[0], n[1], n[2], KR_F64));
            kr_drft_plan *p = NULL;
            KT_OK(kr_drft_plan_create(&p, c, n, t, NULL, NULL));
            int64_t kd[3];
            int kn = kr_drft_sample_dims(p, kd);
            KT_OK(kr_array_create(&k, dt, kn, kd, KR_HOST, NULL));
            KT_OK(kr_array_create(&kf, dt, 3, n, KR_HOST, NULL));
            KT_OK(kr_array_create(&b, dt, 3, n, KR_HOST, NULL));
            KT_OK(kr_array_create(&bf, dt, 3, n, KR_HOST, NULL));
            KT_OK(kr_drft_forward(p, x, k));
            KT_OK(kr_fft(c, x, kf, 0, KR_FFT_FORWARD, KR_FFT_CENTERED));
            KT_OK(kr_drft_adjoint(p, k, b));
            KT_OK(kr_fft(c, k, bf, 0, KR_FFT_BACKWARD, KR_FFT_CENTERED));
            double e1 = 0, r1 = 0, e2 = 0, r2 = 0;
            for (int64_t i = 0; i < kr_array_numel(x); i++) {
                e1 = fmax(e1, hypot(kt_cget(k, i, 0) - kt_cget(kf, i, 0), kt_cget(k, i, 1) - kt_cget(kf, i, 1)));
                r1 = fmax(r1, hypot(kt_cget(kf, i, 0), kt_cget(kf, i, 1)));
                e2 = fmax(e2, hypot(kt_cget(b, i, 0) - kt_cget(bf, i, 0), kt_cget(b, i, 1) - kt_cget(bf, i, 1)));
                r2 = fmax(r2, hypot(kt_cget(bf, i, 0), kt_cget(bf, i, 1)));
            }
            KT_LE(e1 / r1, prec ? 1e-13 : 2e-6);
            KT_LE(e2 / r2, prec ? 1e-13 : 2e-6);
            kr_array *arr[] = {t, x, k, kf, b, bf};
            for (int i = 0; i < 6; i++) kr_array_destroy(arr[i]);
            kr_drft_plan_destroy(p);
        }
    }
    kr_ctx_destroy(c);
}

/* The linop form (sqrt-split weights) passes kr_linop_adjoint_test; batch; dumb arguments. */
static void test_linop(void)
{
    const int64_t n[3] = {10, 8, 1};
    kr_ctx *c = ctx_of(KR_BACKEND_CPU, 2);
    kr_array *t = rand_traj(150, n, KR_F32, 61), *w = NULL;
    int64_t wd[1] = {150};
    KT_OK(kr_array_create(&w, KR_F64, 1, wd, KR_HOST, NULL));
    for (int64_t i = 0; i < 150; i++) ((double *)w->data)[i] = 0.5 + fabs(kri_rand_sym(2, (uint64_t)i));
    kr_drft_opts o;
    kr_drft_opts_default(&o);
    o.basis = KR_DRFT_BASIS_BOX;
    for (int prec = 0; prec < 2; prec++)
        for (int64_t batch = 1; batch <= 3; batch += 2) {
            kr_linop *op = NULL;
            KT_OK(kr_drft_linop_create(&op, c, n, t, w, &o, prec ? KR_C128 : KR_C64, batch));
            double rel = 1;
            KT_OK(kr_linop_adjoint_test(op, 7, &rel));
            KT_LE(rel, prec ? 1e-13 : 1e-6);
            int64_t id[KR_MAX_DIMS], od[KR_MAX_DIMS];
            KT_CHECK(kr_linop_in_dims(op, id) == (batch > 1 ? 4 : 3) && id[0] == 10 && id[1] == 8);
            KT_CHECK(kr_linop_out_dims(op, od) == (batch > 1 ? 2 : 1) && od[0] == 150);
            kr_linop_destroy(op);
        }
    kr_linop *op = NULL;
    KT_STATUS(kr_drft_linop_create(&op, c, n, t, w, &o, KR_F32, 1), KR_ERR_DTYPE);
    KT_STATUS(kr_drft_linop_create(&op, c, n, t, w, &o, KR_C64, 0), KR_ERR_DIM);
    KT_STATUS(kr_drft_linop_create(NULL, c, n, t, w, &o, KR_C64, 1), KR_ERR_INVALID_ARG);
    KT_CHECK(op == NULL);
    kr_array_destroy(t), kr_array_destroy(w);
    kr_ctx_destroy(c);
}

/* <F x, W y> == <x, F^H W y>, and W = 1: the plain adjoint pair. */
static void test_dot_product(void)
{
    const int64_t n[3] = {12, 10, 3};
    kr_ctx *c = ctx_of(KR_BACKEND_CPU, 2);
    for (int prec = 0; prec < 2; prec++) {
        kr_dtype dt = prec ? KR_C128 : KR_C64;
        kr_array *t = rand_traj(300, n, KR_F32, 5);
        kr_drft_opts o;
        kr_drft_opts_default(&o);
        o.basis = KR_DRFT_BASIS_BOX;
        kr_drft_plan *p = NULL;
        KT_OK(kr_drft_plan_create(&p, c, n, t, NULL, &o));
        int64_t idims[5] = {12, 10, 3, 1, 2}, kdims[2] = {300, 2};
        kr_array *x = kt_rand_complex(dt, 5, idims, 21), *y = kt_rand_complex(dt, 2, kdims, 22);
        kr_array *Fx = NULL, *Fy = NULL;
        KT_OK(kr_array_create(&Fx, dt, 2, kdims, KR_HOST, NULL));
        KT_OK(kr_array_create(&Fy, dt, 5, idims, KR_HOST, NULL));
        KT_OK(kr_drft_forward(p, x, Fx));
        KT_OK(kr_drft_adjoint(p, y, Fy));
        double a[2] = {0, 0}, b[2] = {0, 0}, nx = 0, ny = 0;
        for (int64_t i = 0; i < 600; i++) {
            a[0] += kt_cget(Fx, i, 0) * kt_cget(y, i, 0) + kt_cget(Fx, i, 1) * kt_cget(y, i, 1);
            a[1] += kt_cget(Fx, i, 0) * kt_cget(y, i, 1) - kt_cget(Fx, i, 1) * kt_cget(y, i, 0);
            ny += kt_cget(y, i, 0) * kt_cget(y, i, 0) + kt_cget(y, i, 1) * kt_cget(y, i, 1);
            nx += kt_cget(Fx, i, 0) * kt_cget(Fx, i, 0) + kt_cget(Fx, i, 1) * kt_cget(Fx, i, 1);
        }
        for (int64_t i = 0; i < 720; i++) {
            b[0] += kt_cget(x, i, 0) * kt_cget(Fy, i, 0) + kt_cget(x, i, 1) * kt_cget(Fy, i, 1);
            b[1] += kt_cget(x, i, 0) * kt_cget(Fy, i, 1) - kt_cget(x, i, 1) * kt_cget(Fy, i, 0);
        }
        double rel = hypot(a[0] - b[0], a[1] - b[1]) / sqrt(nx * ny);
        KT_LE(rel, prec ? 1e-14 : 1e-6);
        kr_array_destroy(x), kr_array_destroy(y), kr_array_destroy(Fx), kr_array_destroy(Fy);
        kr_array_destroy(t);
        kr_drft_plan_destroy(p);
    }
    kr_ctx_destroy(c);
}

/* Q on the image grid and the 2x grid against the direct sum; F^H W F x = Q2 (*) x. */
static void test_q_toeplitz(void)
{
    const int64_t n[3] = {6, 5, 1}, g2[3] = {12, 10, 1};
    kr_ctx *c = ctx_of(KR_BACKEND_CPU, 2);
    kr_array *t = rand_traj(70, n, KR_F64, 31), *w = NULL;
    int64_t wd1[1] = {70};
    KT_OK(kr_array_create(&w, KR_F64, 1, wd1, KR_HOST, NULL));
    for (int64_t i = 0; i < 70; i++) ((double *)w->data)[i] = 1.0 + 0.5 * kri_rand_sym(8, (uint64_t)i);
    kr_drft_opts o;
    kr_drft_opts_default(&o);
    o.basis = KR_DRFT_BASIS_BOX;
    kr_drft_plan *p = NULL;
    KT_OK(kr_drft_plan_create(&p, c, n, t, w, &o));
    kr_array *q1 = NULL, *q2 = NULL;
    KT_OK(kr_array_create(&q1, KR_C128, 3, n, KR_HOST, NULL));
    KT_OK(kr_array_create(&q2, KR_C128, 3, g2, KR_HOST, NULL));
    KT_OK(kr_drft_q(p, q1));
    KT_OK(kr_drft_q(p, q2));
    double ref[2 * 120];
    naive_adjoint(t, (double *)w->data, 1, n, n, NULL, 1, ref);
    KT_LE(rel_maxerr(q1, ref, 30), 1e-12);
    naive_adjoint(t, (double *)w->data, 1, n, g2, NULL, 1, ref);
    KT_LE(rel_maxerr(q2, ref, 120), 1e-12);
    /* Toeplitz: (F^H W F x)[a] = sum_b Q2[a - b + n] x[b] */
    kr_array *x = kt_rand_complex(KR_C128, 3, n, 41), *k = NULL, *y = NULL;
    int64_t kd[1] = {70};
    KT_OK(kr_array_create(&k, KR_C128, 1, kd, KR_HOST, NULL));
    KT_OK(kr_array_create(&y, KR_C128, 3, n, KR_HOST, NULL));
    KT_OK(kr_drft_forward(p, x, k));
    KT_OK(kr_drft_adjoint(p, k, y)); /* adjoint applies W phi, forward phi: F^H W F */
    double emax = 0, rmax = 0;
    for (int64_t ay = 0; ay < 5; ay++)
        for (int64_t ax = 0; ax < 6; ax++) {
            double re = 0, im = 0;
            for (int64_t by = 0; by < 5; by++)
                for (int64_t bx = 0; bx < 6; bx++) {
                    int64_t qi = (ay - by + 5) * 12 + (ax - bx + 6);
                    double qr = kt_cget(q2, qi, 0), qim = kt_cget(q2, qi, 1);
                    double xr = kt_cget(x, by * 6 + bx, 0), xi = kt_cget(x, by * 6 + bx, 1);
                    re += qr * xr - qim * xi;
                    im += qr * xi + qim * xr;
                }
            emax = fmax(emax, hypot(kt_cget(y, ay * 6 + ax, 0) - re, kt_cget(y, ay * 6 + ax, 1) - im));
            rmax = fmax(rmax, hypot(re, im));
        }
    KT_LE(emax / rmax, 1e-12);
    /* wrong Q dims */
    int64_t bad[3] = {12, 5, 1};
    kr_array *qb = NULL;
    KT_OK(kr_array_create(&qb, KR_C128, 3, bad, KR_HOST, NULL));
    KT_STATUS(kr_drft_q(p, qb), KR_ERR_DIM);
    kr_array_destroy(qb);
    kr_array_destroy(q1), kr_array_destroy(q2), kr_array_destroy(x), kr_array_destroy(k);
    kr_array_destroy(y), kr_array_destroy(t), kr_array_destroy(w);
    kr_drft_plan_destroy(p);
    kr_ctx_destroy(c);
}

/* float32 vs float64 on a 64 x 64 image from 2000 random samples: the error per term is
 * bounded (fixed-point phase, polynomial sin/cos), so |err| <= 1e-6 * sum |c| is a loose
 * worst-case bound; the measured values are printed. Also k shifted by n (periodicity) with
 * check_k off. */
static void test_float_vs_double(void)
{
    const int64_t n[3] = {64, 64, 1};
    kr_ctx *c = ctx_of(KR_BACKEND_CPU, 2);
    kr_array *t = rand_traj(2000, n, KR_F64, 77);
    kr_drft_plan *p = NULL;
    KT_OK(kr_drft_plan_create(&p, c, n, t, NULL, NULL));
    int64_t kd[1] = {2000};
    kr_array *k64 = kt_rand_complex(KR_C128, 1, kd, 5), *k32 = NULL, *i64 = NULL, *i32 = NULL;
    KT_OK(kr_array_astype(&k32, k64, KR_C64));
    KT_OK(kr_array_create(&i64, KR_C128, 3, n, KR_HOST, NULL));
    KT_OK(kr_array_create(&i32, KR_C64, 3, n, KR_HOST, NULL));
    KT_OK(kr_drft_adjoint(p, k64, i64));
    KT_OK(kr_drft_adjoint(p, k32, i32));
    double sumc = 0, emax = 0, e2 = 0, r2 = 0;
    for (int64_t i = 0; i < 2000; i++) sumc += hypot(kt_cget(k32, i, 0), kt_cget(k32, i, 1));
    for (int64_t i = 0; i < 4096; i++) {
        double dr = kt_cget(i32, i, 0) - kt_cget(i64, i, 0), di = kt_cget(i32, i, 1) - kt_cget(i64, i, 1);
        emax = fmax(emax, hypot(dr, di));
        e2 += dr * dr + di * di;
        r2 += kt_cget(i64, i, 0) * kt_cget(i64, i, 0) + kt_cget(i64, i, 1) * kt_cget(i64, i, 1);
    }
    printf("  float adjoint 64x64 from 2000 samples: max err %.3g = %.3g x sum|c|, NRMSE %.3g\n",
           emax, emax / sumc, sqrt(e2 / r2));
    KT_LE(emax / sumc, 1e-6);
    KT_LE(sqrt(e2 / r2), 1e-6);
    /* forward */
    kr_array *x64 = kt_rand_complex(KR_C128, 3, n, 6), *x32 = NULL, *o64 = NULL, *o32 = NULL;
    KT_OK(kr_array_astype(&x32, x64, KR_C64));
    KT_OK(kr_array_create(&o64, KR_C128, 1, kd, KR_HOST, NULL));
    KT_OK(kr_array_create(&o32, KR_C64, 1, kd, KR_HOST, NULL));
    KT_OK(kr_drft_forward(p, x64, o64));
    KT_OK(kr_drft_forward(p, x32, o32));
    double sumx = 0;
    emax = e2 = r2 = 0;
    for (int64_t i = 0; i < 4096; i++) sumx += hypot(kt_cget(x32, i, 0), kt_cget(x32, i, 1));
    for (int64_t i = 0; i < 2000; i++) {
        double dr = kt_cget(o32, i, 0) - kt_cget(o64, i, 0), di = kt_cget(o32, i, 1) - kt_cget(o64, i, 1);
        emax = fmax(emax, hypot(dr, di));
        e2 += dr * dr + di * di;
        r2 += kt_cget(o64, i, 0) * kt_cget(o64, i, 0) + kt_cget(o64, i, 1) * kt_cget(o64, i, 1);
    }
    printf("  float forward 64x64 to 2000 samples: max err %.3g = %.3g x sum|x|, NRMSE %.3g\n",
           emax, emax / sumx, sqrt(e2 / r2));
    KT_LE(emax / sumx, 1e-6);
    KT_LE(sqrt(e2 / r2), 1e-6);
    /* periodicity: k + n gives the same values on the integer grid when check_k is off */
    kr_array *ts = NULL;
    KT_OK(kr_array_clone(&ts, t, KR_HOST, NULL));
    for (int64_t i = 0; i < 2000; i++) ((double *)ts->data)[3 * i] += 64.0;
    kr_drft_plan *ps = NULL;
    KT_STATUS(kr_drft_plan_create(&ps, c, n, ts, NULL, NULL), KR_ERR_GEOMETRY);
    kr_drft_opts o;
    kr_drft_opts_default(&o);
    o.check_k = 0;
    KT_OK(kr_drft_plan_create(&ps, c, n, ts, NULL, &o));
    kr_array *s64 = NULL;
    KT_OK(kr_array_create(&s64, KR_C128, 3, n, KR_HOST, NULL));
    KT_OK(kr_drft_adjoint(ps, k64, s64));
    emax = 0;
    for (int64_t i = 0; i < 4096; i++)
        emax = fmax(emax, hypot(kt_cget(s64, i, 0) - kt_cget(i64, i, 0), kt_cget(s64, i, 1) - kt_cget(i64, i, 1)));
    KT_LE(emax, 1e-9);
    kr_array_destroy(s64), kr_array_destroy(ts);
    kr_drft_plan_destroy(ps);
    kr_array_destroy(x64), kr_array_destroy(x32), kr_array_destroy(o64), kr_array_destroy(o32);
    kr_array_destroy(k64), kr_array_destroy(k32), kr_array_destroy(i64), kr_array_destroy(i32);
    kr_array_destroy(t);
    kr_drft_plan_destroy(p);
    kr_ctx_destroy(c);
}

/* The float polynomial sin/cos against libm over the whole circle. */
static void test_sincos_fixed(void)
{
    double emax = 0;
    for (uint64_t i = 0; i < 200000; i++) {
        uint32_t p = (uint32_t)kri_rand_u64(3, i);
        if (i < 8) p = (uint32_t)(i << 29); /* the quadrant boundaries */
        float s, c;
        kri_sincos_fixed(p, &s, &c);
        double a = 2 * PI * (double)(int32_t)p / 4294967296.0;
        emax = fmax(emax, fmax(fabs(s - sin(a)), fabs(c - cos(a))));
    }
    printf("  fixed-point polynomial sin/cos: max abs err %.3g\n", emax);
    KT_LE(emax, 2.5e-7);
}

/* CPU_SERIAL and CPU with 2 or 3 threads give identical bits. */
static void test_threads_bitwise(void)
{
    const int64_t n[3] = {20, 13, 3};
    kr_array *t = rand_traj(517, n, KR_F32, 9);
    int64_t idims[4] = {20, 13, 3, 2}, kd[2] = {517, 2};
    for (int prec = 0; prec < 2; prec++) {
        kr_dtype dt = prec ? KR_C128 : KR_C64;
        kr_array *x = kt_rand_complex(dt, 4, idims, 1), *y = kt_rand_complex(dt, 2, kd, 2);
        kr_array *res[3][2];
        for (int r = 0; r < 3; r++) {
            kr_ctx *c = r == 0 ? ctx_of(KR_BACKEND_CPU_SERIAL, 0) : ctx_of(KR_BACKEND_CPU, r + 1);
            kr_drft_plan *p = NULL;
            KT_OK(kr_drft_plan_create(&p, c, n, t, NULL, NULL));
            KT_OK(kr_array_create(&res[r][0], dt, 4, idims, KR_HOST, NULL));
            KT_OK(kr_array_create(&res[r][1], dt, 2, kd, KR_HOST, NULL));
            KT_OK(kr_drft_adjoint(p, y, res[r][0]));
            KT_OK(kr_drft_forward(p, x, res[r][1]));
            kr_drft_plan_destroy(p);
            kr_ctx_destroy(c);
        }
        for (int r = 1; r < 3; r++)
            for (int j = 0; j < 2; j++)
                KT_CHECK(memcmp(res[0][j]->data, res[r][j]->data, kr_array_bytes(res[0][j])) == 0);
        for (int r = 0; r < 3; r++) kr_array_destroy(res[r][0]), kr_array_destroy(res[r][1]);
        kr_array_destroy(x), kr_array_destroy(y);
    }
    kr_array_destroy(t);
}

static void test_dumb_inputs(void)
{
    const int64_t n[3] = {8, 8, 1}, zero[3] = {8, 0, 1};
    kr_ctx *c = ctx_of(KR_BACKEND_CPU, 1);
    kr_array *t = rand_traj(40, n, KR_F32, 3);
    kr_drft_plan *p = NULL;
    KT_STATUS(kr_drft_plan_create(NULL, c, n, t, NULL, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_drft_plan_create(&p, NULL, n, t, NULL, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_drft_plan_create(&p, c, NULL, t, NULL, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_drft_plan_create(&p, c, n, NULL, NULL, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_drft_plan_create(&p, c, zero, t, NULL, NULL), KR_ERR_DIM);
    KT_CHECK(p == NULL);
    kr_drft_opts o;
    kr_drft_opts_default(&o);
    o.basis = (kr_drft_basis)7;
    KT_STATUS(kr_drft_plan_create(&p, c, n, t, NULL, &o), KR_ERR_INVALID_ARG);
    kr_drft_opts_default(&o);
    o.voxels_per_thread = 3;
    KT_STATUS(kr_drft_plan_create(&p, c, n, t, NULL, &o), KR_ERR_INVALID_ARG);
    /* trajectory shape, dtype, NaN, range */
    int64_t d2[2] = {2, 40};
    kr_array *t2 = NULL, *tc = NULL;
    KT_OK(kr_array_create(&t2, KR_F32, 2, d2, KR_HOST, NULL));
    KT_STATUS(kr_drft_plan_create(&p, c, n, t2, NULL, NULL), KR_ERR_DIM);
    int64_t d3[2] = {3, 40};
    KT_OK(kr_array_create(&tc, KR_C64, 2, d3, KR_HOST, NULL));
    KT_STATUS(kr_drft_plan_create(&p, c, n, tc, NULL, NULL), KR_ERR_DTYPE);
    float *tv = (float *)t->data;
    float keep = tv[10];
    tv[10] = NAN;
    KT_STATUS(kr_drft_plan_create(&p, c, n, t, NULL, NULL), KR_ERR_GEOMETRY);
    tv[10] = 4.0f; /* k = n/2 is outside [-n/2, n/2) */
    KT_STATUS(kr_drft_plan_create(&p, c, n, t, NULL, NULL), KR_ERR_GEOMETRY);
    tv[10] = -4.0f; /* allowed */
    KT_OK(kr_drft_plan_create(&p, c, n, t, NULL, NULL));
    kr_drft_plan_destroy(p);
    p = NULL;
    tv[10] = keep;
    tv[11] = 0.5f; /* a 2-D image (nz = 1) needs |kz| < 1/2 */
    KT_STATUS(kr_drft_plan_create(&p, c, n, t, NULL, NULL), KR_ERR_GEOMETRY);
    tv[11] = 0.0f;
    /* weights */
    int64_t wd[1] = {40}, wbad[1] = {39};
    kr_array *w = NULL, *wb = NULL;
    KT_OK(kr_array_create(&w, KR_F32, 1, wd, KR_HOST, NULL));
    KT_STATUS(kr_drft_plan_create(&p, c, n, t, w, NULL), KR_ERR_INVALID_ARG); /* all zero */
    for (int i = 0; i < 40; i++) ((float *)w->data)[i] = 1.0f;
    ((float *)w->data)[3] = -1.0f;
    KT_STATUS(kr_drft_plan_create(&p, c, n, t, w, NULL), KR_ERR_INVALID_ARG);
    ((float *)w->data)[3] = NAN;
    KT_STATUS(kr_drft_plan_create(&p, c, n, t, w, NULL), KR_ERR_INVALID_ARG);
    ((float *)w->data)[3] = 0.0f; /* single zeros are allowed: the sample is dropped */
    KT_OK(kr_array_create(&wb, KR_F32, 1, wbad, KR_HOST, NULL));
    KT_STATUS(kr_drft_plan_create(&p, c, n, t, wb, NULL), KR_ERR_DIM);
    KT_OK(kr_drft_plan_create(&p, c, n, t, w, NULL));
    KT_STATUS(kr_drft_set_weights(NULL, w), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_drft_set_weights(p, wb), KR_ERR_DIM);
    KT_OK(kr_drft_set_weights(p, NULL));
    KT_CHECK(kr_drft_samples(p) == 40);
    int64_t sd[KR_MAX_DIMS];
    KT_CHECK(kr_drft_sample_dims(p, sd) == 1 && sd[0] == 40);
    /* execution arguments */
    int64_t kd[1] = {40}, kd2[1] = {41}, kdb[2] = {40, 2}, id[2] = {8, 8}, idb[3] = {8, 7, 1};
    kr_array *k = kt_rand_complex(KR_C64, 1, kd, 1), *k2 = kt_rand_complex(KR_C64, 1, kd2, 1);
    kr_array *kb = kt_rand_complex(KR_C64, 2, kdb, 1), *im = NULL, *imb = NULL, *im128 = NULL;
    kr_array *imr = NULL;
    KT_OK(kr_array_create(&im, KR_C64, 2, id, KR_HOST, NULL));
    KT_OK(kr_array_create(&imb, KR_C64, 3, idb, KR_HOST, NULL));
    KT_OK(kr_array_create(&im128, KR_C128, 2, id, KR_HOST, NULL));
    KT_OK(kr_array_create(&imr, KR_F32, 2, id, KR_HOST, NULL));
    KT_STATUS(kr_drft_adjoint(NULL, k, im), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_drft_adjoint(p, NULL, im), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_drft_adjoint(p, k, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_drft_forward(p, NULL, k), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_drft_q(p, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_drft_adjoint(p, k2, im), KR_ERR_DIM);  /* 41 samples vs 40 */
    KT_STATUS(kr_drft_forward(p, im, k2), KR_ERR_DIM);
    KT_STATUS(kr_drft_adjoint(p, kb, im), KR_ERR_DIM);  /* batch 2 vs 1 */
    KT_STATUS(kr_drft_adjoint(p, k, imb), KR_ERR_DIM);  /* 8x7 image */
    KT_STATUS(kr_drft_adjoint(p, k, im128), KR_ERR_DTYPE);
    KT_STATUS(kr_drft_adjoint(p, k, imr), KR_ERR_DTYPE);
    KT_OK(kr_drft_adjoint(p, k, im));
    ((float *)k->data)[17] = NAN;
    KT_STATUS(kr_drft_adjoint(p, k, im), KR_ERR_INVALID_ARG);
    ((float *)k->data)[17] = INFINITY;
    KT_STATUS(kr_drft_adjoint(p, k, im), KR_ERR_INVALID_ARG);
    ((float *)im->data)[5] = NAN;
    KT_STATUS(kr_drft_forward(p, im, kb), KR_ERR_DIM);
    KT_STATUS(kr_drft_forward(p, im, k2), KR_ERR_DIM);
    KT_STATUS(kr_drft_forward(p, im, k), KR_ERR_INVALID_ARG);
    /* device memory with a CPU context (descriptor only, never dereferenced) */
    kr_array dev;
    KT_OK(kr_array_wrap(&dev, KR_C64, 1, kd, k->data, KR_DEVICE));
    KT_STATUS(kr_drft_adjoint(p, &dev, im), KR_ERR_LOCATION);
    kr_array_destroy(k), kr_array_destroy(k2), kr_array_destroy(kb), kr_array_destroy(im);
    kr_array_destroy(imb), kr_array_destroy(im128), kr_array_destroy(imr);
    kr_array_destroy(w), kr_array_destroy(wb), kr_array_destroy(t2), kr_array_destroy(tc);
    kr_array_destroy(t);
    kr_drft_plan_destroy(p);
    kr_drft_plan_destroy(NULL);
    kr_ctx_destroy(c);
}

int main(void)
{
    KT_RUN(test_against_direct_sums);
    KT_RUN(test_cartesian_dft);
    KT_RUN(test_vs_fft);
    KT_RUN(test_linop);
    KT_RUN(test_dot_product);
    KT_RUN(test_q_toeplitz);
    KT_RUN(test_float_vs_double);
    KT_RUN(test_sincos_fixed);
    KT_RUN(test_threads_bitwise);
    KT_RUN(test_dumb_inputs);
    return kt_finish();
}
