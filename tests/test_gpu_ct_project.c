/* 2-D projectors on CUDA: parity with the CPU (forward and adjoint, f32 and f64, every
 * geometry kind), the dot-product test on the device, run-to-run reproducibility, batches and
 * location errors. */
#include "internal.h"
#include "kray/ct.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>

static kr_ct_geom *geom(kr_ct_type t, int64_t nviews, double start, double stop, int64_t ndet,
                        double pitch, double doff, double cor, double sod, double sdd,
                        const kr_ct_grid *g)
{
    kr_ct_scan s;
    kr_ct_scan_default(&s);
    s.type = t;
    s.nviews = nviews;
    s.start_deg = start;
    s.stop_deg = stop;
    s.det_count = ndet;
    s.det_spacing_mm = pitch;
    s.det_offset_mm = doff;
    s.cor_offset_mm = cor;
    s.sod_mm = sod;
    s.sdd_mm = sdd;
    kr_ct_geom *geo = NULL;
    KT_OK(kr_ct_geom_create(&geo, &s, g));
    return geo;
}

static kr_array *host(kr_dtype t, int64_t d0, int64_t d1, int64_t nb, uint64_t seed)
{
    kr_array *a = NULL;
    int64_t dims[3] = {d0, d1, nb};
    KT_OK(kr_array_create(&a, t, nb > 1 ? 3 : 2, dims, KR_HOST, NULL));
    for (int64_t i = 0; seed && i < kr_array_numel(a); i++) {
        double v = kri_rand_sym(seed, (uint64_t)i);
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

/* Apply on a backend: host in -> host out (device copies for CUDA). */
static kr_array *apply(const kr_ctx *c, const kr_ct_geom *g, kr_ct_method m, kr_dtype t,
                       const kr_array *in, int adjoint)
{
    kr_ct_projector_opts o = {m, t, 0};
    kr_ct_projector_plan *p = NULL;
    KT_OK(kr_ct_projector_plan_create(&p, c, g, &o));
    int64_t nb = in->ndim > 2 ? in->dims[2] : 1;
    kr_array *out = adjoint ? host(t, kr_ct_geom_grid(g)->n[0], kr_ct_geom_grid(g)->n[1], nb, 0)
                            : host(t, kr_ct_geom_det_count(g), kr_ct_geom_nviews(g), nb, 0);
    int cuda = kr_ctx_backend(c) == KR_BACKEND_CUDA;
    kr_array *din = NULL, *dout = NULL;
    if (cuda) {
        KT_OK(kr_array_clone(&din, in, KR_DEVICE, c));
        KT_OK(kr_array_create_like(&dout, out, KR_DEVICE, c));
    }
    const kr_array *i_ = cuda ? din : in;
    kr_array *o_ = cuda ? dout : out;
    if (adjoint)
        KT_OK(kr_ct_projector_adjoint(p, i_, o_));
    else
        KT_OK(kr_ct_projector_forward(p, i_, o_));
    if (cuda) KT_OK(kr_array_copy(out, dout, c));
    kr_array_destroy(din);
    kr_array_destroy(dout);
    kr_ct_projector_plan_destroy(p);
    return out;
}

static double maxdiff_rel(const kr_array *a, const kr_array *b)
{
    double e = 0, m = 0;
    for (int64_t i = 0; i < kr_array_numel(a); i++) {
        e = fmax(e, fabs(get(a, i) - get(b, i)));
        m = fmax(m, fabs(get(a, i)));
    }
    return m > 0 ? e / m : e;
}

static double dot(const kr_array *a, const kr_array *b)
{
    double s = 0;
    for (int64_t i = 0; i < kr_array_numel(a); i++) s += get(a, i) * get(b, i);
    return s;
}

#define NG 5
static kr_ct_geom *make(int w, kr_ct_grid *g)
{
    kr_ct_grid_2d(g, 77, 64, 0.9);
    g->voxel_mm[1] = 1.1;
    g->offset_mm[0] = 0.6;
    switch (w) {
    case 0: return geom(KR_CT_PARALLEL2D, 120, 0, 180, 110, 0.8, 0.3, 0.1, 0, 0, g);
    case 1: return geom(KR_CT_PARALLEL2D, 37, 3, 363, 95, 1.7, -0.2, 0, 0, 0, g);
    case 2: return geom(KR_CT_FAN2D_FLAT, 90, 0, 360, 130, 1.2, 0.5, 0.2, 110, 190, g);
    case 3: return geom(KR_CT_FAN2D_EQUIANGULAR, 80, 10, 370, 120, 1.25, 0.1, -0.3, 90, 150, g);
    default: { /* vector geometry, tilted flat detector */
        kr_ct_view v[40];
        memset(v, 0, sizeof v);
        for (int i = 0; i < 40; i++) {
            double a = 0.3 + 0.157 * i;
            v[i].src[0] = -120 * cos(a);
            v[i].src[1] = -120 * sin(a);
            v[i].det[0] = 80 * cos(a) + 3 * sin(a);
            v[i].det[1] = 80 * sin(a) - 3 * cos(a);
            v[i].u[0] = 1.4 * cos(a + 1.9);
            v[i].u[1] = 1.4 * sin(a + 1.9);
        }
        kr_ct_geom *geo = NULL;
        KT_OK(kr_ct_geom_create_views(&geo, KR_CT_FAN2D_FLAT, 150, v, 40, g));
        return geo;
    }
    }
}

static void test_parity(void)
{
    kr_ctx *cpu = NULL, *gpu = NULL;
    KT_OK(kr_ctx_create(&cpu, KR_BACKEND_CPU));
    KT_OK(kr_ctx_create(&gpu, KR_BACKEND_CUDA));
    double worst[2][2] = {{0, 0}, {0, 0}};
    for (int w = 0; w < NG; w++) {
        kr_ct_grid g;
        kr_ct_geom *geo = make(w, &g);
        for (int m = 0; m < 2; m++)
            for (int t = 0; t < 2; t++) {
                kr_dtype dt = t ? KR_F32 : KR_F64;
                kr_ct_method me = m ? KR_CT_SIDDON : KR_CT_JOSEPH;
                kr_array *x = host(dt, g.n[0], g.n[1], 2, 3 + w);
                kr_array *y = host(dt, kr_ct_geom_det_count(geo), kr_ct_geom_nviews(geo), 2, 4 + w);
                kr_array *fc = apply(cpu, geo, me, dt, x, 0);
                kr_array *fg = apply(gpu, geo, me, dt, x, 0);
                kr_array *bc = apply(cpu, geo, me, dt, y, 1);
                kr_array *bg = apply(gpu, geo, me, dt, y, 1);
                double ef = maxdiff_rel(fc, fg), eb = maxdiff_rel(bc, bg);
                printf("  %s %s %s: |cuda - cpu| / max: forward %.2e, adjoint %.2e\n",
                       kr_ct_type_name(kr_ct_geom_type(geo)), kr_ct_method_name(me),
                       kr_dtype_name(dt), ef, eb);
                KT_LE(ef, t ? 1e-5 : 1e-12);
                KT_LE(eb, t ? 1e-5 : 1e-12);
                worst[t][0] = fmax(worst[t][0], ef);
                worst[t][1] = fmax(worst[t][1], eb);
                /* the device pair is itself a transpose pair */
                double l = dot(fg, y), r = dot(x, bg);
                double rel = fabs(l - r) / sqrt(dot(fg, fg) * dot(y, y));
                KT_LE(rel, t ? 1e-5 : 1e-12);
                /* reproducible run to run */
                kr_array *fg2 = apply(gpu, geo, me, dt, x, 0);
                kr_array *bg2 = apply(gpu, geo, me, dt, y, 1);
                KT_CHECK(memcmp(fg->data, fg2->data, kr_array_bytes(fg)) == 0);
                KT_CHECK(memcmp(bg->data, bg2->data, kr_array_bytes(bg)) == 0);
                kr_array *all[] = {x, y, fc, fg, bc, bg, fg2, bg2};
                for (size_t i = 0; i < sizeof all / sizeof *all; i++) kr_array_destroy(all[i]);
            }
        kr_ct_geom_destroy(geo);
    }
    printf("  worst |cuda - cpu| / max: f64 forward %.2e adjoint %.2e; f32 forward %.2e "
           "adjoint %.2e\n",
           worst[0][0], worst[0][1], worst[1][0], worst[1][1]);
    kr_ctx_destroy(cpu);
    kr_ctx_destroy(gpu);
}

static void test_locations(void)
{
    kr_ctx *gpu = NULL;
    KT_OK(kr_ctx_create(&gpu, KR_BACKEND_CUDA));
    kr_ct_grid g;
    kr_ct_geom *geo = make(0, &g);
    kr_ct_projector_plan *p = NULL;
    KT_OK(kr_ct_projector_plan_create(&p, gpu, geo, NULL));
    kr_array *x = host(KR_F32, g.n[0], g.n[1], 1, 1);
    kr_array *y = host(KR_F32, kr_ct_geom_det_count(geo), kr_ct_geom_nviews(geo), 1, 0);
    KT_STATUS(kr_ct_projector_forward(p, x, y), KR_ERR_LOCATION);
    KT_CHECK(strstr(kr_last_error(), "image is in host memory; expected device memory") !=
             NULL);
    kr_array *dx = NULL;
    KT_OK(kr_array_clone(&dx, x, KR_DEVICE, gpu));
    KT_STATUS(kr_ct_projector_forward(p, dx, y), KR_ERR_LOCATION);
    kr_array_destroy(dx);
    kr_array_destroy(x);
    kr_array_destroy(y);
    kr_ct_projector_plan_destroy(p);
    kr_ct_geom_destroy(geo);
    kr_ctx_destroy(gpu);
}

int main(void)
{
    kt_require_gpu();
    KT_RUN(test_parity);
    KT_RUN(test_locations);
    return kt_finish();
}
