/* The cone-beam Joseph adjoint as a voxel-driven gather: the exact transpose of the forward
 * projector without atomics, for geometries whose detector rows run along z and columns across
 * it (every circular scan kray builds; kri_ct3_view_gathers below decides, kri_ct3_dev.gather).
 *
 * The forward's ray through pixel (iu, iv) samples, at plane m of its major axis M (x or y), the
 * minor coordinates fa = fma(m, ta, ca) (the other of x, y) and fb = fma(m, tb, cb) (z), and adds
 * c w to the four voxels around (fa, fb), with w the bilinear weights and c = y L / k^2. With
 * the detector's v vector along z and its u vector across z, a ray's x and y direction
 * components depend on its column only, so ta, ca and the major axis are per column, and tb, cb
 * per pixel. The gather visits, for each voxel column (i, j), each view and each major axis
 * present, the detector columns whose ray crosses plane m (= i or j) within one voxel of the
 * column's minor index, and for each such column the rows whose fb falls in the thread's slab of
 * K voxels along z; each row adds its two bilinear updates, the same products c (wa wb) as the
 * forward's, to the slab's slots in shared memory (indexed by floor(fb), so the rows' order does
 * not matter). Only the order of the additions differs from the ray-driven adjoint, so the
 * results agree to rounding; they are deterministic.
 *
 * Per batch of views: k_ct3_gtab evaluates every ray once (the forward's own set-up) into
 * (c, tb, cb) per pixel and (ta, ca, major axis, 1 / w_M) per column, and marks the major axes
 * present in each view; k_ct3_gather then adds the batch into the volume. */
#include "project3d_cuda.cuh"

template <typename T> struct kri_t4;
template <> struct kri_t4<float> {
    typedef float4 V;
};
struct __align__(16) kri_double4 {
    double x, y, z, w;
};
template <> struct kri_t4<double> {
    typedef kri_double4 V;
};

/* a / b for the range estimates: approximate is enough, the scans check each column and row
 * exactly and extend the ranges while the next one qualifies */
static __device__ __forceinline__ float kri_est_div(float a, float b) { return __fdividef(a, b); }
static __device__ __forceinline__ double kri_est_div(double a, double b) { return a / b; }

#define KRI_GU 32 /* k_ct3_gtab block: pixels along u */
#define KRI_GV 8
#define KRI_GX 16 /* k_ct3_gather block: voxel columns along x */
#define KRI_GY 8

/* grid (u tiles, v tiles, views of the batch). */
template <typename T>
__global__ void __launch_bounds__(KRI_GU *KRI_GV)
    k_ct3_gtab(typename kri_t3<T>::P p, const typename kri_t3<T>::V *__restrict__ views, int v0,
               const T *__restrict__ proj, typename kri_t4<T>::V *__restrict__ tab,
               typename kri_t4<T>::V *__restrict__ col, int *__restrict__ axes)
{
    const int iu = blockIdx.x * KRI_GU + threadIdx.x, iv = blockIdx.y * KRI_GV + threadIdx.y;
    const int vb = blockIdx.z;
    if (iu >= p.nu || iv >= p.nv) return;
    const typename kri_t3<T>::V sv = views[v0 + vb];
    typename kri_t3<T>::R r;
    typename kri_t3<T>::J j;
    ray3(&p, &sv, iu, iv, 0, 0, &r);
    jos3_setup(&p, &r, &j);
    const long long o = ((long long)vb * p.nv + iv) * p.nu + iu;
    const T y = proj[((long long)(v0 + vb) * p.nv + iv) * p.nu + iu];
    const bool hit = j.m0 <= j.m1;
    const T c = hit ? y * p.inv_k2 * j.L : (T)0; /* the forward adjoint's yk * L */
    typename kri_t4<T>::V e;
    e.x = c, e.y = j.tb, e.z = j.cb, e.w = 0;
    tab[o] = e;
    if (iv == 0) {
        typename kri_t4<T>::V q;
        q.x = j.ta, q.y = j.ca, q.z = (T)j.ax, q.w = (T)1 / r.w[j.ax];
        col[(long long)vb * p.nu + iu] = q;
    }
#if __CUDA_ARCH__ >= 800
    const int mask = __reduce_or_sync(__activemask(), hit ? 1 << j.ax : 0);
    if (mask && (threadIdx.x & 31) == __ffs(__activemask()) - 1) atomicOr(&axes[vb], mask);
#else
    if (hit) atomicOr(&axes[vb], 1 << j.ax);
#endif
}

/* Add rows r, r + dir, ... (n of them) of column iu (table t) to the slab's accumulators in
 * shared memory: slot q at s[q * NT] holds voxel k0 - 1 + q (q = 0 and K + 1 are guards that
 * are never read). A row with floor(fb) = k0 - 1 + q adds c wj (1 - wb) to slot q and c wj wb
 * to slot q + 1; rows whose floor(fb) lies outside [k0 - 1, k0 + K - 1] touch no voxel of the
 * slab and are skipped. The slot is indexed directly, so the rows may come in any order. */
template <typename T, int K, int NT>
static __device__ __forceinline__ void kri_gather_rows(const typename kri_t4<T>::V *__restrict__ t,
                                                       int nu, int r, int dir, int n, T mt, T wj,
                                                       int k0, T *s)
{
    for (; n > 0; n--, r += dir) {
        const typename kri_t4<T>::V e = t[(long long)r * nu];
        const T fb = KFMA(mt, e.y, e.z);
        const T fl = floor(fb);
        const int q = (int)fl - k0 + 1;
        if ((unsigned)q > (unsigned)K) continue;
        const T wb = KSUB(fb, fl);
        s[q * NT] += KMUL(e.x, KMUL(wj, KSUB((T)1, wb)));
        s[(q + 1) * NT] += KMUL(e.x, KMUL(wj, wb));
    }
}

/* The detector columns (a range to scan, within [0, nu - 1]; lo > hi when it lies off the
 * detector) whose ray of major axis M crosses plane m within (minor - 1, minor + 1) along its
 * minor axis A: the inverse of the projective map from the column to the crossing, widened by
 * one column (the scan checks each column exactly, and extends the range while the next
 * column qualifies). */
template <typename T>
static __device__ __forceinline__ void kri_gather_cols(const typename kri_t3<T>::V &v, T cu,
                                                       int nu, int M, T m, int minor, int *lo,
                                                       int *hi)
{
    const int A = 1 - M;
    const T dm = m - v.s[M];
    T a[2];
    for (int e = 0; e < 2; e++) {
        const T t = kri_est_div((T)(minor - 1 + 2 * e) - v.s[A], dm);
        a[e] = kri_est_div(t * v.w[M] - v.w[A], v.u[A] - t * v.u[M]) + cu;
    }
    const T l = a[0] < a[1] ? a[0] : a[1], h = a[0] < a[1] ? a[1] : a[0];
    if (!(l > (T)-2 * nu && h < (T)3 * nu)) { /* not finite or far off: scan everything */
        *lo = 0, *hi = nu - 1;
        return;
    }
    *lo = min(max((int)floor(l) - 1, 0), nu - 1);
    *hi = max(min((int)ceil(h) + 1, nu - 1), 0);
}

template <typename T, int K>
__global__ void __launch_bounds__(KRI_GX *KRI_GY)
    k_ct3_gather(typename kri_t3<T>::P p, const typename kri_t3<T>::V *__restrict__ views,
                 int v0, int nvb, const typename kri_t4<T>::V *__restrict__ tab,
                 const typename kri_t4<T>::V *__restrict__ col, const int *__restrict__ axes,
                 T *__restrict__ vol, int first, int za, int zb)
{
    constexpr int NT = KRI_GX * KRI_GY;
    __shared__ T sacc[(K + 2) * NT]; /* each thread's slab: slots at stride NT (its own only) */
    const int i = blockIdx.x * KRI_GX + threadIdx.x, j = blockIdx.y * KRI_GY + threadIdx.y;
    const int k0 = za + blockIdx.z * K;
    if (i >= p.n[0] || j >= p.n[1]) return;
    T *s = sacc + threadIdx.y * KRI_GX + threadIdx.x;
#pragma unroll
    for (int q = 0; q < K + 2; q++) s[q * NT] = 0;
    for (int vb = 0; vb < nvb; vb++) {
        const int present = axes[vb];
        const typename kri_t3<T>::V v = views[v0 + vb];
        const typename kri_t4<T>::V *tv = tab + (long long)vb * p.nv * p.nu;
        const typename kri_t4<T>::V *cv = col + (long long)vb * p.nu;
        for (int M = 0; M < 2; M++) {
            if (!(present & (1 << M))) continue;
            const int m = M ? j : i, minor = M ? i : j;
            const T mt = (T)m, dm = mt - v.s[M];
            int lo, hi;
            kri_gather_cols<T>(v, p.cu, p.nu, M, mt, minor, &lo, &hi);
            /* column iu: false when it does not qualify (another major axis, or its crossing
             * is not within one voxel of minor); else its rows are added */
            auto column = [&](int iu) -> bool {
                const typename kri_t4<T>::V q = cv[iu];
                if ((int)q.z != M) return false;
                const T fa = KFMA(mt, q.x, q.y), fl = floor(fa), wa = KSUB(fa, fl);
                const int ia = (int)fl;
                if (ia != minor && ia != minor - 1) return false;
                const T wj = ia == minor ? KSUB((T)1, wa) : wa;
                /* rows: fb ~ F0 + (iv - cv) F1 along the column; those with floor(fb) in
                 * [k0 - 1, k0 + K - 1], widened by one row and then while they qualify */
                const T g = q.w, F1 = dm * v.v[2] * g, F0 = v.s[2] + dm * v.w[2] * g;
                const T b1 = kri_est_div((T)(k0 - 1) - F0, F1) + p.cv;
                const T b2 = kri_est_div((T)(k0 + K) - F0, F1) + p.cv;
                const T bl = b1 < b2 ? b1 : b2, bh = b1 < b2 ? b2 : b1;
                int rlo = 0, rhi = p.nv - 1;
                if (bl > (T)-2 * p.nv && bh < (T)3 * p.nv) {
                    rlo = max((int)floor(bl) - 1, 0);
                    rhi = min((int)ceil(bh) + 1, p.nv - 1);
                }
                if (rlo > rhi) return true;
                const int dir = F1 >= 0 ? 1 : -1;
                int r0 = dir > 0 ? rlo : rhi, r1 = dir > 0 ? rhi : rlo;
                const typename kri_t4<T>::V *tc = tv + iu;
                while (r0 - dir >= 0 && r0 - dir < p.nv) { /* earlier rows still in the slab */
                    const typename kri_t4<T>::V e = tc[(long long)(r0 - dir) * p.nu];
                    if (!(floor(KFMA(mt, e.y, e.z)) >= (T)(k0 - 1))) break;
                    r0 -= dir;
                }
                while (r1 + dir >= 0 && r1 + dir < p.nv) { /* later rows still in the slab */
                    const typename kri_t4<T>::V e = tc[(long long)(r1 + dir) * p.nu];
                    if (!(floor(KFMA(mt, e.y, e.z)) <= (T)(k0 + K - 1))) break;
                    r1 += dir;
                }
                kri_gather_rows<T, K, NT>(tc, p.nu, r0, dir, (r1 - r0) * dir + 1, mt, wj, k0,
                                          s);
                return true;
            };
            /* the estimated columns, then outwards while they still qualify */
            for (int iu = lo; iu <= hi; iu++) column(iu);
            for (int iu = lo - 1; iu >= 0 && iu < p.nu && column(iu); iu--) {
            }
            for (int iu = hi + 1; iu >= 0 && iu < p.nu && column(iu); iu++) {
            }
        }
    }
    T *o = vol + ((long long)k0 * p.n[1] + j) * p.n[0] + i;
    const long long sz = (long long)p.n[0] * p.n[1];
#pragma unroll
    for (int q = 0; q < K; q++)
        if (k0 + q < zb) o[q * sz] = first ? s[(q + 1) * NT] : o[q * sz] + s[(q + 1) * NT];
}

template <typename T>
static kr_status kri_gather_run(const kri_ct3_dev *q, const typename kri_t3<T>::P &prm,
                                const T *proj, T *vol, cudaStream_t st, int za, int zb)
{
    if (zb <= za) return KR_OK;
    typedef typename kri_t4<T>::V V4;
    const typename kri_t3<T>::V *dv = (const typename kri_t3<T>::V *)q->d_views;
    V4 *tab = (V4 *)q->d_gtab, *col = (V4 *)q->d_gcol;
    int *axes = (int *)q->d_gint;
    for (int v0 = 0; v0 < prm.nviews; v0 += q->gather_nvb) {
        const int nvb = prm.nviews - v0 < q->gather_nvb ? prm.nviews - v0 : q->gather_nvb;
        KRI_TRY(kri_cu_err(cudaMemsetAsync(axes, 0, (size_t)nvb * sizeof(int), st),
                             "gather adjoint: view flags"));
        dim3 gt((prm.nu + KRI_GU - 1) / KRI_GU, (prm.nv + KRI_GV - 1) / KRI_GV, nvb);
        k_ct3_gtab<T><<<gt, dim3(KRI_GU, KRI_GV), 0, st>>>(prm, dv, v0, proj, tab, col, axes);
        KRI_TRY(kri_cu_err(cudaGetLastError(), "gather adjoint: table kernel launch"));
        /* K = 16 voxels a thread (f64: 8), blocks of 16 x 8 columns: 1.19 s at 512^3 on the
         * H100 with the slots in shared memory (K = 32: 1.17 s, K = 64: 1.27 s; the slots in
         * registers behind an unrolled walk in increasing z: 1.51 s; shared slots with the
         * current two in registers: 1.28 s). With register slots, 8 x 8, 32 x 4 and K = 8 or 32
         * were slower, and one warp per column along z 8.5x slower (no reuse of the rows
         * between the warps' columns). */
        const int K = sizeof(T) == sizeof(float) ? 16 : 8;
        dim3 gg((prm.n[0] + KRI_GX - 1) / KRI_GX, (prm.n[1] + KRI_GY - 1) / KRI_GY,
                (zb - za + K - 1) / K);
        if (sizeof(T) == sizeof(float))
            k_ct3_gather<T, 16><<<gg, dim3(KRI_GX, KRI_GY), 0, st>>>(prm, dv, v0, nvb, tab, col,
                                                                     axes, vol, v0 == 0, za, zb);
        else
            k_ct3_gather<T, 8><<<gg, dim3(KRI_GX, KRI_GY), 0, st>>>(prm, dv, v0, nvb, tab, col,
                                                                    axes, vol, v0 == 0, za, zb);
        KRI_TRY(kri_cu_err(cudaGetLastError(), "gather adjoint: kernel launch"));
    }
    return kri_cu_err(cudaStreamSynchronize(st), "gather adjoint");
}

kr_status kri_cuda_ct3d_adjoint_gather(const kr_ct_projector_plan *p, const kri_ct3_dev *d,
                                        const void *proj, void *vol, int za, int zb)
{
    const kri_ct3_plan *q = p->p3;
    cudaStream_t st = (cudaStream_t)kr_ctx_stream(p->ctx);
    return p->opts.dtype == KR_F64
               ? kri_gather_run<double>(d, q->p64, (const double *)proj, (double *)vol, st, za, zb)
               : kri_gather_run<float>(d, q->p32, (const float *)proj, (float *)vol, st, za, zb);
}

/* Does view d let the Joseph adjoint gather? Its detector rows run along z (v = (0, 0, v_z),
 * v_z != 0) and its columns across it (u_z = 0), so that a ray's x and y direction components
 * depend on its column only; and it has no z-major ray (its largest |w_z| below its smallest
 * max(|w_x|, |w_y|), with a margin against rounding). The plan gathers when every view does and
 * the ray factor is 1. */
int kri_ct3_view_gathers(const kri_ct3v_f64 *d, const kri_ct3p_f64 *P)
{
    if (d->v[0] != 0 || d->v[1] != 0 || d->v[2] == 0 || d->u[2] != 0) return 0;
    const double wz = fmax(fabs(d->w[2] - P->cv * d->v[2]),
                           fabs(d->w[2] + ((double)P->nv - 1 - P->cv) * d->v[2]));
    double wxy = INFINITY;
    for (int iu = 0; iu < P->nu; iu++) {
        const double a = (double)iu - P->cu;
        wxy = fmin(wxy, fmax(fabs(d->w[0] + a * d->u[0]), fabs(d->w[1] + a * d->u[1])));
    }
    return wz < 0.999 * wxy;
}
