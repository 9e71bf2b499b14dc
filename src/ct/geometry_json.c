/* CT geometry <-> JSON (schema in kray/ct.h). */
#include "ct_internal.h"
#include "io/io_internal.h"
#include "json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define KRI_GEOM_VERSION 1
#define KRI_GEOM_MAX_BYTES ((size_t)1 << 30)

/* A fixed-length array of numbers (or a single number when `scalar_ok`, broadcast). */
static kr_status kri_take_vec(kri_json *obj, const char *key, int required, const char *what,
                              const char *path, int n, int scalar_ok, double *out, int *present)
{
    kri_json *v;
    if (present) *present = 0;
    KRI_TRY(kri_json_take(obj, key, required, what, path, &v));
    if (!v) return KR_OK;
    char want[64];
    snprintf(want, sizeof want, "%san array of %d numbers", scalar_ok ? "a number or " : "", n);
    if (scalar_ok && v->type == KRI_JSON_NUMBER) {
        for (int i = 0; i < n; i++) out[i] = v->num;
    } else {
        if (v->type != KRI_JSON_ARRAY || v->n != (size_t)n)
            return kri_json_type_error(v, what, path, key, want);
        for (int i = 0; i < n; i++) {
            if (v->items[i]->type != KRI_JSON_NUMBER)
                return kri_json_type_error(v, what, path, key, want);
            out[i] = v->items[i]->num;
        }
    }
    if (present) *present = 1;
    return KR_OK;
}

static kr_status kri_parse_image(kri_json *root, const char *what, kr_ct_grid *grid, int nd)
{
    kri_json *im;
    KRI_TRY(kri_json_take(root, "image", 1, what, "", &im));
    if (im->type != KRI_JSON_OBJECT) return kri_json_type_error(im, what, "", "image", "an object");
    memset(grid, 0, sizeof *grid);
    kri_json *sz;
    KRI_TRY(kri_json_take(im, "size", 1, what, "image", &sz));
    if (sz->type != KRI_JSON_ARRAY || sz->n != (size_t)nd)
        return kri_json_type_error(sz, what, "image", "size",
                                   nd == 2 ? "an array of 2 integers" : "an array of 3 integers");
    for (int d = 0; d < nd; d++) {
        const kri_json *e = sz->items[d];
        if (e->type != KRI_JSON_NUMBER || e->num != floor(e->num) || e->num < 1 ||
            e->num > (double)KRI_CT_MAX_N)
            return kri_fail(KR_ERR_FORMAT,
                            "%s: field 'image.size' at line %d, column %d must hold %d integers "
                            "in 1..%lld",
                            what, sz->line, sz->col, nd, (long long)KRI_CT_MAX_N);
        grid->n[d] = (int64_t)e->num;
    }
    if (nd == 2) grid->n[2] = 1;
    KRI_TRY(kri_take_vec(im, "voxel_mm", 1, what, "image", nd, 1, grid->voxel_mm, NULL));
    KRI_TRY(kri_take_vec(im, "offset_mm", 0, what, "image", nd, 0, grid->offset_mm, NULL));
    if (nd == 2) grid->voxel_mm[2] = 1;
    return kri_json_check_unused(im, what, "image", "size, voxel_mm, offset_mm");
}

static kr_status kri_parse_angles(kri_json *root, const char *what, kr_ct_scan *scan,
                                  double **list)
{
    kri_json *a;
    *list = NULL;
    KRI_TRY(kri_json_take(root, "angles_deg", 1, what, "", &a));
    if (a->type == KRI_JSON_OBJECT) {
        KRI_TRY(kri_json_take_num(a, "start", 1, what, "angles_deg", &scan->start_deg, NULL));
        KRI_TRY(kri_json_take_num(a, "stop", 1, what, "angles_deg", &scan->stop_deg, NULL));
        KRI_TRY(kri_json_take_int(a, "count", 1, what, "angles_deg", 1, KRI_CT_MAX_VIEWS,
                                  &scan->nviews, NULL));
        scan->angles_deg = NULL;
        return kri_json_check_unused(a, what, "angles_deg", "start, stop, count");
    }
    if (a->type != KRI_JSON_ARRAY || a->n < 1)
        return kri_json_type_error(
            a, what, "", "angles_deg",
            "a non-empty array of numbers or an object {start, stop, count}");
    if (a->n > (size_t)KRI_CT_MAX_VIEWS)
        return kri_fail(KR_ERR_FORMAT, "%s: field 'angles_deg' has %zu angles (at most %lld)",
                        what, a->n, (long long)KRI_CT_MAX_VIEWS);
    double *l = kri_malloc(a->n * sizeof *l);
    if (!l) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for %zu angles", a->n);
    for (size_t i = 0; i < a->n; i++) {
        if (a->items[i]->type != KRI_JSON_NUMBER) {
            kri_free(l);
            return kri_fail(KR_ERR_FORMAT,
                            "%s: field 'angles_deg[%zu]' at line %d, column %d must be a number, "
                            "got %s",
                            what, i, a->items[i]->line, a->items[i]->col,
                            kri_json_type_name(a->items[i]->type));
        }
        l[i] = a->items[i]->num;
    }
    scan->nviews = (int64_t)a->n;
    scan->angles_deg = l;
    *list = l;
    return KR_OK;
}

static kr_status kri_parse_views(kri_json *root, const char *what, kr_ct_type type,
                                 kr_ct_view **out, int64_t *nviews)
{
    kri_json *vs;
    *out = NULL;
    KRI_TRY(kri_json_take(root, "views", 1, what, "", &vs));
    if (vs->type != KRI_JSON_ARRAY || vs->n < 1)
        return kri_json_type_error(vs, what, "", "views", "a non-empty array of view objects");
    if (vs->n > (size_t)KRI_CT_MAX_VIEWS)
        return kri_fail(KR_ERR_FORMAT, "%s: field 'views' has %zu views (at most %lld)", what,
                        vs->n, (long long)KRI_CT_MAX_VIEWS);
    kr_ct_view *v = kri_calloc(vs->n, sizeof *v);
    if (!v) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for %zu views", vs->n);
    int par = kr_ct_type_is_parallel(type), nd = kr_ct_type_ndim(type);
    kr_status st = KR_OK;
    for (size_t i = 0; i < vs->n && st == KR_OK; i++) {
        char path[48];
        snprintf(path, sizeof path, "views[%zu]", i);
        kri_json *o = vs->items[i];
        if (o->type != KRI_JSON_OBJECT) {
            st = kri_fail(KR_ERR_FORMAT,
                          "%s: field '%s' at line %d, column %d must be an object, got %s", what,
                          path, o->line, o->col, kri_json_type_name(o->type));
            break;
        }
        st = kri_take_vec(o, par ? "ray" : "src", 1, what, path, nd, 0,
                          par ? v[i].ray : v[i].src, NULL);
        if (st == KR_OK) st = kri_take_vec(o, "det", 1, what, path, nd, 0, v[i].det, NULL);
        if (st == KR_OK) st = kri_take_vec(o, "u", 1, what, path, nd, 0, v[i].u, NULL);
        if (st == KR_OK && nd == 3) st = kri_take_vec(o, "v", 1, what, path, 3, 0, v[i].v, NULL);
        if (st == KR_OK)
            st = kri_json_check_unused(o, what, path,
                                       nd == 3 ? "src, det, u, v"
                                       : par   ? "ray, det, u"
                                               : "src, det, u");
    }
    if (st != KR_OK) {
        kri_free(v);
        return st;
    }
    *out = v;
    *nviews = (int64_t)vs->n;
    return KR_OK;
}

static const char *const kri_scan_fields[] = {"angles_deg",    "det_spacing_mm", "det_offset_mm",
                                              "cor_offset_mm", "sod_mm",         "sdd_mm"};

/* KR_ERR_FORMAT when root has one of the scan fields: "field 'X' at line L, column C <why>". */
static kr_status kri_refuse_scan_fields(const kri_json *root, const char *what, const char *why)
{
    for (size_t i = 0; i < sizeof kri_scan_fields / sizeof *kri_scan_fields; i++) {
        const kri_json *f = kri_json_get(root, kri_scan_fields[i]);
        if (f)
            return kri_fail(KR_ERR_FORMAT, "%s: field '%s' at line %d, column %d %s", what,
                            kri_scan_fields[i], f->line, f->col, why);
    }
    return KR_OK;
}

/* A geometry given as 'views' (no scan fields: `why` says why not): 2-D types, or cone-vec with
 * det_rows. */
static kr_status kri_geom_from_views(kr_ct_geom **out, kri_json *root, const char *what,
                                     kr_ct_type type, int64_t det_count, int64_t det_rows,
                                     const kr_ct_grid *grid, const char *why)
{
    KRI_TRY(kri_refuse_scan_fields(root, what, why));
    const int cone = type == KR_CT_CONE_VEC;
    kr_ct_view *views;
    int64_t nv = 0;
    KRI_TRY(kri_parse_views(root, what, type, &views, &nv));
    kr_status st = kri_json_check_unused(root, what, "",
                                         cone ? "version, type, det_count, det_rows, image, views"
                                              : "version, type, det_count, image, views");
    if (st == KR_OK)
        st = cone ? kr_ct_geom_create_views3d(out, type, det_count, det_rows, views, nv, grid)
                  : kr_ct_geom_create_views(out, type, det_count, views, nv, grid);
    kri_free(views);
    return st;
}

/* The cone types: "cone" (physical description) or "cone-vec" (views). */
static kr_status kri_cone_from_json(kr_ct_geom **out, kri_json *root, const char *what,
                                    kr_ct_type type, int64_t det_count, int64_t det_rows,
                                    const kr_ct_grid *grid)
{
    kr_status st;
    if (type == KR_CT_CONE_VEC)
        return kri_geom_from_views(out, root, what, type, det_count, det_rows, grid,
                                   "does not apply to type cone-vec (its geometry is the "
                                   "'views'; use type \"cone\" for a circular scan)");
    const kri_json *fv = kri_json_get(root, "views");
    if (fv)
        return kri_fail(KR_ERR_FORMAT,
                        "%s: field 'views' at line %d, column %d does not apply to type cone "
                        "(per-view cone-beam geometries have type \"cone-vec\")",
                        what, fv->line, fv->col);
    kr_ct_scan scan;
    kr_ct_scan_default(&scan);
    scan.type = type;
    scan.det_count = det_count;
    scan.det_rows = det_rows;
    double *list = NULL, pitch[2] = {0, 0}, off[2] = {0, 0};
    KRI_TRY(kri_parse_angles(root, what, &scan, &list));
    st = kri_take_vec(root, "det_spacing_mm", 1, what, "", 2, 1, pitch, NULL);
    if (st == KR_OK) st = kri_take_vec(root, "det_offset_mm", 0, what, "", 2, 0, off, NULL);
    if (st == KR_OK)
        st = kri_json_take_num(root, "cor_offset_mm", 0, what, "", &scan.cor_offset_mm, NULL);
    if (st == KR_OK) st = kri_json_take_num(root, "sod_mm", 1, what, "", &scan.sod_mm, NULL);
    if (st == KR_OK) st = kri_json_take_num(root, "sdd_mm", 1, what, "", &scan.sdd_mm, NULL);
    if (st == KR_OK)
        st = kri_json_check_unused(root, what, "",
                                   "version, type, det_count, det_rows, image, angles_deg, "
                                   "det_spacing_mm, det_offset_mm, cor_offset_mm, sod_mm, sdd_mm");
    if (st == KR_OK) {
        scan.det_spacing_mm = pitch[0];
        scan.det_spacing_v_mm = pitch[1];
        scan.det_offset_mm = off[0];
        scan.det_offset_v_mm = off[1];
        if (!(pitch[1] > 0)) /* 0 would silently mean "square"; refuse it in files */
            st = kri_fail(KR_ERR_GEOMETRY, "det_spacing_mm along v is %g (must be > 0)",
                          pitch[1]);
    }
    if (st == KR_OK) st = kr_ct_geom_create(out, &scan, grid);
    kri_free(list);
    return st;
}

static kr_status kri_geom_from_json(kr_ct_geom **out, kri_json *root, const char *what)
{
    if (root->type != KRI_JSON_OBJECT)
        return kri_fail(KR_ERR_FORMAT, "%s: a CT geometry must be a JSON object, got %s", what,
                        kri_json_type_name(root->type));
    int64_t version = KRI_GEOM_VERSION;
    KRI_TRY(kri_json_take_int(root, "version", 0, what, "", 1, KRI_GEOM_VERSION, &version, NULL));
    const char *tname;
    KRI_TRY(kri_json_take_str(root, "type", 1, what, "", &tname));
    kr_ct_type type;
    if (kr_ct_type_from_name(tname, &type) != KR_OK) {
        const kri_json *t = kri_json_get(root, "type");
        return kri_fail(KR_ERR_FORMAT,
                        "%s: field 'type' at line %d, column %d is \"%s\"; expected "
                        "\"parallel2d\", \"fan2d-flat\", \"fan2d-equiangular\", \"cone\" or "
                        "\"cone-vec\"",
                        what, t->line, t->col, tname);
    }
    const int nd = kr_ct_type_ndim(type);
    int64_t det_count, det_rows = 1;
    KRI_TRY(kri_json_take_int(root, "det_count", 1, what, "", 1, KRI_CT_MAX_N, &det_count, NULL));
    if (nd == 3) {
        KRI_TRY(kri_json_take_int(root, "det_rows", 1, what, "", 1, KRI_CT_MAX_N, &det_rows,
                                  NULL));
    } else if (kri_json_get(root, "det_rows")) {
        const kri_json *f = kri_json_get(root, "det_rows");
        return kri_fail(KR_ERR_FORMAT,
                        "%s: field 'det_rows' at line %d, column %d does not apply to type %s",
                        what, f->line, f->col, tname);
    }
    kr_ct_grid grid;
    KRI_TRY(kri_parse_image(root, what, &grid, nd));
    kr_status st;
    if (nd == 3) {
        st = kri_cone_from_json(out, root, what, type, det_count, det_rows, &grid);
        if (st != KR_OK && st != KR_ERR_FORMAT)
            kri_fail_prefix(st, "%s", what);
        return st;
    }

    if (kri_json_get(root, "views")) {
        st = kri_geom_from_views(out, root, what, type, det_count, 1, &grid,
                                 "cannot be combined with 'views' (give either the physical "
                                 "description or the views)");
    } else {
        kr_ct_scan scan;
        kr_ct_scan_default(&scan);
        scan.type = type;
        scan.det_count = det_count;
        int fan = !kr_ct_type_is_parallel(type);
        if (!fan) {
            const char *const nf[] = {"sod_mm", "sdd_mm"};
            for (int i = 0; i < 2; i++) {
                const kri_json *f = kri_json_get(root, nf[i]);
                if (f)
                    return kri_fail(KR_ERR_FORMAT,
                                    "%s: field '%s' at line %d, column %d does not apply to type "
                                    "parallel2d",
                                    what, nf[i], f->line, f->col);
            }
        }
        double *list = NULL;
        KRI_TRY(kri_parse_angles(root, what, &scan, &list));
        st = kri_json_take_num(root, "det_spacing_mm", 1, what, "", &scan.det_spacing_mm, NULL);
        if (st == KR_OK)
            st = kri_json_take_num(root, "det_offset_mm", 0, what, "", &scan.det_offset_mm, NULL);
        if (st == KR_OK)
            st = kri_json_take_num(root, "cor_offset_mm", 0, what, "", &scan.cor_offset_mm, NULL);
        if (st == KR_OK && fan)
            st = kri_json_take_num(root, "sod_mm", 1, what, "", &scan.sod_mm, NULL);
        if (st == KR_OK && fan)
            st = kri_json_take_num(root, "sdd_mm", 1, what, "", &scan.sdd_mm, NULL);
        if (st == KR_OK)
            st = kri_json_check_unused(root, what, "",
                                       fan ? "version, type, det_count, image, angles_deg, "
                                             "det_spacing_mm, det_offset_mm, cor_offset_mm, "
                                             "sod_mm, sdd_mm, views"
                                           : "version, type, det_count, image, angles_deg, "
                                             "det_spacing_mm, det_offset_mm, cor_offset_mm, views");
        if (st == KR_OK) st = kr_ct_geom_create(out, &scan, &grid);
        kri_free(list);
    }
    if (st != KR_OK && st != KR_ERR_FORMAT)
        kri_fail_prefix(st, "%s", what);
    return st;
}

kr_status kr_ct_geom_parse_json(kr_ct_geom **g, const char *text, size_t len, const char *name)
{
    KRI_ARG_NOT_NULL(g);
    *g = NULL;
    KRI_ARG_NOT_NULL(text);
    const char *what = name && *name ? name : "geometry JSON";
    kri_json *root;
    KRI_TRY(kri_json_parse(text, len, what, &root));
    kr_status st = kri_geom_from_json(g, root, what);
    kri_json_free(root);
    return st;
}

kr_status kr_ct_geom_read_json(kr_ct_geom **g, const char *path)
{
    KRI_ARG_NOT_NULL(g);
    *g = NULL;
    KRI_ARG_NOT_NULL(path);
    unsigned char *buf;
    size_t len;
    KRI_TRY(kri_read_file(path, &buf, &len, KRI_GEOM_MAX_BYTES));
    if (len == 0) {
        kri_free(buf);
        return kri_fail(KR_ERR_FORMAT, "%s: the geometry file is empty", path);
    }
    kr_status st = kr_ct_geom_parse_json(g, (const char *)buf, len, path);
    kri_free(buf);
    return st;
}

static void kri_jw_vec(kri_jw *w, const char *key, const double *v, int n)
{
    kri_jw_key(w, key);
    kri_jw_begin_array(w, 1);
    for (int i = 0; i < n; i++) kri_jw_number(w, v[i]);
    kri_jw_end_array(w);
}

static kr_status kri_geom_json_text(const kr_ct_geom *g, int explicit_views, char **text,
                                    size_t *len)
{
    kri_jw w;
    kri_jw_init(&w);
    kri_jw_begin_object(&w, 0);
    kri_jw_key(&w, "version");
    kri_jw_int(&w, KRI_GEOM_VERSION);
    const int nd = kr_ct_type_ndim(g->type);
    const int physical = g->has_scan && !explicit_views;
    kri_jw_key(&w, "type");
    kri_jw_string(&w, kr_ct_type_name(g->type == KR_CT_CONE && !physical ? KR_CT_CONE_VEC
                                                                         : g->type));
    kri_jw_key(&w, "det_count");
    kri_jw_int(&w, g->det_count);
    if (nd == 3) {
        kri_jw_key(&w, "det_rows");
        kri_jw_int(&w, g->det_rows);
    }
    kri_jw_key(&w, "image");
    kri_jw_begin_object(&w, 1);
    kri_jw_key(&w, "size");
    kri_jw_begin_array(&w, 1);
    for (int d = 0; d < nd; d++) kri_jw_int(&w, g->grid.n[d]);
    kri_jw_end_array(&w);
    kri_jw_vec(&w, "voxel_mm", g->grid.voxel_mm, nd);
    kri_jw_vec(&w, "offset_mm", g->grid.offset_mm, nd);
    kri_jw_end_object(&w);
    int par = kr_ct_type_is_parallel(g->type);
    if (physical) {
        const kr_ct_scan *s = &g->scan;
        kri_jw_key(&w, "angles_deg");
        if (g->uniform) {
            kri_jw_begin_object(&w, 1);
            kri_jw_key(&w, "start");
            kri_jw_number(&w, s->start_deg);
            kri_jw_key(&w, "stop");
            kri_jw_number(&w, s->stop_deg);
            kri_jw_key(&w, "count");
            kri_jw_int(&w, s->nviews);
            kri_jw_end_object(&w);
        } else {
            kri_jw_begin_array(&w, 1);
            for (int64_t i = 0; i < g->nviews; i++) kri_jw_number(&w, g->angles[i]);
            kri_jw_end_array(&w);
        }
        if (nd == 3) {
            const double pitch[2] = {s->det_spacing_mm, s->det_spacing_v_mm};
            const double off[2] = {s->det_offset_mm, s->det_offset_v_mm};
            kri_jw_vec(&w, "det_spacing_mm", pitch, 2);
            kri_jw_vec(&w, "det_offset_mm", off, 2);
        } else {
            kri_jw_key(&w, "det_spacing_mm");
            kri_jw_number(&w, s->det_spacing_mm);
            kri_jw_key(&w, "det_offset_mm");
            kri_jw_number(&w, s->det_offset_mm);
        }
        kri_jw_key(&w, "cor_offset_mm");
        kri_jw_number(&w, s->cor_offset_mm);
        if (!par) {
            kri_jw_key(&w, "sod_mm");
            kri_jw_number(&w, s->sod_mm);
            kri_jw_key(&w, "sdd_mm");
            kri_jw_number(&w, s->sdd_mm);
        }
    } else {
        kri_jw_key(&w, "views");
        kri_jw_begin_array(&w, 0);
        for (int64_t i = 0; i < g->nviews; i++) {
            const kr_ct_view *v = &g->views[i];
            kri_jw_begin_object(&w, 1);
            kri_jw_vec(&w, par ? "ray" : "src", par ? v->ray : v->src, nd);
            kri_jw_vec(&w, "det", v->det, nd);
            kri_jw_vec(&w, "u", v->u, nd);
            if (nd == 3) kri_jw_vec(&w, "v", v->v, 3);
            kri_jw_end_object(&w);
        }
        kri_jw_end_array(&w);
    }
    kri_jw_end_object(&w);
    return kri_jw_finish(&w, text, len);
}

kr_status kr_ct_geom_to_json(const kr_ct_geom *g, int explicit_views, char *buf, size_t cap,
                             size_t *needed)
{
    KRI_ARG_NOT_NULL(g);
    char *text;
    size_t len;
    KRI_TRY(kri_geom_json_text(g, explicit_views, &text, &len));
    if (needed) *needed = len;
    kr_status st = KR_OK;
    if (buf == NULL && cap == 0) {
        if (!needed)
            st = kri_fail(KR_ERR_INVALID_ARG, "kr_ct_geom_to_json: buf and needed are NULL");
    } else if (!buf) {
        st = kri_fail(KR_ERR_INVALID_ARG, "kr_ct_geom_to_json: buf is NULL but cap is %zu", cap);
    } else if (cap < len + 1) {
        st = kri_fail(KR_ERR_INVALID_ARG,
                      "kr_ct_geom_to_json: buffer of %zu bytes is too small, the text needs %zu",
                      cap, len + 1);
    } else {
        memcpy(buf, text, len + 1);
    }
    kri_free(text);
    return st;
}

kr_status kr_ct_geom_write_json(const kr_ct_geom *g, const char *path, int explicit_views)
{
    KRI_ARG_NOT_NULL(g);
    KRI_ARG_NOT_NULL(path);
    char *text;
    size_t len;
    KRI_TRY(kri_geom_json_text(g, explicit_views, &text, &len));
    kri_wfile w;
    kr_status st = kri_wfile_open(&w, path);
    if (st == KR_OK) {
        kri_wfile_write(&w, text, len);
        st = kri_wfile_commit(&w);
    }
    kri_free(text);
    return st;
}
