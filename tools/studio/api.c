/* kray studio: the endpoints under /api/ (see studio.h and docs/studio.md).
 *
 *   GET  info                       version, backend, limits, pages
 *   GET  items | jobs               what the session holds
 *   GET  item/N                     dims, element type, statistics
 *   GET  item/N/slice               a 2-D slice as little-endian float32 (X-Width, X-Height)
 *   GET  item/N/values              every value as float32 (small arrays: plots)
 *   GET  item/N/file                the stored file (geometry JSON, SVG charts, sequences)
 *   GET  item/N/download?fmt=EXT    the array in any format kray writes
 *   POST upload?name=FILE           the body, size-limited, checked by kray's readers
 *   GET  compare?a=N&b=M            difference item and kray metrics' numbers
 *   POST job?page=P&...             plan and queue a job: {"job": id}
 *   GET  job/N | job/N/events       its status, or server-sent events until it ends
 *   POST job/N/cancel
 */
#include "studio.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void ks_resp_json(ks_resp *rs, int status, kc_jo *j)
{
    size_t len = 0;
    char *t = kc_jo_text(j, &len);
    if (!t) {
        ks_resp_error(rs, 500, "cannot write the answer: %s", kr_last_error());
        return;
    }
    rs->status = status;
    rs->mime = "application/json";
    rs->body = malloc(len + 1);
    if (rs->body) memcpy(rs->body, t, len + 1);
    rs->len = rs->body ? len : 0;
    kri_free(t);
}

void ks_resp_error(ks_resp *rs, int status, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    kc_jo j;
    kc_jo_begin(&j);
    kc_jo_str(&j, "error", msg);
    size_t len = 0;
    char *t = kc_jo_text(&j, &len);
    rs->status = status;
    rs->mime = "application/json";
    rs->body = t ? malloc(len + 1) : NULL;
    if (rs->body) memcpy(rs->body, t, len + 1);
    rs->len = rs->body ? len : 0;
    kri_free(t);
}

/* "N" or "N/rest": the number and the rest ("" when none); -1 when not a number. */
static int ks_id_path(const char *p, const char **rest)
{
    char *end = NULL;
    long v = strtol(p, &end, 10);
    if (end == p || v <= 0 || v > 1000000000L || (*end && *end != '/')) return -1;
    *rest = *end ? end + 1 : "";
    return (int)v;
}

/* The backend the tools pick (--backend auto, or the server's option), found once. */
static char ks_backend[32] = "cpu", ks_device[256];
static pthread_once_t ks_backend_once = PTHREAD_ONCE_INIT;

static void ks_find_backend(void)
{
    kr_backend want = KR_BACKEND_AUTO;
    const char *b = ks_cfg.common ? strstr(ks_cfg.common, "--backend ") : NULL;
    if (b) {
        char name[32];
        if (sscanf(b + 10, "%31s", name) == 1) kr_backend_from_name(name, &want);
    }
    kr_ctx *ctx = NULL;
    if (kr_ctx_create(&ctx, want) == KR_OK) {
        kr_ctx_set_quiet(ctx, 1);
        snprintf(ks_backend, sizeof ks_backend, "%s", kr_backend_name(kr_ctx_backend(ctx)));
        if (kr_ctx_backend(ctx) == KR_BACKEND_CUDA)
            kr_cuda_device_name(kr_ctx_device(ctx), ks_device, sizeof ks_device);
        else
            snprintf(ks_device, sizeof ks_device, "%d CPU threads", kr_ctx_threads(ctx));
    }
    kr_ctx_destroy(ctx);
}

static void ks_api_info(ks_resp *rs)
{
    pthread_once(&ks_backend_once, ks_find_backend);
    kc_jo j;
    kc_jo_begin(&j);
    kc_jo_str(&j, "version", kr_version());
    kc_jo_str(&j, "features", kr_build_features());
    kc_jo_str(&j, "backend", ks_backend);
    kc_jo_str(&j, "device", ks_device);
    kc_jo_str(&j, "options", ks_cfg.common ? ks_cfg.common : "");
    kc_jo_int(&j, "max_upload", ks_cfg.max_upload);
    kc_jo_int(&j, "jobs", ks_cfg.jobs);
    ks_resp_json(rs, 200, &j);
}

static void ks_api_list(ks_resp *rs, int jobs)
{
    kc_jo j;
    kc_jo_begin(&j);
    if (jobs)
        ks_jobs_json(&j);
    else
        ks_items_json(&j);
    ks_resp_json(rs, 200, &j);
}

/* Indices "a,b,c" of the axes (missing ones 0). */
static int ks_parse_idx(const char *s, int64_t *idx)
{
    for (int k = 0; k < KR_MAX_DIMS; k++) idx[k] = 0;
    if (!s) return 0;
    for (int k = 0; *s; k++) {
        char *end = NULL;
        long long v = strtoll(s, &end, 10);
        if (end == s || k >= KR_MAX_DIMS || (*end && *end != ',')) return -1;
        idx[k] = v;
        s = *end ? end + 1 : end;
    }
    return 0;
}

static const char *const ks_parts = "value|real|imag|phase|log";

/* The array of an item, or a response saying why not (then NULL). */
static const kr_array *ks_array_of(ks_item *it, ks_resp *rs)
{
    const kr_array *a = NULL;
    kr_status s = ks_item_array(it, &a);
    if (s != KR_OK) {
        ks_resp_error(rs, 422, "%s", kr_last_error()[0] ? kr_last_error() : kr_status_string(s));
        return NULL;
    }
    return a;
}

static void ks_api_slice(ks_item *it, const ks_params *p, ks_resp *rs)
{
    ks_err e;
    int h, v, part;
    int64_t idx[KR_MAX_DIMS];
    if (ks_p_int(p, "h", 0, 0, KR_MAX_DIMS - 1, &h, &e) ||
        ks_p_int(p, "v", 1, 0, KR_MAX_DIMS - 1, &v, &e) ||
        ks_p_choice(p, "part", ks_parts, 0, &part, &e)) {
        ks_resp_error(rs, 400, "%s", e.msg);
        return;
    }
    if (ks_parse_idx(ks_param(p, "idx"), idx)) {
        ks_resp_error(rs, 400, "parameter 'idx': give the indices of the axes as N,N,...");
        return;
    }
    const kr_array *a = ks_array_of(it, rs);
    if (!a) return;
    float *f = NULL;
    int64_t w = 0, hh = 0;
    kr_status s = ks_slice(a, h, v, idx, part, &f, &w, &hh);
    char dims[128];
    kr_dims_string(a->ndim, a->dims, dims, sizeof dims);
    ks_item_array_done(it);
    if (s != KR_OK) {
        ks_resp_error(rs, 400, "%s", kr_last_error());
        return;
    }
    rs->status = 200;
    rs->mime = "application/octet-stream";
    rs->body = (char *)f;
    rs->len = (size_t)(w * hh) * sizeof(float);
    snprintf(rs->headers, sizeof rs->headers, "X-Width: %lld\nX-Height: %lld\nX-Dims: %s\n",
             (long long)w, (long long)hh, dims);
}

static void ks_api_values(ks_item *it, const ks_params *p, ks_resp *rs)
{
    ks_err e;
    int part;
    if (ks_p_choice(p, "part", ks_parts, 0, &part, &e)) {
        ks_resp_error(rs, 400, "%s", e.msg);
        return;
    }
    const kr_array *a = ks_array_of(it, rs);
    if (!a) return;
    const int64_t n = kr_array_numel(a);
    if (n > ((int64_t)1 << 22)) {
        ks_item_array_done(it);
        ks_resp_error(rs, 413, "the array has %lld values; values are sent for at most 2^22",
                      (long long)n);
        return;
    }
    int64_t idx[KR_MAX_DIMS] = {0};
    kr_array flat = *a; /* one long axis, then the slice of axes 0 and 1 is all of it */
    flat.ndim = 1;
    flat.dims[0] = n;
    for (int k = 1; k < KR_MAX_DIMS; k++) flat.dims[k] = 1;
    float *f = NULL;
    int64_t w = 0, hh = 0;
    kr_status s = ks_slice(&flat, 0, 1, idx, part, &f, &w, &hh);
    char dims[128];
    kr_dims_string(a->ndim, a->dims, dims, sizeof dims);
    ks_item_array_done(it);
    if (s != KR_OK) {
        ks_resp_error(rs, 500, "%s", kr_last_error());
        return;
    }
    rs->status = 200;
    rs->mime = "application/octet-stream";
    rs->body = (char *)f;
    rs->len = (size_t)n * sizeof(float);
    snprintf(rs->headers, sizeof rs->headers, "X-Dims: %s\n", dims);
}

/* The item's name as a file name for Content-Disposition: safe characters, no extension. */
static void ks_download_name(const ks_item *it, const char *ext, char *buf, size_t len)
{
    char base[96];
    size_t o = 0;
    for (const char *c = ks_item_name(it); *c && o + 1 < sizeof base; c++)
        base[o++] = ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                     (*c >= '0' && *c <= '9') || *c == '-')
                        ? *c
                        : '_';
    base[o] = '\0';
    snprintf(buf, len, "%s.%s", o ? base : "kray", ext);
}

static int ks_next_download = 1;
static pthread_mutex_t ks_dl_lock = PTHREAD_MUTEX_INITIALIZER;

static void ks_api_download(ks_item *it, const ks_params *p, ks_resp *rs)
{
    static const char *const fmts = "nii|nii.gz|npy|cfl|hdr|mha|nrrd|pgm|png|raw|dcm";
    ks_err e;
    int fmt, slice, part;
    double lo, hi;
    if (ks_p_choice(p, "fmt", fmts, 0, &fmt, &e) || ks_p_num(p, "lo", 0, -1e300, 1e300, &lo, &e) ||
        ks_p_num(p, "hi", 0, -1e300, 1e300, &hi, &e) ||
        ks_p_int(p, "slice", -1, -1, 1 << 30, &slice, &e) ||
        ks_p_choice(p, "part", ks_parts, 0, &part, &e)) {
        ks_resp_error(rs, 400, "%s", e.msg);
        return;
    }
    char ext[16];
    kc_choice_name(fmts, fmt, ext, sizeof ext);
    const int hdr = !strcmp(ext, "hdr");
    const kr_array *a = ks_array_of(it, rs);
    if (!a) return;
    pthread_mutex_lock(&ks_dl_lock);
    int d = ks_next_download++;
    pthread_mutex_unlock(&ks_dl_lock);
    char name[64], path[4096], other[4096];
    snprintf(name, sizeof name, "d%d.%s", d, hdr ? "cfl" : ext);
    ks_store_path(name, path, sizeof path);
    kr_status s = ks_export(a, path, lo, hi, slice, part == 4 ? 0 : part);
    ks_item_array_done(it);
    if (s != KR_OK) {
        ks_resp_error(rs, 422, "%s", kr_last_error()[0] ? kr_last_error() : kr_status_string(s));
        remove(path);
        return;
    }
    if (!strcmp(ext, "cfl") || hdr) { /* BART pairs: send one half, drop the other */
        snprintf(name, sizeof name, "d%d.%s", d, hdr ? "cfl" : "hdr");
        ks_store_path(name, other, sizeof other);
        remove(other);
        if (hdr) snprintf(path + strlen(path) - 3, 4, "hdr");
    }
    rs->status = 200;
    rs->mime = !strcmp(ext, "png") ? "image/png" : "application/octet-stream";
    rs->file = strdup(path);
    rs->unlink_file = 1;
    ks_download_name(it, ext, rs->attach, sizeof rs->attach);
}

static void ks_api_file(ks_item *it, ks_resp *rs)
{
    const char *role = ks_item_role(it);
    rs->status = 200;
    rs->mime = !strcmp(role, "svg")    ? "image/svg+xml"
               : !strcmp(role, "geom") ? "application/json"
                                       : "application/octet-stream";
    rs->file = strdup(ks_item_path(it));
    const char *ext = strrchr(ks_item_path(it), '.');
    ks_download_name(it, ext ? ext + 1 : "bin", rs->attach, sizeof rs->attach);
    if (!strcmp(role, "svg")) rs->attach[0] = '\0'; /* shown in the page */
}

static void ks_api_item(const ks_request *rq, const char *rest, int id, ks_resp *rs)
{
    ks_item *it = ks_item_get(id);
    if (!it) {
        ks_resp_error(rs, 404, "there is no item %d (results of old jobs are removed)", id);
        return;
    }
    if (!*rest) {
        kc_jo j;
        kc_jo_begin(&j);
        ks_item_describe(it, &j);
        ks_resp_json(rs, 200, &j);
    } else if (!strcmp(rest, "slice")) {
        ks_api_slice(it, &rq->params, rs);
    } else if (!strcmp(rest, "values")) {
        ks_api_values(it, &rq->params, rs);
    } else if (!strcmp(rest, "download")) {
        ks_api_download(it, &rq->params, rs);
    } else if (!strcmp(rest, "file")) {
        ks_api_file(it, rs);
    } else {
        ks_resp_error(rs, 404, "unknown request item/%d/%.40s", id, rest);
    }
    ks_item_put(it);
}

/* Check an upload with the reader kray uses for its kind; 0, or -1 with kray's sentence. */
static int ks_check_upload(const char *path, const char **role, char *err, size_t len)
{
    size_t n = strlen(path);
    kr_status s = KR_OK;
    kr_clear_error();
    if (n > 4 && !strcmp(path + n - 4, ".seq")) {
        kr_seq *seq = NULL;
        s = kr_seq_read_pulseq(&seq, path, NULL);
        kr_seq_destroy(seq);
        *role = "seq";
    } else if (n > 5 && !strcmp(path + n - 5, ".json")) {
        kr_ct_geom *g = NULL;
        s = kr_ct_geom_read_json(&g, path);
        kr_ct_geom_destroy(g);
        *role = "geom";
    } else if (n > 4 && !strcmp(path + n - 4, ".hdr")) {
        *role = "hdr"; /* read with its .cfl */
        return 0;
    } else {
        *role = "array";
        return 1; /* read as an item below */
    }
    if (s != KR_OK) {
        snprintf(err, len, "%s", kr_last_error()[0] ? kr_last_error() : kr_status_string(s));
        return -1;
    }
    return 0;
}

static void ks_api_upload(const ks_request *rq, ks_resp *rs)
{
    ks_err e;
    const char *client = ks_param(&rq->params, "name");
    char name[64], path[4096], err[1024];
    if (!rq->upload) {
        ks_resp_error(rs, 400, "an upload needs the file as the body of a POST");
        return;
    }
    if (ks_store_upload_name(client, name, sizeof name, &e) != 0) {
        ks_resp_error(rs, 415, "%s", e.msg);
        return;
    }
    int hdr_id = 0;
    if (ks_p_int(&rq->params, "hdr", 0, 0, 1000000000, &hdr_id, &e)) {
        ks_resp_error(rs, 400, "%s", e.msg);
        return;
    }
    if (hdr_id) { /* the .cfl of a BART pair takes the name of its uploaded .hdr */
        ks_item *h = ks_item_get(hdr_id);
        const char *hp = h ? ks_item_path(h) : NULL;
        size_t hn = hp ? strlen(hp) : 0;
        if (!h || strcmp(ks_item_role(h), "hdr") || strcmp(name + strlen(name) - 4, ".cfl")) {
            ks_item_put(h);
            ks_resp_error(rs, 400, "parameter 'hdr' names the uploaded .hdr of a .cfl upload");
            return;
        }
        snprintf(path, sizeof path, "%.*s.cfl", (int)(hn - 4), hp);
        ks_item_put(h);
    } else {
        ks_store_path(name, path, sizeof path);
    }
    if (rename(rq->upload, path) != 0) {
        ks_resp_error(rs, 500, "cannot keep the upload: %s", strerror(errno));
        return;
    }
    const char *role = "array";
    int r = ks_check_upload(path, &role, err, sizeof err);
    if (!strcmp(name + strlen(name) - 4, ".cfl") && !hdr_id) {
        r = -1;
        snprintf(err, sizeof err,
                 "a .cfl file comes with its .hdr: upload the .hdr first, then "
                 "the .cfl with the .hdr's item number");
    }
    int id = r < 0 ? 0 : ks_item_add(0, path, client, role);
    if (r > 0 && id) { /* an array: read it now, so that a bad file is refused here */
        ks_item *it = ks_item_get(id);
        const kr_array *a = NULL;
        kr_status s = ks_item_array(it, &a);
        if (s == KR_OK)
            ks_item_array_done(it);
        else
            snprintf(err, sizeof err, "%s",
                     kr_last_error()[0] ? kr_last_error() : kr_status_string(s));
        ks_item_put(it);
        if (s != KR_OK) {
            ks_item_drop(id);
            id = 0;
            r = -1;
        }
    }
    if (r < 0 || !id) {
        remove(path);
        /* the sentence names the file as the page knows it, not by its place on the server */
        char shown[1200];
        const char *at = strstr(err, path);
        if (at && client)
            snprintf(shown, sizeof shown, "%.*s%.100s%s", (int)(at - err), err, client,
                     at + strlen(path));
        else
            snprintf(shown, sizeof shown, "%s", err);
        ks_resp_error(rs, 422, "%s", r < 0 ? shown : "out of memory");
        return;
    }
    ks_item *it = ks_item_get(id);
    kc_jo j;
    kc_jo_begin(&j);
    if (it) ks_item_describe(it, &j);
    ks_item_put(it);
    ks_resp_json(rs, 200, &j);
}

/* The viewer's comparison: a difference item (the last 8 are kept) and the metrics. */
static void ks_api_compare(const ks_params *p, ks_resp *rs)
{
    static int kept[8];
    static int nkept;
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    ks_err e;
    int ia, ib;
    if (ks_p_int(p, "a", 0, 1, 1000000000, &ia, &e) ||
        ks_p_int(p, "b", 0, 1, 1000000000, &ib, &e)) {
        ks_resp_error(rs, 400, "%s", e.msg);
        return;
    }
    if (!ia || !ib) {
        ks_resp_error(rs, 400, "compare needs the items a and b");
        return;
    }
    /* hold the two arrays in the order of their ids (two requests never wait on each other) */
    int lo = ia < ib ? ia : ib, hi = ia < ib ? ib : ia;
    ks_item *il = ks_item_get(lo), *ih = hi != lo ? ks_item_get(hi) : NULL;
    const kr_array *al = NULL, *ah = NULL;
    if (!il || (hi != lo && !ih)) {
        ks_item_put(il);
        ks_item_put(ih);
        ks_resp_error(rs, 404, "there is no item %d", !il ? lo : hi);
        return;
    }
    if (!(al = ks_array_of(il, rs))) {
        ks_item_put(il);
        ks_item_put(ih);
        return;
    }
    if (ih && !(ah = ks_array_of(ih, rs))) {
        ks_item_array_done(il);
        ks_item_put(il);
        ks_item_put(ih);
        return;
    }
    if (!ah) ah = al;
    const kr_array *a = ia == lo ? al : ah, *b = ia == lo ? ah : al;
    kr_array *d = NULL;
    kr_metrics m;
    char err[1024];
    int r = ks_difference(a, b, &d, err, sizeof err);
    if (r == 0) r = ks_metrics(a, b, &m, err, sizeof err);
    if (ih) ks_item_array_done(ih);
    ks_item_array_done(il);
    ks_item_put(il);
    ks_item_put(ih);
    if (r != 0) {
        kr_array_destroy(d);
        ks_resp_error(rs, 422, "%s", err);
        return;
    }
    static int serial;
    char name[64], path[4096], label[64];
    pthread_mutex_lock(&lock);
    snprintf(name, sizeof name, "c%d.npy", ++serial);
    pthread_mutex_unlock(&lock);
    ks_store_path(name, path, sizeof path);
    kr_status s = kr_write(path, d, kc_image_io());
    kr_array_destroy(d);
    if (s != KR_OK) {
        ks_resp_error(rs, 500, "%s", kr_last_error());
        return;
    }
    snprintf(label, sizeof label, "difference %d - %d", ia, ib);
    int id = ks_item_add(0, path, label, "diff");
    pthread_mutex_lock(&lock);
    if (nkept == 8) {
        ks_item_drop(kept[0]);
        memmove(kept, kept + 1, 7 * sizeof kept[0]);
        nkept--;
    }
    kept[nkept++] = id;
    pthread_mutex_unlock(&lock);
    kc_jo j;
    kc_jo_begin(&j);
    kc_jo_int(&j, "item", id);
    kc_jo_metrics(&j, &m);
    ks_resp_json(rs, 200, &j);
}

static void ks_api_job(const ks_request *rq, const char *path, ks_resp *rs)
{
    const char *rest = "";
    int id = ks_id_path(path, &rest);
    if (id < 0) {
        ks_resp_error(rs, 404, "unknown request job/%.40s", path);
        return;
    }
    if (!strcmp(rest, "cancel")) {
        if (strcmp(rq->method, "POST")) {
            ks_resp_error(rs, 405, "job/N/cancel takes POST");
            return;
        }
        if (ks_job_cancel(id) != 0) {
            ks_resp_error(rs, 404, "there is no job %d", id);
            return;
        }
    } else if (!strcmp(rest, "events")) {
        if (ks_job_wait(id, 0, 0) < 0) { /* exists? (no status built) */
            ks_resp_error(rs, 404, "there is no job %d", id);
            return;
        }
        rs->status = 200;
        rs->sse_job = id;
        return;
    } else if (*rest) {
        ks_resp_error(rs, 404, "unknown request job/%d/%.40s", id, rest);
        return;
    }
    char *t = ks_job_status(id, NULL, NULL);
    if (!t) {
        ks_resp_error(rs, 404, "there is no job %d (old jobs are removed)", id);
        return;
    }
    rs->status = 200;
    rs->mime = "application/json";
    rs->len = strlen(t);
    rs->body = malloc(rs->len + 1);
    if (rs->body) memcpy(rs->body, t, rs->len + 1);
    kri_free(t);
}

void ks_api(const ks_request *rq, ks_resp *rs)
{
    const char *path = rq->path, *rest = "";
    const int get = !strcmp(rq->method, "GET"), post = !strcmp(rq->method, "POST");
    if (!strcmp(path, "info") && get) {
        ks_api_info(rs);
    } else if ((!strcmp(path, "items") || !strcmp(path, "jobs")) && get) {
        ks_api_list(rs, path[0] == 'j');
    } else if (!strncmp(path, "item/", 5) && get) {
        int id = ks_id_path(path + 5, &rest);
        if (id < 0)
            ks_resp_error(rs, 404, "unknown request %.60s", path);
        else
            ks_api_item(rq, rest, id, rs);
    } else if (!strcmp(path, "upload") && post) {
        ks_api_upload(rq, rs);
    } else if (!strcmp(path, "compare") && get) {
        ks_api_compare(&rq->params, rs);
    } else if (!strcmp(path, "job") && post) {
        ks_err e;
        int status = 400;
        int id = ks_job_submit(ks_param(&rq->params, "page"), &rq->params, &e, &status);
        if (!id) {
            ks_resp_error(rs, status, "%s", e.msg);
            return;
        }
        kc_jo j;
        kc_jo_begin(&j);
        kc_jo_int(&j, "job", id);
        ks_resp_json(rs, 200, &j);
    } else if (!strncmp(path, "job/", 4) && (get || post)) {
        ks_api_job(rq, path + 4, rs);
    } else if (!strcmp(path, "info") || !strcmp(path, "items") || !strcmp(path, "jobs") ||
               !strncmp(path, "item/", 5) || !strcmp(path, "upload") || !strcmp(path, "compare") ||
               !strcmp(path, "job")) {
        ks_resp_error(rs, 405, "%s does not take %s", path, rq->method);
    } else {
        ks_resp_error(rs, 404, "unknown request %.60s", path);
    }
}
