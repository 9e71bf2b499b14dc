/* Shared helpers of the NUFFT tests: random trajectories with edge points, random data, and the
 * direct non-uniform DFT in double precision (the reference). Header-only, static functions. */
#ifndef KRAY_NUFFT_TEST_UTIL_H
#define KRAY_NUFFT_TEST_UTIL_H

#include "internal.h"
#include "kray/nufft.h"
#include "kt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* [3, M] f32 trajectory: uniform random in [-N/2, N/2) plus, in the first points, the edges
 * k = -N/2, k = +N/2 (periodic: the same point as -N/2), k just below +N/2, k = 0, and points
 * whose footprint wraps around the grid in every dim. kz = 0 in 2-D. */
static inline kr_array *nt_traj(int ndim, const int64_t *N, int64_t M, uint64_t seed)
{
    kr_array *t = NULL;
    int64_t dims[2] = {3, M};
    KT_OK(kr_array_create(&t, KR_F32, 2, dims, KR_HOST, NULL));
    if (!t) return NULL;
    float *k = t->data;
    for (int64_t m = 0; m < M; m++)
        for (int d = 0; d < 3; d++) {
            double h = d < ndim ? 0.5 * (double)N[d] : 0.0;
            double v = h * kri_rand_sym(seed + (uint64_t)d, (uint64_t)m);
            if (m < 8 && d < ndim) {
                const double e[8] = {-h, h, h - 1e-3, 0.0, -h + 1e-3, h - 0.5, -h, h};
                v = e[(m + (uint64_t)d * 3) % 8];
            }
            k[3 * m + d] = (float)v;
        }
    return t;
}

/* Random complex values in [-1, 1)^2 of `dtype`, shape ndim/dims. */
static inline kr_array *nt_rand(kr_dtype dt, int ndim, const int64_t *dims, uint64_t seed)
{
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, dt, ndim, dims, KR_HOST, NULL));
    if (!a) return NULL;
    int64_t n = 2 * kr_array_numel(a);
    for (int64_t i = 0; i < n; i++) {
        double v = kri_rand_sym(seed, (uint64_t)i);
        if (dt == KR_C64)
            ((float *)a->data)[i] = (float)v;
        else
            ((double *)a->data)[i] = v;
    }
    return a;
}

static inline double nt_get(const kr_array *a, int64_t i, int im)
{
    return a->dtype == KR_C64 ? (double)((const float *)a->data)[2 * i + im]
                              : ((const double *)a->data)[2 * i + im];
}

/* exp(sign 2 pi i k_m (n - N/2) / N) for every point and image index of one dim: [M][N]. */
static inline double *nt_phases(const kr_array *traj, int d, int64_t N, int sign)
{
    int64_t M = kr_array_numel(traj) / 3;
    double *e = malloc(sizeof(double) * 2 * (size_t)(M * N));
    const float *k = traj->data;
    for (int64_t m = 0; m < M; m++)
        for (int64_t i = 0; i < N; i++) {
            double ph = sign * 2.0 * M_PI * (double)k[3 * m + d] * (double)(i - N / 2) / (double)N;
            e[2 * (m * N + i)] = cos(ph);
            e[2 * (m * N + i) + 1] = sin(ph);
        }
    return e;
}

/* Direct adjoint: f[n] = sum_m y_m exp(+2 pi i k_m . x / N) for batch member b (double). */
static inline void nt_direct_adjoint(int ndim, const int64_t *N, const kr_array *traj,
                                     const kr_array *y, int64_t b, double *f)
{
    int64_t M = kr_array_numel(traj) / 3, N2 = ndim == 3 ? N[2] : 1;
    double *e0 = nt_phases(traj, 0, N[0], +1), *e1 = nt_phases(traj, 1, N[1], +1);
    double *e2 = ndim == 3 ? nt_phases(traj, 2, N[2], +1) : NULL;
    int64_t nimg = N[0] * N[1] * N2;
    memset(f, 0, sizeof(double) * 2 * (size_t)nimg);
    for (int64_t m = 0; m < M; m++) {
        double yr = nt_get(y, b * M + m, 0), yi = nt_get(y, b * M + m, 1);
        for (int64_t z = 0; z < N2; z++) {
            double zr = yr, zi = yi;
            if (e2) {
                double c = e2[2 * (m * N2 + z)], s = e2[2 * (m * N2 + z) + 1];
                zr = yr * c - yi * s;
                zi = yr * s + yi * c;
            }
            for (int64_t yy = 0; yy < N[1]; yy++) {
                double c = e1[2 * (m * N[1] + yy)], s = e1[2 * (m * N[1] + yy) + 1];
                double ar = zr * c - zi * s, ai = zr * s + zi * c;
                double *row = f + 2 * ((z * N[1] + yy) * N[0]);
                const double *ex = e0 + 2 * (m * N[0]);
                for (int64_t x = 0; x < N[0]; x++) {
                    row[2 * x] += ar * ex[2 * x] - ai * ex[2 * x + 1];
                    row[2 * x + 1] += ar * ex[2 * x + 1] + ai * ex[2 * x];
                }
            }
        }
    }
    free(e0);
    free(e1);
    free(e2);
}

/* Direct forward: y_m = sum_n f[n] exp(-2 pi i k_m . x / N) for batch member b (double). */
static inline void nt_direct_forward(int ndim, const int64_t *N, const kr_array *traj,
                                     const kr_array *f, int64_t b, double *y)
{
    int64_t M = kr_array_numel(traj) / 3, N2 = ndim == 3 ? N[2] : 1;
    int64_t nimg = N[0] * N[1] * N2;
    double *e0 = nt_phases(traj, 0, N[0], -1), *e1 = nt_phases(traj, 1, N[1], -1);
    double *e2 = ndim == 3 ? nt_phases(traj, 2, N[2], -1) : NULL;
    for (int64_t m = 0; m < M; m++) {
        double sr = 0, si = 0;
        for (int64_t z = 0; z < N2; z++) {
            double zr = 0, zi = 0;
            for (int64_t yy = 0; yy < N[1]; yy++) {
                double rr = 0, ri = 0;
                const double *ex = e0 + 2 * (m * N[0]);
                for (int64_t x = 0; x < N[0]; x++) {
                    int64_t i = b * nimg + (z * N[1] + yy) * N[0] + x;
                    double fr = nt_get(f, i, 0), fi = nt_get(f, i, 1);
                    rr += fr * ex[2 * x] - fi * ex[2 * x + 1];
                    ri += fr * ex[2 * x + 1] + fi * ex[2 * x];
                }
                double c = e1[2 * (m * N[1] + yy)], s = e1[2 * (m * N[1] + yy) + 1];
                zr += rr * c - ri * s;
                zi += rr * s + ri * c;
            }
            if (e2) {
                double c = e2[2 * (m * N2 + z)], s = e2[2 * (m * N2 + z) + 1];
                sr += zr * c - zi * s;
                si += zr * s + zi * c;
            } else {
                sr += zr;
                si += zi;
            }
        }
        y[2 * m] = sr;
        y[2 * m + 1] = si;
    }
    free(e0);
    free(e1);
    free(e2);
}

/* ||a - ref|| / ||ref|| over n complex values (a: array from offset `off`, ref: double). */
static inline double nt_relerr(const kr_array *a, int64_t off, const double *ref, int64_t n)
{
    double e = 0, r = 0;
    for (int64_t i = 0; i < n; i++) {
        double dr = nt_get(a, off + i, 0) - ref[2 * i], di = nt_get(a, off + i, 1) - ref[2 * i + 1];
        e += dr * dr + di * di;
        r += ref[2 * i] * ref[2 * i] + ref[2 * i + 1] * ref[2 * i + 1];
    }
    return sqrt(e / r);
}

#endif
