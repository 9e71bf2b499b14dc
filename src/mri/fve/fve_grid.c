/* FVE single voxels by gridding + Goertzel (kr_fve_voxels_gridded, kray/fve.h): each needed
 * column's weighted samples are spread onto the Kaiser-Bessel NUFFT grid (the CPU NUFFT's own
 * spreading, c128), the grid's centred DFT is evaluated at the voxels by the Goertzel
 * recurrence (kray/goertzel.h), and the result is divided by the kernel's Fourier transform
 * (deapodisation).
 *
 * Coordinate mapping. The plan images N' x N' pixels on an n' x n' grid; a sample k (cycles per
 * FOV of the n-pixel image) lands at grid coordinate u = k n'/N' and cell l holds frequency
 * l (mod n'). The NUFFT adjoint pixel x' is D(x') sum_l g[l] exp(+2 pi i l x'/n') with
 * D(x') = 1/phi_hat(x'/n') per axis. Laying the grid out centred (K[i] = g[(i - n'/2) mod n'])
 * makes that sum exactly kr_goertzel2d's out(x'). The voxel x (pixels of the n-image) needs
 * exp(+2 pi i k x/n) = exp(+2 pi i u x'/n'), i.e. x' = x N'/n.
 *  - Integer voxels: N' = n, x' = x: the value is the kr_nufft_adjoint pixel of the same plan
 *    (the grid is periodic, and exp(+2 pi i l x/n') is n'-periodic in l for integer x).
 *  - Fractional voxels: exp(+2 pi i l x'/n') is not n'-periodic, so no kernel footprint may
 *    wrap around the grid: N' > n is chosen so that max |u| + w/2 + 1 <= n'/2 (every footprint
 *    then lies in the centred window); |x'/n'| <= 1/(2 sigma) keeps the NUFFT error bound. */
#include "kray/fve.h"
#include "kray/goertzel.h"

#include "core/internal.h"
#include "mri/fve/fve_internal.h"
#include "mri/mri_internal.h"
#include "mri/nufft/nufft_internal.h"

#include <math.h>
#include <string.h>

#define KRI_FVEG_CHUNK_BYTES ((int64_t)64 << 20) /* centred grids per Goertzel call */

/* Plan for image N' (see above); *np = N'. Integer voxels: N' = n. */
static kr_status kri_fveg_plan(const kr_ctx *pctx, const kr_array *traj, const double *k,
                               int64_t M, int64_t n, int integer, double eps, kr_nufft_plan **pp,
                               int64_t *np)
{
    kr_nufft_opts o;
    kr_nufft_opts_default(&o);
    o.dtype = KR_C128;
    o.eps = eps;
    o.check_finite = 0;
    double kmax = 0;
    for (int64_t m = 0; m < M; m++) kmax = fmax(kmax, fmax(fabs(k[3 * m]), fabs(k[3 * m + 1])));
    int64_t N = n;
    if (!integer) {
        int w = kri_nufft_width_for(eps, 2.0, 2);
        int64_t need = (int64_t)ceil(2 * kmax) + w / 2 + 2;
        N = need > n + 2 ? need : n + 2;
    }
    for (int tries = 0; tries < 64; tries++, N += 2) {
        kr_nufft_plan *p = NULL;
        int64_t dims[2] = {N, N};
        KRI_TRY(kr_nufft_plan_create(&p, pctx, 2, dims, &o));
        double half = 0.5 * (double)p->n[0], u = kmax * (double)p->n[0] / (double)N;
        if (integer || u + 0.5 * p->ker.w + 1.0 <= half) {
            kr_status s = kr_nufft_set_points(p, traj);
            if (s != KR_OK) {
                kr_nufft_plan_destroy(p);
                return s;
            }
            *pp = p, *np = N;
            return KR_OK;
        }
        kr_nufft_plan_destroy(p);
    }
    return kri_fail(KR_ERR_INTERNAL, "kr_fve_voxels_gridded: found no grid that holds every "
                    "kernel footprint (max |k| %g, image %lld)", kmax, (long long)n);
}

kr_status kr_fve_voxels_gridded(const kr_ctx *ctx, const kr_array *traj, const kr_array *weights,
                                const kr_array *data, int64_t n, int64_t nvox, const double *vox,
                                double eps, kr_array *out)
{
    static const char fn[] = "kr_fve_voxels_gridded";
    if ((data && data->loc == KR_DEVICE) || (out && out->loc == KR_DEVICE) ||
        (ctx && kr_ctx_backend(ctx) == KR_BACKEND_CUDA))
        return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: device arrays and CUDA contexts are not "
                        "supported (the CUDA NUFFT has no separate spreading step); use host "
                        "arrays with a CPU context, or kr_fve_voxels", fn);
    int64_t M = 0, dd[6];
    KRI_TRY(kri_fve_check_args(fn, ctx, traj, data, n, nvox, vox, out, &M, dd));
    if (!(eps >= 1e-12 && eps <= 0.1))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: eps %g is outside [1e-12, 0.1]", fn, eps);
    const int64_t S = dd[2], E = dd[3], T = dd[4], C = dd[5], ncol = E * T * C;
    int integer = 1;
    for (int64_t v = 0; v < nvox; v++)
        if (vox[3 * v] != floor(vox[3 * v]) || vox[3 * v + 1] != floor(vox[3 * v + 1])) integer = 0;

    kr_ctx *own = NULL;
    const kr_ctx *pctx = ctx;
    double *k = NULL, *w = NULL, *y = NULL, *xy = NULL;
    int64_t *idx = NULL, Np = n;
    kr_nufft_plan *p = NULL;
    kr_array *kg = NULL, *go = NULL;
    kr_status s = KR_OK;
    if (!pctx) s = kr_ctx_create(&own, KR_BACKEND_CPU), pctx = own;
    if (s == KR_OK) s = kri_traj_to_f64(traj, &k, &M);
    if (s == KR_OK && weights) s = kri_fve_host_real(fn, weights, "weights", M, &w);
    for (int64_t i = 0; s == KR_OK && w && i < M; i++)
        if (!isfinite(w[i]) || w[i] < 0)
            s = kri_fail(KR_ERR_INVALID_ARG, "%s: weight %lld is %g; weights must be finite and "
                         ">= 0", fn, (long long)i, w[i]);
    for (int64_t i = 0; s == KR_OK && i < 3 * M; i++)
        if (!isfinite(k[i]))
            s = kri_fail(KR_ERR_GEOMETRY, "%s: trajectory sample %lld is not finite", fn,
                         (long long)(i / 3));
    if (s == KR_OK) s = kri_fveg_plan(pctx, traj, k, M, n, integer, eps, &p, &Np);
    if (s == KR_OK) s = kri_alloc((void **)&y, (size_t)M * 2 * sizeof(double), "FVE column");
    if (s == KR_OK) s = kri_alloc((void **)&xy, (size_t)nvox * 2 * sizeof(double), "FVE voxels");
    if (s == KR_OK) s = kri_alloc((void **)&idx, (size_t)nvox * sizeof(int64_t), "FVE voxels");
    if (s != KR_OK) goto done;
    {
        const int64_t n0 = p->n[0], n1 = p->n[1], cells = n0 * n1;
        int64_t nb = KRI_FVEG_CHUNK_BYTES / (cells * 16);
        if (nb < 1) nb = 1;
        if (nb > ncol) nb = ncol;
        const double scale = (double)Np / (double)n, inv = 1.0 / ((double)n * (double)n);
        const float *d = (const float *)data->data;
        float *o = (float *)out->data;
        int64_t kd[3] = {n0, n1, nb};
        s = kr_array_create(&kg, KR_C128, 3, kd, KR_HOST, NULL);
        /* one slice at a time: its voxels (in order) against its E T C columns */
        for (int64_t sl = 0; s == KR_OK && sl < S; sl++) {
            int64_t nv = 0;
            for (int64_t v = 0; v < nvox; v++)
                if ((int64_t)vox[3 * v + 2] == sl) {
                    idx[nv] = v;
                    xy[2 * nv] = vox[3 * v] * scale, xy[2 * nv + 1] = vox[3 * v + 1] * scale;
                    nv++;
                }
            if (nv == 0) continue;
            int64_t gd[2] = {nv, nb};
            kr_array_destroy(go);
            go = NULL;
            s = kr_array_create(&go, KR_C128, 2, gd, KR_HOST, NULL);
            for (int64_t j0 = 0; s == KR_OK && j0 < ncol; j0 += nb) {
                const int64_t nj = ncol - j0 < nb ? ncol - j0 : nb;
                double *K = (double *)kg->data;
                for (int64_t b = 0; s == KR_OK && b < nb; b++) {
                    double *Kb = K + 2 * b * cells;
                    if (b >= nj) { /* last chunk: unused members */
                        memset(Kb, 0, (size_t)cells * 2 * sizeof(double));
                        continue;
                    }
                    /* column j = e + E (t + T c) is data [., ., sl, e, t, c] */
                    const int64_t off = M * (sl + S * (j0 + b));
                    const float *col = d + 2 * off;
                    for (int64_t m = 0; m < M; m++) {
                        if (!isfinite(col[2 * m]) || !isfinite(col[2 * m + 1])) {
                            s = kri_fail(KR_ERR_INVALID_ARG, "%s: data sample %lld is not "
                                         "finite", fn, (long long)(off + m));
                            break;
                        }
                        double a = (w ? w[m] : 1.0) * inv;
                        y[2 * m] = a * col[2 * m], y[2 * m + 1] = a * col[2 * m + 1];
                    }
                    if (s != KR_OK) break;
                    kri_cpu_nufft_spread(p, y);
                    /* centred layout: K[i] = g[(i - n/2) mod n] = g[(i + n/2) mod n] (n even) */
                    const double *g = (const double *)p->grid;
                    for (int64_t i1 = 0; i1 < n1; i1++) {
                        const int64_t g1 = (i1 + n1 / 2) % n1;
                        double *dst = Kb + 2 * i1 * n0;
                        const double *src = g + 2 * g1 * n0;
                        memcpy(dst, src + n0, (size_t)n0 * sizeof(double));     /* i < n0/2 */
                        memcpy(dst + n0, src, (size_t)n0 * sizeof(double));     /* i >= n0/2 */
                    }
                }
                if (s == KR_OK) s = kr_goertzel2d(pctx, kg, nv, xy, go);
                if (s != KR_OK) break;
                const double *G = (const double *)go->data;
                for (int64_t q = 0; q < nv; q++) {
                    const double xq = xy[2 * q], yq = xy[2 * q + 1];
                    /* the crop's factor D0 (D1 D2), D2 = 1 in 2-D */
                    const double D = (1.0 / kri_nufft_kernel_ft(&p->ker, xq / (double)n0)) *
                                     ((1.0 / kri_nufft_kernel_ft(&p->ker, yq / (double)n1)) * 1.0);
                    for (int64_t b = 0; b < nj; b++) {
                        const double *z = G + 2 * (q + nv * b);
                        float *dst = o + 2 * (j0 + b + ncol * idx[q]);
                        dst[0] = (float)(z[0] * D), dst[1] = (float)(z[1] * D);
                    }
                }
            }
        }
        if (s == KR_OK)
            for (int64_t i = 0; i < 2 * kr_array_numel(out); i++)
                if (!isfinite(o[i])) {
                    s = kri_fail(KR_ERR_INVALID_ARG, "%s: the voxel sums overflow (data values "
                                 "too large for float)", fn);
                    break;
                }
    }
done:
    kr_array_destroy(kg);
    kr_array_destroy(go);
    kr_nufft_plan_destroy(p);
    kr_ctx_destroy(own);
    kri_free(k), kri_free(w), kri_free(y), kri_free(xy), kri_free(idx);
    return s;
}
