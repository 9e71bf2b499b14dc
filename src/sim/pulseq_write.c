/* Pulseq 1.4.0 writer (conventions and limits in kray/sim.h). Events and shapes are
 * deduplicated by exact value; shapes are written run-length compressed when that is shorter. */
#include "io/iofile.h"
#include "sim_internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

void kr_pulseq_write_opts_default(kr_pulseq_write_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->grad_raster_s = 10e-6;
    o->rf_raster_s = 1e-6;
    o->adc_raster_s = 100e-9;
    o->block_raster_s = 10e-6;
}

/* A table of events, each `w` doubles (without the id: id = row + 1). */
typedef struct wtab {
    double *v;
    int64_t n, cap;
    int w;
} wtab;

typedef struct wshape {
    double *v;
    int64_t n;
} wshape;

typedef struct wctx {
    wtab rf, grad, trap, adc;
    wshape *sh;
    int64_t nsh, capsh;
    int oom;
} wctx;

/* id (>= 1) of the row equal to x, appended when new. */
static int64_t wtab_id(wctx *c, wtab *t, const double *x)
{
    for (int64_t i = 0; i < t->n; i++)
        if (!memcmp(t->v + i * t->w, x, (size_t)t->w * sizeof *x)) return i + 1;
    if (t->n == t->cap) {
        int64_t cap = t->cap ? 2 * t->cap : 32;
        double *p = realloc(t->v, (size_t)(cap * t->w) * sizeof *p);
        if (!p) {
            c->oom = 1;
            return 0;
        }
        t->v = p;
        t->cap = cap;
    }
    memcpy(t->v + t->n * t->w, x, (size_t)t->w * sizeof *x);
    return ++t->n;
}

/* id of the shape equal to v[0..n); takes ownership of v. */
static int64_t shape_id(wctx *c, double *v, int64_t n)
{
    if (!v) {
        c->oom = 1;
        return 0;
    }
    for (int64_t i = 0; i < c->nsh; i++)
        if (c->sh[i].n == n && !memcmp(c->sh[i].v, v, (size_t)n * sizeof *v)) {
            free(v);
            return i + 1;
        }
    if (c->nsh == c->capsh) {
        int64_t cap = c->capsh ? 2 * c->capsh : 32;
        wshape *p = realloc(c->sh, (size_t)cap * sizeof *p);
        if (!p) {
            free(v);
            c->oom = 1;
            return 0;
        }
        c->sh = p;
        c->capsh = cap;
    }
    c->sh[c->nsh] = (wshape){v, n};
    return ++c->nsh;
}

/* t / r as an integer when t is on the raster (relative tolerance 1e-6 of r), else -1. */
static int64_t on_raster(double t, double r)
{
    double q = t / r, k = nearbyint(q);
    if (fabs(q - k) > 1e-6 || k < 0 || k > 9e15) return -1;
    return (int64_t)k;
}

static void write_shape(FILE *fp, int64_t id, const double *v, int64_t n)
{
    fprintf(fp, "\nshape_id %lld\nnum_samples %lld\n", (long long)id, (long long)n);
    /* run-length compressed derivative; plain when that is not shorter */
    double *d = malloc((size_t)n * sizeof *d);
    int64_t m = 0;
    if (d) {
        double prev = 0.0;
        /* derivative of the values as printed, so the reader's cumulative sum is exact up to
         * the printing of the differences */
        for (int64_t i = 0; i < n; i++) {
            d[i] = v[i] - prev;
            prev = v[i];
        }
        for (int64_t i = 0; i < n;) {
            int64_t j = i + 1;
            while (j < n && d[j] == d[i])
                j++;
            m += j - i >= 2 ? 3 : 1;
            i = j;
        }
    }
    if (!d || m >= n) {
        for (int64_t i = 0; i < n; i++)
            fprintf(fp, "%.9g\n", v[i]);
        free(d);
        return;
    }
    for (int64_t i = 0; i < n;) {
        int64_t j = i + 1;
        while (j < n && d[j] == d[i])
            j++;
        if (j - i >= 2)
            fprintf(fp, "%.9g\n%.9g\n%lld\n", d[i], d[i], (long long)(j - i - 2));
        else
            fprintf(fp, "%.9g\n", d[i]);
        i = j;
    }
    free(d);
}

static kr_status w_block(wctx *c, const kri_seq_block *b, const kr_pulseq_write_opts *o,
                         int64_t ib, double ev[6])
{
    const double gb = KR_GAMMA_BAR_HZ_PER_T;
    memset(ev, 0, 6 * sizeof *ev);
    if (b->rf_n > 0) {
        int64_t m = on_raster(b->rf_dt, o->rf_raster_s);
        int64_t dl = on_raster(b->rf_delay, 1e-6);
        if (m < 1 || dl < 0)
            return kri_fail(KR_ERR_NOT_SUPPORTED,
                            "block %lld: RF sample duration %g s or delay %g s is not on the RF "
                            "raster %g s / 1 us",
                            (long long)ib, b->rf_dt, b->rf_delay, o->rf_raster_s);
        const int64_t n = b->rf_n * m;
        double amax = 0;
        for (int64_t j = 0; j < b->rf_n; j++)
            amax = fmax(amax, hypot(b->rf_b1[2 * j], b->rf_b1[2 * j + 1]));
        double *mag = malloc((size_t)n * sizeof *mag), *ph = malloc((size_t)n * sizeof *ph);
        if (mag && ph)
            for (int64_t j = 0; j < b->rf_n; j++) {
                double re = b->rf_b1[2 * j], im = b->rf_b1[2 * j + 1];
                double a = amax > 0 ? hypot(re, im) / amax : 0.0;
                double p = atan2(im, re) / (2.0 * M_PI);
                if (p < 0) p += 1.0;
                for (int64_t q = 0; q < m; q++) {
                    mag[j * m + q] = a;
                    ph[j * m + q] = p;
                }
            }
        const double mid = (double)shape_id(c, mag, n);
        const double pid = (double)shape_id(c, ph, n);
        double row[7] = {amax * 1e-6 * gb, mid, pid, 0.0, (double)dl, b->rf_freq, b->rf_phase};
        ev[0] = (double)wtab_id(c, &c->rf, row);
    }
    for (int a = 0; a < 3; a++) {
        const int n = b->gn[a];
        if (n == 0) continue;
        const double *T = b->gt[a], *G = b->gg[a];
        const double r = o->grad_raster_s;
        int64_t k0 = on_raster(T[0], r);
        int ok = k0 >= 0;
        for (int j = 1; j < n && ok; j++)
            ok = on_raster(T[j], r) >= 0;
        if (!ok)
            return kri_fail(KR_ERR_NOT_SUPPORTED,
                            "block %lld: gradient %c has a corner point off the gradient raster "
                            "%g s",
                            (long long)ib, "xyz"[a], r);
        int trap = (n == 4 && G[0] == 0 && G[3] == 0 && G[1] == G[2]) ||
                   (n == 3 && G[0] == 0 && G[2] == 0);
        if (trap) {
            double rise = T[1] - T[0], flat = n == 4 ? T[2] - T[1] : 0.0;
            double fall = T[n - 1] - T[n - 2];
            double row[5] = {G[1] * 1e-3 * gb, nearbyint(rise * 1e6), nearbyint(flat * 1e6),
                             nearbyint(fall * 1e6), nearbyint(T[0] * 1e6)};
            ev[1 + a] = (double)(wtab_id(c, &c->trap, row) * 2); /* even ids: traps */
        } else {
            double amax = 0;
            for (int j = 0; j < n; j++)
                amax = fmax(amax, fabs(G[j]));
            if (amax == 0) continue;
            double *sv = malloc((size_t)n * sizeof *sv), *tv = malloc((size_t)n * sizeof *tv);
            if (sv && tv)
                for (int j = 0; j < n; j++) {
                    sv[j] = G[j] / amax;
                    tv[j] = (double)(on_raster(T[j], r) - k0);
                }
            const double sid = (double)shape_id(c, sv, n);
            const double tid = (double)shape_id(c, tv, n);
            double row[4] = {amax * 1e-3 * gb, sid, tid, nearbyint(T[0] * 1e6)};
            ev[1 + a] = (double)(wtab_id(c, &c->grad, row) * 2 - 1); /* odd ids: arbitrary */
        }
    }
    if (b->adc.n > 0) {
        double row[5] = {(double)b->adc.n, nearbyint(b->adc.dwell_s * 1e9),
                         nearbyint(b->adc.delay_s * 1e6), b->adc.freq_hz, b->adc.phase_rad};
        ev[4] = (double)wtab_id(c, &c->adc, row);
    }
    return c->oom ? kri_fail(KR_ERR_OOM_HOST, "out of host memory writing a Pulseq file")
                  : KR_OK;
}

static void wctx_free(wctx *c)
{
    free(c->rf.v);
    free(c->grad.v);
    free(c->trap.v);
    free(c->adc.v);
    for (int64_t i = 0; i < c->nsh; i++)
        free(c->sh[i].v);
    free(c->sh);
}

kr_status kr_seq_write_pulseq(const kr_seq *seq, const char *path, const kr_pulseq_write_opts *opts)
{
    KRI_ARG_NOT_NULL(seq);
    KRI_ARG_NOT_NULL(path);
    kr_pulseq_write_opts o;
    if (opts)
        o = *opts;
    else
        kr_pulseq_write_opts_default(&o);
    if (!(o.grad_raster_s > 0 && o.rf_raster_s > 0 && o.adc_raster_s > 0 &&
          o.block_raster_s > 0 && o.grad_raster_s < 1 && o.rf_raster_s < 1 &&
          o.adc_raster_s < 1 && o.block_raster_s < 1))
        return kri_fail(KR_ERR_INVALID_ARG, "Pulseq raster times must be in (0, 1) s");
    KRI_TRY(kr_seq_check(seq));
    wctx c;
    memset(&c, 0, sizeof c);
    c.rf.w = 7;
    c.grad.w = 4;
    c.trap.w = 5;
    c.adc.w = 5;
    /* blocks: num, dur, rf, gx, gy, gz, adc (+ ext 0); gaps become delay blocks */
    double *rows = malloc((size_t)(2 * seq->n) * 7 * sizeof *rows);
    if (!rows) return kri_fail(KR_ERR_OOM_HOST, "out of host memory writing %s", path);
    int64_t nr = 0, nspoil = 0;
    double prev_end = 0.0;
    kr_status st = KR_OK;
    for (int64_t i = 0; i < seq->n && st == KR_OK; i++) {
        const kri_seq_block *b = &seq->b[i];
        if (b->start > prev_end + KRI_SEQ_TIME_TOL) {
            int64_t k = on_raster(b->start - prev_end, o.block_raster_s);
            if (k < 1) {
                st = kri_fail(KR_ERR_NOT_SUPPORTED,
                              "the gap of %g s before block %lld is not on the block raster %g s",
                              b->start - prev_end, (long long)i, o.block_raster_s);
                break;
            }
            double *r = rows + nr++ * 7;
            memset(r, 0, 7 * sizeof *r);
            r[0] = (double)k;
        }
        int64_t k = on_raster(b->dur, o.block_raster_s);
        if (k < 1) {
            st = kri_fail(KR_ERR_NOT_SUPPORTED,
                          "block %lld lasts %.9g s, not a multiple of the block raster %g s",
                          (long long)i, b->dur, o.block_raster_s);
            break;
        }
        double ev[6];
        st = w_block(&c, b, &o, i, ev);
        double *r = rows + nr++ * 7;
        r[0] = (double)k;
        memcpy(r + 1, ev, 6 * sizeof *ev);
        nspoil += b->spoil != 0;
        prev_end = b->start + b->dur;
    }
    if (st != KR_OK) {
        free(rows);
        wctx_free(&c);
        return st;
    }
    if (nspoil)
        kr_log(NULL, KR_LOG_INFO,
               "%s: %lld ideal-spoiling marks have no Pulseq event and are not written", path,
               (long long)nspoil);
    kri_wfile wf; /* written to a temporary file, renamed into place when complete */
    st = kri_wfile_open(&wf, path);
    if (st != KR_OK) {
        free(rows);
        wctx_free(&c);
        return st;
    }
    FILE *fp = wf.f;
    fprintf(fp, "# Pulseq sequence file\n# Created by kray\n\n[VERSION]\nmajor 1\nminor 4\n"
                "revision 0\n\n[DEFINITIONS]\n");
    fprintf(fp, "AdcRasterTime %.9g\nBlockDurationRaster %.9g\nGradientRasterTime %.9g\n",
            o.adc_raster_s, o.block_raster_s, o.grad_raster_s);
    if (o.fov_mm[0] > 0)
        fprintf(fp, "FOV %.9g %.9g %.9g\n", o.fov_mm[0] * 1e-3, o.fov_mm[1] * 1e-3,
                o.fov_mm[2] * 1e-3);
    if (o.name) fprintf(fp, "Name %s\n", o.name);
    fprintf(fp, "RadiofrequencyRasterTime %.9g\n", o.rf_raster_s);
    fprintf(fp, "\n# Format of blocks:\n# NUM DUR RF  GX  GY  GZ  ADC  EXT\n[BLOCKS]\n");
    for (int64_t i = 0; i < nr; i++) {
        const double *r = rows + i * 7;
        fprintf(fp, "%lld %lld %lld %lld %lld %lld %lld 0\n", (long long)(i + 1), (long long)r[0],
                (long long)r[1], (long long)r[2], (long long)r[3], (long long)r[4],
                (long long)r[5]);
    }
    if (c.rf.n) {
        fprintf(fp, "\n# Format of RF events:\n# id amplitude mag_id phase_id time_shape_id delay "
                    "freq phase\n# ..        Hz   ....     ....         ....    us   Hz   rad\n"
                    "[RF]\n");
        for (int64_t i = 0; i < c.rf.n; i++) {
            const double *r = c.rf.v + i * 7;
            fprintf(fp, "%lld %.12g %lld %lld 0 %lld %.12g %.12g\n", (long long)(i + 1), r[0],
                    (long long)r[1], (long long)r[2], (long long)r[4], r[5], r[6]);
        }
    }
    if (c.grad.n) {
        fprintf(fp, "\n# Format of arbitrary gradients:\n# id amplitude amp_shape_id "
                    "time_shape_id delay\n# ..      Hz/m       ....          ....    us\n"
                    "[GRADIENTS]\n");
        for (int64_t i = 0; i < c.grad.n; i++) {
            const double *r = c.grad.v + i * 4;
            fprintf(fp, "%lld %.12g %lld %lld %lld\n", (long long)(2 * i + 1), r[0],
                    (long long)r[1], (long long)r[2], (long long)r[3]);
        }
    }
    if (c.trap.n) {
        fprintf(fp, "\n# Format of trapezoid gradients:\n# id amplitude rise flat fall delay\n"
                    "# ..      Hz/m   us   us   us    us\n[TRAP]\n");
        for (int64_t i = 0; i < c.trap.n; i++) {
            const double *r = c.trap.v + i * 5;
            fprintf(fp, "%lld %.12g %lld %lld %lld %lld\n", (long long)(2 * i + 2), r[0],
                    (long long)r[1], (long long)r[2], (long long)r[3], (long long)r[4]);
        }
    }
    if (c.adc.n) {
        fprintf(fp, "\n# Format of ADC events:\n# id num dwell delay freq phase\n"
                    "# ..  ..    ns    us   Hz   rad\n[ADC]\n");
        for (int64_t i = 0; i < c.adc.n; i++) {
            const double *r = c.adc.v + i * 5;
            fprintf(fp, "%lld %lld %lld %lld %.12g %.12g\n", (long long)(i + 1), (long long)r[0],
                    (long long)r[1], (long long)r[2], r[3], r[4]);
        }
    }
    if (c.nsh) {
        fprintf(fp, "\n# Sequence Shapes\n[SHAPES]\n");
        for (int64_t i = 0; i < c.nsh; i++)
            write_shape(fp, i + 1, c.sh[i].v, c.sh[i].n);
    }
    fprintf(fp, "\n");
    if (ferror(fp)) wf.status = kri_fail(KR_ERR_IO, "writing %s failed", path);
    free(rows);
    wctx_free(&c);
    return kri_wfile_commit(&wf);
}
