/* Shared by the libFuzzer harnesses in fuzz/ (one per reader or parser).
 *
 * The readers take paths, so each input is written to a file in a private folder on tmpfs
 * (/dev/shm when present), named with the extension the reader dispatches on; writing a few
 * hundred bytes there costs microseconds. Inputs of formats with two files (.cfl/.hdr,
 * .mhd/.raw, detached NRRD) are framed: a 2-byte little-endian length, that many bytes of the
 * header file, then the data file.
 *
 * Seeds: every harness defines fz_seeds(), which writes its seed inputs with kray's own
 * writers. Run a harness with KRAY_FUZZ_SEEDS=<folder> and it writes them there and exits
 * (scripts/fuzz does this before the first run). */
#ifndef KRAY_FUZZ_COMMON_H
#define KRAY_FUZZ_COMMON_H

#include "kray/kray.h"

#include <stddef.h>
#include <stdint.h>

/* A path "<private folder>/<name>" (valid until the next call with the same name). */
const char *fz_path(const char *name);
/* Write n bytes to fz_path(name) and return that path. */
const char *fz_file(const char *name, const void *p, size_t n);
/* Split a framed input into its two files; returns 0 when the input is too short. */
int fz_split(const uint8_t *d, size_t n, const uint8_t **a, size_t *na, const uint8_t **b,
             size_t *nb);
/* The bytes of a file (caller frees), or NULL. */
uint8_t *fz_slurp(const char *path, size_t *n);

/* kr_read of path (opts may be NULL); a result is read through to its last byte, so that a
 * buffer shorter than its dims says is caught by AddressSanitizer. */
void fz_read(const char *path, const kr_io_opts *opts);
/* The harness of a reader with one-file and header + data forms: first byte even, the rest is
 * the file `one`; odd, the rest is framed (fz_split): the header `hdr` and the data file
 * "in.raw" it names. */
void fz_read_one_or_pair(const uint8_t *d, size_t n, const char *one, const char *hdr);
/* Seeds of the one-file array readers: every fz_array written to `name` with kray's writer. */
void fz_seed_arrays(const char *name, const kr_io_opts *opts);

/* ---- seeds --------------------------------------------------------------------------------- */
/* Implemented by each harness: write its seeds with fz_seed / fz_seed_file. */
void fz_seeds(void);
/* Write one seed input (n bytes) into the seed folder. */
void fz_seed(const void *p, size_t n);
/* The whole file at path as one seed; with `frame_with` the framed pair (path_hdr, path). */
void fz_seed_file(const char *path);
void fz_seed_pair(const char *header, const char *data);
/* One seed: the mode byte m, then n bytes. */
void fz_seed_mode(uint8_t m, const void *b, size_t n);
/* Small test arrays: kind 0..FZ_NARRAYS-1 (dtypes f32, f64, c64, c128, u8, u16, i16; 1-D to
 * 4-D; a few with NaN, Inf, negative values). Caller destroys. */
#define FZ_NARRAYS 9
kr_array *fz_array(int kind);

#endif
