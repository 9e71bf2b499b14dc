/* kray cgls: CGLS cone-beam reconstruction on the matched projector pair. */
#include "cone_common.h"

#include <string.h>

int kc_tool_cgls(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    kc_cone a;
    memset(&a, 0, sizeof a);
    kc_iter it;
    memset(&it, 0, sizeof it);
    it.cgls = 1;
    const kc_opt opts[] = {
        KC_CONE_OPTS(a),
        {"iters", 'i', KC_INT, &it.iters, "20", "N", "iterations (at most)", NULL, 1, 1e6, NULL},
        {"tol", 't', KC_DOUBLE, &it.tol, "0", "T",
         "stop once ||A^T (y - A x) - lambda x|| / ||A^T y|| <= T (0: run every iteration)",
         NULL, 0, 1e9, NULL},
        {"lambda", 'l', KC_DOUBLE, &it.lambda, "0", "L",
         "Tikhonov weight: minimise ||A x - y||^2 + L ||x||^2", NULL, 0, 1e30, NULL},
        {"init", 0, KC_STRING, &it.init, NULL, "FILE", "start from this volume (default 0)", NULL,
         0, 0, NULL},
        {0}};
    const kc_arg args[] = {{"projections", &in, "projections [u, v, view] to read", 0},
                           {"volume", &out, "volume [x, y, z] to write", 0},
                           {0}};
    const kc_spec spec = {
        "cgls",
        "CGLS reconstruction on the matched projector pair: minimises ||A x - y||^2 + lambda "
        "||x||^2\n(conjugate gradients on the normal equations, one projection and one "
        "backprojection per\niteration). Runs on the GPU when there is one (--backend auto).",
        opts,
        args,
        0,
        KC_CONE_NOTES "\nExamples:\n"
                      "  kray cgls --geom g.json --iters 10 proj.nrrd rec.nrrd\n"
                      "  kray cgls --geom g.json --lambda 0.1 --rays 2 proj.mha rec.mha",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    return kc_iterative("cgls", &c, &a, &it, in, out);
}
