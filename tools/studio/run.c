/* kray studio: running jobs (see jobs.c): worker threads, child processes, their output. */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np, pipe2 */
#include "jobs_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int ks_nworkers;
static pthread_t ks_workers[64];
static char ks_self[4096];
static char **ks_env;

/* ---- running ------------------------------------------------------------------------------- */
/* One line of a child's stderr: progress, a residual, or a sentence. */
static void ks_stderr_line(ks_job *j, char *line)
{
    const char *p;
    int pct;
    double t;
    char task[64];
    pthread_mutex_lock(&ks_jlock);
    if ((p = strstr(line, ": iteration ")) != NULL) {
        int k;
        double r;
        const char *what = NULL;
        if (sscanf(p, ": iteration %d: relative residual %lg", &k, &r) == 2)
            what = "relative residual";
        else if (sscanf(p, ": iteration %d: objective %lg", &k, &r) == 2)
            what = "objective";
        if (what) {
            if (k == 0 || strcmp(what, j->sname)) j->ns = 0; /* a new solve: a new curve */
            snprintf(j->sname, sizeof j->sname, "%s", what);
            if (!j->sx) {
                j->sx = malloc(KS_MAX_SERIES * sizeof *j->sx);
                j->sy = malloc(KS_MAX_SERIES * sizeof *j->sy);
            }
            if (j->sx && j->sy && j->ns < KS_MAX_SERIES) {
                j->sx[j->ns] = k;
                j->sy[j->ns] = r;
                j->ns++;
            }
            const ks_step *s = &j->steps[j->cur];
            if (s->iters > 0) j->frac = k < s->iters ? (double)k / s->iters : 1.0;
        }
    } else if (sscanf(line, "kray: %63[^:]: %d%% after %lg s", task, &pct, &t) == 3) {
        j->frac = pct / 100.0;
        snprintf(j->task, sizeof j->task, "%s", task);
    } else if (!strncmp(line, "kray ", 5)) { /* a tool's own sentence (error, warning, note) */
        snprintf(j->message, sizeof j->message, "%s", line);
    }
    ks_touch(j);
    pthread_mutex_unlock(&ks_jlock);
}

static void ks_stdout_line(ks_job *j, const char *line)
{
    if (!*line || !j->steps[j->cur].json) return;
    kri_json *v = NULL; /* only valid JSON lines are kept (they travel as values) */
    const int valid = kri_json_parse(line, strlen(line), "tool output", &v) == KR_OK;
    kri_json_free(v);
    if (!valid) return;
    char *c = strdup(line);
    if (!c) return;
    /* under the lock: a status request reads j->jl at any time (ks_job_json) */
    pthread_mutex_lock(&ks_jlock);
    char **jl = realloc(j->jl, (size_t)(j->njl + 1) * sizeof *jl);
    if (!jl) {
        pthread_mutex_unlock(&ks_jlock);
        free(c);
        return;
    }
    j->jl = jl;
    j->jl[j->njl++] = c;
    ks_touch(j);
    pthread_mutex_unlock(&ks_jlock);
}

/* Split complete lines out of buf (n bytes) and hand them to fn; keeps the rest. */
static void ks_lines(ks_job *j, char *buf, size_t *n, int out, int flush)
{
    size_t start = 0;
    for (size_t i = 0; i < *n; i++)
        if (buf[i] == '\n' || buf[i] == '\r') {
            buf[i] = '\0';
            if (out)
                ks_stdout_line(j, buf + start);
            else
                ks_stderr_line(j, buf + start);
            start = i + 1;
        }
    if (flush && start < *n) {
        buf[*n] = '\0';
        if (out)
            ks_stdout_line(j, buf + start);
        else
            ks_stderr_line(j, buf + start);
        start = *n;
    }
    memmove(buf, buf + start, *n - start);
    *n -= start;
}

/* Run `kray <tool> ...` in the job's directory. Returns the exit status, 128 + signal when
 * killed, or -1 when it could not start (sentence in err). */
static int ks_spawn(ks_job *j, ks_step *s, char *err, size_t len)
{
    int po[2] = {-1, -1}, pe[2] = {-1, -1};
    if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0) {
        snprintf(err, len, "cannot start kray %s: %s", s->argv[1], strerror(errno));
        if (po[0] >= 0) {
            close(po[0]);
            close(po[1]);
        }
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    posix_spawn_file_actions_addchdir_np(&fa, j->dir);
    posix_spawnattr_init(&at);
    sigset_t none, def;
    sigemptyset(&none);
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGTERM);
    sigaddset(&def, SIGHUP);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setsigdefault(&at, &def);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
    pid_t pid = 0;
    pthread_mutex_lock(&ks_jlock);
    int rc = j->cancel ? ECANCELED : posix_spawn(&pid, ks_self, &fa, &at, s->argv, ks_env);
    if (rc == 0) j->pid = pid;
    pthread_mutex_unlock(&ks_jlock);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(po[1]);
    close(pe[1]);
    if (rc != 0) {
        close(po[0]);
        close(pe[0]);
        if (rc == ECANCELED) return 128 + SIGTERM;
        snprintf(err, len, "cannot start kray %s: %s", s->argv[1], strerror(rc));
        return -1;
    }
    char ob[8192], eb[8192];
    size_t on = 0, en = 0;
    struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
    int open_fds = 2;
    double killed = 0;
    while (open_fds > 0) {
        int r = poll(fds, 2, 200);
        if (r < 0 && errno != EINTR) break;
        for (int k = 0; k < 2 && r > 0; k++) {
            if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char *b = k ? eb : ob;
            size_t *n = k ? &en : &on;
            ssize_t got = read(fds[k].fd, b + *n, sizeof ob - 1 - *n);
            if (got > 0) {
                *n += (size_t)got;
                ks_lines(j, b, n, !k, *n == sizeof ob - 1);
            } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
                ks_lines(j, b, n, !k, 1);
                close(fds[k].fd);
                fds[k].fd = -1;
                open_fds--;
            }
        }
        pthread_mutex_lock(&ks_jlock);
        int cancel = j->cancel;
        pthread_mutex_unlock(&ks_jlock);
        if (cancel && !killed) killed = kr_time_now(); /* SIGTERM went with the request */
        if (killed && kr_time_now() - killed > 2.0) {
            kill(-pid, SIGKILL);
            killed = 1e300;
        }
    }
    for (int k = 0; k < 2; k++)
        if (fds[k].fd >= 0) close(fds[k].fd);
    siginfo_t si;
    memset(&si, 0, sizeof si);
    while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) != 0 && errno == EINTR) {
    }
    pthread_mutex_lock(&ks_jlock);
    j->pid = 0; /* from here on nobody signals the group: its id may be reused once reaped */
    pthread_mutex_unlock(&ks_jlock);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(st)) return WEXITSTATUS(st);
    return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static void ks_run(ks_job *j)
{
    char err[1024] = "";
    int ok = 1;
    for (int i = 0; i < j->nsteps && ok; i++) {
        ks_step *s = &j->steps[i];
        pthread_mutex_lock(&ks_jlock);
        j->cur = i;
        j->frac = 0;
        snprintf(j->task, sizeof j->task, "%s", s->post ? "studio" : s->argv[1]);
        int cancel = j->cancel;
        ks_touch(j);
        pthread_mutex_unlock(&ks_jlock);
        if (cancel) break;
        if (s->post) {
            kr_clear_error();
            if (s->post(j, err, sizeof err) != 0) ok = 0;
            continue;
        }
        int rc = ks_spawn(j, s, err, sizeof err);
        if (rc != 0) {
            ok = 0;
            pthread_mutex_lock(&ks_jlock);
            if (rc > 0 && !j->cancel) {
                if (j->message[0])
                    snprintf(err, sizeof err, "%s", j->message);
                else if (rc > 128)
                    snprintf(err, sizeof err, "kray %s ended by signal %d", s->argv[1], rc - 128);
                else
                    snprintf(err, sizeof err, "kray %s exited with status %d", s->argv[1], rc);
            }
            pthread_mutex_unlock(&ks_jlock);
        } else {
            pthread_mutex_lock(&ks_jlock);
            j->message[0] = '\0'; /* a note of a step that succeeded is not the job's sentence */
            pthread_mutex_unlock(&ks_jlock);
        }
    }
    /* the results, as items of the session */
    if (ok) {
        for (int i = 0; i < j->nres; i++) {
            char path[4096];
            struct stat st;
            ks_job_file(j, j->res[i].file, path, sizeof path);
            if (stat(path, &st) != 0) continue;
            const int item = ks_item_add(j->id, path, j->res[i].label, j->res[i].role);
            pthread_mutex_lock(&ks_jlock); /* status requests read it */
            j->res[i].item = item;
            pthread_mutex_unlock(&ks_jlock);
        }
    }
    pthread_mutex_lock(&ks_jlock);
    j->t1 = kr_time_now();
    if (j->cancel) {
        j->state = KS_CANCELLED;
        snprintf(j->message, sizeof j->message, "cancelled");
    } else if (!ok) {
        j->state = KS_FAILED;
        snprintf(j->message, sizeof j->message, "%s", err[0] ? err : "the job failed");
    } else {
        j->state = KS_DONE;
        j->frac = 1;
    }
    ks_touch(j);
    pthread_mutex_unlock(&ks_jlock);
}

static void *ks_worker(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&ks_jlock);
        ks_job *j = NULL;
        while (!ks_stop) {
            for (ks_job *q = ks_jobs; q; q = q->next)
                if (q->state == KS_QUEUED) j = q; /* the oldest queued one */
            if (j) break;
            pthread_cond_wait(&ks_wcond, &ks_jlock);
        }
        if (ks_stop) {
            pthread_mutex_unlock(&ks_jlock);
            return NULL;
        }
        j->state = KS_RUNNING;
        j->t0 = kr_time_now();
        ks_touch(j);
        pthread_mutex_unlock(&ks_jlock);
        ks_run(j);
        ks_prune();
    }
}

int ks_jobs_start(void)
{
    ssize_t n = readlink("/proc/self/exe", ks_self, sizeof ks_self - 1);
    if (n <= 0) {
        fprintf(stderr, "kray studio: cannot find its own executable (/proc/self/exe): %s\n",
                strerror(errno));
        return -1;
    }
    ks_self[n] = '\0';
    size_t ne = 0;
    while (environ[ne]) ne++;
    ks_env = calloc(ne + 2, sizeof *ks_env);
    if (!ks_env) return -1;
    size_t k = 0;
    for (size_t i = 0; i < ne; i++)
        if (strncmp(environ[i], "KRAY_PROGRESS_SECONDS=", 22)) ks_env[k++] = environ[i];
    ks_env[k++] = "KRAY_PROGRESS_SECONDS=0.2";
    ks_env[k] = NULL;
    ks_nworkers = ks_cfg.jobs < 1 ? 1 : ks_cfg.jobs > 64 ? 64 : ks_cfg.jobs;
    for (int i = 0; i < ks_nworkers; i++)
        if (pthread_create(&ks_workers[i], NULL, ks_worker, NULL) != 0) {
            ks_nworkers = i;
            return -1;
        }
    return 0;
}

int ks_jobs_stopping(void)
{
    pthread_mutex_lock(&ks_jlock);
    int s = ks_stop;
    pthread_mutex_unlock(&ks_jlock);
    return s;
}

void ks_jobs_stop(void)
{
    pthread_mutex_lock(&ks_jlock);
    ks_stop = 1;
    for (ks_job *j = ks_jobs; j; j = j->next) {
        j->cancel = 1;
        if (j->pid > 0) kill(-j->pid, SIGTERM);
    }
    pthread_cond_broadcast(&ks_wcond);
    pthread_cond_broadcast(&ks_jcond);
    pthread_mutex_unlock(&ks_jlock);
    for (int i = 0; i < ks_nworkers; i++) pthread_join(ks_workers[i], NULL);
    ks_nworkers = 0;
    pthread_mutex_lock(&ks_jlock);
    while (ks_jobs) {
        ks_job *j = ks_jobs;
        ks_jobs = j->next;
        ks_job_free(j);
    }
    pthread_mutex_unlock(&ks_jlock);
    free(ks_env);
    ks_env = NULL;
}
