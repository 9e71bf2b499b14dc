/* kray FDK: cone-beam filtered backprojection (Feldkamp, Davis & Kress 1984) and its fast
 * voxel-driven backprojector, on the CPU and on CUDA, in core or out of core.
 *
 * ---- Geometry -------------------------------------------------------------------------------
 * Units, frame and grid are those of kray/ct.h: lengths in mm, the rotation axis is z through
 * the origin, volumes [x, y, z] (x fastest) of attenuation in 1/mm with voxel (i, j, k) centred
 * at offset_mm + (index - (n - 1) / 2) * voxel_mm per axis. Projections are line integrals
 * (dimensionless) stored [u, v, view] (u fastest). Plans take a cone-beam kr_ct_geom (types
 * cone and cone-vec) or the views themselves: a view is a kr_ct_view with source src, detector
 * centre det and the pixel vectors u and v (mm); pixel (a, b) of a detector with nu x nv pixels
 * sits at det + (a - (nu - 1) / 2) u + (b - (nv - 1) / 2) v. The detector is flat; u is the
 * row direction along which the ramp filter runs (perpendicular to the axis in a circular scan)
 * and v the column direction. Any per-view geometry is accepted; FDK is exact in the mid-plane
 * of a circular scan and the usual approximation elsewhere.
 *
 * ---- Algorithm --------------------------------------------------------------------------------
 * For each view with source S, unit detector normal n (towards the detector), source-detector
 * distance Dsd = n.(det - S), source-axis distance D = n.(A - S) (A = the point of the z axis
 * level with S) and pixel pitch tau = |u|:
 *   1. pre-weighting: p'(a, b) = p(a, b) * cos(a, b) * w_view * parker(a, view) * D / (Dsd tau),
 *      cos = n.(P - S) / |P - S| (the cosine weight D/sqrt(D^2 + s^2 + t^2) in virtual detector
 *      coordinates, so detector offsets are exact);
 *   2. ramp filtering of every detector row along u with the kray filter module (kray/fbp.h:
 *      band-limited Ram-Lak by FFT with a window and cutoff, or direct spatial convolution with
 *      the band-limited Ram-Lak or the seed kernel), with unit spacing (the 1/tau is in step 1);
 *   3. voxel-driven backprojection: every voxel X receives, from every view,
 *      q(u(X), v(X)) / lambda(X)^2, lambda = n.(X - S) / Dsd (the distance weight 1/U^2 up to
 *      the constant (Dsd/D)^2 folded into step 1), with q the filtered projection sampled by
 *      bilinear interpolation at the detector position where the ray S -> X meets the
 *      detector, pixels outside the detector counting as zero.
 * View weights w_view: full scans (views covering 360 degrees) get half the angular gap to
 * their neighbours, divided by 2 (each ray is measured twice): pi / nviews for a uniform scan.
 * Short scans (auto-detected: the views turn monotonically about z by an arc under 360 degrees)
 * get the gap to their neighbours times Parker (1982) weights with delta = (arc - 180 deg) / 2
 * and the fan angle gamma of each detector column measured in the plane z = const, positive in
 * the direction the source moves. The arc runs from the first view to the last. An arc below
 * 180 degrees is KR_ERR_GEOMETRY; an arc below 180 degrees + the fan angle (2 max|gamma|, less
 * one angular step) is accepted with a warning (rays without a conjugate keep weight 1).
 * The result is the attenuation in 1/mm: a uniform object reconstructs to its density.
 *
 * ---- Backends ---------------------------------------------------------------------------------
 * Both backends evaluate, per column (i, j) and view, u, 1/lambda^2 and v at k = 0 once, and per
 * voxel v = v0 + k dv and one bilinear lookup (the z-column register blocking of a circular scan
 * with v along z; other geometries take a general path that recomputes everything per voxel).
 * Samples whose detector row is off the detector (v <= -1 or v >= nv) are exactly zero and are
 * skipped, which never changes a result.
 * cpu-serial / cpu: OpenMP over fixed (z block, row chunk) items, each voxel accumulating the
 *   views in order, so cpu == cpu-serial bit for bit whatever the thread count; an AVX-512 path
 *   (16 columns at a time, 64-bit gathers of the two u neighbours, fused multiply-adds) is
 *   chosen at run time when the processor has it (its results differ from the portable path in
 *   the last bits, and are identical for every thread count on one machine; the environment
 *   variable KRAY_FDK_NO_AVX512=1 forces the portable path).
 * cuda: projections and volume may each be on the host or on the device. The volume is
 *   processed in z slabs and the projections in batches of views (of only the detector rows a
 *   slab needs) so that the plan's working memory stays within opts.gpu_mem bytes; host
 *   projections go through two pinned staging buffers and a second stream, in batches of at
 *   most 32 views, so transfers overlap with the filtering and backprojection of the previous
 *   batch; a host volume comes down through the same buffers in chunks that every CPU thread
 *   copies on while the next chunk transfers; filtered projections never leave the device. Backprojection kernels take 64 views per launch (their matrices in the
 *   constant bank), keep 16 voxels along z per thread in registers, and (smem, smem32) stage
 *   each view's detector footprint of the block in shared memory as (q(a), q(a+1)) pairs. All
 *   CUDA kernels and the CPU's AVX-512 kernel evaluate the same float expressions (fused
 *   multiply-adds in the same places), so the backprojection of identical data is identical;
 *   FDK results differ from the CPU's by the filter's rounding (FFTW against cuFFT) only.
 * Out of core = in core: every voxel sums the same per-view values in the same order whatever
 *   the slab and batch sizes; on the CPU the result is bit-identical; on CUDA it is identical
 *   to float rounding (the FFT filter packs pairs of rows, and a band may pair them
 *   differently), and bit-identical when the slab bands are aligned the same way.
 * Bad input: non-finite projection values are counted before any work (KR_ERR_INVALID_ARG
 *   naming the count of NaN and infinite values and the first one's position; the volume is
 *   untouched); projections whose dims differ from the geometry are KR_ERR_DIM; a gpu_mem
 *   budget too small for one z slice and one view is KR_ERR_INVALID_ARG (KR_ERR_OOM_DEVICE
 *   when the budget is automatic); views that the volume does not fit into (part of the
 *   cylinder inscribed in the volume projects off the detector) are reported with a warning.
 * A plan is not thread-safe: one execute at a time per plan (it owns its buffers).
 */
#ifndef KRAY_FDK_H
#define KRAY_FDK_H

#include "kray/core.h"
#include "kray/ct.h"
#include "kray/fbp.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kr_fdk_opts {
    kr_filter_method filter; /* KR_FILTER_FFT (default), KR_FILTER_DIRECT (band-limited
                                Ram-Lak), KR_FILTER_SEED (-1/(4n^2-1) with its constant) */
    kr_filter_window window; /* KR_WINDOW_RAMLAK (default) ... KR_WINDOW_HANN (fft only) */
    double cutoff;      /* fraction of Nyquist in (0, 1], default 1 (fft only) */
    int short_scan;     /* -1 auto (default), 0 full-scan weights, 1 Parker weights */
    kr_dtype dtype;     /* KR_F32 (the only type supported) */
    int64_t gpu_mem;    /* CUDA working-memory budget in bytes; 0 = auto (90% of the device
                           memory free when the first execute for a combination of array
                           locations allocates the plan's buffers) */
    int64_t batch_views; /* views per batch; 0 = auto (as many as the budget allows) */
    int64_t slab_z;     /* z slices per slab; 0 = auto (as many as the budget allows) */
} kr_fdk_opts;

void kr_fdk_opts_default(kr_fdk_opts *o);

typedef struct kr_fdk_plan kr_fdk_plan;

/* Plan FDK for a cone-beam geometry of kray/ct.h (KR_CT_CONE or KR_CT_CONE_VEC; other types
 * are KR_ERR_GEOMETRY): its views, detector (det_count x det_rows) and volume grid. The same
 * as kr_fdk_plan_create_views with those. */
kr_status kr_fdk_plan_create(kr_fdk_plan **plan, const kr_ctx *ctx, const kr_ct_geom *g,
                             const kr_fdk_opts *o);

/* Plan FDK for nviews views (copied) of an nu x nv flat detector and the volume grid (copied).
 * Validates the geometry (KR_ERR_GEOMETRY naming the view and the problem: degenerate pixel
 * vectors, a detector seen edge-on or behind the source, a volume corner behind the source),
 * computes the per-view matrices and weights, and plans the filter. CUDA plans allocate their
 * device buffers at the first execute for each combination of array locations and keep them
 * (no allocation in steady state). The ctx must outlive the plan. */
kr_status kr_fdk_plan_create_views(kr_fdk_plan **plan, const kr_ctx *ctx, int64_t nu,
                                   int64_t nv, const kr_ct_view *views, int64_t nviews,
                                   const kr_ct_grid *grid, const kr_fdk_opts *o);
void kr_fdk_plan_destroy(kr_fdk_plan *plan); /* accepts NULL */

/* vol = FDK(proj). proj [nu, nv, nviews] and vol [nx, ny, nz], contiguous f32, each on the host
 * or (CUDA plans) on the plan's device; CPU plans need host arrays (KR_ERR_LOCATION). vol is
 * overwritten. CUDA work runs on the ctx's stream and is complete when this returns. */
kr_status kr_fdk_execute(kr_fdk_plan *plan, const kr_array *proj, kr_array *vol);

/* vol = the FDK-weighted voxel-driven backprojection of projections that are already weighted
 * and filtered: vol(X) = sum_views q(u(X), v(X)) / lambda(X)^2 (no view weights, no scaling).
 * The same arrays and locations as kr_fdk_execute. This is the kernel FDK uses; it is not the
 * adjoint of a projector. */
kr_status kr_fdk_backproject(kr_fdk_plan *plan, const kr_array *proj, kr_array *vol);

/* What the plan decided. */
typedef struct kr_fdk_info {
    int short_scan;       /* 1 when Parker weights are used */
    double arc_deg;       /* angle from the first to the last view about z */
    double fan_deg;       /* full fan angle in the plane z = const (2 max|gamma|) */
    int fov_warning;      /* views in which the inscribed cylinder leaves the detector */
    int fast_path;        /* 1: u and lambda do not depend on z (circular scan, v along z) */
    int64_t slabs;        /* CUDA: z slabs of the last execute (1 = in core) */
    int64_t slab_z;       /* CUDA: slices per slab */
    int64_t batch_views;  /* views per batch */
    int64_t device_bytes; /* CUDA: device bytes allocated by the plan (0 before execute) */
    const char *kernel;   /* backprojection kernel of the last execute, or "cpu"/"cpu-avx512" */
    double t_filter_s;    /* last execute: seconds spent weighting and filtering (CPU; CUDA:
                             measured with events when it ran in core, else 0) */
    double t_backproject_s; /* last execute: seconds spent backprojecting (as t_filter_s) */
} kr_fdk_info;
kr_status kr_fdk_plan_info(const kr_fdk_plan *plan, kr_fdk_info *info);

/* A plan for slices [z0, z1) of g's volume alone (one process's share of a divided run,
 * docs/scaling.md, or a volume too large for memory): it reads only the detector rows
 * [*row0, *row0 + *rows) those slices see (projections [nu, *rows, nviews]) and gives the
 * volume [nx, ny, z1 - z0]. The slab's geometry is the whole one re-expressed around the slab
 * (detector centres moved to the rows' centre, the volume offset to the slab's), so its values
 * equal the whole volume's slices to float rounding. The weights (cosine, view, Parker) are
 * the whole scan's. It gives no field-of-view warning (check the whole geometry with
 * kr_ct_geom_check_fov). */
kr_status kr_fdk_plan_create_slab(kr_fdk_plan **plan, const kr_ctx *ctx, const kr_ct_geom *g,
                                  const kr_fdk_opts *o, int64_t z0, int64_t z1, int64_t *row0,
                                  int64_t *rows);

/* One-shot: plan, execute, destroy. */
kr_status kr_fdk(const kr_ctx *ctx, const kr_ct_geom *g, const kr_fdk_opts *o,
                 const kr_array *proj, kr_array *vol);
kr_status kr_fdk_views(const kr_ctx *ctx, int64_t nu, int64_t nv, const kr_ct_view *views,
                       int64_t nviews, const kr_ct_grid *grid, const kr_fdk_opts *o,
                       const kr_array *proj, kr_array *vol);

#ifdef __cplusplus
}
#endif
#endif
