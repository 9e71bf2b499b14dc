/* Cone-beam projectors on the CPU, bit-identical for any thread count by construction:
 *   forward: ray-driven, parallel over detector rows (each value written by one thread, its
 *            sub-rays summed in order);
 *   adjoint: ray-driven scatter, parallel over z slabs of the volume: every slab walks, in the
 *            fixed order (view, row, column, sub-ray, sample), the rays that can reach it
 *            (rows and columns culled with the slab's shadow on the detector) and adds only into
 *            its own voxels, so every voxel sums its contributions in the same order whatever
 *            the slab partition. */
#include "project3d_internal.h"
#include "project_cpu.h"

#define KFMA(a, b, c) ((a) * (b) + (c)) /* two roundings: C11 does not contract */
#define KLOAD(p) (*(p))
#define KSCATTER(p, x) (*(p) += (x))
#define KUNROLL

#define KT float
#define KFN(x) x##_f32
#define KSQRT sqrtf
#define KFLOOR kri_floorf
#define KABS fabsf
#include "project3d_kern.h"
#undef KT
#undef KFN
#undef KSQRT
#undef KFLOOR
#undef KABS

#define KT double
#define KFN(x) x##_f64
#define KSQRT sqrt
#define KFLOOR kri_floord
#define KABS fabs
#include "project3d_kern.h"
#undef KT
#undef KFN

/* Detector rows [*v0, *v1] and columns [*u0, *u1] whose rays can meet the volume's z range
 * [z0 - 1.5, z1 + 0.5] (index units: Joseph reaches one voxel beyond its samples); the full
 * detector when a corner cannot be projected. */
static void kri_ct3_cull(const kr_ct_projector_plan *p, int view, int z0, int z1, int *u0, int *u1,
                         int *v0, int *v1)
{
    const kr_ct_geom *G = p->geom;
    const kr_ct_grid *gr = &G->grid;
    const int nu = (int)G->det_count, nv = (int)G->det_rows;
    *u0 = 0, *u1 = nu - 1, *v0 = 0, *v1 = nv - 1;
    double lo[3], hi[3];
    for (int d = 0; d < 2; d++) {
        lo[d] = -1.5;
        hi[d] = (double)gr->n[d] + 0.5;
    }
    lo[2] = z0 - 1.5;
    hi[2] = z1 + 0.5;
    double amin = HUGE_VAL, amax = -HUGE_VAL, bmin = HUGE_VAL, bmax = -HUGE_VAL;
    for (int c = 0; c < 8; c++) {
        double x[3], a, b;
        for (int d = 0; d < 3; d++) {
            double X = (c >> d) & 1 ? hi[d] : lo[d];
            x[d] = gr->offset_mm[d] + (X - 0.5 * (double)(gr->n[d] - 1)) * gr->voxel_mm[d];
        }
        if (!kri_ct_view_project(&G->views[view], x, &a, &b)) return;
        amin = fmin(amin, a), amax = fmax(amax, a), bmin = fmin(bmin, b), bmax = fmax(bmax, b);
    }
    const double cu = 0.5 * (nu - 1), cv = 0.5 * (nv - 1);
    /* sub-rays sit within half a pixel of the centre: one pixel of margin */
    double A0 = ceil(amin + cu - 1), A1 = floor(amax + cu + 1);
    double B0 = ceil(bmin + cv - 1), B1 = floor(bmax + cv + 1);
    *u0 = A0 > 0 ? (A0 < nu ? (int)A0 : nu) : 0;
    *u1 = A1 < nu - 1 ? (A1 >= 0 ? (int)A1 : -1) : nu - 1;
    *v0 = B0 > 0 ? (B0 < nv ? (int)B0 : nv) : 0;
    *v1 = B1 < nv - 1 ? (B1 >= 0 ? (int)B1 : -1) : nv - 1;
}

#define KRI_CT3_CPU(T, SFX, FLD)                                                               \
    static void kri_ct3_fwd_##SFX(const kr_ct_projector_plan *pr, const T *vol, T *proj,           \
                                  int nthreads, int va, int vb)                                \
    {                                                                                          \
        const kri_ct3p_##SFX *p = &pr->p3->FLD;                                                \
        const kri_ct3v_##SFX *views = pr->p3->views;                                           \
        const int sid = pr->opts.method == KR_CT_SIDDON, k = p->k;                             \
        const int64_t rows = (int64_t)vb * p->nv;                                              \
        _Pragma("omp parallel for schedule(dynamic, 1) num_threads(nthreads)")                 \
        for (int64_t row = (int64_t)va * p->nv; row < rows; row++) {                           \
            const int v = (int)(row / p->nv), iv = (int)(row % p->nv);                         \
            T *out = proj + row * p->nu;                                                       \
            for (int iu = 0; iu < p->nu; iu++) {                                               \
                T total = 0;                                                                   \
                for (int s = 0; s < k * k; s++) {                                              \
                    kri_ray3_##SFX r;                                                          \
                    kri_ct3_ray_##SFX(p, &views[v], iu, iv, s % k, s / k, &r);                 \
                    if (sid) {                                                                 \
                        total += kri_sid3_walk_##SFX(p, &r, vol, NULL, 0, 0, 0);               \
                    } else {                                                                   \
                        kri_jos3_##SFX j;                                                      \
                        kri_jos3_setup_##SFX(p, &r, &j);                                       \
                        if (j.m0 <= j.m1) total += kri_jos3_fwd_host_##SFX(p, &j, vol) * j.L;  \
                    }                                                                          \
                }                                                                              \
                out[iu] = total * p->inv_k2;                                                   \
            }                                                                                  \
        }                                                                                      \
    }                                                                                          \
    static void kri_ct3_adj_##SFX(const kr_ct_projector_plan *pr, const T *proj, T *vol,           \
                                  int nthreads, int slab, int za, int zb, int va, int vb)      \
    {                                                                                          \
        const kri_ct3p_##SFX *p = &pr->p3->FLD;                                                \
        const kri_ct3v_##SFX *views = pr->p3->views;                                           \
        const int sid = pr->opts.method == KR_CT_SIDDON, k = p->k;                             \
        const int nslabs = (zb - za + slab - 1) / slab;                                        \
        const int64_t plane = (int64_t)p->n[0] * p->n[1];                                      \
        _Pragma("omp parallel for schedule(dynamic, 1) num_threads(nthreads)")                 \
        for (int sl = 0; sl < nslabs; sl++) {                                                  \
            const int z0 = za + sl * slab, z1 = z0 + slab < zb ? z0 + slab : zb;               \
            for (int64_t q = z0 * plane; q < z1 * plane; q++) vol[q] = 0;                      \
            for (int v = va; v < vb; v++) {                                                    \
                int u0, u1, v0, v1;                                                            \
                kri_ct3_cull(pr, v, z0, z1, &u0, &u1, &v0, &v1);                               \
                for (int iv = v0; iv <= v1; iv++) {                                            \
                    const T *in = proj + ((int64_t)v * p->nv + iv) * p->nu;                    \
                    for (int iu = u0; iu <= u1; iu++) {                                        \
                        const T y = in[iu];                                                    \
                        if (y == 0) continue;                                                  \
                        const T yk = y * p->inv_k2;                                            \
                        for (int s = 0; s < k * k; s++) {                                      \
                            kri_ray3_##SFX r;                                                  \
                            kri_ct3_ray_##SFX(p, &views[v], iu, iv, s % k, s / k, &r);         \
                            if (sid) {                                                         \
                                kri_sid3_walk_##SFX(p, &r, NULL, vol, yk, z0, z1);             \
                            } else {                                                           \
                                kri_jos3_##SFX j;                                              \
                                kri_jos3_setup_##SFX(p, &r, &j);                               \
                                if (j.m0 <= j.m1)                                              \
                                    kri_jos3_adj_host_##SFX(p, &j, yk * j.L, vol, z0, z1);     \
                            }                                                                  \
                        }                                                                      \
                    }                                                                          \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    }

KRI_CT3_CPU(float, f32, p32)
KRI_CT3_CPU(double, f64, p64)

/* views [va, vb) of the projections (the range of r, or all of them). */
static kr_status kri_cpu_ct3d_forward_part(const kr_ct_projector_plan *p, void *dev,
                                           const void *vol, void *proj, const kri_ct_range *r)
{
    int nthreads = kri_threads(p->ctx);
    if (nthreads < 1) nthreads = 1;
    const int va = r ? (int)r->r0 : 0, vb = r ? (int)r->r1 : p->p3->p64.nviews;
    if (p->opts.dtype == KR_F64)
        kri_ct3_fwd_f64(p, vol, proj, nthreads, va, vb);
    else
        kri_ct3_fwd_f32(p, vol, proj, nthreads, va, vb);
    return KR_OK;
}

/* slices [za, zb) from every view (KRI_CT_RANGE_Z), or every slice from views [va, vb)
 * (KRI_CT_RANGE_VIEWS), or everything. */
static kr_status kri_cpu_ct3d_adjoint_part(const kr_ct_projector_plan *p, void *dev,
                                           const void *proj, void *vol, const kri_ct_range *r)
{
    int nthreads = kri_threads(p->ctx);
    if (nthreads < 1) nthreads = 1;
    int za = 0, zb = p->p3->p64.n[2], va = 0, vb = p->p3->p64.nviews;
    if (r && r->kind == KRI_CT_RANGE_Z) za = (int)r->r0, zb = (int)r->r1;
    if (r && r->kind == KRI_CT_RANGE_VIEWS) va = (int)r->r0, vb = (int)r->r1;
    if (zb <= za) return KR_OK;
    /* slabs: one per thread would do; four per thread balance the load (the result does not
     * depend on the choice) */
    int nslabs = nthreads == 1 ? 1 : 4 * nthreads;
    if (nslabs > zb - za) nslabs = zb - za;
    const int slab = (zb - za + nslabs - 1) / nslabs;
    if (p->opts.dtype == KR_F64)
        kri_ct3_adj_f64(p, proj, vol, nthreads, slab, za, zb, va, vb);
    else
        kri_ct3_adj_f32(p, proj, vol, nthreads, slab, za, zb, va, vb);
    return KR_OK;
}

static kr_status kri_cpu_ct3d_forward(const kr_ct_projector_plan *p, void *dev, const void *vol,
                                      void *proj, int64_t nb)
{
    return kri_cpu_ct3d_forward_part(p, dev, vol, proj, NULL);
}

static kr_status kri_cpu_ct3d_adjoint(const kr_ct_projector_plan *p, void *dev, const void *proj,
                                      void *vol, int64_t nb)
{
    return kri_cpu_ct3d_adjoint_part(p, dev, proj, vol, NULL);
}

/* Every voxel sums its contributions in the same order whatever the slabs: dividing the adjoint
 * by slices keeps it bit for bit. */
static int kri_cpu_ct3d_adjoint_split(const kr_ct_projector_plan *p, const void *dev)
{
    return KRI_CT_RANGE_Z;
}

/* The CPU keeps no state for a plan. */
const kri_ct_backend kri_ct3_cpu = {{"cpu", true},
                                    NULL,
                                    NULL,
                                    kri_cpu_ct3d_forward,
                                    kri_cpu_ct3d_adjoint,
                                    kri_cpu_ct3d_forward_part,
                                    kri_cpu_ct3d_adjoint_part,
                                    kri_cpu_ct3d_adjoint_split};
