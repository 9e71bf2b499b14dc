/* Cone-beam projector arithmetic shared by the CPU (C) and CUDA (C++) back ends, instantiated
 * once per element type. No include guard: the including file defines
 *   KT            float or double
 *   KFN(name)     name##_f32 / name##_f64
 *   KHD           function qualifiers
 *   KMUL KADD KSUB KDIV KSQRT   exactly rounded operations the compiler may not fuse (the ray
 *                 set-up is then the same number on every back end)
 *   KFMA(a, b, c) a * b + c for sample positions and interpolation: fused on CUDA, two
 *                 roundings on the CPU (so the back ends agree to rounding, and each back end's
 *                 forward and adjoint use the same positions)
 *   KFLOOR KABS   math functions of type KT
 *   KLOAD(p)      read *p (CUDA: through the read-only cache)
 *   KSCATTER(p, x)  *p += x (CUDA: atomicAdd)
 *   KUNROLL       a full-unroll pragma for the short loops over axes (CUDA), or nothing
 * and includes this file.
 *
 * Matched pair: the forward projector and the adjoint call the same set-up functions for a
 * (ray, sub-ray) pair and visit the same samples (Joseph) or voxels (Siddon) with the same
 * weights; the Siddon walk is one function for both directions. */

#define KP KFN(kri_ct3p)
#define KV KFN(kri_ct3v)
#define KBIG3 ((KT)1e30)

typedef struct KFN(kri_ray3) {
    KT s[3];  /* source, index units */
    KT w[3];  /* direction, index units (not normalised) */
    KT len;   /* mm of path per unit of w */
} KFN(kri_ray3);

/* Sub-ray (su, sv) of detector pixel (iu, iv) of view v. */
KHD void KFN(kri_ct3_ray)(const KP *p, const KV *v, int iu, int iv, int su, int sv,
                          KFN(kri_ray3) *r)
{
    /* sub-ray offsets (2 s + 1 - k) / (2 k) pixels */
    const KT k2 = (KT)(2 * p->k);
    KT a = KADD(KSUB((KT)iu, p->cu), KDIV((KT)(2 * su + 1 - p->k), k2));
    KT b = KADD(KSUB((KT)iv, p->cv), KDIV((KT)(2 * sv + 1 - p->k), k2));
    KT q = 0;
    for (int d = 0; d < 3; d++) {
        r->s[d] = v->s[d];
        r->w[d] = KADD(KADD(v->w[d], KMUL(a, v->u[d])), KMUL(b, v->v[d]));
        KT mm = KMUL(r->w[d], p->vox[d]);
        q = KADD(q, KMUL(mm, mm));
    }
    r->len = KSQRT(q);
}

/* ---- Joseph ---------------------------------------------------------------------------------
 * Major axis ax (largest |w|, ties x before y before z); minor axes a (the faster of the other
 * two in memory) and b. Sample m (m = 0 .. n[ax]-1, the voxel planes of ax) sits at minor
 * coordinates f_a(m) = ca + m ta and f_b(m) = cb + m tb (index units, evaluated by kri_jos3_f)
 * and counts L mm. A sample is used when -1 < f < n along both minor axes (its bilinear
 * neighbours may then reach one voxel outside the volume, where the volume is zero); m0..m1 is
 * exactly the range of used samples (the positions are monotone in m). */
typedef struct KFN(kri_jos3) {
    int ax, a, b;
    int m0, m1;
    KT ca, ta, cb, tb, L;
} KFN(kri_jos3);

KHD KT KFN(kri_jos3_f)(KT c, KT t, int m) { return KFMA((KT)m, t, c); }

/* Is sample m inside along one minor axis? */
KHD int KFN(kri_jos3_in)(KT c, KT t, int m, int n)
{
    KT f = KFN(kri_jos3_f)(c, t, m);
    return f > (KT)-1 && f < (KT)n;
}

/* Narrow [*lo, *hi] to the samples inside along one minor axis of n voxels. The test is a
 * monotone predicate in m, so the boundaries found from an estimate by stepping are exact
 * whatever the estimate's error. */
KHD void KFN(kri_jos3_clip)(KT c, KT t, int n, int *lo, int *hi)
{
    if (*lo > *hi) return;
    if (t == 0) {
        if (!KFN(kri_jos3_in)(c, t, *lo, n)) *lo = *hi + 1;
        return;
    }
    /* the inside samples lie between the crossings of f = -1 and f = n */
    KT e1 = KDIV(KSUB((KT)-1, c), t), e2 = KDIV(KSUB((KT)n, c), t);
    KT emin = e1 < e2 ? e1 : e2, emax = e1 < e2 ? e2 : e1;
    int L = *lo, H = *hi;
    int a = !(emin > (KT)L) ? L : !(emin < (KT)H) ? H : (int)KFLOOR(emin);
    int b = !(emax > (KT)L) ? L : !(emax < (KT)H) ? H : (int)KFLOOR(emax);
    /* first inside sample: a, with everything before it outside (the predicate is
     * outside..inside..outside, so moving down while the left neighbour is inside and up
     * while a is outside and before the estimate of the far end reaches the first one) */
    while (a > L && KFN(kri_jos3_in)(c, t, a - 1, n)) a--;
    while (a <= H && !KFN(kri_jos3_in)(c, t, a, n)) {
        if (a > b) { /* past the far crossing: nothing is inside */
            *lo = H + 1;
            return;
        }
        a++;
    }
    if (a > H) {
        *lo = H + 1;
        return;
    }
    if (b < a) b = a;
    while (b < H && KFN(kri_jos3_in)(c, t, b + 1, n)) b++;
    while (b > a && !KFN(kri_jos3_in)(c, t, b, n)) b--;
    *lo = a;
    *hi = b;
}

KHD void KFN(kri_jos3_setup)(const KP *p, const KFN(kri_ray3) *r, KFN(kri_jos3) *j)
{
    /* components picked with selects, not indices (keeps the ray in registers on CUDA) */
    KT A0 = KABS(r->w[0]), A1 = KABS(r->w[1]), A2 = KABS(r->w[2]);
    KT W, S, Wa, Sa, Wb, Sb;
    int nm, na, nb;
    if (A0 >= A1 && A0 >= A2) {
        j->ax = 0, j->a = 1, j->b = 2;
        W = r->w[0], S = r->s[0], Wa = r->w[1], Sa = r->s[1], Wb = r->w[2], Sb = r->s[2];
        nm = p->n[0], na = p->n[1], nb = p->n[2];
    } else if (A1 >= A2) {
        j->ax = 1, j->a = 0, j->b = 2;
        W = r->w[1], S = r->s[1], Wa = r->w[0], Sa = r->s[0], Wb = r->w[2], Sb = r->s[2];
        nm = p->n[1], na = p->n[0], nb = p->n[2];
    } else {
        j->ax = 2, j->a = 0, j->b = 1;
        W = r->w[2], S = r->s[2], Wa = r->w[0], Sa = r->s[0], Wb = r->w[1], Sb = r->s[1];
        nm = p->n[2], na = p->n[0], nb = p->n[1];
    }
    j->ta = KDIV(Wa, W);
    j->tb = KDIV(Wb, W);
    j->ca = KSUB(Sa, KMUL(S, j->ta));
    j->cb = KSUB(Sb, KMUL(S, j->tb));
    j->L = KDIV(r->len, KABS(W));
    j->m0 = 0;
    j->m1 = nm - 1;
    KFN(kri_jos3_clip)(j->ca, j->ta, na, &j->m0, &j->m1);
    KFN(kri_jos3_clip)(j->cb, j->tb, nb, &j->m0, &j->m1);
}

/* The four bilinear weights of the neighbours (ia, ib), (ia + 1, ib), (ia, ib + 1),
 * (ia + 1, ib + 1) for fractions wa, wb: the CPU forward and both adjoints use these numbers. */
KHD void KFN(kri_jos3_w4)(KT wa, KT wb, KT w[4])
{
    const KT a0 = KSUB((KT)1, wa), b0 = KSUB((KT)1, wb);
    w[0] = KMUL(a0, b0);
    w[1] = KMUL(wa, b0);
    w[2] = KMUL(a0, wb);
    w[3] = KMUL(wa, wb);
}

/* The same interpolation in lerp form (fewer operations; the CUDA forward projector, whose
 * results agree with the weights above to rounding). v10 is one step along a, v01 along b. */
KHD KT KFN(kri_bilerp)(KT v00, KT v10, KT v01, KT v11, KT wa, KT wb)
{
    KT t0 = KFMA(wa, KSUB(v10, v00), v00);
    KT t1 = KFMA(wa, KSUB(v11, v01), v01);
    return KFMA(wb, KSUB(t1, t0), t0);
}

/* ---- Siddon (kri_sid_axis: project_kern.h) ---------------------------------------------- */
#include "project_kern.h"

/* Walk the voxels of the ray in order. acc == NULL: return sum len_i * vol[i] (forward).
 * acc != NULL: add c * len_i to acc[i] for the voxels with z index in [z0, z1) (adjoint; the
 * walk always starts where the ray enters the volume, so the voxels and lengths do not depend
 * on z0, z1) and return 0. */
KHD KT KFN(kri_sid3_walk)(const KP *p, const KFN(kri_ray3) *r, const KT *vol, KT *acc, KT c,
                          int z0, int z1)
{
    KT T[3], lo[3], hi[3];
    int zero[3], idx[3] = {0, 0, 0}, step[3];
    KT tmin = -KBIG3, tmax = KBIG3;
    int entry = -1;
    KUNROLL
    for (int d = 0; d < 3; d++) {
        zero[d] = r->w[d] == 0;
        T[d] = zero[d] ? (KT)0 : KDIV(r->len, r->w[d]);
        step[d] = r->w[d] > 0 ? 1 : -1;
        if (zero[d]) {
            KT cc = KFLOOR(KADD(r->s[d], (KT)0.5));
            if (!(cc >= 0 && cc < (KT)p->n[d])) return 0;
            idx[d] = (int)cc;
            continue;
        }
        /* the outer faces, in increasing t */
        KT a0, a1, b0, b1;
        KFN(kri_sid_axis)(r->s[d], T[d], 0, T[d] > 0 ? 0 : p->n[d] - 1, &a0, &a1);
        KFN(kri_sid_axis)(r->s[d], T[d], 0, T[d] > 0 ? p->n[d] - 1 : 0, &b0, &b1);
        if (a0 > tmin) {
            tmin = a0;
            entry = d;
        }
        if (b1 < tmax) tmax = b1;
    }
    if (!(tmin < tmax)) return 0;
    KUNROLL
    for (int d = 0; d < 3; d++) {
        if (zero[d]) continue;
        if (d == entry) {
            idx[d] = T[d] > 0 ? 0 : p->n[d] - 1;
        } else {
            KT X = KFLOOR(KADD(KADD(r->s[d], KDIV(tmin, T[d])), (KT)0.5));
            idx[d] = !(X >= 0) ? 0 : X > (KT)(p->n[d] - 1) ? p->n[d] - 1 : (int)X;
        }
    }
    if (acc && zero[2] && !(idx[2] >= z0 && idx[2] < z1)) return 0;
    const long sy = p->n[0], sz = (long)p->n[0] * p->n[1];
    KT sum = 0;
    const int cap = p->n[0] + p->n[1] + p->n[2] + 3;
    for (int it = 0; it < cap; it++) {
        KUNROLL
        for (int d = 0; d < 3; d++)
            KFN(kri_sid_axis)(r->s[d], T[d], zero[d], idx[d], &lo[d], &hi[d]);
        KT h = hi[0] < hi[1] ? hi[0] : hi[1];
        h = hi[2] < h ? hi[2] : h;
        KT l = lo[0] > lo[1] ? lo[0] : lo[1];
        l = lo[2] > l ? lo[2] : l;
        if (h > l) {
            const long q = idx[0] + sy * idx[1] + sz * idx[2];
            if (!acc)
                sum += KSUB(h, l) * KLOAD(vol + q);
            else if (idx[2] >= z0 && idx[2] < z1)
                KSCATTER(acc + q, c * KSUB(h, l));
        }
        int moved = 0;
        KUNROLL
        for (int d = 0; d < 3; d++)
            if (!zero[d] && hi[d] <= h) {
                idx[d] += step[d];
                moved = 1;
            }
        if (!moved) break;
        if (idx[0] < 0 || idx[0] >= p->n[0] || idx[1] < 0 || idx[1] >= p->n[1] || idx[2] < 0 ||
            idx[2] >= p->n[2])
            break;
        if (acc && ((step[2] > 0 && idx[2] >= z1) || (step[2] < 0 && idx[2] < z0))) break;
    }
    return sum;
}

/* ---- host loops (CPU back end; the CUDA kernels read zero-padded copies instead) ---------- */
#ifndef __CUDACC__
/* Sum of the Joseph samples of one (sub-)ray through the volume (multiply by j->L). */
KHD KT KFN(kri_jos3_fwd_host)(const KP *p, const KFN(kri_jos3) *j, const KT *vol)
{
    const long st[3] = {1, p->n[0], (long)p->n[0] * p->n[1]};
    const long sm = st[j->ax], sa = st[j->a], sb = st[j->b];
    const int na = p->n[j->a], nb = p->n[j->b];
    KT acc = 0;
    for (int m = j->m0; m <= j->m1; m++) {
        KT fa = KFN(kri_jos3_f)(j->ca, j->ta, m), fb = KFN(kri_jos3_f)(j->cb, j->tb, m);
        KT fla = KFLOOR(fa), flb = KFLOOR(fb);
        int ia = (int)fla, ib = (int)flb;
        KT wa = KSUB(fa, fla), wb = KSUB(fb, flb);
        long o = m * sm + ia * sa + ib * sb;
        KT v00, v10, v01, v11;
        if (ia >= 0 && ia < na - 1 && ib >= 0 && ib < nb - 1) {
            v00 = vol[o];
            v10 = vol[o + sa];
            v01 = vol[o + sb];
            v11 = vol[o + sa + sb];
        } else {
            int a0 = ia >= 0, a1 = ia + 1 < na, b0 = ib >= 0, b1 = ib + 1 < nb;
            v00 = a0 && b0 ? vol[o] : (KT)0;
            v10 = a1 && b0 ? vol[o + sa] : (KT)0;
            v01 = a0 && b1 ? vol[o + sb] : (KT)0;
            v11 = a1 && b1 ? vol[o + sa + sb] : (KT)0;
        }
        KT w[4];
        KFN(kri_jos3_w4)(wa, wb, w);
        acc = KADD(acc, KADD(KADD(KMUL(w[0], v00), KMUL(w[1], v10)),
                             KADD(KMUL(w[2], v01), KMUL(w[3], v11))));
    }
    return acc;
}

/* Transpose of kri_jos3_fwd_host times c (= value x L / k^2), added only to the voxels with z
 * index in [z0, z1). The samples visited are those of the forward projector (the z range only
 * skips samples that cannot reach the slab, with a margin of two planes). */
KHD void KFN(kri_jos3_adj_host)(const KP *p, const KFN(kri_jos3) *j, KT c, KT *vol, int z0,
                                int z1)
{
    const long st[3] = {1, p->n[0], (long)p->n[0] * p->n[1]};
    const long sm = st[j->ax], sa = st[j->a], sb = st[j->b];
    const int na = p->n[j->a], nb = p->n[j->b];
    int m0 = j->m0, m1 = j->m1;
    if (j->ax == 2) {
        if (m0 < z0) m0 = z0;
        if (m1 > z1 - 1) m1 = z1 - 1;
    } else if (j->tb == 0) {
        KT fl = KFLOOR(KFN(kri_jos3_f)(j->cb, j->tb, m0));
        if (!(fl >= (KT)(z0 - 1) && fl <= (KT)(z1 - 1))) return;
    } else {
        KT e1 = KDIV(KSUB((KT)(z0 - 1), j->cb), j->tb), e2 = KDIV(KSUB((KT)z1, j->cb), j->tb);
        KT emin = e1 < e2 ? e1 : e2, emax = e1 < e2 ? e2 : e1;
        if (emin > (KT)(m0 + 2)) {
            if (emin > (KT)m1) return;
            m0 = (int)KFLOOR(emin) - 2;
        }
        if (emax < (KT)(m1 - 2)) {
            if (emax < (KT)m0) return;
            m1 = -(int)KFLOOR(-emax) + 2;
        }
    }
    for (int m = m0; m <= m1; m++) {
        KT fa = KFN(kri_jos3_f)(j->ca, j->ta, m), fb = KFN(kri_jos3_f)(j->cb, j->tb, m);
        KT fla = KFLOOR(fa), flb = KFLOOR(fb);
        int ia = (int)fla, ib = (int)flb;
        KT wa = KSUB(fa, fla), wb = KSUB(fb, flb);
        KT w[4];
        KFN(kri_jos3_w4)(wa, wb, w);
        long o = m * sm + ia * sa + ib * sb;
        for (int q = 0; q < 4; q++) {
            int da = q & 1, db = q >> 1;
            int ja = ia + da, jb = ib + db;
            if (ja < 0 || ja >= na || jb < 0 || jb >= nb) continue;
            int z = j->ax == 2 ? m : jb;
            if (z < z0 || z >= z1) continue;
            vol[o + da * sa + db * sb] += KMUL(c, w[q]);
        }
    }
}
#endif

#undef KP
#undef KV
#undef KBIG3
