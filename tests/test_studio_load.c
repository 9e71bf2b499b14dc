/* kray studio under load: KRAY_STUDIO_LOAD_CLIENTS clients (20) at once, each submitting small
 * jobs of the CT, MRI and non-Cartesian pages in turn, waiting for them and reading a slice of
 * a result, for KRAY_STUDIO_LOAD_SECONDS (10 in `make test`; the full run is 60: see
 * docs/studio.md) in two phases: the warm-up (the first third of the time, and a job per
 * client at least) and the rest (a job per client at least). No request and no job may fail; the
 * server's resident memory and open files must be flat: after the warm-up and at the end they
 * differ by at most 8 MiB (or 5 %) and 2 descriptors (the memory check is skipped under
 * AddressSanitizer, whose quarantine keeps freed memory). One JSON line with the figures goes to
 * stdout. */
#include "studio_util.h"

#include <dirent.h>
#include <pthread.h>

#if defined(__SANITIZE_ADDRESS__)
#define KST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KST_ASAN 1
#endif
#endif
#ifndef KST_ASAN
#define KST_ASAN 0
#endif

static kst_srv S;
static double T_END;
static int MIN_JOBS; /* jobs each client runs whatever the time */
static pthread_mutex_t L = PTHREAD_MUTEX_INITIALIZER;
static long N_JOBS, N_REQ, N_FAIL;
static char FIRST_FAIL[512];

static double kst_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void kst_fail(const char *fmt, ...)
{
    va_list ap;
    pthread_mutex_lock(&L);
    if (!N_FAIL++) {
        va_start(ap, fmt);
        vsnprintf(FIRST_FAIL, sizeof FIRST_FAIL, fmt, ap);
        va_end(ap);
    }
    pthread_mutex_unlock(&L);
}

static const char *const KST_JOBS[] = {
    "page=ct&size=16&views=16",
    "page=mri&size=16&coils=2&seq=gre&dummy=2",
    "page=nc&size=16&spokes=16&coils=0&dcf=none",
    "page=ct&size=16&views=16&algo=sirt&iters=3",
};

static void *kst_client(void *arg)
{
    long k = (long)arg;
    for (long it = 0; it < MIN_JOBS || kst_now() < T_END; it++) {
        const char *q = KST_JOBS[(k + it) % (sizeof KST_JOBS / sizeof KST_JOBS[0])];
        int st = 0;
        int id = kst_submit(&S, q, &st);
        long req = 1;
        if (!id) {
            kst_fail("submit %s: status %d", q, st);
            continue;
        }
        kri_json *j = kst_wait_job(&S, id, 300);
        if (!j || strcmp(kst_str(j, "state"), "done")) {
            kst_fail("job %d (%s): %s %s", id, q, j ? kst_str(j, "state") : "timeout",
                     j ? kst_str(j, "message") : "");
            kri_json_free(j);
            continue;
        }
        const kri_json *res = kri_json_get(j, "results");
        for (size_t i = 0; res && i < res->n; i++) {
            if (strcmp(kst_str(res->items[i], "role"), "image")) continue;
            kst_resp r;
            req++;
            if (kst_do(&S, "GET", &r, "/api/item/%d/slice", (int)kst_num(res->items[i], "item")) !=
                    0 ||
                r.status != 200)
                kst_fail("slice of job %d: status %d", id, r.status);
            kst_free(&r);
            break;
        }
        kri_json_free(j);
        pthread_mutex_lock(&L);
        N_JOBS++;
        N_REQ += req;
        pthread_mutex_unlock(&L);
    }
    return NULL;
}

static long kst_rss_kb(void)
{
    char p[64], line[256];
    snprintf(p, sizeof p, "/proc/%d/status", (int)S.pid);
    FILE *f = fopen(p, "r");
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6)) kb = atol(line + 6);
    if (f) fclose(f);
    return kb;
}

static int kst_fds(void)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%d/fd", (int)S.pid);
    int n = 0;
    DIR *d = opendir(p);
    struct dirent *e;
    while (d && (e = readdir(d))) n += e->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

/* Run the clients until `until` (monotonic seconds), each `min_jobs` jobs at least. */
static void kst_phase(int clients, double until, int min_jobs)
{
    pthread_t th[256];
    T_END = until;
    MIN_JOBS = min_jobs;
    for (long k = 0; k < clients; k++) pthread_create(&th[k], NULL, kst_client, (void *)k);
    for (int k = 0; k < clients; k++) pthread_join(th[k], NULL);
}

static void test_load(void)
{
    const char *e = getenv("KRAY_STUDIO_LOAD_SECONDS");
    const char *c = getenv("KRAY_STUDIO_LOAD_CLIENTS");
    double seconds = e && atof(e) > 0 ? atof(e) : 10;
    int clients = c && atoi(c) > 0 && atoi(c) <= 256 ? atoi(c) : 20;
    double t0 = kst_now();
    /* warm-up: a job per client at least, so that threads, arenas, caches and nearly all of
     * the 24 finished jobs the server keeps are there */
    kst_phase(clients, t0 + seconds / 3, 1);
    usleep(500000);
    long rss1 = kst_rss_kb(), jobs1 = N_JOBS;
    int fd1 = kst_fds();
    kst_phase(clients, t0 + seconds, 1);
    usleep(500000);
    long rss2 = kst_rss_kb();
    int fd2 = kst_fds();
    double t = kst_now() - t0;
    printf("{\"test\": \"studio_load\", \"clients\": %d, \"seconds\": %.1f, \"jobs\": %ld, "
           "\"jobs_per_s\": %.2f, \"submissions_and_slices\": %ld, \"failures\": %ld, "
           "\"rss_kb_warm\": %ld, "
           "\"rss_kb_end\": %ld, \"fds_warm\": %d, \"fds_end\": %d, \"jobs_warm\": %ld, "
           "\"asan\": %d}\n",
           clients, t, N_JOBS, (double)N_JOBS / t, N_REQ, N_FAIL, rss1, rss2, fd1, fd2, jobs1,
           KST_ASAN);
    KT_CHECK_MSG(N_FAIL == 0, "%ld failures; the first: %s", N_FAIL, FIRST_FAIL);
    KT_CHECK(N_JOBS >= clients);
    KT_CHECK_MSG(fd2 <= fd1 + 2, "open files %d after the warm-up, %d at the end", fd1, fd2);
    if (!KST_ASAN) {
        long allow = rss1 / 20 > 8192 ? rss1 / 20 : 8192;
        KT_CHECK_MSG(rss2 <= rss1 + allow,
                     "resident memory %ld KiB after the warm-up, %ld KiB at "
                     "the end (more than %ld KiB)",
                     rss1, rss2, allow);
    }
    kst_resp rr;
    KT_CHECK(kst_do(&S, "GET", &rr, "/api/info") == 0 && rr.status == 200);
    kst_free(&rr);
}

int main(void)
{
    const char *extra[] = {"--keep", "24", NULL};
    int r = kst_start(&S, extra);
    if (r == 77) kt_skip("this build of kray has no studio (or KRAY is not set)");
    if (r != 0) return 1;
    KT_RUN(test_load);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", S.tmp);
    int code = kst_stop(&S);
    rmdir(dir);
    if (code != 0) {
        fprintf(stderr, "kray studio exited %d after SIGTERM\n", code);
        return 1;
    }
    return kt_finish();
}
