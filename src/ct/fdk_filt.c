/* FDK's ramp filter: the one entry into the kray filter module (kray/fbp.h). Rows are filtered
 * with unit sample spacing (FDK's pre-weights carry 1/tau), no pre-weights of the module's own,
 * output in plain rows. */
#include "filter_internal.h"
#include "fdk_internal.h"

struct kri_fdk_filt {
    kr_filter_plan *plan;
};

kr_status kri_fdk_filt_create(kri_fdk_filt **out, const kr_ctx *ctx, int64_t nu, int64_t nrows,
                              const kr_fdk_opts *o, int fuse)
{
    *out = NULL;
    kr_filter_opts fo;
    kr_filter_opts_default(&fo);
    fo.method = o->filter;
    fo.window = o->window;
    fo.cutoff = o->cutoff;
    fo.tau_mm = 1.0;
    fo.dtype = KR_F32;
    fo.fuse = fuse;
    kri_fdk_filt *f = kri_calloc(1, sizeof *f);
    if (!f) return kri_fail(KR_ERR_OOM_HOST, "out of host memory for an FDK filter");
    kr_status s = kr_filter_plan_create(&f->plan, ctx, nu, nrows, &fo);
    if (s != KR_OK) {
        kri_free(f);
        return kri_fail_prefix(s, "fdk");
    }
    *out = f;
    return KR_OK;
}

kr_status kri_fdk_filt_run(kri_fdk_filt *f, const float *in, int64_t is, float *out, int64_t os)
{
    return kri_filter_run(f->plan, in, is, out, os, KRI_FILTER_PLAIN);
}

void *kri_fdk_filt_packed(kri_fdk_filt *f, int64_t *L, int *pad_zero)
{
    *L = kr_filter_pad_len(f->plan);
    return kri_filter_packed_work(f->plan, pad_zero);
}

kr_status kri_fdk_filt_run_packed(kri_fdk_filt *f, float *out, int64_t os)
{
    return kri_filter_run_packed(f->plan, out, os, KRI_FILTER_PLAIN);
}

int64_t kri_fdk_filt_device_bytes(int64_t nu, int64_t nrows, const kr_fdk_opts *o)
{
    if (o->filter != KR_FILTER_FFT) /* kernel + a plain row buffer */
        return nu * nrows * (int64_t)sizeof(float) + nu * 4 + ((int64_t)64 << 10);
    const int64_t L = kri_fft_good_size(2 * nu), pairs = (nrows + 1) / 2;
    /* complex work of row pairs, and as much again for cuFFT's own workspace or (with the
     * store callbacks, which need none) the separate packed input */
    return 2 * L * pairs * 8 + L * 4 + ((int64_t)64 << 10);
}

void kri_fdk_filt_destroy(kri_fdk_filt *f)
{
    if (!f) return;
    kr_filter_plan_destroy(f->plan);
    kri_free(f);
}
