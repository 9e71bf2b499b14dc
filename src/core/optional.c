/* Optional parts (optional.h): where each one's file is, loading it on first use, and the
 * report of `kray --version`. The file names come from the build (CMakeLists.txt sets them on
 * this source): KRAY_CUFFT_FILE / KRAY_CUFFT_PATH, KRAY_ISMRMRD_FILE / KRAY_ISMRMRD_PATH (the
 * soname, then the absolute path the build linked against), KRAY_DCMTK_PLUGIN and
 * KRAY_PLUGIN_LIBDIR (the plug-in's file name and the install's library folder). */
#define _GNU_SOURCE /* dladdr */
#include "optional.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define KRI_SYM_NAME(name) #name,
static const char *const kri_cufft_syms[] = {KRI_CUFFT_SYMS(KRI_SYM_NAME)};
static const char *const kri_ismrmrd_syms[] = {KRI_ISMRMRD_SYMS(KRI_SYM_NAME)};
static const char *const kri_dcmtk_syms[] = {KRI_DCMTK_SYMS(KRI_SYM_NAME)};
static const char *const kri_mpi_syms[] = {KRI_MPI_SYMS(KRI_SYM_NAME)};
#define KRI_MAX_SYMS 80
_Static_assert(KRI_CUFFT_NSYM <= KRI_MAX_SYMS && KRI_ISMRMRD_NSYM <= KRI_MAX_SYMS &&
                   KRI_DCMTK_NSYM <= KRI_MAX_SYMS && KRI_MPI_NSYM <= KRI_MAX_SYMS,
               "KRI_MAX_SYMS is too small for a part's symbols");

typedef struct kri_part_desc {
    const char *name;         /* as `kray --version` lists it */
    const char *what;         /* the subject of the failure sentence */
    const char *file;         /* soname or plug-in file name; NULL: not in this build */
    const char *fallback;     /* absolute path from the build, or NULL */
    int plugin;               /* kray's own plug-in: looked for in kri_plugin_dirs; 2: also
                                 opened with its symbols global (RTLD_GLOBAL) */
    const char *hint;         /* what provides the file */
    const char *const *syms;
    int nsym;
} kri_part_desc;

#ifndef KRAY_CUFFT_PATH
#define KRAY_CUFFT_PATH NULL
#endif
#ifndef KRAY_ISMRMRD_PATH
#define KRAY_ISMRMRD_PATH NULL
#endif
#ifndef KRAY_PLUGIN_LIBDIR
#define KRAY_PLUGIN_LIBDIR NULL
#endif
#if defined(KRAY_HAVE_CUDA) && defined(KRAY_CUFFT_FILE)
#define KRI_CUFFT_FILE KRAY_CUFFT_FILE
#else
#define KRI_CUFFT_FILE NULL
#endif
#if defined(KRAY_HAVE_ISMRMRD) && defined(KRAY_ISMRMRD_FILE)
#define KRI_ISMRMRD_FILE KRAY_ISMRMRD_FILE
#else
#define KRI_ISMRMRD_FILE NULL
#endif
#if defined(KRAY_HAVE_DCMTK) && defined(KRAY_DCMTK_PLUGIN)
#define KRI_DCMTK_FILE KRAY_DCMTK_PLUGIN
#else
#define KRI_DCMTK_FILE NULL
#endif
#ifdef KRAY_MPI_PLUGIN
#define KRI_MPI_FILE KRAY_MPI_PLUGIN
#else
#define KRI_MPI_FILE NULL
#endif

static const kri_part_desc kri_parts[KRI_PART_COUNT] = {
    [KRI_PART_CUFFT] = {"cufft", "cuFFT (device FFTs)", KRI_CUFFT_FILE, KRAY_CUFFT_PATH, 0,
                        "the CUDA toolkit's cuFFT", kri_cufft_syms, KRI_CUFFT_NSYM},
    [KRI_PART_ISMRMRD] = {"ismrmrd", "ISMRMRD files", KRI_ISMRMRD_FILE, KRAY_ISMRMRD_PATH, 0,
                          "Debian's libismrmrd (libismrmrd-dev)", kri_ismrmrd_syms,
                          KRI_ISMRMRD_NSYM},
    [KRI_PART_DCMTK] = {"dcmtk", "DICOM files", KRI_DCMTK_FILE, NULL, 1,
                        "kray's DCMTK plug-in, built and installed with libkray (and Debian's "
                        "libdcmtk17)",
                        kri_dcmtk_syms, KRI_DCMTK_NSYM},
    [KRI_PART_MPI] = {"mpi", "MPI runs", KRI_MPI_FILE, NULL, 2,
                      "kray's MPI plug-in, built where Open MPI is installed (libopenmpi-dev) "
                      "and installed with libkray",
                      kri_mpi_syms, KRI_MPI_NSYM},
};

typedef struct kri_part_state {
    atomic_int done; /* 0 not tried, 1 loaded, -1 failed */
    kri_fn fns[KRI_MAX_SYMS];
    char msg[480];
} kri_part_state;

static kri_part_state kri_part_st[KRI_PART_COUNT];
static pthread_mutex_t kri_part_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- finding files ------------------------------------------------------------------------ */
#if defined(__x86_64__)
#define KRI_ELF_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define KRI_ELF_MACHINE EM_AARCH64
#elif defined(__powerpc64__)
#define KRI_ELF_MACHINE EM_PPC64
#else
#define KRI_ELF_MACHINE 0 /* not checked */
#endif

/* 1 when path is a readable ELF shared object of this process's class and machine. */
static int kri_elf_ok(const char *path)
{
    unsigned char h[20];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, h, sizeof h);
    close(fd);
    if (n != (ssize_t)sizeof h || memcmp(h, ELFMAG, SELFMAG) != 0) return 0;
    if (h[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32)) return 0;
    const unsigned machine = h[EI_DATA] == ELFDATA2MSB ? (unsigned)h[18] << 8 | h[19]
                                                       : (unsigned)h[19] << 8 | h[18];
    return KRI_ELF_MACHINE == 0 || machine == KRI_ELF_MACHINE;
}

/* dir + "/" + file into out when that is a usable ELF file. */
static int kri_try_dir(const char *dir, size_t dlen, const char *file, char *out, size_t len)
{
    if (dlen == 0) return 0;
    int n = snprintf(out, len, "%.*s/%s", (int)dlen, dir, file);
    return n > 0 && (size_t)n < len && kri_elf_ok(out);
}

/* Look `name` up in the dynamic loader's cache (/etc/ld.so.cache, glibc's format 1.1, possibly
 * behind the old 1.7.0 table); 1 with the path when an entry of this machine is found. */
static int kri_ldcache_find(const char *name, char *out, size_t len)
{
    int fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat sb;
    void *map = MAP_FAILED;
    if (fstat(fd, &sb) == 0 && sb.st_size > 64)
        map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return 0;
    const char *b = map;
    const size_t n = (size_t)sb.st_size;
    size_t off = 0;
    uint32_t u;
    int found = 0;
    if (memcmp(b, "ld.so-1.7.0", 11) == 0) { /* old table first: 12-byte entries */
        memcpy(&u, b + 12, 4);
        off = (16 + (size_t)u * 12 + 7) & ~(size_t)7;
    }
    if (off + 48 <= n && memcmp(b + off, "glibc-ld.so.cache1.1", 20) == 0) {
        const char *s = b + off; /* string offsets count from the new header */
        const size_t sn = n - off;
        memcpy(&u, s + 20, 4);
        for (size_t i = 0; i < u && !found; i++) {
            const size_t e = 48 + i * 24;
            if (e + 24 > sn) break;
            uint32_t key, val;
            memcpy(&key, s + e + 4, 4);
            memcpy(&val, s + e + 8, 4);
            if (key >= sn || val >= sn) continue;
            const size_t kl = strnlen(s + key, sn - key), vl = strnlen(s + val, sn - val);
            if (key + kl >= sn || val + vl >= sn || strcmp(s + key, name) != 0) continue;
            if (vl < len && kri_elf_ok(s + val)) {
                memcpy(out, s + val, vl + 1);
                found = 1;
            }
        }
    }
    munmap(map, n);
    return found;
}

/* The folders where kray's plug-ins are looked for, in order: $KRAY_PLUGIN_DIR, the folder of
 * the object holding libkray's code (libkray.so, or the program that links libkray.a), the
 * program's folder, the install's library folder. Returns how many; each is dirs[i], dl[i]
 * characters long. */
static int kri_plugin_dirs(char dirs[4][PATH_MAX], size_t dl[4])
{
    int k = 0;
    const char *env = getenv("KRAY_PLUGIN_DIR");
    if (env && *env) snprintf(dirs[k++], PATH_MAX, "%s", env);
    Dl_info info;
    if (dladdr(&kri_part_lock, &info) && info.dli_fname && strchr(info.dli_fname, '/') &&
        realpath(info.dli_fname, dirs[k]))
        k++;
    ssize_t r = readlink("/proc/self/exe", dirs[k], PATH_MAX - 1);
    if (r > 0) dirs[k++][r] = '\0';
    for (int i = 0; i < k; i++) { /* the files' folders */
        char *sl = i == 0 && env && *env ? NULL : strrchr(dirs[i], '/');
        if (sl) *sl = '\0';
    }
    if (KRAY_PLUGIN_LIBDIR) snprintf(dirs[k++], PATH_MAX, "%s", KRAY_PLUGIN_LIBDIR);
    for (int i = 0; i < k; i++) dl[i] = strlen(dirs[i]);
    return k;
}

/* Where the loader would find part d's file, without loading it: 1 with the path. */
static int kri_part_find(const kri_part_desc *d, char *out, size_t len)
{
    if (d->plugin) {
        char dirs[4][PATH_MAX];
        size_t dl[4];
        const int k = kri_plugin_dirs(dirs, dl);
        for (int i = 0; i < k; i++)
            if (kri_try_dir(dirs[i], dl[i], d->file, out, len)) return 1;
        return 0;
    }
    const char *lp = getenv("LD_LIBRARY_PATH");
    for (const char *p = lp; p && *p;) {
        const size_t l = strcspn(p, ":;");
        if (kri_try_dir(p, l, d->file, out, len)) return 1;
        p += l + (p[l] != '\0');
    }
    if (kri_ldcache_find(d->file, out, len)) return 1;
    static const char *const sys[] = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                                      "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
                                      "/lib64", "/usr/lib64", "/lib", "/usr/lib"};
    for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++)
        if (kri_try_dir(sys[i], strlen(sys[i]), d->file, out, len)) return 1;
    if (d->fallback && kri_elf_ok(d->fallback)) {
        snprintf(out, len, "%s", d->fallback);
        return 1;
    }
    return 0;
}

/* ---- loading ------------------------------------------------------------------------------- */
static void *kri_part_dlopen(const kri_part_desc *d, char *why, size_t wlen)
{
    void *h = NULL;
    why[0] = '\0';
    if (d->plugin) {
        char dirs[4][PATH_MAX], path[PATH_MAX + 64];
        size_t dl[4];
        const int k = kri_plugin_dirs(dirs, dl);
        for (int i = 0; i < k && !h; i++) {
            snprintf(path, sizeof path, "%.*s/%s", (int)dl[i], dirs[i], d->file);
            if (access(path, F_OK) != 0) continue;
            h = dlopen(path, RTLD_NOW | (d->plugin == 2 ? RTLD_GLOBAL : RTLD_LOCAL));
            if (!h && !why[0]) snprintf(why, wlen, "%s", dlerror());
        }
        if (!h && !why[0])
            snprintf(why, wlen, "not found beside libkray or the program, in $KRAY_PLUGIN_DIR "
                                "or in the install's library folder");
        return h;
    }
    h = dlopen(d->file, RTLD_NOW | RTLD_LOCAL);
    if (!h) snprintf(why, wlen, "%s", dlerror());
    if (!h && d->fallback) h = dlopen(d->fallback, RTLD_NOW | RTLD_LOCAL);
    return h;
}

/* Open part p and resolve its symbols into s (under kri_part_lock). */
static void kri_part_open(kri_part p, kri_part_state *s)
{
    const kri_part_desc *d = &kri_parts[p];
    if (!d->file) {
        snprintf(s->msg, sizeof s->msg, "%s: this build of kray has no %s support", d->what,
                 d->name);
        atomic_store_explicit(&s->done, -1, memory_order_release);
        return;
    }
    char why[360];
    void *h = kri_part_dlopen(d, why, sizeof why);
    if (!h) {
        snprintf(s->msg, sizeof s->msg, "%s need %s, which could not be loaded (%s); install %s",
                 d->what, d->file, why, d->hint);
        atomic_store_explicit(&s->done, -1, memory_order_release);
        return;
    }
    for (int i = 0; i < d->nsym; i++) {
        union {
            void *obj;
            kri_fn fn;
        } u;
        /* ISMRMRD's HDF5 symbols as the dynamic linker binds libismrmrd's and HDF5's own
         * references: a definition in the process's global scope first (a program that links
         * HDF5 itself holds copies of HDF5's type ids, which HDF5 then initialises). */
        u.obj = p == KRI_PART_ISMRMRD ? dlsym(RTLD_DEFAULT, d->syms[i]) : NULL;
        if (!u.obj) u.obj = dlsym(h, d->syms[i]);
        if (!u.obj) {
            snprintf(s->msg, sizeof s->msg,
                     "%s need %s, whose copy on this machine lacks %s (too old?); install %s",
                     d->what, d->file, d->syms[i], d->hint);
            dlclose(h);
            atomic_store_explicit(&s->done, -1, memory_order_release);
            return;
        }
        s->fns[i] = u.fn;
    }
    atomic_store_explicit(&s->done, 1, memory_order_release); /* the handle stays open */
}

/* Part p opened (once): 1 loaded, -1 failed (the sentence in its state). */
static int kri_part_ensure(kri_part p)
{
    kri_part_state *s = &kri_part_st[p];
    int d = atomic_load_explicit(&s->done, memory_order_acquire);
    if (d == 0) {
        pthread_mutex_lock(&kri_part_lock);
        if (atomic_load_explicit(&s->done, memory_order_acquire) == 0) kri_part_open(p, s);
        pthread_mutex_unlock(&kri_part_lock);
        d = atomic_load_explicit(&s->done, memory_order_acquire);
    }
    return d;
}

const void *kri_part_data(const kri_fn *fns, int i)
{
    union {
        void *obj;
        kri_fn fn;
    } u;
    u.fn = fns[i];
    return u.obj;
}

kr_status kri_part_load(kri_part p, const kri_fn **fns)
{
    *fns = NULL;
    if ((unsigned)p >= KRI_PART_COUNT) return kri_fail(KR_ERR_INTERNAL, "unknown optional part");
    if (kri_part_ensure(p) < 0) return kri_fail(KR_ERR_NOT_SUPPORTED, "%s", kri_part_st[p].msg);
    *fns = kri_part_st[p].fns;
    return KR_OK;
}

/* ---- the report ----------------------------------------------------------------------------- */
int kr_optional_parts(char *buf, size_t len, int load)
{
    size_t u = 0;
    int count = 0;
    if (buf && len) buf[0] = '\0';
    for (int p = 0; p < KRI_PART_COUNT; p++) {
        const kri_part_desc *d = &kri_parts[p];
        if (!d->file) continue;
        char where[PATH_MAX + 64] = "";
        const char *state;
        if (load) (void)kri_part_ensure((kri_part)p);
        const int done = atomic_load_explicit(&kri_part_st[p].done, memory_order_acquire);
        if (done > 0) {
            Dl_info info;
            union {
                void *obj;
                kri_fn fn;
            } f;
            f.fn = kri_part_st[p].fns[0];
            state = "loaded";
            snprintf(where, sizeof where, "%s",
                     dladdr(f.obj, &info) && info.dli_fname ? info.dli_fname : d->file);
        } else if (done < 0) {
            state = "missing";
            snprintf(where, sizeof where, "%s", kri_part_st[p].msg);
        } else if (kri_part_find(d, where, sizeof where)) {
            state = "present";
        } else {
            state = "missing";
            snprintf(where, sizeof where, "%s not found; install %s", d->file, d->hint);
        }
        count++;
        if (buf && u < len) {
            int n = snprintf(buf + u, len - u, "%-8s %-8s %s\n", d->name, state, where);
            if (n > 0) u += (size_t)n < len - u ? (size_t)n : len - u - 1;
        }
    }
    return count;
}
