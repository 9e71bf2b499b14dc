/* kray demo section "fdk": cone-beam FDK of the 3-D Shepp-Logan phantom from exact projections
 * (line integrals of the ellipsoids, kr_ct_phantom_projections: no projector, so no inverse
 * crime), full and short scan,
 * central slices, metrics against the rasterised phantom and timings. */
#include "demo.h"
#include "kray/fdk.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Plane of a [nx, ny, nz] f32 volume: axis 0 (x = at: [ny, nz]), 1 (y = at: [nx, nz]), 2. */
static kr_status kc_fdk_plane(const kr_array *v, int axis, int64_t at, kr_array **out)
{
    const int64_t nx = v->dims[0], ny = v->dims[1], nz = v->dims[2];
    int64_t d[2] = {axis == 0 ? ny : nx, axis == 2 ? ny : nz};
    kr_status s = kr_array_create(out, KR_F32, 2, d, KR_HOST, NULL);
    if (s != KR_OK) return s;
    const float *x = v->data;
    float *o = (*out)->data;
    for (int64_t b = 0; b < d[1]; b++)
        for (int64_t a = 0; a < d[0]; a++) /* sagittal and coronal: z (superior) up */
            o[a + d[0] * (axis == 2 ? b : d[1] - 1 - b)] = axis == 0 ? x[at + nx * (a + ny * b)]
                              : axis == 1 ? x[a + nx * (at + ny * b)]
                                          : x[a + nx * (b + ny * at)];
    return KR_OK;
}

static kr_status kc_fdk_run(const kr_ctx *ctx, const kr_ct_geom *g, const kr_array *proj,
                            kr_array **vol, double *t, kr_fdk_info *info)
{
    kr_fdk_plan *p = NULL;
    kr_status s = kr_fdk_plan_create(&p, ctx, g, NULL);
    if (s == KR_OK) s = kr_array_create(vol, KR_F32, 3, kr_ct_geom_grid(g)->n, KR_HOST, NULL);
    double t0 = kr_time_now();
    if (s == KR_OK) s = kr_fdk_execute(p, proj, *vol);
    *t = kr_time_now() - t0;
    if (s == KR_OK) s = kr_fdk_plan_info(p, info);
    kr_fdk_plan_destroy(p);
    return s;
}

static kr_status kc_run_fdk(kc_demo *d)
{
    /* 128^3 on the GPU (and the CPU beside it), 96^3 without one; smaller with --quick */
    const int64_t n = d->quick ? 48 : d->gpu ? 128 : 96, nviews = d->quick ? 72 : 180;
    const double vox = 2.0, side = (double)n * vox;
    const int64_t nu = n * 3 / 2, nv = n * 3 / 2;
    kr_ct_scan sc;
    kr_ct_scan_default(&sc);
    sc.type = KR_CT_CONE;
    sc.nviews = nviews;
    sc.start_deg = 0;
    sc.stop_deg = 360;
    sc.det_count = nu;
    sc.det_rows = nv;
    sc.det_spacing_mm = 2 * vox;
    sc.sod_mm = 3 * side;
    sc.sdd_mm = 6 * side;
    kr_ct_geom *geo = NULL, *gshort = NULL;
    kr_array *proj = NULL, *ref = NULL, *vg = NULL, *vc = NULL, *vs = NULL, *pl = NULL;
    kr_array *pr = NULL;
    kr_fdk_info ig, ic, is;
    double tp = 0, tg = 0, tc = 0, ts = 0;
    int64_t kshort = 0;
    char caption[256], b1[32], b2[32];
    kr_ct_grid g;
    memset(&g, 0, sizeof g);
    for (int k = 0; k < 3; k++) g.n[k] = n, g.voxel_mm[k] = vox;
    kr_status s = kr_ct_geom_create(&geo, &sc, &g);
    double t0 = kr_time_now();
    if (s == KR_OK)
        s = kr_ct_phantom_projections(&proj, d->cpu, geo, KR_PHANTOM_MODIFIED_SL, 1, KR_F32);
    tp = kr_time_now() - t0;
    if (s == KR_OK) s = kr_phantom_3d(&ref, KR_PHANTOM_MODIFIED_SL, n, n, n, 2, KR_F32);
    if (s != KR_OK) goto done;
    kc_report_para(d->report,
                   "A circular cone-beam scan of the 3-D Shepp-Logan phantom (modified contrast, "
                   "a %.0f mm cube): %lld views over 360 degrees, flat %lldx%lld detector with "
                   "%.0f mm pixels, source %.0f mm from the axis and %.0f mm from the detector "
                   "(cone half-angle %.1f degrees). The projections are exact line integrals of "
                   "the ellipsoids (%s for %lld rays), so the reconstruction is not tested "
                   "against its own projector. FDK: cosine weights, band-limited Ram-Lak ramp "
                   "along the detector rows, voxel-driven backprojection with the distance "
                   "weight and bilinear interpolation, into %lld^3 voxels of %.0f mm.",
                   side, (long long)nviews, (long long)nu, (long long)nv, 2 * vox, 3 * side,
                   6 * side, atan(0.5 * (double)nv * 2 * vox / (6 * side)) * 180 / 3.14159265358979,
                   kc_fmt_seconds(tp, b1, sizeof b1), (long long)(nu * nv * nviews), (long long)n,
                   vox);
    if ((s = kc_fdk_run(d->ctx, geo, proj, &vg, &tg, &ig)) != KR_OK) goto done;
    if (d->gpu && (s = kc_fdk_run(d->cpu, geo, proj, &vc, &tc, &ic)) != KR_OK) goto done;
    /* short scan: the first views covering 180 degrees + the fan angle + 4 degrees */
    {
        kshort = (int64_t)ceil((180.0 + ig.fan_deg + 4.0) / (360.0 / (double)nviews)) + 1;
        kr_array sub;
        int64_t sd[3] = {nu, nv, kshort};
        if ((s = kr_array_wrap(&sub, KR_F32, 3, sd, proj->data, KR_HOST)) != KR_OK) goto done;
        if ((s = kr_ct_geom_create_views3d(&gshort, KR_CT_CONE_VEC, nu, nv,
                                           kr_ct_geom_views(geo), kshort, &g)) != KR_OK)
            goto done;
        if ((s = kc_fdk_run(d->ctx, gshort, &sub, &vs, &ts, &is)) != KR_OK) goto done;
    }
    /* images: axial, coronal, sagittal of the phantom and the reconstructions */
    const double lo = 0.0, hi = 0.5;
    kc_report_figures_begin(d->report);
    struct {
        const kr_array *a;
        const char *name, *what;
    } rows[3] = {{ref, "fdk_phantom", "phantom (rasterised, 2x2x2 samples per voxel)"},
                 {vg, "fdk_full", "FDK, full scan"},
                 {vs, "fdk_short", "FDK, short scan with Parker weights"}};
    for (int r = 0; r < 3 && s == KR_OK; r++)
        for (int ax = 2; ax >= 0 && s == KR_OK; ax--) {
            static const char *const an[3] = {"sagittal (x = 0)", "coronal (y = 0)",
                                              "axial (z = 0)"};
            char nm[64];
            snprintf(nm, sizeof nm, "%s_%c", rows[r].name, "xyz"[ax]);
            snprintf(caption, sizeof caption, "%s, %s, window %.1f to %.1f /mm", rows[r].what,
                     an[ax], lo, hi);
            if ((s = kc_fdk_plane(rows[r].a, ax, n / 2, &pl)) == KR_OK)
                s = kc_demo_png(d, nm, pl, lo, hi, -1, 0, caption);
            kr_array_destroy(pl);
            pl = NULL;
        }
    kc_report_figures_end(d->report);
    if (s != KR_OK) goto done;
    /* metrics on the axial, coronal and sagittal central planes and the whole volume */
    const char *hdr[] = {"reconstruction", "plane", "NRMSE", "PSNR (dB, range 1)", "SSIM"};
    kc_report_table_begin(d->report, 5, hdr);
    double nrmse_axial = 0;
    for (int r = 1; r < 3 && s == KR_OK; r++)
        for (int ax = 2; ax >= -1 && s == KR_OK; ax--) {
            kr_metrics m;
            if (ax >= 0) {
                kr_array *a = NULL;
                if ((s = kc_fdk_plane(rows[r].a, ax, n / 2, &a)) == KR_OK &&
                    (s = kc_fdk_plane(ref, ax, n / 2, &pr)) == KR_OK)
                    s = kr_metrics_compute(NULL, a, pr, 1.0, &m);
                kr_array_destroy(a);
                kr_array_destroy(pr);
                pr = NULL;
            } else {
                s = kr_metrics_compute(NULL, rows[r].a, ref, 1.0, &m);
            }
            if (s != KR_OK) break;
            if (r == 1 && ax == 2) nrmse_axial = m.nrmse;
            static const char *const pn[4] = {"volume", "sagittal", "coronal", "axial"};
            kc_report_table_rowf(d->report, "%s\t%s\t%.4f\t%.2f\t%.4f", rows[r].what, pn[ax + 1],
                                 m.nrmse, m.psnr, m.ssim);
        }
    kc_report_table_end(d->report);
    if (s != KR_OK) goto done;
    /* timings */
    const double upd = (double)n * (double)n * (double)n * (double)nviews;
    const char *th[] = {"run", "backend", "kernel", "time", "backprojection", "voxel updates/s"};
    kc_report_table_begin(d->report, 6, th);
    kc_report_table_rowf(d->report, "full scan\t%s\t%s\t%s\t%s\t%.3g",
                         kr_backend_name(kr_ctx_backend(d->ctx)), ig.kernel,
                         kc_fmt_seconds(tg, b1, sizeof b1),
                         ig.t_backproject_s > 0 ? kc_fmt_seconds(ig.t_backproject_s, b2, sizeof b2)
                                                : "-",
                         upd / (ig.t_backproject_s > 0 ? ig.t_backproject_s : tg));
    if (vc)
        kc_report_table_rowf(d->report, "full scan\t%s\t%s\t%s\t%s\t%.3g",
                             kr_backend_name(kr_ctx_backend(d->cpu)), ic.kernel,
                             kc_fmt_seconds(tc, b1, sizeof b1),
                             kc_fmt_seconds(ic.t_backproject_s, b2, sizeof b2),
                             upd / ic.t_backproject_s);
    kc_report_table_rowf(d->report, "short scan (%.1f degrees)\t%s\t%s\t%s\t-\t-", is.arc_deg,
                         kr_backend_name(kr_ctx_backend(d->ctx)), is.kernel,
                         kc_fmt_seconds(ts, b1, sizeof b1));
    kc_report_table_end(d->report);
    if (vc) {
        double r = 0, e = 0;
        const float *x = vg->data, *y = vc->data;
        for (int64_t i = 0; i < kr_array_numel(vg); i++) {
            e = fmax(e, fabs((double)x[i] - (double)y[i]));
            r = fmax(r, fabs((double)y[i]));
        }
        kc_report_para(d->report, "GPU and CPU reconstructions differ by at most %.3g (%.2g of "
                       "the largest value).", e, e / r);
    }
    kc_report_para(d->report,
                   "The short scan uses the first %lld views (%.1f degrees, fan angle %.1f "
                   "degrees) with Parker weights. Remaining differences from the phantom are the "
                   "blur of the band-limited filter and bilinear interpolation at the phantom's "
                   "sharp edges and, away from the mid-plane, the cone-beam approximation of "
                   "FDK.",
                   (long long)kshort, is.arc_deg, is.fan_deg);
    kc_demo_say(d, "FDK %lld^3 from %lld exact views on %s: %s, NRMSE (axial) %.3f", (long long)n,
                (long long)nviews, kr_backend_name(kr_ctx_backend(d->ctx)),
                kc_fmt_seconds(tg, b1, sizeof b1), nrmse_axial);
done:
    kr_ct_geom_destroy(geo);
    kr_ct_geom_destroy(gshort);
    kr_array_destroy(proj);
    kr_array_destroy(ref);
    kr_array_destroy(vg);
    kr_array_destroy(vc);
    kr_array_destroy(vs);
    return s;
}

const kc_demo_section kc_demo_fdk = {"fdk", "Cone-beam CT: FDK", kc_run_fdk};
