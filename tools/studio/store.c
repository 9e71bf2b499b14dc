/* kray studio: the session's temporary directory and its items (see studio.h).
 *
 * Every file the server touches lives in one directory made by mkdtemp under $TMPDIR (or
 * /tmp), with names the server makes: uploads "u<N>.<ext>", jobs "j<N>/" with the names their
 * pages give, downloads "d<N>.<ext>". Clients name items by number only, so no path from a
 * request reaches the filesystem. Arrays are read with kray's readers when a page first asks
 * and kept (at most KS_CACHE_BYTES in all, least recently used dropped first). */
#define _GNU_SOURCE /* nftw's FTW_DEPTH | FTW_PHYS */
#include "studio.h"
#include "mri_common.h"

#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KS_CACHE_BYTES ((size_t)512 << 20)

struct ks_item {
    int id, job;
    char path[4096];
    char name[160];
    char role[16];
    int refs;             /* holders (requests, jobs) */
    int dropped;          /* removed from the table: freed by the last ks_item_put */
    pthread_mutex_t lock; /* the array below */
    kr_array *arr;
    int users; /* ks_item_array holders */
    unsigned long long used;
    ks_item *next;
};

static pthread_mutex_t ks_lock = PTHREAD_MUTEX_INITIALIZER;
static ks_item *ks_items;
static int ks_next_id = 1, ks_next_upload = 1;
static char ks_dir[4096];
static size_t ks_cached;
static unsigned long long ks_clock;

int ks_store_init(void)
{
    const char *t = getenv("TMPDIR");
    if (!t || !*t || strlen(t) > 3000) t = "/tmp";
    snprintf(ks_dir, sizeof ks_dir, "%s/kray-studio-XXXXXX", t);
    if (!mkdtemp(ks_dir)) {
        ks_dir[0] = '\0';
        return -1;
    }
    return 0;
}

const char *ks_store_dir(void) { return ks_dir; }

const char *ks_store_path(const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", ks_dir, name);
    return buf;
}

static int ks_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void ks_rm_tree(const char *dir) { nftw(dir, ks_rm_one, 16, FTW_DEPTH | FTW_PHYS); }

static void ks_item_free(ks_item *it)
{
    kr_array_destroy(it->arr);
    pthread_mutex_destroy(&it->lock);
    free(it);
}

void ks_store_cleanup(void)
{
    pthread_mutex_lock(&ks_lock);
    while (ks_items) {
        ks_item *it = ks_items;
        ks_items = it->next;
        if (it->refs == 0)
            ks_item_free(it);
        else
            it->dropped = 1;
    }
    ks_cached = 0;
    pthread_mutex_unlock(&ks_lock);
    if (ks_dir[0]) ks_rm_tree(ks_dir);
}

/* The formats kray reads, by the end of a file name (longest first). */
static const char *const ks_read_exts[] = {".nii.gz", ".nii",  ".npy",  ".cfl", ".hdr",
                                           ".mha",    ".nrrd", ".pgm",  ".dcm", ".h5",
                                           ".mrd",    ".seq",  ".json", NULL};

int ks_store_upload_name(const char *client_name, char *buf, size_t len, ks_err *e)
{
    size_t n = client_name ? strlen(client_name) : 0;
    for (int i = 0; ks_read_exts[i]; i++) {
        size_t k = strlen(ks_read_exts[i]);
        if (n > k && !strcasecmp(client_name + n - k, ks_read_exts[i])) {
            pthread_mutex_lock(&ks_lock);
            int u = ks_next_upload++;
            pthread_mutex_unlock(&ks_lock);
            snprintf(buf, len, "u%d%s", u, ks_read_exts[i]);
            for (char *c = buf; *c; c++)
                if (*c >= 'A' && *c <= 'Z') *c = (char)(*c - 'A' + 'a');
            return 0;
        }
    }
    ks_errf(e, "kray reads .nii, .nii.gz, .npy, .cfl/.hdr, .mha, .nrrd, .pgm, .dcm, ISMRMRD "
               "(.h5, .mrd), Pulseq (.seq) and geometry (.json) files; the name of this upload "
               "has none of these extensions");
    return -1;
}

int ks_item_add(int job, const char *path, const char *name, const char *role)
{
    ks_item *it = calloc(1, sizeof *it);
    if (!it) return 0;
    pthread_mutex_init(&it->lock, NULL);
    it->job = job;
    snprintf(it->path, sizeof it->path, "%s", path);
    snprintf(it->name, sizeof it->name, "%s", name ? name : "");
    snprintf(it->role, sizeof it->role, "%s", role ? role : "");
    pthread_mutex_lock(&ks_lock);
    it->id = ks_next_id++;
    it->next = ks_items;
    ks_items = it;
    pthread_mutex_unlock(&ks_lock);
    return it->id;
}

ks_item *ks_item_get(int id)
{
    pthread_mutex_lock(&ks_lock);
    ks_item *it = ks_items;
    while (it && it->id != id) it = it->next;
    if (it) it->refs++;
    pthread_mutex_unlock(&ks_lock);
    return it;
}

void ks_item_put(ks_item *it)
{
    if (!it) return;
    pthread_mutex_lock(&ks_lock);
    int last = --it->refs == 0 && it->dropped;
    if (last && it->arr) ks_cached -= kr_array_bytes(it->arr);
    pthread_mutex_unlock(&ks_lock);
    if (last) ks_item_free(it);
}

int ks_item_id(const ks_item *it) { return it->id; }
const char *ks_item_path(const ks_item *it) { return it->path; }
const char *ks_item_name(const ks_item *it) { return it->name; }
const char *ks_item_role(const ks_item *it) { return it->role; }

/* Drop cached arrays of items nobody reads, oldest first, until `need` more bytes fit. Called
 * with ks_lock held. */
static void ks_evict(size_t need)
{
    while (ks_cached + need > KS_CACHE_BYTES) {
        ks_item *old = NULL;
        for (ks_item *it = ks_items; it; it = it->next)
            if (it->arr && it->users == 0 && (!old || it->used < old->used)) old = it;
        if (!old) return;
        if (pthread_mutex_trylock(&old->lock) != 0) return;
        ks_cached -= kr_array_bytes(old->arr);
        kr_array_destroy(old->arr);
        old->arr = NULL;
        pthread_mutex_unlock(&old->lock);
    }
}

/* Read an item's file as kray's tools do: images keep their axes (BART's .cfl images are
 * swapped to [x, y]); ISMRMRD files give their k-space [x, y, coil]. */
static kr_status ks_read_file(const char *path, kr_array **a)
{
    const size_t n = strlen(path);
    if (kc_mri_is_ismrmrd(path)) {
        kr_ismrmrd_read_opts o;
        kr_ismrmrd_read_opts_default(&o);
        kr_ismrmrd_data d;
        memset(&d, 0, sizeof d);
        kr_status s = kr_ismrmrd_read(path, &o, &d);
        if (s == KR_OK) {
            *a = d.kspace;
            d.kspace = NULL;
        }
        kr_ismrmrd_data_destroy(&d);
        return s;
    }
    if (n > 4 && !strcmp(path + n - 4, ".hdr")) { /* the .cfl of the pair */
        char cfl[4096];
        snprintf(cfl, sizeof cfl, "%.*s.cfl", (int)(n - 4), path);
        return kc_read(cfl, a, NULL, kc_image_io());
    }
    return kc_read(path, a, NULL, kc_image_io());
}

kr_status ks_item_array(ks_item *it, const kr_array **a)
{
    *a = NULL;
    pthread_mutex_lock(&it->lock);
    pthread_mutex_lock(&ks_lock);
    it->users++;
    it->used = ++ks_clock;
    pthread_mutex_unlock(&ks_lock);
    kr_status s = KR_OK;
    if (!it->arr) {
        kr_array *r = NULL;
        s = ks_read_file(it->path, &r);
        if (s == KR_OK) {
            pthread_mutex_lock(&ks_lock);
            ks_evict(kr_array_bytes(r));
            ks_cached += kr_array_bytes(r);
            it->arr = r;
            pthread_mutex_unlock(&ks_lock);
        }
    }
    if (s != KR_OK) {
        pthread_mutex_lock(&ks_lock);
        it->users--;
        pthread_mutex_unlock(&ks_lock);
        pthread_mutex_unlock(&it->lock);
        return s;
    }
    *a = it->arr;
    /* the item's lock stays held by this reader: the array cannot be evicted under it */
    return KR_OK;
}

void ks_item_array_done(ks_item *it)
{
    pthread_mutex_lock(&ks_lock);
    it->users--;
    pthread_mutex_unlock(&ks_lock);
    pthread_mutex_unlock(&it->lock);
}

/* Remove the items of job `job` (id 0) or the one item `id`. */
static void ks_items_drop(int job, int id)
{
    pthread_mutex_lock(&ks_lock);
    ks_item **pp = &ks_items;
    while (*pp) {
        ks_item *it = *pp;
        if (id ? it->id == id : it->job == job) {
            *pp = it->next;
            if (it->refs == 0) {
                if (it->arr) ks_cached -= kr_array_bytes(it->arr);
                ks_item_free(it);
            } else {
                it->dropped = 1;
            }
        } else {
            pp = &it->next;
        }
    }
    pthread_mutex_unlock(&ks_lock);
}

void ks_items_drop_job(int job) { ks_items_drop(job, 0); }

void ks_item_drop(int id)
{
    char path[4096] = "";
    ks_item *it = ks_item_get(id);
    if (it) snprintf(path, sizeof path, "%s", it->path);
    ks_item_put(it);
    ks_items_drop(0, id);
    if (path[0]) remove(path);
}

void ks_items_json(kc_jo *j)
{
    kc_jo_array(j, "items");
    pthread_mutex_lock(&ks_lock);
    for (ks_item *it = ks_items; it; it = it->next) {
        kc_jo_object(j, NULL);
        kc_jo_int(j, "id", it->id);
        kc_jo_int(j, "job", it->job);
        kc_jo_str(j, "name", it->name);
        kc_jo_str(j, "role", it->role);
        kc_jo_end_object(j);
    }
    pthread_mutex_unlock(&ks_lock);
    kc_jo_end_array(j);
}

void ks_item_describe(ks_item *it, kc_jo *j)
{
    kc_jo_int(j, "id", it->id);
    kc_jo_str(j, "name", it->name);
    kc_jo_str(j, "role", it->role);
    const kr_array *a = NULL;
    if (ks_item_array(it, &a) != KR_OK) return;
    kc_jo_ints(j, "dims", a->ndim, a->dims);
    kc_jo_str(j, "dtype", kr_dtype_name(a->dtype));
    kc_stats st;
    kc_array_stats(a, &st);
    kc_jo_num(j, "min", st.min);
    kc_jo_num(j, "max", st.max);
    kc_jo_num(j, "mean", st.mean);
    kc_jo_num(j, "std", st.std);
    kc_jo_int(j, "nonfinite", st.nnan + st.ninf);
    ks_item_array_done(it);
}
