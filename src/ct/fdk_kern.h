/* FDK's projection matrix (kri_fdk_mat, fdk_internal.h) evaluated at a voxel: the one definition
 * of the mapping from voxel indices to detector coordinates, shared by the CPU kernels
 * (fdk_cpu.c: portable and AVX-512), the out-of-core schedule (slab.c, in double) and the CUDA
 * kernels (fdk_cuda.cuh). No include guard: the including file defines
 *   KT            the value type: float, double, or __m512 (16 columns at once)
 *   KFN(name)     the instance's name of a function
 *   KHD           function qualifiers
 *   KS(x)         a float of the matrix as a KT (a broadcast for vectors)
 *   KMUL KADD     rounded products and sums on KT, never fused
 *   KFMA(a, b, c) a * b + c of the column set-up and of v at slice k: fused on CUDA and in the
 *                 AVX-512 kernel, two roundings in the portable CPU kernel (C11 does not
 *                 contract), which is why those two differ from it in the last bits
 *   KRCP(a)       1 / a, correctly rounded
 *   KFMUL KFADD   rounded float products and sums, never fused (the row terms: scalars on
 *                 every instance)
 * and includes this file, which undefines them at its end.
 *
 * For voxel index (i, j, k) (global k) and view m:
 *   w = pw[0] i + pw[1] j + pw[2] k + pw[3]       (lambda: 1 on the detector plane, 0 at S)
 *   u = (pu[0] i + pu[1] j + pu[2] k + pu[3]) / w  (detector column, pixel index units)
 *   v = (pv[0] i + pv[1] j + pv[2] k + pv[3]) / w  (detector row)
 * and the backprojection weight is 1 / w^2. In the fast path (every view has pu[2] == pw[2]
 * == 0, exactly: a circular scan with v along z) u and w are shared by a z column and v is
 * linear in k: per column (i, j) and view kri_fdk_row_terms and kri_fdk_col give u, 1 / w^2,
 * v at k = 0 and dv / dk, and per voxel kri_fdk_v gives v = vb + k dv (k the global slice).
 * Keeping the per-voxel expression a function of the global k only makes the result
 * independent of how the volume is cut into slabs and blocks. The general path evaluates
 * kri_fdk_voxel per voxel. Each kernel then samples the filtered projections bilinearly at
 * (u, v) (u and v clamped to [-1, nu] and [-1, nv]: pixels off the detector are zero, so the
 * clamp never changes a result). */

/* The row terms of row j (fj = j) on view M: w, u and v numerators at i = k = 0, in float,
 * pw[1] j + pw[3] and so on. */
KHD void KFN(kri_fdk_row_terms)(const kri_fdk_mat *M, float fj, KT *w0, KT *u0, KT *v0)
{
    *w0 = KS(KFADD(KFMUL(M->pw[1], fj), M->pw[3]));
    *u0 = KS(KFADD(KFMUL(M->pu[1], fj), M->pu[3]));
    *v0 = KS(KFADD(KFMUL(M->pv[1], fj), M->pv[3]));
}

/* Column i (fi = i) of that row (the fast path): u (unclamped), the weight 1 / w^2, v at k = 0
 * (vb) and dv / dk. */
KHD void KFN(kri_fdk_col)(const kri_fdk_mat *M, KT fi, KT w0, KT u0, KT v0, KT *u, KT *wt,
                          KT *vb, KT *dv)
{
    const KT r = KRCP(KFMA(KS(M->pw[0]), fi, w0));
    *u = KMUL(KFMA(KS(M->pu[0]), fi, u0), r);
    *wt = KMUL(r, r);
    *vb = KMUL(KFMA(KS(M->pv[0]), fi, v0), r);
    *dv = KMUL(KS(M->pv[2]), r);
}

/* v at slice k (fk = k) of a column of the fast path. */
KHD KT KFN(kri_fdk_v)(KT vb, KT dv, KT fk) { return KFMA(fk, dv, vb); }

/* Voxel (i, j, k) on view M (the general path): w and the numerators of u and v, the four
 * terms of each row added in order (u = *un / w, v = *vn / w). */
KHD void KFN(kri_fdk_voxel)(const kri_fdk_mat *M, KT fi, KT fj, KT fk, KT *w, KT *un, KT *vn)
{
    *w = KADD(KADD(KADD(KMUL(KS(M->pw[0]), fi), KMUL(KS(M->pw[1]), fj)),
                   KMUL(KS(M->pw[2]), fk)),
              KS(M->pw[3]));
    *un = KADD(KADD(KADD(KMUL(KS(M->pu[0]), fi), KMUL(KS(M->pu[1]), fj)),
                    KMUL(KS(M->pu[2]), fk)),
               KS(M->pu[3]));
    *vn = KADD(KADD(KADD(KMUL(KS(M->pv[0]), fi), KMUL(KS(M->pv[1]), fj)),
                    KMUL(KS(M->pv[2]), fk)),
               KS(M->pv[3]));
}

#undef KT
#undef KFN
#undef KHD
#undef KS
#undef KMUL
#undef KADD
#undef KFMA
#undef KRCP
#undef KFMUL
#undef KFADD
