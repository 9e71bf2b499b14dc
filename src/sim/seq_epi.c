/* Single-echo spin-echo EPI builder (Mayo Sarmiento (2018)'s sequence), the echo-time query and the
 * sort of ADC samples (EPI line order, reversed odd echoes) into Cartesian k-space. */
#include "sim_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

void kr_seq_epi_opts_default(kr_seq_epi_opts *o)
{
    if (!o) return;
    memset(o, 0, sizeof *o);
    o->nx = o->ny = 64;
    o->fov_x_mm = o->fov_y_mm = 256.0;
    o->te_ms = 120.0;
    o->tr_ms = 3000.0;
    o->flip_deg = 90.0;
    o->refocus_deg = 180.0;
    o->bw_hz_px = 1500.0;
    o->rf_dur_s = 200e-6;
    o->raster_s = 10e-6;
    o->shots = 1;
    o->order = KR_EPI_INTERLEAVED;
    o->ndummy = 1;
    kr_seq_limits_default(&o->limits);
}

static double floor_r(double t, double r) { return floor(t / r + 1e-9) * r; }

static kr_status epi_check(const kr_seq_epi_opts *o)
{
    KRI_ARG_NOT_NULL(o);
    KRI_TRY(kri_seq_check_common(o->nx, o->ny, o->fov_x_mm, o->fov_y_mm, o->te_ms, o->tr_ms,
                                 o->flip_deg, o->refocus_deg, o->bw_hz_px, o->rf_dur_s,
                                 o->raster_s));
    if (o->shots < 1 || o->ny % o->shots != 0)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "EPI shots (height/ETL) %d must be >= 1 and divide the %lld lines",
                        o->shots, (long long)o->ny);
    if ((int)o->order < 0 || o->order >= KR_EPI_ORDER_COUNT || o->ndummy < 0)
        return kri_fail(KR_ERR_INVALID_ARG, "invalid EPI line order %d or ndummy %d",
                        (int)o->order, o->ndummy);
    return KR_OK;
}

/* Line acquired by echo e of shot s. */
static int64_t epi_line(const kr_seq_epi_opts *o, int64_t etl, int64_t s, int64_t e)
{
    return o->order == KR_EPI_INTERLEAVED ? s + e * o->shots : s * etl + e;
}

kr_status kr_seq_se_epi(kr_seq **seq, const kr_seq_epi_opts *o)
{
    KRI_ARG_NOT_NULL(seq);
    *seq = NULL;
    KRI_TRY(epi_check(o));
    const double r = o->raster_s, gb = KR_GAMMA_BAR_HZ_PER_T;
    const kr_seq_limits *lim = &o->limits;
    const int64_t nx = o->nx, ny = o->ny, etl = ny / o->shots;
    const double dwell = 1.0 / (o->bw_hz_px * (double)nx);
    const double gro = 1e3 / (gb * o->fov_x_mm * 1e-3 * dwell);
    if (gro > lim->gmax_mT_m)
        return kri_fail(KR_ERR_INVALID_ARG,
                        "the EPI readout needs %g mT/m, beyond gmax %g mT/m: lower the bandwidth "
                        "or enlarge the FOV",
                        gro, lim->gmax_mT_m);
    const double rise = kri_ceil_r(gro / (lim->smax_T_m_s * 1000.0), r);
    /* one raster more than needed, so the ADC position can put the echo exactly at TE
     * while every block edge stays on the raster */
    const double flat = kri_ceil_r((double)nx * dwell, r) + r;
    const double slack = flat - (double)nx * dwell;
    const double pe_step = 1e3 / (gb * o->fov_y_mm * 1e-3); /* mT/m s per line */
    const double blip_area = pe_step * (o->order == KR_EPI_INTERLEAVED ? o->shots : 1);
    const kri_trap blip = etl > 1 ? kri_trap_min(blip_area, lim, r) : (kri_trap){0, 0};
    const double blip_dur = 2.0 * blip.rise + blip.flat;
    const double ro_dur = 2.0 * rise + flat;
    const double es = fmax(ro_dur, rise + flat + blip_dur); /* echo spacing */
    /* echo c of every shot acquires line ny/2 in its shot */
    const int64_t cl = ny / 2;
    const int64_t c = o->order == KR_EPI_INTERLEAVED ? cl / o->shots : cl % etl;
    const int codd = (int)(c & 1);
    const double m0c = codd ? (double)(nx - 1 - nx / 2) : (double)(nx / 2);
    /* kx = 0 time of the centre echo from the train start, less its ADC offset */
    const double base = (double)c * es + rise + (m0c + 0.5) * dwell;
    const double h = 0.5 * o->rf_dur_s, rf_blk = kri_ceil_r(o->rf_dur_s, r);
    const double te = o->te_ms * 1e-3, tr = o->tr_ms * 1e-3;
    /* prephaser: shared timing for the largest x and y areas */
    double pre_x_max = gro * (0.5 * rise + slack + ((double)(nx / 2) + 0.5) * dwell);
    double pe_max = pe_step * (double)(ny / 2 > ny - 1 - ny / 2 ? ny / 2 : ny - 1 - ny / 2);
    const kri_trap pre = kri_trap_min(fmax(pre_x_max, pe_max), lim, r);
    const double pre_dur = 2.0 * pre.rise + pre.flat;
    /* the train starts at T0 (raster) with off in [0, slack] absorbing the remainder */
    const double t0 = floor_r(h + te - base, r);
    const double rem = h + te - base - t0; /* in [0, r) */
    const double off = codd ? slack - rem : rem; /* even echoes' offset; odd: slack - off */
    const double d1 = 0.5 * te - rf_blk;
    const double d2 = t0 - pre_dur - (0.5 * te + rf_blk);
    if (d1 < -1e-12 || d2 < -1e-12) {
        /* the smallest TE satisfying both (rounded up to 0.01 ms) */
        double te_min = fmax(2.0 * rf_blk, 2.0 * (base + pre_dur + rf_blk - h) + 2.0 * r);
        te_min = ceil(te_min * 1e5 - 1e-6) / 1e5;
        return kri_fail(KR_ERR_INVALID_ARG,
                        "TE %g ms is shorter than the minimum %.2f ms of this EPI (%lld echoes of "
                        "%.3f ms, echo %lld at TE): use more shots, a higher bandwidth or a "
                        "smaller matrix",
                        o->te_ms, te_min * 1e3, (long long)etl, es * 1e3, (long long)c);
    }
    const double shot_used = t0 + (double)(etl - 1) * es + ro_dur;
    if (tr < shot_used + r - 1e-12)
        return kri_fail(KR_ERR_INVALID_ARG, "TR %g ms is shorter than the minimum %.3f ms",
                        o->tr_ms, (shot_used + r) * 1e3);
    kr_seq *s = NULL;
    KRI_TRY(kr_seq_create(&s, lim));
    kr_status st = KR_OK;
    const int64_t nshots = o->shots + o->ndummy;
    const double amp90 = o->flip_deg / 360.0 / (gb * o->rf_dur_s) * 1e6;
    const double amp180 = o->refocus_deg / 360.0 / (gb * o->rf_dur_s) * 1e6;
    for (int64_t j = 0; j < nshots && st == KR_OK; j++) {
        const int adc = j >= o->ndummy;
        const int64_t shot = adc ? j - o->ndummy : 0;
        const double start = (double)j * tr;
        kr_seq_block b;
        double tx[4], gx[4], ty[4], gy[4];
        /* excitation, phase 0 */
        kr_seq_block_init(&b);
        b.start_s = start;
        b.duration_s = rf_blk;
        b.rf.n = 1;
        b.rf.dt_s = o->rf_dur_s;
        b.rf.amp_uT = amp90;
        st = kr_seq_add_block(s, &b);
        if (st == KR_OK && d1 > KRI_SEQ_TIME_TOL) {
            kr_seq_block_init(&b);
            b.duration_s = d1;
            st = kr_seq_add_block(s, &b);
        }
        if (st == KR_OK) { /* refocusing, phase 90 degrees, centred at TE/2 */
            kr_seq_block_init(&b);
            b.start_s = start + 0.5 * te;
            b.duration_s = rf_blk;
            b.rf.n = 1;
            b.rf.dt_s = o->rf_dur_s;
            b.rf.amp_uT = amp180;
            b.rf.phase_rad = 0.5 * M_PI;
            st = kr_seq_add_block(s, &b);
        }
        if (st == KR_OK && d2 > KRI_SEQ_TIME_TOL) {
            kr_seq_block_init(&b);
            b.duration_s = d2;
            st = kr_seq_add_block(s, &b);
        }
        if (st == KR_OK && pre_dur > 0) { /* prephaser */
            kr_seq_block_init(&b);
            b.start_s = start + t0 - pre_dur;
            b.duration_s = pre_dur;
            const double ax = -gro * (0.5 * rise + off + ((double)(nx / 2) + 0.5) * dwell);
            const double ay = pe_step * (double)(epi_line(o, etl, shot, 0) - ny / 2);
            kr_seq_trap(&b.grad[0], tx, gx, 0, ax / (pre.rise + pre.flat), pre.rise, pre.flat,
                        pre.rise);
            if (ay != 0)
                kr_seq_trap(&b.grad[1], ty, gy, 0, ay / (pre.rise + pre.flat), pre.rise,
                            pre.flat, pre.rise);
            st = kr_seq_add_block(s, &b);
        }
        for (int64_t e = 0; e < etl && st == KR_OK; e++) {
            const int odd = (int)(e & 1);
            const int last = e == etl - 1;
            kr_seq_block_init(&b);
            b.start_s = start + t0 + (double)e * es;
            b.duration_s = last ? ro_dur : es;
            kr_seq_trap(&b.grad[0], tx, gx, 0, odd ? -gro : gro, rise, flat, rise);
            if (!last && blip_dur > 0) {
                const int64_t dl = epi_line(o, etl, shot, e + 1) - epi_line(o, etl, shot, e);
                const double amp = pe_step * (double)dl / (blip.rise + blip.flat);
                kr_seq_trap(&b.grad[1], ty, gy, rise + flat, amp, blip.rise, blip.flat,
                            blip.rise);
            }
            if (adc) {
                b.adc.n = nx;
                b.adc.delay_s = rise + (odd ? slack - off : off);
                b.adc.dwell_s = dwell;
                b.adc.line = (int32_t)epi_line(o, etl, shot, e);
                b.adc.echo = (int32_t)e;
                b.adc.reverse = odd;
            }
            st = kr_seq_add_block(s, &b);
        }
        if (st == KR_OK) { /* ideal spoiling and the rest of TR */
            kr_seq_block_init(&b);
            b.duration_s = tr - shot_used;
            b.spoil = 1;
            st = kr_seq_add_block(s, &b);
        }
    }
    if (st != KR_OK) {
        kr_seq_destroy(s);
        return kri_fail_prefix(st, "building the spin-echo EPI");
    }
    kr_log(NULL, KR_LOG_DEBUG,
           "SE-EPI: %lld x %lld, %d shot(s) of %lld echoes, echo spacing %.4f ms, readout %.3f "
           "mT/m, echo %lld at TE",
           (long long)nx, (long long)ny, o->shots, (long long)etl, es * 1e3, gro, (long long)c);
    *seq = s;
    return KR_OK;
}

kr_status kr_seq_se_line_time(const kr_seq *seq, int32_t line, double *t_s)
{
    KRI_ARG_NOT_NULL(seq);
    KRI_ARG_NOT_NULL(t_s);
    for (int64_t i = 0; i < seq->nadc; i++) {
        const int64_t ib = seq->adc_blk[i];
        const kri_seq_block *b = &seq->b[ib];
        if (b->adc.line != line) continue;
        int64_t rf[2] = {-1, -1};
        int found = 0;
        for (int64_t k = ib; k >= 0 && found < 2; k--)
            if (seq->b[k].rf_n > 0) rf[found++] = k;
        if (found < 2)
            return kri_fail(KR_ERR_INVALID_ARG,
                            "ADC event %lld (line %d) is not preceded by two RF pulses",
                            (long long)i, (int)line);
        const kri_seq_block *x = &seq->b[rf[1]];
        const double centre = x->start + x->rf_delay + 0.5 * (double)x->rf_n * x->rf_dt;
        const int64_t n = b->adc.n;
        const int64_t m = b->adc.reverse ? n - 1 - n / 2 : n / 2;
        *t_s = b->start + b->adc.delay_s + ((double)m + 0.5) * b->adc.dwell_s - centre;
        return KR_OK;
    }
    return kri_fail(KR_ERR_INVALID_ARG, "no ADC event of the sequence has line %d", (int)line);
}

kr_status kr_seq_sort_kspace(const kr_seq *seq, const kr_array *samples, int64_t nx, int64_t ny,
                             kr_array **kspace)
{
    KRI_ARG_NOT_NULL(kspace);
    *kspace = NULL;
    KRI_ARG_NOT_NULL(seq);
    KRI_TRY(kri_check_operand("kr_seq_sort_kspace", "samples", samples, KR_C64, KR_HOST));
    if (nx < 1 || ny < 1)
        return kri_fail(KR_ERR_INVALID_ARG, "k-space size %lld x %lld must be >= 1",
                        (long long)nx, (long long)ny);
    const int64_t ns = seq->nsamples, tot = kr_array_numel(samples);
    if (ns < 1 || tot % ns != 0)
        return kri_fail(KR_ERR_DIM,
                        "samples have %lld values, not a multiple of the sequence's %lld ADC "
                        "samples",
                        (long long)tot, (long long)ns);
    const int64_t nc = tot / ns;
    uint8_t *seen = kri_calloc((size_t)ny, 1);
    if (!seen) return kri_fail(KR_ERR_OOM_HOST, "out of host memory sorting k-space");
    for (int64_t i = 0; i < seq->nadc; i++) {
        const kr_seq_adc *a = &seq->b[seq->adc_blk[i]].adc;
        const char *why = a->n != nx                       ? "has %lld samples, not nx = %lld"
                          : a->line < 0 || a->line >= ny ? "has line %lld outside [0, %lld)"
                          : seen[a->line]                ? "acquires line %lld (of %lld) twice"
                                                         : NULL;
        if (why) {
            char fmt[96];
            snprintf(fmt, sizeof fmt, "ADC event %%lld %s", why);
            long long v = a->n != nx ? (long long)a->n : (long long)a->line;
            long long w = a->n != nx ? (long long)nx : (long long)ny;
            kri_free(seen);
            return kri_fail(KR_ERR_INVALID_ARG, fmt, (long long)i, v, w);
        }
        seen[a->line] = 1;
    }
    kri_free(seen);
    const int64_t dims[4] = {nx, ny, 1, nc};
    kr_array *k = NULL;
    KRI_TRY(kr_array_create(&k, KR_C64, 4, dims, KR_HOST, NULL));
    memset(k->data, 0, (size_t)kr_array_numel(k) * 2 * sizeof(float));
    const float *src = samples->data;
    float *dst = k->data;
    for (int64_t ch = 0; ch < nc; ch++)
        for (int64_t i = 0; i < seq->nadc; i++) {
            const kri_seq_block *b = &seq->b[seq->adc_blk[i]];
            const int64_t first = b->adc_first, line = b->adc.line;
            for (int64_t m = 0; m < nx; m++) {
                const int64_t col = b->adc.reverse ? nx - 1 - m : m;
                const int64_t si = ch * ns + first + m, di = (ch * ny + line) * nx + col;
                dst[2 * di] = src[2 * si];
                dst[2 * di + 1] = src[2 * si + 1];
            }
        }
    *kspace = k;
    return KR_OK;
}
