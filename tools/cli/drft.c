/* kray drft: direct (exact) non-uniform Fourier transform, forward / adjoint / Toeplitz Q, and
 * its benchmark. */
#include "cli.h"
#include "mri_common.h"
#include "kray/drft.h"
#include "mri/drft/drft_bench.h"
#include "kray/traj.h"

#include <stdlib.h>
#include <string.h>

enum { M_ADJOINT, M_FORWARD, M_Q };

/* A view of `a` without a leading singleton (BART k-space [1, samples, ...]). */
static void kc_drop_leading(const kr_array *a, kr_array *v)
{
    *v = *a;
    v->owns = 0;
    if (a->ndim > 1 && a->dims[0] == 1) {
        v->ndim = a->ndim - 1;
        for (int i = 0; i < KR_MAX_DIMS - 1; i++) v->dims[i] = a->dims[i + 1], v->strides[i] = a->strides[i + 1];
        v->dims[KR_MAX_DIMS - 1] = 1;
    }
}

int kc_tool_drft(int argc, char **argv)
{
    const char *tp = NULL, *ip = NULL, *op = NULL, *wp = NULL;
    int fwd = 0, adj = 0, q = 0, two = 0, basis = 0, nocheck = 0, bench = 0, reps = 10, bart = 0;
    int vpt = 0, accurate = 0, norm = 0;
    int64_t batch = 1, check = 64;
    kc_dims dims;
    memset(&dims, 0, sizeof dims);
    const kc_opt opts[] = {
        KC_TRANSFORM_DIR_OPTS(fwd, adj),
        {"q", 0, KC_FLAG, &q, NULL, NULL,
         "Toeplitz kernel Q(x) = sum W phi^2 exp(+2 pi i k.x/n) (arguments: <traj> <output>)",
         NULL, 0, 0, NULL},
        {"twice", '2', KC_FLAG, &two, NULL, NULL, "q: on the 2x grid (origin at n)", NULL, 0, 0,
         NULL},
        {"size", 'n', KC_DIMS, &dims, NULL, "DIMS",
         "image size NxM or NxMxP (adjoint, q, bench; forward takes the input's)", NULL, 1,
         1 << 24, NULL},
        {"dcf", 'w', KC_STRING, &wp, NULL, "FILE",
         "density compensation W (adjoint and q), e.g. from kray dcf", NULL, 0, 0, NULL},
        {"basis", 0, KC_CHOICE, &basis, "dirac", "B",
         "voxel basis phi: dirac (phi = 1) or box (phi = prod sinc(k/n), the Illinois case "
         "study)", "dirac|box", 0, 0, NULL},
        {"normalize", 'N', KC_FLAG, &norm, NULL, NULL,
         "adjoint: divide by nx ny nz, so that the density-compensated adjoint approximates the "
         "image itself", NULL, 0, 0, NULL},
        {"no-check-k", 0, KC_FLAG, &nocheck, NULL, NULL,
         "accept k outside [-n/2, n/2) (periodic in k on the integer grid)", NULL, 0, 0, NULL},
        {"bart", 0, KC_FLAG, &bart, NULL, NULL,
         "forward: write k-space as BART does, [1, samples, ...] (input accepts both)", NULL, 0,
         0, NULL},
        {"accurate", 0, KC_FLAG, &accurate, NULL, NULL,
         "CUDA f32: sincospif instead of the hardware __sincosf", NULL, 0, 0, NULL},
        {"vpt", 0, KC_INT, &vpt, "0", "V", "CUDA: voxels (samples) per thread, 0 = auto", NULL, 0,
         8, NULL},
        KC_TRANSFORM_BENCH_OPTS(bench, reps, batch, check, "samples",
                                "bench: outputs compared with the float64 CPU reference (0 = "
                                "none)"),
        {"", 'b', KC_RENAMED, NULL, NULL, "--basis", NULL, NULL, 0, 0, NULL},
        {0}};
    const kc_arg args[] = {
        {"traj", &tp, "trajectory [3, samples, ...] in cycles per FOV (or random:M with --bench)",
         0},
        {"input", &ip, "image (forward) or k-space (adjoint); the output for --q", 1},
        {"output", &op, "k-space (forward) or image (adjoint)", 1},
        {0}};
    const kc_spec spec = {
        "drft",
        "Direct Fourier transform of non-Cartesian samples, with image origin at n/2 and k in\n"
        "cycles per FOV: forward d_m = phi_m sum_x rho(x) exp(-2 pi i k_m.x/n), adjoint\n"
        "s(x) = sum_m W_m phi_m d_m exp(+2 pi i k_m.x/n), no scaling (on a Cartesian grid: the\n"
        "centred unnormalised DFT; = `bart nufft -s`, and `bart nufft` times sqrt(nx ny nz)).\n"
        "Images are [nx, ny, nz, batch...], k-space [samples..., batch...]. f32 runs a 32-bit\n"
        "fixed-point phase (exact range reduction) with polynomial (CPU) or hardware (CUDA)\n"
        "sine/cosine; --precision f64 is the float64 reference.",
        opts,
        args,
        KC_JSON,
        "Examples:\n  kray dcf t.cfl w.cfl && kray drft -N --dcf w.cfl --size 128x128 t.cfl k.cfl img.cfl\n"
        "  kray drft --forward t.cfl img.cfl k.cfl\n"
        "  kray drft --q --twice --size 64x64x64 t.cfl q.cfl\n"
        "  kray drft --bench --size 64x64x64 --backend cuda random:2048     (Parboil mri-q large)",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    if (fwd + adj + q > 1) return kc_usage("drft", "give one of --forward, --adjoint, --q");
    int mode = fwd ? M_FORWARD : (q ? M_Q : M_ADJOINT);
    if (bench && (ip || op)) return kc_usage("drft", "--bench takes the trajectory only");
    if (!bench && mode == M_Q && (!ip || op)) return kc_usage("drft", "--q takes <traj> <output>");
    if (!bench && mode != M_Q && (!ip || !op))
        return kc_usage("drft", "give <traj> <input> <output>");
    if ((bench || mode != M_FORWARD) && dims.n == 0)
        return kc_usage("drft", "--size (the image size) is needed here");
    if (dims.n > 3) return kc_usage("drft", "--size has %d values; at most 3", dims.n);
    const char *outp = mode == M_Q ? ip : op;
    if (!bench && (r = kc_check_output("drft", outp)) != 0) return r;
    kr_ctx *ctx = NULL;
    if ((r = kc_make_ctx("drft", &c, &ctx)) != 0) return r;
    kr_dtype cdt = c.precision == 1 ? KR_C128 : KR_C64;
    kr_loc loc = kr_ctx_backend(ctx) == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
    int64_t n[3] = {1, 1, 1};
    for (int i = 0; i < dims.n; i++) n[i] = dims.d[i];
    kr_array *t = NULL, *w = NULL, *wr = NULL, *x = NULL, *xc = NULL, *dx = NULL, *dy = NULL,
             *y = NULL;
    kr_drft_plan *p = NULL;
    kr_status s = KR_OK;
    if (!bench || strncmp(tp, "random:", 7) != 0) {
        s = kc_read_traj(tp, &t, KR_F64);
    } else {
        s = kc_random_traj(tp, 3, n, KR_F64, &t);
        if (s != KR_OK) {
            kr_ctx_destroy(ctx);
            return kc_usage("drft", "'%s' is not random:M with M >= 1", tp);
        }
    }
    if (s == KR_OK && mode == M_FORWARD && !bench) {
        s = kc_read(ip, &x, NULL, kc_image_io());
        for (int i = 0; s == KR_OK && i < 3; i++) n[i] = i < x->ndim ? x->dims[i] : 1;
    }
    if (s == KR_OK && wp) {
        s = kc_read(wp, &w, NULL, NULL);
        if (s == KR_OK) s = kr_array_astype(&wr, w, KR_F64); /* real parts */
        if (s == KR_OK && wr->ndim > 1 && wr->dims[0] == 1 && t->ndim > 1 && t->dims[1] != 1) {
            kr_array v;
            kc_drop_leading(wr, &v);
            wr->ndim = v.ndim;
            memcpy(wr->dims, v.dims, sizeof v.dims);
            memcpy(wr->strides, v.strides, sizeof v.strides);
        }
    }
    kr_drft_opts o;
    kr_drft_opts_default(&o);
    o.basis = (kr_drft_basis)basis;
    o.check_k = !nocheck;
    o.fast_sincos = !accurate;
    o.voxels_per_thread = vpt;
    if (s == KR_OK) s = kr_drft_plan_create(&p, ctx, n, t, wr, &o);
    if (s == KR_OK && bench) {
        double sec = 0, err = 0;
        s = kri_drft_bench(p, mode == M_FORWARD, cdt, batch, reps, check, &sec, &err);
        if (s == KR_OK) {
            char dev[256] = "cpu";
            if (loc == KR_DEVICE) kr_cuda_device_name(kr_ctx_device(ctx), dev, sizeof dev);
            double terms = (double)kr_drft_samples(p) * (double)(n[0] * n[1] * n[2]) * (double)batch;
            if (c.json) {
                kc_jo j;
                kc_jo_begin(&j);
                kc_jo_str(&j, "case", mode == M_FORWARD ? "drft-forward" : "drft-adjoint");
                kc_jo_str(&j, "backend", kr_backend_name(kr_ctx_backend(ctx)));
                kc_jo_str(&j, "device", dev);
                kc_jo_str(&j, "dtype", kr_dtype_name(cdt));
                kc_jo_int(&j, "samples", kr_drft_samples(p));
                kc_jo_ints(&j, "dims", 3, n);
                kc_jo_int(&j, "batch", batch);
                kc_jo_num(&j, "seconds", sec);
                kc_jo_num(&j, "terms_per_second", terms / sec);
                kc_jo_num(&j, "rel_err", err);
                kc_jo_end(&j);
            } else {
                printf("drft %s %s on %s: %lld samples x %lldx%lldx%lld voxels x %lld: %.4f ms "
                       "(%.3g terms/s), max error vs float64 / max %.2g\n",
                       mode == M_FORWARD ? "forward" : "adjoint", kr_dtype_name(cdt), dev,
                       (long long)kr_drft_samples(p), (long long)n[0], (long long)n[1],
                       (long long)n[2], (long long)batch, sec * 1e3, terms / sec, err);
            }
        }
        goto done;
    }
    if (s != KR_OK) goto done;
    /* inputs in the compute type and memory */
    if (mode == M_ADJOINT) {
        s = kc_read(ip, &x, NULL, NULL);
        if (s == KR_OK && x->ndim > 1 && x->dims[0] == 1 && t->ndim > 1 && t->dims[1] != 1) {
            kr_array v;
            kc_drop_leading(x, &v);
            x->ndim = v.ndim;
            memcpy(x->dims, v.dims, sizeof v.dims);
            memcpy(x->strides, v.strides, sizeof v.strides);
        }
    }
    if (s == KR_OK && x) s = kr_array_astype(&xc, x, cdt);
    if (s == KR_OK && xc) s = kr_array_clone(&dx, xc, loc, ctx);
    if (s == KR_OK) {
        int64_t od[KR_MAX_DIMS];
        int on = 0;
        if (mode == M_FORWARD) {
            int sd = kr_drft_sample_dims(p, od);
            on = sd;
            for (int i = 3; i < xc->ndim && on < KR_MAX_DIMS; i++) od[on++] = xc->dims[i];
        } else {
            for (int i = 0; i < 3; i++) od[i] = (mode == M_Q && two && n[i] > 1) ? 2 * n[i] : n[i];
            on = 3;
            int sd = kr_drft_sample_dims(p, NULL);
            for (int i = sd; mode == M_ADJOINT && i < xc->ndim && on < KR_MAX_DIMS; i++)
                od[on++] = xc->dims[i];
        }
        s = kr_array_create(&dy, cdt, on, od, loc, ctx);
    }
    double t0 = kr_time_now();
    if (s == KR_OK)
        s = mode == M_FORWARD ? kr_drft_forward(p, dx, dy)
                              : (mode == M_Q ? kr_drft_q(p, dy) : kr_drft_adjoint(p, dx, dy));
    double t1 = kr_time_now();
    if (s == KR_OK) s = kr_array_clone(&y, dy, KR_HOST, ctx);
    if (s == KR_OK && norm && mode == M_ADJOINT)
        s = kc_scale(y, 1.0 / (double)(n[0] * n[1] * n[2]));
    if (s == KR_OK && mode == M_FORWARD && bart && y->ndim < KR_MAX_DIMS) {
        for (int i = y->ndim; i > 0; i--) y->dims[i] = y->dims[i - 1];
        y->dims[0] = 1;
        y->ndim++;
        int64_t st = 1;
        for (int i = 0; i < KR_MAX_DIMS; i++) y->strides[i] = st, st *= y->dims[i];
    }
    if (s == KR_OK) s = kr_write(outp, y, mode == M_FORWARD ? NULL : kc_image_io());
    if (s == KR_OK && (c.json || c.verbose)) {
        char d[128];
        if (c.json) {
            kc_jo j;
            kc_jo_begin(&j);
            kc_jo_str(&j, "mode", mode == M_FORWARD ? "forward" : mode == M_Q ? "q" : "adjoint");
            kc_jo_str(&j, "output", outp);
            kc_jo_str(&j, "backend", kr_backend_name(kr_ctx_backend(ctx)));
            kc_jo_num(&j, "seconds", t1 - t0);
            kc_jo_end(&j);
        } else {
            kc_note("drft", "%s: wrote %s %s in %.3f s (%s)",
                   mode == M_FORWARD ? "forward" : mode == M_Q ? "Q" : "adjoint", outp,
                   kr_dims_string(y->ndim, y->dims, d, sizeof d), t1 - t0,
                   kr_backend_name(kr_ctx_backend(ctx)));
        }
    }
done:
    kr_array_destroy(t), kr_array_destroy(w), kr_array_destroy(wr), kr_array_destroy(x);
    kr_array_destroy(xc), kr_array_destroy(dx), kr_array_destroy(dy), kr_array_destroy(y);
    kr_drft_plan_destroy(p);
    kr_ctx_destroy(ctx);
    return s == KR_OK ? 0 : kc_fail("drft", s);
}
