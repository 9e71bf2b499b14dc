/* The dense matrix operator of kr_linop_matrix on the host (kri_matrix_cpu, solve_internal.h):
 * OpenMP over outputs, each accumulated in double in index order (deterministic). */
#include "internal.h"
#include "solve_internal.h"

#include <string.h>

#define KRI_MATVEC_REAL(T)                                                                     \
    do {                                                                                       \
        const T *A = M, *v = in;                                                               \
        T *w = out;                                                                            \
        _Pragma("omp parallel for num_threads(nthreads) schedule(static) if (nout * nin > 65536)") \
        for (int64_t o = 0; o < nout; o++) {                                                   \
            double acc = 0.0;                                                                  \
            for (int64_t k = 0; k < nin; k++) {                                                \
                int64_t idx = adjoint ? k * n + o : o * n + k;                                 \
                acc = acc + (double)A[idx] * (double)v[k];                                     \
            }                                                                                  \
            w[o] = (T)acc;                                                                     \
        }                                                                                      \
    } while (0)

/* Complex: acc += M v (or conj(M) v); the product is formed in double. */
#define KRI_MATVEC_CPLX(T)                                                                     \
    do {                                                                                       \
        const T *A = M, *v = in;                                                               \
        T *w = out;                                                                            \
        const double sg = adjoint ? -1.0 : 1.0;                                                \
        _Pragma("omp parallel for num_threads(nthreads) schedule(static) if (nout * nin > 65536)") \
        for (int64_t o = 0; o < nout; o++) {                                                   \
            double ar = 0.0, ai = 0.0;                                                         \
            for (int64_t k = 0; k < nin; k++) {                                                \
                int64_t idx = adjoint ? k * n + o : o * n + k;                                 \
                double mr = A[2 * idx], mi = sg * (double)A[2 * idx + 1];                      \
                double vr = v[2 * k], vi = v[2 * k + 1];                                       \
                ar = ar + (mr * vr - mi * vi);                                                 \
                ai = ai + (mr * vi + mi * vr);                                                 \
            }                                                                                  \
            w[2 * o] = (T)ar;                                                                  \
            w[2 * o + 1] = (T)ai;                                                              \
        }                                                                                      \
    } while (0)

static kr_status kri_cpu_matvec(const kr_ctx *ctx, kr_dtype t, int64_t m, int64_t n,
                                const void *M, const void *in, void *out, int adjoint)
{
    const int64_t nout = adjoint ? n : m, nin = adjoint ? m : n;
    int nthreads = kri_threads(ctx);
    if (nthreads < 1) nthreads = 1;
    switch (t) {
    case KR_F32: KRI_MATVEC_REAL(float); break;
    case KR_F64: KRI_MATVEC_REAL(double); break;
    case KR_C64: KRI_MATVEC_CPLX(float); break;
    case KR_C128: KRI_MATVEC_CPLX(double); break;
    default: break;
    }
    return KR_OK;
}

static kr_status kri_cpu_matrix_create(void **M, const kr_ctx *ctx, size_t bytes,
                                       const void *host)
{
    (void)ctx;
    KRI_TRY(kri_alloc(M, bytes, "a matrix operator"));
    memcpy(*M, host, bytes);
    return KR_OK;
}

const kri_matrix_backend kri_matrix_cpu = {{"cpu", true}, kri_cpu_matrix_create, kri_cpu_matvec,
                                           kri_free};
