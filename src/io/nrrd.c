/* NRRD (.nrrd) reader and writer.
 *
 * Reading: magic "NRRD0001".."NRRD0005"; fields (names compared without case) type,
 * dimension, sizes, endian, encoding, spacings, space / space dimension, space directions,
 * space origin, kinds, content, data file, line skip, byte skip; comments ("#") and key/value
 * pairs ("key:=value") and other fields are ignored. Types: uchar/uint8, signed char/int8 (-> i16),
 * short/int16, ushort/uint16, int/int32 and uint/uint32 (-> f64), float, double (every synonym
 * of the NRRD specification). Encodings raw and gzip (zlib); ascii, hex and bzip2 are
 * KR_ERR_NOT_SUPPORTED. Complex data is a leading axis of size 2 whose kind is "complex"
 * (float -> c64, double -> c128); that axis is not one of kray's axes. Spacing of kray's axis i
 * (i < 3) = length of its space direction, else |spacings[i]| ("nan" = unknown = 0); origin =
 * space origin (first three components). The data may follow the header (after the blank line,
 * then "line skip" lines and "byte skip" bytes; byte skip -1 = the data is the last bytes of the
 * file, raw only) or be one detached file ("data file: NAME", relative to the header's folder);
 * LIST and numbered file patterns are KR_ERR_NOT_SUPPORTED.
 * Writing: NRRD0004, attached data, little-endian, raw or gzip (o->nrrd_gzip), kinds "complex
 * domain ..." for complex arrays, "space dimension" = min(ndim, 3) with axis-aligned "space
 * directions" from kr_meta spacing (unknown = 1; "none" for the complex axis and axes past the
 * third), "space origin" from kr_meta, "content" from kr_meta.description. */
#include "fmtcommon.h"
#include "kv_header.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define NRRD_MAX_HEADER ((size_t)1 << 20)

typedef struct nrrd_type {
    const char *names;
    kri_stype st;
} nrrd_type;

/* '|'-separated synonyms from the NRRD specification */
static const nrrd_type nrrd_types[] = {
    {"uchar|unsigned char|uint8|uint8_t", KRI_ST_U8},
    {"signed char|int8|int8_t", KRI_ST_I8},
    {"short|short int|signed short|signed short int|int16|int16_t", KRI_ST_I16},
    {"ushort|unsigned short|unsigned short int|uint16|uint16_t", KRI_ST_U16},
    {"int|signed int|int32|int32_t", KRI_ST_I32},
    {"uint|unsigned int|uint32|uint32_t", KRI_ST_U32},
    {"float", KRI_ST_F32},
    {"double", KRI_ST_F64}};

static int nrrd_in_list(const char *list, const char *v)
{
    size_t n = strlen(v);
    for (const char *p = list; *p;) {
        const char *bar = strchr(p, '|');
        size_t k = bar ? (size_t)(bar - p) : strlen(p);
        if (k == n && strncasecmp(p, v, n) == 0) return 1;
        if (!bar) break;
        p = bar + 1;
    }
    return 0;
}

typedef struct nrrd_hdr {
    int dim, nsizes, have_type, have_endian, big, gzip, nkinds;
    int64_t sizes[KR_MAX_DIMS];
    int64_t numel; /* product of sizes */
    kri_stype st;
    int space_dim;
    int have_spacings, have_dirs, have_origin;
    double spacings[KR_MAX_DIMS];
    double dirs[KR_MAX_DIMS][3];
    int dir_none[KR_MAX_DIMS];
    double origin[3];
    int complex_axis;
    char content[128];
    char datafile[1024];
    int64_t line_skip, byte_skip;
    size_t header_len;
    char enc[32];
} nrrd_hdr;

static kr_status nrrd_int(const char *path, const char *key, const char *v, int64_t lo, int64_t hi,
                          int64_t *out)
{
    char name[96];
    snprintf(name, sizeof name, "field '%s'", key);
    return kri_kv_int(path, name, v, lo, hi, out);
}

/* "(a,b,c)" -> vector of n finite numbers */
static kr_status nrrd_vector(const char *path, const char *key, const char *tok, size_t len, int n,
                             double *v)
{
    char buf[256];
    if (len < 2 || tok[0] != '(' || tok[len - 1] != ')' || len - 2 >= sizeof buf)
        return kri_fail(KR_ERR_FORMAT, "%s: field '%s': '%.*s' is not a vector like (1,0,0)", path,
                        key, (int)(len > 60 ? 60 : len), tok);
    memcpy(buf, tok + 1, len - 2);
    buf[len - 2] = 0;
    double tmp[KR_MAX_DIMS];
    int k = kri_parse_f64s(buf, ",", tmp, KR_MAX_DIMS);
    if (k != n)
        return kri_fail(KR_ERR_FORMAT, "%s: field '%s': vector (%s) must have %d components", path,
                        key, buf, n);
    for (int i = 0; i < n; i++) {
        if (!isfinite(tmp[i]))
            return kri_fail(KR_ERR_FORMAT, "%s: field '%s': component %d of (%s) is %g", path, key,
                            i + 1, buf, tmp[i]);
        if (i < 3) v[i] = tmp[i];
    }
    return KR_OK;
}

/* Next whitespace-separated token of s (a vector may not contain spaces after commas in
 * strict NRRD, but spaces inside parentheses are tolerated). */
static const char *nrrd_token(const char *s, size_t *len)
{
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s) return NULL;
    const char *e = s;
    int depth = 0;
    while (*e && (depth > 0 || (*e != ' ' && *e != '\t'))) {
        if (*e == '(') depth++;
        if (*e == ')') depth--;
        e++;
    }
    *len = (size_t)(e - s);
    return s;
}

static kr_status nrrd_space(const char *path, const char *v, int *dim)
{
    static const char *const three =
        "right-anterior-superior|RAS|left-anterior-superior|LAS|left-posterior-superior|LPS|"
        "scanner-xyz|3D-right-handed|3D-left-handed";
    static const char *const four =
        "right-anterior-superior-time|RAST|left-anterior-superior-time|LAST|"
        "left-posterior-superior-time|LPST|scanner-xyz-time|3D-right-handed-time|"
        "3D-left-handed-time";
    if (nrrd_in_list(three, v))
        *dim = 3;
    else if (nrrd_in_list(four, v))
        *dim = 4;
    else
        return kri_fail(KR_ERR_FORMAT, "%s: field 'space' has unknown value '%s'", path, v);
    return KR_OK;
}

static kr_status nrrd_field(const char *path, const char *key, char *v, nrrd_hdr *h,
                            char *dirs_text, char *kinds_text)
{
    int64_t x = 0;
    if (!strcasecmp(key, "type")) {
        for (size_t i = 0; i < sizeof nrrd_types / sizeof nrrd_types[0]; i++)
            if (nrrd_in_list(nrrd_types[i].names, v)) h->st = nrrd_types[i].st;
        if (h->st == KRI_ST_NONE)
            return kri_fail(KR_ERR_FORMAT,
                            "%s: field 'type' is '%s', not supported (kray reads uchar, signed "
                            "char, short, ushort, int, uint, float and double)",
                            path, v);
        h->have_type = 1;
    } else if (!strcasecmp(key, "dimension")) {
        KRI_TRY(nrrd_int(path, key, v, 1, KR_MAX_DIMS, &x));
        h->dim = (int)x;
    } else if (!strcasecmp(key, "sizes")) {
        int n = kri_parse_i64s(v, NULL, h->sizes, KR_MAX_DIMS);
        if (n < 1)
            return kri_fail(KR_ERR_FORMAT, "%s: field 'sizes' is '%s', expected whole numbers",
                            path, v);
        h->nsizes = n;
    } else if (!strcasecmp(key, "endian")) {
        if (!strcasecmp(v, "little"))
            h->big = 0;
        else if (!strcasecmp(v, "big"))
            h->big = 1;
        else
            return kri_fail(KR_ERR_FORMAT, "%s: field 'endian' is '%s', expected little or big",
                            path, v);
        h->have_endian = 1;
    } else if (!strcasecmp(key, "encoding")) {
        snprintf(h->enc, sizeof h->enc, "%s", v);
        if (!strcasecmp(v, "raw"))
            h->gzip = 0;
        else if (!strcasecmp(v, "gzip") || !strcasecmp(v, "gz"))
            h->gzip = 1;
        else if (nrrd_in_list("ascii|text|txt|hex|bzip2|bz2", v))
            return kri_fail(KR_ERR_NOT_SUPPORTED,
                            "%s: NRRD encoding '%s' is not supported; kray reads raw and gzip",
                            path, v);
        else
            return kri_fail(KR_ERR_FORMAT, "%s: field 'encoding' has unknown value '%s'", path, v);
    } else if (!strcasecmp(key, "spacings")) {
        if (!h->dim)
            return kri_fail(KR_ERR_FORMAT, "%s: field 'spacings' must come after 'dimension'",
                            path);
        int n = kri_parse_f64s(v, NULL, h->spacings, KR_MAX_DIMS);
        if (n < 0 || n != h->dim)
            return kri_fail(KR_ERR_FORMAT,
                            "%s: field 'spacings' is '%s', expected %d numbers (one per axis)",
                            path, v, h->dim);
        for (int i = 0; i < n; i++)
            if (isinf(h->spacings[i]))
                return kri_fail(KR_ERR_FORMAT, "%s: field 'spacings': value %d is %g", path, i + 1,
                                h->spacings[i]);
        h->have_spacings = 1;
    } else if (!strcasecmp(key, "space")) {
        KRI_TRY(nrrd_space(path, v, &h->space_dim));
    } else if (!strcasecmp(key, "space dimension")) {
        KRI_TRY(nrrd_int(path, key, v, 1, 16, &x));
        h->space_dim = (int)x;
    } else if (!strcasecmp(key, "space directions")) {
        snprintf(dirs_text, 4096, "%s", v);
        h->have_dirs = 1;
    } else if (!strcasecmp(key, "space origin")) {
        if (!h->space_dim)
            return kri_fail(KR_ERR_FORMAT,
                            "%s: field 'space origin' needs 'space' or 'space dimension' before "
                            "it",
                            path);
        KRI_TRY(nrrd_vector(path, key, v, strlen(v), h->space_dim, h->origin));
        h->have_origin = 1;
    } else if (!strcasecmp(key, "kinds")) {
        snprintf(kinds_text, 4096, "%s", v);
    } else if (!strcasecmp(key, "content")) {
        snprintf(h->content, sizeof h->content, "%s", v);
    } else if (!strcasecmp(key, "data file") || !strcasecmp(key, "datafile")) {
        int multi = !strncasecmp(v, "LIST", 4) || strchr(v, ' ') || strchr(v, '%');
        KRI_TRY(kri_kv_datafile(path, "data file", v, multi, "attached data", h->datafile,
                                sizeof h->datafile));
    } else if (!strcasecmp(key, "line skip") || !strcasecmp(key, "lineskip")) {
        KRI_TRY(nrrd_int(path, key, v, 0, INT32_MAX, &h->line_skip));
    } else if (!strcasecmp(key, "byte skip") || !strcasecmp(key, "byteskip")) {
        KRI_TRY(nrrd_int(path, key, v, -1, INT64_MAX, &h->byte_skip));
    }
    return KR_OK;
}

/* After all fields: axes, kinds, directions. */
static kr_status nrrd_finish(const char *path, nrrd_hdr *h, const char *dirs_text,
                             const char *kinds_text)
{
    if (!h->have_type) return kri_fail(KR_ERR_FORMAT, "%s: required field 'type' is missing", path);
    if (!h->dim) return kri_fail(KR_ERR_FORMAT, "%s: required field 'dimension' is missing", path);
    if (!h->nsizes) return kri_fail(KR_ERR_FORMAT, "%s: required field 'sizes' is missing", path);
    if (!h->enc[0])
        return kri_fail(KR_ERR_FORMAT, "%s: required field 'encoding' is missing", path);
    if (h->nsizes != h->dim)
        return kri_fail(KR_ERR_FORMAT, "%s: field 'sizes' has %d values but dimension is %d", path,
                        h->nsizes, h->dim);
    if (kri_stype_size(h->st) > 1 && !h->have_endian)
        return kri_fail(KR_ERR_FORMAT, "%s: field 'endian' is required for type %s", path,
                        kri_stype_name(h->st));
    if (h->gzip && h->byte_skip != 0)
        return kri_fail(KR_ERR_NOT_SUPPORTED, "%s: 'byte skip' with gzip encoding is not supported",
                        path);
    /* kinds: only "complex" on the first axis matters */
    h->complex_axis = 0;
    if (kinds_text[0]) {
        size_t len;
        const char *t = nrrd_token(kinds_text, &len);
        if (t && len == 7 && !strncasecmp(t, "complex", 7)) {
            if (h->sizes[0] != 2)
                return kri_fail(KR_ERR_FORMAT,
                                "%s: the first axis has kind 'complex' but size %lld, not 2", path,
                                (long long)h->sizes[0]);
            if (h->st != KRI_ST_F32 && h->st != KRI_ST_F64)
                return kri_fail(KR_ERR_FORMAT,
                                "%s: complex data must have type float or double, not %s", path,
                                kri_stype_name(h->st));
            h->complex_axis = 1;
        }
    }
    if (h->have_dirs) {
        if (!h->space_dim)
            return kri_fail(KR_ERR_FORMAT,
                            "%s: field 'space directions' needs 'space' or 'space dimension' "
                            "before it",
                            path);
        const char *p = dirs_text;
        int i = 0;
        size_t len;
        const char *t;
        while ((t = nrrd_token(p, &len)) != NULL) {
            if (i == h->dim)
                return kri_fail(KR_ERR_FORMAT,
                                "%s: field 'space directions' has more than %d entries", path,
                                h->dim);
            if (len == 4 && !strncasecmp(t, "none", 4))
                h->dir_none[i] = 1;
            else
                KRI_TRY(nrrd_vector(path, "space directions", t, len, h->space_dim, h->dirs[i]));
            i++;
            p = t + len;
        }
        if (i != h->dim)
            return kri_fail(KR_ERR_FORMAT,
                            "%s: field 'space directions' has %d entries but dimension is %d", path,
                            i, h->dim);
    }
    return kri_dims_product(path, "sizes", h->dim, h->sizes, &h->numel);
}

static kr_status nrrd_parse(const char *path, char *text, size_t len, void *hdr)
{
    nrrd_hdr *h = hdr;
    memset(h, 0, sizeof *h);
    if (len < 8 || memcmp(text, "NRRD000", 7) != 0)
        return kri_fail(KR_ERR_FORMAT, "%s: not a NRRD file (no \"NRRD000N\" magic)", path);
    if (text[7] < '1' || text[7] > '5')
        return kri_fail(KR_ERR_FORMAT, "%s: NRRD version '%c' is not 1 to 5", path, text[7]);
    char *dirs_text, *kinds_text;
    KRI_TRY(kri_alloc((void **)&dirs_text, 8192, "NRRD header"));
    kinds_text = dirs_text + 4096;
    dirs_text[0] = kinds_text[0] = 0;
    kr_status s = KR_OK;
    kri_kv_lines r;
    kri_kv_begin(&r, text, len);
    char *t;
    int got, ended = 0;
    while (s == KR_OK && (got = kri_kv_next(&r, &t)) != 0) {
        if (got < 0) {
            s = kri_fail(KR_ERR_FORMAT,
                         "%s: header line %d holds binary bytes (is the blank line that ends "
                         "the header missing?)",
                         path, r.lineno);
            break;
        }
        if (r.lineno == 1) continue; /* magic */
        if (!*t) {
            ended = 1;
            break;
        }
        if (t[0] == '#') continue;
        const char *colon = strchr(t, ':');
        if (colon && colon[1] == '=') continue; /* key/value pair */
        char *key, *val;
        if (!kri_kv_split(t, ": ", &key, &val)) {
            s = kri_fail(KR_ERR_FORMAT, "%s: header line %d is not 'field: value'", path,
                         r.lineno);
            break;
        }
        s = nrrd_field(path, key, val, h, dirs_text, kinds_text);
    }
    h->header_len = r.pos;
    if (s == KR_OK && !ended && !h->datafile[0])
        s = kri_fail(KR_ERR_FORMAT,
                     "%s: the header does not end with a blank line (file truncated?)", path);
    if (s == KR_OK) s = nrrd_finish(path, h, dirs_text, kinds_text);
    kri_free(dirs_text);
    return s;
}

/* Position after `lines` newlines from `start` in the data file. */
static kr_status nrrd_skip_lines(const char *path, FILE *f, int64_t lines)
{
    for (int64_t i = 0; i < lines; i++) {
        int c;
        while ((c = fgetc(f)) != EOF && c != '\n') {
        }
        if (c == EOF)
            return kri_fail(KR_ERR_FORMAT, "%s: 'line skip' %lld runs past the end of the data",
                            path, (long long)lines);
    }
    return KR_OK;
}

/* Locate the data in `f` (after line skip / byte skip), check that it can hold `bytes`, then
 * create the array and read it. */
static kr_status nrrd_data(const char *path, const char *dpath, FILE *f, size_t dsize,
                           const nrrd_hdr *h, size_t bytes, kr_dtype dt, int nd,
                           const int64_t *dims, kr_array **out)
{
    KRI_TRY(nrrd_skip_lines(path, f, h->line_skip));
    long here = ftell(f);
    if (here < 0 || (size_t)here > dsize)
        return kri_fail(KR_ERR_IO, "%s: cannot tell the position in %s", path, dpath);
    size_t avail = dsize - (size_t)here, skip = 0;
    if (!h->gzip) {
        if (h->byte_skip == -1) {
            if (bytes > avail)
                return kri_fail(KR_ERR_FORMAT,
                                "%s: header promises %zu data bytes but %s holds only %zu", path,
                                bytes, dpath, avail);
            skip = avail - bytes;
        } else {
            skip = (size_t)h->byte_skip;
        }
        if (skip > avail || bytes > avail - skip)
            return kri_fail(KR_ERR_FORMAT,
                            "%s: header promises %zu data bytes after %zu skipped but %s holds "
                            "only %zu",
                            path, bytes, skip, dpath, avail);
        if (fseek(f, (long)skip, SEEK_CUR) != 0)
            return kri_fail(KR_ERR_IO, "%s: cannot seek in %s", path, dpath);
    } else if (kri_inflate_cannot_hold(avail, bytes)) {
        return kri_fail(KR_ERR_FORMAT,
                        "%s: %zu bytes of gzip data cannot hold the %zu bytes the header "
                        "promises",
                        path, avail, bytes);
    }
    kr_array *a;
    KRI_TRY(kri_io_array(&a, path, dt, nd, dims));
    kr_status s = KR_OK;
    if (!h->gzip) {
        s = kri_samples_from_file(f, dpath, h->st, h->big, a);
    } else {
        s = kri_samples_from_zfile(f, path, dpath, avail, bytes, "NRRD", "gzip data", h->st,
                                   h->big, a);
    }
    if (s != KR_OK) {
        kr_array_destroy(a);
        return s;
    }
    *out = a;
    return KR_OK;
}

kr_status kri_read_nrrd(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *o)
{
    (void)o;
    nrrd_hdr h;
    KRI_TRY(kri_kv_read(path, NRRD_MAX_HEADER, "NRRD header", nrrd_parse, &h));
    size_t bytes = (size_t)h.numel * kri_stype_size(h.st);
    int nd = h.dim - h.complex_axis;
    int64_t dims[KR_MAX_DIMS] = {1};
    for (int i = 0; i < nd; i++)
        dims[i] = h.sizes[i + h.complex_axis];
    if (nd == 0) nd = 1;
    char dpath[4096];
    size_t dsize = 0, start = h.datafile[0] ? 0 : h.header_len;
    KRI_TRY(kri_data_file(path, "data file", h.datafile[0] ? h.datafile : NULL, dpath,
                          sizeof dpath, &dsize));
    FILE *f;
    KRI_TRY(kri_data_open(path, dpath, start, &f));
    kr_array *a = NULL;
    kr_status s = nrrd_data(path, dpath, f, dsize, &h, bytes,
                            kri_stype_dtype(h.st, h.complex_axis), nd, dims, &a);
    fclose(f);
    KRI_TRY(s);
    if (meta) {
        for (int i = 0; i < 3 && i < h.dim - h.complex_axis; i++) {
            int ax = i + h.complex_axis;
            if (h.have_dirs && !h.dir_none[ax]) {
                double n2 = 0;
                for (int k = 0; k < h.space_dim && k < 3; k++)
                    n2 += h.dirs[ax][k] * h.dirs[ax][k];
                meta->spacing[i] = sqrt(n2);
            } else if (h.have_spacings && isfinite(h.spacings[ax])) {
                meta->spacing[i] = fabs(h.spacings[ax]);
            }
        }
        if (h.have_origin)
            for (int k = 0; k < 3 && k < h.space_dim; k++)
                meta->origin[k] = h.origin[k];
        snprintf(meta->description, sizeof meta->description, "%s", h.content);
    }
    *out = a;
    return KR_OK;
}

/* ---- writing ------------------------------------------------------------------------------ */
/* "type" of the stored component type of t ("float" for c64, ...); NULL if none. */
static const char *nrrd_type_name(kr_dtype t)
{
    static const char *const names[] = {[KRI_ST_U8] = "uchar",  [KRI_ST_I16] = "short",
                                        [KRI_ST_U16] = "ushort", [KRI_ST_F32] = "float",
                                        [KRI_ST_F64] = "double"};
    kri_stype st = kri_stype_of(t);
    return (size_t)st < sizeof names / sizeof names[0] ? names[st] : NULL;
}

static void nrrd_write_header(kri_wfile *w, const kr_array *a, const kr_meta *m, int gzip)
{
    int cplx = kr_dtype_is_complex(a->dtype), n = a->ndim, sd = n < 3 ? n : 3;
    kri_wfile_printf(w, "NRRD0004\n# written by kray %s\ntype: %s\ndimension: %d\nsizes:",
                     kr_version(), nrrd_type_name(a->dtype), n + cplx);
    if (cplx) kri_wfile_printf(w, " 2");
    for (int i = 0; i < n; i++)
        kri_wfile_printf(w, " %lld", (long long)a->dims[i]);
    if (cplx) {
        kri_wfile_printf(w, "\nkinds: complex");
        for (int i = 0; i < n; i++)
            kri_wfile_printf(w, " domain");
    }
    kri_wfile_printf(w, "\nendian: little\nencoding: %s\n", gzip ? "gzip" : "raw");
    if (m->description[0]) {
        kri_wfile_printf(w, "content: ");
        for (size_t k = 0; k < sizeof m->description && m->description[k]; k++) {
            char c = m->description[k];
            kri_wfile_printf(w, "%c", c == '\n' || c == '\r' ? ' ' : c);
        }
        kri_wfile_printf(w, "\n");
    }
    kri_wfile_printf(w, "space dimension: %d\nspace directions:", sd);
    if (cplx) kri_wfile_printf(w, " none");
    for (int i = 0; i < n; i++) {
        if (i >= 3) {
            kri_wfile_printf(w, " none");
            continue;
        }
        double s = m->spacing[i] > 0 ? m->spacing[i] : 1.0;
        kri_wfile_printf(w, " (");
        for (int k = 0; k < sd; k++)
            kri_wfile_printf(w, "%s%.17g", k ? "," : "", k == i ? s : 0.0);
        kri_wfile_printf(w, ")");
    }
    kri_wfile_printf(w, "\nspace origin: (");
    for (int k = 0; k < sd; k++)
        kri_wfile_printf(w, "%s%.17g", k ? "," : "", m->origin[k]);
    kri_wfile_printf(w, ")\n\n");
}

typedef struct nrrd_out {
    int gzip;
    kr_meta m;
} nrrd_out;

/* The text header, then the samples (raw or one gzip member). */
static kr_status nrrd_body(kri_wfile *w, const kr_array *a, void *user)
{
    const nrrd_out *out = user;
    nrrd_write_header(w, a, &out->m, out->gzip);
    KRI_TRY(w->status);
    return out->gzip ? kri_samples_write_gzip(w, a, 0) : kri_samples_write(w, a, 0);
}

kr_status kri_write_nrrd(const char *path, const kr_array *a, const kr_io_opts *o)
{
    kr_dtype dt = o->write_dtype != KR_DTYPE_INVALID ? o->write_dtype : a->dtype;
    if (!nrrd_type_name(dt))
        return kri_fail(KR_ERR_DTYPE, "%s: NRRD cannot store element type %s", path,
                        kr_dtype_name(dt));
    int cplx = kr_dtype_is_complex(dt);
    if (a->ndim + cplx > KR_MAX_DIMS)
        return kri_fail(KR_ERR_DIM,
                        "%s: a complex array of %d dims needs %d NRRD axes (at most %d)", path,
                        a->ndim, a->ndim + 1, KR_MAX_DIMS);
    nrrd_out out;
    out.gzip = o->nrrd_gzip;
    KRI_TRY(kri_write_meta(path, o, &out.m));
    return kri_write_through(path, a, dt, nrrd_body, &out);
}
