/* Small helpers shared by the file-format tests (header only, static functions). */
#ifndef KRAY_KT_IO_H
#define KRAY_KT_IO_H

#include "kt.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

/* Write bytes to a file (test fixture). */
static inline int ktio_put(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t w = n ? fwrite(p, 1, n, f) : 0;
    int bad = fclose(f) != 0 || w != n;
    return bad ? -1 : 0;
}

/* A file of header text followed by n data bytes (test fixture). */
static inline void ktio_mk(const char *path, const char *hdr, const void *data, size_t n)
{
    size_t hl = strlen(hdr);
    unsigned char *b = malloc(hl + n + 1);
    KT_CHECK(b != NULL);
    if (!b) return;
    memcpy(b, hdr, hl);
    if (n) memcpy(b + hl, data, n);
    KT_CHECK(ktio_put(path, b, hl + n) == 0);
    free(b);
}

/* Whole file into a new malloc'ed buffer (NULL if missing); *n its size. */
static inline unsigned char *ktio_get(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    *n = 0;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)sz + 1);
    if (b && fread(b, 1, (size_t)sz, f) != (size_t)sz) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) {
        b[sz] = 0;
        *n = (size_t)sz;
    }
    return b;
}

static inline int ktio_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static inline long ktio_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Number of "<base>.tmp.*" files left beside path. */
static inline int ktio_temp_files(const char *path)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    const char *base = path;
    if (slash) {
        *slash = 0;
        base = path + (slash - dir) + 1;
    } else {
        snprintf(dir, sizeof dir, ".");
    }
    char prefix[1100];
    snprintf(prefix, sizeof prefix, "%s.tmp.", base);
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) n++;
    closedir(d);
    return n;
}

/* The last error names the file (its base name is enough) and contains `what` (may be NULL). */
#define KTIO_ERR_NAMES(path, what)                                                                 \
    do {                                                                                           \
        const char *kt_e_ = kr_last_error();                                                       \
        const char *kt_b_ = strrchr((path), '/');                                                  \
        kt_b_ = kt_b_ ? kt_b_ + 1 : (path);                                                        \
        KT_CHECK_MSG(strstr(kt_e_, kt_b_) != NULL, "error '%s' does not name the file %s", kt_e_,  \
                     kt_b_);                                                                       \
        KT_CHECK_MSG(ktio_mentions(kt_e_, (what)), "error '%s' does not mention '%s'", kt_e_,      \
                     ktio_str(what));                                                              \
    } while (0)

static inline int ktio_mentions(const char *e, const char *what)
{
    return what == NULL || strstr(e, what) != NULL;
}
static inline const char *ktio_str(const char *s)
{
    return s ? s : "";
}

/* Reading `path` fails with `st`, names the file and mentions `what`. */
#define KTIO_READ_FAILS(path, st, what)                                                            \
    do {                                                                                           \
        kr_array *kt_a_ = NULL;                                                                    \
        KT_STATUS(kr_read((path), &kt_a_, NULL, NULL), (st));                                      \
        KT_CHECK(kt_a_ == NULL);                                                                   \
        KTIO_ERR_NAMES((path), (what));                                                            \
        kr_array_destroy(kt_a_);                                                                   \
    } while (0)

/* Deterministic test values (the same formulas are used by the Python peers). */
static inline void ktio_fill(kr_array *a)
{
    int64_t n = kr_array_numel(a);
    for (int64_t i = 0; i < n; i++) {
        double d = (double)i;
        switch (a->dtype) {
        case KR_U8: ((uint8_t *)a->data)[i] = (uint8_t)(i % 251); break;
        case KR_I16: ((int16_t *)a->data)[i] = (int16_t)((i * 37) % 2000 - 1000); break;
        case KR_U16: ((uint16_t *)a->data)[i] = (uint16_t)((i * 997) % 65536); break;
        case KR_F32: ((float *)a->data)[i] = (float)(d * 0.5 - 3.25); break;
        case KR_F64: ((double *)a->data)[i] = d * 0.1 - 1.0; break;
        case KR_C64:
            ((float *)a->data)[2 * i] = (float)(d * 0.5);
            ((float *)a->data)[2 * i + 1] = (float)(-0.25 * d);
            break;
        case KR_C128:
            ((double *)a->data)[2 * i] = d * 0.1;
            ((double *)a->data)[2 * i + 1] = 1.0 - d * 0.3;
            break;
        default: break;
        }
    }
}

static inline kr_array *ktio_make(kr_dtype t, int ndim, const int64_t *dims)
{
    kr_array *a = NULL;
    if (kr_array_create(&a, t, ndim, dims, KR_HOST, NULL) != KR_OK) return NULL;
    ktio_fill(a);
    return a;
}

/* Same dtype, same dims (ndim included) and the same bytes. */
static inline int ktio_equal(const kr_array *a, const kr_array *b)
{
    if (!a || !b || a->dtype != b->dtype || a->ndim != b->ndim) return 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->dims[i] != b->dims[i]) return 0;
    return memcmp(a->data, b->data, kr_array_bytes(a)) == 0;
}

/* The metadata of the round-trip tests: spacing (0.75, 1.25, 2.5), origin (-10.5, 20.25, 3),
 * the given description. */
static inline kr_meta ktio_meta(const char *description)
{
    kr_meta m;
    memset(&m, 0, sizeof m);
    m.spacing[0] = 0.75;
    m.spacing[1] = 1.25;
    m.spacing[2] = 2.5;
    m.origin[0] = -10.5;
    m.origin[1] = 20.25;
    m.origin[2] = 3.0;
    if (description) snprintf(m.description, sizeof m.description, "%s", description);
    return m;
}

/* Read path back and check it against a (bit for bit) and, unless m is NULL, against m's
 * spacing, origin and description; label names the case in a failure. */
static inline void ktio_check_read_back(const char *path, const kr_array *a, const kr_meta *m,
                                        const char *label)
{
    kr_array *b = NULL;
    kr_meta r;
    KT_OK(kr_read(path, &b, &r, NULL));
    KT_CHECK_MSG(ktio_equal(a, b), "%s: the array read back differs", label);
    if (m) {
        for (int i = 0; i < 3; i++)
            KT_CHECK(r.spacing[i] == m->spacing[i] && r.origin[i] == m->origin[i]);
        KT_CHECK(strcmp(r.description, m->description) == 0);
    }
    kr_array_destroy(b);
}

/* Run `body` with writes limited to `bytes` per file (RLIMIT_FSIZE, SIGXFSZ ignored), so a
 * write fails part way with EFBIG. Returns the status of the body. */
#define KTIO_WITH_FSIZE_LIMIT(bytes, body)                                                         \
    do {                                                                                           \
        struct rlimit kt_old_, kt_new_;                                                            \
        getrlimit(RLIMIT_FSIZE, &kt_old_);                                                         \
        kt_new_ = kt_old_;                                                                         \
        kt_new_.rlim_cur = (rlim_t)(bytes);                                                        \
        void (*kt_sig_)(int) = signal(SIGXFSZ, SIG_IGN);                                           \
        setrlimit(RLIMIT_FSIZE, &kt_new_);                                                         \
        body;                                                                                      \
        setrlimit(RLIMIT_FSIZE, &kt_old_);                                                         \
        signal(SIGXFSZ, kt_sig_);                                                                  \
    } while (0)

/* Remove a scratch folder made by a test (and what is in it). */
static inline void ktio_rmdir(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "note: could not remove %s\n", dir);
}

/* True when /usr/bin/python3 can import `module` (the Debian peers). */
static inline int ktio_python_has(const char *module)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 -c 'import %s' >/dev/null 2>&1", module);
    return system(cmd) == 0;
}

#endif
