/* kray nufft: non-uniform FFT (forward / adjoint) of files, and its benchmark. */
#include "cli.h"
#include "mri_common.h"
#include "kray/nufft.h"
#include "kray/traj.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Direct sums in float64 for `check` outputs spread over the output (the reference of the
 * benchmark): relative l2 error of `out` (host, c64/c128) over those entries. */
static double kc_nufft_check(int forward, int nd, const int64_t *n, const kr_array *t,
                             const kr_array *in, const kr_array *out, int64_t check)
{
    int64_t M = kr_array_numel(t) / 3, nimg = n[0] * n[1] * n[2];
    int64_t nout = forward ? M : nimg;
    const float *k = (const float *)t->data;
    int dbl = in->dtype == KR_C128;
    double e2 = 0, r2 = 0;
    if (check > nout) check = nout;
    for (int64_t c = 0; c < check; c++) {
        int64_t o = (int64_t)((double)c * (double)nout / (double)check);
        double sr = 0, si = 0;
        if (forward) { /* y_o = sum_x f(x) exp(-2 pi i k_o . x / n) */
            for (int64_t i = 0; i < nimg; i++) {
                int64_t x[3] = {i % n[0], (i / n[0]) % n[1], i / (n[0] * n[1])};
                double ph = 0;
                for (int d = 0; d < nd; d++)
                    ph += (double)k[3 * o + d] * (double)(x[d] - n[d] / 2) / (double)n[d];
                double cr = cos(-2 * M_PI * ph), ci = sin(-2 * M_PI * ph);
                double fr = dbl ? ((const double *)in->data)[2 * i] : ((const float *)in->data)[2 * i];
                double fi = dbl ? ((const double *)in->data)[2 * i + 1]
                                : ((const float *)in->data)[2 * i + 1];
                sr += fr * cr - fi * ci;
                si += fr * ci + fi * cr;
            }
        } else { /* f_o = sum_m y_m exp(+2 pi i k_m . x_o / n) */
            int64_t x[3] = {o % n[0], (o / n[0]) % n[1], o / (n[0] * n[1])};
            for (int64_t m = 0; m < M; m++) {
                double ph = 0;
                for (int d = 0; d < nd; d++)
                    ph += (double)k[3 * m + d] * (double)(x[d] - n[d] / 2) / (double)n[d];
                double cr = cos(2 * M_PI * ph), ci = sin(2 * M_PI * ph);
                double yr = dbl ? ((const double *)in->data)[2 * m] : ((const float *)in->data)[2 * m];
                double yi = dbl ? ((const double *)in->data)[2 * m + 1]
                                : ((const float *)in->data)[2 * m + 1];
                sr += yr * cr - yi * ci;
                si += yr * ci + yi * cr;
            }
        }
        double ar = dbl ? ((const double *)out->data)[2 * o] : ((const float *)out->data)[2 * o];
        double ai = dbl ? ((const double *)out->data)[2 * o + 1]
                        : ((const float *)out->data)[2 * o + 1];
        e2 += (ar - sr) * (ar - sr) + (ai - si) * (ai - si);
        r2 += sr * sr + si * si;
    }
    return r2 > 0 ? sqrt(e2 / r2) : 0.0;
}

/* Fill a host array with uniform values in [-1, 1) (fixed seed). */
static void kc_nufft_fill(kr_array *a)
{
    int64_t n = 2 * kr_array_numel(a);
    uint64_t z = 0x2545F4914F6CDD1Dull;
    for (int64_t i = 0; i < n; i++) {
        z ^= z << 13, z ^= z >> 7, z ^= z << 17;
        double u = (double)(z >> 11) / 4503599627370496.0 - 1.0;
        if (a->dtype == KR_C64)
            ((float *)a->data)[i] = (float)u;
        else
            ((double *)a->data)[i] = u;
    }
}

static kr_status kc_nufft_bench(kr_ctx *ctx, const kc_common *c, int forward, int nd,
                                const int64_t *n, const kr_array *t, const kr_nufft_opts *o,
                                int reps, int64_t check)
{
    kr_loc loc = kr_ctx_backend(ctx) == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
    int64_t M = kr_array_numel(t) / 3, B = o->batch;
    int64_t kd[2] = {M, B}, id[4] = {n[0], n[1], n[2], B};
    id[nd] = B;
    kr_array *hin = NULL, *din = NULL, *dout = NULL, *hout = NULL;
    kr_nufft_plan *p = NULL;
    double tp0 = kr_time_now(), tp1 = 0, tp2 = 0, best = INFINITY, sum = 0;
    kr_status s = kr_nufft_plan_create(&p, ctx, nd, n, o);
    if (s == KR_OK) {
        tp1 = kr_time_now();
        s = kr_nufft_set_points(p, t);
        tp2 = kr_time_now();
    }
    if (s == KR_OK) s = forward ? kr_array_create(&hin, o->dtype, nd + 1, id, KR_HOST, NULL)
                                : kr_array_create(&hin, o->dtype, 2, kd, KR_HOST, NULL);
    if (s == KR_OK) {
        kc_nufft_fill(hin);
        s = kr_array_clone(&din, hin, loc, ctx);
    }
    if (s == KR_OK) s = forward ? kr_array_create(&dout, o->dtype, 2, kd, loc, ctx)
                                : kr_array_create(&dout, o->dtype, nd + 1, id, loc, ctx);
    /* warm-up (plans, caches), synchronised by the copy of the output */
    if (s == KR_OK) s = forward ? kr_nufft_forward(p, din, dout) : kr_nufft_adjoint(p, din, dout);
    if (s == KR_OK) s = kr_array_clone(&hout, dout, KR_HOST, ctx);
    if (loc == KR_DEVICE && !o->check_finite) {
        /* asynchronous calls: reps back to back, then a one-element copy to wait for them (its
         * own cost, timed alone after the stream is idle, is subtracted) */
        kr_array one, *tmp = NULL;
        int64_t d1[1] = {1};
        if (s == KR_OK) s = kr_array_wrap(&one, o->dtype, 1, d1, dout->data, KR_DEVICE);
        one.device = dout->device;
        double a = kr_time_now();
        for (int r = 0; r < reps && s == KR_OK; r++)
            s = forward ? kr_nufft_forward(p, din, dout) : kr_nufft_adjoint(p, din, dout);
        if (s == KR_OK) s = kr_array_clone(&tmp, &one, KR_HOST, ctx);
        double b = kr_time_now();
        kr_array_destroy(tmp);
        tmp = NULL;
        if (s == KR_OK) s = kr_array_clone(&tmp, &one, KR_HOST, ctx);
        double c2 = kr_time_now();
        kr_array_destroy(tmp);
        best = fmax((b - a) - (c2 - b), 0.0) / reps;
        sum = best * reps;
    } else {
        /* host calls, and device calls with the finiteness check, return when done */
        for (int r = 0; r < reps && s == KR_OK; r++) {
            double a = kr_time_now();
            s = forward ? kr_nufft_forward(p, din, dout) : kr_nufft_adjoint(p, din, dout);
            double b = kr_time_now();
            best = fmin(best, b - a);
            sum += b - a;
        }
    }
    if (s == KR_OK) {
        kr_nufft_info in;
        kr_nufft_plan_info(p, &in);
        double err = check > 0 ? kc_nufft_check(forward, nd, n, t, hin, hout, check) : NAN;
        double sec = best, mean = sum / reps;
        char dev[256] = "cpu";
        if (loc == KR_DEVICE) kr_cuda_device_name(kr_ctx_device(ctx), dev, sizeof dev);
        if (c->json) {
            kc_jo j;
            kc_jo_begin(&j);
            kc_jo_str(&j, "case", forward ? "nufft-forward" : "nufft-adjoint");
            kc_jo_str(&j, "backend", kr_backend_name(kr_ctx_backend(ctx)));
            kc_jo_str(&j, "device", dev);
            kc_jo_int(&j, "threads", kr_ctx_threads(ctx));
            kc_jo_str(&j, "dtype", kr_dtype_name(o->dtype));
            kc_jo_int(&j, "ndim", nd);
            kc_jo_ints(&j, "dims", 3, n);
            kc_jo_int(&j, "samples", M);
            kc_jo_int(&j, "batch", B);
            kc_jo_num(&j, "eps", o->eps);
            kc_jo_int(&j, "width", in.width);
            kc_jo_num(&j, "sigma", in.sigma);
            kc_jo_ints(&j, "grid", 3, in.grid);
            kc_jo_num(&j, "plan_seconds", tp1 - tp0);
            kc_jo_num(&j, "set_points_seconds", tp2 - tp1);
            kc_jo_num(&j, "seconds", sec);
            kc_jo_num(&j, "mean_seconds", mean);
            kc_jo_num(&j, "points_per_second", (double)M * (double)B / sec);
            kc_jo_num(&j, "rel_err", err);
            kc_jo_int(&j, "check", check);
            kc_jo_int(&j, "check_finite", o->check_finite);
            kc_jo_end(&j);
        } else {
            printf("nufft %s %s on %s: %lld points x %lld, image %lldx%lldx%lld, eps %g (w %d, "
                   "grid %lldx%lldx%lld): plan %.2f ms, set_points %.2f ms, transform %.4f ms "
                   "(best of %d; mean %.4f ms), rel. l2 error vs direct sums on %lld outputs "
                   "%.2g\n",
                   forward ? "forward" : "adjoint", kr_dtype_name(o->dtype), dev, (long long)M,
                   (long long)B, (long long)n[0], (long long)n[1], (long long)n[2], o->eps,
                   in.width, (long long)in.grid[0], (long long)in.grid[1], (long long)in.grid[2],
                   (tp1 - tp0) * 1e3, (tp2 - tp1) * 1e3, sec * 1e3, reps, mean * 1e3,
                   (long long)check, err);
        }
    }
    kr_array_destroy(hin), kr_array_destroy(din), kr_array_destroy(dout), kr_array_destroy(hout);
    kr_nufft_plan_destroy(p);
    return s;
}

int kc_tool_nufft(int argc, char **argv)
{
    const char *tp = NULL, *ip = NULL, *op = NULL, *wp = NULL, *save = NULL;
    int fwd = 0, adj = 0, width = 0, bench = 0, reps = 10, bart = 0, bscale = 0, nocheck = 0,
        norm = 0;
    double eps = 1e-4, sigma = 2.0;
    int64_t batch = 1, check = 64;
    kc_dims dims;
    memset(&dims, 0, sizeof dims);
    const kc_opt opts[] = {
        KC_TRANSFORM_DIR_OPTS(fwd, adj),
        {"size", 'n', KC_DIMS, &dims, NULL, "DIMS",
         "image size NxM or NxMxP, kray's [nx, ny, nz] (BART's -d ny:nx:nz); needed for "
         "--bench. Unless given: forward from the input ([nx, ny] or [nx, ny, 1, batch...] = "
         "2-D, [nx, ny, nz > 1, ...] = 3-D), adjoint from the trajectory as BART does: "
         "n = 2 ceil(max |k|) per axis, 1 where k is 0 (then 2-D)", NULL, 2,
         1 << 20, NULL},
        {"eps", 'e', KC_DOUBLE, &eps, "1e-4", "E",
         "requested relative l2 accuracy (1e-6 .. 0.1 in f32, down to 1e-14 with --precision f64)",
         NULL, 1e-14, 0.1, NULL},
        {"sigma", 0, KC_DOUBLE, &sigma, "2", "S",
         "grid oversampling (1.25 .. 3; smaller grids raise the f32 accuracy floor)", NULL, 1.25,
         3, NULL},
        {"width", 0, KC_INT, &width, "0", "W", "kernel width in grid cells, 0 = from --eps",
         NULL, 0, 16, NULL},
        {"dcf", 'w', KC_STRING, &wp, NULL, "FILE",
         "adjoint: multiply the samples by these real weights first (density compensation, e.g. "
         "from kray dcf)", NULL, 0, 0, NULL},
        {"no-check-finite", 0, KC_FLAG, &nocheck, NULL, NULL,
         "skip the NaN/Inf check of the input (as --allow-nonfinite; on the GPU the check reads "
         "back one flag per call)",
         NULL, 0, 0, NULL},
        {"normalize", 'N', KC_FLAG, &norm, NULL, NULL,
         "adjoint: divide by nx ny nz, so that the density-compensated adjoint approximates the "
         "image itself (as kray drft -N)", NULL, 0, 0, NULL},
        {"bart-scale", 0, KC_FLAG, &bscale, NULL, NULL,
         "divide by sqrt(nx ny nz) as `bart nufft` does (both directions)", NULL, 0, 0, NULL},
        {"bart", 0, KC_FLAG, &bart, NULL, NULL,
         "forward: write k-space as BART does, [1, samples, ...] (input accepts both)", NULL, 0, 0,
         NULL},
        KC_TRANSFORM_BENCH_OPTS(bench, reps, batch, check, "points",
                                "bench: outputs compared with float64 direct sums (0 = none)"),
        {"traj-out", 0, KC_STRING, &save, NULL, "FILE",
         "bench: also write the trajectory used (e.g. random:M) for a peer (cuFINUFFT)", NULL, 0,
         0, NULL},
        {"save-traj", 0, KC_ALIAS, NULL, NULL, "traj-out", NULL, NULL, 0, 0, NULL},
        {"", 'W', KC_RENAMED, NULL, NULL, "-w", NULL, NULL, 0, 0, NULL},
        {"", 's', KC_RENAMED, NULL, NULL, "--sigma", NULL, NULL, 0, 0, NULL},
        {0}};
    const kc_arg args[] = {
        {"traj", &tp, "trajectory [3, samples, ...] in cycles per FOV (or random:M with --bench)",
         0},
        {"input", &ip, "image (forward) or k-space (adjoint)", 1},
        {"output", &op, "k-space (forward) or image (adjoint)", 1},
        {0}};
    const kc_spec spec = {
        "nufft",
        "Non-uniform FFT (Kaiser-Bessel gridding on a sigma-oversampled grid, FFT, exact\n"
        "deapodisation) with the DrFT's conventions: image origin at n/2, k in cycles per FOV,\n"
        "forward y_m = sum_x f(x) exp(-2 pi i k_m.x/n), adjoint f(x) = sum_m y_m exp(+2 pi i\n"
        "k_m.x/n), no scaling (`bart nufft` = this / sqrt(nx ny nz): --bart-scale). Accurate to\n"
        "--eps (relative l2) against the direct sums. Images are [nx, ny, (nz,) batch...], k-space\n"
        "[samples..., batch...] (BART's [1, samples, ...] too); f64 with --precision f64.",
        opts,
        args,
        KC_JSON,
        "Examples:\n"
        "  kray traj -x 256 -y 402 -o 2 t.cfl && kray nufft t.cfl k.cfl img.cfl\n"
        "  kray nufft --forward --eps 1e-6 t.cfl img.cfl k.cfl\n"
        "  kray nufft --bench --json --size 128x128x128 --eps 1e-6 --backend cuda random:2100000",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    if (nocheck) kc_set_allow_nonfinite(1);
    if (fwd && adj) return kc_usage("nufft", "give one of --forward, --adjoint");
    if (bench && (ip || op)) return kc_usage("nufft", "--bench takes the trajectory only");
    if (!bench && (!ip || !op)) return kc_usage("nufft", "give <traj> <input> <output>");
    if (bench && dims.n == 0) return kc_usage("nufft", "--bench needs --size (the image size)");
    if (dims.n != 0 && dims.n != 2 && dims.n != 3)
        return kc_usage("nufft", "--size has %d values; give 2 or 3", dims.n);
    if (wp && fwd) return kc_usage("nufft", "--dcf applies to the adjoint only");
    if (norm && fwd) return kc_usage("nufft", "--normalize applies to the adjoint only");
    if (!bench && (r = kc_check_output("nufft", op)) != 0) return r;
    if (save && (r = kc_check_output("nufft", save)) != 0) return r;
    kr_ctx *ctx = NULL;
    /* several MPI processes: the plan divides its batch members over them (docs/scaling.md) */
    if ((r = bench ? kc_make_ctx("nufft", &c, &ctx) : kc_make_dist_ctx("nufft", &c, &ctx)) != 0)
        return r;
    kr_dtype cdt = c.precision == 1 ? KR_C128 : KR_C64;
    kr_loc loc = kr_ctx_backend(ctx) == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
    int64_t n[3] = {1, 1, 1};
    int nd = dims.n;
    for (int i = 0; i < dims.n; i++) n[i] = dims.d[i];
    kr_array *t = NULL, *x = NULL, *xc = NULL, *w = NULL, *wr = NULL, *dx = NULL, *dy = NULL,
             *y = NULL;
    kr_nufft_plan *p = NULL;
    kr_status s = KR_OK;
    kr_nufft_opts o;
    kr_nufft_opts_default(&o);
    o.dtype = cdt;
    o.eps = eps;
    o.sigma = sigma;
    o.width = width;
    o.batch = bench ? batch : 1;
    o.check_finite = !nocheck && !c.allow_nonfinite;
    if (!bench || strncmp(tp, "random:", 7) != 0) {
        s = kc_read_traj(tp, &t, KR_F32);
    } else if (kc_random_traj(tp, nd, n, KR_F32, &t) != KR_OK) {
        kr_ctx_destroy(ctx);
        return kc_usage("nufft", "'%s' is not random:M with M >= 1", tp);
    }
    if (s == KR_OK && save) {
        kr_array *tc = NULL;
        s = kr_array_astype(&tc, t, KR_C64); /* BART layout: coordinates in the real parts */
        if (s == KR_OK) s = kr_write(save, tc, NULL);
        kr_array_destroy(tc);
    }
    if (s == KR_OK && bench) {
        s = kc_nufft_bench(ctx, &c, fwd, nd, n, t, &o, reps, check);
        goto done;
    }
    if (s == KR_OK && !fwd && dims.n == 0) { /* BART's rule: 2 ceil(max |k|) per axis */
        double km[3];
        s = kr_traj_extent(t, km, NULL);
        for (int i = 0; s == KR_OK && i < 3; i++) n[i] = km[i] > 0 ? 2 * (int64_t)ceil(km[i]) : 1;
        nd = n[2] > 1 ? 3 : 2;
    }
    if (s != KR_OK) goto done;
    s = kc_read(ip, &x, NULL, fwd ? kc_image_io() : NULL);
    if (s == KR_OK) s = kr_array_astype(&xc, x, cdt);
    int64_t M = kr_array_numel(t) / t->dims[0];
    if (s == KR_OK && fwd && dims.n == 0) {
        /* [nx, ny] or [nx, ny, 1, batch...] is 2-D, [nx, ny, nz > 1, batch...] 3-D */
        nd = xc->ndim >= 3 && xc->dims[2] > 1 ? 3 : 2;
        for (int i = 0; i < nd; i++) n[i] = i < xc->ndim ? xc->dims[i] : 1;
    }
    /* batch = what is left after the image (forward) or the samples (adjoint); shapes that do
     * not divide are reported by the library with the exact dims */
    int64_t unit = fwd ? n[0] * n[1] * n[2] : M, tot = s == KR_OK ? kr_array_numel(xc) : 0;
    o.batch = unit > 0 && tot % unit == 0 && tot >= unit ? tot / unit : 1;
    if (s == KR_OK && wp) {
        s = kc_read(wp, &w, NULL, NULL);
        if (s == KR_OK) s = kr_array_astype(&wr, w, KR_F64);
        if (s == KR_OK && kr_array_numel(wr) != M) {
            char d[128];
            kr_clear_error();
            kc_error("nufft", "weights %s have %s values, the trajectory has %lld "
                            "samples", wp, kr_dims_string(wr->ndim, wr->dims, d, sizeof d),
                    (long long)M);
            s = KR_ERR_DIM;
            r = KC_EXIT_INPUT;
            goto done_noreport;
        }
        for (int64_t b = 0; s == KR_OK && b < o.batch; b++)
            for (int64_t m = 0; m < M; m++) {
                double f = ((const double *)wr->data)[m];
                if (cdt == KR_C64) {
                    float *v = (float *)xc->data + 2 * (b * M + m);
                    v[0] = (float)(v[0] * f), v[1] = (float)(v[1] * f);
                } else {
                    double *v = (double *)xc->data + 2 * (b * M + m);
                    v[0] *= f, v[1] *= f;
                }
            }
    }
    if (s == KR_OK) s = kr_nufft_plan_create(&p, ctx, nd, n, &o);
    if (s == KR_OK) s = kr_nufft_set_points(p, t);
    if (s == KR_OK) s = kr_array_clone(&dx, xc, loc, ctx);
    if (s == KR_OK) {
        int64_t od[KR_MAX_DIMS];
        int on = 0;
        if (fwd) {
            if (bart) od[on++] = 1;
            for (int i = 1; i < t->ndim && on < KR_MAX_DIMS - 1; i++) od[on++] = t->dims[i];
            if (o.batch > 1) od[on++] = o.batch;
        } else {
            for (int i = 0; i < nd; i++) od[on++] = n[i];
            if (o.batch > 1) {
                if (nd == 2) od[on++] = 1; /* BART's [nx, ny, 1, coils] */
                od[on++] = o.batch;
            }
        }
        s = kr_array_create(&dy, cdt, on, od, loc, ctx);
    }
    double t0 = kr_time_now();
    if (s == KR_OK) s = fwd ? kr_nufft_forward(p, dx, dy) : kr_nufft_adjoint(p, dx, dy);
    if (s == KR_OK) s = kr_array_clone(&y, dy, KR_HOST, ctx);
    double t1 = kr_time_now();
    if (s == KR_OK && (bscale || (norm && !fwd))) {
        const double nn = (double)(n[0] * n[1] * n[2]);
        s = kc_scale(y, (bscale ? 1.0 / sqrt(nn) : 1.0) * (norm && !fwd ? 1.0 / nn : 1.0));
    }
    if (s == KR_OK) s = kc_write(op, y, fwd ? NULL : kc_image_io());
    if (s == KR_OK && (c.json || c.verbose)) {
        char d[128];
        kr_nufft_info in;
        kr_nufft_plan_info(p, &in);
        if (c.json) {
            kc_jo j;
            kc_jo_begin(&j);
            kc_jo_str(&j, "mode", fwd ? "forward" : "adjoint");
            kc_jo_str(&j, "output", op);
            kc_jo_str(&j, "backend", kr_backend_name(kr_ctx_backend(ctx)));
            kc_jo_int(&j, "width", in.width);
            kc_jo_num(&j, "seconds", t1 - t0);
            kc_jo_end(&j);
        } else {
            kc_note("nufft", "%s: wrote %s %s in %.3f s (%s, eps %g, kernel width %d)",
                   fwd ? "forward" : "adjoint", op, kr_dims_string(y->ndim, y->dims, d, sizeof d),
                   t1 - t0, kr_backend_name(kr_ctx_backend(ctx)), eps, in.width);
        }
    }
done:
    r = s == KR_OK ? 0 : kc_fail("nufft", s);
done_noreport:
    kr_array_destroy(t), kr_array_destroy(x), kr_array_destroy(xc), kr_array_destroy(w);
    kr_array_destroy(wr), kr_array_destroy(dx), kr_array_destroy(dy), kr_array_destroy(y);
    kr_nufft_plan_destroy(p);
    kr_ctx_destroy(ctx);
    return r;
}
