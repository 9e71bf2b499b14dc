/* kray bench: benchmark programs (`kray bench <name> [options]`). Benchmarks are programs, not
 * tests: they print a table (or JSON lines with --json) and may run peers in the same run. */
#include "internal.h"
#include "bench.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct kc_bench {
    const char *name, *summary;
    int (*main)(int argc, char **argv);
} kc_bench;

static const kc_bench kc_benches[] = {
    {"fbp2d",
     "2-D FBP battery: phantoms and a real CT slice, every backend and precision, "
     "accuracy, peers (scikit-image iradon, ASTRA FBP_CUDA)",
     kc_bench_fbp2d},
    {"nufft",
     "NUFFT: 2-D radial and 3-D random points, adjoint and forward, per eps and backend, "
     "accuracy vs direct sums, peers (BART nufft, FINUFFT, cuFINUFFT; tuned)",
     kc_bench_nufft},
    {"lsq",
     "least squares MRI: Q (Toeplitz set-up), F^H W d and the normal operators at 128^3 / "
     "2.1e6 samples (--small: CPU smoke size)",
     kc_bench_lsq},
    {"cgsense",
     "CG-SENSE 300^2, 12 coils, 49,200 radial samples, 10 iterations, CPU and GPU end to end; "
     "peer bart pics -l2",
     kc_bench_cgsense},
    {"fdk", "cone-beam FDK and its backprojector, RabbitCT-sized, every kernel; peer ASTRA", kc_bench_fdk},
    {"cone", "cone-beam Joseph and Siddon projectors (forward, matched adjoint), RabbitCT-sized",
     kc_bench_cone},
    {"ct2d", "2-D projectors (Joseph, Siddon; forward, matched adjoint), 512^2 from 720 views, "
     "parallel and fan beams, f32 or f64",
     kc_bench_ct2d},
    {"fve", "FVE data set (32x5x4x43, 115^2 spiral): whole set by NUFFT and DrFT, one voxel's spectra",
     kc_bench_fve},
    {"goertzel", "Goertzel full image and one point vs the centred FFT, 115^2 .. 1024^2", kc_bench_goertzel},
    {"sense", "Cartesian SENSE 256^2, 32 coils, R = 4: execute, unfold, g-factor; the general "
     "path with ACS lines",
     kc_bench_sense},
    {"startup", "whole processes: kray --version, kray info, kray fbp 400^2/720 with file I/O; "
     "peers bart version, bart show -m, scikit-image iradon as a command",
     kc_bench_startup},
    {"bloch", "Bloch simulation: SE-EPI 256^2 with 2x2 isochromats per voxel, GRE 128^2 with 4 M "
     "isochromats; isochromats per thread, fast and accurate math",
     kc_bench_bloch},
    {"scale", "work divided over 1, 2, 4, ... devices and MPI processes: FDK, SIRT/CGLS, FVE by "
     "NUFFT, CG-SENSE slices", kc_bench_scale},
    {"espirit", "ESPIRiT maps, 2-D 256^2 and 3-D 128x128x64, 8 coils: host calibration, per-voxel "
     "eigenvectors on the backend",
     kc_bench_espirit},
    {"llr", "locally-low-rank prox (a batched SVD per image block), 2-D and 3-D blocks, every "
     "CUDA variant",
     kc_bench_llr},
    {"reg", "regularised reconstruction: MRI l1-wavelet 256^2, 8 coils, 64x512 radial, 100 "
     "iterations (peer bart pics -R W); cone-beam TV 256^3, 90 views, 50 iterations (peer ASTRA "
     "SIRT3D_CUDA); the 90-view 128^3 PSNRs", kc_bench_reg},
};
#define KC_NBENCH ((int)(sizeof kc_benches / sizeof kc_benches[0]))

int kc_bench_count(void) { return KC_NBENCH; }
const char *kc_bench_name(int i) { return i >= 0 && i < KC_NBENCH ? kc_benches[i].name : NULL; }
const char *kc_bench_summary(int i)
{
    return i >= 0 && i < KC_NBENCH ? kc_benches[i].summary : NULL;
}

static void kc_bench_list(FILE *f)
{
    fprintf(f, "Usage: kray bench <name> [options]    (kray bench <name> --help)\n\n"
               "Benchmarks (programs, not tests: a table on stdout, JSON lines with --json):\n");
    for (int i = 0; i < KC_NBENCH; i++)
        fprintf(f, "  %-8s %s\n", kc_benches[i].name, kc_benches[i].summary);
}

int kc_tool_bench(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "kray bench: no benchmark named (run 'kray bench --help' for the list)\n");
        return KC_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        kc_bench_list(stdout);
        return 0;
    }
    for (int i = 0; i < KC_NBENCH; i++)
        if (!strcmp(argv[1], kc_benches[i].name)) return kc_benches[i].main(argc - 1, argv + 1);
    fprintf(stderr, "kray bench: unknown benchmark '%s' (run 'kray bench --help' for the list)\n",
            argv[1]);
    return KC_EXIT_USAGE;
}

static int kc_cmp_time(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

void kc_times_sort(double *t, int n)
{
    if (n > 1) qsort(t, (size_t)n, sizeof *t, kc_cmp_time);
}

void kc_tstats_of(const double *t, int n, kc_tstats *s)
{
    memset(s, 0, sizeof *s);
    s->n = n;
    if (n < 1) return;
    double sum = 0;
    s->min = s->max = t[0];
    for (int i = 0; i < n; i++) {
        sum += t[i];
        s->min = fmin(s->min, t[i]);
        s->max = fmax(s->max, t[i]);
    }
    s->mean = sum / n;
    double v = 0;
    for (int i = 0; i < n; i++) v += (t[i] - s->mean) * (t[i] - s->mean);
    s->std = n > 1 ? sqrt(v / (n - 1)) : 0;
}

int kc_bench_ctx(const char *tool, const kc_common *c, kr_ctx **ctx, char *dev, size_t ndev)
{
    const int r = kc_make_ctx(tool, c, ctx);
    if (r) return r;
    if (!c->verbose) kr_ctx_set_log_level(*ctx, KR_LOG_ERROR);
    snprintf(dev, ndev, "cpu");
    if (kr_ctx_backend(*ctx) == KR_BACKEND_CUDA) kr_cuda_device_name(kr_ctx_device(*ctx), dev, ndev);
    return 0;
}

kr_status kc_bench_sync(const kr_ctx *ctx)
{
    return kr_ctx_backend(ctx) == KR_BACKEND_CUDA ? kri_device_synchronize(ctx) : KR_OK;
}

int kc_peer_inputs(const char *tool, const char *tmpdir, const char *stem, const kr_ct_geom *g,
                   const kr_array *data, char *gp, char *dp, size_t n)
{
    snprintf(gp, n, "%s/kray_%s_geom.json", tmpdir, stem);
    snprintf(dp, n, "%s/kray_%s_data.raw", tmpdir, stem);
    kr_io_opts io;
    kr_io_opts_default(&io);
    io.raw_dtype = KR_F32;
    kr_status s = kr_ct_geom_write_json(g, gp, 1);
    if (s == KR_OK) s = kr_write(dp, data, &io);
    if (s == KR_OK) return 0;
    fprintf(stderr, "kray %s: cannot write the peer's input: %s\n", tool, kr_last_error());
    unlink(gp);
    unlink(dp);
    return -1;
}

int kc_peer_json(const char *args, char *line, size_t n)
{
    char cmd[16384], buf[4096];
    snprintf(cmd, sizeof cmd, "\"${KRAY_PYTHON:-/usr/bin/python3}\" %s 2>&1", args);
    line[0] = 0;
    FILE *f = popen(cmd, "r");
    while (f && fgets(buf, sizeof buf, f))
        if (buf[0] == '{' && !line[0]) snprintf(line, n, "%s", buf);
    if (f) pclose(f);
    line[strcspn(line, "\n")] = 0;
    return line[0] ? 0 : -1;
}

double kc_json_num(const char *line, const char *key)
{
    char k[128];
    snprintf(k, sizeof k, "\"%s\":", key);
    const char *p = strstr(line, k);
    return p ? strtod(p + strlen(k), NULL) : NAN;
}

void kc_proj_header(void)
{
    printf("%-13s %-17s %-7s %-4s %-5s %-9s %16s %12s %12s %10s\n", "case", "geometry", "method",
           "type", "back", "volume", "views x detector", "best", "median", "rays/s");
}

void kc_proj_line(int json, const kc_proj_case *pc, const kr_ctx *ctx, const char *dev, double *t,
                  int n)
{
    kc_times_sort(t, n);
    const int nd = pc->ndim;
    const double best = t[0], med = t[n / 2];
    double rays = (double)pc->views;
    for (int d = 0; d < nd - 1; d++) rays *= (double)pc->det[d];
    const char *be = kr_backend_name(kr_ctx_backend(ctx));
    if (!json) {
        char vol[32], det[48];
        snprintf(vol, sizeof vol, "%lld^%d", (long long)pc->vol[0], nd);
        if (nd == 3)
            snprintf(det, sizeof det, "%lld x %lldx%lld", (long long)pc->views,
                     (long long)pc->det[0], (long long)pc->det[1]);
        else
            snprintf(det, sizeof det, "%lld x %lld", (long long)pc->views, (long long)pc->det[0]);
        printf("%-13s %-17s %-7s %-4s %-5s %-9s %16s %9.3f ms %9.3f ms %10.3g\n", pc->bcase,
               pc->geom, pc->method, pc->dtype, be, vol, det, best * 1e3, med * 1e3, rays / best);
        fflush(stdout);
        return;
    }
    kc_jo j;
    kc_jo_begin(&j);
    kc_jo_str(&j, "case", pc->bcase);
    kc_jo_str(&j, "geometry", pc->geom);
    kc_jo_str(&j, "method", pc->method);
    kc_jo_str(&j, "dtype", pc->dtype);
    kc_jo_str(&j, "backend", be);
    kc_jo_str(&j, "device", dev);
    kc_jo_ints(&j, "volume", nd, pc->vol);
    kc_jo_int(&j, "views", pc->views);
    kc_jo_ints(&j, "detector", nd - 1, pc->det);
    kc_jo_int(&j, "reps", n);
    kc_jo_num(&j, "time_s", best);
    kc_jo_num(&j, "time_median_s", med);
    kc_jo_num(&j, "rays_per_s", rays / best);
    kc_jo_int(&j, "threads", kr_ctx_threads(ctx));
    kc_jo_end(&j);
    fflush(stdout);
}

void kc_bench_machine(char *cpu, size_t ncpu, char *gpu, size_t ngpu)
{
    char model[256] = "unknown CPU", line[512];
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "model name", 10)) {
            char *c = strchr(line, ':');
            if (c) {
                c++;
                while (*c == ' ') c++;
                c[strcspn(c, "\n")] = 0;
                snprintf(model, sizeof model, "%s", c);
            }
            break;
        }
    }
    if (f) fclose(f);
    kr_ctx *ctx = NULL;
    int threads = 1;
    if (kr_ctx_create(&ctx, KR_BACKEND_CPU) == KR_OK) threads = kr_ctx_threads(ctx);
    kr_ctx_destroy(ctx);
    snprintf(cpu, ncpu, "%s, %d threads", model, threads);
    int n = 0;
    if (kr_cuda_device_count(&n) == KR_OK && n > 0) {
        if (kr_cuda_device_name(0, gpu, ngpu) != KR_OK) snprintf(gpu, ngpu, "CUDA device 0");
    } else {
        snprintf(gpu, ngpu, "none");
    }
}

static void kc_xml(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs("&lt;", f);
        else if (*s == '>')
            fputs("&gt;", f);
        else if (*s == '&')
            fputs("&amp;", f);
        else
            fputc(*s, f);
    }
}

int kc_svg_bars(const char *path, const char *title, const char *ylabel, const kc_bar *bars,
                int nbars)
{
    static const char *const colours[8] = {"#4c72b0", "#dd8452", "#55a868", "#c44e52",
                                           "#8172b3", "#937860", "#da8bc3", "#8c8c8c"};
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) return -1;
    const double W = 80.0 + 70.0 * (nbars > 0 ? nbars : 1), H = 420, x0 = 70, y0 = 40,
                 ph = 280; /* plot height */
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < nbars; i++)
        if (bars[i].value > 0) {
            lo = fmin(lo, fmax(bars[i].value - bars[i].err, bars[i].value * 0.5));
            hi = fmax(hi, bars[i].value + bars[i].err);
        }
    if (!(hi > 0)) lo = 1e-3, hi = 1;
    double llo = floor(log10(lo)), lhi = ceil(log10(hi));
    if (lhi <= llo) lhi = llo + 1;
#define KC_Y(v) (y0 + ph - ph * (log10(v) - llo) / (lhi - llo))
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n",
            W, H);
    fprintf(f,
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"%.0f\" y=\"22\" "
            "font-size=\"14\">",
            x0);
    kc_xml(f, title);
    fprintf(f, "</text>\n");
    for (double e = llo; e <= lhi + 1e-9; e += 1) {
        double y = y0 + ph - ph * (e - llo) / (lhi - llo);
        fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", x0,
                W - 10, y, y);
        fprintf(f, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%g</text>\n", x0 - 6, y + 4,
                pow(10, e));
    }
    fprintf(f, "<text transform=\"translate(16,%.0f) rotate(-90)\" text-anchor=\"middle\">",
            y0 + ph / 2);
    kc_xml(f, ylabel);
    fprintf(f, "</text>\n");
    for (int i = 0; i < nbars; i++) {
        double v = bars[i].value;
        if (!(v > 0)) continue;
        double x = x0 + 10 + 70.0 * i, y = KC_Y(v);
        fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"50\" height=\"%.1f\" fill=\"%s\"/>\n", x, y,
                y0 + ph - y, colours[bars[i].colour & 7]);
        if (bars[i].err > 0) {
            double ya = KC_Y(v + bars[i].err), yb = KC_Y(fmax(v - bars[i].err, v * 1e-3));
            fprintf(f, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"black\"/>\n",
                    x + 25, x + 25, ya, yb);
        }
        fprintf(f,
                "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\">%.3g</text>\n",
                x + 25, y - 4, v);
        fprintf(f, "<text transform=\"translate(%.1f,%.0f) rotate(40)\" font-size=\"11\">", x + 20,
                y0 + ph + 14);
        kc_xml(f, bars[i].label);
        fprintf(f, "</text>\n");
    }
#undef KC_Y
    fprintf(f, "</svg>\n");
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        remove(tmp);
        return -1;
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

int kc_bench_find_script(const char *dir_opt, const char *argv0, const char *script, char *out,
                          size_t len)
{
    const char *env = getenv("KRAY_SRC");
    char exe[2048] = "";
    ssize_t k = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (k > 0) {
        exe[k] = 0;
        char *sl = strrchr(exe, '/');
        if (sl) *sl = 0;
    }
    (void)argv0;
    const char *fmt[6][2] = {{dir_opt, "%s/%s"},         {env, "%s/bench/%s"},
                             {".", "%s/bench/%s"},       {exe, "%s/../bench/%s"},
                             {exe, "%s/../../bench/%s"}, {exe, "%s/../../../bench/%s"}};
    for (int i = 0; i < 6; i++) {
        if (!fmt[i][0] || !fmt[i][0][0]) continue;
        snprintf(out, len, fmt[i][1], fmt[i][0], script);
        if (access(out, R_OK) == 0) return 1;
    }
    return 0;
}

int kc_bench_has(const char *list, const char *item)
{
    size_t n = strlen(item);
    for (const char *p = list; (p = strstr(p, item)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == 0 || p[n] == ',')) return 1;
    return 0;
}

int kc_bench_list_check(const char *bench, const char *opt, const char *list,
                        const char *const *names, int n)
{
    char choices[512] = "";
    for (int i = 0; i < n; i++)
        snprintf(choices + strlen(choices), sizeof choices - strlen(choices), "%s%s",
                 i ? ", " : "", names[i]);
    for (const char *p = list; *p;) {
        const size_t len = strcspn(p, ",");
        int known = 0;
        for (int i = 0; i < n; i++) known |= strlen(names[i]) == len && !strncmp(p, names[i], len);
        if (!known)
            return kc_usage(bench, "--%s: unknown item '%.*s' (%s)", opt, (int)len, p, choices);
        p += len + (p[len] == ',');
    }
    return 0;
}

kr_status kc_bart_radial_inputs(const char *tmp, const char *stem, const kr_array *traj,
                                const kr_array *k, const kr_array *maps, int64_t n, int64_t x,
                                int64_t spokes, int64_t coils, char stems[4][1024])
{
    static const char *const what[4] = {"traj", "ksp", "maps", "out"};
    for (int i = 0; i < 4; i++) snprintf(stems[i], 1024, "%s/kray_%s_%s", tmp, stem, what[i]);
    char f[1100];
    kr_array *tc = NULL, kv, mv;
    int64_t kd[4] = {1, x, spokes, coils}, md[4] = {n, n, 1, coils};
    kr_status s = kr_array_astype(&tc, traj, KR_C64);
    if (s == KR_OK) snprintf(f, sizeof f, "%s.cfl", stems[0]), s = kr_write(f, tc, NULL);
    if (s == KR_OK) s = kr_array_wrap(&kv, KR_C64, 4, kd, k->data, KR_HOST);
    if (s == KR_OK) snprintf(f, sizeof f, "%s.cfl", stems[1]), s = kr_write(f, &kv, NULL);
    if (s == KR_OK) s = kr_array_wrap(&mv, KR_C64, 4, md, maps->data, KR_HOST);
    if (s == KR_OK) snprintf(f, sizeof f, "%s.cfl", stems[2]), s = kr_write(f, &mv, NULL);
    kr_array_destroy(tc);
    return s;
}

void kc_bart_remove(char stems[4][1024])
{
    char f[1100];
    for (int i = 0; i < 4; i++) {
        if (snprintf(f, sizeof f, "%s.cfl", stems[i]) < (int)sizeof f) unlink(f);
        if (snprintf(f, sizeof f, "%s.hdr", stems[i]) < (int)sizeof f) unlink(f);
    }
}
