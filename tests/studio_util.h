/* Helpers of the kray studio tests (test_studio_api.c, test_studio_load.c): start `kray studio`
 * on a free port with a fresh TMPDIR, a plain HTTP/1.1 client over a socket (Connection: close,
 * chunked bodies decoded), and JSON answers read with kray's own parser. */
#ifndef KRAY_TESTS_STUDIO_UTIL_H
#define KRAY_TESTS_STUDIO_UTIL_H

#define _GNU_SOURCE
#include "json.h"
#include "kt.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct kst_srv {
    pid_t pid;
    int port;
    char token[96];
    char tmp[4096]; /* the server's TMPDIR */
} kst_srv;

typedef struct kst_resp {
    int status;
    char *head; /* header lines */
    char *body; /* NUL-terminated (binary bodies: use len) */
    size_t len;
} kst_resp;

/* Start `$KRAY studio --port 0 -q extra...` with TMPDIR = a new directory under KRAY_TMP.
 * Returns 0, 77 when there is no KRAY or the build has no studio, -1 on failure. */
static int kst_start(kst_srv *s, const char *const *extra)
{
    memset(s, 0, sizeof *s);
    const char *kray = getenv("KRAY");
    if (!kray || !*kray) return 77;
    const char *base = getenv("KRAY_TMP");
    if (!base || !*base) base = "/tmp";
    mkdir(base, 0777);
    snprintf(s->tmp, sizeof s->tmp, "%s/studio-test-XXXXXX", base);
    if (!mkdtemp(s->tmp)) return -1;
    int p[2];
    if (pipe(p) != 0) return -1;
    const char *argv[32] = {kray, "studio", "--port", "0", "-q"};
    int n = 5;
    for (int i = 0; extra && extra[i] && n < 31; i++) argv[n++] = extra[i];
    argv[n] = NULL;
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        dup2(p[1], 1);
        dup2(p[1], 2);
        close(p[0]);
        close(p[1]);
        setenv("TMPDIR", s->tmp, 1);
        execv(kray, (char *const *)argv);
        _exit(127);
    }
    close(p[1]);
    char line[1024];
    size_t o = 0;
    while (o + 1 < sizeof line) { /* the first line: the address, or why not */
        ssize_t r = read(p[0], line + o, 1);
        if (r <= 0 || line[o] == '\n') break;
        o++;
    }
    line[o] = '\0';
    close(p[0]);
    s->pid = pid;
    const char *u = strstr(line, "http://127.0.0.1:");
    const char *t = strstr(line, "token=");
    if (!u || !t) {
        int st = 0;
        waitpid(pid, &st, 0);
        s->pid = 0;
        if (strstr(line, "no studio")) {
            printf("skipped: %s\n", line);
            return 77;
        }
        fprintf(stderr, "kray studio did not start: %s\n", line);
        return -1;
    }
    s->port = atoi(u + 17);
    snprintf(s->token, sizeof s->token, "%s", t + 6);
    return 0;
}

/* SIGTERM and wait: the exit status (-1 when it did not end in 30 s). */
static int kst_stop(kst_srv *s)
{
    if (s->pid <= 0) return -1;
    kill(s->pid, SIGTERM);
    for (int i = 0; i < 300; i++) {
        int st = 0;
        if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
            s->pid = 0;
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
        usleep(100000);
    }
    kill(s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
    s->pid = 0;
    return -1;
}

static void kst_free(kst_resp *r)
{
    free(r->head);
    free(r->body);
    memset(r, 0, sizeof *r);
}

/* Decode a chunked body in place; returns the new length. */
static size_t kst_unchunk(char *b, size_t n)
{
    size_t in = 0, out = 0;
    while (in < n) {
        char *end = NULL;
        unsigned long k = strtoul(b + in, &end, 16);
        char *crlf = strstr(b + in, "\r\n");
        if (!crlf || end == b + in) break;
        in = (size_t)(crlf - b) + 2;
        if (k == 0 || in + k > n) break;
        memmove(b + out, b + in, k);
        out += k;
        in += k + 2;
    }
    b[out] = '\0';
    return out;
}

/* One request. auth: send the token header. extra: more header lines ("Name: value\r\n"...;
 * a "Host:" line there replaces the default). Returns 0 with *r filled, -1 on socket errors. */
static int kst_request(const kst_srv *s, const char *method, const char *path, int auth,
                       const char *extra, const void *body, size_t blen, kst_resp *r)
{
    memset(r, 0, sizeof *r);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct timeval tv = {120, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)s->port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        close(fd);
        return -1;
    }
    char head[4096];
    int hn = snprintf(head, sizeof head, "%s %s HTTP/1.1\r\n", method, path);
    if (!extra || !strstr(extra, "Host:"))
        hn += snprintf(head + hn, sizeof head - (size_t)hn, "Host: 127.0.0.1:%d\r\n", s->port);
    if (auth) hn += snprintf(head + hn, sizeof head - (size_t)hn, "X-Kray-Token: %s\r\n", s->token);
    if (body && !(extra && strstr(extra, "Transfer-Encoding")))
        hn += snprintf(head + hn, sizeof head - (size_t)hn, "Content-Length: %zu\r\n", blen);
    else if (!body && !strcmp(method, "POST"))
        hn += snprintf(head + hn, sizeof head - (size_t)hn, "Content-Length: 0\r\n");
    hn += snprintf(head + hn, sizeof head - (size_t)hn, "%sConnection: close\r\n\r\n",
                   extra ? extra : "");
    int ok = send(fd, head, (size_t)hn, MSG_NOSIGNAL) == hn;
    for (size_t o = 0; ok && body && o < blen;) {
        ssize_t w = send(fd, (const char *)body + o, blen - o, MSG_NOSIGNAL);
        if (w <= 0) break; /* the server may answer (413) and close before the end */
        o += (size_t)w;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (n + 4096 > cap) buf = realloc(buf, cap *= 2);
        ssize_t got = recv(fd, buf + n, cap - n - 1, 0);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        n += (size_t)got;
    }
    close(fd);
    buf[n] = '\0';
    char *sep = strstr(buf, "\r\n\r\n");
    if (n < 12 || !sep) {
        free(buf);
        return -1;
    }
    r->status = atoi(buf + 9);
    size_t hl = (size_t)(sep - buf);
    r->head = malloc(hl + 1);
    memcpy(r->head, buf, hl);
    r->head[hl] = '\0';
    r->len = n - hl - 4;
    r->body = malloc(r->len + 1);
    memcpy(r->body, sep + 4, r->len);
    r->body[r->len] = '\0';
    free(buf);
    if (strcasestr(r->head, "Transfer-Encoding: chunked")) r->len = kst_unchunk(r->body, r->len);
    return 0;
}

/* GET/POST with the token; the path is printf-formatted. */
static int kst_do(const kst_srv *s, const char *method, kst_resp *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int kst_do(const kst_srv *s, const char *method, kst_resp *r, const char *fmt, ...)
{
    char path[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(path, sizeof path, fmt, ap);
    va_end(ap);
    return kst_request(s, method, path, 1, NULL, NULL, 0, r);
}

/* The value of a header (case-insensitive name) into buf, or NULL. */
__attribute__((unused)) static const char *kst_header(const kst_resp *r, const char *name,
                                                      char *buf, size_t len)
{
    size_t n = strlen(name);
    for (const char *l = r->head; l && *l;) {
        const char *e = strstr(l, "\r\n");
        size_t ln = e ? (size_t)(e - l) : strlen(l);
        if (ln > n + 1 && !strncasecmp(l, name, n) && l[n] == ':') {
            const char *v = l + n + 1;
            while (*v == ' ') v++;
            snprintf(buf, len, "%.*s", (int)(ln - (size_t)(v - l)), v);
            return buf;
        }
        l = e ? e + 2 : l + ln;
    }
    return NULL;
}

/* Parse a JSON answer (NULL when it is not JSON); free with kri_json_free. */
static kri_json *kst_json(const kst_resp *r)
{
    kri_json *v = NULL;
    if (!r->body || kri_json_parse(r->body, r->len, "answer", &v) != KR_OK) return NULL;
    return v;
}

static double kst_num(const kri_json *o, const char *key)
{
    const kri_json *v = kri_json_get(o, key);
    return v && v->type == KRI_JSON_NUMBER ? v->num : NAN;
}

static const char *kst_str(const kri_json *o, const char *key)
{
    const kri_json *v = kri_json_get(o, key);
    return v && v->type == KRI_JSON_STRING ? v->str : "";
}

/* Poll job `id` until it ends (or timeout_s): its final status JSON (NULL on timeout). */
static kri_json *kst_wait_job(const kst_srv *s, int id, double timeout_s)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        kst_resp r;
        if (kst_do(s, "GET", &r, "/api/job/%d", id) == 0) {
            kri_json *j = kst_json(&r);
            kst_free(&r);
            const char *st = j ? kst_str(j, "state") : "";
            if (!strcmp(st, "done") || !strcmp(st, "failed") || !strcmp(st, "cancelled")) return j;
            kri_json_free(j);
        }
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) > timeout_s)
            return NULL;
        usleep(50000);
    }
}

/* Submit a job (query after "page="): its id, or 0 with the status in *status. */
static int kst_submit(const kst_srv *s, const char *query, int *status)
{
    kst_resp r;
    int id = 0;
    if (kst_do(s, "POST", &r, "/api/job?%s", query) == 0) {
        kri_json *j = kst_json(&r);
        if (r.status == 200 && j) id = (int)kst_num(j, "job");
        if (status) *status = r.status;
        kri_json_free(j);
        kst_free(&r);
    }
    return id;
}

#endif
