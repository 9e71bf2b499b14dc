/* libFuzzer harness: the CT geometry JSON reader. A text that parses is written back (both
 * forms: the scan description and explicit views), parsed again and written again; the two
 * texts must be equal, or the round trip lost something (abort). Explicit views are written
 * back for scans of at most 4096 views: a longer scan as explicit views is megabytes of text
 * (1e5 views: 12 MB, seconds under the sanitizers), the same code paths at a size libFuzzer's
 * timeout cannot tell from a hang; its scan-form round trip is still checked. */
#include "fuzz_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *fz_json(const kr_ct_geom *g, int views)
{
    size_t need = 0;
    if (kr_ct_geom_to_json(g, views, NULL, 0, &need) != KR_OK) return NULL;
    char *b = malloc(need + 1);
    if (kr_ct_geom_to_json(g, views, b, need + 1, &need) != KR_OK) {
        free(b);
        return NULL;
    }
    return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    kr_ct_geom *g = NULL;
    if (kr_ct_geom_parse_json(&g, (const char *)d, n, "fuzz.json") != KR_OK) return 0;
    int forms = kr_ct_geom_nviews(g) <= 4096 ? 2 : 1;
    for (int views = 0; views < forms; views++) {
        char *t1 = fz_json(g, views);
        if (!t1) abort(); /* a geometry that was read must be writable */
        kr_ct_geom *h = NULL;
        if (kr_ct_geom_parse_json(&h, t1, strlen(t1), "round trip") != KR_OK) {
            fprintf(stderr, "written geometry does not parse again: %s\n%s\n", kr_last_error(), t1);
            abort();
        }
        char *t2 = fz_json(h, views);
        if (!t2 || strcmp(t1, t2) != 0) {
            fprintf(stderr, "round trip changed the geometry:\n%s\n---\n%s\n", t1, t2 ? t2 : "");
            abort();
        }
        free(t1);
        free(t2);
        kr_ct_geom_destroy(h);
    }
    kr_ct_geom_destroy(g);
    return 0;
}

void fz_seeds(void)
{
    static const kr_ct_type types[] = {KR_CT_PARALLEL2D, KR_CT_FAN2D_FLAT, KR_CT_FAN2D_EQUIANGULAR,
                                       KR_CT_CONE};
    for (int i = 0; i < 4; i++) {
        kr_ct_scan s;
        kr_ct_scan_default(&s);
        s.type = types[i];
        s.det_count = 8 + i;
        s.nviews = 5;
        s.start_deg = 10 * i;
        s.stop_deg = 190 + 170 * (i > 0);
        s.det_spacing_mm = 0.75;
        s.det_offset_mm = 0.25 * i;
        s.cor_offset_mm = -0.125 * i;
        if (i > 0) {
            s.sod_mm = 300;
            s.sdd_mm = 500;
        }
        kr_ct_grid gr;
        if (types[i] == KR_CT_CONE) {
            s.det_rows = 6;
            s.det_spacing_v_mm = 0.5;
            s.det_offset_v_mm = 0.1;
            kr_ct_grid_3d(&gr, 6, 5, 4, 0.8);
        } else {
            kr_ct_grid_2d(&gr, 6, 5, 1.1);
        }
        gr.offset_mm[0] = 0.5;
        kr_ct_geom *g = NULL;
        if (kr_ct_geom_create(&g, &s, &gr) != KR_OK) continue;
        for (int views = 0; views < 2; views++) {
            char *t = fz_json(g, views);
            if (t) fz_seed(t, strlen(t));
            free(t);
        }
        kr_ct_geom_destroy(g);
    }
    static const char list[] = "{\"version\": 1, \"type\": \"parallel2d\", \"det_count\": 4, "
                               "\"image\": {\"size\": [3, 3], \"voxel_mm\": [1, 2]}, "
                               "\"angles_deg\": [0, 45.5, 90, -1e-3], \"det_spacing_mm\": 1}";
    fz_seed(list, sizeof list - 1);
}
