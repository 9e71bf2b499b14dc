/* Coil fields on the host (kri_coils_cpu, coils_internal.h): OpenMP over points, every value one
 * closed form in double (kri_loop_field), so results do not depend on the number of threads. */
#include "sim/coils_internal.h"

static kr_status kri_cpu_coil_maps(const kr_ctx *ctx, const kri_coil_dev *d, int ncoils,
                                   const kri_coil_grid *g, int dbl, void *out)
{
    const int64_t *n3 = g->n;
    const double *origin = g->origin, *step = g->step;
    const int64_t npts = n3[0] * n3[1] * n3[2];
    const double wire = g->wire, tol = g->tol, gain = g->gain;
#pragma omp parallel for schedule(static) num_threads(kri_threads(ctx))
    for (int64_t p = 0; p < npts; p++) {
        int64_t i = p % n3[0], j = (p / n3[0]) % n3[1], k = p / (n3[0] * n3[1]);
        double x = origin[0] + (double)i * step[0], y = origin[1] + (double)j * step[1],
               z = origin[2] + (double)k * step[2];
        for (int c = 0; c < ncoils; c++) {
            double B[3] = {0, 0, 0};
            kri_loop_field(&d[c], x, y, z, wire, tol, B);
            double re = B[0] * gain, im = -B[1] * gain;
            int64_t q = p + npts * c;
            if (dbl) {
                ((double *)out)[2 * q] = re;
                ((double *)out)[2 * q + 1] = im;
            } else {
                ((float *)out)[2 * q] = (float)re;
                ((float *)out)[2 * q + 1] = (float)im;
            }
        }
    }
    return KR_OK;
}

void kri_coil_points(const kr_ctx *ctx, const kri_coil_dev *d, int ncoils, const double *xyz,
                     int64_t npts, double wire, double tol, double gain, float *w)
{
#pragma omp parallel for schedule(static) num_threads(kri_threads(ctx))
    for (int64_t p = 0; p < npts; p++)
        for (int c = 0; c < ncoils; c++) {
            double B[3] = {0, 0, 0};
            kri_loop_field(&d[c], xyz[3 * p], xyz[3 * p + 1], xyz[3 * p + 2], wire, tol, B);
            w[2 * (p + npts * c)] = (float)(B[0] * gain);
            w[2 * (p + npts * c) + 1] = (float)(-B[1] * gain);
        }
}

const kri_coils_backend kri_coils_cpu = {{"cpu", true}, kri_cpu_coil_maps};
