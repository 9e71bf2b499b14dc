/* MetaImage reader and writer: .mha (text header followed by the data, ElementDataFile = LOCAL)
 * and .mhd (text header naming a separate data file, relative to the header's folder).
 *
 * Reading: "Key = Value" lines up to and including ElementDataFile (keys compared without
 * case; unknown keys such as TransformMatrix, CenterOfRotation and AnatomicalOrientation are
 * ignored). Required: NDims (1..16), DimSize, ElementType, ElementDataFile. ElementType
 * MET_UCHAR, MET_CHAR (-> i16), MET_SHORT, MET_USHORT, MET_INT / MET_UINT (-> f64), MET_FLOAT,
 * MET_DOUBLE; ElementNumberOfChannels 2 of MET_FLOAT / MET_DOUBLE is complex (c64 / c128),
 * other channel counts are refused. BinaryData must be True; byte order from
 * BinaryDataByteOrderMSB or ElementByteOrderMSB (False when absent); CompressedData True means
 * a zlib stream (CompressedDataSize bytes, or the rest of the file). HeaderSize bytes are
 * skipped at the start of a separate data file (-1: the data is the last bytes of the file).
 * ElementSpacing (> 0) -> spacing of the first three axes; Offset (or Position / Origin) ->
 * origin; Comment -> description. ElementDataFile LIST or a file pattern is refused.
 * Writing: uncompressed little-endian, all the array's dims, identity TransformMatrix, Offset
 * and ElementSpacing from kr_meta (unknown spacing = 1), Comment from kr_meta.description.
 * A .mhd writes "<name>.raw" beside it (the data first, then the header, each through a
 * temporary file). */
#include "fmtcommon.h"
#include "kv_header.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MHA_MAX_HEADER ((size_t)1 << 20)

typedef struct mha_type {
    const char *name;
    kri_stype st;
} mha_type;

static const mha_type mha_types[] = {{"MET_UCHAR", KRI_ST_U8},  {"MET_CHAR", KRI_ST_I8},
                                     {"MET_SHORT", KRI_ST_I16}, {"MET_USHORT", KRI_ST_U16},
                                     {"MET_INT", KRI_ST_I32},   {"MET_UINT", KRI_ST_U32},
                                     {"MET_FLOAT", KRI_ST_F32}, {"MET_DOUBLE", KRI_ST_F64}};

typedef struct mha_hdr {
    int ndims;
    int64_t dims[KR_MAX_DIMS];
    int have_dims, have_spacing, have_offset, have_msb;
    double spacing[KR_MAX_DIMS], offset[KR_MAX_DIMS];
    kri_stype st;
    int channels, big, compressed;
    int64_t compressed_size, header_size;
    int64_t numel; /* product of DimSize */
    char datafile[1024];
    char comment[128];
    size_t header_len; /* bytes up to the end of the ElementDataFile line */
} mha_hdr;

static kr_status mha_bool(const char *path, const char *key, const char *v, int *out)
{
    if (!strcasecmp(v, "true") || !strcmp(v, "1"))
        *out = 1;
    else if (!strcasecmp(v, "false") || !strcmp(v, "0"))
        *out = 0;
    else
        return kri_fail(KR_ERR_FORMAT, "%s: %s is '%s', expected True or False", path, key, v);
    return KR_OK;
}

/* NDims finite numbers; the count is checked once NDims is known. */
static kr_status mha_reals(const char *path, const char *key, const char *v, double *out,
                           int *count)
{
    int n = kri_parse_f64s(v, NULL, out, KR_MAX_DIMS);
    if (n < 0)
        return kri_fail(KR_ERR_FORMAT, "%s: %s is '%s', expected up to %d numbers", path, key, v,
                        KR_MAX_DIMS);
    for (int i = 0; i < n; i++)
        if (!isfinite(out[i]))
            return kri_fail(KR_ERR_FORMAT, "%s: %s value %d is %g, must be a finite number", path,
                            key, i + 1, out[i]);
    *count = n;
    return KR_OK;
}

static kr_status mha_line(const char *path, char *key, char *v, mha_hdr *h, int *nspacing,
                          int *noffset, int *msb_seen)
{
    int64_t x = 0;
    if (!strcasecmp(key, "ObjectType")) {
        if (strcasecmp(v, "Image") != 0)
            return kri_fail(KR_ERR_FORMAT, "%s: ObjectType is '%s', kray reads 'Image'", path, v);
    } else if (!strcasecmp(key, "NDims")) {
        KRI_TRY(kri_kv_int(path, key, v, 1, KR_MAX_DIMS, &x));
        h->ndims = (int)x;
    } else if (!strcasecmp(key, "DimSize")) {
        int n = kri_parse_i64s(v, NULL, h->dims, KR_MAX_DIMS);
        if (n < 1)
            return kri_fail(KR_ERR_FORMAT, "%s: DimSize is '%s', expected whole numbers", path, v);
        h->have_dims = n;
    } else if (!strcasecmp(key, "ElementType")) {
        h->st = KRI_ST_NONE;
        for (size_t i = 0; i < sizeof mha_types / sizeof mha_types[0]; i++)
            if (!strcasecmp(v, mha_types[i].name)) h->st = mha_types[i].st;
        if (h->st == KRI_ST_NONE)
            return kri_fail(KR_ERR_FORMAT,
                            "%s: ElementType '%s' is not supported (kray reads MET_UCHAR, "
                            "MET_CHAR, MET_SHORT, MET_USHORT, MET_INT, MET_UINT, MET_FLOAT, "
                            "MET_DOUBLE)",
                            path, v);
    } else if (!strcasecmp(key, "ElementNumberOfChannels")) {
        KRI_TRY(kri_kv_int(path, key, v, 1, 1 << 20, &x));
        h->channels = (int)x;
    } else if (!strcasecmp(key, "ElementSpacing")) {
        KRI_TRY(mha_reals(path, key, v, h->spacing, nspacing));
        for (int i = 0; i < *nspacing; i++)
            if (!(h->spacing[i] > 0))
                return kri_fail(KR_ERR_FORMAT, "%s: ElementSpacing value %d is %g, must be > 0",
                                path, i + 1, h->spacing[i]);
        h->have_spacing = 1;
    } else if (!strcasecmp(key, "Offset") || !strcasecmp(key, "Position") ||
               !strcasecmp(key, "Origin")) {
        KRI_TRY(mha_reals(path, key, v, h->offset, noffset));
        h->have_offset = 1;
    } else if (!strcasecmp(key, "BinaryData")) {
        int b = 0;
        KRI_TRY(mha_bool(path, key, v, &b));
        if (!b)
            return kri_fail(KR_ERR_NOT_SUPPORTED,
                            "%s: BinaryData is False (text samples); kray reads binary data", path);
    } else if (!strcasecmp(key, "BinaryDataByteOrderMSB") ||
               !strcasecmp(key, "ElementByteOrderMSB")) {
        int b = 0;
        KRI_TRY(mha_bool(path, key, v, &b));
        if (*msb_seen && b != h->big)
            return kri_fail(KR_ERR_FORMAT,
                            "%s: BinaryDataByteOrderMSB and ElementByteOrderMSB disagree", path);
        h->big = b;
        *msb_seen = 1;
    } else if (!strcasecmp(key, "CompressedData")) {
        KRI_TRY(mha_bool(path, key, v, &h->compressed));
    } else if (!strcasecmp(key, "CompressedDataSize")) {
        KRI_TRY(kri_kv_int(path, key, v, 1, INT64_MAX, &h->compressed_size));
    } else if (!strcasecmp(key, "HeaderSize")) {
        KRI_TRY(kri_kv_int(path, key, v, -1, INT64_MAX, &h->header_size));
    } else if (!strcasecmp(key, "Comment")) {
        snprintf(h->comment, sizeof h->comment, "%s", v);
    } else if (!strcasecmp(key, "ElementDataFile")) {
        int multi = !strcasecmp(v, "LIST") || strchr(v, '%');
        KRI_TRY(kri_kv_datafile(path, "ElementDataFile", v, multi, "LOCAL", h->datafile,
                                sizeof h->datafile));
    }
    return KR_OK;
}

static kr_status mha_parse(const char *path, char *text, size_t len, void *hdr)
{
    mha_hdr *h = hdr;
    memset(h, 0, sizeof *h);
    h->channels = 1;
    int nspacing = 0, noffset = 0, msb_seen = 0;
    kri_kv_lines r;
    kri_kv_begin(&r, text, len);
    char *t;
    int got;
    while (!h->datafile[0] && (got = kri_kv_next(&r, &t)) != 0) {
        if (got < 0)
            return kri_fail(KR_ERR_FORMAT,
                            "%s: not a MetaImage header: binary bytes in line %d, before the "
                            "ElementDataFile key that must end the header",
                            path, r.lineno);
        if (!*t) continue;
        char *key, *val;
        if (!kri_kv_split(t, "=", &key, &val))
            return kri_fail(KR_ERR_FORMAT,
                            "%s: line %d is not 'Key = Value'; not a MetaImage header", path,
                            r.lineno);
        KRI_TRY(mha_line(path, key, val, h, &nspacing, &noffset, &msb_seen));
        if (h->datafile[0]) h->header_len = r.pos;
    }
    if (!h->datafile[0])
        return kri_fail(KR_ERR_FORMAT,
                        "%s: no ElementDataFile key (it must end the header); not a MetaImage "
                        "file",
                        path);
    if (!h->ndims) return kri_fail(KR_ERR_FORMAT, "%s: required key NDims is missing", path);
    if (!h->have_dims) return kri_fail(KR_ERR_FORMAT, "%s: required key DimSize is missing", path);
    if (h->st == KRI_ST_NONE)
        return kri_fail(KR_ERR_FORMAT, "%s: required key ElementType is missing", path);
    if (h->have_dims != h->ndims)
        return kri_fail(KR_ERR_FORMAT, "%s: DimSize has %d values but NDims is %d", path,
                        h->have_dims, h->ndims);
    if (h->have_spacing && nspacing != h->ndims)
        return kri_fail(KR_ERR_FORMAT, "%s: ElementSpacing has %d values but NDims is %d", path,
                        nspacing, h->ndims);
    if (h->have_offset && noffset != h->ndims)
        return kri_fail(KR_ERR_FORMAT, "%s: Offset has %d values but NDims is %d", path, noffset,
                        h->ndims);
    if (h->channels != 1 && !(h->channels == 2 && (h->st == KRI_ST_F32 || h->st == KRI_ST_F64)))
        return kri_fail(KR_ERR_FORMAT,
                        "%s: ElementNumberOfChannels %d of %s is not supported (kray reads 1, "
                        "or 2 of MET_FLOAT / MET_DOUBLE as complex)",
                        path, h->channels, kri_stype_name(h->st));
    if (h->header_size == -1 && h->compressed)
        return kri_fail(KR_ERR_FORMAT, "%s: HeaderSize -1 cannot be used with compressed data",
                        path);
    return kri_dims_product(path, "DimSize", h->ndims, h->dims, &h->numel);
}

kr_status kri_read_mha(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o)
{
    (void)o;
    mha_hdr h;
    KRI_TRY(kri_kv_read(path, MHA_MAX_HEADER, "MetaImage header", mha_parse, &h));
    size_t bytes = (size_t)h.numel * (size_t)h.channels * kri_stype_size(h.st);
    int local = !strcasecmp(h.datafile, "LOCAL");
    char dpath[4096];
    size_t dsize = 0, start = h.header_len;
    KRI_TRY(kri_data_file(path, "ElementDataFile", local ? NULL : h.datafile, dpath, sizeof dpath,
                          &dsize));
    if (!local) {
        if (h.header_size == -1) {
            if (bytes > dsize)
                return kri_fail(KR_ERR_FORMAT,
                                "%s: header promises %zu data bytes but %s holds only %zu", path,
                                bytes, dpath, dsize);
            start = dsize - bytes;
        } else {
            start = (size_t)h.header_size;
            if (start > dsize)
                return kri_fail(KR_ERR_FORMAT,
                                "%s: HeaderSize %zu is beyond the end of %s (%zu bytes)", path,
                                start, dpath, dsize);
        }
    }
    /* check what the file can hold before allocating what the header asks for */
    size_t avail = dsize - start, csize = 0;
    if (!h.compressed && bytes > avail)
        return kri_fail(KR_ERR_FORMAT,
                        "%s: header promises %zu data bytes but %s holds only %zu after the "
                        "header",
                        path, bytes, dpath, avail);
    if (h.compressed) {
        csize = h.compressed_size ? (size_t)h.compressed_size : avail;
        if (csize > avail)
            return kri_fail(KR_ERR_FORMAT,
                            "%s: CompressedDataSize %zu is more than the %zu bytes %s holds", path,
                            csize, avail, dpath);
        if (kri_inflate_cannot_hold(csize, bytes))
            return kri_fail(KR_ERR_FORMAT,
                            "%s: %zu bytes of compressed data cannot hold the %zu bytes the "
                            "header promises",
                            path, csize, bytes);
    }
    kr_array *a;
    KRI_TRY(kri_io_array(&a, path, kri_stype_dtype(h.st, h.channels == 2), h.ndims, h.dims));
    FILE *f;
    kr_status s = kri_data_open(path, dpath, start, &f);
    if (s == KR_OK && !h.compressed) {
        s = kri_samples_from_file(f, dpath, h.st, h.big, a);
    } else if (s == KR_OK) {
        s = kri_samples_from_zfile(f, path, dpath, csize, bytes, "MetaImage", "compressed data",
                                   h.st, h.big, a);
    }
    if (f) fclose(f);
    if (s != KR_OK) {
        kr_array_destroy(a);
        return s;
    }
    if (meta) {
        for (int i = 0; i < 3 && i < h.ndims; i++) {
            meta->spacing[i] = h.have_spacing ? h.spacing[i] : 0.0;
            meta->origin[i] = h.have_offset ? h.offset[i] : 0.0;
        }
        snprintf(meta->description, sizeof meta->description, "%s", h.comment);
    }
    *out = a;
    return KR_OK;
}

/* ---- writing ------------------------------------------------------------------------------ */
/* ElementType of the stored component type of t (MET_FLOAT for c64, ...); NULL if none. */
static const char *mha_type_name(kr_dtype t)
{
    kri_stype st = kri_stype_of(t);
    for (size_t i = 0; st != KRI_ST_NONE && i < sizeof mha_types / sizeof mha_types[0]; i++)
        if (mha_types[i].st == st) return mha_types[i].name;
    return NULL;
}

static kr_status mha_write_header(kri_wfile *w, const kr_array *a, const kr_meta *m,
                                  const char *datafile)
{
    int n = a->ndim;
    kri_wfile_printf(w, "ObjectType = Image\nNDims = %d\n", n);
    if (m->description[0]) {
        char c[sizeof m->description];
        size_t k = 0;
        for (; k + 1 < sizeof c && m->description[k]; k++)
            c[k] =
                (m->description[k] == '\n' || m->description[k] == '\r') ? ' ' : m->description[k];
        c[k] = 0;
        kri_wfile_printf(w, "Comment = %s\n", c);
    }
    kri_wfile_printf(w, "BinaryData = True\nBinaryDataByteOrderMSB = False\n"
                        "CompressedData = False\nTransformMatrix =");
    for (int i = 0; i < n * n; i++)
        kri_wfile_printf(w, " %d", i % (n + 1) == 0);
    kri_wfile_printf(w, "\nOffset =");
    for (int i = 0; i < n; i++)
        kri_wfile_printf(w, " %.17g", i < 3 ? m->origin[i] : 0.0);
    kri_wfile_printf(w, "\nElementSpacing =");
    for (int i = 0; i < n; i++)
        kri_wfile_printf(w, " %.17g", i < 3 && m->spacing[i] > 0 ? m->spacing[i] : 1.0);
    kri_wfile_printf(w, "\nDimSize =");
    for (int i = 0; i < n; i++)
        kri_wfile_printf(w, " %lld", (long long)a->dims[i]);
    kri_wfile_printf(w, "\n");
    if (kr_dtype_is_complex(a->dtype)) kri_wfile_printf(w, "ElementNumberOfChannels = 2\n");
    return kri_wfile_printf(w, "ElementType = %s\nElementDataFile = %s\n", mha_type_name(a->dtype),
                            datafile);
}

kr_status kri_write_mha(const char *path, const kr_array *a, const kr_io_opts *o)
{
    kr_dtype dt = o->write_dtype != KR_DTYPE_INVALID ? o->write_dtype : a->dtype;
    if (!mha_type_name(dt))
        return kri_fail(KR_ERR_DTYPE, "%s: MetaImage cannot store element type %s", path,
                        kr_dtype_name(dt));
    kr_meta m;
    KRI_TRY(kri_write_meta(path, o, &m));
    size_t pl = strlen(path);
    int detached = pl > 4 && !strcasecmp(path + pl - 4, ".mhd");
    char rawpath[4096], rawname[1024];
    if (detached) {
        const char *slash = strrchr(path, '/');
        const char *base = slash ? slash + 1 : path;
        size_t bl = strlen(base) - 4;
        if (pl + 1 > sizeof rawpath || bl + 5 > sizeof rawname)
            return kri_fail(KR_ERR_INVALID_ARG, "%s: output path is too long", path);
        snprintf(rawname, sizeof rawname, "%.*s.raw", (int)bl, base);
        snprintf(rawpath, sizeof rawpath, "%.*s.raw", (int)(pl - 4), path);
    }
    const kr_array *use;
    kr_array *tmp;
    KRI_TRY(kri_io_as_dtype(a, dt, &use, &tmp));
    kri_wfile hw, dw;
    memset(&dw, 0, sizeof dw);
    kr_status s = KR_OK;
    if (detached) {
        s = kri_wfile_open(&dw, rawpath);
        if (s == KR_OK) s = kri_samples_write(&dw, use, 0);
    }
    int hopen = 0;
    if (s == KR_OK) {
        s = kri_wfile_open(&hw, path);
        hopen = s == KR_OK;
    }
    if (s == KR_OK) s = mha_write_header(&hw, use, &m, detached ? rawname : "LOCAL");
    if (s == KR_OK && !detached) s = kri_samples_write(&hw, use, 0);
    if (s == KR_OK && detached) s = kri_wfile_commit(&dw);
    if (s == KR_OK) {
        s = kri_wfile_commit(&hw);
        if (s != KR_OK && detached) remove(rawpath);
    } else {
        if (hopen) kri_wfile_abort(&hw);
        if (detached) kri_wfile_abort(&dw);
    }
    kr_array_destroy(tmp);
    return s;
}
