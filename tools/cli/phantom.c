/* kray phantom: analytic phantoms (images, MR maps, exact sinograms, k-space, coil maps). */
#include "cli.h"
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KC_PI 3.14159265358979323846

enum { K_IMAGE, K_MR, K_SINO, K_KSPACE, K_COILS };

typedef struct kc_phantom_args {
    int kind, contrast, is3d, supersample, dtype, views, det, units, coils, map, grid;
    double arc, fov, b0;
    kc_dims size;
    const char *traj;
} kc_phantom_args;

/* --traj: the (kx, ky) pairs of a 2-D trajectory [3, samples...] (cycles per FOV, kz = 0) and
 * the dims of its samples. */
static kr_status kc_traj_k(const char *path, double **k, int64_t *nk, int *nd, int64_t *dims)
{
    kr_array *t = NULL;
    kr_status s = kc_read_traj(path, &t, KR_F64);
    if (s != KR_OK) return s;
    const double *v = t->data;
    *nk = kr_array_numel(t) / 3;
    *nd = t->ndim - 1;
    for (int i = 1; i < t->ndim; i++) dims[i - 1] = t->dims[i];
    if (*nd < 1) {
        *nd = 1;
        dims[0] = 1;
    }
    *k = malloc((size_t)(2 * *nk) * sizeof **k);
    if (!*k) s = KR_ERR_OOM_HOST;
    for (int64_t i = 0; s == KR_OK && i < *nk; i++) {
        if (v[3 * i + 2] != 0) {
            s = kri_fail(KR_ERR_INVALID_ARG, "'%s': sample %lld has kz = %g; the analytic "
                         "k-space is 2-D (kz = 0)", path, (long long)i, v[3 * i + 2]);
            break;
        }
        (*k)[2 * i] = v[3 * i];
        (*k)[2 * i + 1] = v[3 * i + 1];
    }
    kr_array_destroy(t);
    if (s != KR_OK) {
        free(*k);
        *k = NULL;
    }
    return s;
}

/* Sample positions of a centred Cartesian k-space grid, kx fastest: kx, ky in [-n/2, n/2). */
static kr_status kc_grid_k(int64_t n, double **k)
{
    *k = malloc((size_t)(2 * n * n) * sizeof **k);
    if (!*k) return KR_ERR_OOM_HOST;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            (*k)[2 * (j * n + i)] = (double)(i - n / 2);
            (*k)[2 * (j * n + i) + 1] = (double)(j - n / 2);
        }
    return KR_OK;
}

static kr_status kc_phantom_make(const kc_phantom_args *p, const int64_t *d, kr_dtype prec,
                                 kr_array **out)
{
    kr_phantom_kind kind = p->contrast == 1 ? KR_PHANTOM_SHEPP_LOGAN : KR_PHANTOM_MODIFIED_SL;
    switch (p->kind) {
    case K_IMAGE: {
        kr_phantom_grid grid = p->grid == 1 ? KR_GRID_FFT : KR_GRID_CT;
        int ne = 0;
        if (p->is3d) {
            const kr_ellipsoid *e = kr_phantom_ellipsoids(kind, &ne);
            return kr_phantom_3d_grid(out, e, ne, grid, d[0], d[1], d[2], p->supersample, prec);
        }
        const kr_ellipse *e = kr_phantom_ellipses(kind, &ne);
        return kr_phantom_2d_grid(out, e, ne, grid, d[0], d[1], p->supersample, prec);
    }
    case K_MR: {
        kr_array *m = NULL;
        kr_status s = kr_phantom_mr_2d_grid(&m, p->grid == 1 ? KR_GRID_FFT : KR_GRID_CT, d[0], d[1],
                                            p->supersample, p->b0);
        if (s != KR_OK || p->map == 0) {
            *out = m;
            return s;
        }
        /* one map: a contiguous [nx, ny] view of plane map-1 */
        int64_t dims[2] = {d[0], d[1]};
        s = kr_array_create(out, m->dtype, 2, dims, KR_HOST, NULL);
        if (s == KR_OK) {
            size_t plane = (size_t)(d[0] * d[1]) * kr_dtype_size(m->dtype);
            memcpy((*out)->data, (char *)m->data + plane * (size_t)(p->map - 1), plane);
        }
        kr_array_destroy(m);
        return s;
    }
    case K_SINO: {
        int64_t nv = p->views, nd = p->det ? p->det : d[0];
        double *theta = malloc((size_t)nv * sizeof *theta), *s = malloc((size_t)nd * sizeof *s);
        if (!theta || !s) {
            free(theta);
            free(s);
            return KR_ERR_OOM_HOST;
        }
        for (int64_t v = 0; v < nv; v++)
            theta[v] = (double)v * (p->arc * KC_PI / 180.0) / (double)nv;
        /* detector pitch = one image pixel (2/nx normalised units), centred on the origin */
        for (int64_t i = 0; i < nd; i++) s[i] = (double)(2 * i + 1 - nd) / (double)d[0];
        kr_status st = kr_phantom_sinogram(out, kind, theta, nv, s, nd);
        free(theta);
        free(s);
        if (st == KR_OK && p->units == 1) { /* pixel units: multiply lengths by nx/2 */
            double *v = (*out)->data;
            int64_t n = kr_array_numel(*out);
            for (int64_t i = 0; i < n; i++) v[i] *= (double)d[0] / 2.0;
        }
        return st;
    }
    case K_KSPACE: {
        double *k = NULL;
        int64_t nk = d[0] * d[0], sd[KR_MAX_DIMS] = {d[0], d[0]};
        int nd = 2;
        kr_status s = p->traj ? kc_traj_k(p->traj, &k, &nk, &nd, sd) : kc_grid_k(d[0], &k);
        if (s != KR_OK) return s;
        if (p->coils > 0)
            s = kr_phantom_kspace_coils(out, kind, k, nk, d[0], p->coils);
        else
            s = kr_phantom_kspace(out, kind, k, nk, d[0]);
        free(k);
        if (s == KR_OK && nd + (p->coils > 0) > KR_MAX_DIMS) {
            kr_array_destroy(*out);
            *out = NULL;
            return kri_fail(KR_ERR_DIM, "'%s' has too many sample dimensions", p->traj);
        }
        if (s == KR_OK) { /* [samples, coils] -> [sample dims..., coils]: same memory */
            kr_array *a = *out;
            int64_t nc = p->coils > 0 ? p->coils : 1;
            a->ndim = nd + (p->coils > 0);
            for (int i = 0; i < nd; i++) a->dims[i] = sd[i];
            a->dims[nd] = nc;
            for (int i = a->ndim; i < KR_MAX_DIMS; i++) a->dims[i] = 1;
            a->strides[0] = 1;
            for (int i = 1; i < KR_MAX_DIMS; i++)
                a->strides[i] = a->strides[i - 1] * a->dims[i - 1];
        }
        return s;
    }
    case K_COILS: return kr_phantom_coil_maps(out, d[0], p->coils > 0 ? p->coils : 8);
    }
    return KR_ERR_INTERNAL;
}

int kc_tool_phantom(int argc, char **argv)
{
    const char *out = NULL;
    kc_phantom_args p;
    memset(&p, 0, sizeof p);
    const kc_opt opts[] = {
        {"kind", 'k', KC_CHOICE, &p.kind, "image", "K",
         "image: Shepp-Logan raster; mr: T1, T2 (ms) and PD maps [nx,ny,3]; sinogram: exact "
         "parallel-beam [det,view]; kspace: analytic k-space on the Cartesian grid [n,n(,coil)]; "
         "coils: coil sensitivity maps [n,n,coil]",
         "image|mr|sinogram|kspace|coils", 0, 0, NULL},
        {"contrast", 0, KC_CHOICE, &p.contrast, "modified", "C",
         "Shepp-Logan densities: modified (Toft, 0..1) or original (1974)", "modified|original", 0,
         0, NULL},
        {"size", 'n', KC_DIMS, &p.size, "256", "DIMS",
         "pixels: N (NxN, NxNxN with --3d), NxM or NxMxP", NULL, 1, 65536, NULL},
        {"3d", '3', KC_FLAG, &p.is3d, NULL, NULL,
         "3-D phantom (Kak & Slaney ellipsoids); image kind only", NULL, 0, 0, NULL},
        {"supersample", 'S', KC_INT, &p.supersample, "1", "N",
         "sub-samples per pixel and axis, averaged (1 = pixel centre)", NULL, 1,
         KR_PHANTOM_MAX_SUPERSAMPLE, NULL},
        {"grid", 0, KC_CHOICE, &p.grid, "ct", "G",
         "image, mr: pixel centres at (2i+1-N)/N (ct) or origin at pixel N/2 (fft, as MRI and "
         "BART; kspace and coils always use it)",
         "ct|fft", 0, 0, NULL},
        {"out-dtype", 0, KC_CHOICE, &p.dtype, "auto", "T",
         "stored element type (auto: --precision; complex for kspace and coils)", "auto|" KC_DTYPES,
         0, 0, NULL},
        {"views", 0, KC_INT, &p.views, "180", "N", "sinogram: number of view angles", NULL, 1,
         1000000, NULL},
        {"arc", 0, KC_DOUBLE, &p.arc, "180", "DEG",
         "sinogram: angular range in degrees; view v at v*arc/views", NULL, 1e-9, 3600, NULL},
        {"det", 0, KC_INT, &p.det, "0", "N",
         "sinogram: detector bins, one image pixel wide, centred (0 = nx)", NULL, 0, 10000000,
         NULL},
        {"units", 'u', KC_CHOICE, &p.units, "pixel", "U",
         "sinogram: line integrals in image pixels or in normalised units (image = [-1,1]^2)",
         "norm|pixel", 0, 0, NULL},
        {"coils", 'c', KC_INT, &p.coils, "0", "N",
         "kspace: multiply by N smooth coil sensitivities (0 = none); coils: number of maps "
         "(0 = 8)",
         NULL, 0, 64, NULL},
        {"traj", 0, KC_STRING, &p.traj, NULL, "FILE",
         "kspace: at the samples of this 2-D trajectory [3, samples...] (cycles per FOV, kz = 0; "
         "e.g. from kray traj) instead of the grid: [samples..., coil]",
         NULL, 0, 0, NULL},
        {"map", 0, KC_CHOICE, &p.map, "all", "M", "mr: all three maps [nx,ny,3] or one [nx,ny]",
         "all|t1|t2|pd", 0, 0, NULL},
        {"b0", 0, KC_DOUBLE, &p.b0, "1.5", "TESLA", "mr: field strength for T1 = A B0^C", NULL,
         1e-3, 20, NULL},
        {"fov", 0, KC_DOUBLE, &p.fov, "0", "MM",
         "field of view in mm, stored as pixel spacing fov/n in formats with a header (0 = "
         "none)",
         NULL, 0, 1e9, NULL},
        {"dtype", 0, KC_RENAMED, NULL, NULL, "--out-dtype", "--dtype is the element type of a raw input", NULL, 0, 0, NULL},
        {"", 't', KC_RENAMED, NULL, NULL, "--out-dtype", NULL, NULL, 0, 0, NULL},
        {"", 'g', KC_RENAMED, NULL, NULL, "--grid", NULL, NULL, 0, 0, NULL},
        {0}};
    const kc_arg args[] = {{"output", &out, "file to write (format from the extension)", 0}, {0}};
    const kc_spec spec = {
        "phantom",
        "Write an analytic phantom (Shepp-Logan: Kak & Slaney geometry; MR: Gach et al. 2008).\n"
        "Images span [-1,1] per axis (normalised units); pixel i of N is centred at (2i+1-N)/N\n"
        "(--grid ct) or (i-N/2)*2/N (--grid fft). Arrays are [x, y(, z)], x fastest, y down: row\n"
        "0 is the top of the head, as NumPy, PNG, NIfTI viewers and `bart toimg` show it (a .cfl\n"
        "holds BART's [y, x]). Sinograms are exact line integrals (chord x density) along\n"
        "x cos(t) + y sin(t) = s, t = v*arc/views, detector bins one pixel wide, [det, view].\n"
        "k-space is the analytic transform at kx, ky = -N/2 .. N/2-1 cycles per FOV (index N/2 is\n"
        "k = 0), scaled so that a centred inverse FFT divided by N^2 gives the image on the fft\n"
        "grid (as BART's fft -i). Coil maps are smooth analytic sensitivities on the fft grid.",
        opts,
        args,
        KC_HOST,
        "Examples:\n  kray phantom --size 256 sl.nii\n"
        "  kray phantom --3d --size 128 --supersample 2 sl3d.nrrd\n"
        "  kray phantom --kind sinogram --size 256 --views 360 --arc 360 sino.npy\n"
        "  kray phantom --kind kspace --size 128 --coils 8 k.cfl\n"
        "  kray phantom --kind kspace --size 128 --traj radial.npy --coils 8 k.npy\n"
        "  kray phantom --kind mr --map t2 --size 256 t2.nii",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    kc_apply_threads(&c);
    if ((r = kc_check_output("phantom", out)) != 0) return r;

    int64_t d[3] = {1, 1, 1};
    int nd = p.is3d ? 3 : 2;
    if (p.size.n == 1) {
        d[0] = d[1] = d[2] = p.size.d[0];
    } else if (p.size.n == 2 && !p.is3d) {
        d[0] = p.size.d[0];
        d[1] = p.size.d[1];
    } else if (p.size.n == 3) {
        nd = 3;
        p.is3d = 1;
        for (int i = 0; i < 3; i++) d[i] = p.size.d[i];
    } else {
        return kc_usage("phantom", "--size takes N, NxM (2-D) or NxMxP (3-D), got %d sizes%s",
                        p.size.n, p.is3d ? " with --3d" : "");
    }
    if (p.traj && p.kind != K_KSPACE)
        return kc_usage("phantom", "--traj goes with --kind kspace");
    if (nd == 3 && p.kind != K_IMAGE)
        return kc_usage("phantom", "--3d is only available for --kind image");
    if ((p.kind == K_KSPACE || p.kind == K_COILS) && d[0] != d[1])
        return kc_usage("phantom", "--kind %s needs a square size (N or NxN), got %lldx%lld",
                        p.kind == K_KSPACE ? "kspace" : "coils", (long long)d[0], (long long)d[1]);
    int64_t total = d[0] * d[1] * d[2];
    if (total > ((int64_t)1 << 34))
        return kc_usage("phantom", "--size %lldx%lldx%lld is too large (more than 2^34 pixels)",
                        (long long)d[0], (long long)d[1], (long long)d[2]);

    kr_dtype prec = kc_precision_dtype(&c);
    kr_dtype store = p.dtype == 0 ? KR_DTYPE_INVALID : kc_dtype_of_choice(p.dtype - 1);
    if (store == KR_DTYPE_INVALID) {
        store = (p.kind == K_KSPACE || p.kind == K_COILS) ? kr_dtype_complex(prec) : prec;
    }

    double t0 = kr_time_now();
    kr_array *a = NULL;
    kr_status s = kc_phantom_make(&p, d, prec, &a);
    if (s != KR_OK) return kc_fail("phantom", s);
    double t1 = kr_time_now();

    kr_io_opts io;
    kr_io_opts_default(&io);
    io.write_dtype = store;
    io.axes = p.kind == K_SINO || p.traj ? KR_IO_AXES_STORED : KR_IO_AXES_IMAGE;
    kr_meta meta;
    memset(&meta, 0, sizeof meta);
    snprintf(meta.description, sizeof meta.description, "kray phantom %s",
             (const char *[]){"image", "mr", "sinogram", "kspace", "coils"}[p.kind]);
    if (p.fov > 0 && (p.kind == K_IMAGE || p.kind == K_MR || p.kind == K_COILS)) {
        for (int i = 0; i < 3; i++) {
            meta.spacing[i] = i < nd ? p.fov / (double)d[i] : 1.0;
            meta.origin[i] = i < nd ? -p.fov / 2.0 + meta.spacing[i] / 2.0 : 0.0;
        }
    }
    io.meta = &meta;
    s = kr_write(out, a, &io);
    if (s != KR_OK) {
        kr_array_destroy(a);
        return kc_fail("phantom", s);
    }
    if (c.verbose && !c.quiet) {
        char dims[128], tb[32];
        kc_note("phantom", "wrote %s (%s, %s) computed in %s", out,
                kr_dims_string(a->ndim, a->dims, dims, sizeof dims), kr_dtype_name(store),
                kc_fmt_seconds(t1 - t0, tb, sizeof tb));
    }
    kr_array_destroy(a);
    return 0;
}
