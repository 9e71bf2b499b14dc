/* ESPIRiT coil sensitivity estimation (one map set) from the fully sampled centre of 2-D or 3-D
 * k-space: calibration region, calibration matrix and its SVD (via the smaller Gram matrix),
 * the kernel projector as coefficients of the exact image-space operator, the phase reference;
 * the per-voxel eigenvectors are the backends' (espirit_internal.h). */
#include "internal.h"
#include "kray/sense.h"
#include "mri/cartesian/espirit_internal.h"
#include "mri/cartesian/sense_internal.h"

#include <math.h>
#include <string.h>

void kr_espirit_opts_default(kr_espirit_opts *o)
{
    if (!o) return;
    o->kernel = 6;
    o->calib = 24;
    o->threshold = sqrt(0.001);
    o->crop = 0.8;
    o->rotate_phase = 1;
}

/* Pattern: any coil non-zero at the voxel. Is the block at lo of extent c fully sampled? */
static int kri_block_full(const uint8_t *pat, const int64_t n[3], const int64_t lo[3],
                          const int64_t c[3])
{
    for (int64_t z = lo[2]; z < lo[2] + c[2]; z++)
        for (int64_t y = lo[1]; y < lo[1] + c[1]; y++)
            for (int64_t x = lo[0]; x < lo[0] + c[0]; x++)
                if (!pat[x + n[0] * (y + n[1] * z)]) return 0;
    return 1;
}

/* BART-compatible calibration region: inside the centre of extent (nx, min(calib, ny),
 * min(calib, nz)), grow a centred block one sample per axis in turn while it stays fully
 * sampled (at most calib per axis), then slide it along the readout to the position of largest
 * energy (the first maximum). */
static void kri_calib_region(const float *k, const int64_t n[3], int64_t nc, int calib,
                             const uint8_t *pat, int64_t lo[3], int64_t c[3])
{
    int64_t t[3], tpos[3];
    int stop[3];
    for (int a = 0; a < 3; a++) {
        t[a] = a == 0 ? n[0] : (calib < n[a] ? calib : n[a]);
        tpos[a] = (n[a] - t[a]) / 2;
        c[a] = 1;
        stop[a] = 0;
    }
    while (!(stop[0] && stop[1] && stop[2])) {
        for (int i = 0; i < 3; i++) {
            if (c[i] == t[i] || c[i] >= calib) stop[i] = 1;
            if (stop[i]) continue;
            c[i]++;
            for (int a = 0; a < 3; a++) lo[a] = tpos[a] + (t[a] - c[a]) / 2;
            if (!kri_block_full(pat, n, lo, c)) {
                c[i]--;
                stop[i] = 1;
            }
        }
    }
    for (int a = 0; a < 3; a++) lo[a] = tpos[a] + (t[a] - c[a]) / 2;
    int64_t best = 0;
    double beste = -1;
    const int64_t nxyz = n[0] * n[1] * n[2];
    for (int64_t r = 0; r + c[0] <= n[0]; r++) {
        double e = 0;
        for (int64_t ch = 0; ch < nc; ch++)
            for (int64_t z = lo[2]; z < lo[2] + c[2]; z++)
                for (int64_t y = lo[1]; y < lo[1] + c[1]; y++)
                    for (int64_t x = r; x < r + c[0]; x++) {
                        const float *v = k + 2 * (x + n[0] * (y + n[1] * z) + nxyz * ch);
                        e += (double)v[0] * v[0] + (double)v[1] * v[1];
                    }
        if (e > beste) {
            beste = e;
            best = r;
        }
    }
    lo[0] = best;
}

/* The scratch of one ESPIRiT run. */
typedef struct kri_esp {
    kri_zc *A, *H, *V, *work, *P, *ref;
    double *w, *g;
} kri_esp;

static void kri_esp_free(kri_esp *e)
{
    kri_free(e->A);
    kri_free(e->H);
    kri_free(e->V);
    kri_free(e->work);
    kri_free(e->P);
    kri_free(e->ref);
    kri_free(e->w);
    kri_free(e->g);
}

/* Kernel projector P = sum_t v_t v_t^H (N x N) of the nk right singular vectors of the L x N
 * calibration matrix A above the threshold, from the eigen-decomposition of its smaller Gram
 * matrix. */
static kr_status kri_esp_projector(const kr_ctx *ctx, kri_esp *e, int64_t L, int64_t N,
                                   double threshold, const char *fn)
{
    const int64_t M = N <= L ? N : L;
    const kri_zc *A = e->A;
    KRI_TRY(kri_alloc((void **)&e->H, sizeof(kri_zc) * (size_t)(M * M), "ESPIRiT Gram matrix"));
    KRI_TRY(kri_alloc((void **)&e->V, sizeof(kri_zc) * (size_t)(M * M), "ESPIRiT eigenvectors"));
    KRI_TRY(kri_alloc((void **)&e->w, sizeof(double) * (size_t)M, "ESPIRiT eigenvalues"));
    kri_zc *H = e->H;
    if (N <= L) {
#pragma omp parallel for num_threads(kri_threads(ctx)) schedule(dynamic, 4)
        for (int64_t b = 0; b < N; b++)
            for (int64_t a = b; a < N; a++) {
                kri_zc s = 0;
                for (int64_t r = 0; r < L; r++) s += conj(A[r + L * a]) * A[r + L * b];
                H[a + N * b] = s; /* (A^H A)[a, b] */
            }
    } else {
#pragma omp parallel for num_threads(kri_threads(ctx)) schedule(dynamic, 4)
        for (int64_t b = 0; b < L; b++)
            for (int64_t a = b; a < L; a++) {
                kri_zc s = 0;
                for (int64_t col = 0; col < N; col++) s += A[a + L * col] * conj(A[b + L * col]);
                H[a + L * b] = s; /* (A A^H)[a, b] */
            }
    }
    if (kri_zheev_nt((int)M, H, (int)M, e->w, e->V, (int)M, kri_threads(ctx)) != 0)
        return kri_fail(KR_ERR_INTERNAL, "%s: eigen-decomposition of the calibration matrix "
                        "failed", fn);
    const double *w = e->w;
    const double smax = sqrt(fmax(w[M - 1], 0));
    if (!(smax > 0))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: the calibration region holds no signal", fn);
    int64_t nk = 0;
    for (int64_t i = M - 1; i >= 0; i--)
        if (sqrt(fmax(w[i], 0)) / smax > threshold) nk++;
    kr_log(ctx, KR_LOG_INFO, "ESPIRiT: %lld of %lld kernels kept", (long long)nk, (long long)N);
    KRI_TRY(kri_alloc((void **)&e->work, sizeof(kri_zc) * (size_t)(N * nk), "ESPIRiT kernels"));
    kri_zc *work = e->work;
    const kri_zc *V = e->V;
#pragma omp parallel for num_threads(kri_threads(ctx)) schedule(static)
    for (int64_t t = 0; t < nk; t++) {
        const int64_t ei = M - 1 - t;
        kri_zc *vt = work + N * t;
        if (N <= L) {
            for (int64_t a = 0; a < N; a++) vt[a] = V[a + M * ei];
        } else {
            const double sig = sqrt(w[ei]);
            for (int64_t a = 0; a < N; a++) {
                kri_zc s = 0;
                for (int64_t r = 0; r < L; r++) s += conj(A[r + L * a]) * V[r + M * ei];
                vt[a] = s / sig;
            }
        }
    }
    KRI_TRY(kri_alloc((void **)&e->P, sizeof(kri_zc) * (size_t)(N * N), "ESPIRiT projector"));
    kri_zc *P = e->P;
#pragma omp parallel for num_threads(kri_threads(ctx)) schedule(static)
    for (int64_t b = 0; b < N; b++)
        for (int64_t a = 0; a < N; a++) {
            kri_zc s = 0;
            for (int64_t t = 0; t < nk; t++) s += work[a + N * t] * conj(work[b + N * t]);
            P[a + N * b] = s;
        }
    return KR_OK;
}

/* g[tri(c, c2)][D] = (1 / prod k) sum_{kappa - kappa' = D} P[(kappa', c2), (kappa, c)] for
 * c >= c2 (espirit_internal.h's layout), from the projector over kernels of extent kk[3]. */
static kr_status kri_esp_coefficients(const kr_ctx *ctx, kri_esp *e, const int kk[3],
                                      const int K[3], int64_t nc)
{
    const int64_t ntri = nc * (nc + 1) / 2, KD = (int64_t)K[0] * K[1] * K[2];
    const int64_t kv = (int64_t)kk[0] * kk[1] * kk[2], N = kv * nc;
    KRI_TRY(kri_alloc((void **)&e->g, sizeof(double) * 2 * (size_t)(ntri * KD),
                      "ESPIRiT coefficients"));
    const kri_zc *P = e->P;
    double *g = e->g;
    int fail = 0;
#pragma omp parallel for num_threads(kri_threads(ctx)) schedule(dynamic) reduction(| : fail)
    for (int64_t tr = 0; tr < ntri; tr++) {
        int64_t c = 0;
        while ((c + 1) * (c + 2) / 2 <= tr) c++;
        const int64_t c2 = tr - c * (c + 1) / 2;
        kri_zc *acc = kri_calloc((size_t)KD, sizeof(kri_zc));
        if (!acc) {
            fail |= 1;
            continue;
        }
        for (int64_t ka = 0; ka < kv; ka++) {
            const int ax = (int)(ka % kk[0]), ay = (int)(ka / kk[0] % kk[1]),
                      az = (int)(ka / kk[0] / kk[1]);
            const int64_t a = ka + kv * c;
            for (int64_t kb = 0; kb < kv; kb++) {
                const int bx = (int)(kb % kk[0]), by = (int)(kb / kk[0] % kk[1]),
                          bz = (int)(kb / kk[0] / kk[1]);
                const int64_t b = kb + kv * c2;
                const int64_t d = ((int64_t)(az - bz + kk[2] - 1) * K[1] + (ay - by + kk[1] - 1)) *
                                      K[0] + (ax - bx + kk[0] - 1);
                acc[d] += P[b + N * a];
            }
        }
        for (int64_t d = 0; d < KD; d++) {
            g[2 * (tr * KD + d)] = creal(acc[d]) / (double)kv;
            g[2 * (tr * KD + d) + 1] = cimag(acc[d]) / (double)kv;
        }
        kri_free(acc);
    }
    return fail ? kri_fail(KR_ERR_OOM_HOST, "out of host memory for the ESPIRiT coefficients")
                : KR_OK;
}

/* Phase reference: the first principal component over coils of the calibration data. */
static kr_status kri_esp_reference(kri_esp *e, const float *kd, const int64_t n[3], int64_t nc,
                                   const int64_t lo[3], const int64_t cc[3])
{
    KRI_TRY(kri_alloc((void **)&e->ref, sizeof(kri_zc) * (size_t)(2 * nc * nc + nc),
                      "ESPIRiT reference"));
    kri_zc *cov = e->ref + nc, *vec = cov + nc * nc;
    double *wv = NULL;
    KRI_TRY(kri_alloc((void **)&wv, sizeof(double) * (size_t)nc, "ESPIRiT reference"));
    const int64_t nxyz = n[0] * n[1] * n[2];
    for (int64_t b = 0; b < nc; b++)
        for (int64_t a = b; a < nc; a++) {
            kri_zc s = 0;
            for (int64_t z = lo[2]; z < lo[2] + cc[2]; z++)
                for (int64_t y = lo[1]; y < lo[1] + cc[1]; y++)
                    for (int64_t x = lo[0]; x < lo[0] + cc[0]; x++) {
                        const int64_t q = x + n[0] * (y + n[1] * z);
                        const float *va = kd + 2 * (q + nxyz * a), *vb = kd + 2 * (q + nxyz * b);
                        s += (va[0] + va[1] * _Complex_I) * (vb[0] - vb[1] * _Complex_I);
                    }
            cov[a + nc * b] = s;
        }
    const int bad = kri_zheev((int)nc, cov, (int)nc, wv, vec, (int)nc);
    for (int64_t c = 0; c < nc; c++) e->ref[c] = bad ? (c == 0) : vec[c + nc * (nc - 1)];
    kri_free(wv);
    return KR_OK;
}

kr_status kr_espirit(const kr_ctx *ctx, const kr_array *kspace, const kr_espirit_opts *opts,
                     kr_array **maps, kr_array **eigenvalues)
{
    const char *fn = "kr_espirit";
    KRI_ARG_NOT_NULL(maps);
    *maps = NULL;
    if (eigenvalues) *eigenvalues = NULL;
    KRI_TRY(kri_check_operand(fn, "kspace", kspace, KR_C64, KR_HOST));
    kr_espirit_opts o;
    kr_espirit_opts_default(&o);
    if (opts) o = *opts;
    if (o.kernel < 1 || o.kernel > 16)
        return kri_fail(KR_ERR_INVALID_ARG, "%s: kernel width %d is outside 1..16", fn, o.kernel);
    if (o.calib < o.kernel + 1)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "%s: calibration width %d must exceed the kernel width %d", fn, o.calib,
                        o.kernel);
    if (!(o.threshold >= 0 && o.threshold < 1))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: threshold %g is outside [0, 1)", fn, o.threshold);
    if (!(o.crop >= 0 && o.crop < 1))
        return kri_fail(KR_ERR_INVALID_ARG, "%s: crop %g is outside [0, 1)", fn, o.crop);
    if (kspace->ndim != 3 && kspace->ndim != 4)
        return kri_fail(KR_ERR_DIM, "%s: kspace has %d dims; expected [nx, ny, coils] or "
                        "[nx, ny, nz, coils]", fn, kspace->ndim);
    const int three = kspace->ndim == 4;
    const int64_t n[3] = {kspace->dims[0], kspace->dims[1], three ? kspace->dims[2] : 1};
    const int64_t nc = kspace->dims[kspace->ndim - 1], nxyz = n[0] * n[1] * n[2];
    if (nc > 256) return kri_fail(KR_ERR_DIM, "%s: %lld coils is too many", fn, (long long)nc);
    const kri_espirit_backend *be;
    KRI_TRY(kri_backend_pick(&be, ctx ? kri_ctx_loc(ctx) : KR_HOST, &kri_espirit_cpu,
                             &kri_espirit_cuda, fn));
    const float *kd = kspace->data;
    uint8_t *pat = NULL;
    KRI_TRY(kri_alloc((void **)&pat, (size_t)nxyz, "ESPIRiT pattern"));
    for (int64_t q = 0; q < nxyz; q++) {
        int any = 0;
        for (int64_t c = 0; c < nc && !any; c++)
            any = kd[2 * (q + nxyz * c)] != 0 || kd[2 * (q + nxyz * c) + 1] != 0;
        pat[q] = (uint8_t)any;
    }
    int64_t lo[3], cc[3];
    kri_calib_region(kd, n, nc, o.calib, pat, lo, cc);
    kri_free(pat);
    int kk[3], K[3];
    int64_t pp[3];
    for (int a = 0; a < 3; a++) {
        kk[a] = n[a] > 1 ? o.kernel : 1;
        K[a] = 2 * kk[a] - 1;
        pp[a] = cc[a] - kk[a] + 1;
    }
    for (int a = 0; a < 3; a++)
        if (n[a] > 1 && cc[a] < kk[a] + 1)
            return kri_fail(KR_ERR_INVALID_ARG,
                            "%s: the fully sampled centre of k-space is %lldx%lldx%lld, too "
                            "small for a kernel of width %d (need at least %d per axis)",
                            fn, (long long)cc[0], (long long)cc[1], (long long)cc[2], o.kernel,
                            o.kernel + 1);
    kr_log(ctx, KR_LOG_INFO, "ESPIRiT: calibration region %lldx%lldx%lld at (%lld, %lld, %lld)",
           (long long)cc[0], (long long)cc[1], (long long)cc[2], (long long)lo[0],
           (long long)lo[1], (long long)lo[2]);
    const int64_t kv = (int64_t)kk[0] * kk[1] * kk[2], L = pp[0] * pp[1] * pp[2], N = kv * nc;
    if ((N < L ? N : L) > 4096 || L * N > ((int64_t)1 << 26))
        return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: calibration matrix %lldx%lld is too large "
                        "(use a smaller kernel or calibration region, or fewer coils)", fn,
                        (long long)L, (long long)N);
    kri_esp e;
    memset(&e, 0, sizeof e);
    kr_array *out = NULL, *evals = NULL;
    /* Calibration matrix A[p, col], col = kappa + kv c, column-major L x N. */
    kr_status st = kri_alloc((void **)&e.A, sizeof(kri_zc) * (size_t)(L * N), "calibration matrix");
    if (st == KR_OK) {
        kri_zc *A = e.A;
        for (int64_t c = 0; c < nc; c++)
            for (int64_t ka = 0; ka < kv; ka++) {
                const int64_t kx = ka % kk[0], ky = ka / kk[0] % kk[1], kz = ka / kk[0] / kk[1];
                const int64_t col = ka + kv * c;
                for (int64_t r = 0; r < L; r++) {
                    const int64_t i = r % pp[0], j = r / pp[0] % pp[1], l = r / pp[0] / pp[1];
                    const int64_t q = (lo[0] + i + kx) +
                                      n[0] * ((lo[1] + j + ky) + n[1] * (lo[2] + l + kz));
                    const float *v = kd + 2 * (q + nxyz * c);
                    A[r + L * col] = v[0] + v[1] * _Complex_I;
                }
            }
        st = kri_esp_projector(ctx, &e, L, N, o.threshold, fn);
    }
    if (st == KR_OK) {
        kri_free(e.A), kri_free(e.work), kri_free(e.H), kri_free(e.V);
        e.A = e.work = e.H = e.V = NULL;
        st = kri_esp_coefficients(ctx, &e, kk, K, nc);
    }
    if (st == KR_OK) {
        kri_free(e.P);
        e.P = NULL;
        st = kri_esp_reference(&e, kd, n, nc, lo, cc);
    }
    if (st == KR_OK) {
        int64_t d4[4] = {n[0], n[1], three ? n[2] : nc, nc};
        st = kr_array_create(&out, KR_C64, three ? 4 : 3, d4, KR_HOST, NULL);
        if (st == KR_OK && eigenvalues)
            st = kr_array_create(&evals, KR_F32, three ? 3 : 2, n, KR_HOST, NULL);
    }
    if (st == KR_OK) {
        kri_espirit_desc d;
        memset(&d, 0, sizeof d);
        d.ctx = ctx;
        for (int a = 0; a < 3; a++) d.n[a] = n[a], d.K[a] = K[a];
        d.nc = nc;
        d.g = e.g;
        d.ref = (const double *)e.ref;
        d.crop = o.crop;
        d.rotate = o.rotate_phase;
        st = be->maps(&d, out->data, evals ? evals->data : NULL);
    }
    kri_esp_free(&e);
    if (st != KR_OK) {
        kr_array_destroy(out);
        kr_array_destroy(evals);
        return st;
    }
    *maps = out;
    if (eigenvalues) *eigenvalues = evals;
    return KR_OK;
}
