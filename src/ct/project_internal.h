/* What the CT projector's files share: the plan (kr_ct_projector_plan) with its 2-D part
 * (project2d_internal.h) or its cone-beam part (project3d_internal.h), the entry points of the
 * two, and the checks both use. The public front is project.c; project2d.c and project3d.c
 * front the two projectors, projections.c the projection arrays. */
#ifndef KRAY_CT_PROJECT_INTERNAL_H
#define KRAY_CT_PROJECT_INTERNAL_H

#include "core/backend.h"
#include "ct_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KRI_CT3_MAXK 16 /* largest ray factor */

struct kri_ct2_plan; /* project2d_internal.h */
struct kri_ct3_plan; /* project3d_internal.h */
struct kri_ct_backend;
typedef struct kri_ct3m kri_ct3m; /* project3d_multi.c */

struct kr_ct_projector_plan {
    const kr_ctx *ctx;
    kr_loc loc; /* where the plan's arrays live: the ctx's (kri_ctx_loc) */
    kr_ct_geom *geom;
    kr_ct_projector_opts opts;
    struct kri_ct2_plan *p2; /* 2-D geometries */
    struct kri_ct3_plan *p3; /* cone beams */
    /* the backend instance that runs the plan: the table, and the state its create verb made
     * (NULL on the CPU) */
    const struct kri_ct_backend *be;
    void *dev;
    /* a cone beam on a context of several devices: the parts that do the work (project3d_multi.c;
     * the plan itself then has no backend state, dev is NULL) */
    kri_ct3m *multi;
};

/* The backend seam (core/backend.h): a table per projector and backend, kri_ct2_cpu and
 * kri_ct2_cuda (project2d_cpu.c, project2d_cuda.cu; project2d_nocuda.c without CUDA) for 2-D
 * geometries, kri_ct3_cpu and kri_ct3_cuda (project3d_*) for cone beams; the CPU tables take
 * host arrays, the CUDA ones device arrays.
 *   create   the state for plan p (filled but for dev) in *dev; NULL verb: the backend keeps
 *            none; on failure nothing is left
 *   destroy  frees a state (accepts NULL)
 *   forward  out = A in, adjoint out = A^T in, for nb slices (cone beams: 1) of contiguous
 *            arrays checked by the front; they return when the result is ready. */
enum { KRI_CT_RANGE_VIEWS = 0, KRI_CT_RANGE_Z = 1 };
typedef struct kri_ct_range {
    int kind;       /* forward: views; adjoint: KRI_CT_RANGE_Z or KRI_CT_RANGE_VIEWS */
    int64_t r0, r1; /* [r0, r1) */
} kri_ct_range;
typedef struct kri_ct_backend {
    kri_backend_hdr hdr;
    kr_status (*create)(const kr_ct_projector_plan *p, void **dev);
    void (*destroy)(void *dev);
    kr_status (*forward)(const kr_ct_projector_plan *p, void *dev, const void *in, void *out,
                         int64_t nb);
    kr_status (*adjoint)(const kr_ct_projector_plan *p, void *dev, const void *in, void *out,
                         int64_t nb);
    /* Cone beams (NULL for 2-D), the part of a call a divided plan (project3d_multi.c) gives one
     * device; r NULL: the whole call.
     *   forward_part  out's views [r0, r1) = those views of A in (other views untouched)
     *   adjoint_part  KRI_CT_RANGE_Z: out's slices [r0, r1) = those slices of A^T in (other
     *                 slices untouched); KRI_CT_RANGE_VIEWS: out = the backprojection of views
     *                 [r0, r1) alone, the whole volume
     *   adjoint_split the division of the adjoint this backend instance keeps exact:
     *                 KRI_CT_RANGE_Z when a divided adjoint equals the undivided one bit for
     *                 bit, else KRI_CT_RANGE_VIEWS (partial volumes, summed by the caller) */
    kr_status (*forward_part)(const kr_ct_projector_plan *p, void *dev, const void *in,
                              void *out, const kri_ct_range *r);
    kr_status (*adjoint_part)(const kr_ct_projector_plan *p, void *dev, const void *in,
                              void *out, const kri_ct_range *r);
    int (*adjoint_split)(const kr_ct_projector_plan *p, const void *dev);
} kri_ct_backend;
extern const kri_ct_backend kri_ct2_cpu, kri_ct2_cuda, kri_ct3_cpu, kri_ct3_cuda;

/* The 2-D projector (project2d.c): the part of a plan for a 2-D geometry, its backend state
 * included (p holds ctx, loc, opts, the cloned geometry and the table; p->p2 is set even when
 * creation fails, for the destroy), and the checked forward and adjoint. */
kr_status kri_ct2_plan_create(kr_ct_projector_plan *p);
void kri_ct2_plan_destroy(struct kri_ct2_plan *q); /* accepts NULL */
kr_status kri_ct2_forward(const kr_ct_projector_plan *p, const kr_array *img, kr_array *sino);
kr_status kri_ct2_adjoint(const kr_ct_projector_plan *p, const kr_array *sino, kr_array *img);

/* The cone-beam projector (project3d.c), likewise. */
kr_status kri_ct3_plan_create(kr_ct_projector_plan *p);
void kri_ct3_plan_destroy(struct kri_ct3_plan *q); /* accepts NULL */
kr_status kri_ct3_forward(const kr_ct_projector_plan *p, const kr_array *vol, kr_array *proj);
kr_status kri_ct3_adjoint(const kr_ct_projector_plan *p, const kr_array *proj, kr_array *vol);

/* The divided cone-beam projector (project3d_multi.c): create for plan p (its geometry, opts
 * and p3 made; ctx with several devices), run (out = A in, or A^T in with adjoint != 0, arrays
 * checked), destroy (accepts NULL). */
/* The parts' own plans are made and destroyed by the functions project.c hands in (the parts
 * sit above single plans and so do not call into project.c: scripts/check-layout). */
typedef struct kri_ct3_single {
    kr_status (*create)(kr_ct_projector_plan **out, const kr_ctx *ctx, const kr_ct_geom *g,
                        const kr_ct_projector_opts *o);
    void (*destroy)(kr_ct_projector_plan *p);
} kri_ct3_single;
kr_status kri_ct3m_create(kri_ct3m **m, const kr_ct_projector_plan *p,
                          const kri_ct3_single *single);
kr_status kri_ct3m_run(kri_ct3m *m, int adjoint, const kr_array *in, kr_array *out);
void kri_ct3m_destroy(kri_ct3m *m);

/* The operand check of the projectors (project.c): kri_check_operand against the plan's dtype
 * and location, and a device array on the ctx's device. */
kr_status kri_ct_operand(const kr_ct_projector_plan *p, const char *fn, const char *what,
                         const kr_array *a);

/* Projection (or sinogram) dims against the geometry (projections.c): KR_ERR_DIM naming both
 * shapes, and saying so when the data is larger than the detector. */
kr_status kri_ct_proj_shape(const kr_ct_geom *g, const kr_array *a, const char *what);

#ifdef __cplusplus
}
#endif
#endif
