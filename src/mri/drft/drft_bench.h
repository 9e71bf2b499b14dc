/* The DrFT's benchmarking hook (drft.c), for `kray drft --bench` and the GPU tests. Private:
 * not installed. */
#ifndef KRAY_DRFT_BENCH_H
#define KRAY_DRFT_BENCH_H

#include "kray/drft.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Time `reps` adjoint (forward = 0) or forward (1) transforms of random data on the plan's
 * context (after one warm-up run; device arrays for CUDA) and report the mean seconds and the
 * error against the float64 CPU reference evaluated on `check` voxels or samples spread over
 * the output (0 = skip): max |err| / max |ref|. */
kr_status kri_drft_bench(kr_drft_plan *plan, int forward, kr_dtype dtype, int64_t batch, int reps,
                         int64_t check, double *seconds, double *rel_err);

#ifdef __cplusplus
}
#endif
#endif
