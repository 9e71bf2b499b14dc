/* ESPIRiT on the GPU (the per-voxel stage of espirit_cuda.cu: one thread per voxel, power
 * iteration from the phase reference) against the CPU (warm-started along lines): the 3-D
 * analytic phantom of espirit_test_util.h (kernel 5, calibration 16) and a 2-D one (BART's
 * defaults), and the ESPIRiT maps of non-Cartesian data (kr_cgsense_estimate_maps, whose
 * calibration fit also runs on the device). Both iterate to a residual of 1e-9, so the maps
 * agree to float rounding where both keep a voxel: crop masks within 0.2 % of the voxels,
 * eigenvalues (where both keep the voxel) within 1e-5, maps (phase-rotated alike) within 1e-4 (from non-Cartesian data,
 * whose device gridding sums with atomics: 0.5 % and 1e-3). */
#include "cgsense_test_util.h"
#include "espirit_test_util.h"

#include <stdio.h>

static kr_ctx *g_cpu, *g_gpu;

/* max |ea - eb|, and the maps' relative difference where both are non-zero */
static void compare(const char *what, const kr_array *ma, const kr_array *ea, const kr_array *mb,
                    const kr_array *eb, int64_t nv, int64_t nc, double tol_crop, double tol_map)
{
    ket_cmp r = ket_compare(ma, mb, nv, nc);
    const float *a = ma->data, *b = mb->data;
    double num = 0, den = 0, emax = 0;
    for (int64_t q = 0; q < nv; q++) {
        int za = 1, zb = 1;
        for (int64_t c = 0; c < nc; c++) {
            const int64_t i = 2 * (q + nv * c);
            za &= a[i] == 0 && a[i + 1] == 0;
            zb &= b[i] == 0 && b[i + 1] == 0;
        }
        if (za || zb) continue;
        /* eigenvalues where both keep the voxel: below the crop the power iteration stops
         * early (espirit_kern.h), from different starts on the two backends */
        if (ea && eb)
            emax = fmax(emax, fabs(((const float *)ea->data)[q] - ((const float *)eb->data)[q]));
        for (int64_t c = 0; c < nc; c++) {
            const int64_t i = 2 * (q + nv * c);
            num += pow(a[i] - b[i], 2) + pow(a[i + 1] - b[i + 1], 2);
            den += (double)b[i] * b[i] + (double)b[i + 1] * b[i + 1];
        }
    }
    const double rel = den > 0 ? sqrt(num / den) : 0;
    printf("  %s: GPU vs CPU crop differs on %.3f %% of voxels, eigenvalues max |diff| %.1e, "
           "maps %.1e, projections %.1e\n", what, 100 * r.crop_mismatch, emax, rel, r.proj);
    KT_LE(r.crop_mismatch, tol_crop);
    KT_LE(emax, 1e-5);
    KT_LE(rel, tol_map);
    KT_LE(r.proj, tol_map);
}

static void test_espirit_gpu(void)
{
    /* 3-D */
    kr_array *S = ket_maps3(kN, kNC);
    kr_array *k = ket_kspace3(g_cpu, S, NULL);
    kr_espirit_opts o;
    kr_espirit_opts_default(&o);
    o.kernel = 5;
    o.calib = 16;
    kr_array *mc = NULL, *ec = NULL, *mg = NULL, *eg = NULL;
    KT_OK(kr_espirit(g_cpu, k, &o, &mc, &ec));
    double t0 = kr_time_now();
    KT_OK(kr_espirit(g_gpu, k, &o, &mg, &eg));
    double t1 = kr_time_now();
    KT_CHECK(mg && mg->loc == KR_HOST && mg->ndim == 4);
    printf("  3-D %lldx%lldx%lld, %lld coils: GPU ESPIRiT %.3f s (calibration on the host)\n",
           (long long)kN[0], (long long)kN[1], (long long)kN[2], (long long)kNC, t1 - t0);
    if (mg) compare("3-D", mg, eg, mc, ec, kN[0] * kN[1] * kN[2], kNC, 0.002, 1e-4);
    kr_array_destroy(S), kr_array_destroy(k), kr_array_destroy(mc), kr_array_destroy(ec);
    kr_array_destroy(mg), kr_array_destroy(eg);
    /* 2-D, BART's defaults */
    const int64_t n2[3] = {96, 80, 1};
    S = ket_maps3(n2, 8);
    k = ket_kspace3(g_cpu, S, NULL);
    kr_array k3;
    int64_t d3[3] = {96, 80, 8};
    KT_OK(kr_array_wrap(&k3, KR_C64, 3, d3, k->data, KR_HOST));
    mc = ec = mg = eg = NULL;
    KT_OK(kr_espirit(g_cpu, &k3, NULL, &mc, &ec));
    KT_OK(kr_espirit(g_gpu, &k3, NULL, &mg, &eg));
    if (mg) compare("2-D 96x80, 8 coils", mg, eg, mc, ec, 96 * 80, 8, 0.002, 1e-4);
    kr_array_destroy(S), kr_array_destroy(k), kr_array_destroy(mc), kr_array_destroy(ec);
    kr_array_destroy(mg), kr_array_destroy(eg);
}

static void test_noncartesian_gpu(void)
{
    ct_problem pr;
    ct_problem_make(&pr, 64, 8, 48);
    int64_t dims[2] = {64, 64};
    kr_cgsense_maps_opts mo;
    kr_cgsense_maps_opts_default(&mo);
    mo.espirit = 1;
    kr_array *mc = NULL, *mg = NULL;
    KT_OK(kr_cgsense_estimate_maps(g_cpu, 2, dims, pr.traj, pr.data, NULL, &mo, &mc));
    KT_OK(kr_cgsense_estimate_maps(g_gpu, 2, dims, pr.traj, pr.data, NULL, &mo, &mg));
    /* the device NUFFT sums with atomics: calibration data within float rounding, not bits */
    if (mc && mg)
        compare("radial 64^2, 8 coils, maps from the data", mg, NULL, mc, NULL, 64 * 64, 8, 0.005,
                1e-3);
    kr_array_destroy(mc), kr_array_destroy(mg);
    ct_problem_free(&pr);
}

int main(void)
{
    kt_require_gpu();
    KT_OK(kr_ctx_create(&g_cpu, KR_BACKEND_CPU));
    KT_OK(kr_ctx_create(&g_gpu, KR_BACKEND_CUDA));
    kr_ctx_set_quiet(g_cpu, 1);
    kr_ctx_set_quiet(g_gpu, 1);
    KT_RUN(test_espirit_gpu);
    KT_RUN(test_noncartesian_gpu);
    kr_ctx_destroy(g_cpu);
    kr_ctx_destroy(g_gpu);
    return kt_finish();
}
