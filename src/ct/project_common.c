/* What the 2-D and the cone-beam projectors share: the method names and the operand check of
 * a projector plan. Apart from project.c so that each projector depends on it, never on the
 * front. */
#include "project_internal.h"

#include <string.h>

const char *kr_ct_method_name(kr_ct_method m)
{
    switch (m) {
    case KR_CT_JOSEPH: return "joseph";
    case KR_CT_SIDDON: return "siddon";
    default: return "invalid";
    }
}

kr_status kr_ct_method_from_name(const char *s, kr_ct_method *m)
{
    KRI_ARG_NOT_NULL(s);
    KRI_ARG_NOT_NULL(m);
    if (!strcmp(s, "joseph")) *m = KR_CT_JOSEPH;
    else if (!strcmp(s, "siddon")) *m = KR_CT_SIDDON;
    else
        return kri_fail(KR_ERR_INVALID_ARG, "unknown projector method '%s' (expected joseph or "
                        "siddon)", s);
    return KR_OK;
}

kr_status kri_ct_operand(const kr_ct_projector_plan *p, const char *fn, const char *what,
                         const kr_array *a)
{
    KRI_TRY(kri_check_operand(fn, what, a, p->opts.dtype, p->loc));
    if (a->loc == KR_DEVICE && a->device != kr_ctx_device(p->ctx))
        return kri_fail(KR_ERR_LOCATION, "%s: %s is on device %d, the context uses device %d", fn,
                        what, a->device, kr_ctx_device(p->ctx));
    return KR_OK;
}
