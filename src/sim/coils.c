/* Receive-coil arrays: MRXCAT layout, closed-form loop fields, sensitivity maps: validation and
 * the call of the coil-map backend of the output's location (coils_internal.h). */
#include "sim/coils_internal.h"

#include <math.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

kr_status kr_elliptic_ke(double m, double tol, double *K, double *E)
{
    KRI_ARG_NOT_NULL(K);
    KRI_ARG_NOT_NULL(E);
    if (!(m >= 0.0 && m < 1.0))
        return kri_fail(KR_ERR_INVALID_ARG, "elliptic parameter m = %g outside [0, 1)", m);
    if (!(tol >= 0.0 && isfinite(tol)))
        return kri_fail(KR_ERR_INVALID_ARG, "elliptic tolerance %g must be >= 0", tol);
    kri_ellipke(m, tol > 0 ? tol : 1e-15, K, E);
    return KR_OK;
}

/* ---- layout ------------------------------------------------------------------------------- */
static const double ang2[] = {150, 210};
static const double ang3[] = {130, 180, 230};
static const double ang4[] = {150, 210, 330, 30};
static const double ang5[] = {130, 180, 230, 330, 30};
static const double ang6[] = {130, 180, 230, 310, 0, 50};

kr_status kr_coil_layout_mrxcat(int nc, int cpr, double rbody_mm, kr_coil *coils, int *nrings,
                                int *ring_counts)
{
    KRI_ARG_NOT_NULL(coils);
    KRI_ARG_NOT_NULL(nrings);
    if (nc < 1 || cpr < 1 || nc > 4096)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "coil layout needs 1 to 4096 coils and >= 1 coil per ring (%d, %d)", nc,
                        cpr);
    if (!(isfinite(rbody_mm) && rbody_mm > 0))
        return kri_fail(KR_ERR_INVALID_ARG, "array radius rbody_mm = %g must be > 0", rbody_mm);
    /* ring sizes */
    int full, rem[2] = {0, 0}, nrem = 0;
    if (nc % cpr) {
        full = (nc - cpr) / cpr; /* floor for nc >= cpr */
        if (nc < cpr) full = 0;
        int r = nc - full * cpr;
        if (r > cpr) {
            rem[0] = r / 2;
            rem[1] = r - r / 2;
            nrem = 2;
        } else {
            rem[0] = r;
            nrem = 1;
        }
    } else {
        full = nc / cpr;
    }
    const int rings = full + nrem;
    int counts_local[64];
    int *cnt = ring_counts;
    if (!cnt) {
        if (rings > 64) return kri_fail(KR_ERR_INVALID_ARG, "more than 64 rings: pass ring_counts");
        cnt = counts_local;
    }
    for (int k = 0; k < rings; k++)
        cnt[k] = cpr;
    if (nrem == 1) cnt[0] = rem[0];
    if (nrem == 2) {
        cnt[0] = rem[0];
        cnt[rings - 1] = rem[1];
    }
    int maxc = 0;
    for (int k = 0; k < rings; k++)
        maxc = cnt[k] > maxc ? cnt[k] : maxc;
    const double minang = maxc > 6 ? 2.0 * M_PI / (double)maxc : 50.0 * M_PI / 180.0;
    const double rc = 0.5 * rbody_mm * minang;
    int idx = 0;
    for (int k = 0; k < rings; k++) {
        double z = (double)(2 * k - (rings - 1)) * rc;
        const double *tab = NULL;
        switch (cnt[k]) {
        case 2: tab = ang2; break;
        case 3: tab = ang3; break;
        case 4: tab = ang4; break;
        case 5: tab = ang5; break;
        case 6: tab = ang6; break;
        default: break;
        }
        for (int q = 0; q < cnt[k]; q++) {
            double deg = cnt[k] == 1 ? 0.0 : tab ? tab[q] : 360.0 * (double)q / (double)cnt[k];
            double phi = deg * M_PI / 180.0;
            kr_coil *c = &coils[idx++];
            memset(c, 0, sizeof *c);
            c->centre_mm[0] = rbody_mm * cos(phi);
            c->centre_mm[1] = rbody_mm * sin(phi);
            c->centre_mm[2] = z;
            c->normal[0] = -cos(phi);
            c->normal[1] = -sin(phi);
            c->normal[2] = 0.0;
            c->radius_mm = rc;
            c->ring = k;
            c->angle_deg = deg;
        }
    }
    *nrings = rings;
    return KR_OK;
}

/* ---- field -------------------------------------------------------------------------------- */
kr_status kri_coil_prepare(const kr_coil *coil, int index, kri_coil_dev *d)
{
    double nn = 0;
    for (int k = 0; k < 3; k++) {
        if (!isfinite(coil->centre_mm[k]) || !isfinite(coil->normal[k]))
            return kri_fail(KR_ERR_INVALID_ARG, "coil %d has a non-finite centre or normal", index);
        nn += coil->normal[k] * coil->normal[k];
    }
    if (!(nn > 1e-24) || !(isfinite(coil->radius_mm) && coil->radius_mm > 0))
        return kri_fail(KR_ERR_INVALID_ARG,
                        "coil %d needs a non-zero normal and a radius > 0 (radius %g mm)", index,
                        coil->radius_mm);
    nn = sqrt(nn);
    for (int k = 0; k < 3; k++) {
        d->c[k] = coil->centre_mm[k];
        d->n[k] = coil->normal[k] / nn;
    }
    d->a = coil->radius_mm;
    return KR_OK;
}

kr_status kr_coil_field(const kr_coil *coil, const double p_mm[3], double wire_mm,
                        double b_T_per_A[3])
{
    KRI_ARG_NOT_NULL(coil);
    KRI_ARG_NOT_NULL(p_mm);
    KRI_ARG_NOT_NULL(b_T_per_A);
    kri_coil_dev d;
    KRI_TRY(kri_coil_prepare(coil, 0, &d));
    if (!(isfinite(wire_mm) && wire_mm >= 0))
        return kri_fail(KR_ERR_INVALID_ARG, "wire radius %g mm must be >= 0", wire_mm);
    if (!isfinite(p_mm[0]) || !isfinite(p_mm[1]) || !isfinite(p_mm[2]))
        return kri_fail(KR_ERR_INVALID_ARG, "field point is not finite");
    if (kri_loop_field(&d, p_mm[0], p_mm[1], p_mm[2], wire_mm, 1e-15, b_T_per_A))
        return kri_fail(KR_ERR_INVALID_ARG,
                        "the point (%g, %g, %g) mm lies on the coil's conductor (infinite field)",
                        p_mm[0], p_mm[1], p_mm[2]);
    return KR_OK;
}

void kr_coil_map_opts_default(kr_coil_map_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->nx = o->ny = 64;
    o->nz = 1;
    o->voxel_mm[0] = o->voxel_mm[1] = 1.0;
    o->voxel_mm[2] = 5.0;
    o->grid = KR_GRID_FFT;
    o->wire_mm = 1.0;
    o->tol = 1e-12;
    o->norm = KR_COIL_NORM_NONE;
}

static kr_status check_map_opts(const kr_coil_map_opts *o, int need_grid)
{
    if (need_grid) {
        if (o->nx < 1 || o->ny < 1 || o->nz < 1)
            return kri_fail(KR_ERR_INVALID_ARG, "coil map grid %lld x %lld x %lld",
                            (long long)o->nx, (long long)o->ny, (long long)o->nz);
        for (int d = 0; d < 3; d++)
            if (!(isfinite(o->voxel_mm[d]) && o->voxel_mm[d] > 0))
                return kri_fail(KR_ERR_INVALID_ARG, "coil map voxel size %d is %g mm", d,
                                o->voxel_mm[d]);
        if ((int)o->grid < 0 || o->grid >= KR_GRID_COUNT)
            return kri_fail(KR_ERR_INVALID_ARG, "invalid grid %d", (int)o->grid);
    }
    if (!isfinite(o->z_mm) || !(isfinite(o->wire_mm) && o->wire_mm > 0) ||
        !(isfinite(o->tol) && o->tol > 0 && o->tol < 1e-3) || (int)o->norm < 0 ||
        o->norm >= KR_COIL_NORM_COUNT)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "coil map options: z_mm %g, wire_mm %g (> 0), tol %g (in (0, 1e-3)), "
                        "norm %d",
                        o->z_mm, o->wire_mm, o->tol, (int)o->norm);
    return KR_OK;
}

/* Prepare coils and the gain (T -> microtesla, times the normalisation). */
static kr_status prepare(const kr_coil *coils, int nc, const kr_coil_map_opts *o,
                         kri_coil_dev **out, double *gain)
{
    KRI_ARG_NOT_NULL(coils);
    if (nc < 1 || nc > 65536) return kri_fail(KR_ERR_INVALID_ARG, "%d coils (1 to 65536)", nc);
    kri_coil_dev *d = NULL;
    KRI_TRY(kri_alloc((void **)&d, (size_t)nc * sizeof *d, "coil table"));
    for (int c = 0; c < nc; c++) {
        kr_status st = kri_coil_prepare(&coils[c], c, &d[c]);
        if (st != KR_OK) {
            kri_free(d);
            return st;
        }
    }
    double g = 1e6;
    if (o->norm == KR_COIL_NORM_RSS_CENTRE) {
        double s2 = 0;
        for (int c = 0; c < nc; c++) {
            double B[3];
            if (kri_loop_field(&d[c], 0, 0, o->z_mm, o->wire_mm, o->tol, B)) continue;
            s2 += B[0] * B[0] + B[1] * B[1];
        }
        if (!(s2 > 0)) {
            kri_free(d);
            return kri_fail(KR_ERR_INVALID_ARG,
                            "the coils' transverse field vanishes at (0, 0, %g) mm: cannot "
                            "normalise",
                            o->z_mm);
        }
        g = 1.0 / sqrt(s2);
    }
    *out = d;
    *gain = g;
    return KR_OK;
}

static double grid_centre(kr_phantom_grid g, int64_t N)
{
    return g == KR_GRID_FFT ? (double)(N / 2) : 0.5 * (double)(N - 1);
}

kr_status kr_coil_maps(const kr_ctx *ctx, const kr_coil *coils, int ncoils,
                       const kr_coil_map_opts *opts, kr_array *out)
{
    KRI_ARG_NOT_NULL(ctx);
    kr_coil_map_opts o;
    if (opts)
        o = *opts;
    else
        kr_coil_map_opts_default(&o);
    KRI_TRY(check_map_opts(&o, 1));
    KRI_ARG_NOT_NULL(coils);
    if (ncoils < 1 || ncoils > 65536)
        return kri_fail(KR_ERR_INVALID_ARG, "%d coils (1 to 65536)", ncoils);
    for (int c = 0; c < ncoils; c++) {
        kri_coil_dev tmp;
        KRI_TRY(kri_coil_prepare(&coils[c], c, &tmp));
    }
    /* [nx, ny, nz, ncoils] at the context's location (device memory for a CUDA context) */
    const int64_t dims[4] = {o.nx, o.ny, o.nz, ncoils};
    KRI_TRY(kri_check_operand_dims("kr_coil_maps", "the coil map output", out, KRI_ANY_DTYPE,
                                   kri_ctx_loc(ctx), 4, dims));
    if (out->dtype != KR_C64 && out->dtype != KR_C128)
        return kri_fail(KR_ERR_DTYPE, "coil maps are %s, expected c64 or c128",
                        kr_dtype_name(out->dtype));
    const kri_coils_backend *be;
    KRI_TRY(kri_backend_pick(&be, out->loc, &kri_coils_cpu, &kri_coils_cuda, "coil maps"));
    kri_coil_dev *d = NULL;
    kri_coil_grid g;
    KRI_TRY(prepare(coils, ncoils, &o, &d, &g.gain));
    const double step[3] = {o.voxel_mm[0], o.voxel_mm[1], o.voxel_mm[2]};
    const double origin[3] = {-grid_centre(o.grid, o.nx) * step[0],
                              -grid_centre(o.grid, o.ny) * step[1],
                              o.z_mm - grid_centre(o.grid, o.nz) * step[2]};
    const int64_t n3[3] = {o.nx, o.ny, o.nz};
    for (int a = 0; a < 3; a++) {
        g.origin[a] = origin[a];
        g.step[a] = step[a];
        g.n[a] = n3[a];
    }
    g.wire = o.wire_mm;
    g.tol = o.tol;
    kr_status st = be->maps(ctx, d, ncoils, &g, out->dtype == KR_C128, out->data);
    kri_free(d);
    return st;
}

kr_status kr_coil_sens_points(const kr_ctx *ctx, const kr_coil *coils, int ncoils,
                              const double *xyz, int64_t npts, const kr_coil_map_opts *opts,
                              kr_array **out)
{
    KRI_ARG_NOT_NULL(out);
    *out = NULL;
    KRI_ARG_NOT_NULL(xyz);
    if (npts < 1) return kri_fail(KR_ERR_DIM, "%lld points", (long long)npts);
    kr_coil_map_opts o;
    if (opts)
        o = *opts;
    else
        kr_coil_map_opts_default(&o);
    KRI_TRY(check_map_opts(&o, 0));
    for (int64_t p = 0; p < 3 * npts; p++)
        if (!isfinite(xyz[p]))
            return kri_fail(KR_ERR_INVALID_ARG, "point %lld is not finite", (long long)(p / 3));
    kri_coil_dev *d = NULL;
    double gain = 1;
    KRI_TRY(prepare(coils, ncoils, &o, &d, &gain));
    kr_array *a = NULL;
    const int64_t dims[2] = {npts, ncoils};
    kr_status st = kr_array_create(&a, KR_C64, 2, dims, KR_HOST, NULL);
    if (st != KR_OK) {
        kri_free(d);
        return st;
    }
    kri_coil_points(ctx, d, ncoils, xyz, npts, o.wire_mm, o.tol, gain, a->data);
    kri_free(d);
    *out = a;
    return KR_OK;
}
