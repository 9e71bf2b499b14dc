/* Goertzel CPU twin (kray/goertzel.h): OpenMP over independent recurrences, double precision. */
#include "core/internal.h"
#include "mri/goertzel/goertzel_internal.h"

#include <stddef.h>

/* sum_i a_i e^{i theta i} over n values a_i = (re[i*st], im[i*st]) by the reversed recurrence. */
#define KRI_GZ_LOOP(T, src, st, n, cf, outr, outi)                                               \
    do {                                                                                           \
        double s1r_ = 0, s1i_ = 0, s2r_ = 0, s2i_ = 0;                                             \
        for (int64_t i_ = (n)-1; i_ >= 0; i_--) {                                                  \
            const T *a_ = (src) + 2 * i_ * (st);                                                   \
            double s0r_ = (double)a_[0] + (cf).c * s1r_ - s2r_;                                    \
            double s0i_ = (double)a_[1] + (cf).c * s1i_ - s2i_;                                    \
            s2r_ = s1r_, s2i_ = s1i_, s1r_ = s0r_, s1i_ = s0i_;                                    \
        }                                                                                          \
        double yr_ = s1r_ - ((cf).wr * s2r_ - (cf).wi * s2i_);                                     \
        double yi_ = s1i_ - ((cf).wr * s2i_ + (cf).wi * s2r_);                                     \
        (outr) = yr_ * (cf).or_ - yi_ * (cf).oi;                                                   \
        (outi) = yr_ * (cf).oi + yi_ * (cf).or_;                                                   \
    } while (0)

static kr_status kri_cpu_goertzel2d(const kr_ctx *ctx, const kri_gz_plan *p, int dbl,
                                    const void *ksp, void *out)
{
    const int64_t nx = p->nx, ny = p->ny, nq = p->nq, np = p->npts, plane = nx * ny;
    /* batch members per chunk: row scratch (nq ny complex doubles each) up to ~64 MiB */
    int64_t per = nq * ny * 16, bc = (64ll << 20) / (per > 0 ? per : 1);
    if (bc < 1) bc = 1;
    if (bc > p->batch) bc = p->batch;
    double *r = NULL;
    KRI_TRY(kri_alloc((void **)&r, (size_t)(bc * nq * ny) * 2 * sizeof(double), "Goertzel rows"));
    const int nt = kri_threads(ctx);
    (void)nt;
    for (int64_t b0 = 0; b0 < p->batch; b0 += bc) {
        const int64_t nb = p->batch - b0 < bc ? p->batch - b0 : bc;
        const int64_t nrow = nb * nq * ny;
#pragma omp parallel for schedule(static) num_threads(nt) if (nrow * nx > 65536)
        for (int64_t t = 0; t < nrow; t++) {
            const int64_t q = t % nq, j = (t / nq) % ny, b = t / (nq * ny);
            const kri_gz_coef cf = p->qx[q];
            double yr, yi;
            if (dbl) {
                const double *src = (const double *)ksp + 2 * ((b0 + b) * plane + j * nx);
                KRI_GZ_LOOP(double, src, 1, nx, cf, yr, yi);
            } else {
                const float *src = (const float *)ksp + 2 * ((b0 + b) * plane + j * nx);
                KRI_GZ_LOOP(float, src, 1, nx, cf, yr, yi);
            }
            r[2 * t] = yr, r[2 * t + 1] = yi;
        }
        const int64_t ncol = nb * np;
#pragma omp parallel for schedule(static) num_threads(nt) if (ncol * ny > 65536)
        for (int64_t t = 0; t < ncol; t++) {
            const int64_t i = t % np, b = t / np;
            const kri_gz_coef cf = p->py[i];
            const double *src = r + 2 * (b * nq * ny + p->q[i]);
            double yr, yi;
            KRI_GZ_LOOP(double, src, nq, ny, cf, yr, yi);
            const int64_t o = 2 * ((b0 + b) * np + i);
            if (dbl) {
                ((double *)out)[o] = yr, ((double *)out)[o + 1] = yi;
            } else {
                ((float *)out)[o] = (float)yr, ((float *)out)[o + 1] = (float)yi;
            }
        }
    }
    kri_free(r);
    return KR_OK;
}

const kri_gz_backend kri_gz_cpu = {{"cpu", true}, kri_cpu_goertzel2d};
