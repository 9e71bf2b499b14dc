/* The backend seam's one choice and its one sentence (src/core/backend.h). */
#include "backend.h"

kr_status kri_no_cuda(const char *what)
{
    return kri_fail(KR_ERR_NO_DEVICE,
                    "%s: this build of kray has no CUDA support (rebuild with nvcc installed, "
                    "or use a CPU backend)",
                    what);
}

kr_status kri_backend_pick_(const void **out, kr_loc loc, const void *cpu, const void *cuda,
                            const char *what)
{
    const kri_backend_hdr *h = (const kri_backend_hdr *)(loc == KR_DEVICE ? cuda : cpu);
    *out = NULL;
    if (!h || !h->present) return kri_no_cuda(what);
    *out = h;
    return KR_OK;
}

kr_loc kri_ctx_loc(const kr_ctx *ctx)
{
    return kr_ctx_backend(ctx) == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
}
