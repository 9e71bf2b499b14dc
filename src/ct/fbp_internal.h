/* Private contract of the 2-D FBP (kray/fbp.h) between its front fbp.c and its backends
 * fbp_cpu.c and fbp_cuda.cu (fbp_nocuda.c without CUDA). FBP uses the ramp filter
 * (filter_internal.h); the filter uses nothing of FBP. Not installed. */
#ifndef KRAY_FBP_INTERNAL_H
#define KRAY_FBP_INTERNAL_H

#include "ct/filter_internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- per-view parameters ----------------------------------------------------------------------
 * Per-view backprojection parameters in pixel-index space (i along x, j along y), padded
 * detector coordinates (index + KRI_PAD):
 *   PAR:   k = a0 + a1 i + a2 j;                             weight 1
 *   FLAT:  A = a0 + a1 i + a2 j, B = b0 + b1 i + b2 j; k = A / B + k0;       weight 1 / B^2
 *   EQUI:  A, B as FLAT;         k = atan2(A, B) * c + k0;   weight 1 / (A^2 + B^2)
 * View weights, detector spacing, D factors, cosine and Parker weights are in the filter's
 * pre-weights and row scales. */
typedef enum kri_bp_kind { KRI_BP_PAR = 0, KRI_BP_FLAT = 1, KRI_BP_EQUI = 2 } kri_bp_kind;

typedef struct kri_bp_view {
    double a0, a1, a2, b0, b1, b2, k0, c;
} kri_bp_view;

typedef struct kri_fbp_backend kri_fbp_backend;
typedef struct kri_fbp_state kri_fbp_state;

/* ---- plan ---------------------------------------------------------------------------------- */
struct kr_fbp_plan {
    const kr_ctx *ctx;
    kr_loc loc;
    kr_fbp_opts o;
    kr_ct_geom *g;
    kri_bp_kind kind;
    int64_t ndet, nviews, nx, ny;
    kri_bp_view *views; /* host, nviews */
    kr_filter_plan *filter;
    const kri_fbp_backend *be;
    kri_fbp_state *st; /* made by be->create */
    int filtered;      /* kr_fbp_filter ran and kr_fbp_backproject has not consumed it */
    kr_fbp_info info;
};

/* ---- the backend seam (core/backend.h) ------------------------------------------------------
 * A backend's state (one per device) starts with this; the rest is the backend's own. */
struct kri_fbp_state {
    void *pairs;        /* filtered rows at the backend's location: nviews x 2 KRI_PAD_ROW(ndet)
                           values of the dtype, in the filter's PAIRS layout, or PLANAR */
    int planar;         /* 1: the PLANAR layout (filter_internal.h) */
    int groups;         /* views split into this many partial sums (1 = none) */
    const char *kernel; /* the backprojection kernel in use ("cpu", "tiled-flat-f32", ...) */
};
/* create: the state for plan p (views, sizes, dtype and filter made), with its pair buffer and
 *   the tables its backprojection needs; destroy frees it (accepts NULL).
 * backproject: image [nx, ny] at the backend's location (overwritten) from st->pairs.
 * kri_fbp_cpu: fbp_cpu.c; kri_fbp_cuda: fbp_cuda.cu (fbp_nocuda.c without CUDA). */
struct kri_fbp_backend {
    kri_backend_hdr hdr;
    kr_status (*create)(const kr_fbp_plan *p, kri_fbp_state **st);
    kr_status (*backproject)(const kr_fbp_plan *p, kri_fbp_state *st, void *image);
    void (*destroy)(kri_fbp_state *st);
};
extern const kri_fbp_backend kri_fbp_cpu, kri_fbp_cuda;

/* ---- CPU backprojection (fbp_cpu.c) -------------------------------------------------------- */
/* Floats of readable slack after the CPU pair rows (vector loads may run past a row's end). */
#define KRI_CPU_TAIL 64

/* CPU backprojection of filtered rows (stride 2 * KRI_PAD_ROW(ndet) elements per view; f32 rows
 * in the PLANAR layout, f64 rows in the PAIRS layout: fbp_cpu.c)
 * into image [nx, ny] (overwritten); OpenMP over fixed 16-row blocks. simd != 0 allows the
 * AVX2 / AVX-512 parallel-beam row loops and the AVX2 build of the fan-beam coordinate pass
 * where the CPU has them (same bits as the plain loops; tests compare). */
kr_status kri_cpu_fbp_backproject(int f64, kri_bp_kind kind, const kri_bp_view *views,
                                  int64_t nviews, const void *pairs, int64_t ndet, void *image,
                                  int64_t nx, int64_t ny, int clamp, int nthreads, int simd);

#ifdef __cplusplus
}
#endif
#endif
