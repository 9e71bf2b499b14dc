/* NIfTI-1 single-file (.nii) reader and writer, written from the NIfTI-1 header layout
 * (348-byte header, 4-byte extension flag, data at vox_offset). A path ending in .nii.gz is
 * the same file gzip-compressed: read through zlib's gz interface (any number of gzip members,
 * as nibabel and FSL write them), written as one gzip member of header and data.
 *
 * Reading:
 *   - either byte order (detected from sizeof_hdr == 348), magic "n+1"; dim[0] 1..7;
 *   - datatypes uint8, int16, uint16, float32, float64, complex64, complex128 are read as
 *     u8/i16/u16/f32/f64/c64/c128; int8 is widened to i16 and int32/uint32 to f64 (lossless);
 *     others (binary, RGB, RGBA, int64, uint64, float128, complex256) are KR_ERR_FORMAT;
 *   - scl_slope/scl_inter (as nibabel: slope 0 or not finite = no scaling; (1, 0) = none):
 *     y = slope * x + inter in double precision, stored as f32 for 8/16-bit and float32
 *     sources, f64 for int32/uint32/float64, c64/c128 for complex (slope scales both parts,
 *     inter adds to the real part);
 *   - spacing = |pixdim[1..3]| converted to mm with xyzt_units (metre, mm, micron; unknown =
 *     mm); origin = the translation column of the sform when sform_code > 0, else qoffset when
 *     qform_code > 0, else 0 (also converted to mm), with x and y negated: NIfTI's world is
 *     RAS, kray's is LPS (x to the patient's left, y posterior: DICOM and ITK, and the screen's
 *     right and down in an axial view). Orientation/rotation is not applied otherwise;
 *   - description = descrip.
 * Writing: little-endian, vox_offset 352, no extensions, dim[0] = the array's ndim (trailing
 * 1s beyond 7 dropped; each size <= 32767), pixdim from kr_meta spacing (unknown = 1),
 * xyzt_units mm, qform and sform (code 1, scanner) with the rotation diag(-1, -1, 1) (quatern
 * d = 1) and the kr_meta origin, both in RAS: index i runs to the left and j to the back, so
 * viewers that honour the orientation (ITK-SNAP, FSLeyes, 3D Slicer) show row j = 0 at the top
 * and i = 0 on the screen's left, as NumPy, PNG and MetaImage; scl_slope 1 / scl_inter 0,
 * descrip from kr_meta. */
#include "fmtcommon.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#define NII_HDR 348
#define NII_DATA 352 /* header + 4-byte extension flag */

/* ---- explicit byte-order access to header fields ------------------------------------------ */
static void nii_get(const unsigned char *h, int off, int big, void *out, int size)
{
    unsigned char b[8];
    for (int i = 0; i < size; i++)
        b[i] = h[off + (big ? size - 1 - i : i)];
    /* b is now little-endian; convert to host */
    if (!kri_host_little_endian()) kri_byteswap(b, 1, (size_t)size);
    memcpy(out, b, (size_t)size);
}
static int32_t nii_i32(const unsigned char *h, int off, int big)
{
    int32_t v;
    nii_get(h, off, big, &v, 4);
    return v;
}
static int16_t nii_i16(const unsigned char *h, int off, int big)
{
    int16_t v;
    nii_get(h, off, big, &v, 2);
    return v;
}
static double nii_f32(const unsigned char *h, int off, int big)
{
    float v;
    nii_get(h, off, big, &v, 4);
    return v;
}

/* little-endian stores */
static void nii_put(unsigned char *h, int off, const void *v, int size)
{
    memcpy(h + off, v, (size_t)size);
    if (!kri_host_little_endian()) kri_byteswap(h + off, 1, (size_t)size);
}
static void nii_put_i32(unsigned char *h, int off, int32_t v)
{
    nii_put(h, off, &v, 4);
}
static void nii_put_i16(unsigned char *h, int off, int16_t v)
{
    nii_put(h, off, &v, 2);
}
static void nii_put_f32(unsigned char *h, int off, double v)
{
    float f = (float)v;
    nii_put(h, off, &f, 4);
}

/* field offsets */
enum {
    O_SIZEOF_HDR = 0,
    O_DIM = 40,
    O_DATATYPE = 70,
    O_BITPIX = 72,
    O_PIXDIM = 76,
    O_VOX_OFFSET = 108,
    O_SCL_SLOPE = 112,
    O_SCL_INTER = 116,
    O_XYZT_UNITS = 123,
    O_DESCRIP = 148,
    O_QFORM_CODE = 252,
    O_SFORM_CODE = 254,
    O_QUATERN_B = 256,
    O_QOFFSET = 268,
    O_SROW = 280,
    O_MAGIC = 344
};

typedef struct nii_type {
    int code;
    const char *name;
    kri_stype st;
    int is_complex;
} nii_type;

static const nii_type nii_types[] = {
    {2, "uint8", KRI_ST_U8, 0},         {4, "int16", KRI_ST_I16, 0},
    {8, "int32", KRI_ST_I32, 0},        {16, "float32", KRI_ST_F32, 0},
    {32, "complex64", KRI_ST_F32, 1},   {64, "float64", KRI_ST_F64, 0},
    {256, "int8", KRI_ST_I8, 0},        {512, "uint16", KRI_ST_U16, 0},
    {768, "uint32", KRI_ST_U32, 0},     {1792, "complex128", KRI_ST_F64, 1},
    {1, "binary", KRI_ST_NONE, 0},      {128, "RGB24", KRI_ST_NONE, 0},
    {1024, "int64", KRI_ST_NONE, 0},    {1280, "uint64", KRI_ST_NONE, 0},
    {1536, "float128", KRI_ST_NONE, 0}, {2048, "complex256", KRI_ST_NONE, 0},
    {2304, "RGBA32", KRI_ST_NONE, 0}};

static const nii_type *nii_type_of(int code)
{
    for (size_t i = 0; i < sizeof nii_types / sizeof nii_types[0]; i++)
        if (nii_types[i].code == code) return &nii_types[i];
    return NULL;
}

static int nii_code_of(kr_dtype t)
{
    switch (t) {
    case KR_U8: return 2;
    case KR_I16: return 4;
    case KR_F32: return 16;
    case KR_C64: return 32;
    case KR_F64: return 64;
    case KR_U16: return 512;
    case KR_C128: return 1792;
    default: return 0;
    }
}

/* mm per unit of xyzt_units' spatial part */
static double nii_unit_mm(int units)
{
    switch (units & 7) {
    case 1: return 1000.0; /* metre */
    case 3: return 0.001;  /* micron */
    default: return 1.0;   /* mm, or unknown (taken as mm) */
    }
}

/* ---- reading ------------------------------------------------------------------------------ */
typedef struct nii_info {
    int big, ndim;
    int64_t dims[7], numel;
    const nii_type *type;
    long vox_offset;
    double slope, inter;
    int scaled;
} nii_info;

/* fsize: the bytes the file holds; for a .nii.gz (csize > 0 compressed bytes) the most that
 * many bytes of gzip data can decompress to. */
static kr_status nii_parse(const char *path, const unsigned char *h, size_t fsize, size_t csize,
                           nii_info *in, kr_meta *meta)
{
    memset(in, 0, sizeof *in);
    int32_t sz_le = nii_i32(h, O_SIZEOF_HDR, 0), sz_be = nii_i32(h, O_SIZEOF_HDR, 1);
    if (sz_le == NII_HDR)
        in->big = 0;
    else if (sz_be == NII_HDR)
        in->big = 1;
    else if (sz_le == 540 || sz_be == 540)
        return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: this is a NIfTI-2 file; kray reads NIfTI-1",
                        path);
    else
        return kri_fail(KR_ERR_FORMAT,
                        "%s: not a NIfTI-1 file: sizeof_hdr is %ld, expected 348 in either "
                        "byte order",
                        path, (long)sz_le);
    int big = in->big;
    const unsigned char *m = h + O_MAGIC;
    if (memcmp(m, "ni1\0", 4) == 0)
        return kri_fail(KR_ERR_NOT_SUPPORTED,
                        "%s: magic \"ni1\" marks a .hdr/.img pair; kray reads single-file "
                        ".nii (magic \"n+1\")",
                        path);
    if (memcmp(m, "n+1\0", 4) != 0)
        return kri_fail(KR_ERR_FORMAT,
                        "%s: magic is not \"n+1\" (bytes %02x %02x %02x %02x); not a NIfTI-1 "
                        "single file",
                        path, m[0], m[1], m[2], m[3]);
    int nd = nii_i16(h, O_DIM, big);
    if (nd < 1 || nd > 7)
        return kri_fail(KR_ERR_FORMAT, "%s: dim[0] is %d, must be 1 to 7", path, nd);
    in->ndim = nd;
    for (int i = 0; i < nd; i++) {
        in->dims[i] = nii_i16(h, O_DIM + 2 * (i + 1), big);
        if (in->dims[i] < 1)
            return kri_fail(KR_ERR_FORMAT, "%s: dim[%d] is %lld, must be at least 1", path, i + 1,
                            (long long)in->dims[i]);
    }
    KRI_TRY(kri_dims_product(path, "dim", nd, in->dims, &in->numel));

    int code = nii_i16(h, O_DATATYPE, big);
    const nii_type *t = nii_type_of(code);
    if (!t)
        return kri_fail(KR_ERR_FORMAT, "%s: datatype %d is not a NIfTI-1 data type", path, code);
    if (t->st == KRI_ST_NONE)
        return kri_fail(KR_ERR_FORMAT,
                        "%s: datatype %d (%s) is not supported; kray reads uint8, int8, int16, "
                        "uint16, int32, uint32, float32, float64, complex64 and complex128",
                        path, code, t->name);
    in->type = t;
    int bitpix = nii_i16(h, O_BITPIX, big);
    int want_bits = (int)kri_stype_size(t->st) * 8 * (t->is_complex ? 2 : 1);
    if (bitpix != want_bits)
        return kri_fail(KR_ERR_FORMAT, "%s: bitpix is %d but datatype %d (%s) has %d bits", path,
                        bitpix, code, t->name, want_bits);

    double pixdim[8];
    for (int i = 0; i < 8; i++)
        pixdim[i] = nii_f32(h, O_PIXDIM + 4 * i, big);
    for (int i = 0; i <= nd; i++)
        if (!isfinite(pixdim[i]))
            return kri_fail(KR_ERR_FORMAT, "%s: pixdim[%d] is %g, must be a finite number", path, i,
                            pixdim[i]);

    double vox = nii_f32(h, O_VOX_OFFSET, big);
    if (!isfinite(vox) || vox != floor(vox))
        return kri_fail(KR_ERR_FORMAT, "%s: vox_offset is %g, must be a whole number", path, vox);
    if (vox < NII_DATA)
        return kri_fail(KR_ERR_FORMAT,
                        "%s: vox_offset is %.0f, must be at least 352 in a single-file NIfTI", path,
                        vox);
    if (csize && (vox > (double)fsize ||
                  (size_t)in->numel * (size_t)want_bits / 8 > fsize - (size_t)vox))
        return kri_fail(KR_ERR_FORMAT,
                        "%s: header promises %lld samples at vox_offset %.0f, more than %zu bytes "
                        "of gzip data can hold",
                        path, (long long)in->numel, vox, csize);
    if (vox > (double)fsize)
        return kri_fail(KR_ERR_FORMAT, "%s: vox_offset %.0f is beyond the end of the %zu-byte file",
                        path, vox, fsize);
    in->vox_offset = (long)vox;
    size_t bytes = (size_t)in->numel * (size_t)want_bits / 8;
    if (bytes > fsize - (size_t)in->vox_offset)
        return kri_fail(KR_ERR_FORMAT,
                        "%s: header promises %zu data bytes at offset %ld but the file holds "
                        "only %zu",
                        path, bytes, in->vox_offset, fsize - (size_t)in->vox_offset);

    double slope = nii_f32(h, O_SCL_SLOPE, big), inter = nii_f32(h, O_SCL_INTER, big);
    if (slope != 0.0 && isfinite(slope)) {
        if (!isfinite(inter))
            return kri_fail(KR_ERR_FORMAT, "%s: scl_slope is %g but scl_inter is %g", path, slope,
                            inter);
        if (!(slope == 1.0 && inter == 0.0)) {
            in->scaled = 1;
            in->slope = slope;
            in->inter = inter;
        }
    }

    if (meta) {
        int units = h[O_XYZT_UNITS];
        double mm = nii_unit_mm(units);
        for (int i = 0; i < 3 && i < nd; i++)
            meta->spacing[i] = fabs(pixdim[i + 1]) * mm;
        int qcode = nii_i16(h, O_QFORM_CODE, big), scode = nii_i16(h, O_SFORM_CODE, big);
        double o[3] = {0, 0, 0};
        const char *src = NULL;
        if (scode > 0) {
            for (int i = 0; i < 3; i++)
                o[i] = nii_f32(h, O_SROW + 16 * i + 12, big);
            src = "srow translation";
        } else if (qcode > 0) {
            for (int i = 0; i < 3; i++)
                o[i] = nii_f32(h, O_QOFFSET + 4 * i, big);
            src = "qoffset";
        }
        for (int i = 0; i < 3; i++) {
            if (!isfinite(o[i]))
                return kri_fail(KR_ERR_FORMAT, "%s: %s[%d] is %g, must be a finite number", path,
                                src, i, o[i]);
            meta->origin[i] = (i < 2 ? -o[i] : o[i]) * mm; /* RAS -> LPS */
        }
        size_t n = 0;
        while (n < 80 && n + 1 < sizeof meta->description && h[O_DESCRIP + n])
            n++;
        memcpy(meta->description, h + O_DESCRIP, n);
        meta->description[n] = 0;
    }
    return KR_OK;
}

/* Apply y = slope * x + inter from `raw` (the stored values) into the new array `out`. */
static void nii_scale(const kr_array *raw, kr_array *out, double slope, double inter)
{
    int64_t n = kr_array_numel(raw);
    if (kr_dtype_is_complex(raw->dtype)) {
        for (int64_t i = 0; i < n; i++) {
            double re, im;
            if (raw->dtype == KR_C64) {
                re = ((const float *)raw->data)[2 * i];
                im = ((const float *)raw->data)[2 * i + 1];
            } else {
                re = ((const double *)raw->data)[2 * i];
                im = ((const double *)raw->data)[2 * i + 1];
            }
            re = slope * re + inter;
            im = slope * im;
            if (out->dtype == KR_C64) {
                ((float *)out->data)[2 * i] = (float)re;
                ((float *)out->data)[2 * i + 1] = (float)im;
            } else {
                ((double *)out->data)[2 * i] = re;
                ((double *)out->data)[2 * i + 1] = im;
            }
        }
        return;
    }
    for (int64_t i = 0; i < n; i++) {
        double y = slope * kr_array_get_f64(raw, i) + inter;
        if (out->dtype == KR_F32)
            ((float *)out->data)[i] = (float)y;
        else
            ((double *)out->data)[i] = y;
    }
}

int kri_nifti_gz(const char *path)
{
    const size_t n = strlen(path);
    return n >= 7 && strcasecmp(path + n - 7, ".nii.gz") == 0;
}


/* The gzip file being read and its path, for nii_gzread. */
typedef struct nii_gz {
    gzFile g;
    const char *path;
} nii_gz;

/* Up to n decompressed bytes into p (a kri_read_fn; gzread takes an int count): the count
 * read, or -1 with the sentence set when the stream is corrupt. */
static long long nii_gzread(void *user, void *p, size_t n)
{
    const nii_gz *z = user;
    size_t done = 0;
    while (done < n) {
        const unsigned k = n - done < (size_t)INT_MAX ? (unsigned)(n - done) : (unsigned)INT_MAX;
        const int r = gzread(z->g, (unsigned char *)p + done, k);
        if (r < 0) {
            int e = 0;
            const char *msg = gzerror(z->g, &e);
            kri_fail(KR_ERR_FORMAT, "%s: not a valid gzip stream (%s)", z->path,
                     msg && *msg ? msg : "corrupt data");
            return -1;
        }
        if (r == 0) break;
        done += (size_t)r;
    }
    return (long long)done;
}

/* The header and the stored samples of a .nii.gz into raw (created), decompressed straight
 * into it (no second copy of the data). */
static kr_status nii_read_gz(const char *path, unsigned char *h, nii_info *in, kr_meta *m,
                             kr_array **raw)
{
    size_t csize;
    KRI_TRY(kri_file_size(path, &csize)); /* a regular file: no FIFO or device to block on */
    nii_gz z = {gzopen(path, "rb"), path};
    if (!z.g) return kri_fail(KR_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    kr_status s = KR_OK;
    long long got = nii_gzread(&z, h, NII_HDR);
    if (got < 0)
        s = KR_ERR_FORMAT;
    else if (got < NII_HDR)
        s = kri_fail(KR_ERR_FORMAT,
                     "%s: decompresses to %lld bytes, too short for a 348-byte NIfTI-1 header",
                     path, got);
    /* the decompressed size is known only by reading: the data are checked as they come */
    /* the decompressed size is bounded by the deflate ratio: a header promising more than the
     * compressed bytes can hold is refused before anything is allocated */
    if (s == KR_OK) s = nii_parse(path, h, kri_inflate_max(csize), csize ? csize : 1, in, m);
    if (s == KR_OK)
        s = kri_io_array(raw, path, kri_stype_dtype(in->type->st, in->type->is_complex), in->ndim,
                         in->dims);
    if (s == KR_OK && gzseek(z.g, in->vox_offset, SEEK_SET) != in->vox_offset)
        s = kri_fail(KR_ERR_FORMAT, "%s: decompresses to less than vox_offset %ld bytes", path,
                     in->vox_offset);
    if (s == KR_OK) s = kri_samples_read(nii_gzread, &z, path, in->type->st, in->big, *raw);
    gzclose(z.g);
    return s;
}

kr_status kri_read_nifti(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o)
{
    (void)o;
    unsigned char h[NII_HDR];
    nii_info in;
    kr_meta m;
    memset(&m, 0, sizeof m);
    kr_array *raw = NULL, *res = NULL;
    kr_status s = KR_OK;
    if (kri_nifti_gz(path)) {
        s = nii_read_gz(path, h, &in, &m, &raw);
    } else {
        size_t fsize;
        KRI_TRY(kri_file_size(path, &fsize));
        if (fsize < NII_HDR)
            return kri_fail(KR_ERR_FORMAT,
                            "%s: file is %zu bytes, too short for a 348-byte NIfTI-1 header",
                            path, fsize);
        FILE *f = fopen(path, "rb");
        if (!f) return kri_fail(KR_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
        if (fread(h, 1, NII_HDR, f) != NII_HDR) {
            fclose(f);
            return kri_fail(KR_ERR_IO, "%s: cannot read the header", path);
        }
        s = nii_parse(path, h, fsize, 0, &in, &m);
        if (s == KR_OK)
            s = kri_io_array(&raw, path, kri_stype_dtype(in.type->st, in.type->is_complex), in.ndim,
                             in.dims);
        if (s == KR_OK && fseek(f, in.vox_offset, SEEK_SET) != 0)
            s = kri_fail(KR_ERR_IO, "%s: cannot seek to vox_offset %ld", path, in.vox_offset);
        if (s == KR_OK) s = kri_samples_from_file(f, path, in.type->st, in.big, raw);
        fclose(f);
    }
    if (s == KR_OK && in.scaled) {
        kr_dtype sd = kr_dtype_is_complex(raw->dtype) ? raw->dtype
                      : (raw->dtype == KR_F64)        ? KR_F64
                                                      : KR_F32;
        s = kri_io_array(&res, path, sd, in.ndim, in.dims);
        if (s == KR_OK) nii_scale(raw, res, in.slope, in.inter);
        kr_array_destroy(raw);
        raw = NULL;
    } else {
        res = raw;
    }
    if (s != KR_OK) {
        if (res != raw) kr_array_destroy(res);
        kr_array_destroy(raw);
        return s;
    }
    if (meta) *meta = m;
    *out = res;
    return KR_OK;
}

/* ---- writing ------------------------------------------------------------------------------ */
/* The header (348 bytes and the 4-byte extension flag), then the samples; plain or one gzip
 * member of both. */
static kr_status nii_body(kri_wfile *w, const kr_array *a, void *head)
{
    KRI_TRY(kri_wfile_write(w, head, NII_DATA));
    return kri_samples_write(w, a, 0);
}

static kr_status nii_body_gz(kri_wfile *w, const kr_array *a, void *head)
{
    return kri_gzip_write(w, head, NII_DATA, a, 0);
}

kr_status kri_write_nifti(const char *path, const kr_array *a, const kr_io_opts *o)
{
    kr_dtype dt = o->write_dtype != KR_DTYPE_INVALID ? o->write_dtype : a->dtype;
    int code = nii_code_of(dt);
    if (!code)
        return kri_fail(KR_ERR_DTYPE, "%s: NIfTI cannot store element type %s", path,
                        kr_dtype_name(dt));
    int nd = a->ndim;
    while (nd > 7 && a->dims[nd - 1] == 1)
        nd--;
    char buf[160];
    if (nd > 7)
        return kri_fail(KR_ERR_DIM, "%s: NIfTI-1 holds at most 7 dimensions; this array is %s",
                        path, kr_dims_string(a->ndim, a->dims, buf, sizeof buf));
    for (int i = 0; i < nd; i++)
        if (a->dims[i] > 32767)
            return kri_fail(KR_ERR_DIM,
                            "%s: NIfTI-1 sizes are at most 32767; axis %d of this %s array has "
                            "%lld",
                            path, i, kr_dims_string(a->ndim, a->dims, buf, sizeof buf),
                            (long long)a->dims[i]);
    kr_meta m;
    KRI_TRY(kri_write_meta(path, o, &m));

    unsigned char h[NII_DATA];
    memset(h, 0, sizeof h);
    nii_put_i32(h, O_SIZEOF_HDR, NII_HDR);
    h[39] = 0; /* dim_info */
    nii_put_i16(h, O_DIM, (int16_t)nd);
    for (int i = 1; i < 8; i++)
        nii_put_i16(h, O_DIM + 2 * i, (int16_t)(i <= nd ? a->dims[i - 1] : 1));
    nii_put_i16(h, O_DATATYPE, (int16_t)code);
    nii_put_i16(h, O_BITPIX, (int16_t)(kr_dtype_size(dt) * 8));
    double sp[3];
    for (int i = 0; i < 3; i++)
        sp[i] = m.spacing[i] > 0 ? m.spacing[i] : 1.0;
    nii_put_f32(h, O_PIXDIM, 1.0); /* qfac */
    for (int i = 1; i < 8; i++)
        nii_put_f32(h, O_PIXDIM + 4 * i, i <= 3 ? sp[i - 1] : 1.0);
    nii_put_f32(h, O_VOX_OFFSET, NII_DATA);
    nii_put_f32(h, O_SCL_SLOPE, 1.0);
    nii_put_f32(h, O_SCL_INTER, 0.0);
    h[O_XYZT_UNITS] = 2; /* NIFTI_UNITS_MM */
    size_t dl = strnlen(m.description, sizeof m.description);
    memcpy(h + O_DESCRIP, m.description, dl < 79 ? dl : 79);
    nii_put_i16(h, O_QFORM_CODE, 1);
    nii_put_i16(h, O_SFORM_CODE, 1);
    const double lps[3] = {-1, -1, 1}; /* kray's LPS axes in NIfTI's RAS world */
    for (int i = 0; i < 3; i++)
        nii_put_f32(h, O_QUATERN_B + 4 * i, i == 2 ? 1.0 : 0.0); /* 180 degrees about z */
    for (int i = 0; i < 3; i++)
        nii_put_f32(h, O_QOFFSET + 4 * i, lps[i] * m.origin[i]);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++)
            nii_put_f32(h, O_SROW + 16 * r + 4 * c,
                        lps[r] * (c == 3 ? m.origin[r] : c == r ? sp[r] : 0.0));
    memcpy(h + O_MAGIC, "n+1\0", 4);
    /* bytes 348..351: extension flag 0 (no extensions) */

    return kri_write_through(path, a, dt, kri_nifti_gz(path) ? nii_body_gz : nii_body, h);
}
