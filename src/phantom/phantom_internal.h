/* Private helpers shared by the phantom sources (not installed). */
#ifndef KRAY_PHANTOM_INTERNAL_H
#define KRAY_PHANTOM_INTERNAL_H

#include "internal.h"
#include "kray/phantom.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* Validate a user ellipse / ellipsoid list: non-NULL, n >= 1, finite fields, semi-axes > 0.
 * `fn` names the calling function in the detail sentence. */
kr_status kri_phantom_check_ellipses(const kr_ellipse *e, int n, const char *fn);
kr_status kri_phantom_check_ellipsoids(const kr_ellipsoid *e, int n, const char *fn);
/* Check kind/grid/supersample values, with the sentence naming `fn`. */
kr_status kri_phantom_check_kind(kr_phantom_kind kind, const char *fn);
kr_status kri_phantom_check_grid(kr_phantom_grid grid, const char *fn);
kr_status kri_phantom_check_supersample(int s, const char *fn);
/* Every value of v[0..count) finite; otherwise INVALID_ARG naming `what` and the index. */
kr_status kri_phantom_check_finite(const double *v, int64_t count, const char *fn,
                                   const char *what);

/* Sub-sample positions: along an axis of N pixels with s sub-samples per pixel, sub-sample
 * q = i * s + m (m = 0 .. s-1) of pixel i sits at (2 q + off) / (s N), where off is returned
 * here (an integer, exact in double). s = 1 gives the pixel centres of the grid. */
static inline double kri_phantom_sub_offset(kr_phantom_grid g, int64_t N, int s)
{
    if (g == KR_GRID_FFT) return 1.0 - (double)s - 2.0 * (double)s * (double)(N / 2);
    return 1.0 - (double)s * (double)N;
}

/* Bessel function of the first kind, order 1 (the C library's j1). */
double kri_bessel_j1(double x);
/* 2 J1(z) / z, equal to 1 at z = 0 (even in z). */
double kri_jinc(double z);

/* MR tissue phantom table (phantom_tables.c). */
typedef struct kri_mr_tissue {
    const char *name;
    double pd;
    double t1_a, t1_c; /* T1 = A * B0^C seconds, used when t1_fixed_ms <= 0 */
    double t1_fixed_ms;
    double t2_ms;
} kri_mr_tissue;
typedef struct kri_mr_ellipse {
    double a, b, x0, y0, phi_deg;
    int tissue; /* index into the tissue table */
} kri_mr_ellipse;
const kri_mr_tissue *kri_mr_tissues(int *n);
const kri_mr_ellipse *kri_mr_ellipses(int *n);

#endif
