/* DICOM export: files written by kr_write_dicom read back by kr_read_dicom, by DCMTK's dcmdump
 * (attributes) and by pydicom (Debian's /usr/bin/python3: pixel values after the modality
 * rescale against HU computed here); CT_small.dcm from pydicom's test data read by kray and by
 * pydicom; dumb inputs. Builds without DCMTK check the NOT_SUPPORTED message and skip (77). */
#include "internal.h"
#include "kray/dicom.h"
#include "kt.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PY "/usr/bin/python3"
#define CT_SMALL "/usr/lib/python3/dist-packages/pydicom/data/test_files/CT_small.dcm"

static int have_cmd(const char *cmd)
{
    char buf[512];
    snprintf(buf, sizeof buf, "command -v %s >/dev/null 2>&1", cmd);
    return system(buf) == 0;
}

static int have_pydicom(void)
{
    return access(PY, X_OK) == 0 && system(PY " -c 'import pydicom, numpy' >/dev/null 2>&1") == 0;
}

/* Test image: attenuation in 1/mm around water, with air, bone and a ramp. */
static kr_array *image(kr_dtype t, int64_t nx, int64_t ny, int64_t nz, double mu_w)
{
    int64_t dims[3] = {nx, ny, nz};
    kr_array *a = NULL;
    KT_OK(kr_array_create(&a, t, 3, dims, KR_HOST, NULL));
    for (int64_t i = 0; a && i < nx * ny * nz; i++) {
        int64_t x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
        double v =
            mu_w * (1.0 + 0.3 * sin(0.2 * (double)x) * cos(0.15 * (double)y) + 0.01 * (double)z);
        if (x < 3) v = 0;               /* air: -1000 HU */
        if (y > ny - 4) v = 2.5 * mu_w; /* bone-like: 1500 HU */
        if (t == KR_F32)
            ((float *)a->data)[i] = (float)v;
        else
            ((double *)a->data)[i] = v;
    }
    return a;
}

static double hu_of(const kr_array *a, int64_t i, double mu_w)
{
    return 1000.0 * (kr_array_get_f64(a, i) - mu_w) / mu_w;
}

static void test_roundtrip_and_peers(void)
{
    const double mu_w = 0.02;
    const int64_t nx = 40, ny = 30;
    kr_array *img = image(KR_F32, nx, ny, 1, mu_w);
    kr_dicom_opts o;
    kr_dicom_opts_default(&o);
    o.mu_water = mu_w;
    o.pixel_spacing_mm[0] = 0.75;
    o.pixel_spacing_mm[1] = 0.5;
    o.slice_thickness_mm = 2.0;
    const char *path = kt_tmp("fbp_dicom_slice.dcm");
    KT_OK(kr_write_dicom(path, img, &o));

    /* kray's own reader */
    kr_array *back = NULL;
    double sp[2];
    KT_OK(kr_read_dicom(path, &back, sp));
    KT_CHECK(back && back->dims[0] == nx && back->dims[1] == ny);
    KT_NEAR(sp[0], 0.75, 1e-12);
    KT_NEAR(sp[1], 0.5, 1e-12);
    double e = 0;
    for (int64_t i = 0; back && i < nx * ny; i++)
        e = fmax(e, fabs(kr_array_get_f64(back, i) - hu_of(img, i, mu_w)));
    KT_LE(e, 0.5 + 1e-3); /* slope 1: rounding to integer HU */
    KT_NEAR(kr_array_get_f64(back, 0), -1000.0, 1e-9);
    kr_array_destroy(back);

    /* DCMTK's dcmdump */
    if (have_cmd("dcmdump")) {
        char cmd[1200], line[512];
        snprintf(cmd, sizeof cmd,
                 "dcmdump +P 0008,0016 +P 0028,1053 +P 0028,1052 +P 0028,0030 "
                 "+P 0008,0060 +P 0028,0103 +P 0018,0050 +P 0028,1054 '%s' 2>&1",
                 path);
        FILE *f = popen(cmd, "r");
        int sop = 0, slope = 0, icpt = 0, spacing = 0, mod = 0, repr = 0, thick = 0, type = 0;
        while (f && fgets(line, sizeof line, f)) {
            sop |= strstr(line, "=CTImageStorage") != NULL;
            slope |= strstr(line, "RescaleSlope") && strstr(line, "[1]");
            icpt |= strstr(line, "RescaleIntercept") && strstr(line, "[0]");
            spacing |= strstr(line, "PixelSpacing") && strstr(line, "[0.5\\0.75]");
            mod |= strstr(line, "Modality") && strstr(line, "[CT]");
            repr |= strstr(line, "PixelRepresentation") && strstr(line, " 1 ");
            thick |= strstr(line, "SliceThickness") && strstr(line, "[2]");
            type |= strstr(line, "RescaleType") && strstr(line, "[HU]");
        }
        int rc = f ? pclose(f) : -1;
        KT_CHECK(rc == 0);
        KT_CHECK(sop && slope && icpt && spacing && mod && repr && thick && type);
    } else {
        printf("  skipped dcmdump part: dcmdump not found (Debian package dcmtk)\n");
    }

    /* pydicom: rescaled pixels against HU written here as float64 raw */
    if (have_pydicom()) {
        const char *ref = kt_tmp("fbp_dicom_ref.raw");
        FILE *f = fopen(ref, "wb");
        KT_CHECK(f != NULL);
        for (int64_t i = 0; f && i < nx * ny; i++) {
            double h = hu_of(img, i, mu_w);
            fwrite(&h, sizeof h, 1, f);
        }
        if (f) fclose(f);
        char cmd[2400];
        snprintf(cmd, sizeof cmd,
                 PY " -c \"import pydicom, numpy as np, sys\n"
                    "d = pydicom.dcmread('%s')\n"
                    "assert d.SOPClassUID == '1.2.840.10008.5.1.4.1.1.2', d.SOPClassUID\n"
                    "assert d.Modality == 'CT' and d.Rows == %lld and d.Columns == %lld\n"
                    "assert [float(v) for v in d.PixelSpacing] == [0.5, 0.75]\n"
                    "assert d.file_meta.TransferSyntaxUID == '1.2.840.10008.1.2.1'\n"
                    "assert pydicom.uid.UID(d.SOPInstanceUID).is_valid and d.StudyInstanceUID != "
                    "d.SeriesInstanceUID\n"
                    "hu = d.pixel_array.astype(np.float64) * float(d.RescaleSlope) + "
                    "float(d.RescaleIntercept)\n"
                    "ref = np.fromfile('%s', dtype='<f8').reshape(%lld, %lld)\n"
                    "print(np.abs(hu - ref).max())\" 2>&1",
                 path, (long long)ny, (long long)nx, ref, (long long)ny, (long long)nx);
        FILE *p = popen(cmd, "r");
        char out[1024] = "";
        size_t got = p ? fread(out, 1, sizeof out - 1, p) : 0;
        out[got] = 0;
        int rc = p ? pclose(p) : -1;
        KT_CHECK_MSG(rc == 0, "pydicom check failed: %s", out);
        double d = rc == 0 ? strtod(out, NULL) : 1e9;
        printf("  pydicom: max |HU(file) - HU(image)| = %.3g\n", d);
        KT_LE(d, 0.5 + 1e-3);
    } else {
        printf("  skipped pydicom part: %s with pydicom not found\n", PY);
    }
    kr_array_destroy(img);
}

/* Values beyond int16 HU get a slope > 1 and still round-trip within slope / 2; a volume is
 * written as numbered slices. */
static void test_large_values_and_volume(void)
{
    const double mu_w = 0.001;
    kr_array *img = image(KR_F64, 16, 12, 3, mu_w);
    for (int64_t i = 0; i < 16 * 12 * 3; i += 7) ((double *)img->data)[i] = 0.05; /* 49000 HU */
    kr_dicom_opts o;
    kr_dicom_opts_default(&o);
    o.mu_water = mu_w;
    const char *path = kt_tmp("fbp_dicom_vol.dcm");
    KT_OK(kr_write_dicom(path, img, &o));
    char name[1200];
    for (int z = 0; z < 3; z++) {
        snprintf(name, sizeof name, "%.*s_%04d.dcm", (int)(strlen(path) - 4), path, z);
        kr_array *back = NULL;
        KT_OK(kr_read_dicom(name, &back, NULL));
        double e = 0;
        for (int64_t i = 0; back && i < 16 * 12; i++)
            e = fmax(e, fabs(kr_array_get_f64(back, i) - hu_of(img, z * 16 * 12 + i, mu_w)));
        double slope = 49000.0 / 32767.0;
        KT_LE(e, 0.5 * slope * 1.0001 + 1e-3);
        kr_array_destroy(back);
        remove(name);
    }
    kr_array_destroy(img);
}

/* CT_small.dcm (pydicom's test data): kray's reader against pydicom's rescaled values. */
static void test_read_ct_small(void)
{
    if (access(CT_SMALL, R_OK) != 0 || !have_pydicom()) {
        printf("  skipped: %s or pydicom not available\n", CT_SMALL);
        return;
    }
    kr_array *a = NULL;
    double sp[2];
    KT_OK(kr_read_dicom(CT_SMALL, &a, sp));
    if (!a) return;
    const char *ref = kt_tmp("fbp_ct_small.raw");
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             PY " -c \"import pydicom, numpy as np\n"
                "d = pydicom.dcmread('%s')\n"
                "(d.pixel_array * float(d.RescaleSlope) + "
                "float(d.RescaleIntercept)).astype('<f4').tofile('%s')\n"
                "print(d.Columns, d.Rows, float(d.PixelSpacing[1]), float(d.PixelSpacing[0]))\"",
             CT_SMALL, ref);
    FILE *p = popen(cmd, "r");
    long long c = 0, r = 0;
    double dx = 0, dy = 0;
    KT_CHECK(p && fscanf(p, "%lld %lld %lf %lf", &c, &r, &dx, &dy) == 4);
    if (p) pclose(p);
    KT_CHECK(a->dims[0] == c && a->dims[1] == r);
    KT_NEAR(sp[0], dx, 1e-9);
    KT_NEAR(sp[1], dy, 1e-9);
    FILE *f = fopen(ref, "rb");
    float *v = malloc(sizeof(float) * (size_t)(c * r));
    KT_CHECK(f && v && fread(v, sizeof(float), (size_t)(c * r), f) == (size_t)(c * r));
    double e = 0;
    for (int64_t i = 0; v && i < c * r && i < kr_array_numel(a); i++)
        e = fmax(e, fabs((double)v[i] - kr_array_get_f64(a, i)));
    KT_LE(e, 0.0);
    if (f) fclose(f);
    free(v);
    kr_array_destroy(a);
}

static void test_dumb_inputs(void)
{
    kr_array *img = image(KR_F32, 8, 8, 1, 0.02), *b = NULL;
    kr_dicom_opts o, d;
    kr_dicom_opts_default(&d);
    const char *path = kt_tmp("fbp_dicom_bad.dcm");
    KT_STATUS(kr_write_dicom(NULL, img, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_write_dicom(path, NULL, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_write_dicom("", img, NULL), KR_ERR_INVALID_ARG);
    o = d, o.mu_water = 0;
    KT_STATUS(kr_write_dicom(path, img, &o), KR_ERR_INVALID_ARG);
    KT_CHECK(strstr(kr_last_error(), "mu_water") != NULL);
    o = d, o.pixel_spacing_mm[1] = -1;
    KT_STATUS(kr_write_dicom(path, img, &o), KR_ERR_INVALID_ARG);
    o = d, o.slice_thickness_mm = NAN;
    KT_STATUS(kr_write_dicom(path, img, &o), KR_ERR_INVALID_ARG);
    o = d, o.window_width_hu = -5;
    KT_STATUS(kr_write_dicom(path, img, &o), KR_ERR_INVALID_ARG);
    int64_t dims[4] = {4, 4, 2, 2};
    kr_array *i16 = NULL, *r4 = NULL;
    KT_OK(kr_array_create(&i16, KR_I16, 2, dims, KR_HOST, NULL));
    KT_STATUS(kr_write_dicom(path, i16, NULL), KR_ERR_DTYPE);
    KT_OK(kr_array_create(&r4, KR_F32, 4, dims, KR_HOST, NULL));
    KT_STATUS(kr_write_dicom(path, r4, NULL), KR_ERR_DIM);
    kr_array dev;
    KT_OK(kr_array_wrap(&dev, KR_F32, 2, img->dims, img->data, KR_DEVICE));
    KT_STATUS(kr_write_dicom(path, &dev, NULL), KR_ERR_LOCATION);
    KT_STATUS(kr_read_dicom(path, NULL, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_read_dicom(NULL, &b, NULL), KR_ERR_INVALID_ARG);
    KT_STATUS(kr_read_dicom(kt_tmp("fbp_no_such_file.dcm"), &b, NULL), KR_ERR_IO);
    const char *junk = kt_tmp("fbp_junk.dcm");
    FILE *f = fopen(junk, "wb");
    if (f) {
        fputs("this is not DICOM", f);
        fclose(f);
    }
    KT_STATUS(kr_read_dicom(junk, &b, NULL), KR_ERR_FORMAT);
    f = fopen(junk, "wb"); /* empty file */
    if (f) fclose(f);
    KT_STATUS(kr_read_dicom(junk, &b, NULL), KR_ERR_FORMAT);
    KT_CHECK(b == NULL);
    kr_array_destroy(i16);
    kr_array_destroy(r4);
    kr_array_destroy(img);
}

int main(void)
{
    kr_array *img = image(KR_F32, 4, 4, 1, 0.02);
    kr_status s = kr_write_dicom(kt_tmp("fbp_dicom_probe.dcm"), img, NULL);
    kr_array_destroy(img);
    if (s == KR_ERR_NOT_SUPPORTED) {
        int ok = strcmp(kr_last_error(),
                        "kray was built without DCMTK; install libdcmtk-dev and rebuild") == 0;
        if (!ok) {
            printf("unexpected message: %s\n", kr_last_error());
            return 1;
        }
        kt_skip("kray was built without DCMTK");
    }
    KT_RUN(test_roundtrip_and_peers);
    KT_RUN(test_large_values_and_volume);
    KT_RUN(test_read_ct_small);
    KT_RUN(test_dumb_inputs);
    return kt_finish();
}
