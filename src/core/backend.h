/* The backend seam (docs/design.md, "The backend seam"): how a capability's front file reaches
 * its CPU and CUDA code without deciding anything about CUDA itself.
 *
 * Each capability declares, in its private header, a table whose first member is a
 * kri_backend_hdr, followed by the capability's own verbs:
 *
 *     typedef struct kri_gz_backend {
 *         kri_backend_hdr hdr;
 *         kr_status (*run)(const kr_ctx *ctx, const kri_gz_plan *p, ...);
 *     } kri_gz_backend;
 *     extern const kri_gz_backend kri_gz_cpu, kri_gz_cuda;
 *
 * `*_cpu.c` defines the CPU table, `*_cuda.cu` the CUDA table, and `*_nocuda.c` (compiled only
 * in a build without CUDA; CMakeLists.txt picks it) defines the CUDA table as a stub with
 * KRI_CUDA_STUB. The front validates its operands, then picks the table:
 *
 *     const kri_gz_backend *be;
 *     KRI_TRY(kri_backend_pick(&be, loc, &kri_gz_cpu, &kri_gz_cuda, "Goertzel"));
 *     return be->run(ctx, &plan, ...);
 *
 * A plan that spans several devices holds one backend instance (the table plus the state its
 * create verb made) per device: the table is per capability, the state per device. */
#ifndef KRAY_BACKEND_H
#define KRAY_BACKEND_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kri_backend_hdr {
    const char *name; /* "cpu" or "cuda" */
    bool present;     /* false in the stub of a build without CUDA */
} kri_backend_hdr;

/* The table for arrays at `loc` (cpu for host memory, cuda for device memory). A stub table
 * fails with KR_ERR_NO_DEVICE and the one sentence of kri_no_cuda(what). `out` is a pointer to
 * the caller's table pointer (any table type that starts with a kri_backend_hdr). */
kr_status kri_backend_pick_(const void **out, kr_loc loc, const void *cpu, const void *cuda,
                            const char *what);
#define kri_backend_pick(out, loc, cpu, cuda, what)                                            \
    kri_backend_pick_((const void **)(out), (loc), (cpu), (cuda), (what))

/* The one sentence of a build without CUDA: "<what>: this build of kray has no CUDA support
 * (rebuild with nvcc installed, or use a CPU backend)"; returns KR_ERR_NO_DEVICE. */
kr_status kri_no_cuda(const char *what);

/* Where a context's plans keep their arrays: KR_DEVICE for a CUDA context, else KR_HOST. */
kr_loc kri_ctx_loc(const kr_ctx *ctx);

/* The CUDA table of a build without CUDA (in a *_nocuda.c): every verb NULL, present false. */
#define KRI_CUDA_STUB(type, name) const type name = {.hdr = {"cuda", false}}

#ifdef __cplusplus
}
#endif
#endif
