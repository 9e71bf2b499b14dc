/* FVE single-voxel reconstruction by the one-output DrFT adjoint, coil combination with a
 * kv = 0 phase reference, and velocity spectra (kray/fve.h). */
#include "kray/fve.h"
#include "kray/fft.h"

#include "core/internal.h"
#include "mri/fve/fve_internal.h"
#include "mri/mri_internal.h"

#include <math.h>
#include <string.h>

kr_status kri_fve_host_real(const char *fn, const kr_array *a, const char *what, int64_t m,
                            double **out)
{
    KRI_TRY(kri_check_operand(fn, what, a, KRI_ANY_DTYPE, KR_HOST));
    if (a->dtype != KR_F32 && a->dtype != KR_F64)
        return kri_fail(KR_ERR_DTYPE, "%s: %s must be f32 or f64, got %s", fn, what,
                        kr_dtype_name(a->dtype));
    if (kr_array_numel(a) != m)
        return kri_fail(KR_ERR_DIM, "%s: %s has %lld values, the trajectory %lld samples",
                        fn, what, (long long)kr_array_numel(a), (long long)m);
    KRI_TRY(kri_alloc((void **)out, (size_t)m * sizeof(double), what));
    for (int64_t i = 0; i < m; i++) (*out)[i] = kr_array_get_f64(a, i);
    return KR_OK;
}


kr_status kri_fve_check_args(const char *fn, const kr_ctx *ctx, const kr_array *traj,
                             const kr_array *data, int64_t n, int64_t nvox, const double *vox,
                             const kr_array *out, int64_t *Mp, int64_t dd[6])
{
    KRI_ARG_NOT_NULL(vox);
    if (nvox < 1) return kri_fail(KR_ERR_INVALID_ARG, "%s: no voxels (nvox = %lld)", fn, (long long)nvox);
    if (n < 2) return kri_fail(KR_ERR_DIM, "%s: image size %lld; need >= 2", fn, (long long)n);
    int64_t M = 0;
    KRI_TRY(kri_traj_shape(traj, fn, KR_HOST, &M));
    KRI_TRY(kri_check_operand(fn, "data", data, KR_C64, kri_ctx_loc(ctx)));
    KRI_TRY(kri_check_operand(fn, "output", out, KR_C64, kri_ctx_loc(ctx)));
    const int64_t dm = data->dims[0] * (data->ndim > 1 ? data->dims[1] : 1);
    if (dm != M) {
        char b[128];
        return kri_fail(KR_ERR_DIM,
                        "%s: data %s have %lld samples x interleaves, the trajectory %lld "
                        "samples", fn,
                        kr_dims_string(data->ndim, data->dims, b, sizeof b), (long long)dm, (long long)M);
    }
    for (int i = 0; i < 6; i++) dd[i] = i < data->ndim ? data->dims[i] : 1;
    for (int i = 6; i < data->ndim; i++)
        if (data->dims[i] != 1)
            return kri_fail(KR_ERR_DIM, "%s: data have %d dims; at most 6 "
                            "[samples, interleaves, slices, encodes, frames, coils]", fn, data->ndim);
    const int64_t S = dd[2], E = dd[3], T = dd[4], C = dd[5];
    if (kr_array_numel(out) != E * T * C * nvox || out->dims[0] != E)
        return kri_fail(KR_ERR_DIM, "%s: output has %lld values; expected [%lld, %lld, "
                        "%lld, %lld] (encodes, frames, coils, voxels)", fn,
                        (long long)kr_array_numel(out), (long long)E, (long long)T, (long long)C,
                        (long long)nvox);
    const double lo = -(double)(n / 2), hi = (double)(n - 1 - n / 2);
    for (int64_t v = 0; v < nvox; v++) {
        double x = vox[3 * v], y = vox[3 * v + 1], sl = vox[3 * v + 2];
        if (!isfinite(x) || !isfinite(y) || x < lo || x > hi || y < lo || y > hi)
            return kri_fail(KR_ERR_INVALID_ARG,
                            "%s: voxel %lld at (%g, %g) is outside the %lldx%lld image "
                            "(x and y in [%g, %g], pixel index minus %lld)", fn,
                            (long long)v, x, y, (long long)n, (long long)n, lo, hi, (long long)(n / 2));
        if (!(sl >= 0 && sl < (double)S && sl == floor(sl)))
            return kri_fail(KR_ERR_INVALID_ARG, "%s: voxel %lld has slice %g; the data "
                            "have slices 0 .. %lld", fn, (long long)v, sl, (long long)(S - 1));
    }
    *Mp = M;
    return KR_OK;
}

kr_status kr_fve_voxels(const kr_ctx *ctx, const kr_array *traj, const kr_array *weights,
                        const kr_array *data, int64_t n, int64_t nvox, const double *vox,
                        kr_array *out)
{
    int64_t M = 0, dd[6];
    KRI_TRY(kri_fve_check_args("kr_fve_voxels", ctx, traj, data, n, nvox, vox, out, &M, dd));
    const int64_t S = dd[2], E = dd[3], T = dd[4], C = dd[5];
    double *k = NULL, *w = NULL;
    int bad_out = 0;
    int64_t *slc = NULL;
    kr_status s = kri_traj_to_f64(traj, &k, &M);
    if (s == KR_OK && weights) s = kri_fve_host_real("kr_fve_voxels", weights, "weights", M, &w);
    for (int64_t i = 0; s == KR_OK && w && i < M; i++)
        if (!isfinite(w[i]) || w[i] < 0)
            s = kri_fail(KR_ERR_INVALID_ARG, "kr_fve_voxels: weight %lld is %g; weights must be "
                         "finite and >= 0", (long long)i, w[i]);
    for (int64_t i = 0; s == KR_OK && i < 3 * M; i++)
        if (!isfinite(k[i]))
            s = kri_fail(KR_ERR_GEOMETRY, "kr_fve_voxels: trajectory sample %lld is not finite",
                         (long long)(i / 3));
    if (s == KR_OK) s = kri_alloc((void **)&slc, (size_t)nvox * sizeof(int64_t), "FVE slices");
    for (int64_t v = 0; s == KR_OK && v < nvox; v++) slc[v] = (int64_t)vox[3 * v + 2];
    const kri_fve_backend *be = NULL;
    if (s == KR_OK) s = kri_backend_pick(&be, data->loc, &kri_fve_cpu, &kri_fve_cuda, "FVE voxels");
    if (s == KR_OK)
        s = be->voxels(ctx, k, w, vox, n, slc, nvox, M, S, E, T, C, data->data, out->data,
                       &bad_out);
    /* Non-finite samples: a voxel value is finite unless a sample it sums is not (the phases
     * are finite), so the backends check the small output and the data are searched only on
     * failure; the check costs nothing when the data are clean (one voxel: read once, not
     * twice). */
    if (s == KR_OK && bad_out) {
        int64_t bad = -1;
        s = kri_first_nonfinite(ctx, data->loc, KR_F32, data->data, 2 * kr_array_numel(data),
                                &bad);
        if (s == KR_OK)
            s = bad >= 0 ? kri_fail(KR_ERR_INVALID_ARG,
                                    "kr_fve_voxels: data sample %lld is not finite",
                                    (long long)(bad / 2))
                         : kri_fail(KR_ERR_INVALID_ARG,
                                    "kr_fve_voxels: the voxel sums overflow (data values "
                                    "too large for float)");
    }
    kri_free(k), kri_free(w), kri_free(slc);
    return s;
}

kr_status kr_fve_spectra(const kr_ctx *ctx, const kr_array *img, kr_array *spec)
{
    KRI_TRY(kri_check_operand("kr_fve_spectra", "image", img, KR_C64, KR_HOST));
    KRI_TRY(kri_check_operand("kr_fve_spectra", "spectra", spec, KR_C64, KR_HOST));
    int64_t d[4];
    for (int i = 0; i < 4; i++) d[i] = i < img->ndim ? img->dims[i] : 1;
    const int64_t E = d[0], T = d[1], C = d[2], V = kr_array_numel(img) / (E * T * C);
    if (spec->dims[0] != E || kr_array_numel(spec) != E * T * V)
        return kri_fail(KR_ERR_DIM, "kr_fve_spectra: spectra need [%lld, %lld, %lld] values "
                        "(bins, frames, voxels), got %lld", (long long)E, (long long)T,
                        (long long)V, (long long)kr_array_numel(spec));
    const float *m = (const float *)img->data;
    float *u = (float *)spec->data;
    for (int64_t v = 0; v < V; v++) {
        /* phase reference: kv = 0 encode, averaged over frames */
        double ar[64], ai[64], nrm = 0;
        if (C > 64) return kri_fail(KR_ERR_NOT_SUPPORTED, "kr_fve_spectra: %lld coils; at most 64", (long long)C);
        for (int64_t c = 0; c < C; c++) {
            ar[c] = ai[c] = 0;
            for (int64_t t = 0; t < T; t++) {
                const float *z = m + 2 * (E / 2 + E * (t + T * (c + C * v)));
                ar[c] += z[0], ai[c] += z[1];
            }
            ar[c] /= (double)T, ai[c] /= (double)T;
            nrm += ar[c] * ar[c] + ai[c] * ai[c];
        }
        nrm = nrm > 0 ? 1.0 / sqrt(nrm) : 0.0;
        for (int64_t t = 0; t < T; t++)
            for (int64_t e = 0; e < E; e++) {
                double sr = 0, si = 0;
                for (int64_t c = 0; c < C; c++) {
                    const float *z = m + 2 * (e + E * (t + T * (c + C * v)));
                    sr += ar[c] * z[0] + ai[c] * z[1];
                    si += ar[c] * z[1] - ai[c] * z[0];
                }
                float *o = u + 2 * (e + E * (t + T * v));
                o[0] = (float)(sr * nrm / (double)E), o[1] = (float)(si * nrm / (double)E);
            }
    }
    /* centred forward DFT along the encode axis (1/E applied above) */
    return kr_fft(ctx && kr_ctx_backend(ctx) != KR_BACKEND_CUDA ? ctx : NULL, spec, spec, 1u,
                  KR_FFT_FORWARD, KR_FFT_CENTERED);
}
