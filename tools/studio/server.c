/* kray studio: HTTP through libmicrohttpd (see studio.h).
 *
 * Every request passes three checks before anything else happens: the Host header names this
 * server (127.0.0.1, localhost or [::1] with its port, or the --listen address), so a page of
 * another site reached through DNS rebinding is refused; an Origin header, when present, is this
 * server's own; and the access token (header X-Kray-Token, or ?token= for the page, its files,
 * downloads and event streams) matches the one printed at start. An upload's body goes to a file
 * of the session directory and stops at --max-upload bytes (413); other bodies are ignored.
 * Responses carry no-store, nosniff and, for the page, a content security policy that allows
 * nothing but this server. */
#define _GNU_SOURCE
#include "studio.h"

#include <microhttpd.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static struct MHD_Daemon *ks_d;
static char ks_token[80];
static int ks_port;
static char ks_hosts[4][320]; /* Host header values accepted */
static int ks_nhosts, ks_any_host;
static int ks_next_part = 1;
static pthread_mutex_t ks_part_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct ks_conn {
    int upload; /* POST /api/upload */
    FILE *up;
    char up_path[4096];
    int64_t up_len;
    int too_big;
} ks_conn;

static const char *const ks_csp =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

static void ks_common_headers(struct MHD_Response *r)
{
    MHD_add_response_header(r, "Cache-Control", "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, "X-Frame-Options", "DENY");
    MHD_add_response_header(r, "Cross-Origin-Resource-Policy", "same-origin");
}

static enum MHD_Result ks_send(struct MHD_Connection *c, unsigned status, const char *mime,
                               const void *data, size_t len)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, (void *)data, MHD_RESPMEM_MUST_COPY);
    if (!r) return MHD_NO;
    ks_common_headers(r);
    MHD_add_response_header(r, "Content-Type", mime);
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result ks_send_error(struct MHD_Connection *c, unsigned status, const char *msg)
{
    ks_resp rs;
    memset(&rs, 0, sizeof rs);
    ks_resp_error(&rs, (int)status, "%s", msg);
    enum MHD_Result ret =
        ks_send(c, status, "application/json", rs.body ? rs.body : "{}", rs.body ? rs.len : 2);
    free(rs.body);
    return ret;
}

/* ---- access checks ------------------------------------------------------------------------- */
static int ks_token_ok(const char *t)
{
    if (!t) return 0;
    size_t n = strlen(ks_token);
    if (strlen(t) != n) return 0;
    unsigned char d = 0; /* the same time for every wrong token of this length */
    for (size_t i = 0; i < n; i++) d |= (unsigned char)(t[i] ^ ks_token[i]);
    return d == 0;
}

static int ks_host_ok(const char *h)
{
    if (!h) return 0;
    if (ks_any_host) return strlen(h) < 300;
    for (int i = 0; i < ks_nhosts; i++)
        if (!strcasecmp(h, ks_hosts[i])) return 1;
    return 0;
}

/* Origin, when the browser sends one, must be "http://" + this server's Host. */
static int ks_origin_ok(const char *origin, const char *host)
{
    if (!origin) return 1;
    return !strncmp(origin, "http://", 7) && host && !strcasecmp(origin + 7, host);
}

/* ---- server-sent events of a job ----------------------------------------------------------- */
typedef struct ks_sse {
    int job;
    unsigned version;
    int started, ended;
    ks_buf out;
    size_t off;
} ks_sse;

static ssize_t ks_sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
    (void)pos;
    ks_sse *s = cls;
    while (s->off >= s->out.n) {
        if (s->ended) return MHD_CONTENT_READER_END_OF_STREAM;
        if (ks_jobs_stopping()) return MHD_CONTENT_READER_END_WITH_ERROR;
        ks_buf_free(&s->out);
        s->off = 0;
        const int w = s->started ? ks_job_wait(s->job, s->version, 10.0) : 1;
        if (w < 0) {
            s->ended = 1; /* the job went (pruned) */
            continue;
        }
        if (w == 0) { /* nothing new: no status to build */
            ks_buf_puts(&s->out, ": waiting\n\n"); /* keeps the connection alive */
            if (s->out.oom) return MHD_CONTENT_READER_END_WITH_ERROR;
            continue;
        }
        unsigned v = 0;
        int final = 0;
        char *t = ks_job_status(s->job, &v, &final);
        if (!t) {
            s->ended = 1;
            continue;
        }
        if (!s->started || v != s->version || final) {
            size_t n = strlen(t);
            while (n && t[n - 1] == '\n') n--;
            ks_buf_puts(&s->out, "data: ");
            ks_buf_put(&s->out, t, n);
            ks_buf_puts(&s->out, "\n\n");
            s->version = v;
            s->started = 1;
            s->ended = final;
        } else {
            ks_buf_puts(&s->out, ": waiting\n\n"); /* keeps the connection alive */
        }
        kri_free(t);
        if (s->out.oom) return MHD_CONTENT_READER_END_WITH_ERROR;
    }
    size_t n = s->out.n - s->off < max ? s->out.n - s->off : max;
    memcpy(buf, s->out.p + s->off, n);
    s->off += n;
    return (ssize_t)n;
}

static void ks_sse_free(void *cls)
{
    ks_sse *s = cls;
    ks_buf_free(&s->out);
    free(s);
}

/* ---- responses ----------------------------------------------------------------------------- */
static int ks_header_line(void *r, const char *line, size_t n)
{
    char name[64], value[192];
    const char *colon = memchr(line, ':', n);
    if (!colon || (size_t)(colon - line) >= sizeof name) return 0;
    size_t kn = (size_t)(colon - line), vn = n - kn - 1;
    while (vn && colon[1] == ' ') colon++, vn--;
    if (vn >= sizeof value) return 0;
    memcpy(name, line, kn);
    name[kn] = '\0';
    memcpy(value, colon + 1, vn);
    value[vn] = '\0';
    MHD_add_response_header(r, name, value);
    return 1;
}

static enum MHD_Result ks_send_resp(struct MHD_Connection *c, ks_resp *rs)
{
    struct MHD_Response *r = NULL;
    if (rs->sse_job > 0) {
        ks_sse *s = calloc(1, sizeof *s);
        if (!s) return ks_send_error(c, 503, "out of memory");
        s->job = rs->sse_job;
        r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, ks_sse_read, s, ks_sse_free);
        if (!r) {
            free(s);
            return MHD_NO;
        }
        MHD_add_response_header(r, "Content-Type", "text/event-stream");
    } else if (rs->file) {
        int fd = open(rs->file, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            if (fd >= 0) close(fd);
            return ks_send_error(c, 404, "the file of this item is gone");
        }
        if (rs->unlink_file) unlink(rs->file);
        r = MHD_create_response_from_fd((size_t)st.st_size, fd);
        if (!r) {
            close(fd);
            return MHD_NO;
        }
        MHD_add_response_header(r, "Content-Type",
                                rs->mime ? rs->mime : "application/octet-stream");
    } else {
        r = MHD_create_response_from_buffer(rs->len, rs->body ? rs->body : (void *)"",
                                            rs->body ? MHD_RESPMEM_MUST_FREE
                                                     : MHD_RESPMEM_PERSISTENT);
        if (!r) return MHD_NO;
        rs->body = NULL; /* MHD frees it */
        MHD_add_response_header(r, "Content-Type", rs->mime ? rs->mime : "application/json");
    }
    ks_common_headers(r);
    if (rs->attach[0]) {
        char v[220];
        snprintf(v, sizeof v, "attachment; filename=\"%s\"", rs->attach);
        MHD_add_response_header(r, "Content-Disposition", v);
    }
    for (const char *l = rs->headers; *l;) {
        size_t n = strcspn(l, "\n");
        ks_header_line(r, l, n);
        l += n;
        if (*l) l++;
    }
    enum MHD_Result ret = MHD_queue_response(c, (unsigned)rs->status, r);
    MHD_destroy_response(r);
    return ret;
}

/* The page and its files: "/" is index.html with the token written into it. */
static enum MHD_Result ks_static(struct MHD_Connection *c, const char *url)
{
    const char *name = !strcmp(url, "/") ? "index.html" : url + 8; /* "/static/" */
    const ks_asset *a = ks_asset_find(name);
    if (!a) return ks_send_error(c, 404, "no such file");
    if (strcmp(name, "index.html")) return ks_send(c, 200, a->mime, a->data, a->len);
    ks_buf b = {0};
    const char *p = (const char *)a->data, *end = p + a->len;
    while (p < end) {
        const char *m = memmem(p, (size_t)(end - p), "@TOKEN@", 7);
        if (!m) {
            ks_buf_put(&b, p, (size_t)(end - p));
            break;
        }
        ks_buf_put(&b, p, (size_t)(m - p));
        ks_buf_puts(&b, ks_token);
        p = m + 7;
    }
    if (b.oom) return ks_send_error(c, 503, "out of memory");
    struct MHD_Response *r = MHD_create_response_from_buffer(b.n, b.p, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        ks_buf_free(&b);
        return MHD_NO;
    }
    ks_common_headers(r);
    MHD_add_response_header(r, "Content-Type", "text/html; charset=utf-8");
    MHD_add_response_header(r, "Content-Security-Policy", ks_csp);
    enum MHD_Result ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result ks_arg_cb(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *value)
{
    (void)kind;
    ks_params_add(cls, key, value);
    return MHD_YES;
}

static enum MHD_Result ks_access(void *cls, struct MHD_Connection *c, const char *url,
                                 const char *method, const char *version, const char *upload,
                                 size_t *upload_size, void **con_cls)
{
    (void)cls;
    (void)version;
    ks_conn *k = *con_cls;
    if (!k) { /* first call: the headers are in, the body (if any) is not */
        const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
        const char *origin = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Origin");
        const char *tok = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "X-Kray-Token");
        if (!tok) tok = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
        if (!ks_host_ok(host))
            return ks_send_error(c, 403,
                                 "this server answers to its own address only (Host header)");
        if (!ks_origin_ok(origin, host))
            return ks_send_error(c, 403, "requests from other sites are refused (Origin header)");
        if (!ks_token_ok(tok))
            return ks_send_error(
                c, 401,
                "the access token is missing or wrong: open the address kray studio printed");
        k = calloc(1, sizeof *k);
        if (!k) return MHD_NO;
        *con_cls = k;
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
        if (strcmp(url, "/api/upload") && cl && strtoll(cl, NULL, 10) > 65536)
            return ks_send_error(c, 413, "only uploads carry a body of more than 64 KiB");
        if (!strcmp(method, "POST") && !strcmp(url, "/api/upload")) {
            k->upload = 1;
            if (cl && strtoll(cl, NULL, 10) > ks_cfg.max_upload) {
                char m[160];
                snprintf(m, sizeof m,
                         "the upload has %s bytes; this server takes at most %lld (kray studio "
                         "--max-upload)",
                         cl, (long long)ks_cfg.max_upload);
                return ks_send_error(c, 413, m);
            }
            pthread_mutex_lock(&ks_part_lock);
            int n = ks_next_part++;
            pthread_mutex_unlock(&ks_part_lock);
            char name[32];
            snprintf(name, sizeof name, "p%d.part", n);
            ks_store_path(name, k->up_path, sizeof k->up_path);
            int fd = open(k->up_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
            k->up = fd >= 0 ? fdopen(fd, "wb") : NULL;
            if (!k->up) {
                if (fd >= 0) close(fd);
                return ks_send_error(c, 503, "cannot store the upload");
            }
        }
        return MHD_YES;
    }
    if (*upload_size) { /* a piece of the body */
        if (k->upload && !k->too_big) {
            k->up_len += (int64_t)*upload_size;
            if (k->up_len > ks_cfg.max_upload) {
                k->too_big = 1;
                fclose(k->up);
                k->up = NULL;
                remove(k->up_path);
            } else if (fwrite(upload, 1, *upload_size, k->up) != *upload_size) {
                k->too_big = 2;
            }
        }
        *upload_size = 0;
        return MHD_YES;
    }
    /* the whole request is in */
    if (k->upload) {
        if (k->up && fclose(k->up) != 0 && !k->too_big) k->too_big = 2;
        k->up = NULL;
        if (k->too_big) {
            remove(k->up_path);
            char m[160];
            snprintf(m, sizeof m, "the upload is larger than %lld bytes (kray studio --max-upload)",
                     (long long)ks_cfg.max_upload);
            return ks_send_error(c, k->too_big == 1 ? 413 : 507,
                                 k->too_big == 1 ? m : "cannot store the upload");
        }
    }
    if (!strcmp(method, "GET") && (!strcmp(url, "/") || !strncmp(url, "/static/", 8)))
        return ks_static(c, url);
    if (strncmp(url, "/api/", 5)) return ks_send_error(c, 404, "no such page");
    ks_request rq;
    memset(&rq, 0, sizeof rq);
    rq.method = method;
    rq.path = url + 5;
    MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, ks_arg_cb, &rq.params);
    if (k->upload) {
        rq.upload = k->up_path;
        rq.upload_len = k->up_len;
    }
    ks_resp rs;
    memset(&rs, 0, sizeof rs);
    ks_api(&rq, &rs);
    if (k->upload) remove(k->up_path); /* kept under another name when accepted */
    ks_params_free(&rq.params);
    enum MHD_Result ret = ks_send_resp(c, &rs);
    free(rs.body);
    free(rs.file);
    return ret;
}

static void ks_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    ks_conn *k = *con_cls;
    if (!k) return;
    if (k->up) {
        fclose(k->up);
        remove(k->up_path);
    }
    free(k);
    *con_cls = NULL;
}

static void ks_mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    (void)fmt;
    (void)ap; /* connection-level noise (clients that hang up) is not the user's concern */
}

int ks_server_start(const char *token, int *port)
{
    snprintf(ks_token, sizeof ks_token, "%s", token);
    struct sockaddr_in6 a6;
    struct sockaddr_in a4;
    struct sockaddr *sa = NULL;
    unsigned flags =
        MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
    const char *h = ks_cfg.host;
    memset(&a4, 0, sizeof a4);
    memset(&a6, 0, sizeof a6);
    if (!strcmp(h, "localhost")) h = "127.0.0.1";
    if (inet_pton(AF_INET, h, &a4.sin_addr) == 1) {
        a4.sin_family = AF_INET;
        a4.sin_port = htons((uint16_t)ks_cfg.port);
        sa = (struct sockaddr *)&a4;
    } else if (inet_pton(AF_INET6, h, &a6.sin6_addr) == 1) {
        a6.sin6_family = AF_INET6;
        a6.sin6_port = htons((uint16_t)ks_cfg.port);
        sa = (struct sockaddr *)&a6;
        flags |= MHD_USE_IPv6;
    } else {
        fprintf(stderr, "kray studio: --listen '%s' is not an IPv4 or IPv6 address\n", ks_cfg.host);
        return -1;
    }
    ks_d = MHD_start_daemon(
        flags, (uint16_t)ks_cfg.port, NULL, NULL, ks_access, NULL, MHD_OPTION_SOCK_ADDR, sa,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)256, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        (unsigned)128, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120, MHD_OPTION_NOTIFY_COMPLETED,
        ks_completed, NULL, MHD_OPTION_EXTERNAL_LOGGER, ks_mhd_log, NULL, MHD_OPTION_END);
    if (!ks_d) {
        fprintf(stderr, "kray studio: cannot listen on %s port %d: %s\n", ks_cfg.host, ks_cfg.port,
                errno ? strerror(errno) : "the port is taken or not allowed");
        return -1;
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(ks_d, MHD_DAEMON_INFO_BIND_PORT);
    ks_port = di ? di->port : ks_cfg.port;
    *port = ks_port;
    int loopback = !strcmp(h, "127.0.0.1") || !strcmp(h, "::1");
    snprintf(ks_hosts[ks_nhosts++], sizeof ks_hosts[0], "127.0.0.1:%d", ks_port);
    snprintf(ks_hosts[ks_nhosts++], sizeof ks_hosts[0], "localhost:%d", ks_port);
    snprintf(ks_hosts[ks_nhosts++], sizeof ks_hosts[0], "[::1]:%d", ks_port);
    if (!loopback) {
        /* a wildcard address serves under any name; the token is then the guard */
        ks_any_host = !strcmp(h, "0.0.0.0") || !strcmp(h, "::");
        snprintf(ks_hosts[ks_nhosts++], sizeof ks_hosts[0], strchr(h, ':') ? "[%s]:%d" : "%s:%d", h,
                 ks_port);
    }
    return 0;
}

void ks_server_stop(void)
{
    if (ks_d) MHD_stop_daemon(ks_d);
    ks_d = NULL;
}
