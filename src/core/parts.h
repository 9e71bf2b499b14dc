/* Divided work (docs/scaling.md): the parts of a context's device list, each with a context of
 * its own, and the runner that works on all of them at once. Plans that divide their work keep
 * one kri_parts and one backend instance per part (core/backend.h). Not installed. */
#ifndef KRAY_CORE_PARTS_H
#define KRAY_CORE_PARTS_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kri_parts {
    int n;                      /* parts: the entries of the parent's device list */
    const kr_ctx *parent;
    kr_ctx *ctx[KR_MAX_DEVICES]; /* part i: the parent's backend and log level, device list
                                    {entry i}, its share of the parent's threads, no progress
                                    output; CUDA: part 0 runs on the parent's stream, the
                                    others on non-blocking streams of their own */
    void *stream[KR_MAX_DEVICES]; /* the streams the parts made (NULL for part 0) */
    /* a distributed context (kray/dist.h): the parts of every process, ordered by rank, are
     * the global parts; this process's part i is global part g0 + i */
    int rank, nranks, nglobal, g0;
} kri_parts;

/* The parts of ctx's device list (the parent must outlive them). */
kr_status kri_parts_create(kri_parts **out, const kr_ctx *ctx);
void kri_parts_destroy(kri_parts *p); /* accepts NULL */

/* Work of part `part` on its context (for CUDA parts the thread's current device is the part's
 * device when it is called). */
typedef kr_status (*kri_part_fn)(void *user, int part, const kr_ctx *pctx);
/* fn for every part at once, each in a thread of its own (part 0 in the caller's). Returns
 * when all are done: KR_OK, or the status and sentence of the lowest failing part (for CUDA
 * parts with "(device D)" appended). A distributed context's processes then agree
 * (kr_dist_agree): every process returns the same status. */
kr_status kri_parts_run(const kri_parts *p, kri_part_fn fn, void *user);

/* The global split of [0, total) over every process's parts (kri_split with p->nglobal parts):
 * a new array of nglobal + 1 starts (kri_free it); this process's part i has
 * [s[g0 + i], s[g0 + i + 1]). NULL after a failed allocation (sentence set). */
int64_t *kri_parts_split(const kri_parts *p, int64_t total, int64_t align);
/* After each process filled its own parts' ranges of buf (elements of esz bytes, starts from
 * kri_parts_split), every process gets every range (MPI; nothing without a distributed
 * context). buf on the host, or on the parent's device. */
kr_status kri_parts_allgather(const kri_parts *p, void *buf, kr_loc loc, size_t esz,
                              const int64_t *starts);
/* In place: the sum (op KRI_DIST_SUM), minimum or maximum over the processes of n values
 * (KRI_DIST_I64, _F32 or _F64 of dist_plugin.h; host or the parent's device). Nothing without
 * a distributed context. */
kr_status kri_parts_allreduce(const kri_parts *p, void *buf, kr_loc loc, int type, int op,
                              size_t n);

/* ---- independent slices (slices.c) ------------------------------------------------------------
 * S independent problems (slices, frames, repetitions) divided over the parts (every process's,
 * in rank order): part i works through its range of slices one by one, calling fn with views of
 * each operand's slice. Operand views: dims nd/dims; per_slice: slice s of a lies at s times the
 * view's size (else one view serves every slice); in: read by fn, out: written by fn (and
 * per slice). Parts off
 * the first device get device copies of each slice (in: copied there, out: copied back; a shared
 * operand once). After its last slice each part calls fn once more with slice -1 and no
 * views, on its own thread, to release what it kept. A failure is prefixed "slice s: ". Across
 * processes the out operands are
 * exchanged afterwards, so every process holds every slice. Arrays: host, or on the first
 * device. */
#define KRI_SLICE_MAX_ARGS 8
typedef struct kri_slice_arg {
    const kr_array *a;
    int nd;
    int64_t dims[KR_MAX_DIMS];
    int per_slice, in, out;
} kri_slice_arg;
typedef kr_status (*kri_slice_fn)(void *user, int part, const kr_ctx *pctx, int64_t slice,
                                  kr_array *views);
kr_status kri_parts_slices(const kr_ctx *ctx, int64_t nslices, kri_slice_arg *args, int nargs,
                           kri_slice_fn fn, void *user);

/* dist.c: the collectives behind the two above, and the agreement on device-list lengths. */
int kri_dist_active(const kr_ctx *ctx);
kr_status kri_dist_allgather(const kr_ctx *ctx, void *buf, kr_loc loc, size_t esz,
                             const int64_t *rank_starts);
kr_status kri_dist_allreduce(const kr_ctx *ctx, void *buf, kr_loc loc, int type, int op,
                             size_t n);
kr_status kri_dist_same_count(const kr_ctx *ctx, int64_t n);

/* Does part i of a CUDA division work off the first device's memory (and so copy what it
 * reads to its device, and what it writes back)? Parts on another device do; with the
 * environment variable KRAY_PARTS_COPY=1 every part but the first does, so that a machine with
 * one GPU tests the copies too (docs/scaling.md). Host arrays: never. */
int kri_part_remote(const kri_parts *p, int i, kr_loc loc);

/* [starts[i], starts[i + 1]) for i < n: [0, total) cut into n contiguous ranges whose inner
 * boundaries are multiples of `align` (>= 1), as equal as that allows; ranges may be empty
 * when total is small. */
void kri_split(int64_t total, int n, int64_t align, int64_t *starts);

#ifdef __cplusplus
}
#endif
#endif
