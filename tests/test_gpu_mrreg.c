/* GPU parity of the regularised MRI reconstruction (kray/mrreg.h) and of the CPU wavelet step by
 * lines: BART's gradient (forward, adjoint test), the encodings (Cartesian with a mask and two
 * frames; radial non-Cartesian, its Toeplitz normal) and whole reconstructions on the device
 * against the CPU: Cartesian TV by ADMM, radial l1-wavelet by FISTA on the Toeplitz normal (with
 * random shifts: the same stream on both), LLR over two frames (through the host) and PDHG with
 * two terms. Tolerances: operators 1e-5, reconstructions 1e-3 relative (f32 iterations with
 * differently ordered reductions), the scale estimate 1e-5. */
#include "kt.h"
#include "reg/mrreg_internal.h"

#include <stdlib.h>
#include <string.h>

static kr_ctx *g_cpu, *g_gpu;

/* ||d - h|| / ||h|| for a device array d and a host array h (c64). */
static double rel(const kr_array *d, const kr_array *h)
{
    kr_array *c = NULL;
    KT_OK(kr_array_clone(&c, d, KR_HOST, g_gpu));
    if (!c) return INFINITY;
    double e = 0, r = 0;
    const float *a = c->data, *b = h->data;
    for (int64_t i = 0; i < 2 * kr_array_numel(h); i++) {
        e += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
        r += (double)b[i] * b[i];
    }
    kr_array_destroy(c);
    return r > 0 ? sqrt(e / r) : sqrt(e);
}

static kr_array *maps_c64(int64_t n, int nc)
{
    kr_array *a = NULL, *b = NULL;
    KT_OK(kr_phantom_coil_maps(&a, n, nc));
    KT_OK(kr_array_astype(&b, a, KR_C64));
    kr_array_destroy(a);
    return b;
}

static void test_gradient(void)
{
    const int64_t d[3] = {12, 10, 3};
    kr_array *x = kt_rand_complex(KR_C64, 3, d, 5), *dx = NULL, *h = NULL, *g = NULL;
    int64_t gd[4] = {12, 10, 3, 3};
    kr_linop *Gh = NULL, *Gd = NULL;
    KT_OK(kri_bart_grad_create(&Gh, g_cpu, 3, d, 7u));
    KT_OK(kri_bart_grad_create(&Gd, g_gpu, 3, d, 7u));
    KT_OK(kr_array_clone(&dx, x, KR_DEVICE, g_gpu));
    KT_OK(kr_array_create(&h, KR_C64, 4, gd, KR_HOST, NULL));
    KT_OK(kr_array_create(&g, KR_C64, 4, gd, KR_DEVICE, g_gpu));
    KT_OK(kr_linop_forward(Gh, x, h));
    KT_OK(kr_linop_forward(Gd, dx, g));
    KT_LE(rel(g, h), 1e-6);
    double a = 1;
    KT_OK(kr_linop_adjoint_test(Gd, 3, &a));
    KT_LE(a, 1e-5);
    kr_linop_destroy(Gh), kr_linop_destroy(Gd);
    kr_array_destroy(x), kr_array_destroy(dx), kr_array_destroy(h), kr_array_destroy(g);
}

/* Cartesian n^2 x C x 2 frames (half the samples kept) and radial data for the same maps. */
typedef struct prob {
    int64_t n, nc;
    kr_array *maps, *kc, *mask, *traj, *kr, *dkc, *dkr;
} prob;

static void prob_make(prob *p)
{
    memset(p, 0, sizeof *p);
    p->n = 32, p->nc = 4;
    const int64_t n = p->n, nc = p->nc;
    p->maps = maps_c64(n, (int)nc);
    int64_t kd[4] = {n, n, nc, 2}, md[3] = {n, n, 2};
    p->kc = kt_rand_complex(KR_C64, 4, kd, 11);
    KT_OK(kr_array_create(&p->mask, KR_F32, 3, md, KR_HOST, NULL));
    uint64_t z = 9;
    for (int64_t i = 0; i < n * n * 2; i++) ((float *)p->mask->data)[i] = kt_urand(&z) < 0.5;
    kr_radial_opts ro;
    kr_radial_opts_default(&ro);
    ro.samples = n;
    ro.oversampling = 2;
    ro.spokes = 12;
    KT_OK(kr_traj_radial(&p->traj, &ro));
    int64_t rd[2] = {kr_array_numel(p->traj) / 3, nc};
    p->kr = kt_rand_complex(KR_C64, 2, rd, 12);
    KT_OK(kr_array_clone(&p->dkc, p->kc, KR_DEVICE, g_gpu));
    KT_OK(kr_array_clone(&p->dkr, p->kr, KR_DEVICE, g_gpu));
}

static void prob_free(prob *p)
{
    kr_array_destroy(p->maps), kr_array_destroy(p->kc), kr_array_destroy(p->mask);
    kr_array_destroy(p->traj), kr_array_destroy(p->kr), kr_array_destroy(p->dkc);
    kr_array_destroy(p->dkr);
}

static kr_mrreg_data data(const prob *p, int cart, int dev)
{
    kr_mrreg_data d;
    memset(&d, 0, sizeof d);
    d.ndim = 2;
    d.dims[0] = d.dims[1] = p->n;
    d.frames = cart ? 2 : 1;
    d.maps = p->maps;
    d.kspace = cart ? (dev ? p->dkc : p->kc) : (dev ? p->dkr : p->kr);
    d.traj = cart ? NULL : p->traj;
    d.mask = cart ? p->mask : NULL;
    d.toeplitz = 1;
    return d;
}

static void test_encodings(void)
{
    prob p;
    prob_make(&p);
    for (int cart = 0; cart < 2; cart++) {
        kr_mrreg_data dh = data(&p, cart, 0), dd = data(&p, cart, 1);
        kr_linop *Eh = NULL, *Ed = NULL;
        double c1, c2, a = 1;
        KT_OK(kri_mrreg_encoding(&Eh, &c1, g_cpu, &dh, "test"));
        KT_OK(kri_mrreg_encoding(&Ed, &c2, g_gpu, &dd, "test"));
        KT_CHECK(c1 == c2);
        KT_OK(kr_linop_adjoint_test(Ed, 4, &a));
        KT_LE(a, 1e-5);
        int64_t xd[3] = {p.n, p.n, dh.frames}, yd[KR_MAX_DIMS];
        const int yn = kr_linop_out_dims(Eh, yd);
        kr_array *x = kt_rand_complex(KR_C64, 3, xd, 21), *dx = NULL, *h = NULL, *g = NULL;
        kr_array *nh = NULL, *ng = NULL;
        KT_OK(kr_array_clone(&dx, x, KR_DEVICE, g_gpu));
        KT_OK(kr_array_create(&h, KR_C64, yn, yd, KR_HOST, NULL));
        KT_OK(kr_array_create(&g, KR_C64, yn, yd, KR_DEVICE, g_gpu));
        KT_OK(kr_array_create_like(&nh, x, KR_HOST, NULL));
        KT_OK(kr_array_create_like(&ng, x, KR_DEVICE, g_gpu));
        KT_OK(kr_linop_forward(Eh, x, h));
        KT_OK(kr_linop_forward(Ed, dx, g));
        KT_LE(rel(g, h), 1e-5);
        KT_OK(kr_linop_normal(Eh, x, nh));
        KT_OK(kr_linop_normal(Ed, dx, ng));
        KT_LE(rel(ng, nh), 1e-5);
        kr_array_destroy(x), kr_array_destroy(dx), kr_array_destroy(h), kr_array_destroy(g);
        kr_array_destroy(nh), kr_array_destroy(ng);
        kr_linop_destroy(Eh), kr_linop_destroy(Ed);
    }
    prob_free(&p);
}

static void recon_pair(const prob *p, int cart, const char *const *specs, int nt,
                       kr_mrreg_method m, int iters)
{
    kr_mrreg_term t[2];
    for (int j = 0; j < nt; j++) KT_OK(kr_mrreg_term_parse(specs[j], &t[j]));
    kr_mrreg_data dh = data(p, cart, 0), dd = data(p, cart, 1);
    int64_t xd[3] = {p->n, p->n, dh.frames};
    kr_array *h = NULL, *g = NULL;
    KT_OK(kr_array_create(&h, KR_C64, 3, xd, KR_HOST, NULL));
    KT_OK(kr_array_create(&g, KR_C64, 3, xd, KR_DEVICE, g_gpu));
    kr_mrreg_opts o;
    kr_mrreg_opts_default(&o);
    o.method = m;
    o.max_iter = iters;
    kr_mrreg_info ih, ig;
    KT_OK(kr_mrreg(g_cpu, &dh, t, nt, &o, h, &ih));
    KT_OK(kr_mrreg(g_gpu, &dd, t, nt, &o, g, &ig));
    const double e = rel(g, h);
    printf("  %s %s%s%s: gpu vs cpu %.2e (scale %.6g vs %.6g)\n", cart ? "Cartesian" : "radial",
           specs[0], nt > 1 ? " + " : "", nt > 1 ? specs[1] : "", e, ig.scale, ih.scale);
    KT_LE(e, 1e-3);
    KT_NEAR(ig.scale / ih.scale, 1.0, 1e-5);
    KT_CHECK(ig.method == ih.method && ig.iterations == ih.iterations);
    kr_array_destroy(h), kr_array_destroy(g);
}

static void test_reconstructions(void)
{
    prob p;
    prob_make(&p);
    const char *tv[] = {"tv:0.01"}, *wl[] = {"l1-wavelet:0.01"}, *llr[] = {"llr:0.01:8"};
    const char *two[] = {"l1-wavelet:0.005", "tv:0.005"};
    recon_pair(&p, 1, tv, 1, KR_MRREG_ADMM, 10);
    recon_pair(&p, 0, wl, 1, KR_MRREG_FISTA, 20);
    recon_pair(&p, 1, llr, 1, KR_MRREG_FISTA, 10);
    recon_pair(&p, 0, two, 2, KR_MRREG_PDHG, 20);
    prob_free(&p);
}

int main(void)
{
    kt_require_gpu();
    KT_OK(kr_ctx_create(&g_cpu, KR_BACKEND_CPU));
    KT_OK(kr_ctx_create(&g_gpu, KR_BACKEND_CUDA));
    kr_ctx_set_quiet(g_cpu, 1);
    kr_ctx_set_quiet(g_gpu, 1);
    KT_RUN(test_gradient);
    KT_RUN(test_encodings);
    KT_RUN(test_reconstructions);
    kr_ctx_destroy(g_cpu);
    kr_ctx_destroy(g_gpu);
    return kt_finish();
}
