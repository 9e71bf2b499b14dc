/* The FFT filter's transforms with cuFFT store callbacks (LTO, linked by cuFFT at plan time
 * through nvJitLink): the forward transform of the packed row pairs stores each bin times the
 * response, and the inverse stores positions 0 .. N-1 straight into the PLAIN output rows. That
 * removes the multiply pass and the unpack pass (a read and a write of the whole work buffer
 * each; at the FDK's RabbitCT size, 496 x 960 rows of 1248 in rows of 2500, 5.6 ms on an H100).
 * The callbacks are src/ct/cufft_cb/filter_cb.cu, embedded by CMake.
 * Where they are not wanted (fuse -1, or auto below KRI_FILTER_CB_MIN cells) or cuFFT cannot
 * link them (no nvJitLink, a GPU older than the LTO-IR) kri_filter_cufft_create gives NULL and
 * filter.c keeps the separate passes, with the same values. */
#include "ct/filter_internal.h"

#include <cuda_runtime.h>
#include "cufft_load.h" /* cuFFT, loaded on first use */

#include "cuda_util.cuh"
#include "fft_internal.h" /* kri_cufft_name, kri_cufft_fail */

#include <stdlib.h>
#include <string.h>

#include "filter_cb.h"
#include "kri_filter_cb.h" /* kri_filter_cb_fatbin (generated) */

struct kri_filter_cufft {
    cufftHandle fwd, bwd;
    int made; /* bit 0: fwd, bit 1: bwd */
    int f64;
    kri_filter_cbinfo *d_info;
};

namespace
{
__global__ void k_filter_cb_out(kri_filter_cbinfo *c, void *out, long long os)
{
    c->out = out;
    c->os = os;
}
} // namespace

extern "C" void kri_filter_cufft_destroy(kri_filter_cufft *f)
{
    if (!f) return;
    if (f->made & 1) cufftDestroy(f->fwd);
    if (f->made & 2) cufftDestroy(f->bwd);
    kri_device_free(f->d_info);
    free(f);
}

/* One plan of L-point transforms of npairs rows with store callback `name`. */
static cufftResult kri_filter_cb_plan(cufftHandle *h, const char *name, int f64, int64_t L,
                                      int64_t npairs, kri_filter_cbinfo *d_info, size_t *ws_sum)
{
    cufftResult r = cufftCreate(h);
    if (r != CUFFT_SUCCESS) return r;
    void *info[1] = {d_info};
    r = cufftXtSetJITCallback(*h, name, kri_filter_cb_fatbin, sizeof kri_filter_cb_fatbin,
                              f64 ? CUFFT_CB_ST_COMPLEX_DOUBLE : CUFFT_CB_ST_COMPLEX, info);
    long long n[1] = {(long long)L};
    size_t ws = 0;
    if (r == CUFFT_SUCCESS)
        r = cufftMakePlanMany64(*h, 1, n, NULL, 1, (long long)L, NULL, 1, (long long)L,
                                f64 ? CUFFT_Z2Z : CUFFT_C2C, (long long)npairs, &ws);
    if (r != CUFFT_SUCCESS) cufftDestroy(*h);
    *ws_sum += ws;
    return r;
}

extern "C" kr_status kri_filter_cufft_create(kri_filter_cufft **out, const kr_ctx *ctx, int f64,
                                             int fuse, int64_t L, int64_t npairs, int64_t ndet,
                                             int64_t nrows, const void *d_resp, size_t *ws)
{
    *out = NULL;
    *ws = 0;
    /* cuFFT links the callbacks at plan time (nvJitLink): 0.2-0.3 s per plan on the H100,
     * worth it when a run saves milliseconds; the callbacks' index arithmetic is 32-bit */
    const char *env = getenv("KRAY_CUFFT_CALLBACKS");
    if (env && (strcmp(env, "0") == 0 || strcmp(env, "1") == 0)) fuse = env[0] == '1' ? 1 : -1;
    const double cells = (double)L * (double)npairs;
    if (fuse < 0 || cells >= 4294967296.0 || (fuse == 0 && cells < (double)KRI_FILTER_CB_MIN))
        return KR_OK;
    KRI_TRY(kri_cufft_load());
    kri_filter_cufft *f = (kri_filter_cufft *)calloc(1, sizeof *f);
    if (!f) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for a filter plan");
    f->f64 = f64;
    const double t0 = kr_time_now();
    kri_filter_cbinfo hi;
    memset(&hi, 0, sizeof hi);
    hi.resp = d_resp;
    hi.L = L;
    hi.N = ndet;
    hi.R = nrows;
    kr_status s = kri_device_alloc((void **)&f->d_info, sizeof hi, kr_ctx_device(ctx),
                                   "the filter's callback parameters");
    if (s == KR_OK) s = kri_memcpy(f->d_info, KR_DEVICE, &hi, KR_HOST, sizeof hi, ctx);
    if (s != KR_OK) {
        kri_filter_cufft_destroy(f);
        return s;
    }
    cufftResult r = kri_filter_cb_plan(&f->fwd, f64 ? KRI_FCB_MUL_Z : KRI_FCB_MUL_C, f64, L,
                                       npairs, f->d_info, ws);
    if (r == CUFFT_SUCCESS) {
        f->made |= 1;
        r = kri_filter_cb_plan(&f->bwd, f64 ? KRI_FCB_UNPACK_Z : KRI_FCB_UNPACK_C, f64, L, npairs,
                               f->d_info, ws);
        if (r == CUFFT_SUCCESS) f->made |= 2;
    }
    if (r != CUFFT_SUCCESS) {
        kr_log(ctx, KR_LOG_INFO,
               "filter: cuFFT cannot link the store callbacks here (%s); the multiply and "
               "unpack run as separate passes",
               kri_cufft_name(r));
        kri_filter_cufft_destroy(f);
        return KR_OK;
    }
    kr_log(ctx, KR_LOG_DEBUG,
           "filter: cuFFT plans with store callbacks made in %.3f s (workspace %zu bytes)",
           kr_time_now() - t0, *ws);
    *out = f;
    return KR_OK;
}

static kr_status kri_filter_cb_exec(cufftHandle h, int f64, void *stream, void *in, void *out,
                                    int dir, const char *what)
{
    cufftResult r = cufftSetStream(h, (cudaStream_t)stream);
    if (r == CUFFT_SUCCESS)
        r = f64 ? cufftExecZ2Z(h, (cufftDoubleComplex *)in, (cufftDoubleComplex *)out, dir)
                : cufftExecC2C(h, (cufftComplex *)in, (cufftComplex *)out, dir);
    return r == CUFFT_SUCCESS ? KR_OK : kri_cufft_fail(r, what);
}

extern "C" kr_status kri_filter_cufft_forward(kri_filter_cufft *f, void *stream, const void *in,
                                              void *work)
{
    return kri_filter_cb_exec(f->fwd, f->f64, stream, (void *)in, work, CUFFT_FORWARD,
                              "the filter's forward transform");
}

extern "C" kr_status kri_filter_cufft_inverse_plain(kri_filter_cufft *f, void *stream, void *work,
                                                    void *out, int64_t out_stride)
{
    k_filter_cb_out<<<1, 1, 0, (cudaStream_t)stream>>>(f->d_info, out, (long long)out_stride);
    KRI_TRY(kri_cu_launched("k_filter_cb_out"));
    return kri_filter_cb_exec(f->bwd, f->f64, stream, work, work, CUFFT_INVERSE,
                              "the filter's inverse transform");
}
