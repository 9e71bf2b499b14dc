/* The locally-low-rank prox on the GPU (the batched one-sided Jacobi SVD of prox_llr_cuda.cu):
 * every block is built as U diag(s) V^H with known singular values s (random orthonormal U and
 * V from Gram-Schmidt in double), so the prox has the closed form U diag(max(0, s - tau)) V^H and
 * the value is lambda sum s. Checked on the device against the closed form and against the CPU
 * prox, for f32, f64, c64 and c128, 2-D and 3-D blocks, edge blocks and shifts, in place, with
 * the matrices in shared memory (also past the 48 KB default, by opt-in) and in global memory
 * (KRAY_LLR_GPU=global, and automatically when a block does not fit). Tolerances: the closed
 * form to 2e-5 (single) / 1e-11 (double) of the largest value, CPU vs GPU to 1e-5 / 1e-12. */
#include "kray/reg.h"
#include "kt.h"

#include <complex.h>
#include <stdlib.h>
#include <string.h>

static kr_ctx *g_cpu, *g_gpu;

static int single(kr_dtype t) { return t == KR_F32 || t == KR_C64; }

/* Random orthonormal columns: q (rows x cols, column-major, complex when cplx) from
 * Gram-Schmidt (twice) on uniform numbers of `seed`. */
static void orthonormal(double complex *q, int rows, int cols, int cplx, uint64_t seed)
{
    for (int j = 0; j < cols; j++) {
        for (int i = 0; i < rows; i++) {
            double re = kt_urand(&seed) - 0.5, im = cplx ? kt_urand(&seed) - 0.5 : 0;
            q[j * rows + i] = re + I * im;
        }
        for (int pass = 0; pass < 2; pass++)
            for (int k = 0; k < j; k++) {
                double complex d = 0;
                for (int i = 0; i < rows; i++) d += conj(q[k * rows + i]) * q[j * rows + i];
                for (int i = 0; i < rows; i++) q[j * rows + i] -= d * q[k * rows + i];
            }
        double nrm = 0;
        for (int i = 0; i < rows; i++) nrm += pow(cabs(q[j * rows + i]), 2);
        for (int i = 0; i < rows; i++) q[j * rows + i] /= sqrt(nrm);
    }
}

typedef struct llr_case {
    const char *what;
    int ndim, axis;
    int64_t dims[4], block, shift[4];
} llr_case;

/* Element offset of pixel coordinates (p, j) where p are the non-axis coordinates. */
static int64_t offset_of(const llr_case *c, const int64_t *coord)
{
    int64_t off = 0, st = 1;
    for (int a = 0; a < c->ndim; a++) {
        off += coord[a] * st;
        st *= c->dims[a];
    }
    return off;
}

static void put(kr_array *a, int64_t e, double complex v)
{
    const int w = kr_dtype_is_complex(a->dtype) ? 2 : 1;
    for (int q = 0; q < w; q++) {
        const double x = q ? cimag(v) : creal(v);
        if (single(a->dtype))
            ((float *)a->data)[e * w + q] = (float)x;
        else
            ((double *)a->data)[e * w + q] = x;
    }
}

static double sc(const kr_array *a, int64_t k)
{
    return single(a->dtype) ? ((const float *)a->data)[k] : ((const double *)a->data)[k];
}

/* The input (blocks U diag(s) V^H) and the closed-form prox, host arrays of dtype t; *nuc the
 * sum of all singular values. */
static void build(const llr_case *c, kr_dtype t, double tau, kr_array **in, kr_array **ref,
                  double *nuc)
{
    KT_OK(kr_array_create(in, t, c->ndim, c->dims, KR_HOST, NULL));
    KT_OK(kr_array_create(ref, t, c->ndim, c->dims, KR_HOST, NULL));
    const int cplx = kr_dtype_is_complex(t);
    const int64_t n = c->dims[c->axis];
    int64_t nb[4], nblocks = 1;
    for (int a = 0; a < c->ndim; a++) {
        const int64_t len = a == c->axis ? 1 : c->dims[a];
        const int64_t bl = len < c->block ? len : c->block;
        nb[a] = (len + bl - 1) / bl;
        nblocks *= nb[a];
    }
    *nuc = 0;
    for (int64_t b = 0; b < nblocks; b++) {
        int64_t lo[4], ext[4], rem = b, m = 1;
        for (int a = 0; a < c->ndim; a++) {
            const int64_t len = a == c->axis ? 1 : c->dims[a];
            const int64_t bl = len < c->block ? len : c->block, bi = rem % nb[a];
            rem /= nb[a];
            lo[a] = bi * bl;
            ext[a] = lo[a] + bl <= len ? bl : len - lo[a];
            m *= ext[a];
        }
        const int r = (int)(m < n ? m : n);
        double complex *U = malloc(sizeof *U * (size_t)(m * r)), *V = malloc(sizeof *V * (size_t)(n * r));
        orthonormal(U, (int)m, r, cplx, 1000 + (uint64_t)b);
        orthonormal(V, (int)n, r, cplx, 5000 + (uint64_t)b);
        double *s = malloc(sizeof *s * (size_t)r);
        for (int j = 0; j < r; j++) {
            s[j] = 3.0 * exp(-0.35 * j) * (1.0 + 0.1 * (double)(b % 7)); /* distinct, some < tau */
            *nuc += s[j];
        }
        for (int64_t k = 0; k < m; k++)
            for (int64_t j = 0; j < n; j++) {
                int64_t coord[4], rr = k;
                for (int a = 0; a < c->ndim; a++) {
                    if (a == c->axis) {
                        coord[a] = j;
                        continue;
                    }
                    int64_t q = lo[a] + rr % ext[a] - c->shift[a];
                    rr /= ext[a];
                    coord[a] = (q % c->dims[a] + c->dims[a]) % c->dims[a];
                }
                double complex v = 0, e = 0;
                for (int l = 0; l < r; l++) {
                    const double complex uv = U[l * m + k] * conj(V[l * n + j]);
                    v += s[l] * uv;
                    e += (s[l] > tau ? s[l] - tau : 0.0) * uv;
                }
                const int64_t off = offset_of(c, coord);
                put(*in, off, v);
                put(*ref, off, e);
            }
        free(U), free(V), free(s);
    }
}

/* max |a - b| / max |b| over the scalars (a on the device or host, b on the host) */
static double rel(const kr_array *a, const kr_array *b)
{
    kr_array *h = NULL;
    KT_OK(kr_array_clone(&h, a, KR_HOST, g_gpu));
    const int64_t ns = kr_array_numel(b) * (kr_dtype_is_complex(b->dtype) ? 2 : 1);
    double e = 0, mx = 0;
    for (int64_t k = 0; k < ns; k++) {
        e = fmax(e, fabs(sc(h, k) - sc(b, k)));
        mx = fmax(mx, fabs(sc(b, k)));
    }
    kr_array_destroy(h);
    return mx > 0 ? e / mx : e;
}

static void run_case(const llr_case *c, const char *variant)
{
    const kr_dtype dts[4] = {KR_F32, KR_F64, KR_C64, KR_C128};
    const double lambda = 0.5, t = 2.0, tau = lambda * t;
    for (int ti = 0; ti < 4; ti++) {
        const kr_dtype dt = dts[ti];
        kr_array *in = NULL, *ref = NULL, *xc = NULL, *dv = NULL, *dx = NULL;
        double nuc = 0;
        build(c, dt, tau, &in, &ref, &nuc);
        KT_OK(kr_array_create(&xc, dt, c->ndim, c->dims, KR_HOST, NULL));
        KT_OK(kr_array_clone(&dv, in, KR_DEVICE, g_gpu));
        KT_OK(kr_array_create(&dx, dt, c->ndim, c->dims, KR_DEVICE, g_gpu));
        kr_prox *pc = NULL, *pg = NULL;
        KT_OK(kr_prox_llr_create(&pc, g_cpu, dt, c->ndim, c->dims, lambda, c->axis, c->block,
                                 c->shift));
        KT_OK(kr_prox_llr_create(&pg, g_gpu, dt, c->ndim, c->dims, lambda, c->axis, c->block,
                                 c->shift));
        KT_OK(kr_prox_apply(pc, t, in, xc));
        KT_OK(kr_prox_apply(pg, t, dv, dx));
        const double e_ref = rel(dx, ref), e_cpu = rel(dx, xc), e_cref = rel(xc, ref);
        double vg = 0, vc = 0;
        KT_OK(kr_prox_value(pg, dv, &vg));
        KT_OK(kr_prox_value(pc, in, &vc));
        /* in place on the device */
        KT_OK(kr_prox_apply(pg, t, dv, dv));
        const double e_inplace = rel(dv, ref);
        const double tr = single(dt) ? 2e-5 : 1e-11, tc = single(dt) ? 1e-5 : 1e-12;
        printf("  %s (%s), %s: GPU vs closed form %.1e (CPU %.1e), GPU vs CPU %.1e, in place "
               "%.1e; value %.9g vs %.9g (sum of s: %.9g)\n", c->what, variant,
               kr_dtype_name(dt), e_ref, e_cref, e_cpu, e_inplace, vg, vc, lambda * nuc);
        KT_LE(e_ref, tr);
        KT_LE(e_inplace, tr);
        KT_LE(e_cpu, tc);
        KT_NEAR(vg, lambda * nuc, (single(dt) ? 1e-5 : 1e-11) * lambda * nuc);
        KT_NEAR(vg, vc, (single(dt) ? 1e-6 : 1e-12) * vc);
        kr_prox_destroy(pc), kr_prox_destroy(pg);
        kr_array_destroy(in), kr_array_destroy(ref), kr_array_destroy(xc);
        kr_array_destroy(dv), kr_array_destroy(dx);
    }
}

static void test_llr_gpu(void)
{
    const llr_case cases[] = {
        /* 2-D image of 8 x 8 blocks (64 x 12 matrices, one edge block column), frames last */
        {"2-D 40x36, 12 frames, block 8", 3, 2, {40, 36, 12, 1}, 8, {3, -2, 0, 0}},
        /* frames first; 16 x 16 blocks: 256 x 24 matrices, 101 KB (opt-in shared memory) */
        {"2-D 24 frames x 32x32, block 16", 3, 0, {24, 32, 32, 1}, 16, {0, 5, 7, 0}},
        /* 3-D blocks of 8^3 with 16 frames: 512 x 16 matrices, 135 KB */
        {"3-D 16x16x12, 16 frames, block 8", 4, 3, {16, 16, 12, 16}, 8, {1, 0, 2, 0}},
        /* more frames than a block has pixels: 9 x 40 matrices */
        {"2-D 9x9, 40 frames, block 3", 3, 2, {9, 9, 40, 1}, 3, {0, 0, 0, 0}},
        /* 8^3 blocks with 32 frames: 262 KB, more than any shared memory: global memory */
        {"3-D 8x8x8, 32 frames, block 8", 4, 3, {8, 8, 8, 32}, 8, {0, 0, 0, 0}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) run_case(&cases[i], "default");
    setenv("KRAY_LLR_GPU", "global", 1);
    run_case(&cases[0], "global memory");
    run_case(&cases[2], "global memory");
    setenv("KRAY_LLR_GPU_THREADS", "64", 1);
    run_case(&cases[1], "global memory, 64 threads");
    unsetenv("KRAY_LLR_GPU");
    run_case(&cases[1], "shared memory, 64 threads");
    unsetenv("KRAY_LLR_GPU_THREADS");
}

int main(void)
{
    kt_require_gpu();
    KT_OK(kr_ctx_create(&g_cpu, KR_BACKEND_CPU));
    KT_OK(kr_ctx_create(&g_gpu, KR_BACKEND_CUDA));
    kr_ctx_set_quiet(g_cpu, 1);
    kr_ctx_set_quiet(g_gpu, 1);
    KT_RUN(test_llr_gpu);
    kr_ctx_destroy(g_cpu);
    kr_ctx_destroy(g_gpu);
    return kt_finish();
}
