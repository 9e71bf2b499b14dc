/* Text headers of "key = value" (MetaImage) or "field: value" (NRRD) lines, shared by the two
 * readers: reading the header text, walking its lines in place, cutting a line into key and
 * value, and the data-file and whole-number fields with one set of sentences. */
#ifndef KRAY_IO_KV_HEADER_H
#define KRAY_IO_KV_HEADER_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>

typedef struct kri_kv_lines {
    char *text;
    size_t len;
    size_t pos; /* offset just past the last line returned */
    int lineno; /* 1-based number of the last line returned (or refused) */
} kri_kv_lines;

/* The first `max` bytes of the header file `path` (kri_read_head; `what` names them in memory
 * sentences) handed to parse(path, text, len, hdr); the text is freed afterwards. */
typedef kr_status (*kri_kv_parse_fn)(const char *path, char *text, size_t len, void *hdr);
kr_status kri_kv_read(const char *path, size_t max, const char *what, kri_kv_parse_fn parse,
                      void *hdr);

void kri_kv_begin(kri_kv_lines *r, char *text, size_t len);
/* Next line, cut out of the text in place (NUL-terminated; the last line may lack '\n') and
 * trimmed of spaces and tabs (and a trailing '\r'): 1 with *line, 0 at the end of the text, -1
 * when the line holds a NUL byte (binary data; r->lineno is its number). */
int kri_kv_next(kri_kv_lines *r, char **line);
/* Cut a trimmed line at its first sep[0], which the rest of `sep` must follow ("=" or ": ");
 * *key and *value are trimmed. 0 (line untouched) when the line has no such separator. */
int kri_kv_split(char *line, const char *sep, char **key, char **value);
/* The data-file field `field` ("ElementDataFile", "data file") of a header: v into out (len
 * bytes). Empty or too long: KR_ERR_FORMAT. `multi` (v names a list or pattern of files):
 * KR_ERR_NOT_SUPPORTED, naming `single` as what kray reads besides one data file. */
kr_status kri_kv_datafile(const char *path, const char *field, const char *v, int multi,
                          const char *single, char *out, size_t len);
/* `v` as one whole number in [lo, hi] (hi == INT64_MAX: no upper bound). KR_ERR_FORMAT naming
 * path and `name` ("NDims", "field 'dimension'") otherwise. */
kr_status kri_kv_int(const char *path, const char *name, const char *v, int64_t lo, int64_t hi,
                     int64_t *out);

#endif
