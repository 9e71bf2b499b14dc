/* Interoperability with BART (v0.8, Debian's `bart`; skipped when missing):
 *   - `bart traj -r -x 64 -y 32` (and -c, -D, -G) read by kray equals kray's own radial
 *     trajectory: BART puts spoke s along (sin t_s, cos t_s) in its (k0, k1), kray's (ky, kx),
 *     with t_s = pi s / S, sample i at
 *     i + 1/2 - X/2 (i - X/2 with -c);
 *   - a trajectory written by kray is read by BART (`bart nrmse` against BART's own is 0);
 *   - kray's DrFT equals `bart nufft -s` (BART's exact DFT) in both directions with no scaling,
 *     with the files read by kray's rules (trajectory (k0, k1) -> (ky, kx), images [y, x] ->
 *     [x, y]),
 *     and `bart nufft` (the NUFFT) is the DrFT scaled by 1/sqrt(nx ny) to its accuracy. */
#include "mri/mri_internal.h"
#include "kt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int sh(const char *fmt, const char *a, const char *b, const char *c, const char *d)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, fmt, a, b, c, d);
    int r = system(cmd);
    if (r != 0) kt_fail_at(__FILE__, __LINE__, "command failed (%d): %s", r, cmd);
    return r;
}

static void compare_radial(const char *bart_args, const kr_radial_opts *o)
{
    const char *path = kt_tmp("bart_traj");
    sh("bart traj %s %s >/dev/null 2>&1%s%s", bart_args, path, "", "");
    kr_array *b = NULL, *k = NULL;
    KT_OK(kr_traj_read(path, &b, KR_F64));
    KT_OK(kr_traj_radial(&k, o));
    if (!b || !k) return;
    KT_CHECK(kr_array_numel(b) == kr_array_numel(k) && b->dims[1] == k->dims[1] &&
             b->dims[2] == k->dims[2]);
    double e = 0;
    for (int64_t i = 0; i < kr_array_numel(k) && kr_array_numel(b) == kr_array_numel(k); i++)
        e = fmax(e, fabs(kr_array_get_f64(b, i) - kr_array_get_f64(k, i)));
    /* BART rounds its angles in float: 1e-4 covers |k| <= 32 */
    KT_CHECK_MSG(e <= 1e-4, "bart traj %s differs from kray's radial by %g", bart_args, e);
    kr_array_destroy(b);
    kr_array_destroy(k);
}

static void test_bart_traj(void)
{
    kr_radial_opts o;
    kr_radial_opts_default(&o);
    o.samples = 64, o.spokes = 32;
    compare_radial("-r -x 64 -y 32", &o);
    o.dc = 1;
    compare_radial("-r -x 64 -y 32 -c", &o);
    o.dc = 0, o.full_circle = 1, o.spokes = 16;
    compare_radial("-r -x 64 -y 16 -D", &o);
    o.full_circle = 0, o.order = KR_RADIAL_GOLDEN, o.spokes = 13, o.samples = 40;
    compare_radial("-r -x 40 -y 13 -G", &o);
    /* BART reads kray's file */
    kr_radial_opts_default(&o);
    o.samples = 64, o.spokes = 32;
    kr_array *k = NULL;
    KT_OK(kr_traj_radial(&k, &o));
    const char *mine = kt_tmp("kray_traj"), *theirs = kt_tmp("bart_traj2"), *out = kt_tmp("nrmse.txt");
    KT_OK(kr_traj_write(mine, k)); /* no extension: BART's naming, written as .cfl/.hdr */
    sh("bart traj -r -x 64 -y 32 %s >/dev/null 2>&1 && bart nrmse %s %s > %s", theirs, theirs,
       mine, out);
    FILE *f = fopen(out, "r");
    double v = -1;
    KT_CHECK(f && fscanf(f, "%lf", &v) == 1);
    if (f) fclose(f);
    KT_CHECK_MSG(v >= 0 && v <= 1e-6, "bart nrmse of kray's trajectory vs bart's: %g", v);
    kr_array_destroy(k);
}

static void test_bart_dft(void)
{
    const char *t = kt_tmp("dft_t"), *d = kt_tmp("dft_d"), *o = kt_tmp("dft_ones");
    const char *ia = kt_tmp("dft_ia"), *fa = kt_tmp("dft_fa"), *na = kt_tmp("dft_na");
    sh("bart traj -r -x 32 -y 21 %s >/dev/null && bart ones 3 1 32 21 %s >/dev/null && "
       "bart noise -s 3 %s %s >/dev/null", t, o, o, d);
    char nname[1024];
    snprintf(nname, sizeof nname, "%s_n", ia);
    sh("bart nufft -s -a -d 32:32:1 %s %s %s >/dev/null%s", t, d, ia, "");
    sh("bart nufft -a -d 32:32:1 %s %s %s >/dev/null%s", t, d, nname, "");
    sh("bart nufft -s -d 32:32:1 %s %s %s >/dev/null%s", t, ia, fa, "");
    sh("bart nufft -d 32:32:1 %s %s %s >/dev/null%s", t, ia, na, "");
    kr_array *traj = NULL, *data = NULL, *bimg = NULL, *bnimg = NULL, *bk = NULL, *bnk = NULL;
    KT_OK(kr_traj_read(t, &traj, KR_F32));
    KT_OK(kr_read(d, &data, NULL, NULL));
    /* images with kray's axes ([x, y] = BART's [y, x]), as the trajectory's (kx, ky) */
    kr_io_opts im;
    kr_io_opts_default(&im);
    im.axes = KR_IO_AXES_IMAGE;
    KT_OK(kr_read(ia, &bimg, NULL, &im));
    KT_OK(kr_read(nname, &bnimg, NULL, &im));
    KT_OK(kr_read(fa, &bk, NULL, NULL));
    KT_OK(kr_read(na, &bnk, NULL, NULL));
    if (!traj || !data || !bimg || !bnimg || !bk || !bnk) return;
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
    const int64_t n[3] = {32, 32, 1};
    kr_drft_plan *p = NULL;
    KT_OK(kr_drft_plan_create(&p, c, n, traj, NULL, NULL));
    /* BART's data are [1, 32, 21]: drop the leading 1 */
    kr_array dv, iv;
    int64_t kd[2] = {32, 21};
    KT_OK(kr_array_wrap(&dv, KR_C64, 2, kd, data->data, KR_HOST));
    kr_array *img = NULL, *ksp = NULL;
    KT_OK(kr_array_create(&img, KR_C64, 3, n, KR_HOST, NULL));
    KT_OK(kr_array_create(&ksp, KR_C64, 2, kd, KR_HOST, NULL));
    KT_OK(kr_drft_adjoint(p, &dv, img));
    KT_OK(kr_array_wrap(&iv, KR_C64, 3, n, bimg->data, KR_HOST));
    KT_OK(kr_drft_forward(p, &iv, ksp));
    double e1 = 0, e2 = 0, r1 = 0, e3 = 0, e4 = 0, r2 = 0;
    const float *a = (const float *)img->data, *b = (const float *)bimg->data,
                *bn = (const float *)bnimg->data;
    for (int64_t i = 0; i < 2 * 1024; i++) {
        e1 = fmax(e1, fabs(a[i] - b[i]));
        e3 = fmax(e3, fabs(a[i] / 32.0 - bn[i]));
        r1 = fmax(r1, fabs(b[i]));
    }
    const float *f = (const float *)ksp->data, *bf = (const float *)bk->data,
                *bnf = (const float *)bnk->data;
    for (int64_t i = 0; i < 2 * 32 * 21; i++) {
        e2 = fmax(e2, fabs(f[i] - bf[i]));
        e4 = fmax(e4, fabs(f[i] / 32.0 - bnf[i]));
        r2 = fmax(r2, fabs(bf[i]));
    }
    printf("  vs bart nufft -s: adjoint %.2g, forward %.2g; vs bart nufft (x sqrt(N^2)): adjoint "
           "%.2g, forward %.2g (relative to max)\n", e1 / r1, e2 / r2, e3 / (r1 / 32), e4 / (r2 / 32));
    KT_LE(e1 / r1, 1e-5);
    KT_LE(e2 / r2, 1e-5);
    KT_LE(e3 / (r1 / 32), 2e-2);
    KT_LE(e4 / (r2 / 32), 5e-2); /* BART's default NUFFT is only ~1e-2 accurate */
    kr_array_destroy(img), kr_array_destroy(ksp), kr_array_destroy(traj), kr_array_destroy(data);
    kr_array_destroy(bimg), kr_array_destroy(bnimg), kr_array_destroy(bk), kr_array_destroy(bnk);
    kr_drft_plan_destroy(p);
    kr_ctx_destroy(c);
}

int main(void)
{
    if (system("bart version >/dev/null 2>&1") != 0) kt_skip("bart is not installed");
    KT_RUN(test_bart_traj);
    KT_RUN(test_bart_dft);
    return kt_finish();
}
