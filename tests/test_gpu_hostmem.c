/* Page-locked host memory (kr_host_register / kr_host_unregister): a registered buffer goes to
 * the device and back unchanged through kr_array_copy on a stream, a registered sub-range too;
 * overlapping registrations, unregistering twice, NULL and zero sizes are refused with one
 * sentence. */
#include "kt.h"

#include <stdlib.h>
#include <string.h>

static void test_roundtrip(void)
{
    enum { N = 1 << 20 };
    float *h = malloc(sizeof(float) * N), *back = malloc(sizeof(float) * N);
    KT_CHECK(h && back);
    for (int i = 0; i < N; i++) h[i] = (float)i * 0.5f - 7.0f;
    KT_OK(kr_host_register(h, sizeof(float) * N));
    KT_OK(kr_host_register(back, sizeof(float) * N));
    kr_ctx *ctx = NULL;
    KT_OK(kr_ctx_create(&ctx, KR_BACKEND_CUDA));
    int64_t d[1] = {N};
    kr_array hs, hb, *dv = NULL;
    KT_OK(kr_array_wrap(&hs, KR_F32, 1, d, h, KR_HOST));
    KT_OK(kr_array_wrap(&hb, KR_F32, 1, d, back, KR_HOST));
    KT_OK(kr_array_create(&dv, KR_F32, 1, d, KR_DEVICE, ctx));
    KT_OK(kr_array_copy(dv, &hs, ctx));
    memset(back, 0, sizeof(float) * N);
    KT_OK(kr_array_copy(&hb, dv, ctx));
    KT_CHECK(memcmp(h, back, sizeof(float) * N) == 0);

    /* a range overlapping a registered one is refused, with a sentence */
    KT_STATUS(kr_host_register(h + 16, 1024), KR_ERR_CUDA);
    KT_CHECK(strstr(kr_last_error(), "page-lock") != NULL);
    KT_OK(kr_host_unregister(h));
    KT_STATUS(kr_host_unregister(h), KR_ERR_CUDA);
    KT_OK(kr_host_unregister(back));
    /* a sub-range of a buffer */
    KT_OK(kr_host_register(h + 1024, sizeof(float) * 4096));
    KT_OK(kr_host_unregister(h + 1024));

    KT_STATUS(kr_host_register(NULL, 16), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_host_register(h, 0), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_host_unregister(NULL), KR_ERR_INVALID_ARG);
    kr_array_destroy(dv);
    kr_ctx_destroy(ctx);
    free(h);
    free(back);
}

int main(void)
{
    kt_require_gpu();
    KT_RUN(test_roundtrip);
    return kt_finish();
}
