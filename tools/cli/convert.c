/* kray convert: any readable format to any writable format, chosen by extension. */
#include "cli.h"

#include <string.h>

int kc_tool_convert(int argc, char **argv)
{
    const char *in = NULL, *out = NULL;
    kc_raw raw;
    memset(&raw, 0, sizeof raw);
    int out_dtype = 0, bits = 0, slice = -1, part = 0, gzip = 0, flip = 0;
    kc_range window = {0, 0, 0};
    const kc_opt opts[] = {
        {"out-dtype", 0, KC_CHOICE, &out_dtype, "same", "T",
         "element type stored in the output (PNG/PGM: see --bits)", "same|" KC_DTYPES, 0, 0, NULL},
        {"window", 'w', KC_RANGE, &window, NULL, "LO:HI",
         "PNG/PGM: values mapped to black and white (default: min:max of the image)", NULL, 0, 0,
         NULL},
        {"bits", 'b', KC_CHOICE, &bits, "8", "B", "PNG/PGM: bits per pixel", "8|16", 0, 0, NULL},
        {"slice", 's', KC_INT, &slice, "-1", "N",
         "PNG/PGM of a volume: index along axis 2 (-1 = central slice)", NULL, -1, 2e9, NULL},
        {"part", 'p', KC_CHOICE, &part, "mag", "PART",
         "PNG/PGM of complex data: magnitude, real, imaginary part or phase (radians)",
         "mag|real|imag|phase", 0, 0, NULL},
        {"flip-y", 'f', KC_FLAG, &flip, NULL, NULL,
         "reverse axis 1 (y) before writing: kray images have y up, viewers put row 0 on top", NULL,
         0, 0, NULL},
        {"gzip", 'z', KC_FLAG, &gzip, NULL, NULL, "NRRD output: gzip encoding", NULL, 0, 0, NULL},
        KC_RAW_OPTS(raw),
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
        "  kray convert --flip-y --window 0:0.5 --bits 16 phantom.nii phantom.png\n"
        "  kray convert --part phase --slice 3 kspace.cfl phase.png\n"
        "  kray convert --dims 512x512 --dtype i16 --big-endian --offset 2048 scan.raw scan.npy",
        NULL,
        NULL};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    kc_apply_threads(&c);

    kr_io_opts io;
    kr_io_opts_default(&io);
    if ((r = kc_check_input("convert", in)) != 0) return r;
    if ((r = kc_check_output("convert", out)) != 0) return r;
    if ((r = kc_raw_to_io("convert", in, &raw, &io)) != 0) return r;
    io.bits = bits == 1 ? 16 : 8;
    io.window_set = window.set;
    io.window_lo = window.lo;
    io.window_hi = window.hi;
    io.slice = slice;
    io.complex_part = part;
    io.nrrd_gzip = gzip ? 1 : 0;
    io.write_dtype = out_dtype == 0 ? KR_DTYPE_INVALID : kc_dtype_of_choice(out_dtype - 1);

    kr_array *a = NULL;
    kr_meta meta;
    memset(&meta, 0, sizeof meta);
    kr_status s = kc_read(in, &a, &meta, &io);
    if (s != KR_OK) return kc_fail("convert", s);
    if (slice >= 0 &&
        (kr_format_from_path(out) == KR_FMT_PNG || kr_format_from_path(out) == KR_FMT_PGM)) {
        int64_t nz = a->ndim > 2 ? a->dims[2] : 1;
        if (slice >= nz) {
            char d[128];
            kr_dims_string(a->ndim, a->dims, d, sizeof d);
            kr_array_destroy(a);
            return kc_usage("convert", "--slice %d is outside '%s', which has %lld slice%s (%s)",
                            slice, in, (long long)nz, nz == 1 ? "" : "s", d);
        }
    }
    if (flip && kc_flip_y(a) != 0) {
        kr_array_destroy(a);
        fprintf(stderr, "kray convert: out of memory flipping '%s'\n", in);
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
        fprintf(stderr, "kray convert: wrote %s (%s %s) in %s\n", out,
                kr_dims_string(a->ndim, a->dims, d, sizeof d), kr_dtype_name(a->dtype),
                kc_fmt_seconds(t1 - t0, tb, sizeof tb));
    }
    kr_array_destroy(a);
    return 0;
}
