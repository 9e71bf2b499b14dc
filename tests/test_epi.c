/* Spin-echo EPI: the builder's k-space positions (integrated here from the blocks' corner
 * points), echo time and line order; the sort of the samples into Cartesian k-space; the
 * simulated EPI of the MR Shepp-Logan against (a) a direct k-space sum written here with the
 * T2 decay of every sample's own time and (b) the image-domain route kr_coil_kspace of the
 * expected image (T2 very long), the image by kr_coil_images; the spin echo at TE seen by an
 * off-resonant isochromat; bad inputs with their exact statuses. */
#include "internal.h"
#include "kray/coils.h"
#include "kray/phantom.h"
#include "kray/sim.h"
#include "kt.h"

#include <complex.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

static const double GB = KR_GAMMA_BAR_HZ_PER_T;
static kr_ctx *g_ctx;

/* Area of block gradient axis a from the block start to t (piecewise linear corners). */
static double area_to(const kr_seq_grad *g, double t)
{
    double A = 0;
    for (int i = 0; i + 1 < g->n; i++) {
        double t0 = g->t_s[i], t1 = g->t_s[i + 1];
        if (t <= t0) break;
        double u = t < t1 ? t : t1;
        double g0 = g->g_mT_m[i], gu = g0 + (g->g_mT_m[i + 1] - g0) * (u - t0) / (t1 - t0);
        A += 0.5 * (g0 + gu) * (u - t0);
    }
    return A;
}

static void epi_opts(kr_seq_epi_opts *o, int n, int shots, kr_epi_order order)
{
    kr_seq_epi_opts_default(o);
    o->nx = o->ny = n;
    o->shots = shots;
    o->order = order;
}

/* k-space position of every ADC sample from the corner points, counted from the last RF
 * block before it (the refocusing pulse: nothing before it is encoded), against the grid. */
static void check_positions(const kr_seq_epi_opts *o)
{
    kr_seq *s = NULL;
    KT_OK(kr_seq_se_epi(&s, o));
    kr_seq_info info;
    KT_OK(kr_seq_get_info(s, &info));
    KT_CHECK(info.nadc == o->ny);
    KT_CHECK(info.nsamples == o->nx * o->ny);
    const int64_t etl = o->ny / o->shots;
    double worst = 0;
    int order_ok = 1, rev_ok = 1;
    int8_t *seen = calloc((size_t)o->ny, 1);
    for (int64_t i = 0; i < info.nadc; i++) {
        int64_t ib = 0;
        kr_seq_adc adc;
        KT_OK(kr_seq_get_adc(s, i, &ib, NULL, &adc));
        int64_t k0 = ib;
        kr_seq_block b;
        do {
            KT_OK(kr_seq_get_block(s, --k0, &b));
        } while (b.rf.n == 0);
        double ax = 0, ay = 0;
        for (int64_t k = k0 + 1; k < ib; k++) {
            KT_OK(kr_seq_get_block(s, k, &b));
            ax += area_to(&b.grad[0], b.duration_s);
            ay += area_to(&b.grad[1], b.duration_s);
        }
        KT_OK(kr_seq_get_block(s, ib, &b));
        for (int64_t m = 0; m < adc.n; m++) {
            double t = adc.delay_s + (m + 0.5) * adc.dwell_s;
            double kx = GB * 1e-6 * (ax + area_to(&b.grad[0], t)) * o->fov_x_mm;
            double ky = GB * 1e-6 * (ay + area_to(&b.grad[1], t)) * o->fov_y_mm;
            int64_t col = adc.reverse ? o->nx - 1 - m : m;
            worst = fmax(worst, fabs(kx - (double)(col - o->nx / 2)));
            worst = fmax(worst, fabs(ky - (double)(adc.line - o->ny / 2)));
        }
        /* line order: shot = i / etl, echo = i % etl */
        int64_t shot = i / etl, e = i % etl;
        int64_t want = o->order == KR_EPI_INTERLEAVED ? shot + e * o->shots : shot * etl + e;
        if (adc.line != want) order_ok = 0;
        if (adc.reverse != (int)(e & 1)) rev_ok = 0;
        if (adc.line >= 0 && adc.line < o->ny) seen[adc.line]++;
    }
    int once = 1;
    for (int64_t j = 0; j < o->ny; j++)
        once &= seen[j] == 1;
    free(seen);
    double te = 0;
    KT_OK(kr_seq_se_line_time(s, (int32_t)(o->ny / 2), &te));
    printf("  %lldx%lld, %d shot(s) %s: k error %.2g cycles, TE %.9f s\n", (long long)o->nx,
           (long long)o->ny, o->shots, o->order == KR_EPI_INTERLEAVED ? "interleaved" : "sequential",
           worst, te);
    KT_LE(worst, 1e-6);
    KT_CHECK(order_ok && rev_ok && once);
    KT_NEAR(te, o->te_ms * 1e-3, 1e-9);
    /* preparatory shots: the first ADC starts after ndummy TRs */
    int64_t b0;
    KT_OK(kr_seq_get_adc(s, 0, &b0, NULL, NULL));
    kr_seq_block b;
    KT_OK(kr_seq_get_block(s, b0, &b));
    KT_LE(o->ndummy * o->tr_ms * 1e-3, b.start_s);
    KT_LE(b.start_s, (o->ndummy * o->tr_ms + o->te_ms) * 1e-3);
    KT_NEAR(info.duration_s, (o->shots + o->ndummy) * o->tr_ms * 1e-3, 1e-9);
    kr_seq_destroy(s);
}

static void test_positions(void)
{
    kr_seq_epi_opts o;
    epi_opts(&o, 64, 1, KR_EPI_INTERLEAVED); /* Mayo Sarmiento (2018)'s defaults: TE 120, TR 3000 */
    check_positions(&o);
    epi_opts(&o, 32, 4, KR_EPI_SEQUENTIAL);
    o.te_ms = 40;
    o.tr_ms = 500;
    check_positions(&o);
    epi_opts(&o, 33, 3, KR_EPI_INTERLEAVED); /* odd sizes: reversal and centre echo */
    o.te_ms = 50;
    o.tr_ms = 400;
    o.ndummy = 2;
    check_positions(&o);
    epi_opts(&o, 48, 2, KR_EPI_SEQUENTIAL); /* the centre line on an odd echo of shot 1 */
    o.nx = 40;
    o.te_ms = 61.5;
    o.tr_ms = 800;
    check_positions(&o);
}

static void test_bad(void)
{
    kr_seq *s = NULL;
    kr_seq_epi_opts o;
    epi_opts(&o, 64, 3, KR_EPI_INTERLEAVED);
    KT_STATUS(kr_seq_se_epi(&s, &o), KR_ERR_INVALID_ARG); /* 3 does not divide 64 */
    KT_CHECK(s == NULL);
    epi_opts(&o, 64, 0, KR_EPI_INTERLEAVED);
    KT_STATUS(kr_seq_se_epi(&s, &o), KR_ERR_INVALID_ARG);
    epi_opts(&o, 256, 1, KR_EPI_INTERLEAVED); /* TE 120 too short for 256 single shot */
    KT_STATUS(kr_seq_se_epi(&s, &o), KR_ERR_INVALID_ARG);
    const char *mn = strstr(kr_last_error(), "minimum ");
    KT_CHECK(mn != NULL);
    double te_min = 0;
    if (mn) te_min = atof(mn + 8);
    printf("  256x256 single shot: minimum TE %.2f ms\n", te_min);
    o.te_ms = te_min; /* the reported minimum works, 0.02 ms less does not */
    o.tr_ms = 5000;
    KT_OK(kr_seq_se_epi(&s, &o));
    kr_seq_destroy(s);
    s = NULL;
    o.te_ms = te_min - 0.02;
    KT_STATUS(kr_seq_se_epi(&s, &o), KR_ERR_INVALID_ARG);
    o.te_ms = 120;
    o.tr_ms = 3000;
    o.shots = 4; /* works with 4 shots */
    KT_OK(kr_seq_se_epi(&s, &o));
    kr_seq_destroy(s);
    s = NULL;
    epi_opts(&o, 64, 1, KR_EPI_INTERLEAVED);
    o.tr_ms = 50;
    KT_STATUS(kr_seq_se_epi(&s, &o), KR_ERR_INVALID_ARG);
    epi_opts(&o, 64, 1, KR_EPI_INTERLEAVED);
    o.bw_hz_px = 20000; /* readout beyond gmax */
    KT_STATUS(kr_seq_se_epi(&s, &o), KR_ERR_INVALID_ARG);
    epi_opts(&o, 64, 1, (kr_epi_order)7);
    KT_STATUS(kr_seq_se_epi(&s, &o), KR_ERR_INVALID_ARG);
    epi_opts(&o, 0, 1, KR_EPI_INTERLEAVED);
    KT_STATUS(kr_seq_se_epi(&s, &o), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_seq_se_epi(NULL, &o), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_seq_se_epi(&s, NULL), KR_ERR_INVALID_ARG);
    /* sort_kspace */
    epi_opts(&o, 16, 2, KR_EPI_INTERLEAVED);
    o.te_ms = 30;
    o.tr_ms = 200;
    KT_OK(kr_seq_se_epi(&s, &o));
    kr_array *smp = NULL, *k = NULL;
    int64_t d[2] = {16 * 16, 3};
    KT_OK(kr_array_create(&smp, KR_C64, 2, d, KR_HOST, NULL));
    KT_STATUS(kr_seq_sort_kspace(s, smp, 15, 16, &k), KR_ERR_INVALID_ARG); /* n != nx */
    KT_STATUS(kr_seq_sort_kspace(s, smp, 16, 8, &k), KR_ERR_INVALID_ARG);  /* line >= ny */
    KT_STATUS(kr_seq_sort_kspace(s, smp, 16, 0, &k), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_seq_sort_kspace(NULL, smp, 16, 16, &k), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_seq_sort_kspace(s, NULL, 16, 16, &k), KR_ERR_INVALID_ARG);
    KT_CHECK(k == NULL);
    kr_array_destroy(smp);
    d[0] = 16 * 16 + 1;
    d[1] = 1;
    KT_OK(kr_array_create(&smp, KR_C64, 2, d, KR_HOST, NULL));
    KT_STATUS(kr_seq_sort_kspace(s, smp, 16, 16, &k), KR_ERR_DIM);
    kr_array_destroy(smp);
    KT_OK(kr_array_create(&smp, KR_F32, 2, d, KR_HOST, NULL));
    KT_STATUS(kr_seq_sort_kspace(s, smp, 16, 16, &k), KR_ERR_DTYPE);
    kr_array_destroy(smp);
    /* the sort itself: sample value = 1000 line + column, for 3 coils */
    d[0] = 16 * 16;
    d[1] = 3;
    KT_OK(kr_array_create(&smp, KR_C64, 2, d, KR_HOST, NULL));
    float *f = smp->data;
    for (int64_t i = 0; i < 16; i++) {
        int64_t first;
        kr_seq_adc a;
        KT_OK(kr_seq_get_adc(s, i, NULL, &first, &a));
        for (int c = 0; c < 3; c++)
            for (int m = 0; m < 16; m++) {
                int col = a.reverse ? 15 - m : m;
                f[2 * (c * 256 + first + m)] = (float)(1000 * a.line + col);
                f[2 * (c * 256 + first + m) + 1] = (float)c;
            }
    }
    KT_OK(kr_seq_sort_kspace(s, smp, 16, 16, &k));
    KT_CHECK(k->ndim == 4 && k->dims[0] == 16 && k->dims[1] == 16 && k->dims[3] == 3);
    int ok = 1;
    const float *g = k->data;
    for (int c = 0; c < 3; c++)
        for (int j = 0; j < 16; j++)
            for (int m = 0; m < 16; m++) {
                int64_t q = (c * 16 + j) * 16 + m;
                ok &= g[2 * q] == (float)(1000 * j + m) && g[2 * q + 1] == (float)c;
            }
    KT_CHECK(ok);
    kr_array_destroy(k);
    kr_array_destroy(smp);
    kr_seq_destroy(s);
}

static kr_iso *phantom(int n, double dx)
{
    kr_array *tis = NULL;
    KT_OK(kr_phantom_mr_2d_grid(&tis, KR_GRID_FFT, n, n, 1, 1.5));
    kr_iso_opts io;
    kr_iso_opts_default(&io);
    io.voxel_mm[0] = io.voxel_mm[1] = dx;
    kr_iso *iso = NULL;
    KT_OK(kr_iso_from_tissue(&iso, tis, NULL, &io));
    kr_array_destroy(tis);
    return iso;
}

/* Mz before each excitation of the acquired shots (one dummy shot: the steady state of
 * ideal 90 - 180 pulses with ideal spoiling). */
static double mz_ss(double m0, double t1, double te, double tr)
{
    double ea = exp(-0.5 * te / t1), eb = exp(-(tr - 0.5 * te) / t1);
    return -m0 * (1 - ea) * eb + m0 * (1 - eb);
}

static void test_phantom_t2(void)
{
    const int n = 32;
    const double dx = 8.0, fov = n * dx;
    kr_seq_epi_opts o;
    epi_opts(&o, n, 1, KR_EPI_INTERLEAVED);
    o.fov_x_mm = o.fov_y_mm = fov;
    o.rf_dur_s = 1e-6;
    o.te_ms = 60;
    o.tr_ms = 1500;
    kr_seq *s = NULL;
    KT_OK(kr_seq_se_epi(&s, &o));
    kr_iso *iso = phantom(n, dx);
    kr_array *smp = NULL, *k = NULL;
    KT_OK(kr_sim(g_ctx, s, iso, NULL, &smp));
    KT_OK(kr_seq_sort_kspace(s, smp, n, n, &k));
    /* direct sum with each sample's own time from the excitation */
    const float *f = k->data;
    const double dwell = 1.0 / (o.bw_hz_px * n);
    double maxref = 0, maxerr = 0;
    for (int j = 0; j < n; j++) {
        double tl;
        KT_OK(kr_seq_se_line_time(s, j, &tl));
        int rev = 0;
        for (int64_t i = 0; i < n; i++) {
            kr_seq_adc a;
            KT_OK(kr_seq_get_adc(s, i, NULL, NULL, &a));
            if (a.line == j) rev = a.reverse;
        }
        for (int m = 0; m < n; m++) {
            double t = tl + (rev ? -1.0 : 1.0) * (m - n / 2) * dwell; /* s */
            double kx = (m - n / 2) / fov, ky = (j - n / 2) / fov;
            double complex acc = 0;
            for (int64_t v = 0; v < iso->n; v++) {
                double w = mz_ss(iso->m0[v], iso->t1_ms[v], o.te_ms, o.tr_ms) *
                           exp(-t * 1e3 / iso->t2_ms[v]);
                acc += I * w * cexp(-2 * M_PI * I * (kx * iso->x_mm[v] + ky * iso->y_mm[v]));
            }
            double complex got = f[2 * (j * n + m)] + I * f[2 * (j * n + m) + 1];
            maxref = fmax(maxref, cabs(acc));
            maxerr = fmax(maxerr, cabs(got - acc));
        }
    }
    printf("  EPI k-space (T2 decay along the train) vs direct sum: max error %.3g of %.3g\n",
           maxerr, maxref);
    KT_LE(maxerr, 1e-5 * maxref); /* measured 1.5e-6 */
    kr_array_destroy(k);
    kr_array_destroy(smp);
    kr_iso_destroy(iso);
    kr_seq_destroy(s);
}

static void image_route(int shots, kr_epi_order order)
{
    const int n = 32;
    const double dx = 8.0, fov = n * dx;
    kr_seq_epi_opts o;
    epi_opts(&o, n, shots, order);
    o.fov_x_mm = o.fov_y_mm = fov;
    o.rf_dur_s = 1e-6;
    o.te_ms = 60;
    o.tr_ms = 1500;
    kr_seq *s = NULL;
    KT_OK(kr_seq_se_epi(&s, &o));
    kr_iso *iso = phantom(n, dx);
    for (int64_t v = 0; v < iso->n; v++)
        iso->t2_ms[v] = 1e12f;
    kr_array *smp = NULL, *k = NULL;
    KT_OK(kr_sim(g_ctx, s, iso, NULL, &smp));
    KT_OK(kr_seq_sort_kspace(s, smp, n, n, &k));
    /* expected image and its k-space by the image-domain route */
    int64_t d2[2] = {n, n}, d3[3] = {n, n, 1};
    kr_array *img = NULL, *ones = NULL, *kref = NULL, *rec = NULL;
    KT_OK(kr_array_create(&img, KR_C64, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&ones, KR_C64, 3, d3, KR_HOST, NULL));
    KT_OK(kr_array_create(&kref, KR_C64, 3, d3, KR_HOST, NULL));
    KT_OK(kr_array_create(&rec, KR_C64, 3, d3, KR_HOST, NULL));
    float *pi = img->data, *po = ones->data;
    double maxv = 0;
    for (int64_t v = 0; v < iso->n; v++) {
        double w = mz_ss(iso->m0[v], iso->t1_ms[v], o.te_ms, o.tr_ms);
        pi[2 * iso->voxel[v] + 1] = (float)w; /* i w */
        maxv = fmax(maxv, fabs(w));
    }
    for (int64_t p = 0; p < n * n; p++)
        po[2 * p] = 1;
    KT_OK(kr_coil_kspace(NULL, img, ones, kref));
    const double sc = sqrt((double)n * n); /* unitary FFT vs the simulator's plain sum */
    const float *fk = k->data, *fr = kref->data;
    double kerr = 0, kmax = 0;
    for (int64_t q = 0; q < n * n; q++) {
        kerr = fmax(kerr, hypot(fk[2 * q] - sc * fr[2 * q], fk[2 * q + 1] - sc * fr[2 * q + 1]));
        kmax = fmax(kmax, sc * hypot(fr[2 * q], fr[2 * q + 1]));
    }
    kr_array kv;
    KT_OK(kr_array_wrap(&kv, KR_C64, 3, d3, k->data, KR_HOST));
    KT_OK(kr_coil_images(NULL, &kv, rec));
    const float *fi = rec->data;
    double ierr = 0, ss = 0, se = 0;
    for (int64_t p = 0; p < n * n; p++) {
        double re = fi[2 * p] / sc, im = fi[2 * p + 1] / sc;
        double e = hypot(re - pi[2 * p], im - pi[2 * p + 1]);
        ierr = fmax(ierr, e);
        se += e * e;
        ss += (double)pi[2 * p + 1] * pi[2 * p + 1];
    }
    printf("  EPI %d shot(s) %s vs image route: k-space max error %.3g of %.3g, image max error "
           "%.3g of %.3g, NRMSE %.3g\n",
           shots, order == KR_EPI_INTERLEAVED ? "interleaved" : "sequential", kerr, kmax, ierr,
           maxv, sqrt(se / ss));
    KT_LE(kerr, 1e-5 * kmax); /* measured < 1e-6 */
    KT_LE(ierr, 2e-5 * maxv); /* measured 2.5e-6 */
    kr_array_destroy(img);
    kr_array_destroy(ones);
    kr_array_destroy(kref);
    kr_array_destroy(rec);
    kr_array_destroy(k);
    kr_array_destroy(smp);
    kr_iso_destroy(iso);
    kr_seq_destroy(s);
}

static void test_image_route(void)
{
    image_route(1, KR_EPI_INTERLEAVED);
    image_route(4, KR_EPI_SEQUENTIAL);
    image_route(2, KR_EPI_INTERLEAVED);
}

/* One isochromat at the centre with off-resonance df: the phase of each line's kx = 0
 * sample is -2 pi df (t - TE), t the line's time: zero at TE (the spin echo). */
static void test_echo_time(void)
{
    const double df = 37.0;
    kr_seq_epi_opts o;
    epi_opts(&o, 16, 1, KR_EPI_INTERLEAVED);
    o.te_ms = 50;
    o.tr_ms = 300;
    o.ndummy = 0; /* T1 is infinite: a dummy shot would leave no longitudinal magnetisation */
    o.rf_dur_s = 1e-6;
    kr_seq *s = NULL;
    KT_OK(kr_seq_se_epi(&s, &o));
    kr_iso *iso = NULL;
    KT_OK(kr_iso_create(&iso, 1));
    iso->t1_ms[0] = iso->t2_ms[0] = 1e12f;
    iso->m0[0] = 1;
    iso->df_hz[0] = (float)df;
    KT_OK(kr_iso_equilibrium(iso));
    kr_array *smp = NULL, *k = NULL;
    KT_OK(kr_sim(g_ctx, s, iso, NULL, &smp));
    KT_OK(kr_seq_sort_kspace(s, smp, 16, 16, &k));
    const float *f = k->data;
    double worst = 0;
    for (int j = 0; j < 16; j++) {
        double t;
        KT_OK(kr_seq_se_line_time(s, j, &t));
        double complex v = f[2 * (j * 16 + 8)] + I * f[2 * (j * 16 + 8) + 1];
        double want = -2 * M_PI * df * (t - o.te_ms * 1e-3);
        double complex r = v / (I * cexp(I * want));
        worst = fmax(worst, fabs(carg(r)));
        if (j == 8) {
            printf("  centre sample %.6f%+.6fi (expected +1i at the spin echo)\n", creal(v),
                   cimag(v));
            /* off-resonance during the 1 us pulses: ~2 pi df 1e-6 = 2.3e-4 rad at most */
            KT_NEAR(creal(v), 0.0, 1e-4);
            KT_NEAR(cimag(v), 1.0, 1e-4);
        }
    }
    printf("  kx = 0 phase vs -2 pi df (t - TE): max error %.3g rad\n", worst);
    KT_LE(worst, 1e-4);
    kr_array_destroy(k);
    kr_array_destroy(smp);
    kr_iso_destroy(iso);
    kr_seq_destroy(s);
}

int main(void)
{
    if (kr_ctx_create(&g_ctx, KR_BACKEND_CPU) != KR_OK) return 1;
    KT_RUN(test_positions);
    KT_RUN(test_bad);
    KT_RUN(test_phantom_t2);
    KT_RUN(test_image_route);
    KT_RUN(test_echo_time);
    kr_ctx_destroy(g_ctx);
    return kt_finish();
}
