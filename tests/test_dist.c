/* Plans divided over MPI processes (kray/dist.h). Run alone (ctest: one process, nothing
 * loaded, rank 0 of 1) and under `mpirun -n 2` and `-n 3` by tests/mpi_dist.sh: every process
 * compares the distributed results (its context marked with kr_ctx_set_dist, two parts per
 * process) with an undivided run of its own, bit for bit: the cone-beam projectors, CGLS,
 * FDK, the NUFFT, CG-SENSE slices and the Bloch simulator; and the agreement on a failure of
 * one process. */
#include "kray/cgsense.h"
#include "kray/dist.h"
#include "kray/fdk.h"
#include "kray/phantom.h"
#include "kray/sim.h"
#include "nufft_test_util.h"

static int rank, size;

static kr_ctx *mkctx(int dist, int nparts)
{
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
    KT_OK(kr_ctx_set_threads(c, 1));
    KT_OK(kr_ctx_set_log_level(c, KR_LOG_ERROR));
    int d[2] = {0, 1};
    KT_OK(kr_ctx_set_devices(c, nparts, d));
    KT_OK(kr_ctx_set_dist(c, dist));
    return c;
}

static int same(const kr_array *a, const kr_array *b)
{
    return kr_array_bytes(a) == kr_array_bytes(b) && !memcmp(a->data, b->data, kr_array_bytes(a));
}

static kr_ct_geom *cone(void)
{
    kr_ct_grid g;
    kr_ct_grid_3d(&g, 20, 18, 52, 1.0);
    kr_ct_scan s;
    kr_ct_scan_default(&s);
    s.type = KR_CT_CONE;
    s.nviews = 13;
    s.start_deg = 0;
    s.stop_deg = 360;
    s.det_count = 30;
    s.det_rows = 60;
    s.det_spacing_mm = 1.3;
    s.sod_mm = 80;
    s.sdd_mm = 130;
    kr_ct_geom *geo = NULL;
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    return geo;
}

static kr_array *real3(int64_t a, int64_t b, int64_t c, uint64_t seed)
{
    int64_t d[3] = {a, b, c};
    kr_array *x = NULL;
    KT_OK(kr_array_create(&x, KR_F32, 3, d, KR_HOST, NULL));
    for (int64_t i = 0; seed && i < kr_array_numel(x); i++)
        ((float *)x->data)[i] = (float)kri_rand_sym(seed, (uint64_t)i);
    return x;
}

static void test_ct(void)
{
    kr_ct_geom *g = cone();
    kr_ctx *c1 = mkctx(0, 1), *cd = mkctx(1, 2);
    kr_linop *A1 = NULL, *Ad = NULL;
    KT_OK(kr_ct_linop_create(&A1, c1, g, NULL));
    KT_OK(kr_ct_linop_create(&Ad, cd, g, NULL));
    kr_array *x = real3(20, 18, 52, 3), *y1 = real3(30, 60, 13, 0), *yd = real3(30, 60, 13, 0);
    KT_OK(kr_linop_forward(A1, x, y1));
    KT_OK(kr_linop_forward(Ad, x, yd));
    KT_CHECK_MSG(same(y1, yd), "rank %d: distributed forward differs", rank);
    kr_array *x1 = real3(20, 18, 52, 0), *xd = real3(20, 18, 52, 0);
    KT_OK(kr_linop_adjoint(A1, y1, x1));
    KT_OK(kr_linop_adjoint(Ad, y1, xd));
    KT_CHECK_MSG(same(x1, xd), "rank %d: distributed adjoint differs", rank);
    kr_solve_opts so;
    kr_solve_opts_default(&so);
    so.max_iter = 4;
    so.tol = 0;
    KT_OK(kr_cgls(c1, A1, y1, x1, &so, NULL));
    KT_OK(kr_cgls(cd, Ad, y1, xd, &so, NULL));
    KT_CHECK_MSG(same(x1, xd), "rank %d: distributed CGLS differs", rank);
    /* FDK: each process its z slabs, then every slab to every process */
    kr_array *proj = NULL;
    KT_OK(kr_ct_phantom_projections(&proj, NULL, g, KR_PHANTOM_SHEPP_LOGAN, 1, KR_F32));
    KT_OK(kr_fdk(c1, g, NULL, proj, x1));
    KT_OK(kr_fdk(cd, g, NULL, proj, xd));
    KT_CHECK_MSG(same(x1, xd), "rank %d: distributed FDK differs", rank);
    kr_array_destroy(proj);
    kr_linop_destroy(A1), kr_linop_destroy(Ad);
    kr_array_destroy(x), kr_array_destroy(y1), kr_array_destroy(yd), kr_array_destroy(x1);
    kr_array_destroy(xd);
    kr_ctx_destroy(c1), kr_ctx_destroy(cd);
    kr_ct_geom_destroy(g);
}

static void test_mri(void)
{
    int64_t N[3] = {20, 16, 1};
    const int64_t M = 400, B = 7;
    kr_array *t = nt_traj(2, N, M, 5);
    int64_t id[3] = {20, 16, B}, kd[2] = {M, B};
    kr_array *k = nt_rand(KR_C64, 2, kd, 6), *i1 = nt_rand(KR_C64, 3, id, 0),
             *idd = nt_rand(KR_C64, 3, id, 0);
    kr_nufft_opts o;
    kr_nufft_opts_default(&o);
    o.batch = B;
    kr_ctx *c1 = mkctx(0, 1), *cd = mkctx(1, 2);
    kr_nufft_plan *p1 = NULL, *pd = NULL;
    KT_OK(kr_nufft_plan_create(&p1, c1, 2, N, &o));
    KT_OK(kr_nufft_plan_create(&pd, cd, 2, N, &o));
    KT_OK(kr_nufft_set_points(p1, t));
    KT_OK(kr_nufft_set_points(pd, t));
    KT_OK(kr_nufft_adjoint(p1, k, i1));
    KT_OK(kr_nufft_adjoint(pd, k, idd));
    KT_CHECK_MSG(same(i1, idd), "rank %d: distributed NUFFT differs", rank);
    /* a non-finite sample of member 5 (another process's on 3 processes) is named everywhere */
    ((float *)k->data)[2 * (5 * M + 9)] = NAN;
    KT_STATUS(kr_nufft_adjoint(pd, k, idd), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "sample 9 of batch member 5") != NULL);
    ((float *)k->data)[2 * (5 * M + 9)] = 0;
    kr_nufft_plan_destroy(p1), kr_nufft_plan_destroy(pd);
    /* CG-SENSE slices */
    const int64_t C = 3, S = 5;
    int64_t md[4] = {20, 16, C, S}, kd2[3] = {M, C, S}, xd[3] = {20, 16, S};
    kr_array *maps = nt_rand(KR_C64, 4, md, 8), *ks = nt_rand(KR_C64, 3, kd2, 9);
    kr_array *x1 = nt_rand(KR_C64, 3, xd, 0), *x2 = nt_rand(KR_C64, 3, xd, 0);
    kr_solve_opts so;
    kr_solve_opts_default(&so);
    so.max_iter = 5;
    so.tol = 0;
    kr_solve_info info[5];
    KT_OK(kr_cgsense_solve_slices(c1, 2, N, C, S, t, maps, ks, NULL, &so, x1, NULL));
    KT_OK(kr_cgsense_solve_slices(cd, 2, N, C, S, t, maps, ks, NULL, &so, x2, info));
    KT_CHECK_MSG(same(x1, x2), "rank %d: distributed CG-SENSE slices differ", rank);
    KT_CHECK(info[4].iterations == 5);
    kr_array_destroy(maps), kr_array_destroy(ks), kr_array_destroy(x1), kr_array_destroy(x2);
    kr_array_destroy(t), kr_array_destroy(k), kr_array_destroy(i1), kr_array_destroy(idd);
    kr_ctx_destroy(c1), kr_ctx_destroy(cd);
}

static void test_bloch(void)
{
    kr_seq_cart_opts o;
    kr_seq_cart_opts_default(&o);
    o.nx = 12, o.ny = 10, o.te_ms = 5, o.tr_ms = 20;
    kr_seq *seq = NULL;
    KT_OK(kr_seq_gre(&seq, &o));
    const int64_t n = 5000;
    kr_iso *iso = NULL, *f[2] = {NULL, NULL};
    KT_OK(kr_iso_create(&iso, n));
    for (int k = 0; k < 2; k++) KT_OK(kr_iso_create(&f[k], n));
    for (int64_t i = 0; i < n; i++) {
        iso->x_mm[i] = (float)(100 * kri_rand_sym(1, (uint64_t)i));
        iso->y_mm[i] = (float)(100 * kri_rand_sym(2, (uint64_t)i));
        iso->t1_ms[i] = 700, iso->t2_ms[i] = 60, iso->m0[i] = 1;
    }
    KT_OK(kr_iso_equilibrium(iso));
    int64_t kd[1] = {120};
    kr_array *k[2];
    for (int j = 0; j < 2; j++) {
        kr_ctx *c = j ? mkctx(1, 2) : mkctx(0, 1);
        k[j] = nt_rand(KR_C64, 1, kd, 0);
        kr_sim_plan *p = NULL;
        KT_OK(kr_sim_plan_create(&p, c, seq, NULL));
        KT_OK(kr_sim_set_object(p, iso, NULL));
        KT_OK(kr_sim_execute(p, k[j]));
        KT_OK(kr_sim_get_state(p, f[j]));
        kr_sim_plan_destroy(p);
        kr_ctx_destroy(c);
    }
    KT_CHECK_MSG(same(k[0], k[1]), "rank %d: distributed Bloch differs", rank);
    KT_CHECK(!memcmp(f[0]->my, f[1]->my, (size_t)n * 4));
    kr_array_destroy(k[0]), kr_array_destroy(k[1]);
    kr_iso_destroy(iso), kr_iso_destroy(f[0]), kr_iso_destroy(f[1]);
    kr_seq_destroy(seq);
}

/* One process fails: every process gets its status and sentence. */
static void test_agree(void)
{
    kr_status s = rank == size - 1 ? kri_fail(KR_ERR_GEOMETRY, "the last process refuses") : KR_OK;
    s = kr_dist_agree(s);
    KT_CHECK(s == KR_ERR_GEOMETRY);
    KT_CHECK(strstr(kr_last_error(), "the last process refuses") != NULL);
    KT_OK(kr_dist_agree(KR_OK));
    int64_t v[3] = {rank, 10 + rank, 0};
    KT_OK(kr_dist_bcast(v, sizeof v, 0));
    KT_CHECK(v[0] == 0 && v[1] == 10);
    /* gather: rank r's value to slot r at the root */
    int64_t all[64], off[64], cnt[64], mine = 100 + rank;
    for (int r = 0; r < size && r < 64; r++) off[r] = 8 * r, cnt[r] = 8, all[r] = -1;
    KT_OK(kr_dist_gather(&mine, all, off, cnt, 0));
    for (int r = 0; rank == 0 && r < size && r < 64; r++) KT_CHECK(all[r] == 100 + r);
}

int main(int argc, char **argv)
{
    kr_status s = kr_dist_init(&argc, &argv);
    if (s != KR_OK) {
        fprintf(stderr, "%s\n", kr_last_error());
        return 77; /* launched under MPI by a kray without its plugin */
    }
    rank = kr_dist_rank();
    size = kr_dist_size();
    if (rank == 0) printf("%d process%s\n", size, size == 1 ? "" : "es");
    KT_RUN(test_ct);
    KT_RUN(test_mri);
    KT_RUN(test_bloch);
    KT_RUN(test_agree);
    int r = kt_finish();
    kr_dist_finalize();
    return r;
}
