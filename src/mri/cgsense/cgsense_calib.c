/* Cartesian calibration k-space from non-Cartesian data (kr_cgsense_calib_kspace, kray/cgsense.h):
 * the samples near the k-space centre are fitted by a low-resolution coil image on a small grid
 * (least squares by CG on kray/lsq.h's Toeplitz normal operator, on the ctx's backend), whose
 * centred FFT gives the calibration samples at the integer k that ESPIRiT reads. */
#include "core/backend.h"
#include "internal.h"
#include "kray/cgsense.h"
#include "kray/fft.h"
#include "kray/lsq.h"
#include "mri/mri_internal.h"

#include <math.h>
#include <string.h>

/* The samples inside the small grid (|k_a| < g_a / 2): their coordinates [3, Mc], coil data
 * [Mc, C] and weights (or none), host arrays created here. */
static kr_status kri_calib_select(const double *k, int64_t M, int64_t nc, const int64_t g[3],
                                  const kr_array *kspace, const kr_array *dcf, kr_array **tc,
                                  kr_array **yc, kr_array **wc, double *wsum)
{
    int64_t mc = 0;
    for (int64_t m = 0; m < M; m++) {
        int in = 1;
        for (int a = 0; a < 3; a++) in &= fabs(k[3 * m + a]) < 0.5 * (double)g[a] || g[a] == 1;
        mc += in;
    }
    if (mc == 0)
        return kri_fail(KR_ERR_INVALID_ARG, "kr_cgsense_calib_kspace: no sample lies in the "
                        "calibration region (%lldx%lldx%lld around k = 0)", (long long)g[0],
                        (long long)g[1], (long long)g[2]);
    const int64_t td[2] = {3, mc}, yd[2] = {mc, nc};
    KRI_TRY(kr_array_create(tc, KR_F64, 2, td, KR_HOST, NULL));
    KRI_TRY(kr_array_create(yc, KR_C64, 2, yd, KR_HOST, NULL));
    if (dcf) KRI_TRY(kr_array_create(wc, KR_F64, 1, &mc, KR_HOST, NULL));
    double *t = (*tc)->data, *w = dcf ? (*wc)->data : NULL;
    float *y = (*yc)->data;
    const float *src = kspace->data;
    *wsum = 0;
    for (int64_t m = 0, j = 0; m < M; m++) {
        int in = 1;
        for (int a = 0; a < 3; a++) in &= fabs(k[3 * m + a]) < 0.5 * (double)g[a] || g[a] == 1;
        if (!in) continue;
        for (int a = 0; a < 3; a++) t[3 * j + a] = g[a] == 1 ? 0.0 : k[3 * m + a];
        for (int64_t c = 0; c < nc; c++) {
            y[2 * (j + mc * c)] = src[2 * (m + M * c)];
            y[2 * (j + mc * c) + 1] = src[2 * (m + M * c) + 1];
        }
        const double wm = w ? kr_array_get_f64(dcf, m) : 1.0;
        if (w) w[j] = wm;
        *wsum += wm;
        j++;
    }
    return KR_OK;
}

/* Least squares on the small grid g: (F^H W F + lambda I) x = F^H W y by CG (iters), x
 * [g0, g1, g2, C] returned on the host. */
static kr_status kri_calib_solve(const kr_ctx *ctx, const int64_t g[3], int64_t nc,
                                 const kr_array *tc, const kr_array *yc, const kr_array *wc,
                                 double lambda, int iters, kr_array **xh)
{
    const kr_loc loc = kri_ctx_loc(ctx);
    kr_lsq_opts lo;
    kr_lsq_opts_default(&lo);
    lo.batch = nc;
    lo.eps = 1e-5;
    if (iters == 1) lo.normal = KR_LSQ_NORMAL_NUFFT; /* no Toeplitz kernel for the gridding */
    kr_lsq_plan *p = NULL;
    kr_linop *N = NULL;
    kr_array *yd = NULL, *b = NULL, *x = NULL;
    const int64_t xd[4] = {g[0], g[1], g[2], nc};
    kr_status st = kr_lsq_plan_create(&p, ctx, g, tc, wc, &lo);
    if (st == KR_OK) st = kr_array_clone(&yd, yc, loc, ctx);
    if (st == KR_OK) st = kr_array_create(&b, KR_C64, 4, xd, loc, ctx);
    if (st == KR_OK) st = kr_array_create(&x, KR_C64, 4, xd, loc, ctx);
    if (st == KR_OK) st = kr_lsq_rhs(p, yd, b);
    if (st == KR_OK && iters > 1) st = kr_lsq_normal_linop_create(&N, p);
    kr_solve_opts so;
    kr_solve_opts_default(&so);
    so.max_iter = iters;
    so.tol = 1e-6;
    so.lambda = lambda;
    /* one CG step from zero is b times a factor: the gridding itself */
    if (st == KR_OK && iters > 1) st = kr_cg(ctx, N, b, x, &so, NULL);
    if (st == KR_OK) st = kr_array_clone(xh, iters > 1 ? x : b, KR_HOST, ctx);
    kr_linop_destroy(N);
    kr_lsq_plan_destroy(p);
    kr_array_destroy(yd);
    kr_array_destroy(b);
    kr_array_destroy(x);
    return st;
}

kr_status kr_cgsense_calib_kspace(const kr_ctx *ctx, int ndim, const int64_t *dims,
                                  const kr_array *traj, const kr_array *kspace,
                                  const kr_array *dcf, double calib_radius, int iters,
                                  int64_t grid, kr_array **cal)
{
    const char *fn = "kr_cgsense_calib_kspace";
    KRI_ARG_NOT_NULL(cal);
    *cal = NULL;
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(dims);
    KRI_TRY(kri_check_operand(fn, "trajectory", traj, KRI_ANY_DTYPE, KR_HOST));
    KRI_TRY(kri_check_operand(fn, "k-space", kspace, KR_C64, KR_HOST));
    if (dcf) KRI_TRY(kri_check_operand(fn, "density weights", dcf, KRI_ANY_DTYPE, KR_HOST));
    if (ndim != 2 && ndim != 3)
        return kri_fail(KR_ERR_DIM, "%s: images must have 2 or 3 dims (got %d)", fn, ndim);
    if (!isfinite(calib_radius) || calib_radius < 2)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: calibration radius %g must be >= 2 (cycles per "
                        "FOV)", fn, calib_radius);
    if (iters < 1 || iters > 1000)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: %d iterations; give 1 .. 1000", fn, iters);
    if (grid < 0 || (grid > 0 && grid < 2 * ceil(calib_radius)))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: grid width %lld must be 0 (automatic) or hold "
                        "the calibration region (>= %g)", fn, (long long)grid,
                        2 * ceil(calib_radius));
    int64_t n[3] = {1, 1, 1}, g[3] = {1, 1, 1};
    for (int a = 0; a < ndim; a++) {
        n[a] = dims[a];
        if (n[a] < 2)
            return kri_fail(KR_ERR_DIM, "%s: image dim %d is %lld (must be >= 2)", fn, a,
                            (long long)n[a]);
        /* the calibration samples |k| < r and a margin of 4 per side (or `grid`), even, within
         * the image */
        g[a] = grid > 0 ? grid : 2 * (int64_t)ceil(calib_radius) + 8;
        if (g[a] > n[a]) g[a] = n[a] - n[a] % 2;
    }
    double *k = NULL;
    int64_t M = 0;
    KRI_TRY(kri_traj_to_f64(traj, &k, &M));
    const int64_t total = kr_array_numel(kspace);
    kr_status st = KR_OK;
    if (M <= 0 || total % M != 0)
        st = kri_fail(KR_ERR_DIM, "%s: k-space has %lld values, not a multiple of the %lld "
                      "trajectory samples", fn, (long long)total, (long long)M);
    if (st == KR_OK && dcf && kr_array_numel(dcf) != M)
        st = kri_fail(KR_ERR_DIM, "%s: density weights have %lld values, the trajectory %lld "
                      "samples", fn, (long long)kr_array_numel(dcf), (long long)M);
    if (st == KR_OK && dcf && dcf->dtype != KR_F32 && dcf->dtype != KR_F64)
        st = kri_fail(KR_ERR_DTYPE, "%s: density weights are %s; expected f32 or f64", fn,
                      kr_dtype_name(dcf->dtype));
    int64_t bad = -1;
    if (st == KR_OK) st = kri_first_nonfinite(ctx, KR_HOST, KR_F32, kspace->data, 2 * total, &bad);
    if (st == KR_OK && bad >= 0)
        st = kri_fail(KR_ERR_INVALID_ARG, "%s: k-space sample %lld of coil %lld is NaN or "
                      "infinite", fn, (long long)(bad / 2 % M), (long long)(bad / 2 / M));
    const int64_t nc = st == KR_OK ? total / M : 0;
    kr_array *tc = NULL, *yc = NULL, *wc = NULL, *x = NULL, *out = NULL;
    double wsum = 0;
    if (st == KR_OK) st = kri_calib_select(k, M, nc, g, kspace, dcf, &tc, &yc, &wc, &wsum);
    /* lambda: 1e-3 of the diagonal of F^H W F (sum of the weights) */
    if (st == KR_OK) st = kri_calib_solve(ctx, g, nc, tc, yc, wc, 1e-3 * wsum, iters, &x);
    kr_ctx *cpu = NULL;
    if (st == KR_OK) st = kr_ctx_create(&cpu, KR_BACKEND_CPU);
    if (st == KR_OK) {
        kr_ctx_set_quiet(cpu, 1);
        st = kr_ctx_set_threads(cpu, kr_ctx_threads(ctx));
    }
    if (st == KR_OK) st = kr_fft(cpu, x, x, ndim == 3 ? 7u : 3u, KR_FFT_FORWARD, KR_FFT_CENTERED);
    int64_t od[4] = {n[0], n[1], ndim == 3 ? n[2] : nc, nc};
    if (st == KR_OK) st = kr_array_create(&out, KR_C64, ndim + 1, od, KR_HOST, NULL);
    if (st == KR_OK) {
        /* integer k with |k_a| < r on every image axis */
        const float *src = x->data;
        float *dst = out->data;
        const int64_t gv = g[0] * g[1] * g[2], nv = n[0] * n[1] * n[2];
        for (int64_t c = 0; c < nc; c++)
            for (int64_t q = 0; q < gv; q++) {
                const int64_t kk[3] = {q % g[0] - g[0] / 2, q / g[0] % g[1] - g[1] / 2,
                                       q / (g[0] * g[1]) - g[2] / 2};
                int in = 1;
                for (int a = 0; a < ndim; a++) in &= fabs((double)kk[a]) < calib_radius;
                if (!in) continue;
                const int64_t o = (kk[0] + n[0] / 2) +
                                  n[0] * ((kk[1] + n[1] / 2) + n[1] * (kk[2] + n[2] / 2));
                dst[2 * (o + nv * c)] = src[2 * (q + gv * c)];
                dst[2 * (o + nv * c) + 1] = src[2 * (q + gv * c) + 1];
            }
    }
    kr_ctx_destroy(cpu);
    kri_free(k);
    kr_array_destroy(tc), kr_array_destroy(yc), kr_array_destroy(wc), kr_array_destroy(x);
    if (st != KR_OK) {
        kr_array_destroy(out);
        return st;
    }
    *cal = out;
    return KR_OK;
}
