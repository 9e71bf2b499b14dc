/* Off-resonance operators on CUDA (kray/offres.h): CPU vs GPU parity of the exact and the
 * time-segmented operators (forward and adjoint, c64 and c128), adjoint tests on the device,
 * CG on the device against CG on the host, and host arrays on a device operator. Exits 77
 * without a usable CUDA device. */
#include "kt.h"

#include "kray/linop.h"
#include "kray/offres.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static kr_ctx *g_cpu, *g_gpu;

/* random 2-D trajectory, smooth +-100 Hz field map, times 2..12 ms */
static void inputs(const int64_t n[3], int64_t M, kr_array **t, kr_array **f, kr_array **tm)
{
    int64_t td[2] = {3, M};
    KT_OK(kr_array_create(t, KR_F64, 2, td, KR_HOST, NULL));
    KT_OK(kr_array_create(f, KR_F64, 2, n, KR_HOST, NULL));
    KT_OK(kr_array_create(tm, KR_F64, 1, &M, KR_HOST, NULL));
    uint64_t z = 99;
    double *k = (double *)(*t)->data, *fv = (double *)(*f)->data, *tv = (double *)(*tm)->data;
    for (int64_t m = 0; m < M; m++) {
        k[3 * m] = (kt_urand(&z) - 0.5) * (double)n[0];
        k[3 * m + 1] = (kt_urand(&z) - 0.5) * (double)n[1];
        k[3 * m + 2] = 0;
        tv[m] = 0.002 + 0.010 * (double)m / (double)(M - 1);
    }
    for (int64_t j = 0; j < n[1]; j++)
        for (int64_t i = 0; i < n[0]; i++)
            fv[j * n[0] + i] = 100 * cos(6.283185307179586 * (double)(i + 2 * j) / (double)n[0]);
}

static double rel(const kr_array *dev, const kr_array *host)
{
    kr_array *c = NULL;
    KT_OK(kr_array_clone(&c, dev, KR_HOST, g_gpu));
    if (!c) return INFINITY;
    double e = 0, r = 0;
    for (int64_t i = 0; i < 2 * kr_array_numel(host); i++) { /* re and im parts */
        double a = host->dtype == KR_C64 ? ((const float *)c->data)[i]
                                         : ((const double *)c->data)[i];
        double b = host->dtype == KR_C64 ? ((const float *)host->data)[i]
                                         : ((const double *)host->data)[i];
        e += (a - b) * (a - b), r += b * b;
    }
    kr_array_destroy(c);
    return sqrt(e / r);
}

static void parity(kr_dtype dt, int exact, double tol)
{
    int64_t n[3] = {16, 16, 1}, M = 600;
    kr_array *t = NULL, *f = NULL, *tm = NULL;
    inputs(n, M, &t, &f, &tm);
    kr_offres_opts o;
    kr_offres_opts_default(&o);
    o.dtype = dt, o.exact = exact;
    kr_linop *Ac = NULL, *Ag = NULL;
    kr_offres_info ic, ig;
    KT_OK(kr_offres_linop_create(&Ac, g_cpu, n, t, f, tm, &o, &ic));
    kr_status s = kr_offres_linop_create(&Ag, g_gpu, n, t, f, tm, &o, &ig);
    if (s != KR_OK) {
        printf("  %s %s on CUDA: %s (%s)\n", kr_dtype_name(dt), exact ? "exact" : "segmented",
               kr_status_string(s), kr_last_error());
        KT_CHECK(!exact && dt == KR_C128 && s == KR_ERR_NOT_SUPPORTED);
    } else {
        KT_CHECK(ic.segments == ig.segments);
        kr_array *x = NULL, *y = NULL, *xd = NULL, *yd = NULL, *yg = NULL, *xg = NULL;
        KT_OK(kr_array_create(&x, dt, 3, n, KR_HOST, NULL));
        KT_OK(kr_array_create(&y, dt, 1, &M, KR_HOST, NULL));
        KT_OK(kr_vec_random(g_cpu, x, 1));
        KT_OK(kr_array_clone(&xd, x, KR_DEVICE, g_gpu));
        KT_OK(kr_array_create(&yg, dt, 1, &M, KR_DEVICE, g_gpu));
        KT_OK(kr_array_create(&xg, dt, 3, n, KR_DEVICE, g_gpu));
        KT_OK(kr_linop_forward(Ac, x, y));
        KT_OK(kr_linop_forward(Ag, xd, yg));
        double ef = rel(yg, y);
        KT_OK(kr_array_clone(&yd, y, KR_DEVICE, g_gpu));
        KT_OK(kr_linop_adjoint(Ac, y, x));
        KT_OK(kr_linop_adjoint(Ag, yd, xg));
        double eb = rel(xg, x), ea = 0;
        KT_OK(kr_linop_adjoint_test(Ag, 5, &ea));
        printf("  %s %s (L=%d): forward %.2e, adjoint %.2e, device adjoint test %.1e\n",
               kr_dtype_name(dt), exact ? "exact" : "segmented", ig.segments, ef, eb, ea);
        KT_LE(ef, tol);
        KT_LE(eb, tol);
        KT_LE(ea, dt == KR_C64 ? 1e-5 : 1e-12);
        /* host arrays on the device operator */
        KT_STATUS(kr_linop_forward(Ag, x, y), KR_ERR_LOCATION);
        kr_array_destroy(x), kr_array_destroy(y), kr_array_destroy(xd), kr_array_destroy(yd);
        kr_array_destroy(xg), kr_array_destroy(yg);
    }
    kr_linop_destroy(Ac), kr_linop_destroy(Ag);
    kr_array_destroy(t), kr_array_destroy(f), kr_array_destroy(tm);
}

static void test_parity(void)
{
    parity(KR_C64, 0, 1e-4);
    parity(KR_C64, 1, 1e-5);
    parity(KR_C128, 1, 1e-12);
    parity(KR_C128, 0, 1e-8);
}

static void test_cg_device(void)
{
    int64_t n[3] = {16, 16, 1}, M = 600;
    kr_array *t = NULL, *f = NULL, *tm = NULL;
    inputs(n, M, &t, &f, &tm);
    kr_linop *A[2] = {NULL, NULL}, *N[2] = {NULL, NULL};
    kr_ctx *cx[2] = {g_cpu, g_gpu};
    kr_array *x[2] = {NULL, NULL}, *b[2] = {NULL, NULL}, *y = NULL, *yd = NULL;
    KT_OK(kr_array_create(&y, KR_C64, 1, &M, KR_HOST, NULL));
    KT_OK(kr_vec_random(g_cpu, y, 3));
    KT_OK(kr_array_clone(&yd, y, KR_DEVICE, g_gpu));
    for (int q = 0; q < 2; q++) {
        kr_loc l = q ? KR_DEVICE : KR_HOST;
        KT_OK(kr_offres_linop_create(&A[q], cx[q], n, t, f, tm, NULL, NULL));
        KT_OK(kr_linop_normal_op(&N[q], A[q]));
        KT_OK(kr_array_create(&b[q], KR_C64, 3, n, l, q ? g_gpu : NULL));
        KT_OK(kr_array_create(&x[q], KR_C64, 3, n, l, q ? g_gpu : NULL));
        KT_OK(kr_linop_adjoint(A[q], q ? yd : y, b[q]));
        kr_solve_opts so;
        kr_solve_opts_default(&so);
        so.max_iter = 15, so.lambda = 10;
        KT_OK(kr_cg(cx[q], N[q], b[q], x[q], &so, NULL));
    }
    double e = rel(x[1], x[0]);
    printf("  CG 15 iterations, device vs host: %.2e\n", e);
    KT_LE(e, 1e-3);
    for (int q = 0; q < 2; q++) {
        kr_linop_destroy(N[q]), kr_linop_destroy(A[q]);
        kr_array_destroy(x[q]), kr_array_destroy(b[q]);
    }
    kr_array_destroy(y), kr_array_destroy(yd);
    kr_array_destroy(t), kr_array_destroy(f), kr_array_destroy(tm);
}

int main(void)
{
    kt_require_gpu();
    KT_OK(kr_ctx_create(&g_cpu, KR_BACKEND_CPU));
    KT_OK(kr_ctx_create(&g_gpu, KR_BACKEND_CUDA));
    kr_ctx_set_quiet(g_gpu, 1);
    KT_RUN(test_parity);
    KT_RUN(test_cg_device);
    kr_ctx_destroy(g_cpu);
    kr_ctx_destroy(g_gpu);
    return kt_finish();
}
