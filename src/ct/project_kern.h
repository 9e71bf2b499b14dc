/* Projector arithmetic that the 2-D (project2d_kern.h) and cone-beam (project3d_kern.h) kernel
 * headers share. No include guard: each of them includes it once per element type, with its
 * macros (KT, KFN, KHD, KMUL, KADD, KSUB, KFLOOR) defined; a file instantiates the arithmetic
 * of one of the two projectors. */

/* ---- Siddon ---------------------------------------------------------------------------------
 * Parameter t (mm along the ray from its point or source) where it crosses the faces of pixel
 * or voxel i along one axis: [*lo, *hi]. T = mm per index unit along the ray (voxel size over
 * direction); zero: the ray is parallel to the axis and lies in pixel floor(P + 1/2) for all
 * t. */
KHD void KFN(kri_sid_axis)(KT P, KT T, int zero, int i, KT *lo, KT *hi)
{
    if (zero) {
        KT c = KFLOOR(KADD(P, (KT)0.5));
        if (c == (KT)i) {
            *lo = -(KT)1e30;
            *hi = (KT)1e30;
        } else {
            *lo = (KT)1e30;
            *hi = -(KT)1e30;
        }
        return;
    }
    KT t0 = KMUL(KSUB(KSUB((KT)i, (KT)0.5), P), T);
    KT t1 = KMUL(KSUB(KADD((KT)i, (KT)0.5), P), T);
    if (t0 <= t1) {
        *lo = t0;
        *hi = t1;
    } else {
        *lo = t1;
        *hi = t0;
    }
}
