/* Cartesian multi-coil MRI: coil k-space by the image-domain route, coil images, root-sum-of-
 * squares and optimal (Roemer) coil combination, phase-encode line masks and undersampling. */
#include "internal.h"
#include "kray/cartesian.h"
#include "kray/coils.h"
#include "kray/fft.h"
#include "mri/cartesian/sense_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

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

static kr_status kri_host_only(const kr_array *a, const char *fn, const char *what)
{
    if (a->loc != KR_HOST)
        return kri_fail(KR_ERR_LOCATION, "%s: %s must be a host array", fn, what);
    return KR_OK;
}

static kr_status kri_dims_mismatch(const char *fn, const char *wa, const kr_array *a,
                                   const char *wb, const kr_array *b)
{
    char x[96], y[96];
    return kri_fail(KR_ERR_DIM, "%s: %s has %s values but %s has %s", fn, wa,
                    kr_dims_string(a->ndim, a->dims, x, sizeof x), wb,
                    kr_dims_string(b->ndim, b->dims, y, sizeof y));
}

kr_status kr_coil_kspace(const kr_ctx *ctx, const kr_array *image, const kr_array *maps,
                         kr_array *kspace)
{
    const char *fn = "kr_coil_kspace";
    KRI_ARG_NOT_NULL(image);
    KRI_TRY(kri_check_c64(maps, "kr_coil_kspace: maps"));
    KRI_TRY(kri_check_c64(kspace, "kr_coil_kspace: kspace"));
    if (!image->data) return kri_fail(KR_ERR_INVALID_ARG, "%s: image has no data", fn);
    if (image->dtype != KR_F32 && image->dtype != KR_C64)
        return kri_fail(KR_ERR_DTYPE, "%s: image has element type %s; expected f32 or c64", fn,
                        kr_dtype_name(image->dtype));
    if (!kr_array_is_contiguous(image))
        return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: image is not contiguous", fn);
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
    int64_t nxy = dm[0] * dm[1], nc = dm[2];
    if (maps->loc == KR_DEVICE) {
#ifdef KRAY_HAVE_CUDA
        KRI_TRY(kri_cuda_set_device(ctx));
        KRI_TRY(kri_cuda_coil_expand(dm[0], dm[1], nc, maps->data, image->data,
                                     image->dtype == KR_C64, kspace->data, kr_ctx_stream(ctx)));
#else
        return kri_fail(KR_ERR_NO_DEVICE, "%s: built without CUDA", fn);
#endif
    } else {
        const float *s = maps->data, *im = image->data;
        float *k = kspace->data;
        int cplx = image->dtype == KR_C64;
        int64_t n = nxy * nc;
#pragma omp parallel for num_threads(kri_threads(ctx)) schedule(static)
        for (int64_t i = 0; i < n; i++) {
            int64_t p = i % nxy;
            float ar = cplx ? im[2 * p] : im[p], ai = cplx ? im[2 * p + 1] : 0.0f;
            float sr = s[2 * i], si = s[2 * i + 1];
            k[2 * i] = sr * ar - si * ai;
            k[2 * i + 1] = sr * ai + si * ar;
        }
    }
    return kr_fft(ctx, kspace, kspace, KRI_AXES_XY, KR_FFT_FORWARD,
                  KR_FFT_CENTERED | KR_FFT_UNITARY);
}

kr_status kr_coil_images(const kr_ctx *ctx, const kr_array *kspace, kr_array *images)
{
    const char *fn = "kr_coil_images";
    KRI_TRY(kri_check_c64(kspace, "kr_coil_images: kspace"));
    KRI_TRY(kri_check_c64(images, "kr_coil_images: images"));
    if (!kr_array_same_shape(kspace, images))
        return kri_dims_mismatch(fn, "kspace", kspace, "images", images);
    KRI_TRY(kri_same_loc(ctx, kspace, images, fn));
    return kr_fft(ctx, kspace, images, KRI_AXES_XY, KR_FFT_BACKWARD,
                  KR_FFT_CENTERED | KR_FFT_UNITARY);
}

kr_status kr_coil_rss(const kr_ctx *ctx, const kr_array *images, kr_array *out)
{
    const char *fn = "kr_coil_rss";
    KRI_TRY(kri_check_c64(images, "kr_coil_rss: images"));
    KRI_ARG_NOT_NULL(out);
    if (!out->data) return kri_fail(KR_ERR_INVALID_ARG, "%s: out has no data", fn);
    if (out->dtype != KR_F32)
        return kri_fail(KR_ERR_DTYPE, "%s: out has element type %s; expected f32", fn,
                        kr_dtype_name(out->dtype));
    if (!kr_array_is_contiguous(out))
        return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: out is not contiguous", fn);
    KRI_TRY(kri_host_only(images, fn, "images"));
    KRI_TRY(kri_host_only(out, fn, "out"));
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
    KRI_TRY(kri_check_c64(images, "kr_coil_combine: images"));
    KRI_TRY(kri_check_c64(maps, "kr_coil_combine: maps"));
    KRI_TRY(kri_check_c64(out, "kr_coil_combine: out"));
    KRI_TRY(kri_host_only(images, fn, "images"));
    KRI_TRY(kri_host_only(maps, fn, "maps"));
    KRI_TRY(kri_host_only(out, fn, "out"));
    int64_t d[3], m[3], o[3];
    KRI_TRY(kri_shape3(images, 3, "kr_coil_combine: images", d));
    KRI_TRY(kri_shape3(maps, 3, "kr_coil_combine: maps", m));
    KRI_TRY(kri_shape3(out, 2, "kr_coil_combine: out", o));
    if (m[0] != d[0] || m[1] != d[1] || m[2] != d[2])
        return kri_dims_mismatch(fn, "maps", maps, "images", images);
    if (o[0] != d[0] || o[1] != d[1]) return kri_dims_mismatch(fn, "out", out, "images", images);
    int64_t nxy = d[0] * d[1], nc = d[2];
    kri_zc *w = NULL;
    if (psi) KRI_TRY(kri_psi_whitener(psi, nc, "kr_coil_combine: psi", &w));
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
#ifdef _OPENMP
        int tid = omp_get_thread_num();
#else
        int tid = 0;
#endif
        (void)tid;
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

/* ---- line masks --------------------------------------------------------------------------------
 */
kr_status kr_cartesian_lines(uint8_t *lines, int64_t ny, int accel, int offset, int64_t nacs)
{
    KRI_ARG_NOT_NULL(lines);
    if (ny < 1)
        return kri_fail(KR_ERR_DIM, "kr_cartesian_lines: %lld phase-encode lines (must be >= 1)",
                        (long long)ny);
    if (accel < 1)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "kr_cartesian_lines: acceleration R = %d (must be >= 1)", accel);
    if (offset < 0 || offset >= accel)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "kr_cartesian_lines: offset %d is outside 0..%d for R = %d", offset,
                        accel - 1, accel);
    if (nacs < 0 || nacs > ny)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "kr_cartesian_lines: %lld calibration lines for %lld phase-encode lines",
                        (long long)nacs, (long long)ny);
    int64_t a0 = ny / 2 - nacs / 2;
    for (int64_t j = 0; j < ny; j++) {
        uint8_t f = 0;
        if ((j - offset) % accel == 0 && j >= offset) f |= KR_LINE_IMAGING;
        if (j >= a0 && j < a0 + nacs) f |= KR_LINE_CALIBRATION;
        lines[j] = f;
    }
    return KR_OK;
}

int64_t kr_cartesian_count(const uint8_t *lines, int64_t ny, unsigned which)
{
    if (!lines) return 0;
    int64_t n = 0;
    for (int64_t j = 0; j < ny; j++)
        if (lines[j] & which) n++;
    return n;
}

kr_status kr_cartesian_undersample(const kr_ctx *ctx, kr_array *kspace, const uint8_t *lines)
{
    const char *fn = "kr_cartesian_undersample";
    KRI_TRY(kri_check_c64(kspace, "kr_cartesian_undersample: kspace"));
    KRI_ARG_NOT_NULL(lines);
    KRI_TRY(kri_check_loc(ctx, kspace->loc, fn));
    int64_t nx = kspace->dims[0], ny = kspace->ndim > 1 ? kspace->dims[1] : 1;
    int64_t rest = kr_array_numel(kspace) / (nx * ny);
    if (kspace->loc == KR_DEVICE) {
#ifdef KRAY_HAVE_CUDA
        void *dl = NULL;
        KRI_TRY(kri_cuda_set_device(ctx));
        KRI_TRY(kri_device_alloc(&dl, (size_t)ny, kr_ctx_device(ctx), "line mask"));
        kr_status st = kri_memcpy(dl, KR_DEVICE, lines, KR_HOST, (size_t)ny, ctx);
        if (st == KR_OK)
            st = kri_cuda_sense_mask(nx, ny, rest, kspace->data, dl, kr_ctx_stream(ctx));
        if (st == KR_OK) st = kri_device_synchronize(ctx);
        kri_device_free(dl);
        return st;
#else
        return kri_fail(KR_ERR_NO_DEVICE, "%s: built without CUDA", fn);
#endif
    }
    float *k = kspace->data;
#pragma omp parallel for num_threads(kri_threads(ctx)) schedule(static)
    for (int64_t r = 0; r < rest; r++)
        for (int64_t j = 0; j < ny; j++)
            if (!lines[j]) memset(k + 2 * nx * (j + ny * r), 0, sizeof(float) * 2 * (size_t)nx);
    return KR_OK;
}
