/* NUFFT on CUDA: accuracy against the direct non-uniform DFT per eps (2-D, 3-D, c64, c128),
 * parity with the CPU backend, batches (including a remainder pass), forward determinism,
 * adjointness, trajectories in device memory, points set again on one plan, and bad input
 * (host arrays, NaN samples, invalid points). Every variant of set_points (counting sort, radix
 * sort: KRAY_NUFFT_GPU_SORT) and of 3-D spreading (warp-owned planes, shared atomics:
 * KRAY_NUFFT_GPU_SPREAD) is checked. Exits 77 without a usable CUDA device. */
#include "mri/nufft/nufft_internal.h"
#include "nufft_test_util.h"

#include <stdio.h>

static kr_ctx *g_cpu, *g_gpu;

/* The GPU variants, picked at plan creation from the environment. */
static const char *const g_sorts[2] = {"count", "radix"}, *const g_spreads[2] = {"warp", "atomic"};

static void set_variant(int sort, int spread)
{
    setenv("KRAY_NUFFT_GPU_SORT", g_sorts[sort], 1);
    setenv("KRAY_NUFFT_GPU_SPREAD", g_spreads[spread], 1);
}

static void clear_variant(void)
{
    unsetenv("KRAY_NUFFT_GPU_SORT");
    unsetenv("KRAY_NUFFT_GPU_SPREAD");
}

static kr_array *to_dev(const kr_array *h)
{
    kr_array *d = NULL;
    KT_OK(kr_array_clone(&d, h, KR_DEVICE, g_gpu));
    return d;
}

static kr_array *to_host(const kr_array *d)
{
    kr_array *h = NULL;
    KT_OK(kr_array_clone(&h, d, KR_HOST, g_gpu));
    return h;
}

static double relerr_arrays(const kr_array *a, const kr_array *b)
{
    double e = 0, r = 0;
    int64_t n = kr_array_numel(a);
    for (int64_t i = 0; i < n; i++)
        for (int c = 0; c < 2; c++) {
            double d = nt_get(a, i, c) - nt_get(b, i, c);
            e += d * d;
            r += nt_get(b, i, c) * nt_get(b, i, c);
        }
    return sqrt(e / r);
}

typedef struct run_out {
    kr_array *fo, *yo; /* host copies of adjoint image and forward samples */
} run_out;

/* Plan on ctx c, transform y (adjoint) and f (forward); arrays given on the host. */
static run_out run(kr_ctx *c, int nd, const int64_t *N, const kr_nufft_opts *o,
                   const kr_array *t, const kr_array *y, const kr_array *f)
{
    run_out r = {NULL, NULL};
    int dev = kr_ctx_backend(c) == KR_BACKEND_CUDA;
    kr_nufft_plan *p = NULL;
    KT_OK(kr_nufft_plan_create(&p, c, nd, N, o));
    if (!p) return r;
    KT_OK(kr_nufft_set_points(p, t));
    kr_array *yd = dev ? to_dev(y) : (kr_array *)y, *fd = dev ? to_dev(f) : (kr_array *)f;
    kr_array *fo = NULL, *yo = NULL;
    KT_OK(kr_array_create(&fo, f->dtype, f->ndim, f->dims, dev ? KR_DEVICE : KR_HOST, c));
    KT_OK(kr_array_create(&yo, y->dtype, y->ndim, y->dims, dev ? KR_DEVICE : KR_HOST, c));
    KT_OK(kr_nufft_adjoint(p, yd, fo));
    KT_OK(kr_nufft_forward(p, fd, yo));
    if (dev) {
        r.fo = to_host(fo);
        r.yo = to_host(yo);
        kr_array_destroy(fo);
        kr_array_destroy(yo);
        kr_array_destroy(yd);
        kr_array_destroy(fd);
    } else {
        r.fo = fo;
        r.yo = yo;
    }
    kr_nufft_plan_destroy(p);
    return r;
}

static void free_run(run_out *r)
{
    kr_array_destroy(r->fo);
    kr_array_destroy(r->yo);
}

static void check_case(int nd, const int64_t *N, kr_dtype dt, double eps, int64_t M)
{
    kr_nufft_opts o;
    kr_nufft_opts_default(&o);
    o.dtype = dt;
    o.eps = eps;
    kr_array *t = nt_traj(nd, N, M, 71);
    int64_t yd[1] = {M};
    kr_array *y = nt_rand(dt, 1, yd, 72), *f = nt_rand(dt, nd, N, 73);
    run_out g = run(g_gpu, nd, N, &o, t, y, f), c = run(g_cpu, nd, N, &o, t, y, f);
    if (!g.fo || !c.fo) return;
    int64_t nimg = N[0] * N[1] * (nd == 3 ? N[2] : 1);
    double *ref = malloc(sizeof(double) * 2 * (size_t)(nimg > M ? nimg : M));
    nt_direct_adjoint(nd, N, t, y, 0, ref);
    double ea = nt_relerr(g.fo, 0, ref, nimg);
    nt_direct_forward(nd, N, t, f, 0, ref);
    double ef = nt_relerr(g.yo, 0, ref, M);
    double pa = relerr_arrays(g.fo, c.fo), pf = relerr_arrays(g.yo, c.yo);
    printf("  gpu %dD %s eps %.0e: adjoint %.2e forward %.2e | vs cpu %.1e %.1e\n", nd,
           kr_dtype_name(dt), eps, ea, ef, pa, pf);
    KT_LE(ea, eps);
    KT_LE(ef, eps);
    double par = dt == KR_C64 ? 2e-6 : 1e-12;
    KT_LE(pa, par);
    KT_LE(pf, par);
    free(ref);
    free_run(&g);
    free_run(&c);
    kr_array_destroy(t);
    kr_array_destroy(y);
    kr_array_destroy(f);
}

static void test_accuracy_and_parity(void)
{
    const double eps[4] = {1e-2, 1e-3, 1e-4, 1e-6};
    int64_t a[3] = {40, 33, 1}, b[3] = {14, 12, 11};
    for (int e = 0; e < 4; e++) {
        check_case(2, a, KR_C64, eps[e], 4000);
        check_case(3, b, KR_C64, eps[e], 2000);
        check_case(2, a, KR_C128, eps[e], 4000);
        check_case(3, b, KR_C128, eps[e], 2000);
    }
    check_case(2, a, KR_C128, 1e-12, 3000);
    check_case(3, b, KR_C128, 1e-12, 1000); /* wide kernel: opt-in shared memory or small bins */
    /* every set_points and spreading variant against the direct sums and the CPU */
    int64_t c[3] = {20, 18, 16};
    for (int so = 0; so < 2; so++)
        for (int sp = 0; sp < 2; sp++) {
            set_variant(so, sp);
            printf("  variant sort=%s spread=%s\n", g_sorts[so], g_spreads[sp]);
            check_case(3, c, KR_C64, 1e-3, 6000);
            check_case(3, c, KR_C64, 1e-6, 6000);
            check_case(3, c, KR_C128, 1e-6, 4000);
            check_case(3, b, KR_C128, 1e-10, 1000);
            if (sp == 0) check_case(2, a, KR_C64, 1e-4, 4000);
            clear_variant();
        }
}

/* Batch of 5 in passes of 2 (remainder 1) against the CPU; the forward transform is
 * deterministic on the GPU, the adjoint agrees run to run to rounding. Dense points in a few
 * bins exercise subproblem splitting. */
static void test_batch_and_determinism(void)
{
    for (int v = 0; v < 5; v++)
    for (int nd = 2; nd <= 3; nd++) {
        if (v < 4) set_variant(v / 2, v % 2); /* v == 4: the defaults */
        if (v < 4 && nd == 2 && v % 2) continue; /* 2-D has one spreading kernel */
        int64_t N[3] = {48, 40, 24};
        const int B = 5;
        int64_t M = 20000, kd[2] = {M, B}, id[4] = {N[0], N[1], N[2], B};
        id[nd] = B;
        kr_array *t = nt_traj(nd, N, M, 81);
        float *k = t->data;
        for (int64_t m = 8; m < M / 2; m++) /* half the points in a small central region */
            for (int d = 0; d < nd; d++) k[3 * m + d] *= 0.05f;
        kr_array *y = nt_rand(KR_C64, 2, kd, 82), *f = nt_rand(KR_C64, nd + 1, id, 83);
        kr_nufft_opts o;
        kr_nufft_opts_default(&o);
        o.batch = B;
        o.eps = 1e-5;
        o.gpu_max_batch = 2;
        o.gpu_max_subprob = 300;
        run_out g1 = run(g_gpu, nd, N, &o, t, y, f), g2 = run(g_gpu, nd, N, &o, t, y, f);
        run_out c = run(g_cpu, nd, N, &o, t, y, f);
        if (!g1.fo || !g2.fo || !c.fo) return;
        KT_CHECK(memcmp(g1.yo->data, g2.yo->data, kr_array_bytes(g1.yo)) == 0);
        KT_LE(relerr_arrays(g1.fo, g2.fo), 1e-6);
        KT_LE(relerr_arrays(g1.fo, c.fo), 2e-6);
        KT_LE(relerr_arrays(g1.yo, c.yo), 2e-6);
        /* one pass of all 5 members gives the same within rounding */
        o.gpu_max_batch = 0;
        run_out g3 = run(g_gpu, nd, N, &o, t, y, f);
        KT_LE(relerr_arrays(g3.fo, g1.fo), 1e-6);
        KT_LE(relerr_arrays(g3.yo, g1.yo), 1e-6);
        clear_variant();
        free_run(&g1);
        free_run(&g2);
        free_run(&g3);
        free_run(&c);
        kr_array_destroy(t);
        kr_array_destroy(y);
        kr_array_destroy(f);
    }
}

static void test_adjoint_linop_and_device_traj(void)
{
    int64_t N[2] = {64, 48};
    kr_nufft_opts o;
    kr_nufft_opts_default(&o);
    o.eps = 1e-4;
    o.batch = 2;
    kr_nufft_plan *p = NULL;
    KT_OK(kr_nufft_plan_create(&p, g_gpu, 2, N, &o));
    kr_array *t = nt_traj(2, N, 5000, 91), *td = to_dev(t);
    KT_OK(kr_nufft_set_points(p, td));
    kr_linop *op = NULL;
    KT_OK(kr_nufft_linop_create(&op, p));
    double rel = 1;
    KT_OK(kr_linop_adjoint_test(op, 5, &rel));
    KT_LE(rel, 2e-6);
    kr_linop_destroy(op);

    /* bad input on the device */
    int64_t kd[2] = {5000, 2}, id[3] = {64, 48, 2};
    kr_array *yh = nt_rand(KR_C64, 2, kd, 92), *fh = NULL;
    KT_OK(kr_array_create(&fh, KR_C64, 3, id, KR_HOST, NULL));
    kr_array *yd = to_dev(yh), *fd = NULL;
    KT_OK(kr_array_create(&fd, KR_C64, 3, id, KR_DEVICE, g_gpu));
    KT_STATUS(kr_nufft_adjoint(p, yh, fd), KR_ERR_LOCATION);
    KT_STATUS(kr_nufft_adjoint(p, yd, fh), KR_ERR_LOCATION);
    ((float *)yh->data)[2 * (5000 + 123)] = NAN; /* member 1, sample 123 */
    kr_array *ybad = to_dev(yh);
    KT_STATUS(kr_nufft_adjoint(p, ybad, fd), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "k-space sample 123 of batch member 1 is NaN") != NULL);
    KT_OK(kr_nufft_adjoint(p, yd, fd));
    kr_array *fbad = nt_rand(KR_C64, 3, id, 93);
    ((float *)fbad->data)[2 * (64 * 48 + 7 * 64 + 5) + 1] = INFINITY;
    kr_array *fbd = to_dev(fbad);
    KT_STATUS(kr_nufft_forward(p, fbd, yd), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "image value at (5, 7) of batch member 1") != NULL);
    kr_array_destroy(fbad);
    kr_array_destroy(fbd);
    kr_array_destroy(ybad);
    kr_array_destroy(yh);
    kr_array_destroy(fh);
    kr_array_destroy(yd);
    kr_array_destroy(fd);
    kr_array_destroy(t);
    kr_array_destroy(td);
    kr_nufft_plan_destroy(p);
}

/* One plan, points set again: more points (the arrays grow), fewer (reused), an invalid set
 * (refused; the plan then has no points), and a valid set again, each matching a fresh plan. */
static void test_points_again(void)
{
    for (int v = 0; v < 2; v++) {
        setenv("KRAY_NUFFT_GPU_SORT", g_sorts[v], 1);
        int64_t N[3] = {24, 20, 16};
        kr_nufft_opts o;
        kr_nufft_opts_default(&o);
        o.eps = 1e-5;
        kr_nufft_plan *p = NULL;
        KT_OK(kr_nufft_plan_create(&p, g_gpu, 3, N, &o));
        const int64_t Ms[4] = {3000, 9000, 2000, 5000};
        kr_array *f = nt_rand(KR_C64, 3, N, 101), *fd = to_dev(f);
        for (int r = 0; r < 4; r++) {
            kr_array *t = nt_traj(3, N, Ms[r], 102 + (uint64_t)r), *yd = NULL;
            if (r == 3) { /* an invalid point first: refused, nothing usable left */
                float *k = t->data;
                float keep = k[3 * 777 + 1];
                k[3 * 777 + 1] = 100.0f;
                KT_STATUS(kr_nufft_set_points(p, t), KR_ERR_GEOMETRY);
                KT_CHECK(strstr(kr_last_error(), "point 777 has ky = 100") != NULL);
                int64_t kd0[1] = {Ms[2]};
                KT_OK(kr_array_create(&yd, KR_C64, 1, kd0, KR_DEVICE, g_gpu));
                KT_STATUS(kr_nufft_forward(p, fd, yd), KR_ERR_INVALID_ARG);
                kr_array_destroy(yd);
                k[3 * 777 + 1] = keep;
            }
            KT_OK(kr_nufft_set_points(p, t));
            int64_t kd[1] = {Ms[r]};
            KT_OK(kr_array_create(&yd, KR_C64, 1, kd, KR_DEVICE, g_gpu));
            KT_OK(kr_nufft_forward(p, fd, yd));
            kr_array *yh = to_host(yd);
            double *ref = malloc(sizeof(double) * 2 * (size_t)Ms[r]);
            nt_direct_forward(3, N, t, f, 0, ref);
            double e = nt_relerr(yh, 0, ref, Ms[r]);
            printf("  sort=%s points again %lld: forward %.2e\n", g_sorts[v], (long long)Ms[r], e);
            KT_LE(e, 1e-5);
            free(ref);
            kr_array_destroy(yh);
            kr_array_destroy(yd);
            kr_array_destroy(t);
        }
        kr_array_destroy(f);
        kr_array_destroy(fd);
        kr_nufft_plan_destroy(p);
        unsetenv("KRAY_NUFFT_GPU_SORT");
    }
}

int main(void)
{
    kt_require_gpu();
    if (kr_ctx_create(&g_gpu, KR_BACKEND_CUDA) != KR_OK) kt_skip("no CUDA context");
    KT_OK(kr_ctx_create(&g_cpu, KR_BACKEND_CPU));
    KT_RUN(test_accuracy_and_parity);
    KT_RUN(test_batch_and_determinism);
    KT_RUN(test_adjoint_linop_and_device_traj);
    KT_RUN(test_points_again);
    kr_ctx_destroy(g_cpu);
    kr_ctx_destroy(g_gpu);
    return kt_finish();
}
