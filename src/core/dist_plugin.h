/* The table between libkray (src/core/dist.c) and its MPI plugin (src/plugins/mpi.c, built as
 * libkray_mpi.so when CMake finds MPI): the few collectives kray uses, with kray's own types,
 * so no MPI header or library is needed to build or load libkray itself. The plugin exports one
 * symbol, kri_dist_plugin (a kri_dist_ops). Every function returns 0 on success, or writes one
 * sentence into err (errlen bytes) and returns non-zero. Buffers may be in device memory only
 * when cuda_aware() says the MPI library takes them. Not installed. */
#ifndef KRAY_DIST_PLUGIN_H
#define KRAY_DIST_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#define KRI_DIST_ABI 1

enum { KRI_DIST_I64 = 0, KRI_DIST_F32, KRI_DIST_F64 };
enum { KRI_DIST_SUM = 0, KRI_DIST_MIN, KRI_DIST_MAX };

typedef struct kri_dist_ops {
    int abi; /* KRI_DIST_ABI */
    /* MPI_Init_thread (funneled) unless MPI is initialised already; rank, size and the rank
     * among the processes of this host */
    int (*init)(int *argc, char ***argv, int *rank, int *size, int *local_rank, char *err,
                size_t errlen);
    int (*finalize)(void);
    /* bytes from root to every process (any size: sent in pieces) */
    int (*bcast)(void *buf, size_t bytes, int root, char *err, size_t errlen);
    /* point to point, any size */
    int (*send)(const void *buf, size_t bytes, int dest, char *err, size_t errlen);
    int (*recv)(void *buf, size_t bytes, int src, char *err, size_t errlen);
    /* in place over every process: n values of type KRI_DIST_*, op KRI_DIST_* */
    int (*allreduce)(void *buf, size_t n, int type, int op, char *err, size_t errlen);
    int (*barrier)(char *err, size_t errlen);
    /* 1 when the MPI library moves device memory itself (CUDA-aware), else 0 */
    int (*cuda_aware)(void);
    /* end every process (MPI_Abort) */
    void (*abort)(int code);
} kri_dist_ops;

#endif
