/* Coil noise: the generator's exact formula, Gaussian moments and circularity, sample
 * covariance ~ Psi, pre-whitening to ~ I, W Psi W^H = I, determinism, bad input. */
#include "internal.h"
#include "test_sense_util.h"

#include <stdio.h>

static kr_ctx *g_ctx;

/* First samples equal the documented Box-Muller formula on kri_rand_u64. */
static void test_formula(void)
{
    const int64_t nc = 3, np = 5;
    int64_t d[2] = {np, nc};
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, KR_C64, 2, d, KR_HOST, NULL));
    KT_OK(kr_noise_add(g_ctx, a, 1, NULL, 0.5, 42));
    const float *v = a->data;
    double worst = 0;
    for (int64_t p = 0; p < np; p++)
        for (int64_t c = 0; c < nc; c++) {
            uint64_t q = (uint64_t)(p * nc + c);
            double u1 = (double)((kri_rand_u64(42, 2 * q) >> 11) + 1) / 9007199254740992.0;
            double u2 = (double)(kri_rand_u64(42, 2 * q + 1) >> 11) / 9007199254740992.0;
            double r = sqrt(-log(u1)), t = 2 * M_PI * u2;
            float er = (float)(0.5 * r * cos(t)), ei = (float)(0.5 * r * sin(t));
            double dr = fabs(v[2 * (p + np * c)] - er), di = fabs(v[2 * (p + np * c) + 1] - ei);
            if (dr > worst) worst = dr;
            if (di > worst) worst = di;
        }
    KT_LE(worst, 1e-7);
    kr_array_destroy(a);
}

/* Moments of CN(0, 1): E|n|^2 = 1, E|n|^4 = 2, E[n^2] = 0, E[n] = 0, P(|Re n| < 1/sqrt 2). */
static void test_moments(void)
{
    const int64_t n = 400000;
    int64_t d[2] = {n, 1};
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, KR_C64, 2, d, KR_HOST, NULL));
    KT_OK(kr_noise_add(g_ctx, a, 1, NULL, 1.0, 3));
    const float *v = a->data;
    double m2 = 0, m4 = 0, pr = 0, pi = 0, mr = 0, mi = 0, within = 0;
    for (int64_t i = 0; i < n; i++) {
        double re = v[2 * i], im = v[2 * i + 1], a2 = re * re + im * im;
        m2 += a2;
        m4 += a2 * a2;
        pr += re * re - im * im;
        pi += 2 * re * im;
        mr += re;
        mi += im;
        within += fabs(re) < sqrt(0.5);
    }
    m2 /= n, m4 /= n, pr /= n, pi /= n, mr /= n, mi /= n, within /= n;
    printf("  E|n|^2 %.4f, E|n|^4 %.4f, E[n^2] %.4f%+.4fi, mean %.4f%+.4fi, P(|Re|<sd) %.4f\n", m2,
           m4, pr, pi, mr, mi, within);
    /* standard errors: |n|^2 ~ Exp(1): sd 1/sqrt(n) = 0.0016; |n|^4: sd sqrt(20)/sqrt(n)... */
    KT_NEAR(m2, 1.0, 0.008);
    KT_NEAR(m4, 2.0, 0.04);
    KT_NEAR(pr, 0.0, 0.008);
    KT_NEAR(pi, 0.0, 0.008);
    KT_NEAR(mr, 0.0, 0.006);
    KT_NEAR(mi, 0.0, 0.006);
    KT_NEAR(within, 0.682689, 0.004);
    kr_array_destroy(a);
}

/* Sample covariance ~ sigma^2 Psi; whitened noise ~ I; W Psi W^H = I exactly. */
static void test_covariance_and_whitening(void)
{
    const int64_t nc = 5, n = 200000;
    const double sigma = 1.5;
    kr_array *psi = kts_psi(nc, 11), *a = NULL, *est = NULL, *w = NULL, *estw = NULL;
    int64_t d[2] = {n, nc};
    KT_OK(kr_array_create(&a, KR_C64, 2, d, KR_HOST, NULL));
    KT_OK(kr_noise_add(g_ctx, a, 1, psi, sigma, 17));
    KT_OK(kr_noise_covariance(g_ctx, a, 1, &est));
    KT_CHECK(est->dtype == KR_C128 && est->dims[0] == nc && est->dims[1] == nc);
    const double *P = psi->data, *E = est->data;
    double worst = 0; /* in units of the standard error sigma^2 sqrt(P_rr P_cc / n) */
    for (int64_t r = 0; r < nc; r++)
        for (int64_t c = 0; c < nc; c++) {
            double se = sigma * sigma * sqrt(P[2 * (r + nc * r)] * P[2 * (c + nc * c)] / n);
            double dr = E[2 * (r + nc * c)] - sigma * sigma * P[2 * (r + nc * c)];
            double di = E[2 * (r + nc * c) + 1] - sigma * sigma * P[2 * (r + nc * c) + 1];
            double z = hypot(dr, di) / se;
            if (z > worst) worst = z;
        }
    printf("  covariance of %lld samples: largest deviation %.2f standard errors\n", (long long)n,
           worst);
    KT_LE(worst, 5.0);
    /* W Psi W^H = I */
    KT_OK(kr_noise_whitener(psi, &w));
    const double *W = w->data;
    double werr = 0;
    for (int64_t r = 0; r < nc; r++)
        for (int64_t c = 0; c < nc; c++) {
            double sr = 0, si = 0;
            for (int64_t i = 0; i < nc; i++)
                for (int64_t j = 0; j < nc; j++) {
                    /* W[r,i] P[i,j] conj(W[c,j]) */
                    double ar = W[2 * (r + nc * i)], ai = W[2 * (r + nc * i) + 1];
                    double pr = P[2 * (i + nc * j)], pi = P[2 * (i + nc * j) + 1];
                    double br = W[2 * (c + nc * j)], bi = -W[2 * (c + nc * j) + 1];
                    double tr = ar * pr - ai * pi, ti = ar * pi + ai * pr;
                    sr += tr * br - ti * bi;
                    si += tr * bi + ti * br;
                }
            werr = fmax(werr, hypot(sr - (r == c), si));
            if (c > r) KT_CHECK(W[2 * (r + nc * c)] == 0 && W[2 * (r + nc * c) + 1] == 0);
        }
    KT_LE(werr, 1e-12);
    /* whitened samples: covariance ~ sigma^2 I */
    KT_OK(kr_coil_apply(g_ctx, a, 1, w));
    KT_OK(kr_noise_covariance(g_ctx, a, 1, &estw));
    const double *F = estw->data;
    double wz = 0;
    for (int64_t r = 0; r < nc; r++)
        for (int64_t c = 0; c < nc; c++) {
            double z = hypot(F[2 * (r + nc * c)] / (sigma * sigma) - (r == c),
                             F[2 * (r + nc * c) + 1] / (sigma * sigma)) *
                       sqrt((double)n);
            if (z > wz) wz = z;
        }
    printf("  whitened: largest deviation from I %.2f standard errors\n", wz);
    KT_LE(wz, 5.0);
    kr_array_destroy(psi);
    kr_array_destroy(a);
    kr_array_destroy(est);
    kr_array_destroy(w);
    kr_array_destroy(estw);
}

/* Same noise for any thread count and for the coil axis first or last; a different seed
 * differs; covariance of a hand-made example; kr_coil_apply against a direct product. */
static void test_determinism_and_layout(void)
{
    const int64_t nc = 4, np = 3001;
    kr_array *psi = kts_psi(nc, 2), *a = NULL, *b = NULL, *c = NULL;
    int64_t da[2] = {np, nc}, db[2] = {nc, np};
    KT_OK(kr_array_create(&a, KR_C64, 2, da, KR_HOST, NULL));
    KT_OK(kr_array_create(&b, KR_C64, 2, da, KR_HOST, NULL));
    KT_OK(kr_array_create(&c, KR_C64, 2, db, KR_HOST, NULL));
    KT_OK(kr_ctx_set_threads(g_ctx, 1));
    KT_OK(kr_noise_add(g_ctx, a, 1, psi, 1.0, 8));
    KT_OK(kr_ctx_set_threads(g_ctx, 2));
    KT_OK(kr_noise_add(g_ctx, b, 1, psi, 1.0, 8));
    KT_OK(kr_noise_add(g_ctx, c, 0, psi, 1.0, 8));
    KT_OK(kr_ctx_set_threads(g_ctx, 0));
    KT_CHECK(memcmp(a->data, b->data, kr_array_bytes(a)) == 0);
    const float *av = a->data, *cv = c->data;
    int same = 1;
    for (int64_t p = 0; p < np; p++)
        for (int64_t k = 0; k < nc; k++)
            same &= av[2 * (p + np * k)] == cv[2 * (k + nc * p)] &&
                    av[2 * (p + np * k) + 1] == cv[2 * (k + nc * p) + 1];
    KT_CHECK(same);
    KT_OK(kr_noise_add(g_ctx, b, 1, psi, 1.0, 9)); /* b = noise(8) + noise(9) != 2 noise(8) */
    KT_CHECK(((const float *)b->data)[0] != 2 * av[0]);
    /* hand-made covariance: samples (1, i) and (1, -1) -> Psi = [[1, (-i-1)/2 ...]] */
    int64_t dh[2] = {2, 2};
    kr_array *h = NULL, *ph = NULL;
    KT_OK(kr_array_create(&h, KR_C64, 2, dh, KR_HOST, NULL));
    float *hv = h->data;              /* [sample, coil]: n_0 = (1, i), n_1 = (1, -1) */
    hv[0] = 1, hv[2] = 1;             /* coil 0 */
    hv[4] = 0, hv[5] = 1, hv[6] = -1; /* coil 1 */
    KT_OK(kr_noise_covariance(g_ctx, h, 1, &ph));
    const double *pv = ph->data;
    /* Psi_00 = 1, Psi_11 = (1 + 1)/2 = 1, Psi_10 = (n1 conj n0) mean = (i - 1)/2 */
    KT_NEAR(pv[0], 1.0, 1e-15);
    KT_NEAR(pv[6], 1.0, 1e-15);
    KT_NEAR(pv[2], -0.5, 1e-15);
    KT_NEAR(pv[3], 0.5, 1e-15);
    KT_NEAR(pv[4], -0.5, 1e-15);
    KT_NEAR(pv[5], -0.5, 1e-15);
    /* kr_coil_apply with a general (non-triangular) matrix: M = Psi */
    kr_array *x = NULL;
    KT_OK(kr_array_clone(&x, a, KR_HOST, NULL));
    KT_OK(kr_coil_apply(g_ctx, x, 1, psi));
    const double *M = psi->data;
    const float *xv = x->data;
    double worst = 0;
    for (int64_t p = 0; p < np; p += 97)
        for (int64_t r = 0; r < nc; r++) {
            double sr = 0, si = 0;
            for (int64_t k = 0; k < nc; k++) {
                double mr = M[2 * (r + nc * k)], mi = M[2 * (r + nc * k) + 1];
                double vr = av[2 * (p + np * k)], vi = av[2 * (p + np * k) + 1];
                sr += mr * vr - mi * vi;
                si += mr * vi + mi * vr;
            }
            worst = fmax(worst, hypot(xv[2 * (p + np * r)] - sr, xv[2 * (p + np * r) + 1] - si));
        }
    KT_LE(worst, 1e-5);
    kr_array_destroy(psi);
    kr_array_destroy(a);
    kr_array_destroy(b);
    kr_array_destroy(c);
    kr_array_destroy(h);
    kr_array_destroy(ph);
    kr_array_destroy(x);
}

static void test_bad_input(void)
{
    int64_t d[2] = {10, 3}, dp[2] = {4, 4};
    kr_array *a = NULL, *f = NULL, *p4 = NULL, *pf = NULL, *out = NULL, dev;
    KT_OK(kr_array_create(&a, KR_C64, 2, d, KR_HOST, NULL));
    KT_OK(kr_array_create(&f, KR_F32, 2, d, KR_HOST, NULL));
    KT_OK(kr_array_create(&p4, KR_C64, 2, dp, KR_HOST, NULL));
    KT_OK(kr_array_create(&pf, KR_F64, 2, dp, KR_HOST, NULL));
    KT_STATUS(kr_noise_add(g_ctx, NULL, 1, NULL, 1, 0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_noise_add(g_ctx, f, 1, NULL, 1, 0), KR_ERR_DTYPE);
    KT_STATUS(kr_noise_add(g_ctx, a, 2, NULL, 1, 0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_noise_add(g_ctx, a, -1, NULL, 1, 0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_noise_add(g_ctx, a, 1, NULL, -1, 0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_noise_add(g_ctx, a, 1, NULL, NAN, 0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_noise_add(g_ctx, a, 1, p4, 1, 0), KR_ERR_DIM);
    KT_STATUS(kr_noise_add(g_ctx, a, 0, pf, 1, 0), KR_ERR_DTYPE);
    KT_OK(kr_array_wrap(&dev, KR_C64, 2, d, (void *)0x1000, KR_DEVICE));
    KT_STATUS(kr_noise_add(g_ctx, &dev, 1, NULL, 1, 0), KR_ERR_LOCATION);
    KT_STATUS(kr_noise_covariance(g_ctx, a, 1, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_noise_covariance(g_ctx, a, 0, &out), KR_ERR_DIM); /* 3 samples of 10 coils */
    KT_CHECK(out == NULL);
    KT_STATUS(kr_noise_whitener(NULL, &out), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_noise_whitener(p4, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_noise_whitener(p4, &out), KR_ERR_INVALID_ARG); /* zero: not positive definite */
    float *pv = p4->data;
    for (int i = 0; i < 4; i++) pv[2 * (i + 4 * i)] = 1;
    pv[2 * 1] = 0.5f; /* (1, 0) = 0.5 but (0, 1) = 0 */
    KT_STATUS(kr_noise_whitener(p4, &out), KR_ERR_INVALID_ARG);
    pv[2 * 4] = 0.5f; /* symmetric now */
    KT_OK(kr_noise_whitener(p4, &out));
    kr_array_destroy(out);
    pv[2 * 4 + 1] = 0.1f; /* (0, 1) imaginary part: conj mismatch */
    KT_STATUS(kr_noise_whitener(p4, &out), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_coil_apply(g_ctx, a, 1, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_coil_apply(g_ctx, a, 1, p4), KR_ERR_DIM);
    KT_STATUS(kr_coil_apply(g_ctx, a, 0, pf), KR_ERR_DTYPE);
    kr_array_destroy(a);
    kr_array_destroy(f);
    kr_array_destroy(p4);
    kr_array_destroy(pf);
}

int main(void)
{
    if (kr_ctx_create(&g_ctx, KR_BACKEND_CPU) != KR_OK) return 1;
    KT_RUN(test_formula);
    KT_RUN(test_moments);
    KT_RUN(test_covariance_and_whitening);
    KT_RUN(test_determinism_and_layout);
    KT_RUN(test_bad_input);
    kr_ctx_destroy(g_ctx);
    return kt_finish();
}
