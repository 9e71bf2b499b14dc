/* Pulseq 1.4 sequence files: reader (also 1.2/1.3 with [DELAYS]) and writer. Conventions and
 * limits in kray/sim.h. */
#include "io/iofile.h"
#include "sim_internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- growable arrays ---------------------------------------------------------------------- */
typedef struct pq_vec {
    double *v;
    int64_t n, cap;
} pq_vec;

static int vec_push(pq_vec *a, double x)
{
    if (a->n == a->cap) {
        int64_t cap = a->cap ? 2 * a->cap : 64;
        double *p = realloc(a->v, (size_t)cap * sizeof *p);
        if (!p) return 0;
        a->v = p;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 1;
}

/* An event table: rows of `w` numbers; ids index the rows through idx. */
typedef struct pq_tab {
    pq_vec rows;  /* w values per row, the first is the id */
    int w;        /* values per row */
    int64_t *idx; /* id -> row + 1 (0 = absent), built after parsing */
    int64_t maxid;
} pq_tab;

typedef struct pq_shape {
    int64_t id, n;
    double *v;
} pq_shape;

typedef struct pq_file {
    const char *path;
    int major, minor;
    double grad_r, rf_r, adc_r, blk_r;
    pq_tab blocks, rf, grad, trap, adc, delay;
    pq_shape *shapes;
    int64_t nshapes, capshapes;
    int64_t samples_left; /* decoded shape samples still allowed (bounded by the file size) */
} pq_file;

/* Event ids are whole numbers in 1..1e8; anything else (1e19, 2.5, NaN) is 0, so no double
 * outside int64_t's range is ever cast. */
#define PQ_MAX_ID 1e8
static int64_t pq_id(double v)
{
    return v >= 1 && v <= PQ_MAX_ID && v == floor(v) ? (int64_t)v : 0;
}

static void tab_free(pq_tab *t)
{
    free(t->rows.v);
    free(t->idx);
}

static void pq_free(pq_file *f)
{
    tab_free(&f->blocks);
    tab_free(&f->rf);
    tab_free(&f->grad);
    tab_free(&f->trap);
    tab_free(&f->adc);
    tab_free(&f->delay);
    for (int64_t i = 0; i < f->nshapes; i++)
        free(f->shapes[i].v);
    free(f->shapes);
}

static kr_status tab_index(pq_file *f, pq_tab *t, const char *what)
{
    int64_t rows = t->w ? t->rows.n / t->w : 0;
    t->maxid = 0;
    for (int64_t r = 0; r < rows; r++) {
        double id = t->rows.v[r * t->w];
        if (!pq_id(id))
            return kri_fail(KR_ERR_FORMAT, "%s: [%s] has the invalid id %g", f->path, what, id);
        if (pq_id(id) > t->maxid) t->maxid = pq_id(id);
    }
    t->idx = calloc((size_t)t->maxid + 1, sizeof *t->idx);
    if (!t->idx) return kri_fail(KR_ERR_OOM_HOST, "out of host memory reading %s", f->path);
    for (int64_t r = 0; r < rows; r++) {
        int64_t id = pq_id(t->rows.v[r * t->w]);
        if (t->idx[id])
            return kri_fail(KR_ERR_FORMAT, "%s: [%s] defines id %lld twice", f->path, what,
                            (long long)id);
        t->idx[id] = r + 1;
    }
    return KR_OK;
}

/* Row of id in t, or NULL (with a sentence) when the id is not defined. */
static const double *tab_get(const pq_file *f, const pq_tab *t, double id, const char *what,
                             int64_t blk, kr_status *st)
{
    int64_t i = pq_id(id);
    if (i >= 1 && i <= t->maxid && t->idx && t->idx[i]) return t->rows.v + (t->idx[i] - 1) * t->w;
    *st = kri_fail(KR_ERR_FORMAT, "%s: block %lld refers to %s event %.17g, which is not defined",
                   f->path, (long long)blk, what, id);
    return NULL;
}

static const pq_shape *shape_get(const pq_file *f, double id, int64_t blk, kr_status *st)
{
    for (int64_t i = 0; i < f->nshapes; i++)
        if ((double)f->shapes[i].id == id) return &f->shapes[i];
    *st = kri_fail(KR_ERR_FORMAT, "%s: block %lld refers to shape %.17g, which is not defined",
                   f->path, (long long)blk, id);
    return NULL;
}

/* Parse up to max numbers of a line; returns the count, -1 on a non-number. */
static int parse_nums(const char *s, double *out, int max)
{
    int n = 0;
    while (*s) {
        while (isspace((unsigned char)*s))
            s++;
        if (!*s) break;
        char *end;
        errno = 0;
        double v = strtod(s, &end);
        if (end == s || !isfinite(v)) return -1;
        if (n < max) out[n] = v;
        n++;
        s = end;
    }
    return n;
}

/* Decode a shape: plain when m == n values are given, else the run-length compressed
 * derivative (a value repeated twice is followed by the count of further repeats). */
static kr_status shape_decode(pq_file *f, int64_t id, int64_t n, const pq_vec *p,
                              double **out)
{
    /* the decoded length is counted before anything is allocated */
    int64_t u = 0;
    for (int64_t i = 0; p->n != n && i < p->n && u <= n;) {
        if (i + 1 < p->n && p->v[i + 1] == p->v[i]) {
            if (i + 2 >= p->n)
                return kri_fail(KR_ERR_FORMAT,
                                "%s: shape %lld ends inside a run (a repeated value without its "
                                "count)",
                                f->path, (long long)id);
            double c = p->v[i + 2];
            if (!(c >= 0 && c == floor(c) && c <= 1e12))
                return kri_fail(KR_ERR_FORMAT, "%s: shape %lld has the invalid run count %g",
                                f->path, (long long)id, c);
            u += (int64_t)c + 2;
            i += 3;
        } else {
            u++;
            i++;
        }
    }
    if (p->n != n && u != n)
        return kri_fail(KR_ERR_FORMAT,
                        u > n ? "%s: shape %lld decompresses to more than its num_samples %lld"
                              : "%s: shape %lld decompresses to fewer samples than its "
                                "num_samples %lld (truncated file?)",
                        f->path, (long long)id, (long long)n);
    if (n > f->samples_left)
        return kri_fail(KR_ERR_FORMAT,
                        "%s: shape %lld decompresses to %lld samples, more than kray accepts "
                        "from a file of this size (2^24 samples plus 4096 per byte of the file, "
                        "all shapes together)",
                        f->path, (long long)id, (long long)n);
    f->samples_left -= n;
    double *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
    if (!w) return kri_fail(KR_ERR_OOM_HOST, "out of host memory reading %s", f->path);
    if (p->n == n) {
        memcpy(w, p->v, (size_t)n * sizeof *w);
        *out = w;
        return KR_OK;
    }
    u = 0;
    for (int64_t i = 0; i < p->n;) { /* checked above: runs are whole and fill exactly n */
        const double v = p->v[i];
        int64_t rep = 1;
        if (i + 1 < p->n && p->v[i + 1] == v) {
            rep = (int64_t)p->v[i + 2] + 2;
            i += 3;
        } else {
            i += 1;
        }
        for (int64_t r = 0; r < rep; r++)
            w[u++] = v;
    }
    for (int64_t k = 1; k < n; k++)
        w[k] += w[k - 1];
    *out = w;
    return KR_OK;
}

static kr_status shape_finish(pq_file *f, int64_t id, int64_t n, pq_vec *vals)
{
    if (id < 0) return KR_OK;
    if (n < 1)
        return kri_fail(KR_ERR_FORMAT, "%s: shape %lld has no num_samples line", f->path,
                        (long long)id);
    for (int64_t i = 0; i < f->nshapes; i++)
        if (f->shapes[i].id == id)
            return kri_fail(KR_ERR_FORMAT, "%s: shape %lld is defined twice", f->path,
                            (long long)id);
    if (f->nshapes == f->capshapes) {
        int64_t cap = f->capshapes ? 2 * f->capshapes : 16;
        pq_shape *p = realloc(f->shapes, (size_t)cap * sizeof *p);
        if (!p) return kri_fail(KR_ERR_OOM_HOST, "out of host memory reading %s", f->path);
        f->shapes = p;
        f->capshapes = cap;
    }
    double *w = NULL;
    KRI_TRY(shape_decode(f, id, n, vals, &w));
    f->shapes[f->nshapes++] = (pq_shape){id, n, w};
    vals->n = 0;
    return KR_OK;
}

enum { S_NONE, S_VERSION, S_DEFS, S_BLOCKS, S_RF, S_GRAD, S_TRAP, S_ADC, S_DELAYS, S_SHAPES,
       S_SKIP };

static kr_status pq_parse(pq_file *f, FILE *fp)
{
    char line[4096];
    int sec = S_NONE, have_version = 0, have_blocks = 0;
    int64_t lno = 0, shape_id = -1, shape_n = 0;
    pq_vec vals = {0};
    kr_status st = KR_OK;
    while (fgets(line, sizeof line, fp)) {
        lno++;
        size_t len = strlen(line);
        if (len == sizeof line - 1 && line[len - 1] != '\n') {
            st = kri_fail(KR_ERR_FORMAT, "%s line %lld is longer than %d characters", f->path,
                          (long long)lno, (int)sizeof line - 2);
            goto out;
        }
        char *h = strchr(line, '#');
        if (h) *h = 0;
        char *s = line;
        while (isspace((unsigned char)*s))
            s++;
        char *e = s + strlen(s);
        while (e > s && isspace((unsigned char)e[-1]))
            *--e = 0;
        if (!*s) continue;
        if (*s == '[') {
            if (sec == S_SHAPES && (st = shape_finish(f, shape_id, shape_n, &vals)) != KR_OK)
                goto out;
            shape_id = -1;
            shape_n = 0;
            if (!strcmp(s, "[VERSION]")) sec = S_VERSION, have_version = 1;
            else if (!strcmp(s, "[DEFINITIONS]")) sec = S_DEFS;
            else if (!strcmp(s, "[BLOCKS]")) sec = S_BLOCKS, have_blocks = 1;
            else if (!strcmp(s, "[RF]")) sec = S_RF;
            else if (!strcmp(s, "[GRADIENTS]")) sec = S_GRAD;
            else if (!strcmp(s, "[TRAP]")) sec = S_TRAP;
            else if (!strcmp(s, "[ADC]")) sec = S_ADC;
            else if (!strcmp(s, "[DELAYS]")) sec = S_DELAYS;
            else if (!strcmp(s, "[SHAPES]")) sec = S_SHAPES;
            else {
                sec = S_SKIP;
                kr_log(NULL, KR_LOG_INFO, "%s: section %s is skipped (not interpreted by kray)",
                       f->path, s);
            }
            if (sec != S_VERSION && sec != S_SKIP && !have_version) {
                st = kri_fail(KR_ERR_FORMAT, "%s line %lld: %s comes before [VERSION]", f->path,
                              (long long)lno, s);
                goto out;
            }
            if (sec == S_RF || sec == S_GRAD) {
                /* event widths depend on the version: 1.4 has time shapes */
                int v14 = f->major > 1 || f->minor >= 4;
                if (sec == S_RF) f->rf.w = v14 ? 8 : 7;
                if (sec == S_GRAD) f->grad.w = v14 ? 5 : 4;
            }
            continue;
        }
        double nums[16];
        int n;
        switch (sec) {
        case S_VERSION: {
            char key[64];
            long v;
            if (sscanf(s, "%63s %ld", key, &v) != 2) goto bad;
            if (!strcmp(key, "major")) f->major = (int)v;
            if (!strcmp(key, "minor")) f->minor = (int)v;
            break;
        }
        case S_DEFS: {
            char key[128];
            double v;
            if (sscanf(s, "%127s %lf", key, &v) == 2 && isfinite(v)) {
                double *dst = !strcmp(key, "GradientRasterTime")         ? &f->grad_r
                              : !strcmp(key, "RadiofrequencyRasterTime") ? &f->rf_r
                              : !strcmp(key, "AdcRasterTime")            ? &f->adc_r
                              : !strcmp(key, "BlockDurationRaster")      ? &f->blk_r
                                                                         : NULL;
                if (dst) {
                    if (!(v > 0 && v < 1)) {
                        st = kri_fail(KR_ERR_FORMAT, "%s line %lld: %s %g must be in (0, 1) s",
                                      f->path, (long long)lno, key, v);
                        goto out;
                    }
                    *dst = v;
                }
            }
            break;
        }
        case S_BLOCKS:
        case S_RF:
        case S_GRAD:
        case S_TRAP:
        case S_ADC:
        case S_DELAYS: {
            pq_tab *t = sec == S_BLOCKS ? &f->blocks
                        : sec == S_RF   ? &f->rf
                        : sec == S_GRAD ? &f->grad
                        : sec == S_TRAP ? &f->trap
                        : sec == S_ADC  ? &f->adc
                                        : &f->delay;
            int w = sec == S_BLOCKS ? 8 : sec == S_TRAP ? 6 : sec == S_ADC ? 6 : sec == S_DELAYS ? 2 : t->w;
            n = parse_nums(s, nums, 16);
            if (sec == S_BLOCKS && n == 7) { /* 1.2: no extension column */
                nums[7] = 0;
                n = 8;
            }
            if (n != w) {
                st = kri_fail(KR_ERR_FORMAT, "%s line %lld: expected %d numbers in this section, found %d",
                              f->path, (long long)lno, w, n < 0 ? 0 : n);
                goto out;
            }
            t->w = w;
            for (int i = 0; i < w; i++)
                if (!vec_push(&t->rows, nums[i])) goto oom;
            break;
        }
        case S_SHAPES: {
            if (!strncmp(s, "shape_id", 8)) {
                if ((st = shape_finish(f, shape_id, shape_n, &vals)) != KR_OK) goto out;
                long long v;
                if (sscanf(s + 8, "%lld", &v) != 1 || v < 1) goto bad;
                shape_id = v;
                shape_n = 0;
            } else if (!strncmp(s, "num_samples", 11)) {
                long long v;
                if (shape_id < 0 || sscanf(s + 11, "%lld", &v) != 1 || v < 1 || v > (1LL << 31))
                    goto bad;
                shape_n = v;
            } else {
                n = parse_nums(s, nums, 16);
                if (n != 1 || shape_id < 0 || shape_n < 1) goto bad;
                if (vals.n >= shape_n) {
                    st = kri_fail(KR_ERR_FORMAT,
                                  "%s line %lld: shape %lld has more values than num_samples %lld",
                                  f->path, (long long)lno, (long long)shape_id, (long long)shape_n);
                    goto out;
                }
                if (!vec_push(&vals, nums[0])) goto oom;
            }
            break;
        }
        default:
            break;
        }
        continue;
    bad:
        st = kri_fail(KR_ERR_FORMAT, "%s line %lld cannot be read: \"%.60s\"", f->path,
                      (long long)lno, s);
        goto out;
    }
    if (ferror(fp)) {
        st = kri_fail(KR_ERR_IO, "reading %s failed", f->path);
        goto out;
    }
    if (sec == S_SHAPES && (st = shape_finish(f, shape_id, shape_n, &vals)) != KR_OK) goto out;
    if (!have_version || f->major != 1 || f->minor < 2) {
        st = kri_fail(KR_ERR_FORMAT,
                      have_version ? "%s is Pulseq version %d.%d; kray reads 1.2 to 1.4"
                                   : "%s has no [VERSION] section: not a Pulseq file",
                      f->path, f->major, f->minor);
        goto out;
    }
    if (!have_blocks || f->blocks.rows.n == 0) {
        st = kri_fail(KR_ERR_FORMAT, "%s has no [BLOCKS] (truncated file?)", f->path);
        goto out;
    }
    goto out;
oom:
    st = kri_fail(KR_ERR_OOM_HOST, "out of host memory reading %s", f->path);
out:
    free(vals.v);
    return st;
}

/* Duration of the events of one block (for 1.2/1.3 files without a block duration). */
static double grad_end(const double *t, int n) { return n ? t[n - 1] : 0.0; }

static kr_status pq_build(pq_file *f, const kr_seq_limits *lim, kr_seq **out)
{
    kr_status st = KR_OK;
    const char *tabn[6] = {"blocks", "RF", "GRADIENTS", "TRAP", "ADC", "DELAYS"};
    pq_tab *tabs[6] = {&f->blocks, &f->rf, &f->grad, &f->trap, &f->adc, &f->delay};
    for (int i = 0; i < 6; i++)
        KRI_TRY(tab_index(f, tabs[i], tabn[i]));
    const double gb = KR_GAMMA_BAR_HZ_PER_T;
    const int v14 = f->minor >= 4;
    kr_seq *s = NULL;
    KRI_TRY(kr_seq_create(&s, lim));
    const int64_t nb = f->blocks.rows.n / 8;
    float *b1 = NULL;
    double *gt[3] = {NULL, NULL, NULL}, *gg[3] = {NULL, NULL, NULL};
    int32_t nadc = 0;
    for (int64_t ib = 0; ib < nb && st == KR_OK; ib++) {
        const double *row = f->blocks.rows.v + ib * 8;
        const int64_t num = (int64_t)row[0];
        kr_seq_block b;
        kr_seq_block_init(&b);
        double end = 0.0;
        free(b1);
        b1 = NULL;
        for (int a = 0; a < 3; a++) {
            free(gt[a]);
            free(gg[a]);
            gt[a] = gg[a] = NULL;
        }
        if (row[2] > 0) { /* RF */
            const double *r = tab_get(f, &f->rf, row[2], "RF", num, &st);
            if (!r) break;
            const pq_shape *mag = shape_get(f, r[2], num, &st);
            const pq_shape *ph = mag ? shape_get(f, r[3], num, &st) : NULL;
            if (!ph) break;
            if (mag->n != ph->n) {
                st = kri_fail(KR_ERR_FORMAT,
                              "%s: RF event %lld has %lld magnitude and %lld phase samples",
                              f->path, (long long)r[0], (long long)mag->n, (long long)ph->n);
                break;
            }
            double dt = f->rf_r;
            const int k = v14 ? 1 : 0; /* column shift after the time shape */
            if (v14 && r[4] > 0) {
                const pq_shape *ts = shape_get(f, r[4], num, &st);
                if (!ts) break;
                if (ts->n != mag->n || ts->n < 2) {
                    st = kri_fail(KR_ERR_FORMAT, "%s: RF event %lld: time shape of %lld samples",
                                  f->path, (long long)r[0], (long long)ts->n);
                    break;
                }
                double step = ts->v[1] - ts->v[0];
                for (int64_t j = 1; j < ts->n && st == KR_OK; j++)
                    if (fabs(ts->v[j] - ts->v[j - 1] - step) > 1e-6 * fabs(step) || step <= 0)
                        st = kri_fail(KR_ERR_NOT_SUPPORTED,
                                      "%s: RF event %lld has a non-uniform time shape (kray "
                                      "needs equal RF sample durations)",
                                      f->path, (long long)r[0]);
                if (st != KR_OK) break;
                dt = step * f->rf_r;
            }
            b1 = malloc((size_t)mag->n * 2 * sizeof *b1);
            if (!b1) {
                st = kri_fail(KR_ERR_OOM_HOST, "out of host memory reading %s", f->path);
                break;
            }
            const double amp = r[1] / gb * 1e6; /* microtesla */
            for (int64_t j = 0; j < mag->n; j++) {
                double m = amp * mag->v[j], p = 2.0 * M_PI * ph->v[j];
                b1[2 * j] = (float)(m * cos(p));
                b1[2 * j + 1] = (float)(m * sin(p));
            }
            b.rf.n = mag->n;
            b.rf.dt_s = dt;
            b.rf.b1_uT = b1;
            b.rf.delay_s = r[4 + k] * 1e-6;
            b.rf.freq_hz = r[5 + k];
            b.rf.phase_rad = r[6 + k];
            end = fmax(end, b.rf.delay_s + (double)mag->n * dt);
        }
        for (int a = 0; a < 3 && st == KR_OK; a++) {
            double id = row[3 + a];
            if (!(id > 0)) continue;
            int64_t ii = pq_id(id);
            if (!ii) {
                st = kri_fail(KR_ERR_FORMAT, "%s: block %lld refers to gradient event %.17g, "
                              "not a whole number in 1..1e8", f->path, (long long)num, id);
                break;
            }
            int is_trap = ii <= f->trap.maxid && f->trap.idx && f->trap.idx[ii];
            int is_grad = ii <= f->grad.maxid && f->grad.idx && f->grad.idx[ii];
            if (is_trap && is_grad) {
                st = kri_fail(KR_ERR_FORMAT, "%s: gradient id %lld is both a [TRAP] and a "
                              "[GRADIENTS] event", f->path, (long long)ii);
                break;
            }
            if (is_trap || !is_grad) {
                const double *t = tab_get(f, &f->trap, id, "gradient", num, &st);
                if (!t) break;
                gt[a] = malloc(4 * sizeof(double));
                gg[a] = malloc(4 * sizeof(double));
                if (!gt[a] || !gg[a]) goto oom;
                const double amp = t[1] / gb * 1e3; /* mT/m */
                kr_seq_trap(&b.grad[a], gt[a], gg[a], t[5] * 1e-6, amp, t[2] * 1e-6, t[3] * 1e-6,
                            t[4] * 1e-6);
            } else {
                const double *g = tab_get(f, &f->grad, id, "gradient", num, &st);
                if (!g) break;
                const pq_shape *sh = shape_get(f, g[2], num, &st);
                if (!sh) break;
                const double amp = g[1] / gb * 1e3, delay = g[v14 ? 4 : 3] * 1e-6;
                const pq_shape *ts = NULL;
                if (v14 && g[3] > 0 && !(ts = shape_get(f, g[3], num, &st))) break;
                if (ts && ts->n != sh->n) {
                    st = kri_fail(KR_ERR_FORMAT,
                                  "%s: gradient %lld has %lld samples and a time shape of %lld",
                                  f->path, (long long)g[0], (long long)sh->n, (long long)ts->n);
                    break;
                }
                int64_t nc = ts ? sh->n : sh->n + 2;
                if (nc > INT32_MAX / 2) {
                    st = kri_fail(KR_ERR_FORMAT, "%s: gradient %lld is too long", f->path,
                                  (long long)g[0]);
                    break;
                }
                gt[a] = malloc((size_t)nc * sizeof(double));
                gg[a] = malloc((size_t)nc * sizeof(double));
                if (!gt[a] || !gg[a]) goto oom;
                if (ts) { /* corner points at raster edges */
                    for (int64_t j = 0; j < nc; j++) {
                        gt[a][j] = delay + ts->v[j] * f->grad_r;
                        gg[a][j] = amp * sh->v[j];
                    }
                } else { /* samples at raster centres, held to the edges */
                    gt[a][0] = delay;
                    gg[a][0] = amp * sh->v[0];
                    for (int64_t j = 0; j < sh->n; j++) {
                        gt[a][j + 1] = delay + ((double)j + 0.5) * f->grad_r;
                        gg[a][j + 1] = amp * sh->v[j];
                    }
                    gt[a][nc - 1] = delay + (double)sh->n * f->grad_r;
                    gg[a][nc - 1] = amp * sh->v[sh->n - 1];
                }
                b.grad[a].n = (int)nc;
                b.grad[a].t_s = gt[a];
                b.grad[a].g_mT_m = gg[a];
            }
            end = fmax(end, grad_end(b.grad[a].t_s, b.grad[a].n));
        }
        if (st != KR_OK) break;
        if (row[6] > 0) {
            const double *d = tab_get(f, &f->adc, row[6], "ADC", num, &st);
            if (!d) break;
            if (!(d[1] >= 1 && d[1] == floor(d[1]) && d[1] < 1e9)) {
                st = kri_fail(KR_ERR_FORMAT, "%s: ADC event %lld has %g samples", f->path,
                              (long long)d[0], d[1]);
                break;
            }
            b.adc.n = (int64_t)d[1];
            b.adc.dwell_s = d[2] * 1e-9;
            b.adc.delay_s = d[3] * 1e-6;
            b.adc.freq_hz = d[4];
            b.adc.phase_rad = d[5];
            b.adc.line = nadc++;
            end = fmax(end, b.adc.delay_s + (double)b.adc.n * b.adc.dwell_s);
        }
        if (v14) {
            b.duration_s = row[1] * f->blk_r;
        } else {
            if (row[1] > 0) {
                const double *d = tab_get(f, &f->delay, row[1], "delay", num, &st);
                if (!d) break;
                end = fmax(end, d[1] * 1e-6);
            }
            b.duration_s = end;
        }
        if (row[7] > 0)
            kr_log(NULL, KR_LOG_DEBUG, "%s: block %lld: extension %g skipped", f->path,
                   (long long)num, row[7]);
        st = kr_seq_add_block(s, &b);
        if (st != KR_OK) st = kri_fail_prefix(st, "%s (file block %lld)", f->path, (long long)num);
    }
    goto done;
oom:
    st = kri_fail(KR_ERR_OOM_HOST, "out of host memory reading %s", f->path);
done:
    free(b1);
    for (int a = 0; a < 3; a++) {
        free(gt[a]);
        free(gg[a]);
    }
    if (st == KR_OK) st = kr_seq_check(s);
    if (st != KR_OK) {
        kr_seq_destroy(s);
        return st;
    }
    *out = s;
    return KR_OK;
}

kr_status kr_seq_read_pulseq(kr_seq **seq, const char *path, const kr_seq_limits *lim)
{
    KRI_ARG_NOT_NULL(seq);
    *seq = NULL;
    KRI_ARG_NOT_NULL(path);
    size_t fsize;
    KRI_TRY(kri_file_size(path, &fsize)); /* a regular file: no FIFO or device to block on */
    FILE *fp = fopen(path, "r");
    if (!fp) return kri_fail(KR_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    pq_file f;
    memset(&f, 0, sizeof f);
    f.path = path;
    f.samples_left =
        fsize > (size_t)1 << 40 ? INT64_MAX : ((int64_t)1 << 24) + 4096 * (int64_t)fsize;
    f.grad_r = 10e-6;
    f.rf_r = 1e-6;
    f.adc_r = 100e-9;
    f.blk_r = 10e-6;
    f.rf.w = 8;
    f.grad.w = 5;
    kr_status st = pq_parse(&f, fp);
    fclose(fp);
    if (st == KR_OK) st = pq_build(&f, lim, seq);
    pq_free(&f);
    return st;
}
