/* kray studio: helpers of the pages' in-process steps (see studio.h). */
#include "studio.h"

#include <stdio.h>
#include <string.h>

int ks_read(const ks_job *j, const char *file, kr_array **a, char *err, size_t len)
{
    char path[4096];
    ks_job_file(j, file, path, sizeof path);
    kr_clear_error();
    kr_status s = kc_read(path, a, NULL, kc_image_io());
    if (s != KR_OK) {
        snprintf(err, len, "%s", kr_last_error()[0] ? kr_last_error() : kr_status_string(s));
        return -1;
    }
    return 0;
}

int ks_write(const ks_job *j, const char *file, const kr_array *a, char *err, size_t len)
{
    char path[4096];
    ks_job_file(j, file, path, sizeof path);
    kr_clear_error();
    kr_status s = kr_write(path, a, kc_image_io());
    if (s != KR_OK) {
        snprintf(err, len, "%s", kr_last_error()[0] ? kr_last_error() : kr_status_string(s));
        return -1;
    }
    return 0;
}

int ks_post_compare(ks_job *j, const char *x, const char *ref, const char *diff, char *err,
                    size_t len)
{
    kr_array *a = NULL, *b = NULL, *d = NULL;
    int r = ks_read(j, x, &a, err, len);
    if (r == 0) r = ks_read(j, ref, &b, err, len);
    if (r == 0) r = ks_difference(a, b, &d, err, len);
    if (r == 0 && !kr_dtype_is_complex(a->dtype) && !kr_dtype_is_complex(b->dtype)) {
        float *f = d->data; /* x - ref of real data: its magnitude (complex data have it) */
        for (int64_t i = 0; i < kr_array_numel(d); i++) f[i] = f[i] < 0 ? -f[i] : f[i];
    }
    if (r == 0) r = ks_write(j, diff, d, err, len);
    kr_array_destroy(a);
    kr_array_destroy(b);
    kr_array_destroy(d);
    return r;
}
