/* kray's bounded HDF5 access for reading ISMRMRD files (see ismrmrd_internal.h for why).
 *
 * HDF5 is used for what it does safely on a damaged file: opening it read-only, following
 * hard links, describing a dataset (type, extent, layout, filters, stored bytes) and reading
 * fixed-size elements whose total was first checked against what the file stores. Two things
 * are never handed to HDF5:
 *   - variable-length data. HDF5 1.10 allocates and zeroes seq_len x element bytes from a
 *     descriptor's 32-bit count before it looks at the heap (H5T__conv_vlen: 2.3 GB from a
 *     12 KB file), copies the heap object whatever its size, and its global heap loader loops
 *     for ever on a collection whose free-space object has size 0 (H5HG__cache_heap_deserialize
 *     does not advance). kray reads the 16-byte descriptors from the stored elements and the
 *     objects from the global heap collections itself, each length checked against the file;
 *   - links and storage outside the file: external and soft links, external raw data files
 *     and virtual datasets are refused (one could name a FIFO or /dev/zero).
 * Everything runs between kri_ismrmrd_enter and kri_ismrmrd_leave (HDF5 is not thread-safe). */
#include "ismrmrd_internal.h"
#include "iofile.h"

#ifdef KRAY_HAVE_ISMRMRD

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- HDF5's reason ------------------------------------------------------------------------- */
static _Thread_local char kri_h5_msg[192];

static herr_t kri_h5_walk(unsigned n, const H5E_error2_t *e, void *user)
{
    (void)user;
    if (n == 0 && e->desc && e->desc[0]) snprintf(kri_h5_msg, sizeof kri_h5_msg, ": %s", e->desc);
    return 0;
}

const char *kri_h5_why(void)
{
    kri_h5_msg[0] = '\0';
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, kri_h5_walk, NULL);
    H5Eclear2(H5E_DEFAULT);
    return kri_h5_msg;
}

static uint64_t kri_le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

/* n bytes at absolute offset off of the file (within it) into dst. */
static kr_status kri_h5_pread(kri_h5 *h, uint64_t off, uint64_t n, void *dst, const char *what)
{
    if (off > h->size || n > h->size - off)
        return kri_fail(KR_ERR_FORMAT,
                        "'%s': %s lies at bytes %llu..%llu, beyond the end of the file (%llu "
                        "bytes)",
                        h->path, what, (unsigned long long)off, (unsigned long long)(off + n),
                        (unsigned long long)h->size);
    uint8_t *d = dst;
    while (n > 0) {
        ssize_t r = pread(h->fd, d, n > (1u << 30) ? (1u << 30) : (size_t)n, (off_t)off);
        if (r <= 0)
            return kri_fail(KR_ERR_IO, "'%s': cannot read %s: %s", h->path, what,
                            r < 0 ? strerror(errno) : "the file is shorter than it was");
        d += r, off += (uint64_t)r, n -= (uint64_t)r;
    }
    return KR_OK;
}

/* ---- the file ------------------------------------------------------------------------------ */
kr_status kri_h5_open(kri_h5 *h, const char *path)
{
    memset(h, 0, sizeof *h);
    h->path = path;
    h->file = H5I_INVALID_HID;
    h->fd = -1;
    size_t size;
    KRI_TRY(kri_file_size(path, &size)); /* a regular file: no FIFO or device to block on */
    h->size = size;
    h->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (h->fd < 0) return kri_fail(KR_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    /* closing the file closes whatever a failed read left open (an HDF5 call on an invalid
     * identifier only fails, so the property lists need no checks of their own) */
    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG);
    h->file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
    kr_status st = KR_OK;
    if (h->file < 0) /* before any other call clears HDF5's error stack */
        st = kri_fail(KR_ERR_FORMAT, "'%s' is not an ISMRMRD file: HDF5 cannot open it%s", path,
                      kri_h5_why());
    H5Pclose(fapl);
    if (st != KR_OK) return st;
    hid_t fcpl = H5Fget_create_plist(h->file);
    size_t sa = 0, sl = 0;
    hsize_t ub = 0;
    if (H5Pget_sizes(fcpl, &sa, &sl) < 0 || H5Pget_userblock(fcpl, &ub) < 0) sa = 0;
    H5Pclose(fcpl);
    if (sa != 8 || sl != 8)
        return kri_fail(KR_ERR_NOT_SUPPORTED,
                        "'%s' uses %zu-byte addresses and %zu-byte lengths; kray reads HDF5 "
                        "files with 8-byte ones (the default of every writer)",
                        path, sa, sl);
    h->base = ub;
    /* every collection once or a few times over in a sound file */
    h->walk_left = (int64_t)(4 * h->size + (1u << 20));
    return KR_OK;
}

void kri_h5_close(kri_h5 *h)
{
    if (h->file >= 0) H5Fclose(h->file);
    close(h->fd); /* -1 when never opened: EBADF, nothing else */
    free(h->obj);
    h->file = H5I_INVALID_HID;
    h->fd = -1;
    h->obj = NULL;
}

int kri_h5_exists(kri_h5 *h, const char *name, kr_status *st)
{
    *st = KR_OK;
    char part[1024];
    size_t n = strlen(name);
    if (n == 0 || n >= sizeof part) return 0;
    for (size_t i = 0; i <= n; i++) {
        if (name[i] != '/' && name[i] != '\0') continue;
        if (i == 0) continue;
        memcpy(part, name, i);
        part[i] = '\0';
        if (H5Lexists(h->file, part, H5P_DEFAULT) <= 0) {
            H5Eclear2(H5E_DEFAULT);
            return 0;
        }
        H5L_info_t li;
        if (H5Lget_info(h->file, part, &li, H5P_DEFAULT) < 0 || li.type != H5L_TYPE_HARD) {
            *st = kri_fail(KR_ERR_FORMAT,
                           "'%s': '%s' is a soft, external or user-defined link; kray follows "
                           "only the file's own (hard) links",
                           h->path, part);
            return 0;
        }
    }
    return 1;
}

/* ---- datasets ------------------------------------------------------------------------------ */
void kri_h5_dset_close(kri_h5_dset *d)
{
    if (d->type >= 0) H5Tclose(d->type);
    if (d->id >= 0) H5Dclose(d->id);
    free(d->raw);
    d->type = d->id = H5I_INVALID_HID;
    d->raw = NULL;
}

/* The name of a filter kray refuses. */
static const char *kri_h5_filter_name(H5Z_filter_t f)
{
    switch (f) {
    case H5Z_FILTER_SZIP: return "szip";
    case H5Z_FILTER_NBIT: return "nbit";
    case H5Z_FILTER_SCALEOFFSET: return "scaleoffset";
    default: return "a plugin";
    }
}

/* Layout, chunking, filters and external storage of d from its creation properties. */
static kr_status kri_h5_dcpl(kri_h5 *h, kri_h5_dset *d)
{
    hid_t p = H5Dget_create_plist(d->id);
    if (p < 0)
        return kri_fail(KR_ERR_FORMAT, "'%s': the properties of dataset '%s' cannot be read%s",
                        h->path, d->name, kri_h5_why());
    kr_status st = KR_OK;
    d->layout = H5Pget_layout(p);
    int nf = d->layout == H5D_CHUNKED ? H5Pget_nfilters(p) : 0;
    if (d->layout != H5D_CONTIGUOUS && d->layout != H5D_CHUNKED && d->layout != H5D_COMPACT)
        st = kri_fail(KR_ERR_NOT_SUPPORTED,
                      "'%s': dataset '%s' is virtual or of an unknown layout; kray reads "
                      "contiguous, chunked and compact datasets",
                      h->path, d->name);
    else if (H5Pget_external_count(p) != 0)
        st = kri_fail(KR_ERR_NOT_SUPPORTED,
                      "'%s': dataset '%s' keeps its data in other files; kray reads data stored "
                      "in the file itself",
                      h->path, d->name);
    else if (nf < 0)
        st = kri_fail(KR_ERR_FORMAT, "'%s': the filters of dataset '%s' cannot be read%s",
                      h->path, d->name, kri_h5_why());
    for (int i = 0; st == KR_OK && i < nf; i++) {
        unsigned flags = 0, cd[8];
        size_t ncd = 8;
        H5Z_filter_t f = H5Pget_filter2(p, (unsigned)i, &flags, &ncd, cd, 0, NULL, NULL);
        if (f != H5Z_FILTER_DEFLATE && f != H5Z_FILTER_SHUFFLE && f != H5Z_FILTER_FLETCHER32)
            st = kri_fail(KR_ERR_NOT_SUPPORTED,
                          "'%s': dataset '%s' is stored through HDF5 filter %d (%s); kray reads "
                          "deflate, shuffle and fletcher32 only",
                          h->path, d->name, (int)f, kri_h5_filter_name(f));
    }
    d->filtered = nf > 0;
    if (st == KR_OK && d->layout == H5D_CHUNKED &&
        H5Pget_chunk(p, KRI_H5_MAXRANK, d->chunk) != d->rank)
        st = kri_fail(KR_ERR_FORMAT, "'%s': the chunks of dataset '%s' do not match its rank",
                      h->path, d->name);
    H5Pclose(p);
    return st;
}

static int kri_h5_span_cmp(const void *a, const void *b)
{
    size_t x = ((const size_t *)a)[0], y = ((const size_t *)b)[0];
    return x < y ? -1 : x > y;
}

/* A datatype HDF5 can convert without leaving its buffers: every compound member (and array
 * element) within its parent's bytes, members without overlap, sizes of at least
 * one byte, integer and float bit fields within their bytes, at most 8 levels deep. HDF5
 * 1.10's conversions trust these numbers (a member past the end of its compound made
 * H5T__conv_struct_opt move bytes outside its buffer). 1 when sound. */
static int kri_h5_type_ok(hid_t t, int depth)
{
    size_t size = H5Tget_size(t);
    if (size == 0 || depth > 8) return 0;
    const size_t bits = 8 * size;
    int ok = 1;
    switch (H5Tget_class(t)) {
    case H5T_INTEGER: {
        size_t prec = H5Tget_precision(t);
        int off = H5Tget_offset(t);
        ok = size <= 16 && prec >= 1 && off >= 0 && prec + (size_t)off <= bits;
        break;
    }
    case H5T_FLOAT: {
        size_t prec = H5Tget_precision(t), spos = 0, epos = 0, esize = 0, mpos = 0, msize = 0;
        int off = H5Tget_offset(t);
        ok = size <= 16 && prec >= 1 && off >= 0 && prec + (size_t)off <= bits &&
             H5Tget_fields(t, &spos, &epos, &esize, &mpos, &msize) >= 0 && spos < bits &&
             esize >= 1 && esize <= 32 && epos + esize <= bits && msize >= 1 && msize <= 128 &&
             mpos + msize <= bits;
        break;
    }
    case H5T_STRING: break;
    case H5T_COMPOUND: {
        int n = H5Tget_nmembers(t);
        size_t (*span)[2] = n >= 1 && n <= 4096 ? malloc((size_t)n * sizeof *span) : NULL;
        ok = span != NULL;
        for (int i = 0; ok && i < n; i++) {
            hid_t m = H5Tget_member_type(t, (unsigned)i);
            size_t off = H5Tget_member_offset(t, (unsigned)i), ms = H5Tget_size(m);
            ok = off <= size && ms <= size - off && kri_h5_type_ok(m, depth + 1);
            span[i][0] = off, span[i][1] = off + ms;
            H5Tclose(m);
        }
        if (ok) qsort(span, (size_t)n, sizeof *span, kri_h5_span_cmp);
        for (int i = 1; ok && i < n; i++) ok = span[i][0] >= span[i - 1][1]; /* no overlap */
        free(span);
        break;
    }
    case H5T_ARRAY: {
        hsize_t dims[H5S_MAX_RANK];
        int nd = H5Tget_array_ndims(t);
        hid_t b = H5Tget_super(t);
        size_t n = 1;
        ok = nd >= 1 && nd <= H5S_MAX_RANK && H5Tget_array_dims2(t, dims) == nd &&
             kri_h5_type_ok(b, depth + 1);
        for (int i = 0; ok && i < nd; i++) ok = dims[i] >= 1 && n <= size / dims[i], n *= dims[i];
        ok = ok && n * H5Tget_size(b) == size;
        H5Tclose(b);
        break;
    }
    case H5T_VLEN:
    case H5T_ENUM: {
        hid_t b = H5Tget_super(t);
        ok = kri_h5_type_ok(b, depth + 1);
        H5Tclose(b);
        break;
    }
    default: ok = 0; /* time, bitfield, opaque, reference: nothing kray reads */
    }
    H5Eclear2(H5E_DEFAULT);
    return ok;
}

kr_status kri_h5_dset_open(kri_h5 *h, const char *name, kri_h5_dset *d)
{
    memset(d, 0, sizeof *d);
    d->id = d->type = H5I_INVALID_HID;
    d->name = name;
    kr_status st;
    if (!kri_h5_exists(h, name, &st))
        return st != KR_OK ? st
                           : kri_fail(KR_ERR_FORMAT, "'%s' has no dataset '%s'", h->path, name);
    d->id = H5Dopen2(h->file, name, H5P_DEFAULT);
    if (d->id < 0)
        return kri_fail(KR_ERR_FORMAT, "'%s': '%s' is not a readable dataset%s", h->path, name,
                        kri_h5_why());
    d->type = H5Dget_type(d->id);
    hid_t sp = H5Dget_space(d->id);
    int rank = H5Sget_simple_extent_ndims(sp);
    if (rank > KRI_H5_MAXRANK) rank = -2;
    if (rank >= 0 && H5Sget_simple_extent_type(sp) == H5S_NULL) rank = -1;
    if (rank > 0) H5Sget_simple_extent_dims(sp, d->dims, NULL);
    H5Sclose(sp);
    size_t tsize = H5Tget_size(d->type);
    if (rank < 0 || tsize == 0)
        return kri_fail(KR_ERR_FORMAT, "'%s': dataset '%s' has %s", h->path, name,
                        rank == -2 ? "more than 8 dimensions" : "no readable type or extent");
    if (!kri_h5_type_ok(d->type, 0))
        return kri_fail(KR_ERR_FORMAT,
                        "'%s': the element type of dataset '%s' is inconsistent (members or bit "
                        "fields outside its %zu bytes, or a class kray does not read)",
                        h->path, name, tsize);
    d->rank = rank;
    if (rank == 0) d->dims[0] = 1;
    d->elem = tsize;
    /* elements, and their bytes in memory as HDF5 will hand them over */
    uint64_t count = 1, bytes;
    for (int i = 0; i < (rank ? rank : 1); i++) {
        if (d->dims[i] && count > UINT64_MAX / 2 / d->dims[i])
            return kri_fail(KR_ERR_FORMAT, "'%s': dataset '%s' claims too many elements",
                            h->path, name);
        count *= d->dims[i];
    }
    if (count > (UINT64_MAX >> 2) / tsize)
        return kri_fail(KR_ERR_FORMAT, "'%s': dataset '%s' claims too many elements", h->path,
                        name);
    d->count = count;
    bytes = count * tsize;
    KRI_TRY(kri_h5_dcpl(h, d));
    d->storage = H5Dget_storage_size(d->id);
    const uint64_t ratio = d->filtered ? KRI_H5_DEFLATE_RATIO : 1;
    if (d->storage > h->size)
        return kri_fail(KR_ERR_FORMAT,
                        "'%s': dataset '%s' says it stores %llu bytes, more than the file's %llu",
                        h->path, name, (unsigned long long)d->storage,
                        (unsigned long long)h->size);
    if (bytes > d->storage * ratio)
        return kri_fail(KR_ERR_FORMAT,
                        "'%s': dataset '%s' claims %llu elements (%llu bytes) but stores %llu "
                        "bytes%s",
                        h->path, name, (unsigned long long)count, (unsigned long long)bytes,
                        (unsigned long long)d->storage,
                        d->filtered ? ", more than deflate can expand" : "");
    if (count > 0 && d->layout == H5D_CHUNKED) {
        uint64_t cb = tsize;
        for (int i = 0; i < rank; i++) {
            if (d->chunk[i] == 0 || cb > UINT64_MAX / KRI_H5_DEFLATE_RATIO / d->chunk[i]) {
                cb = UINT64_MAX;
                break;
            }
            cb *= d->chunk[i];
        }
        if (cb == UINT64_MAX || cb > d->storage * ratio)
            return kri_fail(KR_ERR_FORMAT,
                            "'%s': dataset '%s' has chunks larger than the %llu bytes it "
                            "stores%s",
                            h->path, name, (unsigned long long)d->storage,
                            d->filtered ? " can expand to" : "");
    }
    if (count > 0 && d->layout == H5D_CONTIGUOUS) {
        haddr_t off = H5Dget_offset(d->id);
        if (off == HADDR_UNDEF || off > h->size || d->storage > h->size - off)
            return kri_fail(KR_ERR_FORMAT,
                            "'%s': the data of dataset '%s' do not lie within the file",
                            h->path, name);
        d->offset = off;
    }
    return KR_OK;
}

kr_status kri_h5_raw(kri_h5 *h, kri_h5_dset *d, uint64_t elem, hsize_t row, const uint8_t **p)
{
    if (row >= d->raw_first && row < d->raw_first + d->raw_rows) {
        *p = d->raw + (row - d->raw_first) * elem;
        return KR_OK;
    }
    if (d->filtered || d->layout == H5D_COMPACT || d->rank > 1)
        return kri_fail(KR_ERR_NOT_SUPPORTED,
                        "'%s': dataset '%s' holds variable-length data %s; kray reads them from "
                        "unfiltered contiguous or chunked one-dimensional datasets",
                        h->path, d->name,
                        d->filtered                   ? "through filters"
                        : d->layout == H5D_COMPACT ? "in compact storage"
                                                      : "in more than one dimension");
    if (row >= d->dims[0])
        return kri_fail(KR_ERR_FORMAT, "'%s': dataset '%s' has no element %llu", h->path,
                        d->name, (unsigned long long)row);
    /* stored bytes: exactly elem per element (contiguous) or per chunk row (chunked) */
    hsize_t first, rows;
    if (d->layout == H5D_CONTIGUOUS) {
        if (d->storage != d->count * elem)
            return kri_fail(KR_ERR_FORMAT,
                            "'%s': dataset '%s' stores %llu bytes for %llu elements of %llu",
                            h->path, d->name, (unsigned long long)d->storage,
                            (unsigned long long)d->count, (unsigned long long)elem);
        rows = (hsize_t)(65536 / elem + 1);
        first = row;
        if (rows > d->dims[0] - first) rows = d->dims[0] - first;
    } else {
        rows = d->chunk[0];
        first = row / rows * rows;
    }
    free(d->raw);
    d->raw_rows = 0;
    d->raw = malloc(rows * elem);
    if (!d->raw)
        return kri_fail(KR_ERR_OOM_HOST, "'%s': out of host memory reading dataset '%s'",
                        h->path, d->name);
    if (d->layout == H5D_CONTIGUOUS) {
        KRI_TRY(kri_h5_pread(h, d->offset + first * elem, rows * elem, d->raw, d->name));
    } else {
        /* where the index says the chunk is, read by kray: H5Dread_chunk writes what the
         * index or the chunk cache says, which disagree in a damaged file */
        hsize_t off[1] = {first}, nb = 0;
        haddr_t addr = HADDR_UNDEF;
        unsigned fm = 0;
        if (H5Dget_chunk_info_by_coord(d->id, off, &fm, &addr, &nb) < 0 || addr == HADDR_UNDEF ||
            nb != rows * elem || addr > UINT64_MAX - h->base)
            return kri_fail(KR_ERR_FORMAT,
                            "'%s': the chunk of dataset '%s' at element %llu holds %llu bytes; "
                            "%llu expected%s",
                            h->path, d->name, (unsigned long long)first,
                            (unsigned long long)nb, (unsigned long long)(rows * elem),
                            kri_h5_why());
        KRI_TRY(kri_h5_pread(h, h->base + addr, nb, d->raw, d->name));
    }
    d->raw_first = first;
    d->raw_rows = rows;
    *p = d->raw + (row - first) * elem;
    return KR_OK;
}

kri_h5_vlen kri_h5_vlen_at(const uint8_t *p)
{
    kri_h5_vlen v;
    v.len = (uint32_t)kri_le(p, 4);
    v.addr = kri_le(p + 4, 8);
    v.idx = (uint32_t)kri_le(p + 12, 4);
    return v;
}

/* ---- the global heap ------------------------------------------------------------------------
 * A collection: "GCOL", version 1, 3 reserved bytes, its size (8 bytes, header included), then
 * objects: index (2), reference count (2), reserved (4), size (8), the data padded to 8 bytes;
 * index 0 is the free space at the end. */
static int kri_h5_obj_cmp(const void *a, const void *b)
{
    uint32_t x = ((const kri_h5_obj *)a)->idx, y = ((const kri_h5_obj *)b)->idx;
    return x < y ? -1 : x > y;
}

static kr_status kri_h5_collection(kri_h5 *h, uint64_t addr)
{
    h->col_addr = 0;
    h->nobj = 0;
    uint8_t hd[16], win[65536];
    const uint64_t at = h->base + addr;
    if (addr == 0 || at < addr) /* 0 is the superblock, never a collection */
        return kri_fail(KR_ERR_FORMAT, "'%s': a variable-length field points to address %llu",
                        h->path, (unsigned long long)addr);
    KRI_TRY(kri_h5_pread(h, at, 16, hd, "a global heap collection"));
    uint64_t size = kri_le(hd + 8, 8);
    if (memcmp(hd, "GCOL", 4) != 0 || hd[4] != 1 || size < 16 || size > h->size - at)
        return kri_fail(KR_ERR_FORMAT,
                        "'%s': no sound global heap collection at address %llu (signature, "
                        "version or size %llu)",
                        h->path, (unsigned long long)addr, (unsigned long long)size);
    h->walk_left -= (int64_t)size;
    if (h->walk_left < 0)
        return kri_fail(KR_ERR_FORMAT,
                        "'%s': the variable-length fields send kray through more global heap "
                        "than four times the file",
                        h->path);
    /* walk the object headers through a 64 KiB window */
    uint64_t wpos = 0, wlen = 0;
    for (uint64_t p = 16; p + 16 <= size;) {
        if (p < wpos || p + 16 > wpos + wlen) {
            wpos = p;
            wlen = size - p < sizeof win ? size - p : sizeof win;
            KRI_TRY(kri_h5_pread(h, at + wpos, wlen, win, "a global heap collection"));
        }
        const uint8_t *o = win + (p - wpos);
        uint32_t idx = (uint32_t)kri_le(o, 2);
        uint64_t osize = kri_le(o + 8, 8);
        if (idx == 0) break; /* free space: the rest of the collection */
        if (osize > size - p - 16)
            return kri_fail(KR_ERR_FORMAT,
                            "'%s': global heap object %u at address %llu overruns its "
                            "collection",
                            h->path, idx, (unsigned long long)addr);
        if (h->nobj == h->capobj) {
            size_t cap = h->capobj ? 2 * h->capobj : 64;
            kri_h5_obj *n = realloc(h->obj, cap * sizeof *n);
            if (!n)
                return kri_fail(KR_ERR_OOM_HOST, "'%s': out of host memory for the global heap",
                                h->path);
            h->obj = n;
            h->capobj = cap;
        }
        h->obj[h->nobj++] = (kri_h5_obj){p + 16, osize, idx};
        p += 16 + ((osize + 7) & ~(uint64_t)7);
    }
    if (h->nobj) qsort(h->obj, h->nobj, sizeof *h->obj, kri_h5_obj_cmp);
    h->col_addr = addr;
    h->col_size = size;
    return KR_OK;
}

kr_status kri_h5_heap_read(kri_h5 *h, kri_h5_vlen v, uint64_t bytes, void *dst,
                           const char *what)
{
    if (bytes == 0) return KR_OK;
    if (v.addr != h->col_addr) KRI_TRY(kri_h5_collection(h, v.addr));
    size_t lo = 0, hi = h->nobj;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (h->obj[mid].idx < v.idx) lo = mid + 1;
        else hi = mid;
    }
    if (lo == h->nobj || h->obj[lo].idx != v.idx)
        return kri_fail(KR_ERR_FORMAT, "'%s': %s points to global heap object %u at address "
                        "%llu, which does not exist",
                        h->path, what, v.idx, (unsigned long long)v.addr);
    if (h->obj[lo].size != bytes)
        return kri_fail(KR_ERR_FORMAT, "'%s': %s should hold %llu bytes; its global heap object "
                        "holds %llu",
                        h->path, what, (unsigned long long)bytes,
                        (unsigned long long)h->obj[lo].size);
    return kri_h5_pread(h, h->base + v.addr + h->obj[lo].off, bytes, dst, what);
}

/* ---- strings and fixed-size rows ------------------------------------------------------------ */
kr_status kri_h5_read_string(kri_h5 *h, const char *name, char **out)
{
    *out = NULL;
    kri_h5_dset d;
    kr_status st = kri_h5_dset_open(h, name, &d);
    if (st == KR_OK && (H5Tget_class(d.type) != H5T_STRING || d.count != 1))
        st = kri_fail(KR_ERR_FORMAT, "'%s': dataset '%s' is not one string", h->path, name);
    const uint8_t *raw = NULL;
    uint64_t n = 0;
    kri_h5_vlen v = {0, 0, 0};
    if (st == KR_OK && H5Tis_variable_str(d.type) > 0) {
        st = kri_h5_raw(h, &d, 16, 0, &raw);
        if (st == KR_OK) v = kri_h5_vlen_at(raw), n = v.len;
    } else if (st == KR_OK) {
        n = d.elem;
    }
    if (st == KR_OK && n > KRI_H5_STRING_MAX)
        st = kri_fail(KR_ERR_FORMAT, "'%s': the string in '%s' claims %llu bytes; kray reads "
                      "at most %llu",
                      h->path, name, (unsigned long long)n,
                      (unsigned long long)KRI_H5_STRING_MAX);
    char *s = NULL;
    if (st == KR_OK && !(s = calloc(1, (size_t)n + 1)))
        st = kri_fail(KR_ERR_OOM_HOST, "'%s': out of host memory for '%s'", h->path, name);
    if (st == KR_OK && raw) {
        st = kri_h5_heap_read(h, v, n, s, name);
    } else if (st == KR_OK) {
        hid_t mt = H5Tcopy(H5T_C_S1);
        if (H5Tset_size(mt, (size_t)n) < 0 ||
            H5Dread(d.id, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, s) < 0)
            st = kri_fail(KR_ERR_FORMAT, "'%s': the string in '%s' cannot be read%s", h->path,
                          name, kri_h5_why());
        H5Tclose(mt);
    }
    kri_h5_dset_close(&d);
    if (st != KR_OK) {
        free(s);
        return st;
    }
    *out = s;
    return KR_OK;
}

kr_status kri_h5_read_rows(kri_h5 *h, kri_h5_dset *d, hsize_t first, hsize_t n, hid_t mtype,
                           void *buf)
{
    if (n == 0) return KR_OK;
    hsize_t start[KRI_H5_MAXRANK] = {0}, cnt[KRI_H5_MAXRANK];
    for (int i = 0; i < d->rank; i++) cnt[i] = d->dims[i];
    start[0] = first;
    cnt[0] = n;
    kr_status st = KR_OK;
    hid_t fs = H5Dget_space(d->id), ms = H5Screate_simple(d->rank, cnt, NULL);
    if (H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, cnt, NULL) < 0 ||
        H5Dread(d->id, mtype, ms, fs, H5P_DEFAULT, buf) < 0)
        st = kri_fail(KR_ERR_FORMAT, "'%s': dataset '%s' cannot be read%s", h->path, d->name,
                      kri_h5_why());
    H5Sclose(fs);
    H5Sclose(ms);
    return st;
}

#endif /* KRAY_HAVE_ISMRMRD */
