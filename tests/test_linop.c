/* Operators: dense matrix against direct sums, combinators against composed direct sums,
 * dot-product adjoint test (passes for every kray operator, fails for wrong adjoints),
 * default/custom normals, reference counting, concurrent scratch use, dumb inputs. */
#include "internal.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>

static kr_ctx *g_ctx;
static const kr_dtype kDT[4] = {KR_F32, KR_F64, KR_C64, KR_C128};

static int is_single(kr_dtype t) { return t == KR_F32 || t == KR_C64; }
static double adj_tol(kr_dtype t) { return is_single(t) ? 1e-6 : 1e-12; }

/* count elements of dtype t with scalars kri_rand_sym(seed, k). */
static void *rand_buf(kr_dtype t, int64_t count, uint64_t seed)
{
    int64_t ns = count * (kr_dtype_is_complex(t) ? 2 : 1);
    void *p = malloc((size_t)count * kr_dtype_size(t));
    for (int64_t k = 0; k < ns; k++) {
        double v = kri_rand_sym(seed, (uint64_t)k);
        if (is_single(t))
            ((float *)p)[k] = (float)v;
        else
            ((double *)p)[k] = v;
    }
    return p;
}

static void get_c(const void *p, kr_dtype t, int64_t i, double *re, double *im)
{
    int c = kr_dtype_is_complex(t);
    int64_t k = c ? 2 * i : i;
    if (is_single(t)) {
        *re = ((const float *)p)[k];
        *im = c ? ((const float *)p)[k + 1] : 0.0;
    } else {
        *re = ((const double *)p)[k];
        *im = c ? ((const double *)p)[k + 1] : 0.0;
    }
}

/* Direct sum in double: out = M v (adj 0) or M^H v (adj 1), M m x n row-major. */
static void ref_matvec(kr_dtype t, int64_t m, int64_t n, const void *M, const double *vr,
                       const double *vi, int adj, double *or_, double *oi)
{
    int64_t nout = adj ? n : m, nin = adj ? m : n;
    for (int64_t o = 0; o < nout; o++) {
        double sr = 0, si = 0;
        for (int64_t k = 0; k < nin; k++) {
            double mr, mi;
            get_c(M, t, adj ? k * n + o : o * n + k, &mr, &mi);
            if (adj) mi = -mi;
            sr += mr * vr[k] - mi * vi[k];
            si += mr * vi[k] + mi * vr[k];
        }
        or_[o] = sr;
        oi[o] = si;
    }
}

static void arr_to_c(const kr_array *a, double *re, double *im)
{
    for (int64_t i = 0; i < kr_array_numel(a); i++) get_c(a->data, a->dtype, i, &re[i], &im[i]);
}

/* max |a - ref| / max |ref| over n complex values */
static double rel_diff(const kr_array *a, const double *rr, const double *ri)
{
    double md = 0, mr = 0;
    for (int64_t i = 0; i < kr_array_numel(a); i++) {
        double re, im;
        get_c(a->data, a->dtype, i, &re, &im);
        md = fmax(md, hypot(re - rr[i], im - ri[i]));
        mr = fmax(mr, hypot(rr[i], ri[i]));
    }
    return mr > 0 ? md / mr : md;
}

static kr_array *vec(kr_dtype t, int64_t n, uint64_t seed)
{
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, t, 1, &n, KR_HOST, NULL));
    if (seed) KT_OK(kr_vec_random(g_ctx, a, seed));
    return a;
}

static kr_linop *mat(kr_dtype t, int64_t m, int64_t n, uint64_t seed, void **keep)
{
    void *M = rand_buf(t, m * n, seed);
    kr_linop *op = NULL;
    KT_OK(kr_linop_matrix(&op, g_ctx, t, m, n, M, KR_HOST));
    if (keep)
        *keep = M;
    else
        free(M);
    return op;
}

/* ---- matrix operator against direct sums ---------------------------------------------------- */
static void test_matrix_values(void)
{
    for (int d = 0; d < 4; d++) {
        kr_dtype t = kDT[d];
        void *M;
        kr_linop *A = mat(t, 6, 4, 11, &M);
        kr_array *x = vec(t, 4, 21), *y = vec(t, 6, 0), *yy = vec(t, 6, 22), *xx = vec(t, 4, 0);
        double vr[6], vi[6], rr[6], ri[6];
        KT_OK(kr_linop_forward(A, x, y));
        arr_to_c(x, vr, vi);
        ref_matvec(t, 6, 4, M, vr, vi, 0, rr, ri);
        KT_LE(rel_diff(y, rr, ri), is_single(t) ? 2e-7 : 1e-15);
        KT_OK(kr_linop_adjoint(A, yy, xx));
        arr_to_c(yy, vr, vi);
        ref_matvec(t, 6, 4, M, vr, vi, 1, rr, ri);
        KT_LE(rel_diff(xx, rr, ri), is_single(t) ? 2e-7 : 1e-15);
        int64_t dims[KR_MAX_DIMS];
        KT_CHECK(kr_linop_in_dims(A, dims) == 1 && dims[0] == 4);
        KT_CHECK(kr_linop_out_dims(A, dims) == 1 && dims[0] == 6);
        KT_CHECK(kr_linop_dtype(A) == t && kr_linop_loc(A) == KR_HOST);
        KT_CHECK(strcmp(kr_linop_name(A), "matrix") == 0);
        kr_array_destroy(x), kr_array_destroy(y), kr_array_destroy(yy), kr_array_destroy(xx);
        kr_linop_destroy(A);
        free(M);
    }
}

/* ---- combinators against composed direct sums (c128 and f32) -------------------------------- */
static void check_combinators(kr_dtype t)
{
    const double tol = is_single(t) ? 2e-6 : 1e-14;
    void *MA, *MB, *MC;
    kr_linop *A = mat(t, 7, 5, 1, &MA), *B = mat(t, 7, 5, 2, &MB), *C = mat(t, 4, 7, 3, &MC);
    kr_array *x = vec(t, 5, 31);
    double xr[5], xi[5], ar[7], ai[7], br[7], bi[7], cr[14], ci[14];
    arr_to_c(x, xr, xi);
    ref_matvec(t, 7, 5, MA, xr, xi, 0, ar, ai);
    ref_matvec(t, 7, 5, MB, xr, xi, 0, br, bi);

    /* chain: C (A x) */
    kr_linop *ch = NULL;
    KT_OK(kr_linop_chain(&ch, A, C));
    kr_array *y4 = vec(t, 4, 0);
    KT_OK(kr_linop_forward(ch, x, y4));
    ref_matvec(t, 4, 7, MC, ar, ai, 0, cr, ci);
    KT_LE(rel_diff(y4, cr, ci), tol);
    KT_CHECK(strcmp(kr_linop_name(ch), "chain(matrix, matrix)") == 0);
    /* chain adjoint: A^H (C^H y) */
    kr_array *y4r = vec(t, 4, 32), *x5 = vec(t, 5, 0);
    double yr[14], yi[14], tr[7], ti[7], or_[7], oi[7];
    arr_to_c(y4r, yr, yi);
    KT_OK(kr_linop_adjoint(ch, y4r, x5));
    ref_matvec(t, 4, 7, MC, yr, yi, 1, tr, ti);
    ref_matvec(t, 7, 5, MA, tr, ti, 1, or_, oi);
    KT_LE(rel_diff(x5, or_, oi), tol);

    /* stack: [A x ; B x], adjoint A^H y1 + B^H y2 */
    kr_linop *st = NULL;
    KT_OK(kr_linop_stack(&st, A, B));
    int64_t dims[KR_MAX_DIMS];
    KT_CHECK(kr_linop_out_dims(st, dims) == 1 && dims[0] == 14);
    kr_array *y14 = vec(t, 14, 0);
    KT_OK(kr_linop_forward(st, x, y14));
    for (int i = 0; i < 7; i++) cr[i] = ar[i], ci[i] = ai[i], cr[7 + i] = br[i], ci[7 + i] = bi[i];
    KT_LE(rel_diff(y14, cr, ci), tol);
    kr_array *y14r = vec(t, 14, 33);
    arr_to_c(y14r, yr, yi);
    KT_OK(kr_linop_adjoint(st, y14r, x5));
    ref_matvec(t, 7, 5, MA, yr, yi, 1, or_, oi);
    ref_matvec(t, 7, 5, MB, yr + 7, yi + 7, 1, tr, ti);
    for (int i = 0; i < 5; i++) or_[i] += tr[i], oi[i] += ti[i];
    KT_LE(rel_diff(x5, or_, oi), tol);

    /* sum: (A + B) x */
    kr_linop *sm = NULL;
    KT_OK(kr_linop_sum(&sm, A, B));
    kr_array *y7 = vec(t, 7, 0);
    KT_OK(kr_linop_forward(sm, x, y7));
    for (int i = 0; i < 7; i++) cr[i] = ar[i] + br[i], ci[i] = ai[i] + bi[i];
    KT_LE(rel_diff(y7, cr, ci), tol);

    /* scale: a A x, adjoint conj(a) A^H y */
    double sre = 2.5, sim = kr_dtype_is_complex(t) ? -0.75 : 0.0;
    kr_linop *sc = NULL;
    KT_OK(kr_linop_scale(&sc, A, sre, sim));
    KT_OK(kr_linop_forward(sc, x, y7));
    for (int i = 0; i < 7; i++) cr[i] = sre * ar[i] - sim * ai[i], ci[i] = sre * ai[i] + sim * ar[i];
    KT_LE(rel_diff(y7, cr, ci), tol);
    kr_array *y7r = vec(t, 7, 34);
    arr_to_c(y7r, yr, yi);
    KT_OK(kr_linop_adjoint(sc, y7r, x5));
    ref_matvec(t, 7, 5, MA, yr, yi, 1, or_, oi);
    for (int i = 0; i < 5; i++) {
        double r = or_[i], im = oi[i];
        or_[i] = sre * r + sim * im, oi[i] = sre * im - sim * r;
    }
    KT_LE(rel_diff(x5, or_, oi), tol);

    /* normal of the scaled operator: |a|^2 A^H A x; normal_op gives the same */
    KT_OK(kr_linop_normal(sc, x, x5));
    ref_matvec(t, 7, 5, MA, ar, ai, 1, or_, oi);
    for (int i = 0; i < 5; i++) or_[i] *= sre * sre + sim * sim, oi[i] *= sre * sre + sim * sim;
    KT_LE(rel_diff(x5, or_, oi), tol);
    kr_linop *no = NULL;
    KT_OK(kr_linop_normal_op(&no, A));
    KT_OK(kr_linop_forward(no, x, x5));
    ref_matvec(t, 7, 5, MA, ar, ai, 1, or_, oi);
    KT_LE(rel_diff(x5, or_, oi), tol);
    /* stack normal = A^H A x + B^H B x */
    KT_OK(kr_linop_normal(st, x, x5));
    ref_matvec(t, 7, 5, MB, br, bi, 1, tr, ti);
    for (int i = 0; i < 5; i++) or_[i] += tr[i], oi[i] += ti[i];
    KT_LE(rel_diff(x5, or_, oi), tol);

    /* identity copies exactly */
    kr_linop *id = NULL;
    int64_t five = 5;
    KT_OK(kr_linop_identity(&id, g_ctx, t, 1, &five, KR_HOST));
    KT_OK(kr_linop_forward(id, x, x5));
    KT_CHECK(memcmp(x->data, x5->data, kr_array_bytes(x)) == 0);

    kr_array_destroy(x), kr_array_destroy(y4), kr_array_destroy(y4r), kr_array_destroy(x5);
    kr_array_destroy(y14), kr_array_destroy(y14r), kr_array_destroy(y7), kr_array_destroy(y7r);
    kr_linop_destroy(ch), kr_linop_destroy(st), kr_linop_destroy(sm), kr_linop_destroy(sc);
    kr_linop_destroy(no), kr_linop_destroy(id);
    kr_linop_destroy(A), kr_linop_destroy(B), kr_linop_destroy(C);
    free(MA), free(MB), free(MC);
}

static void test_combinator_values(void)
{
    for (int d = 0; d < 4; d++) check_combinators(kDT[d]);
}

/* ---- adjoint test on every operator kind ----------------------------------------------------- */
static void test_adjoint_all(void)
{
    for (int d = 0; d < 4; d++) {
        kr_dtype t = kDT[d];
        kr_linop *A = mat(t, 17, 11, 1, NULL), *B = mat(t, 17, 11, 2, NULL);
        kr_linop *C = mat(t, 9, 17, 3, NULL), *ops[10] = {0};
        int64_t dims[3] = {11, 1, 1};
        ops[0] = A;
        KT_OK(kr_linop_chain(&ops[1], A, C));
        KT_OK(kr_linop_stack(&ops[2], A, B));
        KT_OK(kr_linop_sum(&ops[3], A, B));
        KT_OK(kr_linop_scale(&ops[4], A, -1.5, kr_dtype_is_complex(t) ? 0.5 : 0.0));
        KT_OK(kr_linop_identity(&ops[5], g_ctx, t, 3, dims, KR_HOST));
        KT_OK(kr_linop_normal_op(&ops[6], A));
        KT_OK(kr_linop_chain(&ops[7], ops[4], C));
        KT_OK(kr_linop_stack(&ops[8], ops[1], ops[7]));      /* nested: 11 -> 18 */
        KT_OK(kr_linop_sum(&ops[9], ops[5], ops[6]));        /* I + A^H A */
        double worst = 0;
        for (int i = 0; i < 10; i++) {
            double rel = -1;
            KT_OK(kr_linop_adjoint_test(ops[i], 1234 + (uint64_t)i, &rel));
            KT_LE(rel, adj_tol(t));
            KT_GE(rel, 0.0);
            worst = fmax(worst, rel);
        }
        printf("  adjoint test %-4s: worst relative error %.2e over 10 operators\n",
               kr_dtype_name(t), worst);
        for (int i = 1; i < 10; i++) kr_linop_destroy(ops[i]);
        kr_linop_destroy(A), kr_linop_destroy(B), kr_linop_destroy(C);
    }
}

/* ---- deliberately wrong adjoints must fail the test ------------------------------------------ */
typedef struct {
    kr_linop *good, *other;
    int mode; /* 0: adjoint of another matrix; 1: adjoint scaled by 1.001; 2: transpose (no conj) */
} wrong_t;

static kr_status wrong_fwd(void *data, const kr_array *in, kr_array *out)
{
    return kr_linop_forward(((wrong_t *)data)->good, in, out);
}

static void conj_host(kr_array *a)
{
    int64_t n = kr_array_numel(a);
    for (int64_t i = 0; i < n; i++) {
        if (a->dtype == KR_C64) ((float *)a->data)[2 * i + 1] *= -1.0f;
        if (a->dtype == KR_C128) ((double *)a->data)[2 * i + 1] *= -1.0;
    }
}

static kr_status wrong_adj(void *data, const kr_array *in, kr_array *out)
{
    wrong_t *w = data;
    if (w->mode == 0) return kr_linop_adjoint(w->other, in, out);
    if (w->mode == 1) {
        KRI_TRY(kr_linop_adjoint(w->good, in, out));
        return kr_vec_scale(g_ctx, out, 1.001, 0.0);
    }
    kr_array *c = NULL; /* M^T y = conj(M^H conj(y)) */
    KRI_TRY(kr_array_clone(&c, in, KR_HOST, NULL));
    conj_host(c);
    kr_status s = kr_linop_adjoint(w->good, c, out);
    conj_host(out);
    kr_array_destroy(c);
    return s;
}

static void test_adjoint_detects_wrong(void)
{
    for (int d = 0; d < 4; d++) {
        kr_dtype t = kDT[d];
        wrong_t w = {mat(t, 8, 6, 5, NULL), mat(t, 8, 6, 6, NULL), 0};
        kr_linop_def def;
        memset(&def, 0, sizeof def);
        def.name = "wrong";
        def.dtype = t;
        def.in_ndim = def.out_ndim = 1;
        def.in_dims[0] = 6;
        def.out_dims[0] = 8;
        def.forward = wrong_fwd;
        def.adjoint = wrong_adj;
        def.data = &w;
        for (w.mode = 0; w.mode < 3; w.mode++) {
            if (w.mode == 2 && !kr_dtype_is_complex(t)) continue; /* transpose is right for real */
            kr_linop *op = NULL;
            KT_OK(kr_linop_create(&op, g_ctx, &def));
            double rel = 0;
            KT_OK(kr_linop_adjoint_test(op, 77, &rel));
            if (w.mode == 1) {
                KT_GE(rel, 1e-4); /* a 0.1 % error is far above the 1e-6 / 1e-12 pass level */
                KT_LE(rel, 1e-2);
            } else {
                KT_GE(rel, 0.05);
            }
            kr_linop_destroy(op);
        }
        kr_linop_destroy(w.good), kr_linop_destroy(w.other);
    }
}

/* ---- normals, custom callbacks, errors ------------------------------------------------------- */
typedef struct {
    kr_linop *inner;
    int normals, frees;
    int fail;
} wrap_t;

static kr_status wrap_fwd(void *data, const kr_array *in, kr_array *out)
{
    wrap_t *w = data;
    if (w->fail) return kri_fail(KR_ERR_IO, "disk gone");
    return kr_linop_forward(w->inner, in, out);
}
static kr_status wrap_adj(void *data, const kr_array *in, kr_array *out)
{
    return kr_linop_adjoint(((wrap_t *)data)->inner, in, out);
}
static kr_status wrap_nrm(void *data, const kr_array *in, kr_array *out)
{
    wrap_t *w = data;
    w->normals++;
    return kr_linop_normal(w->inner, in, out);
}
static void wrap_free(void *data) { ((wrap_t *)data)->frees++; }

static kr_linop *wrap(wrap_t *w, const char *name, int with_normal)
{
    kr_linop_def def;
    memset(&def, 0, sizeof def);
    def.name = name;
    def.dtype = kr_linop_dtype(w->inner);
    def.in_ndim = kr_linop_in_dims(w->inner, def.in_dims);
    def.out_ndim = kr_linop_out_dims(w->inner, def.out_dims);
    def.forward = wrap_fwd;
    def.adjoint = wrap_adj;
    def.normal = with_normal ? wrap_nrm : NULL;
    def.destroy = wrap_free;
    def.data = w;
    kr_linop *op = NULL;
    KT_OK(kr_linop_create(&op, g_ctx, &def));
    return op;
}

static void test_normals_and_lifetime(void)
{
    kr_dtype t = KR_C128;
    void *MA, *MC;
    kr_linop *A = mat(t, 9, 6, 41, &MA), *C = mat(t, 5, 9, 42, &MC);
    wrap_t wc = {C, 0, 0, 0};
    kr_linop *Cw = wrap(&wc, "toeplitz-like", 1);
    kr_linop *ch = NULL;
    KT_OK(kr_linop_chain(&ch, A, Cw));
    /* The handles may go before the chain that holds them. */
    kr_linop_destroy(Cw);
    KT_CHECK(wc.frees == 0);
    kr_array *x = vec(t, 6, 43), *z = vec(t, 6, 0);
    KT_OK(kr_linop_normal(ch, x, z)); /* first^H (second's normal) first */
    KT_CHECK(wc.normals == 1);
    double xr[6], xi[6], ar[9], ai[9], cr[9], ci[9], br[9], bi[9], or_[6], oi[6];
    arr_to_c(x, xr, xi);
    ref_matvec(t, 9, 6, MA, xr, xi, 0, ar, ai);
    ref_matvec(t, 5, 9, MC, ar, ai, 0, cr, ci);
    ref_matvec(t, 5, 9, MC, cr, ci, 1, br, bi);
    ref_matvec(t, 9, 6, MA, br, bi, 1, or_, oi);
    KT_LE(rel_diff(z, or_, oi), 1e-14);
    /* Default normal: adjoint(forward(x)), identical arithmetic, repeated use of the scratch. */
    kr_array *z2 = vec(t, 6, 0), *y = vec(t, 9, 0);
    for (int rep = 0; rep < 3; rep++) {
        KT_OK(kr_linop_normal(A, x, z2));
        KT_OK(kr_linop_forward(A, x, y));
        KT_OK(kr_linop_adjoint(A, y, z));
        KT_CHECK(memcmp(z->data, z2->data, kr_array_bytes(z)) == 0);
    }
    /* Errors of user callbacks keep their status and get the operator's name. */
    wrap_t wf = {A, 0, 0, 1};
    kr_linop *flaky = wrap(&wf, "flaky", 0);
    KT_STATUS(kr_linop_forward(flaky, x, y), KR_ERR_IO);
    KT_CHECK(strcmp(kr_last_error(), "operator 'flaky' forward: disk gone") == 0);
    KT_STATUS(kr_linop_normal(flaky, x, z), KR_ERR_IO);
    kr_linop *fs = NULL;
    KT_OK(kr_linop_scale(&fs, flaky, 2.0, 0.0));
    KT_STATUS(kr_linop_forward(fs, x, y), KR_ERR_IO);
    KT_CHECK(strcmp(kr_last_error(), "operator 'flaky' forward: disk gone") == 0);
    /* Retain / destroy: data freed exactly once, by the last reference. */
    KT_OK(kr_linop_retain(flaky));
    kr_linop_destroy(flaky);
    kr_linop_destroy(fs);
    KT_CHECK(wf.frees == 0);
    kr_linop_destroy(flaky);
    KT_CHECK(wf.frees == 1);
    kr_linop_destroy(ch);
    KT_CHECK(wc.frees == 1);
    kr_linop_destroy(NULL);
    kr_array_destroy(x), kr_array_destroy(z), kr_array_destroy(z2), kr_array_destroy(y);
    kr_linop_destroy(A), kr_linop_destroy(C);
    free(MA), free(MC);
}

/* Default normal and combinator scratch used from two threads at once give the serial
 * results (the busy scratch slot is replaced by a temporary). */
static void test_concurrent_apply(void)
{
    kr_dtype t = KR_F64;
    kr_linop *A = mat(t, 30, 20, 51, NULL), *B = mat(t, 30, 20, 52, NULL), *S = NULL;
    KT_OK(kr_linop_sum(&S, A, B));
    enum { N = 48 };
    kr_array *x[N], *z[N], *ref[N];
    for (int i = 0; i < N; i++) {
        x[i] = vec(t, 20, 100 + (uint64_t)i);
        z[i] = vec(t, 20, 0);
        ref[i] = vec(t, 20, 0);
        KT_OK(kr_linop_normal(S, x[i], ref[i]));
    }
    int bad = 0;
#pragma omp parallel for num_threads(2) schedule(static, 1) reduction(+ : bad)
    for (int i = 0; i < N; i++) {
        for (int rep = 0; rep < 20; rep++)
            if (kr_linop_normal(S, x[i], z[i]) != KR_OK ||
                memcmp(z[i]->data, ref[i]->data, kr_array_bytes(z[i])) != 0)
                bad++;
    }
    KT_CHECK(bad == 0);
    for (int i = 0; i < N; i++) kr_array_destroy(x[i]), kr_array_destroy(z[i]), kr_array_destroy(ref[i]);
    kr_linop_destroy(S), kr_linop_destroy(A), kr_linop_destroy(B);
}

/* ---- dumb inputs ------------------------------------------------------------------------------ */
static kr_status nop(void *data, const kr_array *in, kr_array *out)
{
    (void)data;
    return kr_vec_zero(g_ctx, out);
}

static void test_linop_dumb(void)
{
    kr_linop *op = NULL, *A = mat(KR_F32, 4, 3, 1, NULL), *B = mat(KR_F32, 5, 3, 2, NULL);
    kr_linop *D = mat(KR_F64, 4, 3, 3, NULL);
    kr_linop_def def;
    memset(&def, 0, sizeof def);
    def.name = "dumb";
    def.dtype = KR_F32;
    def.in_ndim = def.out_ndim = 1;
    def.in_dims[0] = def.out_dims[0] = 3;
    def.forward = def.adjoint = nop;
    KT_STATUS(kr_linop_create(NULL, g_ctx, &def), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_linop_create(&op, NULL, &def), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_linop_create(&op, g_ctx, NULL), KR_ERR_INVALID_ARG);
    def.dtype = KR_U8;
    KT_STATUS(kr_linop_create(&op, g_ctx, &def), KR_ERR_DTYPE);
    def.dtype = KR_F32;
    def.in_ndim = 0;
    KT_STATUS(kr_linop_create(&op, g_ctx, &def), KR_ERR_DIM);
    def.in_ndim = 1;
    def.out_dims[0] = -2;
    KT_STATUS(kr_linop_create(&op, g_ctx, &def), KR_ERR_DIM);
    def.out_dims[0] = 3;
    def.adjoint = NULL;
    KT_STATUS(kr_linop_create(&op, g_ctx, &def), KR_ERR_INVALID_ARG);
    def.adjoint = nop;
    def.loc = KR_DEVICE; /* device operator with a CPU context */
    KT_STATUS(kr_linop_create(&op, g_ctx, &def), KR_ERR_LOCATION);
    def.loc = (kr_loc)7;
    KT_STATUS(kr_linop_create(&op, g_ctx, &def), KR_ERR_INVALID_ARG);
    KT_CHECK(op == NULL);

    /* application */
    kr_array *x3 = vec(KR_F32, 3, 1), *y4 = vec(KR_F32, 4, 0), *y5 = vec(KR_F32, 5, 0);
    kr_array *d3 = vec(KR_F64, 3, 1), *dev, *y4b = vec(KR_F32, 4, 0);
    KT_STATUS(kr_linop_forward(NULL, x3, y4), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_linop_forward(A, NULL, y4), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_linop_forward(A, x3, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_linop_forward(A, d3, y4), KR_ERR_DTYPE);
    KT_STATUS(kr_linop_forward(A, x3, y5), KR_ERR_DIM);
    KT_CHECK(strstr(kr_last_error(), "output is 5, operator 'matrix' expects output 4") != NULL);
    KT_STATUS(kr_linop_adjoint(A, x3, y4), KR_ERR_DIM); /* swapped */
    KT_STATUS(kr_linop_normal(A, x3, y4), KR_ERR_DIM);
    kr_array fake; /* a device descriptor: must be refused before any access */
    int64_t three = 3;
    float dummy[3];
    KT_OK(kr_array_wrap(&fake, KR_F32, 1, &three, dummy, KR_DEVICE));
    dev = &fake;
    KT_STATUS(kr_linop_forward(A, dev, y4), KR_ERR_LOCATION);
    KT_STATUS(kr_linop_normal(A, x3, dev), KR_ERR_LOCATION);
    kr_array alias = *y4; /* output overlapping the input */
    alias.ndim = 1, alias.dims[0] = 3;
    kr_linop *I3 = NULL;
    KT_OK(kr_linop_identity(&I3, g_ctx, KR_F32, 1, &three, KR_HOST));
    kr_array alias_in = alias;
    KT_STATUS(kr_linop_forward(I3, &alias_in, &alias), KR_ERR_INVALID_ARG);
    kr_array nd = *x3; /* non-contiguous */
    nd.strides[0] = 2;
    kr_array nd2 = nd;
    nd2.ndim = 2, nd2.dims[0] = 3, nd2.dims[1] = 1, nd2.strides[1] = 6;
    KT_STATUS(kr_linop_forward(A, &nd2, y4), KR_ERR_NOT_SUPPORTED);
    kr_array nodata = *x3;
    nodata.data = NULL;
    KT_STATUS(kr_linop_forward(A, &nodata, y4), KR_ERR_INVALID_ARG);
    KT_OK(kr_linop_forward(A, x3, y4b));

    /* combinators */
    KT_STATUS(kr_linop_chain(NULL, A, B), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_linop_chain(&op, NULL, B), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_linop_chain(&op, A, B), KR_ERR_DIM); /* 3->4 then 3->5 */
    KT_CHECK(strstr(kr_last_error(), "output of operator 'matrix' is 4 but input") != NULL);
    KT_STATUS(kr_linop_chain(&op, A, D), KR_ERR_DTYPE);
    KT_STATUS(kr_linop_stack(&op, A, D), KR_ERR_DTYPE);
    KT_STATUS(kr_linop_stack(&op, A, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_linop_sum(&op, A, B), KR_ERR_DIM); /* outputs 4 vs 5 */
    KT_STATUS(kr_linop_sum(&op, A, D), KR_ERR_DTYPE);
    KT_STATUS(kr_linop_scale(&op, A, 1.0, 0.5), KR_ERR_INVALID_ARG); /* complex factor, real op */
    KT_STATUS(kr_linop_scale(&op, A, NAN, 0.0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_linop_scale(&op, NULL, 1.0, 0.0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_linop_normal_op(&op, NULL), KR_ERR_INVALID_ARG);
    kr_linop *A5 = mat(KR_F32, 4, 5, 4, NULL);
    KT_STATUS(kr_linop_stack(&op, A, A5), KR_ERR_DIM); /* inputs 3 vs 5 */
    KT_CHECK(op == NULL);

    /* identity, matrix, adjoint test */
    KT_STATUS(kr_linop_identity(&op, g_ctx, KR_F32, 1, NULL, KR_HOST), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_linop_identity(&op, NULL, KR_F32, 1, &three, KR_HOST), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_linop_identity(&op, g_ctx, KR_F32, 0, &three, KR_HOST), KR_ERR_DIM);
    KT_STATUS(kr_linop_identity(&op, g_ctx, KR_I16, 1, &three, KR_HOST), KR_ERR_DTYPE);
    KT_STATUS(kr_linop_identity(&op, g_ctx, KR_F32, 1, &three, KR_DEVICE), KR_ERR_LOCATION);
    float m6[6] = {0};
    KT_STATUS(kr_linop_matrix(&op, g_ctx, KR_F32, 0, 3, m6, KR_HOST), KR_ERR_DIM);
    KT_STATUS(kr_linop_matrix(&op, g_ctx, KR_F32, 2, -3, m6, KR_HOST), KR_ERR_DIM);
    KT_STATUS(kr_linop_matrix(&op, g_ctx, KR_F32, 2, 3, NULL, KR_HOST), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_linop_matrix(&op, g_ctx, KR_U16, 2, 3, m6, KR_HOST), KR_ERR_DTYPE);
    KT_STATUS(kr_linop_matrix(&op, g_ctx, KR_F32, 2, 3, m6, KR_DEVICE), KR_ERR_LOCATION);
    KT_STATUS(kr_linop_matrix(NULL, g_ctx, KR_F32, 2, 3, m6, KR_HOST), KR_ERR_INVALID_ARG);
    double rel;
    KT_STATUS(kr_linop_adjoint_test(NULL, 1, &rel), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_linop_adjoint_test(A, 1, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_linop_retain(NULL), KR_ERR_INVALID_ARG);
    KT_CHECK(kr_linop_dtype(NULL) == KR_DTYPE_INVALID && kr_linop_in_dims(NULL, NULL) == 0);
    KT_CHECK(op == NULL);

    kr_array_destroy(x3), kr_array_destroy(y4), kr_array_destroy(y5), kr_array_destroy(d3);
    kr_array_destroy(y4b);
    kr_linop_destroy(A), kr_linop_destroy(B), kr_linop_destroy(D), kr_linop_destroy(A5);
    kr_linop_destroy(I3);
}

int main(void)
{
    if (kr_ctx_create(&g_ctx, KR_BACKEND_CPU) != KR_OK) return 1;
    kr_ctx_set_quiet(g_ctx, 1);
    KT_RUN(test_matrix_values);
    KT_RUN(test_combinator_values);
    KT_RUN(test_adjoint_all);
    KT_RUN(test_adjoint_detects_wrong);
    KT_RUN(test_normals_and_lifetime);
    KT_RUN(test_concurrent_apply);
    KT_RUN(test_linop_dumb);
    kr_ctx_destroy(g_ctx);
    return kt_finish();
}
