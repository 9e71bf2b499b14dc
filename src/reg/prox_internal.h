/* The kr_prox object (private to prox.c and prox_llr.c). */
#ifndef KRAY_PROX_INTERNAL_H
#define KRAY_PROX_INTERNAL_H

#include "reg_internal.h"

enum { KRI_P_L1 = 0, KRI_P_L21, KRI_P_L2BALL, KRI_P_BOX, KRI_P_LLR, KRI_P_WAVELET, KRI_P_TV };

struct kr_prox {
    int kind;
    const kr_ctx *ctx;
    kr_dtype dtype;
    kr_loc loc;
    int ndim;
    int64_t dims[KR_MAX_DIMS];
    double lambda, lo, hi, radius;
    kr_array *center, *work;           /* l2ball: centre and x - c; wavelet: coefficients */
    kri_wavelet w;                     /* l1-wavelet */
    uint64_t seed, calls;
    kr_linop *D;                       /* tv */
    int naxes, inner;
    kr_array *p, *pold, *r, *g, *b;    /* tv: dual, previous dual, extrapolation, D x, input */
    int axis;                          /* llr */
    int64_t block, shift[KR_MAX_DIMS];
};

/* The block-wise singular value threshold of the LLR prox (prox_llr.c); tau 0 with value
 * non-NULL sums the nuclear norms instead of changing x. */
kr_status kri_llr_apply(kr_prox *p, const kr_array *v, kr_array *x, double tau, double *value);

#endif
