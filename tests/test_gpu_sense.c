/* SENSE on the GPU: parity with the CPU (images, g-factor, every R template incl. the generic
 * ones, pre-whitening, lambda), the device SENSE operator, coil k-space and undersampling on the
 * device, the unsupported general path, and the reconstruction at the benchmark's size (256^2,
 * 32 coils, R = 4: lattice and general path; its speed is `kray bench sense`). */
#include "internal.h"
#include "test_sense_util.h"

#include <stdio.h>

static kr_ctx *g_cpu, *g_gpu;

static double rel_diff_f32(const kr_array *a, const kr_array *b)
{
    const float *x = a->data, *y = b->data;
    double num = 0, den = 0;
    for (int64_t i = 0; i < kr_array_numel(a); i++) {
        if (!isfinite(x[i]) || !isfinite(y[i])) {
            if (!(isinf(x[i]) && isinf(y[i]))) return INFINITY;
            continue;
        }
        num += ((double)x[i] - y[i]) * ((double)x[i] - y[i]);
        den += (double)y[i] * y[i];
    }
    return sqrt(num / (den > 0 ? den : 1));
}

static void parity_case(int64_t nx, int64_t ny, int64_t nc, int R, int offset, double lambda,
                        int with_psi)
{
    kr_array *maps = kts_maps(nx, ny, nc), *obj = kts_object(nx, ny);
    kr_array *psi = with_psi ? kts_psi(nc, 3) : NULL;
    kr_array *k = kts_kspace(g_cpu, obj, maps);
    KT_OK(kr_noise_add(g_cpu, k, 2, psi, 0.001, 4));
    int64_t d2[2] = {nx, ny};
    kr_array *img = NULL, *g = NULL, *dmaps = NULL, *dk = NULL, *dimg = NULL, *dg = NULL,
             *himg = NULL, *hg = NULL;
    KT_OK(kr_array_create(&img, KR_C64, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&g, KR_F32, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&himg, KR_C64, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&hg, KR_F32, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_clone(&dmaps, maps, KR_DEVICE, g_gpu));
    KT_OK(kr_array_clone(&dk, k, KR_DEVICE, g_gpu));
    KT_OK(kr_array_create(&dimg, KR_C64, 2, d2, KR_DEVICE, g_gpu));
    KT_OK(kr_array_create(&dg, KR_F32, 2, d2, KR_DEVICE, g_gpu));
    kr_sense_opts o;
    kr_sense_opts_default(&o);
    o.accel = R;
    o.offset = offset;
    o.lambda = lambda;
    o.psi = psi;
    kr_sense_plan *pc = NULL, *pg = NULL, *pg2 = NULL;
    KT_OK(kr_sense_plan_create(&pc, g_cpu, maps, &o));
    KT_OK(kr_sense_plan_create(&pg, g_gpu, dmaps, &o));
    KT_OK(kr_sense_plan_create(&pg2, g_gpu, maps, &o)); /* host maps are uploaded by the plan */
    KT_OK(kr_sense_execute(pc, k, img, g));
    KT_OK(kr_sense_execute(pg, dk, dimg, dg));
    KT_OK(kr_array_copy(himg, dimg, g_gpu));
    KT_OK(kr_array_copy(hg, dg, g_gpu));
    double ei = kts_nrmse(himg, img, NULL), eg = rel_diff_f32(hg, g);
    KT_OK(kr_sense_execute(pg2, dk, dimg, NULL));
    KT_OK(kr_array_copy(himg, dimg, g_gpu));
    double ei2 = kts_nrmse(himg, img, NULL);
    KT_OK(kr_sense_gfactor(pg, dg));
    KT_OK(kr_array_copy(hg, dg, g_gpu));
    double eg2 = rel_diff_f32(hg, g);
    /* Unfolding the same aliased images (host FFT, uploaded): only the double-precision solve
     * differs, so the images agree to float rounding. */
    kr_array *al = NULL, *dal = NULL;
    KT_OK(kr_array_clone(&al, k, KR_HOST, NULL));
    uint8_t *ln = malloc((size_t)ny);
    KT_OK(kr_cartesian_lines(ln, ny, R, offset, 0));
    KT_OK(kr_cartesian_undersample(g_cpu, al, ln));
    free(ln);
    KT_OK(kr_coil_images(g_cpu, al, al));
    KT_OK(kr_array_clone(&dal, al, KR_DEVICE, g_gpu));
    KT_OK(kr_sense_unfold(pc, al, img, NULL));
    KT_OK(kr_sense_unfold(pg, dal, dimg, NULL));
    KT_OK(kr_array_copy(himg, dimg, g_gpu));
    double eu = kts_nrmse(himg, img, NULL);
    double gmax = 0;
    for (int64_t q = 0; q < nx * ny; q++) gmax = fmax(gmax, ((const float *)g->data)[q]);
    printf("  %lldx%lld, %lld coils, R=%d, offset %d, lambda %g%s: execute %.2g, unfold %.2g, "
           "g %.2g, g-only %.2g (g max %.1f)\n",
           (long long)nx, (long long)ny, (long long)nc, R, offset, lambda, with_psi ? ", psi" : "",
           ei, eu, eg, eg2, gmax);
    /* execute: cuFFT and FFTW differ by float rounding, amplified by up to g; unfold: with psi
     * the whitened data (stored in f32) may differ by one rounding, amplified likewise */
    KT_LE(ei, 1e-6 * (1 + gmax));
    KT_LE(ei2, 1e-6 * (1 + gmax));
    KT_LE(eu, 1e-6 + 1e-7 * gmax);
    KT_LE(eg, 1e-6);
    KT_LE(eg2, 1e-6);
    kr_array_destroy(al);
    kr_array_destroy(dal);
    kr_sense_info info;
    KT_OK(kr_sense_plan_info(pg, &info));
    KT_CHECK(info.method == KR_SENSE_LATTICE && info.singular == 0);
    kr_sense_plan_destroy(pc);
    kr_sense_plan_destroy(pg);
    kr_sense_plan_destroy(pg2);
    kr_array_destroy(maps);
    kr_array_destroy(obj);
    kr_array_destroy(psi);
    kr_array_destroy(k);
    kr_array_destroy(img);
    kr_array_destroy(g);
    kr_array_destroy(himg);
    kr_array_destroy(hg);
    kr_array_destroy(dmaps);
    kr_array_destroy(dk);
    kr_array_destroy(dimg);
    kr_array_destroy(dg);
}

static void test_parity(void)
{
    parity_case(64, 64, 8, 1, 0, 0.0, 0);
    parity_case(64, 64, 8, 2, 1, 0.0, 1);
    parity_case(48, 96, 8, 3, 2, 0.0, 0);
    parity_case(64, 64, 16, 4, 0, 0.01, 1);
    parity_case(40, 60, 8, 5, 3, 0.0, 0);
    parity_case(32, 48, 8, 6, 0, 0.0, 0);
    parity_case(32, 56, 8, 7, 6, 0.001, 0);
    parity_case(64, 64, 32, 8, 0, 0.0, 1);
    parity_case(32, 96, 16, 12, 5, 0.001, 0); /* generic template (capacity 16) */
    parity_case(32, 64, 16, 16, 0, 0.001, 0);
    parity_case(16, 96, 32, 24, 1, 0.01, 0); /* generic template (capacity 32) */
}

/* Zero-sensitivity rows and singular systems behave as on the CPU. */
static void test_masked_singular(void)
{
    const int64_t nx = 16, ny = 16, nc = 4;
    kr_array *maps = kts_maps(nx, ny, nc), *obj = kts_object(nx, ny);
    float *s = maps->data;
    for (int64_t c = 0; c < nc; c++)
        for (int64_t x = 0; x < nx; x++)
            s[2 * (x + nx * (3 + ny * c))] = s[2 * (x + nx * (3 + ny * c)) + 1] = 0;
    for (int64_t q = 0; q < nx * ny; q += 2) { /* coil 1 = coil 0 on even x: still rank 3 */
        s[2 * (q + nx * ny)] = s[2 * q];
        s[2 * (q + nx * ny) + 1] = s[2 * q + 1];
    }
    kr_array *k = kts_kspace(g_cpu, obj, maps);
    int64_t d2[2] = {nx, ny};
    kr_array *img = NULL, *g = NULL, *dk = NULL, *dimg = NULL, *dg = NULL, *himg = NULL, *hg = NULL;
    KT_OK(kr_array_create(&img, KR_C64, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&g, KR_F32, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&himg, KR_C64, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&hg, KR_F32, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_clone(&dk, k, KR_DEVICE, g_gpu));
    KT_OK(kr_array_create(&dimg, KR_C64, 2, d2, KR_DEVICE, g_gpu));
    KT_OK(kr_array_create(&dg, KR_F32, 2, d2, KR_DEVICE, g_gpu));
    kr_sense_opts o;
    kr_sense_opts_default(&o);
    o.accel = 2;
    kr_sense_plan *pc = NULL, *pg = NULL;
    KT_OK(kr_sense_plan_create(&pc, g_cpu, maps, &o));
    KT_OK(kr_sense_plan_create(&pg, g_gpu, maps, &o));
    KT_OK(kr_sense_execute(pc, k, img, g));
    KT_OK(kr_sense_execute(pg, dk, dimg, dg));
    KT_OK(kr_array_copy(himg, dimg, g_gpu));
    KT_OK(kr_array_copy(hg, dg, g_gpu));
    KT_LE(kts_nrmse(himg, img, NULL), 2e-5);
    KT_LE(rel_diff_f32(hg, g), 1e-5);
    const float *gv = hg->data;
    KT_CHECK(gv[5 + nx * 3] == 0.0f);
    kr_sense_plan_destroy(pc);
    kr_sense_plan_destroy(pg);
    /* all coils identical: singular at lambda 0, g = inf, counted */
    for (int64_t c = 1; c < nc; c++)
        memcpy(s + 2 * nx * ny * c, s, sizeof(float) * 2 * (size_t)(nx * ny));
    KT_OK(kr_sense_plan_create(&pg, g_gpu, maps, &o));
    KT_OK(kr_ctx_set_log_level(g_gpu, KR_LOG_QUIET));
    KT_OK(kr_sense_execute(pg, dk, dimg, dg));
    KT_OK(kr_ctx_set_log_level(g_gpu, KR_LOG_WARN));
    kr_sense_info info;
    KT_OK(kr_sense_plan_info(pg, &info));
    KT_CHECK(info.singular > 0);
    KT_OK(kr_array_copy(hg, dg, g_gpu));
    KT_CHECK(isinf(((const float *)hg->data)[0]));
    kr_sense_plan_destroy(pg);
    kr_array_destroy(maps);
    kr_array_destroy(obj);
    kr_array_destroy(k);
    kr_array_destroy(img);
    kr_array_destroy(g);
    kr_array_destroy(himg);
    kr_array_destroy(hg);
    kr_array_destroy(dk);
    kr_array_destroy(dimg);
    kr_array_destroy(dg);
}

/* Device SENSE operator, coil k-space, undersampling, CG-SENSE on the device. */
static void test_operator(void)
{
    const int64_t nx = 40, ny = 36, nc = 6;
    kr_array *maps = kts_maps(nx, ny, nc), *obj = kts_object(nx, ny);
    uint8_t lines[36];
    KT_OK(kr_cartesian_lines(lines, ny, 3, 1, 6));
    kr_linop *Eh = NULL, *Ed = NULL;
    KT_OK(kr_sense_linop_create(&Eh, g_cpu, maps, lines, KR_HOST));
    KT_OK(kr_sense_linop_create(&Ed, g_gpu, maps, lines, KR_DEVICE));
    double rel = 0;
    KT_OK(kr_linop_adjoint_test(Ed, 5, &rel));
    KT_LE(rel, 1e-5);
    int64_t d2[2] = {nx, ny}, d3[3] = {nx, ny, nc};
    kr_array *y = NULL, *dy = NULL, *dobj = NULL, *hy = NULL, *x = NULL, *dx = NULL, *hx = NULL;
    KT_OK(kr_array_create(&y, KR_C64, 3, d3, KR_HOST, NULL));
    KT_OK(kr_array_create(&hy, KR_C64, 3, d3, KR_HOST, NULL));
    KT_OK(kr_array_create(&dy, KR_C64, 3, d3, KR_DEVICE, g_gpu));
    KT_OK(kr_array_clone(&dobj, obj, KR_DEVICE, g_gpu));
    KT_OK(kr_linop_forward(Eh, obj, y));
    KT_OK(kr_linop_forward(Ed, dobj, dy));
    KT_OK(kr_array_copy(hy, dy, g_gpu));
    KT_LE(kts_nrmse(hy, y, NULL), 2e-6);
    KT_OK(kr_array_create(&x, KR_C64, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&hx, KR_C64, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&dx, KR_C64, 2, d2, KR_DEVICE, g_gpu));
    KT_OK(kr_linop_adjoint(Eh, y, x));
    KT_OK(kr_linop_adjoint(Ed, dy, dx));
    KT_OK(kr_array_copy(hx, dx, g_gpu));
    KT_LE(kts_nrmse(hx, x, NULL), 2e-6);
    /* coil k-space and undersampling on the device vs host */
    kr_array *dmaps = NULL, *dk = NULL, *k = NULL, *hk = NULL;
    KT_OK(kr_array_clone(&dmaps, maps, KR_DEVICE, g_gpu));
    KT_OK(kr_array_create(&dk, KR_C64, 3, d3, KR_DEVICE, g_gpu));
    KT_OK(kr_array_create(&hk, KR_C64, 3, d3, KR_HOST, NULL));
    k = kts_kspace(g_cpu, obj, maps);
    KT_OK(kr_coil_kspace(g_gpu, dobj, dmaps, dk));
    KT_OK(kr_cartesian_undersample(g_gpu, dk, lines));
    KT_OK(kr_cartesian_undersample(g_cpu, k, lines));
    KT_OK(kr_array_copy(hk, dk, g_gpu));
    KT_LE(kts_nrmse(hk, k, NULL), 2e-6);
    KT_LE(kts_nrmse(hk, y, NULL), 2e-6); /* = E x */
    /* CG-SENSE on the device equals the direct CPU solve (general path: ACS lines) */
    kr_linop *N = NULL;
    kr_array *b = NULL;
    KT_OK(kr_linop_normal_op(&N, Ed));
    KT_OK(kr_array_create(&b, KR_C64, 2, d2, KR_DEVICE, g_gpu));
    KT_OK(kr_linop_adjoint(Ed, dk, b));
    kr_solve_opts so;
    kr_solve_opts_default(&so);
    so.max_iter = 200;
    so.tol = 1e-6;
    so.lambda = 0.01;
    KT_OK(kr_cg(g_gpu, N, b, dx, &so, NULL));
    KT_OK(kr_array_copy(hx, dx, g_gpu));
    kr_sense_opts o;
    kr_sense_opts_default(&o);
    o.lines = lines;
    o.lambda = 0.01;
    kr_sense_plan *pc = NULL, *pg = NULL;
    KT_OK(kr_sense_plan_create(&pc, g_cpu, maps, &o));
    KT_OK(kr_sense_execute(pc, k, x, NULL));
    KT_LE(kts_nrmse(hx, x, NULL), 1e-4);
    /* host operands with a device plan */
    o.accel = 2;
    KT_OK(kr_sense_plan_create(&pg, g_gpu, maps, &o));
    KT_STATUS(kr_sense_execute(pg, k, x, NULL), KR_ERR_LOCATION);
    kr_sense_plan_destroy(pg);
    kr_sense_plan_destroy(pc);
    kr_linop_destroy(N);
    kr_linop_destroy(Eh);
    kr_linop_destroy(Ed);
    kr_array_destroy(maps);
    kr_array_destroy(obj);
    kr_array_destroy(y);
    kr_array_destroy(hy);
    kr_array_destroy(dy);
    kr_array_destroy(dobj);
    kr_array_destroy(x);
    kr_array_destroy(hx);
    kr_array_destroy(dx);
    kr_array_destroy(dmaps);
    kr_array_destroy(dk);
    kr_array_destroy(hk);
    kr_array_destroy(k);
    kr_array_destroy(b);
}

/* General path on the device (R not dividing ny; lattice + ACS lines) against the CPU. */
static void general_case(int64_t nx, int64_t ny, int64_t nc, int R, int64_t nacs, double lambda,
                         int with_psi)
{
    kr_array *maps = kts_maps(nx, ny, nc), *obj = kts_object(nx, ny);
    kr_array *psi = with_psi ? kts_psi(nc, 7) : NULL;
    kr_array *k = kts_kspace(g_cpu, obj, maps);
    KT_OK(kr_noise_add(g_cpu, k, 2, psi, 0.001, 9));
    uint8_t *lines = malloc((size_t)ny);
    KT_OK(kr_cartesian_lines(lines, ny, R, 1 % R, nacs));
    int64_t d2[2] = {nx, ny};
    kr_array *img = NULL, *g = NULL, *himg = NULL, *hg = NULL, *dk = NULL, *dimg = NULL, *dg = NULL;
    KT_OK(kr_array_create(&img, KR_C64, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&g, KR_F32, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&himg, KR_C64, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_create(&hg, KR_F32, 2, d2, KR_HOST, NULL));
    KT_OK(kr_array_clone(&dk, k, KR_DEVICE, g_gpu));
    KT_OK(kr_array_create(&dimg, KR_C64, 2, d2, KR_DEVICE, g_gpu));
    KT_OK(kr_array_create(&dg, KR_F32, 2, d2, KR_DEVICE, g_gpu));
    kr_sense_opts o;
    kr_sense_opts_default(&o);
    o.lines = lines;
    o.lambda = lambda;
    o.psi = psi;
    kr_sense_plan *pc = NULL, *pg = NULL;
    KT_OK(kr_sense_plan_create(&pc, g_cpu, maps, &o));
    KT_OK(kr_sense_plan_create(&pg, g_gpu, maps, &o));
    kr_sense_info info;
    KT_OK(kr_sense_plan_info(pg, &info));
    KT_CHECK(info.method == KR_SENSE_GENERAL);
    KT_OK(kr_sense_execute(pc, k, img, g));
    KT_OK(kr_sense_execute(pg, dk, dimg, dg));
    KT_OK(kr_array_copy(himg, dimg, g_gpu));
    KT_OK(kr_array_copy(hg, dg, g_gpu));
    double gmax = 0;
    for (int64_t q = 0; q < nx * ny; q++) gmax = fmax(gmax, ((const float *)g->data)[q]);
    double ei = kts_nrmse(himg, img, NULL), eg = rel_diff_f32(hg, g);
    uint8_t *sup = kts_support(obj);
    double et = kts_nrmse(himg, obj, sup);
    printf("  general %lldx%lld, %lld coils, R=%d + %lld ACS, lambda %g%s: image %.2g, g %.2g "
           "(g max %.1f), vs object %.3g\n",
           (long long)nx, (long long)ny, (long long)nc, R, (long long)nacs, lambda,
           with_psi ? ", psi" : "", ei, eg, gmax, et);
    KT_LE(ei, 1e-6 * (1 + gmax));
    KT_LE(eg, 1e-6);
    KT_OK(kr_sense_gfactor(pg, dg));
    KT_OK(kr_array_copy(hg, dg, g_gpu));
    KT_LE(rel_diff_f32(hg, g), 1e-6);
    free(sup);
    free(lines);
    kr_sense_plan_destroy(pc);
    kr_sense_plan_destroy(pg);
    kr_array_destroy(maps);
    kr_array_destroy(obj);
    kr_array_destroy(psi);
    kr_array_destroy(k);
    kr_array_destroy(img);
    kr_array_destroy(g);
    kr_array_destroy(himg);
    kr_array_destroy(hg);
    kr_array_destroy(dk);
    kr_array_destroy(dimg);
    kr_array_destroy(dg);
}

static void test_general(void)
{
    general_case(40, 64, 8, 3, 0, 0.0, 0);  /* 64 % 3 != 0 */
    general_case(33, 90, 12, 4, 0, 0.0, 1); /* 90 % 4 != 0, psi */
    general_case(48, 64, 8, 4, 12, 0.0, 0); /* lattice + ACS */
    general_case(32, 61, 8, 3, 9, 0.01, 1); /* odd, ACS, lambda, psi */
}

/* The benchmark's size (256^2, 32 coils, R = 4, data on the device; its speed is `kray bench
 * sense`): the lattice and the general path (+ 24 ACS lines: 256 dense 256 x 256 systems)
 * reconstruct the object. */
static void test_reference_size(void)
{
    const int64_t n = 256, nc = 32;
    kr_array *maps = kts_maps(n, n, nc), *obj = kts_object(n, n);
    uint8_t *sup = kts_support(obj);
    int64_t d2[2] = {n, n};
    kr_array *dimg = NULL, *dg = NULL, *himg = NULL;
    KT_OK(kr_array_create(&dimg, KR_C64, 2, d2, KR_DEVICE, g_gpu));
    KT_OK(kr_array_create(&dg, KR_F32, 2, d2, KR_DEVICE, g_gpu));
    KT_OK(kr_array_create(&himg, KR_C64, 2, d2, KR_HOST, NULL));
    for (int general = 0; general <= 1; general++) {
        uint8_t lines[256];
        KT_OK(kr_cartesian_lines(lines, n, 4, 0, general ? 24 : 0));
        kr_array *k = kts_kspace(g_cpu, obj, maps), *dk = NULL;
        KT_OK(kr_cartesian_undersample(g_cpu, k, lines));
        KT_OK(kr_array_clone(&dk, k, KR_DEVICE, g_gpu));
        kr_sense_opts o;
        kr_sense_opts_default(&o);
        o.accel = 4;
        if (general) o.lines = lines;
        kr_sense_plan *p = NULL;
        KT_OK(kr_sense_plan_create(&p, g_gpu, maps, &o));
        KT_OK(kr_sense_execute(p, dk, dimg, dg));
        KT_OK(kr_array_copy(himg, dimg, g_gpu));
        double e = kts_nrmse(himg, obj, sup);
        printf("  256^2, 32 coils, R=4%s: NRMSE %.2g\n", general ? " + 24 ACS (general path)" : "",
               e);
        KT_LE(e, general ? 1e-4 : 1e-5);
        kr_sense_plan_destroy(p);
        kr_array_destroy(k);
        kr_array_destroy(dk);
    }
    free(sup);
    kr_array_destroy(maps);
    kr_array_destroy(obj);
    kr_array_destroy(dimg);
    kr_array_destroy(dg);
    kr_array_destroy(himg);
}

int main(void)
{
    kt_require_gpu();
    if (kr_ctx_create(&g_cpu, KR_BACKEND_CPU) != KR_OK) return 1;
    if (kr_ctx_create(&g_gpu, KR_BACKEND_CUDA) != KR_OK) return 1;
    KT_RUN(test_parity);
    KT_RUN(test_masked_singular);
    KT_RUN(test_operator);
    KT_RUN(test_general);
    KT_RUN(test_reference_size);
    kr_ctx_destroy(g_gpu);
    kr_ctx_destroy(g_cpu);
    return kt_finish();
}
