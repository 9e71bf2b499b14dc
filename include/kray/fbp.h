/* kray ramp filters and 2-D filtered backprojection (FBP).
 *
 * ---- Ramp filters (one module for 2-D FBP and 3-D FDK) ------------------------------------
 * A filter plan filters `nrows` rows of `ndet` samples spaced tau_mm apart (arrays [ndet, ...],
 * row after row). With x the (optionally pre-weighted) row, every method computes the linear
 * convolution with zero boundary
 *     out[k] = scale * tau * sum_{m=0}^{ndet-1} h(k - m) x[m],      k = 0 .. ndet-1,
 * for a spatial kernel h (units 1/mm^2, so `out` has the units of x per mm):
 *   band-limited Ram-Lak (Ramachandran & Lakshminarayanan 1971; Kak & Slaney eq. 3.61):
 *       h(0) = 1 / (4 tau^2),  h(n even) = 0,  h(n odd) = -1 / (n^2 pi^2 tau^2);
 *   seed kernel (the 2017 2-D CT document): h_seed(n) = -1 / (4 n^2 - 1). It is the Shepp-Logan
 *       kernel h_SL(n) = -2 / (pi^2 tau^2 (4 n^2 - 1)) without its constant:
 *       h_SL = 2 / (pi^2 tau^2) * h_seed. By default kray applies that constant, so the seed
 *       method gives correctly scaled results; seed_raw = 1 reproduces Cordeiro (2017)'s numbers
 *       (out = scale * sum h_seed(k - m) x[m], no tau, no constant: pi^2 tau / 2 times larger).
 * Methods:
 *   KR_FILTER_FFT (default): rows are zero-padded to L >= 2 ndet (the smallest 2^a 3^b 5^c, so
 *       circular convolution equals linear convolution), transformed, multiplied by the real
 *       response H[k] = W(|nu_k|) * DFT_L(h)[k] and transformed back. H is the DFT of the
 *       band-limited spatial kernel above (summed over all L lags), not a sampled |omega|, so the
 *       DC term is the kernel's true (small positive) sum and there is no DC bias. With the
 *       Ram-Lak window the result equals KR_FILTER_DIRECT to rounding.
 *       Windows W(nu), nu = |frequency| / Nyquist in [0, 1], cutoff c in (0, 1], W = 0 for nu > c:
 *         ramlak       1
 *         shepp-logan  sin(pi nu / (2 c)) / (pi nu / (2 c))
 *         cosine       cos(pi nu / (2 c))
 *         hamming      0.54 + 0.46 cos(pi nu / c)
 *         hann         0.5 + 0.5 cos(pi nu / c)
 *       (with c = 1 these are scikit-image's iradon filters "ramp", "shepp-logan", "cosine",
 *       "hamming", "hann").
 *   KR_FILTER_DIRECT: direct linear convolution with the band-limited Ram-Lak kernel, O(ndet^2)
 *       per row (window must be ramlak, cutoff 1).
 *   KR_FILTER_SEED: direct linear convolution with the seed kernel, O(ndet^2) per row, as in the
 *       document (window must be ramlak, cutoff 1).
 * Equiangular fan detectors (equiangular_rad = alpha > 0, rows sampled in fan angle with pitch
 *   alpha radians): the kernel is multiplied by (n alpha / sin(n alpha))^2 at lag n (Kak & Slaney
 *   eq. 3.122, without its 1/2, which kray puts in the view weights); tau is then the angular
 *   pitch in the caller's units and is usually 1.
 * Pre-weights: row r of the input is multiplied, before filtering, by
 *   pre_weight[m + ndet * ((r / pre_row_div) % pre_rows)] * row_scale[(r / row_scale_div) %
 *   row_scale_count] (either table may be NULL; divisors 0 mean 1). Both tables are copied at
 *   plan creation. FBP uses them for fan-beam cosine weights, Parker weights and view weights;
 *   for cone-beam projections [u, v, view] (rows r = v + nv * view) FDK's cosine table [u, v]
 *   is pre_weight with pre_rows = nv, and per-view factors are row_scale with
 *   row_scale_count = nviews and row_scale_div = nv.
 * Backends: CPU (FFTW through kray/fft.h; OpenMP over rows; every row is computed by the same
 *   code whatever the thread count, so cpu == cpu-serial bit for bit) and CUDA (cuFFT through a
 *   kray/fft.h device plan, pairs of real rows packed into one complex row; everything is
 *   allocated and planned at plan creation, execute only launches kernels on the ctx's stream).
 * Precision: the plan's dtype (KR_F32 or KR_F64) is the type of the arrays and of the arithmetic;
 *   kernels and responses are computed in double at plan creation.
 *
 * ---- 2-D filtered backprojection ----------------------------------------------------------
 * Geometry, units and layouts are those of kray/ct.h: sinograms [det, view] (or [det, view, nb])
 * of line integrals (dimensionless), images [x, y] (or [x, y, nb]) of attenuation in 1/mm.
 * FBP returns attenuation values with no arbitrary normalisation: reconstructing an exact
 * sinogram gives the density of a uniform region.
 *   parallel2d: f(p) = sum_v w_v Q_v(s_v(p)), Q_v = tau_perp * (h * R_v) with tau_perp the ray
 *     spacing, w_v the angular weight of view v (half the gap to its neighbours modulo 180
 *     degrees: pi / nviews for a uniform 180-degree scan, and also for a 360-degree scan, whose
 *     opposite views count half each).
 *   fan2d-flat (Kak & Slaney 3.4.2): the detector is scaled to the virtual detector through the
 *     rotation axis; rows are pre-weighted by D / sqrt(D^2 + s^2) (the cosine weight), filtered
 *     with the ramp of the virtual spacing, and backprojected with the distance weight 1 / U^2,
 *     U = (distance from the source to the pixel along the central ray) / D.
 *   fan2d-equiangular (Kak & Slaney 3.4.1): rows pre-weighted by D cos(gamma), filtered with the
 *     equiangular kernel (see above), backprojected with the weight 1 / L^2, L = distance from
 *     the source to the pixel.
 *   Fan view weights: full scans (views covering 360 degrees) get half the angular gap to their
 *     neighbours; short scans (auto-detected from the view order and coverage, or forced by
 *     opts.short_scan) get Parker (1982) weights with delta = (arc - 180 degrees) / 2, arc = the
 *     angle from the first to the last view; arcs shorter than 180 degrees plus the fan angle are
 *     accepted with a warning (the weights then under-cover the edge rays).
 *   D is the distance from the source to the line through the rotation axis parallel to the
 *   detector (flat) or from the source to the axis (equiangular). Detector offsets (det_offset)
 *   and centre-of-rotation offsets are exact. A centre-of-rotation offset c moves the source
 *   sideways, off the detector's normal through the axis: the cosine weight is then
 *   R cos(gamma) / D, gamma the angle between the pixel's ray and the ray through the axis and
 *   R the source-axis distance; on a flat detector (sdd + (c / D) s) / sqrt(sdd^2 + s^2), s the
 *   pixel's position from the foot of the source's normal. (Weights for a centred source scale
 *   the image by about 1 - (c / D)^2.)
 * Backprojection is pixel-driven with linear interpolation between the two nearest samples of
 * the filtered projection. The filtered projection is the linear convolution of the measured
 * row, so it is known (exactly, from the zero-padded FFT) one sample beyond each end of the
 * detector; those two samples are used and the projection is zero further out. (This is what
 * scikit-image's iradon does with its padded sinogram: on an exact Shepp-Logan sinogram the two
 * agree to ~1e-13 over the whole reconstruction circle.) Negative values are kept unless
 * clamp_negative is set.
 * Backends: cpu-serial, cpu (OpenMP over fixed blocks of image rows; bit-identical to cpu-serial)
 * and cuda (float or double kernels; agree with the CPU to float rounding).
 */
#ifndef KRAY_FBP_H
#define KRAY_FBP_H

#include "kray/core.h"
#include "kray/ct.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- filters ------------------------------------------------------------------------------ */
typedef enum kr_filter_method {
    KR_FILTER_FFT = 0, /* zero-padded FFT with the DFT of the band-limited kernel and a window */
    KR_FILTER_DIRECT,  /* direct convolution with the band-limited Ram-Lak kernel */
    KR_FILTER_SEED,    /* direct convolution with the seed kernel -1/(4n^2-1) */
    KR_FILTER_METHOD_COUNT
} kr_filter_method;

typedef enum kr_filter_window {
    KR_WINDOW_RAMLAK = 0,  /* "ramlak" (also "ramp") */
    KR_WINDOW_SHEPP_LOGAN, /* "shepp-logan" */
    KR_WINDOW_COSINE,      /* "cosine" */
    KR_WINDOW_HAMMING,     /* "hamming" */
    KR_WINDOW_HANN,        /* "hann" */
    KR_WINDOW_COUNT
} kr_filter_window;

const char *kr_filter_method_name(kr_filter_method m); /* "fft", "direct", "seed" */
kr_status kr_filter_method_from_name(const char *s, kr_filter_method *m);
const char *kr_filter_window_name(kr_filter_window w);
kr_status kr_filter_window_from_name(const char *s, kr_filter_window *w);

typedef struct kr_filter_opts {
    kr_filter_method method;  /* default KR_FILTER_FFT */
    kr_filter_window window;  /* default KR_WINDOW_RAMLAK */
    double cutoff;            /* fraction of Nyquist in (0, 1]; default 1 */
    double tau_mm;            /* sample spacing, > 0; default 1 */
    double scale;             /* finite overall factor; default 1 */
    int seed_raw;             /* KR_FILTER_SEED: 1 = Cordeiro (2017)'s unscaled kernel; default 0 */
    double equiangular_rad;   /* > 0: equiangular kernel modulation with this pitch; default 0 */
    kr_dtype dtype;           /* KR_F32 (default) or KR_F64 */
    int64_t pad_len;          /* FFT length; 0 = auto (smallest 2^a 3^b 5^c >= 2 ndet), else
                                 >= 2 ndet */
    const double *pre_weight; /* optional [ndet, pre_rows] table (copied); NULL = none */
    int64_t pre_rows;         /* rows in pre_weight (>= 1 when it is given) */
    int64_t pre_row_div;      /* row r uses table row (r / pre_row_div) % pre_rows; 0 = 1 */
    const double *row_scale;  /* optional per-row factors (copied); NULL = none */
    int64_t row_scale_count;  /* entries in row_scale (>= 1 when it is given) */
    int64_t row_scale_div;    /* row r uses row_scale[(r / row_scale_div) % count]; 0 = 1 */
    int fuse;                 /* CUDA fft: the response multiply and the unpack inside cuFFT's
                                 kernels (store callbacks, linked when the plan is made: ~0.3 s
                                 a plan, ~5 ms saved a run at 6e8 complex cells). -1 never, 0
                                 auto (default: from 2^26 cells, for plans run many times), 1
                                 always; the environment's KRAY_CUFFT_CALLBACKS=0|1 overrides */
} kr_filter_opts;

void kr_filter_opts_default(kr_filter_opts *o);

typedef struct kr_filter_plan kr_filter_plan;

/* Plan filtering of nrows rows of ndet samples on the ctx's backend (the ctx must outlive the
 * plan). CUDA plans take device arrays, CPU plans host arrays (KR_ERR_LOCATION otherwise). */
kr_status kr_filter_plan_create(kr_filter_plan **plan, const kr_ctx *ctx, int64_t ndet,
                                int64_t nrows, const kr_filter_opts *o);
/* in, out: contiguous arrays of the plan's dtype with dims[0] == ndet and ndet * nrows elements
 * (e.g. a sinogram [det, view] or projections [u, v, view]). in == out is allowed. */
kr_status kr_filter_execute(kr_filter_plan *plan, const kr_array *in, kr_array *out);
void kr_filter_plan_destroy(kr_filter_plan *plan); /* accepts NULL */

int64_t kr_filter_pad_len(const kr_filter_plan *plan); /* L for FFT plans, 0 otherwise */
/* Effective spatial kernel scale * tau * h(n) for lags n = 0 .. count-1 (h is even; count <=
 * ndet): the formula for DIRECT/SEED, the lags of the inverse DFT of the response for FFT. */
kr_status kr_filter_kernel(const kr_filter_plan *plan, double *h, int64_t count);
/* Real frequency response (incl. scale * tau) at the L FFT bins, FFT plans only. */
kr_status kr_filter_response(const kr_filter_plan *plan, double *resp, int64_t count);

/* ---- 2-D FBP ------------------------------------------------------------------------------ */
typedef struct kr_fbp_opts {
    kr_filter_method filter; /* default KR_FILTER_FFT */
    kr_filter_window window; /* default KR_WINDOW_RAMLAK */
    double cutoff;           /* default 1 */
    int seed_raw;            /* see kr_filter_opts; default 0 */
    int clamp_negative;      /* 1: negative pixels set to 0 (as Cordeiro (2017)); default 0 */
    int short_scan;          /* fan only: -1 auto (default), 0 full-scan weights, 1 Parker */
    kr_dtype dtype;          /* KR_F32 (default) or KR_F64 */
} kr_fbp_opts;

void kr_fbp_opts_default(kr_fbp_opts *o);

typedef struct kr_fbp_plan kr_fbp_plan;

/* Plan FBP for geometry g (copied) on the ctx's backend. Filter plans, view weights, per-view
 * backprojection tables and all buffers (device buffers for CUDA) are made here. */
kr_status kr_fbp_plan_create(kr_fbp_plan **plan, const kr_ctx *ctx, const kr_ct_geom *g,
                             const kr_fbp_opts *o);
/* image = FBP(sino). sino [det, view] or [det, view, nb]; image [nx, ny] or [nx, ny, nb], both
 * contiguous, of the plan's dtype and at the backend's location; image is overwritten. No
 * allocation happens here; CUDA work is queued on the ctx's stream (asynchronous: copying the
 * image to the host synchronises). A plan holds its work buffers: do not execute one plan
 * from two threads at once (filter plans likewise). */
kr_status kr_fbp_execute(kr_fbp_plan *plan, const kr_array *sino, kr_array *image);
void kr_fbp_plan_destroy(kr_fbp_plan *plan); /* accepts NULL */

/* Split execution for benchmarks: filter the sinogram slice into the plan's buffer, then
 * backproject that buffer. kr_fbp_execute == filter + backproject per slice. */
kr_status kr_fbp_filter(kr_fbp_plan *plan, const kr_array *sino);
kr_status kr_fbp_backproject(kr_fbp_plan *plan, kr_array *image);

/* What the plan decided (for logs, reports and tests). */
typedef struct kr_fbp_info {
    int short_scan;     /* 1 when Parker weights are used */
    double arc_deg;     /* angular coverage used for the weights */
    double fan_deg;     /* full fan angle (0 for parallel) */
    int64_t pad_len;    /* FFT length (0 for direct filters) */
    int view_groups;    /* CUDA: views split into this many partial sums (1 = none) */
    const char *kernel; /* CUDA backprojection kernel in use, or "cpu" */
} kr_fbp_info;
kr_status kr_fbp_plan_info(const kr_fbp_plan *plan, kr_fbp_info *info);

/* One-shot: plan, execute, destroy. */
kr_status kr_fbp(const kr_ctx *ctx, const kr_ct_geom *g, const kr_fbp_opts *o, const kr_array *sino,
                 kr_array *image);

#ifdef __cplusplus
}
#endif
#endif
