/* Cone-beam projectors on CUDA. One thread per detector pixel: blocks of 32 (u) x 8 (v)
 * pixels of one view, so a warp holds 32 neighbouring pixels of a detector row (coalesced
 * projection reads and writes, neighbouring rays). Block order: u tiles fastest, then views,
 * then v tiles, so the blocks resident at one time trace many views through the same thin band
 * of z, which stays in L2. The view's parameters are staged in shared memory.
 *
 * Joseph: the volume is first copied into two zero-padded volumes (one voxel on every side):
 * "P" in [x, y, z] order and "T" in [y, x, z] order. x-major rays read T, the others P, so the
 * fast minor axis of every ray (y for x-major rays, x for the others) is the fast axis in
 * memory: a warp's bilinear reads of one sample land on a few consecutive cache lines, the loop
 * needs no bounds checks (its sample range is exact), and the four reads are plain __ldg loads.
 * The adjoint scatters with atomicAdd into zeroed P and T (f32: into quad accumulators, one
 * 16-byte atomic per sample, folded back into P and T) and then adds them (T transposed back)
 * into the volume. Siddon reads and scatters into the volume directly.
 *
 * Reproducibility: the forward projector is deterministic; the adjoint's atomics make it
 * deterministic only to rounding (float addition order varies between runs). */
#include "project3d_cuda.cuh"

#include <string.h>

#define KRI_BU 32 /* block: pixels along u */
#define KRI_BV 8  /* block: pixels along v */
#define KRI_GRID_MAX 65535

/* Padded layouts: P index ((K * (n1 + 2)) + J) * (n0 + 2) + I, T index ((K * (n0 + 2)) + I) *
 * (n1 + 2) + J, for padded indices I = i + 1 in [0, n0 + 1] etc. */

/* P from the volume (zero border). Grid-stride over the padded elements. */
template <typename T>
__global__ void k_ct3_pad_p(int n0, int n1, int n2, long long total, const T *__restrict__ vol,
                            T *__restrict__ P)
{
    const long long p0 = n0 + 2, p1 = n1 + 2;
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
         e += (long long)gridDim.x * blockDim.x) {
        long long I = e % p0, J = (e / p0) % p1, K = e / (p0 * p1);
        long long i = I - 1, j = J - 1, k = K - 1;
        T x = 0;
        if (i >= 0 && i < n0 && j >= 0 && j < n1 && k >= 0 && k < n2)
            x = vol[(k * n1 + j) * n0 + i];
        P[e] = x;
    }
}

/* T from the volume: 32 x 32 tiles of the (x, y) plane through shared memory, so reads run
 * along x and writes along y. Block (32, 8); grid (x tiles, y tiles, z slices, strided). */
template <typename T>
__global__ void k_ct3_pad_t(int n0, int n1, int n2, const T *__restrict__ vol, T *__restrict__ Tb)
{
    __shared__ T tile[32][33];
    const long long p0 = n0 + 2, p1 = n1 + 2;
    const int I0 = blockIdx.x * 32, J0 = blockIdx.y * 32;
    for (long long K = blockIdx.z; K < n2 + 2; K += gridDim.z) {
        const long long k = K - 1;
        __syncthreads();
        for (int r = 0; r < 32; r += 8) {
            long long I = I0 + threadIdx.x, J = J0 + threadIdx.y + r;
            long long i = I - 1, j = J - 1;
            T x = 0;
            if (i >= 0 && i < n0 && j >= 0 && j < n1 && k >= 0 && k < n2)
                x = vol[(k * n1 + j) * n0 + i];
            tile[threadIdx.y + r][threadIdx.x] = x;
        }
        __syncthreads();
        for (int r = 0; r < 32; r += 8) {
            long long J = J0 + threadIdx.x, I = I0 + threadIdx.y + r;
            if (I < p0 && J < p1) Tb[(K * p0 + I) * p1 + J] = tile[threadIdx.x][threadIdx.y + r];
        }
    }
}

/* vol = P (interior) + T (interior, transposed back). Same tiling as k_ct3_pad_t, reversed. */
template <typename T>
__global__ void k_ct3_unpad(int n0, int n1, int n2, const T *__restrict__ P,
                            const T *__restrict__ Tb, T *__restrict__ vol)
{
    __shared__ T tile[32][33];
    const long long p0 = n0 + 2, p1 = n1 + 2;
    const int i0 = blockIdx.x * 32, j0 = blockIdx.y * 32;
    for (long long k = blockIdx.z; k < n2; k += gridDim.z) {
        __syncthreads();
        for (int r = 0; r < 32; r += 8) { /* read T along y */
            long long j = j0 + threadIdx.x, i = i0 + threadIdx.y + r;
            T x = 0;
            if (i < n0 && j < n1) x = Tb[((k + 1) * p0 + (i + 1)) * p1 + (j + 1)];
            tile[threadIdx.y + r][threadIdx.x] = x; /* tile[i][j] */
        }
        __syncthreads();
        for (int r = 0; r < 32; r += 8) { /* write along x */
            long long i = i0 + threadIdx.x, j = j0 + threadIdx.y + r;
            if (i < n0 && j < n1)
                vol[(k * n1 + j) * n0 + i] =
                    P[((k + 1) * p1 + (j + 1)) * p0 + (i + 1)] + tile[threadIdx.x][threadIdx.y + r];
        }
    }
}

/* Running padded offset of a Joseph ray: at(ra, rb) = base + ia + ib sb for the raw floors of
 * kri_floor_raw; the 32-bit version folds the floors' bias into the base (unsigned arithmetic,
 * wrapping is defined and the final offset is in range). */
template <typename T, typename I> struct kri_off;
template <typename T> struct kri_off<T, int> {
    unsigned b, sb;
    __device__ __forceinline__ kri_off(int base, int sb_)
    {
        const unsigned bias = kri_floor_bias<T>();
        sb = (unsigned)sb_;
        b = (unsigned)base - bias - bias * sb;
    }
    __device__ __forceinline__ int at(unsigned ra, unsigned rb) const
    {
        return (int)(b + ra + rb * sb);
    }
    __device__ __forceinline__ void step(int sm) { b += (unsigned)sm; }
};
template <typename T> struct kri_off<T, long long> {
    long long b, sb;
    __device__ __forceinline__ kri_off(long long base, long long sb_) : b(base), sb(sb_) {}
    __device__ __forceinline__ long long at(unsigned ra, unsigned rb) const
    {
        const unsigned bias = kri_floor_bias<T>();
        return b + (long long)(int)(ra - bias) + (long long)(int)(rb - bias) * sb;
    }
    __device__ __forceinline__ void step(long long sm) { b += sm; }
};

/* Buffer and strides of the padded layout a ray of major axis ax reads: the fast minor axis
 * has stride 1 in both layouts. Also on the host, where the forward lays out its volumes. */
template <typename I>
static __host__ __device__ __forceinline__ void kri_pad_layout(int ax, int n0, int n1, int *which,
                                                               I *sm, I *sb)
{
    const I p0 = n0 + 2, p1 = n1 + 2;
    if (ax == 0) { /* T: [y, x, z] */
        *which = 1;
        *sm = p1;
        *sb = p0 * p1;
    } else if (ax == 1) { /* P: major y, minor x (fast), z */
        *which = 0;
        *sm = p0;
        *sb = p0 * p1;
    } else { /* P: major z, minor x (fast), y */
        *which = 0;
        *sm = p0 * p1;
        *sb = p0;
    }
}

/* The 2 x 2 neighbourhood (q[0], q[1], q[sb], q[sb + 1]) of a padded volume: four loads from
 * the plain layout, or one 16-byte load from the quad layout of k_ct3_quads. The same numbers
 * either way. */
template <typename T, typename I>
static __device__ __forceinline__ void kri_quad(const T *q, I sb, T *v)
{
    v[0] = __ldg(q), v[1] = __ldg(q + 1), v[2] = __ldg(q + sb), v[3] = __ldg(q + sb + 1);
}
template <typename I>
static __device__ __forceinline__ void kri_quad(const float4 *q, I, float *v)
{
    const float4 a = __ldg(q);
    v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w;
}

/* The volumes a Joseph forward reads, by the rays' major axis (0: T, 1 and 2: P; with the quad
 * layout one per axis, since the quads of P depend on the axis's sb). */
template <typename B> struct kri_jbufs {
    const B *b[3];
};

/* The start of the ray kernels: view v0 + blockIdx.y staged in shared memory (sv), and the
 * thread's detector pixel (iu, iv) in the v tiles from b0; false when it lies off the detector
 * (after the barrier, so every thread of the block takes part in it). */
template <typename P, typename V>
static __device__ __forceinline__ bool kri_ray_pixel(const P &p, const V *__restrict__ views,
                                                     int v0, int b0, V &sv, int &view, int &iu,
                                                     int &iv)
{
    view = v0 + blockIdx.y;
    if (threadIdx.x == 0 && threadIdx.y == 0) sv = views[view];
    __syncthreads();
    iu = blockIdx.x * KRI_BU + threadIdx.x;
    iv = (b0 + blockIdx.z) * KRI_BV + threadIdx.y;
    return iu < p.nu && iv < p.nv;
}

/* The Joseph set-up j of sub-ray s of pixel (iu, iv) of view sv; false when the ray misses the
 * volume. */
template <typename T>
static __device__ __forceinline__ bool kri_jos_subray(const typename kri_t3<T>::P &p,
                                                      const typename kri_t3<T>::V &sv, int iu,
                                                      int iv, int s, typename kri_t3<T>::J &j)
{
    typename kri_t3<T>::R r;
    ray3(&p, &sv, iu, iv, s % p.k, s / p.k, &r);
    jos3_setup(&p, &r, &j);
    return j.m0 <= j.m1;
}

/* grid (u tiles, views of this launch from v0, v tiles from b0); block (32, 8). B is T (plain
 * padded volumes) or float4 (quads, f32 only). */
template <typename T, typename I, typename B>
__global__ void __launch_bounds__(KRI_BU *KRI_BV)
    k_ct3_fwd_jos(typename kri_t3<T>::P p, const typename kri_t3<T>::V *__restrict__ views,
                  int v0, int b0, const kri_jbufs<B> bufs, T *__restrict__ proj)
{
    __shared__ typename kri_t3<T>::V sv;
    int view, iu, iv;
    if (!kri_ray_pixel(p, views, v0, b0, sv, view, iu, iv)) return;
    T total = 0;
    for (int s = 0; s < p.k * p.k; s++) {
        typename kri_t3<T>::J j;
        if (!kri_jos_subray<T>(p, sv, iu, iv, s, j)) continue;
        int which; /* bufs.b[j.ax] is that volume (kri_fwd3) */
        I sm, sb;
        kri_pad_layout<I>(j.ax, p.n[0], p.n[1], &which, &sm, &sb);
        /* padded offset of sample m at minor indices (ia, ib): base + ia + ib sb, with
         * base = (m + 1) sm + 1 + sb; m counted in float too (exact), no conversions */
        const B *__restrict__ buf = bufs.b[j.ax];
        kri_off<T, I> off((I)(j.m0 + 1) * sm + 1 + sb, sb);
        T mf = (T)j.m0, acc = 0;
#pragma unroll 8 /* 512^3 RabbitCT on the H100: by 4 311 ms, by 8 267 ms, by 16 264 ms */
        for (int m = j.m0; m <= j.m1; m++, mf += (T)1, off.step(sm)) {
            const T fa = KFMA(mf, j.ta, j.ca), fb = KFMA(mf, j.tb, j.cb);
            T fla, flb;
            const unsigned ra = kri_floor_raw(fa, &fla), rb = kri_floor_raw(fb, &flb);
            const T wa = KSUB(fa, fla), wb = KSUB(fb, flb);
            T v[4];
            kri_quad(buf + off.at(ra, rb), sb, v);
            acc += bilerp3(v[0], v[1], v[2], v[3], wa, wb);
        }
        total += acc * j.L;
    }
    proj[((long long)view * p.nv + iv) * p.nu + iu] = total * p.inv_k2;
}

/* Quads (x[e], x[e + 1], x[e + sb], x[e + sb + 1]) of a padded volume: a bilinear sample is one
 * 16-byte load (elements past the end are 0: never read, the Joseph sample range stays inside
 * the padding). */
__global__ void k_ct3_quads(long long total, long long sb, const float *__restrict__ x,
                            float4 *__restrict__ y)
{
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
         e += (long long)gridDim.x * blockDim.x) {
        const long long f = e + sb;
        y[e] = make_float4(x[e], e + 1 < total ? x[e + 1] : 0.0f, f < total ? x[f] : 0.0f,
                           f + 1 < total ? x[f + 1] : 0.0f);
    }
}

/* Where the Joseph adjoint adds a sample's four updates (c w0, c w1, c w2, c w3): B = T, four
 * atomics into the plain padded volume its ray's major axis reads (b[ax]: T or P, zeroed); B =
 * float4 (f32 with room for the forward's quad layout), one 16-byte atomic (sm_90) into the quad
 * of the 2 x 2 neighbourhood in the quad accumulator of that axis, which k_ct3_unquad folds back
 * into P and T: a quarter of the atomic operations (dense 512^3 data on the H100: 2.96 s
 * against 4.78 s). */
template <typename B> struct kri_jacc {
    B *b[3];
};
template <typename T, typename I>
static __device__ __forceinline__ void kri_adj_add(T *q, I sb, T c, const T *w)
{
    atomicAdd(q, KMUL(c, w[0]));
    atomicAdd(q + 1, KMUL(c, w[1]));
    atomicAdd(q + sb, KMUL(c, w[2]));
    atomicAdd(q + sb + 1, KMUL(c, w[3]));
}
template <typename I>
static __device__ __forceinline__ void kri_adj_add(float4 *q, I, float c, const float *w)
{
    const float4 x = make_float4(KMUL(c, w[0]), KMUL(c, w[1]), KMUL(c, w[2]), KMUL(c, w[3]));
#if __CUDA_ARCH__ >= 900
    atomicAdd(q, x);
#else
    atomicAdd(&q->x, x.x), atomicAdd(&q->y, x.y), atomicAdd(&q->z, x.z), atomicAdd(&q->w, x.w);
#endif
}

template <typename T, typename I, typename B>
__global__ void __launch_bounds__(KRI_BU *KRI_BV)
    k_ct3_adj_jos(typename kri_t3<T>::P p, const typename kri_t3<T>::V *__restrict__ views,
                  int v0, int b0, const T *__restrict__ proj, const kri_jacc<B> acc)
{
    __shared__ typename kri_t3<T>::V sv;
    int view, iu, iv;
    if (!kri_ray_pixel(p, views, v0, b0, sv, view, iu, iv)) return;
    const T y = proj[((long long)view * p.nv + iv) * p.nu + iu];
    if (y == 0) return;
    const T yk = y * p.inv_k2;
    for (int s = 0; s < p.k * p.k; s++) {
        typename kri_t3<T>::J j;
        if (!kri_jos_subray<T>(p, sv, iu, iv, s, j)) continue;
        int which;
        I sm, sb;
        kri_pad_layout<I>(j.ax, p.n[0], p.n[1], &which, &sm, &sb);
        B *buf = acc.b[j.ax];
        const T c = yk * j.L;
        kri_off<T, I> off((I)(j.m0 + 1) * sm + 1 + sb, sb);
        T mf = (T)j.m0;
        for (int m = j.m0; m <= j.m1; m++, mf += (T)1, off.step(sm)) {
            const T fa = KFMA(mf, j.ta, j.ca), fb = KFMA(mf, j.tb, j.cb);
            T fla, flb;
            const unsigned ra = kri_floor_raw(fa, &fla), rb = kri_floor_raw(fb, &flb);
            T w[4];
            jos3_w4(KSUB(fa, fla), KSUB(fb, flb), w);
            kri_adj_add(buf + off.at(ra, rb), sb, c, w);
        }
    }
}

/* out[e] = the sums the quads of q0 (and q1, if not NULL) hold for element e: quad e adds to
 * (e, e + 1, e + sb, e + sb + 1). Padded elements only (samples never wrap a row). */
__global__ void k_ct3_unquad(long long total, const float4 *__restrict__ q0, long long sb0,
                             const float4 *__restrict__ q1, long long sb1, float *__restrict__ out)
{
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < total;
         e += (long long)gridDim.x * blockDim.x) {
        float x = q0[e].x;
        if (e >= 1) x += q0[e - 1].y;
        if (e >= sb0) x += q0[e - sb0].z;
        if (e >= sb0 + 1) x += q0[e - sb0 - 1].w;
        if (q1) {
            x += q1[e].x;
            if (e >= 1) x += q1[e - 1].y;
            if (e >= sb1) x += q1[e - sb1].z;
            if (e >= sb1 + 1) x += q1[e - sb1 - 1].w;
        }
        out[e] = x;
    }
}

template <typename T>
__global__ void __launch_bounds__(KRI_BU *KRI_BV)
    k_ct3_sid(typename kri_t3<T>::P p, const typename kri_t3<T>::V *__restrict__ views, int v0,
              int b0, const T *__restrict__ vol, T *__restrict__ proj, int adjoint,
              const T *__restrict__ yin, T *__restrict__ acc)
{
    __shared__ typename kri_t3<T>::V sv;
    int view, iu, iv;
    if (!kri_ray_pixel(p, views, v0, b0, sv, view, iu, iv)) return;
    const long long o = ((long long)view * p.nv + iv) * p.nu + iu;
    T yk = 0;
    if (adjoint) {
        if (yin[o] == 0) return;
        yk = yin[o] * p.inv_k2;
    }
    T total = 0;
    for (int s = 0; s < p.k * p.k; s++) {
        typename kri_t3<T>::R r;
        ray3(&p, &sv, iu, iv, s % p.k, s / p.k, &r);
        if (adjoint)
            sid3_walk(&p, &r, NULL, acc, yk, 0, p.n[2]);
        else
            total += sid3_walk(&p, &r, vol, NULL, 0, 0, 0);
    }
    if (!adjoint) proj[o] = total * p.inv_k2;
}

/* ---- launchers ----------------------------------------------------------------------------- */

static const kri_ct3p_f32 &kri_prm(const kri_ct3_plan *q, float *) { return q->p32; }
static const kri_ct3p_f64 &kri_prm(const kri_ct3_plan *q, double *) { return q->p64; }

/* Launch `body(grid, v0, b0)` over views [va, vb) and all v tiles within the grid limits. */
template <typename F>
static kr_status kri_ray_launches(int nu, int nv, int va, int vb, F body, const char *what)
{
    const int ut = (nu + KRI_BU - 1) / KRI_BU, vt = (nv + KRI_BV - 1) / KRI_BV;
    if (ut > 2147483647 / 2)
        return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: %d detector columns are too many", what, nu);
    for (int b0 = 0; b0 < vt; b0 += KRI_GRID_MAX)
        for (int v0 = va; v0 < vb; v0 += KRI_GRID_MAX) {
            dim3 grid(ut, vb - v0 < KRI_GRID_MAX ? vb - v0 : KRI_GRID_MAX,
                      vt - b0 < KRI_GRID_MAX ? vt - b0 : KRI_GRID_MAX);
            body(grid, v0, b0);
            KRI_TRY(kri_cu_err(cudaGetLastError(), what));
        }
    return KR_OK;
}

template <typename T>
static kr_status kri_pad(const kr_ct_projector_plan *p, const kri_ct3_dev *d, const T *vol, T *P,
                         T *Tb, cudaStream_t st)
{
    const kri_ct3_plan *q = p->p3;
    const int n0 = q->p64.n[0], n1 = q->p64.n[1], n2 = q->p64.n[2];
    const long long total = (long long)d->pad_elems;
    long long blocks = (total + 255) / 256;
    if (blocks > 65535LL * 16) blocks = 65535LL * 16;
    k_ct3_pad_p<T><<<(unsigned)blocks, 256, 0, st>>>(n0, n1, n2, total, vol, P);
    KRI_TRY(kri_cu_err(cudaGetLastError(), "cone-beam projector: padding kernel launch"));
    dim3 grid((n0 + 2 + 31) / 32, (n1 + 2 + 31) / 32,
              n2 + 2 < KRI_GRID_MAX ? n2 + 2 : KRI_GRID_MAX);
    if (grid.y > KRI_GRID_MAX)
        return kri_fail(KR_ERR_NOT_SUPPORTED, "cone-beam projector: volume too large along y");
    k_ct3_pad_t<T><<<grid, dim3(32, 8), 0, st>>>(n0, n1, n2, vol, Tb);
    return kri_cu_err(cudaGetLastError(), "cone-beam projector: transposing kernel launch");
}

/* Per major axis a: the plain padded volume (P or T) its rays read and scatter into, and the sb
 * of that layout (kri_pad_layout). */
template <typename T>
static void kri_axis_bufs(const kri_ct3_plan *q, const kri_ct3_dev *d, T *buf[3], long long sb[3])
{
    for (int a = 0; a < 3; a++) {
        int which;
        long long sm;
        kri_pad_layout<long long>(a, q->p64.n[0], q->p64.n[1], &which, &sm, &sb[a]);
        buf[a] = (T *)d->d_pad[which];
    }
}

/* A ray kernel over views [va, vb) and every v tile: k32 (32-bit offsets, for `small` padded
 * volumes) or k64, each called as k(prm, dv, v0, b0, args...). */
template <typename P, typename V, typename K32, typename K64, typename... A>
static kr_status kri_ray_kernel(const P &prm, const V *dv, int va, int vb, bool small,
                                cudaStream_t st, K32 k32, K64 k64, const char *what,
                                const A &...args)
{
    return kri_ray_launches(
        prm.nu, prm.nv, va, vb,
        [&](dim3 grid, int v0, int b0) {
            if (small)
                k32<<<grid, dim3(KRI_BU, KRI_BV), 0, st>>>(prm, dv, v0, b0, args...);
            else
                k64<<<grid, dim3(KRI_BU, KRI_BV), 0, st>>>(prm, dv, v0, b0, args...);
        },
        what);
}

/* What the launches of one call share: the plan, its state, its constants and views in the
 * dtype T, the stream. */
template <typename T> struct kri_call3 {
    const kr_ct_projector_plan *p;
    const kri_ct3_dev *d;
    typename kri_t3<T>::P prm;
    const typename kri_t3<T>::V *dv;
    cudaStream_t st;
    int va, vb; /* the views of the call */
};

/* Siddon: proj = A vol (adjoint 0) or vol = A^T proj (adjoint 1, into the zeroed volume). */
template <typename T>
static kr_status kri_sid3(const kri_call3<T> &c, int adjoint, const T *in, T *out)
{
    const T *none = NULL;
    if (!adjoint) {
        KRI_TRY(kri_ray_kernel(c.prm, c.dv, c.va, c.vb, true, c.st, k_ct3_sid<T>, k_ct3_sid<T>,
                               "cone-beam Siddon projection kernel launch", in, out, 0, none,
                               (T *)NULL));
        return kri_cu_finish(c.p->ctx, "cone-beam Siddon projection kernel");
    }
    size_t bytes = (size_t)c.prm.n[0] * c.prm.n[1] * c.prm.n[2] * sizeof(T);
    KRI_TRY(kri_cu_err(cudaMemsetAsync(out, 0, bytes, c.st),
                       "cone-beam backprojection: zeroing the volume"));
    KRI_TRY(kri_ray_kernel(c.prm, c.dv, c.va, c.vb, true, c.st, k_ct3_sid<T>, k_ct3_sid<T>,
                           "cone-beam Siddon backprojection kernel launch", none, (T *)NULL, 1,
                           in, out));
    return kri_cu_finish(c.p->ctx, "cone-beam Siddon backprojection kernel");
}

/* Joseph: proj = A vol, reading plain (T) or, f32 with room for them, quad (float4) padded
 * volumes. */
template <typename T>
static kr_status kri_fwd3(const kri_call3<T> &c, const T *vol, T *proj)
{
    static const char what[] = "cone-beam Joseph projection kernel launch";
    T *P = (T *)c.d->d_pad[0], *Tb = (T *)c.d->d_pad[1];
    KRI_TRY(kri_pad<T>(c.p, c.d, vol, P, Tb, c.st));
    const bool small = c.d->pad_elems < ((size_t)1 << 31) - 4;
    const long long total = (long long)c.d->pad_elems;
    T *buf[3];
    long long sb[3];
    kri_axis_bufs(c.p->p3, c.d, buf, sb);
    kri_jbufs<T> b;
    for (int a = 0; a < 3; a++) b.b[a] = buf[a];
    if (sizeof(T) == sizeof(float) && c.d->d_quad[0]) { /* f32 with room for the quad layout */
        kri_jbufs<float4> b4;
        for (int a = 0; a < 3; a++) {
            b4.b[a] = (const float4 *)c.d->d_quad[a];
            k_ct3_quads<<<kri_cu_grid(total, 256), 256, 0, c.st>>>(
                total, sb[a], (const float *)b.b[a], (float4 *)c.d->d_quad[a]);
        }
        KRI_TRY(kri_cu_err(cudaGetLastError(), "cone-beam projector: quad kernel launch"));
        KRI_TRY(kri_ray_kernel(c.p->p3->p32, (const kri_ct3v_f32 *)c.d->d_views, c.va, c.vb, small,
                               c.st,
                               k_ct3_fwd_jos<float, int, float4>,
                               k_ct3_fwd_jos<float, long long, float4>, what, b4, (float *)proj));
    } else {
        KRI_TRY(kri_ray_kernel(c.prm, c.dv, c.va, c.vb, small, c.st, k_ct3_fwd_jos<T, int, T>,
                               k_ct3_fwd_jos<T, long long, T>, what, b, proj));
    }
    return kri_cu_finish(c.p->ctx, "cone-beam Joseph projection kernel");
}

/* Joseph: vol = A^T proj, scattering into plain (T) or, f32 with room for them, quad (float4)
 * accumulators (kri_cuda_ct3d_adjoint_gather for plans that gather). */
template <typename T>
static kr_status kri_adj3(const kri_call3<T> &c, const T *proj, T *vol)
{
    static const char what[] = "cone-beam Joseph backprojection kernel launch";
    const int n0 = c.prm.n[0], n1 = c.prm.n[1], n2 = c.prm.n[2];
    T *P = (T *)c.d->d_pad[0], *Tb = (T *)c.d->d_pad[1];
    const bool small = c.d->pad_elems < ((size_t)1 << 31) - 4;
    if (sizeof(T) == sizeof(float) && c.d->d_quad[0]) { /* f32 with room for the quad layout */
        const long long total = (long long)c.d->pad_elems;
        kri_jacc<float4> acc;
        T *buf[3];
        long long sb[3];
        kri_axis_bufs(c.p->p3, c.d, buf, sb);
        for (int a = 0; a < 3; a++) {
            acc.b[a] = (float4 *)c.d->d_quad[a];
            KRI_TRY(kri_cu_err(
                cudaMemsetAsync(acc.b[a], 0, c.d->pad_elems * sizeof(float4), c.st),
                "cone-beam backprojection: zeroing the work space"));
        }
        KRI_TRY(kri_ray_kernel(c.p->p3->p32, (const kri_ct3v_f32 *)c.d->d_views, c.va, c.vb, small,
                               c.st,
                               k_ct3_adj_jos<float, int, float4>,
                               k_ct3_adj_jos<float, long long, float4>, what,
                               (const float *)proj, acc));
        /* axis 0 (T layout) into T; axes 1 and 2 (both P layout) into P */
        k_ct3_unquad<<<kri_cu_grid(total, 256), 256, 0, c.st>>>(total, acc.b[0], sb[0], NULL, 0,
                                                                  (float *)Tb);
        k_ct3_unquad<<<kri_cu_grid(total, 256), 256, 0, c.st>>>(total, acc.b[1], sb[1], acc.b[2],
                                                                  sb[2], (float *)P);
        KRI_TRY(kri_cu_err(cudaGetLastError(),
                           "cone-beam backprojection: quad folding kernel launch"));
    } else {
        kri_jacc<T> acc;
        long long sb[3];
        kri_axis_bufs(c.p->p3, c.d, acc.b, sb);
        for (int i = 0; i < 2; i++)
            KRI_TRY(kri_cu_err(cudaMemsetAsync(c.d->d_pad[i], 0, c.d->pad_elems * sizeof(T), c.st),
                               "cone-beam backprojection: zeroing the work space"));
        KRI_TRY(kri_ray_kernel(c.prm, c.dv, c.va, c.vb, small, c.st, k_ct3_adj_jos<T, int, T>,
                               k_ct3_adj_jos<T, long long, T>, what, proj, acc));
    }
    dim3 grid((n0 + 31) / 32, (n1 + 31) / 32, n2 < KRI_GRID_MAX ? n2 : KRI_GRID_MAX);
    if (grid.y > KRI_GRID_MAX)
        return kri_fail(KR_ERR_NOT_SUPPORTED, "cone-beam backprojection: volume too large along y");
    k_ct3_unpad<T><<<grid, dim3(32, 8), 0, c.st>>>(n0, n1, n2, P, Tb, vol);
    return kri_cu_finish(c.p->ctx, "cone-beam Joseph backprojection kernel");
}

/* out = A in (adjoint 0) or A^T in (adjoint 1), for views [va, vb) (the adjoint: the
 * backprojection of those views alone). */
template <typename T>
static kr_status kri_run3(const kr_ct_projector_plan *p, const kri_ct3_dev *d, int adjoint,
                          const void *in, void *out, int va, int vb)
{
    const kri_call3<T> c = {p,  d, kri_prm(p->p3, (T *)NULL),
                            (const typename kri_t3<T>::V *)d->d_views, kri_cu_stream(p->ctx),
                            va, vb};
    if (p->opts.method == KR_CT_SIDDON) return kri_sid3<T>(c, adjoint, (const T *)in, (T *)out);
    if (adjoint) return kri_adj3<T>(c, (const T *)in, (T *)out);
    return kri_fwd3<T>(c, (const T *)in, (T *)out);
}

/* Calls on a plan hold its lock (the work space is the plan's). r: the part of the call
 * (project_internal.h), NULL for all of it. */
static kr_status kri_cuda_ct3d(const kr_ct_projector_plan *p, void *dev, int adjoint, const void *in,
                               void *out, const kri_ct_range *r)
{
    kri_ct3_dev *d = (kri_ct3_dev *)dev;
    const int nviews = p->p3->p64.nviews, nz = p->p3->p64.n[2];
    int va = 0, vb = nviews, za = 0, zb = nz;
    if (r && (!adjoint || r->kind == KRI_CT_RANGE_VIEWS)) va = (int)r->r0, vb = (int)r->r1;
    if (r && adjoint && r->kind == KRI_CT_RANGE_Z) za = (int)r->r0, zb = (int)r->r1;
    if (adjoint && !d->gather && (za != 0 || zb != nz))
        return kri_fail(KR_ERR_INTERNAL, "cone-beam projector: a slab of the adjoint needs the "
                        "gather");
    pthread_mutex_lock(&d->lock);
    kr_status s = kri_cuda_set_device(p->ctx);
    if (s == KR_OK) {
        if (adjoint && d->gather && va == 0 && vb == nviews) /* set for Joseph plans only */
            s = kri_cuda_ct3d_adjoint_gather(p, d, in, out, za, zb);
        else if (p->opts.dtype == KR_F64)
            s = kri_run3<double>(p, d, adjoint, in, out, va, vb);
        else
            s = kri_run3<float>(p, d, adjoint, in, out, va, vb);
    }
    pthread_mutex_unlock(&d->lock);
    return s;
}

static kr_status kri_cuda_ct3d_forward(const kr_ct_projector_plan *p, void *dev, const void *vol,
                                       void *proj, int64_t nb)
{
    return kri_cuda_ct3d(p, dev, 0, vol, proj, NULL);
}

static kr_status kri_cuda_ct3d_adjoint(const kr_ct_projector_plan *p, void *dev, const void *proj,
                                       void *vol, int64_t nb)
{
    return kri_cuda_ct3d(p, dev, 1, proj, vol, NULL);
}

static kr_status kri_cuda_ct3d_forward_part(const kr_ct_projector_plan *p, void *dev,
                                            const void *vol, void *proj, const kri_ct_range *r)
{
    return kri_cuda_ct3d(p, dev, 0, vol, proj, r);
}

static kr_status kri_cuda_ct3d_adjoint_part(const kr_ct_projector_plan *p, void *dev,
                                            const void *proj, void *vol, const kri_ct_range *r)
{
    return kri_cuda_ct3d(p, dev, 1, proj, vol, r);
}

/* The gather gives every voxel the same sum whatever the slab; the scatters' atomics are
 * exact to rounding only, so their adjoint divides by views. */
static int kri_cuda_ct3d_adjoint_split(const kr_ct_projector_plan *p, const void *dev)
{
    return ((const kri_ct3_dev *)dev)->gather ? KRI_CT_RANGE_Z : KRI_CT_RANGE_VIEWS;
}

/* ---- the plan's state on the device ------------------------------------------------------- */
static void kri_cuda_ct3d_destroy(void *dev)
{
    kri_ct3_dev *d = (kri_ct3_dev *)dev;
    if (!d) return;
    kri_device_free(d->d_views);
    kri_device_free(d->d_pad[0]);
    kri_device_free(d->d_pad[1]);
    for (int i = 0; i < 3; i++) kri_device_free(d->d_quad[i]);
    kri_device_free(d->d_gtab);
    kri_device_free(d->d_gcol);
    kri_device_free(d->d_gint);
    if (d->lock_init) pthread_mutex_destroy(&d->lock);
    kri_free(d);
}

/* The views on the device; for Joseph the padded volumes, the quad layout when there is room
 * (f32) and the gather's tables when the geometry lets the adjoint gather. */
static kr_status kri_cuda_ct3d_fill(const kr_ct_projector_plan *p, kri_ct3_dev *d)
{
    const kri_ct3_plan *q = p->p3;
    const kri_ct3p_f64 *P = &q->p64;
    const int nv = P->nviews, dev = kr_ctx_device(p->ctx);
    const int f64 = p->opts.dtype == KR_F64;
    if (pthread_mutex_init(&d->lock, NULL) != 0)
        return kri_fail(KR_ERR_INTERNAL, "cone-beam projector: cannot create a mutex");
    d->lock_init = 1;
    size_t bytes = (size_t)nv * (f64 ? sizeof(kri_ct3v_f64) : sizeof(kri_ct3v_f32));
    KRI_TRY(kri_device_alloc(&d->d_views, bytes, dev, "cone-beam projector view parameters"));
    KRI_TRY(kri_memcpy(d->d_views, KR_DEVICE, q->views, KR_HOST, bytes, p->ctx));
    if (p->opts.method != KR_CT_JOSEPH) return KR_OK;
    d->pad_elems = (size_t)(P->n[0] + 2) * (size_t)(P->n[1] + 2) * (size_t)(P->n[2] + 2);
    size_t pb = d->pad_elems * (f64 ? sizeof(double) : sizeof(float));
    for (int i = 0; i < 2; i++)
        KRI_TRY(kri_device_alloc(&d->d_pad[i], pb, dev,
                                 "the cone-beam projector's padded volume copies"));
    /* f32: the quad layout of the forward, optional (four times the padded size each, 6.5 GB in
     * all at 512^3) */
    for (int i = 0; !f64 && i < 3; i++)
        if (kri_device_alloc(&d->d_quad[i], 4 * pb, dev, "quad layout") != KR_OK) {
            for (int e = 0; e < 3; e++) kri_device_free(d->d_quad[e]);
            memset(d->d_quad, 0, sizeof d->d_quad);
            kr_log(p->ctx, KR_LOG_DEBUG, "CT projector: no room for the quad layout; the "
                   "forward reads the plain padded volumes");
            break;
        }
    int gathers = P->k == 1;
    for (int v = 0; gathers && v < nv; v++) {
        kri_ct3v_f64 w;
        kri_ct3_view_params(p->geom, v, &w);
        gathers = kri_ct3_view_gathers(&w, P);
    }
    if (!gathers) return KR_OK;
    /* the gather adjoint's tables for batches of up to 32 views (or 512 MB) */
    const size_t e4 = 4 * (f64 ? sizeof(double) : sizeof(float));
    const size_t per = (size_t)P->nu * (size_t)P->nv * e4;
    int nb = nv < 32 ? nv : 32;
    while (nb > 1 && (size_t)nb * per > ((size_t)512 << 20)) nb--;
    d->gather_nvb = nb;
    d->gather = kri_device_alloc(&d->d_gtab, (size_t)nb * per, dev, "gather tables") == KR_OK &&
                kri_device_alloc(&d->d_gcol, (size_t)nb * (size_t)P->nu * e4, dev,
                                 "gather tables") == KR_OK &&
                kri_device_alloc(&d->d_gint, (size_t)nb * sizeof(int), dev, "gather tables") ==
                    KR_OK;
    if (d->gather)
        kr_log(p->ctx, KR_LOG_DEBUG, "CT projector: adjoint by gather (batches of %d views)", nb);
    else
        kr_log(p->ctx, KR_LOG_DEBUG, "CT projector: no room for the gather adjoint's tables; "
               "the adjoint scatters with atomics");
    return KR_OK;
}

static kr_status kri_cuda_ct3d_create(const kr_ct_projector_plan *p, void **out)
{
    return kri_cu_state<kri_ct3_dev>(p, out, kri_cuda_ct3d_fill, kri_cuda_ct3d_destroy,
                                     "a cone-beam projector plan");
}

extern "C" const kri_ct_backend kri_ct3_cuda = {{"cuda", true}, kri_cuda_ct3d_create,
                                                kri_cuda_ct3d_destroy, kri_cuda_ct3d_forward,
                                                kri_cuda_ct3d_adjoint,
                                                kri_cuda_ct3d_forward_part,
                                                kri_cuda_ct3d_adjoint_part,
                                                kri_cuda_ct3d_adjoint_split};
