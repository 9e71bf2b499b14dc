/* kray command line: what the cone-beam tools (project, backproject, sirt, cgls) share: the
 * geometry options (a JSON file, or a circular scan from physical parameters, completed from
 * the sizes of the input files), the projector options, reading and writing volumes and
 * projections with their spacing, and moving arrays to the compute device and back. */
#ifndef KRAY_TOOLS_CONE_COMMON_H
#define KRAY_TOOLS_CONE_COMMON_H

#include "cli.h"

typedef struct kc_cone {
    const char *geom, *write_geom, *angles;
    double sod, sdd, cor;
    int short_scan;
    kc_dims det, vol;
    kc_list pitch, det_offset, voxel, vol_offset;
    int method, rays;
    int plane; /* the tool also takes 2-D geometry files (parallel2d, fan2d-*): kray project */
    int g_sod, g_sdd, g_det, g_pitch, g_doff, g_cor, g_angles, g_vol, g_voxel, g_voff;
} kc_cone;

/* clang-format off */
#define KC_CONE_GEOM_OPTS(a, vol_help, voxel_help)                                            \
    {"geom", 'g', KC_STRING, &(a).geom, NULL, "FILE",                                          \
     "geometry JSON (types cone, cone-vec); or describe a circular scan with --sod, --sdd...",  \
     NULL, 0, 0, NULL},                                                                        \
    {"sod", 0, KC_DOUBLE, &(a).sod, NULL, "MM", "source-origin distance", NULL, 1e-9, 1e9,     \
     &(a).g_sod},                                                                              \
    {"sdd", 0, KC_DOUBLE, &(a).sdd, NULL, "MM", "source-detector distance (> sod)", NULL,      \
     1e-9, 1e9, &(a).g_sdd},                                                                   \
    {"det", 0, KC_DIMS, &(a).det, NULL, "UxV",                                                 \
     "detector pixels (default: the size of the projections read)", NULL, 1, 1048576,          \
     &(a).g_det},                                                                              \
    {"pitch", 0, KC_LIST, &(a).pitch, "1", "MM[,MM]", "detector pixel pitch along u (and v)",  \
     NULL, 1e-9, 1e9, &(a).g_pitch},                                                           \
    {"det-offset", 0, KC_LIST, &(a).det_offset, "0,0", "U,V",                                  \
     "detector shift along u and v (mm)", NULL, -1e9, 1e9, &(a).g_doff},                       \
    {"cor", 0, KC_DOUBLE, &(a).cor, "0", "MM", "centre-of-rotation offset along u", NULL,      \
     -1e9, 1e9, &(a).g_cor},                                                                   \
    {"angles", 0, KC_STRING, &(a).angles, "0:360", "S:E[:N]",                                  \
     "start:stop[:count] in degrees, stop exclusive (count: the projections' view count)",     \
     NULL, 0, 0, &(a).g_angles},                                                               \
    {"short-scan", 0, KC_FLAG, &(a).short_scan, NULL, NULL,                                    \
     "stop = start + 180 degrees + the fan angle", NULL, 0, 0, NULL},                          \
    {"size", 'n', KC_DIMS, &(a).vol, NULL, "N|NxMxK", vol_help, NULL, 1, 1048576, &(a).g_vol},  \
    {"voxel", 0, KC_LIST, &(a).voxel, NULL, "MM[,MM,MM]", voxel_help, NULL, 1e-9, 1e9,         \
     &(a).g_voxel},                                                                            \
    {"vol-offset", 0, KC_LIST, &(a).vol_offset, "0,0,0", "X,Y,Z", "volume centre (mm)", NULL,  \
     -1e9, 1e9, &(a).g_voff},                                                                  \
    {"geom-out", 0, KC_STRING, &(a).write_geom, NULL, "FILE",                                  \
     "also write the geometry used as JSON", NULL, 0, 0, NULL},                                \
    {"vol", 0, KC_ALIAS, NULL, NULL, "size", NULL, NULL, 0, 0, NULL},                          \
    {"write-geom", 0, KC_ALIAS, NULL, NULL, "geom-out", NULL, NULL, 0, 0, NULL}

/* The geometry above and the projector: the options of project, backproject, sirt and cgls. */
#define KC_CONE_OPTS(a)                                                                        \
    KC_CONE_GEOM_OPTS(a, "volume voxels (default: the size of the volume read)",               \
                      "voxel size (default: the volume's spacing, else pitch x sod / sdd)"),    \
    {"method", 'm', KC_CHOICE, &(a).method, "joseph", "M",                                     \
     "projector: joseph (bilinear samples on voxel planes) or siddon (exact lengths)",         \
     "joseph|siddon", 0, 0, NULL},                                                             \
    {"rays", 0, KC_INT, &(a).rays, "1", "K", "K x K sub-rays per detector pixel", NULL, 1,     \
     16, NULL},                                                                                \
    {"", 'k', KC_RENAMED, NULL, NULL, "--rays", NULL, NULL, 0, 0, NULL}
/* clang-format on */

#define KC_CONE_NOTES                                                                          \
    "Geometry: circular cone beam, flat detector; the source turns counter-clockwise seen from "\
    "+z,\nat angle 0 on the -y side; projections are [u, v, view] (u along the detector rows, "  \
    "v up),\nvolumes [x, y, z] centred on --vol-offset. Lengths in mm, angles in degrees."

/* Build the geometry from --geom or the scan options. proj (dims [u, v, view]) and vol / vmeta
 * (a volume read and its spacing) may be NULL; they supply --det, the view count, --size and
 * --voxel when those are not given. Writes --geom-out. Returns 0 or an exit code (after
 * printing one sentence). */
int kc_cone_geometry(const char *tool, const kc_cone *a, const kr_array *proj,
                     const kr_array *vol, const kr_meta *vmeta, kr_ct_geom **g);

/* Projector options from the tool options and the precision. */
void kc_cone_popts(const kc_cone *a, kr_dtype t, kr_ct_projector_opts *o);

/* Read `path` as a real array of type t (converted if needed): a volume (is_volume, axes of an
 * image) or projections (as stored). Returns 0 or an exit code. */
int kc_cone_read(const char *tool, const char *path, kr_dtype t, int is_volume, kr_array **out,
                 kr_meta *meta);

/* Write a volume (spacing and origin from the geometry) or projections (spacing = pitch). PNG
 * and PGM get the central slice (volumes) or view (projections) unless slice >= 0, window
 * min..max. Returns 0 or an exit code. */
/* kc_cone_write, then with -v one line naming the file, its size, the time since t0 and the
 * backend. 0 or an exit code. */
int kc_cone_finish(const char *tool, const kc_common *c, const char *path, const kr_array *a,
                   const kr_ct_geom *g, int is_volume, int index, double t0, const kr_ctx *ctx);
int kc_cone_write(const char *tool, const char *path, const kr_array *a, const kr_ct_geom *g,
                  int is_volume, int slice);

/* A copy of host array `a` where ctx computes (device for CUDA), or `a` itself (*owned = 0). */
int kc_cone_to_ctx(const char *tool, const kr_ctx *ctx, kr_array *a, kr_array **out, int *owned);

/* kray sirt / kray cgls: options beyond the geometry, and the shared driver (reads, checks,
 * solves on the ctx's backend with a progress bar, writes, prints one summary line). */
typedef struct kc_iter {
    int iters, nonneg, cgls;
    int voxel_bp;    /* sirt: the voxel-driven backprojector in place of the matched adjoint */
    int64_t gpu_mem; /* its CUDA budget (0: auto) */
    double tol, relax, lambda;
    const char *init;
} kc_iter;
int kc_iterative(const char *tool, const kc_common *c, const kc_cone *a, const kc_iter *it,
                 const char *in, const char *out);

#endif
