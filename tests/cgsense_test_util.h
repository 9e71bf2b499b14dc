/* Shared fixtures of the CG-SENSE tests: analytic multi-coil k-space of the Shepp-Logan phantom
 * on a 2x oversampled radial trajectory, with the analytic coil maps of kray/phantom.h. */
#ifndef KRAY_CGSENSE_TEST_UTIL_H
#define KRAY_CGSENSE_TEST_UTIL_H

#include "kt.h"

#include <stdlib.h>
#include <string.h>

typedef struct ct_problem {
    int64_t n, nc, spokes, M;
    kr_array *traj; /* f32 [3, 2n, spokes] */
    kr_array *data; /* c64 [M, nc] */
    kr_array *maps; /* c64 [n, n, nc] */
    kr_array *dcf;  /* f32 [2n, spokes] (radial, analytic) */
    kr_array *truth; /* c64 [n, n]: the phantom band-limited to the disk |k| < n/2 */
} ct_problem;

/* c128 -> new c64 array with the same dims. */
static inline kr_array *ct_to_c64(kr_array *a)
{
    kr_array *b = NULL;
    KT_OK(kr_array_astype(&b, a, KR_C64));
    kr_array_destroy(a);
    return b;
}

static inline void ct_problem_make(ct_problem *p, int64_t n, int64_t nc, int64_t spokes)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    p->nc = nc;
    p->spokes = spokes;
    kr_radial_opts ro;
    kr_radial_opts_default(&ro);
    ro.samples = n;
    ro.oversampling = 2;
    ro.spokes = spokes;
    ro.dtype = KR_F32;
    KT_OK(kr_traj_radial(&p->traj, &ro));
    p->M = kr_array_numel(p->traj) / 3;
    double *k = malloc(sizeof(double) * 2 * (size_t)p->M);
    const float *t = p->traj->data;
    for (int64_t m = 0; m < p->M; m++) {
        k[2 * m] = t[3 * m];
        k[2 * m + 1] = t[3 * m + 1];
    }
    kr_array *d = NULL;
    KT_OK(kr_phantom_kspace_coils(&d, KR_PHANTOM_MODIFIED_SL, k, p->M, n, (int)nc));
    p->data = ct_to_c64(d);
    free(k);
    kr_array *m = NULL;
    KT_OK(kr_phantom_coil_maps(&m, n, (int)nc));
    p->maps = ct_to_c64(m);
    kr_dcf_opts dop;
    kr_dcf_opts_default(&dop);
    dop.method = KR_DCF_RADIAL;
    KT_OK(kr_dcf(&p->dcf, NULL, p->traj, &dop, NULL));
    /* reference: the phantom band-limited to the disk |k| < n/2 that the radial trajectory
     * covers: (1/n^2) sum over integer k in the disk of F(k) exp(+2 pi i k.p / n) */
    const int64_t nk = n * n;
    double *kc = malloc(sizeof(double) * 2 * (size_t)nk);
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            kc[2 * (i + n * j)] = (double)(i - n / 2);
            kc[2 * (i + n * j) + 1] = (double)(j - n / 2);
        }
    kr_array *F = NULL;
    KT_OK(kr_phantom_kspace(&F, KR_PHANTOM_MODIFIED_SL, kc, nk, n));
    double *f = F->data; /* c128 [kx, ky] */
    for (int64_t q = 0; q < nk; q++)
        if (kc[2 * q] * kc[2 * q] + kc[2 * q + 1] * kc[2 * q + 1] >= 0.25 * (double)(n * n))
            f[2 * q] = f[2 * q + 1] = 0;
    /* separable inverse DFT: along kx then ky */
    double *tmp = calloc(2 * (size_t)nk, sizeof(double));
    const double w = 2 * 3.14159265358979323846 / (double)n;
    for (int64_t ky = 0; ky < n; ky++)
        for (int64_t x = 0; x < n; x++) {
            double re = 0, im = 0;
            for (int64_t kx = 0; kx < n; kx++) {
                const double ph = w * (double)((kx - n / 2) * (x - n / 2));
                const double *v = f + 2 * (kx + n * ky);
                re += v[0] * cos(ph) - v[1] * sin(ph);
                im += v[0] * sin(ph) + v[1] * cos(ph);
            }
            tmp[2 * (x + n * ky)] = re;
            tmp[2 * (x + n * ky) + 1] = im;
        }
    int64_t dims[2] = {n, n};
    KT_OK(kr_array_create(&p->truth, KR_C64, 2, dims, KR_HOST, NULL));
    float *tr = p->truth->data;
    for (int64_t y = 0; y < n; y++)
        for (int64_t x = 0; x < n; x++) {
            double re = 0, im = 0;
            for (int64_t ky = 0; ky < n; ky++) {
                const double ph = w * (double)((ky - n / 2) * (y - n / 2));
                const double *v = tmp + 2 * (x + n * ky);
                re += v[0] * cos(ph) - v[1] * sin(ph);
                im += v[0] * sin(ph) + v[1] * cos(ph);
            }
            tr[2 * (x + n * y)] = (float)(re / (double)nk);
            tr[2 * (x + n * y) + 1] = (float)(im / (double)nk);
        }
    free(tmp);
    free(kc);
    kr_array_destroy(F);
}

static inline void ct_problem_free(ct_problem *p)
{
    kr_array_destroy(p->traj);
    kr_array_destroy(p->data);
    kr_array_destroy(p->maps);
    kr_array_destroy(p->dcf);
    kr_array_destroy(p->truth);
}

/* ||a - s b|| / ||s b|| over complex float arrays (s real). */
static inline double ct_nrmse(const kr_array *a, const kr_array *b, double s)
{
    const float *x = a->data, *y = b->data;
    double e = 0, r = 0;
    for (int64_t i = 0; i < 2 * kr_array_numel(a); i++) {
        double d = x[i] - s * y[i];
        e += d * d;
        r += s * y[i] * s * y[i];
    }
    return sqrt(e / r);
}

/* Least-squares real scale s minimising ||a - s b||. */
static inline double ct_fit_scale(const kr_array *a, const kr_array *b)
{
    const float *x = a->data, *y = b->data;
    double num = 0, den = 0;
    for (int64_t i = 0; i < 2 * kr_array_numel(a); i++) {
        num += (double)x[i] * y[i];
        den += (double)y[i] * y[i];
    }
    return den > 0 ? num / den : 0;
}

#endif
