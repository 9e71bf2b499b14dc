/* MRI work divided over a context's device list, on the CPU (its parts): the NUFFT's batch
 * members (and so CG-SENSE's coils), CG-SENSE's slices and the Bloch simulator's isochromats,
 * each against the undivided result, bit for bit. */
#include "kray/cgsense.h"
#include "kray/sense.h"
#include "kray/sim.h"
#include "nufft_test_util.h"

static kr_ctx *mkctx(int nparts) { return kt_cpu_parts(nparts); }

/* forward and adjoint of a batch-B plan on ctx */
static void nufft_pair(const kr_ctx *c, int ndim, const int64_t *N, int64_t B, kr_dtype dt,
                       const kr_array *traj, const kr_array *img, const kr_array *ksp,
                       kr_array *fy, kr_array *ax)
{
    kr_nufft_opts o;
    kr_nufft_opts_default(&o);
    o.batch = B;
    o.dtype = dt;
    o.eps = dt == KR_C64 ? 1e-4 : 1e-9;
    kr_nufft_plan *p = NULL;
    KT_OK(kr_nufft_plan_create(&p, c, ndim, N, &o));
    KT_OK(kr_nufft_set_points(p, traj));
    KT_OK(kr_nufft_forward(p, img, fy));
    KT_OK(kr_nufft_adjoint(p, ksp, ax));
    KT_OK(kr_nufft_adjoint(p, ksp, ax));
    kr_nufft_plan_destroy(p);
}

static void check_nufft(int ndim, int nparts, int64_t B, kr_dtype dt)
{
    int64_t N[3] = {24, 20, ndim == 3 ? 12 : 1};
    const int64_t M = 700;
    kr_array *t = nt_traj(ndim, N, M, 11);
    int64_t id[4] = {N[0], N[1], ndim == 3 ? N[2] : B, B}, kd[2] = {M, B};
    kr_array *img = nt_rand(dt, ndim + 1, id, 5), *ksp = nt_rand(dt, 2, kd, 6);
    kr_array *y1 = nt_rand(dt, 2, kd, 0), *yn = nt_rand(dt, 2, kd, 0);
    kr_array *x1 = nt_rand(dt, ndim + 1, id, 0), *xn = nt_rand(dt, ndim + 1, id, 0);
    kr_ctx *c1 = mkctx(1), *cn = mkctx(nparts);
    nufft_pair(c1, ndim, N, B, dt, t, img, ksp, y1, x1);
    nufft_pair(cn, ndim, N, B, dt, t, img, ksp, yn, xn);
    KT_CHECK_MSG(kt_same_bits(y1, yn), "NUFFT forward %dD, %lld members over %d parts differs", ndim,
                 (long long)B, nparts);
    KT_CHECK_MSG(kt_same_bits(x1, xn), "NUFFT adjoint %dD, %lld members over %d parts differs", ndim,
                 (long long)B, nparts);
    kr_array_destroy(t), kr_array_destroy(img), kr_array_destroy(ksp);
    kr_array_destroy(y1), kr_array_destroy(yn), kr_array_destroy(x1), kr_array_destroy(xn);
    kr_ctx_destroy(c1), kr_ctx_destroy(cn);
}

static void test_nufft(void)
{
    check_nufft(2, 2, 5, KR_C64);
    check_nufft(2, 3, 7, KR_C128);
    check_nufft(3, 3, 4, KR_C64);
    check_nufft(2, 4, 2, KR_C64); /* more parts than members: two idle */
}

/* A non-finite member is named by its place in the whole batch. */
static void test_nufft_bad(void)
{
    int64_t N[3] = {16, 16, 1};
    kr_array *t = nt_traj(2, N, 300, 3);
    int64_t kd[2] = {300, 6}, id[3] = {16, 16, 6};
    kr_array *ksp = nt_rand(KR_C64, 2, kd, 6), *img = nt_rand(KR_C64, 3, id, 0);
    ((float *)ksp->data)[2 * (4 * 300 + 17)] = NAN;
    kr_ctx *c = mkctx(3);
    kr_nufft_opts o;
    kr_nufft_opts_default(&o);
    o.batch = 6;
    kr_nufft_plan *p = NULL;
    KT_OK(kr_nufft_plan_create(&p, c, 2, N, &o));
    KT_OK(kr_nufft_set_points(p, t));
    KT_STATUS(kr_nufft_adjoint(p, ksp, img), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "sample 17 of batch member 4") != NULL);
    ((float *)t->data)[3 * 250] = 100.f; /* out of range: the first bad point is named */
    KT_STATUS(kr_nufft_set_points(p, t), KR_ERR_GEOMETRY);
    KT_CHECK(strstr(kr_last_error(), "250") != NULL);
    kr_nufft_plan_destroy(p);
    kr_array_destroy(t), kr_array_destroy(ksp), kr_array_destroy(img);
    kr_ctx_destroy(c);
}

/* Smooth coil maps of C coils on n x n (Gaussian blobs around the image). */
static kr_array *maps_of(int64_t n, int64_t C, int64_t S)
{
    int64_t d[4] = {n, n, C, S};
    kr_array *m = NULL;
    KT_OK(kr_array_create(&m, KR_C64, 4, d, KR_HOST, NULL));
    float *z = m->data;
    for (int64_t s = 0; s < S; s++)
        for (int64_t c = 0; c < C; c++) {
            double a = 2 * M_PI * (double)c / (double)C + 0.3 * (double)s;
            double cx = 0.5 * n * (1 + 0.8 * cos(a)), cy = 0.5 * n * (1 + 0.8 * sin(a));
            for (int64_t y = 0; y < n; y++)
                for (int64_t x = 0; x < n; x++) {
                    double r2 = ((x - cx) * (x - cx) + (y - cy) * (y - cy)) / (0.5 * n * n);
                    int64_t i = x + n * (y + n * (c + C * s));
                    z[2 * i] = (float)(exp(-r2) * cos(a + 0.01 * x));
                    z[2 * i + 1] = (float)(exp(-r2) * sin(a - 0.02 * y));
                }
        }
    return m;
}

/* CG-SENSE: a plan on a divided context (its NUFFT divided over the coils), and slices
 * solved on 1, 2 and 3 parts, against each slice solved alone. */
static void test_cgsense(void)
{
    const int64_t n = 24, C = 4, S = 3, M = 900;
    int64_t N[3] = {n, n, 1};
    kr_array *t = nt_traj(2, N, M, 21);
    kr_array *maps = maps_of(n, C, S);
    int64_t kd[3] = {M, C, S}, xd[3] = {n, n, S};
    kr_array *ksp = nt_rand(KR_C64, 3, kd, 9);
    kr_solve_opts so;
    kr_solve_opts_default(&so);
    so.max_iter = 8;
    so.tol = 0;
    kr_cgsense_opts co;
    kr_cgsense_opts_default(&co);
    /* slice by slice, undivided */
    kr_array *ref = nt_rand(KR_C64, 3, xd, 0);
    kr_ctx *c1 = mkctx(1);
    for (int64_t s = 0; s < S; s++) {
        int64_t md[3] = {n, n, C}, k2[2] = {M, C}, x2[2] = {n, n};
        kr_array mv, kv, xv;
        KT_OK(kr_array_wrap(&mv, KR_C64, 3, md, (float *)maps->data + 2 * s * n * n * C, KR_HOST));
        KT_OK(kr_array_wrap(&kv, KR_C64, 2, k2, (float *)ksp->data + 2 * s * M * C, KR_HOST));
        KT_OK(kr_array_wrap(&xv, KR_C64, 2, x2, (float *)ref->data + 2 * s * n * n, KR_HOST));
        kr_cgsense_plan *p = NULL;
        KT_OK(kr_cgsense_plan_create(&p, c1, 2, N, t, &mv, &co));
        KT_OK(kr_cgsense_solve(p, &kv, &xv, &so, NULL));
        kr_cgsense_plan_destroy(p);
        if (s == 0) { /* the same slice on a context of 3 parts: the coils divided */
            kr_ctx *c3 = mkctx(3);
            kr_array *x3 = nt_rand(KR_C64, 2, x2, 0);
            KT_OK(kr_cgsense_plan_create(&p, c3, 2, N, t, &mv, &co));
            KT_OK(kr_cgsense_solve(p, &kv, x3, &so, NULL));
            KT_CHECK_MSG(!memcmp(x3->data, xv.data, kr_array_bytes(x3)),
                         "CG-SENSE with its coils divided differs");
            kr_cgsense_plan_destroy(p);
            kr_array_destroy(x3);
            kr_ctx_destroy(c3);
        }
    }
    for (int parts = 1; parts <= 3; parts++) {
        kr_ctx *c = mkctx(parts);
        kr_array *x = nt_rand(KR_C64, 3, xd, 0);
        kr_solve_info info[3];
        KT_OK(kr_cgsense_solve_slices(c, 2, N, C, S, t, maps, ksp, &co, &so, x, info));
        KT_CHECK_MSG(kt_same_bits(x, ref), "slices over %d parts differ from one at a time", parts);
        KT_CHECK(info[2].iterations == 8);
        /* shared maps: every slice with slice 0's maps */
        int64_t md[3] = {n, n, C};
        kr_array m0;
        KT_OK(kr_array_wrap(&m0, KR_C64, 3, md, maps->data, KR_HOST));
        KT_OK(kr_cgsense_solve_slices(c, 2, N, C, S, t, &m0, ksp, &co, &so, x, NULL));
        KT_CHECK(!memcmp(x->data, ref->data, (size_t)(n * n) * 8)); /* slice 0 */
        KT_STATUS(kr_cgsense_solve_slices(c, 2, N, C + 1, S, t, maps, ksp, &co, &so, x, NULL),
                  KR_ERR_DIM);
        kr_array_destroy(x);
        kr_ctx_destroy(c);
    }
    /* a failing slice stops the call, named */
    ((float *)ksp->data)[2 * (2 * M * C + 5)] = NAN;
    kr_ctx *c2 = mkctx(2);
    kr_array *x = nt_rand(KR_C64, 3, xd, 0);
    KT_STATUS(kr_cgsense_solve_slices(c2, 2, N, C, S, t, maps, ksp, &co, &so, x, NULL),
              KR_ERR_INVALID_ARG);
    KT_CHECK(strncmp(kr_last_error(), "slice 2: ", 9) == 0);
    kr_array_destroy(x);
    kr_ctx_destroy(c2);
    kr_ctx_destroy(c1);
    kr_array_destroy(t), kr_array_destroy(maps), kr_array_destroy(ksp), kr_array_destroy(ref);
}

/* Cartesian SENSE of several slices (R = 2, g-factor): over 1 to 3 parts the same images and
 * g-factors, bit for bit, as one plan per slice; shared maps; wrong sizes refused. */
static void test_sense(void)
{
    const int64_t n = 16, C = 4, S = 3;
    kr_array *maps = maps_of(n, C, S);
    int64_t kd[4] = {n, n, C, S}, xd[3] = {n, n, S};
    kr_array *ksp = nt_rand(KR_C64, 4, kd, 5);
    kr_sense_opts o;
    kr_sense_opts_default(&o);
    o.accel = 2;
    o.lambda = 1e-3;
    kr_array *ref = nt_rand(KR_C64, 3, xd, 0), *gref = NULL;
    KT_OK(kr_array_create(&gref, KR_F32, 3, xd, KR_HOST, NULL));
    kr_ctx *c1 = mkctx(1);
    for (int64_t s = 0; s < S; s++) {
        int64_t md[3] = {n, n, C}, x2[2] = {n, n};
        kr_array mv, kv, xv, gv;
        KT_OK(kr_array_wrap(&mv, KR_C64, 3, md, (float *)maps->data + 2 * s * n * n * C, KR_HOST));
        KT_OK(kr_array_wrap(&kv, KR_C64, 3, md, (float *)ksp->data + 2 * s * n * n * C, KR_HOST));
        KT_OK(kr_array_wrap(&xv, KR_C64, 2, x2, (float *)ref->data + 2 * s * n * n, KR_HOST));
        KT_OK(kr_array_wrap(&gv, KR_F32, 2, x2, (float *)gref->data + s * n * n, KR_HOST));
        kr_sense_plan *p = NULL;
        KT_OK(kr_sense_plan_create(&p, c1, &mv, &o));
        KT_OK(kr_sense_execute(p, &kv, &xv, &gv));
        kr_sense_plan_destroy(p);
    }
    for (int parts = 1; parts <= 3; parts++) {
        kr_ctx *c = mkctx(parts);
        kr_array *x = nt_rand(KR_C64, 3, xd, 0), *g = NULL;
        KT_OK(kr_array_create(&g, KR_F32, 3, xd, KR_HOST, NULL));
        KT_OK(kr_sense_execute_slices(c, maps, S, &o, ksp, x, g));
        KT_CHECK_MSG(kt_same_bits(x, ref) && kt_same_bits(g, gref), "SENSE slices over %d parts differ", parts);
        int64_t md[3] = {n, n, C};
        kr_array m0;
        KT_OK(kr_array_wrap(&m0, KR_C64, 3, md, maps->data, KR_HOST));
        KT_OK(kr_sense_execute_slices(c, &m0, S, &o, ksp, x, NULL));
        KT_CHECK(!memcmp(x->data, ref->data, (size_t)(n * n) * 8)); /* slice 0 */
        KT_STATUS(kr_sense_execute_slices(c, maps, S + 1, &o, ksp, x, NULL), KR_ERR_DIM);
        KT_STATUS(kr_sense_execute_slices(c, maps, 0, &o, ksp, x, NULL), KR_ERR_DIM);
        kr_array_destroy(x), kr_array_destroy(g);
        kr_ctx_destroy(c);
    }
    kr_ctx_destroy(c1);
    kr_array_destroy(maps), kr_array_destroy(ksp), kr_array_destroy(ref), kr_array_destroy(gref);
}

/* The Bloch simulator: isochromats over 1 and 3 parts (one part idle for a tiny object), with
 * and without coil weights: the same k-space and final state bit for bit. */
static void sim_run(const kr_ctx *c, const kr_seq *seq, const kr_iso *iso, const kr_array *sens,
                    kr_array *k, kr_iso *fin)
{
    kr_sim_plan *p = NULL;
    KT_OK(kr_sim_plan_create(&p, c, seq, NULL));
    KT_OK(kr_sim_set_object(p, iso, sens));
    KT_OK(kr_sim_execute(p, k));
    KT_OK(kr_sim_execute(p, k)); /* again from the initial state */
    KT_OK(kr_sim_get_state(p, fin));
    kr_sim_plan_destroy(p);
}

static void test_bloch(void)
{
    kr_seq_cart_opts o;
    kr_seq_cart_opts_default(&o);
    o.nx = 16, o.ny = 12, o.te_ms = 5, o.tr_ms = 20, o.flip_deg = 30;
    kr_seq *seq = NULL;
    KT_OK(kr_seq_gre(&seq, &o));
    const int64_t n = 3000, C = 3;
    kr_iso *iso = NULL, *f1 = NULL, *f3 = NULL;
    KT_OK(kr_iso_create(&iso, n));
    KT_OK(kr_iso_create(&f1, n));
    KT_OK(kr_iso_create(&f3, n));
    for (int64_t i = 0; i < n; i++) {
        iso->x_mm[i] = (float)(120 * kri_rand_sym(1, (uint64_t)i));
        iso->y_mm[i] = (float)(120 * kri_rand_sym(2, (uint64_t)i));
        iso->df_hz[i] = (float)(20 * kri_rand_sym(3, (uint64_t)i));
        iso->t1_ms[i] = 800, iso->t2_ms[i] = 80;
        iso->m0[i] = (float)(0.5 + 0.5 * kri_rand_sym(4, (uint64_t)i));
    }
    KT_OK(kr_iso_equilibrium(iso));
    int64_t sd[2] = {n, C}, kd[2] = {16 * 12, C};
    kr_array *sens = nt_rand(KR_C64, 2, sd, 7);
    for (int coils = 0; coils <= 1; coils++) {
        kr_array *k1 = nt_rand(KR_C64, 2, kd, 0), *k3 = nt_rand(KR_C64, 2, kd, 0);
        if (!coils) k1->ndim = k3->ndim = 1, k1->dims[1] = k3->dims[1] = 1;
        kr_ctx *c1 = mkctx(1), *c3 = mkctx(3);
        sim_run(c1, seq, iso, coils ? sens : NULL, k1, f1);
        sim_run(c3, seq, iso, coils ? sens : NULL, k3, f3);
        KT_CHECK_MSG(kt_same_bits(k1, k3), "Bloch k-space over 3 parts differs (coils %d)", coils);
        KT_CHECK(!memcmp(f1->mx, f3->mx, (size_t)n * 4) && !memcmp(f1->mz, f3->mz, (size_t)n * 4));
        kr_array_destroy(k1), kr_array_destroy(k3);
        kr_ctx_destroy(c1), kr_ctx_destroy(c3);
    }
    kr_iso_destroy(iso), kr_iso_destroy(f1), kr_iso_destroy(f3);
    kr_array_destroy(sens);
    kr_seq_destroy(seq);
}

int main(void)
{
    KT_RUN(test_nufft);
    KT_RUN(test_nufft_bad);
    KT_RUN(test_cgsense);
    KT_RUN(test_sense);
    KT_RUN(test_bloch);
    return kt_finish();
}
