/* Private parts of FDK: the per-view projection matrices and weights, the plan, the CPU
 * kernels (fdk_cpu.c), the out-of-core scheduler (slab.c) and the CUDA launchers
 * (fdk_cuda.cu). Not installed. */
#ifndef KRAY_FDK_INTERNAL_H
#define KRAY_FDK_INTERNAL_H

#include "internal.h"
#include "kray/ct.h"
#include "kray/fdk.h"

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
#define KRI_FDK_NW 16
typedef struct kri_fdk_wv {
    float r0[3], u[3], v[3], n[3], scale, pad[3];
} kri_fdk_wv;

/* ---- the ray-density backprojection (fdk.c; the operator is voxel_bp.c) ---------------------
 * kri_fdk_plan_make (kr_fdk_plan_create_views with bp_only = 1) makes a plan that weights pixel
 * (a, b) of view m by scale |r| / n.r (the reciprocal of FDK's cosine shape; scale = voxel
 * volume / |u x v|) instead of FDK's weights, filters nothing, and backprojects with the FDK
 * kernels (1 / w^2). Its views need not cover any arc nor have the rotation axis between source
 * and detector, and it warns about nothing a projector would accept. */
kr_status kri_fdk_plan_make(kr_fdk_plan **plan, const kr_ctx *ctx, int64_t nu, int64_t nv,
                            const kr_ct_view *views, int64_t nviews, const kr_ct_grid *grid,
                            const kr_fdk_opts *o, int bp_only);
/* vol = that backprojection of proj (the arrays and checks of kr_fdk_backproject). */
kr_status kri_fdk_backproject_density(kr_fdk_plan *p, const kr_array *proj, kr_array *vol);
/* What an execute does to the projections before the backprojection. */
enum { KRI_FDK_RAW = 0, KRI_FDK_FILTER = 1, KRI_FDK_DENSITY = 2 };

/* ---- filter (fdk.c: the one entry into the kray filter module, kray/fbp.h) ----------------- */
typedef struct kri_fdk_filt kri_fdk_filt;
kr_status kri_fdk_filt_create(kri_fdk_filt **f, const kr_ctx *ctx, int64_t nu, int64_t nrows,
                              const kr_fdk_opts *o);
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
typedef struct kri_fdk_cuda kri_fdk_cuda; /* device state (fdk_cuda.cu) */

struct kr_fdk_plan {
    const kr_ctx *ctx;
    kr_backend backend;
    kr_fdk_opts o;
    int64_t nu, nv, nviews;
    kr_ct_grid grid;
    kr_ct_view *views;
    kri_fdk_mat *mat; /* [nviews] */
    kri_fdk_wv *wv;   /* [nviews] */
    float *parker;    /* [nu, nviews] or NULL (full scan) */
    int fast;         /* every view has pu[2] == pw[2] == 0 */
    int bp_only;      /* a ray-density plan (kri_fdk_plan_make): no filter, no view or Parker
                         weights; wv's scale is the voxel volume over the pixel area */
    kr_fdk_info info;
    int64_t budget;   /* resolved gpu_mem */
    int budget_auto;
    /* CPU */
    int cpu_nt;             /* threads at plan creation */
    kr_ctx *cpu_serial;     /* single-threaded ctx of the per-thread filters */
    kri_fdk_filt **cpu_filt; /* cpu_nt filters of nv rows each, unit spacing */
    float *cpu_w;           /* cpu_nt weighted views [nu, nv] */
    float *cpu_q;       /* batch of padded filtered views [(nu + 3) (nv + 3), batch] */
    int64_t cpu_batch;
    float *cpu_scr;     /* backprojection scratch, cpu_scr_threads x kri_cpu_fdk_scratch_floats */
    int cpu_scr_threads;
    /* CUDA */
    kri_fdk_cuda *cu;
};

/* The progress of an execute over `units` views: none for a bp_only plan, an operator that
 * runs inside an iteration with its own progress. */
static inline kr_progress *kri_fdk_progress(const kr_fdk_plan *p, int64_t units)
{
    return p->bp_only ? NULL : kr_progress_begin(p->ctx, "fdk", units);
}

/* CUDA timings of the last in-core execute (one slab, one batch), seconds; 0 otherwise. */
kr_status kri_cuda_fdk_times(const kr_fdk_plan *p, double *t_filter, double *t_bp);

/* Padded CPU view layout: pixel (a, b) at (b + 1) * (nu + 3) + a + 1, zeros around. */
#define KRI_FDK_PADW(nu) ((nu) + 3)
#define KRI_FDK_PADH(nv) ((nv) + 3)

/* ---- CPU kernels (fdk_cpu.c) ------------------------------------------------------------------ */
/* Pre-weight view m of proj (host [nu, nv, nviews]) into w (rows of nu at stride ws; serial):
 * FDK's weights, or a bp_only plan's ray-density weights. */
void kri_cpu_fdk_weight(const kr_fdk_plan *p, const float *proj_view, int64_t m, float *w,
                        int64_t ws);
/* Copy n floats from each of nb views (src + b src_slot -> dst + b dst_slot) with nthreads
 * threads: the pinned staging of host projections for the device. */
void kri_cpu_fdk_stage(float *dst, int64_t dst_slot, const float *src, int64_t src_slot,
                       int64_t nb, int64_t n, int nthreads);
/* Count non-finite values of n floats; *first = index of the first (or -1). */
void kri_cpu_fdk_count_nonfinite(const float *x, int64_t n, int nthreads, int64_t *nnan,
                                 int64_t *ninf, int64_t *first);
/* vol [nx, ny, nz] += sum over views m0 .. m0 + nb - 1 (in order) of the padded filtered views
 * q (view m0 + b at q + b * padw * padh). OpenMP over fixed (z block, y row) items. */
void kri_cpu_fdk_backproject(const kr_fdk_plan *p, const float *q, int64_t m0, int64_t nb,
                             float *vol, int nthreads, float *scratch);
/* Floats of scratch per thread for a volume nx wide (scratch: nthreads x this, 64-byte
 * aligned blocks not needed). */
int64_t kri_cpu_fdk_scratch_floats(int64_t nx);
/* "cpu-avx512" when the AVX-512 kernel runs on this machine, else "cpu". */
const char *kri_cpu_fdk_kernel_name(const kr_fdk_plan *p);

/* ---- CUDA (fdk_cuda.cu) ---------------------------------------------------------------------- */
#define KRI_FDK_VPL 64 /* views per backprojection launch (kernel parameter block) */

kr_status kri_cuda_fdk_create(kr_fdk_plan *p);
void kri_cuda_fdk_destroy(kri_fdk_cuda *cu);
/* Full FDK (KRI_FDK_FILTER), plain (KRI_FDK_RAW) or ray-density (KRI_FDK_DENSITY)
 * backprojection of proj into vol, any locations. */
kr_status kri_cuda_fdk_run(kr_fdk_plan *p, const kr_array *proj, kr_array *vol, int mode);
/* Count non-finite values of n floats on the device. */
kr_status kri_cuda_fdk_count_nonfinite(kr_fdk_plan *p, const float *x, int64_t n,
                                       int64_t *nnan, int64_t *ninf, int64_t *first);
/* Free device memory in bytes (for the auto budget). */
kr_status kri_cuda_fdk_free_bytes(const kr_ctx *ctx, int64_t *bytes);

#ifdef __cplusplus
}
#endif
#endif
