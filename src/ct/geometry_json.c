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

static kr_status kri_parse_image(kri_json *root, const char *what, kr_ct_grid *grid)
{
    kri_json *im;
    KRI_TRY(kri_json_take(root, "image", 1, what, "", &im));
    if (im->type != KRI_JSON_OBJECT) return kri_json_type_error(im, what, "", "image", "an object");
    memset(grid, 0, sizeof *grid);
    kri_json *sz;
    KRI_TRY(kri_json_take(im, "size", 1, what, "image", &sz));
    if (sz->type != KRI_JSON_ARRAY || sz->n != 2)
        return kri_json_type_error(sz, what, "image", "size", "an array of 2 integers");
    for (int d = 0; d < 2; d++) {
        const kri_json *e = sz->items[d];
        if (e->type != KRI_JSON_NUMBER || e->num != floor(e->num) || e->num < 1 ||
            e->num > (double)KRI_CT_MAX_N)
            return kri_fail(KR_ERR_FORMAT,
                            "%s: field 'image.size' at line %d, column %d must hold 2 integers "
                            "in 1..%lld",
                            what, sz->line, sz->col, (long long)KRI_CT_MAX_N);
        grid->n[d] = (int64_t)e->num;
    }
    grid->n[2] = 1;
    KRI_TRY(kri_take_vec(im, "voxel_mm", 1, what, "image", 2, 1, grid->voxel_mm, NULL));
    KRI_TRY(kri_take_vec(im, "offset_mm", 0, what, "image", 2, 0, grid->offset_mm, NULL));
    grid->voxel_mm[2] = 1;
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
        return kri_json_type_error(a, what, "", "angles_deg",
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
    int par = kr_ct_type_is_parallel(type);
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
        st = kri_take_vec(o, par ? "ray" : "src", 1, what, path, 2, 0, par ? v[i].ray : v[i].src,
                          NULL);
        if (st == KR_OK) st = kri_take_vec(o, "det", 1, what, path, 2, 0, v[i].det, NULL);
        if (st == KR_OK) st = kri_take_vec(o, "u", 1, what, path, 2, 0, v[i].u, NULL);
        if (st == KR_OK)
            st = kri_json_check_unused(o, what, path, par ? "ray, det, u" : "src, det, u");
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
                        "\"parallel2d\", \"fan2d-flat\" or \"fan2d-equiangular\"",
                        what, t->line, t->col, tname);
    }
    int64_t det_count;
    KRI_TRY(kri_json_take_int(root, "det_count", 1, what, "", 1, KRI_CT_MAX_N, &det_count, NULL));
    kr_ct_grid grid;
    KRI_TRY(kri_parse_image(root, what, &grid));
    kr_status st;

    if (kri_json_get(root, "views")) {
        for (size_t i = 0; i < sizeof kri_scan_fields / sizeof *kri_scan_fields; i++) {
            const kri_json *f = kri_json_get(root, kri_scan_fields[i]);
            if (f)
                return kri_fail(KR_ERR_FORMAT,
                                "%s: field '%s' at line %d, column %d cannot be combined with "
                                "'views' (give either the physical description or the views)",
                                what, kri_scan_fields[i], f->line, f->col);
        }
        kr_ct_view *views;
        int64_t nv = 0;
        KRI_TRY(kri_parse_views(root, what, type, &views, &nv));
        st = kri_json_check_unused(root, what, "", "version, type, det_count, image, views");
        if (st == KR_OK) st = kr_ct_geom_create_views(out, type, det_count, views, nv, &grid);
        kri_free(views);
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
        if (st == KR_OK && fan) st = kri_json_take_num(root, "sod_mm", 1, what, "", &scan.sod_mm, NULL);
        if (st == KR_OK && fan) st = kri_json_take_num(root, "sdd_mm", 1, what, "", &scan.sdd_mm, NULL);
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
    if (st != KR_OK && st != KR_ERR_FORMAT && st != KR_ERR_OOM_HOST)
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
    kri_jw_key(&w, "type");
    kri_jw_string(&w, kr_ct_type_name(g->type));
    kri_jw_key(&w, "det_count");
    kri_jw_int(&w, g->det_count);
    kri_jw_key(&w, "image");
    kri_jw_begin_object(&w, 1);
    kri_jw_key(&w, "size");
    kri_jw_begin_array(&w, 1);
    kri_jw_int(&w, g->grid.n[0]);
    kri_jw_int(&w, g->grid.n[1]);
    kri_jw_end_array(&w);
    kri_jw_vec(&w, "voxel_mm", g->grid.voxel_mm, 2);
    kri_jw_vec(&w, "offset_mm", g->grid.offset_mm, 2);
    kri_jw_end_object(&w);
    int par = kr_ct_type_is_parallel(g->type);
    if (g->has_scan && !explicit_views) {
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
        kri_jw_key(&w, "det_spacing_mm");
        kri_jw_number(&w, s->det_spacing_mm);
        kri_jw_key(&w, "det_offset_mm");
        kri_jw_number(&w, s->det_offset_mm);
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
            kri_jw_vec(&w, par ? "ray" : "src", par ? v->ray : v->src, 2);
            kri_jw_vec(&w, "det", v->det, 2);
            kri_jw_vec(&w, "u", v->u, 2);
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
        if (!needed) st = kri_fail(KR_ERR_INVALID_ARG, "kr_ct_geom_to_json: buf and needed are NULL");
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
