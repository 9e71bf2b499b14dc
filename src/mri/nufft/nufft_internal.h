/* Private contract between nufft.c (validation, plan, dispatch), nufft_kernel.c (Kaiser-Bessel
 * kernel, parameter choice, deapodisation), nufft_cpu.c (OpenMP spreading / interpolation) and
 * nufft_cuda.cu (CUDA). Not installed. */
#ifndef KRAY_NUFFT_INTERNAL_H
#define KRAY_NUFFT_INTERNAL_H

#include "core/backend.h"
#include "internal.h"
#include "mri/mri_internal.h"
#include "kray/fft.h"
#include "kray/nufft.h"

#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define KRI_NUFFT_MAX_W 16   /* widest kernel */
#define KRI_NUFFT_MAX_DEG 23 /* highest polynomial degree of a kernel piece */
#define KRI_NUFFT_NCOEF ((KRI_NUFFT_MAX_DEG + 1) * KRI_NUFFT_MAX_W)

/* ---- kernel (nufft_kernel.c) ----------------------------------------------------------------
 * phi(t) = I0(beta sqrt(1 - (2t/w)^2)) / I0(beta) for |t| <= w/2 (t in grid cells), else 0.
 * A point at grid coordinate u touches the w cells l0 .. l0 + w - 1 with l0 = ceil(u - w/2);
 * with s = l0 - (u - w/2) in [0, 1) and z = 2 s - 1 in [-1, 1], the kernel value at cell
 * l0 + j (j = 0 .. w-1) is phi(s - w/2 + j) = sum_k coef[k * KRI_NUFFT_MAX_W + j] z^k
 * (k = 0 .. degree): one polynomial per piece, evaluated by Horner for all j at once. */
typedef struct kri_nufft_kernel {
    int w;
    double beta;
    int degree;
    double fit_err; /* max |polynomial - phi| over the pieces (phi(0) = 1) */
    double coef[KRI_NUFFT_NCOEF];
    float coeff[KRI_NUFFT_NCOEF]; /* the same, rounded to float */
} kri_nufft_kernel;

/* Kernel width for a requested relative l2 error on a grid oversampled by sigma in `ndim` dims
 * (0 when no width up to KRI_NUFFT_MAX_W reaches it). */
int kri_nufft_width_for(double eps, double sigma, int ndim);
/* Kaiser-Bessel shape for width w and oversampling sigma (Beatty et al. 2005). */
double kri_nufft_beta_for(int w, double sigma);
/* Fit the piecewise polynomials to within `tol` (absolute, phi(0) = 1); raises the degree up
 * to KRI_NUFFT_MAX_DEG and fails with KR_ERR_INTERNAL if the fit cannot reach tol. */
kr_status kri_nufft_kernel_init(kri_nufft_kernel *k, int w, double beta, double tol);
double kri_nufft_kernel_exact(const kri_nufft_kernel *k, double t);
/* Fourier transform of phi at frequency xi (cycles per grid cell): integral phi(t)
 * exp(-2 pi i xi t) dt, in closed form. */
double kri_nufft_kernel_ft(const kri_nufft_kernel *k, double xi);
/* Evaluate the w kernel values of a point with fractional offset s in [0, 1] (Horner). */
void kri_nufft_kernel_vals_d(const kri_nufft_kernel *k, double s, double *vals);
/* Smallest even 2^a 3^b 5^c >= max(ceil(sigma N), 2 w). */
int64_t kri_nufft_grid_size(int64_t N, double sigma, int w);
/* Deapodisation factors D[i] = 1 / phi_hat((i - N/2) / n), i = 0 .. N-1. */
void kri_nufft_deapod(const kri_nufft_kernel *k, int64_t N, int64_t n, double *D);

/* ---- plan ----------------------------------------------------------------------------------- */
typedef struct kri_nufft_dev kri_nufft_dev;
typedef struct kri_nufft_backend kri_nufft_backend;

struct kr_nufft_plan {
    const kr_ctx *ctx;
    kr_nufft_opts opts; /* as given (batch, sigma filled in) */
    kr_backend backend;
    const kri_nufft_backend *be; /* picked by the context (NULL only in a failed create) */
    kr_dtype dtype; /* KR_C64 or KR_C128 */
    int dbl;        /* dtype == KR_C128 */
    int ndim;
    int64_t N[3], n[3]; /* image and grid dims; unused dims 1 */
    int64_t ngrid;      /* n[0] n[1] n[2] */
    int64_t nimg;       /* N[0] N[1] N[2] */
    int64_t batch;
    double eps, sigma;
    int check_finite;
    int gpu_max_subprob, gpu_max_batch, gpu_bin[3];
    kri_nufft_kernel ker;
    double *deapod[3]; /* host, N[d] values each */

    int64_t M; /* points set (0 before kr_nufft_set_points) */

    /* CPU backend (kri_nufft_cpu) */
    int nthreads;
    int simd;          /* the AVX2 bodies (x86-64 CPUs that have it) */
    int64_t cap;       /* points the arrays below hold (grown, never shrunk, by set_points) */
    int32_t *perm;     /* sorted position -> original point index */
    void *kxyz;        /* sorted order: the ndim coordinates of each point, float (kf32) or
                        * double as the trajectory was given (the footprint, first cell l0 and
                        * offset s, is computed from them when it is needed) */
    int kf32;
    int32_t *ptile;    /* set_points: each point's tile (original order) */
    double gscale[3];  /* n[d] / N[d] */
    int ntile[3];      /* tiles per dim: even (>= 2) for tiled dims, 1 otherwise */
    int32_t *cell_tile[3]; /* cell c of the footprint centre, -n <= c < 2 n -> tile along the dim */
    int64_t *tile_start;   /* sorted points of tile t: [tile_start[t], tile_start[t + 1]) */
    int64_t *hist;         /* set_points: per-chunk tile counts, then cursors (nchunk ntiles) */
    int nchunk;            /* set_points: chunks of the counting sort */
    void *tbuf;            /* per-thread tile buffers of tbuf_cells complex values each */
    int64_t tbuf_cells;    /* (largest tile + w - 1)^ndim */
    void *grid;            /* one host grid, n[0] n[1] n[2] complex values */
    void *dpre[3];         /* deapod factors in the plan's real type */
    kr_fft_plan *fft_fwd, *fft_bwd;

    /* CUDA backend (kri_nufft_cuda): its device state */
    kri_nufft_dev *dev;
    /* a context of several devices and a batch: one plan per part (nufft_multi.c) */
    struct kri_nufftm *multi;
    /* the parts' own plans, made and destroyed by what nufft.c sets here (the parts sit above
     * single plans and so do not call into nufft.c: scripts/check-layout) */
    kr_status (*part_create)(kr_nufft_plan **plan, const kr_ctx *ctx, int ndim, const int64_t *N,
                             const kr_nufft_opts *opts);
    void (*part_destroy)(kr_nufft_plan *plan);
};

/* A validated trajectory: nc (2 or 3) f32/f64 coordinates for each of M points, contiguous,
 * in host or device memory. */
typedef struct kri_nufft_traj {
    const void *data;
    kr_dtype dtype;
    int64_t nc, M;
    kr_loc loc;
} kri_nufft_traj;

/* Geometry of one coordinate k along dim d (the same arithmetic on host and device, in double
 * without fused multiply-add): ok = finite and |k| <= N/2 (k == 0 for a dim the plan does not
 * have); grid coordinate u = k (n / N); first footprint cell l0 = ceil(u - w/2), wrapped into
 * [0, n); offset s = l0 - (u - w/2) in [0, 1). */
#define KRI_NUFFT_COORD_OK(k, d, ndim, N) \
    (isfinite(k) && ((d) < (ndim) ? fabs(k) <= 0.5 * (double)(N) : (k) == 0.0))

/* ---- the backend seam (core/backend.h) -------------------------------------------------------
 * The plan's context picks the table at creation: kri_nufft_cpu (nufft_cpu.c) for CPU contexts,
 * kri_nufft_cuda (nufft_cuda.cu; nufft_nocuda.c without CUDA) for CUDA contexts.
 * create: the backend's state for the plan (the CPU fields of kr_nufft_plan: host grid, tiles,
 *   FFT plans; the CUDA backend's p->dev); destroy frees it (also after a failed create).
 * set_points: validate the points (the first invalid coordinate index m nc + d in *bad, -1 when
 *   all are valid; the plan then has no points), compute their footprints and sort them (the
 *   CUDA backend uploads a host trajectory first), reusing the arrays of the last call when they
 *   are large enough.
 * forward / adjoint: batched transforms of contiguous arrays in the backend's memory, image
 *   [nimg, batch], kspace [M, batch]. When the plan checks finiteness, the first non-finite input
 *   index (element of [nimg, batch] or [M, batch]) is returned in *bad (-1: none; the output is
 *   then unspecified); the CUDA backend queues on the ctx stream and synchronises for that. */
struct kri_nufft_backend {
    kri_backend_hdr hdr;
    kr_status (*create)(kr_nufft_plan *p);
    void (*destroy)(kr_nufft_plan *p);
    kr_status (*set_points)(kr_nufft_plan *p, const kri_nufft_traj *t, int64_t *bad);
    kr_status (*forward)(kr_nufft_plan *p, const void *image, void *kspace, int64_t *bad);
    kr_status (*adjoint)(kr_nufft_plan *p, const void *kspace, void *image, int64_t *bad);
};
extern const kri_nufft_backend kri_nufft_cpu, kri_nufft_cuda;
/* The batch members divided over the devices of a context (nufft_multi.c): its state is
 * p->multi, one plan of the CPU or CUDA table per part. */
extern const kri_nufft_backend kri_nufft_multi;

/* Spreading and interpolation of one batch member on a CPU plan's grid (no FFT; nufft_cpu.c):
 * exposed so the tests can check them against direct sums of the kernel, and for the gridded
 * FVE (fve_grid.c). */
void kri_cpu_nufft_spread(kr_nufft_plan *p, const void *kspace);
void kri_cpu_nufft_interp(kr_nufft_plan *p, void *kspace);

#ifdef __cplusplus
}
#endif
#endif
