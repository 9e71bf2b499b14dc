/* kray demo section "phantoms": the analytic phantoms every test is built on. */
#include "demo.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KC_PI 3.14159265358979323846

/* Plane of a 3-D array at index `at` along axis `axis` (0 or 1) as a new 2-D array. */
static kr_status kc_plane(const kr_array *v, int axis, int64_t at, kr_array **out)
{
    int64_t nx = v->dims[0], ny = v->dims[1], nz = v->dims[2];
    int64_t dims[2] = {axis == 0 ? ny : nx, nz};
    kr_status s = kr_array_create(out, KR_F64, 2, dims, KR_HOST, NULL);
    if (s != KR_OK) return s;
    double *o = (*out)->data;
    for (int64_t z = 0; z < nz; z++)
        for (int64_t i = 0; i < dims[0]; i++) {
            int64_t idx = axis == 0 ? at + nx * (i + ny * z) : i + nx * (at + ny * z);
            o[i + dims[0] * (nz - 1 - z)] = kr_array_get_f64(v, idx); /* z (superior) up */
        }
    return KR_OK;
}

/* v, or 0 when |v| is below 1e-12 of `scale` (rounding left by densities that cancel:
 * 1 - 0.8 - 0.2 is -5.6e-17 in double). */
static double kc_clean(double v, double scale) { return fabs(v) <= 1e-12 * scale ? 0.0 : v; }

static kr_status kc_run_phantoms(kc_demo *d)
{
    const int64_t n = d->quick ? 128 : 256, n3 = d->quick ? 48 : 128;
    const int ss = d->quick ? 2 : 4;
    kr_array *sl = NULL, *mod = NULL, *mr = NULL, *v = NULL, *sino = NULL, *cor = NULL, *sag = NULL;
    double t[5];
    kr_status s;
    const char *hdr[] = {"phantom", "size", "supersampling", "min", "max", "time"};
    char caption[256], tb[32];

    kc_report_para(d->report,
                   "Analytic phantoms rasterised with supersampling (each pixel is the mean of "
                   "%dx%d sub-samples), the 3-D Shepp-Logan phantom of Kak & Slaney, the MR "
                   "version with T1, T2 and proton density per ellipse (Gach et al. 2008, 1.5 T) "
                   "and the exact parallel-beam sinogram (line integrals of the ellipses, no "
                   "discretisation).",
                   ss, ss);
    kc_report_figures_begin(d->report);
    double t0 = kr_time_now();
    if ((s = kr_phantom_2d(&sl, KR_PHANTOM_SHEPP_LOGAN, n, n, ss, d->real)) != KR_OK) goto done;
    t[0] = kr_time_now() - t0;
    if ((s = kc_demo_png(d, "phantom_sl_original", sl, 1.0, 1.04, -1, 0,
                         "Shepp-Logan, original contrast (window 1.00 to 1.04)")) != KR_OK)
        goto done;
    t0 = kr_time_now();
    if ((s = kr_phantom_2d(&mod, KR_PHANTOM_MODIFIED_SL, n, n, ss, d->real)) != KR_OK) goto done;
    t[1] = kr_time_now() - t0;
    if ((s = kc_demo_png(d, "phantom_sl_modified", mod, 0.0, 1.0, -1, 0,
                         "Shepp-Logan, modified (Toft) contrast (window 0 to 1)")) != KR_OK)
        goto done;
    kc_report_figures_end(d->report);

    kc_report_figures_begin(d->report);
    t0 = kr_time_now();
    if ((s = kr_phantom_mr_2d(&mr, n, n, ss)) != KR_OK) goto done;
    t[2] = kr_time_now() - t0;
    static const char *const mrname[3] = {"T1 (ms)", "T2 (ms)", "proton density"};
    static const char *const mrfile[3] = {"phantom_mr_t1", "phantom_mr_t2", "phantom_mr_pd"};
    for (int k = 0; k < 3; k++) {
        double lo = INFINITY, hi = -INFINITY;
        for (int64_t i = 0; i < n * n; i++) {
            double x = kr_array_get_f64(mr, i + n * n * k);
            lo = fmin(lo, x), hi = fmax(hi, x);
        }
        snprintf(caption, sizeof caption, "MR phantom: %s map (window %.4g to %.4g)", mrname[k],
                 lo, hi);
        if ((s = kc_demo_png(d, mrfile[k], mr, lo, hi, k, 0, caption)) != KR_OK) goto done;
    }
    kc_report_figures_end(d->report);

    kc_report_figures_begin(d->report);
    t0 = kr_time_now();
    if ((s = kr_phantom_3d(&v, KR_PHANTOM_MODIFIED_SL, n3, n3, n3, 1, d->real)) != KR_OK) goto done;
    t[3] = kr_time_now() - t0;
    /* the slice through the ventricles, z = -0.25 (pixel centre (2k+1-N)/N) */
    const int64_t kz = (int64_t)floor(0.375 * (double)n3);
    snprintf(caption, sizeof caption, "3-D phantom, axial slice %lld (z = %.3f)", (long long)kz,
             (double)(2 * kz + 1 - n3) / (double)n3);
    if ((s = kc_demo_png(d, "phantom_3d_axial", v, 0.0, 1.0, (int)kz, 0, caption)) != KR_OK)
        goto done;
    if ((s = kc_plane(v, 1, n3 / 2, &cor)) != KR_OK) goto done;
    snprintf(caption, sizeof caption, "3-D phantom, coronal plane y = %lld (x across, z up)",
             (long long)(n3 / 2));
    if ((s = kc_demo_png(d, "phantom_3d_coronal", cor, 0.0, 1.0, -1, 0, caption)) != KR_OK)
        goto done;
    if ((s = kc_plane(v, 0, n3 / 2, &sag)) != KR_OK) goto done;
    snprintf(caption, sizeof caption, "3-D phantom, sagittal plane x = %lld (y across, z up)",
             (long long)(n3 / 2));
    if ((s = kc_demo_png(d, "phantom_3d_sagittal", sag, 0.0, 1.0, -1, 0, caption)) != KR_OK)
        goto done;

    const int64_t nview = 180, ndet = n;
    double *theta = malloc(sizeof(double) * (size_t)nview),
           *pos = malloc(sizeof(double) * (size_t)ndet);
    if (!theta || !pos) {
        free(theta);
        free(pos);
        s = KR_ERR_OOM_HOST;
        goto done;
    }
    for (int64_t i = 0; i < nview; i++) theta[i] = (double)i * KC_PI / (double)nview;
    for (int64_t i = 0; i < ndet; i++) pos[i] = (double)(2 * i + 1 - ndet) / (double)n;
    t0 = kr_time_now();
    s = kr_phantom_sinogram(&sino, KR_PHANTOM_MODIFIED_SL, theta, nview, pos, ndet);
    t[4] = kr_time_now() - t0;
    free(theta);
    free(pos);
    if (s != KR_OK) goto done;
    snprintf(caption, sizeof caption,
             "Exact parallel-beam sinogram, %lld detectors x %lld views over 180 degrees "
             "(detector across, angle down)",
             (long long)ndet, (long long)nview);
    if ((s = kc_demo_png(d, "phantom_sinogram", sino, 0, 0, -1, 0, caption)) != KR_OK)
        goto done;
    kc_report_figures_end(d->report);

    kc_report_table_begin(d->report, 6, hdr);
    const kr_array *arr[5] = {sl, mod, mr, v, sino};
    const char *what[5] = {"Shepp-Logan original", "Shepp-Logan modified", "MR T1/T2/PD maps",
                           "3-D Shepp-Logan (modified)", "exact sinogram (normalised units)"};
    for (int i = 0; i < 5; i++) {
        kc_stats st;
        char dims[64];
        kc_array_stats(arr[i], &st);
        kc_report_table_rowf(d->report, "%s\t%s\t%s\t%.4g\t%.4g\t%s", what[i],
                             kr_dims_string(arr[i]->ndim, arr[i]->dims, dims, sizeof dims),
                             i == 4   ? "exact"
                             : i == 3 ? "1"
                                      : (ss == 2 ? "2x2" : "4x4"),
                             kc_clean(st.min, fmax(fabs(st.min), fabs(st.max))),
                             kc_clean(st.max, fmax(fabs(st.min), fabs(st.max))),
                             kc_fmt_seconds(t[i], tb, sizeof tb));
    }
    kc_report_table_end(d->report);
    char tb2[32];
    kc_demo_say(
        d, "2-D %lldx%lld (x%d supersampling) in %s; 3-D %lld^3 in %s; sinogram %lldx%lld in %s",
        (long long)n, (long long)n, ss, kc_fmt_seconds(t[1], tb, sizeof tb), (long long)n3,
        kc_fmt_seconds(t[3], tb2, sizeof tb2), (long long)ndet, (long long)nview,
        kc_fmt_seconds(t[4], caption, sizeof caption));
done:
    if (s != KR_OK) kc_report_figures_end(d->report);
    kr_array_destroy(sl);
    kr_array_destroy(mod);
    kr_array_destroy(mr);
    kr_array_destroy(v);
    kr_array_destroy(cor);
    kr_array_destroy(sag);
    kr_array_destroy(sino);
    return s;
}

const kc_demo_section kc_demo_phantoms = {"phantoms", "Analytic phantoms", kc_run_phantoms};
