/* Helpers shared by the solver tests: complex access to buffers of any floating dtype, and a
 * dense reference solve. Header-only. */
#ifndef KRAY_SOLVE_TEST_UTIL_H
#define KRAY_SOLVE_TEST_UTIL_H

#include "kt.h"

#include <complex.h>

typedef double _Complex cplx;

static inline int is_single(kr_dtype t) { return t == KR_F32 || t == KR_C64; }

static inline cplx getc_(const void *p, kr_dtype t, int64_t i)
{
    int c = kr_dtype_is_complex(t);
    int64_t k = c ? 2 * i : i;
    if (is_single(t)) return ((const float *)p)[k] + (c ? ((const float *)p)[k + 1] : 0.0f) * I;
    return ((const double *)p)[k] + (c ? ((const double *)p)[k + 1] : 0.0) * I;
}

static inline void setc_(void *p, kr_dtype t, int64_t i, cplx v)
{
    int c = kr_dtype_is_complex(t);
    int64_t k = c ? 2 * i : i;
    if (is_single(t)) {
        ((float *)p)[k] = (float)creal(v);
        if (c) ((float *)p)[k + 1] = (float)cimag(v);
    } else {
        ((double *)p)[k] = creal(v);
        if (c) ((double *)p)[k + 1] = cimag(v);
    }
}

/* Solve G x = r (n x n, row-major, destroyed) by Gaussian elimination with partial pivoting. */
static inline void gauss_solve(int n, cplx *G, cplx *r, cplx *x)
{
    for (int k = 0; k < n; k++) {
        int piv = k;
        for (int i = k + 1; i < n; i++)
            if (cabs(G[i * n + k]) > cabs(G[piv * n + k])) piv = i;
        if (piv != k) {
            for (int j = 0; j < n; j++) {
                cplx tmp = G[k * n + j];
                G[k * n + j] = G[piv * n + j];
                G[piv * n + j] = tmp;
            }
            cplx tmp = r[k];
            r[k] = r[piv];
            r[piv] = tmp;
        }
        for (int i = k + 1; i < n; i++) {
            cplx f = G[i * n + k] / G[k * n + k];
            for (int j = k; j < n; j++) G[i * n + j] -= f * G[k * n + j];
            r[i] -= f * r[k];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        cplx s = r[i];
        for (int j = i + 1; j < n; j++) s -= G[i * n + j] * x[j];
        x[i] = s / G[i * n + i];
    }
}

#endif
