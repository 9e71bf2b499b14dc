/* Work divided over a context's device list, on the CPU (its parts): the device-list API, the
 * split of ranges, the runner's error handling, and the cone-beam projectors and the solvers
 * that use them, which must equal the undivided results bit for bit (the adjoint divided by
 * views, the path of the CUDA scatters, to rounding). */
#include "core/parts.h"
#include "internal.h"
#include "kray/ct.h"
#include "kray/fdk.h"
#include "kray/phantom.h"
#include "kray/reg.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>

static kr_ctx *mkctx(int nparts) { return kt_cpu_parts(nparts); }

static void test_device_list(void)
{
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
    KT_CHECK(kr_ctx_ndevices(c) == 1 && kr_ctx_device_at(c, 0) == 0);
    KT_OK(kr_ctx_set_devices_spec(c, "3,1,1"));
    KT_CHECK(kr_ctx_ndevices(c) == 3 && kr_ctx_device(c) == 3 && kr_ctx_device_at(c, 2) == 1);
    KT_OK(kr_ctx_set_devices_spec(c, "all"));
    KT_CHECK(kr_ctx_ndevices(c) == 1);
    const char *bad[] = {"", "1,", ",1", "1,,2", "a", "1 2", "-1", "1024", "0x1", "99999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        KT_STATUS(kr_ctx_set_devices_spec(c, bad[i]), KR_ERR_INVALID_ARG);
        KT_CHECK(strstr(kr_last_error(), "device list") != NULL);
    }
    char many[400] = "0";
    for (int i = 1; i <= KR_MAX_DEVICES; i++) strcat(many, ",0");
    KT_STATUS(kr_ctx_set_devices_spec(c, many), KR_ERR_INVALID_ARG);
    int d[2] = {0, -1};
    KT_STATUS(kr_ctx_set_devices(c, 2, d), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ctx_set_devices(c, 0, d), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ctx_set_devices(NULL, 1, d), KR_ERR_INVALID_ARG);
    KT_OK(kr_ctx_set_device(c, 5));
    KT_CHECK(kr_ctx_ndevices(c) == 1 && kr_ctx_device(c) == 5);
    KT_CHECK(kr_ctx_ndevices(NULL) == 1);
    kr_ctx_destroy(c);
}

static void test_split(void)
{
    int64_t s[KR_MAX_DEVICES + 1];
    kri_split(40, 3, 16, s);
    KT_CHECK(s[0] == 0 && s[1] == 16 && s[2] == 32 && s[3] == 40);
    kri_split(40, 2, 16, s);
    KT_CHECK(s[0] == 0 && s[1] == 32 && s[2] == 40);
    kri_split(10, 3, 1, s);
    KT_CHECK(s[1] == 4 && s[2] == 7 && s[3] == 10);
    kri_split(2, 4, 1, s); /* more parts than units: empty ranges at the end */
    KT_CHECK(s[1] == 1 && s[2] == 2 && s[3] == 2 && s[4] == 2);
    for (int n = 1; n <= 7; n++)
        for (int64_t total = 0; total < 100; total += 7) {
            kri_split(total, n, 16, s);
            int ok = s[0] == 0 && s[n] == total;
            for (int i = 1; i < n; i++) ok = ok && s[i] >= s[i - 1] && (s[i] % 16 == 0 || s[i] == total);
            KT_CHECK_MSG(ok, "split of %lld into %d", (long long)total, n);
        }
}

/* The runner: every part runs once on its own context; the lowest failing part's status and
 * sentence come back. */
typedef struct {
    int seen[KR_MAX_DEVICES];
    int fail_from;
} runner_t;

static kr_status part_fn(void *user, int part, const kr_ctx *pc)
{
    runner_t *r = user;
    r->seen[part] += 1 + 100 * (kr_ctx_ndevices(pc) == 1 ? kr_ctx_device(pc) : -1);
    if (part >= r->fail_from)
        return kri_fail(KR_ERR_DIM, "part %d refuses (threads %d)", part, kr_ctx_threads(pc));
    return KR_OK;
}

static void test_runner(void)
{
    kr_ctx *c = mkctx(3);
    int devs[3] = {4, 5, 6};
    KT_OK(kr_ctx_set_devices(c, 3, devs));
    kri_parts *p = NULL;
    KT_OK(kri_parts_create(&p, c));
    runner_t r = {{0}, 99};
    KT_OK(kri_parts_run(p, part_fn, &r));
    for (int i = 0; i < 3; i++) KT_CHECK(r.seen[i] == 1 + 100 * (4 + i));
    for (int i = 0; i < 3; i++) KT_CHECK(kr_ctx_threads(p->ctx[i]) == 1);
    r = (runner_t){{0}, 1};
    KT_STATUS(kri_parts_run(p, part_fn, &r), KR_ERR_DIM);
    KT_CHECK(strcmp(kr_last_error(), "part 1 refuses (threads 1)") == 0);
    kri_parts_destroy(p);
    kr_ctx_destroy(c);
}

/* 20 x 18 x 40 voxels (z: three slabs of 16, 16 and 8), 11 views of 24 x 30 pixels. */
static kr_ct_geom *geom(void)
{
    kr_ct_grid g;
    kr_ct_grid_3d(&g, 20, 18, 40, 1.0);
    g.voxel_mm[2] = 0.7;
    kr_ct_scan s;
    kr_ct_scan_default(&s);
    s.type = KR_CT_CONE;
    s.nviews = 11;
    s.start_deg = 10;
    s.stop_deg = 370;
    s.det_count = 24;
    s.det_rows = 30;
    s.det_spacing_mm = 1.4;
    s.det_offset_mm = 0.4;
    s.sod_mm = 60;
    s.sdd_mm = 90;
    kr_ct_geom *geo = NULL;
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    return geo;
}

static kr_array *arr(kr_dtype t, int64_t a, int64_t b, int64_t c, uint64_t seed)
{
    const int64_t d[3] = {a, b, c};
    return kt_host_array(t, 3, d, seed);
}

static void check_pair(kr_ct_method method, kr_dtype dt, int ray_factor, int nparts, int views)
{
    kr_ct_geom *g = geom();
    kr_ct_projector_opts o;
    kr_ct_projector_opts_default(&o);
    o.method = method;
    o.dtype = dt;
    o.ray_factor = ray_factor;
    if (views) setenv("KRAY_CT3_SPLIT_ADJOINT", "views", 1);
    kr_ctx *c1 = mkctx(1), *cn = mkctx(nparts);
    kr_ct_projector_plan *p1 = NULL, *pn = NULL;
    KT_OK(kr_ct_projector_plan_create(&p1, c1, g, &o));
    KT_OK(kr_ct_projector_plan_create(&pn, cn, g, &o));
    unsetenv("KRAY_CT3_SPLIT_ADJOINT");
    kr_array *x = arr(dt, 20, 18, 40, 7), *y1 = arr(dt, 24, 30, 11, 0), *yn = arr(dt, 24, 30, 11, 0);
    KT_OK(kr_ct_projector_forward(p1, x, y1));
    KT_OK(kr_ct_projector_forward(pn, x, yn));
    KT_CHECK_MSG(kt_same_bits(y1, yn), "forward %s %s k=%d, %d parts differs (%.3g)",
                 kr_ct_method_name(method), kr_dtype_name(dt), ray_factor, nparts,
                 kt_relmax(yn, y1));
    kr_array *y = arr(dt, 24, 30, 11, 9), *x1 = arr(dt, 20, 18, 40, 0), *xn = arr(dt, 20, 18, 40, 0);
    KT_OK(kr_ct_projector_adjoint(p1, y, x1));
    KT_OK(kr_ct_projector_adjoint(pn, y, xn));
    KT_OK(kr_ct_projector_adjoint(pn, y, xn)); /* twice: the buffers are reused */
    if (!views) {
        KT_CHECK_MSG(kt_same_bits(x1, xn), "adjoint %s %s k=%d, %d parts differs (%.3g)",
                     kr_ct_method_name(method), kr_dtype_name(dt), ray_factor, nparts,
                     kt_relmax(xn, x1));
    } else {
        KT_LE(kt_relmax(xn, x1), dt == KR_F32 ? 2e-6 : 1e-14);
    }
    kr_array_destroy(x), kr_array_destroy(y1), kr_array_destroy(yn);
    kr_array_destroy(y), kr_array_destroy(x1), kr_array_destroy(xn);
    kr_ct_projector_plan_destroy(p1);
    kr_ct_projector_plan_destroy(pn);
    kr_ctx_destroy(c1), kr_ctx_destroy(cn);
    kr_ct_geom_destroy(g);
}

static void test_projectors(void)
{
    for (int n = 2; n <= 3; n++) {
        check_pair(KR_CT_JOSEPH, KR_F32, 1, n, 0);
        check_pair(KR_CT_JOSEPH, KR_F64, 1, n, 0);
        check_pair(KR_CT_SIDDON, KR_F32, 1, n, 0);
        check_pair(KR_CT_JOSEPH, KR_F32, 2, n, 0);
    }
    check_pair(KR_CT_JOSEPH, KR_F64, 1, 5, 0); /* more parts than z slabs: empty ones */
    check_pair(KR_CT_JOSEPH, KR_F32, 1, 3, 1);
    check_pair(KR_CT_SIDDON, KR_F64, 1, 2, 1);
}

/* The adjoint test of the divided operator. */
static void test_adjoint(void)
{
    kr_ct_geom *g = geom();
    kr_ctx *c = mkctx(3);
    kr_linop *A = NULL;
    kr_ct_projector_opts o;
    kr_ct_projector_opts_default(&o);
    o.dtype = KR_F64;
    KT_OK(kr_ct_linop_create(&A, c, g, &o));
    double rel = 1;
    KT_OK(kr_linop_adjoint_test(A, 3, &rel));
    KT_LE(rel, 1e-13);
    kr_linop_destroy(A);
    kr_ctx_destroy(c);
    kr_ct_geom_destroy(g);
}

/* SIRT, CGLS and TV-FISTA through the divided operator equal the undivided runs bit for bit. */
static void test_solvers(void)
{
    kr_ct_geom *g = geom();
    kr_ctx *c1 = mkctx(1), *c3 = mkctx(3);
    kr_ct_projector_opts o;
    kr_ct_projector_opts_default(&o);
    kr_linop *A1 = NULL, *A3 = NULL;
    KT_OK(kr_ct_linop_create(&A1, c1, g, &o));
    KT_OK(kr_ct_linop_create(&A3, c3, g, &o));
    kr_array *truth = arr(KR_F32, 20, 18, 40, 5), *y = arr(KR_F32, 24, 30, 11, 0);
    KT_OK(kr_linop_forward(A1, truth, y));
    kr_array *xa = arr(KR_F32, 20, 18, 40, 0), *xb = arr(KR_F32, 20, 18, 40, 0);
    /* CGLS */
    kr_solve_opts so;
    kr_solve_opts_default(&so);
    so.max_iter = 6;
    so.tol = 0;
    KT_OK(kr_cgls(c1, A1, y, xa, &so, NULL));
    KT_OK(kr_cgls(c3, A3, y, xb, &so, NULL));
    KT_CHECK_MSG(kt_same_bits(xa, xb), "CGLS differs (%.3g)", kt_relmax(xb, xa));
    /* SIRT */
    kr_sirt_plan *s1 = NULL, *s3 = NULL;
    KT_OK(kr_sirt_plan_create(&s1, c1, A1));
    KT_OK(kr_sirt_plan_create(&s3, c3, A3));
    kr_sirt_opts sio;
    kr_sirt_opts_default(&sio);
    sio.max_iter = 5;
    sio.nonneg = 1;
    KT_OK(kr_sirt_execute(s1, y, xa, &sio, NULL));
    KT_OK(kr_sirt_execute(s3, y, xb, &sio, NULL));
    KT_CHECK_MSG(kt_same_bits(xa, xb), "SIRT differs (%.3g)", kt_relmax(xb, xa));
    kr_sirt_plan_destroy(s1), kr_sirt_plan_destroy(s3);
    kr_linop_destroy(A1), kr_linop_destroy(A3);
    kr_array_destroy(truth), kr_array_destroy(y), kr_array_destroy(xa), kr_array_destroy(xb);
    kr_ctx_destroy(c1), kr_ctx_destroy(c3);
    kr_ct_geom_destroy(g);
}

/* The FDK tests' scan: 24 x 22 x 37 voxels (z centre at zoff mm), 40 views of 40 x rows
 * pixels over [0, stop_deg]. */
static kr_ct_geom *fdk_geom(double stop_deg, int64_t rows, double zoff)
{
    kr_ct_grid gr;
    kr_ct_grid_3d(&gr, 24, 22, 37, 1.0);
    gr.offset_mm[2] = zoff;
    kr_ct_scan sc;
    kr_ct_scan_default(&sc);
    sc.type = KR_CT_CONE;
    sc.nviews = 40;
    sc.start_deg = 0;
    sc.stop_deg = stop_deg;
    sc.det_count = 40;
    sc.det_rows = rows;
    sc.det_spacing_mm = 1.5;
    sc.sod_mm = 80;
    sc.sdd_mm = 130;
    kr_ct_geom *g = NULL;
    KT_OK(kr_ct_geom_create(&g, &sc, &gr));
    return g;
}

/* FDK (a full scan and a short scan with Parker weights) and the voxel-driven backprojector,
 * divided into z slabs, equal the undivided plans bit for bit. */
static void check_fdk(int nparts, double stop_deg)
{
    kr_ct_geom *g = fdk_geom(stop_deg, 44, 0);
    kr_array *proj = NULL;
    KT_OK(kr_ct_phantom_projections(&proj, NULL, g, KR_PHANTOM_SHEPP_LOGAN, 1, KR_F32));
    kr_ctx *c1 = mkctx(1), *cn = mkctx(nparts);
    kr_array *v1 = arr(KR_F32, 24, 22, 37, 0), *vn = arr(KR_F32, 24, 22, 37, 0);
    KT_OK(kr_fdk(c1, g, NULL, proj, v1));
    KT_OK(kr_fdk(cn, g, NULL, proj, vn));
    KT_CHECK_MSG(kt_same_bits(v1, vn), "FDK, %d parts, %g degrees, differs (%.3g)", nparts, stop_deg,
                 kt_relmax(vn, v1));
    double s = 0;
    for (int64_t i = 0; i < kr_array_numel(v1); i++) s += fabs(kr_array_get_f64(v1, i));
    KT_CHECK(s > 1); /* a real reconstruction, not two empty volumes */
    /* the voxel-driven backprojector (an FDK plan of ray-density weights) */
    kr_linop *B1 = NULL, *Bn = NULL;
    KT_OK(kr_ct_voxel_bp_linop_create(&B1, c1, g, 0));
    KT_OK(kr_ct_voxel_bp_linop_create(&Bn, cn, g, 0));
    KT_OK(kr_linop_forward(B1, proj, v1));
    KT_OK(kr_linop_forward(Bn, proj, vn));
    KT_CHECK_MSG(kt_same_bits(v1, vn), "voxel-driven BP, %d parts, differs (%.3g)", nparts,
                 kt_relmax(vn, v1));
    kr_linop_destroy(B1), kr_linop_destroy(Bn);
    /* non-finite input is refused by the divided plan too, naming the sample */
    ((float *)proj->data)[5 + 40 * 3] = NAN;
    KT_STATUS(kr_fdk(cn, g, NULL, proj, vn), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "u 5, v 3, view 0") != NULL);
    kr_array_destroy(proj), kr_array_destroy(v1), kr_array_destroy(vn);
    kr_ctx_destroy(c1), kr_ctx_destroy(cn);
    kr_ct_geom_destroy(g);
}

/* kr_fdk_plan_create_slab: each slab from its rows alone equals the whole volume's slices to
 * float rounding; a full and a short scan. */
static void check_fdk_slabs(double stop_deg)
{
    kr_ct_geom *g = fdk_geom(stop_deg, 50, 2.5);
    kr_array *proj = NULL;
    KT_OK(kr_ct_phantom_projections(&proj, NULL, g, KR_PHANTOM_SHEPP_LOGAN, 1, KR_F32));
    kr_ctx *c = mkctx(1);
    kr_array *whole = arr(KR_F32, 24, 22, 37, 0);
    KT_OK(kr_fdk(c, g, NULL, proj, whole));
    const int64_t cuts[4] = {0, 9, 30, 37};
    double maxv = 0;
    for (int64_t i = 0; i < kr_array_numel(whole); i++)
        maxv = fmax(maxv, fabs(kr_array_get_f64(whole, i)));
    for (int k = 0; k < 3; k++) {
        kr_fdk_plan *p = NULL;
        int64_t r0 = -1, nr = -1;
        KT_OK(kr_fdk_plan_create_slab(&p, c, g, NULL, cuts[k], cuts[k + 1], &r0, &nr));
        KT_CHECK(r0 >= 0 && nr >= 1 && r0 + nr <= 50 && nr < 50);
        int64_t bd[3] = {40, nr, 40}, sd[3] = {24, 22, cuts[k + 1] - cuts[k]};
        kr_array *band = NULL, *slab = NULL;
        KT_OK(kr_array_create(&band, KR_F32, 3, bd, KR_HOST, NULL));
        KT_OK(kr_array_create(&slab, KR_F32, 3, sd, KR_HOST, NULL));
        for (int64_t v = 0; v < 40; v++)
            memcpy((float *)band->data + v * 40 * nr, (float *)proj->data + (v * 50 + r0) * 40,
                   (size_t)(40 * nr) * sizeof(float));
        KT_OK(kr_fdk_execute(p, band, slab));
        double err = 0;
        for (int64_t i = 0; i < kr_array_numel(slab); i++)
            err = fmax(err, fabs(kr_array_get_f64(slab, i) -
                                 kr_array_get_f64(whole, i + cuts[k] * 24 * 22)));
        KT_LE(err, 2e-5 * maxv);
        kr_fdk_plan_destroy(p);
        kr_array_destroy(band), kr_array_destroy(slab);
    }
    int64_t r0, nr;
    kr_fdk_plan *p = NULL;
    KT_STATUS(kr_fdk_plan_create_slab(&p, c, g, NULL, 5, 5, &r0, &nr), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_fdk_plan_create_slab(&p, c, g, NULL, 0, 38, &r0, &nr), KR_ERR_INVALID_ARG);
    kr_array_destroy(proj), kr_array_destroy(whole);
    kr_ctx_destroy(c);
    kr_ct_geom_destroy(g);
}

static void test_fdk(void)
{
    check_fdk_slabs(360);
    check_fdk_slabs(230);
    check_fdk(2, 360);
    check_fdk(3, 360);
    check_fdk(4, 220); /* 37 slices: slabs 16, 16, 5 and an empty part */
}

int main(void)
{
    KT_RUN(test_device_list);
    KT_RUN(test_split);
    KT_RUN(test_runner);
    KT_RUN(test_projectors);
    KT_RUN(test_adjoint);
    KT_RUN(test_solvers);
    KT_RUN(test_fdk);
    return kt_finish();
}
