/* 2-D projector arithmetic shared by the CPU (C) and CUDA (C++) back ends, instantiated once per
 * element type. No include guard: the including file defines
 *   KT            float or double
 *   KFN(name)     name##_f32 / name##_f64
 *   KHD           function qualifiers ("static inline" or "static __device__ __forceinline__")
 *   KMUL KADD KSUB KDIV KSQRT   exactly rounded operations that the compiler may not fuse
 *                 (so that a ray's parameters, and therefore the weights, are bit-identical
 *                 in the forward projector and in the gather that forms its transpose)
 *   KFLOOR KCEIL KABS   math functions of type KT
 * and includes this file.
 *
 * Matched pair by construction: the forward projector and the adjoint gather call the same
 * functions (kri_ct2_ray, kri_jos_setup, kri_jos_w / kri_sid_axis) for a (ray, pixel) pair, so
 * the weight of pixel (i, j) in ray (k, v) is the same number in both directions. */

#define KP KFN(kri_ct2p)
#define KV KFN(kri_ct2v)
#define KBIG ((KT)1e30)
/* sin and cos of the equiangular ray angle, evaluated in double and rounded to KT: in f32 the
 * CPU and CUDA back ends then get the same ray direction (sinf/cosf differ in the last bit
 * between libm and CUDA). */
#define KSIN(x) ((KT)sin((double)(x)))
#define KCOS(x) ((KT)cos((double)(x)))

typedef struct KFN(kri_ray2) {
    KT px, py; /* a point of the ray, index coordinates */
    KT dx, dy; /* unit direction, mm */
} KFN(kri_ray2);

/* Ray of detector pixel k in view v. */
KHD void KFN(kri_ct2_ray)(const KP *p, const KV *v, int k, KFN(kri_ray2) *r)
{
    KT s = KSUB((KT)k, p->cdet);
    if (p->kind == KRI_CT2_PARALLEL) {
        r->px = KADD(v->px, KMUL(s, v->ux));
        r->py = KADD(v->py, KMUL(s, v->uy));
        r->dx = v->ax;
        r->dy = v->ay;
    } else if (p->kind == KRI_CT2_FLAT) {
        KT wx = KADD(v->ax, KMUL(s, v->bx)), wy = KADD(v->ay, KMUL(s, v->by));
        KT inv = KDIV((KT)1, KSQRT(KADD(KMUL(wx, wx), KMUL(wy, wy))));
        r->px = v->px;
        r->py = v->py;
        r->dx = KMUL(wx, inv);
        r->dy = KMUL(wy, inv);
    } else {
        KT g = KMUL(s, v->ux);
        KT sg = KSIN(g), cg = KCOS(g);
        r->px = v->px;
        r->py = v->py;
        r->dx = KADD(KMUL(cg, v->ax), KMUL(sg, v->bx));
        r->dy = KADD(KMUL(cg, v->ay), KMUL(sg, v->by));
    }
}

/* ---- Joseph -------------------------------------------------------------------------------
 * Returns 1 for an x-major ray. Along the major axis m the ray's minor coordinate is
 * a + b m (index units) and each sample stands for L mm of path. */
KHD int KFN(kri_jos_setup)(const KP *p, const KFN(kri_ray2) *r, KT *a, KT *b, KT *L)
{
    KT DX = KDIV(r->dx, p->vx), DY = KDIV(r->dy, p->vy);
    if (KABS(DX) >= KABS(DY)) {
        *b = KDIV(DY, DX);
        *a = KSUB(r->py, KMUL(r->px, *b));
        *L = KDIV((KT)1, KABS(DX));
        return 1;
    }
    *b = KDIV(DX, DY);
    *a = KSUB(r->px, KMUL(r->py, *b));
    *L = KDIV((KT)1, KABS(DY));
    return 0;
}

/* Weight (without L) of minor index n at major index m: the linear-interpolation weight. */
KHD KT KFN(kri_jos_w)(KT a, KT b, int m, int n, int nn)
{
    KT f = KADD(a, KMUL(b, (KT)m));
    if (!(f > (KT)-1 && f < (KT)nn)) return 0;
    KT fl = KFLOOR(f);
    int j0 = (int)fl;
    KT w1 = KSUB(f, fl);
    if (n == j0) return KSUB((KT)1, w1);
    if (n == j0 + 1) return w1;
    return 0;
}

KHD KT KFN(kri_jos_ray)(const KP *p, const KFN(kri_ray2) *r, const KT *img)
{
    KT a, b, L;
    int xm = KFN(kri_jos_setup)(p, r, &a, &b, &L);
    int nm = xm ? p->nx : p->ny, nn = xm ? p->ny : p->nx;
    long sm = xm ? 1 : p->nx, sn = xm ? p->nx : 1;
    KT lo, hi;
    if (b > 0) {
        lo = KDIV(KSUB((KT)-1, a), b);
        hi = KDIV(KSUB((KT)nn, a), b);
    } else if (b < 0) {
        lo = KDIV(KSUB((KT)nn, a), b);
        hi = KDIV(KSUB((KT)-1, a), b);
    } else {
        if (!(a > (KT)-1 && a < (KT)nn)) return 0;
        lo = (KT)-1;
        hi = (KT)nm;
    }
    if (!(lo > (KT)-1)) lo = (KT)-1;
    if (!(hi < (KT)nm)) hi = (KT)nm;
    if (!(lo <= hi)) return 0;
    int m0 = (int)KFLOOR(lo) - 1, m1 = (int)KCEIL(hi) + 1;
    if (m0 < 0) m0 = 0;
    if (m1 > nm - 1) m1 = nm - 1;
    KT acc = 0;
    for (int m = m0; m <= m1; m++) {
        KT f = KADD(a, KMUL(b, (KT)m));
        if (!(f > (KT)-1 && f < (KT)nn)) continue;
        KT fl = KFLOOR(f);
        int j0 = (int)fl;
        KT w1 = KSUB(f, fl), w0 = KSUB((KT)1, w1);
        const KT *col = img + (long)m * sm;
        if (j0 >= 0) acc += w0 * col[(long)j0 * sn];
        if (j0 + 1 < nn) acc += w1 * col[(long)(j0 + 1) * sn];
    }
    return acc * L;
}

/* ---- Siddon (kri_sid_axis: project_kern.h) ---------------------------------------------- */
#include "project_kern.h"

typedef struct KFN(kri_sid) {
    KT Tx, Ty;
    int zx, zy;
} KFN(kri_sid);

KHD void KFN(kri_sid_setup)(const KP *p, const KFN(kri_ray2) *r, KFN(kri_sid) *s)
{
    s->zx = r->dx == 0;
    s->zy = r->dy == 0;
    s->Tx = s->zx ? (KT)0 : KDIV(p->vx, r->dx);
    s->Ty = s->zy ? (KT)0 : KDIV(p->vy, r->dy);
}

/* Intersection length (mm) of the ray with pixel (i, j). */
KHD KT KFN(kri_sid_len)(const KFN(kri_ray2) *r, const KFN(kri_sid) *s, int i, int j)
{
    KT xl, xh, yl, yh;
    KFN(kri_sid_axis)(r->px, s->Tx, s->zx, i, &xl, &xh);
    KFN(kri_sid_axis)(r->py, s->Ty, s->zy, j, &yl, &yh);
    KT hi = xh < yh ? xh : yh, lo = xl > yl ? xl : yl;
    return hi > lo ? KSUB(hi, lo) : (KT)0;
}

/* The t range [*lo, *hi] of a ray between the outer planes of the image along one axis (n
 * pixels; P, T, zero as kri_sid_axis): the planes -0.5 and n - 0.5 in increasing t, or the whole
 * line when the ray runs parallel to the axis inside the image; 0 when it runs parallel
 * outside. */
KHD int KFN(kri_sid_box)(KT P, KT T, int zero, int n, KT *lo, KT *hi)
{
    KT tmp;
    if (zero) {
        KT c = KFLOOR(KADD(P, (KT)0.5));
        if (!(c >= 0 && c < (KT)n)) return 0;
        *lo = -KBIG;
        *hi = KBIG;
    } else {
        KFN(kri_sid_axis)(P, T, 0, T > 0 ? 0 : n - 1, lo, &tmp);
        KFN(kri_sid_axis)(P, T, 0, T > 0 ? n - 1 : 0, &tmp, hi);
    }
    return 1;
}

KHD KT KFN(kri_sid_ray)(const KP *p, const KFN(kri_ray2) *r, const KT *img)
{
    KFN(kri_sid) s;
    KFN(kri_sid_setup)(p, r, &s);
    const int nx = p->nx, ny = p->ny;
    KT bxl, bxh, byl, byh;
    /* box = the union of all pixels: t range between the outer planes */
    if (!KFN(kri_sid_box)(r->px, s.Tx, s.zx, nx, &bxl, &bxh) ||
        !KFN(kri_sid_box)(r->py, s.Ty, s.zy, ny, &byl, &byh))
        return 0;
    KT tmin = bxl > byl ? bxl : byl, tmax = bxh < byh ? bxh : byh;
    if (!(tmin < tmax)) return 0;
    int sx = r->dx > 0 ? 1 : -1, sy = r->dy > 0 ? 1 : -1;
    /* first pixel: the one holding the entry point (rounding there costs at most a
     * rounding-sized piece of path, and the walk below corrects a pixel left behind) */
    int i, j;
    if (s.zx) {
        i = (int)KFLOOR(KADD(r->px, (KT)0.5));
    } else if (bxl >= byl) {
        i = sx > 0 ? 0 : nx - 1;
    } else {
        KT X = KFLOOR(KADD(KADD(r->px, KDIV(tmin, s.Tx)), (KT)0.5));
        i = !(X >= 0) ? 0 : X > (KT)(nx - 1) ? nx - 1 : (int)X;
    }
    if (s.zy) {
        j = (int)KFLOOR(KADD(r->py, (KT)0.5));
    } else if (byl > bxl) {
        j = sy > 0 ? 0 : ny - 1;
    } else {
        KT Y = KFLOOR(KADD(KADD(r->py, KDIV(tmin, s.Ty)), (KT)0.5));
        j = !(Y >= 0) ? 0 : Y > (KT)(ny - 1) ? ny - 1 : (int)Y;
    }
    KT acc = 0;
    for (int it = 0; it < nx + ny + 2; it++) {
        KT xl, xh, yl, yh;
        KFN(kri_sid_axis)(r->px, s.Tx, s.zx, i, &xl, &xh);
        KFN(kri_sid_axis)(r->py, s.Ty, s.zy, j, &yl, &yh);
        KT hi = xh < yh ? xh : yh, lo = xl > yl ? xl : yl;
        if (hi > lo) acc += KSUB(hi, lo) * img[(long)j * nx + i];
        int ax = !s.zx && xh <= yh, ay = !s.zy && yh <= xh;
        if (!ax && !ay) break;
        if (ax) i += sx;
        if (ay) j += sy;
        if (i < 0 || i >= nx || j < 0 || j >= ny) break;
    }
    return acc;
}

/* ---- gather (adjoint) ---------------------------------------------------------------------
 * atan(y / x) for x > 0 within 2e-8 rad (Abramowitz & Stegun 4.4.49, plus float rounding):
 * only used for the gather's candidate ranges, whose margin covers the error. */
KHD KT KFN(kri_atan_fast)(KT y, KT x)
{
    KT ay = KABS(y);
    int big = ay > x;
    KT r = big ? x / ay : ay / x, r2 = r * r;
    KT a = (KT)0.0028662257;
    a = a * r2 + (KT)-0.0161657367;
    a = a * r2 + (KT)0.0429096138;
    a = a * r2 + (KT)-0.0752896400;
    a = a * r2 + (KT)0.1065626393;
    a = a * r2 + (KT)-0.1420889944;
    a = a * r2 + (KT)0.1999355085;
    a = a * r2 + (KT)-0.3333314528;
    a = r * (a * r2 + (KT)1);
    if (big) a = (KT)1.5707963267948966 - a;
    return y < 0 ? -a : a;
}

/* Continuous detector index where the ray through the point (X, Y) [index] lands. */
KHD KT KFN(kri_ct2_detc)(const KP *p, const KV *v, KT X, KT Y)
{
    KT wx = (X - v->px) * p->vx, wy = (Y - v->py) * p->vy;
    KT c;
    if (p->kind == KRI_CT2_PARALLEL) {
        c = (v->ax * wy - v->ay * wx) * v->inv;
    } else if (p->kind == KRI_CT2_FLAT) {
        c = (v->ax * wy - v->ay * wx) / (wx * v->by - wy * v->bx);
    } else {
        c = KFN(kri_atan_fast)(v->bx * wx + v->by * wy, v->ax * wx + v->ay * wy) * v->inv;
    }
    return c + p->cdet;
}

/* Candidate detector pixels [*k0, *k1] from the detector coordinates of a footprint's extreme
 * points; returns 0 when none. */
KHD int KFN(kri_ct2_krange)(const KP *p, KT cmin, KT cmax, int *k0, int *k1)
{
    cmin -= p->margin;
    cmax += p->margin;
    if (!(cmax >= 0 && cmin <= (KT)(p->ndet - 1))) return 0;
    if (cmin < 0) cmin = 0;
    if (cmax > (KT)(p->ndet - 1)) cmax = (KT)(p->ndet - 1);
    *k0 = (int)KCEIL(cmin);
    *k1 = (int)KFLOOR(cmax);
    return *k0 <= *k1;
}

/* Per-ray records: what the gather needs of ray k, computed by the same functions as in the
 * forward projector. The CPU builds a table of them per view; CUDA computes them on the fly
 * (tables passed as NULL). */
typedef struct KFN(kri_josrec) {
    KT a, b, L;
    int xm;
} KFN(kri_josrec);

typedef struct KFN(kri_sidrec) {
    KFN(kri_ray2) r;
    KFN(kri_sid) s;
} KFN(kri_sidrec);

KHD void KFN(kri_josrec_make)(const KP *p, const KV *v, int k, KFN(kri_josrec) *o)
{
    KFN(kri_ray2) r;
    KFN(kri_ct2_ray)(p, v, k, &r);
    o->xm = KFN(kri_jos_setup)(p, &r, &o->a, &o->b, &o->L);
}

KHD void KFN(kri_sidrec_make)(const KP *p, const KV *v, int k, KFN(kri_sidrec) *o)
{
    KFN(kri_ct2_ray)(p, v, k, &o->r);
    KFN(kri_sid_setup)(p, &o->r, &o->s);
}

/* Sum over the rays of view v of weight(ray, pixel (i, j)) * sino_v[ray] (Joseph). */
KHD KT KFN(kri_jos_gather)(const KP *p, const KV *v, const KFN(kri_josrec) *tab,
                           const KT *sino_v, int i, int j)
{
    KT acc = 0;
    int cls = v->cls; /* bit 1: the view may hold x-major rays, bit 0: y-major rays */
    if (p->kind == KRI_CT2_PARALLEL) /* one direction: the same test as kri_jos_setup */
        cls = KABS(KDIV(v->ax, p->vx)) >= KABS(KDIV(v->ay, p->vy)) ? 2 : 1;
    for (int hyp = 1; hyp >= 0; hyp--) {
        if (!(cls & (1 << hyp))) continue;
        /* rays of this class touching the pixel cross the segment from the pixel centre one
         * pixel back to one pixel forward along the minor axis */
        KT c1, c2;
        if (hyp) {
            c1 = KFN(kri_ct2_detc)(p, v, (KT)i, (KT)(j - 1));
            c2 = KFN(kri_ct2_detc)(p, v, (KT)i, (KT)(j + 1));
        } else {
            c1 = KFN(kri_ct2_detc)(p, v, (KT)(i - 1), (KT)j);
            c2 = KFN(kri_ct2_detc)(p, v, (KT)(i + 1), (KT)j);
        }
        int k0, k1;
        if (!KFN(kri_ct2_krange)(p, c1 < c2 ? c1 : c2, c1 < c2 ? c2 : c1, &k0, &k1)) continue;
        for (int k = k0; k <= k1; k++) {
            KFN(kri_josrec) rec;
            if (tab)
                rec = tab[k];
            else
                KFN(kri_josrec_make)(p, v, k, &rec);
            if (rec.xm != hyp) continue;
            KT w = hyp ? KFN(kri_jos_w)(rec.a, rec.b, i, j, p->ny)
                       : KFN(kri_jos_w)(rec.a, rec.b, j, i, p->nx);
            if (w != 0) acc += (w * rec.L) * sino_v[k];
        }
    }
    return acc;
}

/* Same for Siddon: rays meeting the pixel square land between its corners' coordinates. */
KHD KT KFN(kri_sid_gather)(const KP *p, const KV *v, const KFN(kri_sidrec) *tab,
                           const KT *sino_v, int i, int j)
{
    KT cmin = KBIG, cmax = -KBIG;
    for (int c = 0; c < 4; c++) {
        KT X = (KT)i + ((c & 1) ? (KT)0.5 : (KT)-0.5), Y = (KT)j + ((c & 2) ? (KT)0.5 : (KT)-0.5);
        KT d = KFN(kri_ct2_detc)(p, v, X, Y);
        if (d < cmin) cmin = d;
        if (d > cmax) cmax = d;
    }
    int k0, k1;
    if (!KFN(kri_ct2_krange)(p, cmin, cmax, &k0, &k1)) return 0;
    KT acc = 0;
    for (int k = k0; k <= k1; k++) {
        KFN(kri_sidrec) rec;
        if (tab)
            rec = tab[k];
        else
            KFN(kri_sidrec_make)(p, v, k, &rec);
        KT w = KFN(kri_sid_len)(&rec.r, &rec.s, i, j);
        if (w != 0) acc += w * sino_v[k];
    }
    return acc;
}

#undef KP
#undef KV
#undef KBIG
#undef KSIN
#undef KCOS
