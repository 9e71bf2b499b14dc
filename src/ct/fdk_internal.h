/* Private parts of FDK, shared by its files: the per-view projection matrices and weights, the
 * plan and its backends (the front fdk.c; fdk_cpu.c, fdk_cuda.cu, fdk_nocuda.c), the ramp filter
 * (fdk_filt.c), the out-of-core schedule (slab.c) and the CPU helpers that the CUDA backend
 * uses. Not installed. */
#ifndef KRAY_FDK_INTERNAL_H
#define KRAY_FDK_INTERNAL_H

#include "core/backend.h"
#include "kray/ct.h"
#include "kray/fdk.h"
#include "fdk_bench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- per-view projection -------------------------------------------------------------------
 * Rows u, v and w of the matrix that maps voxel index (i, j, k, 1) of view m to the detector:
 * column u = (pu . x) / w and row v = (pv . x) / w in pixel index units, w = pw . x (lambda: 1
 * on the detector plane, 0 at the source), backprojection weight 1 / w^2. fdk_kern.h evaluates
 * it, once for every kernel (the fast path's column quantities and the general path's voxels).
 */
typedef struct kri_fdk_mat {
    float pu[4], pv[4], pw[4];
} kri_fdk_mat;

/* Per-view pre-weighting parameters (float): the vector from the source to pixel (0, 0),
 * the pixel vectors, the unit normal and the scale (view weight x D / (Dsd |u|)). The weight of
 * pixel (a, b) is scale * n.r / |r| with r = r0 + a u + b v, times parker[a + nu * view]. */
typedef struct kri_fdk_wv {
    float r0[3], u[3], v[3], n[3], scale, pad[3];
} kri_fdk_wv;

/* ---- the ray-density backprojection (fdk.c; the operator is voxel_bp.c) ---------------------
 * kri_fdk_plan_make (kri_fdk_plan_create_views_tuned with bp_only = 1) makes a plan that
 * weights pixel (a, b) of view m by scale |r| / n.r (the reciprocal of FDK's cosine shape;
 * scale = voxel volume / |u x v|) instead of FDK's weights, filters nothing, and backprojects
 * with the FDK kernels (1 / w^2). Its views need not cover any arc nor have the rotation axis
 * between source and detector, and it warns about nothing a projector would accept. */
kr_status kri_fdk_plan_make(kr_fdk_plan **plan, const kr_ctx *ctx, int64_t nu, int64_t nv,
                            const kr_ct_view *views, int64_t nviews, const kr_ct_grid *grid,
                            const kr_fdk_opts *o, const kri_fdk_tune *t, int bp_only);
/* The same for slices [z0, z1) only (0 <= z0 < z1 <= nz; a part of a divided plan). */
kr_status kri_fdk_plan_make_range(kr_fdk_plan **plan, const kr_ctx *ctx, int64_t nu, int64_t nv,
                                  const kr_ct_view *views, int64_t nviews,
                                  const kr_ct_grid *grid, const kr_fdk_opts *o,
                                  const kri_fdk_tune *t, int bp_only, int64_t z0, int64_t z1);
/* vol = that backprojection of proj (the arrays and checks of kr_fdk_backproject). */
kr_status kri_fdk_backproject_density(kr_fdk_plan *p, const kr_array *proj, kr_array *vol);
/* What an execute does to the projections before the backprojection. */
enum { KRI_FDK_RAW = 0, KRI_FDK_FILTER = 1, KRI_FDK_DENSITY = 2 };

/* ---- a plan divided over the devices of its context (fdk_multi.c) ----------------------------
 * Each part holds a plan of its slab of the volume (kri_fdk_plan_make_range on the part's
 * context); an execute runs them all at once. Host arrays are read and written in place by
 * every part; device arrays (on the first device) are read and written in place by parts on
 * that device, and copied to and from the others. */
typedef struct kri_fdkm kri_fdkm;
/* The single-device plans the parts hold, made and destroyed by the functions fdk.c hands in
 * (the parts sit above single plans and so do not call into fdk.c: scripts/check-layout). */
typedef struct kri_fdk_single {
    kr_status (*make_range)(kr_fdk_plan **plan, const kr_ctx *ctx, int64_t nu, int64_t nv,
                            const kr_ct_view *views, int64_t nviews, const kr_ct_grid *grid,
                            const kr_fdk_opts *o, const kri_fdk_tune *t, int bp_only, int64_t z0,
                            int64_t z1);
    void (*destroy)(kr_fdk_plan *plan);
} kri_fdk_single;
kr_status kri_fdkm_create(kri_fdkm **m, kr_fdk_plan *p, const kri_fdk_single *single);
/* proj and vol checked (the census too); mode as the backends' run. */
kr_status kri_fdkm_run(kri_fdkm *m, kr_fdk_plan *p, const kr_array *proj, kr_array *vol,
                       int mode);
/* The census of a divided plan (on its first part). */
kr_status kri_fdkm_census(kri_fdkm *m, const kr_array *proj, int64_t *nnan, int64_t *ninf,
                          int64_t *first);
void kri_fdkm_destroy(kri_fdkm *m); /* accepts NULL */

/* ---- filter (fdk_filt.c: the one entry into the kray filter module, kray/fbp.h) ------------ */
typedef struct kri_fdk_filt kri_fdk_filt;
/* A filter of nrows rows of nu for o's method, window and cutoff; fuse as kri_fdk_tune's. */
kr_status kri_fdk_filt_create(kri_fdk_filt **f, const kr_ctx *ctx, int64_t nu, int64_t nrows,
                              const kr_fdk_opts *o, int fuse);
/* Filter the nrows rows: in row r at in + r * in_stride, out row r at out + r * out_stride
 * (floats, at the plan's location; CUDA runs on the ctx's stream). */
kr_status kri_fdk_filt_run(kri_fdk_filt *f, const float *in, int64_t in_stride, float *out,
                           int64_t out_stride);
/* CUDA FFT filters: the packed work buffer (float pairs, rows of *L; *pad_zero: columns past
 * nu are zero already) that the FDK weighting may fill itself (kri_filter_packed_work), or NULL;
 * then kri_fdk_filt_run_packed filters it into PLAIN rows out (stride os). */
void *kri_fdk_filt_packed(kri_fdk_filt *f, int64_t *L, int *pad_zero);
kr_status kri_fdk_filt_run_packed(kri_fdk_filt *f, float *out, int64_t os);
int64_t kri_fdk_filt_device_bytes(int64_t nu, int64_t nrows, const kr_fdk_opts *o);
void kri_fdk_filt_destroy(kri_fdk_filt *f);

/* ---- out-of-core schedule (slab.c) --------------------------------------------------------- */
typedef struct kri_fdk_slab {
    int64_t z0, nz;   /* slices [z0, z0 + nz) */
    int64_t vb0, nvb; /* detector rows [vb0, vb0 + nvb) that the slab's voxels read */
} kri_fdk_slab;

typedef struct kri_fdk_sched {
    int64_t slab_z;      /* slices per slab (the last may be thinner) */
    int64_t nslabs;
    kri_fdk_slab *slabs; /* nslabs entries (owned) */
    int64_t nbmax;       /* rows per view slot in the batch buffers (even, >= every nvb) */
    int64_t batch;       /* views per batch */
    int64_t bytes;       /* device bytes the schedule needs */
} kri_fdk_sched;

/* Device bytes for a schedule with these sizes (see slab.c for the model). */
int64_t kri_fdk_sched_bytes(const kr_fdk_plan *p, int proj_host, int vol_host, int64_t slab_z,
                            int64_t nbmax, int64_t batch);
/* Rows [vb0, vb0 + nvb) read by the voxels of slices [z0, z0 + nz) in every view (with a margin
 * of two rows for rounding and the bilinear neighbour, clipped to the detector; nvb may be 0). */
void kri_fdk_band(const kr_fdk_plan *p, int64_t z0, int64_t nz, int64_t *vb0, int64_t *nvb);
/* Choose slab thickness and batch size for a budget (opts.slab_z / opts.batch_views force
 * them). budget_auto changes the status of a budget too small for one slice and one view
 * (KR_ERR_OOM_DEVICE instead of KR_ERR_INVALID_ARG). */
kr_status kri_fdk_sched_make(const kr_fdk_plan *p, int proj_host, int vol_host, int64_t budget,
                             int budget_auto, kri_fdk_sched *s);
void kri_fdk_sched_free(kri_fdk_sched *s);

/* ---- plan ------------------------------------------------------------------------------------ */
typedef struct kri_fdk_backend kri_fdk_backend;

struct kr_fdk_plan {
    const kr_ctx *ctx;
    kr_loc loc;       /* where the plan computes: KR_HOST (CPU) or KR_DEVICE (CUDA) */
    kr_fdk_opts o;
    kri_fdk_tune tune;
    int64_t nu, nv, nviews;
    kr_ct_grid grid;
    kr_ct_view *views;
    kri_fdk_mat *mat; /* [nviews] */
    kri_fdk_wv *wv;   /* [nviews] */
    float *parker;    /* [nu, nviews] or NULL (full scan) */
    int fast;         /* every view has pu[2] == pw[2] == 0 */
    int bp_only;      /* a ray-density plan (kri_fdk_plan_make): no filter, no view or Parker
                         weights; wv's scale is the voxel volume over the pixel area */
    int share;        /* plans that share the device's memory (parts of a divided plan on one
                         device: the automatic budget is split between them); 1 otherwise */
    int64_t z0, z1;   /* the slices the plan computes: [0, nz), or a part's slab of a divided
                         plan (backends write slice k at vol->data + (k - z0) nx ny) */
    kr_fdk_info info;
    const kri_fdk_backend *be; /* the backend and the state its create verb made */
    void *state;
    struct kri_fdkm *multi; /* a context of several devices: the parts that do the work
                               (fdk_multi.c; be and state are then NULL) */
};

/* The progress of an execute over `units` views: none for a bp_only plan, an operator that
 * runs inside an iteration with its own progress. */
static inline kr_progress *kri_fdk_progress(const kr_fdk_plan *p, int64_t units)
{
    return p->bp_only ? NULL : kr_progress_begin(p->ctx, "fdk", units);
}

/* ---- backends (core/backend.h) ---------------------------------------------------------------
 * The table of a plan's location: kri_fdk_cpu (fdk_cpu.c) for host plans, kri_fdk_cuda
 * (fdk_cuda.cu; fdk_nocuda.c without CUDA) for device plans. The verbs keep everything they
 * allocate in the state that create returns, so a plan could hold one instance per device.
 *   create   the state of plan p, whose geometry, matrices and weights are set (host: threads,
 *            filters and buffers; CUDA: streams, events and the weight tables on the device;
 *            the schedule's buffers come at the first execute). Fills the plan's info. *state
 *            holds the state as soon as it exists: after a failure, destroy frees the part made.
 *   destroy  frees a state (accepts NULL).
 *   census   counts the non-finite values of the projections, first: index of the first or -1
 *            (proj is at a location the plan accepts, its dims are the plan's).
 *   run      vol = the backprojection of proj after the weighting of mode (KRI_FDK_*): slices
 *            [p->z0, p->z1), which vol holds (its data is slice z0); proj and vol are checked;
 *            records the execute's info (kernel, slabs, times). */
struct kri_fdk_backend {
    kri_backend_hdr hdr;
    kr_status (*create)(kr_fdk_plan *p, void **state);
    void (*destroy)(void *state);
    kr_status (*census)(void *state, const kr_fdk_plan *p, const kr_array *proj, int64_t *nnan,
                        int64_t *ninf, int64_t *first);
    kr_status (*run)(void *state, kr_fdk_plan *p, const kr_array *proj, kr_array *vol, int mode);
};
extern const kri_fdk_backend kri_fdk_cpu, kri_fdk_cuda;

/* ---- CPU helpers (fdk_cpu.c) ----------------------------------------------------------------- */
/* Pre-weight view m of proj (host [nu, nv, nviews]) into w (rows of nu at stride ws; serial):
 * FDK's weights, or a bp_only plan's ray-density weights. */
void kri_cpu_fdk_weight(const kr_fdk_plan *p, const float *proj_view, int64_t m, float *w,
                        int64_t ws);
/* The same for rows [b0, b0 + nb) only, row b0 + r into w + r ws. */
void kri_cpu_fdk_weight_rows(const kr_fdk_plan *p, const float *proj_view, int64_t m, int64_t b0,
                             int64_t nb, float *w, int64_t ws);
/* Copy n floats from each of nb views (src + b src_slot -> dst + b dst_slot) with nthreads
 * threads: the pinned staging of host projections for the device. */
void kri_cpu_fdk_stage(float *dst, int64_t dst_slot, const float *src, int64_t src_slot,
                       int64_t nb, int64_t n, int nthreads);
/* Count non-finite values of n floats; *first = index of the first (or -1). */
void kri_cpu_fdk_count_nonfinite(const float *x, int64_t n, int nthreads, int64_t *nnan,
                                 int64_t *ninf, int64_t *first);

/* ---- CUDA ------------------------------------------------------------------------------------ */
#define KRI_FDK_VPL 64 /* views per backprojection launch (kernel parameter block) */

#ifdef __cplusplus
}
#endif
#endif
