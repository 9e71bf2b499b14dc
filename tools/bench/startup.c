/* kray bench startup: whole processes, as a script that chains calls sees them. Each case runs a
 * kray command and its peer as child processes (stdout and stderr to /dev/null), alternately
 * (kray, peer, peer, kray, ...), after warm-up runs, and reports per command the median, the
 * quartiles and the best wall time, and the mean CPU time (user + system) of the child:
 *   version  `kray --version`            vs `bart version`
 *   info     `kray info x.npy` (64^2)    vs `bart show -m x` (the same array as .cfl)
 *   fbp      `kray fbp --skimage s.npy k.npy` vs `iradon_cli.py s.npy i.npy` (scikit-image's
 *            iradon as a command: Python, NumPy and scikit-image start, read, write), on an
 *            exact Shepp-Logan sinogram in scikit-image's layout (f64, detectors x angles);
 *            the two images are compared (kray --skimage equals iradon).
 * The load average before and after is printed: figures for the documentation are taken on an
 * idle machine. */
#include "internal.h"
#include "kray/io.h"
#include "kray/phantom.h"
#include "bench.h"

#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define KC_MAXARGV 8
#define KC_PI 3.14159265358979323846

/* One command of a case and its measurements. */
typedef struct kc_cmd {
    const char *label; /* as printed, e.g. "kray --version" */
    char *argv[KC_MAXARGV];
    double *wall, cpu; /* wall times of the runs; summed CPU time */
    int runs, failed;
} kc_cmd;

static double kc_ru_s(const struct rusage *r)
{
    return (double)r->ru_utime.tv_sec + 1e-6 * (double)r->ru_utime.tv_usec +
           (double)r->ru_stime.tv_sec + 1e-6 * (double)r->ru_stime.tv_usec;
}

/* Run argv as a child with stdout and stderr on /dev/null; its wall and CPU seconds. Returns
 * the exit status, or -1 when it could not run. */
static int kc_spawn(char *const argv[], double *wall, double *cpu)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    struct rusage r0, r1;
    getrusage(RUSAGE_CHILDREN, &r0);
    pid_t pid;
    const double t0 = kr_time_now();
    int e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (e != 0) return -1;
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        ;
    *wall = kr_time_now() - t0;
    getrusage(RUSAGE_CHILDREN, &r1);
    *cpu = kc_ru_s(&r1) - kc_ru_s(&r0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Run a command once; record the times unless warm-up. */
static void kc_cmd_run(kc_cmd *c, int record)
{
    double w, u;
    int rc = kc_spawn(c->argv, &w, &u);
    if (rc != 0) {
        c->failed = 1;
        return;
    }
    if (!record) return;
    c->wall[c->runs++] = w;
    c->cpu += u;
}

static double kc_quantile(const double *sorted, int n, double q)
{
    const double x = q * (double)(n - 1);
    const int i = (int)x;
    return i + 1 < n ? sorted[i] + (x - (double)i) * (sorted[i + 1] - sorted[i]) : sorted[n - 1];
}

static double kc_loadavg(void)
{
    double l = NAN;
    FILE *f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &l) != 1) l = NAN;
        fclose(f);
    }
    return l;
}

/* Report one command (and, for the kray command of a pair, the ratio to its peer). */
static void kc_cmd_report(const char *cs, const kc_cmd *c, const kc_cmd *peer, int json)
{
    double *t = c->wall;
    if (c->runs) kc_times_sort(t, c->runs);
    const double med = c->runs ? kc_quantile(t, c->runs, 0.5) : NAN;
    double pmed = NAN;
    if (peer && peer->runs && !peer->failed) {
        kc_times_sort(peer->wall, peer->runs);
        pmed = kc_quantile(peer->wall, peer->runs, 0.5);
    }
    if (json) {
        kc_jo j;
        kc_jo_begin(&j);
        kc_jo_str(&j, "bench", "startup");
        kc_jo_str(&j, "case", cs);
        kc_jo_str(&j, "command", c->label);
        if (c->failed || !c->runs) {
            kc_jo_str(&j, "error", "the command failed or did not run");
            kc_jo_end(&j);
            return;
        }
        kc_jo_int(&j, "runs", c->runs);
        kc_jo_num(&j, "median_s", med);
        kc_jo_num(&j, "p25_s", kc_quantile(t, c->runs, 0.25));
        kc_jo_num(&j, "p75_s", kc_quantile(t, c->runs, 0.75));
        kc_jo_num(&j, "min_s", t[0]);
        kc_jo_num(&j, "cpu_mean_s", c->cpu / c->runs);
        if (peer) {
            kc_jo_str(&j, "peer", peer->label);
            if (isfinite(pmed)) kc_jo_num(&j, "peer_over_kray", pmed / med);
        }
        kc_jo_end(&j);
        return;
    }
    if (c->failed || !c->runs) {
        printf("  %-7s %-40s failed (run it by hand to see why)\n", cs, c->label);
        return;
    }
    printf("  %-7s %-40s %9.2f %9.2f %9.2f %9.2f %9.2f", cs, c->label, 1e3 * med,
           1e3 * kc_quantile(t, c->runs, 0.25), 1e3 * kc_quantile(t, c->runs, 0.75), 1e3 * t[0],
           1e3 * c->cpu / c->runs);
    if (peer && isfinite(pmed))
        printf("   peer / kray %.2f\n", pmed / med);
    else
        printf("\n");
}

/* The exact Shepp-Logan sinogram of n detectors x nv views over 180 degrees, in scikit-image's
 * layout (NumPy (detectors, angles), kray dims [angles, detectors]), f64, into path. */
static kr_status kc_fbp_input(const char *path, int64_t n, int64_t nv)
{
    int ne;
    const kr_ellipse *e = kr_phantom_ellipses(KR_PHANTOM_SHEPP_LOGAN, &ne);
    double *th = malloc(sizeof *th * (size_t)nv), *sp = malloc(sizeof *sp * (size_t)n);
    kr_array *s = NULL, *t = NULL;
    kr_status st = th && sp ? KR_OK : kri_fail(KR_ERR_OOM_HOST, "out of memory");
    for (int64_t v = 0; st == KR_OK && v < nv; v++) th[v] = KC_PI * (double)v / (double)nv;
    for (int64_t k = 0; st == KR_OK && k < n; k++) sp[k] = (double)(k - n / 2) * 2.0 / (double)n;
    if (st == KR_OK) st = kr_phantom_sinogram_ellipses(&s, e, ne, th, nv, sp, n);
    const int64_t dims[2] = {nv, n};
    if (st == KR_OK) st = kr_array_create(&t, KR_F64, 2, dims, KR_HOST, NULL);
    if (st == KR_OK) {
        const double *a = s->data;
        double *b = t->data;
        for (int64_t v = 0; v < nv; v++) /* lengths in pixels, transposed */
            for (int64_t k = 0; k < n; k++) b[k * nv + v] = a[v * n + k] * 0.5 * (double)n;
        st = kr_write(path, t, NULL);
    }
    free(th);
    free(sp);
    kr_array_destroy(s);
    kr_array_destroy(t);
    return st;
}

/* max |a - b| / max |b| of two image files (NaN when unreadable or of other shapes). */
static double kc_files_diff(const char *pa, const char *pb)
{
    kr_array *a = NULL, *b = NULL;
    double e = NAN;
    if (kr_read(pa, &a, NULL, NULL) == KR_OK && kr_read(pb, &b, NULL, NULL) == KR_OK &&
        kr_array_numel(a) == kr_array_numel(b)) {
        double d = 0, m = 0;
        for (int64_t i = 0; i < kr_array_numel(a); i++) {
            const double x = kr_array_get_f64(a, i), y = kr_array_get_f64(b, i);
            d = fmax(d, fabs(x - y));
            m = fmax(m, fabs(y));
        }
        e = m > 0 ? d / m : d;
    }
    kr_array_destroy(a);
    kr_array_destroy(b);
    return e;
}

int kc_bench_startup(int argc, char **argv)
{
    int reps = 51, fbp_reps = 7;
    int64_t n = 400, nv = 720;
    const char *cases = "version,info,fbp", *peers = "auto", *peer_dir = NULL;
    const kc_opt opts[] = {
        {"reps", 0, KC_INT, &reps, "51", "N", "timed runs of each command (version, info)", NULL,
         1, 100000, NULL},
        {"fbp-reps", 0, KC_INT, &fbp_reps, "7", "N", "timed runs of each command of the fbp case",
         NULL, 1, 10000, NULL},
        {"cases", 0, KC_STRING, &cases, "version,info,fbp", "LIST",
         "version, info, fbp (comma-separated)", NULL, 0, 0, NULL},
        {"size", 'n', KC_INT64, &n, "400", "N", "fbp: image size and detector count", NULL, 8,
         8192, NULL},
        {"views", 0, KC_INT64, &nv, "720", "N", "fbp: views over 180 degrees", NULL, 1, 100000,
         NULL},
        {"peers", 0, KC_STRING, &peers, "auto", "LIST",
         "bart (version, info), skimage (fbp), none; auto: those installed", NULL, 0, 0, NULL},
        {"peer-dir", 0, KC_STRING, &peer_dir, NULL, "DIR",
         "directory of iradon_cli.py (default: $KRAY_SRC/bench, ./bench, next to the "
         "executable)",
         NULL, 0, 0, NULL},
        {0}};
    const kc_spec spec = {
        "bench startup",
        "Whole processes, as a script that chains calls sees them: `kray --version`,\n"
        "`kray info` and `kray fbp` (400^2 from 720 views, file reading and writing included)\n"
        "beside their peers (`bart version`, `bart show -m`, scikit-image's iradon run as a\n"
        "Python command), alternately, after warm-up runs. Per command: median, quartiles and\n"
        "best wall time and the mean CPU time of the child, and the ratio of the medians. The\n"
        "load average is printed: take figures on an idle machine.",
        opts,
        NULL,
        KC_JSON,
        "Examples:\n  kray bench startup\n  kray bench startup --cases version,info --reps 201 "
        "--json > startup.jsonl",
        NULL,
        NULL};
    kc_common cm;
    int r = kc_parse(&spec, &cm, argc, argv);
    if (r) return r < 0 ? 0 : r;
    const char *tool = "bench startup";
    static const char *const names[3] = {"version", "info", "fbp"};
    if ((r = kc_bench_list_check(tool, "cases", cases, names, 3)) != 0) return r;
    const int do_ver = kc_bench_has(cases, "version"), do_info = kc_bench_has(cases, "info");
    const int do_fbp = kc_bench_has(cases, "fbp");
    if (!do_ver && !do_info && !do_fbp)
        return kc_usage(tool, "--cases '%s' selects none of version, info, fbp", cases);
    const int pa = !strcmp(peers, "auto");
    char self[4096];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k <= 0) return kc_usage(tool, "cannot find this program (/proc/self/exe)");
    self[k] = '\0';
    char tmp[] = "/tmp/kray_bench_startupXXXXXX";
    if (!mkdtemp(tmp)) {
        fprintf(stderr, "kray bench startup: cannot create a temporary directory\n");
        return KC_EXIT_INPUT;
    }
    char xnpy[128], xcfl[128], xbase[128], snpy[128], knpy[128], inpy[128];
    snprintf(xnpy, sizeof xnpy, "%s/x.npy", tmp);
    snprintf(xcfl, sizeof xcfl, "%s/x.cfl", tmp);
    snprintf(xbase, sizeof xbase, "%s/x", tmp);
    snprintf(snpy, sizeof snpy, "%s/s.npy", tmp);
    snprintf(knpy, sizeof knpy, "%s/k.npy", tmp);
    snprintf(inpy, sizeof inpy, "%s/i.npy", tmp);
    const char *py = getenv("KRAY_PYTHON");
    if (!py || !*py) py = "/usr/bin/python3";

    /* peers available */
    char *probe_bart[] = {"bart", "version", NULL};
    double w, u;
    const int bart_ok = (pa || kc_bench_has(peers, "bart")) && kc_spawn(probe_bart, &w, &u) == 0;
    char script[4096] = "";
    int sk_ok = 0;
    if (do_fbp && (pa || kc_bench_has(peers, "skimage"))) {
        char *probe_sk[] = {(char *)py, "-c", "import numpy, skimage.transform", NULL};
        sk_ok = kc_bench_find_script(peer_dir, argv[0], "iradon_cli.py", script, sizeof script) &&
                kc_spawn(probe_sk, &w, &u) == 0;
    }
    if (!pa && kc_bench_has(peers, "bart") && !bart_ok)
        fprintf(stderr, "kray bench startup: bart not found; its rows are left out\n");
    if (!pa && kc_bench_has(peers, "skimage") && !sk_ok)
        fprintf(stderr, "kray bench startup: iradon_cli.py or scikit-image for %s not found\n",
                py);

    /* inputs */
    kr_array *x = NULL;
    kr_status s = kr_phantom_2d(&x, KR_PHANTOM_MODIFIED_SL, 64, 64, 1, KR_F32);
    if (s == KR_OK) s = kr_write(xnpy, x, NULL);
    if (s == KR_OK && bart_ok) s = kr_write(xcfl, x, NULL);
    kr_array_destroy(x);
    if (s == KR_OK && do_fbp) s = kc_fbp_input(snpy, n, nv);
    if (s != KR_OK) {
        r = kc_fail(tool, s);
        goto cleanup;
    }

    /* the pairs: kray command, peer command (NULL argv[0] = no peer) */
    double *buf = calloc((size_t)(4 * reps + 2 * fbp_reps) + 8, sizeof *buf);
    if (!buf) {
        r = kc_fail(tool, kri_fail(KR_ERR_OOM_HOST, "out of memory"));
        goto cleanup;
    }
    kc_cmd cmd[6] = {
        {"kray --version", {self, "--version", NULL}, buf, 0, 0, 0},
        {"bart version", {"bart", "version", NULL}, buf + reps, 0, 0, 0},
        {"kray info x.npy", {self, "info", xnpy, NULL}, buf + 2 * reps, 0, 0, 0},
        {"bart show -m x", {"bart", "show", "-m", xbase, NULL}, buf + 3 * reps, 0, 0, 0},
        {"kray fbp --skimage s.npy k.npy", {self, "fbp", "--skimage", snpy, knpy, NULL},
         buf + 4 * reps, 0, 0, 0},
        {"iradon_cli.py s.npy i.npy", {(char *)py, script, snpy, inpy, NULL},
         buf + 4 * reps + fbp_reps, 0, 0, 0},
    };
    const int use[3] = {do_ver, do_info, do_fbp}, peer_ok[3] = {bart_ok, bart_ok, sk_ok};
    const char *cname[3] = {"version", "info", "fbp"};
    const double load0 = kc_loadavg();
    char cpu[512], gpu[512];
    kc_bench_machine(cpu, sizeof cpu, gpu, sizeof gpu);
    if (!cm.json) {
        printf("kray bench startup: whole processes, %d runs each (fbp: %d, %lldx%lld from %lld "
               "views), alternating with the peer\nCPU: %s\nload average (1 min) before: %.2f\n\n"
               "  case    command                                 median ms    p25 ms    p75 ms"
               "    min ms  cpu ms\n",
               reps, fbp_reps, (long long)n, (long long)n, (long long)nv, cpu, load0);
        fflush(stdout);
    }
    for (int c = 0; c < 3; c++) {
        if (!use[c]) continue;
        kc_cmd *a = &cmd[2 * c], *b = peer_ok[c] ? &cmd[2 * c + 1] : NULL;
        const int nr = c == 2 ? fbp_reps : reps;
        for (int i = 0; i < 3; i++) { /* warm-up: page cache, dynamic loader, Python's bytecode */
            kc_cmd_run(a, 0);
            if (b) kc_cmd_run(b, 0);
        }
        for (int i = 0; i < nr && !a->failed; i++) {
            if (i % 2 == 0 || !b) {
                kc_cmd_run(a, 1);
                if (b) kc_cmd_run(b, 1);
            } else {
                kc_cmd_run(b, 1);
                kc_cmd_run(a, 1);
            }
        }
        kc_cmd_report(cname[c], a, b, cm.json);
        if (b) kc_cmd_report(cname[c], b, NULL, cm.json);
        if (c == 2 && b && !a->failed && !b->failed) {
            const double d = kc_files_diff(knpy, inpy);
            if (cm.json) {
                kc_jo j;
                kc_jo_begin(&j);
                kc_jo_str(&j, "bench", "startup");
                kc_jo_str(&j, "case", "fbp");
                kc_jo_num(&j, "max_rel_diff_kray_iradon", d);
                kc_jo_end(&j);
            } else {
                printf("  fbp: max |kray - iradon| / max |iradon| = %.2e\n", d);
            }
        }
        fflush(stdout);
        if (a->failed) r = KC_EXIT_INPUT;
    }
    const double load1 = kc_loadavg();
    if (cm.json) {
        kc_jo j;
        kc_jo_begin(&j);
        kc_jo_str(&j, "bench", "startup");
        kc_jo_str(&j, "cpu", cpu);
        kc_jo_num(&j, "loadavg_before", load0);
        kc_jo_num(&j, "loadavg_after", load1);
        kc_jo_end(&j);
    } else {
        printf("\nload average (1 min) after: %.2f%s\n", load1,
               load0 > 0.3 || load1 > 0.3 ? " (the machine was not idle: compare ratios only)"
                                          : "");
    }
    free(buf);
cleanup:
    remove(xnpy);
    remove(xcfl);
    snprintf(xcfl, sizeof xcfl, "%s/x.hdr", tmp);
    remove(xcfl);
    remove(snpy);
    remove(knpy);
    remove(inpy);
    rmdir(tmp);
    return r;
}
