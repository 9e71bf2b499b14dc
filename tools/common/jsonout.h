/* kray command line: the one writer of the tools' --json results.
 *
 * A result is one JSON object on one line of stdout, {"key": value, "list": [1, 2], ...}, built
 * with the library's JSON writer (kri_jw in one-line mode: ", " between items, ": " after keys,
 * strings escaped) and printed by kc_jo_end. Numbers: kc_jo_num writes "%.12g" and null for a
 * value that is not finite; kc_jo_int whole numbers; kc_jo_fmt one double in a printf format of
 * the caller's ("%.6g"). A NULL key adds the value to the array being written.
 *
 *     kc_jo j;
 *     kc_jo_begin(&j);
 *     kc_jo_str(&j, "tool", "fbp");
 *     kc_jo_ints(&j, "size", 2, dims);
 *     kc_jo_num(&j, "seconds", t);
 *     kc_jo_end(&j);
 */
#ifndef KRAY_TOOLS_JSONOUT_H
#define KRAY_TOOLS_JSONOUT_H

#include "json.h"
#include "kray/metrics.h"

#include <stdint.h>

typedef struct kc_jo {
    kri_jw w;
} kc_jo;

void kc_jo_begin(kc_jo *j);
void kc_jo_str(kc_jo *j, const char *key, const char *s); /* NULL writes "" */
void kc_jo_num(kc_jo *j, const char *key, double v);
void kc_jo_int(kc_jo *j, const char *key, long long v);
void kc_jo_bool(kc_jo *j, const char *key, int v);
void kc_jo_fmt(kc_jo *j, const char *key, const char *fmt, double v);
/* "key": [v0, v1, ...] of n whole numbers / of n kc_jo_num numbers. */
void kc_jo_ints(kc_jo *j, const char *key, int n, const int64_t *v);
void kc_jo_nums(kc_jo *j, const char *key, int n, const double *v);
/* The numbers of kray metrics: range, mse, psnr_db, ssim, nrmse, maxerr. */
void kc_jo_metrics(kc_jo *j, const kr_metrics *m);
/* "key": [ or "key": {, closed by kc_jo_end_array / kc_jo_end_object. */
void kc_jo_array(kc_jo *j, const char *key);
void kc_jo_end_array(kc_jo *j);
void kc_jo_object(kc_jo *j, const char *key);
void kc_jo_end_object(kc_jo *j);
/* Close the object and print it with a newline on stdout. 0, or -1 (nothing printed, the reason
 * on stderr) when the writer failed. */
int kc_jo_end(kc_jo *j);
/* Close the object and return its text (with a final newline; free with kri_free), or NULL when
 * the writer failed (the writer is freed either way). */
char *kc_jo_text(kc_jo *j, size_t *len);

#endif
