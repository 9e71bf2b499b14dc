/* CT geometry: builders (hand-computed view vectors), validation sentences, the angle parser,
 * JSON round trips and bad JSON. */
#include "internal.h"
#include "kray/ct.h"
#include "kt.h"

#include <stdlib.h>
#include <string.h>

#define NEAR3(a, x, y, tol)                                                                    \
    do {                                                                                       \
        KT_NEAR((a)[0], x, tol);                                                               \
        KT_NEAR((a)[1], y, tol);                                                               \
        KT_CHECK((a)[2] == 0);                                                                 \
    } while (0)

static void scan_fan(kr_ct_scan *s, kr_ct_type t)
{
    kr_ct_scan_default(s);
    s->type = t;
    s->nviews = 8;
    s->start_deg = 0;
    s->stop_deg = 360;
    s->det_count = 64;
    s->det_spacing_mm = 2;
    s->sod_mm = 100;
    s->sdd_mm = 150;
}

static void test_parallel_views(void)
{
    kr_ct_scan s;
    kr_ct_scan_default(&s);
    s.nviews = 4; /* 0, 45, 90, 135 */
    s.det_count = 10;
    s.det_spacing_mm = 0.5;
    s.det_offset_mm = 1.5;
    s.cor_offset_mm = 0.25;
    kr_ct_grid g;
    kr_ct_grid_2d(&g, 16, 12, 0.75);
    kr_ct_geom *geo = NULL;
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    KT_CHECK(kr_ct_geom_type(geo) == KR_CT_PARALLEL2D && kr_ct_geom_nviews(geo) == 4 &&
             kr_ct_geom_det_count(geo) == 10);
    const kr_ct_view *v = kr_ct_geom_views(geo);
    /* theta = 0: rays +y, u = +x, detector centre shifted by det_offset - cor_offset along u */
    NEAR3(v[0].ray, 0, 1, 0);
    NEAR3(v[0].u, 0.5, 0, 0);
    NEAR3(v[0].det, 1.25, 0, 0);
    /* theta = 90: rays -x, u = +y (exact at multiples of 90 degrees) */
    NEAR3(v[2].ray, -1, 0, 0);
    NEAR3(v[2].u, 0, 0.5, 0);
    NEAR3(v[2].det, 0, 1.25, 0);
    double r = sqrt(0.5);
    NEAR3(v[1].ray, -r, r, 1e-15);
    NEAR3(v[3].u, -0.5 * r, 0.5 * r, 1e-15);
    int64_t d[2];
    KT_CHECK(kr_ct_geom_sino_dims(geo, d) == 2 && d[0] == 10 && d[1] == 4);
    KT_CHECK(kr_ct_geom_image_dims(geo, d) == 2 && d[0] == 16 && d[1] == 12);
    kr_ct_scan back;
    KT_OK(kr_ct_geom_scan(geo, &back));
    KT_CHECK(back.angles_deg && back.angles_deg[3] == 135 && back.sod_mm == 0);
    const kr_ct_grid *gg = kr_ct_geom_grid(geo);
    KT_CHECK(gg->n[2] == 1 && gg->voxel_mm[1] == 0.75);
    kr_ct_geom_destroy(geo);
    kr_ct_geom_destroy(NULL);
}

static void test_fan_views(void)
{
    kr_ct_scan s;
    scan_fan(&s, KR_CT_FAN2D_FLAT);
    s.det_offset_mm = 3;
    s.cor_offset_mm = 1;
    kr_ct_grid g;
    kr_ct_grid_2d(&g, 64, 64, 1);
    kr_ct_geom *geo = NULL;
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    const kr_ct_view *v = kr_ct_geom_views(geo);
    /* theta = 0: source at (-cor, -sod), detector centre at (doff - cor, sdd - sod) */
    NEAR3(v[0].src, -1, -100, 0);
    NEAR3(v[0].det, 2, 50, 0);
    NEAR3(v[0].u, 2, 0, 0);
    /* theta = 90 (view 2 of 8 over 360): e_u = (0, 1), e_d = (-1, 0) */
    NEAR3(v[2].src, 100, -1, 0);
    NEAR3(v[2].det, -50, 2, 0);
    NEAR3(v[2].u, 0, 2, 0);
    kr_ct_geom_destroy(geo);

    /* equiangular: the arc of radius sdd turned by det_offset / sdd about the source */
    scan_fan(&s, KR_CT_FAN2D_EQUIANGULAR);
    s.det_offset_mm = 15; /* 0.1 rad */
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    v = kr_ct_geom_views(geo);
    NEAR3(v[0].src, 0, -100, 0);
    NEAR3(v[0].det, 150 * sin(0.1), -100 + 150 * cos(0.1), 1e-12);
    NEAR3(v[0].u, 2 * cos(0.1), -2 * sin(0.1), 1e-15);
    kr_ct_geom_destroy(geo);
}

#define GEOM_FAIL(scanp, gridp, status, frag)                                                  \
    do {                                                                                       \
        kr_ct_geom *gf_ = (kr_ct_geom *)1;                                                     \
        KT_STATUS(kr_ct_geom_create(&gf_, scanp, gridp), status);                              \
        KT_CHECK(gf_ == NULL);                                                                 \
        KT_CHECK_MSG(strstr(kr_last_error(), frag) != NULL, "'%s' lacks '%s'",                \
                     kr_last_error(), frag);                                                   \
    } while (0)

static void test_validation(void)
{
    kr_ct_scan s;
    kr_ct_grid g;
    kr_ct_grid_2d(&g, 64, 64, 1);
    kr_ct_geom *geo;
    KT_STATUS(kr_ct_geom_create(NULL, &s, &g), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ct_geom_create(&geo, NULL, &g), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ct_geom_create(&geo, &s, NULL), KR_ERR_INVALID_ARG);

    scan_fan(&s, KR_CT_FAN2D_FLAT);
    s.det_spacing_mm = 0;
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "det_spacing_mm is 0");
    s.det_spacing_mm = -1;
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "det_spacing_mm is -1");
    s.det_spacing_mm = NAN;
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "det_spacing_mm");
    scan_fan(&s, KR_CT_FAN2D_FLAT);
    s.det_count = 0;
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "det_count is 0");
    scan_fan(&s, KR_CT_FAN2D_FLAT);
    s.nviews = 0;
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "number of views is 0");
    scan_fan(&s, KR_CT_FAN2D_FLAT);
    double ang[3] = {0, NAN, 2};
    s.nviews = 3;
    s.angles_deg = ang;
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "angles_deg[1] is nan");
    scan_fan(&s, KR_CT_FAN2D_FLAT);
    s.stop_deg = INFINITY;
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "stop_deg");
    scan_fan(&s, KR_CT_FAN2D_FLAT);
    s.stop_deg = 0;
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "empty arc");
    scan_fan(&s, KR_CT_FAN2D_FLAT);
    s.sod_mm = 0;
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "sod_mm");
    scan_fan(&s, KR_CT_FAN2D_FLAT);
    s.sdd_mm = 90;
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "sdd_mm (source-detector distance) is 90");
    scan_fan(&s, KR_CT_FAN2D_FLAT);
    s.cor_offset_mm = NAN;
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "cor_offset_mm");
    scan_fan(&s, KR_CT_FAN2D_FLAT);
    s.type = (kr_ct_type)42;
    GEOM_FAIL(&s, &g, KR_ERR_INVALID_ARG, "type 42");

    /* source inside the image: sod 40 mm, image 64 mm wide (half-diagonal 45 mm) */
    scan_fan(&s, KR_CT_FAN2D_FLAT);
    s.sod_mm = 40;
    s.sdd_mm = 100;
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "view 1 (angle 45 deg): the source at (28.2843, "
                                       "-28.2843) mm lies inside the image");
    /* ... or closer than one pixel: sod 32.5 is outside the 64 mm square but within a pixel */
    s.sod_mm = 32.5;
    s.nviews = 1;
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "within one pixel");
    s.sod_mm = 33.5; /* just far enough for a single view at 0 degrees */
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    kr_ct_geom_destroy(geo);
    /* ... but at 45 degrees the corner comes within reach */
    s.start_deg = 45;
    s.stop_deg = 46;
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "view 0 (angle 45 deg)");

    /* equiangular fan of 180 degrees or more */
    scan_fan(&s, KR_CT_FAN2D_EQUIANGULAR);
    s.det_spacing_mm = 150 * 3.14159265358979 / 63;
    GEOM_FAIL(&s, &g, KR_ERR_GEOMETRY, "must be under 180");

    /* grids */
    scan_fan(&s, KR_CT_FAN2D_FLAT);
    kr_ct_grid bad = g;
    bad.n[0] = 0;
    GEOM_FAIL(&s, &bad, KR_ERR_GEOMETRY, "image size along x is 0");
    bad = g;
    bad.voxel_mm[1] = -1;
    GEOM_FAIL(&s, &bad, KR_ERR_GEOMETRY, "voxel size along y is -1");
    bad = g;
    bad.offset_mm[0] = NAN;
    GEOM_FAIL(&s, &bad, KR_ERR_GEOMETRY, "offset along x");
    bad = g;
    bad.n[2] = 4;
    GEOM_FAIL(&s, &bad, KR_ERR_GEOMETRY, "one slice");

    /* explicit views */
    kr_ct_view v[2];
    memset(v, 0, sizeof v);
    v[0].ray[1] = 1;
    v[0].u[0] = 1;
    v[1] = v[0];
    KT_OK(kr_ct_geom_create_views(&geo, KR_CT_PARALLEL2D, 8, v, 2, &g));
    KT_STATUS(kr_ct_geom_scan(geo, &s), KR_ERR_NOT_SUPPORTED);
    kr_ct_geom *c = NULL;
    KT_OK(kr_ct_geom_clone(&c, geo));
    KT_CHECK(memcmp(kr_ct_geom_views(c), v, sizeof v) == 0);
    kr_ct_geom_destroy(c);
    kr_ct_geom_destroy(geo);
    v[1].u[0] = 0;
    v[1].u[1] = 2; /* parallel to the ray */
    KT_STATUS(kr_ct_geom_create_views(&geo, KR_CT_PARALLEL2D, 8, v, 2, &g), KR_ERR_GEOMETRY);
    KT_CHECK(strstr(kr_last_error(), "view 1: the detector u vector is parallel") != NULL);
    v[1] = v[0];
    v[1].ray[0] = NAN;
    KT_STATUS(kr_ct_geom_create_views(&geo, KR_CT_PARALLEL2D, 8, v, 2, &g), KR_ERR_GEOMETRY);
    KT_CHECK(strstr(kr_last_error(), "non-finite") != NULL);
    v[1] = v[0];
    v[1].ray[2] = 1;
    KT_STATUS(kr_ct_geom_create_views(&geo, KR_CT_PARALLEL2D, 8, v, 2, &g), KR_ERR_GEOMETRY);
    KT_STATUS(kr_ct_geom_create_views(&geo, KR_CT_PARALLEL2D, 8, NULL, 2, &g), KR_ERR_INVALID_ARG);
    v[1] = v[0];
    v[1].src[0] = 5;
    KT_STATUS(kr_ct_geom_create_views(&geo, KR_CT_PARALLEL2D, 8, v, 2, &g), KR_ERR_GEOMETRY);
    KT_CHECK(strstr(kr_last_error(), "view 1: a parallel-beam view has no source") != NULL);
    /* fan views: detector seen edge-on, source on the detector */
    memset(v, 0, sizeof v);
    v[0].src[1] = -100;
    v[0].det[1] = 100;
    v[0].u[1] = 1;
    KT_STATUS(kr_ct_geom_create_views(&geo, KR_CT_FAN2D_FLAT, 8, v, 1, &g), KR_ERR_GEOMETRY);
    KT_CHECK(strstr(kr_last_error(), "edge-on") != NULL);
    v[0].ray[1] = 1;
    KT_STATUS(kr_ct_geom_create_views(&geo, KR_CT_FAN2D_FLAT, 8, v, 1, &g), KR_ERR_GEOMETRY);
    KT_CHECK(strstr(kr_last_error(), "ray must be zero") != NULL);
    v[0].ray[1] = 0;
    v[0].u[1] = 0;
    v[0].u[0] = 1;
    v[0].det[1] = -100;
    KT_STATUS(kr_ct_geom_create_views(&geo, KR_CT_FAN2D_FLAT, 8, v, 1, &g), KR_ERR_GEOMETRY);
    KT_CHECK(strstr(kr_last_error(), "coincides with the source") != NULL);
    /* a detector facing away from the image puts it behind the source */
    v[0].det[1] = -200;
    KT_STATUS(kr_ct_geom_create_views(&geo, KR_CT_FAN2D_FLAT, 8, v, 1, &g), KR_ERR_GEOMETRY);
    KT_CHECK(strstr(kr_last_error(), "lies inside the image") != NULL);
    v[0].det[1] = 100;
    v[0].u[1] = 0.5; /* equiangular needs u perpendicular to det - src */
    KT_STATUS(kr_ct_geom_create_views(&geo, KR_CT_FAN2D_EQUIANGULAR, 8, v, 1, &g),
              KR_ERR_GEOMETRY);
    KT_CHECK(strstr(kr_last_error(), "perpendicular") != NULL);

    kr_ct_type t;
    KT_OK(kr_ct_type_from_name("fan2d-equiangular", &t));
    KT_CHECK(t == KR_CT_FAN2D_EQUIANGULAR);
    KT_STATUS(kr_ct_type_from_name("helical", &t), KR_ERR_INVALID_ARG);
    KT_CHECK(strcmp(kr_ct_type_name(KR_CT_FAN2D_FLAT), "fan2d-flat") == 0);
    KT_CHECK(strcmp(kr_ct_type_name((kr_ct_type)99), "invalid") == 0);
    KT_CHECK(kr_ct_type_ndim(KR_CT_PARALLEL2D) == 2 && kr_ct_type_ndim((kr_ct_type)0) == 0);
}

static void test_angles_parse(void)
{
    double a, b;
    int64_t n;
    KT_OK(kr_ct_angles_parse("0:180:720", &a, &b, &n));
    KT_CHECK(a == 0 && b == 180 && n == 720);
    KT_STATUS(kr_ct_angles_parse("-90.5:270:1e0", &a, &b, &n), KR_ERR_INVALID_ARG);
    KT_OK(kr_ct_angles_parse("-90.5:270:3", &a, &b, &n));
    KT_CHECK(a == -90.5 && b == 270 && n == 3);
    KT_OK(kr_ct_angles_parse("360:0:4", &a, &b, &n));
    KT_CHECK(a == 360 && b == 0 && n == 4);
    KT_OK(kr_ct_angles_parse("10:10:1", &a, &b, &n));
    const char *bad[] = {"0:180",   "0:180:720:1", "a:180:10", "0:b:10",  "0:180:0",
                         "0:180:-5", "0:180:",     "0:0:10",   "0:inf:10", ":180:10",
                         "0:180:7x", "0:180: 7",   "1e999:0:3", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        KT_STATUS(kr_ct_angles_parse(bad[i], &a, &b, &n), KR_ERR_INVALID_ARG);
        KT_CHECK(strstr(kr_last_error(), "angles '") != NULL);
    }
    KT_STATUS(kr_ct_angles_parse(NULL, &a, &b, &n), KR_ERR_INVALID_ARG);

    /* the parsed range builds the documented angles */
    KT_OK(kr_ct_angles_parse("0:180:720", &a, &b, &n));
    kr_ct_scan s;
    kr_ct_scan_default(&s);
    s.start_deg = a;
    s.stop_deg = b;
    s.nviews = n;
    s.det_count = 4;
    kr_ct_grid g;
    kr_ct_grid_2d(&g, 4, 4, 1);
    kr_ct_geom *geo;
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    KT_OK(kr_ct_geom_scan(geo, &s));
    KT_CHECK(s.angles_deg[1] == 0.25 && s.angles_deg[719] == 179.75);
    kr_ct_geom_destroy(geo);
}

/* geometry -> text -> geometry: views and scan identical bit for bit */
static void round_trip(const kr_ct_geom *geo, int explicit_views)
{
    size_t need = 0;
    KT_OK(kr_ct_geom_to_json(geo, explicit_views, NULL, 0, &need));
    KT_CHECK(need > 0);
    char *txt = malloc(need + 1);
    KT_STATUS(kr_ct_geom_to_json(geo, explicit_views, txt, need, NULL), KR_ERR_INVALID_ARG);
    KT_OK(kr_ct_geom_to_json(geo, explicit_views, txt, need + 1, NULL));
    KT_CHECK(strlen(txt) == need);
    kr_ct_geom *back = NULL;
    KT_OK(kr_ct_geom_parse_json(&back, txt, need, "rt.json"));
    if (back) {
        KT_CHECK(kr_ct_geom_type(back) == kr_ct_geom_type(geo));
        KT_CHECK(kr_ct_geom_nviews(back) == kr_ct_geom_nviews(geo));
        KT_CHECK(kr_ct_geom_det_count(back) == kr_ct_geom_det_count(geo));
        KT_CHECK(memcmp(kr_ct_geom_views(back), kr_ct_geom_views(geo),
                        (size_t)kr_ct_geom_nviews(geo) * sizeof(kr_ct_view)) == 0);
        KT_CHECK(memcmp(kr_ct_geom_grid(back), kr_ct_geom_grid(geo), sizeof(kr_ct_grid)) == 0);
        kr_ct_scan s1, s2;
        kr_status a = kr_ct_geom_scan(geo, &s1), b = kr_ct_geom_scan(back, &s2);
        KT_CHECK(explicit_views ? b == KR_ERR_NOT_SUPPORTED : a == b);
        if (a == KR_OK && b == KR_OK) {
            KT_CHECK(s1.det_spacing_mm == s2.det_spacing_mm && s1.sod_mm == s2.sod_mm &&
                     s1.sdd_mm == s2.sdd_mm && s1.cor_offset_mm == s2.cor_offset_mm &&
                     s1.det_offset_mm == s2.det_offset_mm);
            KT_CHECK(memcmp(s1.angles_deg, s2.angles_deg, (size_t)s1.nviews * sizeof(double)) ==
                     0);
        }
        /* and the text is a fixed point */
        char *txt2 = malloc(need + 1);
        KT_OK(kr_ct_geom_to_json(back, explicit_views, txt2, need + 1, NULL));
        KT_CHECK(strcmp(txt, txt2) == 0);
        free(txt2);
    }
    kr_ct_geom_destroy(back);
    free(txt);
}

static void test_json_round_trip(void)
{
    kr_ct_grid g;
    kr_ct_grid_2d(&g, 40, 30, 0.7);
    g.offset_mm[0] = 1.1;
    g.offset_mm[1] = -0.3;
    g.voxel_mm[1] = 0.9;
    kr_ct_scan s;
    const kr_ct_type types[3] = {KR_CT_PARALLEL2D, KR_CT_FAN2D_FLAT, KR_CT_FAN2D_EQUIANGULAR};
    double ang[5] = {0.1, 17.3, 33.33333333333333, 190, -5};
    for (int t = 0; t < 3; t++) {
        for (int uni = 0; uni < 2; uni++) {
            scan_fan(&s, types[t]);
            s.nviews = uni ? 7 : 5;
            s.start_deg = 3;
            s.stop_deg = 363.1;
            s.angles_deg = uni ? NULL : ang;
            s.det_offset_mm = 0.37;
            s.cor_offset_mm = -1.3;
            s.det_spacing_mm = 0.1 * 3;
            kr_ct_geom *geo = NULL;
            KT_OK(kr_ct_geom_create(&geo, &s, &g));
            round_trip(geo, 0);
            round_trip(geo, 1);
            kr_ct_geom_destroy(geo);
        }
    }
    /* through a file */
    scan_fan(&s, KR_CT_FAN2D_FLAT);
    kr_ct_geom *geo = NULL, *back = NULL;
    KT_OK(kr_ct_geom_create(&geo, &s, &g));
    const char *path = kt_tmp("geom.json");
    KT_OK(kr_ct_geom_write_json(geo, path, 0));
    KT_OK(kr_ct_geom_read_json(&back, path));
    KT_CHECK(back && memcmp(kr_ct_geom_views(back), kr_ct_geom_views(geo),
                            8 * sizeof(kr_ct_view)) == 0);
    kr_ct_geom_destroy(back);
    remove(path);
    KT_STATUS(kr_ct_geom_read_json(&back, path), KR_ERR_IO);
    FILE *f = fopen(path, "w");
    fclose(f);
    KT_STATUS(kr_ct_geom_read_json(&back, path), KR_ERR_FORMAT);
    KT_CHECK(strstr(kr_last_error(), "empty") != NULL);
    remove(path);
    KT_STATUS(kr_ct_geom_write_json(geo, "/nonexistent-dir/x.json", 0), KR_ERR_IO);
    kr_ct_geom_destroy(geo);
}

static void test_json_schema(void)
{
    const char *good =
        "{\"type\": \"fan2d-flat\", \"det_count\": 16,\n"
        " \"image\": {\"size\": [8, 8], \"voxel_mm\": 1},\n"
        " \"angles_deg\": [0, 90], \"det_spacing_mm\": 1, \"sod_mm\": 50, \"sdd_mm\": 80}";
    kr_ct_geom *geo = NULL;
    KT_OK(kr_ct_geom_parse_json(&geo, good, strlen(good), "g.json"));
    const kr_ct_view *v = kr_ct_geom_views(geo);
    NEAR3(v[1].src, 50, 0, 0);
    kr_ct_geom_destroy(geo);
    const char *views = "{\"type\": \"parallel2d\", \"det_count\": 4, \"version\": 1,\n"
                        " \"image\": {\"size\": [4, 4], \"voxel_mm\": [1, 2], \"offset_mm\": [0, 1]},\n"
                        " \"views\": [{\"ray\": [0, 1], \"det\": [0, 0], \"u\": [1, 0]}]}";
    KT_OK(kr_ct_geom_parse_json(&geo, views, strlen(views), "v.json"));
    KT_CHECK(kr_ct_geom_nviews(geo) == 1 && kr_ct_geom_grid(geo)->voxel_mm[1] == 2);
    kr_ct_geom_destroy(geo);

    struct {
        const char *text;
        kr_status st;
        const char *frag;
    } bad[] = {
        {"{\"det_count\": 16, \"image\": {\"size\": [8, 8], \"voxel_mm\": 1}, \"angles_deg\": [0],"
         " \"det_spacing_mm\": 1}",
         KR_ERR_FORMAT, "missing field 'type'"},
        {"{\"type\": \"parallel2d\", \"det_count\": 16, \"image\": {\"size\": [8, 8], "
         "\"voxel_mm\": 1}, \"angles_deg\": [0]}",
         KR_ERR_FORMAT, "missing field 'det_spacing_mm'"},
        {"{\"type\": \"fan2d-flat\", \"det_count\": 16, \"image\": {\"size\": [8, 8], "
         "\"voxel_mm\": 1}, \"angles_deg\": [0], \"det_spacing_mm\": 1, \"sod_mm\": 50}",
         KR_ERR_FORMAT, "missing field 'sdd_mm'"},
        {"{\"type\": \"parallel2d\", \"det_count\": 16, \"image\": {\"size\": [8, 8]}, "
         "\"angles_deg\": [0], \"det_spacing_mm\": 1}",
         KR_ERR_FORMAT, "missing field 'image.voxel_mm'"},
        {"{\"type\": \"parallel2d\", \"det_count\": 16, \"image\": {\"size\": [8, 8], "
         "\"voxel_mm\": 1}, \"angles_deg\": [0], \"det_spacing_mm\": 1, \"sdd\": 3}",
         KR_ERR_FORMAT, "unknown field 'sdd' at line 1, column 130"},
        {"{\"type\": \"parallel2d\", \"det_count\": 16, \"image\": {\"size\": [8, 8], "
         "\"voxel_mm\": 1, \"origin\": 0}, \"angles_deg\": [0], \"det_spacing_mm\": 1}",
         KR_ERR_FORMAT, "unknown field 'image.origin'"},
        {"{\"type\": \"parallel2d\", \"det_count\": 16, \"image\": {\"size\": [8, 8], "
         "\"voxel_mm\": 1}, \"angles_deg\": [0], \"det_spacing_mm\": 1, \"sod_mm\": 3}",
         KR_ERR_FORMAT, "field 'sod_mm' at line 1, column 133 does not apply to type parallel2d"},
        {"{\"type\": \"parallel2d\", \"det_count\": \"16\", \"image\": {\"size\": [8, 8], "
         "\"voxel_mm\": 1}, \"angles_deg\": [0], \"det_spacing_mm\": 1}",
         KR_ERR_FORMAT, "field 'det_count' at line 1, column 37 must be an integer, got string"},
        {"{\"type\": \"parallel2d\", \"det_count\": 16.5, \"image\": {\"size\": [8, 8], "
         "\"voxel_mm\": 1}, \"angles_deg\": [0], \"det_spacing_mm\": 1}",
         KR_ERR_FORMAT, "'det_count' at line 1, column 37 must be an integer, got number"},
        {"{\"type\": \"parallel2d\", \"det_count\": 16, \"image\": {\"size\": [8, 8], "
         "\"voxel_mm\": 1}, \"angles_deg\": [0, \"a\"], \"det_spacing_mm\": 1}",
         KR_ERR_FORMAT, "field 'angles_deg[1]' at line 1, column 101 must be a number, got string"},
        {"{\"type\": \"parallel2d\", \"det_count\": 16, \"image\": {\"size\": [8, 8], "
         "\"voxel_mm\": 1}, \"angles_deg\": true, \"det_spacing_mm\": 1}",
         KR_ERR_FORMAT, "field 'angles_deg' at line 1, column 97 must be a non-empty array"},
        {"{\"type\": \"parallel2d\", \"det_count\": 16, \"image\": {\"size\": [8, 8], "
         "\"voxel_mm\": 1}, \"angles_deg\": {\"start\": 0, \"stop\": 180}, \"det_spacing_mm\": 1}",
         KR_ERR_FORMAT, "missing field 'angles_deg.count'"},
        {"{\"type\": \"parallel2d\", \"det_count\": 16, \"image\": {\"size\": [8, 8], "
         "\"voxel_mm\": 1}, \"angles_deg\": [0],\n \"det_spacing_mm\": NaN}",
         KR_ERR_FORMAT, "g.json: line 2, column 20: invalid number"},
        {"{\"type\": \"parallel2d\", \"det_count\": 16, \"image\": {\"size\": [8, 8], "
         "\"voxel_mm\": 1}, \"angles_deg\": [0], \"det_spa",
         KR_ERR_FORMAT, "unterminated string"},
        {"{\"type\": \"parallel2d\", \"det_count\": 16, \"image\": {\"size\": [8, 8], "
         "\"voxel_mm\": 1}, \"angles_deg\": [0], \"det_spacing_mm\": 1",
         KR_ERR_FORMAT, "expected ',' or '}'"},
        {"{\"type\": \"helical\", \"det_count\": 16}", KR_ERR_FORMAT,
         "field 'type' at line 1, column 10 is \"helical\""},
        {"[1, 2]", KR_ERR_FORMAT, "must be a JSON object, got array"},
        {"{\"type\": \"parallel2d\", \"det_count\": 16, \"image\": {\"size\": [8, 8], "
         "\"voxel_mm\": 1}, \"angles_deg\": [0], \"det_spacing_mm\": 1, \"version\": 2}",
         KR_ERR_FORMAT, "'version'"},
        {"{\"type\": \"parallel2d\", \"det_count\": 16, \"image\": {\"size\": [8, 0], "
         "\"voxel_mm\": 1}, \"angles_deg\": [0], \"det_spacing_mm\": 1}",
         KR_ERR_FORMAT, "'image.size'"},
        {"{\"type\": \"parallel2d\", \"det_count\": 4, \"image\": {\"size\": [4, 4], "
         "\"voxel_mm\": 1}, \"views\": [{\"src\": [0, 1], \"det\": [0, 0], \"u\": [1, 0]}]}",
         KR_ERR_FORMAT, "missing field 'views[0].ray'"},
        {"{\"type\": \"parallel2d\", \"det_count\": 4, \"image\": {\"size\": [4, 4], "
         "\"voxel_mm\": 1}, \"views\": [{\"ray\": [0, 1], \"det\": [0, 0], \"u\": [1, 0, 0]}]}",
         KR_ERR_FORMAT, "field 'views[0].u' at line 1, column 128 must be an array of 2 numbers"},
        {"{\"type\": \"parallel2d\", \"det_count\": 4, \"image\": {\"size\": [4, 4], "
         "\"voxel_mm\": 1}, \"views\": [{\"ray\": [0, 1], \"det\": [0, 0], \"u\": [1, 0], "
         "\"v\": [0, 0]}]}",
         KR_ERR_FORMAT, "unknown field 'views[0].v'"},
        {"{\"type\": \"parallel2d\", \"det_count\": 4, \"image\": {\"size\": [4, 4], "
         "\"voxel_mm\": 1}, \"views\": [], \"angles_deg\": [0]}",
         KR_ERR_FORMAT, "field 'angles_deg' at line 1, column 109 cannot be combined with 'views'"},
        /* well-formed, physically invalid: KR_ERR_GEOMETRY, prefixed with the file name */
        {"{\"type\": \"parallel2d\", \"det_count\": 16, \"image\": {\"size\": [8, 8], "
         "\"voxel_mm\": 1}, \"angles_deg\": [0], \"det_spacing_mm\": -1}",
         KR_ERR_GEOMETRY, "g.json: det_spacing_mm is -1"},
        {"{\"type\": \"fan2d-flat\", \"det_count\": 16, \"image\": {\"size\": [8, 8], "
         "\"voxel_mm\": 1}, \"angles_deg\": [0], \"det_spacing_mm\": 1, \"sod_mm\": 5, "
         "\"sdd_mm\": 10}",
         KR_ERR_GEOMETRY, "g.json: view 0 (angle 0 deg): the source"},
        {"{\"type\": \"parallel2d\", \"det_count\": 16, \"image\": {\"size\": [8, 8], "
         "\"voxel_mm\": 0}, \"angles_deg\": [0], \"det_spacing_mm\": 1}",
         KR_ERR_GEOMETRY, "voxel size along x is 0"},
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
    KT_STATUS(kr_ct_geom_parse_json(NULL, good, strlen(good), "g"), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ct_geom_parse_json(&geo, NULL, 3, "g"), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ct_geom_to_json(NULL, 0, NULL, 0, NULL), KR_ERR_INVALID_ARG);
}

int main(void)
{
    KT_RUN(test_parallel_views);
    KT_RUN(test_fan_views);
    KT_RUN(test_validation);
    KT_RUN(test_angles_parse);
    KT_RUN(test_json_round_trip);
    KT_RUN(test_json_schema);
    return kt_finish();
}
