/* kray command line: declarative option parser and help printer (see opts.h). */
#include "cli.h"

#include "internal.h" /* kri_escape */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static int kc_perr(const kc_spec *spec, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

void kc_vmessage(const char *tool, const char *fmt, va_list ap)
{
    char raw[2048], esc[2048];
    vsnprintf(raw, sizeof raw, fmt, ap);
    kri_escape(esc, sizeof esc, raw);
    fprintf(stderr, "kray %s: %s\n", tool, esc);
    fflush(stderr);
}

static void kc_message(const char *tool, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void kc_message(const char *tool, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kc_vmessage(tool, fmt, ap);
    va_end(ap);
}

static int kc_perr(const kc_spec *spec, const char *fmt, ...)
{
    char raw[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(raw, sizeof raw, fmt, ap);
    va_end(ap);
    kc_message(spec->tool, "%s (see 'kray %s --help')", raw, spec->tool);
    return KC_EXIT_USAGE;
}

/* Rows that --help, the reference and the vocabulary show (not the old spellings). */
static int kc_shown(const kc_opt *o) { return o->type != KC_ALIAS && o->type != KC_RENAMED; }

const char *kc_choice_name(const char *choices, int index, char *buf, size_t len)
{
    if (!buf || len == 0) return "";
    buf[0] = '\0';
    if (!choices || index < 0) return buf;
    const char *p = choices;
    for (int i = 0; i < index; i++) {
        p = strchr(p, '|');
        if (!p) return buf;
        p++;
    }
    size_t n = strcspn(p, "|");
    if (n >= len) n = len - 1;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return buf;
}

const char *kc_backend_choices(void)
{
    static char buf[128];
    if (!buf[0]) {
        size_t u = 0;
        for (int i = 0; i < kr_backend_count() && u < sizeof buf; i++) {
            int w = snprintf(buf + u, sizeof buf - u, "%s%s", i ? "|" : "",
                             kr_backend_name((kr_backend)i));
            if (w < 0) break;
            u += (size_t)w;
        }
    }
    return buf;
}

static int kc_choice_index(const char *choices, const char *s)
{
    size_t sl = strlen(s);
    int i = 0;
    for (const char *p = choices; p; i++) {
        size_t n = strcspn(p, "|");
        if (n == sl && strncmp(p, s, n) == 0) return i;
        p = p[n] ? p + n + 1 : NULL;
    }
    return -1;
}

/* Strict integer: optional sign, digits, nothing else. */
static int kc_to_i64(const char *s, int64_t *v)
{
    if (!s || !*s || isspace((unsigned char)*s)) return -1;
    char *end = NULL;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || end == s || *end) return -1;
    *v = (int64_t)x;
    return 0;
}

static int kc_to_double(const char *s, double *v)
{
    if (!s || !*s || isspace((unsigned char)*s)) return -1;
    char *end = NULL;
    errno = 0;
    double x = strtod(s, &end);
    if (errno == ERANGE && fabs(x) > 1.0) return -1;
    if (end == s || *end || !isfinite(x)) return -1;
    *v = x;
    return 0;
}

int kc_parse_dims(const char *s, kc_dims *d)
{
    kc_dims t;
    memset(&t, 0, sizeof t);
    if (!s || !*s) return -1;
    const char *p = s;
    while (1) {
        char buf[32];
        size_t n = strcspn(p, "xX*,");
        if (n == 0 || n >= sizeof buf || t.n == KR_MAX_DIMS) return -1;
        memcpy(buf, p, n);
        buf[n] = '\0';
        int64_t v;
        if (kc_to_i64(buf, &v) || v < 1) return -1;
        t.d[t.n++] = v;
        if (!p[n]) break;
        p += n + 1;
    }
    *d = t;
    return 0;
}

int kc_parse_range(const char *s, kc_range *r)
{
    if (!s) return -1;
    const char *colon = strchr(s, ':');
    if (!colon || colon == s) return -1;
    char lo[64];
    size_t n = (size_t)(colon - s);
    if (n >= sizeof lo) return -1;
    memcpy(lo, s, n);
    lo[n] = '\0';
    double a, b;
    if (kc_to_double(lo, &a) || kc_to_double(colon + 1, &b) || !(a < b)) return -1;
    r->set = 1;
    r->lo = a;
    r->hi = b;
    return 0;
}

static int kc_parse_list(const char *s, kc_list *l)
{
    kc_list t;
    memset(&t, 0, sizeof t);
    if (!s || !*s) return -1;
    const char *p = s;
    while (1) {
        char buf[64];
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof buf || t.n == KC_MAX_LIST) return -1;
        memcpy(buf, p, n);
        buf[n] = '\0';
        if (kc_to_double(buf, &t.v[t.n])) return -1;
        t.n++;
        if (!p[n]) break;
        p += n + 1;
    }
    *l = t;
    return 0;
}

static int kc_bounded(const kc_opt *o) { return o->min < o->max; }

/* Each of the n values (iv, or dv when iv is NULL) within the option's bounds; else prints the
 * sentence naming them "each <what>" and returns KC_EXIT_USAGE. */
static int kc_each_bounded(const kc_spec *spec, const kc_opt *o, const char *nm, const char *what,
                           int n, const int64_t *iv, const double *dv, const char *val)
{
    for (int i = 0; kc_bounded(o) && i < n; i++) {
        double x = iv ? (double)iv[i] : dv[i];
        if (x < o->min || x > o->max)
            return kc_perr(spec, "option '%s': each %s must be between %.15g and %.15g, got '%s'",
                           nm, what, o->min, o->max, val);
    }
    return 0;
}

static void kc_optname(const kc_opt *o, char *buf, size_t len)
{
    snprintf(buf, len, "--%s", o->name);
}

/* Store `val` into the option's variable. Returns 0 or prints the sentence and returns 2. */
static int kc_set(const kc_spec *spec, const kc_opt *o, const char *val)
{
    char nm[80];
    kc_optname(o, nm, sizeof nm);
    switch (o->type) {
    case KC_INT:
    case KC_INT64: {
        int64_t v;
        if (kc_to_i64(val, &v))
            return kc_perr(spec, "option '%s' expects an integer, got '%s'", nm, val);
        if (o->type == KC_INT && (v < INT_MIN || v > INT_MAX))
            return kc_perr(spec, "option '%s' value %s is out of range", nm, val);
        if (kc_bounded(o) && (v < o->min || v > o->max))
            return kc_perr(spec, "option '%s' must be between %.15g and %.15g, got %s", nm, o->min,
                           o->max, val);
        if (o->type == KC_INT)
            *(int *)o->ptr = (int)v;
        else
            *(int64_t *)o->ptr = v;
        return 0;
    }
    case KC_DOUBLE: {
        double v;
        if (kc_to_double(val, &v))
            return kc_perr(spec, "option '%s' expects a finite number, got '%s'", nm, val);
        if (kc_bounded(o) && (v < o->min || v > o->max))
            return kc_perr(spec, "option '%s' must be between %.15g and %.15g, got %s", nm, o->min,
                           o->max, val);
        *(double *)o->ptr = v;
        return 0;
    }
    case KC_STRING:
        if (!*val) return kc_perr(spec, "option '%s' needs a non-empty value", nm);
        *(const char **)o->ptr = val;
        return 0;
    case KC_CHOICE: {
        int i = kc_choice_index(o->choices, val);
        if (i < 0)
            return kc_perr(spec, "option '%s' must be one of %s, got '%s'", nm, o->choices, val);
        *(int *)o->ptr = i;
        return 0;
    }
    case KC_DIMS: {
        kc_dims d;
        if (kc_parse_dims(val, &d))
            return kc_perr(spec,
                           "option '%s' expects sizes like 256 or 256x256 (integers >= 1, at "
                           "most %d), got '%s'",
                           nm, KR_MAX_DIMS, val);
        if (kc_each_bounded(spec, o, nm, "size", d.n, d.d, NULL, val)) return KC_EXIT_USAGE;
        *(kc_dims *)o->ptr = d;
        return 0;
    }
    case KC_LIST: {
        kc_list l;
        if (kc_parse_list(val, &l))
            return kc_perr(spec,
                           "option '%s' expects comma-separated numbers (at most %d), got '%s'", nm,
                           KC_MAX_LIST, val);
        if (kc_each_bounded(spec, o, nm, "value", l.n, NULL, l.v, val)) return KC_EXIT_USAGE;
        *(kc_list *)o->ptr = l;
        return 0;
    }
    case KC_RANGE: {
        kc_range r;
        if (kc_parse_range(val, &r))
            return kc_perr(spec, "option '%s' expects LO:HI with LO < HI, got '%s'", nm, val);
        *(kc_range *)o->ptr = r;
        return 0;
    }
    case KC_FLAG: *(int *)o->ptr += 1; return 0;
    case KC_ALIAS:
    case KC_RENAMED:
    case KC_END: break;
    }
    return kc_perr(spec, "internal error: option '%s' has no type", nm);
}

/* The tool's options followed by the common ones, in one array (n <= cap). */
static int kc_collect(const kc_spec *spec, kc_common *c, kc_opt *all, int cap)
{
    int n = 0;
    for (const kc_opt *o = spec->opts; o && o->type != KC_END && n < cap; o++) all[n++] = *o;
    const kc_opt common[] = {
        {"backend", 0, KC_CHOICE, &c->backend, "auto", "B",
         "compute backend (auto = CUDA when a GPU is usable, else CPU)", kc_backend_choices(), 0, 0,
         NULL},
        {"device", 0, KC_INT, &c->device, "0", "N", "CUDA device ordinal", NULL, 0, 1023,
         &c->device_given},
        {"devices", 0, KC_STRING, &c->devices, NULL, "LIST",
         "divide the work over devices: 0,1,2 or all (a CPU backend: that many parts); "
         "docs/scaling.md", NULL, 0, 0, NULL},
        {"threads", 0, KC_INT, &c->threads, "0", "N",
         "CPU threads (0 = OpenMP default: OMP_NUM_THREADS or all cores)", NULL, 0, 4096, NULL},
        {"precision", 0, KC_CHOICE, &c->precision, "f32", "P",
         "floating-point precision of the computation", "f32|f64", 0, 0, NULL},
        {"quiet", 'q', KC_FLAG, &c->quiet, NULL, NULL,
         "no progress bar and no informational messages", NULL, 0, 0, NULL},
        {"verbose", 'v', KC_FLAG, &c->verbose, NULL, NULL,
         "log what the library does on stderr (twice: debug detail)", NULL, 0, 0, NULL},
        {"allow-nonfinite", 0, KC_FLAG, &c->allow_nonfinite, NULL, NULL,
         "read NaN and Inf in input data as they are (default: refuse them, naming the first)",
         NULL, 0, 0, NULL},
        {"json", 0, KC_FLAG, &c->json, NULL, NULL, "print the results as one JSON object", NULL, 0,
         0, NULL},
    };
    int nc = (int)(sizeof common / sizeof common[0]);
    for (int i = 0; i < nc && n < cap; i++) {
        if (!strcmp(common[i].name, "json") && !(spec->common & KC_JSON)) continue;
        all[n++] = common[i];
    }
    return n;
}

static const char *kc_default_meta(const kc_opt *o)
{
    if (o->meta) return o->meta;
    switch (o->type) {
    case KC_INT:
    case KC_INT64: return "N";
    case KC_DOUBLE: return "X";
    case KC_STRING: return "TEXT";
    case KC_CHOICE: return "NAME";
    case KC_DIMS: return "DIMS";
    case KC_LIST: return "LIST";
    case KC_RANGE: return "LO:HI";
    default: return "";
    }
}

/* Print `text` word-wrapped at KC_HELP_COLS, continuation lines indented by `indent`. */
#define KC_HELP_COLS 100
static void kc_wrap(FILE *f, const char *text, int indent)
{
    int col = indent;
    const char *p = text;
    while (*p) {
        while (*p == ' ') p++;
        size_t w = strcspn(p, " ");
        if (w == 0) break;
        if (col > indent && col + 1 + (int)w > KC_HELP_COLS) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fwrite(p, 1, w, f);
        col += (int)w;
        p += w;
    }
    fputc('\n', f);
}

static void kc_help_block(FILE *f, const kc_opt *opts, int n, int width)
{
    for (int i = 0; i < n; i++) {
        const kc_opt *o = &opts[i];
        if (!kc_shown(o)) continue;
        char left[128];
        int k = o->shrt ? snprintf(left, sizeof left, "  -%c, --%s", o->shrt, o->name)
                        : snprintf(left, sizeof left, "      --%s", o->name);
        if (o->type != KC_FLAG && k > 0 && (size_t)k < sizeof left)
            snprintf(left + k, sizeof left - (size_t)k, " %s", kc_default_meta(o));
        fprintf(f, "%s", left);
        int len = (int)strlen(left);
        if (len + 2 > width)
            fprintf(f, "\n%*s", width, "");
        else
            fprintf(f, "%*s", width - len, "");
        char text[1024];
        int t = snprintf(text, sizeof text, "%s", o->help ? o->help : "");
        int paren = 0;
        if (o->type == KC_CHOICE && t >= 0 && (size_t)t < sizeof text) {
            t += snprintf(text + t, sizeof text - (size_t)t, " (%s", o->choices);
            paren = 1;
        }
        if (o->def && o->type != KC_FLAG && t >= 0 && (size_t)t < sizeof text) {
            t += snprintf(text + t, sizeof text - (size_t)t, "%sdefault: %s", paren ? "; " : " (",
                          o->def);
            paren = 1;
        }
        if (paren && t >= 0 && (size_t)t < sizeof text)
            snprintf(text + t, sizeof text - (size_t)t, ")");
        kc_wrap(f, text, width);
    }
}

void kc_print_help(const kc_spec *spec, FILE *f)
{
    kc_common dummy;
    kc_opt all[128];
    int n = kc_collect(spec, &dummy, all, 128);
    int ntool = 0;
    for (const kc_opt *o = spec->opts; o && o->type != KC_END; o++) ntool++;

    fprintf(f, "Usage: kray %s [options]", spec->tool);
    for (const kc_arg *a = spec->args; a && a->name; a++)
        fprintf(f, a->optional ? " [<%s>]" : " <%s>", a->name);
    if (spec->rest) fprintf(f, " ...");
    fprintf(f, "\n\n%s\n", spec->summary ? spec->summary : "");

    int width = 0;
    for (int i = 0; i < n; i++) {
        if (!kc_shown(&all[i])) continue;
        int w = 8 + (int)strlen(all[i].name) + 2;
        if (all[i].type != KC_FLAG) w += 1 + (int)strlen(kc_default_meta(&all[i]));
        if (w > width) width = w;
    }
    for (const kc_arg *a = spec->args; a && a->name; a++) {
        int w = 4 + (int)strlen(a->name) + 2;
        if (w > width) width = w;
    }
    if (width > 32) width = 32;

    if (spec->args && spec->args->name) {
        fprintf(f, "\nArguments:\n");
        for (const kc_arg *a = spec->args; a && a->name; a++) {
            char left[96];
            snprintf(left, sizeof left, "  <%s>", a->name);
            int len = (int)strlen(left);
            fprintf(f, "%s", left);
            if (len + 2 > width)
                fprintf(f, "\n%*s", width, "");
            else
                fprintf(f, "%*s", width - len, "");
            fprintf(f, "%s%s\n", a->help ? a->help : "", a->optional ? " (optional)" : "");
        }
    }
    if (ntool > 0) {
        fprintf(f, "\nOptions:\n");
        kc_help_block(f, all, ntool, width);
    }
    fprintf(f, "\nCommon options (the same in every kray tool):\n");
    kc_help_block(f, all + ntool, n - ntool, width);
    fprintf(f, "  -h, --help%*sshow this help and exit\n", width - 12 > 1 ? width - 12 : 1, "");
    if (spec->common & KC_HOST)
        fprintf(f, "  (this tool runs on the CPU: --backend and --device are accepted and have no "
                   "effect)\n");
    if (spec->notes) fprintf(f, "\n%s\n", spec->notes);
    if (spec->args)
        fprintf(f, "\nFiles: the format follows the extension (.cfl .npy .nii .nii.gz .mha .mhd "
                   ".nrrd .pgm .png .raw .dcm);\na name without one is a BART pair NAME.cfl + "
                   "NAME.hdr (never written beside a device such as /dev/null).\n");
    fprintf(f, "\nExit status: 0 success, 1 bad input (unreadable or malformed data), "
               "2 bad usage.\n");
}

static const kc_opt *kc_find_long(const kc_opt *all, int n, const char *name, size_t len)
{
    for (int i = 0; i < n; i++)
        if (all[i].name[0] && strlen(all[i].name) == len && strncmp(all[i].name, name, len) == 0)
            return &all[i];
    return NULL;
}

static const kc_opt *kc_find_short(const kc_opt *all, int n, char c)
{
    for (int i = 0; i < n; i++)
        if (all[i].shrt == c) return &all[i];
    return NULL;
}

int kc_parse(const kc_spec *spec, kc_common *common, int argc, char **argv)
{
    kc_opt all[128];
    memset(common, 0, sizeof *common);
    int n = kc_collect(spec, common, all, 128);

    /* Defaults first, through the same parser. */
    for (int i = 0; i < n; i++) {
        const kc_opt *o = &all[i];
        if (!kc_shown(o)) continue;
        if (o->type == KC_FLAG) *(int *)o->ptr = 0;
        if (o->type == KC_RANGE && !o->def) ((kc_range *)o->ptr)->set = 0;
        if (o->type == KC_DIMS && !o->def) ((kc_dims *)o->ptr)->n = 0;
        if (o->type == KC_LIST && !o->def) ((kc_list *)o->ptr)->n = 0;
        if (o->given) *o->given = 0;
        if (o->def && o->type != KC_FLAG && kc_set(spec, o, o->def) != 0) {
            fprintf(stderr, "kray %s: internal error: bad default for --%s\n", spec->tool, o->name);
            return KC_EXIT_USAGE;
        }
    }
    for (const kc_arg *a = spec->args; a && a->name; a++) *a->ptr = NULL;
    if (spec->nrest) *spec->nrest = 0;

    if (argc >= 2 && !strcmp(argv[1], "--kc-table")) {
        kc_print_table(spec, stdout);
        return -1;
    }
    if (argc >= 2 && !strcmp(argv[1], "--kc-markdown")) {
        kc_print_markdown(spec, stdout);
        return -1;
    }
    const kc_arg *next = spec->args && spec->args->name ? spec->args : NULL;
    int only_positional = 0;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (!only_positional && s[0] == '-' && s[1] != '\0') {
            if (!strcmp(s, "--")) {
                only_positional = 1;
                continue;
            }
            if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
                kc_print_help(spec, stdout);
                return -1;
            }
            const kc_opt *o;
            const char *val = NULL;
            char shown[80];
            if (s[1] == '-') {
                const char *name = s + 2;
                const char *eq = strchr(name, '=');
                size_t len = eq ? (size_t)(eq - name) : strlen(name);
                o = kc_find_long(all, n, name, len);
                snprintf(shown, sizeof shown, "--%.*s", (int)(len < 60 ? len : 60), name);
                if (!o) return kc_perr(spec, "unknown option '%s'", shown);
                if (eq) {
                    if (o->type == KC_FLAG)
                        return kc_perr(spec, "option '%s' takes no value", shown);
                    val = eq + 1;
                }
            } else {
                o = kc_find_short(all, n, s[1]);
                snprintf(shown, sizeof shown, "-%c", s[1]);
                if (!o) return kc_perr(spec, "unknown option '%s'", shown);
                if (s[2]) {
                    if (o->type == KC_FLAG) {
                        /* bundled short flags: -qv */
                        for (const char *p = s + 1; *p; p++) {
                            const kc_opt *f = kc_find_short(all, n, *p);
                            if (!f || f->type != KC_FLAG)
                                return kc_perr(spec, "unknown option '-%c' in '%s'", *p, s);
                            *(int *)f->ptr += 1;
                            if (f->given) *f->given = 1;
                        }
                        continue;
                    }
                    val = s + 2;
                }
            }
            if (o->type == KC_RENAMED)
                return kc_perr(spec, "option '%s' is now '%s'%s%s", shown, o->meta,
                               o->help ? ": " : "", o->help ? o->help : "");
            if (o->type == KC_ALIAS) {
                const kc_opt *t = kc_find_long(all, n, o->meta, strlen(o->meta));
                if (!t) return kc_perr(spec, "internal error: alias '%s' has no target", shown);
                kc_message(spec->tool, "'%s' is an old spelling of '--%s'; it will go", shown,
                           t->name);
                if (t->type == KC_FLAG && val)
                    return kc_perr(spec, "option '%s' takes no value", shown);
                o = t;
            }
            if (o->type != KC_FLAG && !val) {
                if (i + 1 >= argc)
                    return kc_perr(spec, "option '%s' needs a value (%s)", shown,
                                   kc_default_meta(o));
                val = argv[++i];
            }
            int r = kc_set(spec, o, val ? val : "");
            if (r) return r;
            if (o->given) *o->given = 1;
            continue;
        }
        /* positional */
        if (next) {
            *next->ptr = s;
            next++;
            if (!next->name) next = NULL;
        } else if (spec->rest && spec->nrest && *spec->nrest < KC_MAX_REST) {
            spec->rest[(*spec->nrest)++] = s;
        } else {
            return kc_perr(spec, "unexpected argument '%s'", s);
        }
    }
    if (next && !next->optional) return kc_perr(spec, "missing argument <%s>", next->name);
    kc_set_allow_nonfinite(common->allow_nonfinite);
    return 0;
}

static const char *kc_type_name(kc_type t)
{
    static const char *const names[] = {"end",  "flag", "int",   "int64", "double", "string",
                                        "choice", "dims", "list", "range", "alias", "renamed"};
    return (int)t >= 0 && (int)t < (int)(sizeof names / sizeof names[0]) ? names[t] : "?";
}

void kc_print_table(const kc_spec *spec, FILE *f)
{
    kc_common dummy;
    kc_opt all[128];
    int n = kc_collect(spec, &dummy, all, 128), ntool = 0;
    for (const kc_opt *o = spec->opts; o && o->type != KC_END; o++) ntool++;
    for (int i = 0; i < n; i++) {
        const kc_opt *o = &all[i];
        const char *kind = o->type == KC_ALIAS     ? "alias"
                           : o->type == KC_RENAMED ? "renamed"
                           : i >= ntool            ? "common"
                                                   : "opt";
        char sh[2] = {o->shrt, '\0'};
        fprintf(f, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", spec->tool, o->name, sh, kc_type_name(o->type),
                kc_shown(o) ? kc_default_meta(o) : (o->meta ? o->meta : ""), kind,
                o->type == KC_CHOICE ? o->choices : "");
    }
    for (const kc_arg *a = spec->args; a && a->name; a++)
        fprintf(f, "%s\t<%s>\t\targ\t\t%s\t\n", spec->tool, a->name,
                a->optional ? "optional" : "required");
}

/* Markdown table cell: '|' escaped, everything else as is. */
static void kc_md_cell(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '|') fputc('\\', f);
        fputc(*s, f);
    }
}

void kc_print_markdown(const kc_spec *spec, FILE *f)
{
    fprintf(f, "### `kray %s`\n\n", spec->tool);
    if (spec->summary) {
        /* one paragraph: the summary's line breaks become spaces */
        for (const char *p = spec->summary; *p; p++) fputc(*p == '\n' ? ' ' : *p, f);
        fprintf(f, "\n\n");
    }
    fprintf(f, "`kray %s [options]", spec->tool);
    for (const kc_arg *a = spec->args; a && a->name; a++)
        fprintf(f, a->optional ? " [<%s>]" : " <%s>", a->name);
    if (spec->rest) fprintf(f, " ...");
    fprintf(f, "`\n\n");
    int any = 0;
    for (const kc_arg *a = spec->args; a && a->name; a++) {
        if (!any++) fprintf(f, "| argument or option | meaning |\n| --- | --- |\n");
        fprintf(f, "| `<%s>` | ", a->name);
        kc_md_cell(f, a->help);
        fprintf(f, "%s |\n", a->optional ? " (optional)" : "");
    }
    for (const kc_opt *o = spec->opts; o && o->type != KC_END; o++) {
        if (!kc_shown(o)) continue;
        if (!any++) fprintf(f, "| argument or option | meaning |\n| --- | --- |\n");
        fprintf(f, "| `");
        if (o->shrt) fprintf(f, "-%c, ", o->shrt);
        fprintf(f, "--%s", o->name);
        if (o->type != KC_FLAG) fprintf(f, " %s", kc_default_meta(o));
        fprintf(f, "` | ");
        kc_md_cell(f, o->help);
        if (o->type == KC_CHOICE) {
            fprintf(f, " (`");
            kc_md_cell(f, o->choices);
            fprintf(f, "`)");
        }
        if (o->def && o->type != KC_FLAG) fprintf(f, " (default `%s`)", o->def);
        fprintf(f, " |\n");
    }
    fprintf(f, "%s", any ? "\n" : "");
    if (spec->common & KC_JSON) fprintf(f, "Also takes `--json`.\n\n");
    if (spec->common & KC_HOST)
        fprintf(f, "Runs on the CPU: `--backend` and `--device` are accepted and have no "
                   "effect.\n\n");
}
