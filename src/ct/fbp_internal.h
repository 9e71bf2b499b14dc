/* Private contract between filter.c / filter_cuda.cu (ramp filters) and fbp.c / fbp_cpu.c /
 * fbp_cuda.cu (2-D FBP). Not installed. */
#ifndef KRAY_FBP_INTERNAL_H
#define KRAY_FBP_INTERNAL_H

#include "internal.h"
#include "kray/fbp.h"
#include "kray/fft.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- filter plan ----------------------------------------------------------------------------
 * Output modes of kri_filter_run:
 *   PLAIN: row r written to out + r * out_stride (elements), ndet values;
 *   PAIRS: row r written to out + r * out_stride as KRI_PAD_ROW(ndet) interleaved pairs
 *          (q_pad[j], q_pad[j+1] - q_pad[j]), j = 0 .. ndet + 3, where q_pad[j] = q[j - KRI_PAD]
 *          is the filtered row at position j - KRI_PAD for positions -1 .. ndet (the linear
 *          convolution extends one sample past each end of the detector: those two values are
 *          exact, as the FFT length is >= 2 ndet) and zero at positions -2 and ndet + 1, with
 *          q_pad[ndet + 4] = 0. Linear interpolation at padded position k in [0, ndet + 3] is
 *          p[2i] + (k - i) p[2i + 1], i = floor(k), and is zero at both ends of that range, so
 *          clamping k to it (or skipping k outside it) gives the filtered projection extended
 *          by zero with no other bounds test. */
#define KRI_PAD 2
#define KRI_PAD_ROW(n) ((n) + 2 * KRI_PAD) /* pairs per padded row */

typedef enum kri_filter_out { KRI_FILTER_PLAIN = 0, KRI_FILTER_PAIRS = 1 } kri_filter_out;

struct kr_filter_plan {
    const kr_ctx *ctx;
    kr_backend backend;
    kr_loc loc;
    kr_filter_opts o; /* table pointers point to the copies below */
    int64_t ndet, nrows;
    int64_t L;      /* FFT length (0 for direct methods) */
    int64_t npairs; /* complex rows: (nrows + 1) / 2 */
    double *kern;   /* effective kernel scale * tau * h(n), n = 0 .. ndet-1 */
    double *resp;   /* FFT: response at the L bins, including the 1/L of the inverse FFT */
    double *pre;    /* [ndet, pre_rows] or NULL */
    double *rs;     /* [rs_count] or NULL */
    int64_t pre_rows, rs_count, pre_div, rs_div; /* divisors >= 1 */
    /* host buffers (CPU backends) */
    void *work;   /* FFT: complex [L, npairs]; direct: real [ndet, nrows] x 2 */
    void *kern_t; /* direct: kern in the dtype */
    kr_fft_plan *fwd, *bwd;
    kr_ctx *serial; /* small host problems: one thread (parallel regions cost more than
                       they save), NULL otherwise */
    /* device buffers (CUDA) in the plan's dtype */
    void *d_kern, *d_resp, *d_pre, *d_rs, *d_work, *d_plain;
    void *d_in; /* with cb and no cuFFT workspace: the packed input, zero padding kept */
    struct kri_filter_cufft *cb; /* CUDA FFT: transforms with store callbacks, or NULL (then
                                  * fwd/bwd and separate passes; bwd serves PAIRS either way) */
};

/* CUDA FFT plans: the buffer, complex [L, npairs] of the dtype, that kri_filter_run_packed
 * filters; a caller may pack it itself (row pairs (x_2p[m], x_2p+1[m]) at p * L + m, zero for
 * m >= ndet), with its own pre-weights. *pad_zero = 1 when the buffer's columns m >= ndet are
 * zero already and stay so (the callback plans' separate input buffer: the forward transform
 * reads it out of place), so a packer need not write them. NULL for other plans. */
void *kri_filter_packed_work(kr_filter_plan *p, int *pad_zero);
/* Filter the packed work buffer into out (modes below). CUDA FFT plans only. */
kr_status kri_filter_run_packed(kr_filter_plan *p, void *out, int64_t out_stride,
                                kri_filter_out mode);

/* Filter the plan's nrows rows. in: row r at in + r * in_stride (elements of the dtype); out:
 * see the modes above. Pointers are at the plan's location; in may alias out only in PLAIN mode
 * with equal strides. */
kr_status kri_filter_run(kr_filter_plan *p, const void *in, int64_t in_stride, void *out,
                         int64_t out_stride, kri_filter_out mode);

/* CUDA launchers of the filter (filter_cuda.cu). T = float when f64 == 0, double otherwise.
 * All run on `stream` (a cudaStream_t), check their launch and do not synchronise. */
/* Pre-weight tables as in kr_filter_opts: pre row (r / pre_div) % pre_rows, scale
 * rs[(r / rs_div) % rs_count]; NULL tables mean 1. */
typedef struct kri_rowweights {
    const void *pre, *rs;
    int64_t pre_rows, pre_div, rs_count, rs_div;
} kri_rowweights;
kr_status kri_cuda_filter_pack(void *stream, int f64, const void *in, int64_t in_stride,
                               kri_rowweights w, void *work, int64_t ndet, int64_t nrows,
                               int64_t L);
kr_status kri_cuda_filter_mul(void *stream, int f64, void *work, const void *resp, int64_t L,
                              int64_t npairs);
kr_status kri_cuda_filter_unpack(void *stream, int f64, const void *work, int64_t L, void *out,
                                 int64_t out_stride, int mode, int64_t ndet, int64_t nrows);
/* Direct convolution: out[r * out_stride + k + shift] = filtered position k for
 * k = -shift .. ndet - 1 + shift (shift 0: positions 0 .. ndet-1; shift 1: -1 .. ndet). */
kr_status kri_cuda_filter_direct(void *stream, int f64, const void *in, int64_t in_stride,
                                 kri_rowweights w, const void *kern, void *out, int64_t out_stride,
                                 int shift, int64_t ndet, int64_t nrows);
/* cuFFT transforms of the FFT filter with store callbacks (filter_cufft.cu): the forward one
 * multiplies by the response d_resp as it stores, the inverse one writes PLAIN rows. *out is NULL
 * (with KR_OK) where cuFFT cannot link the callbacks; the caller then runs separate passes. */
typedef struct kri_filter_cufft kri_filter_cufft;
/* Complex work cells (L * pairs) from which the callbacks are used with fuse = 0 (auto); smaller
 * filters keep the separate passes (the plan-time link would cost more than it saves). fuse -1
 * never, 1 at any size (up to 2^32 cells, where their 32-bit indices end); the environment
 * variable KRAY_CUFFT_CALLBACKS=0|1 overrides fuse. */
#define KRI_FILTER_CB_MIN ((int64_t)1 << 26)
kr_status kri_filter_cufft_create(kri_filter_cufft **out, const kr_ctx *ctx, int f64, int fuse,
                                  int64_t L, int64_t npairs, int64_t ndet, int64_t nrows,
                                  const void *d_resp, size_t *workspace);
/* forward transform of in (complex [L, npairs]) into work, times the response; in == work is
 * allowed; in is not changed otherwise */
kr_status kri_filter_cufft_forward(kri_filter_cufft *f, void *stream, const void *in, void *work);
kr_status kri_filter_cufft_inverse_plain(kri_filter_cufft *f, void *stream, void *work, void *out,
                                         int64_t out_stride);
void kri_filter_cufft_destroy(kri_filter_cufft *f);
/* plain: rows of ndet + 2 values holding positions -1 .. ndet (from the direct kernel). */
kr_status kri_cuda_filter_pairs(void *stream, int f64, const void *plain, void *out,
                                int64_t out_stride, int64_t ndet, int64_t nrows);

/* ---- FBP --------------------------------------------------------------------------------------
 * Per-view backprojection parameters in pixel-index space (i along x, j along y), padded
 * detector coordinates (index + KRI_PAD):
 *   PAR:   k = a0 + a1 i + a2 j;                             weight 1
 *   FLAT:  A = a0 + a1 i + a2 j, B = b0 + b1 i + b2 j; k = A / B + k0;       weight 1 / B^2
 *   EQUI:  A, B as FLAT;         k = atan2(A, B) * c + k0;   weight 1 / (A^2 + B^2)
 * View weights, detector spacing, D factors, cosine and Parker weights are in the filter's
 * pre-weights and row scales. */
/* Floats of readable slack after the CPU pair rows (vector loads may run past a row's end). */
#define KRI_CPU_TAIL 64

typedef enum kri_bp_kind { KRI_BP_PAR = 0, KRI_BP_FLAT = 1, KRI_BP_EQUI = 2 } kri_bp_kind;

typedef struct kri_bp_view {
    double a0, a1, a2, b0, b1, b2, k0, c;
} kri_bp_view;

/* CPU backprojection of filtered pair rows (stride 2 * KRI_PAD_ROW(ndet) elements per view)
 * into image [nx, ny] (overwritten); OpenMP over fixed 16-row blocks. simd != 0 allows the
 * AVX2 row loops where the CPU has them (same bits as the scalar loops; tests compare). */
kr_status kri_cpu_fbp_backproject(int f64, kri_bp_kind kind, const kri_bp_view *views,
                                  int64_t nviews, const void *pairs, int64_t ndet, void *image,
                                  int64_t nx, int64_t ny, int clamp, int nthreads, int simd);

/* CUDA backprojection (fbp_cuda.cu). views: device array of nviews x 8 values of the dtype
 * (a0, a1, a2, b0, b1, b2, k0, c); pairs: device pair rows; image: device [nx, ny];
 * partial: device [groups, nx, ny] scratch when groups > 1. smem_w > 0 selects the
 * shared-memory tiled kernel with that staged window width (pairs per view), 0 the global
 * fallback. */
#define KRI_BP_TILE_X 32
#define KRI_BP_TILE_Y 64
#define KRI_BP_CHUNK 32 /* views staged per shared-memory pass */
kr_status kri_cuda_fbp_backproject(void *stream, int f64, kri_bp_kind kind, const void *views,
                                   int64_t nviews, const void *pairs, int64_t ndet, void *image,
                                   int64_t nx, int64_t ny, int clamp, int groups, void *partial,
                                   int smem_w);
/* Number of multiprocessors of CUDA device `dev`. */
kr_status kri_cuda_sm_count(int dev, int *count);
/* Largest dynamic shared memory a tiled kernel may use (bytes), to pick smem_w. */
#define KRI_BP_SMEM_MAX (48 * 1024)

#ifdef __cplusplus
}
#endif
#endif
