/* FVE single voxels on the CPU (kray/fve.h): the phases of every (voxel, sample) pair, then one
 * output (encode, frame, coil, voxel) per OpenMP iteration, summed over the samples of the
 * voxel's slice column in order (double accumulation: identical bits for any thread count). */
#include "core/internal.h"
#include "mri/fve/fve_internal.h"
#include "mri/mri_internal.h"

#include <math.h>

static kr_status kri_cpu_fve_voxels(const kr_ctx *ctx, const double *k, const double *w,
                                    const double *vox, int64_t n, const int64_t *slc, int64_t nvox,
                                    int64_t M, int64_t S, int64_t E, int64_t T, int64_t C,
                                    const void *data, void *out, int *nonfinite)
{
    double *ph = NULL;
    KRI_TRY(kri_alloc((void **)&ph, (size_t)(nvox * M) * 2 * sizeof(double), "FVE phases"));
    const double inv = 1.0 / ((double)n * (double)n);
    const int nt0 = kri_threads(ctx);
    /* one flat loop over (voxel, sample): one voxel still spreads over the threads */
#pragma omp parallel for schedule(static) num_threads(nt0) if (nvox * M > 4096)
    for (int64_t q = 0; q < nvox * M; q++) {
        const int64_t v = q / M, m = q % M;
        /* phase in cycles, reduced before the multiplication by 2 pi */
        double c = fmod((k[3 * m] * vox[3 * v] + k[3 * m + 1] * vox[3 * v + 1]) / (double)n, 1.0);
        double a = (w ? w[m] : 1.0) * inv;
        ph[2 * q] = a * cos(2 * KRI_PI * c);
        ph[2 * q + 1] = a * sin(2 * KRI_PI * c);
    }
    const int64_t nout = E * T * C * nvox;
    const float *d = (const float *)data;
    float *o = (float *)out;
    const int nt = kri_threads(ctx);
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int64_t j = 0; j < nout; j++) {
        const int64_t ev = j % E, t = (j / E) % T, c = (j / (E * T)) % C, v = j / (E * T * C);
        const float *col = d + 2 * M * (slc[v] + S * (ev + E * (t + T * c)));
        const double *p = ph + 2 * v * M;
        double ar = 0, ai = 0;
        for (int64_t m = 0; m < M; m++) {
            ar += p[2 * m] * col[2 * m] - p[2 * m + 1] * col[2 * m + 1];
            ai += p[2 * m] * col[2 * m + 1] + p[2 * m + 1] * col[2 * m];
        }
        o[2 * j] = (float)ar, o[2 * j + 1] = (float)ai;
    }
    kri_free(ph);
    /* a voxel value is finite unless a sample it sums is not (the phases are finite) */
    int64_t bad = -1;
    KRI_TRY(kri_first_nonfinite(ctx, KR_HOST, KR_F32, out, 2 * nout, &bad));
    *nonfinite = bad >= 0;
    return KR_OK;
}

const kri_fve_backend kri_fve_cpu = {{"cpu", true}, kri_cpu_fve_voxels};
