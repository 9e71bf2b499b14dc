/* Private contract of the receive-coil field (kray/coils.h): the closed form of one loop, shared
 * by the host and the device (KRI_HD, core/internal.h), and the coil-map backends. coils.c validates; coils_cpu.c
 * and coils_cuda.cu evaluate. Not installed. */
#ifndef KRAY_COILS_INTERNAL_H
#define KRAY_COILS_INTERNAL_H

#include "core/backend.h"
#include "kray/coils.h"

#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Complete elliptic integrals K(m), E(m), 0 <= m < 1, by the arithmetic-geometric mean
 * (Abramowitz & Stegun 17.6): a0 = 1, b0 = sqrt(1 - m), c0 = sqrt(m); K = pi / (2 a_N),
 * E = K (1 - sum_n 2^(n-1) c_n^2); stops when |c_n| <= tol a_n (at most 64 steps). */
static inline KRI_HD void kri_ellipke(double m, double tol, double *K, double *E)
{
    double a = 1.0, b = sqrt(1.0 - m), sum = 0.5 * m, p2 = 0.5;
    for (int it = 0; it < 64; it++) {
        double c = 0.5 * (a - b);
        double an = 0.5 * (a + b);
        b = sqrt(a * b);
        a = an;
        p2 *= 2.0;
        sum += p2 * c * c;
        if (fabs(c) <= tol * a) break;
    }
    *K = 1.5707963267948966 / a;
    *E = *K * (1.0 - sum);
}

typedef struct kri_coil_dev {
    double c[3], n[3]; /* centre (mm), unit normal */
    double a;          /* radius, mm */
} kri_coil_dev;

/* Field of one loop (tesla per ampere) at p (mm); points nearer than wire (mm) to the
 * conductor are moved onto the wire's surface. Returns 0, or 1 when the field is infinite
 * (on the conductor with wire == 0). */
static inline KRI_HD int kri_loop_field(const kri_coil_dev *d, double px, double py, double pz,
                                        double wire, double tol, double B[3])
{
    const double mu0_2pi = 2e-7; /* mu0 / (2 pi), T m / A */
    double dx = px - d->c[0], dy = py - d->c[1], dz = pz - d->c[2];
    double z = dx * d->n[0] + dy * d->n[1] + dz * d->n[2];
    double rx = dx - z * d->n[0], ry = dy - z * d->n[1], rz = dz - z * d->n[2];
    double rho = sqrt(rx * rx + ry * ry + rz * rz), rho0 = rho;
    const double a = d->a;
    double dist = sqrt((rho - a) * (rho - a) + z * z);
    if (dist < wire) {
        if (dist > 0) {
            rho = a + wire * (rho - a) / dist;
            z = wire * z / dist;
        } else {
            rho = a + wire;
        }
    } else if (dist == 0) {
        return 1;
    }
    double q = (a + rho) * (a + rho) + z * z, den = (a - rho) * (a - rho) + z * z;
    double m = 4.0 * a * rho / q, K, E;
    if (m >= 1.0) return 1;
    kri_ellipke(m, tol, &K, &E);
    double sq = sqrt(q);
    /* lengths in mm: 1/mm = 1e3 / m */
    double bz = 1e3 * mu0_2pi / sq * (K + (a * a - rho * rho - z * z) / den * E);
    double br;
    if (rho < 1e-6 * a) {
        double s = a * a + z * z;
        br = 1e3 * 3.0 * 3.14159265358979323846e-7 * a * a * z * rho / (s * s * sqrt(s));
    } else {
        br = 1e3 * mu0_2pi * z / (rho * sq) * (-K + (a * a + rho * rho + z * z) / den * E);
    }
    B[0] = bz * d->n[0];
    B[1] = bz * d->n[1];
    B[2] = bz * d->n[2];
    if (rho0 > 0) {
        B[0] += br * rx / rho0;
        B[1] += br * ry / rho0;
        B[2] += br * rz / rho0;
    }
    return 0;
}

/* Validate a public coil and convert it (normal normalised). */
kr_status kri_coil_prepare(const kr_coil *coil, int index, kri_coil_dev *d);

/* The sampling of coil maps: voxel (i, j, k) of [n[0], n[1], n[2]] at origin + (i, j, k) * step
 * (mm), evaluated with the wire radius `wire` (mm) and the elliptic tolerance `tol`; the value
 * of coil c is (Bx - i By) * gain. */
typedef struct kri_coil_grid {
    double origin[3], step[3];
    int64_t n[3];
    double wire, tol, gain;
} kri_coil_grid;

/* The backend seam (core/backend.h): kr_coil_maps (coils.c) validates and calls kri_coils_cpu
 * (coils_cpu.c, OpenMP over voxels) for a host array or kri_coils_cuda (coils_cuda.cu;
 * coils_nocuda.c without CUDA) for a device array on the ctx's device.
 *   maps: every coil's map on the grid into `out`, [nx, ny, nz, ncoils], c128 when is_double,
 *         else c64. Each value is one closed form in double, so it does not depend on the
 *         number of threads. */
typedef struct kri_coils_backend {
    kri_backend_hdr hdr;
    kr_status (*maps)(const kr_ctx *ctx, const kri_coil_dev *coils, int ncoils,
                      const kri_coil_grid *g, int is_double, void *out);
} kri_coils_backend;
extern const kri_coils_backend kri_coils_cpu, kri_coils_cuda;

/* The sensitivities of the coils at npts points xyz (mm, x y z per point) into w, 2 npts ncoils
 * floats, [point, coil] point fastest (host, OpenMP over points; coils_cpu.c). */
void kri_coil_points(const kr_ctx *ctx, const kri_coil_dev *coils, int ncoils, const double *xyz,
                     int64_t npts, double wire, double tol, double gain, float *w);

#ifdef __cplusplus
}
#endif
#endif
