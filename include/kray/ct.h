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
 *   2-D images [x, y] (optionally [x, y, batch]); for cone beam (later) projections
 *   [u, v, view] and volumes [x, y, z].
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
 *
 * ---- Projectors ------------------------------------------------------------------------------
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
 */
#ifndef KRAY_CT_H
#define KRAY_CT_H

#include "kray/core.h"
#include "kray/linop.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- geometry types ------------------------------------------------------------------------ */
typedef enum kr_ct_type {
    KR_CT_TYPE_INVALID = 0,
    KR_CT_PARALLEL2D,        /* "parallel2d" */
    KR_CT_FAN2D_FLAT,        /* "fan2d-flat" */
    KR_CT_FAN2D_EQUIANGULAR, /* "fan2d-equiangular" */
    /* 3-D types (cone beam, flat / cylindrical detectors, parallel 3-D) will follow here. */
    KR_CT_TYPE_COUNT
} kr_ct_type;

const char *kr_ct_type_name(kr_ct_type t);                 /* "parallel2d", ...; "invalid" */
kr_status kr_ct_type_from_name(const char *s, kr_ct_type *t);
int kr_ct_type_ndim(kr_ct_type t);        /* 2 for the 2-D types, 3 for cone beam, 0 invalid */
int kr_ct_type_is_parallel(kr_ct_type t); /* rays share a direction per view (no source) */

/* Image / volume grid (2-D: n[2] = 1; voxel_mm[2] and offset_mm[2] are ignored). */
typedef struct kr_ct_grid {
    int64_t n[3];        /* pixels along x, y, z */
    double voxel_mm[3];  /* pixel size along x, y, z (> 0) */
    double offset_mm[3]; /* position of the grid centre */
} kr_ct_grid;

/* Square 2-D grid of n x n pixels of size voxel_mm centred on the rotation axis. */
void kr_ct_grid_2d(kr_ct_grid *g, int64_t nx, int64_t ny, double voxel_mm);

/* Physical description of a circular scan. Use kr_ct_scan_default, then set the fields.
 *   angles: angles_deg (nviews values) when not NULL, else uniform:
 *           theta_i = start_deg + i * (stop_deg - start_deg) / nviews (stop exclusive);
 *   det_offset_mm: the detector is shifted by this along +u (source and axis stay); for the
 *           equiangular detector it is an arc length (the detector turns about the source by
 *           det_offset_mm / sdd_mm radians);
 *   cor_offset_mm: the rotation axis lies this far along +u from the central ray (source and
 *           detector together shifted by -cor_offset_mm along u); for parallel beams the axis
 *           then projects at s = cor_offset_mm - det_offset_mm from the detector centre;
 *   sod_mm, sdd_mm: source-to-axis and source-to-detector(-centre) distances (fan only,
 *           0 < sod_mm < sdd_mm); for the equiangular detector sdd_mm is the arc radius and
 *           det_spacing_mm the arc length of one pixel (angular pitch det_spacing_mm/sdd_mm). */
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
    /* 3-D fields (det_rows, det_spacing_v_mm, det_offset_v_mm, ...) will be appended. */
} kr_ct_scan;

/* Defaults: parallel2d, 180 uniform views over [0, 180) degrees, det_count 0 (must be set),
 * det_spacing_mm 1, offsets 0, sod_mm = sdd_mm = 0 (must be set for fan types). */
void kr_ct_scan_default(kr_ct_scan *s);

/* One view in vector form (see the header comment). Unused vectors are zero; 2-D geometries
 * use the x and y components and keep z = 0 and v = 0. */
typedef struct kr_ct_view {
    double src[3]; /* source position (fan / cone) */
    double ray[3]; /* ray direction (parallel) */
    double det[3]; /* detector centre */
    double u[3];   /* one detector pixel along u (mm vector) */
    double v[3];   /* one detector pixel along v (3-D only) */
} kr_ct_view;

typedef struct kr_ct_geom kr_ct_geom;

/* Build from physical parameters; validation failures are KR_ERR_GEOMETRY (values) or
 * KR_ERR_INVALID_ARG (NULL / unknown type) with a sentence naming the field. */
kr_status kr_ct_geom_create(kr_ct_geom **g, const kr_ct_scan *scan, const kr_ct_grid *grid);
/* Build from explicit views (copied); det_count pixels along u. */
kr_status kr_ct_geom_create_views(kr_ct_geom **g, kr_ct_type type, int64_t det_count,
                                  const kr_ct_view *views, int64_t nviews,
                                  const kr_ct_grid *grid);
kr_status kr_ct_geom_clone(kr_ct_geom **out, const kr_ct_geom *g);
void kr_ct_geom_destroy(kr_ct_geom *g); /* accepts NULL */

kr_ct_type kr_ct_geom_type(const kr_ct_geom *g);
int64_t kr_ct_geom_nviews(const kr_ct_geom *g);
int64_t kr_ct_geom_det_count(const kr_ct_geom *g);
const kr_ct_view *kr_ct_geom_views(const kr_ct_geom *g);  /* nviews entries, owned by g */
const kr_ct_grid *kr_ct_geom_grid(const kr_ct_geom *g);
/* The physical description when g was built from one (angles_deg then points to nviews
 * angles owned by g, also for uniform scans); KR_ERR_NOT_SUPPORTED for vector geometries. */
kr_status kr_ct_geom_scan(const kr_ct_geom *g, kr_ct_scan *scan);
/* Expected array dims: sinogram {det_count, nviews}, image {n[0], n[1]} (returns ndim). */
int kr_ct_geom_sino_dims(const kr_ct_geom *g, int64_t *dims);
int kr_ct_geom_image_dims(const kr_ct_geom *g, int64_t *dims);

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
 * and optionally "version": 1 (always written). The 3-D types will use the same fields with
 * 3-element "size", "voxel_mm", "offset_mm" and view vectors, a "v" vector per view and
 * detector-row fields. Syntax errors, missing, unknown or mistyped fields are
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
} kr_ct_projector_opts;

void kr_ct_projector_opts_default(kr_ct_projector_opts *o);

typedef struct kr_ct_projector kr_ct_projector;

/* Plan a projector for geometry g (copied) on the ctx's backend (the ctx must outlive the
 * plan). CUDA plans keep the per-view parameters on the device; their arrays must be device
 * arrays, CPU plans' host arrays (KR_ERR_LOCATION otherwise). */
kr_status kr_ct_projector_create(kr_ct_projector **p, const kr_ctx *ctx, const kr_ct_geom *g,
                                 const kr_ct_projector_opts *o);
void kr_ct_projector_destroy(kr_ct_projector *p); /* accepts NULL */

/* sino = A image. image [nx, ny] or [nx, ny, nb]; sino [det, view] or [det, view, nb];
 * sino is overwritten. */
kr_status kr_ct_projector_forward(const kr_ct_projector *p, const kr_array *image,
                                  kr_array *sino);
/* image = A^T sino (the matched backprojector; image is overwritten). */
kr_status kr_ct_projector_adjoint(const kr_ct_projector *p, const kr_array *sino,
                                  kr_array *image);

const kr_ct_geom *kr_ct_projector_geom(const kr_ct_projector *p);

/* The projector as a kr_linop (see kray/linop.h): domain [nx, ny], codomain [det, view], the
 * dtype of opts and the location of the ctx's backend. Needs the solve module. */
kr_status kr_ct_linop_create(kr_linop **op, const kr_ctx *ctx, const kr_ct_geom *g,
                             const kr_ct_projector_opts *o);

#ifdef __cplusplus
}
#endif
#endif
