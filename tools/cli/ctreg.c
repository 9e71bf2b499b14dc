/* kray ctreg: regularised CT reconstruction (TV with non-negativity) on the matched projector
 * pair of a geometry file: FISTA, PDHG, OS-SART or ASD-POCS (kray/reg.h). */
#include "cli.h"
#include "internal.h"
#include "kray/reg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { KC_ALGO_FISTA, KC_ALGO_PDHG, KC_ALGO_OSSART, KC_ALGO_ASD };

/* "tv:LAMBDA" -> lambda (>= 0, finite). */
static int kc_parse_reg(const char *s, double *lam)
{
    if (strncmp(s, "tv:", 3) != 0)
        return kc_usage("ctreg", "--reg takes tv:LAMBDA (the only CT regulariser), got '%s'", s);
    char *end = NULL;
    *lam = strtod(s + 3, &end);
    if (end == s + 3 || *end || !isfinite(*lam) || *lam < 0)
        return kc_usage("ctreg", "--reg tv:LAMBDA needs a finite LAMBDA >= 0, got '%s'", s + 3);
    return 0;
}

/* -v: each iteration's value as it ends, from the history the algorithm fills (entry k before
 * it reports progress k), through the ctx's progress callback. */
typedef struct kc_ctreg_watch {
    const double *hist;
    int iters, shown;
    const char *what; /* "relative residual" or "objective" */
} kc_ctreg_watch;

static void kc_ctreg_progress(void *user, const char *task, double frac, int done)
{
    (void)task;
    (void)done;
    kc_ctreg_watch *w = user;
    int k = (int)(frac * w->iters + 0.5);
    for (; w->shown <= k && w->shown <= w->iters; w->shown++)
        kc_note("ctreg", "iteration %d: %s %.6e", w->shown, w->what, w->hist[w->shown]);
}

/* Run the chosen algorithm on arrays at the ctx's location; hist (iters + 1 values, or NULL)
 * receives the relative residual (ossart, asd-pocs) or the objective (fista, pdhg) per
 * iteration. */
static kr_status kc_ctreg_run(const kr_ctx *ctx, const kr_ct_geom *g, kr_dtype dt, int algo,
                              double lam, int nonneg, int iters, int subsets, int inner,
                              double relax, const kr_array *y, kr_array *x, double *res,
                              int *its, double *hist, int progress)
{
    kr_ct_projector_opts po;
    kr_ct_projector_opts_default(&po);
    po.dtype = dt;
    if (algo == KC_ALGO_OSSART || algo == KC_ALGO_ASD) {
        kr_ct_reg_opts o;
        kr_ct_reg_opts_default(&o);
        o.max_iter = iters;
        o.subsets = subsets;
        o.relax = relax;
        o.nonneg = nonneg;
        o.tv_iter = inner;
        o.residual = hist;
        o.show_progress = progress;
        kr_solve_info si;
        kr_status s = algo == KC_ALGO_ASD ? kr_asd_pocs(ctx, g, &po, y, x, &o, &si)
                                          : kr_os_sart(ctx, g, &po, y, x, &o, &si);
        *res = si.rel_residual;
        *its = si.iterations;
        return s;
    }
    int64_t d[KR_MAX_DIMS];
    const int nd = kr_ct_geom_image_dims(g, d);
    const unsigned axes = (1u << nd) - 1;
    kr_linop *A = NULL, *D = NULL;
    kr_prox *tv = NULL, *l21 = NULL, *box = NULL;
    kr_reg_opts o;
    kr_reg_opts_default(&o);
    o.max_iter = iters;
    o.tol = 0;
    o.objective = hist;
    o.show_progress = progress;
    kr_reg_info info;
    memset(&info, 0, sizeof info);
    kr_status s = kr_ct_linop_create(&A, ctx, g, &po);
    const double lo = nonneg ? 0.0 : -INFINITY;
    if (s == KR_OK && algo == KC_ALGO_FISTA) {
        s = kr_prox_tv_create(&tv, ctx, dt, nd, d, lam, axes, lo, INFINITY, inner);
        if (s == KR_OK) s = kr_fista(ctx, A, y, tv, x, &o, &info);
    } else if (s == KR_OK) {
        int64_t dd[KR_MAX_DIMS];
        memcpy(dd, d, sizeof d);
        dd[nd] = nd;
        s = kr_fdiff_linop_create(&D, ctx, dt, nd, d, axes, KR_FDIFF_NEUMANN);
        if (s == KR_OK) s = kr_prox_l21_create(&l21, ctx, dt, nd + 1, dd, lam);
        if (s == KR_OK && nonneg) s = kr_prox_box_create(&box, ctx, dt, nd, d, 0.0, INFINITY);
        kr_reg_term t[2] = {{D, l21}, {NULL, box}};
        if (s == KR_OK) s = kr_pdhg(ctx, A, y, t, nonneg ? 2 : 1, x, &o, &info);
    }
    *res = info.objective;
    *its = info.iterations;
    kr_prox_destroy(tv);
    kr_prox_destroy(l21);
    kr_prox_destroy(box);
    kr_linop_destroy(D);
    kr_linop_destroy(A);
    return s;
}

int kc_tool_ctreg(int argc, char **argv)
{
    const char *pin = NULL, *pout = NULL, *geom = NULL, *reg = NULL;
    int algo = 0, nonneg = 0, iters = 50, subsets = 10, inner = 20;
    double relax = 1.0;
    const kc_opt opts[] = {
        {"geom", 'g', KC_STRING, &geom, NULL, "FILE",
         "geometry JSON file (kray/ct.h schema): parallel2d, fan2d-*, cone, cone-vec (required)",
         NULL, 0, 0, NULL},
        {"reg", 0, KC_STRING, &reg, "tv:0", "tv:LAMBDA",
         "regulariser: LAMBDA TV(x) added to 1/2 |A x - y|^2 (fista, pdhg; docs/reg.md for the "
         "scale against TIGRE)",
         NULL, 0, 0, NULL},
        {"nonneg", 0, KC_FLAG, &nonneg, NULL, NULL, "constrain the image to x >= 0", NULL, 0, 0,
         NULL},
        {"method", 'm', KC_CHOICE, &algo, "fista", "M",
         "fista (TV prox by inner iterations), pdhg (Chambolle-Pock), ossart (ordered-subsets "
         "SART, no TV), asd-pocs (OS-SART + TV steepest descent, TIGRE's)",
         "fista|pdhg|ossart|asd-pocs", 0, 0, NULL},
        {"iters", 'i', KC_INT, &iters, "50", "N", "iterations (passes over the data for ossart "
         "and asd-pocs)", NULL, 1, 1e6, NULL},
        {"subsets", 0, KC_INT, &subsets, "10", "N", "ossart, asd-pocs: ordered subsets of views",
         NULL, 1, 1024, NULL},
        {"inner", 0, KC_INT, &inner, "20", "N",
         "fista: TV prox iterations; asd-pocs: TV descent steps per iteration", NULL, 1, 1e4,
         NULL},
        {"relax", 0, KC_DOUBLE, &relax, "1", "R", "ossart, asd-pocs: relaxation in (0, 2)", NULL,
         1e-9, 1.999999, NULL},
        {0}};
    const kc_arg args[] = {
        {"projections", &pin, "line integrals: sinogram [det, view] or projections [u, v, view]",
         0},
        {"image", &pout, "reconstruction [x, y] or [x, y, z] (1/mm)", 0},
        {0}};
    const kc_spec spec = {
        "ctreg",
        "Regularised CT reconstruction on the matched (Joseph) projector pair of a geometry\n"
        "file: minimise 1/2 |A x - y|^2 + LAMBDA TV(x) (isotropic TV, Neumann differences)\n"
        "with FISTA or PDHG, optionally with x >= 0; or OS-SART / ASD-POCS (subsets of views\n"
        "v = s mod subsets). Steps come from a power iteration of A^T A. With --json, one\n"
        "JSON object with the iterations, the final objective (fista, pdhg) or relative\n"
        "residual (ossart, asd-pocs) and the time; -v prints that value after each iteration.",
        opts,
        args,
        KC_JSON,
        "Examples:\n"
        "  kray ctreg --geom scan.json --reg tv:2 --nonneg sino.npy rec.npy\n"
        "  kray ctreg --geom scan.json --method asd-pocs --subsets 20 --nonneg sino.npy rec.nii\n"
        "  kray ctreg --geom cone.json --method pdhg --reg tv:1 --backend cuda proj.nrrd vol.nrrd",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    if (!geom) return kc_usage("ctreg", "--geom FILE is required");
    double lam = 0;
    if ((r = kc_parse_reg(reg, &lam)) != 0) return r;
    if ((r = kc_check_input("ctreg", pin)) != 0) return r;
    if ((r = kc_check_output("ctreg", pout)) != 0) return r;
    kr_ctx *ctx = NULL;
    kr_ct_geom *g = NULL;
    kr_array *y = NULL, *conv = NULL, *x = NULL, *dy = NULL, *dx = NULL;
    const kr_dtype dt = kc_precision_dtype(&c);
    kr_status s;
    double res = 0, t0 = kr_time_now();
    int its = 0;
    if ((s = kr_ct_geom_read_json(&g, geom)) != KR_OK) goto fail;
    if ((s = kc_read(pin, &y, NULL, NULL)) != KR_OK) goto fail;
    if (kr_dtype_is_complex(y->dtype)) {
        r = kc_error("ctreg", "'%s' holds complex values; projections are real", pin);
        goto done;
    }
    if (y->dtype != dt) {
        if ((s = kr_array_astype(&conv, y, dt)) != KR_OK) goto fail;
        kr_array_destroy(y);
        y = conv;
        conv = NULL;
    }
    if ((s = kr_ct_check_projections(g, y, NULL)) != KR_OK) goto fail;
    if ((r = kc_make_dist_ctx("ctreg", &c, &ctx)) != 0) goto done;
    int64_t idims[KR_MAX_DIMS];
    const int nd = kr_ct_geom_image_dims(g, idims);
    if ((s = kr_array_create(&x, dt, nd, idims, KR_HOST, NULL)) != KR_OK) goto fail;
    const int gpu = kr_ctx_backend(ctx) == KR_BACKEND_CUDA;
    if (gpu) {
        if ((s = kr_array_clone(&dy, y, KR_DEVICE, ctx)) != KR_OK) goto fail;
        if ((s = kr_array_create_like(&dx, x, KR_DEVICE, ctx)) != KR_OK) goto fail;
    }
    double *hist = c.verbose ? calloc((size_t)iters + 1, sizeof *hist) : NULL;
    kc_ctreg_watch watch = {hist, iters, 0,
                            algo <= KC_ALGO_PDHG ? "objective" : "relative residual"};
    if (hist) kr_ctx_set_progress(ctx, kc_ctreg_progress, &watch);
    s = kc_ctreg_run(ctx, g, dt, algo, lam, nonneg, iters, subsets, inner, relax, gpu ? dy : y,
                     gpu ? dx : x, &res, &its, hist, !c.quiet || hist);
    free(hist);
    if (s != KR_OK) goto fail;
    if (gpu && (s = kr_array_copy(x, dx, ctx)) != KR_OK) goto fail;
    const double t_run = kr_time_now() - t0;
    const kr_ct_grid *gr = kr_ct_geom_grid(g);
    kr_meta meta;
    memset(&meta, 0, sizeof meta);
    for (int a = 0; a < 3; a++) {
        meta.spacing[a] = a < nd ? gr->voxel_mm[a] : 1;
        meta.origin[a] =
            a < nd ? gr->offset_mm[a] - 0.5 * (double)(gr->n[a] - 1) * gr->voxel_mm[a] : 0;
    }
    char an[16];
    kc_choice_name("fista|pdhg|ossart|asd-pocs", algo, an, sizeof an);
    snprintf(meta.description, sizeof meta.description, "kray ctreg %s tv:%g%s", an, lam,
             nonneg ? " nonneg" : "");
    kr_io_opts wo;
    kr_io_opts_default(&wo);
    wo.axes = KR_IO_AXES_IMAGE;
    wo.meta = &meta;
    if ((s = kc_write(pout, x, &wo)) != KR_OK) goto fail;
    if (c.json) {
        kc_jo j;
        kc_jo_begin(&j);
        kc_jo_str(&j, "tool", "ctreg");
        kc_jo_str(&j, "method", an);
        kc_jo_num(&j, "lambda", lam);
        kc_jo_bool(&j, "nonneg", nonneg);
        kc_jo_int(&j, "iterations", its);
        kc_jo_num(&j, algo <= KC_ALGO_PDHG ? "objective" : "rel_residual", res);
        kc_jo_str(&j, "backend", kr_backend_name(kr_ctx_backend(ctx)));
        kc_jo_str(&j, "precision", kr_dtype_name(dt));
        kc_jo_num(&j, "time_s", t_run);
        kc_jo_end(&j);
    } else if (c.verbose) {
        kc_note("ctreg", "%s, %d iterations, %s %.6g, wrote %s", an, its,
                algo <= KC_ALGO_PDHG ? "objective" : "relative residual", res, pout);
    }
    r = 0;
    goto done;
fail:
    r = kc_fail("ctreg", s);
done:
    kr_array_destroy(y);
    kr_array_destroy(conv);
    kr_array_destroy(x);
    kr_array_destroy(dy);
    kr_array_destroy(dx);
    kr_ct_geom_destroy(g);
    kr_ctx_destroy(ctx);
    return r;
}
