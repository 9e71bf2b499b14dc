/* NUFFT against BART 0.8 (`bart` on PATH; skipped otherwise): on BART's own radial trajectory
 * (`bart traj -r`, scaled by 0.5 for a 2x oversampled readout) and on random points in
 * non-square 2-D and 3-D images, `bart nufft -a` and `bart nufft` equal kray's adjoint and
 * forward NUFFT divided by sqrt(Nx Ny [Nz]), to BART's own accuracy.
 *
 * Measured (this test prints them): BART's relative l2 error is ~7e-3 on radial data reaching
 * k = -N/2 without -P, ~1.3e-3 (2-D) and ~2e-3 (3-D) on random points with -P (periodic
 * k-space). Without -P BART does not wrap points near +-N/2 (10-20 % errors on uniformly random
 * points); for odd image sizes BART 0.8's nufft is not a centred DFT (a phase ramp appears even
 * for a single sample at k = 0), so only even sizes are compared. */
#include "nufft_test_util.h"

#include "kray/io.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char g_dir[512];

static const char *path(const char *name)
{
    static char buf[4][700];
    static int slot;
    char *b = buf[slot++ % 4];
    snprintf(b, sizeof buf[0], "%s/%s", g_dir, name);
    return b;
}

static int sh(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
static int sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int r = system(cmd);
    if (r != 0) kt_fail_at(__FILE__, __LINE__, "command failed (%d): %s", r, cmd);
    return r;
}

/* Relative l2 distance between a (c64 BART output) and s * b (kray output). */
static double rel(const kr_array *a, const kr_array *b, double s)
{
    double e = 0, r = 0;
    int64_t n = kr_array_numel(b);
    for (int64_t i = 0; i < n; i++)
        for (int c = 0; c < 2; c++) {
            double x = nt_get(a, i, c), y = s * nt_get(b, i, c);
            e += (x - y) * (x - y);
            r += y * y;
        }
    return sqrt(e / r);
}

/* traj_c: BART trajectory (c64 [3, ...]); returns kray's f32 copy. */
static kr_array *real_traj(const kr_array *traj_c)
{
    kr_array *t = NULL;
    KT_OK(kr_array_astype(&t, traj_c, KR_F32));
    return t;
}

/* Compare kray and BART on trajectory `tname` (BART name, no extension), image dims N. */
static void compare(const char *tname, int nd, const int64_t *N, const char *flags, double tol,
                    const char *label)
{
    kr_array *tc = NULL;
    char tfile[64];
    snprintf(tfile, sizeof tfile, "%s.cfl", tname);
    KT_OK(kr_read(path(tfile), &tc, NULL, NULL));
    if (!tc) return;
    kr_array *t = real_traj(tc);
    kr_ctx *c = NULL;
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
    kr_nufft_opts o;
    kr_nufft_opts_default(&o);
    o.eps = 1e-6;
    kr_nufft_plan *p = NULL;
    KT_OK(kr_nufft_plan_create(&p, c, nd, N, &o));
    KT_OK(kr_nufft_set_points(p, t));
    /* data in BART's layout: k-space [1, M], image [Nx, Ny, Nz] */
    int64_t kd[KR_MAX_DIMS] = {1}, id[3] = {N[0], N[1], nd == 3 ? N[2] : 1};
    for (int d = 1; d < tc->ndim; d++) kd[d] = tc->dims[d]; /* [1, samples, spokes, ...] */
    kr_array *y = nt_rand(KR_C64, tc->ndim, kd, 7), *f = nt_rand(KR_C64, 3, id, 8);
    kr_array *fk = NULL, *yk = NULL;
    KT_OK(kr_array_create(&fk, KR_C64, 3, id, KR_HOST, NULL));
    KT_OK(kr_array_create(&yk, KR_C64, tc->ndim, kd, KR_HOST, NULL));
    KT_OK(kr_nufft_adjoint(p, y, fk));
    KT_OK(kr_nufft_forward(p, f, yk));
    KT_OK(kr_write(path("y.cfl"), y, NULL));
    KT_OK(kr_write(path("f.cfl"), f, NULL));
    char dims[64];
    snprintf(dims, sizeof dims, "%lld:%lld:%lld", (long long)id[0], (long long)id[1],
             (long long)id[2]);
    kr_array *xa = NULL, *yb = NULL;
    if (!sh("bart nufft -a %s -d %s %s %s %s >/dev/null", flags, dims, path(tname), path("y"),
            path("xa")) &&
        !sh("bart nufft %s -d %s %s %s %s >/dev/null", flags, dims, path(tname), path("f"),
            path("yb"))) {
        KT_OK(kr_read(path("xa.cfl"), &xa, NULL, NULL));
        KT_OK(kr_read(path("yb.cfl"), &yb, NULL, NULL));
    }
    if (xa && yb) {
        double s = 1.0 / sqrt((double)(id[0] * id[1] * id[2]));
        KT_CHECK(kr_array_numel(xa) == kr_array_numel(fk));
        KT_CHECK(kr_array_numel(yb) == kr_array_numel(yk));
        double ea = rel(xa, fk, s), ef = rel(yb, yk, s);
        printf("  %s: bart nufft -a %s vs kray adjoint / sqrt(prod N): %.2e; forward %.2e\n",
               label, flags, ea, ef);
        KT_LE(ea, tol);
        KT_LE(ef, tol);
        /* the factor is sqrt(prod N): 1.05x or 0.95x of it is clearly worse */
        KT_GE(rel(xa, fk, 1.05 * s), 0.03);
        KT_GE(rel(xa, fk, 0.95 * s), 0.03);
    }
    kr_array_destroy(xa);
    kr_array_destroy(yb);
    kr_array_destroy(fk);
    kr_array_destroy(yk);
    kr_array_destroy(y);
    kr_array_destroy(f);
    kr_array_destroy(t);
    kr_array_destroy(tc);
    kr_nufft_plan_destroy(p);
    kr_ctx_destroy(c);
}

static void test_bart_radial(void)
{
    sh("bart traj -r -x 256 -y 96 %s >/dev/null && bart scale 0.5 %s %s >/dev/null",
       path("t0"), path("t0"), path("tr"));
    int64_t N[2] = {128, 128};
    compare("tr", 2, N, "", 2e-2, "radial 128^2, 96 spokes");
    compare("tr", 2, N, "-P", 1e-2, "radial 128^2, 96 spokes");
}

/* Random points (|k| <= 0.45 N) in non-square even images, written as a BART trajectory. */
static void test_bart_random(void)
{
    int64_t N2[2] = {96, 64}, N3[3] = {24, 20, 16};
    for (int nd = 2; nd <= 3; nd++) {
        const int64_t *N = nd == 2 ? N2 : N3;
        kr_array *t = nt_traj(nd, N, 6000, 17), *tc = NULL;
        float *k = t->data;
        for (int64_t i = 0; i < 3 * 6000; i++) k[i] *= 0.9f;
        KT_OK(kr_array_astype(&tc, t, KR_C64));
        KT_OK(kr_write(path("tn.cfl"), tc, NULL));
        compare("tn", nd, N, "-P", 1e-2, nd == 2 ? "random 96x64" : "random 24x20x16");
        kr_array_destroy(t);
        kr_array_destroy(tc);
    }
}

int main(void)
{
    if (system("command -v bart >/dev/null 2>&1") != 0) kt_skip("bart is not on PATH");
    snprintf(g_dir, sizeof g_dir, "%s", kt_tmp("nufft_bart"));
    char cmd[700];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", g_dir);
    if (system(cmd) != 0) kt_skip("cannot create a temporary directory");
    KT_RUN(test_bart_radial);
    KT_RUN(test_bart_random);
    return kt_finish();
}
