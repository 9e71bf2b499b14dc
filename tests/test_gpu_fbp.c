/* FBP and ramp filters on the GPU against the CPU backend: every geometry, f32 (tiled
 * shared-memory kernel) and f64 (global kernel), partial tiles, view groups, the global
 * fallback for wide detector windows, batches, clamping, short scans, run-to-run determinism,
 * split execution; the FFT filter with and without cuFFT's store callbacks (the timings are
 * `kray bench fbp2d`). Exits 77 without a CUDA device. */
#include "internal.h"
#include "ct/filter_internal.h"
#include "test_fbp_util.h"

#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <math.h>

static kr_ctx *cuda_ctx(void)
{
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CUDA));
    return c;
}

/* FBP on the GPU (device arrays, host copies back) of a host sinogram. */
static kr_array *gpu_fbp(kr_ctx *c, const kr_ct_geom *g, const kr_fbp_opts *o, const kr_array *sino,
                         kr_fbp_info *info)
{
    kr_fbp_plan *p = NULL;
    KT_OK(kr_fbp_plan_create(&p, c, g, o));
    if (!p) return NULL;
    if (info) KT_OK(kr_fbp_plan_info(p, info));
    int64_t dims[3];
    kr_ct_geom_image_dims(g, dims);
    dims[2] = sino->ndim > 2 ? sino->dims[2] : 1;
    kr_array *ds = NULL, *di = NULL, *h = NULL;
    KT_OK(kr_array_clone(&ds, sino, KR_DEVICE, c));
    KT_OK(kr_array_create(&di, o->dtype, dims[2] > 1 ? 3 : 2, dims, KR_DEVICE, c));
    KT_OK(kr_fbp_execute(p, ds, di));
    KT_OK(kr_array_clone(&h, di, KR_HOST, c));
    kr_array_destroy(ds);
    kr_array_destroy(di);
    kr_fbp_plan_destroy(p);
    return h;
}

static double maxdiff(const kr_array *a, const kr_array *b, double *range)
{
    double d = 0, m = 0;
    for (int64_t i = 0; i < kr_array_numel(a); i++) {
        d = fmax(d, fabs(kr_array_get_f64(a, i) - kr_array_get_f64(b, i)));
        m = fmax(m, fabs(kr_array_get_f64(b, i)));
    }
    *range = m;
    return d;
}

typedef struct pcase {
    const char *name;
    kr_ct_type type;
    int64_t nv, ndet, n;
    double start, stop, pitch, vox;
} pcase;

static void test_parity(void)
{
    kr_ctx *c = cuda_ctx();
    int ne;
    kr_ellipse *e = tf_ellipses(KR_PHANTOM_MODIFIED_SL, 80.0, 0, 0, &ne);
    const pcase cases[] = {
        {"parallel 256^2 / 360", KR_CT_PARALLEL2D, 360, 256, 256, 0, 180, 0.7, 0.7},
        {"parallel 100x100, partial tiles, view groups", KR_CT_PARALLEL2D, 400, 150, 100, 0, 180,
         1.6, 1.7},
        {"parallel 360 deg, pitch 0.25 (wide window)", KR_CT_PARALLEL2D, 90, 900, 64, 0, 360, 0.25,
         2.6},
        {"fan flat 200^2 / 360", KR_CT_FAN2D_FLAT, 360, 300, 200, 0, 360, 1.2, 0.85},
        {"fan equiangular 200^2 / 360", KR_CT_FAN2D_EQUIANGULAR, 360, 300, 200, 0, 360, 1.2, 0.85},
        {"fan flat short scan 220", KR_CT_FAN2D_FLAT, 330, 300, 200, 20, 240, 1.2, 0.85},
        {"fan equiangular short scan, clockwise", KR_CT_FAN2D_EQUIANGULAR, 330, 300, 200, 240, 20,
         1.2, 0.85},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const pcase *pc = &cases[k];
        kr_ct_geom *g = tf_geom(pc->type, pc->nv, pc->start, pc->stop, pc->ndet, pc->pitch, 300,
                                600, pc->n, pc->vox);
        for (int d = 0; d < 2; d++) {
            kr_fbp_opts o;
            kr_fbp_opts_default(&o);
            o.dtype = d ? KR_F64 : KR_F32;
            kr_array *s = tf_sinogram(g, e, ne, o.dtype);
            kr_array *cpu = tf_fbp(KR_BACKEND_CPU, g, &o, s);
            kr_fbp_info info;
            kr_array *gpu = gpu_fbp(c, g, &o, s, &info), *gpu2 = gpu_fbp(c, g, &o, s, NULL);
            double range, dm = maxdiff(gpu, cpu, &range);
            printf("  %-44s %s: kernel %-22s groups %d, max |gpu - cpu| %.3g (rel. %.2e)\n",
                   pc->name, kr_dtype_name(o.dtype), info.kernel, info.view_groups, dm, dm / range);
            /* f32: cuFFT vs FFTW filtering and FMA in the view sum; measured <= 2.7e-5 (H100) */
            KT_LE(dm / range, d ? 1e-12 : 5e-5);
            KT_CHECK(memcmp(gpu->data, gpu2->data, kr_array_bytes(gpu)) == 0); /* run to run */
            kr_array_destroy(s);
            kr_array_destroy(cpu);
            kr_array_destroy(gpu);
            kr_array_destroy(gpu2);
        }
        kr_ct_geom_destroy(g);
    }
    free(e);
    kr_ctx_destroy(c);
}

/* A centre-of-rotation offset (60 mm at 250 mm) with a flat detector: the device reconstructs a
 * uniform disk's density, as the host does (tests/test_fbp.c), in f32 and f64. */
static void test_cor_offset(void)
{
    kr_ctx *c = cuda_ctx();
    const kr_ellipse disk = {0.02, 40.0, 40.0, 5.0, -3.0, 0.0};
    kr_ct_geom *g =
        tf_geom_offset(KR_CT_FAN2D_FLAT, 720, 0, 360, 400, 0.9, 250, 500, 128, 1.0, 60, 120);
    for (int d = 0; d < 2; d++) {
        kr_fbp_opts o;
        kr_fbp_opts_default(&o);
        o.dtype = d ? KR_F64 : KR_F32;
        kr_array *s = tf_sinogram(g, &disk, 1, o.dtype), *gpu = gpu_fbp(c, g, &o, s, NULL);
        double m = gpu ? tf_disk_mean(gpu, g, 5.0, -3.0, 30.0) : 0;
        printf("  fan flat, cor offset 60 mm, %s: disk mean %.6f (density 0.02)\n",
               kr_dtype_name(o.dtype), m);
        KT_NEAR(m, 0.02, 5e-4 * 0.02); /* the weights of a centred source gave -5.4 % */
        kr_array_destroy(s);
        kr_array_destroy(gpu);
    }
    kr_ct_geom_destroy(g);
    kr_ctx_destroy(c);
}

/* Filters on the device against the host, batches, clamping, split execution. */
static void test_filters_batches_split(void)
{
    kr_ctx *c = cuda_ctx();
    int ne;
    kr_ellipse *e = tf_ellipses(KR_PHANTOM_SHEPP_LOGAN, 60.0, 0, 0, &ne);
    kr_ct_geom *g = tf_geom(KR_CT_PARALLEL2D, 181, 0, 180, 200, 0.8, 0, 0, 150, 0.9);
    const kr_filter_method meth[3] = {KR_FILTER_FFT, KR_FILTER_DIRECT, KR_FILTER_SEED};
    for (int m = 0; m < 3; m++)
        for (int d = 0; d < 2; d++) {
            kr_fbp_opts o;
            kr_fbp_opts_default(&o);
            o.dtype = d ? KR_F64 : KR_F32;
            o.filter = meth[m];
            o.clamp_negative = m == 2;
            if (m == 0) o.window = KR_WINDOW_HAMMING, o.cutoff = 0.8;
            kr_array *s = tf_sinogram(g, e, ne, o.dtype);
            kr_array *cpu = tf_fbp(KR_BACKEND_CPU, g, &o, s), *gpu = gpu_fbp(c, g, &o, s, NULL);
            double range, dm = maxdiff(gpu, cpu, &range);
            printf("  filter %-6s %s: max |gpu - cpu| rel. %.2e\n", kr_filter_method_name(o.filter),
                   kr_dtype_name(o.dtype), dm / range);
            /* f32: cuFFT vs FFTW filtering and FMA in the view sum; measured <= 2.7e-5 (H100) */
            KT_LE(dm / range, d ? 1e-12 : 5e-5);
            kr_array_destroy(s);
            kr_array_destroy(cpu);
            kr_array_destroy(gpu);
        }
    /* batch of 3 = three single runs; split filter + backproject = execute */
    kr_fbp_opts o;
    kr_fbp_opts_default(&o);
    kr_array *s = tf_sinogram(g, e, ne, KR_F32), *sb = NULL;
    int64_t sd[3] = {200, 181, 3};
    KT_OK(kr_array_create(&sb, KR_F32, 3, sd, KR_HOST, NULL));
    for (int b = 0; b < 3; b++)
        for (int64_t i = 0; i < 200 * 181; i++)
            ((float *)sb->data)[i + b * 200 * 181] = (float)(b + 1) * ((float *)s->data)[i];
    kr_array *one = gpu_fbp(c, g, &o, s, NULL), *all = gpu_fbp(c, g, &o, sb, NULL);
    for (int b = 0; b < 3; b++)
        for (int64_t i = 0; i < 150 * 150; i++)
            KT_NEAR(((float *)all->data)[i + b * 150 * 150], (b + 1) * ((float *)one->data)[i],
                    1e-5 * (b + 1));
    kr_fbp_plan *p = NULL;
    KT_OK(kr_fbp_plan_create(&p, c, g, &o));
    kr_array *ds = NULL, *di = NULL, *h = NULL;
    int64_t id[2] = {150, 150};
    KT_OK(kr_array_clone(&ds, s, KR_DEVICE, c));
    KT_OK(kr_array_create(&di, KR_F32, 2, id, KR_DEVICE, c));
    KT_OK(kr_fbp_filter(p, ds));
    KT_OK(kr_fbp_backproject(p, di));
    KT_OK(kr_array_clone(&h, di, KR_HOST, c));
    KT_CHECK(memcmp(h->data, one->data, kr_array_bytes(h)) == 0);
    /* host arrays with a CUDA plan are refused */
    KT_STATUS(kr_fbp_execute(p, s, h), KR_ERR_LOCATION);
    /* kr_filter_execute on device rows equals the host filter */
    kr_filter_opts fo;
    kr_filter_opts_default(&fo);
    kr_filter_plan *fp = NULL, *fh = NULL;
    kr_ctx *cpu = NULL;
    KT_OK(kr_ctx_create(&cpu, KR_BACKEND_CPU));
    KT_OK(kr_filter_plan_create(&fp, c, 200, 181, &fo));
    KT_OK(kr_filter_plan_create(&fh, cpu, 200, 181, &fo));
    kr_array *fd = NULL, *fhost = NULL, *fback = NULL;
    KT_OK(kr_array_create_like(&fhost, s, KR_HOST, NULL));
    KT_OK(kr_array_create_like(&fd, s, KR_DEVICE, c));
    KT_OK(kr_filter_execute(fh, s, fhost));
    KT_OK(kr_filter_execute(fp, ds, fd));
    KT_OK(kr_filter_execute(fp, ds, ds)); /* in place */
    KT_OK(kr_array_clone(&fback, ds, KR_HOST, c));
    double range, dm = maxdiff(fback, fhost, &range);
    KT_LE(dm / range, 5e-6); /* cuFFT vs FFTW, f32: measured 2.1e-6 (H100) */
    kr_array_destroy(fback);
    KT_OK(kr_array_clone(&fback, fd, KR_HOST, c));
    dm = maxdiff(fback, fhost, &range);
    KT_LE(dm / range, 5e-6);
    kr_filter_plan_destroy(fp);
    kr_filter_plan_destroy(fh);
    kr_ctx_destroy(cpu);
    kr_array_destroy(fd);
    kr_array_destroy(fhost);
    kr_array_destroy(fback);
    kr_fbp_plan_destroy(p);
    kr_array_destroy(ds);
    kr_array_destroy(di);
    kr_array_destroy(h);
    kr_array_destroy(one);
    kr_array_destroy(all);
    kr_array_destroy(s);
    kr_array_destroy(sb);
    kr_ct_geom_destroy(g);
    free(e);
    kr_ctx_destroy(c);
}

/* The FFT filter on the device through cuFFT's store callbacks (multiply, PLAIN unpack; fuse = 1
 * forces them at this small size) and through the separate passes (fuse = -1): the host
 * filter's values, f32 and f64, PLAIN and PAIRS, an odd row count (the last pair's missing
 * partner). The callbacks must link here (CUDA 13, sm_90): a silent fallback would lose their
 * speed. */
static void test_filter_callbacks(void)
{
    kr_ctx *c = cuda_ctx(), *cpu = NULL;
    KT_OK(kr_ctx_create(&cpu, KR_BACKEND_CPU));
    const int64_t nd = 301, nr = 37;
    for (int f64 = 0; f64 < 2; f64++) {
        kr_filter_opts fo;
        kr_filter_opts_default(&fo);
        fo.dtype = f64 ? KR_F64 : KR_F32;
        fo.window = KR_WINDOW_HANN;
        int64_t dims[2] = {nd, nr};
        kr_array *x = NULL, *xd = NULL, *yh = NULL;
        KT_OK(kr_array_create(&x, fo.dtype, 2, dims, KR_HOST, NULL));
        uint64_t z = 7;
        for (int64_t i = 0; i < nd * nr; i++) {
            double v = sin(0.05 * (double)(i % nd)) + 0.01 * (double)(i / nd) + kt_urand(&z);
            if (f64)
                ((double *)x->data)[i] = v;
            else
                ((float *)x->data)[i] = (float)v;
        }
        KT_OK(kr_array_clone(&xd, x, KR_DEVICE, c));
        kr_filter_plan *fh = NULL, *fp[2] = {NULL, NULL};
        KT_OK(kr_filter_plan_create(&fh, cpu, nd, nr, &fo));
        KT_OK(kr_array_create_like(&yh, x, KR_HOST, NULL));
        KT_OK(kr_filter_execute(fh, x, yh));
        fo.fuse = 1; /* also below the default size */
        KT_OK(kr_filter_plan_create(&fp[0], c, nd, nr, &fo));
        fo.fuse = -1;
        KT_OK(kr_filter_plan_create(&fp[1], c, nd, nr, &fo));
        KT_CHECK(fp[0] && fp[0]->st->fused);
        KT_CHECK(fp[1] && !fp[1]->st->fused);
        /* the environment overrides fuse, both ways; auto stays off at this size */
        kr_filter_plan *fe = NULL;
        setenv("KRAY_CUFFT_CALLBACKS", "1", 1);
        KT_OK(kr_filter_plan_create(&fe, c, nd, nr, &fo));
        KT_CHECK(fe && fe->st->fused);
        kr_filter_plan_destroy(fe);
        fo.fuse = 1;
        setenv("KRAY_CUFFT_CALLBACKS", "0", 1);
        KT_OK(kr_filter_plan_create(&fe, c, nd, nr, &fo));
        KT_CHECK(fe && !fe->st->fused);
        kr_filter_plan_destroy(fe);
        unsetenv("KRAY_CUFFT_CALLBACKS");
        fo.fuse = 0;
        KT_OK(kr_filter_plan_create(&fe, c, nd, nr, &fo));
        KT_CHECK(fe && !fe->st->fused);
        kr_filter_plan_destroy(fe);
        int64_t pdims[2] = {2 * KRI_PAD_ROW(nd), nr};
        kr_array *hp[2] = {NULL, NULL};
        for (int k = 0; k < 2 && fp[0] && fp[1]; k++) {
            kr_array *yd = NULL, *yb = NULL;
            KT_OK(kr_array_create_like(&yd, x, KR_DEVICE, c));
            KT_OK(kr_filter_execute(fp[k], xd, yd));
            KT_OK(kr_array_clone(&yb, yd, KR_HOST, c));
            double range, dm = maxdiff(yb, yh, &range);
            printf("  filter f%d, %s: PLAIN max |gpu - cpu| rel. %.2e\n", f64 ? 64 : 32,
                   k ? "separate passes" : "cuFFT callbacks", dm / range);
            KT_LE(dm / range, f64 ? 1e-13 : 5e-6);
            /* PAIRS (the FBP's rows): the callback forward, then the plain inverse */
            kr_array *pd = NULL;
            KT_OK(kr_array_create(&pd, fo.dtype, 2, pdims, KR_DEVICE, c));
            KT_OK(kri_filter_run(fp[k], xd->data, nd, pd->data, pdims[0], KRI_FILTER_PAIRS));
            KT_OK(kr_array_clone(&hp[k], pd, KR_HOST, c));
            kr_array_destroy(pd);
            kr_array_destroy(yd);
            kr_array_destroy(yb);
        }
        if (hp[0] && hp[1]) {
            double m, d = maxdiff(hp[0], hp[1], &m);
            printf("  filter f%d PAIRS, callbacks vs separate passes: rel. %.2e\n", f64 ? 64 : 32,
                   d / m);
            KT_LE(d / m, f64 ? 1e-14 : 1e-6);
        }
        kr_array_destroy(hp[0]);
        kr_array_destroy(hp[1]);
        kr_filter_plan_destroy(fh);
        kr_filter_plan_destroy(fp[0]);
        kr_filter_plan_destroy(fp[1]);
        kr_array_destroy(x);
        kr_array_destroy(xd);
        kr_array_destroy(yh);
    }
    kr_ctx_destroy(cpu);
    kr_ctx_destroy(c);
}

int main(void)
{
    kt_require_gpu();
    KT_RUN(test_parity);
    KT_RUN(test_cor_offset);
    KT_RUN(test_filters_batches_split);
    KT_RUN(test_filter_callbacks);
    return kt_finish();
}
