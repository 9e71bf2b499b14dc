/* kray studio, pages "ct" and "bench": CT reconstruction of a phantom or of uploaded
 * projections, and kray's CT benchmark battery.
 *
 * ct: geom.json (the scan the page describes, or an uploaded geometry, written by the studio),
 *   2-D:  kray phantom ... truth.npy; kray project -g geom.json truth.npy sino.npy
 *   cone: kray phantom --3d ... truth.npy; kray project -g geom.json --phantom modified sino.npy
 *   then kray fbp | fdk | sirt | cgls | ctreg -g geom.json sino.npy rec.npy (iterative ones with
 *   -v: their residual or objective per iteration), and against the phantom kray metrics and the
 *   error image.
 * bench: kray bench fbp2d | ct2d --json (and fbp2d's SVG chart). */
#include "studio.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ks_ct_geom_note(ks_job *j, char *err, size_t len)
{
    (void)j;
    (void)err;
    (void)len;
    return 0; /* geom.json was written when the job was planned */
}

enum { KS_FBP, KS_SIRT, KS_CGLS, KS_FISTA, KS_PDHG, KS_OSSART, KS_ASD };

/* Write geom.json from the page's scan (or the uploaded geometry); 0 or -1 with kray's
 * sentence. */
static int ks_ct_geometry(ks_job *j, const ks_params *p, kr_ct_geom **g, ks_err *e)
{
    int type, n, nz, views, det, rows, gid;
    double fov, sod, sdd, arc;
    *g = NULL;
    if (ks_p_choice(p, "geom", "parallel|fan|cone|file", 0, &type, e) ||
        ks_p_int(p, "size", type == 2 ? 64 : 128, 8, 1024, &n, e) ||
        ks_p_int(p, "nz", 32, 1, 512, &nz, e) ||
        ks_p_int(p, "views",
                 type == 0   ? 180
                 : type == 1 ? 360
                             : 120,
                 1, 4096, &views, e) ||
        ks_p_int(p, "det", 0, 0, 4096, &det, e) || ks_p_int(p, "rows", 0, 0, 2048, &rows, e) ||
        ks_p_num(p, "fov", 256, 1, 10000, &fov, e) || ks_p_num(p, "sod", 500, 1, 1e5, &sod, e) ||
        ks_p_num(p, "sdd", 1000, 1, 1e5, &sdd, e) ||
        ks_p_num(p, "arc", type == 0 ? 180 : 360, 1, 720, &arc, e) ||
        ks_p_int(p, "geomfile", 0, 0, 1000000000, &gid, e))
        return -1;
    char path[4096];
    ks_job_file(j, "geom.json", path, sizeof path);
    kr_status s;
    kr_clear_error();
    if (type == 3) {
        ks_item *it = gid ? ks_item_get(gid) : NULL;
        if (!it || strcmp(ks_item_role(it), "geom")) {
            ks_item_put(it);
            ks_errf(e, "the geometry needs an uploaded .json file");
            return -1;
        }
        s = kr_ct_geom_read_json(g, ks_item_path(it));
        ks_item_put(it);
    } else {
        const double voxel = fov / n, mag = type == 0 ? 1.0 : sdd / sod;
        kr_ct_scan sc;
        kr_ct_scan_default(&sc);
        sc.type = type == 0 ? KR_CT_PARALLEL2D : type == 1 ? KR_CT_FAN2D_FLAT : KR_CT_CONE;
        sc.nviews = views;
        sc.start_deg = 0;
        sc.stop_deg = arc;
        sc.det_spacing_mm = voxel * mag;
        sc.det_count = det ? det : (int64_t)ceil(1.5 * n);
        sc.sod_mm = type ? sod : 0;
        sc.sdd_mm = type ? sdd : 0;
        kr_ct_grid grid;
        if (type == 2) {
            sc.det_rows = rows ? rows : (int64_t)ceil(1.5 * nz);
            kr_ct_grid_3d(&grid, n, n, nz, voxel);
        } else {
            kr_ct_grid_2d(&grid, n, n, voxel);
        }
        s = kr_ct_geom_create(g, &sc, &grid);
    }
    if (s == KR_OK) s = kr_ct_geom_write_json(*g, path, 0);
    if (s != KR_OK) {
        ks_errf(e, "%s", kr_last_error()[0] ? kr_last_error() : kr_status_string(s));
        kr_ct_geom_destroy(*g);
        *g = NULL;
        return -1;
    }
    return 0;
}

static int ks_plan_ct(ks_job *j, const ks_params *p, ks_err *e)
{
    int algo, contrast, filter, window, iters, nonneg, subsets, did;
    double cutoff, lambda, relax;
    if (ks_p_choice(p, "algo", "fbp|sirt|cgls|fista|pdhg|ossart|asd-pocs", 0, &algo, e) ||
        ks_p_choice(p, "contrast", "modified|original", 0, &contrast, e) ||
        ks_p_choice(p, "filter", "fft|direct|seed", 0, &filter, e) ||
        ks_p_choice(p, "window", "ramlak|shepp-logan|cosine|hamming|hann", 0, &window, e) ||
        ks_p_num(p, "cutoff", 1, 0.01, 1, &cutoff, e) ||
        ks_p_int(p, "iters", 20, 1, 2000, &iters, e) ||
        ks_p_num(p, "lambda", 0.01, 0, 1e6, &lambda, e) ||
        ks_p_int(p, "nonneg", 0, 0, 1, &nonneg, e) ||
        ks_p_int(p, "subsets", 10, 1, 1024, &subsets, e) ||
        ks_p_num(p, "relax", 1, 0.01, 1.99, &relax, e) ||
        ks_p_int(p, "data", 0, 0, 1000000000, &did, e))
        return -1;
    kr_ct_geom *g = NULL;
    if (ks_ct_geometry(j, p, &g, e) != 0) return -1;
    const int cone = kr_ct_type_is_cone(kr_ct_geom_type(g));
    int64_t id[3] = {1, 1, 1};
    kr_ct_geom_image_dims(g, id);
    char tname[32];
    snprintf(tname, sizeof tname, "%s", kr_ct_type_name(kr_ct_geom_type(g)));
    kr_ct_geom_destroy(g);
    if (algo == KS_CGLS && !cone) {
        ks_errf(e, "CGLS in kray's command line is for cone beams (kray cgls); for 2-D scans "
                   "choose SIRT, OS-SART, FISTA, PDHG or ASD-POCS");
        return -1;
    }
    ks_item *data = did ? ks_item_get(did) : NULL;
    if (did && (!data || strcmp(ks_item_role(data), "array"))) {
        ks_item_put(data);
        ks_errf(e, "the projections item %d is not an array kray reads", did);
        return -1;
    }
    static const char *const contrasts[] = {"modified", "original"};
    char note[160];
    snprintf(note, sizeof note, "geom.json: the %s scan of the page, written by the studio", tname);
    ks_job_post(j, ks_ct_geom_note, note);
    ks_step *s;
    if (!data) {
        s = ks_job_tool(j, "phantom");
        if (cone) ks_arg(s, "--3d");
        if (cone)
            ks_opt(s, "size", "%lldx%lldx%lld", (long long)id[0], (long long)id[1],
                   (long long)id[2]);
        else
            ks_opt(s, "size", "%lldx%lld", (long long)id[0], (long long)id[1]);
        if (contrast) ks_opt(s, "contrast", "original");
        if (cone) ks_opt(s, "supersample", "2"); /* voxel averages against exact projections */
        ks_arg(s, "truth.npy");
        s = ks_job_tool(j, "project");
        ks_opt(s, "geom", "geom.json");
        if (cone)
            ks_opt(s, "phantom", "%s", contrasts[contrast]);
        else
            ks_arg(s, "truth.npy");
        ks_arg(s, "sino.npy");
    }
    static const char *const filters[] = {"fft", "direct", "seed"};
    static const char *const windows[] = {"ramlak", "shepp-logan", "cosine", "hamming", "hann"};
    static const char *const methods[] = {"", "ossart", "", "fista", "pdhg", "ossart", "asd-pocs"};
    if (algo == KS_FBP) {
        s = ks_job_tool(j, cone ? "fdk" : "fbp");
        ks_opt(s, "geom", "geom.json");
        if (filter) ks_opt(s, "filter", "%s", filters[filter]);
        if (window) ks_opt(s, "filter-window", "%s", windows[window]);
        if (cutoff < 1) ks_opt(s, "cutoff", "%g", cutoff);
    } else if (cone && (algo == KS_SIRT || algo == KS_CGLS)) {
        s = ks_job_tool(j, algo == KS_SIRT ? "sirt" : "cgls");
        ks_opt(s, "geom", "geom.json");
        ks_opt(s, "iters", "%d", iters);
        if (algo == KS_SIRT && nonneg) ks_arg(s, "--nonneg");
        if (algo == KS_SIRT && relax != 1) ks_opt(s, "relax", "%g", relax);
        ks_arg(s, "-v");
    } else {
        s = ks_job_tool(j, "ctreg");
        ks_opt(s, "geom", "geom.json");
        ks_opt(s, "method", "%s", methods[algo]);
        ks_opt(s, "iters", "%d", iters);
        if (algo == KS_SIRT) ks_opt(s, "subsets", "1");
        if (algo == KS_OSSART || algo == KS_ASD) ks_opt(s, "subsets", "%d", subsets);
        if ((algo == KS_SIRT || algo == KS_OSSART || algo == KS_ASD) && relax != 1)
            ks_opt(s, "relax", "%g", relax);
        if (algo == KS_FISTA || algo == KS_PDHG) ks_opt(s, "reg", "tv:%g", lambda);
        if (nonneg) ks_arg(s, "--nonneg");
        ks_arg(s, "-v");
    }
    if (algo != KS_FBP) ks_step_iters(s, iters);
    if (data)
        ks_arg_item(s, data);
    else
        ks_arg(s, "sino.npy");
    ks_arg(s, "rec.npy");
    ks_item_put(data);
    ks_job_result(j, "geom.json", "geometry", "geom");
    ks_job_result(j, "truth.npy", "phantom", "image");
    ks_job_result(j, "sino.npy", cone ? "projections" : "sinogram", "sino");
    ks_job_result(j, "rec.npy", "reconstruction", "image");
    if (!did) ks_job_compare(j, "rec.npy", "truth.npy");
    return 0;
}

const ks_page ks_page_ct = {"ct", ks_plan_ct};

static int ks_plan_bench(ks_job *j, const ks_params *p, ks_err *e)
{
    int which, n, views, reps, batteries;
    if (ks_p_choice(p, "bench", "fbp2d|ct2d", 0, &which, e) ||
        ks_p_int(p, "size", 128, 16, 2048, &n, e) ||
        ks_p_int(p, "views", 180, 1, 4096, &views, e) || ks_p_int(p, "reps", 2, 1, 100, &reps, e) ||
        ks_p_int(p, "batteries", 1, 1, 20, &batteries, e))
        return -1;
    ks_step *s = ks_job_tool(j, "bench");
    ks_arg(s, which ? "ct2d" : "fbp2d");
    ks_opt(s, "size", "%d", n);
    ks_opt(s, "views", "%d", views);
    ks_opt(s, "reps", "%d", reps);
    if (which == 0) {
        ks_opt(s, "batteries", "%d", batteries);
        ks_opt(s, "cases", "sl,msl");
        ks_opt(s, "peers", "none");
        ks_opt(s, "chart", "bench.svg");
        ks_job_result(j, "bench.svg", "mean times (kray bench fbp2d's chart)", "svg");
    } else {
        ks_opt(s, "det", "%d", (int)ceil(1.5 * n));
    }
    ks_arg(s, "--json");
    ks_step_json(s);
    return 0;
}

const ks_page ks_page_bench = {"bench", ks_plan_bench};
