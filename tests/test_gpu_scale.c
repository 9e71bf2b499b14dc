/* Work divided over a device list on CUDA. On a machine with one GPU the list names it more
 * than once ({0, 0}: two workers on one device) and KRAY_PARTS_COPY=1 makes the parts after the
 * first copy their operands as parts on other devices do; with more GPUs the parts are on
 * devices 0, 1, .... Against the undivided plans: the cone-beam forward and the gather adjoint
 * bit for bit, the scatter adjoints (Siddon) to rounding, SIRT and CGLS bit for bit, FDK with
 * host and device arrays to rounding (the filter pairs the rows of each slab's band); the
 * NUFFT's members (forward bit for bit), CG-SENSE's slices, and the Bloch simulator's
 * isochromats (bit for bit: integer sums). */
#include "internal.h"
#include "kray/ct.h"
#include "kray/fdk.h"
#include "kray/cgsense.h"
#include "kray/sense.h"
#include "kray/nufft.h"
#include "kray/phantom.h"
#include "kray/sim.h"
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
    const int64_t d[3] = {a, b, c};
    return kt_host_array(t, 3, d, seed);
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
    KT_CHECK_MSG(kt_same_bits(y1, yn), "forward %s %s, %d workers (copy %d): %.3g",
                 kr_ct_method_name(m), kr_dtype_name(t), n, copy, kt_relmax(yn, y1));
    if (m == KR_CT_JOSEPH)
        KT_CHECK_MSG(kt_same_bits(x1, xn), "gather adjoint %s, %d workers (copy %d): %.3g",
                     kr_dtype_name(t), n, copy, kt_relmax(xn, x1));
    else
        KT_LE(kt_relmax(xn, x1), t == KR_F32 ? 1e-5 : 1e-13);
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
    KT_CHECK_MSG(kt_same_bits(res[0][0], res[1][0]), "CGLS: %.3g", kt_relmax(res[1][0], res[0][0]));
    KT_CHECK_MSG(kt_same_bits(res[0][1], res[1][1]), "SIRT: %.3g", kt_relmax(res[1][1], res[0][1]));
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
    KT_LE(kt_relmax(v3, v1), 1e-5);
    kr_fdk_opts o;
    kr_fdk_opts_default(&o);
    o.gpu_mem = 3 << 20; /* 1 MiB per part: several slabs each */
    KT_OK(kr_fdk(c3, g, &o, proj, v3));
    KT_LE(kt_relmax(v3, v1), 1e-5);
    setenv("KRAY_PARTS_COPY", "1", 1);
    kr_array *dp = NULL, *dv = NULL, *hv = NULL;
    KT_OK(kr_array_clone(&dp, proj, KR_DEVICE, c3));
    KT_OK(kr_array_create_like(&dv, v1, KR_DEVICE, c3));
    KT_OK(kr_fdk(c3, g, NULL, dp, dv));
    KT_OK(kr_array_clone(&hv, dv, KR_HOST, c3));
    KT_LE(kt_relmax(hv, v1), 1e-5);
    unsetenv("KRAY_PARTS_COPY");
    kr_ctx *cpu = kt_cpu_ctx();
    KT_OK(kr_fdk(cpu, g, NULL, proj, v3));
    KT_LE(kt_relmax(hv, v3), 1e-4);
    kr_ctx_destroy(cpu);
    kr_array_destroy(proj), kr_array_destroy(v1), kr_array_destroy(v3);
    kr_array_destroy(dp), kr_array_destroy(dv), kr_array_destroy(hv);
    kr_ctx_destroy(c1), kr_ctx_destroy(c3);
    kr_ct_geom_destroy(g);
}

static kr_array *crand(int nd, const int64_t *d, uint64_t seed)
{
    return kt_host_array(KR_C64, nd, d, seed);
}

/* NUFFT batch members over workers (device arrays, the second worker copying): the forward
 * bit for bit, the adjoint (atomics) to rounding. */
static void test_nufft(void)
{
    const int64_t N[2] = {64, 48}, M = 5000, B = 7;
    int64_t td[2] = {3, M}, id[3] = {64, 48, B}, kd[2] = {M, B};
    kr_array *t = NULL;
    KT_OK(kr_array_create(&t, KR_F32, 2, td, KR_HOST, NULL));
    for (int64_t m = 0; m < M; m++) {
        ((float *)t->data)[3 * m] = (float)(31.9 * kri_rand_sym(1, (uint64_t)m));
        ((float *)t->data)[3 * m + 1] = (float)(23.9 * kri_rand_sym(2, (uint64_t)m));
    }
    kr_array *img = crand(3, id, 4), *ksp = crand(2, kd, 5), *out[2][2];
    setenv("KRAY_PARTS_COPY", "1", 1);
    for (int k = 0; k < 2; k++) {
        kr_ctx *c = mkctx(k ? 3 : 1);
        kr_nufft_opts o;
        kr_nufft_opts_default(&o);
        o.batch = B;
        kr_nufft_plan *p = NULL;
        KT_OK(kr_nufft_plan_create(&p, c, 2, N, &o));
        KT_OK(kr_nufft_set_points(p, t));
        kr_array *di = NULL, *dk = NULL, *oi = NULL, *ok = NULL;
        KT_OK(kr_array_clone(&di, img, KR_DEVICE, c));
        KT_OK(kr_array_clone(&dk, ksp, KR_DEVICE, c));
        KT_OK(kr_array_create_like(&oi, img, KR_DEVICE, c));
        KT_OK(kr_array_create_like(&ok, ksp, KR_DEVICE, c));
        KT_OK(kr_nufft_forward(p, di, ok));
        KT_OK(kr_nufft_adjoint(p, dk, oi));
        KT_OK(kr_array_clone(&out[k][0], ok, KR_HOST, c));
        KT_OK(kr_array_clone(&out[k][1], oi, KR_HOST, c));
        kr_array_destroy(di), kr_array_destroy(dk), kr_array_destroy(oi), kr_array_destroy(ok);
        kr_nufft_plan_destroy(p);
        kr_ctx_destroy(c);
    }
    unsetenv("KRAY_PARTS_COPY");
    KT_CHECK_MSG(kt_same_bits(out[0][0], out[1][0]), "NUFFT forward differs: %.3g",
                 kt_relmax(out[1][0], out[0][0]));
    KT_LE(kt_relmax(out[1][1], out[0][1]), 1e-5);
    for (int k = 0; k < 2; k++) kr_array_destroy(out[k][0]), kr_array_destroy(out[k][1]);
    kr_array_destroy(t), kr_array_destroy(img), kr_array_destroy(ksp);
}

/* CG-SENSE slices over workers against the undivided call (to rounding: the adjoint's
 * atomics). */
static void test_cgsense_slices(void)
{
    const int64_t n = 48, C = 4, S = 5, M = 4000;
    int64_t N[2] = {n, n}, td[2] = {3, M}, md[4] = {n, n, C, S}, kd[3] = {M, C, S}, xd[3] = {n, n, S};
    kr_array *t = NULL;
    KT_OK(kr_array_create(&t, KR_F32, 2, td, KR_HOST, NULL));
    for (int64_t m = 0; m < M; m++) {
        ((float *)t->data)[3 * m] = (float)(23.9 * kri_rand_sym(7, (uint64_t)m));
        ((float *)t->data)[3 * m + 1] = (float)(23.9 * kri_rand_sym(8, (uint64_t)m));
    }
    kr_array *maps = crand(4, md, 2), *ksp = crand(3, kd, 3), *x[2];
    kr_solve_opts so;
    kr_solve_opts_default(&so);
    so.max_iter = 6;
    so.tol = 0;
    setenv("KRAY_PARTS_COPY", "1", 1);
    for (int k = 0; k < 2; k++) {
        kr_ctx *c = mkctx(k ? 2 : 1);
        kr_array *dm = NULL, *dk = NULL, *dx = NULL, *hx = crand(3, xd, 0);
        KT_OK(kr_array_clone(&dm, maps, KR_DEVICE, c));
        KT_OK(kr_array_clone(&dk, ksp, KR_DEVICE, c));
        KT_OK(kr_array_clone(&dx, hx, KR_DEVICE, c));
        KT_OK(kr_cgsense_solve_slices(c, 2, N, C, S, t, dm, dk, NULL, &so, dx, NULL));
        KT_OK(kr_array_clone(&x[k], dx, KR_HOST, c));
        kr_array_destroy(dm), kr_array_destroy(dk), kr_array_destroy(dx), kr_array_destroy(hx);
        kr_ctx_destroy(c);
    }
    unsetenv("KRAY_PARTS_COPY");
    KT_LE(kt_relmax(x[1], x[0]), 1e-4);
    kr_array_destroy(x[0]), kr_array_destroy(x[1]);
    kr_array_destroy(t), kr_array_destroy(maps), kr_array_destroy(ksp);
}

/* Cartesian SENSE slices (R = 2, g-factor) over two workers, the second copying: the same
 * images and g-factors as one worker (no atomics: to the last bits, within 1e-6). */
static void test_sense_slices(void)
{
    const int64_t n = 64, C = 6, S = 5;
    int64_t md[4] = {n, n, C, S}, xd[3] = {n, n, S};
    kr_array *maps = crand(4, md, 4), *ksp = crand(4, md, 5), *x[2], *g[2];
    kr_sense_opts o;
    kr_sense_opts_default(&o);
    o.accel = 2;
    o.lambda = 1e-2;
    setenv("KRAY_PARTS_COPY", "1", 1);
    for (int k = 0; k < 2; k++) {
        kr_ctx *c = mkctx(k ? 2 : 1);
        kr_array *dm = NULL, *dk = NULL, *dx = NULL, *dg = NULL;
        KT_OK(kr_array_clone(&dm, maps, KR_DEVICE, c));
        KT_OK(kr_array_clone(&dk, ksp, KR_DEVICE, c));
        KT_OK(kr_array_create(&dx, KR_C64, 3, xd, KR_DEVICE, c));
        KT_OK(kr_array_create(&dg, KR_F32, 3, xd, KR_DEVICE, c));
        KT_OK(kr_sense_execute_slices(c, dm, S, &o, dk, dx, dg));
        KT_OK(kr_array_clone(&x[k], dx, KR_HOST, c));
        KT_OK(kr_array_clone(&g[k], dg, KR_HOST, c));
        kr_array_destroy(dm), kr_array_destroy(dk), kr_array_destroy(dx), kr_array_destroy(dg);
        kr_ctx_destroy(c);
    }
    unsetenv("KRAY_PARTS_COPY");
    KT_LE(kt_relmax(x[1], x[0]), 1e-6);
    KT_LE(kt_relmax(g[1], g[0]), 1e-6);
    for (int k = 0; k < 2; k++) kr_array_destroy(x[k]), kr_array_destroy(g[k]);
    kr_array_destroy(maps), kr_array_destroy(ksp);
}

/* Bloch: isochromats over workers, fixed-point sums added exactly: the same bits. */
static void test_bloch(void)
{
    kr_seq_cart_opts o;
    kr_seq_cart_opts_default(&o);
    o.nx = 32, o.ny = 24, o.te_ms = 5, o.tr_ms = 15, o.flip_deg = 20;
    kr_seq *seq = NULL;
    KT_OK(kr_seq_gre(&seq, &o));
    const int64_t n = 600000; /* two isochromats a thread */
    kr_iso *iso = NULL;
    KT_OK(kr_iso_create(&iso, n));
    for (int64_t i = 0; i < n; i++) {
        iso->x_mm[i] = (float)(120 * kri_rand_sym(1, (uint64_t)i));
        iso->y_mm[i] = (float)(120 * kri_rand_sym(2, (uint64_t)i));
        iso->t1_ms[i] = 900, iso->t2_ms[i] = 70, iso->m0[i] = 1;
    }
    KT_OK(kr_iso_equilibrium(iso));
    int64_t kd[1] = {32 * 24};
    kr_array *k[2];
    for (int j = 0; j < 2; j++) {
        kr_ctx *c = mkctx(j ? 3 : 1);
        kr_sim_plan *p = NULL;
        kr_array *dk = NULL;
        KT_OK(kr_array_create(&dk, KR_C64, 1, kd, KR_DEVICE, c));
        KT_OK(kr_sim_plan_create(&p, c, seq, NULL));
        KT_OK(kr_sim_set_object(p, iso, NULL));
        KT_OK(kr_sim_execute(p, dk));
        KT_OK(kr_array_clone(&k[j], dk, KR_HOST, c));
        kr_sim_plan_destroy(p);
        kr_array_destroy(dk);
        kr_ctx_destroy(c);
    }
    KT_CHECK_MSG(kt_same_bits(k[0], k[1]), "Bloch differs: %.3g", kt_relmax(k[1], k[0]));
    kr_array_destroy(k[0]), kr_array_destroy(k[1]);
    kr_iso_destroy(iso);
    kr_seq_destroy(seq);
}

int main(void)
{
    kt_require_gpu();
    KT_OK(kr_cuda_device_count(&ngpu));
    KT_RUN(test_projectors);
    KT_RUN(test_solvers);
    KT_RUN(test_fdk);
    KT_RUN(test_nufft);
    KT_RUN(test_cgsense_slices);
    KT_RUN(test_sense_slices);
    KT_RUN(test_bloch);
    return kt_finish();
}
