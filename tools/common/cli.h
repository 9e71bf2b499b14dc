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
int kc_tool_coilcombine(int argc, char **argv);
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
int kc_tool_studio(int argc, char **argv);
int kc_tool_mrreg(int argc, char **argv);

/* The benchmarks of `kray bench` (tools/bench/bench.c): count, name and one-line summary. */
int kc_bench_count(void);
const char *kc_bench_name(int i);
const char *kc_bench_summary(int i);

/* ---- errors -------------------------------------------------------------------------------- */
/* "kray <tool>: <sentence>" on stderr; returns KC_EXIT_USAGE. */
int kc_usage(const char *tool, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The same line for what is not an error (-v summaries, warnings, notes). */
void kc_note(const char *tool, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The same for bad input data: prints the sentence and returns KC_EXIT_INPUT. */
int kc_error(const char *tool, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* "kray <tool>: <kr_last_error() or the status name>" on stderr (without the library's own
 * "<tool>: " prefix); returns KC_EXIT_INPUT. */
int kc_fail(const char *tool, kr_status s);

/* The same sentence for a library call whose arguments all come from the options (a geometry
 * described by --sod/--sdd/..., a trajectory from traj's options): a bad value there is bad
 * usage, so this returns KC_EXIT_USAGE. */
int kc_fail_usage(const char *tool, kr_status s);

/* ---- context from the common options ------------------------------------------------------- */
/* Returns 0, or prints the sentence and returns KC_EXIT_INPUT (e.g. --backend cuda without a
 * GPU). */
int kc_make_ctx(const char *tool, const kc_common *c, kr_ctx **ctx);
/* The same, and in an MPI launch of several processes the context divides its plans over them
 * (kr_ctx_set_dist): for the tools whose plans do (docs/scaling.md). Under MPI, a CUDA context
 * without --device/--devices takes the GPU of its local rank (modulo the GPUs present). */
int kc_make_dist_ctx(const char *tool, const kc_common *c, kr_ctx **ctx);
/* kr_write on rank 0 of an MPI launch (every process holds the result), on the one process
 * otherwise. */
kr_status kc_write(const char *path, const kr_array *a, const kr_io_opts *o);
kr_dtype kc_precision_dtype(const kc_common *c); /* KR_F32 or KR_F64 */
/* Host-only tools: make --threads the OpenMP default for library code without a ctx. */
void kc_apply_threads(const kc_common *c);

/* ---- files --------------------------------------------------------------------------------- */
/* 0 when `path` names a format kray can write; otherwise prints and returns KC_EXIT_USAGE. */
int kc_check_output(const char *tool, const char *path);
/* 0 when `path` names a format kray can read; otherwise prints and returns KC_EXIT_USAGE. */
int kc_check_input(const char *tool, const char *path);

/* Options for files that hold images [x, y, ...] (kr_io_opts_default with KR_IO_AXES_IMAGE:
 * BART's .cfl keeps images as [y, x, ...]). */
const kr_io_opts *kc_image_io(void);
/* PNG/PGM pictures: 8 bits, the window lo..hi (lo < hi; else the data's min..max), the slice
 * along axis 2 (-1 central) and the complex part (0 magnitude .. 3 phase), into io (already
 * defaulted). */
void kc_picture_io(kr_io_opts *io, double lo, double hi, int slice, int part);
/* ---- reading data files: the non-finite policy --------------------------------------------- */
/* Every tool refuses NaN and Inf in the float data it reads unless --allow-nonfinite (a common
 * option; kc_parse records it here) is given. */
void kc_set_allow_nonfinite(int allow);
/* KR_OK, or KR_ERR_INVALID_ARG with the sentence "<path>: N NaN and M infinite values (the
 * first at sample i, index [x, y, ...]); ..." when `a` (any dtype; integers always pass) holds
 * one and they are not allowed. */
kr_status kc_check_finite(const char *path, const kr_array *a);
/* a *= f for a host array of any float or complex dtype (kr_vec_scale on a CPU context). */
kr_status kc_scale(kr_array *a, double f);
/* kr_read / kr_traj_read followed by kc_check_finite (the array is freed when refused). */
kr_status kc_read(const char *path, kr_array **out, kr_meta *meta, const kr_io_opts *io);
kr_status kc_read_traj(const char *path, kr_array **out, kr_dtype dtype);
/* kr_read_part with the same refusal of non-finite values (one process's share of a file). */
kr_status kc_read_part(const char *path, int axis, int64_t start, int64_t count, kr_array **out,
                       const kr_io_opts *io);

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

/* Check that kray reads `path` (kc_check_input), then fill `o` (already defaulted) from the raw
 * options; for a .raw path --dims is required (usage error otherwise). Returns 0 or
 * KC_EXIT_USAGE. */
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
