/* Cone-beam (3-D) projector internals shared by project3d.c, project3d_cpu.c and
 * project3d_cuda.cu.
 *
 * Kernels work in voxel-index coordinates: X = (x - x_0) / dx (likewise Y, Z), where x_0 is the
 * centre of voxel 0, so voxel (i, j, k) is the box [i -/+ 0.5] x [j -/+ 0.5] x [k -/+ 0.5]. A
 * ray is its source S (index units) and a direction W in index units per unit of the detector
 * vector (not normalised); its length in mm per unit of W is len = |(W_x dx, W_y dy, W_z dz)|.
 * Arrays: volume [x, y, z] contiguous, projections [u, v, view] contiguous. */
#ifndef KRAY_CT_PROJECT3D_INTERNAL_H
#define KRAY_CT_PROJECT3D_INTERNAL_H

#include "project_internal.h"

#include <pthread.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Plan-wide constants: volume size n, detector nu x nv, views, ray factor k, voxel sizes (mm),
 * detector centre indices cu = (nu - 1) / 2, cv and 1 / k^2. */
#define KRI_CT3P_FIELDS(T)                                                                    \
    int n[3];                                                                                  \
    int nu, nv, nviews, k;                                                                     \
    T vox[3];                                                                                  \
    T cu, cv, inv_k2;
typedef struct kri_ct3p_f32 { KRI_CT3P_FIELDS(float) } kri_ct3p_f32;
typedef struct kri_ct3p_f64 { KRI_CT3P_FIELDS(double) } kri_ct3p_f64;

/* Per-view parameters in index units: source s, w = det - src, detector pixel vectors u, v.
 * The ray of detector point (a, b) (pixels from the detector centre) is s + t (w + a u + b v). */
#define KRI_CT3V_FIELDS(T) T s[3], w[3], u[3], v[3];
typedef struct kri_ct3v_f32 { KRI_CT3V_FIELDS(float) } kri_ct3v_f32;
typedef struct kri_ct3v_f64 { KRI_CT3V_FIELDS(double) } kri_ct3v_f64;

/* The 3-D part of a kr_ct_projector_plan (p->p3). Its tables (kri_ct3_cpu, kri_ct3_cuda) are
 * declared in project_internal.h; the CUDA one's state (p->dev) is a kri_ct3_dev. */
typedef struct kri_ct3_plan {
    kri_ct3p_f32 p32;
    kri_ct3p_f64 p64;
    void *views; /* host: nviews kri_ct3v_f32 or kri_ct3v_f64 (opts.dtype) */
} kri_ct3_plan;

/* The state of the CUDA backend on its device. */
typedef struct kri_ct3_dev {
    void *d_views; /* the per-view parameters */
    /* Joseph work space: two zero-padded volumes of (n0+2)(n1+2)(n2+2) elements, one in
     * [x, y, z] order ("P") and one in [y, x, z] order ("T", for x-major rays); the forward
     * projector reads them, the adjoint accumulates into them. */
    void *d_pad[2];
    size_t pad_elems;
    /* f32 forward: quads (v[e], v[e + 1], v[e + sb], v[e + sb + 1]), so a bilinear sample is
     * one 16-byte load instead of four 4-byte ones; one volume per major axis (T; P with the sb
     * of the y- and of the z-major rays), four times the padded size each, allocated with the
     * plan; NULL when the device had no room for them: the forward reads d_pad instead. The
     * f32 adjoint accumulates into them (one 16-byte atomic per sample) when they are there. */
    void *d_quad[3];
    /* Joseph adjoint as a gather (project3d_gather.cu), when the create verb found the geometry
     * fit for it: per batch of gather_nvb views, (c, tb, cb) per pixel (d_gtab), (ta, ca, major
     * axis, 1 / w_M) per column (d_gcol), 4 elements of the dtype each, and gather_nvb ints (the
     * major axes present in each view: d_gint). */
    int gather, gather_nvb;
    void *d_gtab, *d_gcol, *d_gint;
    pthread_mutex_t lock; /* serialises the calls on the plan (work space) */
    int lock_init;
} kri_ct3_dev;

/* Per-view parameters of view i in double (project3d.c). */
void kri_ct3_view_params(const kr_ct_geom *g, int64_t i, kri_ct3v_f64 *o);

#ifdef __cplusplus
}
#endif
#endif
