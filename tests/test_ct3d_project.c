/* Cone-beam projectors on the CPU: Siddon against brute-force exact chords of every voxel, Joseph
 * against an independent per-plane bilinear reference, Siddon on a rasterised Shepp-Logan
 * against the exact analytic projections within a rigorous per-ray pixelisation bound, the
 * transpose (full matrices and dot-product tests), serial == threaded bit for bit, hand-computed
 * rays, projection checks and bad inputs. */
#include "internal.h"
#include "kray/ct.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>

/* ---- helpers ------------------------------------------------------------------------------- */
static kr_ctx *mkctx(kr_backend b, int threads)
{
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, b));
    if (threads) KT_OK(kr_ctx_set_threads(c, threads));
    KT_OK(kr_ctx_set_log_level(c, KR_LOG_ERROR));
    return c;
}

static kr_ct_geom *circ(int64_t nviews, double start, double stop, int64_t nu, int64_t nv,
                        double pu, double pv, double ou, double ov, double cor, double sod,
                        double sdd, const kr_ct_grid *g)
{
    kr_ct_scan s;
    kr_ct_scan_default(&s);
    s.type = KR_CT_CONE;
    s.nviews = nviews;
    s.start_deg = start;
    s.stop_deg = stop;
    s.det_count = nu;
    s.det_rows = nv;
    s.det_spacing_mm = pu;
    s.det_spacing_v_mm = pv;
    s.det_offset_mm = ou;
    s.det_offset_v_mm = ov;
    s.cor_offset_mm = cor;
    s.sod_mm = sod;
    s.sdd_mm = sdd;
    kr_ct_geom *geo = NULL;
    KT_OK(kr_ct_geom_create(&geo, &s, g));
    return geo;
}

/* Test geometries: 0 circular with offsets and anisotropic, off-centre voxels; 1 tilted and
 * rotated detectors given as views (rays of all three major axes); 2 steep views (z-major). */
#define NGEOM 3
static kr_ct_geom *test_geom(int w, kr_ct_grid *g)
{
    kr_ct_grid_3d(g, 10, 9, 8, 1.0);
    g->voxel_mm[1] = 1.25;
    g->voxel_mm[2] = 0.8;
    g->offset_mm[0] = 0.7;
    g->offset_mm[2] = -0.4;
    if (w == 0) return circ(7, 10, 370, 13, 11, 1.3, 1.1, 0.4, -0.6, 0.3, 40, 70, g);
    kr_ct_view v[4];
    memset(v, 0, sizeof v);
    if (w == 1) {
        v[0] = (kr_ct_view){
            {-3, -40, 4}, {0, 0, 0}, {5, 30, -2}, {1.2, 0.1, 0.05}, {0.02, -0.05, 1.1}};
        v[1] = (kr_ct_view){{42, 7, -9}, {0, 0, 0}, {-30, 3, 6}, {0.1, 1.3, 0}, {0, 0.1, 1.1}};
        v[2] = (kr_ct_view){{30, 30, 5}, {0, 0, 0}, {-22, -20, -3}, {0.9, -0.9, 0}, {0, 0, 1.2}};
        v[3] = (kr_ct_view){{-28, 29, 2}, {0, 0, 0}, {21, -20, 0}, {-0.9, -0.9, 0.1}, {0.1, 0, 1}};
        kr_ct_geom *geo = NULL;
        KT_OK(kr_ct_geom_create_views3d(&geo, KR_CT_CONE_VEC, 14, 12, v, 4, g));
        return geo;
    }
    v[0] = (kr_ct_view){{1, -2, -40}, {0, 0, 0}, {-1, 3, 30}, {1.3, 0, 0}, {0, 1.2, 0.1}};
    v[1] = (kr_ct_view){{-20, 1, 35}, {0, 0, 0}, {15, -1, -30}, {0, 1.3, 0}, {1, 0, 0.6}};
    kr_ct_geom *geo = NULL;
    KT_OK(kr_ct_geom_create_views3d(&geo, KR_CT_CONE_VEC, 12, 12, v, 2, g));
    return geo;
}

static kr_array *arr3(kr_dtype t, int64_t a, int64_t b, int64_t c)
{
    kr_array *x = NULL;
    int64_t d[3] = {a, b, c};
    KT_OK(kr_array_create(&x, t, 3, d, KR_HOST, NULL));
    return x;
}

static kr_array *vol_for(const kr_ct_geom *g, kr_dtype t)
{
    const kr_ct_grid *gr = kr_ct_geom_grid(g);
    return arr3(t, gr->n[0], gr->n[1], gr->n[2]);
}

static kr_array *proj_for(const kr_ct_geom *g, kr_dtype t)
{
    return arr3(t, kr_ct_geom_det_count(g), kr_ct_geom_det_rows(g), kr_ct_geom_nviews(g));
}

static double get(const kr_array *a, int64_t i)
{
    return a->dtype == KR_F64 ? ((const double *)a->data)[i] : ((const float *)a->data)[i];
}

static void set(kr_array *a, int64_t i, double v)
{
    if (a->dtype == KR_F64)
        ((double *)a->data)[i] = v;
    else
        ((float *)a->data)[i] = (float)v;
}

static void fill_random(kr_array *a, uint64_t seed)
{
    for (int64_t i = 0; i < kr_array_numel(a); i++)
        set(a, i, 0.5 * (kri_rand_sym(seed, (uint64_t)i) + 1));
}

static kr_ct_projector_plan *plan(const kr_ctx *c, const kr_ct_geom *g, kr_ct_method m, kr_dtype t,
                             int k)
{
    kr_ct_projector_opts o;
    kr_ct_projector_opts_default(&o);
    o.method = m;
    o.dtype = t;
    o.ray_factor = k;
    kr_ct_projector_plan *p = NULL;
    KT_OK(kr_ct_projector_plan_create(&p, c, g, &o));
    return p;
}

/* Sub-ray (s, t) of pixel (a, b), view vi, of ray factor k: source and direction (mm). */
static void ref_ray(const kr_ct_geom *g, int64_t vi, int64_t a, int64_t b, int s, int t, int k,
                    double src[3], double dir[3])
{
    const kr_ct_view *v = &kr_ct_geom_views(g)[vi];
    double A =
        (double)a - 0.5 * (double)(kr_ct_geom_det_count(g) - 1) + (2.0 * s + 1 - k) / (2.0 * k);
    double B =
        (double)b - 0.5 * (double)(kr_ct_geom_det_rows(g) - 1) + (2.0 * t + 1 - k) / (2.0 * k);
    for (int d = 0; d < 3; d++) {
        src[d] = v->src[d];
        dir[d] = v->det[d] + A * v->u[d] + B * v->v[d] - v->src[d];
    }
}

/* Length (mm) of the half-line src + t dir (t >= 0) inside the box [lo, hi]. */
static double chord(const double src[3], const double dir[3], const double lo[3],
                    const double hi[3])
{
    double t0 = 0, t1 = HUGE_VAL;
    for (int d = 0; d < 3; d++) {
        if (dir[d] == 0) {
            if (src[d] < lo[d] || src[d] > hi[d]) return 0;
            continue;
        }
        double a = (lo[d] - src[d]) / dir[d], b = (hi[d] - src[d]) / dir[d];
        if (a > b) {
            double x = a;
            a = b;
            b = x;
        }
        t0 = fmax(t0, a);
        t1 = fmin(t1, b);
    }
    return t1 > t0 ? (t1 - t0) * sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]) : 0;
}

/* Voxel box of voxel (i, j, k) in mm. */
static void vbox(const kr_ct_grid *g, int64_t i, int64_t j, int64_t k, double lo[3], double hi[3])
{
    int64_t id[3] = {i, j, k};
    for (int d = 0; d < 3; d++) {
        double c = g->offset_mm[d] + ((double)id[d] - 0.5 * (double)(g->n[d] - 1)) * g->voxel_mm[d];
        lo[d] = c - 0.5 * g->voxel_mm[d];
        hi[d] = c + 0.5 * g->voxel_mm[d];
    }
}

/* Brute force: mean over sub-rays of sum over all voxels of value * chord. */
static double brute_siddon(const kr_ct_geom *g, const double *vol, int64_t vi, int64_t a,
                           int64_t b, int k)
{
    const kr_ct_grid *gr = kr_ct_geom_grid(g);
    double total = 0;
    for (int s = 0; s < k * k; s++) {
        double src[3], dir[3], sum = 0;
        ref_ray(g, vi, a, b, s % k, s / k, k, src, dir);
        for (int64_t z = 0; z < gr->n[2]; z++)
            for (int64_t y = 0; y < gr->n[1]; y++)
                for (int64_t x = 0; x < gr->n[0]; x++) {
                    double lo[3], hi[3];
                    vbox(gr, x, y, z, lo, hi);
                    double c = chord(src, dir, lo, hi);
                    if (c > 0) sum += c * vol[(z * gr->n[1] + y) * gr->n[0] + x];
                }
        total += sum;
    }
    return total / (k * k);
}

/* Independent Joseph reference: planes of the major axis (index units), bilinear with zero
 * outside, L = mm per plane. */
static double brute_joseph(const kr_ct_geom *g, const double *vol, int64_t vi, int64_t a,
                           int64_t b, int k)
{
    const kr_ct_grid *gr = kr_ct_geom_grid(g);
    double total = 0;
    for (int s = 0; s < k * k; s++) {
        double src[3], dir[3], S[3], D[3];
        ref_ray(g, vi, a, b, s % k, s / k, k, src, dir);
        int ax = 0;
        for (int d = 0; d < 3; d++) {
            double x0 = gr->offset_mm[d] - 0.5 * (double)(gr->n[d] - 1) * gr->voxel_mm[d];
            S[d] = (src[d] - x0) / gr->voxel_mm[d];
            D[d] = dir[d] / gr->voxel_mm[d];
        }
        if (fabs(D[1]) > fabs(D[ax])) ax = 1;
        if (fabs(D[2]) > fabs(D[ax])) ax = 2;
        int mi = ax == 0 ? 1 : 0, mj = ax == 2 ? 1 : 2;
        double len = sqrt(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
        double L = len / fabs(D[ax]), sum = 0;
        for (int64_t m = 0; m < gr->n[ax]; m++) {
            double t = ((double)m - S[ax]) / D[ax];
            double fa = S[mi] + t * D[mi], fb = S[mj] + t * D[mj];
            if (!(fa > -1 && fa < (double)gr->n[mi] && fb > -1 && fb < (double)gr->n[mj])) continue;
            int64_t ia = (int64_t)floor(fa), ib = (int64_t)floor(fb);
            double wa = fa - (double)ia, wb = fb - (double)ib;
            for (int q = 0; q < 4; q++) {
                int64_t id[3];
                id[ax] = m;
                id[mi] = ia + (q & 1);
                id[mj] = ib + (q >> 1);
                if (id[mi] < 0 || id[mi] >= gr->n[mi] || id[mj] < 0 || id[mj] >= gr->n[mj])
                    continue;
                double w = ((q & 1) ? wa : 1 - wa) * ((q >> 1) ? wb : 1 - wb);
                sum += w * vol[(id[2] * gr->n[1] + id[1]) * gr->n[0] + id[0]];
            }
        }
        total += sum * L;
    }
    return total / (k * k);
}

/* ---- tests --------------------------------------------------------------------------------- */
static void test_hand_rays(void)
{
    /* 8^3 ones of 1 mm; odd detector: its central pixel's ray runs along +y through the centre */
    kr_ct_grid g;
    kr_ct_grid_3d(&g, 8, 8, 8, 1);
    kr_ct_geom *geo = circ(2, 0, 180, 5, 3, 1, 1, 0, 0, 0, 30, 50, &g);
    kr_ctx *c = mkctx(KR_BACKEND_CPU, 2);
    for (int m = 0; m < 2; m++) {
        kr_ct_projector_plan *p = plan(c, geo, m ? KR_CT_SIDDON : KR_CT_JOSEPH, KR_F64, 1);
        kr_array *vol = vol_for(geo, KR_F64), *pr = proj_for(geo, KR_F64);
        for (int64_t i = 0; i < 512; i++) set(vol, i, 1);
        KT_OK(kr_ct_projector_forward(p, vol, pr));
        KT_NEAR(get(pr, 2 + 5 * 1), 8.0, 1e-12);            /* view 0, centre */
        KT_NEAR(get(pr, 2 + 5 * 1 + 15), 8.0, 1e-12);       /* view 1 (90 degrees) */
        /* the pixel one row up: its ray rises 1 mm over the 50 mm from source to detector */
        if (m) {
            /* Siddon: exact chord of the ray through the 8 mm cube */
            double dir[3] = {0, 50, 1}, src[3] = {0, -30, 0}, lo[3] = {-4, -4, -4},
                   hi[3] = {4, 4, 4};
            KT_NEAR(get(pr, 2 + 5 * 2), chord(src, dir, lo, hi), 1e-12);
        }
        kr_array_destroy(vol);
        kr_array_destroy(pr);
        kr_ct_projector_plan_destroy(p);
    }
    kr_ctx_destroy(c);
    kr_ct_geom_destroy(geo);
}

static void test_brute_force(void)
{
    kr_ctx *c = mkctx(KR_BACKEND_CPU, 2);
    for (int w = 0; w < NGEOM; w++) {
        kr_ct_grid g;
        kr_ct_geom *geo = test_geom(w, &g);
        kr_array *v64 = vol_for(geo, KR_F64);
        fill_random(v64, 11 + (uint64_t)w);
        for (int m = 0; m < 2; m++)
            for (int k = 1; k <= 2; k++)
                for (int t = 0; t < 2; t++) {
                    kr_dtype dt = t ? KR_F32 : KR_F64;
                    kr_ct_projector_plan *p = plan(c, geo, m ? KR_CT_SIDDON : KR_CT_JOSEPH, dt, k);
                    kr_array *vol = vol_for(geo, dt), *pr = proj_for(geo, dt);
                    for (int64_t i = 0; i < kr_array_numel(vol); i++) set(vol, i, get(v64, i));
                    KT_OK(kr_ct_projector_forward(p, vol, pr));
                    double maxerr = 0, maxref = 0;
                    const int64_t nu = kr_ct_geom_det_count(geo), nv = kr_ct_geom_det_rows(geo);
                    for (int64_t vi = 0; vi < kr_ct_geom_nviews(geo); vi++)
                        for (int64_t b = 0; b < nv; b += (k == 1 ? 1 : 2))
                            for (int64_t a = 0; a < nu; a += (k == 1 ? 1 : 2)) {
                                double ref = m ? brute_siddon(geo, v64->data, vi, a, b, k)
                                               : brute_joseph(geo, v64->data, vi, a, b, k);
                                double got = get(pr, (vi * nv + b) * nu + a);
                                maxerr = fmax(maxerr, fabs(got - ref));
                                maxref = fmax(maxref, fabs(ref));
                            }
                    KT_CHECK(maxref > 1);
                    double rel = maxerr / maxref, tol = t ? 2e-6 : 1e-12;
                    KT_CHECK_MSG(rel <= tol, "geometry %d %s k=%d %s: max rel error %.3g > %.3g", w,
                                 m ? "siddon" : "joseph", k, t ? "f32" : "f64", rel, tol);
                    if (w == 0 && k == 1)
                        printf("  brute force %s %s: max relative error %.2g\n",
                               m ? "siddon" : "joseph", t ? "f32" : "f64", rel);
                    kr_array_destroy(vol);
                    kr_array_destroy(pr);
                    kr_ct_projector_plan_destroy(p);
                }
        kr_array_destroy(v64);
        kr_ct_geom_destroy(geo);
    }
    kr_ctx_destroy(c);
}

/* Siddon on the rasterised 3-D Shepp-Logan vs the exact projections of the continuous phantom:
 * voxels that no ellipsoid surface cuts hold the phantom's value exactly, so per ray
 * |error| <= sum over voxels of chord * (sum of |rho| of the ellipsoids that may cut the
 * voxel), with "may cut" decided conservatively (not all 8 corners inside, and the voxel meets
 * the ellipsoid's bounding box). */
static void test_phantom(void)
{
    kr_ct_grid g;
    kr_ct_grid_3d(&g, 20, 20, 16, 1.0);
    g.voxel_mm[2] = 1.2; /* the phantom is stretched over the (non-cubic) box */
    kr_ct_geom *geo = circ(5, 0, 360, 9, 7, 2.2, 2.4, 0.5, 0, 0, 60, 100, &g);
    kr_ctx *c = mkctx(KR_BACKEND_CPU, 2);
    kr_array *raster = NULL, *exact = NULL;
    KT_OK(kr_phantom_3d(&raster, KR_PHANTOM_MODIFIED_SL, 20, 20, 16, 4, KR_F64));
    KT_OK(kr_ct_phantom_projections(&exact, c, geo, KR_PHANTOM_MODIFIED_SL, 1, KR_F64));
    kr_ct_projector_plan *p = plan(c, geo, KR_CT_SIDDON, KR_F64, 1);
    kr_array *pr = proj_for(geo, KR_F64);
    KT_OK(kr_ct_projector_forward(p, raster, pr));
    int ne = 0;
    const kr_ellipsoid *E = kr_phantom_ellipsoids(KR_PHANTOM_MODIFIED_SL, &ne);
    const int64_t nvox = 20 * 20 * 16;
    double *cut = calloc((size_t)nvox, sizeof *cut);
    for (int64_t z = 0; z < 16; z++)
        for (int64_t y = 0; y < 20; y++)
            for (int64_t x = 0; x < 20; x++) {
                int64_t id[3] = {x, y, z}, n[3] = {20, 20, 16};
                double lo[3], hi[3];
                for (int d = 0; d < 3; d++) {
                    lo[d] = (2.0 * (double)id[d] - (double)n[d]) / (double)n[d];
                    hi[d] = lo[d] + 2.0 / (double)n[d];
                }
                for (int e = 0; e < ne; e++) {
                    double ph = E[e].phi_deg * 3.14159265358979323846 / 180, cp = cos(ph),
                           sp = sin(ph);
                    int inside = 1;
                    for (int q = 0; q < 8; q++) {
                        double px = ((q & 1) ? hi[0] : lo[0]) - E[e].x0;
                        double py = ((q & 2) ? hi[1] : lo[1]) - E[e].y0;
                        double pz = ((q & 4) ? hi[2] : lo[2]) - E[e].z0;
                        double u = px * cp + py * sp, v = -px * sp + py * cp;
                        if (u * u / (E[e].a * E[e].a) + v * v / (E[e].b * E[e].b) +
                                pz * pz / (E[e].c * E[e].c) > 1)
                            inside = 0;
                    }
                    if (inside) continue;
                    double ex = sqrt(E[e].a * E[e].a * cp * cp + E[e].b * E[e].b * sp * sp);
                    double ey = sqrt(E[e].a * E[e].a * sp * sp + E[e].b * E[e].b * cp * cp);
                    double c0[3] = {E[e].x0 - ex, E[e].y0 - ey, E[e].z0 - E[e].c};
                    double c1[3] = {E[e].x0 + ex, E[e].y0 + ey, E[e].z0 + E[e].c};
                    int meets = 1;
                    for (int d = 0; d < 3; d++)
                        if (hi[d] < c0[d] || lo[d] > c1[d]) meets = 0;
                    if (meets) cut[(z * 20 + y) * 20 + x] += fabs(E[e].rho);
                }
            }
    double worst = 0, sse = 0, ssr = 0;
    const int64_t nu = 9, nv = 7;
    for (int64_t vi = 0; vi < 5; vi++)
        for (int64_t b = 0; b < nv; b++)
            for (int64_t a = 0; a < nu; a++) {
                double bound = brute_siddon(geo, cut, vi, a, b, 1);
                int64_t o = (vi * nv + b) * nu + a;
                double err = fabs(get(pr, o) - get(exact, o));
                KT_CHECK_MSG(err <= bound + 1e-9,
                             "view %lld (%lld, %lld): |error| %.4g > bound %.4g", (long long)vi,
                             (long long)a, (long long)b, err, bound);
                if (bound > 0) worst = fmax(worst, err / bound);
                sse += err * err;
                ssr += get(exact, o) * get(exact, o);
            }
    printf("  Siddon(raster 20x20x16, 4^3 sub-samples) vs exact: RMS error %.3g of the RMS "
           "projection; worst error / bound %.3f\n",
           sqrt(sse / ssr), worst);
    /* measured 0.052: dominated by rays tangent to the skull, a shell 0.3 voxels thick here */
    KT_LE(sqrt(sse / ssr), 0.06);
    free(cut);
    kr_array_destroy(raster);
    kr_array_destroy(exact);
    kr_array_destroy(pr);
    kr_ct_projector_plan_destroy(p);

    /* the exact projections with sub-rays are the mean of the sub-ray integrals */
    kr_array *e2 = NULL;
    KT_OK(kr_ct_phantom_projections(&e2, NULL, geo, KR_PHANTOM_SHEPP_LOGAN, 2, KR_F32));
    KT_CHECK(e2 && e2->dtype == KR_F32 && e2->dims[0] == 9 && e2->dims[1] == 7 && e2->dims[2] == 5);
    {
        double s0[3], d0[3], sum = 0, half[3] = {10, 10, 9.6};
        for (int s = 0; s < 4; s++) {
            ref_ray(geo, 3, 4, 2, s % 2, s / 2, 2, s0, d0);
            double A[3], B[3], l = 0, ln = 0, val;
            for (int d = 0; d < 3; d++) {
                A[d] = s0[d] / half[d];
                B[d] = (s0[d] + 3 * d0[d]) / half[d];
                l += 9 * d0[d] * d0[d];
                ln += (B[d] - A[d]) * (B[d] - A[d]);
            }
            KT_OK(kr_phantom_line_integrals_3d(KR_PHANTOM_SHEPP_LOGAN, A, B, 1, 1.0, &val));
            sum += val * sqrt(l / ln);
        }
        KT_NEAR(get(e2, (3 * 7 + 2) * 9 + 4), sum / 4, 2e-6 * fabs(sum));
    }
    kr_array_destroy(e2);
    kr_array *bad = (kr_array *)1;
    KT_STATUS(kr_ct_phantom_projections(&bad, NULL, geo, KR_PHANTOM_MODIFIED_SL, 17, KR_F32),
              KR_ERR_INVALID_ARG);
    KT_CHECK(bad == NULL);
    KT_STATUS(kr_ct_phantom_projections(&bad, NULL, geo, KR_PHANTOM_MODIFIED_SL, 1, KR_C64),
              KR_ERR_DTYPE);
    KT_STATUS(kr_ct_phantom_projections(&bad, NULL, NULL, KR_PHANTOM_MODIFIED_SL, 1, KR_F32),
              KR_ERR_INVALID_ARG);
    kr_ctx_destroy(c);
    kr_ct_geom_destroy(geo);
}

/* Full matrices of the forward and adjoint: A^T from the adjoint equals the transpose of A. */
static void test_transpose(void)
{
    kr_ct_grid g;
    kr_ct_grid_3d(&g, 5, 4, 3, 1.1);
    g.voxel_mm[2] = 1.4;
    kr_ct_geom *geo = circ(3, 20, 380, 6, 4, 1.5, 1.7, 0.3, 0.2, -0.2, 20, 35, &g);
    kr_ctx *c = mkctx(KR_BACKEND_CPU, 3);
    const int64_t nvox = 60, nray = 6 * 4 * 3;
    for (int m = 0; m < 2; m++)
        for (int k = 1; k <= 3; k += 2) {
            kr_ct_projector_plan *p = plan(c, geo, m ? KR_CT_SIDDON : KR_CT_JOSEPH, KR_F64, k);
            kr_array *vol = vol_for(geo, KR_F64), *pr = proj_for(geo, KR_F64);
            double *A = calloc((size_t)(nvox * nray), sizeof *A), maxa = 0, maxd = 0;
            for (int64_t q = 0; q < nvox; q++) {
                KT_OK(kr_array_zero(vol, NULL));
                set(vol, q, 1);
                KT_OK(kr_ct_projector_forward(p, vol, pr));
                for (int64_t r = 0; r < nray; r++) A[r * nvox + q] = get(pr, r);
            }
            for (int64_t r = 0; r < nray; r++) {
                KT_OK(kr_array_zero(pr, NULL));
                set(pr, r, 1);
                KT_OK(kr_ct_projector_adjoint(p, pr, vol));
                for (int64_t q = 0; q < nvox; q++) {
                    maxa = fmax(maxa, fabs(A[r * nvox + q]));
                    maxd = fmax(maxd, fabs(A[r * nvox + q] - get(vol, q)));
                }
            }
            KT_CHECK(maxa > 0.1);
            KT_LE(maxd, 1e-14 * maxa);
            free(A);
            kr_array_destroy(vol);
            kr_array_destroy(pr);
            kr_ct_projector_plan_destroy(p);
        }
    kr_ctx_destroy(c);
    kr_ct_geom_destroy(geo);
}

static void test_adjoint_dot(void)
{
    kr_ctx *c = mkctx(KR_BACKEND_CPU, 2);
    double worst[2] = {0, 0};
    for (int w = 0; w < NGEOM; w++) {
        kr_ct_grid g;
        kr_ct_geom *geo = test_geom(w, &g);
        for (int m = 0; m < 2; m++)
            for (int t = 0; t < 2; t++)
                for (int k = 1; k <= 2; k++) {
                    kr_ct_projector_opts o;
                    kr_ct_projector_opts_default(&o);
                    o.method = m ? KR_CT_SIDDON : KR_CT_JOSEPH;
                    o.dtype = t ? KR_F32 : KR_F64;
                    o.ray_factor = k;
                    kr_linop *op = NULL;
                    KT_OK(kr_ct_linop_create(&op, c, geo, &o));
                    KT_CHECK(strcmp(kr_linop_name(op), m ? "ct3d-siddon" : "ct3d-joseph") == 0);
                    int64_t d[KR_MAX_DIMS];
                    KT_CHECK(kr_linop_in_dims(op, d) == 3 && d[0] == g.n[0] && d[2] == g.n[2]);
                    KT_CHECK(kr_linop_out_dims(op, d) == 3 && d[1] == kr_ct_geom_det_rows(geo));
                    double rel = 1;
                    KT_OK(kr_linop_adjoint_test(op, 77 + (uint64_t)(w * 8 + m * 4 + t * 2 + k),
                                                &rel));
                    KT_LE(rel, t ? 1e-5 : 1e-12);
                    worst[t] = fmax(worst[t], rel);
                    kr_linop_destroy(op);
                }
        kr_ct_geom_destroy(geo);
    }
    printf("  dot-product tests: worst relative error f64 %.2g, f32 %.2g\n", worst[0], worst[1]);
    kr_ctx_destroy(c);
}

static void test_threads_bitwise(void)
{
    kr_ctx *c1 = mkctx(KR_BACKEND_CPU_SERIAL, 0), *c2 = mkctx(KR_BACKEND_CPU, 2),
           *c3 = mkctx(KR_BACKEND_CPU, 3);
    for (int w = 0; w < NGEOM; w++) {
        kr_ct_grid g;
        kr_ct_geom *geo = test_geom(w, &g);
        for (int m = 0; m < 2; m++) {
            kr_array *vol = vol_for(geo, KR_F32), *pr = proj_for(geo, KR_F32);
            kr_array *o1 = proj_for(geo, KR_F32), *b1 = vol_for(geo, KR_F32);
            fill_random(vol, 5);
            fill_random(pr, 6);
            const kr_ctx *cs[3] = {c1, c2, c3};
            for (int i = 0; i < 3; i++) {
                kr_ct_projector_plan *p = plan(cs[i], geo, m ? KR_CT_SIDDON : KR_CT_JOSEPH, KR_F32, 2);
                kr_array *o = proj_for(geo, KR_F32), *b = vol_for(geo, KR_F32);
                KT_OK(kr_ct_projector_forward(p, vol, o));
                KT_OK(kr_ct_projector_adjoint(p, pr, b));
                if (i == 0) {
                    memcpy(o1->data, o->data, kr_array_bytes(o));
                    memcpy(b1->data, b->data, kr_array_bytes(b));
                } else {
                    KT_CHECK(memcmp(o1->data, o->data, kr_array_bytes(o)) == 0);
                    KT_CHECK(memcmp(b1->data, b->data, kr_array_bytes(b)) == 0);
                }
                kr_array_destroy(o);
                kr_array_destroy(b);
                kr_ct_projector_plan_destroy(p);
            }
            kr_array *all[4] = {vol, pr, o1, b1};
            for (int i = 0; i < 4; i++) kr_array_destroy(all[i]);
        }
        kr_ct_geom_destroy(geo);
    }
    kr_ctx_destroy(c1);
    kr_ctx_destroy(c2);
    kr_ctx_destroy(c3);
}

static void test_bad_input(void)
{
    kr_ct_grid g;
    kr_ct_geom *geo = test_geom(0, &g);
    kr_ctx *c = mkctx(KR_BACKEND_CPU, 2);
    kr_ct_projector_opts o;
    kr_ct_projector_opts_default(&o);
    kr_ct_projector_plan *p = NULL;
    o.ray_factor = 17;
    KT_STATUS(kr_ct_projector_plan_create(&p, c, geo, &o), KR_ERR_INVALID_ARG);
    o.ray_factor = -1;
    KT_STATUS(kr_ct_projector_plan_create(&p, c, geo, &o), KR_ERR_INVALID_ARG);
    KT_CHECK(p == NULL);
    kr_ct_grid g2;
    kr_ct_grid_2d(&g2, 8, 8, 1);
    kr_ct_scan s;
    kr_ct_scan_default(&s);
    s.det_count = 8;
    kr_ct_geom *geo2 = NULL;
    KT_OK(kr_ct_geom_create(&geo2, &s, &g2));
    o.ray_factor = 2;
    KT_STATUS(kr_ct_projector_plan_create(&p, c, geo2, &o), KR_ERR_NOT_SUPPORTED);
    o.ray_factor = 1;
    KT_OK(kr_ct_projector_plan_create(&p, c, geo2, &o)); /* 1 (and 0) are fine for 2-D */
    kr_ct_projector_plan_destroy(p);

    p = plan(c, geo, KR_CT_JOSEPH, KR_F32, 1);
    kr_array *vol = vol_for(geo, KR_F32), *pr = proj_for(geo, KR_F32);
    kr_array *v64 = vol_for(geo, KR_F64);
    KT_STATUS(kr_ct_projector_forward(NULL, vol, pr), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ct_projector_forward(p, NULL, pr), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ct_projector_adjoint(p, pr, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ct_projector_forward(p, v64, pr), KR_ERR_DTYPE);
    kr_array *badv = arr3(KR_F32, 10, 9, 9);
    KT_STATUS(kr_ct_projector_forward(p, badv, pr), KR_ERR_DIM);
    KT_CHECK(strstr(kr_last_error(), "volume is 10x9x9, the geometry expects 10x9x8 (x y z)") !=
             NULL);
    kr_array *bigp = arr3(KR_F32, 14, 11, 7);
    KT_STATUS(kr_ct_projector_adjoint(p, bigp, vol), KR_ERR_DIM);
    KT_CHECK(strstr(kr_last_error(), "projections are 14x11x7, the geometry expects 13x11x7 (u x v "
                                     "x view): the detector is smaller than the data") != NULL);
    kr_array *fewv = arr3(KR_F32, 13, 11, 6);
    KT_STATUS(kr_ct_projector_adjoint(p, fewv, vol), KR_ERR_DIM);
    KT_CHECK(strstr(kr_last_error(), "smaller") == NULL);
    kr_array dev;
    int64_t pd[3] = {13, 11, 7};
    KT_OK(kr_array_wrap(&dev, KR_F32, 3, pd, (void *)64, KR_DEVICE));
    KT_STATUS(kr_ct_projector_forward(p, vol, &dev), KR_ERR_LOCATION);
    kr_array alias;
    int64_t vd[3] = {10, 9, 8};
    KT_OK(kr_array_wrap(&alias, KR_F32, 3, vd, pr->data, KR_HOST));
    KT_STATUS(kr_ct_projector_forward(p, &alias, pr), KR_ERR_INVALID_ARG);

    /* projection checks: shapes, dtype, non-finite values with their count and position */
    KT_OK(kr_ct_check_projections(geo, pr, NULL));
    KT_STATUS(kr_ct_check_projections(geo, bigp, NULL), KR_ERR_DIM);
    KT_CHECK(strstr(kr_last_error(), "the detector is smaller than the data") != NULL);
    KT_STATUS(kr_ct_check_projections(geo, NULL, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ct_check_projections(NULL, pr, NULL), KR_ERR_INVALID_ARG);
    kr_array *cp = arr3(KR_C64, 13, 11, 7);
    KT_STATUS(kr_ct_check_projections(geo, cp, NULL), KR_ERR_DTYPE);
    set(pr, 13 * 11 + 2 * 13 + 1, NAN);
    set(pr, 13 * 11 * 5, INFINITY);
    set(pr, 13 * 11 * 6 + 3, NAN);
    KT_STATUS(kr_ct_check_projections(geo, pr, NULL), KR_ERR_INVALID_ARG);
    KT_CHECK_MSG(strstr(kr_last_error(),
                        "projections contain 2 NaN and 1 infinite value (the first "
                        "at u 1, v 2, view 1)") != NULL,
                 "%s", kr_last_error());
    kr_array *sino = NULL;
    int64_t sd[2] = {8, 180};
    KT_OK(kr_array_create(&sino, KR_F64, 2, sd, KR_HOST, NULL));
    KT_OK(kr_ct_check_projections(geo2, sino, NULL));
    ((double *)sino->data)[8 * 3 + 5] = -INFINITY;
    KT_STATUS(kr_ct_check_projections(geo2, sino, NULL), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "sinogram contains 0 NaN and 1 infinite value (the first at "
                                     "det 5, view 3)") != NULL);
    kr_array *all[] = {vol, pr, v64, badv, bigp, fewv, cp, sino};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++) kr_array_destroy(all[i]);
    kr_ct_projector_plan_destroy(p);
    kr_ct_geom_destroy(geo2);
    kr_ct_geom_destroy(geo);
    kr_ctx_destroy(c);
}

int main(void)
{
    KT_RUN(test_hand_rays);
    KT_RUN(test_brute_force);
    KT_RUN(test_phantom);
    KT_RUN(test_transpose);
    KT_RUN(test_adjoint_dot);
    KT_RUN(test_threads_bitwise);
    KT_RUN(test_bad_input);
    return kt_finish();
}
