/* Work divided over a device list on CUDA. On a machine with one GPU the list names it more
 * than once ({0, 0}: two workers on one device) and KRAY_PARTS_COPY=1 makes the parts after the
 * first copy their operands as parts on other devices do; with more GPUs the parts are on
 * devices 0, 1, .... Against the undivided plans: the cone-beam forward and the gather adjoint
 * bit for bit, the scatter adjoints (Siddon) to rounding, SIRT and CGLS bit for bit, FDK with
 * host and device arrays to rounding (the filter pairs the rows of each slab's band). */
#include "internal.h"
#include "kray/ct.h"
#include "kray/fdk.h"
#include "kray/phantom.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>

static int ngpu;

/* A CUDA context over n workers: devices 0, 1, ... where there are that many, else device 0
 * n times. */
static kr_ctx *mkctx(int n)
{
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CUDA));
    KT_OK(kr_ctx_set_log_level(c, KR_LOG_ERROR));
    int d[KR_MAX_DEVICES];
    for (int i = 0; i < n; i++) d[i] = ngpu >= n ? i : 0;
    KT_OK(kr_ctx_set_devices(c, n, d));
    return c;
}

static kr_ct_geom *geom(int nx, int nz, int nviews)
{
    kr_ct_grid g;
    kr_ct_grid_3d(&g, nx, nx - 2, nz, 1.0);
    kr_ct_scan s;
    kr_ct_scan_default(&s);
    s.type = KR_CT_CONE;
    s.nviews = nviews;
    s.start_deg = 0;
    s.stop_deg = 360;
    s.det_count = 2 * nx;
    s.det_rows = nz + 12;
    s.det_spacing_mm = 1.3;
    s.sod_mm = 4.0 * nx;
    s.sdd_mm = 7.0 * nx;
    kr_ct_geom *geo = NULL;
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    return geo;
}

static kr_array *hrand(kr_dtype t, int64_t a, int64_t b, int64_t c, uint64_t seed)
{
    int64_t d[3] = {a, b, c};
    kr_array *x = NULL;
    KT_OK(kr_array_create(&x, t, 3, d, KR_HOST, NULL));
    kr_ctx *cc = kt_cpu_ctx();
    if (seed) KT_OK(kr_vec_random(cc, x, seed));
    kr_ctx_destroy(cc);
    return x;
}

static double relmax(const kr_array *a, const kr_array *b)
{
    double m = 0, s = 0;
    for (int64_t i = 0; i < kr_array_numel(a); i++) {
        double x = kr_array_get_f64(a, i), y = kr_array_get_f64(b, i);
        if (fabs(x - y) > m) m = fabs(x - y);
        if (fabs(y) > s) s = fabs(y);
    }
    return s > 0 ? m / s : m;
}

static int same(const kr_array *a, const kr_array *b)
{
    return kr_array_bytes(a) == kr_array_bytes(b) && !memcmp(a->data, b->data, kr_array_bytes(a));
}

/* forward and adjoint of plan p on device copies of hx / hy, results on the host */
static void apply(const kr_ctx *c, const kr_ct_projector_plan *p, const kr_array *hx,
                  const kr_array *hy, kr_array **fy, kr_array **ax)
{
    kr_array *dx = NULL, *dy = NULL, *oy = NULL, *ox = NULL;
    KT_OK(kr_array_clone(&dx, hx, KR_DEVICE, c));
    KT_OK(kr_array_clone(&dy, hy, KR_DEVICE, c));
    KT_OK(kr_array_create_like(&oy, hy, KR_DEVICE, c));
    KT_OK(kr_array_create_like(&ox, hx, KR_DEVICE, c));
    KT_OK(kr_ct_projector_forward(p, dx, oy));
    KT_OK(kr_ct_projector_adjoint(p, dy, ox));
    KT_OK(kr_ct_projector_adjoint(p, dy, ox)); /* buffers reused */
    KT_OK(kr_array_clone(fy, oy, KR_HOST, c));
    KT_OK(kr_array_clone(ax, ox, KR_HOST, c));
    kr_array_destroy(dx), kr_array_destroy(dy), kr_array_destroy(oy), kr_array_destroy(ox);
}

static void check_projector(kr_ct_method m, kr_dtype t, int n, int copy)
{
    kr_ct_geom *g = geom(40, 50, 23);
    kr_ct_projector_opts o;
    kr_ct_projector_opts_default(&o);
    o.method = m;
    o.dtype = t;
    if (copy) setenv("KRAY_PARTS_COPY", "1", 1);
    kr_ctx *c1 = mkctx(1), *cn = mkctx(n);
    kr_ct_projector_plan *p1 = NULL, *pn = NULL;
    KT_OK(kr_ct_projector_plan_create(&p1, c1, g, &o));
    KT_OK(kr_ct_projector_plan_create(&pn, cn, g, &o));
    kr_array *hx = hrand(t, 40, 38, 50, 3), *hy = hrand(t, 80, 62, 23, 4);
    kr_array *y1 = NULL, *x1 = NULL, *yn = NULL, *xn = NULL;
    apply(c1, p1, hx, hy, &y1, &x1);
    apply(cn, pn, hx, hy, &yn, &xn);
    KT_CHECK_MSG(same(y1, yn), "forward %s %s, %d workers (copy %d): %.3g",
                 kr_ct_method_name(m), kr_dtype_name(t), n, copy, relmax(yn, y1));
    if (m == KR_CT_JOSEPH)
        KT_CHECK_MSG(same(x1, xn), "gather adjoint %s, %d workers (copy %d): %.3g",
                     kr_dtype_name(t), n, copy, relmax(xn, x1));
    else
        KT_LE(relmax(xn, x1), t == KR_F32 ? 1e-5 : 1e-13);
    unsetenv("KRAY_PARTS_COPY");
    kr_array_destroy(hx), kr_array_destroy(hy), kr_array_destroy(y1), kr_array_destroy(x1);
    kr_array_destroy(yn), kr_array_destroy(xn);
    kr_ct_projector_plan_destroy(p1), kr_ct_projector_plan_destroy(pn);
    kr_ctx_destroy(c1), kr_ctx_destroy(cn);
    kr_ct_geom_destroy(g);
}

static void test_projectors(void)
{
    for (int copy = 0; copy <= 1; copy++) {
        check_projector(KR_CT_JOSEPH, KR_F32, 2, copy);
        check_projector(KR_CT_JOSEPH, KR_F64, 3, copy);
        check_projector(KR_CT_SIDDON, KR_F32, 2, copy);
    }
}

/* CGLS and SIRT on device vectors: divided and undivided iterates are the same bits. */
static void test_solvers(void)
{
    kr_ct_geom *g = geom(32, 40, 30);
    setenv("KRAY_PARTS_COPY", "1", 1);
    kr_ctx *c1 = mkctx(1), *c2 = mkctx(2);
    unsetenv("KRAY_PARTS_COPY");
    kr_array *ht = hrand(KR_F32, 32, 30, 40, 8), *res[2][2];
    for (int k = 0; k < 2; k++) {
        const kr_ctx *c = k ? c2 : c1;
        if (k) setenv("KRAY_PARTS_COPY", "1", 1);
        kr_linop *A = NULL;
        KT_OK(kr_ct_linop_create(&A, c, g, NULL));
        kr_array *t = NULL, *y = NULL, *x = NULL;
        int64_t yd[3];
        kr_linop_out_dims(A, yd);
        KT_OK(kr_array_clone(&t, ht, KR_DEVICE, c));
        KT_OK(kr_array_create(&y, KR_F32, 3, yd, KR_DEVICE, c));
        KT_OK(kr_array_create_like(&x, t, KR_DEVICE, c));
        KT_OK(kr_linop_forward(A, t, y));
        kr_solve_opts so;
        kr_solve_opts_default(&so);
        so.max_iter = 5;
        so.tol = 0;
        KT_OK(kr_cgls(c, A, y, x, &so, NULL));
        KT_OK(kr_array_clone(&res[k][0], x, KR_HOST, c));
        kr_sirt_plan *s = NULL;
        KT_OK(kr_sirt_plan_create(&s, c, A));
        kr_sirt_opts sio;
        kr_sirt_opts_default(&sio);
        sio.max_iter = 4;
        KT_OK(kr_sirt_execute(s, y, x, &sio, NULL));
        KT_OK(kr_array_clone(&res[k][1], x, KR_HOST, c));
        kr_sirt_plan_destroy(s);
        kr_linop_destroy(A);
        kr_array_destroy(t), kr_array_destroy(y), kr_array_destroy(x);
        unsetenv("KRAY_PARTS_COPY");
    }
    KT_CHECK_MSG(same(res[0][0], res[1][0]), "CGLS: %.3g", relmax(res[1][0], res[0][0]));
    KT_CHECK_MSG(same(res[0][1], res[1][1]), "SIRT: %.3g", relmax(res[1][1], res[0][1]));
    for (int k = 0; k < 2; k++) kr_array_destroy(res[k][0]), kr_array_destroy(res[k][1]);
    kr_array_destroy(ht);
    kr_ctx_destroy(c1), kr_ctx_destroy(c2);
    kr_ct_geom_destroy(g);
}

/* FDK: host arrays, and device arrays (the parts after the first copying), against the
 * undivided plan and the CPU; a budget too small for one slab per part still works (slabs). */
static void test_fdk(void)
{
    kr_ct_geom *g = geom(48, 70, 64);
    kr_array *proj = NULL;
    KT_OK(kr_ct_phantom_projections(&proj, NULL, g, KR_PHANTOM_SHEPP_LOGAN, 1, KR_F32));
    kr_ctx *c1 = mkctx(1), *c3 = mkctx(3);
    kr_array *v1 = hrand(KR_F32, 48, 46, 70, 0), *v3 = hrand(KR_F32, 48, 46, 70, 0);
    KT_OK(kr_fdk(c1, g, NULL, proj, v1));
    KT_OK(kr_fdk(c3, g, NULL, proj, v3));
    KT_LE(relmax(v3, v1), 1e-5);
    kr_fdk_opts o;
    kr_fdk_opts_default(&o);
    o.gpu_mem = 3 << 20; /* 1 MiB per part: several slabs each */
    KT_OK(kr_fdk(c3, g, &o, proj, v3));
    KT_LE(relmax(v3, v1), 1e-5);
    setenv("KRAY_PARTS_COPY", "1", 1);
    kr_array *dp = NULL, *dv = NULL, *hv = NULL;
    KT_OK(kr_array_clone(&dp, proj, KR_DEVICE, c3));
    KT_OK(kr_array_create_like(&dv, v1, KR_DEVICE, c3));
    KT_OK(kr_fdk(c3, g, NULL, dp, dv));
    KT_OK(kr_array_clone(&hv, dv, KR_HOST, c3));
    KT_LE(relmax(hv, v1), 1e-5);
    unsetenv("KRAY_PARTS_COPY");
    kr_ctx *cpu = kt_cpu_ctx();
    KT_OK(kr_fdk(cpu, g, NULL, proj, v3));
    KT_LE(relmax(hv, v3), 1e-4);
    kr_ctx_destroy(cpu);
    kr_array_destroy(proj), kr_array_destroy(v1), kr_array_destroy(v3);
    kr_array_destroy(dp), kr_array_destroy(dv), kr_array_destroy(hv);
    kr_ctx_destroy(c1), kr_ctx_destroy(c3);
    kr_ct_geom_destroy(g);
}

int main(void)
{
    kt_require_gpu();
    KT_OK(kr_cuda_device_count(&ngpu));
    KT_RUN(test_projectors);
    KT_RUN(test_solvers);
    KT_RUN(test_fdk);
    return kt_finish();
}
