/* kray studio's HTTP API, driven over a socket: `kray studio --port 0` on a free port with a
 * small upload limit (ISMRMRD and DICOM files within it); every endpoint, the access checks (token,
 * Host, Origin), bad parameters, oversized uploads, paths from the client, a failing job (kray's
 * sentence, the server keeps serving), server-sent events, cancellation (the child process goes),
 * and the temporary directory removed on exit. Skipped (77) when the build has no studio. */
#include "studio_util.h"

#include <dirent.h>

static kst_srv S;

static int kst_status(const char *method, int auth, const char *extra, const char *path)
{
    kst_resp r;
    if (kst_request(&S, method, path, auth, extra, NULL, 0, &r) != 0) return -1;
    int st = r.status;
    kst_free(&r);
    return st;
}

/* Upload bytes under a client name (extra query "&hdr=N" allowed): the response. */
static void kst_upload(const char *name, const char *query, const void *data, size_t n, kst_resp *r)
{
    char path[512];
    snprintf(path, sizeof path, "/api/upload?name=%s%s", name, query ? query : "");
    if (kst_request(&S, "POST", path, 1, NULL, data, n, r) != 0) memset(r, 0, sizeof *r);
}

static char *kst_slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)len + 1);
    *n = fread(b, 1, (size_t)len, f);
    fclose(f);
    return b;
}

/* A 6 x 4 f32 array [x, y] with value 10 y + x, written as .npy: the file's bytes. */
static char *kst_npy(size_t *n)
{
    const int64_t d[2] = {6, 4};
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, KR_F32, 2, d, KR_HOST, NULL));
    for (int i = 0; i < 24; i++) ((float *)a->data)[i] = (float)(10 * (i / 6) + i % 6);
    const char *p = kt_tmp("studio_a.npy");
    KT_OK(kr_write(p, a, NULL));
    kr_array_destroy(a);
    return kst_slurp(p, n);
}

static void test_access(void)
{
    char extra[256];
    KT_CHECK(kst_status("GET", 0, NULL, "/api/info") == 401);
    KT_CHECK(kst_status("GET", 0, NULL, "/api/info?token=0123") == 401);
    char path[256];
    snprintf(path, sizeof path, "/api/info?token=%s", S.token);
    KT_CHECK(kst_status("GET", 0, NULL, path) == 200);
    KT_CHECK(kst_status("GET", 1, NULL, "/api/info") == 200);
    KT_CHECK(kst_status("GET", 0, "X-Kray-Token: nope\r\n", "/api/info") == 401);
    /* DNS rebinding: another name for this address */
    snprintf(extra, sizeof extra, "Host: evil.example:%d\r\n", S.port);
    KT_CHECK(kst_status("GET", 1, extra, "/api/info") == 403);
    KT_CHECK(kst_status("GET", 1, "Host: 127.0.0.1\r\n", "/api/info") == 403);
    snprintf(extra, sizeof extra, "Host: localhost:%d\r\n", S.port);
    KT_CHECK(kst_status("GET", 1, extra, "/api/info") == 200);
    /* another site's page in the same browser */
    KT_CHECK(kst_status("GET", 1, "Origin: http://evil.example\r\n", "/api/info") == 403);
    KT_CHECK(kst_status("POST", 1, "Origin: null\r\n", "/api/job?page=ct") == 403);
    snprintf(extra, sizeof extra, "Origin: http://127.0.0.1:%d\r\n", S.port);
    KT_CHECK(kst_status("GET", 1, extra, "/api/info") == 200);
    /* the page carries the token; its files and every answer say no-store and nosniff */
    kst_resp r;
    char h[512];
    snprintf(path, sizeof path, "/?token=%s", S.token);
    KT_CHECK(kst_request(&S, "GET", path, 0, NULL, NULL, 0, &r) == 0);
    KT_CHECK(r.status == 200 && strstr(r.body, S.token) && !strstr(r.body, "@TOKEN@"));
    KT_CHECK(kst_header(&r, "Content-Security-Policy", h, sizeof h) &&
             strstr(h, "default-src 'none'"));
    KT_CHECK(kst_header(&r, "Cache-Control", h, sizeof h) && !strcmp(h, "no-store"));
    KT_CHECK(kst_header(&r, "X-Content-Type-Options", h, sizeof h) && !strcmp(h, "nosniff"));
    kst_free(&r);
    KT_CHECK(kst_status("GET", 0, NULL, "/") == 401);
    KT_CHECK(kst_status("GET", 1, NULL, "/static/studio.js") == 200);
    KT_CHECK(kst_status("GET", 1, NULL, "/static/nothing.js") == 404);
    KT_CHECK(kst_status("GET", 1, NULL, "/favicon.ico") == 404);
    /* paths: nothing outside the embedded files and the API */
    KT_CHECK(kst_status("GET", 1, NULL, "/static/../../../../etc/passwd") == 404);
    KT_CHECK(kst_status("GET", 1, NULL, "/static/%2e%2e/%2e%2e/etc/passwd") == 404);
    KT_CHECK(kst_status("GET", 1, NULL, "/api/../../etc/passwd") == 404);
    KT_CHECK(kst_status("GET", 1, NULL, "/api/item/..%2f..%2fetc%2fpasswd") == 404);
    KT_CHECK(kst_status("GET", 1, NULL, "/api/nothing") == 404);
}

static void test_items(void)
{
    size_t n = 0;
    char *npy = kst_npy(&n);
    kst_resp r;
    kst_upload("a.npy", NULL, npy, n, &r);
    kri_json *j = kst_json(&r);
    KT_CHECK_MSG(r.status == 200 && j, "upload: %d %s", r.status, r.body ? r.body : "");
    int id = j ? (int)kst_num(j, "id") : 0;
    KT_CHECK(j && kst_num(j, "max") == 35 && !strcmp(kst_str(j, "dtype"), "f32"));
    kri_json_free(j);
    kst_free(&r);
    /* describe, slice (x across, y down; then y across, x down), values */
    KT_CHECK(kst_do(&S, "GET", &r, "/api/item/%d", id) == 0 && r.status == 200 &&
             strstr(r.body, "\"dims\": [6, 4]"));
    kst_free(&r);
    KT_CHECK(kst_do(&S, "GET", &r, "/api/item/%d/slice?h=0&v=1", id) == 0 && r.status == 200);
    char h[128];
    KT_CHECK(r.len == 24 * 4 && kst_header(&r, "X-Width", h, sizeof h) && !strcmp(h, "6"));
    if (r.len == 96) KT_CHECK(((float *)r.body)[2 * 6 + 5] == 25.0f);
    kst_free(&r);
    KT_CHECK(kst_do(&S, "GET", &r, "/api/item/%d/slice?h=1&v=0", id) == 0 && r.len == 96);
    if (r.len == 96) KT_CHECK(((float *)r.body)[5 * 4 + 2] == 25.0f); /* row x = 5, column y = 2 */
    kst_free(&r);
    KT_CHECK(kst_do(&S, "GET", &r, "/api/item/%d/values", id) == 0 && r.len == 96);
    kst_free(&r);
    /* bad slice parameters: one sentence each */
    KT_CHECK(kst_do(&S, "GET", &r, "/api/item/%d/slice?h=1&v=1", id) == 0 && r.status == 400 &&
             strstr(r.body, "must differ"));
    kst_free(&r);
    KT_CHECK(kst_do(&S, "GET", &r, "/api/item/%d/slice?idx=0,0,3", id) == 0 && r.status == 400 &&
             strstr(r.body, "outside"));
    kst_free(&r);
    KT_CHECK(kst_do(&S, "GET", &r, "/api/item/%d/slice?part=bogus", id) == 0 && r.status == 400);
    kst_free(&r);
    KT_CHECK(kst_do(&S, "GET", &r, "/api/item/%d/slice?h=x", id) == 0 && r.status == 400 &&
             strstr(r.body, "not a number"));
    kst_free(&r);
    KT_CHECK(kst_status("GET", 1, NULL, "/api/item/999999") == 404);
    KT_CHECK(kst_status("GET", 1, NULL, "/api/item/abc") == 404);
    KT_CHECK(kst_status("POST", 1, NULL, "/api/items") == 405);
    /* downloads in every format kray writes; the .npy read back equals the upload */
    static const char *const fmts[] = {"nii", "nii.gz", "npy", "cfl", "hdr",
                                       "mha", "nrrd",   "pgm", "png", "raw"};
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++) {
        KT_CHECK(kst_do(&S, "GET", &r, "/api/item/%d/download?fmt=%s&lo=0&hi=35", id, fmts[f]) ==
                 0);
        KT_CHECK_MSG(r.status == 200 && r.len > 0, "download .%s: %d %s", fmts[f], r.status,
                     r.body);
        KT_CHECK(kst_header(&r, "Content-Disposition", h, sizeof h) && strstr(h, "a_npy."));
        if (!strcmp(fmts[f], "npy")) {
            const char *p = kt_tmp("studio_back.npy");
            FILE *o = fopen(p, "wb");
            fwrite(r.body, 1, r.len, o);
            fclose(o);
            kr_array *b = NULL;
            KT_OK(kr_read(p, &b, NULL, NULL));
            KT_CHECK(b && b->dims[0] == 6 && b->dims[1] == 4 && ((float *)b->data)[17] == 25.0f);
            kr_array_destroy(b);
        }
        kst_free(&r);
    }
    KT_CHECK(kst_do(&S, "GET", &r, "/api/item/%d/download?fmt=exe", id) == 0 && r.status == 400);
    kst_free(&r);
    /* a BART pair: the .hdr, then the .cfl naming it */
    kst_upload("p.hdr", NULL, "# Dimensions\n2 3 1 1 1\n", 23, &r);
    j = kst_json(&r);
    int hid = j ? (int)kst_num(j, "id") : 0;
    KT_CHECK(r.status == 200 && hid > 0);
    kri_json_free(j);
    kst_free(&r);
    float cfl[12] = {1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0};
    char q[64];
    snprintf(q, sizeof q, "&hdr=%d", hid);
    kst_upload("p.cfl", q, cfl, sizeof cfl, &r);
    KT_CHECK_MSG(r.status == 200 && strstr(r.body, "\"max\": 6"), "cfl pair: %s", r.body);
    kst_free(&r);
    kst_upload("q.cfl", NULL, cfl, sizeof cfl, &r);
    KT_CHECK(r.status == 422 && strstr(r.body, ".hdr"));
    kst_free(&r);
    /* comparison: the array against itself plus one */
    float *ap = (float *)(npy + n - 96);
    for (int i = 0; i < 24; i++) ap[i] += 1.0f;
    kst_upload("b.npy", NULL, npy, n, &r);
    j = kst_json(&r);
    int id2 = j ? (int)kst_num(j, "id") : 0;
    kri_json_free(j);
    kst_free(&r);
    KT_CHECK(kst_do(&S, "GET", &r, "/api/compare?a=%d&b=%d", id2, id) == 0 && r.status == 200);
    j = kst_json(&r);
    KT_CHECK(j && kst_num(j, "maxerr") == 1 && kst_num(j, "mse") == 1);
    int did = j ? (int)kst_num(j, "item") : 0;
    kri_json_free(j);
    kst_free(&r);
    KT_CHECK(kst_do(&S, "GET", &r, "/api/item/%d", did) == 0 && strstr(r.body, "\"min\": 1"));
    kst_free(&r);
    KT_CHECK(kst_do(&S, "GET", &r, "/api/compare?a=%d&b=%d", id, hid) == 0 && r.status == 422);
    kst_free(&r);
    KT_CHECK(kst_do(&S, "GET", &r, "/api/items") == 0 && r.status == 200 &&
             strstr(r.body, "a.npy"));
    kst_free(&r);
    free(npy);
}

/* ISMRMRD (its k-space) and DICOM uploads, when this build reads them. */
static void test_formats(void)
{
    char cmd[4096], path[4096];
    const char *k = getenv("KRAY");
    const char *dir = kt_tmp("studio_formats");
    snprintf(cmd, sizeof cmd,
             "mkdir -p %s && cd %s && %s phantom --kind kspace -n 16 --coils 2 "
             "k.npy && %s recon --kspace-out k.h5 k.npy rss.npy 2>/dev/null; %s phantom "
             "--kind sinogram -n 16 --views 12 s.npy && %s fbp s.npy img.dcm 2>/dev/null; true",
             dir, dir, k, k, k, k);
    KT_CHECK(system(cmd) == 0);
    static const char *const files[][2] = {{"k.h5", "\"dims\": [16, 16, 2]"},
                                           {"img.dcm", "\"dims\": [16, 16"}};
    for (int f = 0; f < 2; f++) {
        size_t n = 0;
        snprintf(path, sizeof path, "%s/%s", dir, files[f][0]);
        char *b = kst_slurp(path, &n);
        if (!b) {
            printf("note: %s not made (this build has no %s)\n", files[f][0],
                   f ? "DCMTK" : "ISMRMRD");
            continue;
        }
        kst_resp r;
        kst_upload(files[f][0], NULL, b, n, &r);
        KT_CHECK_MSG(r.status == 200 && strstr(r.body, files[f][1]), "%s: %d %s", files[f][0],
                     r.status, r.body);
        kst_free(&r);
        free(b);
    }
}

static int kst_count_files(const char *dir, const char *name)
{
    int n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, name)) n++;
    if (d) closedir(d);
    return n;
}

static void test_uploads(void)
{
    kst_resp r;
    static char big[80000], chunked[80000];
    memset(big, 'x', sizeof big);
    /* over --max-upload 65536: refused from the Content-Length, and by count when chunked */
    kst_upload("big.npy", NULL, big, sizeof big, &r);
    KT_CHECK_MSG(r.status == 413 && strstr(r.body, "65536"), "oversized: %d %s", r.status, r.body);
    kst_free(&r);
    int o = snprintf(chunked, sizeof chunked, "11170\r\n"); /* 70000 bytes */
    memset(chunked + o, 'y', 70000);
    o += 70000;
    o += snprintf(chunked + o, sizeof chunked - (size_t)o, "\r\n0\r\n\r\n");
    KT_CHECK(kst_request(&S, "POST", "/api/upload?name=c.npy", 1, "Transfer-Encoding: chunked\r\n",
                         chunked, (size_t)o, &r) == 0);
    KT_CHECK_MSG(r.status == 413, "chunked oversized: %d %s", r.status, r.body);
    kst_free(&r);
    KT_CHECK(kst_request(&S, "POST", "/api/job?page=ct", 1, NULL, big, sizeof big, &r) == 0 &&
             r.status == 413);
    kst_free(&r);
    /* names from the client never name a file */
    kst_upload("..%2F..%2F..%2Fevil.npy", NULL, "\x93NUMPY", 6, &r);
    KT_CHECK(r.status == 422 && strstr(r.body, "npy"));
    kst_free(&r);
    KT_CHECK(kst_count_files(S.tmp, "evil") == 0);
    kst_upload("notes.txt", NULL, "hello", 5, &r);
    KT_CHECK(r.status == 415);
    kst_free(&r);
    kst_upload("bad.npy", NULL, "not an array", 12, &r);
    KT_CHECK_MSG(r.status == 422 && strstr(r.body, "\"bad.npy: not a NumPy") &&
                     !strstr(r.body, "kray-studio-"),
                 "bad file: %s", r.body);
    kst_free(&r);
    kst_upload("g.json", NULL, "{\"type\": \"parallel2d\"}", 22, &r);
    KT_CHECK_MSG(r.status == 422 && strstr(r.body, "g.json: missing field 'det_count'"),
                 "bad geometry: %s", r.body);
    kst_free(&r);
    KT_CHECK(kst_status("GET", 1, NULL, "/api/upload?name=a.npy") == 405);
    KT_CHECK(kst_status("POST", 1, NULL, "/api/upload") == 415);
}

static void test_jobs(void)
{
    kst_resp r;
    int st = 0;
    /* bad parameters: status 400 and one sentence */
    KT_CHECK(!kst_submit(&S, "page=nope", &st) && st == 400);
    KT_CHECK(!kst_submit(&S, "page=mri&R=abc", &st) && st == 400);
    KT_CHECK(!kst_submit(&S, "page=mri&R=99", &st) && st == 400);
    KT_CHECK(!kst_submit(&S, "page=ct&algo=cgls", &st) && st == 400);
    KT_CHECK(!kst_submit(&S, "page=ct&geom=file&geomfile=../../etc/passwd", &st) && st == 400);
    KT_CHECK(!kst_submit(&S, "page=ct&geom=file", &st) && st == 400);
    KT_CHECK(!kst_submit(&S, "page=ct&fov=-1", &st) && st == 400);
    KT_CHECK(!kst_submit(&S, "page=ct&geom=fan&sod=900&sdd=800", &st) && st == 400);
    KT_CHECK(kst_do(&S, "POST", &r, "/api/job?page=mri&R=abc") == 0 && strstr(r.body, "'R'"));
    kst_free(&r);
    KT_CHECK(kst_status("GET", 1, NULL, "/api/job?page=ct") == 405);
    KT_CHECK(kst_status("GET", 1, NULL, "/api/job/999999") == 404);
    KT_CHECK(kst_status("POST", 1, NULL, "/api/job/999999/cancel") == 404);
    KT_CHECK(kst_status("GET", 1, NULL, "/api/job/1/cancel") == 405);
    /* a job that fails in a tool: kray's sentence; the server keeps serving */
    int id = kst_submit(&S, "page=mri&size=16&seq=gre&te=0.01", &st);
    KT_CHECK(id > 0);
    kri_json *j = kst_wait_job(&S, id, 60);
    KT_CHECK_MSG(j && !strcmp(kst_str(j, "state"), "failed") &&
                     !strncmp(kst_str(j, "message"), "kray sim: ", 10),
                 "failing job: %s", j ? kst_str(j, "message") : "(timeout)");
    kri_json_free(j);
    KT_CHECK(kst_status("GET", 1, NULL, "/api/info") == 200);
    /* a job that runs: its events stream to the end, its results are items */
    id = kst_submit(&S, "page=ct&size=16&views=20", &st);
    KT_CHECK(id > 0);
    KT_CHECK(kst_do(&S, "GET", &r, "/api/job/%d/events", id) == 0 && r.status == 200);
    char h[128];
    KT_CHECK(kst_header(&r, "Content-Type", h, sizeof h) && !strcmp(h, "text/event-stream"));
    KT_CHECK_MSG(r.body && strstr(r.body, "data: {") && strstr(r.body, "\"state\": \"done\""),
                 "events: %.300s", r.body);
    kst_free(&r);
    j = kst_wait_job(&S, id, 60);
    const kri_json *res = j ? kri_json_get(j, "results") : NULL;
    KT_CHECK(res && res->type == KRI_JSON_ARRAY && res->n >= 4);
    const kri_json *cmds = j ? kri_json_get(j, "commands") : NULL;
    KT_CHECK(cmds && cmds->n >= 3 && strstr(cmds->items[1]->str, "kray phantom"));
    for (size_t i = 0; res && i < res->n; i++) {
        int item = (int)kst_num(res->items[i], "item");
        const char *role = kst_str(res->items[i], "role");
        KT_CHECK(kst_do(&S, "GET", &r, !strcmp(role, "geom") ? "/api/item/%d/file" : "/api/item/%d",
                        item) == 0 &&
                 r.status == 200);
        kst_free(&r);
    }
    kri_json_free(j);
    KT_CHECK(kst_do(&S, "GET", &r, "/api/jobs") == 0 && strstr(r.body, "\"page\": \"ct\""));
    kst_free(&r);
}

/* Children of the server whose command line names `tool`. */
static int kst_children(const char *tool)
{
    int n = 0;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char p[300], buf[4096];
        snprintf(p, sizeof p, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(p, "r");
        if (!f) continue;
        int pid = 0, ppid = 0;
        char comm[256], state;
        int ok = fscanf(f, "%d %255s %c %d", &pid, comm, &state, &ppid) == 4;
        fclose(f);
        if (!ok || ppid != S.pid || state == 'Z') continue;
        snprintf(p, sizeof p, "/proc/%s/cmdline", e->d_name);
        f = fopen(p, "r");
        size_t m = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
        if (f) fclose(f);
        for (size_t i = 0; i < m; i++)
            if (!buf[i]) buf[i] = ' ';
        buf[m] = '\0';
        if (strstr(buf, tool)) n++;
    }
    if (d) closedir(d);
    return n;
}

static void test_cancel(void)
{
    int st = 0;
    int id = kst_submit(&S, "page=ct&geom=cone&size=48&nz=48&views=180&algo=cgls&iters=2000", &st);
    KT_CHECK(id > 0);
    int seen = 0;
    for (int i = 0; i < 600 && !seen; i++) { /* until the solver runs */
        seen = kst_children("cgls") > 0;
        if (!seen) usleep(50000);
    }
    KT_CHECK_MSG(seen, "the CGLS child never ran");
    kst_resp r;
    KT_CHECK(kst_do(&S, "POST", &r, "/api/job/%d/cancel", id) == 0 && r.status == 200);
    kst_free(&r);
    kri_json *j = kst_wait_job(&S, id, 10);
    KT_CHECK_MSG(j && !strcmp(kst_str(j, "state"), "cancelled"), "cancel: %s",
                 j ? kst_str(j, "state") : "(not within 10 s)");
    kri_json_free(j);
    KT_CHECK(kst_children("cgls") == 0);
    /* a queued job is cancelled at once */
    KT_CHECK(kst_status("GET", 1, NULL, "/api/info") == 200);
}

/* SIGTERM: exit status 0, no child left, the session directory gone. */
static void test_shutdown(void)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", S.tmp);
    int code = kst_stop(&S);
    KT_CHECK_MSG(code == 0, "kray studio exited %d after SIGTERM", code);
    KT_CHECK_MSG(kst_count_files(dir, "kray-studio-") == 0, "the session directory is still in %s",
                 dir);
    rmdir(dir);
}

int main(void)
{
    const char *extra[] = {"--max-upload", "65536", "--keep", "8", NULL};
    int r = kst_start(&S, extra);
    if (r == 77) kt_skip("this build of kray has no studio (or KRAY is not set)");
    if (r != 0) {
        fprintf(stderr, "cannot start kray studio\n");
        return 1;
    }
    KT_RUN(test_access);
    KT_RUN(test_items);
    KT_RUN(test_uploads);
    KT_RUN(test_formats);
    KT_RUN(test_jobs);
    KT_RUN(test_cancel);
    KT_RUN(test_shutdown);
    return kt_finish();
}
