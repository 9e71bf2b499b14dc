/* Private interface of the regularised MRI reconstruction (kray/mrreg.h): the encoding
 * operators (mrreg_op.c) and BART's gradient. Not installed. */
#ifndef KRAY_MRREG_INTERNAL_H
#define KRAY_MRREG_INTERNAL_H

#include "kray/mrreg.h"

/* The encoding operator E of `d` (kray/mrreg.h: ENCODING) on images [dims..., T] (ndim + 1
 * axes, T possibly 1), c64 at the ctx's location, and its normalisation c (sqrt(prod dims)
 * for the NUFFT, 1 for Cartesian data). The operator owns its plans. */
kr_status kri_mrreg_encoding(kr_linop **E, double *c, const kr_ctx *ctx, const kr_mrreg_data *d,
                             const char *fn);

/* y *= sqrt(w) per sample (w: M T weights [M, T] on the host, the same for every coil), y c64
 * [M, C, T] at the ctx's location. */
kr_status kri_mrreg_weight(const kr_ctx *ctx, kr_array *y, const kr_array *w, int64_t coils,
                           int64_t frames);

/* BART's image gradient: (G x)_j = x - roll(x, +1 along axis a_j) for the axes a_j in `axes`
 * (increasing), circular, stacked along a new last axis (codomain [dims..., k]); c64. */
kr_status kri_bart_grad_create(kr_linop **G, const kr_ctx *ctx, int ndim, const int64_t *dims,
                               unsigned axes);

#endif
