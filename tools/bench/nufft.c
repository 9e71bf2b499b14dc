/* kray bench nufft: NUFFT timings and accuracy per case, direction, backend and eps, with peers
 * on the same points (BART `nufft` on the CPU, FINUFFT through bench/peer_finufft.py on the CPU,
 * cuFINUFFT through bench/peer_cufinufft.py on a GPU machine), each peer's settings swept.
 * Accuracy is the relative l2 error over `check` outputs spread over the output, against float64
 * direct sums computed here once per case; kray and the peers are scored on the same entries. */
#include "bench.h"

#include "kray/nufft.h"
#include "kray/traj.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct kc_ncase {
    const char *name;
    int nd;
    int64_t n[3];
    kr_array *traj; /* f32 [3, M] */
    int64_t M;
    kr_array *y, *f; /* c64 inputs: samples [M, B], image [n, B] (host) */
    int64_t nchk;
    int64_t *idx_a, *idx_f;   /* checked outputs: image elements, samples (member 0) */
    double *ref_a, *ref_f;    /* their direct sums (re, im) */
} kc_ncase;

static uint64_t kc_xs(uint64_t *z)
{
    *z ^= *z << 13, *z ^= *z >> 7, *z ^= *z << 17;
    return *z;
}

static void kc_fill(kr_array *a, uint64_t seed)
{
    int64_t n = 2 * kr_array_numel(a);
    uint64_t z = seed;
    for (int64_t i = 0; i < n; i++)
        ((float *)a->data)[i] = (float)((double)(kc_xs(&z) >> 11) / 4503599627370496.0 - 1.0);
}

/* Checked output q of n: the golden-ratio sequence frac((q + 1/2) / phi) spreads them over the
 * whole output. (Evenly spaced indices of an image all fall on one column at its edge, where
 * the deapodisation makes the error largest, and would score low upsampling too harshly.) */
static int64_t kc_checked(int64_t q, int64_t n)
{
    double f = fmod(((double)q + 0.5) * 0.61803398874989485, 1.0);
    int64_t i = (int64_t)(f * (double)n);
    return i < n ? i : n - 1;
}

/* Direct sums for the checked outputs of both directions (batch member 0). */
static void kc_references(kc_ncase *c)
{
    const float *k = c->traj->data, *y = c->y->data, *f = c->f->data;
    const int64_t *n = c->n, nimg = n[0] * n[1] * n[2];
    for (int64_t q = 0; q < c->nchk; q++) {
        int64_t o = c->idx_a[q];
        int64_t x[3] = {o % n[0], (o / n[0]) % n[1], o / (n[0] * n[1])};
        double sr = 0, si = 0;
        for (int64_t m = 0; m < c->M; m++) {
            double ph = 0;
            for (int d = 0; d < c->nd; d++)
                ph += (double)k[3 * m + d] * (double)(x[d] - n[d] / 2) / (double)n[d];
            double cr = cos(2 * M_PI * ph), ci = sin(2 * M_PI * ph);
            sr += y[2 * m] * cr - y[2 * m + 1] * ci;
            si += y[2 * m] * ci + y[2 * m + 1] * cr;
        }
        c->ref_a[2 * q] = sr, c->ref_a[2 * q + 1] = si;
        int64_t mm = c->idx_f[q];
        sr = si = 0;
        for (int64_t i = 0; i < nimg; i++) {
            int64_t xx[3] = {i % n[0], (i / n[0]) % n[1], i / (n[0] * n[1])};
            double ph = 0;
            for (int d = 0; d < c->nd; d++)
                ph += (double)k[3 * mm + d] * (double)(xx[d] - n[d] / 2) / (double)n[d];
            double cr = cos(2 * M_PI * ph), ci = -sin(2 * M_PI * ph);
            sr += f[2 * i] * cr - f[2 * i + 1] * ci;
            si += f[2 * i] * ci + f[2 * i + 1] * cr;
        }
        c->ref_f[2 * q] = sr, c->ref_f[2 * q + 1] = si;
    }
}

static double kc_score(const kc_ncase *c, int forward, const float *out, double scale)
{
    const int64_t *idx = forward ? c->idx_f : c->idx_a;
    const double *ref = forward ? c->ref_f : c->ref_a;
    double e = 0, r = 0;
    for (int64_t q = 0; q < c->nchk; q++) {
        double ar = scale * out[2 * idx[q]], ai = scale * out[2 * idx[q] + 1];
        e += (ar - ref[2 * q]) * (ar - ref[2 * q]) + (ai - ref[2 * q + 1]) * (ai - ref[2 * q + 1]);
        r += ref[2 * q] * ref[2 * q] + ref[2 * q + 1] * ref[2 * q + 1];
    }
    return r > 0 ? sqrt(e / r) : NAN;
}

static kr_status kc_make_case(kc_ncase *c, const char *name, int64_t B, int64_t nchk)
{
    memset(c, 0, sizeof *c);
    c->name = name;
    kr_status s = KR_OK;
    if (!strcmp(name, "radial2d")) { /* 256^2, 402 spokes x 512 samples (2x readout) */
        c->nd = 2, c->n[0] = c->n[1] = 256, c->n[2] = 1;
        kr_radial_opts o;
        kr_radial_opts_default(&o);
        o.samples = 256, o.oversampling = 2, o.spokes = 402;
        kr_array *t = NULL;
        s = kr_traj_radial(&t, &o);
        if (s == KR_OK) {
            int64_t d[2] = {3, kr_array_numel(t) / 3};
            s = kr_array_create(&c->traj, KR_F32, 2, d, KR_HOST, NULL);
            if (s == KR_OK) memcpy(c->traj->data, t->data, kr_array_bytes(c->traj));
        }
        kr_array_destroy(t);
    } else { /* random3d: 128^3, 2.1e6 uniform points */
        c->nd = 3, c->n[0] = c->n[1] = c->n[2] = 128;
        int64_t d[2] = {3, 2100000};
        s = kr_array_create(&c->traj, KR_F32, 2, d, KR_HOST, NULL);
        uint64_t z = 0x9E3779B97F4A7C15ull;
        for (int64_t i = 0; s == KR_OK && i < 3 * d[1]; i++)
            ((float *)c->traj->data)[i] =
                (float)(((double)(kc_xs(&z) >> 11) / 9007199254740992.0 - 0.5) * 128.0);
    }
    if (s != KR_OK) return s;
    c->M = kr_array_numel(c->traj) / 3;
    int64_t kd[2] = {c->M, B}, id[4] = {c->n[0], c->n[1], c->n[2], B};
    id[c->nd] = B;
    s = kr_array_create(&c->y, KR_C64, 2, kd, KR_HOST, NULL);
    if (s == KR_OK) s = kr_array_create(&c->f, KR_C64, c->nd + 1, id, KR_HOST, NULL);
    if (s != KR_OK) return s;
    kc_fill(c->y, 11);
    kc_fill(c->f, 12);
    int64_t nimg = c->n[0] * c->n[1] * c->n[2];
    c->nchk = nchk;
    c->idx_a = calloc((size_t)nchk + 1, sizeof(int64_t));
    c->idx_f = calloc((size_t)nchk + 1, sizeof(int64_t));
    c->ref_a = calloc(2 * (size_t)nchk + 1, sizeof(double));
    c->ref_f = calloc(2 * (size_t)nchk + 1, sizeof(double));
    if (!c->idx_a || !c->idx_f || !c->ref_a || !c->ref_f) return KR_ERR_OOM_HOST;
    for (int64_t q = 0; q < nchk; q++) {
        c->idx_a[q] = kc_checked(q, nimg);
        c->idx_f[q] = kc_checked(q, c->M);
    }
    kc_references(c);
    return KR_OK;
}

static void kc_free_case(kc_ncase *c)
{
    kr_array_destroy(c->traj), kr_array_destroy(c->y), kr_array_destroy(c->f);
    free(c->idx_a), free(c->idx_f), free(c->ref_a), free(c->ref_f);
}

static void kc_emit2(int json, const kc_ncase *c, const char *dir, const char *impl,
                     const char *backend, double eps, double target, int width, double sigma,
                     int64_t B, double setpts, double setpts_first, double sec, double mean,
                     double err, const char *note);

static void kc_emit(int json, const kc_ncase *c, const char *dir, const char *impl,
                    const char *backend, double eps, int width, int64_t B, double setpts,
                    double sec, double mean, double err, const char *note)
{
    kc_emit2(json, c, dir, impl, backend, eps, NAN, width, NAN, B, setpts, NAN, sec, mean, err,
             note);
}

/* A run with its target accuracy and the first set_points call apart. */
static void kc_emit2(int json, const kc_ncase *c, const char *dir, const char *impl,
                     const char *backend, double eps, double target, int width, double sigma,
                     int64_t B, double setpts, double setpts_first, double sec, double mean,
                     double err, const char *note)
{
    if (json) {
        kc_jo j;
        kc_jo_begin(&j);
        kc_jo_str(&j, "bench", "nufft");
        kc_jo_str(&j, "case", c->name);
        kc_jo_str(&j, "direction", dir);
        kc_jo_str(&j, "impl", impl);
        kc_jo_str(&j, "backend", backend);
        kc_jo_ints(&j, "dims", 3, c->n);
        kc_jo_int(&j, "points", c->M);
        kc_jo_int(&j, "batch", B);
        kc_jo_num(&j, "eps", eps);
        if (!isnan(target)) kc_jo_num(&j, "target_eps", target);
        kc_jo_int(&j, "width", width);
        if (!isnan(sigma)) kc_jo_num(&j, "sigma", sigma);
        kc_jo_num(&j, "set_points_s", setpts);
        if (!isnan(setpts_first)) kc_jo_num(&j, "set_points_first_s", setpts_first);
        kc_jo_num(&j, "min_s", sec);
        kc_jo_num(&j, "mean_s", mean);
        kc_jo_num(&j, "rel_err", err);
        kc_jo_int(&j, "checked", c->nchk);
        kc_jo_str(&j, "note", note);
        kc_jo_end(&j);
    } else {
        char sg[24] = "";
        if (!isnan(sigma)) snprintf(sg, sizeof sg, " sigma %g", sigma);
        printf("%-9s %-8s %-10s %-6s eps %-7.0e w %2d%s  set_points %8.3f ms  min %9.4f ms  "
               "mean %9.4f ms  rel.err %.2e %s\n",
               c->name, dir, impl, backend, eps, width, sg, setpts * 1e3, sec * 1e3, mean * 1e3,
               err, note ? note : "");
    }
    fflush(stdout);
}

typedef struct kc_res {
    int ok;
    double eps, sigma, min_s, mean_s, err, setpts;
} kc_res;

/* One kray run: plan, set_points (the first call, then the best of 5 more on the same plan, the
 * trajectory where the backend computes), warm-up, reps timed calls (synchronous through the
 * finiteness check, the library default), score on the checked outputs. */
static kc_res kc_run_kray(int json, kc_ncase *c, int forward, kr_backend be, int threads,
                          double eps, double sigma, double target, int64_t B, int reps)
{
    kc_res res = {0, eps, sigma, NAN, NAN, NAN, NAN};
    kr_ctx *ctx = NULL;
    kr_nufft_plan *p = NULL;
    kr_array *din = NULL, *dout = NULL, *hout = NULL, *tr = NULL;
    const char *dir = forward ? "forward" : "adjoint";
    kr_status s = kr_ctx_create(&ctx, be);
    if (s == KR_OK && threads > 0) s = kr_ctx_set_threads(ctx, threads);
    kr_loc loc = be == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
    kr_nufft_opts o;
    kr_nufft_opts_default(&o);
    o.eps = eps;
    o.sigma = sigma;
    o.batch = B;
    double first = 0, sp = INFINITY, best = INFINITY, sum = 0;
    if (s == KR_OK) s = kr_nufft_plan_create(&p, ctx, c->nd, c->n, &o);
    if (s == KR_OK) s = kr_array_clone(&tr, c->traj, loc, ctx);
    for (int r = 0; r < 6 && s == KR_OK; r++) {
        double t0 = kr_time_now();
        s = kr_nufft_set_points(p, tr);
        double t1 = kr_time_now();
        if (r == 0) first = t1 - t0;
        else sp = fmin(sp, t1 - t0);
    }
    const kr_array *in = forward ? c->f : c->y, *outl = forward ? c->y : c->f;
    if (s == KR_OK) s = kr_array_clone(&din, in, loc, ctx);
    if (s == KR_OK) s = kr_array_create(&dout, KR_C64, outl->ndim, outl->dims, loc, ctx);
    for (int r = -1; r < reps && s == KR_OK; r++) {
        double a = kr_time_now();
        s = forward ? kr_nufft_forward(p, din, dout) : kr_nufft_adjoint(p, din, dout);
        double b = kr_time_now();
        if (r >= 0) best = fmin(best, b - a), sum += b - a;
    }
    if (s == KR_OK) s = kr_array_clone(&hout, dout, KR_HOST, ctx);
    if (s == KR_OK) {
        kr_nufft_info in2;
        kr_nufft_plan_info(p, &in2);
        res = (kc_res){1, eps, sigma, best, sum / reps, kc_score(c, forward, hout->data, 1.0),
                       sp};
        kc_emit2(json, c, dir, "kray", kr_backend_name(be), eps, target, in2.width, sigma, B, sp,
                 first, best, sum / reps, res.err, NULL);
    } else {
        fprintf(stderr, "kray bench nufft: %s %s on %s, eps %g, sigma %g: skipped: %s\n", c->name,
                dir, kr_backend_name(be), eps, sigma, kr_last_error());
    }
    kr_array_destroy(din), kr_array_destroy(dout), kr_array_destroy(hout), kr_array_destroy(tr);
    kr_nufft_plan_destroy(p);
    kr_ctx_destroy(ctx);
    return res;
}

/* kray at eps = target x each factor and each grid oversampling; its setting: the fastest
 * whose error is at most the target (the most accurate when none is). */
static kc_res kc_kray_sweep(int json, kc_ncase *c, int forward, kr_backend be, int threads,
                            double target, const kc_list *fac, const kc_list *sig, int64_t B,
                            int reps)
{
    kc_res win = {0, NAN, NAN, NAN, NAN, NAN, NAN};
    for (int i = 0; i < fac->n * sig->n; i++) {
        double e = target * fac->v[i % fac->n];
        if (e < 1e-6 || e > 0.1) continue; /* outside what a c64 plan accepts */
        kc_res r = kc_run_kray(json, c, forward, be, threads, e, sig->v[i / fac->n], target, B,
                               reps);
        if (!r.ok) continue;
        int rok = r.err <= target, wok = win.ok && win.err <= target;
        if (!win.ok || (rok && (!wok || r.min_s < win.min_s)) || (!rok && !wok && r.err < win.err))
            win = r;
    }
    return win;
}

static int kc_write_raw(const char *path, const void *data, size_t bytes)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = fwrite(data, 1, bytes, f);
    return (fclose(f) == 0 && w == bytes) ? 0 : -1;
}

/* BART `nufft -P` (periodic k-space, its most accurate mode) on the 2-D case: whole-process
 * time (reads and writes .cfl), scored after multiplying by sqrt(nx ny). */
static void kc_run_bart(int json, kc_ncase *c, int forward, const char *tmp, int reps)
{
    char cmd[4096], tp[1024], ip[1024], op[1024];
    snprintf(tp, sizeof tp, "%s/bn_traj", tmp);
    snprintf(ip, sizeof ip, "%s/bn_in", tmp);
    snprintf(op, sizeof op, "%s/bn_out", tmp);
    kr_array *tc = NULL, *out = NULL;
    char tpc[1100], ipc[1100], opc[1100];
    snprintf(tpc, sizeof tpc, "%s.cfl", tp);
    snprintf(ipc, sizeof ipc, "%s.cfl", ip);
    snprintf(opc, sizeof opc, "%s.cfl", op);
    kr_array view;
    int64_t kd[2] = {1, c->M};
    kr_status s = kr_array_astype(&tc, c->traj, KR_C64);
    if (s == KR_OK) s = kr_write(tpc, tc, NULL);
    if (s == KR_OK) {
        if (forward) {
            int64_t id[2] = {c->n[0], c->n[1]};
            s = kr_array_wrap(&view, KR_C64, 2, id, c->f->data, KR_HOST);
        } else {
            s = kr_array_wrap(&view, KR_C64, 2, kd, c->y->data, KR_HOST);
        }
    }
    if (s == KR_OK) s = kr_write(ipc, &view, NULL);
    kr_array_destroy(tc);
    if (s != KR_OK) {
        fprintf(stderr, "kray bench nufft: bart peer: %s\n", kr_last_error());
        return;
    }
    snprintf(cmd, sizeof cmd, "bart nufft %s -P -d %lld:%lld:1 '%s' '%s' '%s' >/dev/null 2>&1",
             forward ? "" : "-a", (long long)c->n[0], (long long)c->n[1], tp, ip, op);
    double best = INFINITY, sum = 0;
    for (int r = 0; r < reps; r++) {
        double a = kr_time_now();
        if (system(cmd) != 0) {
            fprintf(stderr, "kray bench nufft: bart peer failed: %s\n", cmd);
            return;
        }
        double b = kr_time_now();
        best = fmin(best, b - a), sum += b - a;
    }
    if (kr_read(opc, &out, NULL, NULL) != KR_OK) return;
    double sc = sqrt((double)(c->n[0] * c->n[1]));
    kc_emit(json, c, forward ? "forward" : "adjoint", "bart", "cpu", NAN, 0, 1, NAN, best,
            sum / reps, kc_score(c, forward, out->data, sc),
            "bart nufft -P, whole process incl. file I/O");
    kr_array_destroy(out);
}

/* A NUFFT peer through its script (bench/peer_cufinufft.py, bench/peer_finufft.py): same points
 * and data (raw files), the same checked outputs and their direct sums; the script sweeps its
 * settings and reports the fastest one whose error is at most `target` (kray's). Its sweep lines
 * are passed on (JSON mode); then one line for the winner, and one "match" line beside kray's
 * setting. */
static void kc_nufft_run_peer(int json, kc_ncase *c, int forward, const char *peer,
                              const char *be, const char *py, const char *script, const char *tmp,
                              double eps, const kc_res *k, int threads, int reps)
{
    char tp[600], yp[600], fp[600], ip[600], rp[600], outp[600], cmd[8192], line[4096] = "";
    snprintf(tp, sizeof tp, "%.500s/pn_traj.f32", tmp);
    snprintf(yp, sizeof yp, "%.500s/pn_y.c64", tmp);
    snprintf(fp, sizeof fp, "%.500s/pn_f.c64", tmp);
    snprintf(ip, sizeof ip, "%.500s/pn_idx.i64", tmp);
    snprintf(rp, sizeof rp, "%.500s/pn_ref.c128", tmp);
    int64_t nimg = c->n[0] * c->n[1] * c->n[2];
    const int64_t *idx = forward ? c->idx_f : c->idx_a;
    const double *ref = forward ? c->ref_f : c->ref_a;
    if (kc_write_raw(tp, c->traj->data, (size_t)c->M * 3 * sizeof(float)) ||
        kc_write_raw(yp, c->y->data, (size_t)c->M * 2 * sizeof(float)) ||
        kc_write_raw(fp, c->f->data, (size_t)nimg * 2 * sizeof(float)) ||
        kc_write_raw(ip, idx, (size_t)c->nchk * sizeof(int64_t)) ||
        kc_write_raw(rp, ref, (size_t)c->nchk * 2 * sizeof(double))) {
        fprintf(stderr, "kray bench nufft: cannot write the peer's inputs in %s\n", tmp);
        return;
    }
    snprintf(outp, sizeof outp, "%s/pn_out.c64", tmp);
    snprintf(cmd, sizeof cmd,
             "PYTHONUNBUFFERED=1 %.500s '%.2100s' --traj '%s' --y '%s' --f '%s' --idx '%s' "
             "--ref '%s' --dims %lld %lld %lld --ndim %d --direction %s --eps %g "
             "--target-err %.17g --threads %d --reps %d --out '%s' 2>&1",
             py, script, tp, yp, fp, ip, rp, (long long)c->n[0], (long long)c->n[1],
             (long long)c->n[2], c->nd, forward ? "forward" : "adjoint", eps,
             k->ok ? k->err : eps, threads, reps, outp);
    FILE *p = popen(cmd, "r");
    char buf[4096];
    while (p && fgets(buf, sizeof buf, p)) {
        if (buf[0] != '{') continue;
        if (strstr(buf, "\"winner\"")) snprintf(line, sizeof line, "%s", buf);
        else if (json)
            printf("{\"bench\": \"nufft\", \"case\": \"%s\", \"direction\": \"%s\", "
                   "\"target_eps\": %g, \"peer_sweep\": %.*s}\n", c->name,
                   forward ? "forward" : "adjoint", eps, (int)strcspn(buf, "\n"), buf);
    }
    int rc = p ? pclose(p) : -1;
    const char *mn = strstr(line, "\"min_s\":"), *me = strstr(line, "\"mean_s\":"),
               *sp = strstr(line, "\"setpts_s\":"), *sf = strstr(line, "\"setpts_first_s\":"),
               *ss = strstr(line, "\"setting_str\": \""), *re = strstr(line, "\"reached\": true");
    if (rc != 0 || !mn || !me) {
        fprintf(stderr, "kray bench nufft: %s peer failed (exit %d): %s", peer, rc,
                line[0] ? line : "no output\n");
        return;
    }
    /* the peer's API of the timed calls ("python", or its C functions through ctypes) and,
     * for C calls, the Python API's time beside them */
    const char *ap = strstr(line, "\"api\": \""), *pm = strstr(line, "\"py_min_s\":");
    char api[96] = "python";
    if (ap) snprintf(api, sizeof api, "%.*s", (int)strcspn(ap + 8, "\""), ap + 8);
    char setting[512] = "?";
    if (ss) {
        ss += 16;
        size_t n = strcspn(ss, "\"");
        snprintf(setting, sizeof setting, "%.*s", (int)(n < 500 ? n : 500), ss);
    }
    /* the peer writes the winner's checked outputs (c64, in idx order): score them here */
    float *vals = calloc(2 * (size_t)c->nchk + 2, sizeof(float));
    FILE *f = fopen(outp, "rb");
    size_t got = f && vals ? fread(vals, sizeof(float), 2 * (size_t)c->nchk, f) : 0;
    if (f) fclose(f);
    double e = 0, r = 0;
    for (int64_t q = 0; got == 2 * (size_t)c->nchk && q < c->nchk; q++) {
        double dr = vals[2 * q] - ref[2 * q], di = vals[2 * q + 1] - ref[2 * q + 1];
        e += dr * dr + di * di;
        r += ref[2 * q] * ref[2 * q] + ref[2 * q + 1] * ref[2 * q + 1];
    }
    free(vals);
    double pmin = strtod(mn + 8, NULL), psp = sp ? strtod(sp + 11, NULL) : NAN;
    char note[700];
    snprintf(note, sizeof note, "%s at kray's error %.2e: %s", re ? "fastest setting" :
             "no setting reached kray's error; most accurate", k->ok ? k->err : eps, setting);
    kc_emit2(json, c, forward ? "forward" : "adjoint", peer, be, eps, eps, 0, NAN, 1, psp,
             sf ? strtod(sf + 17, NULL) : NAN, pmin, strtod(me + 9, NULL),
             r > 0 ? sqrt(e / r) : NAN, note);
    if (!k->ok) return;
    if (json) {
        kc_jo j;
        kc_jo_begin(&j);
        kc_jo_str(&j, "bench", "nufft");
        kc_jo_str(&j, "match", peer);
        kc_jo_str(&j, "case", c->name);
        kc_jo_str(&j, "direction", forward ? "forward" : "adjoint");
        kc_jo_str(&j, "backend", be);
        kc_jo_num(&j, "target_eps", eps);
        kc_jo_num(&j, "kray_eps", k->eps);
        kc_jo_num(&j, "kray_sigma", k->sigma);
        kc_jo_num(&j, "kray_rel_err", k->err);
        kc_jo_num(&j, "kray_min_s", k->min_s);
        kc_jo_num(&j, "kray_set_points_s", k->setpts);
        kc_jo_str(&j, "peer_setting", setting);
        kc_jo_int(&j, "peer_reached", re != NULL);
        kc_jo_num(&j, "peer_min_s", pmin);
        kc_jo_num(&j, "peer_setpts_s", psp);
        kc_jo_str(&j, "peer_api", api);
        if (pm && pm[11 + strspn(pm + 11, " ")] != 'n')
            kc_jo_num(&j, "peer_py_min_s", strtod(pm + 11, NULL));
        kc_jo_num(&j, "kray_lead", pmin / k->min_s);
        kc_jo_num(&j, "kray_set_points_lead", psp / k->setpts);
        kc_jo_end(&j);
    } else {
        printf("  => %s %s %s eps %.0e: kray (eps %.0e) %.4f ms vs %s %.4f ms (%s): %.2fx; "
               "set_points %.3f vs %.3f ms: %.2fx\n", c->name, forward ? "forward" : "adjoint",
               be, eps, k->eps, k->min_s * 1e3, peer, pmin * 1e3, setting, pmin / k->min_s,
               k->setpts * 1e3, psp * 1e3, psp / k->setpts);
    }
    fflush(stdout);
}

/* The peer script `name` in --peer-dir, $KRAY_SRC/bench or ./bench, usable by --python when
 * `module` imports. */
static int kc_find_peer(char *script, size_t n, const char *name, const char *module,
                        const char *peer_dir, const char *py)
{
    script[0] = 0;
    const char *cand[3] = {peer_dir, getenv("KRAY_SRC"), "."};
    for (int i = 0; i < 3 && !script[0]; i++) {
        if (!cand[i]) continue;
        snprintf(script, n, i == 0 ? "%s/%s" : "%s/bench/%s", cand[i], name);
        if (access(script, R_OK) != 0) script[0] = 0;
    }
    if (!script[0]) return 0;
    char probe[2300];
    snprintf(probe, sizeof probe, "%s -c 'import %s' >/dev/null 2>&1", py, module);
    return system(probe) == 0;
}

int kc_bench_nufft(int argc, char **argv)
{
    const char *cases = "radial2d,random3d", *dirs = "adjoint,forward", *backends = "auto";
    const char *peers = "auto", *py = "python3", *peer_dir = NULL, *tmpd = "/tmp";
    kc_list eps, fac, sig;
    memset(&eps, 0, sizeof eps);
    memset(&fac, 0, sizeof fac);
    memset(&sig, 0, sizeof sig);
    int reps = 10, peer_reps = 5, threads = 0;
    int64_t batch = 1, check = 64;
    const kc_opt opts[] = {
        {"cases", 0, KC_STRING, &cases, "radial2d,random3d", "LIST",
         "radial2d (256^2, 402 spokes x 512 samples), random3d (128^3, 2.1e6 random points)",
         NULL, 0, 0, NULL},
        {"directions", 0, KC_STRING, &dirs, "adjoint,forward", "LIST", "adjoint, forward", NULL, 0,
         0, NULL},
        {"eps", 'e', KC_LIST, &eps, "1e-3,1e-6", "LIST", "requested accuracies", NULL, 1e-14, 0.1,
         NULL},
        {"eps-factors", 0, KC_LIST, &fac, "1,2,5", "LIST",
         "kray runs at eps = target x each factor; the fastest within the target is its setting",
         NULL, 1, 1000, NULL},
        {"sigmas", 0, KC_LIST, &sig, "2,1.25", "LIST",
         "kray's grid oversampling factors (kr_nufft_opts.sigma) swept with the eps factors",
         NULL, 1.25, 3, NULL},
        {"backends", 0, KC_STRING, &backends, "auto", "LIST",
         "cpu, cuda (auto: cpu, and cuda when a GPU is usable)", NULL, 0, 0, NULL},
        {"batch", 0, KC_INT64, &batch, "1", "B", "kray: batch members (coils) per call", NULL, 1,
         1024, NULL},
        {"reps", 0, KC_INT, &reps, "10", "N", "timed calls (after one warm-up)", NULL, 1, 1e6,
         NULL},
        {"check", 0, KC_INT64, &check, "64", "N", "outputs scored against float64 direct sums",
         NULL, 1, 1 << 20, NULL},
        {"peers", 0, KC_STRING, &peers, "auto", "LIST",
         "bart (CPU, radial2d), finufft (CPU), cufinufft (GPU), none; auto: those available",
         NULL, 0, 0, NULL},
        {"peer-reps", 0, KC_INT, &peer_reps, "5", "N", "timed repetitions of each peer", NULL, 1,
         1000, NULL},
        {"python", 0, KC_STRING, &py, "python3", "PY",
         "interpreter with finufft, or cufinufft (and torch or cupy)", NULL, 0, 0, NULL},
        {"peer-dir", 0, KC_STRING, &peer_dir, NULL, "DIR",
         "directory of the peer scripts (default: $KRAY_SRC/bench, ./bench)", NULL, 0, 0, NULL},
        {"tmp", 0, KC_STRING, &tmpd, "/tmp", "DIR", "scratch directory for peer files", NULL, 0, 0,
         NULL},
        {0}};
    const kc_spec spec = {
        "bench nufft",
        "NUFFT timings and accuracy: cases x directions x backends x target eps, kray and its\n"
        "peers on the same points and data: FINUFFT (bench/peer_finufft.py, --threads threads)\n"
        "beside the CPU backend, cuFINUFFT (bench/peer_cufinufft.py) beside the CUDA one, BART\n"
        "`nufft -P` on the CPU for the 2-D case. kray runs at eps = target x --eps-factors on\n"
        "grids oversampled by each of --sigmas; its setting is the fastest with an error within\n"
        "the target. Each peer sweeps its own settings (precision, method, upsampling, sorting,\n"
        "its eps) and reports the fastest one whose error is at most kray's; a \"match\" line\n"
        "(JSON) gives both settings and the ratios. Times are the best and the mean of --reps\n"
        "calls that return when the result is complete (GPU calls include the finiteness\n"
        "check's one-flag read-back; data on the device); set_points (peers: setpts) is the best\n"
        "of repeated calls on one plan, the trajectory where the backend computes, the first\n"
        "call apart. Errors: relative l2 over --check outputs (spread over the whole output)\n"
        "against float64 direct sums. --threads sets the CPU threads.",
        opts,
        NULL,
        KC_JSON,
        "Examples:\n  kray bench nufft --cases radial2d --backends cpu --threads 2\n"
        "  kray bench nufft --json --backends cuda --python /opt/venv/bin/python3 > nufft.jsonl",
        NULL,
        NULL};
    kc_common cm;
    int r = kc_parse(&spec, &cm, argc, argv);
    if (r) return r < 0 ? 0 : r;
    static const char *const names[2] = {"radial2d", "random3d"}, *const dnames[2] = {
        "adjoint", "forward"};
    if ((r = kc_bench_list_check("bench nufft", "cases", cases, names, 2)) != 0 ||
        (r = kc_bench_list_check("bench nufft", "directions", dirs, dnames, 2)) != 0)
        return r;
    threads = cm.threads;
    int ndev = 0, gpu = kr_cuda_device_count(&ndev) == KR_OK && ndev > 0;
    int auto_be = !strcmp(backends, "auto");
    int use_cpu = auto_be || kc_bench_has(backends, "cpu");
    int use_gpu = (auto_be && gpu) || kc_bench_has(backends, "cuda");
    int pa = !strcmp(peers, "auto");
    int use_bart = (pa || kc_bench_has(peers, "bart")) && use_cpu &&
                   system("command -v bart >/dev/null 2>&1") == 0;
    char cf_script[2048], ff_script[2048];
    int use_cf = (pa || kc_bench_has(peers, "cufinufft")) && use_gpu &&
                 kc_find_peer(cf_script, sizeof cf_script, "peer_cufinufft.py", "cufinufft",
                              peer_dir, py);
    int use_ff = (pa || kc_bench_has(peers, "finufft")) && use_cpu &&
                 kc_find_peer(ff_script, sizeof ff_script, "peer_finufft.py", "finufft", peer_dir,
                              py);
    if (kc_bench_has(peers, "cufinufft") && !use_cf)
        fprintf(stderr, "kray bench nufft: cufinufft peer unavailable (%s)\n",
                !use_gpu ? "no GPU" : "bench/peer_cufinufft.py not found or cufinufft not "
                "importable by --python");
    if (kc_bench_has(peers, "finufft") && !use_ff)
        fprintf(stderr, "kray bench nufft: finufft peer unavailable (bench/peer_finufft.py not "
                "found or finufft not importable by --python)\n");
    if (fac.n == 0) fac.n = 3, fac.v[0] = 1, fac.v[1] = 2, fac.v[2] = 5;
    if (sig.n == 0) sig.n = 2, sig.v[0] = 2, sig.v[1] = 1.25;
    if (eps.n == 0) eps.n = 2, eps.v[0] = 1e-3, eps.v[1] = 1e-6;
    if (!cm.json) {
        char cpu[256], gname[256];
        kc_bench_machine(cpu, sizeof cpu, gname, sizeof gname);
        printf("kray bench nufft: CPU %s; GPU %s\n", cpu, gname);
    }
    for (int ci = 0; ci < 2; ci++) {
        if (!kc_bench_has(cases, names[ci])) continue;
        kc_ncase c;
        kr_status s = kc_make_case(&c, names[ci], batch, check);
        if (s != KR_OK) {
            kc_free_case(&c);
            return kc_fail("bench nufft", s);
        }
        for (int fw = 0; fw < 2; fw++) {
            if (!kc_bench_has(dirs, fw ? "forward" : "adjoint")) continue;
            for (int e = 0; e < eps.n; e++) {
                const double te = eps.v[e];
                if (use_cpu) {
                    kc_res k = kc_kray_sweep(cm.json, &c, fw, KR_BACKEND_CPU, threads, te, &fac,
                                             &sig, batch, reps);
                    if (use_ff)
                        kc_nufft_run_peer(cm.json, &c, fw, "finufft", "cpu", py, ff_script,
                                          tmpd, te, &k, threads, peer_reps);
                }
                if (use_gpu) {
                    kc_res k = kc_kray_sweep(cm.json, &c, fw, KR_BACKEND_CUDA, 0, te, &fac, &sig,
                                             batch, reps);
                    if (use_cf)
                        kc_nufft_run_peer(cm.json, &c, fw, "cufinufft", "cuda", py, cf_script,
                                          tmpd, te, &k, 0, peer_reps);
                }
            }
            if (use_bart && c.nd == 2) kc_run_bart(cm.json, &c, fw, tmpd, peer_reps);
        }
        kc_free_case(&c);
    }
    return 0;
}
