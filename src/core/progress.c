/* Progress: callback of the ctx; else on stderr a bar when it is a terminal, or, when it is a
 * pipe or a file (a log, a batch job), one line every KRI_PROGRESS_LINE_S seconds once the work
 * has lasted that long (short work prints nothing) and a last line when it ends. */
#include "internal.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

kr_progress_fn kri_ctx_progress(const kr_ctx *ctx, void **user, int *quiet);

#define KRI_PROGRESS_LINE_S 5.0

/* Seconds between progress lines: KRAY_PROGRESS_SECONDS when set (>= 0), else 5. */
static double kri_progress_line_s(void)
{
    const char *e = getenv("KRAY_PROGRESS_SECONDS");
    char *end = NULL;
    double v = e ? strtod(e, &end) : -1.0;
    return e && end != e && *end == '\0' && v >= 0.0 && v < 1e6 ? v : KRI_PROGRESS_LINE_S;
}

struct kr_progress {
    kr_progress_fn fn;
    void *user;
    int bar;   /* draw on stderr (a terminal) */
    int lines; /* progress lines on stderr (not a terminal) */
    int printed; /* lines written */
    double every; /* seconds between lines */
    char task[64];
    int64_t total, done;
    int last_permille;
    double t0, last_draw;
    omp_lock_t lock;
};

kr_progress *kr_progress_begin(const kr_ctx *ctx, const char *task, int64_t total)
{
    void *user;
    int quiet;
    kr_progress_fn fn = kri_ctx_progress(ctx, &user, &quiet);
    int bar = !fn && !quiet && isatty(2), lines = !fn && !quiet && !bar;
    if (!fn && !bar && !lines) return NULL;
    kr_progress *p = kri_calloc(1, sizeof *p);
    if (!p) return NULL;
    p->fn = fn;
    p->user = user;
    p->bar = bar;
    p->lines = lines;
    p->every = lines ? kri_progress_line_s() : 0.0;
    snprintf(p->task, sizeof p->task, "%s", task ? task : "");
    p->total = total > 0 ? total : 1;
    p->last_permille = -1;
    p->t0 = kr_time_now();
    omp_init_lock(&p->lock);
    if (fn) fn(user, p->task, 0.0, 0);
    return p;
}

static void kri_progress_draw(kr_progress *p, double frac, int final)
{
    const int width = 30;
    int fill = (int)(frac * width + 0.5);
    char bar[64];
    for (int i = 0; i < width; i++) bar[i] = i < fill ? '#' : '.';
    bar[width] = '\0';
    fprintf(stderr, "\r%-20.20s [%s] %3d%% %6.1fs%s", p->task, bar, (int)(frac * 100.0 + 0.5),
            kr_time_now() - p->t0, final ? "\n" : "");
    fflush(stderr);
}

void kr_progress_add(kr_progress *p, int64_t units)
{
    if (!p) return;
    omp_set_lock(&p->lock);
    p->done += units;
    if (p->done > p->total) p->done = p->total;
    double frac = (double)p->done / (double)p->total;
    int pm = (int)(frac * 1000.0);
    if (pm != p->last_permille) {
        double now = kr_time_now();
        if (p->fn) {
            p->fn(p->user, p->task, frac, 0);
        } else if (p->lines) {
            if (now - p->t0 >= p->every && now - p->last_draw >= p->every) {
                fprintf(stderr, "kray: %s: %d%% after %.0f s\n", p->task,
                        (int)(frac * 100.0), now - p->t0);
                fflush(stderr);
                p->last_draw = now;
                p->printed++;
            }
        } else if (now - p->last_draw > 0.1) {
            kri_progress_draw(p, frac, 0);
            p->last_draw = now;
        }
        p->last_permille = pm;
    }
    omp_unset_lock(&p->lock);
}

void kr_progress_end(kr_progress *p)
{
    if (!p) return;
    if (p->fn) {
        p->fn(p->user, p->task, 1.0, 1);
    } else if (p->lines) {
        if (p->printed) {
            fprintf(stderr, "kray: %s: done in %.1f s\n", p->task, kr_time_now() - p->t0);
            fflush(stderr);
        }
    } else {
        kri_progress_draw(p, 1.0, 1);
    }
    omp_destroy_lock(&p->lock);
    kri_free(p);
}
