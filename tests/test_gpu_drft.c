/* DrFT on CUDA against the float64 CPU reference: adjoint, forward and Q, 2-D and 3-D, row and
 * generic register blocking, fast (__sincosf) and accurate (sincospif) float paths, the double
 * kernels, batches, determinism, device NaN checks and wrong locations. Prints the Parboil
 * mri-q "large" (2048 samples -> 64^3 voxels) and a 512^2 spiral at their benchmark sizes, for
 * accuracy (their timings are `kray drft --bench`). */
#include "mri/drft/drft_bench.h"
#include "mri/mri_internal.h"
#include "kt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static kr_array *rand_traj(int64_t m, const int64_t n[3], uint64_t seed)
{
    kr_array *t = NULL;
    int64_t dims[2] = {3, m};
    KT_OK(kr_array_create(&t, KR_F64, 2, dims, KR_HOST, NULL));
    for (int64_t i = 0; i < m; i++)
        for (int d = 0; d < 3; d++)
            ((double *)t->data)[3 * i + d] =
                n[d] > 1 ? 0.5 * kri_rand_sym(seed, (uint64_t)(3 * i + d)) * (double)n[d] : 0.0;
    return t;
}


/* max |a - ref| and NRMSE */
static void compare(const kr_array *a, const kr_array *ref, double *emax, double *nrmse)
{
    int64_t n = kr_array_numel(ref);
    double e = 0, e2 = 0, r2 = 0;
    for (int64_t i = 0; i < n; i++) {
        double dr = kt_cget(a, i, 0) - kt_cget(ref, i, 0), di = kt_cget(a, i, 1) - kt_cget(ref, i, 1);
        e = fmax(e, hypot(dr, di));
        e2 += dr * dr + di * di;
        r2 += kt_cget(ref, i, 0) * kt_cget(ref, i, 0) + kt_cget(ref, i, 1) * kt_cget(ref, i, 1);
    }
    *emax = e, *nrmse = sqrt(e2 / r2);
}

static double sum_abs(const kr_array *a)
{
    double s = 0;
    for (int64_t i = 0; i < kr_array_numel(a); i++) s += hypot(kt_cget(a, i, 0), kt_cget(a, i, 1));
    return s;
}

/* One configuration: GPU (dtype, fast, vpt) vs the CPU float64 reference. */
static void gpu_case(const int64_t n[3], int64_t m, int64_t batch, int box, int fast, int vpt,
                     kr_dtype dt)
{
    kr_ctx *cpu = NULL, *gpu = NULL;
    KT_OK(kr_ctx_create(&cpu, KR_BACKEND_CPU));
    KT_OK(kr_ctx_create(&gpu, KR_BACKEND_CUDA));
    kr_array *t = rand_traj(m, n, 17 + (uint64_t)m), *w = NULL;
    int64_t wd[1] = {m};
    KT_OK(kr_array_create(&w, KR_F32, 1, wd, KR_HOST, NULL));
    for (int64_t i = 0; i < m; i++) ((float *)w->data)[i] = 1.0f + 0.5f * (float)kri_rand_sym(4, (uint64_t)i);
    kr_drft_opts o;
    kr_drft_opts_default(&o);
    o.basis = box ? KR_DRFT_BASIS_BOX : KR_DRFT_BASIS_DIRAC;
    o.fast_sincos = fast;
    o.voxels_per_thread = vpt;
    kr_drft_plan *pc = NULL, *pg = NULL;
    KT_OK(kr_drft_plan_create(&pc, cpu, n, t, w, &o));
    KT_OK(kr_drft_plan_create(&pg, gpu, n, t, w, &o));
    int64_t idims[4] = {n[0], n[1], n[2], batch}, kdims[2] = {m, batch}, q2[3];
    for (int d = 0; d < 3; d++) q2[d] = n[d] > 1 ? 2 * n[d] : 1;
    kr_array *x = kt_rand_complex(dt, 4, idims, 1), *y = kt_rand_complex(dt, 2, kdims, 2);
    kr_array *x128 = NULL, *y128 = NULL, *rx = NULL, *ry = NULL, *rq = NULL;
    KT_OK(kr_array_astype(&x128, x, KR_C128));
    KT_OK(kr_array_astype(&y128, y, KR_C128));
    KT_OK(kr_array_create(&rx, KR_C128, 4, idims, KR_HOST, NULL));
    KT_OK(kr_array_create(&ry, KR_C128, 2, kdims, KR_HOST, NULL));
    KT_OK(kr_array_create(&rq, KR_C128, 3, q2, KR_HOST, NULL));
    KT_OK(kr_drft_adjoint(pc, y128, rx));
    KT_OK(kr_drft_forward(pc, x128, ry));
    KT_OK(kr_drft_q(pc, rq));
    kr_array *dx = NULL, *dy = NULL, *ox = NULL, *oy = NULL, *oq = NULL, *hx = NULL, *hy = NULL,
             *hq = NULL, *ox2 = NULL, *hx2 = NULL;
    KT_OK(kr_array_clone(&dx, x, KR_DEVICE, gpu));
    KT_OK(kr_array_clone(&dy, y, KR_DEVICE, gpu));
    KT_OK(kr_array_create(&ox, dt, 4, idims, KR_DEVICE, gpu));
    KT_OK(kr_array_create(&ox2, dt, 4, idims, KR_DEVICE, gpu));
    KT_OK(kr_array_create(&oy, dt, 2, kdims, KR_DEVICE, gpu));
    KT_OK(kr_array_create(&oq, dt, 3, q2, KR_DEVICE, gpu));
    KT_OK(kr_drft_adjoint(pg, dy, ox));
    KT_OK(kr_drft_adjoint(pg, dy, ox2));
    KT_OK(kr_drft_forward(pg, dx, oy));
    KT_OK(kr_drft_q(pg, oq));
    KT_OK(kr_array_clone(&hx, ox, KR_HOST, gpu));
    KT_OK(kr_array_clone(&hx2, ox2, KR_HOST, gpu));
    KT_OK(kr_array_clone(&hy, oy, KR_HOST, gpu));
    KT_OK(kr_array_clone(&hq, oq, KR_HOST, gpu));
    KT_CHECK(hx && hx2 && memcmp(hx->data, hx2->data, kr_array_bytes(hx)) == 0); /* deterministic */
    double ea, na, ef, nf, eq, nq;
    compare(hx, rx, &ea, &na);
    compare(hy, ry, &ef, &nf);
    compare(hq, rq, &eq, &nq);
    /* the per-term error bound (see drft_cuda.cu) times the sum of |coefficients| (|w phi| <= 1.5) */
    double sy = 1.5 * sum_abs(y) / (double)batch, sx = sum_abs(x) / (double)batch, sq = 1.5 * (double)m;
    double bound = dt == KR_C128 ? 1e-13 : (fast ? 2e-6 : 5e-7);
    printf("  %lldx%lldx%lld m=%lld b=%lld %s fast=%d vpt=%d: adjoint max %.2g (%.2g sum|c|) nrmse "
           "%.2g; forward %.2g (%.2g sum|x|) nrmse %.2g; Q %.2g nrmse %.2g\n",
           (long long)n[0], (long long)n[1], (long long)n[2], (long long)m, (long long)batch,
           kr_dtype_name(dt), fast, vpt, ea, ea / sy, na, ef, ef / sx, nf, eq, nq);
    KT_LE(ea / sy, bound);
    KT_LE(ef / sx, bound);
    KT_LE(eq / sq, bound);
    KT_LE(na, dt == KR_C128 ? 1e-13 : 2e-6);
    KT_LE(nf, dt == KR_C128 ? 1e-13 : 2e-6);
    kr_array *arrs[] = {t, w, x, y, x128, y128, rx, ry, rq, dx, dy, ox, oy, oq, hx, hy, hq, ox2, hx2};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) kr_array_destroy(arrs[i]);
    kr_drft_plan_destroy(pc);
    kr_drft_plan_destroy(pg);
    kr_ctx_destroy(cpu);
    kr_ctx_destroy(gpu);
}

static void test_parity(void)
{
    const int64_t a[3] = {64, 48, 1}, b[3] = {16, 12, 10}, odd[3] = {15, 9, 1}, c[3] = {115, 115, 1};
    const int64_t small[3] = {8, 8, 1};
    gpu_case(small, 300, 2, 1, 1, 0, KR_C64); /* one image tile: forward without the split */
    gpu_case(a, 3000, 1, 0, 1, 0, KR_C64);
    gpu_case(a, 3000, 2, 1, 0, 0, KR_C64);
    gpu_case(b, 2000, 1, 1, 1, 0, KR_C64);
    for (int v = 1; v <= 8; v *= 2) {
        gpu_case(b, 700, 3, 0, 1, v, KR_C64);   /* row blocking (16 % v == 0) */
        gpu_case(odd, 700, 1, 0, 1, v, KR_C64); /* generic blocking for v > 1 */
    }
    gpu_case(c, 1500, 1, 1, 1, 0, KR_C64);
    gpu_case(b, 500, 2, 1, 1, 0, KR_C128);
    gpu_case(odd, 300, 1, 0, 1, 0, KR_C128);
}

static void test_dumb_gpu(void)
{
    kr_ctx *gpu = NULL, *cpu = NULL;
    KT_OK(kr_ctx_create(&gpu, KR_BACKEND_CUDA));
    KT_OK(kr_ctx_create(&cpu, KR_BACKEND_CPU));
    const int64_t n[3] = {8, 8, 1};
    kr_array *t = rand_traj(40, n, 3);
    kr_drft_plan *p = NULL;
    KT_OK(kr_drft_plan_create(&p, gpu, n, t, NULL, NULL));
    int64_t kd[1] = {40}, id[2] = {8, 8};
    kr_array *k = kt_rand_complex(KR_C64, 1, kd, 1), *im = NULL, *dk = NULL, *dim = NULL;
    KT_OK(kr_array_create(&im, KR_C64, 2, id, KR_HOST, NULL));
    KT_STATUS(kr_drft_adjoint(p, k, im), KR_ERR_LOCATION); /* host arrays, CUDA context */
    ((float *)k->data)[9] = NAN;
    KT_OK(kr_array_clone(&dk, k, KR_DEVICE, gpu));
    KT_OK(kr_array_create(&dim, KR_C64, 2, id, KR_DEVICE, gpu));
    KT_STATUS(kr_drft_adjoint(p, dk, dim), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "value 4 ") != NULL);
    kr_drft_plan *pc = NULL;
    KT_OK(kr_drft_plan_create(&pc, cpu, n, t, NULL, NULL));
    KT_STATUS(kr_drft_adjoint(pc, dk, dim), KR_ERR_LOCATION); /* device arrays, CPU context */
    kr_array_destroy(k), kr_array_destroy(im), kr_array_destroy(dk), kr_array_destroy(dim);
    kr_array_destroy(t);
    kr_drft_plan_destroy(p);
    kr_drft_plan_destroy(pc);
    kr_ctx_destroy(gpu);
    kr_ctx_destroy(cpu);
}

/* The linop form on device arrays passes the adjoint test. */
static void test_linop_gpu(void)
{
    kr_ctx *gpu = NULL;
    KT_OK(kr_ctx_create(&gpu, KR_BACKEND_CUDA));
    const int64_t n[3] = {24, 20, 1};
    kr_array *t = rand_traj(400, n, 8), *w = NULL;
    int64_t wd[1] = {400};
    KT_OK(kr_array_create(&w, KR_F32, 1, wd, KR_HOST, NULL));
    for (int64_t i = 0; i < 400; i++) ((float *)w->data)[i] = 0.5f + (float)fabs(kri_rand_sym(3, (uint64_t)i));
    for (int prec = 0; prec < 2; prec++) {
        kr_linop *op = NULL;
        KT_OK(kr_drft_linop_create(&op, gpu, n, t, w, NULL, prec ? KR_C128 : KR_C64, 2));
        double rel = 1;
        KT_OK(kr_linop_adjoint_test(op, 5, &rel));
        KT_LE(rel, prec ? 1e-13 : 1e-6);
        KT_CHECK(kr_linop_loc(op) == KR_DEVICE);
        kr_linop_destroy(op);
    }
    kr_array_destroy(t), kr_array_destroy(w);
    kr_ctx_destroy(gpu);
}

/* Accuracy at the benchmark sizes (Parboil mri-q large, a 512^2 spiral) through the benchmark
 * hook, one repetition each; the timings are `kray drft --bench`. */
static void test_reference_sizes(void)
{
    kr_ctx *gpu = NULL;
    KT_OK(kr_ctx_create(&gpu, KR_BACKEND_CUDA));
    char name[256] = "";
    kr_cuda_device_name(kr_ctx_device(gpu), name, sizeof name);
    const int64_t n3[3] = {64, 64, 64};
    kr_array *t = rand_traj(2048, n3, 5);
    kr_drft_plan *p = NULL;
    KT_OK(kr_drft_plan_create(&p, gpu, n3, t, NULL, NULL));
    double sec = 0, err = 0;
    KT_OK(kri_drft_bench(p, 0, KR_C64, 1, 1, 64, &sec, &err));
    printf("  %s: Parboil mri-q large (2048 samples -> 64^3 voxels) adjoint: rel err %.2g\n", name,
           err);
    KT_LE(err, 1e-5);
    kr_drft_plan_destroy(p);
    kr_array_destroy(t);
    kr_spiral_opts so;
    kr_spiral_opts_default(&so);
    so.res_mm = so.fov_mm / 511.0;
    so.interleaves = 16;
    so.vd_factor = 1.0;
    kr_spiral_info info;
    KT_OK(kr_traj_spiral(&t, &so, &info));
    const int64_t n2[3] = {512, 512, 1};
    KT_OK(kr_drft_plan_create(&p, gpu, n2, t, NULL, NULL));
    KT_OK(kri_drft_bench(p, 0, KR_C64, 1, 1, 32, &sec, &err));
    printf("  %s: 512^2 adjoint from a 16-interleave spiral (%lld samples): rel err %.2g\n", name,
           (long long)(16 * info.samples), err);
    KT_LE(err, 1e-5);
    KT_OK(kri_drft_bench(p, 1, KR_C64, 1, 1, 32, &sec, &err));
    printf("  %s: 512^2 forward to the same spiral: rel err %.2g\n", name, err);
    KT_LE(err, 1e-5);
    kr_drft_plan_destroy(p);
    kr_array_destroy(t);
    kr_ctx_destroy(gpu);
}

int main(void)
{
    kt_require_gpu();
    KT_RUN(test_parity);
    KT_RUN(test_dumb_gpu);
    KT_RUN(test_linop_gpu);
    KT_RUN(test_reference_sizes);
    return kt_finish();
}
