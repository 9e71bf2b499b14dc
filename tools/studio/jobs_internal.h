/* kray studio: what jobs.c (the table, planning, status) and run.c (workers, child processes)
 * share. Every field below a job's plan is read and written with ks_jlock held. */
#ifndef KRAY_TOOLS_STUDIO_JOBS_INTERNAL_H
#define KRAY_TOOLS_STUDIO_JOBS_INTERNAL_H

#include "studio.h"

#include <pthread.h>
#include <sys/types.h>

#define KS_MAX_STEPS 16
#define KS_MAX_ARGS 72
#define KS_MAX_RESULTS 24
#define KS_MAX_METRICS 40
#define KS_MAX_HOLD 8
#define KS_MAX_QUEUED 64
#define KS_MAX_SERIES 4096

struct ks_step {
    ks_job *job;
    char *argv[KS_MAX_ARGS + 1]; /* "kray", tool, arguments, NULL */
    char *shown[KS_MAX_ARGS];    /* what the command line shows instead (NULL: argv) */
    int argc;
    int json;  /* keep the child's stdout lines (JSON) */
    int iters; /* iterations the tool runs (progress from its -v lines), or 0 */
    ks_post_fn post;
    char *note;
};

typedef struct ks_result {
    char file[64], label[96], role[16];
    int item;
} ks_result;

typedef enum { KS_QUEUED, KS_RUNNING, KS_DONE, KS_FAILED, KS_CANCELLED } ks_state;

struct ks_job {
    int id;
    const ks_page *page;
    char dir[4096];
    ks_step steps[KS_MAX_STEPS];
    int nsteps, cur, full; /* full: the plan ran out of room */
    ks_result res[KS_MAX_RESULTS];
    int nres;
    char met_name[KS_MAX_METRICS][64];
    double met[KS_MAX_METRICS];
    int nmet;
    ks_item *hold[KS_MAX_HOLD];
    int nhold;
    double *sx, *sy; /* residual (or objective) per iteration of the running step */
    int ns;
    char sname[32]; /* what sy holds */
    char **jl;      /* JSON lines of the tools */
    int njl;
    ks_state state;
    double frac; /* progress within the running step */
    char task[64];
    char message[1024];
    double t0, t1;
    pid_t pid;
    int cancel;
    unsigned version;
    void *data;
    char cmp_x[64], cmp_ref[64]; /* ks_job_compare */
    ks_job *next;
};

extern pthread_mutex_t ks_jlock;
extern pthread_cond_t ks_jcond; /* any job changed */
extern pthread_cond_t ks_wcond; /* a job was queued */
extern ks_job *ks_jobs;         /* newest first */
extern int ks_stop;

/* With ks_jlock held: bump the job's event counter and wake the waiters. */
void ks_touch(ks_job *j);
/* Free a job that is in no list (its held items released). */
void ks_job_free(ks_job *j);
/* Remove the oldest finished jobs beyond ks_cfg.keep. */
void ks_prune(void);

#endif
