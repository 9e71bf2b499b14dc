/* GPU parity for the solve module: kr_vec_* on device arrays vs the host implementation,
 * kr_vec_random identical on both, the dense matrix operator and the combinators on the device
 * (values and adjoint test), CG and CGLS on the device vs the host, location errors. */
#include "internal.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>

static kr_ctx *g_cpu, *g_gpu;
static const kr_dtype kDT[4] = {KR_F32, KR_F64, KR_C64, KR_C128};

static int is_single(kr_dtype t) { return t == KR_F32 || t == KR_C64; }
static int64_t nscal(const kr_array *a)
{
    return kr_array_numel(a) * (kr_dtype_is_complex(a->dtype) ? 2 : 1);
}
static double sc(const kr_array *a, int64_t k)
{
    return is_single(a->dtype) ? ((const float *)a->data)[k] : ((const double *)a->data)[k];
}

static kr_array *hvec(kr_dtype t, int64_t n, uint64_t seed)
{
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, t, 1, &n, KR_HOST, NULL));
    if (seed) KT_OK(kr_vec_random(g_cpu, a, seed));
    return a;
}

static kr_array *dvec(kr_dtype t, int64_t n, uint64_t seed)
{
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, t, 1, &n, KR_DEVICE, g_gpu));
    if (seed) KT_OK(kr_vec_random(g_gpu, a, seed));
    return a;
}

static kr_array *to_host(const kr_array *d)
{
    kr_array *h = NULL;
    KT_OK(kr_array_clone(&h, d, KR_HOST, g_gpu));
    return h;
}

/* max |a - b| over scalars; *identical = bitwise equal */
static double diff(const kr_array *a, const kr_array *b, int *identical)
{
    double e = 0;
    for (int64_t k = 0; k < nscal(a); k++) e = fmax(e, fabs(sc(a, k) - sc(b, k)));
    if (identical) *identical = memcmp(a->data, b->data, kr_array_bytes(a)) == 0;
    return e;
}

static void test_vec_parity(void)
{
    const int64_t sizes[4] = {1, 4097, 300001, 5000011}; /* last: > 1024 chunks in pass 2 */
    for (int d = 0; d < 4; d++) {
        kr_dtype t = kDT[d];
        const double eps = is_single(t) ? 0x1p-24 : 0x1p-53;
        for (int s = 0; s < 4; s++) {
            int64_t n = sizes[s];
            kr_array *hx = hvec(t, n, 11), *hy = hvec(t, n, 12);
            kr_array *dx = dvec(t, n, 11), *dy = dvec(t, n, 12), *back;
            int same;
            back = to_host(dx);
            KT_CHECK(diff(back, hx, &same) == 0 && same); /* same generator on both */
            kr_array_destroy(back);
            const double ar = 0.75, ai = kr_dtype_is_complex(t) ? 1.5 : 0.0;
            KT_OK(kr_vec_scale(g_cpu, hy, ar, ai));
            KT_OK(kr_vec_scale(g_gpu, dy, ar, ai));
            KT_OK(kr_vec_axpy(g_cpu, hy, -0.5, ai, hx));
            KT_OK(kr_vec_axpy(g_gpu, dy, -0.5, ai, dx));
            KT_OK(kr_vec_xpay(g_cpu, hy, 0.25, -ai, hx));
            KT_OK(kr_vec_xpay(g_gpu, dy, 0.25, -ai, dx));
            back = to_host(dy);
            double e = diff(back, hy, &same);
            KT_LE(e, 16 * eps); /* |values| < 8: within one ulp; expected identical */
            if (s == 3)
                printf("  %-4s elementwise: max |gpu - cpu| %.1e (%s)\n", kr_dtype_name(t), e,
                       same ? "bit-identical" : "differs");
            kr_array_destroy(back);
            double hr, hi, gr, gi, hn, gn;
            KT_OK(kr_vec_dot(g_cpu, hx, hy, &hr, &hi));
            KT_OK(kr_vec_dot(g_gpu, dx, dy, &gr, &gi));
            KT_OK(kr_vec_norm2(g_cpu, hy, &hn));
            KT_OK(kr_vec_norm2(g_gpu, dy, &gn));
            double hxn;
            KT_OK(kr_vec_norm2(g_cpu, hx, &hxn));
            double scale = hxn * hn + 1e-300;
            KT_NEAR(gr, hr, 1e-12 * scale);
            KT_NEAR(gi, hi, 1e-12 * scale);
            KT_NEAR(gn, hn, 1e-13 * hn);
            /* device reductions are deterministic */
            double gr2, gi2;
            KT_OK(kr_vec_dot(g_gpu, dx, dy, &gr2, &gi2));
            KT_CHECK(gr2 == gr && gi2 == gi);
            if (s == 3)
                printf("  %-4s dot: |gpu - cpu| / (|x| |y|) = %.1e, norm rel diff %.1e\n",
                       kr_dtype_name(t), hypot(gr - hr, gi - hi) / scale, fabs(gn - hn) / hn);
            KT_OK(kr_vec_copy(g_gpu, dx, dy));
            KT_OK(kr_vec_zero(g_gpu, dy));
            KT_OK(kr_vec_norm2(g_gpu, dy, &gn));
            KT_CHECK(gn == 0.0);
            back = to_host(dx);
            KT_OK(kr_vec_norm2(g_cpu, back, &gn));
            KT_NEAR(gn, hn, 1e-13 * hn);
            kr_array_destroy(back);
            kr_array_destroy(hx), kr_array_destroy(hy), kr_array_destroy(dx), kr_array_destroy(dy);
        }
    }
}

static void *rand_buf(kr_dtype t, int64_t count, uint64_t seed)
{
    int64_t ns = count * (kr_dtype_is_complex(t) ? 2 : 1);
    void *p = malloc((size_t)count * kr_dtype_size(t));
    for (int64_t k = 0; k < ns; k++) {
        double v = kri_rand_sym(seed, (uint64_t)k);
        if (is_single(t))
            ((float *)p)[k] = (float)v;
        else
            ((double *)p)[k] = v;
    }
    return p;
}

static void test_operators_parity(void)
{
    for (int d = 0; d < 4; d++) {
        kr_dtype t = kDT[d];
        const double tol = is_single(t) ? 1e-6 : 1e-12;
        void *MA = rand_buf(t, 33 * 20, 1), *MB = rand_buf(t, 33 * 20, 2), *MC = rand_buf(t, 9 * 33, 3);
        kr_linop *hA, *hB, *hC, *dA, *dB, *dC, *dops[7] = {0}, *hops[7] = {0};
        KT_OK(kr_linop_matrix(&hA, g_cpu, t, 33, 20, MA, KR_HOST));
        KT_OK(kr_linop_matrix(&hB, g_cpu, t, 33, 20, MB, KR_HOST));
        KT_OK(kr_linop_matrix(&hC, g_cpu, t, 9, 33, MC, KR_HOST));
        KT_OK(kr_linop_matrix(&dA, g_gpu, t, 33, 20, MA, KR_DEVICE));
        KT_OK(kr_linop_matrix(&dB, g_gpu, t, 33, 20, MB, KR_DEVICE));
        KT_OK(kr_linop_matrix(&dC, g_gpu, t, 9, 33, MC, KR_DEVICE));
        KT_CHECK(kr_linop_loc(dA) == KR_DEVICE);
        int64_t twenty = 20;
        kr_linop *L[2][3] = {{hA, hB, hC}, {dA, dB, dC}};
        kr_linop **ops[2] = {hops, dops};
        kr_ctx *cx[2] = {g_cpu, g_gpu};
        for (int side = 0; side < 2; side++) {
            kr_linop **o = ops[side];
            o[0] = L[side][0];
            KT_OK(kr_linop_chain(&o[1], L[side][0], L[side][2]));
            KT_OK(kr_linop_stack(&o[2], L[side][0], L[side][1]));
            KT_OK(kr_linop_sum(&o[3], L[side][0], L[side][1]));
            KT_OK(kr_linop_scale(&o[4], L[side][0], 2.0, kr_dtype_is_complex(t) ? -1.0 : 0.0));
            KT_OK(kr_linop_identity(&o[5], cx[side], t, 1, &twenty, side ? KR_DEVICE : KR_HOST));
            KT_OK(kr_linop_normal_op(&o[6], L[side][0]));
        }
        double worst = 0, worst_fwd = 0;
        for (int i = 0; i < 7; i++) {
            double rel;
            KT_OK(kr_linop_adjoint_test(dops[i], 99, &rel));
            KT_LE(rel, tol);
            worst = fmax(worst, rel);
            /* forward and adjoint values: device vs host */
            int64_t od[KR_MAX_DIMS];
            int on = kr_linop_out_dims(hops[i], od);
            int64_t m = 1;
            for (int k = 0; k < on; k++) m *= od[k];
            kr_array *hx = hvec(t, 20, 5), *dx = dvec(t, 20, 5), *hy = hvec(t, m, 0), *dy = dvec(t, m, 0);
            KT_OK(kr_linop_forward(hops[i], hx, hy));
            KT_OK(kr_linop_forward(dops[i], dx, dy));
            kr_array *back = to_host(dy);
            double n, e = diff(back, hy, NULL);
            KT_OK(kr_vec_norm2(g_cpu, hy, &n));
            KT_LE(e, (is_single(t) ? 1e-6 : 1e-14) * n);
            worst_fwd = fmax(worst_fwd, e / n);
            kr_array_destroy(back);
            KT_OK(kr_vec_random(g_cpu, hy, 6));
            KT_OK(kr_vec_random(g_gpu, dy, 6));
            KT_OK(kr_linop_adjoint(hops[i], hy, hx));
            KT_OK(kr_linop_adjoint(dops[i], dy, dx));
            back = to_host(dx);
            e = diff(back, hx, NULL);
            KT_OK(kr_vec_norm2(g_cpu, hx, &n));
            KT_LE(e, (is_single(t) ? 1e-6 : 1e-14) * n);
            worst_fwd = fmax(worst_fwd, e / n);
            kr_array_destroy(back);
            kr_array_destroy(hx), kr_array_destroy(dx), kr_array_destroy(hy), kr_array_destroy(dy);
        }
        printf("  %-4s device operators: adjoint test worst %.1e, |gpu - cpu| / |cpu| worst %.1e\n",
               kr_dtype_name(t), worst, worst_fwd);
        for (int i = 1; i < 7; i++) kr_linop_destroy(dops[i]), kr_linop_destroy(hops[i]);
        kr_linop_destroy(hA), kr_linop_destroy(hB), kr_linop_destroy(hC);
        kr_linop_destroy(dA), kr_linop_destroy(dB), kr_linop_destroy(dC);
        free(MA), free(MB), free(MC);
    }
}

static void test_solvers_parity(void)
{
    const int m = 80, n = 30;
    for (int d = 0; d < 4; d++) {
        kr_dtype t = kDT[d];
        void *Mb = rand_buf(t, (int64_t)m * n, 70 + (uint64_t)d);
        kr_linop *hA, *dA, *hN, *dN;
        KT_OK(kr_linop_matrix(&hA, g_cpu, t, m, n, Mb, KR_HOST));
        KT_OK(kr_linop_matrix(&dA, g_gpu, t, m, n, Mb, KR_DEVICE));
        KT_OK(kr_linop_normal_op(&hN, hA));
        KT_OK(kr_linop_normal_op(&dN, dA));
        kr_array *hy = hvec(t, m, 8), *dy = dvec(t, m, 8), *hx = hvec(t, n, 0), *dx = dvec(t, n, 0);
        kr_array *hb = hvec(t, n, 9), *db = dvec(t, n, 9);
        kr_solve_opts o;
        kr_solve_opts_default(&o);
        o.max_iter = 200;
        o.tol = is_single(t) ? 1e-5 : 1e-12;
        o.lambda = 0.2;
        kr_solve_info hi, di;
        for (int solver = 0; solver < 2; solver++) {
            if (solver == 0) {
                KT_OK(kr_cg(g_cpu, hN, hb, hx, &o, &hi));
                KT_OK(kr_cg(g_gpu, dN, db, dx, &o, &di));
            } else {
                KT_OK(kr_cgls(g_cpu, hA, hy, hx, &o, &hi));
                KT_OK(kr_cgls(g_gpu, dA, dy, dx, &o, &di));
            }
            KT_CHECK(hi.converged && di.converged);
            KT_LE(abs(hi.iterations - di.iterations), 3);
            kr_array *back = to_host(dx);
            double nrm, e = diff(back, hx, NULL);
            KT_OK(kr_vec_norm2(g_cpu, hx, &nrm));
            KT_LE(e, (is_single(t) ? 1e-4 : 1e-10) * nrm);
            printf("  %-4s %-4s: host %d / device %d iterations, max |gpu - cpu| / |x| %.1e\n",
                   kr_dtype_name(t), solver ? "cgls" : "cg", hi.iterations, di.iterations, e / nrm);
            kr_array_destroy(back);
        }
        kr_array_destroy(hy), kr_array_destroy(dy), kr_array_destroy(hx), kr_array_destroy(dx);
        kr_array_destroy(hb), kr_array_destroy(db);
        kr_linop_destroy(hA), kr_linop_destroy(dA), kr_linop_destroy(hN), kr_linop_destroy(dN);
        free(Mb);
    }
}

static void test_gpu_locations(void)
{
    float m6[6] = {1, 2, 3, 4, 5, 6};
    kr_linop *dA = NULL, *hA = NULL, *op = NULL;
    KT_OK(kr_linop_matrix(&dA, g_gpu, KR_F32, 2, 3, m6, KR_DEVICE));
    KT_OK(kr_linop_matrix(&hA, g_cpu, KR_F32, 2, 3, m6, KR_HOST));
    KT_STATUS(kr_linop_matrix(&op, g_gpu, KR_F32, 2, 3, m6, KR_HOST), KR_ERR_LOCATION);
    kr_array *hx = hvec(KR_F32, 3, 1), *hy = hvec(KR_F32, 2, 0), *dx = dvec(KR_F32, 3, 1);
    kr_array *dy = dvec(KR_F32, 2, 0);
    KT_STATUS(kr_linop_forward(dA, hx, dy), KR_ERR_LOCATION);
    KT_STATUS(kr_linop_forward(dA, dx, hy), KR_ERR_LOCATION);
    KT_STATUS(kr_linop_forward(hA, dx, hy), KR_ERR_LOCATION);
    KT_STATUS(kr_linop_chain(&op, hA, dA), KR_ERR_LOCATION);
    KT_STATUS(kr_linop_sum(&op, hA, dA), KR_ERR_LOCATION);
    KT_STATUS(kr_vec_axpy(g_gpu, dx, 1.0, 0.0, hx), KR_ERR_LOCATION);
    KT_STATUS(kr_vec_zero(g_gpu, hx), KR_ERR_LOCATION); /* host array, CUDA ctx */
    KT_STATUS(kr_vec_zero(g_cpu, dx), KR_ERR_LOCATION); /* device array, CPU ctx */
    kr_solve_info info;
    KT_STATUS(kr_cgls(g_cpu, dA, dy, dx, NULL, &info), KR_ERR_LOCATION);
    KT_STATUS(kr_cgls(g_gpu, dA, hy, dx, NULL, &info), KR_ERR_LOCATION);
    KT_OK(kr_cgls(g_gpu, dA, dy, dx, NULL, &info));
    kr_array_destroy(hx), kr_array_destroy(hy), kr_array_destroy(dx), kr_array_destroy(dy);
    kr_linop_destroy(dA), kr_linop_destroy(hA);
}

int main(void)
{
    kt_require_gpu();
    if (kr_ctx_create(&g_cpu, KR_BACKEND_CPU) != KR_OK) return 1;
    if (kr_ctx_create(&g_gpu, KR_BACKEND_CUDA) != KR_OK) return 1;
    kr_ctx_set_quiet(g_cpu, 1);
    kr_ctx_set_quiet(g_gpu, 1);
    KT_RUN(test_vec_parity);
    KT_RUN(test_operators_parity);
    KT_RUN(test_solvers_parity);
    KT_RUN(test_gpu_locations);
    kr_ctx_destroy(g_cpu);
    kr_ctx_destroy(g_gpu);
    return kt_finish();
}
