/* kray command line: helpers shared by the tools (errors, context, files, statistics); the JSON
 * results are written by jsonout.c. */
#include "cli.h"

#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int kc_usage(const char *tool, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kc_vmessage(tool, fmt, ap);
    va_end(ap);
    return KC_EXIT_USAGE;
}

void kc_note(const char *tool, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kc_vmessage(tool, fmt, ap);
    va_end(ap);
}

int kc_error(const char *tool, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kc_vmessage(tool, fmt, ap);
    va_end(ap);
    return KC_EXIT_INPUT;
}

int kc_fail_usage(const char *tool, kr_status s)
{
    kc_fail(tool, s);
    return KC_EXIT_USAGE;
}

int kc_fail(const char *tool, kr_status s)
{
    const char *why = kr_last_error();
    if (!why || !*why) why = kr_status_string(s);
    /* The library names its function or module ("fbp: ...", "kr_dcf: ..."); after "kray fbp: "
     * that name is a doubled prefix, so drop it. */
    size_t n = strlen(tool);
    if (!strncmp(why, "kr_", 3) && !strncmp(why + 3, tool, n) && !strncmp(why + 3 + n, ": ", 2))
        why += 3 + n + 2;
    else if (!strncmp(why, tool, n) && !strncmp(why + n, ": ", 2))
        why += n + 2;
    fprintf(stderr, "kray %s: %s\n", tool, why);
    return KC_EXIT_INPUT;
}

kr_dtype kc_precision_dtype(const kc_common *c) { return c->precision == 1 ? KR_F64 : KR_F32; }

void kc_apply_threads(const kc_common *c)
{
    if (c->threads > 0) omp_set_num_threads(c->threads);
}

int kc_make_dist_ctx(const char *tool, const kc_common *c, kr_ctx **ctx)
{
    int r = kc_make_ctx(tool, c, ctx);
    kr_status s;
    if (r == 0 && kr_dist_size() > 1 && (s = kr_ctx_set_dist(*ctx, 1)) != KR_OK) {
        kr_ctx_destroy(*ctx);
        *ctx = NULL;
        return kc_fail(tool, s);
    }
    return r;
}

int kc_make_ctx(const char *tool, const kc_common *c, kr_ctx **ctx)
{
    *ctx = NULL;
    if (c->devices && c->device_given) /* bad usage: before any context is made */
        return kc_usage(tool, "--device and --devices are alternatives: give the list alone "
                        "(its first entry is the device of undivided work)");
    kc_apply_threads(c);
    kr_status s = kr_ctx_create(ctx, (kr_backend)c->backend);
    if (s != KR_OK) return kc_fail(tool, s);
    kr_log_level lvl = c->verbose >= 2   ? KR_LOG_DEBUG
                       : c->verbose == 1 ? KR_LOG_INFO
                       : c->quiet        ? KR_LOG_ERROR
                                         : KR_LOG_WARN;
    if ((s = kr_ctx_set_log_level(*ctx, lvl)) != KR_OK ||
        (s = kr_ctx_set_threads(*ctx, c->threads)) != KR_OK ||
        (s = kr_ctx_set_device(*ctx, c->device)) != KR_OK ||
        (s = kr_ctx_set_quiet(*ctx, c->quiet)) != KR_OK) {
        kr_ctx_destroy(*ctx);
        *ctx = NULL;
        return kc_fail(tool, s);
    }
    int ngpu = 0;
    if (kr_dist_size() > 1 && !c->devices && !c->device_given &&
        kr_ctx_backend(*ctx) == KR_BACKEND_CUDA && kr_cuda_device_count(&ngpu) == KR_OK &&
        ngpu > 0 && (s = kr_ctx_set_device(*ctx, kr_dist_local_rank() % ngpu)) != KR_OK) {
        /* several processes on a host: each its own GPU by default */
        kr_ctx_destroy(*ctx);
        *ctx = NULL;
        return kc_fail(tool, s);
    }
    if (c->devices) {
        int r = 0;
        if ((s = kr_ctx_set_devices_spec(*ctx, c->devices)) != KR_OK)
            /* a malformed list is bad usage; a device that is not there is bad input */
            r = !strncmp(kr_last_error(), "device list", 11) ? kc_usage(tool, "%s", kr_last_error())
                                                             : kc_fail(tool, s);
        if (r) {
            kr_ctx_destroy(*ctx);
            *ctx = NULL;
            return r;
        }
    }
    return 0;
}

/* *f = the format of path; a usage sentence naming `what` and `exts` when its extension names
 * none. */
static int kc_format_of(const char *tool, const char *path, const char *what, const char *exts,
                        kr_format *f)
{
    *f = kr_format_from_path(path);
    if (*f != KR_FMT_UNKNOWN) return 0;
    return kc_usage(tool, "cannot tell the %s of '%s' from its extension (%s)", what, path, exts);
}

int kc_check_output(const char *tool, const char *path)
{
    kr_format f;
    return kc_format_of(tool, path, "output format",
                        "use .cfl, .npy, .nii, .nii.gz, .mha, .mhd, .nrrd, .png, .pgm or .raw",
                        &f);
}

int kc_check_input(const char *tool, const char *path)
{
    kr_format f;
    int r = kc_format_of(tool, path, "format",
                         "kray reads .cfl, .npy, .nii, .nii.gz, .mha, .mhd, .nrrd, .pgm and .raw",
                         &f);
    if (r) return r;
    if (f == KR_FMT_PNG)
        return kc_usage(tool,
                        "'%s': PNG is an output-only format in kray (use .pgm to read "
                        "8/16-bit images)",
                        path);
    return 0;
}

kr_dtype kc_dtype_of_choice(int i)
{
    char buf[16];
    return kr_dtype_from_name(kc_choice_name(KC_DTYPES, i, buf, sizeof buf));
}

int kc_raw_to_io(const char *tool, const char *path, const kc_raw *r, kr_io_opts *o)
{
    int rc = kc_check_input(tool, path);
    if (rc) return rc;
    if (kr_format_from_path(path) != KR_FMT_RAW) return 0;
    if (r->dims.n == 0)
        return kc_usage(tool,
                        "'%s' is a raw file: give its size with --dims (e.g. --dims "
                        "256x256) and its element type with --dtype",
                        path);
    o->raw_dtype = kc_dtype_of_choice(r->dtype);
    o->raw_ndim = r->dims.n;
    for (int i = 0; i < r->dims.n; i++) o->raw_dims[i] = r->dims.d[i];
    o->raw_big_endian = r->big_endian ? 1 : 0;
    o->raw_offset = r->offset;
    return 0;
}

void kc_elem(const kr_array *a, int64_t i, double *re, double *im)
{
    kri_array_elem(a, i, re, im);
}

void kc_array_stats(const kr_array *a, kc_stats *st)
{
    memset(st, 0, sizeof *st);
    st->n = kr_array_numel(a);
    int cplx = kr_dtype_is_complex(a->dtype);
    double sum = 0.0;
    for (int64_t i = 0; i < st->n; i++) {
        double re, im;
        kc_elem(a, i, &re, &im);
        double v = cplx ? hypot(re, im) : re;
        if (isnan(v) || isnan(im)) {
            st->nnan++;
            continue;
        }
        if (isinf(v)) {
            st->ninf++;
            continue;
        }
        if (st->nfinite == 0 || v < st->min) st->min = v;
        if (st->nfinite == 0 || v > st->max) st->max = v;
        st->nfinite++;
        sum += v;
    }
    if (st->nfinite == 0) {
        st->min = st->max = st->mean = st->std = NAN;
        return;
    }
    st->mean = sum / (double)st->nfinite;
    double ss = 0.0;
    for (int64_t i = 0; i < st->n; i++) {
        double re, im;
        kc_elem(a, i, &re, &im);
        double v = cplx ? hypot(re, im) : re;
        if (!isfinite(v) || isnan(im)) continue;
        ss += (v - st->mean) * (v - st->mean);
    }
    st->std = sqrt(ss / (double)st->nfinite);
}

const char *kc_fmt_seconds(double s, char *buf, size_t len)
{
    if (s < 1e-3)
        snprintf(buf, len, "%.0f us", s * 1e6);
    else if (s < 1.0)
        snprintf(buf, len, "%.1f ms", s * 1e3);
    else
        snprintf(buf, len, "%.2f s", s);
    return buf;
}

static kr_io_opts kc_image_io_opts;

static void kc_image_io_init(void)
{
    kr_io_opts_default(&kc_image_io_opts);
    kc_image_io_opts.axes = KR_IO_AXES_IMAGE;
}

const kr_io_opts *kc_image_io(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT; /* kray studio reads from many threads */
    pthread_once(&once, kc_image_io_init);
    return &kc_image_io_opts;
}

void kc_picture_io(kr_io_opts *io, double lo, double hi, int slice, int part)
{
    io->bits = 8;
    if (lo < hi) {
        io->window_set = 1;
        io->window_lo = lo;
        io->window_hi = hi;
    }
    io->slice = slice;
    io->complex_part = part;
}

int kc_flip_y(kr_array *a)
{
    if (a->ndim < 2 || a->dims[1] < 2) return 0;
    size_t row = (size_t)a->dims[0] * kr_dtype_size(a->dtype);
    int64_t ny = a->dims[1], outer = kr_array_numel(a) / (a->dims[0] * ny);
    unsigned char *tmp = malloc(row ? row : 1);
    if (!tmp) return -1;
    for (int64_t o = 0; o < outer; o++) {
        unsigned char *base = (unsigned char *)a->data + (size_t)(o * ny) * row;
        for (int64_t j = 0; j < ny / 2; j++) {
            unsigned char *r0 = base + (size_t)j * row, *r1 = base + (size_t)(ny - 1 - j) * row;
            memcpy(tmp, r0, row);
            memcpy(r0, r1, row);
            memcpy(r1, tmp, row);
        }
    }
    free(tmp);
    return 0;
}

/* ---- the non-finite policy ------------------------------------------------------------------ */
static int kc_nonfinite_allowed;

void kc_set_allow_nonfinite(int allow) { kc_nonfinite_allowed = allow != 0; }

kr_status kc_check_finite(const char *path, const kr_array *a)
{
    if (kc_nonfinite_allowed || !a || a->loc != KR_HOST) return KR_OK;
    const kr_dtype t = a->dtype;
    const int cplx = kr_dtype_is_complex(t);
    const int64_t n = kr_array_numel(a) * (cplx ? 2 : 1);
    int64_t nnan = 0, ninf = 0, first = -1;
    if (t == KR_F32 || t == KR_C64) {
        const float *v = a->data;
        for (int64_t i = 0; i < n; i++)
            if (!isfinite(v[i])) {
                if (first < 0) first = i;
                if (isnan(v[i])) nnan++; else ninf++;
            }
    } else if (t == KR_F64 || t == KR_C128) {
        const double *v = a->data;
        for (int64_t i = 0; i < n; i++)
            if (!isfinite(v[i])) {
                if (first < 0) first = i;
                if (isnan(v[i])) nnan++; else ninf++;
            }
    }
    if (first < 0) return KR_OK;
    const int64_t e = cplx ? first / 2 : first;
    char idx[160];
    int k = snprintf(idx, sizeof idx, "[");
    int64_t r = e;
    for (int d = 0; d < a->ndim && k < (int)sizeof idx - 24; d++) {
        k += snprintf(idx + k, sizeof idx - (size_t)k, d ? ", %lld" : "%lld",
                      (long long)(r % a->dims[d]));
        r /= a->dims[d];
    }
    snprintf(idx + k, sizeof idx - (size_t)k, "]");
    return kri_fail(KR_ERR_INVALID_ARG,
                    "%s holds %lld NaN and %lld infinite values (the first at sample %lld%s, "
                    "index %s); non-finite input is refused (--allow-nonfinite reads it as it is)",
                    path, (long long)nnan, (long long)ninf, (long long)e,
                    cplx ? (first % 2 ? ", imaginary part" : ", real part") : "", idx);
}

static kr_status kc_refuse_nonfinite(const char *path, kr_status s, kr_array **out)
{
    if (s == KR_OK && (s = kc_check_finite(path, *out)) != KR_OK) {
        kr_array_destroy(*out);
        *out = NULL;
    }
    return s;
}

kr_status kc_write(const char *path, const kr_array *a, const kr_io_opts *o)
{
    return kr_dist_rank() == 0 ? kr_write(path, a, o) : KR_OK;
}

kr_status kc_read(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *io)
{
    return kc_refuse_nonfinite(path, kr_read(path, out, meta, io), out);
}

kr_status kc_read_part(const char *path, int axis, int64_t start, int64_t count, kr_array **out,
                       const kr_io_opts *io)
{
    kr_status s = kr_read_part(path, axis, start, count, out, NULL, io);
    if (s != KR_OK || (s = kc_refuse_nonfinite(path, s, out)) == KR_OK) return s;
    /* the index is the part's: say where the part starts */
    char why[1024];
    snprintf(why, sizeof why, "%s", kr_last_error());
    return kri_fail(s, "%s (the index counts from index %lld of axis %d, where this process's "
                    "part starts)", why, (long long)start, axis);
}

kr_status kc_read_traj(const char *path, kr_array **out, kr_dtype dtype)
{
    return kc_refuse_nonfinite(path, kr_traj_read(path, out, dtype), out);
}

kr_status kc_scale(kr_array *a, double f)
{
    kr_ctx *c = NULL;
    kr_status s = kr_ctx_create(&c, KR_BACKEND_CPU);
    if (s == KR_OK) s = kr_vec_scale(c, a, f, 0.0);
    kr_ctx_destroy(c);
    return s;
}
