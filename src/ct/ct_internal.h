/* Private parts of the CT module shared by its files (geometry, JSON, projectors, FDK): the
 * geometry's struct and the cone-beam view mathematics. */
#ifndef KRAY_CT_INTERNAL_H
#define KRAY_CT_INTERNAL_H

#include "internal.h"
#include "kray/ct.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest detector count, grid size per axis and view count accepted (indices stay in int and
 * are exact in float). */
#define KRI_CT_MAX_N ((int64_t)1 << 20)
#define KRI_CT_MAX_VIEWS ((int64_t)1 << 24)
/* Physical magnitudes accepted: lengths, offsets and view-vector components up to 1 km (1e6
 * mm), pixel and voxel sizes down to 1 nm (1e-6 mm), angles within +-1e6 degrees. Beyond them
 * a number is a typing error, and the arithmetic (squares of distances, sin of an angle) would
 * lose every digit. */
#define KRI_CT_MAX_MM 1e6
#define KRI_CT_MIN_MM 1e-6
#define KRI_CT_MAX_DEG 1e6
/* Whether x is a length or offset within the limits (finite, |x| <= KRI_CT_MAX_MM). */
static inline int kri_ct_mm_ok(double x) { return x >= -KRI_CT_MAX_MM && x <= KRI_CT_MAX_MM; }
/* Whether x is a pixel size, voxel size or distance within the limits. */
static inline int kri_ct_size_ok(double x) { return x >= KRI_CT_MIN_MM && x <= KRI_CT_MAX_MM; }

struct kr_ct_geom {
    kr_ct_type type;
    int64_t nviews;
    int64_t det_count;
    int64_t det_rows;   /* 1 for 2-D types */
    kr_ct_view *views;
    kr_ct_grid grid;
    int has_scan;       /* built from a kr_ct_scan */
    int uniform;        /* ... with uniform angles (angles_deg was NULL) */
    kr_ct_scan scan;    /* scan.angles_deg points to `angles` */
    double *angles;     /* nviews angles in degrees (has_scan) */
};

/* Parker (1982) short-scan weight (geometry.c) for scan position b in [0, pi + 2 delta] and fan
 * angle g, positive in the direction of rotation; 0 outside the scan and where the arc does not
 * cover the ray. FBP and FDK both weight with it. */
double kri_parker(double b, double g, double delta);

/* ---- cone-beam view mathematics (geometry3d.c, which uses nothing of geometry.c) ------------- */
/* Validation of view vi of a cone geometry; `where` names the view. */
kr_status kri_ct_check_view3(const kr_ct_geom *g, int64_t vi, const char *where);
/* Central projection of the point p (mm) onto the flat detector of cone view v: *a, *b receive
 * the detector coordinates in pixels from the detector centre (p's shadow is at det + a u +
 * b v). Returns 0 (a, b untouched) when p is not in front of the source. */
int kri_ct_view_project(const kr_ct_view *v, const double p[3], double *a, double *b);
/* Field of view of cone-beam views: the number of views in which the volume box (cylinder 0:
 * its 8 corners) or the cylinder inscribed in it (cylinder 1: 16 points on each end face's rim;
 * what FDK reconstructs) projects partly outside the det_count x det_rows detector or lies
 * behind the source; *first = the first such view (-1: none) and ext its shadow's extent in
 * pixels from the detector centre (columns min, max, rows min, max). The one check of kray's
 * projectors (kr_ct_geom_check_fov) and FDK. */
int64_t kri_ct_fov_count(const kr_ct_view *views, int64_t nviews, const kr_ct_grid *gr,
                         int64_t det_count, int64_t det_rows, int cylinder, int64_t *first,
                         double ext[4]);

#ifdef __cplusplus
}
#endif
#endif
