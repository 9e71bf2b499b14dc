/* kray demo: the built-in demonstration, made of independent sections.
 *
 * A section is one file tools/demo/<name>.c defining a `const kc_demo_section`; it is declared
 * below and listed once in the table in tools/demo/demo.c (that order is the order of the report).
 * A section writes PNG images into the output directory (kc_demo_png), adds headings, text,
 * tables, figures and charts to the report, prints one or two summary lines (kc_demo_say), and
 * returns KR_OK or a failing status (its kr_last_error() sentence goes into the report and on
 * stderr; the other sections still run, and `kray demo` exits 1 at the end).
 */
#ifndef KRAY_TOOLS_DEMO_H
#define KRAY_TOOLS_DEMO_H

#include "cli.h"
#include "report.h"

typedef struct kc_demo {
    kr_ctx *ctx;     /* the backend the user asked for (AUTO: CUDA when a GPU is usable) */
    kr_ctx *cpu;     /* always a CPU context, for host work and CPU-vs-GPU comparisons */
    int gpu;         /* 1 when ctx is a CUDA context */
    const char *out; /* output directory (exists) */
    kc_report *report;
    int quick;     /* smaller sizes, fewer iterations (tests) */
    int quiet;     /* no summary lines on stdout */
    kr_dtype real; /* f32 or f64 (--precision) */
    const kc_common *common;
    const char *section; /* name of the running section (for messages) */
} kc_demo;

typedef struct kc_demo_section {
    const char *name;  /* short id, used by --only and as the HTML anchor */
    const char *title; /* heading in the report */
    kr_status (*run)(kc_demo *d);
} kc_demo_section;

extern const kc_demo_section kc_demo_system;
extern const kc_demo_section kc_demo_phantoms;
extern const kc_demo_section kc_demo_mri_fourier;
extern const kc_demo_section kc_demo_sim;
extern const kc_demo_section kc_demo_spiral;
extern const kc_demo_section kc_demo_lsq;
extern const kc_demo_section kc_demo_iterative;
extern const kc_demo_section kc_demo_ct2d;
extern const kc_demo_section kc_demo_cone;
extern const kc_demo_section kc_demo_fdk;
extern const kc_demo_section kc_demo_reg;

/* One summary line on stdout ("[section] text"), unless --quiet. */
void kc_demo_say(const kc_demo *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Write `a` as DIR/<name>.png (window lo..hi when lo < hi, else the image's min..max; slice
 * along axis 2 as for kray convert, -1 = central; part: 0 magnitude ... 3 phase) and add it to
 * the current row of figures with `caption`. Row 0 (y index 0) is the top of the picture, as
 * in every kray image (docs/conventions.md). */
kr_status kc_demo_png(kc_demo *d, const char *name, const kr_array *a, double lo, double hi,
                      int slice, int part, const char *caption);

/* Deterministic Gaussian noise (Box-Muller over splitmix64): x[i] = sigma * N(0,1). */
void kc_demo_noise(double *x, int64_t n, double sigma, uint64_t seed);

#endif
