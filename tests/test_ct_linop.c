/* The 2-D projector as a kr_linop: shapes, the library's adjoint test, and CGLS on a consistent
 * problem. Needs the solve module (src/solve); until it is part of the tree this test skips. */
#include "kray/ct.h"
#include "kt.h"

#include <string.h>

#if defined(__has_include)
#if __has_include("solve/solve_internal.h")
#define KT_HAVE_SOLVE 1
#endif
#endif

#ifdef KT_HAVE_SOLVE

static void test_linop(void)
{
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
    kr_ct_grid g;
    kr_ct_grid_2d(&g, 24, 20, 1);
    kr_ct_scan s;
    kr_ct_scan_default(&s);
    s.type = KR_CT_FAN2D_FLAT;
    s.nviews = 40;
    s.stop_deg = 360;
    s.det_count = 41;
    s.sod_mm = 60;
    s.sdd_mm = 100;
    s.det_spacing_mm = 1.2;
    kr_ct_geom *geo = NULL;
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    for (int m = 0; m < 2; m++)
        for (int t = 0; t < 2; t++) {
            kr_ct_projector_opts o = {m ? KR_CT_SIDDON : KR_CT_JOSEPH, t ? KR_F32 : KR_F64, 0};
            kr_linop *A = NULL;
            KT_OK(kr_ct_linop_create(&A, c, geo, &o));
            int64_t d[KR_MAX_DIMS];
            KT_CHECK(kr_linop_in_dims(A, d) == 2 && d[0] == 24 && d[1] == 20);
            KT_CHECK(kr_linop_out_dims(A, d) == 2 && d[0] == 41 && d[1] == 40);
            KT_CHECK(kr_linop_dtype(A) == o.dtype && kr_linop_loc(A) == KR_HOST);
            KT_CHECK(strcmp(kr_linop_name(A), m ? "ct2d-siddon" : "ct2d-joseph") == 0);
            double rel = 1;
            KT_OK(kr_linop_adjoint_test(A, 42, &rel));
            KT_LE(rel, t ? 1e-5 : 1e-12);
            /* consistent data: CGLS drives the normal-equation residual down */
            kr_array *x = NULL, *y = NULL, *x0 = NULL;
            int64_t di[2] = {24, 20}, ds[2] = {41, 40};
            KT_OK(kr_array_create(&x0, o.dtype, 2, di, KR_HOST, NULL));
            KT_OK(kr_array_create(&x, o.dtype, 2, di, KR_HOST, NULL));
            KT_OK(kr_array_create(&y, o.dtype, 2, ds, KR_HOST, NULL));
            KT_OK(kr_vec_random(c, x0, 7));
            KT_OK(kr_linop_forward(A, x0, y));
            kr_solve_opts so;
            kr_solve_opts_default(&so);
            so.max_iter = 30;
            so.tol = 0;
            kr_solve_info info;
            KT_OK(kr_cgls(c, A, y, x, &so, &info));
            KT_LE(info.rel_residual, 0.05);
            kr_array_destroy(x);
            kr_array_destroy(y);
            kr_array_destroy(x0);
            kr_linop_destroy(A);
        }
    kr_linop *A = NULL;
    KT_STATUS(kr_ct_linop_create(&A, c, NULL, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ct_linop_create(NULL, c, geo, NULL), KR_ERR_INVALID_ARG);
    kr_ct_geom_destroy(geo);
    kr_ctx_destroy(c);
}

#endif

int main(void)
{
#ifdef KT_HAVE_SOLVE
    KT_RUN(test_linop);
    return kt_finish();
#else
    kt_skip("the solve module (kr_linop) is not in this tree yet");
    return 0;
#endif
}
