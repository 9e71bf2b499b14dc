/* CG-SENSE of several slices that share a trajectory (kray/cgsense.h,
 * kr_cgsense_solve_slices): each slice solved alone, as kr_cgsense_solve does, the slices
 * divided over the context's device list (docs/scaling.md). */
#include "core/backend.h"
#include "core/parts.h"
#include "internal.h"
#include "kray/cgsense.h"

#include <string.h>

typedef struct kri_cgs_job {
    int ndim;
    const int64_t *dims;
    const kr_array *traj, *maps, *kspace;
    const kr_cgsense_opts *copts;
    kr_solve_opts sopts;
    kr_array *x;
    kr_solve_info *info;
    int64_t S, C, M, N, *ss; /* ss: the global split of the slices (parts.h) */
    int shared_maps;
    const kri_parts *parts;
} kri_cgs_job;

/* A view of elements [off, off + count) of a, with dims d (the same memory). */
static kr_status kri_cgs_view(kr_array *v, const kr_array *a, int64_t off, int nd,
                              const int64_t *d)
{
    KRI_TRY(kr_array_wrap(v, a->dtype, nd, d, (char *)a->data + (size_t)off * kr_dtype_size(a->dtype),
                          a->loc));
    v->device = a->device;
    return KR_OK;
}

/* Slices [ss[i], ss[i + 1]) on part i: one plan for all of them when the maps are shared,
 * else one per slice; a part off the first device copies each slice's operands to its own. */
static kr_status kri_cgs_part(void *user, int i, const kr_ctx *c)
{
    kri_cgs_job *j = user;
    const int g = j->parts->g0 + i;
    const int64_t s0 = j->ss[g], s1 = j->ss[g + 1];
    if (s1 <= s0) return KR_OK;
    const kr_loc loc = j->kspace->loc;
    const int remote = kri_part_remote(j->parts, i, loc);
    const int mine = kr_ctx_device(c), first = j->kspace->device;
    const size_t esz = kr_dtype_size(KR_C64);
    int64_t md[4], kd[2] = {j->M, j->C};
    for (int d = 0; d < j->ndim; d++) md[d] = j->dims[d];
    md[j->ndim] = j->C;
    kr_array kv, mv, xv;
    void *bk = NULL, *bm = NULL, *bx = NULL; /* a remote part's copies of one slice */
    kr_cgsense_plan *p = NULL;
    kr_status s = KR_OK;
    if (remote) {
        s = kri_device_alloc(&bk, (size_t)(j->M * j->C) * esz, mine, "a slice's k-space");
        if (s == KR_OK) s = kri_device_alloc(&bm, (size_t)(j->N * j->C) * esz, mine, "a slice's maps");
        if (s == KR_OK) s = kri_device_alloc(&bx, (size_t)j->N * esz, mine, "a slice's image");
    }
    for (int64_t sl = s0; sl < s1 && s == KR_OK; sl++) {
        const int64_t mo = j->shared_maps ? 0 : sl * j->N * j->C;
        s = kri_cgs_view(&kv, j->kspace, sl * j->M * j->C, 2, kd);
        if (s == KR_OK) s = kri_cgs_view(&mv, j->maps, mo, j->ndim + 1, md);
        if (s == KR_OK) s = kri_cgs_view(&xv, j->x, sl * j->N, j->ndim, j->dims);
        kr_array *out = &xv, xl;
        if (s == KR_OK && remote) {
            s = kri_memcpy_peer(bk, mine, kv.data, first, kr_array_bytes(&kv), c);
            kv.data = bk, kv.device = mine;
            if (s == KR_OK && (!p || !j->shared_maps))
                s = kri_memcpy_peer(bm, mine, mv.data, first, kr_array_bytes(&mv), c);
            mv.data = bm, mv.device = mine;
            xl = xv;
            xl.data = bx, xl.device = mine;
            if (s == KR_OK && j->sopts.warm_start)
                s = kri_memcpy_peer(bx, mine, xv.data, first, kr_array_bytes(&xv), c);
            out = &xl;
        }
        if (s == KR_OK && (!p || !j->shared_maps)) {
            kr_cgsense_plan_destroy(p);
            p = NULL;
            s = kr_cgsense_plan_create(&p, c, j->ndim, j->dims, j->traj, &mv, j->copts);
        }
        kr_solve_info in;
        memset(&in, 0, sizeof in);
        if (s == KR_OK) s = kr_cgsense_solve(p, &kv, out, &j->sopts, &in);
        if (s == KR_OK && remote) s = kri_memcpy_peer(xv.data, first, bx, mine, kr_array_bytes(&xv), c);
        if (s != KR_OK)
            s = kri_fail_prefix(s, "slice %lld", (long long)sl);
        else if (j->info)
            j->info[sl] = in;
    }
    kr_cgsense_plan_destroy(p);
    kri_device_free(bk);
    kri_device_free(bm);
    kri_device_free(bx);
    return s;
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
    if (C < 1 || (nm != N * C && nm != N * C * nslices))
        return kri_fail(KR_ERR_DIM, "%s: maps have %lld values, not %lld x coils (x %lld slices)",
                        fn, (long long)nm, (long long)N, (long long)nslices);
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
    j.ndim = ndim, j.dims = dims, j.traj = traj, j.maps = maps, j.kspace = kspace;
    j.copts = copts, j.x = x, j.info = info, j.S = nslices, j.C = C, j.N = N;
    j.M = nk / (C * nslices);
    j.shared_maps = shared;
    if (sopts) j.sopts = *sopts;
    else kr_solve_opts_default(&j.sopts);
    j.sopts.history = NULL;
    j.sopts.show_progress = 0;
    kri_parts *parts = NULL;
    KRI_TRY(kri_parts_create(&parts, ctx));
    j.parts = parts;
    j.ss = kri_parts_split(parts, nslices, 1);
    if (!j.ss) {
        kri_parts_destroy(parts);
        return KR_ERR_OOM_HOST;
    }
    kr_progress *pg = kr_progress_begin(ctx, "cgsense slices", 1);
    kr_status s = kri_parts_run(parts, kri_cgs_part, &j);
    kr_progress_add(pg, 1);
    kr_progress_end(pg);
    if (s == KR_OK && parts->nranks > 1) { /* the other processes' slices (and their info) */
        int64_t *el = kri_malloc((size_t)(parts->nglobal + 1) * sizeof *el);
        if (!el) s = kri_fail(KR_ERR_OOM_HOST, "out of host memory for an MPI exchange");
        for (int g = 0; el && g <= parts->nglobal; g++) el[g] = j.ss[g] * N;
        if (el) s = kri_parts_allgather(parts, x->data, loc, kr_dtype_size(KR_C64), el);
        if (s == KR_OK && info) s = kri_parts_allgather(parts, info, KR_HOST, sizeof *info, j.ss);
        kri_free(el);
    }
    kri_free(j.ss);
    kri_parts_destroy(parts);
    return s;
}
