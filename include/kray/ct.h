/* kray CT geometry and projectors.
 *
 * ---- Conventions (fixed once; the cone-beam geometry extends them to 3-D) -------------------
 * Units: millimetres for every length, degrees for angles in the physical description and in
 *   JSON; attenuation images are in 1/mm, so projections (line integrals) are dimensionless.
 * Frame: right-handed x, y, z in mm; the rotation axis is z through the origin.
 * Image grid [x, y] (volume [x, y, z]), x fastest: pixel (i, j) has its centre at
 *   x_i = offset_mm[0] + (i - (n[0] - 1) / 2) * voxel_mm[0],
 *   y_j = offset_mm[1] + (j - (n[1] - 1) / 2) * voxel_mm[1],
 *   so offset_mm is the centre of the grid and j grows with y (y points "up" the rows, as the
 *   phantom module's images). A pixel is the square [x_i -/+ dx/2] x [y_j -/+ dy/2].
 * Scan angle theta (degrees, counter-clockwise seen from +z, i.e. from +x towards +y):
 *   e_u(theta) = (cos theta, sin theta)    detector u direction,
 *   e_d(theta) = (-sin theta, cos theta)   ray direction, from the source to the detector.
 *   At theta = 0 the source is on the -y side, rays travel towards +y, and detector index u
 *   grows with x; looking from the source along the rays, u runs to the right and (in 3-D) v
 *   runs up (+z).
 *   Parallel beam: the ray through detector coordinate s (mm from the detector centre) is the
 *   line x cos theta + y sin theta = s + det_offset_mm - cor_offset_mm; with zero offsets this
 *   is the usual Radon convention (and that of kr_phantom_sinogram, in mm).
 * Detector pixels: pixel k (0-based) of a detector with N pixels sits at coordinate
 *   s_k = (k - (N - 1) / 2) * pitch from the detector centre, along u.
 * Data layouts (dims fastest first): sinograms [det, view] (optionally [det, view, batch]),
 *   2-D images [x, y] (optionally [x, y, batch]); cone-beam projections [u, v, view] and
 *   volumes [x, y, z] (voxel (i, j, k) centred as the pixels above, with z_k likewise).
 *
 * ---- Per-view vector form --------------------------------------------------------------------
 * Every geometry is held as one kr_ct_view per view (source or ray direction, detector centre,
 * pixel vectors u and v), in the spirit of ASTRA's vector geometries, so any scanner can be
 * described; the builders turn physical parameters into views.
 *   parallel:    ray = direction of the rays (any length, normalised internally),
 *                det = a point on the detector line (its centre), u = pixel step (mm vector).
 *                The rays are full lines.
 *   flat fan:    src = source, det = detector centre, u = pixel step; pixel k is at
 *                det + (k - (N-1)/2) u and its ray is the line from src through it.
 *   equiangular: a detector on the arc of radius R = |det - src| centred on the source: det =
 *                the arc point at fan angle 0, u = tangent there with |u| = arc length of one
 *                pixel; pixel k is at fan angle gamma_k = (k - (N-1)/2) |u| / R, positive
 *                towards u: src + R (cos gamma_k n + sin gamma_k u/|u|), n = (det - src) / R.
 *   Fan rays are half-lines from the source; the geometry is valid only when the whole image
 *   (grown by one pixel) lies in front of the source in every view, so they meet the image
 *   exactly where the full lines do.
 *   cone (flat detector, 3-D): src = source, det = detector centre, u and v = one detector
 *                pixel along the detector's columns and rows (mm vectors, not necessarily
 *                orthogonal, any length); pixel (a, b) (0-based, a along u, b along v) is
 *                centred at det + (a - (Nu-1)/2) u + (b - (Nv-1)/2) v and its ray is the
 *                half-line from src through that point. As for fans, the volume grown by one
 *                voxel must lie in front of the source (on the detector's side of the plane
 *                through src parallel to the detector) in every view.
 *
 * ---- Circular cone beam (KR_CT_CONE) ---------------------------------------------------------
 * The 2-D fan extended along z: at angle theta, with e_u, e_d as above and e_z = (0, 0, 1),
 *   src = -sod e_d - cor e_u,
 *   det = (sdd - sod) e_d + (det_offset - cor) e_u + det_offset_v e_z,
 *   u = det_spacing e_u,   v = det_spacing_v e_z.
 * So the source circle lies in the plane z = 0, the detector rows are horizontal, row index b
 * grows with +z, column index a with e_u (to the right seen from the source; at theta = 0, +x).
 * A full scan is 360 degrees; a short scan covers 180 degrees plus the fan angle
 * (kr_ct_scan_short_arc_deg). The volume is the grid [x, y, z] with its own voxel sizes and
 * offset (anisotropic voxels and off-centre volumes are allowed). Projections are [u, v, view].
 * Per-view ("cone-vec", KR_CT_CONE_VEC) geometries give src, det, u and v for every view and
 * describe any scanner (tilted or rotated detectors, non-circular orbits, C-arms).
 *
 * ---- Projectors (2-D; cone beam: see the next part) -------------------------------------------
 * kr_ct_projector_forward computes line integrals (mm x image value) through the pixel image;
 * kr_ct_projector_adjoint is its exact transpose (the matched backprojector), computed as a
 * pixel-driven gather on every backend, so each output value is written by one thread and the
 * threaded CPU result is bit-identical to the serial one. Methods:
 *   KR_CT_JOSEPH: Joseph (1982): a ray that crosses at least as many columns as rows per mm
 *     (|d_x| / dx >= |d_y| / dy for its unit direction d) is sampled once at every pixel
 *     column x_i, with linear interpolation between the two nearest rows (zero outside the
 *     image), each sample weighted by the path length per column dx / |d_x| (mm); other rays
 *     likewise with rows and columns swapped.
 *   KR_CT_SIDDON: exact intersection lengths of the ray with each pixel square (Siddon 1985);
 *     a ray running exactly along a pixel edge counts for the pixel of larger index.
 * Arithmetic is in the plan's precision (f32 plans compute in float, f64 in double). The CPU
 * and CUDA back ends share the arithmetic, so they agree to float rounding. A plan is
 * read-only after creation: forward and adjoint may run concurrently on different arrays.
 * CUDA calls run on the ctx's stream and return when the result is ready.
 *
 * ---- Cone-beam projectors (3-D geometries) ---------------------------------------------------
 * The same kr_ct_projector_plan API, with volumes [x, y, z] and projections [u, v, view] (exactly
 * these three dims; no batch). Projection (a, b, view) is the mean of the line integrals (mm x
 * voxel value) along k x k sub-rays through the pixel, k = opts.ray_factor (0 or 1: the one
 * ray through the pixel centre); sub-ray (s, t) passes through the detector point at
 * (a + (2s + 1 - k) / (2k), b + (2t + 1 - k) / (2k)) pixels. The adjoint is the exact
 * transpose of this (the matched ray-driven backprojector, k^2 sub-rays per pixel), NOT an FDK
 * backprojector (no distance weighting: that is the fdk module's voxel-driven one).
 *   KR_CT_JOSEPH: a ray whose direction d (index units: d_x / dx, d_y / dy, d_z / dz) is
 *     largest along axis A (ties: x before y before z) is sampled at every voxel plane of A
 *     (the planes through voxel centres), with bilinear interpolation in the other two axes
 *     (zero outside the volume), each sample weighted by the path length per plane (mm).
 *     Minor axes: x-major rays interpolate in (y, z), y-major in (x, z), z-major in (x, y).
 *   KR_CT_SIDDON: exact intersection lengths of the ray with each voxel box (Siddon 1985); a ray
 *     running exactly along a voxel face counts for the voxel of larger index.
 * Back ends: the CPU forward is parallel over detector rows, the CPU adjoint over z slabs of
 * the volume (each thread walks the rays that can reach its slab and adds only into it, every
 * voxel summing its contributions in the same order), so CPU results are bit-identical for any
 * thread count. CUDA: one thread per detector pixel (warps along u); the Joseph kernels read and
 * scatter through zero-padded copies of the volume (a transposed copy for x-major rays, so
 * neighbouring threads touch neighbouring addresses). The CUDA adjoint accumulates with float
 * (or double) atomicAdd, so it is deterministic only to rounding: two runs may differ in the
 * last bits (about 1e-7 relative in f32). CPU and CUDA agree to rounding (the CUDA kernels
 * evaluate sample positions with fused multiply-adds). Matched by construction: both
 * directions run the same ray set-up, visit the same samples or voxels, and (CPU forward, both
 * adjoints) use the same weight numbers; the CUDA Joseph forward evaluates the same bilinear
 * interpolation in lerp form, so on CUDA forward and adjoint are transposes to rounding. 3-D
 * CUDA plans own device work space (two padded volumes for Joseph; the f32 forward also keeps
 * them as float2 pairs along the fast axis, twice their size, allocated with the plan and
 * skipped when the device has no room), so calls on one 3-D CUDA plan are serialised by a lock;
 * different plans run concurrently. The CUDA forward projector is deterministic. Creating a
 * cone-beam plan runs kr_ct_geom_check_fov (one warning through the ctx when the volume is not
 * entirely inside the field of view).
 */
#ifndef KRAY_CT_H
#define KRAY_CT_H

#include "kray/core.h"
#include "kray/linop.h"
#include "kray/phantom.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- geometry types ------------------------------------------------------------------------ */
typedef enum kr_ct_type {
    KR_CT_TYPE_INVALID = 0,
    KR_CT_PARALLEL2D,        /* "parallel2d" */
    KR_CT_FAN2D_FLAT,        /* "fan2d-flat" */
    KR_CT_FAN2D_EQUIANGULAR, /* "fan2d-equiangular" */
    KR_CT_CONE,              /* "cone": circular cone beam, flat detector, from parameters */
    KR_CT_CONE_VEC,          /* "cone-vec": cone beam, flat detector, one vector set per view */
    KR_CT_TYPE_COUNT
} kr_ct_type;

const char *kr_ct_type_name(kr_ct_type t);                 /* "parallel2d", ...; "invalid" */
kr_status kr_ct_type_from_name(const char *s, kr_ct_type *t);
int kr_ct_type_ndim(kr_ct_type t);        /* 2 for the 2-D types, 3 for cone beam, 0 invalid */
int kr_ct_type_is_cone(kr_ct_type t);     /* KR_CT_CONE or KR_CT_CONE_VEC */
int kr_ct_type_is_parallel(kr_ct_type t); /* rays share a direction per view (no source) */

/* Image / volume grid (2-D: n[2] = 1; voxel_mm[2] and offset_mm[2] are ignored; 3-D: all three
 * axes, voxels may be anisotropic and the grid centre anywhere). */
typedef struct kr_ct_grid {
    int64_t n[3];        /* pixels along x, y, z */
    double voxel_mm[3];  /* pixel size along x, y, z (> 0) */
    double offset_mm[3]; /* position of the grid centre */
} kr_ct_grid;

/* Square 2-D grid of n x n pixels of size voxel_mm centred on the rotation axis. */
void kr_ct_grid_2d(kr_ct_grid *g, int64_t nx, int64_t ny, double voxel_mm);
/* 3-D grid of nx x ny x nz cubic voxels of size voxel_mm centred on the origin. */
void kr_ct_grid_3d(kr_ct_grid *g, int64_t nx, int64_t ny, int64_t nz, double voxel_mm);

/* Physical description of a circular scan. Use kr_ct_scan_default, then set the fields.
 *   angles: angles_deg (nviews values) when not NULL, else uniform:
 *           theta_i = start_deg + i * (stop_deg - start_deg) / nviews (stop exclusive);
 *   det_offset_mm: the detector is shifted by this along +u (source and axis stay); for the
 *           equiangular detector it is an arc length (the detector turns about the source by
 *           det_offset_mm / sdd_mm radians);
 *   cor_offset_mm: the rotation axis lies this far along +u from the central ray (source and
 *           detector together shifted by -cor_offset_mm along u); for parallel beams the axis
 *           then projects at s = cor_offset_mm - det_offset_mm from the detector centre;
 *   sod_mm, sdd_mm: source-to-axis and source-to-detector(-centre) distances (fan and cone,
 *           0 < sod_mm < sdd_mm); for the equiangular detector sdd_mm is the arc radius and
 *           det_spacing_mm the arc length of one pixel (angular pitch det_spacing_mm/sdd_mm).
 * Cone beam (KR_CT_CONE) also uses the detector rows: det_rows (>= 1), det_spacing_v_mm (row
 * pitch; 0 = det_spacing_mm, square pixels) and det_offset_v_mm (detector shift along +z). For
 * the 2-D types these three must stay 0 (det_rows may be 1). A short scan is start_deg to
 * start_deg + kr_ct_scan_short_arc_deg(); angles may be any values (e.g. 0..360 for a full
 * scan, stop exclusive) within +-1e6 degrees.
 * Magnitudes (every geometry, also from views and JSON): lengths, offsets and view-vector
 * components at most 1e6 mm in magnitude; pixel and voxel sizes and sod_mm in 1e-6..1e6 mm;
 * and the image plus the projections, as float32, must fit in the machine's physical memory
 * (KR_ERR_OOM_HOST saying how much is needed and how much there is). */
typedef struct kr_ct_scan {
    kr_ct_type type;
    int64_t nviews;
    const double *angles_deg; /* NULL: uniform from start_deg to stop_deg */
    double start_deg, stop_deg;
    int64_t det_count;        /* detector pixels along u */
    double det_spacing_mm;    /* pixel pitch along u */
    double det_offset_mm;
    double cor_offset_mm;
    double sod_mm, sdd_mm;
    int64_t det_rows;         /* cone: detector pixels along v */
    double det_spacing_v_mm;  /* cone: pixel pitch along v (0 = det_spacing_mm) */
    double det_offset_v_mm;   /* cone: detector shifted by this along +z (+v) */
} kr_ct_scan;

/* Defaults: parallel2d, 180 uniform views over [0, 180) degrees, det_count 0 (must be set),
 * det_spacing_mm 1, offsets 0, sod_mm = sdd_mm = 0 (must be set for fan and cone types),
 * det_rows 0 (must be set for cone), det_spacing_v_mm 0 (= det_spacing_mm). */
void kr_ct_scan_default(kr_ct_scan *s);

/* Arc of a short scan for fan and cone beams: 180 degrees plus the full fan angle, 2 atan(h /
 * sdd_mm) with h the largest distance along u from the central ray (the point of the detector
 * line nearest the source) to the outer edge of an outermost pixel, so offset detectors get
 * the arc of their wider side. KR_ERR_INVALID_ARG for parallel beams or invalid fields. */
kr_status kr_ct_scan_short_arc_deg(const kr_ct_scan *s, double *arc_deg);

/* One view in vector form (see the header comment). Unused vectors are zero; 2-D geometries
 * use the x and y components and keep z = 0 and v = 0; cone views have src, det, u, v (ray 0). */
typedef struct kr_ct_view {
    double src[3]; /* source position (fan / cone) */
    double ray[3]; /* ray direction (parallel) */
    double det[3]; /* detector centre */
    double u[3];   /* one detector pixel along u (mm vector) */
    double v[3];   /* one detector pixel along v (3-D only) */
} kr_ct_view;

typedef struct kr_ct_geom kr_ct_geom;

/* Build from physical parameters; validation failures are KR_ERR_GEOMETRY (values) or
 * KR_ERR_INVALID_ARG (NULL / unknown type) with a sentence naming the field. Types: the 2-D
 * types and KR_CT_CONE. Cone validation (KR_ERR_GEOMETRY): a view whose detector centre
 * coincides with the source or whose detector plane contains the source (degenerate
 * source-detector distance), u or v zero or parallel, non-finite vectors, the volume grown by
 * one voxel not in front of the source. A volume that is not entirely inside the field of view
 * is not an error: see kr_ct_geom_check_fov. */
kr_status kr_ct_geom_create(kr_ct_geom **g, const kr_ct_scan *scan, const kr_ct_grid *grid);
/* Build from explicit views (copied); det_count pixels along u. 2-D types only. */
kr_status kr_ct_geom_create_views(kr_ct_geom **g, kr_ct_type type, int64_t det_count,
                                  const kr_ct_view *views, int64_t nviews,
                                  const kr_ct_grid *grid);
/* Build a 3-D geometry from explicit views (copied): type KR_CT_CONE_VEC, a detector of
 * det_count columns (u) by det_rows rows (v). */
kr_status kr_ct_geom_create_views3d(kr_ct_geom **g, kr_ct_type type, int64_t det_count,
                                    int64_t det_rows, const kr_ct_view *views, int64_t nviews,
                                    const kr_ct_grid *grid);
kr_status kr_ct_geom_clone(kr_ct_geom **out, const kr_ct_geom *g);
void kr_ct_geom_destroy(kr_ct_geom *g); /* accepts NULL */

kr_ct_type kr_ct_geom_type(const kr_ct_geom *g);
int64_t kr_ct_geom_nviews(const kr_ct_geom *g);
int64_t kr_ct_geom_det_count(const kr_ct_geom *g);
int64_t kr_ct_geom_det_rows(const kr_ct_geom *g); /* 1 for 2-D geometries */
const kr_ct_view *kr_ct_geom_views(const kr_ct_geom *g);  /* nviews entries, owned by g */
const kr_ct_grid *kr_ct_geom_grid(const kr_ct_geom *g);
/* The physical description when g was built from one (angles_deg then points to nviews
 * angles owned by g, also for uniform scans); KR_ERR_NOT_SUPPORTED for vector geometries. */
kr_status kr_ct_geom_scan(const kr_ct_geom *g, kr_ct_scan *scan);
/* Expected array dims (returns ndim): 2-D sinogram {det_count, nviews}, image {n[0], n[1]};
 * 3-D projections {det_count, det_rows, nviews}, volume {n[0], n[1], n[2]}. */
int kr_ct_geom_sino_dims(const kr_ct_geom *g, int64_t *dims);
int kr_ct_geom_image_dims(const kr_ct_geom *g, int64_t *dims);

/* Field of view (cone geometries): counts the views in which part of the volume box projects
 * outside the detector (those parts are seen from some directions only: truncation). When the
 * count is not 0, logs one warning through ctx (may be NULL: default level) naming the first
 * such view and the extent of the volume's shadow in detector pixels. *views_truncated may be
 * NULL. KR_ERR_NOT_SUPPORTED for 2-D geometries. Projector plans call this once. */
kr_status kr_ct_geom_check_fov(const kr_ct_geom *g, const kr_ctx *ctx, int64_t *views_truncated);

/* Check a projection (or sinogram) array against a geometry before using it: dims must be those
 * of kr_ct_geom_sino_dims (trailing 1s ignored; KR_ERR_DIM naming both shapes, and saying so
 * when the data is larger than the detector), dtype f32 or f64 (KR_ERR_DTYPE), contiguous, and
 * every value finite: otherwise KR_ERR_INVALID_ARG with the counts of NaN and infinite values
 * and the position of the first one. Host arrays need no ctx (ctx may be NULL); device arrays
 * need the CUDA ctx of their device. */
kr_status kr_ct_check_projections(const kr_ct_geom *g, const kr_array *proj, const kr_ctx *ctx);

/* ---- JSON ---------------------------------------------------------------------------------
 * A geometry file is one JSON object (strict RFC 8259; unknown fields are errors):
 *   "type":           "parallel2d" | "fan2d-flat" | "fan2d-equiangular"        (required)
 *   "det_count":      integer >= 1                                                (required)
 *   "image":          { "size": [nx, ny], "voxel_mm": [dx, dy] or d,
 *                       "offset_mm": [x, y] (default [0, 0]) }                    (required)
 * then either the physical description
 *   "angles_deg":     [a0, a1, ...] or { "start": a, "stop": b, "count": n }      (required)
 *   "det_spacing_mm": number > 0                                                  (required)
 *   "det_offset_mm", "cor_offset_mm": numbers (default 0)
 *   "sod_mm", "sdd_mm": numbers, required for fan types and refused for parallel2d
 * or the vector form (none of the physical fields then)
 *   "views": [ { "ray": [x, y], "det": [x, y], "u": [x, y] }, ... ]   (parallel2d)
 *   "views": [ { "src": [x, y], "det": [x, y], "u": [x, y] }, ... ]   (fan types)
 * and optionally "version": 1 (always written).
 * Cone beam (3-D) uses the same fields with 3-element vectors:
 *   "type":           "cone" (physical description) or "cone-vec" (views)         (required)
 *   "det_count":      integer >= 1, detector columns (u)                          (required)
 *   "det_rows":       integer >= 1, detector rows (v); refused for 2-D types      (required)
 *   "image":          { "size": [nx, ny, nz], "voxel_mm": [dx, dy, dz] or d,
 *                       "offset_mm": [x, y, z] (default [0, 0, 0]) }              (required)
 *   "cone":     "angles_deg" (as above), "sod_mm", "sdd_mm"                       (required)
 *               "det_spacing_mm": d (square pixels) or [du, dv]                   (required)
 *               "det_offset_mm": [ou, ov] (default [0, 0]), "cor_offset_mm": c    (optional)
 *   "cone-vec": "views": [ { "src": [x, y, z], "det": [x, y, z], "u": [x, y, z],
 *                            "v": [x, y, z] }, ... ]                              (required)
 *               (no physical fields; "views" with type "cone" is an error naming "cone-vec")
 * A "cone" geometry written with explicit_views becomes a "cone-vec" file.
 * Syntax errors, missing, unknown or mistyped fields are
 * KR_ERR_FORMAT with a sentence naming the field (and its line and column); well-formed files
 * with invalid values (negative spacing, source inside the image) are KR_ERR_GEOMETRY.
 * Numbers are written so that they read back to the same doubles: a geometry written and read
 * again has bit-identical views. */
kr_status kr_ct_geom_read_json(kr_ct_geom **g, const char *path);
kr_status kr_ct_geom_parse_json(kr_ct_geom **g, const char *text, size_t len, const char *name);
/* explicit_views != 0 writes the vector form even for a scan built from parameters. */
kr_status kr_ct_geom_write_json(const kr_ct_geom *g, const char *path, int explicit_views);
/* Into buf (cap bytes, NUL-terminated). *needed receives the length without the NUL; buf may
 * be NULL with cap 0 to ask for the size (returns KR_OK); too small a buffer is
 * KR_ERR_INVALID_ARG. */
kr_status kr_ct_geom_to_json(const kr_ct_geom *g, int explicit_views, char *buf, size_t cap,
                             size_t *needed);

/* Parse "start:stop:count" (degrees, stop exclusive, count >= 1, start != stop unless count
 * is 1), e.g. "0:180:720" -> 720 angles 0, 0.25, ..., 179.75. */
kr_status kr_ct_angles_parse(const char *spec, double *start_deg, double *stop_deg,
                             int64_t *count);

/* ---- projectors ---------------------------------------------------------------------------- */
typedef enum kr_ct_method {
    KR_CT_JOSEPH = 0, /* linear interpolation along the major axis (default) */
    KR_CT_SIDDON      /* exact intersection lengths */
} kr_ct_method;

const char *kr_ct_method_name(kr_ct_method m); /* "joseph", "siddon" */
kr_status kr_ct_method_from_name(const char *s, kr_ct_method *m);

typedef struct kr_ct_projector_opts {
    kr_ct_method method; /* default KR_CT_JOSEPH */
    kr_dtype dtype;      /* KR_F32 (default) or KR_F64: arrays must have this type */
    int ray_factor;      /* 3-D only: k x k sub-rays per detector pixel, 1 <= k <= 16 (0 = 1);
                            2-D plans accept only 0 or 1 */
} kr_ct_projector_opts;

void kr_ct_projector_opts_default(kr_ct_projector_opts *o);

typedef struct kr_ct_projector_plan kr_ct_projector_plan;

/* Plan a projector for geometry g (copied) on the ctx's backend (the ctx must outlive the
 * plan). CUDA plans keep the per-view parameters on the device; their arrays must be device
 * arrays, CPU plans' host arrays (KR_ERR_LOCATION otherwise). */
kr_status kr_ct_projector_plan_create(kr_ct_projector_plan **p, const kr_ctx *ctx, const kr_ct_geom *g,
                                 const kr_ct_projector_opts *o);
void kr_ct_projector_plan_destroy(kr_ct_projector_plan *p); /* accepts NULL */

/* sino = A image. image [nx, ny] or [nx, ny, nb]; sino [det, view] or [det, view, nb];
 * sino is overwritten. 3-D: image [nx, ny, nz], sino (projections) [u, v, view]. */
kr_status kr_ct_projector_forward(const kr_ct_projector_plan *p, const kr_array *image,
                                  kr_array *sino);
/* image = A^T sino (the matched backprojector; image is overwritten). */
kr_status kr_ct_projector_adjoint(const kr_ct_projector_plan *p, const kr_array *sino,
                                  kr_array *image);

const kr_ct_geom *kr_ct_projector_geom(const kr_ct_projector_plan *p);

/* The projector as a kr_linop (see kray/linop.h): domain [nx, ny] ([nx, ny, nz]), codomain
 * [det, view] ([u, v, view]), the dtype of opts and the location of the ctx's backend. Needs
 * the solve module. */
kr_status kr_ct_linop_create(kr_linop **op, const kr_ctx *ctx, const kr_ct_geom *g,
                             const kr_ct_projector_opts *o);

/* The voxel-driven backprojector B as an operator (for SIRT, kr_sirt_plan_create_pair): domain
 * the projections [u, v, view], codomain the volume [x, y, z], f32, at the ctx's location, for
 * a cone geometry (KR_CT_CONE or KR_CT_CONE_VEC, else KR_ERR_GEOMETRY). For voxel centre X:
 *     (B y)(X) = sum over views  q(u(X), v(X)) * (D / t)^2,   q = y * (V / A) * |r| / D
 * with q, the pixels weighted at their centres, interpolated bilinearly where the ray from the
 * source through X meets the detector (FDK's kernels, kray/fdk.h); V the voxel volume, A =
 * |u x v| the pixel area, t the depth of X and D the detector's distance, both along the
 * detector normal from the source, r the ray from the source to the pixel. The factors are the
 * density of rays through the voxel, so B is the continuous adjoint of the line integral and
 * approximates the transpose of both cone projectors (Joseph, Siddon; ray factor and method do
 * not change B). It is not their transpose (docs/ct.md gives the measured gap), and its own
 * adjoint fails with KR_ERR_NOT_SUPPORTED. It runs at the speed of FDK's backprojection (73 ms
 * at 512^3 from 496 views of 1248 x 960 on an H100, against 1.2 s for the matched Joseph
 * adjoint). ASTRA's SIRT3D_CUDA pairs its projector with a backprojector of this kind.
 * gpu_mem: the CUDA budget as kr_fdk_opts.gpu_mem; 0 (auto) sizes the buffers at the first call
 * to fit in 90 % of the device memory free then, and keeps them with the operator (in core:
 * about one more copy of the projections). Calls are serialised (one plan's buffers). */
kr_status kr_ct_voxel_bp_linop_create(kr_linop **op, const kr_ctx *ctx, const kr_ct_geom *g,
                                int64_t gpu_mem);

/* Exact projections of the 3-D Shepp-Logan phantom (kray/phantom.h) for a cone geometry: the
 * phantom's [-1, 1]^3 frame is stretched over the geometry's volume box (centre offset_mm,
 * half-widths n voxel_mm / 2 per axis, as the voxels of kr_phantom_3d on that grid), and each
 * value is the mean over k x k sub-rays (as the projectors) of the exact line integral in mm x
 * density. `*out` is created, dims [u, v, view], dtype f32 or f64, on the host. Computed in
 * double with OpenMP (kri_threads of ctx; ctx may be NULL). */
kr_status kr_ct_phantom_projections(kr_array **out, const kr_ctx *ctx, const kr_ct_geom *g,
                                    kr_phantom_kind kind, int ray_factor, kr_dtype dtype);

/* ---- iterative reconstruction ---------------------------------------------------------------
 * SIRT on any real operator A with non-negative entries (CT projectors, f32 or f64, host or
 * device): with R = diag(1 / row sums) = 1 / (A 1) and C = diag(1 / column sums) = 1 / (A^T 1)
 * (entries whose sum is 0 get weight 0), computed once when the plan is made,
 *     x <- x + relax C A^T R (y - A x),   then x <- max(x, 0) with nonneg.
 * It minimises ||y - A x||_R^2 (the R-weighted residual falls monotonically for 0 < relax < 2);
 * the reported residual is the plain ||y - A x|| / ||y||. The plan keeps a reference to A and
 * three work arrays (two domain-, one codomain-sized) plus the two weight arrays. CGLS needs no
 * plan: kr_cgls(ctx, A, y, x, ...) with A from kr_ct_linop_create (kray/linop.h). */
typedef struct kr_sirt_opts {
    int max_iter;      /* >= 1; default 50 */
    double tol;        /* >= 0; stop once ||y - A x|| / ||y|| <= tol (default 0: run max_iter) */
    double relax;      /* 0 < relax < 2; default 1 */
    int nonneg;        /* clamp x to >= 0 after every update */
    int warm_start;    /* x holds the initial guess; else x starts at 0 */
    double *history;   /* optional, max_iter + 1 doubles: entry k = relative residual after k
                          iterations (k = 0 .. info->iterations) */
    int show_progress; /* progress through the ctx */
} kr_sirt_opts;

void kr_sirt_opts_default(kr_sirt_opts *o);

typedef struct kr_sirt_plan kr_sirt_plan;

/* A: f32 or f64, host or device; ctx must match A's location. Fails with KR_ERR_INVALID_ARG
 * when A 1 or A^T 1 has a negative or non-finite entry (not a projector). */
kr_status kr_sirt_plan_create(kr_sirt_plan **s, const kr_ctx *ctx, kr_linop *A);
/* SIRT with a backprojector B in place of A^T: x <- x + relax C B R (y - A x), C = 1 / (B 1).
 * B's domain is A's codomain and its codomain A's domain, same dtype and location (only its
 * forward is applied); NULL: A^T, as kr_sirt_plan_create. With B = kr_ct_voxel_bp_linop_create of A's
 * geometry, an iteration costs A's forward and FDK's backprojection; the iteration no longer
 * minimises the R-weighted residual exactly (it converges to a nearby point; docs/ct.md). */
kr_status kr_sirt_plan_create_pair(kr_sirt_plan **s, const kr_ctx *ctx, kr_linop *A, kr_linop *B);
void kr_sirt_plan_destroy(kr_sirt_plan *s); /* accepts NULL */
/* y: codomain array, x: domain array (A's dtype and location). info may be NULL;
 * info->rel_residual is ||y - A x|| / ||y|| for the returned x, converged = (it <= tol).
 * y == 0 gives x = 0 (0 iterations). KR_ERR_NOT_CONVERGED when the iteration produced inf or
 * nan. */
kr_status kr_sirt_execute(kr_sirt_plan *s, const kr_array *y, kr_array *x, const kr_sirt_opts *o,
                          kr_solve_info *info);

#ifdef __cplusplus
}
#endif
#endif
