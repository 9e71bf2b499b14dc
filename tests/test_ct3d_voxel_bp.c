/* The voxel-driven backprojector (kr_ct_voxel_bp_linop_create) and SIRT with it
 * (kr_sirt_plan_create_pair), CPU: the ray-density weights against a direct double-precision
 * evaluation of the formula of kray/ct.h on circular and vector geometries (one that FDK
 * refuses among them), its distance from the matched adjoints of both projectors, SIRT with it
 * against SIRT on the matched pair, thread independence, and bad input. */
#include "internal.h"
#include "kray/ct.h"
#include "kray/fdk.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>

#define NX 24
#define NY 24
#define NZ 16
#define NU 40
#define NV 30

static kr_ctx *mkctx(int threads)
{
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
    KT_OK(kr_ctx_set_threads(c, threads));
    KT_OK(kr_ctx_set_log_level(c, KR_LOG_ERROR));
    return c;
}

/* 24 x 24 x 16 voxels (1 x 1 x 1.25 mm, off centre), a 40 x 30 detector of 1.4 x 1.5 mm
 * pixels, source 60 mm from the axis, detector at 90 mm: about one pixel per voxel. */
static kr_ct_geom *circ(int nviews, double stop_deg)
{
    kr_ct_grid g;
    kr_ct_grid_3d(&g, NX, NY, NZ, 1.0);
    g.voxel_mm[2] = 1.25;
    g.offset_mm[0] = 0.7;
    g.offset_mm[2] = -0.4;
    kr_ct_scan s;
    kr_ct_scan_default(&s);
    s.type = KR_CT_CONE;
    s.nviews = nviews;
    s.start_deg = 10;
    s.stop_deg = stop_deg;
    s.det_count = NU;
    s.det_rows = NV;
    s.det_spacing_mm = 1.4;
    s.det_spacing_v_mm = 1.5;
    s.det_offset_mm = 0.9;
    s.sod_mm = 60;
    s.sdd_mm = 90;
    kr_ct_geom *geo = NULL;
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    return geo;
}

/* The same scan as vectors, each detector tilted and its source lifted, so u and lambda
 * depend on z (FDK's general kernels). */
static kr_ct_geom *tilted(const kr_ct_geom *c)
{
    const int64_t n = kr_ct_geom_nviews(c);
    kr_ct_view *v = malloc((size_t)n * sizeof *v);
    memcpy(v, kr_ct_geom_views(c), (size_t)n * sizeof *v);
    for (int64_t m = 0; m < n; m++) {
        const double t = 0.08 + 0.01 * (double)(m % 3);
        for (int d = 0; d < 3; d++) { /* v <- cos t v + sin t (|v| / |u|) u, shear of rows */
            const double vv = v[m].v[d], uu = v[m].u[d];
            v[m].v[d] = cos(t) * vv + sin(t) * uu * 1.5 / 1.4;
        }
        v[m].src[2] += 3.0;
    }
    kr_ct_geom *g = NULL;
    KT_OK(kr_ct_geom_create_views3d(&g, KR_CT_CONE_VEC, NU, NV, v, n, kr_ct_geom_grid(c)));
    free(v);
    return g;
}

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* The formula of kray/ct.h in double: pixels pre-weighted by (V / A) |r| / D, bilinear
 * interpolation with zeros outside the detector, times (D / t)^2. */
static void reference(const kr_ct_geom *g, const float *y, double *out)
{
    const kr_ct_grid *gr = kr_ct_geom_grid(g);
    const kr_ct_view *views = kr_ct_geom_views(g);
    const double vox = gr->voxel_mm[0] * gr->voxel_mm[1] * gr->voxel_mm[2];
    memset(out, 0, sizeof(double) * NX * NY * NZ);
    for (int64_t m = 0; m < kr_ct_geom_nviews(g); m++) {
        const kr_ct_view *V = &views[m];
        double n[3] = {V->u[1] * V->v[2] - V->u[2] * V->v[1], V->u[2] * V->v[0] - V->u[0] * V->v[2],
                       V->u[0] * V->v[1] - V->u[1] * V->v[0]};
        const double area = sqrt(dot3(n, n)), sd[3] = {V->det[0] - V->src[0],
                                                        V->det[1] - V->src[1],
                                                        V->det[2] - V->src[2]};
        for (int d = 0; d < 3; d++) n[d] /= area;
        if (dot3(n, sd) < 0)
            for (int d = 0; d < 3; d++) n[d] = -n[d];
        const double D = dot3(n, sd);
        const double uu = dot3(V->u, V->u), vv = dot3(V->v, V->v), uv = dot3(V->u, V->v);
        const double det = uu * vv - uv * uv;
        for (int64_t k = 0; k < NZ; k++)
            for (int64_t j = 0; j < NY; j++)
                for (int64_t i = 0; i < NX; i++) {
                    const int64_t ijk[3] = {i, j, k};
                    double x[3];
                    for (int d = 0; d < 3; d++)
                        x[d] = gr->offset_mm[d] +
                               ((double)ijk[d] - 0.5 * (double)(gr->n[d] - 1)) * gr->voxel_mm[d] -
                               V->src[d];
                    const double t = dot3(n, x);
                    double p[3];
                    for (int d = 0; d < 3; d++) p[d] = x[d] * D / t - sd[d];
                    const double pu = dot3(p, V->u), pv = dot3(p, V->v);
                    const double a = (vv * pu - uv * pv) / det + 0.5 * (NU - 1);
                    const double b = (uu * pv - uv * pu) / det + 0.5 * (NV - 1);
                    const double a0 = floor(a), b0 = floor(b);
                    double s = 0;
                    for (int db = 0; db < 2; db++)
                        for (int da = 0; da < 2; da++) {
                            const int64_t ia = (int64_t)a0 + da, ib = (int64_t)b0 + db;
                            if (ia < 0 || ib < 0 || ia >= NU || ib >= NV) continue;
                            double r[3];
                            for (int d = 0; d < 3; d++)
                                r[d] = sd[d] + ((double)ia - 0.5 * (NU - 1)) * V->u[d] +
                                       ((double)ib - 0.5 * (NV - 1)) * V->v[d];
                            const double q = (double)y[ia + NU * (ib + NV * m)] * vox / area *
                                             sqrt(dot3(r, r)) / D;
                            s += q * (da ? a - a0 : 1 - (a - a0)) * (db ? b - b0 : 1 - (b - b0));
                        }
                    out[i + NX * (j + NY * k)] += s * (D / t) * (D / t);
                }
    }
}

static kr_array *projections(int64_t nviews, uint64_t seed)
{
    kr_array *y = NULL;
    const int64_t d[3] = {NU, NV, nviews};
    KT_OK(kr_array_create(&y, KR_F32, 3, d, KR_HOST, NULL));
    float *p = y->data;
    for (int64_t i = 0; i < NU * NV * nviews; i++)
        p[i] = (float)(1.0 + 0.5 * kri_rand_sym(seed, (uint64_t)i));
    return y;
}

static kr_array *volume(kr_dtype t)
{
    kr_array *x = NULL;
    const int64_t d[3] = {NX, NY, NZ};
    KT_OK(kr_array_create(&x, t, 3, d, KR_HOST, NULL));
    return x;
}

static void check_formula(const kr_ct_geom *g, const char *what)
{
    kr_ctx *c = mkctx(2);
    kr_linop *B = NULL;
    KT_OK(kr_ct_voxel_bp_linop_create(&B, c, g, 0));
    kr_array *y = projections(kr_ct_geom_nviews(g), 7), *x = volume(KR_F32);
    KT_OK(kr_linop_forward(B, y, x));
    double *ref = malloc(sizeof(double) * NX * NY * NZ), mx = 0, err = 0;
    reference(g, y->data, ref);
    for (int64_t i = 0; i < NX * NY * NZ; i++) {
        mx = fmax(mx, fabs(ref[i]));
        err = fmax(err, fabs(ref[i] - (double)((float *)x->data)[i]));
    }
    printf("  %s: B y against the formula in double: max error %.3g of max %.4g\n", what, err,
           mx);
    KT_CHECK(mx > 0);
    KT_CHECK_MSG(err <= 2e-5 * mx, "%s: error %g of %g", what, err, mx);
    free(ref);
    kr_array_destroy(x);
    kr_array_destroy(y);
    kr_linop_destroy(B);
    kr_ctx_destroy(c);
}

/* Three views of a scanner that slides along y, with the volume between source and detector
 * and the z axis behind the source: FDK refuses it (its weights need the rotation axis between
 * them), the projectors and this backprojector take it. */
static kr_ct_geom *sliding(void)
{
    kr_ct_geom *c = circ(1, 10);
    kr_ct_grid gr = *kr_ct_geom_grid(c);
    kr_ct_geom_destroy(c);
    gr.offset_mm[1] = 90;
    kr_ct_view v[3];
    memset(v, 0, sizeof v);
    for (int m = 0; m < 3; m++) {
        const double x = 4.0 * (m - 1);
        const double src[3] = {x, 40, 1}, det[3] = {x + 2, 130, 0}, u[3] = {1.4, 0, 0},
                     vv[3] = {0, 0.1, 1.5};
        memcpy(v[m].src, src, sizeof src);
        memcpy(v[m].det, det, sizeof det);
        memcpy(v[m].u, u, sizeof u);
        memcpy(v[m].v, vv, sizeof vv);
    }
    kr_ct_geom *g = NULL;
    KT_OK(kr_ct_geom_create_views3d(&g, KR_CT_CONE_VEC, NU, NV, v, 3, &gr));
    return g;
}

static void test_formula(void)
{
    kr_ct_geom *g = circ(36, 370), *t = tilted(g), *sl = sliding();
    check_formula(g, "circular");
    check_formula(t, "tilted vectors");
    check_formula(sl, "axis behind the source");
    kr_ctx *c = mkctx(1);
    kr_fdk_plan *fp = NULL;
    KT_STATUS(kr_fdk_plan_create(&fp, c, sl, NULL), KR_ERR_GEOMETRY);
    kr_ctx_destroy(c);
    kr_ct_geom_destroy(sl);
    kr_ct_geom_destroy(t);
    kr_ct_geom_destroy(g);
}

static kr_linop *projector(const kr_ctx *c, const kr_ct_geom *g, kr_ct_method m, kr_dtype t)
{
    kr_ct_projector_opts o;
    kr_ct_projector_opts_default(&o);
    o.method = m;
    o.dtype = t;
    kr_linop *A = NULL;
    KT_OK(kr_ct_linop_create(&A, c, g, &o));
    return A;
}

/* Voxels inside the cylinder of 0.8 x the in-plane half-width, in the middle half of z. */
static int inner(int64_t i, int64_t j, int64_t k)
{
    const double x = ((double)i - 0.5 * (NX - 1)) / (0.5 * NX), yy = ((double)j - 0.5 * (NY - 1)) /
                                                                     (0.5 * NY);
    return x * x + yy * yy < 0.64 && k >= NZ / 4 && k < NZ - NZ / 4;
}

/* Over the inner voxels: ||B y - A^T y|| / ||A^T y|| in gap[0], sum(B y) / sum(A^T y) - 1 in
 * gap[1]. */
static void gap(const kr_linop *A, const kr_linop *B, const kr_array *y, double out[2])
{
    kr_array *xa = volume(KR_F32), *xb = volume(KR_F32);
    KT_OK(kr_linop_adjoint(A, y, xa));
    KT_OK(kr_linop_forward(B, y, xb));
    const float *a = xa->data, *b = xb->data;
    double num = 0, den = 0, sa = 0, sb = 0;
    for (int64_t k = 0; k < NZ; k++)
        for (int64_t j = 0; j < NY; j++)
            for (int64_t i = 0; i < NX; i++) {
                if (!inner(i, j, k)) continue;
                const int64_t q = i + NX * (j + NY * k);
                num += ((double)b[q] - a[q]) * ((double)b[q] - a[q]);
                den += (double)a[q] * a[q];
                sa += a[q];
                sb += b[q];
            }
    out[0] = sqrt(num / den);
    out[1] = sb / sa - 1;
    kr_array_destroy(xa);
    kr_array_destroy(xb);
}

/* B against the matched adjoints of both projectors, on ones and on the phantom's
 * projections. On average B is the transpose within 1 % (measured 0.07 % Joseph, 0.5 %
 * Siddon); voxel by voxel it is within 5 % of Joseph's (measured 3.3-3.5 %), whose bilinear
 * footprints are as smooth as B's. Siddon's transpose at about one ray per voxel and view is
 * rough itself (each voxel's chord lengths alias), so its per-voxel gap is 22-24 %, bounded by
 * 30 %. */
static void test_transpose_gap(void)
{
    kr_ctx *c = mkctx(2);
    kr_ct_geom *g = circ(60, 370);
    kr_linop *B = NULL;
    KT_OK(kr_ct_voxel_bp_linop_create(&B, c, g, 0));
    kr_array *ph = NULL, *one = projections(60, 1);
    KT_OK(kr_ct_phantom_projections(&ph, c, g, KR_PHANTOM_MODIFIED_SL, 1, KR_F32));
    for (int64_t i = 0; i < kr_array_numel(one); i++) ((float *)one->data)[i] = 1;
    static const double bound[2] = {0.05, 0.30};
    for (int m = 0; m < 2; m++) {
        kr_linop *A = projector(c, g, m ? KR_CT_SIDDON : KR_CT_JOSEPH, KR_F32);
        double g1[2], g2[2];
        gap(A, B, one, g1);
        gap(A, B, ph, g2);
        printf("  %s: ||B y - A^T y|| / ||A^T y||, inner voxels: ones %.4f, phantom %.4f; mean "
               "ratio - 1: %+.5f, %+.5f\n",
               m ? "siddon" : "joseph", g1[0], g2[0], g1[1], g2[1]);
        KT_CHECK_MSG(g1[0] <= bound[m] && g2[0] <= bound[m], "gaps %g %g", g1[0], g2[0]);
        KT_CHECK_MSG(fabs(g1[1]) <= 0.01 && fabs(g2[1]) <= 0.01, "means %g %g", g1[1], g2[1]);
        kr_linop_destroy(A);
    }
    kr_array_destroy(ph);
    kr_array_destroy(one);
    kr_linop_destroy(B);
    kr_ct_geom_destroy(g);
    kr_ctx_destroy(c);
}

static double nrmse(const kr_array *x, const kr_array *ref)
{
    const float *a = x->data, *b = ref->data;
    double num = 0, den = 0;
    for (int64_t i = 0; i < kr_array_numel(x); i++) {
        num += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
        den += (double)b[i] * b[i];
    }
    return sqrt(num / den);
}

/* SIRT with B in place of A^T on the phantom's exact projections: its residual falls at every
 * iteration, and it reconstructs the phantom as well as SIRT on the matched pair (within 10 %
 * of its error) and close to it. */
static void test_sirt_pair(void)
{
    enum { IT = 30 };
    kr_ctx *c = mkctx(2);
    kr_ct_geom *g = circ(60, 370);
    kr_linop *B = NULL, *A = projector(c, g, KR_CT_JOSEPH, KR_F32);
    KT_OK(kr_ct_voxel_bp_linop_create(&B, c, g, 0));
    kr_array *y = NULL, *ph = NULL, *xm = volume(KR_F32), *xp = volume(KR_F32);
    KT_OK(kr_ct_phantom_projections(&y, c, g, KR_PHANTOM_MODIFIED_SL, 1, KR_F32));
    KT_OK(kr_phantom_3d(&ph, KR_PHANTOM_MODIFIED_SL, NX, NY, NZ, 4, KR_F32));
    double hm[IT + 1], hp[IT + 1];
    kr_sirt_opts o;
    kr_sirt_opts_default(&o);
    o.max_iter = IT;
    kr_sirt_plan *sm = NULL, *sp = NULL;
    KT_OK(kr_sirt_plan_create(&sm, c, A));
    KT_OK(kr_sirt_plan_create_pair(&sp, c, A, B));
    o.history = hm;
    KT_OK(kr_sirt_execute(sm, y, xm, &o, NULL));
    o.history = hp;
    kr_solve_info info;
    KT_OK(kr_sirt_execute(sp, y, xp, &o, &info));
    KT_CHECK(info.iterations == IT);
    for (int k = 1; k <= IT; k++) KT_CHECK_MSG(hp[k] < hp[k - 1], "iteration %d: %g", k, hp[k]);
    const double em = nrmse(xm, ph), ep = nrmse(xp, ph), d = nrmse(xp, xm);
    printf("  %d iterations: residual matched %.4f, voxel-driven %.4f; NRMSE vs phantom %.4f, "
           "%.4f; between them %.4f\n",
           IT, hm[IT], hp[IT], em, ep, d);
    KT_CHECK(ep <= 1.1 * em);
    KT_CHECK(hp[IT] <= 1.1 * hm[IT]);
    KT_CHECK(d <= 0.1);
    kr_sirt_plan_destroy(sm);
    kr_sirt_plan_destroy(sp);
    kr_array_destroy(xm);
    kr_array_destroy(xp);
    kr_array_destroy(ph);
    kr_array_destroy(y);
    kr_linop_destroy(A);
    kr_linop_destroy(B);
    kr_ct_geom_destroy(g);
    kr_ctx_destroy(c);
}

/* The result does not depend on the thread count, and the input stays as it was. */
static void test_threads(void)
{
    kr_ct_geom *g = circ(20, 190);
    kr_array *y = projections(20, 3), *y0 = NULL, *x1 = volume(KR_F32), *x2 = volume(KR_F32);
    KT_OK(kr_array_clone(&y0, y, KR_HOST, NULL));
    for (int t = 1; t <= 2; t++) {
        kr_ctx *c = mkctx(t);
        kr_linop *B = NULL;
        KT_OK(kr_ct_voxel_bp_linop_create(&B, c, g, 0));
        KT_OK(kr_linop_forward(B, y, t == 1 ? x1 : x2));
        kr_linop_destroy(B);
        kr_ctx_destroy(c);
    }
    KT_CHECK(memcmp(x1->data, x2->data, kr_array_bytes(x1)) == 0);
    KT_CHECK(memcmp(y->data, y0->data, kr_array_bytes(y)) == 0);
    kr_array_destroy(x1);
    kr_array_destroy(x2);
    kr_array_destroy(y);
    kr_array_destroy(y0);
    kr_ct_geom_destroy(g);
}

static void test_bad_input(void)
{
    kr_ctx *c = mkctx(2);
    kr_ct_geom *g = circ(20, 190), *g2 = circ(24, 190), *p2 = NULL;
    kr_ct_scan s;
    kr_ct_scan_default(&s);
    s.det_count = 32;
    kr_ct_grid gr;
    kr_ct_grid_2d(&gr, 16, 16, 1.0);
    KT_OK(kr_ct_geom_create(&p2, &s, &gr));
    kr_linop *B = NULL, *B2 = NULL, *A = projector(c, g, KR_CT_JOSEPH, KR_F32);
    kr_linop *A64 = projector(c, g, KR_CT_JOSEPH, KR_F64);
    KT_STATUS(kr_ct_voxel_bp_linop_create(&B, c, p2, 0), KR_ERR_GEOMETRY);
    KT_CHECK(B == NULL);
    KT_STATUS(kr_ct_voxel_bp_linop_create(&B, c, g, -1), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ct_voxel_bp_linop_create(&B, NULL, g, 0), KR_ERR_INVALID_ARG);
    KT_OK(kr_ct_voxel_bp_linop_create(&B, c, g, 0));
    KT_OK(kr_ct_voxel_bp_linop_create(&B2, c, g2, 0));
    /* its adjoint is refused, so is the dot-product test */
    kr_array *y = projections(20, 5), *x = volume(KR_F32);
    KT_STATUS(kr_linop_adjoint(B, x, y), KR_ERR_NOT_SUPPORTED);
    KT_CHECK(strstr(kr_last_error(), "no adjoint") != NULL);
    double rel;
    KT_STATUS(kr_linop_adjoint_test(B, 1, &rel), KR_ERR_NOT_SUPPORTED);
    /* pairs that do not fit */
    kr_sirt_plan *sp = NULL;
    KT_STATUS(kr_sirt_plan_create_pair(&sp, c, A64, B), KR_ERR_DTYPE);
    KT_STATUS(kr_sirt_plan_create_pair(&sp, c, A, B2), KR_ERR_DIM);
    KT_CHECK(strstr(kr_last_error(), "should map") != NULL);
    KT_STATUS(kr_sirt_plan_create_pair(&sp, c, A, A), KR_ERR_DIM);
    KT_CHECK(sp == NULL);
    /* NaN in the projections: one sentence with the count */
    ((float *)y->data)[17] = NAN;
    ((float *)y->data)[99] = NAN;
    KT_STATUS(kr_linop_forward(B, y, x), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "2 NaN") != NULL);
    kr_array_destroy(x);
    kr_array_destroy(y);
    kr_linop_destroy(A);
    kr_linop_destroy(A64);
    kr_linop_destroy(B);
    kr_linop_destroy(B2);
    kr_ct_geom_destroy(g);
    kr_ct_geom_destroy(g2);
    kr_ct_geom_destroy(p2);
    kr_ctx_destroy(c);
}

int main(void)
{
    KT_RUN(test_formula);
    KT_RUN(test_transpose_gap);
    KT_RUN(test_sirt_pair);
    KT_RUN(test_threads);
    KT_RUN(test_bad_input);
    return kt_finish();
}
