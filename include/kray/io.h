/* kray file I/O. The format is chosen by the file name's extension:
 *   .cfl/.hdr  BART (complex float; the name may be given with or without extension)
 *   .npy       NumPy v1/v2/v3 headers, little-endian, C or Fortran order
 *   .nii       NIfTI-1 single file
 *   .mha/.mhd  MetaImage (mhd: header + separate raw file)
 *   .nrrd      NRRD, raw encoding (gzip when built with zlib)
 *   .png       write only: 8/16-bit grey with window/level; volumes write one slice
 *   .pgm       read/write, P5 (binary) 8/16-bit and P2 (ASCII) read
 *   .raw       raw samples; dims and dtype must be given in kr_io_opts
 *   .dcm       DICOM CT image (one slice; volumes via kr_write_dicom); needs DCMTK
 * Arrays read are host arrays in kray's fastest-first order. Writers never leave a half-written
 * file: they write "<name>.tmp.<pid>" and rename it over the target only when complete; the
 * first write installs a handler for SIGINT, SIGTERM, SIGHUP and SIGXFSZ (only for those still
 * at their default action) that removes the temporary files before the signal takes its
 * default course. Readers accept regular files only, and allocate nothing larger than the file
 * can hold (compressed data: its largest expansion); docs/formats.md lists the limits.
 * Malformed input fails with KR_ERR_FORMAT and a sentence naming the file and the problem;
 * an OS error with KR_ERR_IO.
 */
#ifndef KRAY_IO_H
#define KRAY_IO_H

#include "kray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kr_format {
    KR_FMT_UNKNOWN = 0,
    KR_FMT_CFL,
    KR_FMT_NPY,
    KR_FMT_NIFTI,
    KR_FMT_MHA, /* .mha (one file) and .mhd (+ .raw) */
    KR_FMT_NRRD,
    KR_FMT_PNG,
    KR_FMT_PGM,
    KR_FMT_RAW,
    KR_FMT_DICOM /* .dcm: CT Image Storage, needs DCMTK at build time */
} kr_format;

/* Physical metadata carried by formats that have it (NIfTI, MetaImage, NRRD); zero = unknown. */
typedef struct kr_meta {
    double spacing[3]; /* mm per sample along x, y, z */
    double origin[3];  /* mm, position of the first sample */
    char description[128];
} kr_meta;

/* How the first two axes of an array meet a file. Only BART's .cfl tells them apart: BART keeps
 * an image as (row, column), axis 0 drawn down the page by `bart toimg`, while kray's images are
 * [x, y] with x across and y down, as NumPy (shape (ny, nx)), PNG, NIfTI and MetaImage store
 * them. See docs/conventions.md. */
typedef enum kr_io_axes {
    KR_IO_AXES_STORED = 0, /* dims in the file's own order (k-space samples, sinograms, tables) */
    KR_IO_AXES_IMAGE       /* an image [x, y, ...]: .cfl swaps the first two axes on reading and
                              writing ([x, y, ...] <-> BART's [y, x, ...]); a 1-D [n] is [1, n] */
} kr_io_axes;

typedef struct kr_io_opts {
    /* raw input: element type, dims, and byte order (0 little, 1 big) */
    kr_dtype raw_dtype;
    int raw_ndim;
    int64_t raw_dims[KR_MAX_DIMS];
    int raw_big_endian;
    int64_t raw_offset; /* bytes to skip at the start of a raw file */
    /* PNG/PGM output */
    int bits;               /* 8 or 16 (0 = 8) */
    int window_set;         /* non-zero: use [window_lo, window_hi], else the data's min..max */
    double window_lo, window_hi;
    int slice;              /* index along axis 2 for volumes (-1 = central slice) */
    int complex_part;       /* 0 magnitude, 1 real, 2 imaginary, 3 phase (for PNG/PGM of complex) */
    /* NRRD output */
    int nrrd_gzip;          /* 1 = gzip encoding when zlib is available */
    /* write: element type to store (KR_DTYPE_INVALID = keep the array's; converted if needed) */
    kr_dtype write_dtype;
    const kr_meta *meta;    /* optional metadata to write */
    kr_io_axes axes;        /* read and write: KR_IO_AXES_STORED (default) or _IMAGE */
} kr_io_opts;

void kr_io_opts_default(kr_io_opts *o);

kr_format kr_format_from_path(const char *path);
const char *kr_format_name(kr_format f);

/* Read a file into a new host array. opts may be NULL (except for raw). meta may be NULL. */
kr_status kr_read(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *opts);
/* Write a host array. opts may be NULL. */
kr_status kr_write(const char *path, const kr_array *a, const kr_io_opts *opts);
/* Read part of a file: along dim `axis` (kray order, fastest first) only the indices [start,
 * start + count), all indices of the other dims (the part of an array that one process of a
 * divided run needs, docs/scaling.md). The new array has the file's dims with dim `axis` =
 * count. .npy, .raw and .cfl (axes as stored) keep their samples in one uncompressed block:
 * only the part's bytes are read. Other formats (and .cfl with KR_IO_AXES_IMAGE) are read whole
 * and cut: the same result, not the same reading. Indices outside the dim: KR_ERR_DIM. */
kr_status kr_read_part(const char *path, int axis, int64_t start, int64_t count, kr_array **out,
                       kr_meta *meta, const kr_io_opts *opts);
/* The dims (KR_MAX_DIMS room) and element type kr_read would give, from the header alone for
 * the formats kr_read_part reads in place (the others are read whole). dtype may be NULL. */
kr_status kr_read_shape(const char *path, int *ndim, int64_t *dims, kr_dtype *dtype,
                        const kr_io_opts *opts);

#ifdef __cplusplus
}
#endif
#endif
