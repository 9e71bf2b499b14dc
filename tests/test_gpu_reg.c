/* GPU parity for the reg module: finite differences (forward and adjoint), wavelets (Haar, db2,
 * db4; 2-D and 3-D, with shifts), the proximal maps (l1, l21, box, l2 ball, l1-wavelet, TV,
 * LLR through the host) and their values, FISTA and PDHG on the device, each against the CPU.
 * Tolerances: max |gpu - cpu| <= 1e-5 (f32, c64) or 1e-12 (f64, c128) times the largest
 * magnitude of the CPU result (the kernels evaluate the same expressions; the device may fuse
 * multiply-adds), adjoint tests as on the CPU; the solvers to 1e-4 (f32) / 1e-9 (f64)
 * relative. */
#include "kray/reg.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>

static kr_ctx *g_cpu, *g_gpu;
static const kr_dtype kDT[4] = {KR_F32, KR_F64, KR_C64, KR_C128};

static int single(kr_dtype t) { return t == KR_F32 || t == KR_C64; }
static double tol(kr_dtype t) { return single(t) ? 1e-5 : 1e-12; }

static int64_t nscal(const kr_array *a)
{
    return kr_array_numel(a) * (kr_dtype_is_complex(a->dtype) ? 2 : 1);
}
static double sc(const kr_array *a, int64_t k)
{
    return single(a->dtype) ? ((const float *)a->data)[k] : ((const double *)a->data)[k];
}

/* max |gpu - cpu| / max |cpu| (d on the device, h on the host) */
static double rel_diff(const kr_array *d, const kr_array *h)
{
    kr_array *c = NULL;
    KT_OK(kr_array_clone(&c, d, KR_HOST, g_gpu));
    if (!c) return INFINITY;
    double e = 0, m = 0;
    for (int64_t k = 0; k < nscal(h); k++) {
        e = fmax(e, fabs(sc(c, k) - sc(h, k)));
        m = fmax(m, fabs(sc(h, k)));
    }
    kr_array_destroy(c);
    return m > 0 ? e / m : e;
}

static void pair(kr_dtype t, int nd, const int64_t *d, uint64_t seed, kr_array **h, kr_array **g)
{
    KT_OK(kr_array_create(h, t, nd, d, KR_HOST, NULL));
    KT_OK(kr_array_create(g, t, nd, d, KR_DEVICE, g_gpu));
    if (seed) {
        KT_OK(kr_vec_random(g_cpu, *h, seed));
        KT_OK(kr_vec_random(g_gpu, *g, seed)); /* the same values on both */
    }
}

/* forward and adjoint of two operators (host, device) built alike */
static void op_parity(kr_linop *oh, kr_linop *og, kr_dtype t)
{
    int64_t di[KR_MAX_DIMS], dout[KR_MAX_DIMS];
    int ni = kr_linop_in_dims(oh, di), no = kr_linop_out_dims(oh, dout);
    kr_array *xh, *xg, *yh, *yg, *bh, *bg;
    pair(t, ni, di, 31, &xh, &xg);
    pair(t, no, dout, 32, &yh, &yg);
    pair(t, ni, di, 0, &bh, &bg);
    KT_OK(kr_linop_forward(oh, xh, yh));
    KT_OK(kr_linop_forward(og, xg, yg));
    KT_LE(rel_diff(yg, yh), tol(t));
    KT_OK(kr_linop_adjoint(oh, yh, bh));
    KT_OK(kr_linop_adjoint(og, yg, bg));
    KT_LE(rel_diff(bg, bh), tol(t));
    double e = 1;
    KT_OK(kr_linop_adjoint_test(og, 3, &e));
    KT_LE(e, single(t) ? 2e-6 : 1e-14);
    kr_array *arr[6] = {xh, xg, yh, yg, bh, bg};
    for (int i = 0; i < 6; i++) kr_array_destroy(arr[i]);
}

static void test_transforms(void)
{
    const int64_t d2[2] = {64, 48}, d3[3] = {32, 16, 8}, sh[3] = {5, -3, 2};
    for (int ti = 0; ti < 4; ti++) {
        const kr_dtype t = kDT[ti];
        for (int bc = 0; bc < 2; bc++) {
            kr_linop *h = NULL, *g = NULL;
            KT_OK(kr_fdiff_linop_create(&h, g_cpu, t, 3, d3, 7u, (kr_fdiff_boundary)bc));
            KT_OK(kr_fdiff_linop_create(&g, g_gpu, t, 3, d3, 7u, (kr_fdiff_boundary)bc));
            if (h && g) op_parity(h, g, t);
            kr_linop_destroy(h);
            kr_linop_destroy(g);
        }
        for (int k = 0; k < 3; k++) {
            kr_wavelet_opts o;
            kr_wavelet_opts_default(&o);
            o.kind = (kr_wavelet_kind)k;
            kr_linop *h = NULL, *g = NULL;
            KT_OK(kr_wavelet_linop_create(&h, g_cpu, t, 2, d2, &o));
            KT_OK(kr_wavelet_linop_create(&g, g_gpu, t, 2, d2, &o));
            if (h && g) op_parity(h, g, t);
            kr_linop_destroy(h);
            kr_linop_destroy(g);
            o.axes = 7u;
            o.levels = 2;
            o.shift = sh;
            KT_OK(kr_wavelet_linop_create(&h, g_cpu, t, 3, d3, &o));
            KT_OK(kr_wavelet_linop_create(&g, g_gpu, t, 3, d3, &o));
            if (h && g) op_parity(h, g, t);
            kr_linop_destroy(h);
            kr_linop_destroy(g);
        }
    }
}

/* prox and value of the same prox built on both sides */
static void prox_parity(kr_prox *ph, kr_prox *pg, kr_dtype t, int nd, const int64_t *d,
                        double step)
{
    kr_array *vh, *vg, *xh, *xg;
    pair(t, nd, d, 41, &vh, &vg);
    pair(t, nd, d, 0, &xh, &xg);
    KT_OK(kr_prox_apply(ph, step, vh, xh));
    KT_OK(kr_prox_apply(pg, step, vg, xg));
    KT_LE(rel_diff(xg, xh), 10 * tol(t));
    double a, b;
    KT_OK(kr_prox_value(ph, vh, &a));
    KT_OK(kr_prox_value(pg, vg, &b));
    if (isinf(a))
        KT_CHECK(isinf(b));
    else
        KT_NEAR(a, b, 10 * tol(t) * fmax(1.0, fabs(a)));
    kr_array_destroy(vh);
    kr_array_destroy(vg);
    kr_array_destroy(xh);
    kr_array_destroy(xg);
}

static void test_prox(void)
{
    const int64_t d[3] = {32, 24, 3}, d2[2] = {32, 32};
    for (int ti = 0; ti < 4; ti++) {
        const kr_dtype t = kDT[ti];
        kr_prox *h = NULL, *g = NULL;
#define PP(create_h, create_g, nd, dims, step)                                                 \
    do {                                                                                       \
        KT_OK(create_h);                                                                       \
        KT_OK(create_g);                                                                       \
        if (h && g) prox_parity(h, g, t, nd, dims, step);                                      \
        kr_prox_destroy(h);                                                                    \
        kr_prox_destroy(g);                                                                    \
        h = g = NULL;                                                                          \
    } while (0)
        PP(kr_prox_l1_create(&h, g_cpu, t, 3, d, 0.7), kr_prox_l1_create(&g, g_gpu, t, 3, d, 0.7),
           3, d, 0.5);
        PP(kr_prox_l21_create(&h, g_cpu, t, 3, d, 0.7),
           kr_prox_l21_create(&g, g_gpu, t, 3, d, 0.7), 3, d, 0.5);
        PP(kr_prox_box_create(&h, g_cpu, t, 3, d, -0.2, 0.3),
           kr_prox_box_create(&g, g_gpu, t, 3, d, -0.2, 0.3), 3, d, 1.0);
        PP(kr_prox_l2ball_create(&h, g_cpu, t, 3, d, 2.0, NULL),
           kr_prox_l2ball_create(&g, g_gpu, t, 3, d, 2.0, NULL), 3, d, 1.0);
        PP(kr_prox_llr_create(&h, g_cpu, t, 3, d, 0.5, 2, 8, NULL),
           kr_prox_llr_create(&g, g_gpu, t, 3, d, 0.5, 2, 8, NULL), 3, d, 1.0);
        PP(kr_prox_l1_wavelet_create(&h, g_cpu, t, 2, d2, 0.3, NULL, 7),
           kr_prox_l1_wavelet_create(&g, g_gpu, t, 2, d2, 0.3, NULL, 7), 2, d2, 1.0);
        PP(kr_prox_tv_create(&h, g_cpu, t, 2, d2, 0.3, 3u, 0.0, INFINITY, 20),
           kr_prox_tv_create(&g, g_gpu, t, 2, d2, 0.3, 3u, 0.0, INFINITY, 20), 2, d2, 1.0);
#undef PP
    }
}

/* FISTA (TV) and PDHG (l21 of D, box) on a wavelet "forward model" from the same data. */
static void test_solvers(void)
{
    const int64_t d[2] = {32, 32}, dd[3] = {32, 32, 2};
    for (int ti = 0; ti < 2; ti++) {
        const kr_dtype t = kDT[ti];
        kr_linop *Ah = NULL, *Ag = NULL, *Dh = NULL, *Dg = NULL;
        KT_OK(kr_wavelet_linop_create(&Ah, g_cpu, t, 2, d, NULL));
        KT_OK(kr_wavelet_linop_create(&Ag, g_gpu, t, 2, d, NULL));
        KT_OK(kr_fdiff_linop_create(&Dh, g_cpu, t, 2, d, 3u, KR_FDIFF_NEUMANN));
        KT_OK(kr_fdiff_linop_create(&Dg, g_gpu, t, 2, d, 3u, KR_FDIFF_NEUMANN));
        kr_array *yh, *yg, *xh, *xg;
        pair(t, 2, d, 51, &yh, &yg);
        pair(t, 2, d, 0, &xh, &xg);
        kr_prox *th = NULL, *tg = NULL, *lh = NULL, *lg = NULL, *bh = NULL, *bg = NULL;
        KT_OK(kr_prox_tv_create(&th, g_cpu, t, 2, d, 0.2, 3u, 0.0, INFINITY, 10));
        KT_OK(kr_prox_tv_create(&tg, g_gpu, t, 2, d, 0.2, 3u, 0.0, INFINITY, 10));
        KT_OK(kr_prox_l21_create(&lh, g_cpu, t, 3, dd, 0.2));
        KT_OK(kr_prox_l21_create(&lg, g_gpu, t, 3, dd, 0.2));
        KT_OK(kr_prox_box_create(&bh, g_cpu, t, 2, d, 0.0, INFINITY));
        KT_OK(kr_prox_box_create(&bg, g_gpu, t, 2, d, 0.0, INFINITY));
        kr_reg_opts o;
        kr_reg_opts_default(&o);
        o.max_iter = 40;
        o.tol = 0;
        const double st = single(t) ? 1e-4 : 1e-9;
        KT_OK(kr_fista(g_cpu, Ah, yh, th, xh, &o, NULL));
        KT_OK(kr_fista(g_gpu, Ag, yg, tg, xg, &o, NULL));
        KT_LE(rel_diff(xg, xh), st);
        kr_reg_term trh[2] = {{Dh, lh}, {NULL, bh}}, trg[2] = {{Dg, lg}, {NULL, bg}};
        KT_OK(kr_pdhg(g_cpu, Ah, yh, trh, 2, xh, &o, NULL));
        KT_OK(kr_pdhg(g_gpu, Ag, yg, trg, 2, xg, &o, NULL));
        KT_LE(rel_diff(xg, xh), st);
        /* a host array with the device prox: KR_ERR_LOCATION */
        KT_STATUS(kr_prox_apply(tg, 1.0, yh, xh), KR_ERR_LOCATION);
        kr_prox *ps[6] = {th, tg, lh, lg, bh, bg};
        for (int i = 0; i < 6; i++) kr_prox_destroy(ps[i]);
        kr_linop *ls[4] = {Ah, Ag, Dh, Dg};
        for (int i = 0; i < 4; i++) kr_linop_destroy(ls[i]);
        kr_array *as[4] = {yh, yg, xh, xg};
        for (int i = 0; i < 4; i++) kr_array_destroy(as[i]);
    }
}

int main(void)
{
    kt_require_gpu();
    KT_OK(kr_ctx_create(&g_cpu, KR_BACKEND_CPU));
    KT_OK(kr_ctx_create(&g_gpu, KR_BACKEND_CUDA));
    kr_ctx_set_quiet(g_cpu, 1);
    kr_ctx_set_quiet(g_gpu, 1);
    KT_RUN(test_transforms);
    KT_RUN(test_prox);
    KT_RUN(test_solvers);
    kr_ctx_destroy(g_cpu);
    kr_ctx_destroy(g_gpu);
    return kt_finish();
}
