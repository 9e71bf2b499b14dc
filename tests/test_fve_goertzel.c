/* FVE voxels by gridding + Goertzel (kr_fve_voxels_gridded) against the exact one-output DrFT
 * (kr_fve_voxels) at eps 1e-3 and 1e-6 (integer and fractional voxels, both slices), against
 * the full kr_nufft_adjoint image at integer pixels (same c128 plan: agreement to rounding),
 * bit-identity over thread counts, and dumb inputs with their exact statuses. */
#include "kray/fve.h"
#include "kray/nufft.h"
#include "kt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static kr_fve_sim_opts g_o;
static kr_array *g_t, *g_d, *g_w;

#define NV 6
/* x, y, slice: integer, fractional, near the image edges */
static const double g_vox[3 * NV] = {7, -12, 0, 0, 0, 1, 3.5, -2.25, 0,
                                     -24, 23, 1, 11.3, 17.8, 1, -23.9, -24, 0};

static kr_ctx *cpu(int threads)
{
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
    KT_OK(kr_ctx_set_threads(c, threads));
    return c;
}

static kr_array *vox_out(int64_t nv)
{
    kr_array *a = NULL;
    int64_t d[4] = {g_o.enc.encodes, g_o.frames, g_o.coils, nv};
    KT_OK(kr_array_create(&a, KR_C64, 4, d, KR_HOST, NULL));
    return a;
}

static void setup(void)
{
    kr_fve_sim_opts_small(&g_o);
    g_o.frames = 2; /* 16 encodes x 2 frames x 2 coils = 64 columns per slice */
    kr_ctx *c = cpu(0);
    KT_OK(kr_fve_simulate(c, &g_o, &g_t, &g_d, &g_w));
    kr_ctx_destroy(c);
}

/* max |a - b| / max |b| over voxel v's values (all voxels when v < 0), and per voxel */
static double rel(const kr_array *a, const kr_array *b, int64_t v)
{
    const int64_t per = g_o.enc.encodes * g_o.frames * g_o.coils;
    const float *x = (const float *)a->data, *y = (const float *)b->data;
    int64_t lo = v < 0 ? 0 : v * per, hi = v < 0 ? kr_array_numel(b) : (v + 1) * per;
    double e = 0, m = 0;
    for (int64_t i = lo; i < hi; i++) {
        e = fmax(e, hypot(x[2 * i] - y[2 * i], x[2 * i + 1] - y[2 * i + 1]));
        m = fmax(m, hypot(y[2 * i], y[2 * i + 1]));
    }
    return e / m;
}

static void test_vs_drft(void)
{
    kr_ctx *c = cpu(0);
    const int64_t n = g_o.enc.n;
    kr_array *ref = vox_out(NV), *gr = vox_out(NV);
    KT_OK(kr_fve_voxels(c, g_t, g_w, g_d, n, NV, g_vox, ref));
    const double eps[2] = {1e-3, 1e-6};
    for (int i = 0; i < 2; i++) {
        /* integer voxels alone (plan of the n x n image), then all (padded plan) */
        kr_array *gi = vox_out(2);
        kr_array ri = *ref;
        ri.owns = 0, ri.dims[3] = 2;
        KT_OK(kr_fve_voxels_gridded(c, g_t, g_w, g_d, n, 2, g_vox, eps[i], gi));
        double ei = rel(gi, &ri, -1);
        double t0 = kr_time_now();
        KT_OK(kr_fve_voxels_gridded(c, g_t, g_w, g_d, n, NV, g_vox, eps[i], gr));
        double t1 = kr_time_now();
        double ea = rel(gr, ref, -1), ev = 0;
        for (int v = 0; v < NV; v++) ev = fmax(ev, rel(gr, ref, v));
        printf("  eps %g: integer voxels %.2e, all %.2e (worst voxel %.2e, relative to its own "
               "max), %.3f s\n", eps[i], ei, ea, ev, t1 - t0);
        KT_LE(ei, eps[i]);
        KT_LE(ea, eps[i]);
        KT_LE(ev, 3 * eps[i]);
        kr_array_destroy(gi);
    }
    kr_array_destroy(ref), kr_array_destroy(gr);
    kr_ctx_destroy(c);
}

/* Integer pixels: the full NUFFT adjoint (c128, same eps) of one weighted column, divided by
 * n^2, at the pixel = the gridded voxel value up to float rounding of the output. */
static void test_vs_nufft_image(void)
{
    kr_ctx *c = cpu(0);
    const int64_t n = g_o.enc.n, E = g_o.enc.encodes, T = g_o.frames, S = g_o.slices;
    const int64_t M = g_t->dims[1] * g_t->dims[2];
    const double eps = 1e-3;
    const double vox[6] = {7, -12, 1, -24, 23, 1};
    kr_array *gr = vox_out(2);
    KT_OK(kr_fve_voxels_gridded(c, g_t, g_w, g_d, n, 2, vox, eps, gr));
    kr_nufft_opts o;
    kr_nufft_opts_default(&o);
    o.dtype = KR_C128;
    o.eps = eps;
    kr_nufft_plan *p = NULL;
    int64_t nn[2] = {n, n};
    KT_OK(kr_nufft_plan_create(&p, c, 2, nn, &o));
    KT_OK(kr_nufft_set_points(p, g_t));
    kr_array *y = NULL, *img = NULL;
    KT_OK(kr_array_create(&y, KR_C128, 1, &M, KR_HOST, NULL));
    KT_OK(kr_array_create(&img, KR_C128, 2, nn, KR_HOST, NULL));
    const int64_t e = 5, t = 1, cc = 1, j = e + E * (t + T * cc);
    const float *col = (const float *)g_d->data + 2 * M * (1 + S * j);
    double *yy = (double *)y->data;
    for (int64_t m = 0; m < M; m++) {
        double w = kr_array_get_f64(g_w, m) / (double)(n * n);
        yy[2 * m] = w * col[2 * m], yy[2 * m + 1] = w * col[2 * m + 1];
    }
    KT_OK(kr_nufft_adjoint(p, y, img));
    double emax = 0, mmax = 0;
    for (int v = 0; v < 2; v++) {
        int64_t pi = (int64_t)vox[3 * v] + n / 2 + n * ((int64_t)vox[3 * v + 1] + n / 2);
        const double *r = (const double *)img->data + 2 * pi;
        const float *f = (const float *)gr->data + 2 * (j + E * T * g_o.coils * v);
        emax = fmax(emax, hypot(f[0] - r[0], f[1] - r[1]) / hypot(r[0], r[1]));
        mmax = fmax(mmax, hypot(r[0], r[1]));
    }
    printf("  vs the kr_nufft_adjoint pixel (eps %g): max relative difference %.2e\n", eps, emax);
    KT_LE(emax, 2e-7); /* float rounding of the output */
    kr_array_destroy(y), kr_array_destroy(img), kr_array_destroy(gr);
    kr_nufft_plan_destroy(p);
    kr_ctx_destroy(c);
}

static void test_threads(void)
{
    kr_ctx *c1 = cpu(1), *c2 = cpu(2);
    kr_array *a = vox_out(NV), *b = vox_out(NV);
    KT_OK(kr_fve_voxels_gridded(c1, g_t, g_w, g_d, g_o.enc.n, NV, g_vox, 1e-4, a));
    KT_OK(kr_fve_voxels_gridded(c2, g_t, g_w, g_d, g_o.enc.n, NV, g_vox, 1e-4, b));
    KT_CHECK(memcmp(a->data, b->data, kr_array_bytes(a)) == 0);
    /* NULL context = default CPU */
    KT_OK(kr_fve_voxels_gridded(NULL, g_t, g_w, g_d, g_o.enc.n, NV, g_vox, 1e-4, b));
    KT_CHECK(memcmp(a->data, b->data, kr_array_bytes(a)) == 0);
    kr_array_destroy(a), kr_array_destroy(b);
    kr_ctx_destroy(c1), kr_ctx_destroy(c2);
}

static void test_dumb(void)
{
    kr_ctx *c = cpu(0);
    const int64_t n = g_o.enc.n;
    kr_array *vi = vox_out(1);
    double ok[3] = {0, 0, 0}, outside[3] = {(double)(n - n / 2), 0, 0}, badsl[3] = {0, 0, 5};
    KT_OK(kr_fve_voxels_gridded(c, g_t, g_w, g_d, n, 1, ok, 1e-3, vi));
    KT_OK(kr_fve_voxels_gridded(c, g_t, NULL, g_d, n, 1, ok, 1e-3, vi)); /* weights 1 */
    KT_STATUS(kr_fve_voxels_gridded(c, g_t, g_w, g_d, n, 1, ok, 0.0, vi), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "eps") != NULL);
    KT_STATUS(kr_fve_voxels_gridded(c, g_t, g_w, g_d, n, 1, ok, 0.5, vi), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fve_voxels_gridded(c, g_t, g_w, g_d, n, 1, ok, 1e-13, vi), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fve_voxels_gridded(c, g_t, g_w, g_d, n, 1, ok, NAN, vi), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fve_voxels_gridded(c, g_t, g_w, g_d, n, 1, outside, 1e-3, vi), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "outside") != NULL);
    KT_STATUS(kr_fve_voxels_gridded(c, g_t, g_w, g_d, n, 1, badsl, 1e-3, vi), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fve_voxels_gridded(c, NULL, g_w, g_d, n, 1, ok, 1e-3, vi), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fve_voxels_gridded(c, g_t, g_w, NULL, n, 1, ok, 1e-3, vi), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fve_voxels_gridded(c, g_t, g_w, g_d, n, 1, NULL, 1e-3, vi), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fve_voxels_gridded(c, g_t, g_w, g_d, n, 0, ok, 1e-3, vi), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fve_voxels_gridded(c, g_t, g_w, g_d, 1, 1, ok, 1e-3, vi), KR_ERR_DIM);
    /* NaN sample (slice 0, first column) */
    float keep = ((float *)g_d->data)[11];
    ((float *)g_d->data)[11] = NAN;
    KT_STATUS(kr_fve_voxels_gridded(c, g_t, g_w, g_d, n, 1, ok, 1e-3, vi), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "sample 5 ") != NULL);
    ((float *)g_d->data)[11] = keep;
    /* negative weight */
    KT_CHECK(g_w->dtype == KR_F64);
    double *wp = (double *)g_w->data, wk = wp[3];
    wp[3] = -1.0;
    KT_STATUS(kr_fve_voxels_gridded(c, g_t, g_w, g_d, n, 1, ok, 1e-3, vi), KR_ERR_INVALID_ARG);
    wp[3] = wk;
    /* wrong output shape and dtype */
    kr_array *wrong = NULL, *w64 = NULL;
    int64_t wd[1] = {3}, vd[4] = {g_o.enc.encodes, g_o.frames, g_o.coils, 1};
    KT_OK(kr_array_create(&wrong, KR_C64, 1, wd, KR_HOST, NULL));
    KT_STATUS(kr_fve_voxels_gridded(c, g_t, g_w, g_d, n, 1, ok, 1e-3, wrong), KR_ERR_DIM);
    KT_OK(kr_array_create(&w64, KR_C128, 4, vd, KR_HOST, NULL));
    KT_STATUS(kr_fve_voxels_gridded(c, g_t, g_w, g_d, n, 1, ok, 1e-3, w64), KR_ERR_DTYPE);
    kr_array_destroy(wrong), kr_array_destroy(w64), kr_array_destroy(vi);
    kr_ctx_destroy(c);
}

int main(void)
{
    KT_RUN(setup);
    if (!g_d) return kt_finish();
    KT_RUN(test_vs_drft);
    KT_RUN(test_vs_nufft_image);
    KT_RUN(test_threads);
    KT_RUN(test_dumb);
    kr_array_destroy(g_t), kr_array_destroy(g_d), kr_array_destroy(g_w);
    return kt_finish();
}
