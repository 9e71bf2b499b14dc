/* kray mrreg: regularised reconstruction of multi-coil MRI data, non-Cartesian (trajectory +
 * k-space) and Cartesian (k-space with zeros or a mask, or ISMRMRD), with l1-wavelet, TV and
 * LLR terms by FISTA, ADMM or PDHG, in BART pics' conventions (kray/mrreg.h). */
#include "cli.h"
#include "internal.h"
#include "mri_common.h"

#include "kray/mrreg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define KC_MRREG_MAXREG 4

/* Take every --reg SPEC / --reg=SPEC out of argv (before "--"). */
static int kc_mrreg_take(int *argc, char **argv, const char **regs, int *n)
{
    int w = 0, end = 0;
    for (int i = 0; i < *argc; i++) {
        const char *v = NULL;
        if (!end && !strcmp(argv[i], "--")) end = 1;
        if (!end && !strcmp(argv[i], "--reg")) {
            if (i + 1 >= *argc) return kc_usage("mrreg", "--reg needs a value");
            v = argv[++i];
        } else if (!end && !strncmp(argv[i], "--reg=", 6)) {
            v = argv[i] + 6;
        } else {
            argv[w++] = argv[i];
            continue;
        }
        if (*n >= KC_MRREG_MAXREG)
            return kc_usage("mrreg", "at most %d --reg terms", KC_MRREG_MAXREG);
        regs[(*n)++] = v;
    }
    *argc = w;
    argv[w] = NULL;
    return 0;
}

static int64_t kc_prod(int a, int b, const int64_t *d)
{
    int64_t p = 1;
    for (int i = a; i < b; i++) p *= d[i];
    return p;
}

typedef struct kc_mr {
    const char *maps_path, *maps_out, *dcf, *mask, *init, *dataset;
    kc_dims size;
    int espirit, kernel, calib;
    double calib_radius, threshold, crop;
    kr_array *traj, *k, *maps, *w, *m, *x; /* host */
    kr_array *whiten;                      /* ISMRMRD noise scans: the whitener, or NULL */
    kr_mrreg_data d;
} kc_mr;

/* k-space [M, C, T] of all frames as [M T, C] (for the map estimate). */
static kr_status kc_mr_merge(const kr_array *k, int64_t M, int64_t C, int64_t T, kr_array **out)
{
    int64_t d[2] = {M * T, C};
    KRI_TRY(kr_array_create(out, KR_C64, 2, d, KR_HOST, NULL));
    const float *a = k->data;
    float *b = (*out)->data;
    for (int64_t t = 0; t < T; t++)
        for (int64_t c = 0; c < C; c++)
            memcpy(b + 2 * (M * t + M * T * c), a + 2 * (M * (c + C * t)), sizeof(float) * 2 * M);
    return KR_OK;
}

/* Non-Cartesian inputs: trajectory (frames on BART's axes after the coil axis), k-space,
 * weights per frame, maps from a file or estimated from all frames together. */
static int kc_mr_noncart(kc_mr *m, const kr_ctx *ctx, const char *tp, const char *kp)
{
    kr_array *a = NULL, *kall = NULL;
    kr_status s = kc_read_traj(tp, &m->traj, KR_F32);
    if (s == KR_OK) s = kc_read(kp, &a, NULL, NULL);
    if (s == KR_OK) s = kr_array_astype(&m->k, a, KR_C64);
    kr_array_destroy(a);
    if (s != KR_OK) return kc_fail("mrreg", s);
    const int64_t D = m->traj->dims[0], npts = kr_array_numel(m->traj) / D;
    const int64_t T = kc_prod(4, m->traj->ndim, m->traj->dims), M = npts / T;
    const int64_t nk = kr_array_numel(m->k);
    if (nk % npts != 0)
        return kc_error("mrreg", "k-space '%s' has %lld values, not a multiple of the %lld "
                        "trajectory points", kp, (long long)nk, (long long)npts);
    const int64_t C = nk / npts;
    if (m->dcf) {
        int64_t wd[2] = {M, T};
        s = kr_array_create(&m->w, KR_F32, 2, wd, KR_HOST, NULL);
        for (int64_t t = 0; t < T && s == KR_OK; t++) {
            kr_array tv, *wt = NULL;
            int64_t td[2] = {D, M};
            s = kr_array_wrap(&tv, KR_F32, 2, td, (float *)m->traj->data + D * M * t, KR_HOST);
            if (s == KR_OK) s = kc_mri_dcf(m->dcf, ctx, &tv, &wt);
            if (s == KR_OK && kr_array_numel(wt) != M) {
                kr_array_destroy(wt);
                return kc_error("mrreg", "density weights '%s' have %lld values; the %lld "
                                "frames have %lld samples each", m->dcf,
                                (long long)kr_array_numel(wt), (long long)T, (long long)M);
            }
            if (s == KR_OK) memcpy((float *)m->w->data + M * t, wt->data, sizeof(float) * M);
            kr_array_destroy(wt);
        }
        if (s != KR_OK) return kc_fail("mrreg", s);
    }
    int nd = m->size.n;
    int64_t n[3] = {1, 1, 1};
    for (int i = 0; i < nd; i++) n[i] = m->size.d[i];
    if (m->maps_path) {
        s = kc_read(m->maps_path, &a, NULL, kc_image_io());
        if (s == KR_OK) s = kr_array_astype(&m->maps, a, KR_C64);
        kr_array_destroy(a);
        if (s != KR_OK) return kc_fail("mrreg", s);
        if (nd == 0) {
            nd = m->maps->ndim >= 4 && m->maps->dims[2] > 1 ? 3 : 2;
            for (int i = 0; i < nd; i++) n[i] = m->maps->dims[i];
        }
    } else {
        kr_array tall;
        int64_t td[2] = {D, npts};
        kr_cgsense_maps_opts mo;
        kr_cgsense_maps_opts_default(&mo);
        mo.calib_radius = m->calib_radius;
        mo.threshold = m->threshold;
        mo.espirit = m->espirit;
        kr_array wall, *wp = NULL;
        s = kr_array_wrap(&tall, KR_F32, 2, td, m->traj->data, KR_HOST);
        if (s == KR_OK && m->w) s = kr_array_wrap(&wall, KR_F32, 1, &npts, m->w->data, KR_HOST);
        if (m->w) wp = &wall;
        if (s == KR_OK) s = kc_mr_merge(m->k, M, C, T, &kall);
        if (s == KR_OK) s = kr_cgsense_estimate_maps(ctx, nd, n, &tall, kall, wp, &mo, &m->maps);
        kr_array_destroy(kall);
        if (s != KR_OK) return kc_fail("mrreg", s);
    }
    m->d.ndim = nd;
    memcpy(m->d.dims, n, sizeof n);
    m->d.frames = T;
    m->d.traj = m->traj;
    m->d.dcf = m->w;
    return 0;
}

/* Cartesian inputs: k-space [x, y, coils] or BART's [x, y, 1, coils, ..., frames] (or an
 * ISMRMRD file), the pattern, and maps from a file or by ESPIRiT on the frames' mean. */
static int kc_mr_cart(kc_mr *m, const kr_ctx *ctx, const char *kp)
{
    kr_array *a = NULL;
    kr_status s = KR_OK;
    int64_t T = 1;
    if (kc_mri_is_ismrmrd(kp)) {
        kc_mri_input in;
        int r = kc_mri_load("mrreg", kp, m->dataset, 0, 0, &in);
        if (r) return r;
        m->k = in.kspace;
        in.kspace = NULL;
        /* the file's noise scans pre-whiten data and maps, as kray sense does */
        if (in.psi) s = kr_noise_whitener(in.psi, &m->whiten);
        if (s == KR_OK && m->whiten) s = kr_coil_apply(ctx, m->k, 2, m->whiten);
        kc_mri_free(&in);
        if (s != KR_OK) return kc_fail("mrreg", s);
    } else {
        if ((s = kc_read(kp, &a, NULL, kc_image_io())) != KR_OK) return kc_fail("mrreg", s);
        if (!kr_dtype_is_complex(a->dtype) || (a->ndim >= 4 && a->dims[2] != 1)) {
            char b[96];
            kc_error("mrreg", "Cartesian k-space '%s' must be complex [x, y, coils] or BART's "
                     "[x, y, 1, coils, ..., frames], not %s %s", kp, kr_dtype_name(a->dtype),
                     kr_dims_string(a->ndim, a->dims, b, sizeof b));
            kr_array_destroy(a);
            return KC_EXIT_INPUT;
        }
        T = a->ndim >= 4 ? kc_prod(4, a->ndim, a->dims) : 1;
        s = kr_array_astype(&m->k, a, KR_C64);
        kr_array_destroy(a);
        if (s != KR_OK) return kc_fail("mrreg", s);
    }
    const int64_t nx = m->k->dims[0], ny = m->k->ndim > 1 ? m->k->dims[1] : 1;
    const int64_t C = kr_array_numel(m->k) / (nx * ny * T);
    if (m->mask) {
        if ((s = kc_read(m->mask, &a, NULL, kc_image_io())) == KR_OK)
            s = kr_array_astype(&m->m, a, KR_F32);
        kr_array_destroy(a);
        if (s != KR_OK) return kc_fail("mrreg", s);
        if (kr_array_numel(m->m) != nx * ny * T)
            return kc_error("mrreg", "mask '%s' has %lld values; the k-space has %lldx%lld x "
                            "%lld frames", m->mask, (long long)kr_array_numel(m->m),
                            (long long)nx, (long long)ny, (long long)T);
    }
    if (m->maps_path) {
        int64_t want[3] = {nx, ny, C};
        int r = kc_mri_read_c64("mrreg", m->maps_path, "maps", want, &m->maps);
        if (r) return r;
        if (m->whiten && (s = kr_coil_apply(ctx, m->maps, 2, m->whiten)) != KR_OK)
            return kc_fail("mrreg", s);
    } else {
        /* ESPIRiT on the mean over the frames of each sampled k-space value */
        int64_t kd[3] = {nx, ny, C};
        kr_array *avg = NULL;
        if ((s = kr_array_create(&avg, KR_C64, 3, kd, KR_HOST, NULL)) != KR_OK)
            return kc_fail("mrreg", s);
        const float *kv = m->k->data;
        float *av = avg->data;
        for (int64_t p = 0; p < nx * ny; p++) {
            int cnt = 0;
            for (int64_t t = 0; t < T; t++) {
                int on = 0;
                for (int64_t c = 0; c < C && !on; c++) {
                    const float *e = kv + 2 * (p + nx * ny * (c + C * t));
                    on = m->m ? ((float *)m->m->data)[p + nx * ny * t] != 0 : e[0] != 0 || e[1] != 0;
                }
                if (!on) continue;
                cnt++;
                for (int64_t c = 0; c < C; c++)
                    for (int r = 0; r < 2; r++)
                        av[2 * (p + nx * ny * c) + r] += kv[2 * (p + nx * ny * (c + C * t)) + r];
            }
            for (int64_t c = 0; c < C && cnt > 1; c++)
                for (int r = 0; r < 2; r++) av[2 * (p + nx * ny * c) + r] /= (float)cnt;
        }
        kr_espirit_opts o;
        kr_espirit_opts_default(&o);
        o.kernel = m->kernel;
        o.calib = m->calib;
        o.crop = m->crop;
        s = kr_espirit(ctx, avg, &o, &m->maps, NULL);
        kr_array_destroy(avg);
        if (s != KR_OK) return kc_fail("mrreg", s);
    }
    m->d.ndim = 2;
    m->d.dims[0] = nx;
    m->d.dims[1] = ny;
    m->d.frames = T;
    m->d.mask = m->m;
    return 0;
}

static void kc_mr_free(kc_mr *m)
{
    kr_array_destroy(m->traj), kr_array_destroy(m->k), kr_array_destroy(m->maps);
    kr_array_destroy(m->w), kr_array_destroy(m->m), kr_array_destroy(m->x);
    kr_array_destroy(m->whiten);
}

/* The initial image (kray's units) into m->x, or zeros. */
static int kc_mr_init(kc_mr *m, int64_t *xd, int xn)
{
    kr_status s = kr_array_create(&m->x, KR_C64, xn, xd, KR_HOST, NULL);
    if (s != KR_OK) return kc_fail("mrreg", s);
    if (!m->init) return 0;
    kr_array *a = NULL, *b = NULL;
    s = kc_read(m->init, &a, NULL, kc_image_io());
    if (s == KR_OK) s = kr_array_astype(&b, a, KR_C64);
    kr_array_destroy(a);
    if (s != KR_OK) return kc_fail("mrreg", s);
    if (kr_array_numel(b) != kr_array_numel(m->x)) {
        char p[96], q[96];
        kc_error("mrreg", "initial image '%s' has %s values, the image is %s", m->init,
                 kr_dims_string(b->ndim, b->dims, p, sizeof p), kr_dims_string(xn, xd, q, sizeof q));
        kr_array_destroy(b);
        return KC_EXIT_INPUT;
    }
    memcpy(m->x->data, b->data, kr_array_bytes(m->x));
    kr_array_destroy(b);
    return 0;
}

int kc_tool_mrreg(int argc, char **argv)
{
    const char *regs[KC_MRREG_MAXREG], *a1 = NULL, *a2 = NULL, *a3 = NULL, *regdummy = NULL;
    int nreg = 0, r = kc_mrreg_take(&argc, argv, regs, &nreg);
    if (r) return r;
    kc_mr m;
    memset(&m, 0, sizeof m);
    int method = 0, iters = 30, toeplitz = 1, noshift = 0, wavelet = 1, levels = 0, inner = 10;
    double tol = 0, scale = 0, rho = 0.5, eps = 1e-4;
    m.calib_radius = 12, m.kernel = 6, m.calib = 24, m.crop = 0.8;
    const kc_opt opts[] = {
        {"reg", 0, KC_STRING, &regdummy, NULL, "SPEC",
         "regulariser, repeatable: l1-wavelet:LAMBDA, tv:LAMBDA[:AXES] (AXES letters of xyzt, "
         "default the spatial axes), llr:LAMBDA[:BLOCK] (default 8); LAMBDA is BART pics' "
         "(docs/reg.md)", NULL, 0, 0, NULL},
        {"method", 'm', KC_CHOICE, &method, "auto", "M",
         "auto (BART's choice: fista for one l1-wavelet or llr term, else admm), fista, admm, "
         "pdhg", "auto|fista|admm|pdhg", 0, 0, NULL},
        {"iters", 'i', KC_INT, &iters, "30", "N", "iterations (BART's -i)", NULL, 1, 1000000,
         NULL},
        {"tol", 't', KC_DOUBLE, &tol, "0", "T",
         "stop at this relative change (fista, pdhg) or ADMM residual; 0 = run --iters", NULL,
         0, 1, NULL},
        {"scale", 0, KC_DOUBLE, &scale, "0", "S",
         "divide the data by S (BART's pics -w); 0 = BART's estimate from the adjoint image",
         NULL, 0, 1e300, NULL},
        {"wavelet", 0, KC_CHOICE, &wavelet, "db2", "W", "wavelet of l1-wavelet (db2 = BART's "
         "dau2)", "haar|db2|db4", 0, 0, NULL},
        {"levels", 0, KC_INT, &levels, "0", "N", "wavelet levels; 0 = BART's rule (the last "
         "level's input >= 16)", NULL, 0, 30, NULL},
        {"no-randshift", 0, KC_FLAG, &noshift, NULL, NULL,
         "no random wavelet shifts per iteration (BART's -n)", NULL, 0, 0, NULL},
        {"rho", 0, KC_DOUBLE, &rho, "0.5", "R", "ADMM penalty (BART's -u)", NULL, 1e-12, 1e12,
         NULL},
        {"inner", 0, KC_INT, &inner, "10", "N", "ADMM: CG steps per iteration (BART's -C)",
         NULL, 1, 10000, NULL},
        {"maps", 0, KC_STRING, &m.maps_path, NULL, "FILE",
         "coil maps c64 [x, y(, z), coils] (BART's [x, y, 1, coils] too) (default: estimated: "
         "Cartesian by ESPIRiT on the frames' mean, non-Cartesian as kray cgsense)", NULL, 0, 0,
         NULL},
        {"maps-out", 0, KC_STRING, &m.maps_out, NULL, "FILE", "also write the maps used", NULL,
         0, 0, NULL},
        {"size", 'n', KC_DIMS, &m.size, NULL, "DIMS",
         "non-Cartesian image size NxM or NxMxP (default: from --maps)", NULL, 2, 1 << 20, NULL},
        {"dcf", 'w', KC_STRING, &m.dcf, NULL, "D|FILE",
         "non-Cartesian density weights in the data term: radial, pipe, voronoi (per frame) or "
         "a file [samples, frames]", NULL, 0, 0, NULL},
        {"mask", 0, KC_STRING, &m.mask, NULL, "FILE",
         "Cartesian sampling pattern [x, y(, frames)], non-zero = sampled (default: the "
         "samples that are non-zero in some coil, as BART)", NULL, 0, 0, NULL},
        {"eps", 'e', KC_DOUBLE, &eps, "1e-4", "E", "NUFFT accuracy", NULL, 1e-6, 0.1, NULL},
        {"normal", 0, KC_CHOICE, &toeplitz, "toeplitz", "M",
         "non-Cartesian normal operator E^H E: toeplitz (embedding on the 2x grid, BART's "
         "default; FISTA and ADMM's CG use it) or nufft (forward and adjoint)",
         "nufft|toeplitz", 0, 0, NULL},
        {"init", 0, KC_STRING, &m.init, NULL, "FILE", "initial image (warm start)", NULL, 0, 0,
         NULL},
        {"espirit", 0, KC_FLAG, &m.espirit, NULL, NULL,
         "non-Cartesian, without --maps: ESPIRiT on the gridded centre (2-D, needs --dcf)", NULL,
         0, 0, NULL},
        {"calib-radius", 0, KC_DOUBLE, &m.calib_radius, "12", "R",
         "non-Cartesian, without --maps: calibration radius in cycles per FOV", NULL, 0.5, 1e6,
         NULL},
        {"threshold", 0, KC_DOUBLE, &m.threshold, "0", "F",
         "non-Cartesian, without --maps: zero the maps where RSS < F * max RSS", NULL, 0, 0.999,
         NULL},
        KC_MRI_ESPIRIT_OPTS(m.kernel, m.calib, m.crop, m.dataset),
        {"iter", 0, KC_ALIAS, NULL, NULL, "iters", NULL, NULL, 0, 0, NULL},
        {0}};
    const kc_arg args[] = {
        {"traj", &a1,
         "non-Cartesian trajectory [3, samples...(, frames)] in cycles per FOV (BART's `bart "
         "traj` .cfl; frames on BART's axes after the coil axis). Cartesian data take two "
         "arguments: <kspace> <output>", 0},
        {"kspace", &a2,
         "k-space c64: non-Cartesian [samples..., coils(, frames)] (BART's [1, samples, spokes, "
         "coils, ..., frames]); Cartesian [x, y, coils] or BART's [x, y, 1, coils, ..., frames] "
         "(.cfl, .npy) or an ISMRMRD file (its noise scans pre-whiten data and maps, as kray "
         "sense)", 0},
        {"output", &a3, "image c64 [x, y(, z)(, frames)] in the units of kray cgsense", 1},
        {0}};
    const kc_spec spec = {
        "mrreg",
        "Regularised multi-coil MRI reconstruction, BART pics' problem: minimise\n"
        "1/2 |E x / c - y / s|^2 + sum LAMBDA R(x) (E = NUFFT or FFT . coil maps, c = sqrt(N) for\n"
        "the NUFFT, s = --scale or BART's estimate) with l1-wavelet, TV and LLR terms, so a\n"
        "LAMBDA of `bart pics -R W/T/L` carries over; writes x s / c (the units of kray cgsense).\n"
        "Non-Cartesian: <traj> <kspace> <output>; Cartesian: <kspace> <output> (the pattern is\n"
        "the non-zero samples or --mask). --json: one object with the method, scale,\n"
        "iterations, objective and time.",
        opts,
        args,
        KC_JSON,
        "Examples:\n"
        "  kray mrreg --maps maps.cfl --reg tv:0.003 -i 100 t.cfl ksp.cfl x.cfl\n"
        "  kray mrreg --maps maps.cfl --reg l1-wavelet:0.005 ksp.cfl x.cfl      # Cartesian\n"
        "  kray mrreg -n 256x256 --reg l1-wavelet:0.002 --reg tv:0.001 t.cfl ksp.cfl x.npy\n"
        "  kray mrreg --reg llr:0.01:8 --maps maps.cfl cine_ksp.cfl cine.cfl\n"
        "The same problem in BART: bart pics -R T:3:0:0.003 -i 100 -t t ksp maps x (its image\n"
        "is kray's times sqrt(N) / s for non-Cartesian data, docs/reg.md).",
        NULL,
        NULL};
    kc_common c;
    r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    const int cart = a3 == NULL;
    const char *tp = cart ? NULL : a1, *kp = cart ? a1 : a2, *op = cart ? a2 : a3;
    if (nreg == 0)
        return kc_usage("mrreg", "give at least one --reg term (without one, kray cgsense or "
                        "kray sense is the reconstruction)");
    kr_mrreg_term terms[KC_MRREG_MAXREG];
    for (int j = 0; j < nreg; j++)
        if (kr_mrreg_term_parse(regs[j], &terms[j]) != KR_OK)
            return kc_usage("mrreg", "%s", kr_last_error());
    int ntv = 0, nllr = 0;
    for (int j = 0; j < nreg; j++) {
        ntv += terms[j].kind == KR_MRREG_TV;
        nllr += terms[j].kind == KR_MRREG_LLR;
    }
    if (method == KR_MRREG_FISTA && (nreg > 1 || ntv))
        return kc_usage("mrreg", "--method fista takes one l1-wavelet or llr term; tv and "
                        "several terms need admm or pdhg");
    if (method == KR_MRREG_PDHG && nllr > 1)
        return kc_usage("mrreg", "--method pdhg takes at most one llr term");
    if (cart && (m.dcf || m.size.n || m.espirit))
        return kc_usage("mrreg", "--dcf, --size and --espirit are for non-Cartesian data "
                        "(<traj> <kspace> <output>)");
    if (!cart && m.mask) return kc_usage("mrreg", "--mask is for Cartesian data (<kspace> <output>)");
    if (!cart && !m.maps_path && m.size.n == 0)
        return kc_usage("mrreg", "without --maps the maps are estimated: give the image size "
                        "(--size NxM)");
    if (m.size.n != 0 && m.size.n != 2 && m.size.n != 3)
        return kc_usage("mrreg", "--size has %d values; give 2 or 3", m.size.n);
    if (m.espirit && (m.maps_path || !m.dcf))
        return kc_usage("mrreg", "--espirit estimates the maps: give --dcf and no --maps");
    if (!kc_mri_is_ismrmrd(kp) && (r = kc_check_input("mrreg", kp)) != 0) return r;
    if ((r = kc_check_output("mrreg", op)) != 0) return r;
    if (m.maps_out && (r = kc_check_output("mrreg", m.maps_out)) != 0) return r;
    kr_ctx *ctx = NULL;
    if ((r = kc_make_ctx("mrreg", &c, &ctx)) != 0) return r;
    const kr_loc loc = kr_ctx_backend(ctx) == KR_BACKEND_CUDA ? KR_DEVICE : KR_HOST;
    kr_array *dk = NULL, *dx = NULL;
    double *hist = NULL;
    kr_mrreg_info info;
    memset(&info, 0, sizeof info);
    const double t0 = kr_time_now();
    r = cart ? kc_mr_cart(&m, ctx, kp) : kc_mr_noncart(&m, ctx, tp, kp);
    kr_status s = KR_OK;
    if (r == 0 && m.maps_out && (s = kr_write(m.maps_out, m.maps, kc_image_io())) != KR_OK)
        r = kc_fail("mrreg", s);
    int64_t xd[4];
    int xn = m.d.ndim;
    memcpy(xd, m.d.dims, sizeof m.d.dims);
    if (m.d.frames > 1) xd[xn++] = m.d.frames;
    if (r == 0) r = kc_mr_init(&m, xd, xn);
    if (r) goto out;
    m.d.maps = m.maps;
    m.d.eps = eps;
    m.d.toeplitz = toeplitz;
    kr_mrreg_opts o;
    kr_mrreg_opts_default(&o);
    o.method = (kr_mrreg_method)method;
    o.max_iter = iters;
    o.tol = tol;
    o.scale = scale;
    o.wavelet = (kr_wavelet_kind)wavelet;
    o.levels = levels;
    o.randshift = !noshift;
    o.rho = rho;
    o.cg_iter = inner;
    o.warm_start = m.init != NULL;
    o.show_progress = !c.quiet;
    hist = calloc((size_t)iters + 1, sizeof *hist);
    o.objective = c.json ? hist : NULL; /* the history costs a prox value per iteration */
    if (!hist) s = KR_ERR_OOM_HOST;
    if (s == KR_OK) s = kr_array_clone(&dk, m.k, loc, ctx);
    if (s == KR_OK) s = kr_array_clone(&dx, m.x, loc, ctx);
    m.d.kspace = dk;
    const double t1 = kr_time_now();
    if (s == KR_OK) s = kr_mrreg(ctx, &m.d, terms, nreg, &o, dx, &info);
    if (s == KR_OK) s = kr_array_copy(m.x, dx, ctx);
    const double t2 = kr_time_now();
    if (s == KR_OK) s = kr_write(op, m.x, kc_image_io());
    if (s != KR_OK) {
        r = kc_fail("mrreg", s);
        goto out;
    }
    char mn[16];
    kc_choice_name("auto|fista|admm|pdhg", (int)info.method, mn, sizeof mn);
    if (c.json) {
        kc_jo j;
        kc_jo_begin(&j);
        kc_jo_str(&j, "tool", "mrreg");
        kc_jo_str(&j, "data", cart ? "cartesian" : "non-cartesian");
        kc_jo_str(&j, "method", mn);
        for (int i = 0; i < nreg; i++) {
            char key[16];
            snprintf(key, sizeof key, "reg%d", i);
            kc_jo_str(&j, key, regs[i]);
        }
        kc_jo_int(&j, "frames", m.d.frames);
        kc_jo_num(&j, "scale", info.scale);
        kc_jo_num(&j, "norm", info.norm);
        kc_jo_int(&j, "iterations", info.iterations);
        kc_jo_num(&j, "objective", info.objective);
        kc_jo_str(&j, "backend", kr_backend_name(kr_ctx_backend(ctx)));
        kc_jo_num(&j, "load_seconds", t1 - t0);
        kc_jo_num(&j, "solve_seconds", t2 - t1);
        kc_jo_nums(&j, "history", info.iterations + 1, hist);
        kc_jo_end(&j);
    } else if (c.verbose) {
        kc_note("mrreg", "%s, %d iterations, scale %.6g, objective %.6g, solve %.3f s (%s), "
                "wrote %s", mn, info.iterations, info.scale, info.objective, t2 - t1,
                kr_backend_name(kr_ctx_backend(ctx)), op);
    }
out:
    free(hist);
    kr_array_destroy(dk), kr_array_destroy(dx);
    kc_mr_free(&m);
    kr_ctx_destroy(ctx);
    return r;
}
