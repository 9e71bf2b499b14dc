/* kray sirt: SIRT cone-beam reconstruction on the matched projector pair, or with the
 * voxel-driven backprojector in place of the transpose. */
#include "cone_common.h"
#include "fdk_common.h"

#include <string.h>

int kc_tool_sirt(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *mem_s = "0";
    kc_cone a;
    memset(&a, 0, sizeof a);
    kc_iter it;
    memset(&it, 0, sizeof it);
    const kc_opt opts[] = {
        KC_CONE_OPTS(a),
        {"iters", 'i', KC_INT, &it.iters, "50", "N", "iterations (at most)", NULL, 1, 1e6, NULL},
        {"tol", 't', KC_DOUBLE, &it.tol, "0", "T",
         "stop once ||y - A x|| / ||y|| <= T (0: run every iteration)", NULL, 0, 1e9, NULL},
        {"relax", 0, KC_DOUBLE, &it.relax, "1", "R", "relaxation factor, 0 < R < 2", NULL, 1e-9,
         1.999999, NULL},
        {"nonneg", 0, KC_FLAG, &it.nonneg, NULL, NULL, "clamp the volume to >= 0 after each update",
         NULL, 0, 0, NULL},
        {"init", 0, KC_STRING, &it.init, NULL, "FILE", "start from this volume (default 0)", NULL,
         0, 0, NULL},
        {"backprojector", 0, KC_CHOICE, &it.voxel_bp, "matched", "B",
         "matched: the projector's exact transpose A^T; voxel: FDK's voxel-driven kernel with "
         "ray-density weights, an approximation of A^T (on average within 1 % of either "
         "projector's transpose, voxel by voxel within about 4 % of Joseph's) that is many times "
         "faster on the GPU; f32, not changed by --method or --rays; ASTRA's SIRT3D_CUDA pairs "
         "its projector the same way",
         "matched|voxel", 0, 0, NULL},
        KC_GPU_MEM_OPT(mem_s, "with --backprojector voxel on CUDA: its working-memory budget, "
                              "e.g. 512M or 2G (0 = 90% of the memory free at the first "
                              "iteration)"),
        {0}};
    const kc_arg args[] = {{"projections", &in, "projections [u, v, view] to read", 0},
                           {"volume", &out, "volume [x, y, z] to write", 0},
                           {0}};
    const kc_spec spec = {
        "sirt",
        "SIRT reconstruction, by default on the matched projector pair:\n"
        "  x <- x + R_relax C A^T R (y - A x),  R = 1 / (A 1), C = 1 / (A^T 1) (computed once),\n"
        "optionally clamped to x >= 0. --backprojector voxel puts the voxel-driven backprojector "
        "B\n(kray backproject --backprojector voxel) in place of A^T, and C = 1 / (B 1): an iteration then "
        "costs A and\nan FDK backprojection, and converges near the matched pair's result "
        "(CGLS needs the exact\ntranspose: 'kray cgls' has no such option). Runs on the GPU when "
        "there is one (--backend auto).",
        opts,
        args,
        0,
        KC_CONE_NOTES "\nExamples:\n"
                      "  kray sirt --geom g.json --iters 100 --nonneg proj.nrrd rec.nrrd\n"
                      "  kray sirt --sod 400 --sdd 600 --pitch 1.2 --size 128 proj.nrrd rec.nii",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    if ((r = kc_gpu_mem("sirt", mem_s, &it.gpu_mem)) != 0) return r;
    return kc_iterative("sirt", &c, &a, &it, in, out);
}

