/* kray command line: declarative option tables and their parser.
 *
 * Each tool describes its options once, in a table of kc_opt rows terminated by {0}, and its
 * positional arguments in a table of kc_arg rows; kc_parse fills the variables the rows point
 * to, prints `kray <tool> --help` from the same tables, and reports every usage error as one
 * sentence on stderr prefixed "kray <tool>: ".
 *
 * Syntax accepted: `--name value`, `--name=value`, `-s value`, `-svalue`, flags without a value,
 * `--` ends the options (everything after it is positional). Values may start with '-' ("-1").
 * Defaults are given as text in the table and parsed by the same code as the command line, so
 * what --help shows is exactly what the tool uses.
 *
 * Common options, accepted identically by every tool (added by kc_parse, see kc_common):
 *   --backend NAME (the library's backend names), --device N, --devices LIST (0,1,2 or all:
 *   the device list work is divided over), --threads N, --precision f32|f64,
 *   -q/--quiet, -v/--verbose (repeatable), --allow-nonfinite (NaN and Inf in input data are
 *   read as they are instead of refused), and --json for tools that measure (KC_JSON).
 */
#ifndef KRAY_TOOLS_OPTS_H
#define KRAY_TOOLS_OPTS_H

#include "kray/kray.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes of every tool. */
enum { KC_EXIT_OK = 0, KC_EXIT_INPUT = 1, KC_EXIT_USAGE = 2 };

typedef enum kc_type {
    KC_END = 0, /* terminates a table */
    KC_FLAG,    /* int *: each occurrence adds 1 (no value) */
    KC_INT,     /* int * */
    KC_INT64,   /* int64_t * */
    KC_DOUBLE,  /* double * (finite) */
    KC_STRING,  /* const char ** (points into argv or the default text) */
    KC_CHOICE,  /* int *: index of the value in `choices` ("a|b|c") */
    KC_DIMS,    /* kc_dims *: "256", "256x256", "64x64x32" (each >= 1) */
    KC_LIST,    /* kc_list *: comma-separated numbers "0,45,90" */
    KC_RANGE,   /* kc_range *: "lo:hi" with lo < hi */
    /* Old spellings (hidden from --help, the reference and the vocabulary check):
     *   {"iter", 0, KC_ALIAS, NULL, NULL, "iters"}: --iter works as --iters, with one line on
     *     stderr naming the new spelling (only for names that mean nothing else in any tool);
     *   {"dims", 0, KC_RENAMED, NULL, NULL, "--size"} (or a short letter with name ""): using
     *     it is a usage error whose sentence names the new spelling (meta) and, when given,
     *     the reason (help). */
    KC_ALIAS,
    KC_RENAMED
} kc_type;

#define KC_MAX_LIST 64
#define KC_MAX_REST 64

typedef struct kc_dims {
    int n; /* 0 when not given and no default */
    int64_t d[KR_MAX_DIMS];
} kc_dims;

typedef struct kc_list {
    int n;
    double v[KC_MAX_LIST];
} kc_list;

typedef struct kc_range {
    int set; /* 1 once given (or defaulted) */
    double lo, hi;
} kc_range;

typedef struct kc_opt {
    const char *name; /* long name without "--" */
    char shrt;        /* short letter, 0 = none */
    kc_type type;
    void *ptr;           /* variable filled (see kc_type) */
    const char *def;     /* default as command-line text; NULL = none (variable left as is) */
    const char *meta;    /* value placeholder in help ("N", "FILE"); NULL = from the type */
    const char *help;    /* one line, with units */
    const char *choices; /* KC_CHOICE: "a|b|c" */
    double min, max;     /* numeric bounds when min < max (each entry of DIMS and LIST too) */
    int *given;          /* optional: set to 1 when the option appears on the command line */
} kc_opt;

typedef struct kc_arg {
    const char *name; /* shown as <name> */
    const char **ptr; /* receives the argument */
    const char *help;
    int optional; /* optional arguments come last */
} kc_arg;

/* Flags for kc_spec.common. */
enum {
    KC_JSON = 1u << 0, /* the tool measures something and accepts --json */
    KC_HOST = 1u << 1  /* the tool runs on the CPU only: --backend/--device do not change it */
};

/* Common options (filled by kc_parse for every tool). */
typedef struct kc_common {
    int backend;   /* a kr_backend value (the index into kc_backend_choices()) */
    int device;    /* CUDA device ordinal */
    int device_given;
    const char *devices; /* --devices LIST, or NULL */
    int threads;   /* 0 = OpenMP default */
    int precision; /* 0 = f32, 1 = f64 */
    int quiet;
    int verbose;
    int json;
    int allow_nonfinite; /* read NaN and Inf in input data (kc_read refuses them otherwise) */
} kc_common;

typedef struct kc_spec {
    const char *tool;    /* "phantom" */
    const char *summary; /* paragraph shown under the usage line */
    const kc_opt *opts;  /* may be NULL */
    const kc_arg *args;  /* may be NULL */
    unsigned common;     /* KC_JSON */
    const char *notes;   /* shown after the options (examples); may be NULL */
    /* When rest != NULL, extra positional arguments after the last kc_arg are collected here
     * (at most KC_MAX_REST); *nrest receives their count. */
    const char **rest;
    int *nrest;
} kc_spec;

/* Parse argv[1..argc-1] (argv[0] is the tool name). Returns 0 to proceed, KC_EXIT_USAGE after
 * printing one sentence on stderr, or -1 after printing the help on stdout (the tool then
 * exits 0). Two hidden first arguments print the tables instead of the help, for `kray help`:
 * --kc-table (one tab-separated line per option: tool, long name, short letter, type, value
 * placeholder, row kind opt|alias|renamed, choices) and --kc-markdown (the tool's reference as
 * Markdown, the text docs/cli.md carries). */
int kc_parse(const kc_spec *spec, kc_common *common, int argc, char **argv);
void kc_print_help(const kc_spec *spec, FILE *f);
void kc_print_markdown(const kc_spec *spec, FILE *f);
void kc_print_table(const kc_spec *spec, FILE *f);

/* Message helpers of the command line: `fmt` formatted, control bytes escaped (kri_escape),
 * one line on stderr starting "kray <tool>: ". */
void kc_vmessage(const char *tool, const char *fmt, va_list ap);

/* The --backend choices "auto|cpu-serial|...": the library's backend names (kr_backend_name) in
 * kr_backend order, so the index a choice parses to is the kr_backend value itself. */
const char *kc_backend_choices(void);

/* Name of choice `index` in "a|b|c" into buf (returns buf). */
const char *kc_choice_name(const char *choices, int index, char *buf, size_t len);

/* Parse helpers, also used for values that tools split themselves. Return 0 on success. */
int kc_parse_dims(const char *s, kc_dims *d);
int kc_parse_range(const char *s, kc_range *r);

#endif
