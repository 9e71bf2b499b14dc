/* kray demo: runs the demonstration sections and writes DIR/report.html (see demo.h). */
#include "demo.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

/* The sections, in report order. Later work adds one line here and one file. */
static const kc_demo_section *const kc_sections[] = {
    &kc_demo_system,
    &kc_demo_phantoms,
    &kc_demo_mri_fourier,
    &kc_demo_sim,
    &kc_demo_spiral,
    &kc_demo_lsq,
    &kc_demo_iterative,
    &kc_demo_ct2d,
    &kc_demo_cone,
    &kc_demo_fdk,
    &kc_demo_reg,
};
#define KC_NSECTIONS ((int)(sizeof kc_sections / sizeof kc_sections[0]))

void kc_demo_say(const kc_demo *d, const char *fmt, ...)
{
    if (d->quiet) return;
    va_list ap;
    printf("[%s] ", d->section ? d->section : "demo");
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
}

kr_status kc_demo_png(kc_demo *d, const char *name, const kr_array *a, double lo, double hi,
                      int slice, int part, const char *caption)
{
    char path[4096], file[512];
    snprintf(file, sizeof file, "%s.png", name);
    snprintf(path, sizeof path, "%s/%s", d->out, file);
    kr_io_opts io;
    kr_io_opts_default(&io);
    kc_picture_io(&io, lo, hi, slice, part);
    kr_status s = kr_write(path, a, &io);
    if (s != KR_OK) return s;
    kc_report_figure(d->report, file, caption);
    return KR_OK;
}

void kc_demo_noise(double *x, int64_t n, double sigma, uint64_t seed)
{
    uint64_t st = seed;
    for (int64_t i = 0; i < n; i += 2) {
        double u[2];
        for (int k = 0; k < 2; k++) {
            uint64_t z = (st += 0x9E3779B97F4A7C15ull);
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
            z ^= z >> 31;
            u[k] = ((double)(z >> 11) + 0.5) / 9007199254740992.0; /* (0, 1) */
        }
        double r = sqrt(-2.0 * log(u[0])), t = 6.283185307179586 * u[1];
        x[i] = sigma * r * cos(t);
        if (i + 1 < n) x[i + 1] = sigma * r * sin(t);
    }
}

static int kc_mkdir_p(const char *dir)
{
    char p[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof p) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(p, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (p[i] == '/' || p[i] == '\0') {
            char c = p[i];
            p[i] = '\0';
            if (mkdir(p, 0777) != 0 && errno != EEXIST) return -1;
            p[i] = c;
        }
    }
    struct stat st;
    if (stat(dir, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

static int kc_selected(const char *only, const char *name)
{
    if (!only) return 1;
    size_t n = strlen(name);
    for (const char *p = only; *p;) {
        size_t k = strcspn(p, ",");
        if (k == n && strncmp(p, name, n) == 0) return 1;
        p += k;
        if (*p) p++;
    }
    return 0;
}

int kc_tool_demo(int argc, char **argv)
{
    const char *out = NULL, *only = NULL;
    int quick = 0, list = 0;
    const kc_opt opts[] = {
        {"out", 0, KC_STRING, &out, "out", "DIR",
         "output directory (created): PNG images and report.html", NULL, 0, 0, NULL},
        {"quick", 0, KC_FLAG, &quick, NULL, NULL,
         "smaller images and fewer iterations (about a second; used by the tests)", NULL, 0, 0,
         NULL},
        {"only", 0, KC_STRING, &only, NULL, "LIST",
         "run only these sections (comma-separated names, see --list)", NULL, 0, 0, NULL},
        {"list", 0, KC_FLAG, &list, NULL, NULL, "list the sections and exit", NULL, 0, 0, NULL},
        {"", 'o', KC_RENAMED, NULL, NULL, "--out", NULL, NULL, 0, 0, NULL},
        {0}};
    const kc_spec spec = {
        "demo",
        "Run kray's built-in demonstration on analytic data: system and backend, phantoms, an\n"
        "MRI Fourier check (analytic k-space -> inverse FFT -> image vs phantom, CPU and GPU),\n"
        "and a least-squares deblurring with CG and CGLS. Writes PNG images and an HTML report\n"
        "DIR/report.html (self-contained apart from the PNGs beside it) and prints a summary.\n"
        "Uses the GPU when there is one (--backend auto).",
        opts,
        NULL,
        0,
        "Examples:\n  kray demo\n  kray demo --out /tmp/kray-demo --quick\n"
        "  kray demo --backend cpu --only phantoms,mri",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    if (list) {
        for (int i = 0; i < KC_NSECTIONS; i++)
            printf("%-10s %s\n", kc_sections[i]->name, kc_sections[i]->title);
        return 0;
    }
    if (only) {
        for (const char *p = only; *p;) {
            size_t k = strcspn(p, ",");
            int found = 0;
            for (int i = 0; i < KC_NSECTIONS; i++)
                if (strlen(kc_sections[i]->name) == k && !strncmp(p, kc_sections[i]->name, k))
                    found = 1;
            if (!found)
                return kc_usage("demo", "unknown section '%.*s' in --only (see kray demo --list)",
                                (int)k, p);
            p += k;
            if (*p) p++;
        }
    }

    kc_demo d;
    memset(&d, 0, sizeof d);
    d.out = out;
    d.quick = quick;
    d.quiet = c.quiet;
    d.common = &c;
    d.real = kc_precision_dtype(&c);
    if ((r = kc_make_ctx("demo", &c, &d.ctx)) != 0) return r;
    kr_status s = kr_ctx_create(&d.cpu, KR_BACKEND_CPU);
    if (s == KR_OK) s = kr_ctx_set_threads(d.cpu, c.threads);
    if (s == KR_OK) s = kr_ctx_set_quiet(d.cpu, c.quiet);
    if (s != KR_OK) {
        kr_ctx_destroy(d.ctx);
        kr_ctx_destroy(d.cpu);
        return kc_fail("demo", s);
    }
    d.gpu = kr_ctx_backend(d.ctx) == KR_BACKEND_CUDA;
    if (kc_mkdir_p(out) != 0) {
        fprintf(stderr, "kray demo: cannot create the output directory '%s': %s\n", out,
                strerror(errno));
        kr_ctx_destroy(d.ctx);
        kr_ctx_destroy(d.cpu);
        return KC_EXIT_INPUT;
    }
    d.report = kc_report_create("kray demo");
    if (!d.report) {
        kr_ctx_destroy(d.ctx);
        kr_ctx_destroy(d.cpu);
        fprintf(stderr, "kray demo: out of memory\n");
        return KC_EXIT_INPUT;
    }
    kc_report_para(d.report,
                   "This report was written by `kray demo%s`. The tables, charts and images were "
                   "measured in this run, on this machine, from analytic data built into kray. "
                   "Figures from other runs appear only in paragraphs that begin with \"Quoted\" "
                   "and name their date and machine.",
                   quick ? " --quick" : "");

    double t0 = kr_time_now();
    int failures = 0, ran = 0;
    double times[KC_NSECTIONS];
    const char *result[KC_NSECTIONS];
    for (int i = 0; i < KC_NSECTIONS; i++) {
        const kc_demo_section *sec = kc_sections[i];
        if (!kc_selected(only, sec->name)) continue;
        d.section = sec->name;
        kc_report_section(d.report, sec->name, sec->title);
        kr_clear_error();
        double ts = kr_time_now();
        s = sec->run(&d);
        times[i] = kr_time_now() - ts;
        result[i] = s == KR_OK ? "ok" : kr_status_string(s);
        ran++;
        if (s != KR_OK) {
            const char *why = kr_last_error();
            if (!why || !*why) why = kr_status_string(s);
            failures++;
            kc_report_error(d.report, "This section failed: %s (%s)", why, kr_status_string(s));
            fprintf(stderr, "kray demo: section '%s' failed: %s\n", sec->name, why);
        }
    }
    d.section = NULL;
    double total = kr_time_now() - t0;
    kc_report_section(d.report, "timing", "Run time");
    const char *hdr[] = {"section", "seconds", "status"};
    kc_report_table_begin(d.report, 3, hdr);
    for (int i = 0; i < KC_NSECTIONS; i++)
        if (kc_selected(only, kc_sections[i]->name))
            kc_report_table_rowf(d.report, "%s\t%.3f\t%s", kc_sections[i]->name, times[i],
                                 result[i]);
    kc_report_table_rowf(d.report, "total\t%.3f\t%d of %d sections failed", total, failures, ran);
    kc_report_table_end(d.report);

    char path[4096];
    snprintf(path, sizeof path, "%s/report.html", out);
    int rc = failures ? KC_EXIT_INPUT : 0;
    if (kc_report_write(d.report, path) != 0) {
        fprintf(stderr, "kray demo: cannot write '%s': %s\n", path, strerror(errno));
        rc = KC_EXIT_INPUT;
    } else if (!c.quiet) {
        printf("report: %s (%d section%s, %.1f s%s)\n", path, ran, ran == 1 ? "" : "s", total,
               failures ? ", with failures" : "");
    }
    kc_report_destroy(d.report);
    kr_ctx_destroy(d.ctx);
    kr_ctx_destroy(d.cpu);
    return rc;
}
