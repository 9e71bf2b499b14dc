/* kray regularised MRI reconstruction: multi-coil Cartesian and non-Cartesian data with
 * l1-wavelet, total variation and locally-low-rank terms, solved by FISTA, ADMM or PDHG
 * (kray/reg.h), with the conventions of BART's `pics` so that a lambda carries over.
 *
 * PROBLEM. kray minimises, over the image x ([nx, ny(, nz)] or, with frames, [nx, ny(, nz), T];
 * c64),
 *     1/2 || A x - y / s ||^2 + sum_j lambda_j R_j(x),      A = E / c,
 * with E the encoding operator (below; the operator of `kray cgsense` and `kray sense`), c its
 * normalisation (c = sqrt(prod N) for the non-Cartesian NUFFT, whose BART counterpart is kray's
 * divided by sqrt(prod N); c = 1 for Cartesian data, whose FFT is unitary in both), and s the
 * data scale (BART's `pics -w`; 0 = estimated as BART does, below). This is BART's problem term
 * for term, so a lambda of `bart pics -R` is a lambda here; the solution is returned in kray's
 * units, x_kray = (s / c) x, the image of `kray cgsense` (E x_kray = y for consistent data).
 *
 * SCALE (opts.scale = 0). s is BART's estimate from the adjoint image a = A^H y (its magnitudes
 * sorted; median, 90th percentile p90 and maximum over all pixels and frames): s = p90 when
 * max - p90 < 2 (p90 - median), else max. BART takes this rule on the same a for non-Cartesian
 * data; for Cartesian data it takes it on the root-sum-of-squares image of the fully sampled
 * centre (at most 32 lines per axis), which is close but not equal: pass BART's printed scale
 * (`bart pics -d 5`, "Inverse scaling of the data") as opts.scale, or kray's reported scale to
 * `bart pics -w`, for identical problems.
 *
 * TERMS (lambda >= 0; docs/reg.md gives each against BART's source):
 *   KR_MRREG_L1_WAVELET: lambda ||W x||_1, W the orthogonal periodic wavelet of kray/reg.h over
 *       the spatial axes (opts.wavelet, default db2 = BART's `dau2`; levels: as many as keep the
 *       input of the last level >= 16 samples, BART's rule), every band thresholded including
 *       the coarsest (as BART 0.8), with a new random circular shift per prox call (BART's
 *       cycle spinning; opts.randshift). BART `-R W:3:0:lambda` (2-D), `W:7:0:lambda` (3-D).
 *   KR_MRREG_TV: lambda sum_p ||(G x)_p||_2, isotropic over the axes in `axes` (default: the
 *       spatial axes), G the circular BACKWARD differences (G_a x)[i] = x[i] - x[i - 1 mod n]
 *       of BART's `linop_grad_create` (its forward-named difference is a backward one; the
 *       isotropic grouping differs from forward differences, so the minimisers differ by a few
 *       per cent otherwise). BART `-R T:3:0:lambda`; a frame axis is BART's T:1024.
 *   KR_MRREG_LLR: lambda g sum_b ||X_b||_* over blocks of `block` pixels per spatial axis
 *       (default 8, BART's -b), X_b the (block pixels) x T matrix of a block over the frames,
 *       with BART's factor g = sqrt(M) + sqrt(T) + sqrt(log(B min(M, T))) (M pixels per block,
 *       B blocks of the zero-padded image). BART `-R L:3:3:lambda`. Blocks are fixed (BART
 *       shifts them at random per call; kray's LLR prox takes a fixed shift).
 *
 * METHOD (KR_MRREG_AUTO: BART's choice): FISTA for one l1-wavelet or llr term (a wavelet or llr
 * prox per iteration; step 1 / (1.01 ||A^H A||) by power iteration, BART's `-e`); ADMM for tv or
 * several terms (penalty rho, BART's -u 0.5; `cg_iter` CG steps on A^H A + rho sum K^H K, BART's
 * -C 10; l1-wavelet and llr enter with K = I and their prox, tv with K = G and the group
 * threshold); PDHG takes the same terms (the wavelet then as K = W without shifts, at most one
 * llr term). FISTA does not take tv (its TV prox uses other differences): ask for admm or pdhg.
 *
 * ENCODING. Coil maps S c64 [nx, ny(, nz), C] (host or the ctx's location).
 *   Non-Cartesian (traj != NULL): E = blockdiag over frames of D^1/2 F S (kray/cgsense.h: one
 *       CG-SENSE plan per frame; F kray's NUFFT), trajectory f32/f64 [3, M, T] (or [3, M]) in
 *       cycles per FOV on the host, k-space c64 [M, C, T] (any leading dims that multiply to
 *       M), density weights dcf (optional, f32/f64, M T values on the host: a weighted data term
 *       D^1/2 (E x - y), BART's `-p` weights squared), eps and toeplitz (the normal operator by
 *       Toeplitz embedding, BART's default; used by ADMM) as kray/cgsense.h.
 *   Cartesian (traj == NULL, 2-D): E = P F S per frame, F the centred unitary FFT (kray/sense.h),
 *       k-space c64 [nx, ny, C, T], P the sampling pattern: `mask` f32 [nx, ny, T] (non-zero =
 *       sampled; shared by the coils), or, when mask is NULL, the samples that are non-zero in
 *       some coil (BART's pattern estimate).
 * k-space and x live at the ctx's location; x is overwritten (or, with opts.warm_start, taken as
 * the initial image in kray's units).
 */
#ifndef KRAY_MRREG_H
#define KRAY_MRREG_H

#include "kray/reg.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum kr_mrreg_kind { KR_MRREG_L1_WAVELET = 0, KR_MRREG_TV, KR_MRREG_LLR } kr_mrreg_kind;

typedef struct kr_mrreg_term {
    kr_mrreg_kind kind;
    double lambda;  /* >= 0, finite */
    unsigned axes;  /* tv: bit a = image axis a (the frame axis is the last); 0 = spatial */
    int64_t block;  /* llr: block size per spatial axis; 0 = 8 */
} kr_mrreg_term;

/* Parse "l1-wavelet:LAMBDA", "tv:LAMBDA[:AXES]" (AXES letters of x, y, z, t, e.g. "xyt") or
 * "llr:LAMBDA[:BLOCK]" into *t (KR_ERR_INVALID_ARG with one sentence otherwise). */
kr_status kr_mrreg_term_parse(const char *spec, kr_mrreg_term *t);

typedef enum kr_mrreg_method {
    KR_MRREG_AUTO = 0, /* BART's choice: FISTA for one l1-wavelet or llr term, else ADMM */
    KR_MRREG_FISTA,
    KR_MRREG_ADMM,
    KR_MRREG_PDHG
} kr_mrreg_method;

typedef struct kr_mrreg_opts {
    kr_mrreg_method method;
    int max_iter;           /* >= 1; default 30 (BART's -i) */
    double tol;             /* >= 0; default 0: run max_iter (kray/reg.h's tolerance) */
    double scale;           /* s > 0 (BART's -w), or 0 = estimated (SCALE above) */
    kr_wavelet_kind wavelet; /* default KR_WAVELET_DB2 (BART's dau2) */
    int levels;             /* wavelet levels; 0 = BART's rule */
    int randshift;          /* random wavelet shifts per prox call; default 1 (BART's default) */
    uint64_t seed;          /* shifts and power iteration; default 1 */
    double rho;             /* ADMM penalty; default 0.5 (BART's -u) */
    int cg_iter;            /* ADMM CG steps; default 10 (BART's -C) */
    int warm_start;         /* x holds the initial image (kray's units) */
    double *objective;      /* optional, max_iter + 1: the objective of the scaled problem */
    int show_progress;
} kr_mrreg_opts;

void kr_mrreg_opts_default(kr_mrreg_opts *o);

typedef struct kr_mrreg_data {
    int ndim;               /* spatial image axes: 2 or 3 (Cartesian: 2) */
    int64_t dims[3];        /* image size */
    int64_t frames;         /* T >= 1 */
    const kr_array *maps;   /* c64 [dims..., C] */
    const kr_array *kspace; /* c64, at the ctx's location (shapes above) */
    const kr_array *traj;   /* non-Cartesian trajectory, host; NULL = Cartesian */
    const kr_array *dcf;    /* non-Cartesian weights (host) or NULL */
    const kr_array *mask;   /* Cartesian pattern f32 [nx, ny, T] (host) or NULL */
    double eps;             /* NUFFT accuracy; 0 = 1e-4 */
    int toeplitz;           /* non-Cartesian normal operator by Toeplitz embedding (BART's
                               default): ADMM's CG and FISTA (in normal form) use it */
} kr_mrreg_data;

typedef struct kr_mrreg_info {
    kr_mrreg_method method; /* the method run */
    int iterations;
    double objective;       /* of the scaled problem at the returned x */
    double scale;           /* s used */
    double norm;            /* c used */
    double lipschitz;       /* FISTA: ||A^H A|| of the normalised operator */
    int converged;
} kr_mrreg_info;

/* Reconstruct into x (c64 [dims..., T] at the ctx's location; trailing 1s ignored). Statuses:
 * KR_ERR_INVALID_ARG (options, terms, method and terms that do not go together), KR_ERR_DIM
 * (shapes), KR_ERR_DTYPE, KR_ERR_LOCATION, KR_ERR_NOT_SUPPORTED (3-D Cartesian data), and those
 * of the operators and algorithms. */
kr_status kr_mrreg(const kr_ctx *ctx, const kr_mrreg_data *data, const kr_mrreg_term *terms,
                   int nterms, const kr_mrreg_opts *opts, kr_array *x, kr_mrreg_info *info);

#ifdef __cplusplus
}
#endif
#endif
