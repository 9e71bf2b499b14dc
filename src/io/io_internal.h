/* Internal contract between the I/O dispatcher (io.c) and the format files. */
#ifndef KRAY_IO_INTERNAL_H
#define KRAY_IO_INTERNAL_H

#include "internal.h"
#include "kray/io.h"

#include <stdio.h>

/* ---- safe writing: everything goes to "<path>.tmp.<pid>", renamed over <path> on commit ---- */
typedef struct kri_wfile {
    FILE *f;
    char path[4096];
    char tmp[4200];
    kr_status status; /* first error seen by kri_wfile_write */
} kri_wfile;

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

/* ---- reading ------------------------------------------------------------------------------ */
/* Whole file into a new buffer (NUL-terminated one past *len for header parsing). Files larger
 * than `limit` bytes fail with KR_ERR_FORMAT (0 = no limit). */
kr_status kri_read_file(const char *path, unsigned char **buf, size_t *len, size_t limit);
/* The first min(file size, max) bytes of a file into a new NUL-terminated buffer (headers of
 * formats whose data follows the text). */
kr_status kri_read_head(const char *path, size_t max, char **buf, size_t *len, const char *what);
/* Size of a file in bytes, or KR_ERR_IO naming it. */
kr_status kri_file_size(const char *path, size_t *size);
/* Byte-swap n elements of `size` bytes in place. */
void kri_byteswap(void *p, size_t n, size_t size);
/* True on a little-endian host. */
int kri_host_little_endian(void);

/* Convert `a` to `dtype` if it differs (returns a borrowed pointer to `a` itself when not);
 * the caller destroys *tmp (which may be NULL). */
kr_status kri_io_as_dtype(const kr_array *a, kr_dtype dtype, const kr_array **use,
                          kr_array **tmp);
/* Check that an array handed to a writer is a valid contiguous host array. */
kr_status kri_io_check_array(const kr_array *a, const char *path);

/* ---- formats: each implemented in its own file --------------------------------------------- */
kr_status kri_read_cfl(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o);
kr_status kri_write_cfl(const char *path, const kr_array *a, const kr_io_opts *o);
kr_status kri_read_npy(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o);
kr_status kri_write_npy(const char *path, const kr_array *a, const kr_io_opts *o);
/* Whether path ends in .nii.gz (any case): gzip-compressed NIfTI. */
int kri_nifti_gz(const char *path);
kr_status kri_read_nifti(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o);
kr_status kri_write_nifti(const char *path, const kr_array *a, const kr_io_opts *o);
kr_status kri_read_mha(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o);
kr_status kri_write_mha(const char *path, const kr_array *a, const kr_io_opts *o);
kr_status kri_read_nrrd(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o);
kr_status kri_write_nrrd(const char *path, const kr_array *a, const kr_io_opts *o);
kr_status kri_write_png(const char *path, const kr_array *a, const kr_io_opts *o);
kr_status kri_read_pgm(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o);
kr_status kri_write_pgm(const char *path, const kr_array *a, const kr_io_opts *o);
kr_status kri_read_raw(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o);
kr_status kri_write_raw(const char *path, const kr_array *a, const kr_io_opts *o);

/* Shared by PNG and PGM: pick a 2-D image out of `a` (slice o->slice of a volume, part
 * o->complex_part of complex data) and map it to 8/16-bit with the window (default min..max).
 * Output: new buffer of nx*ny samples (uint8 or uint16 host order), row 0 = y index 0. */
kr_status kri_render_gray(const kr_array *a, const kr_io_opts *o, int bits, void **pixels,
                          int64_t *nx, int64_t *ny);

#endif
