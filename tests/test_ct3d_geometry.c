/* Cone-beam geometry: the circular builder against hand-computed view vectors, validation
 * sentences, the field-of-view check, the short-scan arc, JSON round trips and bad JSON. */
#include "internal.h"
#include "kray/ct.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>

#define V3(a, x, y, z, tol)                                                                    \
    do {                                                                                       \
        KT_NEAR((a)[0], x, tol);                                                               \
        KT_NEAR((a)[1], y, tol);                                                               \
        KT_NEAR((a)[2], z, tol);                                                               \
    } while (0)

static void scan_cone(kr_ct_scan *s)
{
    kr_ct_scan_default(s);
    s->type = KR_CT_CONE;
    s->nviews = 4; /* 0, 90, 180, 270 */
    s->start_deg = 0;
    s->stop_deg = 360;
    s->det_count = 20;
    s->det_rows = 10;
    s->det_spacing_mm = 0.5;
    s->det_spacing_v_mm = 0.75;
    s->det_offset_mm = 1.5;
    s->det_offset_v_mm = -2;
    s->cor_offset_mm = 0.25;
    s->sod_mm = 100;
    s->sdd_mm = 150;
}

#define GEOM_FAIL(scanp, gridp, status, frag)                                                  \
    do {                                                                                       \
        kr_ct_geom *gf_ = (kr_ct_geom *)1;                                                     \
        KT_STATUS(kr_ct_geom_create(&gf_, scanp, gridp), status);                              \
        KT_CHECK(gf_ == NULL);                                                                 \
        KT_CHECK_MSG(strstr(kr_last_error(), frag) != NULL, "'%s' lacks '%s'",                \
                     kr_last_error(), frag);                                                   \
    } while (0)

#define VIEWS_FAIL(viewsp, n, frag)                                                            \
    do {                                                                                       \
        kr_ct_geom *gf_ = (kr_ct_geom *)1;                                                     \
        KT_STATUS(kr_ct_geom_create_views3d(&gf_, KR_CT_CONE_VEC, 8, 6, viewsp, n, &g),        \
                  KR_ERR_GEOMETRY);                                                            \
        KT_CHECK(gf_ == NULL);                                                                 \
        KT_CHECK_MSG(strstr(kr_last_error(), frag) != NULL, "'%s' lacks '%s'",                \
                     kr_last_error(), frag);                                                   \
    } while (0)

static void test_cone_views(void)
{
    kr_ct_scan s;
    scan_cone(&s);
    kr_ct_grid g;
    kr_ct_grid_3d(&g, 16, 12, 8, 0.75);
    g.voxel_mm[2] = 1.25;
    g.offset_mm[2] = 3;
    kr_ct_geom *geo = NULL;
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    KT_CHECK(kr_ct_geom_type(geo) == KR_CT_CONE && kr_ct_geom_nviews(geo) == 4 &&
             kr_ct_geom_det_count(geo) == 20 && kr_ct_geom_det_rows(geo) == 10);
    const kr_ct_view *v = kr_ct_geom_views(geo);
    /* theta = 0: e_u = +x, e_d = +y */
    V3(v[0].src, -0.25, -100, 0, 0);
    V3(v[0].det, 1.25, 50, -2, 0);
    V3(v[0].u, 0.5, 0, 0, 0);
    V3(v[0].v, 0, 0, 0.75, 0);
    V3(v[0].ray, 0, 0, 0, 0);
    /* theta = 90: e_u = +y, e_d = -x (exact at multiples of 90 degrees) */
    V3(v[1].src, 100, -0.25, 0, 0);
    V3(v[1].det, -50, 1.25, -2, 0);
    V3(v[1].u, 0, 0.5, 0, 0);
    /* theta = 270 */
    V3(v[3].src, -100, 0.25, 0, 0);
    V3(v[3].det, 50, -1.25, -2, 0);
    V3(v[3].u, 0, -0.5, 0, 0);
    int64_t d[3];
    KT_CHECK(kr_ct_geom_sino_dims(geo, d) == 3 && d[0] == 20 && d[1] == 10 && d[2] == 4);
    KT_CHECK(kr_ct_geom_image_dims(geo, d) == 3 && d[0] == 16 && d[1] == 12 && d[2] == 8);
    kr_ct_scan back;
    KT_OK(kr_ct_geom_scan(geo, &back));
    KT_CHECK(back.det_rows == 10 && back.det_spacing_v_mm == 0.75 && back.det_offset_v_mm == -2);
    kr_ct_geom *c = NULL;
    KT_OK(kr_ct_geom_clone(&c, geo));
    KT_CHECK(kr_ct_geom_det_rows(c) == 10 && kr_ct_geom_type(c) == KR_CT_CONE);
    KT_CHECK(memcmp(kr_ct_geom_views(c), v, 4 * sizeof *v) == 0);
    kr_ct_geom_destroy(c);
    kr_ct_geom_destroy(geo);

    /* square pixels by default; 45 degrees: rotation of the 0-degree vectors */
    s.det_spacing_v_mm = 0;
    s.nviews = 1;
    s.start_deg = 45;
    s.stop_deg = 46;
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    v = kr_ct_geom_views(geo);
    double r = sqrt(0.5);
    V3(v[0].v, 0, 0, 0.5, 0);
    V3(v[0].src, -0.25 * r + 100 * r, -0.25 * r - 100 * r, 0, 1e-12);
    V3(v[0].u, 0.5 * r, 0.5 * r, 0, 1e-15);
    KT_OK(kr_ct_geom_scan(geo, &back));
    KT_CHECK(back.det_spacing_v_mm == 0.5);
    kr_ct_geom_destroy(geo);

    /* 2-D geometries have one detector row and 2-D dims */
    kr_ct_scan_default(&s);
    s.det_count = 8;
    kr_ct_grid_2d(&g, 8, 8, 1);
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    KT_CHECK(kr_ct_geom_det_rows(geo) == 1 && kr_ct_geom_sino_dims(geo, d) == 2);
    KT_CHECK(kr_ct_type_ndim(KR_CT_CONE) == 3 && kr_ct_type_ndim(KR_CT_CONE_VEC) == 3);
    KT_CHECK(kr_ct_type_is_cone(KR_CT_CONE_VEC) && !kr_ct_type_is_cone(KR_CT_FAN2D_FLAT));
    kr_ct_type t;
    KT_OK(kr_ct_type_from_name("cone-vec", &t));
    KT_CHECK(t == KR_CT_CONE_VEC && strcmp(kr_ct_type_name(KR_CT_CONE), "cone") == 0);
    int64_t nt = -1;
    KT_STATUS(kr_ct_geom_check_fov(geo, NULL, &nt), KR_ERR_NOT_SUPPORTED);
    KT_CHECK(nt == 0);
    kr_ct_geom_destroy(geo);
}

static void test_cone_validation(void)
{
    kr_ct_scan s;
    kr_ct_grid g;
    kr_ct_grid_3d(&g, 16, 16, 8, 1);
    scan_cone(&s);
    s.det_rows = 0;
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "det_rows is 0");
    scan_cone(&s);
    s.det_spacing_v_mm = -1;
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "det_spacing_v_mm is -1");
    scan_cone(&s);
    s.det_offset_v_mm = NAN;
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "det_offset_v_mm");
    scan_cone(&s);
    s.sdd_mm = 100;
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "sdd_mm (source-detector distance) is 100");
    scan_cone(&s);
    s.type = KR_CT_CONE_VEC;
    GEOM_FAIL(&s, &g, KR_ERR_INVALID_ARG, "kr_ct_geom_create_views3d");
    s.type = KR_CT_CONE;
    /* the volume must lie in front of the source: corners at 8 + 1 voxel, 12.7 mm from the axis */
    scan_cone(&s);
    s.sod_mm = 8.5;
    s.sdd_mm = 30;
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "lies inside the volume or within one voxel");
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY,
              "source-origin distance 8.5 mm must exceed the distance from the axis to the "
              "volume's corners plus one voxel, 12.7279 mm");
    s.sod_mm = 7.5; /* inside the volume box itself */
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "view 0 (angle 0 deg): the source at (-0.25, -7.5, 0)");
    /* 2-D scans must leave the cone fields alone */
    kr_ct_scan_default(&s);
    s.det_count = 8;
    s.det_rows = 4;
    kr_ct_grid g2;
    kr_ct_grid_2d(&g2, 8, 8, 1);
    GEOM_FAIL(&s, &g2, KR_ERR_GEOMETRY, "apply to cone beams only");
    s.det_rows = 1; /* one row is fine */
    kr_ct_geom *geo = NULL;
    KT_OK(kr_ct_geom_create(&geo, &s, &g2));
    kr_ct_geom_destroy(geo);
    /* a 3-D grid must have valid z entries */
    scan_cone(&s);
    kr_ct_grid bad = g;
    bad.voxel_mm[2] = 0;
    GEOM_FAIL(&s, &bad, KR_ERR_GEOMETRY, "voxel size along z is 0");
    bad = g;
    bad.n[2] = 0;
    GEOM_FAIL(&s, &bad, KR_ERR_GEOMETRY, "image size along z is 0");

    /* explicit views */
    kr_ct_view v[2];
    memset(v, 0, sizeof v);
    v[0].src[1] = -100;
    v[0].det[1] = 50;
    v[0].u[0] = 1;
    v[0].v[2] = 1;
    v[1] = v[0];
    KT_OK(kr_ct_geom_create_views3d(&geo, KR_CT_CONE_VEC, 8, 6, v, 2, &g));
    KT_CHECK(kr_ct_geom_type(geo) == KR_CT_CONE_VEC && kr_ct_geom_det_rows(geo) == 6);
    kr_ct_scan back;
    KT_STATUS(kr_ct_geom_scan(geo, &back), KR_ERR_NOT_SUPPORTED);
    kr_ct_geom_destroy(geo);
    KT_STATUS(kr_ct_geom_create_views3d(&geo, KR_CT_CONE, 8, 6, v, 2, &g), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "is cone-vec") != NULL);
    KT_STATUS(kr_ct_geom_create_views(&geo, KR_CT_CONE_VEC, 8, v, 2, &g), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "kr_ct_geom_create_views3d") != NULL);
    KT_STATUS(kr_ct_geom_create_views3d(&geo, KR_CT_CONE_VEC, 8, 0, v, 2, &g), KR_ERR_GEOMETRY);
    KT_CHECK(strstr(kr_last_error(), "det_rows is 0") != NULL);
    KT_STATUS(kr_ct_geom_create_views3d(NULL, KR_CT_CONE_VEC, 8, 6, v, 2, &g), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ct_geom_create_views3d(&geo, KR_CT_CONE_VEC, 8, 6, NULL, 2, &g),
              KR_ERR_INVALID_ARG);
    v[1].u[0] = 0;
    VIEWS_FAIL(v, 2, "view 1: the detector pixel vector u is zero");
    v[1] = v[0];
    v[1].v[2] = 0;
    VIEWS_FAIL(v, 2, "view 1: the detector pixel vector v is zero");
    v[1] = v[0];
    v[1].v[0] = 2;
    v[1].v[2] = 0;
    VIEWS_FAIL(v, 2, "u and v are parallel");
    v[1] = v[0];
    v[1].det[1] = -100;
    VIEWS_FAIL(v, 2, "coincides with the source (degenerate source-detector distance 0)");
    v[1] = v[0];
    v[1].det[1] = -100;
    v[1].det[0] = 30; /* detector plane (normal y) through the source */
    VIEWS_FAIL(v, 2, "the source lies in the detector plane (degenerate source-detector");
    v[1] = v[0];
    v[1].ray[1] = 1;
    VIEWS_FAIL(v, 2, "ray must be zero");
    v[1] = v[0];
    v[1].v[1] = NAN;
    VIEWS_FAIL(v, 2, "non-finite");
    v[1] = v[0];
    v[1].src[1] = 100; /* detector and source on the same side: volume behind the source */
    v[1].det[1] = 200;
    VIEWS_FAIL(v, 2, "view 1: the source at (0, 100, 0) mm lies inside the volume");
}

static void test_fov_and_arc(void)
{
    kr_ct_scan s;
    kr_ct_scan_default(&s);
    s.type = KR_CT_CONE;
    s.nviews = 6;
    s.start_deg = 0;
    s.stop_deg = 360;
    s.det_count = 40;
    s.det_rows = 40;
    s.det_spacing_mm = 0.5;
    s.sod_mm = 100;
    s.sdd_mm = 150;
    kr_ct_grid g;
    kr_ct_grid_3d(&g, 4, 4, 4, 1); /* corners' shadows within 3.1 mm of 10 mm */
    kr_ct_geom *geo = NULL;
    int64_t nt = -1;
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    KT_OK(kr_ct_geom_check_fov(geo, NULL, &nt));
    KT_CHECK(nt == 0);
    kr_ct_geom_destroy(geo);
    kr_ct_grid_3d(&g, 16, 16, 16, 1); /* corner (8, 8) at depth -8: 8 * 150/92 = 13 mm > 10 */
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    kr_ctx *quiet = NULL;
    KT_OK(kr_ctx_create(&quiet, KR_BACKEND_CPU));
    KT_OK(kr_ctx_set_log_level(quiet, KR_LOG_ERROR));
    KT_OK(kr_ct_geom_check_fov(geo, quiet, &nt));
    KT_CHECK(nt == 6);
    KT_OK(kr_ct_geom_check_fov(geo, quiet, NULL));
    KT_STATUS(kr_ct_geom_check_fov(NULL, quiet, &nt), KR_ERR_INVALID_ARG);
    kr_ctx_destroy(quiet);
    kr_ct_geom_destroy(geo);
    /* a tall thin volume: inside along u, outside along v only in the rows */
    kr_ct_grid_3d(&g, 4, 4, 40, 1);
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    KT_OK(kr_ct_geom_check_fov(geo, NULL, &nt));
    KT_CHECK(nt == 6);
    kr_ct_geom_destroy(geo);

    double arc = 0;
    s.det_offset_mm = 2;
    KT_OK(kr_ct_scan_short_arc_deg(&s, &arc));
    KT_NEAR(arc, 180 + 2 * atan(12.0 / 150) * 180 / 3.14159265358979323846, 1e-12);
    s.type = KR_CT_FAN2D_EQUIANGULAR;
    KT_OK(kr_ct_scan_short_arc_deg(&s, &arc));
    KT_NEAR(arc, 180 + 2 * (12.0 / 150) * 180 / 3.14159265358979323846, 1e-12);
    s.type = KR_CT_PARALLEL2D;
    KT_STATUS(kr_ct_scan_short_arc_deg(&s, &arc), KR_ERR_INVALID_ARG);
    s.type = KR_CT_CONE;
    s.sdd_mm = 0;
    KT_STATUS(kr_ct_scan_short_arc_deg(&s, &arc), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ct_scan_short_arc_deg(NULL, &arc), KR_ERR_INVALID_ARG);
}

static void round_trip(const kr_ct_geom *geo, int explicit_views, kr_ct_type want)
{
    size_t need = 0;
    KT_OK(kr_ct_geom_to_json(geo, explicit_views, NULL, 0, &need));
    char *text = malloc(need + 1);
    KT_OK(kr_ct_geom_to_json(geo, explicit_views, text, need + 1, NULL));
    kr_ct_geom *back = NULL;
    KT_OK(kr_ct_geom_parse_json(&back, text, need, "mem"));
    if (back) {
        KT_CHECK(kr_ct_geom_type(back) == want);
        KT_CHECK(kr_ct_geom_nviews(back) == kr_ct_geom_nviews(geo));
        KT_CHECK(kr_ct_geom_det_count(back) == kr_ct_geom_det_count(geo));
        KT_CHECK(kr_ct_geom_det_rows(back) == kr_ct_geom_det_rows(geo));
        KT_CHECK(memcmp(kr_ct_geom_grid(back), kr_ct_geom_grid(geo), sizeof(kr_ct_grid)) == 0);
        KT_CHECK(memcmp(kr_ct_geom_views(back), kr_ct_geom_views(geo),
                        (size_t)kr_ct_geom_nviews(geo) * sizeof(kr_ct_view)) == 0);
    }
    const char *path = kt_tmp("cone_geom.json");
    KT_OK(kr_ct_geom_write_json(geo, path, explicit_views));
    kr_ct_geom *file = NULL;
    KT_OK(kr_ct_geom_read_json(&file, path));
    if (file)
        KT_CHECK(memcmp(kr_ct_geom_views(file), kr_ct_geom_views(geo),
                        (size_t)kr_ct_geom_nviews(geo) * sizeof(kr_ct_view)) == 0);
    kr_ct_geom_destroy(file);
    kr_ct_geom_destroy(back);
    free(text);
}

static void test_json_round_trip(void)
{
    kr_ct_scan s;
    scan_cone(&s);
    s.nviews = 7;
    s.start_deg = 12.345;
    s.stop_deg = 12.345 + 180 + 2 * 3.8; /* short scan */
    kr_ct_grid g;
    kr_ct_grid_3d(&g, 16, 12, 8, 0.7);
    g.voxel_mm[1] = 0.9;
    g.voxel_mm[2] = 1.1;
    g.offset_mm[0] = -0.3;
    g.offset_mm[2] = 2.5;
    kr_ct_geom *geo = NULL;
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    round_trip(geo, 0, KR_CT_CONE);
    round_trip(geo, 1, KR_CT_CONE_VEC);
    kr_ct_scan back;
    size_t need = 0;
    KT_OK(kr_ct_geom_to_json(geo, 0, NULL, 0, &need));
    char *text = malloc(need + 1);
    KT_OK(kr_ct_geom_to_json(geo, 0, text, need + 1, NULL));
    KT_CHECK(strstr(text, "\"det_spacing_mm\": [0.5, 0.75]") != NULL);
    KT_CHECK(strstr(text, "\"det_offset_mm\": [1.5, -2]") != NULL);
    KT_CHECK(strstr(text, "\"det_rows\": 10") != NULL);
    kr_ct_geom *b2 = NULL;
    KT_OK(kr_ct_geom_parse_json(&b2, text, need, "mem"));
    KT_OK(kr_ct_geom_scan(b2, &back));
    KT_CHECK(back.start_deg == s.start_deg && back.stop_deg == s.stop_deg && back.nviews == 7);
    kr_ct_geom_destroy(b2);
    free(text);
    kr_ct_geom_destroy(geo);
    /* non-uniform angles */
    double ang[3] = {0, 33.3, 271};
    scan_cone(&s);
    s.nviews = 3;
    s.angles_deg = ang;
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    round_trip(geo, 0, KR_CT_CONE);
    kr_ct_geom_destroy(geo);
    /* a tilted, rotated detector given as views */
    kr_ct_view v[2];
    memset(v, 0, sizeof v);
    v[0] =
        (kr_ct_view){{-3, -120, 4}, {0, 0, 0}, {5, 80, -2}, {0.9, 0.1, 0.05}, {0.02, -0.05, 0.8}};
    v[1] = (kr_ct_view){{110, 7, -9}, {0, 0, 0}, {-70, 3, 6}, {0.1, 0.95, 0}, {0, 0.1, 1.1}};
    KT_OK(kr_ct_geom_create_views3d(&geo, KR_CT_CONE_VEC, 24, 18, v, 2, &g));
    round_trip(geo, 0, KR_CT_CONE_VEC);
    round_trip(geo, 1, KR_CT_CONE_VEC);
    kr_ct_geom_destroy(geo);
}

static void test_json_schema(void)
{
    const char *good =
        "{\"type\": \"cone-vec\", \"det_count\": 4, \"det_rows\": 3,\n"
        " \"image\": {\"size\": [4, 4, 2], \"voxel_mm\": [1, 1, 2], \"offset_mm\": [0, 0, 1]},\n"
        " \"views\": [{\"src\": [0, -50, 1], \"det\": [0, 50, 1], \"u\": [1, 0, 0],"
        " \"v\": [0, 0, 1]}]}";
    kr_ct_geom *geo = NULL;
    KT_OK(kr_ct_geom_parse_json(&geo, good, strlen(good), "g.json"));
    KT_CHECK(kr_ct_geom_nviews(geo) == 1 && kr_ct_geom_grid(geo)->voxel_mm[2] == 2 &&
             kr_ct_geom_grid(geo)->offset_mm[2] == 1 && kr_ct_geom_det_rows(geo) == 3);
    kr_ct_geom_destroy(geo);
    const char *cone =
        "{\"type\": \"cone\", \"det_count\": 8, \"det_rows\": 6, \"version\": 1,\n"
        " \"image\": {\"size\": [4, 4, 4], \"voxel_mm\": 1},\n"
        " \"angles_deg\": {\"start\": 0, \"stop\": 360, \"count\": 4}, \"det_spacing_mm\": 0.5,\n"
        " \"sod_mm\": 50, \"sdd_mm\": 80, \"det_offset_mm\": [0.25, -1]}";
    KT_OK(kr_ct_geom_parse_json(&geo, cone, strlen(cone), "g.json"));
    kr_ct_scan s;
    KT_OK(kr_ct_geom_scan(geo, &s));
    KT_CHECK(s.det_spacing_v_mm == 0.5 && s.det_offset_v_mm == -1 && s.det_offset_mm == 0.25);
    kr_ct_geom_destroy(geo);

#define IMG3 "\"image\": {\"size\": [4, 4, 4], \"voxel_mm\": 1}"
#define CONE_HEAD "{\"type\": \"cone\", \"det_count\": 8, \"det_rows\": 6, " IMG3 ", "
#define CONE_REST "\"angles_deg\": [0], \"det_spacing_mm\": 1, \"sod_mm\": 50, \"sdd_mm\": 80"
#define VIEW3 "{\"src\": [0, -50, 0], \"det\": [0, 50, 0], \"u\": [1, 0, 0], \"v\": [0, 0, 1]}"
    struct {
        const char *text;
        kr_status st;
        const char *frag;
    } bad[] = {
        {"{\"type\": \"cone\", \"det_count\": 8, " IMG3 ", " CONE_REST "}", KR_ERR_FORMAT,
         "missing field 'det_rows'"},
        {CONE_HEAD "\"angles_deg\": [0], \"det_spacing_mm\": 1, \"sod_mm\": 50}", KR_ERR_FORMAT,
         "missing field 'sdd_mm'"},
        {"{\"type\": \"parallel2d\", \"det_count\": 16, \"det_rows\": 2, \"image\": {\"size\": "
         "[8, 8], \"voxel_mm\": 1}, \"angles_deg\": [0], \"det_spacing_mm\": 1}",
         KR_ERR_FORMAT, "field 'det_rows' at line 1, column 53 does not apply to type parallel2d"},
        {"{\"type\": \"cone\", \"det_count\": 8, \"det_rows\": 6, \"image\": {\"size\": [4, 4], "
         "\"voxel_mm\": 1}, " CONE_REST "}",
         KR_ERR_FORMAT, "field 'image.size' at line 1, column 67 must be an array of 3 integers"},
        {CONE_HEAD CONE_REST ", \"views\": [" VIEW3 "]}", KR_ERR_FORMAT,
         "does not apply to type cone (per-view cone-beam geometries have type \"cone-vec\")"},
        {"{\"type\": \"cone-vec\", \"det_count\": 8, \"det_rows\": 6, " IMG3 ", \"sod_mm\": 5, "
         "\"views\": [" VIEW3 "]}",
         KR_ERR_FORMAT, "field 'sod_mm' at line 1, column 108 does not apply to type cone-vec"},
        {"{\"type\": \"cone-vec\", \"det_count\": 8, \"det_rows\": 6, " IMG3 "}", KR_ERR_FORMAT,
         "missing field 'views'"},
        {"{\"type\": \"cone-vec\", \"det_count\": 8, \"det_rows\": 6, " IMG3 ", \"views\": "
         "[{\"src\": [0, -50, 0], \"det\": [0, 50, 0], \"u\": [1, 0, 0]}]}",
         KR_ERR_FORMAT, "missing field 'views[0].v'"},
        {"{\"type\": \"cone-vec\", \"det_count\": 8, \"det_rows\": 6, " IMG3 ", \"views\": "
         "[{\"src\": [0, -50], \"det\": [0, 50, 0], \"u\": [1, 0, 0], \"v\": [0, 0, 1]}]}",
         KR_ERR_FORMAT, "field 'views[0].src' at line 1, column 116 must be an array of 3 numbers"},
        {"{\"type\": \"cone-vec\", \"det_count\": 8, \"det_rows\": 6, " IMG3 ", \"views\": "
         "[{\"src\": [0, -50, 0], \"det\": [0, 50, 0], \"u\": [1, 0, 0], \"v\": [0, 0, 1], "
         "\"ray\": [0, 1, 0]}]}",
         KR_ERR_FORMAT, "unknown field 'views[0].ray'"},
        {CONE_HEAD CONE_REST ", \"det_offset_mm\": 1}", KR_ERR_FORMAT,
         "field 'det_offset_mm' at line 1, column 179 must be an array of 2 numbers"},
        {CONE_HEAD CONE_REST ", \"det_spacing_v_mm\": 1}", KR_ERR_FORMAT,
         "unknown field 'det_spacing_v_mm'"},
        {CONE_HEAD "\"angles_deg\": [0], \"det_spacing_mm\": [1, 0], \"sod_mm\": 50, "
                   "\"sdd_mm\": 80}",
         KR_ERR_GEOMETRY, "g.json: det_spacing_mm along v is 0"},
        {CONE_HEAD "\"angles_deg\": [0], \"det_spacing_mm\": 1, \"sod_mm\": 2, \"sdd_mm\": 80}",
         KR_ERR_GEOMETRY, "g.json: view 0 (angle 0 deg): the source at (0, -2, 0) mm"},
        {"{\"type\": \"cone-vec\", \"det_count\": 8, \"det_rows\": 6, " IMG3 ", \"views\": "
         "[{\"src\": [0, -50, 0], \"det\": [0, -50, 0], \"u\": [1, 0, 0], \"v\": [0, 0, 1]}]}",
         KR_ERR_GEOMETRY, "g.json: view 0: the detector centre coincides with the source"},
        {"{\"type\": \"cone\", \"det_count\": 8, \"det_rows\": 0, " IMG3 ", " CONE_REST "}",
         KR_ERR_FORMAT, "'det_rows'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        kr_ct_geom *b = (kr_ct_geom *)1;
        kr_status st = kr_ct_geom_parse_json(&b, bad[i].text, strlen(bad[i].text), "g.json");
        KT_CHECK_MSG(st == bad[i].st, "case %zu: status %s (%s)", i, kr_status_string(st),
                     kr_last_error());
        KT_CHECK(b == NULL);
        KT_CHECK_MSG(strstr(kr_last_error(), bad[i].frag) != NULL, "case %zu: '%s' lacks '%s'",
                     i, kr_last_error(), bad[i].frag);
    }
}

int main(void)
{
    KT_RUN(test_cone_views);
    KT_RUN(test_cone_validation);
    KT_RUN(test_fov_and_arc);
    KT_RUN(test_json_round_trip);
    KT_RUN(test_json_schema);
    return kt_finish();
}
