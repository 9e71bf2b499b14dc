/* CG-SENSE of several slices that share a trajectory (kray/cgsense.h,
 * kr_cgsense_solve_slices): each slice solved alone, as kr_cgsense_solve does, the slices
 * divided over the context's device list and processes (core/parts.h, kri_parts_slices;
 * docs/scaling.md). */
#include "core/backend.h"
#include "core/parts.h"
#include "internal.h"
#include "kray/cgsense.h"

#include <string.h>

typedef struct kri_cgs_job {
    int ndim;
    const int64_t *dims;
    const kr_array *traj;
    const kr_cgsense_opts *copts;
    kr_solve_opts sopts;
    kr_solve_info *info;
    int shared_maps;
    kr_cgsense_plan *plan[KR_MAX_DEVICES]; /* a part's plan (kept for shared maps) */
} kri_cgs_job;

/* Slice s: views k-space [M, C], maps [dims..., C], image [dims]. */
static kr_status kri_cgs_slice(void *user, int part, const kr_ctx *c, int64_t s, kr_array *v)
{
    kri_cgs_job *j = user;
    if (s < 0) { /* the part is done */
        kr_cgsense_plan_destroy(j->plan[part]);
        j->plan[part] = NULL;
        return KR_OK;
    }
    if (!j->plan[part] || !j->shared_maps) {
        kr_cgsense_plan_destroy(j->plan[part]);
        j->plan[part] = NULL;
        KRI_TRY(kr_cgsense_plan_create(&j->plan[part], c, j->ndim, j->dims, j->traj, &v[1],
                                       j->copts));
    }
    kr_solve_info in;
    memset(&in, 0, sizeof in);
    KRI_TRY(kr_cgsense_solve(j->plan[part], &v[0], &v[2], &j->sopts, &in));
    if (j->info) j->info[s] = in;
    return KR_OK;
}

kr_status kr_cgsense_solve_slices(const kr_ctx *ctx, int ndim, const int64_t *dims,
                                  int64_t ncoils, int64_t nslices, const kr_array *traj,
                                  const kr_array *maps, const kr_array *kspace,
                                  const kr_cgsense_opts *copts, const kr_solve_opts *sopts,
                                  kr_array *x, kr_solve_info *info)
{
    static const char fn[] = "kr_cgsense_solve_slices";
    KRI_ARG_NOT_NULL(ctx);
    KRI_ARG_NOT_NULL(dims);
    KRI_ARG_NOT_NULL(traj);
    if (ndim != 2 && ndim != 3)
        return kri_fail(KR_ERR_DIM, "%s: images have 2 or 3 dims, not %d", fn, ndim);
    if (nslices < 1 || ncoils < 1)
        return kri_fail(KR_ERR_DIM, "%s: %lld coils and %lld slices (each must be >= 1)", fn,
                        (long long)ncoils, (long long)nslices);
    const kr_loc loc = kri_ctx_loc(ctx);
    KRI_TRY(kri_check_operand(fn, "k-space", kspace, KR_C64, loc));
    KRI_TRY(kri_check_operand(fn, "maps", maps, KR_C64, loc));
    KRI_TRY(kri_check_operand(fn, "image", x, KR_C64, loc));
    int64_t N = 1;
    for (int d = 0; d < ndim; d++) {
        if (dims[d] < 1) return kri_fail(KR_ERR_DIM, "%s: image dim %d is %lld", fn, d, (long long)dims[d]);
        N *= dims[d];
    }
    const int64_t C = ncoils, nm = kr_array_numel(maps);
    const int shared = nm == N * C;
    if (nm != N * C && nm != N * C * nslices)
        return kri_fail(KR_ERR_DIM, "%s: the maps have %lld values, not %lld pixels x %lld coils "
                        "(x %lld slices)", fn, (long long)nm, (long long)N, (long long)C,
                        (long long)nslices);
    const int64_t nk = kr_array_numel(kspace);
    if (nk % (C * nslices) != 0)
        return kri_fail(KR_ERR_DIM, "%s: k-space has %lld values, not samples x %lld coils x %lld "
                        "slices", fn, (long long)nk, (long long)C, (long long)nslices);
    if (kr_array_numel(x) != N * nslices)
        return kri_fail(KR_ERR_DIM, "%s: the image has %lld values, not %lld x %lld slices", fn,
                        (long long)kr_array_numel(x), (long long)N, (long long)nslices);
    if (loc == KR_DEVICE &&
        (kspace->device != kr_ctx_device(ctx) || maps->device != kr_ctx_device(ctx) ||
         x->device != kr_ctx_device(ctx)))
        return kri_fail(KR_ERR_LOCATION, "%s: the arrays must be on device %d (the context's "
                        "first)", fn, kr_ctx_device(ctx));
    kri_cgs_job j;
    memset(&j, 0, sizeof j);
    j.ndim = ndim, j.dims = dims, j.traj = traj, j.copts = copts, j.info = info;
    j.shared_maps = shared;
    if (sopts) j.sopts = *sopts;
    else kr_solve_opts_default(&j.sopts);
    j.sopts.history = NULL;
    j.sopts.show_progress = 0;
    kri_slice_arg a[3] = {{kspace, 2, {nk / (C * nslices), C}, 1, 1, 0},
                          {maps, ndim + 1, {0}, !shared, 1, 0},
                          {x, ndim, {0}, 1, j.sopts.warm_start, 1}};
    for (int d = 0; d < ndim; d++) a[1].dims[d] = a[2].dims[d] = dims[d];
    a[1].dims[ndim] = C;
    kr_progress *pg = kr_progress_begin(ctx, "cgsense slices", 1);
    kr_status s = kri_parts_slices(ctx, nslices, a, 3, kri_cgs_slice, &j);
    kr_progress_add(pg, 1);
    kr_progress_end(pg);
    if (s == KR_OK && info && kri_dist_active(ctx)) { /* every process's infos */
        kri_parts *parts = NULL;
        s = kri_parts_create(&parts, ctx);
        int64_t *split = s == KR_OK ? kri_parts_split(parts, nslices, 1) : NULL;
        if (s == KR_OK) s = split ? kri_parts_allgather(parts, info, KR_HOST, sizeof *info, split)
                                  : KR_ERR_OOM_HOST;
        kri_free(split);
        kri_parts_destroy(parts);
    }
    return s;
}
