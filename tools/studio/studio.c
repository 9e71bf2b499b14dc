/* kray studio: the tool (options, start, signals, shutdown). Built without libmicrohttpd, the
 * tool is still listed and says in one sentence that this build has no studio. */
#ifdef KRAY_HAVE_STUDIO
#include "studio.h"
#else
#include "cli.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef KRAY_HAVE_STUDIO
#include <spawn.h>
#include <sys/random.h>
#include <sys/wait.h>

extern char **environ;

ks_config ks_cfg;

/* 32 random bytes as 64 hex digits. */
static int ks_make_token(char *t, size_t len)
{
    unsigned char r[32];
    size_t got = 0;
    while (got < sizeof r) {
        ssize_t n = getrandom(r + got, sizeof r - got, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return -1;
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof r && 2 * i + 2 < len; i++) snprintf(t + 2 * i, 3, "%02x", r[i]);
    return 0;
}

/* --open: the desktop's browser (xdg-open), detached; a failure is only a note. */
static void ks_open_browser(const char *url)
{
    char *argv[] = {"xdg-open", (char *)url, NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    if (posix_spawnp(&pid, "xdg-open", &fa, NULL, argv, environ) != 0)
        kc_note("studio", "cannot start a browser (xdg-open); open the address above yourself");
    posix_spawn_file_actions_destroy(&fa);
}
#endif

int kc_tool_studio(int argc, char **argv)
{
    const char *host = "127.0.0.1";
    int port = 8765, open_browser = 0, jobs = 2, keep = 32;
    int64_t max_upload = (int64_t)256 << 20;
    const kc_opt opts[] = {
        {"port", 0, KC_INT, &port, "8765", "N", "TCP port (0: any free port, printed)", NULL, 0,
         65535, NULL},
        {"listen", 0, KC_STRING, &host, "127.0.0.1", "ADDR",
         "address to listen on; anything but loopback (127.0.0.1, ::1) must be asked for, and "
         "then the printed token is what keeps others out",
         NULL, 0, 0, NULL},
        {"open", 0, KC_FLAG, &open_browser, NULL, NULL, "open the address in the desktop's browser",
         NULL, 0, 0, NULL},
        {"max-upload", 0, KC_INT64, &max_upload, "268435456", "BYTES",
         "largest file a page may upload", NULL, 1, 1e12, NULL},
        {"jobs", 0, KC_INT, &jobs, "2", "N", "jobs computed at once (more wait in a queue)", NULL,
         1, 64, NULL},
        {"keep", 0, KC_INT, &keep, "32", "N", "finished jobs kept with their files", NULL, 1, 10000,
         NULL},
        {0}};
    const kc_spec spec = {
        "studio",
        "A local web application over kray: MRI simulation and SENSE, CT reconstruction and\n"
        "its benchmark battery, non-Cartesian MRI and flow spectra, and a viewer of every file\n"
        "kray reads. Serves plain HTML and JavaScript from this executable on 127.0.0.1 and\n"
        "prints the address with a random access token that every request must carry. Jobs run\n"
        "kray's own tools (on the GPU when there is one) and show the equivalent command lines.\n"
        "Files live in a temporary directory removed on exit (Ctrl-C). docs/studio.md.",
        opts,
        NULL,
        0,
        "Examples:\n  kray studio\n  kray studio --port 0 --open\n"
        "  kray studio --backend cpu --jobs 4 --max-upload 1073741824",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
#ifndef KRAY_HAVE_STUDIO
    (void)host;
    (void)port;
    (void)open_browser;
    (void)jobs;
    (void)keep;
    (void)max_upload;
    return kc_error("studio", "this build of kray has no studio (libmicrohttpd was not found "
                              "when it was built: install libmicrohttpd-dev and build again)");
#else
    char common[256] = "";
    size_t o = 0;
    if (c.backend != (int)KR_BACKEND_AUTO)
        o += (size_t)snprintf(common + o, sizeof common - o, "--backend %s ",
                              kr_backend_name((kr_backend)c.backend));
    if (c.device) o += (size_t)snprintf(common + o, sizeof common - o, "--device %d ", c.device);
    if (c.threads) o += (size_t)snprintf(common + o, sizeof common - o, "--threads %d ", c.threads);
    if (c.precision) o += (size_t)snprintf(common + o, sizeof common - o, "--precision f64 ");
    if (c.allow_nonfinite)
        o += (size_t)snprintf(common + o, sizeof common - o, "--allow-nonfinite ");
    if (o) common[o - 1] = '\0';
    ks_cfg.host = host;
    ks_cfg.port = port;
    ks_cfg.max_upload = max_upload;
    ks_cfg.jobs = jobs;
    ks_cfg.keep = keep;
    ks_cfg.common = common;
    ks_cfg.quiet = c.quiet;

    /* SIGINT, SIGTERM, SIGHUP end the server: blocked in every thread and taken by sigwait
     * below; the children get them back at their default (jobs.c). */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    signal(SIGPIPE, SIG_IGN);

    char token[80];
    if (ks_make_token(token, sizeof token) != 0)
        return kc_error("studio", "cannot draw a random token: %s", strerror(errno));
    if (ks_store_init() != 0)
        return kc_error("studio", "cannot create a temporary directory: %s", strerror(errno));
    int bound = 0;
    if (ks_jobs_start() != 0 || ks_server_start(token, &bound) != 0) {
        ks_jobs_stop();
        ks_store_cleanup();
        return KC_EXIT_INPUT;
    }
    char url[512];
    const char *shown = strchr(host, ':') ? NULL : host;
    if (shown && (!strcmp(shown, "0.0.0.0") || !strcmp(shown, "localhost"))) shown = "127.0.0.1";
    if (shown)
        snprintf(url, sizeof url, "http://%s:%d/?token=%s", shown, bound, token);
    else
        snprintf(url, sizeof url, "http://[%s]:%d/?token=%s", strcmp(host, "::") ? host : "::1",
                 bound, token);
    printf("kray studio: %s\n", url);
    if (!c.quiet)
        printf("kray studio: files in %s; press Ctrl-C to stop (the files go too)\n",
               ks_store_dir());
    fflush(stdout);
    if (open_browser) ks_open_browser(url);

    int sig = 0;
    while (sigwait(&stop, &sig) != 0) {
    }
    if (!c.quiet) {
        printf("kray studio: stopping (signal %d)\n", sig);
        fflush(stdout);
    }
    ks_jobs_stop();
    ks_server_stop();
    ks_store_cleanup();
    while (waitpid(-1, NULL, WNOHANG) > 0) { /* a browser started by --open */
    }
    return 0;
#endif
}
