/* kray command line: tiny self-contained HTML report writer (see report.h). */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define KC_REPORT_MAX_IMAGES 256

struct kc_report {
    char *buf;
    size_t len, cap;
    int oom;
    int ncols;
    int nimg;
    char *img[KC_REPORT_MAX_IMAGES];
    kc_report_axes ax; /* for the next figure when ax.set */
};

static void kc_put(kc_report *r, const char *s, size_t n)
{
    if (r->oom) return;
    if (r->len + n + 1 > r->cap) {
        size_t cap = r->cap ? r->cap : 4096;
        while (r->len + n + 1 > cap) cap *= 2;
        char *b = realloc(r->buf, cap);
        if (!b) {
            r->oom = 1;
            return;
        }
        r->buf = b;
        r->cap = cap;
    }
    memcpy(r->buf + r->len, s, n);
    r->len += n;
    r->buf[r->len] = '\0';
}

static void kc_puts(kc_report *r, const char *s) { kc_put(r, s, strlen(s)); }

static void kc_vprintf(kc_report *r, const char *fmt, va_list ap)
{
    char small[512];
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(small, sizeof small, fmt, aq);
    va_end(aq);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        kc_put(r, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        r->oom = 1;
        return;
    }
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    kc_put(r, big, (size_t)n);
    free(big);
}

static void kc_printf(kc_report *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void kc_printf(kc_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kc_vprintf(r, fmt, ap);
    va_end(ap);
}

/* Escaped text (also safe inside attribute values). */
static void kc_esc(kc_report *r, const char *s)
{
    for (const char *p = s ? s : ""; *p; p++) {
        switch (*p) {
        case '&': kc_puts(r, "&amp;"); break;
        case '<': kc_puts(r, "&lt;"); break;
        case '>': kc_puts(r, "&gt;"); break;
        case '"': kc_puts(r, "&quot;"); break;
        case '\'': kc_puts(r, "&#39;"); break;
        default: kc_put(r, p, 1);
        }
    }
}

static char *kc_vformat(const char *fmt, va_list ap)
{
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (n < 0) return NULL;
    char *s = malloc((size_t)n + 1);
    if (s) vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

kc_report *kc_report_create(const char *title)
{
    kc_report *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    kc_puts(r, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<title>");
    kc_esc(r, title);
    kc_puts(r, "</title>\n<style>\n"
               "body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:2em auto;"
               "max-width:72em;padding:0 1em;color:#222;line-height:1.45}\n"
               "h1{border-bottom:2px solid #345;padding-bottom:.2em}\n"
               "h2{margin-top:2em;border-bottom:1px solid #ccc;color:#234}\n"
               "table{border-collapse:collapse;margin:.8em 0}\n"
               "th,td{border:1px solid #ccc;padding:.25em .7em;text-align:left;"
               "font-variant-numeric:tabular-nums}\n"
               "th{background:#eef2f6}\n"
               ".figs{display:flex;flex-wrap:wrap;gap:1em;margin:.8em 0}\n"
               "figure{margin:0;max-width:280px}\n"
               "figure img{width:256px;height:auto;image-rendering:pixelated;"
               "border:1px solid #999;background:#000}\n"
               "figcaption{font-size:.85em;color:#444}\n"
               ".err{background:#fdecea;border-left:4px solid #c0392b;padding:.5em 1em}\n"
               "svg text{font-size:11px;font-family:sans-serif}\n"
               "</style>\n</head>\n<body>\n<h1>");
    kc_esc(r, title);
    kc_puts(r, "</h1>\n");
    return r;
}

void kc_report_destroy(kc_report *r)
{
    if (!r) return;
    for (int i = 0; i < r->nimg; i++) free(r->img[i]);
    free(r->buf);
    free(r);
}

void kc_report_section(kc_report *r, const char *id, const char *title)
{
    kc_puts(r, "<h2 id=\"");
    kc_esc(r, id);
    kc_puts(r, "\">");
    kc_esc(r, title);
    kc_puts(r, "</h2>\n");
}

void kc_report_para(kc_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = kc_vformat(fmt, ap);
    va_end(ap);
    if (!s) {
        r->oom = 1;
        return;
    }
    kc_puts(r, "<p>");
    kc_esc(r, s);
    kc_puts(r, "</p>\n");
    free(s);
}

void kc_report_error(kc_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = kc_vformat(fmt, ap);
    va_end(ap);
    if (!s) {
        r->oom = 1;
        return;
    }
    kc_puts(r, "<p class=\"err\">");
    kc_esc(r, s);
    kc_puts(r, "</p>\n");
    free(s);
}

void kc_report_table_begin(kc_report *r, int ncols, const char *const *header)
{
    r->ncols = ncols;
    kc_puts(r, "<table>\n<tr>");
    for (int i = 0; i < ncols; i++) {
        kc_puts(r, "<th>");
        kc_esc(r, header[i]);
        kc_puts(r, "</th>");
    }
    kc_puts(r, "</tr>\n");
}

void kc_report_table_row(kc_report *r, const char *const *cells)
{
    kc_puts(r, "<tr>");
    for (int i = 0; i < r->ncols; i++) {
        kc_puts(r, "<td>");
        kc_esc(r, cells[i]);
        kc_puts(r, "</td>");
    }
    kc_puts(r, "</tr>\n");
}

void kc_report_table_rowf(kc_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = kc_vformat(fmt, ap);
    va_end(ap);
    if (!s) {
        r->oom = 1;
        return;
    }
    const char *cells[64];
    int n = 0;
    char *p = s;
    while (n < 64 && n < r->ncols) {
        cells[n++] = p;
        char *tab = strchr(p, '\t');
        if (!tab) break;
        *tab = '\0';
        p = tab + 1;
    }
    while (n < r->ncols && n < 64) cells[n++] = "";
    kc_report_table_row(r, cells);
    free(s);
}

void kc_report_table_end(kc_report *r) { kc_puts(r, "</table>\n"); }

void kc_report_figures_begin(kc_report *r) { kc_puts(r, "<div class=\"figs\">\n"); }

void kc_report_next_axes(kc_report *r, const kc_report_axes *ax) { r->ax = *ax; }

/* The image inside an SVG frame with ticks and labels on both axes (r->ax). */
static void kc_report_axes_figure(kc_report *r, const char *src)
{
    const kc_report_axes *a = &r->ax;
    const double L = 56, B = 40, T = 8, R = 12, W = L + a->w + R, H = T + a->h + B;
    kc_printf(r, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                 "viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n<image href=\"", W, H, W, H);
    kc_esc(r, src);
    kc_printf(r, "\" x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"%d\"/>\n", L, T, a->w, a->h);
    kc_printf(r, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%d\" height=\"%d\" fill=\"none\" "
                 "stroke=\"#888\"/>\n", L, T, a->w, a->h);
    for (int t = 0; t <= 4; t++) {
        double px = L + a->w * t / 4.0, py = T + a->h * (1.0 - t / 4.0);
        kc_printf(r, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>"
                     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.3g</text>\n",
                  px, T + a->h, px, T + a->h + 4, px, T + a->h + 16,
                  a->x0 + (a->x1 - a->x0) * t / 4.0);
        kc_printf(r, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>"
                     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.3g</text>\n",
                  L - 4, py, L, py, L - 6, py + 4, a->y0 + (a->y1 - a->y0) * t / 4.0);
    }
    kc_printf(r, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", L + a->w / 2.0, H - 6);
    kc_esc(r, a->xlabel);
    kc_printf(r, "</text>\n<text x=\"12\" y=\"%.1f\" text-anchor=\"middle\" "
                 "transform=\"rotate(-90 12 %.1f)\">", T + a->h / 2.0, T + a->h / 2.0);
    kc_esc(r, a->ylabel);
    kc_puts(r, "</text>\n</svg>");
}

void kc_report_figure(kc_report *r, const char *src, const char *caption)
{
    if (r->ax.set) {
        kc_puts(r, "<figure style=\"max-width:none\">");
        kc_report_axes_figure(r, src);
        r->ax.set = 0;
    } else {
        kc_puts(r, "<figure><img src=\"");
        kc_esc(r, src);
        kc_puts(r, "\" alt=\"");
        kc_esc(r, caption);
        kc_puts(r, "\">");
    }
    kc_puts(r, "<figcaption>");
    kc_esc(r, caption);
    kc_puts(r, "</figcaption></figure>\n");
    if (r->nimg < KC_REPORT_MAX_IMAGES) {
        char *c = strdup(src);
        if (c)
            r->img[r->nimg++] = c;
        else
            r->oom = 1;
    }
}

void kc_report_figures_end(kc_report *r) { kc_puts(r, "</div>\n"); }

int kc_report_nimages(const kc_report *r) { return r->nimg; }

const char *kc_report_image(const kc_report *r, int i)
{
    return i >= 0 && i < r->nimg ? r->img[i] : NULL;
}

void kc_report_chart(kc_report *r, const char *caption, const char *xlabel, const char *ylabel,
                     int nseries, const char *const *names, const double *const *y, const int *n,
                     int logy)
{
    static const char *const colors[] = {"#1f77b4", "#d62728", "#2ca02c",
                                         "#9467bd", "#ff7f0e", "#17becf"};
    const double W = 520, H = 300, L = 64, R = 16, T = 16, B = 44;
    double ymin = INFINITY, ymax = -INFINITY;
    int xmax = 1;
    for (int s = 0; s < nseries; s++) {
        if (n[s] - 1 > xmax) xmax = n[s] - 1;
        for (int i = 0; i < n[s]; i++) {
            double v = y[s][i];
            if (!isfinite(v) || (logy && v <= 0)) continue;
            v = logy ? log10(v) : v;
            if (v < ymin) ymin = v;
            if (v > ymax) ymax = v;
        }
    }
    if (!(ymin <= ymax)) ymin = 0, ymax = 1;
    if (logy) {
        ymin = floor(ymin);
        ymax = ceil(ymax);
    }
    if (ymax - ymin < 1e-12) ymax = ymin + 1;
    kc_puts(r, "<figure style=\"max-width:none\">\n");
    kc_printf(r,
              "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
              "viewBox=\"0 0 %.0f %.0f\" role=\"img\">\n",
              W, H, W, H);
    kc_printf(r,
              "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"#fff\" "
              "stroke=\"#888\"/>\n",
              L, T, W - L - R, H - T - B);
    /* y ticks */
    int nt = logy ? (int)(ymax - ymin) : 4;
    if (nt < 1) nt = 1;
    int step = nt > 8 ? (nt + 7) / 8 : 1;
    for (int t = 0; t <= nt; t += step) {
        double v = ymin + (ymax - ymin) * t / nt;
        double py = T + (H - T - B) * (1.0 - (v - ymin) / (ymax - ymin));
        kc_printf(r, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", L,
                  py, W - R, py);
        if (logy)
            kc_printf(r, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>\n", L - 4,
                      py + 4, (int)lround(v));
        else
            kc_printf(r, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.3g</text>\n", L - 4,
                      py + 4, v);
    }
    /* x ticks */
    for (int t = 0; t <= 4; t++) {
        double xv = xmax * t / 4.0;
        double px = L + (W - L - R) * t / 4.0;
        kc_printf(r, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.0f</text>\n", px,
                  H - B + 16, xv);
    }
    kc_printf(r, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", (L + W - R) / 2, H - 8);
    kc_esc(r, xlabel);
    kc_puts(r, "</text>\n");
    kc_printf(r,
              "<text x=\"14\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 14 %.1f)\">",
              (T + H - B) / 2, (T + H - B) / 2);
    kc_esc(r, ylabel);
    kc_puts(r, "</text>\n");
    for (int s = 0; s < nseries; s++) {
        const char *col = colors[s % 6];
        kc_printf(r, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\" points=\"", col);
        for (int i = 0; i < n[s]; i++) {
            double v = y[s][i];
            if (!isfinite(v) || (logy && v <= 0)) continue;
            v = logy ? log10(v) : v;
            double px = L + (W - L - R) * (double)i / xmax;
            double py = T + (H - T - B) * (1.0 - (v - ymin) / (ymax - ymin));
            kc_printf(r, "%.1f,%.1f ", px, py);
        }
        kc_puts(r, "\"/>\n");
        kc_printf(r, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"3\" fill=\"%s\"/>",
                  W - R - 150, T + 12 + 16 * s, col);
        kc_printf(r, "<text x=\"%.1f\" y=\"%.1f\">", W - R - 130, T + 17 + 16 * s);
        kc_esc(r, names[s]);
        kc_puts(r, "</text>\n");
    }
    kc_puts(r, "</svg>\n<figcaption>");
    kc_esc(r, caption);
    kc_puts(r, "</figcaption></figure>\n");
}

int kc_report_write(const kc_report *r, const char *path)
{
    if (r->oom) {
        errno = ENOMEM;
        return -1;
    }
    static const char tail[] = "<footer><p style=\"color:#888;font-size:.8em\">Written by "
                               "kray demo.</p></footer>\n</body>\n</html>\n";
    char tmp[4200];
    int k = snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (k < 0 || (size_t)k >= sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    FILE *f = fopen(tmp, "wb");
    if (!f) return -1;
    int ok = fwrite(r->buf, 1, r->len, f) == r->len &&
             fwrite(tail, 1, sizeof tail - 1, f) == sizeof tail - 1;
    ok = (fflush(f) == 0) && ok;
    int e = errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (!ok || rename(tmp, path) != 0) {
        if (ok) e = errno;
        remove(tmp);
        errno = e ? e : EIO;
        return -1;
    }
    return 0;
}
