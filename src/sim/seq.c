/* Pulse sequences: storage, validation on insertion, queries, and the piecewise-linear
 * gradient helpers used by the compiler. */
#include "sim_internal.h"

#include <math.h>
#include <string.h>

void kr_seq_limits_default(kr_seq_limits *lim)
{
    if (!lim) return;
    lim->gmax_mT_m = 40.0;
    lim->smax_T_m_s = 200.0;
    lim->b1max_uT = 0.0;
}

void kr_seq_block_init(kr_seq_block *b)
{
    if (!b) return;
    memset(b, 0, sizeof *b);
    b->start_s = -1.0;
}

void kr_seq_trap(kr_seq_grad *grad, double t[4], double g[4], double delay_s, double amp_mT_m,
                 double rise_s, double flat_s, double fall_s)
{
    if (!grad || !t || !g) return;
    t[0] = delay_s;
    t[1] = delay_s + rise_s;
    t[2] = t[1] + flat_s;
    t[3] = t[2] + fall_s;
    g[0] = 0.0;
    g[1] = amp_mT_m;
    g[2] = amp_mT_m;
    g[3] = 0.0;
    /* Zero-length pieces collapse: a zero rise is a jump to amp at the start (corner
     * (delay, amp)), a zero flat merges the two top corners, a zero fall a jump at the end. */
    int n = 0;
    double tt[4], gg[4];
    for (int i = 0; i < 4; i++) {
        if (n > 0 && t[i] == tt[n - 1]) {
            if (i == 1) gg[n - 1] = g[i];
            continue;
        }
        tt[n] = t[i];
        gg[n] = g[i];
        n++;
    }
    for (int i = 0; i < n; i++) {
        t[i] = tt[i];
        g[i] = gg[i];
    }
    grad->n = n;
    grad->t_s = t;
    grad->g_mT_m = g;
}

kr_status kr_seq_create(kr_seq **seq, const kr_seq_limits *lim)
{
    KRI_ARG_NOT_NULL(seq);
    *seq = NULL;
    kr_seq_limits l;
    if (lim)
        l = *lim;
    else
        kr_seq_limits_default(&l);
    if (!(isfinite(l.gmax_mT_m) && l.gmax_mT_m > 0) ||
        !(isfinite(l.smax_T_m_s) && l.smax_T_m_s > 0) || !(isfinite(l.b1max_uT) && l.b1max_uT >= 0))
        return kri_fail(KR_ERR_INVALID_ARG,
                        "sequence limits must be finite with gmax > 0 (%g mT/m), smax > 0 (%g "
                        "T/m/s) and b1max >= 0 (%g uT)",
                        l.gmax_mT_m, l.smax_T_m_s, l.b1max_uT);
    kr_seq *s = kri_calloc(1, sizeof *s);
    if (!s) return kri_fail(KR_ERR_OOM_HOST, "out of host memory creating a sequence");
    s->lim = l;
    *seq = s;
    return KR_OK;
}

static void block_free(kri_seq_block *b)
{
    kri_free(b->rf_b1);
    for (int a = 0; a < 3; a++) {
        kri_free(b->gt[a]);
        kri_free(b->gg[a]);
    }
}

void kr_seq_destroy(kr_seq *seq)
{
    if (!seq) return;
    for (int64_t i = 0; i < seq->n; i++)
        block_free(&seq->b[i]);
    kri_free(seq->b);
    kri_free(seq->adc_blk);
    kri_free(seq);
}

/* Value of a gradient at the block's end (0 unless its last corner is at the end). */
static double end_value(const kri_seq_block *b, int a)
{
    int n = b->gn[a];
    if (n == 0) return 0.0;
    if (fabs(b->gt[a][n - 1] - b->dur) <= KRI_SEQ_TIME_TOL) return b->gg[a][n - 1];
    return 0.0;
}

static const char axis_name[3] = {'x', 'y', 'z'};

static kr_status check_grad(const kr_seq *s, int64_t ib, const kr_seq_block *blk, double start,
                            int a)
{
    const kr_seq_grad *g = &blk->grad[a];
    const double dur = blk->duration_s, gmax = s->lim.gmax_mT_m;
    const double smax = s->lim.smax_T_m_s * 1000.0; /* mT/m per s */
    if (g->n < 0 || g->n == 1)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "block %lld: gradient %c has %d corner points (0 or at least 2)",
                        (long long)ib, axis_name[a], g->n);
    double prev_end = s->n > 0 ? end_value(&s->b[s->n - 1], a) : 0.0;
    double prev_stop = s->n > 0 ? s->b[s->n - 1].start + s->b[s->n - 1].dur : 0.0;
    double tolg = 1e-6 * gmax;
    double first = 0.0;
    if (g->n > 0) {
        if (!g->t_s || !g->g_mT_m)
            return kri_fail(KR_ERR_INVALID_ARG, "block %lld: gradient %c has NULL arrays",
                            (long long)ib, axis_name[a]);
        for (int i = 0; i < g->n; i++) {
            double t = g->t_s[i], v = g->g_mT_m[i];
            if (!isfinite(t) || !isfinite(v))
                return kri_fail(KR_ERR_INVALID_ARG,
                                "block %lld: gradient %c corner %d is not finite (%g s, %g mT/m)",
                                (long long)ib, axis_name[a], i, t, v);
            if (t < -KRI_SEQ_TIME_TOL || t > dur + KRI_SEQ_TIME_TOL)
                return kri_fail(KR_ERR_INVALID_ARG,
                                "block %lld: gradient %c corner %d at %.9g s lies outside the "
                                "block [0, %.9g s]",
                                (long long)ib, axis_name[a], i, t, dur);
            if (fabs(v) > gmax * (1.0 + 1e-9))
                return kri_fail(KR_ERR_INVALID_ARG,
                                "block %lld: gradient %c reaches %g mT/m, beyond the limit %g mT/m",
                                (long long)ib, axis_name[a], v, gmax);
            if (i > 0) {
                double dt = t - g->t_s[i - 1];
                if (!(dt > 0))
                    return kri_fail(KR_ERR_INVALID_ARG,
                                    "block %lld: gradient %c corner times are not strictly "
                                    "increasing (%.9g s then %.9g s)",
                                    (long long)ib, axis_name[a], g->t_s[i - 1], t);
                double slew = fabs(v - g->g_mT_m[i - 1]) / dt;
                if (slew > smax * (1.0 + 1e-6))
                    return kri_fail(KR_ERR_INVALID_ARG,
                                    "block %lld: gradient %c slews at %g T/m/s between %.9g s and "
                                    "%.9g s, beyond the limit %g T/m/s",
                                    (long long)ib, axis_name[a], slew / 1000.0, g->t_s[i - 1], t,
                                    smax / 1000.0);
            }
        }
        first = g->g_mT_m[0];
        double last = g->g_mT_m[g->n - 1];
        if (fabs(first) > tolg && g->t_s[0] > KRI_SEQ_TIME_TOL)
            return kri_fail(KR_ERR_INVALID_ARG,
                            "block %lld: gradient %c jumps from 0 to %g mT/m at %.9g s inside the "
                            "block (infinite slew rate)",
                            (long long)ib, axis_name[a], first, g->t_s[0]);
        if (fabs(last) > tolg && g->t_s[g->n - 1] < dur - KRI_SEQ_TIME_TOL)
            return kri_fail(KR_ERR_INVALID_ARG,
                            "block %lld: gradient %c jumps from %g mT/m to 0 at %.9g s inside the "
                            "block (infinite slew rate)",
                            (long long)ib, axis_name[a], last, g->t_s[g->n - 1]);
        if (g->t_s[0] > KRI_SEQ_TIME_TOL) first = 0.0;
    }
    /* Continuity with the previous block. */
    if (s->n == 0 && fabs(first) > tolg)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "block 0: gradient %c starts at %g mT/m; the first block's gradients must "
                        "start at 0",
                        axis_name[a], first);
    if (fabs(prev_end) > tolg || fabs(first) > tolg) {
        if (fabs(start - prev_stop) > KRI_SEQ_TIME_TOL)
            return kri_fail(KR_ERR_INVALID_ARG,
                            "block %lld: gradient %c is %g mT/m at the previous block's end and "
                            "%g mT/m at this block's start, with a gap of %.9g s between them",
                            (long long)ib, axis_name[a], prev_end, first, start - prev_stop);
        if (fabs(prev_end - first) > tolg)
            return kri_fail(KR_ERR_INVALID_ARG,
                            "block %lld: gradient %c jumps from %g mT/m (end of block %lld) to "
                            "%g mT/m at the block boundary",
                            (long long)ib, axis_name[a], prev_end, (long long)(ib - 1), first);
    }
    return KR_OK;
}

static kr_status check_block(const kr_seq *s, const kr_seq_block *blk, double *start_out)
{
    int64_t ib = s->n;
    double dur = blk->duration_s;
    if (!(isfinite(dur) && dur > 0))
        return kri_fail(KR_ERR_INVALID_ARG, "block %lld: duration %g s must be finite and > 0",
                        (long long)ib, dur);
    double prev_stop = s->n > 0 ? s->b[s->n - 1].start + s->b[s->n - 1].dur : 0.0;
    double start = blk->start_s;
    if (!isfinite(start))
        return kri_fail(KR_ERR_INVALID_ARG, "block %lld: start time is not finite", (long long)ib);
    if (start < 0) start = prev_stop;
    if (start < prev_stop - KRI_SEQ_TIME_TOL)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "block %lld starts at %.9g s, before the end of block %lld at %.9g s "
                        "(blocks overlap)",
                        (long long)ib, start, (long long)(ib - 1), prev_stop);
    if (fabs(start - prev_stop) <= KRI_SEQ_TIME_TOL) start = prev_stop;
    /* RF */
    const kr_seq_rf *rf = &blk->rf;
    if (rf->n < 0)
        return kri_fail(KR_ERR_INVALID_ARG, "block %lld: RF has %lld samples", (long long)ib,
                        (long long)rf->n);
    if (rf->n > 0) {
        if (!(isfinite(rf->delay_s) && rf->delay_s >= 0) || !(isfinite(rf->dt_s) && rf->dt_s > 0))
            return kri_fail(KR_ERR_INVALID_ARG,
                            "block %lld: RF delay %g s must be >= 0 and raster %g s > 0",
                            (long long)ib, rf->delay_s, rf->dt_s);
        double end = rf->delay_s + (double)rf->n * rf->dt_s;
        if (end > dur + KRI_SEQ_TIME_TOL)
            return kri_fail(KR_ERR_INVALID_ARG,
                            "block %lld: RF pulse ends at %.9g s, after the block's end %.9g s",
                            (long long)ib, end, dur);
        if (!isfinite(rf->phase_rad) || !isfinite(rf->freq_hz) ||
            (!rf->b1_uT && !isfinite(rf->amp_uT)))
            return kri_fail(KR_ERR_INVALID_ARG,
                            "block %lld: RF phase, frequency or amplitude "
                            "is not finite",
                            (long long)ib);
        double b1max = s->lim.b1max_uT;
        for (int64_t j = 0; j < (rf->b1_uT ? rf->n : 1); j++) {
            double re = rf->b1_uT ? rf->b1_uT[2 * j] : rf->amp_uT;
            double im = rf->b1_uT ? rf->b1_uT[2 * j + 1] : 0.0;
            if (!isfinite(re) || !isfinite(im))
                return kri_fail(KR_ERR_INVALID_ARG, "block %lld: RF sample %lld is not finite",
                                (long long)ib, (long long)j);
            if (b1max > 0 && hypot(re, im) > b1max * (1.0 + 1e-9))
                return kri_fail(KR_ERR_INVALID_ARG,
                                "block %lld: RF sample %lld has |B1| = %g uT, beyond the limit %g "
                                "uT",
                                (long long)ib, (long long)j, hypot(re, im), b1max);
        }
    }
    /* ADC */
    const kr_seq_adc *adc = &blk->adc;
    if (adc->n < 0)
        return kri_fail(KR_ERR_INVALID_ARG, "block %lld: ADC has %lld samples", (long long)ib,
                        (long long)adc->n);
    if (adc->n > 0) {
        if (!(isfinite(adc->delay_s) && adc->delay_s >= 0) ||
            !(isfinite(adc->dwell_s) && adc->dwell_s > 0) || !isfinite(adc->phase_rad) ||
            !isfinite(adc->freq_hz))
            return kri_fail(KR_ERR_INVALID_ARG,
                            "block %lld: ADC delay %g s must be >= 0, dwell %g s > 0, phase and "
                            "frequency finite",
                            (long long)ib, adc->delay_s, adc->dwell_s);
        double end = adc->delay_s + (double)adc->n * adc->dwell_s;
        if (end > dur + KRI_SEQ_TIME_TOL)
            return kri_fail(KR_ERR_INVALID_ARG,
                            "block %lld: ADC ends at %.9g s, after the block's end %.9g s",
                            (long long)ib, end, dur);
        if (adc->n > INT32_MAX || s->nsamples + adc->n > INT32_MAX)
            return kri_fail(KR_ERR_INVALID_ARG,
                            "block %lld: the sequence would have more than 2^31 - 1 ADC samples",
                            (long long)ib);
    }
    for (int a = 0; a < 3; a++)
        KRI_TRY(check_grad(s, ib, blk, start, a));
    *start_out = start;
    return KR_OK;
}

kr_status kr_seq_add_block(kr_seq *seq, const kr_seq_block *block)
{
    KRI_ARG_NOT_NULL(seq);
    KRI_ARG_NOT_NULL(block);
    double start = 0;
    KRI_TRY(check_block(seq, block, &start));
    if (seq->n == seq->cap) {
        int64_t cap = seq->cap ? 2 * seq->cap : 64;
        kri_seq_block *nb = kri_calloc((size_t)cap, sizeof *nb);
        if (!nb) return kri_fail(KR_ERR_OOM_HOST, "out of host memory growing a sequence");
        if (seq->n) memcpy(nb, seq->b, (size_t)seq->n * sizeof *nb);
        kri_free(seq->b);
        seq->b = nb;
        seq->cap = cap;
    }
    if (block->adc.n > 0 && seq->nadc == seq->adc_cap) {
        int64_t cap = seq->adc_cap ? 2 * seq->adc_cap : 64;
        int64_t *na = kri_malloc((size_t)cap * sizeof *na);
        if (!na) return kri_fail(KR_ERR_OOM_HOST, "out of host memory growing a sequence");
        if (seq->nadc) memcpy(na, seq->adc_blk, (size_t)seq->nadc * sizeof *na);
        kri_free(seq->adc_blk);
        seq->adc_blk = na;
        seq->adc_cap = cap;
    }
    kri_seq_block b;
    memset(&b, 0, sizeof b);
    b.start = start;
    b.dur = block->duration_s;
    b.spoil = block->spoil != 0;
    const kr_seq_rf *rf = &block->rf;
    kr_status st = KR_OK;
    if (rf->n > 0) {
        b.rf_n = rf->n;
        b.rf_delay = rf->delay_s;
        b.rf_dt = rf->dt_s;
        b.rf_phase = rf->phase_rad;
        b.rf_freq = rf->freq_hz;
        st = kri_alloc((void **)&b.rf_b1, (size_t)rf->n * 2 * sizeof(float), "RF samples");
        if (st != KR_OK) goto fail;
        for (int64_t j = 0; j < rf->n; j++) {
            b.rf_b1[2 * j] = rf->b1_uT ? rf->b1_uT[2 * j] : (float)rf->amp_uT;
            b.rf_b1[2 * j + 1] = rf->b1_uT ? rf->b1_uT[2 * j + 1] : 0.0f;
        }
    }
    for (int a = 0; a < 3; a++) {
        const kr_seq_grad *g = &block->grad[a];
        if (g->n == 0) continue;
        b.gn[a] = g->n;
        st = kri_alloc((void **)&b.gt[a], (size_t)g->n * sizeof(double), "gradient corners");
        if (st != KR_OK) goto fail;
        st = kri_alloc((void **)&b.gg[a], (size_t)g->n * sizeof(double), "gradient corners");
        if (st != KR_OK) goto fail;
        memcpy(b.gt[a], g->t_s, (size_t)g->n * sizeof(double));
        memcpy(b.gg[a], g->g_mT_m, (size_t)g->n * sizeof(double));
    }
    b.adc = block->adc;
    if (b.adc.n == 0) memset(&b.adc, 0, sizeof b.adc);
    b.adc_first = seq->nsamples;
    seq->b[seq->n++] = b;
    if (b.adc.n > 0) {
        seq->adc_blk[seq->nadc] = seq->n - 1;
        seq->nadc++;
        seq->nsamples += b.adc.n;
    }
    return KR_OK;
fail:
    block_free(&b);
    return st;
}

kr_status kr_seq_check(const kr_seq *seq)
{
    KRI_ARG_NOT_NULL(seq);
    if (seq->n == 0) return kri_fail(KR_ERR_INVALID_ARG, "the sequence has no blocks");
    const kri_seq_block *last = &seq->b[seq->n - 1];
    for (int a = 0; a < 3; a++) {
        double v = end_value(last, a);
        if (fabs(v) > 1e-6 * seq->lim.gmax_mT_m)
            return kri_fail(KR_ERR_INVALID_ARG,
                            "gradient %c is still %g mT/m at the end of the last block %lld",
                            axis_name[a], v, (long long)(seq->n - 1));
    }
    return KR_OK;
}

kr_status kr_seq_get_info(const kr_seq *seq, kr_seq_info *info)
{
    KRI_ARG_NOT_NULL(seq);
    KRI_ARG_NOT_NULL(info);
    info->nblocks = seq->n;
    info->nadc = seq->nadc;
    info->nsamples = seq->nsamples;
    info->duration_s = seq->n ? seq->b[seq->n - 1].start + seq->b[seq->n - 1].dur : 0.0;
    return KR_OK;
}

kr_status kr_seq_get_block(const kr_seq *seq, int64_t i, kr_seq_block *block)
{
    KRI_ARG_NOT_NULL(seq);
    KRI_ARG_NOT_NULL(block);
    if (i < 0 || i >= seq->n)
        return kri_fail(KR_ERR_INVALID_ARG, "block index %lld outside [0, %lld)", (long long)i,
                        (long long)seq->n);
    const kri_seq_block *b = &seq->b[i];
    kr_seq_block_init(block);
    block->start_s = b->start;
    block->duration_s = b->dur;
    block->rf.n = b->rf_n;
    block->rf.delay_s = b->rf_delay;
    block->rf.dt_s = b->rf_dt;
    block->rf.b1_uT = b->rf_b1;
    block->rf.phase_rad = b->rf_phase;
    block->rf.freq_hz = b->rf_freq;
    for (int a = 0; a < 3; a++) {
        block->grad[a].n = b->gn[a];
        block->grad[a].t_s = b->gt[a];
        block->grad[a].g_mT_m = b->gg[a];
    }
    block->adc = b->adc;
    block->spoil = b->spoil;
    return KR_OK;
}

kr_status kr_seq_get_adc(const kr_seq *seq, int64_t i, int64_t *block, int64_t *first_sample,
                         kr_seq_adc *adc)
{
    KRI_ARG_NOT_NULL(seq);
    if (i < 0 || i >= seq->nadc)
        return kri_fail(KR_ERR_INVALID_ARG, "ADC index %lld outside [0, %lld)", (long long)i,
                        (long long)seq->nadc);
    const int64_t j = seq->adc_blk[i];
    if (block) *block = j;
    if (first_sample) *first_sample = seq->b[j].adc_first;
    if (adc) *adc = seq->b[j].adc;
    return KR_OK;
}

/* ---- piecewise-linear gradients ----------------------------------------------------------- */
double kri_seq_grad_at(const kri_seq_block *b, int a, double t)
{
    int n = b->gn[a];
    if (n == 0) return 0.0;
    const double *T = b->gt[a], *G = b->gg[a];
    if (t < T[0] || t > T[n - 1]) return 0.0;
    int lo = 0, hi = n - 1;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (T[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    double w = (t - T[lo]) / (T[hi] - T[lo]);
    return G[lo] + w * (G[hi] - G[lo]);
}

double kri_seq_grad_area(const kri_seq_block *b, int a, double t0, double t1)
{
    int n = b->gn[a];
    if (n == 0 || t1 <= t0) return 0.0;
    const double *T = b->gt[a];
    double lo = fmax(t0, T[0]), hi = fmin(t1, T[n - 1]);
    if (hi <= lo) return 0.0;
    double area = 0.0;
    for (int i = 0; i + 1 < n; i++) {
        double s0 = fmax(lo, T[i]), s1 = fmin(hi, T[i + 1]);
        if (s1 <= s0) continue;
        /* evaluated within the piece (a shared corner belongs to both neighbours) */
        double w0 = (s0 - T[i]) / (T[i + 1] - T[i]), w1 = (s1 - T[i]) / (T[i + 1] - T[i]);
        double g0 = b->gg[a][i] + w0 * (b->gg[a][i + 1] - b->gg[a][i]);
        double g1 = b->gg[a][i] + w1 * (b->gg[a][i + 1] - b->gg[a][i]);
        area += 0.5 * (g0 + g1) * (s1 - s0);
    }
    return area;
}
