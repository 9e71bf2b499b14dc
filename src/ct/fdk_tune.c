/* FDK's tuning knobs for benchmarks (fdk_bench.h): the kernel names and the default tuning.
 * Apart from fdk.c so that the backends can name a kernel without depending on the front. */
#include "ct_internal.h"
#include "fdk_internal.h"

#include <stdlib.h>

static const char *const kri_fdk_kernel_names[KRI_FDK_KERNEL_COUNT] = {
    "auto", "smem", "smem32", "global", "pipe", "pipe32", "align"};

const char *kri_fdk_kernel_name(kri_fdk_kernel k)
{
    return (unsigned)k < KRI_FDK_KERNEL_COUNT ? kri_fdk_kernel_names[k] : "invalid";
}

void kri_fdk_tune_default(kri_fdk_tune *t)
{
    if (!t) return;
    t->kernel = KRI_FDK_KERNEL_AUTO;
    t->fuse = 0;
    const char *e = getenv("KRAY_FDK_HOST_BATCH");
    t->host_batch = e && *e ? atoi(e) : 0;
}
