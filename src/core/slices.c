/* Independent slices over the parts of a context (parts.h, kri_parts_slices): each part works
 * through its range of slices one by one, a part off the first device on copies of each
 * slice's operands on its own device; across MPI processes the outputs are exchanged. */
#include "parts.h"

#include <string.h>

typedef struct kri_sl_job {
    const kri_parts *p;
    int64_t *split;
    kri_slice_arg *args;
    int nargs;
    kri_slice_fn fn;
    void *user;
} kri_sl_job;

static kr_status kri_sl_part(void *u, int i, const kr_ctx *c)
{
    kri_sl_job *j = u;
    const int g = j->p->g0 + i;
    const int64_t s0 = j->split[g], s1 = j->split[g + 1];
    if (s1 <= s0) return KR_OK;
    const int remote = kri_part_remote(j->p, i, j->args[0].a->loc);
    const int mine = kr_ctx_device(c), first = kr_ctx_device(j->p->parent);
    kr_array v[KRI_SLICE_MAX_ARGS];
    void *buf[KRI_SLICE_MAX_ARGS] = {NULL};
    kr_status s = KR_OK;
    for (int64_t sl = s0; sl < s1 && s == KR_OK; sl++) {
        for (int a = 0; a < j->nargs && s == KR_OK; a++) {
            const kri_slice_arg *A = &j->args[a];
            s = kr_array_wrap(&v[a], A->a->dtype, A->nd, A->dims, A->a->data, A->a->loc);
            const size_t bytes = kr_array_bytes(&v[a]);
            char *at = (char *)A->a->data + (A->per_slice ? (size_t)sl * bytes : 0);
            v[a].data = at;
            v[a].device = A->a->device;
            if (s != KR_OK || !remote) continue;
            if (!buf[a]) s = kri_device_alloc(&buf[a], bytes, mine, "a slice's operand");
            const int copy_in = A->in && (A->per_slice || sl == s0);
            if (s == KR_OK && copy_in) s = kri_memcpy_peer(buf[a], mine, at, first, bytes, c);
            v[a].data = buf[a];
            v[a].device = mine;
        }
        if (s == KR_OK) s = j->fn(j->user, i, c, sl, v);
        for (int a = 0; a < j->nargs && s == KR_OK && remote; a++) {
            const kri_slice_arg *A = &j->args[a];
            if (!A->out) continue;
            const size_t bytes = kr_array_bytes(&v[a]);
            s = kri_memcpy_peer((char *)A->a->data + (size_t)sl * bytes, first, buf[a], mine,
                                bytes, c);
        }
        if (s != KR_OK) s = kri_fail_prefix(s, "slice %lld", (long long)sl);
    }
    for (int a = 0; a < j->nargs; a++) kri_device_free(buf[a]);
    kr_status e = j->fn(j->user, i, c, -1, NULL); /* the part's end: its state released */
    return s != KR_OK ? s : e;
}

kr_status kri_parts_slices(const kr_ctx *ctx, int64_t nslices, kri_slice_arg *args, int nargs,
                           kri_slice_fn fn, void *user)
{
    if (nargs < 1 || nargs > KRI_SLICE_MAX_ARGS)
        return kri_fail(KR_ERR_INTERNAL, "kri_parts_slices: %d operands", nargs);
    for (int a = 0; a < nargs; a++) /* an output is written slice by slice */
        if (args[a].out && !args[a].per_slice)
            return kri_fail(KR_ERR_INTERNAL, "kri_parts_slices: output %d is not per slice", a);
    kri_parts *p = NULL;
    KRI_TRY(kri_parts_create(&p, ctx));
    kri_sl_job j = {p, kri_parts_split(p, nslices, 1), args, nargs, fn, user};
    kr_status s = j.split ? kri_parts_run(p, kri_sl_part, &j) : KR_ERR_OOM_HOST;
    /* the other processes' slices of every output */
    for (int a = 0; a < nargs && s == KR_OK && p->nranks > 1; a++) {
        if (!args[a].out || !args[a].per_slice) continue;
        kr_array v;
        s = kr_array_wrap(&v, args[a].a->dtype, args[a].nd, args[a].dims, args[a].a->data,
                          KR_HOST);
        if (s == KR_OK)
            s = kri_parts_allgather(p, args[a].a->data, args[a].a->loc, kr_array_bytes(&v),
                                    j.split);
    }
    kri_free(j.split);
    kri_parts_destroy(p);
    return s;
}
