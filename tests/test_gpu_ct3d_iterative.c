/* SIRT and CGLS on the device: the same iterates as on the CPU (to rounding: the device
 * adjoint sums with atomics), f32 and f64, both projectors, with non-negativity; SIRT with the
 * voxel-driven backprojector, and that backprojector itself (CPU vs GPU, in core vs in slabs). */
#include "internal.h"
#include "kray/ct.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>

static kr_ctx *mkctx(kr_backend b)
{
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, b));
    KT_OK(kr_ctx_set_log_level(c, KR_LOG_ERROR));
    return c;
}

static kr_ct_geom *geom(void)
{
    kr_ct_grid g;
    kr_ct_grid_3d(&g, 24, 22, 20, 1.0);
    kr_ct_scan s;
    kr_ct_scan_default(&s);
    s.type = KR_CT_CONE;
    s.nviews = 30;
    s.start_deg = 0;
    s.stop_deg = 360;
    s.det_count = 40;
    s.det_rows = 32;
    s.det_spacing_mm = 1.2;
    s.sod_mm = 60;
    s.sdd_mm = 100;
    kr_ct_geom *geo = NULL;
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    return geo;
}

/* Run `solver` (0 SIRT, 1 CGLS, 2 SIRT with the voxel-driven backprojector) on ctx with host
 * data y, return the host result. */
static kr_array *solve(const kr_ctx *c, const kr_ct_geom *g, kr_ct_method m, kr_dtype t,
                       const kr_array *y, int solver, double *rel)
{
    kr_ct_projector_opts o;
    kr_ct_projector_opts_default(&o);
    o.method = m;
    o.dtype = t;
    kr_linop *A = NULL;
    KT_OK(kr_ct_linop_create(&A, c, g, &o));
    const int dev = kr_ctx_backend(c) == KR_BACKEND_CUDA;
    int64_t d[3];
    kr_linop_in_dims(A, d);
    kr_array *x = NULL, *hx = NULL, *dy = NULL;
    KT_OK(kr_array_create(&hx, t, 3, d, KR_HOST, NULL));
    KT_OK(kr_array_create(&x, t, 3, d, dev ? KR_DEVICE : KR_HOST, c));
    KT_OK(kr_array_clone(&dy, y, dev ? KR_DEVICE : KR_HOST, c));
    kr_solve_info info;
    if (solver != 1) {
        kr_sirt_plan *s = NULL;
        kr_linop *B = NULL;
        if (solver == 2) KT_OK(kr_ct_voxel_bp_linop_create(&B, c, g, 0));
        KT_OK(kr_sirt_plan_create_pair(&s, c, A, B));
        kr_linop_destroy(B);
        kr_sirt_opts so;
        kr_sirt_opts_default(&so);
        so.max_iter = 15;
        so.nonneg = 1;
        KT_OK(kr_sirt_execute(s, dy, x, &so, &info));
        kr_sirt_plan_destroy(s);
    } else {
        kr_solve_opts so;
        kr_solve_opts_default(&so);
        so.max_iter = 10;
        so.tol = 0;
        KT_OK(kr_cgls(c, A, dy, x, &so, &info));
    }
    *rel = info.rel_residual;
    KT_OK(kr_array_copy(hx, x, c));
    kr_array_destroy(x);
    kr_array_destroy(dy);
    kr_linop_destroy(A);
    return hx;
}

static double get(const kr_array *a, int64_t i)
{
    return a->dtype == KR_F64 ? ((const double *)a->data)[i] : ((const float *)a->data)[i];
}

static void test_parity(void)
{
    kr_ctx *cpu = mkctx(KR_BACKEND_CPU), *gpu = mkctx(KR_BACKEND_CUDA);
    kr_ct_geom *geo = geom();
    for (int t = 0; t < 2; t++) {
        kr_dtype dt = t ? KR_F32 : KR_F64;
        kr_array *y = NULL;
        KT_OK(kr_ct_phantom_projections(&y, cpu, geo, KR_PHANTOM_MODIFIED_SL, 1, dt));
        for (int m = 0; m < 2; m++)
            for (int sv = 0; sv < (t ? 3 : 2); sv++) {
                kr_ct_method me = m ? KR_CT_SIDDON : KR_CT_JOSEPH;
                double rc = 0, rg = 0;
                kr_array *xc = solve(cpu, geo, me, dt, y, sv, &rc);
                kr_array *xg = solve(gpu, geo, me, dt, y, sv, &rg);
                double d = 0, n = 0;
                for (int64_t i = 0; i < kr_array_numel(xc); i++) {
                    d = fmax(d, fabs(get(xc, i) - get(xg, i)));
                    n = fmax(n, fabs(get(xc, i)));
                }
                printf("  %s %s %s: CPU vs GPU max difference %.2g of max %.3g; residual %.4g / "
                       "%.4g\n",
                       sv == 1 ? "cgls" : sv ? "sirt-voxel" : "sirt", m ? "siddon" : "joseph",
                       t ? "f32" : "f64", d, n,
                       rc, rg);
                KT_LE(d, (t ? 1e-3 : 1e-9) * n);
                KT_NEAR(rc, rg, t ? 1e-3 : 1e-9);
                kr_array_destroy(xc);
                kr_array_destroy(xg);
            }
        kr_array_destroy(y);
    }
    kr_ct_geom_destroy(geo);
    kr_ctx_destroy(cpu);
    kr_ctx_destroy(gpu);
}

/* B y on the CPU, on the GPU in core, and on the GPU in slabs under a 1 MiB budget. */
static void test_voxel_bp(void)
{
    kr_ctx *cpu = mkctx(KR_BACKEND_CPU), *gpu = mkctx(KR_BACKEND_CUDA);
    kr_ct_geom *geo = geom();
    kr_array *y = NULL, *dy = NULL, *x[3] = {NULL, NULL, NULL};
    KT_OK(kr_ct_phantom_projections(&y, cpu, geo, KR_PHANTOM_MODIFIED_SL, 1, KR_F32));
    KT_OK(kr_array_clone(&dy, y, KR_DEVICE, gpu));
    int64_t d[3];
    kr_ct_geom_image_dims(geo, d);
    for (int k = 0; k < 3; k++) {
        kr_linop *B = NULL;
        kr_array *dx = NULL;
        KT_OK(kr_array_create(&x[k], KR_F32, 3, d, KR_HOST, NULL));
        KT_OK(kr_ct_voxel_bp_linop_create(&B, k ? gpu : cpu, geo, k == 2 ? (int64_t)1 << 20 : 0));
        if (k) {
            KT_OK(kr_array_create(&dx, KR_F32, 3, d, KR_DEVICE, gpu));
            KT_OK(kr_linop_forward(B, dy, dx));
            KT_OK(kr_array_copy(x[k], dx, gpu));
        } else {
            KT_OK(kr_linop_forward(B, y, x[k]));
        }
        kr_array_destroy(dx);
        kr_linop_destroy(B);
    }
    double dd = 0, n = 0;
    for (int64_t i = 0; i < kr_array_numel(x[0]); i++) {
        dd = fmax(dd, fabs(get(x[0], i) - get(x[1], i)));
        n = fmax(n, fabs(get(x[0], i)));
    }
    printf("  voxel-driven backprojector: CPU vs GPU max difference %.2g of max %.3g\n", dd, n);
    KT_LE(dd, 1e-5 * n);
    KT_CHECK(memcmp(x[1]->data, x[2]->data, kr_array_bytes(x[1])) == 0);
    for (int k = 0; k < 3; k++) kr_array_destroy(x[k]);
    kr_array_destroy(dy);
    kr_array_destroy(y);
    kr_ct_geom_destroy(geo);
    kr_ctx_destroy(cpu);
    kr_ctx_destroy(gpu);
}

int main(void)
{
    kt_require_gpu();
    KT_RUN(test_parity);
    KT_RUN(test_voxel_bp);
    return kt_finish();
}
