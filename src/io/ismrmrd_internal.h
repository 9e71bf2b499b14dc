/* Private interface of the ISMRMRD files: src/io/ismrmrd.c (the acquisitions, the library
 * lock), ismrmrd_h5.c (kray's bounded HDF5 access, used for all reading), ismrmrd_stored.c
 * (stored images and NDArrays) and ismrmrd_write.c (writing, through libismrmrd). */
#ifndef KRAY_ISMRMRD_INTERNAL_H
#define KRAY_ISMRMRD_INTERNAL_H

#include "internal.h"

/* The one sentence of every entry point in builds without libismrmrd. */
#define KRI_NO_ISMRMRD                                                                             \
    kri_fail(KR_ERR_NOT_SUPPORTED, "kray was built without ISMRMRD; install libismrmrd-dev")

#ifdef KRAY_HAVE_ISMRMRD

#include "ismrmrd_load.h" /* libismrmrd and HDF5, loaded on first use */

#include <stdint.h>

/* Load libismrmrd (KR_ERR_NOT_SUPPORTED with one sentence when it cannot be; then nothing is
 * held), serialise libismrmrd / HDF5 calls (the serial HDF5 build is not thread-safe) and route
 * libismrmrd's error messages to this thread's buffer (cleared on enter). */
kr_status kri_ismrmrd_enter(void);
void kri_ismrmrd_leave(void);
/* First libismrmrd error message since kri_ismrmrd_enter on this thread ("" when none). */
const char *kri_ismrmrd_error(void);

/* ---- bounded HDF5 reading (ismrmrd_h5.c) ----------------------------------------------------
 * libismrmrd's readers hand HDF5 whatever a file claims: a variable-length field's 32-bit
 * length becomes an allocation (HDF5 zeroes seq_len x element bytes before reading), a
 * corrupt global heap collection makes HDF5 1.10 loop for ever, and ismrmrd_read_acquisition
 * ignores failed reads and copies as many bytes as the header's sample counts say. kray
 * therefore reads ISMRMRD files itself: HDF5 opens the file read-only and describes datasets
 * (type, extent, layout, filters, storage); fixed-size fields are read through HDF5 after
 * their size is checked against the storage the file holds; variable-length fields are read
 * by kray from their stored descriptors and the global heap, every length checked against the
 * file before anything is allocated. All calls between kri_ismrmrd_enter and leave. */
#define KRI_H5_MAXRANK 8
#define KRI_H5_STRING_MAX ((uint64_t)16 << 20) /* XML header and other strings */
#define KRI_H5_DEFLATE_RATIO 1100              /* as the other readers' compressed data */

typedef struct kri_h5_obj { /* a global heap object: index, offset in the collection, bytes */
    uint64_t off, size;
    uint32_t idx;
} kri_h5_obj;

typedef struct kri_h5 {
    const char *path;
    hid_t file;
    int fd;
    uint64_t size, base; /* file bytes; HDF5's base address (the user block) */
    int64_t walk_left;   /* bytes of global heap collections that may still be walked */
    uint64_t col_addr;   /* the collection whose objects `obj` lists (0: none) */
    uint64_t col_size;
    kri_h5_obj *obj;
    size_t nobj, capobj;
} kri_h5;

typedef struct kri_h5_dset {
    hid_t id, type; /* type: the dataset's datatype (H5Dget_type) */
    const char *name;
    int rank; /* 0 for a scalar (one element, dims[0] = 1) */
    hsize_t dims[KRI_H5_MAXRANK];
    uint64_t elem;  /* bytes of one stored element */
    uint64_t count; /* elements */
    H5D_layout_t layout;
    hsize_t chunk[KRI_H5_MAXRANK];
    int filtered;
    uint64_t storage; /* bytes stored (H5Dget_storage_size) */
    uint64_t offset;  /* contiguous: absolute offset of the data in the file */
    uint8_t *raw;     /* kri_h5_raw's block: rows [raw_first, raw_first + raw_rows) */
    hsize_t raw_first, raw_rows;
} kri_h5_dset;

/* A variable-length field as stored: element count and global heap object. */
typedef struct kri_h5_vlen {
    uint64_t addr;
    uint32_t len, idx;
} kri_h5_vlen;

/* Open `path` read-only (a regular file; KR_ERR_IO otherwise, KR_ERR_FORMAT when it is not
 * HDF5 or uses other than 8-byte addresses and lengths). kri_h5_close always. */
kr_status kri_h5_open(kri_h5 *h, const char *path);
void kri_h5_close(kri_h5 *h);
/* 1 when every component of `name` ("a/b/c") is a hard link that exists, 0 when one is
 * missing; KR_ERR_FORMAT through *st for soft, external or user-defined links. */
int kri_h5_exists(kri_h5 *h, const char *name, kr_status *st);
/* Open dataset `name` (the sentence calls it `name`) and check what it claims against the
 * file: at most KRI_H5_MAXRANK dims; contiguous, chunked or compact storage in this file; no
 * filter but deflate, shuffle and fletcher32; every element stored (unfiltered: the claimed
 * bytes within the stored bytes; filtered: within KRI_H5_DEFLATE_RATIO times them); a chunk no
 * larger than what is stored. kri_h5_dset_close always. */
kr_status kri_h5_dset_open(kri_h5 *h, const char *name, kri_h5_dset *d);
void kri_h5_dset_close(kri_h5_dset *d);
/* The stored bytes of row `row` (an element of a rank-1 dataset, or the first of a scalar)
 * of an unfiltered contiguous or chunked dataset whose elements are `elem` bytes on disk. */
kr_status kri_h5_raw(kri_h5 *h, kri_h5_dset *d, uint64_t elem, hsize_t row, const uint8_t **p);
/* Decode a stored variable-length descriptor (4-byte count, 8-byte address, 4-byte index). */
kri_h5_vlen kri_h5_vlen_at(const uint8_t *p);
/* Read the global heap object of v (exactly `bytes` bytes, else KR_ERR_FORMAT naming `what`)
 * into dst. */
kr_status kri_h5_heap_read(kri_h5 *h, kri_h5_vlen v, uint64_t bytes, void *dst,
                           const char *what);
/* The string of dataset `name` (one element, fixed or variable length, at most
 * KRI_H5_STRING_MAX bytes) into a new NUL-terminated buffer (free()). */
kr_status kri_h5_read_string(kri_h5 *h, const char *name, char **out);
/* Read elements [first, first + n) along the first axis of d (rank >= 1; all of the other
 * axes) as memory type `mtype` into buf. */
kr_status kri_h5_read_rows(kri_h5 *h, kri_h5_dset *d, hsize_t first, hsize_t n, hid_t mtype,
                           void *buf);
/* HDF5's innermost error description since the last call of kri_ismrmrd_enter, as ": text",
 * or "" (for the end of a sentence). */
const char *kri_h5_why(void);
#endif

#endif
