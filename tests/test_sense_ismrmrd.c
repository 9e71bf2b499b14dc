/* ISMRMRD: files made by ismrmrd_generate_cartesian_shepp_logan (Debian ismrmrd-tools), read by
 * kray and reconstructed: root-sum-of-squares against ismrmrd_recon_cartesian_2d (Debian's 1.8
 * tool combines the coils by RSS and stores the image as "cpp"; unaccelerated), optimal
 * combination with the file's coil maps against its phantom, SENSE of accelerated files
 * (interleaved calibration, embedded ACS lines, noise scans -> Psi, R = 3 on 128 lines);
 * round trip of kr_ismrmrd_write (and the reference tool reading kray's files); damaged and
 * inconsistent files. Skips (77) without libismrmrd or the tools. */
#include "kray/ismrmrd.h"
#include "test_sense_util.h"

#include <stdio.h>
#include <sys/stat.h>

#if defined(__has_include)
#if __has_include(<ismrmrd/dataset.h>) && __has_include(<hdf5.h>) /* include path from libismrmrd  \
                                                                   */
#include <ismrmrd/dataset.h>
#define KT_HAVE_ISMRMRD_API 1
#endif
#endif

static kr_ctx *g_ctx;

static int run(const char *fmt, const char *a, const char *b)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, fmt, a, b);
    return system(cmd);
}

/* Least-squares scale s minimising ||s a - b|| (real, a and b real magnitudes), and the NRMSE
 * ||s a - b|| / ||b||. */
static double scaled_nrmse(const float *a, const float *b, int64_t n, int astride, int bstride,
                           double *scale)
{
    double ab = 0, aa = 0, bb = 0;
    for (int64_t i = 0; i < n; i++) {
        double x = a[astride * i], y = b[bstride * i];
        ab += x * y;
        aa += x * x;
        bb += y * y;
    }
    double s = ab / aa, e = 0;
    for (int64_t i = 0; i < n; i++) {
        double d = s * a[astride * i] - b[bstride * i];
        e += d * d;
    }
    if (scale) *scale = s;
    return sqrt(e / bb);
}

/* The image ismrmrd_recon_cartesian_2d appended: Debian's 1.8 tool names it "cpp", upstream's
 * source "myimage". */
static kr_array *reference_image(const char *path)
{
    kr_array *ref = NULL;
    if (kr_ismrmrd_read_image(path, NULL, "cpp", 0, &ref) != KR_OK)
        KT_OK(kr_ismrmrd_read_image(path, NULL, "myimage", 0, &ref));
    return ref;
}

static kr_array *magnitude(const kr_array *c)
{
    kr_array *m = NULL;
    int64_t n = kr_array_numel(c);
    KT_OK(kr_array_create(&m, KR_F32, c->ndim, c->dims, KR_HOST, NULL));
    const float *v = c->data;
    float *o = m->data;
    for (int64_t i = 0; i < n; i++) o[i] = (float)hypot(v[2 * i], v[2 * i + 1]);
    return m;
}

/* Unaccelerated file: header, RSS vs the reference recon, optimal combination vs phantom. */
static void test_unaccelerated(void)
{
    const char *f = kt_tmp("ismrmrd_full.h5");
    KT_CHECK(
        run("ismrmrd_generate_cartesian_shepp_logan -m 128 -c 8 -n 0.01 -o '%s' > /dev/null 2>&1%s",
            f, "") == 0);
    KT_CHECK(run("ismrmrd_recon_cartesian_2d '%s' > /dev/null 2>&1%s", f, "") == 0);
    kr_ismrmrd_data d;
    KT_OK(kr_ismrmrd_read(f, NULL, &d));
    KT_CHECK(d.nx == 128 && d.ny == 128 && d.nc == 8);
    KT_CHECK(d.enc_matrix[0] == 256 && d.enc_matrix[1] == 128 && d.recon_matrix[0] == 128);
    KT_NEAR(d.enc_fov_mm[0], 600, 1e-9);
    KT_NEAR(d.recon_fov_mm[1], 300, 1e-9);
    KT_CHECK(d.accel == 1 && d.repetitions == 1 && d.calib == NULL && d.noise == NULL);
    KT_CHECK(kr_cartesian_count(d.lines, d.ny, KR_LINE_IMAGING) == 128 && d.acquisitions == 128);
    kr_array *ci = NULL, *ref = NULL;
    KT_OK(kr_array_create_like(&ci, d.kspace, KR_HOST, NULL));
    KT_OK(kr_coil_images(g_ctx, d.kspace, ci));
    ref = reference_image(f);
    KT_CHECK(ref && ref->dtype == KR_F32 && ref->dims[0] == 128 && ref->dims[1] == 128);
    kr_array *mag = NULL;
    int64_t d2[2] = {128, 128};
    KT_OK(kr_array_create(&mag, KR_F32, 2, d2, KR_HOST, NULL));
    KT_OK(kr_coil_rss(g_ctx, ci, mag));
    if (ref && kr_array_numel(ref) == 128 * 128) {
        double s = 0, e = scaled_nrmse(mag->data, ref->data, 128 * 128, 1, 1, &s);
        printf("  kray RSS image vs ismrmrd_recon_cartesian_2d: NRMSE %.3g after scale %.6g "
               "(expected sqrt(256 * 128) = %.6g: unnormalised vs unitary FFT)\n",
               e, s, sqrt(256.0 * 128.0));
        KT_LE(e, 1e-5);
        KT_NEAR(s / sqrt(256.0 * 128.0), 1.0, 1e-5);
    }
    /* optimal combination with the file's coil maps ("csm") vs its phantom */
    kr_array *csm = NULL, *ph = NULL, *comb = NULL;
    KT_OK(kr_ismrmrd_read_array(f, NULL, "csm", 0, &csm));
    KT_OK(kr_ismrmrd_read_array(f, NULL, "phantom", 0, &ph));
    KT_CHECK(csm && csm->dtype == KR_C64 && kr_array_numel(csm) == 128 * 128 * 8);
    KT_OK(kr_array_create(&comb, KR_C64, 2, d2, KR_HOST, NULL));
    if (csm && ph) {
        KT_OK(kr_coil_combine(g_ctx, ci, csm, NULL, comb));
        kr_array *cm = magnitude(comb), *pm = magnitude(ph);
        double s2 = 0, e2 = scaled_nrmse(cm->data, pm->data, 128 * 128, 1, 1, &s2);
        printf("  optimal combination with the file's maps vs its phantom: NRMSE %.3g (noise 0.01 "
               "per sample)\n",
               e2);
        KT_LE(e2, 0.04);
        kr_array_destroy(cm);
        kr_array_destroy(pm);
    }
    kr_array_destroy(mag);
    kr_array_destroy(ci);
    kr_array_destroy(ref);
    kr_array_destroy(csm);
    kr_array_destroy(ph);
    kr_array_destroy(comb);
    kr_ismrmrd_data_destroy(&d);
}

/* Accelerated files: repetitions with interleaved lines, embedded ACS, noise scans. */
static void test_accelerated(void)
{
    const char *full = kt_tmp("ismrmrd_ref.h5");
    KT_CHECK(
        run("ismrmrd_generate_cartesian_shepp_logan -m 128 -c 8 -n 0.01 -o '%s' > /dev/null 2>&1%s",
            full, "") == 0);
    kr_ismrmrd_data r;
    KT_OK(kr_ismrmrd_read(full, NULL, &r));
    kr_array *ph = NULL;
    KT_OK(kr_ismrmrd_read_array(full, NULL, "phantom", 0, &ph));
    static const int accel[2] = {2, 3};
    for (int t = 0; t < 2; t++) {
        const char *f = kt_tmp(t ? "ismrmrd_r3.h5" : "ismrmrd_r2.h5");
        char opt[64];
        snprintf(opt, sizeof opt, "-a %d -w 16 -C -n 0.01", accel[t]);
        KT_CHECK(
            run("ismrmrd_generate_cartesian_shepp_logan -m 128 -c 8 %s -o '%s' > /dev/null 2>&1",
                opt, f) == 0);
        kr_ismrmrd_data d;
        KT_OK(kr_ismrmrd_read(f, NULL, &d));
        int64_t nimg = kr_cartesian_count(d.lines, d.ny, KR_LINE_IMAGING);
        int64_t ncal = kr_cartesian_count(d.lines, d.ny, KR_LINE_CALIBRATION);
        printf("  -a %d: R %d, %d repetitions, calibration '%s', %lld lattice lines, %lld "
               "calibration lines, noise %lld samples\n",
               accel[t], d.accel, d.repetitions, d.calibration_mode, (long long)nimg,
               (long long)ncal, d.noise ? (long long)d.noise->dims[0] : 0LL);
        KT_CHECK(d.accel == accel[t] && d.repetitions == accel[t]);
        KT_CHECK(strcmp(d.calibration_mode, "interleaved") == 0);
        KT_CHECK(ncal == 16 && d.calib != NULL && d.psi != NULL);
        /* lattice lines j = 0 (mod R), every line of the calibration block */
        int ok = 1;
        for (int64_t j = 0; j < d.ny; j++) {
            int lat = j % accel[t] == 0, cal = j >= 56 && j < 72;
            ok &= ((d.lines[j] & KR_LINE_IMAGING) != 0) == lat;
            ok &= ((d.lines[j] & KR_LINE_CALIBRATION) != 0) == cal;
        }
        KT_CHECK(ok);
        /* Psi from the noise scan: the generator adds independent noise of equal level */
        if (d.psi) {
            const double *p = d.psi->data;
            double dmin = 1e300, dmax = 0, off = 0;
            for (int64_t i = 0; i < d.nc; i++) {
                dmin = fmin(dmin, p[2 * (i + d.nc * i)]);
                dmax = fmax(dmax, p[2 * (i + d.nc * i)]);
                for (int64_t j = 0; j < d.nc; j++)
                    if (i != j)
                        off = fmax(off, hypot(p[2 * (i + d.nc * j)], p[2 * (i + d.nc * j) + 1]));
            }
            printf("     Psi diagonal %.3g .. %.3g, largest off-diagonal %.3g\n", dmin, dmax, off);
            /* -n 0.01 is the standard deviation of the real and of the imaginary part: the
             * complex variance is 2e-4; 256 samples estimate it to about 6 % */
            KT_LE(off, 0.5 * dmin);
            KT_GE(dmin, 1.6e-4);
            KT_LE(dmax, 2.4e-4);
        }
        /* ESPIRiT maps from the time-interleaved calibration (all repetitions), SENSE of rep 0 */
        kr_array *maps = NULL, *img = NULL;
        KT_OK(kr_espirit(g_ctx, d.calib, NULL, &maps, NULL));
        int64_t d2[2] = {d.nx, d.ny};
        KT_OK(kr_array_create(&img, KR_C64, 2, d2, KR_HOST, NULL));
        uint8_t *lat = malloc((size_t)d.ny);
        for (int64_t j = 0; j < d.ny; j++) lat[j] = d.lines[j] & KR_LINE_IMAGING;
        kr_sense_opts o;
        kr_sense_opts_default(&o);
        o.lines = lat;
        o.psi = d.psi;
        kr_sense_plan *p = NULL;
        KT_OK(kr_sense_plan_create(&p, g_ctx, maps, &o));
        KT_OK(kr_sense_execute(p, d.kspace, img, NULL));
        kr_sense_info info;
        KT_OK(kr_sense_plan_info(p, &info));
        /* reference: unaccelerated file, optimal combination with the same maps */
        kr_array *ci = NULL, *comb = NULL;
        KT_OK(kr_array_create_like(&ci, r.kspace, KR_HOST, NULL));
        KT_OK(kr_coil_images(g_ctx, r.kspace, ci));
        KT_OK(kr_array_create(&comb, KR_C64, 2, d2, KR_HOST, NULL));
        KT_OK(kr_coil_combine(g_ctx, ci, maps, NULL, comb));
        kr_array *a = magnitude(img), *b = magnitude(comb), *pm = magnitude(ph);
        double s = 0, e = scaled_nrmse(a->data, b->data, d.nx * d.ny, 1, 1, &s);
        double e2 = scaled_nrmse(a->data, pm->data, d.nx * d.ny, 1, 1, &s);
        printf("     SENSE (%s path) vs unaccelerated combination: NRMSE %.3g; vs phantom %.3g\n",
               info.method == KR_SENSE_LATTICE ? "lattice" : "general", e, e2);
        KT_CHECK(info.method == (accel[t] == 2 ? KR_SENSE_LATTICE : KR_SENSE_GENERAL));
        /* noise 0.01, amplified by g (8 birdcage coils): R = 2 ~0.04, R = 3 ~0.10 */
        KT_LE(e, accel[t] == 2 ? 0.05 : 0.12);
        KT_LE(e2, accel[t] == 2 ? 0.09 : 0.15);
        free(lat);
        kr_sense_plan_destroy(p);
        kr_array_destroy(maps);
        kr_array_destroy(img);
        kr_array_destroy(ci);
        kr_array_destroy(comb);
        kr_array_destroy(a);
        kr_array_destroy(b);
        kr_array_destroy(pm);
        kr_ismrmrd_data_destroy(&d);
    }
    /* another repetition and the readout kept oversampled */
    kr_ismrmrd_read_opts ro;
    kr_ismrmrd_read_opts_default(&ro);
    ro.repetition = 1;
    ro.remove_oversampling = 0;
    kr_ismrmrd_data d1;
    KT_OK(kr_ismrmrd_read(kt_tmp("ismrmrd_r2.h5"), &ro, &d1));
    KT_CHECK(d1.nx == 256 && (d1.lines[1] & KR_LINE_IMAGING) && !(d1.lines[2] & KR_LINE_IMAGING));
    kr_ismrmrd_data_destroy(&d1);
    ro.repetition = 5;
    KT_STATUS(kr_ismrmrd_read(kt_tmp("ismrmrd_r2.h5"), &ro, &d1), KR_ERR_FORMAT);
    kr_array_destroy(ph);
    kr_ismrmrd_data_destroy(&r);
}

/* kray writes, kray and the reference tools read. */
static void test_round_trip(void)
{
    const int64_t nx = 64, ny = 48, nc = 4;
    kr_array *maps = kts_maps(nx, ny, nc), *obj = kts_object(nx, ny);
    kr_array *k = kts_kspace(g_ctx, obj, maps), *noise = NULL;
    int64_t dn[2] = {300, nc};
    KT_OK(kr_array_create(&noise, KR_C64, 2, dn, KR_HOST, NULL));
    kr_array *psi = kts_psi(nc, 1);
    KT_OK(kr_noise_add(g_ctx, noise, 1, psi, 0.1, 2));
    uint8_t lines[48];
    KT_OK(kr_cartesian_lines(lines, ny, 3, 1, 8));
    KT_OK(kr_cartesian_undersample(g_ctx, k, lines));
    kr_ismrmrd_write_opts wo;
    kr_ismrmrd_write_opts_default(&wo);
    wo.accel = 3;
    wo.fov_mm[0] = 220;
    const char *f = kt_tmp("ismrmrd_rt.h5");
    KT_OK(kr_ismrmrd_write(f, &wo, k, lines, noise));
    kr_ismrmrd_data d;
    KT_OK(kr_ismrmrd_read(f, NULL, &d));
    KT_CHECK(d.nx == nx && d.ny == ny && d.nc == nc && d.accel == 3 && d.repetitions == 1);
    KT_NEAR(d.enc_fov_mm[0], 220, 1e-6);
    KT_CHECK(memcmp(d.lines, lines, (size_t)ny) == 0);
    KT_CHECK(memcmp(d.kspace->data, k->data, kr_array_bytes(k)) == 0);
    KT_CHECK(d.noise && memcmp(d.noise->data, noise->data, kr_array_bytes(noise)) == 0);
    kr_array *pref = NULL;
    KT_OK(kr_noise_covariance(g_ctx, noise, 1, &pref));
    if (d.psi) KT_CHECK(memcmp(d.psi->data, pref->data, kr_array_bytes(pref)) == 0);
    kr_ismrmrd_data_destroy(&d);
    /* fully sampled file written by kray, reconstructed by the reference tool */
    kr_array *kf = kts_kspace(g_ctx, obj, maps), *ci = NULL, *ref = NULL;
    const char *g = kt_tmp("ismrmrd_rt_full.h5");
    kr_ismrmrd_write_opts_default(&wo);
    KT_OK(kr_ismrmrd_write(g, &wo, kf, NULL, NULL));
    KT_CHECK(run("ismrmrd_info '%s' > /dev/null 2>&1%s", g, "") == 0);
    KT_CHECK(run("ismrmrd_recon_cartesian_2d '%s' > /dev/null 2>&1%s", g, "") == 0);
    ref = reference_image(g);
    KT_OK(kr_array_create_like(&ci, kf, KR_HOST, NULL));
    KT_OK(kr_coil_images(g_ctx, kf, ci));
    if (ref && kr_array_numel(ref) == nx * ny) {
        kr_array *m = NULL;
        int64_t d2[2] = {nx, ny};
        KT_OK(kr_array_create(&m, KR_F32, 2, d2, KR_HOST, NULL));
        KT_OK(kr_coil_rss(g_ctx, ci, m));
        double s = 0, e = scaled_nrmse(m->data, ref->data, nx * ny, 1, 1, &s);
        printf("  kray-written file through ismrmrd_recon_cartesian_2d vs kray RSS: NRMSE %.3g\n",
               e);
        KT_LE(e, 1e-5);
        kr_array_destroy(m);
    }
    /* writing an existing path replaces it; bad arguments */
    KT_OK(kr_ismrmrd_write(g, &wo, kf, NULL, NULL));
    KT_STATUS(kr_ismrmrd_write(g, &wo, NULL, NULL, NULL), KR_ERR_INVALID_ARG);
    kr_array *f32 = NULL;
    KT_OK(kr_array_create(&f32, KR_F32, 2, maps->dims, KR_HOST, NULL));
    KT_STATUS(kr_ismrmrd_write(g, &wo, f32, lines, NULL), KR_ERR_DTYPE);
    kr_array_destroy(f32);
    KT_STATUS(kr_ismrmrd_write(g, &wo, kf, NULL, psi), KR_ERR_DTYPE);
    KT_STATUS(kr_ismrmrd_write("/nonexistent-dir/x.h5", &wo, kf, NULL, NULL), KR_ERR_IO);
    kr_array_destroy(maps);
    kr_array_destroy(obj);
    kr_array_destroy(k);
    kr_array_destroy(kf);
    kr_array_destroy(noise);
    kr_array_destroy(psi);
    kr_array_destroy(pref);
    kr_array_destroy(ci);
    kr_array_destroy(ref);
}

#ifdef KT_HAVE_ISMRMRD_API
/* A file with `xml` as header and one acquisition (line e1, ns samples, nch channels). */
static void craft(const char *path, const char *xml, int e1, int ns, int nch, int second_nch)
{
    remove(path);
    ISMRMRD_Dataset d;
    ismrmrd_init_dataset(&d, path, "dataset");
    ismrmrd_open_dataset(&d, true);
    ismrmrd_write_header(&d, xml);
    for (int i = 0; i < (second_nch ? 2 : 1); i++) {
        ISMRMRD_Acquisition a;
        ismrmrd_init_acquisition(&a);
        a.head.number_of_samples = (uint16_t)ns;
        a.head.active_channels = (uint16_t)(i ? second_nch : nch);
        a.head.center_sample = (uint16_t)(ns / 2);
        a.head.idx.kspace_encode_step_1 = (uint16_t)(e1 + i);
        ismrmrd_make_consistent_acquisition(&a);
        ismrmrd_append_acquisition(&d, &a);
        ismrmrd_cleanup_acquisition(&a);
    }
    ismrmrd_close_dataset(&d);
}

static const char *hdr(const char *traj, int nenc, int zsize, int with_matrix)
{
    static char buf[4096];
    char enc[1024];
    snprintf(enc, sizeof enc,
             "<encoding><encodedSpace>%s<fieldOfView_mm><x>1</x><y>1</y><z>1</z></fieldOfView_mm>"
             "</encodedSpace><reconSpace><matrixSize><x>16</x><y>8</y><z>%d</z></matrixSize>"
             "<fieldOfView_mm><x>1</x><y>1</y><z>1</z></fieldOfView_mm></reconSpace>"
             "<encodingLimits/><trajectory>%s</trajectory></encoding>",
             with_matrix ? (zsize == 1 ? "<matrixSize><x>16</x><y>8</y><z>1</z></matrixSize>"
                                       : "<matrixSize><x>16</x><y>8</y><z>4</z></matrixSize>")
                         : "",
             zsize, traj);
    snprintf(buf, sizeof buf,
             "<?xml version=\"1.0\"?><ismrmrdHeader xmlns=\"http://www.ismrm.org/ISMRMRD\">"
             "<experimentalConditions><H1resonanceFrequency_Hz>1</H1resonanceFrequency_Hz>"
             "</experimentalConditions>%s%s</ismrmrdHeader>",
             enc, nenc > 1 ? enc : "");
    return buf;
}
#endif

static void test_bad_files(void)
{
    kr_ismrmrd_data d;
    KT_STATUS(kr_ismrmrd_read(NULL, NULL, &d), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ismrmrd_read("x.h5", NULL, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_ismrmrd_read(kt_tmp("does_not_exist.h5"), NULL, &d), KR_ERR_IO);
    KT_CHECK(d.kspace == NULL);
    const char *txt = kt_tmp("not_hdf5.h5");
    FILE *fp = fopen(txt, "w");
    if (fp) {
        fputs("this is not an HDF5 file\n", fp);
        fclose(fp);
    }
    KT_STATUS(kr_ismrmrd_read(txt, NULL, &d), KR_ERR_FORMAT);
    /* truncated copy of a real file */
    const char *f = kt_tmp("ismrmrd_full.h5"), *tr = kt_tmp("ismrmrd_trunc.h5");
    struct stat sb;
    if (stat(f, &sb) == 0) {
        char cmd[2048];
        snprintf(cmd, sizeof cmd, "head -c %lld '%s' > '%s'", (long long)sb.st_size / 2, f, tr);
        KT_CHECK(system(cmd) == 0);
        KT_STATUS(kr_ismrmrd_read(tr, NULL, &d), KR_ERR_FORMAT);
        printf("  truncated file: %s\n", kr_last_error());
        kr_ismrmrd_read_opts o;
        kr_ismrmrd_read_opts_default(&o);
        o.dataset = "nosuchgroup";
        KT_STATUS(kr_ismrmrd_read(f, &o, &d), KR_ERR_FORMAT);
        kr_array *a = NULL;
        KT_STATUS(kr_ismrmrd_read_image(f, NULL, "noimage", 0, &a), KR_ERR_FORMAT);
        KT_STATUS(kr_ismrmrd_read_array(f, NULL, "csm", 3, &a), KR_ERR_FORMAT);
        KT_STATUS(kr_ismrmrd_read_array(f, NULL, "csm", -1, &a), KR_ERR_INVALID_ARG);
        o.dataset = NULL;
        o.repetition = -1;
        KT_STATUS(kr_ismrmrd_read(f, &o, &d), KR_ERR_INVALID_ARG);
    }
#ifdef KT_HAVE_ISMRMRD_API
    const char *c = kt_tmp("crafted.h5");
    craft(c, hdr("cartesian", 1, 1, 1), 3, 16, 2, 0);
    KT_OK(kr_ismrmrd_read(c, NULL, &d));
    KT_CHECK(d.nx == 16 && d.ny == 8 && d.nc == 2 && d.lines[3] == KR_LINE_IMAGING);
    kr_ismrmrd_data_destroy(&d);
    craft(c, hdr("radial", 1, 1, 1), 3, 16, 2, 0);
    KT_STATUS(kr_ismrmrd_read(c, NULL, &d), KR_ERR_NOT_SUPPORTED);
    craft(c, hdr("cartesian", 2, 1, 1), 3, 16, 2, 0);
    KT_STATUS(kr_ismrmrd_read(c, NULL, &d), KR_ERR_NOT_SUPPORTED);
    craft(c, hdr("cartesian", 1, 4, 1), 3, 16, 2, 0);
    KT_STATUS(kr_ismrmrd_read(c, NULL, &d), KR_ERR_NOT_SUPPORTED);
    craft(c, hdr("cartesian", 1, 1, 0), 3, 16, 2, 0);
    KT_STATUS(kr_ismrmrd_read(c, NULL, &d), KR_ERR_FORMAT);
    printf("  missing field: %s\n", kr_last_error());
    craft(c, "<ismrmrdHeader></ismrmrdHeader>", 3, 16, 2, 0);
    KT_STATUS(kr_ismrmrd_read(c, NULL, &d), KR_ERR_FORMAT);
    craft(c, hdr("cartesian", 1, 1, 1), 9, 16, 2, 0); /* line 9 of 8 */
    KT_STATUS(kr_ismrmrd_read(c, NULL, &d), KR_ERR_FORMAT);
    printf("  line out of range: %s\n", kr_last_error());
    craft(c, hdr("cartesian", 1, 1, 1), 3, 20, 2, 0); /* 20 samples in a 16-sample readout */
    KT_STATUS(kr_ismrmrd_read(c, NULL, &d), KR_ERR_FORMAT);
    craft(c, hdr("cartesian", 1, 1, 1), 3, 16, 2, 3); /* channels change */
    KT_STATUS(kr_ismrmrd_read(c, NULL, &d), KR_ERR_FORMAT);
    printf("  channels change: %s\n", kr_last_error());
#endif
}

int main(void)
{
    if (!kr_have_ismrmrd()) kt_skip("kray was built without ISMRMRD (libismrmrd-dev)");
    if (system("command -v ismrmrd_generate_cartesian_shepp_logan > /dev/null 2>&1") != 0 ||
        system("command -v ismrmrd_recon_cartesian_2d > /dev/null 2>&1") != 0)
        kt_skip("ismrmrd-tools (ismrmrd_generate_cartesian_shepp_logan, "
                "ismrmrd_recon_cartesian_2d) not installed");
    if (kr_ctx_create(&g_ctx, KR_BACKEND_CPU) != KR_OK) return 1;
    KT_RUN(test_unaccelerated);
    KT_RUN(test_accelerated);
    KT_RUN(test_round_trip);
    KT_RUN(test_bad_files);
    kr_ctx_destroy(g_ctx);
    return kt_finish();
}
