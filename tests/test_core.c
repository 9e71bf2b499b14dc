/* Core: status strings, last error, dtypes, contexts, arrays, conversions, dumb inputs. */
#include "internal.h"
#include "kt.h"

#include <string.h>

static void test_status_strings(void)
{
    KT_CHECK(strcmp(kr_status_string(KR_OK), "KR_OK") == 0);
    KT_CHECK(strcmp(kr_status_string(KR_ERR_FORMAT), "KR_ERR_FORMAT") == 0);
    KT_CHECK(strcmp(kr_status_string((kr_status)999), "KR_ERR_UNKNOWN") == 0);
    for (int s = 0; s < KR_STATUS_COUNT; s++)
        KT_CHECK(strncmp(kr_status_string((kr_status)s), "KR_", 3) == 0);
    kr_clear_error();
    KT_CHECK(kr_last_error()[0] == '\0');
    KT_STATUS(kri_fail(KR_ERR_DIM, "sinogram has %dx%d values", 720, 511), KR_ERR_DIM);
    KT_CHECK(strcmp(kr_last_error(), "sinogram has 720x511 values") == 0);
    kri_fail_prefix(KR_ERR_DIM, "reading %s", "a.npy");
    KT_CHECK(strcmp(kr_last_error(), "reading a.npy: sinogram has 720x511 values") == 0);
}

static void test_dtypes(void)
{
    KT_CHECK(kr_dtype_size(KR_F32) == 4 && kr_dtype_size(KR_C128) == 16);
    KT_CHECK(kr_dtype_size(KR_DTYPE_INVALID) == 0 && kr_dtype_size((kr_dtype)77) == 0);
    for (int t = KR_F32; t < KR_DTYPE_COUNT; t++)
        KT_CHECK((int)kr_dtype_from_name(kr_dtype_name((kr_dtype)t)) == t);
    KT_CHECK(kr_dtype_from_name("bogus") == KR_DTYPE_INVALID);
    KT_CHECK(kr_dtype_from_name(NULL) == KR_DTYPE_INVALID);
    KT_CHECK(kr_dtype_real(KR_C64) == KR_F32 && kr_dtype_complex(KR_F64) == KR_C128);
    KT_CHECK(kr_dtype_is_complex(KR_C64) && !kr_dtype_is_complex(KR_F64));
}

static void test_ctx(void)
{
    kr_ctx *c = NULL;
    KT_STATUS(kr_ctx_create(NULL, KR_BACKEND_CPU), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ctx_create(&c, (kr_backend)42), KR_ERR_INVALID_ARG);
    KT_CHECK(c == NULL);
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU_SERIAL));
    KT_CHECK(kr_ctx_threads(c) == 1);
    KT_OK(kr_ctx_set_threads(c, 3)); /* ignored by the serial backend */
    KT_CHECK(kr_ctx_threads(c) == 1);
    KT_STATUS(kr_ctx_set_threads(c, -1), KR_ERR_INVALID_ARG);
    kr_ctx_destroy(c);
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
    KT_OK(kr_ctx_set_threads(c, 2));
    KT_CHECK(kr_ctx_threads(c) == 2);
    KT_STATUS(kr_ctx_set_log_level(c, (kr_log_level)9), KR_ERR_INVALID_ARG);
    kr_ctx_destroy(c);
    kr_ctx_destroy(NULL);

    /* AUTO resolves to CUDA or CPU, never stays AUTO. */
    KT_OK(kr_ctx_create(&c, KR_BACKEND_AUTO));
    kr_backend b = kr_ctx_backend(c);
    KT_CHECK(b == KR_BACKEND_CPU || b == KR_BACKEND_CUDA);
    kr_ctx_destroy(c);

    /* CUDA without a device: NO_DEVICE and a sentence saying so. */
    int n = -1;
    kr_status s = kr_cuda_device_count(&n);
    if (s != KR_OK) {
        KT_CHECK(s == KR_ERR_NO_DEVICE && n == 0);
        KT_CHECK(strstr(kr_last_error(), "no CUDA device") != NULL);
        KT_STATUS(kr_ctx_create(&c, KR_BACKEND_CUDA), KR_ERR_NO_DEVICE);
    }
    KT_STATUS(kr_cuda_device_count(NULL), KR_ERR_INVALID_ARG);

    kr_backend bb;
    KT_OK(kr_backend_from_name("cpu-serial", &bb));
    KT_CHECK(bb == KR_BACKEND_CPU_SERIAL);
    KT_STATUS(kr_backend_from_name("tpu", &bb), KR_ERR_INVALID_ARG);
    KT_CHECK(strcmp(kr_last_error(), "unknown backend 'tpu' (expected auto, cpu-serial, cpu or "
                                     "cuda)") == 0);
    KT_CHECK(strcmp(kr_backend_name(KR_BACKEND_CUDA), "cuda") == 0);
    KT_CHECK(kr_backend_count() == KR_BACKEND_CUDA + 1);
}

static void test_arrays(void)
{
    kr_array *a = NULL;
    int64_t dims[3] = {4, 3, 2};
    KT_OK(kr_array_create(&a, KR_F32, 3, dims, KR_HOST, NULL));
    KT_CHECK(kr_array_numel(a) == 24 && kr_array_bytes(a) == 96);
    KT_CHECK(a->strides[0] == 1 && a->strides[1] == 4 && a->strides[2] == 12);
    KT_CHECK(kr_array_is_contiguous(a) && kr_array_rank(a) == 3);
    for (int i = 0; i < 24; i++) KT_CHECK(((float *)a->data)[i] == 0.0f);
    for (int i = 0; i < 24; i++) ((float *)a->data)[i] = (float)i - 10.4f;

    kr_array *c = NULL, *u = NULL;
    KT_OK(kr_array_astype(&c, a, KR_C128));
    KT_CHECK(((double *)c->data)[2 * 5] == (double)(5.0f - 10.4f));
    KT_CHECK(((double *)c->data)[2 * 5 + 1] == 0.0);
    KT_OK(kr_array_astype(&u, a, KR_U8)); /* rounds and saturates */
    KT_CHECK(((uint8_t *)u->data)[0] == 0 && ((uint8_t *)u->data)[23] == 13);
    kr_array_destroy(u);
    KT_OK(kr_array_astype(&u, a, KR_I16));
    KT_CHECK(((int16_t *)u->data)[0] == -10 && ((int16_t *)u->data)[1] == -9);
    kr_array_destroy(u);

    kr_array *b = NULL;
    KT_OK(kr_array_clone(&b, a, KR_HOST, NULL));
    KT_CHECK(memcmp(a->data, b->data, kr_array_bytes(a)) == 0);
    KT_CHECK(kr_array_same_shape(a, b) && !kr_array_same_shape(a, c));
    KT_STATUS(kr_array_copy(c, a, NULL), KR_ERR_DIM);
    KT_OK(kr_array_zero(b, NULL));
    KT_CHECK(((float *)b->data)[7] == 0.0f);

    char buf[64];
    KT_CHECK(strcmp(kr_dims_string(3, dims, buf, sizeof buf), "4x3x2") == 0);

    /* trailing singleton dims do not change the shape */
    int64_t d4[4] = {4, 3, 2, 1};
    kr_array w;
    KT_OK(kr_array_wrap(&w, KR_F32, 4, d4, a->data, KR_HOST));
    KT_CHECK(kr_array_same_shape(&w, a) && !w.owns);

    kr_array_destroy(a);
    kr_array_destroy(b);
    kr_array_destroy(c);
    kr_array_destroy(NULL);
}

static void test_array_dumb_inputs(void)
{
    kr_array *a = (kr_array *)0x1;
    int64_t dims[2] = {4, 4};
    KT_STATUS(kr_array_create(NULL, KR_F32, 2, dims, KR_HOST, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_array_create(&a, KR_DTYPE_INVALID, 2, dims, KR_HOST, NULL), KR_ERR_DTYPE);
    KT_CHECK(a == NULL);
    KT_STATUS(kr_array_create(&a, KR_F32, 0, dims, KR_HOST, NULL), KR_ERR_DIM);
    KT_STATUS(kr_array_create(&a, KR_F32, KR_MAX_DIMS + 1, dims, KR_HOST, NULL), KR_ERR_DIM);
    KT_STATUS(kr_array_create(&a, KR_F32, 2, NULL, KR_HOST, NULL), KR_ERR_INVALID_ARG);
    int64_t zero[2] = {4, 0}, neg[2] = {-3, 2}, huge[2] = {INT64_MAX / 2, 3};
    int64_t big[2] = {1 << 21, 1 << 20};
    KT_STATUS(kr_array_create(&a, KR_F32, 2, zero, KR_HOST, NULL), KR_ERR_DIM);
    KT_STATUS(kr_array_create(&a, KR_F32, 2, neg, KR_HOST, NULL), KR_ERR_DIM);
    KT_STATUS(kr_array_create(&a, KR_F32, 2, huge, KR_HOST, NULL), KR_ERR_DIM);
    KT_STATUS(kr_array_create(&a, KR_F32, 2, big, KR_HOST, NULL), KR_ERR_DIM);
    KT_STATUS(kr_array_create(&a, KR_F32, 2, dims, (kr_loc)5, NULL), KR_ERR_INVALID_ARG);
    kr_array w;
    KT_STATUS(kr_array_wrap(&w, KR_F32, 2, dims, NULL, KR_HOST), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_array_wrap(NULL, KR_F32, 2, dims, &w, KR_HOST), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_array_copy(NULL, NULL, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_array_astype(NULL, NULL, KR_F32), KR_ERR_INVALID_ARG);

    int n;
    if (kr_cuda_device_count(&n) != KR_OK) {
        /* device arrays without a device */
        KT_STATUS(kr_array_create(&a, KR_F32, 2, dims, KR_DEVICE, NULL), KR_ERR_NO_DEVICE);
        KT_CHECK(a == NULL);
        /* page-locking host memory needs a device */
        float buf[4];
        KT_STATUS(kr_host_register(buf, sizeof buf), KR_ERR_NO_DEVICE);
        KT_STATUS(kr_host_unregister(buf), KR_ERR_NO_DEVICE);
    }
    KT_STATUS(kr_host_register(NULL, 16), KR_ERR_INVALID_ARG);
}

struct kt_progress_state {
    int calls, done;
    double last;
};

static void cb(void *user, const char *task, double f, int done)
{
    struct kt_progress_state *st = user;
    (void)task;
    st->calls++;
    st->done += done;
    st->last = f;
}

static void test_progress_callback(void)
{
    struct kt_progress_state st = {0, 0, -1};
    kr_ctx *c;
    KT_OK(kr_ctx_create(&c, KR_BACKEND_CPU));
    KT_OK(kr_ctx_set_progress(c, cb, &st));
    kr_progress *p = kr_progress_begin(c, "work", 100);
    KT_CHECK(p != NULL);
    for (int i = 0; i < 100; i++) kr_progress_add(p, 1);
    kr_progress_end(p);
    KT_CHECK(st.calls >= 3 && st.done == 1 && st.last == 1.0);
    KT_OK(kr_ctx_set_progress(c, NULL, NULL));
    KT_OK(kr_ctx_set_quiet(c, 1));
    KT_CHECK(kr_progress_begin(c, "quiet", 10) == NULL);
    kr_progress_add(NULL, 1);
    kr_progress_end(NULL);
    kr_ctx_destroy(c);
}

static void test_timer(void)
{
    double t0 = kr_time_now(), t1 = kr_time_now();
    KT_CHECK(t1 >= t0 && t0 > 0);
    KT_CHECK(strstr(kr_build_features(), "fftw") != NULL);
    KT_CHECK(strcmp(kr_version(), KRAY_VERSION_STRING) == 0);
}

int main(void)
{
    KT_RUN(test_status_strings);
    KT_RUN(test_dtypes);
    KT_RUN(test_ctx);
    KT_RUN(test_arrays);
    KT_RUN(test_array_dumb_inputs);
    KT_RUN(test_progress_callback);
    KT_RUN(test_timer);
    return kt_finish();
}
