/* Small helpers shared by the I/O format tests (test_io_*.c): writing handmade files, checking
 * that no file or temporary file is left behind, and running peer tools (python3 + numpy, bart). */
#ifndef KRAY_IO_TEST_UTIL_H
#define KRAY_IO_TEST_UTIL_H

#include "kt.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The Debian python with numpy (not the pyenv one on PATH). */
#define KT_PY "/usr/bin/python3"

/* Write n bytes to path (truncating). */
static inline void kt_put(const char *path, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        kt_fail_at(__FILE__, __LINE__, "cannot create %s", path);
        return;
    }
    if (n && fwrite(bytes, 1, n, f) != n) kt_fail_at(__FILE__, __LINE__, "cannot write %s", path);
    fclose(f);
}

static inline void kt_put_str(const char *path, const char *s) { kt_put(path, s, strlen(s)); }

static inline int kt_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static inline long long kt_fsize(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* Whole file into a malloc'ed buffer (NUL-terminated); NULL when it cannot be read. */
static inline unsigned char *kt_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) b[n] = 0;
    if (len) *len = (size_t)n;
    return b;
}

/* Number of entries in path's directory whose name starts with path's base name and contains
 * ".tmp." (left-over temporary files of the safe writer). */
static inline int kt_temps_left(const char *path)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : path;
    char prefix[4200];
    snprintf(prefix, sizeof prefix, "%s", base);
    if (slash)
        *slash = '\0';
    else
        snprintf(dir, sizeof dir, ".");
    /* strip a .cfl/.hdr extension so that both temporaries of a pair are found */
    size_t pl = strlen(prefix);
    if (pl > 4 && (!strcmp(prefix + pl - 4, ".cfl") || !strcmp(prefix + pl - 4, ".hdr")))
        prefix[pl - 4] = '\0';
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, prefix, strlen(prefix)) && strstr(e->d_name, ".tmp.")) n++;
    closedir(d);
    return n;
}

/* The status must be `expected` and the detail sentence must contain `name`. */
#define KT_FAILS_NAMING(expr, expected, name)                                                  \
    do {                                                                                       \
        KT_STATUS(expr, expected);                                                             \
        KT_CHECK_MSG(strstr(kr_last_error(), (name)) != NULL,                                  \
                     "detail \"%s\" does not name \"%s\"", kr_last_error(), (name));            \
    } while (0)

/* Run a shell command; its exit status (-1 when it could not run). */
static inline int kt_sh(const char *cmd)
{
    fflush(stdout);
    int r = system(cmd);
    if (r == -1 || !WIFEXITED(r)) return -1;
    return WEXITSTATUS(r);
}

/* Run a command and capture its standard output (malloc'ed, NUL-terminated) or NULL. */
static inline char *kt_sh_out(const char *cmd, int *status)
{
    fflush(stdout);
    FILE *p = popen(cmd, "r");
    if (!p) return NULL;
    size_t cap = 4096, n = 0;
    char *b = malloc(cap);
    size_t got;
    while (b && (got = fread(b + n, 1, cap - n - 1, p)) > 0) {
        n += got;
        if (cap - n < 2) {
            char *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                b = NULL;
                break;
            }
            b = nb;
            cap *= 2;
        }
    }
    int r = pclose(p);
    if (status) *status = (r != -1 && WIFEXITED(r)) ? WEXITSTATUS(r) : -1;
    if (b) b[n] = 0;
    return b;
}

/* Remove this process's files under the test directory (names "kt_<pid>_*", see kt_tmp). */
static inline void kt_cleanup_tmp(void)
{
    const char *dir = getenv("KRAY_TMP");
    if (!dir || !*dir) dir = "/tmp";
    char prefix[64];
    snprintf(prefix, sizeof prefix, "kt_%ld_", (long)getpid());
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char path[4200];
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, prefix, strlen(prefix))) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (remove(path) != 0) rmdir(path);
        }
    closedir(d);
}

static inline int kt_have_numpy(void)
{
    return kt_sh(KT_PY " -c 'import numpy' >/dev/null 2>&1") == 0;
}

static inline int kt_have_bart(void) { return kt_sh("command -v bart >/dev/null 2>&1") == 0; }

#endif
