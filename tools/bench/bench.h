/* kray bench: benchmark programs (not tests). Each bench is one function in its own file
 * tools/bench/<name>.c, listed in the table of tools/bench/bench.c. Shared here: timing
 * statistics, the machine description, JSON helpers and an SVG bar chart writer. */
#ifndef KRAY_TOOLS_BENCH_H
#define KRAY_TOOLS_BENCH_H

#include "cli.h"

int kc_bench_fbp2d(int argc, char **argv);
int kc_bench_nufft(int argc, char **argv);
int kc_bench_fdk(int argc, char **argv);
int kc_bench_cone(int argc, char **argv);
int kc_bench_lsq(int argc, char **argv);
int kc_bench_fve(int argc, char **argv);
int kc_bench_goertzel(int argc, char **argv);
int kc_bench_cgsense(int argc, char **argv);
int kc_bench_ct2d(int argc, char **argv);
int kc_bench_sense(int argc, char **argv);
int kc_bench_bloch(int argc, char **argv);
int kc_bench_scale(int argc, char **argv);
int kc_bench_startup(int argc, char **argv);
int kc_bench_espirit(int argc, char **argv);
int kc_bench_llr(int argc, char **argv);
int kc_bench_reg(int argc, char **argv);

/* Statistics of n timings (seconds), n >= 1: mean, sample standard deviation, min, max. */
typedef struct kc_tstats {
    int n;
    double mean, std, min, max;
} kc_tstats;
void kc_tstats_of(const double *t, int n, kc_tstats *s);
/* Sort n timings ascending in place: t[0] is then the best, t[n / 2] the median. */
void kc_times_sort(double *t, int n);

/* One result line of a projector benchmark (kray bench cone, kray bench ct2d): sorts the n
 * timings t (seconds) and prints the best and the median and rays (detector pixels x views) per
 * second of the best, as a table row or (json) a JSON line. vol: ndim (2 or 3) volume sizes;
 * det: ndim - 1 detector sizes (u, then v). */
typedef struct kc_proj_case {
    const char *bcase, *geom, *method, *dtype;
    int ndim;
    const int64_t *vol, *det;
    int64_t views;
} kc_proj_case;
/* The ctx of a bench from its common options (kc_make_ctx), logging errors only unless
 * --verbose, and its device's name in dev ("cpu" on the CPU backends). Returns 0 or the exit
 * code (after one sentence on stderr). */
int kc_bench_ctx(const char *tool, const kc_common *c, kr_ctx **ctx, char *dev, size_t ndev);
/* Wait for the ctx's device work (no-op on the CPU backends). */
kr_status kc_bench_sync(const kr_ctx *ctx);

void kc_proj_header(void);
void kc_proj_line(int json, const kc_proj_case *pc, const kr_ctx *ctx, const char *dev, double *t,
                  int n);

/* A peer's inputs: the geometry as JSON with explicit views and data as raw f32, in
 * tmpdir/kray_<stem>_geom.json and tmpdir/kray_<stem>_data.raw (their paths in gp and dp, n
 * bytes each). Returns 0, or -1 after one line "kray TOOL: ..." on stderr. */
int kc_peer_inputs(const char *tool, const char *tmpdir, const char *stem, const kr_ct_geom *g,
                   const kr_array *data, char *gp, char *dp, size_t n);
/* Run a peer: `"$KRAY_PYTHON" ARGS` (Debian's python3 when unset; args: the script and its
 * options, quoted for the shell) and keep the first line of its output that starts with '{'
 * (newline removed) in line. Returns 0, or -1 when there was none. */
int kc_peer_json(const char *args, char *line, size_t n);
/* The number after "key": in a JSON line (NaN when absent). */
double kc_json_num(const char *line, const char *key);

/* 1 when the comma-separated list holds item. */
int kc_bench_has(const char *list, const char *item);
/* 0 when every item of the comma-separated list `list` (option --`opt`) is one of the n
 * `names`, else the usage error (kc_usage) naming the first unknown item and the choices. */
int kc_bench_list_check(const char *bench, const char *opt, const char *list,
                        const char *const *names, int n);
/* The path of bench/<script> (a peer's program) in out: from dir_opt (--peer-dir) itself, else
 * $KRAY_SRC/bench, ./bench, or bench/ beside or above the executable. 0 when none is readable. */
int kc_bench_find_script(const char *dir_opt, const char *argv0, const char *script, char *out,
                         size_t len);
/* BART's inputs for a radial peer run from kray's host arrays: the trajectory as c64 [3, X, S],
 * the k-space as [1, X, S, C] and the maps as [n, n, 1, C] (unswapped: BART sees kray's frame as
 * its own, the same problem up to the transpose of both image axes), written as
 * tmp/kray_<stem>_{traj,ksp,maps}.cfl; stems[0..3] receive the paths without ".cfl" of the
 * trajectory, k-space, maps and the output to give BART. kc_bart_remove deletes the four. */
kr_status kc_bart_radial_inputs(const char *tmp, const char *stem, const kr_array *traj,
                                const kr_array *k, const kr_array *maps, int64_t n, int64_t x,
                                int64_t spokes, int64_t coils, char stems[4][1024]);
void kc_bart_remove(char stems[4][1024]);

/* "Intel(R) Xeon(R) ..., 2 threads" and, when a GPU is usable, its description. */
void kc_bench_machine(char *cpu, size_t ncpu, char *gpu, size_t ngpu);

/* SVG bar chart: nbars bars with values (> 0) and error bars (>= 0), grouped by colour index
 * (0..7), log-scaled y axis, labels under the bars. Returns 0 or -1 (errno set). */
typedef struct kc_bar {
    const char *label; /* e.g. "cpu f32" */
    double value, err;
    int colour;
} kc_bar;
int kc_svg_bars(const char *path, const char *title, const char *ylabel, const kc_bar *bars,
                int nbars);

#endif
