/* kray command line: helpers of the cone-beam tools (see cone_common.h). */
#include "cone_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "S:E" or "S:E:N" (N = 0 when absent). */
static int kc_parse_angles(const char *s, double *a, double *b, int64_t *n)
{
    const char *c1 = strchr(s, ':');
    if (!c1) return -1;
    const char *c2 = strchr(c1 + 1, ':');
    if (c2) {
        if (kr_ct_angles_parse(s, a, b, n) != KR_OK) return -1;
        return 0;
    }
    char tmp[160];
    snprintf(tmp, sizeof tmp, "%s:1", s);
    int64_t one;
    if (strlen(s) > 150 || kr_ct_angles_parse(tmp, a, b, &one) != KR_OK) return -1;
    if (*a == *b) return -1;
    *n = 0;
    return 0;
}

int kc_cone_geometry(const char *tool, const kc_cone *a, const kr_array *proj,
                     const kr_array *vol, const kr_meta *vmeta, kr_ct_geom **g)
{
    *g = NULL;
    kr_status s;
    const int scan_opts = a->g_sod || a->g_sdd || a->g_det || a->g_pitch || a->g_doff ||
                          a->g_cor || a->g_angles || a->short_scan || a->g_vol || a->g_voxel ||
                          a->g_voff;
    if (a->geom) {
        if (scan_opts)
            return kc_usage(tool, "give either --geom or the scan options (--sod, --sdd, --det, "
                                  "--angles, --size, ...), not both");
        if ((s = kr_ct_geom_read_json(g, a->geom)) != KR_OK) return kc_fail(tool, s);
        if (!kr_ct_type_is_cone(kr_ct_geom_type(*g)) && !a->plane) {
            int rc = kc_usage(tool, "'%s' is a %s geometry; this tool needs a cone or cone-vec one",
                              a->geom, kr_ct_type_name(kr_ct_geom_type(*g)));
            kr_ct_geom_destroy(*g);
            *g = NULL;
            return rc;
        }
    } else {
        if (!a->g_sod || !a->g_sdd)
            return kc_usage(tool, "give the geometry: --geom FILE, or a circular scan with --sod "
                                  "and --sdd (and --det, --angles, --size, --voxel)");
        kr_ct_scan sc;
        kr_ct_scan_default(&sc);
        sc.type = KR_CT_CONE;
        sc.sod_mm = a->sod;
        sc.sdd_mm = a->sdd;
        sc.cor_offset_mm = a->cor;
        if (a->det.n == 2) {
            sc.det_count = a->det.d[0];
            sc.det_rows = a->det.d[1];
        } else if (a->det.n != 0) {
            return kc_usage(tool, "--det takes UxV (columns x rows), got %d sizes", a->det.n);
        } else if (proj && proj->ndim >= 2) {
            sc.det_count = proj->dims[0];
            sc.det_rows = proj->dims[1];
        } else {
            return kc_usage(tool, "give the detector size with --det UxV");
        }
        if (a->pitch.n < 1 || a->pitch.n > 2)
            return kc_usage(tool, "--pitch takes one or two values (u, v), got %d", a->pitch.n);
        sc.det_spacing_mm = a->pitch.v[0];
        sc.det_spacing_v_mm = a->pitch.n == 2 ? a->pitch.v[1] : a->pitch.v[0];
        if (a->det_offset.n != 2)
            return kc_usage(tool, "--det-offset takes two values U,V (mm), got %d",
                            a->det_offset.n);
        sc.det_offset_mm = a->det_offset.v[0];
        sc.det_offset_v_mm = a->det_offset.v[1];
        int64_t n = 0;
        if (kc_parse_angles(a->angles, &sc.start_deg, &sc.stop_deg, &n) != 0)
            return kc_usage(tool,
                            "--angles must be START:STOP or START:STOP:COUNT in degrees (e.g. "
                            "0:360:180), got '%s'",
                            a->angles);
        if (n == 0) {
            if (!proj)
                return kc_usage(tool, "give the number of views: --angles START:STOP:COUNT");
            n = proj->ndim >= 3 ? proj->dims[2] : 1;
        }
        sc.nviews = n;
        if (a->short_scan) {
            double arc;
            if ((s = kr_ct_scan_short_arc_deg(&sc, &arc)) != KR_OK) return kc_fail_usage(tool, s);
            sc.stop_deg = sc.start_deg + arc;
        }
        kr_ct_grid grid;
        memset(&grid, 0, sizeof grid);
        if (a->vol.n == 1) {
            grid.n[0] = grid.n[1] = grid.n[2] = a->vol.d[0];
        } else if (a->vol.n == 3) {
            for (int d = 0; d < 3; d++) grid.n[d] = a->vol.d[d];
        } else if (a->vol.n != 0) {
            return kc_usage(tool, "--size takes N or NxMxK, got %d sizes", a->vol.n);
        } else if (vol) {
            for (int d = 0; d < 3; d++) grid.n[d] = d < vol->ndim ? vol->dims[d] : 1;
        } else {
            return kc_usage(tool, "give the volume size with --size N or --size NxMxK");
        }
        if (a->voxel.n == 1 || a->voxel.n == 3) {
            for (int d = 0; d < 3; d++) grid.voxel_mm[d] = a->voxel.v[a->voxel.n == 3 ? d : 0];
        } else if (a->voxel.n != 0) {
            return kc_usage(tool, "--voxel takes one or three sizes (mm), got %d", a->voxel.n);
        } else if (vmeta && vmeta->spacing[0] > 0 && vmeta->spacing[1] > 0 &&
                   vmeta->spacing[2] > 0) {
            for (int d = 0; d < 3; d++) grid.voxel_mm[d] = vmeta->spacing[d];
        } else {
            for (int d = 0; d < 3; d++)
                grid.voxel_mm[d] = a->pitch.v[0] * a->sod / a->sdd; /* pitch at the axis */
        }
        if (a->vol_offset.n != 3)
            return kc_usage(tool, "--vol-offset takes three values X,Y,Z (mm), got %d",
                            a->vol_offset.n);
        for (int d = 0; d < 3; d++) grid.offset_mm[d] = a->vol_offset.v[d];
        if ((s = kr_ct_geom_create(g, &sc, &grid)) != KR_OK) return kc_fail_usage(tool, s);
    }
    if (a->write_geom && (s = kr_ct_geom_write_json(*g, a->write_geom, 0)) != KR_OK) {
        kr_ct_geom_destroy(*g);
        *g = NULL;
        return kc_fail(tool, s);
    }
    return 0;
}

void kc_cone_popts(const kc_cone *a, kr_dtype t, kr_ct_projector_opts *o)
{
    kr_ct_projector_opts_default(o);
    o->method = a->method == 1 ? KR_CT_SIDDON : KR_CT_JOSEPH;
    o->dtype = t;
    o->ray_factor = a->rays;
}

int kc_cone_read(const char *tool, const char *path, kr_dtype t, int is_volume, kr_array **out,
                 kr_meta *meta)
{
    *out = NULL;
    int r = kc_check_input(tool, path);
    if (r) return r;
    kr_array *a = NULL;
    kr_meta m;
    memset(&m, 0, sizeof m);
    kr_status s = kc_read(path, &a, &m, is_volume ? kc_image_io() : NULL);
    if (s != KR_OK) return kc_fail(tool, s);
    if (kr_dtype_is_complex(a->dtype)) {
        kr_array_destroy(a);
        fprintf(stderr, "kray %s: '%s' holds complex values; CT data must be real\n", tool, path);
        return KC_EXIT_INPUT;
    }
    if (a->dtype != t) {
        kr_array *b = NULL;
        s = kr_array_astype(&b, a, t);
        kr_array_destroy(a);
        if (s != KR_OK) return kc_fail(tool, s);
        a = b;
    }
    if (meta) *meta = m;
    *out = a;
    return 0;
}

int kc_cone_write(const char *tool, const char *path, const kr_array *a, const kr_ct_geom *g,
                  int is_volume, int slice)
{
    kr_io_opts io;
    kr_io_opts_default(&io);
    io.axes = is_volume ? KR_IO_AXES_IMAGE : KR_IO_AXES_STORED;
    kr_meta meta;
    memset(&meta, 0, sizeof meta);
    if (is_volume) {
        const kr_ct_grid *gr = kr_ct_geom_grid(g);
        for (int d = 0; d < 3; d++) {
            meta.spacing[d] = gr->voxel_mm[d];
            meta.origin[d] = gr->offset_mm[d] - 0.5 * (double)(gr->n[d] - 1) * gr->voxel_mm[d];
        }
        snprintf(meta.description, sizeof meta.description, "kray %s volume [x, y, z]", tool);
    } else {
        kr_ct_scan sc;
        const kr_ct_view *v = kr_ct_geom_views(g);
        meta.spacing[0] = kr_ct_geom_scan(g, &sc) == KR_OK
                              ? sc.det_spacing_mm
                              : sqrt(v->u[0] * v->u[0] + v->u[1] * v->u[1] + v->u[2] * v->u[2]);
        meta.spacing[1] = kr_ct_geom_scan(g, &sc) == KR_OK
                              ? sc.det_spacing_v_mm
                              : sqrt(v->v[0] * v->v[0] + v->v[1] * v->v[1] + v->v[2] * v->v[2]);
        meta.spacing[2] = 1;
        snprintf(meta.description, sizeof meta.description, "kray %s projections [u, v, view]",
                 tool);
    }
    io.meta = &meta;
    io.slice = slice;
    kr_status s = kc_write(path, a, &io);
    return s == KR_OK ? 0 : kc_fail(tool, s);
}

int kc_cone_to_ctx(const char *tool, const kr_ctx *ctx, kr_array *a, kr_array **out, int *owned)
{
    *owned = 0;
    *out = a;
    if (kr_ctx_backend(ctx) != KR_BACKEND_CUDA) return 0;
    kr_status s = kr_array_clone(out, a, KR_DEVICE, ctx);
    if (s != KR_OK) return kc_fail(tool, s);
    *owned = 1;
    return 0;
}

/* ---- kray sirt / kray cgls ------------------------------------------------------------------ */
int kc_iterative(const char *tool, const kc_common *c, const kc_cone *a, const kc_iter *it,
                        const char *in, const char *out)
{
    int r;
    if ((r = kc_check_output(tool, out)) != 0) return r;
    kr_dtype t = kc_precision_dtype(c);
    kr_array *proj = NULL, *vol = NULL, *dp = NULL, *dv = NULL;
    kr_meta imeta;
    memset(&imeta, 0, sizeof imeta);
    kr_ct_geom *g = NULL;
    kr_ctx *ctx = NULL;
    kr_linop *A = NULL, *B = NULL;
    kr_sirt_plan *sp = NULL;
    double *hist = NULL;
    int own_v = 0, own_p = 0;
    kr_status s;
    if (it->voxel_bp && t != KR_F32)
        return kc_usage(tool, "--backprojector voxel runs in f32; drop --precision f64");
    if ((r = kc_cone_read(tool, in, t, 0, &proj, NULL)) != 0) goto done;
    if (it->init && (r = kc_cone_read(tool, it->init, t, 1, &vol, &imeta)) != 0) goto done;
    if ((r = kc_cone_geometry(tool, a, proj, vol, it->init ? &imeta : NULL, &g)) != 0) goto done;
    if ((s = kr_ct_check_projections(g, proj, NULL)) != KR_OK) {
        r = kc_fail(tool, s);
        goto done;
    }
    int64_t vd[3];
    kr_ct_geom_image_dims(g, vd);
    if (vol) {
        kr_array want;
        if (kr_array_wrap(&want, t, 3, vd, vol->data, KR_HOST) != KR_OK ||
            !kr_array_same_shape(&want, vol)) {
            char h[64];
            r = kc_usage(tool, "--init '%s' is %s, the geometry's volume is %lldx%lldx%lld",
                         it->init, kr_dims_string(vol->ndim, vol->dims, h, sizeof h),
                         (long long)vd[0], (long long)vd[1], (long long)vd[2]);
            goto done;
        }
    } else if ((s = kr_array_create(&vol, t, 3, vd, KR_HOST, NULL)) != KR_OK) {
        r = kc_fail(tool, s);
        goto done;
    }
    if ((r = kc_make_dist_ctx(tool, c, &ctx)) != 0) goto done;
    kr_ct_projector_opts o;
    kc_cone_popts(a, t, &o);
    if ((s = kr_ct_linop_create(&A, ctx, g, &o)) != KR_OK ||
        (it->voxel_bp && (s = kr_ct_voxel_bp_linop_create(&B, ctx, g, it->gpu_mem)) != KR_OK)) {
        r = kc_fail(tool, s);
        goto done;
    }
    if ((r = kc_cone_to_ctx(tool, ctx, proj, &dp, &own_p)) != 0) goto done;
    if ((r = kc_cone_to_ctx(tool, ctx, vol, &dv, &own_v)) != 0) goto done;
    hist = calloc((size_t)it->iters + 1, sizeof *hist);
    if (!hist) {
        r = kc_fail(tool, KR_ERR_OOM_HOST);
        goto done;
    }
    kr_solve_info info;
    double t0 = kr_time_now();
    if (it->cgls) {
        kr_solve_opts so;
        kr_solve_opts_default(&so);
        so.max_iter = it->iters;
        so.tol = it->tol;
        so.lambda = it->lambda;
        so.warm_start = it->init != NULL;
        so.history = hist;
        so.show_progress = !c->quiet;
        s = kr_cgls(ctx, A, dp, dv, &so, &info);
    } else {
        kr_sirt_opts so;
        kr_sirt_opts_default(&so);
        so.max_iter = it->iters;
        so.tol = it->tol;
        so.relax = it->relax;
        so.nonneg = it->nonneg;
        so.warm_start = it->init != NULL;
        so.history = hist;
        so.show_progress = !c->quiet;
        s = kr_sirt_plan_create_pair(&sp, ctx, A, B);
        if (s == KR_OK) s = kr_sirt_execute(sp, dp, dv, &so, &info);
    }
    if (s == KR_OK && own_v) s = kr_array_copy(vol, dv, ctx);
    if (s != KR_OK) {
        r = kc_fail(tool, s);
        goto done;
    }
    double t1 = kr_time_now();
    if ((r = kc_cone_write(tool, out, vol, g, 1, -1)) != 0) goto done;
    if (c->verbose) { /* the iterations were logged as they ran (-v) */
        char tb[32];
        kc_note(tool, "%d iterations, relative residual %.4g (%s), %s on %s", info.iterations,
                info.rel_residual, it->cgls ? "||A^T r|| / ||A^T y||" : "||y - A x|| / ||y||",
                kc_fmt_seconds(t1 - t0, tb, sizeof tb), kr_backend_name(kr_ctx_backend(ctx)));
    }
done:
    free(hist);
    kr_sirt_plan_destroy(sp);
    if (own_v) kr_array_destroy(dv);
    if (own_p) kr_array_destroy(dp);
    kr_linop_destroy(A);
    kr_linop_destroy(B);
    kr_array_destroy(proj);
    kr_array_destroy(vol);
    kr_ct_geom_destroy(g);
    kr_ctx_destroy(ctx);
    return r;
}


int kc_cone_finish(const char *tool, const kc_common *c, const char *path, const kr_array *a,
                   const kr_ct_geom *g, int is_volume, int index, double t0, const kr_ctx *ctx)
{
    double t1 = kr_time_now();
    int r = kc_cone_write(tool, path, a, g, is_volume, index);
    if (r == 0 && c->verbose) {
        char d[64], tb[32];
        kc_note(tool, "wrote %s (%s) in %s on %s", path, kr_dims_string(a->ndim, a->dims, d, sizeof d),
                kc_fmt_seconds(t1 - t0, tb, sizeof tb), kr_backend_name(kr_ctx_backend(ctx)));
    }
    return r;
}
