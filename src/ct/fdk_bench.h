/* FDK's tuning for benchmarks and tests, kept out of the public kray/fdk.h: which CUDA
 * backprojection kernel runs and whether the FFT filter uses cuFFT's store callbacks. A plan
 * made by kr_fdk_plan_create has the defaults (kri_fdk_tune_default); the tools (kray fdk,
 * kray bench fdk) and the tests, which link the static library, make theirs with
 * kri_fdk_plan_create_tuned. Not installed. */
#ifndef KRAY_FDK_BENCH_H
#define KRAY_FDK_BENCH_H

#include "kray/fdk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* CUDA backprojection kernels (all give bit-identical volumes). AUTO picks the fastest measured
 * on the H100, align, at both RabbitCT sizes (docs/benchmarks.md). */
typedef enum kri_fdk_kernel {
    KRI_FDK_KERNEL_AUTO = 0,
    KRI_FDK_KERNEL_SMEM,   /* views' detector footprints staged in shared memory, 16x16 blocks */
    KRI_FDK_KERNEL_SMEM32, /* the same with 32x8 blocks and more voxels per thread along z */
    KRI_FDK_KERNEL_GLOBAL, /* bilinear reads through the L1 cache, no staging */
    KRI_FDK_KERNEL_PIPE,   /* footprints staged one view ahead by asynchronous copies into two
                              tiles, 32x16 columns x 8 slices per block */
    KRI_FDK_KERNEL_PIPE32, /* the same with 32x32 columns per block */
    KRI_FDK_KERNEL_ALIGN,  /* 32x32 columns x 16 slices per block, each warp's columns laid along
                              its views' rays, tiles staged by 16-byte copies and rebuilt as
                              (value, difference) pairs: one 8-byte load per row of a sample */
    KRI_FDK_KERNEL_COUNT
} kri_fdk_kernel;

/* "auto", "smem", "smem32", "global", "pipe", "pipe32", "align" (the order of the tools'
 * --kernel choices), "invalid" out of range. */
const char *kri_fdk_kernel_name(kri_fdk_kernel k);

typedef struct kri_fdk_tune {
    kri_fdk_kernel kernel; /* CUDA backprojection kernel (default auto) */
    int fuse;              /* CUDA fft filter: cuFFT store callbacks, as kr_filter_opts.fuse (-1
                              never, 0 auto = default, 1 always); worth their plan time (~0.6 s
                              at RabbitCT size) when the plan runs many times */
    int host_batch;        /* CUDA, projections in host memory: at most this many views a batch,
                              so that staging, upload and the kernels of successive batches
                              overlap (0 = auto: KRI_FDK_HOST_BATCH; -1 = as many as the budget
                              allows, one batch in core); opts.batch_views overrides it. The
                              environment variable KRAY_FDK_HOST_BATCH sets the default. */
} kri_fdk_tune;
#define KRI_FDK_HOST_BATCH 32

void kri_fdk_tune_default(kri_fdk_tune *t);

/* kr_fdk_plan_create and kr_fdk_plan_create_views with this tuning (t NULL: the defaults);
 * a kernel or fuse out of range is KR_ERR_INVALID_ARG. */
kr_status kri_fdk_plan_create_tuned(kr_fdk_plan **plan, const kr_ctx *ctx, const kr_ct_geom *g,
                                    const kr_fdk_opts *o, const kri_fdk_tune *t);
kr_status kri_fdk_plan_create_views_tuned(kr_fdk_plan **plan, const kr_ctx *ctx, int64_t nu,
                                          int64_t nv, const kr_ct_view *views, int64_t nviews,
                                          const kr_ct_grid *grid, const kr_fdk_opts *o,
                                          const kri_fdk_tune *t);

#ifdef __cplusplus
}
#endif
#endif
