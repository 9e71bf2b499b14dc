/* kray studio: jobs (see studio.h).
 *
 * A job is a list of steps planned by its page: `kray <tool> ...` runs as a child process of
 * this executable (posix_spawn of /proc/self/exe in the job's directory, its own process
 * group), or an in-process step computes on the worker thread. A child's stderr gives the
 * progress ("kray: <task>: N% after T s", KRAY_PROGRESS_SECONDS=0.2), the residual of each
 * iteration (-v) and, when it fails, kray's one sentence; its stdout the --json results.
 * Cancelling sends SIGTERM to the child's group (kray's writers then remove their temporary
 * files) and SIGKILL two seconds later. Every change bumps the job's event counter and wakes
 * the server-sent event streams waiting on it. */
#include "jobs_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

pthread_mutex_t ks_jlock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t ks_jcond = PTHREAD_COND_INITIALIZER;
pthread_cond_t ks_wcond = PTHREAD_COND_INITIALIZER;
ks_job *ks_jobs;
int ks_stop;
static int ks_next_job = 1;
static const char *const ks_state_names[] = {"queued", "running", "done", "failed", "cancelled"};

/* ---- planning (page_*.c) ------------------------------------------------------------------- */
int ks_job_id(const ks_job *j) { return j->id; }
const char *ks_job_dir(const ks_job *j) { return j->dir; }
void ks_job_set_data(ks_job *j, void *data) { j->data = data; }
void *ks_job_data(ks_job *j) { return j->data; }

const char *ks_job_file(const ks_job *j, const char *name, char *buf, size_t len)
{
    /* a path too long for buf becomes "", which no open() finds */
    if (snprintf(buf, len, "%s/%s", j->dir, name) >= (int)len) buf[0] = '\0';
    return buf;
}

static ks_step *ks_new_step(ks_job *j)
{
    if (j->nsteps >= KS_MAX_STEPS) {
        j->full = 1;
        return NULL;
    }
    ks_step *s = &j->steps[j->nsteps++];
    s->job = j;
    return s;
}

ks_step *ks_job_tool(ks_job *j, const char *tool)
{
    ks_step *s = ks_new_step(j);
    if (!s) return NULL;
    s->argv[s->argc++] = strdup("kray");
    s->argv[s->argc++] = strdup(tool);
    /* the server's common options (--backend ...), one word each */
    char common[256];
    snprintf(common, sizeof common, "%s", ks_cfg.common ? ks_cfg.common : "");
    for (char *w = strtok(common, " "); w; w = strtok(NULL, " ")) ks_arg(s, w);
    return s;
}

static void ks_arg_shown(ks_step *s, const char *a, const char *shown)
{
    if (!s) return;
    if (s->argc >= KS_MAX_ARGS) {
        s->argc = KS_MAX_ARGS + 1; /* marks the plan as broken (checked at submission) */
        return;
    }
    s->shown[s->argc] = shown ? strdup(shown) : NULL;
    s->argv[s->argc++] = strdup(a);
}

void ks_arg(ks_step *s, const char *a) { ks_arg_shown(s, a, NULL); }

void ks_argf(ks_step *s, const char *fmt, ...)
{
    char b[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    ks_arg(s, b);
}

void ks_opt(ks_step *s, const char *name, const char *fmt, ...)
{
    char b[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    char o[96];
    snprintf(o, sizeof o, "--%s", name);
    ks_arg(s, o);
    ks_arg(s, b);
}

void ks_arg_later(ks_step *s, const char *key)
{
    char b[96];
    snprintf(b, sizeof b, "@%s@", key);
    ks_arg(s, b);
}

void ks_job_fill(ks_job *j, const char *key, const char *value)
{
    char b[96];
    snprintf(b, sizeof b, "@%s@", key);
    pthread_mutex_lock(&ks_jlock);
    for (int i = 0; i < j->nsteps; i++)
        for (int a = 0; a < j->steps[i].argc && a < KS_MAX_ARGS; a++)
            if (!strcmp(j->steps[i].argv[a], b)) {
                char *v = strdup(value);
                if (!v) continue;
                free(j->steps[i].argv[a]);
                j->steps[i].argv[a] = v;
            }
    ks_touch(j);
    pthread_mutex_unlock(&ks_jlock);
}

void ks_step_json(ks_step *s)
{
    if (s) s->json = 1;
}

void ks_step_iters(ks_step *s, int iters)
{
    if (s) s->iters = iters;
}

/* The job holds the item (its file must outlive the job). */
static void ks_job_hold(ks_job *j, ks_item *it)
{
    for (int i = 0; i < j->nhold; i++)
        if (j->hold[i] == it) return;
    if (j->nhold >= KS_MAX_HOLD) {
        j->full = 1;
        return;
    }
    ks_item *h = ks_item_get(ks_item_id(it));
    if (h) j->hold[j->nhold++] = h;
}

void ks_arg_item(ks_step *s, ks_item *it)
{
    char shown[160];
    /* the name the user gave the file, as one shell word of safe characters */
    size_t o = 0;
    for (const char *c = ks_item_name(it); *c && o + 1 < sizeof shown; c++)
        shown[o++] = (strchr("-_.+,=", *c) || (*c >= '0' && *c <= '9') ||
                      (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z'))
                         ? *c
                         : '_';
    shown[o] = '\0';
    if (!s) return;
    ks_job_hold(s->job, it);
    ks_arg_shown(s, ks_item_path(it), o ? shown : "input");
}

ks_step *ks_job_post(ks_job *j, ks_post_fn fn, const char *note)
{
    ks_step *s = ks_new_step(j);
    if (!s) return NULL;
    s->post = fn;
    s->note = strdup(note ? note : "");
    return s;
}

void ks_job_result(ks_job *j, const char *file, const char *label, const char *role)
{
    if (j->nres >= KS_MAX_RESULTS) {
        j->full = 1;
        return;
    }
    ks_result *r = &j->res[j->nres++];
    snprintf(r->file, sizeof r->file, "%s", file);
    snprintf(r->label, sizeof r->label, "%s", label);
    snprintf(r->role, sizeof r->role, "%s", role);
}

void ks_job_metric(ks_job *j, const char *name, double value)
{
    pthread_mutex_lock(&ks_jlock);
    if (j->nmet < KS_MAX_METRICS) {
        snprintf(j->met_name[j->nmet], sizeof j->met_name[0], "%s", name);
        j->met[j->nmet++] = value;
        ks_touch(j); /* wakes the event streams */
    }
    pthread_mutex_unlock(&ks_jlock);
}

static int ks_compare_post(ks_job *j, char *err, size_t len)
{
    return ks_post_compare(j, j->cmp_x, j->cmp_ref, "err.npy", err, len);
}

void ks_job_compare(ks_job *j, const char *x, const char *ref)
{
    snprintf(j->cmp_x, sizeof j->cmp_x, "%s", x);
    snprintf(j->cmp_ref, sizeof j->cmp_ref, "%s", ref);
    ks_step *s = ks_job_tool(j, "metrics");
    ks_arg(s, "--json");
    ks_step_json(s);
    ks_arg(s, x);
    ks_arg(s, ref);
    char note[160], label[96];
    snprintf(note, sizeof note, "err.npy = |%s - %s|", x, ref);
    ks_job_post(j, ks_compare_post, note);
    snprintf(label, sizeof label, "error |%.*s - %.*s|", (int)strcspn(x, ".") % 40, x,
             (int)strcspn(ref, ".") % 40, ref);
    ks_job_result(j, "err.npy", label, "error");
}

const char *ks_job_json_line(ks_job *j, int index)
{
    return index >= 0 && index < j->njl ? j->jl[index] : NULL;
}

/* ---- the job table ------------------------------------------------------------------------- */

void ks_job_free(ks_job *j)
{
    for (int s = 0; s < j->nsteps; s++) {
        for (int a = 0; a < j->steps[s].argc && a <= KS_MAX_ARGS; a++) {
            free(j->steps[s].argv[a]);
            if (a < KS_MAX_ARGS) free(j->steps[s].shown[a]);
        }
        free(j->steps[s].note);
    }
    for (int i = 0; i < j->nhold; i++) ks_item_put(j->hold[i]);
    for (int i = 0; i < j->njl; i++) free(j->jl[i]);
    free(j->jl);
    free(j->sx);
    free(j->sy);
    free(j->data);
    free(j);
}

static ks_job *ks_find(int id)
{
    ks_job *j = ks_jobs;
    while (j && j->id != id) j = j->next;
    return j;
}

void ks_touch(ks_job *j) /* with ks_jlock held */
{
    j->version++;
    pthread_cond_broadcast(&ks_jcond);
}

/* Remove the oldest finished jobs beyond ks_cfg.keep (their items and directories too). */
void ks_prune(void)
{
    for (;;) {
        pthread_mutex_lock(&ks_jlock);
        int finished = 0;
        ks_job *old = NULL, **oldp = NULL;
        for (ks_job **pp = &ks_jobs; *pp; pp = &(*pp)->next)
            if ((*pp)->state >= KS_DONE) {
                finished++;
                old = *pp;
                oldp = pp;
            }
        if (finished <= ks_cfg.keep || !old) {
            pthread_mutex_unlock(&ks_jlock);
            return;
        }
        *oldp = old->next;
        pthread_cond_broadcast(&ks_jcond);
        pthread_mutex_unlock(&ks_jlock);
        ks_items_drop_job(old->id);
        ks_rm_tree(old->dir);
        ks_job_free(old);
    }
}

static const ks_page *const ks_pages[] = {&ks_page_mri, &ks_page_ct, &ks_page_bench, &ks_page_nc,
                                          &ks_page_fve};

int ks_job_submit(const char *page, const ks_params *p, ks_err *e, int *http_status)
{
    *http_status = 400;
    const ks_page *pg = NULL;
    for (size_t i = 0; i < sizeof ks_pages / sizeof ks_pages[0]; i++)
        if (page && !strcmp(page, ks_pages[i]->name)) pg = ks_pages[i];
    if (!pg) {
        ks_errf(e, "there is no page '%.40s' (mri, ct, bench, nc, fve)", page ? page : "");
        return 0;
    }
    ks_job *j = calloc(1, sizeof *j);
    if (!j) {
        *http_status = 503;
        ks_errf(e, "out of memory");
        return 0;
    }
    pthread_mutex_lock(&ks_jlock);
    j->id = ks_next_job++;
    pthread_mutex_unlock(&ks_jlock);
    j->page = pg;
    char name[32];
    snprintf(name, sizeof name, "j%d", j->id);
    ks_store_path(name, j->dir, sizeof j->dir);
    if (mkdir(j->dir, 0700) != 0) {
        *http_status = 503;
        ks_errf(e, "cannot create the job's directory: %s", strerror(errno));
        free(j);
        return 0;
    }
    if (pg->plan(j, p, e) != 0 || j->full) {
        if (j->full) ks_errf(e, "the job of page '%s' is too large to plan", pg->name);
        ks_rm_tree(j->dir);
        ks_job_free(j);
        return 0;
    }
    for (int s = 0; s < j->nsteps; s++)
        if (j->steps[s].argc > KS_MAX_ARGS) {
            ks_errf(e, "the job of page '%s' has too many arguments", pg->name);
            ks_rm_tree(j->dir);
            ks_job_free(j);
            return 0;
        }
    pthread_mutex_lock(&ks_jlock);
    int queued = 0;
    for (ks_job *q = ks_jobs; q; q = q->next) queued += q->state == KS_QUEUED;
    if (queued >= KS_MAX_QUEUED || ks_stop) {
        pthread_mutex_unlock(&ks_jlock);
        *http_status = 503;
        ks_errf(e, "%d jobs are waiting already; try again when some have finished", queued);
        ks_rm_tree(j->dir);
        ks_job_free(j);
        return 0;
    }
    j->state = KS_QUEUED;
    j->t0 = kr_time_now();
    j->next = ks_jobs;
    ks_jobs = j;
    int id = j->id;
    pthread_cond_signal(&ks_wcond);
    pthread_mutex_unlock(&ks_jlock);
    ks_prune();
    return id;
}

int ks_job_cancel(int id)
{
    pthread_mutex_lock(&ks_jlock);
    ks_job *j = ks_find(id);
    if (!j) {
        pthread_mutex_unlock(&ks_jlock);
        return -1;
    }
    if (j->state <= KS_RUNNING) {
        j->cancel = 1;
        if (j->pid > 0) kill(-j->pid, SIGTERM);
        if (j->state == KS_QUEUED) {
            j->state = KS_CANCELLED;
            j->t1 = kr_time_now();
            snprintf(j->message, sizeof j->message, "cancelled");
        }
        ks_touch(j);
    }
    pthread_mutex_unlock(&ks_jlock);
    return 0;
}

/* Shell-quote one word for the command list. */
static void ks_quote(ks_buf *b, const char *w)
{
    int plain = *w != '\0';
    for (const char *c = w; *c; c++)
        if (!strchr("-_./:=,+%@", *c) && !(*c >= '0' && *c <= '9') && !(*c >= 'a' && *c <= 'z') &&
            !(*c >= 'A' && *c <= 'Z'))
            plain = 0;
    if (plain) {
        ks_buf_puts(b, w);
        return;
    }
    ks_buf_puts(b, "'");
    for (const char *c = w; *c; c++) {
        if (*c == '\'')
            ks_buf_puts(b, "'\\''");
        else
            ks_buf_put(b, c, 1);
    }
    ks_buf_puts(b, "'");
}

static void ks_job_json(ks_job *j, kc_jo *o)
{
    kc_jo_int(o, "id", j->id);
    kc_jo_str(o, "page", j->page->name);
    kc_jo_str(o, "state", ks_state_names[j->state]);
    double done = j->state == KS_DONE ? 1.0 : (j->cur + j->frac) / (j->nsteps ? j->nsteps : 1);
    kc_jo_num(o, "progress", done);
    kc_jo_int(o, "step", j->cur);
    kc_jo_int(o, "steps", j->nsteps);
    kc_jo_str(o, "task", j->task);
    kc_jo_str(o, "message", j->message);
    double end = j->state >= KS_DONE ? j->t1 : kr_time_now();
    kc_jo_num(o, "seconds", j->state == KS_QUEUED ? 0.0 : end - j->t0);
    kc_jo_array(o, "commands");
    for (int i = 0; i < j->nsteps; i++) {
        ks_step *s = &j->steps[i];
        ks_buf b = {0};
        if (s->post) {
            ks_buf_printf(&b, "# %s", s->note);
        } else {
            for (int a = 0; a < s->argc; a++) {
                if (a) ks_buf_puts(&b, " ");
                ks_quote(&b, s->shown[a] ? s->shown[a] : s->argv[a]);
            }
        }
        kc_jo_str(o, NULL, b.p ? b.p : "");
        ks_buf_free(&b);
    }
    kc_jo_end_array(o);
    kc_jo_array(o, "results");
    for (int i = 0; i < j->nres; i++) {
        if (!j->res[i].item) continue;
        kc_jo_object(o, NULL);
        kc_jo_str(o, "label", j->res[i].label);
        kc_jo_str(o, "role", j->res[i].role);
        kc_jo_str(o, "file", j->res[i].file);
        kc_jo_int(o, "item", j->res[i].item);
        kc_jo_end_object(o);
    }
    kc_jo_end_array(o);
    kc_jo_object(o, "metrics");
    for (int i = 0; i < j->nmet; i++) kc_jo_num(o, j->met_name[i], j->met[i]);
    kc_jo_end_object(o);
    kc_jo_str(o, "series", j->sname);
    kc_jo_array(o, "residual");
    for (int i = 0; i < j->ns; i++) {
        double xy[2] = {j->sx[i], j->sy[i]};
        kc_jo_nums(o, NULL, 2, xy);
    }
    kc_jo_end_array(o);
    kc_jo_array(o, "json");
    for (int i = 0; i < j->njl; i++) kri_jw_raw(&o->w, j->jl[i]); /* checked when kept */
    kc_jo_end_array(o);
}

char *ks_job_status(int id, unsigned *version, int *final)
{
    pthread_mutex_lock(&ks_jlock);
    ks_job *j = ks_find(id);
    if (!j) {
        pthread_mutex_unlock(&ks_jlock);
        return NULL;
    }
    kc_jo o;
    kc_jo_begin(&o);
    ks_job_json(j, &o);
    if (version) *version = j->version;
    if (final) *final = j->state >= KS_DONE;
    pthread_mutex_unlock(&ks_jlock);
    size_t len = 0;
    return kc_jo_text(&o, &len);
}

int ks_job_wait(int id, unsigned version, double timeout_s)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    double frac = timeout_s - floor(timeout_s);
    ts.tv_sec += (time_t)floor(timeout_s);
    ts.tv_nsec += (long)(frac * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    int r = 0;
    pthread_mutex_lock(&ks_jlock);
    for (;;) {
        ks_job *j = ks_find(id);
        if (!j) {
            r = -1;
            break;
        }
        if (j->version != version || j->state >= KS_DONE || ks_stop) {
            r = 1;
            break;
        }
        if (pthread_cond_timedwait(&ks_jcond, &ks_jlock, &ts) == ETIMEDOUT) break;
    }
    pthread_mutex_unlock(&ks_jlock);
    return r;
}

void ks_jobs_json(kc_jo *o)
{
    kc_jo_array(o, "jobs");
    pthread_mutex_lock(&ks_jlock);
    for (ks_job *j = ks_jobs; j; j = j->next) {
        kc_jo_object(o, NULL);
        kc_jo_int(o, "id", j->id);
        kc_jo_str(o, "page", j->page->name);
        kc_jo_str(o, "state", ks_state_names[j->state]);
        kc_jo_end_object(o);
    }
    pthread_mutex_unlock(&ks_jlock);
    kc_jo_end_array(o);
}
