/* libkray_mpi.so: kray's collectives on MPI (src/core/dist_plugin.h), loaded by libkray when a
 * process is one of several started by an MPI launcher (src/core/dist.c). Built only when CMake
 * finds MPI (KRAY_MPI); the only kray file that includes mpi.h. Large transfers go in pieces of
 * at most 1 GiB (MPI counts are int). */
#include "core/dist_plugin.h"

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#include <stdio.h>
#include <string.h>

#define PIECE ((size_t)1 << 30)

static int fail(int code, const char *what, char *err, size_t errlen)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(code, msg, &len);
    snprintf(err, errlen, "MPI %s failed: %s", what, msg);
    return 1;
}

static int p_init(int *argc, char ***argv, int *rank, int *size, int *local, char *err,
                  size_t errlen)
{
    int inited = 0, e;
    MPI_Initialized(&inited);
    if (!inited) {
        int provided = 0;
        e = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
        if (e != MPI_SUCCESS) return fail(e, "initialisation", err, errlen);
    }
    /* errors come back as codes (kray turns them into sentences), not as aborts */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    MPI_Comm node;
    e = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, *rank, MPI_INFO_NULL, &node);
    if (e != MPI_SUCCESS) return fail(e, "splitting the processes by host", err, errlen);
    MPI_Comm_rank(node, local);
    MPI_Comm_free(&node);
    return 0;
}

static int p_finalize(void)
{
    int inited = 0, done = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&done);
    return inited && !done ? MPI_Finalize() != MPI_SUCCESS : 0;
}

static int p_bcast(void *buf, size_t bytes, int root, char *err, size_t errlen)
{
    for (size_t o = 0; o < bytes; o += PIECE) {
        size_t n = bytes - o < PIECE ? bytes - o : PIECE;
        int e = MPI_Bcast((char *)buf + o, (int)n, MPI_BYTE, root, MPI_COMM_WORLD);
        if (e != MPI_SUCCESS) return fail(e, "broadcast", err, errlen);
    }
    return 0;
}

static int p_send(const void *buf, size_t bytes, int dest, char *err, size_t errlen)
{
    for (size_t o = 0; o < bytes; o += PIECE) {
        size_t n = bytes - o < PIECE ? bytes - o : PIECE;
        int e = MPI_Send((const char *)buf + o, (int)n, MPI_BYTE, dest, 7, MPI_COMM_WORLD);
        if (e != MPI_SUCCESS) return fail(e, "send", err, errlen);
    }
    return 0;
}

static int p_recv(void *buf, size_t bytes, int src, char *err, size_t errlen)
{
    for (size_t o = 0; o < bytes; o += PIECE) {
        size_t n = bytes - o < PIECE ? bytes - o : PIECE;
        int e = MPI_Recv((char *)buf + o, (int)n, MPI_BYTE, src, 7, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        if (e != MPI_SUCCESS) return fail(e, "receive", err, errlen);
    }
    return 0;
}

static int p_allreduce(void *buf, size_t n, int type, int op, char *err, size_t errlen)
{
    MPI_Datatype t = type == KRI_DIST_I64 ? MPI_INT64_T : type == KRI_DIST_F32 ? MPI_FLOAT : MPI_DOUBLE;
    MPI_Op o = op == KRI_DIST_SUM ? MPI_SUM : op == KRI_DIST_MIN ? MPI_MIN : MPI_MAX;
    const size_t es = type == KRI_DIST_F32 ? 4 : 8, per = PIECE / es;
    for (size_t i = 0; i < n; i += per) {
        size_t k = n - i < per ? n - i : per;
        int e = MPI_Allreduce(MPI_IN_PLACE, (char *)buf + i * es, (int)k, t, o, MPI_COMM_WORLD);
        if (e != MPI_SUCCESS) return fail(e, "reduction", err, errlen);
    }
    return 0;
}

static int p_barrier(char *err, size_t errlen)
{
    int e = MPI_Barrier(MPI_COMM_WORLD);
    return e == MPI_SUCCESS ? 0 : fail(e, "barrier", err, errlen);
}

static int p_cuda_aware(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support();
#else
    return 0;
#endif
}

static void p_abort(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

__attribute__((visibility("default"))) const kri_dist_ops kri_dist_plugin = {
    KRI_DIST_ABI, p_init, p_finalize, p_bcast, p_send, p_recv, p_allreduce, p_barrier,
    p_cuda_aware, p_abort};
