/* Helpers shared by the format files (iofile.c): safe writing through a temporary file (and the
 * one-file writer skeleton), reading whole files and headers, byte order, dtype conversion, and
 * the check every writer's array passes. */
#ifndef KRAY_IO_IOFILE_H
#define KRAY_IO_IOFILE_H

#include "internal.h"
#include "kray/io.h"

#include <stdio.h>

/* ---- safe writing: everything goes to "<path>.tmp.<pid>", renamed over <path> on commit ---- */
typedef struct kri_wfile {
    FILE *f;
    char path[4096];
    char tmp[4200];
    kr_status status; /* first error seen by kri_wfile_write */
    int slot;         /* kri_tmp_register's slot of tmp (-1: none) */
} kri_wfile;

/* ---- temporary files removed on SIGINT, SIGTERM, SIGHUP and SIGXFSZ (tmpreg.c) ------------ */
/* Register a temporary path (before creating it); returns the slot for kri_tmp_unregister, or
 * -1 when the path is too long or every slot is taken. The first call installs the handler
 * for the signals still at their default action. */
int kri_tmp_register(const char *path);
/* After the file was renamed into place or removed (accepts -1). */
void kri_tmp_unregister(int slot);

kr_status kri_wfile_open(kri_wfile *w, const char *path);
/* Append bytes; errors are remembered and reported by commit. */
kr_status kri_wfile_write(kri_wfile *w, const void *p, size_t n);
kr_status kri_wfile_printf(kri_wfile *w, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Flush, close and rename into place; on any error the temporary file is removed. */
kr_status kri_wfile_commit(kri_wfile *w);
/* Close and remove the temporary file (safe to call after a failed commit). */
void kri_wfile_abort(kri_wfile *w);
/* Commit when s is KR_OK, else abort; returns the final status. */
kr_status kri_wfile_finish(kri_wfile *w, kr_status s);
/* A one-file writer: `a` converted to dtype (kri_io_as_dtype; KR_DTYPE_INVALID keeps a's own),
 * path opened, body(w, converted array, user) writes the file, then commit or abort. */
typedef kr_status (*kri_write_body_fn)(kri_wfile *w, const kr_array *a, void *user);
kr_status kri_write_through(const char *path, const kr_array *a, kr_dtype dtype,
                            kri_write_body_fn body, void *user);

/* ---- reading ------------------------------------------------------------------------------ */
/* Whole file into a new buffer (NUL-terminated one past *len for header parsing). Files larger
 * than `limit` bytes fail with KR_ERR_FORMAT (0 = no limit). */
kr_status kri_read_file(const char *path, unsigned char **buf, size_t *len, size_t limit);
/* The first min(file size, max) bytes of a file into a new NUL-terminated buffer (headers of
 * formats whose data follows the text). */
kr_status kri_read_head(const char *path, size_t max, char **buf, size_t *len, const char *what);
/* kr_array_create of a host array for the data of the file at path; a failure (out of memory)
 * names the file. */
kr_status kri_io_array(kr_array **a, const char *path, kr_dtype t, int ndim, const int64_t *dims);
/* Size of a file in bytes, or KR_ERR_IO naming it. */
kr_status kri_file_size(const char *path, size_t *size);
/* Byte-swap n elements of `size` bytes in place. */
void kri_byteswap(void *p, size_t n, size_t size);
/* The unit a file's byte order applies to: the element, or each part of a complex one. */
size_t kri_swap_unit(kr_dtype t);
/* True on a little-endian host. */
int kri_host_little_endian(void);

/* Convert `a` to `dtype` if it differs (returns a borrowed pointer to `a` itself when not);
 * the caller destroys *tmp (which may be NULL). */
kr_status kri_io_as_dtype(const kr_array *a, kr_dtype dtype, const kr_array **use,
                          kr_array **tmp);
/* Check that an array handed to a writer is a valid contiguous host array: a valid dtype and
 * dims (KR_ERR_DTYPE / KR_ERR_DIM), then kri_check_operand (any dtype, host), naming path. */
kr_status kri_io_check_array(const kr_array *a, const char *path);

#endif
