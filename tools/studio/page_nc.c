/* kray studio, pages "nc" and "fve": non-Cartesian MRI of the analytic phantom, and Fourier
 * velocity encoding spectra.
 *
 * nc:  kray traj ... traj.npy; kray phantom --kind kspace --traj traj.npy (-c C) k.npy (the
 *      exact k-space at the samples); kray dcf; then kray nufft | drft (adjoint, density
 *      compensated; with coils kray coilcombine --maps) or kray cgsense | lsrecon (CG, -v),
 *      and kray metrics against kray phantom --grid fft.
 * fve: kray fve --simulate (the flow phantom) and kray fve --at X,Y (single-voxel spectra). */
#include "studio.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ks_plan_nc(ks_job *j, const ks_params *p, ks_err *e)
{
    int traj, n, spokes, inter, coils, dcf, recon, iters;
    double eps, lambda;
    if (ks_p_choice(p, "traj", "radial|golden|spiral", 0, &traj, e) ||
        ks_p_int(p, "size", 64, 8, 512, &n, e) || ks_p_int(p, "spokes", 64, 1, 4096, &spokes, e) ||
        ks_p_int(p, "interleaves", 16, 1, 256, &inter, e) ||
        ks_p_int(p, "coils", 4, 0, 32, &coils, e) ||
        ks_p_choice(p, "dcf", "voronoi|pipe-menon|radial|spiral|none", 0, &dcf, e) ||
        ks_p_choice(p, "recon", "nufft|drft|cg", 0, &recon, e) ||
        ks_p_num(p, "eps", 1e-4, 1e-6, 0.1, &eps, e) ||
        ks_p_int(p, "iters", 15, 1, 500, &iters, e) || ks_p_num(p, "lambda", 0, 0, 1e6, &lambda, e))
        return -1;
    if ((dcf == 2 && traj == 2) || (dcf == 3 && traj != 2)) {
        ks_errf(e, "the analytic density compensation '%s' is for %s trajectories",
                dcf == 2 ? "radial" : "spiral", dcf == 2 ? "radial" : "spiral");
        return -1;
    }
    static const char *const dcfs[] = {"voronoi", "pipe-menon", "radial", "spiral", "none"};
    ks_step *s = ks_job_tool(j, "traj");
    if (traj < 2) {
        ks_opt(s, "kind", "radial");
        ks_opt(s, "samples", "%d", n);
        ks_opt(s, "spokes", "%d", spokes);
        if (traj == 1) ks_arg(s, "--golden");
    } else {
        ks_opt(s, "kind", "spiral");
        ks_opt(s, "fov", "%d", 2 * n); /* 2 mm pixels: the spiral reaches |k| = n/2 */
        ks_opt(s, "res", "2");
        ks_opt(s, "interleaves", "%d", inter);
    }
    ks_arg(s, "traj.npy");
    s = ks_job_tool(j, "phantom");
    ks_opt(s, "kind", "kspace");
    ks_opt(s, "size", "%d", n);
    ks_opt(s, "traj", "traj.npy");
    if (coils) ks_opt(s, "coils", "%d", coils);
    ks_arg(s, "k.npy");
    s = ks_job_tool(j, "phantom"); /* pixel averages: the reference of band-limited data */
    ks_opt(s, "size", "%d", n);
    ks_opt(s, "grid", "fft");
    ks_opt(s, "supersample", "4");
    ks_arg(s, "truth.npy");
    if (coils) {
        s = ks_job_tool(j, "phantom");
        ks_opt(s, "kind", "coils");
        ks_opt(s, "size", "%d", n);
        ks_opt(s, "coils", "%d", coils);
        ks_arg(s, "maps.npy");
    }
    if (dcf != 4) {
        s = ks_job_tool(j, "dcf");
        ks_opt(s, "method", "%s", dcfs[dcf]);
        ks_arg(s, "traj.npy");
        ks_arg(s, "dcf.npy");
    }
    if (recon < 2) {
        s = ks_job_tool(j, recon ? "drft" : "nufft");
        ks_opt(s, "size", "%dx%d", n, n);
        ks_arg(s, "--normalize"); /* the compensated adjoint / n^2 approximates the image */
        if (dcf != 4) ks_opt(s, "dcf", "dcf.npy");
        if (!recon && eps != 1e-4) ks_opt(s, "eps", "%g", eps);
        ks_arg(s, "traj.npy");
        ks_arg(s, "k.npy");
        ks_arg(s, coils ? "adj.npy" : "rec.npy");
        if (coils) {
            s = ks_job_tool(j, "coilcombine");
            ks_opt(s, "maps", "maps.npy");
            ks_arg(s, "adj.npy");
            ks_arg(s, "rec.npy");
        }
    } else {
        s = ks_job_tool(j, coils ? "cgsense" : "lsrecon");
        ks_opt(s, "size", "%dx%d", n, n);
        if (coils) ks_opt(s, "maps", "maps.npy");
        if (dcf != 4) ks_opt(s, "dcf", "dcf.npy");
        ks_opt(s, "iters", "%d", iters);
        if (lambda > 0) ks_opt(s, "lambda", "%g", lambda);
        ks_arg(s, "-v");
        ks_step_iters(s, iters);
        ks_arg(s, "traj.npy");
        ks_arg(s, "k.npy");
        ks_arg(s, "rec.npy");
    }
    ks_job_result(j, "traj.npy", "trajectory", "traj");
    ks_job_result(j, "dcf.npy", "density compensation", "dcf");
    ks_job_result(j, "k.npy", "k-space samples", "samples");
    ks_job_result(j, "maps.npy", "coil maps", "coils");
    ks_job_result(j, "rec.npy",
                  recon == 0   ? "NUFFT adjoint"
                  : recon == 1 ? "DrFT adjoint"
                  : coils      ? "CG-SENSE"
                               : "least squares (CG)",
                  "image");
    ks_job_result(j, "truth.npy", "phantom", "image");
    ks_job_compare(j, "rec.npy", "truth.npy");
    return 0;
}

const ks_page ks_page_nc = {"nc", ks_plan_nc};

static int ks_plan_fve(ks_job *j, const ks_params *p, ks_err *e)
{
    int method, nvox = 0;
    double vfov;
    if (ks_p_choice(p, "method", "drft|goertzel", 0, &method, e) ||
        ks_p_num(p, "vfov", 200, 1, 10000, &vfov, e))
        return -1;
    ks_step *s = ks_job_tool(j, "fve");
    ks_arg(s, "--simulate");
    ks_arg(s, "--small");
    ks_opt(s, "vfov", "%g", vfov);
    ks_arg(s, "traj.npy");
    ks_arg(s, "k.npy");
    s = ks_job_tool(j, "fve");
    if (method) ks_opt(s, "method", "goertzel");
    for (int v = 0; v < 4; v++) { /* voxels at0 .. at3 as "X,Y" */
        char key[8];
        double x, y;
        snprintf(key, sizeof key, "x%d", v);
        const char *xs = ks_param(p, key);
        snprintf(key, sizeof key, "y%d", v);
        const char *ys = ks_param(p, key);
        if (!xs && !ys) continue;
        snprintf(key, sizeof key, "x%d", v);
        if (ks_p_num(p, key, 0, -256, 256, &x, e)) return -1;
        snprintf(key, sizeof key, "y%d", v);
        if (ks_p_num(p, key, 0, -256, 256, &y, e)) return -1;
        ks_opt(s, "at", "%g,%g", x, y);
        nvox++;
    }
    if (!nvox) ks_opt(s, "at", "0,0");
    ks_job_metric(j, "positions", nvox ? nvox : 1); /* the spectra: each slice of each one */
    ks_arg(s, "--json");
    ks_step_json(s);
    ks_arg(s, "traj.npy");
    ks_arg(s, "k.npy");
    ks_arg(s, "spectra.npy");
    ks_job_result(j, "spectra.npy", "velocity spectra [bins, frames, voxels]", "spectra");
    ks_job_result(j, "traj.npy", "spiral trajectory", "traj");
    return 0;
}

const ks_page ks_page_fve = {"fve", ks_plan_fve};
