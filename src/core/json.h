/* Small strict JSON (RFC 8259) reader and writer for kray's own files (geometry, options).
 *
 * Reader: the whole text is parsed into a tree of kri_json values. Strict: no comments, no
 * trailing commas, no NaN/Infinity, no leading zeros or '+', strings must be valid UTF-8 with
 * only the escapes of RFC 8259 (\u0000 is refused since values are C strings), duplicate keys
 * in an object are refused, nesting is limited to KRI_JSON_MAX_DEPTH, and nothing but
 * whitespace may follow the value (a UTF-8 byte-order mark at the start is skipped). Every
 * failure is KR_ERR_FORMAT with a sentence "<what>: line L, column C: <problem>" (line and
 * column count from 1; columns count bytes).
 *
 * Every value records its line and column, so callers can report a field's position, and a
 * `used` flag that the kri_json_take* helpers set, so callers can reject unknown fields with
 * kri_json_check_unused.
 *
 * Writer: kri_jw builds indented (or one-line) text into a growing buffer; numbers are written
 * in the shortest form that reads back to the same double; non-finite numbers are refused.
 *
 * The reader is json_read.c, the writer json_write.c.
 */
#ifndef KRAY_JSON_H
#define KRAY_JSON_H

#include "internal.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KRI_JSON_MAX_DEPTH 64

typedef enum kri_json_type {
    KRI_JSON_NULL = 0,
    KRI_JSON_FALSE,
    KRI_JSON_TRUE,
    KRI_JSON_NUMBER,
    KRI_JSON_STRING,
    KRI_JSON_ARRAY,
    KRI_JSON_OBJECT
} kri_json_type;

typedef struct kri_json kri_json;
struct kri_json {
    kri_json_type type;
    int line, col;       /* where the value starts */
    double num;          /* NUMBER */
    int is_integer;      /* NUMBER written without fraction or exponent */
    char *str;           /* STRING: NUL-terminated UTF-8 */
    size_t n;            /* ARRAY / OBJECT: number of items */
    kri_json **items;    /* ARRAY / OBJECT values */
    char **keys;         /* OBJECT keys (n of them) */
    int used;            /* set by the kri_json_take* helpers */
};

/* Parse `len` bytes of `text`. `what` names the source in messages (a file name). */
kr_status kri_json_parse(const char *text, size_t len, const char *what, kri_json **out);
void kri_json_free(kri_json *v); /* accepts NULL */

/* "null", "false", "true", "number", "string", "array", "object". */
const char *kri_json_type_name(kri_json_type t);

/* Member of an object by key (NULL if absent or `obj` is not an object). Does not mark it. */
kri_json *kri_json_get(const kri_json *obj, const char *key);

/* Typed access to object members for strict schemas. `what` names the file, `path` the object
 * ("image"); messages read "<what>: field 'image.voxel_mm' ...". Each marks the member used.
 *   take:      *out = member or NULL when absent (required != 0: absent is an error)
 *   take_num:  finite number
 *   take_int:  integer number (no fraction) in [lo, hi]
 *   take_str:  string                                                                     */
kr_status kri_json_take(kri_json *obj, const char *key, int required, const char *what,
                        const char *path, kri_json **out);
kr_status kri_json_take_num(kri_json *obj, const char *key, int required, const char *what,
                            const char *path, double *out, int *present);
kr_status kri_json_take_int(kri_json *obj, const char *key, int required, const char *what,
                            const char *path, int64_t lo, int64_t hi, int64_t *out,
                            int *present);
kr_status kri_json_take_str(kri_json *obj, const char *key, int required, const char *what,
                            const char *path, const char **out);
/* Fail naming the first member of `obj` that no helper marked used; `allowed` (may be NULL) is
 * listed in the sentence as the accepted fields. */
kr_status kri_json_check_unused(const kri_json *obj, const char *what, const char *path,
                                const char *allowed);
/* Sentence helper for type errors: "<what>: field 'p.k' at line L, column C must be <want>,
 * got <type>". */
kr_status kri_json_type_error(const kri_json *v, const char *what, const char *path,
                              const char *key, const char *want);

/* ---- writer -------------------------------------------------------------------------------- */
typedef struct kri_jw {
    char *buf;
    size_t len, cap;
    int depth;
    int count[KRI_JSON_MAX_DEPTH + 1];  /* items written at each depth */
    int inline_[KRI_JSON_MAX_DEPTH + 1]; /* container written on one line */
    int after_key;
    kr_status status; /* first error */
} kri_jw;

void kri_jw_init(kri_jw *w);
void kri_jw_free(kri_jw *w);
/* Containers; `one_line` != 0 writes the container's items on one line. */
void kri_jw_begin_object(kri_jw *w, int one_line);
void kri_jw_end_object(kri_jw *w);
void kri_jw_begin_array(kri_jw *w, int one_line);
void kri_jw_end_array(kri_jw *w);
void kri_jw_key(kri_jw *w, const char *key);
void kri_jw_number(kri_jw *w, double v); /* non-finite: status KR_ERR_INVALID_ARG */
void kri_jw_int(kri_jw *w, int64_t v);
void kri_jw_string(kri_jw *w, const char *s);
void kri_jw_bool(kri_jw *w, int v);
void kri_jw_null(kri_jw *w);
/* A value whose text the caller formatted (a number in a fixed printf format), written as is. */
void kri_jw_raw(kri_jw *w, const char *text);
/* Finish (adds a final newline); on success *text (NUL-terminated, free with kri_free) and
 * *len receive the text and the writer no longer owns it. Returns the first error seen. */
kr_status kri_jw_finish(kri_jw *w, char **text, size_t *len);

/* Shortest "%.{15,16,17}g" text that reads back to v ('.' as decimal point whatever the
 * locale). buf must hold 32 bytes. */
void kri_json_format_double(double v, char *buf);
/* Locale-independent strtod of the n bytes of an RFC 8259 number text; *range_err set when it
 * overflows. */
double kri_json_strtod(const char *txt, size_t n, int *range_err);

#ifdef __cplusplus
}
#endif
#endif
