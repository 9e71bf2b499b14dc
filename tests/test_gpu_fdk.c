/* FDK on CUDA: parity with the CPU, the backprojection kernels against each other (bit for
 * bit), every combination of array locations, out of core against in core, and bad input on
 * the device. Skipped (77) without a GPU. */
#include "ct/fdk_bench.h"
#include "test_fdk_util.h"

#include <stdio.h>
#include <stdlib.h>

static kr_ctx *make_ctx(kr_backend b)
{
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, b));
    KT_OK(kr_ctx_set_quiet(c, 1));
    KT_OK(kr_ctx_set_log_level(c, KR_LOG_ERROR));
    return c;
}

/* Run FDK (weight 1) or the plain backprojection (0) with the given locations and tuning (t
 * NULL: the defaults). */
static kr_array *run_tuned(const kr_ctx *ctx, const kt_cone *c, const kr_fdk_opts *o,
                           const kri_fdk_tune *t, const kr_array *proj_h, kr_loc pl, kr_loc vl,
                           int weight, kr_fdk_info *info)
{
    kr_ct_view *v = kt_cone_views(c);
    kr_fdk_plan *p = NULL;
    kr_array *pd = NULL, *vd = NULL, *vh = NULL;
    kr_status s = kri_fdk_plan_create_views_tuned(&p, ctx, c->nu, c->nv, v, c->nviews, &c->grid,
                                                  o, t);
    free(v);
    if (s != KR_OK) {
        KT_OK(s);
        return NULL;
    }
    KT_OK(kr_array_clone(&pd, proj_h, pl, ctx));
    KT_OK(kr_array_create(&vd, KR_F32, 3, c->grid.n, vl, ctx));
    s = weight ? kr_fdk_execute(p, pd, vd) : kr_fdk_backproject(p, pd, vd);
    KT_OK(s);
    if (info) KT_OK(kr_fdk_plan_info(p, info));
    if (s == KR_OK) KT_OK(kr_array_clone(&vh, vd, KR_HOST, ctx));
    kr_array_destroy(pd);
    kr_array_destroy(vd);
    kr_fdk_plan_destroy(p);
    return vh;
}

static kr_array *run(const kr_ctx *ctx, const kt_cone *c, const kr_fdk_opts *o,
                     const kr_array *proj_h, kr_loc pl, kr_loc vl, int weight,
                     kr_fdk_info *info)
{
    return run_tuned(ctx, c, o, NULL, proj_h, pl, vl, weight, info);
}

static int same_bits(const kr_array *a, const kr_array *b)
{
    return a && b && memcmp(a->data, b->data, kr_array_bytes(a)) == 0;
}

static double rel(const kr_array *a, const kr_array *b)
{
    double r = 0;
    if (!a || !b) return INFINITY;
    double d = kt_maxdiff(a, b, &r);
    return d / (r > 0 ? r : 1);
}

static void test_parity(void)
{
    kt_cone c;
    kt_cone_default(&c, 64, 1.0, 120);
    kr_array *proj = kt_cone_project_sl(&c);
    kr_ctx *cpu = make_ctx(KR_BACKEND_CPU), *gpu = make_ctx(KR_BACKEND_CUDA);
    kr_fdk_info gi;
    kr_array *vc = run(cpu, &c, NULL, proj, KR_HOST, KR_HOST, 1, NULL);
    kr_array *vg = run(gpu, &c, NULL, proj, KR_DEVICE, KR_DEVICE, 1, &gi);
    double e = rel(vg, vc);
    printf("  FDK 64^3 x 120, CPU vs CUDA (%s): max |diff| / max %.3g%s\n", gi.kernel, e,
           same_bits(vg, vc) ? " (bit-identical)" : "");
    KT_LE(e, 1e-5);
    /* the filter's cuFFT store callbacks (default from 2^26 cells; forced here through the
     * environment, which overrides kri_fdk_tune.fuse) give the separate passes' result */
    setenv("KRAY_CUFFT_CALLBACKS", "1", 1);
    kr_array *vs = run(gpu, &c, NULL, proj, KR_DEVICE, KR_DEVICE, 1, NULL);
    unsetenv("KRAY_CUFFT_CALLBACKS");
    e = rel(vg, vs);
    printf("  CUDA with and without the filter's cuFFT callbacks: max |diff| / max %.3g%s\n", e,
           same_bits(vg, vs) ? " (bit-identical)" : "");
    KT_LE(e, 1e-6);
    kr_array_destroy(vs);
    /* plain backprojection: the same arithmetic as the CPU's AVX-512 kernel */
    kr_array *bc = run(cpu, &c, NULL, proj, KR_HOST, KR_HOST, 0, NULL);
    kr_array *bg = run(gpu, &c, NULL, proj, KR_DEVICE, KR_DEVICE, 0, NULL);
    e = rel(bg, bc);
    printf("  backprojection CPU vs CUDA: max |diff| / max %.3g%s\n", e,
           same_bits(bg, bc) ? " (bit-identical)" : "");
    KT_LE(e, 5e-6); /* bit-identical with the CPU's AVX-512 kernel; the portable one has no FMA */
    /* accuracy on the device, as on the CPU */
    kr_array *ref = NULL;
    KT_OK(kr_phantom_3d(&ref, KR_PHANTOM_MODIFIED_SL, 64, 64, 64, 3, KR_F32));
    if (vg) {
        kr_array *a = kt_slice(vg, 32), *b = kt_slice(ref, 32);
        double n = 0;
        KT_OK(kr_nrmse(NULL, a, b, &n));
        printf("  CUDA: NRMSE of slice 32 %.4f\n", n);
        KT_LE(n, 0.21);
        kr_array_destroy(a);
        kr_array_destroy(b);
    }
    kr_array_destroy(ref);
    kr_array_destroy(vc);
    kr_array_destroy(vg);
    kr_array_destroy(bc);
    kr_array_destroy(bg);
    kr_array_destroy(proj);
    kr_ctx_destroy(cpu);
    kr_ctx_destroy(gpu);
}

/* FDK of the Shepp-Logan projections of c through align and through pipe: the same bits. */
static void align_vs_pipe(const kr_ctx *gpu, const kt_cone *c, const char *what)
{
    kr_array *proj = kt_cone_project_sl(c);
    kri_fdk_tune t;
    kri_fdk_tune_default(&t);
    t.kernel = KRI_FDK_KERNEL_PIPE;
    kr_array *r = run_tuned(gpu, c, NULL, &t, proj, KR_DEVICE, KR_DEVICE, 1, NULL);
    t.kernel = KRI_FDK_KERNEL_ALIGN;
    kr_array *v = run_tuned(gpu, c, NULL, &t, proj, KR_DEVICE, KR_DEVICE, 1, NULL);
    printf("  kernel align, %s: vs pipe %s\n", what, same_bits(v, r) ? "identical" : "DIFFERENT");
    KT_CHECK(same_bits(v, r));
    kr_array_destroy(v);
    kr_array_destroy(r);
    kr_array_destroy(proj);
}

static void test_kernels_and_locations(void)
{
    /* 3.3 pixels per voxel: a 16 x 16 x 16 block's footprint fits the smem tile in views
     * along the axes but not in diagonal ones, so staged and fallback blocks mix */
    kt_cone c;
    kt_cone_default(&c, 40, 1.0, 50);
    c.grid.n[2] = 37;
    c.pitch_u = c.pitch_v = 0.6;
    c.nu = 200, c.nv = 150;
    c.off_u = 2.3, c.off_v = -1.7;
    kr_array *proj = kt_cone_project_sl(&c);
    kr_ctx *gpu = make_ctx(KR_BACKEND_CUDA), *cpu = make_ctx(KR_BACKEND_CPU);
    kr_fdk_opts o;
    kr_fdk_opts_default(&o);
    kr_array *ref = run(gpu, &c, &o, proj, KR_DEVICE, KR_DEVICE, 1, NULL);
    kr_array *cref = run(cpu, &c, &o, proj, KR_HOST, KR_HOST, 1, NULL);
    KT_LE(rel(ref, cref), 1e-5);
    kri_fdk_tune t;
    kri_fdk_tune_default(&t);
    for (int k = KRI_FDK_KERNEL_SMEM; k < KRI_FDK_KERNEL_COUNT; k++) {
        t.kernel = (kri_fdk_kernel)k;
        kr_fdk_info info;
        kr_array *v = run_tuned(gpu, &c, &o, &t, proj, KR_DEVICE, KR_DEVICE, 1, &info);
        printf("  kernel %s: max |diff| / max vs auto %.3g\n", info.kernel, rel(v, ref));
        KT_CHECK(same_bits(v, ref)); /* every kernel reads the same values in the same order */
        kr_array_destroy(v);
    }
    /* a detector width that is not a multiple of 4: the align kernel stages with 4-byte copies */
    kt_cone c1 = c;
    c1.nu = 201;
    align_vs_pipe(gpu, &c1, "201 detector columns");
    /* one detector pixel per voxel: small footprints */
    c1 = c;
    c1.pitch_u = c1.pitch_v = 2.0;
    c1.nu = 64, c1.nv = 56;
    align_vs_pipe(gpu, &c1, "1 pixel per voxel");
    /* 5.7 pixels per voxel: most blocks' footprints exceed the align kernel's tile (9536
     * cells), which then reads global memory instead */
    c1 = c;
    c1.pitch_u = c1.pitch_v = 0.35;
    c1.nu = 330, c1.nv = 230;
    align_vs_pipe(gpu, &c1, "5.7 pixels per voxel");
    /* a detector narrower and shorter than the volume's shadow: on many views every column of
     * a warp has its samples off the detector (u) or off its rows (v) and the align kernel skips
     * them; the pipe kernel adds the zeros */
    c1 = c;
    c1.nu = 60, c1.nv = 30;
    align_vs_pipe(gpu, &c1, "a detector smaller than the volume's shadow");
    kr_fdk_opts_default(&o);
    for (int pl = 0; pl < 2; pl++)
        for (int vl = 0; vl < 2; vl++) {
            kr_array *v = run(gpu, &c, &o, proj, pl ? KR_DEVICE : KR_HOST,
                              vl ? KR_DEVICE : KR_HOST, 1, NULL);
            printf("  projections on the %s, volume on the %s: %s\n", pl ? "device" : "host",
                   vl ? "device" : "host", same_bits(v, ref) ? "identical" : "DIFFERENT");
            KT_CHECK(same_bits(v, ref));
            kr_array_destroy(v);
        }
    kr_array_destroy(ref);
    kr_array_destroy(cref);
    kr_array_destroy(proj);
    kr_ctx_destroy(gpu);
    kr_ctx_destroy(cpu);
}

static void test_out_of_core(void)
{
    kt_cone c;
    kt_cone_default(&c, 48, 1.0, 72);
    c.grid.n[2] = 45;
    kr_array *proj = kt_cone_project_sl(&c);
    kr_ctx *gpu = make_ctx(KR_BACKEND_CUDA);
    kr_fdk_opts o;
    kr_fdk_opts_default(&o);
    kr_fdk_info info;
    kr_array *in = run(gpu, &c, &o, proj, KR_HOST, KR_HOST, 1, &info);
    KT_CHECK(info.slabs == 1);
    /* budgets (fractions of the in-core schedule's bytes) that force several slabs or
     * batches, projections and volume on the host */
    const int64_t incore = info.device_bytes;
    const double frac[] = {0.5, 0.25, 0.12};
    int64_t max_slabs = 0;
    for (int b = 0; b < 3; b++) {
        o.gpu_mem = (int64_t)(frac[b] * (double)incore);
        kr_array *v = run(gpu, &c, &o, proj, KR_HOST, KR_HOST, 1, &info);
        double e = rel(v, in);
        printf("  budget %lld KiB: %lld slabs of %lld, batches of %lld views, %lld bytes: max "
               "|diff| / max vs in core %.3g%s\n",
               (long long)o.gpu_mem >> 10, (long long)info.slabs, (long long)info.slab_z,
               (long long)info.batch_views, (long long)info.device_bytes, e,
               same_bits(v, in) ? " (bit-identical)" : "");
        KT_CHECK(info.slabs > 1 || info.batch_views < c.nviews);
        if (info.slabs > max_slabs) max_slabs = info.slabs;
        KT_LE(info.device_bytes, o.gpu_mem);
        KT_LE(e, 2e-6); /* identical to float rounding (the FFT filter pairs rows per band) */
        kr_array_destroy(v);
    }
    KT_CHECK(max_slabs > 1);
    /* forced small slabs and batches with device arrays (the last batch short: 72 = 14 x 5 +
     * 2), also with the filter's cuFFT callbacks and its zero-padded input forced on */
    for (int cb = 0; cb < 2; cb++) {
        kr_fdk_opts_default(&o);
        o.slab_z = 7;
        o.batch_views = 5;
        kri_fdk_tune t;
        kri_fdk_tune_default(&t);
        t.fuse = cb;
        kr_array *v = run_tuned(gpu, &c, &o, &t, proj, KR_DEVICE, KR_DEVICE, 1, &info);
        KT_CHECK(info.slabs == 7 && info.batch_views == 5);
        KT_LE(rel(v, in), 2e-6);
        kr_array_destroy(v);
    }
    /* a budget too small for one slice and one view */
    kr_fdk_opts_default(&o);
    o.gpu_mem = 4096;
    kr_ct_view *views = kt_cone_views(&c);
    kr_fdk_plan *p = NULL;
    KT_OK(kr_fdk_plan_create_views(&p, gpu, c.nu, c.nv, views, c.nviews, &c.grid, &o));
    kr_array *vol = kt_vol(&c);
    KT_STATUS(kr_fdk_execute(p, proj, vol), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "too small") != NULL);
    printf("  %s\n", kr_last_error());
    /* NaN on the device: counted there */
    kr_array *pd = NULL;
    ((float *)proj->data)[3 + c.nu * (4 + c.nv * 5)] = NAN;
    ((float *)proj->data)[9 + c.nu * (4 + c.nv * 6)] = -INFINITY;
    KT_OK(kr_array_clone(&pd, proj, KR_DEVICE, gpu));
    kr_fdk_plan_destroy(p);
    kr_fdk_opts_default(&o);
    KT_OK(kr_fdk_plan_create_views(&p, gpu, c.nu, c.nv, views, c.nviews, &c.grid, &o));
    KT_STATUS(kr_fdk_execute(p, pd, vol), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "1 NaN and 1 infinite") != NULL);
    KT_CHECK(strstr(kr_last_error(), "u 3, v 4, view 5") != NULL);
    printf("  %s\n", kr_last_error());
    kr_array_destroy(pd);
    kr_array_destroy(vol);
    kr_fdk_plan_destroy(p);
    free(views);
    kr_array_destroy(in);
    kr_array_destroy(proj);
    kr_ctx_destroy(gpu);
}

static void test_short_scan_and_general(void)
{
    kt_cone c;
    kt_cone_default(&c, 40, 1.0, 60);
    c.arc_deg = 215.0 * 60 / 59;
    kr_array *proj = kt_cone_project_sl(&c);
    kr_ctx *cpu = make_ctx(KR_BACKEND_CPU), *gpu = make_ctx(KR_BACKEND_CUDA);
    kr_array *vc = run(cpu, &c, NULL, proj, KR_HOST, KR_HOST, 1, NULL);
    kr_array *vg = run(gpu, &c, NULL, proj, KR_HOST, KR_DEVICE, 1, NULL);
    printf("  short scan CPU vs CUDA: %.3g\n", rel(vg, vc));
    KT_LE(rel(vg, vc), 1e-5);
    kr_array_destroy(vc);
    kr_array_destroy(vg);
    kr_array_destroy(proj);
    /* a tilted detector: the general kernel */
    kt_cone_default(&c, 24, 1.0, 30);
    kr_ct_view *v = kt_cone_views(&c);
    for (int64_t m = 0; m < c.nviews; m++) {
        double t = 0.1, u0[3], v0[3];
        memcpy(u0, v[m].u, sizeof u0);
        memcpy(v0, v[m].v, sizeof v0);
        for (int d = 0; d < 3; d++) {
            v[m].u[d] = cos(t) * u0[d] + sin(t) * v0[d];
            v[m].v[d] = cos(t) * v0[d] - sin(t) * u0[d];
        }
    }
    int64_t pd[3] = {c.nu, c.nv, c.nviews};
    kr_array *q = NULL, *b1 = kt_vol(&c), *b2 = NULL, *qd = NULL, *bd = NULL;
    KT_OK(kr_array_create(&q, KR_F32, 3, pd, KR_HOST, NULL));
    for (int64_t i = 0; i < kr_array_numel(q); i++)
        ((float *)q->data)[i] = (float)((i * 7919) % 1009) / 1009.0f;
    kr_fdk_plan *p1 = NULL, *p2 = NULL;
    KT_OK(kr_fdk_plan_create_views(&p1, cpu, c.nu, c.nv, v, c.nviews, &c.grid, NULL));
    KT_OK(kr_fdk_plan_create_views(&p2, gpu, c.nu, c.nv, v, c.nviews, &c.grid, NULL));
    KT_OK(kr_fdk_backproject(p1, q, b1));
    KT_OK(kr_array_clone(&qd, q, KR_DEVICE, gpu));
    KT_OK(kr_array_create(&bd, KR_F32, 3, c.grid.n, KR_DEVICE, gpu));
    KT_OK(kr_fdk_backproject(p2, qd, bd));
    KT_OK(kr_array_clone(&b2, bd, KR_HOST, gpu));
    kr_fdk_info info;
    KT_OK(kr_fdk_plan_info(p2, &info));
    printf("  general path (%s) CPU vs CUDA: %.3g%s\n", info.kernel, rel(b2, b1),
           same_bits(b1, b2) ? " (bit-identical)" : "");
    KT_CHECK(info.fast_path == 0);
    KT_LE(rel(b2, b1), 5e-6);
    kr_fdk_plan_destroy(p1);
    kr_fdk_plan_destroy(p2);
    kr_array_destroy(q);
    kr_array_destroy(qd);
    kr_array_destroy(b1);
    kr_array_destroy(b2);
    kr_array_destroy(bd);
    free(v);
    kr_ctx_destroy(cpu);
    kr_ctx_destroy(gpu);
}

int main(void)
{
    kt_require_gpu();
    KT_RUN(test_parity);
    KT_RUN(test_kernels_and_locations);
    KT_RUN(test_out_of_core);
    KT_RUN(test_short_scan_and_general);
    return kt_finish();
}
