/* kray project: cone-beam forward projection of a volume (Joseph or Siddon, k^2 sub-rays), or
 * exact projections of the analytic 3-D Shepp-Logan phantom. */
#include "cone_common.h"

#include <string.h>

int kc_tool_project(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    kc_cone a;
    memset(&a, 0, sizeof a);
    a.plane = 1;
    int phantom = 0, view = -1;
    const kc_opt opts[] = {
        KC_CONE_OPTS(a),
        {"phantom", 0, KC_CHOICE, &phantom, "none", "C",
         "instead of a volume: exact line integrals of the 3-D Shepp-Logan (modified or original "
         "contrast) stretched over the volume box",
         "none|modified|original", 0, 0, NULL},
        {"view", 0, KC_INT, &view, "-1", "N", "PNG/PGM output: the view to show (-1 = central)",
         NULL, -1, 2e9, NULL},
        {"", 'p', KC_RENAMED, NULL, NULL, "--phantom", NULL, NULL, 0, 0, NULL},
        {0}};
    const kc_arg args[] = {{"volume", &in, "volume [x, y, z] to project (omit with --phantom)", 0},
                           {"projections", &out, "projections [u, v, view] to write", 1},
                           {0}};
    const kc_spec spec = {
        "project",
        "Cone-beam forward projection: line integrals (mm x voxel value) through the volume for\n"
        "every detector pixel, the mean over K x K sub-rays (--rays). Joseph samples the volume "
        "on\nvoxel planes with bilinear interpolation, Siddon uses exact intersection lengths. "
        "With\n--phantom the projections are the exact line integrals of the analytic phantom. A "
        "2-D\ngeometry file (--geom with parallel2d, fan2d-flat, fan2d-equiangular) projects an "
        "image\n[x, y] into a sinogram [det, view] with the 2-D Joseph or Siddon projector.",
        opts,
        args,
        0,
        KC_CONE_NOTES "\nExamples:\n"
                      "  kray phantom --3d --size 128 vol.nrrd\n"
                      "  kray project --sod 400 --sdd 600 --det 192x176 --pitch 1.2 "
                      "--angles 0:360:180 --voxel 1 vol.nrrd proj.nrrd\n"
                      "  kray project --geom g.json --phantom modified --rays 2 exact.nrrd\n"
                      "  kray project --geom g.json --method siddon vol.nii proj.png",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    if (phantom) {
        if (out)
            return kc_usage("project", "with --phantom give only the output file, got '%s' and "
                                       "'%s'",
                            in, out);
        out = in;
        in = NULL;
    } else if (!out) {
        return kc_usage("project", "give the volume to project and the output file (or "
                                   "--phantom and the output file)");
    }
    if ((r = kc_check_output("project", out)) != 0) return r;
    kr_dtype t = kc_precision_dtype(&c);
    kr_array *vol = NULL, *proj = NULL, *dv = NULL, *dp = NULL;
    kr_meta vmeta;
    memset(&vmeta, 0, sizeof vmeta);
    kr_ct_geom *g = NULL;
    kr_ctx *ctx = NULL;
    kr_ct_projector_plan *p = NULL;
    int own_v = 0, own_p = 0;
    if (in && (r = kc_cone_read("project", in, t, 1, &vol, &vmeta)) != 0) goto done;
    if ((r = kc_cone_geometry("project", &a, NULL, vol, &vmeta, &g)) != 0) goto done;
    if ((r = kc_make_dist_ctx("project", &c, &ctx)) != 0) goto done;
    double t0 = kr_time_now();
    kr_status s;
    if (phantom) {
        s = kr_ct_phantom_projections(
            &proj, ctx, g, phantom == 1 ? KR_PHANTOM_MODIFIED_SL : KR_PHANTOM_SHEPP_LOGAN, a.rays,
            t);
        if (s != KR_OK) {
            r = kc_fail("project", s);
            goto done;
        }
    } else {
        int64_t pd[3];
        const int nd = kr_ct_geom_sino_dims(g, pd);
        kr_ct_projector_opts o;
        kc_cone_popts(&a, t, &o);
        if ((s = kr_array_create(&proj, t, nd, pd, KR_HOST, NULL)) != KR_OK ||
            (s = kr_ct_projector_plan_create(&p, ctx, g, &o)) != KR_OK) {
            r = kc_fail("project", s);
            goto done;
        }
        if ((r = kc_cone_to_ctx("project", ctx, vol, &dv, &own_v)) != 0) goto done;
        if ((r = kc_cone_to_ctx("project", ctx, proj, &dp, &own_p)) != 0) goto done;
        if ((s = kr_ct_projector_forward(p, dv, dp)) != KR_OK ||
            (own_p && (s = kr_array_copy(proj, dp, ctx)) != KR_OK)) {
            r = kc_fail("project", s);
            goto done;
        }
    }
    r = kc_cone_finish("project", &c, out, proj, g, 0, view, t0, ctx);
done:
    if (own_v) kr_array_destroy(dv);
    if (own_p) kr_array_destroy(dp);
    kr_ct_projector_plan_destroy(p);
    kr_array_destroy(vol);
    kr_array_destroy(proj);
    kr_ct_geom_destroy(g);
    kr_ctx_destroy(ctx);
    return r;
}
