/* Least-squares MRI on CUDA (kray/lsq.h): CPU vs GPU parity of Q (NUFFT and DrFT routes), of the
 * Toeplitz, NUFFT and DrFT normal operators and of F^H W d (2-D and 3-D, c64, batched with a
 * remainder chunk), the coil-map form, CG on the device against CG on the host, and bad input
 * (host arrays on a CUDA plan). Exits 77 without a usable CUDA device. */
#include "kt.h"

#include "kray/linop.h"
#include "kray/lsq.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static kr_ctx *g_cpu, *g_gpu;

static void mk_traj(const int64_t n[3], int64_t m, uint64_t seed, kr_array **t, kr_array **w)
{
    int64_t d[2] = {3, m};
    KT_OK(kr_array_create(t, KR_F32, 2, d, KR_HOST, NULL));
    KT_OK(kr_array_create(w, KR_F32, 1, &m, KR_HOST, NULL));
    float *k = (float *)(*t)->data, *wv = (float *)(*w)->data;
    uint64_t z = seed;
    for (int64_t i = 0; i < m; i++) {
        for (int a = 0; a < 4; a++) {
            z ^= z << 13, z ^= z >> 7, z ^= z << 17;
            double u = (double)(z >> 11) / 9007199254740992.0;
            if (a < 3)
                k[3 * i + a] = n[a] > 1 ? (float)((u - 0.5) * (double)n[a]) : 0.0f;
            else
                wv[i] = (float)(0.5 + u);
        }
    }
}

/* relative l2 difference of a device array vs a host array */
static double rel_dev_host(const kr_array *dv, const kr_array *h)
{
    kr_array *c = NULL;
    KT_OK(kr_array_clone(&c, dv, KR_HOST, g_gpu));
    if (!c) return INFINITY;
    double e = 0, r = 0;
    int64_t n = 2 * kr_array_numel(h);
    const float *a = (const float *)c->data, *b = (const float *)h->data;
    for (int64_t i = 0; i < n; i++) e += (a[i] - b[i]) * (double)(a[i] - b[i]), r += b[i] * (double)b[i];
    kr_array_destroy(c);
    return sqrt(e / r);
}

static void parity(const int64_t n[3], int64_t m, int64_t batch, int64_t nimg)
{
    kr_array *t = NULL, *w = NULL;
    mk_traj(n, m, 0xABCDEFull + (uint64_t)m, &t, &w);
    int64_t id[4] = {n[0], n[1], n[2], batch}, kd[2] = {m, batch};
    for (int meth = 0; meth < 4; meth++) {
        kr_lsq_opts o;
        kr_lsq_opts_default(&o);
        o.batch = batch;
        o.normal = meth == 3 ? KR_LSQ_NORMAL_TOEPLITZ : (kr_lsq_normal_method)meth;
        o.qmethod = meth == 3 ? KR_LSQ_Q_DRFT : KR_LSQ_Q_NUFFT;
        kr_lsq_plan *pc = NULL, *pg = NULL;
        KT_OK(kr_lsq_plan_create(&pc, g_cpu, n, t, w, &o));
        KT_OK(kr_lsq_plan_create(&pg, g_gpu, n, t, w, &o));
        if (!pc || !pg) {
            kr_lsq_plan_destroy(pc);
            kr_lsq_plan_destroy(pg);
            continue;
        }
        kr_array *x = NULL, *y = NULL, *xd = NULL, *yd = NULL, *d = NULL, *dd = NULL;
        KT_OK(kr_array_create(&x, KR_C64, 4, id, KR_HOST, NULL));
        KT_OK(kr_array_create(&y, KR_C64, 4, id, KR_HOST, NULL));
        KT_OK(kr_array_create(&yd, KR_C64, 4, id, KR_DEVICE, g_gpu));
        KT_OK(kr_array_create(&d, KR_C64, 2, kd, KR_HOST, NULL));
        KT_OK(kr_vec_random(g_cpu, x, 5));
        KT_OK(kr_vec_random(g_cpu, d, 6));
        KT_OK(kr_array_clone(&xd, x, KR_DEVICE, g_gpu));
        KT_OK(kr_array_clone(&dd, d, KR_DEVICE, g_gpu));
        KT_OK(kr_lsq_normal(pc, x, y));
        KT_OK(kr_lsq_normal(pg, xd, yd));
        double e = rel_dev_host(yd, y);
        printf("n %lldx%lldx%lld batch %lld method %d: normal GPU vs CPU %.3g\n", (long long)n[0],
               (long long)n[1], (long long)n[2], (long long)batch, meth, e);
        KT_LE(e, 2e-4);
        KT_OK(kr_lsq_rhs(pc, d, y));
        KT_OK(kr_lsq_rhs(pg, dd, yd));
        e = rel_dev_host(yd, y);
        KT_LE(e, 2e-4);
        kr_linop *Ng = NULL;
        KT_OK(kr_lsq_normal_linop_create(&Ng, pg));
        double ae = 1;
        KT_OK(kr_linop_adjoint_test(Ng, 3, &ae));
        KT_LE(ae, 1e-4);
        kr_linop_destroy(Ng);
        kr_array_destroy(x);
        kr_array_destroy(y);
        kr_array_destroy(xd);
        kr_array_destroy(yd);
        kr_array_destroy(d);
        kr_array_destroy(dd);
        kr_lsq_plan_destroy(pc);
        kr_lsq_plan_destroy(pg);
    }
    /* Toeplitz engine: Q, nimg images in chunks of `batch`, coil-map form */
    kr_lsq_opts o;
    kr_lsq_opts_default(&o);
    o.batch = batch;
    kr_toeplitz_plan *tc = NULL, *tg = NULL;
    KT_OK(kr_toeplitz_plan_create(&tc, g_cpu, n, t, w, &o));
    KT_OK(kr_toeplitz_plan_create(&tg, g_gpu, n, t, w, &o));
    int64_t g3[3] = {2 * n[0], 2 * n[1], n[2] > 1 ? 2 * n[2] : 1};
    int64_t md[4] = {n[0], n[1], n[2], nimg};
    kr_array *qc = NULL, *qg = NULL, *mc = NULL, *mg = NULL, *xc = NULL, *xg = NULL, *yc = NULL,
             *yg = NULL, *x1 = NULL, *x1g = NULL, *y1 = NULL, *y1g = NULL;
    KT_OK(kr_array_create(&qc, KR_C64, 3, g3, KR_HOST, NULL));
    KT_OK(kr_array_create(&qg, KR_C64, 3, g3, KR_DEVICE, g_gpu));
    KT_OK(kr_toeplitz_q(tc, qc));
    KT_OK(kr_toeplitz_q(tg, qg));
    KT_LE(rel_dev_host(qg, qc), 1e-5);
    KT_OK(kr_array_create(&mc, KR_C64, 4, md, KR_HOST, NULL));
    KT_OK(kr_array_create(&yc, KR_C64, 4, md, KR_HOST, NULL));
    KT_OK(kr_array_create(&yg, KR_C64, 4, md, KR_DEVICE, g_gpu));
    KT_OK(kr_array_create(&xc, KR_C64, 4, md, KR_HOST, NULL));
    KT_OK(kr_vec_random(g_cpu, mc, 9));
    KT_OK(kr_vec_random(g_cpu, xc, 10));
    KT_OK(kr_array_clone(&mg, mc, KR_DEVICE, g_gpu));
    KT_OK(kr_array_clone(&xg, xc, KR_DEVICE, g_gpu));
    KT_OK(kr_toeplitz_execute(tc, xc, yc));
    KT_OK(kr_toeplitz_execute(tg, xg, yg));
    KT_LE(rel_dev_host(yg, yc), 1e-5);
    KT_OK(kr_array_create(&x1, KR_C64, 3, n, KR_HOST, NULL));
    KT_OK(kr_array_create(&y1, KR_C64, 3, n, KR_HOST, NULL));
    KT_OK(kr_array_create(&y1g, KR_C64, 3, n, KR_DEVICE, g_gpu));
    KT_OK(kr_vec_random(g_cpu, x1, 11));
    KT_OK(kr_array_clone(&x1g, x1, KR_DEVICE, g_gpu));
    KT_OK(kr_toeplitz_execute_maps(tc, mc, x1, y1));
    KT_OK(kr_toeplitz_execute_maps(tg, mg, x1g, y1g));
    KT_LE(rel_dev_host(y1g, y1), 1e-5);
    KT_OK(kr_toeplitz_execute_maps(tg, mg, x1g, x1g)); /* in place */
    KT_LE(rel_dev_host(x1g, y1), 1e-5);
    /* bad input: host arrays on the CUDA plan */
    KT_STATUS(kr_toeplitz_execute(tg, xc, yg), KR_ERR_LOCATION);
    kr_array *arrs[] = {qc, qg, mc, mg, xc, xg, yc, yg, x1, x1g, y1, y1g};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) kr_array_destroy(arrs[i]);
    kr_toeplitz_plan_destroy(tc);
    kr_toeplitz_plan_destroy(tg);
    kr_array_destroy(t);
    kr_array_destroy(w);
}

static void test_parity_2d(void)
{
    int64_t n[3] = {40, 36, 1};
    parity(n, 5000, 3, 7);
}

static void test_parity_3d(void)
{
    int64_t n[3] = {16, 20, 12};
    parity(n, 6000, 2, 3);
}

/* CG on the device (Toeplitz) vs CG on the host, 20 iterations */
static void test_cg_device(void)
{
    int64_t n[3] = {48, 48, 1};
    kr_array *t = NULL, *w = NULL;
    mk_traj(n, 4000, 77, &t, &w);
    kr_lsq_plan *pc = NULL, *pg = NULL;
    KT_OK(kr_lsq_plan_create(&pc, g_cpu, n, t, w, NULL));
    KT_OK(kr_lsq_plan_create(&pg, g_gpu, n, t, w, NULL));
    if (!pc || !pg) return;
    int64_t m = 4000;
    kr_array *d = NULL, *dd = NULL, *bc = NULL, *bg = NULL, *xc = NULL, *xg = NULL;
    KT_OK(kr_array_create(&d, KR_C64, 1, &m, KR_HOST, NULL));
    KT_OK(kr_vec_random(g_cpu, d, 1));
    KT_OK(kr_array_clone(&dd, d, KR_DEVICE, g_gpu));
    KT_OK(kr_array_create(&bc, KR_C64, 3, n, KR_HOST, NULL));
    KT_OK(kr_array_create(&xc, KR_C64, 3, n, KR_HOST, NULL));
    KT_OK(kr_array_create(&bg, KR_C64, 3, n, KR_DEVICE, g_gpu));
    KT_OK(kr_array_create(&xg, KR_C64, 3, n, KR_DEVICE, g_gpu));
    KT_OK(kr_lsq_rhs(pc, d, bc));
    KT_OK(kr_lsq_rhs(pg, dd, bg));
    kr_linop *Nc = NULL, *Ng = NULL;
    KT_OK(kr_lsq_normal_linop_create(&Nc, pc));
    KT_OK(kr_lsq_normal_linop_create(&Ng, pg));
    kr_solve_opts so;
    kr_solve_opts_default(&so);
    so.max_iter = 20;
    so.lambda = 100;
    kr_solve_info ic, ig;
    KT_OK(kr_cg(g_cpu, Nc, bc, xc, &so, &ic));
    KT_OK(kr_cg(g_gpu, Ng, bg, xg, &so, &ig));
    KT_NEAR(ic.iterations, ig.iterations, 1);
    KT_LE(rel_dev_host(xg, xc), 1e-4);
    kr_linop_destroy(Nc);
    kr_linop_destroy(Ng);
    kr_array *arrs[] = {d, dd, bc, bg, xc, xg, t, w};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) kr_array_destroy(arrs[i]);
    kr_lsq_plan_destroy(pc);
    kr_lsq_plan_destroy(pg);
}

int main(void)
{
    kt_require_gpu();
    KT_OK(kr_ctx_create(&g_cpu, KR_BACKEND_CPU));
    KT_OK(kr_ctx_create(&g_gpu, KR_BACKEND_CUDA));
    kr_ctx_set_quiet(g_gpu, 1);
    KT_RUN(test_parity_2d);
    KT_RUN(test_parity_3d);
    KT_RUN(test_cg_device);
    kr_ctx_destroy(g_cpu);
    kr_ctx_destroy(g_gpu);
    return kt_finish();
}
