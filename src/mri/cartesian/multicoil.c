/* Multi-coil data (kray/coils.h): coil k-space by the image-domain route, coil images,
 * root-sum-of-squares and optimal (Roemer) coil combination. */
#include "kray/coils.h"
#include "internal.h"
#include "kray/fft.h"
#include "mri/cartesian/coilop_internal.h"
#include "mri/cartesian/sense_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define KRI_AXES_XY 3u

static kr_status kri_same_loc(const kr_ctx *ctx, const kr_array *a, const kr_array *b,
                              const char *fn)
{
    if (a->loc != b->loc)
        return kri_fail(KR_ERR_LOCATION, "%s: operands are on different devices (host and GPU)",
                        fn);
    if (a->loc == KR_DEVICE && a->device != b->device)
        return kri_fail(KR_ERR_LOCATION, "%s: operands are on different GPUs (%d and %d)", fn,
                        a->device, b->device);
    return kri_check_loc(ctx, a->loc, fn);
}

static kr_status kri_dims_mismatch(const char *fn, const char *wa, const kr_array *a,
                                   const char *wb, const kr_array *b)
{
    char x[96], y[96];
    return kri_fail(KR_ERR_DIM, "%s: %s has %s values but %s has %s", fn, wa,
                    kr_dims_string(a->ndim, a->dims, x, sizeof x), wb,
                    kr_dims_string(b->ndim, b->dims, y, sizeof y));
}

/* The centred unitary FFT over x and y (coils.h), forward or backward. */
static kr_status kri_coil_fft(const kr_ctx *ctx, const kr_array *in, kr_array *out,
                              kr_fft_dir dir)
{
    return kr_fft(ctx, in, out, KRI_AXES_XY, dir, KR_FFT_CENTERED | KR_FFT_UNITARY);
}

kr_status kr_coil_kspace(const kr_ctx *ctx, const kr_array *image, const kr_array *maps,
                         kr_array *kspace)
{
    const char *fn = "kr_coil_kspace";
    KRI_TRY(kri_check_operand(fn, "image", image, KRI_ANY_DTYPE, KRI_ANY_LOC));
    KRI_TRY(kri_check_operand(fn, "maps", maps, KR_C64, KRI_ANY_LOC));
    KRI_TRY(kri_check_operand(fn, "kspace", kspace, KR_C64, KRI_ANY_LOC));
    if (image->dtype != KR_F32 && image->dtype != KR_C64)
        return kri_fail(KR_ERR_DTYPE, "%s: image has element type %s; expected f32 or c64", fn,
                        kr_dtype_name(image->dtype));
    int64_t di[3], dm[3], dk[3];
    KRI_TRY(kri_shape3(image, 2, "kr_coil_kspace: image", di));
    KRI_TRY(kri_shape3(maps, 3, "kr_coil_kspace: maps", dm));
    KRI_TRY(kri_shape3(kspace, 3, "kr_coil_kspace: kspace", dk));
    if (di[0] != dm[0] || di[1] != dm[1])
        return kri_dims_mismatch(fn, "image", image, "maps", maps);
    if (dk[0] != dm[0] || dk[1] != dm[1] || dk[2] != dm[2])
        return kri_dims_mismatch(fn, "kspace", kspace, "maps", maps);
    KRI_TRY(kri_same_loc(ctx, image, maps, fn));
    KRI_TRY(kri_same_loc(ctx, maps, kspace, fn));
    const kri_coilop_backend *be;
    KRI_TRY(kri_backend_pick(&be, maps->loc, &kri_coilop_cpu, &kri_coilop_cuda, fn));
    KRI_TRY(be->expand(ctx, dm[0] * dm[1], dm[2], maps->data, image->data,
                       image->dtype == KR_C64, kspace->data));
    return kri_coil_fft(ctx, kspace, kspace, KR_FFT_FORWARD);
}

kr_status kr_coil_images(const kr_ctx *ctx, const kr_array *kspace, kr_array *images)
{
    const char *fn = "kr_coil_images";
    KRI_TRY(kri_check_operand(fn, "kspace", kspace, KR_C64, KRI_ANY_LOC));
    KRI_TRY(kri_check_operand(fn, "images", images, KR_C64, KRI_ANY_LOC));
    if (!kr_array_same_shape(kspace, images))
        return kri_dims_mismatch(fn, "kspace", kspace, "images", images);
    KRI_TRY(kri_same_loc(ctx, kspace, images, fn));
    return kri_coil_fft(ctx, kspace, images, KR_FFT_BACKWARD);
}

kr_status kr_coil_rss(const kr_ctx *ctx, const kr_array *images, kr_array *out)
{
    const char *fn = "kr_coil_rss";
    KRI_TRY(kri_check_operand(fn, "images", images, KR_C64, KR_HOST));
    KRI_TRY(kri_check_operand(fn, "out", out, KR_F32, KR_HOST));
    int64_t d[3], o[3];
    KRI_TRY(kri_shape3(images, 3, "kr_coil_rss: images", d));
    KRI_TRY(kri_shape3(out, 2, "kr_coil_rss: out", o));
    if (o[0] != d[0] || o[1] != d[1]) return kri_dims_mismatch(fn, "out", out, "images", images);
    int64_t nxy = d[0] * d[1], nc = d[2];
    const float *a = images->data;
    float *r = out->data;
#pragma omp parallel for num_threads(kri_threads(ctx)) schedule(static)
    for (int64_t p = 0; p < nxy; p++) {
        double s = 0;
        for (int64_t c = 0; c < nc; c++) {
            double re = a[2 * (p + nxy * c)], im = a[2 * (p + nxy * c) + 1];
            s += re * re + im * im;
        }
        r[p] = (float)sqrt(s);
    }
    return KR_OK;
}

kr_status kr_coil_combine(const kr_ctx *ctx, const kr_array *images, const kr_array *maps,
                          const kr_array *psi, kr_array *out)
{
    const char *fn = "kr_coil_combine";
    KRI_TRY(kri_check_operand(fn, "images", images, KR_C64, KR_HOST));
    KRI_TRY(kri_check_operand(fn, "maps", maps, KR_C64, KR_HOST));
    KRI_TRY(kri_check_operand(fn, "out", out, KR_C64, KR_HOST));
    int64_t d[3], m[3], o[3];
    KRI_TRY(kri_shape3(images, 3, "kr_coil_combine: images", d));
    KRI_TRY(kri_shape3(maps, 3, "kr_coil_combine: maps", m));
    KRI_TRY(kri_shape3(out, 2, "kr_coil_combine: out", o));
    if (m[0] != d[0] || m[1] != d[1] || m[2] != d[2])
        return kri_dims_mismatch(fn, "maps", maps, "images", images);
    if (o[0] != d[0] || o[1] != d[1]) return kri_dims_mismatch(fn, "out", out, "images", images);
    int64_t nxy = d[0] * d[1], nc = d[2];
    kri_zc *w = NULL;
    if (psi) KRI_TRY(kri_psi_whitener(psi, nc, fn, &w));
    const float *a = images->data, *s = maps->data;
    float *r = out->data;
    int nt = kri_threads(ctx);
    float *tmp = NULL;
    if (w) {
        size_t bytes = sizeof(float) * 4 * (size_t)nc * (size_t)(nt > 0 ? nt : 1);
        kr_status st = kri_alloc((void **)&tmp, bytes, "coil combination scratch");
        if (st != KR_OK) {
            kri_free(w);
            return st;
        }
    }
#pragma omp parallel num_threads(nt)
    {
        const int tid = kri_omp_tid();
#pragma omp for schedule(static)
        for (int64_t p = 0; p < nxy; p++) {
            double nr = 0, ni = 0, den = 0;
            if (w) {
                float *ta = tmp + (size_t)tid * 4 * (size_t)nc, *ts = ta + 2 * nc;
                for (int64_t c = 0; c < nc; c++) {
                    ta[2 * c] = a[2 * (p + nxy * c)];
                    ta[2 * c + 1] = a[2 * (p + nxy * c) + 1];
                    ts[2 * c] = s[2 * (p + nxy * c)];
                    ts[2 * c + 1] = s[2 * (p + nxy * c) + 1];
                }
                kri_whiten_c64(nc, w, ta, 1);
                kri_whiten_c64(nc, w, ts, 1);
                for (int64_t c = 0; c < nc; c++) {
                    double sr = ts[2 * c], si = ts[2 * c + 1], ar = ta[2 * c], ai = ta[2 * c + 1];
                    nr += sr * ar + si * ai;
                    ni += sr * ai - si * ar;
                    den += sr * sr + si * si;
                }
            } else {
                for (int64_t c = 0; c < nc; c++) {
                    int64_t q = 2 * (p + nxy * c);
                    double sr = s[q], si = s[q + 1], ar = a[q], ai = a[q + 1];
                    nr += sr * ar + si * ai;
                    ni += sr * ai - si * ar;
                    den += sr * sr + si * si;
                }
            }
            r[2 * p] = den > 0 ? (float)(nr / den) : 0.0f;
            r[2 * p + 1] = den > 0 ? (float)(ni / den) : 0.0f;
        }
    }
    kri_free(tmp);
    kri_free(w);
    return KR_OK;
}
