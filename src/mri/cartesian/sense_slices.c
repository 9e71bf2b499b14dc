/* SENSE of several slices (kray/sense.h, kr_sense_execute_slices): each slice reconstructed as
 * kr_sense_plan_create + kr_sense_execute reconstruct it alone, the slices divided over the
 * context's device list and processes (core/parts.h, kri_parts_slices; docs/scaling.md). */
#include "core/backend.h"
#include "core/parts.h"
#include "kray/sense.h"

#include <string.h>

typedef struct kri_senses_job {
    const kr_sense_opts *opts;
    int shared_maps, gfactor;
    kr_sense_plan *plan[KR_MAX_DEVICES]; /* a part's plan (kept for shared maps) */
} kri_senses_job;

/* Slice s: views k-space [nx, ny, nc], maps [nx, ny, nc], image [nx, ny] (and g-factor). */
static kr_status kri_senses_slice(void *user, int part, const kr_ctx *c, int64_t s, kr_array *v)
{
    kri_senses_job *j = user;
    if (s < 0 || !j->shared_maps) { /* the part is done, or each slice has its maps */
        kr_sense_plan_destroy(j->plan[part]);
        j->plan[part] = NULL;
        if (s < 0) return KR_OK;
    }
    if (!j->plan[part]) KRI_TRY(kr_sense_plan_create(&j->plan[part], c, &v[1], j->opts));
    return kr_sense_execute(j->plan[part], &v[0], &v[2], j->gfactor ? &v[3] : NULL);
}

kr_status kr_sense_execute_slices(const kr_ctx *ctx, const kr_array *maps, int64_t nslices,
                                  const kr_sense_opts *opts, const kr_array *kspace,
                                  kr_array *image, kr_array *gfactor)
{
    static const char fn[] = "kr_sense_execute_slices";
    KRI_ARG_NOT_NULL(ctx);
    const kr_loc loc = kri_ctx_loc(ctx);
    KRI_TRY(kri_check_operand(fn, "k-space", kspace, KR_C64, loc));
    KRI_TRY(kri_check_operand(fn, "maps", maps, KR_C64, loc));
    KRI_TRY(kri_check_operand(fn, "image", image, KR_C64, loc));
    if (gfactor) KRI_TRY(kri_check_operand(fn, "g-factor", gfactor, KR_F32, loc));
    if (nslices < 1) return kri_fail(KR_ERR_DIM, "%s: %lld slices", fn, (long long)nslices);
    const int64_t nx = kspace->dims[0], ny = kspace->ndim > 1 ? kspace->dims[1] : 1;
    const int64_t per = kr_array_numel(kspace) / nslices, nc = per / (nx * ny);
    char d[96];
    if (per * nslices != kr_array_numel(kspace) || nc * nx * ny != per || nc < 1)
        return kri_fail(KR_ERR_DIM, "%s: k-space %s is not [nx, ny, coils] x %lld slices", fn,
                        kr_dims_string(kspace->ndim, kspace->dims, d, sizeof d),
                        (long long)nslices);
    const int64_t nm = kr_array_numel(maps);
    if (nm != per && nm != per * nslices)
        return kri_fail(KR_ERR_DIM, "%s: the maps have %lld values, not %lldx%lldx%lld (x %lld "
                        "slices)", fn, (long long)nm, (long long)nx, (long long)ny,
                        (long long)nc, (long long)nslices);
    if (kr_array_numel(image) != nx * ny * nslices ||
        (gfactor && kr_array_numel(gfactor) != nx * ny * nslices))
        return kri_fail(KR_ERR_DIM, "%s: the image%s must hold %lldx%lld x %lld slices", fn,
                        gfactor ? " and the g-factor" : "", (long long)nx, (long long)ny,
                        (long long)nslices);
    kri_senses_job j;
    memset(&j, 0, sizeof j);
    kr_sense_opts o;
    if (opts) o = *opts;
    else kr_sense_opts_default(&o);
    j.opts = &o;
    j.shared_maps = nm == per;
    j.gfactor = gfactor != NULL;
    kri_slice_arg a[4] = {{kspace, 3, {nx, ny, nc}, 1, 1, 0},
                          {maps, 3, {nx, ny, nc}, !j.shared_maps, 1, 0},
                          {image, 2, {nx, ny}, 1, 0, 1},
                          {gfactor, 2, {nx, ny}, 1, 0, 1}};
    return kri_parts_slices(ctx, nslices, a, gfactor ? 4 : 3, kri_senses_slice, &j);
}
