/* 3-D ESPIRiT (kr_espirit on [nx, ny, nz, coils] k-space): the maps of an analytic 3-D
 * multi-coil phantom reproduce its coil images (each voxel's coil vector lies in the span of its
 * map) and |maps| equal |S| / RSS(S) of the true sensitivities; a 2-D k-space given as
 * [nx, ny, 1, coils] gives the same bits as [nx, ny, coils]; undersampling outside the
 * calibration region leaves the maps unchanged; the same bits for 1 and 2 threads; bad input.
 * test_espirit3d_bart.c compares with BART. */
#include "espirit_test_util.h"

#include <complex.h>
#include <stdio.h>


/* Inside the object: the phantom's outer ellipsoid (coil image energy above 1e-3 of the max). */
static uint8_t *object_mask(const kr_array *img, int64_t nv, int64_t nc)
{
    uint8_t *m = malloc((size_t)nv);
    const float *v = img->data;
    double emax = 0;
    double *e = malloc(sizeof(double) * (size_t)nv);
    for (int64_t q = 0; q < nv; q++) {
        e[q] = 0;
        for (int64_t c = 0; c < nc; c++)
            e[q] += (double)v[2 * (q + nv * c)] * v[2 * (q + nv * c)] +
                    (double)v[2 * (q + nv * c) + 1] * v[2 * (q + nv * c) + 1];
        emax = fmax(emax, e[q]);
    }
    for (int64_t q = 0; q < nv; q++) m[q] = e[q] > 1e-3 * emax;
    free(e);
    return m;
}

static void test_self_consistency(void)
{
    kr_ctx *c = kt_cpu_ctx();
    kr_array *S = ket_maps3(kN, kNC), *img = NULL;
    kr_array *k = ket_kspace3(c, S, &img);
    const int64_t nv = kN[0] * kN[1] * kN[2];
    kr_espirit_opts o;
    kr_espirit_opts_default(&o);
    o.kernel = 5;
    o.calib = 16;
    kr_array *m = NULL, *ev = NULL;
    double t0 = kr_time_now();
    KT_OK(kr_espirit(c, k, &o, &m, &ev));
    double t1 = kr_time_now();
    KT_CHECK(m && m->ndim == 4 && m->dims[2] == kN[2] && m->dims[3] == kNC);
    KT_CHECK(ev && ev->ndim == 3 && ev->dims[2] == kN[2]);
    uint8_t *obj = object_mask(img, nv, kNC);
    const float *mv = m->data, *iv = img->data, *sv = S->data;
    double rn = 0, rd = 0, mn = 0, md = 0;
    int64_t inside = 0, kept = 0;
    for (int64_t q = 0; q < nv; q++) {
        if (!obj[q]) continue;
        inside++;
        double nrm = 0, rss = 0;
        double complex z = 0;
        for (int64_t j = 0; j < kNC; j++) {
            const int64_t i = 2 * (q + nv * j);
            nrm += (double)mv[i] * mv[i] + (double)mv[i + 1] * mv[i + 1];
            rss += (double)sv[i] * sv[i] + (double)sv[i + 1] * sv[i + 1];
            z += (mv[i] - I * mv[i + 1]) * (iv[i] + I * iv[i + 1]); /* m^H a */
        }
        if (nrm == 0) continue;
        kept++;
        rss = sqrt(rss);
        for (int64_t j = 0; j < kNC; j++) {
            const int64_t i = 2 * (q + nv * j);
            const double complex a = iv[i] + I * iv[i + 1], mm = mv[i] + I * mv[i + 1];
            rn += pow(cabs(a - mm * z), 2);
            rd += pow(cabs(a), 2);
            mn += pow(cabs(mm) - hypot(sv[i], sv[i + 1]) / rss, 2);
            md += pow(hypot(sv[i], sv[i + 1]) / rss, 2);
        }
    }
    const double proj = sqrt(rn / rd), mag = sqrt(mn / md);
    printf("  %lldx%lldx%lld, %lld coils, kernel 5, calibration 16^3 (%.2f s): %.1f %% of the "
           "object kept; coil images outside the span of the maps %.2e; |maps| vs |S|/RSS %.2e\n",
           (long long)kN[0], (long long)kN[1], (long long)kN[2], (long long)kNC, t1 - t0,
           100.0 * (double)kept / (double)inside, proj, mag);
    KT_GE((double)kept / (double)inside, 0.97);
    KT_LE(proj, 0.02);
    KT_LE(mag, 0.02);
    /* eigenvalues: about 1 inside the object */
    double evs = 0;
    for (int64_t q = 0; q < nv; q++)
        if (obj[q]) evs += ((float *)ev->data)[q];
    KT_GE(evs / (double)inside, 0.97);
    /* undersampling outside the central 16 x 16 (ky, kz) lines (every other one): ESPIRiT
     * reads only the calibration region, so the maps are the same bits */
    float *kv = k->data;
    for (int64_t c2 = 0; c2 < kNC; c2++)
        for (int64_t q = 0; q < nv; q++) {
            const int64_t y = q / kN[0] % kN[1] - kN[1] / 2, z = q / (kN[0] * kN[1]) - kN[2] / 2;
            const int outside = y < -8 || y >= 8 || z < -8 || z >= 8;
            if (outside && ((y + z) & 1)) kv[2 * (q + nv * c2)] = kv[2 * (q + nv * c2) + 1] = 0;
        }
    kr_array *mu = NULL;
    KT_OK(kr_espirit(c, k, &o, &mu, NULL));
    KT_CHECK(memcmp(mu->data, m->data, kr_array_bytes(m)) == 0);
    free(obj);
    kr_array_destroy(S), kr_array_destroy(img), kr_array_destroy(k), kr_array_destroy(m);
    kr_array_destroy(ev), kr_array_destroy(mu);
    kr_ctx_destroy(c);
}

static void test_2d_as_3d(void)
{
    kr_ctx *c = kt_cpu_ctx();
    const int64_t n2[3] = {40, 36, 1};
    kr_array *S = ket_maps3(n2, 5);
    kr_array *k = ket_kspace3(c, S, NULL);
    kr_array k3;
    int64_t d3[3] = {40, 36, 5};
    KT_OK(kr_array_wrap(&k3, KR_C64, 3, d3, k->data, KR_HOST));
    kr_array *ma = NULL, *mb = NULL, *ea = NULL, *eb = NULL;
    KT_OK(kr_espirit(c, k, NULL, &ma, &ea));
    KT_OK(kr_espirit(c, &k3, NULL, &mb, &eb));
    KT_CHECK(ma->ndim == 4 && mb->ndim == 3 && ea->ndim == 3 && eb->ndim == 2);
    KT_CHECK(memcmp(ma->data, mb->data, kr_array_bytes(mb)) == 0);
    KT_CHECK(memcmp(ea->data, eb->data, kr_array_bytes(eb)) == 0);
    kr_array_destroy(S), kr_array_destroy(k), kr_array_destroy(ma), kr_array_destroy(mb);
    kr_array_destroy(ea), kr_array_destroy(eb);
    kr_ctx_destroy(c);
}

/* The same bits for 1 and 2 threads (a 16x16x12 volume, 4 coils, kernel 4: the 256 x 256 Gram
 * matrix is decomposed with the threaded Householder steps). */
static void test_threads(void)
{
    const int64_t n3[3] = {16, 16, 12};
    kr_ctx *c1 = NULL, *c2 = NULL;
    KT_OK(kr_ctx_create(&c1, KR_BACKEND_CPU));
    KT_OK(kr_ctx_create(&c2, KR_BACKEND_CPU));
    KT_OK(kr_ctx_set_threads(c1, 1));
    KT_OK(kr_ctx_set_threads(c2, 2));
    kr_ctx_set_quiet(c1, 1);
    kr_ctx_set_quiet(c2, 1);
    kr_array *S = ket_maps3(n3, 4);
    kr_array *k = ket_kspace3(c1, S, NULL);
    kr_espirit_opts o;
    kr_espirit_opts_default(&o);
    o.kernel = 4;
    o.calib = 10;
    kr_array *m1 = NULL, *m2 = NULL, *e1 = NULL, *e2 = NULL;
    KT_OK(kr_espirit(c1, k, &o, &m1, &e1));
    KT_OK(kr_espirit(c2, k, &o, &m2, &e2));
    KT_CHECK(memcmp(m1->data, m2->data, kr_array_bytes(m1)) == 0);
    KT_CHECK(memcmp(e1->data, e2->data, kr_array_bytes(e1)) == 0);
    kr_array_destroy(S), kr_array_destroy(k), kr_array_destroy(m1), kr_array_destroy(m2);
    kr_array_destroy(e1), kr_array_destroy(e2);
    kr_ctx_destroy(c1), kr_ctx_destroy(c2);
}

static void test_bad_input(void)
{
    kr_ctx *c = kt_cpu_ctx();
    int64_t d5[5] = {8, 8, 8, 2, 2}, d4[4] = {16, 16, 16, 2};
    kr_array *k5 = NULL, *k4 = NULL, *m = NULL;
    KT_OK(kr_array_create(&k5, KR_C64, 5, d5, KR_HOST, NULL));
    KT_OK(kr_array_create(&k4, KR_C64, 4, d4, KR_HOST, NULL));
    KT_STATUS(kr_espirit(c, k5, NULL, &m, NULL), KR_ERR_DIM);
    /* no signal / no fully sampled centre: a few samples only */
    ((float *)k4->data)[2 * (8 + 16 * (8 + 16 * 8))] = 1;
    KT_STATUS(kr_espirit(c, k4, NULL, &m, NULL), KR_ERR_INVALID_ARG);
    KT_CHECK(m == NULL);
    kr_array_destroy(k5), kr_array_destroy(k4);
    kr_ctx_destroy(c);
}

int main(void)
{
    KT_RUN(test_self_consistency);
    KT_RUN(test_2d_as_3d);
    KT_RUN(test_threads);
    KT_RUN(test_bad_input);
    return kt_finish();
}
