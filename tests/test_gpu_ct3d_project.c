/* Cone-beam projectors on CUDA: parity with the CPU (forward and adjoint, Joseph and Siddon,
 * f32 and f64, sub-rays, circular and vector geometries with rays of every major axis), the
 * dot-product test on the device, run-to-run reproducibility of the atomic adjoint, the gather
 * adjoint of circular scans (several view batches, partial z slabs, bit-identical reruns), the
 * device non-finite check. Timings of the reference problem: kray bench cone. */
#include "ct/project3d_internal.h"
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

static kr_ct_geom *circ(int64_t nviews, double stop, int64_t nu, int64_t nv, double pitch,
                        double ou, double ov, double sod, double sdd, const kr_ct_grid *g)
{
    kr_ct_scan s;
    kr_ct_scan_default(&s);
    s.type = KR_CT_CONE;
    s.nviews = nviews;
    s.start_deg = 3;
    s.stop_deg = 3 + stop;
    s.det_count = nu;
    s.det_rows = nv;
    s.det_spacing_mm = pitch;
    s.det_offset_mm = ou;
    s.det_offset_v_mm = ov;
    s.sod_mm = sod;
    s.sdd_mm = sdd;
    kr_ct_geom *geo = NULL;
    KT_OK(kr_ct_geom_create(&geo, &s, g));
    return geo;
}

#define NGEOM 3
static kr_ct_geom *test_geom(int w, kr_ct_grid *g)
{
    kr_ct_grid_3d(g, 37, 30, 25, 1.0);
    g->voxel_mm[1] = 1.2;
    g->voxel_mm[2] = 0.9;
    g->offset_mm[0] = 0.7;
    if (w == 0) return circ(24, 360, 45, 33, 1.5, 1.1, -0.7, 90, 150, g);
    kr_ct_view v[4];
    memset(v, 0, sizeof v);
    kr_ct_geom *geo = NULL;
    if (w == 1) {
        v[0] = (kr_ct_view){
            {-3, -90, 4}, {0, 0, 0}, {5, 60, -2}, {1.4, 0.1, 0.05}, {0.02, -0.05, 1.3}};
        v[1] = (kr_ct_view){{95, 7, -9}, {0, 0, 0}, {-60, 3, 6}, {0.1, 1.5, 0}, {0, 0.1, 1.3}};
        v[2] = (kr_ct_view){{66, 66, 5}, {0, 0, 0}, {-42, -40, -3}, {1.0, -1.0, 0}, {0, 0, 1.4}};
        v[3] =
            (kr_ct_view){{-62, 64, 2}, {0, 0, 0}, {41, -40, 0}, {-1.0, -1.0, 0.1}, {0.1, 0, 1.2}};
        KT_OK(kr_ct_geom_create_views3d(&geo, KR_CT_CONE_VEC, 50, 40, v, 4, g));
        return geo;
    }
    v[0] = (kr_ct_view){{1, -2, -80}, {0, 0, 0}, {-1, 3, 60}, {1.5, 0, 0}, {0, 1.4, 0.1}};
    v[1] = (kr_ct_view){{-40, 1, 70}, {0, 0, 0}, {30, -1, -60}, {0, 1.5, 0}, {1.1, 0, 0.7}};
    KT_OK(kr_ct_geom_create_views3d(&geo, KR_CT_CONE_VEC, 48, 44, v, 2, g));
    return geo;
}

static kr_array *harr(const kr_ct_geom *g, int vol, kr_dtype t, uint64_t seed)
{
    kr_array *a = NULL;
    const kr_ct_grid *gr = kr_ct_geom_grid(g);
    int64_t d[3];
    if (vol)
        for (int i = 0; i < 3; i++) d[i] = gr->n[i];
    else
        kr_ct_geom_sino_dims(g, d);
    KT_OK(kr_array_create(&a, t, 3, d, KR_HOST, NULL));
    for (int64_t i = 0; seed && i < kr_array_numel(a); i++) {
        double v = 0.5 * (kri_rand_sym(seed, (uint64_t)i) + 1);
        if (t == KR_F64)
            ((double *)a->data)[i] = v;
        else
            ((float *)a->data)[i] = (float)v;
    }
    return a;
}

static double get(const kr_array *a, int64_t i)
{
    return a->dtype == KR_F64 ? ((const double *)a->data)[i] : ((const float *)a->data)[i];
}

/* max |a - b| / max |b| */
static double rel_diff(const kr_array *a, const kr_array *b)
{
    double d = 0, m = 0;
    for (int64_t i = 0; i < kr_array_numel(b); i++) {
        d = fmax(d, fabs(get(a, i) - get(b, i)));
        m = fmax(m, fabs(get(b, i)));
    }
    return m > 0 ? d / m : d;
}

/* Apply on a backend: host in -> host out (device copies for CUDA). */
static kr_array *apply(const kr_ctx *c, const kr_ct_geom *g, kr_ct_method m, kr_dtype t, int k,
                       const kr_array *in, int adjoint)
{
    kr_ct_projector_opts o;
    kr_ct_projector_opts_default(&o);
    o.method = m;
    o.dtype = t;
    o.ray_factor = k;
    kr_ct_projector_plan *p = NULL;
    KT_OK(kr_ct_projector_plan_create(&p, c, g, &o));
    kr_array *out = harr(g, adjoint, t, 0);
    if (kr_ctx_backend(c) == KR_BACKEND_CUDA) {
        kr_array *din = NULL, *dout = NULL;
        KT_OK(kr_array_clone(&din, in, KR_DEVICE, c));
        KT_OK(kr_array_create_like(&dout, out, KR_DEVICE, c));
        if (adjoint)
            KT_OK(kr_ct_projector_adjoint(p, din, dout));
        else
            KT_OK(kr_ct_projector_forward(p, din, dout));
        KT_OK(kr_array_copy(out, dout, c));
        kr_array_destroy(din);
        kr_array_destroy(dout);
    } else if (adjoint) {
        KT_OK(kr_ct_projector_adjoint(p, in, out));
    } else {
        KT_OK(kr_ct_projector_forward(p, in, out));
    }
    kr_ct_projector_plan_destroy(p);
    return out;
}

static void test_parity(void)
{
    kr_ctx *cpu = mkctx(KR_BACKEND_CPU), *gpu = mkctx(KR_BACKEND_CUDA);
    for (int w = 0; w < NGEOM; w++) {
        kr_ct_grid g;
        kr_ct_geom *geo = test_geom(w, &g);
        for (int m = 0; m < 2; m++)
            for (int t = 0; t < 2; t++)
                for (int k = 1; k <= 2; k++) {
                    kr_dtype dt = t ? KR_F32 : KR_F64;
                    kr_ct_method me = m ? KR_CT_SIDDON : KR_CT_JOSEPH;
                    kr_array *vol = harr(geo, 1, dt, 3), *pr = harr(geo, 0, dt, 4);
                    kr_array *fc = apply(cpu, geo, me, dt, k, vol, 0);
                    kr_array *fg = apply(gpu, geo, me, dt, k, vol, 0);
                    kr_array *bc = apply(cpu, geo, me, dt, k, pr, 1);
                    kr_array *bg = apply(gpu, geo, me, dt, k, pr, 1);
                    kr_array *bg2 = apply(gpu, geo, me, dt, k, pr, 1);
                    double ef = rel_diff(fg, fc), eb = rel_diff(bg, bc), er = rel_diff(bg2, bg);
                    printf("  geometry %d %s %s k=%d: forward %.2g, adjoint %.2g, adjoint "
                           "run-to-run %.2g\n",
                           w, m ? "siddon" : "joseph", t ? "f32" : "f64", k, ef, eb, er);
                    KT_LE(ef, t ? 2e-5 : 1e-12);
                    KT_LE(eb, t ? 2e-5 : 1e-12);
                    KT_LE(er, t ? 1e-5 : 1e-12);
                    kr_array *all[] = {vol, pr, fc, fg, bc, bg, bg2};
                    for (int i = 0; i < 7; i++) kr_array_destroy(all[i]);
                }
        kr_ct_geom_destroy(geo);
    }
    kr_ctx_destroy(cpu);
    kr_ctx_destroy(gpu);
}

static void test_adjoint_device(void)
{
    kr_ctx *gpu = mkctx(KR_BACKEND_CUDA);
    for (int w = 0; w < NGEOM; w++) {
        kr_ct_grid g;
        kr_ct_geom *geo = test_geom(w, &g);
        for (int m = 0; m < 2; m++)
            for (int t = 0; t < 2; t++) {
                kr_ct_projector_opts o;
                kr_ct_projector_opts_default(&o);
                o.method = m ? KR_CT_SIDDON : KR_CT_JOSEPH;
                o.dtype = t ? KR_F32 : KR_F64;
                o.ray_factor = 2;
                kr_linop *op = NULL;
                KT_OK(kr_ct_linop_create(&op, gpu, geo, &o));
                KT_CHECK(kr_linop_loc(op) == KR_DEVICE);
                double rel = 1;
                KT_OK(kr_linop_adjoint_test(op, 99 + (uint64_t)w, &rel));
                KT_LE(rel, t ? 1e-5 : 1e-12);
                kr_linop_destroy(op);
            }
        kr_ct_geom_destroy(geo);
    }
    kr_ctx_destroy(gpu);
}

/* The gather adjoint (project3d_gather.cu) of a circular scan: 70 views (three batches of at
 * most 32), 37 slices (slabs of 16: the last one partial), ~2 detector pixels per voxel, both
 * major axes in the views near 45 degrees; against the CPU's ray-driven adjoint, the
 * dot-product test, and two runs bit-identical (no atomics). Ray factor 2 and vector
 * geometries take the atomic adjoint (test_parity). */
static void test_gather(void)
{
    kr_ctx *cpu = mkctx(KR_BACKEND_CPU), *gpu = mkctx(KR_BACKEND_CUDA);
    kr_ct_grid g;
    kr_ct_grid_3d(&g, 40, 36, 37, 1.0);
    g.voxel_mm[2] = 0.8;
    g.offset_mm[1] = -1.3;
    kr_ct_geom *geo = circ(70, 250, 60, 50, 0.8, 0.9, -0.6, 90, 150, &g);
    for (int t = 0; t < 2; t++) {
        const kr_dtype dt = t ? KR_F32 : KR_F64;
        kr_ct_projector_opts o;
        kr_ct_projector_opts_default(&o);
        o.dtype = dt;
        kr_ct_projector_plan *p = NULL;
        KT_OK(kr_ct_projector_plan_create(&p, gpu, geo, &o));
        const kri_ct3_dev *d = p->dev;
        KT_CHECK_MSG(d->gather && d->gather_nvb == 32, "gather %d, batch %d", d->gather,
                     d->gather_nvb);
        kr_ct_projector_plan_destroy(p);
        kr_array *pr = harr(geo, 0, dt, 11);
        kr_array *bc = apply(cpu, geo, KR_CT_JOSEPH, dt, 1, pr, 1);
        kr_array *bg = apply(gpu, geo, KR_CT_JOSEPH, dt, 1, pr, 1);
        kr_array *bg2 = apply(gpu, geo, KR_CT_JOSEPH, dt, 1, pr, 1);
        const double eb = rel_diff(bg, bc);
        printf("  gather %s: |cuda - cpu| / max %.2g\n", t ? "f32" : "f64", eb);
        KT_LE(eb, t ? 2e-5 : 1e-12);
        KT_CHECK(memcmp(bg->data, bg2->data, (size_t)kr_array_numel(bg) * (t ? 4 : 8)) == 0);
        kr_linop *op = NULL;
        KT_OK(kr_ct_linop_create(&op, gpu, geo, &o));
        double rel = 1;
        KT_OK(kr_linop_adjoint_test(op, 7, &rel));
        printf("  gather %s: dot-product test %.2g\n", t ? "f32" : "f64", rel);
        KT_LE(rel, t ? 1e-5 : 1e-12);
        kr_linop_destroy(op);
        kr_array_destroy(pr);
        kr_array_destroy(bc);
        kr_array_destroy(bg);
        kr_array_destroy(bg2);
    }
    /* sub-rays: no gather */
    kr_ct_projector_opts o;
    kr_ct_projector_opts_default(&o);
    o.ray_factor = 2;
    kr_ct_projector_plan *p = NULL;
    KT_OK(kr_ct_projector_plan_create(&p, gpu, geo, &o));
    KT_CHECK(!((const kri_ct3_dev *)p->dev)->gather);
    kr_ct_projector_plan_destroy(p);
    kr_ct_geom_destroy(geo);
    kr_ctx_destroy(cpu);
    kr_ctx_destroy(gpu);
}

static void test_checks_device(void)
{
    kr_ctx *gpu = mkctx(KR_BACKEND_CUDA);
    kr_ct_grid g;
    kr_ct_geom *geo = test_geom(0, &g);
    kr_array *pr = harr(geo, 0, KR_F32, 5), *d = NULL;
    float *f = pr->data;
    f[45 * 33 * 2 + 45 * 7 + 9] = NAN;
    f[45 * 33 * 20] = INFINITY;
    KT_OK(kr_array_clone(&d, pr, KR_DEVICE, gpu));
    KT_STATUS(kr_ct_check_projections(geo, d, gpu), KR_ERR_INVALID_ARG);
    KT_CHECK_MSG(strstr(kr_last_error(), "contain 1 NaN and 1 infinite value (the first at u 9, v "
                                         "7, view 2)") != NULL,
                 "%s", kr_last_error());
    KT_STATUS(kr_ct_check_projections(geo, d, NULL), KR_ERR_INVALID_ARG);
    /* host arrays with a CUDA plan, device arrays with a CPU plan */
    kr_ctx *cpu = mkctx(KR_BACKEND_CPU);
    kr_ct_projector_plan *p = NULL;
    KT_OK(kr_ct_projector_plan_create(&p, gpu, geo, NULL));
    kr_array *vol = harr(geo, 1, KR_F32, 0);
    KT_STATUS(kr_ct_projector_forward(p, vol, d), KR_ERR_LOCATION);
    kr_ct_projector_plan_destroy(p);
    KT_OK(kr_ct_projector_plan_create(&p, cpu, geo, NULL));
    KT_STATUS(kr_ct_projector_adjoint(p, d, vol), KR_ERR_LOCATION);
    kr_ct_projector_plan_destroy(p);
    kr_array_destroy(vol);
    kr_array_destroy(pr);
    kr_array_destroy(d);
    kr_ct_geom_destroy(geo);
    kr_ctx_destroy(cpu);
    kr_ctx_destroy(gpu);
}

int main(void)
{
    kt_require_gpu();
    KT_RUN(test_parity);
    KT_RUN(test_adjoint_device);
    KT_RUN(test_gather);
    KT_RUN(test_checks_device);
    return kt_finish();
}
