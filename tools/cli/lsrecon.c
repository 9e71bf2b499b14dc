/* kray lsrecon: single-coil non-Cartesian least-squares reconstruction by CG on the normal
 * equations (F^H W F + lambda I) x = F^H W d, with the normal operator by Toeplitz embedding,
 * NUFFT or the exact DrFT (kray/lsq.h). */
#include "cli.h"
#include "mri_common.h"
#include "kray/linop.h"
#include "kray/lsq.h"
#include "kray/offres.h"
#include "kray/traj.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Read `path` as a complex array of dtype t with exactly `want` elements (kr_read'd arrays of
 * any shape); *out in host memory. */
static kr_status kc_read_complex(const char *path, kr_dtype t, int64_t want, const char *what,
                                 kr_array **out, int *printed, const kr_io_opts *io)
{
    kr_array *a = NULL;
    kr_status s = kc_read(path, &a, NULL, io);
    if (s == KR_OK && kr_array_numel(a) != want) {
        kc_error("lsrecon", "%s '%s' has %lld values, expected %lld", what, path,
                (long long)kr_array_numel(a), (long long)want);
        kr_array_destroy(a);
        *printed = 1;
        return KR_ERR_DIM;
    }
    if (s == KR_OK) s = kr_array_astype(out, a, t);
    kr_array_destroy(a);
    return s;
}

int kc_tool_lsrecon(int argc, char **argv)
{
    const char *tp = NULL, *dp = NULL, *op = NULL, *wp = NULL, *warm = NULL, *hp = NULL;
    const char *fm = NULL, *tsp = NULL;
    int normal = 0, qm = 0, iters = 20, segments = 0, exact = 0;
    double lambda = 0, tol = 1e-6, eps = 0;
    kc_dims dims;
    memset(&dims, 0, sizeof dims);
    const kc_opt opts[] = {
        {"size", 'n', KC_DIMS, &dims, NULL, "DIMS", "image size NxM or NxMxP (required)", NULL,
         1, 1 << 20, NULL},
        {"normal", 0, KC_CHOICE, &normal, "toeplitz", "M",
         "normal operator F^H W F: toeplitz (FFT with Q on the 2x grid), drft (exact direct "
         "sum) or nufft", "toeplitz|drft|nufft", 0, 0, NULL},
        {"q-method", 0, KC_CHOICE, &qm, "nufft", "M",
         "toeplitz: compute Q by an adjoint NUFFT of the weights or by the DrFT", "nufft|drft",
         0, 0, NULL},
        {"lambda", 'l', KC_DOUBLE, &lambda, "0", "L",
         "Tikhonov weight (>= 0): solves (F^H W F + L I) x = F^H W d", NULL, 0, 0, NULL},
        {"iters", 'i', KC_INT, &iters, "20", "N", "maximum CG iterations", NULL, 1, 1000000, NULL},
        {"tol", 't', KC_DOUBLE, &tol, "1e-6", "T",
         "stop when ||b - (A + L I) x|| / ||b|| <= T", NULL, 0, 1, NULL},
        {"init", 0, KC_STRING, &warm, NULL, "FILE", "initial image (warm start)", NULL, 0, 0,
         NULL},
        {"dcf", 'w', KC_STRING, &wp, NULL, "FILE",
         "density compensation weights W (e.g. from kray dcf); default W = 1", NULL, 0, 0, NULL},
        {"eps", 'e', KC_DOUBLE, &eps, "0", "E",
         "NUFFT accuracy (0 = 1e-4 in f32, 1e-9 in f64)", NULL, 0, 0.1, NULL},
        {"history-out", 0, KC_STRING, &hp, NULL, "FILE",
         "write the relative residual after each iteration (entry 0: start) as a real array "
         "(.npy, .cfl, ...)", NULL, 0, 0, NULL},
        {"fieldmap", 0, KC_STRING, &fm, NULL, "FILE",
         "off-resonance field map in Hz, dims of the image (needs --times): CG on the model "
         "exp(-2 pi i (k.x/n + f(x) t)) with the time-segmented operator (--normal ignored)",
         NULL, 0, 0, NULL},
        {"times", 0, KC_STRING, &tsp, NULL, "FILE",
         "sample times in seconds, one per trajectory point (with --fieldmap)", NULL, 0, 0,
         NULL},
        {"segments", 0, KC_INT, &segments, "0", "L",
         "--fieldmap: time segments L (0 = smallest L with interpolation error <= 1e-3 in "
         "f32, 1e-5 in f64)", NULL, 0, 256, NULL},
        {"exact", 0, KC_FLAG, &exact, NULL, NULL,
         "--fieldmap: use the exact direct-sum operator (O(M N) per application)", NULL, 0, 0,
         NULL},
        {"iter", 0, KC_ALIAS, NULL, NULL, "iters", NULL, NULL, 0, 0, NULL},
        {"warm", 0, KC_ALIAS, NULL, NULL, "init", NULL, NULL, 0, 0, NULL},
        {"history", 0, KC_ALIAS, NULL, NULL, "history-out", NULL, NULL, 0, 0, NULL},
        {"dims", 0, KC_RENAMED, NULL, NULL, "--size", "--dims is the size of a raw input", NULL, 0, 0, NULL},
        {"traj", 't', KC_RENAMED, NULL, NULL, "<traj>, the first argument", NULL, NULL, 0, 0, NULL},
        {"data", 'k', KC_RENAMED, NULL, NULL, "<kspace>, the second argument", NULL, NULL, 0, 0, NULL},
        {"", 'd', KC_RENAMED, NULL, NULL, "-n", NULL, NULL, 0, 0, NULL},
        {"q", 0, KC_RENAMED, NULL, NULL, "--q-method", "--q is the Q kernel of kray drft", NULL, 0, 0, NULL},
        {0}};
    const kc_arg args[] = {
        {"traj", &tp, "trajectory [3, samples...] in cycles per FOV", 0},
        {"kspace", &dp, "k-space samples, one per trajectory point", 0},
        {"output", &op, "reconstructed complex image [nx, ny, nz]", 0},
        {0}};
    const kc_spec spec = {
        "lsrecon",
        "Least-squares reconstruction of single-coil non-Cartesian k-space by conjugate\n"
        "gradients on (F^H W F + lambda I) x = F^H W d, where F is the non-uniform DFT\n"
        "(k in cycles per FOV, image origin at n/2, exp(-2 pi i k.x/n), no scaling: the\n"
        "result is in the units of the image whose unnormalised DFT the data are) and W the\n"
        "optional density compensation. Prints the iterations and the residual history.",
        opts,
        args,
        KC_JSON,
        "Examples:\n  kray lsrecon --size 128x128 --iters 30 t.cfl k.cfl x.cfl\n"
        "  kray lsrecon -n 64x64x64 --normal nufft --lambda 10 --history-out h.npy t.cfl k.cfl "
        "x.npy",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    if (dims.n < 2 || dims.n > 3)
        return kc_usage("lsrecon", "--size must be NxM or NxMxP (got %d values)", dims.n);
    if ((r = kc_check_output("lsrecon", op)) != 0) return r;
    if (hp && (r = kc_check_output("lsrecon", hp)) != 0) return r;
    if (!(lambda >= 0))
        return kc_usage("lsrecon", "--lambda is %g; the Tikhonov weight must be >= 0", lambda);
    if ((fm != NULL) != (tsp != NULL))
        return kc_usage("lsrecon", "--fieldmap and --times must be given together");
    if (fm && wp) return kc_usage("lsrecon", "--dcf cannot be combined with --fieldmap");
    kr_ctx *ctx = NULL;
    if ((r = kc_make_ctx("lsrecon", &c, &ctx)) != 0) return r;
    kr_dtype cdt = c.precision == 1 ? KR_C128 : KR_C64;
    kr_loc loc = kr_ctx_backend(ctx) == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
    int64_t n[3] = {dims.d[0], dims.d[1], dims.n > 2 ? dims.d[2] : 1};
    kr_array *t = NULL, *w = NULL, *wr = NULL, *dh = NULL, *dd = NULL, *b = NULL, *x = NULL;
    kr_array *xh = NULL, *hist = NULL;
    kr_lsq_plan *p = NULL;
    kr_linop *N = NULL, *A = NULL;
    kr_array *fmap = NULL, *tms = NULL;
    kr_offres_info oi;
    memset(&oi, 0, sizeof oi);
    double *h = NULL;
    int printed = 0;
    kr_solve_info info;
    memset(&info, 0, sizeof info);
    kr_status s = kc_read_traj(tp, &t, KR_F64);
    if (s == KR_OK && wp) {
        s = kc_read(wp, &w, NULL, NULL);
        if (s == KR_OK) s = kr_array_astype(&wr, w, KR_F64);
    }
    kr_lsq_opts o;
    kr_lsq_opts_default(&o);
    o.dtype = cdt;
    o.normal = normal == 1 ? KR_LSQ_NORMAL_DRFT
                           : (normal == 2 ? KR_LSQ_NORMAL_NUFFT : KR_LSQ_NORMAL_TOEPLITZ);
    o.qmethod = qm ? KR_LSQ_Q_DRFT : KR_LSQ_Q_NUFFT;
    o.eps = eps;
    double t0 = kr_time_now();
    if (s == KR_OK && fm) {
        s = kc_read_real(fm, &fmap, kc_image_io()); /* an image; the times follow the samples */
        if (s == KR_OK) s = kc_read_real(tsp, &tms, NULL);
        kr_offres_opts fo;
        kr_offres_opts_default(&fo);
        fo.dtype = cdt;
        fo.exact = exact;
        fo.segments = segments;
        fo.eps = eps;
        if (s == KR_OK) s = kr_offres_linop_create(&A, ctx, n, t, fmap, tms, &fo, &oi);
    } else if (s == KR_OK) {
        s = kr_lsq_plan_create(&p, ctx, n, t, wr, &o);
    }
    int64_t msamp = s == KR_OK ? kr_array_numel(t) / t->dims[0] : 0;
    if (s == KR_OK) s = kc_read_complex(dp, cdt, msamp, "<kspace>", &dh, &printed, NULL);
    if (s == KR_OK) {
        kr_array v;
        s = kr_array_wrap(&v, cdt, 1, &msamp, dh->data, KR_HOST);
        if (s == KR_OK) s = kr_array_clone(&dd, &v, loc, ctx);
    }
    if (s == KR_OK) s = kr_array_create(&b, cdt, 3, n, loc, ctx);
    if (s == KR_OK) s = kr_array_create(&x, cdt, 3, n, loc, ctx);
    if (s == KR_OK && warm) {
        kr_array *wh = NULL;
        s = kc_read_complex(warm, cdt, n[0] * n[1] * n[2], "--init", &wh, &printed,
                            kc_image_io());
        if (s == KR_OK) {
            kr_array v;
            s = kr_array_wrap(&v, cdt, 3, n, wh->data, KR_HOST);
            if (s == KR_OK) s = kr_array_copy(x, &v, ctx);
        }
        kr_array_destroy(wh);
    }
    if (s == KR_OK && A) {
        s = kr_linop_adjoint(A, dd, b);
        if (s == KR_OK) s = kr_linop_normal_op(&N, A);
    } else if (s == KR_OK) {
        s = kr_lsq_rhs(p, dd, b);
        if (s == KR_OK) s = kr_lsq_normal_linop_create(&N, p);
    }
    if (s == KR_OK && !(h = calloc((size_t)iters + 1, sizeof *h))) s = KR_ERR_OOM_HOST;
    if (s == KR_OK) {
        kr_solve_opts so;
        kr_solve_opts_default(&so);
        so.max_iter = iters;
        so.tol = tol;
        so.lambda = lambda;
        so.warm_start = warm != NULL;
        so.history = h;
        so.show_progress = !c.quiet;
        s = kr_cg(ctx, N, b, x, &so, &info);
    }
    double t1 = kr_time_now();
    if (s == KR_OK) s = kr_array_clone(&xh, x, KR_HOST, ctx);
    if (s == KR_OK) s = kr_write(op, xh, kc_image_io());
    if (s == KR_OK && hp) {
        int64_t hn = info.iterations + 1;
        s = kr_array_create(&hist, KR_F64, 1, &hn, KR_HOST, NULL);
        if (s == KR_OK) memcpy(hist->data, h, (size_t)hn * sizeof *h);
        if (s == KR_OK) s = kr_write(hp, hist, NULL);
    }
    if (s == KR_OK) {
        const char *mn = fm ? (exact ? "offres-exact" : "offres-segmented")
                            : (normal == 1 ? "drft" : (normal == 2 ? "nufft" : "toeplitz"));
        if (c.json) {
            kc_jo j;
            kc_jo_begin(&j);
            kc_jo_str(&j, "normal", mn);
            kc_jo_int(&j, "iterations", info.iterations);
            kc_jo_bool(&j, "converged", info.converged);
            kc_jo_num(&j, "rel_residual", info.rel_residual);
            if (fm) {
                kc_jo_int(&j, "segments", oi.segments);
                kc_jo_num(&j, "interp_err", oi.interp_err);
            }
            kc_jo_num(&j, "seconds", t1 - t0);
            kc_jo_nums(&j, "history", info.iterations + 1, h);
            kc_jo_end(&j);
        } else if (c.verbose) {
            kc_note("lsrecon", "%s normal operator, %d iterations, relative residual %.3g (%s), "
                   "%.3f s",
                   mn, info.iterations, info.rel_residual,
                   info.converged ? "converged" : "not converged", t1 - t0);
            if (fm && !exact)
                kc_note("lsrecon", "field map %.4g..%.4g Hz, times %.4g..%.4g ms: %d segments, "
                       "interpolation error %.3g",
                       oi.f_min, oi.f_max, 1e3 * oi.t_min, 1e3 * oi.t_max, oi.segments,
                       oi.interp_err);
        }
        if (!info.converged)
            kc_note("lsrecon", "warning: CG did not reach --tol %g in %d iterations "
                    "(relative residual %.3g); wrote the last iterate (CG's error in the "
                    "energy norm decreases monotonically, so it is the best one)",
                    tol, info.iterations, info.rel_residual);
    }
    free(h);
    kr_linop_destroy(N);
    kr_linop_destroy(A);
    kr_array_destroy(fmap);
    kr_array_destroy(tms);
    kr_lsq_plan_destroy(p);
    kr_array_destroy(t);
    kr_array_destroy(w);
    kr_array_destroy(wr);
    kr_array_destroy(dh);
    kr_array_destroy(dd);
    kr_array_destroy(b);
    kr_array_destroy(x);
    kr_array_destroy(xh);
    kr_array_destroy(hist);
    kr_ctx_destroy(ctx);
    if (printed) return KC_EXIT_INPUT;
    return s == KR_OK ? 0 : kc_fail("lsrecon", s);
}
