/* The per-voxel arithmetic of ESPIRiT, one text for the host (espirit_cpu.c) and the CUDA
 * kernel (espirit_cuda.cu): complex doubles (double _Complex in C, double2 in CUDA) through a
 * few inline operations, the exact phase of a coefficient, the power iteration on the
 * Hermitian nc x nc matrix G (column-major, entries `gs` apart; vectors `vs` apart) and the
 * final crop and phase rotation. Not installed. */
#ifndef KRAY_ESPIRIT_KERN_H
#define KRAY_ESPIRIT_KERN_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define KRI_ESP_HD static __host__ __device__ __forceinline__
typedef double2 kri_ez;
KRI_ESP_HD kri_ez kri_ez_mk(double r, double i) { return make_double2(r, i); }
KRI_ESP_HD double kri_ez_re(kri_ez a) { return a.x; }
KRI_ESP_HD double kri_ez_im(kri_ez a) { return a.y; }
#else
#include <complex.h>
#define KRI_ESP_HD static inline
typedef double _Complex kri_ez;
KRI_ESP_HD kri_ez kri_ez_mk(double r, double i) { return CMPLX(r, i); }
KRI_ESP_HD double kri_ez_re(kri_ez a) { return creal(a); }
KRI_ESP_HD double kri_ez_im(kri_ez a) { return cimag(a); }
#endif

KRI_ESP_HD kri_ez kri_ez_add(kri_ez a, kri_ez b)
{
    return kri_ez_mk(kri_ez_re(a) + kri_ez_re(b), kri_ez_im(a) + kri_ez_im(b));
}
/* a b */
KRI_ESP_HD kri_ez kri_ez_mul(kri_ez a, kri_ez b)
{
    return kri_ez_mk(kri_ez_re(a) * kri_ez_re(b) - kri_ez_im(a) * kri_ez_im(b),
                     kri_ez_re(a) * kri_ez_im(b) + kri_ez_im(a) * kri_ez_re(b));
}
/* conj(a) b */
KRI_ESP_HD kri_ez kri_ez_mulc(kri_ez a, kri_ez b)
{
    return kri_ez_mk(kri_ez_re(a) * kri_ez_re(b) + kri_ez_im(a) * kri_ez_im(b),
                     kri_ez_re(a) * kri_ez_im(b) - kri_ez_im(a) * kri_ez_re(b));
}
KRI_ESP_HD kri_ez kri_ez_conj(kri_ez a) { return kri_ez_mk(kri_ez_re(a), -kri_ez_im(a)); }
KRI_ESP_HD kri_ez kri_ez_scale(kri_ez a, double s)
{
    return kri_ez_mk(kri_ez_re(a) * s, kri_ez_im(a) * s);
}
KRI_ESP_HD double kri_ez_abs2(kri_ez a)
{
    return kri_ez_re(a) * kri_ez_re(a) + kri_ez_im(a) * kri_ez_im(a);
}

/* exp(2 pi i d (x - n/2) / n) with the integer product reduced modulo n first. */
KRI_ESP_HD kri_ez kri_esp_phase(int d, int64_t x, int64_t n)
{
    int64_t m = ((int64_t)d * (x - n / 2)) % n;
    if (m < 0) m += n;
    const double t = 6.283185307179586476925286766559 * (double)m / (double)n;
    return kri_ez_mk(cos(t), sin(t));
}

/* t[D n + x] = kri_esp_phase(D - K / 2, x, n) for D < K, x < n: the phases of one axis. */
KRI_ESP_HD void kri_esp_table(int K, int64_t n, kri_ez *t)
{
    for (int D = 0; D < K; D++)
        for (int64_t x = 0; x < n; x++) t[D * n + x] = kri_esp_phase(D - K / 2, x, n);
}

/* Dominant eigenpair of the Hermitian n x n matrix G (G[i + n j] at g[(i + n j) gs]) by power
 * iteration from v (unit norm, updated; v[i] at v[i vs], scratch tmp likewise): stops when the
 * residual ||G v - rq v|| <= 1e-9 |rq|, or after 30 iterations when rq < low, or after maxit.
 * Returns the Rayleigh quotient. */
KRI_ESP_HD double kri_esp_power(int n, const kri_ez *g, int64_t gs, kri_ez *v, kri_ez *tmp,
                                int64_t vs, int maxit, double low)
{
    double lam = 0;
    for (int it = 0; it < maxit; it++) {
        for (int i = 0; i < n; i++) {
            kri_ez s = kri_ez_mk(0, 0);
            for (int j = 0; j < n; j++)
                s = kri_ez_add(s, kri_ez_mul(g[(i + (int64_t)n * j) * gs], v[j * vs]));
            tmp[i * vs] = s;
        }
        double rq = 0, nrm = 0;
        for (int i = 0; i < n; i++) {
            rq += kri_ez_re(kri_ez_mulc(v[i * vs], tmp[i * vs]));
            nrm += kri_ez_abs2(tmp[i * vs]);
        }
        nrm = sqrt(nrm);
        if (nrm == 0) return 0;
        double res = 0;
        for (int i = 0; i < n; i++)
            res += kri_ez_abs2(kri_ez_add(tmp[i * vs], kri_ez_scale(v[i * vs], -rq)));
        res = sqrt(res);
        for (int i = 0; i < n; i++) v[i * vs] = kri_ez_scale(tmp[i * vs], 1.0 / nrm);
        lam = rq;
        if (res <= 1e-9 * fabs(rq) + 1e-300) break;
        if (it >= 30 && rq < low) break; /* well below the crop: converged enough */
    }
    return lam;
}

/* The map values of one voxel: v (unit, v[i vs]) times the phase that makes ref^H v real and
 * positive (rotate != 0), or 0 when lam <= crop; written as float pairs at out[2 c ostride]. */
KRI_ESP_HD void kri_esp_store(int n, const kri_ez *v, int64_t vs, const double *ref, double lam,
                              double crop, int rotate, float *out, int64_t ostride)
{
    const int keep = lam > crop;
    kri_ez ph = kri_ez_mk(1, 0);
    if (keep && rotate) {
        kri_ez z = kri_ez_mk(0, 0);
        for (int i = 0; i < n; i++)
            z = kri_ez_add(z, kri_ez_mulc(kri_ez_mk(ref[2 * i], ref[2 * i + 1]), v[i * vs]));
        const double az = sqrt(kri_ez_abs2(z));
        if (az > 0) ph = kri_ez_scale(kri_ez_conj(z), 1.0 / az);
    }
    for (int c = 0; c < n; c++) {
        const kri_ez m = keep ? kri_ez_mul(v[c * vs], ph) : kri_ez_mk(0, 0);
        out[2 * c * ostride] = (float)kri_ez_re(m);
        out[2 * c * ostride + 1] = (float)kri_ez_im(m);
    }
}

#endif
