/* The least-squares plan's benchmarking hook (lsq.c), for `kray bench lsq`. Private: not
 * installed. */
#ifndef KRAY_LSQ_BENCH_H
#define KRAY_LSQ_BENCH_H

#include "kray/lsq.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Mean seconds of `reps` applications (after one warm-up) of the rhs (what = 0) or the normal
 * operator (what = 1) on random data in the plan's memory (synchronised for CUDA). */
kr_status kri_lsq_bench(kr_lsq_plan *p, int what, int reps, double *seconds);

#ifdef __cplusplus
}
#endif
#endif
