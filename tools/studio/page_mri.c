/* kray studio, page "mri": Bloch simulation of a Cartesian acquisition with a coil array,
 * undersampling with noise, and the reconstruction (zero-filled, SENSE with its g-factor map, or
 * CG-SENSE), against the noise-free fully sampled SENSE combination as the reference.
 *
 *   kray sim ... k.npy                          k-space [x, y, 1, coil]
 *   kray coils ... maps.npy                     the array's sensitivities on the image grid
 *   kray recon -R R --acs A --noise S ... --kspace-out under.npy --combine coils k.npy alias.npy
 *   kray sense --maps maps.npy k.npy ref.npy    the reference (R = 1, no noise)
 *   kray sense|recon ... under.npy recon.npy    (and g.npy)
 *   kray metrics --json recon.npy ref.npy
 *
 * The noise is asked as a fraction of the largest k-space sample; an in-process step turns it
 * into kray recon's absolute sigma once the simulation has run. */
#include "studio.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ks_mri {
    double noise_rel, psi_rho;
    int nc, recon;
} ks_mri;

/* psi.npy: Psi_ij = rho^|i - j| (positive definite for |rho| < 1). */
static int ks_mri_psi(ks_job *j, char *err, size_t len)
{
    const ks_mri *m = ks_job_data(j);
    const int64_t d[2] = {m->nc, m->nc};
    kr_array *psi = NULL;
    if (kr_array_create(&psi, KR_C64, 2, d, KR_HOST, NULL) != KR_OK) {
        snprintf(err, len, "%s", kr_last_error());
        return -1;
    }
    float *f = psi->data;
    for (int a = 0; a < m->nc; a++)
        for (int b = 0; b < m->nc; b++)
            f[2 * (a + (int64_t)b * m->nc)] = (float)pow(m->psi_rho, abs(a - b));
    int r = ks_write(j, "psi.npy", psi, err, len);
    kr_array_destroy(psi);
    return r;
}

/* The noise sigma of kray recon from the fraction of the largest |k|. */
static int ks_mri_noise(ks_job *j, char *err, size_t len)
{
    const ks_mri *m = ks_job_data(j);
    kr_array *k = NULL;
    if (ks_read(j, "k.npy", &k, err, len) != 0) return -1;
    double kmax = 0;
    for (int64_t i = 0; i < kr_array_numel(k); i++) {
        double re, im;
        kc_elem(k, i, &re, &im);
        kmax = fmax(kmax, hypot(re, im));
    }
    kr_array_destroy(k);
    char v[64];
    snprintf(v, sizeof v, "%.6g", m->noise_rel * kmax);
    ks_job_fill(j, "noise", v);
    ks_job_metric(j, "noise sigma", m->noise_rel * kmax);
    return 0;
}

/* The g-factor's mean and maximum over the object (|ref| > 2 % of its max) and everywhere. */
static int ks_mri_gstats(ks_job *j, char *err, size_t len)
{
    kr_array *g = NULL, *ref = NULL;
    if (ks_read(j, "g.npy", &g, err, len) != 0) return -1;
    if (ks_read(j, "ref.npy", &ref, err, len) != 0) {
        kr_array_destroy(g);
        return -1;
    }
    const int64_t n = kr_array_numel(g);
    double rmax = 0, gmax = 0, gsum = 0, gall = 0;
    int64_t cnt = 0;
    for (int64_t i = 0; i < n; i++) {
        double re, im;
        kc_elem(ref, i, &re, &im);
        rmax = fmax(rmax, hypot(re, im));
    }
    for (int64_t i = 0; i < n; i++) {
        double re, im, gv, gi;
        kc_elem(ref, i, &re, &im);
        kc_elem(g, i, &gv, &gi);
        if (isfinite(gv)) gall = fmax(gall, gv);
        if (hypot(re, im) > 0.02 * rmax && isfinite(gv)) {
            gmax = fmax(gmax, gv);
            gsum += gv;
            cnt++;
        }
    }
    kr_array_destroy(g);
    kr_array_destroy(ref);
    ks_job_metric(j, "g max", gall);
    ks_job_metric(j, "g max (object)", gmax);
    ks_job_metric(j, "g mean (object)", cnt ? gsum / (double)cnt : 0.0);
    return 0;
}

static int ks_plan_mri(ks_job *j, const ks_params *p, ks_err *e)
{
    int n, dec, seq, shots, order, nc, per, R, acs, recon, iters, all, spoil, dummy;
    double fov, te, tr, flip, samp, scyc, rbody, noise, lambda, rho;
    if (ks_p_int(p, "size", 64, 8, 256, &n, e) || ks_p_int(p, "decimate", 1, 1, 4, &dec, e) ||
        ks_p_num(p, "fov", 256, 10, 1000, &fov, e) ||
        ks_p_choice(p, "seq", "gre|se|se-epi|pulseq", 2, &seq, e) ||
        ks_p_num(p, "te", 0, 0, 10000, &te, e) || ks_p_num(p, "tr", 0, 0, 100000, &tr, e) ||
        ks_p_num(p, "flip", 90, 1, 180, &flip, e) || ks_p_int(p, "shots", 1, 1, 256, &shots, e) ||
        ks_p_choice(p, "order", "interleaved|sequential", 0, &order, e) ||
        ks_p_choice(p, "spoil", "ideal|rf|gradient|none", 0, &spoil, e) ||
        ks_p_int(p, "dummy", 10, 0, 1000, &dummy, e) ||
        ks_p_num(p, "sine_amp", 0, 0, 1000, &samp, e) ||
        ks_p_num(p, "sine_cycles", 1, 0, 16, &scyc, e) || ks_p_int(p, "coils", 8, 1, 32, &nc, e) ||
        ks_p_int(p, "per_ring", 8, 1, 32, &per, e) ||
        ks_p_num(p, "rbody", 300, 50, 1000, &rbody, e) ||
        ks_p_num(p, "noise", 0, 0, 1, &noise, e) || ks_p_int(p, "R", 2, 1, 16, &R, e) ||
        ks_p_int(p, "acs", 0, 0, 256, &acs, e) ||
        ks_p_choice(p, "recon", "zf|sense|cg", 1, &recon, e) ||
        ks_p_num(p, "lambda", 0, 0, 1e6, &lambda, e) || ks_p_num(p, "psi", 0, 0, 0.95, &rho, e) ||
        ks_p_int(p, "iters", 30, 1, 500, &iters, e) || ks_p_int(p, "all_lines", 0, 0, 1, &all, e))
        return -1;
    if (dec == 3) {
        ks_errf(e, "parameter 'decimate': 1, 2 or 4");
        return -1;
    }
    if (R > nc && recon == 1) {
        ks_errf(e, "SENSE needs R <= coils: R = %d with %d coils", R, nc);
        return -1;
    }
    ks_item *obj = NULL, *seqf = NULL;
    int oid = 0, sid = 0;
    if (ks_p_int(p, "object", 0, 0, 1000000000, &oid, e) ||
        ks_p_int(p, "seqfile", 0, 0, 1000000000, &sid, e))
        return -1;
    int64_t nx = n, ny = n;
    if (oid) {
        obj = ks_item_get(oid);
        const kr_array *a = NULL;
        if (!obj || ks_item_array(obj, &a) != KR_OK) {
            ks_errf(e, "the object item %d is not an array kray reads", oid);
            ks_item_put(obj);
            return -1;
        }
        int ok = a->ndim == 3 && a->dims[2] == 3 && !kr_dtype_is_complex(a->dtype);
        nx = a->dims[0];
        ny = a->ndim > 1 ? a->dims[1] : 1;
        ks_item_array_done(obj);
        if (!ok) {
            ks_errf(e, "the object must hold T1 (ms), T2 (ms) and PD maps [nx, ny, 3] (as kray "
                       "phantom --kind mr)");
            ks_item_put(obj);
            return -1;
        }
    }
    nx = (nx + dec - 1) / dec;
    ny = (ny + dec - 1) / dec;
    if (seq == 3) {
        seqf = sid ? ks_item_get(sid) : NULL;
        if (!seqf || strcmp(ks_item_role(seqf), "seq")) {
            ks_errf(e, "the Pulseq sequence needs an uploaded .seq file");
            ks_item_put(obj);
            ks_item_put(seqf);
            return -1;
        }
    }
    ks_mri *m = calloc(1, sizeof *m);
    if (!m) {
        ks_item_put(obj);
        ks_item_put(seqf);
        ks_errf(e, "out of memory");
        return -1;
    }
    m->noise_rel = noise;
    m->psi_rho = rho;
    m->nc = nc;
    m->recon = recon;
    ks_job_set_data(j, m);
    const double voxel = fov / (double)(oid ? (nx * dec) : n);
    static const char *const seqs[] = {"gre", "se", "se-epi"};

    ks_step *s = ks_job_tool(j, "sim");
    if (obj) {
        ks_arg(s, "--object");
        ks_arg_item(s, obj);
    } else {
        ks_opt(s, "size", "%d", n);
    }
    ks_opt(s, "voxel", "%.6g", voxel);
    if (dec > 1) ks_opt(s, "decimate", "%d", dec);
    if (seq == 3) {
        ks_arg(s, "--seq-file");
        ks_arg_item(s, seqf);
        ks_opt(s, "matrix", "%lldx%lld", (long long)nx, (long long)ny);
    } else {
        ks_opt(s, "seq", "%s", seqs[seq]);
        if (te > 0) ks_opt(s, "te", "%g", te);
        if (tr > 0) ks_opt(s, "tr", "%g", tr);
        if (flip != 90) ks_opt(s, "flip", "%g", flip);
        /* one isochromat per voxel: spoiling by gradients needs intra-voxel dephasing that the
         * object does not have, and the first TRs approach the steady state; ideal spoiling
         * and preparatory TRs give k-space lines of one contrast, as SENSE assumes */
        if (seq == 0)
            ks_opt(s, "spoil", "%s", (const char *[]){"ideal", "rf", "gradient", "none"}[spoil]);
        if (seq < 2 && dummy) ks_opt(s, "dummy", "%d", dummy);
        if (seq == 2 && shots > 1) ks_opt(s, "shots", "%d", shots);
        if (seq == 2 && order) ks_opt(s, "order", "sequential");
    }
    if (samp > 0) {
        ks_opt(s, "sine-amp", "%g", samp);
        ks_opt(s, "sine-cycles", "%g", scyc);
    }
    ks_opt(s, "coils", "%d", nc);
    ks_opt(s, "per-ring", "%d", per);
    ks_opt(s, "rbody", "%g", rbody);
    ks_arg(s, "k.npy");
    ks_item_put(obj);
    ks_item_put(seqf);

    s = ks_job_tool(j, "coils");
    ks_opt(s, "coils", "%d", nc);
    ks_opt(s, "per-ring", "%d", per);
    ks_opt(s, "rbody", "%g", rbody);
    ks_opt(s, "size", "%lldx%lld", (long long)nx, (long long)ny);
    ks_opt(s, "voxel", "%.6g", voxel * dec);
    ks_opt(s, "coil-norm", "rss");
    ks_arg(s, "maps.npy");

    if (rho > 0) {
        char note[128];
        snprintf(note, sizeof note,
                 "psi.npy: noise covariance Psi_ij = %g^|i-j| (%d x %d), written by the studio",
                 rho, nc, nc);
        ks_job_post(j, ks_mri_psi, note);
    }
    if (noise > 0)
        ks_job_post(j, ks_mri_noise, "noise sigma = the fraction asked x the largest |k|");
    s = ks_job_tool(j, "recon");
    ks_opt(s, "accel", "%d", R);
    if (acs) ks_opt(s, "acs", "%d", acs);
    if (noise > 0) {
        ks_arg(s, "--noise");
        ks_arg_later(s, "noise");
    }
    if (rho > 0) ks_opt(s, "psi", "psi.npy");
    ks_opt(s, "kspace-out", "under.npy");
    ks_opt(s, "combine", "coils");
    ks_arg(s, "k.npy");
    ks_arg(s, "alias.npy");

    s = ks_job_tool(j, "sense");
    ks_opt(s, "maps", "maps.npy");
    ks_arg(s, "k.npy");
    ks_arg(s, "ref.npy");

    if (recon == 0) {
        s = ks_job_tool(j, "recon");
        ks_opt(s, "combine", "optimal");
        ks_opt(s, "maps", "maps.npy");
        if (rho > 0) ks_opt(s, "psi", "psi.npy");
        ks_arg(s, "under.npy");
        ks_arg(s, "recon.npy");
    } else {
        s = ks_job_tool(j, "sense");
        ks_opt(s, "maps", "maps.npy");
        if (rho > 0) ks_opt(s, "psi", "psi.npy");
        if (lambda > 0) ks_opt(s, "lambda", "%g", lambda);
        if (recon == 1) {
            if (all) ks_arg(s, "--all-lines");
            ks_opt(s, "gfactor-out", "g.npy");
        } else {
            ks_arg(s, "--cg");
            ks_opt(s, "iters", "%d", iters);
            ks_arg(s, "-v");
        }
        ks_arg(s, "under.npy");
        ks_arg(s, "recon.npy");
    }

    ks_job_result(j, "k.npy", "k-space", "kspace");
    ks_job_result(j, "maps.npy", "coil maps", "coils");
    ks_job_result(j, "under.npy", "undersampled k-space", "kspace");
    ks_job_result(j, "alias.npy", "aliased coil images", "coils");
    ks_job_result(j, "recon.npy",
                  recon == 0   ? "zero-filled (optimal combination)"
                  : recon == 1 ? "SENSE"
                               : "CG-SENSE",
                  "image");
    ks_job_result(j, "g.npy", "g-factor", "gfactor");
    ks_job_result(j, "ref.npy", "reference (R = 1, no noise)", "image");
    if (rho > 0) ks_job_result(j, "psi.npy", "noise covariance", "psi");
    ks_job_compare(j, "recon.npy", "ref.npy");
    if (recon == 1)
        ks_job_post(j, ks_mri_gstats,
                    "the g-factor's maximum, and its mean and maximum where "
                    "|ref| > 2 % of its largest value");
    return 0;
}

const ks_page ks_page_mri = {"mri", ks_plan_mri};
