/* libFuzzer harness: the ISMRMRD reader (kr_ismrmrd_read, then kr_ismrmrd_read_image "image"
 * and kr_ismrmrd_read_array of one NDArray of the same file), built when kray has ISMRMRD. The
 * input is the .h5 file itself; its last byte also picks the read options.
 *
 * HDF5 and libismrmrd are not instrumented: the sanitizers see kray's code and what HDF5
 * allocates through malloc. Two things HDF5 1.10 does on a damaged file are not kray's to
 * change, and the harness is set up so that they do not hide what is:
 *   - its metadata cache allocates a block's claimed size before it checks the block against
 *     the end of the file (a local heap claiming 1.4 GB in a 12 KB file: reserved, never
 *     touched, released when the read fails). Allocations over 256 MiB therefore return NULL
 *     here (HDF5 then fails cleanly), and since no input of this size may need that much, a
 *     kray call that reports running out of memory aborts the run;
 *   - it leaks a few kilobytes on some failed opens (a decoded datatype or superblock that
 *     H5Dopen/H5Fopen do not free). LeakSanitizer ignores allocations made inside libhdf5, and
 *     the harness checks instead that every HDF5 identifier kray opened is closed again. */
#include "fuzz_common.h"
#include "ismrmrd_forms.h"

#include "kray/ismrmrd.h"

#include <hdf5.h>
#include <ismrmrd/dataset.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libhdf5\n"; }
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1:max_allocation_size_mb=256";
}

/* A call's status: running out of memory on a small input is a finding. */
static void fz_status(kr_status s, const char *what)
{
    if (s != KR_ERR_OOM_HOST) return;
    fprintf(stderr, "fuzz_ismrmrd: %s ran out of memory: %s\n", what, kr_last_error());
    abort();
}

static void fz_ids(hsize_t n[4])
{
    static const H5I_type_t t[4] = {H5I_FILE, H5I_DATASET, H5I_DATATYPE, H5I_DATASPACE};
    for (int k = 0; k < 4; k++) {
        n[k] = 0;
        H5Inmembers(t[k], &n[k]);
    }
}

/* Touch every byte of a result (a buffer shorter than its dims is caught by ASan). */
static void fz_touch(kr_array *a)
{
    if (!a) return;
    volatile unsigned char s = 0;
    const unsigned char *p = a->data;
    for (size_t i = 0; i < kr_array_bytes(a); i++) s ^= p[i];
    (void)s;
    kr_array_destroy(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);
int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)
{
    const char *path = fz_file("in.h5", d, n);
    hsize_t before[4], after[4];
    H5open();
    fz_ids(before);
    /* the last byte picks the options (HDF5 does not read past the end of its data): readout
     * oversampling kept, repetition 1, slice 1, the NDArray (tests/ismrmrd_forms.h: "array",
     * "array1".."array7"), image 1 rather than 0, the group named "/dataset" */
    static const char *arrays[8] = {"array",  "array1", "array2", "array3",
                                    "array4", "array5", "array6", "array7"};
    const uint8_t ob = n ? d[n - 1] : 0;
    kr_ismrmrd_read_opts o;
    kr_ismrmrd_read_opts_default(&o);
    o.remove_oversampling = !(ob & 1);
    o.repetition = (ob >> 1) & 1;
    o.slice = (ob >> 2) & 1;
    o.dataset = ob & 128 ? "/dataset" : NULL;
    kr_ismrmrd_data k = {0};
    kr_status st = kr_ismrmrd_read(path, &o, &k);
    fz_status(st, "kr_ismrmrd_read");
    if (st == KR_OK) {
        fz_touch(k.kspace), fz_touch(k.calib), fz_touch(k.noise), fz_touch(k.psi);
        k.kspace = k.calib = k.noise = k.psi = NULL;
    }
    kr_ismrmrd_data_destroy(&k);
    kr_array *a = NULL;
    st = kr_ismrmrd_read_image(path, o.dataset, "image", (ob >> 6) & 1, &a);
    fz_status(st, "kr_ismrmrd_read_image");
    if (st == KR_OK) fz_touch(a);
    a = NULL;
    st = kr_ismrmrd_read_array(path, o.dataset, arrays[(ob >> 3) & 7], 0, &a);
    fz_status(st, "kr_ismrmrd_read_array");
    if (st == KR_OK) fz_touch(a);
    fz_ids(after);
    for (int i = 0; i < 4; i++)
        if (after[i] > before[i]) {
            fprintf(stderr, "fuzz_ismrmrd: HDF5 identifiers of kind %d left open: %llu -> %llu\n",
                    i, (unsigned long long)before[i], (unsigned long long)after[i]);
            abort();
        }
    return 0;
}

/* ---- seeds ----------------------------------------------------------------------------------- */
/* A stored image "image" (float, 4 x 3, 2 channels) and NDArray "array" (complex, 3 x 2) added
 * to an ISMRMRD file through libismrmrd. */
static void fz_add_stored(const char *path)
{
    ISMRMRD_Dataset ds;
    if (ismrmrd_init_dataset(&ds, path, "dataset") != ISMRMRD_NOERROR) return;
    if (ismrmrd_open_dataset(&ds, false) != ISMRMRD_NOERROR) return;
    ISMRMRD_Image im;
    ismrmrd_init_image(&im);
    im.head.data_type = ISMRMRD_FLOAT;
    im.head.matrix_size[0] = 4, im.head.matrix_size[1] = 3, im.head.matrix_size[2] = 1;
    im.head.channels = 2;
    if (ismrmrd_make_consistent_image(&im) == ISMRMRD_NOERROR) {
        for (int i = 0; i < 24; i++) ((float *)im.data)[i] = (float)i - 5.5f;
        ismrmrd_append_image(&ds, "image", &im);
    }
    ismrmrd_cleanup_image(&im);
    ISMRMRD_NDArray arr;
    ismrmrd_init_ndarray(&arr);
    arr.data_type = ISMRMRD_CXFLOAT;
    arr.ndim = 2;
    arr.dims[0] = 3, arr.dims[1] = 2;
    if (ismrmrd_make_consistent_ndarray(&arr) == ISMRMRD_NOERROR) {
        for (int i = 0; i < 12; i++) ((float *)arr.data)[i] = 0.25f * (float)i;
        ismrmrd_append_array(&ds, "array", &arr);
    }
    ismrmrd_cleanup_ndarray(&arr);
    ismrmrd_close_dataset(&ds);
}

void fz_seeds(void)
{
    for (int k = 0; k < 3; k++) {
        kr_array *ks = NULL, *noise = NULL;
        const int64_t dims[3] = {8, 6, 2}, nd[2] = {8, 2};
        if (kr_array_create(&ks, KR_C64, 3, dims, KR_HOST, NULL) != KR_OK) return;
        float *v = ks->data;
        for (int64_t i = 0; i < 2 * 8 * 6 * 2; i++) v[i] = (float)((i * 13) % 7) - 3.0f;
        if (k && kr_array_create(&noise, KR_C64, 2, nd, KR_HOST, NULL) == KR_OK) {
            float *w = noise->data;
            for (int64_t i = 0; i < 2 * 8 * 2; i++) w[i] = (float)(i % 3) * 0.1f;
        }
        uint8_t lines[6] = {1, 1, 2, 3, 1, 0};
        kr_ismrmrd_write_opts o;
        kr_ismrmrd_write_opts_default(&o);
        o.accel = 1 + (k > 0);
        if (kr_ismrmrd_write(fz_path("s.h5"), &o, ks, k ? lines : NULL, noise) == KR_OK) {
            if (k == 2) fz_add_stored(fz_path("s.h5"));
            fz_seed_file(fz_path("s.h5"));
        }
        kr_array_destroy(ks);
        kr_array_destroy(noise);
    }
    /* the forms libismrmrd does not write, and those kray refuses (tests/ismrmrd_forms.h) */
    for (int f = 0; f < KT_FORM_COUNT; f++)
        if (kt_write_ismrmrd_form(fz_path("p.h5"), f, fz_path("other.h5")) == 0)
            fz_seed_file(fz_path("p.h5"));
    /* the plain form with an options byte after it: each NDArray, each option bit */
    size_t m = 0;
    uint8_t *b = kt_write_ismrmrd_form(fz_path("p.h5"), KT_FORM_PLAIN, NULL) == 0
                     ? fz_slurp(fz_path("p.h5"), &m)
                     : NULL;
    uint8_t *plus = b ? realloc(b, m + 1) : NULL;
    for (int opt = 0; plus && opt < 12; opt++) {
        plus[m] = (uint8_t)(opt < 8 ? opt << 3 : 1u << (opt - 8 + (opt >= 11 ? 4 : 0)));
        fz_seed(plus, m + 1);
    }
    free(plus ? plus : b);
    /* headers that kray refuses or reads in their other forms: each replaces one piece */
    static const char *edit[][2] = {
        {"</encoding>", "</encoding><encoding><trajectory>cartesian</trajectory></encoding>"},
        {"<z>1</z></matrixSize><fieldOfView_mm><x>200",
         "<z>4</z></matrixSize><fieldOfView_mm><x>200"},
        {">cartesian<", ">radial<"},
        {"<x>8</x>", "<x>0</x>"},
        {"<x>4</x>", "<x>16</x>"},
        {"<kspace_encoding_step_1>2<", "<kspace_encoding_step_1>2000<"},
        {"<x>8</x><y>6</y>", "<x> 8 </x>\n<y>\t6\r</y>"},
        {"<encodingLimits>", "<encodingLimits/><x>"},
        {"<center>3</center>", "<center>9</center>"},
        {"<ismrmrdHeader>", "<ismrmrdHeade>"},
        {"<trajectory>cartesian</trajectory>", "<trajectory>cartesian"},
        {"<calibrationMode>embedded</calibrationMode>", ""},
    };
    for (size_t e = 0; e < sizeof edit / sizeof edit[0]; e++) {
        char xml[2048];
        const char *at = strstr(kt_form_xml, edit[e][0]);
        if (!at) continue;
        snprintf(xml, sizeof xml, "%.*s%s%s", (int)(at - kt_form_xml), kt_form_xml, edit[e][1],
                 at + strlen(edit[e][0]));
        if (kt_write_ismrmrd_form_xml(fz_path("p.h5"), KT_FORM_PLAIN, NULL, xml) == 0)
            fz_seed_file(fz_path("p.h5"));
    }
}
