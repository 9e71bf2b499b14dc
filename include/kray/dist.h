/* kray across processes: MPI (docs/scaling.md).
 *
 * libkray itself needs no MPI library. A kray built where CMake finds MPI (KRAY_MPI=AUTO or ON)
 * also builds the plug-in libkray_mpi.so, which kr_dist_init loads as kray loads its other
 * plug-ins (from $KRAY_PLUGIN_DIR, beside the library or the program, or kray's install
 * libdir) when the process is one of several started by an MPI launcher (mpirun, mpiexec,
 * srun: detected from their environment).
 *
 * A context marked with kr_ctx_set_dist divides the work of its plans over all the processes
 * as it divides it over its device list (kray/core.h), with each process's list as its share:
 * the parts are (process, device) pairs, ordered by rank, and every process must have lists of
 * the same length. The plans of such a context are made, run and destroyed by every process
 * together, in the same order and with the same arguments (the same data, where a plan's result
 * depends on it), like MPI collectives. Each plan returns its whole result on every process
 * (the parts' shares are exchanged through MPI: in device memory directly when the MPI library
 * is CUDA-aware, else staged through host memory), so solvers run unchanged, the same on every
 * process. When one process fails, every process returns the failing process's status and
 * sentence (the lowest failing rank's), with " (rank R)" appended; none hangs.
 */
#ifndef KRAY_DIST_H
#define KRAY_DIST_H

#include "kray/core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Start the processes' MPI (once; later calls do nothing). Not launched by an MPI launcher, or
 * launched as one process: nothing is loaded and this process is rank 0 of 1. Launched with
 * several processes by a kray without the plugin: KR_ERR_NOT_SUPPORTED with the reason. argc
 * and argv may be NULL. */
kr_status kr_dist_init(int *argc, char ***argv);
/* MPI_Finalize when kr_dist_init initialised MPI (call once, at the end, from every process). */
kr_status kr_dist_finalize(void);
int kr_dist_rank(void);       /* 0 before kr_dist_init or without MPI */
int kr_dist_size(void);       /* 1 before kr_dist_init or without MPI */
int kr_dist_local_rank(void); /* rank among the processes on this host (device choice) */
/* The number of processes an MPI launcher started this process among (1 when none did), read
 * from the launcher's environment; needs no initialisation. */
int kr_dist_launched(void);

/* Divide ctx's plans over the processes too (on != 0) or not. Needs kr_dist_init first. */
kr_status kr_ctx_set_dist(kr_ctx *ctx, int on);
int kr_ctx_dist(const kr_ctx *ctx);

/* Collectives for callers that divide their own work (the command line). Every process must
 * call them together.
 *   kr_dist_agree: returns, on every process, KR_OK when every s is KR_OK, else the status and
 *                  sentence of the lowest rank whose s is not (" (rank R)" appended);
 *   kr_dist_bcast: bytes from root to every process;
 *   kr_dist_gather: every rank r sends counts[r] bytes (mine); root puts rank r's at
 *                  all + offsets[r] (its own too). `all` is used on root only. Host memory. */
kr_status kr_dist_agree(kr_status s);
kr_status kr_dist_bcast(void *buf, size_t bytes, int root);
kr_status kr_dist_gather(const void *mine, void *all, const int64_t *offsets,
                         const int64_t *counts, int root);

#ifdef __cplusplus
}
#endif
#endif
