/* Helpers shared by the format readers/writers (NIfTI, MetaImage, NRRD; the sample writer also
 * by .npy and raw): stored sample types with an explicit byte order, lossless widening into kray
 * dtypes, zlib/gzip streams, header numbers. */
#ifndef KRAY_IO_FMTCOMMON_H
#define KRAY_IO_FMTCOMMON_H

#include "io_internal.h"

#include <stdio.h>

/* What the bytes in a file are (one component; complex data has two per element). */
typedef enum kri_stype {
    KRI_ST_NONE = 0,
    KRI_ST_U8,
    KRI_ST_I8,
    KRI_ST_I16,
    KRI_ST_U16,
    KRI_ST_I32,
    KRI_ST_U32,
    KRI_ST_F32,
    KRI_ST_F64
} kri_stype;

size_t kri_stype_size(kri_stype t);
const char *kri_stype_name(kri_stype t);
/* The kray dtype that holds the stored type without loss: u8, i8 -> i16, i16, u16,
 * i32/u32 -> f64, f32, f64; with `complex` (two components per element) f32 -> c64,
 * f64 -> c128 and KR_DTYPE_INVALID for the others. */
kr_dtype kri_stype_dtype(kri_stype t, int complex);
/* The stored component type of a kray dtype (c64 -> f32, c128 -> f64). */
kri_stype kri_stype_of(kr_dtype t);

/* Fill `a` (dtype kri_stype_dtype(t, complex)) from `f` at its current position; `big` is the
 * file's byte order. Fewer bytes than needed: KR_ERR_FORMAT naming `path`. */
kr_status kri_samples_from_file(FILE *f, const char *path, kri_stype t, int big, kr_array *a);
/* Same from any byte source: rd(user, p, n) reads up to n bytes to p and returns the count,
 * fewer only at the end of the data, or -1 after setting the error sentence. */
typedef long long (*kri_read_fn)(void *user, void *p, size_t n);
kr_status kri_samples_read(kri_read_fn rd, void *user, const char *path, kri_stype t, int big,
                           kr_array *a);
/* Same from memory holding at least numel(a) * components * size(t) bytes. */
void kri_samples_from_mem(const unsigned char *src, kri_stype t, int big, kr_array *a);
/* Append a's elements in its own dtype, in byte order `big`. */
kr_status kri_samples_write(kri_wfile *w, const kr_array *a, int big);
/* Same, gzip-compressed (one gzip member). */
kr_status kri_samples_write_gzip(kri_wfile *w, const kr_array *a, int big);
/* nhead bytes of head (may be 0), then a's elements as above, as one gzip member. */
kr_status kri_gzip_write(kri_wfile *w, const void *head, size_t nhead, const kr_array *a, int big);
/* Inflate a zlib or gzip stream (detected from its first bytes) of n bytes into exactly
 * `want` bytes at dst; a stream that is corrupt, ends early or holds more is KR_ERR_FORMAT
 * naming `path` and `what`. */
kr_status kri_inflate_exact(const char *path, const char *what, const unsigned char *src, size_t n,
                            void *dst, size_t want);

/* Whether `csize` bytes of a deflate stream cannot hold `bytes` (its largest expansion is about
 * 1032:1; room is left for the zlib or gzip wrapper). */
int kri_inflate_cannot_hold(size_t csize, size_t bytes);
/* The most bytes that csize bytes of such a stream can hold (the bound above). */
size_t kri_inflate_max(size_t csize);
/* The next `csize` bytes of `f`, a zlib or gzip stream of exactly `bytes` bytes of samples
 * (type t, byte order `big`), decoded into `a`. `path` names the header and `dpath` the data
 * file in the sentences, `fmt` the format ("NRRD") in out-of-memory ones and `what` the stream
 * ("gzip data") in those of kri_inflate_exact. */
kr_status kri_samples_from_zfile(FILE *f, const char *path, const char *dpath, size_t csize,
                                 size_t bytes, const char *fmt, const char *what, kri_stype t,
                                 int big, kr_array *a);

/* Whitespace-separated numbers (other separators given in `seps` are skipped too). Returns the
 * count read, -1 on a malformed token, -2 when there are more than `max`. Non-finite values
 * ("nan", "inf") are returned as such for the caller to judge. */
int kri_parse_i64s(const char *s, const char *seps, int64_t *v, int max);
int kri_parse_f64s(const char *s, const char *seps, double *v, int max);
/* `name` relative to the folder of `header` (or itself when absolute) into out. */
kr_status kri_sibling_path(const char *header, const char *name, char *out, size_t len);
/* The data file of the header file `path` and its size: `name` beside it (a failure names path,
 * `field` and name) or, name NULL, the header file itself. */
kr_status kri_data_file(const char *path, const char *field, const char *name, char *dpath,
                        size_t len, size_t *size);
/* The data file dpath opened for reading at byte `start` (KR_ERR_IO naming path and dpath). */
kr_status kri_data_open(const char *path, const char *dpath, size_t start, FILE **f);
/* The kr_meta a writer stores: o->meta, or zeros; spacing must be finite and >= 0 and origin
 * finite (KR_ERR_INVALID_ARG naming path and the value otherwise). */
kr_status kri_write_meta(const char *path, const kr_io_opts *o, kr_meta *m);
/* Product of dims with the KR_MAX_ELEMENTS limit; KR_ERR_FORMAT naming path and field. */
kr_status kri_dims_product(const char *path, const char *field, int n, const int64_t *dims,
                           int64_t *numel);

#endif
