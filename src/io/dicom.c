/* DICOM export: options, validation, attenuation -> HU -> 16-bit quantisation, slice files and
 * safe renaming. The DCMTK calls live in kray's plug-in dicom_dcmtk.cpp (libkray_dcmtk.so, only
 * with KRAY_HAVE_DCMTK), loaded here when a call first needs it. */
#include "dicom_internal.h"
#include "internal.h"
#include "iofile.h"
#include "optional.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

void kr_dicom_opts_default(kr_dicom_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->mu_water = 0.0193;
    o->pixel_spacing_mm[0] = o->pixel_spacing_mm[1] = 1.0;
    o->window_center_hu = 40.0;
    o->window_width_hu = 400.0;
    o->series_number = 1;
}

#ifndef KRAY_HAVE_DCMTK
static kr_status kri_no_dcmtk(void)
{
    return kri_fail(KR_ERR_NOT_SUPPORTED,
                    "kray was built without DCMTK; install libdcmtk-dev and rebuild");
}
#endif

static int kri_pos_finite(double v) { return isfinite(v) && v > 0; }

static kr_status kri_dicom_check(const char *path, const kr_array *a, const kr_dicom_opts *o)
{
    if (!*path) return kri_fail(KR_ERR_INVALID_ARG, "kr_write_dicom: empty file name");
    if (!o->values_are_hu && !kri_pos_finite(o->mu_water))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: mu_water = %g must be > 0 (1/mm)", path,
                        o->mu_water);
    if (!kri_pos_finite(o->pixel_spacing_mm[0]) || !kri_pos_finite(o->pixel_spacing_mm[1]))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: pixel spacing %g x %g mm must be > 0", path,
                        o->pixel_spacing_mm[0], o->pixel_spacing_mm[1]);
    if (!(o->slice_thickness_mm >= 0) || !isfinite(o->slice_thickness_mm) ||
        !(o->slice_spacing_mm >= 0) || !isfinite(o->slice_spacing_mm))
        return kri_fail(KR_ERR_INVALID_ARG,
                        "%s: slice thickness %g / spacing %g mm must be >= 0 "
                        "(0 = default)",
                        path, o->slice_thickness_mm, o->slice_spacing_mm);
    for (int i = 0; i < 3; i++)
        if (!isfinite(o->origin_mm[i]))
            return kri_fail(KR_ERR_INVALID_ARG, "%s: origin_mm[%d] is not finite", path, i);
    if (!isfinite(o->window_center_hu) || !(o->window_width_hu >= 0) ||
        !isfinite(o->window_width_hu))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: window %g / %g HU is invalid", path,
                        o->window_center_hu, o->window_width_hu);
    if (o->series_number < 0)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: series_number %d must be >= 0", path,
                        o->series_number);
    KRI_TRY(kri_check_operand(path, "image", a, KRI_ANY_DTYPE, KR_HOST));
    if (a->dtype != KR_F32 && a->dtype != KR_F64)
        return kri_fail(KR_ERR_DTYPE, "%s: DICOM export takes f32 or f64 images, not %s", path,
                        kr_dtype_name(a->dtype));
    char d[96];
    if (kr_array_rank(a) > 3 || a->dims[0] > 65535 || (a->ndim > 1 && a->dims[1] > 65535))
        return kri_fail(KR_ERR_DIM,
                        "%s: image dims %s; DICOM export takes [x, y] or [x, y, z] "
                        "with x, y <= 65535",
                        path, kr_dims_string(a->ndim, a->dims, d, sizeof d));
    return KR_OK;
}

#ifdef KRAY_HAVE_DCMTK
/* The plug-in's functions, loaded on first use; KR_ERR_NOT_SUPPORTED with one sentence when
 * it is missing or belongs to another build. */
static kr_status kri_dcmtk(const kri_fn **f)
{
    KRI_TRY(kri_part_load(KRI_PART_DCMTK, f));
    const int abi = ((kri_dcmtk_abi_fn *)(*f)[KRI_SYM_kri_dcmtk_abi])();
    if (abi != KRI_DCMTK_ABI)
        return kri_fail(KR_ERR_NOT_SUPPORTED,
                        "DICOM files: the DCMTK plug-in found has interface %d, this libkray %d "
                        "(a plug-in of another kray build; reinstall kray)",
                        abi, KRI_DCMTK_ABI);
    return KR_OK;
}

static kr_status kri_dicom_uid(const kri_fn *f, char uid[KRI_UID_LEN])
{
    char err[KRI_DCMTK_ERR] = "";
    const kr_status s = ((kri_dcmtk_uid_fn *)f[KRI_SYM_kri_dcmtk_uid])(uid, err);
    return s == KR_OK ? KR_OK : kri_fail(s, "%s", err);
}

/* HU of element i. */
static double kri_hu(const kr_array *a, int64_t i, const kr_dicom_opts *o)
{
    double v =
        a->dtype == KR_F32 ? (double)((const float *)a->data)[i] : ((const double *)a->data)[i];
    return o->values_are_hu ? v : 1000.0 * (v - o->mu_water) / o->mu_water;
}
#endif

kr_status kr_write_dicom(const char *path, const kr_array *image, const kr_dicom_opts *opts)
{
    KRI_ARG_NOT_NULL(path);
    kr_dicom_opts o;
    if (opts)
        o = *opts;
    else
        kr_dicom_opts_default(&o);
    KRI_TRY(kri_dicom_check(path, image, &o));
#ifndef KRAY_HAVE_DCMTK
    return kri_no_dcmtk();
#else
    const kri_fn *f;
    KRI_TRY(kri_dcmtk(&f));
    const int64_t nx = image->dims[0], ny = image->ndim > 1 ? image->dims[1] : 1;
    const int64_t nz = kr_array_numel(image) / (nx * ny);
    if (o.slice_thickness_mm == 0) o.slice_thickness_mm = o.pixel_spacing_mm[0];
    if (o.slice_spacing_mm == 0) o.slice_spacing_mm = o.slice_thickness_mm;

    /* slope: 1 when every HU fits in int16, else the smallest that does; written and used as
     * the same decimal string */
    double maxabs = 0;
    int64_t nnan = 0;
    for (int64_t i = 0; i < nx * ny * nz; i++) {
        double h = kri_hu(image, i, &o);
        if (isnan(h))
            nnan++;
        else if (fabs(h) > maxabs)
            maxabs = isinf(h) ? maxabs : fabs(h);
    }
    if (nnan)
        kr_log(NULL, KR_LOG_INFO, "%s: %lld NaN values stored as -1024 HU", path, (long long)nnan);
    kri_dicom_slice s;
    memset(&s, 0, sizeof s);
    double slope = maxabs > 32767.0 ? maxabs / 32767.0 : 1.0;
    snprintf(s.slope, sizeof s.slope, "%.8g", slope);
    slope = strtod(s.slope, NULL);
    if (slope * 32767.0 < maxabs) { /* rounding of the string went down: step up one digit */
        slope *= 1.0 + 1e-7;
        snprintf(s.slope, sizeof s.slope, "%.8g", slope);
        slope = strtod(s.slope, NULL);
    }
    snprintf(s.intercept, sizeof s.intercept, "0");
    s.rows = (int)ny;
    s.cols = (int)nx;
    s.dx = o.pixel_spacing_mm[0];
    s.dy = o.pixel_spacing_mm[1];
    s.thickness = o.slice_thickness_mm;
    time_t now = time(NULL);
    struct tm tmv;
    localtime_r(&now, &tmv);
    strftime(s.date, sizeof s.date, "%Y%m%d", &tmv);
    strftime(s.time, sizeof s.time, "%H%M%S", &tmv);
    KRI_TRY(kri_dicom_uid(f, s.study_uid));
    KRI_TRY(kri_dicom_uid(f, s.series_uid));
    KRI_TRY(kri_dicom_uid(f, s.frame_uid));

    int16_t *px;
    KRI_TRY(kri_alloc((void **)&px, (size_t)(nx * ny) * sizeof(int16_t), "DICOM pixels"));
    /* file names: path itself, or <stem>_%04d.dcm for volumes */
    size_t plen = strlen(path);
    char *stem = NULL, *fname = NULL, *tmp = NULL;
    kr_status st = kri_alloc((void **)&stem, plen + 1, "file name");
    if (st == KR_OK) st = kri_alloc((void **)&fname, plen + 32, "file name");
    if (st == KR_OK) st = kri_alloc((void **)&tmp, plen + 64, "file name");
    if (st == KR_OK) {
        memcpy(stem, path, plen + 1);
        if (plen > 4 && strcasecmp(stem + plen - 4, ".dcm") == 0) stem[plen - 4] = 0;
    }
    for (int64_t z = 0; st == KR_OK && z < nz; z++) {
        for (int64_t i = 0; i < nx * ny; i++) {
            double h = kri_hu(image, z * nx * ny + i, &o);
            if (isnan(h)) h = -1024.0;
            double q = nearbyint(h / slope);
            px[i] = (int16_t)(q > 32767 ? 32767 : q < -32768 ? -32768 : q);
        }
        s.pixels = px;
        s.instance = (int)z + 1;
        s.pos[0] = o.origin_mm[0] - 0.5 * (double)(nx - 1) * s.dx;
        s.pos[1] = o.origin_mm[1] - 0.5 * (double)(ny - 1) * s.dy;
        s.pos[2] = o.origin_mm[2] + (double)z * o.slice_spacing_mm;
        if (nz == 1)
            snprintf(fname, plen + 32, "%s", path);
        else
            snprintf(fname, plen + 32, "%s_%04lld.dcm", stem, (long long)z);
        snprintf(tmp, plen + 64, "%s.tmp.%ld", fname, (long)getpid());
        const int slot = kri_tmp_register(tmp); /* removed if a signal ends the process */
        char err[KRI_DCMTK_ERR] = "";
        st = ((kri_dcmtk_write_slice_fn *)f[KRI_SYM_kri_dcmtk_write_slice])(tmp, &s, &o, err);
        if (st != KR_OK) kri_fail(st, "%s", err);
        if (st == KR_OK && rename(tmp, fname) != 0)
            st = kri_fail(KR_ERR_IO, "%s: cannot rename the finished file into place", fname);
        if (st != KR_OK) remove(tmp);
        kri_tmp_unregister(slot);
    }
    kri_free(px);
    kri_free(stem);
    kri_free(fname);
    kri_free(tmp);
    return st;
#endif
}

kr_status kr_read_dicom(const char *path, kr_array **out, double spacing_mm[2])
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(path);
#ifndef KRAY_HAVE_DCMTK
    (void)spacing_mm;
    return kri_no_dcmtk();
#else
    const kri_fn *f;
    KRI_TRY(kri_dcmtk(&f));
    char err[KRI_DCMTK_ERR] = "";
    float *px = NULL;
    int64_t dims[2] = {0, 0};
    kr_status st = ((kri_dcmtk_read_fn *)f[KRI_SYM_kri_dcmtk_read])(path, &px, dims, spacing_mm, err);
    if (st != KR_OK) return kri_fail(st, "%s", err);
    kr_array *a = NULL;
    st = kr_array_create(&a, KR_F32, 2, dims, KR_HOST, NULL);
    if (st == KR_OK) {
        memcpy(a->data, px, (size_t)(dims[0] * dims[1]) * sizeof(float));
        *out = a;
    }
    free(px);
    return st;
#endif
}
