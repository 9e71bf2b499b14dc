/* kray's own ISMRMRD reading (src/io/ismrmrd_h5.c): the forms libismrmrd does not write, read
 * value for value (a fixed-length XML header, contiguous acquisitions with a minimal head and
 * big-endian samples, a noise scan, a reversed line and a second repetition, a 16-bit image through shuffle and
 * deflate, a double NDArray; tests/ismrmrd_forms.h); the forms kray refuses, each with its
 * sentence and without waiting on the FIFO it names (external raw data, an external link, a
 * soft link, the nbit filter, compact variable-length data); the file of the fuzzing finding
 * whose global heap made HDF5 loop for ever, read value for value; the one whose NDArray type
 * put a member outside its bytes, refused; and a group that does not
 * exist leaves the file as it was (libismrmrd opened inputs read-write and created it). The
 * CLI side of the fuzzing findings is tests/input_safety_cli.sh. Skips (77) without ISMRMRD. */
#include "kray/ismrmrd.h"
#include "kt.h"

#if defined(__has_include)
#if __has_include(<ismrmrd/dataset.h>) && __has_include(<hdf5.h>) /* via libismrmrd */
#include "ismrmrd_forms.h"
#define KT_HAVE_HDF5 1
#endif
#endif

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int contains(const char *s, const char *part) { return strstr(s, part) != NULL; }

#ifdef KT_HAVE_HDF5
static void test_plain_forms(void)
{
    const char *f = kt_tmp("forms_plain.h5");
    KT_CHECK(kt_write_ismrmrd_form(f, KT_FORM_PLAIN, NULL) == 0);
    kr_ismrmrd_read_opts o;
    kr_ismrmrd_read_opts_default(&o);
    o.remove_oversampling = 0;
    kr_ismrmrd_data d;
    KT_OK(kr_ismrmrd_read(f, &o, &d));
    KT_CHECK(d.nx == 8 && d.ny == 6 && d.nc == 2 && d.acquisitions == 4 && d.repetitions == 2);
    KT_CHECK(d.accel == 2 && strcmp(d.calibration_mode, "embedded") == 0 && d.e1_center == 3);
    KT_NEAR(d.enc_fov_mm[0], 200, 0);
    KT_NEAR(d.recon_fov_mm[0], 100, 0);
    /* acquisition i (1..4) is line e1 = i + 1 -> row i + 1 (centre 3 at row ny/2 = 3);
     * acquisition 2 reversed; the readout starts at x = nx/2 - centre = 0 */
    int exact = 1;
    const float *k = d.kspace ? d.kspace->data : NULL;
    for (int j = 0; k && j < 6; j++) {
        int i = j - 1, acquired = j >= 2;
        KT_CHECK((d.lines[j] == KR_LINE_IMAGING) == acquired);
        for (int c = 0; c < 2; c++)
            for (int x = 0; x < 8; x++)
                for (int p = 0; p < 2; p++) {
                    int src = i == 2 ? 7 - x : x;
                    float want = acquired ? kt_form_sample(i, 2 * (src + 8 * c) + p) : 0.0f;
                    exact &= k[2 * (x + 8 * (j + 6 * c)) + p] == want;
                }
    }
    KT_CHECK(exact);
    /* calibration: the mean over repetitions; line 3 also has acquisition 5 (repetition 1) */
    const float *cal = d.calib ? d.calib->data : NULL;
    KT_CHECK(cal != NULL);
    for (int j = 2; k && cal && j < 6; j++)
        for (int q = 0; q < 2 * 8; q++)
            for (int c = 0; c < 2; c++) {
                int e = 2 * (8 * (j + 6 * c)) + q, x = q / 2, p = q % 2;
                float want = k[e];
                if (j == 3)
                    want = (float)(((double)k[e] + kt_form_sample(5, 2 * (x + 8 * c) + p)) / 2);
                exact &= cal[e] == want;
            }
    KT_CHECK(exact);
    /* the noise scan: acquisition 0, 8 samples of 2 channels, and its covariance */
    KT_CHECK(d.noise && d.noise->dims[0] == 8 && d.noise->dims[1] == 2 && d.psi);
    const float *nz = d.noise ? d.noise->data : NULL;
    for (int q = 0; nz && q < 32; q++) exact &= nz[q] == kt_form_sample(0, q);
    KT_CHECK(exact);
    kr_ismrmrd_data_destroy(&d);
    /* readout oversampling removed: the recon matrix is 4 wide */
    KT_OK(kr_ismrmrd_read(f, NULL, &d));
    KT_CHECK(d.nx == 4 && d.kspace && d.kspace->dims[0] == 4);
    kr_ismrmrd_data_destroy(&d);
    /* the image: u16 through shuffle + deflate, read as f32 [4, 3] */
    kr_array *im = NULL, *ar = NULL;
    KT_OK(kr_ismrmrd_read_image(f, NULL, "image", 0, &im));
    KT_CHECK(im && im->dtype == KR_F32 && im->ndim == 2 && im->dims[0] == 4 && im->dims[1] == 3);
    for (int q = 0; im && q < 12; q++) exact &= ((const float *)im->data)[q] == 1000.0f * q;
    KT_CHECK(exact);
    /* the NDArray: [1, 2, 3] doubles -> item dims [3, 2], f64 */
    KT_OK(kr_ismrmrd_read_array(f, NULL, "array", 0, &ar));
    KT_CHECK(ar && ar->dtype == KR_F64 && ar->ndim == 2 && ar->dims[0] == 3 && ar->dims[1] == 2);
    if (ar) KT_CHECK(memcmp(ar->data, kt_form_array, sizeof kt_form_array) == 0);
    kr_array_destroy(im);
    kr_array_destroy(ar);
    KT_STATUS(kr_ismrmrd_read_image(f, NULL, "image", 1, &im), KR_ERR_FORMAT);
    printf("  index past the end: %s\n", kr_last_error());
}

/* A form kray refuses: `fn` 0 reads the acquisitions, 1 the image, 2 the array. */
static void refused(int form, int fn, kr_status want, const char *words)
{
    const char *f = kt_tmp("forms_refused.h5"), *fifo = kt_tmp("forms_fifo");
    remove(fifo);
    KT_CHECK(kt_write_ismrmrd_form(f, form, fifo) == 0);
    remove(fifo); /* the external name becomes a FIFO nothing ever writes to */
    KT_CHECK(mkfifo(fifo, 0600) == 0);
    kr_ismrmrd_data d;
    kr_array *a = NULL;
    kr_status s = fn == 0   ? kr_ismrmrd_read(f, NULL, &d)
                  : fn == 1 ? kr_ismrmrd_read_image(f, NULL, "image", 0, &a)
                            : kr_ismrmrd_read_array(f, NULL, "array", 0, &a);
    KT_STATUS(s, want);
    KT_CHECK_MSG(contains(kr_last_error(), words), "form %d: '%s' lacks '%s'", form,
                 kr_last_error(), words);
    printf("  form %d: %s\n", form, kr_last_error());
    remove(fifo);
}

static void test_refused_forms(void)
{
    refused(KT_FORM_EXTERNAL_DATA, 2, KR_ERR_NOT_SUPPORTED, "keeps its data in other files");
    refused(KT_FORM_EXTERNAL_LINK, 0, KR_ERR_FORMAT, "external or user-defined link");
    refused(KT_FORM_SOFT_LINK, 0, KR_ERR_FORMAT, "'dataset/xml' is a soft");
    refused(KT_FORM_NBIT, 1, KR_ERR_NOT_SUPPORTED, "HDF5 filter 5 (nbit)");
    refused(KT_FORM_SCALEOFFSET, 1, KR_ERR_NOT_SUPPORTED, "HDF5 filter 6 (scaleoffset)");
    refused(KT_FORM_COMPACT, 0, KR_ERR_NOT_SUPPORTED, "'dataset/data' holds variable-length "
                                                      "data in compact storage");
    refused(KT_FORM_VLEN_DEFLATE, 0, KR_ERR_NOT_SUPPORTED, "variable-length data through filters");
    refused(KT_FORM_EMPTY, 0, KR_ERR_FORMAT, "has no imaging data");
    refused(KT_FORM_XML_COMPACT, 0, KR_ERR_NOT_SUPPORTED, "'dataset/xml' holds variable-length "
                                                          "data in compact storage");
    refused(KT_FORM_ADDR4, 0, KR_ERR_NOT_SUPPORTED, "uses 4-byte addresses and 4-byte lengths");
}

/* The NDArrays of every form: refused with their sentence, or read ("array7"). */
static void test_array_forms(void)
{
    static const struct {
        const char *var, *words;
    } no[] = {{"array1", "holds elements kray does not read"},
              {"array2", "holds elements kray does not read"},
              {"array3", "is inconsistent (members or bit fields outside its 4 bytes, or a class"},
              {"array4", "has more than 8 dimensions"},
              {"array5", "has no readable type or extent"},
              {"array6", "holds elements kray does not read"}};
    const char *f = kt_tmp("forms_arrays.h5");
    KT_CHECK(kt_write_ismrmrd_form(f, KT_FORM_PLAIN, NULL) == 0);
    kr_array *a = NULL;
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        KT_STATUS(kr_ismrmrd_read_array(f, NULL, no[i].var, 0, &a), KR_ERR_FORMAT);
        KT_CHECK_MSG(contains(kr_last_error(), no[i].words), "%s: '%s'", no[i].var,
                     kr_last_error());
    }
    KT_OK(kr_ismrmrd_read_array(f, "/dataset", "array7", 0, &a));
    KT_CHECK(a && a->dtype == KR_F32 && a->ndim == 1 && a->dims[0] == 5);
    for (int i = 0; a && i < 5; i++) KT_CHECK(((float *)a->data)[i] == (float)kt_form_array[i]);
    kr_array_destroy(a);
    /* 80 more noise scans of one sample: a global heap collection of over 64 objects */
    KT_CHECK(kt_write_ismrmrd_form(f, KT_FORM_MANY, NULL) == 0);
    kr_ismrmrd_data d;
    KT_OK(kr_ismrmrd_read(f, NULL, &d));
    KT_CHECK(d.noise && d.noise->dims[0] == 88 && d.noise->dims[1] == 2);
    int exact = 1;
    const float *nz = d.noise ? d.noise->data : NULL;
    for (int i = 6; nz && i < 86; i++) /* scan i: sample 8 + i - 6 of channels 0 and 1 */
        for (int c = 0; c < 2; c++)
            for (int p = 0; p < 2; p++)
                exact &= nz[2 * (88 * c + 8 + i - 6) + p] == kt_form_sample(i, 2 * c + p);
    KT_CHECK(exact);
    kr_ismrmrd_data_destroy(&d);
}
#endif

/* The reproducer whose global heap collection ends in a free-space object of size 0 (HDF5
 * 1.10's heap loader never advances past it): every sample read as the writer stored it. */
static void test_heap_free_size0(void)
{
    char f[4096];
    snprintf(f, sizeof f, "%s/tests/data/fuzz/ismrmrd_heap_free_size0.h5", kt_src());
    kr_ismrmrd_data d;
    KT_OK(kr_ismrmrd_read(f, NULL, &d));
    KT_CHECK(d.kspace && d.nx == 8 && d.ny == 6 && d.nc == 2);
    int exact = 1;
    const float *k = d.kspace ? d.kspace->data : NULL;
    for (int i = 0; k && i < 2 * 8 * 6 * 2; i++) exact &= k[i] == (float)((i * 13) % 7) - 3.0f;
    KT_CHECK(exact);
    kr_ismrmrd_data_destroy(&d);
}

/* The reproducer whose complex NDArray type puts "imag" 2 GB into its 8 bytes (HDF5's
 * conversion segfaulted): refused before HDF5 converts anything; the file's acquisitions and
 * image are still read. */
static void test_array_member_offset(void)
{
    char f[4096];
    snprintf(f, sizeof f, "%s/tests/data/fuzz/ismrmrd_array_member_offset.h5", kt_src());
    kr_array *a = NULL;
    KT_STATUS(kr_ismrmrd_read_array(f, NULL, "array", 0, &a), KR_ERR_FORMAT);
    KT_CHECK(contains(kr_last_error(), "the element type of dataset 'dataset/array' is "
                                       "inconsistent (members or bit fields outside its 8 bytes"));
    KT_OK(kr_ismrmrd_read_image(f, NULL, "image", 0, &a));
    KT_CHECK(a && a->dtype == KR_F32 && kr_array_numel(a) == 4 * 3 * 2);
    kr_array_destroy(a);
    kr_ismrmrd_data d;
    KT_OK(kr_ismrmrd_read(f, NULL, &d));
    kr_ismrmrd_data_destroy(&d);
}

/* Inputs are opened read-only: asking for a group the file lacks changes nothing. */
static void test_input_untouched(void)
{
    char src[4096];
    snprintf(src, sizeof src, "%s/tests/data/fuzz/ismrmrd_heap_free_size0.h5", kt_src());
    const char *f = kt_tmp("untouched.h5");
    FILE *in = fopen(src, "rb"), *out = fopen(f, "wb");
    static unsigned char a[1 << 16], b[1 << 16];
    size_t n = in ? fread(a, 1, sizeof a, in) : 0;
    if (out) fwrite(a, 1, n, out);
    if (in) fclose(in);
    if (out) fclose(out);
    chmod(f, 0644);
    kr_ismrmrd_read_opts o;
    kr_ismrmrd_read_opts_default(&o);
    o.dataset = "other";
    kr_ismrmrd_data d;
    KT_STATUS(kr_ismrmrd_read(f, &o, &d), KR_ERR_FORMAT);
    KT_CHECK(contains(kr_last_error(), "has no ISMRMRD group 'other'"));
    kr_array *x = NULL;
    KT_STATUS(kr_ismrmrd_read_array(f, "other", "x", 0, &x), KR_ERR_FORMAT);
    FILE *again = fopen(f, "rb");
    size_t m = again ? fread(b, 1, sizeof b, again) : 0;
    if (again) fclose(again);
    KT_CHECK(n > 0 && m == n && memcmp(a, b, n) == 0);
}

int main(void)
{
    if (!kr_have_ismrmrd()) kt_skip("kray was built without ISMRMRD");
#ifdef KT_HAVE_HDF5
    KT_RUN(test_plain_forms);
    KT_RUN(test_refused_forms);
    KT_RUN(test_array_forms);
#endif
    KT_RUN(test_heap_free_size0);
    KT_RUN(test_array_member_offset);
    KT_RUN(test_input_untouched);
    return kt_finish();
}
