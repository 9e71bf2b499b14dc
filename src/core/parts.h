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
} kri_parts;

/* The parts of ctx's device list (the parent must outlive them). */
kr_status kri_parts_create(kri_parts **out, const kr_ctx *ctx);
void kri_parts_destroy(kri_parts *p); /* accepts NULL */

/* Work of part `part` on its context (for CUDA parts the thread's current device is the part's
 * device when it is called). */
typedef kr_status (*kri_part_fn)(void *user, int part, const kr_ctx *pctx);
/* fn for every part at once, each in a thread of its own (part 0 in the caller's). Returns
 * when all are done: KR_OK, or the status and sentence of the lowest failing part (for CUDA
 * parts with "(device D)" appended). */
kr_status kri_parts_run(const kri_parts *p, kri_part_fn fn, void *user);

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
