/* Private contract of the ramp filters (kray/fbp.h): the plan, its backend seam, the output
 * layouts that FBP and FDK read, and the CUDA backend's cuFFT helpers. filter.c is the front
 * (validation, kernels and responses, dispatch); filter_cpu.c and filter_cuda.cu are the
 * backends (filter_nocuda.c without CUDA). Users of the filter (fbp, fdk) include this header;
 * the filter includes nothing of theirs. Not installed. */
#ifndef KRAY_FILTER_INTERNAL_H
#define KRAY_FILTER_INTERNAL_H

#include "core/backend.h"
#include "kray/fbp.h"
#include "kray/fft.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- output layouts -------------------------------------------------------------------------
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
/*   PLANAR (host plans only; the CPU backprojection): the same numbers as PAIRS, row r at
 *          out + r * out_stride as KRI_PAD_ROW(ndet) values q_pad[j], then KRI_PAD_ROW(ndet)
 *          differences q_pad[j+1] - q_pad[j], so that consecutive samples of either are
 *          consecutive in memory (one vector load covers the samples of several pixels). */

typedef enum kri_filter_out {
    KRI_FILTER_PLAIN = 0,
    KRI_FILTER_PAIRS = 1,
    KRI_FILTER_PLANAR = 2
} kri_filter_out;

typedef struct kri_filter_backend kri_filter_backend;
typedef struct kri_filter_state kri_filter_state;

/* ---- plan ---------------------------------------------------------------------------------- */
struct kr_filter_plan {
    const kr_ctx *ctx;
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
    const kri_filter_backend *be;
    kri_filter_state *st; /* the backend's buffers and transforms, made by be->create */
};

/* ---- the backend seam (core/backend.h) ------------------------------------------------------
 * A backend's state (one per device) starts with this; the rest is the backend's own. */
struct kri_filter_state {
    int fused; /* CUDA FFT: the multiply and the PLAIN unpack run inside cuFFT's kernels (store
                  callbacks, filter_cufft.cu); 0 otherwise */
};
/* create: the buffers and transforms that run needs for plan p (whose tables are made), in a
 *   state of the backend's own (one per device); destroy frees it (accepts NULL).
 * run: filter the plan's nrows rows. in: row r at in + r * in_stride (elements of the dtype);
 *   out: see the modes above. Pointers are at the plan's location; in may alias out only in
 *   PLAIN mode with equal strides.
 * packed_work, run_packed: CUDA FFT plans only (NULL in the CPU table); see
 *   kri_filter_packed_work and kri_filter_run_packed below.
 * kri_filter_cpu: filter_cpu.c; kri_filter_cuda: filter_cuda.cu (filter_nocuda.c without CUDA). */
struct kri_filter_backend {
    kri_backend_hdr hdr;
    kr_status (*create)(const kr_filter_plan *p, kri_filter_state **st);
    kr_status (*run)(const kr_filter_plan *p, kri_filter_state *st, const void *in,
                     int64_t in_stride, void *out, int64_t out_stride, kri_filter_out mode);
    void *(*packed_work)(const kr_filter_plan *p, kri_filter_state *st, int *pad_zero);
    kr_status (*run_packed)(const kr_filter_plan *p, kri_filter_state *st, void *out,
                            int64_t out_stride, kri_filter_out mode);
    void (*destroy)(kri_filter_state *st);
};
extern const kri_filter_backend kri_filter_cpu, kri_filter_cuda;

/* ---- the front's private entry points (filter.c), for FBP and FDK ---------------------------- */
/* Filter the plan's rows (the backend's run verb). */
kr_status kri_filter_run(kr_filter_plan *p, const void *in, int64_t in_stride, void *out,
                         int64_t out_stride, kri_filter_out mode);
/* CUDA FFT plans: the buffer, complex [L, npairs] of the dtype, that kri_filter_run_packed
 * filters; a caller may pack it itself (row pairs (x_2p[m], x_2p+1[m]) at p * L + m, zero for
 * m >= ndet), with its own pre-weights. *pad_zero = 1 when the buffer's columns m >= ndet are
 * zero already and stay so (the callback plans' separate input buffer: the forward transform
 * reads it out of place), so a packer need not write them. NULL for other plans. */
void *kri_filter_packed_work(kr_filter_plan *p, int *pad_zero);
/* Filter the packed work buffer into out (modes above). CUDA FFT plans only. */
kr_status kri_filter_run_packed(kr_filter_plan *p, void *out, int64_t out_stride,
                                kri_filter_out mode);

/* ---- CUDA backends ------------------------------------------------------------------------- */
/* Copy n doubles to a new device buffer *dst (the ctx's device) as dtype dt (f32 or f64); for
 * the tables of the filter and FBP (filter_cuda.cu). */
kr_status kri_cuda_upload_as(const kr_ctx *ctx, kr_dtype dt, void **dst, const double *src,
                             int64_t n, const char *what);

/* ---- CUDA backend: cuFFT transforms with store callbacks (filter_cufft.cu) --------------------
 * The forward one multiplies by the response d_resp as it stores, the inverse one writes PLAIN
 * rows. *out is NULL (with KR_OK) where cuFFT cannot link the callbacks; the caller then runs
 * separate passes. All run on `stream` (a cudaStream_t). */
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

#ifdef __cplusplus
}
#endif
#endif
