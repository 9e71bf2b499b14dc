/* ISMRMRD files written through HDF5 alone, in forms libismrmrd does not write (shared by
 * tests/test_ismrmrd_read.c and the fuzzing harness fuzz/fuzz_ismrmrd.c, whose seeds they are).
 *
 * KT_FORM_PLAIN: a 512-byte user block before the HDF5 data; a fixed-length XML header
 * (kt_form_xml: encoded 8 x 6, recon 4 x 6, line centre 3, R = 2, "embedded"); 6 contiguous
 * acquisitions whose head holds only the fields kray reads and whose samples are big-endian: a
 * noise scan, lines 2..5 of 8 samples x 2 channels (line 3 reversed), then line 3 again in
 * repetition 1, sample values kt_form_sample(i, k); an image "image" (header: 4 x 3 x 1, 1
 * channel; data [1, 1, 1, 3, 4] u16 1000 k, chunked through shuffle, deflate and fletcher32);
 * an NDArray "array" ([1, 2, 3] doubles kt_form_array[k], contiguous).
 * Every form also holds NDArrays kray refuses or reads in their other forms: "array1" int64,
 * "array2" an enum, "array3" opaque bytes, "array4" 9 dims, "array5" a null dataspace, "array6"
 * a compound of three floats, "array7" [1, 5] f32 kt_form_array[k] (read as [5]).
 * KT_FORM_MANY adds 80 noise scans of 1 sample x 2 channels (a global heap collection of over
 * 64 objects) to KT_FORM_PLAIN. The other forms change one thing, which kray must refuse:
 *   KT_FORM_EXTERNAL_DATA  the array's data kept in the file `other` (H5Pset_external);
 *   KT_FORM_EXTERNAL_LINK  "dataset/data" an external link to `other`;
 *   KT_FORM_SOFT_LINK      "dataset/xml" a soft link to "/xml";
 *   KT_FORM_NBIT, KT_FORM_SCALEOFFSET  the image's data through that filter;
 *   KT_FORM_COMPACT        the acquisitions in compact storage;
 *   KT_FORM_VLEN_DEFLATE   the acquisitions in chunks of 2 through deflate;
 *   KT_FORM_EMPTY          no acquisitions (an empty extendible dataset);
 *   KT_FORM_XML_COMPACT    the header a variable-length string in compact storage;
 *   KT_FORM_ADDR4          4-byte addresses and lengths. */
#ifndef KT_ISMRMRD_FORMS_H
#define KT_ISMRMRD_FORMS_H

#include <hdf5.h>
#include <stdint.h>
#include <string.h>

enum {
    KT_FORM_PLAIN,
    KT_FORM_MANY,
    KT_FORM_EXTERNAL_DATA,
    KT_FORM_EXTERNAL_LINK,
    KT_FORM_SOFT_LINK,
    KT_FORM_NBIT,
    KT_FORM_SCALEOFFSET,
    KT_FORM_COMPACT,
    KT_FORM_VLEN_DEFLATE,
    KT_FORM_EMPTY,
    KT_FORM_XML_COMPACT,
    KT_FORM_ADDR4,
    KT_FORM_COUNT
};

static const double kt_form_array[6] = {1.5, -2, 3.25, 4, -5.5, 6};
static const char kt_form_xml[] =
    "<ismrmrdHeader><encoding><encodedSpace><matrixSize><x>8</x><y>6</y><z>1</z>"
    "</matrixSize><fieldOfView_mm><x>200</x><y>150</y><z>5</z></fieldOfView_mm>"
    "</encodedSpace><reconSpace><matrixSize><x>4</x><y>6</y><z>1</z></matrixSize>"
    "<fieldOfView_mm><x>100</x><y>150</y><z>5</z></fieldOfView_mm></reconSpace>"
    "<encodingLimits><kspace_encoding_step_1><minimum>0</minimum><maximum>5</maximum>"
    "<center>3</center></kspace_encoding_step_1></encodingLimits>"
    "<trajectory>cartesian</trajectory><parallelImaging><accelerationFactor>"
    "<kspace_encoding_step_1>2</kspace_encoding_step_1></accelerationFactor>"
    "<calibrationMode>embedded</calibrationMode></parallelImaging></encoding>"
    "</ismrmrdHeader>";

/* Float k of acquisition i (k = 2 (sample + 8 channel) + 0 for real, 1 for imaginary). */
static float kt_form_sample(int i, int k) { return (float)((i * 7 + k * 3) % 11) - 5; }

typedef struct kt_form_head {
    uint64_t flags;
    uint16_t ns, ch, center;
    struct kt_form_idx {
        uint16_t e1, slice, rep;
    } idx;
} kt_form_head;
typedef struct kt_form_acq {
    kt_form_head head;
    hvl_t data;
} kt_form_acq;

static hid_t kt_form_acq_type(hid_t sample)
{
    hid_t idx = H5Tcreate(H5T_COMPOUND, sizeof(struct kt_form_idx));
    H5Tinsert(idx, "kspace_encode_step_1", HOFFSET(struct kt_form_idx, e1), H5T_NATIVE_UINT16);
    H5Tinsert(idx, "slice", HOFFSET(struct kt_form_idx, slice), H5T_NATIVE_UINT16);
    H5Tinsert(idx, "repetition", HOFFSET(struct kt_form_idx, rep), H5T_NATIVE_UINT16);
    hid_t head = H5Tcreate(H5T_COMPOUND, sizeof(kt_form_head));
    H5Tinsert(head, "flags", HOFFSET(kt_form_head, flags), H5T_NATIVE_UINT64);
    H5Tinsert(head, "number_of_samples", HOFFSET(kt_form_head, ns), H5T_NATIVE_UINT16);
    H5Tinsert(head, "active_channels", HOFFSET(kt_form_head, ch), H5T_NATIVE_UINT16);
    H5Tinsert(head, "center_sample", HOFFSET(kt_form_head, center), H5T_NATIVE_UINT16);
    H5Tinsert(head, "idx", HOFFSET(kt_form_head, idx), idx);
    hid_t v = H5Tvlen_create(sample), t = H5Tcreate(H5T_COMPOUND, sizeof(kt_form_acq));
    H5Tinsert(t, "head", HOFFSET(kt_form_acq, head), head);
    H5Tinsert(t, "data", HOFFSET(kt_form_acq, data), v);
    H5Tclose(idx);
    H5Tclose(head);
    H5Tclose(v);
    return t;
}

/* Dataset `name` of file type ft under g, written from `data` as memory type mt (dcpl may be
 * H5P_DEFAULT; data NULL: nothing written); nonzero on failure. */
static int kt_form_dataset(hid_t g, const char *name, hid_t ft, hid_t mt, hid_t space, hid_t dcpl,
                           const void *data)
{
    hid_t d = H5Dcreate2(g, name, ft, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    int bad = d < 0 || (data && H5Dwrite(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0);
    H5Dclose(d);
    H5Sclose(space);
    return bad;
}

/* The NDArrays "array1".."array7" (see the top). */
static int kt_form_arrays(hid_t g)
{
    hsize_t d2[2] = {1, 2}, d9[9] = {1, 1, 1, 1, 1, 1, 1, 1, 2}, d7[2] = {1, 5};
    const int64_t i64[2] = {7, -7};
    const uint8_t bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    const float f3[6] = {1, 2, 3, 4, 5, 6};
    hid_t en = H5Tenum_create(H5T_NATIVE_UINT8), op = H5Tcreate(H5T_OPAQUE, 4);
    hid_t c3 = H5Tcreate(H5T_COMPOUND, 3 * sizeof(float));
    uint8_t v0 = 0, v1 = 1;
    H5Tenum_insert(en, "zero", &v0);
    H5Tenum_insert(en, "one", &v1);
    H5Tinsert(c3, "a", 0, H5T_NATIVE_FLOAT);
    H5Tinsert(c3, "b", 4, H5T_NATIVE_FLOAT);
    H5Tinsert(c3, "c", 8, H5T_NATIVE_FLOAT);
    float f7[5];
    for (int i = 0; i < 5; i++) f7[i] = (float)kt_form_array[i];
    int bad = kt_form_dataset(g, "array1", H5T_STD_I64LE, H5T_NATIVE_INT64,
                              H5Screate_simple(2, d2, NULL), H5P_DEFAULT, i64);
    bad |= kt_form_dataset(g, "array2", en, en, H5Screate_simple(2, d2, NULL), H5P_DEFAULT, bytes);
    bad |= kt_form_dataset(g, "array3", op, op, H5Screate_simple(2, d2, NULL), H5P_DEFAULT, bytes);
    bad |= kt_form_dataset(g, "array4", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT,
                           H5Screate_simple(9, d9, NULL), H5P_DEFAULT, f3);
    bad |= kt_form_dataset(g, "array5", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, H5Screate(H5S_NULL),
                           H5P_DEFAULT, NULL);
    bad |= kt_form_dataset(g, "array6", c3, c3, H5Screate_simple(2, d2, NULL), H5P_DEFAULT, f3);
    bad |= kt_form_dataset(g, "array7", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT,
                           H5Screate_simple(2, d7, NULL), H5P_DEFAULT, f7);
    H5Tclose(en);
    H5Tclose(op);
    H5Tclose(c3);
    return bad;
}

/* Write `form` to path (`other`: the external file of the two external forms; `xml`: the
 * header, NULL for kt_form_xml); 0 on success. */
static int kt_write_ismrmrd_form_xml(const char *path, int form, const char *other,
                                     const char *xml)
{
    if (!xml) xml = kt_form_xml;
    int bad = 0;
    hid_t fcpl = H5Pcreate(H5P_FILE_CREATE);
    H5Pset_userblock(fcpl, 512); /* HDF5 addresses count from the end of it */
    if (form == KT_FORM_ADDR4) H5Pset_sizes(fcpl, 4, 4);
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, H5P_DEFAULT);
    H5Pclose(fcpl);
    if (f < 0) return -1;
    hid_t g = H5Gcreate2(f, "dataset", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t st = H5Tcopy(H5T_C_S1), xdcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (form == KT_FORM_XML_COMPACT) { /* a variable-length string in the object header */
        H5Tset_size(st, H5T_VARIABLE);
        H5Pset_layout(xdcpl, H5D_COMPACT);
    } else {
        H5Tset_size(st, strlen(xml) + 1);
    }
    const void *xd = form == KT_FORM_XML_COMPACT ? (const void *)&xml : (const void *)xml;
    bad |= kt_form_dataset(form == KT_FORM_SOFT_LINK ? f : g, "xml", st, st,
                           H5Screate(H5S_SCALAR), xdcpl, xd);
    H5Tclose(st);
    H5Pclose(xdcpl);
    if (form == KT_FORM_SOFT_LINK)
        bad |= H5Lcreate_soft("/xml", g, "xml", H5P_DEFAULT, H5P_DEFAULT) < 0;
    /* acquisitions: 6 (KT_FORM_MANY: and 80 one-sample noise scans), none for KT_FORM_EMPTY */
    enum { NQ = 86 };
    static kt_form_acq q[NQ];
    static float s[NQ][32];
    const int nq = form == KT_FORM_MANY ? NQ : form == KT_FORM_EMPTY ? 0 : 6;
    memset(q, 0, sizeof q);
    for (int i = 0; i < NQ; i++) {
        int one = i >= 6; /* the extra noise scans */
        q[i].head.ns = one ? 1 : 8, q[i].head.ch = 2, q[i].head.center = one ? 0 : 4;
        q[i].head.idx.e1 = (uint16_t)(i < 5 ? i + 1 : 3);
        q[i].head.idx.rep = (uint16_t)(i == 5);
        q[i].head.flags = i == 0 || one ? 1ull << 18 : i == 2 ? 1ull << 21 : 0; /* noise; reverse */
        for (int k = 0; k < 32; k++) s[i][k] = kt_form_sample(i, k);
        q[i].data.len = one ? 4 : 32;
        q[i].data.p = s[i];
    }
    if (form == KT_FORM_EXTERNAL_LINK) {
        bad |= H5Lcreate_external(other, "/dataset/data", g, "data", H5P_DEFAULT, H5P_DEFAULT) < 0;
    } else {
        hid_t mt = kt_form_acq_type(H5T_NATIVE_FLOAT), ft = kt_form_acq_type(H5T_IEEE_F32BE);
        hsize_t n = (hsize_t)nq, unlimited = H5S_UNLIMITED, two = 2;
        hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        if (form == KT_FORM_COMPACT) H5Pset_layout(dcpl, H5D_COMPACT);
        if (form == KT_FORM_VLEN_DEFLATE || form == KT_FORM_EMPTY) H5Pset_chunk(dcpl, 1, &two);
        if (form == KT_FORM_VLEN_DEFLATE) H5Pset_deflate(dcpl, 6);
        bad |= kt_form_dataset(g, "data", ft, mt,
                               H5Screate_simple(1, &n, form == KT_FORM_EMPTY ? &unlimited : NULL),
                               dcpl, nq ? q : NULL);
        H5Pclose(dcpl);
        H5Tclose(mt);
        H5Tclose(ft);
    }
    /* image "image": header (matrix_size, channels) and data [1, 1, 1, 3, 4] */
    hid_t ig = H5Gcreate2(g, "image", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    struct {
        uint16_t m[3], c;
    } ih = {{4, 3, 1}, 1};
    hsize_t three = 3, d1 = 1, dd[5] = {1, 1, 1, 3, 4};
    hid_t at = H5Tarray_create2(H5T_NATIVE_UINT16, 1, &three);
    hid_t ht = H5Tcreate(H5T_COMPOUND, sizeof ih);
    H5Tinsert(ht, "matrix_size", 0, at);
    H5Tinsert(ht, "channels", 6, H5T_NATIVE_UINT16);
    hid_t sp = H5Screate_simple(1, &d1, NULL);
    hid_t h = H5Dcreate2(ig, "header", ht, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    bad |= H5Dwrite(h, ht, H5S_ALL, H5S_ALL, H5P_DEFAULT, &ih) < 0;
    H5Dclose(h);
    H5Sclose(sp);
    H5Tclose(ht);
    H5Tclose(at);
    uint16_t pix[12];
    for (int i = 0; i < 12; i++) pix[i] = (uint16_t)(1000 * i);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 5, dd);
    if (form == KT_FORM_NBIT) {
        H5Pset_nbit(dcpl);
    } else if (form == KT_FORM_SCALEOFFSET) {
        H5Pset_scaleoffset(dcpl, H5Z_SO_INT, H5Z_SO_INT_MINBITS_DEFAULT);
    } else {
        H5Pset_shuffle(dcpl);
        H5Pset_deflate(dcpl, 6);
        H5Pset_fletcher32(dcpl);
    }
    sp = H5Screate_simple(5, dd, NULL);
    hid_t id = H5Dcreate2(ig, "data", H5T_STD_U16LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    bad |= H5Dwrite(id, H5T_NATIVE_UINT16, H5S_ALL, H5S_ALL, H5P_DEFAULT, pix) < 0;
    H5Dclose(id);
    H5Sclose(sp);
    H5Pclose(dcpl);
    H5Gclose(ig);
    /* NDArray "array": [1, 2, 3] doubles */
    hsize_t ad[3] = {1, 2, 3};
    sp = H5Screate_simple(3, ad, NULL);
    dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (form == KT_FORM_EXTERNAL_DATA) H5Pset_external(dcpl, other, 0, sizeof kt_form_array);
    hid_t ar = H5Dcreate2(g, "array", H5T_IEEE_F64LE, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    bad |= H5Dwrite(ar, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, kt_form_array) < 0;
    H5Dclose(ar);
    H5Pclose(dcpl);
    H5Sclose(sp);
    bad |= kt_form_arrays(g);
    H5Gclose(g);
    bad |= H5Fclose(f) < 0;
    return bad ? -1 : 0;
}

static int kt_write_ismrmrd_form(const char *path, int form, const char *other)
{
    return kt_write_ismrmrd_form_xml(path, form, other, NULL);
}

#endif
