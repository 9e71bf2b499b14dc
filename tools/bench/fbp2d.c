/* kray bench fbp2d: the 2-D FBP battery (the protocol of Cordeiro (2017), with its flaws fixed).
 *
 * Slices: the Shepp-Logan phantom (original and modified contrast; exact sinograms, so no
 * inverse crime) and a real CT slice (pydicom's CT_small.dcm, HU -> attenuation relative to
 * water 1 + HU/1000, bilinearly resampled to the bench size, zeroed outside the reconstruction
 * circle so no view is truncated, forward-projected with kray's Joseph projector). Geometry: parallel beam over 180 degrees, pixel = detector pitch = 1 mm, with the
 * rotation axis at detector index D/2 and the image origin at pixel N/2 (scikit-image's iradon
 * convention), so every backend and every peer reconstructs the same grid from the same
 * numbers. For each slice, backend and precision: plan time, then batteries x repetitions of
 * kr_fbp_execute (data already where the backend computes; CUDA synchronised), giving mean,
 * standard deviation, min and the spread of the battery means; CUDA also reports host-device
 * transfers, filter and backprojection times separately. Accuracy: PSNR, SSIM, NRMSE against
 * the ground truth and PSNR / max difference between every pair of backends, all inside the
 * reconstruction circle (pixels outside it are zeroed in every image, as iradon does). */
#include "internal.h"
#include "kray/dicom.h"
#include "kray/fbp.h"
#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The peers' Python: $KRAY_PYTHON when set (e.g. a venv with numpy and astra), else Debian's
 * interpreter. KC_PY is expanded by the shell of popen()/system(). */
#define KC_PY "\"${KRAY_PYTHON:-/usr/bin/python3}\""
static const char *kc_py_path(void)
{
    const char *p = getenv("KRAY_PYTHON");
    return p && *p ? p : "/usr/bin/python3";
}
#define KC_PI 3.14159265358979323846
#define KC_CT_SMALL "/usr/lib/python3/dist-packages/pydicom/data/test_files/CT_small.dcm"
#define KC_MAXCASE 12
#define KC_MAXSLICE 3

typedef struct kc_case {
    int backend; /* kr_backend */
    kr_dtype dt;
    int ok;
    char err[256];
    double plan_s, h2d_s, d2h_s, filter_s, bp_s;
    kc_tstats t;    /* over all runs */
    double bat_std; /* standard deviation of the battery means */
    kr_array *img;  /* host result (masked) */
    kr_metrics m;
} kc_case;

typedef struct kc_peer {
    const char *name;
    int ok;
    char err[256];
    kc_tstats t;
    double setup_s;
    kr_array *img;
    kr_metrics m;
} kc_peer;

typedef struct kc_slice {
    const char *name, *what;
    kr_array *truth, *sino; /* f64 host */
    kc_case c[KC_MAXCASE];
    int nc;
    kc_peer p[2];
    int np;
} kc_slice;

/* Zero the pixels outside the reconstruction circle (radius N/2 around pixel N/2). */
static void kc_mask(kr_array *a)
{
    int64_t n = a->dims[0], m = a->dims[1];
    double r = 0.5 * (double)(n < m ? n : m);
    for (int64_t j = 0; j < m; j++)
        for (int64_t i = 0; i < n; i++) {
            double x = (double)(i - n / 2), y = (double)(j - m / 2);
            if (x * x + y * y > r * r) {
                if (a->dtype == KR_F32)
                    ((float *)a->data)[j * n + i] = 0;
                else
                    ((double *)a->data)[j * n + i] = 0;
            }
        }
}

static kr_status kc_geometry(int64_t n, int64_t nv, int64_t nd, kr_ct_geom **g)
{
    kr_ct_scan s;
    kr_ct_scan_default(&s);
    s.nviews = nv;
    s.det_count = nd;
    s.det_spacing_mm = 1;
    s.det_offset_mm = 0.5 * (double)(nd - 1) - (double)(nd / 2) == 0 ? 0 : -0.5;
    kr_ct_grid gr;
    kr_ct_grid_2d(&gr, n, n, 1.0);
    gr.offset_mm[0] = gr.offset_mm[1] = (n % 2) ? 0 : -0.5;
    return kr_ct_geom_create(g, &s, &gr);
}

/* CT_small.dcm as HU [128, 128] via DCMTK, or via pydicom when kray has no DCMTK. */
static kr_status kc_read_ct(const char *path, const char *tmpdir, kr_array **hu)
{
    kr_status s = kr_read_dicom(path, hu, NULL);
    if (s != KR_ERR_NOT_SUPPORTED) return s;
    char raw[1200], cmd[4096];
    snprintf(raw, sizeof raw, "%s/ct_small_hu.raw", tmpdir);
    snprintf(cmd, sizeof cmd,
             KC_PY " -c \"import pydicom, numpy as np\n"
                   "d = pydicom.dcmread('%s')\n"
                   "(d.pixel_array * float(d.RescaleSlope) + float(d.RescaleIntercept))"
                   ".astype('<f4').tofile('%s')\n"
                   "print(d.Columns, d.Rows)\"",
             path, raw);
    FILE *p = popen(cmd, "r");
    long long c = 0, r = 0;
    int got = p ? fscanf(p, "%lld %lld", &c, &r) : 0;
    if (p) pclose(p);
    if (got != 2 || c < 1 || r < 1)
        return kri_fail(KR_ERR_NOT_SUPPORTED,
                        "cannot read %s: kray has no DCMTK and pydicom "
                        "failed",
                        path);
    kr_io_opts io;
    kr_io_opts_default(&io);
    io.raw_dtype = KR_F32;
    io.raw_ndim = 2;
    io.raw_dims[0] = c;
    io.raw_dims[1] = r;
    return kr_read(raw, hu, NULL, &io);
}

/* HU -> attenuation relative to water per pixel (1 + HU/1000, >= 0), bilinear to n x n. */
static kr_status kc_ct_truth(const kr_array *hu, int64_t n, kr_array **out)
{
    int64_t dims[2] = {n, n}, w = hu->dims[0], h = hu->dims[1];
    KRI_TRY(kr_array_create(out, KR_F64, 2, dims, KR_HOST, NULL));
    double *o = (*out)->data;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++) {
            double u = ((double)i + 0.5) * (double)w / (double)n - 0.5;
            double v = ((double)j + 0.5) * (double)h / (double)n - 0.5;
            u = fmin(fmax(u, 0), (double)(w - 1));
            v = fmin(fmax(v, 0), (double)(h - 1));
            int64_t i0 = (int64_t)u, j0 = (int64_t)v;
            int64_t i1 = i0 + 1 < w ? i0 + 1 : i0, j1 = j0 + 1 < h ? j0 + 1 : j0;
            double fu = u - (double)i0, fv = v - (double)j0;
            double a = kr_array_get_f64(hu, j0 * w + i0), b = kr_array_get_f64(hu, j0 * w + i1);
            double c = kr_array_get_f64(hu, j1 * w + i0), d = kr_array_get_f64(hu, j1 * w + i1);
            double val = (1 - fv) * ((1 - fu) * a + fu * b) + fv * ((1 - fu) * c + fu * d);
            o[j * n + i] = fmax(0.0, 1.0 + val / 1000.0);
        }
    return KR_OK;
}

/* Truth and sinogram of one slice. */
static kr_status kc_make_slice(kc_slice *sl, const kr_ct_geom *g, const char *ct_path,
                               const char *tmpdir)
{
    const int64_t n = kr_ct_geom_grid(g)->n[0], nv = kr_ct_geom_nviews(g);
    const int64_t nd = kr_ct_geom_det_count(g);
    if (strcmp(sl->name, "ct") != 0) {
        kr_phantom_kind k =
            strcmp(sl->name, "sl") == 0 ? KR_PHANTOM_SHEPP_LOGAN : KR_PHANTOM_MODIFIED_SL;
        int ne;
        const kr_ellipse *e = kr_phantom_ellipses(k, &ne);
        KRI_TRY(kr_phantom_2d_grid(&sl->truth, e, ne, KR_GRID_FFT, n, n, 4, KR_F64));
        double *th = malloc(sizeof *th * (size_t)nv), *sp = malloc(sizeof *sp * (size_t)nd);
        if (!th || !sp) {
            free(th);
            free(sp);
            return kri_fail(KR_ERR_OOM_HOST, "out of memory for the sinogram grid");
        }
        for (int64_t v = 0; v < nv; v++) th[v] = KC_PI * (double)v / (double)nv;
        for (int64_t k2 = 0; k2 < nd; k2++) sp[k2] = (double)(k2 - nd / 2) * 2.0 / (double)n;
        kr_status s = kr_phantom_sinogram_ellipses(&sl->sino, e, ne, th, nv, sp, nd);
        free(th);
        free(sp);
        KRI_TRY(s);
        double *d = sl->sino->data; /* normalised lengths -> pixels */
        for (int64_t i = 0; i < nv * nd; i++) d[i] *= 0.5 * (double)n;
        return KR_OK;
    }
    kr_array *hu = NULL;
    KRI_TRY(kc_read_ct(ct_path, tmpdir, &hu));
    kr_status s = kc_ct_truth(hu, n, &sl->truth);
    kr_array_destroy(hu);
    KRI_TRY(s);
    /* the slice reaches the image corners (table, body); keep what every view sees, so the
     * projections are not truncated */
    kc_mask(sl->truth);
    kr_ctx *cpu = NULL;
    kr_ct_projector_plan *pr = NULL;
    kr_ct_projector_opts po;
    kr_ct_projector_opts_default(&po);
    po.dtype = KR_F64;
    int64_t sd[2] = {nd, nv};
    if ((s = kr_ctx_create(&cpu, KR_BACKEND_CPU)) == KR_OK &&
        (s = kr_ct_projector_plan_create(&pr, cpu, g, &po)) == KR_OK &&
        (s = kr_array_create(&sl->sino, KR_F64, 2, sd, KR_HOST, NULL)) == KR_OK)
        s = kr_ct_projector_forward(pr, sl->truth, sl->sino);
    kr_ct_projector_plan_destroy(pr);
    kr_ctx_destroy(cpu);
    return s;
}

/* One backend x precision of one slice. */
static void kc_run_case(kc_case *c, const kc_slice *sl, const kr_ct_geom *g, int reps, int bats,
                        int threads)
{
    kr_ctx *ctx = NULL;
    kr_fbp_plan *p = NULL;
    kr_array *s = NULL, *ds = NULL, *img = NULL, *dimg = NULL;
    double *t = calloc((size_t)(reps * bats), sizeof *t), *bm = calloc((size_t)bats, sizeof *bm);
    kr_status st = t && bm ? KR_OK : KR_ERR_OOM_HOST;
    const int gpu = c->backend == KR_BACKEND_CUDA;
    int64_t idims[2];
    kr_ct_geom_image_dims(g, idims);
#define KC_TRY(e)                                                                                  \
    do {                                                                                           \
        if (st == KR_OK) st = (e);                                                                 \
    } while (0)
    KC_TRY(kr_ctx_create(&ctx, (kr_backend)c->backend));
    if (!gpu && threads) KC_TRY(kr_ctx_set_threads(ctx, threads));
    kr_fbp_opts o;
    kr_fbp_opts_default(&o);
    o.dtype = c->dt;
    double t0 = kr_time_now();
    KC_TRY(kr_fbp_plan_create(&p, ctx, g, &o));
    c->plan_s = kr_time_now() - t0;
    KC_TRY(kr_array_astype(&s, sl->sino, c->dt));
    KC_TRY(kr_array_create(&img, c->dt, 2, idims, KR_HOST, NULL));
    if (gpu) {
        c->h2d_s = INFINITY;
        for (int r = 0; r < 3 && st == KR_OK; r++) { /* best of three uploads */
            kr_array_destroy(ds);
            ds = NULL;
            t0 = kr_time_now();
            KC_TRY(kr_array_clone(&ds, s, KR_DEVICE, ctx));
            c->h2d_s = fmin(c->h2d_s, kr_time_now() - t0);
        }
        KC_TRY(kr_array_create(&dimg, c->dt, 2, idims, KR_DEVICE, ctx));
    }
    const kr_array *in = gpu ? ds : s;
    kr_array *out = gpu ? dimg : img;
    KC_TRY(kr_fbp_execute(p, in, out)); /* warm-up, not timed */
    KC_TRY(kc_bench_sync(ctx));
    for (int b = 0; b < bats && st == KR_OK; b++) {
        double sum = 0;
        for (int r = 0; r < reps && st == KR_OK; r++) {
            t0 = kr_time_now();
            KC_TRY(kr_fbp_execute(p, in, out));
            KC_TRY(kc_bench_sync(ctx));
            t[b * reps + r] = kr_time_now() - t0;
            sum += t[b * reps + r];
        }
        bm[b] = sum / reps;
    }
    if (st == KR_OK) {
        kc_tstats_of(t, reps * bats, &c->t);
        kc_tstats bs;
        kc_tstats_of(bm, bats, &bs);
        c->bat_std = bs.std;
    }
    /* filter and backprojection apart (best of the repetitions) */
    c->filter_s = c->bp_s = INFINITY;
    for (int r = 0; r < reps && st == KR_OK; r++) {
        t0 = kr_time_now();
        KC_TRY(kr_fbp_filter(p, in));
        KC_TRY(kc_bench_sync(ctx));
        double t1 = kr_time_now();
        KC_TRY(kr_fbp_backproject(p, out));
        KC_TRY(kc_bench_sync(ctx));
        c->filter_s = fmin(c->filter_s, t1 - t0);
        c->bp_s = fmin(c->bp_s, kr_time_now() - t1);
    }
    if (gpu) {
        t0 = kr_time_now();
        KC_TRY(kr_array_copy(img, dimg, ctx));
        c->d2h_s = kr_time_now() - t0;
    }
#undef KC_TRY
    if (st == KR_OK) {
        kc_mask(img);
        c->img = img;
        img = NULL;
        c->ok = 1;
    } else {
        snprintf(c->err, sizeof c->err, "%s", kr_last_error());
    }
    free(t);
    free(bm);
    kr_fbp_plan_destroy(p);
    kr_array_destroy(s);
    kr_array_destroy(ds);
    kr_array_destroy(img);
    kr_array_destroy(dimg);
    kr_ctx_destroy(ctx);
}

/* Run a Python peer script on the slice's sinogram; it prints one JSON line with
 * "mean_s", "std_s", "min_s", "max_s", "n", "setup_s" and writes the image (f64 raw). */
static void kc_fbp2d_run_peer(kc_peer *pe, const char *script, const kc_slice *sl,
                              const char *tmpdir, const char *geom_json, int reps)
{
    char sino[1200], outp[1200], cmd[6000], line[4096] = "", err[1200];
    int64_t n = sl->truth->dims[0], nd = sl->sino->dims[0], nv = sl->sino->dims[1];
    snprintf(sino, sizeof sino, "%s/%s_sino.raw", tmpdir, sl->name);
    snprintf(outp, sizeof outp, "%s/%s_%s.raw", tmpdir, sl->name, pe->name);
    snprintf(err, sizeof err, "%s/%s_%s.err", tmpdir, sl->name, pe->name);
    FILE *f = fopen(sino, "wb");
    if (!f || fwrite(sl->sino->data, sizeof(double), (size_t)(nd * nv), f) != (size_t)(nd * nv)) {
        if (f) fclose(f);
        snprintf(pe->err, sizeof pe->err, "cannot write %.200s", sino);
        return;
    }
    fclose(f);
    if (snprintf(cmd, sizeof cmd,
                 "PYTHONUNBUFFERED=1 " KC_PY " '%s' --sino '%s' --geom '%s' --size %lld "
                 "--views %lld --det %lld --reps %d --out '%s' 2>'%s'",
                 script, sino, geom_json, (long long)n, (long long)nv, (long long)nd, reps, outp,
                 err) >= (int)sizeof cmd) {
        snprintf(pe->err, sizeof pe->err, "the peer's command line is too long");
        return;
    }
    FILE *p = popen(cmd, "r");
    char buf[4096];
    while (p && fgets(buf, sizeof buf, p))
        if (buf[0] == '{') snprintf(line, sizeof line, "%s", buf);
    int rc = p ? pclose(p) : -1;
    if (rc != 0 || !strstr(line, "\"mean_s\"")) {
        FILE *e = fopen(err, "r");
        char msg[200] = "";
        if (e) {
            char l2[512];
            while (fgets(l2, sizeof l2, e)) /* keep the last line */
                if (l2[0] != '\n') snprintf(msg, sizeof msg, "%.190s", l2);
            fclose(e);
        }
        msg[strcspn(msg, "\n")] = 0;
        const char *x = strstr(line, "\"error\":");
        snprintf(pe->err, sizeof pe->err, "%s failed (exit %d): %s", pe->name, rc,
                 x ? x + 8 : (msg[0] ? msg : "no output"));
        return;
    }
    pe->t.mean = kc_json_num(line, "mean_s");
    pe->t.std = kc_json_num(line, "std_s");
    pe->t.min = kc_json_num(line, "min_s");
    pe->t.max = kc_json_num(line, "max_s");
    pe->t.n = (int)kc_json_num(line, "n");
    pe->setup_s = kc_json_num(line, "setup_s");
    kr_io_opts io;
    kr_io_opts_default(&io);
    io.raw_dtype = KR_F64;
    io.raw_ndim = 2;
    io.raw_dims[0] = n;
    io.raw_dims[1] = n;
    if (kr_read(outp, &pe->img, NULL, &io) != KR_OK) {
        snprintf(pe->err, sizeof pe->err, "%s: unreadable output: %s", pe->name, kr_last_error());
        return;
    }
    kc_mask(pe->img);
    pe->ok = 1;
    remove(outp);
}

static void kc_case_label(const kc_case *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", kr_backend_name((kr_backend)c->backend), kr_dtype_name(c->dt));
}

static double kc_ms(double s) { return s * 1e3; }

/* PSNR and max |difference| of two cases that ran, and their labels (len bytes each); 0 when
 * either failed. */
static int kc_case_pair(const kc_case *x, const kc_case *y, kr_metrics *pm, char *lab, char *lab2,
                        size_t len)
{
    if (!x->ok || !y->ok) return 0;
    kr_metrics_compute(NULL, x->img, y->img, x->m.range > 0 ? x->m.range : 1.0, pm);
    kc_case_label(x, lab, len);
    kc_case_label(y, lab2, len);
    return 1;
}

int kc_bench_fbp2d(int argc, char **argv)
{
    int64_t n = 512, nv = 720, nd = 0;
    int reps = 10, bats = 5, peer_reps = 3, quick = 0;
    const char *slices = "sl,msl,ct", *backends = "auto", *precs = "f32,f64", *peers = "auto";
    const char *chart = "bench_fbp2d.svg", *ct_path = KC_CT_SMALL, *peer_dir = NULL;
    int g_size = 0, g_views = 0, g_reps = 0, g_bats = 0;
    const kc_opt opts[] = {
        {"size", 'n', KC_INT64, &n, "512", "N", "image size N x N (pixels of 1 mm)", NULL, 8, 16384,
         &g_size},
        {"views", 0, KC_INT64, &nv, "720", "N", "views over 180 degrees", NULL, 1, 1e6, &g_views},
        {"det", 0, KC_INT64, &nd, "0", "N", "detector pixels (0 = N)", NULL, 0, 1e6, NULL},
        {"reps", 0, KC_INT, &reps, "10", "N", "timed repetitions per battery", NULL, 1, 1e6,
         &g_reps},
        {"batteries", 0, KC_INT, &bats, "5", "B", "batteries", NULL, 1,
         1e6, &g_bats},
        {"cases", 0, KC_STRING, &slices, "sl,msl,ct", "LIST",
         "sl (Shepp-Logan), msl (modified), ct (CT_small.dcm), comma-separated", NULL, 0, 0, NULL},
        {"backends", 0, KC_STRING, &backends, "auto", "LIST",
         "cpu-serial,cpu,cuda (auto: all usable)", NULL, 0, 0, NULL},
        {"precisions", 0, KC_STRING, &precs, "f32,f64", "LIST", "f32, f64", NULL, 0, 0, NULL},
        {"peers", 0, KC_STRING, &peers, "auto", "LIST",
         "skimage (iradon), astra (FBP_CUDA), none; auto: skimage when installed, astra on a GPU "
         "machine when importable",
         NULL, 0, 0, NULL},
        {"peer-reps", 0, KC_INT, &peer_reps, "3", "N", "timed repetitions of each peer", NULL, 1,
         1000, NULL},
        {"peer-dir", 0, KC_STRING, &peer_dir, NULL, "DIR",
         "directory of peer_*.py (default: $KRAY_SRC/bench, ./bench, next to the executable)", NULL,
         0, 0, NULL},
        {"ct", 0, KC_STRING, &ct_path, KC_CT_SMALL, "FILE", "the real CT slice (DICOM)", NULL, 0, 0,
         NULL},
        {"chart", 0, KC_STRING, &chart, "bench_fbp2d.svg", "FILE",
         "SVG bar chart of the mean times (none = no chart)", NULL, 0, 0, NULL},
        {"quick", 0, KC_FLAG, &quick, NULL, NULL,
         "256^2 from 360 views, 3 repetitions x 2 batteries (unless given)", NULL, 0, 0, NULL},
        {0}};
    const kc_spec spec = {
        "bench fbp2d",
        "The 2-D FBP benchmark battery: slices (Shepp-Logan original and modified with exact\n"
        "sinograms; CT_small.dcm resampled and forward-projected) x backends (cpu-serial, cpu,\n"
        "cuda) x precisions (f32, f64); batteries x repetitions of kr_fbp_execute with the data\n"
        "where the backend computes. Reports plan, transfer, filter and backprojection times\n"
        "apart; mean, standard deviation and min; PSNR / SSIM / NRMSE against the ground truth\n"
        "and between backends; peers (scikit-image iradon, ASTRA FBP_CUDA) on the same sinogram\n"
        "and grid, with the speed ratio. A table on stdout (JSON lines with --json) and an SVG\n"
        "chart of the mean times.",
        opts,
        NULL,
        KC_JSON,
        "Examples:\n  kray bench fbp2d\n  kray bench fbp2d --quick --json > fbp2d.jsonl\n"
        "  kray bench fbp2d --size 2048 --views 2048 --det 3072 --cases sl --backends cuda "
        "--precisions f32 --peers astra",
        NULL,
        NULL};
    kc_common cm;
    int r = kc_parse(&spec, &cm, argc, argv);
    if (r) return r < 0 ? 0 : r;
    if (quick) {
        if (!g_size) n = 256;
        if (!g_views) nv = 360;
        if (!g_reps) reps = 3;
        if (!g_bats) bats = 2;
    }
    if (nd == 0) nd = n;
    const char *tool = "bench fbp2d";
    static const char *const bnames[3] = {"cpu-serial", "cpu", "cuda"},
                             *const pnames[2] = {"f32", "f64"},
                             *const snames[KC_MAXSLICE] = {"sl", "msl", "ct"};
    if ((strcmp(backends, "auto") && (r = kc_bench_list_check(tool, "backends", backends,
                                                                bnames, 3)) != 0) ||
        (r = kc_bench_list_check(tool, "precisions", precs, pnames, 2)) != 0 ||
        (r = kc_bench_list_check(tool, "cases", slices, snames, KC_MAXSLICE)) != 0)
        return r;

    /* backends and precisions */
    int be[3], nbe = 0, gpu_ok = 0, ndev = 0;
    gpu_ok = kr_cuda_device_count(&ndev) == KR_OK && ndev > 0;
    for (int i = 0; i < 3; i++) {
        if (!strcmp(backends, "auto") ? (i < 2 || gpu_ok) : kc_bench_has(backends, bnames[i])) {
            if (i == 2 && !gpu_ok) return kc_usage(tool, "--backends cuda: no usable CUDA device");
            be[nbe++] = i + 1;
        }
    }
    kr_dtype pr[2];
    int npr = 0;
    if (kc_bench_has(precs, "f32")) pr[npr++] = KR_F32;
    if (kc_bench_has(precs, "f64")) pr[npr++] = KR_F64;
    if (!nbe || !npr)
        return kc_usage(tool,
                        "no backend or precision selected (--backends '%s', --precisions "
                        "'%s')",
                        backends, precs);
    const char *swhat[KC_MAXSLICE] = {"Shepp-Logan (original contrast), exact sinogram",
                                      "Shepp-Logan (modified contrast), exact sinogram",
                                      "CT_small.dcm resampled, inside the circle, Joseph projection"};
    kc_slice sl[KC_MAXSLICE];
    int nsl = 0;
    memset(sl, 0, sizeof sl);
    for (int i = 0; i < KC_MAXSLICE; i++)
        if (kc_bench_has(slices, snames[i])) sl[nsl].name = snames[i], sl[nsl].what = swhat[i], nsl++;
    if (!nsl) return kc_usage(tool, "--cases '%s' selects none of sl, msl, ct", slices);

    /* peers */
    char sk_script[4096] = "", as_script[4096] = "";
    int use_sk = 0, use_as = 0;
    int peers_auto = !strcmp(peers, "auto");
    if (peers_auto || kc_bench_has(peers, "skimage")) {
        int found =
            kc_bench_find_script(peer_dir, argv[0], "peer_skimage.py", sk_script, sizeof sk_script);
        int avail = found && access(kc_py_path(), X_OK) == 0 &&
                    system(KC_PY " -c 'import skimage.transform' >/dev/null 2>&1") == 0;
        if (!avail && !peers_auto)
            return kc_usage(tool, "--peers skimage: %s",
                            found ? "scikit-image is not importable by the peer Python ($KRAY_PYTHON or /usr/bin/python3)"
                                  : "bench/peer_skimage.py not found (--peer-dir)");
        use_sk = avail;
    }
    if (kc_bench_has(peers, "astra") || (peers_auto && gpu_ok)) {
        int found = kc_bench_find_script(peer_dir, argv[0], "peer_astra.py", as_script, sizeof as_script);
        int avail = found && access(kc_py_path(), X_OK) == 0 &&
                    system(KC_PY " -c 'import astra' >/dev/null 2>&1") == 0;
        if (!avail && !peers_auto)
            fprintf(stderr,
                    "kray bench fbp2d: ASTRA peer unavailable (%s); continuing without it\n",
                    found ? "python module astra not importable by the peer Python ($KRAY_PYTHON or /usr/bin/python3)"
                          : "bench/peer_astra.py not found");
        use_as = avail;
    }

    char tmpdir[] = "/tmp/kray_bench_fbp2dXXXXXX";
    if (!mkdtemp(tmpdir)) {
        fprintf(stderr, "kray bench fbp2d: cannot create a temporary directory\n");
        return KC_EXIT_INPUT;
    }
    kr_ct_geom *g = NULL;
    kr_status s = kc_geometry(n, nv, nd, &g);
    if (s != KR_OK) {
        rmdir(tmpdir);
        return kc_fail(tool, s);
    }
    char geom_json[1200];
    snprintf(geom_json, sizeof geom_json, "%s/geometry.json", tmpdir);
    if ((s = kr_ct_geom_write_json(g, geom_json, 1)) != KR_OK) {
        kr_ct_geom_destroy(g);
        rmdir(tmpdir);
        return kc_fail(tool, s);
    }
    char cpu[512], gpu[512];
    kc_bench_machine(cpu, sizeof cpu, gpu, sizeof gpu);
    if (!cm.json) {
        printf("kray bench fbp2d: %lldx%lld from %lld views x %lld detectors (parallel beam, "
               "Ram-Lak, FFT filter), %d repetitions x %d batteries\nCPU: %s\nGPU: %s\n\n",
               (long long)n, (long long)n, (long long)nv, (long long)nd, reps, bats, cpu, gpu);
        fflush(stdout);
    }
    int failed = 0;
    for (int i = 0; i < nsl; i++) {
        kc_slice *S = &sl[i];
        if ((s = kc_make_slice(S, g, ct_path, tmpdir)) != KR_OK) {
            fprintf(stderr, "kray bench fbp2d: slice %s skipped: %s\n", S->name, kr_last_error());
            S->truth = NULL;
            continue;
        }
        kc_mask(S->truth);
        for (int b = 0; b < nbe; b++)
            for (int q = 0; q < npr; q++) {
                kc_case *c = &S->c[S->nc++];
                c->backend = be[b];
                c->dt = pr[q];
                kc_run_case(c, S, g, reps, bats, cm.threads);
                if (c->ok) {
                    kr_metrics_compute(NULL, c->img, S->truth, 0, &c->m);
                } else {
                    failed = 1;
                    fprintf(stderr, "kray bench fbp2d: %s %s/%s failed: %s\n", S->name,
                            bnames[be[b] - 1], kr_dtype_name(pr[q]), c->err);
                }
            }
        if (use_sk) S->p[S->np++].name = "skimage";
        if (use_as) S->p[S->np++].name = "astra";
        for (int k = 0; k < S->np; k++) {
            kc_peer *pe = &S->p[k];
            kc_fbp2d_run_peer(pe, k == 0 && use_sk ? sk_script : as_script, S, tmpdir, geom_json,
                              peer_reps);
            if (pe->ok)
                kr_metrics_compute(NULL, pe->img, S->truth, 0, &pe->m);
            else
                fprintf(stderr, "kray bench fbp2d: %s\n", pe->err);
        }
        char sp[1200];
        snprintf(sp, sizeof sp, "%s/%s_sino.raw", tmpdir, S->name);
        remove(sp);

        /* report the slice */
        char lab[64], lab2[64];
        if (cm.json) {
            for (int k = 0; k < S->nc; k++) {
                const kc_case *c = &S->c[k];
                kc_jo j;
                kc_jo_begin(&j);
                kc_jo_str(&j, "bench", "fbp2d");
                kc_jo_str(&j, "case", S->name);
                kc_jo_str(&j, "backend", kr_backend_name((kr_backend)c->backend));
                kc_jo_str(&j, "precision", kr_dtype_name(c->dt));
                if (!c->ok) {
                    kc_jo_str(&j, "error", c->err);
                    kc_jo_end(&j);
                    continue;
                }
                kc_jo_int(&j, "size", n);
                kc_jo_int(&j, "views", nv);
                kc_jo_int(&j, "det", nd);
                kc_jo_int(&j, "reps", reps);
                kc_jo_int(&j, "batteries", bats);
                const char *keys[] = {"plan_s", "mean_s",        "std_s",          "min_s",
                                      "max_s",  "battery_std_s", "filter_s",       "backproject_s",
                                      "h2d_s",  "d2h_s",         "host_to_host_s", "psnr_db",
                                      "ssim",   "nrmse",         "maxerr"};
                int g2 = c->backend == KR_BACKEND_CUDA;
                double vals[] = {c->plan_s,
                                 c->t.mean,
                                 c->t.std,
                                 c->t.min,
                                 c->t.max,
                                 c->bat_std,
                                 c->filter_s,
                                 c->bp_s,
                                 g2 ? c->h2d_s : 0,
                                 g2 ? c->d2h_s : 0,
                                 g2 ? c->h2d_s + c->t.min + c->d2h_s : c->t.min,
                                 c->m.psnr,
                                 c->m.ssim,
                                 c->m.nrmse,
                                 c->m.maxerr};
                for (int v = 0; v < 15; v++) kc_jo_num(&j, keys[v], vals[v]);
                kc_jo_str(&j, "cpu", cpu);
                kc_jo_str(&j, "gpu", gpu);
                kc_jo_end(&j);
            }
            for (int k = 0; k < S->np; k++) {
                const kc_peer *pe = &S->p[k];
                kc_jo j;
                kc_jo_begin(&j);
                kc_jo_str(&j, "bench", "fbp2d");
                kc_jo_str(&j, "case", S->name);
                kc_jo_str(&j, "peer", pe->name);
                if (!pe->ok) {
                    kc_jo_str(&j, "error", pe->err);
                    kc_jo_end(&j);
                    continue;
                }
                const char *keys[] = {"setup_s", "mean_s", "std_s", "min_s",
                                      "psnr_db", "ssim",   "nrmse"};
                double vals[] = {pe->setup_s, pe->t.mean, pe->t.std,  pe->t.min,
                                 pe->m.psnr,  pe->m.ssim, pe->m.nrmse};
                kc_jo_int(&j, "reps", pe->t.n);
                for (int v = 0; v < 7; v++) kc_jo_num(&j, keys[v], vals[v]);
                for (int q = 0; q < S->nc; q++)
                    if (S->c[q].ok && S->c[q].t.mean > 0) {
                        char key[80];
                        kc_case_label(&S->c[q], lab, sizeof lab);
                        snprintf(key, sizeof key, "ratio_%s", lab);
                        kc_jo_num(&j, key, pe->t.mean / S->c[q].t.mean);
                    }
                kc_jo_end(&j);
            }
        } else {
            printf("slice %s: %s\n", S->name, S->what);
            printf("  %-16s %9s %9s %9s %9s %9s %9s %9s %8s %7s %8s\n", "backend/prec", "plan ms",
                   "mean ms", "std ms", "min ms", "filter", "backproj", "xfer ms", "PSNR dB",
                   "SSIM", "NRMSE");
            for (int k = 0; k < S->nc; k++) {
                const kc_case *c = &S->c[k];
                kc_case_label(c, lab, sizeof lab);
                if (!c->ok) {
                    printf("  %-16s failed: %s\n", lab, c->err);
                    continue;
                }
                printf("  %-16s %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %8.3f %7.4f %8.5f\n", lab,
                       kc_ms(c->plan_s), kc_ms(c->t.mean), kc_ms(c->t.std), kc_ms(c->t.min),
                       kc_ms(c->filter_s), kc_ms(c->bp_s),
                       c->backend == KR_BACKEND_CUDA ? kc_ms(c->h2d_s + c->d2h_s) : 0.0, c->m.psnr,
                       c->m.ssim, c->m.nrmse);
            }
            for (int k = 0; k < S->np; k++) {
                const kc_peer *pe = &S->p[k];
                if (!pe->ok) {
                    printf("  peer %-11s %s\n", pe->name, pe->err);
                    continue;
                }
                printf("  peer %-11s %9.3f %9.3f %9.3f %9.3f %9s %9s %9s %8.3f %7.4f %8.5f\n",
                       pe->name, kc_ms(pe->setup_s), kc_ms(pe->t.mean), kc_ms(pe->t.std),
                       kc_ms(pe->t.min), "", "", "", pe->m.psnr, pe->m.ssim, pe->m.nrmse);
                for (int q = 0; q < S->nc; q++)
                    if (S->c[q].ok) {
                        kc_case_label(&S->c[q], lab, sizeof lab);
                        printf("    kray %-14s is %8.1fx faster than %s (mean times)\n", lab,
                               pe->t.mean / S->c[q].t.mean, pe->name);
                    }
            }
            printf("  pairwise PSNR dB (inf = bit-identical) / max |difference|:\n");
            for (int a2 = 0; a2 < S->nc; a2++)
                for (int b2 = a2 + 1; b2 < S->nc; b2++) {
                    kr_metrics pm;
                    if (!kc_case_pair(&S->c[a2], &S->c[b2], &pm, lab, lab2, sizeof lab)) continue;
                    printf("    %-16s vs %-16s %8.2f / %.3g\n", lab, lab2, pm.psnr, pm.maxerr);
                }
            printf("\n");
        }
        if (cm.json) /* pairwise lines */
            for (int a2 = 0; a2 < S->nc; a2++)
                for (int b2 = a2 + 1; b2 < S->nc; b2++) {
                    kr_metrics pm;
                    if (!kc_case_pair(&S->c[a2], &S->c[b2], &pm, lab, lab2, sizeof lab)) continue;
                    kc_jo j;
                    kc_jo_begin(&j);
                    kc_jo_str(&j, "bench", "fbp2d");
                    kc_jo_str(&j, "case", S->name);
                    kc_jo_array(&j, "pair");
                    kc_jo_str(&j, NULL, lab);
                    kc_jo_str(&j, NULL, lab2);
                    kc_jo_end_array(&j);
                    kc_jo_num(&j, "psnr_db", pm.psnr);
                    kc_jo_bool(&j, "identical", pm.maxerr == 0);
                    kc_jo_num(&j, "maxerr", pm.maxerr);
                    kc_jo_num(&j, "ssim", pm.ssim);
                    kc_jo_end(&j);
                }
        fflush(stdout);
    }

    /* chart: mean over slices of each backend/precision (and peers), std as error bars */
    if (chart && chart[0] && strcmp(chart, "none") != 0) {
        kc_bar bars[KC_MAXCASE + 2];
        char labels[KC_MAXCASE + 2][64];
        int nb = 0;
        int ncase = 0;
        for (int i = 0; i < nsl; i++) ncase = sl[i].nc > ncase ? sl[i].nc : ncase;
        for (int k = 0; k < ncase + 2; k++) {
            double sum = 0, sd = 0;
            int cnt = 0;
            for (int i = 0; i < nsl; i++) {
                if (k < ncase) {
                    if (k < sl[i].nc && sl[i].c[k].ok) {
                        sum += sl[i].c[k].t.mean, sd += sl[i].c[k].t.std, cnt++;
                        kc_case_label(&sl[i].c[k], labels[nb], sizeof labels[nb]);
                    }
                } else {
                    int pk = k - ncase;
                    if (pk < sl[i].np && sl[i].p[pk].ok) {
                        sum += sl[i].p[pk].t.mean, sd += sl[i].p[pk].t.std, cnt++;
                        snprintf(labels[nb], sizeof labels[nb], "%s", sl[i].p[pk].name);
                    }
                }
            }
            if (!cnt) continue;
            bars[nb].label = labels[nb];
            bars[nb].value = sum / cnt * 1e3;
            bars[nb].err = sd / cnt * 1e3;
            bars[nb].colour = k < ncase ? (sl[0].c[k].backend - 1) * 2 + (sl[0].c[k].dt == KR_F64)
                                        : 6 + (k - ncase);
            nb++;
        }
        char title[256];
        snprintf(title, sizeof title, "kray fbp2d: %lldx%lld from %lld views (mean over slices)",
                 (long long)n, (long long)n, (long long)nv);
        if (kc_svg_bars(chart, title, "time per FBP (ms, log scale)", bars, nb) != 0)
            fprintf(stderr, "kray bench fbp2d: cannot write the chart %s\n", chart);
        else if (!cm.json)
            printf("chart: %s\n", chart);
    }
    for (int i = 0; i < nsl; i++) {
        kr_array_destroy(sl[i].truth);
        kr_array_destroy(sl[i].sino);
        for (int k = 0; k < sl[i].nc; k++) kr_array_destroy(sl[i].c[k].img);
        for (int k = 0; k < sl[i].np; k++) kr_array_destroy(sl[i].p[k].img);
    }
    remove(geom_json);
    char junk[1200];
    for (int i = 0; i < nsl; i++)
        for (int k = 0; k < 2; k++) {
            snprintf(junk, sizeof junk, "%s/%s_%s.err", tmpdir, sl[i].name,
                     k ? "astra" : "skimage");
            remove(junk);
        }
    snprintf(junk, sizeof junk, "%s/ct_small_hu.raw", tmpdir);
    remove(junk);
    rmdir(tmpdir);
    kr_ct_geom_destroy(g);
    return failed ? KC_EXIT_INPUT : 0;
}
