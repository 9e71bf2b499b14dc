/* kray info: format, dimensions, element type, statistics and header fields of files. */
#include "cli.h"

#include <math.h>
#include <string.h>

static void kc_info_text(const char *path, const kr_array *a, const kr_meta *m)
{
    char dims[256];
    kc_stats st;
    kc_array_stats(a, &st);
    int cplx = kr_dtype_is_complex(a->dtype);
    printf("file         %s\n", path);
    printf("format       %s\n", kr_format_name(kr_format_from_path(path)));
    printf("dims         %s (rank %d, %lld elements)\n",
           kr_dims_string(a->ndim, a->dims, dims, sizeof dims), kr_array_rank(a), (long long)st.n);
    printf("dtype        %s (%zu bytes per element, %zu bytes)\n", kr_dtype_name(a->dtype),
           kr_dtype_size(a->dtype), kr_array_bytes(a));
    printf("%-13s%.9g\n", cplx ? "min |x|" : "min", st.min);
    printf("%-13s%.9g\n", cplx ? "max |x|" : "max", st.max);
    printf("%-13s%.9g\n", cplx ? "mean |x|" : "mean", st.mean);
    printf("%-13s%.9g\n", cplx ? "std |x|" : "std", st.std);
    if (st.nnan || st.ninf)
        printf("non-finite   %lld NaN, %lld Inf (statistics above skip them)\n", (long long)st.nnan,
               (long long)st.ninf);
    int na = a->ndim < 3 ? a->ndim : 3; /* header fields of the array's own axes */
    if (m->spacing[0] != 0 || m->spacing[1] != 0 || m->spacing[2] != 0) {
        printf("spacing      ");
        for (int i = 0; i < na; i++) printf("%s%g", i ? " x " : "", m->spacing[i]);
        printf(" mm\n");
    }
    if (m->origin[0] != 0 || m->origin[1] != 0 || m->origin[2] != 0) {
        printf("origin       ");
        for (int i = 0; i < na; i++) printf("%s%g", i ? ", " : "", m->origin[i]);
        printf(" mm\n");
    }
    if (m->description[0]) printf("description  %.128s\n", m->description);
}

static void kc_info_json(const char *path, const kr_array *a, const kr_meta *m)
{
    kc_stats st;
    kc_array_stats(a, &st);
    char desc[sizeof m->description + 1];
    memcpy(desc, m->description, sizeof m->description);
    desc[sizeof m->description] = '\0';
    kc_jo j;
    kc_jo_begin(&j);
    kc_jo_str(&j, "file", path);
    kc_jo_str(&j, "format", kr_format_name(kr_format_from_path(path)));
    kc_jo_ints(&j, "dims", a->ndim, a->dims);
    kc_jo_str(&j, "dtype", kr_dtype_name(a->dtype));
    kc_jo_int(&j, "elements", st.n);
    kc_jo_int(&j, "bytes", (long long)kr_array_bytes(a));
    kc_jo_str(&j, "stats_of", kr_dtype_is_complex(a->dtype) ? "magnitude" : "value");
    kc_jo_num(&j, "min", st.min);
    kc_jo_num(&j, "max", st.max);
    kc_jo_num(&j, "mean", st.mean);
    kc_jo_num(&j, "std", st.std);
    kc_jo_int(&j, "nan", st.nnan);
    kc_jo_int(&j, "inf", st.ninf);
    kc_jo_nums(&j, "spacing_mm", 3, m->spacing);
    kc_jo_nums(&j, "origin_mm", 3, m->origin);
    kc_jo_str(&j, "description", desc);
    kc_jo_end(&j);
}

int kc_tool_info(int argc, char **argv)
{
    const char *file = NULL;
    const char *more[KC_MAX_REST];
    int nmore = 0;
    kc_raw raw;
    memset(&raw, 0, sizeof raw);
    const kc_opt opts[] = {KC_RAW_OPTS(raw), {0}};
    const kc_arg args[] = {{"file", &file, "file to describe (more files may follow)", 0}, {0}};
    const kc_spec spec = {
        "info",
        "Print the format, dimensions (fastest first), element type, statistics (min, max,\n"
        "mean, standard deviation; of the magnitude for complex data) and the header fields\n"
        "(spacing, origin, description) of each file. With --json, one JSON object per file,\n"
        "one per line.",
        opts,
        args,
        KC_JSON | KC_HOST,
        "Examples:\n  kray info phantom.nii\n  kray info --json k.cfl\n"
        "  kray info --dims 256x256 --dtype u16 --big-endian scan.raw",
        more,
        &nmore};
    kc_common c;
    int r = kc_parse(&spec, &c, argc, argv);
    if (r) return r < 0 ? 0 : r;
    kc_apply_threads(&c);

    const char *files[KC_MAX_REST + 1];
    int nfiles = 0;
    files[nfiles++] = file;
    for (int i = 0; i < nmore; i++) files[nfiles++] = more[i];
    kr_io_opts io;
    kr_io_opts_default(&io);
    io.axes = KR_IO_AXES_IMAGE; /* dims as kray's tools see an image (a .cfl's [y, x] -> [x, y]) */
    for (int i = 0; i < nfiles; i++) {
        if ((r = kc_raw_to_io("info", files[i], &raw, &io)) != 0) return r;
    }
    int status = 0;
    for (int i = 0; i < nfiles; i++) {
        kr_array *a = NULL;
        kr_meta m;
        memset(&m, 0, sizeof m);
        kr_status s = kr_read(files[i], &a, &m, &io);
        if (s != KR_OK) {
            status = kc_fail("info", s);
            continue;
        }
        if (c.json)
            kc_info_json(files[i], a, &m);
        else {
            if (i) printf("\n");
            kc_info_text(files[i], a, &m);
        }
        kr_array_destroy(a);
    }
    return status;
}
