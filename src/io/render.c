/* Rendering an array to 8/16-bit grey levels for PNG and PGM output. */
#include "io_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Value of element i as a real number, according to the complex part requested. */
static double kri_render_part(const kr_array *a, int64_t i, int part)
{
    double re, im;
    kri_array_elem(a, i, &re, &im);
    if (!kr_dtype_is_complex(a->dtype)) return re;
    switch (part) {
    case 1: return re;
    case 2: return im;
    case 3: return atan2(im, re);
    default: return hypot(re, im);
    }
}

kr_status kri_render_gray(const kr_array *a, const kr_io_opts *o, int bits, void **pixels,
                          int64_t *nx, int64_t *ny)
{
    *pixels = NULL;
    if (bits != 8 && bits != 16)
        return kri_fail(KR_ERR_INVALID_ARG, "image bit depth must be 8 or 16, got %d", bits);
    if (o->complex_part < 0 || o->complex_part > 3)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "complex part must be 0 (magnitude), 1 (real), 2 (imaginary) or 3 "
                        "(phase), got %d", o->complex_part);
    for (int d = 3; d < a->ndim; d++)
        if (a->dims[d] > 1) {
            char buf[128];
            return kri_fail(KR_ERR_DIM,
                            "an image holds a 2-D array or one slice of a 3-D volume; this "
                            "array is %s",
                            kr_dims_string(a->ndim, a->dims, buf, sizeof buf));
        }
    int64_t w = a->dims[0], h = a->ndim > 1 ? a->dims[1] : 1;
    int64_t nz = a->ndim > 2 ? a->dims[2] : 1;
    int64_t z = o->slice < 0 ? nz / 2 : o->slice;
    if (z >= nz)
        return kri_fail(KR_ERR_INVALID_ARG, "slice %lld is outside the volume's %lld slices",
                        (long long)z, (long long)nz);
    if (w > 65535 || h > 65535)
        return kri_fail(KR_ERR_DIM, "image of %lldx%lld pixels is too large to render",
                        (long long)w, (long long)h);
    int64_t base = z * w * h, n = w * h;
    double lo, hi;
    if (o->window_set) {
        lo = o->window_lo;
        hi = o->window_hi;
        if (!isfinite(lo) || !isfinite(hi) || !(hi > lo))
            return kri_fail(KR_ERR_INVALID_ARG, "window [%g, %g] must be finite with lo < hi", lo,
                            hi);
    } else {
        lo = INFINITY;
        hi = -INFINITY;
        for (int64_t i = 0; i < n; i++) {
            double v = kri_render_part(a, base + i, o->complex_part);
            if (!isfinite(v)) continue;
            if (v < lo) lo = v;
            if (v > hi) hi = v;
        }
        if (!(hi > lo)) { /* constant (or all non-finite) image */
            if (!isfinite(lo)) lo = 0.0;
            hi = lo + 1.0;
        }
    }
    double maxval = bits == 8 ? 255.0 : 65535.0;
    void *px;
    KRI_TRY(kri_alloc(&px, (size_t)n * (size_t)(bits / 8), "rendered image"));
    /* A range wider than DBL_MAX (say -1e308..1e308) overflows hi - lo; halving every term keeps
     * the differences finite (lo < hi are finite, so hi / 2 - lo / 2 > 0 unless both are
     * subnormal neighbours, where the plain difference is exact). */
    const int half = !isfinite(hi - lo);
    const double span = half ? hi / 2 - lo / 2 : hi - lo;
    for (int64_t i = 0; i < n; i++) {
        double v = kri_render_part(a, base + i, o->complex_part);
        double t = !isfinite(v) ? 0.0
                   : half       ? (v / 2 - lo / 2) / span * maxval
                                : (v - lo) / span * maxval;
        if (v == INFINITY) t = maxval;
        /* NaN never reaches the integer conversion */
        t = !(t > 0.0) ? 0.0 : t > maxval ? maxval : floor(t + 0.5);
        if (bits == 8)
            ((uint8_t *)px)[i] = (uint8_t)t;
        else
            ((uint16_t *)px)[i] = (uint16_t)t;
    }
    *pixels = px;
    *nx = w;
    *ny = h;
    return KR_OK;
}
