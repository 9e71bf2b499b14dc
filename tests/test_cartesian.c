/* Cartesian multi-coil: coil k-space against a direct DFT and against the analytic k-space of
 * the phantom module, coil images, RSS, optimal combination (formula and SNR optimality),
 * line masks, undersampling, bad input. */
#include "test_sense_util.h"

#include <stdio.h>

static kr_ctx *g_ctx;

static void fill_random(kr_array *a, uint64_t seed)
{
    float *v = a->data;
    int64_t n = 2 * kr_array_numel(a);
    uint64_t s = seed;
    for (int64_t i = 0; i < n; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        v[i] = (float)((double)(s >> 11) / 9007199254740992.0 - 0.5);
    }
}

/* kspace = centred unitary DFT of S_c x, by direct summation in double. */
static void test_kspace_direct(void)
{
    const int64_t sizes[2][2] = {{7, 6}, {8, 5}};
    for (int t = 0; t < 2; t++) {
        const int64_t nx = sizes[t][0], ny = sizes[t][1], nc = 2;
        int64_t d2[2] = {nx, ny}, d3[3] = {nx, ny, nc};
        kr_array *x = NULL, *s = NULL, *k = NULL, *back = NULL;
        KT_OK(kr_array_create(&x, KR_C64, 2, d2, KR_HOST, NULL));
        KT_OK(kr_array_create(&s, KR_C64, 3, d3, KR_HOST, NULL));
        KT_OK(kr_array_create(&k, KR_C64, 3, d3, KR_HOST, NULL));
        KT_OK(kr_array_create(&back, KR_C64, 3, d3, KR_HOST, NULL));
        fill_random(x, 1 + t);
        fill_random(s, 7 + t);
        KT_OK(kr_coil_kspace(g_ctx, x, s, k));
        const float *xv = x->data, *sv = s->data, *kv = k->data;
        double worst = 0;
        for (int64_t c = 0; c < nc; c++)
            for (int64_t v = 0; v < ny; v++)
                for (int64_t u = 0; u < nx; u++) {
                    double sr = 0, si = 0;
                    for (int64_t j = 0; j < ny; j++)
                        for (int64_t i = 0; i < nx; i++) {
                            int64_t q = i + nx * j, qc = q + nx * ny * c;
                            double ar = sv[2 * qc] * (double)xv[2 * q] -
                                        sv[2 * qc + 1] * (double)xv[2 * q + 1];
                            double ai = sv[2 * qc] * (double)xv[2 * q + 1] +
                                        sv[2 * qc + 1] * (double)xv[2 * q];
                            double ph = -2 * M_PI *
                                        ((double)((u - nx / 2) * (i - nx / 2)) / nx +
                                         (double)((v - ny / 2) * (j - ny / 2)) / ny);
                            sr += ar * cos(ph) - ai * sin(ph);
                            si += ar * sin(ph) + ai * cos(ph);
                        }
                    sr /= sqrt((double)(nx * ny));
                    si /= sqrt((double)(nx * ny));
                    int64_t q = u + nx * (v + ny * c);
                    worst = fmax(worst, hypot(kv[2 * q] - sr, kv[2 * q + 1] - si));
                }
        KT_LE(worst, 2e-6);
        /* coil images = S x */
        KT_OK(kr_coil_images(g_ctx, k, back));
        const float *bv = back->data;
        double werr = 0;
        for (int64_t c = 0; c < nc; c++)
            for (int64_t q = 0; q < nx * ny; q++) {
                int64_t qc = q + nx * ny * c;
                double ar = sv[2 * qc] * (double)xv[2 * q] - sv[2 * qc + 1] * (double)xv[2 * q + 1];
                double ai = sv[2 * qc] * (double)xv[2 * q + 1] + sv[2 * qc + 1] * (double)xv[2 * q];
                werr = fmax(werr, hypot(bv[2 * qc] - ar, bv[2 * qc + 1] - ai));
            }
        KT_LE(werr, 2e-6);
        /* real image input: same as complex with zero imaginary part */
        kr_array *xr = NULL, *kr2 = NULL;
        KT_OK(kr_array_create(&xr, KR_F32, 2, d2, KR_HOST, NULL));
        KT_OK(kr_array_create(&kr2, KR_C64, 3, d3, KR_HOST, NULL));
        float *xrv = xr->data, *xv2 = x->data;
        for (int64_t q = 0; q < nx * ny; q++) {
            xrv[q] = xv2[2 * q];
            xv2[2 * q + 1] = 0;
        }
        KT_OK(kr_coil_kspace(g_ctx, xr, s, kr2));
        KT_OK(kr_coil_kspace(g_ctx, x, s, k));
        KT_CHECK(memcmp(kr2->data, k->data, kr_array_bytes(k)) == 0);
        kr_array_destroy(xr);
        kr_array_destroy(kr2);
        kr_array_destroy(x);
        kr_array_destroy(s);
        kr_array_destroy(k);
        kr_array_destroy(back);
    }
}

/* The image-domain route with the phantom module's coil maps against its analytic coil k-space:
 * same sign, centring and scale (analytic F ~ unnormalised DFT = n * unitary DFT). */
static void test_kspace_analytic(void)
{
    const int64_t n = 128, nc = 3, ss = 8;
    int ne = 0;
    const kr_ellipse *e = kr_phantom_ellipses(KR_PHANTOM_SHEPP_LOGAN, &ne);
    kr_array *img = NULL, *maps128 = NULL, *maps = NULL, *k = NULL, *ka = NULL, *imgc = NULL;
    KT_OK(kr_phantom_2d_grid(&img, e, ne, KR_GRID_FFT, n, n, (int)ss, KR_F32));
    KT_OK(kr_phantom_coil_maps(&maps128, n, (int)nc));
    KT_OK(kr_array_astype(&maps, maps128, KR_C64));
    KT_OK(kr_array_create_like(&k, maps, KR_HOST, NULL));
    KT_OK(kr_coil_kspace(g_ctx, img, maps, k));
    const int kmax = 6;
    int64_t ns = (2 * kmax + 1) * (2 * kmax + 1);
    double *kk = malloc(sizeof(double) * 2 * (size_t)ns);
    int64_t m = 0;
    for (int v = -kmax; v <= kmax; v++)
        for (int u = -kmax; u <= kmax; u++, m++) kk[2 * m] = u, kk[2 * m + 1] = v;
    KT_OK(kr_phantom_kspace_coils(&ka, KR_PHANTOM_SHEPP_LOGAN, kk, ns, n, (int)nc));
    const float *kv = k->data;
    const double *av = ka->data;
    double num = 0, den = 0;
    for (int64_t c = 0; c < nc; c++)
        for (m = 0; m < ns; m++) {
            int64_t u = (int64_t)kk[2 * m] + n / 2, v = (int64_t)kk[2 * m + 1] + n / 2;
            /* pixel averaging of the raster: sinc(u/n) sinc(v/n) */
            double su = kk[2 * m] == 0 ? 1 : sin(M_PI * kk[2 * m] / n) / (M_PI * kk[2 * m] / n);
            double sv =
                kk[2 * m + 1] == 0 ? 1 : sin(M_PI * kk[2 * m + 1] / n) / (M_PI * kk[2 * m + 1] / n);
            int64_t q = u + n * (v + n * c);
            double rr = av[2 * (m + ns * c)] * su * sv, ri = av[2 * (m + ns * c) + 1] * su * sv;
            num += pow(n * kv[2 * q] - rr, 2) + pow(n * kv[2 * q + 1] - ri, 2);
            den += rr * rr + ri * ri;
        }
    printf("  image-domain route vs analytic coil k-space (|k| <= %d): relative error %.3g\n", kmax,
           sqrt(num / den));
    KT_LE(sqrt(num / den), 0.002);
    free(kk);
    kr_array_destroy(img);
    kr_array_destroy(imgc);
    kr_array_destroy(maps128);
    kr_array_destroy(maps);
    kr_array_destroy(k);
    kr_array_destroy(ka);
}

/* Invert a small complex matrix (Gauss-Jordan with partial pivoting), column-major doubles. */
static void invert(int n, const double *a, double *inv)
{
    double m[2 * 8 * 16];
    for (int r = 0; r < n; r++)
        for (int c = 0; c < 2 * n; c++) {
            double re = c < n ? a[2 * (r + n * c)] : (c - n == r),
                   im = c < n ? a[2 * (r + n * c) + 1] : 0;
            m[2 * (r * 2 * n + c)] = re;
            m[2 * (r * 2 * n + c) + 1] = im;
        }
    for (int p = 0; p < n; p++) {
        int best = p;
        for (int r = p + 1; r < n; r++)
            if (hypot(m[2 * (r * 2 * n + p)], m[2 * (r * 2 * n + p) + 1]) >
                hypot(m[2 * (best * 2 * n + p)], m[2 * (best * 2 * n + p) + 1]))
                best = r;
        for (int c = 0; c < 2 * n; c++)
            for (int k = 0; k < 2; k++) {
                double t = m[2 * (p * 2 * n + c) + k];
                m[2 * (p * 2 * n + c) + k] = m[2 * (best * 2 * n + c) + k];
                m[2 * (best * 2 * n + c) + k] = t;
            }
        double pr = m[2 * (p * 2 * n + p)], pi = m[2 * (p * 2 * n + p) + 1], d = pr * pr + pi * pi;
        double ir = pr / d, ii = -pi / d;
        for (int c = 0; c < 2 * n; c++) {
            double re = m[2 * (p * 2 * n + c)], im = m[2 * (p * 2 * n + c) + 1];
            m[2 * (p * 2 * n + c)] = re * ir - im * ii;
            m[2 * (p * 2 * n + c) + 1] = re * ii + im * ir;
        }
        for (int r = 0; r < n; r++) {
            if (r == p) continue;
            double fr = m[2 * (r * 2 * n + p)], fi = m[2 * (r * 2 * n + p) + 1];
            for (int c = 0; c < 2 * n; c++) {
                double re = m[2 * (p * 2 * n + c)], im = m[2 * (p * 2 * n + c) + 1];
                m[2 * (r * 2 * n + c)] -= fr * re - fi * im;
                m[2 * (r * 2 * n + c) + 1] -= fr * im + fi * re;
            }
        }
    }
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            inv[2 * (r + n * c)] = m[2 * (r * 2 * n + c + n)];
            inv[2 * (r + n * c) + 1] = m[2 * (r * 2 * n + c + n) + 1];
        }
}

/* Optimal combination: S^H Psi^-1 I / S^H Psi^-1 S by an explicit inverse; noise-free it returns
 * x; its noise variance is 1 / (S^H Psi^-1 S) (pseudo-replicas), below the RSS-style combination
 * without Psi. RSS against the definition. */
static void test_combine(void)
{
    const int64_t nx = 20, ny = 18, nc = 4;
    kr_array *maps = kts_maps(nx, ny, nc), *obj = kts_object(nx, ny), *psi = kts_psi(nc, 4);
    kr_array *k = kts_kspace(g_ctx, obj, maps), *ci = NULL, *out = NULL, *rss = NULL, *n0 = NULL;
    int64_t d2[2] = {nx, ny};
    KT_OK(kr_array_create_like(&ci, k, KR_HOST, NULL));
    KT_OK(kr_array_create(&out, KR_C64, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&rss, KR_F32, 2, d2, KR_HOST, NULL));
    KT_OK(kr_coil_images(g_ctx, k, ci));
    KT_OK(kr_coil_combine(g_ctx, ci, maps, NULL, out));
    KT_LE(kts_nrmse(out, obj, NULL), 1e-6);
    KT_OK(kr_coil_combine(g_ctx, ci, maps, psi, out));
    KT_LE(kts_nrmse(out, obj, NULL), 1e-6);
    /* with noisy coil images: against the explicit formula */
    KT_OK(kr_noise_add(g_ctx, ci, 2, psi, 0.1, 5));
    KT_OK(kr_coil_combine(g_ctx, ci, maps, psi, out));
    double pinv[2 * 16];
    invert((int)nc, psi->data, pinv);
    const float *sv = maps->data, *iv = ci->data, *ov = out->data;
    double worst = 0;
    for (int64_t q = 0; q < nx * ny; q++) {
        double nr = 0, ni = 0, dd = 0;
        for (int64_t r = 0; r < nc; r++)
            for (int64_t c = 0; c < nc; c++) {
                double pr = pinv[2 * (r + nc * c)], pi = pinv[2 * (r + nc * c) + 1];
                double sr = sv[2 * (q + nx * ny * r)], si = -sv[2 * (q + nx * ny * r) + 1];
                double ar = iv[2 * (q + nx * ny * c)], ai = iv[2 * (q + nx * ny * c) + 1];
                double br = sv[2 * (q + nx * ny * c)], bi = sv[2 * (q + nx * ny * c) + 1];
                double tr = sr * pr - si * pi, ti = sr * pi + si * pr; /* conj(S_r) Pinv_rc */
                nr += tr * ar - ti * ai;
                ni += tr * ai + ti * ar;
                dd += tr * br - ti * bi;
            }
        worst = fmax(worst,
                     hypot(ov[2 * q] - nr / dd, ov[2 * q + 1] - ni / dd) / hypot(nr / dd, ni / dd));
    }
    KT_LE(worst, 1e-5);
    /* RSS */
    KT_OK(kr_coil_rss(g_ctx, ci, rss));
    const float *rv = rss->data;
    double rerr = 0;
    for (int64_t q = 0; q < nx * ny; q++) {
        double s = 0;
        for (int64_t c = 0; c < nc; c++)
            s += (double)iv[2 * (q + nx * ny * c)] * iv[2 * (q + nx * ny * c)] +
                 (double)iv[2 * (q + nx * ny * c) + 1] * iv[2 * (q + nx * ny * c) + 1];
        rerr = fmax(rerr, fabs(rv[q] - sqrt(s)) / sqrt(s));
    }
    KT_LE(rerr, 1e-6);
    /* noise of the optimal combination: variance 1 / (S^H Psi^-1 S); Psi-ignorant is worse */
    const int reps = 300;
    int64_t d3[3] = {nx, ny, nc};
    double *v_opt = calloc((size_t)(nx * ny), sizeof(double)),
           *v_naive = calloc((size_t)(nx * ny), sizeof(double));
    kr_array *out2 = NULL;
    KT_OK(kr_array_create(&out2, KR_C64, 2, d2, KR_HOST, NULL));
    for (int r = 0; r < reps; r++) {
        KT_OK(kr_array_create(&n0, KR_C64, 3, d3, KR_HOST, NULL));
        KT_OK(kr_noise_add(g_ctx, n0, 2, psi, 1.0, 500 + (uint64_t)r));
        KT_OK(kr_coil_combine(g_ctx, n0, maps, psi, out));
        KT_OK(kr_coil_combine(g_ctx, n0, maps, NULL, out2));
        const float *a = out->data, *b = out2->data;
        for (int64_t q = 0; q < nx * ny; q++) {
            v_opt[q] += ((double)a[2 * q] * a[2 * q] + (double)a[2 * q + 1] * a[2 * q + 1]) / reps;
            v_naive[q] +=
                ((double)b[2 * q] * b[2 * q] + (double)b[2 * q + 1] * b[2 * q + 1]) / reps;
        }
        kr_array_destroy(n0);
    }
    double ratio = 0, worse = 0;
    for (int64_t q = 0; q < nx * ny; q++) {
        double dd = 0;
        for (int64_t r = 0; r < nc; r++)
            for (int64_t c = 0; c < nc; c++) {
                double pr = pinv[2 * (r + nc * c)], pi = pinv[2 * (r + nc * c) + 1];
                double sr = sv[2 * (q + nx * ny * r)], si = -sv[2 * (q + nx * ny * r) + 1];
                double br = sv[2 * (q + nx * ny * c)], bi = sv[2 * (q + nx * ny * c) + 1];
                dd += (sr * pr - si * pi) * br - (sr * pi + si * pr) * bi;
            }
        ratio += v_opt[q] * dd / (double)(nx * ny);
        worse += v_naive[q] >= v_opt[q] * 0.9;
    }
    printf("  optimal combination noise variance / (1 / S^H Psi^-1 S): %.4f (%d replicas)\n", ratio,
           reps);
    KT_NEAR(ratio, 1.0, 0.03);
    KT_GE(worse, 0.95 * nx * ny);
    free(v_opt);
    free(v_naive);
    kr_array_destroy(out2);
    kr_array_destroy(maps);
    kr_array_destroy(obj);
    kr_array_destroy(psi);
    kr_array_destroy(k);
    kr_array_destroy(ci);
    kr_array_destroy(out);
    kr_array_destroy(rss);
}

static void test_lines(void)
{
    uint8_t l[10];
    KT_OK(kr_cartesian_lines(l, 10, 3, 1, 4));
    const uint8_t want[10] = {0, 1, 0, 2, 3, 2, 2, 1, 0, 0};
    KT_CHECK(memcmp(l, want, 10) == 0);
    KT_CHECK(kr_cartesian_count(l, 10, KR_LINE_IMAGING) == 3);
    KT_CHECK(kr_cartesian_count(l, 10, KR_LINE_CALIBRATION) == 4);
    KT_CHECK(kr_cartesian_count(l, 10, KR_LINE_IMAGING | KR_LINE_CALIBRATION) == 6);
    KT_CHECK(kr_cartesian_count(NULL, 10, 3) == 0);
    uint8_t o[9];
    KT_OK(kr_cartesian_lines(o, 9, 4, 0, 3));
    const uint8_t want9[9] = {1, 0, 0, 2, 3, 2, 0, 0, 1};
    KT_CHECK(memcmp(o, want9, 9) == 0);
    KT_OK(kr_cartesian_lines(o, 9, 1, 0, 0));
    KT_CHECK(kr_cartesian_count(o, 9, KR_LINE_IMAGING) == 9);
    KT_STATUS(kr_cartesian_lines(NULL, 9, 2, 0, 0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cartesian_lines(o, 0, 2, 0, 0), KR_ERR_DIM);
    KT_STATUS(kr_cartesian_lines(o, 9, 0, 0, 0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cartesian_lines(o, 9, -3, 0, 0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cartesian_lines(o, 9, 2, 2, 0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cartesian_lines(o, 9, 2, -1, 0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cartesian_lines(o, 9, 2, 0, 10), KR_ERR_INVALID_ARG);
    /* undersampling zeroes exactly the lines not acquired */
    int64_t d3[3] = {5, 10, 2};
    kr_array *k = NULL, *c = NULL;
    KT_OK(kr_array_create(&k, KR_C64, 3, d3, KR_HOST, NULL));
    fill_random(k, 3);
    KT_OK(kr_array_clone(&c, k, KR_HOST, NULL));
    KT_OK(kr_cartesian_undersample(g_ctx, k, l));
    const float *kv = k->data, *cv = c->data;
    int ok = 1;
    for (int64_t i = 0; i < 5 * 10 * 2; i++) {
        int64_t j = (i / 5) % 10;
        if (l[j])
            ok &= kv[2 * i] == cv[2 * i] && kv[2 * i + 1] == cv[2 * i + 1];
        else
            ok &= kv[2 * i] == 0 && kv[2 * i + 1] == 0;
    }
    KT_CHECK(ok);
    KT_STATUS(kr_cartesian_undersample(g_ctx, k, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_cartesian_undersample(g_ctx, NULL, l), KR_ERR_INVALID_ARG);
    kr_array_destroy(k);
    kr_array_destroy(c);
}

static void test_bad_input(void)
{
    int64_t d2[2] = {8, 8}, d3[3] = {8, 8, 2}, d3b[3] = {8, 6, 2}, d3c[3] = {8, 8, 3};
    kr_array *img = NULL, *maps = NULL, *mapsb = NULL, *k = NULL, *kc = NULL, *f3 = NULL, *r = NULL,
             dev;
    KT_OK(kr_array_create(&img, KR_C64, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&maps, KR_C64, 3, d3, KR_HOST, NULL));
    KT_OK(kr_array_create(&mapsb, KR_C64, 3, d3b, KR_HOST, NULL));
    KT_OK(kr_array_create(&k, KR_C64, 3, d3, KR_HOST, NULL));
    KT_OK(kr_array_create(&kc, KR_C64, 3, d3c, KR_HOST, NULL));
    KT_OK(kr_array_create(&f3, KR_F32, 3, d3, KR_HOST, NULL));
    KT_OK(kr_array_create(&r, KR_F32, 2, d2, KR_HOST, NULL));
    KT_STATUS(kr_coil_kspace(g_ctx, NULL, maps, k), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_coil_kspace(g_ctx, img, NULL, k), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_coil_kspace(g_ctx, img, mapsb, k), KR_ERR_DIM);
    KT_CHECK(strstr(kr_last_error(), "8x8") != NULL && strstr(kr_last_error(), "8x6x2") != NULL);
    KT_STATUS(kr_coil_kspace(g_ctx, img, maps, kc), KR_ERR_DIM);
    KT_STATUS(kr_coil_kspace(g_ctx, img, f3, k), KR_ERR_DTYPE);
    KT_STATUS(kr_coil_kspace(g_ctx, f3, maps, k), KR_ERR_DIM); /* f32 image of rank 3 */
    KT_OK(kr_array_wrap(&dev, KR_C64, 3, d3, (void *)0x1000, KR_DEVICE));
    KT_STATUS(kr_coil_kspace(g_ctx, img, maps, &dev), KR_ERR_LOCATION);
    KT_STATUS(kr_coil_images(g_ctx, k, kc), KR_ERR_DIM);
    KT_STATUS(kr_coil_images(g_ctx, f3, k), KR_ERR_DTYPE);
    KT_STATUS(kr_coil_rss(g_ctx, k, img), KR_ERR_DTYPE);
    KT_STATUS(kr_coil_rss(g_ctx, k, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_coil_rss(g_ctx, &dev, r), KR_ERR_LOCATION);
    KT_STATUS(kr_coil_combine(g_ctx, k, mapsb, NULL, img), KR_ERR_DIM);
    KT_STATUS(kr_coil_combine(g_ctx, k, maps, NULL, r), KR_ERR_DTYPE);
    KT_STATUS(kr_coil_combine(g_ctx, k, maps, maps, img), KR_ERR_DIM); /* psi 8x8x2 */
    kr_array_destroy(img);
    kr_array_destroy(maps);
    kr_array_destroy(mapsb);
    kr_array_destroy(k);
    kr_array_destroy(kc);
    kr_array_destroy(f3);
    kr_array_destroy(r);
}

int main(void)
{
    if (kr_ctx_create(&g_ctx, KR_BACKEND_CPU) != KR_OK) return 1;
    KT_RUN(test_kspace_direct);
    KT_RUN(test_kspace_analytic);
    KT_RUN(test_combine);
    KT_RUN(test_lines);
    KT_RUN(test_bad_input);
    kr_ctx_destroy(g_ctx);
    return kt_finish();
}
