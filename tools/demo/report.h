/* kray command line: a tiny self-contained HTML report writer (no external scripts, fonts or
 * style sheets; images are PNG files referenced by relative path, charts are inline SVG).
 * The report is built in memory and written atomically (temporary name, then rename). */
#ifndef KRAY_TOOLS_REPORT_H
#define KRAY_TOOLS_REPORT_H

#include <stddef.h>

typedef struct kc_report kc_report;

kc_report *kc_report_create(const char *title); /* NULL when out of memory */
void kc_report_destroy(kc_report *r);           /* accepts NULL */

/* Text arguments are plain text (escaped); nothing here interprets HTML from the caller. */
void kc_report_section(kc_report *r, const char *id, const char *title);
void kc_report_para(kc_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* A highlighted failure notice. */
void kc_report_error(kc_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Tables: begin with the header cells, add rows of exactly ncols cells, end. */
void kc_report_table_begin(kc_report *r, int ncols, const char *const *header);
void kc_report_table_row(kc_report *r, const char *const *cells);
/* Row from printf-style cells separated by '\t' in the formatted text. */
void kc_report_table_rowf(kc_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void kc_report_table_end(kc_report *r);

/* A row of figures: begin, one or more images (src relative to the report), end. */
void kc_report_figures_begin(kc_report *r);
void kc_report_figure(kc_report *r, const char *src, const char *caption);
void kc_report_figures_end(kc_report *r);
/* Axes for the next kc_report_figure only: the image is drawn w x h pixels in a frame with four
 * ticks per axis from (x0, y0) at the bottom left to (x1, y1) at the top right, and labels. */
typedef struct kc_report_axes {
    int set, w, h;
    const char *xlabel, *ylabel;
    double x0, x1, y0, y1;
} kc_report_axes;
void kc_report_next_axes(kc_report *r, const kc_report_axes *ax);

/* Line chart (inline SVG) of nseries curves; series s has n[s] values y[s][0..n-1] at x = index.
 * logy: logarithmic y axis (values <= 0 are skipped). */
void kc_report_chart(kc_report *r, const char *caption, const char *xlabel, const char *ylabel,
                     int nseries, const char *const *names, const double *const *y, const int *n,
                     int logy);

/* Number of images added so far and the i-th src (for checks). */
int kc_report_nimages(const kc_report *r);
const char *kc_report_image(const kc_report *r, int i);

/* Write to `path` atomically. Returns 0, or -1 with errno set. */
int kc_report_write(const kc_report *r, const char *path);

#endif
