/* kray command line: one-line JSON results on stdout through the library's writer (jsonout.h). */
#include "jsonout.h"

#include <math.h>
#include <stdio.h>

static void kc_jo_key(kc_jo *j, const char *key)
{
    if (key) kri_jw_key(&j->w, key);
}

void kc_jo_begin(kc_jo *j)
{
    kri_jw_init(&j->w);
    kri_jw_begin_object(&j->w, 1);
}

void kc_jo_str(kc_jo *j, const char *key, const char *s)
{
    kc_jo_key(j, key);
    kri_jw_string(&j->w, s);
}

void kc_jo_fmt(kc_jo *j, const char *key, const char *fmt, double v)
{
    char b[64];
    snprintf(b, sizeof b, fmt, v);
    kc_jo_key(j, key);
    kri_jw_raw(&j->w, b);
}

void kc_jo_num(kc_jo *j, const char *key, double v)
{
    if (isfinite(v)) {
        kc_jo_fmt(j, key, "%.12g", v);
    } else {
        kc_jo_key(j, key);
        kri_jw_null(&j->w);
    }
}

void kc_jo_int(kc_jo *j, const char *key, long long v)
{
    kc_jo_key(j, key);
    kri_jw_int(&j->w, (int64_t)v);
}

void kc_jo_bool(kc_jo *j, const char *key, int v)
{
    kc_jo_key(j, key);
    kri_jw_bool(&j->w, v);
}

void kc_jo_ints(kc_jo *j, const char *key, int n, const int64_t *v)
{
    kc_jo_array(j, key);
    for (int i = 0; i < n; i++) kri_jw_int(&j->w, v[i]);
    kc_jo_end_array(j);
}

void kc_jo_nums(kc_jo *j, const char *key, int n, const double *v)
{
    kc_jo_array(j, key);
    for (int i = 0; i < n; i++) kc_jo_num(j, NULL, v[i]);
    kc_jo_end_array(j);
}

void kc_jo_metrics(kc_jo *j, const kr_metrics *m)
{
    kc_jo_num(j, "range", m->range);
    kc_jo_num(j, "mse", m->mse);
    kc_jo_num(j, "psnr_db", m->psnr);
    kc_jo_num(j, "ssim", m->ssim);
    kc_jo_num(j, "nrmse", m->nrmse);
    kc_jo_num(j, "maxerr", m->maxerr);
}

void kc_jo_array(kc_jo *j, const char *key)
{
    kc_jo_key(j, key);
    kri_jw_begin_array(&j->w, 1);
}

void kc_jo_end_array(kc_jo *j) { kri_jw_end_array(&j->w); }

void kc_jo_object(kc_jo *j, const char *key)
{
    kc_jo_key(j, key);
    kri_jw_begin_object(&j->w, 1);
}

void kc_jo_end_object(kc_jo *j) { kri_jw_end_object(&j->w); }

char *kc_jo_text(kc_jo *j, size_t *len)
{
    kri_jw_end_object(&j->w);
    char *text = NULL;
    if (kri_jw_finish(&j->w, &text, len) != KR_OK) return NULL; /* the writer freed its buffer */
    return text;
}

int kc_jo_end(kc_jo *j)
{
    size_t len = 0;
    char *text = kc_jo_text(j, &len);
    if (!text) {
        fprintf(stderr, "kray: cannot write the JSON result: %s\n", kr_last_error());
        return -1;
    }
    fwrite(text, 1, len, stdout); /* the writer ends the text with a newline */
    kri_free(text);
    return 0;
}
