/* kray fve: Fourier velocity encoding -- simulate the flow phantom's spiral data, reconstruct
 * single voxels into velocity spectra (data + spectrogram PNG), or reconstruct everything. */
#include "cli.h"
#include "kray/fve.h"
#include "kray/traj.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KC_FVE_MAXVOX 64

/* "<data without extension>.fve.json" */
static void kc_fve_sidecar(const char *data, char *buf, size_t len)
{
    snprintf(buf, len, "%s", data);
    char *dot = strrchr(buf, '.'), *slash = strrchr(buf, '/');
    if (dot && (!slash || dot > slash)) *dot = 0;
    size_t l = strlen(buf);
    snprintf(buf + l, len - l, ".fve.json");
}

/* Pull every "--at V" / "--at=V" out of argv (the parser keeps one value per option). */
static int kc_fve_take_voxels(int *argc, char **argv, double *vox, int *nvox, int *allslices)
{
    int w = 0;
    for (int i = 0; i < *argc; i++) {
        const char *v = NULL;
        if (!strcmp(argv[i], "--at") && i + 1 < *argc) v = argv[++i];
        else if (!strncmp(argv[i], "--at=", 5)) v = argv[i] + 5;
        else {
            argv[w++] = argv[i];
            continue;
        }
        if (*nvox >= KC_FVE_MAXVOX) return kc_usage("fve", "at most %d --at options", KC_FVE_MAXVOX);
        double a[3] = {0, 0, -1};
        char *end = NULL;
        const char *p = v;
        int k = 0;
        for (; k < 3; k++) {
            a[k] = strtod(p, &end);
            if (end == p || !isfinite(a[k])) return kc_usage("fve", "--at '%s' is not x,y or x,y,slice", v);
            p = end;
            if (*p != ',') break;
            p++;
        }
        if (*p || k < 1) return kc_usage("fve", "--at '%s' is not x,y or x,y,slice", v);
        if (k == 2 && (a[2] < 0 || a[2] != floor(a[2])))
            return kc_usage("fve", "--at '%s': the slice must be an index >= 0", v);
        allslices[*nvox] = k < 2;
        vox[3 * *nvox] = a[0], vox[3 * *nvox + 1] = a[1], vox[3 * *nvox + 2] = k < 2 ? 0 : a[2];
        (*nvox)++;
    }
    *argc = w;
    argv[w] = NULL;
    return 0;
}

/* Spectrogram PNG: one panel per voxel side by side, frames along x, velocity up (about 240 x
 * 240 pixels per panel), |P| scaled to each panel's maximum. */
static kr_status kc_fve_png(const char *path, const kr_array *sp)
{
    const int64_t E = sp->dims[0], T = sp->dims[1], V = kr_array_numel(sp) / (E * T), gap = 3;
    const int64_t zx = T < 120 ? 240 / T : 2, zy = E < 120 ? 240 / E : 2;
    int64_t d[2] = {V * (T * zx + gap) - gap, E * zy};
    kr_array *img = NULL;
    kr_status s = kr_array_create(&img, KR_F32, 2, d, KR_HOST, NULL);
    if (s != KR_OK) return s;
    const float *p = (const float *)sp->data;
    float *o = (float *)img->data;
    for (int64_t v = 0; v < V; v++) {
        double mx = 0;
        for (int64_t i = 0; i < E * T; i++) mx = fmax(mx, hypot(p[2 * (i + E * T * v)], p[2 * (i + E * T * v) + 1]));
        for (int64_t t = 0; t < T; t++)
            for (int64_t b = 0; b < E; b++) {
                const float *c = p + 2 * (b + E * (t + T * v));
                float m = mx > 0 ? (float)(hypot(c[0], c[1]) / mx) : 0.0f;
                for (int64_t yy = 0; yy < zy; yy++)
                    for (int64_t xx = 0; xx < zx; xx++) /* row 0 is the top: highest velocity */
                        o[v * (T * zx + gap) + t * zx + xx + d[0] * ((E - 1 - b) * zy + yy)] = m;
            }
    }
    kr_io_opts io;
    kr_io_opts_default(&io);
    io.window_set = 1, io.window_lo = 0, io.window_hi = 1;
    s = kr_write(path, img, &io);
    kr_array_destroy(img);
    return s;
}

int kc_tool_fve(int argc, char **argv)
{
    double vox[3 * KC_FVE_MAXVOX];
    int nvox = 0, allsl[KC_FVE_MAXVOX];
    int r = kc_fve_take_voxels(&argc, argv, vox, &nvox, allsl);
    if (r) return r;
    const char *a1 = NULL, *a2 = NULL, *a3 = NULL, *pp = NULL, *png = NULL, *wp = NULL, *wout = NULL,
               *vdummy = NULL, *dcfs = NULL;
    int sim = 0, full = 0, small = 0, method = -1, dcf = 0;
    double vfov = 0, eps = 1e-4;
    int64_t n = 0, slices = 0, frames = 0, coils = 0, encodes = 0, inter = 0;
    const kc_opt opts[] = {
        {"simulate", 0, KC_FLAG, &sim, NULL, NULL,
         "simulate the flow phantom (arguments: <traj> <kspace>; writes <kspace>.fve.json too)", NULL, 0, 0, NULL},
        {"small", 0, KC_FLAG, &small, NULL, NULL,
         "simulate: the small set (48^2, 2 slices, 16 encodes, 6 frames, 2 coils, 4 interleaves)",
         NULL, 0, 0, NULL},
        {"size", 'n', KC_INT64, &n, NULL, "N", "image matrix N x N (simulate; reconstruction without a sidecar)", NULL, 2, 4096, NULL},
        {"slices", 0, KC_INT64, &slices, NULL, "N", "simulate: slices (5)", NULL, 1, 1000, NULL},
        {"frames", 0, KC_INT64, &frames, NULL, "N", "simulate: cardiac frames (43)", NULL, 1, 10000, NULL},
        {"coils", 'c', KC_INT64, &coils, NULL, "N", "simulate: coils (4)", NULL, 1, 64, NULL},
        {"encodes", 0, KC_INT64, &encodes, NULL, "N", "simulate: velocity encodes (32)", NULL, 1, 4096, NULL},
        {"interleaves", 0, KC_INT64, &inter, NULL, "N", "simulate: spiral interleaves (8)", NULL, 1, 1024, NULL},
        {"vfov", 0, KC_DOUBLE, &vfov, NULL, "CM_S",
         "velocity field of view in cm/s (bins of vfov/encodes; simulate default 200; overrides "
         "the sidecar)", NULL, 1e-9, 1e9, NULL},
        {"params", 0, KC_STRING, &pp, NULL, "FILE",
         "encoding parameters (JSON sidecar); default <kspace>.fve.json when it exists", NULL, 0, 0, NULL},
        {"at", 0, KC_STRING, &vdummy, NULL, "X,Y[,S]",
         "reconstruct this voxel (centred pixel coordinates, index - n/2, fractional allowed; "
         "no slice = every slice); repeat for several", NULL, 0, 0, NULL},
        {"plot-out", 0, KC_STRING, &png, NULL, "FILE", "voxels: spectrogram plot (velocity up, frames across)", NULL, 0, 0, NULL},
        {"full", 0, KC_FLAG, &full, NULL, NULL,
         "reconstruct every slice/encode/frame/coil image (arguments: <traj> <kspace> <images>)", NULL, 0, 0, NULL},
        {"method", 'm', KC_CHOICE, &method, NULL, "M",
         "--full: nufft (default; Kaiser-Bessel, --eps) or drft (exact); --at: drft (default; "
         "exact one-output DrFT) or goertzel (gridding + Goertzel to --eps, CPU)",
         "nufft|drft|goertzel", 0, 0, NULL},
        {"eps", 'e', KC_DOUBLE, &eps, "1e-4", "E", "--full nufft / --at goertzel: requested accuracy", NULL, 1e-6, 0.1, NULL},
        {"dcf", 'w', KC_STRING, &dcfs, "voronoi", "D|FILE",
         "density compensation: voronoi, spiral (analytic), none, or a file of weights "
         "[samples, interleaves]", NULL, 0, 0, NULL},
        {"dcf-out", 0, KC_STRING, &wout, NULL, "FILE",
         "simulate: also write the analytic spiral weights [samples, interleaves]", NULL, 0, 0,
         NULL},
        {"n", 0, KC_ALIAS, NULL, NULL, "size", NULL, NULL, 0, 0, NULL},
        {"png", 0, KC_ALIAS, NULL, NULL, "plot-out", NULL, NULL, 0, 0, NULL},
        {"voxel", 0, KC_RENAMED, NULL, NULL, "--at", "--voxel is a voxel size elsewhere", NULL, 0,
         0, NULL},
        {"weights", 0, KC_RENAMED, NULL, NULL, "--dcf FILE (read) or --dcf-out FILE (simulate)",
         NULL, NULL, 0, 0, NULL},
        {"", 'p', KC_RENAMED, NULL, NULL, "--params", NULL, NULL, 0, 0, NULL},
        {0}};
    const kc_arg args[] = {{"traj", &a1, "trajectory [3, samples, interleaves] (cycles per FOV)", 0},
                           {"kspace", &a2, "k-space c64 [samples, interleaves, slices, encodes, frames, coils]", 0},
                           {"output", &a3, "spectra c64 [velocity bins, frames, voxels] or --full images", 1},
                           {0}};
    const kc_spec spec = {
        "fve",
        "Fourier velocity encoding (spiral FVE). Voxel spectra: each voxel is reconstructed by the\n"
        "one-output DrFT adjoint (1/n^2 sum W d exp(+2 pi i k.x/n)) for every encode, frame and\n"
        "coil; coils are combined with the kv = 0 encode as phase reference; a centred DFT over\n"
        "the encodes (/E) gives the spectrum at v_b = (b - E/2) vfov / E cm/s. Output spectra\n"
        "[bins, frames, voxels] (voxels in --at order, each slice of an x,y voxel in turn).\n"
        "--method goertzel: the voxels by gridding (Kaiser-Bessel, --eps) + Goertzel instead.",
        opts,
        args,
        KC_JSON,
        "Examples:\n  kray fve --simulate --small t.cfl d.cfl\n"
        "  kray fve --at 7,-12 --at 0,-7,1 --plot-out s.png t.cfl d.cfl spectra.npy\n"
        "  kray fve --full --method nufft t.cfl d.cfl images.cfl",
        NULL,
        NULL};
    kc_common c;
    r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    if (sim + full + (nvox > 0) != 1)
        return kc_usage("fve", "give exactly one of --simulate, --full or --at");
    if (sim && a3) return kc_usage("fve", "--simulate takes <traj> <kspace>");
    if (full && method == 2) return kc_usage("fve", "--full takes --method nufft or drft");
    if (nvox > 0 && method == 0) return kc_usage("fve", "--at takes --method drft or goertzel");
    if (full && method < 0) method = 0;
    const int goertzel = nvox > 0 && method == 2;
    if (!sim && !a3) return kc_usage("fve", "give <traj> <kspace> <output>");
    const char *outp = sim ? a2 : a3;
    if ((r = kc_check_output("fve", outp)) != 0) return r;
    if (png && (r = kc_check_output("fve", png)) != 0) return r;
    kr_ctx *ctx = NULL;
    if ((r = kc_make_ctx("fve", &c, &ctx)) != 0) return r;
    kr_status s = KR_OK;
    kr_array *t = NULL, *d = NULL, *w = NULL, *wr = NULL, *img = NULL, *sp = NULL, *dd = NULL, *di = NULL;
    char side[4096];
    double t0 = kr_time_now();
    if (sim) {
        kr_fve_sim_opts o;
        if (small) kr_fve_sim_opts_small(&o);
        else kr_fve_sim_opts_default(&o);
        if (n) o.enc.n = n;
        if (slices) o.slices = slices;
        if (frames) o.frames = frames;
        if (coils) o.coils = (int)coils;
        if (encodes) o.enc.encodes = encodes;
        if (inter) o.interleaves = inter;
        if (vfov > 0) o.enc.vfov_cm_s = vfov;
        s = kr_fve_simulate(ctx, &o, &t, &d, &w);
        if (s == KR_OK) s = kr_traj_write(a1, t);
        if (s == KR_OK) s = kr_write(a2, d, NULL);
        if (s == KR_OK && wout) s = kr_write(wout, w, NULL);
        kc_fve_sidecar(a2, side, sizeof side);
        if (s == KR_OK) s = kr_fve_params_write(pp ? pp : side, &o.enc, &o);
        if (s == KR_OK && c.verbose) {
            char b[128];
            kc_note("fve", "simulated %s %s (c64), trajectory %s, parameters %s (%.2f s)", a2,
                   kr_dims_string(d->ndim, d->dims, b, sizeof b), a1, pp ? pp : side, kr_time_now() - t0);
        }
        goto done;
    }
    /* reconstruction: inputs */
    kr_fve_params par = {0, 0, 0, 0};
    int have_par = 0;
    kc_fve_sidecar(a2, side, sizeof side);
    const char *ppath = pp;
    if (!ppath) {
        FILE *f = fopen(side, "r");
        if (f) fclose(f), ppath = side;
    }
    s = kc_read_traj(a1, &t, KR_F64);
    if (s == KR_OK) s = kc_read(a2, &d, NULL, NULL);
    if (s == KR_OK && d->dtype != KR_C64) {
        kr_array *x = NULL;
        s = kr_array_astype(&x, d, KR_C64);
        kr_array_destroy(d);
        d = x;
    }
    if (s == KR_OK && ppath) {
        s = kr_fve_params_read(ppath, &par);
        have_par = s == KR_OK;
    }
    if (s != KR_OK) goto done;
    if (n) par.n = n;
    if (vfov > 0) par.vfov_cm_s = vfov;
    par.encodes = d->ndim > 3 ? d->dims[3] : 1;
    if (par.n < 2) {
        kr_ctx_destroy(ctx);
        kr_array_destroy(t), kr_array_destroy(d);
        kc_error("fve", "the image size is unknown: give --size or the encoding parameters "
                        "(--params FILE, or %s)", side);
        return KC_EXIT_INPUT;
    }
    if (nvox > 0 && !(par.vfov_cm_s > 0)) {
        kr_ctx_destroy(ctx);
        kr_array_destroy(t), kr_array_destroy(d);
        kc_error("fve", "the velocity axis needs the encoding parameters: give --vfov "
                        "(cm/s) or --params FILE (no %s found)", side);
        return KC_EXIT_INPUT;
    }
    (void)have_par;
    if (!strcmp(dcfs, "voronoi") || !strcmp(dcfs, "spiral") || !strcmp(dcfs, "none"))
        dcf = dcfs[0] == 'v' ? 0 : dcfs[0] == 's' ? 1 : 2;
    else
        wp = dcfs;
    if (wp) {
        s = kc_read(wp, &w, NULL, NULL);
        if (s == KR_OK) s = kr_array_astype(&wr, w, KR_F64);
    } else if (dcf != 2) {
        kr_dcf_opts o;
        kr_dcf_opts_default(&o);
        o.method = dcf == 1 ? KR_DCF_SPIRAL : KR_DCF_VORONOI;
        kr_ctx *cc = NULL;
        s = kr_ctx_create(&cc, KR_BACKEND_CPU);
        if (s == KR_OK) s = kr_dcf(&wr, cc, t, &o, NULL);
        kr_ctx_destroy(cc);
    }
    if (s != KR_OK) goto done;
    kr_loc loc = kr_ctx_backend(ctx) == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
    if (nvox > 0) {
        /* expand x,y voxels over every slice */
        int64_t S = d->ndim > 2 ? d->dims[2] : 1, nv = 0;
        double *vv = malloc((size_t)(nvox * S + 1) * 3 * sizeof(double));
        for (int i = 0; vv && i < nvox; i++)
            for (int64_t sl = 0; sl < (allsl[i] ? S : 1); sl++, nv++)
                vv[3 * nv] = vox[3 * i], vv[3 * nv + 1] = vox[3 * i + 1],
                vv[3 * nv + 2] = allsl[i] ? (double)sl : vox[3 * i + 2];
        int64_t E = par.encodes, T = d->ndim > 4 ? d->dims[4] : 1, C = d->ndim > 5 ? d->dims[5] : 1;
        int64_t id[4] = {E, T, C, nv}, sd[3] = {E, T, nv};
        if (!vv) s = KR_ERR_OOM_HOST;
        /* gridding + Goertzel runs on the CPU (host arrays) whatever the backend */
        kr_ctx *gc = NULL;
        if (goertzel && loc == KR_DEVICE) {
            loc = KR_HOST;
            if (s == KR_OK) s = kr_ctx_create(&gc, KR_BACKEND_CPU);
            if (s == KR_OK && c.threads) s = kr_ctx_set_threads(gc, c.threads);
        }
        const kr_ctx *vc = gc ? gc : ctx;
        if (s == KR_OK) s = kr_array_create(&img, KR_C64, 4, id, loc, ctx);
        if (s == KR_OK) s = kr_array_clone(&dd, d, loc, ctx);
        double t1 = kr_time_now();
        if (s == KR_OK && goertzel)
            s = kr_fve_voxels_gridded(vc, t, wr, dd, par.n, nv, vv, eps, img);
        else if (s == KR_OK)
            s = kr_fve_voxels(ctx, t, wr, dd, par.n, nv, vv, img);
        double t2 = kr_time_now();
        if (s == KR_OK) s = kr_array_clone(&di, img, KR_HOST, ctx);
        if (s == KR_OK) s = kr_array_create(&sp, KR_C64, 3, sd, KR_HOST, NULL);
        if (s == KR_OK) s = kr_fve_spectra(NULL, di, sp);
        if (s == KR_OK) s = kr_write(a3, sp, NULL);
        if (s == KR_OK && png) s = kc_fve_png(png, sp);
        if (s == KR_OK && (c.json || c.verbose)) {
            double bin = par.vfov_cm_s / (double)E;
            if (c.json) {
                kc_jo j;
                kc_jo_begin(&j);
                kc_jo_str(&j, "mode", "voxels");
                kc_jo_int(&j, "voxels", nv);
                kc_jo_int(&j, "bins", E);
                kc_jo_num(&j, "v_min_cm_s", (double)(-(E / 2)) * bin);
                kc_jo_num(&j, "bin_cm_s", bin);
                kc_jo_str(&j, "method", goertzel ? "goertzel" : "drft");
                kc_jo_str(&j, "backend", kr_backend_name(kr_ctx_backend(vc)));
                kc_jo_num(&j, "seconds", t2 - t1);
                kc_jo_end(&j);
            } else {
                kc_note("fve", "%lld voxel(s) x %lld encodes x %lld frames x %lld coils in %.4f s (%s, %s); "
                       "spectra %s, v_b = (b - %lld) x %.4g cm/s",
                       (long long)nv, (long long)E, (long long)T, (long long)C, t2 - t1,
                       goertzel ? "gridding + goertzel" : "drft", kr_backend_name(kr_ctx_backend(vc)),
                       a3, (long long)(E / 2), bin);
            }
        }
        kr_ctx_destroy(gc);
        free(vv);
        goto done;
    }
    /* --full */
    {
        int64_t M = kr_array_numel(t) / 3, B = kr_array_numel(d) / (M > 0 ? M : 1);
        if (d->dims[0] * (d->ndim > 1 ? d->dims[1] : 1) != M) {
            s = KR_ERR_DIM;
            kc_error("fve", "data have %lld samples x interleaves, the trajectory %lld samples",
                    (long long)(d->dims[0] * (d->ndim > 1 ? d->dims[1] : 1)), (long long)M);
            kr_ctx_destroy(ctx);
            kr_array_destroy(t), kr_array_destroy(d), kr_array_destroy(w), kr_array_destroy(wr);
            return KC_EXIT_INPUT;
        }
        /* weighted and scaled copy of the data (1/n^2 so images approximate the object) */
        const double inv = 1.0 / ((double)par.n * (double)par.n);
        float *p = (float *)d->data;
        for (int64_t j = 0; j < B; j++)
            for (int64_t m = 0; m < M; m++) {
                double f = (wr ? ((double *)wr->data)[m] : 1.0) * inv;
                p[2 * (m + M * j)] = (float)(p[2 * (m + M * j)] * f);
                p[2 * (m + M * j) + 1] = (float)(p[2 * (m + M * j) + 1] * f);
            }
        for (int64_t i = 0; i < 2 * M * B; i++)
            if (!isfinite(p[i])) {
                kr_ctx_destroy(ctx);
                kc_error("fve", "data sample %lld is not finite", (long long)(i / 2));
                kr_array_destroy(t), kr_array_destroy(d), kr_array_destroy(w), kr_array_destroy(wr);
                return KC_EXIT_INPUT;
            }
        int64_t od[KR_MAX_DIMS];
        int on = 2;
        od[0] = od[1] = par.n;
        for (int i = 2; i < d->ndim; i++) od[on++] = d->dims[i];
        s = kr_array_create(&img, KR_C64, on, od, loc, ctx);
        if (s == KR_OK) s = kr_array_clone(&dd, d, loc, ctx);
        double t1 = kr_time_now(), t2 = t1;
        if (s == KR_OK && method == 0) {
            kr_nufft_opts no;
            kr_nufft_opts_default(&no);
            no.eps = eps;
            no.batch = B;
            kr_nufft_plan *np = NULL;
            int64_t nd[2] = {par.n, par.n};
            s = kr_nufft_plan_create(&np, ctx, 2, nd, &no);
            if (s == KR_OK) s = kr_nufft_set_points(np, t);
            t1 = kr_time_now();
            if (s == KR_OK) s = kr_nufft_adjoint(np, dd, img);
            if (s == KR_OK && loc == KR_DEVICE) s = kr_array_clone(&di, img, KR_HOST, ctx);
            t2 = kr_time_now();
            kr_nufft_plan_destroy(np);
        } else if (s == KR_OK) {
            kr_drft_plan *dp = NULL;
            int64_t nn[3] = {par.n, par.n, 1};
            s = kr_drft_plan_create(&dp, ctx, nn, t, NULL, NULL);
            /* DrFT image dims [n, n, 1, batch...] */
            kr_array v = *img;
            v.owns = 0;
            v.ndim = on + 1 <= KR_MAX_DIMS ? on + 1 : on;
            for (int i = v.ndim - 1; i > 2; i--) v.dims[i] = v.dims[i - 1];
            v.dims[2] = 1;
            for (int i = 1; i < KR_MAX_DIMS; i++) v.strides[i] = v.strides[i - 1] * v.dims[i - 1];
            t1 = kr_time_now();
            if (s == KR_OK) s = kr_drft_adjoint(dp, dd, &v);
            if (s == KR_OK && loc == KR_DEVICE) s = kr_array_clone(&di, img, KR_HOST, ctx);
            t2 = kr_time_now();
            kr_drft_plan_destroy(dp);
        }
        if (s == KR_OK) s = kr_write(a3, di ? di : img, kc_image_io());
        if (s == KR_OK && (c.json || c.verbose)) {
            if (c.json) {
                kc_jo j;
                kc_jo_begin(&j);
                kc_jo_str(&j, "mode", "full");
                kc_jo_str(&j, "method", method ? "drft" : "nufft");
                kc_jo_int(&j, "columns", B);
                kc_jo_str(&j, "backend", kr_backend_name(kr_ctx_backend(ctx)));
                kc_jo_num(&j, "seconds", t2 - t1);
                kc_jo_end(&j);
            } else {
                char b[128];
                kc_note("fve", "full (%s): wrote %s %s in %.3f s (%s)", method ? "drft" : "nufft", a3,
                       kr_dims_string(on, od, b, sizeof b), t2 - t1, kr_backend_name(kr_ctx_backend(ctx)));
            }
        }
    }
done:
    kr_array_destroy(t), kr_array_destroy(d), kr_array_destroy(w), kr_array_destroy(wr);
    kr_array_destroy(img), kr_array_destroy(sp), kr_array_destroy(dd), kr_array_destroy(di);
    kr_ctx_destroy(ctx);
    return s == KR_OK ? 0 : kc_fail("fve", s);
}
