/* Helpers of the harnesses (fuzz_common.h): the private folder, framed inputs, seeds. */
#include "fuzz_common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char fz_dir[512];
static const char *fz_seed_dir;
static int fz_nseed;

static void fz_init_dir(void)
{
    if (fz_dir[0]) return;
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(fz_dir, sizeof fz_dir, "%s/kray-fuzz-%ld", base, (long)getpid());
    mkdir(fz_dir, 0700);
}

static void fz_cleanup(void)
{
    if (!fz_dir[0]) return;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fz_dir);
    if (system(cmd) != 0) fprintf(stderr, "fuzz: could not remove %s\n", fz_dir);
}

const char *fz_path(const char *name)
{
    static char slot[8][700];
    static int k;
    fz_init_dir();
    char *p = slot[k++ % 8];
    snprintf(p, sizeof slot[0], "%s/%s", fz_dir, name);
    return p;
}

const char *fz_file(const char *name, const void *p, size_t n)
{
    const char *path = fz_path(name);
    FILE *f = fopen(path, "wb");
    if (!f) abort(); /* the harness cannot run without its folder */
    if (n && fwrite(p, 1, n, f) != n) abort();
    fclose(f);
    return path;
}

int fz_split(const uint8_t *d, size_t n, const uint8_t **a, size_t *na, const uint8_t **b,
             size_t *nb)
{
    if (n < 2) return 0;
    size_t la = (size_t)d[0] | (size_t)d[1] << 8;
    if (la > n - 2) la = n - 2;
    *a = d + 2;
    *na = la;
    *b = d + 2 + la;
    *nb = n - 2 - la;
    return 1;
}

uint8_t *fz_slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(len > 0 ? (size_t)len : 1);
    *n = len > 0 && b ? fread(b, 1, (size_t)len, f) : 0;
    fclose(f);
    return b;
}

void fz_seed(const void *p, size_t n)
{
    char path[700];
    snprintf(path, sizeof path, "%s/seed-%03d", fz_seed_dir, fz_nseed++);
    FILE *f = fopen(path, "wb");
    if (!f || (n && fwrite(p, 1, n, f) != n)) {
        fprintf(stderr, "fuzz: cannot write %s\n", path);
        exit(1);
    }
    fclose(f);
}

void fz_seed_file(const char *path)
{
    size_t n;
    uint8_t *b = fz_slurp(path, &n);
    if (b) fz_seed(b, n);
    free(b);
}

void fz_read_one_or_pair(const uint8_t *d, size_t n, const char *one, const char *hdr)
{
    if (n < 1) return;
    if (!(d[0] & 1)) {
        fz_read(fz_file(one, d + 1, n - 1), NULL);
        return;
    }
    const uint8_t *h, *r;
    size_t nh, nr;
    if (!fz_split(d + 1, n - 1, &h, &nh, &r, &nr)) return;
    fz_file("in.raw", r, nr);
    fz_read(fz_file(hdr, h, nh), NULL);
}

void fz_seed_mode(uint8_t m, const void *b, size_t n)
{
    uint8_t *f = malloc(n + 1);
    f[0] = m;
    memcpy(f + 1, b, n);
    fz_seed(f, n + 1);
    free(f);
}

void fz_seed_pair(const char *header, const char *data)
{
    size_t na, nb;
    uint8_t *a = fz_slurp(header, &na), *b = fz_slurp(data, &nb);
    if (a && b && na < 65536) {
        uint8_t *f = malloc(2 + na + nb);
        f[0] = (uint8_t)(na & 255);
        f[1] = (uint8_t)(na >> 8);
        memcpy(f + 2, a, na);
        memcpy(f + 2 + na, b, nb);
        fz_seed(f, 2 + na + nb);
        free(f);
    }
    free(a);
    free(b);
}

kr_array *fz_array(int kind)
{
    static const kr_dtype dt[FZ_NARRAYS] = {KR_F32, KR_F64, KR_C64, KR_C128, KR_U8,
                                            KR_U16, KR_I16, KR_F32, KR_F64};
    static const int nd[FZ_NARRAYS] = {2, 1, 2, 3, 2, 2, 3, 4, 3};
    static const int64_t dims[FZ_NARRAYS][4] = {{4, 3}, {7}, {3, 2}, {2, 2, 2}, {5, 4},
                                                {3, 3}, {2, 3, 2}, {2, 1, 2, 2}, {3, 1, 2}};
    kr_array *a = NULL;
    if (kr_array_create(&a, dt[kind], nd[kind], dims[kind], KR_HOST, NULL) != KR_OK) abort();
    int64_t n = kr_array_numel(a) * (kr_dtype_is_complex(a->dtype) ? 2 : 1);
    for (int64_t i = 0; i < n; i++) {
        double v = (double)((i * 37 + kind * 11) % 23) - 7.5;
        if (kind == 8 && i == 2) v = NAN;
        if (kind == 8 && i == 4) v = -INFINITY;
        switch (a->dtype) {
        case KR_F32:
        case KR_C64: ((float *)a->data)[i] = (float)v; break;
        case KR_F64:
        case KR_C128: ((double *)a->data)[i] = v; break;
        case KR_U8: ((uint8_t *)a->data)[i] = (uint8_t)(i * 29); break;
        case KR_U16: ((uint16_t *)a->data)[i] = (uint16_t)(i * 7919); break;
        case KR_I16: ((int16_t *)a->data)[i] = (int16_t)(v * 1000); break;
        default: break;
        }
    }
    return a;
}

void fz_read(const char *path, const kr_io_opts *opts)
{
    kr_array *a = NULL;
    if (kr_read(path, &a, NULL, opts) == KR_OK) {
        const volatile uint8_t *b = a->data;
        size_t bytes = (size_t)kr_array_numel(a) * kr_dtype_size(a->dtype);
        uint8_t x = 0;
        for (size_t i = 0; i < bytes; i++) x ^= b[i];
        (void)x;
    }
    kr_array_destroy(a);
}

void fz_seed_arrays(const char *name, const kr_io_opts *opts)
{
    for (int k = 0; k < FZ_NARRAYS; k++) {
        kr_array *a = fz_array(k);
        if (kr_write(fz_path(name), a, opts) == KR_OK) fz_seed_file(fz_path(name));
        kr_array_destroy(a);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fz_init_dir();
    atexit(fz_cleanup);
    fz_seed_dir = getenv("KRAY_FUZZ_SEEDS");
    if (fz_seed_dir && *fz_seed_dir) {
        mkdir(fz_seed_dir, 0755);
        fz_seeds();
        printf("wrote %d seeds to %s\n", fz_nseed, fz_seed_dir);
        exit(0);
    }
    return 0;
}
