/* Entry points of the format files (one file per format), called by the dispatcher io.c; the
 * format files include this header for their own declarations and, through it, the helpers they
 * share (iofile.h). Nothing here is defined in io.c. */
#ifndef KRAY_IO_INTERNAL_H
#define KRAY_IO_INTERNAL_H

#include "iofile.h"

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

/* ---- where a file keeps its samples (part.c's kr_read_part) ---------------------------------
 * Formats whose samples are stored uncompressed, in kray's order, in one block: the array's
 * dims and dtype as kr_read gives them, the file holding the block, the block's offset, and the
 * unit to byte-swap (0: none). */
typedef struct kri_layout {
    int ndim;
    int64_t dims[KR_MAX_DIMS];
    kr_dtype dtype;
    int swap;
    char data[4200];
    uint64_t offset;
} kri_layout;
kr_status kri_layout_npy(const char *path, kri_layout *L);
kr_status kri_layout_cfl(const char *path, kri_layout *L);                     /* as stored */
kr_status kri_layout_raw(const char *path, const kr_io_opts *o, kri_layout *L);

/* Shared by PNG and PGM: pick a 2-D image out of `a` (slice o->slice of a volume, part
 * o->complex_part of complex data) and map it to 8/16-bit with the window (default min..max).
 * Output: new buffer of nx*ny samples (uint8 or uint16 host order), row 0 = y index 0. */
kr_status kri_render_gray(const kr_array *a, const kr_io_opts *o, int bits, void **pixels,
                          int64_t *nx, int64_t *ny);

#endif
