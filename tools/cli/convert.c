/* kray convert: any readable format to any writable format, chosen by extension. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

/* --index "A:I[,A:I...]": keep index I of axis A (each axis once). Returns the number of pairs,
 * or -1 when the text is not such a list. */
static int kc_parse_index(const char *s, int axis[KR_MAX_DIMS], int64_t at[KR_MAX_DIMS])
{
    int n = 0;
    while (*s) {
        char *e1 = NULL, *e2 = NULL;
        long a = strtol(s, &e1, 10);
        if (e1 == s || *e1 != ':' || a < 0 || a >= KR_MAX_DIMS || n >= KR_MAX_DIMS) return -1;
        long long i = strtoll(e1 + 1, &e2, 10);
        if (e2 == e1 + 1 || i < 0 || (*e2 && *e2 != ',')) return -1;
        for (int k = 0; k < n; k++)
            if (axis[k] == (int)a) return -1;
        axis[n] = (int)a, at[n++] = i;
        s = *e2 ? e2 + 1 : e2;
    }
    return n;
}

/* A new array holding index at[k] of axis[k] of `a` (host, contiguous), those axes dropped
 * (trailing singleton dims too). */
static kr_status kc_take(const kr_array *a, int n, const int *axis, const int64_t *at,
                         kr_array **out)
{
    int64_t fixed[KR_MAX_DIMS], od[KR_MAX_DIMS], stride[KR_MAX_DIMS], base = 0, acc = 1;
    int on = 0;
    for (int d = 0; d < a->ndim; d++) fixed[d] = -1;
    for (int k = 0; k < n; k++) fixed[axis[k]] = at[k];
    for (int d = 0; d < a->ndim; d++) {
        if (fixed[d] >= 0) base += fixed[d] * acc;
        else stride[on] = acc, od[on++] = a->dims[d];
        acc *= a->dims[d];
    }
    int nd = on;
    while (nd > 1 && od[nd - 1] == 1) nd--;
    if (nd == 0) od[0] = 1, nd = 1;
    kr_status s = kr_array_create(out, a->dtype, nd, od, KR_HOST, NULL);
    if (s != KR_OK) return s;
    size_t es = kr_dtype_size(a->dtype);
    int64_t m = kr_array_numel(*out), idx[KR_MAX_DIMS] = {0};
    for (int64_t o = 0; o < m; o++) {
        int64_t off = base;
        for (int k = 0; k < on; k++) off += idx[k] * stride[k];
        memcpy((char *)(*out)->data + (size_t)o * es, (const char *)a->data + (size_t)off * es, es);
        for (int k = 0; k < on && ++idx[k] == od[k]; k++) idx[k] = 0;
    }
    return KR_OK;
}

int kc_tool_convert(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *index = NULL;
    kc_raw raw;
    memset(&raw, 0, sizeof raw);
    int out_dtype = 0, bits = 0, slice = -1, part = 0, gzip = 0, flip = 0, stored = 0;
    kc_range window = {0, 0, 0};
    const kc_opt opts[] = {
        {"out-dtype", 0, KC_CHOICE, &out_dtype, "same", "T",
         "element type stored in the output (PNG/PGM: see --bits)", "same|" KC_DTYPES, 0, 0, NULL},
        {"window", 0, KC_RANGE, &window, NULL, "LO:HI",
         "PNG/PGM: values mapped to black and white (default: min:max of the image)", NULL, 0, 0,
         NULL},
        {"bits", 'b', KC_CHOICE, &bits, "8", "B", "PNG/PGM: bits per pixel", "8|16", 0, 0, NULL},
        {"slice", 's', KC_INT, &slice, "-1", "N",
         "PNG/PGM of a volume: index along axis 2 (-1 = central slice)", NULL, -1, 2e9, NULL},
        {"index", 0, KC_STRING, &index, NULL, "A:I,...",
         "keep index I of axis A (0 = x), dropping the axis, before writing: e.g. 3:5 picks coil "
         "5 of [nx, ny, 1, coils]; any format", NULL, 0, 0, NULL},
        {"part", 'p', KC_CHOICE, &part, "mag", "PART",
         "PNG/PGM of complex data: magnitude, real, imaginary part or phase (radians)",
         "mag|real|imag|phase", 0, 0, NULL},
        {"flip-y", 0, KC_FLAG, &flip, NULL, NULL,
         "reverse axis 1 (y) before writing, for data stored bottom row first (kray's images "
         "need no flip)", NULL, 0, 0, NULL},
        {"as-stored", 0, KC_FLAG, &stored, NULL, NULL,
         ".cfl: keep BART's axis order (for k-space samples, trajectories, tables); by default "
         "a .cfl is an image, BART's [y, x, ...] = kray's [x, y, ...]", NULL, 0, 0, NULL},
        {"gzip", 'z', KC_FLAG, &gzip, NULL, NULL, "NRRD output: gzip encoding", NULL, 0, 0, NULL},
        KC_RAW_OPTS(raw),
        {"", 'w', KC_RENAMED, NULL, NULL, "--window", NULL, NULL, 0, 0, NULL},
        {"", 'f', KC_RENAMED, NULL, NULL, "--flip-y", NULL, NULL, 0, 0, NULL},
        {0}};
    const kc_arg args[] = {{"input", &in, "file to read (format from the extension)", 0},
                           {"output", &out, "file to write (format from the extension)", 0},
                           {0}};
    const kc_spec spec = {
        "convert",
        "Convert between file formats, chosen by extension: .cfl/.hdr .npy .nii .nii.gz .mha\n"
        ".mhd .nrrd .pgm .raw (read and write) and .png (write). PNG/PGM render one 2-D image\n"
        "(a slice of a volume, a part of complex data) through a grey window. Header fields (spacing, origin,\n"
        "description) are carried over where both formats have them. The output is written to\n"
        "a temporary name and renamed, so a failed conversion leaves no file behind.",
        opts,
        args,
        KC_HOST,
        "Examples:\n  kray convert phantom.cfl phantom.nii\n"
        "  kray convert --window 0:0.5 --bits 16 phantom.nii phantom.png\n"
        "  kray convert --part phase --slice 3 kspace.cfl phase.png\n"
        "  kray convert --index 3:2 coil_images.cfl coil2.png\n"
        "  kray convert --dims 512x512 --dtype i16 --big-endian --offset 2048 scan.raw scan.npy",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    kc_apply_threads(&c);

    kr_io_opts io;
    kr_io_opts_default(&io);
    if ((r = kc_check_output("convert", out)) != 0) return r;
    if ((r = kc_raw_to_io("convert", in, &raw, &io)) != 0) return r;
    io.bits = bits == 1 ? 16 : 8;
    io.window_set = window.set;
    io.window_lo = window.lo;
    io.window_hi = window.hi;
    io.slice = slice;
    io.complex_part = part;
    io.nrrd_gzip = gzip ? 1 : 0;
    io.axes = stored ? KR_IO_AXES_STORED : KR_IO_AXES_IMAGE;
    io.write_dtype = out_dtype == 0 ? KR_DTYPE_INVALID : kc_dtype_of_choice(out_dtype - 1);

    kr_array *a = NULL;
    kr_meta meta;
    memset(&meta, 0, sizeof meta);
    int ixa[KR_MAX_DIMS], nix = 0;
    int64_t ixi[KR_MAX_DIMS];
    if (index && (nix = kc_parse_index(index, ixa, ixi)) < 0)
        return kc_usage("convert", "--index '%s' is not a list of AXIS:INDEX pairs (e.g. 3:0 or "
                                   "2:4,3:1), each axis once", index);
    kr_status s = kc_read(in, &a, &meta, &io);
    if (s != KR_OK) return kc_fail("convert", s);
    for (int k = 0; k < nix; k++) {
        int64_t n = ixa[k] < a->ndim ? a->dims[ixa[k]] : 1;
        if (ixi[k] >= n) {
            char d[128];
            kr_dims_string(a->ndim, a->dims, d, sizeof d);
            kr_array_destroy(a);
            return kc_usage("convert", "--index %d:%lld is outside '%s' (%s): axis %d has %lld "
                                       "value%s", ixa[k], (long long)ixi[k], in, d, ixa[k],
                            (long long)n, n == 1 ? "" : "s");
        }
    }
    if (nix > 0) {
        kr_array *t = NULL;
        s = kc_take(a, nix, ixa, ixi, &t);
        kr_array_destroy(a);
        if (s != KR_OK) return kc_fail("convert", s);
        a = t;
    }
    if (slice >= 0 &&
        (kr_format_from_path(out) == KR_FMT_PNG || kr_format_from_path(out) == KR_FMT_PGM)) {
        int64_t nz = a->ndim > 2 ? a->dims[2] : 1;
        if (slice >= nz) {
            char d[128];
            kr_dims_string(a->ndim, a->dims, d, sizeof d);
            kr_array_destroy(a);
            return kc_usage("convert", "--slice %d is outside '%s', which has %lld slice%s (%s) "
                                       "along axis 2; --index AXIS:I picks along any axis",
                            slice, in, (long long)nz, nz == 1 ? "" : "s", d);
        }
    }
    if (flip && kc_flip_y(a) != 0) {
        kr_array_destroy(a);
        kc_error("convert", "out of memory flipping '%s'", in);
        return KC_EXIT_INPUT;
    }
    io.meta = &meta;
    double t0 = kr_time_now();
    s = kr_write(out, a, &io);
    double t1 = kr_time_now();
    if (s != KR_OK) {
        kr_array_destroy(a);
        return kc_fail("convert", s);
    }
    if (!c.quiet && c.verbose) {
        char d[128], tb[32];
        kc_note("convert", "wrote %s (%s %s) in %s", out,
                kr_dims_string(a->ndim, a->dims, d, sizeof d), kr_dtype_name(a->dtype),
                kc_fmt_seconds(t1 - t0, tb, sizeof tb));
    }
    kr_array_destroy(a);
    return 0;
}
