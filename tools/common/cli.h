/* kray command line: shared helpers of the tools and the tool entry points. */
#ifndef KRAY_TOOLS_CLI_H
#define KRAY_TOOLS_CLI_H

#include "jsonout.h" /* the tools' --json results */
#include "opts.h"

#include <stdio.h>

/* ---- tool entry points (argv[0] is the tool name) ----------------------------------------- */
int kc_tool_phantom(int argc, char **argv);
int kc_tool_convert(int argc, char **argv);
int kc_tool_info(int argc, char **argv);
int kc_tool_metrics(int argc, char **argv);
int kc_tool_demo(int argc, char **argv);
int kc_tool_project(int argc, char **argv);
int kc_tool_backproject(int argc, char **argv);
int kc_tool_sirt(int argc, char **argv);
int kc_tool_cgls(int argc, char **argv);
int kc_tool_traj(int argc, char **argv);
int kc_tool_dcf(int argc, char **argv);
int kc_tool_drft(int argc, char **argv);
int kc_tool_sim(int argc, char **argv);
int kc_tool_coils(int argc, char **argv);
int kc_tool_nufft(int argc, char **argv);
int kc_tool_fbp(int argc, char **argv);
int kc_tool_bench(int argc, char **argv);
int kc_tool_recon(int argc, char **argv);
int kc_tool_sense(int argc, char **argv);
int kc_tool_fdk(int argc, char **argv);
int kc_tool_lsrecon(int argc, char **argv);
int kc_tool_goertzel(int argc, char **argv);
int kc_tool_fve(int argc, char **argv);
int kc_tool_cgsense(int argc, char **argv);
int kc_tool_ctreg(int argc, char **argv);

/* ---- errors -------------------------------------------------------------------------------- */
/* "kray <tool>: <sentence>" on stderr; returns KC_EXIT_USAGE. */
int kc_usage(const char *tool, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* "kray <tool>: <kr_last_error() or the status name>" on stderr; returns KC_EXIT_INPUT. */
int kc_fail(const char *tool, kr_status s);

/* ---- context from the common options ------------------------------------------------------- */
/* Returns 0, or prints the sentence and returns KC_EXIT_INPUT (e.g. --backend cuda without a
 * GPU). */
int kc_make_ctx(const char *tool, const kc_common *c, kr_ctx **ctx);
kr_dtype kc_precision_dtype(const kc_common *c); /* KR_F32 or KR_F64 */
/* Host-only tools: make --threads the OpenMP default for library code without a ctx. */
void kc_apply_threads(const kc_common *c);

/* ---- files --------------------------------------------------------------------------------- */
/* 0 when `path` names a format kray can write; otherwise prints and returns KC_EXIT_USAGE. */
int kc_check_output(const char *tool, const char *path);
/* 0 when `path` names a format kray can read; otherwise prints and returns KC_EXIT_USAGE. */
int kc_check_input(const char *tool, const char *path);

/* Raw-input options shared by tools that read files (convert, info, metrics). */
typedef struct kc_raw {
    kc_dims dims;
    int dtype; /* index into KC_DTYPES */
    int big_endian;
    int64_t offset;
} kc_raw;

#define KC_DTYPES "f32|f64|c64|c128|u8|u16|i16"
/* Element type for choice index i of KC_DTYPES. */
kr_dtype kc_dtype_of_choice(int i);

/* clang-format off */
#define KC_RAW_OPTS(r)                                                                         \
    {"dims", 0, KC_DIMS, &(r).dims, NULL, "DIMS",                                              \
     "raw input: dimensions, fastest first (e.g. 256x256)", NULL, 0, 0, NULL},                 \
        {"dtype", 0, KC_CHOICE, &(r).dtype, "f32", "T", "raw input: element type", KC_DTYPES,   \
         0, 0, NULL},                                                                          \
        {"big-endian", 0, KC_FLAG, &(r).big_endian, NULL, NULL,                                \
         "raw input: samples are big-endian (default little-endian)", NULL, 0, 0, NULL},       \
        {"offset", 0, KC_INT64, &(r).offset, "0", "BYTES",                                     \
         "raw input: bytes to skip at the start of the file", NULL, 0, 1e15, NULL}
/* clang-format on */

/* Fill `o` (already defaulted) from the raw options; for a .raw path --dims is required
 * (usage error otherwise). Returns 0 or KC_EXIT_USAGE. */
int kc_raw_to_io(const char *tool, const char *path, const kc_raw *r, kr_io_opts *o);

/* ---- statistics over an array (host), in float64, fixed order ------------------------------ */
typedef struct kc_stats {
    int64_t n; /* elements */
    int64_t nfinite;
    int64_t nnan, ninf;
    double min, max, mean, std; /* over finite values; of the magnitude for complex data */
} kc_stats;
void kc_array_stats(const kr_array *a, kc_stats *st);
/* Element i as (re, im) doubles (host, contiguous). */
void kc_elem(const kr_array *a, int64_t i, double *re, double *im);

/* Reverse axis 1 (y) of a contiguous host array in place, for every plane. 0, or -1 when out
 * of memory. */
int kc_flip_y(kr_array *a);

/* ---- misc ---------------------------------------------------------------------------------- */
/* Human duration "12.3 ms" / "1.24 s". */
const char *kc_fmt_seconds(double s, char *buf, size_t len);

#endif
